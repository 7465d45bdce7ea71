//! A run above `stream_above` bytes of Terraform parses, lowers and drops its root modules a
//! chunk at a time instead of holding every tree. Both ways must find the same things.

use std::path::PathBuf;

use gpulint::lint::{Options, lint};

/// Every finding of a run over `paths`, as a user sees it: rule, place and message.
fn findings(paths: &[&str], stream_above: Option<u64>) -> Vec<String> {
    let outcome = lint(
        &Options {
            paths: paths.iter().map(PathBuf::from).collect(),
            stream_above,
            ..Options::default()
        },
        std::io::empty(),
    )
    .unwrap();
    outcome
        .findings
        .iter()
        .map(|f| {
            // Where a user sees it: a streamed run read its text again to say so.
            let file = outcome.db.get(f.primary.file);
            let at = file.region(f.primary.span.as_ref().unwrap_or(&(0..0)));
            let file = &file.name;
            let related: Vec<String> = f
                .related
                .iter()
                .map(|r| format!("{}@{}:{:?}", r.text, r.file.0, r.span))
                .collect();
            format!("{} {file}:{at:?} {} {related:?}", f.rule, f.message)
        })
        .collect()
}

#[test]
fn streaming_terraform_finds_what_holding_it_finds() {
    // The fixtures are many small roots and modules, with broken files, calls between
    // folders, tfvars and suppressions; the examples are whole modules.
    for (paths, at_least) in [(&["fixtures"][..], 100), (&["examples"][..], 3)] {
        let held = findings(paths, None);
        let streamed = findings(paths, Some(0));
        assert!(held.len() >= at_least, "{paths:?}: {held:?}");
        assert_eq!(held, streamed, "{paths:?}");
    }
    let fixtures = findings(&["fixtures"], Some(0));
    for rule in [
        "parse-error",
        "unused-suppression",
        "gpu-pool-never-scales-to-zero",
    ] {
        assert!(fixtures.iter().any(|f| f.starts_with(rule)), "{rule}");
    }
}
