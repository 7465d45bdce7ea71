//! Helpers shared by the integration tests: run the binary, read what it printed.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A GPU VM that `missing-auto-shutdown` flags.
pub const GPU_VM: &str =
    "resource \"aws_instance\" \"trainer\" {\n  instance_type = \"p5.48xlarge\"\n}\n";

pub fn gpulint(args: &[&str], cwd: &Path, stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        // gpulint stops reading stdin past `max_file_size`: a closed pipe is not an error.
        if let Err(e) = input.write_all(bytes) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    drop(input);
    child.wait_with_output().unwrap()
}

pub fn run(args: &[&str]) -> Output {
    gpulint(args, Path::new(ROOT), None)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// (rule, line, column) of every finding.
pub fn positions(v: &serde_json::Value) -> Vec<(String, u64, u64)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Where skipped tests are recorded, one line each; `.ci/run` prints how many and why,
/// so a test that could not run here never passes as if it had.
pub const SKIPPED: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/skipped-tests.txt");

/// Records that the calling test could not run here, and why. It returns; the test then
/// stops, and libtest shows it as passed, so the record is what tells.
#[allow(dead_code, clippy::print_stderr)] // not every test file skips
pub fn skip(why: &str) {
    use std::io::Write as _;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    eprintln!("SKIPPED {test}: {why}");
    let line = format!("{test}: {why}\n");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(SKIPPED);
    if let Ok(mut f) = file {
        let _ = f.write_all(line.as_bytes());
    }
}

pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Every file below `dir`, depth first.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// The folders of the workspace's member crates (`crates/*`), sorted.
pub fn member_crates() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs
}

/// `(rule, file)` of every finding in a JSON report, sorted.
pub fn rule_files(o: &Output) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = json(o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

/// `(rule, subject, message)` of every finding of `gpulint check --format json ARGS`,
/// sorted.
pub fn findings(args: &[&str]) -> Vec<(String, String, String)> {
    let out = run(&[&["check", "--format", "json"], args].concat());
    let mut found: Vec<(String, String, String)> = json(&out)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["subject"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

/// The official SARIF 2.1.0 schema (OASIS, errata 01), kept in `tests/data/schemas` so that
/// every run validates against it.
pub fn sarif_schema() -> jsonschema::Validator {
    let path = Path::new(ROOT).join("tests/data/schemas/sarif-schema-2.1.0.json");
    let schema: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}
