//! The general cone test (docs/contract-general.md): any number of generators (up to 256) in R³ or
//! R⁶, in float64. Where the planar enumeration (`cpu`, `shaders/cone_test.wgsl`) tries a
//! fixed table of subsets, this engine works on the cone itself:
//!
//! - membership, witness, nearest certificate and the distance outside come from an
//!   active-set non-negative least squares (Lawson–Hanson: finitely many steps; its residual
//!   is the nearest certificate, its passive set an independent witness);
//! - the inside margin is the minimum over the cone's facets, which are the extreme rays of
//!   the dual cone `{y : y·wᵢ ≥ 0}`, enumerated by double description from a simplicial start;
//! - every witness, certificate and facet is checked in float64 against every generator
//!   before it is reported ([`check`]); a verdict without a passing proof is uncertain.
//!
//! Cases of a batch sit back to back in one [`GeneralBatch`]; answers are
//! [`GeneralOutcome`]s, fixed-size (no allocation per case).

pub(crate) mod check;
pub(crate) mod circular;
mod complete;
pub(crate) mod grasp;
pub(crate) mod host;
pub(crate) mod hull;
pub(crate) mod linalg;
pub(crate) mod min_norm;
pub(crate) mod proof;
pub(crate) mod sample;
pub(crate) mod search;
#[cfg(test)]
mod search_tests;
pub(crate) mod solver;
pub(crate) mod tolerance;
pub(crate) mod types;

use crate::{Error, Verdict};

/// Most generators a general case may hold (docs/contract-general.md).
pub const MAX_GENERAL_GENERATORS: usize = 256;

/// Dimensions the general test takes: R³ (planar wrenches) and R⁶ (spatial wrenches).
pub(crate) const DIMS: [usize; 2] = [3, 6];

/// The dimension of a lifted grasp cone ([`grasp`]): R⁶'s wrenches with one coordinate in
/// front. Only [`GeneralBatch::push_grasp`] makes such cases; the public test stays in
/// [`DIMS`].
pub(crate) const GRASP_DIM: usize = 7;

/// The largest dimension the engine runs in: arrays of this length hold a vector of any
/// case (R³, R⁶, and the lifted grasp cones of R⁷); the first `dim` entries count.
pub const MAX_DIM: usize = GRASP_DIM;

pub(crate) use tolerance::EPS;

/// The margin reported when the cone is all of R^d, and the largest ever reported.
pub const GENERAL_MARGIN_CAP: f64 = 1000.0;

/// The default need of dimension `d`: the nominal weight, `(0, 1, 0)` or `(0, 0, 1, 0, 0, 0)`.
pub fn default_need(d: usize) -> &'static [f64] {
    if d == 6 {
        &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    } else {
        &[0.0, 1.0, 0.0]
    }
}

/// A set of generator indices (< 256): the generators on a facet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GenSet(pub [u64; 4]);

impl GenSet {
    /// Adds index `i`.
    #[inline]
    pub fn insert(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }

    /// Whether index `i` is in the set.
    #[inline]
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0[i >> 6] >> (i & 63) & 1 == 1
    }

    /// Elements in both sets.
    #[inline]
    pub(crate) fn and(&self, other: &GenSet) -> GenSet {
        GenSet(std::array::from_fn(|k| self.0[k] & other.0[k]))
    }

    /// Whether every element of `self` is in `other`.
    #[inline]
    pub(crate) fn is_subset(&self, other: &GenSet) -> bool {
        (0..4).all(|k| self.0[k] & !other.0[k] == 0)
    }

    /// How many indices the set holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// The indices, ascending (word by word, lowest set bit first: as many steps as
    /// elements, not 256).
    pub fn iter(&self) -> impl Iterator<Item = u32> + Clone + std::fmt::Debug {
        GenSetIter {
            words: self.0,
            k: 0,
        }
    }
}

/// The indices of a [`GenSet`], ascending.
#[derive(Clone, Debug)]
struct GenSetIter {
    words: [u64; 4],
    k: usize,
}

impl Iterator for GenSetIter {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.k < 4 {
            let w = self.words[self.k];
            if w != 0 {
                self.words[self.k] = w & (w - 1);
                return Some(self.k as u32 * 64 + w.trailing_zeros());
            }
            self.k += 1;
        }
        None
    }
}

/// What binds: a plane through the origin with every generator on its side (its unit
/// `normal` points into the cone) and the generators lying on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Facet {
    /// Unit normal, inward (`normal·wᵢ ≥ 0`); the first `d` entries count.
    pub normal: [f64; MAX_DIM],
    /// The generators on the plane (zero generators left out).
    pub generators: GenSet,
}

/// The answer of the general test to one case (docs/contract-general.md), in the caller's units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeneralOutcome {
    /// Supported only with a witness, unsupported only with a certificate.
    pub verdict: Verdict,
    /// The case's dimension, 3 or 6.
    pub dim: u8,
    /// Generators in the witness (at most `dim`; 0 for the empty witness of need = 0).
    pub witness_len: u8,
    /// Not supported: the generators of the nearest point of C to the need, whose weights
    /// the witness's arrays then hold (`Π_C(need) ≈ Σ weights[k]·generators[indices[k]]`,
    /// not checked: the grasp metric checks what it reads of it); 0 when supported.
    pub nearest_len: u8,
    /// Witness generator indices, ascending; the first `witness_len` count (not supported:
    /// the nearest point's, the first `nearest_len`).
    pub witness_indices: [u32; MAX_DIM],
    /// Witness weights (≥ 0): `need ≈ Σ weights[k]·generators[indices[k]]`.
    pub witness_weights: [f64; MAX_DIM],
    /// The nearest certificate, a unit vector (unsupported only); the first `dim` count.
    pub certificate: Option<[f64; MAX_DIM]>,
    /// Signed distance from the need to the cone's boundary, at most 1000: the bound from
    /// above (attained by `facet` inside).
    pub margin: f64,
    /// The bound from below (docs/contract-general.md §9): inside, the least distance from the need
    /// to the faces of an inner hull of generators proven closed (or the whole facet set
    /// proven complete); equal to `margin` on every other answer. `margin_checked` exactly
    /// when the two agree within tolerance.
    pub margin_lower: f64,
    /// The cone is all of R^d: the margin is the cap.
    pub capped: bool,
    /// Inside: the facet attaining the margin; outside: the certificate's plane; else none.
    pub facet: Option<Facet>,
    /// The margin is proven (docs/contract-general.md §8): inside, the facet set it is the least over
    /// was proven complete; true on every other answer. False: the margin is the least
    /// over the checked facets found, an upper bound.
    pub margin_checked: bool,
}

impl Default for GeneralOutcome {
    fn default() -> Self {
        GeneralOutcome {
            verdict: Verdict::Uncertain,
            dim: 3,
            witness_len: 0,
            nearest_len: 0,
            witness_indices: [0; MAX_DIM],
            witness_weights: [0.0; MAX_DIM],
            certificate: None,
            margin: 0.0,
            margin_lower: 0.0,
            capped: false,
            facet: None,
            margin_checked: true,
        }
    }
}

impl GeneralOutcome {
    /// The witness's indices and weights, when supported.
    pub fn witness(&self) -> Option<(&[u32], &[f64])> {
        let n = self.witness_len as usize;
        (self.verdict == Verdict::Supported)
            .then(|| (&self.witness_indices[..n], &self.witness_weights[..n]))
    }

    /// The answer to the need `r·x` (`r ≥ 1`, finite) from this answer to `x`: a cone is
    /// closed under positive scaling, so the verdict, the certificate, the facet and the
    /// checks stand, and every distance and weight scales by r. A margin at the cap stays
    /// there (with r ≥ 1 nothing the cap cut off comes back under it).
    pub fn scaled(&self, r: f64) -> GeneralOutcome {
        debug_assert!(r >= 1.0 && r.is_finite(), "scaled by {r}");
        let distance = |m: f64| {
            if m >= GENERAL_MARGIN_CAP {
                m
            } else {
                (m * r).min(GENERAL_MARGIN_CAP)
            }
        };
        GeneralOutcome {
            margin: distance(self.margin),
            margin_lower: distance(self.margin_lower),
            witness_weights: self.witness_weights.map(|w| w * r),
            ..*self
        }
    }

    /// How two answers to one case differ beyond tolerance, if they do: the verdicts
    /// (unless one is uncertain) or the margins by more than 1e-6 relative to
    /// max(1, |need|, |m|). How the GPU is checked against the CPU.
    pub fn disagreement(&self, other: &GeneralOutcome, need_norm: f64) -> Option<String> {
        let (a, b) = (self.verdict, other.verdict);
        if a != b && a != Verdict::Uncertain && b != Verdict::Uncertain {
            return Some(format!("verdict {} vs {}", a.as_str(), b.as_str()));
        }
        let scale = need_norm.max(self.margin.abs()).max(other.margin.abs());
        ((self.margin - other.margin).abs() > 1e-6 * scale)
            .then(|| format!("margin {} vs {}", self.margin, other.margin))
    }
}

/// One case of the general test, borrowed from a [`GeneralBatch`] or the caller's arrays.
#[derive(Clone, Copy, Debug)]
pub struct GeneralCase<'a> {
    /// 3 or 6.
    pub dim: usize,
    /// `K·dim` numbers: generator `i` is `generators[i*dim..(i+1)*dim]`.
    pub generators: &'a [f64],
    /// `dim` numbers.
    pub need: &'a [f64],
}

impl<'a> GeneralCase<'a> {
    /// A case from its parts, checked: dimension 3 or 6, whole generators, at most 256 of
    /// them, every number finite.
    pub fn new(dim: usize, generators: &'a [f64], need: &'a [f64]) -> Result<Self, Error> {
        validate(dim, generators, need)?;
        Ok(GeneralCase {
            dim,
            generators,
            need,
        })
    }

    /// Generators held.
    pub fn len(&self) -> usize {
        self.generators.len() / self.dim
    }

    /// Whether the case has no generator.
    pub fn is_empty(&self) -> bool {
        self.generators.is_empty()
    }

    /// Generator `i`.
    pub fn generator(&self, i: usize) -> &'a [f64] {
        &self.generators[i * self.dim..(i + 1) * self.dim]
    }
}

/// Whether every number of `v` is finite: one pass without branches (`x·0` is 0 for a
/// finite `x`, NaN otherwise), for checking many numbers at once.
pub fn all_finite(v: &[f64]) -> bool {
    let mut acc = [0.0f64; 4];
    let mut chunks = v.chunks_exact(4);
    for c in &mut chunks {
        for l in 0..4 {
            acc[l] += c[l] * 0.0;
        }
    }
    let tail: f64 = chunks.remainder().iter().map(|x| x * 0.0).sum();
    acc.iter().sum::<f64>() + tail == 0.0
}

fn validate(dim: usize, generators: &[f64], need: &[f64]) -> Result<(), Error> {
    if !DIMS.contains(&dim) {
        return Err(Error::Input(format!("dimension {dim}: must be 3 or 6")));
    }
    if need.len() != dim {
        return Err(Error::Input(format!(
            "the need has {} numbers, the generators {dim}",
            need.len()
        )));
    }
    if !generators.len().is_multiple_of(dim) {
        return Err(Error::Input(format!(
            "{} numbers do not make whole generators of {dim}",
            generators.len()
        )));
    }
    let k = generators.len() / dim;
    if k > MAX_GENERAL_GENERATORS {
        return Err(Error::TooManyGenerators {
            count: k,
            max: MAX_GENERAL_GENERATORS,
        });
    }
    if !all_finite(generators) {
        let i = generators.iter().position(|v| !v.is_finite()).unwrap_or(0);
        return Err(Error::NonFinite(format!("generator {}", i / dim)));
    }
    if !need.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFinite("need".into()));
    }
    Ok(())
}

/// General cases back to back in one buffer: case `i` is its need and its generators, at
/// `spans[i]` in `values`. Cases that share a cone ([`GeneralBatch::push_need`]) share its
/// generators there: a scene's needs do not copy its cone once each. Cleared and refilled,
/// it keeps its buffers.
#[derive(Clone, Debug, Default)]
pub struct GeneralBatch {
    spans: Vec<Span>,
    values: Vec<f64>,
}

/// Where a case's numbers are in [`GeneralBatch`]'s values.
#[derive(Clone, Copy, Debug)]
struct Span {
    dim: u8,
    /// Its need's first number.
    need: u32,
    /// Its generators' numbers, `generators..end`.
    generators: u32,
    end: u32,
}

impl GeneralBatch {
    /// Appends a case, checked as [`GeneralCase::new`] checks it; returns its index.
    pub fn push(&mut self, dim: usize, generators: &[f64], need: &[f64]) -> Result<u32, Error> {
        validate(dim, generators, need)?;
        let at = self.values.len() as u32;
        self.values.extend_from_slice(need);
        self.values.extend_from_slice(generators);
        Ok(self.push_span(Span {
            dim: dim as u8,
            need: at,
            generators: at + dim as u32,
            end: self.values.len() as u32,
        }))
    }

    /// Appends a case of the last case's generators and the need `need`, checked as
    /// [`GeneralBatch::push`] checks it; returns its index.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] where there is no last case, it is a grasp's, or `need` is not of its
    /// dimension;
    /// [`Error::NonFinite`] for a need not finite.
    pub fn push_need(&mut self, need: &[f64]) -> Result<u32, Error> {
        let Some(&last) = self.spans.last() else {
            return Err(Error::Input("a need without a cone before it".into()));
        };
        if !DIMS.contains(&(last.dim as usize)) {
            // A lifted grasp's need is its own (`push_grasp`).
            return Err(Error::Input("a need after a grasp".into()));
        }
        if need.len() != last.dim as usize {
            return Err(Error::Input(format!(
                "the need has {} numbers, not {}",
                need.len(),
                last.dim
            )));
        }
        if !need.iter().all(|v| v.is_finite()) {
            return Err(Error::NonFinite("need".into()));
        }
        let at = self.values.len() as u32;
        self.values.extend_from_slice(need);
        Ok(self.push_span(Span { need: at, ..last }))
    }

    fn push_span(&mut self, span: Span) -> u32 {
        self.spans.push(span);
        self.spans.len() as u32 - 1
    }

    /// Room for `cases` more cases of `values` numbers in all (needs and generators): one
    /// allocation where a chunk's cases would otherwise grow the buffers step by step.
    pub fn reserve(&mut self, cases: usize, values: usize) {
        self.spans.reserve(cases);
        self.values.reserve(values);
    }

    /// Cases held.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no case is held.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Forgets every case, keeping the buffers.
    pub fn clear(&mut self) {
        self.spans.clear();
        self.values.clear();
    }

    /// Appends the lifted cone of a grasp (`grasp::lift`): the need `(1, 0, …, 0)` and
    /// the generators `(s, wᵢ)` of R⁷ for the `K` wrenches `wrenches` of R⁶ (6 numbers
    /// each, 1 ≤ K ≤ 256, finite), `s` their largest length; returns its index.
    pub fn push_grasp(&mut self, wrenches: &[f64]) -> Result<u32, Error> {
        validate(6, wrenches, &[0.0; 6])?;
        if wrenches.is_empty() {
            return Err(Error::Input("a grasp needs at least one wrench".into()));
        }
        let at = self.values.len() as u32;
        grasp::lift(wrenches, &mut self.values);
        Ok(self.push_span(Span {
            dim: GRASP_DIM as u8,
            need: at,
            generators: at + GRASP_DIM as u32,
            end: self.values.len() as u32,
        }))
    }

    /// Where each run of cases that share one cone ([`GeneralBatch::push_need`]) starts:
    /// ascending, the first 0 (none for an empty batch).
    pub(crate) fn runs(&self) -> Vec<usize> {
        let shares = |a: &Span, b: &Span| (a.generators, a.end) == (b.generators, b.end);
        (0..self.len())
            .filter(|&i| i == 0 || !shares(&self.spans[i - 1], &self.spans[i]))
            .collect()
    }

    /// Case `i`.
    pub fn get(&self, i: usize) -> GeneralCase<'_> {
        let Span {
            dim,
            need,
            generators,
            end,
        } = self.spans[i];
        GeneralCase {
            dim: dim as usize,
            need: &self.values[need as usize..need as usize + dim as usize],
            generators: &self.values[generators as usize..end as usize],
        }
    }

    /// Every case, in order.
    pub fn iter(&self) -> impl Iterator<Item = GeneralCase<'_>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

#[cfg(test)]
mod batch_tests {
    use super::*;

    /// Cases pushed with a shared cone read back as if each had been pushed whole, among
    /// cases of their own and lifted grasps; a need that cannot share is refused, and the
    /// batch is left as it was.
    #[test]
    fn needs_that_share_a_cone_read_back_as_whole_cases() {
        let g3 = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, -1.0, -1.0, 1.0];
        let g6: Vec<f64> = (0..24).map(|v| (v as f64 * 0.37).sin()).collect();
        let (mut shared, mut whole) = (GeneralBatch::default(), GeneralBatch::default());
        assert!(matches!(
            shared.push_need(&[0.0, 0.0, 1.0]),
            Err(Error::Input(_))
        ));
        let needs3 = [[0.0, 0.0, 1.0], [0.1, -0.2, 2.0], [5.0, 5.0, -1.0]];
        let needs6 = [
            [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        ];
        shared.push(3, &g3, &needs3[0]).unwrap();
        for n in &needs3[1..] {
            shared.push_need(n).unwrap();
        }
        shared.push_grasp(&g6).unwrap();
        let mut lifted = [0.0; GRASP_DIM];
        lifted[0] = 1.0;
        assert!(matches!(shared.push_need(&lifted), Err(Error::Input(_))));
        shared.push(6, &g6, &needs6[0]).unwrap();
        shared.push_need(&needs6[1]).unwrap();
        for n in &needs3 {
            whole.push(3, &g3, n).unwrap();
        }
        whole.push_grasp(&g6).unwrap();
        for n in &needs6 {
            whole.push(6, &g6, n).unwrap();
        }
        let before = shared.len();
        assert!(matches!(shared.push_need(&[0.0; 3]), Err(Error::Input(_))));
        assert!(matches!(
            shared.push_need(&[f64::NAN, 0.0, 0.0, 0.0, 0.0, 1.0]),
            Err(Error::NonFinite(_))
        ));
        assert_eq!(shared.len(), before);
        assert_eq!(shared.len(), whole.len());
        for (a, b) in shared.iter().zip(whole.iter()) {
            assert_eq!((a.dim, a.need, a.generators), (b.dim, b.need, b.generators));
        }
        shared.clear();
        assert!(shared.is_empty());
        assert!(matches!(shared.push_need(&[0.0; 6]), Err(Error::Input(_))));
    }
}
