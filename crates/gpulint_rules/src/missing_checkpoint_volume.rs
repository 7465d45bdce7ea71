//! `missing-checkpoint-volume`: GPU training with nowhere persistent to write checkpoints.

use super::{Report, Rule, RuleContext, RuleMeta, because, pod_spot_only};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{
    Capacity, CapacityKind, Inventory, Market, PodShape, Provider, Role, Span, Value, VolumeSource,
};

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
        spot_capacity(model, cx);
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

/// Training on spot capacity with nowhere lasting to write checkpoints: a VM whose disks a
/// reclaim deletes (an error when it trains; a warning, said as such, when nothing says what
/// it runs), or a training pool whose configuration creates no storage its pods could keep
/// checkpoints on and whose pods are not in the run (when they are, they are judged above).
fn spot_capacity(model: &Inventory, cx: &mut RuleContext<'_>) {
    // The capacity some pod of the run lands on: those pods are judged above.
    let mut landed = vec![false; model.capacity.len()];
    for p in model.workloads.iter().flat_map(|w| &w.pods) {
        for &i in &p.landing {
            if let Some(l) = landed.get_mut(i) {
                *l = true;
            }
        }
    }
    let mut vms = Vec::new();
    for (i, c) in model.capacity.iter().enumerate() {
        let role = c.role.known();
        if role == Some(&Role::Inference) || c.held_gpus().is_none() {
            continue;
        }
        let Value::Known(Market::Spot, spot) = &c.market else {
            continue;
        };
        if c.kind == CapacityKind::Instance {
            if let Value::Known(false, lost) = &c.lasting_storage {
                vms.push((c, (lost.clone(), spot.clone(), role.is_some())));
            }
        } else if c.kind == CapacityKind::NodePool
            && role.is_some()
            && c.lasting_storage == Value::Absent
            && !landed[i]
        {
            spot_pool(c, spot, cx);
        }
    }
    // The instances of one `count` block are one finding.
    for (members, (lost, spot, trains)) in super::fleet::group(vms) {
        let c = members[0];
        // A spot request is spot and loses its disks by the same block: one label.
        let mut secondary: Vec<_> = (spot != lost)
            .then(|| (spot, "spot capacity".into()))
            .into_iter()
            .collect();
        let (subject, who, one) = match super::fleet::instances(model, &members) {
            None => (c.subject.clone(), format!("`{}`", c.subject), true),
            Some((block, which, count)) => {
                secondary.push(count);
                (block, which, false)
            }
        };
        let (s, it) = if one { ("s", "it") } else { ("", "each") };
        let report = Report {
            message: if trains {
                format!(
                    "{who} train{s} on spot capacity, and a reclaim deletes {it} with its \
                     disks: every checkpoint written to them since the last copy elsewhere is \
                     lost{}",
                    because(&c.role)
                )
            } else {
                format!(
                    "{who} run{s} on spot capacity, and a reclaim deletes {it} with its disks: a \
                     training run or batch job on it loses every checkpoint and result \
                     written there since the last copy elsewhere (nothing here says what it \
                     runs; if it only serves, the loss is its cache)"
                )
            },
            help: vm_help(c).into(),
            subject,
            primary: (lost, "disks deleted with the machine".into()),
            secondary,
        };
        if trains {
            cx.report_as(Severity::Error, report);
        } else {
            cx.report(report);
        }
    }
}

/// A spot training pool whose configuration gives its pods no lasting storage.
fn spot_pool(c: &Capacity, spot: &Span, cx: &mut RuleContext<'_>) {
    cx.report(Report {
        message: format!(
            "`{}` trains on spot capacity, and nothing in its configuration gives its pods \
             lasting storage (no shared file system, file or object-storage CSI driver, or \
             checkpoint bucket): a reclaim restarts each job from its last checkpoint kept \
             elsewhere, or from step 0{}",
            c.subject,
            because(&c.role)
        ),
        help: pool_help(c).into(),
        subject: c.subject.clone(),
        primary: (spot.clone(), "spot capacity".into()),
        secondary: Vec::new(),
    });
}

/// Where a spot training pool's pods can keep checkpoints, on its cloud.
fn pool_help(c: &Capacity) -> &'static str {
    match c.provider {
        Provider::Gcp => {
            "mount Filestore, Parallelstore or Cloud Storage (the GCS FUSE CSI driver: \
             `addons_config { gcs_fuse_csi_driver_config { enabled = true } }`) into the \
             training pods, write checkpoints there while the job runs and resume from the \
             latest; or train on on-demand nodes"
        }
        Provider::Azure => {
            "mount Azure Files, Azure Managed Lustre or Blob storage (the blob CSI driver) \
             into the training pods, write checkpoints there while the job runs and resume \
             from the latest; or train on a `Regular` priority pool"
        }
        _ => {
            "mount EFS, FSx for Lustre or S3 (the `aws-efs-csi-driver`, `aws-fsx-csi-driver` \
             or `aws-mountpoint-s3-csi-driver` add-on) into the training pods, write \
             checkpoints there while the job runs and resume from the latest; or train on \
             on-demand nodes"
        }
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
