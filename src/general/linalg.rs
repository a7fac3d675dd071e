//! Small dense float64 linear algebra for vectors of R³ and R⁶: the few predicates the
//! general engine stands on (dot products, an orthonormal basis grown with a rank test, the
//! unit normal of d−1 vectors, least squares on at most d columns), each done the careful way
//! (modified Gram–Schmidt, orthogonalised twice).

use super::MAX_DIM;

/// A vector of R³ or R⁶ in a fixed array; the first `d` entries count.
pub(crate) type Vector = [f64; MAX_DIM];

/// `a·b` over the first `a.len()` entries.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `|a|`, without overflow or underflow for any finite float64 entries (scaled by the
/// largest magnitude first).
#[inline]
pub(crate) fn norm(a: &[f64]) -> f64 {
    let m = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    let s = a.iter().map(|v| (v / m) * (v / m)).sum::<f64>();
    m * s.sqrt()
}

/// An orthonormal basis of the span of the vectors offered to it, grown one vector at a
/// time: a vector is taken when what is left of it after projecting out the basis is more
/// than `tol` of its length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Basis {
    d: usize,
    len: usize,
    q: [Vector; MAX_DIM],
}

impl Basis {
    /// The empty basis of R^d.
    pub(crate) fn new(d: usize) -> Basis {
        Basis {
            d,
            len: 0,
            q: [[0.0; MAX_DIM]; MAX_DIM],
        }
    }

    /// Vectors in the basis (the rank of what was taken).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Basis vector `k`.
    pub(crate) fn get(&self, k: usize) -> &Vector {
        &self.q[k]
    }

    /// `v` with the basis projected out, twice (one pass loses orthogonality on nearly
    /// dependent vectors; two are enough).
    pub(crate) fn residual(&self, v: &[f64]) -> Vector {
        // Each arm an inlined copy with d known (unrolled; the same bits).
        match self.d {
            3 => self.residual_in(3, v),
            6 => self.residual_in(6, v),
            7 => self.residual_in(7, v),
            d => self.residual_in(d, v),
        }
    }

    #[inline(always)]
    fn residual_in(&self, d: usize, v: &[f64]) -> Vector {
        let mut r = [0.0; MAX_DIM];
        r[..d].copy_from_slice(&v[..d]);
        for _ in 0..2 {
            for q in &self.q[..self.len] {
                let c = dot(&r[..d], &q[..d]);
                for (ri, qi) in r[..d].iter_mut().zip(q) {
                    *ri -= c * qi;
                }
            }
        }
        r
    }

    /// Offers `v`: takes it (normalised residual) when it is independent of the basis
    /// beyond `tol` relative to `|v|`; returns whether it was taken.
    pub(crate) fn push(&mut self, v: &[f64], tol: f64) -> bool {
        self.push_part(v, tol).0
    }

    /// [`Basis::push`], with the length of `v`'s part outside the basis relative to `|v|`
    /// (0 where `v` is 0 or the basis full), taken or not.
    pub(crate) fn push_part(&mut self, v: &[f64], tol: f64) -> (bool, f64) {
        // Each arm an inlined copy with d known (its divisions side by side; the same bits).
        match self.d {
            3 => self.push_in(3, v, tol),
            6 => self.push_in(6, v, tol),
            7 => self.push_in(7, v, tol),
            d => self.push_in(d, v, tol),
        }
    }

    #[inline(always)]
    fn push_in(&mut self, d: usize, v: &[f64], tol: f64) -> (bool, f64) {
        if self.len == d {
            return (false, 0.0);
        }
        let nv = norm(&v[..d]);
        if nv == 0.0 {
            return (false, 0.0);
        }
        let mut unit = [0.0; MAX_DIM];
        for (u, x) in unit[..d].iter_mut().zip(v) {
            *u = x / nv;
        }
        let r = self.residual_in(d, &unit);
        let nr = norm(&r[..d]);
        if nr <= tol {
            return (false, nr);
        }
        self.q[self.len] = r.map(|x| x / nr);
        self.len += 1;
        (true, nr)
    }

    /// A unit vector orthogonal to the basis (which must have fewer than d vectors): the
    /// coordinate axis with the largest residual, orthogonalised.
    pub(crate) fn complement(&self) -> Vector {
        let mut best = [0.0; MAX_DIM];
        let mut best_norm = -1.0;
        for axis in 0..self.d {
            let mut e = [0.0; MAX_DIM];
            e[axis] = 1.0;
            let r = self.residual(&e);
            let n = norm(&r[..self.d]);
            if n > best_norm {
                best_norm = n;
                best = r;
            }
        }
        // Once more from the normalised residual: it is then orthogonal to working precision.
        let unit = best.map(|x| x / best_norm);
        let r = self.residual(&unit);
        let n = norm(&r[..self.d]);
        r.map(|x| x / n)
    }
}

/// Least squares on at most d columns of length about 1 (unit generators), towards a fixed
/// `b`, by QR (modified Gram–Schmidt twice, back substitution), kept from call to call: a
/// call on columns that begin with the last call's reuses their factors and only
/// orthogonalises the rest (an active-set step adds one column, or drops some and keeps
/// the ones before them). The same operations as a QR from scratch, so the same bits.
/// Lengths are plain square roots of sums of squares: on unit columns nothing left above
/// `tol` can underflow or overflow.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Qr {
    d: usize,
    /// The columns factored, by the caller's index, and how many.
    cols: [u32; MAX_DIM],
    p: usize,
    q: [Vector; MAX_DIM],
    r: [Vector; MAX_DIM],
    /// `q_k·b`.
    qb: Vector,
    b: Vector,
}

impl Qr {
    /// No columns yet, towards `b` in R^d.
    pub(crate) fn new(d: usize, b: &Vector) -> Qr {
        Qr {
            d,
            cols: [0; MAX_DIM],
            p: 0,
            q: [[0.0; MAX_DIM]; MAX_DIM],
            r: [[0.0; MAX_DIM]; MAX_DIM],
            qb: [0.0; MAX_DIM],
            b: *b,
        }
    }

    /// `z` minimising `|Σ z_k·col(cols[k]) − b|`; `None` when the columns are dependent
    /// beyond `tol` (relative).
    pub(crate) fn least_squares(
        &mut self,
        cols: &[u32],
        col: impl Fn(u32) -> Vector,
        tol: f64,
    ) -> Option<Vector> {
        debug_assert!(cols.len() <= self.d);
        let same = self.cols[..self.p]
            .iter()
            .zip(cols)
            .take_while(|(a, b)| a == b)
            .count();
        self.p = same;
        for &c in &cols[same..] {
            if !self.push(c, &col(c), tol) {
                return None;
            }
        }
        let (d, p) = (self.d, self.p);
        let mut z = [0.0; MAX_DIM];
        for k in (0..p).rev() {
            let mut s = self.qb[k];
            for (rkj, zj) in self.r[k][k + 1..p].iter().zip(&z[k + 1..p]) {
                s -= rkj * zj;
            }
            z[k] = s / self.r[k][k];
        }
        debug_assert!(p <= d);
        Some(z)
    }

    /// Appends column `v` (index `c`): false, and nothing kept, when it is dependent.
    fn push(&mut self, c: u32, v: &Vector, tol: f64) -> bool {
        // Each arm an inlined copy with d known (unrolled; the same bits).
        match self.d {
            3 => self.push_in(3, c, v, tol),
            6 => self.push_in(6, c, v, tol),
            7 => self.push_in(7, c, v, tol),
            d => self.push_in(d, c, v, tol),
        }
    }

    #[inline(always)]
    fn push_in(&mut self, d: usize, c: u32, v: &Vector, tol: f64) -> bool {
        let k = self.p;
        let mut v = *v;
        let nv = dot(&v[..d], &v[..d]).sqrt();
        if nv == 0.0 || k == d {
            return false;
        }
        let mut rk = [0.0; MAX_DIM];
        for _ in 0..2 {
            for (rkj, qj) in rk.iter_mut().zip(&self.q[..k]) {
                let c = dot(&v[..d], &qj[..d]);
                *rkj += c;
                for (vi, qi) in v[..d].iter_mut().zip(qj) {
                    *vi -= c * qi;
                }
            }
        }
        let n = dot(&v[..d], &v[..d]).sqrt();
        if n <= tol * nv {
            return false;
        }
        rk[k] = n;
        for (j, &rj) in rk[..=k].iter().enumerate() {
            self.r[j][k] = rj;
        }
        let mut q = [0.0; MAX_DIM];
        for (qi, vi) in q[..d].iter_mut().zip(&v) {
            *qi = vi / n;
        }
        self.q[k] = q;
        self.qb[k] = dot(&q[..d], &self.b[..d]);
        self.cols[k] = c;
        self.p = k + 1;
        true
    }
}

/// Gram–Schmidt with pivoting: up to `max` vectors among `items` (index, vector), each step
/// taking the one with the largest part outside the basis, while that part is more than
/// `tol` of its length. Returns the basis and the indices taken, in order. Pivoting keeps a
/// cluster of nearly equal vectors from counting as several dimensions.
pub(crate) fn pivoted<'a, I>(
    d: usize,
    max: usize,
    tol: f64,
    items: impl Fn() -> I,
) -> (Basis, [u32; MAX_DIM])
where
    I: Iterator<Item = (u32, &'a [f64])>,
{
    let mut basis = Basis::new(d);
    let mut picked = [0u32; MAX_DIM];
    while basis.len() < max.min(d) {
        let mut best: (f64, Option<(u32, &[f64])>) = (tol, None);
        for (i, v) in items() {
            let nv = norm(&v[..d]);
            if nv == 0.0 {
                continue;
            }
            let r = basis.residual(v);
            let n = norm(&r[..d]) / nv;
            if n > best.0 {
                best = (n, Some((i, v)));
            }
        }
        let Some((i, v)) = best.1 else { break };
        picked[basis.len()] = i;
        basis.push(v, 0.0);
    }
    (basis, picked)
}
