//! Objects whose pods run on simulated nodes (KWOK's fake nodes, in scheduler benchmarks):
//! nothing in them runs on a GPU, so no rule judges them.

use gpulint_facts::catalog;
use gpulint_model::Str;
use gpulint_syntax::yaml::{YamlNode, YamlValue};

/// A sign (the `[simulated]` table) that the object's pods run on simulated nodes: a KWOK
/// stage annotation or a toleration of KWOK's node taint, anywhere in the object.
pub(super) fn sign(node: &YamlNode, depth: usize) -> Option<Str> {
    let table = &catalog().kubernetes.simulated;
    if depth > 12 {
        return None;
    }
    match &node.value {
        YamlValue::Map(entries) => entries.iter().find_map(|(k, v)| match k.as_str() {
            Some("annotations") => v.entries()?.iter().find_map(|(a, _)| {
                let key = a.as_str()?;
                let domain = key.split_once('/')?.0;
                table
                    .annotation_domains
                    .iter()
                    .any(|d| domain.ends_with(d.as_str()))
                    .then(|| Str::from(key))
            }),
            Some("tolerations") => v.items()?.iter().find_map(|t| {
                let key = t.get("key")?.as_str()?;
                table
                    .toleration_keys
                    .iter()
                    .any(|k| k == key)
                    .then(|| Str::from(key))
            }),
            _ => sign(v, depth + 1),
        }),
        YamlValue::Seq(items) => items.iter().find_map(|i| sign(i, depth + 1)),
        YamlValue::Scalar(_) => None,
    }
}
