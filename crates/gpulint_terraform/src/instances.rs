//! Instances and values: `count` and `for_each` expanded into keyed instances, variable
//! values converted to their declared types with optional defaults, and locals resolved in
//! dependency order.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::enable::is_off;
use gpulint_source::limits::Limit;
use hcl_edit::Span as _;
use hcl_edit::expr::{Expression, TraversalOperator};
use hcl_edit::structure::Block as EditBlock;
use hcl_edit::visit::{Visit, visit_expr};

use super::{Instance, Key, TfFile, budget, in_file, instances_over};
use crate::eval::Scope;

/// A value as Terraform converts it to a type constraint: attributes an `object({…})`
/// declares `optional(T, default)` are added with their default (or `null`) when absent
/// or null, through `map`, `list`, `set` and nested objects. Anything else is unchanged.
pub(crate) fn with_type_defaults(v: hcl::Value, ty: &hcl::Expression, depth: usize) -> hcl::Value {
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
pub(crate) fn expand<'a>(
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
    let mut toggled = None;
    if let Some(count) = block.body.get_attribute("count") {
        let mut value = scope.eval_in(&count.value, file);
        // Off only by default: read the branch a user can switch on.
        if matches!(&value, Some(hcl::Value::Number(n)) if n.as_u64() == Some(0))
            && let Some((v, t)) = other_branch(scope, &count.value, file)
        {
            value = Some(v);
            toggled = Some(t);
        }
        // A condition gpulint cannot evaluate: read the branch that makes something, and
        // what that branch says of the variable it tests (`var.n > 0`: at least 1).
        let mut scope = scope;
        let bounded;
        if value.is_none()
            && let Some((v, t)) = on_branch(scope, &count.value, file)
        {
            if let Some((name, least)) = implied_bound(&count.value) {
                bounded = scope.with_bound(&name, least);
                scope = &bounded;
            }
            value = Some(v);
            toggled = Some(t);
        }
        if let Some(hcl::Value::Number(n)) = value
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
            return toggled.map_or(Expansion::Known, Expansion::Toggled);
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
        unexpanded(file, block, &count.value, "count");
        return Expansion::Unknown;
    }
    if let Some(each) = block.body.get_attribute("for_each") {
        let mut value = scope.eval_in(&each.value, file);
        let empty = |v: &hcl::Value| match v {
            hcl::Value::Object(m) => m.is_empty(),
            hcl::Value::Array(a) => a.is_empty(),
            _ => false,
        };
        if value.as_ref().is_some_and(empty)
            && let Some((v, t)) = other_branch(scope, &each.value, file)
        {
            value = Some(v);
            toggled = Some(t);
        }
        if value.is_none()
            && let Some((v, t)) = on_branch(scope, &each.value, file)
        {
            value = Some(v);
            toggled = Some(t);
        }
        // Entries a user switches on (`if g.enable`, `merge(local.cpu, var.gpu ?
        // local.gpu : {})`, through locals too) are read on beside those on as written;
        // the caveat is theirs alone.
        if toggled.is_none()
            && let Some(hcl::Value::Object(written)) = &value
            && let Some((on, on_scope, mut t)) =
                crate::enable::switched_on(scope, &each.value, &|e| span_in(file, e))
            && let Some(hcl::Value::Object(all)) = on_scope.eval_in(&on, file)
        {
            let mut both = written.clone();
            for (k, v) in all {
                if !both.contains_key(&k) {
                    t.keys.push(k.clone());
                    both.insert(k, v);
                }
            }
            if !t.keys.is_empty() {
                value = Some(hcl::Value::Object(both));
                toggled = Some(t);
            }
        }
        let items: Vec<(String, hcl::Value)> = match value {
            Some(hcl::Value::Object(map)) => map.into_iter().collect(),
            // A set of strings: each.key and each.value are the string.
            Some(hcl::Value::Array(items)) => items
                .into_iter()
                .filter_map(|v| match v {
                    hcl::Value::String(s) => Some((s.clone(), hcl::Value::String(s))),
                    _ => None,
                })
                .collect(),
            _ => {
                unexpanded(file, block, &each.value, "for_each");
                return Expansion::Unknown;
            }
        };
        if items.len() > max {
            over(&each.value, items.len());
        }
        for (k, v) in items.into_iter().take(max) {
            let each = key_value(hcl::Value::String(k.clone()), v);
            push(Some(Key::Name(k)), scope.with("each", each));
        }
        return toggled.map_or(Expansion::Known, Expansion::Toggled);
    }
    push(None, Rc::clone(scope));
    Expansion::Known
}

/// Whether a block's `count`/`for_each` was known, so that its instances (maybe none)
/// are all there are; or read as when enabled, its value off only by default.
#[derive(PartialEq, Eq)]
pub(crate) enum Expansion {
    Known,
    Unknown,
    Toggled(Toggled),
}

/// A `count` or `for_each` that is 0 or empty only through the defaults of the variables
/// in its condition: what enables it, and where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toggled {
    condition: String,
    span: gpulint_model::Span,
    /// What keeps it off as written.
    off: Off,
    /// The instances (`for_each` keys) only the toggle makes; empty: all of them.
    keys: Vec<String>,
}

/// What keeps a toggled block off as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Off {
    /// The defaults of the variables (or constant locals) in its condition.
    Default,
    /// A variable file of the root.
    InFiles,
    /// Nothing known: the condition could not be evaluated (a variable with no value, a
    /// data source), and the block is read as when it holds.
    Unknown,
    /// An entry's own flag in a `for` filter (`g.enable`): the entry is read as on.
    Entry,
}

impl Toggled {
    pub(crate) fn new(condition: String, span: gpulint_model::Span) -> Self {
        Toggled {
            condition,
            span,
            off: Off::Default,
            keys: Vec::new(),
        }
    }

    /// Notes whether the condition of `cond ? a : b` (`expr`) is off as a variable file
    /// sets it, rather than by default.
    pub(crate) fn set_by(mut self, scope: &Scope, expr: &Expression) -> Self {
        if let Expression::Conditional(c) = expr
            && roots(&c.cond_expr).iter().any(|(root, attr)| {
                root == "var" && attr.as_deref().is_some_and(|a| scope.is_set_in_files(a))
            })
        {
            self.off = Off::InFiles;
        }
        self
    }

    /// An entry's own flag in a `for` filter (`g.enable`), false for some entry.
    pub(crate) fn for_entry(condition: String, span: gpulint_model::Span) -> Self {
        Toggled {
            off: Off::Entry,
            ..Toggled::new(condition, span)
        }
    }

    /// Records the toggle for the entries `keys` that it alone adds to an input map of the
    /// module call at `subject`: findings below the call that name one carry it.
    pub fn record_entries(self, subject: &str, files: &[gpulint_source::FileId], keys: &[String]) {
        for key in keys {
            self.clone()
                .record_one(subject.to_string(), files.to_vec(), true, Some(key.clone()));
        }
    }

    /// Records the toggle for the block at `subject` (its address without instance key),
    /// written in the module of `files`; `call`: the block is a module call.
    pub fn record(self, subject: String, files: Vec<gpulint_source::FileId>, call: bool) {
        self.record_one(subject, files, call, None);
    }

    fn record_one(
        self,
        subject: String,
        files: Vec<gpulint_source::FileId>,
        call: bool,
        entry: Option<String>,
    ) {
        if !self.keys.is_empty() {
            for key in &self.keys {
                let one = Toggled {
                    keys: Vec::new(),
                    ..self.clone()
                };
                // As instance subjects spell their keys (`Key::Name`).
                one.record(format!("{subject}[{key:?}]"), files.clone(), call);
            }
            return;
        }
        crate::eval::record_caveat(gpulint_model::Caveat {
            subject,
            files,
            inside_calls: call,
            entry,
            note: match self.off {
                Off::Entry => format!(
                    "when its entry is switched on: `{}` turns entries off, and gpulint \
                     reads each as on",
                    self.condition
                ),
                Off::Unknown => format!(
                    "when `{}` holds: gpulint cannot evaluate it, and reads the branch that \
                     makes it",
                    self.condition
                ),
                Off::InFiles => format!(
                    "when enabled: a variable file switches it off through `{}`",
                    self.condition
                ),
                Off::Default => {
                    format!("when enabled: off by default through `{}`", self.condition)
                }
            },
            label: match self.off {
                Off::Entry => format!("entries switched off by `{}`", self.condition),
                Off::Unknown => format!("read as when `{}` holds", self.condition),
                Off::InFiles => format!("switched off by a variable file: `{}`", self.condition),
                Off::Default => format!("off by default: `{}`", self.condition),
            },
            span: self.span,
        });
    }
}

/// The variable an expression is, and nothing else: `var.replicas` gives `replicas`.
pub(crate) fn bare_variable(expr: &Expression) -> Option<&str> {
    bare_reference(expr, "var")
}

/// The name an expression is under `root`, and nothing else: `local.selected` gives
/// `selected` under `local`.
pub(crate) fn bare_reference<'e>(expr: &'e Expression, root: &str) -> Option<&'e str> {
    let Expression::Traversal(t) = expr else {
        return None;
    };
    let (Expression::Variable(written), [op]) = (&t.expr, &t.operators[..]) else {
        return None;
    };
    match op.value() {
        TraversalOperator::GetAttr(name) if written.as_str() == root => Some(name.as_str()),
        _ => None,
    }
}

/// The references an expression makes: each traversal's root (`var`, `local`, a resource
/// type) and its first attribute.
pub(crate) fn roots(expr: &Expression) -> Vec<(String, Option<String>)> {
    struct Roots(Vec<(String, Option<String>)>);
    impl Visit for Roots {
        fn visit_traversal(&mut self, node: &hcl_edit::expr::Traversal) {
            if let Expression::Variable(root) = &node.expr {
                let attr = match node.operators.first().map(hcl_edit::Decorated::value) {
                    Some(TraversalOperator::GetAttr(a)) => Some(a.as_str().to_string()),
                    _ => None,
                };
                self.0.push((root.as_str().to_string(), attr));
            }
            hcl_edit::visit::visit_traversal(self, node);
        }
    }
    let mut roots = Roots(Vec::new());
    visit_expr(&mut roots, expr);
    roots.0
}

/// Records a block left out because its `count` or `for_each` (`key`) cannot be evaluated.
fn unexpanded(file: TfFile<'_>, block: &EditBlock, expr: &Expression, key: &'static str) {
    let labels: Vec<&str> = block
        .labels
        .iter()
        .map(hcl_edit::structure::BlockLabel::as_str)
        .collect();
    let address = match (block.ident.as_str(), &labels[..]) {
        ("resource", [rtype, name, ..]) => format!("{rtype}.{name}"),
        ("module", [name, ..]) => format!("module.{name}"),
        _ => return,
    };
    crate::eval::record_unexpanded(gpulint_model::Unexpanded {
        address,
        key,
        span: gpulint_model::Span::new(file.id, in_file(file.remap, expr.span().unwrap_or(0..0))),
    });
}

/// The branch of `cond ? a : b` that `cond` does not take, evaluated, when `cond` reads
/// only knobs a user sets: variables that hold their default, and locals written as
/// constants. That is what a user who sets them gets. A condition on anything else (a
/// computed local, a resource, `count.index`) is left alone.
fn other_branch(
    scope: &Rc<Scope>,
    expr: &Expression,
    file: TfFile<'_>,
) -> Option<(hcl::Value, Toggled)> {
    let (other, condition) = untaken(scope, expr, |e| scope.eval_in(e, file))?;
    let value = scope.eval_in(other, file)?;
    let toggle = Toggled::new(condition, span_in(file, expr)).set_by(scope, expr);
    Some((value, toggle))
}

/// For `cond ? a : b` whose condition does not evaluate for want of what a user sets (a
/// variable with no value, a local computed from such) and one of whose branches makes
/// nothing (`0`, `{}`, `[]`), the other branch, evaluated: a block written to be switched
/// on is reviewed as switched on. A condition on a resource or data source is left alone.
/// `None` when the other branch does not evaluate either.
fn on_branch(
    scope: &Rc<Scope>,
    expr: &Expression,
    file: TfFile<'_>,
) -> Option<(hcl::Value, Toggled)> {
    let Expression::Conditional(c) = expr else {
        return None;
    };
    // Only what a user sets: a condition on a resource or a data source may never hold.
    let inputs = roots(&c.cond_expr);
    let user_set = !inputs.is_empty()
        && inputs
            .iter()
            .all(|(root, attr)| match (root.as_str(), attr) {
                ("var", Some(_)) => true,
                ("local", Some(l)) => scope.is_from_inputs(l),
                _ => false,
            });
    if !user_set || scope.eval(&c.cond_expr).is_some() {
        return None;
    }
    let (t, f) = (scope.eval(&c.true_expr), scope.eval(&c.false_expr));
    let on = match (t, f) {
        (Some(t), Some(f)) if is_off(&f) && !is_off(&t) => t,
        (Some(t), Some(f)) if is_off(&t) && !is_off(&f) => f,
        _ => return None,
    };
    let condition = c.cond_expr.to_string().trim().to_string();
    let toggle = Toggled {
        off: Off::Unknown,
        ..Toggled::new(condition, span_in(file, expr))
    };
    Some((on, toggle))
}

/// The lower bound `cond ? a : b` puts on the variable its condition tests, in the branch
/// that makes something (`a` when `b` is `0`, else `b`): `var.n > 0 ? 1 : 0` and
/// `var.n == 0 ? 0 : 1` both mean `n` is at least 1. `None` for any other shape.
fn implied_bound(expr: &Expression) -> Option<(String, u64)> {
    use hcl_edit::expr::BinaryOperator as Op;
    let Expression::Conditional(c) = expr else {
        return None;
    };
    let zero = |e: &Expression| matches!(e, Expression::Number(n) if n.value().as_u64() == Some(0));
    let holds = if zero(&c.false_expr) {
        true
    } else if zero(&c.true_expr) {
        false
    } else {
        return None;
    };
    let Expression::BinaryOp(b) = &c.cond_expr else {
        return None;
    };
    let name = bare_variable(&b.lhs_expr)?;
    let Expression::Number(n) = &b.rhs_expr else {
        return None;
    };
    let n = n.value().as_u64()?;
    let least = match (holds, *b.operator.value()) {
        (true, Op::Greater) | (false, Op::LessEq) => n.checked_add(1)?,
        (true, Op::GreaterEq) | (false, Op::Less) => n,
        (true, Op::NotEq) | (false, Op::Eq) if n == 0 => 1,
        _ => return None,
    };
    (least > 0).then(|| (name.to_string(), least))
}

/// Where `expr` is written in `file`.
pub(crate) fn span_in(file: TfFile<'_>, expr: &Expression) -> gpulint_model::Span {
    gpulint_model::Span::new(file.id, in_file(file.remap, expr.span().unwrap_or(0..0)))
}

/// The branch `cond ? a : b` does not take, and its condition as written, when `cond`
/// reads only knobs a user sets (see [`other_branch`]); `eval` evaluates the condition.
pub(crate) fn untaken<'e>(
    scope: &Scope,
    expr: &'e Expression,
    eval: impl Fn(&Expression) -> Option<hcl::Value>,
) -> Option<(&'e Expression, String)> {
    let Expression::Conditional(c) = expr else {
        return None;
    };
    let knobs = roots(&c.cond_expr);
    let all_knobs = knobs
        .iter()
        .all(|(root, attr)| match (root.as_str(), attr) {
            ("var", Some(name)) => scope.is_user_knob(name),
            ("local", Some(name)) => scope.is_knob(name),
            _ => false,
        });
    if knobs.is_empty() || !all_knobs {
        return None;
    }
    let hcl::Value::Bool(taken) = eval(&c.cond_expr)? else {
        return None;
    };
    let other = if taken { &c.false_expr } else { &c.true_expr };
    Some((other, c.cond_expr.to_string().trim().to_string()))
}

/// `each`, or a `dynamic` block's iterator: `{ key, value }`.
pub(crate) fn key_value(key: hcl::Value, value: hcl::Value) -> hcl::Value {
    let mut obj = hcl::Map::new();
    obj.insert("key".to_string(), key);
    obj.insert("value".to_string(), value);
    hcl::Value::Object(obj)
}

/// Locals may refer to each other in any order: each is evaluated once, after the locals it
/// names (found by walking its expression), so a chain of any length in any order costs one
/// evaluation a local. A local in a cycle, or naming one that does not evaluate, is unknown.
pub(crate) fn resolve_locals(scope: &mut Scope, files: &[TfFile<'_>]) {
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
    // A local that refers to nothing is a knob written as a constant.
    let mut knobs: HashSet<String> = index
        .iter()
        .filter(|&(_, &i)| roots(defs[i].1).is_empty())
        .map(|(name, _)| name.clone())
        .collect();
    scope.set_knobs(knobs.clone());
    let conditionals = defs
        .iter()
        .enumerate()
        .filter(|(i, (name, _, _))| index.get(name) == Some(i))
        .filter_map(|(_, (name, expr, file))| {
            let Expression::Conditional(c) = expr else {
                return None;
            };
            let at = |e: &Expression| {
                gpulint_model::Span::new(
                    file.id,
                    in_file(file.remap, hcl_edit::Span::span(e).unwrap_or(0..0)),
                )
            };
            let conditional = crate::eval::Conditional {
                expr: (*expr).clone(),
                true_at: at(&c.true_expr),
                false_at: at(&c.false_expr),
            };
            Some((name.clone(), conditional))
        })
        .collect();
    scope.set_conditionals(conditionals);
    let mut state = vec![State::New; defs.len()];
    let mut known = hcl::Map::new();
    // The order the locals were evaluated in: each after those it names.
    let mut order: Vec<usize> = Vec::with_capacity(defs.len());
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
            order.push(at);
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
    // A local computed from knobs only (`should_create = var.vpc_id != ""`, every variable
    // at its default) is one too: a user who sets them switches it. In evaluation order,
    // so a chain of them is found in one pass.
    // Likewise the locals computed from variables and constants only, set or not.
    let mut from_inputs = knobs.clone();
    for &at in &order {
        let (name, expr, _) = &defs[at];
        let from = roots(expr);
        let derived = !from.is_empty()
            && from.iter().all(|(root, attr)| match (root.as_str(), attr) {
                ("var", Some(v)) => scope.is_user_knob(v),
                ("local", Some(l)) => knobs.contains(l),
                _ => false,
            });
        if derived {
            knobs.insert(name.clone());
        }
        if from.iter().all(|(root, attr)| match (root.as_str(), attr) {
            ("var", Some(_)) => true,
            ("local", Some(l)) => from_inputs.contains(l),
            _ => false,
        }) {
            from_inputs.insert(name.clone());
        }
    }
    scope.set_knobs(knobs);
    scope.set_from_inputs(from_inputs);
    let deps = |e: &Expression| local_deps(e, &index);
    let enabled = crate::enable::locals(scope, &defs, &order, deps, &known);
    scope.declare("local", hcl::Value::Object(known));
    if let Some(on) = enabled {
        scope.set_enabled(on);
    }
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
