//! Autoscalers of workloads: HorizontalPodAutoscalers and KEDA ScaledObjects (the
//! `[[scaler]]` rows of kubernetes.toml), read as what they target and the fewest
//! replicas they keep, then linked to their targets in the run.

use gpulint_facts::catalog;
use gpulint_model::{Inventory, Scaler, Span, Str, Value};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

/// The autoscaler `obj` is, when its kind and API group are a scaler row's.
pub(crate) fn read(file: FileId, obj: &YamlNode, kind: &str, api: &str) -> Option<Scaler> {
    let group = api.split('/').next().unwrap_or_default();
    let row = catalog()
        .kubernetes
        .scalers
        .iter()
        .find(|r| r.kind == kind && r.api_group == group)?;
    let path = |p: &[String]| {
        let keys: Vec<&str> = p.iter().map(String::as_str).collect();
        obj.path(&keys)
    };
    let target = path(&row.target)?;
    let target_name = target.get("name").and_then(YamlNode::as_str)?;
    let target_kind = target
        .get("kind")
        .and_then(YamlNode::as_str)
        .or(row.default_kind.as_deref())?;
    let at = Span::new(file, obj.span.clone());
    let min = match path(&row.min) {
        Some(n) => super::count(file, n),
        None => Value::Known(row.min_default, at.clone()),
    };
    let name = obj
        .path(&["metadata", "name"])
        .and_then(YamlNode::as_str)
        .unwrap_or("(unnamed)");
    Some(Scaler {
        subject: format!("{kind}/{name}"),
        target_kind: Str::from(target_kind),
        target_name: Str::from(target_name),
        min,
        span: at,
    })
}

/// Gives each workload the autoscaler of the run that targets it (by kind and name). A
/// workload several autoscalers name, or one of several of that kind and name, is given
/// an autoscaler whose minimum is unknown: which one holds cannot be told.
pub(crate) fn link(inv: &mut Inventory) {
    if inv.scalers.is_empty() {
        return;
    }
    let scalers = std::mem::take(&mut inv.scalers);
    for s in &scalers {
        let targets: Vec<usize> = inv
            .workloads
            .iter()
            .enumerate()
            .filter(|(_, w)| {
                *w.kind == *s.target_kind && w.name.as_deref() == Some(&*s.target_name)
            })
            .map(|(i, _)| i)
            .collect();
        let alone = targets.len() == 1;
        for i in targets {
            let w = &mut inv.workloads[i];
            let clash = w.scaled_by.as_ref().is_some_and(|had| had != s);
            let mut linked = s.clone();
            if !alone || clash {
                linked.min = Value::Unknown(s.span.clone());
            }
            w.scaled_by = Some(linked);
        }
    }
    inv.scalers = scalers;
}
