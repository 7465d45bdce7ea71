//! `missing-auto-shutdown`: a GPU VM, VM template or notebook with nothing that stops it
//! when idle or on a schedule.

use super::{Report, Rule, RuleContext, RuleMeta};
use gpulint_diagnostics::{Category, Cost, Severity};
use gpulint_model::{Capacity, CapacityKind, GpuSet, HeldGpus, Inventory, Provider, gpus};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Cost,
    summary: "a GPU VM with no idle or scheduled stop",
    options: &[],
};

pub struct MissingAutoShutdown;

impl Rule for MissingAutoShutdown {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for c in &model.capacity {
            let applies = matches!(
                c.kind,
                CapacityKind::Instance | CapacityKind::Template | CapacityKind::Notebook
            );
            // Capacity paid for anyway (a capacity block, a targeted reservation) gains
            // nothing from stopping.
            if !applies || !c.stop.is_empty() || c.reserved.is_some() {
                continue;
            }
            let (runs, secondary, cost) = match c.held_gpus() {
                None => continue,
                Some(HeldGpus::Machines(machines, span)) => {
                    let machine = machines[0];
                    let gpus = machine.gpus.as_ref().expect("GPU machines have GPUs");
                    // What it costs while it stays up: one VM (a template's every VM, each).
                    let what = match c.kind {
                        CapacityKind::Template => "each VM",
                        _ => "1 instance",
                    };
                    // The snapshot holds on-demand list prices: spot capacity is not priced.
                    let cost = gpulint_facts::catalog()
                        .prices
                        .quote(c.provider, machine)
                        .filter(|_| !c.is_spot())
                        .map(|p| Cost::of(&p, c.region(), 1.0, what));
                    (
                        format!("{} ({})", gpu_label(gpus), machine.name),
                        (span.clone(), gpu_label(gpus)),
                        cost,
                    )
                }
                // A type gpulint does not know has no price: the cost stays unknown.
                Some(HeldGpus::AtLeast(floor)) => (
                    format!(
                        "at least {} of a type gpulint does not know ({})",
                        gpus(floor.count),
                        floor.evidence
                    ),
                    (
                        floor.span.clone(),
                        format!("at least {}", gpus(floor.count)),
                    ),
                    None,
                ),
            };
            cx.report_costed(
                Report {
                    message: message(c, &runs),
                    help: help(c).into(),
                    subject: c.subject.clone(),
                    primary: (c.header.clone(), "GPU VM with no auto-shutdown".into()),
                    secondary: vec![secondary],
                },
                cost,
            );
        }
    }
}

fn gpu_label(gpus: &GpuSet) -> String {
    format!("{} × {}", gpus.count, gpus.gpu.name)
}

/// `runs`: what it runs, `1 × NVIDIA L4 (g2-standard-8)`.
fn message(c: &Capacity, runs: &str) -> String {
    let what = match c.kind {
        CapacityKind::Template => "every VM from",
        _ => "",
    };
    format!(
        "{what}{}`{}` runs {runs} with no idle or scheduled stop: it bills by the hour \
         whether it computes or not",
        if what.is_empty() { "" } else { " " },
        c.subject,
    )
}

fn help(c: &Capacity) -> &'static str {
    match (c.provider, c.kind) {
        (Provider::Aws, CapacityKind::Notebook) => {
            "attach a lifecycle configuration (`lifecycle_config_name`) whose `on_start` \
             script stops the notebook when idle, such as the AWS sample auto-stop-idle"
        }
        (Provider::Aws, _) => {
            "add an `aws_cloudwatch_metric_alarm` whose `dimensions` name this instance and \
             whose `alarm_actions` include `arn:aws:automate:<region>:ec2:stop`; \
             `instance_initiated_shutdown_behavior` alone only decides what a shutdown does"
        }
        (Provider::Gcp, _) => {
            "set `scheduling { max_run_duration { seconds = ... } }`, or attach a \
             `google_compute_resource_policy` with an `instance_schedule_policy` and a \
             `vm_stop_schedule` through `resource_policies`"
        }
        (Provider::Azure, _) => {
            "add an `azurerm_dev_test_global_vm_shutdown_schedule` with `virtual_machine_id` set \
             to this VM's id"
        }
        (Provider::Kubernetes, _) => "scale the workload to zero when it is idle",
    }
}
