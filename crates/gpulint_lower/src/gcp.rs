//! GCP: VMs and instance templates (GPUs from accelerator-optimized machine types or
//! `guest_accelerator`), their stops (`max_run_duration`, `termination_time`, instance
//! schedules) and placement (resource-policy collocation), managed instance groups with
//! their templates and autoscalers, reservations, and GKE node pools, standalone or inline
//! in the cluster.

use gpulint_facts::instance_machine;
use gpulint_facts::{Confidence, Interconnect, catalog};
use gpulint_model::{
    Capacity, CapacityKind, GpuSet, Inventory, Machine, Market, Placement, Provider, Scale, Span,
    Stop, StopKind, Str, Value, Zones,
};
use gpulint_terraform::{Block, Module, Resource, references};

pub fn lower(module: &Module<'_>, out: &mut Inventory) {
    let in_groups = templates_in_groups(module);
    for (rtype, kind) in [
        ("google_compute_instance", CapacityKind::Instance),
        ("google_compute_instance_template", CapacityKind::Template),
        (
            "google_compute_region_instance_template",
            CapacityKind::Template,
        ),
    ] {
        for r in module.resources_of(rtype) {
            // A template a managed instance group uses is judged as that group.
            if kind == CapacityKind::Template && in_groups.iter().any(|t| t == r.name) {
                continue;
            }
            out.capacity.push(vm(module, &r, kind));
        }
    }
    for rtype in MIGS {
        for r in module.resources_of(rtype) {
            out.capacity.push(managed_group(module, &r));
        }
    }
    for r in module.resources_of("google_compute_reservation") {
        out.capacity.push(reservation(&r));
    }
    for r in module.resources_of("google_container_node_pool") {
        let cluster = r
            .block
            .expr("cluster")
            .map(references)
            .unwrap_or_default()
            .into_iter()
            .find(|x| x.rtype == "google_container_cluster")
            .and_then(|x| module.resource(&x.rtype, &x.name));
        let location = match r.block.str("location") {
            Value::Absent => cluster.map_or(Value::Absent, |c| c.block.str("location")),
            l => l,
        };
        out.capacity
            .push(node_pool(&r, &r.block, r.subject(), &location));
    }
    for cluster in module.resources_of("google_container_cluster") {
        let location = cluster.block.str("location");
        match cluster.block.blocks("node_pool") {
            Value::Known(pools, _) => {
                for (i, pool) in pools.iter().enumerate() {
                    let name = pool
                        .str("name")
                        .known()
                        .cloned()
                        .unwrap_or_else(|| i.to_string());
                    let subject = format!("{}.node_pool[\"{name}\"]", cluster.subject());
                    out.capacity
                        .push(node_pool(&cluster, pool, subject, &location));
                }
            }
            Value::Absent => {
                if let Some(pool) = default_pool(&cluster, &location) {
                    out.capacity.push(pool);
                }
            }
            Value::Unknown(_) => {}
        }
    }
}

/// The pool GKE makes from a Standard cluster's own `node_config` and
/// `initial_node_count` when it declares no `node_pool` and keeps the default one:
/// `default-pool`, with no autoscaling of its own.
fn default_pool(cluster: &Resource<'_>, location: &Value<String>) -> Option<Capacity> {
    let b = &cluster.block;
    let on = |key: &str| !matches!(b.bool(key), Value::Known(false, _) | Value::Absent);
    if on("remove_default_node_pool") || on("enable_autopilot") {
        return None;
    }
    let subject = format!("{}.default_pool", cluster.subject());
    let mut c = node_pool(cluster, b, subject, location);
    // The pool is named by GKE, not by the cluster's `name`.
    for (key, value, _) in &mut c.labels {
        if key.as_str() == "cloud.google.com/gke-nodepool" {
            *value = "default-pool".into();
        }
    }
    Some(c)
}

fn vm(module: &Module<'_>, r: &Resource<'_>, kind: CapacityKind) -> Capacity {
    let b = &r.block;
    let scheduling = b.block("scheduling");
    let mut c = Capacity::new(r.subject(), Provider::Gcp, kind, r.header());
    if kind == CapacityKind::Instance {
        super::role::startup_shutdown(&mut c, b, module);
        super::role::startup_engine(&mut c, b);
    }
    match &scheduling {
        Value::Known(s, _) => {
            // A run cap or a fixed end time both stop the VM; so does a legacy preemptible
            // VM's 24-hour life (a Spot VM has none), which GCE ends without a restart.
            let preemptible_life = (kind == CapacityKind::Instance
                && s.str("provisioning_model")
                    .known()
                    .is_none_or(|m| m != "SPOT"))
            .then(|| match s.bool("preemptible") {
                Value::Known(true, sp) => Some(sp),
                _ => None,
            })
            .flatten();
            let caps = [
                s.block("max_run_duration").span().cloned(),
                s.span_of("termination_time"),
                preemptible_life,
            ];
            c.stop.extend(caps.into_iter().flatten().map(|span| Stop {
                kind: StopKind::MaxRunDuration,
                span,
            }));
        }
        Value::Unknown(span) => c.stop.push(Stop {
            kind: StopKind::Unresolved,
            span: span.clone(),
        }),
        Value::Absent => {}
    }
    let policies = resource_policies(module, r);
    c.stop.extend(policies.stops);
    c.placement = policies.placement;
    c.machines = machine(b).map(|m| vec![m]);
    attached_at_least(&mut c, b);
    super::branch::gpu_branch(&mut c, b, "machine_type");
    c.market = market(&scheduling);
    if kind == CapacityKind::Instance {
        c.lasting_storage = super::storage::gcp(r);
        c.scale = Scale::fixed(Value::Known(1, r.header()));
        c.zones = b.str("zone").map(|z| Zones::Listed(vec![z.into()]));
    }
    c.reserved = specific_reservation(b);
    c.role = super::resource_role(r, &["labels"], &["name"]);
    c
}

/// Managed instance groups, zonal and regional.
const MIGS: [&str; 2] = [
    "google_compute_instance_group_manager",
    "google_compute_region_instance_group_manager",
];

/// The names of the instance templates the module's managed instance groups use.
fn templates_in_groups(module: &Module<'_>) -> Vec<String> {
    // A module call given the template (`terraform-google-modules/vm/google//modules/mig`'s
    // `instance_template`) makes a group of it too, which replaces a VM that stops.
    let handed = module.calls().flat_map(|call| {
        call.block
            .expr("instance_template")
            .map(references)
            .unwrap_or_default()
    });
    MIGS.iter()
        .flat_map(|t| module.resources_of(t))
        .flat_map(|g| group_template_refs(&g.block))
        .chain(handed.filter(|r| r.rtype.contains("instance_template")))
        .map(|r| r.name)
        .collect()
}

/// The templates a group's `version { instance_template }` blocks name.
fn group_template_refs(b: &Block<'_>) -> Vec<gpulint_terraform::ResourceRef> {
    let Value::Known(versions, _) = b.blocks("version") else {
        return Vec::new();
    };
    versions
        .iter()
        .filter_map(|v| v.expr("instance_template"))
        .flat_map(references)
        .filter(|r| r.rtype.ends_with("instance_template"))
        .collect()
}

/// A managed instance group: the machines, market, stops and placement of the template its
/// first `version` names (unknown when the template is not in the module), its zone or
/// zones, and its size: the bounds of an autoscaler that targets it, else `target_size`
/// (0 when left out, as the provider defaults it).
fn managed_group(module: &Module<'_>, r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let mut c = Capacity::new(r.subject(), Provider::Gcp, CapacityKind::Group, r.header());
    let template = group_template_refs(b)
        .into_iter()
        .next()
        .and_then(|t| module.resource(&t.rtype, &t.name));
    match template {
        Some(t) => {
            let from = vm(module, &t, CapacityKind::Template);
            c.machines = from.machines;
            c.market = from.market;
            c.stop = from.stop;
            c.placement = from.placement;
            c.reserved = from.reserved;
            c.role = from.role;
        }
        None => {
            let span = b.span_of("version").unwrap_or_else(|| r.header());
            c.machines = Value::Unknown(span.clone());
            c.market = Value::Unknown(span);
        }
    }
    c.zones = match (
        b.str("zone"),
        b.string_list("distribution_policy_zones"),
        b.str("region"),
    ) {
        (Value::Known(z, s), _, _) => Value::Known(Zones::Listed(vec![z.into()]), s),
        (_, Value::Known(z, s), _) if !z.is_empty() => Value::Known(Zones::of(z), s),
        (_, _, Value::Known(region, s)) => Value::Known(Zones::Region(region), s),
        (Value::Unknown(s), _, _) | (_, Value::Unknown(s), _) | (_, _, Value::Unknown(s)) => {
            Value::Unknown(s)
        }
        _ => Value::Absent,
    };
    let autoscaler = super::referrer(
        module,
        &[
            "google_compute_autoscaler",
            "google_compute_region_autoscaler",
        ],
        "target",
        r,
    );
    c.scale = match autoscaler {
        Some(a) => match a.block.block("autoscaling_policy") {
            Value::Known(p, _) => Scale {
                min: p.u64("min_replicas"),
                max: p.u64("max_replicas"),
                ..Scale::default()
            },
            Value::Unknown(s) => Scale::unknown(s),
            Value::Absent => Scale::unknown(a.header()),
        },
        None => Scale::fixed(match b.u64("target_size") {
            Value::Absent => Value::Known(0, r.header()),
            n => n,
        }),
    };
    if c.role.known().is_none() {
        c.role = super::resource_role(r, &[], &["name", "base_instance_name"]);
    }
    c
}

/// The GPUs of a GCP machine: attached to the machine type (A2, A3, A4, G2, G4), or added
/// with `guest_accelerator` (N1). `machine_type_key` differs between VMs and reservations.
fn machine(b: &Block<'_>) -> Value<Machine> {
    machine_with(b, "machine_type", "guest_accelerator", "type", "count")
}

fn machine_with(
    b: &Block<'_>,
    machine_key: &str,
    accel_block: &str,
    type_key: &str,
    count_key: &str,
) -> Value<Machine> {
    let (attached, span) = match without_attached_gpus(b.str(machine_key)) {
        Ok(named) => named,
        Err(settled) => return settled,
    };
    let accelerators = match b.blocks(accel_block) {
        Value::Known(a, _) => a,
        Value::Unknown(s) => return Value::Unknown(s),
        Value::Absent => return Value::Known(attached, span),
    };
    let name = attached.name;
    let mut gpus = None;
    for acc in accelerators {
        let (Value::Known(ty, ty_span), count) = (acc.str(type_key), acc.u64(count_key)) else {
            return Value::Unknown(acc.header);
        };
        let count = match count {
            Value::Known(c, _) => c,
            Value::Unknown(s) => return Value::Unknown(s),
            // `count` is required; without it there is nothing to judge.
            Value::Absent => return Value::Unknown(acc.header),
        };
        if count == 0 {
            continue;
        }
        match gpu_set(&ty, count, ty_span) {
            Ok(set) => gpus = Some(set),
            Err(s) => return Value::Unknown(s),
        }
    }
    with_gpus(name, gpus, span)
}

/// When the machine is not known (its type or its GPUs' type is a variable without a
/// value), the GPUs `guest_accelerator` attaches with a known count still bound it.
fn attached_at_least(c: &mut Capacity, b: &Block<'_>) {
    let Value::Known(accelerators, _) = b.blocks("guest_accelerator") else {
        return;
    };
    let mut total = 0u64;
    let mut at = None;
    for acc in &accelerators {
        if let Value::Known(n, span) = acc.u64("count") {
            total = total.saturating_add(n);
            at.get_or_insert(span);
        }
    }
    if let Some(at) = at {
        let n = u32::try_from(total).unwrap_or(u32::MAX);
        c.at_least_gpus(
            n,
            format!("`guest_accelerator` attaches {}", gpulint_model::gpus(n)),
            at,
        );
    }
}

/// A machine type, as the catalog knows it, when GPUs may still be attached to it; `Err`
/// with the machine when that is already settled (unknown, absent, or GPUs in the type).
fn without_attached_gpus(machine: Value<String>) -> Result<(Machine, Span), Value<Machine>> {
    let (name, span) = match machine {
        Value::Known(t, s) => (last_segment(&t).to_string(), s),
        Value::Unknown(s) => return Err(Value::Unknown(s)),
        Value::Absent => return Err(Value::Absent),
    };
    let attached = instance_machine(Provider::Gcp, &name);
    if attached.gpus.is_some() {
        return Err(Value::Known(attached, span));
    }
    Ok((attached, span))
}

/// A machine type with GPUs attached to it.
fn with_gpus(name: Str, gpus: Option<GpuSet>, span: Span) -> Value<Machine> {
    Value::Known(
        Machine {
            name,
            gpus,
            fabric: None,
        },
        span,
    )
}

/// `count` GPUs of an attachable type. `Err` with the type's span when gpulint does not
/// know the type.
fn gpu_set(ty: &str, count: u64, ty_span: Span) -> Result<GpuSet, Span> {
    let ty = last_segment(ty);
    // N1's attachable GPUs carry their interconnect in the catalog; any other type the
    // catalog knows is read as PCIe-attached.
    let (gpu, interconnect, confidence) = match catalog().accelerator(ty) {
        Some(a) => (a.gpu, a.row.interconnect, a.row.confidence),
        None => match catalog().gpu(ty) {
            Some(g) => (g, Interconnect::Pcie, Confidence::U),
            None => return Err(ty_span),
        },
    };
    Ok(GpuSet {
        gpu,
        count: u32::try_from(count).unwrap_or(u32::MAX),
        interconnect,
        confidence,
    })
}

/// A machine type with, optionally, attached GPUs given flat (`accelerator_type` and
/// `accelerator_count`, as the GKE module takes them).
pub(super) fn pool_machine(
    machine: Value<String>,
    accel_type: Value<String>,
    accel_count: Value<u64>,
) -> Value<Machine> {
    let (name, span) = match without_attached_gpus(machine) {
        Ok((attached, span)) => (attached.name, span),
        Err(settled) => return settled,
    };
    let gpus = match (accel_count, accel_type) {
        (Value::Absent | Value::Known(0, _), _) => None,
        (Value::Unknown(s), _) | (_, Value::Unknown(s)) | (Value::Known(_, s), Value::Absent) => {
            return Value::Unknown(s);
        }
        (Value::Known(n, _), Value::Known(ty, ty_span)) => match gpu_set(&ty, n, ty_span) {
            Ok(set) => Some(set),
            Err(s) => return Value::Unknown(s),
        },
    };
    with_gpus(name, gpus, span)
}

/// `spot` or `preemptible` on a GKE node config: either makes the pool spot.
pub(super) fn spot_market(spot: Value<bool>, preemptible: Value<bool>) -> Value<Market> {
    match (spot, preemptible) {
        (Value::Known(true, s), _) | (_, Value::Known(true, s)) => Value::Known(Market::Spot, s),
        (Value::Unknown(s), _) | (_, Value::Unknown(s)) => Value::Unknown(s),
        _ => Value::Absent,
    }
}

/// `us-central1-a` is a zone; `us-central1` a region: as [`Zones`].
pub(super) fn location_zones(location: &str) -> Zones {
    if is_zone(location) {
        Zones::Listed(vec![location.into()])
    } else {
        Zones::Region(location.to_string())
    }
}

/// Spot from `provisioning_model = "SPOT"` or `preemptible = true` (VMs and templates).
fn market(scheduling: &Value<Block<'_>>) -> Value<Market> {
    let Value::Known(s, span) = scheduling else {
        return match scheduling {
            Value::Unknown(s) => Value::Unknown(s.clone()),
            _ => Value::Absent,
        };
    };
    match (s.str("provisioning_model"), s.bool("preemptible")) {
        (Value::Known(m, sp), _) if m == "SPOT" => Value::Known(Market::Spot, sp),
        (Value::Known(m, sp), _) if m == "RESERVATION_BOUND" => Value::Known(Market::Reserved, sp),
        (_, Value::Known(true, sp)) => Value::Known(Market::Spot, sp),
        (Value::Unknown(sp), _) | (_, Value::Unknown(sp)) => Value::Unknown(sp),
        _ => Value::Known(Market::OnDemand, span.clone()),
    }
}

/// `reservation_affinity { type = "SPECIFIC_RESERVATION" }`: consumes a reservation.
fn specific_reservation(b: &Block<'_>) -> Option<Span> {
    let affinity = b.block("reservation_affinity");
    let a = affinity.known()?;
    ["type", "consume_reservation_type"]
        .iter()
        .find_map(|k| match a.str(k) {
            Value::Known(t, s) if t == "SPECIFIC_RESERVATION" => Some(s),
            _ => None,
        })
}

struct Policies {
    stops: Vec<Stop>,
    placement: Value<Placement>,
}

/// Instance schedules and compact placement attached through `resource_policies`.
fn resource_policies(module: &Module<'_>, r: &Resource<'_>) -> Policies {
    let (Some(expr), Some(span)) = (
        r.block.expr("resource_policies"),
        r.block.span_of("resource_policies"),
    ) else {
        return Policies {
            stops: Vec::new(),
            placement: Value::Absent,
        };
    };
    let refs: Vec<_> = references(expr)
        .into_iter()
        .filter(|x| x.rtype == "google_compute_resource_policy")
        .collect();
    if refs.is_empty() {
        // Named by a string or a variable: it may be a schedule gpulint cannot see.
        return Policies {
            stops: vec![Stop {
                kind: StopKind::Unresolved,
                span: span.clone(),
            }],
            placement: Value::Unknown(span),
        };
    }
    let mut stops = Vec::new();
    let mut placement = Value::Absent;
    for x in refs {
        let at = r.block.span(x.span.clone());
        let Some(policy) = module.resource(&x.rtype, &x.name) else {
            continue;
        };
        let kind = match policy.block.block("instance_schedule_policy") {
            Value::Known(p, _) => match p.block("vm_stop_schedule") {
                Value::Known(..) => Some(StopKind::InstanceSchedule),
                Value::Unknown(_) => Some(StopKind::Unresolved),
                Value::Absent => None,
            },
            Value::Unknown(_) => Some(StopKind::Unresolved),
            Value::Absent => None,
        };
        if let Some(kind) = kind {
            stops.push(Stop {
                kind,
                span: at.clone(),
            });
        }
        if let Value::Known(g, _) = policy.block.block("group_placement_policy") {
            placement = match g.str("collocation") {
                Value::Known(c, _) if c == "COLLOCATED" => Value::Known(Placement::Cluster, at),
                Value::Known(..) | Value::Absent => Value::Known(Placement::Spread, at),
                Value::Unknown(s) => Value::Unknown(s),
            };
        }
    }
    Policies { stops, placement }
}

fn reservation(r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let mut c = Capacity::new(
        r.subject(),
        Provider::Gcp,
        CapacityKind::Reservation,
        r.header(),
    );
    c.market = Value::Known(Market::Reserved, r.header());
    c.reserved = Some(r.header());
    // VMs and node pools consume matching reservations unless this one asks to be named.
    c.open_to_matching = matches!(
        b.bool("specific_reservation_required"),
        Value::Absent | Value::Known(false, _)
    );
    c.zones = b.str("zone").map(|z| Zones::Listed(vec![z.into()]));
    match b.block("specific_reservation") {
        Value::Known(spec, _) => {
            let count = spec.u64("count");
            c.scale = Scale::fixed(count);
            c.machines = match spec.block("instance_properties") {
                Value::Known(p, _) => machine_with(
                    &p,
                    "machine_type",
                    "guest_accelerators",
                    "accelerator_type",
                    "accelerator_count",
                )
                .map(|m| vec![m]),
                Value::Unknown(s) => Value::Unknown(s),
                // From a source instance template gpulint does not follow.
                Value::Absent => Value::Unknown(spec.header),
            };
        }
        Value::Unknown(s) => c.machines = Value::Unknown(s),
        Value::Absent => {}
    }
    c
}

/// A GKE node pool: `pool` is the `google_container_node_pool` body or an inline
/// `node_pool` block of the cluster `r`.
fn node_pool(
    r: &Resource<'_>,
    pool: &Block<'_>,
    subject: String,
    location: &Value<String>,
) -> Capacity {
    let header = if subject == r.subject() {
        r.header()
    } else {
        pool.header.clone()
    };
    let mut c = Capacity::new(
        subject,
        Provider::Gcp,
        CapacityKind::NodePool,
        header.clone(),
    );
    let config = pool.block("node_config");
    if let Value::Known(nc, _) = &config {
        c.machines = machine(nc).map(|m| vec![m]);
        attached_at_least(&mut c, nc);
        super::branch::gpu_branch(&mut c, nc, "machine_type");
        c.market = spot_market(nc.bool("spot"), nc.bool("preemptible"));
        c.reserved = specific_reservation(nc);
        c.labels = nc.string_map("labels");
        c.taints = nc.taints("taint");
    } else if let Value::Unknown(s) = &config {
        c.machines = Value::Unknown(s.clone());
    }
    // Zones: node_locations, else the cluster's location (a zone, or a whole region).
    c.zones = match pool.string_list("node_locations") {
        Value::Known(z, s) if !z.is_empty() => Value::Known(Zones::of(z), s),
        Value::Known(_, s) | Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => match location {
            Value::Known(l, s) => Value::Known(location_zones(l), s.clone()),
            Value::Unknown(s) => Value::Unknown(s.clone()),
            Value::Absent => Value::Absent,
        },
    };
    let zone_count = c.zones.known().and_then(Zones::listed);
    c.scale = match pool.block("autoscaling") {
        Value::Known(a, _) => {
            match (a.u64("total_min_node_count"), a.u64("total_max_node_count")) {
                (Value::Absent, Value::Absent) => Scale::per_zone(
                    a.u64("min_node_count"),
                    a.u64("max_node_count"),
                    pool.u64("initial_node_count"),
                    zone_count,
                ),
                (min, max) => Scale {
                    min,
                    max,
                    ..Scale::default()
                },
            }
        }
        Value::Unknown(s) => Scale::unknown(s),
        // No autoscaling: a fixed size per zone.
        Value::Absent => {
            let fixed = match pool.u64("node_count") {
                Value::Absent => pool.u64("initial_node_count"),
                n => n,
            };
            Scale::fixed_per_zone(fixed, zone_count)
        }
    };
    c.placement = match pool.block("placement_policy") {
        Value::Known(p, span) => match p.str("type") {
            Value::Known(t, s) if t == "COMPACT" => Value::Known(Placement::Cluster, s),
            Value::Known(_, s) => Value::Known(Placement::Spread, s),
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => Value::Known(Placement::Spread, span),
        },
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => Value::Absent,
    };
    // GPUDirect-TCPX/TCPXO/RDMA need extra node networks for the GPU NICs.
    c.fast_fabric = match pool.block("network_config") {
        Value::Known(n, span) => match n.blocks("additional_node_network_configs") {
            Value::Known(_, s) => Value::Known(true, s),
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => Value::Known(false, span),
        },
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => Value::Absent,
    };
    let name = pool.str("name").known().cloned();
    if let Some(n) = &name {
        c.labels.push((
            "cloud.google.com/gke-nodepool".into(),
            n.clone().into(),
            header.clone(),
        ));
    }
    c.role = super::or_block_role(
        gpulint_model::intent::from_entries(
            &c.labels,
            [c.subject.as_str()].into_iter().chain(name.as_deref()),
            &header,
        ),
        pool,
        &header,
    );
    c
}

/// `us-central1-a` is a zone; `us-central1` a region.
fn is_zone(location: &str) -> bool {
    location
        .rsplit_once('-')
        .is_some_and(|(_, last)| last.len() == 1 && last.chars().all(|c| c.is_ascii_lowercase()))
}

/// `projects/p/zones/z/machineTypes/a3-highgpu-8g` → `a3-highgpu-8g`.
fn last_segment(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::is_zone;

    #[test]
    fn zones_and_regions() {
        assert!(is_zone("us-central1-a"));
        assert!(is_zone("europe-west4-b"));
        assert!(!is_zone("us-central1"));
        assert!(!is_zone("europe-west4"));
    }
}
