//! `limit-exceeded`: a file or module gpulint could not check completely, because input hit
//! one of the limits that keep a run bounded. Always on.

use super::{Report, Rule, RuleContext, RuleMeta};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::Inventory;

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Error,
    category: Category::Correctness,
    summary: "a file or module gpulint could not check completely: it hit a limit (always on)",
    options: &[],
};

pub struct LimitExceeded;

impl Rule for LimitExceeded {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for hit in &model.limits {
            let key = hit.limit.key();
            cx.report(Report {
                message: format!(
                    "gpulint reached its limit of {} {} here: {}",
                    hit.value,
                    hit.limit.unit(),
                    hit.unchecked
                ),
                help: format!(
                    "what was read before this point was checked; to check the rest, raise \
                     `{key}` under `[limits]` in .gpulint.toml (now {}), or `exclude` the file",
                    hit.value
                )
                .into(),
                subject: hit.subject.clone(),
                primary: (hit.span.clone(), format!("`limits.{key}` reached")),
                secondary: Vec::new(),
            });
        }
    }
}
