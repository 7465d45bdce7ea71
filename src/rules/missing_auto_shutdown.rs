//! `missing-auto-shutdown`: a GPU VM with nothing that stops it when idle or on a schedule.

use super::{Report, Rule, RuleContext, RuleMeta};
use crate::finding::{Category, Severity};
use crate::model::{Capacity, CapacityKind, GpuSet, Inventory, Machine, Provider, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Cost,
    summary: "a GPU VM with no idle or scheduled stop",
};

pub struct MissingAutoShutdown;

impl Rule for MissingAutoShutdown {
    fn check(&self, model: &Inventory, cx: &mut RuleContext) {
        for c in &model.capacity {
            if c.kind != CapacityKind::Instance || !c.stop.is_empty() {
                continue;
            }
            let Value::Known(machine, machine_span) = &c.machine else {
                continue;
            };
            let Some(gpus) = &machine.gpus else {
                continue;
            };
            cx.report(Report {
                message: message(c, machine, gpus),
                help: help(c.provider).into(),
                subject: c.subject.clone(),
                primary: (c.header.clone(), "GPU VM with no auto-shutdown".into()),
                secondary: vec![(machine_span.clone(), gpu_label(gpus))],
            });
        }
    }
}

fn gpu_label(gpus: &GpuSet) -> String {
    format!("{} × {}", gpus.count, gpus.gpu.name)
}

fn message(c: &Capacity, machine: &Machine, gpus: &GpuSet) -> String {
    format!(
        "`{}` runs {} ({}) with no idle or scheduled stop",
        c.subject,
        gpu_label(gpus),
        machine.name
    )
}

fn help(provider: Provider) -> &'static str {
    match provider {
        Provider::Aws => {
            "add an `aws_cloudwatch_metric_alarm` whose `dimensions` name this instance and \
             whose `alarm_actions` include `arn:aws:automate:<region>:ec2:stop`; \
             `instance_initiated_shutdown_behavior` alone only decides what a shutdown does"
        }
        Provider::Gcp => {
            "set `scheduling { max_run_duration { seconds = ... } }`, or attach a \
             `google_compute_resource_policy` with an `instance_schedule_policy` and a \
             `vm_stop_schedule` through `resource_policies`"
        }
        Provider::Azure => {
            "add an `azurerm_dev_test_global_vm_shutdown_schedule` with `virtual_machine_id` set \
             to this VM's id"
        }
        Provider::Kubernetes => "scale the workload to zero when it is idle",
    }
}
