//! Training or inference, from what a resource says about itself.
//!
//! An explicit hint wins (`gpulint-role` as a tag, label or annotation); then words in
//! names, labels and tags. When the words say both or neither, the role is unknown and
//! rules that need one stay silent.

use crate::model::{Role, Span, Value};

/// The explicit hint's key.
pub const HINT: &str = "gpulint-role";

const TRAINING: &[&str] = &[
    "train",
    "training",
    "trainer",
    "trainers",
    "finetune",
    "finetuning",
    "pretrain",
    "pretraining",
    "sft",
    "rlhf",
];
const INFERENCE: &[&str] = &[
    "infer",
    "inference",
    "serve",
    "serving",
    "server",
    "vllm",
    "tgi",
    "triton",
    "predict",
    "prediction",
    "endpoint",
];

/// The collectives nccl-tests measures, each a `<op>_perf` binary.
const NCCL_TESTS: [&str; 10] = [
    "all_reduce",
    "all_gather",
    "alltoall",
    "reduce_scatter",
    "broadcast",
    "sendrecv",
    "reduce",
    "gather",
    "scatter",
    "hypercube",
];

/// Whether a container runs a GPU fabric benchmark (NVIDIA's nccl-tests: `all_reduce_perf`,
/// `all_gather_perf`, …): a job that measures the network, not one that trains.
pub fn is_benchmark<'a>(image: Option<&str>, argv: impl IntoIterator<Item = &'a str>) -> bool {
    let nccl_test = |s: &str| s.contains("nccl-tests") || s.contains("nccl-test:");
    image.is_some_and(nccl_test)
        || argv.into_iter().any(|a| {
            nccl_test(a)
                || a.rsplit('/')
                    .next()
                    .and_then(|bin| bin.strip_suffix("_perf"))
                    .is_some_and(|op| NCCL_TESTS.contains(&op))
        })
}

/// Reads an explicit hint value.
pub fn from_hint(value: &str, span: Span) -> Value<Role> {
    match value.trim().to_ascii_lowercase().as_str() {
        "training" | "train" => Value::Known(Role::Training, span),
        "inference" | "serving" => Value::Known(Role::Inference, span),
        _ => Value::Unknown(span),
    }
}

/// The role stated by a `gpulint-role` entry among tags or labels, else inferred from
/// `names` and the entries' keys and values, pointing at `span`.
pub fn from_entries<'a>(
    entries: &'a [(String, String, Span)],
    names: impl IntoIterator<Item = &'a str>,
    span: &Span,
) -> Value<Role> {
    if let Some((_, v, s)) = entries.iter().find(|(k, _, _)| k == HINT) {
        return from_hint(v, s.clone());
    }
    let words = names.into_iter().chain(
        entries
            .iter()
            .flat_map(|(k, v, _)| [k.as_str(), v.as_str()]),
    );
    from_words(words, span)
}

/// Infers a role from words (`gpu-training-pool`, `llm_serving`), pointing at `span`.
pub fn from_words<'a>(words: impl IntoIterator<Item = &'a str>, span: &Span) -> Value<Role> {
    let (mut training, mut inference) = (false, false);
    for text in words {
        for word in text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(str::to_ascii_lowercase)
        {
            training |= TRAINING.contains(&word.as_str());
            inference |= INFERENCE.contains(&word.as_str());
        }
    }
    match (training, inference) {
        (true, false) => Value::Known(Role::Training, span.clone()),
        (false, true) => Value::Known(Role::Inference, span.clone()),
        _ => Value::Absent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    #[test]
    fn nccl_tests_are_benchmarks() {
        assert!(is_benchmark(
            None,
            ["/third_party/nccl-tests/build/all_gather_perf", "-b", "1K"]
        ));
        assert!(is_benchmark(None, ["all_reduce_perf"]));
        assert!(is_benchmark(Some("ghcr.io/coreweave/nccl-tests:12.4"), []));
        assert!(!is_benchmark(
            Some("nvcr.io/nvidia/pytorch:24.05"),
            ["torchrun", "train.py"]
        ));
        assert!(!is_benchmark(None, ["python", "eval_perf.py"]));
    }

    #[test]
    fn words_decide_only_when_they_agree() {
        let s = Span::new(FileId(0), 0..1);
        assert_eq!(
            from_words(["gpu-training-pool"], &s).known(),
            Some(&Role::Training)
        );
        assert_eq!(
            from_words(["llm_serving", "vllm"], &s).known(),
            Some(&Role::Inference)
        );
        assert_eq!(from_words(["train-and-serve"], &s), Value::Absent);
        assert_eq!(
            from_words(["gpu-pool", "constraint"], &s),
            Value::Absent,
            "no substring matches"
        );
        assert_eq!(
            from_hint("Training", s.clone()).known(),
            Some(&Role::Training)
        );
        assert!(from_hint("batch", s).is_unknown());
    }
}
