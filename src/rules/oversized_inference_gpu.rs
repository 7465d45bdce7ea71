//! `oversized-inference-gpu`: a small model served on a large GPU when a smaller GPU or
//! a MIG slice would hold it.

// Byte and core counts are positive and far below 2^52, where f64 is exact.
#![allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]

use super::{Report, Rule, RuleContext, RuleMeta, because, pod_gpu, served};
use crate::catalog::{Confidence, catalog};
use crate::finding::{Category, Severity};
use crate::fit::{estimate, human_bytes};
use crate::model::{Inventory, Role};

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
            for pod in &w.pods {
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
                // Suggest only GPUs a cloud offers, at most one generation older.
                let cat = catalog();
                let floor = cat.generation(gpu).saturating_sub(1);
                let smaller = cat
                    .gpus
                    .iter()
                    .filter(|g| {
                        g.usable_bytes() * 2 <= gpu.usable_bytes()
                            && budget(g.usable_bytes()) >= need
                    })
                    .filter(|g| g.confidence != Confidence::U && cat.generation(g) >= floor)
                    .filter(|g| cat.instances.iter().any(|i| i.gpu.id == g.id))
                    .min_by_key(|g| g.usable_bytes())
                    .map(|g| {
                        format!(
                            "{} ({} usable)",
                            g.name,
                            human_bytes(budget(g.usable_bytes()))
                        )
                    });
                let Some(suggestion) = mig.or(smaller) else {
                    continue;
                };
                cx.report(Report {
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
                });
            }
        }
    }
}
