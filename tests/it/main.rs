//! The root package's integration tests, linked as one binary (matklad's "one `tests/it`
//! main"): each module was a test binary of its own, each linking the whole pipeline.
//! The binary is run through `CARGO_BIN_EXE_gpulint`; the library through `gpulint::`.

mod calibration;
mod ci;
mod cli;
mod common;
mod cost;
mod distribution;
mod evaluation;
mod everyday;
mod fit;
mod fuzz;
mod inputs;
mod inspect;
mod layout;
mod limits;
mod output_safety;
mod parsers;
mod policies;
mod precommit;
mod rules;
mod streaming;
mod terraform;
