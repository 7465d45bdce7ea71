//! `gpu-starved-cpu-memory`: CPU or memory requests too small to feed the GPUs.

// Byte and core counts are positive and far below 2^52, where f64 is exact.
#![allow(clippy::cast_precision_loss, clippy::cast_sign_loss)]

use super::{OptionKind, Report, Rule, RuleContext, RuleMeta, RuleOption, pod_gpu};
use gpulint_diagnostics::{Category, Severity};
use gpulint_facts::workloads::workloads;
use gpulint_fit::human_bytes;
use gpulint_model::{Inventory, Value};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Performance,
    summary: "CPU or RAM requests too small to feed the GPUs requested",
    options: &[
        RuleOption {
            name: "min_cpu_per_gpu",
            kind: OptionKind::PositiveInteger,
            default: DEFAULT_CPU,
            doc: "vCPUs each GPU needs at least (unset: by GPU class, 2 below 40 GB and 4 above; set, every request under it is a warning)",
        },
        RuleOption {
            name: "min_memory_gib_per_gpu",
            kind: OptionKind::PositiveInteger,
            default: DEFAULT_MEMORY_GIB,
            doc: "GiB of memory each GPU needs at least (unset: by GPU class, 8 below 40 GB and 16 above; set, every request under it is a warning)",
        },
    ],
};

/// The floor of an unknown GPU, as documented (a test holds it to the workload table).
const DEFAULT_CPU: u64 = 2;
const DEFAULT_MEMORY_GIB: u64 = 8;

pub struct GpuStarvedCpuMemory;

/// `8`, `500m`, `2.5` → cores.
fn cpu(q: &str) -> Option<f64> {
    match q.strip_suffix('m') {
        Some(milli) => milli.parse::<f64>().ok().map(|m| m / 1000.0),
        None => q.parse().ok(),
    }
}

/// `32Gi`, `64G`, `512Mi`, `1e9` → bytes.
fn memory(q: &str) -> Option<f64> {
    const UNITS: [(&str, f64); 8] = [
        ("Ki", 1024.0),
        ("Mi", 1_048_576.0),
        ("Gi", 1_073_741_824.0),
        ("Ti", 1_099_511_627_776.0),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
    ];
    for (suffix, scale) in UNITS {
        if let Some(n) = q.strip_suffix(suffix) {
            return n.parse::<f64>().ok().map(|n| n * scale);
        }
    }
    q.parse().ok()
}

impl Rule for GpuStarvedCpuMemory {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        // Floors set in the config are the team's own: under them is a warning. Else the
        // floor of the pod's GPU class, with a margin (see `host_floor` in the workload
        // table).
        let set_cpu = cx.option_u64("min_cpu_per_gpu");
        let set_mem = cx.option_u64("min_memory_gib_per_gpu");
        for w in model.workloads.iter().filter(|w| w.benchmark.is_none()) {
            // Shares of a GPU (HAMi vGPUs, a fraction) feed less than a GPU each.
            for pod in w
                .pods
                .iter()
                .filter(|p| p.generated_by.is_none() && p.shared.is_none())
            {
                let Value::Known(g, gpus_span) = &pod.gpus else {
                    continue;
                };
                if g.count == 0 || g.resource.contains("mig-") || g.resource.ends_with(".shared") {
                    continue;
                }
                let n = f64::from(g.count);
                let gpu = pod_gpu(model, pod).map(|(g, _)| g);
                let floor = workloads().host_floor(gpu.map(|g| g.memory_gb));
                let min_cpu = set_cpu.unwrap_or(floor.cpu);
                let min_mem = set_mem.unwrap_or(floor.memory_gib);
                let configured = set_cpu.is_some() || set_mem.is_some();
                // Only what is requested explicitly: no request is not a small one.
                let sum = |f: &dyn Fn(
                    &gpulint_model::Container,
                ) -> Option<(f64, gpulint_model::Span)>| {
                    let parts: Vec<_> = pod.containers.iter().filter_map(f).collect();
                    let span = parts.first()?.1.clone();
                    Some((parts.iter().map(|(v, _)| v).sum::<f64>(), span))
                };
                let cpus = sum(&|c| match &c.cpu_request {
                    Value::Known(q, s) => cpu(q).map(|v| (v, s.clone())),
                    _ => None,
                });
                let mem = sum(&|c| match &c.memory_request {
                    Value::Known(q, s) => memory(q).map(|v| (v, s.clone())),
                    _ => None,
                });
                let (min_cpu_f, min_mem_b) = (min_cpu as f64, min_mem as f64 * 1_073_741_824.0);
                let low_cpu = cpus.clone().filter(|(c, _)| *c < min_cpu_f * n);
                let low_mem = mem.clone().filter(|(m, _)| *m < min_mem_b * n);
                let (what, span) = match (&low_cpu, &low_mem) {
                    (Some((c, s)), Some((m, _))) => (
                        format!("{c} CPUs and {} of memory", human_bytes(m.round() as u64)),
                        s.clone(),
                    ),
                    (Some((c, s)), None) => (format!("{c} CPUs"), s.clone()),
                    (None, Some((m, s))) => (
                        format!("{} of memory", human_bytes(m.round() as u64)),
                        s.clone(),
                    ),
                    // Several GPUs and nothing requested: the scheduler guarantees the pod
                    // no CPU or memory at all, and packs it beside anything.
                    // A request that is not written is missing; one that is written
                    // elsewhere (a runtime not in the run, a template) is unknown.
                    // Unless the pod takes every GPU of any node it can land on: no other
                    // GPU pod shares the node, and the host's CPUs and memory are its own.
                    (None, None)
                        if g.count >= 2
                            && (cpus.is_none() || mem.is_none())
                            && !whole_node(model, pod, g.count)
                            && !pod.containers.iter().any(|c| {
                                matches!(c.cpu_request, Value::Unknown(_))
                                    || matches!(c.memory_request, Value::Unknown(_))
                            }) =>
                    {
                        let what = match (&cpus, &mem) {
                            (None, None) => "no CPU and no memory requested",
                            (None, Some(_)) => "no CPU requested",
                            _ => "no memory requested",
                        };
                        report_none(cx, w, pod, g, gpus_span, what, min_cpu, min_mem);
                        continue;
                    }
                    (None, None) => continue,
                };
                // Far under the floor on several GPUs, or under a floor the team set: a
                // warning. A little under, or one GPU: a note.
                let share = |have: Option<&(f64, gpulint_model::Span)>, floor: f64| {
                    have.map_or(1.0, |(v, _)| *v / (floor * n))
                };
                let worst =
                    share(low_cpu.as_ref(), min_cpu_f).min(share(low_mem.as_ref(), min_mem_b));
                // One GPU is rarely starved, and a request near the floor is a choice.
                if !configured && (g.count < 2 || worst >= floor.note_below) {
                    continue;
                }
                let warn = configured || worst < floor.warn_below;
                let class = match gpu {
                    Some(gpu) if !configured => format!(" (the floor for {})", gpu.name),
                    _ => String::new(),
                };
                let severity = if warn {
                    Severity::Warning
                } else {
                    Severity::Info
                };
                cx.report_as(severity, Report {
                    message: format!(
                        "`{}` feeds {} {} with {what} per pod: data loading, tokenization and \
                         weight loading on the host starve GPUs that bill by the hour",
                        w.subject,
                        g.count,
                        if g.count == 1 { "GPU" } else { "GPUs" }
                    ),
                    help: format!(
                        "request at least {min_cpu} CPUs and {min_mem} GiB of memory per GPU{class} \
                         ({} CPUs and {} GiB here), or set this rule's options to your workload's \
                         needs",
                        min_cpu.saturating_mul(u64::from(g.count)),
                        min_mem.saturating_mul(u64::from(g.count))
                    )
                    .into(),
                    subject: w.subject.clone(),
                    primary: (span, "requested".into()),
                    secondary: vec![(gpus_span.clone(), format!("{} GPUs", g.count))],
                });
            }
        }
    }
}

/// A multi-GPU pod that requests no CPU or no memory at all.
#[allow(clippy::too_many_arguments)]
fn report_none(
    cx: &mut RuleContext<'_>,
    w: &gpulint_model::Workload,
    pod: &gpulint_model::PodShape,
    g: &gpulint_model::GpuRequest,
    gpus_span: &gpulint_model::Span,
    what: &str,
    min_cpu: u64,
    min_mem: u64,
) {
    let at = pod
        .containers
        .first()
        .map_or_else(|| pod.span.clone(), |c| c.span.clone());
    cx.report(Report {
        message: format!(
            "`{}` asks for {} GPUs per pod with {what}: the scheduler may pack it beside \
             anything, and data loading on the host starves GPUs that bill by the hour",
            w.subject, g.count
        ),
        help: format!(
            "request at least {min_cpu} CPUs and {min_mem} GiB of memory per GPU ({} CPUs and \
             {} GiB here) in `resources.requests` (or `limits`, which Kubernetes copies into \
             requests)",
            min_cpu.saturating_mul(u64::from(g.count)),
            min_mem.saturating_mul(u64::from(g.count))
        )
        .into(),
        subject: w.subject.clone(),
        primary: (at, what.to_string()),
        secondary: vec![(gpus_span.clone(), format!("{} GPUs", g.count))],
    });
}

/// Whether every machine `pod` can land on holds exactly `count` GPUs: by the instance
/// types it selects, else by the capacity it is linked to. Unknown machines say no.
fn whole_node(model: &Inventory, pod: &gpulint_model::PodShape, count: u32) -> bool {
    if let Some((types, _)) = &pod.selection.instance_types {
        let cat = gpulint_facts::catalog();
        return !types.is_empty()
            && types
                .iter()
                .all(|t| cat.instance_any(t).is_some_and(|i| i.row.count == count));
    }
    let mut landing = model.landing(pod).peekable();
    landing.peek().is_some()
        && landing.all(|c| {
            c.gpu_machines().is_some_and(|(machines, _)| {
                machines
                    .iter()
                    .all(|m| m.gpus.as_ref().is_some_and(|g| g.count == count))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_defaults_are_the_table_floor_of_an_unknown_gpu() {
        let f = workloads().host_floor(None);
        assert_eq!((f.cpu, f.memory_gib), (DEFAULT_CPU, DEFAULT_MEMORY_GIB));
        assert_eq!(workloads().host_floor(Some(80.0)).cpu, 4);
        assert_eq!(workloads().host_floor(Some(24.0)).cpu, 2);
    }

    #[test]
    fn quantities() {
        assert_eq!(cpu("500m"), Some(0.5));
        assert_eq!(cpu("8"), Some(8.0));
        assert_eq!(memory("32Gi"), Some(32.0 * 1_073_741_824.0));
        assert_eq!(memory("64G"), Some(64e9));
        assert_eq!(memory("512Mi"), Some(512.0 * 1_048_576.0));
        assert_eq!(memory("lots"), None);
    }
}
