//! Grasps (docs/contract-grasp.md) in three forms, answered as columns: numpy arrays of
//! fingertips ([`grasp_arrays`]), grasp lines ([`grasp_lines`]) and a pyarrow record batch
//! of grasp rows ([`grasp_arrow`], handed over through the Arrow C data interface and read
//! column by column, as `planar-hold gate` reads Parquet rows). The grasps are read and
//! checked by the core's own readers and judged by its gate a chunk at a time, all without
//! the GIL; what comes back is [`GraspColumns`]: numpy columns, and each grasp's report (the
//! dict `gate` writes) rebuilt from them only when asked for. No Python object is made per
//! grasp on the way.

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use numpy::ndarray::Array2;
use numpy::{
    PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use rayon::prelude::*;
use serde_json::Value;

use planar_hold::details::scene::{fingertip_grasp, grasp_tolerance};
use planar_hold::{
    hold_reports, parse_line, GraspFacet, GraspRefined, GraspReport, Report, SceneLine,
    SpatialScene,
};
use planar_hold::{Error, Options};

use crate::engine::Engine;
use crate::error::py_err;
use crate::to_py::to_py;

/// Grasps judged at a time: the engine's batch of a chunk (its lifted generators, about
/// 2 KiB a grasp of 4 fingertips × 8 edges) stays small whatever N.
const CHUNK: usize = 8192;

/// Every answer of N grasps as columns, made without the GIL.
#[derive(Default)]
struct Columns {
    ids: Vec<Value>,
    /// 0 false, 1 true, 2 uncertain.
    force_closure: Vec<u8>,
    /// With a threshold: 0 false, 1 true, 2 uncertain; 3 where none was asked.
    q1_at_least_code: Vec<u8>,
    q1: Vec<f64>,
    q1_lower: Vec<f64>,
    /// NaN where the report has none (but "coulomb").
    q1_upper: Vec<f64>,
    /// Six numbers a grasp.
    weakest: Vec<f64>,
    facet: Vec<bool>,
    /// The binding facet's generators and contacts, back to back, and where each grasp's
    /// end (N + 1 offsets from 0).
    facet_generators: Vec<u32>,
    facet_generator_ends: Vec<i64>,
    facet_contacts: Vec<u32>,
    facet_contact_ends: Vec<i64>,
    margin_checked: Vec<bool>,
    friction: Vec<&'static str>,
    pyramid: Vec<i64>,
    n_generators: Vec<i64>,
    refined: Vec<Option<GraspRefined>>,
    /// With a threshold: whether q1 ≥ T (true, false or "uncertain").
    q1_at_least: Vec<Option<Value>>,
    /// The reasons back to back, the offsets of each grasp's (N + 1), and which have one.
    reasons: String,
    reason_ends: Vec<i64>,
    has_reason: Vec<bool>,
}

impl Columns {
    fn new() -> Columns {
        Columns {
            facet_generator_ends: vec![0],
            facet_contact_ends: vec![0],
            reason_ends: vec![0],
            ..Columns::default()
        }
    }

    fn push(&mut self, r: &GraspReport) {
        self.force_closure.push(match &r.force_closure {
            Value::Bool(false) => 0,
            Value::Bool(true) => 1,
            _ => 2,
        });
        self.q1.push(r.q1);
        self.q1_lower.push(r.q1_lower);
        self.q1_upper.push(r.q1_upper.unwrap_or(f64::NAN));
        self.weakest.extend_from_slice(&r.weakest);
        self.facet.push(r.facet.is_some());
        if let Some(f) = &r.facet {
            self.facet_generators.extend_from_slice(&f.generators);
            self.facet_contacts
                .extend(f.contacts.iter().map(|&c| c as u32));
        }
        self.facet_generator_ends
            .push(self.facet_generators.len() as i64);
        self.facet_contact_ends
            .push(self.facet_contacts.len() as i64);
        self.margin_checked.push(r.margin_checked);
        self.friction.push(r.friction);
        self.pyramid.push(r.pyramid as i64);
        self.n_generators.push(r.n_generators as i64);
        self.refined.push(r.refined.clone());
        self.q1_at_least_code.push(match &r.q1_at_least {
            Some(Value::Bool(false)) => 0,
            Some(Value::Bool(true)) => 1,
            Some(_) => 2,
            None => 3,
        });
        self.q1_at_least.push(r.q1_at_least.clone());
        self.has_reason.push(r.reason.is_some());
        self.reasons.push_str(r.reason.as_deref().unwrap_or(""));
        self.reason_ends.push(self.reasons.len() as i64);
        self.ids.push(r.id.clone());
    }

    fn len(&self) -> usize {
        self.q1.len()
    }

    /// Grasp `i`'s report, as the gate made it.
    fn report(&self, i: usize) -> GraspReport {
        let range = |ends: &[i64]| ends[i] as usize..ends[i + 1] as usize;
        let weakest: [f64; 6] = std::array::from_fn(|a| self.weakest[6 * i + a]);
        GraspReport {
            id: self.ids[i].clone(),
            force_closure: match self.force_closure[i] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                _ => Value::from("uncertain"),
            },
            q1: self.q1[i],
            q1_lower: self.q1_lower[i],
            q1_upper: Some(self.q1_upper[i]).filter(|x| !x.is_nan()),
            weakest,
            facet: self.facet[i].then(|| GraspFacet {
                normal: weakest,
                generators: self.facet_generators[range(&self.facet_generator_ends)].to_vec(),
                contacts: self.facet_contacts[range(&self.facet_contact_ends)]
                    .iter()
                    .map(|&c| c as usize)
                    .collect(),
            }),
            margin_checked: self.margin_checked[i],
            friction: self.friction[i],
            pyramid: self.pyramid[i] as usize,
            n_generators: self.n_generators[i] as usize,
            refined: self.refined[i].clone(),
            q1_at_least: self.q1_at_least[i].clone(),
            reason: self.has_reason[i].then(|| self.reasons[range(&self.reason_ends)].to_string()),
            proof: None,
        }
    }
}

/// The answers of N grasps (see the stub `_native.pyi` and `planar_hold.grasp`).
#[pyclass(frozen, module = "planar_hold")]
pub(crate) struct GraspColumns {
    columns: Columns,
}

fn column<T: numpy::Element + Clone>(py: Python<'_>, v: &[T]) -> Py<PyArray1<T>> {
    PyArray1::from_slice(py, v).unbind()
}

#[pymethods]
impl GraspColumns {
    fn __len__(&self) -> usize {
        self.columns.len()
    }

    /// The columns as numpy arrays (copies: call once).
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = &self.columns;
        let n = c.len();
        let d = PyDict::new(py);
        d.set_item("force_closure_code", column(py, &c.force_closure))?;
        d.set_item("q1", column(py, &c.q1))?;
        d.set_item("q1_lower", column(py, &c.q1_lower))?;
        d.set_item("q1_upper", column(py, &c.q1_upper))?;
        d.set_item("q1_at_least_code", column(py, &c.q1_at_least_code))?;
        let weakest = Array2::from_shape_vec((n, 6), c.weakest.clone()).expect("six a grasp");
        d.set_item("weakest", PyArray2::from_owned_array(py, weakest))?;
        d.set_item("facet", column(py, &c.facet))?;
        d.set_item("facet_generators", column(py, &c.facet_generators))?;
        d.set_item(
            "facet_generator_offsets",
            column(py, &c.facet_generator_ends),
        )?;
        d.set_item("facet_contacts", column(py, &c.facet_contacts))?;
        d.set_item("facet_contact_offsets", column(py, &c.facet_contact_ends))?;
        d.set_item("margin_checked", column(py, &c.margin_checked))?;
        // The friction models as codes into the names that occur, in order of appearance.
        let mut names: Vec<&str> = Vec::new();
        let codes: Vec<u8> = c
            .friction
            .iter()
            .map(|f| match names.iter().position(|n| n == f) {
                Some(k) => k as u8,
                None => {
                    names.push(f);
                    (names.len() - 1) as u8
                }
            })
            .collect();
        d.set_item("friction_code", PyArray1::from_vec(py, codes))?;
        d.set_item("friction_names", names)?;
        d.set_item("pyramid", column(py, &c.pyramid))?;
        d.set_item("n_generators", column(py, &c.n_generators))?;
        d.set_item(
            "reason_bytes",
            pyo3::types::PyBytes::new(py, c.reasons.as_bytes()),
        )?;
        d.set_item("reason_offsets", column(py, &c.reason_ends))?;
        d.set_item("has_reason", column(py, &c.has_reason))?;
        Ok(d)
    }

    /// The ids of the grasps as read (lines' and rows' own; the index for arrays).
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.columns.ids)
    }

    /// Every grasp's report, as `planar-hold gate` writes it, as a list of dicts.
    fn reports<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let c = &self.columns;
        let reports: Vec<GraspReport> = py.detach(|| (0..c.len()).map(|i| c.report(i)).collect());
        to_py(py, &reports)
    }
}

/// What went wrong with a call: the grasp's index and the problem, or the engine's.
enum Failed {
    Grasp(usize, Error),
    Engine(Error),
}

impl From<Failed> for PyErr {
    fn from(f: Failed) -> PyErr {
        match f {
            Failed::Grasp(i, Error::Input(m)) => PyValueError::new_err(format!("grasp {i}: {m}")),
            Failed::Grasp(i, e) => PyValueError::new_err(format!("grasp {i}: {e}")),
            Failed::Engine(e) => py_err(e),
        }
    }
}

/// N grasps, `grasp(i)` each (read on all cores a chunk at a time), judged by the gate on
/// `engine` chunk by chunk into columns. The first bad grasp (by index) fails the call.
fn answer(
    engine: &Engine,
    n: usize,
    grasp: impl Fn(usize) -> Result<SpatialScene, Error> + Sync,
) -> Result<Columns, Failed> {
    let mut columns = Columns::new();
    for start in (0..n).step_by(CHUNK) {
        let end = n.min(start + CHUNK);
        // Read straight into place; where one is bad, the first bad one (by index) is
        // looked for again, in order.
        let read: Result<Vec<SceneLine>, Error> = (start..end)
            .into_par_iter()
            .map(|i| grasp(i).map(SceneLine::Grasp))
            .collect();
        let lines = match read {
            Ok(lines) => lines,
            Err(e) => {
                return Err((start..end)
                    .find_map(|i| grasp(i).err().map(|e| Failed::Grasp(i, e)))
                    .unwrap_or(Failed::Engine(e)))
            }
        };
        let reports =
            hold_reports(engine.core(), &lines, Options::default()).map_err(Failed::Engine)?;
        for r in &reports {
            match r {
                Report::Grasp(g) => columns.push(g),
                _ => {
                    return Err(Failed::Engine(Error::Input(
                        "a grasp judged as a scene".into(),
                    )))
                }
            }
        }
    }
    Ok(columns)
}

/// Fingertip grasps from arrays (checked for shape and finiteness by `planar_hold.grasp`):
/// `points`, `normals` (N, C, 3), `mu` (N, C), `counts` (N,) contacts in use, `half_size`
/// (N,), all float64 and contiguous but `counts` (int64); `pyramid`, `friction`, the
/// threshold `q1_at_least` (checked finite by the caller) and the `tolerance` for all.
#[pyfunction]
#[pyo3(signature = (engine, points, normals, mu, counts, half_size, pyramid, friction, q1_at_least = None, tolerance = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn grasp_arrays(
    py: Python<'_>,
    engine: &Engine,
    points: PyReadonlyArray3<'_, f64>,
    normals: PyReadonlyArray3<'_, f64>,
    mu: PyReadonlyArray2<'_, f64>,
    counts: PyReadonlyArray1<'_, i64>,
    half_size: PyReadonlyArray1<'_, f64>,
    pyramid: usize,
    friction: &str,
    q1_at_least: Option<f64>,
    tolerance: Option<f64>,
) -> PyResult<GraspColumns> {
    let tolerance = checked_tolerance(tolerance)?;
    let shape = points.shape().to_vec();
    let (n, c) = (shape[0], shape[1]);
    let same = normals.shape() == shape.as_slice()
        && shape[2] == 3
        && mu.shape() == [n, c]
        && counts.shape() == [n]
        && half_size.shape() == [n];
    if !same {
        return Err(PyValueError::new_err(
            "points, normals (N, C, 3), mu (N, C), counts and half_size (N,) do not fit",
        ));
    }
    let contiguous = |what: &str| PyTypeError::new_err(format!("{what} must be C-contiguous"));
    let (p, nrm) = (
        points.as_slice().map_err(|_| contiguous("points"))?,
        normals.as_slice().map_err(|_| contiguous("normals"))?,
    );
    let (m, k, l) = (
        mu.as_slice().map_err(|_| contiguous("mu"))?,
        counts.as_slice().map_err(|_| contiguous("counts"))?,
        half_size.as_slice().map_err(|_| contiguous("half_size"))?,
    );
    let columns = py.detach(|| {
        answer(engine, n, |g| {
            let used = (k[g].max(0) as usize).min(c);
            let tips = (0..used).map(|j| {
                let at = 3 * (g * c + j);
                let xyz = |a: &[f64]| [a[at], a[at + 1], a[at + 2]];
                (xyz(p), xyz(nrm), m[g * c + j])
            });
            fingertip_grasp(Value::from(g), l[g], pyramid, friction, tips).map(|mut s| {
                s.q1_at_least = q1_at_least;
                s.tolerance = tolerance;
                s
            })
        })
    })?;
    Ok(GraspColumns { columns })
}

/// Grasps from their JSON lines (each a grasp: `"dim": 3, "grasp": true`); `q1_at_least`
/// and `tolerance` those of the lines that name none of their own.
#[pyfunction]
#[pyo3(signature = (engine, lines, q1_at_least = None, tolerance = None))]
pub(crate) fn grasp_lines(
    py: Python<'_>,
    engine: &Engine,
    lines: &Bound<'_, PyAny>,
    q1_at_least: Option<f64>,
    tolerance: Option<f64>,
) -> PyResult<GraspColumns> {
    let tolerance = checked_tolerance(tolerance)?;
    let lines = crate::input::scene_lines(lines)?;
    let columns = py.detach(|| {
        answer(engine, lines.len(), |i| match parse_line(&lines[i])? {
            SceneLine::Grasp(mut g) => {
                g.q1_at_least = g.q1_at_least.or(q1_at_least);
                g.tolerance = g.tolerance.or(tolerance);
                Ok(g)
            }
            _ => Err(Error::Input(
                "not a grasp (a grasp has \"dim\": 3, \"grasp\": true)".into(),
            )),
        })
    })?;
    Ok(GraspColumns { columns })
}

/// A tolerance for every grasp, checked as a line's `"tolerance"` is.
fn checked_tolerance(tolerance: Option<f64>) -> PyResult<Option<f64>> {
    tolerance
        .map(grasp_tolerance)
        .transpose()
        .map_err(|e| match e {
            Error::Input(m) => PyValueError::new_err(m),
            e => py_err(e),
        })
}

/// Grasps from a pyarrow `RecordBatch` of grasp rows (anything with `__arrow_c_array__`
/// giving a struct array): read column by column, each row's fields as a grasp line's
/// (null meaning absent).
#[pyfunction]
pub(crate) fn grasp_arrow(
    py: Python<'_>,
    engine: &Engine,
    batch: &Bound<'_, PyAny>,
) -> PyResult<GraspColumns> {
    let record = import_batch(batch)?;
    let read = py.detach(|| planar_hold::io::arrow::grasps(&record));
    let columns = py.detach(|| {
        answer(engine, read.len(), |i| {
            read[i].clone().map_err(|(_, e)| Error::Input(e))
        })
    })?;
    Ok(GraspColumns { columns })
}

/// A record batch from an object of the Arrow PyCapsule interface (`__arrow_c_array__`):
/// the array moved out of its capsule, the schema read in place.
fn import_batch(batch: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    let pair = batch.call_method0("__arrow_c_array__").map_err(|_| {
        PyTypeError::new_err("grasp rows must come as a pyarrow RecordBatch (__arrow_c_array__)")
    })?;
    let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) = pair.extract()?;
    let schema_ptr = schema.pointer_checked(Some(c"arrow_schema"))?;
    let array_ptr = array.pointer_checked(Some(c"arrow_array"))?;
    // SAFETY: the capsules are the Arrow C data interface's, named as its PyCapsule
    // protocol says: a valid schema (borrowed, released with its capsule) and a valid array
    // (moved out here, its capsule left holding a released one).
    let data = unsafe {
        let schema = &*(schema_ptr.as_ptr() as *const FFI_ArrowSchema);
        let array = FFI_ArrowArray::from_raw(array_ptr.as_ptr() as *mut FFI_ArrowArray);
        from_ffi(array, schema)
    }
    .map_err(|e| PyValueError::new_err(format!("cannot import the Arrow batch: {e}")))?;
    let array = arrow_array::make_array(data);
    let rows = array
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| PyTypeError::new_err("grasp rows must be a struct array (a RecordBatch)"))?;
    if rows.null_count() > 0 {
        return Err(PyValueError::new_err("a grasp row is null"));
    }
    Ok(RecordBatch::from(rows.clone()))
}
