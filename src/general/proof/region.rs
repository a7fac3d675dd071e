//! The proof of a support region and its checker (docs/contract-support-region.md §4):
//! dot products and 2 × 2 determinants only, no solver, no hull.
//!
//! A region is the set of points `δ` of a plane (the centre of mass's horizontal offset)
//! whose need `need(δ) = o + (δ_x/ℓ) a_x + (δ_y/ℓ) a_y` lies in the cone C of the generators,
//! clipped to the box `|δ_x|, |δ_y| ≤ rℓ` ([`RegionMap`]). Its proof has two sides:
//!
//! - **inner**: points of the region, each with a witness (generators and weights ≥ 0 whose
//!   sum is `need(δ)`): their convex hull lies in the region;
//! - **outer**: lines, each a plane `z` of R⁶ with every generator on its side (`z·wᵢ ≥ 0`,
//!   so `{δ : z·need(δ) ≥ 0}` holds the region) or a side of the box, in counter-clockwise
//!   order around the reported polygon, each naming (`from`) the reported vertex its edge
//!   starts at. Consecutive lines turn left by less than a half turn, once around in all, and
//!   the vertex between them lies on both within `tol·cos(β/2)` (β the turn): then the
//!   lines' intersection lies within `tol` of the reported polygon (its support function
//!   exceeds the polygon's by at most that in every direction), and the reported polygon
//!   within `tol` of it (every vertex inside every line).
//!
//! The gap is the largest distance from a reported vertex to the inner points' hull: the
//! Hausdorff distance between the two polygons. Checked means it is within `tol`.
//!
//! Comparisons are written `!(x > t)` where a NaN must fail them.

#![allow(clippy::neg_cmp_op_on_partial_ord)]

use serde::{Deserialize, Serialize};

use crate::general::check;
use crate::general::linalg::{dot, norm};
use crate::general::tolerance::{EPS, REGION_TOL};
use crate::general::GeneralCase;

/// The affine map from a point `δ` of the region's plane to its need:
/// `need(δ) = origin + (δ_x/unit)·axes[0] + (δ_y/unit)·axes[1]`, and the clip box
/// `|δ_x|, |δ_y| ≤ half_width·unit`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionMap {
    /// The need at δ = 0.
    pub origin: [f64; 6],
    /// The need's change per `unit` of δ_x and of δ_y.
    pub axes: [[f64; 6]; 2],
    /// The length unit of δ (a scene's half-size ℓ): tolerances are relative to it.
    pub unit: f64,
    /// The clip box's half-width, in units.
    pub half_width: f64,
}

impl RegionMap {
    /// `need(u·unit)`: the need at `u`, in units.
    pub(crate) fn need(&self, u: [f64; 2]) -> [f64; 6] {
        std::array::from_fn(|i| self.origin[i] + u[0] * self.axes[0][i] + u[1] * self.axes[1][i])
    }

    /// The half-plane `{u : z·need(u) ≥ 0}` as `(a, b)` with `z·need(u) = a·u + b`.
    pub(crate) fn half_plane(&self, z: &[f64; 6]) -> ([f64; 2], f64) {
        (
            [dot(z, &self.axes[0]), dot(z, &self.axes[1])],
            dot(z, &self.origin),
        )
    }
}

/// A side of the clip box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoxSide {
    /// `δ_x ≤ r`.
    #[serde(rename = "+x")]
    PlusX,
    /// `δ_x ≥ −r`.
    #[serde(rename = "-x")]
    MinusX,
    /// `δ_y ≤ r`.
    #[serde(rename = "+y")]
    PlusY,
    /// `δ_y ≥ −r`.
    #[serde(rename = "-y")]
    MinusY,
}

impl BoxSide {
    /// Every side, counter-clockwise from the bottom (as a box's edges run from `(−r, −r)`).
    pub(crate) const ALL: [BoxSide; 4] = [
        BoxSide::MinusY,
        BoxSide::PlusX,
        BoxSide::PlusY,
        BoxSide::MinusX,
    ];

    /// The side's unit inward normal `n` and offset `c` (`n·u + c ≥ 0` inside), in units.
    pub(crate) fn line(self, half_width: f64) -> ([f64; 2], f64) {
        match self {
            BoxSide::PlusX => ([-1.0, 0.0], half_width),
            BoxSide::MinusX => ([1.0, 0.0], half_width),
            BoxSide::PlusY => ([0.0, -1.0], half_width),
            BoxSide::MinusY => ([0.0, 1.0], half_width),
        }
    }
}

/// What an outer line is.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// A plane `z` of R⁶ with every generator on its side: the half-plane
    /// `{δ : z·need(δ) ≥ 0}`.
    Plane([f64; 6]),
    /// A side of the clip box.
    Box(BoxSide),
}

/// An outer line and the reported vertex its edge starts at.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OuterEdge {
    /// Index into the reported polygon; none for an empty region's plane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<usize>,
    /// The line.
    #[serde(flatten)]
    pub bound: Bound,
}

/// A point of the region and its witness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WitnessedPoint {
    /// `[δ_x, δ_y]`, in the map's length unit (not in units of it).
    pub at: [f64; 2],
    /// Generator indices.
    pub generators: Vec<u32>,
    /// Their weights (≥ 0): `Σ weights[k]·w[generators[k]] = need(at)`.
    pub weights: Vec<f64>,
}

/// A support region's proof, its `"support_region_proof"`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionProof {
    /// Witnessed points, counter-clockwise: the inner polygon.
    pub inner: Vec<WitnessedPoint>,
    /// The outer lines, counter-clockwise (an empty region: one plane that misses the box).
    pub outer: Vec<OuterEdge>,
    /// The largest distance from a reported vertex to the inner polygon, in the length unit.
    pub gap: f64,
}

/// What a region's proof was checked to give.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionChecked {
    /// The gap the checker found (length unit): the Hausdorff distance between the
    /// reported polygon and the inner one (infinite without inner points).
    pub gap: f64,
}

/// The distance from `p` to the convex hull of `poly` (counter-clockwise; one point, two,
/// or a polygon): 0 inside; infinite when `poly` is empty. A list that is not convex and
/// counter-clockwise gets a distance no smaller than the true one.
pub fn distance_to_polygon(p: [f64; 2], poly: &[[f64; 2]]) -> f64 {
    let n = poly.len();
    if n == 0 {
        return f64::INFINITY;
    }
    // The nearest point of each segment, kept as its offset from p: one square root at the
    // end instead of one a segment.
    let seg = |a: [f64; 2], b: [f64; 2]| {
        let (ab, ap) = ([b[0] - a[0], b[1] - a[1]], [p[0] - a[0], p[1] - a[1]]);
        let len2 = ab[0] * ab[0] + ab[1] * ab[1];
        let t = if len2 > 0.0 {
            (dot(&ab, &ap) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let off = [ap[0] - t * ab[0], ap[1] - t * ab[1]];
        (off[0] * off[0] + off[1] * off[1], off)
    };
    let mut area = 0.0;
    let mut inside = true;
    let mut best = (f64::INFINITY, [f64::INFINITY, 0.0]);
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        area += a[0] * b[1] - a[1] * b[0];
        inside &= (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0.0;
        let s = seg(a, b);
        // A NaN (a vertex that is no number) is taken, and makes the distance NaN: every
        // comparison with it then fails, as a checker's must.
        if !(s.0 >= best.0) && !best.0.is_nan() {
            best = s;
        }
    }
    if n >= 3 && inside && area > 0.0 {
        0.0
    } else {
        best.1[0].hypot(best.1[1])
    }
}

/// Checks a support region's `proof` for the cone of `generators` (K vectors of R⁶, six
/// numbers each) under `map`: the `region` reported (vertices in the length unit, as the
/// answer's `support_region`) and whether it is reported `checked`. Each witness must
/// reproduce its need and each plane support every generator (docs/contract-general.md's
/// ε); the outer lines must turn once around the reported polygon with its vertices on
/// them, every reported and inner vertex inside every line, and, when checked, the gap
/// within `REGION_TOL` of the unit. Returns the gap found, or why the proof fails.
pub(crate) fn check_region(
    generators: &[f64],
    map: &RegionMap,
    region: &[[f64; 2]],
    checked: bool,
    proof: &RegionProof,
) -> Result<RegionChecked, String> {
    let unit = map.unit;
    if !(generators.len().is_multiple_of(6) && unit > 0.0 && unit.is_finite()) {
        return Err("the generators are not vectors of R^6, or the unit is not positive".into());
    }
    let k = generators.len() / 6;
    let g = |i: usize| &generators[i * 6..i * 6 + 6];
    let r = map.half_width;
    let tol = REGION_TOL;
    let to_u = |p: [f64; 2]| [p[0] / unit, p[1] / unit];
    let in_box = |u: [f64; 2]| u[0].abs() <= r + tol && u[1].abs() <= r + tol;
    // Inner: every point witnessed, in the box.
    let mut inner = Vec::with_capacity(proof.inner.len());
    for (t, p) in proof.inner.iter().enumerate() {
        let u = to_u(p.at);
        if !(u[0].is_finite() && u[1].is_finite() && in_box(u)) {
            return Err(format!("inner {t}: {:?} is not in the box", p.at));
        }
        let need = map.need(u);
        let case = GeneralCase {
            dim: 6,
            generators,
            need: &need,
        };
        if !check::witness(&case, &p.generators, &p.weights) {
            return Err(format!(
                "inner {t}: its generators and weights do not make need({:?})",
                p.at
            ));
        }
        inner.push(u);
    }
    // Outer: every plane supports every generator; each line as n·u + c ≥ 0, |n| = 1.
    let mut lines = Vec::with_capacity(proof.outer.len());
    for (t, e) in proof.outer.iter().enumerate() {
        let (n, c) = match e.bound {
            Bound::Box(side) => side.line(r),
            Bound::Plane(z) => {
                let nz = norm(&z);
                if !(nz > 0.0 && nz.is_finite()) {
                    return Err(format!("outer {t}: the plane is not a direction"));
                }
                if let Some(i) = (0..k).find(|&i| dot(&z, g(i)) < -EPS * nz * norm(g(i))) {
                    return Err(format!("outer {t}: generator {i} lies beyond its plane"));
                }
                let (a, b) = map.half_plane(&z);
                let na = a[0].hypot(a[1]);
                if region.is_empty() {
                    // An empty region: the plane's half-plane misses the box.
                    let most = b + r * (a[0].abs() + a[1].abs());
                    let scale =
                        nz * (norm(&map.origin) + r * (norm(&map.axes[0]) + norm(&map.axes[1])));
                    if most < -EPS * scale {
                        if !proof.inner.is_empty() {
                            return Err("an empty region with inner points".into());
                        }
                        return Ok(RegionChecked { gap: 0.0 });
                    }
                    return Err(format!("outer {t}: its half-plane meets the box"));
                }
                if !(na > 1e-12 * nz * (norm(&map.axes[0]) + norm(&map.axes[1]))) {
                    return Err(format!("outer {t}: the plane does not depend on the point"));
                }
                ([a[0] / na, a[1] / na], b / na)
            }
        };
        lines.push((n, c, e.from));
    }
    if region.is_empty() {
        return Err("an empty region without a plane that misses the box".into());
    }
    let vertices: Vec<[f64; 2]> = region.iter().map(|&p| to_u(p)).collect();
    let value =
        |l: &([f64; 2], f64, Option<usize>), u: [f64; 2]| l.0[0] * u[0] + l.0[1] * u[1] + l.1;
    // The lines in order around the reported vertices: `from` runs 0, …, n − 1, one step
    // or none at a time.
    let m = lines.len();
    let nv = vertices.len();
    let from: Vec<usize> = lines
        .iter()
        .enumerate()
        .map(|(t, l)| l.2.ok_or_else(|| format!("outer {t}: no `from` vertex")))
        .collect::<Result<_, _>>()?;
    if m < 2 || from[0] != 0 || from[m - 1] != nv - 1 {
        return Err(format!(
            "the outer lines do not run once around the {nv} reported vertices"
        ));
    }
    if let Some(t) = (1..m).find(|&t| from[t] != from[t - 1] && from[t] != from[t - 1] + 1) {
        return Err(format!("outer {t}: `from` skips a vertex"));
    }
    // Each turn left, less than a half turn, once around in all; the vertex between two
    // lines on both.
    let mut around = 0.0;
    for t in 0..m {
        let (a, b) = (&lines[t], &lines[(t + 1) % m]);
        let cross = a.0[0] * b.0[1] - a.0[1] * b.0[0];
        let cos = dot(&a.0, &b.0);
        let turn = cross.atan2(cos);
        if !(turn > -1e-12 && turn < std::f64::consts::PI) {
            return Err(format!("outer {t} to {}: not a left turn", (t + 1) % m));
        }
        around += turn;
        let v = vertices[from[(t + 1) % m]];
        let on = tol * ((1.0 + cos) / 2.0).max(0.0).sqrt();
        if !(value(a, v).abs() <= on && value(b, v).abs() <= on) {
            return Err(format!(
                "vertex {} is not where outer {t} and {} meet",
                from[(t + 1) % m],
                (t + 1) % m
            ));
        }
    }
    if (around - 2.0 * std::f64::consts::PI).abs() > 1e-6 {
        return Err(format!(
            "the outer lines turn {around} radians, not once around"
        ));
    }
    // Every reported and inner vertex inside every line.
    for (what, pts) in [("vertex", &vertices), ("inner", &inner)] {
        for (i, &u) in pts.iter().enumerate() {
            if let Some(t) = (0..m).find(|&t| value(&lines[t], u) < -tol) {
                return Err(format!("{what} {i} lies beyond outer {t}"));
            }
        }
    }
    let gap = vertices
        .iter()
        .map(|&u| distance_to_polygon(u, &inner))
        .fold(0.0, f64::max)
        * unit;
    if !(proof.gap >= gap - 1e-12 * unit) {
        return Err(format!(
            "the gap {} is less than the proof's, {gap}",
            proof.gap
        ));
    }
    if checked && !(gap <= tol * unit) {
        return Err(format!("checked, but the polygons are {gap} apart"));
    }
    Ok(RegionChecked { gap })
}
