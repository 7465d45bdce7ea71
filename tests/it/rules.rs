//! The rule contract: one test file guards the four places a rule lives (its code, the
//! registry line, `rules/<id>.md`, `fixtures/<id>/{fires,clean}`), and snapshots every
//! fixture's findings.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use gpulint::cli::{RulesFormat, rules_listing};
use gpulint::finding::Finding;
use gpulint::lint::{Options, Outcome, lint};
use gpulint::report;
use gpulint::rules::RULES;

use crate::common::walk;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const REQUIRED_HEADINGS: [&str; 6] = [
    "## What it flags",
    "## Why it matters",
    "## Example",
    "## How to fix",
    "## Options",
    "## References",
];

/// A single file is linted alone (through stdin, so the other fixtures in its folder do not
/// join its Terraform module); a directory is one multi-file case.
fn run_case(path: &Path) -> Outcome {
    let rel = path.strip_prefix(ROOT).unwrap_or(path);
    if path.is_dir() {
        lint(
            &Options {
                paths: vec![rel.to_path_buf()],
                ..Options::default()
            },
            std::io::empty(),
        )
        .unwrap()
    } else {
        let bytes = std::fs::read(path).unwrap();
        lint(
            &Options {
                paths: vec![PathBuf::from("-")],
                stdin_filename: Some(rel.to_string_lossy().replace('\\', "/")),
                ..Options::default()
            },
            &bytes[..],
        )
        .unwrap()
    }
}

fn files_of(path: &Path) -> Vec<PathBuf> {
    if path.is_dir() {
        let mut v: Vec<PathBuf> = walk(path);
        v.sort();
        v
    } else {
        vec![path.to_path_buf()]
    }
}

fn snapshot_text(case: &Path, outcome: &Outcome) -> String {
    let mut s = String::from("# Input\n");
    for f in files_of(case) {
        let rel = f
            .strip_prefix(ROOT)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = std::fs::read(&f).unwrap();
        writeln!(s, "\n## {rel}").unwrap();
        match std::str::from_utf8(&bytes) {
            Ok(text) if !text.contains('\0') => {
                s.push_str("```\n");
                s.push_str(text);
                if !text.ends_with('\n') {
                    s.push('\n');
                }
                s.push_str("```\n");
            }
            _ => writeln!(s, "({} bytes, not UTF-8 text)", bytes.len()).unwrap(),
        }
    }
    s.push_str("\n# Findings\n\n");
    s.push_str(&report::human::render(
        outcome,
        &report::human::Style {
            color: false,
            width: 100,
            summary: true,
        },
    ));
    s.push_str("\n# JSON\n\n");
    s.push_str(&report::json::render(outcome));
    s
}

fn rule_of_fixture(case: &Path) -> (String, String) {
    let rel = case.strip_prefix(Path::new(ROOT).join("fixtures")).unwrap();
    let mut parts = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    (parts.next().unwrap(), parts.next().unwrap())
}

fn count(findings: &[Finding], id: &str) -> usize {
    findings.iter().filter(|f| f.rule == id).count()
}

#[test]
fn fixtures() {
    insta::glob!("../../fixtures", "*/*/*", |case| {
        let (rule, expect) = rule_of_fixture(case);
        assert!(
            RULES.iter().any(|r| r.id == rule),
            "fixtures/{rule} names no registered rule"
        );
        let outcome = run_case(case);
        let n = count(&outcome.findings, &rule);
        match expect.as_str() {
            "fires" => assert!(n > 0, "{} must fire {rule}", case.display()),
            "clean" => assert_eq!(n, 0, "{} must not fire {rule}", case.display()),
            other => panic!("fixtures/{rule}/{other}: expected fires/ or clean/"),
        }
        insta::assert_snapshot!(snapshot_text(case, &outcome));
    });
}

#[test]
fn every_rule_has_a_doc_and_fixtures_both_ways() {
    for r in RULES {
        for heading in std::iter::once(format!("# {}\n", r.id))
            .chain(REQUIRED_HEADINGS.iter().map(|h| format!("\n{h}\n")))
        {
            assert!(
                r.doc.starts_with(&format!("# {}\n", r.id)) || r.doc.contains(&heading),
                "rules/{}.md lacks `{}`",
                r.id,
                heading.trim()
            );
        }
        assert!(
            r.doc.starts_with(&format!("# {}\n", r.id)),
            "rules/{}.md must start with its id",
            r.id
        );
        let options = r.doc.split("\n## Options\n").nth(1).unwrap_or_default();
        let options = options.split("\n## ").next().unwrap_or_default();
        for o in r.meta.options {
            assert!(
                options.contains(&format!("`{}`", o.name)),
                "rules/{}.md does not document option `{}`",
                r.id,
                o.name
            );
        }
        for kind in ["fires", "clean"] {
            let dir = Path::new(ROOT).join("fixtures").join(r.id).join(kind);
            let cases = std::fs::read_dir(&dir).map_or(0, Iterator::count);
            assert!(
                cases > 0,
                "{} has no case in fixtures/{}/{kind}",
                r.id,
                r.id
            );
        }
    }
}

#[test]
fn every_doc_file_belongs_to_a_rule() {
    for e in std::fs::read_dir(Path::new(ROOT).join("rules")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let id = name.strip_suffix(".md").expect("only .md files in rules/");
        assert!(
            RULES.iter().any(|r| r.id == id),
            "rules/{name} documents no rule"
        );
    }
}

/// The doc's `## Example` must fire its rule exactly once (biome's rules_check).
#[test]
fn doc_examples_fire_exactly_once() {
    for r in RULES {
        let example = r
            .doc
            .split("\n## Example\n")
            .nth(1)
            .expect("has an example");
        let (lang, rest) = example
            .split_once("```")
            .and_then(|(_, after)| after.split_once('\n'))
            .expect("a fenced block");
        let code = rest.split("```").next().unwrap();
        let name = match lang.trim() {
            "hcl" => "example.tf",
            "yaml" => "example.yaml",
            other => panic!(
                "rules/{}.md: example language `{other}`, expected hcl or yaml",
                r.id
            ),
        };
        let outcome = lint(
            &Options {
                paths: vec![PathBuf::from("-")],
                stdin_filename: Some(name.into()),
                ..Options::default()
            },
            code.as_bytes(),
        )
        .unwrap();
        assert_eq!(
            count(&outcome.findings, r.id),
            1,
            "rules/{}.md example",
            r.id
        );
    }
}

#[test]
fn ids_are_unique_kebab_case_and_severities_fit_categories() {
    let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, ids.len(), "duplicate rule ids");
    for r in RULES {
        assert!(
            r.id.split('-').all(|w| !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())),
            "`{}` is not kebab-case",
            r.id
        );
        assert!(
            r.meta
                .category
                .allowed_severities()
                .contains(&r.meta.severity),
            "{}: {} is not allowed for category {}",
            r.id,
            r.meta.severity,
            r.meta.category.as_str()
        );
        let summary = r.meta.summary;
        assert!(
            !summary.ends_with('.'),
            "{}: summary ends with a period",
            r.id
        );
    }
}

/// Messages start lower-case (or with code) and have no trailing period; every finding
/// says what to do (Clippy's lint_message_convention).
#[test]
fn messages_follow_the_convention() {
    let fixtures = Path::new(ROOT).join("fixtures");
    let cases = std::fs::read_dir(&fixtures)
        .unwrap()
        .flat_map(|rule| std::fs::read_dir(rule.unwrap().path().join("fires")).unwrap())
        .map(|case| case.unwrap().path());
    for case in cases {
        for f in run_case(&case).findings {
            let first = f.message.chars().next().unwrap();
            assert!(
                first.is_lowercase() || first == '`',
                "{}: message starts with `{first}`: {}",
                f.rule,
                f.message
            );
            assert!(
                !f.message.ends_with('.'),
                "{}: trailing period: {}",
                f.rule,
                f.message
            );
            assert!(!f.help.trim().is_empty(), "{}: no help", f.rule);
            assert!(!f.subject.is_empty(), "{}: no subject", f.rule);
        }
    }
}

#[test]
fn readme_rule_table_is_generated() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let table = readme
        .split("<!-- rules:start -->\n")
        .nth(1)
        .and_then(|rest| rest.split("<!-- rules:end -->").next())
        .expect("README has the rules markers");
    assert_eq!(
        table,
        rules_listing(RulesFormat::Markdown),
        "README rule table is stale: paste `gpulint rules --format markdown` between the markers"
    );
}

/// A snapshot whose fixture is gone is stale (what `cargo insta test --unreferenced reject`
/// checks, without installing cargo-insta).
#[test]
fn every_fixture_snapshot_has_its_fixture() {
    for e in std::fs::read_dir(Path::new(ROOT).join("tests/it/snapshots")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let Some(case) = name
            .strip_prefix("it__rules__fixtures@")
            .and_then(|n| n.strip_suffix(".snap"))
        else {
            continue;
        };
        let path = Path::new(ROOT)
            .join("fixtures")
            .join(case.replace("__", "/"));
        assert!(
            path.exists(),
            "tests/it/snapshots/{name} has no fixture {}",
            path.display()
        );
    }
}
