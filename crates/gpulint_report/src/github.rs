//! `--format github`: GitHub Actions workflow commands, one per finding, which the runner turns
//! into annotations on the pull request's diff.
//! <https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions>

use std::fmt::Write;

use super::Location;
use super::escape::{escape, is_unsafe, push_escaped};
use gpulint_diagnostics::Outcome;
use gpulint_diagnostics::Severity;

pub fn render(outcome: &Outcome) -> String {
    let mut out = String::new();
    for f in &outcome.findings {
        let at = Location::of(outcome, &f.primary);
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let r = at.region;
        let _ = writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            property(at.file),
            r.start_line,
            r.start_column,
            r.end_line,
            r.end_column,
            property(&format!("gpulint {}", f.rule)),
            data(&format!(
                "{}\nhelp: {}{}",
                escape(&f.shown_message()),
                escape(&f.help),
                match super::related_line(outcome, f) {
                    r if r.is_empty() => String::new(),
                    r => format!("\n{}", escape(&r)),
                }
            )),
        );
    }
    out
}

/// The message of a command: `%`, CR and LF escaped, as the runner's `toCommandValue` expects,
/// and every other control or bidi character written as [`escape`] writes it, so nothing in
/// a command reaches the log raw. The message and help come in escaped already: the one LF
/// left is the break this format puts between them.
fn data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_unsafe(c) => push_escaped(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

/// A property value: also `:` and `,`, which would end it.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_runner() {
        assert_eq!(data("50% of\r\nit"), "50%25 of%0D%0Ait");
        assert_eq!(property("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(
            data("a\u{1b}[2J\u{85}\u{202e}b"),
            "a\\u{1b}[2J\\u{85}\\u{202e}b"
        );
    }
}
