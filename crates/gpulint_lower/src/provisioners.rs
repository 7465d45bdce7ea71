//! Node autoprovisioners a Terraform module sets up: Karpenter (its Helm chart, the EKS
//! module's `karpenter` submodule, or the tag it discovers subnets and security groups by,
//! beside a resource or module call named for it)
//! and GKE's node auto-provisioning. They add nodes of whatever kind their own objects ask
//! for, so the capacity a run shows may not be all there is. Also the Cluster Autoscaler,
//! which scales the node groups that exist. What says so is data (`[autoprovisioners]`
//! and `[group_autoscalers]` in kubernetes.toml).

use gpulint_facts::catalog;
use gpulint_model::{Autoprovisioner, Inventory, Provider, Value};
use gpulint_terraform::Module;
use hcl_edit::expr::Expression;

const KARPENTER: &str = "Karpenter";
const CLUSTER_AUTOSCALER: &str = "Cluster Autoscaler";

pub(crate) fn lower(module: &Module<'_>, inv: &mut Inventory) {
    let table = &catalog().kubernetes.autoprovisioners;
    let scalers = &catalog().kubernetes.group_autoscalers;
    let mut scaled = |span| {
        inv.group_autoscalers.push(Autoprovisioner {
            provider: Provider::Aws,
            name: CLUSTER_AUTOSCALER,
            span,
        });
    };
    let mut found = |provider: Provider, name: &'static str, span| {
        inv.autoprovisioners.push(Autoprovisioner {
            provider,
            name,
            span,
        });
    };
    let named = |charts: &[String], chart: &str| {
        charts
            .iter()
            .any(|c| chart.rsplit('/').next() == Some(c.as_str()))
    };
    for r in module.resources_of("helm_release") {
        if let Value::Known(chart, span) = r.block.str("chart") {
            if named(&table.helm_charts, &chart) {
                found(Provider::Aws, KARPENTER, span);
            } else if named(&scalers.helm_charts, &chart) {
                scaled(span);
            }
        }
    }
    for r in module.resources_of("google_container_cluster") {
        if let Value::Known(auto, _) = r.block.block("cluster_autoscaling")
            && let Value::Known(true, span) = auto.bool("enabled")
        {
            found(Provider::Gcp, "GKE node auto-provisioning", span);
        }
    }
    // The discovery tag counts beside something named for Karpenter.
    let names_it = |name: &str| {
        gpulint_facts::kubernetes::split_words(name)
            .iter()
            .any(|w| w.eq_ignore_ascii_case(&table.tag_needs_named))
    };
    let named_here =
        module.resources().any(|r| names_it(r.name)) || module.calls().any(|c| names_it(c.name));
    for call in module.calls() {
        for input in &scalers.module_inputs {
            if let Value::Known(true, span) = call.block.bool(input) {
                scaled(span);
            }
        }
        for input in &table.module_inputs {
            if let Value::Known(true, span) = call.block.bool(input) {
                found(Provider::Aws, KARPENTER, span);
            }
        }
        let source = call.source.as_deref().unwrap_or_default();
        let path = source
            .split('?')
            .next()
            .unwrap_or_default()
            .trim_end_matches('/');
        if table
            .module_sources
            .iter()
            .any(|m| path.ends_with(m.as_str()))
        {
            found(Provider::Aws, KARPENTER, call.block.header.clone());
            continue;
        }
        if named_here && let Some(span) = tagged(&call.block, &table.tag_inputs, &table.tag_keys) {
            found(Provider::Aws, KARPENTER, span);
        }
    }
    if named_here {
        for r in module.resources() {
            if let Some(span) = tagged(&r.block, &table.tag_inputs[..1], &table.tag_keys) {
                found(Provider::Aws, KARPENTER, span);
                // One place is enough to say it is there.
                break;
            }
        }
    }
}

/// Where one of `inputs` (tag maps) writes one of `keys`, as a literal key.
fn tagged(
    b: &gpulint_terraform::Block<'_>,
    inputs: &[String],
    keys: &[String],
) -> Option<gpulint_model::Span> {
    struct Find<'k>(&'k [String], Option<std::ops::Range<usize>>);
    impl hcl_edit::visit::Visit for Find<'_> {
        fn visit_object(&mut self, node: &hcl_edit::expr::Object) {
            for (k, v) in node {
                if gpulint_terraform::key_name(k).is_some_and(|n| self.0.iter().any(|x| x == n)) {
                    self.1 = self.1.take().or_else(|| hcl_edit::Span::span(k));
                }
                hcl_edit::visit::visit_object_value(self, v);
            }
        }
    }
    inputs.iter().find_map(|input| {
        let e: &Expression = b.expr(input)?;
        let mut f = Find(keys, None);
        hcl_edit::visit::visit_expr(&mut f, e);
        f.1.map(|r| b.span(r))
    })
}
