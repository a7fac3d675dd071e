//! The general kernel's float32 search on the CPU: `shaders/search.wgsl` line for line
//! (same state, same order of operations, same constants), reading the same bytes the
//! host uploads. Its answer is only a hint: the host re-runs the search in float64 from it
//! ([`super::solver::Solver::solve_hinted`]) and checks every proof, so a wrong hint costs time,
//! never a wrong answer. `search_tests.rs` runs it against the shader.
//!
//! The search is Lawson–Hanson's active-set NNLS, min |Σ xᵢwᵢ − need| over x ≥ 0, on the
//! unit generators and the unit need: the passive set grows by the generator most against
//! the residual; the least squares on the passive set (at most d columns) by modified
//! Gram–Schmidt, orthogonalised twice; a weight reaching zero leaves the set. A column
//! dependent on the set, or one whose weight comes out non-positive at once, is banned until
//! the set next changes; a full set bans the candidate (it lies in the set's span). Every
//! loop is bounded: at most `3K + 30` outer iterations.

// Indexed loops and `!(a > b)` as the shader writes them: the twin reads line for line.
#![allow(
    clippy::needless_range_loop,
    clippy::nonminimal_bool,
    clippy::neg_cmp_op_on_partial_ord
)]
// The twin (`search`, its state and constants) and `pack_case` are the shader's test oracle:
// only the unit tests (`search_tests.rs`) call them.
#![cfg_attr(not(test), allow(dead_code))]

use rayon::prelude::*;

use super::linalg::norm;
use super::{GeneralBatch, GeneralCase};
use crate::general::types::{GeneralHint, GeneralRecord};

/// The search stopped with the need reproduced (residual at most `INSIDE_TOL`).
pub(crate) const HINT_INSIDE: u32 = 0;
/// The search stopped with no generator against the residual: the need looks outside.
pub(crate) const HINT_OUTSIDE: u32 = 1;
/// The iteration cap stopped the search.
pub(crate) const HINT_UNFINISHED: u32 = 2;

/// The largest dimension the search runs in (R⁷: the lifted grasp cones): the length of
/// the shader's arrays.
pub(crate) const MAX_DIM: usize = 7;

/// No generator chosen (also the shader's marker).
pub(crate) const NONE: u32 = u32::MAX;
/// A residual (unit need) at most this reads as inside.
pub(crate) const INSIDE_TOL: f32 = 1e-5;
/// A generator enters only when `w·r > GRADIENT_TOL·|r|`.
pub(crate) const GRADIENT_TOL: f32 = 1e-6;
/// A column whose part outside the passive set's span is at most this (relative) is
/// dependent on it.
pub(crate) const RANK_TOL: f32 = 1e-5;

/// `v` over its length, rounded to float32, into `out` (zeros for a zero vector).
fn write_unit(v: &[f64], out: &mut [f32]) {
    let n = norm(v);
    for (o, &x) in out.iter_mut().zip(v) {
        *o = if n > 0.0 { (x / n) as f32 } else { 0.0 };
    }
}

/// Writes a case's unit need, then its unit generators (each normalised in float64, then
/// rounded to float32; a zero generator stays zero) into `out` ([`case_values`] long).
fn write_case(case: &GeneralCase<'_>, out: &mut [f32]) {
    let d = case.dim;
    write_unit(case.need, &mut out[..d]);
    for i in 0..case.len() {
        write_unit(case.generator(i), &mut out[(i + 1) * d..(i + 2) * d]);
    }
}

/// Appends case `case` to a chunk's upload; returns its record.
pub(crate) fn pack_case(case: &GeneralCase<'_>, values: &mut Vec<f32>) -> GeneralRecord {
    let offset = values.len();
    values.resize(offset + case_values(case), 0.0);
    write_case(case, &mut values[offset..]);
    GeneralRecord {
        offset: offset as u32,
        count: case.len() as u32,
        dim: case.dim as u32,
        _pad: 0,
    }
}

/// Cases `range` of `batch` into `values` and `records` (cleared first): a chunk's upload.
/// The records first (offsets by a running sum), then the numbers, on all cores for a
/// large chunk (each core a run of cases and its slice of `values`).
pub(crate) fn pack_range(
    batch: &GeneralBatch,
    range: std::ops::Range<usize>,
    values: &mut Vec<f32>,
    records: &mut Vec<GeneralRecord>,
) {
    records.clear();
    let mut total = 0usize;
    for i in range.clone() {
        let case = batch.get(i);
        records.push(GeneralRecord {
            offset: total as u32,
            count: case.len() as u32,
            dim: case.dim as u32,
            _pad: 0,
        });
        total += case_values(&case);
    }
    values.clear();
    values.resize(total, 0.0);
    let first = range.start;
    if records.len() < 2048 {
        for (r, rec) in records.iter().enumerate() {
            let case = batch.get(first + r);
            let at = rec.offset as usize;
            write_case(&case, &mut values[at..at + case_values(&case)]);
        }
        return;
    }
    let per = records.len().div_ceil(rayon::current_num_threads() * 4);
    let mut runs = Vec::new();
    let mut rest: &mut [f32] = values;
    let mut a = 0;
    while a < records.len() {
        let b = (a + per).min(records.len());
        let end = records.get(b).map_or(total, |r| r.offset as usize);
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(end - records[a].offset as usize);
        runs.push((a..b, head));
        rest = tail;
        a = b;
    }
    let records = &records[..];
    runs.into_par_iter().for_each(|(run, slice)| {
        let base = records[run.start].offset as usize;
        for r in run {
            let case = batch.get(first + r);
            let at = records[r].offset as usize - base;
            write_case(&case, &mut slice[at..at + case_values(&case)]);
        }
    });
}

/// The float32 numbers one case takes in the upload.
pub(crate) fn case_values(case: &GeneralCase<'_>) -> usize {
    case.dim * (case.len() + 1)
}

/// The kernel's per-invocation state (its `var<private>`s).
struct State<'a> {
    values: &'a [f32],
    d: usize,
    /// Index of generator 0's first number.
    g0: usize,
    need: [f32; MAX_DIM],
    res: [f32; MAX_DIM],
    passive: [u32; MAX_DIM],
    x: [f32; MAX_DIM],
    z: [f32; MAX_DIM],
    q: [[f32; MAX_DIM]; MAX_DIM],
    r: [[f32; MAX_DIM]; MAX_DIM],
    banned: [u32; 8],
}

impl State<'_> {
    /// Component `a` of generator `i` (the shader's `gen`).
    fn gen(&self, i: u32, a: usize) -> f32 {
        self.values[self.g0 + i as usize * self.d + a]
    }

    fn is_banned(&self, i: u32) -> bool {
        (self.banned[(i >> 5) as usize] >> (i & 31)) & 1 == 1
    }

    fn ban(&mut self, i: u32) {
        self.banned[(i >> 5) as usize] |= 1 << (i & 31);
    }

    fn is_passive(&self, i: u32, len: usize) -> bool {
        let mut found = false;
        for a in 0..len {
            found = found || self.passive[a] == i;
        }
        found
    }

    /// Least squares on the passive set's `len` columns towards the need into `z`; false
    /// when a column is dependent on those before it.
    fn least_squares(&mut self, len: usize) -> bool {
        let d = self.d;
        for k in 0..len {
            for j in 0..MAX_DIM {
                self.r[j][k] = 0.0;
            }
            let mut v = [0.0f32; MAX_DIM];
            for a in 0..d {
                v[a] = self.gen(self.passive[k], a);
            }
            let mut nv = 0.0f32;
            for a in 0..d {
                nv += v[a] * v[a];
            }
            nv = nv.sqrt();
            for _twice in 0..2 {
                for j in 0..k {
                    let mut c = 0.0f32;
                    for a in 0..d {
                        c += v[a] * self.q[j][a];
                    }
                    self.r[j][k] += c;
                    for a in 0..d {
                        v[a] -= c * self.q[j][a];
                    }
                }
            }
            let mut n = 0.0f32;
            for a in 0..d {
                n += v[a] * v[a];
            }
            n = n.sqrt();
            if !(n > RANK_TOL * nv) {
                return false;
            }
            self.r[k][k] = n;
            for a in 0..d {
                self.q[k][a] = v[a] / n;
            }
        }
        for kk in 0..len {
            let k = len - 1 - kk;
            let mut s = 0.0f32;
            for a in 0..d {
                s += self.q[k][a] * self.need[a];
            }
            for j in k + 1..len {
                s -= self.r[k][j] * self.z[j];
            }
            self.z[k] = s / self.r[k][k];
        }
        true
    }

    /// `res = need − Σ x_a w_a` over the passive set.
    fn residual(&mut self, len: usize) {
        for a in 0..self.d {
            self.res[a] = self.need[a];
        }
        for p in 0..len {
            for a in 0..self.d {
                self.res[a] -= self.x[p] * self.gen(self.passive[p], a);
            }
        }
    }

    fn res_len(&self) -> f32 {
        let mut s = 0.0f32;
        for a in 0..self.d {
            s += self.res[a] * self.res[a];
        }
        s.sqrt()
    }
}

/// The float32 search of one case of a chunk's upload, as the shader runs it.
pub(crate) fn search(values: &[f32], record: &GeneralRecord) -> GeneralHint {
    let d = record.dim as usize;
    let k = record.count;
    let base = record.offset as usize;
    let mut s = State {
        values,
        d,
        g0: base + d,
        need: [0.0; MAX_DIM],
        res: [0.0; MAX_DIM],
        passive: [0; MAX_DIM],
        x: [0.0; MAX_DIM],
        z: [0.0; MAX_DIM],
        q: [[0.0; MAX_DIM]; MAX_DIM],
        r: [[0.0; MAX_DIM]; MAX_DIM],
        banned: [0; 8],
    };
    for a in 0..d {
        s.need[a] = values[base + a];
        s.res[a] = s.need[a];
    }
    let mut len = 0usize;
    let mut status = HINT_UNFINISHED;
    let cap = 3 * k + 30;
    let mut iterations = 0u32;
    while iterations < cap {
        iterations += 1;
        let dist = s.res_len();
        if dist <= INSIDE_TOL {
            status = HINT_INSIDE;
            break;
        }
        // The generator most against the residual, among those not passive nor banned.
        let mut best_g = GRADIENT_TOL * dist;
        let mut best = NONE;
        for i in 0..k {
            if s.is_banned(i) || s.is_passive(i, len) {
                continue;
            }
            let mut g = 0.0f32;
            for a in 0..d {
                g += s.gen(i, a) * s.res[a];
            }
            if g > best_g {
                best_g = g;
                best = i;
            }
        }
        if best == NONE {
            status = HINT_OUTSIDE;
            break;
        }
        let j = best;
        if len == d {
            s.ban(j); // a full passive set: j lies in its span
            continue;
        }
        s.passive[len] = j;
        s.x[len] = 0.0;
        len += 1;
        let mut first = true;
        // At most max(d, 6) + 1 steps (the bound of R³ and R⁶ kept as it was).
        for _step in 0..=s.d.max(6) {
            if !s.least_squares(len) {
                len -= 1; // dependent on the passive set: leave it out
                s.ban(j);
                break;
            }
            let mut all_positive = true;
            for a in 0..len {
                all_positive = all_positive && s.z[a] > 0.0;
            }
            if all_positive {
                for a in 0..len {
                    s.x[a] = s.z[a];
                }
                s.banned = [0; 8];
                break;
            }
            if first && s.z[len - 1] <= 0.0 {
                len -= 1; // its gradient said it helps, its weight says not
                s.ban(j);
                break;
            }
            first = false;
            // Step from x towards z until the first weight reaches zero; that one leaves.
            // (Some z ≤ 0, so some t ≤ 1 replaces the 2.)
            let mut alpha = 2.0f32;
            let mut leaving = 0usize;
            for a in 0..len {
                if s.z[a] <= 0.0 {
                    let den = s.x[a] - s.z[a];
                    let t = if den > 0.0 { s.x[a] / den } else { 0.0 };
                    if t < alpha {
                        alpha = t;
                        leaving = a;
                    }
                }
            }
            for a in 0..len {
                s.x[a] += alpha * (s.z[a] - s.x[a]);
            }
            s.x[leaving] = 0.0;
            let mut kept = 0usize;
            for a in 0..len {
                if s.x[a] > 0.0 {
                    s.passive[kept] = s.passive[a];
                    s.x[kept] = s.x[a];
                    kept += 1;
                }
            }
            len = kept;
            if len == 0 {
                break;
            }
        }
        s.residual(len);
    }
    let mut index = [0u32; 8];
    index[..len].copy_from_slice(&s.passive[..len]);
    GeneralHint {
        status,
        len: len as u32,
        index,
        residual: s.res_len(),
        iterations,
    }
}
