//! `missing-checkpoint-volume`: GPU training with nowhere persistent to write checkpoints.

use super::{Report, Rule, RuleContext, RuleMeta, because, pod_spot_only};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{Capacity, Inventory, Market, PodShape, Provider, Role, Value, VolumeSource};

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
        spot_vms(model, cx);
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

/// Training on a spot VM whose disks a reclaim deletes: every checkpoint written there goes
/// with the machine.
fn spot_vms(model: &Inventory, cx: &mut RuleContext<'_>) {
    for c in &model.capacity {
        if c.role.known() != Some(&Role::Training) || c.held_gpus().is_none() {
            continue;
        }
        let (Value::Known(Market::Spot, spot), Value::Known(false, lost)) =
            (&c.market, &c.lasting_storage)
        else {
            continue;
        };
        let report = Report {
            message: format!(
                "`{}` trains on spot capacity, and a reclaim deletes it with its disks: \
                 every checkpoint written to them since the last copy elsewhere is lost{}",
                c.subject,
                because(&c.role)
            ),
            help: vm_help(c).into(),
            subject: c.subject.clone(),
            primary: (lost.clone(), "disks deleted with the machine".into()),
            secondary: vec![(spot.clone(), "spot capacity".into())],
        };
        cx.report_as(Severity::Error, report);
    }
}

/// How to keep a VM's checkpoints through a reclaim, on its cloud.
fn vm_help(c: &Capacity) -> &'static str {
    match c.provider {
        Provider::Gcp => {
            "keep the disks through a preemption: `instance_termination_action = \"STOP\"` \
             (the default), an `attached_disk`, or `auto_delete = false` on the boot disk; \
             or write checkpoints to Cloud Storage or Filestore while the job runs, and \
             resume from the latest"
        }
        Provider::Azure => {
            "keep the disks through an eviction: `eviction_policy = \"Deallocate\"` (the \
             default) or a managed data disk attached to the VM; or write checkpoints to \
             Blob Storage or Azure Files while the job runs, and resume from the latest"
        }
        _ => {
            "keep a volume through the interruption: `delete_on_termination = false`, an \
             `aws_ebs_volume` with an `aws_volume_attachment`, or an interruption behaviour \
             of `stop`; or write checkpoints to S3, EFS or FSx while the job runs (a copy \
             made only when the job ends is lost with it), and resume from the latest"
        }
    }
}
