//! The active-set NNLS (Lawson–Hanson) on the unit generators: membership, the witness,
//! the nearest certificate and the distance; and the certificate tilted off near-duplicates.

use super::columns::most_against;
use super::{Solver, MAX_DIM, RANK_TOL};
use crate::general::linalg::{dot, norm, Qr, Vector};

/// [`most_against`]'s mask for a position left out.
const OUT: f64 = f64::NEG_INFINITY;

/// The outcome of the NNLS step in unit scale.
pub(super) struct Nnls {
    pub(super) passive: [u32; MAX_DIM],
    pub(super) weights: Vector,
    pub(super) len: usize,
    pub(super) residual: Vector,
    pub(super) dist: f64,
}

impl Solver {
    /// Lawson–Hanson NNLS on the unit generators towards the unit need `x`, from the
    /// passive set `hint` when its least-squares weights are all positive (else from empty).
    ///
    /// Each step's gradient `u·r` over every distinct generator runs on their coordinates
    /// laid out column by column ([`gradient`], AVX2 where the CPU has it: the same sums in
    /// the same order, so the same bits either way).
    pub(super) fn nnls(&mut self, d: usize, x: &Vector, hint: &[u32]) -> Nnls {
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
    pub(super) fn tilted(&mut self, d: usize, y: &Vector, dist: f64) -> Option<Vector> {
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
}
