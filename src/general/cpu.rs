//! The general cone test on the CPU, in float64 (SPEC-SPATIAL §1).
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
//!    the combinatorial test on zero sets. Each ray is then re-derived from the generators on
//!    it (the unit normal of their span) and checked; the margin is the least `n·need`.
//!
//! Every witness, certificate and facet passes [`super::check`] before it is reported.

use rayon::prelude::*;

use super::linalg::{dot, least_squares, norm, pivoted, Basis, Vector};
use super::{
    check, Facet, GenSet, GeneralBatch, GeneralCase, GeneralOutcome, EPS, GENERAL_MARGIN_CAP,
    MAX_DIM,
};
use crate::Verdict;

/// Independence threshold of the rank test, relative (unit vectors): a generator within
/// this of the span of others adds no dimension.
pub const RANK_TOL: f64 = 1e-8;

/// A generator lies on a plane when `|n·w| ≤ ON_TOL·|w|`.
pub const ON_TOL: f64 = 1e-10;

/// Two unit generators closer than this are one direction: the facet search takes one.
const SAME_DIRECTION: f64 = 1e-9;

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
    /// Nonzero generators sorted by their first unit coordinate (for `prepare`).
    order: Vec<u32>,
    /// Per generator, a bitset of the rays orthogonal to it (`words` u64 a generator).
    incidence: Vec<u64>,
    /// The rays a step removes.
    minus: Vec<u32>,
    /// Scratch of the adjacency test.
    and_words: std::cell::RefCell<Vec<u64>>,
    rays: Vec<Ray>,
    next: Vec<Ray>,
    signs: Vec<f64>,
    facets: Vec<FoundFacet>,
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
        Solver::default()
    }

    /// A solver that leaves out the inside margin (the facet enumeration): a supported
    /// case's margin is then 0 and its facet none; verdicts, witnesses, certificates and
    /// the distance outside are unchanged. For callers who ask only whether it holds, and
    /// for timing the two parts apart.
    pub fn without_inside_margin() -> Solver {
        Solver {
            no_inside_margin: true,
            ..Solver::default()
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
        let (rank_basis, basis_idx) = self.pivoted_basis(d);

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
                let y = nn.residual.map(|r| -r / nn.dist);
                out.margin = -nn.dist * s;
                if nn.dist > 0.0 && check::certificate(case, &y) {
                    out.verdict = Verdict::Unsupported;
                    out.certificate = Some(y);
                    let mut on = GenSet::default();
                    for i in 0..k {
                        if self.norms[i] > 0.0 && dot(&y[..d], &self.unit[i][..d]).abs() <= ON_TOL {
                            on.insert(i);
                        }
                    }
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
        if rank_basis < d || self.no_inside_margin {
            out.margin = 0.0; // flat: the need lies in C, which has no interior
            return out;
        }
        if self.fills_space(d, &basis_idx[..d]) {
            out.capped = true;
            out.margin = GENERAL_MARGIN_CAP;
            return out;
        }
        self.enumerate_facets(case, &basis_idx[..d]);
        // Least n·need; ties (within rounding) to the lexicographically smallest index list.
        let mut best: Option<(f64, &FoundFacet)> = None;
        for f in &self.facets {
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
            None => {
                out.capped = true;
                out.margin = GENERAL_MARGIN_CAP;
            }
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
        self.prepare(case);
        let (rank, basis) = self.pivoted_basis(case.dim);
        if rank < case.dim {
            return Vec::new();
        }
        self.enumerate_facets(case, &basis[..case.dim]);
        self.facets
            .iter()
            .map(|f| Facet {
                normal: f.normal,
                generators: f.on,
            })
            .collect()
    }

    /// Unit generators and their lengths; one index per direction in `distinct` (the
    /// lowest index of those within [`SAME_DIRECTION`] of it), found by sorting on the
    /// first coordinate: O(K log K), not O(K²).
    fn prepare(&mut self, case: &GeneralCase<'_>) {
        let d = case.dim;
        self.unit.clear();
        self.norms.clear();
        self.distinct.clear();
        self.order.clear();
        for i in 0..case.len() {
            let w = case.generator(i);
            let n = norm(w);
            let mut u = [0.0; MAX_DIM];
            if n > 0.0 {
                for (ua, wa) in u[..d].iter_mut().zip(w) {
                    *ua = wa / n;
                }
                self.order.push(i as u32);
            }
            self.unit.push(u);
            self.norms.push(n);
        }
        let unit = &self.unit;
        self.order.sort_unstable_by(|&a, &b| {
            unit[a as usize][0]
                .total_cmp(&unit[b as usize][0])
                .then(a.cmp(&b))
        });
        for (s, &i) in self.order.iter().enumerate() {
            let u = &unit[i as usize];
            let repeated = self.order[..s]
                .iter()
                .rev()
                .take_while(|&&j| u[0] - unit[j as usize][0] <= SAME_DIRECTION)
                .any(|&j| {
                    j < i && (1..d).all(|a| (unit[j as usize][a] - u[a]).abs() <= SAME_DIRECTION)
                });
            let later_twin = self.order[s + 1..]
                .iter()
                .take_while(|&&j| unit[j as usize][0] - u[0] <= SAME_DIRECTION)
                .any(|&j| {
                    j < i && (1..d).all(|a| (unit[j as usize][a] - u[a]).abs() <= SAME_DIRECTION)
                });
            if !repeated && !later_twin {
                self.distinct.push(i);
            }
        }
        self.distinct.sort_unstable();
    }

    /// The rank of the generators and d (or fewer) independent ones, pivoted.
    fn pivoted_basis(&self, d: usize) -> (usize, [u32; MAX_DIM]) {
        let (basis, picked) = pivoted(d, d, RANK_TOL, || {
            self.distinct
                .iter()
                .map(|&i| (i, &self.unit[i as usize][..]))
        });
        (basis.len(), picked)
    }

    /// Whether C is all of R^d, given d independent generators `basis`: exactly when the
    /// opposite of each is in C (then C holds their span). d NNLS solves, each checked as a
    /// witness, instead of a double description that would end with no ray.
    fn fills_space(&self, d: usize, basis: &[u32]) -> bool {
        basis.iter().all(|&b| {
            let target = self.unit[b as usize].map(|v| -v);
            let nn = self.nnls(d, &target, &[]);
            let total: f64 = nn.weights[..nn.len].iter().sum();
            nn.dist <= EPS * total.max(1.0) && nn.weights[..nn.len].iter().all(|&w| w >= 0.0)
        })
    }

    /// Lawson–Hanson NNLS on the unit generators towards the unit need `x`, from the
    /// passive set `hint` when its least-squares weights are all positive (else from empty).
    fn nnls(&self, d: usize, x: &Vector, hint: &[u32]) -> Nnls {
        let mut passive = [0u32; MAX_DIM];
        let mut weights = [0.0; MAX_DIM];
        let mut len = 0usize;
        let mut residual = *x;
        let k = self.unit.len();
        if !hint.is_empty()
            && hint.len() <= d
            && hint
                .iter()
                .all(|&h| (h as usize) < k && self.norms[h as usize] > 0.0)
        {
            let cols: [&[f64]; MAX_DIM] =
                std::array::from_fn(|a| &self.unit[hint[a.min(hint.len() - 1)] as usize][..]);
            if let Some(z) = least_squares(d, &cols[..hint.len()], x, RANK_TOL) {
                if z[..hint.len()].iter().all(|&v| v > 0.0) {
                    len = hint.len();
                    passive[..len].copy_from_slice(hint);
                    weights = z;
                    for a in 0..len {
                        let u = &self.unit[passive[a] as usize];
                        for (r, ua) in residual[..d].iter_mut().zip(u) {
                            *r -= weights[a] * ua;
                        }
                    }
                }
            }
        }
        let mut banned = GenSet::default();
        let max_iter = 3 * self.distinct.len() + 30;
        for _ in 0..max_iter {
            let dist = norm(&residual[..d]);
            // The generator most against the residual, among those not passive.
            let mut best = (f64::max(1e-12 * dist, 1e-17), None);
            for &i in &self.distinct {
                if passive[..len].contains(&i) || banned.contains(i as usize) {
                    continue;
                }
                let g = dot(&self.unit[i as usize][..d], &residual[..d]);
                if g > best.0 {
                    best = (g, Some(i));
                }
            }
            let Some(j) = best.1 else { break };
            if len == d {
                banned.insert(j as usize); // a full passive set: j is in its span
                continue;
            }
            passive[len] = j;
            weights[len] = 0.0;
            len += 1;
            let mut first = true;
            loop {
                let cols: [&[f64]; MAX_DIM] =
                    std::array::from_fn(|a| &self.unit[passive[a.min(len - 1)] as usize][..]);
                let Some(z) = least_squares(d, &cols[..len], x, RANK_TOL) else {
                    // The new column is dependent on the passive set: leave it out.
                    len -= 1;
                    banned.insert(j as usize);
                    break;
                };
                if z[..len].iter().all(|&v| v > 0.0) {
                    weights = z;
                    banned = GenSet::default();
                    break;
                }
                if first && z[len - 1] <= 0.0 {
                    // Rounding: the column's gradient said it helps, its weight says not.
                    len -= 1;
                    banned.insert(j as usize);
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
                if len == 0 {
                    break;
                }
            }
            residual = *x;
            for a in 0..len {
                let u = &self.unit[passive[a] as usize];
                for (r, ua) in residual[..d].iter_mut().zip(u) {
                    *r -= weights[a] * ua;
                }
            }
        }
        Nnls {
            passive,
            weights,
            len,
            dist: norm(&residual[..d]),
            residual,
        }
    }

    /// The facets of C (full-dimensional, `basis` d independent generators) into
    /// `self.facets`: double description on the dual cone, then each ray re-derived from
    /// the generators on it and checked.
    fn enumerate_facets(&mut self, case: &GeneralCase<'_>, basis: &[u32]) {
        let d = case.dim;
        self.rays.clear();
        self.facets.clear();
        // The simplicial start: ray j is orthogonal to every basis generator but j.
        for j in 0..d {
            let mut others = Basis::new(d);
            let mut zero = GenSet::default();
            for (a, &b) in basis.iter().enumerate() {
                if a != j {
                    others.push(&self.unit[b as usize], 0.0);
                    zero.insert(b as usize);
                }
            }
            let mut v = others.complement();
            if dot(&v[..d], &self.unit[basis[j] as usize][..d]) < 0.0 {
                v = v.map(|x| -x);
            }
            self.rays.push(Ray { v, zero });
        }
        for idx in 0..self.distinct.len() {
            let i = self.distinct[idx] as usize;
            if basis.contains(&(i as u32)) {
                continue;
            }
            self.add_halfspace(d, i);
            if self.rays.is_empty() {
                break; // the dual is {0}: C is all of R^d
            }
        }
        // Re-derive each ray from the generators on it, check it, and drop repeats.
        for r in 0..self.rays.len() {
            let ray = self.rays[r];
            let Some(f) = self.refine(case, &ray.v) else {
                continue;
            };
            if !self.facets.iter().any(|g| g.on == f.on) {
                self.facets.push(f);
            }
        }
    }

    /// One step of the double description: intersects the dual cone with `u_i·y ≥ 0`.
    /// A kept ray (plus) and a removed one (minus) make a new ray where they are adjacent:
    /// their common zero set spans d−2 dimensions, which the combinatorial test decides
    /// exactly on the zero sets: no third ray's zero set holds it. That test runs on
    /// bitsets, one per generator, of the rays orthogonal to it: the rays holding the common
    /// set are the AND of its generators' bitsets.
    fn add_halfspace(&mut self, d: usize, i: usize) {
        let u = self.unit[i];
        self.signs.clear();
        let mut any_minus = false;
        for r in &self.rays {
            let s = dot(&u[..d], &r.v[..d]);
            let s = if s.abs() <= ON_TOL { 0.0 } else { s };
            any_minus |= s < 0.0;
            self.signs.push(s);
        }
        if !any_minus {
            for (r, &s) in self.rays.iter_mut().zip(&self.signs) {
                if s == 0.0 {
                    r.zero.insert(i);
                }
            }
            return;
        }
        // Incidence: for each generator, the rays orthogonal to it.
        let words = self.rays.len().div_ceil(64);
        let k = self.unit.len();
        self.incidence.clear();
        self.incidence.resize(k * words, 0);
        for (r, ray) in self.rays.iter().enumerate() {
            for j in ray.zero.iter() {
                self.incidence[j as usize * words + r / 64] |= 1 << (r % 64);
            }
        }
        self.next.clear();
        self.minus.clear();
        for (b, &sm) in self.signs.iter().enumerate() {
            if sm < 0.0 {
                self.minus.push(b as u32);
            }
        }
        for (a, p) in self.rays.iter().enumerate() {
            let sp = self.signs[a];
            if sp < 0.0 {
                continue;
            }
            let mut kept = *p;
            if sp == 0.0 {
                kept.zero.insert(i);
            }
            self.next.push(kept);
            if sp == 0.0 {
                continue;
            }
            for &b in &self.minus {
                let b = b as usize;
                let (m, sm) = (&self.rays[b], self.signs[b]);
                let common = p.zero.and(&m.zero);
                if common.len() + 2 < d {
                    continue;
                }
                if !self.only_pair_holds(&common, words, a, b) {
                    continue;
                }
                let v: Vector = std::array::from_fn(|k| sp * m.v[k] - sm * p.v[k]);
                let n = norm(&v[..d]);
                if n == 0.0 {
                    continue;
                }
                let mut zero = common;
                zero.insert(i);
                self.next.push(Ray {
                    v: v.map(|x| x / n),
                    zero,
                });
            }
        }
        std::mem::swap(&mut self.rays, &mut self.next);
    }

    /// Whether rays `a` and `b` are the only ones whose zero sets hold `common`.
    fn only_pair_holds(&self, common: &GenSet, words: usize, a: usize, b: usize) -> bool {
        let mut gens = common.iter();
        let Some(first) = gens.next() else {
            return self.rays.len() <= 2;
        };
        self.and_words.borrow_mut().clear();
        let mut acc = self.and_words.borrow_mut();
        let start = first as usize * words;
        acc.extend_from_slice(&self.incidence[start..start + words]);
        for j in gens {
            let row = &self.incidence[j as usize * words..(j as usize + 1) * words];
            for (x, y) in acc.iter_mut().zip(row) {
                *x &= y;
            }
        }
        acc[a / 64] &= !(1 << (a % 64));
        acc[b / 64] &= !(1 << (b % 64));
        acc.iter().all(|&w| w == 0)
    }

    /// The facet a dual ray `v` stands for: the generators on its plane, the unit normal of
    /// their span (oriented as `v`), checked; `None` when they do not span d−1 dimensions or
    /// the plane does not support every generator.
    fn refine(&self, case: &GeneralCase<'_>, v: &Vector) -> Option<FoundFacet> {
        let d = case.dim;
        let mut on = GenSet::default();
        for i in 0..case.len() {
            if self.norms[i] > 0.0 && dot(&self.unit[i][..d], &v[..d]).abs() <= ON_TOL * 1e2 {
                on.insert(i);
            }
        }
        let (basis, _) = pivoted(d, d - 1, RANK_TOL, || {
            on.iter().map(|i| (i, &self.unit[i as usize][..]))
        });
        if basis.len() < d - 1 {
            return None;
        }
        let mut n = basis.complement();
        if dot(&n[..d], &v[..d]) < 0.0 {
            n = n.map(|x| -x);
        }
        let mut on = GenSet::default();
        for i in 0..case.len() {
            if self.norms[i] > 0.0 && dot(&self.unit[i][..d], &n[..d]).abs() <= ON_TOL {
                on.insert(i);
            }
        }
        check::facet(case, &n, &on, 2.0 * ON_TOL).then_some(FoundFacet { normal: n, on })
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

/// The general test of one case, with a solver of its own (tests and one-off calls; a
/// batch reuses one solver per thread).
pub fn solve(case: &GeneralCase<'_>) -> GeneralOutcome {
    Solver::new().solve(case)
}

/// Every case of `batch` into `out` (same length), on all cores, one solver per thread.
pub fn solve_batch_into(batch: &GeneralBatch, out: &mut [GeneralOutcome]) {
    assert_eq!(batch.len(), out.len(), "one outcome slot per case");
    out.par_iter_mut()
        .enumerate()
        .with_min_len(16)
        .for_each_init(Solver::new, |solver, (i, o)| {
            *o = solver.solve(&batch.get(i))
        });
}

/// Every case of `batch` on this thread alone, with one solver.
pub fn solve_batch_serial(batch: &GeneralBatch, out: &mut [GeneralOutcome]) {
    let mut solver = Solver::new();
    for (i, o) in out.iter_mut().enumerate() {
        *o = solver.solve(&batch.get(i));
    }
}
