//! gpulint: a policy-as-code linter for GPU infrastructure.
//!
//! The pipeline (DESIGN.md): discover → parse → lower → model → rules → filter → report.

pub mod baseline;
pub mod bounded;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod cost;
pub mod discover;
pub mod filter;
pub mod finding;
pub mod fingerprint;
pub mod fit;
pub mod inspect;
pub mod limits;
pub mod lint;
pub mod lower;
pub mod model;
pub mod parse;
pub mod policy;
pub mod report;
pub mod rules;
pub mod source;
pub mod suppress;
