//! The `Engine` class: made once, reused for every call. Each call checks its arguments with
//! the GIL, then releases it for all the work (conversion, evaluation, results) and takes
//! it back only to hand the results to Python. Every answer comes from the core's one door,
//! `planar_hold::Engine`: which kind a case is (planar or general) is the reader's business (`input`),
//! which columns an answer fills the writer's (`output`).

use std::sync::Mutex;

use numpy::{AllowTypeChange, PyArrayLike1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use planar_hold::io::CaseBatch;
use planar_hold::{hold_reports, parse_line};
use planar_hold::{Answers, Backend, Batch, Error, Options};

use crate::error::{at, py_err};
use crate::input::{read_batch, read_ids, scene_lines, Arrays, GeneralRows, Rows};
use crate::output::{answers_py, rows_py, Results};
use crate::to_py::to_py;

/// A cone-test engine, made once (adapter, device, pipeline) and reused for every batch.
#[pyclass(frozen, module = "planar_hold")]
pub(crate) struct Engine {
    engine: planar_hold::Engine,
    state: Mutex<State>,
    backend: &'static str,
}

/// The batch and answers of the largest call so far, reused by every call (about 290 bytes
/// a planar case): a call of the same size again touches no new memory.
#[derive(Default)]
struct State {
    batch: Batch,
    answers: Answers,
    /// The array row of each general generator of the batch.
    rows: GeneralRows,
    /// Ragged rows read as `eval` reads lines.
    lines: CaseBatch,
}

impl Engine {
    /// Runs `f` on the call's buffers; callers hold no GIL (other Python threads wait here).
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut state)
    }

    /// The core engine, for the grasps' gate (`crate::grasp`); shared, no lock.
    pub(crate) fn core(&self) -> &planar_hold::Engine {
        &self.engine
    }
}

/// How every call is answered: on all cores, with the inside margin unless asked otherwise,
/// with each answer's proof (docs/proof.md) where asked.
fn options(inside_margin: bool, proof: bool) -> Options {
    Options {
        inside_margin,
        proof,
        ..Options::default()
    }
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
            engine,
            state: Mutex::default(),
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
        self.engine.describe()
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
        let arrays = Arrays::extract(generators, active, need, counts, general)?;
        let shape = arrays.shape();
        let reader = arrays.reader();
        let columns = py
            .detach(|| {
                self.with(|s| {
                    read_batch(&*reader, shape, &mut s.batch, &mut s.rows)?;
                    let options = options(inside_margin, false);
                    self.engine
                        .evaluate_into(&s.batch, options, &mut s.answers)?;
                    Ok::<Results, Error>(Results::new(shape, &s.answers, &s.rows))
                })
            })
            .map_err(py_err)?;
        columns.into_python(py)
    }

    /// The answers as `planar-hold eval` writes them, one dict per case.
    #[pyo3(signature = (generators, active = None, need = None, ids = None, counts = None, *, general = false, proof = false))]
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
        proof: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let arrays = Arrays::extract(generators, active, need, counts, general)?;
        let shape = arrays.shape();
        let ids = read_ids(ids, shape.n)?;
        let reader = arrays.reader();
        // The buffers leave the state while the answers become objects (with the GIL, so
        // not under the state's lock), and go back for the next call.
        let (batch, answers, rows) = py
            .detach(|| {
                self.with(|s| {
                    read_batch(&*reader, shape, &mut s.batch, &mut s.rows)?;
                    self.engine
                        .evaluate_into(&s.batch, options(true, proof), &mut s.answers)?;
                    Ok::<_, Error>((
                        std::mem::take(&mut s.batch),
                        std::mem::take(&mut s.answers),
                        std::mem::take(&mut s.rows),
                    ))
                })
            })
            .map_err(py_err)?;
        let list = answers_py(py, &batch, &answers, &rows, ids);
        py.detach(|| {
            self.with(|s| {
                (s.batch, s.answers, s.rows) = (batch, answers, rows);
            })
        });
        list
    }

    /// The answers to ragged rows, as `planar-hold eval` writes them, one dict per row (see
    /// the stub): each row to the engine its shape picks, all in one call.
    #[pyo3(signature = (values, dims, counts, needs = None))]
    fn answer_rows<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
        dims: PyArrayLike1<'py, i64, AllowTypeChange>,
        counts: PyArrayLike1<'py, i64, AllowTypeChange>,
        needs: Option<PyArrayLike1<'py, f64, AllowTypeChange>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let rows = Rows::extract(values, dims, counts, needs)?;
        // As `answers`: the buffers out of the state while the answers become objects.
        let (lines, answers) = py
            .detach(|| {
                self.with(|s| {
                    rows.read_into(&mut s.lines)?;
                    self.engine.evaluate_into(
                        &s.lines.batch,
                        options(true, false),
                        &mut s.answers,
                    )?;
                    Ok::<_, Error>((std::mem::take(&mut s.lines), std::mem::take(&mut s.answers)))
                })
            })
            .map_err(py_err)?;
        let list = rows_py(py, &lines, &answers);
        py.detach(|| self.with(|s| (s.lines, s.answers) = (lines, answers)));
        list
    }

    /// The gate's reports on scenes and edits, planar and spatial (`"dim": 3`) mixed, as
    /// `planar-hold gate` writes them (with `proof`, as `gate --proof`).
    #[pyo3(signature = (scenes, *, proof = false, support_region = true))]
    fn gate<'py>(
        &self,
        py: Python<'py>,
        scenes: &Bound<'py, PyAny>,
        proof: bool,
        support_region: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reports = self.reports(py, scenes, proof, support_region)?;
        to_py(py, &reports)
    }

    /// The gate's reports as the columns of `planar_hold.ray`'s scene rows (`SCENE_SCHEMA`
    /// less `id`), a dict of lists: `held`, `robust_margin`, `uncertain`, `n_generators`,
    /// `sliding` (the sliding contacts' indices), `reason` (its JSON text where it is not a
    /// string), and `report`, each report's JSON text as `planar-hold gate` writes it, less
    /// its `id`. Written by the engine's own JSON writer: Python's `json` took as long as
    /// the engine itself.
    #[pyo3(signature = (scenes, *, support_region = true))]
    fn gate_columns<'py>(
        &self,
        py: Python<'py>,
        scenes: &Bound<'py, PyAny>,
        support_region: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let reports = self.reports(py, scenes, false, support_region)?;
        let rows = py
            .detach(|| {
                reports
                    .iter()
                    .map(SceneRow::of)
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(PyValueError::new_err)?;
        let out = PyDict::new(py);
        out.set_item("held", rows.iter().map(|r| r.held).collect::<Vec<_>>())?;
        out.set_item(
            "robust_margin",
            rows.iter().map(|r| r.robust_margin).collect::<Vec<_>>(),
        )?;
        out.set_item(
            "uncertain",
            rows.iter().map(|r| r.uncertain).collect::<Vec<_>>(),
        )?;
        out.set_item(
            "n_generators",
            rows.iter().map(|r| r.n_generators).collect::<Vec<_>>(),
        )?;
        out.set_item(
            "sliding",
            rows.iter().map(|r| &r.sliding).collect::<Vec<_>>(),
        )?;
        out.set_item("reason", rows.iter().map(|r| &r.reason).collect::<Vec<_>>())?;
        out.set_item("report", rows.iter().map(|r| &r.report).collect::<Vec<_>>())?;
        Ok(out)
    }
}

impl Engine {
    /// Every scene's report, as `gate` gives them.
    fn reports(
        &self,
        py: Python<'_>,
        scenes: &Bound<'_, PyAny>,
        proof: bool,
        support_region: bool,
    ) -> PyResult<Vec<planar_hold::Report>> {
        let lines = scene_lines(scenes)?;
        py.detach(|| {
            let scenes = lines
                .iter()
                .enumerate()
                .map(|(i, t)| parse_line(t).map_err(|e| at(format!("scene {i}"), e)))
                .collect::<Result<Vec<_>, _>>()?;
            let options = Options {
                support_region,
                ..options(true, proof)
            };
            hold_reports(&self.engine, &scenes, options)
        })
        .map_err(py_err)
    }
}

/// One scene row of `planar_hold.ray` (see [`Engine::gate_columns`]).
struct SceneRow {
    held: Option<bool>,
    robust_margin: Option<f64>,
    uncertain: Option<bool>,
    n_generators: Option<u64>,
    sliding: Vec<u64>,
    reason: Option<String>,
    report: String,
}

impl SceneRow {
    fn of(report: &planar_hold::Report) -> Result<SceneRow, String> {
        let text = serde_json::to_string(report).map_err(|e| e.to_string())?;
        // The report less its `id`, which the writer puts first.
        let id = serde_json::to_string(report.id()).map_err(|e| e.to_string())?;
        let rest = text
            .strip_prefix("{\"id\":")
            .and_then(|t| t.strip_prefix(id.as_str()))
            .ok_or_else(|| format!("a report that does not start with its id: {text:.80}"))?;
        let report_text = match rest.strip_prefix(',') {
            Some(rest) => format!("{{{rest}"),
            None => rest.to_string(), // "}": nothing but the id
        };
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        Ok(SceneRow {
            held: v["held"].as_bool(),
            robust_margin: v["robust_margin"].as_f64(),
            uncertain: v["uncertain"].as_bool(),
            n_generators: v["n_generators"].as_u64(),
            sliding: v["sliding"]
                .as_array()
                .map(|s| s.iter().filter_map(|c| c["contact"].as_u64()).collect())
                .unwrap_or_default(),
            reason: match &v["reason"] {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            },
            report: report_text,
        })
    }
}

/// The generators of a spatial scene or grasp line (its dict or JSON text) at `pyramid` edges
/// a point, of its main pyramid (inner for "inner" and "coulomb"): a (K, 6) float64 array,
/// in docs/contract-spatial.md §3's order, as the physical layer builds them for the engine.
/// What `planar_hold.check_proof` rebuilds a scene's cone from.
#[pyfunction]
pub fn scene_generators<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    pyramid: usize,
) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
    let lines = scene_lines(PyList::new(py, [scene])?.as_any())?;
    let line = parse_line(&lines[0]).map_err(|e| py_err(at("scene".into(), e)))?;
    let s = match line {
        planar_hold::SceneLine::Spatial(s) | planar_hold::SceneLine::Grasp(s) => s,
        planar_hold::SceneLine::Planar(_) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "scene: a planar scene (no \"dim\": 3) has no spatial generators",
            ))
        }
    };
    if !(3..=planar_hold::details::scene::MAX_PYRAMID).contains(&pyramid) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "pyramid {pyramid}: 3 to {} edges",
            planar_hold::details::scene::MAX_PYRAMID
        )));
    }
    let g = s.generators(
        pyramid,
        planar_hold::details::scene::main_pyramid(s.friction),
    );
    let rows: Vec<Vec<f64>> = g.iter().map(|w| w.to_vec()).collect();
    Ok(numpy::PyArray2::from_vec2(py, &rows)?)
}

/// The friction discs of a grasp line (its dict or JSON text), every point of an edge or face
/// its own, in the order a circular proof's points index them (docs/proof.md): a dict of
/// `points` (n, 3), `normals` (n, 3), `mu` (n,), `half_size` (ℓ) and `tolerance` (the line's,
/// or 1e-9). What `planar_hold.check_proof` checks a `"circular"` grasp's proof against.
#[pyfunction]
pub fn grasp_discs<'py>(py: Python<'py>, scene: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let lines = scene_lines(PyList::new(py, [scene])?.as_any())?;
    let line = parse_line(&lines[0]).map_err(|e| py_err(at("scene".into(), e)))?;
    let planar_hold::SceneLine::Grasp(s) = line else {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "scene: not a grasp line (\"grasp\": true)",
        ));
    };
    let discs = planar_hold::details::scene::grasp_discs(&s);
    let out = pyo3::types::PyDict::new(py);
    let rows = |f: &dyn Fn(&planar_hold::details::proof::CheckedDisc) -> [f64; 3]| {
        discs.iter().map(|d| f(d).to_vec()).collect::<Vec<_>>()
    };
    let (points, normals) = (rows(&|d| d.p), rows(&|d| d.n));
    let array = |r: Vec<Vec<f64>>| -> PyResult<Bound<'py, PyAny>> {
        if r.is_empty() {
            Ok(numpy::PyArray2::<f64>::zeros(py, [0, 3], false).into_any())
        } else {
            Ok(numpy::PyArray2::from_vec2(py, &r)?.into_any())
        }
    };
    out.set_item("points", array(points)?)?;
    out.set_item("normals", array(normals)?)?;
    let mu: Vec<f64> = discs.iter().map(|d| d.mu).collect();
    out.set_item("mu", numpy::PyArray1::from_vec(py, mu))?;
    out.set_item("half_size", s.body.half_size)?;
    out.set_item("tolerance", s.tolerance.unwrap_or(1e-9))?;
    Ok(out.into_any())
}

/// The support region's map of a spatial scene (its dict or JSON text): the need at a centre
/// of mass offset δ, `origin + (δx/unit)·axes[0] + (δy/unit)·axes[1]`, and the clip box
/// `|δx|, |δy| ≤ half_width·unit` (docs/contract-support-region.md §4), as a dict of
/// `origin`, `axes`, `unit`, `half_width`. What `planar_hold.check_proof` checks a
/// `support_region_proof` against.
#[pyfunction]
pub fn region_map<'py>(py: Python<'py>, scene: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let lines = scene_lines(PyList::new(py, [scene])?.as_any())?;
    let line = parse_line(&lines[0]).map_err(|e| py_err(at("scene".into(), e)))?;
    let planar_hold::SceneLine::Spatial(s) = line else {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "scene: only a spatial scene (\"dim\": 3, not a grasp) has a support region",
        ));
    };
    let m = planar_hold::details::scene::region_map(&s.body);
    let map = serde_json::json!({
        "origin": m.origin,
        "axes": m.axes,
        "unit": m.unit,
        "half_width": m.half_width,
    });
    to_py(py, &map)
}
