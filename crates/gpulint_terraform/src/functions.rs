//! The Terraform functions real modules use to shape GPU settings, for hcl-rs's evaluator.
//!
//! Only these are declared; a call to any other function does not evaluate, so its value
//! stays unknown. `try` and `can` are not functions here: their arguments may fail, which
//! a function cannot see, so [`crate`] rewrites them before evaluation.

// hcl-rs fixes the signature: every function takes its arguments by value.
#![allow(clippy::needless_pass_by_value)]

use hcl::eval::{Context, FuncArgs, FuncDef, ParamType};
use hcl::{Map, Number, Value};

type Func = fn(FuncArgs) -> Result<Value, String>;

/// The functions that take any number of arguments.
const VARIADIC: [(&str, Func); 10] = [
    ("coalescelist", coalescelist),
    ("range", range),
    ("merge", merge),
    ("concat", concat),
    ("coalesce", coalesce),
    ("format", format),
    ("min", min),
    ("max", max),
    ("lookup", lookup),
    ("join", join),
];

/// The functions of a fixed number of arguments.
const FIXED: [(&str, usize, Func); 30] = [
    ("file", 1, file),
    ("templatefile", 2, templatefile),
    ("one", 1, one),
    ("compact", 1, compact),
    ("distinct", 1, distinct),
    ("sort", 1, sort),
    ("slice", 3, slice),
    ("trimspace", 1, trimspace),
    ("startswith", 2, startswith),
    ("endswith", 2, endswith),
    ("tobool", 1, tobool),
    ("abs", 1, abs),
    ("ceil", 1, ceil),
    ("floor", 1, floor),
    ("element", 2, element),
    ("lower", 1, lower),
    ("upper", 1, upper),
    ("contains", 2, contains),
    ("length", 1, length),
    ("keys", 1, keys),
    ("values", 1, values),
    ("tomap", 1, tomap),
    ("toset", 1, toset),
    ("tolist", 1, tolist),
    ("tostring", 1, tostring),
    ("tonumber", 1, tonumber),
    ("split", 2, split),
    ("replace", 3, replace),
    ("flatten", 1, flatten),
    ("zipmap", 2, zipmap),
];

/// Whether gpulint evaluates the Terraform function `name`: a call to any other has no
/// value here.
pub fn declared(name: &str) -> bool {
    VARIADIC.iter().any(|(n, _)| *n == name) || FIXED.iter().any(|(n, _, _)| *n == name)
}

/// Declares every function gpulint evaluates.
pub fn declare(ctx: &mut Context<'_>) {
    for (name, f) in VARIADIC {
        ctx.declare_func(
            name,
            FuncDef::builder().variadic_param(ParamType::Any).build(f),
        );
    }
    for (name, n, f) in FIXED {
        ctx.declare_func(
            name,
            FuncDef::builder()
                .params(std::iter::repeat_n(ParamType::Any, n))
                .build(f),
        );
    }
}

fn string(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(format!("expected a string, found {other}")),
    }
}

fn number(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| "not a number".to_string()),
        Value::String(s) => s
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not a number")),
        other => Err(format!("expected a number, found {other}")),
    }
}

fn list(v: &Value) -> Result<&Vec<Value>, String> {
    match v {
        Value::Array(a) => Ok(a),
        other => Err(format!("expected a list, found {other}")),
    }
}

fn object(v: &Value) -> Result<&Map<String, Value>, String> {
    match v {
        Value::Object(o) => Ok(o),
        other => Err(format!("expected a map, found {other}")),
    }
}

fn num_value(x: f64) -> Value {
    #[allow(clippy::cast_possible_truncation)]
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::Number(Number::from(x as i64))
    } else {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

fn merge(args: FuncArgs) -> Result<Value, String> {
    let mut out = Map::new();
    for a in args.iter() {
        match a {
            Value::Null => {}
            other => {
                for (k, v) in object(other)? {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
    }
    Ok(Value::Object(out))
}

fn concat(args: FuncArgs) -> Result<Value, String> {
    let mut out = Vec::new();
    for a in args.iter() {
        out.extend(list(a)?.iter().cloned());
    }
    Ok(Value::Array(out))
}

/// The first argument that is neither null nor an empty string.
fn coalesce(args: FuncArgs) -> Result<Value, String> {
    args.iter()
        .find(|v| !matches!(v, Value::Null) && !matches!(v, Value::String(s) if s.is_empty()))
        .cloned()
        .ok_or_else(|| "no non-null, non-empty argument".into())
}

/// `%s`, `%d`, `%v` and `%%`; any other verb fails, so the value stays unknown.
fn format(args: FuncArgs) -> Result<Value, String> {
    let (spec, rest) = args.split_first().ok_or("format needs a format string")?;
    let spec = string(spec)?;
    // At most the spec and every argument once each (a verb takes one argument).
    reserve(rest.iter().fold(spec.len() as u64, |n, a| {
        n.saturating_add(super::budget::size_of(a))
    }))?;
    let mut rest = rest.iter();
    let mut out = String::new();
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('s' | 'v') => out.push_str(&string(rest.next().ok_or("too few arguments")?)?),
            Some('d') => {
                let n = number(rest.next().ok_or("too few arguments")?)?;
                out.push_str(&num_value(n.trunc()).to_string());
            }
            _ => return Err(format!("unsupported format verb in `{spec}`")),
        }
    }
    Ok(Value::String(out))
}

fn extreme(args: &FuncArgs, pick: fn(f64, f64) -> f64) -> Result<Value, String> {
    let mut best: Option<f64> = None;
    for a in args.iter() {
        let x = number(a)?;
        best = Some(best.map_or(x, |b| pick(b, x)));
    }
    best.map(num_value)
        .ok_or_else(|| "needs at least one number".into())
}

fn min(args: FuncArgs) -> Result<Value, String> {
    extreme(&args, f64::min)
}

fn max(args: FuncArgs) -> Result<Value, String> {
    extreme(&args, f64::max)
}

/// `lookup(map, key, default)`; without a default, a missing key fails as in Terraform.
fn lookup(args: FuncArgs) -> Result<Value, String> {
    let [map, key, rest @ ..] = &args[..] else {
        return Err("lookup needs a map and a key".into());
    };
    let key = string(key)?;
    match (object(map)?.get(&key), rest) {
        (Some(v), _) => Ok(v.clone()),
        (None, [default]) => Ok(default.clone()),
        (None, _) => Err(format!("no key `{key}`")),
    }
}

fn join(args: FuncArgs) -> Result<Value, String> {
    let (sep, lists) = args.split_first().ok_or("join needs a separator")?;
    let sep = string(sep)?;
    let mut parts = Vec::new();
    for l in lists {
        for item in list(l)? {
            parts.push(string(item)?);
        }
    }
    reserve(
        parts
            .iter()
            .fold(0u64, |n, p| n.saturating_add((p.len() + sep.len()) as u64)),
    )?;
    Ok(Value::String(parts.join(&sep)))
}

/// `element` wraps around, as Terraform's does.
fn element(args: FuncArgs) -> Result<Value, String> {
    let items = list(&args[0])?;
    let i = number(&args[1])?;
    if items.is_empty() || i < 0.0 {
        return Err("element of an empty list or a negative index".into());
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let i = i as usize % items.len();
    Ok(items[i].clone())
}

fn lower(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::String(string(&args[0])?.to_lowercase()))
}

fn upper(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::String(string(&args[0])?.to_uppercase()))
}

fn contains(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::Bool(list(&args[0])?.contains(&args[1])))
}

fn length(args: FuncArgs) -> Result<Value, String> {
    let n = match &args[0] {
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        Value::String(s) => s.chars().count(),
        other => return Err(format!("no length for {other}")),
    };
    Ok(Value::from(n))
}

/// Terraform orders a map's keys lexically.
fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn keys(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::Array(
        sorted(object(&args[0])?)
            .into_iter()
            .map(|(k, _)| Value::String(k.clone()))
            .collect(),
    ))
}

fn values(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::Array(
        sorted(object(&args[0])?)
            .into_iter()
            .map(|(_, v)| v.clone())
            .collect(),
    ))
}

fn tomap(args: FuncArgs) -> Result<Value, String> {
    object(&args[0]).map(|o| Value::Object(o.clone()))
}

/// A set keeps the first of equal items; Terraform orders string sets lexically.
fn toset(args: FuncArgs) -> Result<Value, String> {
    let mut out = unique(list(&args[0])?);
    if out.iter().all(|v| matches!(v, Value::String(_))) {
        out.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    Ok(Value::Array(out))
}

fn tolist(args: FuncArgs) -> Result<Value, String> {
    list(&args[0]).map(|l| Value::Array(l.clone()))
}

fn tostring(args: FuncArgs) -> Result<Value, String> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        v => string(v).map(Value::String),
    }
}

fn tonumber(args: FuncArgs) -> Result<Value, String> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        v => number(v).map(num_value),
    }
}

fn split(args: FuncArgs) -> Result<Value, String> {
    let sep = string(&args[0])?;
    let s = string(&args[1])?;
    if sep.is_empty() {
        return Err("split with an empty separator".into());
    }
    Ok(Value::Array(
        s.split(sep.as_str())
            .map(|p| Value::String(p.to_string()))
            .collect(),
    ))
}

/// Plain substring replacement; a `/regex/` pattern fails, so the value stays unknown.
/// Whether `replace`'s pattern is a regular expression (`"/[{}]/"`), which gpulint does not
/// evaluate.
pub(crate) fn is_regex(pattern: &str) -> bool {
    pattern.len() > 1 && pattern.starts_with('/') && pattern.ends_with('/')
}

fn replace(args: FuncArgs) -> Result<Value, String> {
    let s = string(&args[0])?;
    let from = string(&args[1])?;
    let to = string(&args[2])?;
    if is_regex(&from) {
        return Err("regular-expression replace is not evaluated".into());
    }
    if from.is_empty() {
        return Err("replace of an empty string".into());
    }
    // Each match may grow the string: charge what it will be before building it.
    let matches = s.matches(from.as_str()).count() as u64;
    let len = (s.len() as u64).saturating_add(matches.saturating_mul(to.len() as u64));
    reserve(len)?;
    Ok(Value::String(s.replace(&from, &to)))
}

fn flatten(args: FuncArgs) -> Result<Value, String> {
    fn walk(v: &Value, out: &mut Vec<Value>, depth: usize) -> Result<(), String> {
        if depth > 64 {
            return Err("lists nested too deeply".into());
        }
        match v {
            Value::Array(items) => items.iter().try_for_each(|i| walk(i, out, depth + 1)),
            other => {
                out.push(other.clone());
                Ok(())
            }
        }
    }
    let mut out = Vec::new();
    for item in list(&args[0])? {
        walk(item, &mut out, 0)?;
    }
    Ok(Value::Array(out))
}

fn zipmap(args: FuncArgs) -> Result<Value, String> {
    let keys = list(&args[0])?;
    let values = list(&args[1])?;
    if keys.len() != values.len() {
        return Err("zipmap of lists of different lengths".into());
    }
    let mut out = Map::new();
    for (k, v) in keys.iter().zip(values) {
        out.insert(string(k)?, v.clone());
    }
    Ok(Value::Object(out))
}

/// The only element of a list, `null` for an empty one; more is an error.
fn one(args: FuncArgs) -> Result<Value, String> {
    match &list(&args[0])?[..] {
        [] => Ok(Value::Null),
        [v] => Ok(v.clone()),
        _ => Err("one() of a list with more than one element".into()),
    }
}

fn coalescelist(args: FuncArgs) -> Result<Value, String> {
    for a in args.iter() {
        if !list(a)?.is_empty() {
            return Ok(a.clone());
        }
    }
    Err("no non-empty list".into())
}

fn compact(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::Array(
        list(&args[0])?
            .iter()
            .filter(|v| !matches!(v, Value::Null) && !matches!(v, Value::String(s) if s.is_empty()))
            .cloned()
            .collect(),
    ))
}

fn distinct(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::Array(unique(list(&args[0])?)))
}

/// The items in order, each once, in linear time: scalars are told apart by their kind and
/// text, collections by their JSON form.
fn unique(items: &[Value]) -> Vec<Value> {
    let mut seen: std::collections::HashSet<(u8, String)> = std::collections::HashSet::new();
    let mut out: Vec<Value> = Vec::new();
    for v in items {
        let key = match v {
            Value::Null => (0, String::new()),
            Value::Bool(b) => (1, b.to_string()),
            Value::Number(n) => (2, n.to_string()),
            Value::String(s) => (3, s.clone()),
            other => (4, serde_json::to_string(other).unwrap_or_default()),
        };
        if seen.insert(key) {
            out.push(v.clone());
        }
    }
    out
}

/// Charges a result of `len` bytes before it is built; fails when the budget is spent.
fn reserve(len: u64) -> Result<(), String> {
    if super::budget::charge(len) {
        Ok(())
    } else {
        Err("the evaluation budget is spent".into())
    }
}

fn sort(args: FuncArgs) -> Result<Value, String> {
    let mut items: Vec<String> = list(&args[0])?
        .iter()
        .map(string)
        .collect::<Result<_, _>>()?;
    items.sort();
    Ok(Value::Array(items.into_iter().map(Value::String).collect()))
}

fn slice(args: FuncArgs) -> Result<Value, String> {
    let items = list(&args[0])?;
    let index = |v: &Value| -> Result<usize, String> {
        let n = number(v)?;
        if n < 0.0 || n.fract() != 0.0 {
            return Err("slice index must be a whole number".into());
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(n as usize)
    };
    let (from, to) = (index(&args[1])?, index(&args[2])?);
    if from > to || to > items.len() {
        return Err("slice out of range".into());
    }
    Ok(Value::Array(items[from..to].to_vec()))
}

/// Terraform refuses a `range` of more values than this.
const RANGE_MAX: usize = 1024;

/// `range(limit)`, `range(start, limit)`, `range(start, limit, step)`: the numbers from
/// `start` (0) up to, not including, `limit`, by `step` (1, or -1 when `limit` is below
/// `start`). More than [`RANGE_MAX`] values fail, as in Terraform.
fn range(args: FuncArgs) -> Result<Value, String> {
    let n: Vec<f64> = args.iter().map(number).collect::<Result<_, _>>()?;
    let (start, limit, step) = match n[..] {
        [limit] => (0.0, limit, 1.0),
        [start, limit] => (start, limit, if limit < start { -1.0 } else { 1.0 }),
        [start, limit, step] => (start, limit, step),
        _ => return Err("range takes one to three numbers".into()),
    };
    if step == 0.0 || !step.is_finite() {
        return Err("range step must not be zero".into());
    }
    let ahead = |x: f64| if step > 0.0 { x < limit } else { x > limit };
    let mut out = Vec::new();
    let mut x = start;
    while ahead(x) {
        if out.len() == RANGE_MAX {
            return Err(format!("range makes more than {RANGE_MAX} values"));
        }
        #[allow(clippy::cast_possible_truncation)]
        let value = if x.fract() == 0.0 && x.abs() < 1e15 {
            Number::from(x as i64)
        } else {
            Number::from_f64(x).ok_or("range value is not a number")?
        };
        out.push(Value::Number(value));
        #[allow(clippy::cast_precision_loss)]
        let next = start + step * out.len() as f64;
        x = next;
    }
    Ok(Value::Array(out))
}

/// The text of a file the run read for this ([`crate::scripts`]); any other does not
/// evaluate.
fn file(args: FuncArgs) -> Result<Value, String> {
    let path = string(&args[0])?;
    crate::scripts::read(&path)
        .map(|t| Value::String(t.to_string()))
        .ok_or_else(|| "a file gpulint did not read".into())
}

/// [`file`], rendered with the values given ([`crate::scripts::render`]).
fn templatefile(args: FuncArgs) -> Result<Value, String> {
    let path = string(&args[0])?;
    let text = crate::scripts::read(&path).ok_or("a file gpulint did not read")?;
    match &args[1] {
        Value::Object(vars) => Ok(Value::String(crate::scripts::render(&text, vars))),
        _ => Err("templatefile takes an object of values".into()),
    }
}

fn trimspace(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::String(string(&args[0])?.trim().to_string()))
}

fn startswith(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::Bool(
        string(&args[0])?.starts_with(&string(&args[1])?),
    ))
}

fn endswith(args: FuncArgs) -> Result<Value, String> {
    Ok(Value::Bool(string(&args[0])?.ends_with(&string(&args[1])?)))
}

fn tobool(args: FuncArgs) -> Result<Value, String> {
    match &args[0] {
        Value::Null => Ok(Value::Null),
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::String(s) if s == "true" || s == "false" => Ok(Value::Bool(s == "true")),
        other => Err(format!("cannot convert {other} to bool")),
    }
}

fn abs(args: FuncArgs) -> Result<Value, String> {
    Ok(num_value(number(&args[0])?.abs()))
}

fn ceil(args: FuncArgs) -> Result<Value, String> {
    Ok(num_value(number(&args[0])?.ceil()))
}

fn floor(args: FuncArgs) -> Result<Value, String> {
    Ok(num_value(number(&args[0])?.floor()))
}

#[cfg(test)]
mod tests {
    use hcl::eval::{Context, Evaluate};

    fn eval(src: &str) -> Result<hcl::Value, String> {
        let body = hcl_edit::parser::parse_body(&format!("x = {src}\n")).unwrap();
        let expr = hcl::Expression::from(body.get_attribute("x").unwrap().value.clone());
        let mut ctx = Context::new();
        super::declare(&mut ctx);
        expr.evaluate(&ctx).map_err(|e| e.to_string())
    }

    fn ok(src: &str) -> String {
        serde_json::to_string(&eval(src).unwrap()).unwrap()
    }

    #[test]
    fn functions_modules_use() {
        assert_eq!(ok(r#"lookup({a = 1}, "b", 2)"#), "2");
        assert!(eval(r#"lookup({a = 1}, "b")"#).is_err());
        assert_eq!(
            ok(r"merge({a = 1, b = 1}, null, {b = 2})"),
            r#"{"a":1,"b":2}"#
        );
        assert_eq!(ok("concat([1], [2, 3])"), "[1,2,3]");
        assert_eq!(ok("element([1, 2, 3], 4)"), "2");
        assert_eq!(ok(r#"coalesce(null, "", "x")"#), r#""x""#);
        assert_eq!(ok(r#"format("%s-%d%%", "p5", 48)"#), r#""p5-48%""#);
        assert!(eval(r#"format("%08.3f", 1)"#).is_err());
        assert_eq!(ok(r#"lower("SPOT")"#), r#""spot""#);
        assert_eq!(ok(r#"upper("spot")"#), r#""SPOT""#);
        assert_eq!(ok(r#"contains(["a", "b"], "b")"#), "true");
        assert_eq!(ok(r"length({a = 1, b = 2})"), "2");
        assert_eq!(ok("keys({b = 1, a = 2})"), r#"["a","b"]"#);
        assert_eq!(ok("values({b = 1, a = 2})"), "[2,1]");
        assert_eq!(ok(r#"toset(["b", "a", "b"])"#), r#"["a","b"]"#);
        assert_eq!(ok(r#"join(",", ["a"], ["b"])"#), r#""a,b""#);
        assert_eq!(ok(r#"split(",", "a,b")"#), r#"["a","b"]"#);
        assert_eq!(ok(r#"replace("a-b-c", "-", "_")"#), r#""a_b_c""#);
        assert!(eval(r#"replace("a1", "/[0-9]/", "")"#).is_err());
        assert_eq!(ok("min(3, 1, 2)"), "1");
        assert_eq!(ok("max(3, 1.5)"), "3");
        assert_eq!(ok("flatten([[1], [[2]], 3])"), "[1,2,3]");
        assert_eq!(ok(r#"zipmap(["a", "b"], [1, 2])"#), r#"{"a":1,"b":2}"#);
        assert_eq!(ok(r#"tonumber("2")"#), "2");
        assert_eq!(ok(r#"one(["us-west1-b"])"#), r#""us-west1-b""#);
        assert_eq!(ok("one([])"), "null");
        assert!(eval("one([1, 2])").is_err());
        assert_eq!(ok(r#"compact(["a", "", null])"#), r#"["a"]"#);
        assert_eq!(ok("distinct([1, 1, 2])"), "[1,2]");
        assert_eq!(ok(r#"sort(["b", "a"])"#), r#"["a","b"]"#);
        assert_eq!(ok("slice([1, 2, 3], 1, 3)"), "[2,3]");
        assert_eq!(ok("coalescelist([], [1])"), "[1]");
        assert_eq!(ok(r#"startswith("p5.48xlarge", "p5")"#), "true");
        assert_eq!(ok(r#"tobool("true")"#), "true");
        assert_eq!(ok("ceil(1.2) + floor(1.8) + abs(-1)"), "4");
        assert_eq!(ok("range(3)"), "[0,1,2]");
        assert_eq!(ok("range(1, 4)"), "[1,2,3]");
        assert_eq!(ok("range(4, 1)"), "[4,3,2]");
        assert_eq!(ok("range(0, 1, 0.5)"), "[0,0.5]");
        assert_eq!(ok("range(0)"), "[]");
        assert!(eval("range(1, 2, 0)").is_err());
        // Terraform refuses more than 1,024 values; so does gpulint, without making them.
        assert_eq!(ok("length(range(1024))"), "1024");
        assert!(eval("range(1e12)").is_err());
    }

    #[test]
    fn other_functions_do_not_evaluate() {
        assert!(eval(r#"file("x")"#).is_err());
        assert!(eval("timestamp()").is_err());
    }
}
