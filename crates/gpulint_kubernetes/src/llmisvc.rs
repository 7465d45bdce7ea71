//! KServe's `LLMInferenceService`: its controller runs vLLM (llm-d) in the pods of a
//! decode stage and, with `prefill`, of a prefill stage. A stage is `replicas` copies
//! (default 1) of its `template` pod, or, with a `worker`, of a LeaderWorkerSet group
//! whose leader is the template and whose size comes from `parallelism` the way KServe
//! computes it: `data / dataLocal` when data parallel, else `pipeline`.
//!
//! The controller starts vLLM with the model of `spec.model` and the parallelism, and
//! appends the main container's `args` and `VLLM_ADDITIONAL_ARGS`: all are read.

use super::engines::vllm;
use super::pods::pod;
use super::{count, span};
use gpulint_model::{PodShape, Serving, Span, Str, Value};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

/// The pods of every stage, and the size of the first LeaderWorkerSet group that spans
/// more than one pod.
pub(super) fn lower(
    file: FileId,
    spec: &YamlNode,
    annotations: Option<&YamlNode>,
) -> (Vec<PodShape>, Option<(u32, Span)>) {
    let model = model(file, spec);
    let mut pods = Vec::new();
    let mut group = None;
    let stages = [(Some(spec), ""), (spec.get("prefill"), "prefill.")];
    for (stage, prefix) in stages {
        let Some(stage) = stage else { continue };
        let Some(template) = stage.get("template") else {
            continue;
        };
        let replicas = stage
            .get("replicas")
            .map_or(Value::Known(1, span(file, stage)), |n| count(file, n));
        let par = Parallelism::read(file, stage.get("parallelism"));
        let worker = stage.get("worker");
        let size = worker.and(par.group_size());
        let mut leader = pod(
            file,
            format!("{prefix}template"),
            template,
            replicas.clone(),
            annotations,
        );
        leader.serving = Some(Box::new(serving(
            &leader,
            model.as_ref(),
            &par,
            worker.is_none(),
        )));
        if let Some(worker) = worker {
            let mut w = pod(
                file,
                format!("{prefix}worker"),
                worker,
                Value::Unknown(span(file, worker)),
                annotations,
            );
            // Each group holds `size − 1` workers beside its leader.
            if let (Value::Known(r, _), Some(Value::Known(n, sp))) = (&replicas, &size) {
                w.replicas = Value::Known(r.saturating_mul(n.saturating_sub(1)), sp.clone());
            }
            w.serving = Some(Box::new(serving(&w, model.as_ref(), &par, false)));
            if let Some(Value::Known(n, sp)) = &size
                && *n > 1
                && group.is_none()
            {
                group = Some((*n, sp.clone()));
            }
            pods.push(leader);
            pods.push(w);
        } else {
            pods.push(leader);
        }
    }
    (pods, group)
}

/// `spec.model`: a Hugging Face `uri` names the weights; else the served `name`.
fn model(file: FileId, spec: &YamlNode) -> Option<(String, Span)> {
    let m = spec.get("model")?;
    let uri = m.get("uri").and_then(|u| {
        let id = u.as_str()?.strip_prefix("hf://")?;
        Some((id.to_string(), span(file, u)))
    });
    uri.or_else(|| {
        let n = m.get("name")?;
        Some((n.as_str()?.to_string(), span(file, n)))
    })
}

struct Parallelism {
    tensor: Option<Value<u32>>,
    pipeline: Option<Value<u32>>,
    data: Option<Value<u32>>,
    data_local: Option<Value<u32>>,
}

impl Parallelism {
    fn read(file: FileId, p: Option<&YamlNode>) -> Self {
        let get = |k: &str| p.and_then(|p| p.get(k)).map(|n| count(file, n));
        Parallelism {
            tensor: get("tensor"),
            pipeline: get("pipeline"),
            data: get("data"),
            data_local: get("dataLocal"),
        }
    }

    /// Pods in one group, as KServe's `ParallelismSpec.GetSize`: `None` when it sets no
    /// size (one pod), `Unknown` when a count it needs is a placeholder.
    fn group_size(&self) -> Option<Value<u32>> {
        let known = |v: &Option<Value<u32>>| v.as_ref().and_then(Value::known).copied();
        let span_of = |v: &Option<Value<u32>>| v.as_ref().and_then(Value::span).cloned();
        if self.data.is_some() || self.data_local.is_some() {
            let at = span_of(&self.data).or_else(|| span_of(&self.data_local))?;
            let size = |d: Option<u32>, l: Option<u32>| {
                (d.unwrap_or(1).max(1) / l.unwrap_or(1).max(1)).max(1)
            };
            let (d, l) = (known(&self.data), known(&self.data_local));
            let unknown = self.data.as_ref().is_some_and(Value::is_unknown)
                || self.data_local.as_ref().is_some_and(Value::is_unknown);
            return Some(if unknown {
                Value::Unknown(at)
            } else {
                Value::Known(size(d, l), at)
            });
        }
        self.pipeline.clone()
    }
}

/// vLLM as the controller starts it in `pod`: its own flags first, then the parallelism
/// the spec sets. Data-parallel ranks in one pod: `dataLocal`, or `data` when the stage
/// is a single pod.
fn serving(
    pod: &PodShape,
    model: Option<&(String, Span)>,
    par: &Parallelism,
    single_pod: bool,
) -> Serving {
    let main = pod
        .containers
        .iter()
        .find(|c| c.name == "main")
        .or(pod.containers.first());
    let mut argv: Vec<(Str, Span)> = main.map(|c| c.argv.clone()).unwrap_or_default();
    if let Some((v, sp)) = main.and_then(|c| c.env_var("VLLM_ADDITIONAL_ARGS")) {
        argv.extend(v.split_whitespace().map(|w| (w.into(), sp.clone())));
    }
    let mut s = vllm(
        &argv,
        main.map_or_else(|| pod.span.clone(), |c| c.span.clone()),
    );
    s.model = s.model.or_else(|| model.cloned());
    let data = par
        .data_local
        .as_ref()
        .or(par.data.as_ref().filter(|_| single_pod));
    for (flag, v) in [
        (&mut s.tp, par.tensor.as_ref()),
        (&mut s.pp, par.pipeline.as_ref()),
        (&mut s.dp, data),
    ] {
        match (&flag, v) {
            (None, Some(Value::Known(n, sp))) => *flag = Some((*n, sp.clone())),
            (None, Some(Value::Unknown(sp))) => s.unknown.push(sp.clone()),
            _ => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use crate::tests::lower_text;

    #[test]
    fn stages_groups_and_parallelism() {
        let inv = lower_text(
            r#"
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: ds
spec:
  model:
    uri: hf://deepseek-ai/DeepSeek-R1
    name: deepseek
  replicas: 3
  parallelism: { tensor: 1, data: 32, dataLocal: 8 }
  template:
    containers:
      - name: main
        env:
          - { name: VLLM_ADDITIONAL_ARGS, value: "--max-model-len 8192 --gpu-memory-utilization 0.95" }
        resources: { limits: { nvidia.com/gpu: 8 } }
  worker:
    containers:
      - name: main
        resources: { limits: { nvidia.com/gpu: 8 } }
  prefill:
    replicas: 2
    parallelism: { tensor: $TP }
    template:
      containers:
        - name: main
          resources: { limits: { nvidia.com/gpu: 4 } }
"#,
        );
        let w = &inv.workloads[0];
        let groups: Vec<(&str, Option<&u32>)> = w
            .pods
            .iter()
            .map(|p| (p.group.as_str(), p.replicas.known()))
            .collect();
        // Groups of 32 / 8 = 4 pods: a leader and 3 workers in each of 3 replicas.
        assert_eq!(
            groups,
            [
                ("template", Some(&3)),
                ("worker", Some(&9)),
                ("prefill.template", Some(&2)),
            ]
        );
        assert_eq!(w.spans.as_ref().map(|s| (s.pods, s.exact)), Some((4, true)));
        let s = w.pods[0].serving.as_ref().unwrap();
        assert_eq!(s.model.as_ref().unwrap().0, "deepseek-ai/DeepSeek-R1");
        assert_eq!(s.tp.as_ref().map(|t| t.0), Some(1));
        assert_eq!(s.dp.as_ref().map(|t| t.0), Some(8));
        assert_eq!(s.max_model_len.as_ref().map(|t| t.0), Some(8192));
        assert_eq!(w.pods[0].shm_by, Some("KServe"));
        // A placeholder tensor size leaves the prefill engine unsized.
        let prefill = w.pods[2].serving.as_ref().unwrap();
        assert!(prefill.tp.is_none() && prefill.unknown.len() == 1);
    }
}
