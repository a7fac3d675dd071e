//! Python bindings of planar-hold: numpy arrays in, numpy arrays out.
//!
//! Built by maturin as `planar_hold._native`; the Python package `planar_hold` re-exports it.
//! Split by subject: [`input`] converts the arguments (numpy arrays read in place, scene
//! dicts and lines), [`engine`] runs the work without the GIL, [`grasp`] answers grasps
//! (arrays, lines, Arrow batches) as columns, [`output`] makes the
//! results (numpy columns, or the answers as `planar-hold eval` writes them), [`error`] maps
//! every Rust error to a Python exception.

mod engine;
mod error;
mod grasp;
mod input;
mod output;
mod to_py;

use pyo3::prelude::*;

/// Keeps the memory of dropped outputs for the next call's instead of handing it back to
/// the kernel (a call's columns faulted in anew cost about 6 % of the planar call).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` of `mimalloc.h` (libmimalloc-sys names no constant for it): the
/// milliseconds before freed memory goes back to the kernel.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The compiled half of `planar_hold`.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A loop of calls frees and reallocates the same outputs every few milliseconds to
    // seconds: keep freed memory a second (mimalloc's default: 10 ms), as the CLI does.
    // SAFETY: an option store, read by mimalloc when it purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 1000) };
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<engine::Engine>()?;
    m.add_function(wrap_pyfunction!(engine::scene_generators, m)?)?;
    m.add_function(wrap_pyfunction!(engine::region_map, m)?)?;
    m.add_function(wrap_pyfunction!(engine::grasp_discs, m)?)?;
    m.add_class::<output::Outcomes>()?;
    m.add_class::<output::GeneralOutcomes>()?;
    m.add_class::<grasp::GraspColumns>()?;
    m.add_function(wrap_pyfunction!(grasp::grasp_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(grasp::grasp_lines, m)?)?;
    m.add_function(wrap_pyfunction!(grasp::grasp_arrow, m)?)?;
    m.add("GpuError", m.py().get_type::<error::GpuError>())?;
    m.add("SUPPORTED", planar_hold::Verdict::Supported as u8)?;
    m.add("UNSUPPORTED", planar_hold::Verdict::Unsupported as u8)?;
    m.add("UNCERTAIN", planar_hold::Verdict::Uncertain as u8)?;
    m.add("MAX_GENERATORS", planar_hold::MAX_GENERATORS)?;
    m.add(
        "MAX_GENERAL_GENERATORS",
        planar_hold::MAX_GENERAL_GENERATORS,
    )?;
    m.add("MARGIN_CAP", planar_hold::MARGIN_CAP)?;
    Ok(())
}
