//! A compute kernel: its WGSL module, the pipelines of its entry points, its bind group
//! layout and the tables uploaded with it.

use std::sync::atomic::{AtomicU64, Ordering};

use wgpu::util::DeviceExt;

use super::GpuContext;
use crate::Error;

/// What one binding of a kernel holds; the binding's number is its place in
/// [`KernelSpec::bindings`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Binding<'a> {
    /// Storage the shader reads, written by the host for every chunk ([`super::Upload::write`]).
    Input,
    /// A uniform written by the host for every chunk (the chunk's parameters).
    Params,
    /// The storage the shader writes, read back after every chunk. Exactly one per kernel.
    Output,
    /// A uniform table, uploaded once with the kernel and shared by every chunk.
    Table(&'a [u8]),
}

/// How to build a kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KernelSpec<'a> {
    /// Names the module, the pipelines and the errors, e.g. "cone_test".
    pub label: &'a str,
    /// The WGSL source.
    pub wgsl: &'a str,
    /// Entry points, one pipeline each; [`super::Dispatch::entry`] indexes them.
    pub entry_points: &'a [&'a str],
    /// Group 0's bindings, in binding order.
    pub bindings: &'a [Binding<'a>],
}

/// What a binding is, once built.
pub(super) enum Role {
    Input,
    Params,
    Output,
    Table(wgpu::Buffer),
}

/// A built kernel; immutable, so one kernel serves any number of [`super::Slots`].
pub(crate) struct Kernel {
    /// Tells the slots whether their bind groups were made for this kernel.
    pub(super) id: u64,
    pub(super) label: String,
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) pipelines: Vec<wgpu::ComputePipeline>,
    pub(super) roles: Vec<Role>,
    /// The binding of the output.
    pub(super) output: usize,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl Kernel {
    /// Compiles the module (its compilation messages checked), builds one pipeline per entry
    /// point on an explicit layout and uploads the tables.
    ///
    /// # Errors
    ///
    /// [`Error::Gpu`] when the shader or a pipeline fails validation on this device.
    pub(crate) async fn build(ctx: &GpuContext, spec: KernelSpec<'_>) -> Result<Kernel, Error> {
        let outputs: Vec<usize> = (0..spec.bindings.len())
            .filter(|&b| matches!(spec.bindings[b], Binding::Output))
            .collect();
        assert_eq!(
            outputs.len(),
            1,
            "{}: a kernel has exactly one output",
            spec.label
        );
        let device = &ctx.device;
        let label = spec.label;
        // No await while the scope is open: on the page the scope stack is the device's, and
        // another call may run at any await.
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(spec.wgsl.into()),
        });
        let entries: Vec<wgpu::BindGroupLayoutEntry> = spec
            .bindings
            .iter()
            .enumerate()
            .map(|(binding, kind)| wgpu::BindGroupLayoutEntry {
                binding: binding as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match kind {
                        Binding::Input => wgpu::BufferBindingType::Storage { read_only: true },
                        Binding::Output => wgpu::BufferBindingType::Storage { read_only: false },
                        Binding::Params | Binding::Table(_) => wgpu::BufferBindingType::Uniform,
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipelines = spec
            .entry_points
            .iter()
            .map(|&entry_point| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry_point),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(entry_point),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        let roles = spec
            .bindings
            .iter()
            .map(|kind| match *kind {
                Binding::Input => Role::Input,
                Binding::Params => Role::Params,
                Binding::Output => Role::Output,
                Binding::Table(contents) => Role::Table(device.create_buffer_init(
                    &wgpu::util::BufferInitDescriptor {
                        label: Some(label),
                        contents,
                        usage: wgpu::BufferUsages::UNIFORM,
                    },
                )),
            })
            .collect();
        let validation = scope.pop();
        let errors: Vec<String> = module
            .get_compilation_info()
            .await
            .messages
            .iter()
            .filter(|m| m.message_type == wgpu::CompilationMessageType::Error)
            .map(|m| m.message.clone())
            .collect();
        if !errors.is_empty() {
            return Err(Error::Gpu(format!(
                "{label}.wgsl does not compile here: {}",
                errors.join("; ")
            )));
        }
        if let Some(e) = validation.await {
            return Err(Error::Gpu(format!(
                "{label}: pipeline creation failed: {e}"
            )));
        }
        Ok(Kernel {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            label: label.to_string(),
            layout,
            pipelines,
            roles,
            output: outputs[0],
        })
    }
}
