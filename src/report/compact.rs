//! `file:line:col: severity [rule] message`, one finding per line (tflint's `compact`).

use std::fmt::Write;

use crate::lint::Outcome;

pub fn render(outcome: &Outcome) -> String {
    let mut out = String::new();
    for f in &outcome.findings {
        let file = outcome.db.get(f.primary.file);
        let (line, col) = file.line_col(f.primary.span.as_ref().map_or(0, |s| s.start));
        let _ = writeln!(
            out,
            "{}:{line}:{col}: {} [{}] {}",
            file.name, f.severity, f.rule, f.message
        );
    }
    out
}
