//! Evaluation of Terraform expressions, within the run's [`budget`].
//!
//! hcl-rs evaluates an expression against a `Context` that owns every variable: each
//! reference to `var.x` clones the whole `var` object, each `count` instance cloned the
//! whole context, and nothing bounds what a `for`, a template or a function builds. So the
//! evaluator here converts the hcl-edit expression itself, once, into the hcl-rs form with
//! every reference it can resolve already replaced by the value it names (only that value
//! is copied, and its size is charged), `try` and `can` decided, templates turned into a
//! guarded concatenation, and every `for` item and function result passed through a guard
//! that charges it. hcl-rs then evaluates that against a context holding only functions,
//! declared once per thread. A spent budget makes every evaluation unknown at once.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use hcl::eval::{Context, ErrorKind, Evaluate, FuncArgs, FuncDef, ParamType};
use hcl::{Identifier, Value};
use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::template::Element;

use super::budget;
use crate::{TfFile, in_file};
use std::sync::Arc;

use gpulint_model::{Origins, Related};

pub use crate::records::{
    intern, record_caveat, record_instance, record_unexpanded, take_caveats, take_instances,
    take_unexpanded,
};

/// Where expressions are evaluated: the values of `var`, `local`, and inside an instance
/// `count`, `each` or a `dynamic` block's iterator, chained to the scope they extend.
pub struct Scope {
    vars: HashMap<String, Rc<Value>>,
    parent: Option<Rc<Scope>>,
    /// `var.x` and `local.y` that have no value: references to them stay unknown even
    /// inside `try`, which would otherwise take its fallback.
    unknown: Rc<HashSet<String>>,
    /// Where each variable's value was set (`gpu_min`: the tfvars line), most direct first.
    origins: Arc<Origins>,
    /// Variables that hold their default: no caller, tfvars file or argument set them.
    defaulted: Rc<HashSet<String>>,
    /// A root module's variables that its variable files set (`terraform.tfvars`,
    /// `*.auto.tfvars`, `--var-file`): knobs too, as a default is.
    set_in_files: Rc<HashSet<String>>,
    /// Locals written as constants (`gpu_settings = { gpu_node_pool_count = 0 }`): knobs a
    /// user edits, as a variable's default is one a user sets.
    knobs: Rc<HashSet<String>>,
    /// Locals computed from variables and constants only, whether the variables have a
    /// value or not: what a user sets, not what a resource or data source returns.
    from_inputs: Rc<HashSet<String>>,
    /// The locals as when the module's toggles are on, when a toggle changes any.
    enabled: Option<Rc<crate::enable::Enabled>>,
    /// Each variable's `description`, where written as a string: what the author says it
    /// is for ("VM size for the GPU pool serving the LLM").
    descriptions: Rc<HashMap<String, String>>,
    /// Lower bounds on variables without a value that the block's own existence implies:
    /// a block made by `count = var.replicas > 0 ? 1 : 0`, read as made, has `replicas` of
    /// at least 1.
    bounds: Rc<HashMap<String, u64>>,
    /// The locals written as `cond ? a : b`, with where each branch is written: a machine
    /// type read through one (`instance_type = local.selected`) has a branch a user can
    /// switch to.
    conditionals: Rc<HashMap<String, Conditional>>,
}

/// A local written as a conditional, and where its branches are written.
#[derive(Debug)]
pub(crate) struct Conditional {
    pub(crate) expr: Expression,
    pub(crate) true_at: gpulint_model::Span,
    pub(crate) false_at: gpulint_model::Span,
}

thread_local! {
    /// The functions, declared once per thread: a context with no variables.
    static FUNCS: Context<'static> = {
        let mut ctx = Context::new();
        super::functions::declare(&mut ctx);
        ctx.declare_func(ITEM, FuncDef::builder().param(ParamType::Any).build(item));
        ctx.declare_func(KNOWN, FuncDef::builder().param(ParamType::Any).build(known));
        ctx.declare_func(IS_NULL, FuncDef::builder().param(ParamType::Any).build(is_null));
        ctx.declare_func(
            CONCAT,
            FuncDef::builder().variadic_param(ParamType::Any).build(concat),
        );
        ctx.declare_func(
            ARITH,
            FuncDef::builder()
                .params([ParamType::String, ParamType::Any, ParamType::Any])
                .build(super::arith::arith),
        );
        ctx
    };
}

/// Charges a value that evaluation made again (a `for` item, a function result, a value
/// referenced inside a `for`), and passes it through.
pub(crate) const ITEM: &str = "__gpulint_item";
/// A template's parts, joined as Terraform interpolates them.
pub(crate) const CONCAT: &str = "__gpulint_concat";
/// `a + b`, `a - b`, `a * b`, `a / b` and `a % b`, with the operator as a first argument.
const ARITH: &str = "__gpulint_arith";
/// Passes a value that holds no unknown part through, and fails on one that does: the
/// arguments of functions and operators whose result would not show it (`length`,
/// `upper`, `==`…).
const KNOWN: &str = "__gpulint_known";
/// `x == null`: decided for a collection whatever unknown parts it holds, failing as
/// unknown only for unknown text (which may stand for `null`).
const IS_NULL: &str = "__gpulint_is_null";

/// What stands for an attribute of a partly known object that has no value
/// (`subnet_ids = module.vpc.private_subnets` beside known sizes), so the object keeps its
/// known attributes. Text made from it contains it, and reads as unknown; functions and
/// operators that would hide it fail on it (`__gpulint_known`).
pub const UNKNOWN_TEXT: &str = "\u{1}gpulint:unknown\u{1}";

/// The message [`KNOWN`] fails with.
const HAS_UNKNOWN: &str = "a value with an unknown part";

/// Functions whose result shows an unknown part of their arguments (they copy, pick or
/// join values): the others get their arguments through [`KNOWN`].
const CARRY_UNKNOWN: [&str; 20] = [
    "merge",
    "concat",
    "flatten",
    "tomap",
    "tolist",
    "toset",
    "values",
    "keys",
    "one",
    "compact",
    "distinct",
    "zipmap",
    "slice",
    "coalesce",
    "coalescelist",
    "lookup",
    "element",
    "join",
    "tostring",
    // It renders the values it knows and leaves the others' interpolations as written.
    "templatefile",
];

/// A whole number as Terraform converts one: a number, or a string that reads as one.
pub fn whole_number(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Whether `v` holds [`UNKNOWN_TEXT`] anywhere.
pub fn has_unknown(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains(UNKNOWN_TEXT),
        Value::Array(items) => items.iter().any(has_unknown),
        Value::Object(m) => m.values().any(has_unknown),
        _ => false,
    }
}

fn known(args: FuncArgs) -> Result<Value, String> {
    let v = args.into_values().pop().unwrap_or(Value::Null);
    if has_unknown(&v) {
        Err(HAS_UNKNOWN.into())
    } else {
        Ok(v)
    }
}

#[allow(clippy::needless_pass_by_value)] // the signature hcl-rs calls
fn is_null(args: FuncArgs) -> Result<Value, String> {
    match args.into_values().pop().unwrap_or(Value::Null) {
        Value::Null => Ok(Value::Bool(true)),
        Value::String(s) if s.contains(UNKNOWN_TEXT) => Err(HAS_UNKNOWN.into()),
        _ => Ok(Value::Bool(false)),
    }
}

/// What one step of a `for`, or one function call, costs besides the bytes it makes.
const STEP: u64 = 256;

fn item(args: FuncArgs) -> Result<Value, String> {
    let v = args.into_values().pop().unwrap_or(Value::Null);
    if budget::charge(STEP + budget::size_of(&v)) {
        Ok(v)
    } else {
        Err(SPENT.into())
    }
}

const SPENT: &str = "the evaluation budget is spent";

/// `"a${x}b"`: strings, numbers and booleans as text; `null` and collections fail, as in
/// Terraform. The length is charged before the string is built.
#[allow(clippy::needless_pass_by_value)] // the signature hcl-rs calls
fn concat(args: FuncArgs) -> Result<Value, String> {
    let mut len = 0u64;
    for a in args.iter() {
        len += match a {
            Value::String(s) => s.len() as u64,
            Value::Number(_) | Value::Bool(_) => 24,
            Value::Null => return Err("interpolated a null value".into()),
            _ => return Err("interpolated a collection".into()),
        };
    }
    if !budget::charge(STEP + len) {
        return Err(SPENT.into());
    }
    let mut out = String::with_capacity(usize::try_from(len).unwrap_or(0));
    for a in args.iter() {
        match a {
            Value::String(s) => out.push_str(s),
            Value::Number(n) => out.push_str(&n.to_string()),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            _ => {}
        }
    }
    Ok(Value::String(out))
}

impl Scope {
    pub fn new(unknown: HashSet<String>) -> Self {
        Scope {
            vars: HashMap::new(),
            parent: None,
            unknown: Rc::new(unknown),
            origins: Arc::default(),
            defaulted: Rc::default(),
            set_in_files: Rc::default(),
            knobs: Rc::default(),
            from_inputs: Rc::default(),
            enabled: None,
            descriptions: Rc::default(),
            bounds: Rc::default(),
            conditionals: Rc::default(),
        }
    }

    /// Names the locals written as conditionals.
    pub(crate) fn set_conditionals(&mut self, locals: HashMap<String, Conditional>) {
        self.conditionals = Rc::new(locals);
    }

    /// The local `name`, when it is written as a conditional.
    pub(crate) fn conditional(&self, name: &str) -> Option<&Conditional> {
        self.conditionals.get(name)
    }

    /// Names each variable's description.
    pub fn set_descriptions(&mut self, descriptions: HashMap<String, String>) {
        self.descriptions = Rc::new(descriptions);
    }

    /// The description of `var.name`, where written.
    pub fn description_of(&self, name: &str) -> Option<&str> {
        self.descriptions.get(name).map(String::as_str)
    }

    /// Sets the locals as when the module's toggles are on.
    pub(crate) fn set_enabled(&mut self, on: crate::enable::Enabled) {
        self.enabled = Some(Rc::new(on));
    }

    /// The locals as when the module's toggles are on, when a toggle changes any.
    pub(crate) fn enabled(&self) -> Option<&crate::enable::Enabled> {
        self.enabled.as_deref()
    }

    /// Names the locals written as constants.
    pub(crate) fn set_knobs(&mut self, names: HashSet<String>) {
        self.knobs = Rc::new(names);
    }

    /// Names the locals computed from variables and constants only.
    pub(crate) fn set_from_inputs(&mut self, names: HashSet<String>) {
        self.from_inputs = Rc::new(names);
    }

    /// Whether `local.name` is computed from variables and constants only.
    pub(crate) fn is_from_inputs(&self, name: &str) -> bool {
        self.from_inputs.contains(name)
    }

    /// Whether `local.name` is written as a constant.
    pub(crate) fn is_knob(&self, name: &str) -> bool {
        self.knobs.contains(name)
    }

    /// Names the variables that hold their default.
    pub fn set_defaulted(&mut self, names: HashSet<String>) {
        self.defaulted = Rc::new(names);
    }

    /// Whether `var.name` holds its default.
    pub fn is_defaulted(&self, name: &str) -> bool {
        self.defaulted.contains(name)
    }

    /// Names a root module's variables that its variable files set.
    pub fn set_in_files(&mut self, names: HashSet<String>) {
        self.set_in_files = Rc::new(names);
    }

    /// Whether `var.name` is a knob a user sets: at its default, or set by a root module's
    /// variable file. A value a module call passes is the caller's, not a knob.
    pub fn is_user_knob(&self, name: &str) -> bool {
        self.defaulted.contains(name) || self.set_in_files.contains(name)
    }

    /// Whether `var.name` was set by a root module's variable file.
    pub fn is_set_in_files(&self, name: &str) -> bool {
        self.set_in_files.contains(name)
    }

    /// Sets where each variable's value was set, and gives it back to be recorded.
    pub fn set_origins(&mut self, origins: HashMap<Arc<str>, Vec<Related>>) -> Arc<Origins> {
        self.origins = Arc::new(Origins::new(origins));
        Arc::clone(&self.origins)
    }

    /// Where the value of the variable `expr` refers to was set (`var.gpu_min`,
    /// `var.groups["gpu"].min_size`): `None` for any other expression.
    pub fn origins_of(&self, expr: &Expression) -> Option<&[Related]> {
        if self.origins.is_empty() {
            return None;
        }
        let Expression::Traversal(t) = expr else {
            return None;
        };
        match (&t.expr, t.operators.first().map(hcl_edit::Decorated::value)) {
            (Expression::Variable(root), Some(TraversalOperator::GetAttr(name)))
                if root.as_str() == "var" =>
            {
                self.origins.get(name.as_str())
            }
            _ => None,
        }
    }

    /// Declares a root name (`var`, `local`).
    pub fn declare(&mut self, name: &str, value: Value) {
        self.vars.insert(name.to_string(), Rc::new(value));
    }

    /// Marks `local.name` (or `var.name`) as having no value.
    pub fn mark_unknown(&mut self, name: String) {
        Rc::make_mut(&mut self.unknown).insert(name);
    }

    /// This scope with one more name (`count`, `each`, an iterator): nothing is copied.
    pub fn with(self: &Rc<Self>, name: &str, value: Value) -> Rc<Scope> {
        let mut vars = HashMap::with_capacity(1);
        vars.insert(name.to_string(), Rc::new(value));
        self.child(vars, Rc::clone(&self.bounds))
    }

    /// This scope, knowing that `var.name` is at least `least`.
    pub(crate) fn with_bound(self: &Rc<Self>, name: &str, least: u64) -> Rc<Scope> {
        let mut bounds = (*self.bounds).clone();
        bounds.insert(name.to_string(), least);
        self.child(HashMap::new(), Rc::new(bounds))
    }

    /// A scope under this one holding `vars`, with `bounds`; everything else shared.
    fn child(
        self: &Rc<Self>,
        vars: HashMap<String, Rc<Value>>,
        bounds: Rc<HashMap<String, u64>>,
    ) -> Rc<Scope> {
        Rc::new(Scope {
            vars,
            parent: Some(Rc::clone(self)),
            unknown: Rc::clone(&self.unknown),
            origins: Arc::clone(&self.origins),
            defaulted: Rc::clone(&self.defaulted),
            set_in_files: Rc::clone(&self.set_in_files),
            knobs: Rc::clone(&self.knobs),
            from_inputs: Rc::clone(&self.from_inputs),
            enabled: self.enabled.clone(),
            descriptions: Rc::clone(&self.descriptions),
            bounds,
            conditionals: Rc::clone(&self.conditionals),
        })
    }

    fn lookup(&self, name: &str) -> Option<&Rc<Value>> {
        let mut scope = self;
        loop {
            if let Some(v) = scope.vars.get(name) {
                return Some(v);
            }
            scope = scope.parent.as_deref()?;
        }
    }

    fn is_unknown(&self, root: &str, attr: &str) -> bool {
        (root == "var" || root == "local") && self.unknown.contains(&format!("{root}.{attr}"))
    }

    /// A lower bound of a whole number written as `max(…)` with operands that evaluate:
    /// `max(2, var.floor)` is at least 2. `None` otherwise. Callers ask it of a number
    /// that did not evaluate whole.
    pub fn at_least(&self, expr: &Expression) -> Option<u64> {
        let mut e = expr;
        while let Expression::Parenthesis(p) = e {
            e = p.inner();
        }
        // `var.replicas` where the block's existence bounds it.
        if let Some(name) = crate::instances::bare_variable(e) {
            return self.bounds.get(name).copied();
        }
        let Expression::FuncCall(f) = e else {
            return None;
        };
        if f.name.name.as_str() != "max" || !f.name.namespace.is_empty() {
            return None;
        }
        f.args
            .iter()
            .filter_map(|a| whole_number(&self.eval(a)?))
            .max()
    }

    /// Evaluates an expression; `None` when it does not evaluate, or when the budget is
    /// spent. What it returns is charged: values that are kept (locals, inputs) count.
    pub fn eval(&self, expr: &Expression) -> Option<Value> {
        if budget::spent() {
            // A literal costs no more than its text: still read it.
            return is_literal(expr, 0)
                .then(|| eval_plain(&hcl::Expression::from(expr.clone())))
                .flatten();
        }
        let e = Convert {
            scope: self,
            bound: Vec::new(),
            unknowns: std::cell::Cell::new(0),
        }
        .expr(expr, 0);
        let v = eval_plain(&e)?;
        budget::charge(budget::size_of(&v)).then_some(v)
    }
}

impl Scope {
    /// [`Scope::eval`] of an expression in `file`: when it fails because the budget is
    /// spent, this is where the limit was hit.
    pub fn eval_in(&self, expr: &Expression, file: TfFile<'_>) -> Option<Value> {
        let v = self.eval(expr);
        if v.is_none() && budget::spent() {
            let range = hcl_edit::Span::span(expr).unwrap_or(0..0);
            budget::record_spent(file.id, in_file(file.remap, range));
        }
        v
    }

    /// Removes a root name, giving back its value (copied only if still shared).
    pub fn take(&mut self, name: &str) -> Option<Value> {
        let v = self.vars.remove(name)?;
        Some(Rc::try_unwrap(v).unwrap_or_else(|v| (*v).clone()))
    }
}

/// Evaluates an hcl-rs expression that names no variables (a type's default, a converted
/// expression) with the functions.
pub fn eval_plain(e: &hcl::Expression) -> Option<Value> {
    FUNCS.with(|ctx| e.evaluate(ctx)).ok()
}

/// Whether an expression is written out in full: no reference, function or template.
fn is_literal(e: &Expression, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    match e {
        Expression::Null(_)
        | Expression::Bool(_)
        | Expression::Number(_)
        | Expression::String(_) => true,
        Expression::Array(items) => items.iter().all(|i| is_literal(i, depth + 1)),
        Expression::Object(o) => o
            .iter()
            .all(|(k, v)| matches!(k, ObjectKey::Ident(_)) && is_literal(v.expr(), depth + 1)),
        Expression::Parenthesis(p) => is_literal(p.inner(), depth + 1),
        _ => false,
    }
}

/// Whether an evaluation failed for want of a value (a reference to nothing gpulint has,
/// an unknown part reaching a function that would hide it), not because it is wrong.
fn wants_value(e: &hcl::eval::Error) -> bool {
    is_unknown(e.kind()) || e.to_string().contains(HAS_UNKNOWN)
}

/// An error that means "no value here", not "this is wrong".
fn is_unknown(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::UndefinedVar(_) | ErrorKind::UndefinedFunc(_)
    )
}

/// A variable that is never declared: evaluating it fails as unknown.
pub fn unknown_marker() -> hcl::Expression {
    hcl::Expression::Variable(Identifier::unchecked("__gpulint_unknown__").into())
}

fn call(name: &str, args: Vec<hcl::Expression>) -> hcl::Expression {
    let mut f = hcl::expr::FuncCall::new(Identifier::unchecked(name));
    f.args = args;
    hcl::Expression::FuncCall(Box::new(f))
}

/// One expression's conversion: `bound` are the names a `for` around it declares, which
/// only hcl-rs knows while it iterates.
struct Convert<'s> {
    scope: &'s Scope,
    bound: Vec<String>,
    /// How many unknown markers the conversion made: an object with none inside it is
    /// known whole, and is not evaluated attribute by attribute.
    unknowns: std::cell::Cell<usize>,
}

impl Convert<'_> {
    /// A value gpulint does not have, counted.
    fn unknown(&self) -> hcl::Expression {
        self.unknowns.set(self.unknowns.get() + 1);
        unknown_marker()
    }

    fn expr(&mut self, e: &Expression, depth: usize) -> hcl::Expression {
        use hcl::Expression as H;
        // hcl-edit reads at most 64 levels; values inlined below count in the budget.
        if depth > 128 {
            return self.unknown();
        }
        let d = depth + 1;
        match e {
            Expression::Null(_) => H::Null,
            Expression::Bool(b) => H::Bool(*b.value()),
            Expression::Number(n) => H::Number(*n.value()),
            Expression::String(s) => H::String(s.value().clone()),
            Expression::Array(items) => H::Array(items.iter().map(|i| self.expr(i, d)).collect()),
            Expression::Object(o) => {
                let before = self.unknowns.get();
                let mut out = hcl::Object::new();
                for (k, v) in o {
                    let key = match k {
                        ObjectKey::Ident(i) => {
                            hcl::ObjectKey::Identifier(Identifier::unchecked(i.as_str()))
                        }
                        // A bare name is a literal key in Terraform, whatever it names.
                        ObjectKey::Expression(Expression::Variable(v)) => {
                            hcl::ObjectKey::Identifier(Identifier::unchecked(v.as_str()))
                        }
                        ObjectKey::Expression(x) => {
                            let before_key = self.unknowns.get();
                            let k = self.expr(x, d);
                            if self.unknowns.get() != before_key {
                                // A key gpulint cannot name (`"owned/${random_id.x.hex}"`):
                                // the entry stays, unknown under a name no lookup matches,
                                // and the object's other entries are kept.
                                let name = format!("__gpulint_unknown_key_{}__", out.len());
                                out.insert(
                                    hcl::ObjectKey::Identifier(Identifier::unchecked(name)),
                                    hcl::Expression::String(UNKNOWN_TEXT.into()),
                                );
                                continue;
                            }
                            hcl::ObjectKey::Expression(k)
                        }
                    };
                    out.insert(key, self.expr(v.expr(), d));
                }
                if self.unknowns.get() == before {
                    H::Object(out)
                } else {
                    self.partly_known(out)
                }
            }
            Expression::StringTemplate(t) => self.template(t.iter(), None, d),
            Expression::HeredocTemplate(h) => self.template(h.template.iter(), h.indent(), d),
            Expression::Parenthesis(p) => H::Parenthesis(Box::new(self.expr(p.inner(), d))),
            Expression::Variable(v) => self.reference(v.as_str(), &[], d),
            Expression::Traversal(t) => match &t.expr {
                Expression::Variable(root) => self.reference(root.as_str(), &t.operators, d),
                other => {
                    let base = self.expr(other, d);
                    let ops = self.operators(&t.operators, d);
                    H::from(hcl::expr::Traversal::new(base, ops))
                }
            },
            Expression::Conditional(c) => H::from(hcl::expr::Conditional::new(
                self.expr(&c.cond_expr, d),
                self.expr(&c.true_expr, d),
                self.expr(&c.false_expr, d),
            )),
            Expression::UnaryOp(u) => H::from(hcl::expr::UnaryOp::new(
                *u.operator.value(),
                self.expr(&u.expr, d),
            )),
            Expression::BinaryOp(b) => {
                use hcl::expr::BinaryOperator as Op;
                let (lhs, rhs) = (self.expr(&b.lhs_expr, d), self.expr(&b.rhs_expr, d));
                let arith = match b.operator.value() {
                    Op::Plus => "+",
                    Op::Minus => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                    Op::Mod => "%",
                    &op @ (Op::Eq | Op::NotEq) => {
                        // Against `null` a value is decided by being one: an object with an
                        // unknown part is not null (`{ for k, v in m : k => v if v != null }`).
                        let other = match (&b.lhs_expr, &b.rhs_expr) {
                            (_, Expression::Null(_)) => Some(lhs.clone()),
                            (Expression::Null(_), _) => Some(rhs.clone()),
                            _ => None,
                        };
                        if let Some(other) = other {
                            let test = call(IS_NULL, vec![other]);
                            return if op == Op::Eq {
                                test
                            } else {
                                H::from(hcl::expr::UnaryOp::new(
                                    hcl::expr::UnaryOperator::Not,
                                    test,
                                ))
                            };
                        }
                        let (lhs, rhs) = (call(KNOWN, vec![lhs]), call(KNOWN, vec![rhs]));
                        return H::from(hcl::expr::BinaryOp::new(lhs, op, rhs));
                    }
                    &op => return H::from(hcl::expr::BinaryOp::new(lhs, op, rhs)),
                };
                call(ARITH, vec![H::from(arith), lhs, rhs])
            }
            Expression::FuncCall(f) => {
                if !f.name.namespace.is_empty() {
                    // `provider::aws::arn_parse(…)`: no provider functions here.
                    return self.unknown();
                }
                let name = f.name.name.as_str();
                // A function gpulint does not evaluate, or a regular-expression replace,
                // has no value here: unknown, as a reference to nothing gpulint has is.
                let regex = name == "replace"
                    && matches!(f.args.get(1), Some(Expression::String(p))
                        if super::functions::is_regex(p));
                if regex || !(super::functions::declared(name) || matches!(name, "try" | "can")) {
                    return self.unknown();
                }
                let mut args: Vec<H> = f.args.iter().map(|a| self.expr(a, d)).collect();
                if !CARRY_UNKNOWN.contains(&name) && !matches!(name, "try" | "can") {
                    args = args.into_iter().map(|a| call(KNOWN, vec![a])).collect();
                }
                if matches!(name, "try" | "can") {
                    return self.decide_try(name == "can", &args);
                }
                if name == "coalesce" && self.bound.is_empty() && !f.args.expand_final() {
                    return self.decide_coalesce(&args);
                }
                let mut call_expr = hcl::expr::FuncCall::new(Identifier::unchecked(name));
                call_expr.args = args;
                call_expr.expand_final = f.args.expand_final();
                call(ITEM, vec![H::FuncCall(Box::new(call_expr))])
            }
            Expression::ForExpr(f) => {
                let collection = self.expr(&f.intro.collection_expr, d);
                let key_var = f.intro.key_var.as_ref().map(|k| k.as_str().to_string());
                let value_var = f.intro.value_var.as_str().to_string();
                let outer = self.bound.len();
                self.bound.extend(key_var.iter().cloned());
                self.bound.push(value_var.clone());
                let key_expr = f
                    .key_expr
                    .as_ref()
                    .map(|k| call(ITEM, vec![self.expr(k, d)]));
                let value_expr = call(ITEM, vec![self.expr(&f.value_expr, d)]);
                let cond_expr = f
                    .cond
                    .as_ref()
                    .map(|c| call(ITEM, vec![self.expr(&c.expr, d)]));
                self.bound.truncate(outer);
                H::ForExpr(Box::new(hcl::expr::ForExpr {
                    key_var: key_var.map(Identifier::unchecked),
                    value_var: Identifier::unchecked(value_var),
                    collection_expr: collection,
                    key_expr,
                    value_expr,
                    grouping: f.grouping,
                    cond_expr,
                }))
            }
        }
    }

    fn operators(
        &mut self,
        ops: &[hcl_edit::Decorated<TraversalOperator>],
        d: usize,
    ) -> Vec<hcl::expr::TraversalOperator> {
        use hcl::expr::TraversalOperator as T;
        ops.iter()
            .map(|op| match op.value() {
                TraversalOperator::AttrSplat(_) => T::AttrSplat,
                TraversalOperator::FullSplat(_) => T::FullSplat,
                TraversalOperator::GetAttr(k) => T::GetAttr(Identifier::unchecked(k.as_str())),
                TraversalOperator::Index(e) => T::Index(self.expr(e, d)),
                TraversalOperator::LegacyIndex(n) => T::LegacyIndex(*n.value()),
            })
            .collect()
    }

    /// `root.a["b"][0]…`: as much of the path as can be followed now is replaced by the
    /// value it reaches (only that part is copied); the rest is left to hcl-rs.
    fn reference(
        &mut self,
        root: &str,
        ops: &[hcl_edit::Decorated<TraversalOperator>],
        d: usize,
    ) -> hcl::Expression {
        let with_ops = |base: hcl::Expression, ops: Vec<hcl::expr::TraversalOperator>| {
            if ops.is_empty() {
                base
            } else {
                hcl::Expression::from(hcl::expr::Traversal::new(base, ops))
            }
        };
        if self.bound.iter().any(|b| b == root) {
            let ops = self.operators(ops, d);
            return with_ops(
                hcl::Expression::Variable(Identifier::unchecked(root).into()),
                ops,
            );
        }
        if let Some(TraversalOperator::GetAttr(first)) = ops.first().map(hcl_edit::Decorated::value)
            && self.scope.is_unknown(root, first.as_str())
        {
            return self.unknown();
        }
        // Resources, data sources, `path`, `terraform`: not values gpulint has.
        let Some(value) = self.scope.lookup(root) else {
            return self.unknown();
        };
        let mut v: &Value = value;
        let mut followed = 0;
        for op in ops {
            let next = match op.value() {
                TraversalOperator::GetAttr(k) => match v {
                    Value::Object(m) => m.get(k.as_str()),
                    _ => None,
                },
                TraversalOperator::Index(e) => match (v, self.expr(e, d)) {
                    (Value::Object(m), hcl::Expression::String(k)) => m.get(&k),
                    (Value::Array(a), hcl::Expression::Number(n)) => n
                        .as_u64()
                        .and_then(|n| usize::try_from(n).ok())
                        .and_then(|n| a.get(n)),
                    _ => None,
                },
                TraversalOperator::LegacyIndex(n) => match v {
                    Value::Array(a) => usize::try_from(*n.value()).ok().and_then(|n| a.get(n)),
                    _ => None,
                },
                TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => None,
            };
            match next {
                Some(n) => {
                    v = n;
                    followed += 1;
                }
                None => break,
            }
        }
        let rest = &ops[followed..];
        // A missing attribute fails on an empty object just as on this one, uncopied.
        let missing_attr = matches!(
            (rest.first().map(hcl_edit::Decorated::value), v),
            (Some(TraversalOperator::GetAttr(_)), Value::Object(_))
        );
        let base = if missing_attr {
            hcl::Expression::Object(hcl::Object::new())
        } else {
            self.literal(v)
        };
        let ops = self.operators(rest, d);
        with_ops(base, ops)
    }

    /// An object constructor whose attributes gpulint cannot all evaluate keeps those it
    /// can: an attribute that is a reference to nothing gpulint has (a module output, a
    /// data source) becomes [`UNKNOWN_TEXT`]; outside a `for`, an object that fails for
    /// want of a value is evaluated attribute by attribute, each failing one made
    /// [`UNKNOWN_TEXT`] and the rest kept as their values (so it is not evaluated again).
    fn partly_known(
        &self,
        mut out: hcl::Object<hcl::ObjectKey, hcl::Expression>,
    ) -> hcl::Expression {
        let marker = unknown_marker();
        for v in out.values_mut() {
            crate::unknown::carry(v, &marker, 0);
        }
        // Inside a `for` the object is evaluated with the items: an attribute that still
        // reads an unknown value would fail every item, so it is unknown on its own.
        if !self.bound.is_empty() {
            for v in out.values_mut() {
                if crate::unknown::holds(v, &marker, 0) {
                    *v = hcl::Expression::String(UNKNOWN_TEXT.into());
                }
            }
        }
        let object = hcl::Expression::Object(out);
        if !self.bound.is_empty() || budget::spent() {
            return object;
        }
        match FUNCS.with(|ctx| object.evaluate(ctx)) {
            Ok(v) => self.literal(&v),
            Err(e) if wants_value(&e) => {
                let hcl::Expression::Object(out) = object else {
                    unreachable!("built as an object above")
                };
                let mut known = hcl::Object::new();
                for (k, v) in out {
                    let v = match FUNCS.with(|ctx| v.evaluate(ctx)) {
                        Ok(v) => self.literal(&v),
                        Err(e) if wants_value(&e) => hcl::Expression::String(UNKNOWN_TEXT.into()),
                        Err(_) => return self.unknown(),
                    };
                    known.insert(k, v);
                }
                hcl::Expression::Object(known)
            }
            Err(_) => object,
        }
    }

    /// A value as an expression, charged; inside a `for` it is charged at every step.
    fn literal(&self, v: &Value) -> hcl::Expression {
        if !budget::charge(budget::size_of(v)) {
            return self.unknown();
        }
        let e = hcl::Expression::from(v.clone());
        if self.bound.is_empty() {
            e
        } else {
            call(ITEM, vec![e])
        }
    }

    /// `try(a, b, …)`: the first argument that evaluates, unless an earlier one failed only
    /// for want of a value gpulint does not have (or a spent budget). `can(a)`: whether `a`
    /// evaluates.
    fn decide_try(&self, can: bool, args: &[hcl::Expression]) -> hcl::Expression {
        for arg in args {
            let result = FUNCS.with(|ctx| arg.evaluate(ctx));
            match result {
                Ok(v) if can => {
                    drop(v);
                    return true.into();
                }
                Ok(v) => return self.literal(&v),
                Err(_) if budget::spent() => return self.unknown(),
                Err(err) if is_unknown(err.kind()) => return self.unknown(),
                Err(_) if can => return false.into(),
                Err(_) => {}
            }
        }
        self.unknown()
    }

    /// `coalesce(a, b, …)` outside a `for`: the first argument that is neither null nor
    /// `""`, evaluated in order, so a known first choice is known whatever follows
    /// (`coalesce("g6e.xlarge", var.type)`); an unknown argument before it makes the result
    /// unknown, as in Terraform.
    fn decide_coalesce(&self, args: &[hcl::Expression]) -> hcl::Expression {
        for arg in args {
            match FUNCS.with(|ctx| arg.evaluate(ctx)) {
                Ok(Value::Null) => {}
                Ok(Value::String(s)) if s.is_empty() => {}
                Ok(v) => return self.literal(&v),
                Err(_) => return self.unknown(),
            }
        }
        self.unknown()
    }

    /// A template as a guarded concatenation of its parts; a lone `${x}` is `x` itself.
    /// `%{if}` and `%{for}` directives are not evaluated (unknown). `indent` is a `<<-`
    /// heredoc's: that many leading spaces come off every line.
    fn template<'e>(
        &mut self,
        elements: impl Iterator<Item = &'e Element>,
        indent: Option<usize>,
        d: usize,
    ) -> hcl::Expression {
        let elements: Vec<&Element> = elements.collect();
        if let [Element::Interpolation(i)] = elements[..] {
            return self.expr(&i.expr, d);
        }
        let mut parts: Vec<hcl::Expression> = Vec::with_capacity(elements.len());
        let mut line_start = true;
        let mut strip_next = false;
        for (n, el) in elements.iter().enumerate() {
            match el {
                Element::Literal(l) => {
                    let mut text = match indent {
                        Some(k) => dedent(l.value(), k, line_start),
                        None => l.value().clone(),
                    };
                    line_start = text.ends_with('\n');
                    if strip_next {
                        text = text.trim_start().to_string();
                    }
                    if let Some(Element::Interpolation(next)) = elements.get(n + 1)
                        && next.strip.strip_start()
                    {
                        text = text.trim_end().to_string();
                    }
                    strip_next = false;
                    parts.push(hcl::Expression::String(text));
                }
                Element::Interpolation(i) => {
                    parts.push(self.expr(&i.expr, d));
                    strip_next = i.strip.strip_end();
                    line_start = false;
                }
                Element::Directive(_) => return self.unknown(),
            }
        }
        call(CONCAT, parts)
    }
}

/// `text` with up to `k` leading spaces taken off each line that starts in it (the first
/// only when it starts a line).
fn dedent(text: &str, k: usize, line_start: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i > 0 || line_start {
            let spaces = line.bytes().take(k).take_while(|b| *b == b' ').count();
            out.push_str(&line[spaces..]);
        } else {
            out.push_str(line);
        }
    }
    out
}
