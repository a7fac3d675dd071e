//! Double description (Motzkin): the extreme rays of the dual cone `{y : y·wᵢ ≥ 0}`, one
//! generator's half-space at a time from a simplicial start, adjacency by the combinatorial
//! test on zero sets kept as bitsets in ray slots.

use super::columns::{gradient, least};
use super::{Ray, Solver, MAX_DIM, ON_TOL};
use crate::general::linalg::{dot, Basis, Vector};
use crate::general::{GenSet, GeneralCase};

impl Solver {
    /// The extreme rays of the dual cone into `self.rays`, by double description (kept
    /// from the last call when the generators are the same).
    ///
    /// During the description the rays live in slots that keep their place from step to
    /// step (a removed ray frees its slot for a new one), so that the bitsets of the rays
    /// orthogonal to each generator (`incidence`) and the rays' columns (`ray_soa`) are
    /// updated only where rays change, not rebuilt at every step. `self.rays` is dense
    /// again at the end.
    pub(super) fn dual_cone(&mut self, case: &GeneralCase<'_>, basis: &[u32]) {
        #[cfg(target_arch = "x86_64")]
        if self.simd && std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked just above).
            unsafe {
                return self.dual_cone_popcnt(case, basis);
            }
        }
        self.dual_cone_body(case, basis)
    }

    /// [`Solver::dual_cone`] compiled with POPCNT: the zero sets' sizes and the bitsets'
    /// counts in one instruction a word instead of a dozen (the same body, the same rays).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn dual_cone_popcnt(&mut self, case: &GeneralCase<'_>, basis: &[u32]) {
        self.dual_cone_body(case, basis)
    }

    #[inline(always)]
    fn dual_cone_body(&mut self, case: &GeneralCase<'_>, basis: &[u32]) {
        let d = case.dim;
        // The same cone as the last one (a scene's needs, one after another): its rays stand.
        if self.rays_dim == d && self.rays_of == case.generators {
            return;
        }
        self.rays_of.clear();
        self.facets_of_rays = false;
        self.rays.clear();
        self.row_gens.clear();
        self.row_of.clear();
        self.row_of.resize(self.unit.len(), u32::MAX);
        self.free.clear();
        self.live = 0;
        self.words = 1;
        self.alive.clear();
        self.alive.push(0);
        self.incidence.clear();
        self.ray_soa.clear();
        self.ray_soa.resize(d * 64, 0.0);
        for &b in basis {
            self.assign_row(b as usize);
        }
        // The simplicial start: ray j is orthogonal to every basis generator but j, on its
        // side: column j of the inverse of the matrix whose rows are the basis (Gaussian
        // elimination with partial pivoting is backward stable, so each unit column is
        // orthogonal to the other rows to rounding, however ill-conditioned); by an
        // orthogonal complement where elimination finds no pivot.
        let rows: [Vector; MAX_DIM] =
            std::array::from_fn(|a| self.unit[basis[a.min(d - 1)] as usize]);
        let inverse = inverse_columns(d, &rows);
        for j in 0..d {
            let mut zero = GenSet::default();
            for (a, &b) in basis.iter().enumerate() {
                if a != j {
                    zero.insert(b as usize);
                }
            }
            // The unit column, kept when it is orthogonal to the other rows within 1e-13.
            let column = inverse.map(|x| x[j]).and_then(|c| {
                let n = dot(&c[..d], &c[..d]).sqrt();
                let u = c.map(|x| x / n);
                let orthogonal =
                    (0..d).all(|a| a == j || dot(&u[..d], &rows[a][..d]).abs() <= 1e-13);
                (n.is_finite() && n > 0.0 && orthogonal).then_some(u)
            });
            let mut v = match column {
                Some(u) => u,
                None => {
                    let mut others = Basis::new(d);
                    for (a, &b) in basis.iter().enumerate() {
                        if a != j {
                            others.push(&self.unit[b as usize], 0.0);
                        }
                    }
                    others.complement()
                }
            };
            if dot(&v[..d], &self.unit[basis[j] as usize][..d]) < 0.0 {
                v = v.map(|x| -x);
            }
            self.place(d, Ray { v, zero });
        }
        self.cut_order(d, basis);
        for idx in 0..self.cut.len() {
            let i = self.cut[idx] as usize;
            self.add_halfspace(d, i);
            if self.live == 0 {
                break; // the dual is {0}: C is all of R^d
            }
        }
        // Dense again, in slot order.
        let mut kept = 0;
        for s in 0..self.rays.len() {
            if self.alive[s / 64] >> (s % 64) & 1 == 1 {
                self.rays[kept] = self.rays[s];
                kept += 1;
            }
        }
        self.rays.truncate(kept);
        self.rays_of.extend_from_slice(case.generators);
        self.rays_dim = d;
    }

    /// Puts `ray` in a free slot (or a new one, the bitsets and columns grown when full):
    /// alive, its column written, its bit set in each of its zero generators' rows.
    pub(super) fn place(&mut self, d: usize, ray: Ray) {
        let s = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                let s = self.rays.len();
                if s == self.words * 64 {
                    self.grow(d);
                }
                self.rays.push(ray);
                s
            }
        };
        self.rays[s] = ray;
        let cap = self.words * 64;
        for a in 0..d {
            self.ray_soa[a * cap + s] = ray.v[a];
        }
        self.alive[s / 64] |= 1 << (s % 64);
        let words = self.words;
        for j in ray.zero.iter() {
            self.incidence[self.row_of[j as usize] as usize * words + s / 64] |= 1 << (s % 64);
        }
        self.live += 1;
    }

    /// Takes ray slot `s` out: dead, its column zero, its bits cleared; the slot free.
    pub(super) fn remove(&mut self, d: usize, s: usize) {
        let cap = self.words * 64;
        for a in 0..d {
            self.ray_soa[a * cap + s] = 0.0;
        }
        self.alive[s / 64] &= !(1 << (s % 64));
        let words = self.words;
        for j in self.rays[s].zero.iter() {
            self.incidence[self.row_of[j as usize] as usize * words + s / 64] &= !(1 << (s % 64));
        }
        self.free.push(s as u32);
        self.live -= 1;
    }

    /// Twice the slots: the incidence rows, the alive bitset and the columns laid out anew.
    #[cold]
    pub(super) fn grow(&mut self, d: usize) {
        let (old, new) = (self.words, 2 * self.words);
        let rows = self.row_gens.len();
        let mut incidence = vec![0u64; rows * new];
        for r in 0..rows {
            incidence[r * new..r * new + old]
                .copy_from_slice(&self.incidence[r * old..(r + 1) * old]);
        }
        self.incidence = incidence;
        self.alive.resize(new, 0);
        let (oc, nc) = (old * 64, new * 64);
        let mut soa = vec![0.0; d * nc];
        for a in 0..d {
            soa[a * nc..a * nc + oc].copy_from_slice(&self.ray_soa[a * oc..(a + 1) * oc]);
        }
        self.ray_soa = soa;
        self.words = new;
    }

    /// The order the double description takes the generators in (`self.cut`): every
    /// distinct one but the basis, the farthest from the cone's axis first (the least
    /// `u·c`, `c` the mean of the unit generators). Extreme generators early make the
    /// intermediate cones close to C sooner, so that most of the rest cut nothing and cost
    /// one sign per ray. Any order gives the same rays.
    pub(super) fn cut_order(&mut self, d: usize, basis: &[u32]) {
        let mut c = [0.0; MAX_DIM];
        for &i in &self.distinct {
            for (ca, ua) in c[..d].iter_mut().zip(&self.unit[i as usize]) {
                *ca += ua;
            }
        }
        self.cut.clear();
        self.cut_key.clear();
        for &i in &self.distinct {
            if !basis.contains(&i) {
                self.cut.push(i);
                self.cut_key.push(dot(&c[..d], &self.unit[i as usize][..d]));
            }
        }
        let key = &self.cut_key;
        let mut order: Vec<u32> = (0..self.cut.len() as u32).collect();
        order
            .sort_unstable_by(|&a, &b| key[a as usize].total_cmp(&key[b as usize]).then(a.cmp(&b)));
        let cut: Vec<u32> = order.iter().map(|&a| self.cut[a as usize]).collect();
        self.cut = cut;
    }

    /// One step of the double description: intersects the dual cone with `u_i·y ≥ 0`.
    /// A kept ray (plus) and a removed one (minus) make a new ray where they are adjacent:
    /// their common zero set spans d−2 dimensions, which the combinatorial test decides
    /// exactly on the zero sets: no third ray's zero set holds it. That test runs on
    /// bitsets, one per generator, of the rays orthogonal to it: the rays holding the common
    /// set are the AND of its generators' bitsets.
    ///
    /// A generator that removes no ray is redundant for this cone and every later one (they
    /// lie inside it), and is left out: the combinatorial test holds for any description
    /// of the cone by inequalities, redundant ones or not, so the zero sets need not list it.
    /// Candidates for a minus ray come from the bitsets of its zero generators: a plus ray
    /// sharing fewer than d−2 of them cannot be adjacent to it.
    #[inline(always)]
    pub(super) fn add_halfspace(&mut self, d: usize, i: usize) {
        let u = self.unit[i];
        let slots = self.rays.len();
        let cap = self.words * 64;
        let span = slots.div_ceil(4) * 4;
        self.signs.resize(cap, 0.0);
        gradient(self.simd, d, &self.ray_soa, cap, span, &u, &mut self.signs);
        // A generator that removes no ray changes nothing (dead slots' signs are 0).
        if least(&self.signs[..span]) >= -ON_TOL {
            return;
        }
        // Words of the bitsets in use, and the minus, plus and zero rays among the live.
        let used = slots.div_ceil(64);
        self.minus.clear();
        self.plus_mask.clear();
        self.plus_mask.resize(used, 0);
        self.zeros.clear();
        for w in 0..used {
            let mut bits = self.alive[w];
            while bits != 0 {
                let r = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let s = self.signs[r];
                if s.abs() <= ON_TOL {
                    self.signs[r] = 0.0;
                    self.zeros.push(r as u32);
                } else if s < 0.0 {
                    self.minus.push(r as u32);
                } else {
                    self.plus_mask[w] |= 1 << (r % 64);
                }
            }
        }
        if self.minus.is_empty() {
            return;
        }
        self.assign_row(i);
        let words = self.words;
        self.born.clear();
        self.counts.clear();
        self.counts.resize(slots, 0);
        let need = (d - 2) as u8;
        for mi in 0..self.minus.len() {
            let b = self.minus[mi] as usize;
            let zm = self.rays[b].zero;
            let zlen = zm.len();
            if zlen + 2 < d {
                continue;
            }
            self.touched.clear();
            if zlen + 1 == d {
                // A simple ray: its neighbours are across its d−1 ridges, the d−2 of its
                // zero generators but one. The rays holding a ridge are the AND of its
                // generators' bitsets (prefix and suffix ANDs give all d−1 at once); b and
                // one other a: they are adjacent (no third ray holds their common set). More:
                // each plus ray among them gets the full test.
                let zs: [u32; MAX_DIM] = {
                    let mut it = zm.iter();
                    std::array::from_fn(|_| it.next().unwrap_or(0))
                };
                let l = zlen;
                let mut fix = std::mem::take(&mut self.fix);
                fix.clear();
                fix.resize(2 * (l + 1) * used, !0);
                let (pre, suf) = fix.split_at_mut((l + 1) * used);
                for q in 0..l {
                    let row = self.row(zs[q], words);
                    for w in 0..used {
                        pre[(q + 1) * used + w] = pre[q * used + w] & row[w];
                    }
                }
                for q in (0..l).rev() {
                    let row = self.row(zs[q], words);
                    for w in 0..used {
                        suf[q * used + w] = suf[(q + 1) * used + w] & row[w];
                    }
                }
                for q in 0..l {
                    let mut total = 0;
                    for w in 0..used {
                        let t = pre[q * used + w] & suf[(q + 1) * used + w];
                        total += t.count_ones();
                        let mut bits = t & self.plus_mask[w];
                        while bits != 0 {
                            let a = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            if !self.touched.contains(&(a as u32)) {
                                self.touched.push(a as u32);
                            }
                        }
                    }
                    if total == 2 && self.touched.len() == 1 {
                        // the one plus ray found, adjacent: proven by the count.
                        let a = self.touched.pop().unwrap() as usize;
                        self.push_pair(d, i, a, b);
                    } else {
                        for t in 0..self.touched.len() {
                            let a = self.touched[t] as usize;
                            self.try_pair(d, i, used, a, b);
                        }
                        self.touched.clear();
                    }
                }
                self.fix = fix;
            } else if zlen <= 2 * d {
                // Plus rays by how many of b's zero generators they share.
                for j in zm.iter() {
                    let r0 = self.row_of[j as usize] as usize * words;
                    let row = &self.incidence[r0..r0 + used];
                    for (w, (&bits, &pm)) in row.iter().zip(&self.plus_mask).enumerate() {
                        let mut bits = bits & pm;
                        while bits != 0 {
                            let r = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            if self.counts[r] == 0 {
                                self.touched.push(r as u32);
                            }
                            self.counts[r] += 1;
                        }
                    }
                }
                for t in 0..self.touched.len() {
                    let a = self.touched[t] as usize;
                    let c = std::mem::take(&mut self.counts[a]);
                    if c >= need {
                        self.try_pair(d, i, used, a, b);
                    }
                }
            } else {
                for w in 0..used {
                    let mut bits = self.plus_mask[w];
                    while bits != 0 {
                        let a = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if self.rays[a].zero.and(&zm).len() + 2 >= d {
                            self.try_pair(d, i, used, a, b);
                        }
                    }
                }
            }
        }
        // The minus rays out, the zero ones now on generator i too, the new rays in.
        for mi in 0..self.minus.len() {
            let b = self.minus[mi] as usize;
            self.remove(d, b);
        }
        let row_i = self.row_of[i] as usize * self.words;
        for zi in 0..self.zeros.len() {
            let r = self.zeros[zi] as usize;
            self.rays[r].zero.insert(i);
            self.incidence[row_i + r / 64] |= 1 << (r % 64);
        }
        let born = std::mem::take(&mut self.born);
        for &ray in &born {
            self.place(d, ray);
        }
        self.born = born;
    }

    /// The new ray of plus ray `a` and minus ray `b` on generator `i`'s plane, into
    /// `self.born`, when they are adjacent (`used`: the words of the bitsets in use).
    #[inline(always)]
    pub(super) fn try_pair(&mut self, d: usize, i: usize, used: usize, a: usize, b: usize) {
        let (p, m) = (&self.rays[a], &self.rays[b]);
        let common = p.zero.and(&m.zero);
        if common.len() + 2 < d || !self.only_pair_holds(&common, used, a, b) {
            return;
        }
        self.push_pair(d, i, a, b);
    }

    /// The new ray of adjacent rays `a` (plus) and `b` (minus) into `self.born`.
    #[inline]
    pub(super) fn push_pair(&mut self, d: usize, i: usize, a: usize, b: usize) {
        let (p, m) = (&self.rays[a], &self.rays[b]);
        let common = p.zero.and(&m.zero);
        let (sp, sm) = (self.signs[a], self.signs[b]);
        let v: Vector = std::array::from_fn(|k| sp * m.v[k] - sm * p.v[k]);
        let n = dot(&v[..d], &v[..d]).sqrt();
        if n == 0.0 || !n.is_finite() {
            return;
        }
        let mut zero = common;
        zero.insert(i);
        self.born.push(Ray {
            v: v.map(|x| x / n),
            zero,
        });
    }

    /// Generator `j`'s bitset of the ray slots orthogonal to it (`j` in some zero set;
    /// `words` the rows' stride).
    #[inline]
    pub(super) fn row(&self, j: u32, words: usize) -> &[u64] {
        let r = self.row_of[j as usize] as usize * words;
        &self.incidence[r..r + words]
    }

    /// Gives generator `i` a row of the incidence, empty (it enters zero sets from now on).
    pub(super) fn assign_row(&mut self, i: usize) {
        if self.row_of[i] == u32::MAX {
            self.row_of[i] = self.row_gens.len() as u32;
            self.row_gens.push(i as u32);
            self.incidence.resize(self.row_gens.len() * self.words, 0);
        }
    }

    /// Whether rays `a` and `b` are the only ones whose zero sets hold `common` (`used`:
    /// the words of the bitsets in use).
    #[inline(always)]
    pub(super) fn only_pair_holds(&self, common: &GenSet, used: usize, a: usize, b: usize) -> bool {
        let mut gens = common.iter();
        let Some(first) = gens.next() else {
            return self.live <= 2;
        };
        let mut acc = self.and_words.borrow_mut();
        acc.clear();
        acc.extend_from_slice(&self.row(first, self.words)[..used]);
        for j in gens {
            let row = &self.row(j, self.words)[..used];
            for (x, y) in acc.iter_mut().zip(row) {
                *x &= y;
            }
        }
        acc[a / 64] &= !(1 << (a % 64));
        acc[b / 64] &= !(1 << (b % 64));
        acc.iter().all(|&w| w == 0)
    }
}

/// The columns of the inverse of the d×d matrix whose rows are `rows[..d]`, by Gaussian
/// elimination with partial pivoting; `None` when a pivot is zero.
fn inverse_columns(d: usize, rows: &[Vector; MAX_DIM]) -> Option<[Vector; MAX_DIM]> {
    // [M | I] reduced to [I | M⁻¹], row by row.
    let mut m = *rows;
    let mut x = [[0.0; MAX_DIM]; MAX_DIM];
    for (a, xa) in x[..d].iter_mut().enumerate() {
        xa[a] = 1.0;
    }
    for c in 0..d {
        let p = (c..d).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[p][c] == 0.0 {
            return None;
        }
        m.swap(c, p);
        x.swap(c, p);
        let inv = 1.0 / m[c][c];
        for a in 0..d {
            if a == c {
                continue;
            }
            let f = m[a][c] * inv;
            if f == 0.0 {
                continue;
            }
            let (mc, xc) = (m[c], x[c]);
            for k in 0..d {
                m[a][k] -= f * mc[k];
                x[a][k] -= f * xc[k];
            }
        }
    }
    // Row a of x over m[a][a] is row a of M⁻¹; its columns, one a vector.
    let mut cols = [[0.0; MAX_DIM]; MAX_DIM];
    for a in 0..d {
        let inv = 1.0 / m[a][a];
        for j in 0..d {
            cols[j][a] = x[a][j] * inv;
        }
    }
    Some(cols)
}
