//! One chunked dispatch and readback for any kernel: the host prepares each chunk (writes its
//! inputs, says how many workgroups and how many bytes come back), and the GPU computes
//! chunk n while chunk n − 1 is read back, in two slots of buffers that grow to the largest
//! chunk seen and are reused by every later call.

use std::collections::VecDeque;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::context::error_of;
use super::kernel::{Kernel, Role};
use super::GpuContext;
use crate::Error;

/// Two u64 timestamps: start and end of one chunk's compute pass.
const TIMER_BYTES: u64 = 16;
/// Smallest storage buffer a slot makes, so that small batches do not regrow it every call.
const MIN_STORAGE_BYTES: u64 = 1 << 16;

/// One chunk, as the host's `prepare` describes it once its inputs are written.
#[derive(Clone, Debug)]
pub(crate) struct Dispatch {
    /// The items (cases) of the batch the chunk holds: handed back with its output.
    pub items: Range<usize>,
    /// Bytes of output to read back (a multiple of 4, not zero).
    pub output_bytes: u64,
    /// Workgroups to dispatch (one dimension).
    pub workgroups: u32,
    /// Which of the kernel's entry points runs.
    pub entry: usize,
}

/// A buffer of a slot and its size.
struct Sized {
    buffer: wgpu::Buffer,
    bytes: u64,
}

/// The buffers of one chunk in flight.
#[derive(Default)]
struct Slot {
    /// One per binding: `None` for a table, or while not yet made.
    buffers: Vec<Option<Sized>>,
    /// The output copied here to be mapped, then the chunk's timestamps.
    staging: Option<Sized>,
    /// Start and end of the compute pass, where the device has timestamp queries.
    timer: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    /// `None` after any of the buffers changed.
    bind_group: Option<wgpu::BindGroup>,
}

/// The reused buffers of one caller: two slots, made for one kernel (a kernel other than
/// the last one's starts them afresh). Each caller that may overlap another (the page's
/// calls) has its own.
#[derive(Default)]
pub(crate) struct Slots {
    kernel: Option<u64>,
    slots: Vec<Slot>,
}

/// The inputs of the chunk being prepared.
pub(crate) struct Upload<'a> {
    ctx: &'a GpuContext,
    kernel: &'a Kernel,
    slot: &'a mut Slot,
}

impl Upload<'_> {
    /// Writes `bytes` (a multiple of 4) to the chunk's buffer of `binding` (an input or the
    /// params), growing the buffer first where it is too small.
    pub(crate) fn write(&mut self, binding: usize, bytes: &[u8]) {
        let usage = match self.kernel.roles[binding] {
            Role::Input => wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            Role::Params => wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            Role::Output | Role::Table(_) => {
                panic!(
                    "{}: binding {binding} is not written by the host",
                    self.kernel.label
                )
            }
        };
        let buffer = grow(
            self.ctx,
            self.kernel,
            self.slot,
            binding,
            bytes.len() as u64,
            usage,
        );
        if !bytes.is_empty() {
            self.ctx.queue.write_buffer(buffer, 0, bytes);
        }
    }
}

/// The slot's buffer of `binding`, grown to hold `bytes`: rounded up a little, from a floor
/// up, within the device's limits (never below `bytes`, which the host keeps within them).
fn grow<'s>(
    ctx: &GpuContext,
    kernel: &Kernel,
    slot: &'s mut Slot,
    binding: usize,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> &'s wgpu::Buffer {
    if slot.buffers.len() <= binding {
        slot.buffers.resize_with(binding + 1, || None);
    }
    let entry = &mut slot.buffers[binding];
    if entry.as_ref().is_none_or(|b| b.bytes < bytes) {
        let limits = ctx.device.limits();
        let (floor, limit) = if usage.contains(wgpu::BufferUsages::UNIFORM) {
            (16, limits.max_uniform_buffer_binding_size)
        } else {
            (MIN_STORAGE_BYTES, ctx.max_storage_bytes())
        };
        // Up to the next eighth of a power of two: few regrowths, at most 1/8 unused.
        let step = (bytes.next_power_of_two() / 8).max(4);
        let size = bytes
            .div_ceil(step)
            .saturating_mul(step)
            .max(floor)
            .min(limit)
            .max(bytes)
            .max(4);
        *entry = Some(Sized {
            buffer: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&kernel.label),
                size,
                usage,
                mapped_at_creation: false,
            }),
            bytes: size,
        });
        slot.bind_group = None;
    }
    &entry.as_ref().expect("made above").buffer
}

/// A submitted chunk waiting for its readback.
struct InFlight {
    slot: usize,
    items: Range<usize>,
    output_bytes: u64,
    /// Output plus timestamps, if any: the part of the staging buffer being mapped.
    mapped_bytes: u64,
    submission: wgpu::SubmissionIndex,
    mapping: Mapping,
    /// The chunk's allocation and validation errors, popped at submission.
    out_of_memory: Pin<Box<dyn Future<Output = Option<wgpu::Error>>>>,
    validation: Pin<Box<dyn Future<Output = Option<wgpu::Error>>>>,
}

impl Slots {
    /// Runs `kernel` over a batch in chunks: `prepare` writes the next chunk's inputs into the
    /// [`Upload`] and describes it (or says `None`: no chunk left); `read` gets each chunk's
    /// items and output bytes, in order. Returns the kernel time summed over the chunks where
    /// the device has timestamp queries.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when a chunk's buffers do not fit; [`Error::DeviceLost`] and
    /// [`Error::Gpu`] (validation, readback) from the device, including a failure it reported
    /// since the last call. The slots then start afresh.
    pub(crate) async fn run(
        &mut self,
        ctx: &GpuContext,
        kernel: &Kernel,
        prepare: impl FnMut(&mut Upload<'_>) -> Option<Dispatch>,
        read: impl FnMut(Range<usize>, &[u8]),
    ) -> Result<Option<Duration>, Error> {
        ctx.take_failure()?;
        if self.kernel != Some(kernel.id) {
            self.slots.clear();
            self.kernel = Some(kernel.id);
        }
        if self.slots.len() < 2 {
            self.slots.resize_with(2, Slot::default);
        }
        let result = self.stream(ctx, kernel, prepare, read).await;
        if result.is_err() {
            // A failed chunk may leave a slot mapped or in use: start afresh next time.
            self.slots.clear();
        }
        result
    }

    async fn stream(
        &mut self,
        ctx: &GpuContext,
        kernel: &Kernel,
        mut prepare: impl FnMut(&mut Upload<'_>) -> Option<Dispatch>,
        mut read: impl FnMut(Range<usize>, &[u8]),
    ) -> Result<Option<Duration>, Error> {
        let mut kernel_time = ctx.timestamps.then_some(Duration::ZERO);
        let mut in_flight: VecDeque<InFlight> = VecDeque::with_capacity(2);
        for n in 0.. {
            let Some(flight) = self.submit(ctx, kernel, n % 2, &mut prepare) else {
                break;
            };
            in_flight.push_back(flight);
            // The GPU computes this chunk while the previous one is read back.
            if in_flight.len() == 2 {
                let done = in_flight.pop_front().expect("two in flight");
                self.finish(ctx, kernel, done, &mut read, &mut kernel_time)
                    .await?;
            }
        }
        while let Some(done) = in_flight.pop_front() {
            self.finish(ctx, kernel, done, &mut read, &mut kernel_time)
                .await?;
        }
        Ok(kernel_time)
    }

    /// Prepares the next chunk in slot `index` (whose previous chunk is finished), dispatches
    /// it, copies its output to the staging buffer and asks for that to be mapped.
    fn submit(
        &mut self,
        ctx: &GpuContext,
        kernel: &Kernel,
        index: usize,
        prepare: &mut impl FnMut(&mut Upload<'_>) -> Option<Dispatch>,
    ) -> Option<InFlight> {
        let device = &ctx.device;
        let slot = &mut self.slots[index];
        // Both scopes open and close without an await between (see `Kernel::build`).
        let out_of_memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let Some(dispatch) = prepare(&mut Upload { ctx, kernel, slot }) else {
            drop(validation);
            drop(out_of_memory);
            return None;
        };
        let output_bytes = dispatch.output_bytes;
        assert!(
            output_bytes > 0 && output_bytes % 4 == 0 && !dispatch.items.is_empty(),
            "{}: a chunk of {:?} items, {output_bytes} bytes out",
            kernel.label,
            dispatch.items
        );
        self.make_buffers(ctx, kernel, index, output_bytes);
        let slot = &self.slots[index];
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(&kernel.label),
        });
        let output = &slot.buffers[kernel.output].as_ref().expect("made").buffer;
        let staging = &slot.staging.as_ref().expect("made").buffer;
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&kernel.label),
                timestamp_writes: slot.timer.as_ref().map(|(queries, _)| {
                    wgpu::ComputePassTimestampWrites {
                        query_set: queries,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }
                }),
            });
            pass.set_pipeline(&kernel.pipelines[dispatch.entry]);
            pass.set_bind_group(0, slot.bind_group.as_ref(), &[]);
            pass.dispatch_workgroups(dispatch.workgroups, 1, 1);
        }
        encoder.copy_buffer_to_buffer(output, 0, staging, 0, output_bytes);
        let mut mapped_bytes = output_bytes;
        if let Some((queries, resolved)) = &slot.timer {
            encoder.resolve_query_set(queries, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, staging, output_bytes, TIMER_BYTES);
            mapped_bytes += TIMER_BYTES;
        }
        let submission = ctx.queue.submit([encoder.finish()]);
        let mapping = Mapping::start(staging, mapped_bytes);
        let validation = Box::pin(validation.pop());
        let out_of_memory = Box::pin(out_of_memory.pop());
        Some(InFlight {
            slot: index,
            items: dispatch.items,
            output_bytes,
            mapped_bytes,
            submission,
            mapping,
            out_of_memory,
            validation,
        })
    }

    /// The slot's parameters and inputs the host did not write (made empty), its output and
    /// staging buffers grown to `output_bytes`, its timer, and its bind group.
    fn make_buffers(&mut self, ctx: &GpuContext, kernel: &Kernel, index: usize, output_bytes: u64) {
        use wgpu::BufferUsages as U;
        let slot = &mut self.slots[index];
        for (binding, role) in kernel.roles.iter().enumerate() {
            let (bytes, usage) = match role {
                Role::Input => (0, U::STORAGE | U::COPY_DST),
                Role::Params => (0, U::UNIFORM | U::COPY_DST),
                Role::Output => (output_bytes, U::STORAGE | U::COPY_SRC),
                Role::Table(_) => continue,
            };
            grow(ctx, kernel, slot, binding, bytes, usage);
        }
        let wanted = output_bytes + TIMER_BYTES;
        if slot.staging.as_ref().is_none_or(|s| s.bytes < wanted) {
            let bytes = slot.buffers[kernel.output].as_ref().expect("made").bytes + TIMER_BYTES;
            slot.staging = Some(Sized {
                buffer: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&kernel.label),
                    size: bytes,
                    usage: U::MAP_READ | U::COPY_DST,
                    mapped_at_creation: false,
                }),
                bytes,
            });
        }
        if ctx.timestamps && slot.timer.is_none() {
            let queries = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some(&kernel.label),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolved = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&kernel.label),
                size: TIMER_BYTES,
                usage: U::QUERY_RESOLVE | U::COPY_SRC,
                mapped_at_creation: false,
            });
            slot.timer = Some((queries, resolved));
        }
        if slot.bind_group.is_none() {
            let entries: Vec<wgpu::BindGroupEntry> = kernel
                .roles
                .iter()
                .enumerate()
                .map(|(binding, role)| wgpu::BindGroupEntry {
                    binding: binding as u32,
                    resource: match role {
                        Role::Table(buffer) => buffer.as_entire_binding(),
                        _ => slot.buffers[binding]
                            .as_ref()
                            .expect("made above")
                            .buffer
                            .as_entire_binding(),
                    },
                })
                .collect();
            slot.bind_group = Some(ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&kernel.label),
                layout: &kernel.layout,
                entries: &entries,
            }));
        }
    }

    /// Waits for a chunk, hands its output to `read`, adds its kernel time and unmaps the
    /// staging buffer.
    async fn finish(
        &self,
        ctx: &GpuContext,
        kernel: &Kernel,
        flight: InFlight,
        read: &mut impl FnMut(Range<usize>, &[u8]),
        kernel_time: &mut Option<Duration>,
    ) -> Result<(), Error> {
        let label = &kernel.label;
        if let Some(e) = flight.out_of_memory.await {
            return Err(Error::OutOfMemory(format!(
                "{label}: a chunk of {} items: {e}",
                flight.items.len()
            )));
        }
        if let Some(e) = flight.validation.await {
            return Err(error_of(e));
        }
        // Natively this waits; on the page it returns at once and the mapping is awaited.
        let poll = ctx.device.poll(wgpu::PollType::Wait {
            submission_index: Some(flight.submission),
            timeout: None,
        });
        ctx.take_failure()?;
        poll.map_err(|e| Error::DeviceLost(format!("waiting for a {label} chunk: {e}")))?;
        match flight.mapping.done(ctx).await {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(Error::Gpu(format!("reading back a {label} chunk: {e}"))),
            None => {
                return Err(Error::Gpu(format!(
                    "a {label} chunk's readback never completed"
                )))
            }
        }
        let staging = &self.slots[flight.slot]
            .staging
            .as_ref()
            .expect("made at submission")
            .buffer;
        {
            let view = staging
                .slice(..flight.mapped_bytes)
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("mapping a {label} chunk: {e}")))?;
            let output = flight.output_bytes as usize;
            read(flight.items, &view[..output]);
            if let Some(total) = kernel_time {
                let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&view[output..]);
                let ns = ticks[1].saturating_sub(ticks[0]) as f64
                    * ctx.queue.get_timestamp_period() as f64;
                *total += Duration::from_nanos(ns as u64);
            }
        }
        staging.unmap();
        Ok(())
    }
}

/// How long a mapping whose submission has finished may still take to report (its callback
/// run by another thread's poll) before it is taken as lost.
#[cfg(not(target_arch = "wasm32"))]
const MAPPING_PATIENCE: Duration = Duration::from_secs(10);

/// The result of one `map_async`, as a future.
#[derive(Default)]
struct MapState {
    result: Option<Result<(), wgpu::BufferAsyncError>>,
    waker: Option<Waker>,
}

struct Mapping(Arc<Mutex<MapState>>);

impl Mapping {
    /// Asks for the first `bytes` of `buffer` to be mapped for reading.
    fn start(buffer: &wgpu::Buffer, bytes: u64) -> Mapping {
        let state: Arc<Mutex<MapState>> = Arc::default();
        let callback = state.clone();
        buffer
            .slice(..bytes)
            .map_async(wgpu::MapMode::Read, move |result| {
                let mut s = callback.lock().unwrap_or_else(|e| e.into_inner());
                s.result = Some(result);
                if let Some(waker) = s.waker.take() {
                    waker.wake();
                }
            });
        Mapping(state)
    }

    /// The mapping's result once the device has been waited on; on the page it is awaited.
    /// Natively it is there, or about to be: where workers share the device, another
    /// thread's poll may have taken the finished mappings' callbacks and be running this
    /// one's while this thread's wait returns. So it is looked for again, the device polled
    /// between, for up to [`MAPPING_PATIENCE`]; then `None`, not a hang.
    async fn done(self, ctx: &GpuContext) -> Option<Result<(), wgpu::BufferAsyncError>> {
        #[cfg(target_arch = "wasm32")]
        {
            let _ = ctx;
            Some(self.await)
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let start = std::time::Instant::now();
            loop {
                let result = self
                    .0
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .result
                    .take();
                if result.is_some() || start.elapsed() > MAPPING_PATIENCE {
                    return result;
                }
                let _ = ctx.device.poll(wgpu::PollType::Poll);
                std::thread::yield_now();
            }
        }
    }
}

impl Future for Mapping {
    type Output = Result<(), wgpu::BufferAsyncError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match s.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The device layer alone, on a toy kernel: chunks of 1 to 300 items, both entry points,
    //! outputs handed back in order, one chunk that makes the slots regrow, another kernel on
    //! the same slots, an empty run. Skips without an adapter unless `PLANAR_HOLD_REQUIRE_GPU`.

    use super::*;
    use crate::device::{block_on, Binding, KernelSpec};

    const TOY: &str = r#"
struct Params { count: u32, a: u32, b: u32, c: u32 }
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<uniform> offset: vec4<u32>;
@group(0) @binding(3) var<uniform> params: Params;
@compute @workgroup_size(64)
fn add(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < params.count { output[id.x] = input[id.x] + offset.x; }
}
@compute @workgroup_size(64)
fn twice(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < params.count { output[id.x] = input[id.x] * 2u; }
}
"#;

    fn toy(ctx: &GpuContext, offset: u32) -> Kernel {
        let table = [offset, 0, 0, 0];
        block_on(Kernel::build(
            ctx,
            KernelSpec {
                label: "toy",
                wgsl: TOY,
                entry_points: &["add", "twice"],
                bindings: &[
                    Binding::Input,
                    Binding::Output,
                    Binding::Table(bytemuck::cast_slice(&table)),
                    Binding::Params,
                ],
            },
        ))
        .expect("the toy kernel builds")
    }

    /// `input` through `kernel`'s `entry` in chunks of 1, 2, 3, … items; the output and the
    /// items of each chunk as they came back.
    fn run(
        ctx: &GpuContext,
        kernel: &Kernel,
        slots: &mut Slots,
        entry: usize,
        input: &[u32],
    ) -> (Vec<u32>, Vec<Range<usize>>) {
        let mut output = vec![0; input.len()];
        let mut order = Vec::new();
        let (mut start, mut size) = (0, 0);
        let prepare = |upload: &mut Upload<'_>| {
            if start == input.len() {
                return None;
            }
            size += 1;
            let items = start..(start + size).min(input.len());
            start = items.end;
            upload.write(0, bytemuck::cast_slice(&input[items.clone()]));
            upload.write(3, bytemuck::cast_slice(&[items.len() as u32, 0, 0, 0]));
            Some(Dispatch {
                output_bytes: 4 * items.len() as u64,
                workgroups: (items.len() as u32).div_ceil(64),
                items,
                entry,
            })
        };
        let read = |items: Range<usize>, bytes: &[u8]| {
            output[items.clone()].copy_from_slice(bytemuck::cast_slice(bytes));
            order.push(items);
        };
        let time = block_on(slots.run(ctx, kernel, prepare, read)).expect("the toy runs");
        assert_eq!(time.is_some(), ctx.timestamps);
        (output, order)
    }

    #[test]
    fn chunks_of_every_size_come_back_in_order() {
        let ctx = match GpuContext::from_env() {
            Ok(ctx) => ctx,
            Err(e) if std::env::var_os("PLANAR_HOLD_REQUIRE_GPU").is_some() => {
                panic!("PLANAR_HOLD_REQUIRE_GPU is set but no device: {e}")
            }
            Err(e) => return eprintln!("NOTICE: device test skipped ({e})"),
        };
        // 300 chunks of 1 to 300 items, two in flight at a time, all within the slots' first
        // buffers (64 KiB); the one large chunk below makes them regrow.
        let input: Vec<u32> = (0..45_150).map(|i| i * 7 + 1).collect();
        let add = toy(&ctx, 1000);
        let mut slots = Slots::default();
        let (out, order) = run(&ctx, &add, &mut slots, 0, &input);
        assert!(out.iter().zip(&input).all(|(o, i)| *o == i + 1000));
        assert_eq!(order.len(), 300);
        assert!(order.windows(2).all(|w| w[0].end == w[1].start));
        let (out, _) = run(&ctx, &add, &mut slots, 1, &input);
        assert!(out.iter().zip(&input).all(|(o, i)| *o == 2 * i));
        // One chunk larger than the floor: the slots regrow, the answers stay right.
        let big: Vec<u32> = (0..100_000).collect();
        let mut output = vec![0; big.len()];
        let mut chunks = 0;
        let mut sent = false;
        block_on(slots.run(
            &ctx,
            &add,
            |upload| {
                if std::mem::replace(&mut sent, true) {
                    return None;
                }
                upload.write(0, bytemuck::cast_slice(&big));
                upload.write(3, bytemuck::cast_slice(&[big.len() as u32, 0, 0, 0]));
                Some(Dispatch {
                    items: 0..big.len(),
                    output_bytes: 4 * big.len() as u64,
                    workgroups: (big.len() as u32).div_ceil(64),
                    entry: 0,
                })
            },
            |items, bytes| {
                output[items].copy_from_slice(bytemuck::cast_slice(bytes));
                chunks += 1;
            },
        ))
        .expect("one large chunk");
        assert_eq!(chunks, 1);
        assert!(output.iter().zip(&big).all(|(o, i)| *o == i + 1000));
        // Another kernel on the same slots: they start afresh for it.
        let other = toy(&ctx, 5);
        let (out, _) = run(&ctx, &other, &mut slots, 0, &input[..1000]);
        assert!(out.iter().zip(&input).all(|(o, i)| *o == i + 5));
        // Nothing to run: no chunk, no read.
        let (out, order) = run(&ctx, &other, &mut slots, 0, &[]);
        assert!(out.is_empty() && order.is_empty());
    }
}
