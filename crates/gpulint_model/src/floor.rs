//! GPUs a capacity surely holds when its machine type is not known (a variable without a
//! value, an envsubst placeholder, attribute-based selection): its set-up still says
//! "GPU machines" through an image only GPU machines boot, a taint or label only GPU nodes
//! carry, a bootstrap that sets up NVIDIA's container runtime, or an accelerator count.
//! The signs are data (`gpu_nodes` in the Kubernetes vocabulary).

use crate::{Capacity, GpuFloor, Span, Value};
use gpulint_facts::catalog;

/// `1 GPU`, `4 GPUs`.
pub fn gpus(n: u32) -> String {
    if n == 1 {
        "1 GPU".into()
    } else {
        format!("{n} GPUs")
    }
}

impl Capacity {
    /// Whether its machine type is unknown and nothing has bounded its GPUs yet.
    fn floor_wanted(&self) -> bool {
        matches!(self.machines, Value::Unknown(_)) && self.gpus_at_least.is_none()
    }

    /// Sets the bound on GPUs per machine, unless the type is known or a bound is set.
    pub fn at_least_gpus(&mut self, count: u32, evidence: String, span: Span) {
        if self.floor_wanted() && count > 0 {
            self.gpus_at_least = Some(GpuFloor {
                count,
                evidence,
                span,
            });
        }
    }

    /// At least 1 GPU per node when `image` (an EKS `ami_type`) boots GPU machines only.
    pub fn gpus_from_image(&mut self, key: &str, image: &str, span: &Span) {
        let signs = &catalog().kubernetes.gpu_nodes;
        if signs.images.iter().any(|i| i.eq_ignore_ascii_case(image)) {
            self.at_least_gpus(
                1,
                format!("`{key}` `{image}`, an image only GPU machines boot"),
                span.clone(),
            );
        }
    }

    /// At least 1 GPU per node when its bootstrap `script` sets up NVIDIA's runtime.
    pub fn gpus_from_bootstrap(&mut self, key: &str, script: &str, span: &Span) {
        let signs = &catalog().kubernetes.gpu_nodes;
        if let Some(word) = signs.in_bootstrap(script) {
            self.at_least_gpus(
                1,
                format!("its `{key}` runs `{word}`, which only GPU nodes need"),
                span.clone(),
            );
        }
    }

    /// At least 1 GPU per machine when its machine type is written as one reference whose
    /// name says GPU (`var.GPU_INSTANCE_TYPE`), else, when that name says nothing either
    /// way, when the resource itself is named so (`aws_instance.gpu_worker`, a pool keyed
    /// `gpu`; its own label and key, not the module calls it is in). `written` is the
    /// text the machine type is written with. Stronger signs (a GPU taint or label) go
    /// first.
    pub fn gpus_from_names(&mut self, written: Option<&str>) {
        self.gpus_from_nodes();
        let Value::Unknown(at) = &self.machines else {
            return;
        };
        if !self.floor_wanted() {
            return;
        }
        let signs = &catalog().kubernetes.gpu_nodes;
        let reference = written.and_then(written_reference);
        if let Some(r) = reference {
            if let Some(word) = signs.named(r) {
                let evidence = format!("its machine type is `{r}`, whose name says `{word}`");
                self.at_least_gpus(1, evidence, at.clone());
                return;
            }
            if signs.name_says_otherwise(r) {
                return;
            }
        }
        let own = own_name(&self.subject);
        if let Some(word) = signs.named(own) {
            let evidence = format!("its name `{own}` says `{word}`");
            self.at_least_gpus(1, evidence, self.header.clone());
        }
    }

    /// At least 1 GPU per machine when its types are written but the catalog holds none of
    /// them, and each is of a family whose types all hold GPUs (a retired `g3.4xlarge`, a
    /// size newer than the catalog).
    pub fn gpus_from_family(&mut self) {
        let Value::Known(machines, at) = &self.machines else {
            return;
        };
        if self.gpus_at_least.is_some() || machines.iter().any(|m| m.gpus.is_some()) {
            return;
        }
        let families: Option<Vec<&str>> = machines
            .iter()
            .map(|m| catalog().gpu_family(self.provider, &m.name))
            .collect();
        let (Some(families), Some(first)) = (families, machines.first()) else {
            return;
        };
        self.gpus_at_least = Some(GpuFloor {
            count: 1,
            evidence: format!(
                "`{}` is of the `{}` family, whose types hold GPUs",
                first.name, families[0]
            ),
            span: at.clone(),
        });
    }

    /// At least 1 GPU per node when its nodes carry a GPU taint or label.
    pub fn gpus_from_nodes(&mut self) {
        if !self.floor_wanted() {
            return;
        }
        let signs = &catalog().kubernetes.gpu_nodes;
        let taint = self.taints.iter().find_map(|t| {
            signs
                .marks(&t.key, t.value.as_deref().unwrap_or(""))
                .then(|| (format!("its nodes' taint `{}`", t.key), t.span.clone()))
        });
        let label = || {
            self.labels.iter().find_map(|(k, v, span)| {
                signs
                    .marks(k, v)
                    .then(|| (format!("its nodes' label `{k}={v}`"), span.clone()))
            })
        };
        if let Some((evidence, span)) = taint.or_else(label) {
            self.at_least_gpus(1, evidence, span);
        }
    }
}

/// The one reference a value is written as: `var.x` out of `var.x`, `"${var.x}"` (a
/// reference alone in a template) or `[var.x]` (a list of one). `None` for anything else
/// (a call, an operator, a literal, a list of several).
pub fn written_reference(written: &str) -> Option<&str> {
    let mut w = written.trim();
    if let Some(inner) = w.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
        w = inner.trim().trim_end_matches(',').trim();
    }
    if let Some(inner) = w.strip_prefix("\"${").and_then(|w| w.strip_suffix("}\"")) {
        w = inner.trim();
    }
    is_reference(w).then_some(w)
}

/// The address of the block a `count` instance belongs to: `aws_instance.worker` of
/// `aws_instance.worker[3]`. `None` when the address does not end in a numeric index.
pub fn count_block(subject: &str) -> Option<&str> {
    subject
        .strip_suffix(']')
        .and_then(|s| s.rsplit_once('['))
        .filter(|(_, i)| !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit()))
        .map(|(block, _)| block)
}

/// A resource's own name in its address, with its instance key: `spot_gpu_worker[0]` of
/// `module.gpu_stack.aws_instance.spot_gpu_worker[0]`, `eks_managed_node_groups["gpu"]` of
/// `module.eks.eks_managed_node_groups["gpu"]`. The module calls it is in are not its name.
fn own_name(subject: &str) -> &str {
    let plain = subject.find('[').unwrap_or(subject.len());
    // A Kubernetes object is `Kind/name`.
    if let Some((_, name)) = subject[..plain].split_once('/') {
        return name;
    }
    subject[..plain]
        .rfind('.')
        .map_or(subject, |dot| &subject[dot + 1..])
}

/// Whether `text` is one reference (`var.gpu_type`, `local.pools["gpu"].type`): no call,
/// operator or template around it.
fn is_reference(text: &str) -> bool {
    ["var.", "local.", "each.", "module."]
        .iter()
        .any(|p| text.starts_with(p))
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']' | '"'))
}
