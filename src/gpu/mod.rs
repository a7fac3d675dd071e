//! The GPU backend: `shaders/cone_test.wgsl` through wgpu.
//!
//! `context` chooses the adapter and builds what lives as long as the device (pipeline,
//! tables); `engine` streams batches of any size through reused, double-buffered chunks.

mod context;
mod engine;

pub use context::{adapters, AdapterReport, GpuContext};
pub use engine::{GpuEngine, GpuOptions};

/// The shader source, embedded (validated by naga in `build.rs`).
pub const CONE_TEST_WGSL: &str = include_str!("../../shaders/cone_test.wgsl");

/// Invocations per workgroup; must equal `WORKGROUP_SIZE` in the shader.
pub const WORKGROUP_SIZE: u32 = 64;
