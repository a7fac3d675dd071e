//! planar-hold: can frictional contacts hold a rigid body against gravity (or against any
//! wrench)? Answered exactly, in large batches, on the GPU (wgpu) or the CPU.
//!
//! Every question comes down to cone tests (is the need a non-negative combination of the
//! contacts' force generators?), each answered with a witness (forces that hold), a
//! certificate (a plane that proves nothing can) and a margin (how far from the boundary):
//!
//! - **planar cone tests**: R³, at most 16 generators, by an enumeration ([`Case`],
//!   [`Outcome`]; docs/contract-planar.md);
//! - **general cones** in R³ and R⁶, up to 256 generators ([`GeneralCase`],
//!   [`GeneralOutcome`]; docs/contract-general.md);
//! - **scenes**: planar boxes and spatial bodies on point, edge and face contacts, some of
//!   them sliding, read a line at a time ([`parse_line`]) and judged by the gate
//!   ([`hold_reports`]); a spatial stance with its **support region**, where the centre of
//!   mass may go ([`SupportRegion`]; docs/contract-scenes.md, docs/contract-spatial.md,
//!   docs/contract-support-region.md);
//! - **grasps**: the Ferrari–Canny quality q1, on friction pyramids or the exact circular
//!   (Coulomb) cones ([`GraspReport`]; docs/contract-grasp.md);
//! - **proofs**: each general answer's two bounds with a proof one checks in float64 apart
//!   from the engine ([`Options::proof`], [`details::proof`]; docs/proof.md).
//!
//! One door answers them all: an [`Engine`] on a [`Backend`] (CPU or GPU), a [`Batch`] of
//! cases of both kinds (planar and general), [`Options`], [`Answers`]. [`io`] reads and
//! writes the formats (JSON Lines, Parquet); [`details`] holds what power users need beyond
//! the door (the proof checker, the solver, the samplers, the pictures, the device).
//!
//! ```
//! use planar_hold::{Answer, Backend, Batch, Case, Engine, Options, Verdict};
//!
//! // docs/contract-planar.md §6: a flat box on two floor corners, μ = 0.2, holding its own weight.
//! let gens = [[0.2, 1.0, 0.8], [-0.2, 1.0, 1.2], [0.2, 1.0, -1.2], [-0.2, 1.0, -0.8]];
//! let case = Case::new(&gens, [0.0, 1.0, 0.0])?;
//! let engine = Engine::new(Backend::Cpu)?; // or Backend::Gpu
//! let mut batch = Batch::from([case]);
//! // A general case beside it: one wrench in R⁶, twice it needed.
//! let lift = batch.push_general(6, &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0], &[0.0, 0.0, 2.0, 0.0, 0.0, 0.0])?;
//! let answers = engine.evaluate(&batch, Options::default())?;
//! let outcome = answers.planar[0];
//! assert_eq!(outcome.verdict(), Verdict::Supported);
//! assert_eq!(outcome.witness().unwrap().indices, vec![0, 3]); // ½·A₊ + ½·B₋
//! assert!((outcome.margin - 0.19612).abs() < 1e-5); // μ/√(1+μ²): sliding binds
//! let Some(Answer::General(lifted)) = answers.get(lift) else { unreachable!() };
//! assert_eq!(lifted.verdict, Verdict::Supported);
//!
//! // A scene: the same box as a line of the gate, judged through the same engine.
//! let box_on_floor = planar_hold::parse_line(r#"{"id": "box", "half_size": 1.0, "contacts": [
//!     {"pair": 0, "p0": [-1, -1], "p1": [1, -1], "normal": [0, 1], "mu": 0.2}]}"#)?;
//! let reports = planar_hold::hold_reports(&engine, &[box_on_floor], Options::default())?;
//! assert!(reports[0].held());
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
mod scan;
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

// Scenes (planar and spatial, with the support region) and grasps: the gate's lines, what
// they are made of, and their reports.
pub use scene::{
    gate::{hold_reports, hold_reports_async, parse_line, Report, SceneLine},
    grasp::{GraspFacet, GraspRefined, GraspReport},
    region::SupportRegion,
    report::HoldReport,
    spatial::{FrictionModel, SpatialBody, SpatialContact, SpatialScene},
    spatial_report::SpatialReport,
    types::{Body, Contact, Friction, Scene},
};
