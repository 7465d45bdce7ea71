//! `missing-shm`: a multi-GPU PyTorch pod without a memory-backed `/dev/shm`.

use super::{Report, Rule, RuleContext, RuleMeta};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{Inventory, PodShape, Role, Value, Volume, VolumeSource};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Reliability,
    summary: "a multi-GPU PyTorch pod without a memory-backed `/dev/shm`",
    options: &[],
};

pub struct MissingShm;

/// What each mount at `/dev/shm` mounts: the volume the pod declares by that name, or
/// `None` for one it does not declare.
fn shm_mounts(pod: &PodShape) -> impl Iterator<Item = Option<&Volume>> {
    pod.containers
        .iter()
        .flat_map(|c| &c.mounts)
        .filter(|m| m.path.trim_end_matches('/') == "/dev/shm")
        .map(|m| pod.volumes.iter().find(|v| v.name == m.volume))
}

/// Shared memory mounted at `/dev/shm`: a `medium: Memory` emptyDir, or the node's own
/// `/dev/shm` through a hostPath. A mount of a volume the pod does not declare counts too:
/// a pod that mounts an undeclared volume is invalid unless something adds it (an
/// operator's webhook, a runtime merged in), so it is not judged missing.
fn has_shm(pod: &PodShape) -> bool {
    shm_mounts(pod).any(|volume| {
        volume.is_none_or(|v| match &v.source {
            VolumeSource::EmptyDir { memory } => *memory,
            VolumeSource::HostPath(p) => p.trim_end_matches('/') == "/dev/shm",
            _ => false,
        })
    })
}

/// The volume of a disk-backed emptyDir mounted at `/dev/shm`, where it is declared.
fn disk_backed_shm(pod: &PodShape) -> Option<gpulint_model::Span> {
    shm_mounts(pod).flatten().find_map(|v| {
        matches!(v.source, VolumeSource::EmptyDir { memory: false }).then(|| v.span.clone())
    })
}

impl Rule for MissingShm {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for w in &model.workloads {
            for pod in w.pods.iter().filter(|p| p.generated_by.is_none()) {
                // A GPU framework in the pod: a training launcher, a serving engine, a
                // training workload, or Ray.
                let framework = pod.launcher.is_some()
                    || pod.serving.is_some()
                    || w.role.known() == Some(&Role::Training)
                    || w.kind.starts_with("Ray")
                    || w.benchmark.as_ref().is_some_and(|b| b.collective);
                // KubeRay mounts /dev/shm in the pods it makes (catalog: workloads.toml).
                if !framework
                    || w.benchmark.as_ref().is_some_and(|b| !b.collective)
                    || pod.shm_by.is_some()
                {
                    continue;
                }
                let Value::Known(gpus, span) = &pod.gpus else {
                    continue;
                };
                if gpus.count < 2 || has_shm(pod) {
                    continue;
                }
                let what = w.benchmark.as_ref().map_or("PyTorch", |b| b.name);
                if let Some(at) = disk_backed_shm(pod) {
                    // The 64 MiB limit is gone; the pages live on the node's disk.
                    cx.report_as(
                        Severity::Info,
                        Report {
                            message: format!(
                                "`{}` runs {what} on {} GPUs per pod with a disk-backed \
                                 emptyDir at `/dev/shm`: it lifts the 64 MiB limit, but NCCL's \
                                 shared-memory transport and data loaders then page through \
                                 the node's disk",
                                w.subject, gpus.count
                            ),
                            help: "add `medium: Memory` (with a `sizeLimit`) to the emptyDir \
                                   mounted at `/dev/shm`"
                                .into(),
                            subject: w.subject.clone(),
                            primary: (at, "no `medium: Memory`".into()),
                            secondary: vec![(span.clone(), format!("{} GPUs", gpus.count))],
                        },
                    );
                    continue;
                }
                cx.report(Report {
                    message: format!(
                        "`{}` runs {} on {} GPUs per pod with the container's default 64 MiB \
                         `/dev/shm`: NCCL and data loaders fail or crawl once it fills",
                        w.subject, what, gpus.count
                    ),
                    help: "mount an `emptyDir: { medium: Memory, sizeLimit: 16Gi }` volume at \
                           `/dev/shm` in the container"
                        .into(),
                    subject: w.subject.clone(),
                    primary: (span.clone(), format!("{} GPUs, no /dev/shm", gpus.count)),
                    secondary: Vec::new(),
                });
            }
        }
    }
}
