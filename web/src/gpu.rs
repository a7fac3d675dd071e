//! The kernel through the browser's WebGPU: the same `shaders/cone_test.wgsl`, tables and Pod
//! structs as the native engine (`planar_hold::planar::host`), awaited instead of blocked on (a page
//! cannot wait on its own thread: every map and error scope is a promise).
//!
//! Each call makes its own buffers, so calls that overlap (a drag while a sweep runs) never
//! share one; the pipeline and the two tables are made once.

use std::mem::size_of;

use planar_hold::planar::host::{CONE_TEST_WGSL, WORKGROUP_SIZE};
use planar_hold::planar::tables::{candidates, witness_subsets};
use planar_hold::planar::types::Params;
use planar_hold::{Case, Outcome};
use wasm_bindgen::JsValue;
use wgpu::util::DeviceExt;

const CASE_BYTES: u64 = size_of::<Case>() as u64;
const OUTCOME_BYTES: u64 = size_of::<Outcome>() as u64;

/// Device, pipeline and tables, made once per page.
pub struct WebGpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    subsets: wgpu::Buffer,
    candidates: wgpu::Buffer,
    chunk_cases: usize,
    /// "name (backend)" of the adapter.
    pub adapter: String,
}

fn err(what: &str, e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&format!("{what}: {e}"))
}

impl WebGpu {
    /// The browser's WebGPU adapter, a device with its buffer limits, the pipeline (its
    /// compilation messages checked) and the tables.
    pub async fn new() -> Result<WebGpu, JsValue> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await
            .map_err(|e| err("no WebGPU adapter", e))?;
        let info = adapter.get_info();
        let available = adapter.limits();
        // As the native engine: the defaults, with the adapter's largest buffers and dispatch.
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: available.max_storage_buffer_binding_size,
            max_buffer_size: available.max_buffer_size,
            max_compute_workgroups_per_dimension: available.max_compute_workgroups_per_dimension,
            ..wgpu::Limits::downlevel_defaults()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("planar-hold"),
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| err("WebGPU device", e))?;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("cone_test.wgsl"),
            source: wgpu::ShaderSource::Wgsl(CONE_TEST_WGSL.into()),
        });
        let compilation = module.get_compilation_info().await;
        let errors: Vec<String> = compilation
            .messages
            .iter()
            .filter(|m| m.message_type == wgpu::CompilationMessageType::Error)
            .map(|m| m.message.clone())
            .collect();
        if !errors.is_empty() {
            return Err(JsValue::from_str(&format!(
                "cone_test.wgsl does not compile here: {}",
                errors.join("; ")
            )));
        }
        // The layout the shader declares (bindings 0–4, as `GpuContext` spells it natively).
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("cone_test"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let layout = pipeline.get_bind_group_layout(0);
        let table = |label, contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::UNIFORM,
            })
        };
        let subsets = table("witness subsets", bytemuck::cast_slice(witness_subsets()));
        let candidates = table("certificate candidates", bytemuck::cast_slice(candidates()));
        if let Some(e) = scope.pop().await {
            return Err(err("pipeline creation failed", e));
        }
        let by_binding = (limits.max_storage_buffer_binding_size as u64 / CASE_BYTES) as usize;
        let by_dispatch =
            limits.max_compute_workgroups_per_dimension as usize * WORKGROUP_SIZE as usize;
        Ok(WebGpu {
            device,
            queue,
            pipeline,
            layout,
            subsets,
            candidates,
            chunk_cases: (1 << 17).min(by_binding).min(by_dispatch),
            adapter: format!("{} ({:?})", info.name, info.backend),
        })
    }

    /// One outcome per case, in order: chunks under the device's limits, one at a time.
    pub async fn evaluate(&self, cases: &[Case]) -> Result<Vec<Outcome>, JsValue> {
        let mut out = Vec::with_capacity(cases.len());
        for chunk in cases.chunks(self.chunk_cases) {
            out.extend(self.chunk(chunk).await?);
        }
        Ok(out)
    }

    async fn chunk(&self, cases: &[Case]) -> Result<Vec<Outcome>, JsValue> {
        let device = &self.device;
        let n = cases.len() as u64;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        use wgpu::BufferUsages as U;
        let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cases"),
            contents: bytemuck::cast_slice(cases),
            usage: U::STORAGE,
        });
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let outcomes = buffer("outcomes", n * OUTCOME_BYTES, U::STORAGE | U::COPY_SRC);
        let staging = buffer("staging", n * OUTCOME_BYTES, U::MAP_READ | U::COPY_DST);
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: bytemuck::bytes_of(&Params {
                count: cases.len() as u32,
                ..Params::default()
            }),
            usage: U::UNIFORM,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cone_test"),
            layout: &self.layout,
            entries: &[
                input.as_entire_binding(),
                outcomes.as_entire_binding(),
                self.subsets.as_entire_binding(),
                self.candidates.as_entire_binding(),
                params.as_entire_binding(),
            ]
            .into_iter()
            .enumerate()
            .map(|(binding, resource)| wgpu::BindGroupEntry {
                binding: binding as u32,
                resource,
            })
            .collect::<Vec<_>>(),
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups((n as u32).div_ceil(WORKGROUP_SIZE), 1, 1);
        }
        encoder.copy_buffer_to_buffer(&outcomes, 0, &staging, 0, n * OUTCOME_BYTES);
        self.queue.submit([encoder.finish()]);
        if let Some(e) = scope.pop().await {
            return Err(err("dispatch failed", e));
        }
        mapped(&staging).await?;
        let result = {
            let view = staging
                .slice(..)
                .get_mapped_range()
                .map_err(|e| err("mapping the outcomes", e))?;
            bytemuck::cast_slice::<u8, Outcome>(&view).to_vec()
        };
        staging.unmap();
        for b in [&input, &outcomes, &staging, &params] {
            b.destroy();
        }
        Ok(result)
    }
}

/// Maps `buffer` for reading, awaited through a JavaScript promise that the callback resolves.
async fn mapped(buffer: &wgpu::Buffer) -> Result<(), JsValue> {
    let mut resolve = None;
    let promise = js_sys::Promise::new(&mut |ok, _| resolve = Some(ok));
    let resolve = resolve.expect("the promise's executor runs at once");
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = resolve.call1(&JsValue::NULL, &JsValue::from_bool(r.is_ok()));
    });
    let ok = wasm_bindgen_futures::JsFuture::from(promise).await?;
    if ok.as_bool() == Some(true) {
        Ok(())
    } else {
        Err(JsValue::from_str("reading back the outcomes failed"))
    }
}
