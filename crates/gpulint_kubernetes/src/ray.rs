//! KubeRay (`ray.io`): how a Ray cluster's groups scale (the in-tree autoscaler, each
//! worker group's `replicas` and bounds, the idle timeout), and whether a RayJob tears its
//! cluster down when the job is done.
//!
//! The pods themselves are found by the generic pod-spec search; this only adds what
//! KubeRay's fields say about them, matched by the pod spec's span, and what a RayService's
//! Ray Serve LLM application (in `serveConfigV2`) tells vLLM.

use super::engines::number;
use super::span;
use gpulint_model::{Autoscale, Engine, GroupScaling, PodShape, Serving, Value};
use gpulint_source::limits::{LimitHit, Limits};
use gpulint_source::{FileId, SourceFile};
use gpulint_syntax::yaml::{YamlNode, parse_embedded};

/// Marks the head and worker groups of a RayCluster, RayJob or RayService with how they
/// scale, and returns whether a RayJob ends its cluster (`Absent` for anything else) and
/// the limits hit reading the YAML in a RayService's `serveConfigV2`.
pub(super) fn lower(
    file: FileId,
    source: &SourceFile,
    obj: &YamlNode,
    kind: &str,
    api: &str,
    limits: &Limits,
    pods: &mut [PodShape],
) -> (Value<bool>, Vec<LimitHit>) {
    if !api.starts_with("ray.io/") {
        return (Value::Absent, Vec::new());
    }
    let cluster = match kind {
        "RayCluster" => obj.get("spec"),
        "RayJob" => obj.path(&["spec", "rayClusterSpec"]),
        "RayService" => obj.path(&["spec", "rayClusterConfig"]),
        _ => None,
    };
    if let Some(cluster) = cluster {
        scaling(file, cluster, pods);
    }
    let mut hits = Vec::new();
    if kind == "RayService"
        && let Some(config) = obj.path(&["spec", "serveConfigV2"])
    {
        let config = parse_embedded(source, config, limits);
        hits = config.limits;
        if let Some(config) = config.docs.first() {
            serve_llm(file, config, pods);
        }
    }
    let ends = if kind == "RayJob" {
        obj.get("spec").map_or(Value::Absent, |s| job_ends(file, s))
    } else {
        Value::Absent
    };
    (ends, hits)
}

fn scaling(file: FileId, cluster: &YamlNode, pods: &mut [PodShape]) {
    let enabled = flag(file, cluster.get("enableInTreeAutoscaling"));
    let cluster_idle = cluster
        .path(&["autoscalerOptions", "idleTimeoutSeconds"])
        .map(|n| span(file, n));
    let mut set = |template_spec: Option<&YamlNode>, s: GroupScaling| {
        let Some(spec) = template_spec else { return };
        if let Some(p) = pods.iter_mut().find(|p| p.span.range() == spec.span) {
            p.scaling = Some(Box::new(s));
        }
    };
    if let Some(head) = cluster.get("headGroupSpec") {
        set(head.path(&["template", "spec"]), GroupScaling::Single);
    }
    for group in cluster
        .get("workerGroupSpecs")
        .and_then(YamlNode::items)
        .unwrap_or_default()
    {
        set(
            group.path(&["template", "spec"]),
            GroupScaling::Autoscaled(Autoscale {
                enabled: enabled.clone(),
                replicas: count(file, group.get("replicas")),
                min: count(file, group.get("minReplicas")),
                max: count(file, group.get("maxReplicas")),
                idle_timeout: group
                    .get("idleTimeoutSeconds")
                    .map(|n| span(file, n))
                    .or_else(|| cluster_idle.clone()),
            }),
        );
    }
}

/// A Ray Serve LLM application's model on the GPU worker group that runs it. Read only
/// when it is certain which pods serve which model: one LLM config, one worker group with
/// GPUs. Its vLLM is told `engine_kwargs`; Ray places each replica's `tensor × pipeline`
/// GPUs on that group's pods.
fn serve_llm(file: FileId, config: &YamlNode, pods: &mut [PodShape]) {
    let llms: Vec<&YamlNode> = config
        .get("applications")
        .and_then(YamlNode::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|app| app.get("args"))
        .flat_map(|args| {
            let many = args.get("llm_configs").and_then(YamlNode::items);
            many.map_or_else(
                || args.get("llm_config").into_iter().collect(),
                |l| l.iter().collect::<Vec<_>>(),
            )
        })
        .collect();
    let [llm] = llms[..] else { return };
    let mut gpu_groups = pods.iter_mut().filter(|p| {
        matches!(p.scaling.as_deref(), Some(GroupScaling::Autoscaled(_))) && p.gpus.holds_gpus()
    });
    let (Some(pod), None) = (gpu_groups.next(), gpu_groups.next()) else {
        return;
    };
    let at = |n: &YamlNode| span(file, n);
    let text = |n: Option<&YamlNode>| n.and_then(|n| Some((n.as_str()?.to_string(), at(n))));
    let kwargs = llm.get("engine_kwargs");
    let kw = |k: &str| kwargs.and_then(|e| e.get(k));
    let mut unknown = Vec::new();
    let u = &mut unknown;
    let loading = llm.get("model_loading_config");
    let model = text(loading.and_then(|l| l.get("model_source")))
        .or_else(|| text(loading.and_then(|l| l.get("model_id"))));
    let tp = number(text(kw("tensor_parallel_size")), u);
    let pp = number(text(kw("pipeline_parallel_size")), u);
    let max_model_len = number(text(kw("max_model_len")), u);
    let gpu_memory_utilization = number(text(kw("gpu_memory_utilization")), u);
    pod.serving = Some(Box::new(Serving {
        model,
        precision: text(kw("dtype")),
        quantization: text(kw("quantization")),
        kv_precision: text(kw("kv_cache_dtype")),
        tp,
        pp,
        max_model_len,
        gpu_memory_utilization,
        unknown,
        spans_pods: None,
        ..Serving::bare(Engine::Vllm, at(llm))
    }));
}

/// Whether a RayJob deletes its cluster when the job is done: `shutdownAfterJobFinishes:
/// true`, or a `deletionStrategy` whose policies delete something. A value gpulint cannot
/// read is unknown.
fn job_ends(file: FileId, spec: &YamlNode) -> Value<bool> {
    let shutdown = flag(file, spec.get("shutdownAfterJobFinishes"));
    let strategy = spec.get("deletionStrategy").map(|d| {
        let sp = span(file, d);
        let mut policies = Vec::new();
        collect_policies(d, &mut policies, 0);
        if policies.is_empty() {
            return Value::Unknown(sp);
        }
        match policies
            .iter()
            .map(|p| p.as_str())
            .collect::<Option<Vec<&str>>>()
        {
            Some(ps) if ps.iter().all(|p| *p == "DeleteNone") => Value::Known(false, sp),
            Some(_) => Value::Known(true, sp),
            None => Value::Unknown(sp),
        }
    });
    let all = [shutdown, strategy.unwrap_or_default()];
    if let Some(yes) = all.iter().find(|v| v.known() == Some(&true)) {
        return yes.clone();
    }
    if let Some(unknown) = all.iter().find(|v| v.is_unknown()) {
        return unknown.clone();
    }
    all.into_iter()
        .find(|v| v.known().is_some())
        .unwrap_or_default()
}

/// Every `policy` value under a `deletionStrategy` (legacy `onSuccess`/`onFailure`, or
/// `deletionRules`).
fn collect_policies<'a>(node: &'a YamlNode, out: &mut Vec<&'a YamlNode>, depth: usize) {
    if depth > 4 {
        return;
    }
    if let Some(entries) = node.entries() {
        for (k, v) in entries {
            if k.as_str() == Some("policy") {
                out.push(v);
            } else {
                collect_policies(v, out, depth + 1);
            }
        }
    } else if let Some(items) = node.items() {
        for item in items {
            collect_policies(item, out, depth + 1);
        }
    }
}

/// A boolean field; `null` is the default, as if not written.
fn flag(file: FileId, node: Option<&YamlNode>) -> Value<bool> {
    match node.filter(|n| !n.is_null()) {
        None => Value::Absent,
        Some(n) => n.as_bool().map_or_else(
            || Value::Unknown(span(file, n)),
            |b| Value::Known(b, span(file, n)),
        ),
    }
}

/// A count field; `null` is the default, as if not written.
fn count(file: FileId, node: Option<&YamlNode>) -> Value<u32> {
    node.filter(|n| !n.is_null())
        .map_or(Value::Absent, |n| super::count(file, n))
}

#[cfg(test)]
mod tests {
    use crate::tests::lower_text;
    use gpulint_model::{GroupScaling, Value};

    #[test]
    fn groups_carry_how_they_scale() {
        let inv = lower_text(
            r#"
apiVersion: ray.io/v1
kind: RayCluster
metadata: { name: ray }
spec:
  enableInTreeAutoscaling: true
  autoscalerOptions: { idleTimeoutSeconds: 120 }
  headGroupSpec:
    template: { spec: { containers: [{ name: head }] } }
  workerGroupSpecs:
    - groupName: gpu
      replicas: 1
      minReplicas: 0
      maxReplicas: 4
      template: { spec: { containers: [{ name: w, resources: { limits: { nvidia.com/gpu: 1 } } }] } }
    - groupName: cpu
      replicas: "{{ .Values.replicas }}"
      template: { spec: { containers: [{ name: w }] } }
"#,
        );
        let w = &inv.workloads[0];
        assert_eq!(w.ends, Value::Absent);
        assert_eq!(w.pods[0].scaling.as_deref(), Some(&GroupScaling::Single));
        let Some(GroupScaling::Autoscaled(a)) = w.pods[1].scaling.as_deref() else {
            panic!("{:?}", w.pods[1].scaling)
        };
        assert_eq!(a.enabled.known(), Some(&true));
        assert_eq!(
            (a.replicas.known(), a.min.known(), a.max.known()),
            (Some(&1), Some(&0), Some(&4))
        );
        assert!(a.idle_timeout.is_some());
        let Some(GroupScaling::Autoscaled(a)) = w.pods[2].scaling.as_deref() else {
            panic!("{:?}", w.pods[2].scaling)
        };
        assert!(a.replicas.is_unknown());
        assert_eq!(a.min, Value::Absent);
    }

    #[test]
    fn a_ray_job_ends_its_cluster_by_shutdown_or_deletion_strategy() {
        let job = |extra: &str| {
            let inv = lower_text(&format!(
                "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {{ name: j }}\nspec:\n{extra}  rayClusterSpec:\n    headGroupSpec:\n      template: {{ spec: {{ containers: [{{ name: head }}] }} }}\n"
            ));
            inv.workloads[0].ends.clone()
        };
        assert_eq!(job(""), Value::Absent);
        assert_eq!(
            job("  shutdownAfterJobFinishes: true\n").known(),
            Some(&true)
        );
        assert_eq!(
            job("  shutdownAfterJobFinishes: false\n").known(),
            Some(&false)
        );
        assert!(job("  shutdownAfterJobFinishes: \"{{ .Values.s }}\"\n").is_unknown());
        assert_eq!(
            job("  deletionStrategy:\n    deletionRules:\n      - policy: DeleteCluster\n        condition: { jobStatus: SUCCEEDED }\n")
                .known(),
            Some(&true)
        );
        assert_eq!(
            job("  deletionStrategy:\n    onSuccess: { policy: DeleteNone }\n    onFailure: { policy: DeleteNone }\n")
                .known(),
            Some(&false)
        );
    }
}
