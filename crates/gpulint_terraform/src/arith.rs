//! Terraform's arithmetic operators, as a function hcl-rs evaluates (`a + b` is converted
//! to a call of it with the operator as its first argument).

use hcl::Value;
use hcl::eval::FuncArgs;

/// Arithmetic as Terraform does it: numbers, or strings that read as numbers; exact on
/// integers while the result fits in an `i64`, floating point beyond; division and
/// remainder by zero fail. hcl-rs's own operators panic on `x % 0` and `i64::MIN % -1`
/// and wrap integer overflow into a wrong number.
#[allow(clippy::needless_pass_by_value)] // the signature hcl-rs calls
pub(crate) fn arith(args: FuncArgs) -> Result<Value, String> {
    use hcl::Number;
    fn operand(v: &Value) -> Result<Number, String> {
        match v {
            Value::Number(n) => Ok(*n),
            Value::String(s) => s
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .ok_or_else(|| "a string that is not a number".to_string()),
            _ => Err("an operand that is not a number".into()),
        }
    }
    let op = args[0].as_str().unwrap_or_default();
    let (a, b) = (operand(&args[1])?, operand(&args[2])?);
    if matches!(op, "/" | "%") && b.as_f64() == Some(0.0) {
        return Err("division by zero".into());
    }
    let exact = match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) if !a.is_f64() && !b.is_f64() => match op {
            "+" => x.checked_add(y),
            "-" => x.checked_sub(y),
            "*" => x.checked_mul(y),
            "%" => x.checked_rem(y),
            _ => None,
        },
        _ => None,
    };
    if let Some(n) = exact {
        return Ok(Value::Number(Number::from(n)));
    }
    let (x, y) = (
        a.as_f64().unwrap_or(f64::NAN),
        b.as_f64().unwrap_or(f64::NAN),
    );
    let n = match op {
        "+" => x + y,
        "-" => x - y,
        "*" => x * y,
        "/" => x / y,
        _ => x % y,
    };
    Number::from_f64(n)
        .map(Value::Number)
        .ok_or_else(|| "a number out of range".into())
}
