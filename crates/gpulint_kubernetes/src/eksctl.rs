//! eksctl's `ClusterConfig` (`eksctl.io/v1alpha5`): its `managedNodeGroups` and
//! `nodeGroups` are EKS node groups, read as capacity with eksctl's own defaults.

use super::{labels, span, taints, text};
use gpulint_facts::catalog;
use gpulint_facts::instance_machine;
use gpulint_model::intent;
use gpulint_model::{
    Capacity, CapacityKind, Dialect, Market, Placement, Provider, Scale, Span, Value, Zones,
};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

/// Every node group of a `ClusterConfig`, in order: managed ones first.
pub(super) fn node_groups(file: FileId, obj: &YamlNode) -> Vec<Capacity> {
    let cluster = obj
        .path(&["metadata", "name"])
        .and_then(YamlNode::as_str)
        .unwrap_or("(unnamed)");
    let cluster_zones = zones(file, obj.get("availabilityZones"));
    let mut out = Vec::new();
    for (key, managed) in [("managedNodeGroups", true), ("nodeGroups", false)] {
        for ng in obj.get(key).and_then(YamlNode::items).unwrap_or_default() {
            out.push(node_group(file, cluster, ng, managed, &cluster_zones));
        }
    }
    out
}

fn node_group(
    file: FileId,
    cluster: &str,
    ng: &YamlNode,
    managed: bool,
    cluster_zones: &Value<Zones>,
) -> Capacity {
    let name = text(ng, "name").unwrap_or_else(|| "(unnamed)".into());
    let header = ng
        .get("name")
        .map_or_else(|| span(file, ng), |n| span(file, n));
    let mut c = Capacity::new(
        format!("ClusterConfig/{cluster}/{name}"),
        Provider::Aws,
        CapacityKind::NodePool,
        header.clone(),
    );
    c.written_in = Dialect::Eksctl;
    let dist = ng.get("instancesDistribution");
    c.machines = machines(file, ng, dist);
    c.market = market(file, ng, dist, managed);
    c.scale = scale(file, ng, &header, managed);
    let efa = ng.get("efaEnabled").map(|n| match n.as_bool() {
        Some(b) => Value::Known(b, span(file, n)),
        None => Value::Unknown(span(file, n)),
    });
    c.zones = match (ng.get("availabilityZones"), &efa) {
        (Some(z), _) => zones(file, Some(z)),
        // With EFA on, eksctl keeps the group to one subnet of the cluster's, "arbitrarily
        // choosing one" (pkg/vpc/vpc.go): one zone, which one is not written.
        (None, Some(Value::Known(true, sp))) => Value::Unknown(sp.clone()),
        (None, _) => cluster_zones.clone(),
    };
    c.fast_fabric = efa.clone().unwrap_or_default();
    let reservation = ng.path(&["capacityReservation", "capacityReservationTarget"]);
    c.placement = match ng.get("placement") {
        // A placement group by name: its strategy is set where it was made.
        Some(p) => Value::Unknown(span(file, p)),
        // With EFA on, eksctl makes a cluster placement group, unless the capacity comes
        // from a reservation (which brings its own).
        None => match &efa {
            Some(Value::Known(true, sp)) if reservation.is_none() => {
                Value::Known(Placement::Cluster, sp.clone())
            }
            _ => Value::Absent,
        },
    };
    c.reserved = reservation
        .map(|r| span(file, r))
        .or_else(|| match &c.market {
            Value::Known(Market::Reserved, sp) => Some(sp.clone()),
            _ => None,
        });
    c.labels = labels(file, ng.get("labels"));
    c.taints = taints(file, ng.get("taints"));
    c.labels.push((
        "alpha.eksctl.io/nodegroup-name".into(),
        name.clone().into(),
        header.clone(),
    ));
    if managed {
        c.labels.push((
            "eks.amazonaws.com/nodegroup".into(),
            name.clone().into(),
            header.clone(),
        ));
    }
    c.role = intent::from_entries(&c.labels, [name.as_str()], &header);
    bootstrap_gpus(file, ng, &mut c);
    c
}

/// A type left to a placeholder: what the node's bootstrap sets up still says GPU nodes.
fn bootstrap_gpus(file: FileId, ng: &YamlNode, c: &mut Capacity) {
    for key in ["overrideBootstrapCommand", "preBootstrapCommands"] {
        let Some(n) = ng.get(key) else { continue };
        let script = match n.items() {
            Some(items) => items
                .iter()
                .filter_map(YamlNode::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
            None => n.as_str().unwrap_or_default().to_string(),
        };
        // The key's line: a script runs to many.
        let at = ng.get_key(key).unwrap_or(n);
        c.gpus_from_bootstrap(key, &script, &span(file, at));
    }
}

/// An instance type left for a template tool to fill in (`$INSTANCE_TYPE`,
/// `${INSTANCE_TYPE}`, `{{ .Values.type }}`, `<instance-type>`): not a type.
pub(super) fn is_placeholder(name: &str) -> bool {
    name.contains('$') || name.contains("{{") || (name.starts_with('<') && name.ends_with('>'))
}

/// `instanceType`, `instanceTypes`, or the mixed-instances `instancesDistribution`. Not
/// written: eksctl's default type, which has no GPU.
fn machines(
    file: FileId,
    ng: &YamlNode,
    dist: Option<&YamlNode>,
) -> Value<Vec<gpulint_model::Machine>> {
    let list = ng
        .get("instanceTypes")
        .or_else(|| dist.and_then(|d| d.get("instanceTypes")));
    let (names, at): (Vec<Option<&str>>, &YamlNode) = match (ng.get("instanceType"), list) {
        (Some(t), _) if t.as_str() != Some("mixed") => (vec![t.as_str()], t),
        (_, Some(l)) => match l.items() {
            Some(items) => (items.iter().map(YamlNode::as_str).collect(), l),
            None => return Value::Unknown(span(file, l)),
        },
        (Some(t), None) => return Value::Unknown(span(file, t)),
        (None, None) => return Value::Absent,
    };
    match names.into_iter().collect::<Option<Vec<&str>>>() {
        Some(n) if !n.is_empty() && !n.iter().any(|t| is_placeholder(t)) => Value::Known(
            n.iter()
                .map(|t| instance_machine(Provider::Aws, t))
                .collect(),
            span(file, at),
        ),
        _ => Value::Unknown(span(file, at)),
    }
}

/// `spot: true` (managed), `instanceMarketOptions.marketType: capacity-block`, or the
/// on-demand share of `instancesDistribution` (AWS's defaults: base 0, 100 % above it).
fn market(file: FileId, ng: &YamlNode, dist: Option<&YamlNode>, managed: bool) -> Value<Market> {
    if let Some(m) = ng.path(&["instanceMarketOptions", "marketType"]) {
        return match m.as_str() {
            Some("capacity-block") => Value::Known(Market::Reserved, span(file, m)),
            Some(_) => Value::Known(Market::OnDemand, span(file, m)),
            None => Value::Unknown(span(file, m)),
        };
    }
    if managed && let Some(s) = ng.get("spot") {
        return match s.as_bool() {
            Some(true) => Value::Known(Market::Spot, span(file, s)),
            Some(false) => Value::Known(Market::OnDemand, span(file, s)),
            None => Value::Unknown(span(file, s)),
        };
    }
    let Some(d) = dist else {
        return Value::Absent;
    };
    let read = |k: &str, default: u64| match d.get(k) {
        None => Some(default),
        Some(n) => n.as_u64(),
    };
    match (
        read("onDemandBaseCapacity", 0),
        read("onDemandPercentageAboveBaseCapacity", 100),
    ) {
        (Some(_), Some(100)) => Value::Known(Market::OnDemand, span(file, d)),
        (Some(0), Some(0)) => Value::Known(Market::Spot, span(file, d)),
        (Some(_), Some(_)) => Value::Known(Market::Mixed, span(file, d)),
        _ => Value::Unknown(span(file, d)),
    }
}

/// `minSize`, `desiredCapacity`, `maxSize` with eksctl's defaults: the minimum is the
/// desired capacity, else eksctl's default node count; the maximum is the desired
/// capacity, else the minimum (for a managed group, never 0).
fn scale(file: FileId, ng: &YamlNode, header: &Span, managed: bool) -> Scale {
    let read = |k: &str| ng.get(k).map(|n| super::count_u64(file, n));
    let desired = read("desiredCapacity");
    let defaults = &catalog().kubernetes.eksctl;
    let default = || Value::Known(defaults.default_node_count, header.clone());
    let min = read("minSize")
        .or_else(|| desired.clone())
        .unwrap_or_else(default);
    let max = read("maxSize").unwrap_or_else(|| match desired.clone().unwrap_or(min.clone()) {
        Value::Known(0, sp) if managed => Value::Known(defaults.default_max_size, sp),
        other => other,
    });
    Scale {
        min,
        max,
        desired: desired.unwrap_or(Value::Absent),
        ..Scale::default()
    }
}

fn zones(file: FileId, z: Option<&YamlNode>) -> Value<Zones> {
    let Some(z) = z else { return Value::Absent };
    match z.items().and_then(|i| {
        i.iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
    }) {
        Some(list) if !list.is_empty() => Value::Known(Zones::of(list), span(file, z)),
        _ => Value::Unknown(span(file, z)),
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::lower_text;
    use gpulint_model::{Market, Placement, Zones};

    #[test]
    fn node_groups_with_eksctl_defaults() {
        let inv = lower_text(
            r"
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: { name: c, region: us-west-2 }
availabilityZones: [us-west-2a, us-west-2b]
managedNodeGroups:
  - name: a
    instanceType: p5.48xlarge
    efaEnabled: true
    desiredCapacity: 3
  - name: b
    instanceTypes: [g5.xlarge]
    spot: true
    minSize: 0
    availabilityZones: [us-west-2a]
nodeGroups:
  - name: c
    instanceType: mixed
    instancesDistribution:
      instanceTypes: [g6.xlarge]
      onDemandBaseCapacity: 1
      onDemandPercentageAboveBaseCapacity: 0
",
        );
        let c = &inv.capacity;
        assert_eq!(c.len(), 3);
        // Desired capacity is the minimum and the maximum when they are not written.
        assert_eq!(
            (c[0].scale.min.known(), c[0].scale.max.known()),
            (Some(&3), Some(&3))
        );
        assert_eq!(c[0].fast_fabric.known(), Some(&true));
        assert_eq!(c[0].placement.known(), Some(&Placement::Cluster));
        // With EFA, eksctl picks one of the cluster's subnets: one zone, not written which.
        assert!(c[0].zones.is_unknown());
        assert_eq!(c[1].market.known(), Some(&Market::Spot));
        // A managed group's maximum is never 0.
        assert_eq!(
            (c[1].scale.min.known(), c[1].scale.max.known()),
            (Some(&0), Some(&1))
        );
        assert_eq!(
            c[1].zones.known(),
            Some(&Zones::Listed(vec!["us-west-2a".into()]))
        );
        assert_eq!(c[2].market.known(), Some(&Market::Mixed));
        // Neither size written: eksctl's default node count.
        assert_eq!(c[2].scale.min.known(), Some(&2));
        assert_eq!(c[2].subject, "ClusterConfig/c/c");
    }
}
