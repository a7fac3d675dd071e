//! The CPU reference: `shaders/cone_test.wgsl` ported line for line, reading the same
//! `Case` bytes and the same tables, writing the same `Outcome` bytes.
//!
//! One pass shares all the work (SPEC §4–6): the 120 cross products `cᵢⱼ = wᵢ × wⱼ` serve
//! the pair solves, the plane candidates and, dotted with the need, the Cramer numerators;
//! the 560 triple products `det(wᵢ, wⱼ, wₖ) = cᵢⱼ·wₖ` serve both the triple solves and the
//! support tests of the pair planes; the support tests of every other candidate read running
//! minima and maxima gathered on the way. Nothing is computed twice.

mod lanes;

pub use lanes::cone_test_lanes;
use rayon::prelude::*;

use crate::tables::{
    candidates, pair_index, witness_subsets, FIRST_PAIR, FIRST_TRIPLE, KIND_APEX,
    KIND_GENERATOR_DIRECTION, KIND_GENERATOR_PLANE, KIND_PAIR_PLANE, KIND_PERPENDICULAR,
    PAIR_COUNT, WITNESS_COUNT,
};
use crate::types::{Case, Outcome, Verdict, MARGIN_CAP, MAX_GENERATORS, NO_BINDING};

/// Larger than any candidate's `y·need`: none found yet (`NONE_YET` in the shader).
const NONE_YET: f32 = 3.0e38;

/// Relative tolerance of SPEC §7 (same constant `EPS` in the shader).
pub const EPS: f32 = 1e-5;

type V3 = [f32; 3];

/// Elementwise dot product, the fixed order of SPEC §7 (`dot3` in the shader).
#[inline(always)]
fn dot3(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
fn cross3(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Pairs with `|wᵢ × wⱼ| < THIN·|wᵢ||wⱼ|` get their cross product from `accurate_cross`
/// (`THIN` in the shader). Above it the plain one's direction is within ~1e-6 rad.
const THIN: f32 = 0.125;

/// `a = hi + lo` exactly, `hi` the top 12 bits of the significand (a mask, where Veltkamp's
/// `t − (t − a)` may be simplified away by a GPU compiler) and `lo = a − hi` the other 12
/// (`split` in the shader): a product of halves is exact in float32. The `+ 0.0` mirrors the
/// shader's run-time zero, which keeps GPU compilers from recombining the halves (Rust never
/// rewrites float algebra).
#[inline(always)]
fn split(a: f32) -> (f32, f32) {
    let hi = f32::from_bits(a.to_bits() & 0xffff_f000) + 0.0;
    (hi, (a - hi) + 0.0)
}

/// `a·b − c·d` to about one ulp of the exact value, in plain float32 operations: Dekker's
/// exact product errors from `split` halves (`diff_of_products` in the shader). Nothing
/// depends on whether an `fma` is fused (WGSL does not promise it, llvmpipe's is not), and
/// every path rounds the same way.
#[inline(always)]
fn diff_of_products(a: f32, b: f32, c: f32, d: f32) -> f32 {
    let error = |x: f32, y: f32, p: f32| {
        let ((xh, xl), (yh, yl)) = (split(x), split(y));
        xl * yl - (((p - xh * yh) - xl * yh) - xh * yl)
    };
    // `+ 0.0` mirrors the shader's run-time zero, which keeps GPU compilers from contracting
    // the products into the sums that follow.
    let (p, q) = (a * b + 0.0, c * d + 0.0);
    (p - q) + (error(a, b, p) - error(c, d, q))
}

/// `wᵢ × wⱼ` for the pair planes and solves: the plain cross product, or where the two are
/// nearly parallel or antiparallel (thin cones, friction cones at large μ), whose plain
/// product keeps few correct bits, every component by `diff_of_products`.
/// (`pair_cross` in the shader.)
#[inline(always)]
fn pair_cross(a: V3, b: V3, a_len: f32, b_len: f32) -> V3 {
    let c = cross3(a, b);
    let bound = THIN * a_len * b_len;
    if dot3(c, c) < bound * bound {
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

/// A case rescaled by exact powers of two (issue 7): the need by `2^-e_need`, each active
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
    pub fn of(case: &Case) -> Prescaled {
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
struct Found {
    len: u32,
    index: [u32; 3],
    weight: [f32; 3],
}

impl Found {
    /// The witness of table entry `s = (i, j, k, size)` (unused indices are 0 there too).
    fn of(s: [u32; 4], weight: [f32; 3]) -> Found {
        Found {
            len: s[3],
            index: [s[0], s[1], s[2]],
            weight,
        }
    }
}

/// The solve of SPEC §4 for one subset `(i, j, k, size)`: weights `λ` with `Σλw = rhs`,
/// given the subset's determinant `det` (|wᵢ|² for a single, |cᵢⱼ|² for a pair, D for a
/// triple). Projection; the normal equations through Lagrange's identity,
/// `((rhs × wⱼ)·cᵢⱼ, (wᵢ × rhs)·cᵢⱼ) / |cᵢⱼ|²` (error ~ 1/sin θ where the 2×2 Gram system's is
/// ~ 1/sin² θ); Cramer's rule with the shared cross products. (`solve` in the shader.)
#[inline(always)]
fn solve(
    w: &[V3; MAX_GENERATORS],
    c: &[V3; PAIR_COUNT],
    s: [u32; 4],
    det: f32,
    rhs: V3,
) -> [f32; 3] {
    let (i, j) = (s[0] as usize, s[1] as usize);
    if s[3] == 1 {
        [dot3(rhs, w[i]) / det, 0.0, 0.0]
    } else if s[3] == 2 {
        let cp = c[pair_index(s[0], s[1]) as usize];
        [
            dot3(cross3(rhs, w[j]), cp) / det,
            -dot3(cross3(rhs, w[i]), cp) / det,
            0.0,
        ]
    } else {
        let (pij, pik, pjk) = (
            pair_index(s[0], s[1]),
            pair_index(s[0], s[2]),
            pair_index(s[1], s[2]),
        );
        [
            dot3(c[pjk as usize], rhs) / det,
            -dot3(c[pik as usize], rhs) / det,
            dot3(c[pij as usize], rhs) / det,
        ]
    }
}

/// The SPEC §7 witness test of one subset's weights (`check` in the shader): `None` when a
/// force `λₖ|wₖ|` is below `−ε·scale`; else the weights clamped at zero, the residual
/// `r = Σλw − need` and whether `|r| ≤ ε·scale`.
///
/// The scale is `|need|`: large cancelling weights buy no slack, so a witness reproduces the
/// need to ε of its own size, whatever its conditioning. `loose` widens it to
/// `max(|need|, Σ|λₖ||wₖ|)`, SPEC §7's magnitudes, used only where no plane supports the
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
        ok: dot3(r, r) <= tolerance * tolerance,
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
    c: &[V3; PAIR_COUNT],
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
    let step = solve(w, c, s, det, first.r);
    let refined = [0, 1, 2].map(|k| first.weight[k] - step[k]);
    let again = check(w, len, s, refined, need, need_len, loose)?;
    again.ok.then(|| Found::of(s, again.weight))
}

/// The determinant of a subset when it is independent (the tests of the search:
/// |wᵢ| > 0, |cᵢⱼ| > ε|wᵢ||wⱼ|, |D| > ε|wᵢ||wⱼ||wₖ|), as `solve` takes it.
/// (`independent` in the shader, 0 for none.)
fn independent(
    w: &[V3; MAX_GENERATORS],
    len: &[f32; MAX_GENERATORS],
    c: &[V3; PAIR_COUNT],
    s: [u32; 4],
) -> Option<f32> {
    let (i, j, k) = (s[0] as usize, s[1] as usize, s[2] as usize);
    if s[3] == 1 {
        (len[i] > 0.0).then(|| len[i] * len[i])
    } else if s[3] == 2 {
        let cp = c[pair_index(s[0], s[1]) as usize];
        let cl2 = dot3(cp, cp);
        (cl2.sqrt() > EPS * len[i] * len[j]).then_some(cl2)
    } else {
        let d = dot3(c[pair_index(s[0], s[1]) as usize], w[k]);
        (d.abs() > EPS * len[i] * len[j] * len[k]).then_some(d)
    }
}

/// The cone test of one case (SPEC §4–7). Mirrors `cone_test` in the shader.
pub fn cone_test(case: &Case) -> Outcome {
    let subsets = witness_subsets();
    let table = candidates();
    let scaled = Prescaled::of(case);
    let need = scaled.need;
    let need_len = dot3(need, need).sqrt();

    // Per generator. An inactive slot reads as the zero vector: it then builds no candidate
    // (zero length), no witness (zero determinant) and lies on every plane.
    let mut w = [[0.0f32; 3]; MAX_GENERATORS];
    let mut len = [0.0f32; MAX_GENERATORS];
    let mut inv_len = [0.0f32; MAX_GENERATORS];
    let mut need_dot = [0.0f32; MAX_GENERATORS];
    let mut need_cross = [[0.0f32; 3]; MAX_GENERATORS];
    // Running min/max over k of wᵢ·wₖ/|wₖ| (supports of ±wᵢ) and of (wᵢ×wₖ)/|wₖ| (±(wᵢ×e_a)).
    let mut dir_lo = [0.0f32; MAX_GENERATORS];
    let mut dir_hi = [0.0f32; MAX_GENERATORS];
    let mut axis_lo = [[0.0f32; 3]; MAX_GENERATORS];
    let mut axis_hi = [[0.0f32; 3]; MAX_GENERATORS];
    for i in 0..MAX_GENERATORS {
        w[i] = scaled.w[i];
        len[i] = dot3(w[i], w[i]).sqrt();
        inv_len[i] = if len[i] > 0.0 { 1.0 / len[i] } else { 0.0 };
        need_dot[i] = dot3(need, w[i]);
        need_cross[i] = cross3(need, w[i]);
        dir_lo[i] = len[i];
        dir_hi[i] = len[i];
    }

    // need = 0 is held by the empty witness.
    let mut witness = (need_len == 0.0).then(Found::default);
    let mut c = [[0.0f32; 3]; PAIR_COUNT];

    // Singles: projection.
    for s in &subsets[..FIRST_PAIR] {
        let i = s[0] as usize;
        if witness.is_none() && len[i] > 0.0 {
            let weight = [need_dot[i] / (len[i] * len[i]), 0.0, 0.0];
            if let Some(c) = check(&w, &len, *s, weight, need, need_len, false).filter(|c| c.ok) {
                witness = Some(Found::of(*s, c.weight));
            }
        }
    }

    // Pairs: cross products, their need numerators, 2×2 normal equations.
    let mut c_len = [0.0f32; PAIR_COUNT];
    let mut c_need = [0.0f32; PAIR_COUNT];
    let mut plane_lo = [0.0f32; PAIR_COUNT];
    let mut plane_hi = [0.0f32; PAIR_COUNT];
    for (p, s) in subsets[FIRST_PAIR..FIRST_TRIPLE].iter().enumerate() {
        let (i, j) = (s[0] as usize, s[1] as usize);
        let cp = pair_cross(w[i], w[j], len[i], len[j]);
        let cl2 = dot3(cp, cp);
        c[p] = cp;
        c_len[p] = cl2.sqrt();
        c_need[p] = dot3(cp, need);
        let g = dot3(w[i], w[j]);
        dir_lo[i] = lo(dir_lo[i], g * inv_len[j]);
        dir_hi[i] = hi(dir_hi[i], g * inv_len[j]);
        dir_lo[j] = lo(dir_lo[j], g * inv_len[i]);
        dir_hi[j] = hi(dir_hi[j], g * inv_len[i]);
        for a in 0..3 {
            axis_lo[i][a] = lo(axis_lo[i][a], cp[a] * inv_len[j]);
            axis_hi[i][a] = hi(axis_hi[i][a], cp[a] * inv_len[j]);
            axis_lo[j][a] = lo(axis_lo[j][a], -cp[a] * inv_len[i]);
            axis_hi[j][a] = hi(axis_hi[j][a], -cp[a] * inv_len[i]);
        }
        if witness.is_none() && c_len[p] > EPS * len[i] * len[j] {
            // `solve` with the need's numerators, shared.
            let weight = [
                dot3(need_cross[j], cp) / cl2,
                -dot3(need_cross[i], cp) / cl2,
                0.0,
            ];
            if let Some(c) = check(&w, &len, *s, weight, need, need_len, false).filter(|c| c.ok) {
                witness = Some(Found::of(*s, c.weight));
            }
        }
    }

    // Triples: D = det(wᵢ, wⱼ, wₖ) = cᵢⱼ·wₖ, shared by Cramer and the pair-plane supports.
    for s in &subsets[FIRST_TRIPLE..WITNESS_COUNT] {
        let (i, j, k) = (s[0], s[1], s[2]);
        let (pij, pik, pjk) = (
            pair_index(i, j) as usize,
            pair_index(i, k) as usize,
            pair_index(j, k) as usize,
        );
        let (i, j, k) = (i as usize, j as usize, k as usize);
        let d = dot3(c[pij], w[k]);
        // cᵢⱼ·wₖ = D, cᵢₖ·wⱼ = −D, cⱼₖ·wᵢ = D.
        plane_lo[pij] = lo(plane_lo[pij], d * inv_len[k]);
        plane_hi[pij] = hi(plane_hi[pij], d * inv_len[k]);
        plane_lo[pik] = lo(plane_lo[pik], -d * inv_len[j]);
        plane_hi[pik] = hi(plane_hi[pik], -d * inv_len[j]);
        plane_lo[pjk] = lo(plane_lo[pjk], d * inv_len[i]);
        plane_hi[pjk] = hi(plane_hi[pjk], d * inv_len[i]);
        if witness.is_none() && d.abs() > EPS * len[i] * len[j] * len[k] {
            let weight = [c_need[pjk] / d, -c_need[pik] / d, c_need[pij] / d];
            witness = attempt(&w, &len, &c, *s, d, weight, need, need_len, false);
        }
    }

    // Candidates: the nearest supporting one gives the margin, the binding and the certificate.
    let mut best = NO_BINDING;
    let mut best_dot = NONE_YET;
    for (index, e) in table.iter().enumerate() {
        let (kind, i, negative) = (e[0], e[1] as usize, e[3] == 1);
        let sign = if negative { -1.0f32 } else { 1.0 };
        let mut valid = false;
        let mut supports = false;
        let mut y_need = 0.0f32;
        if kind == KIND_PAIR_PLANE {
            let j = e[2] as usize;
            let p = pair_index(i as u32, j as u32) as usize;
            let cl = c_len[p];
            valid = cl > EPS * len[i] * len[j];
            supports = if negative {
                plane_hi[p] <= EPS * cl
            } else {
                plane_lo[p] >= -EPS * cl
            };
            y_need = sign * c_need[p] / cl;
        } else if kind == KIND_GENERATOR_DIRECTION {
            valid = len[i] > 0.0;
            supports = if negative {
                dir_hi[i] <= EPS * len[i]
            } else {
                dir_lo[i] >= -EPS * len[i]
            };
            y_need = sign * need_dot[i] * inv_len[i];
        } else if kind == KIND_PERPENDICULAR {
            let y = perpendicular(need, w[i], need_dot[i], len[i]);
            let yl = dot3(y, y).sqrt();
            valid = len[i] > 0.0 && yl > EPS * need_len;
            supports = true;
            for k in 0..MAX_GENERATORS {
                supports = supports && dot3(y, w[k]) >= -EPS * yl * len[k];
            }
            y_need = dot3(y, need) / yl;
        } else if kind == KIND_GENERATOR_PLANE {
            let axis = e[2];
            let u = cross_axis(w[i], axis);
            let ul = dot3(u, u).sqrt();
            let a = axis as usize;
            valid = ul > EPS * len[i];
            // (wᵢ × e_a)·wₖ = −(wᵢ × wₖ)_a
            supports = if negative {
                axis_lo[i][a] >= -EPS * ul
            } else {
                axis_hi[i][a] <= EPS * ul
            };
            y_need = sign * dot3(u, need) / ul;
        } else if kind == KIND_APEX {
            valid = need_len > 0.0;
            supports = true;
            for k in 0..MAX_GENERATORS {
                supports = supports && need_dot[k] <= EPS * need_len * len[k];
            }
            y_need = -need_len;
        }
        if valid && supports && y_need < best_dot {
            best = index as u32;
            best_dot = y_need;
        }
    }

    // C fills R³, yet no witness passed at the need's scale: every one has forces far
    // beyond the need. Look again, in table order, at SPEC §7's wider scale.
    if best == NO_BINDING && witness.is_none() {
        for s in subsets {
            if let Some(det) = independent(&w, &len, &c, *s) {
                let weight = solve(&w, &c, *s, det, need);
                witness = attempt(&w, &len, &c, *s, det, weight, need, need_len, true);
                if witness.is_some() {
                    break;
                }
            }
        }
    }
    conclude(best, best_dot, witness, &scaled, need_len, need_dot, len)
}

/// The outcome from the search's results: margin, certificate, verdict, witness, all back
/// in the caller's units (the tail of `cone_test` in the shader; shared by the lane-parallel
/// path). `scaled` is the prescaled case the search ran on.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn conclude(
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
    // No candidate supports: C fills R³, unless C = {0} and need = 0 (SPEC §6: margin 0).
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
        have_certificate = supports_all(y, w, len) && dot3(y, need) < -EPS * need_len;
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
    let s = if w_len > 0.0 { dot3(y, w) / w2 } else { 0.0 };
    [y[0] - s * w[0], y[1] - s * w[1], y[2] - s * w[2]]
}

/// A candidate's normal before normalisation and the length it must exceed to be valid
/// (SPEC §5: the tests of the search), from the prescaled case (`candidate_vector` in the
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
    let need_len = dot3(need, need).sqrt();
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
    scale3(1.0 / dot3(y, y).sqrt(), y)
}

/// Whether the unit `y` supports every active generator (SPEC §7), tested directly.
fn supports_all(y: V3, w: &[V3; MAX_GENERATORS], len: [f32; MAX_GENERATORS]) -> bool {
    let mut ok = true;
    for k in 0..MAX_GENERATORS {
        ok = ok && dot3(y, w[k]) >= -EPS * len[k];
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
        let yl = dot3(y, y).sqrt();
        if yl > floor {
            let unit = scale3(1.0 / yl, y);
            let y_need = dot3(unit, need);
            if y_need < best_dot && supports_all(unit, w, len) {
                best = index as u32;
                best_dot = y_need;
            }
        }
    }
    (best, best_dot)
}

/// The cone test of every case on all cores (rayon), in order.
pub fn cone_test_batch(cases: &[Case]) -> Vec<Outcome> {
    let mut out = vec![Outcome::default(); cases.len()];
    cone_test_batch_into(cases, &mut out);
    out
}

/// As `cone_test_batch`, into a caller's buffer of the same length (no allocation).
/// Runs the lane-parallel path (`cone_test_lanes`), bit for bit the reference's answers.
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

/// `cone_test_lanes` over a slice, on one thread, with the widest SIMD this CPU has:
/// 16 lanes with AVX-512, 8 with AVX2, else 8 lanes of whatever the build targets.
pub fn cone_test_slice(cases: &[Case], out: &mut [Outcome]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            unsafe { slice_avx512(cases, out) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { slice_avx2(cases, out) };
            return;
        }
    }
    slice_lanes::<8>(cases, out);
}

// Vector extensions only, never FMA: a fused multiply-add would round differently from
// the reference, and the fast path must answer bit for bit as it does.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn slice_avx512(cases: &[Case], out: &mut [Outcome]) {
    slice_lanes::<16>(cases, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn slice_avx2(cases: &[Case], out: &mut [Outcome]) {
    slice_lanes::<8>(cases, out);
}

/// `L` cases at a time; the last group is padded with copies of its last case.
#[inline(always)]
fn slice_lanes<const L: usize>(cases: &[Case], out: &mut [Outcome]) {
    let mut groups = cases.chunks_exact(L);
    let mut outs = out.chunks_exact_mut(L);
    for (c, o) in (&mut groups).zip(&mut outs) {
        o.copy_from_slice(&cone_test_lanes::<L>(c.try_into().expect("L cases")));
    }
    let rest = groups.remainder();
    if !rest.is_empty() {
        let mut group = [rest[rest.len() - 1]; L];
        group[..rest.len()].copy_from_slice(rest);
        let answers = cone_test_lanes::<L>(&group);
        outs.into_remainder()
            .copy_from_slice(&answers[..rest.len()]);
    }
}
