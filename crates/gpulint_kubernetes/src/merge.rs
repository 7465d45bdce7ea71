//! Objects an operator merges into a workload's pods (the operator table's `merge`): a
//! KServe InferenceService's predictor takes the container of the ServingRuntime it
//! names, or of the one that offers its model format, under its own fields.

use gpulint_facts::operators::{Operator, operators};
use gpulint_model::{GpuRequest, Inventory, MergeRef, PodShape, Str, Value, Workload};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

use super::pods::add_gpus;
use super::span;

/// The reference an object of operator `op` makes, when the row merges and the object
/// names an object or a format.
pub(super) fn reference(file: FileId, obj: &YamlNode, op: &'static Operator) -> Option<MergeRef> {
    let m = op.merge.as_ref()?;
    let at = |path: &[String]| {
        (!path.is_empty())
            .then(|| obj.path(path))
            .flatten()
            .and_then(|n| Some((Str::from(n.as_str()?), span(file, n))))
    };
    let name = at(&m.name);
    let format = at(&m.format);
    let span = name.as_ref().or(format.as_ref()).map(|(_, s)| s.clone())?;
    Some(MergeRef {
        kinds: m.kinds.iter().map(Str::from).collect(),
        name: name.map(|(n, _)| n),
        format: format.map(|(f, _)| f),
        pod: m.pod.as_deref().map(Str::from),
        what: m.what.as_str(),
        span,
    })
}

/// The formats an object of `kind` offers to the operators that merge it: each item of
/// the row's `offers` list, by `name`, when its `auto_select` key is true.
pub(super) fn offers(obj: &YamlNode, kind: &str, api: &str) -> Vec<Str> {
    let group = api.split('/').next().unwrap_or_default();
    let Some(m) = operators()
        .iter()
        .filter(|o| o.api_groups.iter().any(|g| g == group))
        .filter_map(|o| o.merge.as_ref())
        .find(|m| m.kinds.iter().any(|k| k == kind))
    else {
        return Vec::new();
    };
    obj.path(&m.offers)
        .and_then(YamlNode::items)
        .unwrap_or_default()
        .iter()
        .filter(|f| {
            m.auto_select
                .as_deref()
                .is_none_or(|k| f.get(k).and_then(YamlNode::as_bool) == Some(true))
        })
        .filter_map(|f| Some(Str::from(f.get("name")?.as_str()?)))
        .collect()
}

/// The one object `r` resolves to among `all`: by name, else the one object that offers
/// the format. `None` when none is in the run, or several that differ.
fn resolve<'a>(r: &MergeRef, all: &'a [Workload]) -> Option<&'a Workload> {
    let of_kind = |w: &&Workload| r.kinds.contains(&w.kind);
    let found: Vec<&Workload> = match &r.name {
        Some(name) => all
            .iter()
            .filter(of_kind)
            .filter(|w| w.name.as_ref() == Some(name))
            .collect(),
        None => {
            let format = r.format.as_ref()?;
            all.iter()
                .filter(of_kind)
                .filter(|w| w.offers.contains(format))
                .collect()
        }
    };
    // Copies of one runtime (in several folders) agree on what is merged.
    let what = |w: &Workload| {
        let c = w.pods.first().and_then(|p| p.containers.first());
        let known = |v: &Value<Str>| v.known().cloned();
        c.map(|c| {
            (
                c.image.clone(),
                known(&c.cpu_request),
                known(&c.memory_request),
            )
        })
    };
    let first = *found.first()?;
    found
        .iter()
        .all(|w| what(w) == what(first))
        .then_some(first)
}

/// Merges the objects each workload refers to into its pods, as the operator does: the
/// merged object's first container under the workload's own (what the workload writes
/// wins), its volumes beside the workload's. A reference to an object not in the run
/// leaves what that object would give unknown: the CPU and memory requests, and
/// `/dev/shm`. Each workload is also given the autoscaler of the run that targets it.
pub fn merge_referenced(inv: &mut Inventory) {
    resolve_claims(inv);
    crate::scalers::link(inv);
    let plans: Vec<(usize, Option<PodShape>)> = inv
        .workloads
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let r = w.merge.as_ref()?;
            let from = resolve(r, &inv.workloads).and_then(|t| {
                let by_group = r
                    .pod
                    .as_ref()
                    .and_then(|g| t.pods.iter().find(|p| p.group == *g));
                by_group.or_else(|| t.pods.first()).cloned()
            });
            Some((i, from))
        })
        .collect();
    for (i, from) in plans {
        let w = &mut inv.workloads[i];
        let Some(r) = w.merge.as_deref() else {
            continue;
        };
        let (at, what) = (r.span.clone(), r.what);
        for pod in &mut w.pods {
            let Some(from) = &from else {
                // Not in the run: what it gives is unknown, never missing.
                for c in &mut pod.containers {
                    if c.cpu_request == Value::Absent {
                        c.cpu_request = Value::Unknown(at.clone());
                    }
                    if c.memory_request == Value::Absent {
                        c.memory_request = Value::Unknown(at.clone());
                    }
                }
                pod.shm_by.get_or_insert(what);
                continue;
            };
            // What the pod leaves out, the merged pod gives: its GPUs, its count, how it
            // is placed and wired.
            if pod.gpus == Value::Absent {
                pod.gpus.clone_from(&from.gpus);
            }
            if pod.replicas == Value::Absent {
                pod.replicas.clone_from(&from.replicas);
            }
            if pod.fabric.is_none() {
                pod.fabric.clone_from(&from.fabric);
            }
            if pod.tolerations.is_empty() {
                pod.tolerations.clone_from(&from.tolerations);
            }
            if pod.requirements.is_empty() {
                pod.requirements.clone_from(&from.requirements);
            }
            if pod.launcher.is_none() {
                pod.launcher.clone_from(&from.launcher);
            }
            pod.shm_by = pod.shm_by.or(from.shm_by);
            for v in &from.volumes {
                if !pod.volumes.iter().any(|x| x.name == v.name) {
                    pod.volumes.push(v.clone());
                }
            }
            let Some(base) = from.containers.first() else {
                continue;
            };
            if pod.containers.is_empty() {
                pod.containers.push(base.clone());
                continue;
            }
            let c = &mut pod.containers[0];
            if c.cpu_request == Value::Absent {
                c.cpu_request = base.cpu_request.clone();
            }
            if c.memory_request == Value::Absent {
                c.memory_request = base.memory_request.clone();
            }
            if c.gpus == Value::Absent {
                c.gpus = base.gpus.clone();
            }
            if c.image.is_none() {
                c.image.clone_from(&base.image);
            }
            if c.argv.is_empty() {
                c.argv.clone_from(&base.argv);
            }
            for m in &base.mounts {
                if !c.mounts.iter().any(|x| x.path == m.path) {
                    c.mounts.push(m.clone());
                }
            }
            for e in &base.env {
                if !c.env.iter().any(|x| x.0 == e.0) {
                    c.env.push(e.clone());
                }
            }
            c.listens |= base.listens;
            if pod.serving.is_none() {
                pod.serving.clone_from(&from.serving);
            }
        }
    }
}

/// Gives pods that claim GPUs through DRA their GPUs: each claim the pod names whose
/// template or claim in the run asks for GPUs, summed, on the pod and on the containers
/// that use the claim. A claim not in the run is not counted (it may be any device).
fn resolve_claims(inv: &mut Inventory) {
    if inv.gpu_claims.is_empty() {
        return;
    }
    let claims = std::mem::take(&mut inv.gpu_claims);
    for pod in inv.workloads.iter_mut().flat_map(|w| &mut w.pods) {
        if pod.claims.is_empty() || pod.gpus != Value::Absent {
            continue;
        }
        let mut total: Option<(GpuRequest, gpulint_model::Span)> = None;
        for r in &pod.claims {
            let Some(c) = claims
                .iter()
                .find(|c| c.claim == r.claim && c.name == r.target)
            else {
                continue;
            };
            for container in &mut pod.containers {
                if container.claims.contains(&r.name) && container.gpus == Value::Absent {
                    container.gpus = Value::Known(c.gpus.clone(), r.span.clone());
                }
            }
            add_gpus(&mut total, c.gpus.clone(), r.span.clone());
        }
        if let Some((g, sp)) = total {
            pod.gpus = Value::Known(g, sp);
        }
    }
    inv.gpu_claims = claims;
}

#[cfg(test)]
mod tests {
    use crate::tests::lower_text;
    use gpulint_model::{Str, Value};

    const RUNTIME: &str = "
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: { name: torch-8gpu }
spec:
  template:
    spec:
      replicatedJobs:
        - name: dataset-initializer
          template:
            spec:
              template:
                spec:
                  containers: [{ name: init, image: ghcr.io/kubeflow/trainer/dataset-initializer }]
        - name: node
          template:
            spec:
              template:
                spec:
                  tolerations: [{ key: nvidia.com/gpu, operator: Exists }]
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.7.1
                      resources:
                        requests: { cpu: '32', memory: 256Gi }
                        limits: { nvidia.com/gpu: 8 }
---
";

    #[test]
    fn a_train_job_takes_its_runtimes_node_job() {
        let mut inv = lower_text(&format!(
            "{RUNTIME}apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {{ name: tune }}
spec:
  runtimeRef: {{ name: torch-8gpu }}
  trainer:
    numNodes: 2
    command: [torchrun, train.py]
"
        ));
        super::merge_referenced(&mut inv);
        let job = &inv.workloads[1];
        assert_eq!(job.read_by, Some("Kubeflow Trainer"));
        let pod = &job.pods[0];
        // The node job, not the initializer: its GPUs, requests, image and tolerations.
        assert_eq!(pod.gpus.known().map(|g| g.count), Some(8));
        assert_eq!(pod.replicas.known(), Some(&2));
        assert_eq!(pod.tolerations.len(), 1);
        let c = &pod.containers[0];
        assert_eq!(c.image.as_deref(), Some("pytorch/pytorch:2.7.1"));
        assert_eq!(c.cpu_request.known().map(Str::as_str), Some("32"));
        // What the TrainJob writes wins.
        assert_eq!(c.argv.first().map(|(s, _)| s.as_str()), Some("torchrun"));
    }

    #[test]
    fn a_preset_not_in_the_run_leaves_requests_unknown() {
        let mut inv = lower_text(
            "apiVersion: llm-d.ai/v1alpha1
kind: ModelService
metadata: { name: llama }
spec:
  baseConfigMapRef: { name: basic-gpu-preset }
  decode:
    replicas: 1
    containers:
      - name: vllm
        resources: { limits: { nvidia.com/gpu: 1 } }
",
        );
        super::merge_referenced(&mut inv);
        let w = &inv.workloads[0];
        assert_eq!(w.read_by, Some("llm-d ModelService"));
        let c = &w.pods[0].containers[0];
        assert!(matches!(c.cpu_request, Value::Unknown(_)));
        assert!(matches!(c.memory_request, Value::Unknown(_)));
        assert_eq!(w.pods[0].shm_by, Some("its base preset"));
    }

    #[test]
    fn an_argo_workflow_step_is_read() {
        let inv = lower_text(
            "apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: { generateName: train- }
spec:
  entrypoint: train
  templates:
    - name: train
      container:
        image: nvcr.io/nvidia/pytorch:24.05-py3
        command: [torchrun, --nproc_per_node=4, train.py]
        resources: { limits: { nvidia.com/gpu: 4 } }
",
        );
        let w = &inv.workloads[0];
        assert_eq!(w.read_by, Some("Argo Workflows"));
        assert_eq!(w.pods[0].gpus.known().map(|g| g.count), Some(4));
    }
}
