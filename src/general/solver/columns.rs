//! The column kernels: loops over every generator or every ray on coordinates laid out
//! column by column, with AVX2 where the CPU has it and a scalar body otherwise, both
//! summing in the same order (the same bits either way).

use crate::general::linalg::Vector;

/// Lengths and unit vectors of the `k` vectors of `gens` (vector `t` at `gens[t·d..]`),
/// laid out column by column in `cols` (coordinate `a` of vector `t` at `cols[a·kp + t]`,
/// `kp` ≥ `k` a multiple of 4, the tail zero): `norms[t]` is `linalg::norm` of vector t,
/// computed by the same operations in the same order (largest magnitude, sum of squares
/// scaled by it, its square root times it), and the unit vector zero for a zero vector.
#[inline]
pub(super) fn unit_columns(
    simd: bool,
    d: usize,
    gens: &[f64],
    kp: usize,
    cols: &mut [f64],
    norms: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU runs AVX2 (`Solver::new`).
        unsafe {
            return match d {
                3 => unit_columns_avx2::<3>(gens, kp, cols, norms),
                6 => unit_columns_avx2::<6>(gens, kp, cols, norms),
                _ => unit_columns_avx2::<7>(gens, kp, cols, norms),
            };
        }
    }
    let _ = simd;
    match d {
        3 => unit_columns_body::<3>(gens, kp, cols, norms),
        6 => unit_columns_body::<6>(gens, kp, cols, norms),
        _ => unit_columns_body::<7>(gens, kp, cols, norms),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn unit_columns_avx2<const D: usize>(
    gens: &[f64],
    kp: usize,
    cols: &mut [f64],
    norms: &mut [f64],
) {
    use std::arch::x86_64::*;
    let k = gens.len() / D;
    assert!(cols.len() >= D * kp && norms.len() >= kp && kp.is_multiple_of(4) && k <= kp);
    let zero = _mm256_setzero_pd();
    let one = _mm256_set1_pd(1.0);
    let sign = _mm256_set1_pd(-0.0);
    for t0 in (0..kp).step_by(4) {
        // Four vectors a block, lane by lane (zero past the end).
        let mut x = [[0.0f64; 4]; D];
        for l in 0..4 {
            if t0 + l < k {
                let g = &gens[(t0 + l) * D..(t0 + l + 1) * D];
                for a in 0..D {
                    x[a][l] = g[a];
                }
            }
        }
        // The operations of `unit_columns_body`, four lanes at once. SAFETY: AVX2 is
        // enabled here; the loads and stores stay within the arrays and the bounds asserted.
        let xs: [__m256d; D] = std::array::from_fn(|a| _mm256_loadu_pd(x[a].as_ptr()));
        let mut m = zero;
        for &xa in &xs {
            m = _mm256_max_pd(m, _mm256_andnot_pd(sign, xa));
        }
        let pos = _mm256_cmp_pd::<_CMP_GT_OQ>(m, zero);
        let safe = _mm256_blendv_pd(one, m, pos);
        let mut sum = zero;
        for &xa in &xs {
            let q = _mm256_div_pd(xa, safe);
            sum = _mm256_add_pd(sum, _mm256_mul_pd(q, q));
        }
        let len = _mm256_blendv_pd(zero, _mm256_mul_pd(m, _mm256_sqrt_pd(sum)), pos);
        _mm256_storeu_pd(norms.as_mut_ptr().add(t0), len);
        let some = _mm256_cmp_pd::<_CMP_GT_OQ>(len, zero);
        let safe_len = _mm256_blendv_pd(one, len, some);
        for (a, &xa) in xs.iter().enumerate() {
            let u = _mm256_blendv_pd(zero, _mm256_div_pd(xa, safe_len), some);
            _mm256_storeu_pd(cols.as_mut_ptr().add(a * kp + t0), u);
        }
    }
}

#[inline(always)]
pub(super) fn unit_columns_body<const D: usize>(
    gens: &[f64],
    kp: usize,
    cols: &mut [f64],
    norms: &mut [f64],
) {
    let k = gens.len() / D;
    let cols = &mut cols[..D * kp];
    let norms = &mut norms[..kp];
    for t0 in (0..kp).step_by(4) {
        // Four vectors a block, lane by lane (zero past the end).
        let mut x = [[0.0f64; 4]; D];
        for l in 0..4 {
            if t0 + l < k {
                let g = &gens[(t0 + l) * D..(t0 + l + 1) * D];
                for a in 0..D {
                    x[a][l] = g[a];
                }
            }
        }
        // m: the largest magnitude, folded from 0 in coordinate order (as `norm`).
        let mut m = [0.0f64; 4];
        for xa in &x {
            for l in 0..4 {
                m[l] = m[l].max(xa[l].abs());
            }
        }
        // The sum of (v/m)² in coordinate order, then m·sqrt of it; 0 where m is 0.
        let safe = m.map(|m| if m > 0.0 { m } else { 1.0 });
        let mut sum = [0.0f64; 4];
        for xa in &x {
            for l in 0..4 {
                let q = xa[l] / safe[l];
                sum[l] += q * q;
            }
        }
        let mut len = [0.0f64; 4];
        for l in 0..4 {
            len[l] = if m[l] > 0.0 {
                m[l] * sum[l].sqrt()
            } else {
                0.0
            };
        }
        norms[t0..t0 + 4].copy_from_slice(&len);
        for (a, xa) in x.iter().enumerate() {
            for l in 0..4 {
                cols[a * kp + t0 + l] = if len[l] > 0.0 { xa[l] / len[l] } else { 0.0 };
            }
        }
    }
}

/// The position `t < stride` with the largest `Σ_a soa[a·stride + t]·r[a] + mask[t]`
/// (summed in coordinate order, as [`dot`]), if that is above `floor`; the first such
/// position on ties. `mask[t]` is 0 or −∞ (a position left out). The NNLS's choice of the
/// generator most against the residual, without storing the gradient.
#[inline]
pub(super) fn most_against(
    simd: bool,
    d: usize,
    soa: &[f64],
    stride: usize,
    r: &Vector,
    mask: &[f64],
    floor: f64,
) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU runs AVX2 (`Solver::new`).
        unsafe {
            return match d {
                3 => most_against_avx2::<3>(soa, stride, r, mask, floor),
                6 => most_against_avx2::<6>(soa, stride, r, mask, floor),
                _ => most_against_avx2::<7>(soa, stride, r, mask, floor),
            };
        }
    }
    let _ = simd;
    match d {
        3 => most_against_body::<3>(soa, stride, r, mask, floor),
        6 => most_against_body::<6>(soa, stride, r, mask, floor),
        _ => most_against_body::<7>(soa, stride, r, mask, floor),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn most_against_avx2<const D: usize>(
    soa: &[f64],
    stride: usize,
    r: &Vector,
    mask: &[f64],
    floor: f64,
) -> Option<usize> {
    use std::arch::x86_64::*;
    assert!(soa.len() >= D * stride && mask.len() >= stride && stride.is_multiple_of(4));
    // The operations of `most_against_body`, four lanes at once. SAFETY: AVX2 is enabled
    // here; every load is within the bounds asserted.
    let rs: [__m256d; D] = std::array::from_fn(|a| _mm256_set1_pd(r[a]));
    let mut best = _mm256_set1_pd(floor);
    let mut at = _mm256_set1_pd(-1.0);
    let mut pos = _mm256_setr_pd(0.0, 1.0, 2.0, 3.0);
    let four = _mm256_set1_pd(4.0);
    let p = soa.as_ptr();
    for t0 in (0..stride).step_by(4) {
        let mut g = _mm256_mul_pd(_mm256_loadu_pd(p.add(t0)), rs[0]);
        for (a, &ra) in rs.iter().enumerate().skip(1) {
            g = _mm256_add_pd(
                g,
                _mm256_mul_pd(_mm256_loadu_pd(p.add(a * stride + t0)), ra),
            );
        }
        let v = _mm256_add_pd(g, _mm256_loadu_pd(mask.as_ptr().add(t0)));
        let take = _mm256_cmp_pd::<_CMP_GT_OQ>(v, best);
        best = _mm256_blendv_pd(best, v, take);
        at = _mm256_blendv_pd(at, pos, take);
        pos = _mm256_add_pd(pos, four);
    }
    let mut bests = [0.0; 4];
    let mut ats = [0.0; 4];
    _mm256_storeu_pd(bests.as_mut_ptr(), best);
    _mm256_storeu_pd(ats.as_mut_ptr(), at);
    first_best(
        bests,
        ats.map(|t| if t < 0.0 { u64::MAX } else { t as u64 }),
    )
}

/// Of four lanes' best values and their first positions (`u64::MAX`: none), the largest
/// value's position, the lowest on ties: the first best of the whole sequence.
#[inline(always)]
pub(super) fn first_best(best: [f64; 4], at: [u64; 4]) -> Option<usize> {
    let mut pick: Option<(f64, u64)> = None;
    for l in 0..4 {
        if at[l] == u64::MAX {
            continue;
        }
        pick = match pick {
            Some((b, t)) if b > best[l] || (b == best[l] && t < at[l]) => Some((b, t)),
            _ => Some((best[l], at[l])),
        };
    }
    pick.map(|(_, t)| t as usize)
}

#[inline(always)]
pub(super) fn most_against_body<const D: usize>(
    soa: &[f64],
    stride: usize,
    r: &Vector,
    mask: &[f64],
    floor: f64,
) -> Option<usize> {
    let soa = &soa[..D * stride];
    let mask = &mask[..stride];
    // Per lane, its best value and the first position holding it.
    let mut best = [floor; 4];
    let mut at = [u64::MAX; 4];
    for t0 in (0..stride).step_by(4) {
        let mut g = [0.0f64; 4];
        for l in 0..4 {
            g[l] = soa[t0 + l] * r[0];
        }
        for a in 1..D {
            for l in 0..4 {
                g[l] += soa[a * stride + t0 + l] * r[a];
            }
        }
        for l in 0..4 {
            let v = g[l] + mask[t0 + l];
            let take = v > best[l];
            best[l] = if take { v } else { best[l] };
            at[l] = if take { (t0 + l) as u64 } else { at[l] };
        }
    }
    first_best(best, at)
}

/// `grad[t] = Σ_a soa[a·stride + t]·r[a]` for every position `t < stride`, summed in
/// coordinate order (as [`dot`] sums): the NNLS's gradient over the distinct generators.
#[inline]
pub(super) fn gradient(
    simd: bool,
    d: usize,
    soa: &[f64],
    stride: usize,
    len: usize,
    r: &Vector,
    grad: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU runs AVX2 (`Solver::new`).
        unsafe {
            return match d {
                3 => gradient_avx2::<3>(soa, stride, len, r, grad),
                6 => gradient_avx2::<6>(soa, stride, len, r, grad),
                _ => gradient_avx2::<7>(soa, stride, len, r, grad),
            };
        }
    }
    let _ = simd;
    match d {
        3 => gradient_body::<3>(soa, stride, len, r, grad),
        6 => gradient_body::<6>(soa, stride, len, r, grad),
        _ => gradient_body::<7>(soa, stride, len, r, grad),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn gradient_avx2<const D: usize>(
    soa: &[f64],
    stride: usize,
    len: usize,
    r: &Vector,
    grad: &mut [f64],
) {
    gradient_body::<D>(soa, stride, len, r, grad);
}

#[inline(always)]
pub(super) fn gradient_body<const D: usize>(
    soa: &[f64],
    stride: usize,
    len: usize,
    r: &Vector,
    grad: &mut [f64],
) {
    let grad = &mut grad[..len];
    let col0 = &soa[..len];
    for (g, &u) in grad.iter_mut().zip(col0) {
        *g = u * r[0];
    }
    for a in 1..D {
        let col = &soa[a * stride..a * stride + len];
        let ra = r[a];
        for (g, &u) in grad.iter_mut().zip(col) {
            *g += u * ra;
        }
    }
}

/// The least of `v` (a multiple of 4 long; +∞ when empty), four lanes at a time.
#[inline]
pub(super) fn least(v: &[f64]) -> f64 {
    let mut m = [f64::INFINITY; 4];
    for c in v.chunks_exact(4) {
        for l in 0..4 {
            m[l] = if c[l] < m[l] { c[l] } else { m[l] };
        }
    }
    m.into_iter().fold(f64::INFINITY, f64::min)
}
