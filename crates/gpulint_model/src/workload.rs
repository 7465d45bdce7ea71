//! Workloads: what runs on GPUs, its pods, their containers, GPU requests, volumes,
//! scheduling constraints, and the serving engine or training launcher they run.

use gpulint_facts::Gpu;
use gpulint_facts::vocab::Str;
use gpulint_facts::vocab::{Market, Provider};

use super::{Inferred, Role, Span, Value};

/// What runs on GPUs: a Pod, a Deployment, a Job, a training or serving CRD.
#[derive(Clone, Debug)]
pub struct Workload {
    /// `Deployment/vllm` or `Deployment/vllm (namespace ml)`.
    pub subject: String,
    pub kind: Str,
    pub name: Option<Str>,
    /// The object, from its first key to its last value.
    pub span: Span,
    pub role: Inferred<Role>,
    /// Pods that one run of the work spreads over and that must talk across nodes (a
    /// multi-node launcher, a LeaderWorkerSet group, a distributed job's multi-GPU pods),
    /// with the span that says so. `None`: it does not, or gpulint cannot tell.
    pub spans: Option<Spread>,
    /// Measures or checks GPUs (nccl-tests, `nvidia-smi`, a serving benchmark) or only
    /// waits, and neither trains nor serves (the benchmark table in the workload facts).
    pub benchmark: Option<Benchmark>,
    /// The operator row (`operators.toml`) that read the kind, by name; `None` when only
    /// the generic pod-spec search read it.
    pub read_by: Option<&'static str>,
    /// Its pods run until someone deletes it: a Pod, Deployment, StatefulSet, ReplicaSet
    /// or DaemonSet, or an operator kind the table marks `standing` (a Kubeflow Notebook).
    pub standing: bool,
    /// An interactive session by its kind, as the operator table names it (`a Kubeflow
    /// notebook`), whatever image it runs.
    pub session: Option<&'static str>,
    /// Its pods run on simulated nodes (KWOK): the sign. Rules do not see it.
    pub simulated: Option<Str>,
    /// Replica groups whose pods stay up after the work is done unless `ends` is true
    /// (MPI workers, by the operator table).
    pub lingering: Vec<Str>,
    /// Another object its operator merges into its pods (a KServe runtime), as written.
    pub merge: Option<Box<MergeRef>>,
    /// The formats this object offers to be merged by (a runtime's auto-selected
    /// `supportedModelFormats`).
    pub offers: Vec<Str>,
    /// One per replica group (a Deployment has one; a PyTorchJob has master and workers).
    pub pods: Vec<PodShape>,
    /// Whether the workload tears itself down once its work is done, where a setting says
    /// so: a RayJob's `shutdownAfterJobFinishes` or `deletionStrategy` (its cluster would
    /// otherwise outlive the job), an MPIJob's clean-pod policy (written or defaulted), a
    /// Job's `activeDeadlineSeconds`. `Absent`: nothing decides it.
    pub ends: Value<bool>,
    /// The autoscaler that resizes it (an HPA, a KEDA ScaledObject of the run), once
    /// linked. `None`: none that gpulint saw; its replicas stay as written.
    pub scaled_by: Option<Scaler>,
}

/// An object that resizes another workload's replicas (an HPA, a KEDA ScaledObject): what
/// it targets and the fewest replicas it keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct Scaler {
    /// `ScaledObject/vllm`.
    pub subject: String,
    pub target_kind: Str,
    pub target_name: Str,
    /// The fewest replicas it keeps, where written (its header when defaulted).
    pub min: Value<u32>,
    /// The object.
    pub span: Span,
}

impl Workload {
    /// The fewest replicas of `pod` that always run, and where that count is written: the
    /// minimum of the autoscaler that resizes the workload, else its replicas as written.
    /// `(0, None)` when an autoscaler's minimum is not known.
    pub fn fewest(&self, pod: &PodShape) -> (u32, Option<Span>) {
        match &self.scaled_by {
            Some(s) => match &s.min {
                Value::Known(n, at) => (*n, Some(at.clone())),
                _ => (0, None),
            },
            None => {
                let at = match &pod.replicas {
                    Value::Known(_, at) => Some(at.clone()),
                    _ => None,
                };
                (pod.replicas_at_least().0, at)
            }
        }
    }
}

/// Pods that must talk across nodes: an exact count, or a lower bound when a count it
/// rests on is a placeholder (`replicas: $WORKERS` is at least one pod).
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    pub pods: u32,
    /// `false`: at least `pods`.
    pub exact: bool,
    /// Something in the pods says they talk (a launcher's nodes, a group, an engine's
    /// ranks), not only the kind: rules judge it even when the role is unknown.
    pub stated: bool,
    pub span: Span,
}

impl std::fmt::Display for Spread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.exact {
            f.write_str("at least ")?;
        }
        write!(f, "{}", self.pods)
    }
}

#[derive(Clone, Debug)]
pub struct PodShape {
    /// The replica group: `template`, `Master`, `Worker`.
    pub group: Str,
    /// The pod spec (`spec.template.spec` or the Pod's `spec`).
    pub span: Span,
    /// Pods in the group. `Absent` for a DaemonSet (one per node). `Unknown`: written
    /// as a placeholder (`$WORKERS`, a Helm expression), which Kubernetes would need to be
    /// a count: see [`PodShape::replicas_at_least`].
    pub replicas: Value<u32>,
    /// GPUs each pod asks for, summed over its containers.
    pub gpus: Value<GpuRequest>,
    /// Node labels the pod requires: `nodeSelector` entries and required node-affinity
    /// `In` expressions, as key → allowed values.
    pub requirements: Vec<Requirement>,
    pub tolerations: Vec<Toleration>,
    pub volumes: Vec<Volume>,
    pub containers: Vec<Container>,
    /// `topologySpreadConstraints` topology keys.
    pub spread: Vec<(Str, Span)>,
    /// What the requirements say through the catalog's Kubernetes vocabularies.
    pub selection: Selection,
    /// What a serving engine in the pod is told.
    pub serving: Option<Box<Serving>>,
    /// A distributed-training launcher in the pod.
    pub launcher: Option<Launcher>,
    /// How the group's controller resizes it, for controllers that scale groups
    /// themselves (KubeRay). `None`: `replicas` is all there is.
    pub scaling: Option<Box<GroupScaling>>,
    /// Indices into [`Inventory::capacity`](crate::Inventory::capacity) of the pools this pod can land on (labels and
    /// selectors matched). Empty when no pool in the run matches.
    pub landing: Vec<usize>,
    /// What the pod says about the fast inter-node fabric, the strongest signal first.
    pub fabric: Option<FabricSignal>,
    /// The controller that writes this pod's containers, volumes and requests (`Kaito`):
    /// only its shape is the user's, so rules about what a pod spec says skip it.
    pub generated_by: Option<&'static str>,
    /// The controller that mounts a memory-backed `/dev/shm` in this pod itself (KubeRay).
    pub shm_by: Option<&'static str>,
    /// Dynamic Resource Allocation: the ResourceClaimTemplates and ResourceClaims the pod
    /// names, with the containers that use each (by claim name in the pod).
    pub claims: Vec<ClaimRef>,
    /// `restartPolicy` as written (a bare Pod's default is `Always`).
    pub restart: Option<Str>,
    /// Its GPUs are shares of a GPU (HAMi's vGPU limits, a fraction annotation): the sign.
    pub shared: Option<(Str, Span)>,
}

/// A pod's claim on devices through Dynamic Resource Allocation.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimRef {
    /// The claim's name in the pod (`resourceClaims[].name`).
    pub name: Str,
    /// The ResourceClaimTemplate (or, with `claim`, the ResourceClaim) it names.
    pub target: Str,
    pub claim: bool,
    pub span: Span,
}

/// The GPUs a ResourceClaimTemplate or ResourceClaim asks for (device requests of a GPU
/// device class).
#[derive(Clone, Debug, PartialEq)]
pub struct GpuClaim {
    pub name: Str,
    /// A ResourceClaim, not a template.
    pub claim: bool,
    pub gpus: GpuRequest,
    pub span: Span,
}

impl PodShape {
    /// Pods in the group as far as it is certain: the count when known, 1 when not
    /// written (Kubernetes' default), and at least 1 when written as a placeholder (a
    /// group that is written runs). The flag says whether the count is exact.
    pub fn replicas_at_least(&self) -> (u32, bool) {
        match &self.replicas {
            Value::Known(n, _) => (*n, true),
            Value::Absent => (1, true),
            Value::Unknown(_) => (1, false),
        }
    }
}

/// A reference to an object an operator merges into a workload's pods.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeRef {
    /// The kinds it may be (`ServingRuntime`, `ClusterServingRuntime`).
    pub kinds: Vec<Str>,
    /// Its name, when written.
    pub name: Option<Str>,
    /// The format asked for, chosen among the objects that offer it when no name is.
    pub format: Option<Str>,
    /// The replica group of the merged object whose pod is merged; its first otherwise.
    pub pod: Option<Str>,
    /// What the merged object is to the user: `its serving runtime`.
    pub what: &'static str,
    /// The reference (or the object, when only a format chooses).
    pub span: Span,
}

/// What a benchmark workload runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Benchmark {
    /// The table row's name: `nccl-tests`, `a GPU check`, `a placeholder`.
    pub name: &'static str,
    /// Its ranks talk to each other: how the pod feeds and wires GPUs still matters.
    pub collective: bool,
    /// What showed it: the command or image.
    pub what: String,
}

/// A pod's word on the fast fabric: devices it requests, networks it joins, or a switch.
#[derive(Clone, Debug, PartialEq)]
pub struct FabricSignal {
    /// Set up (`vpc.amazonaws.com/efa`, `rdma/*`, GKE multi-networking, Multus,
    /// `hostNetwork`, `FI_PROVIDER=efa`), or turned off (`NCCL_IB_DISABLE=1`).
    pub on: bool,
    /// As shown: `requests vpc.amazonaws.com/efa`, `sets NCCL_IB_DISABLE=1`.
    pub what: String,
    pub span: Span,
}

/// How a controller resizes a replica group.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupScaling {
    /// Always one pod, for as long as the workload exists: no autoscaler removes it (a
    /// Ray head).
    Single,
    /// Pods an autoscaler may add and remove between bounds (a Ray worker group).
    Autoscaled(Autoscale),
}

/// A replica group's bounds and the autoscaler that moves between them.
#[derive(Clone, Debug, PartialEq)]
pub struct Autoscale {
    /// Whether the autoscaler runs (KubeRay `enableInTreeAutoscaling`). `Absent`: not
    /// written, off.
    pub enabled: Value<bool>,
    /// `replicas` as written: the count kept without the autoscaler (clamped to the
    /// bounds), the starting count with it. `Absent`: 0.
    pub replicas: Value<u32>,
    /// `minReplicas`: the autoscaler never goes below it. `Absent`: 0.
    pub min: Value<u32>,
    /// `maxReplicas`. `Absent`: unbounded.
    pub max: Value<u32>,
    /// Where the autoscaler is told how long a pod may idle before it is removed (the
    /// group's or the cluster's `idleTimeoutSeconds`); only read with the autoscaler on.
    pub idle_timeout: Option<Span>,
}

/// A node label the pod requires.
#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    pub key: Str,
    /// The values the label may have (`In`); empty when `exists`.
    pub values: Vec<Str>,
    /// The label must be set, to any value (`operator: Exists`).
    pub exists: bool,
    pub span: Span,
}

/// Capacity facts that a pod's node requirements state.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub gpus: Option<(Vec<&'static Gpu>, Span)>,
    /// The one cloud the GPU label belongs to (GKE's accelerator label), when it says.
    pub gpus_provider: Option<Provider>,
    pub instance_types: Option<(Vec<Str>, Span)>,
    pub market: Option<(Market, Span)>,
    pub zones: Option<(Vec<Str>, Span)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Vllm,
    Tgi,
    Sglang,
    /// NVIDIA NIM: it picks a profile (precision, parallelism) for the GPUs it finds
    /// unless its environment names one.
    Nim,
    /// Another engine the catalog knows (Triton, NIM, TensorRT-LLM…), by name: its flags
    /// are not read.
    Other(&'static str),
    /// Only `gpulint.dev/*` annotations say what is served.
    Hint,
}

impl Engine {
    /// The engines whose flags gpulint reads, by their id in the workload table.
    const READ: [(&'static str, Engine); 4] = [
        ("vllm", Engine::Vllm),
        ("tgi", Engine::Tgi),
        ("sglang", Engine::Sglang),
        ("nim", Engine::Nim),
    ];

    /// The engine of the workload table's row `id`, named `name` when its flags are not
    /// read.
    pub fn from_row(id: &str, name: &'static str) -> Engine {
        Self::READ
            .iter()
            .find(|(i, _)| *i == id)
            .map_or(Engine::Other(name), |(_, e)| *e)
    }

    /// Its row's id in the workload table, for the engines whose flags are read.
    pub fn id(self) -> Option<&'static str> {
        Self::READ.iter().find(|(_, e)| *e == self).map(|(i, _)| *i)
    }
}

/// What an inference server is told.
#[derive(Clone, Debug)]
pub struct Serving {
    pub engine: Engine,
    pub model: Option<(String, Span)>,
    /// `gpulint.dev/params`.
    pub params: Option<(f64, Span)>,
    pub precision: Option<(String, Span)>,
    pub quantization: Option<(String, Span)>,
    pub kv_precision: Option<(String, Span)>,
    pub tp: Option<(u32, Span)>,
    pub pp: Option<(u32, Span)>,
    /// Data-parallel ranks this pod runs, each a whole copy of the model (vLLM's
    /// `--data-parallel-size-local`, else `--data-parallel-size`; SGLang's `--dp-size`).
    pub dp: Option<(u32, Span)>,
    pub max_model_len: Option<(u64, Span)>,
    /// The engine's memory share (vLLM `--gpu-memory-utilization`, SGLang
    /// `--mem-fraction-static`, TGI `--cuda-memory-fraction`).
    pub gpu_memory_utilization: Option<(f64, Span)>,
    pub batching: Batching,
    /// Numeric settings written where gpulint cannot evaluate them
    /// (`--tensor-parallel-size $TP`): rules that size the engine skip it.
    pub unknown: Vec<Span>,
    /// What says the engine places ranks in other pods (`--distributed-executor-backend
    /// ray`, `--nnodes 2`), as written: its parallel sizes count the group's GPUs.
    pub spans_pods: Option<(String, Span)>,
    /// The container that runs it.
    pub span: Span,
}

/// How large a batch an engine runs at once, as it is told.
#[derive(Clone, Debug, Default)]
pub struct Batching {
    /// Tokens of its largest forward pass (vLLM `--max-num-batched-tokens`, TGI
    /// `--max-batch-prefill-tokens`, SGLang `--chunked-prefill-size`).
    pub max_num_batched_tokens: Option<(u64, Span)>,
    /// Sequences at once (vLLM `--max-num-seqs`, SGLang `--max-running-requests`).
    pub max_num_seqs: Option<(u64, Span)>,
    /// No CUDA graphs (vLLM `--enforce-eager`, SGLang `--disable-cuda-graph`).
    pub enforce_eager: Option<Span>,
}

impl Serving {
    /// An engine known to run at `span`, told nothing gpulint reads.
    pub fn bare(engine: Engine, span: Span) -> Self {
        Serving {
            engine,
            model: None,
            params: None,
            precision: None,
            quantization: None,
            kv_precision: None,
            tp: None,
            pp: None,
            dp: None,
            max_model_len: None,
            gpu_memory_utilization: None,
            batching: Batching::default(),
            unknown: Vec::new(),
            spans_pods: None,
            span,
        }
    }
}

/// A distributed-training launcher.
#[derive(Clone, Debug)]
pub struct Launcher {
    pub nnodes: Option<u32>,
    pub nproc_per_node: Option<u32>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GpuRequest {
    /// The extended resource: `nvidia.com/gpu`, `nvidia.com/mig-1g.10gb`, `amd.com/gpu`.
    pub resource: String,
    /// GPUs per pod; a lower bound (1) when not `exact`.
    pub count: u32,
    /// `false` when a count was written as a placeholder (`nvidia.com/gpu: $GPUS`): the pod
    /// asks for GPUs, at least one. Rules that need the exact count skip it.
    pub exact: bool,
}

impl Value<GpuRequest> {
    /// Whether the pod holds GPUs: a known count above 0, or a count gpulint cannot read
    /// (at least one).
    pub fn holds_gpus(&self) -> bool {
        match self {
            Value::Known(g, _) => g.count > 0,
            Value::Unknown(_) => true,
            Value::Absent => false,
        }
    }
}

impl GpuRequest {
    /// The count, when it was written as a number.
    pub fn exact_count(&self) -> Option<u32> {
        self.exact.then_some(self.count)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Toleration {
    pub key: Option<Str>,
    pub value: Option<Str>,
    pub effect: Option<Str>,
    pub span: Span,
}

impl Toleration {
    /// Whether it tolerates `t`. A toleration without a value (operator `Exists`) takes
    /// every value; one without a key takes every taint.
    pub fn tolerates(&self, t: &Taint) -> bool {
        self.key.as_ref().is_none_or(|k| *k == t.key)
            && self
                .value
                .as_ref()
                .is_none_or(|v| Some(v) == t.value.as_ref())
            && self.effect.as_ref().is_none_or(|e| *e == t.effect)
    }
}

/// A taint a node pool puts on its nodes, effect in Kubernetes' spelling (`NoSchedule`).
#[derive(Clone, Debug, PartialEq)]
pub struct Taint {
    pub key: Str,
    pub value: Option<Str>,
    pub effect: Str,
    pub span: Span,
}

impl Taint {
    /// A taint with the effect as a cloud API spells it (`NO_SCHEDULE`) or as Kubernetes
    /// does (`NoSchedule`).
    pub fn new(key: String, value: Option<String>, effect: &str, span: Span) -> Self {
        let effect = match effect {
            "NO_SCHEDULE" => "NoSchedule",
            "NO_EXECUTE" => "NoExecute",
            "PREFER_NO_SCHEDULE" => "PreferNoSchedule",
            e => e,
        };
        Taint {
            key: key.into(),
            value: value.filter(|v| !v.is_empty()).map(Str::from),
            effect: effect.into(),
            span,
        }
    }

    /// A taint written `key=value:Effect` (AKS `node_taints`, eksctl's map form
    /// `key: value:Effect` given as `key=` + its value).
    pub fn parse(written: &str, span: Span) -> Option<Self> {
        let (kv, effect) = written.rsplit_once(':')?;
        let (key, value) = match kv.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (kv, None),
        };
        Some(Taint::new(
            key.trim().to_string(),
            value,
            effect.trim(),
            span,
        ))
    }

    /// Whether it keeps off pods that do not tolerate it (`NoSchedule`, `NoExecute`).
    pub fn repels(&self) -> bool {
        matches!(self.effect.as_str(), "NoSchedule" | "NoExecute")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Volume {
    pub name: Str,
    pub source: VolumeSource,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum VolumeSource {
    PersistentClaim(String),
    EmptyDir { memory: bool },
    HostPath(String),
    Csi(String),
    Other(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Container {
    pub name: Str,
    pub image: Option<Str>,
    /// `command` then `args`, each with its span; a shell script (`sh -c "..."`) is split
    /// into words that share the script's span.
    pub argv: Vec<(Str, Span)>,
    /// GPUs this container asks for (the pod's [`PodShape::gpus`] sums them).
    pub gpus: Value<GpuRequest>,
    pub mounts: Vec<Mount>,
    /// The pod's DRA claims this container uses (`resources.claims[].name`).
    pub claims: Vec<Str>,
    pub cpu_request: Value<Str>,
    pub memory_request: Value<Str>,
    /// Environment variables with literal values (`valueFrom` ones are left out).
    pub env: Vec<(Str, Str, Span)>,
    /// Declares container ports or HTTP, gRPC or TCP probes: it answers requests.
    pub listens: bool,
    pub span: Span,
}

impl Container {
    /// A literal environment variable's value, with where it is written.
    pub fn env_var(&self, name: &str) -> Option<(String, Span)> {
        self.env
            .iter()
            .find(|(k, _, _)| k == name)
            .map(|(_, v, s)| (v.to_string(), s.clone()))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Mount {
    pub volume: Str,
    pub path: Str,
}
