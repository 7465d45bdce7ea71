//! Karpenter NodePools: capacity defined in Kubernetes.

use super::{labels, span, taints, text};
use gpulint_facts::catalog;
use gpulint_model::{Capacity, CapacityKind, Dialect, Market, Provider, Scale, Span, Value, Zones};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

/// A Karpenter NodePool: the instance types its requirements allow, its capacity types,
/// zones and the labels its nodes get.
pub(super) fn karpenter_node_pool(file: FileId, obj: &YamlNode) -> Capacity {
    let name = obj
        .path(&["metadata", "name"])
        .and_then(YamlNode::as_str)
        .unwrap_or("(unnamed)")
        .to_string();
    let header = obj
        .get_key("kind")
        .map_or_else(|| span(file, obj), |k| span(file, k));
    let mut c = Capacity::new(
        format!("NodePool/{name}"),
        Provider::Aws,
        CapacityKind::NodePool,
        header,
    );
    c.written_in = Dialect::Karpenter;
    let template = obj.path(&["spec", "template"]);
    let reqs = template
        .and_then(|t| t.path(&["spec", "requirements"]))
        .and_then(YamlNode::items)
        .unwrap_or_default();
    let vocab = &catalog().kubernetes;
    let mut types: Option<(Vec<String>, Span)> = None;
    // Sizes narrow the types a family or a type label allows (`g5` and `48xlarge`).
    let mut sizes: Option<Vec<String>> = None;
    for r in reqs {
        let (Some(key), Some(op)) = (text(r, "key"), text(r, "operator")) else {
            continue;
        };
        let values: Vec<String> = r
            .get("values")
            .and_then(YamlNode::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let sp = r
            .get("values")
            .map_or_else(|| span(file, r), |v| span(file, v));
        if op != "In" {
            continue;
        }
        if key == "karpenter.sh/capacity-type" {
            let has = |m: &str| values.iter().any(|v| v == m);
            let market = match (has("spot"), has("on-demand") || has("reserved")) {
                (true, false) => Market::Spot,
                (true, true) => Market::Mixed,
                _ => Market::OnDemand,
            };
            c.market = Value::Known(market, sp);
        } else if vocab.is_instance_label(&key) {
            // A type a template tool fills in is none gpulint can name.
            if values.iter().any(|v| super::eksctl::is_placeholder(v)) {
                types = Some((Vec::new(), sp));
            } else {
                types = Some((values, sp));
            }
        } else if vocab.is_family_label(&key) {
            let t: Vec<String> = values
                .iter()
                .flat_map(|f| catalog().family(f).map(|i| i.row.name.clone()))
                .collect();
            types = Some((t, sp));
        } else if vocab.is_gpu_label(&key) {
            let gpus = vocab.gpus_for_values(&key, &values);
            let t: Vec<String> = catalog()
                .instances
                .iter()
                .filter(|i| i.provider == Provider::Aws && gpus.iter().any(|g| g.id == i.gpu.id))
                .map(|i| i.row.name.clone())
                .collect();
            types = Some((t, sp));
        } else if vocab.is_zone_label(&key) {
            c.zones = Value::Known(Zones::of(values), sp);
        } else if vocab.is_size_label(&key) {
            sizes = Some(values);
        }
    }
    if let (Some((t, _)), Some(sizes)) = (&mut types, &sizes) {
        t.retain(|name| {
            name.rsplit_once('.')
                .is_some_and(|(_, size)| sizes.iter().any(|s| s == size))
        });
    }
    c.machines = match types {
        Some((t, sp)) if !t.is_empty() => Value::Known(
            t.iter()
                .map(|t| gpulint_facts::instance_machine(Provider::Aws, t))
                .collect(),
            sp,
        ),
        // Karpenter picks among every type the requirements allow: gpulint cannot tell.
        Some((_, sp)) => Value::Unknown(sp),
        None => Value::Unknown(c.header.clone()),
    };
    if c.market == Value::Absent {
        // Karpenter's default capacity type is on-demand.
        c.market = Value::Known(Market::OnDemand, c.header.clone());
    }
    // Karpenter provisions nodes for pending pods: nothing stays up by itself.
    c.scale = Scale {
        min: Value::Known(0, c.header.clone()),
        max: Value::Absent,
        ..Scale::default()
    };
    c.labels = labels(file, template.and_then(|t| t.path(&["metadata", "labels"])));
    c.taints = taints(file, template.and_then(|t| t.path(&["spec", "taints"])));
    c.labels.push((
        "karpenter.sh/nodepool".into(),
        name.clone().into(),
        c.header.clone(),
    ));
    c.role = gpulint_model::intent::from_entries(&c.labels, [name.as_str()], &c.header);
    c
}
