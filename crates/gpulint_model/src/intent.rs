//! Training or inference, from what a resource says about itself, with the evidence.
//!
//! Both sides call this one place. An explicit hint wins (`gpulint-role` as a tag or
//! label, `gpulint.dev/role` as an annotation). Kubernetes workloads then go by kind,
//! command, training framework image, serving engine (command, then image repository),
//! words in names and labels, and the controller's shape ([`workload`]); Terraform
//! resources by words in names, labels and tags ([`from_entries`]). Once pods are linked
//! to pools, a pool's role comes from the workloads that land on it, else from a build for
//! work across machines ([`capacity`]). When the signals say both or neither, the role is
//! unknown and rules that need one stay silent.

use crate::{
    Benchmark, Capacity, CapacityKind, Evidence, Inferred, Inventory, Placement, Provider, Role,
    Signal, Span, Value,
};
use gpulint_facts::Fabric;
use gpulint_facts::workloads::{repository, workloads};

/// The explicit hint's key.
pub const HINT: &str = "gpulint-role";

const TRAINING: &[&str] = &[
    "train",
    "training",
    "trainer",
    "trainers",
    "finetune",
    "finetuning",
    "pretrain",
    "pretraining",
    "sft",
    "rlhf",
];
const INFERENCE: &[&str] = &[
    "infer",
    "inference",
    "serve",
    "serving",
    "server",
    "vllm",
    "tgi",
    "triton",
    "predict",
    "prediction",
    "endpoint",
];

/// What a workload's containers measure or check, by the benchmark table: a collective
/// benchmark (nccl-tests, OSU) wherever it appears, even under a launcher; any other
/// (a serving benchmark, `nvidia-smi`, a `torch.cuda` check, a CUDA sample, nvbandwidth)
/// only when no engine, framework command or training script runs beside it (a launcher
/// may start it). All waiting
/// containers (`sleep`, `pause`) are a placeholder.
pub fn benchmark(containers: &[ContainerFacts<'_>]) -> Option<Benchmark> {
    let table = workloads();
    let matches = |p: &'static gpulint_facts::workloads::Program| {
        containers.iter().find_map(|c| {
            let by_image = c.image.is_some_and(|i| p.image(&repository(i)));
            let cmd = p.command(&c.argv);
            (by_image || cmd.is_some()).then(|| Benchmark {
                name: p.name.as_str(),
                collective: p.collective,
                what: cmd.unwrap_or_else(|| c.image.map(repository).unwrap_or_default()),
            })
        })
    };
    if let Some(b) = table
        .benchmarks
        .iter()
        .filter(|p| p.collective)
        .find_map(matches)
    {
        return Some(b);
    }
    // A launcher (`mpirun`) only starts what it is given: the benchmark it runs is one.
    let works = containers.iter().any(|c| {
        let mut programs = table.engines.iter().chain(&table.frameworks);
        programs.any(|p| p.command(&c.argv).is_some())
            || table.training_script(&c.argv).is_some()
            // A script of its own (`nvidia-smi && python app.py`) is work gpulint cannot
            // name, not a check.
            || c.argv.iter().any(|a| {
                std::path::Path::new(a)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("py") || e.eq_ignore_ascii_case("sh"))
                    && !table.benchmark_program(a)
            })
    });
    if works {
        return None;
    }
    if let Some(b) = table
        .benchmarks
        .iter()
        .filter(|p| !p.collective)
        .find_map(matches)
    {
        return Some(b);
    }
    let shape = &table.shape;
    let shown = |c: &ContainerFacts<'_>| {
        if c.argv.is_empty() {
            c.image.map(repository).unwrap_or_default()
        } else {
            let mut words: Vec<&str> = c.argv.iter().copied().take(8).collect();
            if c.argv.len() > 8 {
                words.push("…");
            }
            words.join(" ")
        }
    };
    (!containers.is_empty() && containers.iter().all(|c| shape.waits(c.image, &c.argv))).then(
        || Benchmark {
            name: "a placeholder",
            collective: false,
            what: shown(&containers[0]),
        },
    )
}

/// Reads an explicit hint value; `what` says where it was written.
pub fn from_hint(value: &str, span: Span, what: &str) -> Inferred<Role> {
    let role = match value.trim().to_ascii_lowercase().as_str() {
        "training" | "train" => Some(Role::Training),
        "inference" | "serving" => Some(Role::Inference),
        _ => None,
    };
    match role {
        Some(r) => Inferred::new(
            Value::Known(r, span),
            Some(Evidence::new(
                Signal::Hint,
                format!("{what} says `{}`", value.trim()),
            )),
        ),
        None => Inferred::new(Value::Unknown(span), None),
    }
}

/// The role stated by a `gpulint-role` entry among tags or labels, else inferred from
/// `names` and the entries' keys and values, pointing at `span`.
pub fn from_entries<'a>(
    entries: &'a [(crate::Str, crate::Str, Span)],
    names: impl IntoIterator<Item = &'a str>,
    span: &Span,
) -> Inferred<Role> {
    if let Some((_, v, s)) = entries.iter().find(|(k, _, _)| k == HINT) {
        return from_hint(v, s.clone(), "its `gpulint-role` tag or label");
    }
    let mut words: Vec<Word<'a>> = names.into_iter().map(Word::Name).collect();
    words.extend(entries.iter().map(|(k, v, _)| Word::Label(k, v)));
    from_words(&words, span)
}

/// Where a word that may name a role was written.
#[derive(Clone, Copy)]
pub enum Word<'a> {
    /// A name: the resource's, the object's, a pool name attribute.
    Name(&'a str),
    /// A label or tag, key and value.
    Label(&'a str, &'a str),
    /// The comment written just above the block (`# GPU node group for LLM inference`).
    Comment(&'a str),
    /// A `description` attribute.
    Description(&'a str),
    /// The `description` of a variable an argument reads: its name and the text.
    VariableDescription(&'a str, &'a str),
    /// An argument handed to the machine's start-up script (`templatefile(…, { vllm_args
    /// = … })`): its name and value.
    StartupArg(&'a str, &'a str),
}

impl Word<'_> {
    fn texts(&self) -> [&str; 2] {
        match *self {
            Word::Name(n) | Word::Comment(n) | Word::Description(n) => [n, ""],
            Word::VariableDescription(_, d) => [d, ""],
            Word::Label(k, v) | Word::StartupArg(k, v) => [k, v],
        }
    }

    fn describe(&self) -> String {
        match self {
            Word::Name(n) => format!("its name `{n}`"),
            Word::Label(k, v) => format!("its label `{k}: {v}`"),
            Word::Comment(c) => format!("the comment above it: `{}`", clip(c)),
            Word::Description(d) => format!("its description `{}`", clip(d)),
            Word::VariableDescription(v, d) => {
                format!("the description of `var.{v}` it reads: `{}`", clip(d))
            }
            Word::StartupArg(k, v) => format!("its start-up script's `{k} = {}`", clip(v)),
        }
    }
}

/// Free text as evidence: its first 80 characters.
fn clip(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Infers a role from words in names and labels (`gpu-training-pool`, `llm_serving`),
/// pointing at `span`. Whole words only; when they say both or neither, no role.
pub fn from_words(words: &[Word<'_>], span: &Span) -> Inferred<Role> {
    let (mut training, mut inference) = (None, None);
    // Engines and training frameworks of the workload table, by id (`ollama`, `sglang`,
    // `axolotl`), count as the words that name the role.
    let table = workloads();
    let named = |programs: &[gpulint_facts::workloads::Program], word: &str| {
        programs.iter().any(|p| p.id == word)
    };
    for w in words {
        for text in w.texts() {
            for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
                let lower = word.to_ascii_lowercase();
                if training.is_none()
                    && (TRAINING.contains(&lower.as_str()) || named(&table.frameworks, &lower))
                {
                    training = Some(w);
                }
                if inference.is_none()
                    && (INFERENCE.contains(&lower.as_str()) || named(&table.engines, &lower))
                {
                    inference = Some(w);
                }
            }
        }
    }
    let (role, w) = match (training, inference) {
        (Some(w), None) => (Role::Training, w),
        (None, Some(w)) => (Role::Inference, w),
        _ => return Inferred::default(),
    };
    Inferred::new(
        Value::Known(role, span.clone()),
        Some(Evidence::new(Signal::Words, w.describe())),
    )
}

/// One container, as role inference reads it.
pub struct ContainerFacts<'a> {
    pub image: Option<&'a str>,
    pub argv: Vec<&'a str>,
    pub span: &'a Span,
}

/// What a Kubernetes workload says about itself, strongest first.
pub struct WorkloadFacts<'a> {
    /// `PyTorchJob`, `Deployment`.
    pub kind: &'a str,
    /// A `gpulint.dev/role` annotation: its value and span.
    pub hint: Option<(&'a str, Span)>,
    /// The role the kind implies, with the reason (`PyTorchJob, a training kind`,
    /// `Kaito Workspace with \`tuning\``).
    pub kind_role: Option<(Role, String)>,
    pub containers: Vec<ContainerFacts<'a>>,
    /// The object's name and its labels (object and pod templates).
    pub words: Vec<Word<'a>>,
    /// Whether any pod asks for GPUs (or may: a placeholder count).
    pub gpus: bool,
    /// Serving shape: container ports or HTTP probes, on a Deployment or StatefulSet.
    pub serves_http: bool,
    /// The whole object, where kind and shape evidence point.
    pub whole: &'a Span,
}

/// A known role with its evidence.
fn decided(role: Role, span: &Span, signal: Signal, detail: String) -> Inferred<Role> {
    Inferred::new(
        Value::Known(role, span.clone()),
        Some(Evidence::new(signal, detail)),
    )
}

/// Whether a GPU Job says it does batch work other than training (its names, labels or
/// scripts: `quantize`, `eval`, `download`…) or only waits (`sleep`): its shape alone then
/// does not make it training.
fn other_batch_work(f: &WorkloadFacts<'_>) -> bool {
    let shape = &workloads().shape;
    let words = f.words.iter().flat_map(Word::texts);
    let scripts = f
        .containers
        .iter()
        .flat_map(|c| c.argv.iter().copied())
        .filter(|a| {
            std::path::Path::new(a)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("py") || e.eq_ignore_ascii_case("sh"))
        });
    words.chain(scripts).any(|t| shape.other_work(t).is_some())
        || f.containers.iter().all(|c| shape.waits(c.image, &c.argv))
}

/// Training or inference for a Kubernetes workload, from every signal a reviewer reads:
/// the hint, the kind, launchers and training commands, training framework images, serving
/// engines by command and by image repository, names and labels, the controller's shape.
/// A fabric benchmark (nccl-tests) is neither. Nothing deciding leaves it `Absent`.
pub fn workload(f: &WorkloadFacts<'_>) -> Inferred<Role> {
    if let Some((v, s)) = &f.hint {
        return from_hint(v, s.clone(), "the `gpulint.dev/role` annotation");
    }
    if benchmark(&f.containers).is_some() {
        return Inferred::new(Value::Unknown(f.whole.clone()), None);
    }
    if let Some((role, why)) = &f.kind_role {
        return decided(*role, f.whole, Signal::Kind, why.clone());
    }
    let table = workloads();
    let running = |what: &str| format!("{} running `{what}`", f.kind);
    // Commands: launchers, training frameworks' commands, training scripts.
    for c in &f.containers {
        for p in table.launchers.iter().chain(&table.frameworks) {
            if let Some(cmd) = p.command(&c.argv) {
                return decided(Role::Training, c.span, Signal::Command, running(&cmd));
            }
        }
        if let Some(script) = table.training_script(&c.argv) {
            return decided(Role::Training, c.span, Signal::Command, running(&script));
        }
    }
    // Training frameworks' images, before any engine they bundle.
    for c in &f.containers {
        let Some(image) = c.image else { continue };
        let repo = repository(image);
        if let Some(p) = table.frameworks.iter().find(|p| p.image(&repo)) {
            let detail = format!("image `{repo}` is {}, a training framework", p.name);
            return decided(Role::Training, c.span, Signal::Framework, detail);
        }
    }
    for c in &f.containers {
        if let Some((p, cmd)) = table
            .engines
            .iter()
            .find_map(|p| Some((p, p.command(&c.argv)?)))
        {
            let detail = format!("{} ({})", running(&cmd), p.name);
            return decided(Role::Inference, c.span, Signal::Engine, detail);
        }
    }
    for c in &f.containers {
        let Some(image) = c.image else { continue };
        let repo = repository(image);
        if let Some(p) = table.engines.iter().find(|p| p.image(&repo)) {
            let detail = format!("image `{repo}` is {}", p.name);
            return decided(Role::Inference, c.span, Signal::Image, detail);
        }
    }
    let words = from_words(&f.words, f.whole);
    if words.known().is_some() {
        return words;
    }
    if f.gpus {
        match f.kind {
            "Job" | "CronJob" if !other_batch_work(f) => {
                let detail = format!(
                    "a {} with GPUs that runs no serving engine: batch GPU work that ends",
                    f.kind
                );
                return decided(Role::Training, f.whole, Signal::Shape, detail);
            }
            "Deployment" | "StatefulSet" if f.serves_http => {
                let detail = format!(
                    "a {} with GPUs that listens on a port or answers HTTP probes",
                    f.kind
                );
                return decided(Role::Inference, f.whole, Signal::Shape, detail);
            }
            _ => {}
        }
    }
    Inferred::default()
}

/// Roles of capacity from what it is built for and what runs on it, once pods are linked
/// to pools. A hint stays. Otherwise the workloads that land on a pool decide it when they
/// all serve or all train (they outrank words in its names); a pool that no workload
/// decides and no word names takes training from a multi-node build: EFA or GPUDirect
/// networks set up, a cluster placement group or compact placement policy, or a
/// reservation of several machines.
pub fn capacity(inv: &mut Inventory) {
    for i in 0..inv.capacity.len() {
        let c = &inv.capacity[i];
        if c.role
            .evidence
            .as_ref()
            .is_some_and(|e| e.signal == Signal::Hint)
        {
            continue;
        }
        let decided = from_landing(inv, i).or_else(|| {
            matches!(c.role.value, Value::Absent)
                .then(|| multi_node_build(c))
                .flatten()
        });
        if let Some(role) = decided {
            inv.capacity[i].role = role;
        }
    }
}

/// The role every workload that lands on capacity `i` has, when they agree and each is
/// known.
fn from_landing(inv: &Inventory, i: usize) -> Option<Inferred<Role>> {
    let c = &inv.capacity[i];
    let mut landing = c
        .landed_by
        .iter()
        .map(|&w| &inv.workloads[w])
        .filter(|w| w.benchmark.is_none());
    let first = landing.next()?;
    let role = *first.role.known()?;
    let mut others = 0usize;
    for w in landing {
        if w.role.known() != Some(&role) {
            return None;
        }
        others += 1;
    }
    let what = match others {
        0 => format!("`{}`, which lands on it", first.subject),
        n => format!(
            "`{}` and {n} more workload{}, which land on it",
            first.subject,
            if n == 1 { "" } else { "s" }
        ),
    };
    Some(decided(role, &c.header, Signal::Workloads, what))
}

/// Training, when the capacity is built for work across machines.
fn multi_node_build(c: &Capacity) -> Option<Inferred<Role>> {
    c.gpu_machines()?;
    // Azure's InfiniBand sizes come with the fabric whatever the work: not a choice.
    if let (Value::Known(true, s), Provider::Aws | Provider::Gcp) = (&c.fast_fabric, c.provider) {
        let fabric = if c.provider == Provider::Aws {
            "EFA"
        } else {
            "GPUDirect networks"
        };
        return Some(decided(
            Role::Training,
            s,
            Signal::Fabric,
            format!("{fabric} set up for work across machines"),
        ));
    }
    // A scale set is one placement group unless told otherwise: Azure's default for every
    // set, not a choice (read at the set's header, where nothing placed it).
    let chosen = |s: &Span| !(c.provider == Provider::Azure && *s == c.header);
    if let (Value::Known(Placement::Cluster, s), Some(true)) = (&c.placement, c.multi_node())
        && chosen(s)
    {
        return Some(decided(
            Role::Training,
            s,
            Signal::Fabric,
            "a cluster placement for work across machines".into(),
        ));
    }
    match (&c.kind, &c.reserved, &c.scale.min) {
        (CapacityKind::Reservation, Some(_), Value::Known(n, s))
            if *n >= 2
                && c.machines.known().is_some_and(|m| {
                    m.iter()
                        .any(|m| m.fabric.is_some_and(|f| f != Fabric::None))
                }) =>
        {
            Some(decided(
                Role::Training,
                s,
                Signal::Fabric,
                format!(
                    "a reservation of {n} machines with a fast fabric, sized for work across machines"
                ),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_source::FileId;

    fn bench(image: Option<&str>, argv: &[&str]) -> Option<&'static str> {
        let span = Span::new(FileId(0), 0..1);
        let c = ContainerFacts {
            image,
            argv: argv.to_vec(),
            span: &span,
        };
        benchmark(&[c]).map(|b| b.name)
    }

    #[test]
    fn benchmarks_and_checks_by_the_table() {
        let nccl = Some("nccl-tests");
        assert_eq!(
            bench(None, &["/opt/nccl-tests/build/all_gather_perf", "-b", "1K"]),
            nccl
        );
        // Under a launcher, a collective benchmark is still one.
        assert_eq!(
            bench(None, &["mpirun", "-np", "16", "all_reduce_perf"]),
            nccl
        );
        assert_eq!(bench(Some("ghcr.io/coreweave/nccl-tests:12.4"), &[]), nccl);
        assert_eq!(
            bench(
                None,
                &[
                    "python",
                    "-c",
                    "import torch; print(torch.cuda.is_available())"
                ]
            ),
            Some("a GPU check")
        );
        assert_eq!(bench(None, &["nvidia-smi", "-L"]), Some("a GPU check"));
        assert_eq!(bench(None, &["sleep", "infinity"]), Some("a placeholder"));
        // Real work beside a check is the work.
        assert_eq!(
            bench(
                None,
                &["sh", "-c", "nvidia-smi", "&&", "torchrun", "train.py"]
            ),
            None
        );
        assert_eq!(bench(None, &["vllm", "serve", "m"]), None);
        assert_eq!(
            bench(None, &["sh", "-c", "nvidia-smi", "&&", "python", "app.py"]),
            None
        );
        assert_eq!(
            bench(None, &["mpirun", "-np", "8", "nvbandwidth", "-t", "0"]),
            Some("nvbandwidth")
        );
        assert_eq!(
            bench(None, &["mpirun", "-np", "8", "python", "train.py"]),
            None
        );
        assert_eq!(
            bench(
                Some("nvcr.io/nvidia/pytorch:24.05"),
                &["torchrun", "train.py"]
            ),
            None
        );
        assert_eq!(bench(None, &["python", "eval_perf.py"]), None);
    }

    #[test]
    fn words_decide_only_when_they_agree() {
        let s = Span::new(FileId(0), 0..1);
        assert_eq!(
            from_words(&[Word::Name("gpu-training-pool")], &s).known(),
            Some(&Role::Training)
        );
        assert_eq!(
            from_words(
                &[Word::Name("llm_serving"), Word::Label("engine", "vllm")],
                &s
            )
            .known(),
            Some(&Role::Inference)
        );
        assert_eq!(
            from_words(&[Word::Name("train-and-serve")], &s).value,
            Value::Absent
        );
        assert_eq!(
            from_words(
                &[Word::Name("gpu-pool"), Word::Label("constraint", "x")],
                &s
            )
            .value,
            Value::Absent,
            "no substring matches"
        );
        let hint = from_hint("Training", s.clone(), "a hint");
        assert_eq!(hint.known(), Some(&Role::Training));
        assert_eq!(
            hint.reason().as_deref(),
            Some("trains: a hint says `Training`")
        );
        assert!(from_hint("batch", s, "a hint").is_unknown());
    }
}
