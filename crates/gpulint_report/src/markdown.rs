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
            code_cell(at.file),
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

/// Text for a table cell: escaped, with what could break the table, inject HTML or make
/// a link or image neutralised. Code spans are found as CommonMark finds them (a run of
/// backticks up to the next run of the same length) and kept, escaping only `|`; outside
/// them `|`, `\\`, `[`, `]`, `!` are backslash-escaped and `<`, `>` written as entities, so
/// `[Approve](…)` or `![](…)` written in a label or region stays text. A backtick with no
/// partner is escaped too.
fn cell(s: &str) -> String {
    let s = escape(s);
    let chars: Vec<char> = s.chars().collect();
    // Each run of backticks, and the runs by length: a span closes at the next run of the
    // same length (found by binary search, so a cell of many lone backticks stays linear).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let n = chars[k..].iter().take_while(|&&c| c == '`').count();
        if n > 0 {
            runs.push((k, n));
            k += n;
        } else {
            k += 1;
        }
    }
    let mut by_len: std::collections::HashMap<usize, Vec<usize>> = std::collections::HashMap::new();
    for (r, &(_, n)) in runs.iter().enumerate() {
        by_len.entry(n).or_default().push(r);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let (mut i, mut r) = (0, 0);
    while i < chars.len() {
        if chars[i] == '`' {
            let (_, run) = runs[r];
            let body = i + run;
            let same = &by_len[&run];
            let next = same.partition_point(|&x| x <= r);
            if let Some(&close) = same.get(next) {
                let end = runs[close].0;
                out.extend(&chars[i..body]);
                for &c in &chars[body..end] {
                    if c == '|' {
                        out.push_str("\\|");
                    } else {
                        out.push(c);
                    }
                }
                out.extend(&chars[end..end + run]);
                i = end + run;
                r = close + 1;
            } else {
                for _ in 0..run {
                    out.push_str("\\`");
                }
                i = body;
                r += 1;
            }
            continue;
        }
        match chars[i] {
            c @ ('|' | '\\' | '[' | ']' | '!') => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Text for inside a code span in a cell: escaped, `|` kept from splitting the row and a
/// backtick (which would end the span) written as `'`.
fn code_cell(s: &str) -> String {
    escape(s).replace('|', "\\|").replace('`', "'")
}
