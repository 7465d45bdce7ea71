//! `model-exceeds-gpu-memory`: the model served does not fit the GPUs the pod is given.

use super::{Report, Rule, RuleContext, RuleMeta, pod_gpu, served};
use gpulint_diagnostics::{Category, Severity};
use gpulint_facts::Confidence;
use gpulint_fit::engine::engine;
use gpulint_fit::plan::cheapest_fix;
use gpulint_fit::{Fit, estimate, human_bytes, verdict};
use gpulint_model::{Inventory, Value};

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
                let r = &s.request;
                let e = estimate(r, Some(gpu));
                let v = verdict(&e, r, gpu);
                let severity = match v.verdict {
                    Fit::Fits => continue,
                    Fit::Tight => Severity::Warning,
                    Fit::DoesNotFit => Severity::Error,
                };
                let p = &e.per_gpu;
                let mut parts = vec![format!("{} of weights", human_bytes(p.weights_bytes))];
                if let Some(c) = r.context.filter(|_| p.kv_cache_bytes > 0) {
                    parts.push(format!(
                        "{} of KV cache for {c} tokens",
                        human_bytes(p.kv_cache_bytes)
                    ));
                }
                if p.activation_bytes > 0 {
                    parts.push(format!(
                        "{} of activation peak",
                        human_bytes(p.activation_bytes)
                    ));
                }
                let (dominant, _) = p.dominant(false);
                // When what lives outside the budget is what runs short, say so.
                let left = v.device_bytes.saturating_sub(v.usable_bytes);
                let outside = if e.outside_bytes > left {
                    format!(
                        "; the CUDA context and graphs need {} outside the budget, in the {} it \
                         leaves",
                        human_bytes(e.outside_bytes),
                        human_bytes(left)
                    )
                } else {
                    String::new()
                };
                let name = engine(r.serve.engine).map_or("the server", |f| f.name.as_str());
                let state = match v.verdict {
                    Fit::Tight if v.fits => format!(
                        "only {} to spare, within the estimate's ±{} band: it may not start",
                        human_bytes(v.margin_bytes.unsigned_abs()),
                        human_bytes(v.band_bytes)
                    ),
                    Fit::Tight => format!(
                        "{} short, within the estimate's ±{} band: it may not start",
                        human_bytes(v.shortfall_bytes),
                        human_bytes(v.band_bytes)
                    ),
                    _ => format!(
                        "{} short, beyond the estimate's ±{} band",
                        human_bytes(v.shortfall_bytes),
                        human_bytes(v.band_bytes)
                    ),
                };
                let fix = cheapest_fix(r, gpu).map_or_else(
                    || "no change gpulint can size makes it fit on up to 8 catalog GPUs; ".into(),
                    |f| format!("the cheapest change that fits is {}; ", f.change),
                );
                cx.report_as(
                    severity,
                    Report {
                        message: format!(
                            "`{}` serves {} at {} on {} × {}: {} per GPU ({}; the largest part is \
                             the {dominant}) against {} budgeted by {name} ({:.2} of {}){outside}: \
                             {state}",
                            w.subject,
                            s.label,
                            r.precision,
                            r.gpus,
                            gpu.name,
                            human_bytes(v.need_bytes),
                            parts.join(", "),
                            human_bytes(v.usable_bytes),
                            r.utilization(),
                            human_bytes(v.device_bytes),
                        ),
                        help: format!(
                            "{fix}`gpulint fit --model {} --gpu {} --gpus {}{}` shows the breakdown",
                            s.label,
                            gpu.id,
                            r.gpus,
                            r.context.map_or_else(String::new, |c| format!(" --context {c}")),
                        ).into(),
                        subject: w.subject.clone(),
                        primary: (
                            s.model_span.clone(),
                            format!("needs {} per GPU", human_bytes(v.need_bytes)),
                        ),
                        secondary: vec![(
                            gpu_span,
                            format!("{} budgeted per {}", human_bytes(v.usable_bytes), gpu.name),
                        )],
                    },
                );
            }
        }
    }
}
