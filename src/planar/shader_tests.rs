//! The kernel as GPUs will see it: its per-invocation arrays (what a GPU can only put in
//! slow local memory) stay within 1 KiB, its workgroup memory within the downlevel limit, and
//! naga translates it for every backend wgpu ships, with the options wgpu uses there (a unit
//! test: the shader is the kernel's business, not the crate's public surface).

use std::collections::BTreeMap;

use super::host::{CONE_TEST_WGSL, WORKGROUP_SIZE};
use naga::back::{hlsl, msl, spv};
use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy, Layouter};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{AddressSpace, Handle, Module, ResourceBinding, ShaderStage, Type, TypeInner};

/// Most bytes of private and function-scope arrays one invocation may hold.
const PRIVATE_ARRAY_BUDGET: u32 = 1024;

fn module() -> (Module, ModuleInfo) {
    let module = naga::front::wgsl::parse_str(CONE_TEST_WGSL).expect("shader parses");
    let info = Validator::new(ValidationFlags::all(), Capabilities::empty())
        .validate(&module)
        .expect("shader validates");
    (module, info)
}

/// Whether a value of this type holds an array (directly or inside a struct).
fn holds_array(module: &Module, ty: Handle<Type>) -> bool {
    match &module.types[ty].inner {
        TypeInner::Array { .. } | TypeInner::BindingArray { .. } => true,
        TypeInner::Struct { members, .. } => members.iter().any(|m| holds_array(module, m.ty)),
        _ => false,
    }
}

/// (name, bytes) of every private global, function-scope variable and function argument
/// that holds an array, as naga lays it out.
fn private_arrays(module: &Module) -> Vec<(String, u32)> {
    let mut layouter = Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    let mut found = Vec::new();
    for (_, g) in module.global_variables.iter() {
        if g.space == AddressSpace::Private && holds_array(module, g.ty) {
            let name = g.name.clone().unwrap_or_default();
            found.push((format!("private {name}"), layouter[g.ty].size));
        }
    }
    let functions = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function));
    for f in functions {
        let fname = f.name.clone().unwrap_or_default();
        for (_, v) in f.local_variables.iter() {
            if holds_array(module, v.ty) {
                let name = v.name.clone().unwrap_or_default();
                found.push((format!("{fname}: var {name}"), layouter[v.ty].size));
            }
        }
        for a in &f.arguments {
            if holds_array(module, a.ty) {
                let name = a.name.clone().unwrap_or_default();
                found.push((format!("{fname}: argument {name}"), layouter[a.ty].size));
            }
        }
    }
    found
}

#[test]
fn private_arrays_stay_under_one_kib() {
    let (module, _) = module();
    let arrays = private_arrays(&module);
    let total: u32 = arrays.iter().map(|(_, size)| size).sum();
    eprintln!("private and function-scope arrays: {total} B {arrays:?}");
    // The count sees what it must: the pairs' need numerators are one such array.
    assert!(
        arrays
            .iter()
            .any(|(name, size)| name.ends_with("var c_need") && *size == 480),
        "{arrays:?}"
    );
    assert!(
        total <= PRIVATE_ARRAY_BUDGET,
        "{total} B of private arrays per invocation (at most {PRIVATE_ARRAY_BUDGET}): {arrays:?}"
    );
}

#[test]
fn workgroup_memory_fits_the_downlevel_limit() {
    let (module, _) = module();
    let mut layouter = Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    let total: u32 = module
        .global_variables
        .iter()
        .filter(|(_, g)| g.space == AddressSpace::WorkGroup)
        .map(|(_, g)| layouter[g.ty].size)
        .sum();
    let limit = wgpu::Limits::downlevel_defaults().max_compute_workgroup_storage_size;
    eprintln!("workgroup memory: {total} B (limit {limit} B)");
    assert!(total <= limit, "{total} B of workgroup memory");
}

/// (group, binding) of every resource the kernel binds, with whether it is written.
fn bindings(module: &Module) -> Vec<(ResourceBinding, bool)> {
    module
        .global_variables
        .iter()
        .filter_map(|(_, g)| {
            let written = matches!(g.space, AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE));
            g.binding.map(|b| (b, written))
        })
        .collect()
}

#[test]
fn translates_to_spirv_for_vulkan() {
    let (module, info) = module();
    // What every Vulkan device has (wgpu-hal's vulkan adapter starts from this set and adds
    // optional ones the kernel does not need), at SPIR-V 1.0 (Vulkan 1.0).
    let capabilities = [
        spv::Capability::Shader,
        spv::Capability::Matrix,
        spv::Capability::Sampled1D,
        spv::Capability::Image1D,
        spv::Capability::ImageQuery,
        spv::Capability::DerivativeControl,
        spv::Capability::StorageImageExtendedFormats,
    ];
    let binding_map: spv::BindingMap = bindings(&module)
        .into_iter()
        .map(|(b, _)| {
            let target = spv::BindingInfo {
                descriptor_set: b.group,
                binding: b.binding,
                binding_array_size: None,
            };
            (b, target)
        })
        .collect();
    for lang_version in [(1, 0), (1, 3), (1, 6)] {
        let options = spv::Options {
            lang_version,
            flags: spv::WriterFlags::empty(),
            fake_missing_bindings: false,
            binding_map: binding_map.clone(),
            capabilities: Some(capabilities.into_iter().collect()),
            bounds_check_policies: BoundsCheckPolicies {
                index: BoundsCheckPolicy::Restrict,
                buffer: BoundsCheckPolicy::Restrict,
                image_load: BoundsCheckPolicy::Restrict,
                binding_array: BoundsCheckPolicy::Unchecked,
            },
            zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Polyfill,
            force_loop_bounding: true,
            ..spv::Options::default()
        };
        let pipeline = spv::PipelineOptions {
            shader_stage: ShaderStage::Compute,
            entry_point: "main".into(),
        };
        let words = spv::write_vec(&module, &info, &options, Some(&pipeline))
            .unwrap_or_else(|e| panic!("SPIR-V {lang_version:?}: {e}"));
        assert_eq!(words[0], 0x0723_0203, "SPIR-V magic number");
    }
}

#[test]
fn translates_to_msl_for_metal() {
    let (module, info) = module();
    // wgpu-hal's metal backend: one buffer slot per binding in order, then the buffer of
    // sizes that storage bindings need; bounds checks on.
    let mut resources = msl::BindingMap::new();
    let mut slot = 0u8;
    for (b, written) in bindings(&module) {
        let target = msl::BindTarget {
            buffer: Some(slot),
            mutable: written,
            ..Default::default()
        };
        resources.insert(b, target);
        slot += 1;
    }
    let per_entry_point_map = BTreeMap::from([(
        "main".to_string(),
        msl::EntryPointResources {
            resources,
            immediates_buffer: None,
            sizes_buffer: Some(slot),
        },
    )]);
    // MSL 2.0 (macOS 10.13, the oldest wgpu runs on) to 3.2.
    for lang_version in [(2, 0), (2, 4), (3, 2)] {
        let options = msl::Options {
            lang_version,
            fake_missing_bindings: false,
            per_entry_point_map: per_entry_point_map.clone(),
            bounds_check_policies: BoundsCheckPolicies {
                index: BoundsCheckPolicy::Restrict,
                buffer: BoundsCheckPolicy::Restrict,
                image_load: BoundsCheckPolicy::Restrict,
                binding_array: BoundsCheckPolicy::Unchecked,
            },
            zero_initialize_workgroup_memory: true,
            force_loop_bounding: true,
            ..msl::Options::default()
        };
        let pipeline = msl::PipelineOptions {
            entry_point: Some((ShaderStage::Compute, "main".into())),
            allow_and_force_point_size: false,
            vertex_pulling_transform: false,
            vertex_buffer_mappings: Vec::new(),
            binding_array_length_map: Default::default(),
        };
        let (source, _) = msl::write_string(&module, &info, &options, &pipeline)
            .unwrap_or_else(|e| panic!("MSL {lang_version:?}: {e}"));
        assert!(source.contains("kernel void"), "{source}");
    }
}

#[test]
fn translates_to_hlsl_for_dx12() {
    let (module, info) = module();
    // wgpu-hal's dx12 backend: register space 0, restricted indexing, shader model 5.1
    // (FXC, the oldest) to 6.x (DXC).
    let binding_map: hlsl::BindingMap = bindings(&module)
        .into_iter()
        .map(|(b, _)| {
            let target = hlsl::BindTarget {
                space: b.group as u8,
                register: b.binding,
                binding_array_size: None,
                dynamic_storage_buffer_offsets_index: None,
                restrict_indexing: true,
            };
            (b, target)
        })
        .collect();
    for shader_model in [
        hlsl::ShaderModel::V5_1,
        hlsl::ShaderModel::V6_0,
        hlsl::ShaderModel::V6_6,
    ] {
        let options = hlsl::Options {
            shader_model,
            binding_map: binding_map.clone(),
            fake_missing_bindings: false,
            zero_initialize_workgroup_memory: true,
            restrict_indexing: true,
            force_loop_bounding: true,
            ..hlsl::Options::default()
        };
        let pipeline = hlsl::PipelineOptions {
            entry_point: Some((ShaderStage::Compute, "main".into())),
        };
        let mut source = String::new();
        hlsl::Writer::new(&mut source, &options, &pipeline)
            .write(&module, &info, None)
            .unwrap_or_else(|e| panic!("HLSL {shader_model:?}: {e}"));
        let threads = format!("[numthreads({WORKGROUP_SIZE}, 1, 1)]");
        assert!(source.contains(&threads), "{source}");
    }
}

/// The kernel's float constants are its CPU twin's, bit for bit: `F32_MAX` is `f32::MAX`
/// (a hex float: Tint refuses the decimal 3.40282347e38, which lies above it, where naga
/// rounds it down) and `MARGIN_CAP` the crate's.
#[test]
fn float_constants_match_the_cpu_twin() {
    let (module, _) = module();
    let value = |name: &str| -> f32 {
        let (_, c) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no constant {name}"));
        match module.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::F32(v)) => v,
            ref e => panic!("{name} = {e:?}, not an f32 literal"),
        }
    };
    assert_eq!(value("F32_MAX").to_bits(), f32::MAX.to_bits());
    assert_eq!(value("MARGIN_CAP"), crate::MARGIN_CAP);
}
