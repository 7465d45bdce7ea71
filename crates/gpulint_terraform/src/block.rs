//! Blocks as lowerers read them: module calls, resource instances and their attributes,
//! with spans, evaluated on demand; references between resources and the shape of
//! interpolated strings.

use std::ops::Range;
use std::rc::Rc;

use gpulint_model::{Related, Span, Str, Value};
use gpulint_source::FileId;
use gpulint_source::limits::Limit;
use gpulint_syntax::json::Remap;
use hcl_edit::expr::{Expression, Object, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block as EditBlock, Body, Structure};
use hcl_edit::visit::{Visit, visit_expr};
use hcl_edit::{Ident, Span as _};

use super::{Key, TfFile, budget, in_file, instances_over};
use crate::eval::Scope;
use crate::eval::intern;
use crate::instances::key_value;

/// A `module "NAME"` call, once per instance.
pub struct Call<'a> {
    pub name: &'a str,
    pub key: Option<&'a Key>,
    /// The `source`, when it is a known string.
    pub source: Option<String>,
    /// `module.gpu["a"]`, with the caller's own chain before it.
    pub path: String,
    pub block: Block<'a>,
}

/// One instance of a `resource` block.
#[derive(Clone)]
pub struct Resource<'a> {
    pub rtype: &'a str,
    pub name: &'a str,
    pub key: Option<&'a Key>,
    /// The instance's address, for resources read from plan JSON.
    pub(crate) address: Option<&'a str>,
    pub(crate) prefix: &'a str,
    pub block: Block<'a>,
}

impl Resource<'_> {
    /// The instance's address: `aws_instance.trainer`, `aws_instance.gpu[0]`,
    /// `module.pools["a"].aws_eks_node_group.this`.
    pub fn subject(&self) -> String {
        if let Some(a) = self.address {
            return a.to_string();
        }
        let key = self.key.map(ToString::to_string).unwrap_or_default();
        format!("{}{}.{}{key}", self.prefix, self.rtype, self.name)
    }

    /// From `resource` to the last label: where findings about the whole resource point.
    pub fn header(&self) -> Span {
        self.block.header.clone()
    }
}

/// What a [`Block`] reads its attributes from.
#[derive(Clone)]
enum Src<'a> {
    /// A block body: a resource, a nested block, a `dynamic` block's content.
    Body(&'a Body),
    /// An object written literally: each entry evaluates with its own span.
    Object(&'a Object),
    /// An evaluated object (from a variable, a `merge`): every value has the block's span.
    Value(Rc<hcl::Map<String, hcl::Value>>),
}

/// A block to read attributes and nested blocks from, with the scope to evaluate them in.
/// It may also be an object standing for a block: a module input's node group, an
/// attribute of a `.tf.json` or plan file.
#[derive(Clone)]
pub struct Block<'a> {
    scope: Rc<Scope>,
    pub file: FileId,
    remap: Option<&'a Remap>,
    src: Src<'a>,
    pub header: Span,
    /// Where a key the block lacks is read from (a module's `*_defaults`).
    defaults: Option<Rc<Block<'a>>>,
    /// The comment written just above the block or object entry, as written.
    leading: Option<&'a str>,
}

/// The name of an object key: a bare name, or a literal string (`"gpu-pool" = …`).
pub fn key_name(key: &ObjectKey) -> Option<&str> {
    match key {
        ObjectKey::Ident(i) => Some(i.as_str()),
        ObjectKey::Expression(Expression::String(s)) => Some(s.as_str()),
        ObjectKey::Expression(Expression::Variable(v)) => Some(v.as_str()),
        ObjectKey::Expression(_) => None,
    }
}

impl<'a> Block<'a> {
    pub(crate) fn new(scope: Rc<Scope>, file: TfFile<'a>, block: &'a EditBlock) -> Self {
        let start = block.ident.span().map_or(0, |s| s.start);
        let end = block
            .labels
            .last()
            .and_then(hcl_edit::Span::span)
            .or_else(|| block.ident.span())
            .map_or(start, |s| s.end);
        let mut b = Block {
            scope,
            file: file.id,
            remap: file.remap,
            src: Src::Body(&block.body),
            header: Span::new(file.id, 0..0),
            defaults: None,
            leading: hcl_edit::Decorate::decor(block).prefix().map(|p| &**p),
        };
        b.header = b.span(start..end);
        b
    }

    /// The comment paragraph written just above the block (or the object entry it stands
    /// for), without its markers: `# GPU node group for LLM inference` gives
    /// `GPU node group for LLM inference`. A blank line ends the paragraph.
    pub fn comment(&self) -> Option<String> {
        let prefix = self.leading?;
        let mut lines: Vec<&str> = Vec::new();
        for line in prefix.lines().rev() {
            let t = line.trim();
            if t.is_empty() {
                if lines.is_empty() {
                    continue;
                }
                break;
            }
            let text = t
                .strip_prefix('#')
                .or_else(|| t.strip_prefix("//"))
                .or_else(|| t.strip_prefix("/*"))
                .unwrap_or(t);
            lines.push(text.trim_end_matches("*/").trim());
        }
        lines.reverse();
        let text = lines.join(" ");
        (!text.trim().is_empty()).then(|| text.trim().to_string())
    }

    /// A block standing for an object, under `header`.
    fn child(&self, src: Src<'a>, header: Span) -> Self {
        Block {
            scope: Rc::clone(&self.scope),
            file: self.file,
            remap: self.remap,
            src,
            header,
            defaults: None,
            leading: None,
        }
    }

    /// The same block, reading keys it lacks from `defaults`.
    #[must_use]
    pub fn with_defaults(mut self, defaults: Option<Block<'a>>) -> Self {
        self.defaults = defaults.map(Rc::new);
        self
    }

    /// The keys this block sets itself: a body's attributes, an object's entries.
    pub fn keys(&self) -> Vec<String> {
        match &self.src {
            Src::Body(body) => body
                .attributes()
                .map(|a| a.key.as_str().to_string())
                .collect(),
            Src::Object(o) => o
                .iter()
                .filter_map(|(k, _)| key_name(k).map(str::to_string))
                .collect(),
            Src::Value(m) => m.keys().cloned().collect(),
        }
    }

    /// A span in this block's file, from offsets into its parsed text.
    pub fn span(&self, range: Range<usize>) -> Span {
        Span::new(self.file, in_file(self.remap, range))
    }

    fn expr_span(&self, e: &Expression) -> Span {
        e.span()
            .map_or_else(|| self.header.clone(), |r| self.span(r))
    }

    /// The key of an object entry: a bare name, or an expression that evaluates to a
    /// string.
    fn object_key(&self, k: &ObjectKey) -> Option<String> {
        match k {
            ObjectKey::Ident(i) => Some(i.as_str().to_string()),
            ObjectKey::Expression(e) => match self.eval(e) {
                Value::Known(hcl::Value::String(s), _) => Some(s),
                _ => None,
            },
        }
    }

    /// Whether this block itself (not its defaults) sets `key`.
    fn has(&self, key: &str) -> bool {
        match &self.src {
            Src::Body(body) => body.iter().any(|s| match s {
                Structure::Attribute(a) => a.key.as_str() == key,
                Structure::Block(b) => {
                    b.ident.as_str() == key
                        || (b.ident.as_str() == "dynamic"
                            && b.labels.first().is_some_and(|l| l.as_str() == key))
                }
            }),
            Src::Object(o) => o.iter().any(|(k, _)| key_name(k) == Some(key)),
            Src::Value(m) => m.get(key).is_some_and(|v| !v.is_null()),
        }
    }

    /// The block that answers for `key`: this one, or its defaults.
    fn owner(&self, key: &str) -> Option<&Block<'a>> {
        if self.has(key) {
            return Some(self);
        }
        self.defaults.as_deref().and_then(|d| d.owner(key))
    }

    pub fn expr(&self, key: &str) -> Option<&'a Expression> {
        let owner = self.owner(key)?;
        match &owner.src {
            Src::Body(body) => body.get_attribute(key).map(|a| &a.value),
            Src::Object(o) => o
                .iter()
                .find(|(k, _)| key_name(k) == Some(key))
                .map(|(_, v)| v.expr()),
            Src::Value(_) => None,
        }
    }

    /// The descriptions of the variables this block's own arguments read, by variable name
    /// (`vm_size = var.gpu_vm_size` gives what `gpu_vm_size`'s `description` says), each
    /// text once, in the order the arguments are written.
    pub fn variable_descriptions(&self) -> Vec<(String, String)> {
        let Src::Body(body) = &self.src else {
            return Vec::new();
        };
        let mut out: Vec<(String, String)> = Vec::new();
        for attr in body.attributes() {
            for (root, name) in crate::instances::roots(&attr.value) {
                let Some((n, d)) = name
                    .filter(|_| root == "var")
                    .and_then(|n| Some((n.clone(), self.scope.description_of(&n)?)))
                else {
                    continue;
                };
                if !out.iter().any(|(_, x)| x == d) {
                    out.push((n, d.to_string()));
                }
            }
        }
        out
    }

    /// Whether `key` passes on, as written, a variable a user sets for this module
    /// (`create = var.create`, the variable at its default or set by a variable file):
    /// `Some(true)` when a variable file sets it. A called module reads what it is given
    /// there as a knob of its own, so a toggle it switches off is still read switched on.
    pub fn passed_knob(&self, key: &str) -> Option<bool> {
        let owner = self.owner(key)?;
        let name = crate::instances::bare_variable(owner.expr(key)?)?;
        owner
            .scope
            .is_user_knob(name)
            .then(|| owner.scope.is_set_in_files(name))
    }

    /// The span of an attribute's value.
    pub fn span_of(&self, key: &str) -> Option<Span> {
        let owner = self.owner(key)?;
        match &owner.src {
            Src::Value(_) => Some(owner.header.clone()),
            _ => owner.expr(key).map(|e| owner.expr_span(e)),
        }
    }

    fn eval(&self, expr: &Expression) -> Value<hcl::Value> {
        let span = self.expr_span(expr);
        let value = self.scope.eval(expr);
        if value.is_none() && budget::spent() {
            budget::record_spent(self.file, span.range());
        }
        match value {
            // `attr = null` means "not set" in Terraform.
            Some(hcl::Value::Null) => Value::Absent,
            Some(v) => Value::Known(v, span),
            None => Value::Unknown(span),
        }
    }

    /// An attribute's value, evaluated.
    pub fn value(&self, key: &str) -> Value<hcl::Value> {
        let Some(owner) = self.owner(key) else {
            return Value::Absent;
        };
        match &owner.src {
            Src::Value(m) => match m.get(key) {
                None | Some(hcl::Value::Null) => Value::Absent,
                Some(v) => Value::Known(v.clone(), owner.header.clone()),
            },
            _ => match owner.expr(key) {
                Some(e) => owner.eval(e),
                None => Value::Absent,
            },
        }
    }

    /// The text `key` holds, read through the encoding calls in `wrappers`
    /// (`base64encode(local.script)` gives the script): a start-up script as the machine
    /// runs it.
    pub fn text_through(&self, key: &str, wrappers: &[&str]) -> Value<String> {
        let Some(owner) = self.owner(key) else {
            return Value::Absent;
        };
        let mut e = owner.expr(key);
        let mut wrapped = false;
        while let Some(Expression::FuncCall(f)) = e {
            if !(f.name.namespace.is_empty() && wrappers.contains(&f.name.name.as_str())) {
                break;
            }
            e = f.args.iter().next();
            wrapped = true;
        }
        match (e, wrapped) {
            (Some(inner), true) => owner.eval(inner).and_then(scalar_string),
            _ => self.str(key),
        }
    }

    /// The string values a `templatefile(PATH, { … })` at `key` renders its script with,
    /// read through the calls in `wrappers`, each with where it is written (its value as
    /// evaluated: `vllm_args = var.vllm_args` gives what the variable holds). Values that
    /// are not strings, or do not evaluate, are left out.
    pub fn template_vars(&self, key: &str, wrappers: &[&str]) -> Vec<(String, String, Span)> {
        let Some(owner) = self.owner(key) else {
            return Vec::new();
        };
        let mut e = owner.expr(key);
        while let Some(Expression::FuncCall(f)) = e {
            if !f.name.namespace.is_empty() {
                break;
            }
            match f.name.name.as_str() {
                "templatefile" => {
                    let Some(Expression::Object(o)) = f.args.iter().nth(1) else {
                        break;
                    };
                    return o
                        .iter()
                        .filter_map(|(k, v)| {
                            let name = key_name(k)?;
                            let Value::Known(hcl::Value::String(text), span) = owner.eval(v.expr())
                            else {
                                return None;
                            };
                            Some((name.to_string(), text, span))
                        })
                        .collect();
                }
                name if wrappers.contains(&name) => e = f.args.iter().next(),
                _ => break,
            }
        }
        Vec::new()
    }

    pub fn str(&self, key: &str) -> Value<String> {
        self.value(key).and_then(scalar_string)
    }

    /// The string `key` would hold on the branch of its `cond ? a : b` that its condition
    /// does not take, when the condition reads only knobs a user sets (variables holding
    /// their default, constant locals): what a user who flips them gets. With the span of
    /// that branch and the condition as written.
    pub fn untaken_str(&self, key: &str) -> Option<(String, Span, String)> {
        let owner = self.owner(key)?;
        let e = owner.expr(key)?;
        let scope = &owner.scope;
        if let Some((other, condition)) = crate::instances::untaken(scope, e, |x| scope.eval(x)) {
            let hcl::Value::String(s) = scope.eval(other)? else {
                return None;
            };
            return Some((s, owner.expr_span(other), condition));
        }
        // Through a local written as the conditional: `instance_type = local.selected`.
        let local = crate::instances::bare_reference(e, "local")?;
        let c = scope.conditional(local)?;
        let (other, condition) = crate::instances::untaken(scope, &c.expr, |x| scope.eval(x))?;
        let Expression::Conditional(cond) = &c.expr else {
            return None;
        };
        let at = if std::ptr::eq(other, std::ptr::from_ref(&cond.true_expr)) {
            c.true_at.clone()
        } else {
            c.false_at.clone()
        };
        let hcl::Value::String(s) = scope.eval(other)? else {
            return None;
        };
        Some((s, at, condition))
    }

    pub fn u64(&self, key: &str) -> Value<u64> {
        self.value(key).and_then(|v| crate::eval::whole_number(&v))
    }

    /// Where the value of `key` was set: this attribute, then, when it is a variable, where
    /// that variable's value was set. `message` says what the attribute does with it.
    pub fn origins(&self, key: &str, message: &str) -> Vec<Related> {
        let Some(owner) = self.owner(key) else {
            return Vec::new();
        };
        let Some(e) = owner.expr(key) else {
            return Vec::new();
        };
        let mut out = vec![Related {
            span: owner.expr_span(e),
            message: intern(message),
        }];
        out.extend(
            owner
                .scope
                .origins_of(e)
                .into_iter()
                .flat_map(|o| o.iter().cloned()),
        );
        out
    }

    /// A lower bound of a whole number that does not evaluate but is written as
    /// `max(…)` with operands that do (`max(2, var.floor)` is at least 2), with the span
    /// of the call. `None` when the number evaluates, or no operand does.
    pub fn u64_at_least(&self, key: &str) -> Option<(u64, Span)> {
        if !self.u64(key).is_unknown() {
            return None;
        }
        let owner = self.owner(key)?;
        let e = owner.expr(key)?;
        Some((owner.scope.at_least(e)?, owner.expr_span(e)))
    }

    pub fn bool(&self, key: &str) -> Value<bool> {
        self.value(key).and_then(|v| match v {
            hcl::Value::Bool(b) => Some(b),
            hcl::Value::String(s) => s.parse().ok(),
            _ => None,
        })
    }

    /// A list of strings (`["a", "b"]`).
    pub fn string_list(&self, key: &str) -> Value<Vec<String>> {
        self.value(key).and_then(|v| match v {
            hcl::Value::Array(items) => items.into_iter().map(scalar_string).collect(),
            _ => None,
        })
    }

    /// A map of strings (`labels`, `tags`), each entry with the span of its value where
    /// the map is written literally. Entries that do not evaluate are left out; a map
    /// that does not evaluate at all gives nothing.
    pub fn string_map(&self, key: &str) -> Vec<(Str, Str, Span)> {
        let Some(owner) = self.owner(key) else {
            return Vec::new();
        };
        if let Some(Expression::Object(obj)) = owner.expr(key) {
            return obj
                .iter()
                .filter_map(|(k, v)| {
                    let key = owner.object_key(k)?;
                    match owner.eval(v.expr()) {
                        Value::Known(val, span) => {
                            Some((key.into(), scalar_string(val)?.into(), span))
                        }
                        _ => None,
                    }
                })
                .collect();
        }
        match owner.value(key) {
            Value::Known(hcl::Value::Object(map), span) => map
                .into_iter()
                .filter_map(|(k, v)| Some((k.into(), scalar_string(v)?.into(), span.clone())))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Nested blocks of one type. A `dynamic "name"` block is expanded when its
    /// `for_each` evaluates, and makes them unknown when it does not. An attribute of
    /// that name holding an object or a list of objects stands for blocks too (JSON
    /// syntax, plan values, module inputs).
    pub fn blocks(&self, name: &str) -> Value<Vec<Block<'a>>> {
        let Some(owner) = self.owner(name) else {
            return Value::Absent;
        };
        match &owner.src {
            Src::Body(body) => owner.body_blocks(body, name),
            Src::Object(_) => match owner.expr(name) {
                Some(e) => owner.blocks_from_expr(e),
                None => Value::Absent,
            },
            Src::Value(m) => match m.get(name) {
                Some(v) => owner.blocks_from_value(v.clone(), &owner.header),
                None => Value::Absent,
            },
        }
    }

    fn body_blocks(&self, body: &'a Body, name: &str) -> Value<Vec<Block<'a>>> {
        let mut found = Vec::new();
        let mut first: Option<Span> = None;
        for s in body {
            match s {
                Structure::Block(b) if b.ident.as_str() == name => {
                    let block = self.nested(b, &self.scope);
                    first.get_or_insert_with(|| block.header.clone());
                    found.push(block);
                }
                Structure::Block(b)
                    if b.ident.as_str() == "dynamic"
                        && b.labels.first().is_some_and(|l| l.as_str() == name) =>
                {
                    let header = self.nested(b, &self.scope).header;
                    first.get_or_insert_with(|| header.clone());
                    match self.dynamic(b, name, &header) {
                        Some(blocks) => found.extend(blocks),
                        None => return Value::Unknown(header),
                    }
                }
                Structure::Attribute(a) if a.key.as_str() == name => {
                    return self.blocks_from_expr(&a.value);
                }
                _ => {}
            }
        }
        match first {
            None => Value::Absent,
            Some(span) => Value::Known(found, span),
        }
    }

    fn nested(&self, b: &'a EditBlock, scope: &Rc<Scope>) -> Block<'a> {
        Block::new(
            Rc::clone(scope),
            TfFile {
                id: self.file,
                body: &b.body,
                remap: self.remap,
            },
            b,
        )
    }

    /// The blocks a `dynamic "name" { for_each, iterator, content }` makes; `None` when
    /// its `for_each` does not evaluate.
    fn dynamic(&self, b: &'a EditBlock, name: &str, header: &Span) -> Option<Vec<Block<'a>>> {
        let each = b.body.get_attribute("for_each")?;
        let content = b.body.get_blocks("content").next()?;
        let iterator = match b.body.get_attribute("iterator").map(|a| &a.value) {
            Some(Expression::Variable(v)) => v.as_str().to_string(),
            Some(_) => return None,
            None => name.to_string(),
        };
        let items: Vec<(hcl::Value, hcl::Value)> = match self.scope.eval(&each.value)? {
            hcl::Value::Object(m) => m
                .into_iter()
                .map(|(k, v)| (hcl::Value::String(k), v))
                .collect(),
            hcl::Value::Array(a) => a
                .into_iter()
                .enumerate()
                .map(|(i, v)| (hcl::Value::from(i), v))
                .collect(),
            _ => return None,
        };
        let max = budget::limit(Limit::Instances);
        if items.len() > max {
            instances_over(
                self.file,
                self.remap,
                &each.value,
                "`dynamic` block",
                items.len(),
                max,
            );
        }
        Some(
            items
                .into_iter()
                .take(max)
                .map(|(k, v)| {
                    let scope = self.scope.with(&iterator, key_value(k, v));
                    let mut block = self.nested(content, &scope);
                    block.header = header.clone();
                    block
                })
                .collect(),
        )
    }

    fn blocks_from_expr(&self, e: &'a Expression) -> Value<Vec<Block<'a>>> {
        let span = self.expr_span(e);
        match e {
            Expression::Object(o) => {
                Value::Known(vec![self.child(Src::Object(o), span.clone())], span)
            }
            Expression::Array(items)
                if items.iter().all(|i| matches!(i, Expression::Object(_))) =>
            {
                let blocks = items
                    .iter()
                    .filter_map(|i| match i {
                        Expression::Object(o) => {
                            Some(self.child(Src::Object(o), self.expr_span(i)))
                        }
                        _ => None,
                    })
                    .collect();
                Value::Known(blocks, span)
            }
            _ => match self.eval(e) {
                Value::Known(v, s) => self.blocks_from_value(v, &s),
                Value::Unknown(s) => Value::Unknown(s),
                Value::Absent => Value::Absent,
            },
        }
    }

    fn blocks_from_value(&self, v: hcl::Value, span: &Span) -> Value<Vec<Block<'a>>> {
        let one = |m| self.child(Src::Value(Rc::new(m)), span.clone());
        match v {
            hcl::Value::Null => Value::Absent,
            hcl::Value::Object(m) => Value::Known(vec![one(m)], span.clone()),
            hcl::Value::Array(items) => items
                .into_iter()
                .map(|i| match i {
                    hcl::Value::Object(m) => Some(one(m)),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map_or_else(
                    || Value::Unknown(span.clone()),
                    |b| Value::Known(b, span.clone()),
                ),
            _ => Value::Unknown(span.clone()),
        }
    }

    /// The first nested block of one type.
    pub fn block(&self, name: &str) -> Value<Block<'a>> {
        match self.blocks(name) {
            Value::Known(mut v, s) if !v.is_empty() => Value::Known(v.swap_remove(0), s),
            Value::Known(..) | Value::Absent => Value::Absent,
            Value::Unknown(s) => Value::Unknown(s),
        }
    }
    /// Node taints written under `key`: `taint { key value effect }` blocks, a list of
    /// such objects, or a map of them (the EKS module's `taints = { gpu = { … } }`).
    /// Taints that do not evaluate are left out.
    pub fn taints(&self, key: &str) -> Vec<gpulint_model::Taint> {
        let blocks: Vec<Block<'a>> = match self.entries(key) {
            Value::Known(entries, _) => entries.into_iter().map(|(_, b)| b).collect(),
            _ => self.blocks(key).known().cloned().unwrap_or_default(),
        };
        blocks
            .iter()
            .filter_map(|b| {
                let key = b.str("key").known()?.clone();
                let effect = b.str("effect").known()?.clone();
                let value = b.str("value").known().cloned();
                let span = b.span_of("key").unwrap_or_else(|| b.header.clone());
                Some(gpulint_model::Taint::new(key, value, &effect, span))
            })
            .collect()
    }

    /// The entries of the map or list `key` that only a toggle switched on adds
    /// (`merge(local.cpu, var.gpu ? local.gpu : {})`, `concat(var.pools, var.gpu ?
    /// [local.gpu] : [])`, through locals too), each with its map key (a list item: its
    /// index) and the first toggle it goes through: what a user who flips it gets beside
    /// [`Block::entries`] or [`Block::blocks`]. Empty when `key` goes through no toggle or
    /// its value as written is unknown.
    pub fn toggled_items(&self, key: &str) -> Vec<(String, Block<'a>, crate::Toggled)> {
        let Some(owner) = self.owner(key) else {
            return Vec::new();
        };
        let Some(e) = owner.expr(key) else {
            return Vec::new();
        };
        let at = |x: &Expression| owner.expr_span(x);
        let Some((on, scope, toggle)) = crate::enable::switched_on(&owner.scope, e, &at) else {
            return Vec::new();
        };
        let (Some(written), Some(on)) = (owner.scope.eval(e), scope.eval(&on)) else {
            return Vec::new();
        };
        let added: Vec<(String, hcl::Value)> = match (written, on) {
            // An entry that is there but off as written (`gpu = null`) is added too.
            (hcl::Value::Object(had), hcl::Value::Object(map)) => map
                .into_iter()
                .filter(|(k, _)| had.get(k).is_none_or(crate::enable::is_off))
                .collect(),
            (hcl::Value::Array(had), hcl::Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .filter(|(_, v)| !had.contains(v))
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            // `null` or `[]` as written, a map when on.
            (hcl::Value::Null, hcl::Value::Object(map)) => map.into_iter().collect(),
            _ => return Vec::new(),
        };
        let span = owner.expr_span(e);
        added
            .into_iter()
            .filter_map(|(k, v)| match v {
                hcl::Value::Object(m) => {
                    let b = owner.child(Src::Value(Rc::new(m)), span.clone());
                    Some((k, b, toggle.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The map `key` holds with its toggles switched on, when they add entries to it
    /// (`merge(local.cpu, var.gpu ? local.gpu : {})`): the value, the keys only the toggle
    /// adds, and the first toggle. What a module call passes when a user flips the knob.
    pub fn toggled_value(&self, key: &str) -> Option<(hcl::Value, Vec<String>, crate::Toggled)> {
        let owner = self.owner(key)?;
        let e = owner.expr(key)?;
        let at = |x: &Expression| owner.expr_span(x);
        let (on, scope, toggle) = crate::enable::switched_on(&owner.scope, e, &at)?;
        let (hcl::Value::Object(had), Some(hcl::Value::Object(all))) = (
            owner.scope.eval(e).unwrap_or(hcl::Value::Null),
            scope.eval(&on),
        ) else {
            return None;
        };
        let added: Vec<String> = all
            .iter()
            .filter(|(k, v)| {
                !crate::enable::is_off(v) && had.get(*k).is_none_or(crate::enable::is_off)
            })
            .map(|(k, _)| k.clone())
            .collect();
        (!added.is_empty()).then(|| (hcl::Value::Object(all), added, toggle))
    }

    /// A map of objects (`eks_managed_node_groups = { gpu = { … } }`): each entry as a
    /// block under its key, pointing at the key where the map is written literally.
    pub fn entries(&self, key: &str) -> Value<Vec<(String, Block<'a>)>> {
        let Some(owner) = self.owner(key) else {
            return Value::Absent;
        };
        if let Some(map @ Expression::Object(obj)) = owner.expr(key) {
            let span = owner.expr_span(map);
            let mut out = Vec::new();
            for (k, v) in obj {
                let Some(name) = owner.object_key(k) else {
                    return Value::Unknown(span);
                };
                let at = k.span().map_or_else(|| span.clone(), |r| owner.span(r));
                let mut block = match v.expr() {
                    Expression::Object(o) => owner.child(Src::Object(o), at),
                    other => match owner.eval(other) {
                        Value::Known(hcl::Value::Object(m), _) => {
                            owner.child(Src::Value(Rc::new(m)), at)
                        }
                        Value::Absent => continue,
                        _ => return Value::Unknown(at),
                    },
                };
                block.leading = hcl_edit::Decorate::decor(k).prefix().map(|p| &**p);
                out.push((name, block));
            }
            return Value::Known(out, span);
        }
        match owner.value(key) {
            Value::Known(hcl::Value::Object(map), span) => {
                let mut out = Vec::new();
                for (k, v) in map {
                    match v {
                        hcl::Value::Object(m) => {
                            out.push((k, owner.child(Src::Value(Rc::new(m)), span.clone())));
                        }
                        hcl::Value::Null => {}
                        _ => return Value::Unknown(span),
                    }
                }
                Value::Known(out, span)
            }
            Value::Known(_, span) | Value::Unknown(span) => Value::Unknown(span),
            Value::Absent => Value::Absent,
        }
    }
}

fn scalar_string(v: hcl::Value) -> Option<String> {
    match v {
        // An attribute of a partly known object that has no value, or text made from one.
        hcl::Value::String(s) if s.contains(crate::eval::UNKNOWN_TEXT) => None,
        hcl::Value::String(s) => Some(s),
        hcl::Value::Number(n) => Some(n.to_string()),
        hcl::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A reference from an expression to a resource: `aws_instance.trainer.id` gives
/// `("aws_instance", "trainer")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceRef {
    pub rtype: String,
    pub name: String,
    pub span: Range<usize>,
}

/// Every resource an expression refers to.
pub fn references(expr: &Expression) -> Vec<ResourceRef> {
    struct Collect(Vec<ResourceRef>);
    impl Visit for Collect {
        fn visit_traversal(&mut self, node: &hcl_edit::expr::Traversal) {
            if let (Expression::Variable(root), Some(first)) = (&node.expr, node.operators.first())
                && let TraversalOperator::GetAttr(name) = first.value()
                && !is_reserved_root(root.value())
            {
                self.0.push(ResourceRef {
                    rtype: root.value().to_string(),
                    name: name.value().to_string(),
                    span: node.span().unwrap_or(0..0),
                });
            }
            hcl_edit::visit::visit_traversal(self, node);
        }
    }
    let mut c = Collect(Vec::new());
    visit_expr(&mut c, expr);
    c.0
}

fn is_reserved_root(root: &Ident) -> bool {
    matches!(
        root.as_str(),
        "var" | "local" | "data" | "module" | "count" | "each" | "path" | "self" | "terraform"
    )
}

/// The shape of a string expression: literal text with every interpolation replaced by
/// [`HOLE`]. `None` for anything that is not a string or a template.
pub fn string_shape(expr: &Expression) -> Option<String> {
    use hcl_edit::template::Element;
    match expr {
        Expression::String(s) => Some(s.value().clone()),
        Expression::StringTemplate(t) => {
            let mut out = String::new();
            for el in t {
                match el {
                    Element::Literal(l) => out.push_str(l.value()),
                    Element::Interpolation(_) | Element::Directive(_) => out.push(HOLE),
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// Stands for an interpolated value in [`string_shape`].
pub const HOLE: char = '\u{0}';
