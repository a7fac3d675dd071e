//! An orthonormal basis grown one vector at a time (modified Gram–Schmidt, twice): the tests'
//! own, for building cases (a half-space's plane) and brute-force facets (the normal of
//! d−1 generators), apart from the engine's linear algebra.

/// An orthonormal basis of R^d's subspace spanned by the vectors it took.
pub(crate) struct Basis {
    d: usize,
    q: Vec<Vec<f64>>,
}

/// `|a|`, scaled by the largest magnitude first (no overflow or underflow).
fn norm(a: &[f64]) -> f64 {
    let m = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * a.iter().map(|v| (v / m) * (v / m)).sum::<f64>().sqrt()
}

impl Basis {
    /// The empty basis of R^d.
    pub(crate) fn new(d: usize) -> Basis {
        Basis { d, q: Vec::new() }
    }

    /// `v` with the basis projected out, twice.
    pub(crate) fn residual(&self, v: &[f64]) -> Vec<f64> {
        let mut r = v[..self.d].to_vec();
        for _ in 0..2 {
            for q in &self.q {
                let c: f64 = r.iter().zip(q).map(|(x, y)| x * y).sum();
                for (ri, qi) in r.iter_mut().zip(q) {
                    *ri -= c * qi;
                }
            }
        }
        r
    }

    /// Takes `v` (its normalised residual) when it is independent of the basis beyond `tol`
    /// relative to `|v|`; returns whether it did.
    pub(crate) fn push(&mut self, v: &[f64], tol: f64) -> bool {
        let nv = norm(&v[..self.d]);
        if self.q.len() == self.d || nv == 0.0 {
            return false;
        }
        let unit: Vec<f64> = v[..self.d].iter().map(|x| x / nv).collect();
        let r = self.residual(&unit);
        let nr = norm(&r);
        if nr <= tol {
            return false;
        }
        self.q.push(r.iter().map(|x| x / nr).collect());
        true
    }

    /// A unit vector orthogonal to the basis (of fewer than d vectors): the coordinate axis
    /// with the largest residual, orthogonalised once more.
    pub(crate) fn complement(&self) -> Vec<f64> {
        let (mut best, mut best_norm) = (Vec::new(), -1.0);
        for axis in 0..self.d {
            let mut e = vec![0.0; self.d];
            e[axis] = 1.0;
            let r = self.residual(&e);
            let n = norm(&r);
            if n > best_norm {
                (best, best_norm) = (r, n);
            }
        }
        let unit: Vec<f64> = best.iter().map(|x| x / best_norm).collect();
        let r = self.residual(&unit);
        let n = norm(&r);
        r.iter().map(|x| x / n).collect()
    }
}
