//! Multi-document Kubernetes YAML through parsing, lowering, rules and reports.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    common::check("manifests.yaml", data, gpulint::config::Config::default());
});
