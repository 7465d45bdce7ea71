//! `parse-error`: a file that does not parse, or is not text. Always on.

use super::{Report, Rule, RuleContext, RuleMeta};
use crate::finding::{Category, Severity};
use crate::model::{Inventory, Span};

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
            cx.report(Report {
                message: format!("the file does not parse: {}", e.message),
                help: "fix the file at this point: gpulint reads nothing past it in this file, \
                       and still lints every other file"
                    .into(),
                subject: e.subject.clone(),
                primary: (Span::new(e.file, e.offset..e.offset), e.message.clone()),
                secondary: Vec::new(),
            });
        }
    }
}
