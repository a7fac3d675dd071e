//! The kernels as GPUs see them: the shaders translated for every backend wgpu ships (the
//! struct layouts against naga's reflection of the WGSL are `src/planar/layout_tests.rs`).
//! One test binary: its modules share `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod shader;
