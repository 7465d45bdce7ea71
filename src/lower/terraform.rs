//! Terraform modules: the `.tf` files of one folder, their variables and locals, and a small
//! API for lowerers to read resources with spans.
//!
//! Values are evaluated with hcl-rs on clones of hcl-edit expressions, so spans always come
//! from the edit tree. Anything that does not evaluate (resource attributes, data sources,
//! functions not implemented, variables without a value) is [`Value::Unknown`].

use std::ops::Range;

use hcl::eval::{Context, Evaluate};
use hcl_edit::expr::{Expression, TraversalOperator};
use hcl_edit::structure::{Block as EditBlock, Body, Structure};
use hcl_edit::visit::{Visit, visit_expr};
use hcl_edit::{Ident, Span as _};

use super::role;
use crate::model::{Role, Span, Value};
use crate::source::FileId;

/// One parsed Terraform file of a module.
#[derive(Clone, Copy)]
pub struct TfFile<'a> {
    pub id: FileId,
    pub body: &'a Body,
}

/// The `.tf` files of one folder, evaluated together.
pub struct Module<'a> {
    pub files: Vec<TfFile<'a>>,
    ctx: Context<'static>,
}

impl<'a> Module<'a> {
    /// Builds a module. `var_sources` are tfvars bodies in increasing precedence:
    /// `terraform.tfvars`, `*.auto.tfvars` by name, then `--var-file`s in order.
    pub fn new(files: Vec<TfFile<'a>>, var_sources: &[&Body]) -> Self {
        let empty = Context::new();
        let mut vars = hcl::Map::new();
        let mut declared = Vec::new();
        for block in files.iter().flat_map(|f| f.body.get_blocks("variable")) {
            let Some(name) = block.labels.first().map(|l| l.as_str().to_string()) else {
                continue;
            };
            if let Some(default) = block.body.get_attribute("default")
                && let Ok(v) = hcl::Expression::from(default.value.clone()).evaluate(&empty)
            {
                vars.insert(name.clone(), v);
            }
            declared.push(name);
        }
        for body in var_sources {
            for attr in body.attributes() {
                let name = attr.key.as_str();
                if !declared.iter().any(|d| d == name) {
                    continue;
                }
                match hcl::Expression::from(attr.value.clone()).evaluate(&empty) {
                    Ok(v) => {
                        vars.insert(name.to_string(), v);
                    }
                    // A tfvars value that does not evaluate hides the default: unknown.
                    Err(_) => {
                        vars.shift_remove(name);
                    }
                }
            }
        }
        let mut ctx = Context::new();
        ctx.declare_var("var", hcl::Value::Object(vars));
        resolve_locals(&mut ctx, &files);
        Module { files, ctx }
    }

    /// Every `resource "TYPE" "NAME"` block of the module.
    pub fn resources(&self) -> impl Iterator<Item = Resource<'_>> {
        self.files.iter().flat_map(move |f| {
            f.body.get_blocks("resource").filter_map(move |b| {
                let [rtype, name] = &b.labels[..] else {
                    return None;
                };
                Some(Resource {
                    rtype: rtype.as_str(),
                    name: name.as_str(),
                    block: Block::new(self, f.id, b),
                })
            })
        })
    }

    /// Resources of one type.
    pub fn resources_of<'s>(&'s self, rtype: &'s str) -> impl Iterator<Item = Resource<'s>> {
        self.resources().filter(move |r| r.rtype == rtype)
    }

    /// A resource by type and name.
    pub fn resource(&self, rtype: &str, name: &str) -> Option<Resource<'_>> {
        self.resources()
            .find(|r| r.rtype == rtype && r.name == name)
    }

    fn eval(&self, file: FileId, expr: &Expression) -> Value<hcl::Value> {
        let span = Span::new(file, expr.span().unwrap_or(0..0));
        match hcl::Expression::from(expr.clone()).evaluate(&self.ctx) {
            // `attr = null` means "not set" in Terraform.
            Ok(hcl::Value::Null) => Value::Absent,
            Ok(v) => Value::Known(v, span),
            Err(_) => Value::Unknown(span),
        }
    }
}

/// Locals may refer to each other in any order: evaluate until nothing more resolves.
fn resolve_locals(ctx: &mut Context<'static>, files: &[TfFile<'_>]) {
    let mut pending: Vec<(String, hcl::Expression)> = files
        .iter()
        .flat_map(|f| f.body.get_blocks("locals"))
        .flat_map(|b| b.body.attributes())
        .map(|a| {
            (
                a.key.as_str().to_string(),
                hcl::Expression::from(a.value.clone()),
            )
        })
        .collect();
    let mut known = hcl::Map::new();
    loop {
        ctx.declare_var("local", hcl::Value::Object(known.clone()));
        let before = pending.len();
        pending.retain(|(name, expr)| match expr.evaluate(ctx) {
            Ok(v) => {
                known.insert(name.clone(), v);
                false
            }
            Err(_) => true,
        });
        if pending.len() == before {
            break;
        }
    }
}

/// A `resource` block.
#[derive(Clone)]
pub struct Resource<'a> {
    pub rtype: &'a str,
    pub name: &'a str,
    pub block: Block<'a>,
}

impl Resource<'_> {
    /// The role this resource states or names: a `gpulint-role` entry in one of `maps`
    /// (`tags`, `labels`), else words in its name, in `names` (name attributes) and in the
    /// maps' keys and values.
    pub fn role(&self, maps: &[&str], names: &[&str]) -> Value<Role> {
        let entries: Vec<_> = maps.iter().flat_map(|m| self.block.string_map(m)).collect();
        let named: Vec<String> = names
            .iter()
            .filter_map(|n| self.block.str(n).known().cloned())
            .collect();
        let words = std::iter::once(self.name).chain(named.iter().map(String::as_str));
        role::from_entries(&entries, words, &self.header())
    }

    /// `aws_instance.trainer`.
    pub fn subject(&self) -> String {
        format!("{}.{}", self.rtype, self.name)
    }

    /// From `resource` to the last label: where findings about the whole resource point.
    pub fn header(&self) -> Span {
        self.block.header.clone()
    }
}

/// A block (resource or nested) with the module to evaluate it in.
#[derive(Clone)]
pub struct Block<'a> {
    module: &'a Module<'a>,
    pub file: FileId,
    pub body: &'a Body,
    pub header: Span,
}

impl<'a> Block<'a> {
    fn new(module: &'a Module<'a>, file: FileId, block: &'a EditBlock) -> Self {
        let start = block.ident.span().map_or(0, |s| s.start);
        let end = block
            .labels
            .last()
            .and_then(hcl_edit::Span::span)
            .or_else(|| block.ident.span())
            .map_or(start, |s| s.end);
        Block {
            module,
            file,
            body: &block.body,
            header: Span::new(file, start..end),
        }
    }

    pub fn expr(&self, key: &str) -> Option<&'a Expression> {
        self.body.get_attribute(key).map(|a| &a.value)
    }

    /// The span of an attribute's value.
    pub fn span_of(&self, key: &str) -> Option<Span> {
        self.expr(key)
            .and_then(hcl_edit::Span::span)
            .map(|r| Span::new(self.file, r))
    }

    /// An attribute's value, evaluated.
    pub fn value(&self, key: &str) -> Value<hcl::Value> {
        match self.expr(key) {
            None => Value::Absent,
            Some(e) => self.module.eval(self.file, e),
        }
    }

    pub fn str(&self, key: &str) -> Value<String> {
        self.value(key).and_then(|v| match v {
            hcl::Value::String(s) => Some(s),
            hcl::Value::Number(n) => Some(n.to_string()),
            hcl::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        })
    }

    pub fn u64(&self, key: &str) -> Value<u64> {
        self.value(key).and_then(|v| match v {
            hcl::Value::Number(n) => n.as_u64(),
            hcl::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        })
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
            hcl::Value::Array(items) => items
                .into_iter()
                .map(|i| match i {
                    hcl::Value::String(s) => Some(s),
                    hcl::Value::Number(n) => Some(n.to_string()),
                    _ => None,
                })
                .collect(),
            _ => None,
        })
    }

    /// A map of strings (`labels`, `tags`), each entry with the span of its value where
    /// the map is written literally. Entries that do not evaluate are left out; a map
    /// that does not evaluate at all gives nothing.
    pub fn string_map(&self, key: &str) -> Vec<(String, String, Span)> {
        let Some(expr) = self.expr(key) else {
            return Vec::new();
        };
        if let Expression::Object(obj) = expr {
            return obj
                .iter()
                .filter_map(|(k, v)| {
                    let key = match k {
                        hcl_edit::expr::ObjectKey::Ident(i) => i.as_str().to_string(),
                        hcl_edit::expr::ObjectKey::Expression(e) => {
                            match self.module.eval(self.file, e) {
                                Value::Known(hcl::Value::String(s), _) => s,
                                _ => return None,
                            }
                        }
                    };
                    match self.module.eval(self.file, v.expr()) {
                        Value::Known(val, span) => Some((key, scalar_string(val)?, span)),
                        _ => None,
                    }
                })
                .collect();
        }
        match self.value(key) {
            Value::Known(hcl::Value::Object(map), span) => map
                .into_iter()
                .filter_map(|(k, v)| Some((k, scalar_string(v)?, span.clone())))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Nested blocks of one type. A `dynamic "name"` block makes them unknown.
    pub fn blocks(&self, name: &str) -> Value<Vec<Block<'a>>> {
        let mut found = Vec::new();
        for s in self.body {
            let Structure::Block(b) = s else { continue };
            if b.ident.as_str() == name {
                found.push(Block::new(self.module, self.file, b));
            } else if b.ident.as_str() == "dynamic"
                && b.labels.first().is_some_and(|l| l.as_str() == name)
            {
                return Value::Unknown(Block::new(self.module, self.file, b).header);
            }
        }
        match found.first() {
            None => Value::Absent,
            Some(first) => {
                let span = first.header.clone();
                Value::Known(found, span)
            }
        }
    }

    /// The first nested block of one type.
    pub fn block(&self, name: &str) -> Value<Block<'a>> {
        match self.blocks(name) {
            Value::Known(mut v, s) => Value::Known(v.swap_remove(0), s),
            Value::Unknown(s) => Value::Unknown(s),
            Value::Absent => Value::Absent,
        }
    }
}

fn scalar_string(v: hcl::Value) -> Option<String> {
    match v {
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

impl ResourceRef {
    /// `aws_instance.trainer`, as [`Resource::subject`] spells it.
    pub fn subject(&self) -> String {
        format!("{}.{}", self.rtype, self.name)
    }
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
        let m = Module::new(
            vec![TfFile {
                id: FileId(0),
                body: &main,
            }],
            &[&tfvars],
        );
        let r = m.resource("aws_instance", "x").unwrap();
        assert_eq!(r.block.str("instance_type").known().unwrap(), "p5.48xlarge");
        assert_eq!(r.block.str("other").known().unwrap(), "p5.48xlarge-x");
        assert!(r.block.str("n").is_unknown());
        assert!(r.block.str("gone").is_unknown());
        assert_eq!(r.block.str("nothing"), Value::Absent);
        assert_eq!(r.block.str("missing"), Value::Absent);
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

    #[test]
    fn dynamic_blocks_are_unknown() {
        let main = body(
            "resource \"google_compute_instance\" \"x\" {\n  dynamic \"scheduling\" {\n    for_each = []\n  }\n}\n",
        );
        let m = Module::new(
            vec![TfFile {
                id: FileId(0),
                body: &main,
            }],
            &[],
        );
        let r = m.resources().next().unwrap();
        assert!(r.block.blocks("scheduling").is_unknown());
        assert_eq!(
            r.block.blocks("guest_accelerator").known().map(Vec::len),
            None
        );
    }
}
