//! Cases in and answers out, in the formats the CLI streams: JSON Lines ([`json`], read in
//! bounded chunks by [`lines`]) and Parquet ([`parquet`]). A [`CaseBatch`] is the unit that
//! flows from a reader through the engine to a writer, whatever the formats on either side.

pub mod json;
pub mod lines;
pub mod parquet;

use arrow_array::ArrayRef;
use rayon::prelude::*;
use serde_json::value::RawValue;

use crate::types::{Case, Outcome};

/// The ids of a batch's rows, in the form they were read.
pub enum Ids {
    /// No row has an id (a Parquet input without an `id` column).
    None,
    /// Each row's id as JSON text (JSON Lines input, or Parquet ids bound for JSON).
    Json(Vec<Option<Box<RawValue>>>),
    /// The `id` column of a Parquet input, passed through to a Parquet output as it is.
    Arrow(ArrayRef),
}

/// Consecutive input rows (lines or Parquet rows), parsed: the cases of the good ones and
/// the errors of the refused ones, in input order.
pub struct CaseBatch {
    /// 1-based line (JSON Lines) or row (Parquet) number of each row.
    pub numbers: Vec<u64>,
    /// For each row: the index of its case in `cases`, or why it was refused.
    pub rows: Vec<Result<u32, String>>,
    /// The good rows' cases, in order: what the engine evaluates.
    pub cases: Vec<Case>,
    /// The rows' ids, refused rows included.
    pub ids: Ids,
}

impl CaseBatch {
    /// A batch from per-row parse results, in order.
    pub fn from_rows(numbers: Vec<u64>, parsed: Vec<Result<Case, String>>, ids: Ids) -> CaseBatch {
        let mut cases = Vec::with_capacity(parsed.len());
        let rows = parsed
            .into_iter()
            .map(|r| {
                r.map(|case| {
                    cases.push(case);
                    (cases.len() - 1) as u32
                })
            })
            .collect();
        CaseBatch {
            numbers,
            rows,
            cases,
            ids,
        }
    }

    /// The refused rows: (number, error).
    pub fn refused(&self) -> impl Iterator<Item = (u64, &str)> {
        self.rows
            .iter()
            .zip(&self.numbers)
            .filter_map(|(r, &n)| r.as_ref().err().map(|e| (n, e.as_str())))
    }

    fn id_json(&self, row: usize) -> Option<&RawValue> {
        match &self.ids {
            Ids::Json(ids) => ids[row].as_deref(),
            _ => None,
        }
    }
}

/// Rows formatted per parallel task: large enough to amortise the task, small enough to
/// spread a chunk over every core.
const FORMAT_SPLIT: usize = 1024;

/// A JSON Lines chunk parsed on every core: each line a case or its error (with the id
/// salvaged from a refused line when it has one).
pub fn parse_json_chunk(chunk: &lines::LineChunk) -> CaseBatch {
    type Parsed = (Option<Box<RawValue>>, Result<Case, String>);
    let parsed: Vec<Parsed> = (0..chunk.lines.len())
        .into_par_iter()
        .with_min_len(FORMAT_SPLIT)
        .map(|k| {
            let line = &chunk.lines[k];
            if line.too_long {
                return (
                    None,
                    Err(format!("line longer than {} bytes", lines::MAX_LINE)),
                );
            }
            let text = chunk.text(k);
            match json::parse_case_raw(text) {
                Ok((id, case)) => (id.map(ToOwned::to_owned), Ok(case)),
                Err(e) => {
                    let id = json::salvage_id(text)
                        .and_then(|v| serde_json::value::to_raw_value(&v).ok());
                    (id, Err(e))
                }
            }
        })
        .collect();
    let numbers = chunk.lines.iter().map(|l| l.number).collect();
    let (ids, rows): (Vec<_>, Vec<_>) = parsed.into_iter().unzip();
    CaseBatch::from_rows(numbers, rows, Ids::Json(ids))
}

/// The answers of a batch as JSON Lines, formatted on every core: one line per row, an
/// answer or `{"id", "line", "error"}`. `outcomes[i]` answers `batch.cases[i]`.
pub fn format_json(batch: &CaseBatch, outcomes: &[Outcome]) -> Vec<u8> {
    let parts: Vec<Vec<u8>> = batch
        .rows
        .par_chunks(FORMAT_SPLIT)
        .enumerate()
        .map(|(part, rows)| {
            let mut out = Vec::with_capacity(rows.len() * 200);
            for (k, row) in rows.iter().enumerate() {
                let r = part * FORMAT_SPLIT + k;
                match row {
                    Ok(i) => {
                        let i = *i as usize;
                        json::write_answer(
                            &mut out,
                            batch.id_json(r),
                            &batch.cases[i],
                            &outcomes[i],
                        );
                    }
                    Err(error) => {
                        let id = batch
                            .id_json(r)
                            .and_then(|raw| serde_json::from_str(raw.get()).ok());
                        let line = json::ErrorLine {
                            id,
                            line: batch.numbers[r],
                            error,
                        };
                        json::write_line(&mut out, &line);
                    }
                }
            }
            out
        })
        .collect();
    parts.concat()
}
