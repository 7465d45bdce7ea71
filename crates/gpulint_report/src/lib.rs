//! gpulint_report: output formats. Each turns an [`Outcome`] (or the inventory view, a
//! fit, a catalog entry, a priced inventory) into text; nothing here decides what to
//! report. Every string from a file passes through [`escape`] on its way out.
//!
//! May use: gpulint_source, gpulint_facts, gpulint_model, gpulint_fit,
//! gpulint_diagnostics, gpulint_inventory and gpulint_rules (rule docs, links, policy
//! origins). Only this crate and the CLI print.

pub mod catalog;
pub mod compact;
pub mod cost;
pub mod fit;
pub mod github;
pub mod human;
pub mod inspect;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod statistics;

pub use gpulint_source::escape;

/// A report built of lines: every unsafe character in it (a control, a bidi override)
/// made visible, its line breaks kept. The last guard of reports whose values come from
/// the command line or the catalog (`fit`, `catalog`); values that may hold a line break
/// are escaped where they are written.
pub fn escape_text(text: String) -> String {
    if !text.chars().any(|c| c != '\n' && escape::is_unsafe(c)) {
        return text;
    }
    text.split('\n')
        .map(|line| escape::escape(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

use gpulint_diagnostics::Outcome;
use gpulint_diagnostics::Severity;

pub use gpulint_diagnostics::Location;

/// Counts by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Counts {
    pub fn of(outcome: &Outcome) -> Self {
        let mut c = Counts::default();
        for f in &outcome.findings {
            match f.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Info => c.infos += 1,
            }
        }
        c
    }

    pub fn total(self) -> usize {
        self.errors + self.warnings + self.infos
    }

    /// `3 findings (1 error, 2 warnings)`: the closing line of the human and Markdown
    /// reports.
    pub fn summary(self) -> String {
        let mut parts = Vec::new();
        for (n, word) in [
            (self.errors, "error"),
            (self.warnings, "warning"),
            (self.infos, "info"),
        ] {
            if n > 0 {
                parts.push(plural(n, word));
            }
        }
        format!("{} ({})", plural(self.total(), "finding"), parts.join(", "))
    }
}

/// `1 finding`, `2 findings`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A finding's related locations as one line for the text formats (compact, GitHub,
/// JUnit): `` related: `var.gpu_min` is set here (prod.tfvars:3:1)``, not escaped. Empty
/// when it has none.
pub fn related_line(outcome: &Outcome, f: &gpulint_diagnostics::Finding) -> String {
    let parts: Vec<String> = f
        .related
        .iter()
        .map(|l| {
            let at = Location::of(outcome, l);
            format!(
                "{} ({}:{}:{})",
                l.text, at.file, at.region.start_line, at.region.start_column
            )
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("related: {}", parts.join("; "))
    }
}
