//! `multi-node-without-fast-fabric`: multi-node training on machines with a fast fabric
//! (EFA, GPUDirect) that the configuration does not set up.

use super::{because, Report, Rule, RuleContext, RuleMeta, describe};
use crate::catalog::Fabric;
use crate::finding::{Category, Severity};
use crate::model::{Inventory, Provider, Role, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Performance,
    summary: "multi-node GPU training without EFA / InfiniBand / GPUDirect networking where the instance supports it",
    options: &[],
};

pub struct MultiNodeWithoutFastFabric;

impl Rule for MultiNodeWithoutFastFabric {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for c in &model.capacity {
            if c.role.known() != Some(&Role::Training) || c.multi_node() != Some(true) {
                continue;
            }
            // Set up, or configured in a way gpulint cannot read: nothing to say.
            if matches!(c.fast_fabric, Value::Known(true, _) | Value::Unknown(_)) {
                continue;
            }
            let Some((machines, span)) = c.gpu_machines() else {
                continue;
            };
            let Some((m, fabric)) = machines.into_iter().find_map(|m| match m.fabric {
                Some(f @ (Fabric::Efa | Fabric::GpudirectTcpx | Fabric::GpudirectTcpxo | Fabric::GpudirectRdma)) => {
                    Some((m, f))
                }
                _ => None,
            }) else {
                continue;
            };
            let name = fabric_name(fabric);
            cx.report(Report {
                message: format!(
                    "`{}` runs multi-node training on {} without {name}: the fabric it pays for \
                     sits idle and NCCL falls back to plain TCP between nodes",
                    c.subject,
                    describe(m)
                ) + &because(&c.role),
                help: help(c.provider).into(),
                subject: c.subject.clone(),
                primary: (span.clone(), format!("supports {name}, not set up")),
                secondary: Vec::new(),
            });
        }
    }
}

fn fabric_name(f: Fabric) -> &'static str {
    match f {
        Fabric::Efa => "EFA",
        Fabric::GpudirectTcpx => "GPUDirect-TCPX",
        Fabric::GpudirectTcpxo => "GPUDirect-TCPXO",
        Fabric::GpudirectRdma => "GPUDirect-RDMA",
        Fabric::Infiniband => "InfiniBand",
        Fabric::None => "a fast fabric",
    }
}

fn help(provider: Provider) -> &'static str {
    match provider {
        Provider::Aws => {
            "launch the nodes from an `aws_launch_template` with `network_interfaces { \
             interface_type = \"efa\" }` (one per EFA device) and an EFA-enabled AMI"
        }
        Provider::Gcp => {
            "give the node pool the GPU NICs: `network_config { additional_node_network_configs \
             { ... } }` for GPUDirect-TCPX/TCPXO/RDMA"
        }
        Provider::Azure => "keep the nodes in one VM scale set, where InfiniBand is set up",
        Provider::Kubernetes => "request the fabric's devices (e.g. vpc.amazonaws.com/efa)",
    }
}
