//! `file:line:col: severity [rule] message`, one finding per line (tflint's `compact`). File
//! names and messages are [`escape`]d, so one finding is always one line.

use std::fmt::Write;

use super::Location;
use super::escape::escape;
use gpulint_diagnostics::Outcome;

pub fn render(outcome: &Outcome) -> String {
    let mut out = String::new();
    for f in &outcome.findings {
        let at = Location::of(outcome, &f.primary);
        let related = super::related_line(outcome, f);
        let _ = writeln!(
            out,
            "{}:{}:{}: {} [{}] {}{}{}",
            escape(at.file),
            at.region.start_line,
            at.region.start_column,
            f.severity,
            f.rule,
            escape(&f.shown_message()),
            if related.is_empty() { "" } else { " — " },
            escape(&related),
        );
    }
    out
}
