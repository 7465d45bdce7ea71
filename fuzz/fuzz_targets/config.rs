//! `.gpulint.toml`: parsing and validation, then, when it is valid, a lint of a GPU
//! fixture under it (selection, severities, rule options, excludes).
//!
//! `Config::install` (the catalog and model rows) sets process-wide tables once per run,
//! so it is not called here; its rows are validated by `Config::parse` already.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

mod common;

const MANIFEST: &str = include_str!("../../fixtures/missing-shm/fires/multi-gpu.yaml");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(config) = gpulint::config::Config::parse(text, Path::new(".gpulint.toml")) {
        common::check("job.yaml", MANIFEST.as_bytes(), config);
    }
});
