//! The generic pod-spec search: every pod spec below an object, whatever operator defines
//! it, with the replica count and group name its ancestors give it (LeaderWorkerSet groups
//! included).

use super::{count, span, text};
use crate::engines::{launcher, serving};
use crate::pods::{container, gpus_of, pod, signals};
use gpulint_model::{GpuRequest, PodShape, Span, Value};
use gpulint_source::FileId;
use gpulint_syntax::yaml::{YamlNode, YamlValue};

/// Finds every pod spec below `node`: a mapping with a `containers` list (or a KServe
/// `model` with a `modelFormat`). Does not look inside a pod spec once found.
pub(crate) fn find_pods<'a>(
    file: FileId,
    node: &'a YamlNode,
    name: &str,
    ancestors: &mut Vec<(&'a YamlNode, String)>,
    annotations: Option<&YamlNode>,
    out: &mut Vec<PodShape>,
) {
    if ancestors.len() > 12 {
        return;
    }
    match &node.value {
        YamlValue::Map(entries) => {
            if node.get("containers").and_then(YamlNode::items).is_some() {
                let group = group_name(name, ancestors);
                let replicas = replicas(file, ancestors);
                let mut p = pod(file, group, node, replicas, annotations);
                // The pod template holds the spec and its metadata.
                signals(file, &mut p, node, ancestors.last().map(|(t, _)| *t));
                out.push(p);
                return;
            }
            // KServe's `predictor.model`: a container-like spec under a runtime.
            if let Some(model) = node.get("model").filter(|m| m.get("modelFormat").is_some()) {
                let gpus = gpus_of(file, model.get("resources"));
                let r = replicas(file, ancestors);
                out.push(container_pod(
                    file,
                    "predictor",
                    node,
                    model,
                    gpus,
                    r,
                    annotations,
                ));
                return;
            }
            // Any other container-like spec that asks for GPUs (OME's `runner`, `leader` and
            // `worker`, a runtime's engine): a pod of that one container.
            // Read only for a map with an image: the search visits every map.
            let gpus = node
                .get("image")
                .and_then(YamlNode::as_str)
                .map(|_| gpus_of(file, node.get("resources")));
            if let Some(gpus) = gpus.filter(Value::holds_gpus) {
                // Pod-level fields (volumes, node selectors) sit beside it.
                let spec = ancestors.last().map_or(node, |(parent, _)| *parent);
                let r = replicas(file, ancestors);
                let mut p = container_pod(file, name, spec, node, gpus, r, annotations);
                signals(file, &mut p, node, None);
                out.push(p);
                return;
            }
            ancestors.push((node, name.to_string()));
            for (k, v) in entries {
                let key = k.as_str().unwrap_or_default();
                if matches!(key, "metadata" | "status") {
                    continue;
                }
                find_pods(file, v, key, ancestors, annotations, out);
            }
            ancestors.pop();
        }
        YamlValue::Seq(items) => {
            ancestors.push((node, name.to_string()));
            for (i, item) in items.iter().enumerate() {
                let item_name = text(item, "groupName")
                    .or_else(|| text(item, "name"))
                    .unwrap_or_else(|| format!("{name}[{i}]"));
                find_pods(file, item, &item_name, ancestors, annotations, out);
            }
            ancestors.pop();
        }
        YamlValue::Scalar(_) => {}
    }
}

/// A pod of one container-like spec `c` (no `containers` list), with the pod-level fields
/// of `spec` (which holds no `containers` either, or the search would have taken it).
fn container_pod(
    file: FileId,
    group: &str,
    spec: &YamlNode,
    c: &YamlNode,
    gpus: Value<GpuRequest>,
    replicas: Value<u32>,
    annotations: Option<&YamlNode>,
) -> PodShape {
    let mut p = pod(file, group.to_string(), spec, replicas, annotations);
    p.containers = vec![container(file, c)];
    p.gpus = gpus;
    p.serving = serving(file, &p.containers, annotations).map(Box::new);
    p.launcher = launcher(&p.containers);
    p
}

/// The replica group a pod spec belongs to: the key above `template` (`Worker`,
/// `headGroupSpec`, a Ray `groupName`), `template` for the core kinds, or the spec's key.
fn group_name(name: &str, ancestors: &[(&YamlNode, String)]) -> String {
    let names: Vec<&str> = ancestors.iter().map(|(_, n)| n.as_str()).collect();
    match names[..] {
        // JobSet: a replicated job → its Job template → the Job's spec → the pod template.
        [.., group, "template", "spec", "template"] if name == "spec" => group.to_string(),
        // LeaderWorkerSet: `leaderTemplate`, `workerTemplate`.
        [.., group] if name == "spec" && group.ends_with("Template") => group.to_string(),
        [.., group, "template"] if name == "spec" && group != "spec" => group.to_string(),
        [.., "template"] if name == "spec" => "template".to_string(),
        _ => name.to_string(),
    }
}

/// Pods in a group: the nearest `replicas`, `parallelism`, `maxReplicas`, `size` or
/// `numNodes` within three levels above the pod spec.
///
/// A JobSet's replicated job multiplies its Job's `parallelism` by its own `replicas`.
pub(crate) fn replicas(file: FileId, ancestors: &[(&YamlNode, String)]) -> Value<u32> {
    let mut found = Value::Absent;
    for (a, _) in ancestors.iter().rev().take(3) {
        if let Some(n) = ["replicas", "parallelism", "maxReplicas", "size", "numNodes"]
            .iter()
            .find_map(|k| a.get(k))
        {
            found = count(file, n);
            break;
        }
    }
    let names: Vec<&str> = ancestors.iter().map(|(_, n)| n.as_str()).collect();
    if let [.., (job, _), _, _, _] = ancestors
        && matches!(
            names[..],
            [.., "replicatedJobs", _, "template", "spec", "template"]
        )
        && let Some(n) = job.get("replicas")
    {
        let per_job = match found {
            Value::Absent => Value::Known(1, span(file, n)),
            other => other,
        };
        return match (count(file, n), per_job) {
            (Value::Known(r, sp), Value::Known(p, _)) => Value::Known(r.saturating_mul(p), sp),
            (Value::Unknown(sp), _) | (_, Value::Unknown(sp)) => Value::Unknown(sp),
            (_, other) => other,
        };
    }
    found
}

/// LeaderWorkerSet: `replicas` groups of `size` pods, the leader one of them. Returns the
/// group size when it is known.
pub(crate) fn leader_worker_counts(
    file: FileId,
    obj: &YamlNode,
    pods: &mut [PodShape],
) -> Option<(u32, Span)> {
    let spec = obj.get("spec")?;
    // Each defaults to 1; a value that is no count is unknown.
    let read = |n: Option<&YamlNode>| match n.map(|n| count(file, n)) {
        Some(Value::Known(r, sp)) => Some((r, sp)),
        Some(_) => None,
        None => Some((1, span(file, spec))),
    };
    let groups = read(spec.get("replicas"));
    let size = read(spec.path(&["leaderWorkerTemplate", "size"]));
    let has_leader = pods.iter().any(|p| p.group == "leaderTemplate");
    for p in pods.iter_mut() {
        p.replicas = match (&groups, &size) {
            (Some((g, _)), Some((n, sp))) => {
                let per_group = match p.group.as_str() {
                    "leaderTemplate" => 1,
                    "workerTemplate" if has_leader => n.saturating_sub(1),
                    _ => *n,
                };
                Value::Known(g.saturating_mul(per_group), sp.clone())
            }
            _ => Value::Unknown(span(file, spec)),
        };
    }
    size
}
