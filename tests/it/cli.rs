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
fn fit_lists_where_a_70b_fp8_model_fits() {
    let o = run(&[
        "fit",
        "--model",
        "meta-llama/Llama-3.1-70B-Instruct",
        "--precision",
        "fp8",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("context 131,072 × batch 1"),
        "the model's own context: {out}"
    );
    assert!(
        out.contains("p5.48xlarge") && out.contains("a3-highgpu-8g"),
        "{out}"
    );
    assert!(!out.contains("g6.xlarge,"), "one L4 cannot hold it: {out}");
    insta::assert_snapshot!(out);
}

#[test]
fn fit_on_an_instance_that_is_too_small_says_by_how_much() {
    let o = run(&[
        "fit",
        "--model",
        "meta-llama/Llama-3.1-70B-Instruct",
        "--precision",
        "fp8",
        "--instance",
        "g6.xlarge",
    ]);
    assert_eq!(o.status.code(), Some(1), "does not fit");
    let out = stdout(&o);
    assert!(
        out.contains("vLLM budgets 0.90 of it: 19.76 GiB per GPU; it needs 108.43 GiB")
            && out.contains("✗ does not fit: 88.66 GiB short")
            && out.contains("the largest part is the weights")
            && out.contains("cheapest change that fits:"),
        "{out}"
    );

    let o = run(&[
        "fit",
        "--model",
        "meta-llama/Llama-3.1-70B-Instruct",
        "--precision",
        "fp8",
        "--instance",
        "g6.xlarge",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    for key in [
        "weights_bytes",
        "kv_cache_bytes",
        "gradients_bytes",
        "optimizer_bytes",
        "activation_bytes",
        "overhead_bytes",
        "total_bytes",
        "gpu_memory_bytes",
        "device_bytes",
        "usable_bytes",
        "need_bytes",
        "fits",
        "verdict",
        "margin_bytes",
        "margin_share",
        "band_bytes",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
        if key.ends_with("_bytes") && v["per_gpu"].get(key).is_none() {
            assert!(
                [
                    "gpu_memory_bytes",
                    "device_bytes",
                    "usable_bytes",
                    "need_bytes",
                    "margin_bytes",
                    "band_bytes"
                ]
                .contains(&key),
                "per_gpu lacks {key}"
            );
        }
    }
    assert_eq!(v["fits"], false);
    assert_eq!(v["verdict"], "does-not-fit");
    // Nominal memory in binary units; what CUDA exposes is less; the budget less again.
    assert_eq!(v["gpu_memory_bytes"], 24u64 << 30);
    let (device, usable) = (v["device_bytes"].as_u64(), v["usable_bytes"].as_u64());
    assert!(usable < device && device < v["gpu_memory_bytes"].as_u64());
    assert!(v["margin_bytes"].as_i64().unwrap() < -(v["band_bytes"].as_i64().unwrap()));
    assert_eq!(v["kv_cache_bytes"], 327_680u64 * 131_072);
    assert_eq!(v["instance"], "g6.xlarge");
}

/// A margin inside the estimate's own band is `tight`: `fits` says which side it falls on.
#[test]
fn fit_says_tight_within_the_band() {
    let o = run(&[
        "fit",
        "--model",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--gpu",
        "l4",
        "--context",
        "30720",
        "--format",
        "json",
    ]);
    let v = json(&o);
    assert_eq!(v["verdict"], "tight", "{v}");
    let margin = v["margin_bytes"].as_i64().unwrap();
    assert!(margin.abs() <= v["band_bytes"].as_i64().unwrap());
    assert_eq!(v["fits"], margin >= 0);
    assert_eq!(o.status.code(), Some(i32::from(margin < 0)));
    assert_eq!(v["engine"], "vllm");
    assert_eq!(v["peak"]["tokens"], 2048);
    let human = stdout(&run(&[
        "fit",
        "--model",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--gpu",
        "l4",
        "--context",
        "30720",
    ]));
    assert!(
        human.contains("~ tight:") && human.contains("it may not start"),
        "{human}"
    );
}

/// The engine's flags move its start-up peak: a smaller batch, fewer sequences, no graphs.
#[test]
fn fit_reads_engine_flags() {
    let peak = |extra: &[&str]| {
        let mut args = vec![
            "fit",
            "--model",
            "Qwen/Qwen2.5-7B-Instruct",
            "--gpu",
            "h100",
            "--context",
            "8192",
            "--format",
            "json",
        ];
        args.extend(extra);
        let v = json(&run(&args));
        v["per_gpu"]["activation_bytes"].as_u64().unwrap()
    };
    let default = peak(&[]);
    assert!(peak(&["--max-num-seqs", "64"]) < default);
    assert!(peak(&["--max-num-batched-tokens", "512"]) < default);
    assert_eq!(peak(&["--engine", "none"]), 0);
    let tgi = json(&run(&[
        "fit",
        "--model",
        "Qwen/Qwen2.5-7B-Instruct",
        "--gpu",
        "a10g",
        "--context",
        "4096",
        "--engine",
        "tgi",
        "--format",
        "json",
    ]));
    assert_eq!(tgi["engine"], "tgi");
    assert_eq!(tgi["verdict"], "fits", "{tgi}");
}

/// `--tp 3` on 8 GPUs: the split leaves GPUs idle, and vLLM refuses heads it cannot divide.
#[test]
fn fit_notes_a_parallel_split_that_does_not_match() {
    let v = json(&run(&[
        "fit",
        "--model",
        "meta-llama/Llama-3.1-70B-Instruct",
        "--gpu",
        "h100",
        "--gpus",
        "8",
        "--tp",
        "3",
        "--context",
        "8192",
        "--format",
        "json",
    ]));
    let notes = v["notes"].to_string();
    assert!(notes.contains("uses 3 of the 8 GPUs"), "{notes}");
    assert!(notes.contains("64 attention heads"), "{notes}");
}

/// DeepSpeed's own ZeRO-3 accounting: `estimate_zero3_model_states_mem_needs` prints
/// 6.10 GiB per GPU for t5-3b (2851M parameters, 32M in its largest layer) on 8 GPUs
/// without offload (DeepSpeed docs/code-docs/source/memory.rst); 18 bytes per parameter
/// over the GPUs is 5.97 GiB of it, the largest layer (unknown without an architecture)
/// the rest.
#[test]
fn fit_reproduces_deepspeed_zero3_accounting() {
    let v = json(&run(&[
        "fit",
        "--params",
        "2851M",
        "--training",
        "--zero",
        "3",
        "--accounting",
        "deepspeed",
        "--gpus",
        "8",
        "--gpu",
        "h100",
        "--format",
        "json",
    ]));
    let gib = v["per_gpu"]["weights_bytes"].as_f64().unwrap() / f64::from(1u32 << 30);
    assert!(
        (gib - (6.10 - 4.0 * 32e6 / f64::from(1u32 << 30))).abs() < 0.01,
        "{gib}"
    );
    // With an architecture, the largest layer (here the embedding) is counted too.
    let v = json(&run(&[
        "fit",
        "--model",
        "meta-llama/Llama-2-7b-hf",
        "--training",
        "--zero",
        "3",
        "--accounting",
        "deepspeed",
        "--gpus",
        "8",
        "--gpu",
        "h100",
        "--format",
        "json",
    ]));
    let want = 18.0 * 6_738_415_616.0 / 8.0 + 4.0 * 32_000.0 * 4096.0;
    let got = v["per_gpu"]["weights_bytes"].as_f64().unwrap();
    assert!((got - want).abs() < 2.0, "{got} vs {want}");
}

/// Modern trainers fuse attention: the `s × s` scores are not held unless asked.
#[test]
fn fit_training_assumes_fused_attention() {
    let act = |extra: &[&str]| {
        let mut args = vec![
            "fit",
            "--model",
            "meta-llama/Llama-2-13b-hf",
            "--training",
            "--zero",
            "3",
            "--gpus",
            "8",
            "--gpu",
            "a100-80gb",
            "--context",
            "4096",
            "--batch",
            "4",
            "--format",
            "json",
        ];
        args.extend(extra);
        json(&run(&args))["per_gpu"]["activation_bytes"]
            .as_f64()
            .unwrap()
            / f64::from(1u32 << 30)
    };
    let (flash, eager) = (act(&[]), act(&["--attention", "eager"]));
    // s·b·h·34 per layer without the scores, 5·a·s/h more with them (a = 40, s = 4096).
    assert!(eager > 3.0 * flash, "{eager} vs {flash}");
}

#[test]
fn fit_training_reproduces_the_zero_paper() {
    let o = run(&[
        "fit",
        "--params",
        "7.5B",
        "--training",
        "--zero",
        "1",
        "--gpus",
        "64",
        "--gpu",
        "h100",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let v = json(&o);
    let p = &v["per_gpu"];
    let states = p["weights_bytes"].as_u64().unwrap()
        + p["gradients_bytes"].as_u64().unwrap()
        + p["optimizer_bytes"].as_u64().unwrap();
    assert_eq!(states, 31_406_250_000, "ZeRO-1, Nd = 64: 31.4 GB");
    assert_eq!(v["activation_bytes"], 0, "no batch and context given");
    assert_eq!(v["mode"], "training");
}

#[test]
fn fit_usage_errors_exit_2() {
    for args in [
        &["fit"][..],
        &["fit", "--model", "acme/mystery"],
        &["fit", "--params", "7B", "--instance", "no-such-type"],
        &[
            "fit", "--params", "7B", "--gpu", "h100", "--gpus", "2", "--tp", "4",
        ],
        &["fit", "--params", "7B", "--zero", "1"],
        &["fit", "--params", "7B", "--gpu", "h100", "--gpus", "0"],
        &["fit", "--params", "7B", "--gpu", "h100", "--tp", "0"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
    }
}

#[test]
fn fit_asks_which_gpu_a_family_name_means() {
    let o = run(&["fit", "--params", "7B", "--gpu", "a100"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    for id in ["a100-40gb", "a100-80gb", "a100-80gb-pcie", "a100-40gb-pcie"] {
        assert!(err.contains(&format!("`{id}`")), "{err}");
    }
    assert!(err.contains("names 4 GPUs"), "{err}");
    let o = run(&["fit", "--params", "7B", "--gpu", "a100-80gb"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
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

/// The verdict judges the job as asked: `--tp 1` on an 8-GPU instance holds all the
/// weights on one GPU.
#[test]
fn fit_verdict_respects_the_given_tensor_parallel_size() {
    let args = [
        "fit",
        "--params",
        "70B",
        "--precision",
        "bf16",
        "--instance",
        "p5.48xlarge",
    ];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "tp 8 by default: {}", stdout(&o));
    let o = run(&[&args[..], &["--tp", "1"]].concat());
    assert_eq!(
        o.status.code(),
        Some(1),
        "130 GiB on one 80 GiB GPU: {}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("tensor 1 × pipeline 1 on 8 GPUs"),
        "{}",
        stdout(&o)
    );
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

/// A LoRA fine-tune of a model whose architecture is unknown can only be sized by its
/// frozen weights: "does not fit" on them is certain, "fits" is never said on them.
#[test]
fn fit_never_says_fits_on_a_total_it_could_not_compute() {
    let args = |params: &'static str, gpu: &'static str| {
        [
            "fit",
            "--params",
            params,
            "--training",
            "--method",
            "qlora",
            "--gpu",
            gpu,
        ]
    };
    let o = run(&args("405B", "l4"));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("✗ does not fit"), "{out}");
    assert!(out.contains("a lower bound"), "{out}");

    let o = run(&args("7B", "h100"));
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("cannot tell whether it fits"),
        "{}",
        stderr(&o)
    );
}
