//! `--statistics`: how many findings each rule made, instead of the findings (ruff's
//! `--statistics`). Text for people, JSON for scripts.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::{Counts, plural};
use crate::finding::Severity;
use crate::lint::Outcome;
use crate::rules::rule;

/// One rule's count.
#[derive(Serialize)]
pub struct Row {
    pub rule: &'static str,
    /// The highest severity among its findings (a configured severity or an escalation can
    /// differ from the rule's default).
    pub severity: Severity,
    pub count: usize,
}

/// Rules by count, most first, then by id.
pub fn rows(outcome: &Outcome) -> Vec<Row> {
    let mut by_rule: BTreeMap<&'static str, (Severity, usize)> = BTreeMap::new();
    for f in &outcome.findings {
        let e = by_rule.entry(f.rule).or_insert((f.severity, 0));
        e.0 = e.0.max(f.severity);
        e.1 += 1;
    }
    let mut rows: Vec<Row> = by_rule
        .into_iter()
        .map(|(rule, (severity, count))| Row {
            rule,
            severity,
            count,
        })
        .collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.rule.cmp(b.rule)));
    rows
}

/// A table: count, severity, rule and what the rule flags; then the total.
pub fn text(outcome: &Outcome) -> String {
    let rows = rows(outcome);
    let count_width = rows.first().map_or(1, |r| r.count.to_string().len());
    let id_width = rows.iter().map(|r| r.rule.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in &rows {
        let summary = rule(r.rule).map_or("", |e| e.meta.summary);
        let _ = writeln!(
            out,
            "{:>count_width$}  {:7}  {:id_width$}  {summary}",
            r.count,
            r.severity.as_str(),
            r.rule,
        );
    }
    let c = Counts::of(outcome);
    let _ = writeln!(
        out,
        "{} in {}.",
        plural(c.total(), "finding"),
        plural(outcome.files_linted(), "file")
    );
    out
}

/// `{"version": 1, "statistics": [{"rule", "severity", "count"}], "summary": {...}}`.
pub fn json(outcome: &Outcome) -> String {
    let c = Counts::of(outcome);
    let doc = serde_json::json!({
        "version": 1,
        "statistics": rows(outcome),
        "summary": {
            "files": outcome.files_linted(),
            "findings": c.total(),
            "errors": c.errors,
            "warnings": c.warnings,
            "infos": c.infos,
        },
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("plain data serializes");
    s.push('\n');
    s
}
