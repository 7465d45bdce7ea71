//! The role of a workload: the operator table's word on its kind, then every signal its
//! containers, names and labels give (see `gpulint_model::intent`).

use super::span;
use gpulint_facts::operators::{KindRole, Operator};
use gpulint_model::intent::{self, Word};
use gpulint_model::{Benchmark, Inferred, PodShape, Role};
use gpulint_source::FileId;
use gpulint_syntax::yaml::YamlNode;

/// The role a kind implies whatever its pods run, with the reason: the operator table's
/// `role`, or its `role_by_key` when the object holds the key.
fn kind_role(obj: &YamlNode, kind: &str, op: Option<&Operator>) -> Option<(Role, String)> {
    let op = op?;
    let (role, why) = match op.role {
        Some(r) => (r, None),
        None => op
            .role_by_key
            .iter()
            .find(|(k, _)| obj.get(k).is_some())
            .map(|(k, r)| (*r, Some(k)))?,
    };
    let (role, what) = match role {
        KindRole::Training => (Role::Training, "a training kind"),
        KindRole::Inference => (Role::Inference, "a serving kind"),
    };
    Some((
        role,
        match why {
            Some(key) => format!("{} {kind} with `{key}`", op.name),
            None => format!("{kind}, {what}"),
        },
    ))
}

/// The role, with its evidence (see [`intent::workload`]).
pub(super) fn role(
    file: FileId,
    obj: &YamlNode,
    kind: &str,
    op: Option<&Operator>,
    pods: &[PodShape],
) -> (Inferred<Role>, Option<Benchmark>) {
    const HINT: &str = "gpulint.dev/role";
    let hint = obj
        .path(&["metadata", "annotations", HINT])
        .or_else(|| obj.path(&["spec", "template", "metadata", "annotations", HINT]))
        .map(|n| (n.as_str().unwrap_or_default(), span(file, n)));
    let mut words: Vec<Word<'_>> = obj
        .path(&["metadata", "name"])
        .and_then(YamlNode::as_str)
        .map(Word::Name)
        .into_iter()
        .collect();
    for path in [
        &["metadata", "labels"][..],
        &["spec", "template", "metadata", "labels"],
    ] {
        let labels = obj
            .path(path)
            .and_then(YamlNode::entries)
            .unwrap_or_default();
        words.extend(
            labels
                .iter()
                .filter_map(|(k, v)| Some(Word::Label(k.as_str()?, v.as_str()?))),
        );
    }
    let whole = span(file, obj);
    let containers = pods.iter().flat_map(|p| &p.containers);
    // A RayJob's `entrypoint` is the command its job runs.
    let entrypoint = obj
        .path(&["spec", "entrypoint"])
        .and_then(|n| Some((n.as_str()?, span(file, n))));
    let mut facts: Vec<intent::ContainerFacts<'_>> = containers
        .clone()
        .map(|c| intent::ContainerFacts {
            image: c.image.as_deref(),
            argv: c.argv.iter().map(|(a, _)| a.as_str()).collect(),
            span: &c.span,
        })
        .collect();
    if let Some((text, sp)) = &entrypoint {
        facts.insert(
            0,
            intent::ContainerFacts {
                image: None,
                argv: text.split_whitespace().collect(),
                span: sp,
            },
        );
    }
    let benchmark = intent::benchmark(&facts);
    let role = intent::workload(&intent::WorkloadFacts {
        kind,
        hint,
        kind_role: kind_role(obj, kind, op),
        containers: facts,
        words,
        gpus: pods.iter().any(|p| p.gpus.holds_gpus()),
        serves_http: containers.clone().any(|c| c.listens),
        whole: &whole,
    });
    (role, benchmark)
}
