//! `model-exceeds-gpu-memory`: the model served does not fit the GPUs the pod is given.

use super::{
    Report, Rule, RuleContext, RuleMeta, Served, pod_gpu, pod_gpu_choices, served, served_on,
};
use gpulint_diagnostics::{Category, Severity};
use gpulint_facts::Confidence;
use gpulint_fit::engine::engine;
use gpulint_fit::plan::cheapest_fix;
use gpulint_fit::{Fit, Verdict, estimate, human_bytes, verdict};
use gpulint_model::{Inventory, PodShape, Span, Value, Workload};

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
            // A share of a GPU has only part of its memory, an amount gpulint does not read.
            for pod in w.pods.iter().filter(|p| p.shared.is_none()) {
                let Some(s) = served(pod) else {
                    continue;
                };
                // Tensor × pipeline parallel beyond the GPUs given is another rule's finding.
                let Value::Known(given, _) = &pod.gpus else {
                    continue;
                };
                if s.request.gpus > given.count {
                    continue;
                }
                let Some((gpu, gpu_span)) = pod_gpu(model, pod) else {
                    // Whole GPUs of a type gpulint cannot name (a MIG slice is another size).
                    if given.resource.ends_with("/gpu") {
                        beyond_every_gpu(model, w, pod, &s, cx);
                    }
                    continue;
                };
                judge(&w.subject, &s, gpu, gpu_span, cx);
            }
        }
        // A VM whose start-up script runs the engine on the GPUs of its machine type.
        let mut seen = Vec::new();
        for c in &model.capacity {
            let Some(serving) = &c.serving else { continue };
            let Some((machines, span)) = c.gpu_machines() else {
                continue;
            };
            let [machine] = machines.as_slice() else {
                continue;
            };
            let Some(set) = &machine.gpus else { continue };
            let Some(s) = served_on(serving, set.count) else {
                continue;
            };
            // The instances one `count` makes run one script: one finding, on the block.
            let subject = match c.count_at {
                Some(_) => gpulint_model::count_block(&c.subject).unwrap_or(&c.subject),
                None => &c.subject,
            };
            let at = (c.header.clone(), subject);
            if s.request.gpus > set.count || seen.contains(&at) {
                continue;
            }
            judge(subject, &s, set.gpu, span.clone(), cx);
            seen.push(at);
        }
    }
}

/// Reports `subject`'s model when it does not fit, or only just fits, `gpu`.
fn judge(
    subject: &str,
    s: &Served,
    gpu: &'static gpulint_facts::Gpu,
    gpu_span: Span,
    cx: &mut RuleContext<'_>,
) {
    // Never fail a build on an unconfirmed fact.
    if gpu.confidence == Confidence::U
        || s.request
            .spec
            .is_some_and(|m| m.confidence == Confidence::U)
    {
        return;
    }
    let r = &s.request;
    let e = estimate(r, Some(gpu));
    let v = verdict(&e, r, gpu);
    let severity = match v.verdict {
        Fit::Fits => return,
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
                subject,
                shown(s),
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
                r.context
                    .map_or_else(String::new, |c| format!(" --context {c}")),
            )
            .into(),
            subject: subject.to_string(),
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

/// The model as written, and the registry's model it is sized as when that is another
/// (`deepseek-ai/DeepSeek-R1-Distill-Llama-8B (sized as meta-llama/Llama-3.1-8B)`).
fn shown(s: &Served) -> String {
    match s.request.spec {
        Some(spec) if !spec.id.eq_ignore_ascii_case(&s.label) => {
            format!("{} (sized as {})", s.label, spec.id)
        }
        _ => s.label.clone(),
    }
}

/// The bound when the GPU type is not known: the model does not fit even the GPU with the
/// most memory among those the pod could land on (every catalog GPU when nothing narrows
/// them), on the count it is given. Said with the bound and what was assumed.
fn beyond_every_gpu(
    model: &Inventory,
    w: &Workload,
    pod: &PodShape,
    s: &Served,
    cx: &mut RuleContext<'_>,
) {
    let r = &s.request;
    if r.spec.is_some_and(|m| m.confidence == Confidence::U) {
        return;
    }
    let (choices, narrowed) = pod_gpu_choices(model, pod);
    let mut closest = None;
    for gpu in choices {
        // An unconfirmed GPU may be the one it fits.
        if gpu.confidence == Confidence::U {
            return;
        }
        let e = estimate(r, Some(gpu));
        let v = verdict(&e, r, gpu);
        if v.verdict != Fit::DoesNotFit {
            return;
        }
        if closest
            .as_ref()
            .is_none_or(|(_, c): &(_, Verdict)| v.shortfall_bytes < c.shortfall_bytes)
        {
            closest = Some((gpu, v));
        }
    }
    let Some((gpu, v)) = closest else { return };
    let (of, among) = if narrowed.is_some() {
        (
            "of the types it may land on",
            "the GPU types it may land on",
        )
    } else {
        (
            "whose type is not written",
            "every GPU in gpulint's catalog, since its GPU type is not written",
        )
    };
    let mut secondary = vec![(
        pod.gpus.span().cloned().unwrap_or_else(|| pod.span.clone()),
        format!("{} GPUs {of}", r.gpus),
    )];
    if let Some(at) = narrowed {
        secondary.push((at, "the GPU types it may land on".into()));
    }
    cx.report(Report {
        message: format!(
            "`{}` serves {} at {} on {} GPUs {of}, and fits none of them: even on {} × {}, the \
             closest, it needs {} per GPU against {} budgeted, {} short, beyond the estimate's \
             ±{} band",
            w.subject,
            shown(s),
            r.precision,
            r.gpus,
            r.gpus,
            gpu.name,
            human_bytes(v.need_bytes),
            human_bytes(v.usable_bytes),
            human_bytes(v.shortfall_bytes),
            human_bytes(v.band_bytes),
        ),
        help: format!(
            "give it more GPUs (tensor or pipeline parallel over them), quantize the weights, \
             or serve a smaller model; checked against {among}; `gpulint fit --model {} --gpu \
             {} --gpus {}` shows the breakdown",
            s.label, gpu.id, r.gpus
        )
        .into(),
        subject: w.subject.clone(),
        primary: (
            s.model_span.clone(),
            format!("needs {} per GPU", human_bytes(v.need_bytes)),
        ),
        secondary,
    });
}
