//! AWS: `aws_instance`, and CloudWatch alarms that stop or terminate instances.

use super::terraform::{HOLE, Module, Resource, references, string_shape};
use super::{attach_stop, instance_machine};
use crate::model::{Capacity, CapacityKind, Inventory, Market, Provider, StopKind, Value};

pub fn lower(module: &Module<'_>, out: &mut Inventory) {
    let first = out.capacity.len();
    for r in module.resources_of("aws_instance") {
        out.capacity.push(instance(&r));
    }
    for alarm in module.resources_of("aws_cloudwatch_metric_alarm") {
        let Some(stop) = stop_action(&alarm) else {
            continue;
        };
        let targets: Vec<_> = alarm
            .block
            .expr("dimensions")
            .map(references)
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r.rtype == "aws_instance")
            .collect();
        attach_stop(&mut out.capacity[first..], &targets, stop, &alarm.header());
    }
}

fn instance(r: &Resource<'_>) -> Capacity {
    let b = &r.block;
    let market = match b.block("instance_market_options") {
        Value::Absent => Value::Absent,
        Value::Unknown(s) => Value::Unknown(s),
        Value::Known(opts, span) => match opts.str("market_type") {
            Value::Known(t, s) => Value::Known(
                if t == "spot" {
                    Market::Spot
                } else {
                    Market::OnDemand
                },
                s,
            ),
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => Value::Known(Market::OnDemand, span),
        },
    };
    Capacity {
        subject: r.subject(),
        provider: Provider::Aws,
        kind: CapacityKind::Instance,
        header: r.header(),
        machine: b
            .str("instance_type")
            .map(|t| instance_machine(Provider::Aws, &t)),
        market,
        stop: Vec::new(),
    }
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
