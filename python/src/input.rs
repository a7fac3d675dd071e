//! Conversion, in one place: numpy arrays into the engines' cases, scene dicts and lines into
//! JSON lines, ids into a list.
//!
//! The arrays are checked for shape with the GIL ([`Arrays::extract`]) and read in place
//! (float32 or float64, any strides) without it, case by case, by a [`Reader`]: into planar
//! `Case`s for the enumeration, into float64 numbers for the general engine. Generator
//! indices in every answer are rows of the caller's array, whatever `active` and `counts`
//! left out.

use numpy::ndarray::{ArrayView2, ArrayView3, Ix2, Ix3};
use numpy::{
    AllowTypeChange, PyArrayDescrMethods, PyArrayLike1, PyArrayLikeDyn, PyReadonlyArrayDyn,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rayon::prelude::*;

use planar_hold::details::solver::all_finite;
use planar_hold::io::CaseBatch;
use planar_hold::GeneralBatch;
use planar_hold::{default_need, MAX_DIM, MAX_GENERAL_GENERATORS};
use planar_hold::{Batch, Case, CaseKind, Error, MAX_GENERATORS};

use crate::error::bad_input;

/// A float array as given: float32 read in place, float64 read in place, anything else
/// (lists, integer arrays) converted to float64 by numpy first.
enum Floats<'py> {
    F32(PyReadonlyArrayDyn<'py, f32>),
    F64(PyArrayLikeDyn<'py, f64, AllowTypeChange>),
}

impl<'py> Floats<'py> {
    fn extract(ob: &Bound<'py, PyAny>) -> PyResult<Floats<'py>> {
        if let Ok(a) = ob.extract::<PyReadonlyArrayDyn<'py, f32>>() {
            return Ok(Floats::F32(a));
        }
        Ok(Floats::F64(ob.extract()?))
    }

    fn shape(&self) -> &[usize] {
        match self {
            Floats::F32(a) => a.shape(),
            Floats::F64(a) => a.shape(),
        }
    }

    /// The engine of cases of these numbers, `dim` and `k` ([`CaseKind::of_numbers`]): the
    /// general one where float32 does not hold one of them.
    fn kind(&self, dim: usize, k: usize) -> CaseKind {
        match self {
            Floats::F32(a) => {
                CaseKind::of_numbers(dim, k, a.as_array().iter().map(|&v| f64::from(v)))
            }
            Floats::F64(a) => CaseKind::of_numbers(dim, k, a.as_array().iter().copied()),
        }
    }

    /// The numbers of a 1-d array, as float64.
    fn values(&self) -> Vec<f64> {
        match self {
            Floats::F32(a) => a.as_array().iter().map(|&v| f64::from(v)).collect(),
            Floats::F64(a) => a.as_array().iter().copied().collect(),
        }
    }
}

/// What one call's arrays hold: `n` cases of `rows` generator rows of `dim` numbers, for the
/// engine `kind` (the reader's and the columns' business, not the caller's).
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) kind: CaseKind,
    pub(crate) n: usize,
    pub(crate) rows: usize,
    pub(crate) dim: usize,
}

/// The arrays of one call, checked for shape, borrowed (not copied) until they are read.
pub(crate) struct Arrays<'py> {
    kind: CaseKind,
    gens: Floats<'py>,
    active: Option<PyArrayLikeDyn<'py, bool, AllowTypeChange>>,
    counts: Option<Vec<u32>>,
    /// The (N, d) needs, one a case.
    each_need: Option<Floats<'py>>,
    /// The need of every case, when not one a case: the one given, or the nominal weight.
    one_need: [f64; MAX_DIM],
}

impl<'py> Arrays<'py> {
    /// `generators` (N, K, 3 or 6), `active` (N, K), `need` (d,) or (N, d), `counts` (N,),
    /// checked in that order. The engine is the one [`CaseKind::of`] gives the array's d and
    /// K, or the general one for numbers float32 does not hold ([`CaseKind::of_numbers`]);
    /// `general` sends (N, K ≤ 16, 3) to the general engine too.
    pub(crate) fn extract(
        generators: &Bound<'py, PyAny>,
        active: Option<&Bound<'py, PyAny>>,
        need: Option<&Bound<'py, PyAny>>,
        counts: Option<&Bound<'py, PyAny>>,
        general: bool,
    ) -> PyResult<Arrays<'py>> {
        let gens = Floats::extract(generators)?;
        let shape = gens.shape().to_vec();
        if shape.len() != 3 || !(shape[2] == 3 || shape[2] == 6) {
            return Err(bad_input(format!(
                "generators must have shape (N, K, 3) or (N, K, 6), got {shape:?}"
            )));
        }
        let (n, k, dim) = (shape[0], shape[1], shape[2]);
        let active = active
            .map(|a| a.extract::<PyArrayLikeDyn<bool, AllowTypeChange>>())
            .transpose()?;
        if let Some(a) = &active {
            if a.shape() != &shape[..2] {
                return Err(bad_input(format!(
                    "active must have shape (N, K) = {:?}, got {:?}",
                    &shape[..2],
                    a.shape()
                )));
            }
        }
        let counts = counts.map(|c| read_counts(c, n, k)).transpose()?;
        let kind = match CaseKind::of(dim, k) {
            CaseKind::Planar if general => CaseKind::General,
            kind => kind,
        };
        let need = need.map(Floats::extract).transpose()?;
        // A number float32 does not hold (beyond its range, or below its normal range: it
        // would read 1e-50 as 0) sends the call to the general engine, as `eval` sends
        // such a line ([`CaseKind::of_numbers`]).
        let kind = match kind {
            CaseKind::Planar => {
                let numbers = std::iter::once(&gens).chain(&need);
                numbers.fold(kind, |kind, f| match f.kind(dim, k) {
                    CaseKind::Planar => kind,
                    general => general,
                })
            }
            general => general,
        };
        let mut one_need = [0.0; MAX_DIM];
        one_need[..dim].copy_from_slice(default_need(dim));
        if let Some(nd) = &need {
            let s = nd.shape();
            if !(s == [dim] || s == [n, dim]) {
                return Err(bad_input(format!(
                    "need must have shape ({dim},) or (N, {dim}) = ({n}, {dim}), got {s:?}"
                )));
            }
        }
        let each_need = match need {
            Some(nd) if nd.shape().len() == 1 => {
                let v = nd.values();
                // Finite in the engine's own numbers: float32 for the enumeration.
                let (finite, unit) = match kind {
                    CaseKind::Planar => (v.iter().all(|&x| (x as f32).is_finite()), " in float32"),
                    CaseKind::General => (all_finite(&v), ""),
                };
                if !finite {
                    return Err(bad_input(format!("need = {v:?} is not finite{unit}")));
                }
                one_need[..dim].copy_from_slice(&v);
                None
            }
            other => other,
        };
        Ok(Arrays {
            kind,
            gens,
            active,
            counts,
            each_need,
            one_need,
        })
    }

    /// What the call holds.
    pub(crate) fn shape(&self) -> Shape {
        let s = self.gens.shape();
        Shape {
            kind: self.kind,
            n: s[0],
            rows: s[1],
            dim: s[2],
        }
    }

    /// The generators' length: 3 or 6.
    fn dim(&self) -> usize {
        self.gens.shape()[2]
    }

    /// The reader of the cases, one monomorphic loop per pair of number types.
    pub(crate) fn reader(&self) -> Box<dyn Reader + '_> {
        let active = self
            .active
            .as_ref()
            .map(|a| a.as_array().into_dimensionality::<Ix2>().expect("checked"));
        let counts = self.counts.as_deref();
        let (one, dim) = (self.one_need, self.dim());
        macro_rules! views {
            ($gens:expr, $need:expr) => {{
                let gens = $gens
                    .as_array()
                    .into_dimensionality::<Ix3>()
                    .expect("checked");
                let active_flat = active.and_then(|a| a.to_slice());
                Box::new(Views {
                    dim,
                    rows: gens.shape()[1],
                    gens_flat: gens.to_slice(),
                    gens,
                    active,
                    active_flat,
                    counts,
                    need: $need,
                }) as Box<dyn Reader + '_>
            }};
        }
        macro_rules! each {
            ($n:expr) => {
                NeedView::Each($n.as_array().into_dimensionality::<Ix2>().expect("checked"))
            };
        }
        let one32 = [one[0], one[1], one[2]].map(|v| v as f32);
        match (&self.gens, &self.each_need) {
            (Floats::F32(g), None) => views!(g, NeedView::<f32>::One(one, one32)),
            (Floats::F64(g), None) => views!(g, NeedView::<f32>::One(one, one32)),
            (Floats::F32(g), Some(Floats::F32(n))) => views!(g, each!(n)),
            (Floats::F32(g), Some(Floats::F64(n))) => views!(g, each!(n)),
            (Floats::F64(g), Some(Floats::F32(n))) => views!(g, each!(n)),
            (Floats::F64(g), Some(Floats::F64(n))) => views!(g, each!(n)),
        }
    }
}

/// The per-case generator counts, checked against the array: (N,) integers in 0..=K.
fn read_counts(ob: &Bound<'_, PyAny>, n: usize, k: usize) -> PyResult<Vec<u32>> {
    let arr = ob.py().import("numpy")?.getattr("asarray")?.call1((ob,))?;
    let untyped = arr.cast::<PyUntypedArray>()?;
    if !matches!(untyped.dtype().kind(), b'i' | b'u') {
        return Err(bad_input(format!(
            "counts must be integers, got dtype {}",
            untyped.dtype()
        )));
    }
    if untyped.shape() != [n] {
        return Err(bad_input(format!(
            "counts must have shape (N,) = ({n},), got {:?}",
            untyped.shape()
        )));
    }
    let values: PyArrayLikeDyn<'_, i64, AllowTypeChange> = arr.extract()?;
    let values = values.as_array();
    values
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if c < 0 || c as u64 > k as u64 {
                Err(bad_input(format!(
                    "case {i}: count {c} is not in 0..={k} (generators has {k} rows)"
                )))
            } else {
                Ok(c as u32)
            }
        })
        .collect()
}

/// Reads cases out of the input arrays: made with the GIL, run without it, from any thread.
pub(crate) trait Reader: Send + Sync {
    /// Whether `active` may leave rows out, so that a general case's generator `j` need not
    /// be row `j` of the array.
    fn maps_rows(&self) -> bool;

    /// Planar cases `first..first + out.len()` into `out`; false when one of them is bad.
    fn planar(&self, first: usize, out: &mut [Case]) -> bool;

    /// The error of the first bad planar case among the first `n` (after a failure).
    fn planar_error(&self, n: usize) -> Error;

    /// General case `i`'s generators into `values`, the array row of each into `rows`, its
    /// need into `need`. An error names the case and the problem.
    fn general(
        &self,
        i: usize,
        values: &mut Vec<f64>,
        rows: &mut Vec<u32>,
        need: &mut [f64; MAX_DIM],
    ) -> Result<(), String>;

    /// General case `i`'s generators where they lie in the caller's array (not yet checked
    /// finite), when they can be read there (float64, contiguous, every row of its count in
    /// use: the rows are 0..count); its need into `need`. `None`: copy them with
    /// [`Reader::general`].
    fn general_in_place(
        &self,
        i: usize,
        need: &mut [f64; MAX_DIM],
    ) -> Option<Result<&[f64], String>>;
}

/// Case `i`'s generators `values` (whole ones of `d`) checked finite: the first bad one
/// named with its numbers.
fn finite_generators(i: usize, d: usize, values: &[f64]) -> Result<(), String> {
    if all_finite(values) {
        return Ok(());
    }
    let k = values.iter().position(|v| !v.is_finite()).unwrap_or(0) / d;
    Err(format!(
        "case {i}: generator {k} = {:?} is not finite",
        &values[k * d..(k + 1) * d]
    ))
}

/// A number type of the input arrays.
trait Number: Copy + Into<f64> + Send + Sync {
    /// As the enumeration reads it: rounded to float32.
    fn to_f32(self) -> f32;

    /// `src` rounded to float32 into the start of `dst`.
    fn to_f32_into(src: &[Self], dst: &mut [f32]) {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s.to_f32();
        }
    }

    /// `src` appended to `dst` as float64.
    fn extend_into(dst: &mut Vec<f64>, src: &[Self]) {
        dst.extend(src.iter().map(|&v| v.into()));
    }

    /// `src` itself when it is float64.
    fn as_f64(_: &[Self]) -> Option<&[f64]> {
        None
    }
}

impl Number for f32 {
    fn to_f32(self) -> f32 {
        self
    }

    fn to_f32_into(src: &[f32], dst: &mut [f32]) {
        dst[..src.len()].copy_from_slice(src);
    }
}

impl Number for f64 {
    fn to_f32(self) -> f32 {
        self as f32
    }

    fn extend_into(dst: &mut Vec<f64>, src: &[f64]) {
        dst.extend_from_slice(src);
    }

    fn as_f64(src: &[f64]) -> Option<&[f64]> {
        Some(src)
    }
}

/// Where each case's need comes from.
enum NeedView<'a, N> {
    /// One for every case: as float64 (d numbers) and, for the enumeration, as float32.
    One([f64; MAX_DIM], [f32; 3]),
    /// Row `i` for case `i`: (N, d).
    Each(ArrayView2<'a, N>),
}

/// One call's arrays, read case by case: through flat slices where the arrays are in
/// standard (C) order, the common case, else by index.
struct Views<'a, G, N> {
    dim: usize,
    /// K: generator rows per case in the array.
    rows: usize,
    gens: ArrayView3<'a, G>,
    gens_flat: Option<&'a [G]>,
    active: Option<ArrayView2<'a, bool>>,
    active_flat: Option<&'a [bool]>,
    counts: Option<&'a [u32]>,
    need: NeedView<'a, N>,
}

/// The slot of each of a case's 48 generator numbers.
const SLOT_OF: [u32; 3 * MAX_GENERATORS] = {
    let mut slots = [0; 3 * MAX_GENERATORS];
    let mut j = 0;
    while j < slots.len() {
        slots[j] = (j / 3) as u32;
        j += 1;
    }
    slots
};

/// `src` (16 slots of 3 numbers) rounded to float32 into `dst`, the slots out of `mask`
/// zeros; whether a number in the mask is not finite. One pass without a branch, so that
/// it runs in vector registers.
#[inline(always)]
fn masked<G: Number>(
    src: &[G; 3 * MAX_GENERATORS],
    mask: u32,
    dst: &mut [f32; 3 * MAX_GENERATORS],
) -> bool {
    let mut bad = 0u32;
    for j in 0..3 * MAX_GENERATORS {
        let keep = 0u32.wrapping_sub((mask >> SLOT_OF[j]) & 1);
        let bits = src[j].to_f32().to_bits() & keep;
        bad |= u32::from(bits & 0x7f80_0000 == 0x7f80_0000);
        dst[j] = f32::from_bits(bits);
    }
    bad != 0
}

fn finite3(x: [f32; 3]) -> bool {
    x[0].is_finite() & x[1].is_finite() & x[2].is_finite()
}

impl<G: Number, N: Number> Views<'_, G, N> {
    /// Rows of case `i` the caller counts (all K without `counts`).
    fn count(&self, i: usize) -> usize {
        self.counts.map_or(self.rows, |c| c[i] as usize)
    }

    /// Whether row `k` of case `i` is active.
    fn on(&self, i: usize, k: usize) -> bool {
        match (self.active_flat, &self.active) {
            (Some(flat), _) => flat[i * self.rows + k],
            (None, Some(a)) => a[[i, k]],
            (None, None) => true,
        }
    }

    /// Generator `k` of planar case `i`.
    fn generator3(&self, i: usize, k: usize) -> [G; 3] {
        match self.gens_flat {
            Some(flat) => {
                let at = (i * self.rows + k) * 3;
                [flat[at], flat[at + 1], flat[at + 2]]
            }
            None => [
                self.gens[[i, k, 0]],
                self.gens[[i, k, 1]],
                self.gens[[i, k, 2]],
            ],
        }
    }

    /// Planar case `i` into `case` (every slot written); false where a number in use is not
    /// finite in float32. The slots are read, masked and checked in one pass without a
    /// branch ([`masked`]), so that the conversion keeps up with the kernel.
    #[inline(always)]
    fn planar_case(&self, i: usize, case: &mut Case) -> bool {
        let (rows, count) = (self.rows, self.count(i));
        // Rows 0..count (count ≤ rows ≤ 16), less the inactive ones.
        let mut mask = (1u32 << count) - 1;
        match (self.active_flat, &self.active) {
            (Some(flat), _) => {
                let row = &flat[i * rows..(i + 1) * rows];
                mask &= row
                    .iter()
                    .enumerate()
                    .fold(0, |m, (k, &on)| m | u32::from(on) << k);
            }
            (None, Some(a)) => mask &= (0..rows).fold(0, |m, k| m | u32::from(a[[i, k]]) << k),
            (None, None) => {}
        }
        let slots: &mut [f32; 3 * MAX_GENERATORS] = case
            .generators
            .as_flattened_mut()
            .try_into()
            .expect("16 slots");
        let bad = match self.gens_flat {
            // The common case: all 16 rows, contiguous: read, masked, checked, written once.
            Some(flat) if rows == MAX_GENERATORS => {
                let at = i * 3 * MAX_GENERATORS;
                let row: &[G; 3 * MAX_GENERATORS] = flat[at..at + 3 * MAX_GENERATORS]
                    .try_into()
                    .expect("16 rows");
                masked(row, mask, slots)
            }
            Some(flat) => {
                let mut read = [0f32; 3 * MAX_GENERATORS];
                G::to_f32_into(&flat[i * rows * 3..(i + 1) * rows * 3], &mut read);
                masked(&read, mask, slots)
            }
            None => {
                let mut read = [0f32; 3 * MAX_GENERATORS];
                for k in 0..rows {
                    for c in 0..3 {
                        read[3 * k + c] = self.gens[[i, k, c]].to_f32();
                    }
                }
                masked(&read, mask, slots)
            }
        };
        case.active_mask = mask;
        let (need, need_bad) = match &self.need {
            NeedView::One(_, one) => (*one, false),
            NeedView::Each(a) => {
                let v = [a[[i, 0]], a[[i, 1]], a[[i, 2]]].map(N::to_f32);
                (v, !finite3(v))
            }
        };
        case.need = need;
        !(bad | need_bad)
    }

    /// Planar cases `first..first + out.len()` into `out`; false when one of them is bad.
    #[inline(always)]
    fn planar_cases(&self, first: usize, out: &mut [Case]) -> bool {
        let mut ok = true;
        for (j, slot) in out.iter_mut().enumerate() {
            ok &= self.planar_case(first + j, slot);
        }
        ok
    }

    /// [`Views::planar_cases`] with AVX2's wider registers and per-lane shifts for the
    /// masking loop (the answers are the same bits: the loop only moves and masks them).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn planar_avx2(&self, first: usize, out: &mut [Case]) -> bool {
        self.planar_cases(first, out)
    }

    /// What is wrong with planar case `i`, in words: its first generator in use that is not
    /// finite in float32, else its need; `None` when nothing is.
    fn planar_problem(&self, i: usize) -> Option<String> {
        for k in (0..self.count(i)).filter(|&k| self.on(i, k)) {
            let g = self.generator3(i, k);
            if !finite3(g.map(G::to_f32)) {
                let g = g.map(Into::<f64>::into);
                return Some(format!(
                    "case {i}: generator {k} = {g:?} is not finite in float32"
                ));
            }
        }
        if let NeedView::Each(a) = &self.need {
            let v = [a[[i, 0]], a[[i, 1]], a[[i, 2]]];
            if !finite3(v.map(N::to_f32)) {
                let v = v.map(Into::<f64>::into);
                return Some(format!("case {i}: need = {v:?} is not finite in float32"));
            }
        }
        None
    }

    /// How many generators general case `i` has in use (its count, less the inactive rows).
    fn used(&self, i: usize) -> usize {
        let count = self.count(i);
        match &self.active {
            None => count,
            Some(_) => (0..count).filter(|&k| self.on(i, k)).count(),
        }
    }
    /// General case `i`'s need into `need`, checked finite.
    fn general_need(&self, i: usize, need: &mut [f64; MAX_DIM]) -> Result<(), String> {
        let d = self.dim;
        match &self.need {
            NeedView::One(v, _) => *need = *v,
            NeedView::Each(a) => {
                for c in 0..d {
                    need[c] = a[[i, c]].into();
                }
                if !need[..d].iter().all(|v| v.is_finite()) {
                    return Err(format!("case {i}: need = {:?} is not finite", &need[..d]));
                }
            }
        }
        Ok(())
    }
}

impl<G: Number, N: Number> Reader for Views<'_, G, N> {
    fn maps_rows(&self) -> bool {
        self.active.is_some()
    }

    fn planar(&self, first: usize, out: &mut [Case]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.planar_avx2(first, out) };
        }
        self.planar_cases(first, out)
    }

    fn planar_error(&self, n: usize) -> Error {
        let first = (0..n).find_map(|i| self.planar_problem(i));
        Error::Input(first.expect("a failing case"))
    }

    fn general(
        &self,
        i: usize,
        values: &mut Vec<f64>,
        rows: &mut Vec<u32>,
        need: &mut [f64; MAX_DIM],
    ) -> Result<(), String> {
        let (k_max, d) = (self.rows, self.dim);
        let count = self.count(i);
        values.clear();
        rows.clear();
        let used = self.used(i);
        if used > MAX_GENERAL_GENERATORS {
            return Err(format!(
                "case {i}: {used} generators, more than {MAX_GENERAL_GENERATORS}"
            ));
        }
        if let (Some(flat), None) = (self.gens_flat, &self.active) {
            // Every row of 0..count in use, contiguous: one copy, then one check.
            let at = i * k_max * d;
            G::extend_into(values, &flat[at..at + count * d]);
            rows.extend(0..count as u32);
            finite_generators(i, d, values)?;
        } else {
            for k in (0..count).filter(|&k| self.on(i, k)) {
                let start = values.len();
                match self.gens_flat {
                    Some(flat) => {
                        let at = (i * k_max + k) * d;
                        G::extend_into(values, &flat[at..at + d]);
                    }
                    None => values.extend((0..d).map(|c| self.gens[[i, k, c]].into())),
                }
                if !values[start..].iter().all(|v| v.is_finite()) {
                    return Err(format!(
                        "case {i}: generator {k} = {:?} is not finite",
                        &values[start..]
                    ));
                }
                rows.push(k as u32);
            }
        }
        self.general_need(i, need)
    }

    fn general_in_place(
        &self,
        i: usize,
        need: &mut [f64; MAX_DIM],
    ) -> Option<Result<&[f64], String>> {
        let flat = G::as_f64(self.gens_flat?)?;
        if self.active.is_some() {
            return None;
        }
        let (k_max, d) = (self.rows, self.dim);
        let count = self.count(i);
        if count > MAX_GENERAL_GENERATORS {
            return Some(Err(format!(
                "case {i}: {count} generators, more than {MAX_GENERAL_GENERATORS}"
            )));
        }
        let at = i * k_max * d;
        let values = &flat[at..at + count * d];
        // Not finite-checked here: `GeneralCase::new` checks, and [`finite_generators`] names
        // the bad generator only when that fails.
        Some(self.general_need(i, need).map(|()| values))
    }
}

/// Converts every planar case into `out` on all cores; on bad input, the first bad case's
/// error.
fn read_planar(reader: &dyn Reader, out: &mut [Case]) -> Result<(), Error> {
    let ok = out
        .par_chunks_mut(BLOCK)
        .enumerate()
        .all(|(b, chunk)| reader.planar(b * BLOCK, chunk));
    if ok {
        Ok(())
    } else {
        Err(reader.planar_error(out.len()))
    }
}

/// Planar cases converted at once by one worker.
const BLOCK: usize = 1024;

/// The array row of each generator of each general case of a call, where `active` may
/// leave rows out; else generator `j` is row `j`.
#[derive(Default)]
pub(crate) struct GeneralRows {
    mapped: bool,
    /// Case after case.
    rows: Vec<u32>,
    /// Where each case's rows start in `rows` (one more than the cases).
    starts: Vec<usize>,
}

impl GeneralRows {
    /// The array row of generator `j` of case `i`.
    pub(crate) fn row(&self, i: usize, j: u32) -> u32 {
        if self.mapped {
            self.rows[self.starts[i] + j as usize]
        } else {
            j
        }
    }
}

/// Converts `n` general cases of `dim` numbers into `batch` (cleared first), each read in
/// place where it can be ([`Reader::general_in_place`]), else copied, and the array row of
/// each generator into `rows`; on bad input, the first bad case's error.
fn read_general(
    reader: &dyn Reader,
    shape: Shape,
    batch: &mut GeneralBatch,
    rows: &mut GeneralRows,
) -> Result<(), Error> {
    let (n, dim) = (shape.n, shape.dim);
    batch.clear();
    // At most every row of every case: one allocation, not a doubling per case on a first call.
    batch.reserve(n, n.saturating_mul(shape.rows + 1).saturating_mul(dim));
    rows.mapped = reader.maps_rows();
    rows.rows.clear();
    rows.starts.clear();
    rows.starts.push(0);
    let (mut values, mut case_rows) = (Vec::new(), Vec::new());
    let mut need = [0.0; MAX_DIM];
    for i in 0..n {
        let pushed = match reader.general_in_place(i, &mut need) {
            Some(gens) => {
                let gens = gens.map_err(Error::Input)?;
                batch.push(dim, gens, &need[..dim]).map_err(|e| {
                    // A bad number named with its generator, as a copied case's.
                    let named = finite_generators(i, dim, gens).err();
                    Error::Input(named.unwrap_or_else(|| format!("case {i}: {e}")))
                })
            }
            None => {
                reader
                    .general(i, &mut values, &mut case_rows, &mut need)
                    .map_err(Error::Input)?;
                if rows.mapped {
                    rows.rows.extend_from_slice(&case_rows);
                    rows.starts.push(rows.rows.len());
                }
                batch
                    .push(dim, &values, &need[..dim])
                    .map_err(|e| Error::Input(format!("case {i}: {e}")))
            }
        };
        pushed?;
    }
    Ok(())
}

/// Every case of a call into `batch` (kept, with its buffers, for the next call): into its
/// planar cases or its general ones, as [`Arrays::kind`] says, the array row of each
/// general generator into `rows`.
pub(crate) fn read_batch(
    reader: &dyn Reader,
    shape: Shape,
    batch: &mut Batch,
    rows: &mut GeneralRows,
) -> Result<(), Error> {
    batch.general.clear();
    match shape.kind {
        CaseKind::Planar => {
            // Every slot is written by the reader: only a longer batch touches new memory.
            batch.planar.truncate(shape.n);
            batch.planar.resize(shape.n, Case::default());
            read_planar(reader, &mut batch.planar)
        }
        CaseKind::General => {
            batch.planar.clear();
            read_general(reader, shape, &mut batch.general, rows)
        }
    }
}

/// The ids of a call's cases, as many as the cases.
pub(crate) fn read_ids<'py>(
    ids: Option<&Bound<'py, PyAny>>,
    n: usize,
) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
    let ids = ids
        .map(|ids| ids.try_iter()?.collect::<PyResult<Vec<_>>>())
        .transpose()?;
    if let Some(ids) = &ids {
        if ids.len() != n {
            return Err(bad_input(format!("{} ids for {n} cases", ids.len())));
        }
    }
    Ok(ids)
}

/// The JSON line of every scene of an iterable of dicts (by `json.dumps`, NaN refused) and
/// lines of text (as they are).
pub(crate) fn scene_lines(scenes: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if scenes.is_instance_of::<PyDict>() || scenes.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "gate takes an iterable of scenes (dicts or JSON lines), not one scene",
        ));
    }
    let py = scenes.py();
    let dumps = py.import("json")?.getattr("dumps")?;
    let strict = PyDict::new(py);
    strict.set_item("allow_nan", false)?;
    let mut lines = Vec::new();
    for (i, scene) in scenes.try_iter()?.enumerate() {
        let scene = scene?;
        let mut text = String::new();
        if json_text(&scene, 0, &mut text) {
            lines.push(text);
            continue;
        }
        let text = match scene.cast::<PyString>() {
            Ok(s) => s.extract::<String>()?,
            Err(_) => dumps
                .call((&scene,), Some(&strict))
                .and_then(|t| t.extract::<String>())
                .map_err(|e| {
                    // json.dumps(allow_nan=False) refuses NaN and infinities with a message
                    // that does not say which (and a numpy one as a type it cannot write):
                    // say where (`contacts[1].points[0][2] = nan`).
                    let mut path = String::new();
                    let e = match non_finite(&scene, &mut path) {
                        Some(x) => format!(
                            "{path} = {x} (a number is NaN or infinite; JSON numbers must be \
                             finite)"
                        ),
                        None => e.to_string(),
                    };
                    bad_input(format!("scene {i}: not a JSON object: {e}"))
                })?,
        };
        lines.push(text);
    }
    Ok(lines)
}

/// Nesting deeper than this is left to `json.dumps` (a list holding itself, say: it says so).
const JSON_DEPTH: usize = 64;

/// Writes a scene dict's JSON text into `out`, as `json.dumps` would have it read (the same
/// numbers, keys in order, ints as ints and floats as floats), without Python's float
/// formatting (a tenth of `gate`'s time on dicts). `false` where it meets anything else:
/// a string line (taken as it is), another type, a non-string key, an int beyond 64 bits,
/// NaN or infinity, or deep nesting; the caller then asks `json.dumps`, for its text or its
/// error.
fn json_text(value: &Bound<'_, PyAny>, depth: usize, out: &mut String) -> bool {
    use std::fmt::Write;
    if depth > JSON_DEPTH {
        return false;
    }
    if let Ok(b) = value.cast::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if value.is_none() {
        out.push_str("null");
    } else if value.is_exact_instance_of::<PyInt>() {
        let Ok(n) = value.extract::<i64>() else {
            return false;
        };
        let _ = write!(out, "{n}");
    } else if let Ok(x) = value.cast::<PyFloat>() {
        let x = x.value();
        if !x.is_finite() {
            return false;
        }
        // serde_json's shortest form that reads back as `x`, a float still ("4.0", "1e-5").
        match serde_json::to_string(&x) {
            Ok(t) => out.push_str(&t),
            Err(_) => return false,
        }
    } else if let Ok(s) = value.cast::<PyString>() {
        if depth == 0 {
            return false; // a line of text: as it is, not quoted
        }
        let Ok(s) = s.to_cow() else { return false };
        match serde_json::to_string(&*s) {
            Ok(t) => out.push_str(&t),
            Err(_) => return false,
        }
    } else if let Ok(dict) = value.cast::<PyDict>() {
        out.push('{');
        for (n, (key, item)) in dict.iter().enumerate() {
            let Ok(key) = key.cast::<PyString>() else {
                return false;
            };
            let Ok(key) = key.to_cow() else { return false };
            if n > 0 {
                out.push(',');
            }
            match serde_json::to_string(&*key) {
                Ok(t) => out.push_str(&t),
                Err(_) => return false,
            }
            out.push(':');
            if !json_text(&item, depth + 1, out) {
                return false;
            }
        }
        out.push('}');
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let Ok(items) = value.try_iter() else {
            return false;
        };
        out.push('[');
        for (n, item) in items.enumerate() {
            let Ok(item) = item else { return false };
            if n > 0 {
                out.push(',');
            }
            if !json_text(&item, depth + 1, out) {
                return false;
            }
        }
        out.push(']');
    } else if let Some(native) = numpy_native(value) {
        // A numpy scalar or array (np.float32(0.05), a row of an array): its Python value.
        return json_text(&native, depth + 1, out);
    } else {
        return false;
    }
    true
}

/// A numpy scalar's or array's Python value (`tolist()`: a float, int or bool, or nested
/// lists of them), as a dict built from numpy arrays holds them; `None` for anything else.
fn numpy_native<'py>(value: &Bound<'py, PyAny>) -> Option<Bound<'py, PyAny>> {
    let numpy = value
        .get_type()
        .module()
        .is_ok_and(|m| m.to_cow().is_ok_and(|m| m == "numpy"));
    numpy
        .then(|| value.call_method0("tolist").ok())
        .flatten()
        .filter(|native| !native.get_type().is(value.get_type()))
}

/// The first NaN or infinity in `value` (dicts, lists and tuples of numbers, as
/// `json.dumps` walks them, and numpy's), with its path from `value` appended to `path`
/// (`contacts[1].points[0][2]`).
fn non_finite(value: &Bound<'_, PyAny>, path: &mut String) -> Option<f64> {
    non_finite_within(value, path, 0)
}

/// [`non_finite`] at nesting `depth`: none past [`JSON_DEPTH`] (a list holding itself).
fn non_finite_within(value: &Bound<'_, PyAny>, path: &mut String, depth: usize) -> Option<f64> {
    if depth > JSON_DEPTH {
        return None;
    }
    if let Some(native) = numpy_native(value) {
        return non_finite_within(&native, path, depth + 1);
    }
    if let Ok(x) = value.cast::<PyFloat>() {
        let x = x.value();
        return (!x.is_finite()).then_some(x);
    }
    let at = path.len();
    if let Ok(dict) = value.cast::<PyDict>() {
        for (key, item) in dict.iter() {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&key.str().map(|k| k.to_string()).unwrap_or_default());
            if let Some(x) = non_finite_within(&item, path, depth + 1) {
                return Some(x);
            }
            path.truncate(at);
        }
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        for (k, item) in value.try_iter().ok()?.enumerate() {
            path.push_str(&format!("[{k}]"));
            if let Some(x) = non_finite_within(&item.ok()?, path, depth + 1) {
                return Some(x);
            }
            path.truncate(at);
        }
    }
    None
}

/// Ragged rows (`planar_hold.ray`'s Parquet rows): row `i` is `counts[i]` generators of
/// `dims[i]` numbers (3 or 6), back to back in `values`, and its need (`dims[i]` numbers,
/// back to back in `needs`; the nominal weight without). Each row goes where the routing rule
/// ([`CaseKind::of_numbers`]) sends it, all into one [`CaseBatch`] in row order, as `eval` reads
/// its lines; a bad row is an error that names it ("case i: ...").
pub(crate) struct Rows {
    values: Values,
    dims: Vec<usize>,
    counts: Vec<usize>,
    needs: Option<Vec<f64>>,
}

/// Numbers copied out of an array (to be read without the GIL), in their own type.
enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Rows {
    /// The arrays, checked for length with the GIL.
    pub(crate) fn extract<'py>(
        values: &Bound<'py, PyAny>,
        dims: PyArrayLike1<'py, i64, AllowTypeChange>,
        counts: PyArrayLike1<'py, i64, AllowTypeChange>,
        needs: Option<PyArrayLike1<'py, f64, AllowTypeChange>>,
    ) -> PyResult<Rows> {
        let values = Floats::extract(values)?;
        if values.shape().len() != 1 {
            return Err(bad_input(format!(
                "values must be one-dimensional, got shape {:?}",
                values.shape()
            )));
        }
        let (dims, counts) = (dims.as_array(), counts.as_array());
        if dims.len() != counts.len() {
            return Err(bad_input(format!(
                "{} dims for {} counts",
                dims.len(),
                counts.len()
            )));
        }
        let mut sizes = (0usize, 0usize);
        for (i, (&d, &k)) in dims.iter().zip(&counts).enumerate() {
            if d != 3 && d != 6 {
                return Err(bad_input(format!(
                    "case {i}: a generator must be 3 or 6 numbers, got {d}"
                )));
            }
            if k < 0 {
                return Err(bad_input(format!("case {i}: count {k} is negative")));
            }
            sizes = (sizes.0 + d as usize * k as usize, sizes.1 + d as usize);
        }
        if values.shape()[0] != sizes.0 {
            return Err(bad_input(format!(
                "{} numbers for generators of {} numbers in all",
                values.shape()[0],
                sizes.0
            )));
        }
        let needs = needs.map(|n| n.as_array().to_vec());
        let values = match &values {
            Floats::F32(v) => Values::F32(v.as_array().iter().copied().collect()),
            Floats::F64(v) => Values::F64(v.as_array().iter().copied().collect()),
        };
        if let Some(n) = &needs {
            if n.len() != sizes.1 {
                return Err(bad_input(format!(
                    "{} need numbers for needs of {} numbers in all",
                    n.len(),
                    sizes.1
                )));
            }
        }
        Ok(Rows {
            values,
            dims: dims.iter().map(|&d| d as usize).collect(),
            counts: counts.iter().map(|&k| k as usize).collect(),
            needs,
        })
    }

    /// Every row into `out` (cleared first), in order: the core's one reading of a row.
    pub(crate) fn read_into(&self, out: &mut CaseBatch) -> Result<(), Error> {
        match &self.values {
            Values::F32(v) => self.read(v, out),
            Values::F64(v) => self.read(v, out),
        }
    }

    fn read<G: Number>(&self, values: &[G], out: &mut CaseBatch) -> Result<(), Error> {
        out.clear();
        let (mut at, mut need_at) = (0, 0);
        let mut flat = Vec::new();
        for (i, (&d, &k)) in self.dims.iter().zip(&self.counts).enumerate() {
            let gens = &values[at..at + k * d];
            at += k * d;
            let need = match &self.needs {
                Some(n) => &n[need_at..need_at + d],
                None => default_need(d),
            };
            need_at += d;
            // A row of R³ with a number float32 does not hold goes to the general engine, as
            // `eval`'s lines do ([`CaseKind::of_numbers`]).
            let numbers = gens.iter().map(|&v| v.into()).chain(need.iter().copied());
            let id = match CaseKind::of_numbers(d, k, numbers) {
                CaseKind::Planar => {
                    let mut slots = [[0f32; 3]; MAX_GENERATORS];
                    for (j, slot) in slots.iter_mut().take(k).enumerate() {
                        let g = [gens[3 * j], gens[3 * j + 1], gens[3 * j + 2]];
                        *slot = g.map(G::to_f32);
                        if !finite3(*slot) {
                            let g = g.map(Into::<f64>::into);
                            return Err(Error::Input(format!(
                                "case {i}: generator {j} = {g:?} is not finite in float32"
                            )));
                        }
                    }
                    let need = [need[0], need[1], need[2]];
                    if !finite3(need.map(|v| v as f32)) {
                        return Err(Error::Input(format!(
                            "case {i}: need = {need:?} is not finite in float32"
                        )));
                    }
                    let case = Case::new(&slots[..k], need.map(|v| v as f32))
                        .map_err(|e| Error::Input(format!("case {i}: {e}")))?;
                    out.batch.push(case)
                }
                CaseKind::General => {
                    if k > MAX_GENERAL_GENERATORS {
                        return Err(Error::Input(format!(
                            "case {i}: {k} generators, more than {MAX_GENERAL_GENERATORS}"
                        )));
                    }
                    flat.clear();
                    G::extend_into(&mut flat, gens);
                    finite_generators(i, d, &flat).map_err(Error::Input)?;
                    if !need.iter().all(|v| v.is_finite()) {
                        return Err(Error::Input(format!(
                            "case {i}: need = {need:?} is not finite"
                        )));
                    }
                    out.batch
                        .push_general(d, &flat, need)
                        .map_err(|e| Error::Input(format!("case {i}: {e}")))?
                }
            };
            out.numbers.push(i as u64 + 1);
            out.rows.push(Ok(id));
        }
        Ok(())
    }
}
