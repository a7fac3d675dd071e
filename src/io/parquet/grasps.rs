//! Grasps (docs/contract-grasp.md) from Parquet rows and their answers to Parquet, for
//! `planar-hold gate`.
//!
//! Reading: a chunk's rows are read column by column ([`crate::io::arrow`]) into
//! the fields of a grasp line, and checked by the grasp line's own reader
//! (`scene::grasp_from_fields`), so that the answers are those of the same grasps as JSON Lines:
//! no JSON text in between. Columns: `contacts`, a list of structs {`points`: list of
//! 3-number lists, `normal`: 3 numbers, `mu`: a number or a list of two}; optional `id`
//! (any type with a JSON form), `half_size`, `pyramid`, `friction` (`"circular"` too),
//! `q1_at_least` (the row's threshold), `tolerance`, `dim`, `grasp`; null means absent (in a contact's
//! struct too; a null `q1_at_least` takes `gate --q1-at-least`'s). Any other column is an
//! unknown field of the row (refused by the grasp reader, as on a line), but for the public
//! cases' labels `category`, `sub` and `scale_of`. Numbers may be any integer or float type
//! (float32 is taken at its exact value; a non-finite one refused), lists of either offset
//! width or of fixed size.
//!
//! Writing: [`grasp_answers_file`] and [`ParquetEncoder::encode_grasps`], the columns of
//! [`grasp_answer_schema`], one per field of [`GraspReport`], and `line`, `error` on the
//! refused rows.

use std::fs::File;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, UInt32Builder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::ChunkReader;
use serde_json::Value;

use super::read::{guarded, names};
use super::write::{file_of, ParquetAnswers, ParquetEncoder, RowGroup};
use crate::io::arrow::check_grasp_columns;
use crate::scene::{GraspReport, SpatialScene};

/// A Parquet file of grasps, read a chunk of rows at a time on the calling thread (memory
/// bounded by the chunk, not the file).
pub struct ParquetGrasps {
    reader: ParquetRecordBatchReader,
    total: u64,
    read: u64,
    id_type: Option<DataType>,
}

impl ParquetGrasps {
    /// Opens the file at `path`, `chunk_rows` rows per chunk at most (fewer where the file has
    /// fewer than `8 · chunk_rows` rows a core).
    pub fn open(path: &Path, chunk_rows: usize) -> Result<Self, String> {
        Self::new(File::open(path).map_err(|e| e.to_string())?, chunk_rows)
    }

    /// Opens `file` (a `File`, or `bytes::Bytes` in memory), checks its columns, and reads
    /// `chunk_rows` rows per chunk at most (fewer where the file has fewer than
    /// `8 · chunk_rows` rows a core). Refused here, for the whole file: no `contacts` column,
    /// or a column of a type a row cannot be read from (binary, dates, decimals, maps...).
    pub(crate) fn new<T: ChunkReader + 'static>(
        file: T,
        chunk_rows: usize,
    ) -> Result<Self, String> {
        // The Parquet schema alone, as the cases' reader does (a corrupt embedded Arrow
        // schema cannot panic the decoder), every column read.
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let metadata =
            guarded(|| ArrowReaderMetadata::load(&file, options))?.map_err(|e| e.to_string())?;
        let schema = metadata.schema().clone();
        if schema.index_of("contacts").is_err() {
            return Err(format!(
                "no `contacts` column: not a file of grasps (columns: {})",
                names(&schema)
            ));
        }
        // Every column must be one a row can be read from (the same check as each chunk's).
        check_grasp_columns(&schema)?;
        let id_type = schema
            .field_with_name("id")
            .ok()
            .map(|f| f.data_type().clone());
        let total = metadata.metadata().file_metadata().num_rows().max(0) as u64;
        // At most an eighth of the file's share a core (at least 64 rows): a file of a few
        // thousand grasps, one chunk before, is answered on every core.
        let cores = rayon::current_num_threads().max(1) as u64;
        let rows = chunk_rows.min((total / (8 * cores)).max(64) as usize);
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata)
            .with_batch_size(rows.max(1));
        let reader = guarded(|| builder.build())?.map_err(|e| e.to_string())?;
        Ok(ParquetGrasps {
            reader,
            total,
            read: 0,
            id_type,
        })
    }

    /// Rows in the file.
    pub fn total_rows(&self) -> u64 {
        self.total
    }

    /// The input's `id` column type, if it has one.
    pub fn id_type(&self) -> Option<&DataType> {
        self.id_type.as_ref()
    }

    /// The next chunk of rows; `None` at the end.
    pub fn next_rows(&mut self) -> Option<Result<GraspRows, String>> {
        let record = match guarded(|| self.reader.next()) {
            Ok(None) => return None,
            Ok(Some(Ok(record))) => record,
            Ok(Some(Err(e))) => return Some(Err(e.to_string())),
            Err(e) => return Some(Err(e)),
        };
        let first = self.read + 1;
        self.read += record.num_rows() as u64;
        Some(Ok(GraspRows { record, first }))
    }
}

/// A chunk of grasp rows as decoded, read into grasps apart ([`GraspRows::grasps`]), on any
/// thread.
pub struct GraspRows {
    record: RecordBatch,
    first: u64,
}

impl GraspRows {
    /// The rows' 1-based numbers in the file.
    pub fn numbers(&self) -> Range<u64> {
        self.first..self.first + self.record.num_rows() as u64
    }

    /// The chunk's grasps: each row read column by column into a grasp line's fields and
    /// checked as a line is ([`crate::io::arrow::grasps`]). For each row its scene, or its
    /// id (where it could be read) and the problem.
    pub fn grasps(&self) -> Vec<Result<SpatialScene, (Option<Value>, String)>> {
        crate::io::arrow::grasps(&self.record)
    }
}

/// The output's `id` column type for an input whose `id` column has type `input` (`None`:
/// JSON Lines, or no id column): an integer id column (up to 64-bit signed, or 32-bit
/// unsigned) stays integer, as int64; anything else is text (a string id as it is, any
/// other id as its JSON text).
fn grasp_id_type(input: Option<&DataType>) -> DataType {
    use DataType::*;
    match input {
        Some(Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32) => Int64,
        _ => Utf8,
    }
}

/// The grasp answers' schema, the `id` column of type `id` ([`grasp_id_type`]): one column
/// per field of a [`GraspReport`] but its `proof` (`gate --proof` is refused with a Parquet
/// output), and `line`, `error` for the refused rows. A threshold's answer (`true`, `false`
/// or `"uncertain"`) is two boolean columns, as Python's `GraspQualities` has it:
/// `q1_at_least` (null where undecided) and `q1_at_least_uncertain`, both null where no
/// threshold was asked.
pub(crate) fn grasp_answer_schema(id: DataType) -> SchemaRef {
    let list = |t: DataType| DataType::List(Arc::new(Field::new_list_field(t, true)));
    let mut fields = vec![Field::new("id", id, true)];
    fields.extend([
        Field::new("force_closure", DataType::Utf8, true),
        Field::new("q1", DataType::Float64, true),
        Field::new("q1_lower", DataType::Float64, true),
        Field::new("q1_upper", DataType::Float64, true),
        Field::new("weakest", list(DataType::Float64), true),
        Field::new("facet", DataType::Struct(facet_fields()), true),
        Field::new("margin_checked", DataType::Boolean, true),
        Field::new("friction", DataType::Utf8, true),
        Field::new("pyramid", DataType::Int64, true),
        Field::new("n_generators", DataType::Int64, true),
        Field::new("q1_at_least", DataType::Boolean, true),
        Field::new("q1_at_least_uncertain", DataType::Boolean, true),
        Field::new("refined", DataType::Struct(refined_fields()), true),
        Field::new("reason", DataType::Utf8, true),
        Field::new("line", DataType::UInt64, true),
        Field::new("error", DataType::Utf8, true),
    ]);
    Arc::new(Schema::new(fields))
}

fn facet_fields() -> Fields {
    let list = |t: DataType| DataType::List(Arc::new(Field::new_list_field(t, true)));
    Fields::from(vec![
        Field::new("normal", list(DataType::Float64), true),
        Field::new("generators", list(DataType::UInt32), true),
        Field::new("contacts", list(DataType::UInt32), true),
    ])
}

fn refined_fields() -> Fields {
    Fields::from(vec![
        Field::new("pyramid", DataType::Int64, true),
        Field::new("q1", DataType::Float64, true),
        Field::new("q1_upper", DataType::Float64, true),
    ])
}

/// A Parquet file of grasp answers to `out`, its ids typed for an input whose `id` column
/// has type `input_id` (`None`: JSON Lines, or no id column; see `grasp_id_type`), and its
/// encoder ([`ParquetEncoder::encode_grasps`]); snappy, no dictionaries, no statistics, as
/// the cases' answers.
pub fn grasp_answers_file<W: std::io::Write + Send>(
    out: W,
    input_id: Option<&DataType>,
) -> Result<(ParquetAnswers<W>, ParquetEncoder), String> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None)
        .build();
    file_of(out, grasp_answer_schema(grasp_id_type(input_id)), props)
}

impl ParquetEncoder {
    /// Grasp answers (a file of [`grasp_answers_file`]) as row group number `index`.
    pub fn encode_grasps<'a>(
        &self,
        index: usize,
        rows: impl ExactSizeIterator<Item = GraspRow<'a>>,
    ) -> Result<RowGroup, String> {
        self.encode_record(index, &grasp_answers_batch(&self.schema, rows)?)
    }
}

/// One output row: a grasp's answer, or a refused row's id (where it could be read), line
/// (or row) number and problem.
pub enum GraspRow<'a> {
    /// A grasp's answer.
    Answered(&'a GraspReport),
    /// A refused row.
    Refused {
        /// Its id, where it could be read.
        id: Option<&'a Value>,
        /// Its 1-based line (or row) number.
        line: u64,
        /// Why it was refused.
        error: &'a str,
    },
}

/// The rows' answers as a record batch of `schema` (a `grasp_answer_schema`).
fn grasp_answers_batch<'a>(
    schema: &SchemaRef,
    rows: impl ExactSizeIterator<Item = GraspRow<'a>>,
) -> Result<RecordBatch, String> {
    let n = rows.len();
    let id_type = schema
        .field_with_name("id")
        .map_err(|e| e.to_string())?
        .data_type()
        .clone();
    let mut id_text = StringBuilder::with_capacity(n, n * 16);
    let mut id_int = Int64Builder::with_capacity(n);
    let mut force_closure = StringBuilder::with_capacity(n, n * 5);
    let mut q1 = Float64Builder::with_capacity(n);
    let mut q1_lower = Float64Builder::with_capacity(n);
    let mut q1_upper = Float64Builder::with_capacity(n);
    let mut weakest = ListBuilder::with_capacity(Float64Builder::with_capacity(n * 6), n);
    let mut f_normal = ListBuilder::with_capacity(Float64Builder::with_capacity(n * 6), n);
    let mut f_gens = ListBuilder::with_capacity(UInt32Builder::with_capacity(n * 8), n);
    let mut f_contacts = ListBuilder::with_capacity(UInt32Builder::with_capacity(n * 3), n);
    let mut f_valid = Vec::with_capacity(n);
    let mut margin_checked = BooleanBuilder::with_capacity(n);
    let mut friction = StringBuilder::with_capacity(n, n * 5);
    let mut pyramid = Int64Builder::with_capacity(n);
    let mut n_generators = Int64Builder::with_capacity(n);
    let mut at_least = BooleanBuilder::with_capacity(n);
    let mut at_least_uncertain = BooleanBuilder::with_capacity(n);
    let mut r_pyramid = Int64Builder::with_capacity(n);
    let mut r_q1 = Float64Builder::with_capacity(n);
    let mut r_q1_upper = Float64Builder::with_capacity(n);
    let mut r_valid = Vec::with_capacity(n);
    let mut reason = StringBuilder::with_capacity(n, 0);
    let mut line = UInt64Builder::with_capacity(n);
    let mut error = StringBuilder::with_capacity(n, 0);
    for row in rows {
        let id = match &row {
            GraspRow::Answered(r) => Some(&r.id),
            GraspRow::Refused { id, .. } => *id,
        };
        match id.filter(|v| !v.is_null()) {
            None => {
                id_text.append_null();
                id_int.append_null();
            }
            Some(Value::String(s)) => {
                id_text.append_value(s);
                id_int.append_null();
            }
            Some(v) => {
                id_text.append_value(v.to_string());
                id_int.append_option(v.as_i64());
            }
        }
        let r = match row {
            GraspRow::Answered(r) => r,
            GraspRow::Refused {
                line: number,
                error: e,
                ..
            } => {
                force_closure.append_null();
                q1.append_null();
                q1_lower.append_null();
                q1_upper.append_null();
                weakest.append_null();
                f_normal.append_null();
                f_gens.append_null();
                f_contacts.append_null();
                f_valid.push(false);
                margin_checked.append_null();
                friction.append_null();
                pyramid.append_null();
                n_generators.append_null();
                at_least.append_null();
                at_least_uncertain.append_null();
                r_pyramid.append_null();
                r_q1.append_null();
                r_q1_upper.append_null();
                r_valid.push(false);
                reason.append_null();
                line.append_value(number);
                error.append_value(e);
                continue;
            }
        };
        match &r.force_closure {
            Value::String(s) => force_closure.append_value(s),
            v => force_closure.append_value(v.to_string()),
        }
        q1.append_value(r.q1);
        q1_lower.append_value(r.q1_lower);
        q1_upper.append_option(r.q1_upper);
        weakest.values().append_slice(&r.weakest);
        weakest.append(true);
        match &r.facet {
            Some(f) => {
                f_normal.values().append_slice(&f.normal);
                f_normal.append(true);
                f_gens.values().append_slice(&f.generators);
                f_gens.append(true);
                for &c in &f.contacts {
                    f_contacts.values().append_value(c as u32);
                }
                f_contacts.append(true);
            }
            None => {
                f_normal.append_null();
                f_gens.append_null();
                f_contacts.append_null();
            }
        }
        f_valid.push(r.facet.is_some());
        margin_checked.append_value(r.margin_checked);
        friction.append_value(r.friction);
        pyramid.append_value(r.pyramid as i64);
        n_generators.append_value(r.n_generators as i64);
        // Three values and "not asked" kept apart: decided (true/false, not uncertain),
        // undecided (null, uncertain), not asked (both null).
        match &r.q1_at_least {
            None => {
                at_least.append_null();
                at_least_uncertain.append_null();
            }
            Some(Value::Bool(b)) => {
                at_least.append_value(*b);
                at_least_uncertain.append_value(false);
            }
            Some(_) => {
                at_least.append_null();
                at_least_uncertain.append_value(true);
            }
        }
        match &r.refined {
            Some(g) => {
                r_pyramid.append_value(g.pyramid as i64);
                r_q1.append_value(g.q1);
                r_q1_upper.append_value(g.q1_upper);
            }
            None => {
                r_pyramid.append_null();
                r_q1.append_null();
                r_q1_upper.append_null();
            }
        }
        r_valid.push(r.refined.is_some());
        reason.append_option(r.reason.as_deref());
        line.append_null();
        error.append_null();
    }
    let fail = |e: arrow_schema::ArrowError| e.to_string();
    let facet = StructArray::try_new(
        facet_fields(),
        vec![
            Arc::new(f_normal.finish()),
            Arc::new(f_gens.finish()),
            Arc::new(f_contacts.finish()),
        ],
        Some(NullBuffer::from(f_valid)),
    )
    .map_err(fail)?;
    let refined = StructArray::try_new(
        refined_fields(),
        vec![
            Arc::new(r_pyramid.finish()),
            Arc::new(r_q1.finish()),
            Arc::new(r_q1_upper.finish()),
        ],
        Some(NullBuffer::from(r_valid)),
    )
    .map_err(fail)?;
    let id: ArrayRef = match id_type {
        DataType::Int64 => Arc::new(id_int.finish()),
        DataType::Utf8 => Arc::new(id_text.finish()),
        t => return Err(format!("grasp answers have no id column of type {t}")),
    };
    let columns: Vec<ArrayRef> = vec![
        id,
        Arc::new(force_closure.finish()),
        Arc::new(q1.finish()),
        Arc::new(q1_lower.finish()),
        Arc::new(q1_upper.finish()),
        Arc::new(weakest.finish()),
        Arc::new(facet),
        Arc::new(margin_checked.finish()),
        Arc::new(friction.finish()),
        Arc::new(pyramid.finish()),
        Arc::new(n_generators.finish()),
        Arc::new(at_least.finish()),
        Arc::new(at_least_uncertain.finish()),
        Arc::new(refined),
        Arc::new(reason.finish()),
        Arc::new(line.finish()),
        Arc::new(error.finish()),
    ];
    RecordBatch::try_new(schema.clone(), columns).map_err(fail)
}
