//! Unknown values inside expressions gpulint converts for evaluation: where a reference to
//! nothing gpulint has ([`unknown_marker`]) is carried as unknown text, and whether an
//! expression still reads one.

#[cfg(doc)]
use crate::eval::unknown_marker;
use crate::eval::{CONCAT, ITEM, UNKNOWN_TEXT};

/// An object entry's value with each reference to nothing gpulint has ([`unknown_marker`])
/// made [`UNKNOWN_TEXT`] where the value carries it as it is: the value itself, a branch of
/// a conditional (`x != "" ? x : data.secret.value`), a part of a string
/// (`"${data.net.id}/subnets/a"`), an entry, an item. The entry is then unknown only when
/// it reads that part, and the object's other entries are kept; where the reference
/// decides something (a condition, a comparison, arithmetic, another function) it is left
/// to fail, as before.
/// `marker`: [`unknown_marker`], made once by the caller.
pub(crate) fn carry(e: &mut hcl::Expression, marker: &hcl::Expression, depth: usize) {
    use hcl::Expression as H;
    if depth > 64 {
        return;
    }
    let d = depth + 1;
    match e {
        H::Variable(_) if e == marker => *e = H::String(UNKNOWN_TEXT.into()),
        H::Conditional(c) => {
            carry(&mut c.true_expr, marker, d);
            carry(&mut c.false_expr, marker, d);
        }
        // Not into other functions: unknown text where `element` or `merge` wants a list
        // or a map is an error of another kind, which would lose the whole object.
        H::FuncCall(f) if [CONCAT, ITEM].contains(&f.name.name.as_str()) => {
            f.args.iter_mut().for_each(|a| carry(a, marker, d));
        }
        H::Object(o) => o.values_mut().for_each(|v| carry(v, marker, d)),
        H::Array(items) => items.iter_mut().for_each(|v| carry(v, marker, d)),
        H::Parenthesis(p) => carry(p, marker, d),
        _ => {}
    }
}

/// Whether `e` reads `marker` anywhere.
pub(crate) fn holds(e: &hcl::Expression, marker: &hcl::Expression, depth: usize) -> bool {
    use hcl::Expression as H;
    if depth > 64 {
        return true;
    }
    let d = depth + 1;
    match e {
        H::Variable(_) => e == marker,
        H::FuncCall(f) => f.args.iter().any(|a| holds(a, marker, d)),
        H::Object(o) => o.values().any(|v| holds(v, marker, d)),
        H::Array(items) => items.iter().any(|v| holds(v, marker, d)),
        H::Parenthesis(p) => holds(p, marker, d),
        H::Conditional(c) => [&c.cond_expr, &c.true_expr, &c.false_expr]
            .into_iter()
            .any(|x| holds(x, marker, d)),
        H::Traversal(t) => holds(&t.expr, marker, d),
        H::Operation(op) => match op.as_ref() {
            hcl::expr::Operation::Unary(u) => holds(&u.expr, marker, d),
            hcl::expr::Operation::Binary(b) => {
                holds(&b.lhs_expr, marker, d) || holds(&b.rhs_expr, marker, d)
            }
        },
        H::ForExpr(f) => {
            holds(&f.collection_expr, marker, d)
                || holds(&f.value_expr, marker, d)
                || f.key_expr.as_ref().is_some_and(|k| holds(k, marker, d))
                || f.cond_expr.as_ref().is_some_and(|c| holds(c, marker, d))
        }
        _ => false,
    }
}
