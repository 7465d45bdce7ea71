//! The files Terraform's `file()` and `templatefile()` calls read, a VM's start-up script
//! most often: read into the run as text, so that what the machine runs is judged with
//! the resource that runs it (`gpulint_terraform::scripts`).
//!
//! Only a literal path is followed, relative to the module (`"${path.module}/run.sh"`) or
//! to its folder (`"run.sh"`, `"${path.root}/run.sh"`, as for a root module). A path that
//! is absolute, holds another interpolation, leaves the checkout (through `..` or a
//! link; outside one, the working folder), or is not a regular file is not read, and nothing says so: Terraform files name
//! many files gpulint has no use for (keys, certificates, policies).

use std::path::{Path, PathBuf};

use super::{Input, Read, Reading};
use crate::source::FileKind;

/// Files read this way in one run, at most: a limit hit is a note.
const MAX_SCRIPTS: usize = 1024;

/// The paths the `file()` and `templatefile()` calls of Terraform `text` name, as written
/// (`${path.module}/startup.sh`), when the path is a quoted literal.
pub(super) fn named_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bytes = text.as_bytes();
    for at in memchr::memmem::find_iter(bytes, b"file(") {
        // `file(` itself, or the end of `templatefile(`; not `filebase64(` or `myfile(`.
        let start = if bytes[..at].ends_with(b"template") {
            at - "template".len()
        } else {
            at
        };
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let rest = text[at + "file(".len()..].trim_start();
        let Some(quoted) = rest.strip_prefix('"') else {
            continue;
        };
        let Some(path) = quoted.split('"').next() else {
            continue;
        };
        if !path.is_empty() && !path.contains('\n') && !out.iter().any(|p| p == path) {
            out.push(path.to_string());
        }
    }
    out
}

/// The file a path written in a `.tf` file in `dir` names, when it is one to read: with
/// `${path.module}/`, `${path.root}/` or `${path.cwd}/` read as `dir` (a root module's
/// folder), and no other interpolation.
fn resolve(dir: &Path, written: &str) -> Option<PathBuf> {
    let rest = ["${path.module}/", "${path.root}/", "${path.cwd}/"]
        .iter()
        .find_map(|p| written.strip_prefix(p))
        .unwrap_or(written);
    if rest.contains("${") || rest.contains("%{") || Path::new(rest).is_absolute() {
        return None;
    }
    Some(gpulint_terraform::scripts::normalize(&dir.join(rest)))
}

/// Reads the files the run's Terraform names in `file()` and `templatefile()` calls into
/// the run, as [`FileKind::Script`]. Returns a note when more are named than are read.
pub(super) fn load(run: &mut Read, seen: &mut crate::discover::Seen, how: &Reading) -> Vec<String> {
    let named = std::mem::take(&mut run.scripts);
    let mut wanted: Vec<(Input, Option<Vec<u8>>)> = Vec::new();
    let mut left = 0;
    for (id, written) in named {
        let file = run.db.get(id);
        let Some(dir) = file.path().and_then(Path::parent) else {
            continue;
        };
        let Some(target) = resolve(dir, &written) else {
            continue;
        };
        // A regular file inside the tree, links resolved, as discovery bounds a link: the
        // checkout that holds the module, or outside one the working folder (never the
        // file system's root or the home folder).
        let inside = || {
            let real = std::fs::canonicalize(&target).ok()?;
            let meta = std::fs::metadata(&real).ok()?;
            let root = crate::discover::tree_root(dir)?;
            let in_checkout = root.join(".git").symlink_metadata().is_ok();
            let bounded = real.starts_with(&root)
                || (!in_checkout && crate::discover::in_working_folder(&real));
            (meta.is_file() && bounded).then_some(())
        };
        if FileKind::from_path(&target).is_some() || inside().is_none() {
            continue;
        }
        if wanted.len() >= MAX_SCRIPTS {
            left += 1;
            continue;
        }
        let mut input = Input {
            name: crate::source::names::display_name(&target, how.cwd),
            kind: FileKind::Script,
            path: Some(target),
            requested: file.requested,
        };
        let index = run.db.len() + wanted.len();
        if seen.add(&mut input, index, how.cwd).is_none() {
            wanted.push((input, None));
        }
    }
    super::terraform::read_wanted(run, wanted, how);
    if left == 0 {
        return Vec::new();
    }
    vec![format!(
        "not read: {left} more files that `file()` or `templatefile()` calls name, beyond the \
         {MAX_SCRIPTS} a run reads; what they run is not judged"
    )]
}

#[cfg(test)]
mod tests {
    use super::{named_in, resolve};
    use std::path::{Path, PathBuf};

    #[test]
    fn literal_paths_of_file_and_templatefile_are_named() {
        let tf = r#"
  user_data = templatefile("${path.module}/user_data.sh.tpl", { model = var.model })
  metadata_startup_script = file("startup.sh")
  key = filebase64("key.pem")
  x = myfile("no.sh")
  y = file(var.script)
  z = file( "spaced.sh" )
"#;
        assert_eq!(
            named_in(tf),
            ["${path.module}/user_data.sh.tpl", "startup.sh", "spaced.sh"]
        );
    }

    #[test]
    fn paths_resolve_in_the_module_folder_and_nothing_else_is_read() {
        let dir = Path::new("repo/infra");
        assert_eq!(
            resolve(dir, "${path.module}/../scripts/run.sh"),
            Some(PathBuf::from("repo/scripts/run.sh"))
        );
        assert_eq!(
            resolve(dir, "run.sh"),
            Some(PathBuf::from("repo/infra/run.sh"))
        );
        assert_eq!(resolve(dir, "/etc/passwd"), None);
        assert_eq!(resolve(dir, "${var.dir}/run.sh"), None);
    }
}
