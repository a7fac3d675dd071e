//! Physical layer (docs/contract-planar.md §2, §3, §8, §9): contacts, bodies, needs, robust margin, the gate over an edit.
//!
//! One JSON Lines input line ([`parse_line`]) is a planar [`Scene`] (contacts, or an edit:
//! contacts `before` and `after`, resolved into the kept contacts of docs/contract-planar.md §9) or, with
//! `"dim": 3`, a [`SpatialScene`] (docs/contract-spatial.md and docs/contract-scenes.md: a 3-D body on point, edge and face
//! contacts). A scene turns into one cone test per corner of its mass × centre-of-mass box;
//! [`hold_reports`] runs the cone tests of many lines in one batch through the engine and
//! judges each line ([`judge`], [`judge_general`], [`judge_spatial`]); a spatial report also
//! carries the support region ([`region`]). [`hold_reports_async`] is the same gate awaited (the page).
//!
//! Conventions (all computed in f64, cast to f32 only for the cone test):
//! - the normal is normalised; the tangent is `t = (n_z, −n_x)`; the rays at each endpoint are
//!   `n + μt` then `n − μt`, with `μ` the lower end of its interval, at most [`MU_MAX`];
//! - each contact gives 4 generators in the order (p0, +), (p0, −), (p1, +), (p1, −), also a
//!   point contact (`p0 = p1`); a sliding contact (`slip`, docs/contract-scenes.md §7) gives
//!   2, its one ray `n − μ·sign(v·t)·t` at p0 then p1 ([`sliding_ray`], the one place of that
//!   formula, planar and spatial); contacts keep their input order (for an edit: the order of
//!   `before`);
//! - the needs are the corners of mass × centre-of-mass offset, mass outer, offset inner, each
//!   interval lower end first; an interval whose ends are equal (or that is absent) gives one value;
//!   `need = (0, m/m0, −(m/m0)·x/ℓ)`.
//!
//! One file per subject: `types` (planar contacts, bodies, scenes, needs, generators),
//! `parse` (one planar JSON line into a scene), `edit` (the kept contacts of an edit),
//! `report` (planar outcomes judged into hold reports), `spatial` (3-D contacts, pyramids,
//! wrenches, needs), `spatial_parse`, `spatial_report` (the spatial verdict, `"coulomb"`'s
//! bracket), `region` (the support region), `gate` (both kinds of line, batched), `sample`
//! (random boxes of point contacts, and the mixed workload of the demo and the benches).

pub(crate) mod edit;
pub(crate) mod gate;
pub(crate) mod grasp;
pub(crate) mod parse;
pub(crate) mod region;
pub(crate) mod report;
pub(crate) mod sample;
pub(crate) mod slip;
pub(crate) mod spatial;
pub(crate) mod spatial_parse;
pub(crate) mod spatial_report;
pub(crate) mod types;

pub(crate) use grasp::GraspReport;
pub(crate) use report::HoldReport;
pub(crate) use report::NeedReport;
pub(crate) use spatial::{tangent_basis, Twist};
pub(crate) use spatial::{FrictionModel, SpatialContact};
pub(crate) use spatial::{Pyramid, SpatialScene};
#[cfg(feature = "arrow")]
pub(crate) use spatial_parse::grasp_from_fields;
pub(crate) use spatial_report::SpatialReport;
pub(crate) use types::edge_rays;
pub(crate) use types::Scene;
pub(crate) use types::{Contact, GeneratorSource};

/// The largest friction coefficient the generators use: a larger μ (up to "no slip", 1e6 or
/// more) is taken as this one. The edge rays `n ± μt` of a larger μ lie within `1/μ` of the
/// tangent, and docs/contract-planar.md §7's tolerance ε = 1e-5 cannot tell them from it: from μ ≈ 1e5 on, the
/// apex `−need` supports such a cone within ε and the answer would turn to "unsupported" as μ
/// grows; well before, every witness needs forces ~μ times the need, beyond float32's
/// resolution at docs/contract-planar.md §7's ε·|need|. A smaller μ only shrinks the cone (docs/contract-planar.md §8), so a scene
/// held at this μ is held at any larger one, and its margin is a lower bound of the true one.
pub(crate) const MU_MAX: f64 = 100.0;

/// Relative tolerance (times the half-size ℓ) for "on the old contact's line" and for a
/// segment that is a point, in the edit resolution of docs/contract-planar.md §9.
pub(crate) const LINE_TOLERANCE: f64 = 1e-6;
