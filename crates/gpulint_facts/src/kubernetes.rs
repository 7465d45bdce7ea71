//! Kubernetes vocabularies: node labels and extended resources, mapped to the catalog.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Confidence, Gpu};
use crate::{Market, Provider};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuLabelRow {
    key: String,
    /// The one cloud whose nodes carry the label (`aws`, `gcp`, `azure`), when only one
    /// does.
    provider: Option<String>,
    values: BTreeMap<String, Vec<String>>,
    source: String,
    confidence: Confidence,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRow {
    pub key: String,
    pub source: String,
    pub confidence: Confidence,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarketLabel {
    pub key: String,
    #[serde(default)]
    pub spot: Vec<String>,
    #[serde(default)]
    pub on_demand: Vec<String>,
    #[serde(default)]
    pub reserved: Vec<String>,
    pub source: String,
    pub confidence: Confidence,
}

/// What an extended resource is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceKind {
    /// A whole GPU.
    Gpu,
    /// A time-sliced or MPS replica of a GPU.
    Shared,
    /// A MIG slice.
    Mig,
    /// AWS Inferentia/Trainium: an accelerator, not a GPU.
    Neuron,
    /// An EFA interface.
    Efa,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceRow {
    pub name: Option<String>,
    pub prefix: Option<String>,
    pub kind: ResourceKind,
    pub source: String,
    pub confidence: Confidence,
}

/// An object that resizes another workload's replicas (an HPA, a KEDA ScaledObject): where
/// it names its target and its minimum.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalerRow {
    pub kind: String,
    /// Its API group, without the version (`keda.sh`).
    pub api_group: String,
    /// The path to the object naming the target (`kind`, `name`).
    pub target: Vec<String>,
    /// The target's kind when the object does not write one.
    pub default_kind: Option<String>,
    /// The path to its minimum replica count.
    pub min: Vec<String>,
    /// The minimum when it is not written.
    pub min_default: u32,
    pub source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    gpu_label: Vec<GpuLabelRow>,
    instance_label: Vec<KeyRow>,
    family_label: Vec<KeyRow>,
    size_label: Vec<KeyRow>,
    market_label: Vec<MarketLabel>,
    accelerator_label: Vec<KeyRow>,
    zone_label: Vec<KeyRow>,
    resource: Vec<ResourceRow>,
    eksctl: Eksctl,
    gpu_nodes: GpuNodes,
    autoprovisioners: Autoprovisioners,
    group_autoscalers: GroupAutoscalers,
    terraform_objects: TerraformObjects,
    chart_values: ChartValues,
    unread: Unread,
    fabric: FabricSigns,
    dra: Dra,
    shared_gpu: SharedGpu,
    simulated: Simulated,
    scaler: Vec<ScalerRow>,
}

/// What says a module sets up a node autoprovisioner (Karpenter).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Autoprovisioners {
    /// Helm charts, by the last part of `chart`.
    pub helm_charts: Vec<String>,
    /// Submodules, by the end of a module call's `source` path.
    pub module_sources: Vec<String>,
    /// Tag keys the provisioner discovers resources by.
    pub tag_keys: Vec<String>,
    /// The arguments and module inputs tags are written in.
    pub tag_inputs: Vec<String>,
    /// A word one of the run's resources or module calls must be named with for a tag to
    /// count (`aws_iam_role.karpenter`): copied examples carry the tag without it.
    pub tag_needs_named: String,
    /// Module inputs that install it when `true` (an add-ons module's `enable_karpenter`).
    pub module_inputs: Vec<String>,
    pub source: String,
}

/// What says a run installs the Cluster Autoscaler, which scales existing node groups.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupAutoscalers {
    /// Helm charts, by the last part of `chart`.
    pub helm_charts: Vec<String>,
    /// Module inputs that install it when `true`.
    pub module_inputs: Vec<String>,
    /// Words of a container image that runs it.
    pub images: Vec<String>,
    pub source: String,
}

/// What says a node group's machines hold GPUs when their type is not known.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuNodes {
    /// Node images only GPU machines boot (EKS `ami_type`).
    pub images: Vec<String>,
    /// Taint and label keys only GPU nodes carry.
    pub node_keys: Vec<String>,
    /// Commands in a node's bootstrap that set up NVIDIA's container runtime.
    pub bootstrap: Vec<String>,
    /// Whole words that, in the name of a machine type's variable or of the resource
    /// itself, say its machines hold GPUs (`var.GPU_INSTANCE_TYPE`, `aws_instance.gpu_box`).
    pub name_words: Vec<String>,
    /// Whole words that, in the same name, say otherwise (`var.cpu_or_gpu_type`,
    /// `non_gpu_pool`): no bound is read from such a name.
    pub name_negations: Vec<String>,
    pub source: String,
}

impl GpuNodes {
    /// Whether a node label or taint (`key`, `value`) marks GPU nodes: a GPU key whose
    /// value does not say there is none (`nvidia.com/gpu.present=false`).
    pub fn marks(&self, key: &str, value: &str) -> bool {
        self.node_keys.iter().any(|k| k == key) && !value.eq_ignore_ascii_case("false")
    }

    /// The word of [`GpuNodes::name_words`] that `name` holds, when none of
    /// [`GpuNodes::name_negations`] is there too. Words are split at every character
    /// that is not a letter or digit and where case changes (`spotGPUWorker`), and
    /// compared without case.
    pub fn named<'a>(&'a self, name: &str) -> Option<&'a str> {
        let words = split_words(name);
        if holds_word(&words, &self.name_negations).is_some() {
            return None;
        }
        holds_word(&words, &self.name_words)
    }

    /// Whether `name` holds one of [`GpuNodes::name_negations`] (`var.cpu_instance_type`):
    /// it says the machine may have no GPU.
    pub fn name_says_otherwise(&self, name: &str) -> bool {
        holds_word(&split_words(name), &self.name_negations).is_some()
    }

    /// The first bootstrap command `script` runs that only a GPU node needs.
    pub fn in_bootstrap(&self, script: &str) -> Option<&str> {
        self.bootstrap
            .iter()
            .find(|w| {
                script.lines().any(|l| {
                    let l = l.trim_start();
                    !l.starts_with('#') && l.contains(w.as_str())
                })
            })
            .map(String::as_str)
    }
}

/// The first of `wanted` that is one of `words` (from [`split_words`]), compared without
/// case.
fn holds_word<'a>(words: &[&str], wanted: &'a [String]) -> Option<&'a str> {
    wanted
        .iter()
        .find(|w| words.iter().any(|x| x.eq_ignore_ascii_case(w)))
        .map(String::as_str)
}

/// The words of a name: runs of letters or digits, also split between letters and digits
/// (`gpu1`), where a lower-case letter meets an upper-case one (`spotGpu`) and before the
/// last capital of a capital run that a lower-case word follows (`GPUWorker` → `GPU`,
/// `Worker`; but `GPUs` is one word).
pub fn split_words(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for run in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let b = run.as_bytes();
        let mut start = 0;
        for i in 1..b.len() {
            let lower_to_upper = b[i - 1].is_ascii_lowercase() && b[i].is_ascii_uppercase();
            // A plural `s` after capitals (`GPUs`) ends the word rather than starting one.
            let plural =
                b.get(i + 1) == Some(&b's') && !b.get(i + 2).is_some_and(u8::is_ascii_lowercase);
            let caps_to_word = b[i - 1].is_ascii_uppercase()
                && b[i].is_ascii_uppercase()
                && b.get(i + 1).is_some_and(u8::is_ascii_lowercase)
                && !plural;
            let digits = b[i - 1].is_ascii_digit() != b[i].is_ascii_digit();
            if lower_to_upper || caps_to_word || digits {
                out.push(&run[start..i]);
                start = i;
            }
        }
        if start < run.len() {
            out.push(&run[start..]);
        }
    }
    out
}

/// Terraform's typed Kubernetes resources, read as the manifests they make.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerraformObjects {
    /// Resource type → `apiVersion kind`.
    pub kinds: std::collections::BTreeMap<String, String>,
    /// A block repeated under its singular name → the API's list field.
    pub list_blocks: std::collections::BTreeMap<String, String>,
    pub source: String,
}

/// What says an object's pods are simulated (KWOK's fake nodes): nothing runs on a GPU.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulated {
    /// Annotation keys in these domains (the part before `/`, or a suffix of it).
    pub annotation_domains: Vec<String>,
    /// Tolerations of these taint keys.
    pub toleration_keys: Vec<String>,
    pub source: String,
}

/// What says a pod's GPUs are shares of a GPU, not whole ones (HAMi's vGPU resources, a
/// scheduler's fraction annotation).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedGpu {
    /// Resources asked beside `nvidia.com/gpu` that make it a count of slices.
    pub resources: Vec<String>,
    /// Pod annotations that ask for a share of one GPU, with no GPU resource.
    pub annotations: Vec<String>,
    pub source: String,
}

/// Dynamic Resource Allocation: the device classes whose devices are GPUs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dra {
    pub gpu_device_classes: Vec<String>,
    pub source: String,
}

/// What in a pod says it uses the fast fabric between nodes, or turns it off.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricSigns {
    pub resource_prefixes: Vec<String>,
    pub annotations: Vec<String>,
    pub host_paths: Vec<String>,
    /// `[name, value]`; the value `*` is any.
    pub env_on: Vec<[String; 2]>,
    pub env_off: Vec<[String; 2]>,
    pub source: String,
}

impl FabricSigns {
    /// `Some(true)` when the variable sets the fabric up, `Some(false)` when it forces TCP.
    pub fn env(&self, name: &str, value: &str) -> Option<bool> {
        let hit = |rows: &[[String; 2]]| {
            rows.iter()
                .any(|[k, v]| k == name && (v == "*" || v == value))
        };
        if hit(&self.env_off) {
            Some(false)
        } else if hit(&self.env_on) {
            Some(true)
        } else {
            None
        }
    }
}

/// Kinds whose documents hold nothing gpulint checks.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unread {
    pub kinds: Vec<String>,
    pub source: String,
}

/// Where a chart's values hold whole manifests that it renders as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartValues {
    /// The keys of the values whose lists of manifests the chart renders as written
    /// (`resources` of the raw charts, `extraObjects`…).
    pub manifest_keys: Vec<String>,
    pub source: String,
}

/// eksctl's defaults for what a node group leaves out.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Eksctl {
    /// Nodes in a group that writes neither `minSize` nor `desiredCapacity`.
    pub default_node_count: u64,
    /// The maximum of a managed group whose maximum would otherwise be 0.
    pub default_max_size: u64,
    pub source: String,
}

/// A label that names GPU models.
#[derive(Debug)]
pub struct GpuLabel {
    pub key: String,
    /// The one cloud whose nodes carry the label, when only one does.
    pub provider: Option<Provider>,
    pub values: BTreeMap<String, Vec<&'static Gpu>>,
    pub source: String,
    pub confidence: Confidence,
}

#[derive(Debug)]
pub struct Vocabulary {
    pub gpu_labels: Vec<GpuLabel>,
    pub instance_labels: Vec<KeyRow>,
    pub family_labels: Vec<KeyRow>,
    pub size_labels: Vec<KeyRow>,
    pub market_labels: Vec<MarketLabel>,
    pub accelerator_labels: Vec<KeyRow>,
    pub zone_labels: Vec<KeyRow>,
    pub resources: Vec<ResourceRow>,
    pub eksctl: Eksctl,
    pub gpu_nodes: GpuNodes,
    pub autoprovisioners: Autoprovisioners,
    pub group_autoscalers: GroupAutoscalers,
    pub terraform_objects: TerraformObjects,
    pub chart_values: ChartValues,
    pub fabric: FabricSigns,
    pub dra: Dra,
    pub shared_gpu: SharedGpu,
    pub simulated: Simulated,
    /// Objects that resize another workload's replicas.
    pub scalers: Vec<ScalerRow>,
    /// Kinds whose YAML documents are checked for syntax only (no tree is built).
    pub unread_kinds: Vec<String>,
}

impl Vocabulary {
    pub(super) fn load(
        text: &str,
        gpu: impl Fn(&str) -> Option<&'static Gpu>,
    ) -> Result<Self, String> {
        let f: File = toml::from_str(text).map_err(|e| format!("kubernetes.toml: {e}"))?;
        let mut gpu_labels = Vec::new();
        for row in f.gpu_label {
            let mut values = BTreeMap::new();
            for (value, ids) in row.values {
                let gpus = ids
                    .iter()
                    .map(|id| {
                        gpu(id).ok_or_else(|| {
                            format!("kubernetes.toml: {} = {value}: unknown GPU `{id}`", row.key)
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                values.insert(value, gpus);
            }
            let provider = match row.provider.as_deref() {
                None => None,
                Some("aws") => Some(Provider::Aws),
                Some("gcp") => Some(Provider::Gcp),
                Some("azure") => Some(Provider::Azure),
                Some(other) => {
                    return Err(format!(
                        "kubernetes.toml: {}: unknown provider `{other}`",
                        row.key
                    ));
                }
            };
            gpu_labels.push(GpuLabel {
                key: row.key,
                provider,
                values,
                source: row.source,
                confidence: row.confidence,
            });
        }
        Ok(Vocabulary {
            gpu_labels,
            instance_labels: f.instance_label,
            family_labels: f.family_label,
            size_labels: f.size_label,
            market_labels: f.market_label,
            accelerator_labels: f.accelerator_label,
            zone_labels: f.zone_label,
            resources: f.resource,
            eksctl: f.eksctl,
            gpu_nodes: f.gpu_nodes,
            autoprovisioners: f.autoprovisioners,
            group_autoscalers: f.group_autoscalers,
            terraform_objects: f.terraform_objects,
            chart_values: f.chart_values,
            fabric: f.fabric,
            dra: f.dra,
            shared_gpu: f.shared_gpu,
            scalers: f.scaler,
            simulated: f.simulated,
            unread_kinds: f.unread.kinds,
        })
    }

    /// The GPUs a node label names. `None` when the key is not a GPU label; an empty list
    /// when it is one but the value is not in the catalog.
    pub fn gpus_for_label(&self, key: &str, value: &str) -> Option<Vec<&'static Gpu>> {
        let label = self.gpu_labels.iter().find(|l| l.key == key)?;
        // GFD adds `-SHARED` under a sharing strategy and `-MIG-<profile>` under MIG.
        let value = value
            .strip_suffix("-SHARED")
            .unwrap_or(value)
            .split("-MIG-")
            .next()
            .unwrap_or(value);
        Some(label.values.get(value).cloned().unwrap_or_default())
    }

    /// Whether a label's value names GPU models.
    pub fn is_gpu_label(&self, key: &str) -> bool {
        self.gpu_labels.iter().any(|l| l.key == key)
    }

    /// The one cloud whose nodes carry GPU label `key`, when only one does.
    pub fn gpu_label_provider(&self, key: &str) -> Option<Provider> {
        self.gpu_labels.iter().find(|l| l.key == key)?.provider
    }

    /// Every catalog GPU that any of `values` names under the GPU label `key`.
    pub fn gpus_for_values(&self, key: &str, values: &[impl AsRef<str>]) -> Vec<&'static Gpu> {
        values
            .iter()
            .flat_map(|v| self.gpus_for_label(key, v.as_ref()).unwrap_or_default())
            .collect()
    }

    /// The market a capacity-type label says.
    pub fn market_for_label(&self, key: &str, value: &str) -> Option<Market> {
        let l = self.market_labels.iter().find(|l| l.key == key)?;
        let has = |set: &[String]| set.iter().any(|v| v == value);
        if has(&l.spot) {
            Some(Market::Spot)
        } else if has(&l.on_demand) {
            Some(Market::OnDemand)
        } else if has(&l.reserved) {
            Some(Market::Reserved)
        } else {
            None
        }
    }

    pub fn is_instance_label(&self, key: &str) -> bool {
        self.instance_labels.iter().any(|l| l.key == key)
    }

    pub fn is_family_label(&self, key: &str) -> bool {
        self.family_labels.iter().any(|l| l.key == key)
    }

    pub fn is_size_label(&self, key: &str) -> bool {
        self.size_labels.iter().any(|l| l.key == key)
    }

    pub fn is_zone_label(&self, key: &str) -> bool {
        self.zone_labels.iter().any(|l| l.key == key)
    }

    pub fn is_accelerator_label(&self, key: &str) -> bool {
        self.accelerator_labels.iter().any(|l| l.key == key)
    }

    /// What an extended resource name is.
    pub fn resource_kind(&self, name: &str) -> Option<ResourceKind> {
        self.resources
            .iter()
            .find(|r| {
                r.name.as_deref() == Some(name)
                    || r.prefix.as_deref().is_some_and(|p| name.starts_with(p))
            })
            .map(|r| r.kind)
    }
}

#[cfg(test)]
mod tests {
    use crate::Market;
    use crate::catalog;

    use super::{ResourceKind, split_words};

    #[test]
    fn labels_map_to_catalog_gpus() {
        let k = &catalog().kubernetes;
        let ids = |key: &str, value: &str| -> Option<Vec<String>> {
            k.gpus_for_label(key, value)
                .map(|g| g.iter().map(|g| g.id.clone()).collect())
        };
        assert_eq!(
            ids("cloud.google.com/gke-accelerator", "nvidia-l4"),
            Some(vec!["l4".into()])
        );
        assert_eq!(
            ids("karpenter.k8s.aws/instance-gpu-name", "a100"),
            Some(vec!["a100-40gb".into(), "a100-80gb".into()])
        );
        assert_eq!(
            ids(
                "nvidia.com/gpu.product",
                "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"
            ),
            Some(vec!["a100-80gb".into()])
        );
        assert_eq!(
            ids("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3-SHARED"),
            Some(vec!["h100".into()])
        );
        assert_eq!(
            ids("cloud.google.com/gke-accelerator", "nvidia-future"),
            Some(vec![])
        );
        assert_eq!(ids("app", "web"), None);
    }

    #[test]
    fn names_say_gpu_by_whole_words_unless_they_say_otherwise() {
        let signs = &catalog().kubernetes.gpu_nodes;
        assert_eq!(signs.named("var.GPU_INSTANCE_TYPE"), Some("gpu"));
        assert_eq!(signs.named("aws_instance.spotGPUWorker"), Some("gpu"));
        assert_eq!(signs.named("local.pools[\"gpu-a\"]"), Some("gpu"));
        assert_eq!(signs.named("var.gpuInstanceType"), Some("gpu"));
        // A word, not a part of one; and a name that also says CPU says nothing.
        assert_eq!(signs.named("var.gpuless_type"), None);
        assert_eq!(signs.named("var.cpu_or_gpu_instance_type"), None);
        assert_eq!(signs.named("aws_instance.non_gpu"), None);
        assert_eq!(signs.named("var.instance_type"), None);
        assert_eq!(
            split_words("spotGPUWorker2x"),
            ["spot", "GPU", "Worker", "2", "x"]
        );
        assert_eq!(split_words("numGPUs"), ["num", "GPUs"]);
        assert_eq!(signs.named("var.numGPUs"), Some("gpus"));
        assert_eq!(signs.named("aws_instance.gpu1"), Some("gpu"));
        assert!(signs.name_says_otherwise("var.cpu_instance_type"));
    }

    #[test]
    fn capacity_labels_say_the_market() {
        let k = &catalog().kubernetes;
        assert_eq!(
            k.market_for_label("karpenter.sh/capacity-type", "spot"),
            Some(Market::Spot)
        );
        assert_eq!(
            k.market_for_label("eks.amazonaws.com/capacityType", "ON_DEMAND"),
            Some(Market::OnDemand)
        );
        assert_eq!(
            k.market_for_label("cloud.google.com/gke-spot", "true"),
            Some(Market::Spot)
        );
        assert_eq!(
            k.market_for_label("kubernetes.azure.com/scalesetpriority", "spot"),
            Some(Market::Spot)
        );
        assert_eq!(
            k.market_for_label("karpenter.sh/capacity-type", "reserved"),
            Some(Market::Reserved)
        );
        assert_eq!(k.market_for_label("app", "spot"), None);
    }

    #[test]
    fn resources_are_classified() {
        let k = &catalog().kubernetes;
        assert_eq!(k.resource_kind("nvidia.com/gpu"), Some(ResourceKind::Gpu));
        assert_eq!(
            k.resource_kind("nvidia.com/mig-1g.10gb"),
            Some(ResourceKind::Mig)
        );
        assert_eq!(k.resource_kind("amd.com/gpu"), Some(ResourceKind::Gpu));
        assert_eq!(
            k.resource_kind("aws.amazon.com/neuron"),
            Some(ResourceKind::Neuron)
        );
        assert_eq!(k.resource_kind("cpu"), None);
        assert!(k.is_instance_label("node.kubernetes.io/instance-type"));
        assert!(k.is_zone_label("topology.kubernetes.io/zone"));
    }
}
