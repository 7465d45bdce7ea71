//! The names files are shown by: relative to the working directory where possible,
//! `/`-separated, `.` and `..` resolved as module sources write them, and bytes that are
//! not UTF-8 escaped so that two files never read alike.

use std::fmt::Write as _;
use std::path::{Component, Path};

/// `./infra//gpu.tf` → `infra/gpu.tf`; an absolute path under the working directory
/// becomes relative to it.
pub fn display_name(path: &Path, cwd: Option<&Path>) -> String {
    let rel = cwd
        .filter(|_| path.is_absolute())
        .and_then(|c| path.strip_prefix(c).ok())
        .unwrap_or(path);
    let mut parts: Vec<String> = Vec::new();
    for c in rel.components() {
        match c {
            Component::CurDir => {}
            // `envs/prod/../../modules/gpu` is `modules/gpu` (module sources look so).
            Component::ParentDir if parts.last().is_some_and(|p| !p.is_empty() && p != "..") => {
                parts.pop();
            }
            Component::RootDir => parts.push(String::new()),
            other => parts.push(escape(other.as_os_str())),
        }
    }
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// A path component as text. Bytes that are not UTF-8 are written `\xNN` and a backslash
/// `\\`, so that two names never read alike (a lossy `�` would merge them, and so would a
/// file literally named `\xFF.tf`) and every report can carry them.
pub fn escape(part: &std::ffi::OsStr) -> String {
    let bytes = part.as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_are_relative_and_clean() {
        assert_eq!(
            display_name(Path::new("./infra//gpu.tf"), None),
            "infra/gpu.tf"
        );
        assert_eq!(
            display_name(
                Path::new("/work/repo/a/b.yaml"),
                Some(Path::new("/work/repo"))
            ),
            "a/b.yaml"
        );
        assert_eq!(
            display_name(Path::new("/etc/x.tf"), Some(Path::new("/work"))),
            "/etc/x.tf"
        );
        assert_eq!(
            display_name(Path::new("envs/prod/../../modules/gpu/main.tf"), None),
            "modules/gpu/main.tf"
        );
        assert_eq!(display_name(Path::new("../x.tf"), None), "../x.tf");
    }

    #[cfg(unix)]
    #[test]
    fn escapes_are_unambiguous() {
        use std::os::unix::ffi::OsStrExt;
        let name = |b: &[u8]| escape(std::ffi::OsStr::from_bytes(b));
        assert_eq!(name(b"\xFF.tf"), "\\xFF.tf");
        assert_eq!(name(b"\\xFF.tf"), "\\\\xFF.tf");
        assert_ne!(name(b"\xFF.tf"), name(b"\\xFF.tf"));
    }
}
