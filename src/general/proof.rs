//! The proof of a bound from below, and its checker (docs/proof.md): determinants and dot
//! products only, no hull and no solver — small enough to read in one sitting.
//!
//! A proof is a list of **faces**, each d − 1 generator indices of a cone in R^d, an
//! **interior** vector `c`, and the point `x` the bound is about (the need; for a grasp the
//! lifted origin). For a face F let `n_F` be the vector with `n_F·y = det[g_F; y]` (the
//! generalised cross product: its k-th entry is the determinant with `e_k` as the last row).
//! The checker asks:
//!
//! 1. `c·g_i > 0` for every generator on a face and `c·x > 0` (the faces' cone is pointed);
//! 2. `det[g_F; x] = n_F·x ≠ 0` for every face, beyond a rounding bound: its sign σ_F turns
//!    the face to face x (the index order of a face does not matter);
//! 3. the faces' boundary is zero: Σ σ_F ∂F = 0, every (d−2)-ridge met with opposite
//!    orientations as often as with equal ones (the faces are a closed cycle).
//!
//! Then in the chart `c·y = 1` the faces are a closed cycle of simplices around x that winds
//! the same way everywhere, so every ray from x meets one of them, at a point of the
//! generators' cone; the cone ∩_F {n_F·y ≥ 0} lies inside it, and so does the ball about x of
//! radius `min_F n_F·x / |n_F|` (cone tests), or about 0 in W of radius
//! `min_F n_F0 / |(n_F1…n_F6)|` (grasps, generators `(1, wᵢ)` and x = e₀). That radius is the
//! bound from below the answer reports.
//!
//! A cone holding lines (its lineality space L) proves the same in L's complement: the proof
//! lists generators spanning L, each with the witness that the cone holds its opposite; they
//! join every face as its last rows, and `c` counts with L projected out.
//!
//! The bound from above is a plane: `upper`, d − 1 generators whose `n` (normalised, turned
//! towards x) has every generator on its side within ε: the reported margin or q1 is its value.

// Comparisons are written `!(x > t)` where a NaN must fail them.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub(crate) mod disc;
pub(crate) mod region;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::complete::SetHasher;

use serde::{Deserialize, Serialize};

use super::linalg::{dot, norm};
use super::tolerance::EPS;

pub use disc::{check_disc_answer, CheckedDisc};
pub(crate) use region::check_region;
pub(crate) use region::{distance_to_polygon, Bound, RegionProof};
pub(crate) use region::{BoxSide, OuterEdge, RegionChecked, RegionMap, WitnessedPoint};

/// What a bound is about: the distance from x to the cone's boundary (cone tests, scenes'
/// needs), or the radius of the ball about 0 in W (a grasp's lifted cone, generators
/// `(1, wᵢ)`, x = e₀).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// `n·x / |n|`: the distance from x to the face's plane.
    Cone,
    /// `n₀ / |(n₁…n₆)|`: the offset of the face's plane in W.
    Grasp,
}

/// The proof of an answer's two bounds, its `"proof"`: an inner hull (inside) or the
/// nearest point (outside).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Proof {
    /// Inside: the faces of an inner hull and a plane.
    Inner(InnerProof),
    /// Outside: a point of the cone (or of W) and a supporting plane.
    Nearest(NearestProof),
}

impl Proof {
    /// The proof of the answer to the need `r·x` (`r > 0`) from this one of `x`'s (see
    /// [`crate::general::GeneralOutcome::scaled`]): the faces, planes and interior stand,
    /// the bound from below and every combination's weights scale by r.
    pub fn scaled(&self, r: f64) -> Proof {
        let mut p = self.clone();
        let weights = |w: &mut Vec<f64>| w.iter_mut().for_each(|v| *v *= r);
        match &mut p {
            Proof::Inner(p) => {
                p.lower *= r;
                if let Some(h) = &mut p.holds {
                    weights(&mut h.weights);
                }
            }
            Proof::Nearest(p) => weights(&mut p.weights),
        }
        p
    }

    /// The same proof with every generator index `g` written as `row(g)`: a caller's own
    /// numbering of the generators (Python's rows, where `active` or `counts` left some
    /// out). `row` must keep the order of the indices it maps.
    pub fn renumber(&mut self, row: impl Fn(u32) -> u32) {
        let all = |v: &mut Vec<u32>| v.iter_mut().for_each(|g| *g = row(*g));
        match self {
            Proof::Inner(p) => {
                for line in &mut p.lines {
                    line.generator = row(line.generator);
                    all(&mut line.generators);
                }
                p.faces.iter_mut().for_each(all);
                all(&mut p.upper);
                if let Some(h) = &mut p.holds {
                    all(&mut h.generators);
                }
            }
            Proof::Nearest(p) => all(&mut p.generators),
        }
    }
}

/// Inside: the bound from below by an inner hull's faces, from above by a plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InnerProof {
    /// What the bounds measure.
    pub measure: Measure,
    /// `c`, positive on every generator of a face and on x (after projecting out the
    /// lines).
    pub interior: Vec<f64>,
    /// Generators spanning the lines of the cone (its lineality space L), each with the
    /// witness that the cone holds its opposite; empty for a pointed cone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<Line>,
    /// The faces of the inner hull: d − 1 − (lines) generator indices each (written so that
    /// `det[g_F; g_lines; x] > 0`, though the checker takes either order).
    pub faces: Vec<Vec<u32>>,
    /// The bound from below the faces prove.
    pub lower: f64,
    /// d − 1 generators spanning the plane of the bound from above (the face's, then the
    /// lines'): every generator on one side of it.
    pub upper: Vec<u32>,
    /// Without faces (x within rounding of the boundary, or C without interior): the
    /// witness that x is in the cone, the bound from below then 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holds: Option<Combination>,
    /// A circular grasp's generators, points of its discs (the indices count these, not
    /// the pyramid's wrenches); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<DiscPoint>,
}

/// A point of a true friction cone's disc (docs/proof.md, circular grasps): the disc's index
/// (the line's contact points in order, every point of an edge or face its own) and the
/// force `f` on it at unit normal force, written `[disc, fx, fy, fz]`. Its generator is
/// `(1, f, p × f/ℓ)`, rebuilt by the checker, which first checks that `f` lies on the disc.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiscPoint(pub u32, pub f64, pub f64, pub f64);

/// A non-negative combination of generators: indices and weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Combination {
    /// The generators.
    pub generators: Vec<u32>,
    /// Their weights, each ≥ 0.
    pub weights: Vec<f64>,
}

/// `Σ weightsᵢ·g(generatorsᵢ)` checked: indices in range, weights finite and ≥ 0; the sum
/// and `Σ weightsᵢ|gᵢ|` (the scale its rounding is judged by).
fn combine(generators: &[f64], d: usize, c: &Combination) -> Result<(Vec<f64>, f64), String> {
    let k = generators.len() / d;
    if c.generators.len() != c.weights.len() {
        return Err("a combination's indices and weights do not pair".into());
    }
    let mut p = vec![0.0; d];
    let mut total = 0.0;
    for (&i, &w) in c.generators.iter().zip(&c.weights) {
        if i as usize >= k || !(w >= 0.0 && w.is_finite()) {
            return Err(format!("generator {i} or weight {w} out of place"));
        }
        let g = &generators[i as usize * d..(i as usize + 1) * d];
        total += w * norm(g);
        for (pa, ga) in p.iter_mut().zip(g) {
            *pa += w * ga;
        }
    }
    Ok((p, total))
}

/// A line of the cone: a generator whose opposite the cone holds, with the witness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    /// The generator.
    pub generator: u32,
    /// Generators and weights (≥ 0) whose combination is its opposite.
    pub generators: Vec<u32>,
    /// Their weights.
    pub weights: Vec<f64>,
}

/// Outside: the bound from below by a point `p = Σ λᵢ gᵢ` of the cone (cone tests: `−|x − p|`;
/// grasps: `−|p_w / p₀|`, the point of W it stands for), from above by a plane supporting every
/// generator (cone tests: `y·x/|y|`; grasps, `y = (0, u)`: `h_W(u)/|u|`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NearestProof {
    /// What the bounds measure.
    pub measure: Measure,
    /// The point's generators and their weights (≥ 0).
    pub generators: Vec<u32>,
    /// Their weights.
    pub weights: Vec<f64>,
    /// The plane: d numbers.
    pub plane: Vec<f64>,
    /// A circular grasp's generators, points of its discs (as [`InnerProof::points`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<DiscPoint>,
}

/// The bounds a proof was checked to give.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checked {
    /// The least face value: what the faces prove from below.
    pub lower: f64,
    /// The value of the plane `upper`.
    pub upper: f64,
}

/// Relative size (to the product of the rows' lengths) under which a determinant's sign is
/// not trusted. The determinants are computed in double-double arithmetic (about 32 digits),
/// so that a thin face — two near-duplicate generators on it — still has its orientation and
/// its distance to many digits.
const SIGN: f64 = 1e-24;

/// A double-double number: `hi + lo`, `|lo| ≤ ulp(hi)/2`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dd {
    pub(crate) hi: f64,
    pub(crate) lo: f64,
}

impl Dd {
    pub(crate) fn new(v: f64) -> Dd {
        Dd { hi: v, lo: 0.0 }
    }

    #[inline(always)]
    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        let e = (a - (s - bb)) + (b - bb);
        Dd { hi: s, lo: e }
    }

    #[inline(always)]
    fn quick(a: f64, b: f64) -> Dd {
        let s = a + b;
        Dd {
            hi: s,
            lo: b - (s - a),
        }
    }

    #[inline(always)]
    pub(crate) fn add(self, o: Dd) -> Dd {
        let s = Dd::two_sum(self.hi, o.hi);
        let t = Dd::two_sum(self.lo, o.lo);
        let s = Dd::quick(s.hi, s.lo + t.hi);
        Dd::quick(s.hi, s.lo + t.lo)
    }

    #[inline(always)]
    pub(crate) fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }

    /// Dekker's exact product of the high parts (Veltkamp splitting: no fused multiply-add,
    /// which a portable build would call in software), plus the cross terms.
    pub(crate) fn mul(self, o: Dd) -> Dd {
        self.mul_with::<false>(o)
    }

    /// [`Dd::mul`], the high parts' exact product by a fused multiply-add where `FMA` (only
    /// inside a function compiled for it, [`cross`]): the same product to the bit, as both
    /// are exact, in a third of the operations.
    #[inline(always)]
    fn mul_with<const FMA: bool>(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        let e = if FMA {
            self.hi.mul_add(o.hi, -p)
        } else {
            #[inline(always)]
            fn split(a: f64) -> (f64, f64) {
                let c = 134_217_729.0 * a; // 2^27 + 1
                let hi = c - (c - a);
                (hi, a - hi)
            }
            let (ah, al) = split(self.hi);
            let (bh, bl) = split(o.hi);
            ((ah * bh - p) + ah * bl + al * bh) + al * bl
        };
        Dd::quick(p, e + (self.hi * o.lo + self.lo * o.hi))
    }

    pub(crate) fn div(self, o: Dd) -> Dd {
        self.div_with::<false>(o)
    }

    #[inline(always)]
    fn div_with<const FMA: bool>(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        let r = self.add(o.mul_with::<FMA>(Dd::new(q1)).neg());
        let q2 = r.hi / o.hi;
        let r = r.add(o.mul_with::<FMA>(Dd::new(q2)).neg());
        let q3 = r.hi / o.hi;
        Dd::quick(q1, q2).add(Dd::new(q3))
    }
}

/// The determinant of the `d × d` matrix `m` (rows), by elimination with partial pivoting
/// in double-double arithmetic, rounded to f64.
pub(crate) fn det(d: usize, m: &[[f64; 8]; 8]) -> f64 {
    let mut a = [[Dd::new(0.0); 8]; 8];
    for r in 0..d {
        for c in 0..d {
            a[r][c] = Dd::new(m[r][c]);
        }
    }
    let mut det = Dd::new(1.0);
    for col in 0..d {
        let p = (col..d)
            .max_by(|&x, &y| a[x][col].hi.abs().total_cmp(&a[y][col].hi.abs()))
            .unwrap_or(col);
        if a[p][col].hi == 0.0 {
            return 0.0;
        }
        if p != col {
            a.swap(p, col);
            det = det.neg();
        }
        det = det.mul(a[col][col]);
        #[allow(clippy::needless_range_loop)] // a[r] and a[col] at once
        for r in col + 1..d {
            let f = a[r][col].div(a[col][col]);
            for c in col..d {
                a[r][c] = a[r][c].add(f.mul(a[col][c]).neg());
            }
        }
    }
    det.hi + det.lo
}

/// [`cross`] in plain float64 (the same elimination, complete pivoting): a first guess that
/// callers check against the rows (their dot products with it) before they take it. The
/// inner hull asks it of every thin face it makes, so it is compiled for each dimension.
pub(crate) fn cross_f64(d: usize, rows: &[&[f64]]) -> [f64; 8] {
    match d {
        3 => cross_f64_in::<3>(d, rows),
        4 => cross_f64_in::<4>(d, rows),
        6 => cross_f64_in::<6>(d, rows),
        7 => cross_f64_in::<7>(d, rows),
        _ => cross_f64_in::<0>(d, rows),
    }
}

/// [`cross_f64`] in R^D (`D` the dimension when known as the code is compiled, else 0 and
/// then `d`): index loops whose bounds unroll where known, the same operations in the same
/// order either way, so the same bits.
#[inline(always)]
fn cross_f64_in<const D: usize>(d: usize, rows: &[&[f64]]) -> [f64; 8] {
    let d = if D > 0 { D } else { d };
    let m = d - 1;
    let mut a = [[0.0f64; 8]; 8];
    for (r, row) in rows.iter().enumerate().take(m) {
        let row = &row[..d];
        #[allow(clippy::manual_memcpy)] // a loop, not a call: d is known for each arm
        for c in 0..d {
            a[r][c] = row[c];
        }
    }
    let mut cols: [usize; 8] = std::array::from_fn(|c| c);
    let mut sign = 1.0;
    for k in 0..m {
        let (pr, pc, best) = complete_pivot(&a, k, m, d);
        if best == 0.0 {
            return [0.0; 8];
        }
        if pr != k {
            a.swap(pr, k);
            sign = -sign;
        }
        if pc != k {
            for row in a.iter_mut().take(m) {
                row.swap(pc, k);
            }
            cols.swap(pc, k);
            sign = -sign;
        }
        let top = a[k];
        for row in a[k + 1..m].iter_mut() {
            let f = row[k] / top[k];
            for c in 0..8 {
                row[c] -= f * top[c];
            }
        }
    }
    let mut z = [0.0f64; 8];
    for k in (0..m).rev() {
        let mut acc = -a[k][m];
        for j in k + 1..m {
            acc -= a[k][j] * z[j];
        }
        z[k] = acc / a[k][k];
    }
    let det = (0..m).fold(sign, |det, k| det * a[k][k]);
    let mut n = [0.0; 8];
    for k in 0..m {
        n[cols[k]] = det * z[k];
    }
    n[cols[m]] = det;
    n
}

/// The complete pivot of an elimination's step `k`: the first entry of largest magnitude in
/// rows `k..m` and columns `k..d` of `a`, row by row, as `(row, column, magnitude)` (a NaN is
/// never taken; `(k, k, −1)` where every entry is one).
#[inline(always)]
fn complete_pivot(a: &[[f64; 8]; 8], k: usize, m: usize, d: usize) -> (usize, usize, f64) {
    let (mut pr, mut pc, mut best) = (k, k, -1.0);
    #[allow(clippy::needless_range_loop)] // r and c are the pivot's place
    for r in k..m {
        for c in k..d {
            let v = a[r][c].abs();
            let better = v > best;
            best = if better { v } else { best };
            pr = if better { r } else { pr };
            pc = if better { c } else { pc };
        }
    }
    (pr, pc, best)
}

/// `n` with `n·y = det[rows; y]` for the d − 1 vectors `rows` of R^d, from one elimination
/// in double-double (row operations on `rows` leave `det[rows; y]` as it is for every `y`):
/// with complete pivoting the rows become `[S | b]`, `S` upper triangular over the pivot
/// columns and `b` the one column left, and `det[S b; y] = det S · (y_free − y_Sᵀ S⁻¹ b)`.
pub(crate) fn cross(d: usize, rows: &[&[f64]]) -> [f64; 8] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has fused multiply-add and AVX2, checked just above.
        return unsafe { cross_fma(d, rows) };
    }
    cross_with::<{ cfg!(target_arch = "aarch64") }, 0>(d, rows)
}

/// [`cross`] compiled with fused multiply-add and AVX2 (the same bits, faster).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
unsafe fn cross_fma(d: usize, rows: &[&[f64]]) -> [f64; 8] {
    // Compiled for each dimension an inner hull has (its thin faces come here).
    match d {
        3 => cross_with::<true, 3>(d, rows),
        4 => cross_with::<true, 4>(d, rows),
        6 => cross_with::<true, 6>(d, rows),
        7 => cross_with::<true, 7>(d, rows),
        _ => cross_with::<true, 0>(d, rows),
    }
}

/// The elimination of [`cross`], its numbers split into high and low parts and its columns
/// moved as they are pivoted (rather than indexed through the permutation), so that a row's
/// update is one fixed-width loop the compiler vectorises; the operations, and so the bits,
/// are those of [`Dd`] one number at a time.
/// `D`: the dimension when known as the code is compiled, else 0 (then `d`; the same
/// operations either way).
#[inline(always)]
fn cross_with<const FMA: bool, const D: usize>(d: usize, rows: &[&[f64]]) -> [f64; 8] {
    let d = if D > 0 { D } else { d };
    let m = d - 1;
    let (mut hi, mut lo) = ([[0.0f64; 8]; 8], [[0.0f64; 8]; 8]);
    for (r, row) in rows.iter().enumerate().take(m) {
        hi[r][..d].copy_from_slice(&row[..d]);
    }
    // cols[j]: the column of the rows given now in place j; 0..m the pivots, m the free one.
    let mut cols: [usize; 8] = std::array::from_fn(|c| c);
    let mut sign = 1.0;
    for k in 0..m {
        let (pr, pc, best) = complete_pivot(&hi, k, m, d);
        if best == 0.0 {
            return [0.0; 8];
        }
        if pr != k {
            hi.swap(pr, k);
            lo.swap(pr, k);
            sign = -sign;
        }
        if pc != k {
            for r in 0..m {
                hi[r].swap(pc, k);
                lo[r].swap(pc, k);
            }
            cols.swap(pc, k);
            sign = -sign;
        }
        let pivot = Dd {
            hi: hi[k][k],
            lo: lo[k][k],
        };
        let (top_hi, top_lo) = (hi[k], lo[k]);
        for r in k + 1..m {
            let f = Dd {
                hi: hi[r][k],
                lo: lo[r][k],
            }
            .div_with::<FMA>(pivot);
            // Every place, the eliminated ones too (never read again): one width for the
            // vector unit.
            for c in 0..8 {
                let t = Dd {
                    hi: hi[r][c],
                    lo: lo[r][c],
                }
                .add(
                    f.mul_with::<FMA>(Dd {
                        hi: top_hi[c],
                        lo: top_lo[c],
                    })
                    .neg(),
                );
                hi[r][c] = t.hi;
                lo[r][c] = t.lo;
            }
        }
    }
    let at = |r: usize, c: usize| Dd {
        hi: hi[r][c],
        lo: lo[r][c],
    };
    // z over the pivot places: −S⁻¹b, by back-substitution; z_free = 1.
    let mut z = [Dd::new(0.0); 8];
    for k in (0..m).rev() {
        let mut acc = at(k, m).neg();
        for (j, zj) in z.iter().enumerate().take(m).skip(k + 1) {
            acc = acc.add(at(k, j).mul_with::<FMA>(*zj).neg());
        }
        z[k] = acc.div_with::<FMA>(at(k, k));
    }
    // The column order [pivots…, free] is d − 1 transpositions' product away from the
    // order in which y sits last: det[S b; y] with y's row last and b's column moved back.
    let mut det = Dd::new(sign);
    for k in 0..m {
        det = det.mul_with::<FMA>(at(k, k));
    }
    let mut n = [0.0; 8];
    for k in 0..m {
        let v = det.mul_with::<FMA>(z[k]);
        n[cols[k]] = v.hi + v.lo;
    }
    n[cols[m]] = det.hi + det.lo;
    n
}

/// A grasp face whose determinant is at least this share of its rows' lengths' product
/// skips [`grasp_face_f64`]'s refinement.
const THICK: f64 = 1e-3;

/// A grasp's face in float64, where float64 is certain: its turn σ = sign det[g_F; e₀] and a
/// bound from below of its distance to 0 in W, or `None` (a thin face: double-double decides).
/// `rows` are the face's lifted generators `(1, wⱼ)`, `norms` their lengths.
///
/// `det[g_F; e₀] = (−1)^(d+1) det W_F` (W_F the rows' w parts, expanded along e₀), factored
/// with partial pivoting: `L̂Û = PW_F + E`, `|E| ≤ γ|L̂||Û|` (Higham, Thm. 9.3) with `|L̂| ≤ 1`,
/// so row i of E is at most `γ Σ_{k≤i} |Û_k|` long, and by Hadamard's inequality on the rows
/// `|det(PW_F + E) − det PW_F| ≤ Π(|gᵢ| + |Eᵢ|) − Π|gᵢ|`; the sign of `ΠÛᵢᵢ` is taken when it
/// clears that. The value needs no exact plane: for any `a`, every point of the face's
/// simplex is at least `minⱼ a·wⱼ / |a|` from 0, so the float solution of `W_F a = 1` proves
/// the distance up to its dot products' rounding, taken off (and is refused where it misses
/// a vertex by 1e-12: its plane is not the face's). A face thinner than [`THICK`] has that
/// solution refined once on a residual in double-double, and is refused where the step is
/// above 1e-6 of it.
fn grasp_face_f64(d: usize, rows: &[&[f64]], norms: &[f64; 8]) -> Option<(i64, f64)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has fused multiply-add and AVX2, checked just above.
        return unsafe { grasp_face_fma(d, rows, norms) };
    }
    grasp_face_in::<{ cfg!(target_arch = "aarch64") }>(d, rows, norms)
}

/// [`grasp_face_f64`] compiled with fused multiply-add and AVX2 (the same bits: its only
/// use of them is the exact products of the residual).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
unsafe fn grasp_face_fma(d: usize, rows: &[&[f64]], norms: &[f64; 8]) -> Option<(i64, f64)> {
    grasp_face_in::<true>(d, rows, norms)
}

/// [`grasp_face_with`] for the lift of a spatial grasp (d = 7, every face of a circular
/// grasp's proof) compiled with its size known, else for any `d`: the same operations.
#[inline(always)]
fn grasp_face_in<const FMA: bool>(
    d: usize,
    rows: &[&[f64]],
    norms: &[f64; 8],
) -> Option<(i64, f64)> {
    if rows.len() + 1 != d {
        None
    } else if d == 7 {
        grasp_face_with::<FMA, 7>(rows, norms)
    } else {
        grasp_face_with::<FMA, 0>(rows, norms)
    }
}

/// `D`: the dimension when known as the code is compiled (7), else 0 and `d` is
/// `rows.len() + 1`.
#[inline(always)]
fn grasp_face_with<const FMA: bool, const D: usize>(
    rows: &[&[f64]],
    norms: &[f64; 8],
) -> Option<(i64, f64)> {
    const U: f64 = f64::EPSILON / 2.0;
    let d = if D > 0 { D } else { rows.len() + 1 };
    let m = d - 1;
    if rows.len() != m || m > 7 {
        return None;
    }
    let gamma = |n: usize| (n as f64 * U) / (1.0 - n as f64 * U);
    // The rows' w parts (index loops: a copy of a length known only at run time is a call).
    let mut w = [[0.0f64; 8]; 8];
    for (r, row) in rows.iter().enumerate() {
        let row = &row[1..d];
        #[allow(clippy::manual_memcpy)] // a loop, not a call: m is known for d = 7
        for c in 0..m {
            w[r][c] = row[c];
        }
    }
    let mut a = w;
    let mut perm: [usize; 8] = std::array::from_fn(|i| i);
    let mut det_sign = if d.is_multiple_of(2) { -1.0 } else { 1.0 };
    let mut det = 1.0f64;
    let mut upper_rows = 0.0f64; // Σ_{k≤i} |Û_k|, row by row
    let mut relative = 0.0f64; // Σᵢ |Eᵢ| / |gᵢ| (bounds)
    let mut hadamard = 1.0f64;
    for k in 0..m {
        // The last row of largest magnitude in column k (as `Iterator::max_by` picks it).
        let mut p = k;
        for r in k + 1..m {
            if a[p][k].abs().total_cmp(&a[r][k].abs()) != std::cmp::Ordering::Greater {
                p = r;
            }
        }
        if !(a[p][k] != 0.0) {
            return None;
        }
        if p != k {
            a.swap(p, k);
            perm.swap(p, k);
            det_sign = -det_sign;
        }
        det *= a[k][k];
        let pivot = a[k];
        for row in a[k + 1..m].iter_mut() {
            let f = row[k] / pivot[k];
            row[k] = f; // L̂, below the diagonal
            for c in k + 1..m {
                row[c] -= f * pivot[c];
            }
        }
        upper_rows += dot(&pivot[k..m], &pivot[k..m]).sqrt();
        let g = norms[perm[k]];
        relative += gamma(m) * upper_rows / g;
        hadamard *= g;
    }
    // exp(t) − 1 ≤ t(1 + t) for t ≤ 1; 1.01 for the bound's own rounding.
    if !(relative <= 1.0) {
        return None;
    }
    let bound = 1.01 * hadamard * relative * (1.0 + relative);
    if !(det.abs() * (1.0 - gamma(m)) > bound) {
        return None;
    }
    let sigma: i64 = if det * det_sign > 0.0 { 1 } else { -1 };
    // W_F a = b from the factors: L̂ y = Pb, Û a = y.
    #[inline(always)]
    fn lu_solve(a: &[[f64; 8]; 8], perm: &[usize; 8], m: usize, b: &[f64; 8]) -> [f64; 8] {
        let mut y = [0.0f64; 8];
        for r in 0..m {
            y[r] = b[perm[r]];
            for c in 0..r {
                y[r] -= a[r][c] * y[c];
            }
        }
        let mut x = [0.0f64; 8];
        for r in (0..m).rev() {
            let mut v = y[r];
            for c in r + 1..m {
                v -= a[r][c] * x[c];
            }
            x[r] = v / a[r][r];
        }
        x
    }
    let solve = |b: &[f64; 8]| lu_solve(&a, &perm, m, b);
    let mut sol = solve(&[1.0; 8]);
    // A face far from thin (its determinant a fair share of its rows' lengths' product: the
    // condition number at most m^(m/2)/that) has its plane from the first solution.
    let own: f64 = rows
        .iter()
        .map(|r| dot(&r[1..d], &r[1..d]).sqrt())
        .product();
    if !(det.abs() >= THICK * own) {
        // One step of refinement on the residual 1 − W_F a in double-double (exact products):
        // on a thin face the first solution's plane is tilted, and the bound lost with it.
        // The rows side by side, one lane each (the same operations per row as one at a time,
        // so the same bits; eight lanes the compiler vectorises).
        let mut column = [[0.0f64; 8]; 8];
        for (r, wr) in w.iter().enumerate().take(m) {
            for c in 0..m {
                column[c][r] = wr[c];
            }
        }
        let (mut hi, mut lo) = ([1.0f64; 8], [0.0f64; 8]);
        for (ai, wc) in sol[..m].iter().zip(&column) {
            for r in 0..8 {
                let t = Dd::new(*ai).mul_with::<FMA>(Dd::new(wc[r])).neg();
                let acc = Dd {
                    hi: hi[r],
                    lo: lo[r],
                }
                .add(t);
                (hi[r], lo[r]) = (acc.hi, acc.lo);
            }
        }
        let mut residual = [0.0f64; 8];
        for r in 0..m {
            residual[r] = hi[r] + lo[r];
        }
        let step = solve(&residual);
        // The step is about the first solution's error, and the refined one's about its square
        // (relative): a face too thin for 1e-12 is left to double-double.
        if !(norm(&step[..m]) <= 1e-6 * norm(&sol[..m])) {
            return None;
        }
        for (x, dx) in sol.iter_mut().zip(&step) {
            *x += dx;
        }
    }
    let na = norm(&sol[..m]);
    let mut least = f64::INFINITY;
    for row in rows {
        let w = &row[1..d];
        let (mut s, mut abs) = (0.0, 0.0);
        for (ai, wi) in sol[..m].iter().zip(w) {
            s += ai * wi;
            abs += (ai * wi).abs();
        }
        if !((s - 1.0).abs() <= 1e-12) {
            return None;
        }
        least = least.min(s - 1.01 * gamma(m + 1) * abs);
    }
    // The norm's, the subtraction's and the division's own rounding, taken off too.
    let v = least * (1.0 - 4.0 * U) / (na * (1.0 + gamma(m + 4)));
    (v > 0.0).then_some((sigma, v))
}

/// `row` (at most 8 numbers) times the power of two that brings its largest magnitude near 1:
/// exact but for entries that fall below the subnormals (below any bound the checker asks,
/// relative to the row), so a determinant of such rows has the sign, and its plane the
/// direction, of the rows as given, and no product of their lengths overflows or underflows.
pub(crate) fn pow2_scaled(row: &[f64]) -> [f64; 8] {
    let mut out = [0.0; 8];
    out[..row.len()].copy_from_slice(row);
    let m = row.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m > 0.0 && m.is_finite() {
        // In two steps, each factor a float: 2^-e alone overflows for subnormal rows.
        let e = -(m.log2().floor() as i32);
        for f in [2f64.powi(e / 2), 2f64.powi(e - e / 2)] {
            out.iter_mut().for_each(|v| *v *= f);
        }
    }
    out
}

/// The value of a plane of normal `n` (any length, turned towards x) for `measure`.
fn value(measure: Measure, d: usize, n: &[f64], x: &[f64]) -> f64 {
    match measure {
        Measure::Cone => dot(&n[..d], x) / norm(&n[..d]),
        Measure::Grasp => n[0] / norm(&n[1..d]),
    }
}

/// Checks `proof` (either kind) for the cone of `generators` (K vectors of R^d) about `x`:
/// the bounds it gives, or why it fails.
pub fn check(generators: &[f64], d: usize, x: &[f64], proof: &Proof) -> Result<Checked, String> {
    if !(2..=8).contains(&d) || x.len() != d || !generators.len().is_multiple_of(d) {
        return Err(format!("dimension {d}: the generators or x do not fit"));
    }
    let measure = match proof {
        Proof::Inner(p) => p.measure,
        Proof::Nearest(p) => p.measure,
    };
    if measure == Measure::Grasp {
        // Generators (1, wᵢ) and x = e₀: the lift the grasp's radius is read in.
        let lifted = generators.chunks_exact(d).all(|g| g[0] == 1.0);
        let origin = x[0] == 1.0 && x[1..].iter().all(|&v| v == 0.0);
        if !(lifted && origin) {
            return Err("a grasp's proof is checked on the generators (1, w) about e0".into());
        }
    }
    match proof {
        Proof::Inner(p) => check_inner(generators, d, x, p),
        Proof::Nearest(p) => check_nearest(generators, d, x, p),
    }
}

/// Checks an inner hull's proof for the cone of `generators` (K vectors of R^d, `d` numbers each) about
/// `x`: the three conditions of the module's text, the claimed bound from below no more
/// than the faces give, and the plane `upper` supporting every generator. Returns the bounds
/// the proof gives, or why it fails.
fn check_inner(
    generators: &[f64],
    d: usize,
    x: &[f64],
    proof: &InnerProof,
) -> Result<Checked, String> {
    let k = generators.len() / d;
    let g = |i: u32| &generators[i as usize * d..(i as usize + 1) * d];
    // `what` names the set in a message (made only for one).
    let indices_ok = |set: &[u32], len: usize, what: &dyn Fn() -> String| -> Result<(), String> {
        if set.len() != len {
            return Err(format!("{} has {} indices, not {len}", what(), set.len()));
        }
        for (a, &i) in set.iter().enumerate() {
            if i as usize >= k {
                return Err(format!("{}: index {i} beyond {k} generators", what()));
            }
            if set[..a].contains(&i) {
                return Err(format!("{}: index {i} twice", what()));
            }
        }
        Ok(())
    };
    // The plane from above: d − 1 independent generators, every generator on its side.
    indices_ok(&proof.upper, d - 1, &|| "upper".into())?;
    let upper_rows: Vec<[f64; 8]> = proof.upper.iter().map(|&i| pow2_scaled(g(i))).collect();
    let rows: Vec<&[f64]> = upper_rows.iter().map(|r| &r[..d]).collect();
    let n = cross(d, &rows);
    let scale: f64 = rows.iter().map(|r| norm(r)).product();
    let nn = norm(&n[..d]);
    if !(nn > SIGN * scale) {
        return Err("upper: its generators do not span a plane".into());
    }
    // Its side: the one every generator is on (either order of its indices will do).
    let beyond =
        |n: &[f64; 8]| (0..k as u32).find(|&i| dot(&n[..d], g(i)) < -EPS * nn * norm(g(i)));
    let n = match beyond(&n) {
        None => n,
        Some(i) => {
            let m = n.map(|v| -v);
            if beyond(&m).is_some() {
                return Err(format!(
                    "upper: generator {i} lies beyond its plane, and others on its side"
                ));
            }
            m
        }
    };
    let upper = value(proof.measure, d, &n, x);
    // No face: no claim beyond x being in the cone (the answer's witness says so).
    if proof.faces.is_empty() {
        if proof.lower > 0.0 {
            return Err(format!("lower {} without a face", proof.lower));
        }
        let holds = proof
            .holds
            .as_ref()
            .ok_or("no face and no witness that x is held")?;
        let (p, total) = combine(generators, d, holds)?;
        let miss: Vec<f64> = p.iter().zip(x).map(|(a, b)| a - b).collect();
        if norm(&miss) > EPS * total.max(norm(x)) {
            return Err(format!("the witness misses x by {}", norm(&miss)));
        }
        return Ok(Checked { lower: 0.0, upper });
    }
    // The lines: each generator's opposite in the cone (its witness), so that their span L
    // lies in it; the rest is checked in L's complement (the lines join every face).
    let l = proof.lines.len();
    if l + 1 > d || (l + 1 == d && proof.faces.len() != 1) {
        return Err(format!(
            "{l} lines in R^{d} (d − 1 lines: one face, the empty one)"
        ));
    }
    let mut span: Vec<Vec<f64>> = Vec::new();
    for (t, line) in proof.lines.iter().enumerate() {
        indices_ok(&[line.generator], 1, &|| format!("line {t}"))?;
        if line.generators.len() != line.weights.len() {
            return Err(format!(
                "line {t}: its witness's indices and weights do not pair"
            ));
        }
        let gl = g(line.generator);
        let mut r: Vec<f64> = gl.to_vec();
        let mut total = norm(gl);
        for (&i, &w) in line.generators.iter().zip(&line.weights) {
            if i as usize >= k || !(w >= 0.0 && w.is_finite()) {
                return Err(format!(
                    "line {t}: generator {i} or weight {w} out of place"
                ));
            }
            total += w * norm(g(i));
            for (ra, ga) in r.iter_mut().zip(g(i)) {
                *ra += w * ga;
            }
        }
        if norm(&r) > EPS * total {
            return Err(format!(
                "line {t}: the witness misses the opposite of generator {}",
                line.generator
            ));
        }
        // Gram–Schmidt, twice: an orthonormal basis of L.
        let mut q = gl.to_vec();
        for _ in 0..2 {
            for b in &span {
                let c = dot(&q, b);
                q.iter_mut().zip(b).for_each(|(qa, ba)| *qa -= c * ba);
            }
        }
        let nq = norm(&q);
        if !(nq > 1e-8 * norm(gl)) {
            return Err(format!("line {t}: not independent of the lines before it"));
        }
        span.push(q.iter().map(|v| v / nq).collect());
    }
    let line_rows: Vec<&[f64]> = proof.lines.iter().map(|line| g(line.generator)).collect();
    // The faces: a closed cycle turning one way around x, in a pointed cone.
    if proof.interior.len() != d {
        return Err(format!(
            "interior has {} numbers, not {d}",
            proof.interior.len()
        ));
    }
    let mut pc = proof.interior.clone();
    for b in &span {
        let c = dot(&pc, b);
        pc.iter_mut().zip(b).for_each(|(pa, ba)| *pa -= c * ba);
    }
    let c = &pc;
    let nc = norm(c);
    if !(dot(c, x) > SIGN * nc * norm(x)) {
        return Err("interior: not positive on x".into());
    }
    // Each ridge by its sorted indices, met by its faces with signs that must cancel. Where
    // a ridge's d − 2 − l indices fit in 63 bits (every proof but the largest), each meeting
    // is one u64, the ridge's indices and then the sign's bit, and the meetings are sorted:
    // a ridge's run holds as many of each sign. (A hash table of the ridges, new at every
    // check, missed the cache at almost every meeting.) Else a table of the sums of the
    // signs, a ridge one u128 where every index fits in 16 bits.
    let ridge_len = (d - 2).saturating_sub(l);
    let bits = 63 / ridge_len.max(1);
    let sorted_meetings = k as u64 <= 1 << bits;
    let mut meetings: Vec<u64> = Vec::with_capacity(if sorted_meetings {
        proof.faces.len() * (ridge_len + 1)
    } else {
        0
    });
    let meeting = |r: &[u32; 8], sign: i64| {
        let key = r[..ridge_len]
            .iter()
            .enumerate()
            .fold(0u64, |key, (a, &i)| key | u64::from(i) << (bits * a));
        key << 1 | u64::from(sign < 0)
    };
    let narrow = k < u16::MAX as usize;
    let size = if sorted_meetings {
        0
    } else {
        proof.faces.len() * d / 2
    };
    let (wide_size, narrow_size) = if narrow { (0, size) } else { (size, 0) };
    let mut ridges: HashMap<[u32; 8], i64, BuildHasherDefault<SetHasher>> =
        HashMap::with_capacity_and_hasher(wide_size, Default::default());
    let mut narrow_ridges: HashMap<u128, i64, BuildHasherDefault<SetHasher>> =
        HashMap::with_capacity_and_hasher(narrow_size, Default::default());
    let pack = |r: &[u32; 8]| {
        r.iter()
            .enumerate()
            .fold(0u128, |key, (a, &i)| key | u128::from(i as u16) << (16 * a))
    };
    let norms: Vec<f64> = (0..k as u32).map(|i| norm(g(i))).collect();
    let mut positive = vec![false; k];
    let mut rows: Vec<&[f64]> = Vec::with_capacity(d);
    let mut lower = f64::INFINITY;
    for (t, face) in proof.faces.iter().enumerate() {
        indices_ok(face, d - 1 - l, &|| format!("face {t}"))?;
        for &i in face {
            // Each generator once, however many faces hold it.
            if !positive[i as usize] {
                if !(dot(c, g(i)) > SIGN * nc * norms[i as usize]) {
                    return Err(format!("interior: not positive on generator {i}"));
                }
                positive[i as usize] = true;
            }
        }
        rows.clear();
        rows.extend(face.iter().map(|&i| g(i)));
        rows.extend_from_slice(&line_rows);
        // The face turned to face x (its sign in the cycle) and its value: in float64 where
        // float64 is certain of both (a grasp's face that is not thin), else in double-double.
        let fast = if proof.measure == Measure::Grasp && l == 0 {
            {
                let mut lengths = [0.0; 8];
                for (len, &i) in lengths.iter_mut().zip(face) {
                    *len = norms[i as usize];
                }
                grasp_face_f64(d, &rows, &lengths)
            }
        } else {
            None
        };
        let sigma: i64 = match fast {
            Some((sigma, v)) => {
                lower = lower.min(v);
                sigma
            }
            None => {
                // Each row brought near 1 by a power of two: the same sign and plane, and no
                // product of lengths that overflows or underflows (generators of 1e±150).
                let scaled: Vec<[f64; 8]> = rows.iter().map(|r| pow2_scaled(r)).collect();
                let scaled: Vec<&[f64]> = scaled.iter().map(|r| &r[..d]).collect();
                let xs = pow2_scaled(x);
                let n = cross(d, &scaled);
                let o = dot(&n[..d], &xs[..d]);
                let bound: f64 = scaled.iter().map(|r| norm(r)).product::<f64>() * norm(&xs[..d]);
                if !(o.abs() > SIGN * bound) {
                    return Err(format!("face {t}: x lies on its plane"));
                }
                let sigma: i64 = if o > 0.0 { 1 } else { -1 };
                let n = n.map(|v| v * sigma as f64);
                lower = lower.min(value(proof.measure, d, &n, x));
                sigma
            }
        };
        // Its boundary: the ridge without position j, with sign (−1)^j, sorted. The face is
        // sorted once (each swap of the sort flips its sign); the ridges of the sorted face,
        // each without its j-th index, are then sorted already.
        let mut sorted = [u32::MAX; 8];
        sorted[..face.len()].copy_from_slice(face);
        let mut sign = sigma;
        for a in 1..face.len() {
            let mut b = a;
            while b > 0 && sorted[b - 1] > sorted[b] {
                sorted.swap(b - 1, b);
                sign = -sign;
                b -= 1;
            }
        }
        for j in 0..face.len() {
            let mut ridge = [u32::MAX; 8];
            ridge[..j].copy_from_slice(&sorted[..j]);
            ridge[j..face.len() - 1].copy_from_slice(&sorted[j + 1..face.len()]);
            let sign = if j % 2 == 0 { sign } else { -sign };
            if sorted_meetings {
                meetings.push(meeting(&ridge, sign));
            } else if narrow {
                *narrow_ridges.entry(pack(&ridge)).or_insert(0) += sign;
            } else {
                *ridges.entry(ridge).or_insert(0) += sign;
            }
        }
    }
    meetings.sort_unstable();
    let uneven = meetings
        .chunk_by(|a, b| a >> 1 == b >> 1)
        .find(|run| 2 * run.iter().filter(|&&m| m & 1 == 0).count() != run.len())
        .map(|run| {
            let key = run[0] >> 1;
            std::array::from_fn(|a| {
                if a < ridge_len {
                    (key >> (bits * a) & ((1 << bits) - 1)) as u32
                } else {
                    u32::MAX
                }
            })
        })
        .or_else(|| ridges.iter().find(|(_, &s)| s != 0).map(|(r, _)| *r))
        .or_else(|| {
            narrow_ridges.iter().find(|(_, &s)| s != 0).map(|(&r, _)| {
                std::array::from_fn(|a| match (r >> (16 * a)) as u16 {
                    u16::MAX => u32::MAX,
                    i => u32::from(i),
                })
            })
        });
    if let Some(ridge) = uneven {
        let len = ridge.iter().take_while(|&&i| i != u32::MAX).count();
        return Err(format!(
            "the faces are not closed: ridge {:?} is met unevenly",
            &ridge[..len]
        ));
    }
    // Rounding: 1e-12 of the scale the bound is read in (x's length; a grasp's largest wrench).
    let scale = match proof.measure {
        Measure::Cone => norm(x),
        Measure::Grasp => (0..k as u32).map(|i| norm(&g(i)[1..])).fold(0.0, f64::max),
    };
    if !(proof.lower <= lower + 1e-12 * lower.abs().max(scale)) {
        return Err(format!(
            "lower {} is more than the faces prove, {lower}",
            proof.lower
        ));
    }
    Ok(Checked { lower, upper })
}

/// Checks a nearest point's proof: non-negative weights, the plane supporting every
/// generator.
fn check_nearest(
    generators: &[f64],
    d: usize,
    x: &[f64],
    proof: &NearestProof,
) -> Result<Checked, String> {
    let k = generators.len() / d;
    if proof.generators.len() != proof.weights.len() {
        return Err("the point's generators and weights do not pair".into());
    }
    if proof.plane.len() != d {
        return Err(format!("plane has {} numbers, not {d}", proof.plane.len()));
    }
    let mut p = vec![0.0; d];
    for (&i, &l) in proof.generators.iter().zip(&proof.weights) {
        if i as usize >= k {
            return Err(format!("index {i} beyond {k} generators"));
        }
        if !(l >= 0.0 && l.is_finite()) {
            return Err(format!(
                "weight {l} of generator {i} is not a non-negative number"
            ));
        }
        for (pa, ga) in p
            .iter_mut()
            .zip(&generators[i as usize * d..(i as usize + 1) * d])
        {
            *pa += l * ga;
        }
    }
    let y = &proof.plane;
    let ny = norm(y);
    if !(ny > 0.0 && ny.is_finite()) {
        return Err("plane: not a direction".into());
    }
    let mut most = f64::NEG_INFINITY;
    for i in 0..k {
        let g = &generators[i * d..(i + 1) * d];
        let v = dot(y, g);
        most = most.max(v);
        if proof.measure == Measure::Cone && v < -EPS * ny * norm(g) {
            return Err(format!("plane: generator {i} lies beyond it"));
        }
    }
    Ok(match proof.measure {
        Measure::Cone => {
            let r: Vec<f64> = x.iter().zip(&p).map(|(a, b)| a - b).collect();
            Checked {
                lower: -norm(&r),
                upper: dot(y, x) / ny,
            }
        }
        Measure::Grasp => {
            if y[0] != 0.0 || !(p[0] > 0.0) {
                return Err("a grasp's plane is (0, u) and its point has weight".into());
            }
            Checked {
                lower: -norm(&p[1..]) / p[0],
                upper: most / norm(&y[1..]),
            }
        }
    })
}

/// Checks an answer's bounds against its proof: the proof passes ([`check`]); the reported
/// `value` (the margin or q1: the bound from above) is the proof's plane within `tol`, or
/// (outside) lies between the proof's bounds; the reported `lower` is no more than the proof
/// gives; and `closed` (`margin_checked`) only where the two agree within `tol`. Values
/// beyond `cap` (the margin's 1000) count as `cap`.
#[allow(clippy::too_many_arguments)] // an answer's fields, as the answer names them
pub fn check_answer(
    generators: &[f64],
    d: usize,
    x: &[f64],
    proof: &Proof,
    value: f64,
    lower: f64,
    closed: bool,
    tol: f64,
    cap: f64,
) -> Result<Checked, String> {
    let mut c = check(generators, d, x, proof)?;
    // A margin beyond the cap is reported as the cap.
    c.upper = c.upper.min(cap);
    c.lower = c.lower.min(cap);
    compare(
        &c,
        matches!(proof, Proof::Inner(_)),
        value,
        lower,
        closed,
        tol,
    )?;
    Ok(c)
}

/// The answer's `value`, `lower` and `closed` against the bounds `c` a proof gave: inside
/// (`inner`) the value is the plane's; outside it lies between the bounds; the reported lower
/// bound is no more than the proof's nor the value; closed only where the proof closes.
pub(crate) fn compare(
    c: &Checked,
    inner: bool,
    value: f64,
    lower: f64,
    closed: bool,
    tol: f64,
) -> Result<(), String> {
    if inner {
        if (value - c.upper).abs() > tol {
            return Err(format!("the value {value} is not the plane's, {}", c.upper));
        }
    } else if value < c.lower - tol || value > c.upper + tol {
        return Err(format!(
            "the value {value} is not within [{}, {}]",
            c.lower, c.upper
        ));
    }
    if lower > c.lower + tol {
        return Err(format!(
            "the bound from below {lower} is more than the proof's, {}",
            c.lower
        ));
    }
    if lower > value + tol {
        return Err(format!(
            "the bound from below {lower} is above the value {value}"
        ));
    }
    if closed && value - c.lower > tol {
        return Err(format!(
            "checked, but the proof leaves [{}, {value}] open",
            c.lower
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform numbers in [−1, 1) from an xorshift generator seeded with `state`.
    fn uniform(mut state: u64) -> impl FnMut() -> f64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    /// `cross` from one elimination agrees with the d determinants it stands for, on random
    /// rows, on rows with a repeated or zero column, and on rank-deficient rows (0).
    #[test]
    fn cross_is_the_cofactor_vector() {
        let mut next = uniform(0x2545_F491_4F6C_DD1D);
        for d in 2..=7 {
            for trial in 0..200 {
                let mut rows = vec![[0.0; 8]; d - 1];
                for r in rows.iter_mut() {
                    for v in r[..d].iter_mut() {
                        *v = next();
                    }
                }
                match trial % 4 {
                    1 => rows.iter_mut().for_each(|r| r[0] = 0.0),
                    2 if d > 2 => rows.iter_mut().for_each(|r| r[d - 1] = r[0]),
                    3 if d > 2 => rows[d - 2] = rows[0].map(|v| 3.0 * v),
                    _ => {}
                }
                let refs: Vec<&[f64]> = rows.iter().map(|r| &r[..d]).collect();
                let n = cross(d, &refs);
                let scale: f64 = rows.iter().map(|r| norm(&r[..d])).product();
                for k in 0..d {
                    let mut m = [[0.0; 8]; 8];
                    for (r, row) in rows.iter().enumerate() {
                        m[r][..d].copy_from_slice(&row[..d]);
                    }
                    m[d - 1][k] = 1.0;
                    let want = det(d, &m);
                    assert!(
                        (n[k] - want).abs() <= 1e-14 * want.abs() + 1e-28 * scale,
                        "d {d} trial {trial} k {k}: {} against {want}",
                        n[k]
                    );
                }
            }
        }
    }

    /// The fused multiply-add build of `cross` gives the portable one's bits (both products
    /// exact), on random rows of every scale and near-duplicate ones.
    #[test]
    fn cross_with_fma_is_cross_without() {
        let mut next = uniform(0x9E37_79B9_7F4A_7C15);
        for d in 2..=7 {
            for trial in 0..300 {
                let scale = 10f64.powi(trial % 13 - 6);
                let mut rows = vec![[0.0; 8]; d - 1];
                for r in rows.iter_mut() {
                    for v in r[..d].iter_mut() {
                        *v = scale * next();
                    }
                }
                if trial % 3 == 1 && d > 2 {
                    rows[d - 2] = rows[0].map(|v| v * (1.0 + 1e-12 * next()));
                }
                let refs: Vec<&[f64]> = rows.iter().map(|r| &r[..d]).collect();
                let plain = cross_with::<false, 0>(d, &refs);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("fma")
                    && std::arch::is_x86_feature_detected!("avx2")
                {
                    // SAFETY: checked just above.
                    let fused = unsafe { cross_fma(d, &refs) };
                    assert_eq!(
                        fused.map(f64::to_bits),
                        plain.map(f64::to_bits),
                        "d {d} trial {trial}"
                    );
                }
                assert_eq!(
                    cross_with::<true, 0>(d, &refs).map(f64::to_bits),
                    plain.map(f64::to_bits)
                );
            }
        }
    }

    /// `cross_f64`'s copies for the hull's dimensions give the bits of its loop for any `d`:
    /// on random rows, on rows of a few small integers (ties for the pivot everywhere),
    /// with zero or repeated rows, and with a NaN.
    #[test]
    fn cross_f64_for_each_dimension_is_the_one_loop_bit_for_bit() {
        let mut next = uniform(0x2545_F491_4F6C_DD1D);
        for d in 1..=8 {
            for trial in 0..3000 {
                let mut rows: Vec<[f64; 8]> = (0..d - 1)
                    .map(|_| {
                        std::array::from_fn(|c| match (trial % 4, c < d) {
                            (_, false) => 0.0,
                            (0, _) => next(),
                            (1, _) => (next() * 2.5).round(),
                            (2, _) => (next() * 1.5).round() * 1e-3,
                            _ => next() * 10f64.powi((next() * 20.0) as i32),
                        })
                    })
                    .collect();
                if trial % 7 == 3 && d > 2 {
                    rows[1] = rows[0];
                }
                if trial % 11 == 5 && d > 1 {
                    rows[0][trial % d] = f64::NAN;
                }
                let refs: Vec<&[f64]> = rows.iter().map(|r| &r[..d]).collect();
                let (a, b) = (cross_f64(d, &refs), cross_f64_in::<0>(d, &refs));
                assert_eq!(
                    a.map(f64::to_bits),
                    b.map(f64::to_bits),
                    "d {d} trial {trial}: {rows:?}"
                );
            }
        }
    }

    /// `grasp_face_f64`'s copy for d = 7 gives the bits of its loop for any `d`, on random,
    /// thin and tied faces (rows of small integers: ties for the pivot); every size decides.
    #[test]
    fn grasp_face_f64_for_d_7_is_the_one_loop_bit_for_bit() {
        #[cfg(target_arch = "x86_64")]
        let fma = std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let fma = cfg!(target_arch = "aarch64");
        let mut next = uniform(0x9E37_79B9_7F4A_7C15);
        let mut decided = 0;
        for d in 2..=8 {
            for trial in 0..4000 {
                let mut rows: Vec<Vec<f64>> = (0..d - 1)
                    .map(|_| {
                        std::iter::once(1.0)
                            .chain((1..d).map(|_| match trial % 3 {
                                0 => next(),
                                1 => (next() * 2.5).round(),
                                _ => 0.3 + 1e-3 * next(),
                            }))
                            .collect()
                    })
                    .collect();
                if trial % 5 == 2 && d > 2 {
                    let gap = 10f64.powi(-((trial / 5) % 16));
                    rows[1] = rows[0].iter().map(|v| v + gap * next()).collect();
                    rows[1][0] = 1.0;
                }
                let refs: Vec<&[f64]> = rows.iter().map(|r| &r[..]).collect();
                let mut lengths = [0.0; 8];
                for (l, r) in lengths.iter_mut().zip(&rows) {
                    *l = norm(r);
                }
                let fast = grasp_face_f64(d, &refs, &lengths);
                let reference = if fma {
                    grasp_face_with::<true, 0>(&refs, &lengths)
                } else {
                    grasp_face_with::<false, 0>(&refs, &lengths)
                };
                decided += usize::from(fast.is_some());
                assert_eq!(
                    fast.map(|(s, v)| (s, v.to_bits())),
                    reference.map(|(s, v)| (s, v.to_bits())),
                    "d {d} trial {trial}: {rows:?}"
                );
            }
        }
        assert!(decided > 10_000, "only {decided} faces decided in float64");
    }

    /// `cross_f64` is `cross` to float64's accuracy on rows far from dependent.
    #[test]
    fn cross_f64_is_cross_in_float64() {
        let mut next = uniform(0x5851_F42D_4C95_7F2D);
        for d in 2..=7 {
            for _ in 0..200 {
                let rows: Vec<[f64; 8]> = (0..d - 1)
                    .map(|_| std::array::from_fn(|c| if c < d { next() } else { 0.0 }))
                    .collect();
                let refs: Vec<&[f64]> = rows.iter().map(|r| &r[..d]).collect();
                let (a, b) = (cross_f64(d, &refs), cross(d, &refs));
                let gap: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
                assert!(norm(&gap) <= 1e-10 * norm(&b), "d {d}: {a:?} {b:?}");
            }
        }
    }

    /// A grasp's face decided in float64 has the turn that double-double gives it and,
    /// within rounding, its distance to 0, never more; a thin face (two points 1e-13 apart or
    /// closer) is left to double-double. The distance lost is at most 1e-12 of it (or of the
    /// largest point). The faces are made around their nearest point to 0
    /// (their centroid `r·u`), so that their plane's distance is `r`, known
    /// (where rounding leaves the plane as made: the two close points not too close).
    #[test]
    fn a_grasp_face_in_float64_agrees_with_double_double_or_declines() {
        let mut next = uniform(0xD1B5_4A32_D192_ED03);
        let (mut fast, mut thin_declined) = (0, 0);
        for d in [3, 4, 7] {
            let m = d - 1;
            for trial in 0..600 {
                let u: Vec<f64> = (0..m).map(|_| next()).collect();
                let u: Vec<f64> = u.iter().map(|v| v / norm(&u)).collect();
                let r = 10f64.powi(-(trial % 5)) * (0.1 + next().abs());
                // Tangent offsets (u's part taken out), one a near-duplicate of another,
                // centred.
                let mut t: Vec<Vec<f64>> =
                    (0..m).map(|_| (0..m).map(|_| next()).collect()).collect();
                let gap = 10f64.powi(-(trial % 16));
                if trial % 16 > 0 && m > 1 {
                    t[1] = t[0].iter().map(|v| v + gap * next()).collect();
                }
                for tj in t.iter_mut() {
                    let c = dot(tj, &u);
                    tj.iter_mut().zip(&u).for_each(|(a, b)| *a -= c * b);
                }
                let mean: Vec<f64> = (0..m)
                    .map(|k| t.iter().map(|tj| tj[k]).sum::<f64>() / m as f64)
                    .collect();
                let rows: Vec<Vec<f64>> = t
                    .iter()
                    .map(|tj| {
                        std::iter::once(1.0)
                            .chain((0..m).map(|k| r * u[k] + tj[k] - mean[k]))
                            .collect()
                    })
                    .collect();
                let refs: Vec<&[f64]> = rows.iter().map(|r| &r[..]).collect();
                let mut lengths = [0.0; 8];
                for (l, r) in lengths.iter_mut().zip(&rows) {
                    *l = norm(r);
                }
                let n = cross(d, &refs);
                let exact = n[0].abs() / norm(&n[1..d]);
                let scale = rows.iter().map(|g| norm(&g[1..])).fold(0.0, f64::max);
                match grasp_face_f64(d, &refs, &lengths) {
                    Some((sigma, v)) => {
                        fast += 1;
                        let turn = if n[0] > 0.0 { 1 } else { -1 };
                        assert_eq!(sigma, turn, "d {d} trial {trial}");
                        // Never beyond a vertex (a point of the face), nor, on a face
                        // whose making rounding cannot tilt, beyond its plane.
                        let vertex = rows.iter().map(|g| norm(&g[1..])).fold(f64::MAX, f64::min);
                        assert!(v <= vertex, "d {d} trial {trial}: {v} > {vertex}");
                        if gap >= 1e-6 {
                            assert!(
                                v <= exact * (1.0 + 1e-12),
                                "d {d} trial {trial}: {v} > {exact}"
                            );
                        }
                        let loss = (exact - v) / exact.max(scale);
                        assert!(loss <= 1e-12, "d {d} trial {trial}: {v} < {exact}");
                    }
                    None => thin_declined += usize::from(m > 1 && gap <= 1e-13),
                }
            }
        }
        assert!(fast > 900, "only {fast} faces decided in float64");
        assert!(
            thin_declined >= 3 * 2 * 37,
            "{thin_declined} thin faces declined"
        );
    }
}
