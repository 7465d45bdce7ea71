//! Kubernetes: workloads of every kind with a pod template (core kinds, Kubeflow
//! PyTorchJob/TFJob/MPIJob/TrainJob, JobSet, LeaderWorkerSet, Ray, KServe, Volcano, and
//! anything else, found by a generic pod-spec search), the serving engines and training
//! launchers their containers run, and Karpenter NodePools as capacity.

use crate::catalog::catalog;
use crate::catalog::kubernetes::ResourceKind;
use crate::fit::models::parse_count;
use crate::model::{
    Capacity, CapacityKind, Container, Engine, GpuRequest, Inventory, Launcher, Market, Mount,
    PodShape, Provider, Requirement, Role, Scale, Selection, Serving, Span, Toleration, Value,
    Volume, VolumeSource, Workload, Zones,
};
use crate::parse::yaml::{YamlDoc, YamlNode, YamlValue};
use crate::source::FileId;

/// The role a kind implies when nothing says otherwise.
fn kind_role(kind: &str) -> Option<Role> {
    match kind {
        "PyTorchJob" | "TFJob" | "MPIJob" | "TrainJob" | "JobSet" | "XGBoostJob" | "PaddleJob"
        | "JAXJob" => Some(Role::Training),
        "InferenceService"
        | "ServingRuntime"
        | "ClusterServingRuntime"
        | "LeaderWorkerSet"
        | "RayService" => Some(Role::Inference),
        _ => None,
    }
}

pub fn lower(file: FileId, docs: &[YamlDoc], out: &mut Inventory) {
    for doc in docs {
        lower_object(file, &doc.root, out);
    }
}

fn text(node: &YamlNode, key: &str) -> Option<String> {
    node.get(key).and_then(YamlNode::as_str).map(str::to_string)
}

fn span(file: FileId, n: &YamlNode) -> Span {
    Span::new(file, n.span.clone())
}

fn lower_object(file: FileId, obj: &YamlNode, out: &mut Inventory) {
    let Some(kind) = obj.get("kind").and_then(YamlNode::as_str) else {
        return;
    };
    if kind == "List" {
        for item in obj
            .get("items")
            .and_then(YamlNode::items)
            .unwrap_or_default()
        {
            lower_object(file, item, out);
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
    let name = obj
        .path(&["metadata", "name"])
        .and_then(YamlNode::as_str)
        .map(str::to_string);
    let annotations = obj.path(&["metadata", "annotations"]);
    let mut pods = Vec::new();
    if kind == "Pod" {
        if let Some(spec) = obj.get("spec") {
            pods.push(pod(file, "spec".into(), spec, Value::Absent, annotations));
        }
    } else if let Some(spec) = obj.get("spec") {
        find_pods(file, spec, "spec", &mut Vec::new(), annotations, &mut pods);
        if kind == "TrainJob"
            && let Some(trainer) = spec.get("trainer")
        {
            pods.push(train_job_pod(file, trainer, annotations));
        }
    }
    if pods.is_empty() {
        return;
    }
    let role = role(file, obj, kind, &pods);
    out.workloads.push(Workload {
        subject: format!("{kind}/{}", name.as_deref().unwrap_or("(unnamed)")),
        kind: kind.to_string(),
        name,
        span: span(file, obj),
        role,
        pods,
    });
}

/// Finds every pod spec below `node`: a mapping with a `containers` list (or a KServe
/// `model` with a `modelFormat`). Does not look inside a pod spec once found.
fn find_pods<'a>(
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
                out.push(pod(file, group, node, replicas, annotations));
                return;
            }
            // KServe's `predictor.model`: a container-like spec under a runtime.
            if let Some(model) = node.get("model").filter(|m| m.get("modelFormat").is_some()) {
                let mut p = pod(
                    file,
                    "predictor".into(),
                    node,
                    replicas(file, ancestors),
                    annotations,
                );
                p.containers.push(container(file, model));
                p.gpus = gpus_of(file, model.get("resources"));
                p.serving = serving(file, &p.containers, annotations);
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

/// The replica group a pod spec belongs to: the key above `template` (`Worker`,
/// `headGroupSpec`, a Ray `groupName`), `template` for the core kinds, or the spec's key.
fn group_name(name: &str, ancestors: &[(&YamlNode, String)]) -> String {
    let names: Vec<&str> = ancestors.iter().map(|(_, n)| n.as_str()).collect();
    match names[..] {
        [.., group, "template"] if name == "spec" && group != "spec" => group.to_string(),
        [.., "template"] if name == "spec" => "template".to_string(),
        _ => name.to_string(),
    }
}

/// Pods in a group: the nearest `replicas`, `parallelism`, `maxReplicas`, `size` or
/// `numNodes` within three levels above the pod spec.
fn replicas(file: FileId, ancestors: &[(&YamlNode, String)]) -> Value<u32> {
    for (a, _) in ancestors.iter().rev().take(3) {
        for key in ["replicas", "parallelism", "maxReplicas", "size", "numNodes"] {
            if let Some(n) = a.get(key) {
                return match n.as_u64().and_then(|r| u32::try_from(r).ok()) {
                    Some(r) => Value::Known(r, span(file, n)),
                    None => Value::Unknown(span(file, n)),
                };
            }
        }
    }
    Value::Absent
}

fn pod(
    file: FileId,
    group: String,
    spec: &YamlNode,
    replicas: Value<u32>,
    annotations: Option<&YamlNode>,
) -> PodShape {
    let containers: Vec<Container> = spec
        .get("containers")
        .and_then(YamlNode::items)
        .unwrap_or_default()
        .iter()
        .map(|c| container(file, c))
        .collect();
    let requirements = requirements(file, spec);
    let selection = selection(&requirements);
    let serving = serving(file, &containers, annotations);
    let launcher = launcher(&containers);
    PodShape {
        group,
        span: span(file, spec),
        replicas,
        gpus: gpus_of(
            file,
            spec.get("containers")
                .and_then(YamlNode::items)
                .unwrap_or_default()
                .iter()
                .filter_map(|c| c.get("resources")),
        ),
        requirements,
        tolerations: spec
            .get("tolerations")
            .and_then(YamlNode::items)
            .unwrap_or_default()
            .iter()
            .map(|t| Toleration {
                key: text(t, "key"),
                value: text(t, "value"),
                effect: text(t, "effect"),
                span: span(file, t),
            })
            .collect(),
        volumes: spec
            .get("volumes")
            .and_then(YamlNode::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| volume(file, v))
            .collect(),
        containers,
        spread: spec
            .get("topologySpreadConstraints")
            .and_then(YamlNode::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|t| {
                let k = t.get("topologyKey")?;
                Some((k.as_str()?.to_string(), span(file, k)))
            })
            .collect(),
        selection,
        serving,
        launcher,
        landing: Vec::new(),
    }
}

/// Kubeflow Trainer v2: `spec.trainer` has no pod template, only nodes and resources.
fn train_job_pod(file: FileId, trainer: &YamlNode, annotations: Option<&YamlNode>) -> PodShape {
    let c = container(file, trainer);
    let mut p = pod(file, "trainer".into(), trainer, Value::Absent, annotations);
    p.replicas = match trainer.get("numNodes") {
        Some(n) => match n.as_u64().and_then(|r| u32::try_from(r).ok()) {
            Some(r) => Value::Known(r, span(file, n)),
            None => Value::Unknown(span(file, n)),
        },
        None => Value::Absent,
    };
    if let Some(res) = trainer.get("resourcesPerNode") {
        p.gpus = gpus_of(file, [res]);
    }
    p.launcher = launcher(std::slice::from_ref(&c));
    p.containers = vec![c];
    p
}

/// Words of a container's command and args. `sh -c "script"` is split into the script's
/// words, which share the script's span.
fn argv(file: FileId, c: &YamlNode) -> Vec<(String, Span)> {
    let raw: Vec<(String, Span)> = ["command", "args"]
        .iter()
        .flat_map(|k| c.get(k).and_then(YamlNode::items).unwrap_or_default())
        .filter_map(|a| Some((a.as_str()?.to_string(), span(file, a))))
        .collect();
    let mut out = Vec::new();
    for (text, sp) in raw {
        if text.contains(char::is_whitespace) {
            out.extend(text.split_whitespace().map(|w| {
                (
                    w.trim_matches(|c| c == '"' || c == '\'').to_string(),
                    sp.clone(),
                )
            }));
        } else {
            out.push((text, sp));
        }
    }
    out
}

fn container(file: FileId, c: &YamlNode) -> Container {
    let request = |what: &str| match c.path(&["resources", "requests", what]) {
        None => Value::Absent,
        Some(n) => match n.as_str() {
            Some(q) => Value::Known(q.to_string(), span(file, n)),
            None => Value::Unknown(span(file, n)),
        },
    };
    Container {
        name: text(c, "name").unwrap_or_default(),
        image: text(c, "image"),
        argv: argv(file, c),
        mounts: c
            .get("volumeMounts")
            .and_then(YamlNode::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|m| {
                Some(Mount {
                    volume: text(m, "name")?,
                    path: text(m, "mountPath")?,
                })
            })
            .collect(),
        cpu_request: request("cpu"),
        memory_request: request("memory"),
        span: span(file, c),
    }
}

/// Whether an extended resource is a GPU (whole, MIG slice or shared), per the catalog.
fn is_gpu_resource(name: &str) -> bool {
    matches!(
        catalog().kubernetes.resource_kind(name),
        Some(ResourceKind::Gpu | ResourceKind::Shared | ResourceKind::Mig)
    )
}

/// GPUs one pod asks for: limits (which extended resources require), else requests.
/// `resources` are the containers' `resources` mappings (or TrainJob's
/// `resourcesPerNode`).
fn gpus_of<'a>(
    file: FileId,
    resources: impl IntoIterator<Item = &'a YamlNode>,
) -> Value<GpuRequest> {
    let mut total: Option<(GpuRequest, Span)> = None;
    for r in resources {
        let resources = ["limits", "requests"].iter().find_map(|k| {
            r.get(k).and_then(YamlNode::entries).filter(|e| {
                e.iter()
                    .any(|(k, _)| k.as_str().is_some_and(is_gpu_resource))
            })
        });
        // A key written twice in one map counts once, the last, as Kubernetes reads it
        // (go-yaml, sigs.k8s.io/yaml): walk from the end and skip keys already seen.
        let mut seen = std::collections::HashSet::new();
        let mut entries: Vec<(&str, &YamlNode)> = resources
            .unwrap_or_default()
            .iter()
            .rev()
            .filter_map(|(k, v)| Some((k.as_str().filter(|k| is_gpu_resource(k))?, v)))
            .filter(|(k, _)| seen.insert(*k))
            .collect();
        entries.reverse();
        for (resource, v) in entries {
            let sp = span(file, v);
            let Some(count) = v.as_u64().and_then(|n| u32::try_from(n).ok()) else {
                return Value::Unknown(sp);
            };
            match &mut total {
                None => {
                    total = Some((
                        GpuRequest {
                            resource: resource.to_string(),
                            count,
                        },
                        sp,
                    ));
                }
                Some((t, _)) => t.count = t.count.saturating_add(count),
            }
        }
    }
    match total {
        Some((t, s)) => Value::Known(t, s),
        None => Value::Absent,
    }
}

fn volume(file: FileId, v: &YamlNode) -> Option<Volume> {
    let name = text(v, "name")?;
    let source = if let Some(pvc) = v.get("persistentVolumeClaim") {
        VolumeSource::PersistentClaim(text(pvc, "claimName").unwrap_or_default())
    } else if let Some(e) = v.get("emptyDir") {
        VolumeSource::EmptyDir {
            memory: text(e, "medium").as_deref() == Some("Memory"),
        }
    } else if let Some(h) = v.get("hostPath") {
        VolumeSource::HostPath(text(h, "path").unwrap_or_default())
    } else if let Some(csi) = v.get("csi") {
        VolumeSource::Csi(text(csi, "driver").unwrap_or_default())
    } else if v.get("ephemeral").is_some() {
        // A generic ephemeral volume lives and dies with the pod.
        VolumeSource::EmptyDir { memory: false }
    } else {
        let other = v
            .entries()?
            .iter()
            .filter_map(|(k, _)| k.as_str())
            .find(|k| *k != "name")
            .unwrap_or("unknown");
        VolumeSource::Other(other.to_string())
    };
    Some(Volume {
        name,
        source,
        span: span(file, v),
    })
}

/// `nodeSelector` entries and required node-affinity `In` expressions.
fn requirements(file: FileId, spec: &YamlNode) -> Vec<Requirement> {
    let mut out: Vec<Requirement> = spec
        .get("nodeSelector")
        .and_then(YamlNode::entries)
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| {
            Some(Requirement {
                key: k.as_str()?.to_string(),
                values: vec![v.as_str()?.to_string()],
                span: span(file, v),
            })
        })
        .collect();
    let terms = spec.path(&[
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    ]);
    // With several terms any one may match; only a single term is a requirement.
    if let Some([term]) = terms.and_then(YamlNode::items) {
        for e in term
            .get("matchExpressions")
            .and_then(YamlNode::items)
            .unwrap_or_default()
        {
            if e.get("operator").and_then(YamlNode::as_str) != Some("In") {
                continue;
            }
            let (Some(key), Some(values)) = (text(e, "key"), e.get("values")) else {
                continue;
            };
            out.push(Requirement {
                key,
                values: values
                    .items()
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
                span: span(file, values),
            });
        }
    }
    out
}

/// What the requirements say through the catalog's vocabularies.
fn selection(requirements: &[Requirement]) -> Selection {
    let vocab = &catalog().kubernetes;
    let mut s = Selection::default();
    for r in requirements {
        if vocab.is_gpu_label(&r.key) {
            let gpus = vocab.gpus_for_values(&r.key, &r.values);
            if !gpus.is_empty() {
                s.gpus = Some((gpus, r.span.clone()));
            }
        } else if vocab.is_instance_label(&r.key) {
            s.instance_types = Some((r.values.clone(), r.span.clone()));
        } else if vocab.is_family_label(&r.key) {
            let types: Vec<String> = r
                .values
                .iter()
                .flat_map(|f| catalog().family(f).map(|i| i.row.name.clone()))
                .collect();
            if !types.is_empty() {
                s.instance_types = Some((types, r.span.clone()));
            }
        } else if vocab.is_zone_label(&r.key) {
            s.zones = Some((r.values.clone(), r.span.clone()));
        } else {
            let markets: Vec<Option<Market>> = r
                .values
                .iter()
                .map(|v| vocab.market_for_label(&r.key, v))
                .collect();
            if let Some(Some(first)) = markets.first()
                && markets.iter().all(|m| m.as_ref() == Some(first))
            {
                s.market = Some((*first, r.span.clone()));
            }
        }
    }
    s
}

/// `--flag value` and `--flag=value`, and a flag's value by any of its names.
fn flag<'a>(argv: &'a [(String, Span)], names: &[&str]) -> Option<(&'a str, &'a Span)> {
    for (i, (w, sp)) in argv.iter().enumerate() {
        for n in names {
            if w == n {
                return argv.get(i + 1).map(|(v, s)| (v.as_str(), s));
            }
            if let Some(v) = w.strip_prefix(n).and_then(|rest| rest.strip_prefix('=')) {
                return Some((v, sp));
            }
        }
    }
    None
}

fn flag_num<T: std::str::FromStr>(argv: &[(String, Span)], names: &[&str]) -> Option<(T, Span)> {
    let (v, sp) = flag(argv, names)?;
    Some((v.parse().ok()?, sp.clone()))
}

fn flag_str(argv: &[(String, Span)], names: &[&str]) -> Option<(String, Span)> {
    flag(argv, names).map(|(v, s)| (v.to_string(), s.clone()))
}

/// The serving engine a pod runs, from its containers' commands and images and the
/// `gpulint.dev/*` annotations.
fn serving(
    file: FileId,
    containers: &[Container],
    annotations: Option<&YamlNode>,
) -> Option<Serving> {
    let mut found = None;
    for c in containers {
        let a = &c.argv;
        let image = c.image.as_deref().unwrap_or_default();
        let has = |w: &str| {
            a.iter()
                .any(|(x, _)| x == w || x.rsplit('/').next() == Some(w))
        };
        let contains = |w: &str| a.iter().any(|(x, _)| x.contains(w));
        let engine = if contains("vllm.entrypoints") || image.contains("vllm") || has("vllm") {
            Engine::Vllm
        } else if has("text-generation-launcher") || image.contains("text-generation-inference") {
            Engine::Tgi
        } else if contains("sglang.launch_server") || image.contains("sglang") {
            Engine::Sglang
        } else {
            continue;
        };
        let s = match engine {
            Engine::Vllm => {
                // `vllm serve MODEL`: the model is the word after `serve` unless a flag.
                let positional = a
                    .windows(2)
                    .find(|w| w[0].0 == "serve" && !w[1].0.starts_with('-'))
                    .map(|w| (w[1].0.clone(), w[1].1.clone()));
                Serving {
                    engine,
                    model: positional.or_else(|| flag_str(a, &["--model"])),
                    params: None,
                    precision: flag_str(a, &["--dtype"]),
                    quantization: flag_str(a, &["--quantization", "-q"]),
                    kv_precision: flag_str(a, &["--kv-cache-dtype"]),
                    tp: flag_num(a, &["--tensor-parallel-size", "-tp"]),
                    pp: flag_num(a, &["--pipeline-parallel-size", "-pp"]),
                    max_model_len: flag_num(a, &["--max-model-len"]),
                    gpu_memory_utilization: flag_num(a, &["--gpu-memory-utilization"]),
                    span: c.span.clone(),
                }
            }
            Engine::Tgi => Serving {
                engine,
                model: flag_str(a, &["--model-id"]),
                params: None,
                precision: flag_str(a, &["--dtype"]),
                quantization: flag_str(a, &["--quantize"]),
                kv_precision: None,
                tp: flag_num(a, &["--num-shard"]),
                pp: None,
                max_model_len: flag_num(a, &["--max-total-tokens"]),
                gpu_memory_utilization: None,
                span: c.span.clone(),
            },
            Engine::Sglang | Engine::Hint => Serving {
                engine,
                model: flag_str(a, &["--model-path", "--model"]),
                params: None,
                precision: flag_str(a, &["--dtype"]),
                quantization: flag_str(a, &["--quantization"]),
                kv_precision: flag_str(a, &["--kv-cache-dtype"]),
                tp: flag_num(a, &["--tp", "--tp-size", "--tensor-parallel-size"]),
                pp: None,
                max_model_len: flag_num(a, &["--context-length"]),
                gpu_memory_utilization: flag_num(a, &["--mem-fraction-static"]),
                span: c.span.clone(),
            },
        };
        found = Some(s);
        break;
    }
    // Hints fill in or stand alone.
    let hint = |key: &str| {
        annotations
            .and_then(|a| a.get(key))
            .and_then(|n| Some((n.as_str()?.to_string(), n.span.clone())))
    };
    let (model, params, precision) = (
        hint("gpulint.dev/model"),
        hint("gpulint.dev/params"),
        hint("gpulint.dev/precision"),
    );
    if model.is_none() && params.is_none() && precision.is_none() {
        return found;
    }
    let to_span = |r: std::ops::Range<usize>| Span::new(file, r);
    let mut s = found.unwrap_or_else(|| Serving {
        engine: Engine::Hint,
        model: None,
        params: None,
        precision: None,
        quantization: None,
        kv_precision: None,
        tp: None,
        pp: None,
        max_model_len: None,
        gpu_memory_utilization: None,
        span: containers
            .first()
            .map_or_else(|| to_span(0..0), |c| c.span.clone()),
    });
    if let Some((m, r)) = model {
        s.model = Some((m, to_span(r)));
    }
    if let Some((p, r)) = params {
        s.params = parse_count(&p).map(|n| (n, to_span(r)));
    }
    if let Some((p, r)) = precision {
        s.precision = Some((p, to_span(r)));
    }
    Some(s)
}

/// `torchrun`, `python -m torch.distributed.run`, `deepspeed`, `accelerate launch`.
fn launcher(containers: &[Container]) -> Option<Launcher> {
    for c in containers {
        let a = &c.argv;
        let word = |w: &str| {
            a.iter()
                .any(|(x, _)| x == w || x.rsplit('/').next() == Some(w))
        };
        let max_of = |v: &str| v.rsplit(':').next().and_then(|n| n.parse::<u32>().ok());
        let (nnodes, nproc) = if word("torchrun") || word("torch.distributed.run") {
            (
                flag(a, &["--nnodes"]).and_then(|(v, _)| max_of(v)),
                flag(a, &["--nproc_per_node", "--nproc-per-node"])
                    .and_then(|(v, _)| v.parse().ok()),
            )
        } else if word("deepspeed") {
            (
                flag(a, &["--num_nodes"]).and_then(|(v, _)| v.parse().ok()),
                flag(a, &["--num_gpus"]).and_then(|(v, _)| v.parse().ok()),
            )
        } else if word("accelerate") && word("launch") {
            (
                flag(a, &["--num_machines"]).and_then(|(v, _)| v.parse().ok()),
                None,
            )
        } else {
            continue;
        };
        return Some(Launcher {
            nnodes,
            nproc_per_node: nproc,
            span: c.span.clone(),
        });
    }
    None
}

/// The role from the `gpulint.dev/role` annotation (on the object or a pod template),
/// else the kind, else what the containers run.
fn role(file: FileId, obj: &YamlNode, kind: &str, pods: &[PodShape]) -> Value<Role> {
    if let Some(n) = obj
        .path(&["metadata", "annotations", "gpulint.dev/role"])
        .or_else(|| {
            obj.path(&[
                "spec",
                "template",
                "metadata",
                "annotations",
                "gpulint.dev/role",
            ])
        })
    {
        return super::role::from_hint(n.as_str().unwrap_or_default(), span(file, n));
    }
    let whole = span(file, obj);
    // A job that runs a fabric benchmark neither trains nor serves, whatever its kind.
    if pods.iter().flat_map(|p| &p.containers).any(|c| {
        super::role::is_benchmark(c.image.as_deref(), c.argv.iter().map(|(a, _)| a.as_str()))
    }) {
        return Value::Unknown(whole);
    }
    if let Some(r) = kind_role(kind) {
        return Value::Known(r, whole);
    }
    for p in pods {
        if let Some(l) = &p.launcher {
            return Value::Known(Role::Training, l.span.clone());
        }
        if let Some(s) = &p.serving {
            return Value::Known(Role::Inference, s.span.clone());
        }
    }
    Value::Absent
}

/// A Karpenter NodePool: the instance types its requirements allow, its capacity types,
/// zones and the labels its nodes get.
fn karpenter_node_pool(file: FileId, obj: &YamlNode) -> Capacity {
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
    let template = obj.path(&["spec", "template"]);
    let reqs = template
        .and_then(|t| t.path(&["spec", "requirements"]))
        .and_then(YamlNode::items)
        .unwrap_or_default();
    let vocab = &catalog().kubernetes;
    let mut types: Option<(Vec<String>, Span)> = None;
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
            types = Some((values, sp));
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
            c.zones = Value::Known(Zones::Listed(values), sp);
        }
    }
    c.machines = match types {
        Some((t, sp)) if !t.is_empty() => Value::Known(
            t.iter()
                .map(|t| super::instance_machine(Provider::Aws, t))
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
        per_zone: None,
    };
    c.labels = template
        .and_then(|t| t.path(&["metadata", "labels"]))
        .and_then(YamlNode::entries)
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| {
            Some((
                k.as_str()?.to_string(),
                v.as_str()?.to_string(),
                span(file, v),
            ))
        })
        .collect();
    c.labels.push((
        "karpenter.sh/nodepool".into(),
        name.clone(),
        c.header.clone(),
    ));
    c.role = super::role::from_entries(&c.labels, [name.as_str()], &c.header);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::yaml;
    use crate::source::{FileKind, SourceFile};

    fn lower_text(text: &str) -> Inventory {
        let f = SourceFile::new("t.yaml".into(), None, FileKind::Yaml, text.into(), true);
        let s = yaml::parse(&f);
        assert!(s.error.is_none(), "{:?}", s.error);
        let mut out = Inventory::default();
        lower(FileId(0), &s.docs, &mut out);
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

    #[test]
    fn templated_gpu_counts_are_unknown() {
        let inv = lower_text(
            "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - resources: {limits: {nvidia.com/gpu: many}}\n",
        );
        assert!(inv.workloads[0].pods[0].gpus.is_unknown());
    }
}
