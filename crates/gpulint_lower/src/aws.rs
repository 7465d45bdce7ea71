//! AWS: instances, spot requests, launch templates, auto scaling groups, EKS node groups,
//! placement groups, capacity reservations, SageMaker notebooks, and the CloudWatch alarms
//! that stop or terminate instances.

use super::attach_stop;
use gpulint_facts::instance_machine;
use gpulint_model::{
    Capacity, CapacityKind, Inventory, Machine, Market, Placement, Provider, Scale, Span, Stop,
    StopKind, Str, Value, Zones,
};
use gpulint_terraform::{Block, HOLE, Module, Resource, references, string_shape};

pub fn lower(module: &Module<'_>, out: &mut Inventory) {
    let first = out.capacity.len();
    // Read once: a block may make many instances, and each looks for its own.
    let attachments: Vec<Resource<'_>> = module
        .resources_of("aws_network_interface_attachment")
        .collect();
    let volumes: Vec<Resource<'_>> = module.resources_of("aws_volume_attachment").collect();
    for r in module.resources_of("aws_instance") {
        let mut c = instance(module, &r, &attachments);
        c.lasting_storage = super::storage::aws(&r, &volumes);
        out.capacity.push(c);
    }
    for r in module.resources_of("aws_spot_instance_request") {
        let mut c = instance(module, &r, &attachments);
        c.market = Value::Known(Market::Spot, r.header());
        c.lasting_storage = super::storage::aws(&r, &volumes);
        out.capacity.push(c);
    }
    for r in module.resources_of("aws_autoscaling_group") {
        out.capacity.push(auto_scaling_group(module, &r));
    }
    for r in module.resources_of("aws_eks_node_group") {
        out.capacity.push(node_group(module, &r));
    }
    for r in module.resources_of("aws_ec2_capacity_reservation") {
        out.capacity.push(reservation(&r));
    }
    for r in module.resources_of("aws_sagemaker_notebook_instance") {
        out.capacity.push(notebook(&r));
    }
    super::ecs::hold(module, &mut out.capacity[first..]);
    // EventBridge Scheduler calling EC2's StopInstances on a schedule, for the instances
    // its `input` names.
    for schedule in module.resources_of("aws_scheduler_schedule") {
        let Value::Known(target, _) = schedule.block.block("target") else {
            continue;
        };
        if super::schedules::disabled(&schedule.block) {
            continue;
        }
        let stops = target
            .str("arn")
            .known()
            .is_some_and(|arn| is_ec2_stop_api(arn));
        if !stops {
            continue;
        }
        attach_stop(
            module,
            &mut out.capacity[first..],
            &instances_in(target.expr("input")),
            StopKind::InstanceSchedule,
            &schedule.header(),
        );
    }
    super::lambda::scheduled_stops(module, &mut out.capacity[first..]);
    super::schedules::group_stops(module, &mut out.capacity[first..]);
    for alarm in module.resources_of("aws_cloudwatch_metric_alarm") {
        let Some(stop) = stop_action(&alarm) else {
            continue;
        };
        attach_stop(
            module,
            &mut out.capacity[first..],
            &instances_in(alarm.block.expr("dimensions")),
            stop,
            &alarm.header(),
        );
    }
}

/// What a launch template contributes to the instances and groups that use it.
#[derive(Default)]
struct Template {
    instance_type: Value<String>,
    /// GPUs its `instance_requirements` select on each machine, at least.
    accelerators: Option<(u32, Span)>,
    market: Value<Market>,
    placement: Value<Placement>,
    efa: Value<bool>,
    efa_cards: Option<(u32, Span)>,
    reserved: Option<Span>,
    /// What the template says its machines do (its names, comment, description and
    /// start-up script arguments): the role of a group that has none of its own.
    role: gpulint_model::Inferred<gpulint_model::Role>,
}

fn template(module: &Module<'_>, lt: &Resource<'_>) -> Template {
    let b = &lt.block;
    let efa = efa_interfaces(b);
    let placement = match b.block("placement") {
        Value::Known(p, _) => placement_group(module, &p, "group_name"),
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => Value::Absent,
    };
    Template {
        // Attribute-based selection picks the types at launch: none is written.
        instance_type: match (b.str("instance_type"), b.span_of("instance_requirements")) {
            (Value::Absent, Some(s)) => Value::Unknown(s),
            (t, _) => t,
        },
        accelerators: required_accelerators(b),
        market: market_options(b),
        placement,
        efa,
        efa_cards: efa_cards(b),
        reserved: reservation_target(b),
        role: super::resource_role(lt, &["tags"], &["name"]),
    }
}

/// The GPUs an attribute-based selection (`instance_requirements`) asks of each machine:
/// `accelerator_types` with `gpu`, or a GPU maker or name, at least
/// `accelerator_count.min` (1 when not written). `None` when it selects no GPU or may pick
/// machines without one.
fn required_accelerators(b: &Block<'_>) -> Option<(u32, Span)> {
    let Value::Known(req, span) = b.block("instance_requirements") else {
        return None;
    };
    let lists = |k: &str| req.string_list(k).known().cloned().unwrap_or_default();
    let gpu = lists("accelerator_types").iter().any(|t| t == "gpu")
        || lists("accelerator_manufacturers")
            .iter()
            .any(|m| m == "nvidia" || m == "amd")
        || !lists("accelerator_names").is_empty();
    if !gpu {
        return None;
    }
    let count = req.block("accelerator_count");
    let bound = |k: &str| match &count {
        Value::Known(c, _) => c.u64(k).known().copied(),
        _ => None,
    };
    if bound("max") == Some(0) {
        return None;
    }
    let min = bound("min").unwrap_or(1).max(1);
    Some((u32::try_from(min).unwrap_or(u32::MAX), span))
}

/// The bound an attribute-based selection puts on GPUs per machine of a type not known.
fn at_least_selected(c: &mut Capacity, selected: Option<(u32, Span)>) {
    if let Some((n, at)) = selected {
        c.at_least_gpus(
            n,
            format!(
                "its `instance_requirements` select machines with at least {}",
                gpulint_model::gpus(n)
            ),
            at,
        );
    }
}

/// How many network cards the EFA interfaces of `network_interfaces` sit on: their
/// distinct `network_card_index` (0 when not written), with where the first one's type is
/// written. `None` without an EFA interface, or when an index or type is unknown.
pub(super) fn efa_cards(b: &Block<'_>) -> Option<(u32, Span)> {
    let Value::Known(nics, _) = b.blocks("network_interfaces") else {
        return None;
    };
    cards_of(
        nics.iter()
            .map(|n| (n.str("interface_type"), n.u64("network_card_index"))),
    )
}

/// Whether an interface type is an EFA.
fn is_efa(t: &str) -> bool {
    t == "efa" || t == "efa-only"
}

/// The distinct network cards the EFAs among `nics` (each its interface type and card
/// index, 0 when not written) sit on, with where the first EFA's type is written. `None`
/// without an EFA, or when a type or index is unknown.
fn cards_of(nics: impl Iterator<Item = (Value<String>, Value<u64>)>) -> Option<(u32, Span)> {
    let mut cards: Vec<u64> = Vec::new();
    let mut first: Option<Span> = None;
    for (kind, card) in nics {
        match kind {
            Value::Known(t, at) if is_efa(&t) => {
                first.get_or_insert(at);
            }
            Value::Unknown(_) => return None,
            _ => continue,
        }
        match card {
            Value::Known(i, _) => cards.push(i),
            Value::Absent => cards.push(0),
            Value::Unknown(_) => return None,
        }
    }
    cards.sort_unstable();
    cards.dedup();
    let n = u32::try_from(cards.len()).ok().filter(|&n| n > 0)?;
    Some((n, first?))
}

/// Whether `network_interfaces` (blocks, or a list of objects as the EKS module takes them)
/// attach an EFA: `interface_type = "efa"` or `"efa-only"`.
pub(super) fn efa_interfaces(b: &Block<'_>) -> Value<bool> {
    match b.blocks("network_interfaces") {
        Value::Known(nics, span) => {
            let types: Vec<Value<String>> = nics.iter().map(|n| n.str("interface_type")).collect();
            if types.iter().any(|t| t.known().is_some_and(|t| is_efa(t))) {
                Value::Known(true, span)
            } else if types.iter().any(Value::is_unknown) {
                Value::Unknown(span)
            } else {
                Value::Known(false, span)
            }
        }
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => Value::Absent,
    }
}

/// The launch template a `launch_template { id | name }` block names, when it is in the
/// module. `Unknown` when the block names one gpulint cannot find.
fn launch_template<'a>(module: &'a Module<'a>, b: &Block<'a>, key: &str) -> Value<Template> {
    let spec = match b.block(key) {
        Value::Known(s, _) => s,
        Value::Unknown(s) => return Value::Unknown(s),
        Value::Absent => return Value::Absent,
    };
    let target = ["id", "name", "launch_template_id", "launch_template_name"]
        .iter()
        .filter_map(|k| spec.expr(k))
        .flat_map(references)
        .find(|r| r.rtype == "aws_launch_template");
    match target.and_then(|t| module.resource(&t.rtype, &t.name)) {
        Some(lt) => Value::Known(template(module, &lt), spec.header),
        None => Value::Unknown(spec.header),
    }
}

/// What the older launch configuration of a group contributes (`launch_configuration =
/// aws_launch_configuration.NAME.name`): its type, and spot when it bids a `spot_price`.
fn launch_configuration(module: &Module<'_>, b: &Block<'_>) -> Value<Template> {
    let (lc, span) = match referenced(
        module,
        b,
        "launch_configuration",
        "aws_launch_configuration",
    ) {
        Value::Known(lc, span) => (lc, span),
        Value::Unknown(span) => return Value::Unknown(span),
        Value::Absent => return Value::Absent,
    };
    let lb = &lc.block;
    let market = match lb.str("spot_price") {
        // An empty bid is on demand.
        Value::Known(p, _) if p.is_empty() => Value::Absent,
        Value::Known(_, s) => Value::Known(Market::Spot, s),
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => Value::Absent,
    };
    Value::Known(
        Template {
            instance_type: lb.str("instance_type"),
            market,
            role: super::resource_role(&lc, &["tags"], &["name", "name_prefix"]),
            ..Template::default()
        },
        span,
    )
}

/// A value a launch template contributes: unknown when the template is.
fn from_template<T>(lt: &Value<Template>, f: impl FnOnce(&Template) -> Value<T>) -> Value<T> {
    match lt {
        Value::Known(t, _) => f(t),
        Value::Unknown(s) => Value::Unknown(s.clone()),
        Value::Absent => Value::Absent,
    }
}

/// `instance_market_options { market_type = "spot" }`.
pub(super) fn market_options(b: &Block<'_>) -> Value<Market> {
    match b.block("instance_market_options") {
        Value::Absent => Value::Absent,
        Value::Unknown(s) => Value::Unknown(s),
        Value::Known(opts, span) => match opts.str("market_type") {
            Value::Known(t, s) => Value::Known(
                match t.as_str() {
                    "spot" => Market::Spot,
                    "capacity-block" => Market::Reserved,
                    _ => Market::OnDemand,
                },
                s,
            ),
            Value::Unknown(s) => Value::Unknown(s),
            // market_type is optional; options without it still ask for spot.
            Value::Absent => Value::Known(Market::Spot, span),
        },
    }
}

/// A targeted capacity reservation (ODCR): capacity that is paid for anyway.
fn reservation_target(b: &Block<'_>) -> Option<Span> {
    let spec = b.block("capacity_reservation_specification");
    let spec = spec.known()?;
    spec.block("capacity_reservation_target")
        .known()
        .map(|t| t.header.clone())
}

/// The resource of type `rtype` that `b.key` refers to, in this module, with where the key
/// is written: `Absent` when the key is not written, `Unknown` when it names one gpulint
/// cannot see (a literal ID, a variable, another module's output).
fn referenced<'m>(
    module: &'m Module<'m>,
    b: &Block<'_>,
    key: &str,
    rtype: &str,
) -> Value<Resource<'m>> {
    let (Some(expr), Some(span)) = (b.expr(key), b.span_of(key)) else {
        return Value::Absent;
    };
    match references(expr)
        .into_iter()
        .find(|r| r.rtype == rtype)
        .and_then(|r| module.resource(&r.rtype, &r.name))
    {
        Some(found) => Value::Known(found, span),
        None => Value::Unknown(span),
    }
}

/// The strategy of the placement group `b.key` names. `Unknown` when it names one
/// gpulint cannot see (a name string, a variable).
fn placement_group(module: &Module<'_>, b: &Block<'_>, key: &str) -> Value<Placement> {
    let (pg, span) = match referenced(module, b, key, "aws_placement_group") {
        Value::Known(pg, span) => (pg, span),
        Value::Unknown(span) => return Value::Unknown(span),
        Value::Absent => return Value::Absent,
    };
    match pg.block.str("strategy") {
        Value::Known(s, _) => Value::Known(
            if s == "cluster" {
                Placement::Cluster
            } else {
                Placement::Spread
            },
            span,
        ),
        _ => Value::Unknown(span),
    }
}

/// Zones of the subnets an expression lists, through `aws_subnet.availability_zone`.
fn subnet_zones(module: &Module<'_>, b: &Block<'_>, key: &str) -> Value<Zones> {
    let (Some(expr), Some(span)) = (b.expr(key), b.span_of(key)) else {
        return Value::Absent;
    };
    let refs = references(expr);
    if refs.is_empty() || refs.iter().any(|r| r.rtype != "aws_subnet") {
        return Value::Unknown(span);
    }
    let mut zones = Vec::new();
    for r in refs {
        let Some(subnet) = module.resource(&r.rtype, &r.name) else {
            return Value::Unknown(span);
        };
        match subnet.block.str("availability_zone") {
            Value::Known(z, _) => {
                if !zones.contains(&z) {
                    zones.push(z);
                }
            }
            _ => return Value::Unknown(span),
        }
    }
    Value::Known(Zones::of(zones), span)
}

/// The network interfaces an instance is given as resources of their own: its
/// `network_interface { network_interface_id = aws_network_interface.x.id }` blocks, and
/// `aws_network_interface_attachment`s that name it. Whether one is an EFA
/// (`interface_type = "efa"` or `"efa-only"`), with the network cards the EFAs sit on.
/// `Absent` when it is given none; `Unknown` when one cannot be read.
fn attached_efa(
    module: &Module<'_>,
    r: &Resource<'_>,
    attachments: &[Resource<'_>],
) -> Value<(bool, Option<(u32, Span)>)> {
    let mut nics: Vec<(Resource<'_>, Value<u64>)> = Vec::new();
    let mut at: Option<Span> = None;
    if let Value::Known(blocks, span) = r.block.blocks("network_interface") {
        at = Some(span);
        for n in blocks {
            let Value::Known(eni, _) =
                referenced(module, &n, "network_interface_id", "aws_network_interface")
            else {
                return Value::Unknown(n.header);
            };
            nics.push((eni, n.u64("network_card_index")));
        }
    }
    for a in attachments {
        if !super::refers_to(&a.block, "instance_id", r) {
            continue;
        }
        let Value::Known(eni, _) = referenced(
            module,
            &a.block,
            "network_interface_id",
            "aws_network_interface",
        ) else {
            return Value::Unknown(a.header());
        };
        at.get_or_insert_with(|| a.header());
        nics.push((eni, Value::Absent));
    }
    let Some(at) = at.filter(|_| !nics.is_empty()) else {
        return Value::Absent;
    };
    let kinds: Vec<(Value<String>, Value<u64>)> = nics
        .into_iter()
        .map(|(eni, card)| (eni.block.str("interface_type"), card))
        .collect();
    if let Some(s) = kinds.iter().find_map(|(t, _)| match t {
        Value::Unknown(s) => Some(s.clone()),
        _ => None,
    }) {
        return Value::Unknown(s);
    }
    let first = kinds.iter().find_map(|(t, _)| match t {
        Value::Known(t, s) if is_efa(t) => Some(s.clone()),
        _ => None,
    });
    match first {
        Some(s) => Value::Known((true, cards_of(kinds.into_iter())), s),
        None => Value::Known((false, None), at),
    }
}

fn one(b: &Block<'_>, key: &str, provider: Provider) -> Value<Vec<Machine>> {
    b.str(key).map(|t| vec![instance_machine(provider, &t)])
}

fn instance(module: &Module<'_>, r: &Resource<'_>, attachments: &[Resource<'_>]) -> Capacity {
    let b = &r.block;
    let lt = launch_template(module, b, "launch_template");
    let mut c = Capacity::new(
        r.subject(),
        Provider::Aws,
        CapacityKind::Instance,
        r.header(),
    );
    super::role::startup_shutdown(&mut c, b, module);
    super::role::startup_engine(&mut c, b);
    c.machines = match b.str("instance_type") {
        Value::Absent => from_template(&lt, |t| t.instance_type.clone()),
        v => v,
    }
    .map(|t| vec![instance_machine(Provider::Aws, &t)]);
    super::branch::gpu_branch(&mut c, b, "instance_type");
    c.market = match market_options(b) {
        Value::Absent => from_template(&lt, |t| t.market.clone()),
        m => m,
    };
    c.scale = Scale::fixed(Value::Known(1, r.header()));
    c.zones = match b.str("availability_zone") {
        Value::Known(z, s) => Value::Known(Zones::Listed(vec![z.into()]), s),
        Value::Unknown(s) => Value::Unknown(s),
        Value::Absent => subnet_zones(module, b, "subnet_id"),
    };
    c.placement = match placement_group(module, b, "placement_group") {
        Value::Absent => from_template(&lt, |t| t.placement.clone()),
        p => p,
    };
    match attached_efa(module, r, attachments) {
        Value::Absent => {
            c.fast_fabric = from_template(&lt, |t| t.efa.clone());
            c.efa_cards = lt.known().and_then(|t| t.efa_cards.clone());
        }
        Value::Known((efa, cards), span) => {
            c.fast_fabric = Value::Known(efa, span);
            c.efa_cards = cards;
        }
        Value::Unknown(span) => c.fast_fabric = Value::Unknown(span),
    }
    at_least_selected(&mut c, lt.known().and_then(|t| t.accelerators.clone()));
    c.reserved = reservation_target(b)
        .or_else(|| lt.known().and_then(|t| t.reserved.clone()))
        .or_else(|| reserved_market(&c.market));
    c.role = super::resource_role(r, &["tags"], &[]);
    c
}

/// The span that says the capacity is reserved, when its market is.
pub(super) fn reserved_market(m: &Value<Market>) -> Option<Span> {
    match m {
        Value::Known(Market::Reserved, s) => Some(s.clone()),
        _ => None,
    }
}

fn auto_scaling_group(module: &Module<'_>, r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let mut c = Capacity::new(r.subject(), Provider::Aws, CapacityKind::Group, r.header());
    let mixed = b.block("mixed_instances_policy");
    let mut selected = None;
    let (lt, overrides, distribution) = match &mixed {
        Value::Known(m, _) => {
            let spec = m.block("launch_template");
            let lt = match &spec {
                Value::Known(s, _) => launch_template(module, s, "launch_template_specification"),
                Value::Unknown(sp) => Value::Unknown(sp.clone()),
                Value::Absent => Value::Absent,
            };
            let overrides: Value<Vec<Value<String>>> = match &spec {
                Value::Known(s, _) => s.blocks("override").map(|o| {
                    o.iter()
                        .map(|o| {
                            if let Some(f) = required_accelerators(o) {
                                selected.get_or_insert(f);
                            }
                            o.str("instance_type")
                        })
                        .collect()
                }),
                _ => Value::Absent,
            };
            (lt, overrides, m.block("instances_distribution"))
        }
        Value::Unknown(s) => (
            Value::Unknown(s.clone()),
            Value::Absent,
            Value::Unknown(s.clone()),
        ),
        Value::Absent => (
            match launch_template(module, b, "launch_template") {
                Value::Absent => launch_configuration(module, b),
                lt => lt,
            },
            Value::Absent,
            Value::Absent,
        ),
    };
    c.machines = match (&overrides, &lt) {
        (Value::Known(types, span), _) => {
            if types.iter().any(Value::is_unknown) {
                Value::Unknown(span.clone())
            } else {
                let names: Vec<&String> = types.iter().filter_map(Value::known).collect();
                if names.is_empty() {
                    Value::Unknown(span.clone())
                } else {
                    Value::Known(
                        names
                            .iter()
                            .map(|t| instance_machine(Provider::Aws, t))
                            .collect(),
                        span.clone(),
                    )
                }
            }
        }
        (Value::Unknown(s), _) | (Value::Absent, Value::Unknown(s)) => Value::Unknown(s.clone()),
        (Value::Absent, Value::Known(t, _)) => t
            .instance_type
            .clone()
            .map(|t| vec![instance_machine(Provider::Aws, &t)]),
        (Value::Absent, Value::Absent) => Value::Absent,
    };
    c.market = match &distribution {
        Value::Absent => from_template(&lt, |t| t.market.clone()),
        d => distribution_market(d),
    };
    c.scale = group_scale(b);
    c.zones = match subnet_zones(module, b, "vpc_zone_identifier") {
        Value::Absent => b.string_list("availability_zones").map(Zones::of),
        z => z,
    };
    c.placement = match placement_group(module, b, "placement_group") {
        Value::Absent => from_template(&lt, |t| t.placement.clone()),
        p => p,
    };
    c.fast_fabric = from_template(&lt, |t| t.efa.clone());
    c.efa_cards = lt.known().and_then(|t| t.efa_cards.clone());
    at_least_selected(
        &mut c,
        selected.or_else(|| lt.known().and_then(|t| t.accelerators.clone())),
    );
    c.reserved = lt
        .known()
        .and_then(|t| t.reserved.clone())
        .or_else(|| reserved_market(&c.market));
    // ASG tags are `tag { key, value }` blocks.
    let tags: Vec<(Str, Str, Span)> = b
        .blocks("tag")
        .known()
        .map(|ts| {
            ts.iter()
                .filter_map(|t| {
                    let v = t.str("value");
                    Some((
                        t.str("key").known()?.as_str().into(),
                        v.known()?.as_str().into(),
                        v.span()?.clone(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let name = b.str("name").known().cloned();
    c.role = super::or_block_role(
        gpulint_model::intent::from_entries(
            &tags,
            std::iter::once(r.name).chain(name.as_deref()),
            &r.header(),
        ),
        b,
        &r.header(),
    );
    if c.role.known().is_none()
        && let Value::Known(t, _) = &lt
    {
        c.role = t.role.clone();
    }
    c
}

/// An auto scaling group's bounds, as the resource and the autoscaling module name them.
pub(super) fn group_scale(b: &Block<'_>) -> Scale {
    Scale {
        min: b.u64("min_size"),
        max: b.u64("max_size"),
        desired: b.u64("desired_capacity"),
        min_at_least: b.u64_at_least("min_size"),
        ..Scale::default()
    }
}

/// The market of a mixed-instances group, from its `instances_distribution`: on demand
/// unless a share above the base runs on spot.
pub(super) fn distribution_market(distribution: &Value<Block<'_>>) -> Value<Market> {
    match distribution {
        Value::Known(d, span) => {
            let base = d.u64("on_demand_base_capacity");
            let pct = d.u64("on_demand_percentage_above_base_capacity");
            match (base, pct) {
                (Value::Unknown(s), _) | (_, Value::Unknown(s)) => Value::Unknown(s),
                (base, pct) => {
                    // AWS defaults: base 0, percentage 100.
                    let b0 = base.known().copied().unwrap_or(0);
                    let p0 = pct.known().copied().unwrap_or(100);
                    let at = pct
                        .span()
                        .or(base.span())
                        .cloned()
                        .unwrap_or_else(|| span.clone());
                    Value::Known(
                        match (b0, p0) {
                            (_, 100) => Market::OnDemand,
                            (0, 0) => Market::Spot,
                            _ => Market::Mixed,
                        },
                        at,
                    )
                }
            }
        }
        Value::Unknown(s) => Value::Unknown(s.clone()),
        // Without a distribution, every instance is on demand.
        Value::Absent => Value::Absent,
    }
}

fn node_group(module: &Module<'_>, r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let lt = launch_template(module, b, "launch_template");
    let mut c = Capacity::new(
        r.subject(),
        Provider::Aws,
        CapacityKind::NodePool,
        r.header(),
    );
    c.machines = match b.string_list("instance_types") {
        Value::Known(types, s) if !types.is_empty() => Value::Known(
            types
                .iter()
                .map(|t| instance_machine(Provider::Aws, t))
                .collect(),
            s,
        ),
        Value::Known(_, s) | Value::Unknown(s) => Value::Unknown(s),
        // Without instance_types the group takes the launch template's, else t3.medium.
        Value::Absent => match &lt {
            Value::Known(t, _) => t
                .instance_type
                .clone()
                .map(|t| vec![instance_machine(Provider::Aws, &t)]),
            Value::Unknown(s) => Value::Unknown(s.clone()),
            Value::Absent => Value::Known(
                vec![instance_machine(Provider::Aws, "t3.medium")],
                r.header(),
            ),
        },
    };
    c.market = b.str("capacity_type").map(|t| capacity_type_market(&t));
    let scaling = b.block("scaling_config");
    c.scale = match &scaling {
        Value::Known(s, _) => Scale {
            min: s.u64("min_size"),
            max: s.u64("max_size"),
            desired: s.u64("desired_size"),
            min_at_least: s.u64_at_least("min_size"),
            ..Scale::default()
        },
        Value::Unknown(s) => Scale::unknown(s.clone()),
        Value::Absent => Scale::default(),
    };
    c.zones = subnet_zones(module, b, "subnet_ids");
    c.placement = from_template(&lt, |t| t.placement.clone());
    c.fast_fabric = from_template(&lt, |t| t.efa.clone());
    c.efa_cards = lt.known().and_then(|t| t.efa_cards.clone());
    at_least_selected(&mut c, lt.known().and_then(|t| t.accelerators.clone()));
    if let Value::Known(ami, at) = b.str("ami_type") {
        c.gpus_from_image("ami_type", &ami, &at);
    }
    c.reserved = reserved_market(&c.market).or_else(|| lt.known().and_then(|t| t.reserved.clone()));
    c.labels = b.string_map("labels");
    c.taints = b.taints("taint");
    c.role = super::resource_role(r, &["labels", "tags"], &["node_group_name"]);
    // Labels EKS puts on every node of the group.
    if let Value::Known(name, s) = b.str("node_group_name") {
        c.labels
            .push(("eks.amazonaws.com/nodegroup".into(), name.into(), s));
    }
    if let Value::Known(t, s) = b.str("capacity_type") {
        c.labels
            .push(("eks.amazonaws.com/capacityType".into(), t.into(), s));
    }
    c
}

/// An EKS node group's `capacity_type`: `SPOT`, `CAPACITY_BLOCK` or on-demand.
pub(super) fn capacity_type_market(t: &str) -> Market {
    match t {
        "SPOT" => Market::Spot,
        "CAPACITY_BLOCK" => Market::Reserved,
        _ => Market::OnDemand,
    }
}

fn reservation(r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let mut c = Capacity::new(
        r.subject(),
        Provider::Aws,
        CapacityKind::Reservation,
        r.header(),
    );
    c.machines = one(b, "instance_type", Provider::Aws);
    let count = b.u64("instance_count");
    c.scale = Scale::fixed(count);
    c.zones = b
        .str("availability_zone")
        .map(|z| Zones::Listed(vec![z.into()]));
    c.market = Value::Known(Market::Reserved, r.header());
    c.reserved = Some(r.header());
    // `open` (the default): instances of its type in its zone use it without naming it.
    c.open_to_matching = match b.str("instance_match_criteria") {
        Value::Absent => true,
        Value::Known(m, _) => m == "open",
        Value::Unknown(_) => false,
    };
    c
}

/// SageMaker notebooks: `ml.g5.xlarge` runs on a `g5.xlarge`. Idle shutdown is done by a
/// lifecycle configuration script; gpulint cannot read the script, so an attached one
/// counts as a possible stop.
fn notebook(r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let mut c = Capacity::new(
        r.subject(),
        Provider::Aws,
        CapacityKind::Notebook,
        r.header(),
    );
    c.machines = b.str("instance_type").map(|t| {
        let ec2 = t.strip_prefix("ml.").unwrap_or(&t);
        let mut m = instance_machine(Provider::Aws, ec2);
        m.name = t.as_str().into();
        vec![m]
    });
    if let Some(span) = b.span_of("lifecycle_config_name") {
        c.stop.push(Stop {
            kind: StopKind::Unresolved,
            span,
        });
    }
    c.role = super::resource_role(r, &["tags"], &[]);
    c
}

/// Whether an alarm's actions stop or terminate an EC2 instance. `Some(Unresolved)` when
/// the actions cannot be read.
fn stop_action(alarm: &Resource<'_>) -> Option<StopKind> {
    let actions = alarm.block.value("alarm_actions");
    match actions {
        Value::Known(hcl::Value::Array(items), _) => items
            .iter()
            .any(|a| a.as_str().is_some_and(is_ec2_stop_arn))
            .then_some(StopKind::StopAlarm),
        Value::Absent | Value::Known(..) => None,
        Value::Unknown(_) => {
            // Often `"arn:aws:automate:${var.region}:ec2:stop"`: read the literal shape.
            let expr = alarm.block.expr("alarm_actions")?;
            let hcl_edit::expr::Expression::Array(items) = expr else {
                return Some(StopKind::Unresolved);
            };
            let mut unresolved = false;
            for item in items {
                match string_shape(item) {
                    Some(shape) if is_ec2_stop_arn(&shape) => return Some(StopKind::StopAlarm),
                    Some(_) => {}
                    None => unresolved = true,
                }
            }
            unresolved.then_some(StopKind::Unresolved)
        }
    }
}

/// The EC2 instances an expression refers to (an alarm's `dimensions`, a schedule's
/// `input`).
pub(crate) fn instances_in(
    expr: Option<&hcl_edit::expr::Expression>,
) -> Vec<gpulint_terraform::ResourceRef> {
    expr.map(references)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| {
            matches!(
                r.rtype.as_str(),
                "aws_instance" | "aws_spot_instance_request"
            )
        })
        .collect()
}

/// EventBridge Scheduler's universal target for EC2's StopInstances (or
/// TerminateInstances): `arn:aws:scheduler:::aws-sdk:ec2:stopInstances`, in any partition.
fn is_ec2_stop_api(arn: &str) -> bool {
    arn.strip_prefix("arn:")
        .and_then(|rest| rest.split_once(":scheduler:::aws-sdk:ec2:"))
        .is_some_and(|(_, api)| {
            api.eq_ignore_ascii_case("stopInstances")
                || api.eq_ignore_ascii_case("terminateInstances")
        })
}

/// `arn:aws:automate:REGION:ec2:stop` (or `:terminate`), in any partition. Interpolated
/// parts (see [`HOLE`]) may stand for the partition and region.
fn is_ec2_stop_arn(arn: &str) -> bool {
    let parts: Vec<&str> = arn.split(':').collect();
    let hole = HOLE.to_string();
    matches!(
        parts[..],
        ["arn", partition, "automate", _, "ec2", "stop" | "terminate"]
            if partition.starts_with("aws") || partition == hole
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_arns() {
        assert!(is_ec2_stop_arn("arn:aws:automate:us-east-1:ec2:stop"));
        assert!(is_ec2_stop_arn(
            "arn:aws-us-gov:automate:us-gov-west-1:ec2:terminate"
        ));
        assert!(is_ec2_stop_arn(&format!(
            "arn:{HOLE}:automate:{HOLE}:ec2:stop"
        )));
        assert!(!is_ec2_stop_arn("arn:aws:automate:us-east-1:ec2:reboot"));
        assert!(!is_ec2_stop_arn("arn:aws:automate:us-east-1:ec2:recover"));
        assert!(!is_ec2_stop_arn(
            "arn:aws:sns:us-east-1:123456789012:alerts"
        ));
    }
}
