//! Terraform programs built from fuzz bytes, for the evaluator.
//!
//! Random bytes seldom parse as HCL, so the `hcl` target spends little time in evaluation.
//! This grammar turns every input into a valid module whose locals, variable default,
//! `count`, `for_each` and `dynamic` blocks are expressions over each other: templates and
//! template directives, `for` expressions, splats, conditionals, operators and the
//! functions gpulint evaluates (and some it does not). Locals may refer forward, to
//! themselves, or double each other, so that evaluation order, cycles and blow-up are all
//! reached. The module ends with a literal GPU VM that nothing depends on: whatever the
//! expressions do, it must still be flagged.
//!
//! Shared by the `eval` fuzz target and `tests/it/evaluation.rs`, which runs a fixed sweep of
//! programs in the ordinary test suite.

use std::fmt::Write as _;

/// The resource every program ends with, and the rule it must always trip.
pub const SENTINEL: &str = "aws_instance.sentinel";
pub const SENTINEL_RULE: &str = "missing-auto-shutdown";

/// Functions, with the number of arguments to give them. All but the last few are declared
/// by gpulint's evaluator; the rest must leave their value unknown, never fail the run.
const FUNCTIONS: &[(&str, usize)] = &[
    ("concat", 2),
    ("merge", 2),
    ("format", 3),
    ("join", 2),
    ("replace", 3),
    ("split", 2),
    ("distinct", 1),
    ("zipmap", 2),
    ("flatten", 1),
    ("keys", 1),
    ("values", 1),
    ("length", 1),
    ("lookup", 3),
    ("element", 2),
    ("coalesce", 2),
    ("coalescelist", 2),
    ("compact", 1),
    ("sort", 1),
    ("slice", 3),
    ("min", 2),
    ("max", 2),
    ("tostring", 1),
    ("tonumber", 1),
    ("tolist", 1),
    ("toset", 1),
    ("tomap", 1),
    ("upper", 1),
    ("one", 1),
    ("contains", 2),
    ("try", 2),
    ("can", 1),
    ("range", 1),
    ("setproduct", 2),
    ("jsonencode", 1),
];

const STRINGS: &[&str] = &[
    "",
    "a",
    "p5.48xlarge",
    "g5.xlarge",
    "x,y,z",
    "$${",
    "%%{",
    "\\n",
];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "1024",
    "0.5",
    "9007199254740993",
    "1e300",
];

/// Reads the input as a stream of choices; past its end every choice is 0.
struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        usize::from(b) % n
    }
}

struct Writer<'a> {
    choices: Choices<'a>,
    out: String,
    locals: usize,
    /// Names bound by the `for` expressions around the current point.
    bound: Vec<String>,
    /// Set inside a resource with `count`, `for_each` or a `dynamic` block.
    iterator: Option<&'static str>,
}

/// Builds one program from `data`.
pub fn program(data: &[u8]) -> String {
    let mut w = Writer {
        choices: Choices { data, at: 0 },
        out: String::new(),
        locals: 0,
        bound: Vec::new(),
        iterator: None,
    };
    w.locals = 1 + w.choices.pick(16);
    w.out.push_str("variable \"v\" {\n  default = ");
    w.expr(3);
    w.out.push_str("\n}\n\nlocals {\n");
    for i in 0..w.locals {
        let _ = write!(w.out, "  l{i} = ");
        w.expr(4);
        w.out.push('\n');
    }
    w.out
        .push_str("}\n\nresource \"aws_instance\" \"counted\" {\n  count = ");
    w.expr(2);
    w.iterator = Some("count.index");
    w.out.push_str("\n  instance_type = ");
    w.expr(2);
    w.out
        .push_str("\n  dynamic \"ebs_block_device\" {\n    for_each = ");
    w.expr(2);
    w.iterator = Some("ebs_block_device.value");
    w.out.push_str("\n    content {\n      device_name = ");
    w.expr(2);
    w.out
        .push_str("\n    }\n  }\n}\n\nresource \"aws_eks_node_group\" \"each\" {\n  for_each = ");
    w.iterator = None;
    w.expr(2);
    w.iterator = Some("each.value");
    w.out.push_str("\n  instance_types = [");
    w.expr(2);
    w.out.push_str("]\n  scaling_config {\n    min_size = ");
    w.expr(2);
    w.out.push_str("\n  }\n}\n\n");
    let _ = write!(
        w.out,
        "resource \"aws_instance\" \"{}\" {{\n  instance_type = \"p5.48xlarge\"\n}}\n",
        SENTINEL.trim_start_matches("aws_instance.")
    );
    w.out
}

impl Writer<'_> {
    fn expr(&mut self, depth: usize) {
        if depth == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        match self.choices.pick(16) {
            0..=3 => self.leaf(),
            4 | 5 => {
                let (name, arity) = FUNCTIONS[self.choices.pick(FUNCTIONS.len())];
                let _ = write!(self.out, "{name}(");
                for i in 0..arity {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(d);
                }
                self.out.push(')');
            }
            6 => {
                self.out.push_str("\"${");
                self.expr(d);
                self.out.push_str("}${");
                self.expr(d);
                self.out.push_str("}\"");
            }
            7 => {
                let x = self.bind();
                self.out.push_str("\"%{ for ");
                self.out.push_str(&x);
                self.out.push_str(" in ");
                self.expr(d);
                self.out.push_str(" }${");
                self.expr(d);
                self.out.push_str("}%{ endfor }\"");
                self.bound.pop();
            }
            8 => {
                self.out.push('[');
                self.expr(d);
                self.out.push_str(", ");
                self.expr(d);
                self.out.push(']');
            }
            9 => {
                self.out.push_str("{ k = ");
                self.expr(d);
                self.out.push_str(", (");
                self.expr(d);
                self.out.push_str(") = ");
                self.expr(d);
                self.out.push_str(" }");
            }
            10 => {
                let x = self.bind();
                let _ = write!(self.out, "[for {x} in ");
                self.expr(d);
                self.out.push_str(" : ");
                self.expr(d);
                if self.choices.pick(2) == 0 {
                    self.out.push_str(" if ");
                    self.expr(d);
                }
                self.out.push(']');
                self.bound.pop();
            }
            11 => {
                let k = self.bind();
                let v = self.bind();
                let _ = write!(self.out, "{{for {k}, {v} in ");
                self.expr(d);
                let _ = write!(self.out, " : tostring({k}) => ");
                self.expr(d);
                self.out.push_str(if self.choices.pick(2) == 0 {
                    "... }"
                } else {
                    " }"
                });
                self.bound.pop();
                self.bound.pop();
            }
            12 => {
                self.expr(d);
                self.out.push_str(" ? ");
                self.expr(d);
                self.out.push_str(" : ");
                self.expr(d);
            }
            13 => {
                self.out.push('(');
                self.expr(d);
                let op = ["+", "*", "-", "/", "%", "==", "&&", ">"][self.choices.pick(8)];
                let _ = write!(self.out, " {op} ");
                self.expr(d);
                self.out.push(')');
            }
            14 => {
                self.out.push('(');
                self.expr(d);
                self.out.push(')');
                match self.choices.pick(3) {
                    0 => {
                        self.out.push('[');
                        self.expr(d);
                        self.out.push(']');
                    }
                    1 => self.out.push_str("[*].id"),
                    _ => self.out.push_str(".k"),
                }
            }
            _ => {
                self.out.push_str(["!", "-"][self.choices.pick(2)]);
                self.expr(d);
            }
        }
    }

    fn leaf(&mut self) {
        match self.choices.pick(10) {
            0..=2 => {
                let i = self.choices.pick(self.locals);
                let _ = write!(self.out, "local.l{i}");
            }
            3 => self.out.push_str("var.v"),
            4 if !self.bound.is_empty() => {
                let name = self.bound[self.choices.pick(self.bound.len())].clone();
                self.out.push_str(&name);
            }
            5 if self.iterator.is_some() => self.out.push_str(self.iterator.unwrap_or("")),
            6 => {
                let n = NUMBERS[self.choices.pick(NUMBERS.len())];
                self.out.push_str(n);
            }
            7 => self
                .out
                .push_str(["true", "null", "[]", "{}"][self.choices.pick(4)]),
            _ => {
                let s = STRINGS[self.choices.pick(STRINGS.len())];
                let _ = write!(self.out, "\"{s}\"");
            }
        }
    }

    /// A fresh name for a `for` expression to bind.
    fn bind(&mut self) -> String {
        let name = format!("x{}", self.bound.len());
        self.bound.push(name.clone());
        name
    }
}
