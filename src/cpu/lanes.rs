//! The CPU fast path: `cone_test` run on `L` cases at once. Every quantity is an array
//! over the lanes and every step a whole-array operation, which the compiler turns into
//! one SIMD instruction (16 float32 lanes with AVX-512, 8 with AVX2).
//!
//! Same tables, same order, same float32 operations as `cone_test` (and the shader), never
//! fused: the answers are bit for bit those of the reference (`tests/agreement.rs`). Where
//! the reference stops looking for a witness, a lane here keeps computing but takes none;
//! once every lane has one, the search is skipped. The rare lane whose cone fills R³ with
//! no witness at the need's scale is handed to the reference for its second look.

use super::{conclude, Found, Prescaled, EPS, NONE_YET, THIN};
use crate::tables::{
    candidates, pair_index, witness_subsets, FIRST_PAIR, FIRST_TRIPLE, KIND_APEX,
    KIND_GENERATOR_DIRECTION, KIND_GENERATOR_PLANE, KIND_PAIR_PLANE, KIND_PERPENDICULAR,
    PAIR_COUNT, WITNESS_COUNT,
};
use crate::types::{Case, Outcome, MAX_GENERATORS, NO_BINDING};

/// One float32 per lane.
type V<const L: usize> = [f32; L];
/// One flag per lane: all bits set (-1) or clear (0), as SIMD comparisons produce them.
type M<const L: usize> = [i32; L];
/// One index per lane.
type U<const L: usize> = [u32; L];
/// A 3-vector per lane, by component.
type V3s<const L: usize> = [V<L>; 3];

#[inline(always)]
fn map<const L: usize>(f: impl Fn(usize) -> f32) -> V<L> {
    std::array::from_fn(f)
}
#[inline(always)]
fn add<const L: usize>(a: V<L>, b: V<L>) -> V<L> {
    map(|l| a[l] + b[l])
}
#[inline(always)]
fn sub<const L: usize>(a: V<L>, b: V<L>) -> V<L> {
    map(|l| a[l] - b[l])
}
#[inline(always)]
fn mul<const L: usize>(a: V<L>, b: V<L>) -> V<L> {
    map(|l| a[l] * b[l])
}
#[inline(always)]
fn div<const L: usize>(a: V<L>, b: V<L>) -> V<L> {
    map(|l| a[l] / b[l])
}
#[inline(always)]
fn neg<const L: usize>(a: V<L>) -> V<L> {
    map(|l| -a[l])
}
#[inline(always)]
fn scale<const L: usize>(s: f32, a: V<L>) -> V<L> {
    map(|l| s * a[l])
}
#[inline(always)]
fn sqrt<const L: usize>(a: V<L>) -> V<L> {
    map(|l| a[l].sqrt())
}
/// `lo` of the reference, per lane.
#[inline(always)]
fn lo<const L: usize>(a: V<L>, b: V<L>) -> V<L> {
    map(|l| if a[l] < b[l] { a[l] } else { b[l] })
}
/// `hi` of the reference, per lane.
#[inline(always)]
fn hi<const L: usize>(a: V<L>, b: V<L>) -> V<L> {
    map(|l| if a[l] > b[l] { a[l] } else { b[l] })
}
#[inline(always)]
fn select<const L: usize>(m: M<L>, a: V<L>, b: V<L>) -> V<L> {
    map(|l| if m[l] != 0 { a[l] } else { b[l] })
}
#[inline(always)]
fn select_index<const L: usize>(m: M<L>, a: u32, b: U<L>) -> U<L> {
    std::array::from_fn(|l| if m[l] != 0 { a } else { b[l] })
}
#[inline(always)]
fn test<const L: usize>(f: impl Fn(usize) -> bool) -> M<L> {
    std::array::from_fn(|l| -(f(l) as i32))
}
#[inline(always)]
fn and<const L: usize>(a: M<L>, b: M<L>) -> M<L> {
    std::array::from_fn(|l| a[l] & b[l])
}
#[inline(always)]
fn any<const L: usize>(m: M<L>) -> bool {
    m.iter().fold(0, |a, &b| a | b) != 0
}
#[inline(always)]
fn all<const L: usize>(m: M<L>) -> bool {
    m.iter().fold(-1, |a, &b| a & b) != 0
}
#[inline(always)]
fn dot<const L: usize>(a: &V3s<L>, b: &V3s<L>) -> V<L> {
    add(add(mul(a[0], b[0]), mul(a[1], b[1])), mul(a[2], b[2]))
}
#[inline(always)]
fn cross<const L: usize>(a: &V3s<L>, b: &V3s<L>) -> V3s<L> {
    [
        sub(mul(a[1], b[2]), mul(a[2], b[1])),
        sub(mul(a[2], b[0]), mul(a[0], b[2])),
        sub(mul(a[0], b[1]), mul(a[1], b[0])),
    ]
}
/// `diff_of_products` of the reference, per lane (Dekker's exact product errors).
#[inline(always)]
fn diff_of_products<const L: usize>(a: V<L>, b: V<L>, c: V<L>, d: V<L>) -> V<L> {
    let split = |x: V<L>| {
        let hi = map(|l| f32::from_bits(x[l].to_bits() & 0xffff_f000) + 0.0);
        (hi, map(|l| (x[l] - hi[l]) + 0.0))
    };
    let error = |x: V<L>, y: V<L>, p: V<L>| {
        let ((xh, xl), (yh, yl)) = (split(x), split(y));
        sub(
            mul(xl, yl),
            sub(sub(sub(p, mul(xh, yh)), mul(xl, yh)), mul(xh, yl)),
        )
    };
    let (p, q) = (add(mul(a, b), [0.0; L]), add(mul(c, d), [0.0; L]));
    add(sub(p, q), sub(error(a, b, p), error(c, d, q)))
}
/// `pair_cross` of the reference, per lane: the accurate product only where some lane's
/// pair is thin, taken on those lanes alone.
#[inline(always)]
fn pair_cross<const L: usize>(a: &V3s<L>, b: &V3s<L>, a_len: V<L>, b_len: V<L>) -> V3s<L> {
    let c = cross(a, b);
    let c2 = dot(&c, &c);
    let bound = mul(scale(THIN, a_len), b_len);
    let thin = test(|l| c2[l] < bound[l] * bound[l]);
    if !any(thin) {
        return c;
    }
    let accurate = [
        diff_of_products(a[1], b[2], a[2], b[1]),
        diff_of_products(a[2], b[0], a[0], b[2]),
        diff_of_products(a[0], b[1], a[1], b[0]),
    ];
    std::array::from_fn(|k| select(thin, accurate[k], c[k]))
}
/// `cross_axis` of the reference, per lane.
#[inline(always)]
fn cross_axis<const L: usize>(w: &V3s<L>, axis: u32) -> V3s<L> {
    match axis {
        0 => [[0.0; L], w[2], neg(w[1])],
        1 => [neg(w[2]), [0.0; L], w[0]],
        _ => [w[1], neg(w[0]), [0.0; L]],
    }
}

/// The witness search, per lane: the first subset (table index) that passed, its weights.
struct Search<const L: usize> {
    have: M<L>,
    subset: U<L>,
    weight: [V<L>; 3],
}

impl<const L: usize> Search<L> {
    fn all_found(&self) -> bool {
        all(self.have)
    }

    /// The strict `check` of subset `t` (table entry `s`, determinant `det`) on the lanes
    /// where `valid` and no witness is known yet, with `attempt`'s refinement step for a
    /// triple whose residual alone failed.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn offer<const N: usize>(
        &mut self,
        t: usize,
        s: [u32; 4],
        det: V<L>,
        weight: [V<L>; N],
        valid: M<L>,
        w: &[V3s<L>; MAX_GENERATORS],
        len: &[V<L>; MAX_GENERATORS],
        c: &[V3s<L>; PAIR_COUNT],
        need: &V3s<L>,
        need_len: V<L>,
    ) {
        let index: [usize; N] = std::array::from_fn(|k| s[k] as usize);
        let threshold = scale(-EPS, need_len);
        let fresh = std::array::from_fn(|l| !self.have[l]);
        let ok = signs(and(valid, fresh), &index, &weight, len, threshold);
        // Most subsets fail on a negative weight: the residual only where some lane passed.
        if !any(ok) {
            return;
        }
        let tolerance = scale(EPS, need_len);
        let within = |r: &V3s<L>| {
            let r2 = dot(r, r);
            test(|l| r2[l] <= tolerance[l] * tolerance[l])
        };
        let (mut chosen, r) = clamp_and_residual(&index, &weight, w, need);
        let pass = within(&r);
        let mut take = and(ok, pass);
        let retry = and(ok, std::array::from_fn(|l| !pass[l]));
        if N == 3 && any(retry) {
            let step = solve_triple(s, det, &r, c);
            let refined: [V<L>; N] = std::array::from_fn(|k| sub(chosen[k], step[k]));
            let ok = signs(retry, &index, &refined, len, threshold);
            if any(ok) {
                let (clamped, r) = clamp_and_residual(&index, &refined, w, need);
                let take_refined = and(ok, within(&r));
                chosen = std::array::from_fn(|k| select(take_refined, clamped[k], chosen[k]));
                take = std::array::from_fn(|l| take[l] | take_refined[l]);
            }
        }
        for (kept, new) in self.weight.iter_mut().zip(chosen) {
            *kept = select(take, new, *kept);
        }
        self.subset = select_index(take, t as u32, self.subset);
        self.have = std::array::from_fn(|l| self.have[l] | take[l]);
    }
}

/// `ok` where every force `λₖ|wₖ|` is at least `threshold` (the force test of `check`).
#[inline(always)]
fn signs<const L: usize, const N: usize>(
    mut ok: M<L>,
    index: &[usize; N],
    weight: &[V<L>; N],
    len: &[V<L>; MAX_GENERATORS],
    threshold: V<L>,
) -> M<L> {
    for k in 0..N {
        let force = mul(weight[k], len[index[k]]);
        // Negated as in the reference: only a force below the threshold rejects.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let passes = test(|l| !(force[l] < threshold[l]));
        ok = and(ok, passes);
    }
    ok
}

/// The weights clamped at zero and the residual `Σλw − need` (the rest of `check`).
#[inline(always)]
fn clamp_and_residual<const L: usize, const N: usize>(
    index: &[usize; N],
    weight: &[V<L>; N],
    w: &[V3s<L>; MAX_GENERATORS],
    need: &V3s<L>,
) -> ([V<L>; N], V3s<L>) {
    let mut clamped = [[0.0; L]; N];
    let mut sum = [[0.0; L]; 3];
    for k in 0..N {
        clamped[k] = map(|l| {
            if weight[k][l] > 0.0 {
                weight[k][l]
            } else {
                0.0
            }
        });
        for (total, wa) in sum.iter_mut().zip(&w[index[k]]) {
            *total = add(*total, mul(clamped[k], *wa));
        }
    }
    (
        clamped,
        [
            sub(sum[0], need[0]),
            sub(sum[1], need[1]),
            sub(sum[2], need[2]),
        ],
    )
}

/// `solve` of the reference for a triple (Cramer with the shared cross products), per lane:
/// the only subsets this path refines.
#[inline(always)]
fn solve_triple<const L: usize>(
    s: [u32; 4],
    det: V<L>,
    rhs: &V3s<L>,
    c: &[V3s<L>; PAIR_COUNT],
) -> [V<L>; 3] {
    let (pij, pik, pjk) = (
        pair_index(s[0], s[1]),
        pair_index(s[0], s[2]),
        pair_index(s[1], s[2]),
    );
    [
        div(dot(&c[pjk as usize], rhs), det),
        div(neg(dot(&c[pik as usize], rhs)), det),
        div(dot(&c[pij as usize], rhs), det),
    ]
}

/// `cone_test` of `L` cases at once.
#[inline(always)]
pub fn cone_test_lanes<const L: usize>(cases: &[Case; L]) -> [Outcome; L] {
    let subsets = witness_subsets();
    let table = candidates();
    let mut need: V3s<L> = [[0.0; L]; 3];
    let mut w = [[[0.0; L]; 3]; MAX_GENERATORS];
    let scaled: [Prescaled; L] = std::array::from_fn(|l| Prescaled::of(&cases[l]));
    for (l, case) in scaled.iter().enumerate() {
        for (component, &value) in need.iter_mut().zip(&case.need) {
            component[l] = value;
        }
        for (wi, gi) in w.iter_mut().zip(&case.w) {
            for (component, &value) in wi.iter_mut().zip(gi) {
                component[l] = value;
            }
        }
    }
    let need_len = sqrt(dot(&need, &need));

    let mut len = [[0.0; L]; MAX_GENERATORS];
    let mut inv_len = [[0.0; L]; MAX_GENERATORS];
    let mut need_dot = [[0.0; L]; MAX_GENERATORS];
    let mut need_cross = [[[0.0; L]; 3]; MAX_GENERATORS];
    for i in 0..MAX_GENERATORS {
        len[i] = sqrt(dot(&w[i], &w[i]));
        inv_len[i] = map(|l| {
            if len[i][l] > 0.0 {
                1.0 / len[i][l]
            } else {
                0.0
            }
        });
        need_dot[i] = dot(&need, &w[i]);
        need_cross[i] = cross(&need, &w[i]);
    }
    let mut dir_lo = len;
    let mut dir_hi = len;
    let mut axis_lo = [[[0.0; L]; 3]; MAX_GENERATORS];
    let mut axis_hi = [[[0.0; L]; 3]; MAX_GENERATORS];

    let mut search = Search {
        have: test(|l| need_len[l] == 0.0),
        subset: [u32::MAX; L],
        weight: [[0.0; L]; 3],
    };

    let mut c = [[[0.0; L]; 3]; PAIR_COUNT];
    for (t, s) in subsets[..FIRST_PAIR].iter().enumerate() {
        if search.all_found() {
            break;
        }
        let i = s[0] as usize;
        let det = mul(len[i], len[i]);
        let weight = div(need_dot[i], det);
        let valid = test(|l| len[i][l] > 0.0);
        search.offer(t, *s, det, [weight], valid, &w, &len, &c, &need, need_len);
    }

    let mut c_len = [[0.0; L]; PAIR_COUNT];
    let mut c_need = [[0.0; L]; PAIR_COUNT];
    for (p, s) in subsets[FIRST_PAIR..FIRST_TRIPLE].iter().enumerate() {
        let (i, j) = (s[0] as usize, s[1] as usize);
        let cp = pair_cross(&w[i], &w[j], len[i], len[j]);
        let cl2 = dot(&cp, &cp);
        c[p] = cp;
        c_len[p] = sqrt(cl2);
        c_need[p] = dot(&cp, &need);
        let g = dot(&w[i], &w[j]);
        let (gj, gi) = (mul(g, inv_len[j]), mul(g, inv_len[i]));
        dir_lo[i] = lo(dir_lo[i], gj);
        dir_hi[i] = hi(dir_hi[i], gj);
        dir_lo[j] = lo(dir_lo[j], gi);
        dir_hi[j] = hi(dir_hi[j], gi);
        for a in 0..3 {
            let (cj, ci) = (mul(cp[a], inv_len[j]), mul(neg(cp[a]), inv_len[i]));
            axis_lo[i][a] = lo(axis_lo[i][a], cj);
            axis_hi[i][a] = hi(axis_hi[i][a], cj);
            axis_lo[j][a] = lo(axis_lo[j][a], ci);
            axis_hi[j][a] = hi(axis_hi[j][a], ci);
        }
        if !search.all_found() {
            let valid = test(|l| c_len[p][l] > EPS * len[i][l] * len[j][l]);
            let li = div(dot(&need_cross[j], &cp), cl2);
            let lj = div(neg(dot(&need_cross[i], &cp)), cl2);
            search.offer(
                FIRST_PAIR + p,
                *s,
                cl2,
                [li, lj],
                valid,
                &w,
                &len,
                &c,
                &need,
                need_len,
            );
        }
    }

    let mut plane_lo = [[0.0; L]; PAIR_COUNT];
    let mut plane_hi = [[0.0; L]; PAIR_COUNT];
    for (t, s) in subsets
        .iter()
        .enumerate()
        .take(WITNESS_COUNT)
        .skip(FIRST_TRIPLE)
    {
        let (i, j, k) = (s[0], s[1], s[2]);
        let (pij, pik, pjk) = (
            pair_index(i, j) as usize,
            pair_index(i, k) as usize,
            pair_index(j, k) as usize,
        );
        let (i, j, k) = (i as usize, j as usize, k as usize);
        let d = dot(&c[pij], &w[k]);
        let (dk, dj, di) = (
            mul(d, inv_len[k]),
            mul(neg(d), inv_len[j]),
            mul(d, inv_len[i]),
        );
        plane_lo[pij] = lo(plane_lo[pij], dk);
        plane_hi[pij] = hi(plane_hi[pij], dk);
        plane_lo[pik] = lo(plane_lo[pik], dj);
        plane_hi[pik] = hi(plane_hi[pik], dj);
        plane_lo[pjk] = lo(plane_lo[pjk], di);
        plane_hi[pjk] = hi(plane_hi[pjk], di);
        if !search.all_found() {
            let valid = test(|l| d[l].abs() > EPS * len[i][l] * len[j][l] * len[k][l]);
            let weight = [
                div(c_need[pjk], d),
                div(neg(c_need[pik]), d),
                div(c_need[pij], d),
            ];
            search.offer(t, *s, d, weight, valid, &w, &len, &c, &need, need_len);
        }
    }

    let mut best = [NO_BINDING; L];
    let mut best_dot = [NONE_YET; L];
    for (index, e) in table.iter().enumerate() {
        let (kind, i, negative) = (e[0], e[1] as usize, e[3] == 1);
        let sign = if negative { -1.0f32 } else { 1.0 };
        let (valid, supports, y_need): (M<L>, M<L>, V<L>) = if kind == KIND_PAIR_PLANE {
            let j = e[2] as usize;
            let p = pair_index(i as u32, j as u32) as usize;
            let cl = c_len[p];
            (
                test(|l| cl[l] > EPS * len[i][l] * len[j][l]),
                if negative {
                    test(|l| plane_hi[p][l] <= EPS * cl[l])
                } else {
                    test(|l| plane_lo[p][l] >= -EPS * cl[l])
                },
                div(scale(sign, c_need[p]), cl),
            )
        } else if kind == KIND_GENERATOR_DIRECTION {
            (
                test(|l| len[i][l] > 0.0),
                if negative {
                    test(|l| dir_hi[i][l] <= EPS * len[i][l])
                } else {
                    test(|l| dir_lo[i][l] >= -EPS * len[i][l])
                },
                mul(scale(sign, need_dot[i]), inv_len[i]),
            )
        } else if kind == KIND_PERPENDICULAR {
            // `perpendicular` of the reference: projection, then one Gram–Schmidt step.
            let w2 = mul(len[i], len[i]);
            let t = map(|l| {
                if len[i][l] > 0.0 {
                    need_dot[i][l] / w2[l]
                } else {
                    0.0
                }
            });
            let y0 = [
                sub(mul(t, w[i][0]), need[0]),
                sub(mul(t, w[i][1]), need[1]),
                sub(mul(t, w[i][2]), need[2]),
            ];
            let yw = dot(&y0, &w[i]);
            let s = map(|l| if len[i][l] > 0.0 { yw[l] / w2[l] } else { 0.0 });
            let y = [
                sub(y0[0], mul(s, w[i][0])),
                sub(y0[1], mul(s, w[i][1])),
                sub(y0[2], mul(s, w[i][2])),
            ];
            let yl = sqrt(dot(&y, &y));
            let valid = and(
                test(|l| len[i][l] > 0.0),
                test(|l| yl[l] > EPS * need_len[l]),
            );
            let y_need = div(dot(&y, &need), yl);
            // Only lanes this candidate could improve need its support test, and that
            // test ends once no lane still passes: the same answers, less work.
            let mut supports = and(valid, test(|l| y_need[l] < best_dot[l]));
            for k in 0..MAX_GENERATORS {
                if !any(supports) {
                    break;
                }
                let yw = dot(&y, &w[k]);
                supports = and(supports, test(|l| yw[l] >= -EPS * yl[l] * len[k][l]));
            }
            (valid, supports, y_need)
        } else if kind == KIND_GENERATOR_PLANE {
            let axis = e[2];
            let a = axis as usize;
            let u = cross_axis(&w[i], axis);
            let ul = sqrt(dot(&u, &u));
            (
                test(|l| ul[l] > EPS * len[i][l]),
                if negative {
                    test(|l| axis_lo[i][a][l] >= -EPS * ul[l])
                } else {
                    test(|l| axis_hi[i][a][l] <= EPS * ul[l])
                },
                div(scale(sign, dot(&u, &need)), ul),
            )
        } else if kind == KIND_APEX {
            let mut supports = [-1; L];
            for k in 0..MAX_GENERATORS {
                supports = and(
                    supports,
                    test(|l| need_dot[k][l] <= EPS * need_len[l] * len[k][l]),
                );
            }
            (test(|l| need_len[l] > 0.0), supports, neg(need_len))
        } else {
            ([0; L], [0; L], [0.0; L])
        };
        let better = and(and(valid, supports), test(|l| y_need[l] < best_dot[l]));
        best_dot = select(better, y_need, best_dot);
        best = select_index(better, index as u32, best);
    }

    std::array::from_fn(|l| {
        if best[l] == NO_BINDING && search.have[l] == 0 {
            // The cone fills R³ but no witness passed at the need's scale: the reference's
            // second look at the wider scale (rare), for this lane alone.
            return super::cone_test(&cases[l]);
        }
        // No subset with a witness is need = 0's empty witness.
        let weight = [0, 1, 2].map(|k| search.weight[k][l]);
        let found = subsets
            .get(search.subset[l] as usize)
            .map_or(Found::default(), |s| Found::of(*s, weight));
        conclude(
            best[l],
            best_dot[l],
            (search.have[l] != 0).then_some(found),
            &scaled[l],
            need_len[l],
            std::array::from_fn(|i| need_dot[i][l]),
            std::array::from_fn(|i| len[i][l]),
        )
    })
}
