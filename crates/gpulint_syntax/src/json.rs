//! Terraform's JSON forms: `.tf.json` and `.tfvars.json` (the JSON syntax of a
//! configuration) and plan JSON (`terraform show -json plan.out`).
//!
//! Each is read with a small JSON parser that keeps byte spans, then written out as HCL
//! text that hcl-edit parses, so one Terraform front end serves every form. A [`Remap`]
//! turns offsets in the generated text back into offsets of the JSON, which is what the
//! user sees.

use std::fmt::Write as _;
use std::ops::Range;

use super::SyntaxError;

/// A JSON value with the byte span of its text.
#[derive(Debug)]
pub struct Node {
    pub v: J,
    pub span: Range<usize>,
}

#[derive(Debug)]
pub enum J {
    Null,
    Bool(bool),
    /// The number as written.
    Num(String),
    Str(String),
    Arr(Vec<Node>),
    /// Entries in order; keys keep their spans.
    Obj(Vec<(Node, Node)>),
    /// An array or object nested deeper than `MAX_DEPTH`: skipped over, not built (HCL
    /// could not hold it either), and read as unknown.
    Deep,
}

impl Node {
    fn get(&self, key: &str) -> Option<&Node> {
        match &self.v {
            J::Obj(entries) => entries
                .iter()
                .find(|(k, _)| matches!(&k.v, J::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> Option<&str> {
        match &self.v {
            J::Str(s) => Some(s),
            _ => None,
        }
    }

    fn entries(&self) -> &[(Node, Node)] {
        match &self.v {
            J::Obj(e) => e,
            _ => &[],
        }
    }

    fn items(&self) -> &[Node] {
        match &self.v {
            J::Arr(a) => a,
            _ => &[],
        }
    }
}

const MAX_DEPTH: usize = 128;

/// Parses JSON text. Errors carry the byte offset of the problem.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.err("unexpected text after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn err(&self, msg: &str) -> SyntaxError {
        SyntaxError {
            offset: self.i.min(self.s.len()),
            message: format!("invalid JSON: {msg}"),
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        self.ws();
        let start = self.i;
        if depth > MAX_DEPTH && matches!(self.s.get(self.i), Some(b'[' | b'{')) {
            self.skip_nested()?;
            return Ok(Node {
                v: J::Deep,
                span: start..self.i,
            });
        }
        let v = match self.s.get(self.i) {
            None => return Err(self.err("unexpected end of input")),
            Some(b'{') => {
                self.i += 1;
                let mut entries = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        if self.s.get(self.i) != Some(&b'"') {
                            return Err(self.err("expected a string key"));
                        }
                        let k = self.value(depth + 1)?;
                        if !self.eat(b':') {
                            return Err(self.err("expected `:`"));
                        }
                        let v = self.value(depth + 1)?;
                        entries.push((k, v));
                        if self.eat(b',') {
                            continue;
                        }
                        if self.eat(b'}') {
                            break;
                        }
                        return Err(self.err("expected `,` or `}`"));
                    }
                }
                J::Obj(entries)
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b',') {
                            continue;
                        }
                        if self.eat(b']') {
                            break;
                        }
                        return Err(self.err("expected `,` or `]`"));
                    }
                }
                J::Arr(items)
            }
            Some(b'"') => J::Str(self.string()?),
            Some(b't') => self.word("true", J::Bool(true))?,
            Some(b'f') => self.word("false", J::Bool(false))?,
            Some(b'n') => self.word("null", J::Null)?,
            Some(b'-' | b'0'..=b'9') => {
                while self.i < self.s.len()
                    && matches!(
                        self.s[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                let n = &self.text[start..self.i];
                if n.parse::<f64>().is_err() {
                    self.i = start;
                    return Err(self.err("not a number"));
                }
                J::Num(n.to_string())
            }
            Some(_) => return Err(self.err("expected a value")),
        };
        Ok(Node {
            v,
            span: start..self.i,
        })
    }

    /// Moves past the array or object at `i` without building it, in one loop however
    /// deep it nests: brackets are matched, strings skipped.
    fn skip_nested(&mut self) -> Result<(), SyntaxError> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err(self.err("unexpected end of input")),
                Some(b'"') => {
                    self.string()?;
                    continue;
                }
                Some(&c @ (b'[' | b'{')) => open.push(if c == b'[' { b']' } else { b'}' }),
                Some(&c @ (b']' | b'}')) => {
                    if open.pop() != Some(c) {
                        return Err(self.err("unmatched bracket"));
                    }
                    if open.is_empty() {
                        self.i += 1;
                        return Ok(());
                    }
                }
                Some(_) => {}
            }
            self.i += 1;
        }
    }

    fn word(&mut self, w: &str, v: J) -> Result<J, SyntaxError> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.err("expected a value"))
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let run = self.i;
            while self.i < self.s.len() && !matches!(self.s[self.i], b'"' | b'\\' | 0..=0x1f) {
                self.i += 1;
            }
            out.push_str(&self.text[run..self.i]);
            match self.s.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = match self.s.get(self.i) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.s[self.i + 1..].starts_with(b"\\u")
                            {
                                self.i += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.err("invalid escape in a string")),
                    };
                    out.push(c);
                    self.i += 1;
                }
                Some(_) => return Err(self.err("control character in a string")),
                None => return Err(self.err("unterminated string")),
            }
        }
    }

    /// Reads `XXXX` after `\u`, leaving `i` on its last digit.
    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self
            .text
            .get(self.i + 1..self.i + 5)
            .ok_or_else(|| self.err("short \\u escape"))?;
        let v = u32::from_str_radix(digits, 16).map_err(|_| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(v)
    }
}

/// Offsets in generated HCL text to offsets in the JSON it came from: pairs of
/// `(generated, json)` at the start and end of every value written.
#[derive(Debug, Default)]
pub struct Remap {
    anchors: Vec<(usize, usize)>,
}

impl Remap {
    pub fn map(&self, r: Range<usize>) -> Range<usize> {
        let start = self.point(r.start);
        let end = self.point(r.end).max(start);
        start..end
    }

    fn point(&self, x: usize) -> usize {
        let i = self.anchors.partition_point(|&(g, _)| g <= x);
        if i == 0 {
            return 0;
        }
        let (g, j) = self.anchors[i - 1];
        // Inside a value, offsets move with the generated text, up to the next anchor.
        let bound = self
            .anchors
            .get(i)
            .map_or(usize::MAX, |&(_, next)| next.max(j));
        (j + (x - g)).min(bound)
    }
}

/// HCL text under construction, with its anchors.
#[derive(Default)]
struct Gen {
    out: String,
    remap: Remap,
    /// Blocks and collections open around the text being written: hcl-edit reads at most
    /// [`HCL_NESTING`] of them.
    level: usize,
}

/// Nesting that the generated HCL stays within (hcl-edit's cap on blocks and expressions
/// together is 64). A deeper JSON value, valid for Terraform, is written as [`UNKNOWN`].
const HCL_NESTING: usize = 60;

/// What a JSON value that HCL cannot hold (nested past [`HCL_NESTING`], or a number past
/// `f64`'s range such as `1e400`) is written as: a reference to a variable no file
/// declares, which evaluates as unknown, so the rest of the file is still read.
const UNKNOWN: &str = "var.gpulint_unreadable_json_value";

/// Keys of a resource body in `.tf.json` that hold maps, not nested blocks.
const MAP_ATTRIBUTES: [&str; 12] = [
    "tags",
    "tags_all",
    "labels",
    "node_labels",
    "resource_labels",
    "metadata",
    "dimensions",
    "annotations",
    "node_selector",
    "environment",
    "variables",
    "parameters",
];

/// Meta-arguments and blocks gpulint does not read.
const SKIPPED_KEYS: [&str; 6] = [
    "//",
    "depends_on",
    "lifecycle",
    "provisioner",
    "connection",
    "provider",
];

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl Gen {
    fn mark(&mut self, json: usize) {
        self.remap.anchors.push((self.out.len(), json));
    }

    /// A quoted HCL string. `literal` escapes `${` and `%{`, which are templates only in
    /// configuration JSON, never in plan values or variable defaults.
    fn string(&mut self, s: &str, literal: bool) {
        self.out.push('"');
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                // A template's `${ }` or `%{ }` is HCL code, copied as it is: its strings
                // are quoted with bare `"` (`"${lookup(var.m, \"k\", \"d\")}"` in JSON).
                '$' | '%' if !literal && chars.peek() == Some(&c) => {
                    self.out.push(c);
                    self.out.push(chars.next().unwrap_or(c));
                }
                '$' | '%' if !literal && chars.peek() == Some(&'{') => {
                    self.out.push(c);
                    self.template_code(&mut chars);
                }
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '$' | '%' if literal && chars.peek() == Some(&'{') => {
                    self.out.push(c);
                    self.out.push(c);
                }
                c if c.is_control() => {
                    let _ = write!(self.out, "\\u{:04x}", u32::from(c));
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// The code of a template from its opening `{` through the `}` that closes it, with
    /// the strings inside (and their own templates). Line breaks in code are spaces;
    /// in a string they are escapes, as in [`Gen::string`].
    fn template_code(&mut self, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
        /// Where the copy is.
        enum In {
            Code(usize),
            Str,
        }
        let mut stack = vec![In::Code(0)];
        while let Some(top) = stack.last_mut() {
            let Some(c) = chars.next() else { return };
            match (top, c) {
                (In::Code(depth), '{') => {
                    *depth += 1;
                    self.out.push(c);
                }
                (In::Code(depth), '}') => {
                    *depth = depth.saturating_sub(1);
                    self.out.push(c);
                    if *depth == 0 {
                        stack.pop();
                    }
                }
                (In::Code(_), '"') => {
                    stack.push(In::Str);
                    self.out.push(c);
                }
                (In::Code(_), c) if c.is_control() => self.out.push(' '),
                (In::Str, '"') => {
                    stack.pop();
                    self.out.push(c);
                }
                (In::Str, '\\') => {
                    self.out.push(c);
                    if let Some(escaped) = chars.next() {
                        self.out.push(escaped);
                    }
                }
                (In::Str, '$' | '%') if chars.peek() == Some(&'{') => {
                    self.out.push(c);
                    stack.push(In::Code(0));
                }
                (In::Str, '\n') => self.out.push_str("\\n"),
                (In::Str, c) if c.is_control() => {
                    let _ = write!(self.out, "\\u{:04x}", u32::from(c));
                }
                (_, c) => self.out.push(c),
            }
        }
    }

    fn expr(&mut self, n: &Node, literal: bool) {
        self.mark(n.span.start);
        match &n.v {
            J::Null => self.out.push_str("null"),
            J::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            // hcl-edit reads numbers as f64 and rejects one that overflows it.
            J::Num(x) if x.parse::<f64>().is_ok_and(f64::is_finite) => self.out.push_str(x),
            J::Num(_) | J::Deep => self.out.push_str(UNKNOWN),
            J::Arr(_) | J::Obj(_) if self.level >= HCL_NESTING => self.out.push_str(UNKNOWN),
            J::Str(s) => self.string(s, literal),
            J::Arr(items) => {
                self.level += 1;
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(item, literal);
                }
                self.out.push(']');
                self.level -= 1;
            }
            J::Obj(entries) => {
                self.level += 1;
                self.out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.mark(k.span.start);
                    self.string(k.str().unwrap_or_default(), true);
                    self.out.push_str(" = ");
                    self.expr(v, literal);
                }
                self.out.push('}');
                self.level -= 1;
            }
        }
        self.mark(n.span.end);
    }

    fn attribute(&mut self, key: &Node, value: &Node, literal: bool) {
        self.mark(key.span.start);
        self.out.push_str(key.str().unwrap_or_default());
        self.out.push_str(" = ");
        self.expr(value, literal);
        self.out.push('\n');
    }

    /// `ident "label"… {`, pointing at `at` in the JSON.
    fn open(&mut self, ident: &str, labels: &[&str], at: &Range<usize>) {
        self.mark(at.start);
        self.out.push_str(ident);
        for l in labels {
            self.out.push(' ');
            self.string(l, true);
        }
        self.mark(at.end);
        self.out.push_str(" {\n");
        self.level += 1;
    }

    fn close(&mut self) {
        self.out.push_str("}\n");
        self.level -= 1;
    }

    /// A resource body in configuration JSON: objects and lists of objects are nested
    /// blocks, except for the keys that hold maps.
    fn config_body(&mut self, body: &Node, depth: usize) {
        for (k, v) in body.entries() {
            let Some(key) = k.str().filter(|k| is_ident(k) && !SKIPPED_KEYS.contains(k)) else {
                continue;
            };
            let as_block = depth < 32
                && !MAP_ATTRIBUTES.contains(&key)
                && !matches!(key, "count" | "for_each");
            match &v.v {
                J::Obj(entries) if key == "dynamic" => {
                    for (name, spec) in entries {
                        self.dynamic(name, spec, depth);
                    }
                }
                J::Obj(entries)
                    if as_block && entries.iter().all(|(k, _)| k.str().is_some_and(is_ident)) =>
                {
                    self.open(key, &[], &k.span);
                    self.config_body(v, depth + 1);
                    self.close();
                }
                J::Arr(items)
                    if as_block
                        && !items.is_empty()
                        && items.iter().all(|i| matches!(i.v, J::Obj(_))) =>
                {
                    for item in items {
                        self.open(key, &[], &item.span);
                        self.config_body(item, depth + 1);
                        self.close();
                    }
                }
                _ => self.attribute(k, v, false),
            }
        }
    }

    fn dynamic(&mut self, name: &Node, spec: &Node, depth: usize) {
        let Some(label) = name.str() else { return };
        self.open("dynamic", &[label], &name.span);
        if let Some(each) = spec.get("for_each") {
            self.mark(each.span.start);
            self.out.push_str("for_each = ");
            self.expr(each, false);
            self.out.push('\n');
        }
        if let Some(it) = spec
            .get("iterator")
            .and_then(Node::str)
            .filter(|s| is_ident(s))
        {
            let _ = writeln!(self.out, "iterator = {it}");
        }
        if let Some(content) = spec.get("content") {
            self.open("content", &[], &content.span);
            self.config_body(content, depth + 1);
            self.close();
        }
        self.close();
    }

    /// Plan values: lists of objects are nested blocks; objects are maps.
    fn plan_body(&mut self, values: &Node, depth: usize) {
        for (k, v) in values.entries() {
            let Some(key) = k.str().filter(|k| is_ident(k)) else {
                continue;
            };
            match &v.v {
                J::Null => {}
                J::Arr(items)
                    if depth < 32
                        && !items.is_empty()
                        && items.iter().all(|i| matches!(i.v, J::Obj(_))) =>
                {
                    for item in items {
                        self.open(key, &[], &item.span);
                        self.plan_body(item, depth + 1);
                        self.close();
                    }
                }
                _ => self.attribute(k, v, true),
            }
        }
    }

    fn plan_module(&mut self, module: &Node, depth: usize) {
        for r in module.get("resources").map(Node::items).unwrap_or_default() {
            if r.get("mode").and_then(Node::str) != Some("managed") {
                continue;
            }
            let (Some(rtype), Some(name), Some(address)) = (
                r.get("type").and_then(Node::str),
                r.get("name").and_then(Node::str),
                r.get("address"),
            ) else {
                continue;
            };
            let Some(addr) = address.str() else { continue };
            self.open("resource", &[rtype, name, addr], &address.span);
            if let Some(values) = r.get("values") {
                self.plan_body(values, 0);
            }
            self.close();
        }
        if depth < 64 {
            for child in module
                .get("child_modules")
                .map(Node::items)
                .unwrap_or_default()
            {
                self.plan_module(child, depth + 1);
            }
        }
    }
}

/// The entries of a file that must be one JSON object, else `problem` at its start.
fn object_root<'n>(root: &'n Node, problem: &str) -> Result<&'n [(Node, Node)], SyntaxError> {
    match &root.v {
        J::Obj(entries) => Ok(entries),
        _ => Err(SyntaxError {
            offset: root.span.start,
            message: problem.into(),
        }),
    }
}

/// Configuration JSON (`.tf.json`) as HCL: resources, variables, locals and module calls.
pub fn config_to_hcl(root: &Node) -> Result<(String, Remap), SyntaxError> {
    let mut g = Gen::default();
    for (k, v) in object_root(root, "a Terraform JSON file holds one JSON object")? {
        match k.str().unwrap_or_default() {
            "resource" => {
                for (rtype, names) in v.entries() {
                    for (name, body) in names.entries() {
                        let bodies: Vec<&Node> = match &body.v {
                            J::Arr(items) => items.iter().collect(),
                            _ => vec![body],
                        };
                        for b in bodies {
                            let labels = [
                                rtype.str().unwrap_or_default(),
                                name.str().unwrap_or_default(),
                            ];
                            g.open("resource", &labels, &name.span);
                            g.config_body(b, 0);
                            g.close();
                        }
                    }
                }
            }
            "variable" => {
                for (name, spec) in v.entries() {
                    let Some(label) = name.str() else { continue };
                    g.open("variable", &[label], &name.span);
                    if let Some(d) = spec.get("default") {
                        g.out.push_str("default = ");
                        // Variable defaults are literal values, never templates.
                        g.expr(d, true);
                        g.out.push('\n');
                    }
                    g.close();
                }
            }
            "locals" => {
                for block in v.items().iter().chain(std::iter::once(v)) {
                    if !matches!(block.v, J::Obj(_)) {
                        continue;
                    }
                    g.open("locals", &[], &k.span);
                    for (name, value) in block.entries() {
                        if name.str().is_some_and(is_ident) {
                            g.attribute(name, value, false);
                        }
                    }
                    g.close();
                }
            }
            "module" => {
                for (name, args) in v.entries() {
                    let Some(label) = name.str() else { continue };
                    g.open("module", &[label], &name.span);
                    for (key, value) in args.entries() {
                        if key
                            .str()
                            .is_some_and(|k| is_ident(k) && !SKIPPED_KEYS.contains(&k))
                        {
                            g.attribute(key, value, false);
                        }
                    }
                    g.close();
                }
            }
            _ => {}
        }
    }
    Ok((g.out, g.remap))
}

/// Variables JSON (`.tfvars.json`) as HCL: one attribute per variable.
pub fn vars_to_hcl(root: &Node) -> Result<(String, Remap), SyntaxError> {
    let mut g = Gen::default();
    for (k, v) in object_root(root, "a variables JSON file holds one JSON object")? {
        if k.str().is_some_and(is_ident) {
            g.attribute(k, v, true);
        }
    }
    Ok((g.out, g.remap))
}

/// Plan JSON as HCL: one `resource "TYPE" "NAME" "ADDRESS"` block per managed resource
/// instance of `planned_values`, child modules included. State JSON (`values`) reads the
/// same way.
pub fn plan_to_hcl(root: &Node) -> Result<(String, Remap), SyntaxError> {
    let Some(values) = root.get("planned_values").or_else(|| root.get("values")) else {
        return Err(SyntaxError {
            offset: root.span.start,
            message: "not a Terraform plan: no `planned_values` (write one with \
                      `terraform show -json plan.out > plan.json`)"
                .into(),
        });
    };
    let mut g = Gen::default();
    if let Some(m) = values.get("root_module") {
        g.plan_module(m, 0);
    }
    Ok((g.out, g.remap))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_hcl_cannot_hold_are_unknown_and_the_rest_is_read() {
        // A number past f64, a value nested 64 and 300 levels deep: all valid JSON.
        let mut deep = String::from("1");
        for _ in 0..300 {
            deep = format!("{{\"a\": [{deep}]}}");
        }
        let text = format!(
            r#"{{"resource": {{"aws_instance": {{"gpu": {{"instance_type": "p5.48xlarge", "x": 1e400, "y": {deep}}}}}}}}}"#
        );
        let (hcl, _) = config_to_hcl(&parse(&text).unwrap()).unwrap();
        let body = crate::hcl::parse(&hcl).unwrap();
        let block = body.get_blocks("resource").next().unwrap();
        assert_eq!(
            block
                .body
                .get_attribute("instance_type")
                .unwrap()
                .value
                .to_string()
                .trim(),
            "\"p5.48xlarge\""
        );
        assert_eq!(
            block
                .body
                .get_attribute("x")
                .unwrap()
                .value
                .to_string()
                .trim(),
            UNKNOWN
        );
        // Broken deep JSON is still an error.
        assert!(parse(&"[".repeat(500)).is_err());
        assert!(parse(&format!("{}{}", "[".repeat(500), "}".repeat(500))).is_err());
    }

    #[test]
    fn parses_with_spans() {
        let text = r#"{"a": [1, -2.5e3, true, null], "b\u00e9\ud83d\ude00": "x\"y"}"#;
        let n = parse(text).unwrap();
        let J::Obj(entries) = &n.v else { panic!() };
        assert_eq!(entries[1].0.str(), Some("bé😀"));
        assert_eq!(entries[1].1.str(), Some("x\"y"));
        let a = &entries[0].1;
        assert_eq!(&text[a.span.clone()], "[1, -2.5e3, true, null]");
    }

    #[test]
    fn errors_point_at_the_problem() {
        assert_eq!(parse("{\"a\": }").unwrap_err().offset, 6);
        assert_eq!(parse("[1, 2").unwrap_err().offset, 5);
        assert!(parse("{} x").is_err());
        assert!(parse(&"[".repeat(1000)).is_err());
        assert!(parse("\"\\u12\"").is_err());
    }

    #[test]
    fn config_json_becomes_hcl_with_spans_back() {
        let text = r#"{
  "variable": {"gpu": {"default": "p5.48xlarge"}},
  "resource": {"aws_instance": {"trainer": {
    "instance_type": "${var.gpu}",
    "tags": {"Name": "x"},
    "root_block_device": {"volume_size": 100}
  }}}
}"#;
        let (hcl, remap) = config_to_hcl(&parse(text).unwrap()).unwrap();
        let body = hcl_edit::parser::parse_body(&hcl).unwrap();
        let r = body.get_blocks("resource").next().unwrap();
        assert!(r.body.get_blocks("root_block_device").next().is_some());
        assert!(r.body.get_attribute("tags").is_some());
        let value = &r.body.get_attribute("instance_type").unwrap().value;
        let span = hcl_edit::Span::span(value).unwrap();
        assert_eq!(&text[remap.map(span)], "\"${var.gpu}\"");
    }

    #[test]
    fn template_code_keeps_its_quoted_strings() {
        // CDKTF writes function calls with string arguments inside `${ }`.
        let text = r#"{"locals": {"a": "${lookup(var.m, \"k\", \"p5.48xlarge\")}", "b": "x $${y} ${ {\"k\" = \"}\"}[\"k\"] } \"q\"\n", "c": "%{ if var.on }on%{ endif }"}}"#;
        let (hcl, _) = config_to_hcl(&parse(text).unwrap()).unwrap();
        let body = crate::hcl::parse(&hcl).unwrap_or_else(|e| panic!("{hcl}: {e:?}"));
        let locals = body.get_blocks("locals").next().unwrap();
        let a = locals.body.get_attribute("a").unwrap().value.to_string();
        assert_eq!(a.trim(), r#""${lookup(var.m, "k", "p5.48xlarge")}""#);
        let b = locals.body.get_attribute("b").unwrap().value.to_string();
        assert_eq!(b.trim(), r#""x $${y} ${ {"k" = "}"}["k"] } \"q\"\n""#);
        assert!(locals.body.get_attribute("c").is_some());
    }

    #[test]
    fn plan_values_are_literal() {
        let text = r#"{"planned_values": {"root_module": {"resources": [
  {"address": "aws_instance.x[0]", "mode": "managed", "type": "aws_instance", "name": "x",
   "values": {"user_data": "echo ${HOME}", "ebs_block_device": [{"volume_size": 1}]}}
]}}}"#;
        let (hcl, _) = plan_to_hcl(&parse(text).unwrap()).unwrap();
        assert!(
            hcl.contains(r#"resource "aws_instance" "x" "aws_instance.x[0]""#),
            "{hcl}"
        );
        assert!(hcl.contains("$${HOME}"), "{hcl}");
        assert!(hcl_edit::parser::parse_body(&hcl).is_ok());
    }
}
