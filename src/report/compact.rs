//! `file:line:col: severity [rule] message`, one finding per line (tflint's `compact`).

use std::fmt::Write;

use super::Location;
use crate::lint::Outcome;

pub fn render(outcome: &Outcome) -> String {
    let mut out = String::new();
    for f in &outcome.findings {
        let at = Location::of(outcome, &f.primary);
        let _ = writeln!(
            out,
            "{}:{}:{}: {} [{}] {}",
            at.file, at.region.start_line, at.region.start_column, f.severity, f.rule, f.message
        );
    }
    out
}
