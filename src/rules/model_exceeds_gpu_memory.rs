//! `model-exceeds-gpu-memory`: the model served does not fit the GPUs the pod is given.

use super::{Report, Rule, RuleContext, RuleMeta, pod_gpu, served};
use crate::catalog::Confidence;
use crate::finding::{Category, Severity};
use crate::fit::{estimate, human_bytes, verdict};
use crate::model::{Inventory, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Error,
    category: Category::Correctness,
    summary: "the model (weights + KV cache + overhead) does not fit the GPUs given",
    options: &[],
};

pub struct ModelExceedsGpuMemory;

impl Rule for ModelExceedsGpuMemory {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for w in &model.workloads {
            for pod in &w.pods {
                let (Some(s), Some((gpu, gpu_span))) = (served(pod), pod_gpu(model, pod)) else {
                    continue;
                };
                // Tensor × pipeline parallel beyond the GPUs given is another rule's finding.
                let Value::Known(given, _) = &pod.gpus else {
                    continue;
                };
                if s.request.gpus > given.count {
                    continue;
                }
                // Never fail a build on an unconfirmed fact.
                if gpu.confidence == Confidence::U
                    || s.request
                        .spec
                        .is_some_and(|m| m.confidence == Confidence::U)
                {
                    continue;
                }
                let e = estimate(&s.request);
                let v = verdict(&e, gpu.usable_bytes(), s.utilization);
                if v.fits {
                    continue;
                }
                let r = &s.request;
                let kv = match r.context {
                    Some(c) if e.total.kv_cache_bytes > 0 => format!(
                        " and {} of KV cache for {c} tokens",
                        human_bytes(e.total.kv_cache_bytes)
                    ),
                    _ => String::new(),
                };
                cx.report(Report {
                    message: format!(
                        "`{}` serves {} at {} ({} of weights{kv}); over {} × {} that is {} per GPU, \
                         but each has {} usable: {} short",
                        w.subject,
                        s.label,
                        r.precision,
                        human_bytes(e.total.weights_bytes),
                        r.gpus,
                        gpu.name,
                        human_bytes(e.per_gpu.total_bytes),
                        human_bytes(v.usable_bytes),
                        human_bytes(v.shortfall_bytes),
                    ),
                    help: format!(
                        "quantize (e.g. an AWQ or FP8 checkpoint), lower `--max-model-len`, raise \
                         `--tensor-parallel-size` over more GPUs, or use larger GPUs; `gpulint fit \
                         --model {} --gpu {} --gpus {}` shows the breakdown",
                        s.label, gpu.id, r.gpus
                    ),
                    subject: w.subject.clone(),
                    primary: (s.model_span.clone(), format!("needs {} per GPU", human_bytes(e.per_gpu.total_bytes))),
                    secondary: vec![(gpu_span, format!("{} usable per {}", human_bytes(v.usable_bytes), gpu.name))],
                });
            }
        }
    }
}
