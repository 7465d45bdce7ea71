//! One input through the whole pipeline, as `gpulint check - --stdin-filename NAME` reads
//! it: parse, lower, rules, filter and every report. Stdin touches no file, so an
//! execution reads nothing but its input.

use std::path::PathBuf;

use gpulint::config::Config;
use gpulint::lint::{Options, lint};
use gpulint::report;

pub fn check(name: &str, data: &[u8], config: Config) {
    let opts = Options {
        paths: vec![PathBuf::from("-")],
        stdin_filename: Some(name.to_string()),
        config,
        ..Options::default()
    };
    let outcome = lint(&opts, data).expect("stdin alone never fails the run");
    // The reports cost many times the lint (miette wraps text, SARIF and JUnit build whole
    // documents): each runs on a share of the inputs, chosen by length so a crash
    // reproduces from its input alone.
    if data.len() % 256 == 0 {
        let style = report::human::Style {
            color: true,
            width: 100,
        };
        let _ = report::human::render(&outcome, &style);
    }
    match data.len() % 8 {
        1 if data.len() % 64 == 1 => drop(report::sarif::render(&outcome)),
        3 => drop(report::junit::render(&outcome)),
        5 => drop(report::github::render(&outcome)),
        7 => drop(report::json::render(&outcome)),
        _ => drop(report::compact::render(&outcome)),
    }
}
