//! The support region (docs/contract-support-region.md): the horizontal centre-of-mass offsets `δ` at which
//! the contacts hold the body at the nominal mass. The need is affine in `δ`
//! ([`region_map`]), so the region is a convex polygon (possibly unbounded, a segment, a
//! point or empty); it does not depend on the mass (the need scales with it). Reported
//! clipped to `|δ_x|, |δ_y| ≤ 4ℓ` ([`REGION_BOX`] half-sizes), vertices counter-clockwise.
//!
//! It is asked of the engine's solver ([`Solver::project`]: iterative projection, an inner
//! polygon of witnessed points and an outer one of planes that hold the region, refined
//! until they meet, with a proof [`check_support_region`] checks). [`Route::Whole`] cuts it
//! from the cone's whole facet set instead (proven complete), as before the projection: for
//! tests and comparisons.
//!
//! There, a cone that is not full-dimensional (one point contact, a pinch) holds only needs
//! in its span S: the cone `C + S^⊥` (C with ± a basis of S's complement added) is
//! full-dimensional with C's relative facets as its own, and `need(δ) ∈ S` is a few linear
//! equations in `δ`: the region is then a segment or a point (or empty).

use serde::Serialize;

use super::spatial::{main_pyramid, SpatialBody, SpatialScene};
use crate::general::linalg::Basis;
use crate::general::proof::{check_region, RegionChecked, RegionMap, RegionProof};
use crate::general::solver::{Route, Solver, RANK_TOL};
use crate::general::GeneralCase;

/// The clip box's half-width, in half-sizes ℓ.
pub(crate) const REGION_BOX: f64 = 4.0;

/// How far outside a half-plane (relative to ℓ) a point may lie and count as on it: the
/// facets are float64 planes, and a region of zero area (a segment) must not vanish.
const SLACK: f64 = 1e-10;

/// The support region's polygon and what it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SupportRegion {
    /// Vertices `[δ_x, δ_y]`, counter-clockwise, in the scene's length unit; none when empty.
    pub vertices: Vec<[f64; 2]>,
    /// "polygon", "segment", "point" or "empty".
    pub shape: &'static str,
    /// The region reaches the clip box (unbounded, or larger than the box), or lies
    /// beyond it (then `vertices` is empty).
    pub clipped: bool,
    /// The inner and outer polygons meet within 1e-9 ℓ, the proof checked (the whole
    /// facet set's route: cut from a facet set proven complete). False: `vertices` is the
    /// bound from above, `inner` the bound from below.
    pub checked: bool,
    /// The inner polygon: witnessed points, counter-clockwise (empty on the whole facet
    /// set's route, or when no point is witnessed).
    pub inner: Vec<[f64; 2]>,
    /// The proof of both polygons, when asked for and one passed.
    pub proof: Option<RegionProof>,
}

/// A half-plane `a·δ + b ≥ 0`, `|a| = 1` (so the value is a signed distance).
#[derive(Clone, Copy, Debug)]
struct HalfPlane {
    a: [f64; 2],
    b: f64,
}

impl HalfPlane {
    fn value(&self, p: [f64; 2]) -> f64 {
        self.a[0] * p[0] + self.a[1] * p[1] + self.b
    }
}

/// The half-plane of `δ` where `n·need(δ) ≥ 0`, need = a·(e₂ + δ_y/ℓ e₃ − δ_x/ℓ e₄): `None`
/// when `n` does not depend on δ; `Err(())` when it excludes every δ.
fn half_plane(n: &[f64], half_size: f64) -> Result<Option<HalfPlane>, ()> {
    let a = [-n[4], n[3]];
    let len = a[0].hypot(a[1]);
    if len <= 1e-12 {
        return if n[2] < -1e-9 { Err(()) } else { Ok(None) };
    }
    Ok(Some(HalfPlane {
        a: [a[0] / len, a[1] / len],
        b: n[2] * half_size / len,
    }))
}

/// The affine map of `body`'s need at the nominal mass, `δ` in its half-size ℓ, and the clip
/// box (docs/contract-spatial.md §1: `need(δ) = (0, 0, 1, δ_y/ℓ, −δ_x/ℓ, 0)`).
pub fn region_map(body: &SpatialBody) -> RegionMap {
    let l = body.half_size;
    let at = |x: f64, y: f64| body.need(body.mass_nominal, [x * l, y * l]);
    let origin = at(0.0, 0.0);
    let axis = |n: [f64; 6]| std::array::from_fn(|i| n[i] - origin[i]);
    RegionMap {
        origin,
        axes: [axis(at(1.0, 0.0)), axis(at(0.0, 1.0))],
        unit: l,
        half_width: REGION_BOX,
    }
}

/// The support region of the cone of `generators` (R⁶, the scene's main pyramid) for
/// `body`, by `solver`'s route; with its proof when `proof`.
pub fn support_region(
    solver: &mut Solver,
    generators: &[[f64; 6]],
    body: &SpatialBody,
    proof: bool,
) -> SupportRegion {
    if solver.route() == Route::Whole {
        return whole_facet_set(solver, generators, body.half_size);
    }
    let map = region_map(body);
    let p = solver.project(generators.as_flattened(), &map);
    let shape = match p.outer.len() {
        0 => "empty",
        1 => "point",
        2 => "segment",
        _ => "polygon",
    };
    SupportRegion {
        vertices: p.outer,
        shape,
        clipped: p.clipped,
        checked: p.closed,
        inner: p.inner,
        proof: if proof { p.proof } else { None },
    }
}

/// Checks a spatial scene's support region (`region`, reported `checked`) against its
/// `proof` (`check_region`, on the scene's main pyramid at its own k): the gap found, or
/// why the proof fails.
pub fn check_support_region(
    scene: &SpatialScene,
    region: &[[f64; 2]],
    checked: bool,
    proof: &RegionProof,
) -> Result<RegionChecked, String> {
    let g = scene.generators(scene.pyramid, main_pyramid(scene.friction));
    check_region(
        g.as_flattened(),
        &region_map(&scene.body),
        region,
        checked,
        proof,
    )
}

/// The support region cut from the whole facet set of the cone ([`Route::Whole`]).
fn whole_facet_set(solver: &mut Solver, generators: &[[f64; 6]], half_size: f64) -> SupportRegion {
    // In units of ℓ (u = δ/ℓ) whatever the scene's scale; scaled back at the end.
    let l = 1.0;
    let r = REGION_BOX;
    let tol = SLACK;
    let mut span = Basis::new(6);
    for g in generators {
        span.push(g, RANK_TOL);
    }
    let mut flat: Vec<f64> = generators.concat();
    let mut equations = Vec::new();
    while span.len() < 6 {
        let c = span.complement();
        let q: [f64; 6] = std::array::from_fn(|a| c[a]);
        span.push(&q, 0.0);
        flat.extend_from_slice(&q);
        flat.extend(q.iter().map(|v| -v));
        equations.push(q);
    }
    let need = crate::general::default_need(6);
    let Ok(case) = GeneralCase::new(6, &flat, need) else {
        return SupportRegion::empty();
    };
    // need(δ) ∈ S: q·need(δ) = 0 for each q of S's complement, two-sided half-planes.
    let mut lines = Vec::new();
    for q in &equations {
        match half_plane(q, 1.0) {
            Err(()) => return SupportRegion::empty(),
            Ok(None) if q[2].abs() > 1e-9 => return SupportRegion::empty(),
            Ok(None) => {}
            Ok(Some(h)) => lines.push(h),
        }
    }
    // Every facet of the cone, each checked, the set proven complete (docs/contract-general.md §8):
    // the region is then exactly the polygon their half-planes cut.
    let (facets, complete) = solver.facets_proven(&case);
    let mut planes = Vec::with_capacity(facets.len());
    for f in &facets {
        match half_plane(&f.normal, 1.0) {
            Err(()) => {
                return SupportRegion {
                    checked: complete,
                    ..SupportRegion::empty()
                }
            }
            Ok(Some(h)) => planes.push(h),
            Ok(None) => {}
        }
    }
    let mut region = polygon(&lines, &planes, r, tol, l);
    region.checked = complete;
    for v in &mut region.vertices {
        *v = v.map(|c| c * half_size);
    }
    region
}

/// The region the half-planes cut, in units of ℓ: exact first; a region of no area (a
/// segment, a point) may not survive exact cuts in floating point, so then with the slack;
/// when empty in the box, whether it lies beyond it (then clipped).
fn polygon(lines: &[HalfPlane], planes: &[HalfPlane], r: f64, tol: f64, l: f64) -> SupportRegion {
    let exact = cut(lines, planes, r, 0.0);
    let mut region = SupportRegion::from_polygon(exact, l, r);
    if region.shape != "polygon" {
        region = SupportRegion::from_polygon(cut(lines, planes, r, tol), l, r);
    }
    if region.shape == "empty" {
        let far = 1e6 * r;
        let beyond = SupportRegion::from_polygon(cut(lines, planes, far, tol), l, far);
        region.clipped = beyond.shape != "empty";
    }
    region
}

/// The clip box cut by the two sides of each line (a segment or a point), then by each
/// half-plane, every one loosened by `tol`.
fn cut(lines: &[HalfPlane], planes: &[HalfPlane], r: f64, tol: f64) -> Vec<[f64; 2]> {
    let mut poly = vec![[-r, -r], [r, -r], [r, r], [-r, r]];
    for h in lines {
        poly = clip(&poly, h, tol);
        let opposite = HalfPlane {
            a: [-h.a[0], -h.a[1]],
            b: -h.b,
        };
        poly = clip(&poly, &opposite, tol);
    }
    for h in planes {
        poly = clip(&poly, h, tol);
    }
    poly
}

/// Sutherland–Hodgman: the part of the convex polygon `poly` where `h ≥ −tol`.
fn clip(poly: &[[f64; 2]], h: &HalfPlane, tol: f64) -> Vec<[f64; 2]> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    let n = poly.len();
    for i in 0..n {
        let p = poly[i];
        let q = poly[(i + 1) % n];
        let (vp, vq) = (h.value(p) + tol, h.value(q) + tol);
        if vp >= 0.0 {
            out.push(p);
        }
        if (vp >= 0.0) != (vq >= 0.0) {
            let t = vp / (vp - vq);
            out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
        }
    }
    out
}

impl SupportRegion {
    fn empty() -> SupportRegion {
        SupportRegion {
            vertices: Vec::new(),
            shape: "empty",
            clipped: false,
            checked: true,
            inner: Vec::new(),
            proof: None,
        }
    }

    /// Vertices merged within a millionth of the slack's scale, collinear ones dropped, the
    /// shape named from the extent: a polygon thinner than the slack is a segment.
    fn from_polygon(poly: Vec<[f64; 2]>, l: f64, r: f64) -> SupportRegion {
        let close = 4.0 * SLACK * l;
        let mut v: Vec<[f64; 2]> = Vec::with_capacity(poly.len());
        for p in poly {
            if v.last().is_none_or(|q| dist(*q, p) > close) {
                v.push(p);
            }
        }
        while v.len() > 1 && dist(v[0], v[v.len() - 1]) <= close {
            v.pop();
        }
        if v.is_empty() {
            return SupportRegion::empty();
        }
        let clipped = v
            .iter()
            .any(|p| p[0].abs() >= r * (1.0 - 1e-12) || p[1].abs() >= r * (1.0 - 1e-12));
        // The farthest pair and the widest point off their line say what it is.
        let (mut a, mut b, mut far) = (0, 0, 0.0);
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                let d = dist(v[i], v[j]);
                if d > far {
                    (a, b, far) = (i, j, d);
                }
            }
        }
        if far <= close {
            let c = centroid(&v);
            return SupportRegion {
                vertices: vec![c],
                shape: "point",
                clipped,
                checked: true,
                inner: Vec::new(),
                proof: None,
            };
        }
        let (pa, pb) = (v[a], v[b]);
        let width = v
            .iter()
            .map(|&p| {
                ((pb[0] - pa[0]) * (p[1] - pa[1]) - (pb[1] - pa[1]) * (p[0] - pa[0])).abs() / far
            })
            .fold(0.0, f64::max);
        if width <= close {
            return SupportRegion {
                vertices: vec![pa, pb],
                shape: "segment",
                clipped,
                checked: true,
                inner: Vec::new(),
                proof: None,
            };
        }
        // Counter-clockwise: Sutherland–Hodgman keeps the box's orientation; drop vertices
        // on the line of their neighbours.
        let mut out: Vec<[f64; 2]> = Vec::with_capacity(v.len());
        let n = v.len();
        for i in 0..n {
            let (p, q, s) = (v[(i + n - 1) % n], v[i], v[(i + 1) % n]);
            let c = (q[0] - p[0]) * (s[1] - p[1]) - (q[1] - p[1]) * (s[0] - p[0]);
            if c.abs() > close * dist(p, s) {
                out.push(q);
            }
        }
        SupportRegion {
            vertices: out,
            shape: "polygon",
            clipped,
            checked: true,
            inner: Vec::new(),
            proof: None,
        }
    }
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn centroid(v: &[[f64; 2]]) -> [f64; 2] {
    let n = v.len() as f64;
    let s = v.iter().fold([0.0, 0.0], |s, p| [s[0] + p[0], s[1] + p[1]]);
    [s[0] / n, s[1] / n]
}
