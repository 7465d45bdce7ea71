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
pub mod provenance;
pub mod scripts;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use hcl_edit::Span as _;
use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block as EditBlock, Body};

use crate::eval::intern;
use gpulint_model::{Related, Span, Value};
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

mod arith;
mod block;
pub use block::{Block, Call, HOLE, Resource, ResourceRef, key_name, references, string_shape};

mod enable;
mod instances;
mod records;
mod unknown;
pub use instances::Toggled;
use instances::{Expansion, expand, resolve_locals, with_type_defaults};

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
    /// For a root module: what the variable files beside it that Terraform applies only
    /// when named (`gpu.tfvars`, `prod.tfvars`) would give its variables. Empty when a
    /// `--var-file` applies to it, and for called modules.
    pub alternatives: Vec<Alternative>,
}

/// A value a variable file that Terraform applies only when named gives a variable of the
/// root module: what a user picks by naming that file.
#[derive(Clone, Debug)]
pub struct Alternative {
    /// The variable file's name as shown (`envs/gpu.tfvars`).
    pub file: String,
    /// The variable's name.
    pub name: String,
    pub value: hcl::Value,
    /// Where the file sets it.
    pub span: Span,
}

/// The values each of `files` (named variable files, with their names) gives, in order.
/// A value that does not evaluate is left out.
pub fn alternatives(files: &[(String, TfFile<'_>)]) -> Vec<Alternative> {
    let empty = Scope::new(HashSet::new());
    files
        .iter()
        .flat_map(|(name, vars)| {
            let empty = &empty;
            vars.body.attributes().filter_map(move |attr| {
                Some(Alternative {
                    file: name.clone(),
                    name: attr.key.as_str().to_string(),
                    value: empty.eval(&attr.value)?,
                    span: Span::new(
                        vars.id,
                        in_file(vars.remap, attr.span().unwrap_or_default()),
                    ),
                })
            })
        })
        .collect()
}

/// What a caller gives a variable of a called module.
pub enum Input {
    Known(hcl::Value),
    /// Passed on as written from a variable a user sets for the caller (`create =
    /// var.create`): still a knob here. `in_files`: a variable file sets it.
    Knob {
        value: hcl::Value,
        in_files: bool,
    },
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
        Module::called(files, inputs, String::new(), None)
    }

    /// A module called with `inputs` (each with where its value was set), named `prefix`
    /// in subjects.
    pub fn called(
        files: &[TfFile<'a>],
        inputs: Vec<(String, Input, Vec<Related>)>,
        prefix: String,
        call: Option<Span>,
    ) -> Self {
        let empty = Scope::new(HashSet::new());
        let mut vars = hcl::Map::new();
        let mut unknown = HashSet::new();
        // Declared variables, whether each takes `null` from a caller as "use the default"
        // (`nullable = false`), and their type.
        let mut declared: Vec<(String, bool, Option<&Expression>)> = Vec::new();
        let mut origins: HashMap<Arc<str>, Vec<Related>> = HashMap::new();
        let mut defaulted = HashSet::new();
        let mut descriptions = HashMap::new();
        // A root module's inputs are its variable files'.
        let mut in_files = HashSet::new();
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
                    defaulted.insert(name.clone());
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
            if let Some(Expression::String(d)) =
                block.body.get_attribute("description").map(|a| &a.value)
            {
                descriptions.insert(name.clone(), d.as_str().to_string());
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
                Input::Known(hcl::Value::Null)
                | Input::Knob {
                    value: hcl::Value::Null,
                    ..
                } if not_nullable => {}
                Input::Known(v) => {
                    unknown.remove(&format!("var.{name}"));
                    defaulted.remove(&name);
                    if prefix.is_empty() {
                        in_files.insert(name.clone());
                    }
                    origins.insert(intern(&name), set);
                    vars.insert(name, v);
                }
                Input::Knob {
                    value,
                    in_files: by_file,
                } => {
                    unknown.remove(&format!("var.{name}"));
                    if by_file {
                        defaulted.remove(&name);
                        in_files.insert(name.clone());
                    } else {
                        defaulted.insert(name.clone());
                    }
                    origins.insert(intern(&name), set);
                    vars.insert(name, value);
                }
                Input::Unknown => {
                    defaulted.remove(&name);
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
        scope.set_defaulted(defaulted);
        scope.set_in_files(in_files);
        scope.set_descriptions(descriptions);
        scope.declare("var", hcl::Value::Object(vars));
        // `file("${path.module}/run.sh")` reads what the run read ([`scripts`]).
        if let Some(first) = files.first() {
            let mut path = hcl::Map::new();
            path.insert("module".into(), scripts::module_marker(first.id).into());
            path.insert("root".into(), scripts::ROOT_MARKER.into());
            path.insert("cwd".into(), scripts::ROOT_MARKER.into());
            scope.declare("path", hcl::Value::Object(path));
        }
        let vars = scope.set_origins(origins);
        crate::eval::record_instance(gpulint_model::Instance {
            prefix: prefix.clone(),
            files: files.iter().map(|f| f.id).collect(),
            vars,
            call,
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
                        if let Expansion::Toggled(t) = expand(*f, b, &scope, &mut resources)
                            && let [rtype, name, ..] = &b.labels[..]
                        {
                            t.record(
                                format!("{prefix}{}.{}", rtype.as_str(), name.as_str()),
                                files.iter().map(|f| f.id).collect(),
                                false,
                            );
                        }
                    }
                    "module" => {
                        let e = expand(*f, b, &scope, &mut calls);
                        if let (Expansion::Toggled(t), Some(name)) = (&e, b.labels.first()) {
                            t.clone().record(
                                format!("{prefix}module.{}", name.as_str()),
                                files.iter().map(|f| f.id).collect(),
                                true,
                            );
                        }
                        if e != Expansion::Unknown
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
            alternatives: Vec::new(),
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

    /// The expression written at `span` inside one of the module's resource or module
    /// blocks, as written (`var.gpu_type`, `"${var.GPU_TYPE}"`): what a value that did
    /// not evaluate was written as. `None` for JSON files, whose text is not HCL.
    pub fn written_at(&self, span: &Span) -> Option<String> {
        struct Find(Range<usize>, Option<String>);
        impl hcl_edit::visit::Visit for Find {
            fn visit_expr(&mut self, e: &hcl_edit::expr::Expression) {
                if self.1.is_some() {
                    return;
                }
                if hcl_edit::Span::span(e).as_ref() == Some(&self.0) {
                    self.1 = Some(e.to_string().trim().to_string());
                    return;
                }
                hcl_edit::visit::visit_expr(self, e);
            }
        }
        self.resources.iter().chain(&self.calls).find_map(|i| {
            if i.file.id != span.file || i.file.remap.is_some() {
                return None;
            }
            let holds = hcl_edit::Span::span(i.block)
                .is_some_and(|b| b.start <= span.range().start && span.range().end <= b.end);
            if !holds {
                return None;
            }
            let mut f = Find(span.range(), None);
            hcl_edit::visit::visit_body(&mut f, &i.block.body);
            f.1
        })
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
        let m = Module::called(&files, inputs, "module.m.".into(), None);
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
