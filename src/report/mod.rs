//! Output formats. Each turns an [`Outcome`] into text; nothing here decides what to report.

pub mod catalog;
pub mod compact;
pub mod fit;
pub mod human;
pub mod json;

use crate::finding::Severity;
use crate::lint::Outcome;

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
}

/// `1 finding`, `2 findings`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}
