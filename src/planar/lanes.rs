//! The CPU fast path: `cone_test` run on `L` cases at once, one SIMD lane per case
//! (16 with AVX-512, 8 with AVX2 or the portable baseline; see `simd.rs`).
//!
//! Same tables, same order, same float32 operations as `cone_test` (and the shader): the
//! power-of-two prescaling read from the float bits, the exact product errors of thin
//! pairs, `conclude` itself. The answers are bit for bit those of the reference on every
//! instruction set (`tests/planar/lanes.rs` compares the bytes). What it saves:
//!
//! - Cases are grouped by the slots they use (one past the highest active slot), and each
//!   group of `L` walks only those slots: an inactive slot is the zero vector, which never
//!   forms a witness, never gives a valid candidate and never fails a support test, so the
//!   subsets and candidates that touch it change nothing. Outcomes go back in input order.
//! - Running minima and maxima are `minps`/`maxps` (exactly the reference's `lo`/`hi`),
//!   those of the outer index kept in registers across the inner loop, in the reference's
//!   order of updates.
//! - The witness search stops once every lane of the group has a witness, and a
//!   ± pair of candidates shares its norm and quotient, computed only where one of the two
//!   supports the cone in some lane.
//!
//! The rare lane whose cone fills R³ with no witness at the need's scale is handed to the
//! reference for its second look.

use rayon::prelude::*;
use std::array::from_fn;

use super::cone_test::{
    conclude, cross, diff_of_products, dot, Found, Prescaled, EPS, NONE_YET, THIN,
};
use super::tables::{
    witness_subsets, APEX, FIRST_GENERATOR_DIRECTION, FIRST_GENERATOR_PLANE, FIRST_PAIR,
    FIRST_PERPENDICULAR, FIRST_TRIPLE, PAIR_COUNT,
};
use super::types::{Case, Outcome, MAX_GENERATORS, NO_BINDING};
#[cfg(target_arch = "x86_64")]
use crate::simd::{Avx2, Avx512};
use crate::simd::{Lanes, Portable, Simd};

/// The widest group (AVX-512).
const MAX_LANES: usize = 16;

/// Cases sorted together by the slots they use.
const BLOCK: usize = 1024;

/// `pair_index` of the tables, for array indices.
#[inline(always)]
fn pair(i: usize, j: usize) -> usize {
    i * (31 - i) / 2 + (j - i - 1)
}

/// One past the highest active slot: the slots a case's search must walk.
#[inline(always)]
fn slots(case: &Case) -> usize {
    let mask = case.active_mask & ((1u32 << MAX_GENERATORS) - 1);
    (u32::BITS - mask.leading_zeros()) as usize
}

/// The cone test of every case on one thread, with the instruction set `PLANAR_HOLD_SIMD`
/// names, else the best this CPU has ([`Simd::chosen`]).
pub fn cone_test_slice(cases: &[Case], out: &mut [Outcome]) {
    cone_test_slice_with(Simd::chosen(), cases, out);
}

/// As `cone_test_slice`, with the given instruction set.
///
/// # Panics
///
/// If `cases` and `out` differ in length, or this CPU cannot run `simd`
/// ([`Simd::available`]).
pub fn cone_test_slice_with(simd: Simd, cases: &[Case], out: &mut [Outcome]) {
    assert_eq!(cases.len(), out.len(), "one outcome per case");
    assert!(simd.available(), "this CPU cannot run {simd}");
    match simd {
        // SAFETY: the CPU has the instructions, checked just above.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { slice_avx512(cases, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { slice_avx2(cases, out) },
        _ => slice::<Portable>(cases, out),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2")]
unsafe fn slice_avx512(cases: &[Case], out: &mut [Outcome]) {
    slice::<Avx512>(cases, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn slice_avx2(cases: &[Case], out: &mut [Outcome]) {
    slice::<Avx2>(cases, out);
}

/// Sorts each block of cases by the slots they use, runs groups of `S::L` (the last one
/// padded with copies of its last case) and puts the outcomes back in order.
#[inline(always)]
fn slice<S: Lanes>(cases: &[Case], out: &mut [Outcome]) {
    let mut kernel = Kernel::<S>::new();
    let mut order = [0u16; BLOCK];
    for (cases, out) in cases.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
        // Counting sort by slots in use, stable.
        let mut start = [0usize; MAX_GENERATORS + 2];
        for c in cases {
            start[slots(c) + 1] += 1;
        }
        for s in 1..start.len() {
            start[s] += start[s - 1];
        }
        for (k, c) in cases.iter().enumerate() {
            let s = slots(c);
            order[start[s]] = k as u16;
            start[s] += 1;
        }
        for group in order[..cases.len()].chunks(S::L) {
            let last = group[group.len() - 1] as usize;
            let lanes: [usize; MAX_LANES] = from_fn(|l| group.get(l).map_or(last, |&k| k as usize));
            let answers = kernel.run(cases, &lanes, slots(&cases[last]));
            for (&k, answer) in group.iter().zip(answers) {
                out[k as usize] = answer;
            }
        }
    }
}

/// Three components, each over the lanes.
type V3s<S> = [S; 3];

/// `pair_cross` of the reference, per lane: the accurate product only where some lane's
/// pair is thin, taken on those lanes alone.
#[inline(always)]
fn pair_cross<S: Lanes>(a: &V3s<S>, b: &V3s<S>, a_len: S, b_len: S) -> V3s<S> {
    let c = cross(*a, *b);
    let bound = S::splat(THIN) * a_len * b_len;
    let thin = dot(c, c).lt(bound * bound);
    if !S::any(thin) {
        return c;
    }
    let accurate = [
        diff_of_products(a[1], b[2], a[2], b[1]),
        diff_of_products(a[2], b[0], a[0], b[2]),
        diff_of_products(a[0], b[1], a[1], b[0]),
    ];
    from_fn(|k| S::select(thin, accurate[k], c[k]))
}

/// `cross_axis` of the reference, per lane.
#[inline(always)]
fn cross_axis<S: Lanes>(w: &V3s<S>, axis: usize) -> V3s<S> {
    let zero = S::splat(0.0);
    match axis {
        0 => [zero, w[2], -w[1]],
        1 => [-w[2], zero, w[0]],
        _ => [w[1], -w[0], zero],
    }
}

/// Everything one group computes, allocated once per slice: each group writes the slots
/// and pairs it uses before reading them, and reads no others.
struct Kernel<S: Lanes> {
    /// The group's cases transposed, then prescaled: component `a` of slot `i` (the need at
    /// slot 16) by lane.
    raw: [[[f32; MAX_LANES]; 3]; MAX_GENERATORS + 1],
    /// The prescaling exponents `e` of slot `i` (the need at slot 16) by lane.
    exponents: [[f32; MAX_LANES]; MAX_GENERATORS + 1],
    w: [V3s<S>; MAX_GENERATORS],
    need: V3s<S>,
    need_len: S,
    len: [S; MAX_GENERATORS],
    inv_len: [S; MAX_GENERATORS],
    /// `EPS·|wᵢ|`, the first factor of every independence test.
    eps_len: [S; MAX_GENERATORS],
    need_dot: [S; MAX_GENERATORS],
    need_cross: [V3s<S>; MAX_GENERATORS],
    /// Running min/max over k of wᵢ·wₖ/|wₖ| and of (wᵢ×wₖ)/|wₖ| (reference's names).
    dir_lo: [S; MAX_GENERATORS],
    dir_hi: [S; MAX_GENERATORS],
    axis_lo: [V3s<S>; MAX_GENERATORS],
    axis_hi: [V3s<S>; MAX_GENERATORS],
    c: [V3s<S>; PAIR_COUNT],
    c_len: [S; PAIR_COUNT],
    c_need: [S; PAIR_COUNT],
    plane_lo: [S; PAIR_COUNT],
    plane_hi: [S; PAIR_COUNT],
    /// `(−ε)·|need|`: a force below it rejects a witness.
    threshold: S,
    /// `(ε·|need|)²`: the largest squared residual a witness may leave.
    tolerance2: S,
}

/// The witness search, per lane: the first subset (table index) that passed, its weights.
struct Search<S: Lanes> {
    have: S::Mask,
    /// All lanes set.
    full: u32,
    subset: [u32; MAX_LANES],
    weight: [S; 3],
}

impl<S: Lanes> Search<S> {
    #[inline(always)]
    fn done(&self) -> bool {
        S::bits(self.have) == self.full
    }
}

impl<S: Lanes> Kernel<S> {
    #[inline(always)]
    fn new() -> Self {
        let z = S::splat(0.0);
        Kernel {
            raw: [[[0.0; MAX_LANES]; 3]; MAX_GENERATORS + 1],
            exponents: [[0.0; MAX_LANES]; MAX_GENERATORS + 1],
            w: [[z; 3]; MAX_GENERATORS],
            need: [z; 3],
            need_len: z,
            len: [z; MAX_GENERATORS],
            inv_len: [z; MAX_GENERATORS],
            eps_len: [z; MAX_GENERATORS],
            need_dot: [z; MAX_GENERATORS],
            need_cross: [[z; 3]; MAX_GENERATORS],
            dir_lo: [z; MAX_GENERATORS],
            dir_hi: [z; MAX_GENERATORS],
            axis_lo: [[z; 3]; MAX_GENERATORS],
            axis_hi: [[z; 3]; MAX_GENERATORS],
            c: [[z; 3]; PAIR_COUNT],
            c_len: [z; PAIR_COUNT],
            c_need: [z; PAIR_COUNT],
            plane_lo: [z; PAIR_COUNT],
            plane_hi: [z; PAIR_COUNT],
            threshold: z,
            tolerance2: z,
        }
    }

    /// `ok` where every force `λₖ|wₖ|` is at least the threshold (the force test of `check`).
    #[inline(always)]
    fn signs<const N: usize>(
        &self,
        mut ok: S::Mask,
        index: &[usize; N],
        weight: &[S; N],
    ) -> S::Mask {
        for k in 0..N {
            // Negated as in the reference: only a force below the threshold rejects.
            ok = ok & !(weight[k] * self.len[index[k]]).lt(self.threshold);
        }
        ok
    }

    /// The weights clamped at zero, and where the residual `Σλw − need` is within tolerance.
    #[inline(always)]
    fn residual<const N: usize>(
        &self,
        index: &[usize; N],
        weight: &[S; N],
    ) -> ([S; N], V3s<S>, S::Mask) {
        let zero = S::splat(0.0);
        let clamped: [S; N] = from_fn(|k| weight[k].max(zero));
        let mut sum = [zero; 3];
        for k in 0..N {
            for (total, wa) in sum.iter_mut().zip(&self.w[index[k]]) {
                *total = *total + clamped[k] * *wa;
            }
        }
        let r: V3s<S> = from_fn(|a| sum[a] - self.need[a]);
        let within = dot(r, r).le(self.tolerance2);
        (clamped, r, within)
    }

    /// The strict `check` of subset `t` (slots `index`) on the lanes where `valid` and no
    /// witness is known yet, with `attempt`'s refinement step for a triple (determinant
    /// `det`) whose residual alone failed.
    #[inline(always)]
    fn offer<const N: usize>(
        &self,
        search: &mut Search<S>,
        t: usize,
        index: [usize; N],
        weight: [S; N],
        valid: S::Mask,
        det: S,
    ) {
        let ok = self.signs(valid & !search.have, &index, &weight);
        // Most subsets fail on a negative weight: the residual only where some lane passed.
        if !S::any(ok) {
            return;
        }
        let (mut chosen, r, pass) = self.residual(&index, &weight);
        let mut take = ok & pass;
        let retry = ok & !pass;
        if N == 3 && S::any(retry) {
            // `solve` of the reference for a triple: Cramer with the shared cross products.
            let (i, j, k) = (index[0], index[1], index[2 % N]);
            let step = [
                dot(self.c[pair(j, k)], r) / det,
                -dot(self.c[pair(i, k)], r) / det,
                dot(self.c[pair(i, j)], r) / det,
            ];
            let refined: [S; N] = from_fn(|k| chosen[k] - step[k]);
            let ok = self.signs(retry, &index, &refined);
            if S::any(ok) {
                let (clamped, _, within) = self.residual(&index, &refined);
                let take_refined = ok & within;
                chosen = from_fn(|k| S::select(take_refined, clamped[k], chosen[k]));
                take = take | take_refined;
            }
        }
        for (kept, new) in search.weight.iter_mut().zip(chosen) {
            *kept = S::select(take, new, *kept);
        }
        let mut bits = S::bits(take);
        while bits != 0 {
            search.subset[bits.trailing_zeros() as usize] = t as u32;
            bits &= bits - 1;
        }
        search.have = search.have | take;
    }

    /// The outcomes of the cases `lanes` (indices into `cases`), which use slots `0..n` only.
    #[inline(always)]
    fn run(
        &mut self,
        cases: &[Case],
        lanes: &[usize; MAX_LANES],
        n: usize,
    ) -> [Outcome; MAX_LANES] {
        let zero = S::splat(0.0);

        // Transpose: component `a` of slot `i` over the lanes (the need at slot 16);
        // inactive slots are zero.
        let raw = &mut self.raw;
        for (l, &k) in lanes.iter().enumerate().take(S::L) {
            let case = &cases[k];
            for (lanes, &value) in raw[MAX_GENERATORS].iter_mut().zip(&case.need) {
                lanes[l] = value;
            }
            for (i, (slot, g)) in raw.iter_mut().zip(&case.generators).enumerate().take(n) {
                let active = case.active_mask >> i & 1 == 1;
                for (lanes, &value) in slot.iter_mut().zip(g) {
                    lanes[l] = if active { value } else { 0.0 };
                }
            }
        }
        // `Prescaled::of` of the reference, per lane: each vector times `2^-e`, its largest
        // component then in [2, 4). The scaled vectors and exponents go back into `raw` and
        // `exponents` for `conclude`.
        for slot in (0..n).chain([MAX_GENERATORS]) {
            let v: V3s<S> = from_fn(|a| S::load(&self.raw[slot][a]));
            let top = v[0].abs().max(v[1].abs()).max(v[2].abs());
            let (factor, e) = top.prescale();
            let scaled: V3s<S> = from_fn(|a| factor * v[a]);
            for (a, component) in scaled.iter().enumerate() {
                component.store(&mut self.raw[slot][a]);
            }
            e.store(&mut self.exponents[slot]);
            if slot == MAX_GENERATORS {
                self.need = scaled;
            } else {
                self.w[slot] = scaled;
            }
        }
        let need = self.need;
        let need_len = dot(need, need).sqrt();
        self.need_len = need_len;
        self.threshold = S::splat(-EPS) * need_len;
        let tolerance = S::splat(EPS) * need_len;
        self.tolerance2 = tolerance * tolerance;

        for i in 0..n {
            let wi = self.w[i];
            let len = dot(wi, wi).sqrt();
            self.len[i] = len;
            self.inv_len[i] = S::select(len.gt(zero), S::splat(1.0) / len, zero);
            self.eps_len[i] = S::splat(EPS) * len;
            self.need_dot[i] = dot(need, wi);
            self.need_cross[i] = cross(need, wi);
            self.dir_lo[i] = len;
            self.dir_hi[i] = len;
            self.axis_lo[i] = [zero; 3];
            self.axis_hi[i] = [zero; 3];
        }

        let full = (1u32 << S::L) - 1;
        let mut search = Search::<S> {
            have: need_len.eq(zero),
            full,
            subset: [u32::MAX; MAX_LANES],
            weight: [zero; 3],
        };

        // Singles: projection.
        for i in 0..n {
            if search.done() {
                break;
            }
            let len = self.len[i];
            let det = len * len;
            self.offer(
                &mut search,
                i,
                [i],
                [self.need_dot[i] / det],
                len.gt(zero),
                det,
            );
        }

        // Pairs: cross products, their need numerators, 2×2 normal equations; the running
        // extremes of slot `i` in registers across `j`.
        for i in 0..n {
            let wi = self.w[i];
            let inv_i = self.inv_len[i];
            let (mut dir_lo_i, mut dir_hi_i) = (self.dir_lo[i], self.dir_hi[i]);
            let (mut axis_lo_i, mut axis_hi_i) = (self.axis_lo[i], self.axis_hi[i]);
            for j in i + 1..n {
                let p = pair(i, j);
                let wj = self.w[j];
                let inv_j = self.inv_len[j];
                let cp = pair_cross(&wi, &wj, self.len[i], self.len[j]);
                let cl2 = dot(cp, cp);
                let cl = cl2.sqrt();
                self.c[p] = cp;
                self.c_len[p] = cl;
                self.c_need[p] = dot(cp, need);
                self.plane_lo[p] = zero;
                self.plane_hi[p] = zero;
                let g = dot(wi, wj);
                let (gj, gi) = (g * inv_j, g * inv_i);
                dir_lo_i = dir_lo_i.min(gj);
                dir_hi_i = dir_hi_i.max(gj);
                self.dir_lo[j] = self.dir_lo[j].min(gi);
                self.dir_hi[j] = self.dir_hi[j].max(gi);
                for a in 0..3 {
                    let (cj, ci) = (cp[a] * inv_j, (-cp[a]) * inv_i);
                    axis_lo_i[a] = axis_lo_i[a].min(cj);
                    axis_hi_i[a] = axis_hi_i[a].max(cj);
                    self.axis_lo[j][a] = self.axis_lo[j][a].min(ci);
                    self.axis_hi[j][a] = self.axis_hi[j][a].max(ci);
                }
                if !search.done() {
                    let valid = cl.gt(self.eps_len[i] * self.len[j]);
                    let weight = [
                        dot(self.need_cross[j], cp) / cl2,
                        -dot(self.need_cross[i], cp) / cl2,
                    ];
                    self.offer(&mut search, FIRST_PAIR + p, [i, j], weight, valid, cl2);
                }
            }
            self.dir_lo[i] = dir_lo_i;
            self.dir_hi[i] = dir_hi_i;
            self.axis_lo[i] = axis_lo_i;
            self.axis_hi[i] = axis_hi_i;
        }

        // Triples: D = det(wᵢ, wⱼ, wₖ) = cᵢⱼ·wₖ, shared by Cramer and the pair-plane supports
        // (cᵢⱼ·wₖ = D, cᵢₖ·wⱼ = −D, cⱼₖ·wᵢ = D); those of pair ij in registers across k.
        let mut t = FIRST_TRIPLE;
        for i in 0..n {
            for j in i + 1..n {
                let pij = pair(i, j);
                let cij = self.c[pij];
                let c_need_ij = self.c_need[pij];
                let (mut lo_ij, mut hi_ij) = (self.plane_lo[pij], self.plane_hi[pij]);
                let eps_ij = self.eps_len[i] * self.len[j];
                let (inv_i, inv_j) = (self.inv_len[i], self.inv_len[j]);
                for k in j + 1..n {
                    let (pik, pjk) = (pair(i, k), pair(j, k));
                    debug_assert_eq!(witness_subsets()[t], [i, j, k, 3].map(|x| x as u32));
                    let d = dot(cij, self.w[k]);
                    let (dk, dj, di) = (d * self.inv_len[k], (-d) * inv_j, d * inv_i);
                    lo_ij = lo_ij.min(dk);
                    hi_ij = hi_ij.max(dk);
                    self.plane_lo[pik] = self.plane_lo[pik].min(dj);
                    self.plane_hi[pik] = self.plane_hi[pik].max(dj);
                    self.plane_lo[pjk] = self.plane_lo[pjk].min(di);
                    self.plane_hi[pjk] = self.plane_hi[pjk].max(di);
                    if !search.done() {
                        let valid = d.abs().gt(eps_ij * self.len[k]) & !search.have;
                        let numerators = [self.c_need[pjk], -self.c_need[pik], c_need_ij];
                        if S::any(valid) {
                            let weight = numerators.map(|x| x / d);
                            self.offer(&mut search, t, [i, j, k], weight, valid, d);
                        }
                    }
                    t += 1;
                }
                self.plane_lo[pij] = lo_ij;
                self.plane_hi[pij] = hi_ij;
                // The triples (i, j, k ≥ n) of the table: none passes.
                t += MAX_GENERATORS - n;
            }
            // And those (i, j ≥ n, k).
            t += (n..MAX_GENERATORS)
                .map(|j| MAX_GENERATORS - 1 - j)
                .sum::<usize>();
        }

        let best = self.candidates(n);

        let subsets = witness_subsets();
        let mut len = [[0.0f32; MAX_LANES]; MAX_GENERATORS];
        let mut need_dot = [[0.0f32; MAX_LANES]; MAX_GENERATORS];
        for i in 0..n {
            self.len[i].store(&mut len[i]);
            self.need_dot[i].store(&mut need_dot[i]);
        }
        let mut need_len = [0.0f32; MAX_LANES];
        self.need_len.store(&mut need_len);
        let (mut best_dot, mut best_index) = ([0.0f32; MAX_LANES], [0.0f32; MAX_LANES]);
        best.0.store(&mut best_dot);
        best.1.store(&mut best_index);
        let mut weight = [[0.0f32; MAX_LANES]; 3];
        for (k, w) in search.weight.iter().enumerate() {
            w.store(&mut weight[k]);
        }
        let have = S::bits(search.have);
        from_fn(|l| {
            let case = &cases[lanes[l.min(S::L - 1)]];
            if l >= S::L {
                return Outcome::default();
            }
            let binding = if best_index[l] < 0.0 {
                NO_BINDING
            } else {
                best_index[l] as u32
            };
            let found = have >> l & 1 == 1;
            if binding == NO_BINDING && !found {
                // The cone fills R³ but no witness passed at the need's scale: the
                // reference's second look at the wider scale (rare), for this lane alone.
                return super::cone_test::cone_test(case);
            }
            // No subset with a witness is need = 0's empty witness.
            let found = found.then(|| {
                subsets
                    .get(search.subset[l] as usize)
                    .map_or(Found::default(), |s| {
                        Found::of(*s, [weight[0][l], weight[1][l], weight[2][l]])
                    })
            });
            let (raw, e) = (&self.raw, &self.exponents);
            let scaled = Prescaled {
                need: from_fn(|a| raw[MAX_GENERATORS][a][l]),
                w: from_fn(|i| {
                    if i < n {
                        from_fn(|a| raw[i][a][l])
                    } else {
                        [0.0; 3]
                    }
                }),
                e_need: e[MAX_GENERATORS][l] as i32,
                e_gen: from_fn(|i| if i < n { e[i][l] as i32 } else { 0 }),
            };
            conclude(
                binding,
                best_dot[l],
                found,
                &scaled,
                need_len[l],
                from_fn(|i| need_dot[i][l]),
                from_fn(|i| len[i][l]),
            )
        })
    }

    /// The nearest supporting candidate of each lane, in table order over slots `0..n`:
    /// `(y·need, table index or −1)`.
    #[inline(always)]
    fn candidates(&self, n: usize) -> (S, S) {
        let zero = S::splat(0.0);
        let eps = S::splat(EPS);
        let neg_eps = S::splat(-EPS);
        let mut best_dot = S::splat(NONE_YET);
        let mut best = S::splat(-1.0);
        let mut consider = |valid_supports: S::Mask, y_need: S, index: usize, best_dot: &mut S| {
            let better = valid_supports & y_need.lt(*best_dot);
            *best_dot = S::select(better, y_need, *best_dot);
            best = S::select(better, S::splat(index as f32), best);
        };

        // ±(wᵢ × wⱼ): y·need = ±c_need/|c|.
        for i in 0..n {
            for j in i + 1..n {
                let p = pair(i, j);
                let cl = self.c_len[p];
                let valid = cl.gt(self.eps_len[i] * self.len[j]);
                let plus = valid & self.plane_lo[p].ge(neg_eps * cl);
                let minus = valid & self.plane_hi[p].le(eps * cl);
                if S::any(plus | minus) {
                    let q = self.c_need[p] / cl;
                    consider(plus, q, 2 * p, &mut best_dot);
                    consider(minus, -q, 2 * p + 1, &mut best_dot);
                }
            }
        }
        // ±wᵢ.
        for i in 0..n {
            let len = self.len[i];
            let valid = len.gt(zero);
            let plus = valid & self.dir_lo[i].ge(neg_eps * len);
            let minus = valid & self.dir_hi[i].le(eps * len);
            let q = self.need_dot[i] * self.inv_len[i];
            let index = FIRST_GENERATOR_DIRECTION + 2 * i;
            consider(plus, q, index, &mut best_dot);
            consider(minus, -q, index + 1, &mut best_dot);
        }
        // −(need − (need·wᵢ / wᵢ·wᵢ) wᵢ): `perpendicular` of the reference, projection and
        // one Gram–Schmidt step.
        for i in 0..n {
            let (wi, len) = (self.w[i], self.len[i]);
            let positive = len.gt(zero);
            let w2 = len * len;
            let t = S::select(positive, self.need_dot[i] / w2, zero);
            let y0: V3s<S> = from_fn(|a| t * wi[a] - self.need[a]);
            let s = S::select(positive, dot(y0, wi) / w2, zero);
            let y: V3s<S> = from_fn(|a| y0[a] - s * wi[a]);
            let yl = dot(y, y).sqrt();
            let valid = positive & yl.gt(eps * self.need_len);
            let y_need = dot(y, self.need) / yl;
            // Only lanes this candidate could improve need its support test, and that
            // test ends once no lane still passes: the same answers, less work.
            let mut supports = valid & y_need.lt(best_dot);
            let neg_eps_yl = neg_eps * yl;
            for k in 0..n {
                if !S::any(supports) {
                    break;
                }
                supports = supports & dot(y, self.w[k]).ge(neg_eps_yl * self.len[k]);
            }
            consider(supports, y_need, FIRST_PERPENDICULAR + i, &mut best_dot);
        }
        // ±(wᵢ × e_a): (wᵢ × e_a)·wₖ = −(wᵢ × wₖ)_a.
        for i in 0..n {
            let eps_len = self.eps_len[i];
            for a in 0..3 {
                let u = cross_axis(&self.w[i], a);
                let ul = dot(u, u).sqrt();
                let valid = ul.gt(eps_len);
                let plus = valid & self.axis_hi[i][a].le(eps * ul);
                let minus = valid & self.axis_lo[i][a].ge(neg_eps * ul);
                if S::any(plus | minus) {
                    let q = dot(u, self.need) / ul;
                    let index = FIRST_GENERATOR_PLANE + 6 * i + 2 * a;
                    consider(plus, q, index, &mut best_dot);
                    consider(minus, -q, index + 1, &mut best_dot);
                }
            }
        }
        // −need.
        let mut supports = self.need_len.gt(zero);
        let eps_need = eps * self.need_len;
        for k in 0..n {
            supports = supports & self.need_dot[k].le(eps_need * self.len[k]);
        }
        consider(supports, -self.need_len, APEX, &mut best_dot);
        (best_dot, best)
    }
}

/// The cone test of every case on all cores (rayon), in order, into a caller's buffer of
/// the same length (no allocation): what [`crate::Engine`] runs on the CPU.
/// Runs the lane-parallel path (`cone_test_slice`), bit for bit the reference's answers.
pub fn cone_test_batch_into(cases: &[Case], out: &mut [Outcome]) {
    assert_eq!(cases.len(), out.len(), "one outcome per case");
    /// Cases per rayon task: large enough to amortise scheduling, small enough to balance.
    const GRAIN: usize = 256;
    if cases.len() <= GRAIN {
        // One task's worth: no thread hand-off for a latency-bound call.
        cone_test_slice(cases, out);
        return;
    }
    out.par_chunks_mut(GRAIN)
        .zip(cases.par_chunks(GRAIN))
        .for_each(|(o, c)| cone_test_slice(c, o));
}
