//! The GPU, for any kernel: the adapter from the environment, the device with its failures
//! captured ([`GpuContext`]), a compute kernel built from WGSL and a table of bindings
//! ([`Kernel`]), and one chunked dispatch and readback ([`Slots::run`]): two slots of reused
//! buffers, so the GPU computes one chunk while the previous one is read back, with the
//! kernel time of every chunk summed from timestamp queries.
//!
//! Written once as async code: the page awaits it (a browser cannot block its own thread), the
//! native engine blocks on it at the edge ([`block_on`]). Nothing here names an engine: the
//! planar and general hosts describe their kernels and chunks to it.

pub(crate) mod adapter;
pub(crate) mod context;
mod kernel;
mod slots;

pub(crate) use context::GpuContext;
pub(crate) use kernel::{Binding, Kernel, KernelSpec};
pub(crate) use slots::{Dispatch, Slots, Upload};

/// Runs a future of this module to completion on this thread: the native blocking edge.
/// (Never on the page, whose thread must return to the browser for the GPU to answer.)
pub(crate) fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}
