//! The `Engine` class: made once, reused for every call. Each call checks its arguments with
//! the GIL, then releases it for all the work (conversion, evaluation, results) and takes
//! it back only to hand the results to Python.

use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use planar_hold::scene::{hold_reports, parse_line};
use planar_hold::{Answers, Backend, Batch, Case, CaseKind, Error, Options, Threads};

use crate::error::{at, py_err};
use crate::input::{read_general, read_ids, read_planar, scene_lines, Arrays, GeneralRows, Reader};
use crate::output::{
    answer_list, general_answers_json, json_loads, planar_answers_json, to_json, Columns,
    GeneralColumns, Results,
};

/// A cone-test engine, made once (adapter, device, pipeline) and reused for every batch.
#[pyclass(frozen, module = "planar_hold")]
pub(crate) struct Engine {
    state: Mutex<State>,
    backend: &'static str,
}

/// The engine, and the batch and answers of the largest call so far, reused by every call
/// (about 290 bytes a planar case): a call of the same size again touches no new memory.
struct State {
    engine: planar_hold::Engine,
    batch: Batch,
    answers: Answers,
    /// The array row of each general generator of the batch.
    rows: GeneralRows,
}

/// What one call evaluates: `n` cases of `dim` numbers for the engine `kind`, as `options`
/// say.
#[derive(Clone, Copy)]
struct Call {
    kind: CaseKind,
    n: usize,
    dim: usize,
    options: Options,
}

impl Call {
    fn new(arrays: &Arrays<'_>, inside_margin: bool) -> Call {
        Call {
            kind: arrays.kind(),
            n: arrays.len(),
            dim: arrays.dim(),
            options: Options {
                inside_margin,
                threads: Threads::All,
            },
        }
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

    /// Runs `f` on the core engine (the grasps' gate, `crate::grasp`), as [`Engine::with`].
    pub(crate) fn core<R>(&self, f: impl FnOnce(&mut planar_hold::Engine) -> R) -> R {
        self.with(|s| f(&mut s.engine))
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
            state: Mutex::new(State {
                engine,
                batch: Batch::new(),
                answers: Answers::default(),
                rows: GeneralRows::default(),
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
        let arrays = Arrays::extract(generators, active, need, counts, general)?;
        let (call, k) = (Call::new(&arrays, inside_margin), arrays.rows());
        let reader = arrays.reader();
        let columns = py
            .detach(|| {
                self.with(|s| {
                    s.evaluate(&*reader, call)?;
                    Ok::<Results, Error>(match call.kind {
                        CaseKind::Planar => Columns::new(&s.answers.planar).into(),
                        CaseKind::General => {
                            GeneralColumns::new(call.dim, k, &s.answers.general, &s.rows).into()
                        }
                    })
                })
            })
            .map_err(py_err)?;
        columns.into_python(py)
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
        let arrays = Arrays::extract(generators, active, need, counts, general)?;
        let call = Call::new(&arrays, true);
        let ids = read_ids(ids, call.n)?;
        let reader = arrays.reader();
        let text = py
            .detach(|| {
                self.with(|s| {
                    s.evaluate(&*reader, call)?;
                    match call.kind {
                        CaseKind::Planar => planar_answers_json(&s.batch.planar, &s.answers.planar),
                        CaseKind::General => {
                            general_answers_json(call.dim, &s.answers.general, &s.rows)
                        }
                    }
                })
            })
            .map_err(py_err)?;
        answer_list(py, &text, ids)
    }

    /// The gate's reports on scenes and edits, planar and spatial (`"dim": 3`) mixed, as
    /// `planar-hold gate` writes them.
    fn gate<'py>(
        &self,
        py: Python<'py>,
        scenes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let lines = scene_lines(scenes)?;
        let text = py.detach(|| {
            let scenes = lines
                .iter()
                .enumerate()
                .map(|(i, t)| parse_line(t).map_err(|e| at(format!("scene {i}"), e)))
                .collect::<Result<Vec<_>, _>>()?;
            let reports = self.with(|s| hold_reports(&mut s.engine, &scenes))?;
            to_json(&reports)
        });
        json_loads(py, &text.map_err(py_err)?)
    }
}

// ------------------------------------------------------------------ the work

impl State {
    /// Reads every case of the call into the batch (kept, with its buffers, for the next
    /// call) and evaluates it: the core's one data path, as every front end calls it.
    fn evaluate(&mut self, reader: &dyn Reader, call: Call) -> Result<(), Error> {
        let batch = &mut self.batch;
        batch.general.clear();
        match call.kind {
            CaseKind::Planar => {
                // Every slot is written by the reader: only a longer batch touches new memory.
                batch.planar.truncate(call.n);
                batch.planar.resize(call.n, Case::default());
                read_planar(reader, &mut batch.planar)?;
            }
            CaseKind::General => {
                batch.planar.clear();
                read_general(reader, call.n, call.dim, &mut batch.general, &mut self.rows)?;
            }
        }
        self.engine
            .evaluate_into(batch, call.options, &mut self.answers)
    }
}
