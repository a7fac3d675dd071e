//! A small dense primal simplex in float64 for the support region's linear programs
//! ([`super::project`]): six equality rows `Σ λᵢ ŵᵢ − u_x a_x − u_y a_y = o` over the unit
//! generators `ŵᵢ` (λ ≥ 0) and the two coordinates `u` of the region's plane, each held in
//! `[−r, r]` (the clip box), plus one artificial column a row for the first phase.
//!
//! Six rows make the basis a 6 × 6 matrix: it is factored afresh (LU, partial pivoting) at
//! every step, so no update error builds up. Prices by Dantzig's rule (the most negative
//! reduced cost); after a few steps that do not move (degeneracy is the normal case here:
//! many generators on one facet, flat cones) by Bland's rule (the lowest index, ties in the
//! ratio test to the lowest index too) until one moves, which rules out cycling.
//!
//! One feasible basis serves every objective: the first phase runs once per region, then
//! each direction `d` (maximise `d·u`) starts from an optimal basis of another: the last
//! one's, or ([`Simplex::restart`]) the one that found the inner polygon's point whose edge
//! is asked, a step or two away (this halved the steps of a region). Nothing here is trusted: the caller checks every witness and every plane it
//! reads off an optimum ([`crate::general::check`]).

use crate::general::linalg::norm;

/// Equality rows.
pub(super) const ROWS: usize = 6;

type Col = [f64; ROWS];

/// A reduced cost counts when beyond this (relative to `1 + |y|`).
const OPT_TOL: f64 = 1e-12;

/// Entries of `B⁻¹a` no larger than this are not pivoted on.
const PIV_TOL: f64 = 1e-10;

/// The first phase's sum of artificials above this (the right-hand side is a unit vector):
/// no point of the box is held.
const FEAS_TOL: f64 = 1e-10;

/// Steps that do not move before Bland's rule takes over.
const STALL: usize = 8;

/// Steps one solve may take.
const STEPS: usize = 2000;

/// A basis position's column, or none.
const NONE: u32 = u32::MAX;

/// LU factors of a 6 × 6 matrix with row pivoting: `P B = L U`.
#[derive(Clone, Copy, Debug, Default)]
struct Lu {
    a: [[f64; ROWS]; ROWS],
    perm: [usize; ROWS],
}

impl Lu {
    /// Factors `b` (columns); false when a pivot vanishes relative to the largest entry.
    fn factor(&mut self, cols: &[Col; ROWS]) -> bool {
        let mut big = 0.0f64;
        for (c, col) in cols.iter().enumerate() {
            for (r, &v) in col.iter().enumerate() {
                self.a[r][c] = v;
                big = big.max(v.abs());
            }
        }
        self.perm = std::array::from_fn(|r| r);
        for c in 0..ROWS {
            let p = (c..ROWS)
                .max_by(|&x, &y| self.a[x][c].abs().total_cmp(&self.a[y][c].abs()))
                .unwrap_or(c);
            if self.a[p][c].abs() <= 1e-14 * big || self.a[p][c].is_nan() {
                return false;
            }
            self.a.swap(p, c);
            self.perm.swap(p, c);
            for r in c + 1..ROWS {
                let f = self.a[r][c] / self.a[c][c];
                self.a[r][c] = f;
                for k in c + 1..ROWS {
                    self.a[r][k] -= f * self.a[c][k];
                }
            }
        }
        true
    }

    /// `x` with `B x = b`.
    fn solve(&self, b: &Col) -> Col {
        let mut x: Col = std::array::from_fn(|r| b[self.perm[r]]);
        for r in 0..ROWS {
            for c in 0..r {
                x[r] -= self.a[r][c] * x[c];
            }
        }
        for r in (0..ROWS).rev() {
            for c in r + 1..ROWS {
                x[r] -= self.a[r][c] * x[c];
            }
            x[r] /= self.a[r][r];
        }
        x
    }

    /// `y` with `Bᵀ y = c`.
    fn solve_t(&self, c: &Col) -> Col {
        let mut w = *c;
        for r in 0..ROWS {
            for k in 0..r {
                w[r] -= self.a[k][r] * w[k];
            }
            w[r] /= self.a[r][r];
        }
        for r in (0..ROWS).rev() {
            for k in r + 1..ROWS {
                w[r] -= self.a[k][r] * w[k];
            }
        }
        let mut y = [0.0; ROWS];
        for r in 0..ROWS {
            y[self.perm[r]] = w[r];
        }
        y
    }
}

/// What a solve ended in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Ended {
    /// An optimal basis: its values and duals are read with [`Simplex::point`] and
    /// [`Simplex::duals`].
    Optimal,
    /// No feasible point: `y` (the first phase's duals) with `y·ŵᵢ ≤ 0` for every generator
    /// and `y·(o + u_x a_x + u_y a_y) > 0` over the whole box, within rounding.
    Infeasible([f64; ROWS]),
    /// A singular basis, or too many steps: nothing to read.
    Stuck,
}

/// A basis to start a solve from again: its columns, and the values of `u` (the only
/// nonbasic variables that may sit off 0, at the box). Optimal for one direction, it is
/// feasible for every other (only the objective changes) and optimal for the directions
/// near it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Warm {
    basis: [usize; ROWS],
    u: [f64; 2],
    /// The basis's factors, where they were at hand (a solve that starts from it again
    /// does not factor it again).
    lu: Option<Lu>,
}

/// The linear program's columns, bounds and basis, kept between solves (and between
/// regions, for their buffers).
#[derive(Default)]
pub(super) struct Simplex {
    /// Generators `0..k` (unit, or zero), `u_x` and `u_y` (the map's axes negated), then one
    /// artificial per row (`±e_r`).
    cols: Vec<Col>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    cost: Vec<f64>,
    /// Every variable's value (the basic ones as of the last factoring).
    x: Vec<f64>,
    /// Per column, its basis position, or [`NONE`].
    pos: Vec<u32>,
    basis: [usize; ROWS],
    rhs: Col,
    k: usize,
    lu: Lu,
    y: Col,
    /// The columns again, coordinate by coordinate (entry `r` of column `j` at
    /// `rows[r][j]`), for the pricing's loop, which runs over columns four at a time.
    rows: [Vec<f64>; ROWS],
    /// Each column's pricing score (0 where it may not enter).
    score: Vec<f64>,
    /// Whether the CPU runs AVX2 (the pricing's four lanes).
    simd: bool,
    /// The basis `lu` holds the factors of.
    factored: Option<[usize; ROWS]>,
}

impl Simplex {
    /// Loads the program: `units` the unit (or zero) generators, `axes` the map's two
    /// axes, `origin` its origin, `r` the box's half-width. The first phase's basis: the
    /// artificials, `u = 0`.
    pub(super) fn load(
        &mut self,
        units: &[Col],
        axes: &[Col; 2],
        origin: &Col,
        r: f64,
        simd: bool,
    ) {
        let k = units.len();
        self.k = k;
        self.simd = simd;
        self.factored = None;
        self.cols.clear();
        self.cols.extend_from_slice(units);
        self.cols.extend(axes.iter().map(|a| a.map(|v| -v)));
        for row in 0..ROWS {
            let mut e = [0.0; ROWS];
            e[row] = if origin[row] < 0.0 { -1.0 } else { 1.0 };
            self.cols.push(e);
        }
        let n = self.cols.len();
        for (r, row) in self.rows.iter_mut().enumerate() {
            row.clear();
            row.extend(self.cols.iter().map(|c| c[r]));
        }
        self.score.clear();
        self.score.resize(n, 0.0);
        self.lo.clear();
        self.hi.clear();
        self.lo.resize(n, 0.0);
        self.hi.resize(n, f64::INFINITY);
        for j in k..k + 2 {
            self.lo[j] = -r;
            self.hi[j] = r;
        }
        self.x.clear();
        self.x.resize(n, 0.0);
        self.pos.clear();
        self.pos.resize(n, NONE);
        for row in 0..ROWS {
            self.basis[row] = k + 2 + row;
            self.pos[k + 2 + row] = row as u32;
        }
        self.rhs = *origin;
        self.cost.clear();
        self.cost.resize(n, 0.0);
    }

    /// Whether [`Simplex::load`] was told the CPU runs AVX2.
    pub(super) fn simd(&self) -> bool {
        self.simd
    }

    /// The first phase: a feasible basis, or why there is none.
    pub(super) fn feasible(&mut self) -> Ended {
        let k = self.k;
        for j in 0..self.cols.len() {
            self.cost[j] = if j >= k + 2 { 1.0 } else { 0.0 };
        }
        match self.run() {
            Ended::Optimal => {}
            other => return other,
        }
        let left: f64 = (k + 2..self.cols.len()).map(|j| self.x[j].max(0.0)).sum();
        if left > FEAS_TOL * norm(&self.rhs).max(1.0) {
            return Ended::Infeasible(self.y);
        }
        // The second phase: artificials held at 0 (a basic one leaves at the first step
        // that would move it).
        for j in k + 2..self.cols.len() {
            self.hi[j] = 0.0;
            self.cost[j] = 0.0;
            if self.pos[j] == NONE {
                self.x[j] = 0.0;
            }
        }
        Ended::Optimal
    }

    /// Maximises `d·u` from the current (feasible) basis.
    pub(super) fn maximize(&mut self, d: [f64; 2]) -> Ended {
        let k = self.k;
        self.cost[k] = -d[0];
        self.cost[k + 1] = -d[1];
        self.run()
    }

    /// The current basis, to start from again with [`Simplex::restart`].
    pub(super) fn warm(&self) -> Warm {
        Warm {
            basis: self.basis,
            u: [self.x[self.k], self.x[self.k + 1]],
            lu: (self.factored == Some(self.basis)).then_some(self.lu),
        }
    }

    /// Back to a basis of this program's second phase that [`Simplex::warm`] kept; the
    /// next solve starts from it (its basic values are computed afresh).
    pub(super) fn restart(&mut self, warm: &Warm) {
        for &j in &self.basis {
            self.pos[j] = NONE;
            self.x[j] = 0.0;
        }
        self.x[self.k] = warm.u[0];
        self.x[self.k + 1] = warm.u[1];
        self.basis = warm.basis;
        for (p, &j) in self.basis.iter().enumerate() {
            self.pos[j] = p as u32;
        }
        if let Some(lu) = warm.lu {
            self.lu = lu;
            self.factored = Some(warm.basis);
        }
    }

    /// The optimum's `u`, and its generators with their (unit-column) weights.
    pub(super) fn point(&self, out: &mut Vec<(u32, f64)>) -> [f64; 2] {
        out.clear();
        for &j in &self.basis {
            if j < self.k && self.x[j] > 0.0 {
                out.push((j as u32, self.x[j]));
            }
        }
        out.sort_unstable_by_key(|p| p.0);
        [self.x[self.k], self.x[self.k + 1]]
    }

    /// The last solve's duals `y` (`Bᵀ y = c_B`): at an optimum of `max d·u`, `z = −y` has
    /// `z·ŵᵢ ≥ 0` (within rounding) and its half-plane `z·need(u) ≥ 0` holds the region.
    pub(super) fn duals(&self) -> Col {
        self.y
    }

    /// Steps until no reduced cost counts: [`Ended::Optimal`], or [`Ended::Stuck`].
    fn run(&mut self) -> Ended {
        let mut still = 0;
        let mut bland = false;
        for _ in 0..STEPS {
            if !self.refresh() {
                return Ended::Stuck;
            }
            let cb: Col = std::array::from_fn(|p| self.cost[self.basis[p]]);
            self.y = self.lu.solve_t(&cb);
            let tol = OPT_TOL * (1.0 + norm(&self.y));
            // Pricing: the reduced cost `dj` of every column; the entering one is the first
            // eligible (nonbasic, `dj` beyond `tol` with room to move that way) of largest
            // |dj| (Dantzig), or of lowest index (Bland). Each column's test is computed
            // whole, without branches, and only a new best branches: which columns are
            // eligible changes from step to step, and branching on it was mispredicted.
            self.price(tol);
            let (mut best, mut at) = (0.0f64, usize::MAX);
            for (j, &score) in self.score.iter().enumerate() {
                if score > best {
                    (best, at) = (score, j);
                    if bland {
                        break;
                    }
                }
            }
            let y = self.y;
            let enter = (at != usize::MAX).then(|| {
                let c = &self.cols[at];
                (
                    at,
                    self.cost[at]
                        - (y[0] * c[0]
                            + y[1] * c[1]
                            + y[2] * c[2]
                            + y[3] * c[3]
                            + y[4] * c[4]
                            + y[5] * c[5]),
                )
            });
            let Some((q, dq)) = enter else {
                return Ended::Optimal;
            };
            let s = if dq < 0.0 { 1.0 } else { -1.0 };
            let Some(t) = self.pivot(q, s, bland) else {
                return Ended::Stuck;
            };
            if t <= 1e-13 {
                still += 1;
                bland |= still >= STALL;
            } else {
                still = 0;
                bland = false;
            }
        }
        Ended::Stuck
    }

    /// Every column's pricing score: `|dj|` for the reduced cost `dj = cost − y·column`
    /// where the column may enter (nonbasic, `dj` beyond `tol` with room to move that way),
    /// else 0. Each column's test is computed whole, without branches (which columns are
    /// eligible changes from step to step: a branch on it was mispredicted), and the same
    /// operations in the same order with AVX2 or without (the same bits).
    fn price(&mut self, tol: f64) {
        #[cfg(target_arch = "x86_64")]
        if self.simd {
            // SAFETY: `simd` is set only where the CPU runs AVX2 (`Solver::new`).
            unsafe { return self.price_avx2(tol) };
        }
        self.price_body(tol)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn price_avx2(&mut self, tol: f64) {
        self.price_body(tol)
    }

    #[inline(always)]
    fn price_body(&mut self, tol: f64) {
        let y = self.y;
        let n = self.score.len();
        let [r0, r1, r2, r3, r4, r5] = &self.rows;
        let (r0, r1, r2, r3, r4, r5) = (&r0[..n], &r1[..n], &r2[..n], &r3[..n], &r4[..n], &r5[..n]);
        let (cost, x, lo, hi, pos) = (
            &self.cost[..n],
            &self.x[..n],
            &self.lo[..n],
            &self.hi[..n],
            &self.pos[..n],
        );
        for (j, score) in self.score.iter_mut().enumerate() {
            let yc = y[0] * r0[j]
                + y[1] * r1[j]
                + y[2] * r2[j]
                + y[3] * r3[j]
                + y[4] * r4[j]
                + y[5] * r5[j];
            let dj = cost[j] - yc;
            let eligible =
                (pos[j] == NONE) & (((dj < -tol) & (x[j] < hi[j])) | ((dj > tol) & (x[j] > lo[j])));
            *score = if eligible { dj.abs() } else { 0.0 };
        }
    }

    /// Factors the basis and computes the basic values from the nonbasic ones (only `u`
    /// and artificials may be off 0); false where the basis is singular.
    fn refresh(&mut self) -> bool {
        // A basis factored already (a bound flipped, or the next solve started where the last
        // one ended) keeps its factors.
        if self.factored != Some(self.basis) {
            let mut basis_cols = [[0.0; ROWS]; ROWS];
            for (p, &j) in self.basis.iter().enumerate() {
                basis_cols[p] = self.cols[j];
            }
            if !self.lu.factor(&basis_cols) {
                self.factored = None;
                return false;
            }
            self.factored = Some(self.basis);
        }
        let mut b = self.rhs;
        for j in self.k..self.cols.len() {
            if self.pos[j] == NONE && self.x[j] != 0.0 {
                for (br, c) in b.iter_mut().zip(&self.cols[j]) {
                    *br -= c * self.x[j];
                }
            }
        }
        let xb = self.lu.solve(&b);
        for (p, &j) in self.basis.iter().enumerate() {
            self.x[j] = xb[p];
        }
        true
    }

    /// Column `q` enters, moving its value by `s·t` (`s = ±1`) for the largest `t` the
    /// bounds allow (the ratio test; ties to the largest pivot, or by Bland's rule to the
    /// lowest index): a basic column leaves at its bound, or `q` goes to its other bound.
    /// `t`, or `None` where nothing bounds it. The basic values are left to
    /// [`Simplex::refresh`].
    fn pivot(&mut self, q: usize, s: f64, bland: bool) -> Option<f64> {
        let alpha = self.lu.solve(&self.cols[q]);
        // Ratio test: x_q moves by s·t, the basic values by −s·t·α.
        let mut t = if s > 0.0 {
            self.hi[q] - self.x[q]
        } else {
            self.x[q] - self.lo[q]
        };
        let mut leave: Option<(usize, f64)> = None;
        for (p, &a) in alpha.iter().enumerate() {
            let a = s * a;
            if a.abs() <= PIV_TOL {
                continue;
            }
            let j = self.basis[p];
            let room = if a > 0.0 {
                self.x[j] - self.lo[j]
            } else {
                self.hi[j] - self.x[j]
            };
            let tp = room.max(0.0) / a.abs();
            let tie = 1e-12 * (1.0 + t.min(tp));
            let better = match leave {
                _ if tp < t - tie => true,
                _ if tp > t + tie => false,
                None => false, // a tie with the entering column's own bound: flip it
                Some((lp, la)) => {
                    if bland {
                        self.basis[p] < self.basis[lp]
                    } else {
                        a.abs() > la.abs()
                    }
                }
            };
            if better {
                t = tp;
                leave = Some((p, a));
            }
        }
        if !t.is_finite() {
            return None;
        }
        self.x[q] += s * t;
        if let Some((p, a)) = leave {
            let j = self.basis[p];
            self.x[j] = if a > 0.0 { self.lo[j] } else { self.hi[j] };
            self.pos[j] = NONE;
            self.basis[p] = q;
            self.pos[q] = p as u32;
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A program like a region's: `k` unit generators around the up axis, the origin inside
    /// their cone, two small axes.
    fn program(rng: &mut Rng, k: usize) -> (Vec<Col>, [Col; 2], Col) {
        let mut signed = || 2.0 * rng.unit() as f64 - 1.0;
        let units: Vec<Col> = (0..k)
            .map(|_| {
                let v: Col = std::array::from_fn(|a| if a == 2 { 0.3 } else { 0.0 });
                let v = v.map(|x| x + signed());
                let n = norm(&v);
                v.map(|x| x / n)
            })
            .collect();
        let mut origin = [0.0; ROWS];
        for u in units.iter().take(ROWS) {
            for (o, x) in origin.iter_mut().zip(u) {
                *o += 0.3 * x;
            }
        }
        let axes = [
            std::array::from_fn(|_| 0.2 * signed()),
            std::array::from_fn(|_| 0.2 * signed()),
        ];
        (units, axes, origin)
    }

    /// What a solve ended in, its point and its duals, as bits.
    type Solved = (Ended, [u64; 2], [u64; ROWS]);

    fn solved(lp: &Simplex, ended: Ended) -> Solved {
        let u = lp.point(&mut Vec::new());
        (ended, u.map(f64::to_bits), lp.duals().map(f64::to_bits))
    }

    fn direction(t: usize) -> [f64; 2] {
        let a = 0.7 * t as f64;
        [a.cos(), a.sin()]
    }

    /// Pricing four columns at once (AVX2) enters the same columns as one at a time: every
    /// optimum and dual the same to the bit.
    #[test]
    fn pricing_with_avx2_and_without_gives_the_same_bits() {
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("avx2") {
            return; // nothing to compare the scalar pricing with here
        }
        let mut rng = Rng::new(7);
        for case in 0..200 {
            let (units, axes, origin) = program(&mut rng, 4 + case % 60);
            let runs: Vec<Vec<Solved>> = [false, true]
                .iter()
                .map(|&simd| {
                    let mut lp = Simplex::default();
                    lp.load(&units, &axes, &origin, 1.0, simd);
                    let first = lp.feasible();
                    let mut out = vec![solved(&lp, first)];
                    if first == Ended::Optimal {
                        out.extend((0..12).map(|t| {
                            let ended = lp.maximize(direction(t));
                            solved(&lp, ended)
                        }));
                    }
                    out
                })
                .collect();
            assert_eq!(runs[0], runs[1], "case {case}");
        }
    }

    /// A basis started from again with the factors it kept, or with the basis unchanged since
    /// its last factoring, solves as it does when factored afresh: the same bits.
    #[test]
    fn kept_factors_solve_as_factors_made_again() {
        let mut rng = Rng::new(11);
        let mut kept = 0;
        for case in 0..200 {
            let (units, axes, origin) = program(&mut rng, 6 + case % 40);
            let mut lp = Simplex::default();
            lp.load(&units, &axes, &origin, 1.0, false);
            if lp.feasible() != Ended::Optimal || lp.maximize(direction(0)) != Ended::Optimal {
                continue;
            }
            let warm = lp.warm();
            kept += usize::from(warm.lu.is_some());
            let ended = lp.maximize(direction(3));
            let after = solved(&lp, ended);
            // From the warm basis, with its factors and without.
            let mut again = |lu: Option<Lu>| {
                let mut from = warm;
                from.lu = lu;
                lp.restart(&from);
                let ended = lp.maximize(direction(5));
                let out = solved(&lp, ended);
                // The next direction, from the factors of the last basis or from none.
                let forget = lu.is_none();
                if forget {
                    lp.factored = None;
                }
                let ended = lp.maximize(direction(6));
                (out, solved(&lp, ended))
            };
            let with = again(warm.lu);
            let without = again(None);
            assert_eq!(with, without, "case {case}");
            assert_eq!(after.0, Ended::Optimal, "case {case}");
        }
        assert!(kept > 100, "only {kept} warm bases kept their factors");
    }
}
