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

/// What one VM that would be reported runs: the words, the labelled span and its cost.
/// Two are alike when they say the same.
struct Runs {
    text: String,
    secondary: (gpulint_model::Span, String),
    quote: Option<(gpulint_facts::prices::Quote, Option<String>)>,
}

impl PartialEq for Runs {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Rule for MissingAutoShutdown {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        // The instances of one `count` block that run the same thing are one finding.
        let reported = model.capacity.iter().filter(|c| {
            let applies = matches!(
                c.kind,
                CapacityKind::Instance | CapacityKind::Template | CapacityKind::Notebook
            );
            // Capacity paid for anyway (a capacity block, a targeted reservation) gains
            // nothing from stopping.
            applies && c.stop.is_empty() && c.reserved.is_none()
        });
        let groups = super::fleet::group(reported.filter_map(|c| Some((c, runs(c)?))));
        for (members, runs) in groups {
            report(model, &members, runs, cx);
        }
    }
}

/// What `c` runs, when it holds GPUs.
fn runs(c: &Capacity) -> Option<Runs> {
    Some(match c.held_gpus()? {
        HeldGpus::Machines(machines, span) => {
            let machine = machines[0];
            let gpus = machine.gpus.as_ref().expect("GPU machines have GPUs");
            // The snapshot holds on-demand list prices: spot capacity is not priced.
            let quote = gpulint_facts::catalog()
                .prices
                .quote(c.provider, machine)
                .filter(|_| !c.is_spot())
                .map(|p| (p, c.region().map(str::to_string)));
            Runs {
                text: format!("{} ({})", gpu_label(gpus), machine.name),
                secondary: (span.clone(), gpu_label(gpus)),
                quote,
            }
        }
        // A type gpulint does not know has no price: the cost stays unknown.
        HeldGpus::AtLeast(floor) => Runs {
            text: format!(
                "at least {} of a type gpulint does not know ({})",
                gpus(floor.count),
                floor.evidence
            ),
            secondary: (
                floor.span.clone(),
                format!("at least {}", gpus(floor.count)),
            ),
            quote: None,
        },
    })
}

/// One finding for `members`: a VM, or the instances of one `count` block.
fn report(model: &Inventory, members: &[&Capacity], runs: Runs, cx: &mut RuleContext<'_>) {
    let c = members[0];
    let n = members.len();
    // What it costs while it stays up: one VM (a template's every VM, each), or all of
    // the block's instances.
    let what = match (c.kind, n) {
        (CapacityKind::Template, _) => "each VM".to_string(),
        (_, 1) => "1 instance".to_string(),
        _ => format!("{n} instances"),
    };
    // Instances are bounded by the instance limit: a u32 holds them.
    let units = f64::from(u32::try_from(n).unwrap_or(u32::MAX));
    let cost = runs
        .quote
        .as_ref()
        .map(|(p, region)| Cost::of(p, region.as_deref(), units, &what));
    let mut secondary = vec![runs.secondary];
    let (subject, message) = match super::fleet::instances(model, members) {
        None => (c.subject.clone(), message(c, &runs.text)),
        Some((block, which, label)) => {
            secondary.push(label);
            let message = format!(
                "{which} each run {} with no idle or scheduled stop: they bill \
                 by the hour whether they compute or not",
                runs.text
            );
            (block, message)
        }
    };
    cx.report_costed(
        Report {
            message,
            help: help(c).into(),
            subject,
            primary: (c.header.clone(), "GPU VM with no auto-shutdown".into()),
            secondary,
        },
        cost,
    );
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
