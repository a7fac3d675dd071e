//! The planar enumeration (docs/contract-planar.md): reference values, scale properties, the fast path against the reference, GPU against CPU, an independent oracle, the public sets.
//! One test binary: its modules share `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod agreement;
mod lanes;
mod oracle;
mod properties;
mod public_sample;
mod reference;
