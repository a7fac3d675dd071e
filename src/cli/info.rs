//! `planar-hold info`: adapters and the limits that bound a batch.

use planar_hold::details::device::adapters;
use planar_hold::details::{Simd, SIMD_ENV};
use planar_hold::{Backend, Engine};

use std::io::Write;

use super::{BackendArg, Failure};

/// `backend` `cpu`: the CPU alone, without looking for adapters.
pub(super) fn run(backend: BackendArg) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    if backend == BackendArg::Cpu {
        writeln!(out, "cpu: {} threads", rayon::current_num_threads())?;
        return Ok(());
    }
    let found = adapters();
    if found.is_empty() {
        writeln!(
            out,
            "no GPU adapter found (WGPU_BACKEND={})",
            std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "unset".into())
        )?;
    }
    for a in &found {
        let l = &a.limits;
        writeln!(
            out,
            "{} — {:?}, {:?}, driver {} {}",
            a.info.name, a.info.backend, a.info.device_type, a.info.driver, a.info.driver_info
        )?;
        writeln!(out,
            "    storage binding {} MiB, buffer {} MiB, {} workgroups per dimension, uniform binding {} KiB, timestamps {}",
            l.max_storage_buffer_binding_size >> 20,
            l.max_buffer_size >> 20,
            l.max_compute_workgroups_per_dimension,
            l.max_uniform_buffer_binding_size >> 10,
            if a.timestamps { "yes" } else { "no" }
        )?;
    }
    match Engine::new(Backend::Gpu) {
        Ok(engine) => {
            // A GPU engine always has its device.
            let chunk = engine.gpu().map_or(0, |g| g.chunk_cases());
            writeln!(
                out,
                "chosen: {} — {chunk} cases per chunk",
                engine.describe()
            )?
        }
        Err(e) => writeln!(out, "chosen: none — {e}")?,
    }
    let simd = Simd::chosen();
    let can: Vec<&str> = Simd::ALL
        .iter()
        .filter(|s| s.available())
        .map(|s| s.name())
        .collect();
    writeln!(
        out,
        "cpu: {} threads; fast path {simd} ({} cases per group; this CPU runs {}; {SIMD_ENV} chooses)",
        rayon::current_num_threads(),
        simd.lanes(),
        can.join(", ")
    )?;
    Ok(())
}
