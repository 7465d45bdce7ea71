//! Rules: the only place that knows traps. Each reads the model and reports findings.
//!
//! Adding a rule touches four places: its file here, one line in the `rules!` list below, its doc
//! in `rules/<id>.md`, and its fixtures in `fixtures/<id>/{fires,clean}/`. The contract
//! test (`tests/rules.rs`) fails when one is missing.

use crate::finding::{Category, Finding, Label, Severity};
use crate::model::{Inventory, Span};

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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    PositiveInteger,
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
            doc: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/", $id, ".md")),
            rule: &$module::$ty,
        },)*];
    };
}

rules! {
    parse_error::ParseError => "parse-error",
    missing_auto_shutdown::MissingAutoShutdown => "missing-auto-shutdown",
    gpu_pool_never_scales_to_zero::GpuPoolNeverScalesToZero => "gpu-pool-never-scales-to-zero",
    multi_gpu_without_nvlink::MultiGpuWithoutNvlink => "multi-gpu-without-nvlink",
    training_across_zones::TrainingAcrossZones => "training-across-zones",
    missing_cluster_placement::MissingClusterPlacement => "missing-cluster-placement",
    multi_node_without_fast_fabric::MultiNodeWithoutFastFabric => "multi-node-without-fast-fabric",
    stale_generation_reservation::StaleGenerationReservation => "stale-generation-reservation",
    spot_only_inference::SpotOnlyInference => "spot-only-inference",
}

pub fn rule(id: &str) -> Option<&'static RuleEntry> {
    RULES.iter().find(|r| r.id == id)
}

/// What a rule reports, before the registry adds its id and severity.
pub struct Report {
    pub message: String,
    pub help: String,
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

    pub fn report(&mut self, r: Report) {
        let label = |(span, text): (Span, String)| Label::new(span.file, Some(span.range), text);
        self.findings.push(Finding {
            rule: self.id,
            severity: self.severity,
            message: r.message,
            help: r.help,
            subject: r.subject,
            primary: label(r.primary),
            secondary: r.secondary.into_iter().map(label).collect(),
        });
    }
}

/// Runs the selected rules over the model, each with its configured options.
pub fn run(
    model: &Inventory,
    selected: &[&'static RuleEntry],
    config: &crate::config::Config,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for entry in selected {
        let mut cx = RuleContext::new(entry, config.rules.get(entry.id));
        entry.rule.check(model, &mut cx);
        findings.append(&mut cx.findings);
    }
    findings
}

/// `p5.48xlarge (8 × NVIDIA H100 SXM5 80GB)`: a machine and its GPUs, for messages.
pub fn describe(m: &crate::model::Machine) -> String {
    match &m.gpus {
        Some(g) => format!("{} ({} × {})", m.name, g.count, g.gpu.name),
        None => m.name.clone(),
    }
}

/// `8 × NVIDIA H100 SXM5 80GB`: a machine's GPUs, for labels.
pub fn gpu_label(m: &crate::model::Machine) -> String {
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
