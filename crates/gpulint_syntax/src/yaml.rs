//! YAML front end: saphyr-parser events to an owned tree with byte spans.
//!
//! We build the tree ourselves from the event stream instead of using saphyr's loader, so
//! that one iterative pass does everything `reference/parsing.md` asks for:
//! - a nesting-depth guard (saphyr's recursive loader overflows the stack on 10 KB of
//!   nested `- `), checked as events arrive, before anything deep is built;
//! - char markers converted to byte offsets once;
//! - a node budget per document (`limits.yaml_nodes`): a document past it is a
//!   [`LimitHit`] there, and the documents after it are still read;
//! - aliases expanded under a budget (`limits.yaml_alias_nodes`) that also counts the
//!   copies anchors keep, so an alias bomb is a limit hit, not an OOM; anchored subtrees
//!   are copied only when the text holds an alias at all;
//! - `<<` merge keys applied, as Kubernetes (go-yaml) does;
//! - the documents before a syntax error kept, so they are still linted.
//!
//! Tags (`!Ref`, `!!str`) are ignored: the node is read as if untagged.

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser};

use super::SyntaxError;
use gpulint_source::limits::{Limit, LimitHit, Limits};
use gpulint_source::{FileKind, SourceFile};

mod loader;
use loader::{Doc, Loader};

/// Deepest nesting accepted. Real manifests stay under 30.
pub const MAX_DEPTH: usize = 256;

#[derive(Clone, Debug, PartialEq)]
pub struct YamlNode {
    /// Byte range of the node in the file.
    pub span: Range<usize>,
    pub value: YamlValue,
}

#[derive(Clone, Debug, PartialEq)]
pub enum YamlValue {
    Scalar(Scalar),
    Seq(Vec<YamlNode>),
    /// Entries in source order; merges applied, keys as written.
    Map(Vec<(YamlNode, YamlNode)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub text: String,
    /// Plain (unquoted, not a block scalar): only plain scalars can be null, bool or number.
    pub plain: bool,
}

impl YamlNode {
    /// The value of a mapping key. With duplicate keys the last one wins, as in Kubernetes.
    pub fn get(&self, key: &str) -> Option<&YamlNode> {
        self.entries()?
            .iter()
            .rev()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The key node of a mapping entry, for spans that should point at the key.
    pub fn get_key(&self, key: &str) -> Option<&YamlNode> {
        self.entries()?
            .iter()
            .rev()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, _)| k)
    }

    /// Follows a path of mapping keys.
    /// The node at `keys` below this one (this one for no keys); keys may be written
    /// (`&["spec", "replicas"]`) or read from data (`&[String]`).
    pub fn path<K: AsRef<str>>(&self, keys: &[K]) -> Option<&YamlNode> {
        keys.iter()
            .try_fold(self, |node, key| node.get(key.as_ref()))
    }

    pub fn entries(&self) -> Option<&[(YamlNode, YamlNode)]> {
        match &self.value {
            YamlValue::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn items(&self) -> Option<&[YamlNode]> {
        match &self.value {
            YamlValue::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The text of a scalar that is not null.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            YamlValue::Scalar(s) if !s.is_null() => Some(&s.text),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(&self.value, YamlValue::Scalar(s) if s.is_null())
    }

    /// A non-negative integer: a plain `3`, or a quoted `"3"` as Kubernetes quantities allow.
    /// A plain one reads as YAML 1.1 does in Kubernetes (go-yaml): `010` is octal 8,
    /// `0x10` is 16, `1_000` is 1000; a quoted `"010"` is the quantity 10.
    pub fn as_u64(&self) -> Option<u64> {
        let text = self.as_str()?.trim();
        match &self.value {
            YamlValue::Scalar(s) if s.plain => yaml11_uint(text),
            _ => text.parse().ok(),
        }
    }

    /// A plain boolean, in the YAML 1.1 spellings Kubernetes accepts.
    pub fn as_bool(&self) -> Option<bool> {
        match &self.value {
            YamlValue::Scalar(s) if s.plain => match s.text.as_str() {
                "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
                "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                    Some(false)
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// A plain YAML 1.1 integer as go-yaml resolves it (Go's `ParseInt` with base 0, `_`
/// removed), else a decimal (go-yaml reads `09` as the float 9).
fn yaml11_uint(text: &str) -> Option<u64> {
    let t = text.replace('_', "");
    let t = t.strip_prefix('+').unwrap_or(&t);
    let radix = |p: &str| {
        t.strip_prefix(p)
            .or_else(|| t.strip_prefix(&p.to_uppercase()))
    };
    if let Some(h) = radix("0x") {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Some(b) = radix("0b") {
        return u64::from_str_radix(b, 2).ok();
    }
    if let Some(o) = radix("0o") {
        return u64::from_str_radix(o, 8).ok();
    }
    if let Some(o) = t.strip_prefix('0').filter(|o| !o.is_empty())
        && let Ok(n) = u64::from_str_radix(o, 8)
    {
        return Some(n);
    }
    t.parse().ok()
}

impl Scalar {
    pub fn is_null(&self) -> bool {
        self.plain && matches!(self.text.as_str(), "" | "~" | "null" | "Null" | "NULL")
    }
}

/// One document of a stream. Empty documents are dropped.
#[derive(Debug)]
pub struct YamlDoc {
    pub root: YamlNode,
}

/// The documents that parsed, and the error that stopped the rest (if any).
#[derive(Debug, Default)]
pub struct YamlStream {
    pub docs: Vec<YamlDoc>,
    pub error: Option<SyntaxError>,
    /// Limits hit on the way.
    pub limits: Vec<LimitHit>,
}
/// Reads a YAML stream within the default limits.
pub fn parse(file: &SourceFile) -> YamlStream {
    parse_with(file, &Limits::default())
}

/// Reads a YAML stream within `limits`.
pub fn parse_with(file: &SourceFile, limits: &Limits) -> YamlStream {
    let stream = parse_text(file, limits);
    // go-yaml (kubectl) and PyYAML take a tab after a mapping colon as the separator
    // (`replicas:⇥3`); saphyr does not. Read such a file again with those tabs as spaces:
    // every byte keeps its offset.
    if stream
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains("valid YAML whitespace"))
        && let Some(spaced) = space_tabs_after_colons(file.text())
    {
        let spaced = SourceFile::new(file.name.clone(), None, file.kind, spaced.into(), false);
        let retry = parse_with(&spaced, limits);
        if retry.error.is_none() {
            return retry;
        }
    }
    // Kubernetes' YAML reader (go-yaml) and PyYAML accept a flow collection or a quoted
    // scalar whose lines sit at or left of its block's indentation; saphyr does not. Read
    // such a file again with those on one line: every byte keeps its offset.
    if stream
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains("indentation"))
        && let Some(flat) = flatten_flow(file.text())
    {
        let flat = SourceFile::new(file.name.clone(), None, file.kind, flat.into(), false);
        let retry = parse_text(&flat, limits);
        if retry.error.is_none() {
            return retry;
        }
    }
    stream
}

/// YAML read from text inside a file (a heredoc in a Terraform file, a block scalar):
/// the documents that parsed and the limits hit on the way, both with offsets in the file.
#[derive(Debug, Default)]
pub struct Embedded {
    pub docs: Vec<YamlNode>,
    /// Each says what was not checked of the embedded text, never a line of the text
    /// as if it were a file of its own.
    pub limits: Vec<LimitHit>,
}

/// The YAML document written inside a literal block scalar (`serveConfigV2: |`), with
/// spans in the outer file: at most one, none when `node` is no literal block scalar or
/// its text is no YAML mapping or list (the tool that reads the string reports that,
/// not gpulint). A limit hit inside it is returned, to be reported.
///
/// Only the scalar's own lines are read again, within `limits`: a document can only
/// hold as much as the file it sits in.
pub fn parse_embedded(file: &SourceFile, node: &YamlNode, limits: &Limits) -> Embedded {
    let Some(start) = block_scalar_start(file.text(), node) else {
        return Embedded::default();
    };
    let Some(text) = file.text().get(start..node.span.end) else {
        return Embedded::default();
    };
    let mut read = parse_at(file, text, start, limits);
    read.docs.truncate(1);
    read.docs
        .retain(|root| !matches!(root.value, YamlValue::Scalar(_)));
    read
}

/// Where the text of a literal block scalar starts: the node's span starts at its text,
/// whose line must follow a header ending in `|`. `None` for any other node.
fn block_scalar_start(text: &str, node: &YamlNode) -> Option<usize> {
    let before = text.get(..node.span.start)?;
    let start = before.rfind('\n')? + 1;
    if !before[start..].bytes().all(|b| b == b' ') || node.as_str().is_none() {
        return None;
    }
    let header = &before[before[..start - 1].rfind('\n').map_or(0, |i| i + 1)..start - 1];
    let header = header.split(" #").next().unwrap_or(header).trim_end();
    header
        .trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit())
        .ends_with('|')
        .then_some(start)
}

/// The documents of YAML `text` that stands at byte `offset` of `file` (a heredoc in a
/// Terraform file, a block scalar), with spans in `file`. `text` may differ from the
/// file's bytes there, but not in length (a masked `${…}`). Read within `limits`, as a
/// file of its own; documents after a syntax error are not returned.
pub fn parse_at(file: &SourceFile, text: &str, offset: usize, limits: &Limits) -> Embedded {
    let inner = SourceFile::new(file.name.clone(), None, FileKind::Yaml, text.into(), false);
    let stream = parse_text(&inner, limits);
    let docs = stream
        .docs
        .into_iter()
        .map(|d| {
            let mut root = d.root;
            shift(&mut root, offset);
            root
        })
        .collect();
    let limits = stream
        .limits
        .into_iter()
        .map(|hit| LimitHit {
            limit: hit.limit,
            offset: hit.offset + offset,
            unchecked: "the rest of the YAML document written in this string was not checked"
                .into(),
        })
        .collect();
    Embedded { docs, limits }
}

/// Moves every span of a tree `by` bytes.
fn shift(node: &mut YamlNode, by: usize) {
    node.span = node.span.start + by..node.span.end + by;
    match &mut node.value {
        YamlValue::Scalar(_) => {}
        YamlValue::Seq(items) => items.iter_mut().for_each(|i| shift(i, by)),
        YamlValue::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            shift(k, by);
            shift(v, by);
        }),
    }
}

/// The text with the tab after a line's first `key:` turned into a space, where no quote
/// or comment comes before it on the line. `None` when there is none.
fn space_tabs_after_colons(text: &str) -> Option<String> {
    let mut out = text.as_bytes().to_vec();
    let mut changed = false;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let b = line.as_bytes();
        if let Some(i) = b
            .iter()
            .position(|c| matches!(c, b':' | b'"' | b'\'' | b'#'))
            && b[i] == b':'
            && b.get(i + 1) == Some(&b'\t')
        {
            out[start + i + 1] = b' ';
            changed = true;
        }
        start += line.len();
    }
    // An ASCII byte was replaced by an ASCII space: still UTF-8.
    changed.then(|| String::from_utf8(out).expect("ASCII for ASCII"))
}

/// The text with every line break inside a flow collection (`[…]`, `{…}`) or a quoted
/// scalar turned into a space, and comments in flow collections blanked. `None` when
/// there is none to change.
fn flatten_flow(text: &str) -> Option<String> {
    let mut out = text.as_bytes().to_vec();
    let b = text.as_bytes();
    let mut changed = false;
    let mut depth = 0usize;
    // Indentation of a line that opened a block scalar (`|`, `>`): deeper lines are text.
    let mut block_scalar: Option<usize> = None;
    // The last byte before `i` that is not a space or tab, kept up to date as `i` moves
    // (looking back from every byte is quadratic on a long run of spaces).
    let mut prev: Option<u8> = None;
    let mut scanned = 0;
    let mut i = 0;
    while i < b.len() {
        let line_start = i == 0 || b[i - 1] == b'\n';
        if line_start && depth == 0 {
            let indent = b[i..].iter().take_while(|c| **c == b' ').count();
            let blank = matches!(b.get(i + indent), None | Some(b'\n' | b'\r' | b'#'));
            match block_scalar {
                Some(n) if indent > n || blank => {
                    i = b[i..]
                        .iter()
                        .position(|c| *c == b'\n')
                        .map_or(b.len(), |p| i + p + 1);
                    continue;
                }
                _ => block_scalar = None,
            }
            let end = b[i..]
                .iter()
                .position(|c| *c == b'\n')
                .map_or(b.len(), |p| i + p);
            let line = text[i..end].trim_end();
            let line = line.split(" #").next().unwrap_or(line).trim_end();
            if line
                .trim_end_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit())
                .ends_with(['|', '>'])
                && (line.contains(": ") || line.trim_start().starts_with("- "))
            {
                block_scalar = Some(indent);
            }
        }
        while scanned < i {
            if !matches!(b[scanned], b' ' | b'\t') {
                prev = Some(b[scanned]);
            }
            scanned += 1;
        }
        let token_start = i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'[' | b'{' | b',');
        match b[i] {
            b'#' if token_start => {
                // A comment: to the end of the line, blanked inside a flow collection.
                while i < b.len() && b[i] != b'\n' {
                    if depth > 0 {
                        out[i] = b' ';
                    }
                    i += 1;
                }
                continue;
            }
            q @ (b'"' | b'\'') if token_start || matches!(prev, Some(b':')) => {
                i += 1;
                while i < b.len() {
                    // A quoted scalar may continue on lines at its key's indentation, as
                    // go-yaml and PyYAML read it (`key: "a \` then `  b"` under `key`).
                    // Its line breaks fold to spaces anyway: make them spaces.
                    let escaped = q == b'"' && b[i] == b'\\';
                    let at = if escaped { i + 1 } else { i };
                    if matches!(b.get(at), Some(b'\n' | b'\r')) {
                        out[at] = b' ';
                        changed = true;
                    }
                    if escaped {
                        i += 2;
                        continue;
                    }
                    if b[i] == q {
                        if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            b'[' | b'{' if depth > 0 || matches!(prev, None | Some(b':' | b'-' | b'?' | b'\n')) => {
                depth += 1;
            }
            b']' | b'}' if depth > 0 => depth -= 1,
            b'\n' | b'\r' if depth > 0 => {
                out[i] = b' ';
                changed = true;
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were replaced by ASCII spaces: still UTF-8.
    changed.then(|| String::from_utf8(out).expect("ASCII for ASCII"))
}

/// Whether `text` may hold an alias: a `*` followed by a character an anchor name can
/// start with. Stars in strings and globs make this say yes more often than needed, which
/// only costs the anchor copies (counted against the alias budget).
fn may_hold_alias(text: &str) -> bool {
    text.as_bytes().windows(2).any(|w| {
        w[0] == b'*'
            && !matches!(
                w[1],
                b' ' | b'\t' | b'\n' | b'\r' | b',' | b'[' | b']' | b'{' | b'}'
            )
    })
}

fn parse_text(file: &SourceFile, limits: &Limits) -> YamlStream {
    // A suppression in an unread document is still reported when it hides nothing: such
    // a file is read whole.
    let unread_kinds = if file.text().contains("gpulint") {
        &[]
    } else {
        gpulint_facts::catalog().kubernetes.unread_kinds.as_slice()
    };
    let (stream, dropped_anchor) = parse_kinds(file, limits, unread_kinds);
    if dropped_anchor
        && stream
            .error
            .as_ref()
            .is_some_and(|e| e.message == UNKNOWN_ANCHOR)
    {
        return parse_kinds(file, limits, &[]).0;
    }
    stream
}

const UNKNOWN_ANCHOR: &str = "alias to an unknown anchor";

/// A stream, documents of `unread_kinds` read for their syntax only, and whether one of
/// those dropped an anchor.
fn parse_kinds(file: &SourceFile, limits: &Limits, unread_kinds: &[String]) -> (YamlStream, bool) {
    let mut loader = Loader {
        file,
        stack: Vec::new(),
        anchors: HashMap::new(),
        keep_anchors: may_hold_alias(file.text()),
        nodes: 0,
        max_nodes: limits.count(Limit::YamlNodes),
        alias_nodes: 0,
        max_alias_nodes: limits.count(Limit::YamlAliasNodes),
        doc_start: 0,
        doc: Doc::Built,
        unread_kinds,
        dropped_anchor: false,
        docs: Vec::new(),
        limits: Vec::new(),
    };
    let mut parser = Parser::new_from_str(file.text());
    let error = loop {
        match parser.next_event() {
            None | Some(Ok((Event::StreamEnd, _))) => break None,
            Some(Ok((event, span))) => {
                if let Err(e) = loader.on_event(event, span.start, span.end) {
                    break Some(e);
                }
            }
            Some(Err(e)) => break Some(loader.scan_error(&e)),
        }
    };
    // A document cut short by an error is incomplete: drop it, keep the ones before it.
    (
        YamlStream {
            docs: loader.docs,
            error,
            limits: loader.limits,
        },
        loader.dropped_anchor,
    )
}
#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_source::FileKind;
    use std::fmt::Write;

    fn load(text: &str) -> (SourceFile, YamlStream) {
        let f = SourceFile::new("t.yaml".into(), None, FileKind::Yaml, text.into(), true);
        let s = parse(&f);
        (f, s)
    }

    #[test]
    fn a_tab_after_a_mapping_colon_separates() {
        let text = "spec:\n  replicas:\t3\n  name: \"a:\tb\"\n";
        let (f, s) = load(text);
        assert!(s.error.is_none(), "{:?}", s.error);
        let r = s.docs[0].root.path(&["spec", "replicas"]).unwrap();
        assert_eq!((r.as_u64(), &f.text()[r.span.clone()]), (Some(3), "3"));
        // A tab inside a quoted value is the value's.
        let n = s.docs[0].root.path(&["spec", "name"]).unwrap();
        assert_eq!(n.as_str(), Some("a:\tb"));
    }

    #[test]
    fn embedded_documents_keep_outer_spans() {
        let text = "spec:\n  serveConfigV2: |\n    applications:\n    - name: llms\n      args: {tp: 2}\n  other: x\n";
        let (f, s) = load(text);
        let n = s.docs[0].root.path(&["spec", "serveConfigV2"]).unwrap();
        let inner = parse_embedded(&f, n, &Limits::default()).docs.remove(0);
        let name = inner.path(&["applications"]).unwrap().items().unwrap()[0]
            .get("name")
            .unwrap();
        assert_eq!(&text[name.span.clone()], "llms");
        let tp = inner.path(&["applications"]).unwrap().items().unwrap()[0]
            .path(&["args", "tp"])
            .unwrap();
        assert_eq!(&text[tp.span.clone()], "2");
        // Not a literal block: nothing to read.
        let other = s.docs[0].root.path(&["spec", "other"]).unwrap();
        assert!(
            parse_embedded(&f, other, &Limits::default())
                .docs
                .is_empty()
        );
    }

    #[test]
    fn a_limit_hit_inside_embedded_yaml_is_returned_at_its_place_in_the_file() {
        let mut text = String::from("kind: RayService\nspec:\n  serveConfigV2: |\n");
        text.push_str("    a: &a [x, x, x]\n    b: &b [*a, *a, *a]\n    c: [*b, *b, *b]\n");
        let (f, s) = load(&text);
        let n = s.docs[0].root.path(&["spec", "serveConfigV2"]).unwrap();
        let mut tight = Limits::default();
        tight.set(Limit::YamlAliasNodes, 10);
        let read = parse_embedded(&f, n, &tight);
        assert!(read.docs.is_empty(), "{:?}", read.docs);
        assert_eq!(read.limits.len(), 1);
        assert_eq!(read.limits[0].limit, Limit::YamlAliasNodes);
        // On the line of the bomb in the outer file, not line 1 of the string.
        assert!(
            f.line_col(read.limits[0].offset).0 >= 5,
            "{:?}",
            read.limits
        );
        assert!(read.limits[0].unchecked.contains("written in this string"));
        // Within the default limits the same document is read whole.
        let whole = parse_embedded(&f, n, &Limits::default());
        assert!(whole.limits.is_empty() && whole.docs.len() == 1);
    }

    #[test]
    fn spans_are_bytes_after_non_ascii_text() {
        let (f, s) = load("# ünïcödé\nspec:\n  limits:\n    nvidia.com/gpu: 2\n");
        let v = s.docs[0]
            .root
            .path(&["spec", "limits", "nvidia.com/gpu"])
            .unwrap();
        assert_eq!(&f.text()[v.span.clone()], "2");
        assert_eq!(f.line_col(v.span.start), (4, 21));
    }

    #[test]
    fn multi_document_streams_keep_every_document() {
        let (_, s) = load("a: 1\n---\nb: 2\n---\n---\nc: 3\n");
        assert_eq!(s.docs.len(), 3);
        assert!(s.error.is_none());
    }

    #[test]
    fn documents_before_an_error_survive() {
        let (f, s) = load("a: 1\n---\nb: [1, 2\n");
        assert_eq!(s.docs.len(), 1);
        let e = s.error.unwrap();
        assert!(f.line_col(e.offset).0 >= 3, "{e:?}");
    }

    #[test]
    fn unread_kinds_keep_their_kind_and_span_but_not_their_body() {
        let src = "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n---\nkind: Pod\nspec:\n  x: 1\n";
        let (f, s) = load(src);
        assert!(s.error.is_none(), "{:?}", s.error);
        assert_eq!(s.docs.len(), 2);
        let config = &s.docs[0].root;
        assert_eq!(
            config.get("kind").and_then(YamlNode::as_str),
            Some("ConfigMap")
        );
        assert!(config.get("data").is_none(), "{config:?}");
        assert_eq!(
            &f.text()[config.span.clone()],
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b"
        );
        assert!(s.docs[1].root.path(&["spec", "x"]).is_some());
    }

    #[test]
    fn a_kind_is_unread_only_in_its_group_and_after_its_api_version() {
        // A Knative Service holds a pod template; a kind before its apiVersion is unknown.
        for src in [
            "apiVersion: serving.knative.dev/v1\nkind: Service\nspec:\n  x: 1\n",
            "kind: ConfigMap\napiVersion: v1\nspec:\n  x: 1\n",
        ] {
            let (_, s) = load(src);
            assert!(s.docs[0].root.path(&["spec", "x"]).is_some(), "{src}");
        }
        let (_, s) = load("apiVersion: v1\nkind: Service\nspec:\n  x: 1\n");
        assert!(s.docs[0].root.get("spec").is_none());
    }

    #[test]
    fn unread_kinds_are_still_checked_for_syntax() {
        let (f, s) = load(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  a: [1, 2\n",
        );
        let e = s.error.expect("a syntax error past `kind`");
        assert!(f.line_col(e.offset).0 >= 3, "{e:?}");
    }

    #[test]
    fn an_anchor_in_an_unread_document_is_still_there_for_an_alias() {
        let (_, s) =
            load("apiVersion: v1\nkind: ConfigMap\ndata: &d\n  a: b\n---\nkind: Pod\nspec: *d\n");
        assert!(s.error.is_none(), "{:?}", s.error);
        let pod = &s.docs[1].root;
        assert_eq!(
            pod.path(&["spec", "a"]).and_then(YamlNode::as_str),
            Some("b")
        );
    }

    #[test]
    fn a_file_that_names_gpulint_is_read_whole() {
        let (_, s) = load(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    gpulint.dev/ignore: x\n",
        );
        assert!(s.docs[0].root.path(&["metadata", "annotations"]).is_some());
    }

    #[test]
    fn merge_keys_fill_in_missing_entries() {
        let (_, s) = load("base: &b\n  x: 1\n  y: 2\nd:\n  <<: *b\n  y: 3\n");
        let d = s.docs[0].root.get("d").unwrap();
        assert_eq!(d.get("x").unwrap().as_str(), Some("1"));
        assert_eq!(d.get("y").unwrap().as_str(), Some("3"));
        assert!(d.get("<<").is_none());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "- ".repeat(100_000) + "x";
        let (_, s) = load(&text);
        assert!(s.error.unwrap().message.contains("nesting deeper"));
    }

    #[test]
    fn alias_bombs_stop_at_the_budget() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = (b'a' + i - 1) as char;
            let name = (b'a' + i) as char;
            let items = vec![format!("*{prev}"); 10].join(", ");
            writeln!(text, "{name}: &{name} [{items}]").unwrap();
        }
        text.push_str("---\nafter: 1\n");
        let (_, s) = load(&text);
        // A limit hit, not a parse error; the document after the bomb is still read.
        assert!(s.error.is_none(), "{:?}", s.error);
        assert_eq!(s.limits.len(), 1);
        assert_eq!(s.limits[0].limit, Limit::YamlAliasNodes);
        assert_eq!(s.docs.len(), 1);
        assert!(s.docs[0].root.get("after").is_some());
    }

    #[test]
    fn anchors_are_not_copied_without_an_alias_and_copies_count_with_one() {
        // Nested anchors and no alias: nothing is copied, however large.
        let mut text = String::from("x: 1\n");
        for i in 0..40 {
            let mut next = format!("a{i}: &a{i}\n");
            for l in text.lines() {
                writeln!(next, "  {l}").unwrap();
            }
            for j in 0..20 {
                writeln!(next, "f{i}_{j}: v").unwrap();
            }
            text = next;
        }
        let f = SourceFile::new(
            "t.yaml".into(),
            None,
            FileKind::Yaml,
            text.clone().into(),
            true,
        );
        let mut limits = Limits::default();
        limits.set(Limit::YamlAliasNodes, 1000);
        let s = parse_with(&f, &limits);
        assert!(s.limits.is_empty() && s.error.is_none(), "{:?}", s.limits);
        // With an alias, the anchors' copies count against the alias budget.
        text.push_str("z: *a0\n");
        let f = SourceFile::new("t.yaml".into(), None, FileKind::Yaml, text.into(), true);
        let s = parse_with(&f, &limits);
        assert_eq!(s.limits[0].limit, Limit::YamlAliasNodes);
    }

    #[test]
    fn a_document_past_the_node_limit_is_a_limit_hit_and_the_next_is_read() {
        let mut big = String::new();
        for i in 0..50 {
            writeln!(big, "k{i}: v").unwrap();
        }
        let text = format!("a: 1\n---\n{big}---\nkind: Pod\n");
        let f = SourceFile::new("t.yaml".into(), None, FileKind::Yaml, text.into(), true);
        let mut limits = Limits::default();
        limits.set(Limit::YamlNodes, 40);
        let s = parse_with(&f, &limits);
        assert!(s.error.is_none(), "{:?}", s.error);
        assert_eq!(s.limits.len(), 1);
        assert_eq!(s.limits[0].limit, Limit::YamlNodes);
        assert!(
            s.limits[0].unchecked.contains("starts on line 2"),
            "{:?}",
            s.limits
        );
        let kinds: Vec<_> = s
            .docs
            .iter()
            .map(|d| d.root.entries().unwrap()[0].0.as_str())
            .collect();
        assert_eq!(kinds, [Some("a"), Some("kind")]);
    }

    #[test]
    fn markers_after_a_lone_cr_and_long_non_ascii_lines_are_bytes() {
        let (f, s) = load("a: 1\rb:\r  c: 2\r");
        let c = s.docs[0].root.path(&["b", "c"]).unwrap();
        assert_eq!(&f.text()[c.span.clone()], "2");
        assert_eq!(f.line_col(c.span.start), (3, 6));
        let text = format!(
            "{{{}}}\n",
            (0..2000)
                .map(|i| format!("\"ключ{i}\": \"é\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let (f, s) = load(&text);
        let v = s.docs[0].root.get("ключ1999").unwrap();
        assert_eq!(&f.text()[v.span.clone()], "\"é\"");
    }

    #[test]
    fn quoted_scalars_continued_at_their_keys_indentation_parse_as_pyyaml_reads_them() {
        // From aws-samples/awsome-distributed-training's Nsight Helm values.
        let text = "profile:\n  args: \"profile --delay 150 \\\n  -o /fsx/report.nsys-rep\"\n  single: 'a\n  b'\n  next: 1\n";
        let (f, s) = load(text);
        assert!(s.error.is_none(), "{:?}", s.error);
        let doc = &s.docs[0].root;
        let next = doc.get("profile").and_then(|p| p.get("next")).unwrap();
        assert_eq!(&f.text()[next.span.clone()], "1");
    }

    #[test]
    fn flow_collections_left_of_their_block_parse_as_go_yaml_reads_them() {
        let text = "spec:\n  requirements:\n    - key: family\n      values: [\n        \"c5d\", # local NVMe\n        \"m5d\"\n      ]\n    - key: gen\n      script: |\n        [ -f x ] && echo\n";
        let (f, s) = load(text);
        assert!(s.error.is_none(), "{:?}", s.error);
        let reqs = s.docs[0]
            .root
            .get("spec")
            .unwrap()
            .get("requirements")
            .unwrap();
        let YamlValue::Seq(items) = &reqs.value else {
            panic!("{reqs:?}")
        };
        let values = items[0].get("values").unwrap();
        let YamlValue::Seq(v) = &values.value else {
            panic!()
        };
        // Spans still point into the file as written.
        assert_eq!(f.line_col(v[1].span.start), (6, 9));
        assert_eq!(
            items[1].get("script").unwrap().as_str(),
            Some("[ -f x ] && echo\n")
        );
        // A file that is wrong for every reader still fails.
        let (_, bad) = load("a:\n  - b\n - c\n");
        assert!(bad.error.is_some());
    }

    #[test]
    fn custom_tags_do_not_fail() {
        let (_, s) = load("Value: !Ref Bucket\nOther: !GetAtt [A, B]\n");
        assert!(s.error.is_none());
        assert_eq!(
            s.docs[0].root.get("Value").unwrap().as_str(),
            Some("Bucket")
        );
    }

    #[test]
    fn scalars_know_null_bool_and_numbers() {
        let (_, s) = load("a: ~\nb: yes\nc: \"yes\"\nd: \"4\"\ne: 4\n");
        let r = &s.docs[0].root;
        assert!(r.get("a").unwrap().is_null());
        assert_eq!(r.get("b").unwrap().as_bool(), Some(true));
        assert_eq!(r.get("c").unwrap().as_bool(), None);
        assert_eq!(r.get("d").unwrap().as_u64(), Some(4));
        assert_eq!(r.get("e").unwrap().as_u64(), Some(4));
        let (_, s) = load("a: 010\nb: \"010\"\nc: 0x10\nd: 1_000\ne: 09\nf: '0x10'\ng: -1\n");
        let r = &s.docs[0].root;
        let n = |k: &str| r.get(k).unwrap().as_u64();
        assert_eq!(
            [n("a"), n("b"), n("c"), n("d"), n("e"), n("f"), n("g")],
            [Some(8), Some(10), Some(16), Some(1000), Some(9), None, None]
        );
    }
}
