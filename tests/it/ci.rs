//! What CI and pre-commit see: the machine formats, `--output`, fingerprints, suppressions,
//! baselines and config.

#![allow(clippy::print_stderr)] // a skipped check says so

use std::path::{Path, PathBuf};

use crate::common::*;

/// A small tree with one finding of each severity and an awkward file name.
fn ci_data() -> PathBuf {
    Path::new(ROOT).join("tests/data/ci")
}

fn check(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    gpulint(&all, dir, None)
}

/// A copy of `tests/data/ci` that a test may edit.
fn ci_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in walk(&ci_data()) {
        let rel = entry.strip_prefix(ci_data()).unwrap();
        write(
            dir.path(),
            rel.to_str().unwrap(),
            std::fs::read(&entry).unwrap(),
        );
    }
    dir
}

#[test]
fn sarif_github_and_junit_output() {
    for format in ["sarif", "github", "junit"] {
        let o = check(&ci_data(), &["--format", format, "."]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        insta::assert_snapshot!(format!("format_{format}"), stdout(&o));
    }
}

#[test]
fn sarif_passes_the_official_schema() {
    let o = check(&ci_data(), &["--format", "sarif", "."]);
    let sarif = json(&o);

    let run = &sarif["runs"][0];
    assert_eq!(sarif["runs"].as_array().unwrap().len(), 1, "one run only");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    // The rules that fired, and only those.
    assert_eq!(
        rules,
        [
            "parse-error",
            "missing-auto-shutdown",
            "oversized-inference-gpu"
        ]
    );
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(rule["shortDescription"]["text"].is_string());
        assert!(rule["fullDescription"]["text"].is_string());
        assert!(rule["help"]["markdown"].as_str().unwrap().starts_with("# "));
        assert!(rule["defaultConfiguration"]["level"].is_string());
    }
    for result in run["results"].as_array().unwrap() {
        let region = &result["locations"][0]["physicalLocation"]["region"];
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[key].as_u64().unwrap() >= 1, "{key} in {result}");
        }
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index], result["ruleId"]);
        assert!(result["partialFingerprints"]["gpulint/v1"].is_string());
    }

    let validator = crate::common::sarif_schema();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // A clean run is a valid log too, with no rules and no results.
    let clean = json(&check(&ci_data(), &["--format", "sarif", "k8s/clean.yaml"]));
    assert_eq!(clean["runs"][0]["results"], serde_json::json!([]));
    assert!(validator.is_valid(&clean));
    // The validator is not a rubber stamp: a result without its message fails.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn junit_is_well_formed_with_one_suite_per_file() {
    let o = check(&ci_data(), &["--format", "junit", "."]);
    let text = stdout(&o);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let suites: Vec<_> = doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    let names: Vec<&str> = suites
        .iter()
        .map(|s| s.attribute("name").unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "infra/gpu.tf",
            "k8s/clean.yaml",
            "k8s/serve.yaml",
            "odd name, & 100%.yaml"
        ]
    );
    let failures: Vec<usize> = suites
        .iter()
        .map(|s| {
            s.descendants()
                .filter(|n| n.has_tag_name("failure"))
                .count()
        })
        .collect();
    assert_eq!(failures, [1, 0, 1, 1]);
    assert_eq!(doc.root_element().attribute("failures"), Some("3"));
}

#[test]
fn every_format_can_be_written_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["human", "compact", "json", "sarif", "github", "junit"] {
        let out = dir.path().join(format!("report.{format}"));
        let o = check(
            &ci_data(),
            &["--format", format, "--output", out.to_str().unwrap(), "."],
        );
        assert_eq!(o.status.code(), Some(1), "{format}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{format} wrote to stdout too");
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(
            written.contains("missing-auto-shutdown"),
            "{format}: {written}"
        );
    }
}

/// SARIF fingerprints and line numbers, by rule.
fn fingerprints(dir: &Path) -> Vec<(String, String, u64)> {
    let sarif = json(&check(dir, &["--format", "sarif", "."]));
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap().to_string(),
                r["partialFingerprints"]["gpulint/v1"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                r["locations"][0]["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap(),
            )
        })
        .collect()
}

#[test]
fn sarif_fingerprints_survive_inserted_lines() {
    let dir = ci_copy();
    let before = fingerprints(dir.path());
    for name in ["infra/gpu.tf", "k8s/serve.yaml"] {
        let path = dir.path().join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("# one\n# two\n# three\n{text}")).unwrap();
    }
    let after = fingerprints(dir.path());
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!((&b.0, &b.1), (&a.0, &a.1), "the fingerprint moved");
        if b.0 != "parse-error" {
            assert_eq!(a.2, b.2 + 3, "{} did not move with its lines", b.0);
        }
    }
    // Distinct findings have distinct fingerprints.
    let mut prints: Vec<&String> = after.iter().map(|f| &f.1).collect();
    prints.dedup();
    assert_eq!(prints.len(), after.len());
}

/// Rule ids of the findings of a JSON report.
fn rules_of(o: &std::process::Output) -> Vec<String> {
    json(o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

const TRAINER: &str =
    "resource \"aws_instance\" \"trainer\" {\n  instance_type = \"p5.48xlarge\"\n}\n";

const SPOT_CHAT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
ANNOTATIONS
spec:
  template:
    spec:
      nodeSelector: { cloud.google.com/gke-spot: \"true\", cloud.google.com/gke-accelerator: nvidia-l4 }
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          args: [\"--model\", \"Qwen/Qwen2.5-7B-Instruct\", \"--max-model-len\", \"8192\"]
          resources: { limits: { nvidia.com/gpu: 1 } }
";

#[test]
fn each_suppression_form_hides_its_finding() {
    let dir = tempfile::tempdir().unwrap();
    let annotated = "  annotations:\n    gpulint.dev/ignore: \"spot-only-inference\"";
    let cases = [
        (
            "a.tf",
            TRAINER.to_string(),
            "missing-auto-shutdown",
            format!(
                "# gpulint:ignore missing-auto-shutdown -- stopped by the nightly job\n{TRAINER}"
            ),
        ),
        (
            "b.tf",
            TRAINER.to_string(),
            "missing-auto-shutdown",
            format!("// gpulint:ignore-file missing-auto-shutdown\n\n{TRAINER}"),
        ),
        (
            "c.yaml",
            SPOT_CHAT.replace("ANNOTATIONS\n", ""),
            "spot-only-inference",
            SPOT_CHAT.replace("ANNOTATIONS", annotated),
        ),
        (
            "d.yaml",
            SPOT_CHAT.replace("ANNOTATIONS\n", ""),
            "spot-only-inference",
            format!(
                "# gpulint:ignore spot-only-inference -- a batch endpoint\n{}",
                SPOT_CHAT.replace("ANNOTATIONS\n", "")
            ),
        ),
    ];
    for (name, plain, rule, suppressed) in cases {
        write(dir.path(), name, &plain);
        let o = check(dir.path(), &["--format", "json", name]);
        assert!(
            rules_of(&o).contains(&rule.to_string()),
            "{name}: {}",
            stdout(&o)
        );
        write(dir.path(), name, &suppressed);
        let o = check(dir.path(), &["--format", "json", name]);
        assert!(
            !rules_of(&o).contains(&rule.to_string()),
            "{name}: {}",
            stdout(&o)
        );
        assert!(
            !rules_of(&o).contains(&"unused-suppression".to_string()),
            "{name}: {}",
            stdout(&o)
        );
    }
}

#[test]
fn a_stale_suppression_is_reported_but_does_not_fail_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let stale = "# gpulint:ignore missing-auto-shutdown -- it was a GPU box once\nresource \"aws_instance\" \"web\" {\n  instance_type = \"m5.large\"\n}\n";
    write(dir.path(), "web.tf", stale);
    let o = check(dir.path(), &["--format", "compact", "web.tf"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "web.tf:1:18: info [unused-suppression] this suppression comment hides \
         `missing-auto-shutdown`, but `missing-auto-shutdown` reports nothing here\n"
    );
    let o = check(dir.path(), &["--fail-on", "info", "web.tf"]);
    assert_eq!(o.status.code(), Some(1));
    // A suppression of a rule that did not run is not known to be stale.
    let o = check(
        dir.path(),
        &[
            "--format",
            "compact",
            "--ignore",
            "missing-auto-shutdown",
            "web.tf",
        ],
    );
    assert_eq!(stdout(&o), "");
    let o = check(
        dir.path(),
        &["--format", "compact", "--ignore", "meta", "web.tf"],
    );
    assert_eq!(stdout(&o), "");
}

#[test]
fn a_parse_error_cannot_be_suppressed() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "broken.tf",
        "# gpulint:ignore-file parse-error\nresource \"x\" \"y\" {\n",
    );
    let o = check(dir.path(), &["--format", "json", "broken.tf"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(rules_of(&o), ["unused-suppression", "parse-error"]);
}

#[test]
fn a_baseline_hides_todays_findings_after_lines_move_and_new_ones_still_fail() {
    let dir = ci_copy();
    std::fs::remove_file(dir.path().join("odd name, & 100%.yaml")).unwrap();
    let baseline = dir.path().join("gpulint-baseline.json");
    let b = baseline.to_str().unwrap();

    let o = check(dir.path(), &["--write-baseline", b, "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("recorded 2 findings"), "{}", stderr(&o));

    // Unrelated lines above both findings.
    for name in ["infra/gpu.tf", "k8s/serve.yaml"] {
        let path = dir.path().join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("# owner: ml-platform\n\n# reviewed\n{text}")).unwrap();
    }
    let o = check(dir.path(), &["--format", "json", "--baseline", b, "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(rules_of(&o).is_empty());
    assert!(stderr(&o).contains("2 findings hidden by the baseline"));

    // A new GPU instance in the same file is a new finding, and fails the run.
    let gpu = dir.path().join("infra/gpu.tf");
    let text = std::fs::read_to_string(&gpu).unwrap();
    std::fs::write(
        &gpu,
        format!(
            "{text}\nresource \"aws_instance\" \"second\" {{\n  instance_type = \"g6.xlarge\"\n}}\n"
        ),
    )
    .unwrap();
    let o = check(dir.path(), &["--format", "json", "--baseline", b, "."]);
    assert_eq!(o.status.code(), Some(1));
    let findings = json(&o)["findings"].clone();
    assert_eq!(findings.as_array().unwrap().len(), 1, "{findings}");
    assert_eq!(findings[0]["subject"], "aws_instance.second");

    // Without the baseline everything is back.
    let o = check(dir.path(), &["--format", "json", "."]);
    assert_eq!(rules_of(&o).len(), 3);
}

#[test]
fn a_parse_error_is_never_baselined() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "broken.tf", "resource \"x\" \"y\" {\n");
    let b = dir.path().join("b.json");
    let o = check(
        dir.path(),
        &["--write-baseline", b.to_str().unwrap(), "broken.tf"],
    );
    assert_eq!(o.status.code(), Some(1));
    let o = check(
        dir.path(),
        &["--baseline", b.to_str().unwrap(), "broken.tf"],
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_baseline_that_is_not_one_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.json", "{\"findings\": 3}");
    let o = check(dir.path(), &["--baseline", "b.json", "."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a gpulint baseline"),
        "{}",
        stderr(&o)
    );
    let o = check(dir.path(), &["--baseline", "missing.json", "."]);
    assert_eq!(o.status.code(), Some(2));
}

const PRIVATE_INSTANCE: &str =
    "resource \"aws_instance\" \"private\" {\n  instance_type = \"x9.48xlarge\"\n}\n";

#[test]
fn config_sets_fail_on_exclude_selection_severity_and_private_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "infra/gpu.tf", TRAINER);
    write(d, "infra/private.tf", PRIVATE_INSTANCE);
    write(d, "vendor/gpu.tf", TRAINER.replace("trainer", "vendored"));
    let subjects = |o: &std::process::Output| -> Vec<String> {
        json(o)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                format!(
                    "{} {} {}",
                    f["rule"].as_str().unwrap(),
                    f["severity"].as_str().unwrap(),
                    f["subject"].as_str().unwrap()
                )
            })
            .collect()
    };

    // No config: the unknown instance type is skipped, the rest fire.
    let o = check(d, &["--format", "json", "."]);
    assert_eq!(
        subjects(&o),
        [
            "missing-auto-shutdown warning aws_instance.trainer",
            "missing-auto-shutdown warning aws_instance.vendored"
        ]
    );

    write(
        d,
        ".gpulint.toml",
        "fail_on = \"error\"\nexclude = [\"vendor\"]\n\n[rules.missing-auto-shutdown]\nseverity = \"info\"\n\n[[catalog.instances]]\nprovider = \"aws\"\nname = \"x9.48xlarge\"\ngpu = \"h100\"\ncount = 8\ninterconnect = \"nvlink\"\nfabric = \"efa\"\n",
    );
    // Excluded even when named, as pre-commit names files; the private type is a GPU VM.
    let o = check(d, &["--format", "json", ".", "vendor/gpu.tf"]);
    assert_eq!(
        subjects(&o),
        [
            "missing-auto-shutdown info aws_instance.trainer",
            "missing-auto-shutdown info aws_instance.private"
        ]
    );
    assert_eq!(o.status.code(), Some(0), "info is below fail_on = error");
    let o = check(d, &["--fail-on", "info", "."]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the command line overrides fail_on"
    );
    // `gpulint catalog` knows the private row too, sourced to the config.
    let o = gpulint(&["catalog", "x9.48xlarge"], d, None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains(".gpulint.toml"), "{}", stdout(&o));

    write(d, ".gpulint.toml", "[rules]\nignore = [\"cost\"]\n");
    let o = check(d, &["--format", "json", "."]);
    assert!(subjects(&o).is_empty());
    write(d, ".gpulint.toml", "[rules]\nselect = [\"performance\"]\n");
    let o = check(
        d,
        &[
            "--format",
            "json",
            "--select",
            "missing-auto-shutdown",
            "infra",
        ],
    );
    assert_eq!(
        subjects(&o),
        ["missing-auto-shutdown warning aws_instance.trainer"],
        "--select replaces the config's"
    );

    // A bad row in the catalog section points at its line.
    write(
        d,
        ".gpulint.toml",
        "\n[[catalog.instances]]\nprovider = \"gcp\"\nname = \"x\"\ngpu = \"h999\"\ncount = 8\ninterconnect = \"nvlink\"\nfabric = \"none\"\n",
    );
    let o = check(d, &["."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(".gpulint.toml:2:1: `[[catalog.instances]]`: unknown GPU `h999`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn config_models_join_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".gpulint.toml",
        "[[models]]\nid = \"acme/chat-34b\"\nparams = 34e9\nlayers = 48\nhidden = 7168\nheads = 56\nkv_heads = 8\nhead_dim = 128\nvocab = 64000\nmax_context = 32768\ndtype = \"bf16\"\n",
    );
    let o = gpulint(
        &[
            "fit",
            "--model",
            "acme/chat-34b-Instruct",
            "--format",
            "json",
        ],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // 34e9 parameters at 2 bytes, with its own embeddings: exactly the config's size.
    assert_eq!(json(&o)["weights_bytes"].as_u64(), Some(68_000_000_000));
    // KV per token: 2 × 48 layers × 8 heads × 128 × 2 bytes = 196,608 B, over 32,768 tokens.
    assert_eq!(json(&o)["kv_cache_bytes"].as_u64(), Some(196_608 * 32_768));
}

/// The fenced block after `heading` in the README.
fn readme_block(heading: &str, lang: &str) -> String {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let section = &readme[readme.find(heading).unwrap()..];
    let fence = format!("```{lang}\n");
    let start = section.find(&fence).unwrap() + fence.len();
    section[start..start + section[start..].find("```").unwrap()].to_string()
}

#[test]
fn the_readme_config_example_is_a_valid_config() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".gpulint.toml",
        readme_block("## Configuration", "toml"),
    );
    write(dir.path(), "main.tf", TRAINER);
    // `[policies] paths` names a folder of policies, which must exist.
    write(
        dir.path(),
        "policies/team_label.rego",
        std::fs::read(Path::new(ROOT).join("examples/policies/team_label.rego")).unwrap(),
    );
    let o = check(dir.path(), &["--format", "json", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = gpulint(&["fit", "--model", "acme/chat-34b"], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn the_readme_suppression_example_suppresses() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main.tf",
        readme_block("## Suppressions", "hcl"),
    );
    let o = check(dir.path(), &["--format", "json", "--fail-on", "info", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn the_integration_files_are_valid_yaml() {
    let o = gpulint(
        &[
            "check",
            "--fail-on",
            "info",
            "action.yml",
            ".pre-commit-hooks.yaml",
            "docs/ci",
        ],
        Path::new(ROOT),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Every gpulint flag the action and the examples use exists.
    for file in [
        "action.yml",
        "docs/ci/github-actions.yml",
        "docs/ci/gitlab-ci.yml",
    ] {
        let text = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap();
        for flag in text
            .split_whitespace()
            .filter(|w| w.starts_with("--") && w.len() > 2)
        {
            let flag = flag.split('=').next().unwrap_or(flag);
            let flag = flag.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-');
            // cargo install's, gh release's and tar's; `gpulint --version` is top-level.
            let others = [
                "--locked",
                "--path",
                "--root",
                "--git",
                "--repo",
                "--clobber",
                "--pattern",
                "--json",
                "--jq",
                "--strip-components",
                "--version",
            ];
            if others.contains(&flag) {
                continue;
            }
            let help = stdout(&run(&["check", "--help"]));
            assert!(
                help.contains(flag),
                "{file}: `{flag}` is not a gpulint check flag"
            );
        }
    }
}
