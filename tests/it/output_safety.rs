//! What gpulint prints is safe to print: a finding far into a long line renders (miette
//! panicked past column 65,535, losing every finding), and text from the files read (names,
//! values, file names) never reaches a terminal or a CI log with raw newlines, ANSI escapes
//! or bidi overrides, in any text format or stderr note. JSON and SARIF carry it escaped.

use std::path::Path;
use std::process::Output;

use crate::common::{GPU_VM, gpulint, json, stderr, stdout, write};

const FORMATS: [&str; 6] = ["human", "compact", "json", "sarif", "github", "junit"];

/// `gpulint check --format FORMAT .` in `dir`, which must finish with findings and no panic.
fn check(dir: &Path, format: &str) -> Output {
    let o = gpulint(&["check", "--format", format, "."], dir, None);
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{format}: {err}");
    assert_eq!(o.status.code(), Some(1), "{format}: {o:?}");
    o
}

/// A training pod on one line, as JSON-style YAML, its findings past column 70,000.
fn one_line_pod() -> String {
    format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {{\"name\": \"train\", \
         \"annotations\": {{\"pad\": \"{}\"}}}}, \"spec\": {{\"containers\": [{{\"name\": \"c\", \
         \"image\": \"x\", \"command\": [\"torchrun\", \"train.py\"], \"resources\": \
         {{\"limits\": {{\"nvidia.com/gpu\": 8}}}}}}]}}}}\n",
        "p".repeat(70_000)
    )
}

#[test]
fn a_finding_past_column_70000_renders_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "b.yaml",
        format!("{{\"a\": \"{}\", \"b\": [1, 2}}\n", "y".repeat(70_000)),
    );
    write(d, "pod.yaml", one_line_pod());
    write(d, "gpu.tf", GPU_VM);
    let findings = json(&check(d, "json"))["findings"]
        .as_array()
        .unwrap()
        .clone();
    let at = |rule: &str, file: &str| {
        let f = findings
            .iter()
            .find(|f| f["rule"] == rule && f["file"] == file)
            .unwrap_or_else(|| panic!("no {rule} in {file}: {findings:?}"));
        format!("[{file}:{}:{}]", f["line"], f["column"])
    };
    let parse_error = at("parse-error", "b.yaml");
    let shm = at("missing-shm", "pod.yaml");
    assert_eq!(parse_error, "[b.yaml:1:70021]");

    let human = stdout(&check(d, "human"));
    // The header gives the true line and column, as JSON does; the snippet is a window.
    assert!(human.contains(&parse_error), "{human}");
    assert!(human.contains(&shm), "{human}");
    assert!(human.contains("the file does not parse"), "{human}");
    assert!(human.contains("…yyy"), "{human}");
    assert!(human.contains("missing-auto-shutdown"), "{human}");
    assert!(human.contains("in 3 files."), "{human}");
    assert!(human.len() < 10_000, "{} bytes", human.len());
    assert!(human.lines().all(|l| l.chars().count() < 300));

    for format in FORMATS {
        let out = stdout(&check(d, format));
        assert!(out.contains("b.yaml"), "{format}: {out}");
        assert!(out.contains("missing-shm"), "{format}");
    }
}

/// A pod whose name forges a workflow command and carries ANSI escapes and a bidi override,
/// with escapes in a comment on a line its snippets show.
const HOSTILE_POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \
    \"evil\\n::error file=x.tf,line=1::forged\\u001b[2J\\u001b[1A\\u001b[K\\u202e\"\nspec:\n  \
    containers:\n  - name: c\n    image: pytorch\n    command: [torchrun, \
    --nproc_per_node=8, train.py]\n    resources:\n      limits:\n        \
    nvidia.com/gpu: 8 # \u{1b}[2J\u{202e}\n";

/// No control character but the line breaks, no bidi override, no forged line.
fn assert_safe(format: &str, out: &str) {
    for c in out.chars() {
        assert!(
            c == '\n' || !(c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
            "{format}: raw {c:?} in {out:?}"
        );
    }
    assert!(
        !out.lines()
            .any(|l| l.trim_start().starts_with("::error file=x.tf")),
        "{format}: forged command in {out}"
    );
}

#[test]
fn a_forged_command_or_ansi_in_a_name_never_reaches_text_output_raw() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "pod.yaml", HOSTILE_POD);
    for format in ["human", "compact", "github", "junit"] {
        let out = stdout(&check(d, format));
        assert_safe(format, &out);
        assert!(out.contains("missing-shm"), "{format}: {out}");
    }
    let compact = stdout(&check(d, "compact"));
    assert!(
        compact.contains("`Pod/evil\\n::error file=x.tf,line=1::forged\\u{1b}[2J"),
        "{compact}"
    );
    assert!(
        compact.lines().all(|l| l.starts_with("pod.yaml:")),
        "{compact}"
    );
    let github = stdout(&check(d, "github"));
    assert!(
        github
            .lines()
            .all(|l| l.starts_with("::warning file=pod.yaml,")),
        "{github}"
    );
    let human = stdout(&check(d, "human"));
    // The comment on the GPU line, in the snippet: escaped, the marker still under the 8.
    assert!(
        human.contains("nvidia.com/gpu: 8 # \\u{1b}[2J\\u{202e}"),
        "{human}"
    );
}

#[test]
fn json_and_sarif_carry_hostile_text_escaped_and_intact() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "pod.yaml", HOSTILE_POD);
    let o = check(d, "json");
    assert_safe("json", &stdout(&o));
    let v = json(&o);
    let message = v["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("evil\n::error file=x.tf,line=1::forged\u{1b}[2J"),
        "{message}"
    );
    let o = check(d, "sarif");
    assert_safe("sarif", &stdout(&o));
    let v = json(&o);
    let text = v["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("evil\n::error"), "{text}");
}

#[cfg(unix)]
#[test]
fn a_hostile_file_name_is_escaped_in_notes_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let skipped = "x\n::stop-commands::pwn\n.txt";
    let broken = "y\n::stop-commands::pwn\u{1b}[2J.yaml";
    write(d, skipped, "a");
    write(d, broken, "a: [1, 2\n");
    for format in ["github", "human", "compact", "junit"] {
        let o = gpulint(&["check", "--format", format, skipped, broken], d, None);
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        let err = stderr(&o);
        assert!(err.lines().all(|l| l.starts_with("gpulint: ")), "{err:?}");
        assert!(
            err.contains("skipped `x\\n::stop-commands::pwn\\n.txt`"),
            "{err:?}"
        );
        let out = stdout(&o);
        assert_safe(format, &out);
        assert!(
            !out.lines()
                .any(|l| l.trim_start().starts_with("::stop-commands")),
            "{format}: {out}"
        );
        assert!(out.contains("parse-error"), "{format}: {out}");
    }
}

/// A policy that flags every piece of capacity, for a policy file of any name.
const FLAG_ALL: &str = "package gpulint.flagall\n\ndeny contains {\"msg\": sprintf(\"flagged %s\", \
                        [c.subject]), \"location\": c} if {\n\tsome c in input.capacity\n}\n";

#[test]
fn a_hostile_policy_file_name_is_an_inert_link_in_every_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "main.tf", GPU_VM);
    let name = "team\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}(x)[y].rego";
    if std::fs::write(d.join(name), FLAG_ALL).is_err() {
        // A file system that refuses such names cannot carry the attack.
        return;
    }
    for format in [
        "human", "compact", "github", "junit", "markdown", "json", "sarif",
    ] {
        let o = gpulint(
            &["check", "--format", format, "--policy", name, "main.tf"],
            d,
            None,
        );
        let out = stdout(&o);
        assert_safe(format, &out);
        assert!(out.contains("flagall"), "{format}: {out}");
        // The link: in the human header, the Markdown table and JSON's `url`.
        if matches!(format, "human" | "markdown" | "json") {
            assert!(
                out.contains("team%1B%5B2J%1B%5D0;owned%07%E2%80%AE%28x%29%5By%5D.rego"),
                "{format}: the policy's link is percent-encoded: {out}"
            );
        }
    }
}

#[test]
fn markdown_keeps_link_and_image_syntax_from_the_files_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"x` ![i](https://evil.example/i.png) [Approve this PR](https://evil.example) `y\"\nspec:\n  containers:\n    - name: c\n      image: x\n      command: [torchrun, train.py]\n      resources:\n        limits: {nvidia.com/gpu: 8}\n",
    );
    let out = stdout(&check(d, "markdown"));
    assert!(!out.contains("[Approve this PR](https"), "{out}");
    assert!(!out.contains("![i](https"), "{out}");
    assert!(
        out.contains("\\[Approve this PR\\](https://evil.example)"),
        "{out}"
    );
    assert!(
        out.contains("\\!\\[i\\](https://evil.example/i.png)"),
        "{out}"
    );
}

#[test]
fn a_docs_url_with_control_characters_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "main.tf", GPU_VM);
    write(
        d,
        ".gpulint.toml",
        "docs_url = \"https://x.example/{rule}\\u001b[2J\\n::error file=a::b\"\n",
    );
    let o = gpulint(&["check", "."], d, None);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = stderr(&o);
    assert!(err.contains("docs_url"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err}");
}

#[test]
fn fit_and_catalog_escape_what_they_are_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let model = "evil\u{1b}[2J\u{202e}\n::error file=x.tf,line=1::forged-7B";
    for format in ["human", "json"] {
        let o = gpulint(
            &["fit", "--model", model, "--gpu", "l4", "--format", format],
            d,
            None,
        );
        let out = stdout(&o);
        assert_safe(format, &out);
        assert!(out.contains("forged"), "{format}: {out}");
    }
    // A private instance type whose name would forge a line: refused where it is written.
    write(
        d,
        ".gpulint.toml",
        "[[catalog.instances]]\nprovider = \"aws\"\nname = \"x9.big\\n::error file=a::b\\u202e\"\n\
         gpu = \"h100\"\ncount = 8\ninterconnect = \"nvlink\"\nfabric = \"efa\"\n",
    );
    let o = gpulint(&["catalog", "x9"], d, None);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = stderr(&o);
    assert!(
        err.contains("[[catalog.instances]]") && err.contains("`name`"),
        "{err}"
    );
    assert_safe("stderr", &err);
}
