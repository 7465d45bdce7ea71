//! Specs that hold a container's fields in a shape of their own (the operator table's
//! `spec_pod.fields`: Run:ai's `gpu: {value: "1"}`, `cpu`, `arguments`, `pvcs`), rewritten
//! as the pod spec the operator makes, every value keeping its place in the file, so the
//! pod reader reads them as it reads any pod.

use gpulint_facts::operators::Fields;
use gpulint_syntax::yaml::{Scalar, YamlNode, YamlValue};

/// The pod spec `at` stands for: one container with the fields `f` finds, and the claims it
/// mounts as volumes. Whether the operator mounts a large `/dev/shm` is the second value.
pub(super) fn pod_spec(at: &YamlNode, f: &Fields) -> (YamlNode, bool) {
    let field = |paths: &[Vec<String>]| -> Option<&YamlNode> {
        let n = paths.iter().find_map(|p| at.path(p))?;
        Some(unwrap(n, f.wrapped.as_deref()))
    };
    let mut container = Vec::new();
    for (key, paths) in [
        ("image", &f.image),
        ("command", &f.command),
        ("args", &f.args),
    ] {
        if let Some(n) = field(paths) {
            // A command written as one string is a list of one.
            let n = match (&n.value, key) {
                (YamlValue::Scalar(_), "command" | "args") => seq(n, vec![n.clone()]),
                _ => n.clone(),
            };
            container.push(entry(key, n));
        }
    }
    let mut requests = Vec::new();
    for (key, paths) in [("cpu", &f.cpu), ("memory", &f.memory)] {
        if let Some(n) = field(paths) {
            requests.push(entry(key, n.clone()));
        }
    }
    let mut resources = Vec::new();
    if !requests.is_empty() {
        resources.push(entry("requests", map(at, requests)));
    }
    if let Some(n) = field(&f.gpus) {
        resources.push(entry(
            "limits",
            map(n, vec![entry("nvidia.com/gpu", n.clone())]),
        ));
    }
    if !resources.is_empty() {
        container.push(entry("resources", map(at, resources)));
    }
    let (mut volumes, mut mounts) = (Vec::new(), Vec::new());
    let items = field(&f.claims).map_or_else(Vec::new, |n| match &n.value {
        YamlValue::Seq(items) => items.iter().collect(),
        YamlValue::Map(entries) => entries.iter().map(|(_, v)| v).collect(),
        YamlValue::Scalar(_) => Vec::new(),
    });
    for item in items {
        let item = unwrap(item, f.wrapped.as_deref());
        let (Some(name), Some(path)) = (item.get(&f.claim_name), item.get(&f.claim_path)) else {
            continue;
        };
        let claim = map(item, vec![entry("claimName", name.clone())]);
        volumes.push(map(
            item,
            vec![
                entry("name", name.clone()),
                entry("persistentVolumeClaim", claim),
            ],
        ));
        mounts.push(map(
            item,
            vec![
                entry("name", name.clone()),
                entry("mountPath", path.clone()),
            ],
        ));
    }
    if !mounts.is_empty() {
        container.push(entry("volumeMounts", seq(at, mounts)));
    }
    let mut spec = vec![entry("containers", seq(at, vec![map(at, container)]))];
    if !volumes.is_empty() {
        spec.push(entry("volumes", seq(at, volumes)));
    }
    let large_shm = field(&f.large_shm).and_then(YamlNode::as_bool) == Some(true);
    (map(at, spec), large_shm)
}

/// The value a wrapped field holds (`{value: x}` → `x`), else the field.
fn unwrap<'a>(n: &'a YamlNode, wrapped: Option<&str>) -> &'a YamlNode {
    wrapped.and_then(|k| n.get(k)).unwrap_or(n)
}

/// A key written by gpulint, placed at its value.
fn entry(key: &str, value: YamlNode) -> (YamlNode, YamlNode) {
    let k = YamlNode {
        span: value.span.clone(),
        value: YamlValue::Scalar(Scalar {
            text: key.to_string(),
            plain: true,
        }),
    };
    (k, value)
}

fn map(at: &YamlNode, entries: Vec<(YamlNode, YamlNode)>) -> YamlNode {
    YamlNode {
        span: at.span.clone(),
        value: YamlValue::Map(entries),
    }
}

fn seq(at: &YamlNode, items: Vec<YamlNode>) -> YamlNode {
    YamlNode {
        span: at.span.clone(),
        value: YamlValue::Seq(items),
    }
}
