//! The file system's corner cases: files over the size cap, symbolic links (to files, in
//! loops, to folders), unreadable files and folders, FIFOs, a path given twice, names that
//! are not UTF-8. Each is a clear finding or note, and the other files are still linted.
#![cfg(unix)]
// A check that cannot run here (as root, permissions do not bite) says so on stderr.
#![allow(clippy::print_stderr)]

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use crate::common::{GPU_VM, gpulint, json, stderr, write};

/// `(rule, file, message)` of every finding of `gpulint check --format json ARGS` in `dir`,
/// sorted, with stderr.
fn check(dir: &Path, args: &[&str]) -> (Vec<(String, String, String)>, String) {
    let o = gpulint(&[&["check", "--format", "json"], args].concat(), dir, None);
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
    let mut found: Vec<(String, String, String)> = json(&o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    (found, err)
}

fn rules_and_files(found: &[(String, String, String)]) -> Vec<(&str, &str)> {
    found
        .iter()
        .map(|(r, f, _)| (r.as_str(), f.as_str()))
        .collect()
}

#[test]
fn a_file_over_the_size_cap_is_a_finding_and_the_rest_is_linted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, ".gpulint.toml", "max_file_size = 1\n");
    let big = "apiVersion: v1\nkind: ConfigMap\ndata:\n".to_string()
        + &"  k: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n".repeat(40_000);
    write(d, "big.yaml", &big);
    write(d, "gpu/main.tf", GPU_VM);
    let (found, _) = check(d, &["."]);
    assert_eq!(
        rules_and_files(&found),
        [
            ("missing-auto-shutdown", "gpu/main.tf"),
            ("parse-error", "big.yaml")
        ]
    );
    assert_eq!(
        found[1].2,
        "gpulint could not read the file: it is 2.5 MiB, over the 1 MiB limit \
         (`max_file_size` in .gpulint.toml)"
    );

    // Piped in, the same cap holds.
    let o = gpulint(
        &[
            "check",
            "--format",
            "json",
            "-",
            "--stdin-filename",
            "big.yaml",
        ],
        d,
        Some(big.as_bytes()),
    );
    assert!(stdout_has(&o, "over the 1 MiB limit"));

    // The default (16 MiB) reads it; a cap that is not a whole number of MiB is refused.
    write(d, ".gpulint.toml", "");
    let (found, _) = check(d, &["."]);
    assert_eq!(
        rules_and_files(&found),
        [("missing-auto-shutdown", "gpu/main.tf")]
    );
    write(d, ".gpulint.toml", "max_file_size = 0.5\n");
    let o = gpulint(&["check", "."], d, None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains(".gpulint.toml:1:17: `max_file_size` must be a whole number of MiB, from 1"),
        "{}",
        stderr(&o)
    );
}

fn stdout_has(o: &std::process::Output, text: &str) -> bool {
    String::from_utf8_lossy(&o.stdout).contains(text)
}

#[test]
fn symbolic_links_to_files_are_read_and_loops_are_findings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "shared/gpu.tf", GPU_VM);
    std::fs::create_dir_all(d.join("env")).unwrap();
    // A shared file linked into a root, as Terraform repositories link providers.tf.
    symlink("../shared/gpu.tf", d.join("env/gpu.tf")).unwrap();
    // A link to itself, and one to nothing.
    symlink("loop.tf", d.join("env/loop.tf")).unwrap();
    symlink("missing.yaml", d.join("env/dangling.yaml")).unwrap();
    // A link to a folder above: not followed, so the walk cannot go round.
    symlink("..", d.join("env/up")).unwrap();

    // `shared` is outside `env`: read when asked (tests/it/inputs.rs has the default).
    let (found, _) = check(d, &["env", "--follow-external-links"]);
    assert_eq!(
        rules_and_files(&found),
        [
            ("missing-auto-shutdown", "env/gpu.tf"),
            ("parse-error", "env/dangling.yaml"),
            ("parse-error", "env/loop.tf"),
        ]
    );
    assert!(
        found[2]
            .2
            .starts_with("gpulint could not read the file: Too many levels of symbolic links"),
        "{found:?}"
    );
    assert!(
        found[1].2.contains("No such file or directory"),
        "{found:?}"
    );

    // Named, a link loop is a run error with its name, not a hang.
    std::fs::create_dir_all(d.join("loops")).unwrap();
    symlink("b", d.join("loops/a")).unwrap();
    symlink("a", d.join("loops/b")).unwrap();
    let o = gpulint(&["check", "loops/a"], d, None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read `loops/a`"),
        "{}",
        stderr(&o)
    );
}

/// Root reads everything: these checks hold only where permissions bite.
fn permissions_bite(file: &Path) -> bool {
    std::fs::read(file).is_err()
}

#[test]
fn unreadable_files_are_findings_and_unreadable_folders_are_notes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "gpu/main.tf", GPU_VM);
    write(d, "secret.yaml", "apiVersion: v1\nkind: ConfigMap\n");
    write(d, "locked/inner.tf", GPU_VM);
    let no_access = std::fs::Permissions::from_mode(0o000);
    std::fs::set_permissions(d.join("secret.yaml"), no_access.clone()).unwrap();
    std::fs::set_permissions(d.join("locked"), no_access).unwrap();
    let bites = permissions_bite(&d.join("secret.yaml"));
    let (found, err) = check(d, &["."]);
    // Let the temporary folder be removed.
    std::fs::set_permissions(d.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    if !bites {
        crate::common::skip("running as root, every file is readable");
        return;
    }
    assert_eq!(
        rules_and_files(&found),
        [
            ("missing-auto-shutdown", "gpu/main.tf"),
            ("parse-error", "secret.yaml")
        ]
    );
    assert!(found[1].2.contains("Permission denied"), "{found:?}");
    assert!(
        err.contains(
            "cannot read `locked`: Permission denied (os error 13); the files in it are not linted"
        ),
        "{err}"
    );
}

#[test]
fn fifos_are_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "gpu/main.tf", GPU_VM);
    let made = std::process::Command::new("mkfifo")
        .arg(d.join("gpu/pipe.yaml"))
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        crate::common::skip("no mkfifo");
        return;
    }
    // Found in a folder: not a file, skipped.
    let (found, _) = check(d, &["gpu"]);
    assert_eq!(
        rules_and_files(&found),
        [("missing-auto-shutdown", "gpu/main.tf")]
    );
    // Named: a finding, at once (opening a FIFO would wait for a writer).
    let (found, _) = check(d, &["gpu/pipe.yaml", "gpu/main.tf"]);
    assert_eq!(
        rules_and_files(&found),
        [
            ("missing-auto-shutdown", "gpu/main.tf"),
            ("parse-error", "gpu/pipe.yaml")
        ]
    );
    assert_eq!(
        found[1].2,
        "gpulint could not read the file: not a regular file"
    );
}

#[test]
fn a_path_given_twice_is_linted_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "gpu/main.tf", GPU_VM);
    let (found, _) = check(
        d,
        &[
            "gpu/main.tf",
            "./gpu/main.tf",
            "gpu",
            "gpu/",
            "gpu/../gpu/main.tf",
        ],
    );
    assert_eq!(
        rules_and_files(&found),
        [("missing-auto-shutdown", "gpu/main.tf")]
    );
}

#[test]
fn names_that_are_not_utf8_are_read_and_shown_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let name = std::ffi::OsStr::from_bytes(b"gpu-\xFF.tf");
    let other = std::ffi::OsStr::from_bytes(b"gpu-\xFE.tf");
    for n in [name, other] {
        if std::fs::write(d.join(n), GPU_VM).is_err() {
            crate::common::skip("the file system refuses names that are not UTF-8");
            return;
        }
    }
    let (found, _) = check(d, &["."]);
    // Two files, two findings: the names stay distinct.
    assert_eq!(
        rules_and_files(&found),
        [
            ("missing-auto-shutdown", "gpu-\\xFE.tf"),
            ("missing-auto-shutdown", "gpu-\\xFF.tf")
        ]
    );
    // Every format carries the name (SARIF as a URI, `\` percent-encoded).
    for format in ["sarif", "junit", "github", "human", "compact"] {
        let o = gpulint(&["check", "--format", format, "."], d, None);
        assert_eq!(o.status.code(), Some(1), "{format}: {o:?}");
        assert!(stdout_has(&o, "xFF.tf"), "{format}");
    }
}

/// Counts past `u32` are still counts: an eksctl group of 2³² nodes is judged at that size
/// (it was "unknown", and the finding lost).
#[test]
fn counts_past_u32_are_kept_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::common::write(
        d,
        "c.yaml",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: us-east-1}\n\
         managedNodeGroups:\n  - name: gpu\n    instanceType: p4d.24xlarge\n    minSize: 4294967296\n    \
         maxSize: 4294967300\n",
    );
    let o = crate::common::gpulint(&["check", "--format", "json", "c.yaml"], d, None);
    let report = crate::common::json(&o);
    let messages: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "gpu-pool-never-scales-to-zero")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 1, "{report:#}");
    assert!(messages[0].contains("4294967296 nodes"), "{}", messages[0]);
}
