//! `parse-error`: a file that does not parse, is not text, or cannot be read. Always on.

use super::{Report, Rule, RuleContext, RuleMeta};
use gpulint_diagnostics::{Category, Severity};
use gpulint_model::{Inventory, Span};

pub const META: RuleMeta = RuleMeta {
    severity: Severity::Error,
    category: Category::Correctness,
    summary: "a file that does not parse (always on)",
    options: &[],
};

pub struct ParseError;

impl Rule for ParseError {
    fn check(&self, model: &Inventory, cx: &mut RuleContext<'_>) {
        for e in &model.syntax_errors {
            let (message, help) = if e.unread {
                (
                    format!("gpulint could not read the file: {}", e.message),
                    "nothing in it was checked (every other file was): make it readable, raise \
                     `max_file_size` if it is too large, or `exclude` it in .gpulint.toml",
                )
            } else if e.read_on {
                (
                    format!("the file does not parse: {}", e.message),
                    "put each argument of the block on its own line, as Terraform requires; \
                     gpulint checked the rest of the file as if they were",
                )
            } else {
                (
                    format!("the file does not parse: {}", e.message),
                    "fix the file at this point: gpulint reads nothing past it in this file, \
                     and still lints every other file",
                )
            };
            cx.report(Report {
                message,
                help: help.into(),
                subject: e.subject.clone(),
                primary: (Span::new(e.file, e.offset..e.offset), e.message.clone()),
                secondary: Vec::new(),
            });
        }
    }
}
