//! Python bindings of planar-hold: numpy arrays in, numpy arrays out.
//!
//! Built by maturin as `planar_hold._native`; the Python package `planar_hold` re-exports it.
//! The input arrays are read in place (float32 or float64, any strides) and copied once, into
//! the `Case` structs the engine runs on; the GIL is released from that copy to the last
//! output array. Answers that must equal the CLI's (`answers`, `gate`) go through the same
//! serde serialisation as `planar-hold eval` / `gate` and come back through `json.loads`.

use std::sync::Mutex;

mod general;

use numpy::ndarray::{Array2, ArrayView2, ArrayView3, Ix1, Ix2, Ix3};
use numpy::{
    AllowTypeChange, PyArray1, PyArray2, PyArrayLikeDyn, PyArrayMethods, PyReadonlyArrayDyn,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rayon::prelude::*;

use planar_hold::jsonl::Answer;
use planar_hold::scene::{hold_reports, parse_line};
use planar_hold::{Backend, Case, Error, Outcome, MAX_GENERATORS};

pyo3::create_exception!(
    planar_hold,
    GpuError,
    PyRuntimeError,
    "The GPU engine failed: no adapter (the message says how to install a software one), \
     device creation, device lost, out of memory or limits."
);

/// Every Rust error becomes a Python exception here, and only here: bad input is a
/// `ValueError`, everything the GPU can do wrong a `GpuError`.
fn py_err(e: Error) -> PyErr {
    match e {
        Error::TooManyGenerators(_) | Error::NonFinite(_) | Error::Input(_) => {
            PyValueError::new_err(e.to_string())
        }
        _ => GpuError::new_err(e.to_string()),
    }
}

/// An input error that names where it is ("case 3", "scene 0").
fn input_at(place: String, e: Error) -> Error {
    match e {
        Error::Input(message) => Error::Input(format!("{place}: {message}")),
        other => Error::Input(format!("{place}: {other}")),
    }
}

// ------------------------------------------------------------------ input arrays

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

    fn shape(&self) -> Vec<usize> {
        match self {
            Floats::F32(a) => a.shape().to_vec(),
            Floats::F64(a) => a.shape().to_vec(),
        }
    }
}

/// Where each case's need comes from.
enum Need<'a, T> {
    /// One need for every case: (3,) or the default (0, 1, 0).
    One([f32; 3]),
    /// Row `i` for case `i`: (N, 3).
    Each(ArrayView2<'a, T>),
}

/// Three numbers as float32, or `None` when one is not finite there (as `eval` reads them).
fn finite3<T: Copy + Into<f64>>(v: [T; 3]) -> Option<[f32; 3]> {
    let x = v.map(|c| c.into() as f32);
    x.iter().all(|c| c.is_finite()).then_some(x)
}

/// The input views of one call, read case by case: through a flat slice where the array is
/// in standard (C) order, the common case, else by index.
struct Views<'a, G, N> {
    gens: ArrayView3<'a, G>,
    gens_flat: Option<&'a [G]>,
    active: Option<ArrayView2<'a, bool>>,
    active_flat: Option<&'a [bool]>,
    counts: Option<&'a [u32]>,
    need: Need<'a, N>,
}

impl<'a, G: Copy + Into<f64> + Sync, N: Copy + Into<f64> + Sync> Views<'a, G, N> {
    fn new(
        gens: ArrayView3<'a, G>,
        active: Option<ArrayView2<'a, bool>>,
        counts: Option<&'a [u32]>,
        need: Need<'a, N>,
    ) -> Self {
        Views {
            gens_flat: gens.to_slice(),
            active_flat: active.and_then(|a| a.to_slice()),
            gens,
            active,
            counts,
            need,
        }
    }

    /// Case `i`: its generator slots (inactive ones zeroed), active mask and need.
    fn case_at(&self, i: usize) -> Result<Case, String> {
        let k_max = self.gens.shape()[1];
        let count = self.counts.map_or(k_max, |c| c[i] as usize);
        let mut case = Case::default();
        for k in 0..count {
            let on = match (self.active_flat, &self.active) {
                (Some(flat), _) => flat[i * k_max + k],
                (None, Some(a)) => a[[i, k]],
                (None, None) => true,
            };
            if !on {
                continue;
            }
            let g = match self.gens_flat {
                Some(flat) => {
                    let at = (i * k_max + k) * 3;
                    [flat[at], flat[at + 1], flat[at + 2]]
                }
                None => [
                    self.gens[[i, k, 0]],
                    self.gens[[i, k, 1]],
                    self.gens[[i, k, 2]],
                ],
            };
            case.generators[k] = finite3(g).ok_or_else(|| {
                let g = g.map(Into::into);
                format!("case {i}: generator {k} = {g:?} is not finite in float32")
            })?;
            case.active_mask |= 1 << k;
        }
        case.need = match &self.need {
            Need::One(n) => *n,
            Need::Each(n) => {
                let v = [n[[i, 0]], n[[i, 1]], n[[i, 2]]];
                finite3(v).ok_or_else(|| {
                    let v = v.map(Into::into);
                    format!("case {i}: need = {v:?} is not finite in float32")
                })?
            }
        };
        Ok(case)
    }

    /// Fills `out` with cases `first..first + out.len()` on this thread; false at a bad case.
    fn block(&self, first: usize, out: &mut [Case]) -> bool {
        out.iter_mut()
            .enumerate()
            .all(|(j, slot)| match self.case_at(first + j) {
                Ok(case) => {
                    *slot = case;
                    true
                }
                Err(_) => false,
            })
    }
}

/// Fills blocks of a case buffer from the input arrays; made with the GIL, run without it.
trait Fill: Send + Sync {
    /// Cases `first..first + out.len()` into `out`; false when one of them is bad.
    fn fill(&self, first: usize, out: &mut [Case]) -> bool;
    /// The error of the first bad case among the first `n` (called only after a failure).
    fn first_error(&self, n: usize) -> Error;
}

impl<G: Copy + Into<f64> + Sync, N: Copy + Into<f64> + Sync> Fill for Views<'_, G, N>
where
    for<'v> Views<'v, G, N>: Send + Sync,
{
    fn fill(&self, first: usize, out: &mut [Case]) -> bool {
        self.block(first, out)
    }

    fn first_error(&self, n: usize) -> Error {
        let first = (0..n).find_map(|i| self.case_at(i).err());
        Error::Input(first.expect("a failing case"))
    }
}

type Filler<'a> = Box<dyn Fill + 'a>;

/// Cases per block of the parallel conversion (and, on the CPU, of the fused evaluation: a
/// block's cases stay in cache between their conversion and their cone tests).
const BLOCK: usize = 1024;

/// Converts every case into `out` on all cores; on bad input, the first bad case's error.
fn fill_all(fill: &dyn Fill, out: &mut [Case]) -> Result<(), Error> {
    let n = out.len();
    let ok = out
        .par_chunks_mut(BLOCK)
        .enumerate()
        .all(|(b, chunk)| fill.fill(b * BLOCK, chunk));
    if ok {
        Ok(())
    } else {
        Err(fill.first_error(n))
    }
}

/// The arrays of one call, checked for shape, and the engine they go to: the planar
/// enumeration for (N, K ≤ 16, 3), the general engine for (N, K > 16, 3), (N, K, 6), or any of
/// them with `general`.
enum Call<'py> {
    Planar(Input<'py>),
    General(general::GeneralInput<'py>),
}

impl<'py> Call<'py> {
    fn extract(
        generators: &Bound<'py, PyAny>,
        active: Option<&Bound<'py, PyAny>>,
        need: Option<&Bound<'py, PyAny>>,
        counts: Option<&Bound<'py, PyAny>>,
        general: bool,
    ) -> PyResult<Call<'py>> {
        let gens = Floats::extract(generators)?;
        let shape = gens.shape();
        if shape.len() != 3 || !(shape[2] == 3 || shape[2] == 6) {
            return Err(py_err(Error::Input(format!(
                "generators must have shape (N, K, 3) or (N, K, 6), got {shape:?}"
            ))));
        }
        let active = active
            .map(|a| a.extract::<PyArrayLikeDyn<bool, AllowTypeChange>>())
            .transpose()?;
        if let Some(a) = &active {
            if a.shape() != &shape[..2] {
                return Err(py_err(Error::Input(format!(
                    "active must have shape (N, K) = {:?}, got {:?}",
                    &shape[..2],
                    a.shape()
                ))));
            }
        }
        let counts = counts
            .map(|c| general::counts(generators.py(), c, shape[0], shape[1]))
            .transpose()?;
        if shape[2] == 3 && shape[1] <= MAX_GENERATORS && !general {
            Ok(Call::Planar(Input::new(gens, active, counts, need)?))
        } else {
            Ok(Call::General(general::GeneralInput::new(
                gens, active, counts, need,
            )?))
        }
    }
}

/// The planar input arrays, checked for shape, borrowed (not copied) until the cases are built.
struct Input<'py> {
    gens: Floats<'py>,
    active: Option<PyArrayLikeDyn<'py, bool, AllowTypeChange>>,
    counts: Option<Vec<u32>>,
    need: Option<Floats<'py>>,
}

impl<'py> Input<'py> {
    /// `gens` of shape (N, K ≤ 16, 3), `active` and `counts` checked by [`Call::extract`].
    fn new(
        gens: Floats<'py>,
        active: Option<PyArrayLikeDyn<'py, bool, AllowTypeChange>>,
        counts: Option<Vec<u32>>,
        need: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Input<'py>> {
        let shape = gens.shape();
        let need = need.map(Floats::extract).transpose()?;
        if let Some(nd) = &need {
            let s = nd.shape();
            if !(s == [3] || s == [shape[0], 3]) {
                return Err(py_err(Error::Input(format!(
                    "need must have shape (3,) or (N, 3) = ({}, 3), got {s:?}",
                    shape[0]
                ))));
            }
        }
        Ok(Input {
            gens,
            active,
            counts,
            need,
        })
    }

    /// Cases in the call.
    fn len(&self) -> usize {
        self.gens.shape()[0]
    }

    /// The conversion into `Case` structs, one monomorphic loop per dtype pair.
    fn filler(&self) -> PyResult<Filler<'_>> {
        let active = self
            .active
            .as_ref()
            .map(|a| a.as_array().into_dimensionality::<Ix2>().expect("checked"));
        let counts = self.counts.as_deref();
        macro_rules! fill {
            ($gens:expr, $need:expr) => {{
                let views = Views::new(
                    $gens.into_dimensionality::<Ix3>().expect("checked"),
                    active,
                    counts,
                    $need,
                );
                Ok(Box::new(views) as Filler<'_>)
            }};
        }
        match (&self.gens, &self.need) {
            (Floats::F32(g), None) => fill!(g.as_array(), Need::<f32>::One([0.0, 1.0, 0.0])),
            (Floats::F64(g), None) => fill!(g.as_array(), Need::<f32>::One([0.0, 1.0, 0.0])),
            (g, Some(nd)) if nd.shape().len() == 1 => {
                let v = match nd {
                    Floats::F32(a) => {
                        let a = a.as_array().into_dimensionality::<Ix1>().expect("checked");
                        [a[0], a[1], a[2]].map(f64::from)
                    }
                    Floats::F64(a) => {
                        let a = a.as_array().into_dimensionality::<Ix1>().expect("checked");
                        [a[0], a[1], a[2]]
                    }
                };
                let one = finite3(v).ok_or_else(|| {
                    py_err(Error::Input(format!(
                        "need = {v:?} is not finite in float32"
                    )))
                })?;
                match g {
                    Floats::F32(g) => fill!(g.as_array(), Need::<f32>::One(one)),
                    Floats::F64(g) => fill!(g.as_array(), Need::<f32>::One(one)),
                }
            }
            (g, Some(nd)) => {
                macro_rules! each {
                    ($n:expr) => {
                        Need::Each($n.as_array().into_dimensionality::<Ix2>().expect("checked"))
                    };
                }
                match (g, nd) {
                    (Floats::F32(g), Floats::F32(n)) => fill!(g.as_array(), each!(n)),
                    (Floats::F32(g), Floats::F64(n)) => fill!(g.as_array(), each!(n)),
                    (Floats::F64(g), Floats::F32(n)) => fill!(g.as_array(), each!(n)),
                    (Floats::F64(g), Floats::F64(n)) => fill!(g.as_array(), each!(n)),
                }
            }
        }
    }
}

// ------------------------------------------------------------------ outcomes

/// The outcome columns, made without the GIL and handed to numpy without a copy.
struct Columns {
    verdict: Vec<u8>,
    witness_len: Vec<u8>,
    witness_index: Vec<u8>,
    witness_weight: Vec<f64>,
    certificate: Vec<f32>,
    margin: Vec<f32>,
    capped: Vec<bool>,
    binding: Vec<i32>,
}

impl Columns {
    /// Zeroed columns for `n` cases.
    fn zeroed(n: usize) -> Columns {
        Columns {
            verdict: vec![0; n],
            witness_len: vec![0; n],
            witness_index: vec![0; 3 * n],
            witness_weight: vec![0.0; 3 * n],
            certificate: vec![0.0; 3 * n],
            margin: vec![0.0; n],
            capped: vec![false; n],
            binding: vec![0; n],
        }
    }

    /// The columns of `n` cases filled block by block on all cores: `block(b, rows)` writes
    /// the rows of cases `b·BLOCK..` (at most `BLOCK` of them); false stops the work.
    fn par_blocks(n: usize, block: impl Fn(usize, Rows<'_>) -> bool + Sync) -> (Columns, bool) {
        let mut c = Columns::zeroed(n);
        let ok = c
            .verdict
            .par_chunks_mut(BLOCK)
            .zip(c.witness_len.par_chunks_mut(BLOCK))
            .zip(c.witness_index.par_chunks_mut(3 * BLOCK))
            .zip(c.witness_weight.par_chunks_mut(3 * BLOCK))
            .zip(c.certificate.par_chunks_mut(3 * BLOCK))
            .zip(c.margin.par_chunks_mut(BLOCK))
            .zip(c.capped.par_chunks_mut(BLOCK))
            .zip(c.binding.par_chunks_mut(BLOCK))
            .enumerate()
            .all(
                |(
                    b,
                    (
                        (
                            (
                                (
                                    (((verdict, witness_len), witness_index), witness_weight),
                                    certificate,
                                ),
                                margin,
                            ),
                            capped,
                        ),
                        binding,
                    ),
                )| {
                    let rows = Rows {
                        verdict,
                        witness_len,
                        witness_index,
                        witness_weight,
                        certificate,
                        margin,
                        capped,
                        binding,
                    };
                    block(b, rows)
                },
            );
        (c, ok)
    }

    /// The columns of evaluated outcomes.
    fn new(outcomes: &[Outcome]) -> Columns {
        let (c, _) = Columns::par_blocks(outcomes.len(), |b, mut rows| {
            let start = b * BLOCK;
            rows.write(&outcomes[start..start + rows.verdict.len()]);
            true
        });
        c
    }
}

/// One block's rows of every column.
struct Rows<'a> {
    verdict: &'a mut [u8],
    witness_len: &'a mut [u8],
    witness_index: &'a mut [u8],
    witness_weight: &'a mut [f64],
    certificate: &'a mut [f32],
    margin: &'a mut [f32],
    capped: &'a mut [bool],
    binding: &'a mut [i32],
}

impl Rows<'_> {
    /// The witness and certificate only where the verdict gives them (as `Outcome::witness`
    /// and `Outcome::certificate`), zeros elsewhere.
    fn write(&mut self, outcomes: &[Outcome]) {
        for (i, o) in outcomes.iter().enumerate() {
            self.verdict[i] = o.verdict() as u8;
            let supported = o.verdict() == planar_hold::Verdict::Supported;
            let len = if supported { o.witness_len.min(3) } else { 0 };
            self.witness_len[i] = len as u8;
            for k in 0..len as usize {
                self.witness_index[3 * i + k] = o.witness_index[k] as u8;
                // Weight k is witness_weight[k]·2^witness_exponent[k] (Outcome::witness).
                self.witness_weight[3 * i + k] =
                    f64::from(o.witness_weight[k]) * 2f64.powi(o.witness_exponent[k]);
            }
            if let Some(y) = o.certificate() {
                let row = &mut self.certificate[3 * i..3 * i + 3];
                row.copy_from_slice(&y.map(|v| v + 0.0));
            }
            self.margin[i] = o.margin;
            self.capped[i] = o.is_capped();
            self.binding[i] = o.binding().map_or(-1, |b| b as i32);
        }
    }
}

/// The answers of one `cone_test` call: numpy arrays named like the fields of the Rust
/// `Outcome`, one row per case.
#[pyclass(frozen, module = "planar_hold")]
struct Outcomes {
    /// (N,) uint8: 0 SUPPORTED, 1 UNSUPPORTED, 2 UNCERTAIN.
    #[pyo3(get)]
    verdict: Py<PyArray1<u8>>,
    /// (N,) uint8: generators in the witness, 0..=3 (0 unless supported).
    #[pyo3(get)]
    witness_len: Py<PyArray1<u8>>,
    /// (N, 3) uint8: generator slots of the witness, the first `witness_len` used.
    #[pyo3(get)]
    witness_index: Py<PyArray2<u8>>,
    /// (N, 3) float64: witness weights in the caller's units, the first `witness_len` used.
    #[pyo3(get)]
    witness_weight: Py<PyArray2<f64>>,
    /// (N, 3) float32: the certificate's unit normal where unsupported, zeros elsewhere.
    #[pyo3(get)]
    certificate: Py<PyArray2<f32>>,
    /// (N,) float32: signed distance of the need to the cone's boundary (at most 1000).
    #[pyo3(get)]
    margin: Py<PyArray1<f32>>,
    /// (N,) bool: no candidate supports the cone (it fills R³); the margin is the cap.
    #[pyo3(get)]
    capped: Py<PyArray1<bool>>,
    /// (N,) int32: index of the binding candidate, -1 for none.
    #[pyo3(get)]
    binding: Py<PyArray1<i32>>,
}

impl Outcomes {
    fn new(py: Python<'_>, c: Columns) -> Outcomes {
        let n = c.verdict.len();
        let rows3 = |v| Array2::from_shape_vec((n, 3), v).expect("3 per case");
        Outcomes {
            verdict: PyArray1::from_vec(py, c.verdict).unbind(),
            witness_len: PyArray1::from_vec(py, c.witness_len).unbind(),
            witness_index: PyArray2::from_owned_array(py, rows3(c.witness_index)).unbind(),
            witness_weight: PyArray2::from_owned_array(
                py,
                Array2::from_shape_vec((n, 3), c.witness_weight).expect("3 per case"),
            )
            .unbind(),
            certificate: PyArray2::from_owned_array(
                py,
                Array2::from_shape_vec((n, 3), c.certificate).expect("3 per case"),
            )
            .unbind(),
            margin: PyArray1::from_vec(py, c.margin).unbind(),
            capped: PyArray1::from_vec(py, c.capped).unbind(),
            binding: PyArray1::from_vec(py, c.binding).unbind(),
        }
    }
}

#[pymethods]
impl Outcomes {
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
            "Outcomes({} cases: {} supported, {} unsupported, {} uncertain)",
            verdicts.len(),
            counts[0],
            counts[1],
            counts[2]
        ))
    }
}

// ------------------------------------------------------------------ engine

/// A cone-test engine, made once (adapter, device, pipeline) and reused for every batch.
#[pyclass(frozen, module = "planar_hold")]
struct Engine {
    state: Mutex<State>,
    backend: &'static str,
}

/// The engine and the buffers of the largest batch so far, reused by every call (276 bytes
/// per case): a batch of the same size again touches no new memory. The general engine's
/// buffers hold one chunk (at most 32 MiB of numbers) whatever the call's size.
struct State {
    engine: planar_hold::Engine,
    cases: Vec<Case>,
    outcomes: Vec<Outcome>,
    general: general::GeneralBuffers,
}

impl State {
    /// Converts `n` cases into the case buffer (grown as needed) and evaluates them.
    fn evaluate(&mut self, fill: &dyn Fill, n: usize) -> Result<(&[Case], &[Outcome]), Error> {
        if self.cases.len() < n {
            self.cases.resize(n, Case::default());
            self.outcomes.resize(n, Outcome::default());
        }
        let (cases, outcomes) = (&mut self.cases[..n], &mut self.outcomes[..n]);
        fill_all(fill, cases)?;
        self.engine.evaluate_into(cases, outcomes)?;
        Ok((cases, outcomes))
    }
}

impl Engine {
    /// Runs `f` on the engine's state; callers hold no GIL (other Python threads wait here).
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut state)
    }

    /// Converts the input into the case buffer and evaluates it, all without the GIL; `then`
    /// reads the cases and their outcomes.
    fn run<R: Send>(
        &self,
        py: Python<'_>,
        input: &Input<'_>,
        then: impl FnOnce(&[Case], &[Outcome]) -> Result<R, Error> + Send,
    ) -> PyResult<R> {
        let n = input.len();
        let fill = input.filler()?;
        py.detach(|| {
            self.with(|state| {
                let (cases, outcomes) = state.evaluate(&*fill, n)?;
                then(cases, outcomes)
            })
        })
        .map_err(py_err)
    }

    /// The outcome columns of every case. On the CPU, conversion, cone tests and columns run
    /// fused block by block on all cores, so a block's cases never leave the cache (the
    /// engine is fast enough that a round trip of 208-byte cases through memory would cost a
    /// third of its rate); elsewhere as `run`.
    fn columns(&self, py: Python<'_>, input: &Input<'_>) -> PyResult<Columns> {
        let n = input.len();
        let fill = input.filler()?;
        py.detach(|| {
            self.with(|state| {
                if !matches!(state.engine, planar_hold::Engine::Cpu) {
                    return Ok(Columns::new(state.evaluate(&*fill, n)?.1));
                }
                thread_local! {
                    static BUFFERS: std::cell::RefCell<(Vec<Case>, Vec<Outcome>)> =
                        std::cell::RefCell::new((vec![Case::default(); BLOCK], vec![Outcome::default(); BLOCK]));
                }
                let (columns, ok) = Columns::par_blocks(n, |b, mut rows| {
                    BUFFERS.with_borrow_mut(|(cases, outcomes)| {
                        let m = rows.verdict.len();
                        let (cases, outcomes) = (&mut cases[..m], &mut outcomes[..m]);
                        if !fill.fill(b * BLOCK, cases) {
                            return false;
                        }
                        planar_hold::planar::cone_test_slice(cases, outcomes);
                        rows.write(outcomes);
                        true
                    })
                });
                if ok {
                    Ok(columns)
                } else {
                    Err(fill.first_error(n))
                }
            })
        })
        .map_err(py_err)
    }
}

/// `json.loads(text)`: the exact Python values of what the CLI would have written.
fn json_loads<'py>(py: Python<'py>, text: String) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.getattr("loads")?.call1((text,))
}

fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| Error::Input(format!("cannot serialise: {e}")))
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (backend = "cpu"))]
    fn new(py: Python<'_>, backend: &str) -> PyResult<Engine> {
        let (kind, name) = match backend {
            "cpu" => (Backend::Cpu, "cpu"),
            "gpu" => (Backend::Gpu, "gpu"),
            other => {
                return Err(PyValueError::new_err(format!(
                    "backend must be \"cpu\" or \"gpu\", got {other:?}"
                )))
            }
        };
        let engine = py
            .detach(|| planar_hold::Engine::new(kind))
            .map_err(py_err)?;
        Ok(Engine {
            state: Mutex::new(State {
                engine,
                cases: Vec::new(),
                outcomes: Vec::new(),
                general: general::GeneralBuffers::default(),
            }),
            backend: name,
        })
    }

    /// "cpu" or "gpu".
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }

    /// What runs: "cpu (N threads)" or the GPU adapter's name and backend.
    fn describe(&self) -> String {
        self.with(|s| s.engine.describe())
    }

    fn __repr__(&self) -> String {
        format!("Engine({:?}: {})", self.backend, self.describe())
    }

    /// The cone test of every case (see the stub for the full contract): `Outcomes` from the
    /// planar enumeration, `GeneralOutcomes` from the general engine.
    #[pyo3(signature = (generators, active = None, need = None, counts = None, *, general = false, inside_margin = true))]
    #[allow(clippy::too_many_arguments)]
    fn cone_test<'py>(
        &self,
        py: Python<'py>,
        generators: &Bound<'py, PyAny>,
        active: Option<&Bound<'py, PyAny>>,
        need: Option<&Bound<'py, PyAny>>,
        counts: Option<&Bound<'py, PyAny>>,
        general: bool,
        inside_margin: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        match Call::extract(generators, active, need, counts, general)? {
            Call::Planar(input) => {
                let columns = self.columns(py, &input)?;
                Ok(Bound::new(py, Outcomes::new(py, columns))?.into_any())
            }
            Call::General(input) => {
                let job = input.job(inside_margin);
                let columns = py
                    .detach(|| self.with(|s| job.columns(&mut s.engine, &mut s.general)))
                    .map_err(py_err)?;
                Ok(Bound::new(py, general::GeneralOutcomes::new(py, columns))?.into_any())
            }
        }
    }

    /// The answers as `planar-hold eval` writes them, one dict per case.
    #[pyo3(signature = (generators, active = None, need = None, ids = None, counts = None, *, general = false))]
    #[allow(clippy::too_many_arguments)]
    fn answers<'py>(
        &self,
        py: Python<'py>,
        generators: &Bound<'py, PyAny>,
        active: Option<&Bound<'py, PyAny>>,
        need: Option<&Bound<'py, PyAny>>,
        ids: Option<&Bound<'py, PyAny>>,
        counts: Option<&Bound<'py, PyAny>>,
        general: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let call = Call::extract(generators, active, need, counts, general)?;
        let n = match &call {
            Call::Planar(input) => input.len(),
            Call::General(input) => input.len(),
        };
        let ids: Option<Vec<Bound<'py, PyAny>>> = ids
            .map(|ids| ids.try_iter()?.collect::<PyResult<Vec<_>>>())
            .transpose()?;
        if let Some(ids) = &ids {
            if ids.len() != n {
                return Err(py_err(Error::Input(format!(
                    "{} ids for {n} cases",
                    ids.len()
                ))));
            }
        }
        let (text, general) = match &call {
            Call::Planar(input) => {
                let text = self.run(py, input, |cases, outcomes| {
                    let answers: Vec<Answer> = cases
                        .iter()
                        .zip(outcomes)
                        .map(|(case, o)| Answer::new(None, case, o))
                        .collect();
                    to_json(&answers)
                })?;
                (text, false)
            }
            Call::General(input) => {
                let job = input.job(true);
                let text = py
                    .detach(|| self.with(|s| job.answers_json(&mut s.engine, &mut s.general)))
                    .map_err(py_err)?;
                (text, true)
            }
        };
        let list = json_loads(py, text)?.cast_into::<PyList>()?;
        if general {
            // The general answer writes `"id": null` where it has none; here ids are added
            // below, as for planar answers.
            for answer in list.iter() {
                answer.cast::<PyDict>()?.del_item("id")?;
            }
        }
        if let Some(ids) = ids {
            // `id` first, as eval writes it; a None id is left out, as eval leaves it out.
            for (i, id) in ids.into_iter().enumerate() {
                if id.is_none() {
                    continue;
                }
                let answer = PyDict::new(py);
                answer.set_item("id", id)?;
                answer.update(list.get_item(i)?.cast::<PyDict>()?.as_mapping())?;
                list.set_item(i, answer)?;
            }
        }
        Ok(list)
    }

    /// The gate's reports on scenes and edits, planar and spatial (`"dim": 3`) mixed, as
    /// `planar-hold gate` writes them.
    fn gate<'py>(
        &self,
        py: Python<'py>,
        scenes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if scenes.is_instance_of::<PyDict>() || scenes.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "gate takes an iterable of scenes (dicts or JSON lines), not one scene",
            ));
        }
        let dumps = py.import("json")?.getattr("dumps")?;
        let strict = PyDict::new(py);
        strict.set_item("allow_nan", false)?;
        let mut lines = Vec::new();
        for (i, scene) in scenes.try_iter()?.enumerate() {
            let scene = scene?;
            let text = match scene.cast::<PyString>() {
                Ok(s) => s.extract::<String>()?,
                Err(_) => dumps
                    .call((&scene,), Some(&strict))
                    .and_then(|t| t.extract::<String>())
                    .map_err(|e| {
                        // json.dumps(allow_nan=False) refuses NaN and infinities with a
                        // message that does not say which: say it.
                        let hint = if e.to_string().contains("Out of range float") {
                            " (a number is NaN or infinite; JSON numbers must be finite)"
                        } else {
                            ""
                        };
                        py_err(Error::Input(format!(
                            "scene {i}: not a JSON object: {e}{hint}"
                        )))
                    })?,
            };
            lines.push(text);
        }
        let text = py.detach(|| {
            let scenes = lines
                .iter()
                .enumerate()
                .map(|(i, t)| parse_line(t).map_err(|e| input_at(format!("scene {i}"), e)))
                .collect::<Result<Vec<_>, _>>()?;
            let reports = self.with(|s| hold_reports(&mut s.engine, &scenes))?;
            to_json(&reports)
        });
        json_loads(py, text.map_err(py_err)?)
    }
}

/// The compiled half of `planar_hold`.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_class::<Outcomes>()?;
    m.add_class::<general::GeneralOutcomes>()?;
    m.add("GpuError", m.py().get_type::<GpuError>())?;
    m.add("SUPPORTED", planar_hold::Verdict::Supported as u8)?;
    m.add("UNSUPPORTED", planar_hold::Verdict::Unsupported as u8)?;
    m.add("UNCERTAIN", planar_hold::Verdict::Uncertain as u8)?;
    m.add("MAX_GENERATORS", MAX_GENERATORS)?;
    m.add(
        "MAX_GENERAL_GENERATORS",
        planar_hold::general::MAX_GENERAL_GENERATORS,
    )?;
    m.add("MARGIN_CAP", planar_hold::MARGIN_CAP)?;
    Ok(())
}
