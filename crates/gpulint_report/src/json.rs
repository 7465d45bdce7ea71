//! `--format json`, exactly the fields of DESIGN.md.

use serde::Serialize;

use super::Counts;
use gpulint_diagnostics::Outcome;
use gpulint_diagnostics::Severity;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    findings: Vec<Finding<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Finding<'a> {
    rule: &'a str,
    severity: Severity,
    message: &'a str,
    #[serde(flatten)]
    at: At<'a>,
    subject: &'a str,
    help: &'a str,
    /// The rule's documentation.
    url: String,
    /// Where values that decide the finding were set (empty when none).
    related: Vec<Related<'a>>,
    /// What the flagged waste costs, when the price snapshot knows (issue 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<&'a gpulint_diagnostics::Cost>,
}

#[derive(Serialize)]
struct Related<'a> {
    #[serde(flatten)]
    at: At<'a>,
    message: &'a str,
}

/// Where a label points: file, then 1-based start and exclusive end.
#[derive(Serialize)]
struct At<'a> {
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

impl<'a> At<'a> {
    fn of(outcome: &'a Outcome, label: &gpulint_diagnostics::Label) -> Self {
        let at = super::Location::of(outcome, label);
        let r = at.region;
        At {
            file: at.file,
            line: r.start_line,
            column: r.start_column,
            end_line: r.end_line,
            end_column: r.end_column,
        }
    }
}

#[derive(Serialize)]
struct Summary {
    files: usize,
    findings: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
}

pub fn render(outcome: &Outcome) -> String {
    let findings = outcome
        .findings
        .iter()
        .map(|f| Finding {
            rule: f.rule,
            severity: f.severity,
            message: &f.message,
            at: At::of(outcome, &f.primary),
            subject: &f.subject,
            help: &f.help,
            url: gpulint_rules::doc_url(f.rule),
            cost: f.cost.as_deref(),
            related: f
                .related
                .iter()
                .map(|l| Related {
                    at: At::of(outcome, l),
                    message: &l.text,
                })
                .collect(),
        })
        .collect();
    let c = Counts::of(outcome);
    let report = Report {
        version: 1,
        findings,
        summary: Summary {
            files: outcome.files_linted(),
            findings: c.total(),
            errors: c.errors,
            warnings: c.warnings,
            infos: c.infos,
        },
    };
    let mut s =
        super::escape::json(serde_json::to_string_pretty(&report).expect("plain data serializes"));
    s.push('\n');
    s
}
