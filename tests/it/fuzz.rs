//! Inputs the fuzzers (fuzz/, FUZZING in BENCHMARKS.md) found to crash or hang gpulint,
//! kept as regression tests: each goes through the binary as the fuzz target fed it
//! (stdin, named by its extension) and must give the stated finding, not a crash.

use crate::common::{ROOT, gpulint, json};
use std::path::Path;

/// (file under tests/data/fuzz, the name it is piped in as, text of the expected finding,
/// or "" for none)
const FOUND: &[(&str, &str, &str)] = &[
    // A 429-byte alias bomb that cloned 10⁶ nodes before the node budget stopped it: over
    // 1 s in the fuzz build. Aliases now have a budget of their own, checked before a copy,
    // and reaching it is a `limit-exceeded` finding.
    (
        "yaml-alias-bomb.yaml",
        "bomb.yaml",
        "limit of 100000 nodes copied by YAML aliases in one file",
    ),
    // A model named `Qwen2.5-144…4B`: 1.4 × 10⁷³ parameters overflowed the memory sum.
    // A size no model has is now no size, and the sums saturate.
    (
        "yaml-model-size-overflow.yaml",
        "x.yaml",
        "runs PyTorch on 4 GPUs per pod with the container's default 64 MiB `/dev/shm`",
    ),
    // 793 bytes ending inside 18 `{`: hcl-edit backtracked for 4 s, doubling per level.
    // Many brackets open at the end are now reported before hcl-edit reads the file.
    (
        "hcl-unclosed-brackets.tf",
        "main.tf",
        "the file ends with 18 brackets (`{`, `[`, `(`) still open",
    ),
    // `min_size = 1000000000*17620898555555552`: hcl-primitives multiplies i64 unchecked,
    // which panics under overflow checks and wraps in release builds. Tests build it as
    // release does (Cargo.toml), so this holds what users run: a wrapped number, no crash.
    ("hcl-number-overflow.tf", "main.tf", ""),
    // `5 % 0` (found by the eval target): hcl-rs's integer remainder panicked on a zero
    // divisor in every build, and on `i64::MIN % -1`. Arithmetic is now gpulint's own:
    // division by zero leaves the value unknown, overflow goes to floating point.
    ("hcl-remainder-by-zero.tf", "main.tf", ""),
];

#[test]
fn inputs_the_fuzzers_found_give_a_finding_not_a_crash() {
    let dir = Path::new(ROOT).join("tests/data/fuzz");
    for &(file, name, expected) in FOUND {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let o = gpulint(
            &["check", "--format", "json", "-", "--stdin-filename", name],
            Path::new(ROOT),
            Some(&bytes),
        );
        let messages: Vec<String> = json(&o)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect();
        if expected.is_empty() {
            assert_eq!(o.status.code(), Some(0), "{file}: {o:?}");
            assert!(messages.is_empty(), "{file}: {messages:?}");
        } else {
            assert_eq!(o.status.code(), Some(1), "{file}: {o:?}");
            assert!(
                messages.iter().any(|m| m.contains(expected)),
                "{file}: {messages:?}"
            );
        }
    }
    // Every file there is listed, so a regression input cannot be added and forgotten.
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = FOUND.iter().map(|f| f.0.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}
