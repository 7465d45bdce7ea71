//! Path globs relative to a folder, as `exclude` and `[per-file-ignores]` write them.
//! Discovery skips what they match; the config compiles them.

use std::path::{Component, Path, PathBuf};

use globset::GlobSet;

/// `exclude` globs, relative to the configuration file's folder.
#[derive(Clone, Debug)]
pub struct Exclude {
    pub(crate) base: PathBuf,
    pub(crate) set: GlobSet,
    /// The globs as written.
    pub patterns: Vec<String>,
}

impl Exclude {
    /// Does a glob match the path (relative to the config's folder), one of its folders, or
    /// its name? `vendor`, `vendor/**` and `**/templates` all exclude what they say.
    pub fn excludes(&self, path: &Path, cwd: &Path) -> bool {
        !self.matching(path, cwd).is_empty()
    }

    /// The globs, by index, that match the path, one of its folders, or its name.
    pub(crate) fn matching(&self, path: &Path, cwd: &Path) -> Vec<usize> {
        let absolute = normalize(&cwd.join(path));
        let relative = absolute.strip_prefix(&self.base).unwrap_or(&absolute);
        let mut hits: Vec<usize> = relative
            .ancestors()
            .filter(|p| !p.as_os_str().is_empty())
            .flat_map(|p| {
                let mut m = self.set.matches(p);
                if let Some(name) = p.file_name() {
                    m.extend(self.set.matches(name));
                }
                m
            })
            .collect();
        hits.sort_unstable();
        hits.dedup();
        hits
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system (the path may not exist).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
