//! What becomes of a VM's disks when spot capacity is taken back: whether a training run
//! on it keeps the checkpoints it wrote ([`gpulint_model::Capacity::lasting_storage`]).
//!
//! Each cloud decides by its own defaults. AWS terminates a spot instance and deletes its
//! EBS root volume unless told otherwise; GCE stops a Spot VM and keeps its disks unless its
//! termination action is `DELETE`; Azure deallocates a Spot VM and keeps its disks unless
//! its eviction policy is `Delete`. A volume that is kept, attached or mounted from
//! elsewhere keeps them on every cloud, and so does a start-up script that mounts a file
//! system or keeps copying to object storage (`[lasting_storage]` in workloads.toml).

use gpulint_model::{Span, Value};
use gpulint_terraform::{Block, Resource};

use crate::refers_to;
use crate::role::{ENCODINGS, STARTUP_KEYS, startup_args, startup_scripts};

/// An EC2 instance (`aws_instance`, `aws_spot_instance_request`); `attachments` are the
/// module's `aws_volume_attachment`s.
pub(crate) fn aws(r: &Resource<'_>, attachments: &[Resource<'_>]) -> Value<bool> {
    let b = &r.block;
    // A spot request writes the behaviour itself (older providers spell it the British
    // way); an instance in its market options.
    let behaviour = match b.block("instance_market_options") {
        Value::Known(opts, _) => match opts.block("spot_options") {
            Value::Known(spot, _) => spot.str("instance_interruption_behavior"),
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => Value::Absent,
        },
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => [
            "instance_interruption_behavior",
            "instance_interruption_behaviour",
        ]
        .iter()
        .map(|k| b.str(k))
        .find(|v| *v != Value::Absent)
        .unwrap_or(Value::Absent),
    };
    match behaviour {
        Value::Known(how, s) if how == "stop" || how == "hibernate" => {
            return Value::Known(true, s);
        }
        Value::Unknown(s) => return Value::Unknown(s),
        _ => {}
    }
    let mut lost_at = None;
    for device in ["root_block_device", "ebs_block_device"] {
        let Value::Known(blocks, _) = b.blocks(device) else {
            continue;
        };
        for d in blocks {
            match d.bool("delete_on_termination") {
                Value::Known(false, s) => return Value::Known(true, s),
                Value::Unknown(s) => return Value::Unknown(s),
                Value::Known(true, s) if device == "root_block_device" => lost_at = Some(s),
                _ => {}
            }
        }
    }
    if let Some(a) = attachments
        .iter()
        .find(|a| refers_to(&a.block, "instance_id", r))
    {
        return Value::Known(true, a.header());
    }
    if let Some(s) = startup(b) {
        return Value::Known(true, s);
    }
    Value::Known(false, lost_at.unwrap_or_else(|| r.header()))
}

/// A GCE instance: it keeps its disks unless a reclaim deletes it
/// (`instance_termination_action = "DELETE"`) and they go with it.
pub(crate) fn gcp(r: &Resource<'_>) -> Value<bool> {
    let b = &r.block;
    let action = match b.block("scheduling") {
        Value::Known(s, _) => s.str("instance_termination_action"),
        Value::Unknown(s) => return Value::Unknown(s),
        Value::Absent => Value::Absent,
    };
    let deleted_at = match action {
        Value::Known(a, s) if a.eq_ignore_ascii_case("DELETE") => s,
        Value::Known(_, s) => return Value::Known(true, s),
        Value::Unknown(s) => return Value::Unknown(s),
        // STOP is the default: the disks stay.
        Value::Absent => return Value::Known(true, r.header()),
    };
    if let Value::Known(boot, _) = b.block("boot_disk") {
        match boot.bool("auto_delete") {
            Value::Known(false, s) => return Value::Known(true, s),
            Value::Unknown(s) => return Value::Unknown(s),
            _ => {}
        }
    }
    // A disk attached beside the boot disk is not deleted with the VM.
    if let Some(s) = b.block("attached_disk").span() {
        return Value::Known(true, s.clone());
    }
    if let Some(s) = startup(b) {
        return Value::Known(true, s);
    }
    Value::Known(false, deleted_at)
}

/// An Azure VM: it keeps its disks unless an eviction deletes it (`eviction_policy =
/// "Delete"`). `attachments` are the module's `azurerm_virtual_machine_data_disk_attachment`s.
pub(crate) fn azure(r: &Resource<'_>, attachments: &[Resource<'_>]) -> Value<bool> {
    let b = &r.block;
    let deleted_at = match b.str("eviction_policy") {
        Value::Known(p, s) if p.eq_ignore_ascii_case("Delete") => s,
        Value::Known(_, s) => return Value::Known(true, s),
        Value::Unknown(s) => return Value::Unknown(s),
        // Deallocate is the default: the disks stay.
        Value::Absent => return Value::Known(true, r.header()),
    };
    if let Some(a) = attachments
        .iter()
        .find(|a| refers_to(&a.block, "virtual_machine_id", r))
    {
        return Value::Known(true, a.header());
    }
    if let Some(s) = startup(b) {
        return Value::Known(true, s);
    }
    Value::Known(false, deleted_at)
}

/// Where a VM's start-up sets up lasting storage: its script, or a variable its
/// `templatefile()` is rendered with (see [`gpulint_facts::workloads::LastingStorage`]).
fn startup(b: &Block<'_>) -> Option<Span> {
    let lasting = &gpulint_facts::workloads::workloads().lasting_storage;
    for script in startup_scripts(b) {
        if let Value::Known(text, span) = script
            && lasting.line_in(&text).is_some()
        {
            return Some(span);
        }
    }
    // A file system's variable counts whatever it holds (`efs_id = aws_efs_file_system.x.id`).
    if startup_args(b)
        .iter()
        .any(|(k, _)| lasting.names_file_system(k))
    {
        return STARTUP_KEYS.iter().find_map(|k| b.span_of(k));
    }
    STARTUP_KEYS
        .iter()
        .flat_map(|k| b.template_vars(k, &ENCODINGS))
        .find(|(k, v, _)| lasting.checkpoint_store(k, v))
        .map(|(_, _, span)| span)
}

/// Where a module creates storage that a cluster's pods can keep checkpoints on through a
/// spot reclaim: a shared file system, a CSI driver that mounts file systems or object
/// storage into pods, GKE's add-on for one, or a bucket named for checkpoints (the lists
/// are `[lasting_storage]` in workloads.toml).
pub(crate) fn shared(module: &gpulint_terraform::Module<'_>) -> Option<Span> {
    let lasting = &gpulint_facts::workloads::workloads().lasting_storage;
    let listed = |name: &str, list: &[String]| list.iter().any(|d| d == name);
    for r in module.resources() {
        let b = &r.block;
        let found = match r.rtype {
            t if listed(t, &lasting.file_systems) => true,
            "aws_eks_addon" => b
                .str("addon_name")
                .known()
                .is_some_and(|n| listed(n, &lasting.csi_drivers)),
            "helm_release" => b
                .str("chart")
                .known()
                .is_some_and(|n| listed(n, &lasting.csi_drivers)),
            "google_container_cluster" => match b.block("addons_config") {
                Value::Known(addons, _) => lasting.gke_addons.iter().any(|a| {
                    matches!(addons.block(a), Value::Known(on, _)
                        if matches!(on.bool("enabled"), Value::Known(true, _)))
                }),
                _ => false,
            },
            t => lasting.buckets.get(t).is_some_and(|keys| {
                keys.iter().any(|k| {
                    b.str(k)
                        .known()
                        .is_some_and(|n| lasting.names_checkpoints(n))
                })
            }),
        };
        if found {
            return Some(r.header());
        }
    }
    for call in module.calls() {
        let b = &call.block;
        let input = lasting
            .module_inputs
            .iter()
            .find(|k| matches!(b.bool(k), Value::Known(true, _)));
        let addon = ["cluster_addons", "addons", "eks_addons"]
            .into_iter()
            .find(|k| match b.value(k) {
                Value::Known(hcl::Value::Object(map), _) => {
                    map.keys().any(|n| listed(n, &lasting.csi_drivers))
                }
                _ => false,
            });
        if let Some(k) = input.map(String::as_str).or(addon) {
            return b.span_of(k).or_else(|| Some(b.header.clone()));
        }
    }
    None
}
