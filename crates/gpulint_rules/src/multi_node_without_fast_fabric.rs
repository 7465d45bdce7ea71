//! `multi-node-without-fast-fabric`: multi-node training on machines with a fast fabric
//! (EFA, GPUDirect) that the configuration does not set up: Terraform pools, and Kubernetes
//! workloads whose pods span nodes without requesting the fabric.

use super::{Report, Rule, RuleContext, RuleMeta, because, describe};
use gpulint_diagnostics::{Category, Severity};
use gpulint_facts::{Fabric, catalog};
use gpulint_model::{
    Capacity, CapacityKind, Dialect, Inventory, PodShape, Provider, Role, Value, Workload,
};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Performance,
    summary: "multi-node GPU training without EFA / InfiniBand / GPUDirect networking where the instance supports it",
    options: &[],
};

pub struct MultiNodeWithoutFastFabric;

impl Rule for MultiNodeWithoutFastFabric {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for w in &model.workloads {
            check_workload(model, w, cx);
        }
        for c in &model.capacity {
            // A reservation holds capacity: the instances that use it are set up (fabric,
            // placement) where they are launched.
            if c.role.known() != Some(&Role::Training)
                || c.multi_node() != Some(true)
                || c.kind == CapacityKind::Reservation
            {
                continue;
            }
            if partly_set_up(c, cx) {
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
                Some(
                    f @ (Fabric::Efa
                    | Fabric::GpudirectTcpx
                    | Fabric::GpudirectTcpxo
                    | Fabric::GpudirectRdma),
                ) => Some((m, f)),
                _ => None,
            }) else {
                continue;
            };
            let name = fabric_name(fabric);
            cx.report(Report {
                message: format!(
                    "{} runs multi-node training on {} without {name}: the fabric it pays for \
 sits idle and NCCL falls back to plain TCP between nodes",
                    super::group_subject(c),
                    describe(m)
                ) + &because(&c.role),
                help: help(c).into(),
                subject: c.subject.clone(),
                primary: (span.clone(), format!("supports {name}, not set up")),
                secondary: Vec::new(),
            });
        }
    }
}

/// EFA set up on fewer network cards than the machine has (one interface on a p4d's card
/// 0 of 4): NCCL runs over that share of the fabric. Reports it; whether it did.
fn partly_set_up(c: &Capacity, cx: &mut RuleContext<'_>) -> bool {
    let (Value::Known(true, _), Some((cards, at))) = (&c.fast_fabric, &c.efa_cards) else {
        return false;
    };
    let Some((machines, span)) = c.gpu_machines() else {
        return false;
    };
    let Some((m, row)) = machines.into_iter().find_map(|m| {
        let row = &catalog().instance(Provider::Aws, &m.name)?.row;
        row.efa_devices
            .is_some_and(|t| t > *cards)
            .then_some((m, row))
    }) else {
        return false;
    };
    let total = row.efa_devices.unwrap_or_default();
    let bandwidth = row
        .network_gbps
        .map(|g| format!(" of its {g} Gbps"))
        .unwrap_or_default();
    cx.report(Report {
        message: format!(
            "{} runs multi-node training on {} with EFA on {cards} of the {total} network \
             cards it has: NCCL gets about {cards}/{total}{bandwidth} between nodes",
            super::group_subject(c),
            describe(m)
        ) + &because(&c.role),
        help: format!(
            "attach one EFA interface per network card: a `network_interfaces` entry for each \
             `network_card_index` from 0 to {} (`interface_type = \"efa\"`, or `\"efa-only\"` \
             beside the primary interface), as AWS's guides for {} do",
            total - 1,
            m.name
        )
        .into(),
        subject: c.subject.clone(),
        primary: (at.clone(), format!("EFA on {cards} of {total} cards")),
        secondary: vec![(span.clone(), format!("{total} EFA-capable network cards"))],
    });
    true
}

/// The machines a pod can run on: the pools it lands on, else the instance types its node
/// requirements name. Empty when neither is known.
fn pod_machines<'a>(model: &'a Inventory, pod: &'a PodShape) -> Vec<(String, Fabric, Provider)> {
    let landing: Vec<_> = model.landing(pod).collect();
    if !landing.is_empty() {
        return landing
            .iter()
            .flat_map(|c| {
                c.gpu_machines()
                    .map(|(m, _)| m)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(move |m| Some((m.name.to_string(), m.fabric?, c.provider)))
            })
            .collect();
    }
    let cat = catalog();
    pod.selection
        .instance_types
        .iter()
        .flat_map(|(types, _)| types)
        .filter_map(|t| {
            let i = cat.instance_any(t)?;
            Some((i.row.name.clone(), i.row.fabric, i.provider))
        })
        .collect()
}

/// Training or serving spread over nodes, with no pod that sets up the fabric its machines
/// offer (or with the fabric switched off). On machines that offer none, says so and names
/// shapes of the same GPU that do.
fn check_workload(model: &Inventory, w: &Workload, cx: &mut RuleContext<'_>) {
    // A collective benchmark measures the very network between its ranks. Work of no known
    // role still talks across the pods it spans (a LeaderWorkerSet group, a launcher's
    // nodes); a check or a placeholder does not.
    let collective = w.benchmark.as_ref().is_some_and(|b| b.collective);
    if w.benchmark.is_some() && !collective {
        return;
    }
    let Some(spread) = &w.spans else {
        return;
    };
    // Pods of a kind that may run independent tasks (a Ray cluster) talk only when the work
    // says so.
    if w.role.known().is_none() && !collective && !spread.stated {
        return;
    }
    let (nodes, span) = (spread, &spread.span);
    if w.pods
        .iter()
        .any(|p| p.fabric.as_ref().is_some_and(|f| f.on))
    {
        return;
    }
    let Some(pod) = w
        .pods
        .iter()
        .find(|p| p.gpus.known().is_some_and(|g| g.count > 0))
    else {
        return;
    };
    let machines = pod_machines(model, pod);
    let off = w
        .pods
        .iter()
        .find_map(|p| p.fabric.as_ref().filter(|f| !f.on));
    let why = off.map_or_else(String::new, |f| format!(" (the pod {})", f.what));
    let work = match w.role.known() {
        _ if collective => "benchmarks",
        Some(Role::Training) => "trains",
        Some(Role::Inference) => "serves",
        None => "runs GPU work",
    };
    if machines.is_empty() {
        unknown_machines(w, pod, spread, off, work, cx);
        return;
    }
    if let Some((name, fabric, provider)) = machines.iter().find(|(_, f, _)| *f != Fabric::None) {
        let fabric_name = fabric_name(*fabric);
        cx.report(Report {
            message: format!(
                "`{}` {work} across {nodes} pods on {name}, which offers {fabric_name}, but no pod \
                 sets it up{why}: NCCL falls back to plain TCP between nodes",
                w.subject
            ) + &because(&w.role),
            help: help_pod(*provider, *fabric).into(),
            subject: w.subject.clone(),
            primary: (span.clone(), format!("{nodes} pods across nodes")),
            secondary: off
                .map(|f| (f.span.clone(), "turns the fabric off".to_string()))
                .into_iter()
                .collect(),
        });
        return;
    }
    if machines.iter().all(|(_, f, _)| *f == Fabric::None) {
        let (name, _, provider) = &machines[0];
        let gpu = catalog().instance(*provider, name).map(|i| i.gpu);
        let better: Vec<&str> = catalog()
            .instances
            .iter()
            .filter(|i| i.provider == *provider && i.row.fabric != Fabric::None)
            .filter(|i| gpu.is_none_or(|g| g.id == i.gpu.id))
            .map(|i| i.row.name.as_str())
            .take(3)
            .collect();
        let instead = if better.is_empty() {
            "no shape of this GPU has one; multi-node work belongs on GPUs whose machines \
             do (EFA, GPUDirect, InfiniBand)"
                .to_string()
        } else {
            format!("shapes of this GPU that have one: {}", better.join(", "))
        };
        cx.report(Report {
            message: format!(
                "`{}` {work} across {nodes} pods on {name}, whose machines have no fast fabric: \
                 every collective between nodes crosses the ordinary network",
                w.subject
            ) + &because(&w.role),
            help: format!(
                "keep the work on one node, or move it to machines with a fabric ({instead})"
            )
            .into(),
            subject: w.subject.clone(),
            primary: (span.clone(), format!("{nodes} pods across nodes")),
            secondary: Vec::new(),
        });
    }
}

/// Pods that span nodes on machines gpulint cannot name: whatever the machines offer, no pod
/// asks for it, so the collectives between nodes run over the pod network. Bounded to what
/// is certain: a warning when the manifest forces TCP, or when training pods of several GPUs
/// each talk across nodes; a note otherwise (serving, where traffic between nodes is a
/// pipeline stage or expert exchange, not every gradient).
fn unknown_machines(
    w: &Workload,
    pod: &PodShape,
    spread: &gpulint_model::Spread,
    off: Option<&gpulint_model::FabricSignal>,
    work: &str,
    cx: &mut RuleContext<'_>,
) {
    let per_pod = pod.gpus.known().map_or(0, |g| g.count);
    // A collective benchmark of multi-GPU pods is judged as training: it is its traffic.
    let training = w.role.known() == Some(&Role::Training)
        || w.benchmark.as_ref().is_some_and(|b| b.collective);
    let message = match off {
        Some(f) => format!(
            "`{}` {work} across {spread} pods and the pod {}: NCCL is held to TCP between nodes, \
             whatever fabric the machines have",
            w.subject, f.what
        ),
        None => format!(
            "`{}` {work} across {spread} pods, and no pod requests a fast fabric (EFA, RDMA \
             devices, GPUDirect NICs, a secondary network or the host network): the collectives \
             between nodes{} run over the ordinary pod network. The machine type is not in these \
             files, so gpulint cannot say which fabric they offer",
            w.subject,
            if per_pod >= 2 {
                ""
            } else {
                " (when the pods land on different nodes)"
            }
        ),
    } + &because(&w.role);
    let report = Report {
        message,
        help: match off {
            Some(_) => "remove the setting that forces TCP, and request the fabric's devices in \
                        every pod (`vpc.amazonaws.com/efa` on AWS, GPUDirect NICs through \
                        `networking.gke.io/interfaces` on GKE, `rdma/*` with InfiniBand)"
                .into(),
            None => "request the fabric's devices in every pod (`vpc.amazonaws.com/efa` on AWS, \
                     GPUDirect NICs through `networking.gke.io/interfaces` on GKE, `rdma/*` with \
                     InfiniBand), or keep the work on one node; suppress this where the nodes \
                     have no fabric and the traffic is light"
                .into(),
        },
        subject: w.subject.clone(),
        primary: (spread.span.clone(), format!("{spread} pods across nodes")),
        secondary: off
            .map(|f| (f.span.clone(), "forces TCP".to_string()))
            .into_iter()
            .collect(),
    };
    if off.is_some() || (training && per_pod >= 2) {
        cx.report(report);
    } else {
        cx.report_as(Severity::Info, report);
    }
}

fn help_pod(provider: Provider, fabric: Fabric) -> &'static str {
    match (provider, fabric) {
        (Provider::Aws, _) => {
            "request the EFA devices in every pod (`vpc.amazonaws.com/efa: N` in resources \
             limits, with the EFA device plugin) and use an image with the aws-ofi-nccl plugin"
        }
        (Provider::Gcp, _) => {
            "attach the GPU NICs to every pod with GKE multi-networking \
             (`networking.gke.io/interfaces`) and the GPUDirect-TCPX/TCPXO/RDMA NCCL plugin"
        }
        _ => {
            "request the RDMA devices in every pod (`rdma/*` resources) or join the InfiniBand \
              network (Multus), and leave NCCL's IB transport on"
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

fn help(c: &Capacity) -> &'static str {
    if c.written_in == Dialect::Eksctl {
        return "set `efaEnabled: true` on the node group (eksctl adds the EFA interfaces, their \
                security group and a cluster placement group) and install the EFA device plugin";
    }
    match c.provider {
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
