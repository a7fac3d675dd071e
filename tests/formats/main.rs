//! The ways in that every engine shares: the CLI, streaming JSON Lines and Parquet I/O, the fuzz targets' bodies on stable.
//! One test binary: its modules share `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod fuzz_corpus;
mod grasp_parquet;
mod grasp_pictures;
mod io;
