//! The real pre-commit, from PyPI, running this checkout's hooks on a temporary git repository
//! (`pre-commit try-repo`, which includes uncommitted changes). `.ci/run` installs pre-commit
//! and sets `GPULINT_REQUIRE_PRE_COMMIT=1`; elsewhere, without pre-commit on PATH, the tests
//! say they were skipped. `GPULINT_TEST_RUST_HOOK=1` also builds the `language: rust` hook
//! with cargo, as a user's first `pre-commit run` does.
#![allow(clippy::print_stderr)] // a skipped test says so

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{ROOT, write};

fn pre_commit() -> Option<String> {
    let exe = std::env::var("PRE_COMMIT").unwrap_or_else(|_| "pre-commit".into());
    let found = Command::new(&exe)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some(exe);
    }
    assert!(
        std::env::var_os("GPULINT_REQUIRE_PRE_COMMIT").is_none(),
        "pre-commit is required here but `{exe} --version` failed"
    );
    crate::common::skip("pre-commit is not installed (pip install pre-commit)");
    None
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A git repository with one GPU VM that has no stop, and an unrelated YAML file.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q"]);
    git(d, &["config", "user.email", "ci@example.com"]);
    git(d, &["config", "user.name", "ci"]);
    write(
        d,
        "infra/gpu.tf",
        "resource \"aws_instance\" \"trainer\" {\n  instance_type = \"p5.48xlarge\"\n}\n",
    );
    write(
        d,
        "infra/network.tf",
        "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n",
    );
    write(
        d,
        "k8s/app.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
    );
    write(d, "README.txt", "not linted\n");
    git(d, &["add", "."]);
    dir
}

fn try_repo(exe: &str, dir: &Path, hook: &str, home: &Path) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_gpulint")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    Command::new(exe)
        .args([
            "try-repo",
            ROOT,
            hook,
            "--all-files",
            "--verbose",
            "--color",
            "never",
        ])
        .current_dir(dir)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", home)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The hook fails on the GPU VM, names it, and passes once it is suppressed.
fn hook_fails_then_passes(hook: &str) {
    let Some(exe) = pre_commit() else { return };
    let dir = repo();
    let home = tempfile::tempdir().unwrap();
    let o = try_repo(&exe, dir.path(), hook, home.path());
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("Failed"), "{out}");
    assert!(
        out.contains("missing-auto-shutdown") && out.contains("infra/gpu.tf"),
        "{out}"
    );
    assert!(!out.contains("README.txt"), "{out}");

    write(
        dir.path(),
        "infra/gpu.tf",
        "# gpulint:ignore missing-auto-shutdown -- a nightly job stops it\nresource \"aws_instance\" \"trainer\" {\n  instance_type = \"p5.48xlarge\"\n}\n",
    );
    git(dir.path(), &["add", "."]);
    let o = try_repo(&exe, dir.path(), hook, home.path());
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("Passed"), "{out}");
}

#[test]
fn the_system_hook_runs_gpulint_from_path() {
    hook_fails_then_passes("gpulint-system");
}

#[test]
fn the_rust_hook_builds_gpulint_from_this_repository() {
    if std::env::var_os("GPULINT_TEST_RUST_HOOK").is_none() {
        crate::common::skip(
            "set GPULINT_TEST_RUST_HOOK=1 to build the `language: rust` hook with cargo",
        );
        return;
    }
    hook_fails_then_passes("gpulint-rust");
}
