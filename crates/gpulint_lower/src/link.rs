//! Linking: each pod to the capacity it can land on, by node selectors, affinities,
//! tolerations and taints, within the Terraform roots and folders it shares with that
//! capacity.

use std::collections::HashSet;

use gpulint_facts::catalog;
use gpulint_model::{Capacity, CapacityKind, Inventory};

/// How a capacity answers one pod requirement.
#[derive(PartialEq, Eq)]
enum Answer {
    /// A fact of the capacity matches (a label it sets, its type, GPU, market or zone).
    Yes,
    /// Nothing the capacity states rules it out (an unknown zone, the node's OS).
    Maybe,
    No,
}

fn answer(c: &Capacity, r: &gpulint_model::Requirement) -> Answer {
    let vocab = &catalog().kubernetes;
    if let Some((_, v, _)) = c.labels.iter().find(|(k, _, _)| *k == r.key) {
        return if r.exists || r.values.iter().any(|x| x.as_str() == v.as_str()) {
            Answer::Yes
        } else {
            Answer::No
        };
    }
    let decide = |ok: bool| if ok { Answer::Yes } else { Answer::No };
    if r.exists {
        return exists_answer(c, r);
    }
    if vocab.is_instance_label(&r.key) {
        return match &c.machines {
            gpulint_model::Value::Known(m, _) => {
                decide(m.iter().any(|m| r.values.contains(&m.name)))
            }
            _ => Answer::Maybe,
        };
    }
    if vocab.is_gpu_label(&r.key) {
        let wanted = vocab.gpus_for_values(&r.key, &r.values);
        return match c.gpu_machines() {
            Some((m, _)) => decide(m.iter().any(|m| {
                m.gpus
                    .as_ref()
                    .is_some_and(|g| wanted.iter().any(|w| w.id == g.gpu.id))
            })),
            None if c.machines.known().is_some() => Answer::No,
            None => Answer::Maybe,
        };
    }
    if r.values
        .iter()
        .any(|v| vocab.market_for_label(&r.key, v).is_some())
    {
        let wanted: Vec<_> = r
            .values
            .iter()
            .filter_map(|v| vocab.market_for_label(&r.key, v))
            .collect();
        return match c.market.known() {
            Some(m) => decide(wanted.contains(m)),
            // An unset market is the provider's default: on-demand.
            None => decide(wanted.contains(&gpulint_model::Market::OnDemand)),
        };
    }
    if vocab.is_zone_label(&r.key) {
        return match c.zones.known() {
            Some(gpulint_model::Zones::Listed(z)) => decide(z.iter().any(|z| r.values.contains(z))),
            _ => Answer::Maybe,
        };
    }
    // Labels every node has whatever its pool.
    if matches!(r.key.as_str(), "kubernetes.io/os" | "kubernetes.io/arch") {
        return Answer::Maybe;
    }
    Answer::No
}

/// How a pool that does not write the label `r.key` answers `Exists` on it: the labels
/// the provider or the GPU operator put on its nodes are there (a GPU label on a GPU
/// pool, its instance type, zone and OS); any other label is not.
fn exists_answer(c: &Capacity, r: &gpulint_model::Requirement) -> Answer {
    let vocab = &catalog().kubernetes;
    if vocab.is_gpu_label(&r.key) {
        return if c.gpu_machines().is_some() || c.machines.known().is_none() {
            Answer::Yes
        } else {
            Answer::No
        };
    }
    if vocab.is_instance_label(&r.key)
        || vocab.is_zone_label(&r.key)
        || matches!(r.key.as_str(), "kubernetes.io/os" | "kubernetes.io/arch")
    {
        return Answer::Maybe;
    }
    Answer::No
}

/// Whether a pool that does not set the label `r.key` answers `No` to `r` whatever else
/// it states: the last case of [`answer`]. Then only pools that set the label (to one of
/// `r.values`, or to any value for `Exists`) can take the pod.
fn needs_label(r: &gpulint_model::Requirement) -> bool {
    let vocab = &catalog().kubernetes;
    !(vocab.is_instance_label(&r.key)
        || vocab.is_gpu_label(&r.key)
        || r.values
            .iter()
            .any(|v| vocab.market_for_label(&r.key, v).is_some())
        || vocab.is_zone_label(&r.key)
        || matches!(r.key.as_str(), "kubernetes.io/os" | "kubernetes.io/arch"))
}

/// Whether a pod's tolerations let it onto a pool's nodes, and whether they say it is
/// meant for them. A taint repels a pod that neither tolerates it nor requests the extended
/// resource it is named after (Kubernetes' ExtendedResourceToleration tolerates
/// `nvidia.com/gpu` for a pod that requests it, where the cluster enables it: gpulint does
/// not count that against the pool). A pool whose repelling taints the pod tolerates by
/// name is one the pod is meant for.
fn taints_answer(c: &Capacity, pod: &gpulint_model::PodShape) -> Answer {
    let requested = pod.gpus.known().map(|g| g.resource.as_str());
    let mut named = false;
    for t in c.taints.iter().filter(|t| t.repels()) {
        if pod
            .tolerations
            .iter()
            .any(|tol| tol.key.is_some() && tol.tolerates(t))
        {
            named = true;
        } else if !(pod.tolerations.iter().any(|tol| tol.tolerates(t))
            || requested == Some(t.key.as_str()))
        {
            return Answer::No;
        }
    }
    if named { Answer::Yes } else { Answer::Maybe }
}

/// Links every pod to the capacity in the run it can land on: pools whose taints it
/// tolerates and that satisfy all of the pod's node requirements, with at least one fact of
/// the pool (a requirement it answers, a taint the pod tolerates by name) saying so. Of
/// those, the nearest are kept: the pools whose files share the most folders with the
/// pod's (a monorepo of examples is many clusters, each with its pools beside its
/// workloads). Each pool then knows the workloads that land on it. `folders` holds each
/// file's folder, by file id.
pub(crate) fn link(inv: &mut Inventory, folders: &[&str]) {
    // Every pod is matched against the GPU pools: find those once.
    let pools: Vec<(usize, &Capacity)> = inv
        .capacity
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            matches!(c.kind, CapacityKind::NodePool | CapacityKind::Group)
                && c.gpu_machines().is_some()
        })
        .collect();
    // The pools by the labels they set (the first of a repeated key, as `answer` reads
    // them), and by the keys of the taints that repel, in `pools` order: a pod that
    // requires a plain label only looks at the pools that set it (20k pods × 20k pools
    // was 4·10⁸ answers).
    let mut by_label: std::collections::HashMap<(&str, &str), Vec<usize>> =
        std::collections::HashMap::new();
    let mut by_key: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    let mut by_taint: std::collections::HashMap<&str, Vec<usize>> =
        std::collections::HashMap::new();
    for (n, (_, c)) in pools.iter().enumerate() {
        let mut seen: HashSet<&str> = HashSet::new();
        for (k, v, _) in &c.labels {
            if seen.insert(k) {
                by_label.entry((k, v)).or_default().push(n);
                by_key.entry(k).or_default().push(n);
            }
        }
        let mut seen: HashSet<&str> = HashSet::new();
        for t in c.taints.iter().filter(|t| t.repels()) {
            if seen.insert(&t.key) {
                by_taint.entry(&t.key).or_default().push(n);
            }
        }
    }
    let all: Vec<usize> = (0..pools.len()).collect();
    for w in &mut inv.workloads {
        for pod in &mut w.pods {
            let mut candidates: Option<Vec<usize>> = None;
            for r in pod.requirements.iter().filter(|r| needs_label(r)) {
                let found = if r.exists {
                    by_key.get(r.key.as_str()).cloned().unwrap_or_default()
                } else {
                    sorted(
                        r.values
                            .iter()
                            .filter_map(|v| by_label.get(&(r.key.as_str(), v.as_str()))),
                    )
                };
                if candidates.as_ref().is_none_or(|c| found.len() < c.len()) {
                    candidates = Some(found);
                }
            }
            if pod.requirements.is_empty() {
                // Only tolerations can tie it to a pool: those tainted with a key it names.
                let keys = pod.tolerations.iter().filter_map(|t| t.key.as_deref());
                let found = sorted(keys.filter_map(|k| by_taint.get(k)));
                if found.is_empty() {
                    continue;
                }
                candidates = Some(found);
            }
            pod.landing = candidates
                .as_ref()
                .unwrap_or(&all)
                .iter()
                .map(|&n| pools[n])
                .filter(|(_, c)| {
                    let mut yes = match taints_answer(c, pod) {
                        Answer::No => return false,
                        a => a == Answer::Yes,
                    };
                    for r in &pod.requirements {
                        match answer(c, r) {
                            Answer::No => return false,
                            Answer::Yes => yes = true,
                            Answer::Maybe => {}
                        }
                    }
                    yes
                })
                .map(|(i, _)| i)
                .collect();
            if pod.landing.len() > 1 {
                let mine = &folders[w.span.file.0 as usize];
                let depths: Vec<usize> = pod
                    .landing
                    .iter()
                    .map(|i| shared_folders(folders[inv.capacity[*i].header.file.0 as usize], mine))
                    .collect();
                let nearest = depths.iter().copied().max().unwrap_or_default();
                let mut kept = depths.iter();
                pod.landing.retain(|_| kept.next() == Some(&nearest));
            }
        }
    }
    for (w, workload) in inv.workloads.iter().enumerate() {
        let mut on: Vec<usize> = workload
            .pods
            .iter()
            .flat_map(|p| p.landing.iter().copied())
            .collect();
        on.sort_unstable();
        on.dedup();
        for c in on {
            inv.capacity[c].landed_by.push(w);
        }
    }
}

/// How many leading folders two folder names share (`a/b/c` and `a/b/d` share 2).
fn shared_folders(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// The pool numbers in `lists`, sorted, each once.
fn sorted<'a>(lists: impl Iterator<Item = &'a Vec<usize>>) -> Vec<usize> {
    let mut found: Vec<usize> = lists.flatten().copied().collect();
    found.sort_unstable();
    found.dedup();
    found
}
