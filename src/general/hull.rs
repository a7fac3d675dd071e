//! The inner hull of the local search (docs/contract-general.md §9): a closed cycle of simplicial
//! faces around a point `x` of R^d, each face d−1 points of the cone (or of the lifted grasp
//! polytope) with its unit normal oriented towards `x`. The cone over the points it uses lies
//! inside the true cone, so `min over faces of n·x` bounds the distance from `x` to the true
//! boundary from below (the proof: [`super::proof`]); the search grows it towards the face
//! nearest `x` by adding the point the support function finds beyond that face, as
//! beneath–beyond does (the faces the point sees replaced by the point joined to their horizon).
//!
//! A new face's normal is the combination of its two neighbours' across the horizon ridge
//! that vanishes on the new point, `(n_h·p) n_g − (n_g·p) n_h`: both vanish on the ridge, so
//! it does, in O(d) and as accurate as they are; where the two almost cancel (a sharp ridge)
//! it is derived again from the face's own points, twice orthogonalised. The new faces meet
//! each other across ridges through the new point, found by turning about each such ridge
//! through the seen faces (no table of point sets), each ridge checked to be met twice.
//!
//! A point barely beyond one face may be beyond its neighbour by less than rounding can tell:
//! the neighbour stays, the new face folds against it, and the neighbour's far point then lies
//! beyond the hull (the search would find it again and stop). Each new face is checked against
//! that far point, and the add retried with a folded neighbour among the faces replaced.

// Comparisons are written `!(x > t)` where a NaN must fail them.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::linalg::{dot, Vector};
use super::MAX_DIM;

/// A face's points at most: d − 1 for d ≤ 7.
pub(crate) const FACE: usize = MAX_DIM - 1;

/// The slots a face keeps for its points and its neighbours: [`FACE`] rounded up to 8, so
/// that [`slot_of`] compares a whole row at once (one vector compare and a mask, where six
/// lanes took shuffles); the slots past d − 1 are never read.
pub(crate) const SLOTS: usize = 8;

/// A face beyond which a point lies by less than this (unit vectors) is not seen by it: a
/// point almost on a face's plane does not replace it (the hull then stays a cycle, only
/// a hair from convex there).
const SEEN: f64 = 1e-13;

/// A new face with a neighbour's far point beyond it by more than this (unit vectors) has
/// made the hull fold there: the neighbour saw the point too, by less than rounding could
/// tell, and [`Hull::add`] tries again with it among the faces replaced.
const REFLEX: f64 = 1e-12;

/// A point within this of a seen face's plane and of its neighbour's across a horizon ridge
/// (unit vectors) lies on the ridge's span as far as rounding can tell: a contact's wrenches,
/// or a friction disc's points, all lie on one 2-flat, and a ridge through three of them
/// spans it. Where an add is refused, it is tried again with such a face not seen
/// ([`Stuck::OnPlane`]): the point lies on its plane, so keeping it leaves the hull convex
/// to rounding, and the faces made across its ridges lie in its plane, away from the
/// degenerate one.
const ON_PLANE: f64 = 1e-11;

/// [`SEEN`] and [`REFLEX`] both, for a hull made [`Hull::coarse`]: near-coplanar points
/// (a disc's, a face contact's off its plane) that the fine hull could not take.
pub(crate) const COARSE: f64 = 1e-10;

/// The same, coarser: tried where [`COARSE`] got stuck too (a vertex given twice with its
/// digits changed, next to a face contact 1e-10 off its plane).
pub(crate) const COARSER: f64 = 1e-8;

/// The most faces [`Hull::nearest`] finds by a pass over them; a hull with more keeps them
/// in a heap.
const OPEN_MAX: usize = 2048;

/// A hull that has made more faces than this (replaced ones included) is not taken on to
/// another point ([`Hull::retarget`]): a long run of needs on one cone starts afresh now and
/// then, so that its faces do not grow without end.
const RETARGET_FACES: usize = 1 << 14;

/// The key of a place among the faces not yet popped whose face was popped or replaced
/// (no face's: a value is never NaN).
const GONE: u64 = u64::MAX;

/// How many neighbours [`Hull::add`] adds to the seen faces, one retry each, before it
/// gives up.
const RETRIES: usize = 8;

/// A combined normal whose points lie farther than this off its plane is derived again.
const RESIDUAL: f64 = 1e-13;

/// A new point closer than this (unit vectors) to the span of the ridge it joins makes a
/// thin face, whose normal is derived in double-double from its points.
const SLIVER: f64 = 1e-6;

/// Why a point could not be added: the search ends there and says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stuck {
    /// A new face's points do not span d − 1 dimensions, or `x` is not on its side.
    Degenerate,
    /// The faces the point sees do not have a horizon that is a cycle.
    Horizon,
    /// A new face folds against the neighbour across its horizon ridge (that neighbour,
    /// named, should have been seen): retried in [`Hull::add`], never returned.
    Reflex(u32),
    /// The point lies on the plane of a face it was taken to see (named) and on its
    /// neighbour's across a horizon ridge, within rounding: on the ridge's span, where the
    /// new face has no plane. Retried in [`Hull::add`] with that face not seen (returned
    /// only when [`RETRIES`] such faces do not do).
    OnPlane(u32),
}

/// One face of the hull.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Face {
    /// Its points, as indices into [`Hull::points`]; the first d − 1 count.
    pub points: [u16; SLOTS],
    /// `nbr[j]`: the face across the ridge without `points[j]`.
    nbr: [u32; SLOTS],
    /// Unit normal, `x` on its positive side.
    pub normal: Vector,
    /// `normal·x`: the distance from `x` to the face's plane.
    pub value: f64,
    /// Not replaced.
    pub alive: bool,
    seen: u32,
    /// `normal·p` for the point being added, where this face sees it (set as it is found).
    beyond: f64,
}

/// The hull and its scratch, reused from case to case.
#[derive(Default)]
pub(crate) struct Hull {
    d: usize,
    x: Vector,
    /// The points taken, unit vectors, and the caller's id of each.
    pub points: Vec<Vector>,
    /// The points as the caller has them (before scaling to unit length: a thin face's
    /// normal is derived from these, which rounding has not touched), each times the power
    /// of two that brings its largest entry near 1 ([`exact_scale`]).
    raw: Vec<Vector>,
    pub ids: Vec<u32>,
    /// Every face made, the replaced ones with `alive` false.
    pub faces: Vec<Face>,
    /// The faces not yet popped, in the order made: `open_keys[t]` is `ordered(value)` of
    /// face `open_faces[t]`, or [`GONE`] once that face was popped or replaced (the others
    /// keep their places, so the first least key is the least index among ties). The nearest
    /// is found by one pass over the keys alone, which the compiler vectorises; a pass costs
    /// less than keeping a heap of every face made (most are replaced before they would be
    /// popped); past [`OPEN_MAX`] of them they move to `heap`.
    open_keys: Vec<u64>,
    open_faces: Vec<u32>,
    /// Each face's place in `open_keys`, or `u32::MAX` where it has none.
    open_at: Vec<u32>,
    /// How many of `open_keys` are [`GONE`]: past half, they are dropped.
    open_gone: usize,
    /// The same as a heap (least first), once `open` grew past [`OPEN_MAX`]; replaced faces
    /// are skipped when popped.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    heaped: bool,
    stamp: u32,
    stack: Vec<u32>,
    visible: Vec<u32>,
    /// The horizon ridges of the point being added: the seen face, the slot of its point off
    /// the ridge, the face beyond the ridge, and that face's `normal·p`.
    horizon: Vec<(u32, u8, u32, f64)>,
    /// The fingerprints of the ridges paired in [`Hull::add`] (with the call's stamp).
    ridges: Vec<(u64, u32)>,
    /// `scatter(i)` for every point index i so far (a function of the index alone).
    scatters: Vec<u64>,
    /// Faces taken as seen by the point being added, whatever their sign (see [`REFLEX`]).
    forced: Vec<u32>,
    /// Faces not taken as seen by the point being added, whatever their sign, and whether
    /// [`Hull::add`] is trying that (see [`ON_PLANE`]).
    spared: Vec<u32>,
    on_plane: bool,
    /// A face's normal derived from its points may be taken in float64 where its points lie
    /// on it within [`RESIDUAL`] (double-double otherwise): only for a hull whose faces the
    /// proof checker checks before its bound is taken (the circular grasps'). A hull whose
    /// own bound is trusted keeps double-double (float64 normals folded a near-duplicate
    /// cone's hull).
    pub float_normals: bool,
    /// Whether the CPU runs AVX2 and it is not turned off ([`crate::simd::Simd::chosen`]),
    /// for [`Hull::least_open`]'s pass.
    avx2: bool,
    /// Points within this (unit vectors; 0 for [`SEEN`] and [`REFLEX`], else [`COARSE`] or
    /// [`COARSER`]) of a face's plane neither see it nor fold it: a hull whose
    /// faces the proof checker checks, searched again where the finer one left its bracket
    /// open (a face contact's discs crowd it with points on neighbouring arcs, and a fold
    /// finer than rounding can tell leaves its faces unevenly met) or got stuck (a cone's
    /// generators coplanar but for a hair: a face contact's vertices off their plane).
    pub coarse: f64,
    /// Where `float_normals`: the live faces (indices into [`Hull::faces`]) just before each
    /// add that had to fold, latest last. A fold within rounding is usually no fold at all,
    /// but where the checker finds one, the hull as it was before it still proves its bound.
    pub unfolded: Vec<Vec<u32>>,
    /// Adds since [`Hull::start`] that went through only folded (the retries with
    /// neighbours taken as seen did not close) or with a face the point lies on not seen
    /// ([`ON_PLANE`]): the hull is then convex to rounding only, and a caller that trusts
    /// its bound has the checker look (an add that went through with neighbours taken as
    /// seen is as common as a contact's coplanar wrenches, and rarely leaves a fold).
    pub irregular: usize,
}

/// Keys a block of [`Hull::least_open`]'s pass.
const BLOCK: usize = 16;

/// The least of `keys` and the first block of [`BLOCK`] that holds it (`GONE` and 0 for
/// none): one pass, the compiler's vector minimum a block.
#[inline(always)]
fn least_block(keys: &[u64]) -> (u64, usize) {
    let (mut least, mut block) = (GONE, 0);
    for (b, chunk) in keys.chunks(BLOCK).enumerate() {
        let m = chunk.iter().fold(GONE, |m, &k| m.min(k));
        if m < least {
            (least, block) = (m, b);
        }
    }
    (least, block)
}

/// [`least_block`] with AVX2's 64-bit compares (four keys a step; the baseline's SSE2 has
/// none, and takes the keys one by one).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn least_block_avx2(keys: &[u64]) -> (u64, usize) {
    least_block(keys)
}

/// `v`'s bits in the order of the numbers (for the heap).
fn ordered(v: f64) -> u64 {
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

impl Hull {
    /// The hull of the simplicial cone of `d` independent unit vectors `start` (ids `ids`)
    /// around the unit point `x`, which lies in their cone. `Err` when they are not
    /// independent.
    pub(crate) fn start(
        &mut self,
        d: usize,
        x: &Vector,
        start: &[Vector],
        raw: &[Vector],
        ids: &[u32],
    ) -> Result<(), Stuck> {
        debug_assert!(start.len() == d && ids.len() == d);
        // [`Hull::try_add_in`] has a copy of the add for each of these dimensions only.
        if !(2..=MAX_DIM).contains(&d) {
            return Err(Stuck::Degenerate);
        }
        self.d = d;
        self.x = *x;
        self.avx2 = matches!(
            crate::simd::Simd::chosen(),
            crate::simd::Simd::Avx2 | crate::simd::Simd::Avx512
        );
        self.points.clear();
        self.points.extend_from_slice(start);
        self.raw.clear();
        self.raw.extend(raw.iter().map(exact_scale));
        self.ids.clear();
        self.ids.extend_from_slice(ids);
        self.faces.clear();
        self.open_keys.clear();
        self.open_faces.clear();
        self.open_at.clear();
        self.open_gone = 0;
        self.heap.clear();
        self.heaped = false;
        self.unfolded.clear();
        self.irregular = 0;
        // Face j: every point but j; its normal column j of the inverse of the matrix whose
        // rows are the points (orthogonal to every other point, positive on point j).
        let inverse = invert(d, start).ok_or(Stuck::Degenerate)?;
        for j in 0..d {
            let mut normal = [0.0; MAX_DIM];
            for (k, n) in normal[..d].iter_mut().enumerate() {
                *n = inverse[k][j];
            }
            let nn = dot(&normal[..d], &normal[..d]).sqrt();
            if !(nn.is_finite() && nn > 0.0) {
                return Err(Stuck::Degenerate);
            }
            let mut normal = normal.map(|v| v / nn);
            let mut points = [0u16; SLOTS];
            let mut nbr = [0u32; SLOTS];
            let mut s = 0;
            for t in 0..d {
                if t != j {
                    points[s] = t as u16;
                    nbr[s] = t as u32; // across the ridge without t: face t
                    s += 1;
                }
            }
            // A thin start (a point within a hair of the others' span): from the points as
            // given, in double-double.
            if dot(&normal[..d], &start[j][..d]) < SLIVER.sqrt() {
                normal = self.exact_normal(&points, &normal)?;
            }
            self.push_face(Face {
                points,
                nbr,
                normal,
                value: dot(&normal[..d], &x[..d]).max(0.0),
                alive: true,
                seen: 0,
                beyond: 0.0,
            });
        }
        Ok(())
    }

    /// The hull as it stands, around another unit point `x`: every live face's value taken
    /// for `x`, and every live face not yet popped. A scene's needs share their cone, and a
    /// hull of its generators is an inner hull around any point inside it: the next need's
    /// search goes on from the last one's closed hull instead of making its faces again.
    /// `false`, the hull unchanged, where `x` lies within `floor` of a face's plane or beyond
    /// it, or the hull is one whose bound the checker had to pass (folded, coarse), or has
    /// made more than [`RETARGET_FACES`] faces (the caller then starts afresh).
    pub(crate) fn retarget(&mut self, x: &Vector, floor: f64) -> bool {
        let d = self.d;
        let inside = self.live().all(|f| dot(&f.normal[..d], &x[..d]) >= floor);
        if !inside
            || self.irregular != 0
            || !self.unfolded.is_empty()
            || self.coarse != 0.0
            || self.faces.len() > RETARGET_FACES
        {
            return false;
        }
        self.x = *x;
        self.open_keys.clear();
        self.open_faces.clear();
        self.open_gone = 0;
        self.heap.clear();
        self.heaped = false;
        self.open_at.clear();
        self.open_at.resize(self.faces.len(), u32::MAX);
        for f in 0..self.faces.len() {
            let face = &mut self.faces[f];
            if face.alive {
                face.value = dot(&face.normal[..d], &x[..d]);
                self.open(f as u32);
            }
        }
        true
    }

    /// The hull's dimension (0 before [`Hull::start`]).
    pub(crate) fn dim(&self) -> usize {
        self.d
    }

    #[inline(always)]
    fn push_face(&mut self, f: Face) -> u32 {
        let i = self.faces.len() as u32;
        let key = ordered(f.value);
        self.faces.push(f);
        self.open_at.push(u32::MAX);
        self.open_key(i, key);
        i
    }

    /// Puts face `i` among the faces not yet popped, last.
    #[inline(always)]
    fn open(&mut self, i: u32) {
        self.open_key(i, ordered(self.faces[i as usize].value));
    }

    /// [`Hull::open`] with the face's key, `ordered(value)`, at hand.
    #[inline(always)]
    fn open_key(&mut self, i: u32, key: u64) {
        if self.heaped {
            self.heap.push(Reverse((key, i)));
        } else {
            self.open_at[i as usize] = self.open_keys.len() as u32;
            self.open_keys.push(key);
            self.open_faces.push(i);
            if self.open_keys.len() - self.open_gone > OPEN_MAX {
                let open = self.open_keys.iter().zip(&self.open_faces);
                let entries = open.filter(|&(&k, _)| k != GONE);
                self.heap.extend(entries.map(|(&k, &f)| Reverse((k, f))));
                self.open_keys.clear();
                self.open_faces.clear();
                self.open_gone = 0;
                self.open_at.iter_mut().for_each(|t| *t = u32::MAX);
                self.heaped = true;
            }
        }
    }

    /// Takes face `f` off the faces not yet popped (popped or replaced), if it is there.
    fn close(&mut self, f: u32) {
        let t = self.open_at[f as usize];
        if t != u32::MAX {
            self.open_keys[t as usize] = GONE;
            self.open_at[f as usize] = u32::MAX;
            self.open_gone += 1;
        }
    }

    /// Drops the gone places of the faces not yet popped (their order kept), and those of
    /// faces `from` on.
    fn compact_open(&mut self, from: usize) {
        let mut kept = 0;
        for t in 0..self.open_keys.len() {
            let (key, f) = (self.open_keys[t], self.open_faces[t]);
            if key == GONE || f as usize >= from {
                continue;
            }
            self.open_keys[kept] = key;
            self.open_faces[kept] = f;
            self.open_at[f as usize] = kept as u32;
            kept += 1;
        }
        self.open_keys.truncate(kept);
        self.open_faces.truncate(kept);
        self.open_gone = 0;
    }

    /// Where the live face nearest `x` is among the faces not yet popped: its index in
    /// `open`, or `usize::MAX` for the heap's top; the least `(value, face)` either way.
    fn least_open(&mut self) -> Option<usize> {
        if self.heaped {
            while let Some(&Reverse((_, f))) = self.heap.peek() {
                if self.faces[f as usize].alive {
                    return Some(usize::MAX);
                }
                self.heap.pop();
            }
            return None;
        }
        if 2 * self.open_gone > self.open_keys.len() {
            self.compact_open(self.faces.len());
        }
        // The open faces are in the order made: the first least key is the least index among
        // ties. The least key by blocks (vectorised), then its first place in its block.
        let keys = &self.open_keys;
        #[cfg(target_arch = "x86_64")]
        let (least, block) = if self.avx2 {
            // SAFETY: `avx2` is set only where the CPU runs AVX2 ([`Hull::start`]).
            unsafe { least_block_avx2(keys) }
        } else {
            least_block(keys)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let (least, block) = least_block(keys);
        if least == GONE {
            return None;
        }
        let at = keys[block * BLOCK..].iter().position(|&k| k == least)?;
        Some(block * BLOCK + at)
    }

    /// The live face nearest `x` (least value, the least index among ties), or `None` when
    /// there is none.
    pub(crate) fn nearest(&mut self) -> Option<u32> {
        match self.least_open()? {
            usize::MAX => self.heap.peek().map(|&Reverse((_, f))| f),
            t => Some(self.open_faces[t]),
        }
    }

    /// [`Hull::nearest`], taken off the faces not yet popped (it stays a face of the hull).
    pub(crate) fn pop_nearest(&mut self) -> Option<u32> {
        match self.least_open()? {
            usize::MAX => self.heap.pop().map(|Reverse((_, f))| f),
            t => {
                let f = self.open_faces[t];
                self.close(f);
                Some(f)
            }
        }
    }

    /// Every live face not yet popped whose value is at most `bound`, taken off the faces not
    /// yet popped into `out` in the order that calls of [`Hull::pop_nearest`] would give
    /// them (least value first, the least index among ties): the faces tied with a closed
    /// one, taken by one pass instead of a pass each (a cube's facets are made of several
    /// faces).
    pub(crate) fn pop_within(&mut self, bound: f64, out: &mut Vec<u32>) {
        out.clear();
        if self.heaped {
            while let Some(&Reverse((_, f))) = self.heap.peek() {
                let face = &self.faces[f as usize];
                if face.alive && face.value > bound {
                    break;
                }
                self.heap.pop();
                if face.alive {
                    out.push(f);
                }
            }
            return;
        }
        let mut taken: Vec<(u64, u32)> = Vec::new();
        for t in 0..self.open_keys.len() {
            let (key, f) = (self.open_keys[t], self.open_faces[t]);
            if key != GONE && self.faces[f as usize].value <= bound {
                taken.push((key, f));
            }
        }
        taken.sort_unstable();
        for &(_, f) in &taken {
            self.close(f);
            out.push(f);
        }
    }

    /// Puts faces that [`Hull::pop_within`] took back among the faces not yet popped, as if
    /// they had never been taken.
    pub(crate) fn unpop(&mut self, taken: &[u32]) {
        if self.heaped {
            let entries = taken
                .iter()
                .map(|&f| Reverse((ordered(self.faces[f as usize].value), f)));
            self.heap.extend(entries);
        } else {
            // Taken by `pop_within` with no compaction since, each is still at its place,
            // marked gone: its key goes back there (the open faces are in the order made, so
            // by index).
            let at = |hull: &Self, f: u32| {
                let t = hull.open_faces.partition_point(|&g| g < f);
                (hull.open_faces.get(t) == Some(&f) && hull.open_keys[t] == GONE).then_some(t)
            };
            if taken.iter().all(|&f| at(self, f).is_some()) {
                for &f in taken {
                    if let Some(t) = at(self, f) {
                        self.open_keys[t] = ordered(self.faces[f as usize].value);
                        self.open_at[f as usize] = t as u32;
                        self.open_gone -= 1;
                    }
                }
                return;
            }
            // The open faces are in the order made (see `least_open`).
            let mut open: Vec<(u32, u64)> = self
                .open_faces
                .iter()
                .copied()
                .zip(self.open_keys.iter().copied())
                .filter(|&(_, k)| k != GONE)
                .collect();
            open.extend(
                taken
                    .iter()
                    .map(|&f| (f, ordered(self.faces[f as usize].value))),
            );
            open.sort_unstable();
            self.open_keys.clear();
            self.open_faces.clear();
            self.open_gone = 0;
            for (t, &(f, k)) in open.iter().enumerate() {
                self.open_keys.push(k);
                self.open_faces.push(f);
                self.open_at[f as usize] = t as u32;
            }
        }
    }

    /// The live faces, nearest first after [`Hull::nearest`] (the heap's order is not kept
    /// here: every live face, in the order made).
    pub(crate) fn live(&self) -> impl Iterator<Item = &Face> + '_ {
        self.faces.iter().filter(|f| f.alive)
    }

    /// The faces that were live before the `k`-th add that folded ([`Hull::unfolded`]), in
    /// the order made: faces are only ever added during a search, and a replaced one keeps
    /// its points and normal.
    pub(crate) fn before_fold(&self, k: usize) -> impl Iterator<Item = &Face> + '_ {
        self.unfolded[k].iter().map(|&f| &self.faces[f as usize])
    }

    /// The least value over the live faces: the lower bound.
    pub(crate) fn least(&self) -> f64 {
        self.live().map(|f| f.value).fold(f64::INFINITY, f64::min)
    }

    /// A vector positive on every point of a live face and on `x` (the sum of the live
    /// faces' normals, checked), or `None` when that one is not: the faces' cone must be
    /// pointed for the bound from below (docs/proof.md).
    pub(crate) fn interior(&self) -> Option<Vector> {
        let d = self.d;
        // x itself where it is positive on every point taken (a lifted grasp's e₀ always is):
        // then no sums are needed.
        if self
            .points
            .iter()
            .all(|p| dot(&p[..d], &self.x[..d]) > 1e-10)
        {
            return Some(self.x);
        }
        // Candidates: the faces' normals summed, the points used summed (each as often as
        // faces use it), x; then each nudged towards x.
        let mut normals = [0.0; MAX_DIM];
        let mut uses = vec![0u32; self.points.len()];
        for f in self.live() {
            for (s, v) in normals[..d].iter_mut().zip(&f.normal) {
                *s += v;
            }
            for &p in &f.points[..d - 1] {
                uses[p as usize] += 1;
            }
        }
        let mut points = [0.0; MAX_DIM];
        for (p, &n) in self.points.iter().zip(&uses) {
            for (s, v) in points[..d].iter_mut().zip(p) {
                *s += n as f64 * v;
            }
        }
        let unit = |v: Vector| {
            let n = dot(&v[..d], &v[..d]).sqrt();
            v.map(|a| a / n)
        };
        // Positive on x and on every point a live face uses.
        let positive = |c: &Vector| {
            let ok = |v: &Vector| dot(&c[..d], &v[..d]) > 1e-10;
            c.iter().all(|v| v.is_finite())
                && ok(&self.x)
                && self.points.iter().zip(&uses).all(|(p, &n)| n == 0 || ok(p))
        };
        let (normals, points) = (unit(normals), unit(points));
        let mut tried = vec![normals, points, self.x];
        for t in [0.5, 0.9] {
            for c in [normals, points] {
                tried.push(unit(std::array::from_fn(|k| {
                    (1.0 - t) * c[k] + t * self.x[k]
                })));
            }
        }
        tried.into_iter().find(positive)
    }

    /// Takes the unit vector `p` (id `id`), which lies beyond face `from` (`n·p < 0`): every
    /// face that sees it (reached from `from` across ridges) replaced by `p` joined to their
    /// horizon.
    /// On `Err` the hull is as it was before the call (a closed cycle still, its bound
    /// still proven), so a search that stops there keeps what it had.
    pub(crate) fn add(
        &mut self,
        p: &Vector,
        raw: &Vector,
        id: u32,
        from: u32,
    ) -> Result<(), Stuck> {
        let (faces, points) = (self.faces.len(), self.points.len());
        self.forced.clear();
        self.spared.clear();
        let mut folds = true;
        self.on_plane = false;
        loop {
            let added = self.try_add_in(p, raw, id, from, folds);
            if added.is_err() {
                self.undo(faces, points);
            }
            match added {
                Err(Stuck::Reflex(h)) if self.forced.len() < RETRIES => self.forced.push(h),
                Err(Stuck::OnPlane(g)) if self.spared.len() < RETRIES => self.spared.push(g),
                // The retries did not close: the add as the signs have it, folded.
                Err(_) if folds && !self.forced.is_empty() => {
                    if self.float_normals {
                        let live =
                            (0..self.faces.len() as u32).filter(|&f| self.faces[f as usize].alive);
                        self.unfolded.push(live.collect());
                    }
                    self.forced.clear();
                    folds = false;
                }
                // Still refused: once more, with the faces the point lies on within rounding
                // not seen ([`ON_PLANE`]; only here, so that every add that went through
                // before goes as it did).
                Err(_) if !self.on_plane => {
                    self.on_plane = true;
                    self.forced.clear();
                    folds = true;
                }
                _ => {
                    if added.is_ok() && (!folds || !self.spared.is_empty()) {
                        self.irregular += 1;
                    }
                    return added;
                }
            }
        }
    }

    /// Undoes a failed [`Hull::add`]: the new faces made from the first horizon ridges
    /// unlinked from their neighbours across them and dropped, the point dropped.
    fn undo(&mut self, faces: usize, points: usize) {
        let d = self.d;
        for f in faces..self.faces.len() {
            if let Some(&(g, j, h, _)) = self.horizon.get(f - faces) {
                let nbr = &mut self.faces[h as usize].nbr[..d - 1];
                if let Some(slot) = nbr.iter().position(|&n| n == f as u32) {
                    nbr[slot] = g;
                }
                let nbr = &mut self.faces[g as usize].nbr;
                if nbr[j as usize] == f as u32 {
                    nbr[j as usize] = h;
                }
            }
        }
        self.faces.truncate(faces);
        if !self.heaped {
            self.compact_open(faces);
        }
        self.open_at.truncate(faces);
        self.heap.retain(|&Reverse((_, f))| (f as usize) < faces);
        self.points.truncate(points);
        self.raw.truncate(points);
        self.ids.truncate(points);
    }

    /// [`Hull::try_add`] made for the hull's dimension: with `d` known when it is compiled,
    /// its loops over a face's points and a normal's entries unroll and lose their bounds
    /// checks (the same operations in the same order: the same bits).
    fn try_add_in(
        &mut self,
        p: &Vector,
        raw: &Vector,
        id: u32,
        from: u32,
        folds: bool,
    ) -> Result<(), Stuck> {
        match self.d {
            2 => self.try_add::<2>(p, raw, id, from, folds),
            3 => self.try_add::<3>(p, raw, id, from, folds),
            4 => self.try_add::<4>(p, raw, id, from, folds),
            5 => self.try_add::<5>(p, raw, id, from, folds),
            6 => self.try_add::<6>(p, raw, id, from, folds),
            // MAX_DIM, the one left ([`Hull::start`] takes no other).
            _ => self.try_add::<MAX_DIM>(p, raw, id, from, folds),
        }
    }

    /// One try of [`Hull::add`] in R^D; `folds`: look for a fold at each new face.
    fn try_add<const D: usize>(
        &mut self,
        p: &Vector,
        raw: &Vector,
        id: u32,
        from: u32,
        folds: bool,
    ) -> Result<(), Stuck> {
        debug_assert_eq!(self.d, D);
        let d = D;
        if self.points.len() >= u16::MAX as usize {
            return Err(Stuck::Degenerate);
        }
        if self.stamp == u32::MAX {
            // The marks' count ran out (some 4·10⁹ adds by one solver, a long-lived worker's):
            // every mark wiped, so that no old one reads as this add's.
            self.faces.iter_mut().for_each(|f| f.seen = 0);
            self.ridges.iter_mut().for_each(|r| r.1 = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        self.visible.clear();
        self.horizon.clear();
        self.stack.clear();
        self.stack.push(from);
        self.faces[from as usize].seen = stamp;
        self.faces[from as usize].beyond = dot(&self.faces[from as usize].normal[..d], &p[..d]);
        let seen = -self.seen();
        let (faces, stack, visible, horizon) = (
            &mut self.faces[..],
            &mut self.stack,
            &mut self.visible,
            &mut self.horizon,
        );
        // No face forced or spared (all but a retried add): the sign alone decides.
        let plain = self.forced.is_empty() && self.spared.is_empty();
        while let Some(g) = stack.pop() {
            visible.push(g);
            let nbr = faces[g as usize].nbr;
            for (j, &h) in nbr[..d - 1].iter().enumerate() {
                let fh = &faces[h as usize];
                if fh.seen == stamp {
                    continue;
                }
                let beyond = dot(&fh.normal[..d], &p[..d]);
                let sees = if plain {
                    beyond < seen
                } else {
                    (beyond < seen || self.forced.contains(&h)) && !self.spared.contains(&h)
                };
                if sees {
                    faces[h as usize].seen = stamp;
                    faces[h as usize].beyond = beyond;
                    stack.push(h);
                } else {
                    horizon.push((g, j as u8, h, beyond));
                }
            }
        }
        let q = self.points.len() as u16;
        self.points.push(*p);
        self.raw.push(exact_scale(raw));
        self.ids.push(id);
        // The new faces: each horizon ridge joined to p, linked to the face beyond the ridge;
        // the seen face on the ridge's near side points to it instead (the walks below
        // find new faces through these links; [`Hull::undo`] puts them back).
        let first = self.faces.len() as u32;
        // Read once (the pushes below borrow all of `self`).
        let (x, reflex) = (self.x, self.reflex());
        for t in 0..self.horizon.len() {
            let (g, j, h, a) = self.horizon[t];
            let j = j as usize;
            let mut points = self.faces[g as usize].points;
            points[j] = q;
            let (ng, nh) = (
                &self.faces[g as usize].normal,
                &self.faces[h as usize].normal,
            );
            // Both dot products were taken as the seen faces were found: `nh·p` and `ng·p`.
            let b = -self.faces[g as usize].beyond;
            let mut normal = [0.0; MAX_DIM];
            for ((n, &x), &y) in normal[..d].iter_mut().zip(&ng[..d]).zip(&nh[..d]) {
                *n = a * x + b * y;
            }
            // p within a hair of the ridge's span (a near-duplicate of one of its points): a
            // and b are then tiny and their rounding tilts the combination; the face's
            // normal is taken from its points in double-double instead. Where the two
            // normals almost cancel (a sharp ridge), it is checked against its points.
            if self.on_plane
                && a.abs().max(b.abs()) < ON_PLANE
                && g != from
                && !self.forced.contains(&g)
            {
                return Err(Stuck::OnPlane(g));
            }
            let normal = if a.abs().max(b.abs()) < SLIVER {
                self.exact_normal(&points, &normal)?
            } else {
                let nn = dot(&normal[..d], &normal[..d]);
                if nn >= 1e-4 * (a * a + b * b) {
                    let inv = 1.0 / nn.sqrt();
                    normal.map(|v| v * inv)
                } else {
                    self.checked_normal(&points, normal)?
                }
            };
            let value = dot(&normal[..d], &x[..d]);
            if value.is_nan() || value < -1e-12 {
                return Err(Stuck::Degenerate);
            }
            let mut nbr = [u32::MAX; SLOTS];
            nbr[j] = h;
            let f = self.push_face(Face {
                points,
                nbr,
                normal,
                value: value.max(0.0),
                alive: true,
                seen: 0,
                beyond: 0.0,
            });
            // h now meets f where it met g; g points to f across the ridge.
            let slot = slot_of(&self.faces[h as usize].nbr, g, d).ok_or(Stuck::Horizon)?;
            self.faces[h as usize].nbr[slot] = f;
            self.faces[g as usize].nbr[j] = f;
            let apex = self.faces[h as usize].points[slot];
            if folds && dot(&normal[..d], &self.points[apex as usize][..d]) < -reflex {
                return Err(Stuck::Reflex(h));
            }
        }
        // The new faces' ridges through p, each shared by two of them: the one across f's
        // ridge without its point v is found by turning about the ridge's points other than
        // p and v (S, d − 3 of them) through the seen faces, from f's seen face g, until a
        // link leads out to a new face.
        let size = (self.horizon.len() * (d - 2) + 2).next_power_of_two();
        if self.ridges.len() < size {
            self.ridges.resize(size, (0, 0));
        }
        let mask = size - 1;
        while self.scatters.len() < self.points.len() {
            self.scatters.push(scatter(self.scatters.len() as u16));
        }
        // The fields the walks read, each borrowed once (not reloaded through `self` at every
        // step).
        let (faces, horizon, scatters, ridges) = (
            &mut self.faces[..],
            &self.horizon[..],
            &self.scatters[..],
            &mut self.ridges[..],
        );
        let visible = self.visible.len();
        for f in first..faces.len() as u32 {
            let (g, j, _, _) = horizon[(f - first) as usize];
            let j = j as usize;
            // The fingerprint of f's points but p; a ridge's is that less its point k.
            let points = faces[f as usize].points;
            let others = points[..d - 1]
                .iter()
                .fold(0u64, |s, &v| s.wrapping_add(scatters[v as usize]))
                .wrapping_sub(scatters[q as usize]);
            // g's point off the ridge f was made on (p's slot in f).
            let off = faces[g as usize].points[j];
            // The ridges through p not yet linked: f's turn links only its own slot k (no
            // walk of it ends at f itself), and the faces before it linked theirs already.
            let all = (1 << (d - 1)) - 1;
            let mut unlinked = u32::hits(&faces[f as usize].nbr, u32::MAX) & !(1 << j) & all;
            while unlinked != 0 {
                let k = unlinked.trailing_zeros() as usize;
                unlinked &= unlinked - 1;
                // In `cur`, the ridge crossed next is without `cur.points[out]`; `c` is the
                // point of cur on that ridge but not in S.
                let (mut cur, mut out) = (g, k);
                let mut c = off;
                let mut steps = 0;
                let (other, back) = loop {
                    let t = faces[cur as usize].nbr[out];
                    let fc = &faces[cur as usize];
                    if t >= first {
                        // A new face, made on the ridge without cur's `out`: its points are
                        // cur's with p there, so c keeps its slot.
                        break (t, slot_of(&fc.points, c, d).ok_or(Stuck::Horizon)?);
                    }
                    let ft = &faces[t as usize];
                    steps += 1;
                    if ft.seen != stamp || steps > visible {
                        return Err(Stuck::Horizon);
                    }
                    let came = slot_of(&ft.nbr, cur, d);
                    let leave = slot_of(&ft.points, c, d);
                    let (Some(came), Some(leave)) = (came, leave) else {
                        return Err(Stuck::Horizon);
                    };
                    c = ft.points[came];
                    cur = t;
                    out = leave;
                };
                if faces[other as usize].nbr[back] != u32::MAX || other == f {
                    return Err(Stuck::Horizon); // a third face on one ridge
                }
                // Each ridge through p must be met by two new faces, not four: where the
                // seen faces about S fall in two runs, both walks succeed. S's fingerprint
                // (a sum of its points' hashes) marks it once a pair.
                let print = others.wrapping_sub(scatters[points[k] as usize]);
                let mut at = (print >> 40) as usize & mask;
                loop {
                    let r = &mut ridges[at];
                    if r.1 != stamp {
                        *r = (print, stamp);
                        break;
                    }
                    if r.0 == print {
                        return Err(Stuck::Horizon); // S twice (or a fingerprint twice: safe)
                    }
                    at = (at + 1) & mask;
                }
                faces[f as usize].nbr[k] = other;
                faces[other as usize].nbr[back] = f;
            }
        }
        if folds && !self.forced.is_empty() && self.folded(first) {
            return Err(Stuck::Horizon);
        }
        for t in 0..self.visible.len() {
            let g = self.visible[t];
            self.faces[g as usize].alive = false;
            self.close(g);
        }
        debug_assert!(self.faces[first as usize..]
            .iter()
            .all(|f| f.nbr[..d - 1].iter().all(|&n| n != u32::MAX)));
        Ok(())
    }

    /// How far beyond a face a point must lie to see it ([`SEEN`], or [`Hull::coarse`]).
    fn seen(&self) -> f64 {
        if self.coarse > 0.0 {
            self.coarse
        } else {
            SEEN
        }
    }

    /// How far beyond a new face a neighbour's far point makes it a fold ([`REFLEX`], or
    /// [`Hull::coarse`]).
    fn reflex(&self) -> f64 {
        if self.coarse > 0.0 {
            self.coarse
        } else {
            REFLEX
        }
    }

    /// Whether two of the new faces (from `first` on) fold against each other: one's far
    /// point beyond the other by more than [`REFLEX`].
    fn folded(&self, first: u32) -> bool {
        let d = self.d;
        let faces = &self.faces[first as usize..];
        faces.iter().enumerate().any(|(t, f)| {
            f.nbr[..d - 1].iter().any(|&n| {
                n >= first && {
                    let other = &self.faces[n as usize];
                    let slot = other.nbr[..d - 1]
                        .iter()
                        .position(|&m| m == first + t as u32);
                    slot.is_some_and(|s| {
                        let apex = &self.points[other.points[s] as usize];
                        dot(&f.normal[..d], &apex[..d]) < -self.reflex()
                    })
                }
            })
        })
    }

    /// `normal` made unit, or derived again from the face's points when they lie off it
    /// beyond [`RESIDUAL`] (oriented as `normal`).
    fn checked_normal(&self, points: &[u16; SLOTS], normal: Vector) -> Result<Vector, Stuck> {
        let d = self.d;
        let nn = dot(&normal[..d], &normal[..d]).sqrt();
        if nn.is_finite() && nn > 0.0 {
            let unit = normal.map(|v| v / nn);
            let off = points[..d - 1]
                .iter()
                .map(|&v| dot(&unit[..d], &self.points[v as usize][..d]).abs())
                .fold(0.0, f64::max);
            if off <= RESIDUAL {
                return Ok(unit);
            }
        }
        self.exact_normal(points, &normal)
    }

    /// The unit normal of the face of `points`, from their generalised cross product in
    /// double-double on the points as the caller has them (as the proof's checker computes it), turned as `towards` (or towards
    /// x when that is 0).
    fn exact_normal(&self, points: &[u16; SLOTS], towards: &Vector) -> Result<Vector, Stuck> {
        let d = self.d;
        let mut rows: [&[f64]; FACE] = [&[]; FACE];
        for (row, &v) in rows.iter_mut().zip(&points[..d - 1]) {
            *row = &self.raw[v as usize][..d];
        }
        let rows = &rows[..d - 1];
        let lengths: f64 = rows.iter().map(|r| dot(r, r).sqrt()).product();
        // Float64 first where allowed, taken where the points lie on its plane and it is far
        // from vanishing; else double-double.
        let c = if self.float_normals {
            crate::general::proof::cross_f64(d, rows)
        } else {
            [0.0; 8]
        };
        let nc = dot(&c[..d], &c[..d]).sqrt();
        let on_plane = nc > 1e-12 * lengths
            && nc.is_finite()
            && points[..d - 1]
                .iter()
                .all(|&v| dot(&c[..d], &self.points[v as usize][..d]).abs() <= RESIDUAL * nc);
        let c = if on_plane {
            c
        } else {
            crate::general::proof::cross(d, rows)
        };
        let nc = dot(&c[..d], &c[..d]).sqrt();
        // Points this close to dependent make a face whose orientation the proof's checker
        // cannot trust (it asks 1e-24 of the rows' lengths' product): not a face.
        if !(nc > 1e-20 * lengths && nc.is_finite()) {
            return Err(Stuck::Degenerate);
        }
        let mut n = [0.0; MAX_DIM];
        for k in 0..d {
            n[k] = c[k] / nc;
        }
        let side = dot(&n[..d], &towards[..d]);
        if side < 0.0 || (side == 0.0 && dot(&n[..d], &self.x[..d]) < 0.0) {
            n = n.map(|v| -v);
        }
        Ok(n)
    }
}

/// `v` times the power of two that brings its largest entry near 1, as the proof's checker
/// scales its rows: exact, so a face's normal derived from such rows has the direction, to
/// the bit, of one from the rows as given, where those rows' products neither overflow nor
/// underflow. Generators of 1e-30 (a cross product of five about 1e-160, whose squared
/// length underflows to 0) made their faces degenerate.
fn exact_scale(v: &Vector) -> Vector {
    let mut out = [0.0; MAX_DIM];
    out.copy_from_slice(&crate::general::proof::pow2_scaled(v)[..MAX_DIM]);
    out
}

/// A point's hash (SplitMix64's finaliser): summed over a ridge's points, its fingerprint.
#[inline]
fn scatter(v: u16) -> u64 {
    let mut z = (u64::from(v) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The first of a face's `d − 1` slots that holds `v`, found without a branch a slot (the
/// walks of [`Hull::add`] ask this of every face they cross; which slot is a coin toss): a
/// row of eight compared at once, the hits a bit mask.
trait Slots: Copy + PartialEq {
    fn hits(slots: &[Self; SLOTS], v: Self) -> u32;
}

impl Slots for u16 {
    #[inline]
    #[cfg(target_arch = "x86_64")]
    fn hits(slots: &[u16; SLOTS], v: u16) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is in every x86-64; the load reads the 16 bytes of `slots`.
        unsafe {
            let row = _mm_loadu_si128(slots.as_ptr().cast());
            let eq = _mm_cmpeq_epi16(row, _mm_set1_epi16(v as i16));
            _mm_movemask_epi8(_mm_packs_epi16(eq, _mm_setzero_si128())) as u32
        }
    }

    #[inline]
    #[cfg(not(target_arch = "x86_64"))]
    fn hits(slots: &[u16; SLOTS], v: u16) -> u32 {
        each_hit(slots, v)
    }
}

impl Slots for u32 {
    #[inline]
    #[cfg(target_arch = "x86_64")]
    fn hits(slots: &[u32; SLOTS], v: u32) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is in every x86-64; the loads read the 32 bytes of `slots`.
        unsafe {
            let key = _mm_set1_epi32(v as i32);
            let lo = _mm_cmpeq_epi32(_mm_loadu_si128(slots.as_ptr().cast()), key);
            let hi = _mm_cmpeq_epi32(_mm_loadu_si128(slots.as_ptr().add(4).cast()), key);
            let eq = _mm_packs_epi16(_mm_packs_epi32(lo, hi), _mm_setzero_si128());
            _mm_movemask_epi8(eq) as u32
        }
    }

    #[inline]
    #[cfg(not(target_arch = "x86_64"))]
    fn hits(slots: &[u32; SLOTS], v: u32) -> u32 {
        each_hit(slots, v)
    }
}

/// The hits of `v` among `slots`, slot by slot (what the vector compares find, and all that
/// other targets have).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn each_hit<T: Copy + PartialEq>(slots: &[T; SLOTS], v: T) -> u32 {
    (0..SLOTS).fold(0u32, |m, i| m | u32::from(slots[i] == v) << i)
}

#[inline]
fn slot_of<T: Slots>(slots: &[T; SLOTS], v: T, d: usize) -> Option<usize> {
    let hits = T::hits(slots, v) & ((1 << (d - 1)) - 1);
    (hits != 0).then(|| hits.trailing_zeros() as usize)
}

/// The inverse of the `d × d` matrix of rows `rows`, by Gauss–Jordan elimination with partial
/// pivoting; `None` when a pivot vanishes (relative to the unit rows).
fn invert(d: usize, rows: &[Vector]) -> Option<[Vector; MAX_DIM]> {
    let mut a = [[0.0; 2 * MAX_DIM]; MAX_DIM];
    for r in 0..d {
        a[r][..d].copy_from_slice(&rows[r][..d]);
        a[r][d + r] = 1.0;
    }
    for col in 0..d {
        let p = (col..d).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if !(a[p][col].abs() > 1e-14) {
            return None;
        }
        a.swap(p, col);
        let inv = 1.0 / a[col][col];
        for v in a[col][..2 * d].iter_mut() {
            *v *= inv;
        }
        let pivot = a[col];
        for (r, row) in a[..d].iter_mut().enumerate() {
            let f = row[col];
            if r != col && f != 0.0 {
                for (v, &pv) in row[..2 * d].iter_mut().zip(&pivot[..2 * d]) {
                    *v -= f * pv;
                }
            }
        }
    }
    let mut out = [[0.0; MAX_DIM]; MAX_DIM];
    for r in 0..d {
        out[r][..d].copy_from_slice(&a[r][d..2 * d]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A float in [−1, 1).
    fn signed(rng: &mut Rng) -> f64 {
        2.0 * rng.unit() as f64 - 1.0
    }

    fn unit(d: usize, v: Vector) -> Vector {
        let n = dot(&v[..d], &v[..d]).sqrt();
        v.map(|a| a / n)
    }

    /// x = e₀ and d unit points whose cone holds it: e₀ + e_k (k ≥ 1) and e₀ − Σ e_k.
    fn around_e0(d: usize) -> (Vector, Vec<Vector>) {
        let mut x = [0.0; MAX_DIM];
        x[0] = 1.0;
        let start = (0..d)
            .map(|k| {
                let mut v = [0.0; MAX_DIM];
                v[0] = 1.0;
                for (a, va) in v[1..d].iter_mut().enumerate() {
                    *va = if k == 0 {
                        -1.0
                    } else {
                        f64::from(u8::from(a + 1 == k))
                    };
                }
                unit(d, v)
            })
            .collect();
        (x, start)
    }

    /// A random unit point on x = e₀'s side.
    fn random_point(rng: &mut Rng, d: usize) -> Vector {
        unit(
            d,
            std::array::from_fn(|a| match a {
                0 => 0.2 + rng.unit() as f64,
                a if a < d => 2.0 * signed(rng),
                _ => 0.0,
            }),
        )
    }

    /// The live face `p` lies farthest beyond, and how far (negative: beyond).
    fn farthest_beyond(hull: &Hull, p: &Vector) -> (u32, f64) {
        let d = hull.d;
        let beyond = |f: u32| dot(&hull.faces[f as usize].normal[..d], &p[..d]);
        let from = (0..hull.faces.len() as u32)
            .filter(|&f| hull.faces[f as usize].alive)
            .min_by(|&a, &b| beyond(a).total_cmp(&beyond(b)))
            .expect("a live face");
        (from, beyond(from))
    }

    /// The hull's invariants: every live face's neighbours alive and linked back, sharing its
    /// points but one; its points on its unit plane and x on its positive side; no point
    /// taken beyond any live face (by more than rounding).
    fn check(h: &Hull) {
        let d = h.d;
        for (i, f) in h.faces.iter().enumerate().filter(|(_, f)| f.alive) {
            let n = dot(&f.normal[..d], &f.normal[..d]).sqrt();
            assert!((n - 1.0).abs() < 1e-12, "face {i}: normal of length {n}");
            assert!(
                dot(&f.normal[..d], &h.x[..d]) > 0.0,
                "face {i}: x not on its side"
            );
            for &p in &f.points[..d - 1] {
                let off = dot(&f.normal[..d], &h.points[p as usize][..d]);
                assert!(
                    off.abs() < 1e-9,
                    "face {i}: point {p} off its plane by {off}"
                );
            }
            for j in 0..d - 1 {
                let g = &h.faces[f.nbr[j] as usize];
                assert!(g.alive, "face {i}: neighbour {} replaced", f.nbr[j]);
                let back = g.nbr[..d - 1].iter().position(|&m| m == i as u32);
                let s = back.unwrap_or_else(|| panic!("face {i}: not linked back"));
                let mut ridge: Vec<u16> = (0..d - 1)
                    .filter(|&k| k != j)
                    .map(|k| f.points[k])
                    .collect();
                let mut other: Vec<u16> = (0..d - 1)
                    .filter(|&k| k != s)
                    .map(|k| g.points[k])
                    .collect();
                ridge.sort_unstable();
                other.sort_unstable();
                assert_eq!(ridge, other, "face {i} and its neighbour across slot {j}");
            }
            for (t, p) in h.points.iter().enumerate() {
                let beyond = dot(&f.normal[..d], &p[..d]);
                assert!(beyond > -1e-9, "point {t} beyond face {i} by {beyond}");
            }
        }
    }

    /// Random points around x = e₀ added beneath–beyond in R³ … R⁷, near-duplicates of
    /// points taken among them: after every add (or refused add) the hull keeps its
    /// invariants, a refused add leaves it as it was, and few are refused.
    #[test]
    fn adds_keep_a_closed_convex_cycle_of_faces() {
        let mut rng = Rng::new(43);
        let mut hull = Hull::default();
        let (mut added, mut refused) = (0, 0);
        for d in 3..=MAX_DIM {
            for _ in 0..6 {
                let (x, start) = around_e0(d);
                let ids: Vec<u32> = (0..d as u32).collect();
                hull.start(d, &x, &start, &start, &ids).unwrap();
                check(&hull);
                for id in d as u32..d as u32 + 60 {
                    let p = match rng.below(4) {
                        // A near-duplicate of a point taken.
                        0 => {
                            let q = hull.points[rng.below(hull.points.len())];
                            unit(
                                d,
                                std::array::from_fn(|a| {
                                    if a < d {
                                        q[a] + 1e-9 * signed(&mut rng)
                                    } else {
                                        0.0
                                    }
                                }),
                            )
                        }
                        _ => random_point(&mut rng, d),
                    };
                    let (from, beyond) = farthest_beyond(&hull, &p);
                    if beyond >= -SEEN {
                        continue; // inside the hull
                    }
                    let (faces, points) = (hull.faces.len(), hull.points.len());
                    let live: Vec<u32> = (0..faces as u32)
                        .filter(|&f| hull.faces[f as usize].alive)
                        .collect();
                    added += 1;
                    if hull.add(&p, &p, id, from).is_err() {
                        refused += 1;
                        assert_eq!((hull.faces.len(), hull.points.len()), (faces, points));
                        let after: Vec<u32> = (0..faces as u32)
                            .filter(|&f| hull.faces[f as usize].alive)
                            .collect();
                        assert_eq!(live, after, "a refused add changed the faces");
                    }
                    check(&hull);
                }
            }
        }
        // Refusing is safe but costs the search its answer: rare, here a few near-duplicates.
        assert!(
            added > 1000 && refused * 50 < added,
            "{refused} of {added} adds refused"
        );
    }

    /// A grown hull taken to another point inside it ([`Hull::retarget`]) is that point's
    /// hull: its invariants hold around the new point, every live face's value is the new
    /// point's distance to its plane, the faces not yet popped are every live face (popped
    /// in order of value), and adds go on from it. A point outside, or within the floor of a
    /// face, is refused, the hull left as it was.
    #[test]
    fn a_hull_taken_to_another_point_inside_is_that_points_hull() {
        let mut rng = Rng::new(17);
        let mut hull = Hull::default();
        let (mut taken, mut refused) = (0, 0);
        for d in 3..=MAX_DIM {
            for _ in 0..8 {
                let (x, start) = around_e0(d);
                let ids: Vec<u32> = (0..d as u32).collect();
                hull.start(d, &x, &start, &start, &ids).unwrap();
                let mut id = d as u32;
                for round in 0..4 {
                    for _ in 0..25 {
                        let p = random_point(&mut rng, d);
                        let (from, beyond) = farthest_beyond(&hull, &p);
                        if beyond < -SEEN && hull.add(&p, &p, id, from).is_ok() {
                            id += 1;
                        }
                    }
                    // Pop a few, as a search does, before moving on.
                    for _ in 0..rng.below(4) {
                        hull.pop_nearest();
                    }
                    if hull.irregular != 0 {
                        break;
                    }
                    // The next point: a positive combination of the hull's points (inside
                    // it), or its opposite (outside), or a point on a face's plane.
                    let weights: Vec<f64> = hull.points.iter().map(|_| rng.unit() as f64).collect();
                    let mut y = [0.0; MAX_DIM];
                    for (w, q) in weights.iter().zip(&hull.points) {
                        for a in 0..d {
                            y[a] += w * q[a];
                        }
                    }
                    let y = unit(d, y);
                    let before: Vec<(u64, bool)> = hull
                        .faces
                        .iter()
                        .map(|f| (f.value.to_bits(), f.alive))
                        .collect();
                    let on_face = hull.live().next().expect("a live face").points[0];
                    let (outside, on) = (y.map(|v| -v), hull.points[on_face as usize]);
                    for bad in [outside, on] {
                        assert!(
                            !hull.retarget(&bad, 1e-10),
                            "d = {d}: took a point not inside"
                        );
                        let after: Vec<(u64, bool)> = hull
                            .faces
                            .iter()
                            .map(|f| (f.value.to_bits(), f.alive))
                            .collect();
                        assert_eq!(before, after, "d = {d}: a refused point changed the hull");
                        refused += 1;
                    }
                    let least = hull
                        .live()
                        .map(|f| dot(&f.normal[..d], &y[..d]))
                        .fold(1.0, f64::min);
                    if !(least >= 1e-10) {
                        continue;
                    }
                    assert!(hull.retarget(&y, 1e-10), "d = {d}, round {round}");
                    taken += 1;
                    check(&hull);
                    assert_eq!(hull.x, y);
                    for f in hull.live() {
                        assert_eq!(f.value.to_bits(), dot(&f.normal[..d], &y[..d]).to_bits());
                    }
                    let mut live: Vec<(u64, u32)> = (0..hull.faces.len() as u32)
                        .filter(|&f| hull.faces[f as usize].alive)
                        .map(|f| (ordered(hull.faces[f as usize].value), f))
                        .collect();
                    live.sort_unstable();
                    let mut popped = Vec::new();
                    while let Some(f) = hull.pop_nearest() {
                        popped.push((ordered(hull.faces[f as usize].value), f));
                    }
                    assert_eq!(popped, live, "d = {d}: the faces not yet popped");
                    // Taken again (every face open once more), it grows on.
                    assert!(hull.retarget(&y, 1e-10));
                }
                check(&hull);
            }
        }
        assert!(
            taken > 60 && refused > 100,
            "{taken} taken, {refused} refused"
        );
    }

    /// An add made as the count of marks runs out and starts again makes the faces it makes
    /// with the count far from its end: the same points, links and normals, bit for bit.
    #[test]
    fn the_marks_running_out_change_no_add() {
        let grow = |first_stamp: u32| {
            let mut rng = Rng::new(5);
            let mut hull = Hull::default();
            let mut made = Vec::new();
            for d in [3, 6, MAX_DIM] {
                let (x, start) = around_e0(d);
                let ids: Vec<u32> = (0..d as u32).collect();
                hull.start(d, &x, &start, &start, &ids).unwrap();
                hull.stamp = first_stamp;
                for id in d as u32..d as u32 + 12 {
                    let p = random_point(&mut rng, d);
                    let (from, beyond) = farthest_beyond(&hull, &p);
                    if beyond < -SEEN {
                        made.push(u64::from(hull.add(&p, &p, id, from).is_ok()));
                    }
                }
                check(&hull);
                for f in &hull.faces {
                    made.extend(f.points.map(u64::from));
                    made.extend(f.nbr.map(u64::from));
                    made.extend(f.normal.map(f64::to_bits));
                    made.push(u64::from(f.alive));
                }
            }
            made
        };
        assert_eq!(grow(0), grow(u32::MAX - 3));
    }

    /// The nearest face, found by a pass over the open faces and, past [`OPEN_MAX`] of them,
    /// by a heap: always the least value among the live faces not popped (the least index
    /// among ties), as a search over every face finds it, in a hull grown far past the switch.
    /// A face's slots compared at once find what a compare slot by slot finds: every slot,
    /// ties, values past 2^15 and 2^31 (signed lanes in the vector compare), and the slots
    /// past d − 1 never reported.
    #[test]
    fn slots_compared_at_once_are_each_slot_compared() {
        let mut rng = Rng::new(11);
        for _ in 0..20_000 {
            // A few values, so that ties and misses both come up; some past the sign bit.
            let pick = |rng: &mut Rng, top: u64| [0, 1, 2, top - 1, top / 2 + 3][rng.below(5)];
            let short: [u16; SLOTS] =
                std::array::from_fn(|_| pick(&mut rng, u16::MAX as u64 + 1) as u16);
            let long: [u32; SLOTS] =
                std::array::from_fn(|_| pick(&mut rng, u32::MAX as u64 + 1) as u32);
            let (a, b) = (short[rng.below(SLOTS)], long[rng.below(SLOTS)]);
            assert_eq!(u16::hits(&short, a), each_hit(&short, a));
            assert_eq!(u16::hits(&short, a ^ 0x4000), each_hit(&short, a ^ 0x4000));
            assert_eq!(u32::hits(&long, b), each_hit(&long, b));
            assert_eq!(u32::hits(&long, b ^ 1 << 20), each_hit(&long, b ^ 1 << 20));
            for d in 2..=MAX_DIM {
                let first = (0..d - 1).find(|&i| short[i] == a);
                assert_eq!(slot_of(&short, a, d), first);
                let first = (0..d - 1).find(|&i| long[i] == b);
                assert_eq!(slot_of(&long, b, d), first);
            }
        }
    }

    #[test]
    fn the_nearest_face_is_the_least_live_one_not_popped() {
        let mut rng = Rng::new(7);
        let d = 6;
        let mut hull = Hull::default();
        let (x, start) = around_e0(d);
        let ids: Vec<u32> = (0..d as u32).collect();
        hull.start(d, &x, &start, &start, &ids).unwrap();
        let mut popped = vec![false; 0];
        let least = |hull: &Hull, popped: &[bool]| {
            (0..hull.faces.len())
                .filter(|&f| hull.faces[f].alive && !popped.get(f).copied().unwrap_or(false))
                .min_by(|&a, &b| {
                    let key = |f: usize| (ordered(hull.faces[f].value), f);
                    key(a).cmp(&key(b))
                })
                .map(|f| f as u32)
        };
        let mut id = d as u32;
        let (mut pops, mut after, mut within) = (0, 0, 0);
        while after < 300 && id < 20_000 {
            after += usize::from(hull.heaped);
            let p = random_point(&mut rng, d);
            let (from, beyond) = farthest_beyond(&hull, &p);
            if beyond < -SEEN {
                let _ = hull.add(&p, &p, id, from);
                id += 1;
            }
            popped.resize(hull.faces.len(), false);
            assert_eq!(hull.nearest(), least(&hull, &popped));
            if rng.below(3) == 0 {
                let want = least(&hull, &popped);
                assert_eq!(hull.pop_nearest(), want);
                if let Some(f) = want {
                    popped[f as usize] = true;
                    pops += 1;
                }
            }
            // The faces within a bound (the m-th least value, m up to 4), taken at once: the
            // pops one at a time would give them in that order; put back, the hull is as it
            // was.
            if rng.below(5) == 0 {
                let mut want: Vec<u32> = (0..hull.faces.len() as u32)
                    .filter(|&f| hull.faces[f as usize].alive && !popped[f as usize])
                    .collect();
                want.sort_by_key(|&f| (ordered(hull.faces[f as usize].value), f));
                let Some(&last) = want.get(rng.below(4).min(want.len().max(1) - 1)) else {
                    continue;
                };
                let bound = hull.faces[last as usize].value;
                want.retain(|&f| hull.faces[f as usize].value <= bound);
                for &f in &want {
                    popped[f as usize] = true;
                }
                let mut got = Vec::new();
                hull.pop_within(bound, &mut got);
                assert_eq!(got, want);
                within += usize::from(got.len() > 1);
                if rng.below(2) == 0 {
                    hull.unpop(&got);
                    for &f in &got {
                        popped[f as usize] = false;
                    }
                }
                assert_eq!(hull.nearest(), least(&hull, &popped));
                // Ties go to the least index: the faces not yet popped stay in the order made.
                let open = hull.open_faces.iter().zip(&hull.open_keys);
                let live: Vec<u32> = open.filter(|&(_, &k)| k != GONE).map(|(&f, _)| f).collect();
                assert!(live.windows(2).all(|w| w[0] < w[1]));
            }
        }
        assert!(
            after == 300 && pops > 100 && within > 20,
            "{pops} pops, {within} takes of several, {after} steps heaped"
        );
    }
}
