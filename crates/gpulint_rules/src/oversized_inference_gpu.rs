//! `oversized-inference-gpu`: a small model served on a large GPU when a smaller GPU or
//! a MIG slice would hold it.

// Byte and core counts are positive and far below 2^52, where f64 is exact.
#![allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]

use super::{GpuHour, Report, Rule, RuleContext, RuleMeta, because, pod_gpu, pod_gpu_hour, served};
use gpulint_diagnostics::{Category, Cost, Severity};
use gpulint_facts::prices::usd;
use gpulint_facts::{Confidence, Gpu, catalog};
use gpulint_fit::{estimate, human_bytes};
use gpulint_model::{Inventory, PodShape, Role};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Info,
    category: Category::Cost,
    summary: "a small model served on large training GPUs (a smaller GPU or MIG slice fits)",
    options: &[],
};

pub struct OversizedInferenceGpu;

/// `1g.10gb` → 10 GB.
fn profile_bytes(profile: &str) -> Option<u64> {
    let gb: u64 = profile
        .split('.')
        .nth(1)?
        .strip_suffix("gb")?
        .parse()
        .ok()?;
    Some(gb * 1_000_000_000)
}

impl Rule for OversizedInferenceGpu {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for w in model
            .workloads
            .iter()
            .filter(|w| w.role.known() == Some(&Role::Inference))
        {
            // A share of a GPU is already sized to the model.
            for pod in w.pods.iter().filter(|p| p.shared.is_none()) {
                let (Some(s), Some((gpu, gpu_span))) = (served(pod), pod_gpu(model, pod)) else {
                    continue;
                };
                // One whole GPU per replica, of a confirmed kind.
                if s.request.gpus != 1 || gpu.confidence == Confidence::U {
                    continue;
                }
                let need = estimate(&s.request, Some(gpu)).per_gpu.total_bytes;
                let budget = |bytes: u64| (bytes as f64 * s.request.utilization()) as u64;
                let usable = budget(gpu.usable_bytes());
                // Flag only when the model uses under half of the GPU.
                if need * 2 > usable {
                    continue;
                }
                let mig = gpu
                    .mig_profiles
                    .iter()
                    .filter_map(|p| Some((p, profile_bytes(p)?)))
                    .filter(|(_, b)| budget(*b) >= need)
                    .min_by_key(|(_, b)| *b)
                    .map(|(p, _)| format!("a {p} MIG slice of this GPU"));
                // Suggest only whole GPUs a cloud offers, at most one generation older: the
                // pod's cloud's when known. A machine's share of a GPU (a vGPU partition:
                // g6f, NVads A10 v5, fractional G4) is no `nvidia.com/gpu` a pod requests.
                let cat = catalog();
                let floor = cat.generation(gpu).saturating_sub(1);
                // What the pod's GPU costs now, read once: its cloud, and the saving.
                let now = pod_gpu_hour(model, pod);
                let cloud = now.as_ref().filter(|h| h.cloud_known).map(|h| h.provider);
                // GCP also attaches GPUs to N1 machines (`accelerators`).
                let offered = |g: &Gpu| {
                    let attached = cloud.is_none_or(|p| p == gpulint_model::Provider::Gcp)
                        && cat.accelerators.iter().any(|a| a.gpu.id == g.id);
                    g.partition_of.is_none()
                        && (attached
                            || cat
                                .instances
                                .iter()
                                .any(|i| i.gpu.id == g.id && cloud.is_none_or(|p| i.provider == p)))
                };
                let smaller_gpu = cat
                    .gpus
                    .iter()
                    .filter(|g| {
                        g.usable_bytes() * 2 <= gpu.usable_bytes()
                            && budget(g.usable_bytes()) >= need
                    })
                    .filter(|g| g.confidence != Confidence::U && cat.generation(g) >= floor)
                    .filter(|g| offered(g))
                    .min_by_key(|g| g.usable_bytes());
                let smaller = smaller_gpu.map(|g| {
                    format!(
                        "{} ({} usable)",
                        g.name,
                        human_bytes(budget(g.usable_bytes()))
                    )
                });
                // A slice has no list price; a smaller GPU's machine may.
                let cost = smaller_gpu.and_then(|g| overspend(now.as_ref()?, pod, g));
                let suggestion = match (mig, smaller) {
                    (Some(m), Some(s)) => format!("{m} or an {s}"),
                    (Some(one), None) | (None, Some(one)) => one,
                    (None, None) => continue,
                };
                cx.report_costed(Report {
                    message: format!(
                        "`{}` serves {} ({} per GPU) on a whole {} ({} usable): {suggestion} would \
                         hold it for a fraction of the price",
                        w.subject,
                        s.label,
                        human_bytes(need),
                        gpu.name,
                        human_bytes(usable)
                    ) + &because(&w.role),
                    help:
                        "serve it on the smaller GPU or slice, or pack several models or replicas \
                           onto this GPU; `gpulint fit` lists what fits"
                            .into(),
                    subject: w.subject.clone(),
                    primary: (gpu_span, format!("{} for {}", gpu.name, human_bytes(need))),
                    secondary: vec![(s.model_span.clone(), s.label.clone())],
                }, cost);
            }
        }
    }
}

/// What serving on this GPU costs over the smaller one, an hour: each replica's GPU share
/// of the machine it lands on, less the cheapest share of a machine of the same cloud
/// with the smaller GPU. `None` when either is not priced or nothing is saved. `now`: the
/// pod's GPU hour ([`pod_gpu_hour`]).
fn overspend(now: &GpuHour, pod: &PodShape, smaller: &Gpu) -> Option<Cost> {
    // The smaller GPU is priced on the pod's cloud: unknown, no bound is certain.
    if !now.cloud_known {
        return None;
    }
    let cat = catalog();
    let (there, share) = cat
        .instances
        .iter()
        .filter(|i| i.provider == now.provider && i.gpu.id == smaller.id && i.row.count > 0)
        .filter_map(|i| {
            let q = cat.prices.quote_instance(i.provider, &i.row.name)?;
            let share = q.usd_per_hour / f64::from(i.row.count);
            Some(((i, q), share))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let saved = now.per_gpu() - share;
    if saved <= 0.0 {
        return None;
    }
    let (replicas, exact) = pod.replicas_at_least();
    let dated = if there.1.as_of == now.quote.as_of {
        String::new()
    } else {
        format!(", as of {}", there.1.as_of)
    };
    let what = format!(
        "{}{replicas} GPU{}: {}/GPU-hour ({}{}), against {} ({}a {}{dated})",
        if !exact || now.cheapest_of.is_some() {
            "at least "
        } else {
            ""
        },
        if replicas == 1 { "" } else { "s" },
        usd(now.per_gpu()),
        now.share(),
        now.cheapest(),
        usd(share),
        if there.0.row.count == 1 {
            String::new()
        } else {
            format!("1/{} of ", there.0.row.count)
        },
        there.0.row.name,
    );
    Some(
        Cost::hourly(
            saved * f64::from(replicas),
            &now.quote,
            now.region.as_deref(),
            &what,
        )
        .labelled("overspend"),
    )
}
