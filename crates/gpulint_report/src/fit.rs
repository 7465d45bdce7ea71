//! `gpulint fit` output: the memory breakdown and where the job fits.

// Byte counts are far below 2^52 (exact in f64) and never negative.
#![allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]

use std::fmt::Write;

use serde_json::{Value, json};

use gpulint_facts::{Gpu, catalog};
use gpulint_fit::engine::engine;
use gpulint_fit::plan::{Plan, cheapest_fix};
use gpulint_fit::{Breakdown, Fit, GIB, Precision, human_bytes};

/// Bytes as GiB with two decimals: enough to see a margin of tens of MiB.
fn gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / GIB)
}

/// Precisions shown in the fit matrix (fp16 and bf16 weigh the same).
const MATRIX: [(Precision, &str); 5] = [
    (Precision::Fp32, "fp32"),
    (Precision::Bf16, "bf16/fp16"),
    (Precision::Fp8, "fp8"),
    (Precision::Int8, "int8"),
    (Precision::Int4, "int4"),
];

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[allow(clippy::cast_precision_loss)]
fn billions(p: f64) -> String {
    format!("{:.2}B", p / 1e9)
}

pub fn human(plan: &Plan) -> String {
    let r = &plan.request;
    let e = plan.estimate();
    let mut out = String::new();
    let source = r.spec.map_or_else(
        || "size from the name or --params; architecture unknown".to_string(),
        |s| format!("registry: {}", s.source),
    );
    let _ = writeln!(
        out,
        "Model     {} ({} parameters; {source})",
        crate::escape::escape(&plan.label),
        billions(r.params)
    );
    let mode = match &r.training {
        None => format!(
            "inference, {} weights, {} KV cache{}",
            precision_label(plan),
            r.kv_precision,
            e.peak.map_or_else(
                || ", no engine (weights, KV cache and CUDA context only)".to_string(),
                |p| format!(
                    "\n          on {}: largest forward pass {} tokens, {} sequences sampled, {}",
                    engine(p.engine).map_or("", |f| f.name.as_str()),
                    thousands(p.tokens),
                    thousands(p.seqs),
                    if p.cuda_graphs {
                        "CUDA graphs"
                    } else {
                        "no CUDA graphs"
                    }
                )
            )
        ),
        Some(t) => format!(
            "training ({:?}, {:?} optimizer, ZeRO-{}, {:?} recomputation), {} weights",
            t.method, t.optimizer, t.zero, t.recompute, r.precision
        )
        .to_lowercase(),
    };
    let _ = writeln!(out, "Mode      {mode}");
    if let Some(c) = r.context {
        let _ = writeln!(
            out,
            "Tokens    context {} × batch {}",
            thousands(c),
            r.batch
        );
    }
    let _ = writeln!(
        out,
        "Parallel  tensor {} × pipeline {} on {} GPU{}",
        r.tp,
        r.pp,
        r.gpus,
        if r.gpus == 1 { "" } else { "s" }
    );
    out.push('\n');
    table(&mut out, &e.total, &e.per_gpu, r.training.is_some());

    match &plan.target {
        Some(t) => {
            let (_, v) = plan.verdict().expect("a target");
            let what = t.instance.map_or_else(
                || format!("{} × {}", t.count, t.gpu.name),
                |i| {
                    format!(
                        "{} ({}): {} × {}",
                        i.row.name,
                        i.provider.as_str(),
                        t.count,
                        t.gpu.name
                    )
                },
            );
            let measured = if t.gpu.usable_measured() {
                "as CUDA reports it".to_string()
            } else {
                format!(
                    "not measured: {:.0} % of the smaller of the vendor and cloud API figures, the \
                     least any measured GPU shows",
                    t.gpu.unmeasured_share * 100.0
                )
            };
            let _ = writeln!(
                out,
                "\n{what}: {} per GPU ({measured}; {} nominal)",
                gib(v.device_bytes),
                human_bytes(v.gpu_memory_bytes),
            );
            let budget = match (&r.training, engine(r.serve.engine)) {
                (None, Some(f)) if f.budget == gpulint_fit::engine::Budget::Free => format!(
                    "{} gives the KV cache {:.2} of what weights and activations leave free; \
                     with them it may use",
                    f.name,
                    plan.utilization()
                ),
                (None, Some(f)) => format!("{} budgets {:.2} of it", f.name, plan.utilization()),
                _ => format!("The job may use {:.2} of it", plan.utilization()),
            };
            let spare = |have: u64, need: u64| {
                if have >= need {
                    format!("{} to spare", gib(have - need))
                } else {
                    format!("{} short", gib(need - have))
                }
            };
            let _ = writeln!(
                out,
                "{budget}: {} per GPU; it needs {} ({})",
                gib(v.usable_bytes),
                gib(v.need_bytes),
                spare(v.usable_bytes, v.need_bytes)
            );
            if e.outside_bytes > 0 {
                let left = v.device_bytes.saturating_sub(v.usable_bytes);
                let _ = writeln!(
                    out,
                    "Outside the budget: {} per GPU ({}) in the {} it leaves ({})",
                    gib(e.outside_bytes),
                    match (e.peak, engine(r.serve.engine).map(|f| f.budget)) {
                        // A static budget holds weights and KV cache only (SGLang).
                        (_, Some(gpulint_fit::engine::Budget::Static)) => {
                            "CUDA context, graphs and activations"
                        }
                        (Some(p), _) if p.cuda_graphs => "CUDA context and graphs",
                        _ => "CUDA context",
                    },
                    gib(left),
                    spare(left, e.outside_bytes)
                );
            }
            let margin = format!(
                "{:+.1} % of the budget; the estimate's band is ±{}",
                v.margin_share * 100.0,
                gib(v.band_bytes)
            );
            let line = match v.verdict {
                Fit::Fits => format!(
                    "✓ fits: {} to spare ({margin})",
                    gib(v.margin_bytes.unsigned_abs())
                ),
                Fit::Tight if v.fits => format!(
                    "~ tight: {} to spare ({margin}): it may not start",
                    gib(v.margin_bytes.unsigned_abs())
                ),
                Fit::Tight => format!(
                    "~ tight: {} short ({margin}): it may still start",
                    gib(v.shortfall_bytes)
                ),
                Fit::DoesNotFit => format!(
                    "✗ does not fit: {} short ({margin}); the largest part is the {}",
                    gib(v.shortfall_bytes),
                    e.per_gpu.dominant(r.training.is_some()).0
                ),
            };
            let _ = writeln!(out, "{line}");
            if v.verdict != Fit::Fits
                && r.training.is_none()
                && let Some(fix) = cheapest_fix(r, t.gpu)
            {
                let _ = writeln!(
                    out,
                    "  cheapest change that fits: {} ({} to spare)",
                    fix.change,
                    gib(fix.verdict.margin_bytes.unsigned_abs())
                );
            }
        }
        None => fits_on(&mut out, plan),
    }
    for note in plan.notes.iter().chain(&e.notes) {
        let _ = writeln!(out, "\nnote: {}", crate::escape::escape(note));
    }
    crate::escape_text(out)
}

fn precision_label(plan: &Plan) -> String {
    match plan.request.quant {
        gpulint_fit::Quant::None => plan.request.precision.to_string(),
        q => format!(
            "{} ({})",
            plan.request.precision,
            format!("{q:?}").to_lowercase()
        ),
    }
}

fn table(out: &mut String, total: &Breakdown, per_gpu: &Breakdown, training: bool) {
    let _ = writeln!(out, "{:<13}{:>13}{:>13}", "", "all GPUs", "per GPU");
    let mut rows = vec![("weights", total.weights_bytes, per_gpu.weights_bytes)];
    if training {
        rows.push(("gradients", total.gradients_bytes, per_gpu.gradients_bytes));
        rows.push(("optimizer", total.optimizer_bytes, per_gpu.optimizer_bytes));
        rows.push((
            "activations",
            total.activation_bytes,
            per_gpu.activation_bytes,
        ));
    } else {
        rows.push(("KV cache", total.kv_cache_bytes, per_gpu.kv_cache_bytes));
        if per_gpu.activation_bytes > 0 {
            rows.push((
                "activations",
                total.activation_bytes,
                per_gpu.activation_bytes,
            ));
        }
    }
    rows.push(("overhead", total.overhead_bytes, per_gpu.overhead_bytes));
    rows.push(("total", total.total_bytes, per_gpu.total_bytes));
    for (name, all, one) in rows {
        let _ = writeln!(
            out,
            "{name:<13}{:>13}{:>13}",
            human_bytes(all),
            human_bytes(one)
        );
    }
}

fn fits_on(out: &mut String, plan: &Plan) {
    // Whole GPUs: a partition (a fractional machine's share) is asked for by name.
    let mut gpus: Vec<_> = catalog()
        .gpus
        .iter()
        .filter(|g| g.partition_of.is_none())
        .copied()
        .collect();
    gpus.sort_by_key(|g| (g.usable_bytes(), g.id.clone()));
    let mode = if plan.request.training.is_some() {
        "data parallel"
    } else {
        "one replica, tensor parallel"
    };
    let emulated = |g: &Gpu| is_emulated(g, plan.request.precision);
    let fit: Vec<String> = gpus
        .iter()
        .filter_map(|g| {
            let mark = if emulated(g) { "*" } else { "" };
            plan.min_gpus(g)
                .map(|(n, v)| format!("{}{mark} ×{n}{}", g.name, tight_mark(v)))
        })
        .collect();
    let _ = writeln!(
        out,
        "\nFits on ({mode}, at {:.2} of each GPU's memory):",
        plan.utilization()
    );
    if fit.is_empty() {
        let _ = writeln!(out, "  no catalog GPU, up to 8 of them");
    } else {
        let _ = writeln!(out, "  GPUs: {}", fit.join(", "));
        if fit.iter().any(|f| f.contains("* ×")) {
            let _ = writeln!(out, "  * {FOOTNOTE}");
        }
        if fit.iter().any(|f| f.ends_with('~')) {
            let _ = writeln!(out, "  ~ {TIGHT}");
        }
    }
    let instances = plan.instances_that_fit();
    for provider in ["aws", "gcp", "azure"] {
        let names: Vec<&str> = instances
            .iter()
            .filter(|i| i.provider.as_str() == provider)
            .map(|i| i.row.name.as_str())
            .collect();
        if !names.is_empty() {
            let _ = writeln!(out, "  {provider}: {}", names.join(", "));
        }
    }

    // The matrix: how many GPUs each precision needs, the other settings unchanged.
    let _ = writeln!(out, "\nGPUs needed by precision (— = more than 8):");
    let width = gpus
        .iter()
        .map(|g| g.name.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let _ = write!(out, "{:<width$}{:>8}", "", "memory");
    for (_, name) in MATRIX {
        let _ = write!(out, "{name:>10}");
    }
    out.push('\n');
    for g in &gpus {
        let memory = format!("{:.0} GiB", g.usable_bytes() as f64 / GIB);
        let _ = write!(out, "{:<width$}{memory:>8}", g.name);
        for (p, _) in MATRIX {
            let mut variant = plan.clone();
            variant.request.precision = p;
            variant.request.quant = gpulint_fit::Quant::None;
            let mark = if is_emulated(g, p) { "*" } else { "" };
            let cell = variant.min_gpus(g).map_or_else(
                || "—".to_string(),
                |(n, v)| format!("{n}{mark}{}", tight_mark(v)),
            );
            let _ = write!(out, "{cell:>10}");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "* {FOOTNOTE}\n~ {TIGHT}");
}

const TIGHT: &str = "tight: within the estimate's error band, it may or may not start";

fn tight_mark(v: Fit) -> &'static str {
    if v == Fit::Tight { "~" } else { "" }
}

const FOOTNOTE: &str = "no fp8 tensor cores (fp8 needs Ada, Hopper or newer): only weight-only \
                        kernels, where the engine has them";

/// fp8 weights on a GPU whose tensor cores lack fp8.
fn is_emulated(g: &Gpu, p: Precision) -> bool {
    p == Precision::Fp8 && !g.has_native_float("fp8")
}

pub fn json(plan: &Plan) -> String {
    let r = &plan.request;
    let e = plan.estimate();
    let mut v = serde_json::to_value(e.total).expect("plain data");
    let obj = v.as_object_mut().expect("an object");
    let mut put = |k: &str, x: Value| {
        obj.insert(k.to_string(), x);
    };
    put("model", json!(plan.label));
    put("params", json!(r.params.round() as u64));
    put("architecture_known", json!(r.spec.is_some()));
    put(
        "mode",
        json!(if r.training.is_some() {
            "training"
        } else {
            "inference"
        }),
    );
    put("precision", json!(r.precision));
    put("quantization", json!(r.quant));
    put("kv_precision", json!(r.kv_precision));
    put("context", json!(r.context));
    put("batch", json!(r.batch));
    put("tensor_parallel", json!(r.tp));
    put("pipeline_parallel", json!(r.pp));
    put("gpus", json!(r.gpus));
    put("gpu_memory_utilization", json!(plan.utilization()));
    if r.training.is_none() {
        put("engine", json!(r.serve.engine));
    }
    put(
        "peak",
        json!(e.peak.map(|p| json!({
            "tokens": p.tokens, "sequences": p.seqs, "cuda_graphs": p.cuda_graphs
        }))),
    );
    put("proxy_architecture", json!(e.proxy.map(|p| p.id.clone())));
    put(
        "per_gpu",
        serde_json::to_value(e.per_gpu).expect("plain data"),
    );
    match &plan.target {
        Some(t) => {
            let (_, verdict) = plan.verdict().expect("a target");
            put("gpu", json!(t.gpu.id));
            put("instance", json!(t.instance.map(|i| i.row.name.clone())));
            put("gpu_memory_bytes", json!(verdict.gpu_memory_bytes));
            put("device_bytes", json!(verdict.device_bytes));
            put("device_measured", json!(t.gpu.usable_measured()));
            put("usable_bytes", json!(verdict.usable_bytes));
            put("need_bytes", json!(verdict.need_bytes));
            put("outside_budget_bytes", json!(e.outside_bytes));
            put("fits", json!(verdict.fits));
            put("verdict", json!(verdict.verdict));
            put("margin_bytes", json!(verdict.margin_bytes));
            put("margin_share", json!(verdict.margin_share));
            put("band_bytes", json!(verdict.band_bytes));
            put("shortfall_bytes", json!(verdict.shortfall_bytes));
            let fix = (verdict.verdict != Fit::Fits && r.training.is_none())
                .then(|| cheapest_fix(r, t.gpu))
                .flatten()
                .map(|f| json!({"change": f.change, "margin_bytes": f.verdict.margin_bytes}));
            put("cheapest_fix", json!(fix));
        }
        None => {
            let fits_on: Vec<Value> = catalog()
                .gpus
                .iter()
                .filter(|g| g.partition_of.is_none())
                .filter_map(|g| {
                    plan.min_gpus(g)
                        .map(|(n, v)| json!({"gpu": g.id, "gpus": n, "verdict": v}))
                })
                .collect();
            put("fits_on", json!(fits_on));
            let instances: Vec<Value> = plan
                .instances_that_fit()
                .iter()
                .map(|i| json!({"provider": i.provider.as_str(), "name": i.row.name}))
                .collect();
            put("instances", json!(instances));
        }
    }
    let notes: Vec<&String> = plan.notes.iter().chain(&e.notes).collect();
    put("notes", json!(notes));
    let mut s = serde_json::to_string_pretty(&v).expect("plain data");
    s.push('\n');
    crate::escape::json(s)
}
