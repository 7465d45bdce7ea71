//! gpulint_fit: memory math. Does a model fit the GPUs given, for inference and for training?
//!
//! Everything is computed in bytes (`f64` internally, whole bytes at the edge); output
//! formats say GiB or GB explicitly. Formulas and their sources are in
//! `../shared/reference/memory-math.md`; the section numbers below point there. The model
//! registry ([`models`]) and the serving engines' defaults ([`engine`]) are sourced data
//! files beside this crate.
//!
//! May use: gpulint_facts (GPUs and instance types).

// Byte counts and parameter counts stay far below 2^52, where f64 is exact for integers,
// and every value cast to an unsigned integer is clamped at zero first.
#![allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]

pub mod engine;
pub mod models;
pub mod plan;

use std::fmt;

use serde::{Deserialize, Serialize};

use engine::{Budget, EngineKind, Serve};
use models::ModelSpec;

mod training;
pub use training::{
    Accounting, Attention, Method, Optimizer, Recompute, Training, activation_bytes,
    deepspeed_zero3_bytes, logit_bytes, lora_params, state_bytes_per_param, zero_states,
};

pub const GIB: f64 = 1_073_741_824.0;

/// Numeric precision of weights or KV cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    Fp32,
    Fp16,
    Bf16,
    Fp8,
    Int8,
    Int4,
}

impl Precision {
    pub const ALL: [Precision; 6] = [
        Precision::Fp32,
        Precision::Fp16,
        Precision::Bf16,
        Precision::Fp8,
        Precision::Int8,
        Precision::Int4,
    ];

    /// Nominal bytes per element (§1.1).
    pub fn bytes(self) -> f64 {
        match self {
            Precision::Fp32 => 4.0,
            Precision::Fp16 | Precision::Bf16 => 2.0,
            Precision::Fp8 | Precision::Int8 => 1.0,
            Precision::Int4 => 0.5,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Int8 => "int8",
            Precision::Int4 => "int4",
        }
    }

    pub fn is_quantized(self) -> bool {
        self.bytes() < 2.0
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A 4-bit format's group metadata, beyond the nominal bits (§1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Quant {
    None,
    Gptq,
    Awq,
    Nf4,
    /// NVIDIA's FP4: 4-bit values with an fp8 scale per block of 16.
    Nvfp4,
}

/// CUDA context and library workspaces on each GPU (§3.1).
pub fn cuda_context_bytes() -> f64 {
    engine::cuda_context()
}

/// Effective bits per weight of a format, group metadata included.
pub fn bits_per_weight(precision: Precision, quant: Quant) -> f64 {
    let name = match (precision, quant) {
        (Precision::Int4, Quant::Gptq) => "gptq",
        (Precision::Int4, Quant::Awq) => "awq",
        (Precision::Int4, Quant::Nf4) => "nf4",
        (Precision::Int8, Quant::Gptq) => "gptq_int8",
        (Precision::Int4, Quant::Nvfp4) => "nvfp4",
        _ => return precision.bytes() * 8.0,
    };
    engine::quant_bits(name)
}

/// Weight bytes (§1). With a known architecture, quantized formats leave the embeddings
/// (and an untied `lm_head`) in 16-bit, and `kept` more parameters the checkpoint keeps in
/// 16-bit (attention, first and last layers: see `[[checkpoint]]` in `models.toml`); with
/// only a parameter count, every parameter takes the format's bits.
pub fn weight_bytes(
    params: f64,
    spec: Option<&ModelSpec>,
    precision: Precision,
    quant: Quant,
    kept: f64,
) -> f64 {
    let bits = bits_per_weight(precision, quant);
    match spec {
        Some(s) if precision == s.dtype && quant == Quant::None && s.weight_bytes.is_some() => {
            s.weight_bytes.unwrap_or_default()
        }
        Some(s) if precision.is_quantized() => {
            let wide = (s.embedding_params() + kept).min(params);
            (params - wide) * bits / 8.0 + wide * 2.0
        }
        _ => params * bits / 8.0,
    }
}

/// KV cache bytes per token for the whole model (§2.1, MLA §2.2).
pub fn kv_bytes_per_token(spec: &ModelSpec, kv: Precision) -> f64 {
    let layers = f64::from(spec.layers);
    match (spec.kv_lora_rank, spec.qk_rope_head_dim) {
        (Some(rank), rope) => layers * f64::from(rank + rope.unwrap_or(0)) * kv.bytes(),
        _ => 2.0 * layers * f64::from(spec.kv_heads) * f64::from(spec.head_dim) * kv.bytes(),
    }
}

/// KV cache bytes on one GPU for `tokens` cached tokens under tensor parallel `tp` and
/// pipeline parallel `pp` (§2.4): each rank keeps `max(1, kv/tp)` heads (replicated when
/// `tp > kv`) of `layers/pp` layers; the MLA latent is replicated on every TP rank.
pub fn kv_bytes_per_gpu(spec: &ModelSpec, kv: Precision, tokens: f64, tp: u32, pp: u32) -> f64 {
    let layers = f64::from(spec.layers) / f64::from(pp.max(1));
    let per_token = if spec.is_mla() {
        layers
            * f64::from(spec.kv_lora_rank.unwrap_or(0) + spec.qk_rope_head_dim.unwrap_or(0))
            * kv.bytes()
    } else {
        let heads = spec.kv_heads.div_ceil(tp.max(1)).max(1);
        2.0 * layers * f64::from(heads) * f64::from(spec.head_dim) * kv.bytes()
    };
    per_token * tokens
}

/// What to estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub params: f64,
    pub spec: Option<&'static ModelSpec>,
    pub precision: Precision,
    pub quant: Quant,
    /// Parameters a quantized checkpoint keeps in 16-bit beyond its embeddings.
    pub kept_16bit: f64,
    pub kv_precision: Precision,
    /// Tokens per sequence (the context). `None`: no KV cache or activations counted.
    pub context: Option<u64>,
    pub batch: u64,
    pub tp: u32,
    pub pp: u32,
    /// All GPUs of the job: `tp × pp` for one inference replica; `tp × pp × dp` in training.
    pub gpus: u32,
    pub training: Option<Training>,
    /// The inference engine and its settings (ignored in training).
    pub serve: Serve,
    /// Training: the share of each GPU's memory the job may use (default all of it).
    pub training_utilization: Option<f64>,
}

impl Request {
    /// The share of each GPU's memory the job budgets.
    pub fn utilization(&self) -> f64 {
        if self.training.is_some() {
            self.training_utilization.unwrap_or(1.0)
        } else {
            self.serve.utilization()
        }
    }
}

/// Bytes by component. Serialized with the DESIGN field names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Breakdown {
    pub weights_bytes: u64,
    pub kv_cache_bytes: u64,
    pub gradients_bytes: u64,
    pub optimizer_bytes: u64,
    pub activation_bytes: u64,
    pub overhead_bytes: u64,
    pub total_bytes: u64,
}

impl Breakdown {
    fn new(weights: f64, kv: f64, grads: f64, opt: f64, act: f64, overhead: f64) -> Self {
        let b = |x: f64| x.max(0.0).ceil() as u64;
        let parts = [b(weights), b(kv), b(grads), b(opt), b(act), b(overhead)];
        Breakdown {
            weights_bytes: parts[0],
            kv_cache_bytes: parts[1],
            gradients_bytes: parts[2],
            optimizer_bytes: parts[3],
            activation_bytes: parts[4],
            overhead_bytes: parts[5],
            // Sizes from a manifest are not bounded: saturate rather than wrap.
            total_bytes: parts.iter().fold(0, |a: u64, &b| a.saturating_add(b)),
        }
    }

    /// The largest component and its name, as a reader would say it.
    pub fn dominant(&self, training: bool) -> (&'static str, u64) {
        let parts = [
            ("weights", self.weights_bytes),
            ("KV cache", self.kv_cache_bytes),
            ("gradients", self.gradients_bytes),
            ("optimizer states", self.optimizer_bytes),
            (
                if training {
                    "activations"
                } else {
                    "activation peak"
                },
                self.activation_bytes,
            ),
            ("overhead", self.overhead_bytes),
        ];
        parts
            .into_iter()
            .max_by_key(|(_, b)| *b)
            .unwrap_or(("weights", 0))
    }
}

/// The forward pass an engine measures or reserves before sizing the KV cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Peak {
    pub engine: EngineKind,
    /// Tokens of the largest forward pass.
    pub tokens: u64,
    /// Sequences whose logits the sampler holds.
    pub seqs: u64,
    pub cuda_graphs: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// What the job needs in all GPUs together.
    pub total: Breakdown,
    /// What one GPU holds after tensor/pipeline parallel and ZeRO sharding.
    pub per_gpu: Breakdown,
    /// Memory outside the engine's budget on each GPU (CUDA context and graphs for vLLM;
    /// activations too for SGLang): it must fit in the share the budget leaves.
    pub outside_bytes: u64,
    /// The serving engine's largest forward pass (inference with an engine).
    pub peak: Option<Peak>,
    /// The known architecture standing in for an unknown one (KV cache, activations).
    pub proxy: Option<&'static ModelSpec>,
    /// What the estimate could not count, in words.
    pub notes: Vec<String>,
    /// Only part of the need could be counted (see `notes`): a lower bound, on which
    /// "does not fit" is certain and "fits" says nothing.
    pub lower_bound: bool,
}

/// The estimate on GPUs like `gpu`: engine defaults such as vLLM's batch sizes depend on its
/// memory, and the buffers of tensor parallel on whether it has NVLink (`None`: the
/// defaults for small GPUs, buffers as with NVLink).
pub fn estimate(r: &Request, gpu: Option<&gpulint_facts::Gpu>) -> Estimate {
    let device = gpu.map(gpulint_facts::Gpu::usable_bytes);
    let pcie = gpu.is_some_and(|g| g.nvlink.is_none());
    let mut notes = Vec::new();
    let gpus = r.gpus.max(1);
    let model_parallel = f64::from(r.tp.max(1)) * f64::from(r.pp.max(1));
    let context_bytes = cuda_context_bytes();
    let tokens = r.context.map(|c| c as f64 * r.batch.max(1) as f64);
    // An unknown architecture never drops the KV cache: a known one of its size stands in.
    let proxy = match r.spec {
        Some(_) => None,
        None => models::proxy(r.params),
    };
    let arch = r.spec.or(proxy);
    if let Some(p) = proxy {
        notes.push(format!(
            "architecture unknown (the size comes from the name or --params): the KV cache and \
             activations are estimated as for {} ({:.1}B parameters), the known model of about \
             this size with the largest KV cache per token; the verdict allows for it",
            p.id,
            p.params / 1e9
        ));
    }
    let Some(t) = r.training else {
        let weights = weight_bytes(r.params, r.spec, r.precision, r.quant, r.kept_16bit);
        let (kv_total, kv_gpu) = match (arch, tokens) {
            (Some(s), Some(n)) => (
                kv_bytes_per_token(s, r.kv_precision) * n,
                kv_bytes_per_gpu(s, r.kv_precision, n, r.tp, r.pp),
            ),
            _ => (0.0, 0.0),
        };
        let Some(facts) = engine::engine(r.serve.engine) else {
            return Estimate {
                total: Breakdown::new(
                    weights,
                    kv_total,
                    0.0,
                    0.0,
                    0.0,
                    context_bytes * f64::from(gpus),
                ),
                per_gpu: Breakdown::new(
                    weights / model_parallel,
                    kv_gpu,
                    0.0,
                    0.0,
                    0.0,
                    context_bytes,
                ),
                outside_bytes: 0,
                peak: None,
                proxy,
                notes,
                lower_bound: false,
            };
        };
        // Vision towers are not split by tensor parallel: every rank holds one.
        let vision =
            r.spec.and_then(|s| s.vision_params).unwrap_or(0.0) * r.precision.bytes().max(2.0);
        let weights_gpu = (weights - vision).max(0.0) / model_parallel + vision.min(weights);
        let (batch_tokens, seqs) = r.serve.batch(device);
        let act = arch.map_or(0.0, |s| {
            batch_tokens as f64 * engine::activation_per_token(s, r.tp)
                + engine::sampler_bytes(s, seqs)
        });
        let parallel = |one: u64, more: u64| {
            one as f64
                + if model_parallel > 1.0 {
                    more as f64
                } else {
                    0.0
                }
        };
        let (non_torch_tp, context_tp) = if pcie {
            (facts.non_torch_tp_pcie_bytes, facts.context_tp_pcie_bytes)
        } else {
            (facts.non_torch_tp_bytes, facts.context_tp_bytes)
        };
        let non_torch = parallel(facts.non_torch_bytes, non_torch_tp);
        let context_bytes = parallel(facts.context_bytes, context_tp);
        // CUDA graphs grow with the layers captured (fitted on the llm-d-planner logs).
        let graphs = if r.serve.enforce_eager {
            0.0
        } else {
            facts.graph_bytes as f64
                + arch.map_or(0.0, |s| {
                    facts.graph_layer_bytes as f64 * f64::from(s.layers) / f64::from(r.pp.max(1))
                })
        };
        let (overhead, outside) = match (facts.budget, facts.context_inside) {
            (Budget::Static, _) | (_, true) => (non_torch + context_bytes, graphs),
            (_, false) => (non_torch, context_bytes + graphs),
        };
        let outside = match facts.budget {
            // SGLang's static share holds weights and KV cache only.
            Budget::Static => outside + act + overhead,
            _ => outside,
        };
        return Estimate {
            total: Breakdown::new(
                weights,
                kv_total,
                0.0,
                0.0,
                act * f64::from(gpus),
                overhead * f64::from(gpus),
            ),
            per_gpu: Breakdown::new(weights_gpu, kv_gpu, 0.0, 0.0, act, overhead),
            outside_bytes: outside.ceil() as u64,
            peak: Some(Peak {
                engine: r.serve.engine,
                tokens: batch_tokens,
                seqs,
                cuda_graphs: !r.serve.enforce_eager && facts.graph_bytes > 0,
            }),
            proxy,
            notes,
            lower_bound: false,
        };
    };

    let dp = (f64::from(gpus) / model_parallel).floor().max(1.0) as u32;
    let mp = |x: f64| x / model_parallel;
    let (total, per_gpu_states) = match t.method {
        Method::Full => {
            let states = state_bytes_per_param(t.optimizer, r.precision);
            let all = zero_states(states, r.params, 0, 1);
            let mine = zero_states(states, r.params, t.zero, dp);
            let mine = (mp(mine.0), mp(mine.1), mp(mine.2));
            let mine = if t.zero == 3 && t.accounting == Accounting::Deepspeed {
                // DeepSpeed reports one figure; the weights column carries it.
                (deepspeed_zero3_bytes(r.spec, r.params, gpus), 0.0, 0.0)
            } else {
                mine
            };
            (all, mine)
        }
        Method::Lora | Method::Qlora => {
            let Some(spec) = r.spec else {
                // The frozen weights alone are certain: a floor the job cannot go below.
                notes.push(
                    "LoRA needs a known architecture (--model) to size the adapters, their \
                     optimizer states and the activations: only the frozen weights are \
                     counted, a lower bound"
                        .into(),
                );
                let frozen = if t.method == Method::Qlora {
                    weight_bytes(r.params, None, Precision::Int4, Quant::Nf4, 0.0)
                } else {
                    weight_bytes(r.params, None, r.precision, Quant::None, 0.0)
                };
                let mine = if t.zero >= 3 {
                    frozen / f64::from(dp)
                } else {
                    frozen
                };
                return Estimate {
                    total: Breakdown::new(frozen, 0.0, 0.0, 0.0, 0.0, 0.0),
                    per_gpu: Breakdown::new(mp(mine), 0.0, 0.0, 0.0, 0.0, 0.0),
                    outside_bytes: 0,
                    peak: None,
                    proxy,
                    notes,
                    lower_bound: true,
                };
            };
            let frozen = if t.method == Method::Qlora {
                weight_bytes(r.params, Some(spec), Precision::Int4, Quant::Nf4, 0.0)
            } else {
                weight_bytes(r.params, Some(spec), r.precision, Quant::None, 0.0)
            };
            let adapters = lora_params(spec, t.lora_rank);
            let states = state_bytes_per_param(t.optimizer, Precision::Bf16);
            let all = zero_states(states, adapters, 0, 1);
            let mine = zero_states(states, adapters, t.zero, dp);
            let frozen_mine = if t.zero >= 3 {
                frozen / f64::from(dp)
            } else {
                frozen
            };
            (
                (frozen + all.0, all.1, all.2),
                (mp(frozen_mine + mine.0), mp(mine.1), mp(mine.2)),
            )
        }
    };
    let act = match (arch, r.context) {
        (Some(s), Some(c)) => {
            let (seq, batch) = (c as f64, r.batch.max(1) as f64);
            activation_bytes(s, seq, batch, r.tp, t.recompute, t.attention)
                + logit_bytes(s, seq, batch, r.tp)
        }
        _ => 0.0,
    };
    Estimate {
        total: Breakdown::new(
            total.0,
            0.0,
            total.1,
            total.2,
            act * f64::from(dp),
            context_bytes * f64::from(gpus),
        ),
        per_gpu: Breakdown::new(
            per_gpu_states.0,
            0.0,
            per_gpu_states.1,
            per_gpu_states.2,
            act,
            context_bytes,
        ),
        outside_bytes: 0,
        peak: None,
        proxy,
        notes,
        lower_bound: false,
    }
}

/// Where the estimate falls against the memory, allowing for its own error band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fit {
    Fits,
    /// Within the band: the estimate cannot tell.
    Tight,
    DoesNotFit,
}

impl Fit {
    pub fn as_str(self) -> &'static str {
        match self {
            Fit::Fits => "fits",
            Fit::Tight => "tight",
            Fit::DoesNotFit => "does-not-fit",
        }
    }
}

/// Whether an estimate fits a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The vendor figure, in binary units.
    pub gpu_memory_bytes: u64,
    /// What CUDA exposes (measured, or bounded from the vendor figure).
    pub device_bytes: u64,
    /// The engine's budget on each GPU: what the need is held against.
    pub usable_bytes: u64,
    /// What the budget must hold on each GPU.
    pub need_bytes: u64,
    /// Whether the estimate falls inside (`tight` verdicts included, on their side).
    pub fits: bool,
    /// Bytes missing per GPU (0 when it fits).
    pub shortfall_bytes: u64,
    pub verdict: Fit,
    /// Usable minus need, on the tighter of the budget and the share it leaves.
    pub margin_bytes: i64,
    /// The margin as a share of usable memory.
    pub margin_share: f64,
    /// The estimate's own error: margins within ± this are `tight`.
    pub band_bytes: u64,
}

/// The verdict of an estimate for request `r` on a GPU.
pub fn verdict(e: &Estimate, r: &Request, gpu: &gpulint_facts::Gpu) -> Verdict {
    let device = gpu.usable_bytes() as f64;
    let u = r.utilization();
    let p = &e.per_gpu;
    let budget = engine::engine(r.serve.engine)
        .filter(|_| r.training.is_none())
        .map(|f| f.budget);
    let (usable, need) = match budget {
        // TensorRT-LLM gives the KV cache a share of what is free once the rest is loaded.
        Some(Budget::Free) => {
            let fixed = (p.total_bytes - p.kv_cache_bytes) as f64;
            (fixed + u * (device - fixed).max(0.0), p.total_bytes as f64)
        }
        Some(Budget::Static) => (device * u, (p.weights_bytes + p.kv_cache_bytes) as f64),
        _ => (device * u, p.total_bytes as f64),
    };
    // The share the budget leaves must hold what lives outside it (CUDA context, graphs):
    // the engine's default leaves room for them by design, so that share decides the
    // margin only when it runs short.
    let outside = device - usable - e.outside_bytes as f64;
    let margin = if outside < 0.0 {
        (usable - need).min(outside)
    } else {
        usable - need
    };
    let b = engine::band();
    let share = if r.training.is_some() {
        b.training_share
    } else {
        b.inference_share
    };
    let mut band = (usable * share).max(b.min_bytes as f64);
    if e.proxy.is_some() {
        band += b.proxy_share * (p.kv_cache_bytes + p.activation_bytes) as f64;
    }
    let fit = if margin >= band {
        Fit::Fits
    } else if margin < -band {
        Fit::DoesNotFit
    } else {
        Fit::Tight
    };
    Verdict {
        gpu_memory_bytes: gpu.memory_bytes(),
        device_bytes: device as u64,
        usable_bytes: usable.max(0.0) as u64,
        need_bytes: need as u64,
        fits: margin >= 0.0,
        shortfall_bytes: (-margin).max(0.0).ceil() as u64,
        verdict: fit,
        margin_bytes: margin.round() as i64,
        margin_share: if usable > 0.0 { margin / usable } else { -1.0 },
        band_bytes: band.ceil() as u64,
    }
}

/// `1.5 GiB` / `820 MiB`: binary units, said explicitly.
pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.0} MiB", b / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    //! Published numbers, compared in the unit each source used (memory-math.md §0).
    use super::models::{registry, resolve};
    use super::*;

    fn spec(id: &str) -> &'static ModelSpec {
        registry().iter().find(|m| m.id == id).unwrap()
    }

    fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
    }

    /// ZeRO paper (arXiv 1910.02054) Fig. 1: Ψ = 7.5B, Nd = 64, mixed-precision Adam,
    /// decimal GB: 120 / 31.4 / 16.6 / 1.9.
    #[test]
    fn zero_paper_7_5b_example() {
        let states = state_bytes_per_param(Optimizer::Adam, Precision::Bf16);
        close(states.0 + states.1 + states.2, 16.0, 0.0);
        close(states.2, 12.0, 0.0);
        let gb = |stage| {
            let (w, g, o) = zero_states(states, 7.5e9, stage, 64);
            (w + g + o) / 1e9
        };
        close(gb(0), 120.0, 0.05);
        close(gb(1), 31.4, 0.05);
        close(gb(2), 16.6, 0.05);
        close(gb(3), 1.9, 0.05);
    }

    /// ZeRO paper Table 1, Nd = 1024, 1T parameters: ZeRO-3 = 15.6 GB.
    #[test]
    fn zero_paper_trillion_parameters() {
        let states = state_bytes_per_param(Optimizer::Adam, Precision::Bf16);
        let (w, g, o) = zero_states(states, 1e12, 3, 1024);
        close((w + g + o) / 1e9, 15.6, 0.05);
    }

    /// NVIDIA inference blog: Llama 2 7B, 16-bit, batch 1, 4096 tokens: "~2 GB" = 2 GiB.
    #[test]
    fn kv_llama2_7b_nvidia_blog() {
        let s = spec("meta-llama/Llama-2-7b-hf");
        close(kv_bytes_per_token(s, Precision::Fp16), 524_288.0, 0.0);
        close(
            kv_bytes_per_token(s, Precision::Fp16) * 4096.0,
            2.0 * GIB,
            0.0,
        );
    }

    /// Databricks Table 3: Llama-2-70B, 1024 tokens, GiB: 0.312 (batch 1), 20 (batch 64);
    /// Int8 halves it.
    #[test]
    fn kv_llama2_70b_databricks() {
        let s = spec("meta-llama/Llama-2-70b-hf");
        let one = kv_bytes_per_token(s, Precision::Fp16) * 1024.0 / GIB;
        close(one, 0.312, 0.001);
        close(one * 64.0, 20.0, 0.001);
        close(
            kv_bytes_per_token(s, Precision::Int8) * 1024.0 / GIB,
            0.156,
            0.001,
        );
    }

    /// HF Llama 3.1 blog KV table (GiB labelled GB): 8B at 1024 tokens = 0.125.
    #[test]
    fn kv_llama31_8b_hf_blog() {
        let s = spec("meta-llama/Llama-3.1-8B");
        close(
            kv_bytes_per_token(s, Precision::Bf16) * 1024.0 / GIB,
            0.125,
            0.0,
        );
    }

    /// DeepSeek-V3 MLA: 61 × 576 × 2 = 70,272 B/token; 128K tokens = 8.58 GiB, replicated
    /// on every TP rank.
    #[test]
    fn kv_deepseek_mla() {
        let s = spec("deepseek-ai/DeepSeek-V3");
        close(kv_bytes_per_token(s, Precision::Bf16), 70_272.0, 0.0);
        close(kv_bytes_per_token(s, Precision::Fp8), 35_136.0, 0.0);
        let per_gpu = kv_bytes_per_gpu(s, Precision::Bf16, 131_072.0, 8, 1);
        close(per_gpu / GIB, 8.58, 0.005);
    }

    /// vLLM replicates KV heads when tp > kv heads (§2.4); pipeline stages split layers.
    #[test]
    fn kv_under_parallelism() {
        let s = spec("meta-llama/Llama-3.1-70B"); // 8 KV heads
        let full = kv_bytes_per_token(s, Precision::Bf16);
        close(
            kv_bytes_per_gpu(s, Precision::Bf16, 1.0, 4, 1),
            full / 4.0,
            0.0,
        );
        close(
            kv_bytes_per_gpu(s, Precision::Bf16, 1.0, 8, 1),
            full / 8.0,
            0.0,
        );
        close(
            kv_bytes_per_gpu(s, Precision::Bf16, 1.0, 16, 1),
            full / 8.0,
            0.0,
        );
        close(
            kv_bytes_per_gpu(s, Precision::Bf16, 1.0, 1, 2),
            full / 2.0,
            0.0,
        );
    }

    /// HF Llama 3.1 blog weight table, nominal P, decimal GB: 8B → 16, 70B → 140,
    /// 405B → 810 (bf16); FP8 70B → 70; INT4 → 4 / 35 / 203.
    #[test]
    fn weights_hf_llama31_blog() {
        let gb = |p: f64, prec| weight_bytes(p, None, prec, Quant::None, 0.0) / 1e9;
        close(gb(8e9, Precision::Bf16), 16.0, 0.0);
        close(gb(70e9, Precision::Bf16), 140.0, 0.0);
        close(gb(405e9, Precision::Bf16), 810.0, 0.0);
        close(gb(70e9, Precision::Fp8), 70.0, 0.0);
        close(gb(8e9, Precision::Int4), 4.0, 0.0);
        close(gb(70e9, Precision::Int4), 35.0, 0.0);
        close(gb(405e9, Precision::Int4), 203.0, 0.5);
    }

    /// HF Mixtral blog: 46.7B total → fp16 "> 90 GB", 8-bit "> 45 GB", 4-bit "> 23 GB".
    #[test]
    fn weights_mixtral_hf_blog() {
        let p = spec("mistralai/Mixtral-8x7B-v0.1").params;
        let gb = |prec| weight_bytes(p, None, prec, Quant::None, 0.0) / 1e9;
        assert!(gb(Precision::Fp16) > 90.0 && gb(Precision::Fp16) < 95.0);
        assert!(gb(Precision::Int8) > 45.0 && gb(Precision::Int8) < 47.5);
        assert!(gb(Precision::Int4) > 23.0 && gb(Precision::Int4) < 24.0);
    }

    /// Group overhead (§1.2): GPTQ/AWQ g128 ≈ 4.16 bpw; NF4 + double quant = 4.127 bpw.
    #[test]
    fn quantization_overhead() {
        close(bits_per_weight(Precision::Int4, Quant::Gptq), 4.16, 0.005);
        close(bits_per_weight(Precision::Int4, Quant::Awq), 4.16, 0.005);
        close(bits_per_weight(Precision::Int4, Quant::Nf4), 4.127, 0.0005);
        close(bits_per_weight(Precision::Int4, Quant::None), 4.0, 0.0);
        // With a known architecture the embeddings stay 16-bit.
        let s = spec("meta-llama/Llama-3.1-70B");
        let fp8 = weight_bytes(s.params, Some(s), Precision::Fp8, Quant::None, 0.0);
        close(
            fp8,
            s.params - s.embedding_params() + 2.0 * s.embedding_params(),
            1.0,
        );
    }

    /// LoRA paper §4.2: GPT-3 175B with frozen fp16 weights ≈ 350 GB.
    #[test]
    fn lora_frozen_weights() {
        close(
            weight_bytes(175e9, None, Precision::Fp16, Quant::None, 0.0) / 1e9,
            350.0,
            0.0,
        );
    }

    /// Korthikanti et al. §4: no parallelism, no recomputation = s·b·h·(34 + 5as/h) per
    /// layer; full recomputation = 2·s·b·h.
    #[test]
    fn megatron_activations() {
        let s = spec("meta-llama/Llama-2-7b-hf");
        let (seq, b, h, a) = (2048.0, 1.0, 4096.0, 32.0);
        let per_layer = seq * b * h * (34.0 + 5.0 * a * seq / h);
        close(
            activation_bytes(s, seq, b, 1, Recompute::None, Attention::Eager),
            per_layer * 32.0,
            1.0,
        );
        close(
            activation_bytes(s, seq, b, 1, Recompute::Selective, Attention::Eager),
            seq * b * h * 34.0 * 32.0,
            1.0,
        );
        close(
            activation_bytes(s, seq, b, 1, Recompute::Full, Attention::Eager),
            2.0 * seq * b * h * 32.0,
            1.0,
        );
    }

    #[test]
    fn inference_estimate_divides_by_tensor_parallel() {
        let r = resolve("meta-llama/Llama-3.1-70B-Instruct").unwrap();
        let req = Request {
            params: r.params,
            spec: r.spec,
            precision: Precision::Bf16,
            quant: Quant::None,
            kv_precision: Precision::Bf16,
            context: Some(8192),
            batch: 1,
            tp: 4,
            pp: 1,
            gpus: 4,
            training: None,
            serve: Serve {
                engine: EngineKind::None,
                ..Serve::default()
            },
            training_utilization: None,
            kept_16bit: 0.0,
        };
        let e = estimate(&req, None);
        assert_eq!(e.total.weights_bytes, 141_100_000_000);
        assert_eq!(e.per_gpu.weights_bytes, 35_275_000_000);
        assert_eq!(e.total.kv_cache_bytes, 327_680 * 8192);
        assert_eq!(e.per_gpu.kv_cache_bytes, 327_680 * 8192 / 4);
        assert_eq!(e.total.overhead_bytes, 4 * (1 << 30));
        let sum = e.per_gpu.weights_bytes + e.per_gpu.kv_cache_bytes + e.per_gpu.overhead_bytes;
        assert_eq!(e.per_gpu.total_bytes, sum);
    }

    #[test]
    fn training_estimate_follows_zero() {
        let req = Request {
            params: 7.5e9,
            spec: None,
            precision: Precision::Bf16,
            quant: Quant::None,
            kv_precision: Precision::Bf16,
            context: None,
            batch: 1,
            tp: 1,
            pp: 1,
            gpus: 64,
            training: Some(Training {
                optimizer: Optimizer::Adam,
                zero: 1,
                method: Method::Full,
                lora_rank: 8,
                recompute: Recompute::None,
                attention: Attention::Flash,
                accounting: Accounting::Paper,
            }),
            serve: Serve::default(),
            training_utilization: None,
            kept_16bit: 0.0,
        };
        let e = estimate(&req, None);
        assert_eq!(
            e.total.weights_bytes + e.total.gradients_bytes + e.total.optimizer_bytes,
            120_000_000_000
        );
        let states =
            e.per_gpu.weights_bytes + e.per_gpu.gradients_bytes + e.per_gpu.optimizer_bytes;
        close(states as f64 / 1e9, 31.4, 0.05);
        assert_eq!(e.per_gpu.activation_bytes, 0, "no context given");
    }

    fn request(params: f64) -> Request {
        Request {
            params,
            spec: None,
            precision: Precision::Bf16,
            quant: Quant::None,
            kept_16bit: 0.0,
            kv_precision: Precision::Bf16,
            context: None,
            batch: 1,
            tp: 1,
            pp: 1,
            gpus: 1,
            training: None,
            serve: Serve {
                engine: EngineKind::None,
                utilization: Some(0.9),
                ..Serve::default()
            },
            training_utilization: None,
        }
    }

    #[test]
    fn verdict_reports_the_shortfall_and_the_band() {
        let l4 = gpulint_facts::catalog().gpu("l4").unwrap();
        let e = |need: f64| Estimate {
            total: Breakdown::default(),
            per_gpu: Breakdown::new(need, 0.0, 0.0, 0.0, 0.0, 0.0),
            outside_bytes: 0,
            peak: None,
            proxy: None,
            notes: Vec::new(),
            lower_bound: false,
        };
        let r = request(1e9);
        let usable = (l4.usable_bytes() as f64 * 0.9).floor();
        let v = verdict(&e(30e9), &r, l4);
        assert_eq!(v.verdict, Fit::DoesNotFit);
        assert!(!v.fits);
        assert_eq!(v.shortfall_bytes, (30e9 - usable).ceil() as u64);
        assert!(v.usable_bytes <= v.device_bytes && v.device_bytes <= v.gpu_memory_bytes);
        // Within the band either side: tight, `fits` on the side the estimate falls.
        let just_over = verdict(&e(usable + 1e8), &r, l4);
        assert_eq!((just_over.verdict, just_over.fits), (Fit::Tight, false));
        let just_under = verdict(&e(usable - 1e8), &r, l4);
        assert_eq!((just_under.verdict, just_under.fits), (Fit::Tight, true));
        assert_eq!(verdict(&e(10e9), &r, l4).verdict, Fit::Fits);
    }

    /// An unknown architecture still holds a KV cache: a known one of its size stands in,
    /// and the band widens by half of what rests on it.
    #[test]
    fn unknown_architectures_never_drop_the_kv_cache() {
        let mut r = request(14e9);
        r.context = Some(32_768);
        let e = estimate(&r, None);
        let proxy = e.proxy.expect("a stand-in architecture");
        assert!(e.per_gpu.kv_cache_bytes > 0);
        assert!(proxy.params >= 7e9 && proxy.params <= 28e9, "{}", proxy.id);
        let l4 = gpulint_facts::catalog().gpu("h100").unwrap();
        let known = {
            let mut k = request(14e9);
            k.spec = Some(spec("Qwen/Qwen2.5-14B"));
            k.context = Some(32_768);
            verdict(&estimate(&k, None), &k, l4).band_bytes
        };
        assert!(verdict(&e, &r, l4).band_bytes > known);
    }

    /// vLLM's profile: the activation peak grows with the batch it is told, and the CUDA
    /// context and graphs sit outside its budget; `--enforce-eager` drops the graphs.
    #[test]
    fn vllm_start_up_terms_follow_its_flags() {
        let mut r = request(8.03e9);
        r.spec = Some(spec("meta-llama/Llama-3.1-8B"));
        r.context = Some(8192);
        r.serve = Serve::default();
        let h100 = gpulint_facts::catalog().gpu("h100");
        let base = estimate(&r, h100);
        assert_eq!(base.peak.map(|p| (p.tokens, p.seqs)), Some((8192, 1024)));
        // The llm-d-planner log: 1.89 GiB of activation peak on an H100.
        close(base.per_gpu.activation_bytes as f64 / GIB, 1.89, 0.2);
        r.serve.max_num_seqs = Some(16);
        let fewer = estimate(&r, h100);
        assert!(fewer.per_gpu.activation_bytes < base.per_gpu.activation_bytes);
        r.serve.enforce_eager = true;
        assert!(estimate(&r, h100).outside_bytes < base.outside_bytes);
    }
}
