//! `gpulint inspect` output: the [`View`] as JSON, or as an indented tree for people.
//!
//! The tree is drawn from the JSON of each capacity, workload and problem, one at a time
//! (memory stays that of one item, whatever the inventory's size), so it shows exactly
//! the fields the JSON has, in its order. It reads like YAML: `key: value`, lists as `-`
//! items, small objects and lists of words in flow style (`{count: 8, …}`, `[a, b]`).
//! A value's position follows it in parentheses; a value that was not written reads
//! `not written`; an unknown one reads `unknown`, with where it was written and why.
//! Every text passes through [`escape`], so nothing read from a file reaches the terminal
//! raw, and the indentation is ASCII.

use std::fmt::{self, Write as _};

use serde::Serialize;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::escape::escape;
use super::plural;
use gpulint_inventory::View;

pub struct Style {
    pub color: bool,
}

/// The view as JSON: pretty, with the text escaped as every JSON report does.
pub fn json(view: &View) -> String {
    let mut s = super::escape::json(serde_json::to_string_pretty(view).expect("plain data"));
    s.push('\n');
    s
}

/// The view as a tree, then one line that counts what it holds in how many `files`.
pub fn human(view: &View, files: usize, style: &Style) -> String {
    let mut t = Tree {
        out: String::new(),
        paint: Paint(style.color),
    };
    t.section("capacity", &view.capacity);
    t.section("workloads", &view.workloads);
    t.section("problems", &view.problems);
    let _ = writeln!(
        t.out,
        "\n{}, {} and {} in {}.",
        plural(view.capacity.len(), "capacity resource"),
        plural(view.workloads.len(), "workload"),
        plural(view.problems.len(), "problem"),
        plural(files, "file")
    );
    t.out
}

/// A JSON value with its object keys in document order (serde_json's own map sorts them
/// unless a crate-wide feature says otherwise).
#[derive(Debug, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    /// A number as text.
    Num(String),
    Str(String),
    List(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl Node {
    /// One item of the view, through its JSON.
    fn of(item: &impl Serialize) -> Result<Node, String> {
        let text = serde_json::to_string(item).map_err(|e| e.to_string())?;
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, Node::List(_) | Node::Map(_))
    }

    /// A model value: an object with a `state`.
    fn is_field(&self) -> bool {
        self.get("state").is_some()
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Node, E> {
        Ok(Node::Bool(b))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Node, E> {
        Ok(Node::Num(n.to_string()))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Node, E> {
        Ok(Node::Num(n.to_string()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Node, E> {
        Ok(Node::Num(n.to_string()))
    }

    fn visit_str<E>(self, s: &str) -> Result<Node, E> {
        Ok(Node::Str(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Node, E> {
        Ok(Node::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Node::Map(entries))
    }
}

/// The keys of a position, shown after what they locate rather than as entries.
const POSITION: [&str; 3] = ["file", "line", "column"];

/// `file:line:column` of an object that has them.
fn position(node: &Node) -> Option<String> {
    let [file, line, column] = POSITION.map(|k| node.get(k));
    match (file?, line?, column?) {
        (Node::Str(f), Node::Num(l), Node::Num(c)) => Some(format!("{}:{l}:{c}", escape(f))),
        _ => None,
    }
}

/// The entries of an object that are not its position.
fn entries(node: &Node) -> impl Iterator<Item = &(String, Node)> {
    let all: &[(String, Node)] = match node {
        Node::Map(e) => e,
        _ => &[],
    };
    all.iter().filter(|(k, _)| !POSITION.contains(&k.as_str()))
}

/// A value that may share a line with others: written, and a word or a list. (A `not
/// written` among them would read as one of the words.)
fn plain(node: &Node) -> bool {
    match node {
        Node::Null => false,
        Node::List(_) => true,
        _ => node.is_scalar(),
    }
}

/// ANSI colour, or none.
#[derive(Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    fn warn(self, text: &str) -> String {
        self.wrap("33", text)
    }
}

struct Tree {
    out: String,
    paint: Paint,
}

impl Tree {
    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{:indent$}{text}", "");
    }

    /// ` (file:line:col)`, or nothing.
    fn at(&self, node: &Node) -> String {
        position(node).map_or_else(String::new, |p| {
            format!(" {}", self.paint.dim(&format!("({p})")))
        })
    }

    fn section<T: Serialize>(&mut self, name: &str, items: &[T]) {
        if items.is_empty() {
            self.line(0, &format!("{name}: none"));
            return;
        }
        self.line(0, &format!("{name}:"));
        for item in items {
            match Node::of(item) {
                Ok(node) => self.item(2, &node, true),
                Err(e) => self.line(2, &format!("- (could not be shown: {})", escape(&e))),
            }
        }
    }

    /// Text for a value that fits on its line, or `None`.
    fn inline(&self, node: &Node) -> Option<String> {
        Some(match node {
            Node::Null => self.paint.dim("not written"),
            Node::Bool(b) => b.to_string(),
            Node::Num(n) => n.clone(),
            Node::Str(s) => escape(s).into_owned(),
            Node::List(items) if items.iter().all(Node::is_scalar) => {
                let words: Vec<String> = items.iter().filter_map(|i| self.inline(i)).collect();
                format!("[{}]", words.join(", "))
            }
            Node::Map(_) if !node.is_field() && position(node).is_none() => {
                let mut parts = Vec::new();
                for (k, v) in entries(node) {
                    if !plain(v) {
                        return None;
                    }
                    parts.push(format!("{}: {}", escape(k), self.inline(v)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            _ => return None,
        })
    }

    /// `key: value`, with what belongs under it.
    fn entry(&mut self, indent: usize, key: &str, node: &Node) {
        let key = escape(key);
        if node.is_field() {
            return self.field(indent, &key, node);
        }
        match node {
            Node::List(items) if items.is_empty() => self.line(indent, &format!("{key}: none")),
            Node::List(items) if self.inline(node).is_none() => {
                self.line(indent, &format!("{key}:"));
                for item in items {
                    self.item(indent + 2, item, false);
                }
            }
            Node::Map(_) if self.inline(node).is_none() => {
                self.line(indent, &format!("{key}:{}", self.at(node)));
                for (k, v) in entries(node) {
                    self.entry(indent + 2, k, v);
                }
            }
            _ => {
                let text = self.inline(node).unwrap_or_default();
                self.line(indent, &format!("{key}: {text}"));
            }
        }
    }

    /// A model value: known with its position, or unknown with its position and why.
    fn field(&mut self, indent: usize, key: &str, node: &Node) {
        let at = self.at(node);
        if node.get("state").and_then(Node::str) == Some("unknown") {
            let why = node.get("reason").and_then(Node::str).unwrap_or_default();
            let unknown = self.paint.warn("unknown");
            self.line(indent, &format!("{key}: {unknown}{at}: {}", escape(why)));
            return;
        }
        let value = node.get("value").unwrap_or(&Node::Null);
        match self.inline(value) {
            Some(text) => self.line(indent, &format!("{key}: {text}{at}")),
            None => {
                self.line(indent, &format!("{key}:{at}"));
                self.block(indent + 2, value);
            }
        }
        // What travels with the value (a role's evidence).
        for (k, v) in entries(node).filter(|(k, _)| !matches!(k.as_str(), "state" | "value")) {
            self.entry(indent + 2, k, v);
        }
    }

    fn block(&mut self, indent: usize, node: &Node) {
        match node {
            Node::List(items) => {
                for item in items {
                    self.item(indent, item, false);
                }
            }
            Node::Map(_) => {
                for (k, v) in entries(node) {
                    self.entry(indent, k, v);
                }
            }
            _ => {
                let text = self.inline(node).unwrap_or_default();
                self.line(indent, &text);
            }
        }
    }

    /// A list item: `- ` and its first entry, its position, then the rest beneath. An
    /// object of plain values is one line. `title` makes the first value bold (the
    /// subject of a capacity or workload).
    fn item(&mut self, indent: usize, node: &Node, title: bool) {
        let at = self.at(node);
        let Node::Map(_) = node else {
            let text = self.inline(node).unwrap_or_default();
            return self.line(indent, &format!("- {text}"));
        };
        let plain: Option<Vec<String>> = entries(node)
            .map(|(k, v)| {
                plain(v)
                    .then(|| Some(format!("{}: {}", escape(k), self.inline(v)?)))
                    .flatten()
            })
            .collect();
        if let (Some(parts), false) = (plain, title) {
            return self.line(indent, &format!("- {}{at}", parts.join(", ")));
        }
        let mut rest = entries(node);
        let Some((k, v)) = rest.next() else {
            return self.line(indent, &format!("- {{}}{at}"));
        };
        match self.inline(v).filter(|_| !v.is_field()) {
            Some(text) => {
                let text = if title { self.paint.bold(&text) } else { text };
                self.line(indent, &format!("- {}: {text}{at}", escape(k)));
            }
            None => {
                self.line(indent, &format!("-{at}"));
                self.entry(indent + 2, k, v);
            }
        }
        for (k, v) in rest {
            self.entry(indent + 2, k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(json: &str, color: bool) -> String {
        let node: Node = serde_json::from_str(json).unwrap();
        let mut t = Tree {
            out: String::new(),
            paint: Paint(color),
        };
        t.item(0, &node, true);
        t.out
    }

    #[test]
    fn keys_keep_their_order_and_positions_follow_values() {
        let out = tree(
            r#"{"subject": "aws_instance.a", "file": "a.tf", "line": 1, "column": 1,
                "market": {"state": "known", "value": "spot", "file": "a.tf", "line": 3, "column": 5},
                "zones": null,
                "labels": [{"key": "k", "value": "v", "file": "a.tf", "line": 4, "column": 3}]}"#,
            false,
        );
        assert_eq!(
            out,
            "- subject: aws_instance.a (a.tf:1:1)\n  market: spot (a.tf:3:5)\n  \
             zones: not written\n  labels:\n    - key: k, value: v (a.tf:4:3)\n"
        );
    }

    #[test]
    fn an_unknown_says_where_and_why() {
        let out = tree(
            r#"{"subject": "x", "gpus": {"state": "unknown", "file": "p.yaml", "line": 9,
                "column": 27, "reason": "not evaluable"}}"#,
            false,
        );
        assert_eq!(
            out,
            "- subject: x\n  gpus: unknown (p.yaml:9:27): not evaluable\n"
        );
    }

    #[test]
    fn text_from_files_is_escaped_and_colour_is_opt_in() {
        let out = tree(r#"{"subject": "evil\u001b[2J\nforged: line"}"#, false);
        assert_eq!(out, "- subject: evil\\u{1b}[2J\\nforged: line\n");
        let coloured = tree(r#"{"subject": "a", "z": null}"#, true);
        assert!(coloured.contains("\x1b[1ma\x1b[0m"), "{coloured}");
        assert!(coloured.contains("\x1b[2mnot written\x1b[0m"), "{coloured}");
    }

    #[test]
    fn odd_shapes_never_panic() {
        for json in [
            "[]",
            "{}",
            "null",
            r#"{"state": "known"}"#,
            r#"{"a": {"state": "unknown"}}"#,
            r#"{"a": [[1, [2]], {"b": {"c": {}}}]}"#,
            r#"{"file": 3, "line": "x", "column": null}"#,
        ] {
            tree(json, false);
        }
    }
}
