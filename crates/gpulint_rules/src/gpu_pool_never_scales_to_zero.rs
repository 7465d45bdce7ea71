//! `gpu-pool-never-scales-to-zero`: a GPU group or node pool whose minimum keeps GPUs
//! running when there is no work.

use super::{Report, Rule, RuleContext, RuleMeta, because, nodes};
use gpulint_diagnostics::{Category, Cost, Severity};
use gpulint_model::{
    Capacity, CapacityKind, Dialect, Held, HeldGpus, Inventory, Provider, Role, StopKind, Value,
};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Cost,
    summary: "a GPU node group, pool or ASG whose minimum keeps GPUs running when idle",
    options: &[],
};

pub struct GpuPoolNeverScalesToZero;

impl Rule for GpuPoolNeverScalesToZero {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        // Whether the run sets up something that scales every node group (read once).
        let scaled_anyway = std::cell::OnceCell::new();
        for (i, c) in model.capacity.iter().enumerate() {
            // A reservation or capacity block is paid for whether nodes run or not.
            if !matches!(c.kind, CapacityKind::Group | CapacityKind::NodePool)
                || c.reserved.is_some()
            {
                continue;
            }
            let Some(held) = c.held_gpus() else {
                continue;
            };
            // A group that may hold no machine at all runs none, whatever holds it up; one
            // a recurring schedule empties (a scheduled action, a scheduled function) is
            // off between its runs, as a stopped VM is.
            if matches!(c.scale.max, Value::Known(0, _))
                || c.stop.iter().any(|s| s.kind == StopKind::InstanceSchedule)
            {
                continue;
            }
            // An unknown minimum that is bounded (a per-zone minimum over zones gpulint
            // cannot count, `max(2, var.n)`) is judged at its bound.
            let (min, min_span, bounded) = match (&c.scale.min, &c.scale.min_at_least) {
                (Value::Known(n, s), _) => (n, s, false),
                (Value::Unknown(_), Some((n, s))) => (n, s, true),
                _ => {
                    if let Some(h) = &c.held {
                        report_held(model, c, &held, h, None, cx);
                    }
                    continue;
                }
            };
            // A service that keeps tasks on the group holds more machines than its minimum.
            if let Some(h) = c.held.as_ref().filter(|h| h.machines > *min) {
                report_held(model, c, &held, h, Some((*min, min_span)), cx);
                continue;
            }
            if *min == 0 {
                if let Some(floor) = model.serving_floor(i).filter(|f| f.nodes > 0) {
                    report_serving_held(model, i, c, &held, floor, cx);
                } else if let Value::Known(desired, at) = &c.scale.desired
                    && *desired > 0
                    && unscaled(model, c, &scaled_anyway)
                {
                    report_unscaled(model, c, &held, *desired, at, min_span, cx);
                }
                continue;
            }
            // Serving that lands only here keeps at least this many nodes busy anyway: the
            // floor is its own, a remark rather than a warning.
            let busy = model
                .serving_floor(i)
                .filter(|f| f.nodes >= *min)
                .map(|f| f.first);
            // Reservations it runs on without naming them bill for these nodes anyway.
            if let HeldGpus::Machines(machines, _) = &held
                && open_reserved(model, c, machines) >= *min
            {
                continue;
            }
            let serves = c.role.known() == Some(&Role::Inference);
            let fixed = !bounded && c.scale.max.known() == Some(min);
            // GKE writes bounds per zone: say so where the label sits on the written figure.
            let written = match c.scale.per_zone {
                Some(z) if z > 1 => format!("{} per zone × {z} zones", min / z),
                _ if bounded => format!("at least {}", nodes(*min)),
                _ => nodes(*min),
            };
            let least = if bounded { "at least " } else { "" };
            let zones = c.scale.per_zone.filter(|&z| z > 1);
            let (machine, secondary, cost) = machines(c, &held, *min, bounded, zones);
            cx.report_costed(
                Report {
                    message: format!(
                        "`{}` {} {least}{} of {}: {} when no {}{}{}",
                        c.subject,
                        if fixed {
                            "stays at"
                        } else if bounded {
                            "keeps running"
                        } else {
                            "never scales below"
                        },
                        nodes(*min),
                        machine,
                        if *min == 1 { "it bills" } else { "they bill" },
                        if serves { "request comes" } else { "job runs" },
                        busy.map_or_else(String::new, |w| format!(
                            ", unless that warm floor is meant: serving that can land only \
                             here (`{}`) keeps {} busy, and nothing scales it to zero either",
                            w.subject,
                            if *min == 1 { "it" } else { "them" },
                        )),
                        because(&c.role),
                    ),
                    help: match &c.scale.min_input {
                        Some(input) => input_help(c, input).into(),
                        None => help(c).into(),
                    },
                    subject: c.subject.clone(),
                    primary: (
                        min_span.clone(),
                        if fixed {
                            format!("fixed at {written}")
                        } else {
                            format!("minimum {written}")
                        },
                    ),
                    secondary: vec![secondary],
                },
                cost,
            );
            // The message names the serving workload; its whole document is no label.
            if let (Some(_), Some(f)) = (busy, cx.findings.last_mut()) {
                f.severity = Severity::Info;
            }
            if let (Some(input), Some(f)) = (&c.scale.min_input, cx.findings.last_mut()) {
                f.leaf = Some(gpulint_diagnostics::Leaf {
                    key: input.key.to_string(),
                    within: input.within.as_ref().map(ToString::to_string),
                    under: None,
                });
            }
        }
    }
}

/// What the pool's machines are, the label on where their type is written, and what `min`
/// of them cost while idle.
fn machines(
    c: &Capacity,
    held: &HeldGpus<'_>,
    min: u64,
    bounded: bool,
    zones: Option<u64>,
) -> (String, (gpulint_model::Span, String), Option<Cost>) {
    let (what, label) = super::held_machine(held);
    // A type gpulint does not know has no price: the cost stays unknown.
    let cost = match held {
        HeldGpus::Machines(machines, _) => floor_cost(c, machines, min, bounded, zones),
        HeldGpus::AtLeast(_) => None,
    };
    (what, label, cost)
}

/// Whether `c` is an EKS node group written in Terraform that nothing in the run scales:
/// EKS keeps a managed group at its desired size, and only the Cluster Autoscaler moves it.
/// Karpenter does not: it launches nodes of its own and never resizes a managed group. An
/// eksctl file describes node groups only (add-ons are installed apart), so it is not
/// judged so.
fn unscaled(model: &Inventory, c: &Capacity, scaled_anyway: &std::cell::OnceCell<bool>) -> bool {
    c.provider == Provider::Aws
        && c.kind == CapacityKind::NodePool
        && c.written_in == Dialect::Terraform
        && !model
            .group_autoscalers
            .iter()
            .any(|p| p.provider == c.provider)
        && !*scaled_anyway.get_or_init(|| {
            let words = &gpulint_facts::catalog().kubernetes.group_autoscalers.images;
            model.workloads.iter().any(|w| {
                w.pods.iter().flat_map(|p| &p.containers).any(|k| {
                    k.image
                        .as_deref()
                        .is_some_and(|i| words.iter().any(|x| i.contains(x.as_str())))
                })
            })
        })
}

/// Whether the run sets up Karpenter for `c`'s cloud: its chart or module, or a NodePool.
fn karpenter_here(model: &Inventory, c: &Capacity) -> bool {
    model
        .autoprovisioners
        .iter()
        .any(|p| p.provider == c.provider)
        || model
            .capacity
            .iter()
            .any(|o| o.written_in == Dialect::Karpenter)
}

/// A node group whose minimum is 0, which nothing scales down to it: a remark at its
/// desired size, which it keeps.
fn report_unscaled(
    model: &Inventory,
    c: &Capacity,
    held: &HeldGpus<'_>,
    desired: u64,
    at: &gpulint_model::Span,
    min_span: &gpulint_model::Span,
    cx: &mut RuleContext<'_>,
) {
    let (machine, label, cost) = machines(c, held, desired, false, None);
    cx.report_costed(
        Report {
            message: format!(
                "`{}` has a minimum of 0, but nothing in the run scales it ({}), so it stays \
                 at its desired {} of {machine}: {} when no {}{}",
                c.subject,
                if karpenter_here(model, c) {
                    "no Cluster Autoscaler is installed here, and Karpenter launches nodes of \
                     its own: it never resizes a managed group"
                } else {
                    "no Cluster Autoscaler is installed here"
                },
                nodes(desired),
                if desired == 1 {
                    "it bills"
                } else {
                    "they bill"
                },
                if c.role.known() == Some(&Role::Inference) {
                    "request comes"
                } else {
                    "job runs"
                },
                because(&c.role),
            ),
            help: "install the Cluster Autoscaler so the group follows its pods down to 0, \
                   let Karpenter provision these GPU nodes instead of a managed group, or set \
                   its desired size to 0 and raise it when work comes; if an autoscaler is \
                   installed outside this repository, say so in a suppression"
                .into(),
            subject: c.subject.clone(),
            primary: (at.clone(), format!("stays at {}", nodes(desired))),
            secondary: vec![label, (min_span.clone(), "minimum 0".into())],
        },
        cost,
    );
    if let Some(f) = cx.findings.last_mut() {
        f.severity = Severity::Info;
    }
}

/// A pool whose minimum would let it scale to zero, held up by serving that lands only on
/// it and that nothing takes to zero: a remark, at the count that keeps it.
fn report_serving_held(
    model: &Inventory,
    i: usize,
    c: &Capacity,
    held: &HeldGpus<'_>,
    floor: gpulint_model::ServingFloor<'_>,
    cx: &mut RuleContext<'_>,
) {
    let (busy, w) = (floor.nodes, floor.first);
    if let HeldGpus::Machines(machines, _) = held
        && open_reserved(model, c, machines) >= busy
    {
        return;
    }
    let Some((fewest, Some(at))) = w
        .pods
        .iter()
        .filter(|p| p.landing == [i])
        .map(|p| w.fewest(p))
        .find(|(n, _)| *n > 0)
    else {
        return;
    };
    let (machine, label, cost) = machines(c, held, busy, true, None);
    let why = match &w.scaled_by {
        Some(s) => format!("`{}` keeps at least {fewest}", s.subject),
        None => format!("{fewest} as written, and no autoscaler in the run moves it"),
    };
    // The other serving workloads whose floors add to it.
    let others = floor.workloads.saturating_sub(1);
    let why = match others {
        0 => why,
        1 => format!("{why}; with 1 other serving workload"),
        n => format!("{why}; with {n} other serving workloads"),
    };
    cx.report_costed(
        Report {
            message: format!(
                "`{}` can scale to zero, but `{}` always runs replicas that can land only \
                 there ({why}), so at least {} of {machine} {} when no request comes, unless \
                 that warm floor is meant{}",
                c.subject,
                w.subject,
                nodes(busy),
                if busy == 1 { "bills" } else { "bill" },
                because(&w.role),
            ),
            help: "let the serving scale to zero when idle (a KEDA ScaledObject with \
                   `minReplicaCount: 0`, or a schedule that scales it down out of hours); \
                   the pool's autoscaler then removes the idle GPU nodes"
                .into(),
            subject: c.subject.clone(),
            primary: (at, format!("at least {fewest} always")),
            secondary: vec![label],
        },
        cost,
    );
    if let Some(f) = cx.findings.last_mut() {
        f.severity = Severity::Info;
    }
}

/// A group whose minimum would let it scale to zero, held up by a service's tasks.
fn report_held(
    model: &Inventory,
    c: &Capacity,
    held: &HeldGpus<'_>,
    h: &Held,
    written: Option<(u64, &gpulint_model::Span)>,
    cx: &mut RuleContext<'_>,
) {
    if let HeldGpus::Machines(machines, _) = held
        && open_reserved(model, c, machines) >= h.machines
    {
        return;
    }
    let (machine, label, cost) = machines(c, held, h.machines, true, None);
    let tasks = if h.tasks == 1 {
        "1 task".to_string()
    } else {
        format!("{} tasks", h.tasks)
    };
    let mut secondary = vec![label];
    if let Some((min, span)) = written {
        secondary.push((span.clone(), format!("minimum {min}")));
    }
    cx.report_costed(
        Report {
            message: format!(
                "`{}` keeps at least {} of {machine} running: `{}` always runs {tasks} on it \
                 ({}), so {} when no {} comes{}",
                c.subject,
                nodes(h.machines),
                h.by,
                h.why,
                if h.machines == 1 {
                    "it bills"
                } else {
                    "they bill"
                },
                if c.role.known() == Some(&Role::Inference) {
                    "request"
                } else {
                    "work"
                },
                because(&c.role),
            ),
            help: format!(
                "let `{}` scale to zero: an `aws_appautoscaling_target` for it \
                 (`scalable_dimension = \"ecs:service:DesiredCount\"`) with `min_capacity = 0` \
                 and a scaling policy on its queue or requests, or a scheduled action that sets \
                 it to 0 out of hours; with the capacity provider's managed scaling enabled, ECS \
                 then removes the idle GPU instances",
                h.by
            )
            .into(),
            subject: c.subject.clone(),
            primary: (h.span.clone(), format!("{tasks} kept running")),
            secondary,
        },
        cost,
    );
}

/// Machines of the pool's types that open reservations of the run hold in its region:
/// its nodes land on them without naming them, so they bill whether the pool scales or not.
fn open_reserved(model: &Inventory, c: &Capacity, machines: &[&gpulint_model::Machine]) -> u64 {
    let Some(region) = c.region() else {
        return 0;
    };
    model
        .capacity
        .iter()
        .filter(|r| {
            r.kind == CapacityKind::Reservation
                && r.open_to_matching
                && r.provider == c.provider
                && r.region() == Some(region)
                && r.machines
                    .known()
                    .is_some_and(|ms| ms.iter().any(|m| machines.iter().any(|p| p.name == m.name)))
        })
        .filter_map(|r| r.scale.min.known().copied())
        .sum()
}

/// The help for a minimum a module takes in its input: the key the user writes there.
fn input_help(c: &Capacity, input: &gpulint_model::InputKey) -> String {
    let entry = match &input.within {
        Some(w) => format!("the `{w}` entry of `{}`", input.input),
        None => format!("`{}`", input.input),
    };
    let scaler = match c.provider {
        Provider::Gcp => "GKE adds GPU nodes when GPU pods are pending",
        Provider::Azure => {
            "with autoscaling enabled in that entry, the cluster autoscaler adds GPU nodes when \
             GPU pods are pending (a system pool cannot scale to zero: keep GPUs out of it)"
        }
        _ => "the cluster autoscaler or Karpenter adds GPU nodes when GPU pods are pending",
    };
    format!(
        "set `{} = 0` in {entry} (the module's input, which it passes on as the pool's minimum); \
         {scaler}",
        input.key
    )
}

/// What the minimum costs while no work runs: `min` nodes at list price. A bounded
/// minimum, or a pool that may start any of several types (priced at the cheapest), costs
/// at least that; a type the snapshot has no price for leaves the cost unknown.
fn floor_cost(
    c: &Capacity,
    machines: &[&gpulint_model::Machine],
    min: u64,
    bounded: bool,
    zones: Option<u64>,
) -> Option<Cost> {
    // The snapshot holds on-demand list prices: spot capacity is not priced.
    if c.is_spot() {
        return None;
    }
    let prices = &gpulint_facts::catalog().prices;
    let priced: Option<Vec<_>> = machines
        .iter()
        .map(|m| prices.quote(c.provider, m))
        .collect();
    let cheapest = priced?
        .into_iter()
        .min_by(|a, b| a.usd_per_hour.total_cmp(&b.usd_per_hour))?;
    let at_least = bounded || machines.len() > 1;
    let what = format!(
        "{}{}{} of {}{}",
        if at_least { "at least " } else { "" },
        nodes(min),
        zones.map_or_else(String::new, |z| format!(
            " ({} per zone × {z} zones)",
            min / z
        )),
        cheapest.name,
        if machines.len() > 1 {
            " (the cheapest type the pool may start)"
        } else {
            ""
        }
    );
    // Node counts are small: u64 to f64 is exact here.
    #[allow(clippy::cast_precision_loss)]
    Some(Cost::of(&cheapest, c.region(), min as f64, &what))
}

fn help(c: &Capacity) -> &'static str {
    if c.written_in == Dialect::Eksctl {
        return "set `minSize: 0` on the node group and let the cluster autoscaler or Karpenter add \
                GPU nodes when GPU pods are pending";
    }
    match (c.provider, c.kind) {
        (Provider::Aws, CapacityKind::NodePool) => {
            "set `scaling_config { min_size = 0 }` and let the cluster autoscaler or Karpenter \
             add GPU nodes when GPU pods are pending"
        }
        (Provider::Aws, _) => {
            "set `min_size = 0` and scale up on demand (the cluster autoscaler, Karpenter, or a \
             scheduled action for batch windows)"
        }
        (Provider::Gcp, CapacityKind::Group) => {
            "attach an autoscaler (`google_compute_autoscaler`) with `autoscaling_policy { \
             min_replicas = 0 }`, or set `target_size = 0` while no job runs"
        }
        (Provider::Gcp, _) => {
            "enable `autoscaling` with `min_node_count = 0` (or `total_min_node_count = 0`); GKE \
             adds GPU nodes when GPU pods are pending"
        }
        (Provider::Azure, CapacityKind::NodePool) => {
            "set `auto_scaling_enabled = true` with `min_count = 0` on a user node pool (a system \
             pool cannot scale to zero: keep GPUs out of it)"
        }
        (Provider::Azure, _) => {
            "attach autoscale settings that scale the set to 0 instances when idle"
        }
        (Provider::Kubernetes, _) => "let the pool scale to zero",
    }
}
