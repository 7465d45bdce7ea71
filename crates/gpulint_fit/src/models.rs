//! The model registry: architecture facts by model name, from `data/models.toml`.
//!
//! Names resolve the way people write them: Hugging Face ids with an organisation or
//! without, in any case, with variant words (`-Instruct`, `-chat`, `-hf`, `-it`) and
//! quantized suffixes (`-AWQ`, `-GPTQ-Int4`, `-FP8`), which also say the precision. An
//! unknown name falls back to a size written in it (`70B`, `8x7B`).

use std::sync::OnceLock;

use serde::Deserialize;

use super::{Precision, Quant};
use gpulint_facts::Confidence;

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
    /// `intermediate_size` of the MLP; for an MoE, of one expert (`moe_intermediate_size`).
    pub intermediate: Option<u64>,
    /// MoE: routed experts, and how many each token goes through.
    pub experts: Option<u32>,
    pub experts_per_token: Option<u32>,
    /// Vision-language models: the vision tower's parameters (included in `params`).
    pub vision_params: Option<f64>,
    /// Weights as the published checkpoint loads them, where it mixes formats the
    /// precision cannot say (gpt-oss: MXFP4 experts, BF16 attention); used at `dtype`.
    pub weight_bytes: Option<f64>,
    pub heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub vocab: u64,
    /// `max_position_embeddings`: vLLM's default `max_model_len`.
    pub max_context: u64,
    /// `max_position_embeddings` of the instruction-tuned checkpoints (`-Instruct`) when
    /// their config declares another than the base's (Qwen2.5: 32768, reaching 128K only
    /// with the YaRN `rope_scaling` its model card adds by hand).
    #[serde(default)]
    pub instruct_max_context: Option<u64>,
    /// The checkpoint's storage dtype.
    pub dtype: Precision,
    #[serde(default)]
    pub tied_embeddings: bool,
    pub sliding_window: Option<u64>,
    /// MLA (DeepSeek): the compressed latent cached per token and layer.
    pub kv_lora_rank: Option<u32>,
    pub qk_rope_head_dim: Option<u32>,
    /// Other names of this architecture: distills, fine-tunes and repackagings whose name
    /// does not carry the base (`DeepSeek-R1-Distill-Qwen-14B` is a Qwen2.5-14B).
    #[serde(default)]
    pub aliases: Vec<String>,
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

    /// Attention projection parameters of one layer (q, k, v, o; MLA models are counted as
    /// their query heads, an upper bound).
    pub fn attention_params(&self) -> f64 {
        let h = self.hidden as f64;
        let q = f64::from(self.heads) * f64::from(self.head_dim);
        let kv = f64::from(self.kv_heads) * f64::from(self.head_dim);
        2.0 * h * q + 2.0 * h * kv
    }

    /// The largest single weight matrix, as DeepSpeed's estimator means "largest layer":
    /// an embedding table or the widest MLP projection.
    pub fn largest_layer(&self) -> f64 {
        let h = self.hidden as f64;
        let inter = self.intermediate.map_or(0.0, |i| i as f64);
        (self.vocab as f64 * h)
            .max(h * inter)
            .max(self.attention_params() / 2.0)
    }
}

#[derive(Deserialize)]
struct ModelFile {
    model: Vec<ModelSpec>,
    #[serde(default)]
    checkpoint: Vec<Checkpoint>,
    #[serde(default)]
    family: Vec<Family>,
}

/// A published quantized checkpoint that keeps more than its embeddings in 16-bit.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    pub name: String,
    pub precision: Precision,
    /// Parts kept in 16-bit: `attention` (every layer's projections) and
    /// `first-last-layers` (the MLPs of the first and the last layer).
    pub keep_16bit: Vec<String>,
    pub source: String,
}

/// A fine-tune family whose names carry its base's size but not its name
/// (`chinese-alpaca-2-7b` is a Llama-2-7B).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// Words as they appear in names (`alpaca-2`).
    pub words: String,
    /// The base family's words (`llama-2`).
    pub base: String,
    pub source: String,
}

static REGISTRY: OnceLock<Vec<ModelSpec>> = OnceLock::new();

/// The embedded file, parsed once (it is the largest data file: parsing is most of a
/// one-file run's cost when a pod serves a model).
fn file() -> &'static ModelFile {
    static FILE: OnceLock<ModelFile> = OnceLock::new();
    FILE.get_or_init(|| {
        toml::from_str::<ModelFile>(MODELS).expect("the embedded model registry is valid (tested)")
    })
}

fn embedded() -> Vec<ModelSpec> {
    file().model.clone()
}

/// The registry's other tables: checkpoints and fine-tune families.
struct Tables {
    checkpoints: &'static [Checkpoint],
    families: &'static [Family],
}

fn tables() -> Tables {
    let f = file();
    Tables {
        checkpoints: &f.checkpoint,
        families: &f.family,
    }
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
    /// Parameters the named checkpoint keeps in 16-bit beyond its embeddings.
    pub kept_16bit: f64,
}

/// Words that name a variant of the same architecture.
const VARIANT_WORDS: &[&str] = &[
    "instruct",
    "chat",
    "hf",
    "it",
    "base",
    "awq",
    "gptq",
    "fp8",
    "int4",
    "int8",
    "bnb",
    "4bit",
    "8bit",
    "gguf",
    "dynamic",
    "w4a16",
    "w8a8",
    "w8a16",
    "nf4",
    "quantized",
    "fp4",
    "nvfp4",
    "marlin",
    "mlx",
    "exl2",
];

/// The words of a name that say what it is: the part after the organisation, lower-case,
/// split at `-` and `_`, without variant words (a word such as `quantized.w8a8` whose
/// dotted parts are all variant words goes too) and without the `meta-` before `llama`
/// that older ids carry. Fine-tune families are rewritten to their base (`alpaca-2` →
/// `llama-2`).
fn words(name: &str) -> Vec<String> {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let mut words: Vec<String> = base
        .split(['-', '_'])
        .filter(|w| !w.is_empty() && !w.split('.').all(|p| VARIANT_WORDS.contains(&p)))
        .map(str::to_string)
        .collect();
    if words.len() > 1 && words[0] == "meta" && words[1].starts_with("llama") {
        words.remove(0);
    }
    for f in tables().families {
        let from: Vec<&str> = f.words.split('-').collect();
        if let Some(i) = find(&words, &from) {
            words.splice(i..i + from.len(), f.base.split('-').map(str::to_string));
        }
    }
    words
}

/// Where `needle` occurs in `hay` as consecutive words.
fn find<S: AsRef<str>>(hay: &[String], needle: &[S]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len())
        .position(|w| w.iter().zip(needle).all(|(a, b)| a == b.as_ref()))
}

/// The registry key of a name: its words joined.
fn key(name: &str) -> String {
    words(name).join("-")
}

/// The precision a name states, from its quantization words.
fn precision_in(name: &str) -> Option<(Precision, Quant)> {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(['-', '_', '/', '.']).collect();
    let has = |w: &str| words.contains(&w);
    if has("awq") {
        Some((Precision::Int4, Quant::Awq))
    } else if has("gptq") {
        Some(if has("int8") || has("8bit") {
            (Precision::Int8, Quant::Gptq)
        } else {
            (Precision::Int4, Quant::Gptq)
        })
    } else if has("w4a16") {
        // Red Hat / Neural Magic `quantized.w4a16` checkpoints are GPTQ, group 128.
        Some((Precision::Int4, Quant::Gptq))
    } else if has("w8a16") {
        Some((Precision::Int8, Quant::Gptq))
    } else if has("nvfp4") || has("fp4") {
        Some((Precision::Int4, Quant::Nvfp4))
    } else if has("bnb") || has("nf4") || has("4bit") {
        Some((Precision::Int4, Quant::Nf4))
    } else if has("fp8") {
        Some((Precision::Fp8, Quant::None))
    } else if has("int8") || has("w8a8") || has("8bit") {
        Some((Precision::Int8, Quant::None))
    } else if has("int4") {
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

/// The registry row a name means: its own id or an alias exactly, else the longest id or
/// alias found inside the name as whole words (`dolphin-2.7-mixtral-8x7b` holds
/// `mixtral-8x7b`).
fn lookup(name: &str) -> Option<&'static ModelSpec> {
    let w = words(name);
    let k = w.join("-");
    let rows = names();
    if let Some((m, _, _)) = rows.iter().find(|(_, key, _)| *key == k) {
        return Some(m);
    }
    rows.iter()
        // A row's name must say more than a family word to be found inside another name.
        .filter(|(_, _, n)| n.len() >= 2 && find(&w, n).is_some())
        .max_by_key(|(_, _, n)| n.iter().map(String::len).sum::<usize>() + n.len())
        .map(|(m, _, _)| *m)
}

/// Every registry row under each of its names (id and aliases): the key and its words,
/// computed once.
fn names() -> &'static [(&'static ModelSpec, String, Vec<String>)] {
    static NAMES: OnceLock<Vec<(&'static ModelSpec, String, Vec<String>)>> = OnceLock::new();
    NAMES.get_or_init(|| {
        registry()
            .iter()
            .flat_map(|m| {
                std::iter::once(m.id.as_str())
                    .chain(m.aliases.iter().map(String::as_str))
                    .map(move |n| {
                        let w = words(n);
                        (m, w.join("-"), w)
                    })
            })
            .collect()
    })
}

/// The context vLLM serves `name` with by default: the config's `max_position_embeddings`
/// of the checkpoint it names (an `-Instruct` checkpoint's own, where the registry has it).
pub fn context_of(name: &str, spec: &ModelSpec) -> u64 {
    match spec.instruct_max_context {
        Some(c)
            if name
                .to_ascii_lowercase()
                .split(['-', '_', '/', '.'])
                .any(|w| w == "instruct") =>
        {
            c
        }
        _ => spec.max_context,
    }
}

/// Resolves a model name, or `None` when neither the registry nor the name gives a size.
pub fn resolve(name: &str) -> Option<Resolved> {
    let precision = precision_in(name);
    if let Some(spec) = lookup(name) {
        return Some(Resolved {
            spec: Some(spec),
            params: spec.params,
            precision,
            kept_16bit: kept_16bit(name, spec, precision.map(|p| p.0)),
        });
    }
    Some(Resolved {
        spec: None,
        params: size_in(name)?,
        precision,
        kept_16bit: 0.0,
    })
}

/// The 16-bit parts a resolved name's checkpoint keeps (`kept`), as they count when the
/// model is served at `precision`: only at the precision the name states (an `-FP8`
/// checkpoint requantized to int4 keeps nothing of them).
pub fn kept_at(named: Option<(Precision, Quant)>, kept: f64, precision: Precision) -> f64 {
    if named.is_none_or(|(p, _)| p == precision) {
        kept
    } else {
        0.0
    }
}

/// Parameters beyond the embeddings that a published quantized checkpoint of this name
/// keeps in 16-bit (`[[checkpoint]]` rows), at the precision it is served in.
pub fn kept_16bit(name: &str, spec: &ModelSpec, precision: Option<Precision>) -> f64 {
    let k = key(name);
    let Some(c) = tables()
        .checkpoints
        .iter()
        .find(|c| key(&c.name) == k && Some(c.precision) == precision)
    else {
        return 0.0;
    };
    let layers = f64::from(spec.layers);
    let attention = spec.attention_params() * layers;
    let mlp_per_layer = ((spec.params - spec.embedding_params() - attention) / layers).max(0.0);
    c.keep_16bit
        .iter()
        .map(|part| match part.as_str() {
            "attention" => attention,
            "first-last-layers" => 2.0 * mlp_per_layer,
            _ => 0.0,
        })
        .sum()
}

/// A known architecture to stand in for an unknown one of `params` parameters: of the
/// registry's models from half to twice the size (else the nearest in size), the one with
/// the largest KV cache per token. A conservative prior: never 0.
pub fn proxy(params: f64) -> Option<&'static ModelSpec> {
    let kv = |m: &ModelSpec| super::kv_bytes_per_token(m, Precision::Bf16);
    let near = registry()
        .iter()
        .filter(|m| m.params >= params / 2.0 && m.params <= params * 2.0)
        .max_by(|a, b| kv(a).total_cmp(&kv(b)));
    near.or_else(|| {
        registry().iter().min_by(|a, b| {
            let d = |m: &ModelSpec| (m.params / params).ln().abs();
            d(a).total_cmp(&d(b))
        })
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
    fn an_instruct_checkpoint_is_served_at_its_own_configs_context() {
        // Qwen2.5's base config declares 131072 tokens, its Instruct config 32768.
        let ctx = |name: &str| context_of(name, lookup(name).expect("in the registry"));
        assert_eq!(ctx("Qwen/Qwen2.5-7B-Instruct"), 32_768);
        assert_eq!(ctx("qwen/qwen2.5-72b-instruct-awq"), 32_768);
        assert_eq!(ctx("Qwen/Qwen2.5-7B"), 131_072);
        // A model whose Instruct config says the same keeps it.
        assert_eq!(ctx("meta-llama/Llama-3.1-8B-Instruct"), 131_072);
    }

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
            Some((Precision::Int8, Quant::Gptq))
        );
        assert_eq!(
            p("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8"),
            Some((Precision::Int8, Quant::None))
        );
        assert_eq!(
            p("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16"),
            Some((Precision::Int4, Quant::Gptq))
        );
        assert_eq!(
            p("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic"),
            Some((Precision::Fp8, Quant::None))
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

    /// The names the calibration reports used, and the families people deploy.
    #[test]
    fn common_names_fine_tunes_and_repackagings_resolve() {
        let id = |n: &str| resolve(n).and_then(|r| r.spec).map(|s| s.id.as_str());
        for (name, want) in [
            (
                "mistralai/Mistral-7B-Instruct-v0.2",
                "mistralai/Mistral-7B-Instruct-v0.2",
            ),
            ("Qwen/Qwen3-14B", "Qwen/Qwen3-14B"),
            ("Qwen/Qwen3-8B-AWQ", "Qwen/Qwen3-8B"),
            (
                "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
                "Qwen/Qwen2.5-14B",
            ),
            (
                "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
                "meta-llama/Llama-3.1-70B",
            ),
            (
                "meta-llama/Llama-3.3-70B-Instruct",
                "meta-llama/Llama-3.1-70B",
            ),
            (
                "Qwen/Qwen2.5-VL-72B-Instruct",
                "Qwen/Qwen2.5-VL-72B-Instruct",
            ),
            (
                "cognitivecomputations/dolphin-2.7-mixtral-8x7b",
                "mistralai/Mixtral-8x7B-v0.1",
            ),
            ("hfl/chinese-alpaca-2-7b", "hfl/chinese-alpaca-2-7b"),
            (
                "TheBloke/dolphin-2.7-mixtral-8x7b-AWQ",
                "mistralai/Mixtral-8x7B-v0.1",
            ),
            (
                "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8",
                "meta-llama/Llama-3.1-8B",
            ),
            ("openai/gpt-oss-120b", "openai/gpt-oss-120b"),
            ("google/gemma-3-27b-it", "google/gemma-3-27b-it"),
            ("microsoft/phi-4", "microsoft/phi-4"),
        ] {
            assert_eq!(id(name), Some(want), "{name}");
        }
        // A family word alone is not enough to claim a name.
        assert_eq!(id("acme/mistral-finetune-13b"), None);
    }

    /// Meta's FP8 405B keeps attention and the first and last layers in BF16: vLLM logged
    /// 57.752 GiB of weights per GPU at tensor parallel 8 (vllm-project/vllm#6746).
    #[test]
    fn meta_fp8_keeps_its_bf16_parts() {
        let r = resolve("meta-llama/Llama-3.1-405B-Instruct-FP8").unwrap();
        let s = r.spec.unwrap();
        let (p, q) = r.precision.unwrap();
        let per_gpu = super::super::weight_bytes(s.params, Some(s), p, q, r.kept_16bit) / 8.0;
        let gib = per_gpu / super::super::GIB;
        assert!((gib - 57.75).abs() / 57.75 < 0.03, "{gib}");
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
