//! `idle-gpu-workload`: a standing workload that holds GPUs with nothing to release them:
//! a Ray cluster whose GPU groups never scale down, a GPU pod that sleeps forever.

use super::waits::{forever_wait, trailing_wait};
use super::{Report, Rule, RuleContext, RuleMeta, pod_gpu_hour};
use gpulint_diagnostics::{Category, Cost, Severity};
use gpulint_facts::workloads::{repository, workloads};
use gpulint_model::{
    Container, Engine, GpuRequest, GroupScaling, Inventory, PodShape, Span, Value, Workload,
};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Warning,
    category: Category::Cost,
    summary: "a standing workload that holds GPUs with nothing to release them (a RayCluster \
              that cannot scale its GPU workers down, a GPU pod that sleeps forever)",
    options: &[],
};

pub struct IdleGpuWorkload;

impl Rule for IdleGpuWorkload {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for w in &model.workloads {
            ray_groups(model, w, cx);
            lingering(model, w, cx);
            if w.standing {
                sleepers(model, w, cx);
                interactive(model, w, cx);
                restarts(model, w, cx);
            } else if w.kind == "Job" && matches!(w.ends, Value::Known(false, _)) {
                // A Job ends when its pods do: one that waits forever, with no deadline,
                // never does, nor one whose server runs beside the work.
                sleepers(model, w, cx);
                job_servers(model, w, cx);
            }
        }
    }
}

/// What keeps a Ray group's pods up when the cluster has no work.
enum Hold<'a> {
    /// The head: one pod for the cluster's life.
    Head,
    /// The autoscaler is off: the group keeps `pods`, decided by the field at `at`.
    Fixed {
        pods: u32,
        field: &'static str,
        at: &'a Span,
    },
    /// The autoscaler is on but never goes below `minReplicas` (or a smaller `maxReplicas`).
    Floor {
        pods: u32,
        field: &'static str,
        at: &'a Span,
    },
}

/// A count as KubeRay reads it: the default when not written, `None` when unknown.
fn read(v: &Value<u32>, default: u32) -> Option<(u32, Option<&Span>)> {
    match v {
        Value::Known(n, s) => Some((*n, Some(s))),
        Value::Absent => Some((default, None)),
        Value::Unknown(_) => None,
    }
}

/// What holds a group's pods when idle; `None` when it scales to zero or a value that
/// decides it is unknown.
fn hold(s: &GroupScaling) -> Option<Hold<'_>> {
    let a = match s {
        GroupScaling::Single => return Some(Hold::Head),
        GroupScaling::Autoscaled(a) => a,
    };
    let (min, min_at) = read(&a.min, 0)?;
    let (max, max_at) = read(&a.max, u32::MAX)?;
    match a.enabled {
        Value::Unknown(_) => None,
        Value::Known(true, _) => {
            let (pods, field, at) = if min <= max {
                (min, "minReplicas", min_at)
            } else {
                (max, "maxReplicas", max_at)
            };
            (pods > 0).then_some(Hold::Floor {
                pods,
                field,
                at: at?,
            })
        }
        // Without the autoscaler KubeRay keeps `replicas`, clamped to the bounds.
        Value::Known(false, _) | Value::Absent => {
            let (replicas, replicas_at) = read(&a.replicas, 0)?;
            let (pods, field, at) = if min > max || replicas > max {
                (max, "maxReplicas", max_at)
            } else if replicas < min {
                (min, "minReplicas", min_at)
            } else {
                (replicas, "replicas", replicas_at)
            };
            (pods > 0).then_some(Hold::Fixed {
                pods,
                field,
                at: at?,
            })
        }
    }
}

/// A Ray cluster (or a RayJob's, which outlives the job unless it is told to go) whose
/// GPU groups stay up when there is no work. A RayService serves: it is not idle.
fn ray_groups(model: &Inventory, w: &Workload, cx: &mut RuleContext<'_>) {
    if w.kind == "RayService" || w.ends.known() == Some(&true) || w.ends.is_unknown() {
        return;
    }
    for pod in &w.pods {
        let Some(scaling) = &pod.scaling else {
            continue;
        };
        if !pod.gpus.holds_gpus() {
            continue;
        }
        let Some(h) = hold(scaling) else { continue };
        if let Some(r) = ray_report(w, pod, &h) {
            let pods = match h {
                Hold::Head => 1,
                Hold::Fixed { pods, .. } | Hold::Floor { pods, .. } => pods,
            };
            cx.report_costed(r, held_cost(model, pod, Some(pods), &pod.gpus));
        }
    }
}

/// Replica groups that stay up after the work is done (MPI workers, whose sshd waits for a
/// launcher that has finished) when the clean-pod policy leaves them.
fn lingering(model: &Inventory, w: &Workload, cx: &mut RuleContext<'_>) {
    let Value::Known(false, at) = &w.ends else {
        return;
    };
    for pod in w
        .pods
        .iter()
        .filter(|p| w.lingering.contains(&p.group) && p.gpus.holds_gpus())
    {
        let Some(gpu_span) = pod.gpus.span() else {
            continue;
        };
        let (n, _) = pod.replicas_at_least();
        let held = shared(pod, held(Some(n), &pod.gpus));
        let report = Report {
            message: format!(
                "`{}` keeps {held} in its `{}` pods after the job is done: the clean-pod \
                 policy leaves them running (None, the operator's default when unset), so they \
                 hold the GPUs until someone deletes the job",
                w.subject, pod.group
            ),
            help: "set `runPolicy: { cleanPodPolicy: Running }` (v2beta1; `spec.cleanPodPolicy` \
                   in v1alpha2) so the operator deletes the workers when the launcher ends, and \
                   `ttlSecondsAfterFinished` to remove the job itself"
                .into(),
            subject: w.subject.clone(),
            primary: (
                at.clone(),
                "no clean-pod policy that removes workers".into(),
            ),
            secondary: vec![(gpu_span.clone(), format!("{} per pod", per_pod(&pod.gpus)))],
        };
        cx.report_costed(report, held_cost(model, pod, Some(n), &pod.gpus));
    }
}

/// The pods a standing group keeps.
enum Kept {
    /// A DaemonSet: one on every node.
    OnEveryNode,
    Pods(u32),
}

impl Kept {
    /// As `held` and `held_cost` count pods: `None` for one on every node.
    fn count(&self) -> Option<u32> {
        match self {
            Kept::OnEveryNode => None,
            Kept::Pods(n) => Some(*n),
        }
    }
}

/// The pods a standing group keeps; `None` when none, or the count is unknown.
fn standing_pods(w: &Workload, pod: &PodShape) -> Option<Kept> {
    match (w.kind.as_str(), &pod.replicas) {
        ("DaemonSet", _) => Some(Kept::OnEveryNode),
        (_, Value::Known(0, _) | Value::Unknown(_)) => None,
        (_, Value::Known(n, _)) => Some(Kept::Pods(*n)),
        (_, Value::Absent) => Some(Kept::Pods(1)),
    }
}

/// A notebook or other interactive server (the `interactive` table) in a standing pod that
/// holds GPUs: it keeps them between cells, overnight and at weekends.
fn interactive(model: &Inventory, w: &Workload, cx: &mut RuleContext<'_>) {
    let table = &workloads().interactive;
    for pod in &w.pods {
        let Some(pods) = standing_pods(w, pod).map(|k| k.count()) else {
            continue;
        };
        if !pod.gpus.holds_gpus() {
            continue;
        }
        let found = pod.containers.iter().find_map(|c| {
            let words: Vec<&str> = c.argv.iter().map(|(a, _)| a.as_str()).collect();
            let repo = c.image.as_deref().map(repository);
            let p = table.iter().find(|p| {
                p.command(&words).is_some() || repo.as_deref().is_some_and(|r| p.image(r))
            })?;
            Some((p.name.as_str(), c))
        });
        // A session kind is one whatever it runs.
        let found = found.or_else(|| {
            let c = pod.containers.iter().find(|c| c.gpus.holds_gpus());
            Some((w.session?, c.or(pod.containers.first())?))
        });
        let Some((server, c)) = found else { continue };
        let Some(gpu_span) = pod.gpus.span() else {
            continue;
        };
        let held = shared(pod, held(pods, &pod.gpus));
        let report = Report {
            message: format!(
                "`{}` holds {held} for {}: a person works in it by hand, so the GPUs sit idle \
                 between cells, overnight and at weekends, and nothing in the manifest stops it",
                w.subject, server
            ),
            help: "cull idle servers (Kubeflow's notebook controller with `ENABLE_CULLING` and \
                   `CULL_IDLE_TIME`, JupyterHub's idle culler), scale to 0 when not in use, or \
                   give notebooks a shared or partitioned GPU (time-slicing, MIG)"
                .into(),
            subject: w.subject.clone(),
            primary: (gpu_span.clone(), per_pod(&pod.gpus)),
            secondary: vec![(c.span.clone(), server.to_string())],
        };
        cx.report_costed(report, held_cost(model, pod, pods, &pod.gpus));
    }
}

/// A benchmark or check (the benchmark table) in a controller that restarts its pods: it
/// exits and runs again, holding the GPUs for good. So does a bare Pod, unless told not to
/// restart (`restartPolicy: Never` or `OnFailure`; `Always` is the default).
fn restarts(model: &Inventory, w: &Workload, cx: &mut RuleContext<'_>) {
    let Some(b) = &w.benchmark else { return };
    if b.collective {
        return;
    }
    for pod in &w.pods {
        if w.kind == "Pod" && pod.restart.as_deref().is_some_and(|r| r != "Always") {
            continue;
        }
        let Some(pods) = standing_pods(w, pod).map(|k| k.count()) else {
            continue;
        };
        let gpu_containers = pod.containers.iter().filter(|c| c.gpus.holds_gpus());
        if !pod.gpus.holds_gpus()
            || gpu_containers
                .clone()
                .any(|c| forever_wait(&c.argv).is_some())
        {
            continue;
        }
        let Some(gpu_span) = pod.gpus.span() else {
            continue;
        };
        let held = shared(pod, held(pods, &pod.gpus));
        let loops = gpu_containers
            .flat_map(|c| &c.argv)
            .any(|(a, _)| matches!(a.as_str(), "while" | "until"));
        let message = if b.name == "a placeholder" {
            format!(
                "`{}` keeps {held} in a pod that only waits (`{}`): a {} keeps it running or \
                 restarts it, so the GPUs are held for nothing",
                w.subject, b.what, w.kind
            )
        } else if loops {
            format!(
                "`{}` runs {} (`{}`) in an endless loop as a {}: it holds {held} for good, idle \
                 between runs",
                w.subject, b.name, b.what, w.kind
            )
        } else {
            format!(
                "`{}` runs {} (`{}`) as a {}: it exits, and Kubernetes restarts it in a loop, so \
                 it holds {held} for good",
                w.subject, b.name, b.what, w.kind
            )
        };
        let report = Report {
            message,
            help: if w.kind == "Pod" {
                "set `restartPolicy: Never` (the default, `Always`, restarts it when it exits), \
                 or run it as a Job with `ttlSecondsAfterFinished`"
            } else {
                "run a check or benchmark as a Job (it ends and frees the GPUs), with \
                 `ttlSecondsAfterFinished` to clean it up"
            }
            .into(),
            subject: w.subject.clone(),
            primary: (gpu_span.clone(), per_pod(&pod.gpus)),
            secondary: Vec::new(),
        };
        cx.report_costed(report, held_cost(model, pod, pods, &pod.gpus));
    }
}

/// A Job whose GPU container runs a server (a serving engine) beside the containers that do
/// the work: a server never exits, so the pod, and the Job, never complete.
fn job_servers(model: &Inventory, w: &Workload, cx: &mut RuleContext<'_>) {
    for pod in w.pods.iter().filter(|p| p.containers.len() > 1) {
        let Some(s) = pod.serving.as_deref() else {
            continue;
        };
        let Some(server) = pod
            .containers
            .iter()
            .find(|c| c.span == s.span && c.gpus.holds_gpus())
        else {
            continue;
        };
        let Some(other) = pod.containers.iter().find(|c| c.span != s.span) else {
            continue;
        };
        let n = Some(pod.replicas_at_least().0);
        let held = held(n, &server.gpus);
        let report = Report {
            message: format!(
                "`{}` runs a serving engine ({}) in container `{}` beside `{}`: a server never \
                 exits, so the pod and the Job never complete, and it holds {held} after the \
                 work is done",
                w.subject,
                engine_name(s.engine),
                server.name,
                other.name
            ),
            help: "run the server as a native sidecar (an init container with `restartPolicy: \
                   Always`, which Kubernetes stops when the work ends), have the work stop it, \
                   or set `activeDeadlineSeconds`"
                .into(),
            subject: w.subject.clone(),
            primary: (server.span.clone(), "a server that never exits".into()),
            secondary: server
                .gpus
                .span()
                .map(|sp| (sp.clone(), per_pod(&server.gpus)))
                .into_iter()
                .collect(),
        };
        cx.report_costed(report, held_cost(model, pod, n, &server.gpus));
    }
}

/// An engine as the workload table names it (`vLLM`, `Text Generation Inference`).
fn engine_name(e: Engine) -> &'static str {
    let id = match (e, e.id()) {
        (Engine::Other(name), _) => return name,
        (_, Some(id)) => id,
        (_, None) => return "named by annotations",
    };
    workloads()
        .engines
        .iter()
        .find(|p| p.id == id)
        .map_or(id, |p| p.name.as_str())
}

/// A GPU container in a standing pod whose command ends in a wait that never returns.
fn sleepers(model: &Inventory, w: &Workload, cx: &mut RuleContext<'_>) {
    for pod in &w.pods {
        // A Job's pods count as one group.
        let pods = if w.standing {
            let Some(kept) = standing_pods(w, pod) else {
                continue;
            };
            kept.count()
        } else {
            Some(pod.replicas_at_least().0)
        };
        for c in &pod.containers {
            if !c.gpus.holds_gpus() {
                continue;
            }
            let Some(wait) = forever_wait(&c.argv) else {
                checked_then_waits(model, w, pod, c, pods, cx);
                continue;
            };
            cx.report_costed(
                sleeper_report(w, &c.name, pods, &c.gpus, wait),
                held_cost(model, pod, pods, &c.gpus),
            );
        }
    }
}

/// A check that holds the GPUs this long after it is done is worth a note.
const CHECK_IDLE_SECONDS: f64 = 3_600.0;

/// A check (the benchmark table, not a collective one) whose command then waits an hour or
/// more, though not forever: the GPUs sit idle that long after the check. A note.
fn checked_then_waits(
    model: &Inventory,
    w: &Workload,
    pod: &PodShape,
    c: &Container,
    pods: Option<u32>,
    cx: &mut RuleContext<'_>,
) {
    let Some(b) = w.benchmark.as_ref().filter(|b| !b.collective) else {
        return;
    };
    let Some((wait, at, secs)) = trailing_wait(&c.argv).filter(|w| w.2 >= CHECK_IDLE_SECONDS)
    else {
        return;
    };
    let held = shared(pod, held(pods, &c.gpus));
    let hours = secs / 3_600.0;
    let report = Report {
        message: format!(
            "`{}` holds {held} for {} (`{}`), then waits (`{wait}`): idle for about \
             {hours:.1} h after the check is done",
            w.subject, b.name, b.what
        ),
        help: "end the pod when the check is done (a Job, or `restartPolicy: Never` with no \
               wait), or delete it as soon as its output is read"
            .into(),
        subject: w.subject.clone(),
        primary: (at, format!("idle for about {hours:.1} h")),
        secondary: c
            .gpus
            .span()
            .map(|sp| (sp.clone(), per_pod(&c.gpus)))
            .into_iter()
            .collect(),
    };
    let cost = held_cost(model, pod, pods, &c.gpus);
    cx.report_as(Severity::Info, report);
    if let Some(f) = cx.findings.last_mut() {
        f.cost = cost.map(Box::new);
    }
}

// ---- Wording ---------------------------------------------------------------------------

/// `1 GPU`, `4 GPUs`, `2 nvidia.com/mig-1g.10gb`.
fn gpus(count: u32, resource: &str) -> String {
    match (count, resource.ends_with("/gpu")) {
        (1, true) => "1 GPU".into(),
        (n, true) => format!("{n} GPUs"),
        (n, false) => format!("{n} `{resource}`"),
    }
}

/// What one pod asks for: `4 GPUs`, `GPUs (count not known, at least 1)`.
fn per_pod(g: &Value<GpuRequest>) -> String {
    match g {
        Value::Known(g, _) if g.exact => gpus(g.count, &g.resource),
        _ => "GPUs (count not known, at least 1)".into(),
    }
}

/// What a group holds: `8 GPUs (2 pods × 4 GPUs)`, `4 GPUs`, `1 GPU per node`. `pods` is
/// `None` for one pod per node (a DaemonSet).
/// `held`, saying when the GPUs are shares: `1 GPU (a share: `gpu-fraction: 0.5`)`.
fn shared(pod: &PodShape, held: String) -> String {
    match &pod.shared {
        Some((sign, _)) => format!("{held} (a share: {sign})"),
        None => held,
    }
}

fn held(pods: Option<u32>, g: &Value<GpuRequest>) -> String {
    match (pods, g) {
        (Some(1), _) => per_pod(g),
        (Some(n), Value::Known(r, _)) if r.exact => format!(
            "{} ({n} pods × {})",
            gpus(n.saturating_mul(r.count), &r.resource),
            gpus(r.count, &r.resource)
        ),
        (Some(n), _) => format!("GPUs in {n} pods (count not known, at least 1 each)"),
        (None, Value::Known(r, _)) if r.exact => {
            format!("{} per node", gpus(r.count, &r.resource))
        }
        (None, _) => "GPUs per node (count not known, at least 1)".into(),
    }
}

/// What the GPUs held cost, priced through the machine the pod lands on. `pods` is `None`
/// for one pod per node (a DaemonSet): at least one node's. Only whole GPUs are priced.
fn held_cost(
    model: &Inventory,
    pod: &PodShape,
    pods: Option<u32>,
    g: &Value<GpuRequest>,
) -> Option<Cost> {
    let Value::Known(r, _) = g else { return None };
    // A share of a GPU costs a share of its price, which gpulint does not know.
    if !r.resource.ends_with("/gpu") || pod.shared.is_some() {
        return None;
    }
    let gpus = pods.unwrap_or(1).saturating_mul(r.count);
    if gpus == 0 {
        return None;
    }
    Some(pod_gpu_hour(model, pod)?.cost(gpus, !r.exact || pods.is_none()))
}

fn pods_word(n: u32) -> String {
    if n == 1 {
        "1 pod".into()
    } else {
        format!("{n} pods")
    }
}

/// Help for a RayJob whose cluster stays.
const JOB_HELP: &str = "set `shutdownAfterJobFinishes: true` so the cluster is deleted when the \
                        job ends, or enable the Ray autoscaler (`enableInTreeAutoscaling: \
                        true`) with `minReplicas: 0` on GPU worker groups";

/// Help for a RayCluster's worker group.
const CLUSTER_HELP: &str = "enable the Ray autoscaler (`enableInTreeAutoscaling: true`) with \
                            `minReplicas: 0` on GPU worker groups, so idle workers go after \
                            `autoscalerOptions.idleTimeoutSeconds`; for batch work, submit a \
                            RayJob with `shutdownAfterJobFinishes: true`";

/// Help for a head that holds GPUs.
const HEAD_HELP: &str = "keep GPUs off the head (no GPU resources, `rayStartParams: { num-gpus: \
                         \"0\" }`) and run GPU work in a worker group the Ray autoscaler scales \
                         to 0 (`minReplicas: 0`)";

fn ray_report(w: &Workload, pod: &PodShape, h: &Hold<'_>) -> Option<Report> {
    let job = w.kind == "RayJob";
    let s = &w.subject;
    let g = &pod.group;
    let gpu_span = pod.gpus.span()?.clone();
    let after_job = "after the job finishes: nothing deletes the cluster";
    let mut secondary = Vec::new();
    // A RayJob told not to delete its cluster.
    if let Value::Known(false, at) = &w.ends {
        secondary.push((at.clone(), "the cluster stays after the job".to_string()));
    }
    let (message, help, primary) = match h {
        Hold::Head => {
            let gpus = per_pod(&pod.gpus);
            let message = if job {
                format!("`{s}` holds {gpus} in its head pod {after_job}")
            } else {
                format!(
                    "`{s}` holds {gpus} in its head pod: the head runs as long as the cluster \
                     and no autoscaler removes it"
                )
            };
            let help = if job {
                format!("{HEAD_HELP}, or set `shutdownAfterJobFinishes: true`")
            } else {
                format!(
                    "{HEAD_HELP}; for batch work, submit a RayJob with \
                     `shutdownAfterJobFinishes: true`"
                )
            };
            (message, help, (gpu_span, format!("{gpus} on the head")))
        }
        Hold::Fixed { pods, field, at } => {
            secondary.push((gpu_span, format!("{} per pod", per_pod(&pod.gpus))));
            if let Some(GroupScaling::Autoscaled(a)) = pod.scaling.as_deref() {
                if let Value::Known(false, off) = &a.enabled {
                    secondary.push((off.clone(), "autoscaler off".into()));
                }
                if let Some(idle) = &a.idle_timeout {
                    secondary.push((idle.clone(), "no effect: the autoscaler is off".into()));
                }
            }
            let held = shared(pod, held(Some(*pods), &pod.gpus));
            let message = if job {
                format!(
                    "`{s}` holds {held} in worker group `{g}` {after_job}, and the Ray \
                     autoscaler is off"
                )
            } else {
                format!(
                    "`{s}` holds {held} in worker group `{g}` with the Ray autoscaler off: \
                     nothing scales the group down when the cluster is idle"
                )
            };
            let label = format!(
                "{field}: {}, kept with the autoscaler off",
                pods_word(*pods)
            );
            let help = if job { JOB_HELP } else { CLUSTER_HELP };
            (message, help.to_string(), ((*at).clone(), label))
        }
        Hold::Floor { pods, field, at } => {
            secondary.push((gpu_span, format!("{} per pod", per_pod(&pod.gpus))));
            let held = shared(pod, held(Some(*pods), &pod.gpus));
            let message = if job {
                format!(
                    "`{s}` holds {held} in worker group `{g}` {after_job}, and the Ray \
                     autoscaler keeps `{field}` workers"
                )
            } else {
                format!(
                    "`{s}` never scales worker group `{g}` below {held}: the Ray autoscaler \
                     keeps `{field}` workers when the cluster is idle"
                )
            };
            let help = if job {
                "set `shutdownAfterJobFinishes: true` so the cluster is deleted when the job \
                 ends, or set `minReplicas: 0` on GPU worker groups"
            } else {
                "set `minReplicas: 0` on GPU worker groups, so the Ray autoscaler releases idle \
                 workers after `autoscalerOptions.idleTimeoutSeconds`; for batch work, submit a \
                 RayJob with `shutdownAfterJobFinishes: true`"
            };
            let label = format!("{field}: the autoscaler's floor, {}", pods_word(*pods));
            (message, help.to_string(), ((*at).clone(), label))
        }
    };
    Some(Report {
        message,
        help: help.into(),
        subject: s.clone(),
        primary,
        secondary,
    })
}

fn sleeper_report(
    w: &Workload,
    container: &str,
    pods: Option<u32>,
    g: &Value<GpuRequest>,
    (wait, at): (String, Span),
) -> Report {
    let held = held(pods, g);
    let who = if container.is_empty() {
        "its GPU container".to_string()
    } else {
        format!("container `{container}`")
    };
    Report {
        message: format!(
            "`{}` holds {held} in {who}, whose command ends in `{wait}`: it never exits, so \
             nothing releases the GPUs",
            w.subject
        ),
        help: if w.standing {
            "run one-off work as a Job (it ends and frees the GPUs), debug with `kubectl \
             debug` or a short-lived pod, or scale the workload to 0 while it is idle"
        } else {
            "give the Job an `activeDeadlineSeconds` so it ends, or end the command when the \
             work is done"
        }
        .into(),
        subject: w.subject.clone(),
        primary: (at, "never exits".into()),
        secondary: g
            .span()
            .map(|sp| (sp.clone(), per_pod(g)))
            .into_iter()
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_source::FileId;

    #[test]
    fn held_gpus_read_as_a_reviewer_says_them() {
        let sp = Span::new(FileId(0), 0..1);
        let g = |n| {
            Value::Known(
                GpuRequest {
                    resource: "nvidia.com/gpu".into(),
                    count: n,
                    exact: true,
                },
                sp.clone(),
            )
        };
        let placeholder = Value::Known(
            GpuRequest {
                resource: "nvidia.com/gpu".into(),
                count: 1,
                exact: false,
            },
            sp.clone(),
        );
        assert_eq!(
            held(Some(2), &placeholder),
            "GPUs in 2 pods (count not known, at least 1 each)"
        );
        assert_eq!(held(Some(2), &g(4)), "8 GPUs (2 pods × 4 GPUs)");
        assert_eq!(held(Some(1), &g(1)), "1 GPU");
        assert_eq!(held(None, &g(1)), "1 GPU per node");
        assert_eq!(
            held(Some(3), &Value::Unknown(sp.clone())),
            "GPUs in 3 pods (count not known, at least 1 each)"
        );
    }
}
