//! `--statistics`: how many findings each rule made, instead of the findings (ruff's
//! `--statistics`). Text for people, JSON for scripts.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::{Counts, plural};
use gpulint_diagnostics::Outcome;
use gpulint_diagnostics::Severity;
use gpulint_rules::rule;

/// One rule's count.
#[derive(Serialize)]
pub struct Row {
    pub rule: &'static str,
    /// The highest severity among its findings (a configured severity or an escalation can
    /// differ from the rule's default).
    pub severity: Severity,
    pub count: usize,
    /// What its priced findings cost together, when any is priced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Sum>,
}

/// The sum of findings' costs. Findings can flag the same machines (a pool that never
/// scales down and the idle pod on it), so a sum over rules can count some twice.
#[derive(Clone, Copy, Default, Serialize)]
pub struct Sum {
    pub usd_per_hour: f64,
    pub usd_per_month: f64,
    /// How many findings carry a cost.
    pub priced: usize,
    /// Some figure in the sum is a lower bound.
    pub at_least: bool,
}

impl Sum {
    fn add(&mut self, c: &gpulint_diagnostics::Cost) {
        self.usd_per_hour += c.usd_per_hour;
        self.usd_per_month += c.usd_per_month;
        self.priced += 1;
        self.at_least |= c.at_least;
    }

    /// Rounded as costs are: a millionth of a dollar an hour, cents a month.
    fn rounded(mut self) -> Self {
        self.usd_per_hour = gpulint_facts::prices::round_hourly(self.usd_per_hour);
        self.usd_per_month = gpulint_facts::prices::round_cents(self.usd_per_month);
        self
    }

    /// "$1,234/month ($1.69/h) over 2 priced findings".
    pub fn text(&self) -> String {
        use gpulint_facts::prices::usd;
        format!(
            "{}{}/month ({}/h) over {}",
            if self.at_least { "at least " } else { "" },
            usd(self.usd_per_month),
            usd(self.usd_per_hour),
            plural(self.priced, "priced finding")
        )
    }
}

/// The sum over every priced finding, when any is priced.
pub fn total(outcome: &Outcome) -> Option<Sum> {
    let mut sum = Sum::default();
    for c in outcome.findings.iter().filter_map(|f| f.cost.as_deref()) {
        sum.add(c);
    }
    (sum.priced > 0).then(|| sum.rounded())
}

/// Rules by count, most first, then by id.
pub fn rows(outcome: &Outcome) -> Vec<Row> {
    let mut by_rule: BTreeMap<&'static str, (Severity, usize, Sum)> = BTreeMap::new();
    for f in &outcome.findings {
        let e = by_rule
            .entry(f.rule)
            .or_insert((f.severity, 0, Sum::default()));
        e.0 = e.0.max(f.severity);
        e.1 += 1;
        if let Some(c) = &f.cost {
            e.2.add(c);
        }
    }
    let mut rows: Vec<Row> = by_rule
        .into_iter()
        .map(|(rule, (severity, count, sum))| Row {
            rule,
            severity,
            count,
            cost: (sum.priced > 0).then(|| sum.rounded()),
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
        // A policy's rule is summed up by where it is written.
        let summary = match (rule(r.rule), gpulint_rules::policy_ids::origin(r.rule)) {
            (Some(e), _) => e.meta.summary.to_string(),
            (None, Some(o)) => format!("policy `{}` ({}:{})", o.package, o.file, o.line),
            (None, None) => String::new(),
        };
        let summary = super::escape::escape(&summary);
        let cost = r
            .cost
            .map_or_else(String::new, |s| format!(" — {}", s.text()));
        let _ = writeln!(
            out,
            "{:>count_width$}  {:7}  {:id_width$}  {summary}{cost}",
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
    if let Some(sum) = total(outcome) {
        let _ = writeln!(
            out,
            "Priced waste: {} at list prices, no discounts (findings can flag the same \
             machines: `gpulint cost` prices the capacity itself).",
            sum.text()
        );
    }
    out
}

/// `{"version": 1, "statistics": [{"rule", "severity", "count"}], "summary": {...}}`.
pub fn json(outcome: &Outcome) -> String {
    let c = Counts::of(outcome);
    let mut doc = serde_json::json!({
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
    if let Some(sum) = total(outcome) {
        doc["summary"]["cost"] = serde_json::to_value(sum).expect("plain data serializes");
    }
    let mut s = serde_json::to_string_pretty(&doc).expect("plain data serializes");
    s.push('\n');
    s
}
