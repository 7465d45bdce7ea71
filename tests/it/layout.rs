//! The workspace's layout (README, Development: the crate map): each crate's `lib.rs`
//! says its job and the gpulint crates it may use, and that list is its manifest's; no
//! source file is over 1,000 lines; no crate holds more than a fifth of the code; the
//! integration tests link as a few binaries.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::{ROOT, member_crates, walk};

/// (name, folder) of every crate: the root package and `crates/*`.
fn crates() -> Vec<(String, PathBuf)> {
    let mut all = vec![("gpulint".to_string(), PathBuf::from(ROOT))];
    for dir in member_crates() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        all.push((name, dir));
    }
    all
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect()
}

fn lines(p: &Path) -> usize {
    std::fs::read_to_string(p).unwrap().lines().count()
}

/// The gpulint crates named in a text.
fn named(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("gpulint_"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_crate_says_its_job_and_the_crates_it_may_use() {
    for (name, dir) in crates().into_iter().filter(|(n, _)| n != "gpulint") {
        let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
        assert!(
            lib.starts_with(&format!("//! {name}: ")),
            "{name}/src/lib.rs does not start with `//! {name}: ` and its job"
        );
        let docs: Vec<&str> = lib.lines().take_while(|l| l.starts_with("//!")).collect();
        let from = docs
            .iter()
            .position(|l| l.starts_with("//! May use:"))
            .unwrap_or_else(|| panic!("{name}/src/lib.rs has no `May use:` paragraph"));
        let may_use: String = docs[from..]
            .iter()
            .take_while(|l| **l != "//!")
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let manifest: toml::Table = std::fs::read_to_string(dir.join("Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let deps: BTreeSet<String> = manifest["dependencies"]
            .as_table()
            .unwrap()
            .keys()
            .filter(|k| k.starts_with("gpulint_"))
            .cloned()
            .collect();
        let mut said = named(&may_use);
        said.remove(&name);
        assert_eq!(said, deps, "{name}: `May use:` and Cargo.toml disagree");
        // And each one is used: a manifest holds no gpulint crate the code never names.
        let code: String = rust_files(&dir.join("src"))
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        for dep in &deps {
            assert!(
                code.contains(&format!("{dep}::")) || code.contains(&format!("use {dep}")),
                "{name} depends on {dep} but never uses it"
            );
        }
    }
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    for (name, dir) in crates() {
        for p in rust_files(&dir.join("src")) {
            let n = lines(&p);
            assert!(n <= 1000, "{name}: {} has {n} lines", p.display());
        }
    }
}

#[test]
fn no_crate_holds_more_than_a_fifth_of_the_code() {
    let sizes: Vec<(String, usize)> = crates()
        .into_iter()
        .map(|(name, dir)| {
            (
                name,
                rust_files(&dir.join("src")).iter().map(|p| lines(p)).sum(),
            )
        })
        .collect();
    let total: usize = sizes.iter().map(|(_, n)| n).sum();
    for (name, n) in &sizes {
        assert!(
            n * 5 <= total,
            "{name} holds {n} of {total} lines, over a fifth: split it by stage"
        );
    }
}

#[test]
fn integration_tests_link_as_a_few_binaries() {
    // Cargo makes a test binary of every tests/*.rs and every tests/*/main.rs.
    let mut binaries = Vec::new();
    for (_, dir) in crates() {
        let Ok(entries) = std::fs::read_dir(dir.join("tests")) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") || p.join("main.rs").is_file() {
                binaries.push(p);
            }
        }
    }
    assert!(!binaries.is_empty());
    assert!(
        binaries.len() <= 8,
        "{} test binaries: {binaries:?}",
        binaries.len()
    );
}
