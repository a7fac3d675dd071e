//! Proof that a set of checked facets is **all** the facets of a cone (docs/contract-general.md §8),
//! by a test that does not trust the enumeration that found them.
//!
//! The facets of a full-dimensional polyhedral cone, joined where they share a ridge (a
//! face of dimension d−2), make a connected graph (the graph of the polar polytope, in the
//! quotient by the lineality space). So a non-empty set of true facets is all of them iff it
//! is closed under that adjacency: every ridge of every facet in the set lies in another
//! facet of the set. A ridge lies in exactly two facets, so a ridge found in one other
//! facet of the set has its neighbour there, and one found in none points at a facet that
//! is missing.
//!
//! The ridges of a facet are the facets of the (d−1)-dimensional cone of its generators:
//!
//! - a **simplicial** facet (exactly d−1 generators, independent) has the d−1 ridges that
//!   leave out one generator each, found from its generators alone;
//! - any other facet's ridges are found as its intersections with the other facets that
//!   have rank d−2, and whether those are *all* its ridges is the same question one
//!   dimension down: every one of their own facets must lie in a second one. The recursion
//!   ends at faces of dimension l + 2 (l the lineality space's), which have exactly two
//!   facets, or l + 1, which have one.
//!
//! A ridge found in no other facet is returned ([`Closure::Open`]): the caller finds the
//! facet across it by turning the plane about the ridge ([`pivot`]) and checks it again.
//! Sets are of generator positions, one per direction (twins and zero generators left out).

use super::linalg::{dot, Basis, Vector};
use super::tolerance::{EPS, FACET_ON, RANK_TOL};
use super::GenSet;

/// What [`closure`] found.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Closure {
    /// Every ridge of every facet lies in exactly one other: the set is complete.
    Complete,
    /// Ridges that lie in no other facet: `(facet, ridge, a generator of the facet off the
    /// ridge)`.
    Open(Vec<(usize, GenSet, u32)>),
    /// The set is not closed in a way no pivot can mend (a ridge in three facets, a
    /// non-simplicial facet whose ridges are not all found, no facet at all).
    Broken,
}

/// The rank of a set of unit generators (near-duplicate directions were merged before, so
/// no pivoting is needed to keep a cluster from counting twice).
fn rank(d: usize, unit: &[Vector], set: &GenSet) -> usize {
    let mut basis = Basis::new(d);
    for i in set.iter() {
        basis.push(&unit[i as usize], RANK_TOL);
        if basis.len() == d {
            break;
        }
    }
    basis.len()
}

type SetMap<V> = std::collections::HashMap<[u64; 4], V, std::hash::BuildHasherDefault<SetHasher>>;

/// [`rank`], remembered: the faces' intersections recur (each pair from both sides, a ridge
/// from each facet holding it). And the faces already proven to have all their facets
/// found, with those facets (sorted): a face of dimension k is reached from every face above
/// it that holds it, and is proven once ([`faces_complete`]).
struct Ranks<'a> {
    d: usize,
    unit: &'a [Vector],
    known: SetMap<u8>,
    proven: SetMap<Vec<GenSet>>,
}

impl Ranks<'_> {
    fn of(&mut self, set: &GenSet) -> usize {
        if let Some(&r) = self.known.get(&set.0) {
            return r as usize;
        }
        let r = rank(self.d, self.unit, set);
        self.known.insert(set.0, r as u8);
        r
    }
}

/// A hasher for generator sets: the words folded by multiplication (the sets are not chosen
/// by an adversary, and SipHash would cost more than it saves).
#[derive(Default)]
pub(crate) struct SetHasher(u64);

impl std::hash::Hasher for SetHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0 ^ w)
            .wrapping_mul(0x9e3779b97f4a7c15)
            .rotate_left(29);
    }
}

/// Whether `on` (facets' generator sets, each a checked facet of a cone in R^d whose
/// lineality space has dimension `l`) is closed under ridge adjacency (module doc).
pub(crate) fn closure(
    d: usize,
    unit: &[Vector],
    on: &[GenSet],
    normals: &[Vector],
    l: usize,
) -> Closure {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT (checked just above).
        return unsafe { closure_popcnt(d, unit, on, normals, l) };
    }
    closure_body(d, unit, on, normals, l)
}

/// [`closure`] compiled with POPCNT (the same body, the same answer).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn closure_popcnt(
    d: usize,
    unit: &[Vector],
    on: &[GenSet],
    normals: &[Vector],
    l: usize,
) -> Closure {
    closure_body(d, unit, on, normals, l)
}

#[inline(always)]
fn closure_body(d: usize, unit: &[Vector], on: &[GenSet], normals: &[Vector], l: usize) -> Closure {
    let nf = on.len();
    if nf == 0 {
        return Closure::Broken;
    }
    if l + 1 == d {
        // A half-space: one facet, the lineality space itself.
        return if nf == 1 {
            Closure::Complete
        } else {
            Closure::Broken
        };
    }
    if l + 2 == d {
        return if nf == 2 {
            Closure::Complete
        } else {
            Closure::Broken
        };
    }
    // Per generator, the bitset of the facets holding it.
    let words = nf.div_ceil(64);
    let mut rows = vec![0u64; 256 * words];
    for (f, s) in on.iter().enumerate() {
        for g in s.iter() {
            rows[g as usize * words + f / 64] |= 1 << (f % 64);
        }
    }
    let row = |g: u32| &rows[g as usize * words..(g as usize + 1) * words];
    let mut open = Vec::new();
    let mut acc = vec![0u64; words];
    let mut counts = vec![0u8; nf];
    let mut touched: Vec<usize> = Vec::new();
    let mut ranks = Ranks {
        d,
        unit,
        known: Default::default(),
        proven: Default::default(),
    };
    for (f, s) in on.iter().enumerate() {
        let len = s.len();
        if l == 0 && len + 1 == d {
            // Simplicial: the facets holding each ridge are the AND of its generators' rows.
            let gens: Vec<u32> = s.iter().collect();
            for (q, &left) in gens.iter().enumerate() {
                acc.fill(!0);
                for (p, &g) in gens.iter().enumerate() {
                    if p != q {
                        for (a, r) in acc.iter_mut().zip(row(g)) {
                            *a &= r;
                        }
                    }
                }
                acc[f / 64] &= !(1 << (f % 64));
                match acc.iter().map(|w| w.count_ones()).sum::<u32>() {
                    1 => {}
                    0 => {
                        let mut ridge = *s;
                        ridge.0[left as usize >> 6] &= !(1 << (left & 63));
                        open.push((f, ridge, left));
                    }
                    _ => return Closure::Broken,
                }
            }
            continue;
        }
        // Not simplicial: its ridges are its intersections of rank d−2 with the others
        // (candidates: the facets sharing at least d−2 of its generators).
        touched.clear();
        for g in s.iter() {
            for (w, &bits) in row(g).iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    let h = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if h != f {
                        if counts[h] == 0 {
                            touched.push(h);
                        }
                        counts[h] = counts[h].saturating_add(1);
                    }
                }
            }
        }
        let mut ridges: Vec<GenSet> = Vec::new();
        let mut broken = false;
        for &h in &touched {
            let c = std::mem::take(&mut counts[h]) as usize;
            if broken || c + 2 < d {
                continue;
            }
            let common = s.and(&on[h]);
            match ranks.of(&common) {
                r if r + 2 == d => {
                    if ridges.contains(&common) {
                        broken = true; // one ridge in three facets
                    }
                    ridges.push(common);
                }
                r if r + 1 >= d => broken = true, // two facets on one plane
                _ => {}
            }
        }
        if !broken && faces_complete(&mut ranks, &ridges, d - 2, l) {
            continue;
        }
        // Some ridge of f lies in no other facet found (or the intersections mislead):
        // f's ridges by brute force, each looked for in the other facets.
        let Some(all) = (l == 0)
            .then(|| ridges_of(d, unit, s, &normals[f]))
            .flatten()
        else {
            return Closure::Broken;
        };
        for ridge in all {
            acc.fill(!0);
            for g in ridge.iter() {
                for (a, r) in acc.iter_mut().zip(row(g)) {
                    *a &= r;
                }
            }
            acc[f / 64] &= !(1 << (f % 64));
            match acc.iter().map(|w| w.count_ones()).sum::<u32>() {
                1 => {}
                0 => {
                    let Some(left) = s.iter().find(|&g| !ridge.contains(g as usize)) else {
                        return Closure::Broken;
                    };
                    open.push((f, ridge, left));
                }
                _ => return Closure::Broken,
            }
        }
    }
    if open.is_empty() {
        Closure::Complete
    } else {
        Closure::Open(open)
    }
}

/// Most (d−2)-subsets [`ridges_of`] tries.
const MAX_SUBSETS: u64 = 60_000;

/// Every ridge of the facet of generators `s` and unit normal `n` (a pointed cone), by brute
/// force: each d−2 independent generators of `s` whose plane within the facet's has every
/// generator of `s` on one side (within ε) is a ridge, the generators of `s` on it (within
/// ε) its set. `None` when `s` has too many subsets to try.
fn ridges_of(d: usize, unit: &[Vector], s: &GenSet, n: &Vector) -> Option<Vec<GenSet>> {
    let gens: Vec<u32> = s.iter().collect();
    let m = gens.len();
    let r = d - 2;
    if m < r || binomial(m as u64, r as u64) > MAX_SUBSETS {
        return None;
    }
    let mut found: Vec<GenSet> = Vec::new();
    let mut pick: Vec<usize> = (0..r).collect();
    loop {
        let mut basis = Basis::new(d);
        basis.push(&n[..d], 0.0);
        if pick
            .iter()
            .all(|&p| basis.push(&unit[gens[p] as usize], RANK_TOL))
        {
            let w = basis.complement();
            let (mut lo, mut hi) = (0.0f64, 0.0f64);
            for &g in &gens {
                let v = dot(&unit[g as usize][..d], &w[..d]);
                lo = lo.min(v);
                hi = hi.max(v);
            }
            if lo >= -EPS || hi <= EPS {
                let mut on = GenSet::default();
                for &g in &gens {
                    if dot(&unit[g as usize][..d], &w[..d]).abs() <= FACET_ON {
                        on.insert(g as usize);
                    }
                }
                if !found.contains(&on) {
                    found.push(on);
                }
            }
        }
        // The next subset, in lexicographic order.
        let mut j = r;
        loop {
            if j == 0 {
                return Some(found);
            }
            j -= 1;
            if pick[j] < m - r + j {
                pick[j] += 1;
                for t in j + 1..r {
                    pick[t] = pick[t - 1] + 1;
                }
                break;
            }
        }
    }
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1u64, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// Whether `faces` (faces of dimension `k`, each a facet of one face P of dimension k + 1
/// of a cone whose lineality space has dimension `l`) are all of P's facets: P of dimension
/// l + 1 has one, of l + 2 two; above, each face's own facets, found as its intersections of
/// rank k − 1 with the others, must be complete in turn (then every ridge of P's found
/// facets lies in a second one, and the facet graph of P is connected).
fn faces_complete(ranks: &mut Ranks<'_>, faces: &[GenSet], k: usize, l: usize) -> bool {
    if k == l {
        return faces.len() == 1;
    }
    if k == l + 1 {
        return faces.len() == 2;
    }
    if faces.is_empty() {
        return false;
    }
    for (a, s) in faces.iter().enumerate() {
        if l == 0 && s.len() == k {
            // Simplicial (k generators of rank k): its facets leave one out; each must lie in
            // exactly one other face.
            for q in s.iter() {
                let mut r = *s;
                r.0[q as usize >> 6] &= !(1 << (q & 63));
                let holders = faces
                    .iter()
                    .enumerate()
                    .filter(|&(b, t)| b != a && r.is_subset(t))
                    .count();
                if holders != 1 {
                    return false;
                }
            }
            continue;
        }
        let mut subs: Vec<GenSet> = Vec::new();
        for (b, t) in faces.iter().enumerate() {
            if a == b {
                continue;
            }
            let common = s.and(t);
            if common.len() + 1 < k {
                continue;
            }
            match ranks.of(&common) {
                r if r + 1 == k => {
                    if subs.contains(&common) {
                        return false; // one subface in three faces
                    }
                    subs.push(common);
                }
                r if r >= k => return false, // two faces the same
                _ => {}
            }
        }
        // The intersections found here are true facets of s (each a face of P inside s, one
        // dimension down). Where s was proven before, its facets are known: these are all
        // of them exactly when they are the same list (a sound proof cannot pass with one
        // missing), so the proof below s need not run again.
        subs.sort_unstable_by_key(|x| x.0);
        if let Some(known) = ranks.proven.get(&s.0) {
            if *known != subs {
                return false;
            }
            continue;
        }
        if !faces_complete(ranks, &subs, k - 1, l) {
            return false;
        }
        ranks.proven.insert(s.0, subs);
    }
    true
}

/// The facet across the ridge `ridge` (d−2 independent generators) of the facet of inward
/// unit normal `n`, whose generator `left` is not on the ridge: the plane turned about the
/// ridge until it meets the last generator (gift wrapping). In the plane orthogonal to the
/// ridge, spanned by `t` (towards `left`) and `n`, every generator projects into the upper
/// half-plane; the neighbour's trace is the projection of largest angle from `t`. Returns
/// the new facet's d−1 generators (the ridge's and that one) and its unit inward normal
/// computed from them, not yet checked.
pub(crate) fn pivot(
    d: usize,
    unit: &[Vector],
    distinct: &[u32],
    n: &Vector,
    ridge: &GenSet,
    left: u32,
) -> Option<(GenSet, Vector)> {
    let mut span = Basis::new(d);
    for i in ridge.iter() {
        span.push(&unit[i as usize], RANK_TOL);
    }
    if span.len() + 2 != d {
        return None;
    }
    let mut t = span.residual(&unit[left as usize]);
    let c = dot(&t[..d], &n[..d]);
    for (x, y) in t[..d].iter_mut().zip(n) {
        *x -= c * y;
    }
    let nt = dot(&t[..d], &t[..d]).sqrt();
    if nt.is_nan() || nt <= 1e-12 {
        return None;
    }
    t = t.map(|x| x / nt);
    let mut best: Option<(u32, f64, f64)> = None;
    for &j in distinct {
        if ridge.contains(j as usize) {
            continue;
        }
        let u = &unit[j as usize];
        let (a, b) = (dot(&u[..d], &t[..d]), dot(&u[..d], &n[..d]));
        if a.hypot(b) <= 1e-12 {
            continue; // in the ridge's span
        }
        match best {
            Some((_, ba, bb)) if ba * b - bb * a <= 0.0 => {}
            _ => best = Some((j, a, b)),
        }
    }
    let (j, _, _) = best?;
    if j == left {
        return None; // the plane did not turn: the ridge's facet is the one it came from
    }
    let mut gens = *ridge;
    gens.insert(j as usize);
    let mut plane = Basis::new(d);
    for i in gens.iter() {
        plane.push(&unit[i as usize], RANK_TOL);
    }
    if plane.len() + 1 != d {
        return None;
    }
    let mut normal = plane.complement();
    // Inward: the side the facet it came from lies on (`left` is off the new plane).
    if dot(&normal[..d], &unit[left as usize][..d]) < 0.0 {
        normal = normal.map(|x| -x);
    }
    Some((gens, normal))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_of(v: &[[f64; 3]]) -> Vec<Vector> {
        v.iter()
            .map(|w| {
                let n = dot(w, w).sqrt();
                let mut u = [0.0; crate::general::MAX_DIM];
                for a in 0..3 {
                    u[a] = w[a] / n;
                }
                u
            })
            .collect()
    }

    fn set(ix: &[usize]) -> GenSet {
        let mut s = GenSet::default();
        for &i in ix {
            s.insert(i);
        }
        s
    }

    #[test]
    fn a_square_pyramid_is_complete_with_four_facets_and_open_with_three() {
        let unit = unit_of(&[[1., 1., 1.], [-1., 1., 1.], [-1., -1., 1.], [1., -1., 1.]]);
        let all = [set(&[0, 1]), set(&[1, 2]), set(&[2, 3]), set(&[3, 0])];
        let normals = [[0.0; crate::general::MAX_DIM]; 4];
        assert_eq!(closure(3, &unit, &all, &normals, 0), Closure::Complete);
        match closure(3, &unit, &all[..3], &normals[..3], 0) {
            Closure::Open(open) => assert_eq!(open.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_pivot_finds_the_missing_facet() {
        let unit = unit_of(&[[1., 1., 1.], [-1., 1., 1.], [-1., -1., 1.], [1., -1., 1.]]);
        let distinct = [0, 1, 2, 3];
        // Facet {0, 1}: normal (0, -1, 1)/√2; across ridge {0} (leaving out 1) is {3, 0}.
        let s = 0.5f64.sqrt();
        let mut n = [0.0; crate::general::MAX_DIM];
        (n[1], n[2]) = (-s, s);
        let (gens, normal) = pivot(3, &unit, &distinct, &n, &set(&[0]), 1).unwrap();
        assert_eq!(gens, set(&[0, 3]));
        assert!((normal[0] + s).abs() < 1e-12 && (normal[2] - s).abs() < 1e-12);
    }
}
