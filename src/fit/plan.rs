//! From what a user asks (`gpulint fit` flags) to estimates on catalog GPUs.

use super::models::{parse_count, resolve};
use super::{
    Estimate, Method, Optimizer, Precision, Quant, Recompute, Request, Training, Verdict, estimate,
    verdict, vllm_default_utilization,
};
use crate::catalog::{Gpu, InstanceType, catalog};

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
    /// The share of each GPU's memory the job may use (vLLM's budget for inference).
    pub utilization: f64,
}

impl Plan {
    pub fn estimate(&self) -> Estimate {
        estimate(&self.request)
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
        let v = verdict(&e, t.gpu.usable_bytes(), self.utilization);
        Some((e, v))
    }

    /// Whether the job fits `n` GPUs of one model, parallelised as [`Plan::on`] does.
    pub fn verdict_on(&self, gpu: &Gpu, n: u32) -> Verdict {
        verdict(&estimate(&self.on(n)), gpu.usable_bytes(), self.utilization)
    }

    /// The fewest GPUs of one model (1, 2, 4 or 8, as machines come) that hold the job.
    pub fn min_gpus(&self, gpu: &Gpu) -> Option<u32> {
        [1, 2, 4, 8]
            .into_iter()
            .find(|&n| self.verdict_on(gpu, n).fits)
    }

    /// Catalog instance types whose GPUs hold the job, spread across all of them.
    pub fn instances_that_fit(&self) -> Vec<&'static InstanceType> {
        catalog()
            .instances
            .iter()
            .filter(|i| self.verdict_on(i.gpu, i.row.count).fits)
            .collect()
    }
}

pub fn plan(q: &Query) -> Result<Plan, String> {
    let (label, params, spec, named_precision) = match (&q.model, &q.params) {
        (Some(_), Some(_)) => return Err("give --model or --params, not both".into()),
        (None, None) => return Err("give --model NAME or --params N (e.g. 70B)".into()),
        (Some(name), None) => {
            let r = resolve(name).ok_or_else(|| {
                format!("unknown model `{name}` with no size in its name; give --params (e.g. 70B)")
            })?;
            let label = r.spec.map_or_else(|| name.clone(), |s| s.id.clone());
            (label, r.params, r.spec, r.precision)
        }
        (None, Some(p)) => {
            let n = parse_count(p)
                .ok_or_else(|| format!("cannot read --params `{p}` (try 70B or 7.5e9)"))?;
            (format!("{p} parameters"), n, None, None)
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
            spec.map(|s| s.max_context)
        }
    });
    let utilization = match (training.is_some(), q.utilization) {
        (_, Some(u)) if (0.0..=1.0).contains(&u) && u > 0.0 => u,
        (_, Some(u)) => return Err(format!("--gpu-memory-utilization {u}: must be in (0, 1]")),
        (true, None) => 1.0,
        (false, None) => vllm_default_utilization(None),
    };
    Ok(Plan {
        label,
        request: Request {
            params,
            spec,
            precision,
            quant,
            kv_precision,
            context,
            batch: q.batch.unwrap_or(1).max(1),
            tp,
            pp,
            gpus,
            training,
        },
        target,
        utilization,
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
