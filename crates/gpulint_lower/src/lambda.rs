//! AWS Lambda functions that stop EC2 instances on a schedule: the "stop instances at
//! regular intervals" pattern, an EventBridge schedule invoking a function that calls
//! `stop_instances` for the instance its environment names.
//!
//! The function's code is not read (it is packaged, often built elsewhere); what says it
//! stops machines is its name (`function_words` of `[self_stop]` in workloads.toml), and
//! what says which is an instance or auto scaling group its `environment` refers to. One
//! it runs on a schedule that is disabled, or that no schedule runs, stops nothing.

use gpulint_model::{Capacity, Value};
use gpulint_terraform::{Block, Module, Resource, references};

/// Adds a stop to each instance a scheduled stopping function names.
pub(crate) fn scheduled_stops(module: &Module<'_>, capacity: &mut [Capacity]) {
    let words = &gpulint_facts::workloads::workloads().self_stop;
    for function in module.resources_of("aws_lambda_function") {
        let named = |n: &str| words.function_stops(n);
        let stops = named(function.name)
            || function
                .block
                .str("function_name")
                .known()
                .is_some_and(|n| named(n));
        if !stops || !scheduled(module, &function) {
            continue;
        }
        let Value::Known(environment, _) = function.block.block("environment") else {
            continue;
        };
        // The instances it stops, or the groups it empties
        // (`ASG_NAME = aws_autoscaling_group.gpu.name`).
        super::schedules::attach(
            module,
            capacity,
            environment.expr("variables"),
            &[
                "aws_instance",
                "aws_spot_instance_request",
                "aws_autoscaling_group",
            ],
            &function.header(),
        );
    }
}

/// Whether an enabled schedule invokes `function`: an EventBridge Scheduler schedule whose
/// target is it, or an EventBridge rule with a `schedule_expression` one of whose targets
/// is it.
fn scheduled(module: &Module<'_>, function: &Resource<'_>) -> bool {
    let invokes = |b: &Block<'_>| {
        b.expr("arn").is_some_and(|e| {
            references(e)
                .iter()
                .any(|r| r.rtype == "aws_lambda_function" && r.name == function.name)
        })
    };
    let by_scheduler = module.resources_of("aws_scheduler_schedule").any(|s| {
        !super::schedules::disabled(&s.block)
            && matches!(s.block.block("target"), Value::Known(t, _) if invokes(&t))
    });
    if by_scheduler {
        return true;
    }
    module
        .resources_of("aws_cloudwatch_event_target")
        .filter(|t| invokes(&t.block))
        .any(|t| {
            let rules = t.block.expr("rule").map(references).unwrap_or_default();
            module
                .resources_of("aws_cloudwatch_event_rule")
                .any(|rule| {
                    rules
                        .iter()
                        .any(|r| r.rtype == "aws_cloudwatch_event_rule" && r.name == rule.name)
                        && !matches!(rule.block.str("schedule_expression"), Value::Absent)
                        && !super::schedules::disabled(&rule.block)
                        && !matches!(rule.block.bool("is_enabled"), Value::Known(false, _))
                })
        })
}
