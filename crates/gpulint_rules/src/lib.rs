//! gpulint_rules: the only place that knows traps. Each rule reads the model and reports
//! findings.
//!
//! Adding a rule touches four places: its file here, one line in the `rules!` list below,
//! its doc in `rules/<id>.md` (at the top of the repository), and its fixtures in
//! `fixtures/<id>/{fires,clean}/`. The contract test (`tests/it/rules.rs`) fails when one
//! is missing. Suppression comments ([`suppress`]) and the ids policies make
//! ([`policy_ids`]) live here too, since both are read against the registry.
//!
//! May use: gpulint_source, gpulint_facts, gpulint_syntax (suppression comments),
//! gpulint_model, gpulint_fit and gpulint_diagnostics. It never sees the config: the
//! pipeline hands each rule its validated options.

mod fleet;
mod held;
pub mod policy_ids;
pub mod suppress;
mod waits;

pub use held::held_machine;

use gpulint_diagnostics::{Category, Finding, Label, Severity};
use gpulint_model::{Inventory, Span};

/// Plain data about a rule; its id comes from the registry line.
#[derive(Clone, Copy, Debug)]
pub struct RuleMeta {
    pub severity: Severity,
    pub category: Category,
    /// One line, lower-case, no trailing period: what the rule flags.
    pub summary: &'static str,
    /// Options the rule takes from `.gpulint.toml` (`[rules.<id>]`).
    pub options: &'static [RuleOption],
}

/// An option a rule declares; the config loader rejects any other.
#[derive(Clone, Copy, Debug)]
pub struct RuleOption {
    pub name: &'static str,
    pub kind: OptionKind,
    /// Its value when the config does not set it (`gpulint init` writes it).
    pub default: u64,
    /// What it means, for `gpulint init`'s comment.
    pub doc: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    PositiveInteger,
}

/// Why a rule took a workload or a pool for training or serving, as a message ends:
/// ` (trains: Job running \`python pretrain.py\`)`. Empty when no evidence was kept.
pub fn because(role: &gpulint_model::Inferred<gpulint_model::Role>) -> String {
    role.reason()
        .map_or_else(String::new, |r| format!(" ({r})"))
}

impl OptionKind {
    pub fn describe(self) -> &'static str {
        match self {
            OptionKind::PositiveInteger => "a positive integer",
        }
    }
}

pub trait Rule: Sync {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>);
}

/// A registered rule.
pub struct RuleEntry {
    pub id: &'static str,
    pub meta: RuleMeta,
    /// `rules/<id>.md`, embedded.
    pub doc: &'static str,
    pub rule: &'static dyn Rule,
}

macro_rules! rules {
    ($($module:ident :: $ty:ident => $id:literal,)*) => {
        $(mod $module;)*
        /// Every rule, in the order they run and are listed.
        pub static RULES: &[RuleEntry] = &[$(RuleEntry {
            id: $id,
            meta: $module::META,
            doc: include_str!(concat!(env!("GPULINT_RULE_DOCS"), "/", $id, ".md")),
            rule: &$module::$ty,
        },)*];
    };
}

rules! {
    parse_error::ParseError => "parse-error",
    limit_exceeded::LimitExceeded => "limit-exceeded",
    missing_auto_shutdown::MissingAutoShutdown => "missing-auto-shutdown",
    gpu_pool_never_scales_to_zero::GpuPoolNeverScalesToZero => "gpu-pool-never-scales-to-zero",
    multi_gpu_without_nvlink::MultiGpuWithoutNvlink => "multi-gpu-without-nvlink",
    training_across_zones::TrainingAcrossZones => "training-across-zones",
    missing_cluster_placement::MissingClusterPlacement => "missing-cluster-placement",
    multi_node_without_fast_fabric::MultiNodeWithoutFastFabric => "multi-node-without-fast-fabric",
    stale_generation_reservation::StaleGenerationReservation => "stale-generation-reservation",
    spot_only_inference::SpotOnlyInference => "spot-only-inference",
    model_exceeds_gpu_memory::ModelExceedsGpuMemory => "model-exceeds-gpu-memory",
    tensor_parallel_mismatch::TensorParallelMismatch => "tensor-parallel-mismatch",
    missing_shm::MissingShm => "missing-shm",
    missing_checkpoint_volume::MissingCheckpointVolume => "missing-checkpoint-volume",
    gpu_starved_cpu_memory::GpuStarvedCpuMemory => "gpu-starved-cpu-memory",
    oversized_inference_gpu::OversizedInferenceGpu => "oversized-inference-gpu",
    idle_gpu_workload::IdleGpuWorkload => "idle-gpu-workload",
    unused_suppression::UnusedSuppression => "unused-suppression",
}

pub use unused_suppression::report as report_unused_suppressions;

/// Rules that always run and that no suppression, severity or baseline hides: a file
/// gpulint could not read, or could not check completely, is never a pass.
pub fn is_always_on(id: &str) -> bool {
    matches!(id, "parse-error" | "limit-exceeded")
}

/// The rule `id` names, written as users write ids: in any case, with `_` for `-`.
pub fn rule(id: &str) -> Option<&'static RuleEntry> {
    RULES.iter().find(|r| r.id == id).or_else(|| {
        let id = normalize(id);
        RULES.iter().find(|r| r.id == id)
    })
}

/// Where a rule's documentation is: its Markdown in this repository at the released
/// version. `docs_url` in `.gpulint.toml` points a mirror elsewhere.
pub const DOCS_URL: &str = concat!(
    "https://github.com/gpulint/gpulint/blob/v",
    env!("CARGO_PKG_VERSION"),
    "/rules/{rule}.md"
);

static DOCS: std::sync::RwLock<Option<String>> = std::sync::RwLock::new(None);

/// Sets where rule documentation links point: a template with `{rule}` (and optionally
/// `{version}`); `None` restores [`DOCS_URL`].
pub fn set_docs_url(template: Option<String>) {
    *DOCS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = template;
}

/// The documentation link of rule `id`; for a policy's rule, the policy file.
pub fn doc_url(id: &str) -> String {
    if let Some(origin) = crate::policy_ids::origin(id) {
        return url_safe(&origin.file);
    }
    let docs = DOCS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    url_safe(
        &docs
            .as_deref()
            .unwrap_or(DOCS_URL)
            .replace("{version}", env!("CARGO_PKG_VERSION"))
            .replace("{rule}", id),
    )
}

/// A link as every output may show it: each byte that is not printable ASCII, or that
/// would end the link or open markup around it (space, quotes, `()[]<>|`, backtick,
/// backslash), percent-encoded. A policy's file name or a configured `docs_url` is then one
/// inert token in a terminal, a CI log, Markdown or SARIF; a clean URL is unchanged.
pub fn url_safe(link: &str) -> String {
    let mut out = String::with_capacity(link.len());
    for b in link.bytes() {
        let plain = b.is_ascii_graphic()
            && !matches!(
                b,
                b'"' | b'\''
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'<'
                    | b'>'
                    | b'|'
                    | b'`'
                    | b'\\'
                    | b'{'
                    | b'}'
                    | b'^'
            );
        if plain {
            out.push(char::from(b));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// A rule id or category as written, in the registry's spelling: lower case, `-` for `_`.
pub fn normalize(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('_', "-")
}

/// The rule id or category `name` stands for, in the registry's spelling.
pub fn canonical(name: &str) -> Option<&'static str> {
    let name = normalize(name);
    RULES
        .iter()
        .map(|r| r.id)
        .chain(Category::ALL.iter().map(|c| c.as_str()))
        .find(|k| *k == name)
}

/// The rule id or category closest to an unknown `name`, when one is close enough to be a
/// typo of it (Jaro-Winkler similarity of at least 0.8, as clap suggests subcommands).
pub fn did_you_mean(name: &str) -> Option<&'static str> {
    closest(
        &normalize(name),
        RULES
            .iter()
            .map(|r| r.id)
            .chain(Category::ALL.iter().map(|c| c.as_str())),
    )
}

/// The candidate closest to `name`, when one is close enough to be a typo of it.
pub fn closest<'k>(name: &str, candidates: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    candidates
        .into_iter()
        .map(|k| (strsim::jaro_winkler(name, k), k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// `; did you mean `x`?` after an unknown name, or nothing.
pub fn suggestion(name: &str) -> String {
    did_you_mean(name).map_or_else(String::new, |k| format!("; did you mean `{k}`?"))
}

/// What a rule reports, before the registry adds its id and severity.
pub struct Report {
    pub message: String,
    pub help: std::borrow::Cow<'static, str>,
    pub subject: String,
    pub primary: (Span, String),
    pub secondary: Vec<(Span, String)>,
}

/// Collects the findings of one rule, and gives it its configured options.
pub struct RuleContext<'a> {
    id: &'static str,
    severity: Severity,
    options: Option<&'a toml::Table>,
    pub findings: Vec<Finding>,
}

impl<'a> RuleContext<'a> {
    pub fn new(entry: &RuleEntry, options: Option<&'a toml::Table>) -> Self {
        RuleContext {
            id: entry.id,
            severity: entry.meta.severity,
            options,
            findings: Vec::new(),
        }
    }

    /// A positive integer option, validated when the config was loaded.
    pub fn option_u64(&self, name: &str) -> Option<u64> {
        self.options?
            .get(name)?
            .as_integer()
            .and_then(|n| u64::try_from(n).ok())
    }

    /// Reports at a severity other than the rule's default (a missing checkpoint volume is
    /// an error on spot capacity).
    pub fn report_as(&mut self, severity: Severity, r: Report) {
        self.report(r);
        if let Some(f) = self.findings.last_mut() {
            f.severity = severity;
        }
    }

    pub fn report(&mut self, r: Report) {
        let label = |(span, text): (Span, String)| Label::new(span.file, Some(span.range()), text);
        self.findings.push(Finding {
            rule: self.id,
            severity: self.severity,
            message: r.message,
            help: r.help,
            subject: r.subject,
            primary: label(r.primary),
            secondary: r.secondary.into_iter().map(label).collect(),
            related: Vec::new(),
            cost: None,
            leaf: None,
        });
    }

    /// [`report`](Self::report), with what the flagged waste costs.
    pub fn report_costed(&mut self, r: Report, cost: Option<gpulint_diagnostics::Cost>) {
        self.report(r);
        if let Some(f) = self.findings.last_mut() {
            f.cost = cost.map(Box::new);
        }
    }
}

/// Runs the selected rules over the model, each with its configured options.
pub fn run(
    model: &Inventory,
    selected: &[&'static RuleEntry],
    options: &std::collections::BTreeMap<String, toml::Table>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    // Where each workload is written: a finding on a workload that points outside it points
    // at an object merged into it.
    let written: std::collections::HashMap<&str, &Span> = model
        .workloads
        .iter()
        .map(|w| (w.subject.as_str(), &w.span))
        .collect();
    let merged_in = |f: &Finding| {
        written.get(f.subject.as_str()).is_some_and(|w| {
            let (r, at) = (w.range(), f.primary.span.clone().unwrap_or_default());
            w.file != f.primary.file || at.start < r.start || at.end > r.end
        })
    };
    for entry in selected {
        let mut cx = RuleContext::new(entry, options.get(entry.id));
        entry.rule.check(model, &mut cx);
        // Groups that share one spec (a YAML alias: `*task-spec`) are one place to change:
        // one finding. So are objects that take it from one merged object (a training
        // runtime under several TrainJobs): one finding at the merged object.
        let place = |f: &Finding| {
            (
                f.primary.file,
                f.primary.span.clone().map(|r| (r.start, r.end)),
                f.message.replacen(&format!("`{}`", f.subject), "", 1),
            )
        };
        let mut owned: std::collections::HashSet<_> = cx
            .findings
            .iter()
            .filter(|f| !merged_in(f))
            .map(place)
            .collect();
        let mut seen = std::collections::HashSet::new();
        cx.findings.retain(|f| {
            if merged_in(f) {
                return owned.insert(place(f));
            }
            seen.insert((
                f.primary.file,
                f.primary.span.clone().map(|r| (r.start, r.end)),
                f.message.clone(),
            ))
        });
        findings.append(&mut cx.findings);
    }
    findings
}

/// A capacity named in a message: a VM block expanded by `count`/`for_each` is judged as one
/// group on its first instance, and says how many it makes.
pub(crate) fn group_subject(c: &gpulint_model::Capacity) -> String {
    if c.peers > 1 && c.kind == gpulint_model::CapacityKind::Instance {
        format!(
            "`{}` (with the other instances of its block: {} VMs)",
            c.subject, c.peers
        )
    } else {
        format!("`{}`", c.subject)
    }
}

/// Says on each finding what gpulint assumed to read its block (that a block off by
/// default is enabled, that a module not read takes its inputs as a known module does),
/// and points at the line the assumption rests on.
pub fn add_caveats(caveats: &[gpulint_model::Caveat], findings: &mut [Finding]) {
    use std::fmt::Write as _;
    if caveats.is_empty() {
        return;
    }
    for f in findings {
        let mut said: Vec<&str> = Vec::new();
        for t in caveats.iter().filter(|t| {
            f.subject
                .strip_prefix(t.subject.as_str())
                .is_some_and(|rest| {
                    (rest.is_empty() || rest.starts_with(['[', '.']))
                        && t.entry
                            .as_ref()
                            .is_none_or(|k| rest.contains(&format!("[{k:?}]")))
                })
                && (t.inside_calls
                    || std::iter::once(&f.primary)
                        .chain(&f.secondary)
                        .any(|l| t.files.contains(&l.file)))
        }) {
            // A block lowered in two instances records its caveat twice.
            if said.contains(&t.note.as_str()) {
                continue;
            }
            said.push(&t.note);
            let _ = write!(f.message, " ({})", t.note);
            f.related.push(Label::new(
                t.span.file,
                Some(t.span.range()),
                t.label.clone(),
            ));
        }
    }
}

/// Gives each finding the places that set the values its labels point at: a label on
/// `var.gpu_min` (`var.groups["gpu"].min` …) in a module's file gets the tfvars line, call
/// argument or default that gave the variable its value in the finding's module instance
/// (the one with the longest prefix of its subject that holds the file). A module shared
/// by several roots is one instance name in each: when their origins differ, which one is
/// this finding's cannot be told, and none is given.
pub fn add_related(
    origins: &[gpulint_model::Instance],
    db: &gpulint_source::SourceDb,
    findings: &mut [Finding],
) {
    let mut by_file: std::collections::HashMap<
        gpulint_source::FileId,
        Vec<&gpulint_model::Instance>,
    > = std::collections::HashMap::new();
    for i in origins {
        for file in &i.files {
            by_file.entry(*file).or_default().push(i);
        }
    }
    for f in findings {
        let mut related: Vec<Label> = Vec::new();
        for l in std::iter::once(&f.primary).chain(&f.secondary) {
            // Only a file of a module instance is read: a large run reads again just those.
            let Some(in_file) = by_file.get(&l.file) else {
                continue;
            };
            let Some(name) = l
                .span
                .as_ref()
                .and_then(|r| db.get(l.file).text().get(r.clone()))
                .and_then(variable_read)
            else {
                continue;
            };
            let instances: Vec<&gpulint_model::Instance> = in_file
                .iter()
                .copied()
                .filter(|i| f.subject.starts_with(&i.prefix))
                .collect();
            let Some(deepest) = instances.iter().map(|i| i.prefix.len()).max() else {
                continue;
            };
            let mut found: Vec<&[gpulint_model::Related]> = Vec::new();
            for i in instances.iter().filter(|i| i.prefix.len() == deepest) {
                if let Some(rs) = i.vars.get(name)
                    && !found.contains(&rs)
                {
                    found.push(rs);
                    if found.len() > 1 {
                        break;
                    }
                }
            }
            let [rs] = found[..] else { continue };
            for r in rs {
                let label = Label::new(r.span.file, Some(r.span.range()), r.message.to_string());
                let is_primary = label.file == f.primary.file && label.span == f.primary.span;
                if !is_primary && !related.contains(&label) {
                    related.push(label);
                }
            }
        }
        f.related = related;
    }
}

/// A finding inside a local module names the calls that deploy it, last, where nothing
/// else it points at is: the root a user reads, with the inputs it gives. Two roots that
/// call the module under one name (`module.gpu` in `dev/` and in `prod/`) give one
/// finding: each call is named, up to `MAX_CALLS`. Returns the files those calls are
/// in, to be read for the report.
pub fn add_calls(
    origins: &[gpulint_model::Instance],
    findings: &mut [Finding],
) -> Vec<gpulint_source::FileId> {
    let mut files = Vec::new();
    for f in findings {
        let calls = outermost_calls(origins, &f.subject, f.primary.file);
        let mut points = std::iter::once(&f.primary)
            .chain(&f.secondary)
            .chain(&f.related);
        if calls.is_empty() || points.any(|l| calls.iter().any(|(_, c)| l.file == c.file)) {
            continue;
        }
        for (name, call) in calls {
            files.push(call.file);
            f.related.push(Label::new(
                call.file,
                Some(call.range()),
                format!("`{name}` deploys the module here"),
            ));
        }
    }
    files
}

/// Calls named on one finding, at most.
const MAX_CALLS: usize = 3;

/// The outermost `module` calls a finding was made through (`module.gpu` of
/// `module.gpu.module.pool.aws_instance.x`), and where each is written, in file order.
/// Subjects repeat across the roots of a run (two samples may each call `module.gke`), so
/// each chain is followed from the module instances whose files hold the finding's
/// `file`, up through the instances whose files hold each call.
fn outermost_calls<'a>(
    origins: &'a [gpulint_model::Instance],
    subject: &str,
    file: gpulint_source::FileId,
) -> Vec<(&'a str, &'a gpulint_model::Span)> {
    // The instances of the longest prefix that fit, one per call.
    let deepest = |fits: &dyn Fn(&gpulint_model::Instance) -> bool| {
        let found: Vec<&'a gpulint_model::Instance> = origins
            .iter()
            .filter(|i| !i.prefix.is_empty() && fits(i))
            .collect();
        let longest = found.iter().map(|i| i.prefix.len()).max().unwrap_or(0);
        let mut at: Vec<&'a gpulint_model::Instance> = Vec::new();
        for i in found.into_iter().filter(|i| i.prefix.len() == longest) {
            if !at.iter().any(|a| a.call == i.call) {
                at.push(i);
            }
        }
        at
    };
    let mut out: Vec<(&'a str, &'a gpulint_model::Span)> = Vec::new();
    let mut todo = deepest(&|i| subject.starts_with(&i.prefix) && i.files.contains(&file));
    // Module nesting is bounded by the module depth limit; the walk is bounded too.
    let mut steps = 0;
    while let Some(at) = todo.pop() {
        steps += 1;
        if steps > 256 {
            break;
        }
        let Some(call) = at.call.as_ref() else {
            continue;
        };
        let prefix = &at.prefix;
        let parents = deepest(&|i| {
            i.prefix.len() < prefix.len()
                && prefix.starts_with(&i.prefix)
                && i.files.contains(&call.file)
        });
        if parents.is_empty() {
            if !out.iter().any(|(_, c)| *c == call) {
                out.push((at.prefix.trim_end_matches('.'), call));
            }
        } else {
            todo.extend(parents);
        }
    }
    out.sort_by_key(|(_, c)| (c.file, c.range().start));
    out.truncate(MAX_CALLS);
    out
}

/// The variable an expression's text reads, when it is a reference to one and nothing
/// else (`var.gpu_min`, `"${var.gpu_min}"`, `var.groups["gpu"].min_size`), or the flag a
/// conditional picks its value by (`var.use_spot ? "spot" : null`).
fn variable_read(text: &str) -> Option<&str> {
    // A legacy interpolation-only string reads its variable too: `"${var.count}"`.
    let text = text
        .strip_prefix("\"${")
        .and_then(|t| t.strip_suffix("}\""))
        .map_or(text, str::trim);
    let rest = text.strip_prefix("var.")?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let (name, tail) = rest.split_at(end);
    if !name.is_empty() && tail.trim_start().starts_with('?') {
        return Some(name);
    }
    let traversal = tail
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.[]\"*".contains(c));
    (!name.is_empty() && traversal).then_some(name)
}

/// `p5.48xlarge (8 × NVIDIA H100 SXM5 80GB)`: a machine and its GPUs, for messages.
pub fn describe(m: &gpulint_model::Machine) -> String {
    match &m.gpus {
        Some(g) => format!("{} ({} × {})", m.name, g.count, g.gpu.name),
        None => m.name.to_string(),
    }
}

/// `8 × NVIDIA H100 SXM5 80GB`: a machine's GPUs, for labels.
pub fn gpu_label(m: &gpulint_model::Machine) -> String {
    m.gpus
        .as_ref()
        .map_or_else(String::new, |g| format!("{} × {}", g.count, g.gpu.name))
}

/// `1 node`, `3 nodes`.
pub fn nodes(n: u64) -> String {
    if n == 1 {
        "1 node".into()
    } else {
        format!("{n} nodes")
    }
}

/// The GPU model a pod runs on: what its node requirements name, else what every pool it
/// lands on carries. `None` when that is unknown or not one model.
pub fn pod_gpu(
    model: &Inventory,
    pod: &gpulint_model::PodShape,
) -> Option<(&'static gpulint_facts::Gpu, Span)> {
    let one = |gpus: Vec<&'static gpulint_facts::Gpu>| {
        let first = *gpus.first()?;
        gpus.iter().all(|g| g.id == first.id).then_some(first)
    };
    // What the pod selects, by GPU or instance type: one model, or none to name.
    if pod.selection.gpus.is_some() || pod.selection.instance_types.is_some() {
        let (gpus, span) = pod_gpu_choices(model, pod);
        return one(gpus).zip(span);
    }
    let landing: Vec<_> = model.landing(pod).collect();
    let gpus: Vec<_> = landing
        .iter()
        .flat_map(|c| c.gpu_machines().map(|(m, _)| m).unwrap_or_default())
        .filter_map(|m| m.gpus.as_ref().map(|g| g.gpu))
        .collect();
    let span = pod.requirements.first()?.span.clone();
    one(gpus).map(|g| (g, span))
}

/// The GPUs a pod could land on when [`pod_gpu`] cannot name one: the types its selection,
/// instance types or landing capacity allow (with the place that says so), else every GPU
/// in the catalog (no place). Empty when a named type is not in the catalog.
pub fn pod_gpu_choices(
    model: &Inventory,
    pod: &gpulint_model::PodShape,
) -> (Vec<&'static gpulint_facts::Gpu>, Option<Span>) {
    let cat = gpulint_facts::catalog();
    if let Some((gpus, span)) = &pod.selection.gpus {
        return (gpus.clone(), Some(span.clone()));
    }
    if let Some((types, span)) = &pod.selection.instance_types {
        let gpus: Option<Vec<_>> = types
            .iter()
            .map(|t| cat.instance_any(t).map(|i| i.gpu))
            .collect();
        return (gpus.unwrap_or_default(), Some(span.clone()));
    }
    let landing: Vec<_> = model.landing(pod).collect();
    if !landing.is_empty() {
        let (mut gpus, mut at) = (Vec::new(), None);
        for c in &landing {
            match c.gpu_machines() {
                Some((machines, span)) => {
                    gpus.extend(
                        machines
                            .iter()
                            .filter_map(|m| m.gpus.as_ref().map(|g| g.gpu)),
                    );
                    at.get_or_insert_with(|| span.clone());
                }
                // A pool of machines gpulint cannot tell: any GPU.
                None => return (cat.gpus.clone(), None),
            }
        }
        return (gpus, at);
    }
    (cat.gpus.clone(), None)
}

/// What a pod's GPUs cost where it lands: the machine it lands on, priced, and how many
/// GPUs that machine has (one GPU is that share of its price).
pub struct GpuHour {
    /// The machine's cloud. Only the cheapest machine's, when the pod may land on any
    /// cloud's (`cloud_known` false).
    pub provider: gpulint_model::Provider,
    pub cloud_known: bool,
    pub quote: gpulint_facts::prices::Quote,
    pub per_machine: u32,
    /// The region the landing pool's code names.
    pub region: Option<String>,
    /// Among what this is the cheapest per GPU, when the pod may land on several types:
    /// "the cheapest type it may land on". The figures are then lower bounds.
    pub cheapest_of: Option<String>,
}

impl GpuHour {
    /// ", the cheapest type it may land on", or nothing.
    pub fn cheapest(&self) -> String {
        self.cheapest_of
            .as_ref()
            .map_or_else(String::new, |c| format!(", {c}"))
    }

    /// "1/4 of a g5.12xlarge", "a g6.xlarge".
    pub fn share(&self) -> String {
        if self.per_machine == 1 {
            format!("a {}", self.quote.name)
        } else {
            format!("1/{} of a {}", self.per_machine, self.quote.name)
        }
    }

    /// One GPU's share of the machine's hourly price.
    pub fn per_gpu(&self) -> f64 {
        self.quote.usd_per_hour / f64::from(self.per_machine)
    }

    /// The cost of `gpus` GPUs held (`at_least` when the count is a lower bound).
    pub fn cost(&self, gpus: u32, at_least: bool) -> gpulint_diagnostics::Cost {
        let bound = at_least || self.cheapest_of.is_some();
        let what = format!(
            "{}{gpus} GPU{} at {}/GPU-hour ({}{})",
            if bound { "at least " } else { "" },
            if gpus == 1 { "" } else { "s" },
            gpulint_facts::prices::usd(self.per_gpu()),
            self.share(),
            self.cheapest()
        );
        gpulint_diagnostics::Cost::of(
            &self.quote,
            self.region.as_deref(),
            f64::from(gpus) / f64::from(self.per_machine),
            &what,
        )
    }
}

/// The cheapest price per GPU of the machines a pod lands on: the instance types its node
/// selector names, else the GPU machines of the pools it lands on, else any machine with
/// the GPU its GPU label names (on that label's cloud, when it has one) — a lower bound.
/// `None` when it names none, or one of the types it may land on has no price (then the
/// cheapest is not known).
pub fn pod_gpu_hour(model: &Inventory, pod: &gpulint_model::PodShape) -> Option<GpuHour> {
    let cat = gpulint_facts::catalog();
    let hour = |provider, quote, per_machine, region| GpuHour {
        provider,
        cloud_known: true,
        quote,
        per_machine,
        region,
        cheapest_of: None,
    };
    let mut options: Vec<GpuHour> = Vec::new();
    let mut several = "the cheapest type it may land on".to_string();
    if let Some((types, _)) = &pod.selection.instance_types {
        for t in types {
            let i = cat.instance_any(t)?;
            let quote = cat.prices.quote_instance(i.provider, &i.row.name)?;
            options.push(hour(i.provider, quote, i.row.count, None));
        }
    } else if !pod.landing.is_empty() {
        for c in model.landing(pod) {
            for m in c.gpu_machines()?.0 {
                let gpus = m.gpus.as_ref()?;
                let quote = cat.prices.quote(c.provider, m)?;
                let region = c.region().map(str::to_string);
                options.push(hour(c.provider, quote, gpus.count, region));
            }
        }
    } else if let Some((gpus, _)) = &pod.selection.gpus {
        // Every priced machine with one of the GPUs: the cheapest is a lower bound.
        let cloud = pod.selection.gpus_provider;
        // A machine with no price could be the cheapest: then nothing is certain.
        for i in cat.instances.iter().filter(|i| {
            gpus.iter().any(|g| g.id == i.gpu.id) && cloud.is_none_or(|p| p == i.provider)
        }) {
            let quote = cat.prices.quote_instance(i.provider, &i.row.name)?;
            options.push(hour(i.provider, quote, i.row.count, None));
        }
        if cloud.is_none_or(|p| p == gpulint_model::Provider::Gcp) {
            for g in gpus {
                if let Some(quote) = cat.prices.quote_gpu(g) {
                    options.push(hour(gpulint_model::Provider::Gcp, quote, 1, None));
                }
            }
        }
        let names: Vec<&str> = gpus.iter().map(|g| g.name.as_str()).collect();
        several = format!(
            "the cheapest {}machine with {} in the price snapshot",
            match cloud {
                Some(p) => format!("{} ", p.as_str().to_ascii_uppercase()),
                None => String::new(),
            },
            names.join(" or ")
        );
        // Even one option is a bound: the pod may land on a dearer machine.
        if options.len() == 1 {
            options[0].cheapest_of = Some(several.clone());
        }
    }
    if pod.landing.is_empty()
        && pod.selection.instance_types.is_none()
        && pod.selection.gpus_provider.is_none()
    {
        for o in &mut options {
            o.cloud_known = false;
        }
    }
    let many = options.len() > 1;
    let mut best = options
        .into_iter()
        .filter(|o| o.per_machine > 0)
        .min_by(|a, b| a.per_gpu().total_cmp(&b.per_gpu()))?;
    if many {
        best.cheapest_of = Some(several);
    }
    Some(best)
}

/// Whether a pod runs only on spot capacity: its requirements ask for spot, or every pool
/// it lands on is spot. The span points at the reason.
pub fn pod_spot_only(model: &Inventory, pod: &gpulint_model::PodShape) -> Option<Span> {
    use gpulint_model::{Market, Value};
    if let Some((Market::Spot, span)) = &pod.selection.market {
        return Some(span.clone());
    }
    let landing: Vec<_> = model.landing(pod).collect();
    if !landing.is_empty()
        && landing
            .iter()
            .all(|c| matches!(c.market, Value::Known(Market::Spot, _)))
    {
        return pod.requirements.first().map(|r| r.span.clone());
    }
    None
}

/// What a serving pod runs, read into the memory math's terms.
pub struct Served {
    /// The model as written (or its size, when only that is given).
    pub label: String,
    pub request: gpulint_fit::Request,
    /// Where the model is named.
    pub model_span: Span,
    /// Tensor × pipeline parallel as configured (engine defaults applied), with the span
    /// of the flag when written.
    pub tp: (u32, Option<Span>),
    pub pp: u32,
    /// Data-parallel copies in the pod, with the span of the flag when written.
    pub dp: (u32, Option<Span>),
}

/// Reads a pod's serving engine into a memory request. `None` when anything it needs is
/// unknown: an unknown model with no size in its name, an unknown quantization format.
pub fn served(pod: &gpulint_model::PodShape) -> Option<Served> {
    use gpulint_model::Value;
    let gpus = match &pod.gpus {
        Value::Known(g, _) if g.exact && !g.resource.contains("mig-") => g.count,
        _ => return None,
    };
    served_on(pod.serving.as_ref()?, gpus)
}

/// [`served`] for an engine that sees `gpus` GPUs (a pod's, a VM's).
pub fn served_on(s: &gpulint_model::Serving, gpus: u32) -> Option<Served> {
    use gpulint_fit::engine::{EngineKind, Serve};
    use gpulint_fit::models::resolve;
    use gpulint_fit::{Precision, Quant};
    use gpulint_model::Engine;
    if !s.unknown.is_empty() {
        return None;
    }
    let (label, params, spec, named, kept, model_span) = match (&s.model, &s.params) {
        (Some((m, span)), hint) => {
            let r = resolve(m);
            match (r, hint) {
                (Some(r), _) => (
                    m.clone(),
                    r.params,
                    r.spec,
                    r.precision,
                    r.kept_16bit,
                    span.clone(),
                ),
                (None, Some((p, _))) => (m.clone(), *p, None, None, 0.0, span.clone()),
                (None, None) => return None,
            }
        }
        (None, Some((p, span))) => (
            format!("a {:.0}B model", p / 1e9),
            *p,
            None,
            None,
            0.0,
            span.clone(),
        ),
        (None, None) => return None,
    };
    let quant = s.quantization.as_ref().map(|(q, _)| q.to_ascii_lowercase());
    let (precision, q) = match quant.as_deref() {
        Some(q) if q.contains("awq") => (Precision::Int4, Quant::Awq),
        Some(q) if q.contains("gptq") || q == "marlin" => (Precision::Int4, Quant::Gptq),
        Some("bitsandbytes") if s.engine == Engine::Tgi => (Precision::Int8, Quant::None),
        Some(q) if q.starts_with("bitsandbytes") => (Precision::Int4, Quant::Nf4),
        Some(q) if q.contains("fp8") || q == "modelopt" => (Precision::Fp8, Quant::None),
        Some("eetq" | "int8" | "w8a8" | "smoothquant") => (Precision::Int8, Quant::None),
        Some(_) => return None,
        None => match (
            named,
            s.precision.as_ref().map(|(d, _)| d.to_ascii_lowercase()),
        ) {
            (Some(n), _) => n,
            (None, Some(d)) => match d.as_str() {
                "float16" | "half" | "fp16" => (Precision::Fp16, Quant::None),
                "bfloat16" | "bf16" => (Precision::Bf16, Quant::None),
                "float32" | "float" | "fp32" => (Precision::Fp32, Quant::None),
                "fp8" => (Precision::Fp8, Quant::None),
                "int8" => (Precision::Int8, Quant::None),
                "int4" => (Precision::Int4, Quant::None),
                "auto" => (spec.map_or(Precision::Bf16, |s| s.dtype), Quant::None),
                _ => return None,
            },
            // NIM picks a profile's precision for the GPUs it finds (FP8 on Hopper).
            (None, None) if s.engine == Engine::Nim => return None,
            (None, None) => (spec.map_or(Precision::Bf16, |s| s.dtype), Quant::None),
        },
    };
    let kv_precision = match s.kv_precision.as_ref().map(|(k, _)| k.to_ascii_lowercase()) {
        Some(k) if k.starts_with("fp8") => Precision::Fp8,
        Some(k) if k == "auto" || k == "bfloat16" => Precision::Bf16,
        Some(k) if k == "float16" || k == "half" => Precision::Fp16,
        Some(_) => return None,
        None if spec.map(|s| s.dtype) == Some(Precision::Fp16) => Precision::Fp16,
        None => Precision::Bf16,
    };
    // Engine defaults: TGI shards over every GPU it sees; vLLM and SGLang use one.
    let tp = match &s.tp {
        Some((t, span)) => (*t, Some(span.clone())),
        None if matches!(s.engine, Engine::Tgi | Engine::Nim) => (gpus, None),
        None => (1, None),
    };
    let pp = s.pp.as_ref().map_or(1, |(p, _)| *p);
    let dp =
        s.dp.as_ref()
            .map_or((1, None), |(d, span)| (*d, Some(span.clone())));
    let context = s.max_model_len.as_ref().map(|(c, _)| *c).or(spec.map(|sp| {
        s.model.as_ref().map_or(sp.max_context, |(m, _)| {
            gpulint_fit::models::context_of(m, sp)
        })
    }));
    let engine = match s.engine {
        Engine::Tgi => EngineKind::Tgi,
        Engine::Sglang => EngineKind::Sglang,
        Engine::Nim => EngineKind::Nim,
        // vLLM, and another engine or only hints: sized as vLLM, the most common.
        Engine::Vllm | Engine::Other(_) | Engine::Hint => EngineKind::Vllm,
    };
    let b = &s.batching;
    let serve = Serve {
        engine,
        utilization: s.gpu_memory_utilization.as_ref().map(|(u, _)| *u),
        max_num_batched_tokens: b.max_num_batched_tokens.as_ref().map(|(n, _)| *n),
        max_num_seqs: b.max_num_seqs.as_ref().map(|(n, _)| *n),
        enforce_eager: b.enforce_eager.is_some(),
    };
    let kept = gpulint_fit::models::kept_at(named, kept, precision);
    Some(Served {
        label,
        request: gpulint_fit::Request {
            params,
            spec,
            precision,
            quant: q,
            kept_16bit: kept,
            kv_precision,
            context,
            batch: 1,
            tp: tp.0.max(1),
            pp: pp.max(1),
            gpus: tp.0.saturating_mul(pp).max(1),
            training: None,
            serve,
            training_utilization: None,
        },
        model_span,
        tp,
        pp,
        dp,
    })
}
