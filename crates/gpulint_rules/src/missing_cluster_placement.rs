//! `missing-cluster-placement`: multi-node GPU training with nothing packing the nodes
//! close together.

use super::{Report, Rule, RuleContext, RuleMeta, because, describe, gpu_label};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{Capacity, CapacityKind, Dialect, Inventory, Placement, Provider, Role, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Performance,
    summary: "multi-node GPU training with no cluster placement group / compact placement",
    options: &[],
};

pub struct MissingClusterPlacement;

impl Rule for MissingClusterPlacement {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for c in &model.capacity {
            // A reservation holds capacity and decides where it is: a capacity block is
            // placed together, an ODCR is made in a placement group or not. Capacity that
            // runs on one is placed by it.
            if c.role.known() != Some(&Role::Training)
                || c.multi_node() != Some(true)
                || c.kind == CapacityKind::Reservation
                || c.reserved.is_some()
            {
                continue;
            }
            let Some((machines, span)) = c.gpu_machines() else {
                continue;
            };
            // Unknown placement (a group named by a variable) may be a cluster one.
            if matches!(
                c.placement,
                Value::Known(Placement::Cluster, _) | Value::Unknown(_)
            ) {
                continue;
            }
            cx.report(Report {
                message: format!(
                    "{} runs multi-node training on {} with no cluster placement: nodes may land \
                     far apart in the zone, adding latency to every collective",
                    super::group_subject(c),
                    describe(machines[0])
                ) + &because(&c.role),
                help: help(c).into(),
                subject: c.subject.clone(),
                primary: (c.header.clone(), "no cluster placement".into()),
                secondary: vec![(span.clone(), gpu_label(machines[0]))],
            });
        }
    }
}

fn help(c: &Capacity) -> &'static str {
    if c.written_in == Dialect::Eksctl {
        return "set `efaEnabled: true` (eksctl then creates a cluster placement group for the \
                group) or name a cluster placement group in `placement: { groupName: ... }`";
    }
    match c.provider {
        Provider::Aws => {
            "create an `aws_placement_group` with `strategy = \"cluster\"` and set it as the \
             group's `placement_group` (or the launch template's `placement { group_name }`)"
        }
        Provider::Gcp => {
            "add `placement_policy { type = \"COMPACT\" }` to the node pool (or a resource policy \
             with `group_placement_policy { collocation = \"COLLOCATED\" }` for VMs)"
        }
        Provider::Azure => {
            "put the nodes in one VM scale set or a proximity placement group \
             (`proximity_placement_group_id`)"
        }
        Provider::Kubernetes => "pack the training pods onto nodes placed together",
    }
}
