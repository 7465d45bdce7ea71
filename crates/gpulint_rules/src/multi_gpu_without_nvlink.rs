//! `multi-gpu-without-nvlink`: multi-GPU training on GPUs joined only by PCIe.

use super::{Report, Rule, RuleContext, RuleMeta, because, describe, pod_gpu};
use gpulint_diagnostics::{Category, Severity};
use gpulint_facts::{Confidence, Interconnect, catalog};
use gpulint_model::{Inventory, Provider, Role, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Performance,
    summary: "multi-GPU training or tensor parallelism on GPUs joined only by PCIe",
    options: &[],
};

pub struct MultiGpuWithoutNvlink;

impl Rule for MultiGpuWithoutNvlink {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        // Kubernetes: several GPUs in a pod, for training or tensor parallelism, of a GPU
        // model that has no NVLink on any machine.
        for w in &model.workloads {
            for pod in &w.pods {
                let Value::Known(g, gpus_span) = &pod.gpus else {
                    continue;
                };
                let tp = pod
                    .serving
                    .as_ref()
                    .and_then(|s| s.tp.as_ref())
                    .map_or(1, |t| t.0);
                let training = w.role.known() == Some(&Role::Training);
                if g.count < 2 || !(training || tp > 1) {
                    continue;
                }
                let Some((gpu, at)) = pod_gpu(model, pod) else {
                    continue;
                };
                if gpu.nvlink.is_some() || gpu.confidence == Confidence::U {
                    continue;
                }
                let report = Report {
                    message: format!(
                        "`{}` {} across {} × {} per pod, GPUs with no NVLink: {}",
                        w.subject,
                        if training { "trains" } else { "shards a model" },
                        g.count,
                        gpu.name,
                        if training {
                            "the traffic between them crawls over PCIe"
                        } else {
                            "every layer's all-reduce crosses PCIe, which costs some throughput"
                        }
                    ) + &because(&w.role),
                    help: if training {
                        "run multi-GPU training or tensor parallelism on NVLink GPUs (A100, H100, \
                         H200, B200 SXM), or one GPU per replica here"
                            .into()
                    } else {
                        serving_help(pod.selection.gpus_provider, gpu).into()
                    },
                    subject: w.subject.clone(),
                    primary: (gpus_span.clone(), format!("{} GPUs", g.count)),
                    secondary: vec![(at, format!("{} (no NVLink)", gpu.name))],
                };
                // Serving sends one all-reduce per layer per token, far less than training's
                // gradients: on a GPU no machine joins by NVLink, sharding is how the model
                // fits at all. Said, not warned.
                if training {
                    cx.report(report);
                } else {
                    cx.report_as(Severity::Info, report);
                }
            }
        }
        for c in &model.capacity {
            let tp = c.tensor_parallel.as_ref().filter(|(n, _)| *n > 1);
            let training = c.role.known() == Some(&Role::Training);
            if !training && tp.is_none() {
                continue;
            }
            let Some((machines, span)) = c.gpu_machines() else {
                continue;
            };
            // Only shapes the catalog is sure of: a rule never fails a build on an
            // unconfirmed fact.
            let Some(m) = machines.into_iter().find(|m| {
                m.gpus.as_ref().is_some_and(|g| {
                    g.count > 1
                        && g.interconnect == Interconnect::Pcie
                        && g.confidence != Confidence::U
                })
            }) else {
                continue;
            };
            // Serving with tensor parallelism, from its start-up script: said, not warned,
            // as for a pod.
            if let (false, Some((n, at)), Some(g)) = (training, tp, m.gpus.as_ref()) {
                cx.report_as(
                    Severity::Info,
                    Report {
                        message: format!(
                            "`{}` shards a model over {n} GPUs of {} with tensor parallelism, \
                             GPUs with no NVLink: every layer's all-reduce crosses PCIe, which \
                             costs some throughput",
                            c.subject,
                            describe(m)
                        ),
                        help: serving_help(Some(c.provider), g.gpu).into(),
                        subject: c.subject.clone(),
                        primary: (at.clone(), format!("tensor parallel {n}")),
                        secondary: vec![(span.clone(), "PCIe only, no NVLink".into())],
                    },
                );
                continue;
            }
            cx.report(Report {
                message: format!(
                    "`{}` trains on {}, GPUs joined only by PCIe: gradient all-reduce and \
                     tensor-parallel traffic crawl over PCIe instead of NVLink",
                    c.subject,
                    describe(m)
                ) + &because(&c.role),
                help: help(c.provider).into(),
                subject: c.subject.clone(),
                primary: (span.clone(), "PCIe only, no NVLink".into()),
                secondary: Vec::new(),
            });
        }
    }
}

/// For serving on a GPU with no NVLink shape: the machines of that cloud (or any cloud)
/// whose GPUs do have NVLink, by the catalog.
fn serving_help(cloud: Option<Provider>, gpu: &gpulint_facts::Gpu) -> String {
    let mut shapes: Vec<&str> = catalog()
        .instances
        .iter()
        .filter(|i| cloud.is_none_or(|c| i.provider == c))
        .filter(|i| i.row.count > 1 && i.row.interconnect != Interconnect::Pcie)
        .map(|i| i.row.name.as_str())
        .collect();
    shapes.truncate(4);
    let cloud = cloud.map_or("any cloud", Provider::as_str);
    format!(
        "tensor parallelism over PCIe is acceptable for serving when the model needs the memory \
         (no machine joins {} GPUs by NVLink); for more tokens per second, serve a model that fits \
         one GPU per replica, or move to NVLink GPUs (on {}: {})",
        gpu.name,
        cloud,
        if shapes.is_empty() {
            "none in the catalog".to_string()
        } else {
            shapes.join(", ")
        }
    )
}

fn help(provider: Provider) -> &'static str {
    match provider {
        Provider::Aws => {
            "train multi-GPU on an NVLink shape (p4d, p4de, p5, p5e, p6), or keep these GPUs for \
             inference and single-GPU jobs"
        }
        Provider::Gcp => {
            "train multi-GPU on an NVLink shape (a2, a3, a4), or keep these GPUs for inference and \
             single-GPU jobs"
        }
        Provider::Azure => {
            "train multi-GPU on an ND-series size (NVLink), or keep these GPUs for inference and \
             single-GPU jobs"
        }
        Provider::Kubernetes => "schedule multi-GPU training on NVLink nodes",
    }
}
