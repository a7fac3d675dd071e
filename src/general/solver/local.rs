//! The inside margin by a local search with two bounds (docs/contract-general.md §9): an inner
//! hull of generators around the need ([`crate::general::hull`]) gives the bound from below,
//! a face of it that every generator supports gives the bound from above, and the search
//! grows the hull towards its face nearest the need (the expanding polytope of Zheng, the
//! EPA of collision libraries) until the nearest face supports every generator. It looks at
//! the facets near the need only: a handful of support queries (K dot products each) where
//! the whole facet set of a cone of 64 generators in R⁶ runs to thousands.

use super::columns::most_against;
use super::{lex_less, FoundFacet, Solver, MAX_DIM, RANK_TOL};
use crate::general::hull::Hull;
use crate::general::linalg::{dot, Vector};

/// The nearest face supports every generator when none lies beyond it by more than this
/// (unit vectors; well inside docs/contract-general.md's ε, so that the facet it stands for
/// passes the float64 check).
const STOP: f64 = 1e-10;

/// Faces this close to the nearest one (unit scale) are ties, all looked at.
const TIE: f64 = 1e-12;

/// Whether two unit normals are one plane.
fn same_plane(d: usize, a: &Vector, b: &Vector) -> bool {
    (0..d).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>() <= 1e-18
}

/// What the local search found.
#[derive(Clone, Copy, Debug)]
pub(super) struct Local {
    /// The least `n·x` over the hull's faces: a proven lower bound on the margin (unit scale).
    pub lower: f64,
    /// The facet the nearest face stands for, checked: its `n·x` is the upper bound.
    pub facet: FoundFacet,
}

impl Solver {
    /// The local search for the inside margin of the cone of the distinct generators,
    /// full-dimensional, around the unit need `x`, which the witness `witness` (generator
    /// indices with positive weights, independent) holds. `None` where the hull got stuck
    /// or no face closed: the caller then takes the whole facet set.
    pub(super) fn local_margin(&mut self, d: usize, x: &Vector, witness: &[u32]) -> Option<Local> {
        let mut hull = std::mem::take(&mut self.hull);
        let found = self.search(&mut hull, d, x, witness);
        self.hull = hull;
        found
    }

    fn search(&mut self, hull: &mut Hull, d: usize, x: &Vector, witness: &[u32]) -> Option<Local> {
        let (start, ids) = self.start(d, witness)?;
        hull.start(d, x, &start[..d], &ids[..d]).ok()?;
        let nd = self.distinct.len();
        let stride = self.positions().1;
        let mut mask = std::mem::take(&mut self.excluded);
        mask.clear();
        mask.resize(stride, 0.0);
        // Faces that every generator supports, least first: the first gives the bound from
        // above; those within TIE of it are the ties docs/contract-general.md breaks by index list.
        let mut closed: Vec<u32> = Vec::new();
        let mut least = f64::INFINITY;
        let mut stuck = false;
        for _ in 0..4 * nd + 8 {
            let Some(f) = hull.pop_nearest() else { break };
            let face = hull.faces[f as usize];
            if face.value > least + TIE {
                break;
            }
            let against = face.normal.map(|v| -v);
            let beyond = {
                let (soa, stride) = self.positions();
                most_against(self.simd, d, soa, stride, &against, &mask, STOP)
            };
            match beyond {
                None => {
                    closed.push(f);
                    least = least.min(face.value);
                }
                Some(t) => {
                    let i = self.distinct[t];
                    let u = self.unit[i as usize];
                    if hull.ids.contains(&i) || hull.add(&u, i, f).is_err() {
                        stuck = true;
                        break;
                    }
                }
            }
        }
        self.excluded = mask;
        if stuck {
            return None;
        }
        // The facets the closed faces stand for, checked; the least n·x, ties to the
        // lexicographically smallest index list.
        let mut best: Option<(f64, FoundFacet)> = None;
        let mut seen: Vec<Vector> = Vec::new();
        for &f in &closed {
            let face = hull.faces[f as usize];
            if !face.alive || seen.iter().any(|n| same_plane(d, n, &face.normal)) {
                continue;
            }
            seen.push(face.normal);
            let n = face.normal;
            let Some(facet) = self
                .facet_with_normal(d, &n)
                .filter(|f| self.spans_facet(d, f))
                .or_else(|| self.refine(d, &n))
            else {
                return None;
            };
            let m = dot(&facet.normal[..d], &x[..d]);
            best = match best {
                Some((bm, bf))
                    if m > bm + TIE || (m > bm - TIE && !lex_less(&facet.on, &bf.on)) =>
                {
                    Some((bm, bf))
                }
                _ => Some((m, facet)),
            };
        }
        best.map(|(_, facet)| Local {
            lower: hull.least(),
            facet,
        })
    }

    /// Whether the generators on `f` span d − 1 dimensions.
    fn spans_facet(&self, d: usize, f: &FoundFacet) -> bool {
        let mut span = crate::general::linalg::Basis::new(d);
        for i in f.on.iter() {
            span.push(&self.unit[i as usize], RANK_TOL);
            if span.len() + 1 == d {
                return true;
            }
        }
        false
    }

    /// d independent unit generators whose cone holds the need: the witness's, then the
    /// distinct generators farthest from their span (pivoted Gram–Schmidt, one projection
    /// a step over every generator's remaining part).
    fn start(&mut self, d: usize, witness: &[u32]) -> Option<([Vector; MAX_DIM], [u32; MAX_DIM])> {
        let mut vecs = [[0.0; MAX_DIM]; MAX_DIM];
        let mut ids = [0u32; MAX_DIM];
        let mut basis = crate::general::linalg::Basis::new(d);
        let mut len = 0;
        for &i in witness {
            let u = self.unit[i as usize];
            if len < d && basis.push(&u, RANK_TOL) {
                vecs[len] = u;
                ids[len] = i;
                len += 1;
            }
        }
        if len < d {
            self.piv.clear();
            self.piv.extend(
                self.distinct
                    .iter()
                    .map(|&i| basis.residual(&self.unit[i as usize])),
            );
            while len < d {
                let mut best = (RANK_TOL, None);
                for (t, r) in self.piv.iter().enumerate() {
                    let n = dot(&r[..d], &r[..d]).sqrt();
                    if n > best.0 {
                        best = (n, Some(t));
                    }
                }
                let t = best.1?;
                let i = self.distinct[t];
                let u = self.unit[i as usize];
                if !basis.push(&u, 0.0) {
                    return None;
                }
                vecs[len] = u;
                ids[len] = i;
                len += 1;
                let q = *basis.get(basis.len() - 1);
                for r in self.piv.iter_mut() {
                    let c = dot(&r[..d], &q[..d]);
                    for (ra, qa) in r[..d].iter_mut().zip(&q) {
                        *ra -= c * qa;
                    }
                }
            }
        }
        Some((vecs, ids))
    }
}
