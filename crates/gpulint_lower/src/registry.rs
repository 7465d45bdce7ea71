//! Public modules GPU teams call, understood offline from their documented inputs: their
//! node groups and pools become capacity, named by the call and the input's key.
//!
//! - `terraform-aws-modules/eks/aws`: `eks_managed_node_groups`, `self_managed_node_groups`
//!   and, before v21, their `*_defaults`; also the two node-group submodules called on
//!   their own. The `karpenter` submodule makes IAM roles and a queue, no capacity: its
//!   NodePools are Kubernetes manifests.
//! - `terraform-google-modules/kubernetes-engine/google` and its cluster submodules:
//!   `node_pools` and `node_pools_labels`.
//! - `terraform-aws-modules/autoscaling/aws`: one auto scaling group per call, with the
//!   launch template it makes from the same inputs (`instance_type`,
//!   `instance_market_options`, `network_interfaces`) or its `mixed_instances_policy`.
//! - `Azure/aks/azurerm`: `node_pools`, and the default pool's `agents_*` inputs.
//! - `GoogleCloudPlatform/cloud-foundation-fabric`'s `modules/gke-nodepool` (called from
//!   GitHub): one node pool per call, from `node_config`, `node_count`, `nodepool_config`
//!   and `location`/`node_locations`.
//!
//! Defaults are the modules' own (EKS v21 `variables.tf`, the GKE module's `cluster.tf`
//! lookups, the AKS module's `variables.tf`); an input gpulint cannot evaluate stays unknown.

use super::aws::{capacity_type_market, market_options, reserved_market};
use super::azure::aks_pool;
use super::gcp::{location_zones, pool_machine, spot_market};
use gpulint_facts::instance_machine;
use gpulint_model::{
    Capacity, CapacityKind, Inventory, Machine, Placement, Provider, Scale, Span, Str, Value, Zones,
};
use gpulint_terraform::{Block, Call};

/// The modules gpulint reads by their contract.
enum Known {
    Eks,
    /// The EKS module's node-group submodule; `true`: self-managed.
    EksGroup(bool),
    Gke,
    EksBlueprints,
    Ec2Instance,
    Autoscaling,
    Aks,
    FabricNodepool,
}

fn known(source: &str) -> Option<Known> {
    let (module, sub) = registry_address(source)?;
    Some(match (module.as_str(), sub.as_str()) {
        ("terraform-aws-modules/eks/aws", "") => Known::Eks,
        ("terraform-aws-modules/eks/aws", "modules/eks-managed-node-group") => {
            Known::EksGroup(false)
        }
        ("terraform-aws-modules/eks/aws", "modules/self-managed-node-group") => {
            Known::EksGroup(true)
        }
        ("terraform-google-modules/kubernetes-engine/google", sub)
            if !sub.contains("autopilot") =>
        {
            Known::Gke
        }
        ("terraform-aws-modules/ec2-instance/aws", "") => Known::Ec2Instance,
        ("terraform-aws-modules/autoscaling/aws", "") => Known::Autoscaling,
        ("aws-ia/eks-blueprints/aws", "") => Known::EksBlueprints,
        ("azure/aks/azurerm", "") => Known::Aks,
        ("googlecloudplatform/cloud-foundation-fabric", "modules/gke-nodepool") => {
            Known::FabricNodepool
        }
        _ => return None,
    })
}

/// Whether gpulint reads a call of `source` by the module's contract (the EKS, GKE and AKS
/// modules, …): such a call is read so, also inside the repository that publishes it.
pub fn knows(source: &str) -> bool {
    known(source).is_some()
}

/// Lowers a call of a module gpulint knows; any other source adds nothing.
pub fn lower(call: &Call<'_>, source: &str, inv: &mut Inventory) {
    match known(source) {
        Some(Known::Eks) => eks(call, inv),
        Some(Known::EksGroup(self_managed)) => {
            let c = eks_group(&call.block, call.path.clone(), call.name, self_managed);
            inv.capacity.push(c);
        }
        Some(Known::Gke) => gke(call, inv),
        Some(Known::EksBlueprints) => node_groups(call, inv, &BLUEPRINTS_GROUPS),
        Some(Known::Ec2Instance) => inv.capacity.push(ec2_instance(call)),
        Some(Known::Autoscaling) => inv.capacity.push(autoscaling(call)),
        Some(Known::Aks) => aks(call, inv),
        Some(Known::FabricNodepool) => inv.capacity.push(fabric_nodepool(call)),
        None => by_inputs(call, source, inv),
    }
}

/// The inputs only the EKS module takes: a wrapper that is given them passes them on.
const EKS_INPUTS: [&str; 2] = ["eks_managed_node_groups", "self_managed_node_groups"];

/// A module gpulint cannot read (a remote source it does not know) that is given node
/// groups under the EKS module's own input names: a wrapper of that module, whose groups
/// are read as the EKS module reads them, with a caveat on each finding that says so.
fn by_inputs(call: &Call<'_>, source: &str, inv: &mut Inventory) {
    if super::is_local_source(source) {
        return;
    }
    let Some(input) = EKS_INPUTS
        .into_iter()
        .find(|i| !matches!(call.block.entries(i), Value::Absent))
    else {
        return;
    };
    let before = inv.capacity.len();
    eks(call, inv);
    if inv.capacity.len() == before {
        return;
    }
    let span = call
        .block
        .span_of("source")
        .unwrap_or_else(|| call.block.header.clone());
    // Its findings point into the caller's files: the call, and the groups' values.
    let mut files = vec![span.file];
    files.extend(inv.capacity[before..].iter().flat_map(Capacity::located_in));
    files.sort_unstable();
    files.dedup();
    inv.caveats.push(gpulint_model::Caveat {
        subject: call.path.clone(),
        files,
        inside_calls: false,
        entry: None,
        note: format!(
            "read as `terraform-aws-modules/eks` reads `{input}`: the module `{source}` is not \
             read, and may set other defaults"
        ),
        span,
        label: format!("not read: `{input}` read as the EKS module's"),
    });
}

/// `NAMESPACE/NAME/PROVIDER` (lower-cased) and the submodule path of a registry source, or
/// of the GitHub repository that publishes it (`terraform-PROVIDER-NAME`).
fn registry_address(source: &str) -> Option<(String, String)> {
    let s = source.trim();
    let s = s.strip_prefix("git::").unwrap_or(s);
    let s = match s.strip_prefix("git@github.com:") {
        Some(repo) => format!("github.com/{repo}"),
        None => s.strip_prefix("https://").unwrap_or(s).to_string(),
    };
    let s = s.strip_prefix("registry.terraform.io/").unwrap_or(&s);
    let s = s.split('?').next().unwrap_or(s);
    let (base, sub) = s.split_once("//").unwrap_or((s, ""));
    let base = base.trim_end_matches('/').trim_end_matches(".git");
    let parts: Vec<&str> = base.split('/').collect();
    let address = match parts[..] {
        // A monorepo of modules, not named as the registry names one.
        ["github.com", owner, repo] if repo.eq_ignore_ascii_case("cloud-foundation-fabric") => {
            format!("{owner}/{repo}")
        }
        ["github.com", owner, repo] => {
            let rest = repo.strip_prefix("terraform-")?;
            let (provider, name) = rest.split_once('-')?;
            format!("{owner}/{name}/{provider}")
        }
        [ns, name, provider] if !ns.contains('.') => format!("{ns}/{name}/{provider}"),
        _ => return None,
    };
    Some((
        address.to_ascii_lowercase(),
        sub.trim_matches('/').to_string(),
    ))
}

/// Adds `c`; a pool only a toggle switched on (see [`Block::toggled_items`]) with a
/// caveat on its findings that says which.
fn push_toggled(inv: &mut Inventory, c: Capacity, toggle: Option<gpulint_terraform::Toggled>) {
    if let Some(t) = toggle {
        let mut files: Vec<_> = c.located_in().collect();
        files.sort_unstable();
        files.dedup();
        t.record(c.subject.clone(), files, false);
    }
    inv.capacity.push(c);
}

/// A value the module defaults when the input leaves it out.
fn or_default(v: Value<u64>, default: u64, at: &Span) -> Value<u64> {
    match v {
        Value::Absent => Value::Known(default, at.clone()),
        v => v,
    }
}

fn eks(call: &Call<'_>, inv: &mut Inventory) {
    node_groups(call, inv, &EKS_GROUPS);
}

/// The EKS module's node-group inputs: the input, the input of its defaults, whether
/// self-managed.
const EKS_GROUPS: [(&str, Option<&str>, bool); 2] = [
    (
        "eks_managed_node_groups",
        Some("eks_managed_node_group_defaults"),
        false,
    ),
    (
        "self_managed_node_groups",
        Some("self_managed_node_group_defaults"),
        true,
    ),
];

/// EKS Blueprints v4 (`aws-ia/eks-blueprints/aws`): the same groups under its own input
/// names (registry.terraform.io/modules/aws-ia/eks-blueprints/aws/4.32.1 inputs
/// `managed_node_groups`, `self_managed_node_groups`: `instance_types`, `capacity_type`,
/// `min_size`, `max_size`, `desired_size`, `ami_type`).
const BLUEPRINTS_GROUPS: [(&str, Option<&str>, bool); 2] = [
    ("managed_node_groups", None, false),
    ("self_managed_node_groups", None, true),
];

/// The node groups a call gives under `inputs`, read as the EKS module reads them.
fn node_groups(call: &Call<'_>, inv: &mut Inventory, inputs: &[(&str, Option<&str>, bool)]) {
    for &(input, defaults, self_managed) in inputs {
        let Value::Known(groups, _) = call.block.entries(input) else {
            continue;
        };
        let defaults = defaults.and_then(|d| call.block.block(d).known().cloned());
        let toggled = call.block.toggled_items(input);
        let groups = groups.into_iter().map(|(k, g)| (k, g, None));
        for (key, group, toggle) in
            groups.chain(toggled.into_iter().map(|(k, g, t)| (k, g, Some(t))))
        {
            let group = group.with_defaults(defaults.clone());
            let subject = format!("{}.{input}[{key:?}]", call.path);
            let mut c = eks_group(&group, subject, &key, self_managed);
            c.scale.min_input = Some(input_key(input, "min_size", &key));
            push_toggled(inv, c, toggle);
        }
    }
}

/// One EC2 instance of `terraform-aws-modules/ec2-instance/aws` (each instance of a
/// `count`/`for_each` call is one): its inputs are the instance's own arguments, with the
/// module's defaults (`t3.micro`; spot with `create_spot_instance`, v5, or
/// `instance_market_options`).
/// A call of `terraform-aws-modules/autoscaling/aws`: its group, sized by `min_size`,
/// `max_size` and `desired_capacity` (no defaults: the provider requires the bounds).
fn autoscaling(call: &Call<'_>) -> Capacity {
    let b = &call.block;
    let header = b.header.clone();
    let mut c = Capacity::new(
        call.path.clone(),
        Provider::Aws,
        CapacityKind::Group,
        header.clone(),
    );
    let mixed = match b.bool("use_mixed_instances_policy") {
        Value::Known(true, _) => b.block("mixed_instances_policy"),
        Value::Unknown(s) => Value::Unknown(s),
        _ => Value::Absent,
    };
    let one_type = || match b.str("instance_type") {
        // Without a type the template leaves it to the overrides, or the group fails.
        Value::Absent => Value::Unknown(header.clone()),
        v => v.map(|t| vec![instance_machine(Provider::Aws, &t)]),
    };
    c.machines = match &mixed {
        Value::Known(m, _) => match m.blocks("override") {
            Value::Known(overrides, span) => {
                let types: Vec<Value<String>> =
                    overrides.iter().map(|o| o.str("instance_type")).collect();
                if types.is_empty() || types.iter().any(|t| t.known().is_none()) {
                    Value::Unknown(span)
                } else {
                    Value::Known(
                        types
                            .iter()
                            .filter_map(Value::known)
                            .map(|t| instance_machine(Provider::Aws, t))
                            .collect(),
                        span,
                    )
                }
            }
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => one_type(),
        },
        _ => one_type(),
    };
    c.market = match &mixed {
        Value::Known(m, _) => super::aws::distribution_market(&m.block("instances_distribution")),
        Value::Unknown(s) => Value::Unknown(s.clone()),
        Value::Absent => market_options(b),
    };
    c.scale = super::aws::group_scale(b);
    c.zones = match b.string_list("availability_zones") {
        Value::Known(z, s) => Value::Known(Zones::of(z), s),
        Value::Unknown(s) => Value::Unknown(s),
        // Subnet IDs from elsewhere: their zones are not known here.
        Value::Absent => b
            .span_of("vpc_zone_identifier")
            .map_or(Value::Absent, Value::Unknown),
    };
    // A placement group by name: its strategy is set where it was made.
    c.placement = b
        .span_of("placement_group")
        .or_else(|| b.span_of("placement"))
        .map_or(Value::Absent, Value::Unknown);
    c.fast_fabric = super::aws::efa_interfaces(b);
    c.efa_cards = super::aws::efa_cards(b);
    c.reserved =
        reserved_market(&c.market).or_else(|| b.span_of("capacity_reservation_specification"));
    let name = b.str("name").known().cloned().unwrap_or_default();
    let mut entries = b.string_map("tags");
    entries.extend(b.string_map("autoscaling_group_tags"));
    c.role = super::or_block_role(
        gpulint_model::intent::from_entries(&entries, [call.name, name.as_str()], &header),
        b,
        &header,
    );
    c
}

fn ec2_instance(call: &Call<'_>) -> Capacity {
    let b = &call.block;
    let header = b.header.clone();
    let mut c = Capacity::new(
        call.path.clone(),
        Provider::Aws,
        CapacityKind::Instance,
        header.clone(),
    );
    c.machines = match b.str("instance_type") {
        Value::Absent => Value::Known("t3.micro".to_string(), header.clone()),
        v => v,
    }
    .map(|t| vec![instance_machine(Provider::Aws, &t)]);
    c.market = match (b.bool("create_spot_instance"), market_options(b)) {
        (Value::Known(true, s), _) => Value::Known(gpulint_model::Market::Spot, s),
        (Value::Unknown(s), _) => Value::Unknown(s),
        (_, m) => m,
    };
    c.scale = Scale::fixed(Value::Known(1, header.clone()));
    c.zones = match b.str("availability_zone") {
        Value::Known(z, s) => Value::Known(Zones::Listed(vec![z.into()]), s),
        Value::Unknown(s) => Value::Unknown(s),
        // A subnet ID from elsewhere: its zone is not known here.
        Value::Absent => b.span_of("subnet_id").map_or(Value::Absent, Value::Unknown),
    };
    // A placement group by name: its strategy is set where it was made.
    c.placement = b
        .span_of("placement_group")
        .map_or(Value::Absent, Value::Unknown);
    c.fast_fabric = super::aws::efa_interfaces(b);
    c.efa_cards = super::aws::efa_cards(b);
    c.reserved = reserved_market(&c.market);
    let name = b.str("name").known().cloned().unwrap_or_default();
    c.role = super::or_block_role(
        gpulint_model::intent::from_entries(&[], [call.name, name.as_str()], &header),
        b,
        &header,
    );
    c
}

/// One node group of the EKS module: managed (an EKS node group) or self-managed (an
/// auto scaling group). `key` is its key in the input map, or the call's name.
fn eks_group(g: &Block<'_>, subject: String, key: &str, self_managed: bool) -> Capacity {
    let header = g.header.clone();
    let kind = if self_managed {
        CapacityKind::Group
    } else {
        CapacityKind::NodePool
    };
    let mut c = Capacity::new(subject, Provider::Aws, kind, header.clone());
    let machines = |types: Vec<String>| -> Vec<Machine> {
        types
            .iter()
            .map(|t| instance_machine(Provider::Aws, t))
            .collect()
    };
    c.machines = if self_managed {
        match g.str("instance_type") {
            Value::Absent => Value::Known(machines(vec!["m6i.large".into()]), header.clone()),
            v => v.map(|t| machines(vec![t])),
        }
    } else {
        match g.string_list("instance_types") {
            Value::Known(t, s) if !t.is_empty() => Value::Known(machines(t), s),
            Value::Known(_, s) | Value::Unknown(s) => Value::Unknown(s),
            // EKS's own default when no type is given.
            Value::Absent => Value::Known(machines(vec!["t3.medium".into()]), header.clone()),
        }
    };
    if let Value::Known(ami, at) = g.str("ami_type") {
        c.gpus_from_image("ami_type", &ami, &at);
    }
    let capacity_type = g.str("capacity_type");
    c.market = if self_managed {
        market_options(g)
    } else {
        capacity_type.clone().map(|t| capacity_type_market(&t))
    };
    c.scale = Scale {
        min: or_default(g.u64("min_size"), 1, &header),
        max: or_default(g.u64("max_size"), 3, &header),
        desired: g.u64("desired_size"),
        min_at_least: g.u64_at_least("min_size"),
        ..Scale::default()
    };
    // Subnets are IDs from elsewhere: their zones are not known here.
    c.zones = Value::Unknown(g.span_of("subnet_ids").unwrap_or_else(|| header.clone()));
    let efa = g.bool("enable_efa_support");
    // `enable_efa_support` adds EFA interfaces and a cluster placement group (v20+);
    // `network_interfaces` with an EFA interface type adds the interfaces only.
    c.fast_fabric = match (&efa, &super::aws::efa_interfaces(g)) {
        (Value::Known(true, s), _) | (_, Value::Known(true, s)) => Value::Known(true, s.clone()),
        (Value::Unknown(s), _) | (_, Value::Unknown(s)) => Value::Unknown(s.clone()),
        _ => Value::Absent,
    };
    // `enable_efa_support` adds an interface on every card the type has.
    if !matches!(efa, Value::Known(true, _)) {
        c.efa_cards = super::aws::efa_cards(g);
    }
    c.placement = match (
        &efa,
        &g.bool("create_placement_group"),
        &g.span_of("placement"),
    ) {
        (Value::Known(true, s), _, _) | (_, Value::Known(true, s), _) => {
            Value::Known(Placement::Cluster, s.clone())
        }
        (Value::Unknown(s), _, _) | (_, Value::Unknown(s), _) | (_, _, Some(s)) => {
            Value::Unknown(s.clone())
        }
        _ => Value::Absent,
    };
    c.reserved =
        reserved_market(&c.market).or_else(|| g.span_of("capacity_reservation_specification"));
    c.labels = g.string_map("labels");
    c.taints = g.taints("taints");
    let name = g
        .str("name")
        .known()
        .cloned()
        .unwrap_or_else(|| key.to_string());
    let mut entries = c.labels.clone();
    entries.extend(g.string_map("tags"));
    if !self_managed {
        c.labels.push((
            "eks.amazonaws.com/nodegroup".into(),
            name.clone().into(),
            header.clone(),
        ));
        let ct = capacity_type
            .known()
            .cloned()
            .unwrap_or_else(|| "ON_DEMAND".into());
        c.labels.push((
            "eks.amazonaws.com/capacityType".into(),
            ct.into(),
            header.clone(),
        ));
    }
    c.role = super::or_block_role(
        gpulint_model::intent::from_entries(&entries, [key, name.as_str()], &header),
        g,
        &header,
    );
    c
}

fn gke(call: &Call<'_>, inv: &mut Inventory) {
    let b = &call.block;
    // The cluster's zones: a regional cluster spreads pools over `zones` (or zones the
    // provider picks in `region`); a zonal one over `zones`.
    let cluster_zones = match (b.bool("regional"), b.string_list("zones"), b.str("region")) {
        (Value::Unknown(s), _, _) => Value::Unknown(s),
        (_, Value::Known(z, s), _) if !z.is_empty() => Value::Known(Zones::of(z), s),
        (Value::Known(false, s), _, _) | (_, Value::Unknown(s), _) => Value::Unknown(s),
        (_, _, Value::Known(r, s)) => Value::Known(location_zones(&r), s),
        (_, _, r) => r.map(Zones::Region),
    };
    let Value::Known(pools, _) = b.blocks("node_pools") else {
        return;
    };
    let toggled = b.toggled_items("node_pools");
    let pools = pools.into_iter().map(|p| (p, None));
    let pools: Vec<_> = pools
        .chain(toggled.into_iter().map(|(_, p, t)| (p, Some(t))))
        .collect();
    let labels = b
        .entries("node_pools_labels")
        .known()
        .cloned()
        .unwrap_or_default();
    let labels_of = |name: &str| -> Vec<(Str, Str, Span)> {
        labels
            .iter()
            .filter(|(k, _)| k == "all" || k == name)
            .flat_map(|(_, block)| block_strings(block))
            .map(|(k, v, s)| (k.into(), v.into(), s))
            .collect()
    };
    for (i, (pool, toggle)) in pools.into_iter().enumerate() {
        let name = pool
            .str("name")
            .known()
            .cloned()
            .unwrap_or_else(|| i.to_string());
        let header = pool.header.clone();
        let subject = format!("{}.node_pools[{name:?}]", call.path);
        let mut c = Capacity::new(
            subject,
            Provider::Gcp,
            CapacityKind::NodePool,
            header.clone(),
        );
        let machine_type = match pool.str("machine_type") {
            Value::Absent => Value::Known("e2-medium".to_string(), header.clone()),
            m => m,
        };
        c.machines = pool_machine(
            machine_type,
            pool.str("accelerator_type"),
            pool.u64("accelerator_count"),
        )
        .map(|m| vec![m]);
        c.market = spot_market(pool.bool("spot"), pool.bool("preemptible"));
        c.zones = match pool.str("node_locations") {
            Value::Known(z, s) if !z.trim().is_empty() => Value::Known(
                Zones::Listed(z.split(',').map(|z| Str::from(z.trim())).collect()),
                s,
            ),
            Value::Unknown(s) => Value::Unknown(s),
            _ => cluster_zones.clone(),
        };
        let zone_count = c.zones.known().and_then(Zones::listed);
        c.scale = match pool.bool("autoscaling") {
            Value::Unknown(s) => Scale::unknown(s),
            Value::Known(false, _) => {
                Scale::fixed_per_zone(or_default(pool.u64("node_count"), 1, &header), zone_count)
            }
            _ => match (pool.u64("total_min_count"), pool.u64("total_max_count")) {
                (Value::Absent, Value::Absent) => Scale {
                    min_input: Some(input_key("node_pools", "min_count", &name)),
                    ..Scale::per_zone(
                        or_default(pool.u64("min_count"), 1, &header),
                        or_default(pool.u64("max_count"), 100, &header),
                        pool.u64("initial_node_count"),
                        zone_count,
                    )
                },
                (min, max) => Scale {
                    min,
                    max,
                    min_input: Some(input_key("node_pools", "total_min_count", &name)),
                    ..Scale::default()
                },
            },
        };
        c.placement = match pool.str("placement_policy") {
            Value::Known(t, s) if t == "COMPACT" => Value::Known(Placement::Cluster, s),
            Value::Known(t, s) if !t.is_empty() => Value::Known(Placement::Spread, s),
            Value::Unknown(s) => Value::Unknown(s),
            _ => Value::Absent,
        };
        c.labels = labels_of(&name);
        c.taints = gke_taints(b, &name);
        c.labels.push((
            "cloud.google.com/gke-nodepool".into(),
            name.clone().into(),
            header.clone(),
        ));
        c.role = super::or_block_role(
            gpulint_model::intent::from_entries(&c.labels, [name.as_str()], &header),
            b,
            &header,
        );
        push_toggled(inv, c, toggle);
    }
}

/// cloud-foundation-fabric's `modules/gke-nodepool` (its `variables.tf` and `main.tf`):
/// `node_config.machine_type` and `guest_accelerator`, `spot`/`preemptible`, autoscaling
/// bounds in `nodepool_config.autoscaling` (per zone unless `use_total_nodes`), else a
/// fixed `node_count.current` (or `initial`, default 1) per zone, over `node_locations` or
/// the cluster's `location`.
fn fabric_nodepool(call: &Call<'_>) -> Capacity {
    let b = &call.block;
    let header = b.header.clone();
    let mut c = Capacity::new(
        call.path.clone(),
        Provider::Gcp,
        CapacityKind::NodePool,
        header.clone(),
    );
    let node = b.block("node_config");
    let node = node.known();
    if let Some(node) = node {
        let accel = node.block("guest_accelerator");
        let (ty, count) = match &accel {
            Value::Known(a, _) => (a.str("type"), a.u64("count")),
            Value::Unknown(s) => (Value::Unknown(s.clone()), Value::Unknown(s.clone())),
            Value::Absent => (Value::Absent, Value::Absent),
        };
        c.machines = pool_machine(node.str("machine_type"), ty, count).map(|m| vec![m]);
        c.market = spot_market(node.bool("spot"), node.bool("preemptible"));
        c.labels = node
            .string_map("k8s_labels")
            .into_iter()
            .chain(b.string_map("k8s_labels"))
            .collect();
    } else {
        c.labels = b.string_map("k8s_labels");
    }
    c.zones = match b.string_list("node_locations") {
        Value::Known(z, s) if !z.is_empty() => Value::Known(Zones::of(z), s),
        Value::Unknown(s) => Value::Unknown(s),
        _ => b.str("location").map(|l| location_zones(&l)),
    };
    let zone_count = c.zones.known().and_then(Zones::listed);
    let autoscaling = match b.block("nodepool_config") {
        Value::Known(n, _) => n.block("autoscaling"),
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => Value::Absent,
    };
    let initial = match b.block("node_count") {
        Value::Known(n, _) => match n.u64("current") {
            Value::Absent => n.u64("initial"),
            v => v,
        },
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => Value::Known(1, header.clone()),
    };
    c.scale = match autoscaling {
        Value::Known(a, _) => match a.bool("use_total_nodes") {
            Value::Known(true, _) => Scale {
                min: a.u64("min_node_count"),
                max: a.u64("max_node_count"),
                ..Scale::default()
            },
            Value::Unknown(s) => Scale::unknown(s),
            _ => Scale::per_zone(
                a.u64("min_node_count"),
                a.u64("max_node_count"),
                initial,
                zone_count,
            ),
        },
        Value::Unknown(s) => Scale::unknown(s),
        Value::Absent => Scale::fixed_per_zone(initial, zone_count),
    };
    let name = b
        .str("name")
        .known()
        .cloned()
        .unwrap_or_else(|| call.name.to_string());
    c.labels.push((
        "cloud.google.com/gke-nodepool".into(),
        name.clone().into(),
        header.clone(),
    ));
    c.role = super::or_block_role(
        gpulint_model::intent::from_entries(&c.labels, [name.as_str(), call.name], &header),
        b,
        &header,
    );
    c
}

/// `key` of the entry `within` of the module input `input`.
fn input_key(input: &str, key: &str, within: &str) -> gpulint_model::InputKey {
    gpulint_model::InputKey {
        input: input.into(),
        key: key.into(),
        within: Some(within.into()),
    }
}

/// The string entries of a block standing for a map.
fn block_strings(b: &Block<'_>) -> Vec<(String, String, Span)> {
    b.keys()
        .into_iter()
        .filter_map(|k| {
            let v = b.str(&k);
            Some((k, v.known()?.clone(), v.span()?.clone()))
        })
        .collect()
}

fn aks(call: &Call<'_>, inv: &mut Inventory) {
    let b = &call.block;
    if let Value::Known(pools, _) = b.entries("node_pools") {
        let toggled = b.toggled_items("node_pools");
        let pools = pools.into_iter().map(|(k, p)| (k, p, None));
        for (key, pool, toggle) in pools.chain(toggled.into_iter().map(|(k, p, t)| (k, p, Some(t))))
        {
            let subject = format!("{}.node_pools[{key:?}]", call.path);
            let mut c = aks_pool(&pool, subject, &[key.as_str()], Vec::new());
            c.scale.min_input = Some(input_key("node_pools", "min_count", &key));
            push_toggled(inv, c, toggle);
        }
    }
    // The default pool, from `agents_*`: Standard_D2s_v3 unless `agents_size` says.
    if let Value::Known(size, span) = b.str("agents_size") {
        let subject = format!("{}.default_node_pool", call.path);
        let mut c = Capacity::new(
            subject,
            Provider::Azure,
            CapacityKind::NodePool,
            span.clone(),
        );
        c.machines = Value::Known(vec![instance_machine(Provider::Azure, &size)], span.clone());
        let autoscale = match b.bool("auto_scaling_enabled") {
            Value::Absent => b.bool("enable_auto_scaling"),
            v => v,
        };
        c.scale = match autoscale {
            Value::Known(true, _) => Scale {
                min: b.u64("agents_min_count"),
                max: b.u64("agents_max_count"),
                desired: b.u64("agents_count"),
                ..Scale::default()
            },
            Value::Unknown(s) => Scale::unknown(s),
            _ => Scale::fixed(or_default(b.u64("agents_count"), 2, &span)),
        };
        c.labels = b.string_map("agents_labels");
        c.taints = super::azure::written_taints(b, "agents_taints");
        c.role = super::or_block_role(
            gpulint_model::intent::from_entries(&c.labels, ["default"], &span),
            b,
            &span,
        );
        inv.capacity.push(c);
    }
}

/// The GKE module's `node_pools_taints` for pool `name`: its own and those under `all`.
fn gke_taints(b: &Block<'_>, name: &str) -> Vec<gpulint_model::Taint> {
    let (Value::Known(hcl::Value::Object(by_pool), _), Some(span)) =
        (b.value("node_pools_taints"), b.span_of("node_pools_taints"))
    else {
        return Vec::new();
    };
    let text = |t: &hcl::Map<String, hcl::Value>, k: &str| match t.get(k) {
        Some(hcl::Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    ["all", name]
        .iter()
        .filter_map(|k| by_pool.get(*k)?.as_array())
        .flatten()
        .filter_map(|t| {
            let t = t.as_object()?;
            Some(gpulint_model::Taint::new(
                text(t, "key")?,
                text(t, "value"),
                &text(t, "effect")?,
                span.clone(),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::registry_address;

    #[test]
    fn registry_sources() {
        let eks = Some(("terraform-aws-modules/eks/aws".to_string(), String::new()));
        assert_eq!(registry_address("terraform-aws-modules/eks/aws"), eks);
        assert_eq!(
            registry_address("registry.terraform.io/terraform-aws-modules/eks/aws"),
            eks
        );
        assert_eq!(
            registry_address(
                "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git?ref=v20.8.5"
            ),
            eks
        );
        assert_eq!(
            registry_address("terraform-aws-modules/eks/aws//modules/karpenter")
                .unwrap()
                .1,
            "modules/karpenter"
        );
        assert_eq!(
            registry_address("Azure/aks/azurerm").unwrap().0,
            "azure/aks/azurerm"
        );
        // cloud-foundation-fabric is a repository of modules, named as it is.
        assert_eq!(
            registry_address(
                "git::https://github.com/GoogleCloudPlatform/cloud-foundation-fabric.git//modules/gke-nodepool?ref=v30.0.0"
            ),
            Some((
                "googlecloudplatform/cloud-foundation-fabric".into(),
                "modules/gke-nodepool".into()
            ))
        );
        assert_eq!(registry_address("./modules/gpu"), None);
        assert_eq!(registry_address("app.terraform.io/acme/gpu/aws"), None);
    }
}
