//! The general cone test from Python (docs/contract-general.md): `(N, K, 3)` arrays with K > 16 and
//! `(N, K, 6)` arrays, K ≤ 256 generators in use per case, in float64.
//!
//! The same shape as the planar half of the binding: the arrays are checked for shape with
//! the GIL, then, without it, converted chunk by chunk into a [`GeneralBatch`] (here, and
//! only here), evaluated by [`evaluate_general`] (the one call to the engine) and written
//! into the output columns. Generator indices in every answer are rows of the caller's
//! array, whatever `active` and `counts` left out.

use numpy::ndarray::{Array2, ArrayView1, ArrayView2, ArrayView3, Ix1, Ix2, Ix3};
use numpy::{
    AllowTypeChange, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayLikeDyn, PyArrayMethods,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::ops::Range;

use planar_hold::general::solver::Solver;
use planar_hold::general::{
    all_finite, default_need, GeneralBatch, GeneralCase, GeneralOutcome, MAX_DIM,
    MAX_GENERAL_GENERATORS,
};
use planar_hold::io::general::GeneralAnswer;
use planar_hold::Error;

use crate::{py_err, Floats};

/// Most numbers (need and generators) one chunk of the general batch holds: 32 MiB of
/// float64, so that a call of any size needs a bounded buffer beside its outputs.
const CHUNK_VALUES: usize = 1 << 22;

/// About how many numbers one part of a chunk holds on the CPU (256 KiB): enough parts for
/// every core, each converted and solved by one worker.
const PART_VALUES: usize = 1 << 15;

/// The general engine on the GPU: its float32 search finished in float64 on the host
/// (`Engine::evaluate_general_with`), with the inside margin or without. (On the CPU each
/// worker runs the engine's `Solver` on the parts it converts: [`GeneralBuffers::run`].)
fn evaluate_general(
    engine: &mut planar_hold::Engine,
    batch: &GeneralBatch,
    out: &mut [GeneralOutcome],
    inside_margin: bool,
) -> Result<(), Error> {
    engine
        .evaluate_general_with(batch, out, inside_margin)
        .map(|_| ())
}

/// The per-case generator counts, checked against the array: (N,) integers in 0..=K.
pub fn counts(py: Python<'_>, ob: &Bound<'_, PyAny>, n: usize, k: usize) -> PyResult<Vec<u32>> {
    let arr = py.import("numpy")?.getattr("asarray")?.call1((ob,))?;
    let untyped = arr.cast::<PyUntypedArray>()?;
    let kind = untyped.dtype().kind();
    if !matches!(kind, b'i' | b'u') {
        return Err(py_err(Error::Input(format!(
            "counts must be integers, got dtype {}",
            untyped.dtype()
        ))));
    }
    if untyped.shape() != [n] {
        return Err(py_err(Error::Input(format!(
            "counts must have shape (N,) = ({n},), got {:?}",
            untyped.shape()
        ))));
    }
    let values: PyArrayLikeDyn<'_, i64, AllowTypeChange> = arr.extract()?;
    let values = values.as_array();
    values
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if c < 0 || c as u64 > k as u64 {
                Err(py_err(Error::Input(format!(
                    "case {i}: count {c} is not in 0..={k} (generators has {k} rows)"
                ))))
            } else {
                Ok(c as u32)
            }
        })
        .collect()
}

/// Where each case's need comes from.
enum GeneralNeed<'a> {
    One([f64; MAX_DIM]),
    Each(ArrayView2<'a, f64>),
}

/// One call's arrays, read case by case.
struct Views<'a, G> {
    dim: usize,
    gens: ArrayView3<'a, G>,
    gens_flat: Option<&'a [G]>,
    active: Option<ArrayView2<'a, bool>>,
    counts: Option<&'a [u32]>,
    need: GeneralNeed<'a>,
}

/// Reads cases out of the input arrays; made with the GIL, run without it.
trait GeneralFill: Send + Sync {
    /// How many generators case `i` has in use (its count, less the inactive rows).
    fn used(&self, i: usize) -> usize;

    /// Case `i`'s generators into `values` and the array row of each into `rows`; its need
    /// into `need`. An error names the case and the problem.
    fn case_at(
        &self,
        i: usize,
        values: &mut Vec<f64>,
        rows: &mut Vec<u32>,
        need: &mut [f64; MAX_DIM],
    ) -> Result<(), String>;

    /// Case `i`'s generators where they lie in the caller's array (not yet checked finite),
    /// when they can be read there (float64, contiguous, every row of its count in use: the rows are
    /// 0..count); its need into `need`. `None`: copy them with [`GeneralFill::case_at`].
    fn in_place(&self, i: usize, need: &mut [f64; MAX_DIM]) -> Option<Result<&[f64], String>>;
}

/// A generator number type of the input arrays, widened to float64.
trait Number: Copy + Into<f64> + Sync {
    /// `src` appended to `dst` as float64.
    fn extend_into(dst: &mut Vec<f64>, src: &[Self]) {
        dst.extend(src.iter().map(|&v| v.into()));
    }

    /// `src` itself when it is float64.
    fn as_f64(_: &[Self]) -> Option<&[f64]> {
        None
    }
}

impl Number for f32 {}

impl Number for f64 {
    fn extend_into(dst: &mut Vec<f64>, src: &[f64]) {
        dst.extend_from_slice(src);
    }

    fn as_f64(src: &[f64]) -> Option<&[f64]> {
        Some(src)
    }
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

impl<G: Number> GeneralFill for Views<'_, G> {
    fn used(&self, i: usize) -> usize {
        let count = self.counts.map_or(self.gens.shape()[1], |c| c[i] as usize);
        match &self.active {
            None => count,
            Some(a) => (0..count).filter(|&k| a[[i, k]]).count(),
        }
    }

    fn case_at(
        &self,
        i: usize,
        values: &mut Vec<f64>,
        rows: &mut Vec<u32>,
        need: &mut [f64; MAX_DIM],
    ) -> Result<(), String> {
        let (k_max, d) = (self.gens.shape()[1], self.dim);
        let count = self.counts.map_or(k_max, |c| c[i] as usize);
        values.clear();
        rows.clear();
        let on = |k: usize| self.active.as_ref().is_none_or(|a| a[[i, k]]);
        let used = (0..count).filter(|&k| on(k)).count();
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
            for k in (0..count).filter(|&k| on(k)) {
                let start = values.len();
                match self.gens_flat {
                    Some(flat) => {
                        let at = (i * k_max + k) * d;
                        values.extend(flat[at..at + d].iter().map(|&v| v.into()));
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
        self.need_at(i, need)
    }

    fn in_place(&self, i: usize, need: &mut [f64; MAX_DIM]) -> Option<Result<&[f64], String>> {
        let flat = G::as_f64(self.gens_flat?)?;
        if self.active.is_some() {
            return None;
        }
        let (k_max, d) = (self.gens.shape()[1], self.dim);
        let count = self.counts.map_or(k_max, |c| c[i] as usize);
        if count > MAX_GENERAL_GENERATORS {
            return Some(Err(format!(
                "case {i}: {count} generators, more than {MAX_GENERAL_GENERATORS}"
            )));
        }
        let at = i * k_max * d;
        let values = &flat[at..at + count * d];
        // Not finite-checked here: `GeneralCase::new` checks, and [`finite_generators`] names
        // the bad generator only when that fails.
        Some(self.need_at(i, need).map(|()| values))
    }
}

impl<G> Views<'_, G> {
    /// Case `i`'s need into `need`, checked finite.
    fn need_at(&self, i: usize, need: &mut [f64; MAX_DIM]) -> Result<(), String> {
        let d = self.dim;
        match &self.need {
            GeneralNeed::One(v) => *need = *v,
            GeneralNeed::Each(a) => {
                for c in 0..d {
                    need[c] = a[[i, c]];
                }
                if !need[..d].iter().all(|v| v.is_finite()) {
                    return Err(format!("case {i}: need = {:?} is not finite", &need[..d]));
                }
            }
        }
        Ok(())
    }
}

/// The general input of one call, checked for shape, borrowed until the cases are built.
pub struct GeneralInput<'py> {
    dim: usize,
    gens: Floats<'py>,
    active: Option<PyArrayLikeDyn<'py, bool, AllowTypeChange>>,
    counts: Option<Vec<u32>>,
    need: Option<PyArrayLikeDyn<'py, f64, AllowTypeChange>>,
}

impl<'py> GeneralInput<'py> {
    /// `gens` has shape (N, K, d), d 3 or 6 (checked by the caller); `counts` checked too.
    pub fn new(
        gens: Floats<'py>,
        active: Option<PyArrayLikeDyn<'py, bool, AllowTypeChange>>,
        counts: Option<Vec<u32>>,
        need: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<GeneralInput<'py>> {
        let shape = gens.shape();
        let (n, dim) = (shape[0], shape[2]);
        let need = need
            .map(|nd| nd.extract::<PyArrayLikeDyn<f64, AllowTypeChange>>())
            .transpose()?;
        if let Some(nd) = &need {
            let s = nd.shape();
            if !(s == [dim] || s == [n, dim]) {
                return Err(py_err(Error::Input(format!(
                    "need must have shape ({dim},) or (N, {dim}) = ({n}, {dim}), got {s:?}"
                ))));
            }
            if s.len() == 1 {
                let v = nd.as_array();
                if !v.iter().all(|x| x.is_finite()) {
                    let v: Vec<f64> = v.iter().copied().collect();
                    return Err(py_err(Error::Input(format!("need = {v:?} is not finite"))));
                }
            }
        }
        Ok(GeneralInput {
            dim,
            gens,
            active,
            counts,
            need,
        })
    }

    /// Cases in the call.
    pub fn len(&self) -> usize {
        self.gens.shape()[0]
    }

    /// The work of the call, to run without the GIL; the inside margin computed or not.
    pub fn job(&self, inside_margin: bool) -> Job<'_> {
        Job {
            fill: self.filler(),
            n: self.len(),
            dim: self.dim,
            rows: self.gens.shape()[1],
            inside_margin,
        }
    }

    fn filler(&self) -> Box<dyn GeneralFill + '_> {
        let active = self
            .active
            .as_ref()
            .map(|a| a.as_array().into_dimensionality::<Ix2>().expect("checked"));
        let need = match &self.need {
            None => {
                let mut v = [0.0; MAX_DIM];
                v[..self.dim].copy_from_slice(default_need(self.dim));
                GeneralNeed::One(v)
            }
            Some(nd) if nd.shape().len() == 1 => {
                let a: ArrayView1<f64> = nd.as_array().into_dimensionality::<Ix1>().expect("1-d");
                let mut v = [0.0; MAX_DIM];
                for (c, x) in a.iter().enumerate() {
                    v[c] = *x;
                }
                GeneralNeed::One(v)
            }
            Some(nd) => GeneralNeed::Each(nd.as_array().into_dimensionality::<Ix2>().expect("2-d")),
        };
        let counts = self.counts.as_deref();
        macro_rules! views {
            ($g:expr) => {{
                let gens = $g.as_array().into_dimensionality::<Ix3>().expect("checked");
                Box::new(Views {
                    dim: self.dim,
                    gens_flat: gens.to_slice(),
                    gens,
                    active,
                    counts,
                    need,
                }) as Box<dyn GeneralFill + '_>
            }};
        }
        match &self.gens {
            Floats::F32(g) => views!(g),
            Floats::F64(g) => views!(g),
        }
    }
}

/// The buffers of the general engine, kept by each `Engine` and reused: one chunk's parts
/// and their case ranges.
#[derive(Default)]
pub struct GeneralBuffers {
    parts: Vec<Part>,
    ranges: Vec<Range<usize>>,
}

/// Cases `first..` of one chunk, converted: their batch, outcomes and the array row of
/// each generator.
#[derive(Default)]
struct Part {
    first: usize,
    /// Cases in the part.
    len: usize,
    /// The part as one batch, on the GPU.
    batch: GeneralBatch,
    outcomes: Vec<GeneralOutcome>,
    /// Array row of each generator of the part, case after case.
    rows: Vec<u32>,
    /// Where each case's rows start in `rows` (one more than the cases).
    row_starts: Vec<usize>,
    values: Vec<f64>,
    case_rows: Vec<u32>,
    error: Option<Error>,
}

impl Part {
    /// Cases `range` of the call solved by `solver` into this part, each read in place
    /// where it can be ([`GeneralFill::in_place`]), else copied: the first bad case's error.
    fn solve(
        &mut self,
        fill: &dyn GeneralFill,
        dim: usize,
        range: Range<usize>,
        solver: &mut Solver,
    ) -> Result<(), Error> {
        self.first = range.start;
        self.len = 0;
        self.outcomes.clear();
        self.rows.clear();
        self.row_starts.clear();
        self.row_starts.push(0);
        let mut need = [0.0; MAX_DIM];
        for i in range {
            fn checked<'c>(
                i: usize,
                dim: usize,
                gens: &'c [f64],
                need: &'c [f64],
            ) -> Result<GeneralCase<'c>, Error> {
                GeneralCase::new(dim, gens, &need[..dim])
                    .map_err(|e| Error::Input(format!("case {i}: {e}")))
            }
            let outcome = match fill.in_place(i, &mut need) {
                Some(gens) => {
                    let gens = gens.map_err(Error::Input)?;
                    let case = match GeneralCase::new(dim, gens, &need[..dim]) {
                        Ok(case) => case,
                        Err(e) => {
                            // A bad number named with its generator, as a copied case's.
                            finite_generators(i, dim, gens).map_err(Error::Input)?;
                            return Err(Error::Input(format!("case {i}: {e}")));
                        }
                    };
                    self.rows.extend(0..case.len() as u32);
                    solver.solve(&case)
                }
                None => {
                    fill.case_at(i, &mut self.values, &mut self.case_rows, &mut need)
                        .map_err(Error::Input)?;
                    self.rows.extend_from_slice(&self.case_rows);
                    solver.solve(&checked(i, dim, &self.values, &need)?)
                }
            };
            self.outcomes.push(outcome);
            self.row_starts.push(self.rows.len());
            self.len += 1;
        }
        Ok(())
    }

    /// Cases `range` of the call converted into this part's batch: the first bad case's
    /// error.
    fn fill(
        &mut self,
        fill: &dyn GeneralFill,
        dim: usize,
        range: Range<usize>,
    ) -> Result<(), Error> {
        self.first = range.start;
        self.batch.clear();
        self.rows.clear();
        self.row_starts.clear();
        self.row_starts.push(0);
        let mut need = [0.0; MAX_DIM];
        for i in range {
            fill.case_at(i, &mut self.values, &mut self.case_rows, &mut need)
                .map_err(Error::Input)?;
            self.batch
                .push(dim, &self.values, &need[..dim])
                .map_err(|e| Error::Input(format!("case {i}: {e}")))?;
            self.rows.extend_from_slice(&self.case_rows);
            self.row_starts.push(self.rows.len());
        }
        self.len = self.batch.len();
        self.outcomes.resize(self.len, GeneralOutcome::default());
        Ok(())
    }

    fn chunk(&self, dim: usize) -> Chunk<'_> {
        Chunk {
            first: self.first,
            dim,
            outcomes: &self.outcomes[..self.len],
            rows: &self.rows,
            row_starts: &self.row_starts,
        }
    }
}

/// One evaluated chunk: cases `first..first + len` of the call.
pub struct Chunk<'b> {
    pub first: usize,
    pub dim: usize,
    pub outcomes: &'b [GeneralOutcome],
    rows: &'b [u32],
    row_starts: &'b [usize],
}

impl Chunk<'_> {
    /// The array row of generator `j` of chunk case `c`.
    fn row(&self, c: usize, j: u32) -> u32 {
        self.rows[self.row_starts[c] + j as usize]
    }
}

impl GeneralBuffers {
    /// Converts and evaluates every case of `input`, a chunk at a time (a bounded number of
    /// values), handing each part of each chunk to `each`, in order. Runs without the GIL.
    /// On the CPU a chunk's parts (about [`PART_VALUES`] numbers each) are converted and
    /// solved on all cores at once, one part a worker with its own [`Solver`]; on the GPU a
    /// chunk is one part, converted here and evaluated in one batch. On bad input, the first
    /// bad case's error, before anything is evaluated past the chunk that holds it.
    fn run(
        &mut self,
        engine: &mut planar_hold::Engine,
        job: &Job<'_>,
        mut each: impl FnMut(Chunk<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let (fill, n, dim) = (&*job.fill, job.n, job.dim);
        let cpu = matches!(engine, planar_hold::Engine::Cpu);
        let part_values = if cpu { PART_VALUES } else { CHUNK_VALUES };
        let mut first = 0;
        while first < n {
            // The chunk's parts, by the numbers each case holds.
            self.ranges.clear();
            let (mut total, mut in_part, mut start, mut i) = (0, 0, first, first);
            while i < n && (i == first || total < CHUNK_VALUES) {
                let size = fill.used(i).min(MAX_GENERAL_GENERATORS + 1) * dim + dim;
                total += size;
                in_part += size;
                i += 1;
                if in_part >= part_values {
                    self.ranges.push(start..i);
                    (start, in_part) = (i, 0);
                }
            }
            if start < i {
                self.ranges.push(start..i);
            }
            if self.parts.len() < self.ranges.len() {
                self.parts.resize_with(self.ranges.len(), Part::default);
            }
            let parts = &mut self.parts[..self.ranges.len()];
            if cpu {
                parts.par_iter_mut().zip(&self.ranges).for_each_init(
                    || Solver::with_inside_margin(job.inside_margin),
                    |solver, (part, range)| {
                        part.error = part.solve(fill, dim, range.clone(), solver).err();
                    },
                );
                if let Some(e) = parts.iter_mut().find_map(|p| p.error.take()) {
                    return Err(e);
                }
            } else {
                let part = &mut parts[0];
                part.fill(fill, dim, self.ranges[0].clone())?;
                let m = part.len;
                evaluate_general(
                    engine,
                    &part.batch,
                    &mut part.outcomes[..m],
                    job.inside_margin,
                )?;
            }
            for part in parts.iter() {
                each(part.chunk(dim))?;
            }
            first = i;
        }
        Ok(())
    }
}

/// The output columns of a general call.
pub struct GeneralColumns {
    n: usize,
    dim: usize,
    rows: usize,
    verdict: Vec<u8>,
    witness_len: Vec<u8>,
    witness_index: Vec<i32>,
    witness_weight: Vec<f64>,
    certificate: Vec<f64>,
    margin: Vec<f64>,
    capped: Vec<bool>,
    margin_checked: Vec<bool>,
    has_facet: Vec<bool>,
    facet_normal: Vec<f64>,
    facet_mask: Vec<bool>,
}

impl GeneralColumns {
    fn zeroed(n: usize, dim: usize, rows: usize) -> GeneralColumns {
        GeneralColumns {
            n,
            dim,
            rows,
            verdict: vec![0; n],
            witness_len: vec![0; n],
            witness_index: vec![0; n * dim],
            witness_weight: vec![0.0; n * dim],
            certificate: vec![0.0; n * dim],
            margin: vec![0.0; n],
            capped: vec![false; n],
            margin_checked: vec![true; n],
            has_facet: vec![false; n],
            facet_normal: vec![0.0; n * dim],
            facet_mask: vec![false; n * rows],
        }
    }

    /// The rows of one evaluated chunk.
    fn write(&mut self, chunk: &Chunk<'_>) {
        let (d, k) = (self.dim, self.rows);
        for (c, o) in chunk.outcomes.iter().enumerate() {
            let i = chunk.first + c;
            self.verdict[i] = o.verdict as u8;
            if let Some((idx, weights)) = o.witness() {
                self.witness_len[i] = idx.len() as u8;
                for (j, (&g, &w)) in idx.iter().zip(weights).enumerate() {
                    self.witness_index[i * d + j] = chunk.row(c, g) as i32;
                    self.witness_weight[i * d + j] = w;
                }
            }
            if let Some(y) = &o.certificate {
                self.certificate[i * d..(i + 1) * d].copy_from_slice(&y[..d]);
            }
            self.margin[i] = o.margin;
            self.capped[i] = o.capped;
            self.margin_checked[i] = o.margin_checked;
            if let Some(f) = &o.facet {
                self.has_facet[i] = true;
                self.facet_normal[i * d..(i + 1) * d].copy_from_slice(&f.normal[..d]);
                for g in f.generators.iter() {
                    self.facet_mask[i * k + chunk.row(c, g) as usize] = true;
                }
            }
        }
    }
}

/// The answers of one general `cone_test` call: numpy arrays, one row per case.
#[pyclass(frozen, module = "planar_hold")]
pub struct GeneralOutcomes {
    /// 3 or 6.
    #[pyo3(get)]
    dim: usize,
    #[pyo3(get)]
    verdict: Py<PyArray1<u8>>,
    #[pyo3(get)]
    witness_len: Py<PyArray1<u8>>,
    #[pyo3(get)]
    witness_index: Py<PyArray2<i32>>,
    #[pyo3(get)]
    witness_weight: Py<PyArray2<f64>>,
    #[pyo3(get)]
    certificate: Py<PyArray2<f64>>,
    #[pyo3(get)]
    margin: Py<PyArray1<f64>>,
    #[pyo3(get)]
    capped: Py<PyArray1<bool>>,
    #[pyo3(get)]
    margin_checked: Py<PyArray1<bool>>,
    #[pyo3(get)]
    has_facet: Py<PyArray1<bool>>,
    #[pyo3(get)]
    facet_normal: Py<PyArray2<f64>>,
    #[pyo3(get)]
    facet_mask: Py<PyArray2<bool>>,
}

impl GeneralOutcomes {
    /// The columns handed to numpy without a copy.
    pub fn new(py: Python<'_>, c: GeneralColumns) -> GeneralOutcomes {
        let (n, d) = (c.n, c.dim);
        fn table<T: numpy::Element>(
            py: Python<'_>,
            r: usize,
            w: usize,
            v: Vec<T>,
        ) -> Py<PyArray2<T>> {
            PyArray2::from_owned_array(py, Array2::from_shape_vec((r, w), v).expect("sized"))
                .unbind()
        }
        GeneralOutcomes {
            dim: d,
            verdict: PyArray1::from_vec(py, c.verdict).unbind(),
            witness_len: PyArray1::from_vec(py, c.witness_len).unbind(),
            witness_index: table(py, n, d, c.witness_index),
            witness_weight: table(py, n, d, c.witness_weight),
            certificate: table(py, n, d, c.certificate),
            margin: PyArray1::from_vec(py, c.margin).unbind(),
            capped: PyArray1::from_vec(py, c.capped).unbind(),
            margin_checked: PyArray1::from_vec(py, c.margin_checked).unbind(),
            has_facet: PyArray1::from_vec(py, c.has_facet).unbind(),
            facet_normal: table(py, n, d, c.facet_normal),
            facet_mask: table(py, n, c.rows, c.facet_mask),
        }
    }
}

#[pymethods]
impl GeneralOutcomes {
    fn __len__(&self, py: Python<'_>) -> usize {
        self.verdict.bind(py).len()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let verdicts = self.verdict.bind(py).readonly();
        let mut counts = [0usize; 3];
        for &v in verdicts.as_array() {
            counts[v as usize] += 1;
        }
        Ok(format!(
            "GeneralOutcomes({} cases in R^{}: {} supported, {} unsupported, {} uncertain)",
            verdicts.len(),
            self.dim,
            counts[0],
            counts[1],
            counts[2]
        ))
    }
}

/// One call's work, made with the GIL from a [`GeneralInput`] and run without it.
pub struct Job<'a> {
    fill: Box<dyn GeneralFill + 'a>,
    n: usize,
    dim: usize,
    rows: usize,
    inside_margin: bool,
}

impl Job<'_> {
    /// The outcome columns of every case.
    pub fn columns(
        &self,
        engine: &mut planar_hold::Engine,
        buffers: &mut GeneralBuffers,
    ) -> Result<GeneralColumns, Error> {
        let mut columns = GeneralColumns::zeroed(self.n, self.dim, self.rows);
        buffers.run(engine, self, |chunk| {
            columns.write(&chunk);
            Ok(())
        })?;
        Ok(columns)
    }

    /// The answers of every case as `planar-hold eval` writes them, as one JSON array (each
    /// object with a null `id`), made by the CLI's own [`GeneralAnswer`].
    pub fn answers_json(
        &self,
        engine: &mut planar_hold::Engine,
        buffers: &mut GeneralBuffers,
    ) -> Result<String, Error> {
        let mut text = String::from("[");
        let mut witness_rows = [0u32; MAX_DIM];
        buffers.run(engine, self, |chunk| {
            for (c, o) in chunk.outcomes.iter().enumerate() {
                let mut answer = GeneralAnswer::new(None, chunk.dim, o);
                // Indices as rows of the caller's array (the identity unless `active` or
                // `counts` left rows out before them).
                if let Some(w) = answer.witness.as_mut() {
                    for (slot, &g) in witness_rows.iter_mut().zip(w.generators) {
                        *slot = chunk.row(c, g);
                    }
                    w.generators = &witness_rows[..w.generators.len()];
                }
                if let Some(f) = answer.facet.as_mut() {
                    for g in f.generators.iter_mut() {
                        *g = chunk.row(c, *g);
                    }
                }
                if chunk.first + c > 0 {
                    text.push(',');
                }
                let line = serde_json::to_string(&answer)
                    .map_err(|e| Error::Input(format!("cannot serialise: {e}")))?;
                text.push_str(&line);
            }
            Ok(())
        })?;
        text.push(']');
        Ok(text)
    }
}
