//! Hostile and unusual input to the YAML, JSON and HCL front ends: each is read in linear
//! time, within its limits, and a limit that is hit is a `limit-exceeded` finding at the
//! document, never a parse error that loses the documents after it. Valid input (deep
//! plans, huge JSON numbers, CR-only line endings, YAML 1.1 integers) is read as
//! Terraform and Kubernetes read it.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::{GPU_VM, gpulint, json, rule_files, stderr, write};

/// `(rule, file, line, message)` of every finding of `gpulint check --format json .` in
/// `dir`, sorted.
fn check(dir: &Path) -> Vec<(String, String, u64, String)> {
    let o = gpulint(&["check", "--format", "json", "."], dir, None);
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
    let mut found: Vec<_> = json(&o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

fn rules(found: &[(String, String, u64, String)]) -> Vec<(&str, &str)> {
    found
        .iter()
        .map(|(r, f, _, _)| (r.as_str(), f.as_str()))
        .collect()
}

/// `f(0) + f(1) + … + f(n - 1)`.
fn repeat(n: usize, f: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&f(i));
    }
    out
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train\nspec:\n  containers:\n  - name: c\n    image: pytorch\n    command: [torchrun, --nproc_per_node=8, train.py]\n    resources:\n      limits:\n        nvidia.com/gpu: 8\n        cpu: 64\n        memory: 512Gi\n";

/// A document of `kind` whose `spec` holds over 1,000 nodes.
fn over_1000_nodes(api: &str, kind: &str) -> String {
    format!("apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec:\n  props:\n")
        + &repeat(1000, |i| format!("    p{i}:\n      type: string\n"))
}

#[test]
fn a_document_over_the_node_limit_is_a_limit_hit_and_the_pod_after_it_is_linted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, ".gpulint.toml", "[limits]\nyaml_nodes = 1000\n");
    let custom = over_1000_nodes("example.com/v1", "Widget");
    write(d, "crds.yaml", format!("{custom}---\n{POD}"));
    let found = check(d);
    assert_eq!(
        rules(&found),
        [
            ("limit-exceeded", "crds.yaml"),
            ("missing-checkpoint-volume", "crds.yaml"),
            ("missing-shm", "crds.yaml"),
        ],
        "{found:?}"
    );
    assert!(
        found[0].3.contains("1000 nodes in one YAML document"),
        "{found:?}"
    );
    assert!(found[0].3.contains("starts on line 1"), "{found:?}");
    assert!(!found[0].3.contains("alias bomb"));
}

/// A CRD is read for its syntax only: no tree is built past its `kind`, so it spends no
/// node budget, and a syntax error in it is still reported.
#[test]
fn a_crd_over_the_node_limit_is_not_built_but_its_syntax_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, ".gpulint.toml", "[limits]\nyaml_nodes = 1000\n");
    let crd = over_1000_nodes("apiextensions.k8s.io/v1", "CustomResourceDefinition");
    write(d, "crds.yaml", format!("{crd}---\n{POD}"));
    write(d, "broken.yaml", format!("{crd}    bad: [1, 2\n"));
    let found = check(d);
    assert_eq!(
        rules(&found),
        [
            ("missing-checkpoint-volume", "crds.yaml"),
            ("missing-shm", "crds.yaml"),
            ("parse-error", "broken.yaml"),
        ],
        "{found:?}"
    );
}

#[test]
fn an_alias_bomb_is_a_limit_hit_and_the_next_document_is_linted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..8u8 {
        let (prev, name) = ((b'a' + i - 1) as char, (b'a' + i) as char);
        let items = vec![format!("*{prev}"); 10].join(", ");
        writeln!(bomb, "{name}: &{name} [{items}]").unwrap();
    }
    write(d, "bomb.yaml", format!("{bomb}---\n{POD}"));
    let found = check(d);
    assert_eq!(
        rules(&found),
        [
            ("limit-exceeded", "bomb.yaml"),
            ("missing-checkpoint-volume", "bomb.yaml"),
            ("missing-shm", "bomb.yaml"),
        ],
        "{found:?}"
    );
}

#[test]
fn nested_anchors_with_no_alias_are_not_copied() {
    // Each anchor used to keep a copy of its subtree: nested, the copies grow as the
    // square of the file. With a small alias budget, this file is still read whole.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, ".gpulint.toml", "[limits]\nyaml_alias_nodes = 100\n");
    let mut doc = String::from("x");
    for i in 0..100 {
        let pad: Vec<String> = (0..20).map(|j| format!("f{j}: v")).collect();
        doc = format!("&a{i} {{{}, n: {doc}}}", pad.join(", "));
    }
    write(d, "anchors.yaml", format!("a: {doc}\n---\n{POD}"));
    let found = check(d);
    assert_eq!(
        rules(&found),
        [
            ("missing-checkpoint-volume", "anchors.yaml"),
            ("missing-shm", "anchors.yaml"),
        ],
        "{found:?}"
    );
}

#[test]
fn a_deep_value_in_a_plan_and_a_huge_number_in_tf_json_do_not_lose_the_gpu_vm() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut nested = String::from("\"x\"");
    for _ in 0..200 {
        nested = format!("{{\"a\": {nested}}}");
    }
    let plan = format!(
        r#"{{"format_version": "1.2", "planned_values": {{"root_module": {{"resources": [
  {{"address": "kubernetes_manifest.crd", "mode": "managed", "type": "kubernetes_manifest", "name": "crd", "values": {{"manifest": {nested}}}}},
  {{"address": "aws_instance.gpu", "mode": "managed", "type": "aws_instance", "name": "gpu", "values": {{"instance_type": "p5.48xlarge"}}}}]}}}}}}"#
    );
    write(d, "plan.json", plan);
    write(
        d,
        "tf/main.tf.json",
        r#"{"resource": {"aws_instance": {"gpu": {"instance_type": "p5.48xlarge", "x": 1e400}}}}"#,
    );
    let o = gpulint(&["check", "--format", "json", "plan.json", "tf"], d, None);
    let found = rule_files(&o);
    assert!(!found.iter().any(|(r, _)| r == "parse-error"), "{found:?}");
    for file in ["plan.json", "tf/main.tf.json"] {
        assert!(
            found.contains(&("missing-auto-shutdown".into(), file.into())),
            "{file}: {found:?}"
        );
    }
}

#[test]
fn cr_only_line_endings_put_findings_on_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "pod.yaml", POD.replace('\n', "\r"));
    let lines: Vec<(String, u64)> = check(d).into_iter().map(|(r, _, l, _)| (r, l)).collect();
    assert_eq!(
        lines,
        [
            ("missing-checkpoint-volume".to_string(), 6),
            ("missing-shm".to_string(), 12)
        ]
    );
}

#[test]
fn gpu_counts_read_as_kubernetes_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gpus = |text: &str| {
        write(d, "pod.yaml", POD.replace("nvidia.com/gpu: 8", text));
        check(d)
            .into_iter()
            .find(|f| f.0 == "missing-shm")
            .map(|f| f.3)
            .unwrap_or_default()
    };
    // YAML 1.1: a plain 010 is octal; quoted, it is the quantity 10.
    assert!(gpus("nvidia.com/gpu: 010").contains("on 8 GPUs"));
    assert!(gpus("nvidia.com/gpu: \"010\"").contains("on 10 GPUs"));
    // A key written twice: the last wins, not the sum.
    assert!(gpus("nvidia.com/gpu: 1\n        nvidia.com/gpu: 4").contains("on 4 GPUs"));
}

#[test]
fn hostile_sizes_are_read_in_linear_time() {
    // Each of these was quadratic; at these sizes a regression shows as a test that takes
    // minutes, while the findings below say every file was read.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A tab error beside a long line of spaces (the flow-collection retry).
    write(
        d,
        "tab.yaml",
        format!("a:\n\t- b\n{}\n", " ".repeat(200_000)),
    );
    // One long line of non-ASCII text.
    let keys: Vec<String> = (0..20_000).map(|i| format!("\"ключ{i}\": \"é\"")).collect();
    write(d, "wide.yaml", format!("{{{}}}\n", keys.join(", ")));
    // Many ignore comments above one pod.
    write(
        d,
        "ignored.yaml",
        "# gpulint:ignore missing-shm\n".repeat(50_000) + POD,
    );
    // A merge of many keys.
    write(d, ".gpulint.toml", "[limits]\nyaml_alias_nodes = 1000000\n");
    let base = repeat(50_000, |i| format!("  k{i}: v\n"));
    let own = repeat(50_000, |i| format!("  j{i}: v\n"));
    write(
        d,
        "merge.yaml",
        format!("base: &b\n{base}d:\n  <<: *b\n{own}"),
    );
    // A Terraform object with repeated keys.
    let keys = repeat(40, |i| format!("    k{i} = {i}\n"));
    write(
        d,
        "tf/main.tf",
        format!("locals {{\n  x = {{\n{keys}{keys}  }}\n}}\n{GPU_VM}"),
    );
    let found = check(d);
    assert_eq!(
        rules(&found),
        [
            ("missing-auto-shutdown", "tf/main.tf"),
            ("missing-checkpoint-volume", "ignored.yaml"),
            ("parse-error", "tab.yaml"),
        ],
        "{found:?}"
    );
}
