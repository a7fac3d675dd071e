//! The `Engine` class: made once, reused for every call. Each call checks its arguments with
//! the GIL, then releases it for all the work (conversion, evaluation, results) and takes
//! it back only to hand the results to Python.

use std::ops::Range;
use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;

use planar_hold::general::solver::Solver;
use planar_hold::general::MAX_GENERAL_GENERATORS;
use planar_hold::general::{GeneralBatch, GeneralCase, GeneralOutcome, MAX_DIM};
use planar_hold::scene::{hold_reports, parse_line};
use planar_hold::{Backend, Case, Error, Outcome};

use crate::error::{at, py_err};
use crate::input::{finite_generators, read_ids, scene_lines, Arrays, Kind, Reader};
use crate::output::{
    answer_list, json_loads, planar_answers_json, to_json, Chunk, Columns, GeneralAnswersJson,
    GeneralColumns, GeneralOutcomes, Outcomes, BLOCK,
};

/// A cone-test engine, made once (adapter, device, pipeline) and reused for every batch.
#[pyclass(frozen, module = "planar_hold")]
pub(crate) struct Engine {
    state: Mutex<State>,
    backend: &'static str,
}

/// The engine and the buffers of the largest batch so far, reused by every call (276 bytes
/// per planar case): a batch of the same size again touches no new memory. The general
/// engine's buffers hold one chunk (at most 32 MiB of numbers) whatever the call's size.
struct State {
    engine: planar_hold::Engine,
    cases: Vec<Case>,
    outcomes: Vec<Outcome>,
    general: GeneralBuffers,
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
                general: GeneralBuffers::default(),
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
        let reader = arrays.reader();
        let (n, dim, rows) = (arrays.len(), arrays.dim(), arrays.rows());
        match arrays.kind() {
            Kind::Planar => {
                let columns = py
                    .detach(|| self.with(|s| s.planar_columns(&*reader, n)))
                    .map_err(py_err)?;
                Ok(Bound::new(py, Outcomes::new(py, columns))?.into_any())
            }
            Kind::General => {
                let job = Job {
                    reader: &*reader,
                    n,
                    dim,
                    inside_margin,
                };
                let columns = py
                    .detach(|| {
                        self.with(|s| {
                            let mut columns = GeneralColumns::zeroed(n, dim, rows);
                            s.general_chunks(&job, |chunk| {
                                columns.write(&chunk);
                                Ok(())
                            })?;
                            Ok(columns)
                        })
                    })
                    .map_err(py_err)?;
                Ok(Bound::new(py, GeneralOutcomes::new(py, columns))?.into_any())
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
        let arrays = Arrays::extract(generators, active, need, counts, general)?;
        let (n, dim, kind) = (arrays.len(), arrays.dim(), arrays.kind());
        let ids = read_ids(ids, n)?;
        let reader = arrays.reader();
        let text = py
            .detach(|| {
                self.with(|s| match kind {
                    Kind::Planar => {
                        let (cases, outcomes) = s.planar(&*reader, n)?;
                        planar_answers_json(cases, outcomes)
                    }
                    Kind::General => {
                        let job = Job {
                            reader: &*reader,
                            n,
                            dim,
                            inside_margin: true,
                        };
                        let mut json = GeneralAnswersJson::default();
                        s.general_chunks(&job, |chunk| json.write(&chunk))?;
                        Ok(json.finish())
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

// ------------------------------------------------------------------ the planar work

/// Converts every case into `out` on all cores; on bad input, the first bad case's error.
fn read_all(reader: &dyn Reader, out: &mut [Case]) -> Result<(), Error> {
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

impl State {
    /// Converts `n` cases into the case buffer (grown as needed) and evaluates them.
    fn planar(&mut self, reader: &dyn Reader, n: usize) -> Result<(&[Case], &[Outcome]), Error> {
        if self.cases.len() < n {
            self.cases.resize(n, Case::default());
            self.outcomes.resize(n, Outcome::default());
        }
        let (cases, outcomes) = (&mut self.cases[..n], &mut self.outcomes[..n]);
        read_all(reader, cases)?;
        self.engine.evaluate_into(cases, outcomes)?;
        Ok((cases, outcomes))
    }

    /// The outcome columns of every case. On the CPU, conversion, cone tests and columns run
    /// fused block by block on all cores, so a block's cases never leave the cache;
    /// elsewhere as [`State::planar`].
    fn planar_columns(&mut self, reader: &dyn Reader, n: usize) -> Result<Columns, Error> {
        if !matches!(self.engine, planar_hold::Engine::Cpu) {
            return Ok(Columns::new(self.planar(reader, n)?.1));
        }
        thread_local! {
            static BUFFERS: std::cell::RefCell<(Vec<Case>, Vec<Outcome>)> =
                std::cell::RefCell::new((vec![Case::default(); BLOCK], vec![Outcome::default(); BLOCK]));
        }
        let (columns, ok) = Columns::par_blocks(n, |b, mut rows| {
            BUFFERS.with_borrow_mut(|(cases, outcomes)| {
                let m = rows.len();
                let (cases, outcomes) = (&mut cases[..m], &mut outcomes[..m]);
                if !reader.planar(b * BLOCK, cases) {
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
            Err(reader.planar_error(n))
        }
    }
}

// ------------------------------------------------------------------ the general work

/// Most numbers (need and generators) one chunk of the general batch holds: 32 MiB of
/// float64, so that a call of any size needs a bounded buffer beside its outputs.
const CHUNK_VALUES: usize = 1 << 22;

/// About how many numbers one part of a chunk holds on the CPU (256 KiB): enough parts for
/// every core, each converted and solved by one worker.
const PART_VALUES: usize = 1 << 15;

/// One general call's work, made with the GIL and run without it.
struct Job<'a> {
    reader: &'a dyn Reader,
    n: usize,
    dim: usize,
    inside_margin: bool,
}

/// The buffers of the general engine, kept by each `Engine` and reused: one chunk's parts
/// and their case ranges.
#[derive(Default)]
struct GeneralBuffers {
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
    /// where it can be ([`Reader::general_in_place`]), else copied: the first bad case's
    /// error.
    fn solve(
        &mut self,
        reader: &dyn Reader,
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
            let outcome = match reader.general_in_place(i, &mut need) {
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
                    reader
                        .general(i, &mut self.values, &mut self.case_rows, &mut need)
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
    fn fill(&mut self, reader: &dyn Reader, dim: usize, range: Range<usize>) -> Result<(), Error> {
        self.first = range.start;
        self.batch.clear();
        self.rows.clear();
        self.row_starts.clear();
        self.row_starts.push(0);
        let mut need = [0.0; MAX_DIM];
        for i in range {
            reader
                .general(i, &mut self.values, &mut self.case_rows, &mut need)
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

impl State {
    /// Converts and evaluates every case of `job`, a chunk at a time (a bounded number of
    /// values), handing each part of each chunk to `each`, in order. Runs without the GIL.
    /// On the CPU a chunk's parts (about [`PART_VALUES`] numbers each) are converted and
    /// solved on all cores at once, one part a worker with its own [`Solver`]; on the GPU a
    /// chunk is one part, converted here and evaluated in one batch. On bad input, the first
    /// bad case's error, before anything is evaluated past the chunk that holds it.
    fn general_chunks(
        &mut self,
        job: &Job<'_>,
        mut each: impl FnMut(Chunk<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let (reader, n, dim) = (job.reader, job.n, job.dim);
        let buffers = &mut self.general;
        let cpu = matches!(self.engine, planar_hold::Engine::Cpu);
        let part_values = if cpu { PART_VALUES } else { CHUNK_VALUES };
        let mut first = 0;
        while first < n {
            // The chunk's parts, by the numbers each case holds.
            buffers.ranges.clear();
            let (mut total, mut in_part, mut start, mut i) = (0, 0, first, first);
            while i < n && (i == first || total < CHUNK_VALUES) {
                let size = reader.used(i).min(MAX_GENERAL_GENERATORS + 1) * dim + dim;
                total += size;
                in_part += size;
                i += 1;
                if in_part >= part_values {
                    buffers.ranges.push(start..i);
                    (start, in_part) = (i, 0);
                }
            }
            if start < i {
                buffers.ranges.push(start..i);
            }
            if buffers.parts.len() < buffers.ranges.len() {
                buffers
                    .parts
                    .resize_with(buffers.ranges.len(), Part::default);
            }
            let parts = &mut buffers.parts[..buffers.ranges.len()];
            if cpu {
                parts.par_iter_mut().zip(&buffers.ranges).for_each_init(
                    || Solver::with_inside_margin(job.inside_margin),
                    |solver, (part, range)| {
                        part.error = part.solve(reader, dim, range.clone(), solver).err();
                    },
                );
                if let Some(e) = parts.iter_mut().find_map(|p| p.error.take()) {
                    return Err(e);
                }
            } else {
                let part = &mut parts[0];
                part.fill(reader, dim, buffers.ranges[0].clone())?;
                let m = part.len;
                self.engine.evaluate_general_with(
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
