//! `missing-checkpoint-volume`: GPU training with nowhere persistent to write checkpoints.

use super::{Report, Rule, RuleContext, RuleMeta, because, pod_spot_only};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{Inventory, PodShape, Role, Value, VolumeSource};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Reliability,
    summary: "a GPU training workload with no persistent volume to write checkpoints to (an error on spot capacity)",
    options: &[],
};

pub struct MissingCheckpointVolume;

/// Volume sources that outlive the pod and its node.
fn persistent(source: &VolumeSource) -> bool {
    match source {
        VolumeSource::PersistentClaim(_) | VolumeSource::Csi(_) => true,
        VolumeSource::EmptyDir { .. } | VolumeSource::HostPath(_) => false,
        VolumeSource::Other(kind) => !matches!(
            kind.as_str(),
            "configMap" | "secret" | "downwardAPI" | "projected" | "gitRepo" | "image"
        ),
    }
}

fn has_checkpoint_volume(pod: &PodShape) -> bool {
    pod.containers.iter().any(|c| {
        c.mounts.iter().any(|m| {
            pod.volumes
                .iter()
                .any(|v| v.name == m.volume && persistent(&v.source))
        })
    })
}

impl Rule for MissingCheckpointVolume {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for w in &model.workloads {
            // A controller that writes the pods (Kaito) also writes where results go.
            if w.role.known() != Some(&Role::Training)
                || w.pods.iter().any(|p| p.generated_by.is_some())
            {
                continue;
            }
            let gpu_pods: Vec<&PodShape> = w
                .pods
                .iter()
                .filter(|p| matches!(&p.gpus, Value::Known(g, _) if g.count > 0))
                .collect();
            if gpu_pods.is_empty() || w.pods.iter().any(has_checkpoint_volume) {
                continue;
            }
            let pod = gpu_pods[0];
            let spot = gpu_pods.iter().find_map(|p| pod_spot_only(model, p));
            let on_spot = spot.is_some();
            let report = Report {
                message: format!(
                    "`{}` trains on GPUs with no persistent volume mounted: checkpoints written \
                     to the container die with the pod{}",
                    w.subject,
                    if on_spot {
                        ", and on spot capacity the pod will be reclaimed"
                    } else {
                        ""
                    }
                ) + &because(&w.role),
                help: "mount a PersistentVolumeClaim or a CSI volume (FSx for Lustre, EFS, GCS \
                       FUSE, Filestore, Azure Files) and write checkpoints there"
                    .into(),
                subject: w.subject.clone(),
                primary: (pod.span.clone(), "no persistent volume".into()),
                secondary: spot
                    .map(|s| (s, "spot capacity".into()))
                    .into_iter()
                    .collect(),
            };
            if on_spot {
                cx.report_as(Severity::Error, report);
            } else {
                cx.report(report);
            }
        }
    }
}
