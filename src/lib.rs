//! gpulint: a policy-as-code linter for GPU infrastructure.
//!
//! The pipeline (DESIGN.md): discover → parse → lower → model → rules → filter → report.

pub mod baseline;

pub mod cli;
pub mod config;

pub mod discover;
pub mod exclude;
pub mod filter;

pub mod lint;

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
