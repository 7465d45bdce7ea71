//! `spot-only-inference`: an inference pool whose only capacity is spot or preemptible.

use super::{Report, Rule, RuleContext, RuleMeta, because, held_machine, pod_spot_only};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{Capacity, Dialect, HeldGpus, Inventory, Market, Provider, Role, Span, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Reliability,
    summary: "an inference workload whose only capacity is spot/preemptible",
    options: &[],
};

pub struct SpotOnlyInference;

fn serves(c: &Capacity) -> bool {
    c.role.known() == Some(&Role::Inference) && c.held_gpus().is_some()
}

/// What its machines are, with the label for the line that says so.
fn machine(c: &Capacity) -> Option<(String, (Span, String))> {
    let held = c.held_gpus()?;
    let (what, label) = held_machine(&held);
    Some(match held {
        HeldGpus::Machines(..) => (what, label),
        HeldGpus::AtLeast(_) => (format!("machines of {what}"), label),
    })
}

impl Rule for SpotOnlyInference {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        // Pools that serve only from spot, with no on-demand sibling.
        let mut reported = vec![false; model.capacity.len()];
        let mut spot_only = Vec::new();
        for (i, c) in model.capacity.iter().enumerate().filter(|(_, c)| serves(c)) {
            let Value::Known(Market::Spot, market_span) = &c.market else {
                continue;
            };
            // A sibling that serves from on-demand or reserved capacity keeps the endpoint
            // up when spot is reclaimed. An unknown market might be one: stay silent.
            let sibling = model.capacity.iter().any(|o| {
                o.provider == c.provider
                    && serves(o)
                    && !matches!(o.market, Value::Known(Market::Spot, _))
            });
            // A node autoprovisioner (Karpenter) whose own pools the run does not hold may
            // add on-demand capacity beside it: not known, so not said.
            let provisioned = model
                .autoprovisioners
                .iter()
                .any(|p| p.provider == c.provider)
                && !model
                    .capacity
                    .iter()
                    .any(|o| o.written_in == Dialect::Karpenter);
            if sibling || provisioned {
                continue;
            }
            reported[i] = true;
            let (machine, label) = machine(c).expect("serves() checked it");
            let key = (market_span.clone(), machine, label);
            spot_only.push((c, key));
        }
        // The instances of one `count` block that serve alike are one finding.
        for (members, (market_span, machine, label)) in super::fleet::group(spot_only) {
            let c = members[0];
            let mut secondary = vec![label];
            let (subject, what) = match super::fleet::instances(model, &members) {
                None => (c.subject.clone(), format!("`{}` serves", c.subject)),
                Some((block, which, count)) => {
                    secondary.push(count);
                    let what = format!("{which} serve");
                    (block, what)
                }
            };
            cx.report(Report {
                message: format!(
                    "{what} inference only from spot {machine}: one reclaim can take every \
                     replica down at once"
                ) + &because(&c.role),
                help: help(c).into(),
                subject,
                primary: (market_span, "spot only".into()),
                secondary,
            });
        }
        // Kubernetes: inference pods that select spot, or land only on spot pools. A pod
        // whose pools are all reported above is that same trap: the pool is what to change.
        for w in model
            .workloads
            .iter()
            .filter(|w| w.role.known() == Some(&Role::Inference))
        {
            let Some(pod) = w
                .pods
                .iter()
                .find(|p| matches!(&p.gpus, Value::Known(g, _) if g.count > 0))
            else {
                continue;
            };
            let Some(span) = pod_spot_only(model, pod) else {
                continue;
            };
            let selects_spot = matches!(pod.selection.market, Some((Market::Spot, _)));
            if !selects_spot && pod.landing.iter().all(|&i| reported[i]) {
                continue;
            }
            cx.report(Report {
                message: format!(
                    "`{}` serves inference only from spot GPU nodes: one reclaim can take every \
                     replica down at once",
                    w.subject
                ) + &because(&w.role),
                help: "let the pods also run on on-demand nodes (a node affinity that prefers \
                       spot instead of requiring it, or a second Deployment on an on-demand pool)"
                    .into(),
                subject: w.subject.clone(),
                primary: (span, "spot only".into()),
                secondary: Vec::new(),
            });
        }
    }
}

fn help(c: &Capacity) -> &'static str {
    match c.written_in {
        Dialect::Eksctl => {
            return "keep an on-demand baseline: a second managed node group without `spot: \
                    true` (minSize 1) beside the spot one, or `instancesDistribution.\
                    onDemandBaseCapacity` on a self-managed group";
        }
        Dialect::Karpenter => {
            return "allow `on-demand` in the NodePool's `karpenter.sh/capacity-type` \
                    requirement: Karpenter falls back to it when spot capacity runs out";
        }
        Dialect::Terraform => {}
    }
    match c.provider {
        Provider::Aws => {
            "keep an on-demand baseline: a second node group with `capacity_type = \"ON_DEMAND\"` \
             (min 1) beside the spot one, or `on_demand_base_capacity` in the ASG's mixed \
             instances policy"
        }
        Provider::Gcp => {
            "add an on-demand node pool (no `spot`/`preemptible`) with a small minimum beside the \
             spot pool, and let replicas prefer spot"
        }
        Provider::Azure => {
            "add a `Regular` priority node pool with a small `min_count` beside the spot pool"
        }
        Provider::Kubernetes => "give the workload on-demand capacity to fall back to",
    }
}
