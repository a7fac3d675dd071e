//! The inside margin by a local search with two bounds (docs/contract-general.md §9): an inner
//! hull of generators around the need ([`crate::general::hull`]) gives the bound from below,
//! a face of it that every generator supports gives the bound from above, and the search
//! grows the hull towards its face nearest the need (the expanding polytope of Zheng, the
//! EPA of collision libraries) until the nearest face supports every generator. It looks at
//! the facets near the need only: a handful of support queries (K dot products each) where
//! the whole facet set of a cone of 64 generators in R⁶ runs to thousands.
//!
//! The needs of a run on one cone ([`Solver::solve_next`]) go on from the last one's closed
//! hull, where the new need lies inside it ([`Hull::retarget`]): a scene's needs are near
//! each other, and the faces the last one made are most of those this one needs.
//!
//! A cone holding a line (its lineality space L, spanned by the generators whose opposites
//! it holds) is searched again in L's complement: there it is pointed, its facets are C's
//! (each holds L), and the proof carries the lines and the witnesses of their opposites.

// Comparisons are written `!(x > t)` where a NaN must fail them.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::columns::most_against;
use super::{
    is_cone, lex_less, write_cone, FoundFacet, Solver, EPS, LOWER_FLOOR, MAX_DIM, RANK_TOL,
};
use crate::general::hull::{Face, Hull, COARSE, COARSER};
use crate::general::linalg::{dot, norm, Basis, Vector};
use crate::general::proof::{
    check, det, Combination, InnerProof, Line, Measure, NearestProof, Proof,
};
use crate::general::{GeneralCase, GeneralOutcome};
use crate::Verdict;

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

/// Where the hull lives: R^d itself, or the complement of C's lineality space, in the
/// coordinates of an orthonormal basis of it.
#[derive(Clone, Debug, Default)]
pub(super) struct Frame {
    /// Its dimension d − dim L.
    dim: usize,
    /// Its orthonormal basis, vectors of R^d (empty: R^d itself).
    basis: Vec<Vector>,
    /// Generators spanning L, each with the witness of its opposite (indices, weights in
    /// the caller's units).
    lines: Vec<Line>,
}

impl Frame {
    fn of(d: usize) -> Frame {
        Frame {
            dim: d,
            ..Frame::default()
        }
    }

    /// `v` of R^d in the frame's coordinates.
    fn down(&self, d: usize, v: &Vector) -> Vector {
        if self.basis.is_empty() {
            return *v;
        }
        let mut y = [0.0; MAX_DIM];
        for (yk, q) in y.iter_mut().zip(&self.basis) {
            *yk = dot(&q[..d], &v[..d]);
        }
        y
    }

    /// `y` of the frame back in R^d.
    fn up(&self, d: usize, y: &Vector) -> Vector {
        if self.basis.is_empty() {
            return *y;
        }
        let mut v = [0.0; MAX_DIM];
        for (yk, q) in y.iter().zip(&self.basis) {
            for a in 0..d {
                v[a] += yk * q[a];
            }
        }
        v
    }
}

/// Why a search ended without a margin.
enum Ended {
    /// The hull could not grow (a degenerate face), or no face closed.
    Stuck,
    /// Closed, but the hull's points hold a line: the cone is not pointed.
    NotPointed,
}

impl Solver {
    /// The local search for the inside margin of the cone of the generators, full-dimensional,
    /// around the unit need `x`, which the witness `witness` (generator indices with
    /// positive weights, independent) holds. `None` where the hull got stuck or no face
    /// closed: the caller then takes the whole facet set.
    pub(super) fn local_margin(
        &mut self,
        case: &GeneralCase<'_>,
        x: &Vector,
        witness: &[u32],
    ) -> Option<Local> {
        let mut hull = std::mem::take(&mut self.hull);
        // The last need's closed hull, where this need has its cone (a scene's needs): the
        // search goes on from it ([`Hull::retarget`]), else, or where it gets stuck there,
        // starts afresh from the witness.
        let reuse = is_cone(&self.hull_cone, case);
        self.hull_cone.clear();
        let mut found = self.framed_search(&mut hull, case, x, witness, reuse);
        if reuse && matches!(found, Err(Ended::Stuck)) {
            found = self.framed_search(&mut hull, case, x, witness, false);
        }
        self.hull = hull;
        match found {
            // A hull of regular adds only is convex by construction: the next need on this
            // cone may go on from it.
            Ok(local) if self.hull.irregular == 0 => {
                if self.frame.basis.is_empty() {
                    write_cone(&mut self.hull_cone, case);
                }
                Some(local)
            }
            // One that folded or spared a face within rounding has its bound checked as the
            // coarser ones do.
            Ok(local) if self.checks(case, x, &local, false) => Some(local),
            // Stuck where generators are coplanar or duplicated but for a hair (a face
            // contact's vertices 1e-10 off their plane, a vertex given twice with a digit
            // changed): a face the hull would make has no plane; or folded where the checker
            // finds its faces unevenly met. Once more with a coarser
            // hull ([`Hull::coarse`]), then a coarser one, each bound from below taken only
            // where the proof's checker passes it.
            _ => [COARSE, COARSER].into_iter().find_map(|coarse| {
                let mut hull = std::mem::take(&mut self.hull);
                hull.coarse = coarse;
                let found = self.framed_search(&mut hull, case, x, witness, false);
                hull.coarse = 0.0;
                self.hull = hull;
                found.ok().filter(|local| self.checks(case, x, local, true))
            }),
        }
    }

    /// [`Solver::search`] in R^d, then, where the hull's points hold a line, in the
    /// complement of C's lineality space (the frame kept for the proof). `reuse`: the
    /// search in R^d goes on from the hull as it stands, where `x` lies inside it.
    fn framed_search(
        &mut self,
        hull: &mut Hull,
        case: &GeneralCase<'_>,
        x: &Vector,
        witness: &[u32],
        reuse: bool,
    ) -> Result<Local, Ended> {
        let d = case.dim;
        let mut frame = Frame::of(d);
        let mut found = self.search(hull, case, x, witness, &frame, reuse);
        if let Err(Ended::NotPointed) = found {
            if let Some(f) = self.lineality_frame(d) {
                frame = f;
                found = self.search(hull, case, x, witness, &frame, false);
            }
        }
        self.frame = frame;
        found
    }

    /// Whether the proof of `local`, just found around the unit need `x`, passes the checker
    /// with the bound from below the answer will claim (none below [`LOWER_FLOOR`]), and,
    /// where `closed` is asked, its bounds meet (else the whole facet set may still prove
    /// the margin).
    fn checks(&mut self, case: &GeneralCase<'_>, x: &Vector, local: &Local, closed: bool) -> bool {
        let d = case.dim;
        let upper = dot(&local.facet.normal[..d], &x[..d]);
        let lower = local.lower.min(upper);
        if closed && !(lower >= LOWER_FLOOR && upper - lower <= EPS) {
            return false;
        }
        if !(lower >= LOWER_FLOOR) {
            return true; // no faces claimed: the answer says only that C holds x
        }
        self.local_proof = true;
        let proof = self.inner_proof(case, Measure::Cone, lower * norm(case.need));
        self.local_proof = false;
        proof.is_some_and(|p| check(case.generators, d, case.need, &Proof::Inner(p)).is_ok())
    }

    fn search(
        &mut self,
        hull: &mut Hull,
        case: &GeneralCase<'_>,
        x: &Vector,
        witness: &[u32],
        frame: &Frame,
        reuse: bool,
    ) -> Result<Local, Ended> {
        let d = case.dim;
        let dd = frame.dim;
        let xf = frame.down(d, x);
        // A point as given (in R^d itself; in a frame, the unit one projected).
        let raw = |t: usize, u: &Vector| -> Vector {
            if frame.basis.is_empty() {
                let mut v = [0.0; MAX_DIM];
                v[..d].copy_from_slice(case.generator(t));
                v
            } else {
                *u
            }
        };
        if dd == 1 {
            return self.half_space(case, x, frame);
        }
        let reused =
            reuse && frame.basis.is_empty() && hull.dim() == dd && hull.retarget(&xf, LOWER_FLOOR);
        self.hulls_reused += usize::from(reused);
        if !reused {
            let (start, ids) = self.start(d, witness, frame).ok_or(Ended::Stuck)?;
            let raws: Vec<Vector> = (0..dd).map(|j| raw(ids[j] as usize, &start[j])).collect();
            hull.start(dd, &xf, &start[..dd], &raws, &ids[..dd])
                .map_err(|_| Ended::Stuck)?;
        }
        // Every generator, twins included: the plane from above must support each within
        // docs/contract-general.md's ε, as anyone checking it will ask.
        let k = self.norms.len();
        let stride = self.cols_stride;
        let mut mask = std::mem::take(&mut self.excluded);
        mask.clear();
        mask.resize(stride, 0.0);
        // Faces that every generator supports, least first: the first gives the bound from
        // above; those within TIE of it are the ties docs/contract-general.md breaks by index list.
        let mut closed: Vec<u32> = Vec::new();
        let mut least = f64::INFINITY;
        let mut stuck = false;
        // Once a face closes, the faces tied with it (within TIE) are taken off the hull by
        // one pass, in the order the pops would give them, next last; an add puts those left
        // back first, so that every step is the one the pops one at a time would take.
        let mut ties: Vec<u32> = Vec::new();
        for _ in 0..4 * k + 8 {
            let f = match ties.pop() {
                Some(f) => f,
                None => match hull.pop_nearest() {
                    Some(f) => f,
                    None => break,
                },
            };
            let face = hull.faces[f as usize];
            if face.value > least + TIE {
                break;
            }
            let n = frame.up(d, &face.normal);
            let beyond = most_against(
                self.simd,
                d,
                &self.cols,
                stride,
                &n.map(|v| -v),
                &mask,
                STOP,
            );
            match beyond {
                None => {
                    closed.push(f);
                    least = least.min(face.value);
                    if ties.is_empty() {
                        hull.pop_within(least + TIE, &mut ties);
                        if ties.is_empty() {
                            // The next pop would be beyond the ties, or none.
                            break;
                        }
                        ties.reverse();
                    }
                }
                Some(t) => {
                    if !ties.is_empty() {
                        ties.reverse();
                        hull.unpop(&ties);
                        ties.clear();
                    }
                    let u = frame.down(d, &self.unit[t]);
                    let nu = dot(&u[..dd], &u[..dd]).sqrt();
                    let u = u.map(|v| v / nu);
                    if !(nu > RANK_TOL)
                        || hull.ids.contains(&(t as u32))
                        || hull.add(&u, &raw(t, &u), t as u32, f).is_err()
                    {
                        stuck = true;
                        break;
                    }
                }
            }
        }
        self.excluded = mask;
        if stuck || closed.is_empty() {
            return Err(Ended::Stuck);
        }
        // The facets the closed faces stand for, checked; the least n·x, ties to the
        // lexicographically smallest index list.
        let mut best: Option<(f64, FoundFacet, u32)> = None;
        let mut seen: Vec<Vector> = Vec::new();
        for &f in &closed {
            let face = hull.faces[f as usize];
            if !face.alive || seen.iter().any(|n| same_plane(dd, n, &face.normal)) {
                continue;
            }
            seen.push(face.normal);
            let n = frame.up(d, &face.normal);
            let facet = self
                .facet_with_normal(d, &n)
                .filter(|f| self.spans_facet(d, f))
                .or_else(|| self.refine(d, &n))
                .ok_or(Ended::Stuck)?;
            let m = dot(&facet.normal[..d], &x[..d]);
            best = match best {
                Some((bm, bf, bt))
                    if m > bm + TIE || (m > bm - TIE && !lex_less(&facet.on, &bf.on)) =>
                {
                    Some((bm, bf, bt))
                }
                _ => Some((m, facet, f)),
            };
        }
        let (_, facet, face) = best.ok_or(Ended::Stuck)?;
        // The faces' cone must be pointed for the bound from below to stand (docs/proof.md).
        let c = hull.interior().ok_or(Ended::NotPointed)?;
        self.interior = frame.up(d, &c);
        self.half = false;
        self.closing = face;
        Ok(Local {
            lower: hull.least(),
            facet,
        })
    }

    /// C is a half-space: its lines span the boundary, the frame's one vector is the normal
    /// (turned towards x), and the margin is x's height over it, proven by the lines alone.
    fn half_space(
        &mut self,
        case: &GeneralCase<'_>,
        x: &Vector,
        frame: &Frame,
    ) -> Result<Local, Ended> {
        let d = case.dim;
        let mut n = frame.basis[0];
        if dot(&n[..d], &x[..d]) < 0.0 {
            n = n.map(|v| -v);
        }
        let facet = self
            .facet_with_normal(d, &n)
            .filter(|f| self.spans_facet(d, f))
            .or_else(|| self.refine(d, &n))
            .ok_or(Ended::Stuck)?;
        self.interior = n;
        self.half = true;
        Ok(Local {
            lower: dot(&facet.normal[..d], &x[..d]),
            facet,
        })
    }

    /// Whether the generators on `f` span d − 1 dimensions.
    fn spans_facet(&self, d: usize, f: &FoundFacet) -> bool {
        let mut span = Basis::new(d);
        for i in f.on.iter() {
            span.push(&self.unit[i as usize], RANK_TOL);
            if span.len() + 1 == d {
                return true;
            }
        }
        false
    }

    /// The frame of C's lineality space L: the generators whose opposite C holds (each
    /// tried by an NNLS, with its witness), L their span, the hull's frame L's complement.
    /// `None` when no generator's opposite is held (then the search has no better frame).
    fn lineality_frame(&mut self, d: usize) -> Option<Frame> {
        let mut span = Basis::new(d);
        let mut lines = Vec::new();
        for t in 0..self.distinct.len() {
            let i = self.distinct[t] as usize;
            let u = self.unit[i];
            if span.len() + 1 >= d
                || dot(&span.residual(&u)[..d], &span.residual(&u)[..d]).sqrt() <= RANK_TOL
            {
                continue;
            }
            let target = u.map(|v| -v);
            let nn = self.nnls(d, &target, &[]);
            let total: f64 = nn.weights[..nn.len].iter().sum();
            if !(nn.dist <= EPS * total.max(1.0) && nn.weights[..nn.len].iter().all(|&w| w >= 0.0))
            {
                continue;
            }
            span.push(&u, RANK_TOL);
            let len = self.norms[i];
            lines.push(Line {
                generator: i as u32,
                generators: nn.passive[..nn.len].to_vec(),
                weights: (0..nn.len)
                    .map(|a| nn.weights[a] * len / self.norms[nn.passive[a] as usize])
                    .collect(),
            });
        }
        if lines.is_empty() {
            return None;
        }
        let l = span.len();
        for axis in 0..d {
            let mut e = [0.0; MAX_DIM];
            e[axis] = 1.0;
            span.push(&e, 1e-6);
        }
        if span.len() != d {
            return None;
        }
        Some(Frame {
            dim: d - l,
            basis: (l..d).map(|k| *span.get(k)).collect(),
            lines,
        })
    }

    /// `frame.dim` independent generators (in the frame) whose cone holds the need: the
    /// witness's, then the distinct generators farthest from their span (pivoted
    /// Gram–Schmidt, one projection a step over every generator's remaining part).
    fn start(
        &mut self,
        d: usize,
        witness: &[u32],
        frame: &Frame,
    ) -> Option<([Vector; MAX_DIM], [u32; MAX_DIM])> {
        let dd = frame.dim;
        let mut vecs = [[0.0; MAX_DIM]; MAX_DIM];
        let mut ids = [0u32; MAX_DIM];
        let mut basis = Basis::new(dd);
        let mut len = 0;
        let unit_down = |i: usize| -> Option<Vector> {
            let u = frame.down(d, &self.unit[i]);
            let n = dot(&u[..dd], &u[..dd]).sqrt();
            (n > RANK_TOL).then(|| u.map(|v| v / n))
        };
        // A witness already found independent, in R^d itself: each of its generators leaves
        // a residual of at least 4e-6 (their volume's bound), far above RANK_TOL, so every
        // push below would take it.
        let independent = self.witness_spans && frame.basis.is_empty() && witness.len() == dd;
        for &i in witness {
            if let Some(u) = unit_down(i as usize) {
                if len < dd && (independent || basis.push(&u, RANK_TOL)) {
                    vecs[len] = u;
                    ids[len] = i;
                    len += 1;
                }
            }
        }
        if len < dd {
            let mut piv: Vec<(u32, Vector, Vector)> = self
                .distinct
                .iter()
                .filter_map(|&i| unit_down(i as usize).map(|u| (i, u, basis.residual(&u))))
                .collect();
            while len < dd {
                let mut best = (RANK_TOL, None);
                for (t, (_, _, r)) in piv.iter().enumerate() {
                    let n = dot(&r[..dd], &r[..dd]).sqrt();
                    if n > best.0 {
                        best = (n, Some(t));
                    }
                }
                let t = best.1?;
                let (i, u, _) = piv[t];
                if !basis.push(&u, 0.0) {
                    return None;
                }
                vecs[len] = u;
                ids[len] = i;
                len += 1;
                let q = *basis.get(basis.len() - 1);
                for (_, _, r) in piv.iter_mut() {
                    let c = dot(&r[..dd], &q[..dd]);
                    for (ra, qa) in r[..dd].iter_mut().zip(&q) {
                        *ra -= c * qa;
                    }
                }
            }
        }
        Some((vecs, ids))
    }

    /// The proof of the last inside margin, when the local search found it (docs/proof.md):
    /// the hull's faces as generator indices turned the same way around the need, the
    /// lines of C (with their opposites' witnesses), its interior vector, the bound from
    /// below `lower` (in the caller's units) and the generators of the plane from above.
    /// `None` after any other answer.
    pub(crate) fn inner_proof(
        &self,
        case: &GeneralCase<'_>,
        measure: Measure,
        lower: f64,
    ) -> Option<InnerProof> {
        if !self.local_proof {
            return None;
        }
        let hull = &self.hull;
        let frame = &self.frame;
        let d = case.dim;
        let dd = frame.dim;
        // Rows: the face's unit generators, the lines', then its inward normal (in R^d): turned
        // so that the determinant is positive (double-double, as the checker computes it),
        // which is det[g_F; g_lines; x] > 0 where x is inside and every generator's side for
        // the plane from above.
        let ids = |f: &Face| -> Vec<u32> {
            let mut v: Vec<u32> = f.points[..dd - 1]
                .iter()
                .map(|&p| hull.ids[p as usize])
                .collect();
            let mut m = [[0.0; 8]; 8];
            let rows = v
                .iter()
                .map(|&i| i as usize)
                .chain(frame.lines.iter().map(|l| l.generator as usize));
            for (r, i) in rows.enumerate() {
                m[r][..d].copy_from_slice(&self.unit[i][..d]);
            }
            m[d - 1][..d].copy_from_slice(&frame.up(d, &f.normal)[..d]);
            if det(d, &m) < 0.0 && v.len() >= 2 {
                v.swap(0, 1);
            }
            v
        };
        let (faces, mut upper) = if self.half {
            (
                if lower > 0.0 {
                    vec![Vec::new()]
                } else {
                    Vec::new()
                },
                Vec::new(),
            )
        } else {
            let faces = if lower > 0.0 {
                hull.live().map(ids).collect()
            } else {
                Vec::new()
            };
            (faces, ids(&hull.faces[self.closing as usize]))
        };
        upper.extend(frame.lines.iter().map(|l| l.generator));
        Some(InnerProof {
            measure,
            interior: match measure {
                Measure::Cone => self.interior[..d].to_vec(),
                Measure::Grasp => {
                    let mut e = vec![0.0; d];
                    e[0] = 1.0;
                    e
                }
            },
            lines: frame.lines.clone(),
            faces,
            lower,
            upper,
            holds: None,
            points: Vec::new(),
        })
    }

    /// The proof of the last answer of a cone test `case`, `o` (docs/proof.md): inside, the
    /// inner hull (`Solver::inner_proof`); outside, the nearest point and the certificate.
    /// `None` where there is nothing to prove (flat, capped, uncertain, need 0) or the whole
    /// facet set answered.
    pub(crate) fn proof(&self, case: &GeneralCase<'_>, o: &GeneralOutcome) -> Option<Proof> {
        match o.verdict {
            Verdict::Supported if o.facet.is_some() && !o.capped => {
                let mut p = self.inner_proof(case, Measure::Cone, o.margin_lower)?;
                if p.faces.is_empty() {
                    let (indices, weights) = o.witness()?;
                    p.holds = Some(Combination {
                        generators: indices.to_vec(),
                        weights: weights.to_vec(),
                    });
                }
                Some(Proof::Inner(p))
            }
            Verdict::Unsupported => {
                let n = o.nearest_len as usize;
                let d = o.dim as usize;
                Some(Proof::Nearest(NearestProof {
                    measure: Measure::Cone,
                    generators: o.witness_indices[..n].to_vec(),
                    weights: o.witness_weights[..n].to_vec(),
                    plane: o.certificate?[..d].to_vec(),
                    points: Vec::new(),
                }))
            }
            _ => None,
        }
    }
}
