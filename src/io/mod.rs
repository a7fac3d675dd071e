//! Cases in and answers out, in the formats the CLI streams: JSON Lines ([`json`], read in
//! bounded chunks by [`lines`]) and Parquet ([`parquet`]). A [`CaseBatch`] is the unit that
//! flows from a reader through the engine to a writer, whatever the formats on either side.

pub mod general;
pub mod json;
pub mod lines;
#[cfg(feature = "parquet")]
pub mod parquet;

#[cfg(feature = "parquet")]
use arrow_array::ArrayRef;

use crate::general::{GeneralBatch, GeneralOutcome};
use crate::planar::types::{Case, Outcome};
use crate::CaseKind;

/// Set in a row's index (`CaseBatch::rows`) when the row's case is a general one: the rest
/// of the bits index `CaseBatch::general`.
pub const GENERAL_ROW: u32 = 1 << 31;

/// Which case a good row holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowCase {
    /// Index in `CaseBatch::cases` (the planar enumeration).
    Planar(usize),
    /// Index in `CaseBatch::general` (the general engine).
    General(usize),
}

impl RowCase {
    /// The case a row index stands for.
    pub fn of(index: u32) -> RowCase {
        if index & GENERAL_ROW != 0 {
            RowCase::General((index & !GENERAL_ROW) as usize)
        } else {
            RowCase::Planar(index as usize)
        }
    }
}

/// The ids of a batch's rows, in the form they were read.
#[derive(Default)]
pub enum Ids {
    /// No row has an id (a Parquet input without an `id` column).
    #[default]
    None,
    /// Each row's id as JSON text (JSON Lines input, or Parquet ids bound for JSON).
    Json(JsonIds),
    /// The `id` column of a Parquet input, passed through to a Parquet output as it is.
    #[cfg(feature = "parquet")]
    Arrow(ArrayRef),
}

/// Each row's id as JSON text, back to back in one buffer: no allocation per row, and the
/// buffer is kept when the batch is refilled.
#[derive(Default)]
pub struct JsonIds {
    text: String,
    /// Each row's id's range in `text`, or `None`.
    spans: Vec<Option<(u32, u32)>>,
}

impl JsonIds {
    /// Forgets every id, keeping the buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
    }

    /// Appends the next row's id: JSON text, or `None`.
    pub fn push(&mut self, id: Option<&str>) {
        self.spans.push(id.map(|id| {
            let start = self.text.len() as u32;
            self.text.push_str(id);
            (start, self.text.len() as u32)
        }));
    }

    /// Row `row`'s id as JSON text.
    pub fn get(&self, row: usize) -> Option<&str> {
        let (start, end) = self.spans[row]?;
        Some(&self.text[start as usize..end as usize])
    }

    /// Rows (ids or `None`) held.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no row is held.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// Consecutive input rows (lines or Parquet rows), parsed: the cases of the good ones and
/// the errors of the refused ones, in input order. A batch can be cleared and refilled,
/// keeping its buffers.
#[derive(Default)]
pub struct CaseBatch {
    /// 1-based line (JSON Lines) or row (Parquet) number of each row.
    pub numbers: Vec<u64>,
    /// For each row: the index of its case ([`RowCase::of`]: in `cases`, or with
    /// [`GENERAL_ROW`] set in `general`), or why it was refused.
    pub rows: Vec<Result<u32, String>>,
    /// The good planar rows' cases, in order: what the enumeration evaluates.
    pub cases: Vec<Case>,
    /// The good general rows' cases (6-number generators, or more than 16), in order.
    pub general: GeneralBatch,
    /// The general cases' answers, once [`CaseBatch::solve_general`] or an engine has
    /// filled them (one per case of `general`).
    pub general_outcomes: Vec<GeneralOutcome>,
    /// The rows' ids, refused rows included.
    pub ids: Ids,
}

impl CaseBatch {
    /// A batch from per-row parse results, in order.
    pub fn from_rows(numbers: Vec<u64>, parsed: Vec<Result<Case, String>>, ids: Ids) -> CaseBatch {
        let mut batch = CaseBatch {
            numbers: Vec::with_capacity(numbers.len()),
            ids,
            ..CaseBatch::default()
        };
        for (number, row) in numbers.into_iter().zip(parsed) {
            batch.push(number, row);
        }
        batch
    }

    /// Empties the batch, keeping its buffers (and JSON ids' list).
    pub fn clear(&mut self) {
        self.numbers.clear();
        self.rows.clear();
        self.cases.clear();
        self.general.clear();
        self.general_outcomes.clear();
        match &mut self.ids {
            Ids::Json(ids) => ids.clear(),
            ids => *ids = Ids::None,
        }
    }

    /// Appends row `number`: its case, or why it was refused.
    pub fn push(&mut self, number: u64, row: Result<Case, String>) {
        self.numbers.push(number);
        self.rows.push(row.map(|case| {
            self.cases.push(case);
            (self.cases.len() - 1) as u32
        }));
    }

    /// Appends row `number` holding general case `index` of `self.general`.
    pub fn push_general(&mut self, number: u64, index: u32) {
        self.numbers.push(number);
        self.rows.push(Ok(index | GENERAL_ROW));
    }

    /// Good rows, planar and general.
    pub fn case_count(&self) -> usize {
        self.cases.len() + self.general.len()
    }

    /// The refused rows: (number, error).
    pub fn refused(&self) -> impl Iterator<Item = (u64, &str)> {
        self.rows
            .iter()
            .zip(&self.numbers)
            .filter_map(|(r, &n)| r.as_ref().err().map(|e| (n, e.as_str())))
    }

    /// Row `row`'s id as JSON text, when the batch's ids are JSON and the row has one.
    pub fn id_json(&self, row: usize) -> Option<&str> {
        match &self.ids {
            Ids::Json(ids) => ids.get(row),
            _ => None,
        }
    }
}

impl CaseBatch {
    /// Fills `general_outcomes` with the CPU's general engine on this thread alone (the
    /// pipeline's workers are the parallelism).
    pub fn solve_general(&mut self) {
        self.general_outcomes.clear();
        self.general_outcomes
            .resize(self.general.len(), GeneralOutcome::default());
        crate::general::solver::solve_batch_serial(&self.general, &mut self.general_outcomes);
    }
}

/// A JSON Lines chunk parsed into a new batch (see [`parse_json_chunk_into`]).
pub fn parse_json_chunk(chunk: &lines::LineChunk) -> CaseBatch {
    let mut batch = CaseBatch::default();
    parse_json_chunk_into(chunk, &mut batch);
    batch
}

/// A JSON Lines chunk parsed on this thread into `batch` (cleared first): each line a case
/// or its error, with the id salvaged from a refused line when it has one.
pub fn parse_json_chunk_into(chunk: &lines::LineChunk, batch: &mut CaseBatch) {
    batch.clear();
    let mut ids = match std::mem::take(&mut batch.ids) {
        Ids::Json(ids) => ids,
        _ => JsonIds::default(),
    };
    for (k, line) in chunk.lines.iter().enumerate() {
        if line.too_long {
            ids.push(None);
            let error = format!("line longer than {} bytes", lines::MAX_LINE);
            batch.push(line.number, Err(error));
            continue;
        }
        let text = chunk.text(k);
        // The plain planar line, read and classified in one pass (the hot path); any other
        // line classified by its shape, then read by its engine's reader alone.
        if let Some((id, case)) = json::plain_case(text) {
            ids.push(id);
            batch.push(line.number, Ok(case));
            continue;
        }
        let read = match json::line_kind(text) {
            CaseKind::Planar => json::parse_serde(text).map(|(id, case)| {
                ids.push(id);
                batch.push(line.number, Ok(case));
            }),
            CaseKind::General => general::parse_general(text, &mut batch.general).map(|(id, i)| {
                ids.push(id);
                batch.push_general(line.number, i);
            }),
        };
        if let Err(e) = read {
            let id = json::salvage_id(text).map(|v| v.to_string());
            ids.push(id.as_deref());
            batch.push(line.number, Err(e));
        }
    }
    batch.ids = Ids::Json(ids);
}

/// The answers of a batch as JSON Lines, appended to `out` on this thread: one line per
/// row, an answer or `{"id", "line", "error"}`. `outcomes[i]` answers `batch.cases[i]`.
pub fn format_json(batch: &CaseBatch, outcomes: &[Outcome], out: &mut Vec<u8>) {
    out.reserve(batch.rows.len() * 200);
    for (r, row) in batch.rows.iter().enumerate() {
        match row {
            Ok(i) => match RowCase::of(*i) {
                RowCase::Planar(i) => {
                    json::write_answer(out, batch.id_json(r), &batch.cases[i], &outcomes[i]);
                }
                RowCase::General(i) => match batch.general_outcomes.get(i) {
                    Some(o) => general::write_general_answer(
                        out,
                        batch.id_json(r),
                        &batch.general.get(i),
                        o,
                    ),
                    None => json::write_line(
                        out,
                        &json::ErrorLine {
                            id: batch
                                .id_json(r)
                                .and_then(|text| serde_json::from_str(text).ok()),
                            line: batch.numbers[r],
                            error: "no answer: the general case was not evaluated",
                        },
                    ),
                },
            },
            Err(error) => {
                let id = batch
                    .id_json(r)
                    .and_then(|text| serde_json::from_str(text).ok());
                let line = json::ErrorLine {
                    id,
                    line: batch.numbers[r],
                    error,
                };
                json::write_line(out, &line);
            }
        }
    }
}
