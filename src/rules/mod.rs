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
}

pub trait Rule: Sync {
    fn check(&self, model: &Inventory, cx: &mut RuleContext);
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

/// Collects the findings of one rule.
pub struct RuleContext {
    id: &'static str,
    severity: Severity,
    pub findings: Vec<Finding>,
}

impl RuleContext {
    pub fn new(entry: &RuleEntry) -> Self {
        RuleContext {
            id: entry.id,
            severity: entry.meta.severity,
            findings: Vec::new(),
        }
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

/// Runs the selected rules over the model.
pub fn run(model: &Inventory, selected: &[&'static RuleEntry]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for entry in selected {
        let mut cx = RuleContext::new(entry);
        entry.rule.check(model, &mut cx);
        findings.append(&mut cx.findings);
    }
    findings
}
