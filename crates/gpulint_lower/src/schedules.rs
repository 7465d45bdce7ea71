//! Scheduled actions that scale an AWS auto scaling group to zero on a recurrence
//! (`aws_autoscaling_schedule` with `min_size = 0`, `desired_capacity = 0`): the "off at
//! night" pattern for groups. The group then holds no machine between that action and the
//! next one that scales it up, as a stopped VM holds none.

use gpulint_model::{Capacity, StopKind, Value};
use gpulint_terraform::{Module, references};

/// Adds a stop to each auto scaling group a recurring scheduled action empties.
pub(crate) fn group_stops(module: &Module<'_>, capacity: &mut [Capacity]) {
    for action in module.resources_of("aws_autoscaling_schedule") {
        let b = &action.block;
        // A one-off action (no recurrence) empties the group once.
        if b.str("recurrence") == Value::Absent {
            continue;
        }
        let empties = matches!(b.u64("min_size"), Value::Known(0, _))
            && !matches!(b.u64("desired_capacity"), Value::Known(n, _) if n != 0);
        if !empties {
            continue;
        }
        attach(
            module,
            capacity,
            b.expr("autoscaling_group_name"),
            &["aws_autoscaling_group"],
            &action.header(),
        );
    }
}

/// Whether a schedule is switched off (`state = "DISABLED"`): EventBridge rules and
/// EventBridge Scheduler schedules alike.
pub(crate) fn disabled(b: &gpulint_terraform::Block<'_>) -> bool {
    matches!(b.str("state"), Value::Known(s, _) if s == "DISABLED")
}

/// Adds a scheduled stop, written at `span`, to the capacity of the types in `types` that
/// `expr` refers to. One that refers to none here says nothing of any.
pub(crate) fn attach(
    module: &Module<'_>,
    capacity: &mut [Capacity],
    expr: Option<&hcl_edit::expr::Expression>,
    types: &[&str],
    span: &gpulint_model::Span,
) {
    let targets: Vec<_> = expr
        .map(references)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| types.contains(&r.rtype.as_str()))
        .collect();
    if !targets.is_empty() {
        super::attach_stop(module, capacity, &targets, StopKind::InstanceSchedule, span);
    }
}
