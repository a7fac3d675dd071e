//! The general engine's tolerances, in one place that the solver, the checks and the
//! completeness proof all read (none of them owns another's constants).

/// docs/contract-general.md's relative tolerance in float64.
pub(crate) const EPS: f64 = 1e-9;

/// Independence threshold of the rank test, relative (unit vectors): a generator within
/// this of the span of others adds no dimension.
pub(crate) const RANK_TOL: f64 = 1e-8;

/// A generator lies on a plane when `|n·w| ≤ ON_TOL·|w|` (the double description's rays,
/// the certificate's plane).
pub(crate) const ON_TOL: f64 = 1e-10;

/// A generator lies on a facet when `|n·w| ≤ FACET_ON·|w|`: docs/contract-general.md's ε, the
/// tolerance a facet supports the generators within, so that every generator is either on
/// a checked facet or clearly inside it, and two estimates of one plane agree on it.
pub(crate) const FACET_ON: f64 = EPS;

/// A support region's tolerance, relative to its length unit (a scene's half-size ℓ): its
/// inner and outer polygons meet when within this of each other (Hausdorff distance), and
/// a vertex of the outer polygon lies on its lines within it (docs/contract-support-region.md).
pub(crate) const REGION_TOL: f64 = 1e-9;
