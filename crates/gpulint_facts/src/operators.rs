//! The operators that run GPU work on Kubernetes, as data (`data/operators.toml`): per
//! API group and kind, the role the kind implies, whether its pods talk to each other,
//! what the operator writes into the pods itself, and which objects it merges into them.
//! Pods are found by the generic pod-spec search; a row says what the search cannot see.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

const OPERATORS: &str = include_str!("data/operators.toml");

/// The role a kind implies, whatever its containers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KindRole {
    Training,
    Inference,
}

/// One operator's kinds.
// Each flag is an independent column of the table, read as written.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operator {
    pub id: String,
    /// As shown in `inspect`: `Kubeflow Training Operator`.
    pub name: String,
    /// The API groups of its kinds (`ray.io` matches `ray.io/v1`).
    pub api_groups: Vec<String>,
    pub kinds: Vec<String>,
    /// The role every object of these kinds has.
    pub role: Option<KindRole>,
    /// The role by a key the object holds (Kaito: `tuning` trains, `inference` serves).
    #[serde(default)]
    pub role_by_key: BTreeMap<String, KindRole>,
    /// The pods of one object work together (replica groups of one job): when they hold
    /// GPUs and are two or more, the work spans pods.
    #[serde(default)]
    pub distributed: bool,
    /// Mounts a memory-backed `/dev/shm` in the pods it makes.
    #[serde(default)]
    pub mounts_shm: bool,
    /// A serving engine in its pods places ranks in the other pods (a Ray cluster): one
    /// whose parallel size is above its pod's GPUs spans pods.
    #[serde(default)]
    pub engines_span_pods: bool,
    /// Its pods run until someone deletes the object (a notebook server).
    #[serde(default)]
    pub standing: bool,
    /// Its objects are interactive sessions a person works in (a notebook, a shell), as
    /// findings name them: `a Kubeflow notebook`.
    pub session: Option<String>,
    /// Objects it merges into the pods (a KServe runtime into the predictor).
    pub merge: Option<Merge>,
    /// Replica groups that outlive the work unless a policy removes them (MPI workers).
    pub ends: Option<Ends>,
    /// Kinds with no pod template, whose spec is one container-like spec the operator
    /// makes pods from (NIMService, KubeAI's Model).
    pub spec_pod: Option<SpecPod>,
    /// Where the kinds are defined (CRD or Go types, at a version).
    pub source: String,
}

/// A merge: the pod of an object of this operator takes what it leaves out from another
/// object, named by a reference or chosen by a format the other object offers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Merge {
    /// The kinds of the object merged in.
    pub kinds: Vec<String>,
    /// The key path (from the object) of the name of the object merged in.
    pub name: Vec<String>,
    /// The key path of the format the object asks for, when no name is written.
    #[serde(default)]
    pub format: Vec<String>,
    /// The key path, in the merged object, of the list of formats it offers; each item
    /// has a `name` and, when `auto_select` is set, that key true to be chosen.
    #[serde(default)]
    pub offers: Vec<String>,
    pub auto_select: Option<String>,
    /// The replica group of the merged object whose pod is merged (a training runtime's
    /// `node`); its first pod otherwise.
    pub pod: Option<String>,
    /// What the merged object is to the user, in messages: `its serving runtime`.
    pub what: String,
}

/// A policy that decides whether some groups' pods outlive the work (`cleanPodPolicy`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ends {
    /// Where the policy is written, the first path found.
    pub policy: Vec<Vec<String>>,
    /// The policy when none is written.
    pub default: String,
    /// Policies that delete the lingering pods when the work ends.
    pub ends_with: Vec<String>,
    /// The replica groups whose pods stay up otherwise.
    pub lingering: Vec<String>,
}

/// Where a kind with no pod template says what its pods hold. Paths are from the object.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecPod {
    /// The container-like spec: `image`, `resources`, `env`, `args`, `nodeSelector`,
    /// `tolerations` as a pod's container and spec write them.
    pub at: Vec<String>,
    /// The image when it is not a string at `at`.image (`image.repository`).
    #[serde(default)]
    pub image: Vec<String>,
    /// Pods when no autoscaler runs (`replicas`), or the fewest an autoscaler keeps.
    #[serde(default)]
    pub replicas: Vec<Vec<String>>,
    /// Pods that serve one replica together (multi-node), the first path written.
    #[serde(default)]
    pub group_size: Vec<Vec<String>>,
    /// A `<profile>:<count>` naming GPU and count (KubeAI's `resourceProfile`).
    #[serde(default)]
    pub profile: Vec<String>,
    /// Profiles → catalog GPU ids.
    #[serde(default)]
    pub profiles: BTreeMap<String, String>,
    /// The operator writes the containers, volumes and requests from configuration not
    /// in the object: only the pod's shape is the user's.
    #[serde(default)]
    pub generated: bool,
    /// Where a spec that is not written as a container keeps a container's fields (Run:ai's
    /// `gpu`, `cpu`, `arguments`), each a list of paths from `at`, the first written.
    pub fields: Option<Fields>,
}

/// A container's fields in a spec of another shape, paths from the spec.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fields {
    /// Each field may be a map holding its value under this key (`gpu: {value: "1"}`).
    pub wrapped: Option<String>,
    #[serde(default)]
    pub image: Vec<Vec<String>>,
    #[serde(default)]
    pub command: Vec<Vec<String>>,
    #[serde(default)]
    pub args: Vec<Vec<String>>,
    /// Whole NVIDIA GPUs.
    #[serde(default)]
    pub gpus: Vec<Vec<String>>,
    #[serde(default)]
    pub cpu: Vec<Vec<String>>,
    #[serde(default)]
    pub memory: Vec<Vec<String>>,
    /// A flag that, true, has the operator mount a large memory-backed `/dev/shm`.
    #[serde(default)]
    pub large_shm: Vec<Vec<String>>,
    /// Persistent claims mounted: a list (or a map) of items naming the claim under
    /// `claim_name` and its mount path under `claim_path`.
    #[serde(default)]
    pub claims: Vec<Vec<String>>,
    #[serde(default)]
    pub claim_name: String,
    #[serde(default)]
    pub claim_path: String,
}

impl Operator {
    /// Whether an object of `kind` under `api_version` is this operator's.
    pub fn owns(&self, kind: &str, api_version: &str) -> bool {
        let group = api_version.split('/').next().unwrap_or_default();
        self.api_groups.iter().any(|g| g == group) && self.kinds.iter().any(|k| k == kind)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    operator: Vec<Operator>,
}

/// The embedded table, parsed on first use.
pub fn operators() -> &'static [Operator] {
    static TABLE: OnceLock<Vec<Operator>> = OnceLock::new();
    TABLE.get_or_init(|| {
        toml::from_str::<File>(OPERATORS)
            .expect("operators.toml is valid (tested)")
            .operator
    })
}

/// The operator whose kind `kind` under `api_version` is.
pub fn operator(kind: &str, api_version: &str) -> Option<&'static Operator> {
    operators().iter().find(|o| o.owns(kind, api_version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_cites_a_source_and_no_kind_is_claimed_twice() {
        let mut seen = std::collections::HashSet::new();
        for o in operators() {
            assert!(o.source.len() > 20, "{}: a source", o.id);
            assert!(!o.kinds.is_empty() && !o.api_groups.is_empty(), "{}", o.id);
            for g in &o.api_groups {
                for k in &o.kinds {
                    assert!(seen.insert((g, k)), "{g}/{k} in two rows");
                }
            }
        }
    }

    #[test]
    fn kinds_are_matched_by_group_and_kind() {
        assert_eq!(
            operator("PyTorchJob", "kubeflow.org/v1").map(|o| o.role),
            Some(Some(KindRole::Training))
        );
        assert!(operator("RayCluster", "ray.io/v1").is_some_and(|o| o.mounts_shm && o.distributed));
        assert!(operator("Job", "batch/v1").is_none());
        assert!(operator("Job", "batch.volcano.sh/v1alpha1").is_some());
        let isvc = operator("InferenceService", "serving.kserve.io/v1beta1").unwrap();
        let kubeai = operator("Model", "kubeai.org/v1").unwrap();
        let profiles = &kubeai.spec_pod.as_ref().unwrap().profiles;
        for id in profiles.values() {
            assert!(
                crate::catalog().gpu(id).is_some(),
                "KubeAI profile GPU `{id}` is in the catalog"
            );
        }
        assert!(
            isvc.merge
                .as_ref()
                .is_some_and(|m| m.kinds.iter().any(|k| k == "ClusterServingRuntime"))
        );
    }
}
