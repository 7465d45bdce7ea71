//! Terraform HCL (`.tf`, and `.tfvars` when the first byte is odd) through parsing,
//! evaluation, lowering, rules and reports.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    let name = match data.first() {
        Some(b) if b % 2 == 1 => "fuzz.tfvars",
        _ => "main.tf",
    };
    common::check(name, data, gpulint::config::Config::default());
});
