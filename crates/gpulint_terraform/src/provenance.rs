//! Where a value that travelled through objects and locals was written: the line a user
//! changes.
//!
//! A node pool read from a module input (`node_pools = local.node_pools`) or a resource
//! instance of `for_each = var.pools` keeps one span for all of its values: the input or
//! `each.value.min_count`. The value itself was written further up, as one key of one
//! object (`min_count = 1` in the `gpu-pool-l4` entry of a tfvars list). This follows the
//! expression at a finding back through `local.*` definitions, `var.*` origins (the
//! caller's argument, a tfvars line, a default) and the caller's locals in turn, and looks
//! in every object written literally on the way for the key, in the entry the finding is
//! about. It runs on the text of the files once findings are known, and only for them.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use gpulint_model::{Instance, Related, Span};
use gpulint_source::{FileId, SourceDb};
use hcl_edit::Span as _;
use hcl_edit::expr::{Expression, TraversalOperator};

use crate::block::key_name;
use hcl_edit::structure::{Body, Structure};

/// Places looked at for one finding, at most: locals and origins chain, but not without
/// end.
const MAX_PLACES: usize = 64;

/// What to look for: a key (`min_count`) in the entry named `within` (`gpu-pool-l4`: its
/// key in a map, or a string value beside the key in a list's object).
#[derive(Clone, Copy, Debug)]
pub struct Leaf<'a> {
    pub key: &'a str,
    pub within: Option<&'a str>,
    /// The key of the object that holds `key`, when the value was read through one
    /// (`each.value.machine.count`: `machine`).
    pub under: Option<&'a str>,
}

/// Parsed files, each parsed once for all findings.
#[derive(Default)]
pub struct Trees {
    parsed: HashMap<FileId, Option<Body>>,
}

impl Trees {
    fn get(&mut self, db: &SourceDb, file: FileId) -> Option<&Body> {
        self.parsed
            .entry(file)
            .or_insert_with(|| {
                let f = db.get(file);
                // JSON files are read through a remap: their spans are not the text's.
                let json = f
                    .path()
                    .and_then(|p| p.extension())
                    .is_some_and(|e| e == "json");
                if json || !f.is_loaded() {
                    return None;
                }
                gpulint_syntax::hcl::parse(f.text()).ok()
            })
            .as_ref()
    }
}

/// The key and entry a finding's value was read as, when its span is
/// `each.value.KEY` (or `each.value["KEY"]`, or `each.value.machine.KEY` through nested
/// objects): the entry is the instance's key in the subject
/// (`…aws_eks_node_group.gpu["a100"]`).
pub fn each_value_leaf<'s>(text: &'s str, subject: &'s str) -> Option<Leaf<'s>> {
    let rest = text.trim().strip_prefix("each.value")?;
    let path = rest
        .strip_prefix('.')
        .or_else(|| rest.strip_prefix("[\"").and_then(|r| r.strip_suffix("\"]")))?;
    let name = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut keys = path.split('.');
    let key = keys.next_back()?;
    let under = keys.next_back();
    if !name(key) || !under.is_none_or(name) || !keys.all(name) {
        return None;
    }
    let within = subject
        .strip_suffix("\"]")
        .and_then(|s| s.rfind("[\"").map(|i| &s[i + 2..]));
    Some(Leaf { key, within, under })
}

/// The key and entry a finding's value was read as, when its span reads one entry of a
/// variable or local by index (`var.node_pools[count.index].node_count`,
/// `local.pools["gpu"].min`): the key, and the entry when the index is a literal key.
pub fn indexed_leaf(text: &str) -> Option<Leaf<'_>> {
    let text = text.trim();
    let rest = text
        .strip_prefix("var.")
        .or_else(|| text.strip_prefix("local."))?;
    let open = rest.find('[')?;
    let close = open + rest[open..].find(']')?;
    let name = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let key = rest[close + 1..].strip_prefix('.')?;
    if !name(&rest[..open]) || !name(key) {
        return None;
    }
    let index = &rest[open + 1..close];
    let within = index
        .strip_prefix('"')
        .and_then(|i| i.strip_suffix('"'))
        .filter(|i| !i.contains(['"', '$']));
    Some(Leaf {
        key,
        within,
        under: None,
    })
}

/// Where `leaf` was written, starting from the expression at `at` (read by a finding
/// about `subject`): the literal `key = value` in the entry, with what it says. `None`
/// when no literal on the way holds it, or when several entries do and none is named.
pub fn trace(
    db: &SourceDb,
    trees: &mut Trees,
    instances: &[Instance],
    subject: &str,
    at: &Span,
    leaf: Leaf<'_>,
    each: bool,
) -> Option<Related> {
    // Each place with the key looked for there, when a `for` renamed it
    // (`min_size = np.min_nodes`: `min_nodes` in the `for`'s collection).
    let mut queue: Vec<(FileId, Range<usize>, Option<String>)> = Vec::new();
    let start = at.range();
    if each {
        // `each.value.KEY`: the entries are the block's `for_each`.
        let body = trees.get(db, at.file)?;
        let for_each = enclosing_for_each(body, &start)?;
        queue.push((at.file, for_each.span()?, None));
    } else {
        queue.push((at.file, start, None));
    }
    let mut seen: HashSet<(FileId, Range<usize>, Option<String>)> = HashSet::new();
    let mut found: Vec<(FileId, Range<usize>)> = Vec::new();
    let mut named: Vec<(FileId, Range<usize>)> = Vec::new();
    // An instance key made of the entry's name and a count (`"${ws.name}${i}"`: `render0`
    // of the entry `render`): the entry, when none is named as the key is.
    let counted = leaf.within.and_then(counted_name).map(|base| Leaf {
        within: Some(base),
        ..leaf
    });
    let mut named_counted: Vec<(FileId, Range<usize>)> = Vec::new();
    let mut i = 0;
    while i < queue.len() && i < MAX_PLACES {
        let (file, range, renamed) = queue[i].clone();
        i += 1;
        if !seen.insert((file, range.clone(), renamed.clone())) {
            continue;
        }
        let leaf = Leaf {
            key: renamed.as_deref().unwrap_or(leaf.key),
            ..leaf
        };
        let Some(body) = trees.get(db, file) else {
            continue;
        };
        let Some(expr) = expression_at(body, &range) else {
            continue;
        };
        let mut hits = Vec::new();
        literal_keys(expr, leaf, (None, false, false), &mut hits, 0);
        for (span, is_named) in hits {
            if is_named {
                named.push((file, span));
            } else {
                found.push((file, span));
            }
        }
        if let Some(counted) = counted {
            let counted = Leaf {
                key: leaf.key,
                ..counted
            };
            let mut hits = Vec::new();
            literal_keys(expr, counted, (None, false, false), &mut hits, 0);
            named_counted.extend(hits.into_iter().filter(|h| h.1).map(|h| (file, h.0)));
        }
        let mut renames = Vec::new();
        for_renames(expr, leaf.key, &mut renames, 0);
        queue.extend(renames.into_iter().map(|(r, k)| (file, r, Some(k))));
        // What the expression refers to, in the module instance whose files hold it.
        let Some(instance) = instance_of(instances, subject, file) else {
            continue;
        };
        let mut refs = Vec::new();
        references(expr, leaf.within, &mut refs, 0);
        for (root, name) in refs {
            match root {
                Root::Var => {
                    for r in instance.vars.get(&name).into_iter().flatten() {
                        queue.push((r.span.file, r.span.range(), renamed.clone()));
                    }
                }
                Root::Local => {
                    for &f in &instance.files {
                        if let Some(body) = trees.get(db, f)
                            && let Some(e) = local_definition(body, &name)
                            && let Some(r) = e.span()
                        {
                            queue.push((f, r, renamed.clone()));
                        }
                    }
                }
            }
        }
    }
    let pick = |places: &[(FileId, Range<usize>)]| -> Option<(FileId, Range<usize>)> {
        let first = places.first()?;
        places.iter().all(|p| p == first).then(|| first.clone())
    };
    let (entry, (file, range)) = match (leaf.within, counted) {
        (Some(w), _) if !named.is_empty() => (Some(w), named.first().cloned()?),
        (_, Some(c)) if !named_counted.is_empty() => (c.within, pick(&named_counted)?),
        (w, _) => (w, pick(&found)?),
    };
    // The key as written there, which a `for` may have renamed.
    let key = db
        .get(file)
        .text()
        .get(range.clone())
        .and_then(|t| t.split_once(['=', ':']))
        .map(|(k, _)| k.trim().trim_matches('"'))
        .filter(|k| !k.is_empty())
        .unwrap_or(leaf.key);
    let what = match entry {
        Some(w) => format!("`{key}` of `{w}`"),
        None => format!("`{key}`"),
    };
    // A key set from a variable (`min_size = var.gpu_min_size`): the line to change is
    // where that variable is set, its default or the value a caller or tfvars gives it.
    if let Some(name) = variable_value(db, file, &range)
        && let Some(set) = instance_of(instances, subject, file)
            .and_then(|i| i.vars.get(name))
            .and_then(<[Related]>::first)
    {
        return Some(Related {
            span: set.span.clone(),
            message: format!("{what} is set here, as `var.{name}`").into(),
        });
    }
    Some(Related {
        span: Span::new(file, range),
        message: format!("{what} is set here").into(),
    })
}

/// The module instance an expression in `file` is read in, for a finding about `subject`:
/// the deepest whose files hold it and whose prefix the subject starts with.
fn instance_of<'i>(instances: &'i [Instance], subject: &str, file: FileId) -> Option<&'i Instance> {
    instances
        .iter()
        .filter(|i| i.files.contains(&file) && subject.starts_with(&i.prefix))
        .max_by_key(|i| i.prefix.len())
}

/// The variable a `key = var.NAME` written at `range` takes its value from, when that is
/// all its value is.
fn variable_value<'d>(db: &'d SourceDb, file: FileId, range: &Range<usize>) -> Option<&'d str> {
    let f = db.get(file);
    if !f.is_loaded() {
        return None;
    }
    let text = f.text().get(range.clone())?;
    let (_, value) = text.split_once(['=', ':'])?;
    let name = value.trim().strip_prefix("var.")?;
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
    .then_some(name)
}

/// The name before a count that ends an instance key (`render0`, `render-1`: `render`).
fn counted_name(key: &str) -> Option<&str> {
    let base = key.trim_end_matches(|c: char| c.is_ascii_digit());
    if base.len() == key.len() {
        return None;
    }
    let base = base.strip_suffix(['-', '_']).unwrap_or(base);
    (!base.is_empty()).then_some(base)
}

enum Root {
    Var,
    Local,
}

/// The expression written at `range`: an attribute's value when the range is the whole
/// attribute (a tfvars line), or the expression with exactly that span.
fn expression_at<'b>(body: &'b Body, range: &Range<usize>) -> Option<&'b Expression> {
    for s in body {
        match s {
            Structure::Attribute(a) => {
                if a.span().as_ref() == Some(range) {
                    return Some(&a.value);
                }
                if a.value
                    .span()
                    .is_some_and(|r| r.start <= range.start && range.end <= r.end)
                    && let Some(e) = within_expr(&a.value, range, 0)
                {
                    return Some(e);
                }
            }
            Structure::Block(b) => {
                if b.body
                    .span()
                    .is_none_or(|r| r.start <= range.start && range.end <= r.end)
                    && let Some(e) = expression_at(&b.body, range)
                {
                    return Some(e);
                }
            }
        }
    }
    None
}

/// Nesting followed inside one expression, at most.
const MAX_DEPTH: usize = 32;

fn within_expr<'b>(
    e: &'b Expression,
    range: &Range<usize>,
    depth: usize,
) -> Option<&'b Expression> {
    if e.span().as_ref() == Some(range) {
        return Some(e);
    }
    if depth > MAX_DEPTH {
        return None;
    }
    let inner = |x: &'b Expression| within_expr(x, range, depth + 1);
    match e {
        Expression::Array(a) => a.iter().find_map(inner),
        Expression::Object(o) => o.iter().find_map(|(_, v)| inner(v.expr())),
        Expression::Parenthesis(p) => inner(p.inner()),
        Expression::FuncCall(f) => f.args.iter().find_map(inner),
        Expression::Conditional(c) => inner(&c.cond_expr)
            .or_else(|| inner(&c.true_expr))
            .or_else(|| inner(&c.false_expr)),
        Expression::ForExpr(f) => inner(&f.intro.collection_expr)
            .or_else(|| f.key_expr.as_ref().and_then(inner))
            .or_else(|| inner(&f.value_expr)),
        Expression::Traversal(t) => inner(&t.expr),
        _ => None,
    }
}

/// The `for_each` of the block whose body holds `range`, innermost first.
fn enclosing_for_each<'b>(body: &'b Body, range: &Range<usize>) -> Option<&'b Expression> {
    for b in body.blocks() {
        if b.body
            .span()
            .is_some_and(|r| r.start <= range.start && range.end <= r.end)
        {
            return enclosing_for_each(&b.body, range)
                .or_else(|| b.body.get_attribute("for_each").map(|a| &a.value));
        }
    }
    None
}

/// The expression of `locals { name = … }`.
fn local_definition<'b>(body: &'b Body, name: &str) -> Option<&'b Expression> {
    body.get_blocks("locals")
        .find_map(|b| b.body.get_attribute(name))
        .map(|a| &a.value)
}

/// `var.x` and `local.y` read anywhere in `e`.
fn references(e: &Expression, within: Option<&str>, out: &mut Vec<(Root, String)>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    // A map with the entry among its keys: the other keys are other entries, and what they
    // refer to is theirs (`{ mg_cpu = local.cpu, mg_gpu = local.gpu }`).
    if let (Expression::Object(o), Some(w)) = (e, within)
        && let Some((_, v)) = o.iter().find(|(k, _)| key_name(k) == Some(w))
    {
        return references(v.expr(), within, out, depth + 1);
    }
    let mut go = |x: &Expression| references(x, within, out, depth + 1);
    match e {
        Expression::Traversal(t) => {
            if let (Expression::Variable(root), Some(TraversalOperator::GetAttr(name))) =
                (&t.expr, t.operators.first().map(hcl_edit::Decorated::value))
            {
                match root.as_str() {
                    "var" => out.push((Root::Var, name.as_str().to_string())),
                    "local" => out.push((Root::Local, name.as_str().to_string())),
                    _ => {}
                }
            }
            references(&t.expr, within, out, depth + 1);
        }
        Expression::Array(a) => a.iter().for_each(go),
        Expression::Object(o) => o.iter().for_each(|(_, v)| go(v.expr())),
        Expression::Parenthesis(p) => go(p.inner()),
        Expression::FuncCall(f) => f.args.iter().for_each(go),
        Expression::Conditional(c) => {
            // The condition picks a branch; the value is in the branches.
            go(&c.true_expr);
            go(&c.false_expr);
        }
        Expression::ForExpr(f) => {
            go(&f.intro.collection_expr);
            go(&f.value_expr);
        }
        _ => {}
    }
}

/// The `for` expressions in `e` whose items set `key` from an attribute of the item
/// (`{ for k, np in var.pools : k => { min_size = np.min_nodes } }`): the span of each
/// one's collection, and the attribute (`min_nodes`).
fn for_renames(e: &Expression, key: &str, out: &mut Vec<(Range<usize>, String)>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut go = |x: &Expression| for_renames(x, key, out, depth + 1);
    match e {
        Expression::ForExpr(f) => {
            if let Expression::Object(o) = &f.value_expr
                && let Some((_, v)) = o.iter().find(|(k, _)| key_name(k) == Some(key))
                && let Expression::Traversal(t) = v.expr()
                && let (Expression::Variable(item), [op]) = (&t.expr, &t.operators[..])
                && item.as_str() == f.intro.value_var.as_str()
                && let TraversalOperator::GetAttr(attr) = op.value()
                && let Some(r) = f.intro.collection_expr.span()
            {
                out.push((r, attr.as_str().to_string()));
            }
        }
        Expression::Object(o) => o.iter().for_each(|(_, v)| go(v.expr())),
        Expression::Array(a) => a.iter().for_each(go),
        Expression::Parenthesis(p) => go(p.inner()),
        Expression::FuncCall(f) => f.args.iter().for_each(go),
        Expression::Conditional(c) => {
            go(&c.true_expr);
            go(&c.false_expr);
        }
        _ => {}
    }
}

/// Literal `key = …` entries of objects in `e`, each with whether its object is the entry
/// named `leaf.within` (its key in the enclosing object, or a string value beside it).
fn literal_keys(
    e: &Expression,
    leaf: Leaf<'_>,
    (entry, named_above, other_above): (Option<&str>, bool, bool),
    out: &mut Vec<(Range<usize>, bool)>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let at = (entry, named_above, other_above);
    match e {
        Expression::Object(o) => {
            // The entry's own object, or one nested in it (`machine = { count = 3 }`).
            let named = named_above
                || leaf.within.is_some_and(|w| {
                    entry == Some(w)
                        || o.iter().any(
                            |(_, v)| matches!(v.expr(), Expression::String(s) if s.as_str() == w),
                        )
                });
            // Another entry's object (`default = { min_size = … }` when the finding is
            // about `gpu`): what it sets is not this entry's.
            let other = other_above
                || (!named && leaf.within.is_some_and(|w| entry.is_some_and(|e| e != w)));
            let holds = leaf.under.is_none_or(|u| entry == Some(u));
            for (k, v) in o {
                let name = key_name(k);
                if name == Some(leaf.key)
                    && holds
                    && let Some(r) = k.span().zip(v.expr().span()).map(|(k, v)| k.start..v.end)
                {
                    if !other {
                        out.push((r, named));
                    }
                } else {
                    literal_keys(v.expr(), leaf, (name, named, other), out, depth + 1);
                }
            }
        }
        Expression::Array(a) => a.iter().for_each(|x| {
            literal_keys(x, leaf, (None, named_above, other_above), out, depth + 1);
        }),
        Expression::Parenthesis(p) => literal_keys(p.inner(), leaf, at, out, depth + 1),
        Expression::FuncCall(f) => f
            .args
            .iter()
            .for_each(|x| literal_keys(x, leaf, at, out, depth + 1)),
        Expression::Conditional(c) => {
            literal_keys(&c.true_expr, leaf, at, out, depth + 1);
            literal_keys(&c.false_expr, leaf, at, out, depth + 1);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::each_value_leaf;

    #[test]
    fn each_value_reads_key_and_entry() {
        let l = each_value_leaf("each.value.min_size", "aws_eks_node_group.gpu[\"a100\"]").unwrap();
        assert_eq!((l.key, l.within), ("min_size", Some("a100")));
        let l = each_value_leaf("each.value[\"min\"]", "x.y").unwrap();
        assert_eq!((l.key, l.within), ("min", None));
        assert!(each_value_leaf("each.key", "x").is_none());
        assert!(each_value_leaf("var.min", "x").is_none());
        // Through nested objects: the key and the object that holds it.
        let l = each_value_leaf("each.value.machine.count", "vmss.c[\"h100\"]").unwrap();
        assert_eq!(
            (l.key, l.within, l.under),
            ("count", Some("h100"), Some("machine"))
        );
        assert!(each_value_leaf("each.value.machine[0].count", "x").is_none());
        assert!(each_value_leaf("each.value.machine..count", "x").is_none());
    }

    #[test]
    fn an_indexed_entry_reads_key_and_literal_entry() {
        use super::indexed_leaf;
        let l = indexed_leaf("var.node_pools[count.index].node_count").unwrap();
        assert_eq!((l.key, l.within), ("node_count", None));
        let l = indexed_leaf("local.pools[\"gpu\"].min").unwrap();
        assert_eq!((l.key, l.within), ("min", Some("gpu")));
        assert!(indexed_leaf("var.node_count").is_none());
        assert!(indexed_leaf("var.pools[0]").is_none());
        assert!(indexed_leaf("var.pools[0].a.b").is_none());
        assert!(indexed_leaf("each.value.min").is_none());
    }

    #[test]
    fn a_count_after_a_name_is_the_entry() {
        use super::counted_name;
        assert_eq!(counted_name("render0"), Some("render"));
        assert_eq!(counted_name("render-12"), Some("render"));
        assert_eq!(counted_name("render"), None);
        assert_eq!(counted_name("42"), None);
    }
}
