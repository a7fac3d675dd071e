//! The CPU reference: `shaders/cone_test.wgsl` ported line for line, reading the same
//! `Case` bytes and the same tables, writing the same `Outcome` bytes.
//!
//! Pair-major, as the shader must be to keep its per-invocation arrays small (docs/contract-planar.md §4–§6):
//! a first pass over the 120 pairs solves them and keeps their need numerators `cᵢⱼ·need`;
//! the main pass takes each pair `(i, j)` in table order with `cᵢⱼ = wᵢ × wⱼ` at hand, runs
//! the triples `(i, j, k)`, `k > j`, whose determinants `cᵢⱼ·wₖ` also bound the pair's plane,
//! and decides the pair's two plane candidates there; every other candidate's support test
//! is a direct loop over the generators, run only where that candidate would be the nearest.
//! Loops over generators stop after the highest active slot. Each support value is the very
//! expression the lane-parallel path computes (a triple's determinant as the triple in table
//! order forms it), and minima and maxima are exact, so the answers stay bit for bit.

use std::ops::{Add, Mul, Sub};

use super::tables::{
    candidates, pair_index, triple_index, witness_subsets, APEX, CANDIDATE_COUNT,
    FIRST_GENERATOR_DIRECTION, FIRST_GENERATOR_PLANE, FIRST_PAIR, FIRST_PERPENDICULAR,
    FIRST_TRIPLE, KIND_APEX, KIND_GENERATOR_DIRECTION, KIND_GENERATOR_PLANE, KIND_PAIR_PLANE,
    KIND_PERPENDICULAR, PAIR_COUNT,
};
use super::types::{Case, Outcome, MARGIN_CAP, MAX_GENERATORS, NO_BINDING};
use crate::Verdict;

/// Larger than any candidate's `y·need`: none found yet (`NONE_YET` in the shader).
pub(super) const NONE_YET: f32 = 3.0e38;

/// Relative tolerance of docs/contract-planar.md §7 (same constant `EPS` in the shader).
pub(crate) const EPS: f32 = 1e-5;

type V3 = [f32; 3];

/// The float32 arithmetic of the helpers below, which the reference (one `f32`) and the
/// fast path (one value per SIMD lane) share: the same operations in the same order, so the
/// same bits.
pub(crate) trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    fn splat(x: f32) -> Self;
}

impl Real for f32 {
    #[inline(always)]
    fn splat(x: f32) -> f32 {
        x
    }
}

impl<S: crate::simd::Lanes> Real for S {
    #[inline(always)]
    fn splat(x: f32) -> S {
        <S as crate::simd::Lanes>::splat(x)
    }
}

/// Elementwise dot product, the fixed order of docs/contract-planar.md §7 (`dot3` in the shader).
#[inline(always)]
pub(super) fn dot<R: Real>(a: [R; 3], b: [R; 3]) -> R {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b` (`cross3` in the shader).
#[inline(always)]
pub(super) fn cross<R: Real>(a: [R; 3], b: [R; 3]) -> [R; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Pairs with `|wᵢ × wⱼ| < THIN·|wᵢ||wⱼ|` get their cross product from `diff_of_products`
/// (see `pair_cross`; `THIN` in the shader). Above it the plain one's direction is within ~1e-6 rad.
pub(super) const THIN: f32 = 0.125;

/// Veltkamp's split: `a = hi + lo` exactly, each half with at most 12 significant bits, so
/// that a product of halves is exact in float32 (prescaled operands cannot overflow).
#[inline(always)]
fn split<R: Real>(a: R) -> (R, R) {
    let t = R::splat(4097.0) * a;
    let hi = t - (t - a);
    (hi, a - hi)
}

/// The rounding error of `p = x·y`, exactly: Dekker's two-product (`product_error` in the
/// shader).
#[inline(always)]
fn product_error<R: Real>(x: R, y: R, p: R) -> R {
    let ((xh, xl), (yh, yl)) = (split(x), split(y));
    xl * yl - (((p - xh * yh) - xl * yh) - xh * yl)
}

/// `a·b − c·d` to about one ulp of the exact value, in plain float32 operations: Dekker's
/// exact product errors, so that nothing depends on whether an `fma` is fused (WGSL does
/// not promise it, llvmpipe does not) and the Dekker steps round the same way on every
/// path (`diff_of_products` in the shader). Rust never contracts `a*b + c` into an fma, so
/// the products need none of the shader's `unfused` guard.
#[inline(always)]
pub(super) fn diff_of_products<R: Real>(a: R, b: R, c: R, d: R) -> R {
    let (p, q) = (a * b, c * d);
    (p - q) + (product_error(a, b, p) - product_error(c, d, q))
}

/// `wᵢ × wⱼ` for the pair planes and solves: the plain cross product, or where the two are
/// nearly parallel or antiparallel (thin cones, friction cones at large μ), whose plain
/// product keeps few correct bits, every component by `diff_of_products`.
/// (`pair_cross` in the shader.)
#[inline(always)]
fn pair_cross(a: V3, b: V3, a_len: f32, b_len: f32) -> V3 {
    let c = cross(a, b);
    let bound = THIN * a_len * b_len;
    if dot(c, c) < bound * bound {
        [
            diff_of_products(a[1], b[2], a[2], b[1]),
            diff_of_products(a[2], b[0], a[0], b[2]),
            diff_of_products(a[0], b[1], a[1], b[0]),
        ]
    } else {
        c
    }
}

/// `2^k` for `k` in `-126..=127`, built from its bits (`pow2` in the shader).
#[inline(always)]
fn pow2(k: i32) -> f32 {
    f32::from_bits(((127 + k) as u32) << 23)
}

/// The prescaling exponent of a vector (`exponent_of` in the shader): `e` such that its
/// largest component times `2^-e` lies in [2, 4), read from the float bits, kept in
/// `-127..=126` so that both `2^-e` and `2^e` are normal. A zero vector keeps `e = 0`.
#[inline(always)]
fn exponent_of(v: V3) -> i32 {
    let top = v
        .iter()
        .map(|x| x.to_bits() & 0x7fff_ffff)
        .max()
        .unwrap_or(0);
    if top == 0 {
        0
    } else {
        ((top >> 23) as i32).clamp(1, 254) - 128
    }
}

/// A case rescaled by exact powers of two (so that every scale gives the same answer): the need by `2^-e_need`, each active
/// generator `i` by `2^-e_gen[i]`, so that every largest component lies in [2, 4).
/// No direction changes and no bit is lost, yet no square, cross or triple product of the
/// search can overflow or underflow: every test downstream is scale-free, over the whole
/// float32 range and any mix of scales within one case. Inactive slots read as zero.
#[derive(Clone, Copy)]
pub(crate) struct Prescaled {
    pub need: V3,
    pub w: [V3; MAX_GENERATORS],
    pub e_need: i32,
    pub e_gen: [i32; MAX_GENERATORS],
}

impl Prescaled {
    #[inline(always)]
    pub(crate) fn of(case: &Case) -> Prescaled {
        let e_need = exponent_of(case.need);
        let mut out = Prescaled {
            need: scale3(pow2(-e_need), case.need),
            w: [[0.0; 3]; MAX_GENERATORS],
            e_need,
            e_gen: [0; MAX_GENERATORS],
        };
        for i in 0..MAX_GENERATORS {
            if case.active_mask >> i & 1 == 1 {
                let e = exponent_of(case.generators[i]);
                out.e_gen[i] = e;
                out.w[i] = scale3(pow2(-e), case.generators[i]);
            }
        }
        out
    }
}

/// A margin in the scaled units back in the caller's: `m·2^e`, in two steps of normal
/// powers of two, clamped in between so that nothing overflows; then at most `MARGIN_CAP`
/// and at least `−f32::MAX` (`unscale_margin` in the shader).
#[inline(always)]
fn unscale_margin(m: f32, e: i32) -> f32 {
    let a = e / 2;
    let b = e - a;
    let mut m = m * pow2(a);
    if b > 0 {
        m = hi(lo(m, MARGIN_CAP * pow2(-b)), -f32::MAX * pow2(-b));
    }
    lo(m * pow2(b), MARGIN_CAP)
}

#[inline(always)]
fn scale3(s: f32, a: V3) -> V3 {
    [s * a[0], s * a[1], s * a[2]]
}

/// The smaller of two numbers, the same in every path (`min` in the shader); spelled
/// as x86's `minps` so that the lane-parallel path compiles it to one instruction.
#[inline(always)]
fn lo(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// The larger of two numbers, the same in every path (`max` in the shader; `maxps`).
#[inline(always)]
fn hi(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// A weight clamped at zero (`max(w, 0.0)` in the shader).
#[inline(always)]
fn non_negative(w: f32) -> f32 {
    if w > 0.0 {
        w
    } else {
        0.0
    }
}

/// `w × e_axis`, spelled out so that its zero component is exact (`cross_axis` in the shader).
#[inline(always)]
fn cross_axis(w: V3, axis: u32) -> V3 {
    match axis {
        0 => [0.0, w[2], -w[1]],
        1 => [-w[2], 0.0, w[0]],
        _ => [w[1], -w[0], 0.0],
    }
}

/// A witness found so far (`Found` in the shader).
#[derive(Clone, Copy, Default)]
pub(super) struct Found {
    len: u32,
    index: [u32; 3],
    weight: [f32; 3],
}

impl Found {
    /// The witness of table entry `s = (i, j, k, size)` (unused indices are 0 there too).
    pub(super) fn of(s: [u32; 4], weight: [f32; 3]) -> Found {
        Found {
            len: s[3],
            index: [s[0], s[1], s[2]],
            weight,
        }
    }
}

/// The solve of docs/contract-planar.md §4 for one subset `(i, j, k, size)`: weights `λ` with `Σλw = rhs`,
/// given the subset's determinant `det` (|wᵢ|² for a single, |cᵢⱼ|² for a pair, D for a
/// triple). Projection; the normal equations through Lagrange's identity,
/// `((rhs × wⱼ)·cᵢⱼ, (wᵢ × rhs)·cᵢⱼ) / |cᵢⱼ|²` (error ~ 1/sin θ where the 2×2 Gram system's is
/// ~ 1/sin² θ); Cramer's rule. The pairs' cross products are recomputed, the same
/// expressions as everywhere else. (`solve` in the shader.)
#[inline(always)]
fn solve(
    w: &[V3; MAX_GENERATORS],
    len: &[f32; MAX_GENERATORS],
    s: [u32; 4],
    det: f32,
    rhs: V3,
) -> [f32; 3] {
    let (i, j, k) = (s[0] as usize, s[1] as usize, s[2] as usize);
    if s[3] == 1 {
        [dot(rhs, w[i]) / det, 0.0, 0.0]
    } else if s[3] == 2 {
        let cp = pair_cross(w[i], w[j], len[i], len[j]);
        [
            dot(cross(rhs, w[j]), cp) / det,
            -dot(cross(rhs, w[i]), cp) / det,
            0.0,
        ]
    } else {
        [
            dot(pair_cross(w[j], w[k], len[j], len[k]), rhs) / det,
            -dot(pair_cross(w[i], w[k], len[i], len[k]), rhs) / det,
            dot(pair_cross(w[i], w[j], len[i], len[j]), rhs) / det,
        ]
    }
}

/// The docs/contract-planar.md §7 witness test of one subset's weights (`check` in the shader): `None` when a
/// force `λₖ|wₖ|` is below `−ε·scale`; else the weights clamped at zero, the residual
/// `r = Σλw − need` and whether `|r| ≤ ε·scale`.
///
/// The scale is `|need|`: large cancelling weights buy no slack, so a witness reproduces the
/// need to ε of its own size, whatever its conditioning. `loose` widens it to
/// `max(|need|, Σ|λₖ||wₖ|)`, docs/contract-planar.md §7's magnitudes, used only where no plane supports the
/// cone (it fills R³) and every witness has forces far beyond the need.
#[derive(Clone, Copy)]
struct Check {
    ok: bool,
    weight: [f32; 3],
    r: V3,
}

#[inline(always)]
fn check(
    w: &[V3; MAX_GENERATORS],
    len: &[f32; MAX_GENERATORS],
    s: [u32; 4],
    weight: [f32; 3],
    need: V3,
    need_len: f32,
    loose: bool,
) -> Option<Check> {
    let n = s[3] as usize;
    let mut scale = need_len;
    if loose {
        let mut size = 0.0f32;
        for k in 0..n {
            size += weight[k].abs() * len[s[k] as usize];
        }
        scale = hi(scale, size);
    }
    let mut clamped = [0.0f32; 3];
    let mut sum = [0.0f32; 3];
    for k in 0..n {
        let i = s[k] as usize;
        if weight[k] * len[i] < -EPS * scale {
            return None;
        }
        clamped[k] = non_negative(weight[k]);
        sum = [
            sum[0] + clamped[k] * w[i][0],
            sum[1] + clamped[k] * w[i][1],
            sum[2] + clamped[k] * w[i][2],
        ];
    }
    let r = [sum[0] - need[0], sum[1] - need[1], sum[2] - need[2]];
    let tolerance = EPS * scale;
    Some(Check {
        ok: dot(r, r) <= tolerance * tolerance,
        weight: clamped,
        r,
    })
}

/// `check`, and where only a triple's residual fails (a square system: its residual is
/// rounding alone) one step of iterative refinement, the same solve on the residual, which
/// recovers what float32 loses on a nearly dependent triple. (`attempt` in the shader.)
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn attempt(
    w: &[V3; MAX_GENERATORS],
    len: &[f32; MAX_GENERATORS],
    s: [u32; 4],
    det: f32,
    weight: [f32; 3],
    need: V3,
    need_len: f32,
    loose: bool,
) -> Option<Found> {
    let first = check(w, len, s, weight, need, need_len, loose)?;
    if first.ok {
        return Some(Found::of(s, first.weight));
    }
    if s[3] != 3 {
        return None;
    }
    let step = solve(w, len, s, det, first.r);
    let refined = [0, 1, 2].map(|k| first.weight[k] - step[k]);
    let again = check(w, len, s, refined, need, need_len, loose)?;
    again.ok.then(|| Found::of(s, again.weight))
}

/// The determinant of a subset when it is independent (the tests of the search:
/// |wᵢ| > 0, |cᵢⱼ| > ε|wᵢ||wⱼ|, |D| > ε|wᵢ||wⱼ||wₖ|), as `solve` takes it.
/// (`independent` in the shader, 0 for none.)
fn independent(w: &[V3; MAX_GENERATORS], len: &[f32; MAX_GENERATORS], s: [u32; 4]) -> Option<f32> {
    let (i, j, k) = (s[0] as usize, s[1] as usize, s[2] as usize);
    if s[3] == 1 {
        (len[i] > 0.0).then(|| len[i] * len[i])
    } else if s[3] == 2 {
        let cp = pair_cross(w[i], w[j], len[i], len[j]);
        let cl2 = dot(cp, cp);
        (cl2.sqrt() > EPS * len[i] * len[j]).then_some(cl2)
    } else {
        let d = dot(pair_cross(w[i], w[j], len[i], len[j]), w[k]);
        (d.abs() > EPS * len[i] * len[j] * len[k]).then_some(d)
    }
}

/// The first candidate after the block of this kind (docs/contract-planar.md §5 order; `next_block` in the
/// shader).
fn next_block(kind: u32) -> usize {
    if kind == KIND_GENERATOR_DIRECTION {
        FIRST_PERPENDICULAR
    } else if kind == KIND_PERPENDICULAR {
        FIRST_GENERATOR_PLANE
    } else {
        APEX
    }
}

/// One past the highest active slot: slots from there on are zero vectors, which build no
/// candidate, no witness and lie on every plane, so every loop over generators stops there.
fn active_count(active_mask: u32) -> usize {
    (32 - (active_mask & 0xffff).leading_zeros()) as usize
}

/// The cone test of one case (docs/contract-planar.md §4–§7). Mirrors `cone_test` in the shader.
pub fn cone_test(case: &Case) -> Outcome {
    let subsets = witness_subsets();
    let table = candidates();
    let scaled = Prescaled::of(case);
    let need = scaled.need;
    let need_len = dot(need, need).sqrt();
    let n = active_count(case.active_mask);

    // Per generator. An inactive slot reads as the zero vector.
    let mut w = [[0.0f32; 3]; MAX_GENERATORS];
    let mut len = [0.0f32; MAX_GENERATORS];
    let mut inv_len = [0.0f32; MAX_GENERATORS];
    for i in 0..MAX_GENERATORS {
        w[i] = scaled.w[i];
        len[i] = dot(w[i], w[i]).sqrt();
        inv_len[i] = if len[i] > 0.0 { 1.0 / len[i] } else { 0.0 };
    }

    // need = 0 is held by the empty witness.
    let mut witness = (need_len == 0.0).then(Found::default);

    // Singles: projection.
    for s in &subsets[..n] {
        let i = s[0] as usize;
        if witness.is_none() && len[i] > 0.0 {
            let weight = [dot(need, w[i]) / (len[i] * len[i]), 0.0, 0.0];
            if let Some(c) = check(&w, &len, *s, weight, need, need_len, false).filter(|c| c.ok) {
                witness = Some(Found::of(*s, c.weight));
            }
        }
    }

    // Pairs: the need's numerators cᵢⱼ·need (kept for the triples), 2×2 normal equations.
    // Over the active slots, i then j ascending: the table's order (`pair_index` is the
    // entry's position, `layout_tests.rs` checks it, as for `triple_index`).
    let mut c_need = [0.0f32; PAIR_COUNT];
    for (i, j) in (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))) {
        let p = pair_index(i as u32, j as u32) as usize;
        let s = subsets[FIRST_PAIR + p];
        let cp = pair_cross(w[i], w[j], len[i], len[j]);
        let cl2 = dot(cp, cp);
        c_need[p] = dot(cp, need);
        if witness.is_none() && cl2.sqrt() > EPS * len[i] * len[j] {
            // `solve` with the need's cross products.
            let weight = [
                dot(cross(need, w[j]), cp) / cl2,
                -dot(cross(need, w[i]), cp) / cl2,
                0.0,
            ];
            if let Some(c) = check(&w, &len, s, weight, need, need_len, false).filter(|c| c.ok) {
                witness = Some(Found::of(s, c.weight));
            }
        }
    }

    // Each pair (i, j) again, in table order: its triples (i, j, k), k > j, whose
    // determinants D = cᵢⱼ·wₖ serve Cramer and the pair plane's support, and its two plane
    // candidates ±cᵢⱼ (candidates 2p, 2p + 1). The plane's support reads det(wᵢ, wⱼ, wₖ) of
    // every other k as the triple of the three in table order computes it.
    let mut best = NO_BINDING;
    let mut best_dot = NONE_YET;
    for (i, j) in (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))) {
        let p = pair_index(i as u32, j as u32) as usize;
        // The triples (i, j, k), k > j, follow one another in the table from here.
        let first_triple = FIRST_TRIPLE + triple_index(i as u32, j as u32, j as u32 + 1) as usize;
        let cp = pair_cross(w[i], w[j], len[i], len[j]);
        let cl = dot(cp, cp).sqrt();
        let valid = cl > EPS * len[i] * len[j];
        // Only a candidate that could become the nearest needs its support test.
        let planes = valid && (c_need[p] / cl < best_dot || -c_need[p] / cl < best_dot);
        // Running min and max over k of D/|wₖ| (0 for k = i, j).
        let mut plane_lo = 0.0f32;
        let mut plane_hi = 0.0f32;
        if planes {
            // k < i: the triple (k, i, j), D = cₖᵢ·wⱼ.
            for k in 0..i {
                let v = dot(pair_cross(w[k], w[i], len[k], len[i]), w[j]) * inv_len[k];
                plane_lo = lo(plane_lo, v);
                plane_hi = hi(plane_hi, v);
            }
            // i < k < j: the triple (i, k, j), D = cᵢₖ·wⱼ = −cᵢⱼ·wₖ.
            for k in i + 1..j {
                let v = -dot(pair_cross(w[i], w[k], len[i], len[k]), w[j]) * inv_len[k];
                plane_lo = lo(plane_lo, v);
                plane_hi = hi(plane_hi, v);
            }
        }
        if planes || witness.is_none() {
            // k > j: the triple (i, j, k) itself.
            for k in j + 1..n {
                let d = dot(cp, w[k]);
                plane_lo = lo(plane_lo, d * inv_len[k]);
                plane_hi = hi(plane_hi, d * inv_len[k]);
                if witness.is_none() && d.abs() > EPS * len[i] * len[j] * len[k] {
                    let (pik, pjk) = (
                        pair_index(i as u32, k as u32) as usize,
                        pair_index(j as u32, k as u32) as usize,
                    );
                    let weight = [c_need[pjk] / d, -c_need[pik] / d, c_need[p] / d];
                    let s = subsets[first_triple + k - j - 1];
                    debug_assert_eq!(s, [i as u32, j as u32, k as u32, 3]);
                    witness = attempt(&w, &len, s, d, weight, need, need_len, false);
                }
            }
        }
        if planes {
            for (index, e) in table.iter().enumerate().skip(2 * p).take(2) {
                let (supports, y_need) = if e[3] == 1 {
                    (plane_hi <= EPS * cl, -c_need[p] / cl)
                } else {
                    (plane_lo >= -EPS * cl, c_need[p] / cl)
                };
                if supports && y_need < best_dot {
                    best = index as u32;
                    best_dot = y_need;
                }
            }
        }
    }

    // The other candidates, in table order: the nearest supporting one gives the margin, the
    // binding and the certificate. Support tests only where the candidate would be nearer.
    let mut index = FIRST_GENERATOR_DIRECTION;
    while index < CANDIDATE_COUNT {
        let e = table[index];
        let (kind, i, negative) = (e[0], e[1] as usize, e[3] == 1);
        if kind != KIND_APEX && i >= n {
            // The rest of this kind's block (ordered by generator) is inactive slots.
            index = next_block(kind);
            continue;
        }
        let sign = if negative { -1.0f32 } else { 1.0 };
        let mut valid = false;
        let mut y_need = 0.0f32;
        let mut supports = true;
        if kind == KIND_GENERATOR_DIRECTION {
            valid = len[i] > 0.0;
            y_need = sign * dot(need, w[i]) * inv_len[i];
            if valid && y_need < best_dot {
                // Min and max over k of wᵢ·wₖ/|wₖ|, from |wᵢ| (k = i). (dot3 is symmetric
                // to the bit: the pair (k, i) computes the same value.)
                let mut low = len[i];
                let mut high = len[i];
                for k in 0..n {
                    if k != i {
                        let g = dot(w[i], w[k]) * inv_len[k];
                        low = lo(low, g);
                        high = hi(high, g);
                    }
                }
                supports = if negative {
                    high <= EPS * len[i]
                } else {
                    low >= -EPS * len[i]
                };
            }
        } else if kind == KIND_PERPENDICULAR {
            let y = perpendicular(need, w[i], dot(need, w[i]), len[i]);
            let yl = dot(y, y).sqrt();
            valid = len[i] > 0.0 && yl > EPS * need_len;
            y_need = dot(y, need) / yl;
            if valid && y_need < best_dot {
                for k in 0..n {
                    supports = supports && dot(y, w[k]) >= -EPS * yl * len[k];
                }
            }
        } else if kind == KIND_GENERATOR_PLANE {
            let (axis, a) = (e[2], e[2] as usize);
            let u = cross_axis(w[i], axis);
            let ul = dot(u, u).sqrt();
            valid = ul > EPS * len[i];
            y_need = sign * dot(u, need) / ul;
            if valid && y_need < best_dot {
                // (wᵢ × e_a)·wₖ = −(wᵢ × wₖ)_a: min and max over k of (wᵢ × wₖ)_a/|wₖ|
                // (0 for k = i), as the pair (i, k) or (k, i) in table order computes it.
                let mut low = 0.0f32;
                let mut high = 0.0f32;
                for k in 0..n {
                    let v = if k < i {
                        -pair_cross(w[k], w[i], len[k], len[i])[a] * inv_len[k]
                    } else if k > i {
                        pair_cross(w[i], w[k], len[i], len[k])[a] * inv_len[k]
                    } else {
                        0.0
                    };
                    low = lo(low, v);
                    high = hi(high, v);
                }
                supports = if negative {
                    low >= -EPS * ul
                } else {
                    high <= EPS * ul
                };
            }
        } else if kind == KIND_APEX {
            valid = need_len > 0.0;
            y_need = -need_len;
            if valid && y_need < best_dot {
                for k in 0..n {
                    supports = supports && dot(need, w[k]) <= EPS * need_len * len[k];
                }
            }
        }
        if valid && supports && y_need < best_dot {
            best = index as u32;
            best_dot = y_need;
        }
        index += 1;
    }

    // C fills R³, yet no witness passed at the need's scale: every one has forces far
    // beyond the need. Look again, in table order, at docs/contract-planar.md §7's wider scale.
    if best == NO_BINDING && witness.is_none() {
        for s in subsets {
            if s[0].max(s[1]).max(s[2]) as usize >= n {
                continue;
            }
            if let Some(det) = independent(&w, &len, *s) {
                let weight = solve(&w, &len, *s, det, need);
                witness = attempt(&w, &len, *s, det, weight, need, need_len, true);
                if witness.is_some() {
                    break;
                }
            }
        }
    }
    let need_dot = std::array::from_fn(|i| dot(need, w[i]));
    conclude(best, best_dot, witness, &scaled, need_len, need_dot, len)
}

/// The outcome from the search's results: margin, certificate, verdict, witness, all back
/// in the caller's units (the tail of `cone_test` in the shader; shared by the lane-parallel
/// path). `scaled` is the prescaled case the search ran on.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn conclude(
    best: u32,
    best_dot: f32,
    witness: Option<Found>,
    scaled: &Prescaled,
    need_len: f32,
    need_dot: [f32; MAX_GENERATORS],
    len: [f32; MAX_GENERATORS],
) -> Outcome {
    let (w, need) = (&scaled.w, scaled.need);
    let (mut best, mut best_dot) = (best, best_dot);
    if best != NO_BINDING && best_dot < -EPS * need_len {
        // Every reported proof checks out: the unit y actually returned supports every
        // active generator (the pair's own included). Where the search's support test was
        // off, look again with direct tests.
        let y = candidate_direction(candidates()[best as usize], w, need, need_dot, len);
        if !supports_all(y, w, len) {
            let again = direct_search(w, need, need_dot, len);
            if again.0 != NO_BINDING {
                (best, best_dot) = again;
            }
        }
    }
    // No candidate supports: C fills R³, unless C = {0} and need = 0 (docs/contract-planar.md §6: margin 0).
    let mut longest = 0.0f32;
    for l in len {
        longest = longest.max(l);
    }
    let mut out = Outcome {
        binding: best,
        ..Outcome::default()
    };
    if best == NO_BINDING && need_len == 0.0 && longest == 0.0 {
        out.margin = 0.0;
    } else if best == NO_BINDING {
        out.margin = MARGIN_CAP;
        out.capped = 1;
    } else {
        out.margin = unscale_margin(best_dot, scaled.e_need);
    }
    let mut have_certificate = best != NO_BINDING && best_dot < -EPS * need_len;
    if have_certificate {
        // The y returned, checked as a reader would: supports, and the need strictly beyond.
        let y = candidate_direction(candidates()[best as usize], w, need, need_dot, len);
        have_certificate = supports_all(y, w, len) && dot(y, need) < -EPS * need_len;
        if have_certificate {
            out.certificate = y;
        }
    }
    let have_witness = witness.is_some();
    let verdict = if have_witness && !have_certificate {
        Verdict::Supported
    } else if have_certificate && !have_witness {
        Verdict::Unsupported
    } else {
        Verdict::Uncertain
    };
    out.verdict = verdict as u32;
    if let Some(found) = witness {
        out.witness_len = found.len;
        out.witness_index = found.index;
        out.witness_weight = found.weight;
        // Weight k in the caller's units: weight·2^(e_need − e_gen).
        for k in 0..found.len as usize {
            out.witness_exponent[k] = scaled.e_need - scaled.e_gen[found.index[k] as usize];
        }
    }
    out
}

/// `−(need − (need·w / w·w) w)` (`perpendicular` in the shader).
///
/// When the need lies close to `w` the subtraction cancels and leaves, in float32, a
/// component along `w` as large as the perpendicular part itself may be small; one
/// Gram–Schmidt step removes it, so that `y·w ≈ 0` to float32 precision relative to `|y|`.
#[inline(always)]
fn perpendicular(need: V3, w: V3, need_dot_w: f32, w_len: f32) -> V3 {
    let w2 = w_len * w_len;
    let t = if w_len > 0.0 { need_dot_w / w2 } else { 0.0 };
    let y = [t * w[0] - need[0], t * w[1] - need[1], t * w[2] - need[2]];
    let s = if w_len > 0.0 { dot(y, w) / w2 } else { 0.0 };
    [y[0] - s * w[0], y[1] - s * w[1], y[2] - s * w[2]]
}

/// A candidate's normal before normalisation and the length it must exceed to be valid
/// (docs/contract-planar.md §5: the tests of the search), from the prescaled case (`candidate_vector` in the
/// shader).
fn candidate_vector(
    e: [u32; 4],
    w: &[V3; MAX_GENERATORS],
    need: V3,
    need_dot: [f32; MAX_GENERATORS],
    len: [f32; MAX_GENERATORS],
) -> (V3, f32) {
    let (kind, i) = (e[0], e[1] as usize);
    let sign = if e[3] == 1 { -1.0f32 } else { 1.0 };
    let need_len = dot(need, need).sqrt();
    if kind == KIND_PAIR_PLANE {
        let j = e[2] as usize;
        let c = pair_cross(w[i], w[j], len[i], len[j]);
        (scale3(sign, c), EPS * len[i] * len[j])
    } else if kind == KIND_GENERATOR_DIRECTION {
        (scale3(sign, w[i]), 0.0)
    } else if kind == KIND_PERPENDICULAR {
        let floor = if len[i] > 0.0 {
            EPS * need_len
        } else {
            NONE_YET
        };
        (perpendicular(need, w[i], need_dot[i], len[i]), floor)
    } else if kind == KIND_GENERATOR_PLANE {
        (scale3(sign, cross_axis(w[i], e[2])), EPS * len[i])
    } else {
        (scale3(-1.0, need), 0.0)
    }
}

/// The unit normal of a candidate (`candidate_direction` in the shader).
fn candidate_direction(
    e: [u32; 4],
    w: &[V3; MAX_GENERATORS],
    need: V3,
    need_dot: [f32; MAX_GENERATORS],
    len: [f32; MAX_GENERATORS],
) -> V3 {
    let (y, _) = candidate_vector(e, w, need, need_dot, len);
    scale3(1.0 / dot(y, y).sqrt(), y)
}

/// Whether the unit `y` supports every active generator (docs/contract-planar.md §7), tested directly.
fn supports_all(y: V3, w: &[V3; MAX_GENERATORS], len: [f32; MAX_GENERATORS]) -> bool {
    let mut ok = true;
    for k in 0..MAX_GENERATORS {
        ok = ok && dot(y, w[k]) >= -EPS * len[k];
    }
    ok
}

/// The search's nearest supporting candidate again, every support tested directly on the
/// unit normal (`direct_search` in the shader). Used only where the search's candidate
/// fails that test: the search tests a thin pair's plane through the triple product of
/// another pair, whose rounding can exceed ε relative to that plane.
fn direct_search(
    w: &[V3; MAX_GENERATORS],
    need: V3,
    need_dot: [f32; MAX_GENERATORS],
    len: [f32; MAX_GENERATORS],
) -> (u32, f32) {
    let mut best = NO_BINDING;
    let mut best_dot = NONE_YET;
    for (index, e) in candidates().iter().enumerate() {
        let (y, floor) = candidate_vector(*e, w, need, need_dot, len);
        let yl = dot(y, y).sqrt();
        if yl > floor {
            let unit = scale3(1.0 / yl, y);
            let y_need = dot(unit, need);
            if y_need < best_dot && supports_all(unit, w, len) {
                best = index as u32;
                best_dot = y_need;
            }
        }
    }
    (best, best_dot)
}
