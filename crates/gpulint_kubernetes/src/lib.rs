//! gpulint_kubernetes: Kubernetes manifests to the model. Workloads of every kind with a pod template (core kinds, Kubeflow
//! PyTorchJob/TFJob/MPIJob/TrainJob, JobSet, LeaderWorkerSet, Ray, KServe, Volcano, and
//! anything else, found by a generic pod-spec search), read through the operator table
//! (roles, pods that work together, merges, container-like specs), the serving engines and
//! training launchers their containers run, and Karpenter NodePools as capacity.
//! eksctl cluster configs are read here too, since they are YAML documents with a `kind`.
//!
//! May use: gpulint_source, gpulint_facts (Kubernetes names, operator kinds, workload
//! signatures, instance types), gpulint_syntax (YAML trees), gpulint_model (the
//! inventory, and intent for roles) and gpulint_fit (the model names engines serve).

mod eksctl;
mod engines;
pub use engines::tensor_parallel_in;
mod karpenter;
mod llmisvc;
mod pods;
mod ray;
mod role;
mod scalers;
mod script;
pub use script::{is_image, is_runtime, script_commands, script_serving};
mod simulated;
mod translate;

use gpulint_facts::operators::{Ends, Operator, operator};
use gpulint_model::{
    Engine, GpuRequest, Inventory, LimitProblem, PodShape, Role, Span, Spread, Str, Taint, Value,
    Volume, VolumeSource, Workload,
};
use gpulint_source::limits::Limits;
use gpulint_source::{FileId, SourceFile};
use gpulint_syntax::yaml::{YamlDoc, YamlNode};
use karpenter::karpenter_node_pool;
use pods::{kaito_pod, merge_train_job_patches, pod, spec_pod, train_job_pod};

mod merge;
mod search;
pub use merge::merge_referenced;
use search::{find_pods, leader_worker_counts};

/// Lowers the documents of `source`, the file `file`.
pub fn lower(
    file: FileId,
    source: &SourceFile,
    docs: &[YamlDoc],
    limits: &Limits,
    out: &mut Inventory,
) {
    for doc in docs {
        lower_object(file, source, &doc.root, limits, out);
    }
}

fn text(node: &YamlNode, key: &str) -> Option<String> {
    node.get(key).and_then(YamlNode::as_str).map(str::to_string)
}

/// [`text`], inline when short: for the model's many small strings.
fn word(node: &YamlNode, key: &str) -> Option<Str> {
    node.get(key).and_then(YamlNode::as_str).map(Str::from)
}

/// A map of node labels as written: key, value and the value's span. Entries whose key or
/// value is not a string are left out.
fn labels(file: FileId, map: Option<&YamlNode>) -> Vec<(Str, Str, Span)> {
    map.and_then(YamlNode::entries)
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?.into(), v.as_str()?.into(), span(file, v))))
        .collect()
}

/// Node taints as written: a list of `{key, value, effect}` (Karpenter, eksctl), or
/// eksctl's older map of `key: value:Effect`.
fn taints(file: FileId, node: Option<&YamlNode>) -> Vec<Taint> {
    if let Some(items) = node.and_then(YamlNode::items) {
        return items
            .iter()
            .filter_map(|t| {
                Some(Taint::new(
                    text(t, "key")?,
                    text(t, "value"),
                    &text(t, "effect")?,
                    span(file, t),
                ))
            })
            .collect();
    }
    node.and_then(YamlNode::entries)
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| {
            Taint::parse(&format!("{}={}", k.as_str()?, v.as_str()?), span(file, v))
        })
        .collect()
}

fn span(file: FileId, n: &YamlNode) -> Span {
    Span::new(file, n.span.clone())
}

/// A count written at `n`: known when it is a whole number, saturated at `u32::MAX` (a
/// count past four billion is as good as endless, and still a count); else unknown.
fn count(file: FileId, n: &YamlNode) -> Value<u32> {
    count_u64(file, n).map(|r| u32::try_from(r).unwrap_or(u32::MAX))
}

/// [`count`] for the counts the model keeps as `u64` (node groups' sizes).
fn count_u64(file: FileId, n: &YamlNode) -> Value<u64> {
    match n.as_u64() {
        Some(r) => Value::Known(r, span(file, n)),
        None => Value::Unknown(span(file, n)),
    }
}

/// One manifest (a YAML document, or one written inside Terraform), with spans in `source`.
/// YAML written in its strings (a RayService's `serveConfigV2`) is read within `limits`.
pub fn lower_object(
    file: FileId,
    source: &SourceFile,
    obj: &YamlNode,
    limits: &Limits,
    out: &mut Inventory,
) {
    let Some(kind) = obj.get("kind").and_then(YamlNode::as_str) else {
        return;
    };
    if kind == "List" {
        for item in obj
            .get("items")
            .and_then(YamlNode::items)
            .unwrap_or_default()
        {
            lower_object(file, source, item, limits, out);
        }
        return;
    }
    let api = obj
        .get("apiVersion")
        .and_then(YamlNode::as_str)
        .unwrap_or_default();
    if kind == "NodePool" && api.starts_with("karpenter.sh/") {
        out.capacity.push(karpenter_node_pool(file, obj));
        return;
    }
    if kind == "ClusterConfig" && api.starts_with("eksctl.io/") {
        out.capacity.extend(eksctl::node_groups(file, obj));
        return;
    }
    if let Some(scaler) = scalers::read(file, obj, kind, api) {
        out.scalers.push(scaler);
        return;
    }
    if matches!(kind, "ResourceClaimTemplate" | "ResourceClaim")
        && api.starts_with("resource.k8s.io/")
    {
        out.gpu_claims
            .extend(pods::gpu_claim(file, obj, kind == "ResourceClaimTemplate"));
        return;
    }
    // A name Kubernetes generates is shown by its prefix: `sample-job-*`.
    let name = obj
        .path(&["metadata", "name"])
        .and_then(YamlNode::as_str)
        .map(str::to_string)
        .or_else(|| {
            obj.path(&["metadata", "generateName"])
                .and_then(YamlNode::as_str)
                .map(|g| format!("{g}*"))
        });
    let annotations = obj.path(&["metadata", "annotations"]);
    let mut pods = Vec::new();
    // The size of a group of pods that serve or train together (a LeaderWorkerSet).
    let mut group = None;
    if kind == "Pod" {
        if let Some(spec) = obj.get("spec") {
            let mut p = pod(file, "spec".into(), spec, Value::Absent, annotations);
            pods::signals(file, &mut p, spec, Some(obj));
            pods.push(p);
        }
    } else if kind == "Workspace" && api.starts_with("kaito.sh/") {
        pods.extend(kaito_pod(file, obj));
    } else if kind == "LLMInferenceService" && api.starts_with("serving.kserve.io/") {
        if let Some(spec) = obj.get("spec") {
            let (p, size) = llmisvc::lower(file, spec, annotations);
            pods = p;
            group = size;
        }
    } else if let Some(spec) = obj.get("spec") {
        find_pods(file, spec, "spec", &mut Vec::new(), annotations, &mut pods);
        if kind == "TrainJob"
            && let Some(trainer) = spec.get("trainer")
        {
            let mut p = train_job_pod(file, trainer, annotations);
            merge_train_job_patches(file, spec, &mut p, &mut pods);
            pods.push(p);
        }
    }
    let op = operator(kind, api);
    if pods.is_empty()
        && let Some(o) = op
        && let Some(row) = &o.spec_pod
    {
        pods.extend(spec_pod(file, obj, row, o.name.as_str(), annotations));
        if let Some((n, sp)) = row
            .group_size
            .iter()
            .find_map(|p| obj.path(p))
            .and_then(|n| match count(file, n) {
                Value::Known(n, sp) => Some((n, sp)),
                _ => None,
            })
        {
            group = Some((n, sp));
        }
    }
    if pods.is_empty() {
        return;
    }
    // Claim templates are volumes of every pod, by their names: a StatefulSet's, and a
    // JobSet's `volumeClaimPolicies` (also inside a Kubeflow training runtime's JobSet).
    let policies = [
        obj.path(&["spec", "volumeClaimPolicies"]),
        obj.path(&["spec", "template", "spec", "volumeClaimPolicies"]),
    ];
    let claim_templates = obj
        .path(&["spec", "volumeClaimTemplates"])
        .and_then(YamlNode::items)
        .unwrap_or_default()
        .iter()
        .chain(
            policies
                .into_iter()
                .flatten()
                .flat_map(|p| p.items().unwrap_or_default())
                .flat_map(|p| {
                    p.get("templates")
                        .and_then(YamlNode::items)
                        .unwrap_or_default()
                }),
        );
    for t in claim_templates {
        let Some(name) = t.path(&["metadata", "name"]).and_then(YamlNode::as_str) else {
            continue;
        };
        for p in &mut pods {
            p.volumes.push(Volume {
                name: name.into(),
                source: VolumeSource::PersistentClaim(name.to_string()),
                span: span(file, t),
            });
        }
    }
    if let Some(c) = op.filter(|o| o.mounts_shm) {
        for p in &mut pods {
            p.shm_by = Some(c.name.as_str());
        }
    }
    if kind == "LeaderWorkerSet" {
        group = leader_worker_counts(file, obj, &mut pods);
    }
    let (mut ends, hits) = ray::lower(file, source, obj, kind, api, limits, &mut pods);
    out.limits.extend(
        hits.iter()
            .map(|hit| LimitProblem::in_file(&source.name, file, hit, limits)),
    );
    let mut lingering = Vec::new();
    // A core Job ends when its pods do, or at its deadline.
    if kind == "Job" && api.starts_with("batch/") {
        ends = job_deadline(file, obj);
    }
    if let Some(e) = op.and_then(|o| o.ends.as_ref()) {
        lingering = e.lingering.iter().map(Str::from).collect();
        ends = clean_policy(file, obj, e);
    }
    let (role, benchmark) = role::role(file, obj, kind, op, &pods);
    if role.known() == Some(&Role::Training) {
        // An engine inside a training job does rollouts or evaluation (verl, NeMo-RL):
        // it is not a server to size. Hints still stand.
        for p in &mut pods {
            p.serving.take_if(|s| s.engine != Engine::Hint);
        }
    }
    out.workloads.push(Workload {
        subject: format!("{kind}/{}", name.as_deref().unwrap_or("(unnamed)")),
        kind: kind.into(),
        name: name.map(Str::from),
        span: span(file, obj),
        spans: spans(op, group, &pods),
        read_by: op.map(|o| o.name.as_str()),
        standing: op.is_some_and(|o| o.standing)
            || (STANDING.contains(&kind) && (api == "v1" || api == "apps/v1")),
        session: op.and_then(|o| o.session.as_deref()),
        simulated: simulated::sign(obj, 0),
        lingering,
        merge: op
            .and_then(|o| merge::reference(file, obj, o))
            .map(Box::new),
        offers: merge::offers(obj, kind, api),
        benchmark,
        role,
        pods,
        ends,
        scaled_by: None,
    });
}

/// Kubernetes' core kinds whose pods run until someone deletes them.
const STANDING: [&str; 5] = [
    "Pod",
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
    "DaemonSet",
];

/// Whether a Job ends at a deadline whatever its pods do: `activeDeadlineSeconds` written
/// (a placeholder is unknown), else `false` at the spec's first key.
fn job_deadline(file: FileId, obj: &YamlNode) -> Value<bool> {
    let Some(spec) = obj.get("spec") else {
        return Value::Absent;
    };
    match spec.get("activeDeadlineSeconds") {
        Some(n) if n.as_u64().is_some() => Value::Known(true, span(file, n)),
        Some(n) => Value::Unknown(span(file, n)),
        None => Value::Known(false, first_key(file, spec)),
    }
}

/// Where a setting missing from a map would go: its first key (the map itself when it
/// is empty or no map), a line, not the whole block.
fn first_key(file: FileId, map: &YamlNode) -> Span {
    map.entries()
        .and_then(|e| e.first().map(|(k, _)| span(file, k)))
        .unwrap_or_else(|| span(file, map))
}

/// Whether the work's lingering pods go when it is done: the policy as written (a
/// placeholder is unknown), else the operator's default, pointing at the object.
fn clean_policy(file: FileId, obj: &YamlNode, e: &Ends) -> Value<bool> {
    let written = e.policy.iter().find_map(|p| obj.path(p));
    match written {
        Some(n) => match n.as_str() {
            Some(v) if v.contains("{{") || v.starts_with('$') => Value::Unknown(span(file, n)),
            Some(v) => Value::Known(e.ends_with.iter().any(|x| x == v), span(file, n)),
            None => Value::Unknown(span(file, n)),
        },
        // Where the policy would go: the spec's first key.
        None => Value::Known(
            e.ends_with.contains(&e.default),
            first_key(file, obj.get("spec").unwrap_or(obj)),
        ),
    }
}

/// How many pods one run of the work spreads over when they must talk across nodes: a
/// launcher's `--nnodes` over 1, a LeaderWorkerSet group of several pods, an engine whose
/// parallel size is above its pod's GPUs and that places ranks in other pods (at least 2),
/// or the GPU pods of an operator's distributed kind, 2 or more GPUs each, two or more in
/// all (a group whose count is a placeholder counts as at least one). `None` when it does not, or a count it would need
/// is unknown.
fn spans(
    op: Option<&Operator>,
    lws_group: Option<(u32, Span)>,
    pods: &[PodShape],
) -> Option<Spread> {
    let distributed = op.is_some_and(|o| o.distributed);
    let engines_span = op.is_some_and(|o| o.engines_span_pods);
    let exact = |pods: u32, span: Span| Spread {
        pods,
        exact: true,
        stated: true,
        span,
    };
    if let Some(l) = pods
        .iter()
        .filter_map(|p| p.launcher.as_ref())
        .find(|l| l.nnodes > Some(1))
    {
        return Some(exact(l.nnodes?, l.span.clone()));
    }
    if let Some((n, sp)) = lws_group {
        return (n > 1).then(|| exact(n, sp));
    }
    // An engine that places its ranks in other pods (SGLang `--nnodes $(GROUP_SIZE)`, vLLM
    // on a Ray cluster) whose parallel size is more than its pod's GPUs: at least 2 pods.
    if let Some(sp) = pods.iter().find_map(|p| {
        let s = p.serving.as_deref()?;
        let sign = match &s.spans_pods {
            Some((_, sign)) => sign,
            None if engines_span => &s.span,
            None => return None,
        };
        let size =
            (s.tp.as_ref().map_or(1, |t| t.0)).saturating_mul(s.pp.as_ref().map_or(1, |t| t.0));
        let per_pod = p.gpus.known().and_then(GpuRequest::exact_count);
        per_pod.is_some_and(|g| size > g).then(|| sign.clone())
    }) {
        return Some(Spread {
            pods: 2,
            exact: false,
            stated: true,
            span: sp,
        });
    }

    // A plain Job's pods may be independent tasks: only a launcher, or an operator whose
    // pods work together, says they talk.
    if !distributed {
        return None;
    }
    let gpu_pods: Vec<&PodShape> = pods
        .iter()
        .filter(|p| p.gpus.known().is_some_and(|g| g.count > 0))
        .collect();
    let (mut total, mut all_exact) = (0u32, true);
    for p in &gpu_pods {
        if p.gpus
            .known()
            .and_then(GpuRequest::exact_count)
            .is_none_or(|n| n < 2)
        {
            return None;
        }
        let (n, exact) = p.replicas_at_least();
        total = total.saturating_add(n);
        all_exact &= exact;
    }
    let first = gpu_pods.first()?;
    (total > 1).then(|| Spread {
        pods: total,
        exact: all_exact,
        stated: false,
        span: first
            .gpus
            .span()
            .cloned()
            .unwrap_or_else(|| first.span.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_model::{Market, VolumeSource};
    use gpulint_source::{FileKind, SourceFile};
    use gpulint_syntax::yaml;

    /// The inventory of one YAML text, for the lowerer's tests (here and in its modules).
    pub(super) fn lower_text(text: &str) -> Inventory {
        let f = SourceFile::new("t.yaml".into(), None, FileKind::Yaml, text.into(), true);
        let s = yaml::parse(&f);
        assert!(s.error.is_none(), "{:?}", s.error);
        let mut out = Inventory::default();
        lower(FileId(0), &f, &s.docs, &Limits::default(), &mut out);
        out
    }

    #[test]
    fn deployment_pod_shape() {
        let inv = lower_text(
            r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: 2
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
        cloud.google.com/gke-spot: "true"
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.3
          command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
          args: ["--tensor-parallel-size=2", "--max-model-len", "8192"]
          resources:
            requests: { cpu: "8", memory: 32Gi }
            limits: { nvidia.com/gpu: 2 }
          volumeMounts: [{ name: shm, mountPath: /dev/shm }]
      volumes:
        - name: shm
          emptyDir: { medium: Memory }
"#,
        );
        let w = &inv.workloads[0];
        assert_eq!(w.subject, "Deployment/vllm");
        assert_eq!(w.role.known(), Some(&Role::Inference));
        let p = &w.pods[0];
        assert_eq!(p.replicas.known(), Some(&2));
        assert_eq!(p.gpus.known().map(|g| g.count), Some(2));
        assert_eq!(p.selection.gpus.as_ref().unwrap().0[0].id, "l4");
        assert_eq!(p.selection.market.as_ref().unwrap().0, Market::Spot);
        let s = p.serving.as_ref().unwrap();
        assert_eq!(s.engine, Engine::Vllm);
        assert_eq!(
            s.model.as_ref().unwrap().0,
            "meta-llama/Llama-3.1-8B-Instruct"
        );
        assert_eq!(s.tp.as_ref().unwrap().0, 2);
        assert_eq!(s.max_model_len.as_ref().unwrap().0, 8192);
        assert_eq!(p.volumes[0].source, VolumeSource::EmptyDir { memory: true });
    }

    #[test]
    fn crds_are_found_by_their_pod_templates() {
        let inv = lower_text(
            r#"
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: { name: finetune }
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              command: ["sh", "-c", "torchrun --nnodes 3 --nproc_per_node=8 train.py"]
              resources: { limits: { nvidia.com/gpu: 8 } }
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              resources: { limits: { nvidia.com/gpu: 8 } }
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: { name: ray }
spec:
  headGroupSpec:
    template: { spec: { containers: [{ name: head }] } }
  workerGroupSpecs:
    - groupName: gpu
      maxReplicas: 4
      template: { spec: { containers: [{ name: w, resources: { limits: { nvidia.com/gpu: 1 } } }] } }
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: llama
  annotations: { gpulint.dev/params: 70B }
spec:
  predictor:
    model:
      modelFormat: { name: huggingface }
      args: ["--model_id=meta-llama/Llama-3.1-70B-Instruct"]
      resources: { limits: { nvidia.com/gpu: 4 } }
"#,
        );
        let job = &inv.workloads[0];
        assert_eq!(job.role.known(), Some(&Role::Training));
        assert_eq!(job.pods.len(), 2);
        assert_eq!(job.pods[0].group, "Master");
        assert_eq!(job.pods[1].replicas.known(), Some(&2));
        let l = job.pods[0].launcher.as_ref().unwrap();
        assert_eq!((l.nnodes, l.nproc_per_node), (Some(3), Some(8)));
        let ray = &inv.workloads[1];
        assert_eq!(ray.pods.len(), 2);
        assert_eq!(ray.pods[1].group, "gpu");
        assert_eq!(ray.pods[1].replicas.known(), Some(&4));
        let isvc = &inv.workloads[2];
        assert_eq!(isvc.role.known(), Some(&Role::Inference));
        assert_eq!(isvc.pods[0].gpus.known().map(|g| g.count), Some(4));
        assert!(
            (isvc.pods[0]
                .serving
                .as_ref()
                .unwrap()
                .params
                .as_ref()
                .unwrap()
                .0
                - 70e9)
                .abs()
                < 1.0
        );
    }

    #[test]
    fn train_jobs_count_gpus_per_node() {
        let inv = lower_text(
            r#"
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: { name: sft }
spec:
  trainer:
    numNodes: 2
    image: ghcr.io/acme/train:1.0
    command: ["torchrun", "--nproc_per_node=8", "train.py"]
    resourcesPerNode:
      limits: { nvidia.com/gpu: 8 }
"#,
        );
        let w = &inv.workloads[0];
        assert_eq!(w.role.known(), Some(&Role::Training));
        let p = &w.pods[0];
        assert_eq!(p.group, "trainer");
        assert_eq!(p.replicas.known(), Some(&2));
        assert_eq!(p.gpus.known().map(|g| g.count), Some(8));
        assert_eq!(p.launcher.as_ref().unwrap().nproc_per_node, Some(8));
    }

    #[test]
    fn karpenter_node_pools_are_capacity() {
        let inv = lower_text(
            r#"
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: { name: gpu-spot }
spec:
  template:
    metadata:
      labels: { workload: inference }
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot"]
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g6e"]
"#,
        );
        let c = &inv.capacity[0];
        assert_eq!(c.subject, "NodePool/gpu-spot");
        assert_eq!(c.market.known(), Some(&Market::Spot));
        assert!(c.gpu_machines().unwrap().0.len() >= 6);
        assert_eq!(c.role.known(), Some(&Role::Inference));
        assert!(
            c.labels
                .iter()
                .any(|(k, v, _)| k == "karpenter.sh/nodepool" && v == "gpu-spot")
        );
    }

    /// Role and evidence of each workload: (subject, role, reason).
    fn roles(inv: &Inventory) -> Vec<(String, Option<Role>, Option<String>)> {
        inv.workloads
            .iter()
            .map(|w| (w.subject.clone(), w.role.known().copied(), w.role.reason()))
            .collect()
    }

    #[test]
    fn roles_come_from_every_signal_a_reviewer_reads_with_evidence() {
        let inv = lower_text(
            r#"
kind: Job
metadata: { name: nightly }
spec:
  template:
    spec:
      containers:
        - image: nvcr.io/nvidia/pytorch:24.05-py3
          command: ["bash", "-c", "cd /workspace&&python pretrain.py; echo done \\\\\n"]
          resources: { limits: { nvidia.com/gpu: 8 } }
---
kind: Deployment
metadata: { name: rl }
spec:
  template:
    spec:
      containers:
        - image: verlai/verl:app-verl0.4-vllm0.8.5-mcore0.12.1
          command: ["python3", "-m", "verl.trainer.main_ppo", "actor_rollout_ref.rollout.name=vllm"]
          resources: { limits: { nvidia.com/gpu: 8 } }
---
kind: Deployment
metadata: { name: rl-image }
spec:
  template:
    spec:
      containers:
        - image: verlai/verl:vllm0.8
          args: ["--tensor-parallel-size", "2"]
          resources: { limits: { nvidia.com/gpu: 2 } }
---
kind: StatefulSet
metadata: { name: chat }
spec:
  template:
    spec:
      containers:
        - image: ghcr.io/huggingface/text-generation-inference:2.4
          env:
            - { name: MODEL_ID, value: meta-llama/Llama-3.1-8B-Instruct }
            - { name: NUM_SHARD, value: "2" }
          resources: { limits: { nvidia.com/gpu: 2 } }
---
kind: Deployment
metadata: { name: api }
spec:
  template:
    spec:
      containers:
        - image: ghcr.io/acme/model:3
          ports: [{ containerPort: 8080 }]
          resources: { limits: { nvidia.com/gpu: 1 } }
---
kind: Deployment
metadata: { name: notebook }
spec:
  template:
    spec:
      containers:
        - image: ghcr.io/acme/lab:3
          resources: { limits: { nvidia.com/gpu: 1 } }
---
kind: Job
metadata: { name: nccl }
spec:
  template:
    spec:
      containers:
        - image: ghcr.io/coreweave/nccl-tests:12.4
          resources: { limits: { nvidia.com/gpu: 8 } }
---
apiVersion: kaito.sh/v1alpha1
kind: Workspace
metadata: { name: tune-phi }
resource: { instanceType: Standard_NC24ads_A100_v4 }
tuning: { preset: { name: phi-3-mini-128k-instruct } }
"#,
        );
        let r = roles(&inv);
        let t = Some(Role::Training);
        let i = Some(Role::Inference);
        let reason = |s: &str| Some(s.to_string());
        assert_eq!(
            r[0],
            (
                "Job/nightly".into(),
                t,
                reason("trains: Job running `python pretrain.py`")
            )
        );
        assert_eq!(
            r[1],
            (
                "Deployment/rl".into(),
                t,
                reason("trains: Deployment running `python -m verl.trainer.main_ppo`")
            )
        );
        assert_eq!(
            r[2],
            (
                "Deployment/rl-image".into(),
                t,
                reason("trains: image `verlai/verl` is verl, a training framework")
            )
        );
        assert!(
            inv.workloads[2].pods[0].serving.is_none(),
            "a tag is not an engine"
        );
        assert_eq!(
            r[3],
            (
                "StatefulSet/chat".into(),
                i,
                reason(
                    "serves: image `ghcr.io/huggingface/text-generation-inference` is Text Generation Inference"
                )
            )
        );
        let tgi = inv.workloads[3].pods[0].serving.as_ref().unwrap();
        assert_eq!(
            tgi.model.as_ref().unwrap().0,
            "meta-llama/Llama-3.1-8B-Instruct"
        );
        assert_eq!(tgi.tp.as_ref().unwrap().0, 2);
        assert_eq!(
            r[4],
            (
                "Deployment/api".into(),
                i,
                reason(
                    "serves: a Deployment with GPUs that listens on a port or answers HTTP probes"
                )
            )
        );
        assert_eq!(r[5], ("Deployment/notebook".into(), None, None));
        assert_eq!(r[6], ("Job/nccl".into(), None, None));
        assert_eq!(
            r[7],
            (
                "Workspace/tune-phi".into(),
                t,
                reason("trains: Kaito Workspace with `tuning`")
            )
        );
    }

    #[test]
    fn group_shapes_multiply_as_their_controllers_do() {
        let inv = lower_text(
            r"
kind: LeaderWorkerSet
metadata: { name: lws }
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      spec: { containers: [{ name: l, resources: { limits: { nvidia.com/gpu: 8 } } }] }
    workerTemplate:
      spec: { containers: [{ name: w, resources: { limits: { nvidia.com/gpu: 8 } } }] }
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: { name: js }
spec:
  replicatedJobs:
    - name: workers
      replicas: 2
      template:
        spec:
          parallelism: 4
          template:
            spec:
              containers:
                - name: t
                  image: nvcr.io/nvidia/pytorch:24.05-py3
                  resources: { limits: { nvidia.com/gpu: 8, vpc.amazonaws.com/efa: 32 } }
",
        );
        let lws = &inv.workloads[0];
        let groups: Vec<(&str, Option<&u32>)> = lws
            .pods
            .iter()
            .map(|p| (p.group.as_str(), p.replicas.known()))
            .collect();
        assert_eq!(
            groups,
            [("leaderTemplate", Some(&2)), ("workerTemplate", Some(&6))]
        );
        assert_eq!(lws.spans.as_ref().map(|s| s.pods), Some(4));
        let js = &inv.workloads[1];
        assert_eq!(js.pods[0].group, "workers");
        assert_eq!(js.pods[0].replicas.known(), Some(&8));
        assert_eq!(js.spans.as_ref().map(|s| s.pods), Some(8));
        let f = js.pods[0].fabric.as_ref().unwrap();
        assert!(f.on);
        assert_eq!(f.what, "requests `vpc.amazonaws.com/efa`");
    }

    #[test]
    fn engine_flags_in_every_spelling() {
        let inv = lower_text(
            r#"
kind: Deployment
metadata: { name: v }
spec:
  template:
    spec:
      containers:
        - image: vllm/vllm-openai:v0.8.0
          args: ["--model=Qwen/Qwen2.5-7B-Instruct", "--tensor_parallel_size", "4", "--max_model_len=4096"]
          resources: { limits: { nvidia.com/gpu: 4 } }
"#,
        );
        let s = inv.workloads[0].pods[0].serving.as_ref().unwrap();
        assert_eq!(s.model.as_ref().unwrap().0, "Qwen/Qwen2.5-7B-Instruct");
        let inv = lower_text(
            "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - image: vllm/vllm-openai:v0.10.0\n      command: [python3, -m, vllm.entrypoints.openai.api_server]\n      args: [\"--model=$(MODEL_ID)\", \"--served-model-name=$$(MODEL_ID)\"]\n      env: [{name: MODEL_ID, value: google/gemma-7b-it}]\n",
        );
        let p = &inv.workloads[0].pods[0];
        let model = &p.serving.as_ref().unwrap().model.as_ref().unwrap().0;
        assert_eq!(
            model, "google/gemma-7b-it",
            "$(VAR) expands as Kubernetes does"
        );
        assert!(
            p.containers[0]
                .argv
                .iter()
                .any(|(a, _)| a == "--served-model-name=$(MODEL_ID)")
        );
        assert_eq!(s.tp.as_ref().unwrap().0, 4);
        assert_eq!(s.max_model_len.as_ref().unwrap().0, 4096);
    }

    /// What sizes an engine's start-up peak, read for vLLM, TGI and SGLang.
    #[test]
    fn engine_batch_settings() {
        let serving = |text: &str| {
            let inv = lower_text(text);
            let s = inv.workloads[0].pods[0].serving.clone().unwrap();
            let b = &s.batching;
            (
                b.max_num_batched_tokens.as_ref().map(|(n, _)| *n),
                b.max_num_seqs.as_ref().map(|(n, _)| *n),
                b.enforce_eager.is_some(),
                s.gpu_memory_utilization.map(|(u, _)| u),
            )
        };
        let pod = |container: &str| {
            format!("kind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n    - {container}\n")
        };
        assert_eq!(
            serving(&pod(
                "{image: vllm/vllm-openai:v0.10.0, args: [--model, m-7B, --max-num-batched-tokens, '512', --max_num_seqs=16, --enforce-eager]}"
            )),
            (Some(512), Some(16), true, None)
        );
        assert_eq!(
            serving(&pod(
                "{image: ghcr.io/huggingface/text-generation-inference:3.0, env: [{name: MODEL_ID, value: m-7B}, {name: MAX_BATCH_PREFILL_TOKENS, value: '2048'}, {name: CUDA_MEMORY_FRACTION, value: '0.8'}]}"
            )),
            (Some(2048), None, false, Some(0.8))
        );
        assert_eq!(
            serving(&pod(
                "{image: lmsysorg/sglang:v0.4.0, command: [python3, -m, sglang.launch_server, --model-path, m-7B, --chunked-prefill-size, '4096', --max-running-requests, '64', --disable-cuda-graph, --mem-fraction-static, '0.8']}"
            )),
            (Some(4096), Some(64), true, Some(0.8))
        );
    }

    /// The signs that an engine places ranks in other pods, as workloads.toml lists them.
    #[test]
    fn engines_that_span_pods_say_why() {
        let sign = |container: &str| {
            let inv = lower_text(&format!(
                "kind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n    - {container}\n"
            ));
            let s = inv.workloads[0].pods[0].serving.clone().unwrap();
            s.spans_pods.map(|(why, _)| why)
        };
        let vllm = |args: &str| {
            sign(&format!(
                "{{image: vllm/vllm-openai:v0.9.2, command: [bash, -c], args: ['{args}']}}"
            ))
        };
        assert_eq!(
            vllm("$KUBERAY_GEN_RAY_START_CMD; vllm serve m-70B --tensor-parallel-size 16")
                .as_deref(),
            Some("$KUBERAY_GEN_RAY_START_CMD")
        );
        assert_eq!(
            vllm("ray start --address=head:6379 && vllm serve m-70B").as_deref(),
            Some("ray start")
        );
        assert_eq!(
            vllm("vllm serve m-70B --data-parallel-size 4 --data-parallel-size-local 2 --headless")
                .as_deref(),
            Some("--headless")
        );
        assert_eq!(
            vllm("vllm serve m-70B --data-parallel-address=head-0 --data-parallel-size 4")
                .as_deref(),
            Some("--data-parallel-address")
        );
        // The Ray executor alone starts Ray inside the pod; mp never leaves it.
        assert_eq!(
            vllm("vllm serve m-70B --distributed-executor-backend ray"),
            None
        );
        assert_eq!(
            vllm("vllm serve m-70B --distributed-executor-backend mp"),
            None
        );
        let sglang = |nnodes: &str| {
            sign(&format!(
                "{{image: lmsysorg/sglang:v0.4.9, command: [python3, -m, sglang.launch_server, --model-path, m-70B, --nnodes, '{nnodes}']}}"
            ))
        };
        assert_eq!(sglang("2").as_deref(), Some("--nnodes 2"));
        assert_eq!(
            sglang("$(LWS_GROUP_SIZE)").as_deref(),
            Some("--nnodes $(LWS_GROUP_SIZE)")
        );
        assert_eq!(sglang("1"), None);
    }

    #[test]
    fn templated_gpu_counts_are_at_least_one() {
        let inv = lower_text(
            "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - resources: {limits: {nvidia.com/gpu: many}}\n",
        );
        // A placeholder still asks for GPUs: at least one, count not known.
        let g = inv.workloads[0].pods[0].gpus.known().unwrap();
        assert_eq!((g.count, g.exact_count()), (1, None));
        let inv = lower_text(
            "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - resources: {limits: {nvidia.com/gpu: 1.5}}\n",
        );
        assert!(inv.workloads[0].pods[0].gpus.is_unknown());
    }
}
