//! Inline suppressions: comments and the Kubernetes annotation (DESIGN.md "Suppressions").
//!
//! ```text
//! # gpulint:ignore missing-auto-shutdown,missing-checkpoint-volume -- nightly job stops it
//! # gpulint:ignore-file stale-generation-reservation -- the P4 commitment ends in March
//! metadata: { annotations: { gpulint.dev/ignore: "spot-only-inference" } }
//! ```
//!
//! A comment covers the next line that is not blank or a comment, and every block, attribute,
//! object, mapping entry or list item that starts on that line; a comment after code on its
//! own line covers that line the same way. `ignore-file` covers the file; the annotation
//! covers its object. Findings match by their primary location.

use std::ops::Range;

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Body, Structure};

use gpulint_source::{FileId, SourceFile};
use gpulint_syntax::yaml::{YamlNode, YamlValue};
use gpulint_syntax::{Parsed, Syntax};

pub const ANNOTATION: &str = "gpulint.dev/ignore";
const MARKER: &str = "gpulint:ignore";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `# gpulint:ignore RULES`: the next construct.
    Comment,
    /// `# gpulint:ignore-file RULES`: the whole file.
    File,
    /// `gpulint.dev/ignore: "RULES"`: the annotated object.
    Annotation,
}

/// One suppression, and which of its rule ids matched a finding.
#[derive(Clone, Debug)]
pub struct Directive {
    pub file: FileId,
    pub form: Form,
    /// The directive itself, where an empty one is reported.
    pub span: Range<usize>,
    /// Rule ids as written, each with its place.
    pub ids: Vec<(String, Range<usize>)>,
    pub reason: Option<String>,
    /// The bytes it covers.
    pub scope: Range<usize>,
    /// Per id: did it suppress anything?
    pub used: Vec<bool>,
}

impl Directive {
    /// Does this directive hide `rule` at byte `at`? Marks the id used when it does.
    pub fn hides(&mut self, rule: &str, at: usize) -> bool {
        if self.form != Form::File && !self.scope.contains(&at) {
            return false;
        }
        // Ids in any case and with `_` for `-` are understood.
        let same = |id: &str| id == rule || crate::normalize(id) == rule;
        match self.ids.iter().position(|(id, _)| same(id)) {
            Some(i) => {
                self.used[i] = true;
                true
            }
            None => false,
        }
    }
}

/// Every suppression in one file.
pub fn directives(id: FileId, file: &SourceFile, parsed: &Parsed) -> Vec<Directive> {
    let text = file.text();
    // JSON has no comments; a marker in a JSON file is text.
    if parsed.remap.is_some() || (!text.contains(MARKER) && !text.contains(ANNOTATION)) {
        return Vec::new();
    }
    let mut shape = Shape::default();
    match &parsed.syntax {
        Syntax::Hcl(body) => shape.body(body),
        Syntax::Yaml(docs) => {
            for doc in docs {
                shape.yaml(&doc.root, id);
            }
        }
        Syntax::Deferred(_) | Syntax::None => {}
    }
    let mut found = shape.annotations;
    found.extend(comments(id, file, shape.scopes, shape.strings));
    found
}

/// Where constructs start and end, and where strings are (a marker inside a string is text).
#[derive(Default)]
struct Shape {
    scopes: Vec<Range<usize>>,
    strings: Vec<Range<usize>>,
    annotations: Vec<Directive>,
}

impl Shape {
    fn body(&mut self, body: &Body) {
        for structure in body {
            match structure {
                Structure::Attribute(a) => {
                    self.scopes.extend(a.span());
                    self.expr(&a.value);
                }
                Structure::Block(b) => {
                    self.scopes.extend(b.span());
                    self.body(&b.body);
                }
            }
        }
    }

    fn expr(&mut self, e: &Expression) {
        match e {
            Expression::String(_)
            | Expression::StringTemplate(_)
            | Expression::HeredocTemplate(_) => {
                self.strings.extend(e.span());
            }
            Expression::Array(items) => {
                for item in items {
                    self.scopes.extend(item.span());
                    self.expr(item);
                }
            }
            Expression::Object(object) => {
                for (key, value) in object {
                    if let (Some(k), Some(v)) = (key.span(), value.expr().span()) {
                        self.scopes.push(k.start..v.end);
                    }
                    self.expr(value.expr());
                }
            }
            Expression::Parenthesis(inner) => self.expr(inner.inner()),
            _ => {}
        }
    }

    fn yaml(&mut self, node: &YamlNode, file: FileId) {
        match &node.value {
            YamlValue::Scalar(_) => self.strings.push(node.span.clone()),
            YamlValue::Seq(items) => {
                for item in items {
                    self.scopes.push(item.span.clone());
                    self.yaml(item, file);
                }
            }
            YamlValue::Map(entries) => {
                self.scopes.push(node.span.clone());
                if let Some(value) = node.path(&["metadata", "annotations", ANNOTATION]) {
                    self.annotations
                        .push(annotation(file, value, node.span.clone()));
                }
                for (key, value) in entries {
                    self.scopes
                        .push(key.span.start..value.span.end.max(key.span.end));
                    self.strings.push(key.span.clone());
                    self.yaml(value, file);
                }
            }
        }
    }
}

fn annotation(file: FileId, value: &YamlNode, scope: Range<usize>) -> Directive {
    let ids: Vec<(String, Range<usize>)> = value
        .as_str()
        .unwrap_or_default()
        .split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| (s.to_string(), value.span.clone()))
        .collect();
    Directive {
        file,
        form: Form::Annotation,
        span: value.span.clone(),
        used: vec![false; ids.len()],
        ids,
        reason: None,
        scope,
    }
}

/// Byte ranges sorted by start, to ask which hold an offset or start in a range without
/// walking them all for every comment (100k comments made that quadratic).
struct Ranges {
    ranges: Vec<Range<usize>>,
    /// The greatest end among `ranges[..=i]`.
    reach: Vec<usize>,
}

impl Ranges {
    fn new(mut ranges: Vec<Range<usize>>) -> Self {
        ranges.sort_unstable_by_key(|r| r.start);
        let reach = ranges
            .iter()
            .scan(0, |max, r| {
                *max = r.end.max(*max);
                Some(*max)
            })
            .collect();
        Ranges { ranges, reach }
    }

    /// Does any range hold `at`?
    fn any_contains(&self, at: usize) -> bool {
        let n = self.ranges.partition_point(|r| r.start <= at);
        n > 0 && self.reach[n - 1] > at
    }

    /// The greatest end among the ranges that start in `within`.
    fn reach_of_starts_in(&self, within: &Range<usize>) -> Option<usize> {
        let from = self.ranges.partition_point(|r| r.start < within.start);
        let to = self.ranges.partition_point(|r| r.start < within.end);
        self.ranges[from..to].iter().map(|r| r.end).max()
    }
}

/// `#` and `//` comments that hold the marker, outside strings.
fn comments(
    id: FileId,
    file: &SourceFile,
    scopes: Vec<Range<usize>>,
    strings: Vec<Range<usize>>,
) -> Vec<Directive> {
    let text: &str = file.text();
    let scopes = Ranges::new(scopes);
    let strings = Ranges::new(strings);
    // Lines are visited in order: the last code line found answers every comment above it
    // (a run of comments would otherwise each walk the whole run).
    let mut next_code: Option<(usize, Option<usize>)> = None;
    let mut last_covered: Option<(usize, Range<usize>)> = None;
    let mut out = Vec::new();
    for line in 0..file.line_count() {
        let (start, end) = (file.line_start(line), file.line_end(line));
        let content = text[start..end].trim_end_matches(['\n', '\r']);
        let Some(at) = content.find(MARKER) else {
            continue;
        };
        let before = content[..at].trim_end();
        let code = if let Some(code) = before.strip_suffix("//") {
            code
        } else if let Some(code) = before.strip_suffix('#') {
            code
        } else {
            continue;
        };
        let marker_at = start + code.len();
        if strings.any_contains(marker_at) {
            continue;
        }
        let rest = &content[at + MARKER.len()..];
        let (form, rest, rest_at) = match rest.strip_prefix("-file") {
            Some(r) => (Form::File, r, at + MARKER.len() + 5),
            None => (Form::Comment, rest, at + MARKER.len()),
        };
        if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
            continue; // `gpulint:ignored`, not a directive
        }
        let (list, reason) = match rest.find("--") {
            Some(i) => (&rest[..i], Some(rest[i + 2..].trim().to_string())),
            None => (rest, None),
        };
        let mut ids = Vec::new();
        let mut offset = 0;
        for token in list.split([',', ' ', '\t']) {
            if !token.is_empty() {
                let from = start + rest_at + offset;
                ids.push((token.to_string(), from..from + token.len()));
            }
            offset += token.len() + 1;
        }
        let scope = match form {
            Form::File => 0..text.len(),
            _ => {
                let target = if code.trim().is_empty() {
                    match next_code {
                        Some((from, found))
                            if from <= line + 1 && found.is_none_or(|f| line < f) =>
                        {
                            found
                        }
                        _ => {
                            let found = next_code_line(file, line + 1);
                            next_code = Some((line + 1, found));
                            found
                        }
                    }
                } else {
                    Some(line)
                };
                match (target, &last_covered) {
                    (None, _) => 0..0,
                    (Some(t), Some((l, scope))) if *l == t => scope.clone(),
                    (Some(t), _) => {
                        let scope = covered(file, t, &scopes);
                        last_covered = Some((t, scope.clone()));
                        scope
                    }
                }
            }
        };
        out.push(Directive {
            file: id,
            form,
            span: marker_at..start + content.len(),
            used: vec![false; ids.len()],
            ids,
            reason: reason.filter(|r| !r.is_empty()),
            scope,
        });
    }
    out
}

/// The first line from `line` on that holds code: not blank, not only a comment, not `---`.
fn next_code_line(file: &SourceFile, mut line: usize) -> Option<usize> {
    while line < file.line_count() {
        let t = file.text()[file.line_start(line)..file.line_end(line)].trim();
        let skip = t.is_empty()
            || t.starts_with('#')
            || t.starts_with("//")
            || t == "---"
            || t.starts_with("--- ");
        if !skip {
            return Some(line);
        }
        line += 1;
    }
    None
}

/// A line, and every construct that starts on it.
fn covered(file: &SourceFile, line: usize, scopes: &Ranges) -> Range<usize> {
    let (start, end) = (file.line_start(line), file.line_end(line));
    let reach = scopes.reach_of_starts_in(&(start..end)).unwrap_or(end);
    start..reach.max(end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_source::FileKind;

    fn directives_of(name: &str, text: &str) -> (SourceFile, Vec<Directive>) {
        let kind = FileKind::from_path(std::path::Path::new(name)).unwrap();
        let file = SourceFile::new(name.into(), None, kind, text.into(), true);
        let parsed = gpulint_syntax::parse(&file);
        let d = directives(FileId(0), &file, &parsed);
        (file, d)
    }

    fn covered_text<'a>(file: &'a SourceFile, d: &Directive) -> &'a str {
        &file.text()[d.scope.clone()]
    }

    #[test]
    fn a_comment_covers_the_block_below_it() {
        let src = "a = 1\n\n# gpulint:ignore missing-auto-shutdown, spot-only-inference -- nightly stop\n# other comment\nresource \"x\" \"y\" {\n  b = 2\n}\nc = 3\n";
        let (file, d) = directives_of("main.tf", src);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].form, Form::Comment);
        let ids: Vec<&str> = d[0].ids.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(ids, ["missing-auto-shutdown", "spot-only-inference"]);
        assert_eq!(&src[d[0].ids[1].1.clone()], "spot-only-inference");
        assert_eq!(d[0].reason.as_deref(), Some("nightly stop"));
        assert_eq!(
            covered_text(&file, &d[0]),
            "resource \"x\" \"y\" {\n  b = 2\n}"
        );
    }

    #[test]
    fn slashes_trailing_comments_and_strings() {
        let src = "resource \"x\" \"y\" {\n  t = \"p5\" // gpulint:ignore a\n  s = \"# gpulint:ignore b\"\n  h = <<EOT\n# gpulint:ignore c\nEOT\n}\n";
        let (file, d) = directives_of("main.tf", src);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            covered_text(&file, &d[0]),
            "  t = \"p5\" // gpulint:ignore a\n"
        );
    }

    #[test]
    fn yaml_comments_cover_documents_and_items_and_the_annotation_its_object() {
        let src = "---\n# gpulint:ignore missing-shm\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\nkind: Pod\nmetadata:\n  annotations:\n    gpulint.dev/ignore: \"x, y\"\nspec:\n  containers:\n    # gpulint:ignore-file z\n    # gpulint:ignore w\n    - name: c\n      image: i\n    - name: d\n";
        let (file, d) = directives_of("pods.yaml", src);
        assert_eq!(d.len(), 4, "{d:?}");
        let annotation = d.iter().find(|d| d.form == Form::Annotation).unwrap();
        let ids: Vec<&str> = annotation.ids.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(ids, ["x", "y"]);
        assert!(covered_text(&file, annotation).starts_with("kind: Pod"));
        let comments: Vec<&Directive> = d.iter().filter(|d| d.form != Form::Annotation).collect();
        assert!(covered_text(&file, comments[0]).starts_with("apiVersion: v1"));
        assert!(
            covered_text(&file, comments[0])
                .trim_end()
                .ends_with("name: a"),
            "{:?}",
            covered_text(&file, comments[0])
        );
        assert_eq!(comments[1].form, Form::File);
        assert_eq!(comments[1].scope, 0..src.len());
        assert_eq!(
            covered_text(&file, comments[2]).trim_end(),
            "    - name: c\n      image: i"
        );
    }

    #[test]
    fn lookalikes_are_not_directives() {
        let (_, d) = directives_of("a.tf", "# gpulint:ignored x\n# see gpulint:ignore docs\n");
        // The second is a comment that mentions the marker after other words: not a directive.
        assert!(d.is_empty(), "{d:?}");
    }
}
