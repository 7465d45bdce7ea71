//! gpulint: a policy-as-code linter for GPU infrastructure.
//!
//! The root package is the pipeline and the command line: [`discover`] finds the files,
//! [`lint`] reads, parses, lowers, runs the rules and filters, [`config`] reads
//! `.gpulint.toml` and checks it against the rule registry, [`baseline`] and [`filter`]
//! decide what is reported, and [`cli`] prints through the report crate.
//!
//! The stages below it are crates of their own (README, Development: the crate map), and
//! the dependency graph is the pipeline: source, facts, syntax, model, fit, terraform,
//! kubernetes, lower, diagnostics, rules, inventory, policy, report. They are re-exported
//! here under the module names the library has always used (`gpulint::model`, …).
//!
//! May use: every gpulint crate.

pub mod baseline;
pub mod cli;
pub mod config;
pub mod discover;
pub mod exclude;
pub mod filter;
mod ignores;
pub mod lint;
mod overwrite;

pub use gpulint_diagnostics as finding;
pub use gpulint_diagnostics::fingerprint;
pub use gpulint_facts as catalog;
pub use gpulint_fit as fit;
pub use gpulint_inventory as inspect;
pub use gpulint_inventory::cost;
pub use gpulint_lower as lower;
pub use gpulint_model as model;
pub use gpulint_policy as policy;
pub use gpulint_report as report;
pub use gpulint_rules as rules;
pub use gpulint_rules::suppress;
pub use gpulint_source as source;
pub use gpulint_source::{bounded, limits};
pub use gpulint_syntax as parse;
