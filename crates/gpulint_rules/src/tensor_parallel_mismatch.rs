//! `tensor-parallel-mismatch`: tensor × pipeline parallel differs from the GPUs the pod
//! requests, or tensor parallel does not divide the model's attention heads.

use super::{Report, Rule, RuleContext, RuleMeta, served};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{Inventory, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Error,
    category: Category::Correctness,
    summary: "tensor × pipeline parallel size differs from the GPUs requested, or does not divide the model's attention heads",
    options: &[],
};

/// Kinds whose engines span several pods: their GPUs per pod are not the whole replica.
const MULTI_NODE_KINDS: [&str; 4] = ["LeaderWorkerSet", "RayCluster", "RayService", "RayJob"];

pub struct TensorParallelMismatch;

impl Rule for TensorParallelMismatch {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for w in &model.workloads {
            // An engine spread over several pods has a share of its GPUs in each.
            if MULTI_NODE_KINDS.contains(&w.kind.as_str()) || w.spans.is_some() {
                continue;
            }
            for pod in &w.pods {
                let Some(s) = served(pod) else { continue };
                let Value::Known(given, gpus_span) = &pod.gpus else {
                    continue;
                };
                let (tp, tp_span) = &s.tp;
                let (dp, _) = &s.dp;
                let want = tp.saturating_mul(s.pp).saturating_mul(*dp);
                let layout = if *dp > 1 {
                    format!("tensor {tp} × pipeline {} × data {dp}", s.pp)
                } else {
                    format!("tensor {tp} × pipeline {}", s.pp)
                };
                let at = tp_span.clone().unwrap_or_else(|| gpus_span.clone());
                let ranks = if *dp > 1 {
                    " × data-parallel ranks"
                } else {
                    ""
                };
                let help = format!(
                    "make `--tensor-parallel-size` × `--pipeline-parallel-size`{ranks} equal the \
                     GPUs the pod requests ({})",
                    given.count
                );
                // An engine that places ranks in other pods counts their GPUs too: this
                // pod's request is its share (the heads check below still holds).
                let spans_pods = pod.serving.as_ref().is_some_and(|s| s.spans_pods.is_some());
                if want != given.count && !spans_pods {
                    let message = if want > given.count {
                        format!(
                            "`{}` asks the engine for {want} GPUs ({layout}) but the pod requests \
                             {}: it cannot start",
                            w.subject, given.count
                        )
                    } else {
                        let idle = match given.count - want {
                            1 => "1 GPU sits idle and bills".to_string(),
                            n => format!("{n} GPUs sit idle and bill"),
                        };
                        format!(
                            "`{}` requests {} GPUs but the engine uses {want} ({layout}): {idle}",
                            w.subject, given.count
                        )
                    };
                    cx.report(Report {
                        message,
                        help: help.into(),
                        subject: w.subject.clone(),
                        primary: (at, layout),
                        secondary: vec![(
                            gpus_span.clone(),
                            format!("{} GPUs requested", given.count),
                        )],
                    });
                    continue;
                }
                if let Some(spec) = s.request.spec
                    && *tp > 1
                    && spec.heads % tp != 0
                {
                    cx.report(Report {
                        message: format!(
                            "`{}` shards {} over tensor parallel {tp}, which does not divide its \
                                 {} attention heads: the engine refuses to start",
                            w.subject, s.label, spec.heads
                        ),
                        help: format!(
                            "use a tensor parallel size that divides {} (and the GPUs to match)",
                            spec.heads
                        )
                        .into(),
                        subject: w.subject.clone(),
                        primary: (at, format!("{} heads / {tp}", spec.heads)),
                        secondary: Vec::new(),
                    });
                }
            }
        }
    }
}
