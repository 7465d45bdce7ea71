//! Terraform evaluation: every input becomes a valid module of locals, a variable default,
//! `count`, `for_each` and `dynamic` blocks that are expressions over each other
//! (`program.rs`), linted as `main.tf`. Beyond not crashing, hanging or exhausting memory,
//! the literal GPU VM at the end of every program must always be flagged: no expression
//! may make gpulint lose a finding that does not depend on it.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;
mod program;

fuzz_target!(|data: &[u8]| {
    let text = program::program(data);
    let outcome = common::check(
        "main.tf",
        text.as_bytes(),
        gpulint::config::Config::default(),
    );
    assert!(
        outcome
            .findings
            .iter()
            .any(|f| f.rule == program::SENTINEL_RULE && f.subject == program::SENTINEL),
        "the literal GPU VM was not flagged:\n{text}"
    );
});
