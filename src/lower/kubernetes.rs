//! Kubernetes: pod templates of the core workload kinds, lowered to [`Workload`]s.

use crate::catalog::catalog;
use crate::catalog::kubernetes::ResourceKind;
use crate::model::{
    Container, GpuRequest, Mount, PodShape, Role, Span, Toleration, Value, Volume, VolumeSource,
    Workload,
};
use crate::parse::yaml::{YamlDoc, YamlNode};
use crate::source::FileId;

/// Where each core kind keeps its pod spec, and which field counts its pods.
fn pod_spec_path(kind: &str) -> Option<(&'static [&'static str], Option<&'static str>)> {
    Some(match kind {
        "Pod" => (&["spec"], None),
        "Deployment" | "StatefulSet" | "ReplicaSet" | "ReplicationController" => {
            (&["spec", "template", "spec"], Some("replicas"))
        }
        "DaemonSet" => (&["spec", "template", "spec"], None),
        "Job" => (&["spec", "template", "spec"], Some("parallelism")),
        "CronJob" => (&["spec", "jobTemplate", "spec", "template", "spec"], None),
        _ => return None,
    })
}

pub fn lower(file: FileId, docs: &[YamlDoc], out: &mut Vec<Workload>) {
    for doc in docs {
        lower_object(file, &doc.root, out);
    }
}

fn lower_object(file: FileId, obj: &YamlNode, out: &mut Vec<Workload>) {
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
    let Some((path, replicas_key)) = pod_spec_path(kind) else {
        return;
    };
    let Some(spec) = obj.path(path) else {
        return;
    };
    let name = obj
        .path(&["metadata", "name"])
        .and_then(YamlNode::as_str)
        .map(str::to_string);
    let span = |n: &YamlNode| Span::new(file, n.span.clone());
    let replicas = match replicas_key {
        None => Value::Absent,
        Some(key) => match obj.path(&["spec", key]) {
            None => Value::Absent,
            Some(n) => match n.as_u64().and_then(|r| u32::try_from(r).ok()) {
                Some(r) => Value::Known(r, span(n)),
                None => Value::Unknown(span(n)),
            },
        },
    };
    let containers: Vec<Container> = spec
        .get("containers")
        .and_then(YamlNode::items)
        .unwrap_or_default()
        .iter()
        .map(|c| container(file, c))
        .collect();
    let role = role(file, obj, path, &containers);
    out.push(Workload {
        subject: format!("{kind}/{}", name.as_deref().unwrap_or("(unnamed)")),
        kind: kind.to_string(),
        name,
        span: span(obj),
        role,
        pods: vec![PodShape {
            group: "template".into(),
            span: span(spec),
            replicas,
            gpus: gpus(file, spec),
            node_selector: spec
                .get("nodeSelector")
                .and_then(YamlNode::entries)
                .unwrap_or_default()
                .iter()
                .filter_map(|(k, v)| {
                    Some((k.as_str()?.to_string(), v.as_str()?.to_string(), span(v)))
                })
                .collect(),
            tolerations: spec
                .get("tolerations")
                .and_then(YamlNode::items)
                .unwrap_or_default()
                .iter()
                .map(|t| Toleration {
                    key: text(t, "key"),
                    value: text(t, "value"),
                    effect: text(t, "effect"),
                    span: span(t),
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
        }],
    });
}

fn text(node: &YamlNode, key: &str) -> Option<String> {
    node.get(key).and_then(YamlNode::as_str).map(str::to_string)
}

fn container(file: FileId, c: &YamlNode) -> Container {
    let argv = ["command", "args"]
        .iter()
        .flat_map(|k| c.get(k).and_then(YamlNode::items).unwrap_or_default())
        .filter_map(|a| a.as_str().map(str::to_string))
        .collect();
    let request = |what: &str| match c.path(&["resources", "requests", what]) {
        None => Value::Absent,
        Some(n) => match n.as_str() {
            Some(q) => Value::Known(q.to_string(), Span::new(file, n.span.clone())),
            None => Value::Unknown(Span::new(file, n.span.clone())),
        },
    };
    Container {
        name: text(c, "name").unwrap_or_default(),
        argv,
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
        span: Span::new(file, c.span.clone()),
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
fn gpus(file: FileId, spec: &YamlNode) -> Value<GpuRequest> {
    let mut total: Option<(GpuRequest, Span)> = None;
    for c in spec
        .get("containers")
        .and_then(YamlNode::items)
        .unwrap_or_default()
    {
        let resources = ["limits", "requests"].iter().find_map(|k| {
            c.path(&["resources", k])
                .and_then(YamlNode::entries)
                .filter(|e| {
                    e.iter()
                        .any(|(k, _)| k.as_str().is_some_and(is_gpu_resource))
                })
        });
        for (k, v) in resources.unwrap_or_default() {
            let Some(resource) = k.as_str().filter(|k| is_gpu_resource(k)) else {
                continue;
            };
            let span = Span::new(file, v.span.clone());
            let Some(count) = v.as_u64().and_then(|n| u32::try_from(n).ok()) else {
                return Value::Unknown(span);
            };
            match &mut total {
                None => {
                    total = Some((
                        GpuRequest {
                            resource: resource.to_string(),
                            count,
                        },
                        span,
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
        span: Span::new(file, v.span.clone()),
    })
}

/// The role from the `gpulint.dev/role` annotation (on the object or its pod template),
/// else from the launcher the containers run.
fn role(file: FileId, obj: &YamlNode, spec_path: &[&str], containers: &[Container]) -> Value<Role> {
    let template = &spec_path[..spec_path.len() - 1];
    let annotated = [
        &["metadata", "annotations"][..],
        &[template, &["metadata", "annotations"]].concat(),
    ]
    .into_iter()
    .find_map(|p| obj.path(p).and_then(|a| a.get("gpulint.dev/role")));
    if let Some(n) = annotated {
        let span = Span::new(file, n.span.clone());
        return match n.as_str() {
            Some("training") => Value::Known(Role::Training, span),
            Some("inference") => Value::Known(Role::Inference, span),
            _ => Value::Unknown(span),
        };
    }
    for c in containers {
        let line = c.argv.join(" ");
        let words: Vec<&str> = line.split_whitespace().collect();
        let launches = |w: &str| words.iter().any(|x| x.rsplit('/').next() == Some(w));
        let role = if launches("torchrun")
            || launches("deepspeed")
            || line.contains("accelerate launch")
        {
            Some(Role::Training)
        } else if line.contains("vllm serve")
            || line.contains("vllm.entrypoints")
            || launches("text-generation-launcher")
            || line.contains("sglang.launch_server")
        {
            Some(Role::Inference)
        } else {
            None
        };
        if let Some(r) = role {
            return Value::Known(r, c.span.clone());
        }
    }
    Value::Absent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::yaml;
    use crate::source::{FileKind, SourceFile};

    fn lower_text(text: &str) -> Vec<Workload> {
        let f = SourceFile::new("t.yaml".into(), None, FileKind::Yaml, text.into(), true);
        let s = yaml::parse(&f);
        assert!(s.error.is_none(), "{:?}", s.error);
        let mut out = Vec::new();
        lower(FileId(0), &s.docs, &mut out);
        out
    }

    #[test]
    fn deployment_pod_shape() {
        let w = lower_text(
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
      containers:
        - name: server
          command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
          resources:
            requests: { cpu: "8", memory: 32Gi }
            limits: { nvidia.com/gpu: 1 }
          volumeMounts: [{ name: shm, mountPath: /dev/shm }]
        - name: sidecar
          resources: { limits: { nvidia.com/gpu: "1" } }
      volumes:
        - name: shm
          emptyDir: { medium: Memory }
"#,
        );
        assert_eq!(w.len(), 1);
        let w = &w[0];
        assert_eq!(w.subject, "Deployment/vllm");
        assert_eq!(w.role.known(), Some(&Role::Inference));
        let p = &w.pods[0];
        assert_eq!(p.replicas.known(), Some(&2));
        assert_eq!(p.gpus.known().map(|g| g.count), Some(2));
        assert_eq!(p.node_selector[0].1, "nvidia-l4");
        assert_eq!(p.volumes[0].source, VolumeSource::EmptyDir { memory: true });
        assert_eq!(
            p.containers[0].cpu_request.known().map(String::as_str),
            Some("8")
        );
        assert_eq!(p.containers[0].mounts[0].path, "/dev/shm");
    }

    #[test]
    fn cronjob_list_and_annotations() {
        let w = lower_text(
            r"
kind: List
items:
  - kind: CronJob
    metadata:
      name: nightly
      annotations: { gpulint.dev/role: training }
    spec:
      jobTemplate:
        spec:
          template:
            spec:
              containers: [{ name: t, resources: { limits: { nvidia.com/mig-1g.10gb: 1 } } }]
  - kind: ConfigMap
    metadata: { name: c }
",
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].role.known(), Some(&Role::Training));
        let g = w[0].pods[0].gpus.known().unwrap();
        assert_eq!(
            (g.resource.as_str(), g.count),
            ("nvidia.com/mig-1g.10gb", 1)
        );
    }

    #[test]
    fn templated_gpu_counts_are_unknown() {
        let w = lower_text(
            "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - resources: {limits: {nvidia.com/gpu: many}}\n",
        );
        assert!(w[0].pods[0].gpus.is_unknown());
    }
}
