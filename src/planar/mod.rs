//! The enumeration engine (docs/contract-planar.md): R³, at most 16 generators, float32, by a
//! fixed table of 696 witness subsets and 385 certificate planes.
//!
//! One room of the same shape as [`crate::general`]: the Pod types mirrored in the kernel
//! ([`types`]), the tables ([`tables`]), the kernel `shaders/cone_test.wgsl` and its CPU twin
//! of the same name ([`cone_test`]), the fast path on SIMD lanes (bit for bit the twin's
//! answers), the GPU host ([`host`]) and the degenerate sample cones ([`sample`]).

pub(crate) mod cone_test;
pub(crate) mod host;
pub(crate) mod lanes;
pub(crate) mod sample;
pub(crate) mod tables;
pub(crate) mod types;

#[cfg(test)]
mod layout_tests;
#[cfg(test)]
mod shader_tests;

pub(crate) use lanes::{cone_test_batch_into, cone_test_slice};
