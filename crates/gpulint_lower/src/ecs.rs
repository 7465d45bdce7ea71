//! AWS ECS: services whose tasks hold up the instances of an auto scaling group.
//!
//! A group behind an ECS capacity provider scales with the tasks placed on it (managed
//! scaling), so its `min_size = 0` reads as "scales to zero". It does not while a service
//! keeps tasks there: `desired_count` stays what is written unless Application Auto
//! Scaling moves it, and only down to that target's `min_capacity`. This reader finds the
//! tasks each service always runs on each group and records them as [`Held`].

use gpulint_model::{Capacity, Held, Span, Value};
use gpulint_terraform::{Block, HOLE, Module, Resource, references, string_shape};

/// The Application Auto Scaling namespace of ECS services.
const ECS_NAMESPACE: &str = "ecs";

/// Marks the groups in `capacity` that a service of `module` keeps running.
pub fn hold(module: &Module<'_>, capacity: &mut [Capacity]) {
    // Read once: a block may make many services, and each looks through these.
    let providers: Vec<Resource<'_>> = module.resources_of("aws_ecs_capacity_provider").collect();
    if providers.is_empty() {
        return;
    }
    let targets: Vec<Resource<'_>> = module
        .resources_of("aws_appautoscaling_target")
        .filter(|t| is_ecs(&t.block))
        .collect();
    let schedules: Vec<Resource<'_>> = module
        .resources_of("aws_appautoscaling_scheduled_action")
        .filter(|t| is_ecs(&t.block))
        .collect();
    let defaults: Vec<Resource<'_>> = module
        .resources_of("aws_ecs_cluster_capacity_providers")
        .collect();
    // Each provider's group, by the provider's resource name.
    let groups: Vec<(&str, String)> = providers
        .iter()
        .filter_map(|p| Some((p.name, backing_group(module, p)?)))
        .collect();
    for service in module.resources_of("aws_ecs_service") {
        let Some((tasks, span, why)) = always_running(module, &service, &targets, &schedules)
        else {
            continue;
        };
        for (provider, on) in placed_on(module, &service.block, tasks, &providers, &defaults) {
            let Some((_, group)) = groups.iter().find(|(name, _)| *name == provider) else {
                continue;
            };
            for c in capacity.iter_mut().filter(|c| c.subject == *group) {
                // Tasks share an instance when they fit: at least one is held.
                let held = Held {
                    by: service.subject(),
                    tasks: on,
                    machines: 1,
                    span: span.clone(),
                    why: why.clone(),
                };
                if c.held.as_ref().is_none_or(|h| h.tasks < held.tasks) {
                    c.held = Some(held);
                }
            }
        }
    }
}

/// Whether an autoscaling target or action is about ECS.
fn is_ecs(b: &Block<'_>) -> bool {
    b.str("service_namespace").known().map(String::as_str) == Some(ECS_NAMESPACE)
}

/// Tasks `service` never goes below, where that is written and why: `None` when it may
/// reach zero, or gpulint cannot tell (an unknown count, a schedule, a target it cannot
/// tie to a service).
fn always_running(
    module: &Module<'_>,
    service: &Resource<'_>,
    targets: &[Resource<'_>],
    schedules: &[Resource<'_>],
) -> Option<(u64, Span, String)> {
    let b = &service.block;
    // A daemon runs one task on every instance that is there anyway: it adds none.
    if b.str("scheduling_strategy").known().map(String::as_str) == Some("DAEMON") {
        return None;
    }
    let about = |r: &Resource<'_>| names_service(module, &r.block, service);
    if schedules.iter().any(|s| about(s) != Some(false)) {
        return None;
    }
    let mut mine = targets.iter().filter(|t| about(t) != Some(false));
    if let Some(target) = mine.next() {
        // A target gpulint cannot tie to one service may be this one's.
        if about(target) != Some(true) || mine.next().is_some() {
            return None;
        }
        let Value::Known(min, span) = target.block.u64("min_capacity") else {
            return None;
        };
        return (min > 0).then(|| {
            (
                min,
                span,
                format!(
                    "`min_capacity = {min}` of `{}`, the service's autoscaling target",
                    target.subject()
                ),
            )
        });
    }
    // `desired_count` defaults to 0.
    let Value::Known(n, span) = b.u64("desired_count") else {
        return None;
    };
    (n > 0).then(|| {
        (
            n,
            span,
            format!("`desired_count = {n}`, and no service autoscaling"),
        )
    })
}

/// Whether an autoscaling target's `resource_id` (`service/CLUSTER/SERVICE`) names
/// `service`: by reference, or by the service's literal name. `None` when it cannot tell.
fn names_service(module: &Module<'_>, target: &Block<'_>, service: &Resource<'_>) -> Option<bool> {
    let expr = target.expr("resource_id")?;
    let refs = references(expr);
    // A scheduled action often takes its target's `resource_id`.
    if let Some(t) = refs.iter().find(|r| r.rtype == "aws_appautoscaling_target") {
        let t = module.resource(&t.rtype, &t.name)?;
        return names_service(module, &t.block, service);
    }
    if refs.iter().any(|r| r.rtype == "aws_ecs_service") {
        return Some(
            refs.iter()
                .any(|r| r.rtype == "aws_ecs_service" && r.name == service.name),
        );
    }
    let shape = string_shape(expr)?;
    let last = shape.rsplit('/').next()?;
    if last.contains(HOLE) {
        return None;
    }
    let name = service.block.str("name");
    Some(name.known().is_some_and(|n| n == last))
}

/// The capacity providers (as their resource name) `service` places tasks on, with the
/// tasks each surely gets out of `tasks`: its own strategy, else its cluster's default.
fn placed_on(
    module: &Module<'_>,
    service: &Block<'_>,
    tasks: u64,
    providers: &[Resource<'_>],
    defaults: &[Resource<'_>],
) -> Vec<(String, u64)> {
    let strategy = match service.blocks("capacity_provider_strategy") {
        Value::Known(items, _) => items,
        Value::Unknown(_) => return Vec::new(),
        // A launch type places tasks on whatever instances the cluster has: on EC2, those
        // of its one capacity provider when it has one.
        Value::Absent if service.str("launch_type") != Value::Absent => {
            if service.str("launch_type").known().map(String::as_str) != Some("EC2") {
                return Vec::new();
            }
            return match cluster_providers(module, service, providers, defaults).as_slice() {
                [one] => vec![(one.clone(), tasks)],
                _ => Vec::new(),
            };
        }
        Value::Absent => cluster_default(module, service, defaults),
    };
    let single = strategy.len() == 1;
    strategy
        .iter()
        .filter_map(|item| {
            let provider = provider_named(providers, item.expr("capacity_provider")?)?;
            // The provider with a `base` runs that many first; the rest are shared by
            // weight, so only a lone provider surely runs them all.
            let on = if single {
                tasks
            } else {
                item.u64("base").known().map_or(0, |b| (*b).min(tasks))
            };
            (on > 0).then_some((provider, on))
        })
        .collect()
}

/// Where the capacity providers of the cluster `service` runs in are written: its
/// `aws_ecs_cluster_capacity_providers`, else (provider versions before 4.0) the cluster.
fn cluster_settings<'a>(
    module: &'a Module<'a>,
    service: &Block<'a>,
    defaults: &[Resource<'a>],
) -> Option<Block<'a>> {
    let cluster = service
        .expr("cluster")
        .map(references)
        .and_then(|r| r.into_iter().find(|r| r.rtype == "aws_ecs_cluster"))?;
    let of_cluster = |b: &Block<'_>| {
        b.expr("cluster_name")
            .map(references)
            .is_some_and(|r| r.iter().any(|r| r.name == cluster.name))
    };
    defaults
        .iter()
        .find(|r| of_cluster(&r.block))
        .map(|r| r.block.clone())
        .or_else(|| {
            module
                .resource("aws_ecs_cluster", &cluster.name)
                .map(|r| r.block)
        })
}

/// The default strategy of the cluster `service` runs in.
fn cluster_default<'a>(
    module: &'a Module<'a>,
    service: &Block<'a>,
    defaults: &[Resource<'a>],
) -> Vec<Block<'a>> {
    cluster_settings(module, service, defaults)
        .and_then(|b| {
            b.blocks("default_capacity_provider_strategy")
                .known()
                .cloned()
        })
        .unwrap_or_default()
}

/// The EC2 capacity providers (by resource name) the cluster `service` runs in lists,
/// when every one it lists is known; empty when it lists none or one is not known.
fn cluster_providers(
    module: &Module<'_>,
    service: &Block<'_>,
    providers: &[Resource<'_>],
    defaults: &[Resource<'_>],
) -> Vec<String> {
    let Some(settings) = cluster_settings(module, service, defaults) else {
        return Vec::new();
    };
    let Some(hcl_edit::expr::Expression::Array(items)) = settings.expr("capacity_providers") else {
        return Vec::new();
    };
    let mut named = Vec::new();
    for item in items {
        // Fargate runs no task on the cluster's instances.
        if string_shape(item).is_some_and(|s| s.starts_with("FARGATE")) {
            continue;
        }
        match provider_named(providers, item) {
            Some(p) => named.push(p),
            None => return Vec::new(),
        }
    }
    named
}

/// The `aws_ecs_capacity_provider` an expression names: by reference, or by its `name`.
fn provider_named(providers: &[Resource<'_>], expr: &hcl_edit::expr::Expression) -> Option<String> {
    if let Some(r) = references(expr)
        .into_iter()
        .find(|r| r.rtype == "aws_ecs_capacity_provider")
    {
        return Some(r.name);
    }
    let name = string_shape(expr).filter(|s| !s.contains(HOLE))?;
    providers
        .iter()
        .find(|p| p.block.str("name").known() == Some(&name))
        .map(|p| p.name.to_string())
}

/// The subject of the auto scaling group behind a capacity provider, when it is one
/// resource of this module.
fn backing_group(module: &Module<'_>, p: &Resource<'_>) -> Option<String> {
    let spec = p.block.block("auto_scaling_group_provider");
    let arn = spec.known()?.expr("auto_scaling_group_arn")?;
    let group = references(arn)
        .into_iter()
        .find(|r| r.rtype == "aws_autoscaling_group")?;
    match module.subjects_of(&group.rtype, &group.name).as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}
