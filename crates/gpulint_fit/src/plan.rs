//! From what a user asks (`gpulint fit` flags) to estimates on catalog GPUs.

use super::engine::{EngineKind, Serve};
use super::models::{kept_at, parse_count, resolve};
use super::{
    Accounting, Attention, Estimate, Method, Optimizer, Precision, Quant, Recompute, Request,
    Training, Verdict, estimate, verdict,
};
use gpulint_facts::{Confidence, Gpu, InstanceType, catalog};

/// The question, as flags give it.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub model: Option<String>,
    pub params: Option<String>,
    pub precision: Option<Precision>,
    pub kv_precision: Option<Precision>,
    pub context: Option<u64>,
    pub batch: Option<u64>,
    pub training: bool,
    pub optimizer: Option<Optimizer>,
    pub zero: Option<u8>,
    pub method: Option<Method>,
    pub lora_rank: Option<u32>,
    pub recompute: Option<Recompute>,
    pub attention: Option<Attention>,
    pub accounting: Option<Accounting>,
    pub engine: Option<EngineKind>,
    pub max_num_batched_tokens: Option<u64>,
    pub max_num_seqs: Option<u64>,
    pub enforce_eager: bool,
    pub gpus: Option<u32>,
    pub tp: Option<u32>,
    pub pp: Option<u32>,
    pub gpu: Option<String>,
    pub instance: Option<String>,
    pub utilization: Option<f64>,
}

/// GPUs to check against.
#[derive(Clone, Debug)]
pub struct Target {
    pub gpu: &'static Gpu,
    pub count: u32,
    /// The instance type, when the GPUs came from one.
    pub instance: Option<&'static InstanceType>,
}

/// A resolved question.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The model as the registry names it, or as given.
    pub label: String,
    pub request: Request,
    pub target: Option<Target>,
    /// What the question itself gets wrong (GPUs left idle, a split the engine refuses).
    pub notes: Vec<String>,
}

impl Plan {
    /// The estimate on the target's GPUs (their memory decides engine defaults), else on
    /// none in particular.
    pub fn estimate(&self) -> Estimate {
        estimate(&self.request, self.target.as_ref().map(|t| t.gpu))
    }

    /// The share of each GPU's memory the job may use (the engine's budget for inference).
    pub fn utilization(&self) -> f64 {
        self.request.utilization()
    }

    /// The same job on `n` GPUs: tensor parallel across them for inference (one replica),
    /// data parallel for training.
    pub fn on(&self, n: u32) -> Request {
        let mut r = self.request.clone();
        if r.training.is_some() {
            r.gpus = n.saturating_mul(r.tp).saturating_mul(r.pp);
        } else {
            r.tp = n;
            r.pp = 1;
            r.gpus = n;
        }
        r
    }

    /// The verdict on the given target, for the job exactly as asked (its tensor and
    /// pipeline parallel sizes included). `None` without a target.
    pub fn verdict(&self) -> Option<(Estimate, Verdict)> {
        let t = self.target.as_ref()?;
        let e = self.estimate();
        let v = verdict(&e, &self.request, t.gpu);
        Some((e, v))
    }

    /// Whether the job fits `n` GPUs of one model, parallelised as [`Plan::on`] does.
    pub fn verdict_on(&self, gpu: &Gpu, n: u32) -> Verdict {
        let r = self.on(n);
        verdict(&estimate(&r, Some(gpu)), &r, gpu)
    }

    /// The fewest GPUs of one model (1, 2, 4 or 8, as machines come) that may hold the job,
    /// with the verdict there (`tight` when the estimate cannot tell). A partition of a GPU
    /// (a fractional machine's share) comes one to a machine and does not combine.
    pub fn min_gpus(&self, gpu: &Gpu) -> Option<(u32, super::Fit)> {
        let counts: &[u32] = if gpu.partition_of.is_some() {
            &[1]
        } else {
            &[1, 2, 4, 8]
        };
        counts.iter().copied().find_map(|n| {
            let v = self.verdict_on(gpu, n).verdict;
            (v != super::Fit::DoesNotFit).then_some((n, v))
        })
    }

    /// Catalog instance types whose GPUs may hold the job, spread across all of them.
    pub fn instances_that_fit(&self) -> Vec<&'static InstanceType> {
        catalog()
            .instances
            .iter()
            .filter(|i| self.verdict_on(i.gpu, i.row.count).verdict != super::Fit::DoesNotFit)
            .collect()
    }
}

pub fn plan(q: &Query) -> Result<Plan, String> {
    let (label, params, spec, named_precision, kept) = match (&q.model, &q.params) {
        (Some(_), Some(_)) => return Err("give --model or --params, not both".into()),
        (None, None) => return Err("give --model NAME or --params N (e.g. 70B)".into()),
        (Some(name), None) => {
            let r = resolve(name).ok_or_else(|| {
                format!("unknown model `{name}` with no size in its name; give --params (e.g. 70B)")
            })?;
            let label = r.spec.map_or_else(|| name.clone(), |s| s.id.clone());
            (label, r.params, r.spec, r.precision, r.kept_16bit)
        }
        (None, Some(p)) => {
            let n = parse_count(p)
                .ok_or_else(|| format!("cannot read --params `{p}` (try 70B or 7.5e9)"))?;
            (format!("{p} parameters"), n, None, None, 0.0)
        }
    };
    // Precision: as asked, else as the name says (`-AWQ`), else the checkpoint's dtype.
    let (precision, quant) = match (q.precision, named_precision) {
        (Some(p), Some((np, nq))) if p == np => (p, nq),
        (Some(p), _) => (p, Quant::None),
        (None, Some(named)) => named,
        (None, None) => (spec.map_or(Precision::Bf16, |s| s.dtype), Quant::None),
    };
    // vLLM's `auto` KV cache is the model's 16-bit dtype (fp32 checkpoints are downcast).
    let kv_precision = q.kv_precision.unwrap_or(match spec.map(|s| s.dtype) {
        Some(Precision::Fp16) => Precision::Fp16,
        _ => Precision::Bf16,
    });

    let target = match (&q.gpu, &q.instance) {
        (Some(_), Some(_)) => return Err("give --gpu or --instance, not both".into()),
        (Some(g), None) => Some(Target {
            gpu: catalog().gpu(g).ok_or_else(|| unknown_gpu(g))?,
            count: q.gpus.unwrap_or(1),
            instance: None,
        }),
        (None, Some(i)) => {
            let it = catalog()
                .instance_any(i)
                .ok_or_else(|| format!("unknown instance type `{i}` (see `gpulint catalog`)"))?;
            Some(Target {
                gpu: it.gpu,
                count: it.row.count,
                instance: Some(it),
            })
        }
        (None, None) => None,
    };
    let gpus = target
        .as_ref()
        .map_or(q.gpus.unwrap_or(1), |t| t.count)
        .max(1);
    let training = q.training.then(|| Training {
        optimizer: q.optimizer.unwrap_or(Optimizer::Adam),
        zero: q.zero.unwrap_or(0),
        method: q.method.unwrap_or(Method::Full),
        lora_rank: q.lora_rank.unwrap_or(8),
        recompute: q.recompute.unwrap_or(Recompute::None),
        attention: q.attention.unwrap_or_default(),
        accounting: q.accounting.unwrap_or_default(),
    });
    if let Some(z) = q.zero.filter(|z| *z > 3) {
        return Err(format!("--zero {z}: ZeRO stages are 0, 1, 2 and 3"));
    }
    let pp = q.pp.unwrap_or(1).max(1);
    // One inference replica spreads over all its GPUs; training defaults to data parallel.
    let tp =
        q.tp.unwrap_or(if training.is_some() {
            1
        } else {
            (gpus / pp).max(1)
        })
        .max(1);
    if u64::from(tp) * u64::from(pp) > u64::from(gpus) {
        return Err(format!(
            "tensor parallel {tp} × pipeline parallel {pp} needs {} GPUs, but only {gpus} are given",
            u64::from(tp) * u64::from(pp)
        ));
    }
    // Inference holds a KV cache for the whole context (vLLM's default max_model_len is the
    // model's max_position_embeddings); training counts activations only for a given one.
    let context = q.context.or_else(|| {
        if training.is_some() {
            None
        } else {
            spec.map(|s| {
                q.model
                    .as_deref()
                    .map_or(s.max_context, |m| crate::models::context_of(m, s))
            })
        }
    });
    if let Some(u) = q.utilization.filter(|u| !(*u > 0.0 && *u <= 1.0)) {
        return Err(format!("--gpu-memory-utilization {u}: must be in (0, 1]"));
    }
    let kept = kept_at(named_precision, kept, precision);
    let mut notes = Vec::new();
    if training.is_none() && tp * pp < gpus {
        notes.push(format!(
            "tensor parallel {tp} × pipeline parallel {pp} uses {} of the {gpus} GPUs; the \
             others hold nothing (run more replicas, or raise --tp)",
            tp * pp
        ));
    }
    if let Some(s) = spec.filter(|s| tp > 1 && s.heads % tp != 0) {
        notes.push(format!(
            "{} has {} attention heads, which tensor parallel {tp} does not divide: vLLM, \
             SGLang and TensorRT-LLM refuse to start",
            s.id, s.heads
        ));
    }
    Ok(Plan {
        notes,
        label,
        request: Request {
            params,
            spec,
            precision,
            quant,
            kept_16bit: kept,
            kv_precision,
            context,
            batch: q.batch.unwrap_or(1).max(1),
            tp,
            pp,
            gpus,
            serve: Serve {
                engine: q.engine.unwrap_or_default(),
                utilization: q.utilization.filter(|_| training.is_none()),
                max_num_batched_tokens: q.max_num_batched_tokens,
                max_num_seqs: q.max_num_seqs,
                enforce_eager: q.enforce_eager,
            },
            training_utilization: q.utilization.filter(|_| training.is_some()),
            training,
        },
        target,
    })
}
/// A change that makes an inference job fit, found by asking `fit` itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    /// What to change, in words a user can act on (`--max-model-len 32768`).
    pub change: String,
    /// The verdict after it.
    pub verdict: Verdict,
}

/// The cheapest change that makes inference request `r` fit GPUs like `gpu`, trying in
/// order what costs nothing (a lower memory share, when the CUDA context and graphs are
/// what runs short; a shorter context), then a smaller precision, then more GPUs of the
/// same kind (up to 8 in one machine), then a larger GPU from the catalog.
pub fn cheapest_fix(r: &Request, gpu: &'static Gpu) -> Option<Fix> {
    let fits = |r: &Request, g: &Gpu| {
        let v = verdict(&estimate(r, Some(g)), r, g);
        (v.verdict == super::Fit::Fits).then_some(v)
    };
    // The request with one thing changed.
    let with = |change: &dyn Fn(&mut Request)| {
        let mut variant = r.clone();
        change(&mut variant);
        variant
    };
    // A budget that leaves the CUDA context and graphs their room: the highest share, in
    // steps of 0.01 down to 0.8, that fits.
    if r.training.is_none() {
        let u = r.utilization();
        let at = |share: f64| with(&|v| v.serve.utilization = Some(share));
        let step = (1..=20)
            .map(|i| ((u * 100.0).floor() - f64::from(i)) / 100.0)
            .take_while(|share| *share >= 0.8)
            .find_map(|share| Some((share, fits(&at(share), gpu)?)));
        if let Some((share, v)) = step {
            return Some(Fix {
                change: format!("a memory share of {share:.2} (`--gpu-memory-utilization`)"),
                verdict: v,
            });
        }
    }
    // The longest context, in steps of 1024 tokens from 2048, that fits.
    if let Some(c) = r.context.filter(|c| *c > 2048) {
        let at = |c: u64| with(&|v| v.context = Some(c));
        if fits(&at(2048), gpu).is_some() {
            let (mut lo, mut hi) = (2, c / 1024);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if fits(&at(mid * 1024), gpu).is_some() {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            if lo * 1024 < c
                && let Some(v) = fits(&at(lo * 1024), gpu)
            {
                return Some(Fix {
                    change: format!("a context of {} tokens (`--max-model-len`)", lo * 1024),
                    verdict: v,
                });
            }
        }
    }
    let smaller = match r.precision {
        Precision::Fp32 | Precision::Fp16 | Precision::Bf16 if gpu.has_native_float("fp8") => {
            Some((
                Precision::Fp8,
                Quant::None,
                "an FP8 checkpoint or `--quantization fp8`",
            ))
        }
        Precision::Fp32 | Precision::Fp16 | Precision::Bf16 | Precision::Fp8 | Precision::Int8 => {
            Some((Precision::Int4, Quant::Awq, "a 4-bit AWQ checkpoint"))
        }
        Precision::Int4 => None,
    };
    if let Some((p, q, words)) = smaller {
        let quantized = with(&|v| {
            v.precision = p;
            v.quant = q;
            v.kept_16bit = 0.0;
        });
        if let Some(v) = fits(&quantized, gpu) {
            return Some(Fix {
                change: words.to_string(),
                verdict: v,
            });
        }
    }
    let mut n = r.tp.max(1).next_power_of_two();
    while n < 8 {
        n *= 2;
        let wider = with(&|v| {
            v.tp = n;
            v.gpus = n * r.pp.max(1);
        });
        if let Some(v) = fits(&wider, gpu) {
            return Some(Fix {
                change: format!("{} GPUs with `--tensor-parallel-size {n}`", wider.gpus),
                verdict: v,
            });
        }
    }
    catalog()
        .gpus
        .iter()
        .filter(|g| g.usable_bytes() > gpu.usable_bytes() && g.confidence != Confidence::U)
        .filter(|g| catalog().instances.iter().any(|i| i.gpu.id == g.id))
        .filter_map(|g| Some((g, fits(r, g)?)))
        .min_by_key(|(g, _)| g.usable_bytes())
        .map(|(g, v)| Fix {
            change: format!("{} × {} instead", r.gpus, g.name),
            verdict: v,
        })
}

/// Why `--gpu NAME` names no GPU: the catalog GPUs whose id starts with it (`a100` names
/// four) to pick from, else where to look.
fn unknown_gpu(name: &str) -> String {
    let wanted = name.trim().to_ascii_lowercase();
    let candidates: Vec<String> = catalog()
        .gpus
        .iter()
        .filter(|g| !wanted.is_empty() && g.id.starts_with(&wanted))
        .map(|g| format!("`{}` ({})", g.id, g.name))
        .collect();
    if candidates.is_empty() {
        format!("unknown GPU `{name}` (see `gpulint catalog`)")
    } else {
        format!(
            "`{name}` names {} GPUs: {}; pick one with `--gpu`",
            candidates.len(),
            candidates.join(", ")
        )
    }
}
