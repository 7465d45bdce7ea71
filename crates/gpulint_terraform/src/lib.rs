//! gpulint_terraform: the Terraform language. Terraform modules: the files of one folder (or one plan), their variables and locals,
//! their resources and module calls expanded by `count` and `for_each`, and a small API for
//! lowerers to read blocks with spans.
//!
//! Values are evaluated with hcl-rs on clones of hcl-edit expressions, so spans always come
//! from the edit tree. The functions of [`crate::functions`] are declared; `try` and `can`
//! are decided before evaluation. Anything that does not evaluate (resource attributes, data
//! sources, other functions, variables without a value) is [`Value::Unknown`].
//!
//! It hands evaluated blocks with their spans to the lowerers and knows no provider:
//! which resources hold GPUs, and what their attributes mean, is gpulint_lower's.
//! Evaluation is bounded by the run's budget ([`budget`]); the functions it declares are
//! in [`functions`].
//!
//! May use: gpulint_source (spans, limits), gpulint_syntax (the trees and the JSON remap)
//! and gpulint_model (values with spans, the module instances a finding names).

pub mod budget;
pub mod eval;
pub mod functions;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use hcl_edit::expr::{Expression, Object, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block as EditBlock, Body, Structure};
use hcl_edit::visit::{Visit, visit_expr};
use hcl_edit::{Ident, Span as _};

use crate::eval::intern;
use gpulint_model::{Related, Span, Str, Value};
use gpulint_source::FileId;
use gpulint_source::limits::Limit;
use gpulint_syntax::json::Remap;

/// One parsed Terraform file of a module. `remap` turns offsets in a body generated from
/// JSON (`.tf.json`, plan JSON) into offsets of the JSON text.
#[derive(Clone, Copy)]
pub struct TfFile<'a> {
    pub id: FileId,
    pub body: &'a Body,
    pub remap: Option<&'a Remap>,
}

pub use crate::eval::Scope;

/// A range of a body's parsed text as a range of its file: through `remap` for a body
/// generated from JSON.
pub fn in_file(remap: Option<&Remap>, range: Range<usize>) -> Range<usize> {
    match remap {
        Some(m) => m.map(range),
        None => range,
    }
}

/// Records that a `count`, `for_each` or `dynamic` block (`what`) makes `made` instances,
/// more than the `max` gpulint expands; `at` is its `count` or `for_each` value.
fn instances_over(
    file: FileId,
    remap: Option<&Remap>,
    at: &Expression,
    what: &str,
    made: usize,
    max: usize,
) {
    let unit = if what == "block" {
        "instances"
    } else {
        "blocks"
    };
    budget::record(budget::Hit {
        limit: Limit::Instances,
        file,
        range: in_file(remap, at.span().unwrap_or(0..0)),
        unchecked: format!("this {what} makes {made} {unit}; only the first {max} were checked"),
    });
}

/// Which instance of a resource or module call `count` or `for_each` made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    Index(u64),
    Name(String),
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Index(i) => write!(f, "[{i}]"),
            Key::Name(k) => write!(f, "[{k:?}]"),
        }
    }
}

/// A `resource` or `module` block, once per instance.
struct Instance<'a> {
    file: TfFile<'a>,
    block: &'a EditBlock,
    key: Option<Key>,
    scope: Rc<Scope>,
}

/// The files of one folder, evaluated together.
pub struct Module<'a> {
    /// `module.gpu["a"].`: the call chain from the root module; empty at the root.
    pub prefix: String,
    resources: Vec<Instance<'a>>,
    calls: Vec<Instance<'a>>,
    /// The sources of module calls whose `count`/`for_each` is known: every instance
    /// they make (maybe none) is in `calls`.
    pub settled_sources: Vec<&'a str>,
    /// The region of each provider's default configuration (`provider "aws" { region =
    /// "eu-west-1" }`, no `alias`), where written and known: prices follow it. A called
    /// module inherits its caller's ([`Module::inherit_regions`]).
    pub regions: Vec<(String, String)>,
}

/// What a caller gives a variable of a called module.
pub enum Input {
    Known(hcl::Value),
    /// Given, but gpulint cannot evaluate it: the default no longer applies.
    Unknown,
}

impl<'a> Module<'a> {
    /// A root module. `var_sources` are tfvars bodies in increasing precedence:
    /// `terraform.tfvars`, `*.auto.tfvars` by name, then `--var-file`s in order.
    pub fn new(files: &[TfFile<'a>], var_sources: &[TfFile<'_>]) -> Self {
        let empty = Scope::new(HashSet::new());
        let mut inputs: Vec<(String, Input, Vec<Related>)> = Vec::new();
        for vars in var_sources {
            for attr in vars.body.attributes() {
                let v = match empty.eval(&attr.value) {
                    Some(v) => Input::Known(v),
                    // A tfvars value that does not evaluate hides the default: unknown.
                    None => Input::Unknown,
                };
                let name = attr.key.as_str().to_string();
                let at = Span::new(
                    vars.id,
                    in_file(vars.remap, attr.span().unwrap_or_default()),
                );
                let set = Related {
                    span: at,
                    message: intern(&format!("`var.{name}` is set here")),
                };
                inputs.push((name, v, vec![set]));
            }
        }
        Module::called(files, inputs, String::new())
    }

    /// A module called with `inputs` (each with where its value was set), named `prefix`
    /// in subjects.
    pub fn called(
        files: &[TfFile<'a>],
        inputs: Vec<(String, Input, Vec<Related>)>,
        prefix: String,
    ) -> Self {
        let empty = Scope::new(HashSet::new());
        let mut vars = hcl::Map::new();
        let mut unknown = HashSet::new();
        // Declared variables, whether each takes `null` from a caller as "use the default"
        // (`nullable = false`), and their type.
        let mut declared: Vec<(String, bool, Option<&Expression>)> = Vec::new();
        let mut origins: HashMap<Arc<str>, Vec<Related>> = HashMap::new();
        for (file, block) in files
            .iter()
            .flat_map(|f| f.body.get_blocks("variable").map(move |b| (*f, b)))
        {
            let Some(name) = block.labels.first().map(|l| l.as_str().to_string()) else {
                continue;
            };
            // Without a default that evaluates, the variable is unknown until given.
            let default = block.body.get_attribute("default");
            match default.and_then(|d| empty.eval_in(&d.value, file)) {
                Some(v) => {
                    vars.insert(name.clone(), v);
                    if let Some(d) = default {
                        let at =
                            Span::new(file.id, in_file(file.remap, d.span().unwrap_or_default()));
                        origins.insert(
                            intern(&name),
                            vec![Related {
                                span: at,
                                message: intern(&format!("the default of `var.{name}`")),
                            }],
                        );
                    }
                }
                None => {
                    unknown.insert(format!("var.{name}"));
                }
            }
            let not_nullable = block
                .body
                .get_attribute("nullable")
                .and_then(|n| empty.eval_in(&n.value, file))
                == Some(hcl::Value::Bool(false));
            let ty = block.body.get_attribute("type").map(|t| &t.value);
            declared.push((name, not_nullable, ty));
        }
        for (name, input, set) in inputs {
            let Some(&(_, not_nullable, _)) = declared.iter().find(|(d, _, _)| *d == name) else {
                continue;
            };
            match input {
                Input::Known(hcl::Value::Null) if not_nullable => {}
                Input::Known(v) => {
                    unknown.remove(&format!("var.{name}"));
                    origins.insert(intern(&name), set);
                    vars.insert(name, v);
                }
                Input::Unknown => {
                    vars.shift_remove(&name);
                    unknown.insert(format!("var.{name}"));
                }
            }
        }
        // A variable's type fills in the attributes its `optional(…)` leaves out.
        for (name, _, ty) in &declared {
            if let (Some(ty), Some(v)) = (ty, vars.get_mut(name.as_str())) {
                let ty = hcl::Expression::from((*ty).clone());
                *v = with_type_defaults(std::mem::take(v), &ty, 0);
            }
        }
        let mut scope = Scope::new(unknown);
        scope.declare("var", hcl::Value::Object(vars));
        let vars = scope.set_origins(origins);
        crate::eval::record_instance(gpulint_model::Instance {
            prefix: prefix.clone(),
            files: files.iter().map(|f| f.id).collect(),
            vars,
        });
        resolve_locals(&mut scope, files);
        let scope = Rc::new(scope);
        let mut resources = Vec::new();
        let mut calls = Vec::new();
        let mut settled_sources = Vec::new();
        let mut regions = Vec::new();
        for f in files {
            for b in f.body.blocks() {
                match b.ident.as_str() {
                    "provider" => {
                        let block = Block::new(Rc::clone(&scope), *f, b);
                        if let ([name], Value::Absent, Value::Known(region, _)) =
                            (&b.labels[..], block.str("alias"), block.str("region"))
                        {
                            regions.push((name.as_str().to_string(), region));
                        }
                    }
                    "resource" => {
                        expand(*f, b, &scope, &mut resources);
                    }
                    "module" => {
                        if expand(*f, b, &scope, &mut calls) == Expansion::Known
                            && let Some(Expression::String(source)) =
                                b.body.get_attribute("source").map(|a| &a.value)
                        {
                            settled_sources.push(source.as_str());
                        }
                    }
                    _ => {}
                }
            }
        }
        Module {
            prefix,
            resources,
            calls,
            settled_sources,
            regions,
        }
    }

    /// The region a provider's default configuration names, when the module (or a caller)
    /// writes one.
    pub fn region(&self, provider: &str) -> Option<&str> {
        self.regions
            .iter()
            .find(|(p, _)| p == provider)
            .map(|(_, r)| r.as_str())
    }

    /// A called module uses its caller's provider configurations unless it has its own.
    pub fn inherit_regions(&mut self, caller: &Module<'_>) {
        for (p, r) in &caller.regions {
            if self.region(p).is_none() {
                self.regions.push((p.clone(), r.clone()));
            }
        }
    }

    /// Every instance of every `resource "TYPE" "NAME"` block of the module.
    pub fn resources(&self) -> impl Iterator<Item = Resource<'_>> {
        self.resources.iter().filter_map(move |i| {
            let (rtype, name, address) = match &i.block.labels[..] {
                [t, n] => (t.as_str(), n.as_str(), None),
                // Plan JSON carries each instance's address as a third label.
                [t, n, a] => (t.as_str(), n.as_str(), Some(a.as_str())),
                _ => return None,
            };
            Some(Resource {
                rtype,
                name,
                key: i.key.as_ref(),
                address,
                prefix: &self.prefix,
                block: Block::new(Rc::clone(&i.scope), i.file, i.block),
            })
        })
    }

    /// Resources of one type.
    pub fn resources_of<'s>(&'s self, rtype: &'s str) -> impl Iterator<Item = Resource<'s>> {
        self.resources().filter(move |r| r.rtype == rtype)
    }

    /// A resource by type and name (its first instance).
    pub fn resource(&self, rtype: &str, name: &str) -> Option<Resource<'_>> {
        self.resources()
            .find(|r| r.rtype == rtype && r.name == name)
    }

    /// The subjects of every instance of `TYPE.NAME`.
    pub fn subjects_of(&self, rtype: &str, name: &str) -> Vec<String> {
        self.resources()
            .filter(|r| r.rtype == rtype && r.name == name)
            .map(|r| r.subject())
            .collect()
    }

    /// Every instance of every `module "NAME"` call.
    pub fn calls(&self) -> impl Iterator<Item = Call<'_>> {
        self.calls.iter().filter_map(move |i| {
            let name = i.block.labels.first()?.as_str();
            let block = Block::new(Rc::clone(&i.scope), i.file, i.block);
            let source = block.str("source").known().cloned();
            Some(Call {
                name,
                key: i.key.as_ref(),
                source,
                path: format!(
                    "{}module.{name}{}",
                    self.prefix,
                    i.key.as_ref().map(ToString::to_string).unwrap_or_default()
                ),
                block,
            })
        })
    }
}

/// A value as Terraform converts it to a type constraint: attributes an `object({…})`
/// declares `optional(T, default)` are added with their default (or `null`) when absent
/// or null, through `map`, `list`, `set` and nested objects. Anything else is unchanged.
fn with_type_defaults(v: hcl::Value, ty: &hcl::Expression, depth: usize) -> hcl::Value {
    use hcl::Expression as E;
    let E::FuncCall(call) = ty else { return v };
    if depth > 32 {
        return v;
    }
    let arg = call.args.first();
    match (call.name.name.as_str(), v, arg) {
        ("object", hcl::Value::Object(mut map), Some(E::Object(fields))) => {
            for (key, field) in fields {
                let key = match key {
                    hcl::ObjectKey::Identifier(i) => i.to_string(),
                    hcl::ObjectKey::Expression(E::String(s)) => s.clone(),
                    _ => continue,
                };
                let given = map.shift_remove(&key).filter(|v| !v.is_null());
                let value = match (field, given) {
                    (E::FuncCall(opt), None) if opt.name.name.as_str() == "optional" => {
                        let default = opt
                            .args
                            .get(1)
                            .and_then(crate::eval::eval_plain)
                            .unwrap_or(hcl::Value::Null);
                        match opt.args.first() {
                            Some(inner) if !default.is_null() => {
                                with_type_defaults(default, inner, depth + 1)
                            }
                            _ => default,
                        }
                    }
                    (E::FuncCall(opt), Some(v)) if opt.name.name.as_str() == "optional" => {
                        match opt.args.first() {
                            Some(inner) => with_type_defaults(v, inner, depth + 1),
                            None => v,
                        }
                    }
                    (field, Some(v)) => with_type_defaults(v, field, depth + 1),
                    // A required attribute that is missing: leave it missing.
                    (_, None) => continue,
                };
                map.insert(key, value);
            }
            hcl::Value::Object(map)
        }
        ("map", hcl::Value::Object(map), Some(inner)) => hcl::Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, with_type_defaults(v, inner, depth + 1)))
                .collect(),
        ),
        ("list" | "set", hcl::Value::Array(items), Some(inner)) => hcl::Value::Array(
            items
                .into_iter()
                .map(|v| with_type_defaults(v, inner, depth + 1))
                .collect(),
        ),
        (_, v, _) => v,
    }
}

/// Adds the instances of one `resource` or `module` block. A `count` or `for_each` that
/// does not evaluate leaves the block out: gpulint cannot know whether, or how often, it
/// exists (tflint does the same). The instances of a `count` or `for_each` come out of the
/// run's share; a block written once is always made, as its cost is bounded by its text,
/// so a plain GPU resource after an instance bomb is still checked.
fn expand<'a>(
    file: TfFile<'a>,
    block: &'a EditBlock,
    scope: &Rc<Scope>,
    into: &mut Vec<Instance<'a>>,
) -> Expansion {
    let mut push = |key: Option<Key>, scope: Rc<Scope>| {
        let range = in_file(file.remap, block.ident.span().unwrap_or(0..0));
        if key.is_some() && !budget::take_instance(file.id, range) {
            return;
        }
        into.push(Instance {
            file,
            block,
            key,
            scope,
        });
    };
    let max = budget::limit(Limit::Instances);
    let over = |expr: &Expression, n: usize| {
        instances_over(file.id, file.remap, expr, "block", n, max);
    };
    if let Some(count) = block.body.get_attribute("count") {
        if let Some(hcl::Value::Number(n)) = scope.eval_in(&count.value, file)
            && let Some(n) = n.as_u64()
        {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if n > max {
                over(&count.value, n);
            }
            for i in 0..n.min(max) as u64 {
                let mut obj = hcl::Map::new();
                obj.insert("index".to_string(), hcl::Value::from(i));
                push(
                    Some(Key::Index(i)),
                    scope.with("count", hcl::Value::Object(obj)),
                );
            }
            return Expansion::Known;
        }
        // `count = max(1, var.n)`: the first instance is certain, the rest unknown.
        if scope.at_least(&count.value).is_some_and(|n| n >= 1) {
            let mut obj = hcl::Map::new();
            obj.insert("index".to_string(), hcl::Value::from(0u64));
            push(
                Some(Key::Index(0)),
                scope.with("count", hcl::Value::Object(obj)),
            );
            return Expansion::Known;
        }
        return Expansion::Unknown;
    }
    if let Some(each) = block.body.get_attribute("for_each") {
        let items: Vec<(String, hcl::Value)> = match scope.eval_in(&each.value, file) {
            Some(hcl::Value::Object(map)) => map.into_iter().collect(),
            // A set of strings: each.key and each.value are the string.
            Some(hcl::Value::Array(items)) => items
                .into_iter()
                .filter_map(|v| match v {
                    hcl::Value::String(s) => Some((s.clone(), hcl::Value::String(s))),
                    _ => None,
                })
                .collect(),
            _ => return Expansion::Unknown,
        };
        if items.len() > max {
            over(&each.value, items.len());
        }
        for (k, v) in items.into_iter().take(max) {
            let each = key_value(hcl::Value::String(k.clone()), v);
            push(Some(Key::Name(k)), scope.with("each", each));
        }
        return Expansion::Known;
    }
    push(None, Rc::clone(scope));
    Expansion::Known
}

/// Whether a block's `count`/`for_each` was known, so that its instances (maybe none)
/// are all there are.
#[derive(PartialEq, Eq)]
enum Expansion {
    Known,
    Unknown,
}

/// `each`, or a `dynamic` block's iterator: `{ key, value }`.
fn key_value(key: hcl::Value, value: hcl::Value) -> hcl::Value {
    let mut obj = hcl::Map::new();
    obj.insert("key".to_string(), key);
    obj.insert("value".to_string(), value);
    hcl::Value::Object(obj)
}

/// Locals may refer to each other in any order: each is evaluated once, after the locals it
/// names (found by walking its expression), so a chain of any length in any order costs one
/// evaluation a local. A local in a cycle, or naming one that does not evaluate, is unknown.
fn resolve_locals(scope: &mut Scope, files: &[TfFile<'_>]) {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum State {
        New,
        Visiting,
        Done,
    }
    let mut defs: Vec<(String, &Expression, TfFile<'_>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for f in files {
        for attr in f
            .body
            .get_blocks("locals")
            .flat_map(|b| b.body.attributes())
        {
            // Terraform rejects a local defined twice; the last one is read.
            index.insert(attr.key.as_str().to_string(), defs.len());
            defs.push((attr.key.as_str().to_string(), &attr.value, *f));
        }
    }
    let mut state = vec![State::New; defs.len()];
    let mut known = hcl::Map::new();
    for first in 0..defs.len() {
        if index.get(&defs[first].0) != Some(&first) || state[first] != State::New {
            continue;
        }
        // Depth-first over the locals each names, without recursion: a chain can be long.
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(first, local_deps(defs[first].1, &index))];
        state[first] = State::Visiting;
        while let Some((at, deps)) = stack.last_mut() {
            let at = *at;
            if let Some(dep) = deps.pop() {
                match state[dep] {
                    State::New => {
                        state[dep] = State::Visiting;
                        let deps = local_deps(defs[dep].1, &index);
                        stack.push((dep, deps));
                    }
                    // A cycle: the local it closes on stays unknown.
                    State::Visiting | State::Done => {}
                }
                continue;
            }
            stack.pop();
            state[at] = State::Done;
            let (name, expr, file) = &defs[at];
            scope.declare("local", hcl::Value::Object(std::mem::take(&mut known)));
            let value = scope.eval_in(expr, *file);
            known = match scope.take("local") {
                Some(hcl::Value::Object(m)) => m,
                _ => hcl::Map::new(),
            };
            match value {
                Some(v) => {
                    known.insert(name.clone(), v);
                }
                None => scope.mark_unknown(format!("local.{name}")),
            }
        }
    }
    scope.declare("local", hcl::Value::Object(known));
}

/// The locals an expression names (`local.NAME`), by their index in `index`.
fn local_deps(expr: &Expression, index: &HashMap<String, usize>) -> Vec<usize> {
    struct Collect<'i>(&'i HashMap<String, usize>, Vec<usize>);
    impl Visit for Collect<'_> {
        fn visit_traversal(&mut self, node: &hcl_edit::expr::Traversal) {
            if let (Expression::Variable(root), Some(first)) = (&node.expr, node.operators.first())
                && root.as_str() == "local"
                && let TraversalOperator::GetAttr(name) = first.value()
                && let Some(&i) = self.0.get(name.as_str())
            {
                self.1.push(i);
            }
            hcl_edit::visit::visit_traversal(self, node);
        }
    }
    let mut c = Collect(index, Vec::new());
    visit_expr(&mut c, expr);
    c.1
}

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
    address: Option<&'a str>,
    prefix: &'a str,
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
}

fn key_name(key: &ObjectKey) -> Option<&str> {
    match key {
        ObjectKey::Ident(i) => Some(i.as_str()),
        ObjectKey::Expression(Expression::String(s)) => Some(s.as_str()),
        ObjectKey::Expression(Expression::Variable(v)) => Some(v.as_str()),
        ObjectKey::Expression(_) => None,
    }
}

impl<'a> Block<'a> {
    fn new(scope: Rc<Scope>, file: TfFile<'a>, block: &'a EditBlock) -> Self {
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
        };
        b.header = b.span(start..end);
        b
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

    pub fn str(&self, key: &str) -> Value<String> {
        self.value(key).and_then(scalar_string)
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
                let block = match v.expr() {
                    Expression::Object(o) => owner.child(Src::Object(o), at),
                    other => match owner.eval(other) {
                        Value::Known(hcl::Value::Object(m), _) => {
                            owner.child(Src::Value(Rc::new(m)), at)
                        }
                        Value::Absent => continue,
                        _ => return Value::Unknown(at),
                    },
                };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn body(src: &str) -> Body {
        hcl_edit::parser::parse_body(src).unwrap()
    }

    fn module<'a>(main: &'a Body, vars: &[&Body]) -> Module<'a> {
        let vars: Vec<TfFile<'_>> = vars
            .iter()
            .map(|body| TfFile {
                id: FileId(1),
                body,
                remap: None,
            })
            .collect();
        Module::new(
            &[TfFile {
                id: FileId(0),
                body: main,
                remap: None,
            }],
            &vars,
        )
    }

    #[test]
    fn variables_tfvars_and_locals_evaluate() {
        let main = body(
            r#"
variable "gpu_type" { default = "g5.xlarge" }
variable "n" {}
locals {
  b = "${local.a}-x"
  a = var.gpu_type
}
resource "aws_instance" "x" {
  instance_type = local.a
  other         = local.b
  n             = var.n
  gone          = data.aws_ami.x.id
  nothing       = null
}
"#,
        );
        let tfvars = body("gpu_type = \"p5.48xlarge\"\nundeclared = 1\n");
        let m = module(&main, &[&tfvars]);
        let r = m.resource("aws_instance", "x").unwrap();
        assert_eq!(r.block.str("instance_type").known().unwrap(), "p5.48xlarge");
        assert_eq!(r.block.str("other").known().unwrap(), "p5.48xlarge-x");
        assert!(r.block.str("n").is_unknown());
        assert!(r.block.str("gone").is_unknown());
        assert_eq!(r.block.str("nothing"), Value::Absent);
        assert_eq!(r.block.str("missing"), Value::Absent);
    }

    #[test]
    fn a_caller_null_means_the_default_only_for_non_nullable_variables() {
        let main = body(
            r#"
variable "plain" { default = 1 }
variable "strict" {
  default  = 1
  nullable = false
}
variable "given" { default = 1 }
variable "opaque" { default = 1 }
resource "r" "x" {
  plain  = var.plain
  strict = var.strict
  given  = var.given
  opaque = var.opaque
}
"#,
        );
        let files = vec![TfFile {
            id: FileId(0),
            body: &main,
            remap: None,
        }];
        let inputs = vec![
            (
                "plain".to_string(),
                Input::Known(hcl::Value::Null),
                Vec::new(),
            ),
            (
                "strict".to_string(),
                Input::Known(hcl::Value::Null),
                Vec::new(),
            ),
            (
                "given".to_string(),
                Input::Known(hcl::Value::from(3)),
                Vec::new(),
            ),
            ("opaque".to_string(), Input::Unknown, Vec::new()),
            (
                "undeclared".to_string(),
                Input::Known(hcl::Value::from(3)),
                Vec::new(),
            ),
        ];
        let m = Module::called(&files, inputs, "module.m.".into());
        let r = m.resources().next().unwrap();
        assert_eq!(r.subject(), "module.m.r.x");
        assert_eq!(r.block.u64("plain"), Value::Absent);
        assert_eq!(r.block.u64("strict").known(), Some(&1));
        assert_eq!(r.block.u64("given").known(), Some(&3));
        assert!(r.block.u64("opaque").is_unknown());
    }

    #[test]
    fn optional_attributes_take_their_defaults() {
        let main = body(
            r#"
variable "pools" {
  type = map(object({
    type  = string
    min   = optional(number, 0)
    spot  = optional(bool)
    extra = optional(object({ efa = optional(bool, true) }), {})
  }))
  default = {
    a = { type = "p5.48xlarge" }
    b = { type = "g6.xlarge", min = 2, spot = true, extra = { efa = false } }
  }
}
resource "r" "x" {
  for_each = var.pools
  min      = try(each.value.min, 9)
  spot     = each.value.spot
  efa      = each.value.extra.efa
}
"#,
        );
        let m = module(&main, &[]);
        let a = m.resources().next().unwrap();
        assert_eq!(
            a.block.u64("min").known(),
            Some(&0),
            "the default, not try's fallback"
        );
        assert_eq!(a.block.bool("spot"), Value::Absent);
        assert_eq!(a.block.bool("efa").known(), Some(&true));
        let b = m.resources().nth(1).unwrap();
        assert_eq!(b.block.u64("min").known(), Some(&2));
        assert_eq!(b.block.bool("efa").known(), Some(&false));
    }

    #[test]
    fn try_takes_its_fallback_only_on_real_errors() {
        let main = body(
            r#"
variable "known" { default = { a = 1 } }
variable "unset" {}
resource "x" "y" {
  missing_key = try(var.known.b, 2)
  present     = try(var.known.a, 2)
  unset       = try(var.unset.a, 2)
  can_missing = can(var.known.b)
  can_unset   = can(var.unset.a)
  conditional = var.known.a > 0 ? "yes" : "no"
  for_expr    = [for k, v in var.known : "${k}=${v}"]
  splat       = [{ n = 1 }, { n = 2 }][*].n
  other_func  = timestamp()
}
"#,
        );
        let m = module(&main, &[]);
        let b = m.resource("x", "y").unwrap().block;
        assert_eq!(b.u64("missing_key").known(), Some(&2));
        assert_eq!(b.u64("present").known(), Some(&1));
        assert!(
            b.u64("unset").is_unknown(),
            "an unknown value is not an error"
        );
        assert_eq!(b.bool("can_missing").known(), Some(&false));
        assert!(b.bool("can_unset").is_unknown());
        assert_eq!(b.str("conditional").known().unwrap(), "yes");
        assert_eq!(
            b.string_list("for_expr").known().unwrap(),
            &vec!["a=1".to_string()]
        );
        assert_eq!(
            b.string_list("splat").known().unwrap(),
            &vec!["1".to_string(), "2".to_string()]
        );
        assert!(b.str("other_func").is_unknown());
    }

    #[test]
    fn count_and_for_each_make_keyed_instances() {
        let main = body(
            r#"
variable "n" {}
resource "a" "counted" {
  count = 2
  name  = "n-${count.index}"
}
resource "a" "each" {
  for_each = { x = "p5.48xlarge", y = "g6.xlarge" }
  type     = each.value
}
resource "a" "set" {
  for_each = toset(["b", "a"])
  name     = each.key
}
resource "a" "unknown" {
  count = var.n
}
resource "a" "none" {
  count = 0
}
"#,
        );
        let m = module(&main, &[]);
        let subjects: Vec<String> = m.resources().map(|r| r.subject()).collect();
        assert_eq!(
            subjects,
            [
                "a.counted[0]",
                "a.counted[1]",
                "a.each[\"x\"]",
                "a.each[\"y\"]",
                "a.set[\"a\"]",
                "a.set[\"b\"]",
            ]
        );
        let y = m.resources().nth(3).unwrap();
        assert_eq!(y.block.str("type").known().unwrap(), "g6.xlarge");
        let c1 = m.resources().nth(1).unwrap();
        assert_eq!(c1.block.str("name").known().unwrap(), "n-1");
    }

    #[test]
    fn dynamic_blocks_expand_when_known() {
        let main = body(
            r#"
variable "types" {}
resource "r" "known" {
  dynamic "override" {
    for_each = ["g6.12xlarge", "g6e.12xlarge"]
    iterator = t
    content { instance_type = t.value }
  }
}
resource "r" "unknown" {
  dynamic "override" {
    for_each = var.types
    content { instance_type = override.value }
  }
}
"#,
        );
        let m = module(&main, &[]);
        let known = m.resource("r", "known").unwrap();
        let types: Vec<String> = known
            .block
            .blocks("override")
            .known()
            .unwrap()
            .iter()
            .map(|b| b.str("instance_type").known().unwrap().clone())
            .collect();
        assert_eq!(types, ["g6.12xlarge", "g6e.12xlarge"]);
        let unknown = m.resource("r", "unknown").unwrap();
        assert!(unknown.block.blocks("override").is_unknown());
    }

    #[test]
    fn objects_keep_what_is_known_and_bounds_stay_certain() {
        let main = body(
            r#"
variable "floor" {}
locals {
  groups = {
    gpu = {
      instance_types = ["p5.48xlarge"]
      min_size       = 2
      subnet_ids     = module.vpc.private_subnets
      name           = "gpu-${module.eks.cluster_name}"
      label          = upper(data.x.y.name)
    }
  }
  merged   = merge({ max_size = 4 }, local.groups.gpu)
  hidden   = length(local.groups.gpu.subnet_ids)
  compared = local.groups.gpu.subnet_ids == "x" ? "yes" : "no"
  picked   = coalesce("g6e.xlarge", var.floor)
  blocked  = coalesce(var.floor, "g6e.xlarge")
}
module "m" {
  source  = "x"
  groups  = local.groups
  merged  = local.merged
  hidden  = local.hidden
  compared = local.compared
  picked  = local.picked
  blocked = local.blocked
  min_a   = max(2, var.floor)
  min_b   = max(var.floor, var.floor)
}
"#,
        );
        let m = module(&main, &[]);
        let call = m.calls().next().unwrap();
        let groups = call.block.entries("groups").known().unwrap().clone();
        let gpu = &groups[0].1;
        assert_eq!(gpu.u64("min_size").known(), Some(&2));
        assert_eq!(
            gpu.string_list("instance_types").known().map(Vec::len),
            Some(1)
        );
        assert!(gpu.string_list("subnet_ids").is_unknown());
        assert!(gpu.str("name").is_unknown());
        assert!(gpu.str("label").is_unknown());
        let merged = call.block.block("merged").known().unwrap().clone();
        assert_eq!(merged.u64("max_size").known(), Some(&4));
        assert_eq!(merged.u64("min_size").known(), Some(&2));
        // What would hide the unknown part is unknown itself.
        assert!(call.block.u64("hidden").is_unknown());
        assert!(call.block.str("compared").is_unknown());
        assert_eq!(call.block.str("picked").known().unwrap(), "g6e.xlarge");
        assert!(call.block.str("blocked").is_unknown());
        assert_eq!(call.block.u64_at_least("min_a").map(|b| b.0), Some(2));
        assert_eq!(call.block.u64_at_least("min_b"), None);
    }

    #[test]
    fn objects_stand_for_blocks_and_defaults_fill_gaps() {
        let main = body(
            r#"
locals { from_var = { gpu = { min_size = 2 } } }
module "eks" {
  source   = "x"
  defaults = { min_size = 0, max_size = 9 }
  literal  = { gpu = { min_size = 1 }, cpu = { max_size = 3 } }
  computed = local.from_var
  list     = [{ name = "a" }, { name = "b" }]
}
"#,
        );
        let m = module(&main, &[]);
        let call = m.calls().next().unwrap();
        assert_eq!(call.path, "module.eks");
        let defaults = call.block.block("defaults").known().cloned();
        let groups = call.block.entries("literal").known().unwrap().clone();
        let gpu = groups[0].1.clone().with_defaults(defaults.clone());
        assert_eq!(gpu.u64("min_size").known(), Some(&1));
        assert_eq!(gpu.u64("max_size").known(), Some(&9));
        let cpu = groups[1].1.clone().with_defaults(defaults);
        assert_eq!(cpu.u64("min_size").known(), Some(&0));
        // A literal entry points at its key.
        assert_eq!(&main.to_string()[gpu.header.range()], "gpu");
        let computed = call.block.entries("computed").known().unwrap().clone();
        assert_eq!(computed[0].1.u64("min_size").known(), Some(&2));
        let list = call.block.blocks("list").known().unwrap().clone();
        assert_eq!(list[1].str("name").known().unwrap(), "b");
    }

    #[test]
    fn references_find_resources_not_variables() {
        let b = body("x = { InstanceId = aws_instance.gpu[0].id, y = var.z, d = data.a.b.c }\n");
        let refs = references(&b.get_attribute("x").unwrap().value);
        assert_eq!(refs.len(), 1);
        assert_eq!(
            (refs[0].rtype.as_str(), refs[0].name.as_str()),
            ("aws_instance", "gpu")
        );
    }

    #[test]
    fn string_shapes_mark_interpolations() {
        let b = body("a = \"arn:aws:automate:${var.region}:ec2:stop\"\n");
        let shape = string_shape(&b.get_attribute("a").unwrap().value).unwrap();
        assert_eq!(shape, format!("arn:aws:automate:{HOLE}:ec2:stop"));
    }
}
