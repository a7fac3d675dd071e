//! Adapter, device, pipeline and tables: created once per device.

use std::sync::{Arc, Mutex};

use wgpu::util::DeviceExt;

use crate::planar::tables::{candidates, witness_subsets};
use crate::Error;

/// What the `info` command shows of one adapter.
#[derive(Clone, Debug)]
pub struct AdapterReport {
    /// Name, vendor, backend, device type and driver.
    pub info: wgpu::AdapterInfo,
    /// Everything the adapter offers (the engine asks only for what the shader needs).
    pub limits: wgpu::Limits,
    /// The adapter has timestamp queries, so kernel time can be measured.
    pub timestamps: bool,
}

fn instance() -> wgpu::Instance {
    // Reads WGPU_BACKEND (and the other WGPU_* instance variables) as wgpu's utilities do.
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

/// Every adapter the environment's backends offer.
pub fn adapters() -> Vec<AdapterReport> {
    let instance = instance();
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    pollster::block_on(instance.enumerate_adapters(backends))
        .into_iter()
        .map(|a| AdapterReport {
            info: a.get_info(),
            limits: a.limits(),
            timestamps: a.features().contains(wgpu::Features::TIMESTAMP_QUERY),
        })
        .collect()
}

/// The adapter named by `WGPU_ADAPTER_NAME` (a case-insensitive substring), else the one
/// wgpu prefers under `WGPU_POWER_PREF`, among the backends of `WGPU_BACKEND`.
fn adapter_from_env(instance: &wgpu::Instance) -> Result<wgpu::Adapter, Error> {
    let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let backend_note = std::env::var("WGPU_BACKEND")
        .map(|b| format!(" for WGPU_BACKEND={b}"))
        .unwrap_or_default();
    if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = name.to_lowercase();
        let all = pollster::block_on(instance.enumerate_adapters(backends));
        let names: Vec<String> = all.iter().map(|a| a.get_info().name).collect();
        return all
            .into_iter()
            .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
            .ok_or_else(|| {
                Error::NoAdapter(format!(
                    " named like WGPU_ADAPTER_NAME={name}{backend_note} (found: {names:?})"
                ))
            });
    }
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::from_env().unwrap_or_default(),
        ..Default::default()
    };
    pollster::block_on(instance.request_adapter(&options))
        .map_err(|e| Error::NoAdapter(format!("{backend_note} ({e})")))
}

/// Device, queue, pipeline and the two tables, built once; shared by every batch.
pub struct GpuContext {
    /// The adapter the device was created on.
    pub info: wgpu::AdapterInfo,
    /// The device, with the downlevel limits plus the adapter's largest buffers and dispatch.
    pub device: wgpu::Device,
    /// The device's queue: uploads, dispatches and readbacks.
    pub queue: wgpu::Queue,
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) subsets: wgpu::Buffer,
    pub(crate) candidates: wgpu::Buffer,
    /// Set by the device-lost callback and the uncaptured-error handler: checked after each wait.
    pub(crate) failure: Arc<Mutex<Option<Error>>>,
    /// The device has timestamp queries enabled: [`GpuEngine::last_kernel_time`] is known.
    ///
    /// [`GpuEngine::last_kernel_time`]: super::GpuEngine::last_kernel_time
    pub timestamps: bool,
}

impl GpuContext {
    /// Chooses the adapter from the environment and creates the device on it.
    ///
    /// # Errors
    ///
    /// [`Error::NoAdapter`], [`Error::RequestDevice`], and those of [`GpuContext::new`].
    pub fn from_env() -> Result<GpuContext, Error> {
        let instance = instance();
        let adapter = adapter_from_env(&instance)?;
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let available = adapter.limits();
        // Downlevel defaults are enough for the shader; only the buffer sizes and the dispatch
        // width bound the chunk, so those are raised to what the adapter offers.
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: available.max_storage_buffer_binding_size,
            max_buffer_size: available.max_buffer_size,
            max_compute_workgroups_per_dimension: available.max_compute_workgroups_per_dimension,
            ..wgpu::Limits::downlevel_defaults()
        };
        let features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("planar-hold"),
            required_features: features,
            required_limits: limits,
            ..Default::default()
        }))
        .map_err(|e| Error::RequestDevice(e.to_string()))?;
        GpuContext::new(device, queue, adapter.get_info(), timestamps)
    }

    /// Builds the pipeline and uploads the tables on a device the caller created.
    ///
    /// # Errors
    ///
    /// [`Error::Gpu`] when the shader or pipeline fails validation on this device.
    pub fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        timestamps: bool,
    ) -> Result<GpuContext, Error> {
        let failure: Arc<Mutex<Option<Error>>> = Arc::default();
        let lost = failure.clone();
        device.set_device_lost_callback(move |reason, message| {
            let mut slot = lost.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(Error::DeviceLost(format!("{reason:?}: {message}")));
        });
        let uncaptured = failure.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let error = match e {
                wgpu::Error::OutOfMemory { .. } => Error::OutOfMemory(e.to_string()),
                _ => Error::Gpu(e.to_string()),
            };
            let mut slot = uncaptured.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(error);
        }));

        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("cone_test.wgsl"),
            source: wgpu::ShaderSource::Wgsl(crate::planar::host::CONE_TEST_WGSL.into()),
        });
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let uniform = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cone_test"),
            entries: &[
                storage(0, true),
                storage(1, false),
                uniform(2),
                uniform(3),
                uniform(4),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("cone_test"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("cone_test"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let table = |label, contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::UNIFORM,
            })
        };
        let subsets = table("witness subsets", bytemuck::cast_slice(witness_subsets()));
        let candidates = table("certificate candidates", bytemuck::cast_slice(candidates()));
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("pipeline creation failed: {e}")));
        }
        Ok(GpuContext {
            info,
            device,
            queue,
            pipeline,
            layout,
            subsets,
            candidates,
            failure,
            timestamps,
        })
    }

    /// The first failure the device reported (lost, out of memory, validation), if any.
    pub(crate) fn take_failure(&self) -> Result<(), Error> {
        match self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// "name (Backend, DeviceType)", e.g. "llvmpipe (Gl, Cpu)".
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}
