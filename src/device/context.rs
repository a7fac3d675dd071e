//! The device and queue, with every failure the device reports kept for the next check.

use std::sync::{Arc, Mutex};

use crate::Error;

/// Device and queue, created once and shared by every kernel and batch.
pub struct GpuContext {
    /// The adapter the device was created on.
    pub info: wgpu::AdapterInfo,
    /// The device, with the downlevel limits plus the adapter's largest buffers and dispatch.
    pub device: wgpu::Device,
    /// The device's queue: uploads, dispatches and readbacks.
    pub queue: wgpu::Queue,
    /// Set by the device-lost callback and the uncaptured-error handler: checked after each wait.
    failure: Arc<Mutex<Option<Error>>>,
    /// The device has timestamp queries enabled, so `Slots::run`
    /// measures kernel time.
    pub timestamps: bool,
}

impl GpuContext {
    /// Chooses the adapter from the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`,
    /// `WGPU_POWER_PREF`) and creates the device on it; blocks (native callers only).
    ///
    /// # Errors
    ///
    /// [`Error::NoAdapter`], [`Error::RequestDevice`].
    pub fn from_env() -> Result<GpuContext, Error> {
        super::block_on(async {
            let instance = super::adapter::instance();
            let adapter = super::adapter::from_env(&instance).await?;
            GpuContext::from_adapter(&adapter).await
        })
    }

    /// Creates the device on `adapter`: the downlevel limits, raised to the adapter's largest
    /// buffers and dispatch (the only limits that bound a chunk), and timestamp queries
    /// where the adapter has them.
    ///
    /// # Errors
    ///
    /// [`Error::RequestDevice`] when the adapter refuses.
    pub async fn from_adapter(adapter: &wgpu::Adapter) -> Result<GpuContext, Error> {
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let available = adapter.limits();
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
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("planar-hold"),
                required_features: features,
                required_limits: limits,
                ..Default::default()
            })
            .await
            .map_err(|e| Error::RequestDevice(e.to_string()))?;
        Ok(GpuContext::new(
            device,
            queue,
            adapter.get_info(),
            timestamps,
        ))
    }

    /// A context on a device the caller created (tests inject theirs this way): installs the
    /// device-lost callback and the uncaptured-error handler. `timestamps` only where the
    /// device has [`wgpu::Features::TIMESTAMP_QUERY`].
    pub(crate) fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        timestamps: bool,
    ) -> GpuContext {
        let failure: Arc<Mutex<Option<Error>>> = Arc::default();
        let lost = failure.clone();
        device.set_device_lost_callback(move |reason, message| {
            let mut slot = lost.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(Error::DeviceLost(format!("{reason:?}: {message}")));
        });
        let uncaptured = failure.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = uncaptured.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(error_of(e));
        }));
        GpuContext {
            info,
            device,
            queue,
            failure,
            timestamps,
        }
    }

    /// The first failure the device reported (lost, out of memory, validation), if any.
    pub(super) fn take_failure(&self) -> Result<(), Error> {
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

    /// Largest storage binding (and buffer) in bytes.
    pub(crate) fn max_storage_bytes(&self) -> u64 {
        let limits = self.device.limits();
        limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
    }

    /// "name (Backend, DeviceType)", e.g. "llvmpipe (Gl, Cpu)".
    pub(crate) fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}

/// A wgpu error as this crate's: out of memory kept apart, the rest a GPU error.
pub(super) fn error_of(e: wgpu::Error) -> Error {
    match e {
        wgpu::Error::OutOfMemory { .. } => Error::OutOfMemory(e.to_string()),
        _ => Error::Gpu(e.to_string()),
    }
}
