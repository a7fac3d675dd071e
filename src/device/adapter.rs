//! The adapters the environment offers, and the one it names.

use crate::Error;

/// What the `info` command shows of one adapter.
#[derive(Clone, Debug)]
pub struct AdapterReport {
    /// Name, vendor, backend, device type and driver.
    pub info: wgpu::AdapterInfo,
    /// Everything the adapter offers (the device asks only for what the kernels need).
    pub limits: wgpu::Limits,
    /// The adapter has timestamp queries, so kernel time can be measured.
    pub timestamps: bool,
}

/// The instance of `WGPU_BACKEND` (and the other WGPU_* instance variables), as wgpu's
/// utilities read them.
pub(super) fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

fn backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())
}

/// Every adapter the environment's backends offer.
pub fn adapters() -> Vec<AdapterReport> {
    super::block_on(instance().enumerate_adapters(backends()))
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
pub(super) async fn from_env(instance: &wgpu::Instance) -> Result<wgpu::Adapter, Error> {
    let backend_note = std::env::var("WGPU_BACKEND")
        .map(|b| format!(" for WGPU_BACKEND={b}"))
        .unwrap_or_default();
    if let Ok(name) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = name.to_lowercase();
        let all = instance.enumerate_adapters(backends()).await;
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
    instance
        .request_adapter(&options)
        .await
        .map_err(|e| Error::NoAdapter(format!("{backend_note} ({e})")))
}
