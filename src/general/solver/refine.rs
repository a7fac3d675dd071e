//! From the dual cone's rays to checked facets: one index per direction, the rank and a
//! basis, whether C is pointed or all of R^d, each ray re-derived from the generators on
//! it and checked, planes found twice merged, the lineality space, and the facet set
//! proven complete.

use super::columns::gradient;
use super::{
    FoundFacet, Solver, EPS, FACET_ON, MAX_DIM, ON_TOL, RANK_TOL, SAME_DIRECTION, SAME_PLANE,
};
use crate::general::complete;
use crate::general::linalg::{dot, pivoted, Basis, Vector};
use crate::general::{GenSet, GeneralCase};

/// How many generators [`Solver::pointed`] brings onto its vector's side before it leaves
/// the question to [`Solver::fills_space`].
const POINTED_STEPS: usize = 8;

/// The direction [`Solver::dedup`] sorts along: of length 0.999 (below 1, with room for
/// rounding) and oblique to every axis, as generators often share a coordinate (a lifted
/// grasp's first, where its wrenches have one length; a pyramid's height).
pub(super) const ALONG: [f64; MAX_DIM] = [
    0.158341, 0.513997, -0.230309, -0.333681, 0.497747, 0.447353, -0.310604,
];

impl Solver {
    /// For the facet search: the unit generators one array each (`unit`), and one index per
    /// direction in `distinct` (the lowest index of those within [`SAME_DIRECTION`] of it),
    /// found by sorting on a projection: O(K log K), not O(K²). Once a case.
    pub(super) fn dedup(&mut self, d: usize) {
        if self.deduped {
            return;
        }
        self.deduped = true;
        let k = self.norms.len();
        let kp = self.cols_stride;
        let cols = &self.cols;
        // Row by row from the columns, one column at a time (each read in order).
        self.unit.clear();
        self.unit.resize(k, [0.0; MAX_DIM]);
        for a in 0..d {
            for (u, &c) in self.unit.iter_mut().zip(&cols[a * kp..a * kp + k]) {
                u[a] = c;
            }
        }
        // One index per direction: sorted by the projection on ALONG (total order, then
        // index), a generator is left out when a kept lower index lies within
        // SAME_DIRECTION of it (Euclidean, unit vectors: their projections then lie within
        // SAME_DIRECTION too, as |ALONG| < 1).
        // The key: the projection's bits in total order, its lowest 8 bits replaced by the
        // index (K ≤ 256), one u64 to sort. Keys that tie in the rest differ by far less
        // than SAME_DIRECTION, so their order among themselves does not matter below.
        self.keyed.clear();
        self.along.clear();
        for i in 0..k {
            let a = dot(&self.unit[i][..d], &ALONG[..d]);
            self.along.push(a);
            if self.norms[i] > 0.0 {
                let b = a.to_bits();
                let ordered = if b >> 63 == 1 { !b } else { b | 1 << 63 };
                self.keyed.push((ordered & !0xff) | i as u64);
            }
        }
        self.keyed.sort_unstable();
        let keyed = &self.keyed;
        let along = &self.along;
        let idx = |&key: &u64| (key & 0xff) as u32;
        // Most often no two projections lie within SAME_DIRECTION: the sorted ones then rise
        // by more than that from each to the next, every pair of generators lies farther
        // apart than their projections do, and every nonzero generator is kept, with no
        // comparison of neighbours (a fall, a NaN or a near tie sends it the long way).
        let apart = keyed
            .windows(2)
            .all(|w| along[idx(&w[1]) as usize] - along[idx(&w[0]) as usize] > SAME_DIRECTION);
        if apart {
            self.twin.clear();
            self.twin
                .extend(self.norms.iter().map(|&n| n <= 0.0 || n.is_nan()));
            self.distinct.clear();
            self.distinct
                .extend((0..k as u32).filter(|&i| self.norms[i as usize] > 0.0));
        } else {
            self.twins_by_neighbours(d, k);
        }
        let nd = self.distinct.len();
        self.twins = nd < k;
        if !self.twins {
            return; // every generator distinct: positions stay the indices
        }
        self.pos_of.clear();
        self.pos_of.resize(k, u32::MAX);
        for (t, &i) in self.distinct.iter().enumerate() {
            self.pos_of[i as usize] = t as u32;
        }
        self.stride = nd.div_ceil(4) * 4;
        self.soa.clear();
        self.soa.resize(d * self.stride, 0.0);
        for (t, &i) in self.distinct.iter().enumerate() {
            for a in 0..d {
                self.soa[a * self.stride + t] = self.unit[i as usize][a];
            }
        }
    }

    /// [`Solver::dedup`]'s `twin` and `distinct` where some sorted projections lie within
    /// SAME_DIRECTION of each other: each generator compared with its neighbours along the
    /// sorted keys, as far as their projections lie that close.
    fn twins_by_neighbours(&mut self, d: usize, k: usize) {
        let keyed = &self.keyed;
        let along = &self.along;
        let idx = |&key: &u64| (key & 0xff) as u32;
        // Where each generator sits in the sorted keys.
        self.key_at.clear();
        self.key_at.resize(k, u32::MAX);
        for (s, key) in keyed.iter().enumerate() {
            self.key_at[idx(key) as usize] = s as u32;
        }
        self.twin.clear();
        self.twin.resize(k, true);
        let unit = &self.unit;
        // In index order, so that a generator is compared with the kept ones before it
        // (every generator ends within SAME_DIRECTION of a kept one: no chains).
        for i in 0..k as u32 {
            let s = self.key_at[i as usize];
            if s == u32::MAX {
                continue; // zero
            }
            let s = s as usize;
            let u = &unit[i as usize];
            let twin = &self.twin;
            let near = |j: u32| {
                j < i && !twin[j as usize] && {
                    let w = &unit[j as usize];
                    (0..d).map(|a| (w[a] - u[a]) * (w[a] - u[a])).sum::<f64>()
                        <= SAME_DIRECTION * SAME_DIRECTION
                }
            };
            let before = keyed[..s]
                .iter()
                .rev()
                .map(idx)
                .take_while(|&j| along[i as usize] - along[j as usize] <= SAME_DIRECTION)
                .any(near);
            let after = keyed[s + 1..]
                .iter()
                .map(idx)
                .take_while(|&j| along[j as usize] - along[i as usize] <= SAME_DIRECTION)
                .any(near);
            self.twin[i as usize] = before || after;
        }
        self.distinct.clear();
        self.distinct
            .extend((0..k as u32).filter(|&i| !self.twin[i as usize]));
    }

    /// The rank of the generators and d (or fewer) independent ones, pivoted: as
    /// [`pivoted`] on the distinct unit generators, with each one's part outside the basis
    /// kept and updated by one projection a step (modified Gram–Schmidt: O(K·d) a step, not
    /// O(K·d·rank)); the basis itself is grown by [`Basis::push`] as there.
    pub(super) fn pivoted_basis(&mut self, d: usize) -> (usize, [u32; MAX_DIM]) {
        let mut picked = [0u32; MAX_DIM];
        let mut basis = Basis::new(d);
        self.piv.clear();
        self.piv
            .extend(self.distinct.iter().map(|&i| self.unit[i as usize]));
        while basis.len() < d {
            let mut best = (RANK_TOL, None);
            for (t, r) in self.piv.iter().enumerate() {
                let n = dot(&r[..d], &r[..d]).sqrt();
                if n > best.0 {
                    best = (n, Some(t));
                }
            }
            let Some(t) = best.1 else { break };
            let i = self.distinct[t];
            picked[basis.len()] = i;
            basis.push(&self.unit[i as usize], 0.0);
            let q = *basis.get(basis.len() - 1);
            for r in self.piv.iter_mut() {
                let c = dot(&r[..d], &q[..d]);
                for (ra, qa) in r[..d].iter_mut().zip(&q) {
                    *ra -= c * qa;
                }
            }
        }
        (basis.len(), picked)
    }

    /// Whether every distinct generator is clearly on the positive side of one vector `c`
    /// (`u·c > 1e-9·|c|`, far above rounding): then C lies in the half-space `c·y > 0` and
    /// is not all of R^d, which a few passes over the generators prove (the common case)
    /// instead of [`Solver::fills_space`]'s d solves. `c` starts as the generators' mean; while
    /// some generator is not clearly on its side, the one farthest behind is brought onto it
    /// (`c += (|c|/4 − u·c) u`, a relaxation step as the perceptron's), at most
    /// [`POINTED_STEPS`] times (the mean alone left a third of random pointed cones in R⁶
    /// of 32 generators to the solves).
    pub(super) fn pointed(&mut self, d: usize) -> bool {
        let mut c = [0.0; MAX_DIM];
        for &i in &self.distinct {
            for (ca, ua) in c[..d].iter_mut().zip(&self.unit[i as usize]) {
                *ca += ua;
            }
        }
        // Each pass's `u·c` over the distinct generators' columns at once (position t is
        // `distinct[t]`), summed as `dot` sums.
        let mut dots = std::mem::take(&mut self.vals);
        let (soa, stride) = self.positions();
        let len = self.distinct.len();
        dots.resize(stride.max(len), 0.0);
        let mut pointed = false;
        for _ in 0..=POINTED_STEPS {
            let length = dot(&c[..d], &c[..d]).sqrt();
            let floor = 1e-9 * length;
            if !(floor > 0.0 && length.is_finite()) {
                break;
            }
            gradient(self.simd, d, soa, stride, len, &c, &mut dots);
            let mut behind = (floor, None);
            for (t, &uc) in dots[..len].iter().enumerate() {
                if uc <= behind.0 || uc.is_nan() {
                    behind = (uc, Some(t));
                }
            }
            let (uc, Some(t)) = behind else {
                pointed = true; // every one beyond the floor
                break;
            };
            let step = 0.25 * length - uc;
            for (ca, ua) in c[..d].iter_mut().zip(&self.unit[self.distinct[t] as usize]) {
                *ca += step * ua;
            }
        }
        self.vals = dots;
        pointed
    }

    /// Whether C is all of R^d, given d independent generators `basis`: exactly when the
    /// opposite of each is in C (then C holds their span). d NNLS solves, each checked as a
    /// witness, instead of a double description that would end with no ray.
    pub(super) fn fills_space(&mut self, d: usize, basis: &[u32]) -> bool {
        basis.iter().all(|&b| {
            let target = self.unit[b as usize].map(|v| -v);
            let nn = self.nnls(d, &target, &[]);
            let total: f64 = nn.weights[..nn.len].iter().sum();
            nn.dist <= EPS * total.max(1.0) && nn.weights[..nn.len].iter().all(|&w| w >= 0.0)
        })
    }

    /// The facets of C (full-dimensional, `basis` d independent generators) into
    /// `self.facets`: double description on the dual cone, every ray re-derived from the
    /// generators on it and checked, then the set proven complete ([`complete`]), the
    /// facets across open ridges found by pivoting and checked in turn. Whether the proof
    /// went through is `self.complete`.
    pub(super) fn enumerate_facets(&mut self, case: &GeneralCase<'_>, basis: &[u32]) {
        self.dual_cone(case, basis);
        if self.facets_of_rays {
            return; // the same cone as the last call's: its facets and their proof stand
        }
        self.facets.clear();
        self.shadows.clear();
        let d = case.dim;
        for r in 0..self.rays.len() {
            let v = self.rays[r].v;
            if let Some(f) = self.refine(d, &v) {
                self.facets.push(f);
            }
        }
        // One facet per generator set (several rays can stand for one facet).
        sort_facets(&mut self.facets, |f| f.on.0, |a, b| a.cmp(b));
        self.facets.dedup_by_key(|f| f.on.0);
        self.complete = self.prove_complete(case);
        self.facets_of_rays = true;
    }

    /// Whether `self.facets` is every facet of C, proven by ridge closure
    /// ([`complete::closure`]); the facets across open ridges are added as they are found
    /// ([`complete::pivot`], then checked as every facet is), a few rounds at most.
    pub(super) fn prove_complete(&mut self, case: &GeneralCase<'_>) -> bool {
        let d = case.dim;
        let mut distinct = GenSet::default();
        for &i in &self.distinct {
            distinct.insert(i as usize);
        }
        let Some(l) = self.lineality(d, &distinct) else {
            return false;
        };
        let mut on: Vec<GenSet> = Vec::with_capacity(self.facets.len());
        let mut normals: Vec<Vector> = Vec::with_capacity(self.facets.len());
        for _round in 0..8 {
            self.merge_planes(d);
            on.clear();
            on.extend(self.facets.iter().map(|f| f.on.and(&distinct)));
            normals.clear();
            normals.extend(self.facets.iter().map(|f| f.normal));
            let open = match complete::closure(d, &self.unit, &on, &normals, l) {
                complete::Closure::Complete => return true,
                complete::Closure::Broken => {
                    return false;
                }
                complete::Closure::Open(open) => open,
            };
            let mut added = false;
            for (f, ridge, left) in open {
                let n = self.facets[f].normal;
                let Some((_, normal)) =
                    complete::pivot(d, &self.unit, &self.distinct, &n, &ridge, left)
                else {
                    continue;
                };
                // The plane of the pivot's d−1 generators, else one fitted to every generator
                // near it.
                let found = self
                    .facet_with_normal(d, &normal)
                    .or_else(|| self.refine(d, &normal));
                if let Some(found) = found {
                    if !self.facets.iter().any(|g| g.on == found.on) {
                        self.facets.push(found);
                        added = true;
                    }
                }
            }
            if !added {
                return false;
            }
        }
        false
    }

    /// Facets found twice on one plane (normals within [`SAME_PLANE`]: two estimates that
    /// disagree on a generator within rounding of it) made one, the generators of both on
    /// it. Sorted by normal, neighbours compared.
    pub(super) fn merge_planes(&mut self, d: usize) {
        if self.facets.len() < 2 {
            return;
        }
        sort_facets(&mut self.facets, |f| f.normal[0], |a, b| a.total_cmp(b));
        let mut out: Vec<FoundFacet> = Vec::with_capacity(self.facets.len());
        for f in self.facets.drain(..) {
            let same = out
                .iter_mut()
                .rev()
                .take_while(|g| f.normal[0] - g.normal[0] <= SAME_PLANE)
                .find(|g| {
                    (0..d)
                        .map(|a| (g.normal[a] - f.normal[a]).powi(2))
                        .sum::<f64>()
                        <= SAME_PLANE * SAME_PLANE
                });
            match same {
                Some(g) => {
                    for i in f.on.iter() {
                        g.on.insert(i as usize);
                    }
                    // Still a checked plane: the margin is the least over these too.
                    self.shadows.push(f);
                }
                None => out.push(f),
            }
        }
        sort_facets(&mut out, |f| f.on.0, |a, b| a.cmp(b));
        self.facets = out;
    }

    /// The dimension of C's lineality space L, proven, or `None`: 0 when the facets'
    /// normals span R^d (the dual cone is full-dimensional) or every generator is clearly on
    /// one side of their mean. Else L is spanned by the generators whose opposite is in C,
    /// and those lie on every facet: each generator on every facet found is tried (an NNLS
    /// towards its opposite, with a witness: in L; with a certificate: not), and L is the
    /// span of those in it.
    pub(super) fn lineality(&mut self, d: usize, distinct: &GenSet) -> Option<usize> {
        if self.pointed(d) {
            return Some(0);
        }
        let (normals, _) = pivoted(d, d, RANK_TOL, || {
            self.facets
                .iter()
                .enumerate()
                .map(|(t, f)| (t as u32, &f.normal[..]))
        });
        if normals.len() == d {
            return Some(0);
        }
        let mut common = *distinct;
        for f in &self.facets {
            common = common.and(&f.on);
        }
        let mut lines = Basis::new(d);
        for g in common.iter() {
            let target = self.unit[g as usize].map(|v| -v);
            let nn = self.nnls(d, &target, &[]);
            let total: f64 = nn.weights[..nn.len].iter().sum();
            if nn.dist <= EPS * total.max(1.0) && nn.weights[..nn.len].iter().all(|&w| w >= 0.0) {
                lines.push(&self.unit[g as usize], RANK_TOL);
                continue;
            }
            // Not in L only with a certificate: y·u ≥ −ε for every direction kept (the cone
            // whose facets these are), y·target < −ε.
            let y = nn.residual.map(|r| -r / nn.dist);
            let apart = nn.dist > 0.0
                && dot(&y[..d], &target[..d]) < -EPS
                && self
                    .distinct
                    .iter()
                    .all(|&i| dot(&self.unit[i as usize][..d], &y[..d]) >= -EPS);
            if !apart {
                return None;
            }
        }
        (lines.len() + normals.len() <= d).then_some(lines.len())
    }

    /// The facet a dual ray `v` stands for, checked ([`Solver::facet_with_normal`]): `v`
    /// itself when it passes (its generators spanning d−1 dimensions), else the unit normal
    /// of the span of the generators near its plane (oriented as `v`) re-derived from them;
    /// `None` when they do not span d−1 dimensions or the plane does not support every
    /// direction.
    pub(super) fn refine(&mut self, d: usize, v: &Vector) -> Option<FoundFacet> {
        // The facet as the ray found it, when it passes and its generators span d−1.
        if let Some(f) = self.facet_with_normal(d, v) {
            let unit = &self.unit;
            let mut span = Basis::new(d);
            for i in f.on.iter().filter(|&i| !self.twin[i as usize]) {
                span.push(&unit[i as usize], RANK_TOL);
                if span.len() + 1 == d {
                    break;
                }
            }
            if span.len() + 1 == d {
                return Some(f);
            }
        }
        let nd = self.distinct.len();
        let mut vals = std::mem::take(&mut self.vals);
        {
            let (soa, stride) = self.positions();
            vals.resize(stride, 0.0);
            gradient(self.simd, d, soa, stride, nd.div_ceil(4) * 4, v, &mut vals);
        }
        let unit = &self.unit;
        let distinct = &self.distinct;
        let (basis, _) = pivoted(d, d - 1, RANK_TOL, || {
            vals[..nd]
                .iter()
                .zip(distinct)
                .filter(|(s, _)| s.abs() <= ON_TOL * 1e2)
                .map(|(_, &i)| (i, &unit[i as usize][..]))
        });
        self.vals = vals;
        if basis.len() < d - 1 {
            return None;
        }
        let mut n = basis.complement();
        if dot(&n[..d], &v[..d]) < 0.0 {
            n = n.map(|x| -x);
        }
        self.facet_with_normal(d, &n)
    }

    /// The facet of unit inward normal `n` (the complement of d−1 independent generators),
    /// checked in float64: every direction kept by [`Solver::dedup`] on its side,
    /// `u·n ≥ −ε` (`u` unit: docs/contract-general.md's `y·wᵢ ≥ −ε|y||wᵢ|`), and the generators
    /// within [`ON_TOL`] of its plane (twins included) as the facet's. The margin is thus
    /// the cone of the kept directions' (a sub-cone of C: never larger than C's), and a
    /// twin may lie up to [`SAME_DIRECTION`] outside.
    pub(super) fn facet_with_normal(&mut self, d: usize, n: &Vector) -> Option<FoundFacet> {
        let nn = dot(&n[..d], &n[..d]).sqrt();
        if (nn - 1.0).abs().is_nan() || (nn - 1.0).abs() > 1e-12 {
            return None;
        }
        let nd = self.distinct.len();
        let mut vals = std::mem::take(&mut self.vals);
        {
            let (soa, stride) = self.positions();
            vals.resize(stride, 0.0);
            gradient(self.simd, d, soa, stride, nd.div_ceil(4) * 4, n, &mut vals);
        }
        let supports = vals[..nd].iter().all(|&s| s >= -EPS);
        let mut on = GenSet::default();
        if supports {
            for (&s, &i) in vals[..nd].iter().zip(&self.distinct) {
                if s.abs() <= FACET_ON {
                    on.insert(i as usize);
                }
            }
            if self.twins {
                for (i, &twin) in self.twin.iter().enumerate() {
                    if twin
                        && self.norms[i] > 0.0
                        && dot(&self.unit[i][..d], &n[..d]).abs() <= FACET_ON
                    {
                        on.insert(i);
                    }
                }
            }
        }
        self.vals = vals;
        supports.then_some(FoundFacet { normal: *n, on })
    }
}

/// Sorts `facets` by `key` (compared by `cmp`), unstably, through records of the key and
/// the position: which of two facets of equal keys comes first (and so which one a dedup
/// keeps) is then the order std's unstable sort gives those records, the same whatever the
/// size of a [`FoundFacet`], which grows with [`MAX_DIM`] (std picks its small-sort by the
/// element's size).
fn sort_facets<K: Copy>(
    facets: &mut Vec<FoundFacet>,
    key: impl Fn(&FoundFacet) -> K,
    cmp: impl Fn(&K, &K) -> std::cmp::Ordering,
) {
    let mut records: Vec<(K, u32)> = facets
        .iter()
        .enumerate()
        .map(|(t, f)| (key(f), t as u32))
        .collect();
    records.sort_unstable_by(|a, b| cmp(&a.0, &b.0));
    let sorted: Vec<FoundFacet> = records.iter().map(|&(_, t)| facets[t as usize]).collect();
    *facets = sorted;
}
