//! `--format markdown`: a summary for a pull request or a GitHub job summary
//! (`$GITHUB_STEP_SUMMARY`). GitHub shows at most 10 error and 10 warning annotations per
//! step; the summary carries every count and the first [`SHOWN`] findings.

use std::fmt::Write;

use super::escape::escape;
use super::{Counts, Location, plural};
use gpulint_diagnostics::Outcome;

/// Findings listed in the table; the rest are counted.
pub const SHOWN: usize = 100;

pub fn render(outcome: &Outcome) -> String {
    let c = Counts::of(outcome);
    let files = plural(outcome.files_linted(), "file");
    let mut out = String::from("## gpulint\n\n");
    if c.total() == 0 {
        let _ = writeln!(out, "No findings in {files}.");
        return out;
    }
    let _ = writeln!(out, "{} in {files}.\n", c.summary());
    if let Some(sum) = super::statistics::total(outcome) {
        let _ = writeln!(
            out,
            "Priced waste: {} at on-demand list prices, no discounts.\n",
            sum.text()
        );
    }
    out.push_str("| Rule | Findings |\n|---|---:|\n");
    for r in super::statistics::rows(outcome) {
        let _ = writeln!(
            out,
            "| [`{}`]({}) | {} |",
            r.rule,
            gpulint_rules::doc_url(r.rule),
            r.count
        );
    }
    out.push_str("\n| Severity | Rule | Where | Finding |\n|---|---|---|---|\n");
    for f in outcome.findings.iter().take(SHOWN) {
        let at = Location::of(outcome, &f.primary);
        let _ = writeln!(
            out,
            "| {} | `{}` | `{}:{}:{}` | {} |",
            f.severity,
            f.rule,
            cell(at.file).replace('`', "'"),
            at.region.start_line,
            at.region.start_column,
            cell(&f.shown_message()),
        );
    }
    if let Some(more) = outcome.findings.len().checked_sub(SHOWN).filter(|&n| n > 0) {
        let _ = writeln!(
            out,
            "\n{} more in the full report (SARIF, JSON).",
            plural(more, "finding")
        );
    }
    out
}

/// Text for a table cell: escaped, with `|` and Markdown's markup characters that could
/// break the table or inject HTML neutralised.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in escape(s).chars() {
        match ch {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}
