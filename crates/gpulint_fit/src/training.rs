//! Training memory (memory-math.md, training sections): optimizer states, ZeRO sharding,
//! activations with recomputation, logits, LoRA adapters, and the training settings of a
//! request.

use serde::Serialize;

use super::Precision;
use crate::models::ModelSpec;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    Adam,
    Sgd,
    Adam8bit,
}

/// Bytes per parameter of weights, gradients and optimizer states (§4.1). Mixed precision
/// follows the ZeRO paper (2 + 2 + K; K = 12 for Adam); fp32 training keeps 4-byte
/// weights and gradients.
pub fn state_bytes_per_param(optimizer: Optimizer, precision: Precision) -> (f64, f64, f64) {
    let fp32 = precision == Precision::Fp32;
    let (w, g) = if fp32 { (4.0, 4.0) } else { (2.0, 2.0) };
    // The fp32 master copy is part of the optimizer in mixed precision.
    let master = if fp32 { 0.0 } else { 4.0 };
    let opt = match optimizer {
        Optimizer::Adam => 8.0,     // momentum + variance
        Optimizer::Sgd => 4.0,      // momentum
        Optimizer::Adam8bit => 2.0, // 8-bit momentum + variance
    };
    (w, g, master + opt)
}

/// Per-GPU model states under ZeRO stage `stage` over `dp` data-parallel ranks (§4.3):
/// stage 1 shards the optimizer, 2 also the gradients, 3 also the weights (FSDP
/// `FULL_SHARD` is stage 3).
pub fn zero_states(states: (f64, f64, f64), params: f64, stage: u8, dp: u32) -> (f64, f64, f64) {
    let n = f64::from(dp.max(1));
    let (w, g, o) = (states.0 * params, states.1 * params, states.2 * params);
    (
        if stage >= 3 { w / n } else { w },
        if stage >= 2 { g / n } else { g },
        if stage >= 1 { o / n } else { o },
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Recompute {
    None,
    Selective,
    Full,
}

/// How attention is computed in training: fused kernels (FlashAttention, PyTorch SDPA),
/// the default of current trainers, never hold the `s × s` scores; eager attention does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Attention {
    #[default]
    Flash,
    Eager,
}

/// Whose accounting of ZeRO-3 model states to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Accounting {
    /// The ZeRO paper: 16 bytes per parameter over the data-parallel ranks (§4.3).
    #[default]
    Paper,
    /// DeepSpeed's `estimate_zero3_model_states_mem_needs`: 18 bytes per parameter over
    /// the GPUs plus 4 bytes per parameter of the largest layer.
    Deepspeed,
}

/// Training activations on one GPU (§4.4, Korthikanti et al. Table 2), 16-bit, per layer
/// `s·b·h·(10 + 24/t + 5·a·s/(h·t))`; fused attention and selective recomputation drop the
/// `5·a·s/(h·t)` scores, full recomputation keeps only each layer's input (`2·s·b·h`).
/// Pipeline stages with 1F1B hold the activations of all layers in total on the first
/// stage. The logits come on top ([`logit_bytes`]).
pub fn activation_bytes(
    spec: &ModelSpec,
    seq: f64,
    batch: f64,
    tp: u32,
    recompute: Recompute,
    attention: Attention,
) -> f64 {
    let (s, b, h, a, t) = (
        seq,
        batch,
        spec.hidden as f64,
        f64::from(spec.heads),
        f64::from(tp.max(1)),
    );
    let per_layer = match (recompute, attention) {
        (Recompute::None, Attention::Eager) => {
            s * b * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t))
        }
        (Recompute::None | Recompute::Selective, _) => s * b * h * (10.0 + 24.0 / t),
        (Recompute::Full, _) => 2.0 * s * b * h,
    };
    per_layer * f64::from(spec.layers)
}

/// Training logits (§3.1, §4.4): `batch × seq × vocab` in fp32 and their gradient, split
/// over the tensor-parallel ranks (vocabulary-parallel output layer).
pub fn logit_bytes(spec: &ModelSpec, seq: f64, batch: f64, tp: u32) -> f64 {
    seq * batch * spec.vocab as f64 * 8.0 / f64::from(tp.max(1))
}

/// DeepSpeed's ZeRO-3 model states per GPU without offload
/// (`estimate_zero3_model_states_mem_needs`): `18 · P / gpus + 4 · largest layer`.
pub fn deepspeed_zero3_bytes(spec: Option<&ModelSpec>, params: f64, gpus: u32) -> f64 {
    18.0 * params / f64::from(gpus.max(1)) + 4.0 * spec.map_or(0.0, ModelSpec::largest_layer)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Full,
    Lora,
    Qlora,
}

/// LoRA adapter parameters (§4.2): rank `r` on the query and value projections, PEFT's
/// default targets for Llama-style models.
pub fn lora_params(spec: &ModelSpec, rank: u32) -> f64 {
    let h = spec.hidden as f64;
    let q_out = f64::from(spec.heads) * f64::from(spec.head_dim);
    let v_out = f64::from(spec.kv_heads) * f64::from(spec.head_dim);
    f64::from(spec.layers) * f64::from(rank) * ((h + q_out) + (h + v_out))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Training {
    pub optimizer: Optimizer,
    pub zero: u8,
    pub method: Method,
    pub lora_rank: u32,
    pub recompute: Recompute,
    pub attention: Attention,
    pub accounting: Accounting,
}
