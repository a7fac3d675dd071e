//! Grasp quality, the Ferrari–Canny metric (SPEC-SPATIAL §6), on the general engine.
//!
//! `W = conv{w₁…w_K} ⊂ R⁶` and `q1 = min over unit u of h_W(u)`, `h_W(u) = maxᵢ u·wᵢ`. The
//! engine answers it in R⁷, on the cone over the lifted points: generators `gᵢ = (s, wᵢ)`
//! (`s` the largest |wᵢ|, so that the engine's relative tolerances are §6's ε relative to
//! max |wᵢ|), need `e = (1, 0, …, 0)`, `C = cone{gᵢ}`:
//!
//! - `e ∈ C ⇔ 0 ∈ W`. A facet of C with unit inward normal `(β, a)` (`βs + a·wᵢ ≥ 0`, equal
//!   on the facet) is the facet `(−a)·x ≤ βs` of W, of offset `βs/|a|`; `n·e = β` and
//!   `βs/|a| = sβ/√(1−β²)` grows with β, so the facet the engine's inside margin binds on is
//!   W's binding facet: `q1 = sβ/|a|`, weakest `u* = −a/|a|`. The facet set proven complete
//!   (§1a) is the lower bound.
//! - C not full-dimensional with `e ∈ C`: W lies in a hyperplane through 0, `q1 = 0` to
//!   rounding; the weakest direction is that hyperplane's normal.
//! - `e ∉ C`: the nearest point of C to e is `T·(s, p*)` with `p*` the point of W nearest
//!   to 0 (for a fixed p, the distance is least at `T·s = 1/(1 + |p|²/s²)` and grows with
//!   |p|), so the engine's nearest point, `Σ cᵢ gᵢ`, gives `p* = Σ cᵢwᵢ / Σ cᵢ`, a convex
//!   combination: `q1 = −|p*|`, weakest `u* = −p*/|p*|`.
//!
//! Every answer is checked here in float64 from the wrenches, trusting only the direction
//! the engine proposes: `h_W(u*)` is recomputed (an upper bound on q1) and reported as q1
//! only where it agrees with the engine's value within `ε·max|wᵢ|`; inside, the facet set
//! must be proven complete for force closure; outside, `p*` is rebuilt from its convex
//! weights and `h_W(u*) = −|p*|` (then `min q1 ≥ −|p*|` because `p* ∈ W`) is the proof.

use super::linalg::{dot, norm, pivoted, Vector};
use super::min_norm;
use super::proof::{self, Combination, InnerProof, Measure, NearestProof, Proof};
use super::solver::Solver;
use super::tolerance::{EPS, RANK_TOL};
use super::{GenSet, GeneralCase, GeneralOutcome, GRASP_DIM};
use crate::Verdict;

/// The grasp's verdict: force closure (0 inside W), not, or within tolerance of the
/// boundary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForceClosure {
    /// `q1 > ε·max|wᵢ|`, the facet set proven complete.
    True,
    /// `q1 < −ε·max|wᵢ|`: every wrench strictly on one side of a hyperplane through 0.
    False,
    /// Within tolerance of 0, or a proof that did not go through.
    #[default]
    Uncertain,
}

impl ForceClosure {
    /// `true`, `false` or `"uncertain"`, as the answers write it.
    pub(crate) fn as_json(&self) -> serde_json::Value {
        match self {
            ForceClosure::True => serde_json::Value::Bool(true),
            ForceClosure::False => serde_json::Value::Bool(false),
            ForceClosure::Uncertain => serde_json::Value::String("uncertain".into()),
        }
    }
}

/// The metric of one grasp, checked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GraspOutcome {
    /// Force closure, decided from the checked q1.
    pub force_closure: ForceClosure,
    /// `h_W(weakest)` recomputed from the wrenches: q1, within tolerance, where the proof
    /// went through; an upper bound on it always.
    pub q1: f64,
    /// The unit direction attaining q1: the wrench the contacts supply least of.
    pub weakest: [f64; 6],
    /// The generators on the binding plane `weakest·x = q1` (inside: W's binding facet;
    /// outside: the face nearest to 0). Empty when W is empty.
    pub generators: GenSet,
    /// The facet set q1 is the least over was proven complete (§1a), or the bound from below
    /// met it within tolerance; true on every answer that is not inside.
    pub margin_checked: bool,
    /// Outside: the point of W nearest to 0 (its convex combination was checked).
    pub nearest: Option<[f64; 6]>,
    /// The bound from below (docs/contract-grasp.md): inside, the radius of a ball about 0 that
    /// an inner hull of wrenches proven closed holds; outside, `−|p|` for the point `p` of W
    /// found; else `−min|wᵢ|` (a wrench of W is that close to 0). At most `q1`.
    pub q1_lower: f64,
}

/// The lifted cone of `wrenches` (K wrenches of R⁶, 6 numbers each) appended to `values`
/// as a case of [`GeneralBatch`](super::GeneralBatch) stores it: the need `(1, 0, …, 0)`,
/// then `(s, wᵢ)` for each wrench, `s` the largest |wᵢ| (1 when every wrench is zero).
pub(crate) fn lift(wrenches: &[f64], values: &mut Vec<f64>) {
    let s = scale(wrenches);
    values.reserve(GRASP_DIM * (wrenches.len() / 6 + 1));
    values.push(1.0);
    values.extend_from_slice(&[0.0; 6]);
    for w in wrenches.chunks_exact(6) {
        values.push(s);
        values.extend_from_slice(w);
    }
}

/// The lift's `s`: the largest wrench length, 1 when there is none.
fn scale(wrenches: &[f64]) -> f64 {
    let s = wrenches.chunks_exact(6).map(norm).fold(0.0, f64::max);
    if s > 0.0 {
        s
    } else {
        1.0
    }
}

/// A lifted case's wrenches and scale, read back from it.
struct Wrenches<'a> {
    case: &'a GeneralCase<'a>,
    s: f64,
}

impl Wrenches<'_> {
    fn len(&self) -> usize {
        self.case.len()
    }

    fn get(&self, i: usize) -> &[f64] {
        &self.case.generator(i)[1..]
    }

    /// `h_W(u) = maxᵢ u·wᵢ` (−∞ for no wrench).
    fn support(&self, u: &[f64; 6]) -> f64 {
        (0..self.len())
            .map(|i| dot(self.get(i), u))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// §6's tolerance: ε relative to max |wᵢ|.
    fn tol(&self) -> f64 {
        EPS * self.s
    }

    /// The generators within tolerance of the plane `u·x = h`.
    fn on_plane(&self, u: &[f64; 6], h: f64) -> GenSet {
        let mut on = GenSet::default();
        for i in 0..self.len() {
            if (dot(self.get(i), u) - h).abs() <= self.tol() {
                on.insert(i);
            }
        }
        on
    }

    /// The verdict of a checked `q1`: true only with the facet set proven complete.
    fn verdict(&self, q1: f64, complete: bool) -> ForceClosure {
        if q1 < -self.tol() {
            ForceClosure::False
        } else if q1 > self.tol() && complete {
            ForceClosure::True
        } else {
            ForceClosure::Uncertain
        }
    }
}

/// The metric of the grasp whose lifted cone is `case` (made by `lift` or
/// [`GeneralBatch::push_grasp`](super::GeneralBatch::push_grasp)) from the engine's answer
/// to it ([`crate::Engine::evaluate`] finishes every lifted grasp cone of a batch here),
/// every part checked in float64; `solver` (lent by the engine) searches again (the
/// facets) where the answer proves nothing.
pub fn finish(
    case: &GeneralCase<'_>,
    outcome: &GeneralOutcome,
    solver: &mut Solver,
) -> GraspOutcome {
    debug_assert_eq!(case.dim, GRASP_DIM);
    let w = Wrenches {
        case,
        s: case.generators.first().copied().unwrap_or(1.0),
    };
    if w.len() == 0 {
        return GraspOutcome {
            force_closure: ForceClosure::False,
            q1: f64::NEG_INFINITY,
            q1_lower: f64::NEG_INFINITY,
            margin_checked: true,
            ..GraspOutcome::default()
        };
    }
    let mut g = finish_upper(&w, outcome, solver);
    // The bound from below of the path that answered; else the nearest wrench's.
    let trivial = -(0..w.len())
        .map(|i| norm(w.get(i)))
        .fold(f64::INFINITY, f64::min);
    g.q1_lower = g.q1_lower.max(trivial).min(g.q1);
    g
}

/// [`finish`]'s value, weakest direction and proof, each path setting the bound from below
/// it proves (`q1_lower`, else −∞).
fn finish_upper(w: &Wrenches<'_>, outcome: &GeneralOutcome, solver: &mut Solver) -> GraspOutcome {
    let found = match outcome.verdict {
        Verdict::Supported if outcome.capped => None,
        Verdict::Supported => match &outcome.facet {
            Some(f) => inside(w, &f.normal, outcome.margin_checked).map(|(mut g, agrees)| {
                // The lifted cone's bound from below, β: the offset sβ/√(1 − β²) grows with it.
                let b = outcome.margin_lower.clamp(0.0, 1.0);
                g.q1_lower = w.s * b / (1.0 - b * b).max(0.0).sqrt();
                (g, agrees)
            }),
            None => Some((flat(w), true)),
        },
        Verdict::Unsupported | Verdict::Uncertain => outside(w, outcome),
    };
    match found {
        // Inside to the engine's tolerance, but its facet's h_W below −ε: 0 lies outside W
        // by more than q1's tolerance, which the nearest point proves.
        Some((g, true)) if g.q1 < -w.tol() && g.nearest.is_none() => {
            nearest(w).map(|(g, _)| g).unwrap_or(g)
        }
        Some((g, true)) => g,
        // The answer proves nothing: W's nearest point to 0 by Wolfe's search on the
        // wrenches themselves where 0 lies outside; else the facets, searched and proven
        // again; else any direction's h_W, an upper bound.
        other => nearest(w)
            .map(|(g, _)| g)
            .or_else(|| from_facets(w, solver).map(|(g, _)| g))
            .or(other.map(|(mut g, _)| {
                g.q1_lower = f64::NEG_INFINITY;
                g
            }))
            .unwrap_or_else(|| {
                let u = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
                GraspOutcome {
                    q1: w.support(&u),
                    q1_lower: f64::NEG_INFINITY,
                    weakest: u,
                    ..GraspOutcome::default()
                }
            }),
    }
}

/// From a lifted facet of unit normal `n = (β, a)` (checked by the engine; `β = n·e` its
/// margin), and whether `h_W` of its direction agrees with `sβ/|a|`.
fn inside(w: &Wrenches<'_>, n: &Vector, complete: bool) -> Option<(GraspOutcome, bool)> {
    let a: [f64; 6] = std::array::from_fn(|k| n[k + 1]);
    let na = norm(&a);
    if na.is_nan() || na <= 0.0 {
        return None;
    }
    let u = a.map(|x| -x / na);
    let engine = w.s * n[0] / na;
    let h = w.support(&u);
    let agrees = (h - engine).abs() <= w.tol();
    let g = GraspOutcome {
        force_closure: if agrees {
            w.verdict(h, complete)
        } else {
            ForceClosure::Uncertain
        },
        q1: h,
        q1_lower: if complete { h } else { f64::NEG_INFINITY },
        weakest: u,
        generators: w.on_plane(&u, h),
        margin_checked: complete,
        nearest: None,
    };
    Some((g, agrees))
}

/// W in a hyperplane through 0 (the lifted cone not full-dimensional, e in it): the
/// hyperplane's normal, of the sign with the smaller `h_W`.
fn flat(w: &Wrenches<'_>) -> GraspOutcome {
    let d = GRASP_DIM;
    let unit: Vec<Vector> = (0..w.len())
        .map(|i| {
            let g = w.case.generator(i);
            let l = norm(g);
            std::array::from_fn(|k| if k < d && l > 0.0 { g[k] / l } else { 0.0 })
        })
        .collect();
    let (basis, _) = pivoted(d, d, RANK_TOL, || {
        unit.iter().enumerate().map(|(i, u)| (i as u32, &u[..]))
    });
    let n = basis.complement();
    let a: [f64; 6] = std::array::from_fn(|k| n[k + 1]);
    let na = norm(&a);
    let u = if na > 0.0 {
        a.map(|x| x / na)
    } else {
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    };
    let (hp, hm) = (w.support(&u), w.support(&u.map(|x| -x)));
    let (u, h) = if hm < hp {
        (u.map(|x| -x), hm)
    } else {
        (u, hp)
    };
    GraspOutcome {
        force_closure: w.verdict(h, false),
        q1: h,
        // 0 lies in W (the engine's witness): q1 is 0, W having no interior.
        q1_lower: h.min(0.0),
        weakest: u,
        generators: w.on_plane(&u, h),
        margin_checked: true,
        nearest: None,
    }
}

/// From the engine's nearest point of C, `Σ cᵢgᵢ` (`nearest_len` generators): `p*` as a
/// convex combination, checked by `h_W(−p*/|p*|) = −|p*|`; and whether that held.
fn outside(w: &Wrenches<'_>, o: &GeneralOutcome) -> Option<(GraspOutcome, bool)> {
    let n = o.nearest_len as usize;
    let (idx, c) = (&o.witness_indices[..n], &o.witness_weights[..n]);
    let total: f64 = c.iter().sum();
    if n == 0 || total.is_nan() || total <= 0.0 || c.iter().any(|&x| x.is_nan() || x < 0.0) {
        return None;
    }
    let mut p = [0.0; 6];
    for (&i, &ci) in idx.iter().zip(c) {
        let wi = w.get(i as usize);
        for (pk, wk) in p.iter_mut().zip(wi) {
            *pk += ci / total * wk;
        }
    }
    let np = norm(&p);
    if np.is_nan() || np <= 0.0 {
        return None;
    }
    let u = p.map(|x| -x / np);
    let h = w.support(&u);
    // h ≥ u·p* = −|p*| always (p* ∈ W); h ≤ −|p*| + tol proves it the least.
    let proven = h <= -np + w.tol();
    let g = GraspOutcome {
        force_closure: if proven {
            w.verdict(h, true)
        } else {
            ForceClosure::Uncertain
        },
        q1: h,
        // p lies in W, so 0 is at most |p| from it.
        q1_lower: -np,
        weakest: u,
        generators: w.on_plane(&u, h),
        margin_checked: true,
        nearest: Some(p),
    };
    Some((g, proven))
}

/// W's nearest point to 0 by Wolfe's search over the wrenches (the engine's nearest point
/// in R⁷ did not prove itself: 0 within rounding of W's boundary, or its combination off),
/// with the corral it ends on: `None` unless the search found 0 outside W and proven so
/// (`h_W(−p/|p|) ≤ −|p| + ε·max|wᵢ|`).
fn wolfe_nearest(w: &Wrenches<'_>) -> Option<(min_norm::Corral, [f64; 6], [f64; 6], f64)> {
    let support = |u: &[f64; 6]| -> min_norm::Support {
        let (i, h) = (0..w.len())
            .map(|i| dot(w.get(i), u))
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a });
        let q: [f64; 6] = std::array::from_fn(|k| w.get(i)[k]);
        (h, q, i as u32)
    };
    let mut queries = 0;
    let mut c = min_norm::wolfe(
        support(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        support,
        |_, h, lower| h <= lower + 1e-15 * w.s,
        w.s,
        &mut queries,
        64 * w.len().max(8),
    );
    if c.end == min_norm::End::Inside || c.ids.iter().any(|&i| i as usize >= w.len()) {
        return None;
    }
    // The direction from the point made accurate to its own size; the point rebuilt from
    // its convex weights as the proof's checker will.
    let x = min_norm::refine(&mut c);
    let nx = norm(&x);
    let total: f64 = c.weights.iter().sum();
    if !(total > 0.0 && nx > 0.0) || c.weights.iter().any(|&x| x.is_nan() || x < 0.0) {
        return None;
    }
    let mut p = [0.0; 6];
    for (&i, &ci) in c.ids.iter().zip(&c.weights) {
        for (pk, wk) in p.iter_mut().zip(w.get(i as usize)) {
            *pk += ci / total * wk;
        }
    }
    let np = norm(&p);
    let u = x.map(|v| -v / nx);
    let h = w.support(&u);
    (np > 0.0 && np.is_finite() && h <= -np + w.tol()).then_some((c, p, u, h))
}

/// [`wolfe_nearest`] as the grasp's metric: `q1 = h_W(u*)`, `q1_lower = −|p*|`.
fn nearest(w: &Wrenches<'_>) -> Option<(GraspOutcome, bool)> {
    let (_, p, u, h) = wolfe_nearest(w)?;
    Some((
        GraspOutcome {
            force_closure: w.verdict(h, true),
            q1: h,
            q1_lower: -norm(&p),
            weakest: u,
            generators: w.on_plane(&u, h),
            margin_checked: true,
            nearest: Some(p),
        },
        true,
    ))
}

/// The point of W the engine's nearest point in R⁷ stands for, as [`outside`] rebuilds it.
fn engine_nearest(case: &GeneralCase<'_>, o: &GeneralOutcome) -> Option<[f64; 6]> {
    let w = Wrenches {
        case,
        s: case.generators.first().copied().unwrap_or(1.0),
    };
    outside(&w, o).and_then(|(g, _)| g.nearest)
}

/// Every facet of the lifted cone, proven complete or not, and the one of least `β`.
fn from_facets(w: &Wrenches<'_>, solver: &mut Solver) -> Option<(GraspOutcome, bool)> {
    let (facets, complete) = solver.facets_proven(w.case);
    if facets.is_empty() {
        return None;
    }
    let best = facets
        .iter()
        .min_by(|a, b| a.normal[0].total_cmp(&b.normal[0]))?;
    inside(w, &best.normal, complete)
}

/// The proof of a grasp's two bounds in its own measure (docs/proof.md: generators `(1, wᵢ)`,
/// x = e₀), from the engine's answer to its lifted cone (`outcome`, and `cone`, that answer's
/// proof) and the metric `g` read from it: inside, the inner hull's faces, which are the lifted
/// cone's; outside, the point `p` of W (its convex weights) and the plane `(0, weakest)`.
/// Checked here before it is returned ([`proof::check_answer`]): `None` where it does not pass
/// or there is none (the metric came from the whole facet set).
pub(crate) fn proof(
    case: &GeneralCase<'_>,
    g: &GraspOutcome,
    outcome: &GeneralOutcome,
    cone: Option<&Proof>,
) -> Option<Proof> {
    let s = case.generators.first().copied().unwrap_or(1.0);
    let lifted: Vec<f64> = (0..case.len())
        .flat_map(|i| std::iter::once(1.0).chain(case.generator(i)[1..].iter().copied()))
        .collect();
    // The engine's witness of e in the cone of (s, wᵢ), for the generators (1, wᵢ).
    let holds = || {
        outcome.witness().map(|(indices, weights)| Combination {
            generators: indices.to_vec(),
            weights: weights.iter().map(|w| w * s).collect(),
        })
    };
    let found = match (outcome.verdict, cone) {
        (Verdict::Supported, Some(Proof::Inner(p))) if p.lines.is_empty() => {
            Proof::Inner(InnerProof {
                measure: Measure::Grasp,
                interior: std::iter::once(1.0).chain([0.0; 6]).collect(),
                lines: Vec::new(),
                faces: p.faces.clone(),
                lower: g.q1_lower,
                upper: p.upper.clone(),
                holds: p.holds.as_ref().and(holds()),
                points: Vec::new(),
            })
        }
        // W flat through 0: the plane holding it (six independent wrenches on it), and the
        // witness of 0 in W.
        (Verdict::Supported, None) if outcome.facet.is_none() && !outcome.capped => {
            let on: Vec<(u32, &[f64])> = g
                .generators
                .iter()
                .map(|i| {
                    (
                        i,
                        &lifted[i as usize * GRASP_DIM..(i as usize + 1) * GRASP_DIM],
                    )
                })
                .collect();
            let (basis, picked) =
                pivoted(GRASP_DIM, GRASP_DIM - 1, RANK_TOL, || on.iter().copied());
            if basis.len() != GRASP_DIM - 1 {
                // W spans less than a hyperplane (μ = 0 with every normal through the
                // reference point: pure forces): the witness's point of W, within rounding
                // of 0, and the plane (0, weakest), which every wrench lies on.
                let holds = holds()?;
                return proof_checked(
                    case,
                    &lifted,
                    g,
                    Proof::Nearest(NearestProof {
                        measure: Measure::Grasp,
                        generators: holds.generators,
                        weights: holds.weights,
                        plane: std::iter::once(0.0).chain(g.weakest).collect(),
                        points: Vec::new(),
                    }),
                );
            }
            Proof::Inner(InnerProof {
                measure: Measure::Grasp,
                interior: std::iter::once(1.0).chain([0.0; 6]).collect(),
                lines: Vec::new(),
                faces: Vec::new(),
                lower: g.q1_lower.min(0.0),
                upper: picked[..GRASP_DIM - 1].to_vec(),
                holds: Some(holds()?),
                points: Vec::new(),
            })
        }
        (Verdict::Unsupported | Verdict::Uncertain, _)
            if g.nearest.is_some() && g.nearest == engine_nearest(case, outcome) =>
        {
            let n = outcome.nearest_len as usize;
            Proof::Nearest(NearestProof {
                measure: Measure::Grasp,
                generators: outcome.witness_indices[..n].to_vec(),
                weights: outcome.witness_weights[..n].to_vec(),
                plane: std::iter::once(0.0).chain(g.weakest).collect(),
                points: Vec::new(),
            })
        }
        // The nearest point found by Wolfe's search on the wrenches (the same search as
        // [`finish`]'s, so the same point).
        _ if g.nearest.is_some() => {
            let (c, p, _, _) = wolfe_nearest(&Wrenches { case, s })?;
            if Some(p) != g.nearest {
                return None;
            }
            Proof::Nearest(NearestProof {
                measure: Measure::Grasp,
                generators: c.ids,
                weights: c.weights,
                plane: std::iter::once(0.0).chain(g.weakest).collect(),
                points: Vec::new(),
            })
        }
        _ => return None,
    };
    proof_checked(case, &lifted, g, found)
}

/// `found` where [`proof::check_answer`] passes it for the answer `g`, else `None`.
fn proof_checked(
    case: &GeneralCase<'_>,
    lifted: &[f64],
    g: &GraspOutcome,
    found: Proof,
) -> Option<Proof> {
    let s = case.generators.first().copied().unwrap_or(1.0);
    let e: Vec<f64> = std::iter::once(1.0).chain([0.0; 6]).collect();
    proof::check_answer(
        lifted,
        GRASP_DIM,
        &e,
        &found,
        g.q1,
        g.q1_lower,
        g.margin_checked,
        EPS * s,
        f64::INFINITY,
    )
    .ok()
    .map(|_| found)
}
