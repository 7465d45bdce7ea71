//! Serving engines and distributed launchers: what a pod's containers run and are told.

use gpulint_facts::workloads::{Program, repository, workloads};
use gpulint_fit::models::parse_count;
use gpulint_model::{Batching, Container, Engine, Launcher, Serving, Span, Str};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

/// The flags that set tensor parallelism: vLLM's, TGI's shards, SGLang's.
const VLLM_TP: &[&str] = &["--tensor-parallel-size", "-tp"];
const TGI_TP: &[&str] = &["--num-shard"];
const SGLANG_TP: &[&str] = &["--tp", "--tp-size", "--tensor-parallel-size"];

/// The tensor-parallel size a command line in a script or an argument string sets
/// (`vllm serve m --tensor-parallel-size 4`, `--tp=2`, `--num-shard 4`), with any engine's
/// flag: for a VM whose start-up script runs the engine, where the engine is not parsed.
pub fn tensor_parallel_in(text: &str) -> Option<u32> {
    let at = Span::new(FileId(0), 0..0);
    let argv: Vec<(Str, Span)> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | '[' | ']' | '\\'))
        .filter(|w| !w.is_empty())
        .map(|w| (Str::from(w), at.clone()))
        .collect();
    [VLLM_TP, TGI_TP, SGLANG_TP]
        .iter()
        .find_map(|names| flag(&argv, names))
        .and_then(|(v, _)| v.parse().ok())
}

/// `--flag value` and `--flag=value`, and a flag's value by any of its names. Flags are
/// compared with `_` read as `-` (`--tensor_parallel_size`), as argparse users write both.
fn flag<'a>(argv: &'a [(Str, Span)], names: &[&str]) -> Option<(&'a str, &'a Span)> {
    for (i, (w, sp)) in argv.iter().enumerate() {
        if !w.starts_with('-') {
            continue;
        }
        let (name, value) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (w.as_str(), None),
        };
        let same = |n: &&str| {
            n.len() == name.len()
                && n.bytes()
                    .zip(name.bytes())
                    .all(|(a, b)| a == b || (a == b'-' && b == b'_'))
        };
        if names.iter().any(same) {
            return match value {
                Some(v) => Some((v, sp)),
                None => argv.get(i + 1).map(|(v, s)| (v.as_str(), s)),
            };
        }
    }
    None
}

/// A numeric flag's value, or `None`; a value that is no number (`--tensor-parallel-size
/// $TP`) is recorded in `unknown`, so rules that size the engine skip it.
fn flag_num<T: std::str::FromStr>(
    argv: &[(Str, Span)],
    names: &[&str],
    unknown: &mut Vec<Span>,
) -> Option<(T, Span)> {
    number(flag_str(argv, names), unknown)
}

/// A number read from text written at a span, or `None` (recorded in `unknown`).
pub(super) fn number<T: std::str::FromStr>(
    v: Option<(String, Span)>,
    unknown: &mut Vec<Span>,
) -> Option<(T, Span)> {
    let (v, sp) = v?;
    match v.parse() {
        Ok(n) => Some((n, sp)),
        Err(_) => {
            unknown.push(sp);
            None
        }
    }
}

fn flag_str(argv: &[(Str, Span)], names: &[&str]) -> Option<(String, Span)> {
    flag(argv, names).map(|(v, s)| (v.to_string(), s.clone()))
}

/// A flag that takes no value, where it is written (`--enforce-eager`).
fn switch(argv: &[(Str, Span)], names: &[&str]) -> Option<Span> {
    argv.iter()
        .find(|(w, _)| {
            names
                .iter()
                .any(|n| w.len() == n.len() && w.replace('_', "-") == *n)
        })
        .map(|(_, s)| s.clone())
}

/// What vLLM is told by its arguments, run by the container at `span`.
pub(super) fn vllm(a: &[(Str, Span)], span: Span) -> Serving {
    // `vllm serve MODEL`: the model is the word after `serve` unless a flag.
    let positional = a
        .windows(2)
        .find(|w| w[0].0 == "serve" && !w[1].0.starts_with('-'))
        .map(|w| (w[1].0.to_string(), w[1].1.clone()));
    let mut unknown = Vec::new();
    let u = &mut unknown;
    Serving {
        engine: Engine::Vllm,
        model: positional.or_else(|| flag_str(a, &["--model"])),
        params: None,
        precision: flag_str(a, &["--dtype"]),
        quantization: flag_str(a, &["--quantization", "-q"]),
        kv_precision: flag_str(a, &["--kv-cache-dtype"]),
        tp: flag_num(a, VLLM_TP, u),
        pp: flag_num(a, &["--pipeline-parallel-size", "-pp"], u),
        dp: flag_num(a, &["--data-parallel-size-local", "-dpl"], u)
            .or_else(|| flag_num(a, &["--data-parallel-size", "-dp"], u)),
        max_model_len: flag_num(a, &["--max-model-len"], u),
        gpu_memory_utilization: flag_num(a, &["--gpu-memory-utilization"], u),
        batching: Batching {
            max_num_batched_tokens: flag_num(a, &["--max-num-batched-tokens"], u),
            max_num_seqs: flag_num(a, &["--max-num-seqs"], u),
            enforce_eager: switch(a, &["--enforce-eager"]),
        },
        unknown,
        spans_pods: None,
        span,
    }
}

/// What NVIDIA NIM for LLMs is told by its environment: the model (`NIM_MODEL_PATH`,
/// `NIM_MODEL_NAME`, else the model its image is built for, `nvcr.io/nim/meta/llama-3.1-8b-instruct`),
/// `NIM_TENSOR_PARALLEL_SIZE`, `NIM_PIPELINE_PARALLEL_SIZE`, `NIM_MAX_MODEL_LEN`, and the
/// precision and parallelism a readable `NIM_MODEL_PROFILE` names
/// (`vllm-bf16-tp2-pp1`; a profile hash says nothing).
fn nim(c: &Container, repo: Option<&str>) -> Serving {
    let env = |var: &str| c.env_var(var);
    let mut unknown = Vec::new();
    let u = &mut unknown;
    let model = env("NIM_MODEL_PATH")
        .or_else(|| env("NIM_MODEL_NAME"))
        .and_then(|(m, s)| {
            let m = m.strip_prefix("hf://").unwrap_or(&m);
            // A local path or another store names no model gpulint can look up.
            (!m.starts_with('/') && !m.contains("://")).then(|| (m.to_string(), s))
        })
        .or_else(|| {
            let path = repo?.strip_prefix("nvcr.io/nim/")?;
            // `nvidia/llm-nim` is the multi-model container: the model comes from its env.
            (path.contains('/') && !path.ends_with("/llm-nim"))
                .then(|| (path.to_string(), c.span.clone()))
        });
    let mut s = Serving {
        model,
        tp: number(env("NIM_TENSOR_PARALLEL_SIZE"), u),
        pp: number(env("NIM_PIPELINE_PARALLEL_SIZE"), u),
        max_model_len: number(env("NIM_MAX_MODEL_LEN"), u),
        ..Serving::bare(Engine::Nim, c.span.clone())
    };
    s.unknown = unknown;
    if let Some((profile, sp)) = env("NIM_MODEL_PROFILE") {
        for word in profile.split('-') {
            let n = |p: &str| word.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
            if let Some(t) = n("tp") {
                s.tp.get_or_insert((t, sp.clone()));
            } else if let Some(p) = n("pp") {
                s.pp.get_or_insert((p, sp.clone()));
            } else if matches!(word, "bf16" | "fp16" | "fp8" | "int8") {
                s.precision = Some((word.to_string(), sp.clone()));
            } else if word.contains("awq") || word.contains("gptq") || word.contains("fp4") {
                s.quantization = Some((word.to_string(), sp.clone()));
            }
        }
    }
    s
}

/// The first sign in a container that its engine places ranks in other pods (the
/// engine's `spans_pods` rows in workloads.toml), as written and where.
fn spans_pods(program: &Program, c: &Container) -> Option<(String, Span)> {
    let argv = &c.argv;
    for sign in &program.spans_pods {
        let found = if let Some(name) = sign.flag.as_deref() {
            let given = flag(argv, &[name]).map(|(v, s)| (v.to_string(), s.clone()));
            match (&sign.value, sign.above, given) {
                (Some(want), _, Some((v, s))) if v.eq_ignore_ascii_case(want) => {
                    Some((format!("{name} {v}"), s))
                }
                // A count gpulint cannot read (`$(LWS_GROUP_SIZE)`) may be above the bound.
                (None, Some(n), Some((v, s))) if v.parse::<u32>().map_or(true, |v| v > n) => {
                    Some((format!("{name} {v}"), s))
                }
                (None, None, given) => given
                    .map(|(_, s)| s)
                    .or_else(|| switch(argv, &[name]))
                    .map(|s| (name.to_string(), s)),
                _ => None,
            }
        } else if let Some(var) = sign.env.as_deref() {
            c.env_var(var).map(|(_, s)| (var.to_string(), s))
        } else if sign.command.is_empty() {
            None
        } else {
            argv.windows(sign.command.len())
                .find(|w| {
                    w.iter()
                        .zip(&sign.command)
                        // `ray start …;` and `$KUBERAY_GEN_RAY_START_CMD;` in a script
                        // end at shell punctuation.
                        .all(|((found, _), want)| {
                            let found = found.trim_end_matches([';', '&', '|']);
                            // A script named by its path: `bash /…/multi-node-serving.sh`.
                            found == want || found.rsplit('/').next() == Some(want.as_str())
                        })
                })
                .map(|w| (sign.command.join(" "), w[0].1.clone()))
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The serving engine a pod runs, from its containers' commands and images and the
/// `gpulint.dev/*` annotations.
pub(super) fn serving(
    file: FileId,
    containers: &[Container],
    annotations: Option<&YamlNode>,
) -> Option<Serving> {
    let mut found = None;
    let table = workloads();
    for c in containers {
        let a = &c.argv;
        let words: Vec<&str> = a.iter().map(|(w, _)| w.as_str()).collect();
        let repo = c.image.as_deref().map(repository);
        let Some(program) = table
            .engines
            .iter()
            .find(|p| p.command(&words).is_some())
            .or_else(|| {
                let repo = repo.as_deref()?;
                table.engines.iter().find(|p| p.image(repo))
            })
        else {
            continue;
        };
        let engine = Engine::from_row(&program.id, program.name.as_str());
        // TGI reads its launcher flags from the environment too (`MODEL_ID`, `NUM_SHARD`).
        let env_or = |flag: Option<(String, Span)>, var: &str| flag.or_else(|| c.env_var(var));
        let mut s = match engine {
            Engine::Vllm => vllm(a, c.span.clone()),
            Engine::Tgi => {
                let mut unknown = Vec::new();
                let u = &mut unknown;
                Serving {
                    engine,
                    model: env_or(flag_str(a, &["--model-id"]), "MODEL_ID"),
                    params: None,
                    precision: env_or(flag_str(a, &["--dtype"]), "DTYPE"),
                    quantization: env_or(flag_str(a, &["--quantize"]), "QUANTIZE"),
                    kv_precision: None,
                    tp: number(env_or(flag_str(a, TGI_TP), "NUM_SHARD"), u),
                    pp: None,
                    dp: None,
                    max_model_len: number(
                        env_or(flag_str(a, &["--max-total-tokens"]), "MAX_TOTAL_TOKENS"),
                        u,
                    ),
                    gpu_memory_utilization: number(
                        env_or(
                            flag_str(a, &["--cuda-memory-fraction"]),
                            "CUDA_MEMORY_FRACTION",
                        ),
                        u,
                    ),
                    batching: Batching {
                        max_num_batched_tokens: number(
                            env_or(
                                flag_str(a, &["--max-batch-prefill-tokens"]),
                                "MAX_BATCH_PREFILL_TOKENS",
                            ),
                            u,
                        ),
                        ..Batching::default()
                    },
                    unknown,
                    spans_pods: None,
                    span: c.span.clone(),
                }
            }
            Engine::Nim => nim(c, repo.as_deref()),
            // What other engines are told is not read: the engine alone is known.
            Engine::Other(_) => Serving::bare(engine, c.span.clone()),
            Engine::Sglang | Engine::Hint => {
                let mut unknown = Vec::new();
                let u = &mut unknown;
                Serving {
                    engine,
                    model: flag_str(a, &["--model-path", "--model"]),
                    params: None,
                    precision: flag_str(a, &["--dtype"]),
                    quantization: flag_str(a, &["--quantization"]),
                    kv_precision: flag_str(a, &["--kv-cache-dtype"]),
                    tp: flag_num(a, SGLANG_TP, u),
                    pp: flag_num(a, &["--pp", "--pp-size", "--pipeline-parallel-size"], u),
                    dp: flag_num(a, &["--dp", "--dp-size", "--data-parallel-size"], u),
                    max_model_len: flag_num(a, &["--context-length"], u),
                    gpu_memory_utilization: flag_num(a, &["--mem-fraction-static"], u),
                    batching: Batching {
                        max_num_batched_tokens: flag_num(a, &["--chunked-prefill-size"], u),
                        max_num_seqs: flag_num(a, &["--max-running-requests"], u),
                        enforce_eager: switch(a, &["--disable-cuda-graph"]),
                    },
                    unknown,
                    spans_pods: None,
                    span: c.span.clone(),
                }
            }
        };
        s.spans_pods = spans_pods(program, c);
        if s.model.is_none() {
            s.model = program.model_env.iter().find_map(|var| {
                let (m, at) = c.env_var(var)?;
                // A model id (`owner/name`), not a path or a URL.
                let id =
                    m.contains('/') && !m.starts_with(['/', '.', '~', '$']) && !m.contains("://");
                id.then_some((m, at))
            });
        }
        found = Some(s);
        break;
    }
    // Hints fill in or stand alone.
    let hint = |key: &str| {
        annotations
            .and_then(|a| a.get(key))
            .and_then(|n| Some((n.as_str()?.to_string(), n.span.clone())))
    };
    let (model, params, precision) = (
        hint("gpulint.dev/model"),
        hint("gpulint.dev/params"),
        hint("gpulint.dev/precision"),
    );
    if model.is_none() && params.is_none() && precision.is_none() {
        return found;
    }
    let to_span = |r: std::ops::Range<usize>| Span::new(file, r);
    let mut s = found.unwrap_or_else(|| {
        let span = containers
            .first()
            .map_or_else(|| to_span(0..0), |c| c.span.clone());
        Serving::bare(Engine::Hint, span)
    });
    if let Some((m, r)) = model {
        s.model = Some((m, to_span(r)));
    }
    if let Some((p, r)) = params {
        s.params = parse_count(&p).map(|n| (n, to_span(r)));
    }
    if let Some((p, r)) = precision {
        s.precision = Some((p, to_span(r)));
    }
    Some(s)
}

/// `torchrun`, `python -m torch.distributed.run`, `deepspeed`, `accelerate launch`.
pub(super) fn launcher(containers: &[Container]) -> Option<Launcher> {
    for c in containers {
        let a = &c.argv;
        let word = |w: &str| {
            a.iter()
                .any(|(x, _)| x == w || x.rsplit('/').next() == Some(w))
        };
        let max_of = |v: &str| v.rsplit(':').next().and_then(|n| n.parse::<u32>().ok());
        let (nnodes, nproc) = if word("torchrun") || word("torch.distributed.run") {
            (
                flag(a, &["--nnodes"]).and_then(|(v, _)| max_of(v)),
                flag(a, &["--nproc_per_node", "--nproc-per-node"])
                    .and_then(|(v, _)| v.parse().ok()),
            )
        } else if word("deepspeed") {
            (
                flag(a, &["--num_nodes"]).and_then(|(v, _)| v.parse().ok()),
                flag(a, &["--num_gpus"]).and_then(|(v, _)| v.parse().ok()),
            )
        } else if word("accelerate") && word("launch") {
            (
                flag(a, &["--num_machines"]).and_then(|(v, _)| v.parse().ok()),
                None,
            )
        } else {
            continue;
        };
        return Some(Launcher {
            nnodes,
            nproc_per_node: nproc,
            span: c.span.clone(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::tensor_parallel_in;

    #[test]
    fn tensor_parallel_is_read_from_a_script_or_an_argument_string() {
        let script = "#!/bin/bash\nvllm serve m \\\n  --tensor-parallel-size 4 \\\n  --port 8000\n";
        assert_eq!(tensor_parallel_in(script), Some(4));
        assert_eq!(tensor_parallel_in("--tensor_parallel_size=2"), Some(2));
        assert_eq!(tensor_parallel_in("[\"--tp\", \"8\"]"), Some(8));
        assert_eq!(
            tensor_parallel_in("text-generation-launcher --num-shard 2"),
            Some(2)
        );
        // A value that is not a number, or no flag at all, says nothing.
        assert_eq!(tensor_parallel_in("--tensor-parallel-size $TP"), None);
        assert_eq!(tensor_parallel_in("python train.py --epochs 4"), None);
    }
}
