//! Azure: VMs (Linux, Windows and the legacy `azurerm_virtual_machine`) with the DevTest
//! Labs auto-shutdown schedule that stops them, VM scale sets, AKS node pools (the
//! cluster's default pool and `azurerm_kubernetes_cluster_node_pool`), and capacity
//! reservations.

use super::attach_stop;
use gpulint_facts::instance_machine;
use gpulint_model::{
    Capacity, CapacityKind, Inventory, Market, Placement, Provider, Scale, Span, StopKind, Str,
    Value, Zones,
};
use gpulint_terraform::{Block, Module, Resource, references};

const VMS: [(&str, &str); 3] = [
    ("azurerm_linux_virtual_machine", "size"),
    ("azurerm_windows_virtual_machine", "size"),
    ("azurerm_virtual_machine", "vm_size"),
];

const SCALE_SETS: [&str; 3] = [
    "azurerm_linux_virtual_machine_scale_set",
    "azurerm_windows_virtual_machine_scale_set",
    "azurerm_orchestrated_virtual_machine_scale_set",
];

pub fn lower(module: &Module<'_>, out: &mut Inventory) {
    let first = out.capacity.len();
    let disks: Vec<_> = module
        .resources_of("azurerm_virtual_machine_data_disk_attachment")
        .collect();
    for (rtype, size_key) in VMS {
        for r in module.resources_of(rtype) {
            let b = &r.block;
            let mut c = Capacity::new(
                r.subject(),
                Provider::Azure,
                CapacityKind::Instance,
                r.header(),
            );
            c.machines = b
                .str(size_key)
                .map(|s| vec![instance_machine(Provider::Azure, &s)]);
            c.market = priority(b, "priority");
            c.scale = Scale::fixed(Value::Known(1, r.header()));
            super::branch::gpu_branch(&mut c, b, size_key);
            c.zones = b.str("zone").map(|z| Zones::Listed(vec![z.into()]));
            c.placement = proximity(b);
            c.reserved = b.span_of("capacity_reservation_group_id");
            c.role = super::resource_role(&r, &["tags"], &[]);
            c.region = location(b);
            c.lasting_storage = super::storage::azure(&r, &disks);
            super::role::startup_shutdown(&mut c, b, module);
            super::role::startup_engine(&mut c, b);
            out.capacity.push(c);
        }
    }
    for schedule in module.resources_of("azurerm_dev_test_global_vm_shutdown_schedule") {
        let kind = match schedule.block.bool("enabled") {
            Value::Known(false, _) => continue,
            Value::Unknown(_) => StopKind::Unresolved,
            Value::Known(true, _) | Value::Absent => StopKind::ShutdownSchedule,
        };
        let targets: Vec<_> = schedule
            .block
            .expr("virtual_machine_id")
            .map(references)
            .unwrap_or_default()
            .into_iter()
            .filter(|t| VMS.iter().any(|(rtype, _)| *rtype == t.rtype))
            .collect();
        attach_stop(
            module,
            &mut out.capacity[first..],
            &targets,
            kind,
            &schedule.header(),
        );
    }
    for rtype in SCALE_SETS {
        for r in module.resources_of(rtype) {
            let mut c = scale_set(&r);
            c.region = location(&r.block);
            if let Some(scale) = autoscale(module, &r) {
                c.scale = scale;
            }
            out.capacity.push(c);
        }
    }
    for r in module.resources_of("azurerm_kubernetes_cluster_node_pool") {
        let tags = r.block.string_map("tags");
        let mut c = aks_pool(&r.block, r.subject(), &[r.name], tags);
        // A node pool runs where its cluster does.
        c.region = r
            .block
            .expr("kubernetes_cluster_id")
            .map(references)
            .unwrap_or_default()
            .iter()
            .filter(|t| t.rtype == "azurerm_kubernetes_cluster")
            .find_map(|t| location(&module.resource(&t.rtype, &t.name)?.block));
        out.capacity.push(c);
    }
    for cluster in module.resources_of("azurerm_kubernetes_cluster") {
        if let Value::Known(pool, _) = cluster.block.block("default_node_pool") {
            let subject = format!("{}.default_node_pool", cluster.subject());
            let tags = cluster.block.string_map("tags");
            let mut c = aks_pool(&pool, subject, &[cluster.name], tags);
            c.region = location(&cluster.block);
            out.capacity.push(c);
        }
    }
    for r in module.resources_of("azurerm_capacity_reservation") {
        let mut c = Capacity::new(
            r.subject(),
            Provider::Azure,
            CapacityKind::Reservation,
            r.header(),
        );
        if let Value::Known(sku, _) = r.block.block("sku") {
            c.machines = sku
                .str("name")
                .map(|s| vec![instance_machine(Provider::Azure, &s)]);
            let n = sku.u64("capacity");
            c.scale = Scale::fixed(n);
        }
        c.zones = r.block.str("zone").map(|z| Zones::Listed(vec![z.into()]));
        c.market = Value::Known(Market::Reserved, r.header());
        c.reserved = Some(r.header());
        out.capacity.push(c);
    }
}

/// The bounds of an enabled `azurerm_monitor_autoscale_setting` whose
/// `target_resource_id` is the scale set `set`: the lowest `minimum` of its profiles (a
/// night profile may go lower than the day's), the highest `maximum`, and the first
/// profile's `default` as the size it starts at.
fn autoscale(module: &Module<'_>, set: &Resource<'_>) -> Option<Scale> {
    let setting = super::referrer(
        module,
        &["azurerm_monitor_autoscale_setting"],
        "target_resource_id",
        set,
    )?;
    let b = &setting.block;
    match b.bool("enabled") {
        Value::Known(false, _) => return None,
        Value::Unknown(s) => return Some(Scale::unknown(s)),
        _ => {}
    }
    let profiles = match b.blocks("profile") {
        Value::Known(p, _) if !p.is_empty() => p,
        Value::Unknown(s) => return Some(Scale::unknown(s)),
        _ => return None,
    };
    let mut capacities = Vec::new();
    for p in &profiles {
        match p.block("capacity") {
            Value::Known(c, _) => capacities.push(c),
            Value::Unknown(s) => return Some(Scale::unknown(s)),
            Value::Absent => {}
        }
    }
    let bound = |key: &str, lowest: bool| -> Value<u64> {
        let mut best: Option<(u64, Span)> = None;
        for c in &capacities {
            match c.u64(key) {
                Value::Known(n, s) => {
                    if best
                        .as_ref()
                        .is_none_or(|(b, _)| if lowest { n < *b } else { n > *b })
                    {
                        best = Some((n, s));
                    }
                }
                Value::Unknown(s) => return Value::Unknown(s),
                Value::Absent => {}
            }
        }
        best.map_or(Value::Absent, |(n, s)| Value::Known(n, s))
    };
    Some(Scale {
        min: bound("minimum", true),
        max: bound("maximum", false),
        desired: capacities
            .first()
            .map_or(Value::Absent, |c| c.u64("default")),
        ..Scale::default()
    })
}

/// A resource's `location`, as the price list names regions: `"East US"` → `eastus`.
fn location(b: &Block<'_>) -> Option<Str> {
    let l = b
        .str("location")
        .known()?
        .to_ascii_lowercase()
        .replace(' ', "");
    Some(l.into())
}

/// `priority = "Spot"`.
fn priority(b: &Block<'_>, key: &str) -> Value<Market> {
    b.str(key).map(|p| {
        if p.eq_ignore_ascii_case("spot") {
            Market::Spot
        } else {
            Market::OnDemand
        }
    })
}

/// A proximity placement group keeps VMs close together.
fn proximity(b: &Block<'_>) -> Value<Placement> {
    b.span_of("proximity_placement_group_id")
        .map_or(Value::Absent, |s| Value::Known(Placement::Cluster, s))
}

fn zones(b: &Block<'_>) -> Value<Zones> {
    b.string_list("zones").map(Zones::of)
}

/// A VM scale set: InfiniBand on ND sizes is set up automatically between the VMs of one
/// scale set (AZ-DOCS), so the set is both the placement and the fabric.
fn scale_set(r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let mut c = Capacity::new(
        r.subject(),
        Provider::Azure,
        CapacityKind::Group,
        r.header(),
    );
    c.machines = b
        .str("sku")
        .map(|s| vec![instance_machine(Provider::Azure, &s)]);
    c.market = priority(b, "priority");
    let n = b.u64("instances");
    c.scale = Scale::fixed(n);
    c.zones = zones(b);
    c.placement = match proximity(b) {
        Value::Absent => Value::Known(Placement::Cluster, r.header()),
        p => p,
    };
    c.fast_fabric = Value::Known(true, r.header());
    c.reserved = b.span_of("capacity_reservation_group_id");
    c.role = super::resource_role(r, &["tags"], &[]);
    c
}

/// An AKS node pool: `pool` is the node pool resource's body, the cluster's
/// `default_node_pool` block, or a pool of the AKS module. `words` name it for its role;
/// `tags` are its resource's.
pub(super) fn aks_pool(
    pool: &Block<'_>,
    subject: String,
    words: &[&str],
    tags: Vec<(Str, Str, Span)>,
) -> Capacity {
    let header = pool.header.clone();
    let mut c = Capacity::new(
        subject,
        Provider::Azure,
        CapacityKind::NodePool,
        header.clone(),
    );
    c.machines = pool
        .str("vm_size")
        .map(|s| vec![instance_machine(Provider::Azure, &s)]);
    super::branch::gpu_branch(&mut c, pool, "vm_size");
    c.market = priority(pool, "priority");
    let autoscale = match pool.bool("auto_scaling_enabled") {
        Value::Absent => pool.bool("enable_auto_scaling"),
        v => v,
    };
    c.scale = match autoscale {
        Value::Known(true, _) => Scale {
            min: pool.u64("min_count"),
            max: pool.u64("max_count"),
            desired: pool.u64("node_count"),
            min_at_least: pool.u64_at_least("min_count"),
            ..Scale::default()
        },
        Value::Unknown(s) => Scale::unknown(s),
        Value::Known(false, _) | Value::Absent => {
            let n = pool.u64("node_count");
            Scale::fixed(n)
        }
    };
    c.zones = zones(pool);
    c.placement = proximity(pool);
    c.reserved = pool.span_of("capacity_reservation_group_id");
    c.labels = pool.string_map("node_labels");
    c.taints = written_taints(pool, "node_taints");
    let mut entries = c.labels.clone();
    entries.extend(tags);
    let name = pool.str("name").known().cloned();
    if let Some(n) = &name {
        for key in ["kubernetes.azure.com/agentpool", "agentpool"] {
            c.labels
                .push((key.into(), n.clone().into(), header.clone()));
        }
    }
    if c.market.known() == Some(&Market::Spot) {
        c.labels.push((
            "kubernetes.azure.com/scalesetpriority".into(),
            "spot".into(),
            header.clone(),
        ));
    }
    c.role = super::or_block_role(
        gpulint_model::intent::from_entries(
            &entries,
            words.iter().copied().chain(name.as_deref()),
            &header,
        ),
        pool,
        &header,
    );
    c
}

/// Taints written `key=value:Effect` in a list of strings (AKS `node_taints`).
pub(super) fn written_taints(b: &Block<'_>, key: &str) -> Vec<gpulint_model::Taint> {
    let (Value::Known(list, _), Some(span)) = (b.string_list(key), b.span_of(key)) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|t| gpulint_model::Taint::parse(t, span.clone()))
        .collect()
}
