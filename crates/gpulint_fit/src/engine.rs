//! Serving engines at start-up: the share of the GPU they budget, what they measure or
//! reserve before sizing the KV cache, and their defaults, from `data/engines.toml`.
//!
//! Every engine first loads the weights, then runs (or reserves) a forward pass at its
//! largest batch of tokens, then gives what is left of its budget to the KV cache. It
//! refuses to start when one sequence of the longest context does not fit. Engines differ
//! in what the budget is a share of:
//! - vLLM and NIM: of the device total; weights, the activation peak, the memory outside
//!   PyTorch and the KV cache are inside it, the CUDA context and graphs outside;
//! - TGI: of the device total too, but it sizes the KV cache from what is free after
//!   warm-up, so the CUDA context counts inside;
//! - SGLang: of the device total, for weights and the KV cache only; activations, graphs and
//!   the context live in the rest;
//! - TensorRT-LLM: of the memory still free once weights and activations are allocated.

// Token and byte counts stay far below 2^52, where f64 is exact for integers.
#![allow(clippy::cast_precision_loss)]

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::GIB;
use super::models::ModelSpec;

const ENGINES: &str = include_str!("data/engines.toml");

/// The inference server whose start-up `fit` models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    #[default]
    Vllm,
    Tgi,
    Sglang,
    Trtllm,
    Nim,
    /// No engine: weights, KV cache and the CUDA context only (plain PyTorch).
    None,
}

impl EngineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Vllm => "vllm",
            EngineKind::Tgi => "tgi",
            EngineKind::Sglang => "sglang",
            EngineKind::Trtllm => "trtllm",
            EngineKind::Nim => "nim",
            EngineKind::None => "none",
        }
    }
}

/// What the engine's budget is a share of (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Budget {
    Device,
    Static,
    Free,
}

/// Default batch sizes, by the device memory they apply from.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchDefault {
    /// Applies on devices with at least this much memory (GiB).
    pub min_device_gib: f64,
    /// Tokens of the largest forward pass (vLLM `max_num_batched_tokens`, TGI
    /// `max_batch_prefill_tokens`, SGLang `chunked_prefill_size`, TensorRT-LLM `max_num_tokens`).
    pub tokens: u64,
    /// Sequences sampled at once (vLLM `max_num_seqs`).
    pub seqs: u64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineFacts {
    pub name: String,
    pub budget: Budget,
    /// The default share (`gpu_memory_utilization`, `mem_fraction_static`,
    /// `cuda_memory_fraction`, `free_gpu_memory_fraction`).
    pub utilization: f64,
    /// The flag that sets `utilization`.
    pub utilization_flag: String,
    /// Memory allocated outside PyTorch inside the budget (cuBLAS workspaces, NCCL
    /// buffers), one GPU; and extra with tensor parallel > 1.
    pub non_torch_bytes: u64,
    pub non_torch_tp_bytes: u64,
    /// The same on GPUs joined only by PCIe (no NVLink SHARP or NVLink all-reduce buffers).
    pub non_torch_tp_pcie_bytes: u64,
    /// CUDA graphs, captured after the KV cache is sized (0 with eager mode): a base and
    /// a share per layer on the GPU.
    pub graph_bytes: u64,
    pub graph_layer_bytes: u64,
    /// The CUDA context (and NCCL's, with parallel ranks) before the engine measures
    /// memory; and extra with tensor or pipeline parallel > 1.
    pub context_bytes: u64,
    pub context_tp_bytes: u64,
    pub context_tp_pcie_bytes: u64,
    /// Whether the CUDA context counts inside the budget (TGI and TensorRT-LLM size the KV
    /// cache from what is free) or outside it (vLLM budgets a share of the total).
    pub context_inside: bool,
    pub batch: Vec<BatchDefault>,
    pub source: String,
}

/// The per-token shape of a forward pass at its peak, 16-bit activations.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActivationFacts {
    /// Bytes per element of activations.
    pub bytes: f64,
    /// Hidden-size vectors alive at the MLP peak (residual, normed input).
    pub hidden_copies: f64,
    /// Copies of each routed expert's intermediate per token and rank (MoE kernels'
    /// workspaces).
    pub expert_copies: f64,
    /// fp32 copies of the logits the sampler holds for each sequence.
    pub sampler_copies: f64,
    pub source: String,
}

/// How wide the estimate's own error is (see README "How sure is `fit`").
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandFacts {
    /// Inference: share of usable memory, and a floor in bytes.
    pub inference_share: f64,
    pub training_share: f64,
    pub min_bytes: u64,
    /// Share of the KV cache and activations added when they rest on a proxy architecture.
    pub proxy_share: f64,
    pub source: String,
}

/// A value of `engines.toml` with its source.
#[derive(Deserialize)]
struct Sourced<T> {
    #[serde(flatten)]
    value: T,
    #[allow(dead_code)]
    source: String,
}

#[derive(Deserialize)]
struct Bytes {
    bytes: u64,
}

#[derive(Deserialize)]
struct Bits {
    bits: f64,
}

#[derive(Deserialize)]
struct Facts {
    cuda_context: Sourced<Bytes>,
    quant: HashMap<String, Sourced<Bits>>,
    serving: HashMap<String, EngineFacts>,
    activation: ActivationFacts,
    band: BandFacts,
}

fn facts() -> &'static Facts {
    static F: OnceLock<Facts> = OnceLock::new();
    F.get_or_init(|| toml::from_str(ENGINES).expect("engines.toml is valid (tested)"))
}

pub(super) fn cuda_context() -> f64 {
    facts().cuda_context.value.bytes as f64
}

pub(super) fn quant_bits(name: &str) -> f64 {
    facts().quant[name].value.bits
}

pub fn band() -> &'static BandFacts {
    &facts().band
}

pub fn activation() -> &'static ActivationFacts {
    &facts().activation
}

/// An engine's facts; `None` for [`EngineKind::None`].
pub fn engine(kind: EngineKind) -> Option<&'static EngineFacts> {
    facts().serving.get(kind.as_str())
}

/// How a server is told to run (defaults from the engine's facts where `None`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Serve {
    pub engine: EngineKind,
    pub utilization: Option<f64>,
    pub max_num_batched_tokens: Option<u64>,
    pub max_num_seqs: Option<u64>,
    pub enforce_eager: bool,
}

impl Serve {
    /// The share of memory the engine budgets.
    pub fn utilization(&self) -> f64 {
        self.utilization
            .or_else(|| engine(self.engine).map(|e| e.utilization))
            .unwrap_or(1.0)
    }

    /// Tokens and sequences of the engine's largest forward pass on a device of
    /// `device` bytes (vLLM's defaults depend on it).
    pub fn batch(&self, device: Option<u64>) -> (u64, u64) {
        let Some(e) = engine(self.engine) else {
            return (0, 0);
        };
        let gib = device.map_or(0.0, |d| d as f64 / GIB);
        let d = e
            .batch
            .iter()
            .rev()
            .find(|b| gib >= b.min_device_gib)
            .or(e.batch.first());
        let (tokens, seqs) = d.map_or((0, 0), |b| (b.tokens, b.seqs));
        let tokens = self.max_num_batched_tokens.unwrap_or(tokens);
        // The profile samples one token of each dummy sequence: no more than its tokens.
        (tokens, self.max_num_seqs.unwrap_or(seqs).min(tokens))
    }
}

/// Activation bytes per token on one tensor-parallel rank at the profile's peak: copies of
/// the hidden state, and for an MoE the workspaces of the `experts_per_token` experts each
/// token goes through (fitted: see `[activation]` in `engines.toml`).
pub fn activation_per_token(spec: &ModelSpec, tp: u32) -> f64 {
    let a = activation();
    let h = spec.hidden as f64;
    let experts = match (spec.experts_per_token, spec.intermediate) {
        (Some(k), Some(i)) => a.expert_copies * f64::from(k) * i as f64 / f64::from(tp.max(1)),
        _ => 0.0,
    };
    a.bytes * (a.hidden_copies * h + experts)
}

/// The sampler's fp32 logits for `seqs` sequences over the whole vocabulary.
pub fn sampler_bytes(spec: &ModelSpec, seqs: u64) -> f64 {
    seqs as f64 * spec.vocab as f64 * 4.0 * activation().sampler_copies
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_has_facts_and_defaults() {
        for kind in [
            EngineKind::Vllm,
            EngineKind::Tgi,
            EngineKind::Sglang,
            EngineKind::Trtllm,
            EngineKind::Nim,
        ] {
            let e = engine(kind).unwrap_or_else(|| panic!("{kind:?}"));
            assert!(!e.source.is_empty() && !e.batch.is_empty(), "{kind:?}");
            assert!(e.utilization > 0.0 && e.utilization <= 1.0, "{kind:?}");
        }
        assert!(engine(EngineKind::None).is_none());
    }

    #[test]
    fn vllm_batch_defaults_follow_device_memory() {
        let s = Serve::default();
        let small = s.batch(Some(24 << 30));
        let large = s.batch(Some(80 << 30));
        assert!(large.0 >= small.0 && large.1 >= small.1);
        let told = Serve {
            max_num_batched_tokens: Some(512),
            max_num_seqs: Some(4),
            ..Serve::default()
        };
        assert_eq!(told.batch(Some(80 << 30)), (512, 4));
    }
}
