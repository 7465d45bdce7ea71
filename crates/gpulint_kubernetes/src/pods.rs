//! Pod specs: containers, GPUs, volumes, node requirements and what they select.

use super::engines::{launcher, serving};
use super::{count, span, text, word};
use gpulint_facts::catalog;
use gpulint_facts::kubernetes::ResourceKind;
use gpulint_facts::operators::SpecPod;
use gpulint_model::{
    ClaimRef, Container, Engine, FabricSignal, GpuClaim, GpuRequest, Market, Mount, PodShape,
    Provider, Requirement, Selection, Serving, Span, Str, Toleration, Value, Volume, VolumeSource,
};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

pub(super) fn pod(
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
        group: group.into(),
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
                key: word(t, "key"),
                value: word(t, "value"),
                effect: word(t, "effect"),
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
                Some((k.as_str()?.into(), span(file, k)))
            })
            .collect(),
        selection,
        serving: serving.map(Box::new),
        launcher,
        scaling: None,
        landing: Vec::new(),
        fabric: None,
        generated_by: None,
        shm_by: None,
        claims: claims(file, spec),
        restart: word(spec, "restartPolicy"),
        shared: None,
    }
}

/// A pod's DRA claims: `resourceClaims[]` naming a template or a claim (also in the older
/// `source:` form).
fn claims(file: FileId, spec: &YamlNode) -> Vec<ClaimRef> {
    spec.get("resourceClaims")
        .and_then(YamlNode::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| {
            let (target, claim) = claim_target(c).or_else(|| claim_target(c.get("source")?))?;
            Some(ClaimRef {
                name: word(c, "name")?,
                target: target.as_str()?.into(),
                claim,
                span: span(file, target),
            })
        })
        .collect()
}

/// The template (or, `true`, the claim) a pod's claim entry names.
fn claim_target(node: &YamlNode) -> Option<(&YamlNode, bool)> {
    match node.get("resourceClaimTemplateName") {
        Some(t) => Some((t, false)),
        None => Some((node.get("resourceClaimName")?, true)),
    }
}

/// The GPUs a ResourceClaimTemplate (`template`) or ResourceClaim asks for: its device
/// requests of a GPU device class (`[dra]` in kubernetes.toml), `count` each, 1 when not
/// written, at least 1 for `allocationMode: All` or a count gpulint cannot read.
pub(super) fn gpu_claim(file: FileId, obj: &YamlNode, template: bool) -> Option<GpuClaim> {
    let spec = obj.get("spec")?;
    let devices = if template {
        spec.path(&["spec", "devices"])
    } else {
        spec.get("devices")
    }?;
    let classes = &catalog().kubernetes.dra.gpu_device_classes;
    let mut total: Option<(GpuRequest, Span)> = None;
    for r in devices
        .get("requests")
        .and_then(YamlNode::items)
        .unwrap_or_default()
    {
        // resource.k8s.io/v1 writes a request's device under `exactly`.
        let d = r.get("exactly").unwrap_or(r);
        let Some(class) = d.get("deviceClassName").and_then(YamlNode::as_str) else {
            continue;
        };
        if !classes.iter().any(|c| c == class) {
            continue;
        }
        let all = d.get("allocationMode").and_then(YamlNode::as_str) == Some("All");
        let (count, exact) = match d.get("count") {
            _ if all => (1, false),
            None => (1, true),
            Some(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map_or((1, false), |n| (n, true)),
        };
        let request = GpuRequest {
            resource: class.to_string(),
            count,
            exact,
        };
        add_gpus(&mut total, request, span(file, d));
    }
    let (gpus, sp) = total?;
    Some(GpuClaim {
        name: obj.path(&["metadata", "name"])?.as_str()?.into(),
        claim: !template,
        gpus,
        span: sp,
    })
}

/// Kubeflow Trainer v2: `spec.trainer` has no pod template, only nodes and resources.
pub(super) fn train_job_pod(
    file: FileId,
    trainer: &YamlNode,
    annotations: Option<&YamlNode>,
) -> PodShape {
    let c = container(file, trainer);
    let mut p = pod(file, "trainer".into(), trainer, Value::Absent, annotations);
    p.replicas = trainer
        .get("numNodes")
        .map_or(Value::Absent, |n| count(file, n));
    if let Some(res) = trainer.get("resourcesPerNode") {
        p.gpus = gpus_of(file, [res]);
    }
    p.launcher = launcher(std::slice::from_ref(&c));
    p.containers = vec![c];
    p
}

/// Kubeflow Trainer v2: what a TrainJob's patches of its runtime's pods add to the
/// trainer's pod (`runtimePatches`, `podTemplateOverrides`, `podSpecOverrides`): their
/// volumes, and their containers' mounts. The patches are found as pod specs of their
/// own by the generic search; they are taken out of `pods` and merged into `trainer`.
pub(super) fn merge_train_job_patches(
    file: FileId,
    spec: &YamlNode,
    trainer: &mut PodShape,
    pods: &mut Vec<PodShape>,
) {
    let mut patches = Vec::new();
    for key in ["runtimePatches", "podTemplateOverrides", "podSpecOverrides"] {
        if let Some(n) = spec.get(key) {
            crate::search::find_pods(file, n, key, &mut Vec::new(), None, &mut patches);
        }
    }
    pods.retain(|p| !patches.iter().any(|q| q.span == p.span));
    for patch in patches {
        trainer.volumes.extend(patch.volumes);
        if let Some(c) = trainer.containers.first_mut() {
            c.mounts
                .extend(patch.containers.into_iter().flat_map(|c| c.mounts));
        }
    }
}

/// A Kaito Workspace: `resource.count` nodes of `resource.instanceType`, each pod holding
/// every GPU of its node. Kaito writes the pods (containers, volumes, requests) itself.
pub(super) fn kaito_pod(file: FileId, obj: &YamlNode) -> Option<PodShape> {
    let resource = obj.get("resource")?;
    let mut p = pod(file, "workspace".into(), resource, Value::Absent, None);
    p.generated_by = Some("Kaito");
    p.replicas = match resource.get("count") {
        Some(n) => count(file, n),
        // Kaito's default is one node.
        None => Value::Known(1, span(file, resource)),
    };
    if let Some(t) = resource.get("instanceType") {
        let sp = span(file, t);
        p.gpus = match t.as_str() {
            Some(name) => match catalog().instance(Provider::Azure, name) {
                Some(i) => {
                    p.selection.instance_types = Some((vec![name.into()], sp.clone()));
                    Value::Known(
                        GpuRequest {
                            resource: "nvidia.com/gpu".into(),
                            count: i.row.count,
                            exact: true,
                        },
                        sp,
                    )
                }
                None => Value::Unknown(sp),
            },
            None => Value::Unknown(sp),
        };
    }
    if obj.get("inference").is_some() {
        // Kaito shards the preset over every GPU of the node.
        let tp = match &p.gpus {
            Value::Known(g, sp) => Some((g.count, sp.clone())),
            _ => None,
        };
        // A preset's precision and engine settings are Kaito's own, chosen for the
        // instance types it supports: its model is not sized here.
        p.serving = Some(Box::new(Serving {
            tp,
            ..Serving::bare(Engine::Other("Kaito"), span(file, obj))
        }));
    }
    Some(p)
}

/// Words of a container's command and args. `sh -c "script"` is split into the script's
/// words, which share the script's span.
/// `$(NAME)` is replaced by the container's literal environment variable, as Kubernetes
/// does before the command runs (`$$(NAME)` stays literal; unknown names stay as written).
pub(super) fn argv(file: FileId, c: &YamlNode, env: &[(Str, Str, Span)]) -> Vec<(Str, Span)> {
    let raw: Vec<(String, Span)> = ["command", "args"]
        .iter()
        .flat_map(|k| c.get(k).and_then(YamlNode::items).unwrap_or_default())
        .filter_map(|a| Some((expand(a.as_str()?, env), span(file, a))))
        .collect();
    let mut out = Vec::new();
    for (text, sp) in raw {
        if text.contains(char::is_whitespace) {
            // A shell script: its operators separate words even when written against them
            // (`train.py;`, `a&&b`), and a line continuation is no word.
            let spaced = text
                .replace("&&", " && ")
                .replace("||", " || ")
                .replace(';', " ; ");
            out.extend(spaced.split_whitespace().filter(|w| *w != "\\").map(|w| {
                (
                    Str::from(w.trim_matches(|c| c == '"' || c == '\'')),
                    sp.clone(),
                )
            }));
        } else {
            out.push((text.into(), sp));
        }
    }
    out
}

/// Kubernetes' `$(VAR)` expansion in `command` and `args`, over literal `env` values.
fn expand(text: &str, env: &[(Str, Str, Span)]) -> String {
    if !text.contains("$(") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(escaped) = after.strip_prefix("$(") {
            out.push_str("$(");
            rest = escaped;
        } else if let Some((name, tail)) = after.strip_prefix('(').and_then(|r| r.split_once(')'))
            && let Some((_, v, _)) = env.iter().find(|(k, _, _)| k == name)
        {
            out.push_str(v);
            rest = tail;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

pub(super) fn container(file: FileId, c: &YamlNode) -> Container {
    let env: Vec<(Str, Str, Span)> = c
        .get("env")
        .and_then(YamlNode::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| {
            let v = e.get("value")?;
            let value = v
                .as_str()
                .map(Str::from)
                .or_else(|| v.as_u64().map(|n| n.to_string().into()))?;
            Some((word(e, "name")?, value, span(file, v)))
        })
        .collect();
    // Kubeflow Trainer writes a node's resources as `resourcesPerNode`.
    let resources = c.get("resources").or_else(|| c.get("resourcesPerNode"));
    // Kubernetes copies a limit into a missing request.
    let request = |what: &str| match resources
        .and_then(|r| r.path(&["requests", what]))
        .or_else(|| resources.and_then(|r| r.path(&["limits", what])))
    {
        None => Value::Absent,
        Some(n) => match n.as_str() {
            Some(q) => Value::Known(q.into(), span(file, n)),
            None => Value::Unknown(span(file, n)),
        },
    };
    Container {
        name: word(c, "name").unwrap_or_default(),
        image: word(c, "image"),
        argv: argv(file, c, &env),
        gpus: gpus_of(file, resources),
        mounts: c
            .get("volumeMounts")
            .and_then(YamlNode::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|m| {
                Some(Mount {
                    volume: word(m, "name")?,
                    path: word(m, "mountPath")?,
                })
            })
            .collect(),
        claims: resources
            .and_then(|r| r.get("claims"))
            .and_then(YamlNode::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|c| word(c, "name"))
            .collect(),
        cpu_request: request("cpu"),
        memory_request: request("memory"),
        env,
        listens: c
            .get("ports")
            .and_then(YamlNode::items)
            .is_some_and(|p| !p.is_empty())
            || ["readinessProbe", "livenessProbe", "startupProbe"]
                .iter()
                .any(|probe| {
                    c.get(probe).is_some_and(|p| {
                        ["httpGet", "grpc", "tcpSocket"]
                            .iter()
                            .any(|k| p.get(k).is_some())
                    })
                }),
        span: span(file, c),
    }
}

/// Whether an extended resource is a GPU (whole, MIG slice or shared), per the catalog.
pub(super) fn is_gpu_resource(name: &str) -> bool {
    matches!(
        catalog().kubernetes.resource_kind(name),
        Some(ResourceKind::Gpu | ResourceKind::Shared | ResourceKind::Mig)
    )
}

/// Adds `request` to a running sum of GPU requests: the first one's resource and span
/// stand for the sum, a count that is a lower bound makes the sum one.
pub(super) fn add_gpus(total: &mut Option<(GpuRequest, Span)>, request: GpuRequest, at: Span) {
    match total {
        None => *total = Some((request, at)),
        Some((t, _)) => {
            t.count = t.count.saturating_add(request.count);
            t.exact &= request.exact;
        }
    }
}

/// GPUs one pod asks for: limits (which extended resources require), else requests.
/// `resources` are the containers' `resources` mappings (or TrainJob's
/// `resourcesPerNode`).
pub(super) fn gpus_of<'a>(
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
            // A placeholder (`$GPUS`, `{{ .Values.gpus }}`) still asks for GPUs: at least
            // one. A number that is no count (`1.5`, `-1`) is unknown.
            let (count, exact) = match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
                Some(n) => (n, true),
                None if v.as_str().is_some_and(is_placeholder) => (1, false),
                None => return Value::Unknown(sp),
            };
            let request = GpuRequest {
                resource: resource.to_string(),
                count,
                exact,
            };
            add_gpus(&mut total, request, sp);
        }
    }
    match total {
        Some((t, s)) => Value::Known(t, s),
        None => Value::Absent,
    }
}

/// What a pod says about the fast fabric: `template` is the pod template (holding its
/// `metadata.annotations`) when there is one. Devices and networks first, then switches.
/// What the pod's spec and its template's (or object's) metadata say beyond its containers:
/// the fabric it uses, and whether its GPUs are shares of a GPU.
pub(super) fn signals(
    file: FileId,
    p: &mut PodShape,
    spec: &YamlNode,
    template: Option<&YamlNode>,
) {
    p.fabric = fabric(file, spec, template);
    let Some((sign, at, share_only)) = shared_gpu(file, spec, template) else {
        return;
    };
    // A share asked by annotation alone is a share of one GPU.
    if share_only && p.gpus == Value::Absent {
        p.gpus = Value::Known(
            GpuRequest {
                resource: "nvidia.com/gpu".into(),
                count: 1,
                exact: true,
            },
            at.clone(),
        );
    }
    p.shared = Some((sign, at));
}

/// A sign (the `[shared_gpu]` table) that the pod's GPUs are shares: a shared resource its
/// containers ask for, or a fraction annotation on the pod (`true`: asked without a GPU
/// resource).
fn shared_gpu(
    file: FileId,
    spec: &YamlNode,
    template: Option<&YamlNode>,
) -> Option<(Str, Span, bool)> {
    let table = &catalog().kubernetes.shared_gpu;
    let asked = resource_entries(spec_containers(spec)).find_map(|(key, _)| {
        let name = key
            .as_str()
            .filter(|n| table.resources.iter().any(|r| r == n))?;
        Some((format!("`{name}`").into(), span(file, key), false))
    });
    if asked.is_some() {
        return asked;
    }
    let annotations = template?.path(&["metadata", "annotations"])?.entries()?;
    annotations.iter().find_map(|(k, v)| {
        let key = k
            .as_str()
            .filter(|k| table.annotations.iter().any(|a| a == k))?;
        let value = v.as_str().unwrap_or_default();
        Some((format!("`{key}: {value}`").into(), span(file, v), true))
    })
}

/// The containers of a pod spec; a container-like spec (NIMService) is its own one.
fn spec_containers(spec: &YamlNode) -> &[YamlNode] {
    match spec.get("containers").and_then(YamlNode::items) {
        Some(c) => c,
        None if spec.get("resources").is_some() => std::slice::from_ref(spec),
        None => &[],
    }
}

/// Every resource the containers list under `limits` and `requests`, key and value.
fn resource_entries(containers: &[YamlNode]) -> impl Iterator<Item = &(YamlNode, YamlNode)> {
    containers.iter().flat_map(|c| {
        ["limits", "requests"].into_iter().flat_map(move |k| {
            c.path(&["resources", k])
                .and_then(YamlNode::entries)
                .unwrap_or_default()
        })
    })
}

pub(super) fn fabric(
    file: FileId,
    spec: &YamlNode,
    template: Option<&YamlNode>,
) -> Option<FabricSignal> {
    let on = |what: String, n: &YamlNode| FabricSignal {
        on: true,
        what,
        span: span(file, n),
    };
    let vocab = &catalog().kubernetes;
    let signs = &vocab.fabric;
    let containers = spec_containers(spec);
    // NCCL obeys a switch that forces TCP whatever devices the pod holds.
    if let Some(off) = env_switch(file, containers, false) {
        return Some(off);
    }
    for (key, v) in resource_entries(containers) {
        let Some(name) = key.as_str() else { continue };
        if vocab.resource_kind(name) == Some(ResourceKind::Efa)
            || signs.resource_prefixes.iter().any(|p| name.starts_with(p))
        {
            return Some(on(format!("requests `{name}`"), v));
        }
    }
    let annotations = template.and_then(|t| t.path(&["metadata", "annotations"]));
    for key in &signs.annotations {
        if let Some(n) = annotations.and_then(|a| a.get(key)) {
            return Some(on(format!("joins networks through `{key}`"), n));
        }
    }
    if let Some(n) = spec
        .get("hostNetwork")
        .filter(|n| n.as_bool() == Some(true))
    {
        return Some(on(
            "uses `hostNetwork`, the node's own interfaces".into(),
            n,
        ));
    }
    for v in spec
        .get("volumes")
        .and_then(YamlNode::items)
        .unwrap_or_default()
    {
        if let Some(path) = v.path(&["hostPath", "path"]).and_then(YamlNode::as_str)
            && signs
                .host_paths
                .iter()
                .any(|p| path.starts_with(p.as_str()))
        {
            return Some(on(format!("mounts the host's `{path}`"), v));
        }
    }
    env_switch(file, containers, true)
}

/// The first fabric switch among the containers' literal variables: one that forces TCP
/// when `on` is false, else one that sets the fabric up.
fn env_switch(file: FileId, containers: &[YamlNode], on: bool) -> Option<FabricSignal> {
    let signs = &catalog().kubernetes.fabric;
    for c in containers {
        for e in c.get("env").and_then(YamlNode::items).unwrap_or_default() {
            let (Some(k), Some(v)) = (text(e, "name"), e.get("value")) else {
                continue;
            };
            let value = v
                .as_str()
                .map(str::to_string)
                .or_else(|| v.as_u64().map(|n| n.to_string()));
            let Some(value) = value else { continue };
            if signs.env(&k, value.trim()) != Some(on) {
                continue;
            }
            return Some(FabricSignal {
                on,
                what: format!("sets `{k}={}`", value.trim()),
                span: span(file, v),
            });
        }
    }
    None
}

/// Text where a number belongs that is not a number: a template's placeholder.
pub(super) fn is_placeholder(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty() && t.parse::<f64>().is_err()
}

pub(super) fn volume(file: FileId, v: &YamlNode) -> Option<Volume> {
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
        name: name.into(),
        source,
        span: span(file, v),
    })
}

/// `nodeSelector` entries and required node-affinity `In` expressions.
pub(super) fn requirements(file: FileId, spec: &YamlNode) -> Vec<Requirement> {
    let mut out: Vec<Requirement> = spec
        .get("nodeSelector")
        .and_then(YamlNode::entries)
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, v)| {
            Some(Requirement {
                key: k.as_str()?.into(),
                values: vec![v.as_str()?.into()],
                exists: false,
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
            let operator = e.get("operator").and_then(YamlNode::as_str);
            if operator == Some("Exists")
                && let Some(key) = word(e, "key")
            {
                out.push(Requirement {
                    key,
                    values: Vec::new(),
                    exists: true,
                    span: span(file, e),
                });
                continue;
            }
            if operator != Some("In") {
                continue;
            }
            let (Some(key), Some(values)) = (word(e, "key"), e.get("values")) else {
                continue;
            };
            out.push(Requirement {
                key,
                values: values
                    .items()
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|v| v.as_str().map(Str::from))
                    .collect(),
                exists: false,
                span: span(file, values),
            });
        }
    }
    out
}

/// What the requirements say through the catalog's vocabularies.
pub(super) fn selection(requirements: &[Requirement]) -> Selection {
    let vocab = &catalog().kubernetes;
    let mut s = Selection::default();
    // A label that need only be set narrows nothing down.
    for r in requirements.iter().filter(|r| !r.exists) {
        if vocab.is_gpu_label(&r.key) {
            let gpus = vocab.gpus_for_values(&r.key, &r.values);
            if !gpus.is_empty() {
                s.gpus = Some((gpus, r.span.clone()));
                s.gpus_provider = vocab.gpu_label_provider(&r.key);
            }
        } else if vocab.is_instance_label(&r.key) {
            s.instance_types = Some((r.values.clone(), r.span.clone()));
        } else if vocab.is_family_label(&r.key) {
            let types: Vec<Str> = r
                .values
                .iter()
                .flat_map(|f| catalog().family(f).map(|i| Str::from(i.row.name.as_str())))
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

/// A kind with no pod template, whose spec is one container-like spec (the operator
/// table's `spec_pod`): the pod the operator makes from it.
pub(super) fn spec_pod(
    file: FileId,
    obj: &YamlNode,
    row: &SpecPod,
    operator: &'static str,
    annotations: Option<&YamlNode>,
) -> Option<PodShape> {
    // An unwritten path (no keys) names nothing, not the object.
    let path = |p: &[String]| (!p.is_empty()).then(|| obj.path(p)).flatten();
    let at = path(&row.at)?;
    let wrapped = row.fields.as_ref().and_then(|f| f.wrapped.as_deref());
    let replicas = row
        .replicas
        .iter()
        .find_map(|p| path(p))
        .map(|n| wrapped.and_then(|k| n.get(k)).unwrap_or(n))
        .map_or(Value::Absent, |n| count(file, n));
    if let Some(fields) = &row.fields {
        let (spec, large_shm) = crate::translate::pod_spec(at, fields);
        let mut p = pod(file, "spec".into(), &spec, replicas, annotations);
        signals(file, &mut p, &spec, Some(obj));
        if large_shm {
            p.shm_by = Some(operator);
        }
        return Some(p);
    }
    let mut p = pod(file, "spec".into(), at, replicas, annotations);
    let mut c = container(file, at);
    if let Some(image) = path(&row.image).and_then(YamlNode::as_str) {
        c.image = Some(image.into());
    }
    p.gpus = c.gpus.clone();
    if let Some(n) = path(&row.profile)
        && let Some(profile) = n.as_str()
    {
        let (name, n_gpus) = profile.split_once(':').unwrap_or((profile, "1"));
        if let Some(gpu) = row.profiles.get(name).and_then(|id| catalog().gpu(id)) {
            let sp = span(file, n);
            p.gpus = match n_gpus.trim().parse::<u32>() {
                Ok(count) => Value::Known(
                    GpuRequest {
                        resource: "nvidia.com/gpu".into(),
                        count,
                        exact: true,
                    },
                    sp.clone(),
                ),
                Err(_) => Value::Unknown(sp.clone()),
            };
            p.selection.gpus = Some((vec![gpu], sp));
        }
    }
    p.containers = vec![c];
    p.serving = serving(file, &p.containers, annotations).map(Box::new);
    p.launcher = launcher(&p.containers);
    signals(file, &mut p, at, Some(obj));
    if row.generated {
        p.generated_by = Some(operator);
    }
    Some(p)
}
