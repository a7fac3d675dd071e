//! planar-hold: can a set of planar frictional contacts hold a rigid box against gravity?
//!
//! The cone test of docs/contract-planar.md answers exactly, in large batches, on the GPU (wgpu) or the
//! CPU: a witness (contact forces that hold), a certificate (a plane that proves nothing can)
//! and a margin (signed distance to the boundary). The physical layer (`scene`) turns
//! contacts, masses and edits into cone tests.
//!
//! ```
//! use planar_hold::{Backend, Batch, Case, Engine, Options, Verdict};
//!
//! // docs/contract-planar.md §6: a flat box on two floor corners, μ = 0.2, holding its own weight.
//! let gens = [[0.2, 1.0, 0.8], [-0.2, 1.0, 1.2], [0.2, 1.0, -1.2], [-0.2, 1.0, -0.8]];
//! let case = Case::new(&gens, [0.0, 1.0, 0.0])?;
//! let engine = Engine::new(Backend::Cpu)?; // or Backend::Gpu
//! let outcome = engine.evaluate(&Batch::from([case]), Options::default())?.planar[0];
//! assert_eq!(outcome.verdict(), Verdict::Supported);
//! assert_eq!(outcome.witness().unwrap().indices, vec![0, 3]); // ½·A₊ + ½·B₋
//! assert!((outcome.margin - 0.19612).abs() < 1e-5); // μ/√(1+μ²): sliding binds
//! # Ok::<(), planar_hold::Error>(())
//! ```

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod details;
mod device;
mod draw;
mod engine;
mod error;
mod general;
mod gpu;
pub mod io;
mod planar;
mod probe;
mod rng;
mod scene;
mod simd;
mod verdict;

// The door: one engine (on a backend, CPU or GPU), a batch of cases, options, the answers.
pub use engine::{Answer, Answers, Backend, Batch, CaseId, CaseKind, Engine, Options, Threads};
pub use error::Error;
pub use verdict::Verdict;

// The planar question: a cone in R³ of at most 16 generators (the enumeration).
pub use planar::types::{Case, Outcome, Witness, MARGIN_CAP, MAX_GENERATORS, NO_BINDING};

// The general question: a cone in R³ or R⁶ (or a grasp's in R⁷) of up to 256 generators.
pub use general::{
    default_need, grasp::GraspOutcome, GeneralBatch, GeneralCase, GeneralOutcome,
    GENERAL_MARGIN_CAP, MAX_DIM, MAX_GENERAL_GENERATORS,
};

// Scenes (planar and spatial, with the support region) and grasps: the gate's lines.
pub use scene::{
    gate::{hold_reports, hold_reports_async, parse_line, Report, SceneLine},
    grasp::{GraspFacet, GraspRefined, GraspReport},
    region::SupportRegion,
    report::HoldReport,
    spatial::SpatialScene,
    spatial_report::SpatialReport,
    types::{Friction, Scene},
};
