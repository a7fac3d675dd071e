//! What power users need beyond the door at the crate root: the proof checker, the general
//! solver and its GPU search, the planar kernel's tables, the physical layer's pieces, the
//! samplers, the pictures and the device. Each is re-exported from where it lives; the crate's
//! interior modules are private.

/// Proofs of the general answers' bounds (docs/proof.md), checked in float64 apart from the
/// engine.
pub mod proof {
    pub use crate::general::proof::{
        check, check_answer, distance_to_polygon, Bound, InnerProof, Measure, Proof, RegionProof,
    };
}

/// The general engine's per-thread solver, its exact checks, and the grasp finish.
pub mod solver {
    pub use crate::general::check::{certificate, witness};
    pub use crate::general::grasp::{finish, ForceClosure};
    pub use crate::general::linalg::Basis;
    pub use crate::general::solver::{kernels, Route, Solver};
    pub use crate::general::{all_finite, GenSet};
}

/// The general engine's GPU search: its shader, records, hints and their CPU twin.
pub mod search {
    pub use crate::general::host::{GeneralMode, SEARCH_WGSL};
    pub use crate::general::search::{pack_case, pack_range, search, HINT_INSIDE, HINT_OUTSIDE};
    pub use crate::general::types::{GeneralHint, GeneralParams, GeneralRecord};
}

/// The planar enumeration: the CPU reference, the kernel's shader and its tables.
pub mod planar {
    pub use crate::planar::host::{CONE_TEST_WGSL, WORKGROUP_SIZE};
    pub use crate::planar::tables::{
        candidates, pair_index, triple_index, witness_subsets, Candidate, APEX, CANDIDATE_COUNT,
        FIRST_GENERATOR_DIRECTION, FIRST_GENERATOR_PLANE, FIRST_PAIR, FIRST_PERPENDICULAR,
        FIRST_TRIPLE, WITNESS_COUNT,
    };
    pub use crate::planar::types::Params;
    pub use crate::planar::{
        cone_test, cone_test_batch, cone_test_batch_into, cone_test_slice, cone_test_slice_with,
    };
}

/// The physical layer's pieces: judging outcomes, pyramids and wrenches, the support region.
pub mod scene {
    pub use crate::scene::spatial::MAX_PYRAMID;
    pub use crate::scene::{
        check_support_region, fingertip_grasp, judge, main_pyramid, parse_planar, planar_reports,
        pyramid_edges, region_map, support_region, wrench, Pyramid,
    };
}

/// Seeded random workloads: the benches', the demo's and the tests'.
pub mod sample {
    pub use crate::general::sample::random_cases;
    pub use crate::rng::Rng;
    pub use crate::scene::sample::{
        box_cases, case_of_kind, contact_cases, contact_generators, mixed_cases, KINDS,
    };
}

/// SVG pictures of answers (`planar-hold gate --draw`, `planar-hold draw`).
pub mod draw {
    pub use crate::draw::{file_name, half_spaces, slice, story, svg_text};
    /// A spatial scene's picture.
    pub mod spatial {
        pub use crate::draw::spatial::{story, svg_text, Motion};
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

/// The GPU under the engine: adapters, the shared context, the device engine.
pub mod device {
    pub use crate::device::{adapters, block_on, GpuContext};
    pub use crate::gpu::{GpuEngine, GpuOptions};
}

pub use crate::simd::{Simd, SIMD_ENV};
