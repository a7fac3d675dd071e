//! What power users need beyond the door at the crate root: the proof checker, the general
//! solver, the planar kernel's tables, the physical layer's pieces, the
//! samplers, the pictures and the device. Each is re-exported from where it lives; the crate's
//! interior modules are private.

/// Proofs of the general answers' bounds (docs/proof.md), checked in float64 apart from the
/// engine.
pub mod proof {
    pub use crate::general::proof::{
        check, check_answer, check_disc_answer,
        region::{distance_to_polygon, Bound, RegionProof},
        CheckedDisc, DiscPoint, InnerProof, Measure, NearestProof, Proof,
    };
}

/// The general engine's per-thread solver, its exact checks, and the grasp finish.
pub mod solver {
    pub use crate::general::{
        all_finite,
        check::{certificate, witness},
        grasp::{finish, ForceClosure},
        solver::{kernels, Route, Solver},
        Facet, GenSet,
    };
}

/// The planar enumeration: the CPU reference, its SIMD batches and the kernel's candidates.
pub mod planar {
    pub use crate::planar::{
        cone_test::cone_test,
        lanes::{cone_test_batch_into, cone_test_slice, cone_test_slice_with},
        tables::Candidate,
    };
}

/// The physical layer's pieces: judging outcomes, pyramids and wrenches, the support region.
pub mod scene {
    pub use crate::scene::{
        gate::Line,
        grasp::grasp_discs,
        parse::parse_planar,
        region::{check_support_region, region_map, support_region},
        report::{judge, BindingNeed, BindingReport, NeedReport, SlidingReport, WitnessReport},
        spatial::{main_pyramid, pyramid_edges, wrench, Pyramid, MAX_PYRAMID},
        spatial_parse::{fingertip_grasp, grasp_tolerance},
        spatial_report::{SpatialBinding, SpatialBindingNeed, SpatialNeedReport},
        types::EditSummary,
    };
}

/// Seeded random workloads: the benches', the demo's and the tests'.
pub mod sample {
    pub use crate::{
        general::sample::random_cases,
        rng::Rng,
        scene::sample::{
            box_cases, case_of_kind, contact_cases, contact_generators, mixed_cases, KINDS,
        },
    };
}

/// SVG pictures of answers (`planar-hold gate --draw`, `planar-hold draw`).
pub mod draw {
    pub use crate::draw::{file_name, story::story, svg_text};
    /// A spatial scene's picture.
    pub mod spatial {
        pub use crate::draw::spatial::{
            story::{story, Motion},
            svg_text,
        };
    }
    /// A grasp's picture.
    pub mod grasp {
        pub use crate::draw::grasp::svg_text;
    }
    /// A data set's picture (the grasp and sliding rates of the examples).
    pub mod dataset {
        pub use crate::draw::dataset::{svg_text, Closure, DataSet, Series};
    }
}

/// The GPU under the engine: adapters, the shared context, the device engine and the hints
/// its general search writes.
pub mod device {
    pub use crate::{
        device::{adapter::adapters, context::GpuContext},
        general::types::GeneralHint,
        gpu::GpuBackend,
        planar::host::GpuOptions,
    };
}

pub use crate::simd::{Simd, SIMD_ENV};
