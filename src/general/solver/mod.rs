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
//!    checked; the margin is the least `n·need` among them (`Solver::facets` re-derives all).
//!
//! The loops over every generator or every ray (the NNLS's gradient, the rays' signs, the
//! unit scaling) run on columns, with AVX2 where the CPU has it ([`kernels`]); they sum in
//! the same order either way, so every answer is the same bit for bit.
//!
//! Every witness, certificate and facet passes [`super::check`] before it is reported.

use rayon::prelude::*;

use super::complete;
use super::linalg::{dot, norm, pivoted, Basis, Qr, Vector};
use super::{
    check, Facet, GenSet, GeneralBatch, GeneralCase, GeneralOutcome, EPS, GENERAL_MARGIN_CAP,
    MAX_DIM,
};
use crate::Verdict;

/// Independence threshold of the rank test, relative (unit vectors): a generator within
/// this of the span of others adds no dimension.
pub const RANK_TOL: f64 = 1e-8;

/// A generator lies on a plane when `|n·w| ≤ ON_TOL·|w|` (the double description's rays,
/// the certificate's plane).
pub const ON_TOL: f64 = 1e-10;

/// A generator lies on a facet when `|n·w| ≤ FACET_ON·|w|`: docs/contract-general.md's ε, the
/// tolerance a facet supports the generators within, so that every generator is either on
/// a checked facet or clearly inside it, and two estimates of one plane agree on it.
pub const FACET_ON: f64 = EPS;

/// [`most_against`]'s mask for a position left out.
const OUT: f64 = f64::NEG_INFINITY;

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
    /// The case's unit generators column by column ([`unit_columns`]): coordinate `a` of
    /// generator `i` at `cols[a * cols_stride + i]`, the tail zero.
    cols: Vec<f64>,
    /// Nonzero generators keyed by their first unit coordinate (total order), for `prepare`.
    keyed: Vec<u64>,
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
}

/// The outcome of the NNLS step in unit scale.
struct Nnls {
    passive: [u32; MAX_DIM],
    weights: Vector,
    len: usize,
    residual: Vector,
    dist: f64,
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

    /// [`Solver::new`] when `inside_margin`, else [`Solver::without_inside_margin`].
    pub fn with_inside_margin(inside_margin: bool) -> Solver {
        Solver {
            no_inside_margin: !inside_margin,
            ..Solver::new()
        }
    }

    /// The general test of one case.
    pub fn solve(&mut self, case: &GeneralCase<'_>) -> GeneralOutcome {
        self.solve_hinted(case, &[]).0
    }

    /// The general test of one case, the NNLS started from the passive set `hint` (a float32
    /// search's answer, such as the GPU's): when the hint is right, the float64 solve only
    /// confirms it. Also says whether the final passive set is the hint's (false: the host
    /// had to search on from it).
    pub fn solve_hinted(&mut self, case: &GeneralCase<'_>, hint: &[u32]) -> (GeneralOutcome, bool) {
        let mut confirmed = true;
        let out = self.solve_inner(case, hint, &mut confirmed);
        (out, confirmed)
    }

    fn solve_inner(
        &mut self,
        case: &GeneralCase<'_>,
        hint: &[u32],
        confirmed: &mut bool,
    ) -> GeneralOutcome {
        let d = case.dim;
        let k = case.len();
        let s = norm(case.need);
        let mut out = GeneralOutcome {
            dim: d as u8,
            ..GeneralOutcome::default()
        };

        self.prepare(case);
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
            if nn.dist <= EPS * total.max(1.0)
                && check::witness(case, &out.witness_indices[..n], &out.witness_weights[..n])
            {
                true
            } else {
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
        let (rank_basis, basis_idx) = self.pivoted_basis(d);
        if rank_basis < d {
            out.margin = 0.0; // flat: the need lies in C, which has no interior
            return out;
        }
        if !self.pointed(d) && self.fills_space(d, &basis_idx[..d]) {
            out.capped = true;
            out.margin = GENERAL_MARGIN_CAP;
            return out;
        }
        self.enumerate_facets(case, &basis_idx[..d]);
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
            None => out.margin = 0.0,
            Some((m, f)) => {
                out.margin = (m * s).min(GENERAL_MARGIN_CAP);
                out.facet = Some(Facet {
                    normal: f.normal,
                    generators: f.on,
                });
            }
        }
        out
    }

    /// Every facet of the cone of `case` (none when it is not full-dimensional or is all of
    /// R^d), each checked; in the order found. For tests and pictures: the test itself looks
    /// only at what it needs.
    pub fn facets(&mut self, case: &GeneralCase<'_>) -> Vec<Facet> {
        self.facets_proven(case).0
    }

    /// [`Solver::facets`], and whether the set is proven to be all of them
    /// (docs/contract-general.md §8; also true when there are none because C is all of R^d, or not full-dimensional).
    /// What the support region is cut from.
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
    fn prepare(&mut self, case: &GeneralCase<'_>) {
        let d = case.dim;
        let k = case.len();
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

    /// For the facet search: the unit generators one array each (`unit`), and one index per
    /// direction in `distinct` (the lowest index of those within [`SAME_DIRECTION`] of it),
    /// found by sorting on the first coordinate: O(K log K), not O(K²). Once a case.
    fn dedup(&mut self, d: usize) {
        if self.deduped {
            return;
        }
        self.deduped = true;
        let k = self.norms.len();
        let kp = self.cols_stride;
        let cols = &self.cols;
        self.unit.clear();
        self.unit.extend((0..k).map(|i| {
            let mut u = [0.0; MAX_DIM];
            for (a, ua) in u[..d].iter_mut().enumerate() {
                *ua = cols[a * kp + i];
            }
            u
        }));
        // One index per direction: sorted by the first unit coordinate (total order, then
        // index), a generator is left out when a kept lower index lies within
        // SAME_DIRECTION of it (Euclidean, unit vectors).
        // The key: the coordinate's bits in total order, its lowest 8 bits replaced by the
        // index (K ≤ 256), one u64 to sort. Keys that tie in the rest differ by far less
        // than SAME_DIRECTION, so their order among themselves does not matter below.
        self.keyed.clear();
        for i in 0..k {
            if self.norms[i] > 0.0 {
                let b = self.unit[i][0].to_bits();
                let ordered = if b >> 63 == 1 { !b } else { b | 1 << 63 };
                self.keyed.push((ordered & !0xff) | i as u64);
            }
        }
        self.keyed.sort_unstable();
        let keyed = &self.keyed;
        let idx = |&key: &u64| (key & 0xff) as u32;
        // Where each generator sits in the sorted keys.
        self.key_at.clear();
        self.key_at.resize(k, u32::MAX);
        for (s, key) in keyed.iter().enumerate() {
            self.key_at[idx(key) as usize] = s as u32;
        }
        self.twin.clear();
        self.twin.resize(k, true);
        let unit = &self.unit;
        // In index order, so that a generator is compared with the kept ones before it
        // (every generator ends within SAME_DIRECTION of a kept one: no chains).
        for i in 0..k as u32 {
            let s = self.key_at[i as usize];
            if s == u32::MAX {
                continue; // zero
            }
            let s = s as usize;
            let u = &unit[i as usize];
            let twin = &self.twin;
            let near = |j: u32| {
                j < i && !twin[j as usize] && {
                    let w = &unit[j as usize];
                    (0..d).map(|a| (w[a] - u[a]) * (w[a] - u[a])).sum::<f64>()
                        <= SAME_DIRECTION * SAME_DIRECTION
                }
            };
            let before = keyed[..s]
                .iter()
                .rev()
                .map(idx)
                .take_while(|&j| u[0] - unit[j as usize][0] <= SAME_DIRECTION)
                .any(near);
            let after = keyed[s + 1..]
                .iter()
                .map(idx)
                .take_while(|&j| unit[j as usize][0] - u[0] <= SAME_DIRECTION)
                .any(near);
            self.twin[i as usize] = before || after;
        }
        self.distinct.clear();
        self.distinct
            .extend((0..k as u32).filter(|&i| !self.twin[i as usize]));
        let nd = self.distinct.len();
        self.twins = nd < k;
        if !self.twins {
            return; // every generator distinct: positions stay the indices
        }
        self.pos_of.clear();
        self.pos_of.resize(k, u32::MAX);
        for (t, &i) in self.distinct.iter().enumerate() {
            self.pos_of[i as usize] = t as u32;
        }
        self.stride = nd.div_ceil(4) * 4;
        self.soa.clear();
        self.soa.resize(d * self.stride, 0.0);
        for (t, &i) in self.distinct.iter().enumerate() {
            for a in 0..d {
                self.soa[a * self.stride + t] = self.unit[i as usize][a];
            }
        }
    }

    /// The rank of the generators and d (or fewer) independent ones, pivoted: as
    /// [`pivoted`] on the distinct unit generators, with each one's part outside the basis
    /// kept and updated by one projection a step (modified Gram–Schmidt: O(K·d) a step, not
    /// O(K·d·rank)); the basis itself is grown by [`Basis::push`] as there.
    fn pivoted_basis(&mut self, d: usize) -> (usize, [u32; MAX_DIM]) {
        let mut picked = [0u32; MAX_DIM];
        let mut basis = Basis::new(d);
        self.piv.clear();
        self.piv
            .extend(self.distinct.iter().map(|&i| self.unit[i as usize]));
        while basis.len() < d {
            let mut best = (RANK_TOL, None);
            for (t, r) in self.piv.iter().enumerate() {
                let n = dot(&r[..d], &r[..d]).sqrt();
                if n > best.0 {
                    best = (n, Some(t));
                }
            }
            let Some(t) = best.1 else { break };
            let i = self.distinct[t];
            picked[basis.len()] = i;
            basis.push(&self.unit[i as usize], 0.0);
            let q = *basis.get(basis.len() - 1);
            for r in self.piv.iter_mut() {
                let c = dot(&r[..d], &q[..d]);
                for (ra, qa) in r[..d].iter_mut().zip(&q) {
                    *ra -= c * qa;
                }
            }
        }
        (basis.len(), picked)
    }

    /// Whether every distinct generator is clearly on the positive side of their mean `c`
    /// (`u·c > 1e-9·|c|`, far above rounding): then C lies in the half-space `c·y > 0` and
    /// is not all of R^d, which one pass over the generators proves (the common case)
    /// instead of [`Solver::fills_space`]'s d solves.
    fn pointed(&self, d: usize) -> bool {
        let mut c = [0.0; MAX_DIM];
        for &i in &self.distinct {
            for (ca, ua) in c[..d].iter_mut().zip(&self.unit[i as usize]) {
                *ca += ua;
            }
        }
        let floor = 1e-9 * dot(&c[..d], &c[..d]).sqrt();
        floor > 0.0
            && self
                .distinct
                .iter()
                .all(|&i| dot(&self.unit[i as usize][..d], &c[..d]) > floor)
    }

    /// Whether C is all of R^d, given d independent generators `basis`: exactly when the
    /// opposite of each is in C (then C holds their span). d NNLS solves, each checked as a
    /// witness, instead of a double description that would end with no ray.
    fn fills_space(&mut self, d: usize, basis: &[u32]) -> bool {
        basis.iter().all(|&b| {
            let target = self.unit[b as usize].map(|v| -v);
            let nn = self.nnls(d, &target, &[]);
            let total: f64 = nn.weights[..nn.len].iter().sum();
            nn.dist <= EPS * total.max(1.0) && nn.weights[..nn.len].iter().all(|&w| w >= 0.0)
        })
    }

    /// Lawson–Hanson NNLS on the unit generators towards the unit need `x`, from the
    /// passive set `hint` when its least-squares weights are all positive (else from empty).
    ///
    /// Each step's gradient `u·r` over every distinct generator runs on their coordinates
    /// laid out column by column ([`gradient`], AVX2 where the CPU has it: the same sums in
    /// the same order, so the same bits either way).
    fn nnls(&mut self, d: usize, x: &Vector, hint: &[u32]) -> Nnls {
        let mut passive = [0u32; MAX_DIM];
        let mut weights = [0.0; MAX_DIM];
        let mut len = 0usize;
        let mut residual = *x;
        let k = self.norms.len();
        let nd = self.distinct.len();
        let mut qr = Qr::new(d, x);
        self.excluded.clear();
        self.excluded.resize(self.positions().1, 0.0);
        if !hint.is_empty()
            && hint.len() <= d
            && hint
                .iter()
                .all(|&h| (h as usize) < k && self.norms[h as usize] > 0.0)
        {
            if let Some(z) = qr.least_squares(hint, |i| self.unit_of(i, d), RANK_TOL) {
                if z[..hint.len()].iter().all(|&v| v > 0.0) {
                    len = hint.len();
                    passive[..len].copy_from_slice(hint);
                    weights = z;
                    for a in 0..len {
                        let u = self.unit_of(passive[a], d);
                        for (r, ua) in residual[..d].iter_mut().zip(&u) {
                            *r -= weights[a] * ua;
                        }
                    }
                }
            }
        }
        // `excluded`: passive or banned, by position in `distinct`; `banned` lists the
        // banned positions, so that a reset clears only them.
        let mut banned: Vec<u32> = std::mem::take(&mut self.banned);
        banned.clear();
        let exclude_passive = |excl: &mut [f64], passive: &[u32], on: bool| {
            for &p in passive {
                let t = self.pos_of[p as usize];
                if t != u32::MAX {
                    excl[t as usize] = if on { OUT } else { 0.0 };
                }
            }
        };
        let mut excl = std::mem::take(&mut self.excluded);
        exclude_passive(&mut excl, &passive[..len], true);
        let max_iter = 3 * nd + 30;
        for _ in 0..max_iter {
            if len == d {
                // A full passive set spans R^d: every other generator is in its span and
                // would only be banned in turn.
                break;
            }
            let dist = norm(&residual[..d]);
            // The generator most against the residual, among those not passive.
            let (soa, stride) = self.positions();
            let floor = f64::max(1e-12 * dist, 1e-17);
            let Some(tj) = most_against(self.simd, d, soa, stride, &residual, &excl, floor) else {
                break;
            };
            let j = self.distinct[tj];
            passive[len] = j;
            weights[len] = 0.0;
            len += 1;
            let mut first = true;
            loop {
                let Some(z) = qr.least_squares(&passive[..len], |i| self.unit_of(i, d), RANK_TOL)
                else {
                    // The new column is dependent on the passive set: leave it out.
                    len -= 1;
                    excl[tj] = OUT;
                    banned.push(tj as u32);
                    break;
                };
                if z[..len].iter().all(|&v| v > 0.0) {
                    weights = z;
                    for &t in &banned {
                        excl[t as usize] = 0.0;
                    }
                    banned.clear();
                    exclude_passive(&mut excl, &passive[..len], true);
                    break;
                }
                if first && z[len - 1] <= 0.0 {
                    // Rounding: the column's gradient said it helps, its weight says not.
                    len -= 1;
                    excl[tj] = OUT;
                    banned.push(tj as u32);
                    break;
                }
                first = false;
                // Step from the weights towards z until the first weight reaches zero.
                let mut alpha = 1.0f64;
                for a in 0..len {
                    if z[a] <= 0.0 {
                        alpha = alpha.min(weights[a] / (weights[a] - z[a]));
                    }
                }
                for a in 0..len {
                    weights[a] += alpha * (z[a] - weights[a]);
                }
                exclude_passive(&mut excl, &passive[..len], false);
                let mut kept = 0;
                for a in 0..len {
                    if weights[a] > 0.0 && !(z[a] <= 0.0 && weights[a] <= 1e-15) {
                        passive[kept] = passive[a];
                        weights[kept] = weights[a];
                        kept += 1;
                    }
                }
                if kept == len {
                    // alpha rounded to keep every weight: drop the smallest of those at z ≤ 0.
                    let a = (0..len)
                        .filter(|&a| z[a] <= 0.0)
                        .min_by(|&a, &b| weights[a].total_cmp(&weights[b]))
                        .unwrap_or(len - 1);
                    passive.copy_within(a + 1..len, a);
                    weights.copy_within(a + 1..len, a);
                    kept = len - 1;
                }
                len = kept;
                exclude_passive(&mut excl, &passive[..len], true);
                for &t in &banned {
                    excl[t as usize] = OUT;
                }
                if len == 0 {
                    break;
                }
            }
            residual = *x;
            for a in 0..len {
                let u = self.unit_of(passive[a], d);
                for (r, ua) in residual[..d].iter_mut().zip(&u) {
                    *r -= weights[a] * ua;
                }
            }
        }
        self.excluded = excl;
        self.banned = banned;
        Nnls {
            passive,
            weights,
            len,
            dist: norm(&residual[..d]),
            residual,
        }
    }

    /// The unit certificate `y` (of distance `dist`, unit scale) moved towards the mean
    /// direction `c` of the unit generators, `y + α·c` with α just enough to lift every
    /// generator to `y·u ≥ 0` where `c·u` is clearly positive, and small against `dist`;
    /// `None` when the generators are not all on one side of `c`.
    fn tilted(&mut self, d: usize, y: &Vector, dist: f64) -> Option<Vector> {
        self.dedup(d);
        let mut c = [0.0; MAX_DIM];
        for &i in &self.distinct {
            for (ca, ua) in c[..d].iter_mut().zip(&self.unit[i as usize]) {
                *ca += ua;
            }
        }
        let nc = dot(&c[..d], &c[..d]).sqrt();
        if nc.is_nan() || nc <= 0.0 {
            return None;
        }
        let c = c.map(|v| v / nc);
        let (mut gamma, mut low) = (f64::INFINITY, 0.0f64);
        for (u, &len) in self.unit.iter().zip(&self.norms) {
            if len > 0.0 {
                gamma = gamma.min(dot(&u[..d], &c[..d]));
                low = low.min(dot(&u[..d], &y[..d]));
            }
        }
        let alpha = 2.0 * -low / gamma;
        if !(gamma > 1e-6 && alpha < 1e-3 * dist) {
            return None;
        }
        let t: Vector = std::array::from_fn(|a| y[a] + alpha * c[a]);
        let nt = dot(&t[..d], &t[..d]).sqrt();
        Some(t.map(|v| v / nt))
    }

    /// The facets of C (full-dimensional, `basis` d independent generators) into
    /// `self.facets`: double description on the dual cone, every ray re-derived from the
    /// generators on it and checked, then the set proven complete ([`complete`]), the
    /// facets across open ridges found by pivoting and checked in turn. Whether the proof
    /// went through is `self.complete`.
    fn enumerate_facets(&mut self, case: &GeneralCase<'_>, basis: &[u32]) {
        self.dual_cone(case, basis);
        if self.facets_of_rays {
            return; // the same cone as the last call's: its facets and their proof stand
        }
        self.facets.clear();
        self.shadows.clear();
        let d = case.dim;
        for r in 0..self.rays.len() {
            let v = self.rays[r].v;
            if let Some(f) = self.refine(d, &v) {
                self.facets.push(f);
            }
        }
        // One facet per generator set (several rays can stand for one facet).
        self.facets.sort_unstable_by_key(|f| f.on.0);
        self.facets.dedup_by_key(|f| f.on.0);
        self.complete = self.prove_complete(case);
        self.facets_of_rays = true;
    }

    /// Whether `self.facets` is every facet of C, proven by ridge closure
    /// ([`complete::closure`]); the facets across open ridges are added as they are found
    /// ([`complete::pivot`], then checked as every facet is), a few rounds at most.
    fn prove_complete(&mut self, case: &GeneralCase<'_>) -> bool {
        let d = case.dim;
        let mut distinct = GenSet::default();
        for &i in &self.distinct {
            distinct.insert(i as usize);
        }
        let Some(l) = self.lineality(d, &distinct) else {
            return false;
        };
        let mut on: Vec<GenSet> = Vec::with_capacity(self.facets.len());
        let mut normals: Vec<Vector> = Vec::with_capacity(self.facets.len());
        for _round in 0..8 {
            self.merge_planes(d);
            on.clear();
            on.extend(self.facets.iter().map(|f| f.on.and(&distinct)));
            normals.clear();
            normals.extend(self.facets.iter().map(|f| f.normal));
            let open = match complete::closure(d, &self.unit, &on, &normals, l) {
                complete::Closure::Complete => return true,
                complete::Closure::Broken => {
                    return false;
                }
                complete::Closure::Open(open) => open,
            };
            let mut added = false;
            for (f, ridge, left) in open {
                let n = self.facets[f].normal;
                let Some((_, normal)) =
                    complete::pivot(d, &self.unit, &self.distinct, &n, &ridge, left)
                else {
                    continue;
                };
                // The plane of the pivot's d−1 generators, else one fitted to every generator
                // near it.
                let found = self
                    .facet_with_normal(d, &normal)
                    .or_else(|| self.refine(d, &normal));
                if let Some(found) = found {
                    if !self.facets.iter().any(|g| g.on == found.on) {
                        self.facets.push(found);
                        added = true;
                    }
                }
            }
            if !added {
                return false;
            }
        }
        false
    }

    /// Facets found twice on one plane (normals within [`SAME_PLANE`]: two estimates that
    /// disagree on a generator within rounding of it) made one, the generators of both on
    /// it. Sorted by normal, neighbours compared.
    fn merge_planes(&mut self, d: usize) {
        if self.facets.len() < 2 {
            return;
        }
        self.facets
            .sort_unstable_by(|a, b| a.normal[0].total_cmp(&b.normal[0]));
        let mut out: Vec<FoundFacet> = Vec::with_capacity(self.facets.len());
        for f in self.facets.drain(..) {
            let same = out
                .iter_mut()
                .rev()
                .take_while(|g| f.normal[0] - g.normal[0] <= SAME_PLANE)
                .find(|g| {
                    (0..d)
                        .map(|a| (g.normal[a] - f.normal[a]).powi(2))
                        .sum::<f64>()
                        <= SAME_PLANE * SAME_PLANE
                });
            match same {
                Some(g) => {
                    for i in f.on.iter() {
                        g.on.insert(i as usize);
                    }
                    // Still a checked plane: the margin is the least over these too.
                    self.shadows.push(f);
                }
                None => out.push(f),
            }
        }
        out.sort_unstable_by_key(|f| f.on.0);
        self.facets = out;
    }

    /// The dimension of C's lineality space L, proven, or `None`: 0 when the facets'
    /// normals span R^d (the dual cone is full-dimensional) or every generator is clearly on
    /// one side of their mean. Else L is spanned by the generators whose opposite is in C,
    /// and those lie on every facet: each generator on every facet found is tried (an NNLS
    /// towards its opposite, with a witness: in L; with a certificate: not), and L is the
    /// span of those in it.
    fn lineality(&mut self, d: usize, distinct: &GenSet) -> Option<usize> {
        if self.pointed(d) {
            return Some(0);
        }
        let (normals, _) = pivoted(d, d, RANK_TOL, || {
            self.facets
                .iter()
                .enumerate()
                .map(|(t, f)| (t as u32, &f.normal[..]))
        });
        if normals.len() == d {
            return Some(0);
        }
        let mut common = *distinct;
        for f in &self.facets {
            common = common.and(&f.on);
        }
        let mut lines = Basis::new(d);
        for g in common.iter() {
            let target = self.unit[g as usize].map(|v| -v);
            let nn = self.nnls(d, &target, &[]);
            let total: f64 = nn.weights[..nn.len].iter().sum();
            if nn.dist <= EPS * total.max(1.0) && nn.weights[..nn.len].iter().all(|&w| w >= 0.0) {
                lines.push(&self.unit[g as usize], RANK_TOL);
                continue;
            }
            // Not in L only with a certificate: y·u ≥ −ε for every direction kept (the cone
            // whose facets these are), y·target < −ε.
            let y = nn.residual.map(|r| -r / nn.dist);
            let apart = nn.dist > 0.0
                && dot(&y[..d], &target[..d]) < -EPS
                && self
                    .distinct
                    .iter()
                    .all(|&i| dot(&self.unit[i as usize][..d], &y[..d]) >= -EPS);
            if !apart {
                return None;
            }
        }
        (lines.len() + normals.len() <= d).then_some(lines.len())
    }

    /// The extreme rays of the dual cone into `self.rays`, by double description (kept
    /// from the last call when the generators are the same).
    ///
    /// During the description the rays live in slots that keep their place from step to
    /// step (a removed ray frees its slot for a new one), so that the bitsets of the rays
    /// orthogonal to each generator (`incidence`) and the rays' columns (`ray_soa`) are
    /// updated only where rays change, not rebuilt at every step. `self.rays` is dense
    /// again at the end.
    fn dual_cone(&mut self, case: &GeneralCase<'_>, basis: &[u32]) {
        let d = case.dim;
        // The same cone as the last one (a scene's needs, one after another): its rays stand.
        if self.rays_dim == d && self.rays_of == case.generators {
            return;
        }
        self.rays_of.clear();
        self.facets_of_rays = false;
        self.rays.clear();
        self.row_gens.clear();
        self.row_of.clear();
        self.row_of.resize(self.unit.len(), u32::MAX);
        self.free.clear();
        self.live = 0;
        self.words = 1;
        self.alive.clear();
        self.alive.push(0);
        self.incidence.clear();
        self.ray_soa.clear();
        self.ray_soa.resize(d * 64, 0.0);
        for &b in basis {
            self.assign_row(b as usize);
        }
        // The simplicial start: ray j is orthogonal to every basis generator but j, on its
        // side: column j of the inverse of the matrix whose rows are the basis (Gaussian
        // elimination with partial pivoting is backward stable, so each unit column is
        // orthogonal to the other rows to rounding, however ill-conditioned); by an
        // orthogonal complement where elimination finds no pivot.
        let rows: [Vector; MAX_DIM] =
            std::array::from_fn(|a| self.unit[basis[a.min(d - 1)] as usize]);
        let inverse = inverse_columns(d, &rows);
        for j in 0..d {
            let mut zero = GenSet::default();
            for (a, &b) in basis.iter().enumerate() {
                if a != j {
                    zero.insert(b as usize);
                }
            }
            // The unit column, kept when it is orthogonal to the other rows within 1e-13.
            let column = inverse.map(|x| x[j]).and_then(|c| {
                let n = dot(&c[..d], &c[..d]).sqrt();
                let u = c.map(|x| x / n);
                let orthogonal =
                    (0..d).all(|a| a == j || dot(&u[..d], &rows[a][..d]).abs() <= 1e-13);
                (n.is_finite() && n > 0.0 && orthogonal).then_some(u)
            });
            let mut v = match column {
                Some(u) => u,
                None => {
                    let mut others = Basis::new(d);
                    for (a, &b) in basis.iter().enumerate() {
                        if a != j {
                            others.push(&self.unit[b as usize], 0.0);
                        }
                    }
                    others.complement()
                }
            };
            if dot(&v[..d], &self.unit[basis[j] as usize][..d]) < 0.0 {
                v = v.map(|x| -x);
            }
            self.place(d, Ray { v, zero });
        }
        self.cut_order(d, basis);
        for idx in 0..self.cut.len() {
            let i = self.cut[idx] as usize;
            self.add_halfspace(d, i);
            if self.live == 0 {
                break; // the dual is {0}: C is all of R^d
            }
        }
        // Dense again, in slot order.
        let mut kept = 0;
        for s in 0..self.rays.len() {
            if self.alive[s / 64] >> (s % 64) & 1 == 1 {
                self.rays[kept] = self.rays[s];
                kept += 1;
            }
        }
        self.rays.truncate(kept);
        self.rays_of.extend_from_slice(case.generators);
        self.rays_dim = d;
    }

    /// Puts `ray` in a free slot (or a new one, the bitsets and columns grown when full):
    /// alive, its column written, its bit set in each of its zero generators' rows.
    fn place(&mut self, d: usize, ray: Ray) {
        let s = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                let s = self.rays.len();
                if s == self.words * 64 {
                    self.grow(d);
                }
                self.rays.push(ray);
                s
            }
        };
        self.rays[s] = ray;
        let cap = self.words * 64;
        for a in 0..d {
            self.ray_soa[a * cap + s] = ray.v[a];
        }
        self.alive[s / 64] |= 1 << (s % 64);
        let words = self.words;
        for j in ray.zero.iter() {
            self.incidence[self.row_of[j as usize] as usize * words + s / 64] |= 1 << (s % 64);
        }
        self.live += 1;
    }

    /// Takes ray slot `s` out: dead, its column zero, its bits cleared; the slot free.
    fn remove(&mut self, d: usize, s: usize) {
        let cap = self.words * 64;
        for a in 0..d {
            self.ray_soa[a * cap + s] = 0.0;
        }
        self.alive[s / 64] &= !(1 << (s % 64));
        let words = self.words;
        for j in self.rays[s].zero.iter() {
            self.incidence[self.row_of[j as usize] as usize * words + s / 64] &= !(1 << (s % 64));
        }
        self.free.push(s as u32);
        self.live -= 1;
    }

    /// Twice the slots: the incidence rows, the alive bitset and the columns laid out anew.
    #[cold]
    fn grow(&mut self, d: usize) {
        let (old, new) = (self.words, 2 * self.words);
        let rows = self.row_gens.len();
        let mut incidence = vec![0u64; rows * new];
        for r in 0..rows {
            incidence[r * new..r * new + old]
                .copy_from_slice(&self.incidence[r * old..(r + 1) * old]);
        }
        self.incidence = incidence;
        self.alive.resize(new, 0);
        let (oc, nc) = (old * 64, new * 64);
        let mut soa = vec![0.0; d * nc];
        for a in 0..d {
            soa[a * nc..a * nc + oc].copy_from_slice(&self.ray_soa[a * oc..(a + 1) * oc]);
        }
        self.ray_soa = soa;
        self.words = new;
    }

    /// The order the double description takes the generators in (`self.cut`): every
    /// distinct one but the basis, the farthest from the cone's axis first (the least
    /// `u·c`, `c` the mean of the unit generators). Extreme generators early make the
    /// intermediate cones close to C sooner, so that most of the rest cut nothing and cost
    /// one sign per ray. Any order gives the same rays.
    fn cut_order(&mut self, d: usize, basis: &[u32]) {
        let mut c = [0.0; MAX_DIM];
        for &i in &self.distinct {
            for (ca, ua) in c[..d].iter_mut().zip(&self.unit[i as usize]) {
                *ca += ua;
            }
        }
        self.cut.clear();
        self.cut_key.clear();
        for &i in &self.distinct {
            if !basis.contains(&i) {
                self.cut.push(i);
                self.cut_key.push(dot(&c[..d], &self.unit[i as usize][..d]));
            }
        }
        let key = &self.cut_key;
        let mut order: Vec<u32> = (0..self.cut.len() as u32).collect();
        order
            .sort_unstable_by(|&a, &b| key[a as usize].total_cmp(&key[b as usize]).then(a.cmp(&b)));
        let cut: Vec<u32> = order.iter().map(|&a| self.cut[a as usize]).collect();
        self.cut = cut;
    }

    /// One step of the double description: intersects the dual cone with `u_i·y ≥ 0`.
    /// A kept ray (plus) and a removed one (minus) make a new ray where they are adjacent:
    /// their common zero set spans d−2 dimensions, which the combinatorial test decides
    /// exactly on the zero sets: no third ray's zero set holds it. That test runs on
    /// bitsets, one per generator, of the rays orthogonal to it: the rays holding the common
    /// set are the AND of its generators' bitsets.
    ///
    /// A generator that removes no ray is redundant for this cone and every later one (they
    /// lie inside it), and is left out: the combinatorial test holds for any description
    /// of the cone by inequalities, redundant ones or not, so the zero sets need not list it.
    /// Candidates for a minus ray come from the bitsets of its zero generators: a plus ray
    /// sharing fewer than d−2 of them cannot be adjacent to it.
    fn add_halfspace(&mut self, d: usize, i: usize) {
        let u = self.unit[i];
        let slots = self.rays.len();
        let cap = self.words * 64;
        let span = slots.div_ceil(4) * 4;
        self.signs.resize(cap, 0.0);
        gradient(self.simd, d, &self.ray_soa, cap, span, &u, &mut self.signs);
        // A generator that removes no ray changes nothing (dead slots' signs are 0).
        if least(&self.signs[..span]) >= -ON_TOL {
            return;
        }
        // Words of the bitsets in use, and the minus, plus and zero rays among the live.
        let used = slots.div_ceil(64);
        self.minus.clear();
        self.plus_mask.clear();
        self.plus_mask.resize(used, 0);
        self.zeros.clear();
        for w in 0..used {
            let mut bits = self.alive[w];
            while bits != 0 {
                let r = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let s = self.signs[r];
                if s.abs() <= ON_TOL {
                    self.signs[r] = 0.0;
                    self.zeros.push(r as u32);
                } else if s < 0.0 {
                    self.minus.push(r as u32);
                } else {
                    self.plus_mask[w] |= 1 << (r % 64);
                }
            }
        }
        if self.minus.is_empty() {
            return;
        }
        self.assign_row(i);
        let words = self.words;
        self.born.clear();
        self.counts.clear();
        self.counts.resize(slots, 0);
        let need = (d - 2) as u8;
        for mi in 0..self.minus.len() {
            let b = self.minus[mi] as usize;
            let zm = self.rays[b].zero;
            let zlen = zm.len();
            if zlen + 2 < d {
                continue;
            }
            self.touched.clear();
            if zlen + 1 == d {
                // A simple ray: its neighbours are across its d−1 ridges, the d−2 of its
                // zero generators but one. The rays holding a ridge are the AND of its
                // generators' bitsets (prefix and suffix ANDs give all d−1 at once); b and
                // one other a: they are adjacent (no third ray holds their common set). More:
                // each plus ray among them gets the full test.
                let zs: [u32; MAX_DIM] = {
                    let mut it = zm.iter();
                    std::array::from_fn(|_| it.next().unwrap_or(0))
                };
                let l = zlen;
                let mut fix = std::mem::take(&mut self.fix);
                fix.clear();
                fix.resize(2 * (l + 1) * used, !0);
                let (pre, suf) = fix.split_at_mut((l + 1) * used);
                for q in 0..l {
                    let row = self.row(zs[q], words);
                    for w in 0..used {
                        pre[(q + 1) * used + w] = pre[q * used + w] & row[w];
                    }
                }
                for q in (0..l).rev() {
                    let row = self.row(zs[q], words);
                    for w in 0..used {
                        suf[q * used + w] = suf[(q + 1) * used + w] & row[w];
                    }
                }
                for q in 0..l {
                    let mut total = 0;
                    for w in 0..used {
                        let t = pre[q * used + w] & suf[(q + 1) * used + w];
                        total += t.count_ones();
                        let mut bits = t & self.plus_mask[w];
                        while bits != 0 {
                            let a = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            if !self.touched.contains(&(a as u32)) {
                                self.touched.push(a as u32);
                            }
                        }
                    }
                    if total == 2 && self.touched.len() == 1 {
                        // the one plus ray found, adjacent: proven by the count.
                        let a = self.touched.pop().unwrap() as usize;
                        self.push_pair(d, i, a, b);
                    } else {
                        for t in 0..self.touched.len() {
                            let a = self.touched[t] as usize;
                            self.try_pair(d, i, used, a, b);
                        }
                        self.touched.clear();
                    }
                }
                self.fix = fix;
            } else if zlen <= 2 * d {
                // Plus rays by how many of b's zero generators they share.
                for j in zm.iter() {
                    let r0 = self.row_of[j as usize] as usize * words;
                    let row = &self.incidence[r0..r0 + used];
                    for (w, (&bits, &pm)) in row.iter().zip(&self.plus_mask).enumerate() {
                        let mut bits = bits & pm;
                        while bits != 0 {
                            let r = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            if self.counts[r] == 0 {
                                self.touched.push(r as u32);
                            }
                            self.counts[r] += 1;
                        }
                    }
                }
                for t in 0..self.touched.len() {
                    let a = self.touched[t] as usize;
                    let c = std::mem::take(&mut self.counts[a]);
                    if c >= need {
                        self.try_pair(d, i, used, a, b);
                    }
                }
            } else {
                for w in 0..used {
                    let mut bits = self.plus_mask[w];
                    while bits != 0 {
                        let a = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if self.rays[a].zero.and(&zm).len() + 2 >= d {
                            self.try_pair(d, i, used, a, b);
                        }
                    }
                }
            }
        }
        // The minus rays out, the zero ones now on generator i too, the new rays in.
        for mi in 0..self.minus.len() {
            let b = self.minus[mi] as usize;
            self.remove(d, b);
        }
        let row_i = self.row_of[i] as usize * self.words;
        for zi in 0..self.zeros.len() {
            let r = self.zeros[zi] as usize;
            self.rays[r].zero.insert(i);
            self.incidence[row_i + r / 64] |= 1 << (r % 64);
        }
        let born = std::mem::take(&mut self.born);
        for &ray in &born {
            self.place(d, ray);
        }
        self.born = born;
    }

    /// The new ray of plus ray `a` and minus ray `b` on generator `i`'s plane, into
    /// `self.born`, when they are adjacent (`used`: the words of the bitsets in use).
    #[inline]
    fn try_pair(&mut self, d: usize, i: usize, used: usize, a: usize, b: usize) {
        let (p, m) = (&self.rays[a], &self.rays[b]);
        let common = p.zero.and(&m.zero);
        if common.len() + 2 < d || !self.only_pair_holds(&common, used, a, b) {
            return;
        }
        self.push_pair(d, i, a, b);
    }

    /// The new ray of adjacent rays `a` (plus) and `b` (minus) into `self.born`.
    #[inline]
    fn push_pair(&mut self, d: usize, i: usize, a: usize, b: usize) {
        let (p, m) = (&self.rays[a], &self.rays[b]);
        let common = p.zero.and(&m.zero);
        let (sp, sm) = (self.signs[a], self.signs[b]);
        let v: Vector = std::array::from_fn(|k| sp * m.v[k] - sm * p.v[k]);
        let n = dot(&v[..d], &v[..d]).sqrt();
        if n == 0.0 || !n.is_finite() {
            return;
        }
        let mut zero = common;
        zero.insert(i);
        self.born.push(Ray {
            v: v.map(|x| x / n),
            zero,
        });
    }

    /// Generator `j`'s bitset of the ray slots orthogonal to it (`j` in some zero set;
    /// `words` the rows' stride).
    #[inline]
    fn row(&self, j: u32, words: usize) -> &[u64] {
        let r = self.row_of[j as usize] as usize * words;
        &self.incidence[r..r + words]
    }

    /// Gives generator `i` a row of the incidence, empty (it enters zero sets from now on).
    fn assign_row(&mut self, i: usize) {
        if self.row_of[i] == u32::MAX {
            self.row_of[i] = self.row_gens.len() as u32;
            self.row_gens.push(i as u32);
            self.incidence.resize(self.row_gens.len() * self.words, 0);
        }
    }

    /// Whether rays `a` and `b` are the only ones whose zero sets hold `common` (`used`:
    /// the words of the bitsets in use).
    fn only_pair_holds(&self, common: &GenSet, used: usize, a: usize, b: usize) -> bool {
        let mut gens = common.iter();
        let Some(first) = gens.next() else {
            return self.live <= 2;
        };
        let mut acc = self.and_words.borrow_mut();
        acc.clear();
        acc.extend_from_slice(&self.row(first, self.words)[..used]);
        for j in gens {
            let row = &self.row(j, self.words)[..used];
            for (x, y) in acc.iter_mut().zip(row) {
                *x &= y;
            }
        }
        acc[a / 64] &= !(1 << (a % 64));
        acc[b / 64] &= !(1 << (b % 64));
        acc.iter().all(|&w| w == 0)
    }

    /// The facet a dual ray `v` stands for, checked ([`Solver::facet_with_normal`]): `v`
    /// itself when it passes (its generators spanning d−1 dimensions), else the unit normal
    /// of the span of the generators near its plane (oriented as `v`) re-derived from them;
    /// `None` when they do not span d−1 dimensions or the plane does not support every
    /// direction.
    fn refine(&mut self, d: usize, v: &Vector) -> Option<FoundFacet> {
        // The facet as the ray found it, when it passes and its generators span d−1.
        if let Some(f) = self.facet_with_normal(d, v) {
            let unit = &self.unit;
            let mut span = Basis::new(d);
            for i in f.on.iter().filter(|&i| !self.twin[i as usize]) {
                span.push(&unit[i as usize], RANK_TOL);
                if span.len() + 1 == d {
                    break;
                }
            }
            if span.len() + 1 == d {
                return Some(f);
            }
        }
        let nd = self.distinct.len();
        let mut vals = std::mem::take(&mut self.vals);
        {
            let (soa, stride) = self.positions();
            vals.resize(stride, 0.0);
            gradient(self.simd, d, soa, stride, nd.div_ceil(4) * 4, v, &mut vals);
        }
        let unit = &self.unit;
        let distinct = &self.distinct;
        let (basis, _) = pivoted(d, d - 1, RANK_TOL, || {
            vals[..nd]
                .iter()
                .zip(distinct)
                .filter(|(s, _)| s.abs() <= ON_TOL * 1e2)
                .map(|(_, &i)| (i, &unit[i as usize][..]))
        });
        self.vals = vals;
        if basis.len() < d - 1 {
            return None;
        }
        let mut n = basis.complement();
        if dot(&n[..d], &v[..d]) < 0.0 {
            n = n.map(|x| -x);
        }
        self.facet_with_normal(d, &n)
    }

    /// The facet of unit inward normal `n` (the complement of d−1 independent generators),
    /// checked in float64: every direction kept by [`Solver::dedup`] on its side,
    /// `u·n ≥ −ε` (`u` unit: docs/contract-general.md's `y·wᵢ ≥ −ε|y||wᵢ|`), and the generators
    /// within [`ON_TOL`] of its plane (twins included) as the facet's. The margin is thus
    /// the cone of the kept directions' (a sub-cone of C: never larger than C's), and a
    /// twin may lie up to [`SAME_DIRECTION`] outside.
    fn facet_with_normal(&mut self, d: usize, n: &Vector) -> Option<FoundFacet> {
        let nn = dot(&n[..d], &n[..d]).sqrt();
        if (nn - 1.0).abs().is_nan() || (nn - 1.0).abs() > 1e-12 {
            return None;
        }
        let nd = self.distinct.len();
        let mut vals = std::mem::take(&mut self.vals);
        {
            let (soa, stride) = self.positions();
            vals.resize(stride, 0.0);
            gradient(self.simd, d, soa, stride, nd.div_ceil(4) * 4, n, &mut vals);
        }
        let supports = vals[..nd].iter().all(|&s| s >= -EPS);
        let mut on = GenSet::default();
        if supports {
            for (&s, &i) in vals[..nd].iter().zip(&self.distinct) {
                if s.abs() <= FACET_ON {
                    on.insert(i as usize);
                }
            }
            if self.twins {
                for (i, &twin) in self.twin.iter().enumerate() {
                    if twin
                        && self.norms[i] > 0.0
                        && dot(&self.unit[i][..d], &n[..d]).abs() <= FACET_ON
                    {
                        on.insert(i);
                    }
                }
            }
        }
        self.vals = vals;
        supports.then_some(FoundFacet { normal: *n, on })
    }
}

/// Lengths and unit vectors of the `k` vectors of `gens` (vector `t` at `gens[t·d..]`),
/// laid out column by column in `cols` (coordinate `a` of vector `t` at `cols[a·kp + t]`,
/// `kp` ≥ `k` a multiple of 4, the tail zero): `norms[t]` is `linalg::norm` of vector t,
/// computed by the same operations in the same order (largest magnitude, sum of squares
/// scaled by it, its square root times it), and the unit vector zero for a zero vector.
#[inline]
fn unit_columns(
    simd: bool,
    d: usize,
    gens: &[f64],
    kp: usize,
    cols: &mut [f64],
    norms: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU runs AVX2 (`Solver::new`).
        unsafe {
            return match d {
                3 => unit_columns_avx2::<3>(gens, kp, cols, norms),
                _ => unit_columns_avx2::<6>(gens, kp, cols, norms),
            };
        }
    }
    let _ = simd;
    match d {
        3 => unit_columns_body::<3>(gens, kp, cols, norms),
        _ => unit_columns_body::<6>(gens, kp, cols, norms),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn unit_columns_avx2<const D: usize>(
    gens: &[f64],
    kp: usize,
    cols: &mut [f64],
    norms: &mut [f64],
) {
    use std::arch::x86_64::*;
    let k = gens.len() / D;
    assert!(cols.len() >= D * kp && norms.len() >= kp && kp.is_multiple_of(4) && k <= kp);
    let zero = _mm256_setzero_pd();
    let one = _mm256_set1_pd(1.0);
    let sign = _mm256_set1_pd(-0.0);
    for t0 in (0..kp).step_by(4) {
        // Four vectors a block, lane by lane (zero past the end).
        let mut x = [[0.0f64; 4]; D];
        for l in 0..4 {
            if t0 + l < k {
                let g = &gens[(t0 + l) * D..(t0 + l + 1) * D];
                for a in 0..D {
                    x[a][l] = g[a];
                }
            }
        }
        // The operations of `unit_columns_body`, four lanes at once. SAFETY: AVX2 is
        // enabled here; the loads and stores stay within the arrays and the bounds asserted.
        let xs: [__m256d; D] = std::array::from_fn(|a| _mm256_loadu_pd(x[a].as_ptr()));
        let mut m = zero;
        for &xa in &xs {
            m = _mm256_max_pd(m, _mm256_andnot_pd(sign, xa));
        }
        let pos = _mm256_cmp_pd::<_CMP_GT_OQ>(m, zero);
        let safe = _mm256_blendv_pd(one, m, pos);
        let mut sum = zero;
        for &xa in &xs {
            let q = _mm256_div_pd(xa, safe);
            sum = _mm256_add_pd(sum, _mm256_mul_pd(q, q));
        }
        let len = _mm256_blendv_pd(zero, _mm256_mul_pd(m, _mm256_sqrt_pd(sum)), pos);
        _mm256_storeu_pd(norms.as_mut_ptr().add(t0), len);
        let some = _mm256_cmp_pd::<_CMP_GT_OQ>(len, zero);
        let safe_len = _mm256_blendv_pd(one, len, some);
        for (a, &xa) in xs.iter().enumerate() {
            let u = _mm256_blendv_pd(zero, _mm256_div_pd(xa, safe_len), some);
            _mm256_storeu_pd(cols.as_mut_ptr().add(a * kp + t0), u);
        }
    }
}

#[inline(always)]
fn unit_columns_body<const D: usize>(gens: &[f64], kp: usize, cols: &mut [f64], norms: &mut [f64]) {
    let k = gens.len() / D;
    let cols = &mut cols[..D * kp];
    let norms = &mut norms[..kp];
    for t0 in (0..kp).step_by(4) {
        // Four vectors a block, lane by lane (zero past the end).
        let mut x = [[0.0f64; 4]; D];
        for l in 0..4 {
            if t0 + l < k {
                let g = &gens[(t0 + l) * D..(t0 + l + 1) * D];
                for a in 0..D {
                    x[a][l] = g[a];
                }
            }
        }
        // m: the largest magnitude, folded from 0 in coordinate order (as `norm`).
        let mut m = [0.0f64; 4];
        for xa in &x {
            for l in 0..4 {
                m[l] = m[l].max(xa[l].abs());
            }
        }
        // The sum of (v/m)² in coordinate order, then m·sqrt of it; 0 where m is 0.
        let safe = m.map(|m| if m > 0.0 { m } else { 1.0 });
        let mut sum = [0.0f64; 4];
        for xa in &x {
            for l in 0..4 {
                let q = xa[l] / safe[l];
                sum[l] += q * q;
            }
        }
        let mut len = [0.0f64; 4];
        for l in 0..4 {
            len[l] = if m[l] > 0.0 {
                m[l] * sum[l].sqrt()
            } else {
                0.0
            };
        }
        norms[t0..t0 + 4].copy_from_slice(&len);
        for (a, xa) in x.iter().enumerate() {
            for l in 0..4 {
                cols[a * kp + t0 + l] = if len[l] > 0.0 { xa[l] / len[l] } else { 0.0 };
            }
        }
    }
}

/// The position `t < stride` with the largest `Σ_a soa[a·stride + t]·r[a] + mask[t]`
/// (summed in coordinate order, as [`dot`]), if that is above `floor`; the first such
/// position on ties. `mask[t]` is 0 or −∞ (a position left out). The NNLS's choice of the
/// generator most against the residual, without storing the gradient.
#[inline]
fn most_against(
    simd: bool,
    d: usize,
    soa: &[f64],
    stride: usize,
    r: &Vector,
    mask: &[f64],
    floor: f64,
) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU runs AVX2 (`Solver::new`).
        unsafe {
            return match d {
                3 => most_against_avx2::<3>(soa, stride, r, mask, floor),
                _ => most_against_avx2::<6>(soa, stride, r, mask, floor),
            };
        }
    }
    let _ = simd;
    match d {
        3 => most_against_body::<3>(soa, stride, r, mask, floor),
        _ => most_against_body::<6>(soa, stride, r, mask, floor),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn most_against_avx2<const D: usize>(
    soa: &[f64],
    stride: usize,
    r: &Vector,
    mask: &[f64],
    floor: f64,
) -> Option<usize> {
    use std::arch::x86_64::*;
    assert!(soa.len() >= D * stride && mask.len() >= stride && stride.is_multiple_of(4));
    // The operations of `most_against_body`, four lanes at once. SAFETY: AVX2 is enabled
    // here; every load is within the bounds asserted.
    let rs: [__m256d; D] = std::array::from_fn(|a| _mm256_set1_pd(r[a]));
    let mut best = _mm256_set1_pd(floor);
    let mut at = _mm256_set1_pd(-1.0);
    let mut pos = _mm256_setr_pd(0.0, 1.0, 2.0, 3.0);
    let four = _mm256_set1_pd(4.0);
    let p = soa.as_ptr();
    for t0 in (0..stride).step_by(4) {
        let mut g = _mm256_mul_pd(_mm256_loadu_pd(p.add(t0)), rs[0]);
        for (a, &ra) in rs.iter().enumerate().skip(1) {
            g = _mm256_add_pd(
                g,
                _mm256_mul_pd(_mm256_loadu_pd(p.add(a * stride + t0)), ra),
            );
        }
        let v = _mm256_add_pd(g, _mm256_loadu_pd(mask.as_ptr().add(t0)));
        let take = _mm256_cmp_pd::<_CMP_GT_OQ>(v, best);
        best = _mm256_blendv_pd(best, v, take);
        at = _mm256_blendv_pd(at, pos, take);
        pos = _mm256_add_pd(pos, four);
    }
    let mut bests = [0.0; 4];
    let mut ats = [0.0; 4];
    _mm256_storeu_pd(bests.as_mut_ptr(), best);
    _mm256_storeu_pd(ats.as_mut_ptr(), at);
    first_best(
        bests,
        ats.map(|t| if t < 0.0 { u64::MAX } else { t as u64 }),
    )
}

/// Of four lanes' best values and their first positions (`u64::MAX`: none), the largest
/// value's position, the lowest on ties: the first best of the whole sequence.
#[inline(always)]
fn first_best(best: [f64; 4], at: [u64; 4]) -> Option<usize> {
    let mut pick: Option<(f64, u64)> = None;
    for l in 0..4 {
        if at[l] == u64::MAX {
            continue;
        }
        pick = match pick {
            Some((b, t)) if b > best[l] || (b == best[l] && t < at[l]) => Some((b, t)),
            _ => Some((best[l], at[l])),
        };
    }
    pick.map(|(_, t)| t as usize)
}

#[inline(always)]
fn most_against_body<const D: usize>(
    soa: &[f64],
    stride: usize,
    r: &Vector,
    mask: &[f64],
    floor: f64,
) -> Option<usize> {
    let soa = &soa[..D * stride];
    let mask = &mask[..stride];
    // Per lane, its best value and the first position holding it.
    let mut best = [floor; 4];
    let mut at = [u64::MAX; 4];
    for t0 in (0..stride).step_by(4) {
        let mut g = [0.0f64; 4];
        for l in 0..4 {
            g[l] = soa[t0 + l] * r[0];
        }
        for a in 1..D {
            for l in 0..4 {
                g[l] += soa[a * stride + t0 + l] * r[a];
            }
        }
        for l in 0..4 {
            let v = g[l] + mask[t0 + l];
            let take = v > best[l];
            best[l] = if take { v } else { best[l] };
            at[l] = if take { (t0 + l) as u64 } else { at[l] };
        }
    }
    first_best(best, at)
}

/// `grad[t] = Σ_a soa[a·stride + t]·r[a]` for every position `t < stride`, summed in
/// coordinate order (as [`dot`] sums): the NNLS's gradient over the distinct generators.
#[inline]
fn gradient(
    simd: bool,
    d: usize,
    soa: &[f64],
    stride: usize,
    len: usize,
    r: &Vector,
    grad: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU runs AVX2 (`Solver::new`).
        unsafe {
            return match d {
                3 => gradient_avx2::<3>(soa, stride, len, r, grad),
                _ => gradient_avx2::<6>(soa, stride, len, r, grad),
            };
        }
    }
    let _ = simd;
    match d {
        3 => gradient_body::<3>(soa, stride, len, r, grad),
        _ => gradient_body::<6>(soa, stride, len, r, grad),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gradient_avx2<const D: usize>(
    soa: &[f64],
    stride: usize,
    len: usize,
    r: &Vector,
    grad: &mut [f64],
) {
    gradient_body::<D>(soa, stride, len, r, grad);
}

#[inline(always)]
fn gradient_body<const D: usize>(
    soa: &[f64],
    stride: usize,
    len: usize,
    r: &Vector,
    grad: &mut [f64],
) {
    let grad = &mut grad[..len];
    let col0 = &soa[..len];
    for (g, &u) in grad.iter_mut().zip(col0) {
        *g = u * r[0];
    }
    for a in 1..D {
        let col = &soa[a * stride..a * stride + len];
        let ra = r[a];
        for (g, &u) in grad.iter_mut().zip(col) {
            *g += u * ra;
        }
    }
}

/// The columns of the inverse of the d×d matrix whose rows are `rows[..d]`, by Gaussian
/// elimination with partial pivoting; `None` when a pivot is zero.
fn inverse_columns(d: usize, rows: &[Vector; MAX_DIM]) -> Option<[Vector; MAX_DIM]> {
    // [M | I] reduced to [I | M⁻¹], row by row.
    let mut m = *rows;
    let mut x = [[0.0; MAX_DIM]; MAX_DIM];
    for (a, xa) in x[..d].iter_mut().enumerate() {
        xa[a] = 1.0;
    }
    for c in 0..d {
        let p = (c..d).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[p][c] == 0.0 {
            return None;
        }
        m.swap(c, p);
        x.swap(c, p);
        let inv = 1.0 / m[c][c];
        for a in 0..d {
            if a == c {
                continue;
            }
            let f = m[a][c] * inv;
            if f == 0.0 {
                continue;
            }
            let (mc, xc) = (m[c], x[c]);
            for k in 0..d {
                m[a][k] -= f * mc[k];
                x[a][k] -= f * xc[k];
            }
        }
    }
    // Row a of x over m[a][a] is row a of M⁻¹; its columns, one a vector.
    let mut cols = [[0.0; MAX_DIM]; MAX_DIM];
    for a in 0..d {
        let inv = 1.0 / m[a][a];
        for j in 0..d {
            cols[j][a] = x[a][j] * inv;
        }
    }
    Some(cols)
}

/// The least of `v` (a multiple of 4 long; +∞ when empty), four lanes at a time.
#[inline]
fn least(v: &[f64]) -> f64 {
    let mut m = [f64::INFINITY; 4];
    for c in v.chunks_exact(4) {
        for l in 0..4 {
            m[l] = if c[l] < m[l] { c[l] } else { m[l] };
        }
    }
    m.into_iter().fold(f64::INFINITY, f64::min)
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

/// Every case of `batch` into `out` without the inside margin
/// ([`Solver::without_inside_margin`]), on all cores.
pub fn solve_batch_without_inside_margin_into(batch: &GeneralBatch, out: &mut [GeneralOutcome]) {
    solve_batch_with(batch, out, false);
}

/// Every case of `batch` into `out` (same length), on all cores, one solver per thread:
/// with the inside margin or without ([`Solver::with_inside_margin`]).
pub fn solve_batch_with(batch: &GeneralBatch, out: &mut [GeneralOutcome], inside_margin: bool) {
    assert_eq!(batch.len(), out.len(), "one outcome slot per case");
    out.par_iter_mut()
        .enumerate()
        .with_min_len(16)
        .for_each_init(
            || Solver::with_inside_margin(inside_margin),
            |solver, (i, o)| *o = solver.solve(&batch.get(i)),
        );
}

/// The general test of one case, with a solver of its own (tests and one-off calls; a
/// batch reuses one solver per thread).
pub fn solve(case: &GeneralCase<'_>) -> GeneralOutcome {
    Solver::new().solve(case)
}

/// Every case of `batch` into `out` (same length), on all cores, one solver per thread.
pub fn solve_batch_into(batch: &GeneralBatch, out: &mut [GeneralOutcome]) {
    solve_batch_with(batch, out, true);
}

/// Every case of `batch` on this thread alone, with one solver.
pub fn solve_batch_serial(batch: &GeneralBatch, out: &mut [GeneralOutcome]) {
    let mut solver = Solver::new();
    for (i, o) in out.iter_mut().enumerate() {
        *o = solver.solve(&batch.get(i));
    }
}
