//! The enumeration's GPU host: `shaders/cone_test.wgsl` through wgpu. Streams batches of any size through the shader: chunks under the device's limits,
//! two reused slots so that the upload and compute of one chunk overlap the readback of
//! the previous one, memory bounded by two chunks whatever the batch size.

use std::collections::VecDeque;
use std::mem::size_of;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::types::{Case, Outcome, Params};
use crate::device::GpuContext;
use crate::Error;

/// Tuning knobs; the defaults suit every adapter, tests lower them to force many chunks.
#[derive(Clone, Copy, Debug)]
pub struct GpuOptions {
    /// Most cases in one chunk (one dispatch), before the device's own limits apply.
    /// 131,072 cases are 27 MiB in and 7 MiB out: two slots stay under 100 MiB.
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

/// Buffers of one chunk in flight.
struct Slot {
    capacity: usize,
    cases: wgpu::Buffer,
    outcomes: wgpu::Buffer,
    staging: wgpu::Buffer,
    params: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// Start and end of the compute pass, where the adapter has timestamp queries.
    timer: Option<(wgpu::QuerySet, wgpu::Buffer)>,
}

/// A submitted chunk waiting for its readback.
struct InFlight {
    slot: usize,
    range: Range<usize>,
    submission: wgpu::SubmissionIndex,
    /// Bytes of the staging buffer being mapped: the outcomes, then the timestamps if any.
    mapped_bytes: u64,
    mapped: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>,
}

/// The GPU cone-test engine: device, pipeline and tables from `GpuContext`, plus two
/// reusable chunk slots.
pub struct GpuEngine {
    ctx: GpuContext,
    chunk_cases: usize,
    slots: Vec<Slot>,
    /// Kernel time of the current (or last) call, summed over its chunks.
    kernel: Option<std::time::Duration>,
    /// The general test's kernel (`crate::general::gpu`), built on first use.
    general: Option<Box<crate::general::host::GeneralKernel>>,
}

/// The shader source, embedded (validated by naga in `build.rs`).
pub const CONE_TEST_WGSL: &str = include_str!("../../shaders/cone_test.wgsl");

/// Invocations per workgroup; must equal `WORKGROUP_SIZE` in the shader.
pub const WORKGROUP_SIZE: u32 = 64;

const CASE_BYTES: u64 = size_of::<Case>() as u64;
const OUTCOME_BYTES: u64 = size_of::<Outcome>() as u64;
/// Two u64 timestamps: start and end of one chunk's compute pass.
const TIMER_BYTES: u64 = 16;

impl GpuEngine {
    /// The adapter from the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_POWER_PREF`).
    ///
    /// # Errors
    ///
    /// Those of [`GpuContext::from_env`] and [`GpuEngine::new`].
    pub fn from_env() -> Result<GpuEngine, Error> {
        GpuEngine::new(GpuContext::from_env()?, GpuOptions::default())
    }

    /// An engine on a context the caller built (tests inject their device this way).
    ///
    /// # Errors
    ///
    /// [`Error::Limits`] when the device's limits (or `options`) admit no chunk of one case.
    pub fn new(ctx: GpuContext, options: GpuOptions) -> Result<GpuEngine, Error> {
        let limits = ctx.device.limits();
        let by_binding = (limits.max_storage_buffer_binding_size / CASE_BYTES) as usize;
        let by_buffer = (limits.max_buffer_size / CASE_BYTES) as usize;
        let workgroups = limits
            .max_compute_workgroups_per_dimension
            .min(options.max_workgroups);
        let by_dispatch = workgroups as usize * WORKGROUP_SIZE as usize;
        let chunk_cases = options
            .max_chunk_cases
            .min(by_binding)
            .min(by_buffer)
            .min(by_dispatch);
        if chunk_cases == 0 {
            return Err(Error::Limits(format!(
                "a chunk of even one case does not fit: storage binding {} B, buffer {} B, {} workgroups",
                limits.max_storage_buffer_binding_size, limits.max_buffer_size, workgroups
            )));
        }
        Ok(GpuEngine {
            ctx,
            chunk_cases,
            slots: Vec::new(),
            kernel: None,
            general: None,
        })
    }

    /// The device, queue and pipeline the engine runs on.
    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// The context and the general kernel's slot, borrowed together.
    pub(crate) fn general_parts(
        &mut self,
    ) -> (
        &GpuContext,
        &mut Option<Box<crate::general::host::GeneralKernel>>,
    ) {
        (&self.ctx, &mut self.general)
    }

    /// Cases per chunk (one dispatch).
    pub fn chunk_cases(&self) -> usize {
        self.chunk_cases
    }

    /// The adapter, as [`GpuContext::describe`].
    pub fn describe(&self) -> String {
        self.ctx.describe()
    }

    /// GPU time spent in the kernel during the last [`evaluate_into`](Self::evaluate_into),
    /// from timestamp queries;
    /// `None` where the adapter has no timestamps.
    pub fn last_kernel_time(&self) -> Option<std::time::Duration> {
        self.kernel
    }

    /// Evaluates every case into `out` (same length). Allocates nothing once the slots
    /// have grown to the batch (or chunk) size.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when the lengths differ; [`Error::OutOfMemory`] when a chunk's buffers
    /// do not fit; [`Error::DeviceLost`] and [`Error::Gpu`] (validation, readback) from the
    /// device, including a failure it reported since the last call.
    pub fn evaluate_into(&mut self, cases: &[Case], out: &mut [Outcome]) -> Result<(), Error> {
        if cases.len() != out.len() {
            return Err(Error::Input(format!(
                "{} cases but {} outcome slots",
                cases.len(),
                out.len()
            )));
        }
        if cases.is_empty() {
            return Ok(());
        }
        self.ctx.take_failure()?;
        self.kernel = self.ctx.timestamps.then_some(std::time::Duration::ZERO);
        let result = self.stream(cases, out);
        if result.is_err() {
            // A failed chunk may leave a slot mapped or in use: start afresh next time.
            self.slots.clear();
        }
        result
    }

    fn stream(&mut self, cases: &[Case], out: &mut [Outcome]) -> Result<(), Error> {
        let wanted = cases.len().min(self.chunk_cases);
        if self.slots.first().is_none_or(|s| s.capacity < wanted) {
            // A power of two from 256 up, never above the chunk (which may be smaller).
            let capacity = wanted.next_power_of_two().max(256).min(self.chunk_cases);
            self.slots = vec![self.slot(capacity)?, self.slot(capacity)?];
        }
        let chunk = self.slots[0].capacity;
        let mut in_flight: VecDeque<InFlight> = VecDeque::with_capacity(2);
        for (n, start) in (0..cases.len()).step_by(chunk).enumerate() {
            let range = start..(start + chunk).min(cases.len());
            let flight = self.submit(n % 2, &cases[range.clone()], range);
            in_flight.push_back(flight);
            // The GPU computes this chunk while the previous one is read back.
            if in_flight.len() == 2 {
                let done = in_flight.pop_front().expect("two in flight");
                self.finish(done, out)?;
            }
        }
        while let Some(done) = in_flight.pop_front() {
            self.finish(done, out)?;
        }
        Ok(())
    }

    fn slot(&self, capacity: usize) -> Result<Slot, Error> {
        let device = &self.ctx.device;
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
        let n = capacity as u64;
        let cases = buffer("cases", n * CASE_BYTES, U::STORAGE | U::COPY_DST);
        let outcomes = buffer("outcomes", n * OUTCOME_BYTES, U::STORAGE | U::COPY_SRC);
        let staging = buffer(
            "staging",
            n * OUTCOME_BYTES + TIMER_BYTES,
            U::MAP_READ | U::COPY_DST,
        );
        let timer = self.ctx.timestamps.then(|| {
            let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("kernel time"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            (
                queries,
                buffer("kernel time", TIMER_BYTES, U::QUERY_RESOLVE | U::COPY_SRC),
            )
        });
        let params = buffer(
            "params",
            size_of::<Params>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::OutOfMemory(format!(
                "{capacity} cases per chunk: {e}"
            )));
        }
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cone_test"),
            layout: &self.ctx.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: cases.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: outcomes.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: self.ctx.subsets.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: self.ctx.candidates.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: params.as_entire_binding(),
                },
            ],
        });
        Ok(Slot {
            capacity,
            cases,
            outcomes,
            staging,
            params,
            bind_group,
            timer,
        })
    }

    /// Uploads one chunk, dispatches it, copies its outcomes to the slot's staging buffer
    /// and asks for that buffer to be mapped.
    fn submit(&self, slot: usize, cases: &[Case], range: Range<usize>) -> InFlight {
        let s = &self.slots[slot];
        let (device, queue) = (&self.ctx.device, &self.ctx.queue);
        let count = cases.len() as u32;
        queue.write_buffer(&s.cases, 0, bytemuck::cast_slice(cases));
        let params = Params {
            count,
            ..Params::default()
        };
        queue.write_buffer(&s.params, 0, bytemuck::bytes_of(&params));
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("chunk"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("cone_test"),
                timestamp_writes: s.timer.as_ref().map(|(queries, _)| {
                    wgpu::ComputePassTimestampWrites {
                        query_set: queries,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }
                }),
            });
            pass.set_pipeline(&self.ctx.pipeline);
            pass.set_bind_group(0, &s.bind_group, &[]);
            pass.dispatch_workgroups(count.div_ceil(WORKGROUP_SIZE), 1, 1);
        }
        let bytes = count as u64 * OUTCOME_BYTES;
        encoder.copy_buffer_to_buffer(&s.outcomes, 0, &s.staging, 0, bytes);
        let mut mapped_bytes = bytes;
        if let Some((queries, resolved)) = &s.timer {
            encoder.resolve_query_set(queries, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, &s.staging, bytes, TIMER_BYTES);
            mapped_bytes += TIMER_BYTES;
        }
        let submission = queue.submit([encoder.finish()]);
        let mapped: Arc<Mutex<Option<_>>> = Arc::default();
        let done = mapped.clone();
        s.staging
            .slice(..mapped_bytes)
            .map_async(wgpu::MapMode::Read, move |r| {
                *done.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        InFlight {
            slot,
            range,
            submission,
            mapped_bytes,
            mapped,
        }
    }

    /// Waits for a chunk, copies its outcomes out and unmaps its staging buffer.
    fn finish(&mut self, flight: InFlight, out: &mut [Outcome]) -> Result<(), Error> {
        let s = &self.slots[flight.slot];
        let poll = self.ctx.device.poll(wgpu::PollType::Wait {
            submission_index: Some(flight.submission),
            timeout: None,
        });
        self.ctx.take_failure()?;
        poll.map_err(|e| Error::DeviceLost(format!("waiting for a chunk: {e}")))?;
        let mapped = flight
            .mapped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match mapped {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(Error::Gpu(format!("reading back a chunk: {e}"))),
            None => return Err(Error::Gpu("a chunk's readback never completed".into())),
        }
        let bytes = flight.range.len() as u64 * OUTCOME_BYTES;
        {
            let view = s
                .staging
                .slice(..flight.mapped_bytes)
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("mapping a chunk: {e}")))?;
            out[flight.range].copy_from_slice(bytemuck::cast_slice(&view[..bytes as usize]));
            if s.timer.is_some() {
                let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&view[bytes as usize..]);
                let period = self.ctx.queue.get_timestamp_period() as f64;
                let ns = ticks[1].saturating_sub(ticks[0]) as f64 * period;
                if let Some(total) = &mut self.kernel {
                    *total += std::time::Duration::from_nanos(ns as u64);
                }
            }
        }
        s.staging.unmap();
        Ok(())
    }
}
