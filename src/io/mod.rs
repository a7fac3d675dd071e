//! Cases in and answers out, in the formats the CLI streams: JSON Lines ([`json`], read in
//! bounded chunks by [`lines`]; the general cases' lines in [`general`]) and Parquet
//! ([`parquet`]); grasps from rows of Arrow columns ([`arrow`]: Parquet's, Ray's). A [`CaseBatch`] is the unit that flows from a reader through
//! [`Engine::evaluate`](crate::Engine::evaluate) to a writer, whatever the formats on either
//! side: this module only reads and writes.

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod general;
pub mod json;
pub mod lines;
#[cfg(feature = "parquet")]
pub mod parquet;
mod report_line;

pub use report_line::write_report;

#[cfg(feature = "parquet")]
use arrow_array::ArrayRef;

use crate::planar::types::Case;
use crate::{Answer, Answers, Batch, CaseId, CaseKind};

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
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
    }

    /// Appends the next row's id: JSON text, or `None`.
    pub(crate) fn push(&mut self, id: Option<&str>) {
        self.spans.push(id.map(|id| {
            let start = self.text.len() as u32;
            self.text.push_str(id);
            (start, self.text.len() as u32)
        }));
    }

    /// Row `row`'s id as JSON text.
    pub(crate) fn get(&self, row: usize) -> Option<&str> {
        let (start, end) = self.spans[row]?;
        Some(&self.text[start as usize..end as usize])
    }

    /// Rows (ids or `None`) held.
    #[cfg(feature = "parquet")]
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }
}

/// Consecutive input rows (lines or Parquet rows), parsed: the cases of the good ones, in a
/// [`Batch`] for [`Engine::evaluate`](crate::Engine::evaluate), and the errors of the
/// refused ones, in input order. A batch can be cleared and refilled, keeping its buffers.
#[derive(Default)]
pub struct CaseBatch {
    /// 1-based line (JSON Lines) or row (Parquet) number of each row.
    pub numbers: Vec<u64>,
    /// For each row: its case in `batch`, or why it was refused.
    pub rows: Vec<Result<CaseId, String>>,
    /// The good rows' cases, of both kinds.
    pub batch: Batch,
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
        self.batch.clear();
        match &mut self.ids {
            Ids::Json(ids) => ids.clear(),
            ids => *ids = Ids::None,
        }
    }

    /// Appends row `number`: its planar case, or why it was refused.
    pub(crate) fn push(&mut self, number: u64, row: Result<Case, String>) {
        self.numbers.push(number);
        self.rows.push(row.map(|case| self.batch.push(case)));
    }

    /// Appends row `number` holding a planar case.
    #[inline]
    #[cfg(feature = "parquet")]
    pub(crate) fn push_planar(&mut self, number: u64, case: Case) {
        self.numbers.push(number);
        self.rows.push(Ok(self.batch.push(case)));
    }

    /// Appends row `number` holding general case `index` of `self.batch.general`.
    pub(crate) fn push_general(&mut self, number: u64, index: u32) {
        self.numbers.push(number);
        self.rows.push(Ok(CaseId::general(index as usize)));
    }

    /// Good rows, planar and general.
    pub fn case_count(&self) -> usize {
        self.batch.len()
    }

    /// The refused rows: (number, error).
    pub fn refused(&self) -> impl Iterator<Item = (u64, &str)> {
        self.rows
            .iter()
            .zip(&self.numbers)
            .filter_map(|(r, &n)| r.as_ref().err().map(|e| (n, e.as_str())))
    }

    /// Row `row`'s id as JSON text, when the batch's ids are JSON and the row has one.
    pub(crate) fn id_json(&self, row: usize) -> Option<&str> {
        match &self.ids {
            Ids::Json(ids) => ids.get(row),
            _ => None,
        }
    }
}

/// A JSON Lines chunk parsed on this thread into `batch` (cleared first): each line a case
/// or its error, with the id salvaged from a refused line when it has one.
pub fn parse_json_chunk_into(chunk: &lines::LineChunk, batch: &mut CaseBatch) {
    batch.clear();
    let mut ids = match std::mem::take(&mut batch.ids) {
        Ids::Json(ids) => ids,
        _ => JsonIds::default(),
    };
    let mut flat = Vec::new();
    for (k, line) in chunk.lines.iter().enumerate() {
        if line.too_long {
            ids.push(None);
            let error = format!("line longer than {} bytes", lines::MAX_LINE);
            batch.push(line.number, Err(error));
            continue;
        }
        let text = chunk.text(k);
        // The plain planar line, read and classified in one pass (the hot path); any other
        // read once whole in the general form, and answered from it when it is a general
        // case. A planar line in another form, or a line that form cannot read, is read by
        // its engine's reader (its shape says which), which says what is wrong.
        if let Some((id, case)) = json::plain_case(text) {
            ids.push(id);
            batch.push(line.number, Ok(case));
            continue;
        }
        // A general line in the plain form, scanned once (the hot path of R⁶ files).
        if let Some((id, dim, need)) = json::plain_general(text, &mut flat) {
            let numbers = flat.iter().chain(need.iter().flat_map(|n| &n[..dim]));
            if CaseKind::of_numbers(dim, flat.len() / dim, numbers.copied()) == CaseKind::General {
                if batch.batch.general.is_empty() {
                    // Room for the chunk's cases at once (a number is at least 2 bytes of
                    // its line, most nearer 20): grown case by case, a fresh batch was
                    // copied at every doubling.
                    let left = chunk.lines.len() - k;
                    let bytes = chunk.lines[k..]
                        .iter()
                        .map(|l| l.end - l.start)
                        .sum::<usize>();
                    batch.batch.general.reserve(left, bytes / 16);
                }
                let need = need
                    .as_ref()
                    .map_or(crate::general::default_need(dim), |n| &n[..dim]);
                // Refused (a number too large to square, say): the serde path says so.
                if let Ok(i) = batch.batch.general.push(dim, &flat, need) {
                    ids.push(id);
                    batch.push_general(line.number, i);
                    continue;
                }
            }
        }
        let general = general::GeneralLine::read(text).ok();
        let kind = match &general {
            Some(form) => form.kind(),
            None => json::line_kind(text),
        };
        let read = match (kind, general) {
            (CaseKind::General, Some(form)) => {
                form.push_into(&mut batch.batch.general).map(|(id, i)| {
                    ids.push(id);
                    batch.push_general(line.number, i);
                })
            }
            _ => match kind {
                CaseKind::Planar => json::parse_serde(text).map(|(id, case)| {
                    ids.push(id);
                    batch.push(line.number, Ok(case));
                }),
                CaseKind::General => {
                    general::parse_general(text, &mut batch.batch.general).map(|(id, i)| {
                        ids.push(id);
                        batch.push_general(line.number, i);
                    })
                }
            },
        };
        if let Err(e) = read {
            // Text that is not JSON: its syntax error, which the reader of the kind its
            // shape suggested may not reach first.
            let e = match crate::error::not_json(text) {
                Some(syntax) => format!("not a valid case: {syntax}"),
                None => e,
            };
            let id = json::salvage_id(text).map(|v| v.to_string());
            ids.push(id.as_deref());
            batch.push(line.number, Err(e));
        }
    }
    batch.ids = Ids::Json(ids);
}

/// The answers of a batch as JSON Lines, appended to `out` on this thread: one line per
/// row, an answer or `{"id", "line", "error"}`. `answers` answer `batch.batch`.
pub fn format_json(batch: &CaseBatch, answers: &Answers, out: &mut Vec<u8>) {
    out.reserve(batch.rows.len() * 200);
    let cases = &batch.batch;
    for (r, row) in batch.rows.iter().enumerate() {
        let error = match row {
            Ok(id) => match answers.get(*id) {
                Some(Answer::Planar(o)) => {
                    json::write_answer(out, batch.id_json(r), &cases.planar[id.index()], o);
                    continue;
                }
                Some(Answer::General(o)) => {
                    let case = cases.general.get(id.index());
                    let proof = answers.proofs.get(id.index()).and_then(Option::as_ref);
                    general::write_general_answer(out, batch.id_json(r), &case, o, proof);
                    continue;
                }
                None => "no answer: the case was not evaluated",
            },
            Err(error) => error.as_str(),
        };
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
