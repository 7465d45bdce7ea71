//! The binary, end to end: what a user runs and sees, with exit codes.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::*;

#[test]
fn examples_human() {
    let o = run(&["check", "examples/"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn examples_compact() {
    let o = run(&["check", "--format", "compact", "examples"]);
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn examples_json_has_exactly_the_design_fields() {
    let o = run(&["check", "--format", "json", "examples/"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let mut top: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    top.sort();
    assert_eq!(top, ["findings", "summary", "version"]);
    let mut fields: Vec<_> = v["findings"][0]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "column",
            // Issue 20: what the waste costs, when the price snapshot knows.
            "cost",
            "end_column",
            "end_line",
            "file",
            "help",
            "line",
            "message",
            "related",
            "rule",
            "severity",
            "subject",
            // Issue 19: the rule's documentation link.
            "url"
        ]
    );
    let cost = &v["findings"][0]["cost"];
    assert_eq!(cost["usd_per_hour"], 21.957_642);
    assert_eq!(cost["region"], "us-east-1");
    assert_eq!(cost["as_of"], "2026-07-20");
    assert!(
        cost["basis"]
            .as_str()
            .unwrap()
            .starts_with("1 instance; list price in us-east-1 as of 2026-07-20"),
        "{cost}"
    );
    assert_eq!(
        v["findings"][0]["url"],
        format!(
            "https://github.com/gpulint/gpulint/blob/v{}/rules/missing-auto-shutdown.md",
            env!("CARGO_PKG_VERSION")
        )
    );
    let mut summary: Vec<_> = v["summary"].as_object().unwrap().keys().cloned().collect();
    summary.sort();
    assert_eq!(
        summary,
        ["errors", "files", "findings", "infos", "warnings"]
    );
    insta::assert_snapshot!(stdout(&o));
}

/// The issue's acceptance case: good .tf, broken .tf, broken YAML and a GPU VM without
/// shutdown in one folder.
#[test]
fn mixed_folder_reports_both_parse_errors_and_the_gpu_vm() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "good.tf",
        "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.large\"\n}\n",
    );
    write(
        dir.path(),
        "broken.tf",
        "resource \"aws_instance\" \"x\" {\n  ami = \n}\n",
    );
    write(
        dir.path(),
        "broken.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n",
    );
    write(dir.path(), "gpu.tf", GPU_VM);
    let o = gpulint(&["check", "--format", "json", "."], dir.path(), None);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    let files: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["broken.tf", "broken.yaml", "gpu.tf"]);
    assert_eq!(
        positions(&v),
        [
            ("parse-error".to_string(), 2, 9),
            ("parse-error".to_string(), 4, 2),
            ("missing-auto-shutdown".to_string(), 1, 1),
        ]
    );
    assert_eq!(v["summary"]["files"], 4);
    assert_eq!(v["summary"]["errors"], 2);
}

#[test]
fn a_folder_with_no_gpu_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main.tf",
        "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.large\"\n}\n",
    );
    write(
        dir.path(),
        "app.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n",
    );
    let o = gpulint(&["check", "."], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o), "No findings in 2 files.\n");
}

/// pre-commit passes one changed file; its module's other files still count.
#[test]
fn a_named_tf_file_is_judged_with_its_module() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "infra/instance.tf", GPU_VM);
    write(
        dir.path(),
        "infra/alarms.tf",
        "resource \"aws_cloudwatch_metric_alarm\" \"idle\" {\n  dimensions    = { InstanceId = aws_instance.trainer.id }\n  alarm_actions = [\"arn:aws:automate:us-east-1:ec2:stop\"]\n}\n",
    );
    let o = gpulint(&["check", "infra/instance.tf"], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o), "No findings in 1 file.\n");

    // Without the alarm, the finding is reported in the named file only.
    std::fs::remove_file(dir.path().join("infra/alarms.tf")).unwrap();
    write(
        dir.path(),
        "infra/other.tf",
        GPU_VM.replace("trainer", "other"),
    );
    let o = gpulint(
        &["check", "--format", "compact", "infra/instance.tf"],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.starts_with("infra/instance.tf:1:1: warning [missing-auto-shutdown]"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
}

#[test]
fn stdin_is_read_under_its_given_name() {
    let o = gpulint(
        &[
            "check",
            "--format",
            "compact",
            "-",
            "--stdin-filename",
            "infra/gpu.tf",
        ],
        Path::new(ROOT),
        Some(GPU_VM.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("infra/gpu.tf:1:1: warning [missing-auto-shutdown]"));

    // Without a name, stdin is YAML (`helm template … | gpulint check -`).
    let o = gpulint(
        &["check", "--format", "compact", "-"],
        Path::new(ROOT),
        Some(b"a: [1\n"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with("<stdin>:1:6: error [parse-error]"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn var_files_override_defaults() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main.tf",
        "variable \"type\" { default = \"t3.large\" }\nresource \"aws_instance\" \"x\" {\n  instance_type = var.type\n}\n",
    );
    write(dir.path(), "prod.tfvars", "type = \"g6e.48xlarge\"\n");
    let o = gpulint(&["check", "."], dir.path(), None);
    assert_eq!(
        o.status.code(),
        Some(0),
        "prod.tfvars is not loaded by itself"
    );
    let o = gpulint(
        &["check", "--var-file", "prod.tfvars", "."],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("8 × NVIDIA L40S"), "{}", stdout(&o));
}

#[test]
fn fail_on_select_and_ignore() {
    let o = run(&["check", "--fail-on", "error", "examples/"]);
    assert_eq!(o.status.code(), Some(0), "warnings only");
    let o = run(&["check", "--ignore", "missing-auto-shutdown", "examples/"]);
    assert_eq!(o.status.code(), Some(0));
    let o = run(&["check", "--select", "cost", "examples/"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["check", "--select", "correctness", "examples/"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn output_writes_the_report_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let o = run(&[
        "check",
        "--format",
        "json",
        "--output",
        out.to_str().unwrap(),
        "examples/",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    assert_eq!(v["summary"]["findings"], 3);
}

#[test]
fn run_failures_exit_2() {
    let o = run(&["check", "does/not/exist"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read `does/not/exist`"),
        "{}",
        stderr(&o)
    );
    let o = run(&["check", "--select", "no-such-rule", "examples/"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown rule or category `no-such-rule`"));
    let o = run(&["check", "--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["check", "--var-file", "missing.tfvars", "examples/"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["explain", "no-such-rule"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn explain_prints_the_rule_doc() {
    let o = run(&["explain", "missing-auto-shutdown"]);
    assert_eq!(o.status.code(), Some(0));
    let doc =
        std::fs::read_to_string(Path::new(ROOT).join("rules/missing-auto-shutdown.md")).unwrap();
    assert_eq!(stdout(&o), doc);
}

#[test]
fn rules_lists_every_rule() {
    let o = run(&["rules", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    let ids: Vec<&str> = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let registered: Vec<&str> = gpulint::rules::RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, registered);
    // The DESIGN contract's ids exist (more are welcome).
    for id in [
        "parse-error",
        "missing-auto-shutdown",
        "gpu-pool-never-scales-to-zero",
        "multi-gpu-without-nvlink",
        "training-across-zones",
        "missing-cluster-placement",
        "multi-node-without-fast-fabric",
        "stale-generation-reservation",
        "spot-only-inference",
        "idle-gpu-workload",
    ] {
        assert!(ids.contains(&id), "{id}");
    }
    let o = run(&["rules"]);
    insta::assert_snapshot!(stdout(&o));
}

/// No input makes gpulint panic: each hostile file is a finding (or nothing, when it is
/// valid), and the GPU VM beside them is still linted.
#[test]
fn hostile_files_never_crash_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "empty.tf", "");
    write(d, "empty.yaml", "");
    write(d, "bom.tf", b"\xEF\xBB\xBFlocals {\n  a = 1\n}\n");
    write(
        d,
        "bom.yaml",
        b"\xEF\xBB\xBFapiVersion: v1\nkind: ConfigMap\n",
    );
    write(d, "latin1.tf", b"# caf\xE9\nlocals {}\n");
    write(
        d,
        "binary.yaml",
        b"\x7FELF\x02\x01\x01\x00\x00\x00\x00\x00\x03\x00",
    );
    write(d, "deep.yaml", "- ".repeat(100_000) + "x\n");
    let mut deep_map = String::new();
    for i in 0..3000 {
        deep_map.push_str(&" ".repeat(i));
        deep_map.push_str("k:\n");
    }
    write(d, "deep-map.yaml", deep_map);
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (prev, name) in ('a'..='h').zip('b'..='i') {
        let items = vec![format!("*{prev}"); 10].join(", ");
        writeln!(bomb, "{name}: &{name} [{items}]").unwrap();
    }
    write(d, "bomb.yaml", bomb);
    write(
        d,
        "deep.tf",
        format!("x = {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)),
    );
    write(d, "deep-blocks.tf", "a {\n".repeat(100_000));
    write(d, "gpu/main.tf", GPU_VM);

    let o = gpulint(&["check", "--format", "json", "."], d, None);
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(1), "{err}");
    let v = json(&o);
    let mut broken: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "parse-error")
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    broken.sort();
    assert_eq!(
        broken,
        [
            "binary.yaml",
            "deep-blocks.tf",
            "deep-map.yaml",
            "deep.tf",
            "deep.yaml",
            "latin1.tf"
        ]
    );
    // An alias bomb is a limit hit, not a file that does not parse.
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "limit-exceeded" && f["file"] == "bomb.yaml")
    );
    let gpu = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "missing-auto-shutdown")
        .count();
    assert_eq!(gpu, 1);
}

/// `./infra/a.tf` and `infra/b.tf` are the same folder, hence one module.
#[test]
fn one_folder_is_one_module_however_its_files_are_spelled() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "infra/a.tf", GPU_VM);
    write(
        dir.path(),
        "infra/b.tf",
        "resource \"aws_cloudwatch_metric_alarm\" \"idle\" {\n  dimensions    = { InstanceId = aws_instance.trainer.id }\n  alarm_actions = [\"arn:aws:automate:us-east-1:ec2:stop\"]\n}\n",
    );
    let o = gpulint(&["check", "./infra/a.tf", "infra/b.tf"], dir.path(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn catalog_lookups_show_facts_with_sources() {
    for q in ["p5.48xlarge", "g5.48xlarge", "nvidia-l4"] {
        let o = run(&["catalog", q]);
        assert_eq!(o.status.code(), Some(0));
        let out = stdout(&o);
        assert!(out.contains("source"), "{q}: {out}");
        insta::assert_snapshot!(format!("catalog_{q}"), out);
    }
    let o = run(&["catalog", "no-such-thing"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn catalog_json_has_the_design_fields() {
    let o = run(&["catalog", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    let gpu = &v["gpus"][0];
    for key in ["name", "architecture", "memory_bytes", "nvlink", "year"] {
        assert!(gpu.get(key).is_some(), "gpus[].{key}");
    }
    let p5 = v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "p5.48xlarge")
        .unwrap();
    assert_eq!(p5["provider"], "aws");
    assert_eq!(p5["gpu"], "h100");
    assert_eq!(p5["gpu_count"], 8);
    assert_eq!(p5["interconnect"], "nvlink");
    let g5 = v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "g5.48xlarge")
        .unwrap();
    assert_eq!(g5["interconnect"], "pcie");
}

/// The README's command examples are real output: each `$ gpulint …` block in a ```text
/// fence must be what the command prints now (a trailing `...` line marks an excerpt).
#[test]
fn readme_examples_are_current() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let mut checked = 0;
    for block in readme.split("```text\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let Some((cmd, shown)) = block.split_once('\n') else {
            continue;
        };
        let Some(args) = cmd.strip_prefix("$ gpulint ") else {
            continue;
        };
        let args: Vec<&str> = args.split_whitespace().collect();
        let actual = stdout(&run(&args));
        match shown.strip_suffix("...\n") {
            Some(excerpt) => assert!(
                actual.starts_with(excerpt),
                "README example `{cmd}` is stale"
            ),
            None => assert_eq!(actual, shown, "README example `{cmd}` is stale"),
        }
        checked += 1;
    }
    assert!(checked >= 3, "found {checked} README examples");
}

/// Variables in `variables.tf`, values in `terraform.tfvars`, locals and templates: the
/// same findings as the module written out by hand.
#[test]
fn a_multi_file_module_judges_like_its_inlined_version() {
    let split = findings(&["tests/data/module-split"]);
    let inlined = findings(&["tests/data/module-inlined"]);
    let rules: Vec<&str> = split.iter().map(|f| f.0.as_str()).collect();
    for rule in [
        "gpu-pool-never-scales-to-zero",
        "spot-only-inference",
        "training-across-zones",
        "missing-cluster-placement",
        "multi-node-without-fast-fabric",
    ] {
        assert!(rules.contains(&rule), "{rule} missing from {split:#?}");
    }
    assert_eq!(split, inlined);
}

/// `[rules.stale-generation-reservation] threshold` from `.gpulint.toml` (found upward)
/// or `--config`; a bad file stops the run with its line.
#[test]
fn config_sets_rule_options_and_rejects_unknown_keys() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "infra/main.tf",
        "resource \"aws_ec2_capacity_reservation\" \"a100\" {\n  instance_type     = \"p4d.24xlarge\"\n  instance_platform = \"Linux/UNIX\"\n  availability_zone = \"us-east-1a\"\n  instance_count    = 1\n}\n",
    );
    let o = gpulint(
        &["check", "--format", "compact", "main.tf"],
        &dir.path().join("infra"),
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "A100 is 2 generations behind: {}",
        stdout(&o)
    );
    write(
        dir.path(),
        ".gpulint.toml",
        "[rules.stale-generation-reservation]\nthreshold = 3\n",
    );
    let o = gpulint(&["check", "main.tf"], &dir.path().join("infra"), None);
    assert_eq!(o.status.code(), Some(0), "found upward: {}", stdout(&o));

    write(
        dir.path(),
        "bad.toml",
        "[rules.stale-generation-reservation]\nthreshhold = 3\n",
    );
    let o = gpulint(
        &["check", "--config", "bad.toml", "infra"],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("bad.toml:1:1: unknown option `threshhold`"),
        "{err}"
    );
}

#[test]
fn helm_charts_and_templates_are_skipped_with_one_note_each() {
    let out = run(&["check", "--format", "compact", "tests/data/helm"]);
    let err = stderr(&out);
    let notes: Vec<&str> = err.lines().collect();
    assert_eq!(notes.len(), 2, "{err}");
    assert!(notes[0].contains("skipped the Helm chart `tests/data/helm/chart` (2 templates)"));
    assert!(notes[0].contains("helm template tests/data/helm/chart | gpulint check -"));
    assert!(notes[1].contains("skipped `tests/data/helm/go-template.yaml`"));
    let text = stdout(&out);
    assert!(!text.contains("parse-error"), "{text}");
    // The rendered manifest beside the chart is still linted.
    assert!(
        text.contains("tests/data/helm/rendered.yaml:23:31"),
        "{text}"
    );
}

#[test]
fn a_named_helm_template_is_skipped_too() {
    let out = run(&["check", "tests/data/helm/chart/templates/deployment.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stderr(&out).contains("skipped the Helm chart `tests/data/helm/chart` (1 template)"));
}

#[test]
fn rendered_helm_output_is_linted_from_stdin() {
    let rendered = std::fs::read(format!("{ROOT}/tests/data/helm/rendered.yaml")).unwrap();
    let out = gpulint(
        &[
            "check",
            "--format",
            "compact",
            "--stdin-filename",
            "vllm.yaml",
            "-",
        ],
        std::path::Path::new(ROOT),
        Some(&rendered),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .lines()
            .any(|l| l.starts_with("vllm.yaml:23:31: warning [missing-shm]")),
        "{}",
        stdout(&out)
    );
}
