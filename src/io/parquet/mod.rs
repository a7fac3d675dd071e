//! Cases from Parquet and answers to Parquet, through the Arrow crates, a chunk of rows at a
//! time (memory bounded by the chunk, not the file), in three parts: `read` opens a file
//! and decodes its chunks, on several lanes at once; `columns` turns a chunk's Arrow columns
//! into a [`CaseBatch`](super::CaseBatch), each row classified once by its shape
//! ([`CaseKind::of`](crate::CaseKind::of)) and read by its engine's reader; [`write`] builds the
//! answers' columns and encodes row groups on any thread, appended to the file in order.
//!
//! Input columns: `generators`, a list of generators each a list of 3 numbers (the planar
//! enumeration at 16 or fewer, the general engine beyond, up to 256) or of 6 (the general
//! engine), float32 or float64, lists of either offset width or of fixed size; optional
//! `need` (as many numbers as a generator; null or absent: the nominal weight, (0, 1, 0) or
//! (0, 0, 1, 0, 0, 0)); optional `id` (any type, passed through). Output columns mirror the
//! JSON answers of either kind: `id`, `verdict`, `margin`, `capped`, `witness`
//! {`generators`, `weights`}, `certificate`, `binding` and `binding_candidate` (planar rows),
//! `facet` {`normal`, `generators`}, `margin_checked` and `margin_lower` (general rows), and `line`, `error`
//! (set on refused rows only). A planar answer's floats are stored as float64 holding the
//! value its JSON decimal reads back as, so that a reader gets the same numbers from either
//! format.
//!
//! Grasps (docs/contract-grasp.md) have their own rows and answers, for `planar-hold gate`:
//! `grasps`.

mod columns;
pub(crate) mod grasps;
mod read;
mod write;

pub use grasps::{grasp_answers_file, GraspRow, GraspRows, ParquetGrasps};
pub use read::ParquetCases;
pub use write::{answers_file, ParquetAnswers, ParquetEncoder, RowGroup};
