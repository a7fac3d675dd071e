//! The general test's GPU host side: `shaders/search.wgsl` on the device layer
//! ([`crate::device`]) searches every case in float32 (Lawson–Hanson, the twin of
//! [`super::search`]); the engine finishes each case in float64 from the passive set it
//! found ([`Solver::solve_hinted`](super::solver::Solver::solve_hinted)), facets and checks
//! included, so the answers are the CPU engine's. A hint the float64 solve does not confirm
//! is searched on from there ("re-solved on the host") and counted.
//!
//! Chunks stay within the device's limits (cases per dispatch, float32 numbers per binding).

use std::mem::size_of;
use std::ops::Range;
use std::time::Duration;

use super::search::{case_values, pack_range};
use super::GeneralBatch;
use crate::device::{Binding, Dispatch, GpuContext, Kernel, KernelSpec, Slots, Upload};
use crate::general::types::{GeneralHint, GeneralParams, GeneralRecord};
use crate::Error;

/// The shader source, embedded (validated by naga in `build.rs`).
pub(crate) const SEARCH_WGSL: &str = include_str!("../../shaders/search.wgsl");

/// Invocations per workgroup; must equal `WORKGROUP_SIZE` in the shader.
pub(crate) const GENERAL_WORKGROUP_SIZE: u32 = 64;

/// How the kernel maps cases to the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum GeneralMode {
    /// One invocation per case (`main`).
    #[default]
    PerInvocation,
    /// One workgroup per case (`main_workgroup`): the gradient scan shared by 64 invocations.
    /// Only the unit tests (`search_tests.rs`) choose it.
    #[cfg_attr(not(test), allow(dead_code))]
    PerWorkgroup,
}

const RECORD_BYTES: u64 = size_of::<GeneralRecord>() as u64;
const HINT_BYTES: u64 = size_of::<GeneralHint>() as u64;
/// Most cases in one chunk before the device's limits apply (2.5 MiB of hints).
const MAX_CHUNK_CASES: usize = 1 << 16;
/// Most float32 numbers in one chunk before the device's limits apply (32 MiB).
const MAX_CHUNK_VALUES: usize = 1 << 23;
/// The numbers of the largest case: one chunk must hold it.
const LARGEST_CASE_VALUES: usize = super::MAX_DIM * (super::MAX_GENERAL_GENERATORS + 1);

/// The general kernel on one device: its two entry points, the chunk limits.
pub(crate) struct GeneralKernel {
    kernel: Kernel,
    /// Which entry point runs.
    pub(crate) mode: GeneralMode,
    max_cases: usize,
    max_values: usize,
}

impl GeneralKernel {
    /// Builds the pipelines (bindings as `shaders/search.wgsl` declares them: values, records,
    /// hints, params).
    ///
    /// # Errors
    ///
    /// [`Error::Gpu`] when the shader or a pipeline fails validation; [`Error::Limits`] when
    /// the device admits no chunk of one largest case.
    pub(crate) async fn build(ctx: &GpuContext) -> Result<GeneralKernel, Error> {
        let kernel = Kernel::build(
            ctx,
            KernelSpec {
                label: "search",
                wgsl: SEARCH_WGSL,
                entry_points: &["main", "main_workgroup"],
                bindings: &[
                    Binding::Input,
                    Binding::Input,
                    Binding::Output,
                    Binding::Params,
                ],
            },
        )
        .await?;
        let limits = ctx.device.limits();
        let binding = ctx.max_storage_bytes();
        let workgroups = limits.max_compute_workgroups_per_dimension as usize;
        let max_cases = MAX_CHUNK_CASES
            .min((binding / HINT_BYTES) as usize)
            .min((binding / RECORD_BYTES) as usize)
            .min(workgroups); // the per-workgroup variant takes one workgroup per case
        let max_values = MAX_CHUNK_VALUES.min((binding / 4) as usize);
        if max_cases == 0 || max_values < LARGEST_CASE_VALUES {
            return Err(Error::Limits(format!(
                "a chunk of one general case ({LARGEST_CASE_VALUES} numbers) does not fit: storage binding {} B, {} workgroups",
                limits.max_storage_buffer_binding_size, workgroups
            )));
        }
        Ok(GeneralKernel {
            kernel,
            mode: GeneralMode::default(),
            max_cases,
            max_values,
        })
    }

    /// Most cases and float32 numbers one chunk (one dispatch) takes.
    #[cfg(test)]
    pub(crate) fn chunk_limits(&self) -> (usize, usize) {
        (self.max_cases, self.max_values)
    }

    /// Lowers the chunk limits (tests force many chunks with it); never raises them.
    #[cfg(test)]
    pub(crate) fn limit_chunks(&mut self, cases: usize, values: usize) {
        self.max_cases = self.max_cases.min(cases.max(1));
        self.max_values = self.max_values.min(values.max(LARGEST_CASE_VALUES));
    }

    /// The float32 search of every case of `batch` into `hints` (resized to the batch), in
    /// chunks on `slots`; returns the kernel time where the device has timestamp queries.
    ///
    /// # Errors
    ///
    /// Those of [`Slots::run`].
    pub(crate) async fn hints_into(
        &self,
        ctx: &GpuContext,
        slots: &mut Slots,
        batch: &GeneralBatch,
        hints: &mut Vec<GeneralHint>,
    ) -> Result<Option<Duration>, Error> {
        hints.clear();
        hints.resize(batch.len(), GeneralHint::default());
        let (mut values, mut records) = (Vec::new(), Vec::new());
        let mut start = 0;
        let prepare = |upload: &mut Upload<'_>| {
            if start == batch.len() {
                return None;
            }
            // Cases while they fit in the chunk's limits (one case always fits).
            let mut end = start;
            let mut numbers = 0;
            while end < batch.len() && end - start < self.max_cases {
                let n = case_values(&batch.get(end));
                if end > start && numbers + n > self.max_values {
                    break;
                }
                numbers += n;
                end += 1;
            }
            let items = start..end;
            start = end;
            pack_range(batch, items.clone(), &mut values, &mut records);
            let count = items.len() as u32;
            upload.write(0, bytemuck::cast_slice(&values));
            upload.write(1, bytemuck::cast_slice(&records));
            let params = GeneralParams {
                count,
                ..GeneralParams::default()
            };
            upload.write(3, bytemuck::bytes_of(&params));
            let (entry, workgroups) = match self.mode {
                GeneralMode::PerInvocation => (0, count.div_ceil(GENERAL_WORKGROUP_SIZE)),
                GeneralMode::PerWorkgroup => (1, count),
            };
            Some(Dispatch {
                output_bytes: items.len() as u64 * HINT_BYTES,
                items,
                workgroups,
                entry,
            })
        };
        let read = |items: Range<usize>, bytes: &[u8]| {
            hints[items].copy_from_slice(bytemuck::cast_slice(bytes));
        };
        slots.run(ctx, &self.kernel, prepare, read).await
    }
}
