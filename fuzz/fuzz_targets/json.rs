//! JSON: `terraform show -json` plans, and `.tf.json` / `.tfvars.json` configuration,
//! chosen by the first byte, through the JSON front end, lowering, rules and reports.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    let name = match data.first().map(|b| b % 3) {
        Some(1) => "main.tf.json",
        Some(2) => "fuzz.tfvars.json",
        _ => "plan.json",
    };
    common::check(name, data, gpulint::config::Config::default());
});
