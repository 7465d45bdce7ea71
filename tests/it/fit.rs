//! `gpulint fit`, end to end: the verdicts, the fixes it suggests, its flags and its exit
//! codes, as a user runs them.

use crate::common::*;

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
