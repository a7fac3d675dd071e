//! The general test's GPU host side: `shaders/search.wgsl` searches every case in float32
//! (Lawson–Hanson, the twin of [`super::search`]); the host finishes each case in float64
//! from the passive set it found ([`Solver::solve_hinted`], on all cores), facets and
//! checks included, so the answers are the CPU engine's. A hint the float64 solve does not
//! confirm is searched on from there ("re-solved on the host") and counted.
//!
//! The pipeline is built on first use, so the planar path never pays for it. Chunks stay
//! within the device's limits (cases per dispatch, numbers per binding); the buffers grow to
//! the largest chunk seen and are reused.

use std::mem::size_of;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rayon::prelude::*;

use super::search::{case_values, pack_range};
use super::solver::Solver;
use super::{GeneralBatch, GeneralOutcome};
use crate::device::GpuContext;
use crate::general::types::{GeneralHint, GeneralParams, GeneralRecord};
use crate::planar::host::GpuEngine;
use crate::Error;

/// The shader source, embedded (validated by naga in `build.rs`).
pub const SEARCH_WGSL: &str = include_str!("../../shaders/search.wgsl");

/// Invocations per workgroup; must equal `WORKGROUP_SIZE` in the shader.
pub const GENERAL_WORKGROUP_SIZE: u32 = 64;

/// How many general cases a call answered, and how many of them the host had to search on
/// in float64 because the GPU's float32 passive set was not the final one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GeneralStats {
    /// Cases answered.
    pub cases: usize,
    /// Cases whose GPU hint the float64 solve did not confirm (0 on the CPU backend).
    pub resolved: usize,
}

impl std::ops::AddAssign for GeneralStats {
    fn add_assign(&mut self, other: GeneralStats) {
        self.cases += other.cases;
        self.resolved += other.resolved;
    }
}

/// How the kernel maps cases to the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GeneralMode {
    /// One invocation per case (`main`).
    #[default]
    PerInvocation,
    /// One workgroup per case (`main_workgroup`): the gradient scan shared by 64 invocations.
    PerWorkgroup,
}

const RECORD_BYTES: u64 = size_of::<GeneralRecord>() as u64;
const HINT_BYTES: u64 = size_of::<GeneralHint>() as u64;
const TIMER_BYTES: u64 = 16;
/// Most cases in one chunk before the device's limits apply (2.5 MiB of hints).
const MAX_CHUNK_CASES: usize = 1 << 16;
/// Most float32 numbers in one chunk before the device's limits apply (32 MiB).
const MAX_CHUNK_VALUES: usize = 1 << 23;

/// Buffers sized for `cases` cases and `values` numbers.
struct Buffers {
    cases: usize,
    values: usize,
    value_buf: wgpu::Buffer,
    record_buf: wgpu::Buffer,
    hint_buf: wgpu::Buffer,
    staging: wgpu::Buffer,
    params: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    timer: Option<(wgpu::QuerySet, wgpu::Buffer)>,
}

/// The general kernel on one device: its pipelines, the chunk limits, reused buffers.
pub struct GeneralKernel {
    layout: wgpu::BindGroupLayout,
    per_invocation: wgpu::ComputePipeline,
    per_workgroup: wgpu::ComputePipeline,
    /// Which entry point runs.
    pub mode: GeneralMode,
    max_cases: usize,
    max_values: usize,
    buffers: Option<Buffers>,
    values: Vec<f32>,
    records: Vec<GeneralRecord>,
    /// Kernel time of the last call (timestamp queries), if the adapter has them.
    kernel: Option<Duration>,
}

impl GeneralKernel {
    /// Builds the pipelines on `ctx`'s device.
    ///
    /// # Errors
    ///
    /// [`Error::Gpu`] when the shader or a pipeline fails validation; [`Error::Limits`] when
    /// the device admits no chunk of one largest case.
    pub fn new(ctx: &GpuContext) -> Result<GeneralKernel, Error> {
        let device = &ctx.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("search.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SEARCH_WGSL.into()),
        });
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        use wgpu::BufferBindingType as B;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("general"),
            entries: &[
                entry(0, B::Storage { read_only: true }),
                entry(1, B::Storage { read_only: true }),
                entry(2, B::Storage { read_only: false }),
                entry(3, B::Uniform),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("general"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |entry_point| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let per_invocation = pipeline("main");
        let per_workgroup = pipeline("main_workgroup");
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("general pipeline creation failed: {e}")));
        }
        let limits = device.limits();
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let workgroups = limits.max_compute_workgroups_per_dimension as usize;
        let max_cases = MAX_CHUNK_CASES
            .min((binding / HINT_BYTES) as usize)
            .min((binding / RECORD_BYTES) as usize)
            .min(workgroups); // the per-workgroup variant takes one workgroup per case
        let max_values = MAX_CHUNK_VALUES.min((binding / 4) as usize);
        let largest = super::MAX_DIM * (super::MAX_GENERAL_GENERATORS + 1);
        if max_cases == 0 || max_values < largest {
            return Err(Error::Limits(format!(
                "a chunk of one general case ({largest} numbers) does not fit: storage binding {} B, {} workgroups",
                limits.max_storage_buffer_binding_size, workgroups
            )));
        }
        Ok(GeneralKernel {
            layout,
            per_invocation,
            per_workgroup,
            mode: GeneralMode::default(),
            max_cases,
            max_values,
            buffers: None,
            values: Vec::new(),
            records: Vec::new(),
            kernel: None,
        })
    }

    /// Most cases and float32 numbers one chunk (one dispatch) takes.
    pub fn chunk_limits(&self) -> (usize, usize) {
        (self.max_cases, self.max_values)
    }

    /// Lowers the chunk limits (tests force many chunks with it); never raises them.
    pub fn limit_chunks(&mut self, cases: usize, values: usize) {
        self.max_cases = self.max_cases.min(cases.max(1));
        self.max_values = self
            .max_values
            .min(values.max(super::MAX_DIM * (super::MAX_GENERAL_GENERATORS + 1)));
    }

    /// GPU time of the last [`hints_into`](Self::hints_into), summed over its chunks, from
    /// timestamp queries; `None` where the adapter has none.
    pub fn last_kernel_time(&self) -> Option<Duration> {
        self.kernel
    }

    /// The float32 search of every case of `batch` into `hints` (resized to the batch).
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when a chunk's buffers do not fit; [`Error::DeviceLost`] and
    /// [`Error::Gpu`] from the device.
    pub fn hints_into(
        &mut self,
        ctx: &GpuContext,
        batch: &GeneralBatch,
        hints: &mut Vec<GeneralHint>,
    ) -> Result<(), Error> {
        hints.clear();
        hints.resize(batch.len(), GeneralHint::default());
        if batch.is_empty() {
            return Ok(());
        }
        ctx.take_failure()?;
        self.kernel = ctx.timestamps.then_some(Duration::ZERO);
        let mut start = 0;
        while start < batch.len() {
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
            let result = self.chunk(ctx, batch, start..end, &mut hints[start..end]);
            if result.is_err() {
                self.buffers = None; // a failed chunk may leave the staging buffer mapped
                return result;
            }
            start = end;
        }
        Ok(())
    }

    fn chunk(
        &mut self,
        ctx: &GpuContext,
        batch: &GeneralBatch,
        range: Range<usize>,
        out: &mut [GeneralHint],
    ) -> Result<(), Error> {
        pack_range(batch, range, &mut self.values, &mut self.records);
        let count = self.records.len();
        let numbers = self.values.len().max(1);
        if self
            .buffers
            .as_ref()
            .is_none_or(|b| b.cases < count || b.values < numbers)
        {
            let (cases, values) = match &self.buffers {
                Some(b) => (b.cases.max(count), b.values.max(numbers)),
                None => (count, numbers),
            };
            let cases = cases.next_power_of_two().max(256).min(self.max_cases);
            let values = values.next_power_of_two().max(1 << 14).min(self.max_values);
            self.buffers = None;
            self.buffers = Some(self.buffers(ctx, cases.max(count), values.max(numbers))?);
        }
        let b = self.buffers.as_ref().expect("buffers made above");
        let (device, queue) = (&ctx.device, &ctx.queue);
        queue.write_buffer(&b.value_buf, 0, bytemuck::cast_slice(&self.values));
        queue.write_buffer(&b.record_buf, 0, bytemuck::cast_slice(&self.records));
        let params = GeneralParams {
            count: count as u32,
            ..GeneralParams::default()
        };
        queue.write_buffer(&b.params, 0, bytemuck::bytes_of(&params));
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("general chunk"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("general"),
                timestamp_writes: b.timer.as_ref().map(|(queries, _)| {
                    wgpu::ComputePassTimestampWrites {
                        query_set: queries,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }
                }),
            });
            let (pipeline, groups) = match self.mode {
                GeneralMode::PerInvocation => (
                    &self.per_invocation,
                    (count as u32).div_ceil(GENERAL_WORKGROUP_SIZE),
                ),
                GeneralMode::PerWorkgroup => (&self.per_workgroup, count as u32),
            };
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &b.bind_group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        let bytes = count as u64 * HINT_BYTES;
        encoder.copy_buffer_to_buffer(&b.hint_buf, 0, &b.staging, 0, bytes);
        let mut mapped_bytes = bytes;
        if let Some((queries, resolved)) = &b.timer {
            encoder.resolve_query_set(queries, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, &b.staging, bytes, TIMER_BYTES);
            mapped_bytes += TIMER_BYTES;
        }
        let submission = queue.submit([encoder.finish()]);
        let mapped: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>> = Arc::default();
        let done = mapped.clone();
        b.staging
            .slice(..mapped_bytes)
            .map_async(wgpu::MapMode::Read, move |r| {
                *done.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        let poll = device.poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: None,
        });
        ctx.take_failure()?;
        poll.map_err(|e| Error::DeviceLost(format!("waiting for a general chunk: {e}")))?;
        match mapped.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(Error::Gpu(format!("reading back a general chunk: {e}"))),
            None => {
                return Err(Error::Gpu(
                    "a general chunk's readback never completed".into(),
                ))
            }
        }
        {
            let view = b
                .staging
                .slice(..mapped_bytes)
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("mapping a general chunk: {e}")))?;
            out.copy_from_slice(bytemuck::cast_slice(&view[..bytes as usize]));
            if b.timer.is_some() {
                let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&view[bytes as usize..]);
                let ns = ticks[1].saturating_sub(ticks[0]) as f64
                    * ctx.queue.get_timestamp_period() as f64;
                if let Some(total) = &mut self.kernel {
                    *total += Duration::from_nanos(ns as u64);
                }
            }
        }
        b.staging.unmap();
        Ok(())
    }

    fn buffers(&self, ctx: &GpuContext, cases: usize, values: usize) -> Result<Buffers, Error> {
        let device = &ctx.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let n = cases as u64;
        let value_buf = buffer(
            "general values",
            values as u64 * 4,
            U::STORAGE | U::COPY_DST,
        );
        let record_buf = buffer(
            "general records",
            n * RECORD_BYTES,
            U::STORAGE | U::COPY_DST,
        );
        let hint_buf = buffer("general hints", n * HINT_BYTES, U::STORAGE | U::COPY_SRC);
        let staging = buffer(
            "general staging",
            n * HINT_BYTES + TIMER_BYTES,
            U::MAP_READ | U::COPY_DST,
        );
        let params = buffer(
            "general params",
            size_of::<GeneralParams>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let timer = ctx.timestamps.then(|| {
            let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("general kernel time"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            (
                queries,
                buffer(
                    "general kernel time",
                    TIMER_BYTES,
                    U::QUERY_RESOLVE | U::COPY_SRC,
                ),
            )
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::OutOfMemory(format!(
                "{cases} general cases, {values} numbers per chunk: {e}"
            )));
        }
        fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("general"),
            layout: &self.layout,
            entries: &[
                entry(0, &value_buf),
                entry(1, &record_buf),
                entry(2, &hint_buf),
                entry(3, &params),
            ],
        });
        Ok(Buffers {
            cases,
            values,
            value_buf,
            record_buf,
            hint_buf,
            staging,
            params,
            bind_group,
            timer,
        })
    }
}

/// The hint's passive set.
fn passive(h: &GeneralHint) -> &[u32] {
    &h.index[..(h.len as usize).min(h.index.len())]
}

/// Finishes every case of `batch` in float64 from its GPU hint, on all cores, with the
/// inside margin or without ([`Solver::with_inside_margin`]).
///
/// # Panics
///
/// When `hints` or `out` do not hold one entry per case (the engine sizes them).
pub fn finish_into(
    batch: &GeneralBatch,
    hints: &[GeneralHint],
    out: &mut [GeneralOutcome],
    inside_margin: bool,
) -> GeneralStats {
    assert!(hints.len() == batch.len() && out.len() == batch.len());
    let resolved = out
        .par_iter_mut()
        .enumerate()
        .with_min_len(16)
        .map_init(
            || Solver::with_inside_margin(inside_margin),
            |solver, (i, o)| {
                let (outcome, confirmed) = solver.solve_hinted(&batch.get(i), passive(&hints[i]));
                *o = outcome;
                usize::from(!confirmed)
            },
        )
        .sum();
    GeneralStats {
        cases: batch.len(),
        resolved,
    }
}

/// [`finish_into`] on this thread alone (workers that are the parallelism themselves).
pub fn finish_serial(
    batch: &GeneralBatch,
    hints: &[GeneralHint],
    out: &mut [GeneralOutcome],
) -> GeneralStats {
    assert!(hints.len() == batch.len() && out.len() == batch.len());
    let mut solver = Solver::new();
    let mut resolved = 0;
    for (i, o) in out.iter_mut().enumerate() {
        let (outcome, confirmed) = solver.solve_hinted(&batch.get(i), passive(&hints[i]));
        *o = outcome;
        resolved += usize::from(!confirmed);
    }
    GeneralStats {
        cases: batch.len(),
        resolved,
    }
}

impl GpuEngine {
    /// The general kernel, built on first use.
    ///
    /// # Errors
    ///
    /// Those of [`GeneralKernel::new`].
    pub fn general_kernel(&mut self) -> Result<&mut GeneralKernel, Error> {
        let (ctx, slot) = self.general_parts();
        if slot.is_none() {
            *slot = Some(Box::new(GeneralKernel::new(ctx)?));
        }
        Ok(slot.as_mut().expect("built above"))
    }

    /// The GPU's float32 search of every case of `batch` into `hints`.
    ///
    /// # Errors
    ///
    /// Those of [`GeneralKernel::new`] and [`GeneralKernel::hints_into`].
    pub fn general_hints_into(
        &mut self,
        batch: &GeneralBatch,
        hints: &mut Vec<GeneralHint>,
    ) -> Result<(), Error> {
        self.general_kernel()?;
        let (ctx, slot) = self.general_parts();
        slot.as_mut()
            .expect("built above")
            .hints_into(ctx, batch, hints)
    }

    /// The general test of every case of `batch` into `out` (same length): the float32
    /// search on the GPU, then every case finished and checked in float64 on all cores.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when the lengths differ; those of [`GpuEngine::general_hints_into`].
    pub fn evaluate_general_into(
        &mut self,
        batch: &GeneralBatch,
        out: &mut [GeneralOutcome],
    ) -> Result<GeneralStats, Error> {
        self.evaluate_general_with(batch, out, true)
    }

    /// [`GpuEngine::evaluate_general_into`], with the inside margin or without
    /// ([`Solver::with_inside_margin`]).
    ///
    /// # Errors
    ///
    /// As [`GpuEngine::evaluate_general_into`].
    pub fn evaluate_general_with(
        &mut self,
        batch: &GeneralBatch,
        out: &mut [GeneralOutcome],
        inside_margin: bool,
    ) -> Result<GeneralStats, Error> {
        if batch.len() != out.len() {
            return Err(Error::Input(format!(
                "{} general cases but {} outcome slots",
                batch.len(),
                out.len()
            )));
        }
        let mut hints = Vec::new();
        self.general_hints_into(batch, &mut hints)?;
        Ok(finish_into(batch, &hints, out, inside_margin))
    }
}
