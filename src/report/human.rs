//! Human output: miette's graphical reports with source snippets.
//!
//! miette's default `SourceCode` for `str` rescans the file from the start on every render
//! (~8 ms per finding in a 1.4 MB file, `reference/parsing.md` §4.4). [`IndexedSource`]
//! answers from the file's line index instead, and reports columns in code points so the
//! `[file:line:col]` header agrees with JSON and SARIF.

use std::fmt::{self, Write};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::{Counts, plural};
use crate::finding::{Finding, Label, Severity};
use crate::lint::Outcome;
use crate::source::{SourceDb, SourceFile};

pub struct Style {
    pub color: bool,
    pub width: usize,
}

pub fn render(outcome: &Outcome, style: &Style) -> String {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for f in &outcome.findings {
        render_finding(&handler, &outcome.db, f, &mut out);
        out.push('\n');
    }
    let c = Counts::of(outcome);
    let files = plural(outcome.files_linted(), "file");
    if c.total() == 0 {
        let _ = writeln!(out, "No findings in {files}.");
    } else {
        let mut parts = Vec::new();
        for (n, word) in [
            (c.errors, "error"),
            (c.warnings, "warning"),
            (c.infos, "info"),
        ] {
            if n > 0 {
                parts.push(plural(n, word));
            }
        }
        let _ = writeln!(
            out,
            "Found {} ({}) in {files}.",
            plural(c.total(), "finding"),
            parts.join(", ")
        );
    }
    out
}

/// Renders one finding as a miette report.
pub fn render_finding(
    handler: &GraphicalReportHandler,
    db: &SourceDb,
    finding: &Finding,
    out: &mut String,
) {
    let diag = Diag::new(db, finding);
    // A render error would be a bug in a span; fall back to the one-line form.
    if handler.render_report(out, &diag).is_err() {
        let _ = writeln!(out, "{}: {}", finding.rule, finding.message);
    }
}

/// A finding as a miette diagnostic. Labels in other files become related diagnostics.
#[derive(Debug)]
struct Diag<'a> {
    message: &'a str,
    code: Option<&'a str>,
    severity: miette::Severity,
    help: Option<&'a str>,
    source: IndexedSource<'a>,
    labels: Vec<LabeledSpan>,
    related: Vec<Diag<'a>>,
}

impl<'a> Diag<'a> {
    fn new(db: &'a SourceDb, f: &'a Finding) -> Self {
        let file = f.primary.file;
        let mut labels = Vec::new();
        let mut related = Vec::new();
        if let Some(span) = &f.primary.span {
            labels.push(LabeledSpan::new_primary_with_span(
                Some(f.primary.text.clone()),
                to_source_span(span),
            ));
        }
        for l in &f.secondary {
            if l.file == file {
                if let Some(span) = &l.span {
                    labels.push(LabeledSpan::new_with_span(
                        Some(l.text.clone()),
                        to_source_span(span),
                    ));
                }
            } else {
                related.push(Diag::related(db, l));
            }
        }
        Diag {
            message: &f.message,
            code: Some(f.rule),
            severity: match f.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Info => miette::Severity::Advice,
            },
            help: Some(&f.help),
            source: IndexedSource(db.get(file)),
            labels,
            related,
        }
    }

    fn related(db: &'a SourceDb, l: &'a Label) -> Self {
        Diag {
            message: &l.text,
            code: None,
            severity: miette::Severity::Advice,
            help: None,
            source: IndexedSource(db.get(l.file)),
            labels: l
                .span
                .iter()
                .map(|s| LabeledSpan::new_primary_with_span(None, to_source_span(s)))
                .collect(),
            related: Vec::new(),
        }
    }
}

fn to_source_span(span: &std::ops::Range<usize>) -> SourceSpan {
    (span.start, span.end.saturating_sub(span.start)).into()
}

impl fmt::Display for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }
}

impl std::error::Error for Diag<'_> {}

impl Diagnostic for Diag<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.code.map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help.map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            return None;
        }
        Some(Box::new(self.labels.iter().cloned()))
    }

    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(self.related.iter().map(|d| d as &dyn Diagnostic)))
    }
}

/// A file as a miette source, answered from its line index.
#[derive(Debug)]
pub struct IndexedSource<'a>(pub &'a SourceFile);

impl SourceCode for IndexedSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let file = self.0;
        let text = file.text.as_bytes();
        let start = span.offset();
        let end = start + span.len();
        if end > text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let first = file.line_index(start);
        let last = file.line_index(end.saturating_sub(1).max(start));
        let ctx_last = (last + context_lines_after).min(file.line_count() - 1);
        // miette's own convention: with no context before, the contents start at the span.
        let (data_start, line, column) = if context_lines_before == 0 {
            let (_, col) = file.line_col(start);
            (start, first, col - 1)
        } else {
            let ctx_first = first.saturating_sub(context_lines_before);
            (file.line_start(ctx_first), ctx_first, 0)
        };
        let data_end = file.line_end(ctx_last).max(data_start);
        // miette reads `line_count` as the number of line breaks up to the end of the data.
        let line_count = file.line_index(data_end.min(text.len()));
        Ok(Box::new(MietteSpanContents::new_named(
            file.name.clone(),
            &text[data_start..data_end],
            (data_start, data_end - data_start).into(),
            line,
            column,
            line_count,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileKind;

    /// The indexed source must render exactly as miette's own source for ASCII text.
    #[test]
    fn renders_like_mietttes_default_source() {
        let text = "a = 1\nresource \"x\" \"y\" {\n  b = 2\n  c = 3\n}\n\nz = 9\n";
        let file = SourceFile::new("f.tf".into(), None, FileKind::Terraform, text.into(), true);
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(80)
            .with_links(false)
            .with_context_lines(1);
        for (start, len) in [(6, 17), (25, 5), (0, 1), (41, 1), (text.len() - 2, 1)] {
            #[derive(Debug)]
            struct D<S: SourceCode + fmt::Debug>(S, SourceSpan);
            impl<S: SourceCode + fmt::Debug> fmt::Display for D<S> {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("m")
                }
            }
            impl<S: SourceCode + fmt::Debug> std::error::Error for D<S> {}
            impl<S: SourceCode + fmt::Debug> Diagnostic for D<S> {
                fn source_code(&self) -> Option<&dyn SourceCode> {
                    Some(&self.0)
                }
                fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
                    Some(Box::new(std::iter::once(
                        LabeledSpan::new_primary_with_span(Some("here".into()), self.1),
                    )))
                }
            }
            let span: SourceSpan = (start, len).into();
            let mut ours = String::new();
            handler
                .render_report(&mut ours, &D(IndexedSource(&file), span))
                .unwrap();
            let mut theirs = String::new();
            let named = miette::NamedSource::new("f.tf", text.to_string());
            handler.render_report(&mut theirs, &D(named, span)).unwrap();
            assert_eq!(ours, theirs, "span {start}+{len}");
        }
    }
}
