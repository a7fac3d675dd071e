//! The general engine (docs/contract-general.md): the public cases and invariants on the CPU, the CLI on general lines, the GPU search finished on the host, margins one can check.
//! One test binary: its modules share `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod basis;
mod cli;
mod engine;
mod gpu;
mod local;
mod margin;
mod proof;
mod region;
