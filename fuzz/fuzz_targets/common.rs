//! One input through the whole pipeline, as `gpulint check - --stdin-filename NAME` reads
//! it: parse, lower, rules, filter and every report. Stdin touches no file, so an
//! execution reads nothing but its input.

use std::path::PathBuf;

use gpulint::config::Config;
use gpulint::lint::{Options, Outcome, lint};
use gpulint::report;

/// Returns the outcome, for targets that check more than the absence of a crash.
pub fn check(name: &str, data: &[u8], config: Config) -> Outcome {
    let opts = Options {
        paths: vec![PathBuf::from("-")],
        stdin_filename: Some(name.to_string()),
        config,
        ..Options::default()
    };
    let outcome = lint(&opts, data).expect("stdin alone never fails the run");
    // The reports cost many times the lint (SARIF and JUnit build whole documents): each runs
    // on a share of the inputs, chosen by length so a crash reproduces from its input alone.
    // The human report runs on every input with a long line (miette panicked past column
    // 65,535; long lines are now shown as a cheap window), and on a share of the rest.
    let long_line = data.split(|&b| b == b'\n').any(|l| l.len() > 400);
    if long_line || data.len() % 256 == 0 {
        let color = data.len() % 2 == 1;
        let style = report::human::Style { color, width: 100 };
        let text = report::human::render(&outcome, &style);
        if !color {
            printable("human", &text);
        }
    }
    match data.len() % 8 {
        1 if data.len() % 64 == 1 => drop(report::sarif::render(&outcome)),
        3 => printable("junit", &report::junit::render(&outcome)),
        5 => printable("github", &report::github::render(&outcome)),
        7 => drop(report::json::render(&outcome)),
        _ => printable("compact", &report::compact::render(&outcome)),
    }
    outcome
}

/// A text report carries nothing from the input raw that a terminal or CI log would act on:
/// no control or bidi character but its own line breaks.
fn printable(format: &str, text: &str) {
    if let Some(c) = text
        .chars()
        .find(|&c| c != '\n' && report::escape::is_unsafe(c))
    {
        panic!("{format} output carries a raw {c:?}");
    }
}
