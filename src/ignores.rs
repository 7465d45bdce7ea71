//! `.gitignore` and `.ignore` files, read as gpulint reads everything it opens: regular
//! files only (a FIFO would hang the walk, a link to `/dev/zero` exhaust memory), up to a
//! size cap, inside the checkout, never echoed. They apply from the folder walked down, and
//! upward only as far as the Git checkout that holds it (git stops at the repository root):
//! a `*.tf` in a folder above the repository hides nothing. `.git/info/exclude` applies at
//! the checkout's root. An ignore file gpulint does not read is named in a note.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The largest ignore file read (git's own are a few KiB; a 10 MB one took 34 s).
const MAX_IGNORE_BYTES: u64 = 1 << 20;

/// Ignore files by name, in the order git and ripgrep apply them (later wins).
const NAMES: [&str; 2] = [".gitignore", ".ignore"];

/// The ignore rules of a walk, folder by folder, read once each.
#[derive(Clone)]
pub struct Ignores {
    /// The canonical folder walked, and the checkout above it (or the folder itself).
    top: PathBuf,
    checkout: PathBuf,
    /// The rules of each canonical folder read so far (`None`: none there).
    folders: Arc<Mutex<HashMap<PathBuf, Option<Arc<Gitignore>>>>>,
    /// What was not read, for notes.
    pub notes: Arc<Mutex<Vec<String>>>,
}

impl Ignores {
    /// The rules for a walk of `dir` (as given, relative or not).
    pub fn new(dir: &Path) -> Option<Self> {
        let top = std::fs::canonicalize(dir).ok()?;
        let checkout = crate::discover::tree_root(&top)?;
        Some(Ignores {
            top,
            checkout,
            folders: Arc::default(),
            notes: Arc::default(),
        })
    }

    /// Whether the entry at `path` (inside the walk of `walked`, as the walker names it) is
    /// ignored: the deepest folder whose rules match it decides, as in git.
    pub fn ignored(&self, walked: &Path, path: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(walked) else {
            return false;
        };
        let full = self.top.join(rel);
        let mut folder = full.parent();
        while let Some(dir) = folder {
            if !dir.starts_with(&self.checkout) {
                break;
            }
            if let Some(rules) = self.rules(dir) {
                match rules.matched(&full, is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
            if dir == self.checkout {
                break;
            }
            folder = dir.parent();
        }
        false
    }

    fn rules(&self, dir: &Path) -> Option<Arc<Gitignore>> {
        let mut folders = self
            .folders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = folders.get(dir) {
            return found.clone();
        }
        let mut builder = GitignoreBuilder::new(dir);
        let mut any = false;
        let mut files: Vec<PathBuf> = Vec::new();
        if dir == self.checkout {
            files.push(dir.join(".git").join("info").join("exclude"));
        }
        files.extend(NAMES.iter().map(|n| dir.join(n)));
        for file in files {
            let Some(text) = self.read(&file) else {
                continue;
            };
            for line in text.lines() {
                // A line that does not parse is left out, as git leaves it.
                let _ = builder.add_line(Some(file.clone()), line);
            }
            any = true;
        }
        let rules = any.then(|| builder.build().ok()).flatten().map(Arc::new);
        folders.insert(dir.to_path_buf(), rules.clone());
        rules
    }

    /// An ignore file's text, if it is one gpulint reads; a note otherwise.
    fn read(&self, file: &Path) -> Option<String> {
        let meta = std::fs::symlink_metadata(file).ok()?;
        let shown = || {
            gpulint_source::escape::escape(
                &file
                    .strip_prefix(&self.checkout)
                    .unwrap_or(file)
                    .display()
                    .to_string(),
            )
            .into_owned()
        };
        let note = |why: &str| {
            let mut notes = self
                .notes
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            notes.push(format!("did not read the ignore file `{}`: {why}", shown()));
        };
        // A link must stay in the checkout, and lead to a regular file.
        let target = if meta.file_type().is_symlink() {
            match std::fs::canonicalize(file) {
                Ok(t) if t.starts_with(&self.checkout) => t,
                Ok(_) => {
                    note("a link out of the checkout");
                    return None;
                }
                Err(_) => {
                    note("a link that does not resolve");
                    return None;
                }
            }
        } else {
            file.to_path_buf()
        };
        let meta = std::fs::metadata(&target).ok()?;
        if !meta.is_file() {
            note("not a regular file (a FIFO, a device or a folder)");
            return None;
        }
        if meta.len() > MAX_IGNORE_BYTES {
            note("larger than 1 MiB");
            return None;
        }
        match gpulint_source::bounded::read_text(
            &target,
            MAX_IGNORE_BYTES,
            "an ignore file is read up to 1 MiB",
        ) {
            Ok(text) => Some(text),
            Err(_) => {
                note("unreadable, or not text");
                None
            }
        }
    }
}
