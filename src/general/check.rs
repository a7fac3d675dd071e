//! The float64 checks every proof of the general engine passes before it is reported
//! (docs/contract-general.md's tolerances), on the caller's generators as given: nothing the search
//! computed is trusted, only the indices, weights and normals it proposes.

use super::linalg::{dot, norm};
use super::tolerance::EPS;
use super::GeneralCase;

/// Whether `need ≈ Σ weights[k]·w[indices[k]]` is a witness: at most d distinct indices,
/// finite weights, each at least `−ε|need|/|wᵢ|`, and a residual within
/// `ε·max(|need|, Σλ|w|)`. Need = 0: only the empty witness is asked for.
pub fn witness(case: &GeneralCase<'_>, indices: &[u32], weights: &[f64]) -> bool {
    witness_normed(case, |i| norm(case.generator(i)), indices, weights)
}

/// [`witness`] with `norm_of(i)` the length of generator `i` (`linalg::norm` of it, which a
/// caller checking many witnesses of one case computes once).
pub(crate) fn witness_normed(
    case: &GeneralCase<'_>,
    norm_of: impl Fn(usize) -> f64,
    indices: &[u32],
    weights: &[f64],
) -> bool {
    let d = case.dim;
    let s = norm(case.need);
    if indices.len() != weights.len() || indices.len() > d {
        return false;
    }
    if indices.is_empty() {
        return s == 0.0;
    }
    let k = case.len();
    for (a, &i) in indices.iter().enumerate() {
        if i as usize >= k || indices[..a].contains(&i) {
            return false;
        }
    }
    let mut residual = [0.0; super::MAX_DIM];
    residual[..d].copy_from_slice(case.need);
    let mut total = 0.0;
    for (&i, &l) in indices.iter().zip(weights) {
        let w = case.generator(i as usize);
        let nw = norm_of(i as usize);
        if !l.is_finite() || l * nw < -EPS * s {
            return false;
        }
        total += l.abs() * nw;
        for (r, x) in residual[..d].iter_mut().zip(w) {
            *r -= l * x;
        }
    }
    norm(&residual[..d]) <= EPS * s.max(total)
}

/// Whether `y` is a certificate: finite and nonzero, `y·wᵢ ≥ −ε|y||wᵢ|` for every
/// generator, and `y·need < −ε|y||need|`.
pub fn certificate(case: &GeneralCase<'_>, y: &[f64]) -> bool {
    certificate_normed(case, |i| norm(case.generator(i)), y)
}

/// [`certificate`] with `norm_of(i)` the length of generator `i`, as in [`supports_normed`].
pub(crate) fn certificate_normed(
    case: &GeneralCase<'_>,
    norm_of: impl Fn(usize) -> f64,
    y: &[f64],
) -> bool {
    let ny = norm(&y[..case.dim]);
    if !(ny.is_finite() && ny > 0.0) {
        return false;
    }
    supports_normed(case, norm_of, y, ny)
        && dot(&y[..case.dim], case.need) < -EPS * ny * norm(case.need)
}

/// Whether the plane of normal `n` (norm `nn`) has every generator on its side within
/// `ε|n||wᵢ|`, with `norm_of(i)` the length of generator `i` (`linalg::norm` of it, which a
/// caller checking many planes of one case computes once).
#[inline]
pub(crate) fn supports_normed(
    case: &GeneralCase<'_>,
    norm_of: impl Fn(usize) -> f64,
    n: &[f64],
    nn: f64,
) -> bool {
    match case.dim {
        3 => supports_dim::<3>(case.generators, norm_of, n, nn),
        6 => supports_dim::<6>(case.generators, norm_of, n, nn),
        _ => supports_dim::<7>(case.generators, norm_of, n, nn),
    }
}

/// [`supports_normed`] for generators of `D` numbers: `dot`'s sum, unrolled.
#[inline(always)]
fn supports_dim<const D: usize>(
    generators: &[f64],
    norm_of: impl Fn(usize) -> f64,
    n: &[f64],
    nn: f64,
) -> bool {
    let n: &[f64; D] = n[..D].try_into().expect("D numbers");
    generators.chunks_exact(D).enumerate().all(|(i, w)| {
        let s: f64 = w.iter().zip(n).map(|(x, y)| x * y).sum();
        s >= -EPS * nn * norm_of(i)
    })
}
