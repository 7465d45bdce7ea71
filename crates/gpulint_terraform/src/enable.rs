//! A module read as when its toggles are on. `merge(local.cpu, var.gpu ? local.gpu : {})`
//! or `concat(var.pools, var.enable_gpu ? [local.gpu] : [])` leaves a GPU pool out only
//! while a knob a user sets (a variable holding its default, a constant local) keeps it
//! off: a reviewer reviews the pool a user can switch on. Each such `cond ? a : b`, where
//! the taken branch is empty (`{}`, `[]`, `null`, `0`) and the other is not, is flipped,
//! and what a block input or a local reads through it is read again; the conditions
//! flipped say what was assumed.

use std::collections::HashMap;
use std::rc::Rc;

use hcl_edit::expr::Expression;
use hcl_edit::visit_mut::{VisitMut, visit_expr_mut};

use crate::TfFile;
use crate::eval::Scope;
use crate::instances::{Toggled, untaken};

/// Where an expression is written, as a finding's location.
pub(crate) type At<'a> = dyn Fn(&Expression) -> gpulint_model::Span + 'a;

/// The locals of a module as when its toggles are on.
pub(crate) struct Enabled {
    /// Every local, those a flipped toggle changes at their value when on.
    pub(crate) locals: hcl::Value,
    /// The toggles each changed local went through, by name.
    pub(crate) flips: HashMap<String, Vec<Toggled>>,
}

/// Whether a value stands for "none": what the off branch of a toggle gives.
pub(crate) fn is_off(v: &hcl::Value) -> bool {
    match v {
        hcl::Value::Null => true,
        hcl::Value::Object(m) => m.is_empty(),
        hcl::Value::Array(a) => a.is_empty(),
        hcl::Value::Number(n) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

/// Whether an expression is written as "none" (`{}`, `[]`, `null`, `0`).
fn written_off(e: &Expression) -> bool {
    match e {
        Expression::Null(_) => true,
        Expression::Object(o) => o.is_empty(),
        Expression::Array(a) => a.is_empty(),
        Expression::Number(n) => n.value().as_f64() == Some(0.0),
        Expression::Parenthesis(p) => written_off(p.inner()),
        _ => false,
    }
}

/// `expr` with every toggle in it flipped on, and the toggles flipped; `None` when it
/// holds none. The conditions are evaluated in `scope` as it is.
pub(crate) fn flip(
    scope: &Scope,
    expr: &Expression,
    at: &At<'_>,
) -> Option<(Expression, Vec<Toggled>)> {
    struct Flip<'s, 'a> {
        scope: &'s Scope,
        at: &'a At<'a>,
        flipped: Vec<Toggled>,
        depth: usize,
    }
    impl VisitMut for Flip<'_, '_> {
        fn visit_expr_mut(&mut self, node: &mut Expression) {
            // hcl-edit nests at most 64 levels; a flipped branch is no deeper.
            if self.depth > 128 {
                return;
            }
            self.depth += 1;
            if let Some((on, toggle)) = self.on_branch(node) {
                *node = on;
                self.flipped.push(toggle);
            }
            if let Expression::ForExpr(f) = node {
                self.entries_on(f);
            }
            visit_expr_mut(self, node);
            self.depth -= 1;
        }
    }
    impl Flip<'_, '_> {
        /// The branch a toggle at `node` takes when on, when it is off by default.
        fn on_branch(&self, node: &Expression) -> Option<(Expression, Toggled)> {
            let Expression::Conditional(c) = node else {
                return None;
            };
            let (other, condition) = untaken(self.scope, node, |e| self.scope.eval(e))?;
            let taken = if std::ptr::eq(other, std::ptr::from_ref(&c.true_expr)) {
                &c.false_expr
            } else {
                &c.true_expr
            };
            if written_off(other) || !self.scope.eval(taken).as_ref().is_some_and(is_off) {
                return None;
            }
            let toggle = Toggled::new(condition, (self.at)(node)).set_by(self.scope, node);
            Some((other.clone(), toggle))
        }

        /// `[for g in var.groups : g if g.enable]`: an entry written out in full and
        /// switched off by a flag of its own (`enable = false`) is an entry a user switches
        /// on. Each part of the filter that is a bare flag of the entry named as a switch
        /// (`g.enable`, `g.gpu.enabled`, joined by `&&`; see [`SWITCH_WORDS`]), false for
        /// some entry, reads as `true`; the rest of the filter (`lower(g.os) == "linux"`,
        /// `g.spot`) still holds.
        fn entries_on(&mut self, f: &mut hcl_edit::expr::ForExpr) {
            let Some(cond) = f.cond.as_mut() else { return };
            let Some(entries) = self.scope.eval(&f.intro.collection_expr) else {
                return;
            };
            let entries: Vec<&hcl::Value> = match &entries {
                hcl::Value::Array(items) => items.iter().collect(),
                hcl::Value::Object(m) => m.values().collect(),
                _ => return,
            };
            let entry = f.intro.value_var.as_str().to_string();
            let mut flags = Vec::new();
            flags_of(&mut cond.expr, &entry, &mut flags, 0);
            for (path, flag) in flags {
                if !path.last().is_some_and(|k| names_a_switch(k)) {
                    continue;
                }
                let off = |v: &hcl::Value| {
                    path.iter()
                        .try_fold(v, |v, k| match v {
                            hcl::Value::Object(m) => m.get(k.as_str()),
                            _ => None,
                        })
                        .is_some_and(|v| *v == hcl::Value::Bool(false))
                };
                if !entries.iter().any(|v| off(v)) {
                    continue;
                }
                let condition = flag.to_string().trim().to_string();
                self.flipped
                    .push(Toggled::for_entry(condition, (self.at)(flag)));
                *flag = Expression::Bool(true.into());
            }
        }
    }
    if !has_toggle(expr) {
        return None;
    }
    let mut out = expr.clone();
    let mut f = Flip {
        scope,
        at,
        flipped: Vec::new(),
        depth: 0,
    };
    f.visit_expr_mut(&mut out);
    (!f.flipped.is_empty()).then_some((out, f.flipped))
}

/// The parts of a `for` filter joined by `&&` (a bare `a && b && c`, in parentheses or
/// not) that read only the entry's own attributes (`g.enable`), each with its path.
fn flags_of<'e>(
    e: &'e mut Expression,
    entry: &str,
    out: &mut Vec<(Vec<String>, &'e mut Expression)>,
    depth: usize,
) {
    use hcl_edit::expr::BinaryOperator;
    if depth > 32 {
        return;
    }
    if let Some(path) = flag_path(e, entry) {
        out.push((path, e));
        return;
    }
    match e {
        Expression::BinaryOp(b) if *b.operator.value() == BinaryOperator::And => {
            flags_of(&mut b.lhs_expr, entry, out, depth + 1);
            flags_of(&mut b.rhs_expr, entry, out, depth + 1);
        }
        Expression::Parenthesis(p) => flags_of(p.inner_mut(), entry, out, depth + 1),
        _ => {}
    }
}

/// Words that name an on/off switch (`enable`, `enabled`, `create_pool`, `deployed`,
/// `isActive`): a flag named otherwise (`spot`, `gpu`, `preemptible`) sorts entries into
/// kinds, and reading it as on would make an entry of the other kind here.
const SWITCH_WORDS: [&str; 4] = ["enable", "create", "deploy", "active"];

/// Whether an attribute's name says it switches its entry on or off.
fn names_a_switch(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SWITCH_WORDS.iter().any(|w| name.contains(w))
}

/// The attribute path of `entry.a.b`, when `e` is written as that and nothing else.
fn flag_path(e: &Expression, entry: &str) -> Option<Vec<String>> {
    let Expression::Traversal(t) = e else {
        return None;
    };
    if !matches!(&t.expr, Expression::Variable(v) if v.as_str() == entry) {
        return None;
    }
    t.operators
        .iter()
        .map(|op| match op.value() {
            hcl_edit::expr::TraversalOperator::GetAttr(k) => Some(k.as_str().to_string()),
            _ => None,
        })
        .collect()
}

/// Whether a conditional or a `for` filter is written anywhere in `expr`: the cheap test
/// before a copy.
fn has_toggle(expr: &Expression) -> bool {
    struct Find(bool);
    impl hcl_edit::visit::Visit for Find {
        fn visit_expr(&mut self, node: &Expression) {
            if self.0 {
                return;
            }
            if matches!(node, Expression::Conditional(_))
                || matches!(node, Expression::ForExpr(f) if f.cond.is_some())
            {
                self.0 = true;
                return;
            }
            hcl_edit::visit::visit_expr(self, node);
        }
    }
    // The root too: `for_each = { for g in var.groups : … if g.enable }`.
    let mut f = Find(false);
    hcl_edit::visit::Visit::visit_expr(&mut f, expr);
    f.0
}

/// The locals named in `order` (each after those it names) read again with their toggles
/// on; `None` when no toggle changes any. `defs`: each local's name, expression and file;
/// `known`: their values as they are; `deps`: the locals each names.
pub(crate) fn locals(
    scope: &mut Scope,
    defs: &[(String, &Expression, TfFile<'_>)],
    order: &[usize],
    deps: impl Fn(&Expression) -> Vec<usize>,
    known: &hcl::Map<String, hcl::Value>,
) -> Option<Enabled> {
    if !order.iter().any(|&i| has_toggle(defs[i].1)) {
        return None;
    }
    let mut flips: HashMap<String, Vec<Toggled>> = HashMap::new();
    // The locals as far as read with toggles on: each reads those before it.
    let mut map = known.clone();
    for &at in order {
        let (name, expr, file) = &defs[at];
        let mut through: Vec<Toggled> = deps(expr)
            .into_iter()
            .filter_map(|d| flips.get(&defs[d].0))
            .flatten()
            .cloned()
            .collect();
        scope.declare("local", hcl::Value::Object(std::mem::take(&mut map)));
        let span_at = |e: &Expression| crate::instances::span_in(*file, e);
        let own = flip(scope, expr, &span_at);
        let value = match (&own, through.is_empty()) {
            (Some((e, _)), _) => scope.eval_in(e, *file),
            (None, false) => scope.eval_in(expr, *file),
            (None, true) => None,
        };
        map = match scope.take("local") {
            Some(hcl::Value::Object(m)) => m,
            _ => hcl::Map::new(),
        };
        let Some(value) = value else { continue };
        if known.get(name) == Some(&value) {
            continue;
        }
        if let Some((_, mut own)) = own {
            own.append(&mut through);
            through = own;
        }
        map.insert(name.clone(), value);
        flips.insert(name.clone(), through);
    }
    (!flips.is_empty()).then(|| Enabled {
        locals: hcl::Value::Object(map),
        flips,
    })
}

/// `expr` as when the toggles it goes through (its own, and its locals') are on: the
/// expression to evaluate, the scope to evaluate it in, and the first toggle; `None` when
/// it goes through none.
pub(crate) fn switched_on(
    scope: &Rc<Scope>,
    expr: &Expression,
    at: &At<'_>,
) -> Option<(Expression, Rc<Scope>, Toggled)> {
    let own = flip(scope, expr, at);
    let through = scope.enabled().and_then(|on| {
        crate::instances::roots(expr)
            .into_iter()
            .filter(|(root, _)| root == "local")
            .find_map(|(_, name)| on.flips.get(name.as_deref()?)?.first().cloned())
    });
    let (e, first) = match (own, through) {
        (Some((e, flipped)), _) => {
            let first = flipped.into_iter().next()?;
            (e, first)
        }
        (None, Some(t)) => (expr.clone(), t),
        (None, None) => return None,
    };
    let scope = match scope.enabled() {
        Some(on) => scope.with("local", on.locals.clone()),
        None => Rc::clone(scope),
    };
    Some((e, scope, first))
}
