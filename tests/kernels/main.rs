//! The kernels as GPUs see them: struct layouts against naga's reflection of the WGSL, and the shaders translated for every backend wgpu ships.
//! One test binary: its modules share `tests/common/`.

#[path = "../common/mod.rs"]
mod common;

mod layout;
mod shader;
