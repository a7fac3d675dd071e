//! Results, in one place: the outcome columns of both kinds (written without the GIL,
//! handed to numpy without a copy) and the answers as `planar-hold eval` writes them (the
//! CLI's own answer structs made Python objects directly by [`crate::to_py`], as the gate's
//! reports are).

use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

use planar_hold::io::general::GeneralAnswer;
use planar_hold::io::json::{Answer, ErrorLine};
use planar_hold::io::CaseBatch;
use planar_hold::{Answer as EngineAnswer, Answers, Batch, CaseKind, Outcome, Verdict};
use planar_hold::{GeneralOutcome, MAX_DIM};

use crate::input::{GeneralRows, Shape};
use crate::to_py::{to_py_paused, CollectorPaused};

/// Cases per block of the planar columns, written one block a worker.
const BLOCK: usize = 1024;

/// A column of `n` rows handed to numpy.
fn column<T: numpy::Element>(py: Python<'_>, v: Vec<T>) -> Py<PyArray1<T>> {
    PyArray1::from_vec(py, v).unbind()
}

/// A table of `rows` × `width` handed to numpy.
fn table<T: numpy::Element>(
    py: Python<'_>,
    rows: usize,
    width: usize,
    v: Vec<T>,
) -> Py<PyArray2<T>> {
    let a = Array2::from_shape_vec((rows, width), v).expect("sized");
    PyArray2::from_owned_array(py, a).unbind()
}

/// Cases by verdict (supported, unsupported, uncertain), for `__repr__`.
fn verdict_counts(py: Python<'_>, verdict: &Py<PyArray1<u8>>) -> (usize, [usize; 3]) {
    let verdicts = verdict.bind(py).readonly();
    let mut counts = [0usize; 3];
    for &v in verdicts.as_array() {
        counts[v as usize] += 1;
    }
    (verdicts.len(), counts)
}

/// The columns of a call, of either kind, made without the GIL.
pub(crate) enum Results {
    Planar(Columns),
    General(GeneralColumns),
}

impl From<Columns> for Results {
    fn from(c: Columns) -> Results {
        Results::Planar(c)
    }
}

impl From<GeneralColumns> for Results {
    fn from(c: GeneralColumns) -> Results {
        Results::General(c)
    }
}

impl Results {
    /// The columns of a call's answers: of the engine its arrays went to.
    pub(crate) fn new(shape: Shape, answers: &Answers, rows: &GeneralRows) -> Results {
        match shape.kind {
            CaseKind::Planar => Columns::new(&answers.planar).into(),
            CaseKind::General => {
                GeneralColumns::new(shape.dim, shape.rows, &answers.general, rows).into()
            }
        }
    }

    /// The columns as numpy arrays: `Outcomes` or `GeneralOutcomes`.
    pub(crate) fn into_python(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        Ok(match self {
            Results::Planar(c) => Bound::new(py, Outcomes::new(py, c))?.into_any(),
            Results::General(c) => Bound::new(py, GeneralOutcomes::new(py, c))?.into_any(),
        })
    }
}

// ------------------------------------------------------------------ planar

/// The planar outcome columns, made without the GIL.
pub(crate) struct Columns {
    verdict: Vec<u8>,
    witness_len: Vec<u8>,
    witness_index: Vec<u8>,
    witness_weight: Vec<f64>,
    certificate: Vec<f32>,
    margin: Vec<f32>,
    capped: Vec<bool>,
    binding: Vec<i32>,
}

/// One block's rows of every planar column.
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

    /// The columns of evaluated outcomes, written block by block on all cores.
    pub(crate) fn new(outcomes: &[Outcome]) -> Columns {
        let mut c = Columns::zeroed(outcomes.len());
        c.verdict
            .par_chunks_mut(BLOCK)
            .zip(c.witness_len.par_chunks_mut(BLOCK))
            .zip(c.witness_index.par_chunks_mut(3 * BLOCK))
            .zip(c.witness_weight.par_chunks_mut(3 * BLOCK))
            .zip(c.certificate.par_chunks_mut(3 * BLOCK))
            .zip(c.margin.par_chunks_mut(BLOCK))
            .zip(c.capped.par_chunks_mut(BLOCK))
            .zip(c.binding.par_chunks_mut(BLOCK))
            .enumerate()
            .for_each(
                |(b, (((((((verdict, len), index), weight), cert), margin), capped), binding))| {
                    let mut rows = Rows {
                        verdict,
                        witness_len: len,
                        witness_index: index,
                        witness_weight: weight,
                        certificate: cert,
                        margin,
                        capped,
                        binding,
                    };
                    let start = b * BLOCK;
                    rows.write(&outcomes[start..start + rows.len()]);
                },
            );
        c
    }
}

impl Rows<'_> {
    /// Cases in the block.
    fn len(&self) -> usize {
        self.verdict.len()
    }

    /// The witness and certificate only where the verdict gives them (as `Outcome::witness`
    /// and `Outcome::certificate`), zeros elsewhere.
    fn write(&mut self, outcomes: &[Outcome]) {
        for (i, o) in outcomes.iter().enumerate() {
            self.verdict[i] = o.verdict() as u8;
            let supported = o.verdict() == Verdict::Supported;
            let len = if supported { o.witness_len.min(3) } else { 0 };
            self.witness_len[i] = len as u8;
            for k in 0..len as usize {
                self.witness_index[3 * i + k] = o.witness_index[k] as u8;
                // Weight k is witness_weight[k]·2^witness_exponent[k] (Outcome::witness).
                self.witness_weight[3 * i + k] =
                    f64::from(o.witness_weight[k]) * pow2(o.witness_exponent[k]);
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

/// `2^e`, as `2f64.powi(e)` gives it (both exact in the normal range), without its loop.
fn pow2(e: i32) -> f64 {
    /// Out of line: `powi` is pure, and inlined it is computed on every call and selected.
    #[cold]
    #[inline(never)]
    fn powi(e: i32) -> f64 {
        2f64.powi(e)
    }
    if (-1022..=1023).contains(&e) {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        powi(e)
    }
}

/// The answers of one `cone_test` call: numpy arrays named like the fields of the Rust
/// `Outcome`, one row per case.
#[pyclass(frozen, module = "planar_hold")]
pub(crate) struct Outcomes {
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
        Outcomes {
            verdict: column(py, c.verdict),
            witness_len: column(py, c.witness_len),
            witness_index: table(py, n, 3, c.witness_index),
            witness_weight: table(py, n, 3, c.witness_weight),
            certificate: table(py, n, 3, c.certificate),
            margin: column(py, c.margin),
            capped: column(py, c.capped),
            binding: column(py, c.binding),
        }
    }
}

#[pymethods]
impl Outcomes {
    fn __len__(&self, py: Python<'_>) -> usize {
        self.verdict.bind(py).len()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let (n, [s, u, x]) = verdict_counts(py, &self.verdict);
        format!("Outcomes({n} cases: {s} supported, {u} unsupported, {x} uncertain)")
    }
}

// ------------------------------------------------------------------ general

/// The output columns of a general call.
pub(crate) struct GeneralColumns {
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
    margin_lower: Vec<f64>,
    has_facet: Vec<bool>,
    facet_normal: Vec<f64>,
    facet_mask: Vec<bool>,
}

impl GeneralColumns {
    /// The columns of the evaluated cases of a call of `dim` numbers and `k` generator rows.
    pub(crate) fn new(
        dim: usize,
        k: usize,
        outcomes: &[GeneralOutcome],
        rows: &GeneralRows,
    ) -> GeneralColumns {
        let mut c = GeneralColumns::zeroed(outcomes.len(), dim, k);
        c.write(outcomes, rows);
        c
    }

    /// Zeroed columns of `n` cases of `dim` numbers and `rows` generator rows.
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
            margin_lower: vec![0.0; n],
            has_facet: vec![false; n],
            facet_normal: vec![0.0; n * dim],
            facet_mask: vec![false; n * rows],
        }
    }

    /// The rows of every case, its generators' indices as rows of the caller's array.
    fn write(&mut self, outcomes: &[GeneralOutcome], rows: &GeneralRows) {
        let (d, k) = (self.dim, self.rows);
        for (i, o) in outcomes.iter().enumerate() {
            self.verdict[i] = o.verdict as u8;
            if let Some((idx, weights)) = o.witness() {
                self.witness_len[i] = idx.len() as u8;
                for (j, (&g, &w)) in idx.iter().zip(weights).enumerate() {
                    self.witness_index[i * d + j] = rows.row(i, g) as i32;
                    self.witness_weight[i * d + j] = w;
                }
            }
            if let Some(y) = &o.certificate {
                self.certificate[i * d..(i + 1) * d].copy_from_slice(&y[..d]);
            }
            self.margin[i] = o.margin;
            self.capped[i] = o.capped;
            self.margin_checked[i] = o.margin_checked;
            self.margin_lower[i] = o.margin_lower;
            if let Some(f) = &o.facet {
                self.has_facet[i] = true;
                self.facet_normal[i * d..(i + 1) * d].copy_from_slice(&f.normal[..d]);
                for g in f.generators.iter() {
                    self.facet_mask[i * k + rows.row(i, g) as usize] = true;
                }
            }
        }
    }
}

/// The answers of one general `cone_test` call: numpy arrays, one row per case.
#[pyclass(frozen, module = "planar_hold")]
pub(crate) struct GeneralOutcomes {
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
    margin_lower: Py<PyArray1<f64>>,
    #[pyo3(get)]
    has_facet: Py<PyArray1<bool>>,
    #[pyo3(get)]
    facet_normal: Py<PyArray2<f64>>,
    #[pyo3(get)]
    facet_mask: Py<PyArray2<bool>>,
}

impl GeneralOutcomes {
    fn new(py: Python<'_>, c: GeneralColumns) -> GeneralOutcomes {
        let (n, d) = (c.n, c.dim);
        GeneralOutcomes {
            dim: d,
            verdict: column(py, c.verdict),
            witness_len: column(py, c.witness_len),
            witness_index: table(py, n, d, c.witness_index),
            witness_weight: table(py, n, d, c.witness_weight),
            certificate: table(py, n, d, c.certificate),
            margin: column(py, c.margin),
            capped: column(py, c.capped),
            margin_checked: column(py, c.margin_checked),
            margin_lower: column(py, c.margin_lower),
            has_facet: column(py, c.has_facet),
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

    fn __repr__(&self, py: Python<'_>) -> String {
        let (n, [s, u, x]) = verdict_counts(py, &self.verdict);
        format!(
            "GeneralOutcomes({n} cases in R^{}: {s} supported, {u} unsupported, {x} uncertain)",
            self.dim
        )
    }
}

// ------------------------------------------------------------------ answers as eval writes them

/// A call's answers as a list of dicts, each what `json.loads` makes of the CLI's line for it
/// ([`Answer`], [`GeneralAnswer`]; a general answer's generator indices as rows of the caller's
/// array), made without the text (writing it and having `json` read it back was 40 % of
/// `answers`), `id` first where `ids` gives one that is not None.
pub(crate) fn answers_py<'py>(
    py: Python<'py>,
    batch: &Batch,
    answers: &Answers,
    rows: &GeneralRows,
    ids: Option<Vec<Bound<'py, PyAny>>>,
) -> PyResult<Bound<'py, PyList>> {
    let _paused = CollectorPaused::new(py)?;
    let list = PyList::empty(py);
    for (case, o) in batch.planar.iter().zip(&answers.planar) {
        list.append(to_py_paused(
            py,
            &Answer::<serde_json::Value>::new(None, case, o),
        )?)?;
    }
    let mut witness_rows = [0u32; MAX_DIM];
    for (i, o) in answers.general.iter().enumerate() {
        let mut answer = GeneralAnswer::new(None, batch.general.get(i).dim, o);
        if let Some(w) = answer.witness.as_mut() {
            for (slot, &g) in witness_rows.iter_mut().zip(w.generators) {
                *slot = rows.row(i, g);
            }
            w.generators = &witness_rows[..w.generators.len()];
        }
        if let Some(f) = answer.facet.as_mut() {
            for g in f.generators.iter_mut() {
                *g = rows.row(i, *g);
            }
        }
        let mut proof = answers.proofs.get(i).cloned().flatten();
        if let Some(p) = proof.as_mut() {
            p.renumber(|g| rows.row(i, g));
        }
        answer.proof = proof.as_ref();
        list.append(to_py_paused(py, &answer)?)?;
    }
    with_ids(py, list, ids)
}

/// The answers of rows read as `eval` reads lines (without ids), a dict a row, each what
/// `json.loads` makes of `eval`'s line for it, made without the text: an answer as
/// [`answers_py`] makes it, a refused row as `eval`'s error line (`line`, `error`).
pub(crate) fn rows_py<'py>(
    py: Python<'py>,
    rows: &CaseBatch,
    answers: &Answers,
) -> PyResult<Bound<'py, PyList>> {
    let _paused = CollectorPaused::new(py)?;
    let list = PyList::empty(py);
    let cases = &rows.batch;
    for (r, row) in rows.rows.iter().enumerate() {
        let error = match row {
            Ok(id) => match answers.get(*id) {
                Some(EngineAnswer::Planar(o)) => {
                    let case = &cases.planar[id.index()];
                    list.append(to_py_paused(
                        py,
                        &Answer::<serde_json::Value>::new(None, case, o),
                    )?)?;
                    continue;
                }
                Some(EngineAnswer::General(o)) => {
                    let mut answer = GeneralAnswer::new(None, cases.general.get(id.index()).dim, o);
                    answer.proof = answers.proofs.get(id.index()).and_then(Option::as_ref);
                    list.append(to_py_paused(py, &answer)?)?;
                    continue;
                }
                None => "no answer: the case was not evaluated",
            },
            Err(error) => error.as_str(),
        };
        let line = ErrorLine {
            id: None,
            line: rows.numbers[r],
            error,
        };
        list.append(to_py_paused(py, &line)?)?;
    }
    with_ids(py, list, None)
}

/// `list`'s answers, `id` first where `ids` gives one that is not None (a general answer's
/// `"id": null` dropped).
fn with_ids<'py>(
    py: Python<'py>,
    list: Bound<'py, PyList>,
    ids: Option<Vec<Bound<'py, PyAny>>>,
) -> PyResult<Bound<'py, PyList>> {
    for answer in list.iter() {
        // The general answer writes `"id": null` where it has none; ids are added below.
        let answer = answer.cast_into::<PyDict>()?;
        if answer.get_item("id")?.is_some_and(|id| id.is_none()) {
            answer.del_item("id")?;
        }
    }
    if let Some(ids) = ids {
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

#[cfg(test)]
mod tests {
    #[test]
    fn pow2_is_powi() {
        for e in -1100..1100 {
            assert_eq!(super::pow2(e).to_bits(), 2f64.powi(e).to_bits(), "2^{e}");
        }
    }
}
