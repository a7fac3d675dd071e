//! The general cone test on the CPU, in float64 (docs/contract-general.md).
//!
//! One [`Solver`] per thread holds every buffer, so a case allocates nothing once the
//! buffers have grown to the largest case seen. The steps, for a case of K generators in R^d:
//!
//! 1. each generator is scaled to unit length and the need too (the cone, the verdict and
//!    the facets do not change; the margin scales back by |need|): every tolerance below is
//!    relative, and every scale from 1e-300 to 1e300 is the same problem;
//! 2. the rank of the generators (pivoted Gram–Schmidt) says whether C is full-dimensional,
//!    and gives d independent generators to start the facet search from;
//! 3. Lawson–Hanson's active-set NNLS: min |Σλᵢwᵢ − need|, λ ≥ 0. Zero residual: the passive
//!    set (independent, at most d) and its weights are the witness; else the residual over
//!    its length is the nearest certificate and its length the distance;
//! 4. inside a full-dimensional cone, the facets: the extreme rays of the dual cone
//!    `{y : y·wᵢ ≥ 0}`, by double description (Motzkin), starting from the simplicial cone
//!    of the d independent generators, one generator's half-space at a time, adjacency by
//!    the combinatorial test on zero sets (the generators farthest from the cone's axis
//!    first; those that cut nothing left out). The rays that can attain the least `n·need`
//!    are then re-derived from the generators on them (the unit normal of their span) and
//!    checked; the margin is the least `n·need` among them (`Solver::facets_proven` re-derives all).
//!
//! The loops over every generator or every ray (the NNLS's gradient, the rays' signs, the
//! unit scaling) run on columns, with AVX2 where the CPU has it ([`kernels`]); they sum in
//! the same order either way, so every answer is the same bit for bit.
//!
//! Every witness, certificate and facet passes [`super::check`] before it is reported.
//!
//! One file per subject: this one holds the [`Solver`] (its buffers, `solve`, the batch
//! functions); `nnls` the active-set NNLS and the certificate's tilt; `dd` the double
//! description of the dual cone; `refine` the rays made checked facets (one index per
//! direction, rank, lineality, planes merged, the completeness proof's driver); `columns`
//! the column kernels. The tolerances live in [`super::tolerance`], which the checks and the
//! completeness proof read too.

mod columns;
mod dd;
mod local;
mod nnls;
mod project;
mod refine;
mod simplex;

use super::linalg::{dot, norm, Vector};
use super::{check, Facet, GenSet, GeneralCase, GeneralOutcome, EPS, GENERAL_MARGIN_CAP, MAX_DIM};
use crate::Verdict;
use columns::{gradient, unit_columns};

pub(crate) use super::tolerance::{FACET_ON, ON_TOL, RANK_TOL};

/// A bound from below under this (unit scale) is reported as 0, without faces: the need is
/// within rounding of a face of the inner hull (docs/proof.md).
const LOWER_FLOOR: f64 = 1e-10;

/// Two unit generators closer than this are one direction: the facet search takes one.
const SAME_DIRECTION: f64 = 1e-8;

/// Two checked facets whose unit normals are closer than this are one plane.
const SAME_PLANE: f64 = 1e-7;

/// One extreme ray of the dual cone during the double description: a unit vector and the
/// generators (among those processed) it is orthogonal to.
#[derive(Clone, Copy, Debug)]
struct Ray {
    v: Vector,
    zero: GenSet,
}

/// A facet found and checked: unit inward normal, generators on it.
#[derive(Clone, Copy, Debug)]
struct FoundFacet {
    normal: Vector,
    on: GenSet,
}

/// What a supported case's inside margin needs of its cone's generators alone, whatever the
/// need.
#[derive(Clone, Copy, Debug, Default)]
struct Shape {
    /// The rank of the distinct generators, and that many independent ones among them.
    rank: usize,
    basis: [u32; MAX_DIM],
    /// Full rank and not pointed, with the opposite of each basis generator in C: C is R^d.
    fills: bool,
}

/// Every buffer the general test needs, reused from case to case.
#[derive(Default)]
pub struct Solver {
    unit: Vec<Vector>,
    norms: Vec<f64>,
    /// Nonzero generators with one index per direction, in index order.
    distinct: Vec<u32>,
    /// Per generator in some zero set (row `row_of[i]`; `row_gens` the generators by
    /// row), a bitset of the ray slots orthogonal to it (`words` u64 a row).
    incidence: Vec<u64>,
    row_of: Vec<u32>,
    row_gens: Vec<u32>,
    /// The rays a step removes.
    minus: Vec<u32>,
    /// Bitset of the rays a step keeps strictly inside.
    plus_mask: Vec<u64>,
    /// Per ray, how many of a minus ray's zero generators it shares; and which are nonzero.
    counts: Vec<u8>,
    touched: Vec<u32>,
    /// The rays' vectors column by column, slot `s` of coordinate `a` at
    /// `ray_soa[a * 64 * words + s]` (zero in dead slots), for the sign of every ray against
    /// a generator in one [`gradient`] pass.
    ray_soa: Vec<f64>,
    /// The distinct generators' parts outside the basis, while it is grown.
    piv: Vec<Vector>,
    /// Prefix and suffix ANDs of a simple ray's zero generators' bitsets.
    fix: Vec<u64>,
    /// The generators in the order the double description takes them, and their keys.
    cut: Vec<u32>,
    cut_key: Vec<f64>,
    /// Whether `facets` was proven to be every facet ([`Solver::prove_complete`]).
    complete: bool,
    /// Checked facets merged into another on the same plane ([`Solver::merge_planes`]):
    /// the margin is the least over `facets` and these.
    shadows: Vec<FoundFacet>,
    /// Whether `facets` (and `complete`) are those of the cone `rays` describes.
    facets_of_rays: bool,
    /// Scratch of the adjacency test.
    and_words: std::cell::RefCell<Vec<u64>>,
    /// The rays by slot during the double description (some dead: `alive`), dense after.
    rays: Vec<Ray>,
    /// Bitset of the live slots, the free ones, how many live, the bitsets' words (64
    /// slots each: the capacity).
    alive: Vec<u64>,
    free: Vec<u32>,
    live: usize,
    words: usize,
    /// A step's rays on the new plane, and the new rays.
    zeros: Vec<u32>,
    born: Vec<Ray>,
    signs: Vec<f64>,
    facets: Vec<FoundFacet>,
    /// The generators (as given) whose dual cone `rays` holds, complete; empty when none.
    rays_of: Vec<f64>,
    /// Their dimension.
    rays_dim: usize,
    /// The generators (as given, their bits) whose [`Shape`] `shape` holds; empty when none.
    shape_of: Vec<u64>,
    shape: Shape,
    /// The case's unit generators column by column ([`unit_columns`]): coordinate `a` of
    /// generator `i` at `cols[a * cols_stride + i]`, the tail zero.
    cols: Vec<f64>,
    /// Nonzero generators keyed by their projection on `refine::ALONG` (total order), for
    /// `dedup`.
    keyed: Vec<u64>,
    /// Per generator, that projection.
    along: Vec<f64>,
    /// Per generator, whether a kept lower index has its direction (or it is zero).
    twin: Vec<bool>,
    /// Per nonzero generator, its place in `keyed`.
    key_at: Vec<u32>,
    /// Per generator, its position in `distinct` (`u32::MAX`: not distinct).
    pos_of: Vec<u32>,
    /// Where [`Solver::dedup`] found generators of one direction, the distinct ones column
    /// by column: coordinate `a` of position `t` at `soa[a * stride + t]`, `stride` a
    /// multiple of 4 (the tail zero). Else `cols` holds them ([`Solver::positions`]).
    soa: Vec<f64>,
    stride: usize,
    /// `cols`' stride: K rounded up to a multiple of 4.
    cols_stride: usize,
    /// Whether [`Solver::dedup`] ran on this case, and found generators of one direction.
    deduped: bool,
    twins: bool,
    /// Scratch: `y·u` over the generators. NNLS scratch: per position, −∞ where passive or
    /// banned, else 0 ([`most_against`]'s mask); the banned positions.
    grad: Vec<f64>,
    excluded: Vec<f64>,
    banned: Vec<u32>,
    /// Scratch: `u·n` over the kept directions, for checking a facet.
    vals: Vec<f64>,
    /// Whether the CPU runs AVX2 ([`crate::simd::Simd::chosen`]).
    simd: bool,
    /// Skip the facets: supported cases get margin 0 and no facet.
    no_inside_margin: bool,
    /// How the inside margin is found.
    route: Route,
    /// The local search's inner hull ([`local`]), kept for its buffers and for the proof
    /// of the last margin it found.
    hull: crate::general::hull::Hull,
    /// The dimension and generators (their bits) of the cone whose closed inner hull `hull`
    /// is, where the next need on that cone may go on from it ([`Hull::retarget`]); empty
    /// when none.
    ///
    /// [`Hull::retarget`]: crate::general::hull::Hull::retarget
    hull_cone: Vec<u64>,
    /// Whether the last inside margin came from the local search (its proof is `hull`'s).
    local_proof: bool,
    /// This need's witness was found independent ([`Solver::witness_spans`]): the local
    /// search starts from it without proving so again.
    witness_spans: bool,
    /// Inside margins the local search could not close, found from the whole facet set.
    fallbacks: usize,
    /// Inside margins whose search went on from the last one's hull.
    hulls_reused: usize,
    /// Whether what [`Solver::prepare`] made (unit columns, lengths) is the last solved
    /// case's, so that the next need of its run keeps it; and, where found since, whether
    /// that cone is pointed.
    kept: bool,
    kept_pointed: Option<bool>,
    /// The last NNLS's passive set, where the next case of its run may start from it.
    last_passive: ([u32; MAX_DIM], usize),
    /// The cone (as [`write_cone`] writes it) of the run [`Solver::solve_next`] is in; empty
    /// after any other solve.
    next_cone: Vec<u64>,
    /// The last local search's interior vector, the hull face its facet came from, and
    /// the frame it ran in (C's lines projected out).
    interior: Vector,
    frame: local::Frame,
    /// The last local search found C a half-space (its lines span the boundary).
    half: bool,
    closing: u32,
    /// The support region's linear program ([`project`]), kept for its buffers.
    simplex: simplex::Simplex,
}

/// Whether `bits` ([`write_cone`]'s) are `case`'s dimension and generators, bit for bit.
fn is_cone(bits: &[u64], case: &GeneralCase<'_>) -> bool {
    bits.len() == case.generators.len() + 1
        && bits[0] == case.dim as u64
        && bits[1..]
            .iter()
            .zip(case.generators)
            .all(|(&a, b)| a == b.to_bits())
}

/// `case`'s dimension and generators' bits into `bits`: what a solver keeps to know the
/// next case's cone for the last one's.
fn write_cone(bits: &mut Vec<u64>, case: &GeneralCase<'_>) {
    bits.clear();
    bits.push(case.dim as u64);
    bits.extend(case.generators.iter().map(|v| v.to_bits()));
}

/// How the inside margin is found (docs/contract-general.md §9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Route {
    /// The local search, the whole facet set where it cannot close.
    #[default]
    Local,
    /// The whole facet set, proven complete (for tests and for comparing the two).
    Whole,
}

impl Solver {
    /// A solver with empty buffers.
    pub fn new() -> Solver {
        Solver {
            simd: matches!(
                crate::simd::Simd::chosen(),
                crate::simd::Simd::Avx2 | crate::simd::Simd::Avx512
            ),
            ..Solver::default()
        }
    }

    /// A solver that leaves out the inside margin (the facet enumeration): a supported
    /// case's margin is then 0 and its facet none; verdicts, witnesses, certificates and
    /// the distance outside are unchanged. For callers who ask only whether it holds, and
    /// for timing the two parts apart.
    pub fn without_inside_margin() -> Solver {
        Solver::with_inside_margin(false)
    }

    /// A solver that finds inside margins by `route`.
    pub fn with_route(route: Route) -> Solver {
        Solver {
            route,
            ..Solver::new()
        }
    }

    /// How this solver finds inside margins (and support regions: [`Route::Whole`] cuts
    /// them from the whole facet set).
    pub(crate) fn route(&self) -> Route {
        self.route
    }

    /// How many inside margins this solver found from the whole facet set because the
    /// local search could not close (docs/contract-general.md §9): a measure, for tests and benches.
    pub fn fallbacks(&self) -> usize {
        self.fallbacks
    }

    /// [`Solver::new`] when `inside_margin`, else [`Solver::without_inside_margin`].
    pub(crate) fn with_inside_margin(inside_margin: bool) -> Solver {
        Solver {
            no_inside_margin: !inside_margin,
            ..Solver::new()
        }
    }

    /// The general test of one case.
    pub fn solve(&mut self, case: &GeneralCase<'_>) -> GeneralOutcome {
        self.solve_hinted(case, &[], false).0
    }

    /// [`Solver::solve`] for the next of several needs on one cone (a stance's centre-of-mass
    /// positions, one after another): where this solver's last inside margin was of this
    /// cone, bit for bit, and came from a closed inner hull, the search goes on from that
    /// hull instead of starting afresh, and the NNLS starts from the last need's passive set
    /// (docs/contract-general.md §9). The answer is proven as any other; its last bits may
    /// depend on the needs before it since the cone last changed (or since a
    /// [`Solver::solve`]). The engine asks it of a
    /// batch's runs of [`GeneralBatch::push_need`] only, each run on one solver, whatever the
    /// threads.
    ///
    /// [`GeneralBatch::push_need`]: crate::GeneralBatch::push_need
    pub fn solve_next(&mut self, case: &GeneralCase<'_>) -> GeneralOutcome {
        let after = is_cone(&self.next_cone, case);
        let out = self.solve_hinted(case, &[], after).0;
        if !after {
            write_cone(&mut self.next_cone, case);
        }
        out
    }

    /// How many inside margins went on from the last one's inner hull
    /// ([`Solver::solve_next`]): a measure, for tests and benches.
    pub fn hulls_reused(&self) -> usize {
        self.hulls_reused
    }

    /// The general test of one case, the NNLS started from the passive set `hint` (a float32
    /// search's answer, such as the GPU's): when the hint is right, the float64 solve only
    /// confirms it. Also says whether the final passive set is the hint's (false: the host
    /// had to search on from it). `after`: this solver's last case had this cone (a scene's
    /// next need): the NNLS starts from that case's passive set where no hint is given, and
    /// the inside margin's search may go on from its inner hull; the answer then depends on
    /// that case too, so a caller asks it only where the order is
    /// the input's (never how the work was shared out).
    pub(crate) fn solve_hinted(
        &mut self,
        case: &GeneralCase<'_>,
        hint: &[u32],
        after: bool,
    ) -> (GeneralOutcome, bool) {
        if !after {
            self.hull_cone.clear();
            self.next_cone.clear();
            self.last_passive.1 = 0;
        }
        // A run's next need starts its NNLS from the last need's passive set (most often
        // its own: a scene's needs are near each other).
        let (last, len) = self.last_passive;
        let hint = if hint.is_empty() { &last[..len] } else { hint };
        let mut confirmed = true;
        let mut out = self.solve_inner(case, hint, &mut confirmed, after);
        if out.margin_lower.is_nan() {
            out.margin_lower = out.margin; // no inside search: the margin is exact
        }
        (out, confirmed)
    }

    fn solve_inner(
        &mut self,
        case: &GeneralCase<'_>,
        hint: &[u32],
        confirmed: &mut bool,
        after: bool,
    ) -> GeneralOutcome {
        let d = case.dim;
        let k = case.len();
        let s = norm(case.need);
        self.local_proof = false;
        let mut out = GeneralOutcome {
            dim: d as u8,
            margin_lower: f64::NAN,
            ..GeneralOutcome::default()
        };

        // A run's next need has its cone's unit columns and pointedness from the need
        // before it (each generator its own position again, as `prepare` leaves them).
        if after && self.kept {
            self.own_positions(case.len());
        } else {
            self.prepare(case);
            self.kept = true;
        }
        let mut xs = [0.0; MAX_DIM];
        if s > 0.0 {
            for (x, v) in xs[..d].iter_mut().zip(case.need) {
                *x = v / s;
            }
        }

        let inside = if s == 0.0 {
            true
        } else {
            let nn = self.nnls(d, &xs, hint);
            self.last_passive = (nn.passive, nn.len);
            let mut same = nn.len == hint.len();
            for &h in hint {
                same &= nn.passive[..nn.len].contains(&h);
            }
            *confirmed = same;
            let mut order: [usize; MAX_DIM] = std::array::from_fn(|i| i);
            order[..nn.len].sort_by_key(|&a| nn.passive[a]);
            // Weights that rounding left at ~1e-16 (a generator the last step all but
            // dropped) are left out; the check below decides on what remains.
            let mut n = 0;
            for &a in &order[..nn.len] {
                if nn.weights[a] <= 1e-15 {
                    continue;
                }
                let i = nn.passive[a] as usize;
                out.witness_indices[n] = i as u32;
                out.witness_weights[n] = nn.weights[a] * (s / self.norms[i]);
                n += 1;
            }
            out.witness_len = n as u8;
            let total: f64 = nn.weights[..nn.len].iter().sum();
            let norms = &self.norms;
            if nn.dist <= EPS * total.max(1.0)
                && check::witness_normed(
                    case,
                    |i| norms[i],
                    &out.witness_indices[..n],
                    &out.witness_weights[..n],
                )
            {
                true
            } else {
                out.nearest_len = out.witness_len;
                out.witness_len = 0;
                let mut y = nn.residual.map(|r| -r / nn.dist);
                out.margin = -nn.dist * s;
                let norms = &self.norms;
                let mut valid = nn.dist > 0.0 && check::certificate_normed(case, |i| norms[i], &y);
                if !valid && nn.dist > 1e-6 {
                    // Near-duplicates the NNLS could not take apart (a column within RANK_TOL
                    // of a passive one) leave it a residual a hair off: tilted into the
                    // cone's interior direction, it may pass.
                    if let Some(t) = self.tilted(d, &y, nn.dist) {
                        let norms = &self.norms;
                        if check::certificate_normed(case, |i| norms[i], &t) {
                            (y, valid) = (t, true);
                        }
                    }
                }
                if valid {
                    out.verdict = Verdict::Unsupported;
                    out.certificate = Some(y);
                    // The generators on the certificate's plane: y·u over the columns.
                    let mut on = GenSet::default();
                    let mut yu = std::mem::take(&mut self.grad);
                    yu.resize(self.cols_stride, 0.0);
                    gradient(
                        self.simd,
                        d,
                        &self.cols,
                        self.cols_stride,
                        self.cols_stride,
                        &y,
                        &mut yu,
                    );
                    for (i, (&len, &v)) in self.norms.iter().zip(&yu[..k]).enumerate() {
                        if len > 0.0 && v.abs() <= ON_TOL {
                            on.insert(i);
                        }
                    }
                    self.grad = yu;
                    out.facet = Some(Facet {
                        normal: y,
                        generators: on,
                    });
                }
                return out;
            }
        };
        debug_assert!(inside);
        out.verdict = Verdict::Supported;
        if self.no_inside_margin {
            return out; // margin 0 and no facet, as asked
        }
        self.dedup(d);
        let local = self.route == Route::Local && s > 0.0;
        let witness = out.witness_indices;
        let n = out.witness_len as usize;
        // A pointed cone whose witness spans R^d is full-dimensional and not all of R^d: the
        // local search needs no pivoted basis (K·d² work, a sixth of a held case at K = 256),
        // only the fallback below does.
        // (Whether the cone is pointed, kept for a run's next need.)
        let pointed = local
            && match self.kept_pointed {
                Some(pointed) => pointed,
                None => {
                    let pointed = self.pointed(d);
                    self.kept_pointed = Some(pointed);
                    pointed
                }
            };
        self.witness_spans = pointed && self.witness_spans(d, &witness[..n]);
        if !self.witness_spans {
            let Shape { rank, fills, .. } = self.shape(case);
            if rank < d {
                out.margin = 0.0; // flat: the need lies in C, which has no interior
                return out;
            }
            if fills {
                out.capped = true;
                out.margin = GENERAL_MARGIN_CAP;
                return out;
            }
        }
        self.local_proof = false;
        if local {
            if let Some(local) = self.local_margin(case, &xs, &witness[..n]) {
                let upper = dot(&local.facet.normal[..d], &xs[..d]);
                // Within rounding of the boundary the faces cannot be told to turn one way
                // around the need: no claim beyond its being in C.
                let lower = if local.lower < LOWER_FLOOR {
                    0.0
                } else {
                    local.lower.min(upper)
                };
                out.margin = (upper * s).min(GENERAL_MARGIN_CAP);
                out.margin_lower = (lower * s).min(GENERAL_MARGIN_CAP);
                out.margin_checked = upper - lower <= EPS;
                self.local_proof = true;
                out.facet = Some(Facet {
                    normal: local.facet.normal,
                    generators: local.facet.on,
                });
                return out;
            }
        }
        if self.route == Route::Local {
            self.fallbacks += 1;
        }
        let basis = self.shape(case).basis;
        self.enumerate_facets(case, &basis[..d]);
        out.margin_checked = self.complete;
        // Least n·need; ties (within rounding) to the lexicographically smallest index list.
        // Proven complete, the set's least is the margin; else it is an upper bound.
        let mut best: Option<(f64, &FoundFacet)> = None;
        for f in self.facets.iter().chain(&self.shadows) {
            let m = dot(&f.normal[..d], &xs[..d]);
            best = match best {
                Some((bm, bf))
                    if m > bm + 1e-12 || (m > bm - 1e-12 && !lex_less(&f.on, &bf.on)) =>
                {
                    Some((bm, bf))
                }
                _ => Some((m, f)),
            };
        }
        match best {
            // No facet checked, though C is not all of R^d: nothing bounds the margin but
            // the need being in C.
            None => {
                out.margin = 0.0;
                out.margin_lower = 0.0;
            }
            Some((m, f)) => {
                out.margin = (m * s).min(GENERAL_MARGIN_CAP);
                out.margin_lower = if self.complete { out.margin } else { 0.0 };
                out.facet = Some(Facet {
                    normal: f.normal,
                    generators: f.on,
                });
            }
        }
        out
    }

    /// Every facet of the cone of `case` (none when it is not full-dimensional or is all of
    /// R^d), each checked, in the order found; and whether the set is proven to be all of them
    /// (docs/contract-general.md §8; also true when there are none because C is all of R^d, or not full-dimensional).
    /// What the support region is cut from; for tests and pictures too (the test itself looks
    /// only at what it needs).
    pub fn facets_proven(&mut self, case: &GeneralCase<'_>) -> (Vec<Facet>, bool) {
        self.prepare(case);
        self.dedup(case.dim);
        let (rank, basis) = self.pivoted_basis(case.dim);
        if rank < case.dim {
            return (Vec::new(), true);
        }
        self.enumerate_facets(case, &basis[..case.dim]);
        let mut complete = self.complete;
        if self.facets.is_empty() {
            complete = !self.pointed(case.dim) && self.fills_space(case.dim, &basis[..case.dim]);
        }
        let facets = self
            .facets
            .iter()
            .map(|f| Facet {
                normal: f.normal,
                generators: f.on,
            })
            .collect();
        (facets, complete)
    }

    /// Unit generators, column by column in `cols`, and their lengths; every generator its
    /// own position (`distinct` = all, `pos_of` = identity) until [`Solver::dedup`]. All the
    /// NNLS needs: the facet search calls `dedup` first.
    /// The cone's [`Shape`] (after [`Solver::dedup`]): the last case's where its generators
    /// are this one's bit for bit (a scene's needs, one after another, share their cone),
    /// else found now.
    fn shape(&mut self, case: &GeneralCase<'_>) -> Shape {
        let d = case.dim;
        if !is_cone(&self.shape_of, case) {
            let (rank, basis) = self.pivoted_basis(d);
            let fills = rank == d && !self.pointed(d) && self.fills_space(d, &basis[..d]);
            self.shape = Shape { rank, basis, fills };
            write_cone(&mut self.shape_of, case);
        }
        self.shape
    }

    /// Whether the witness's generators alone prove that [`Solver::pivoted_basis`] finds rank
    /// d. Unit vectors whose Gram–Schmidt residuals multiply to `v` have a least singular
    /// value σ of at least `v/√e` (the other d − 1 multiply to at most √e, their squares
    /// summing to at most d); every subspace of fewer than d dimensions then leaves one of
    /// them a part of at least `σ/√d` outside it, and the distinct generator kept for it
    /// ([`SAME_DIRECTION`]) one within 1e-8 of that, so the greedy pivoting never stops
    /// short while `v/√(e·d)` is far above [`RANK_TOL`] (asked: above 1e-6).
    ///
    /// `v` is |det| of the d unit vectors (the product of their Gram–Schmidt residuals), here
    /// from an LU factoring with partial pivoting: its rounding, some 1e-15 for unit rows, is
    /// far below what is asked, and its products do not wait on each other as Gram–Schmidt's
    /// chained projections do (3 × 4 grasps 1.016× faster through `gate` on one core).
    fn witness_spans(&self, d: usize, witness: &[u32]) -> bool {
        if witness.len() != d {
            return false;
        }
        let mut a = [[0.0; MAX_DIM]; MAX_DIM];
        for (row, &i) in a.iter_mut().zip(witness) {
            row[..d].copy_from_slice(&self.unit[i as usize][..d]);
        }
        let mut volume = 1.0f64;
        for c in 0..d {
            let p = (c..d)
                .max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))
                .unwrap_or(c);
            let pivot = a[p][c];
            // A zero (or NaN) pivot: the vectors do not span R^d.
            if pivot == 0.0 || pivot.is_nan() {
                return false;
            }
            a.swap(p, c);
            volume *= pivot.abs();
            let (done, rest) = a.split_at_mut(c + 1);
            let top = &done[c];
            for row in &mut rest[..d - c - 1] {
                let f = row[c] / pivot;
                for (x, &y) in row[c + 1..d].iter_mut().zip(&top[c + 1..d]) {
                    *x -= f * y;
                }
            }
        }
        volume / (std::f64::consts::E * d as f64).sqrt() > 1e-6
    }

    fn prepare(&mut self, case: &GeneralCase<'_>) {
        let d = case.dim;
        let k = case.len();
        self.kept = false;
        self.kept_pointed = None;
        // Lengths and unit generators, column by column ([`unit_columns`]: `linalg::norm`'s
        // operations lane by lane, so the same bits).
        let kp = k.div_ceil(4) * 4;
        self.cols_stride = kp;
        self.cols.resize(d * kp, 0.0);
        self.norms.resize(kp, 0.0);
        unit_columns(
            self.simd,
            d,
            case.generators,
            kp,
            &mut self.cols,
            &mut self.norms,
        );
        self.norms.truncate(k);
        self.own_positions(k);
    }

    /// Every one of the `k` generators its own position (`distinct` = all, `pos_of` =
    /// identity), as the NNLS takes them until [`Solver::dedup`].
    fn own_positions(&mut self, k: usize) {
        self.distinct.clear();
        self.distinct.extend(0..k as u32);
        self.pos_of.clear();
        self.pos_of.extend(0..k as u32);
        self.twins = false;
        self.deduped = false;
        self.unit.clear();
    }

    /// Unit generator `i`, from the columns.
    #[inline]
    fn unit_of(&self, i: u32, d: usize) -> Vector {
        let mut u = [0.0; MAX_DIM];
        for (a, ua) in u[..d].iter_mut().enumerate() {
            *ua = self.cols[a * self.cols_stride + i as usize];
        }
        u
    }

    /// The distinct generators column by column (coordinate `a` of position `t` at
    /// `[a * stride + t]`) and the stride: `cols` itself until [`Solver::dedup`] finds twins.
    #[inline]
    fn positions(&self) -> (&[f64], usize) {
        if self.twins {
            (&self.soa, self.stride)
        } else {
            (&self.cols, self.cols_stride)
        }
    }
}

/// Whether the ascending index list of `a` comes before that of `b`.
fn lex_less(a: &GenSet, b: &GenSet) -> bool {
    let mut ia = a.iter();
    let mut ib = b.iter();
    loop {
        match (ia.next(), ib.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) => return x < y,
            (None, Some(_)) => return true,
            _ => return false,
        }
    }
}

/// The instruction set the general engine's column kernels (the NNLS's gradient, the
/// double description's signs, the unit scaling) run with: `"avx2"` where
/// [`crate::simd::Simd::chosen`] is AVX2 or AVX-512 (`PLANAR_HOLD_SIMD` decides, as for the
/// planar fast path), else `"baseline"` (the build's own, SSE2 on x86-64). Same answers
/// bit for bit either way.
pub fn kernels() -> &'static str {
    if Solver::new().simd {
        "avx2"
    } else {
        "baseline"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::general::linalg::Basis;
    use crate::rng::Rng;

    /// [`Solver::dedup`] keeps exactly the generators that no kept lower index lies within
    /// [`SAME_DIRECTION`] of (unit vectors, Euclidean), as a comparison of every pair finds
    /// them: on cones with generators repeated, scaled, nudged by 1e-12 … 1e-6 (either side
    /// of the threshold), zero, and projected onto one plane (equal projections on ALONG).
    #[test]
    fn dedup_keeps_one_index_per_direction_as_every_pair_says() {
        let mut rng = Rng::new(31);
        let mut solver = Solver::default();
        let (mut twins, mut apart) = (0, 0);
        for round in 0..2000 {
            let d = [3, 6][round % 2];
            let k = [2, 9, 40, 256][rng.below(4)];
            let mut g: Vec<Vector> = Vec::with_capacity(k);
            while g.len() < k {
                let mut v = [0.0; MAX_DIM];
                match (g.len(), rng.below(6)) {
                    (n, 0 | 1) if n > 0 => {
                        // Another's direction, scaled and nudged (some beyond the threshold).
                        let w = g[rng.below(n)];
                        let nudge = 10f64.powi(-(6 + rng.below(7) as i32));
                        let scale = 0.01 + f64::from(rng.range(0.0, 100.0));
                        for (va, wa) in v[..d].iter_mut().zip(&w) {
                            *va = scale * (wa + nudge * f64::from(rng.range(-1.0, 1.0)));
                        }
                    }
                    (_, 2) if round % 7 == 0 => {} // zero
                    _ => {
                        for va in &mut v[..d] {
                            *va = f64::from(rng.range(-1.0, 1.0));
                        }
                    }
                }
                if round % 5 == 0 {
                    // Onto the plane normal to ALONG: every projection 0, one run of keys.
                    let t = dot(&v[..d], &refine::ALONG[..d])
                        / dot(&refine::ALONG[..d], &refine::ALONG[..d]);
                    for (va, along) in v[..d].iter_mut().zip(&refine::ALONG) {
                        *va -= t * along;
                    }
                }
                g.push(v);
            }
            let flat: Vec<f64> = g.iter().flat_map(|v| v[..d].to_vec()).collect();
            let need = vec![1.0; d];
            let case = GeneralCase::new(d, &flat, &need).unwrap();
            solver.prepare(&case);
            solver.dedup(d);
            let mut kept: Vec<u32> = Vec::new();
            for i in 0..k {
                if solver.norms[i] <= 0.0 {
                    continue; // zero (a norm is never NaN here: the case is checked finite)
                }
                let u = &solver.unit[i];
                let near = kept.iter().any(|&j| {
                    let w = &solver.unit[j as usize];
                    (0..d).map(|a| (w[a] - u[a]) * (w[a] - u[a])).sum::<f64>()
                        <= SAME_DIRECTION * SAME_DIRECTION
                });
                if !near {
                    kept.push(i as u32);
                }
            }
            twins += k - kept.len();
            // No twin at all (the check of the sorted projections' gaps alone), or some.
            apart += usize::from(kept.len() == (0..k).filter(|&i| solver.norms[i] > 0.0).count());
            assert_eq!(solver.distinct, kept, "round {round}: d = {d}, K = {k}");
            for i in 0..k as u32 {
                assert_eq!(
                    solver.twin[i as usize],
                    !kept.contains(&i),
                    "round {round}: {i}"
                );
            }
        }
        assert!(twins > 1000, "only {twins} generators left out");
        assert!(apart > 200, "only {apart} rounds without a twin");
    }

    /// [`Solver::pointed`] proves pointed the random pointed cones whose mean alone does not
    /// (a generator behind it), and never a cone that holds a line (a generator and its
    /// opposite) or is all of R^d.
    #[test]
    fn pointed_cones_are_found_beyond_their_mean_and_lines_never() {
        let mut rng = Rng::new(23);
        let mut solver = Solver::default();
        let (mut beyond_mean, mut missed) = (0, 0);
        for round in 0..3000 {
            let d = [3, 6][round % 2];
            let k = [d + 1, 16, 32, 64][rng.below(4)];
            // Generators on the last axis's side of its plane, some nearly in that plane.
            let mut g: Vec<f64> = Vec::with_capacity(k * d);
            for _ in 0..k {
                let mut u: Vec<f64> = (0..d).map(|_| f64::from(rng.range(-1.0, 1.0))).collect();
                u[d - 1] = 0.18 + f64::from(rng.range(0.0, 1.0)).powi(3);
                g.extend(u);
            }
            let kind = round % 3;
            if kind == 1 {
                // A line: one generator's opposite.
                let i = rng.below(k);
                let opposite: Vec<f64> = g[i * d..(i + 1) * d].iter().map(|v| -v).collect();
                g.extend(opposite);
            } else if kind == 2 {
                // All of R^d: every axis both ways.
                for a in 0..d {
                    for sign in [1.0, -1.0] {
                        g.extend((0..d).map(|b| if a == b { sign } else { 0.0 }));
                    }
                }
            }
            let need = vec![1.0; d];
            let case = GeneralCase::new(d, &g, &need).unwrap();
            solver.prepare(&case);
            solver.dedup(d);
            let pointed = solver.pointed(d);
            if kind > 0 {
                assert!(
                    !pointed,
                    "round {round}: a cone with a line taken as pointed"
                );
                continue;
            }
            let mut mean = [0.0; MAX_DIM];
            for &i in &solver.distinct {
                for (m, u) in mean[..d].iter_mut().zip(&solver.unit[i as usize]) {
                    *m += u;
                }
            }
            let floor = 1e-9 * norm(&mean[..d]);
            let by_mean = solver
                .distinct
                .iter()
                .all(|&i| dot(&solver.unit[i as usize][..d], &mean[..d]) > floor);
            beyond_mean += usize::from(pointed && !by_mean);
            missed += usize::from(!pointed);
        }
        assert!(
            beyond_mean > 100,
            "only {beyond_mean} cones proven beyond their mean"
        );
        assert!(missed < 10, "{missed} pointed cones left to the solves");
    }

    /// [`Solver::witness_spans`] claims full rank only where [`Solver::pivoted_basis`] finds
    /// it, on cones flat within 1e-12 … 1e-4 with pairs of generators 1e-6 … 1e-2 apart; and
    /// on those cones, witnesses that a plain rank test at [`RANK_TOL`] takes as spanning
    /// (a pair's plane tilted out of the cone's) are not taken.
    #[test]
    fn a_witness_taken_as_spanning_means_the_pivoted_basis_finds_full_rank() {
        let mut rng = Rng::new(19);
        let mut solver = Solver::default();
        let (mut spans, mut flat_taken_plainly) = (0, 0);
        for round in 0..600 {
            let d = [3, 6][round % 2];
            let k = [d, d + 2, 16, 64][rng.below(4)];
            let flat = [1.0, 1e-4, 1e-6, 1e-8, 1e-9, 1e-12][rng.below(6)];
            let apart = [1e-2, 1e-4, 1e-6][rng.below(3)];
            let mut g: Vec<f64> = (0..k * d)
                .map(|_| f64::from(rng.range(-1.0, 1.0)))
                .collect();
            for i in 0..k {
                g[i * d + d - 1] *= flat;
            }
            for i in (0..k - 1).step_by(2) {
                for a in 0..d {
                    let jitter = apart * f64::from(rng.range(-1.0, 1.0));
                    g[(i + 1) * d + a] = g[i * d + a] + if a < d - 1 { jitter } else { 0.0 };
                }
            }
            let need = vec![1.0; d];
            let case = GeneralCase::new(d, &g, &need).unwrap();
            solver.prepare(&case);
            solver.dedup(d);
            let rank = solver.pivoted_basis(d).0;
            for _ in 0..20 {
                // A witness of d distinct generators, a pair among them half the time.
                let mut w: Vec<u32> = Vec::new();
                if rng.below(2) == 0 {
                    let i = 2 * rng.below(k / 2) as u32;
                    w.extend([i, i + 1]);
                }
                while w.len() < d {
                    let i = rng.below(k) as u32;
                    if !w.contains(&i) {
                        w.push(i);
                    }
                }
                if solver.witness_spans(d, &w) {
                    spans += 1;
                    assert_eq!(rank, d, "round {round}: witness {w:?} taken, rank {rank}");
                } else if rank < d {
                    let mut plain = Basis::new(d);
                    if w.iter()
                        .all(|&i| plain.push(&solver.unit[i as usize], RANK_TOL))
                    {
                        flat_taken_plainly += 1;
                    }
                }
            }
        }
        assert!(spans > 1000, "only {spans} witnesses taken");
        assert!(
            flat_taken_plainly > 20,
            "only {flat_taken_plainly} flat cones' witnesses pass a plain rank test"
        );
    }
}
