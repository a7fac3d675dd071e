//! The kernel through the browser's WebGPU: the native engine's device layer
//! (`planar_hold::device`) and planar kernel (`planar_hold::planar::host`), awaited instead of
//! blocked on (a page cannot wait on its own thread: every map and error scope is a promise).
//!
//! Calls that overlap (a drag while a sweep runs) never share buffers: each takes a set of
//! slots from a pool for its duration; the pipeline and the two tables are made once.

use std::cell::RefCell;

use planar_hold::device::{GpuContext, Slots};
use planar_hold::planar::host::{GpuOptions, PlanarKernel};
use planar_hold::{Case, Outcome};
use wasm_bindgen::JsValue;

/// Device, pipeline and tables, made once per page; slots reused by later calls.
pub struct WebGpu {
    ctx: GpuContext,
    planar: PlanarKernel,
    idle: RefCell<Vec<Slots>>,
    /// "name (backend)" of the adapter.
    pub adapter: String,
}

fn err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
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
            .map_err(|e| JsValue::from_str(&format!("no WebGPU adapter: {e}")))?;
        let info = adapter.get_info();
        let ctx = GpuContext::from_adapter(&adapter).await.map_err(err)?;
        let planar = PlanarKernel::build(&ctx, GpuOptions::default())
            .await
            .map_err(err)?;
        Ok(WebGpu {
            ctx,
            planar,
            idle: RefCell::default(),
            adapter: format!("{} ({:?})", info.name, info.backend),
        })
    }

    /// One outcome per case, in order.
    pub async fn evaluate(&self, cases: &[Case]) -> Result<Vec<Outcome>, JsValue> {
        let mut slots = self.idle.borrow_mut().pop().unwrap_or_default();
        let mut out = vec![Outcome::default(); cases.len()];
        let done = self
            .planar
            .evaluate_into(&self.ctx, &mut slots, cases, &mut out)
            .await;
        self.idle.borrow_mut().push(slots);
        done.map_err(err)?;
        Ok(out)
    }
}
