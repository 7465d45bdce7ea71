//! The tree builder: saphyr's events to a YamlNode tree in one pass, with byte spans, a
//! depth guard, an alias budget and merge keys.

use std::collections::HashMap;

use gpulint_source::SourceFile;
use gpulint_source::limits::{Limit, LimitHit};
use saphyr_parser::{Event, Marker, ScalarStyle, ScanError};

use super::{MAX_DEPTH, Scalar, UNKNOWN_ANCHOR, YamlDoc, YamlNode, YamlValue};
use crate::SyntaxError;

pub(crate) enum Frame {
    Seq {
        start: usize,
        anchor: usize,
        items: Vec<YamlNode>,
    },
    Map {
        start: usize,
        anchor: usize,
        entries: Vec<(YamlNode, YamlNode)>,
        key: Option<YamlNode>,
    },
}

/// What becomes of the current document's events.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Doc {
    /// They build its tree.
    Built,
    /// It hit a limit: they are dropped.
    Cut,
    /// It is of an unread kind: they are dropped and, at its end, its top mapping as far
    /// as its `kind` becomes the document.
    Unread,
}

pub(crate) struct Loader<'a> {
    pub(crate) file: &'a SourceFile,
    pub(crate) stack: Vec<Frame>,
    /// Anchored subtrees, kept only when `keep_anchors`.
    pub(crate) anchors: HashMap<usize, (YamlNode, usize)>,
    /// Whether the text holds an alias (`*name`) at all: without one, no anchor is copied.
    pub(crate) keep_anchors: bool,
    /// Nodes in the current document, aliases included (`limits.yaml_nodes`).
    pub(crate) nodes: usize,
    pub(crate) max_nodes: usize,
    /// Nodes copied in this file by aliases and kept for anchors
    /// (`limits.yaml_alias_nodes`). Manifests share a few small blocks
    /// (`<<: *defaults`); a bomb copies copies. Found by fuzzing: a 429-byte bomb that
    /// cloned 10⁶ nodes took 0.2 s, and a file could hold several.
    pub(crate) alias_nodes: usize,
    pub(crate) max_alias_nodes: usize,
    /// Where the current document starts, to name it in a limit hit.
    pub(crate) doc_start: usize,
    /// What becomes of the current document's events.
    pub(crate) doc: Doc,
    /// Kinds whose documents are read for their syntax only; empty when every document
    /// is built whole.
    pub(crate) unread_kinds: &'a [String],
    /// An anchor was dropped with an unread document: an alias to it in a later document
    /// needs the file read whole.
    pub(crate) dropped_anchor: bool,
    pub(crate) docs: Vec<YamlDoc>,
    pub(crate) limits: Vec<LimitHit>,
}

impl Loader<'_> {
    /// The byte offset of a marker, from its char index: saphyr's lines also end at a
    /// lone `\r`, and a long line is not walked from its start for every marker.
    fn byte(&self, m: Marker) -> usize {
        self.file.byte_of_char(m.index())
    }

    pub(crate) fn scan_error(&self, e: &ScanError) -> SyntaxError {
        SyntaxError {
            offset: self.byte(*e.marker()),
            message: e.info().to_string(),
        }
    }

    fn error(&self, at: Marker, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            offset: self.byte(at),
            message: message.into(),
        }
    }

    /// Counts `n` more nodes in this document; `false` (and the document is dropped from
    /// here) when that passes the per-document budget.
    fn count(&mut self, n: usize, at: Marker) -> bool {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > self.max_nodes {
            self.hit(Limit::YamlNodes, at);
            return false;
        }
        true
    }

    /// Counts `n` more nodes copied by an alias or kept for an anchor; `false` (and the
    /// document is dropped from here) when that passes the file's alias budget.
    fn count_copies(&mut self, n: usize, at: Marker) -> bool {
        self.alias_nodes = self.alias_nodes.saturating_add(n);
        if self.alias_nodes > self.max_alias_nodes {
            self.hit(Limit::YamlAliasNodes, at);
            return false;
        }
        true
    }

    /// Records a limit hit in the current document and drops the rest of it: the
    /// documents after it are still read.
    fn hit(&mut self, limit: Limit, at: Marker) {
        let line = self.file.line_col(self.doc_start).0;
        self.limits.push(LimitHit {
            limit,
            offset: self.byte(at),
            unchecked: format!(
                "the rest of the YAML document that starts on line {line} was not checked; \
                 the documents after it were"
            ),
        });
        self.stack.clear();
        self.doc = Doc::Cut;
    }

    pub(crate) fn on_event(
        &mut self,
        event: Event<'_>,
        start: Marker,
        end: Marker,
    ) -> Result<(), SyntaxError> {
        if let Event::DocumentStart(_) = event {
            // The node budget is per document. Anchors are kept: saphyr (and this
            // project's fixtures) let a later document use an earlier one's anchor.
            self.nodes = 0;
            self.doc = Doc::Built;
            self.doc_start = self.byte(start);
        }
        if self.doc == Doc::Unread {
            match event {
                Event::DocumentEnd => self.end_unread(start),
                Event::Scalar(_, _, anchor, _)
                | Event::SequenceStart(anchor, _)
                | Event::MappingStart(anchor, _)
                    if anchor > 0 =>
                {
                    self.dropped_anchor = true;
                }
                _ => {}
            }
            return Ok(());
        }
        if self.doc == Doc::Cut {
            return Ok(());
        }
        match event {
            Event::Scalar(text, style, anchor, _tag) => {
                if !self.count(1, start) {
                    return Ok(());
                }
                let node = YamlNode {
                    span: self.byte(start)..self.byte(end),
                    value: YamlValue::Scalar(Scalar {
                        text: text.into_owned(),
                        plain: style == ScalarStyle::Plain,
                    }),
                };
                if anchor > 0 && self.keep_anchors && !self.count_copies(1, start) {
                    return Ok(());
                }
                self.finish(node, anchor, 1);
            }
            Event::Alias(id) => {
                let Some(&(_, size)) = self.anchors.get(&id) else {
                    return Err(self.error(start, UNKNOWN_ANCHOR));
                };
                if !self.count_copies(size, start) || !self.count(size, start) {
                    return Ok(());
                }
                let mut node = self.anchors[&id].0.clone();
                node.span = self.byte(start)..self.byte(end);
                self.finish(node, 0, size);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(
                        self.error(start, format!("nesting deeper than {MAX_DEPTH} levels"))
                    );
                }
                if !self.count(1, start) {
                    return Ok(());
                }
                let start = self.byte(start);
                self.stack
                    .push(if matches!(event, Event::SequenceStart(..)) {
                        Frame::Seq {
                            start,
                            anchor,
                            items: Vec::new(),
                        }
                    } else {
                        Frame::Map {
                            start,
                            anchor,
                            entries: Vec::new(),
                            key: None,
                        }
                    });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let end_marker = end;
                let end = self.trimmed_end(self.byte(end));
                let (node, anchor) = match self.stack.pop() {
                    Some(Frame::Seq {
                        start,
                        anchor,
                        items,
                    }) => (
                        YamlNode {
                            span: start..end.max(start),
                            value: YamlValue::Seq(items),
                        },
                        anchor,
                    ),
                    Some(Frame::Map {
                        start,
                        anchor,
                        entries,
                        ..
                    }) => (
                        YamlNode {
                            span: start..end.max(start),
                            value: YamlValue::Map(apply_merges(entries)),
                        },
                        anchor,
                    ),
                    None => return Ok(()),
                };
                let size = if anchor > 0 && self.keep_anchors {
                    subtree_size(&node)
                } else {
                    0
                };
                if size > 0 && !self.count_copies(size, end_marker) {
                    return Ok(());
                }
                self.finish(node, anchor, size);
            }
            Event::DocumentStart(_)
            | Event::DocumentEnd
            | Event::StreamStart
            | Event::StreamEnd
            | Event::Nothing => {}
        }
        Ok(())
    }

    /// Ends a document of an unread kind at `end`: its top mapping, as far as its `kind`,
    /// is the document, so that it still names its kind and spans its lines.
    fn end_unread(&mut self, end: Marker) {
        self.doc = Doc::Built;
        if let Some(Frame::Map { start, entries, .. }) = self.stack.pop() {
            let end = self.trimmed_end(self.byte(end)).max(start);
            self.docs.push(YamlDoc {
                root: YamlNode {
                    span: start..end,
                    value: YamlValue::Map(entries),
                },
            });
        }
        self.stack.clear();
    }

    /// Block collections end at the next token; pull the end back over trailing blanks.
    fn trimmed_end(&self, end: usize) -> usize {
        let text = self.file.text().as_bytes();
        let mut e = end.min(text.len());
        while e > 0 && text[e - 1].is_ascii_whitespace() {
            e -= 1;
        }
        e
    }

    fn finish(&mut self, node: YamlNode, anchor: usize, size: usize) {
        if anchor > 0 && self.keep_anchors {
            self.anchors.insert(anchor, (node.clone(), size.max(1)));
        }
        if let [Frame::Map {
            key: Some(k),
            entries,
            ..
        }] = self.stack.as_slice()
            && k.as_str() == Some("kind")
            && let Some(kind) = node.as_str()
            // The group of an `apiVersion` written before the `kind`: `""` for core `v1`.
            && let Some(api) = entries
                .iter()
                .rev()
                .find(|(k, _)| k.as_str() == Some("apiVersion"))
                .and_then(|(_, v)| v.as_str())
        {
            let group = api.rsplit_once('/').map_or("", |(g, _)| g);
            let unread = |u: &String| match u.rsplit_once('/') {
                Some((g, k)) => g == group && k == kind,
                None => group.is_empty() && u == kind,
            };
            if self.unread_kinds.iter().any(unread) {
                self.doc = Doc::Unread;
            }
        }
        match self.stack.last_mut() {
            None => {
                if !node.is_null() {
                    self.docs.push(YamlDoc { root: node });
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
    }
}

fn subtree_size(node: &YamlNode) -> usize {
    let mut n = 0;
    let mut todo = vec![node];
    while let Some(node) = todo.pop() {
        n += 1;
        match &node.value {
            YamlValue::Scalar(_) => {}
            YamlValue::Seq(items) => todo.extend(items),
            YamlValue::Map(entries) => todo.extend(entries.iter().flat_map(|(k, v)| [k, v])),
        }
    }
    n
}

/// Applies `<<` merge keys: merged entries fill in keys the mapping does not set itself;
/// with a list of mappings, earlier ones win.
fn apply_merges(entries: Vec<(YamlNode, YamlNode)>) -> Vec<(YamlNode, YamlNode)> {
    let is_merge =
        |k: &YamlNode| matches!(&k.value, YamlValue::Scalar(s) if s.plain && s.text == "<<");
    if !entries.iter().any(|(k, _)| is_merge(k)) {
        return entries;
    }
    let (merges, mut own): (Vec<_>, Vec<_>) = entries.into_iter().partition(|(k, _)| is_merge(k));
    // Keys already set, looked up once per merged key (a linear search per key made a
    // merge of 100k keys quadratic).
    let mut set: std::collections::HashSet<Option<String>> = own
        .iter()
        .map(|(k, _)| k.as_str().map(str::to_string))
        .collect();
    for (_, value) in merges {
        let sources: Vec<YamlNode> = match value.value {
            YamlValue::Map(_) => vec![value],
            YamlValue::Seq(items) => items,
            YamlValue::Scalar(_) => Vec::new(),
        };
        for source in sources {
            if let YamlValue::Map(src) = source.value {
                for (k, v) in src {
                    if set.insert(k.as_str().map(str::to_string)) {
                        own.push((k, v));
                    }
                }
            }
        }
    }
    own
}
