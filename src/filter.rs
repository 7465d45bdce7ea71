//! Filtering findings: which rules run, which files report, and in what order.

use crate::finding::{Category, Finding};
use crate::rules::{RULES, RuleEntry};
use crate::source::SourceDb;

/// Rules selected by `--select` and `--ignore`, each a rule id or a category name.
/// `parse-error` always runs. An unknown name is an error, so a typo cannot silently
/// turn a check off.
pub fn select_rules(
    select: &[String],
    ignore: &[String],
) -> Result<Vec<&'static RuleEntry>, String> {
    let matches = |name: &str, r: &RuleEntry| r.id == name || r.meta.category.as_str() == name;
    for name in select.iter().chain(ignore) {
        let is_category = [
            Category::Cost,
            Category::Reliability,
            Category::Performance,
            Category::Correctness,
        ]
        .iter()
        .any(|c| c.as_str() == name);
        if !is_category && !RULES.iter().any(|r| r.id == name) {
            return Err(format!(
                "unknown rule or category `{name}` (see `gpulint rules`)"
            ));
        }
    }
    Ok(RULES
        .iter()
        .filter(|r| {
            r.id == "parse-error"
                || ((select.is_empty() || select.iter().any(|s| matches(s, r)))
                    && !ignore.iter().any(|s| matches(s, r)))
        })
        .collect())
}

/// Keeps the findings in files the user asked about, sorted by file, position and rule.
pub fn finish(db: &SourceDb, mut findings: Vec<Finding>) -> Vec<Finding> {
    findings.retain(|f| db.get(f.primary.file).requested);
    findings.sort_by_cached_key(|f| {
        let file = db.get(f.primary.file);
        let start = f.primary.span.as_ref().map_or(0, |s| s.start);
        (file.name.clone(), start, f.rule, f.message.clone())
    });
    findings
}
