//! `unused-suppression`: a suppression that hides nothing, names no rule or an unknown one.
//!
//! It is judged after every other rule has run, when the suppressions have been matched
//! against their findings; so [`Rule::check`] reports nothing here and the filter stage calls
//! [`report`] instead (as ruff's RUF100 runs in its noqa pass).

use super::{Rule, RuleContext, RuleMeta, rule};
use crate::suppress::{Directive, Form};
use gpulint_diagnostics::{Category, Finding, Label, Severity};
use gpulint_model::Inventory;

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Info,
    category: Category::Meta,
    summary: "a suppression comment or annotation that hides nothing",
    options: &[],
};

pub struct UnusedSuppression;

impl Rule for UnusedSuppression {
    fn check(&self, _model: &Inventory, _cx: &mut RuleContext<'_>) {}
}

/// Findings for the ids of `d` that hid nothing. `ran` says whether a rule ran in this run:
/// a suppression of a rule that did not run is not known to be unused, so it is left alone.
pub fn report(d: &Directive, ran: &dyn Fn(&str) -> bool, subject: &str) -> Vec<Finding> {
    let what = match d.form {
        Form::Comment => "suppression comment",
        Form::File => "file-wide suppression",
        Form::Annotation => "`gpulint.dev/ignore` annotation",
    };
    let finding = |span: std::ops::Range<usize>, message: String, help: &str| Finding {
        rule: "unused-suppression",
        severity: META.severity,
        message,
        help: help.to_string().into(),
        subject: subject.to_string(),
        primary: Label::new(d.file, Some(span), "hides nothing"),
        secondary: Vec::new(),
        related: Vec::new(),
        cost: None,
        leaf: None,
    };
    if d.ids.is_empty() {
        return vec![finding(
            d.span.clone(),
            format!("this {what} names no rule, so it hides nothing"),
            "name the rules it hides, comma-separated: `# gpulint:ignore missing-auto-shutdown -- why`",
        )];
    }
    let mut out = Vec::new();
    for ((id, span), used) in d.ids.iter().zip(&d.used) {
        if *used {
            continue;
        }
        if crate::is_always_on(&crate::normalize(id)) {
            out.push(finding(
                span.clone(),
                format!("this {what} names `{id}`, which cannot be suppressed"),
                "fix the file instead: a file gpulint cannot read or check is never a pass",
            ));
        } else if crate::policy_ids::is_policy_id(id) {
            // A policy's ids are known only once it runs: judged only when policies ran.
            if ran(id) {
                out.push(finding(
                    span.clone(),
                    format!("this {what} hides `{id}`, but `{id}` reports nothing here"),
                    "remove it: the problem it hid is gone, and a stale suppression would hide \
                     the next one",
                ));
            }
        } else if rule(id).is_none() {
            let help = match crate::did_you_mean(id) {
                Some(meant) => format!("did you mean `{meant}`? (`gpulint rules` lists them)"),
                None => "correct the rule id (`gpulint rules` lists them) or remove it".into(),
            };
            out.push(Finding {
                help: help.into(),
                ..finding(
                    span.clone(),
                    format!("this {what} names `{id}`, which is not a gpulint rule"),
                    "",
                )
            });
        } else if rule(id).is_some_and(|r| ran(r.id) && r.id != "unused-suppression") {
            out.push(finding(
                span.clone(),
                format!("this {what} hides `{id}`, but `{id}` reports nothing here"),
                "remove it: the problem it hid is gone, and a stale suppression would hide the \
                 next one",
            ));
        }
    }
    out
}
