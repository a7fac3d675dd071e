//! Plain-old-data types shared byte for byte with `shaders/cone_test.wgsl`.
//!
//! Keep in sync with the `Case` and `Outcome` structs of the shader: the test
//! `layout_tests.rs` compares sizes and offsets against naga's reflection of it.

use bytemuck::{Pod, Zeroable};

use crate::{Error, Verdict};

/// Most generators a case can hold: 4 body pairs × 2 endpoints × 2 edge rays (docs/contract-planar.md §2).
pub const MAX_GENERATORS: usize = 16;

/// `Outcome::binding` when no candidate supports the cone (it fills R³).
pub const NO_BINDING: u32 = u32::MAX;

/// The margin reported when no candidate supports the cone, and the most ever reported (docs/contract-planar.md §6).
pub const MARGIN_CAP: f32 = 1000.0;

/// One cone test: up to 16 wrench generators `(fx, fz, moment)` and the wrench `need`.
///
/// 208 bytes: the whole upload per case. Slots whose bit in `active_mask` is clear are ignored.
/// Keep in sync with `struct Case` in `shaders/cone_test.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Case {
    /// Wrench generators `(f_x, f_z, moment/ℓ)` in units of the nominal weight (docs/contract-planar.md §2).
    pub generators: [[f32; 3]; MAX_GENERATORS],
    /// The wrench the contacts must supply (docs/contract-planar.md §3); any vector of R³.
    pub need: [f32; 3],
    /// Bit `i` set: generator slot `i` is in use.
    pub active_mask: u32,
}

impl Case {
    /// A case from its generators (slots 0..len) and need; rejects more than 16
    /// generators and non-finite numbers.
    pub fn new(generators: &[[f32; 3]], need: [f32; 3]) -> Result<Case, Error> {
        if generators.len() > MAX_GENERATORS {
            return Err(Error::TooManyGenerators {
                count: generators.len(),
                max: MAX_GENERATORS,
            });
        }
        for (i, g) in generators.iter().enumerate() {
            if !g.iter().all(|v| v.is_finite()) {
                return Err(Error::NonFinite(format!("generator {i} = {g:?}")));
            }
        }
        if !need.iter().all(|v| v.is_finite()) {
            return Err(Error::NonFinite(format!("need = {need:?}")));
        }
        let mut case = Case {
            need,
            active_mask: ((1u64 << generators.len()) - 1) as u32,
            ..Case::default()
        };
        case.generators[..generators.len()].copy_from_slice(generators);
        Ok(case)
    }

    /// The generators in use, with their slot index.
    pub fn active_generators(&self) -> impl Iterator<Item = (usize, [f32; 3])> + '_ {
        (0..MAX_GENERATORS)
            .filter(|i| self.active_mask >> i & 1 == 1)
            .map(|i| (i, self.generators[i]))
    }
}

/// Contact forces that hold: `need = Σ weights[k] · generators[indices[k]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    /// Generator slots, ascending.
    pub indices: Vec<u32>,
    /// Non-negative weights in the caller's units (float64: exact products of the kernel's
    /// float32 mantissas and power-of-two exponents, finite for every finite case).
    pub weights: Vec<f64>,
}

impl Witness {
    /// The weights re-solved in float64 on the same subset, for reports: the subset is the
    /// float32 search's answer, the float64 weights reproduce the need to ~1e-15 instead of
    /// ~1e-7 (which matters where every witness has forces far beyond the need). Falls back
    /// to the float32 weights unless the float64 ones are non-negative and closer.
    pub fn polished(&self, case: &Case) -> Vec<f64> {
        let n = self.indices.len();
        if n > 3 || self.weights.len() != n {
            return self.weights.clone(); // not a witness the kernels give
        }
        polish(case, &self.indices, &self.weights)[..n].to_vec()
    }
}

/// [`Witness::polished`] in an array, for writers that allocate nothing per answer: the
/// weights of the witness on slots `indices` (at most 3) whose float32 search gave `weights`
/// (as many); the first `indices.len()` entries count.
pub(crate) fn polish(case: &Case, indices: &[u32], weights: &[f64]) -> [f64; 3] {
    let n = indices.len();
    debug_assert!(n <= 3 && weights.len() == n);
    let g = |k: usize| case.generators[indices[k] as usize].map(f64::from);
    let need = case.need.map(f64::from);
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let solved = match n {
        1 => [dot(need, g(0)) / dot(g(0), g(0)), 0.0, 0.0],
        2 => {
            let c = cross(g(0), g(1));
            let c2 = dot(c, c);
            [
                dot(cross(need, g(1)), c) / c2,
                dot(cross(g(0), need), c) / c2,
                0.0,
            ]
        }
        3 => {
            let d = dot(cross(g(0), g(1)), g(2));
            [
                dot(cross(g(1), g(2)), need) / d,
                dot(cross(g(2), g(0)), need) / d,
                dot(cross(g(0), g(1)), need) / d,
            ]
        }
        _ => return [0.0; 3],
    };
    let mut original = [0.0; 3];
    original[..n].copy_from_slice(weights);
    let residual = |weights: &[f64; 3]| {
        let mut r = need.map(|v| -v);
        for (k, &l) in weights[..n].iter().enumerate() {
            for (ra, ga) in r.iter_mut().zip(g(k)) {
                *ra += l * ga;
            }
        }
        dot(r, r)
    };
    let good = solved[..n].iter().all(|l| l.is_finite() && *l >= 0.0);
    if good && residual(&solved) < residual(&original) {
        solved
    } else {
        original
    }
}

/// The shader's uniform parameters for one dispatch: 16 bytes.
/// Keep in sync with `struct Params` in `shaders/cone_test.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct Params {
    /// Cases in the dispatch.
    pub count: u32,
    /// Always 0. The shader reads it as the float +0.0 that it adds to its Dekker products
    /// (`unfused`): a value no compiler can know, so none fuses them into an fma.
    pub zero: u32,
    /// Padding to a uniform's 16-byte alignment.
    pub _pad: [u32; 2],
}

/// What the cone test writes for one case: 68 bytes, the whole download per case.
/// Keep in sync with `struct Outcome` in `shaders/cone_test.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Outcome {
    /// `Verdict as u32`.
    pub verdict: u32,
    /// Generators in the witness, 0..=3 (0 with a supported verdict: need = 0, the empty witness).
    pub witness_len: u32,
    /// Generator slots of the witness, ascending; the first `witness_len` count.
    pub witness_index: [u32; 3],
    /// Mantissas of the witness weights: see `witness_exponent`.
    pub witness_weight: [f32; 3],
    /// Unit normal `y` of the certificate (supports the cone, `y·need < 0`); zero when none.
    pub certificate: [f32; 3],
    /// Signed distance of the need to the cone's boundary, at most [`MARGIN_CAP`].
    pub margin: f32,
    /// 1 when no candidate supports the cone (it fills R³) and the margin is the cap.
    pub capped: u32,
    /// Index in the candidate table of the nearest supporting candidate, or [`NO_BINDING`].
    pub binding: u32,
    /// Weight `k` of the witness is `witness_weight[k] · 2^witness_exponent[k]`: the kernels
    /// work on generators and need rescaled by powers of two (docs/contract-planar.md §7 at every scale), and a
    /// weight in the caller's units can lie outside float32's range (a need of 1e30 held by a
    /// generator of 1e-30). [`Outcome::witness`] gives the product in float64, always finite.
    pub witness_exponent: [i32; 3],
}

impl Outcome {
    /// The verdict as an enum; an unknown code reads as uncertain (never held).
    pub fn verdict(&self) -> Verdict {
        match self.verdict {
            0 => Verdict::Supported,
            1 => Verdict::Unsupported,
            _ => Verdict::Uncertain,
        }
    }

    /// The witness, given only with a supported verdict.
    pub fn witness(&self) -> Option<Witness> {
        let (indices, weights) = self.witness_parts()?;
        Some(Witness {
            indices: indices.to_vec(),
            weights: weights[..indices.len()].to_vec(),
        })
    }

    /// [`Outcome::witness`] in place: its slots, and its weights in an array of which the
    /// first `slots.len()` entries count.
    pub(crate) fn witness_parts(&self) -> Option<(&[u32], [f64; 3])> {
        (self.verdict() == Verdict::Supported).then(|| {
            let n = self.witness_len.min(3) as usize;
            let mut weights = [0.0; 3];
            for (k, w) in weights[..n].iter_mut().enumerate() {
                *w = f64::from(self.witness_weight[k]) * 2f64.powi(self.witness_exponent[k]);
            }
            (&self.witness_index[..n], weights)
        })
    }

    /// The certificate, given only with an unsupported verdict.
    pub fn certificate(&self) -> Option<[f32; 3]> {
        (self.verdict() == Verdict::Unsupported).then_some(self.certificate)
    }

    /// Index of the binding candidate in `crate::planar::tables::candidates`; `None` when no
    /// candidate supports the cone.
    pub fn binding(&self) -> Option<u32> {
        (self.binding != NO_BINDING).then_some(self.binding)
    }

    /// No candidate supports the cone (it fills R³): the margin is [`MARGIN_CAP`].
    pub fn is_capped(&self) -> bool {
        self.capped != 0
    }

    /// How two answers to one case differ beyond docs/contract-planar.md §7's tolerance, if they do: the
    /// verdicts (unless one is uncertain), or the margins by more than 2e-5 relative to
    /// max(1, |m|). How the GPU is checked against the CPU.
    pub fn disagreement(&self, other: &Outcome) -> Option<String> {
        let (a, b) = (self.verdict(), other.verdict());
        if a != b && a != Verdict::Uncertain && b != Verdict::Uncertain {
            return Some(format!("verdict {} vs {}", a.as_str(), b.as_str()));
        }
        margins_differ(self.margin, other.margin)
            .then(|| format!("margin {} vs {}", self.margin, other.margin))
    }
}

/// Whether two margins of one case differ beyond what two backends may: 2e-5 relative to
/// max(1, |m|) (docs/contract-planar.md §7: margins agree to about 1e-5). Shared by `Outcome::disagreement`
/// and the gate's `HoldReport::disagreement`.
pub(crate) fn margins_differ(a: f32, b: f32) -> bool {
    (a - b).abs() > 2e-5 * 1f32.max(a.abs()).max(b.abs())
}
