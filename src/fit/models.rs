//! The model registry: architecture facts by model name, from `data/models.toml`.
//!
//! Names resolve the way people write them: Hugging Face ids with an organisation or
//! without, in any case, with variant words (`-Instruct`, `-chat`, `-hf`, `-it`) and
//! quantized suffixes (`-AWQ`, `-GPTQ-Int4`, `-FP8`), which also say the precision. An
//! unknown name falls back to a size written in it (`70B`, `8x7B`).

use std::sync::OnceLock;

use serde::Deserialize;

use super::{Precision, Quant};
use crate::catalog::Confidence;

const MODELS: &str = include_str!("data/models.toml");

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub id: String,
    /// All parameters that must be resident (every expert of an MoE).
    pub params: f64,
    /// Parameters used per token (MoE only).
    pub active_params: Option<f64>,
    pub layers: u32,
    pub hidden: u64,
    pub heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub vocab: u64,
    /// `max_position_embeddings`: vLLM's default `max_model_len`.
    pub max_context: u64,
    /// The checkpoint's storage dtype.
    pub dtype: Precision,
    #[serde(default)]
    pub tied_embeddings: bool,
    pub sliding_window: Option<u64>,
    /// MLA (DeepSeek): the compressed latent cached per token and layer.
    pub kv_lora_rank: Option<u32>,
    pub qk_rope_head_dim: Option<u32>,
    pub source: String,
    pub confidence: Confidence,
}

impl ModelSpec {
    /// Embedding (and untied `lm_head`) parameters: left in 16-bit by quantized formats.
    pub fn embedding_params(&self) -> f64 {
        let tables = if self.tied_embeddings { 1.0 } else { 2.0 };
        // Far below 2^52: exact in f64.
        #[allow(clippy::cast_precision_loss)]
        let embed = (self.vocab * self.hidden) as f64;
        embed * tables
    }

    pub fn is_mla(&self) -> bool {
        self.kv_lora_rank.is_some()
    }
}

#[derive(Deserialize)]
struct ModelFile {
    model: Vec<ModelSpec>,
}

static REGISTRY: OnceLock<Vec<ModelSpec>> = OnceLock::new();

fn embedded() -> Vec<ModelSpec> {
    toml::from_str::<ModelFile>(MODELS)
        .expect("the embedded model registry is valid (tested)")
        .model
}

/// The model registry: the embedded models, after any a configuration added with [`extend`].
pub fn registry() -> &'static [ModelSpec] {
    REGISTRY.get_or_init(embedded)
}

/// Adds private models (`[[models]]` in `.gpulint.toml`). They are looked up first, so one
/// with the name of an embedded model replaces it. Must run before the registry is first used.
pub fn extend(extra: Vec<ModelSpec>) -> Result<(), String> {
    let mut all = extra;
    all.extend(embedded());
    REGISTRY
        .set(all)
        .map_err(|_| "the model registry was already in use".to_string())
}

/// A model name resolved to what the memory math needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// The registry row, when the architecture is known.
    pub spec: Option<&'static ModelSpec>,
    pub params: f64,
    /// A precision the name states (`-AWQ`, `-FP8`).
    pub precision: Option<(Precision, Quant)>,
}

/// Words that name a variant of the same architecture.
const VARIANT_WORDS: &[&str] = &[
    "instruct", "chat", "hf", "it", "base", "awq", "gptq", "fp8", "int4", "int8", "bnb", "4bit",
    "8bit", "gguf", "dynamic", "w4a16", "w8a8", "nf4",
];

/// The registry key of a name: the part after the organisation, lower-case, without
/// variant words, and without the `meta-` before `llama` that older ids carry.
fn key(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let mut words: Vec<&str> = base
        .split(['-', '_'])
        .filter(|w| !w.is_empty() && !VARIANT_WORDS.contains(w))
        .collect();
    if words.len() > 1 && words[0] == "meta" && words[1].starts_with("llama") {
        words.remove(0);
    }
    words.join("-")
}

/// The precision a name states, from its quantization words.
fn precision_in(name: &str) -> Option<(Precision, Quant)> {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(['-', '_', '/']).collect();
    let has = |w: &str| words.contains(&w);
    if has("awq") {
        Some((Precision::Int4, Quant::Awq))
    } else if has("gptq") {
        Some(if has("int8") {
            (Precision::Int8, Quant::None)
        } else {
            (Precision::Int4, Quant::Gptq)
        })
    } else if has("bnb") || has("nf4") || has("4bit") {
        Some((Precision::Int4, Quant::Nf4))
    } else if has("fp8") {
        Some((Precision::Fp8, Quant::None))
    } else if has("int8") || has("w8a8") || has("8bit") {
        Some((Precision::Int8, Quant::None))
    } else if has("int4") || has("w4a16") {
        Some((Precision::Int4, Quant::None))
    } else {
        None
    }
}

/// A parameter count written in a name: `70B`, `1.5b`, `8x7B` (experts × size). A number
/// no model has (over 100 trillion, as a fuzzer wrote `144…4B`) is not a size.
fn size_in(name: &str) -> Option<f64> {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    base.split(['-', '_']).find_map(|w| {
        let w = w.strip_suffix('b')?;
        let params = match w.split_once('x') {
            Some((n, size)) => n.parse::<f64>().ok()? * size.parse::<f64>().ok()? * 1e9,
            None => w.parse::<f64>().ok()? * 1e9,
        };
        (params > 0.0 && params <= 1e14).then_some(params)
    })
}

/// Resolves a model name, or `None` when neither the registry nor the name gives a size.
pub fn resolve(name: &str) -> Option<Resolved> {
    let k = key(name);
    let precision = precision_in(name);
    if let Some(spec) = registry().iter().find(|m| key(&m.id) == k) {
        return Some(Resolved {
            spec: Some(spec),
            params: spec.params,
            precision,
        });
    }
    Some(Resolved {
        spec: None,
        params: size_in(name)?,
        precision,
    })
}

/// A parameter count as users write it: `70B`, `7.5e9`, `125M`, `1.8T`.
pub fn parse_count(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, scale) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1e3),
        (i, 'm' | 'M') => (&s[..i], 1e6),
        (i, 'b' | 'B') => (&s[..i], 1e9),
        (i, 't' | 'T') => (&s[..i], 1e12),
        _ => (s, 1.0),
    };
    let v = num.trim().parse::<f64>().ok()? * scale;
    (v.is_finite() && v > 0.0).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_no_model_has_is_not_a_size() {
        assert_eq!(size_in("acme/chat-34B"), Some(34e9));
        assert_eq!(size_in("acme/moe-8x7B"), Some(56e9));
        assert_eq!(size_in("Qwen2.5-144444444444444444444B-Instruct"), None);
        assert_eq!(size_in("acme/chat-0B"), None);
    }

    #[test]
    fn registry_loads_every_row_with_a_source() {
        let r = registry();
        assert!(r.len() >= 30);
        for m in r {
            assert!(!m.source.is_empty(), "{}", m.id);
            assert!(m.params > 1e8, "{}", m.id);
            assert!(m.kv_heads <= m.heads, "{}", m.id);
        }
    }

    #[test]
    fn variants_resolve_to_their_architecture() {
        let id = |n: &str| resolve(n).unwrap().spec.map(|s| s.id.as_str());
        assert_eq!(
            id("meta-llama/Llama-3.1-70B-Instruct"),
            Some("meta-llama/Llama-3.1-70B")
        );
        assert_eq!(
            id("meta-llama/Meta-Llama-3.1-70B-Instruct"),
            Some("meta-llama/Llama-3.1-70B")
        );
        assert_eq!(id("llama-3.1-70b"), Some("meta-llama/Llama-3.1-70B"));
        assert_eq!(
            id("meta-llama/Llama-2-7b-chat-hf"),
            Some("meta-llama/Llama-2-7b-hf")
        );
        assert_eq!(
            id("mistralai/Mistral-7B-Instruct-v0.3"),
            Some("mistralai/Mistral-7B-v0.3")
        );
        assert_eq!(
            id("mistralai/Mixtral-8x7B-Instruct-v0.1"),
            Some("mistralai/Mixtral-8x7B-v0.1")
        );
        assert_eq!(id("google/gemma-2-9b-it"), Some("google/gemma-2-9b"));
        assert_eq!(
            id("Qwen/Qwen2.5-72B-Instruct-AWQ"),
            Some("Qwen/Qwen2.5-72B")
        );
        assert_eq!(
            id("mistralai/Mistral-Nemo-Instruct-2407"),
            Some("mistralai/Mistral-Nemo-Base-2407")
        );
    }

    #[test]
    fn quantized_names_say_their_precision() {
        let p = |n: &str| resolve(n).unwrap().precision;
        assert_eq!(
            p("Qwen/Qwen2.5-72B-Instruct-AWQ"),
            Some((Precision::Int4, Quant::Awq))
        );
        assert_eq!(
            p("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4"),
            Some((Precision::Int4, Quant::Gptq))
        );
        assert_eq!(
            p("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8"),
            Some((Precision::Int8, Quant::None))
        );
        assert_eq!(
            p("meta-llama/Llama-3.1-405B-Instruct-FP8"),
            Some((Precision::Fp8, Quant::None))
        );
        assert_eq!(
            p("unsloth/llama-3-8b-bnb-4bit"),
            Some((Precision::Int4, Quant::Nf4))
        );
        assert_eq!(p("meta-llama/Llama-3.1-8B"), None);
    }

    #[test]
    fn unknown_names_fall_back_to_a_size_in_the_name() {
        let r = resolve("acme/SuperModel-34B-Instruct").unwrap();
        assert!(r.spec.is_none());
        assert!((r.params - 34e9).abs() < 1.0);
        assert!((resolve("acme/moe-8x22b").unwrap().params - 176e9).abs() < 1.0);
        assert!((resolve("acme/tiny-1.5b").unwrap().params - 1.5e9).abs() < 1.0);
        assert!(resolve("acme/mystery").is_none());
    }

    #[test]
    fn counts_parse_with_suffixes() {
        assert_eq!(parse_count("70B"), Some(70e9));
        assert_eq!(parse_count("7.5e9"), Some(7.5e9));
        assert_eq!(parse_count("125M"), Some(125e6));
        assert_eq!(parse_count("1.8T"), Some(1.8e12));
        assert_eq!(parse_count("x"), None);
        assert_eq!(parse_count("-3B"), None);
    }
}
