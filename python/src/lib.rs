//! Python bindings of planar-hold: numpy arrays in, numpy arrays out.
//!
//! Built by maturin as `planar_hold._native`; the Python package `planar_hold` re-exports it.
//! The input arrays are read in place (float32 or float64, any strides) and copied once, into
//! the `Case` structs the engine runs on; the GIL is released from that copy to the last
//! output array. Answers that must equal the CLI's (`answers`, `gate`) go through the same
//! serde serialisation as `planar-hold eval` / `gate` and come back through `json.loads`.

use std::sync::Mutex;

use numpy::ndarray::{Array2, ArrayView2, ArrayView3, Ix1, Ix2, Ix3};
use numpy::{
    AllowTypeChange, PyArray1, PyArray2, PyArrayLikeDyn, PyArrayMethods, PyReadonlyArrayDyn,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
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

/// Case `i`: its generator slots (inactive ones zeroed), active mask and need.
fn case_at<G: Copy + Into<f64>, N: Copy + Into<f64>>(
    i: usize,
    gens: &ArrayView3<G>,
    active: Option<&ArrayView2<bool>>,
    need: &Need<N>,
) -> Result<Case, String> {
    let mut case = Case::default();
    for k in 0..gens.shape()[1] {
        if let Some(a) = active {
            if !a[[i, k]] {
                continue;
            }
        }
        let g = [gens[[i, k, 0]], gens[[i, k, 1]], gens[[i, k, 2]]];
        case.generators[k] = finite3(g).ok_or_else(|| {
            let g = g.map(Into::into);
            format!("case {i}: generator {k} = {g:?} is not finite in float32")
        })?;
        case.active_mask |= 1 << k;
    }
    case.need = match need {
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

/// Every case, converted on all cores; on bad input the error of the first bad case.
fn build_cases<G: Copy + Into<f64> + Sync, N: Copy + Into<f64> + Sync>(
    gens: ArrayView3<G>,
    active: Option<ArrayView2<bool>>,
    need: Need<N>,
) -> Result<Vec<Case>, Error> {
    let n = gens.shape()[0];
    let one = |i| case_at(i, &gens, active.as_ref(), &need);
    match (0..n)
        .into_par_iter()
        .map(one)
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(cases) => Ok(cases),
        // Some case failed: name the first one, whichever thread saw which.
        Err(_) => Err(Error::Input(
            (0..n).find_map(|i| one(i).err()).expect("a failing case"),
        )),
    }
}

/// The three input arrays, checked for shape, borrowed (not copied) until the cases are built.
struct Input<'py> {
    gens: Floats<'py>,
    active: Option<PyArrayLikeDyn<'py, bool, AllowTypeChange>>,
    need: Option<Floats<'py>>,
}

impl<'py> Input<'py> {
    fn extract(
        generators: &Bound<'py, PyAny>,
        active: Option<&Bound<'py, PyAny>>,
        need: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Input<'py>> {
        let gens = Floats::extract(generators)?;
        let shape = gens.shape();
        if shape.len() != 3 || shape[2] != 3 {
            return Err(py_err(Error::Input(format!(
                "generators must have shape (N, K, 3), got {shape:?}"
            ))));
        }
        if shape[1] > MAX_GENERATORS {
            return Err(py_err(Error::Input(format!(
                "case 0: {} generators, more than {MAX_GENERATORS} (generators has shape \
                 {shape:?}; at most 4 body pairs × 2 endpoints × 2 rays)",
                shape[1]
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
        Ok(Input { gens, active, need })
    }

    /// Builds the cases (GIL released) and hands them to `run`, still without the GIL.
    fn run<R: Send>(
        &self,
        py: Python<'_>,
        run: impl FnOnce(Vec<Case>) -> Result<R, Error> + Send,
    ) -> PyResult<R> {
        let active = self
            .active
            .as_ref()
            .map(|a| a.as_array().into_dimensionality::<Ix2>().expect("checked"));
        let one_need = |v: [f64; 3]| {
            finite3(v).ok_or_else(|| Error::Input(format!("need = {v:?} is not finite in float32")))
        };
        // One arm per dtype pair, so that the hot loop reads each array in its own type.
        macro_rules! go {
            ($gens:expr, $need:expr) => {{
                let gens = $gens.into_dimensionality::<Ix3>().expect("checked");
                let need = $need;
                py.detach(|| build_cases(gens, active, need).and_then(run))
            }};
        }
        let result = match (&self.gens, &self.need) {
            (Floats::F32(g), None) => go!(g.as_array(), Need::<f32>::One([0.0, 1.0, 0.0])),
            (Floats::F64(g), None) => go!(g.as_array(), Need::<f32>::One([0.0, 1.0, 0.0])),
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
                let one = one_need(v).map_err(py_err)?;
                match g {
                    Floats::F32(g) => go!(g.as_array(), Need::<f32>::One(one)),
                    Floats::F64(g) => go!(g.as_array(), Need::<f32>::One(one)),
                }
            }
            (g, Some(nd)) => {
                macro_rules! each {
                    ($n:expr) => {
                        Need::Each($n.as_array().into_dimensionality::<Ix2>().expect("checked"))
                    };
                }
                match (g, nd) {
                    (Floats::F32(g), Floats::F32(n)) => go!(g.as_array(), each!(n)),
                    (Floats::F32(g), Floats::F64(n)) => go!(g.as_array(), each!(n)),
                    (Floats::F64(g), Floats::F32(n)) => go!(g.as_array(), each!(n)),
                    (Floats::F64(g), Floats::F64(n)) => go!(g.as_array(), each!(n)),
                }
            }
        };
        result.map_err(py_err)
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
    /// The witness and certificate only where the verdict gives them (as `Outcome::witness`
    /// and `Outcome::certificate`), zeros elsewhere.
    fn new(outcomes: &[Outcome]) -> Columns {
        let n = outcomes.len();
        let mut c = Columns {
            verdict: Vec::with_capacity(n),
            witness_len: Vec::with_capacity(n),
            witness_index: Vec::with_capacity(3 * n),
            witness_weight: Vec::with_capacity(3 * n),
            certificate: Vec::with_capacity(3 * n),
            margin: Vec::with_capacity(n),
            capped: Vec::with_capacity(n),
            binding: Vec::with_capacity(n),
        };
        for o in outcomes {
            c.verdict.push(o.verdict() as u8);
            let supported = o.verdict() == planar_hold::Verdict::Supported;
            let len = if supported { o.witness_len.min(3) } else { 0 };
            c.witness_len.push(len as u8);
            for k in 0..3 {
                let used = k < len as usize;
                c.witness_index
                    .push(if used { o.witness_index[k] as u8 } else { 0 });
                // Weight k is witness_weight[k]·2^witness_exponent[k] (Outcome::witness).
                c.witness_weight.push(if used {
                    f64::from(o.witness_weight[k]) * 2f64.powi(o.witness_exponent[k])
                } else {
                    0.0
                });
            }
            c.certificate
                .extend(o.certificate().unwrap_or([0.0; 3]).map(|v| v + 0.0));
            c.margin.push(o.margin);
            c.capped.push(o.is_capped());
            c.binding.push(o.binding().map_or(-1, |b| b as i32));
        }
        c
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
    inner: Mutex<planar_hold::Engine>,
    backend: &'static str,
}

impl Engine {
    /// Runs `f` on the engine; callers hold no GIL (other Python threads wait here).
    fn with<R>(&self, f: impl FnOnce(&mut planar_hold::Engine) -> R) -> R {
        let mut engine = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut engine)
    }

    fn evaluate(&self, cases: &[Case]) -> Result<Vec<Outcome>, Error> {
        self.with(|e| e.evaluate(cases))
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
            inner: Mutex::new(engine),
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
        self.with(|e| e.describe())
    }

    fn __repr__(&self) -> String {
        format!("Engine({:?}: {})", self.backend, self.describe())
    }

    /// The cone test of every case (see the stub for the full contract).
    #[pyo3(signature = (generators, active = None, need = None))]
    fn cone_test(
        &self,
        py: Python<'_>,
        generators: &Bound<'_, PyAny>,
        active: Option<&Bound<'_, PyAny>>,
        need: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Outcomes> {
        let input = Input::extract(generators, active, need)?;
        let columns = input.run(py, |cases| Ok(Columns::new(&self.evaluate(&cases)?)))?;
        Ok(Outcomes::new(py, columns))
    }

    /// The answers as `planar-hold eval` writes them, one dict per case.
    #[pyo3(signature = (generators, active = None, need = None, ids = None))]
    fn answers<'py>(
        &self,
        py: Python<'py>,
        generators: &Bound<'py, PyAny>,
        active: Option<&Bound<'py, PyAny>>,
        need: Option<&Bound<'py, PyAny>>,
        ids: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let input = Input::extract(generators, active, need)?;
        let n = input.gens.shape()[0];
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
        let text = input.run(py, |cases| {
            let outcomes = self.evaluate(&cases)?;
            let answers: Vec<Answer> = cases
                .iter()
                .zip(&outcomes)
                .map(|(case, o)| Answer::new(None, case, o))
                .collect();
            to_json(&answers)
        })?;
        let list = json_loads(py, text)?.cast_into::<PyList>()?;
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

    /// The gate's reports on scenes and edits, as `planar-hold gate` writes them.
    fn gate<'py>(
        &self,
        py: Python<'py>,
        scenes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
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
                        py_err(Error::Input(format!("scene {i}: not a JSON object: {e}")))
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
            let reports = self.with(|e| hold_reports(e, &scenes))?;
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
    m.add("GpuError", m.py().get_type::<GpuError>())?;
    m.add("SUPPORTED", planar_hold::Verdict::Supported as u8)?;
    m.add("UNSUPPORTED", planar_hold::Verdict::Unsupported as u8)?;
    m.add("UNCERTAIN", planar_hold::Verdict::Uncertain as u8)?;
    m.add("MAX_GENERATORS", MAX_GENERATORS)?;
    m.add("MARGIN_CAP", planar_hold::MARGIN_CAP)?;
    Ok(())
}
