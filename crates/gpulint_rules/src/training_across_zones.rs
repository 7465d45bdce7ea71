//! `training-across-zones`: distributed training capacity spread across zones.

use super::{Report, Rule, RuleContext, RuleMeta, because, describe};
use gpulint_diagnostics::{Category, Severity};
use gpulint_facts::catalog;
use gpulint_model::{Capacity, Dialect, Inventory, Provider, Role, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Performance,
    summary: "distributed training capacity or pods spread across availability zones",
    options: &[],
};

pub struct TrainingAcrossZones;

impl Rule for TrainingAcrossZones {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        // Kubernetes: multi-pod training spread over zones, or allowed in several.
        for w in model
            .workloads
            .iter()
            .filter(|w| w.role.known() == Some(&Role::Training))
        {
            let pods = w
                .pods
                .iter()
                .map(|p| p.replicas.known().copied().unwrap_or(1))
                .fold(0u32, u32::saturating_add);
            if pods < 2 {
                continue;
            }
            let reason = w.pods.iter().find_map(|p| {
                p.spread
                    .iter()
                    .find(|(k, _)| catalog().kubernetes.is_zone_label(k))
                    .map(|(_, s)| (s.clone(), "spreads pods across zones".to_string()))
                    .or_else(|| {
                        p.selection
                            .zones
                            .as_ref()
                            .filter(|(z, _)| z.len() > 1)
                            .map(|(z, s)| (s.clone(), format!("allows zones {}", z.join(", "))))
                    })
            });
            let Some((span, what)) = reason else { continue };
            cx.report(Report {
                message: format!(
                    "`{}` {what} for {pods} training pods: every collective crosses zones, slower \
                     and billed as inter-zone traffic",
                    w.subject
                ) + &because(&w.role),
                help:
                    "keep training pods in one zone: drop the zone spread constraint and pin one \
                       `topology.kubernetes.io/zone`"
                        .into(),
                subject: w.subject.clone(),
                primary: (span, "more than one zone".into()),
                secondary: Vec::new(),
            });
        }
        for c in &model.capacity {
            if c.role.known() != Some(&Role::Training) || c.multi_node() != Some(true) {
                continue;
            }
            let Some((machines, _)) = c.gpu_machines() else {
                continue;
            };
            let Value::Known(zones, zones_span) = &c.zones else {
                continue;
            };
            if !zones.is_multi() {
                continue;
            }
            cx.report(Report {
                message: format!(
                    "{} spreads training nodes of {} across {}: every collective crosses zones, \
                     slower and billed as inter-zone traffic",
                    super::group_subject(c),
                    describe(machines[0]),
                    zones.describe()
                ) + &because(&c.role),
                help: help(c).into(),
                subject: c.subject.clone(),
                primary: (zones_span.clone(), "more than one zone".into()),
                secondary: Vec::new(),
            });
        }
    }
}

fn help(c: &Capacity) -> &'static str {
    match c.written_in {
        Dialect::Eksctl => {
            return "pin the training node group to one zone: `availabilityZones: [\"<zone>\"]`";
        }
        Dialect::Karpenter => {
            return "restrict the NodePool to one zone with a `topology.kubernetes.io/zone` \
                    requirement";
        }
        Dialect::Terraform => {}
    }
    match c.provider {
        Provider::Aws => "give the training group subnets of one availability zone",
        Provider::Gcp => "pin the training pool to one zone with `node_locations = [\"<zone>\"]`",
        Provider::Azure => "pin the training pool to one zone (`zones = [\"1\"]`)",
        Provider::Kubernetes => "keep the training pods in one zone",
    }
}
