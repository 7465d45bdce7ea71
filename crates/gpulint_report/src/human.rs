//! Human output: miette's graphical reports with source snippets.
//!
//! miette's default `SourceCode` for `str` rescans the file from the start on every render
//! (~8 ms per finding in a 1.4 MB file, `reference/parsing.md` §4.4). [`IndexedSource`]
//! answers from the file's line index instead, and reports columns in code points so the
//! `[file:line:col]` header agrees with JSON and SARIF.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::{self, Write};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::escape::{escape, is_unsafe, push_escaped};
use super::{Counts, plural};
use gpulint_diagnostics::Outcome;
use gpulint_diagnostics::{Finding, Label, Severity};
use gpulint_source::{FileId, SourceDb, SourceFile};

pub struct Style {
    pub color: bool,
    pub width: usize,
    /// The closing line: how many findings in how many files (`--quiet` leaves it out).
    pub summary: bool,
}

/// Lines between a finding's own label and another label of its file beyond which the
/// other gets a snippet of its own instead of printing every line between.
const GAP: usize = 8;

/// A snippet line longer than this (in bytes) is shown as a window around its label.
const LONG_LINE: usize = 400;
/// How many characters a window keeps before the label's start, and in all.
const WINDOW_BEFORE: usize = 60;
const WINDOW: usize = 200;
/// Marks the side where a window cuts its line.
const ELLIPSIS: &str = "…";

pub fn render(outcome: &Outcome, style: &Style) -> String {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        // At spaces only: `--tensor-parallel-size` and `Llama-3.1-8B` stay whole, so a
        // command in a message can be copied; a word longer than the line runs over it.
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_break_words(false)
        .with_links(false)
        .with_urls(true)
        .with_context_lines(1);
    let mut out = String::new();
    let mut odd = OddLines::default();
    for f in &outcome.findings {
        render_finding(&handler, &outcome.db, &mut odd, f, &mut out);
        out.push('\n');
    }
    if !style.summary {
        return out;
    }
    let c = Counts::of(outcome);
    let files = plural(outcome.files_linted(), "file");
    if c.total() == 0 {
        let _ = writeln!(out, "No findings in {files}.");
    } else {
        let _ = writeln!(out, "Found {} in {files}.", c.summary());
    }
    out
}

/// Renders one finding as a miette report. Nothing in one finding can lose the others: a
/// render error or a panic inside miette falls back to the one-line `compact` form.
fn render_finding(
    handler: &GraphicalReportHandler,
    db: &SourceDb,
    odd: &mut OddLines,
    finding: &Finding,
    out: &mut String,
) {
    let mut report = String::new();
    let rendered = panic::catch_unwind(AssertUnwindSafe(|| {
        let diag = Diag::new(db, odd, finding);
        handler.render_report(&mut report, &diag).is_ok()
    }));
    if matches!(rendered, Ok(true)) {
        out.push_str(&report);
    } else {
        let file = db.get(finding.primary.file);
        let (line, col) = file.line_col(finding.primary.span.as_ref().map_or(0, |s| s.start));
        let _ = writeln!(
            out,
            "{}:{line}:{col}: {} [{}] {}",
            escape(&file.name),
            finding.severity,
            finding.rule,
            escape(&finding.shown_message())
        );
    }
}

/// Per file, the lines miette cannot be given as they are: longer than [`LONG_LINE`] or
/// holding a character [`escape`] would rewrite (tabs aside: miette expands them). Found
/// once per file, on its first finding.
#[derive(Default)]
struct OddLines(HashMap<FileId, Vec<usize>>);

impl OddLines {
    /// Whether any line from `first` to `last` (0-based, inclusive) is odd.
    fn any(&mut self, file: &SourceFile, id: FileId, first: usize, last: usize) -> bool {
        let lines = self.0.entry(id).or_insert_with(|| {
            (0..file.line_count())
                .filter(|&l| {
                    let (start, end, _) = content(file, l);
                    let text = &file.text()[start..end];
                    text.len() > LONG_LINE || text.chars().any(|c| c != '\t' && is_unsafe(c))
                })
                .collect()
        });
        let i = lines.partition_point(|&l| l < first);
        lines.get(i).is_some_and(|&l| l <= last)
    }
}

/// A line's text without its line break: (start, end of the text, end with the break).
/// A CR is part of the break only right before the LF.
fn content(file: &SourceFile, line: usize) -> (usize, usize, usize) {
    let (start, end) = (file.line_start(line), file.line_end(line));
    let text = &file.text().as_bytes()[start..end];
    let brk = if text.ends_with(b"\r\n") {
        2
    } else {
        usize::from(text.ends_with(b"\n"))
    };
    (start, end - brk, end)
}

/// A finding as a miette diagnostic. Labels in other files become related diagnostics.
#[derive(Debug)]
struct Diag<'a> {
    message: Cow<'a, str>,
    /// `warning[missing-auto-shutdown]`, as rustc heads its diagnostics.
    code: Option<String>,
    /// The rule's documentation.
    url: Option<String>,
    severity: miette::Severity,
    help: Option<Cow<'a, str>>,
    source: Source<'a>,
    labels: Vec<LabeledSpan>,
    related: Vec<Diag<'a>>,
}

impl<'a> Diag<'a> {
    fn new(db: &'a SourceDb, odd: &mut OddLines, f: &'a Finding) -> Self {
        let file = f.primary.file;
        let mut spans = Vec::new();
        let mut related = Vec::new();
        if let Some(span) = &f.primary.span {
            spans.push((span.clone(), Some(f.primary.text.as_str()), true));
        }
        // The primary label's lines: a label of the same file further than [`GAP`] lines
        // from them gets a snippet of its own, so the lines between are not printed (as
        // rustc elides them).
        let source = db.get(file);
        let line = |at: usize| source.line_col(at).0;
        let near = f
            .primary
            .span
            .as_ref()
            .map(|p| (line(p.start), line(p.end)));
        let far = |span: &Range<usize>| {
            near.is_some_and(|(first, last)| {
                line(span.start) + GAP < first || line(span.end) > last + GAP
            })
        };
        for l in f.secondary.iter().chain(&f.related) {
            match &l.span {
                Some(span) if l.file == file && !far(span) => {
                    spans.push((span.clone(), Some(l.text.as_str()), false));
                }
                None if l.file == file => {}
                _ => related.push(Diag::related(db, odd, l)),
            }
        }
        let (source, labels) = Source::new(db, odd, file, &spans);
        Diag {
            message: escape(&f.shown_message()).into_owned().into(),
            code: Some(format!("{}[{}]", f.severity, f.rule)),
            url: Some(gpulint_rules::doc_url(f.rule)),
            severity: match f.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Info => miette::Severity::Advice,
            },
            help: Some(escape(&f.help)),
            source,
            labels,
            related,
        }
    }

    fn related(db: &'a SourceDb, odd: &mut OddLines, l: &'a Label) -> Self {
        let spans: Vec<_> = l.span.iter().map(|s| (s.clone(), None, true)).collect();
        let (source, labels) = Source::new(db, odd, l.file, &spans);
        Diag {
            message: escape(&l.text),
            code: None,
            url: None,
            severity: miette::Severity::Advice,
            help: None,
            source,
            labels,
            related: Vec::new(),
        }
    }
}

/// A miette label, its text escaped.
fn label(span: SourceSpan, text: Option<&str>, primary: bool) -> LabeledSpan {
    let text = text.map(|t| escape(t).into_owned());
    if primary {
        LabeledSpan::new_primary_with_span(text, span)
    } else {
        LabeledSpan::new_with_span(text, span)
    }
}

fn to_source_span(span: &Range<usize>) -> SourceSpan {
    (span.start, span.end.saturating_sub(span.start)).into()
}

impl fmt::Display for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag<'_> {}

impl Diagnostic for Diag<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.code
            .as_deref()
            .map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }

    fn url<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.url
            .as_deref()
            .map(|u| Box::new(u) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_deref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
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

/// The source miette reads for one diagnostic: the file itself when every line the snippet
/// can show is short and clean, else a copy of just those lines made safe to show.
#[derive(Debug)]
enum Source<'a> {
    File(IndexedSource<'a>),
    Shown(ShownLines),
}

/// A label's span, its text, and whether it is primary.
type Span<'a> = (Range<usize>, Option<&'a str>, bool);

impl<'a> Source<'a> {
    fn new(
        db: &'a SourceDb,
        odd: &mut OddLines,
        id: FileId,
        spans: &[Span<'_>],
    ) -> (Self, Vec<LabeledSpan>) {
        let file = db.get(id);
        let blocks = blocks(file, spans);
        let odd = match (blocks.first(), blocks.last()) {
            (Some(first), Some(last)) => odd.any(file, id, *first.start(), *last.end()),
            _ => false,
        };
        if !odd {
            let labels = spans
                .iter()
                .map(|(s, text, primary)| label(to_source_span(s), *text, *primary))
                .collect();
            return (Source::File(IndexedSource::new(file)), labels);
        }
        Self::shown(file, &blocks, spans)
    }

    /// The copy of the lines to show, and the labels moved onto it.
    fn shown(
        file: &SourceFile,
        blocks: &[std::ops::RangeInclusive<usize>],
        spans: &[Span<'_>],
    ) -> (Self, Vec<LabeledSpan>) {
        let shown = ShownLines::new(file, blocks, spans);
        let labels = spans
            .iter()
            .map(|(s, text, primary)| {
                let (start, end) = (
                    shown.map(file, s.start, true),
                    shown.map(file, s.end, false),
                );
                label(to_source_span(&(start..end.max(start))), *text, *primary)
            })
            .collect();
        (Source::Shown(shown), labels)
    }
}

impl SourceCode for Source<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        match self {
            Source::File(s) => s.read_span(span, context_lines_before, context_lines_after),
            Source::Shown(s) => s.read_span(span, context_lines_before, context_lines_after),
        }
    }
}

/// The runs of lines (0-based, inclusive) a snippet may show: each label's lines with one
/// line of context either side, runs that touch joined.
fn blocks(file: &SourceFile, spans: &[Span<'_>]) -> Vec<std::ops::RangeInclusive<usize>> {
    let len = file.text().len();
    let mut runs: Vec<(usize, usize)> = spans
        .iter()
        .map(|(s, _, _)| {
            let (start, end) = (s.start.min(len), s.end.min(len));
            let first = file.line_index(start);
            let last = file.line_index(end.saturating_sub(1).max(start));
            (
                first.saturating_sub(1),
                (last + 1).min(file.line_count() - 1),
            )
        })
        .collect();
    runs.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (first, last) in runs {
        match out.last_mut() {
            Some(prev) if first <= prev.1 + 1 => prev.1 = prev.1.max(last),
            _ => out.push((first, last)),
        }
    }
    out.into_iter().map(|(a, b)| a..=b).collect()
}

/// The lines a snippet may show, copied so that miette can be given them: a long line cut to
/// a window around its label (an ellipsis on each cut side), unsafe characters written as
/// [`escape`] writes them. Offsets here are offsets into `text`; [`ShownLines::map`] moves a
/// file offset here, and line numbers and the header's column stay the file's own.
#[derive(Debug)]
struct ShownLines {
    name: String,
    text: String,
    lines: Vec<ShownLine>,
    /// Where each run of lines ends in `text`; a span never reaches across two runs.
    run_ends: Vec<usize>,
    /// Each label's start here, and its 0-based line and column in the file, for the header.
    starts: Vec<(usize, usize, usize)>,
}

/// One file line as shown: the window `cut` of its text, with its offsets here.
#[derive(Debug)]
struct ShownLine {
    /// The 0-based line in the file.
    line: usize,
    /// The file's text of the line: start, end of the text, end with the break.
    start: usize,
    end: usize,
    brk_end: usize,
    /// The part of the text shown.
    cut: Range<usize>,
    /// Here: the line's start, the shown text's start and end, the line's end before its break.
    at: usize,
    text_at: usize,
    text_end: usize,
    end_at: usize,
}

impl ShownLines {
    fn new(
        file: &SourceFile,
        blocks: &[std::ops::RangeInclusive<usize>],
        spans: &[Span<'_>],
    ) -> Self {
        let src = file.text();
        let clamp = |o: usize| floor(file.text(), o.min(src.len()));
        let mut text = String::new();
        let mut lines = Vec::new();
        let mut run_ends = Vec::new();
        for block in blocks {
            for line in block.clone() {
                let (start, end, brk_end) = content(file, line);
                // The label the window centres on: the primary first, then any starting or
                // ending on this line.
                let anchor = spans
                    .iter()
                    .map(|(s, _, _)| (clamp(s.start), clamp(s.end)))
                    .find_map(|(s, e)| {
                        if (start..=end).contains(&s) {
                            Some(s)
                        } else if (start..=end).contains(&e) && s < start {
                            Some(start.max(floor(file.text(), e.saturating_sub(1))))
                        } else {
                            None
                        }
                    })
                    .unwrap_or(start);
                let cut = if end - start > LONG_LINE {
                    let from = step_back(src, anchor, start, WINDOW_BEFORE);
                    from..step_forward(src, from, end, WINDOW)
                } else {
                    start..end
                };
                let at = text.len();
                if cut.start > start {
                    text.push_str(ELLIPSIS);
                }
                let text_at = text.len();
                push_shown(&src[cut.clone()], &mut text);
                let text_end = text.len();
                if cut.end < end {
                    text.push_str(ELLIPSIS);
                }
                let end_at = text.len();
                text.push_str(&src[end..brk_end]);
                lines.push(ShownLine {
                    line,
                    start,
                    end,
                    brk_end,
                    cut,
                    at,
                    text_at,
                    text_end,
                    end_at,
                });
            }
            run_ends.push(text.len());
        }
        let mut shown = ShownLines {
            name: escape(&file.name).into_owned(),
            text,
            lines,
            run_ends,
            starts: Vec::new(),
        };
        // The primary label first: the header reads the first match.
        let mut order: Vec<_> = spans.iter().collect();
        order.sort_by_key(|(_, _, primary)| !primary);
        shown.starts = order
            .into_iter()
            .map(|(s, _, _)| {
                let (line, col) = file.line_col(s.start);
                (shown.map(file, s.start, true), line - 1, col - 1)
            })
            .collect();
        shown
    }

    /// Where file offset `o` is shown. An offset cut away is shown at the ellipsis: a start
    /// at its left edge, an end at its right, so a label cut on both sides spans the window.
    fn map(&self, file: &SourceFile, o: usize, start: bool) -> usize {
        let src = file.text();
        let o = floor(file.text(), o.min(src.len()));
        let i = self
            .lines
            .partition_point(|l| l.brk_end <= o && l.brk_end < src.len());
        let Some(l) = self.lines.get(i.min(self.lines.len().saturating_sub(1))) else {
            return 0;
        };
        if o < l.start {
            return l.at;
        }
        if o < l.cut.start || (o == l.cut.start && l.cut.start > l.start && start) {
            return if start { l.at } else { l.text_at };
        }
        if o <= l.cut.end {
            let mut n = String::new();
            push_shown(&src[l.cut.start..o], &mut n);
            return l.text_at + n.len();
        }
        if o <= l.end {
            return if start && o < l.end {
                l.text_end
            } else {
                l.end_at
            };
        }
        (l.end_at + (o - l.end)).min(l.end_at + (l.brk_end - l.end))
    }
}

/// Appends a line's text, unsafe characters escaped; tabs stay, miette expands them.
fn push_shown(s: &str, out: &mut String) {
    for c in s.chars() {
        if c != '\t' && is_unsafe(c) {
            push_escaped(c, out);
        } else {
            out.push(c);
        }
    }
}

/// `o` or the nearest character boundary before it (`str::floor_char_boundary` is newer
/// than the crate's MSRV).
fn floor(s: &str, mut o: usize) -> usize {
    o = o.min(s.len());
    while !s.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// The offset `n` characters before `from`, not before `floor`.
fn step_back(s: &str, from: usize, floor: usize, n: usize) -> usize {
    s[floor..from]
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(floor, |(i, _)| floor + i)
}

/// The offset `n` characters after `from`, not after `ceil`.
fn step_forward(s: &str, from: usize, ceil: usize, n: usize) -> usize {
    s[from..ceil]
        .char_indices()
        .nth(n)
        .map_or(ceil, |(i, _)| from + i)
}

impl SourceCode for ShownLines {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let start = span.offset();
        let end = start + span.len();
        // The run holding the span; a span across two runs is refused, so miette shows them
        // as two snippets.
        let run = self.run_ends.partition_point(|&e| e <= start);
        let run_start = run.checked_sub(1).map_or(0, |r| self.run_ends[r]);
        let run_end = *self.run_ends.get(run).ok_or(MietteError::OutOfBounds)?;
        if end > run_end || run_start >= run_end {
            return Err(MietteError::OutOfBounds);
        }
        let line_of = |o: usize| self.lines.partition_point(|l| l.at <= o).saturating_sub(1);
        let first_in_run = line_of(run_start);
        let last_in_run = line_of(run_end - 1);
        let first = line_of(start);
        let last = line_of(end.saturating_sub(1).max(start));
        let ctx_last = (last + context_lines_after).min(last_in_run);
        let (data_start, line, column) = if context_lines_before == 0 {
            let (line, column) = self
                .starts
                .iter()
                .find(|(at, _, _)| *at == start)
                .map_or_else(
                    || {
                        let l = &self.lines[first];
                        (l.line, self.text[l.at..start].chars().count())
                    },
                    |&(_, line, col)| (line, col),
                );
            (start, line, column)
        } else {
            let ctx_first = first.saturating_sub(context_lines_before).max(first_in_run);
            (self.lines[ctx_first].at, self.lines[ctx_first].line, 0)
        };
        let data_end = self
            .lines
            .get(ctx_last + 1)
            .map_or(self.text.len(), |l| l.at)
            .min(run_end)
            .max(data_start);
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &self.text.as_bytes()[data_start..data_end],
            (data_start, data_end - data_start).into(),
            line,
            column,
            self.lines[ctx_last].line + 1,
        )))
    }
}

/// A file as a miette source, answered from its line index.
#[derive(Debug)]
pub struct IndexedSource<'a> {
    file: &'a SourceFile,
    name: String,
}

impl<'a> IndexedSource<'a> {
    pub fn new(file: &'a SourceFile) -> Self {
        IndexedSource {
            file,
            name: escape(&file.name).into_owned(),
        }
    }
}

impl SourceCode for IndexedSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let file = self.file;
        let text = file.text().as_bytes();
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
            self.name.clone(),
            &text[data_start..data_end],
            (data_start, data_end - data_start).into(),
            line,
            column,
            line_count,
        )))
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one label's span, not a range of values
mod tests {
    use super::*;
    use gpulint_source::FileKind;

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
                .render_report(&mut ours, &D(IndexedSource::new(&file), span))
                .unwrap();
            let mut theirs = String::new();
            let named = miette::NamedSource::new("f.tf", text.to_string());
            handler.render_report(&mut theirs, &D(named, span)).unwrap();
            assert_eq!(ours, theirs, "span {start}+{len}");
        }
    }

    fn handler() -> GraphicalReportHandler {
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false)
            .with_context_lines(1)
    }

    /// One finding on `text` (file `f.yaml`): the primary label first, then secondaries.
    fn render_one(text: &str, spans: &[Range<usize>]) -> String {
        let mut db = SourceDb::default();
        let id = db.add(SourceFile::new(
            "f.yaml".into(),
            None,
            FileKind::Yaml,
            text.into(),
            true,
        ));
        let at = |span: &Range<usize>, text: &str| Label {
            file: id,
            span: Some(span.clone()),
            text: text.into(),
        };
        let finding = Finding {
            rule: "parse-error",
            severity: Severity::Error,
            message: "bad".into(),
            help: "fix it".into(),
            subject: "f.yaml".into(),
            primary: at(&spans[0], "here"),
            secondary: spans[1..].iter().map(|s| at(s, "there")).collect(),
            related: Vec::new(),
            cost: None,
            leaf: None,
        };
        let mut out = String::new();
        render_finding(
            &handler(),
            &db,
            &mut OddLines::default(),
            &finding,
            &mut out,
        );
        out
    }

    /// The column (in chars) where `needle` starts in the snippet line holding it, and the
    /// column of the first underline mark on the line below.
    fn columns(out: &str, needle: &str) -> (usize, usize) {
        let lines: Vec<&str> = out.lines().collect();
        let i = lines.iter().position(|l| l.contains(needle)).unwrap();
        let at = lines[i][..lines[i].find(needle).unwrap()].chars().count();
        let mark = lines[i + 1]
            .chars()
            .enumerate()
            .skip(4)
            .find(|(_, c)| "▲┬─".contains(*c))
            .unwrap()
            .0;
        (at, mark)
    }

    #[test]
    fn a_long_line_shows_a_window_with_the_true_position() {
        let text = format!("k: \"{}\", b: [1, 2}}\nnext: 1\n", "y".repeat(70_000));
        let brace = text.find('}').unwrap();
        let out = render_one(&text, &[brace..brace]);
        assert!(out.contains(&format!("[f.yaml:1:{}]", brace + 1)), "{out}");
        assert!(out.contains("…yyy"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() < 300), "{out}");
        let (at, mark) = columns(&out, ", b: [1, 2}");
        assert_eq!(mark, at + ", b: [1, 2".len(), "{out}");
    }

    #[test]
    fn a_label_cut_on_both_sides_spans_the_window() {
        let text = format!("k: {}\n", "y".repeat(5_000));
        let out = render_one(&text, &[0..text.len() - 1, 2_000..2_001]);
        assert!(out.contains("[f.yaml:1:1]"), "{out}");
        assert!(out.contains('…'), "{out}");
        assert!(out.lines().all(|l| l.chars().count() < 300), "{out}");
    }

    #[test]
    fn controls_in_a_snippet_are_escaped_and_labels_still_point_right() {
        let text = "a: 1\nname: \"e\u{1b}[2J\u{202e}vil\" # x\r\nimage: \u{85}x\n";
        let x = text.find('#').unwrap();
        let image = text.find("image").unwrap();
        let out = render_one(text, &[x..x + 1, image..image + 5]);
        assert!(!out.chars().any(|c| c != '\n' && is_unsafe(c)), "{out:?}");
        assert!(
            out.contains("name: \"e\\u{1b}[2J\\u{202e}vil\" # x"),
            "{out}"
        );
        assert!(out.contains("image: \\u{85}x"), "{out}");
        assert!(out.contains("[f.yaml:2:19]"), "{out}");
        let (at, mark) = columns(&out, "# x");
        assert_eq!(at, mark, "{out}");
    }

    /// On short clean lines the copy renders exactly as the file itself does.
    #[test]
    fn the_copy_renders_like_the_file_on_clean_lines() {
        let text = "a = 1\nresource \"x\" \"y\" {\n  b = 2\n  c = 3\n}\n\nz = 9\n";
        let file = SourceFile::new("f.tf".into(), None, FileKind::Terraform, text.into(), true);
        for spans in [
            vec![6..23],
            vec![25..30, 33..38],
            vec![0..1],
            vec![41..41, 0..1],
            vec![text.len() - 2..text.len() - 1],
        ] {
            let spans: Vec<Span<'_>> = spans
                .into_iter()
                .enumerate()
                .map(|(i, s)| (s, Some("l"), i == 0))
                .collect();
            let diag = |(source, labels)| Diag {
                message: "m".into(),
                code: None,
                url: None,
                severity: miette::Severity::Error,
                help: None,
                source,
                labels,
                related: Vec::new(),
            };
            let plain = diag((
                Source::File(IndexedSource::new(&file)),
                spans
                    .iter()
                    .map(|(s, t, p)| label(to_source_span(s), *t, *p))
                    .collect(),
            ));
            let copy = diag(Source::shown(&file, &blocks(&file, &spans), &spans));
            let (mut a, mut b) = (String::new(), String::new());
            handler().render_report(&mut a, &plain).unwrap();
            handler().render_report(&mut b, &copy).unwrap();
            assert_eq!(a, b, "{spans:?}");
        }
    }
}
