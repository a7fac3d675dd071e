//! Wolfe's minimum-norm point (1976) of a convex set in R⁶ known only by its support
//! function: the grasp wrench space of a finite wrench set (pyramids) or of friction discs
//! (circular cones). Each major cycle asks the support point `q` along `u = −x/|x|`; the
//! minor cycles move `x` to the least point of the corral's affine hull, kept in its convex
//! hull. Every iterate is a convex combination of support points, so `−|x|` bounds
//! `min_u h(u)` from below, and each `h(u)` asked bounds it from above: the caller stops
//! when the two meet, or when `x` reaches 0 with a corral of seven points around it.

// Comparisons are written `!(x > t)` where a NaN must fail them.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::linalg::dot;
use super::proof::Dd;

/// One support query's answer: `h(u)`, a point attaining it and the caller's id of that
/// point (a generator's index; any number for a point with no index).
pub(crate) type Support = (f64, [f64; 6], u32);

/// How the search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// 0 lies in the corral's convex hull (seven affinely independent points with positive
    /// weights, or `x` within rounding of 0).
    Inside,
    /// The caller's `stop` said so (its bracket closed or decided).
    Stopped,
    /// `q` lies no farther than `x` along `u`: `x` is the nearest point to rounding.
    Nearest,
    /// No progress for many rounds, or the query budget spent.
    Stalled,
}

/// The search's state at its end: the corral (points, ids, convex weights) and `x`.
pub(crate) struct Corral {
    pub points: Vec<[f64; 6]>,
    pub ids: Vec<u32>,
    pub weights: Vec<f64>,
    pub x: [f64; 6],
    pub end: End,
}

/// Runs Wolfe's algorithm from the support point `first`. `support(u)` answers a query;
/// `stop(u, h, lower)` hears each (with `lower = −|x|` before it) and ends the search when
/// it returns true. `scale` bounds the points' norms (0 is reached within 1e-14 of it);
/// `queries` counts the support queries, at most `budget`.
pub(crate) fn wolfe(
    first: Support,
    mut support: impl FnMut(&[f64; 6]) -> Support,
    mut stop: impl FnMut(&[f64; 6], f64, f64) -> bool,
    scale: f64,
    queries: &mut usize,
    budget: usize,
) -> Corral {
    let mut c = Corral {
        points: vec![first.1],
        ids: vec![first.2],
        weights: vec![1.0],
        x: first.1,
        end: End::Stalled,
    };
    let zero = 1e-14 * scale;
    let (mut last, mut stall, mut refined) = (f64::INFINITY, 0, false);
    let mut best = Best::default();
    while *queries < budget {
        let nx = dot(&c.x, &c.x).sqrt();
        if nx <= zero {
            c.end = End::Inside;
            return c;
        }
        best.keep(&c, nx);
        let u = c.x.map(|v| -v / nx);
        let (h, q, id) = support(&u);
        *queries += 1;
        if stop(&u, h, -best.nx) {
            c.end = End::Stopped;
            return best.restored(c);
        }
        // q lies no farther than x along u, or is in the corral already: x is the nearest
        // point (to rounding) — once x is made accurate to its own size and the question
        // asked again along its direction.
        if h + nx <= 1e-15 * scale || c.points.contains(&q) {
            if refined {
                c.end = End::Nearest;
                return best.restored(c);
            }
            refine(&mut c);
            refined = true;
            continue;
        }
        refined = false;
        if nx >= last * (1.0 - 1e-15) {
            stall += 1;
            if stall > 40 {
                return best.restored(c);
            }
        }
        last = last.min(nx);
        c.points.push(q);
        c.ids.push(id);
        c.weights.push(0.0);
        if !minor_cycles(&mut c) {
            return best.restored(c);
        }
        // Seven affinely independent points with positive weights: their affine hull is
        // R⁶, its least point 0, so 0 lies in their hull (an inner search proves how far).
        if c.points.len() == 7 {
            c.end = End::Inside;
            return c;
        }
        c.x = [0.0; 6];
        for (p, l) in c.points.iter().zip(&c.weights) {
            for (x, v) in c.x.iter_mut().zip(p) {
                *x += l * v;
            }
        }
    }
    best.restored(c)
}

/// The corral of least `|x|` so far. In exact arithmetic each iterate is nearer 0 than the
/// last; in rounding (points of 1e8 against an `x` of 1: a friction coefficient of 1e8, a
/// contact 1e8 half sizes out) a minor cycle can move `x` away, and the bound from below
/// `−|x|` the caller took from an earlier iterate must stay the one the returned corral
/// proves.
struct Best {
    nx: f64,
    len: usize,
    points: [[f64; 6]; 7],
    ids: [u32; 7],
    weights: [f64; 7],
    x: [f64; 6],
}

impl Default for Best {
    fn default() -> Best {
        Best {
            nx: f64::INFINITY,
            len: 0,
            points: [[0.0; 6]; 7],
            ids: [0; 7],
            weights: [0.0; 7],
            x: [0.0; 6],
        }
    }
}

impl Best {
    /// Takes `c` (of norm `nx`) where it is the nearest so far.
    fn keep(&mut self, c: &Corral, nx: f64) {
        let len = c.points.len();
        if nx < self.nx && len <= 7 {
            self.nx = nx;
            self.len = len;
            self.points[..len].copy_from_slice(&c.points);
            self.ids[..len].copy_from_slice(&c.ids);
            self.weights[..len].copy_from_slice(&c.weights);
            self.x = c.x;
        }
    }

    /// `c` with the nearest corral kept in place of its own where that one is farther.
    fn restored(&self, mut c: Corral) -> Corral {
        let nx = dot(&c.x, &c.x).sqrt();
        if self.len > 0 && !(nx <= self.nx) {
            c.points = self.points[..self.len].to_vec();
            c.ids = self.ids[..self.len].to_vec();
            c.weights = self.weights[..self.len].to_vec();
            c.x = self.x;
        }
        c
    }
}

/// The minor cycles: the affine minimiser of the corral, moved back into its convex hull,
/// dropping the points whose weight reaches 0. False when the corral empties.
fn minor_cycles(c: &mut Corral) -> bool {
    loop {
        let Some(alpha) = affine_min(&c.points) else {
            // The new point all but in the corral's affine hull: the corral's weakest
            // other point leaves (the weights stay convex, x stays in the set).
            let n = c.points.len();
            let Some(k) = (0..n - 1).min_by(|&a, &b| c.weights[a].total_cmp(&c.weights[b])) else {
                return false;
            };
            let gone = c.weights[k];
            c.points.remove(k);
            c.ids.remove(k);
            c.weights.remove(k);
            let n = c.weights.len();
            c.weights.iter_mut().for_each(|l| *l += gone / n as f64);
            continue;
        };
        if alpha.iter().all(|&a| a > 1e-14) {
            c.weights = alpha;
            return true;
        }
        let mut theta = 1.0f64;
        for (l, a) in c.weights.iter().zip(&alpha) {
            if *a <= 1e-14 {
                let t = l / (l - a);
                if t < theta {
                    theta = t;
                }
            }
        }
        let theta = theta.clamp(0.0, 1.0);
        for (l, a) in c.weights.iter_mut().zip(&alpha) {
            *l += theta * (a - *l);
        }
        let mut k = 0;
        while k < c.points.len() {
            if c.weights[k] <= 1e-14 {
                c.points.swap_remove(k);
                c.ids.swap_remove(k);
                c.weights.swap_remove(k);
            } else {
                k += 1;
            }
        }
        if c.points.is_empty() {
            return false;
        }
        let total: f64 = c.weights.iter().sum();
        c.weights.iter_mut().for_each(|l| *l /= total);
    }
}

/// The corral's affine minimiser made accurate to its own size (iterative refinement in
/// double-double): where 0 lies just outside the set, `x` is tiny against the points, and
/// float weights cannot place it closer than an ulp of theirs times `|sᵢ|`, which leaves
/// its direction off by `ε·|sᵢ|/|x|` — too much for `h(−x/|x|)` to prove the distance.
/// Here `x = s₀ + Dβ` with `β` and `D = [sⱼ − s₀]` kept in double-double, each round
/// correcting `β` by the float least-squares solution of `Dδ ≈ −x`. The weights become
/// `β` rounded (they stay a convex combination: a point of the set, for the bound from
/// below); where they would turn negative the minimiser is not in the hull and nothing
/// changes. Returns `x`.
pub(crate) fn refine(c: &mut Corral) -> [f64; 6] {
    let m = c.points.len();
    if m < 2 {
        return c.x;
    }
    let s0 = c.points[0];
    let exact: Vec<[Dd; 6]> = c.points[1..]
        .iter()
        .map(|p| std::array::from_fn(|t| Dd::new(p[t]).add(Dd::new(-s0[t]))))
        .collect();
    let d: Vec<[f64; 6]> = exact.iter().map(|v| v.map(|x| x.hi + x.lo)).collect();
    let total: f64 = c.weights.iter().sum();
    let mut beta: Vec<Dd> = c.weights[1..].iter().map(|w| Dd::new(w / total)).collect();
    let point = |beta: &[Dd]| -> [f64; 6] {
        std::array::from_fn(|t| {
            let v = exact
                .iter()
                .zip(beta)
                .fold(Dd::new(s0[t]), |acc, (dj, b)| acc.add(b.mul(dj[t])));
            v.hi + v.lo
        })
    };
    let mut x = point(&beta);
    for _ in 0..3 {
        let Some(step) = least_squares(&d, &x.map(|v| -v)) else {
            return c.x;
        };
        for (b, s) in beta.iter_mut().zip(&step) {
            *b = b.add(Dd::new(*s));
        }
        x = point(&beta);
    }
    let rest: f64 = beta.iter().map(|b| b.hi + b.lo).sum();
    let weights: Vec<f64> = std::iter::once(1.0 - rest)
        .chain(beta.iter().map(|b| b.hi + b.lo))
        .collect();
    if weights.iter().any(|&w| !(w > 0.0)) {
        return c.x;
    }
    c.weights = weights;
    c.x = x;
    x
}

/// The weights `α` (summing to 1) of the point of least norm in the affine hull of `s`:
/// `s₀ + Dβ` with `D = [s₁ − s₀, …]`, `β` the least-squares solution of `Dβ = −s₀` by a
/// twice-orthogonalised QR of `D` (not the normal equations: the points of a curved set
/// crowd together near its nearest point, and squaring `D`'s condition number would call
/// them dependent long before rounding does); `None` when they are affinely dependent to
/// rounding.
fn affine_min(s: &[[f64; 6]]) -> Option<Vec<f64>> {
    let m = s.len();
    if m == 1 {
        return Some(vec![1.0]);
    }
    if m > 7 {
        return None;
    }
    let d: Vec<[f64; 6]> = s[1..]
        .iter()
        .map(|p| std::array::from_fn(|t| p[t] - s[0][t]))
        .collect();
    let beta = least_squares(&d, &s[0].map(|v| -v))?;
    let rest: f64 = beta[..m - 1].iter().sum();
    let alpha: Vec<f64> = std::iter::once(1.0 - rest)
        .chain(beta[..m - 1].iter().copied())
        .collect();
    alpha.iter().all(|a| a.is_finite()).then_some(alpha)
}

/// The least-squares solution of `Dβ = b` for the (at most six) columns `d` of R⁶, by a
/// twice-orthogonalised QR; `None` when the columns are dependent to rounding.
fn least_squares(d: &[[f64; 6]], b: &[f64; 6]) -> Option<[f64; 6]> {
    let k = d.len();
    if k > 6 {
        return None;
    }
    let mut q = [[0.0f64; 6]; 6];
    let mut r = [[0.0f64; 6]; 6];
    for j in 0..k {
        let mut v = d[j];
        let len = dot(&v, &v).sqrt();
        for _ in 0..2 {
            for i in 0..j {
                let c = dot(&q[i], &v);
                r[i][j] += c;
                for t in 0..6 {
                    v[t] -= c * q[i][t];
                }
            }
        }
        let rest = dot(&v, &v).sqrt();
        if !(rest > 1e-12 * len) {
            return None;
        }
        r[j][j] = rest;
        q[j] = v.map(|x| x / rest);
    }
    // R β = Qᵀ b.
    let mut beta = [0.0f64; 6];
    for i in (0..k).rev() {
        let mut acc = dot(&q[i], b);
        for j in i + 1..k {
            acc -= r[i][j] * beta[j];
        }
        beta[i] = acc / r[i][i];
    }
    beta.iter().all(|v| v.is_finite()).then_some(beta)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest point of a finite set's hull: a triangle in R⁶ whose nearest point to 0
    /// lies inside its edge, found exactly with its two ids.
    #[test]
    fn nearest_point_of_a_triangle() {
        let pts: [[f64; 6]; 3] = [
            [1.0, -1.0, 0.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            [3.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        ];
        let support = |u: &[f64; 6]| -> Support {
            let (i, h) = pts
                .iter()
                .map(|p| dot(p, u))
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            (h, pts[i], i as u32)
        };
        let mut q = 0;
        let c = wolfe(
            support(&[0.0, 1.0, 0.0, 0.0, 0.0, 0.0]),
            support,
            |_, _, _| false,
            3.2,
            &mut q,
            100,
        );
        assert_eq!(c.end, End::Nearest);
        assert!(
            (c.x[0] - 1.0).abs() < 1e-15 && c.x[1].abs() < 1e-15,
            "{:?}",
            c.x
        );
        let mut ids = c.ids.clone();
        ids.sort();
        assert_eq!(ids, vec![0, 1]);
    }
}
