//! The enumeration's GPU host: `shaders/cone_test.wgsl` on the device layer
//! ([`crate::device`]): its pipeline and the two tables, the Pod sizes, and the chunks of a
//! batch (under the device's limits, memory bounded by two chunks whatever the batch size).

use std::mem::size_of;
use std::time::Duration;

use super::tables::{candidates, witness_subsets};
use super::types::{Case, Outcome, Params};
use crate::device::{Binding, Dispatch, GpuContext, Kernel, KernelSpec, Slots};
use crate::Error;

/// The shader source, embedded (validated by naga in `build.rs`).
pub(crate) const CONE_TEST_WGSL: &str = include_str!("../../shaders/cone_test.wgsl");

/// Invocations per workgroup; must equal `WORKGROUP_SIZE` in the shader.
pub(crate) const WORKGROUP_SIZE: u32 = 64;

const CASE_BYTES: u64 = size_of::<Case>() as u64;
const OUTCOME_BYTES: u64 = size_of::<Outcome>() as u64;

/// Tuning knobs; the defaults suit every adapter, tests lower them to force many chunks.
#[derive(Clone, Copy, Debug)]
pub struct GpuOptions {
    /// Most cases in one chunk (one dispatch), before the device's own limits apply.
    /// 131,072 cases are 27 MiB in and 8.5 MiB out: two slots stay under 100 MiB.
    pub max_chunk_cases: usize,
    /// Most workgroups in one dispatch, before the device's own limit applies.
    pub max_workgroups: u32,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            max_chunk_cases: 1 << 17,
            max_workgroups: u32::MAX,
        }
    }
}

/// Cases per chunk on a device with `limits`: `options`, lowered to one binding's worth of
/// cases and one dispatch's worth of workgroups.
///
/// # Errors
///
/// [`Error::Limits`] when not even one case fits.
pub(crate) fn chunk_cases(limits: &wgpu::Limits, options: GpuOptions) -> Result<usize, Error> {
    let by_binding = (limits.max_storage_buffer_binding_size / CASE_BYTES) as usize;
    let by_buffer = (limits.max_buffer_size / CASE_BYTES) as usize;
    let workgroups = limits
        .max_compute_workgroups_per_dimension
        .min(options.max_workgroups);
    let by_dispatch = workgroups as usize * WORKGROUP_SIZE as usize;
    let chunk = options
        .max_chunk_cases
        .min(by_binding)
        .min(by_buffer)
        .min(by_dispatch);
    if chunk == 0 {
        return Err(Error::Limits(format!(
            "a chunk of even one case does not fit: storage binding {} B, buffer {} B, {} workgroups",
            limits.max_storage_buffer_binding_size, limits.max_buffer_size, workgroups
        )));
    }
    Ok(chunk)
}

/// The cone test's kernel on one device: the pipeline, the two tables, the chunk size.
pub(crate) struct PlanarKernel {
    kernel: Kernel,
    chunk_cases: usize,
}

impl PlanarKernel {
    /// Builds the pipeline and uploads the tables (bindings as `shaders/cone_test.wgsl`
    /// declares them: cases, outcomes, subsets, candidates, params).
    ///
    /// # Errors
    ///
    /// [`Error::Limits`] when the device (or `options`) admits no chunk of one case;
    /// [`Error::Gpu`] when the shader or pipeline fails validation.
    pub(crate) async fn build(
        ctx: &GpuContext,
        options: GpuOptions,
    ) -> Result<PlanarKernel, Error> {
        let chunk_cases = chunk_cases(&ctx.device.limits(), options)?;
        let kernel = Kernel::build(
            ctx,
            KernelSpec {
                label: "cone_test",
                wgsl: CONE_TEST_WGSL,
                entry_points: &["main"],
                bindings: &[
                    Binding::Input,
                    Binding::Output,
                    Binding::Table(bytemuck::cast_slice(witness_subsets())),
                    Binding::Table(bytemuck::cast_slice(candidates())),
                    Binding::Params,
                ],
            },
        )
        .await?;
        Ok(PlanarKernel {
            kernel,
            chunk_cases,
        })
    }

    /// Evaluates every case into `out` (same length), in chunks on `slots`; returns the
    /// kernel time where the device has timestamp queries.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when the lengths differ; those of [`Slots::run`].
    pub(crate) async fn evaluate_into(
        &self,
        ctx: &GpuContext,
        slots: &mut Slots,
        cases: &[Case],
        out: &mut [Outcome],
    ) -> Result<Option<Duration>, Error> {
        if cases.len() != out.len() {
            return Err(Error::Input(format!(
                "{} cases but {} outcome slots",
                cases.len(),
                out.len()
            )));
        }
        let mut start = 0;
        let prepare = |upload: &mut crate::device::Upload<'_>| {
            if start == cases.len() {
                return None;
            }
            let items = start..(start + self.chunk_cases).min(cases.len());
            start = items.end;
            let count = items.len() as u32;
            upload.write(0, bytemuck::cast_slice(&cases[items.clone()]));
            let params = Params {
                count,
                ..Params::default()
            };
            upload.write(4, bytemuck::bytes_of(&params));
            Some(Dispatch {
                output_bytes: items.len() as u64 * OUTCOME_BYTES,
                items,
                workgroups: count.div_ceil(WORKGROUP_SIZE),
                entry: 0,
            })
        };
        let read = |items: std::ops::Range<usize>, bytes: &[u8]| {
            out[items].copy_from_slice(bytemuck::cast_slice(bytes));
        };
        slots.run(ctx, &self.kernel, prepare, read).await
    }
}
