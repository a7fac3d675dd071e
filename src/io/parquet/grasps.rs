//! Grasps (docs/contract-grasp.md) from Parquet rows and their answers to Parquet, for
//! `planar-hold gate`.
//!
//! Reading: each row of a chunk becomes the JSON object of a grasp line ([`GraspRows::row`]:
//! a small generic Arrow → JSON conversion, every column by its name, null meaning absent,
//! `"dim": 3` and `"grasp": true` implied), which the gate parses exactly as it parses a
//! JSON line, so that the answers are those of the same grasps as JSON Lines. Columns:
//! `contacts`, a list of structs {`points`: list of 3-number lists, `normal`: 3 numbers,
//! `mu`: a number or a list of two}; optional `id` (any type with a JSON form), `half_size`,
//! `pyramid`, `friction`, `dim`, `grasp`. Any other column is an unknown field of the row
//! (refused by the grasp parser, as on a line), but for the public cases' labels
//! `category`, `sub` and `scale_of`. Numbers may be any integer or float type (float32 is
//! taken at its exact value), lists of either offset width or of fixed size.
//!
//! Writing: [`grasp_answers_file`] and [`grasp_answers_batch`], the columns of
//! [`grasp_answer_schema`], one per field of [`GraspReport`], and `line`, `error` on the
//! refused rows.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, UInt32Builder,
    UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::ChunkReader;
use serde_json::{Map, Value};

use super::read::{guarded, names};
use super::write::{file_of, ParquetAnswers, ParquetEncoder};
use crate::scene::GraspReport;

/// A Parquet file of grasps, read a chunk of rows at a time on the calling thread (memory
/// bounded by the chunk, not the file).
pub struct ParquetGrasps {
    reader: ParquetRecordBatchReader,
    total: u64,
    read: u64,
    id_type: Option<DataType>,
}

impl ParquetGrasps {
    /// Opens the file at `path`, `chunk_rows` rows per chunk.
    pub fn open(path: &Path, chunk_rows: usize) -> Result<Self, String> {
        Self::new(File::open(path).map_err(|e| e.to_string())?, chunk_rows)
    }

    /// Opens `file` (a `File`, or `bytes::Bytes` in memory), checks its columns, and reads
    /// `chunk_rows` rows per chunk. Refused here, for the whole file: no `contacts` column,
    /// or a column of a type without a JSON form (binary, dates, decimals, maps...).
    pub fn new<T: ChunkReader + 'static>(file: T, chunk_rows: usize) -> Result<Self, String> {
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
        if let Some(f) = schema.fields().iter().find(|f| !json_form(f.data_type())) {
            return Err(format!(
                "column `{}` has type {}, which has no JSON form (grasp rows are read as \
                 JSON lines)",
                f.name(),
                f.data_type()
            ));
        }
        let id_type = schema
            .field_with_name("id")
            .ok()
            .map(|f| f.data_type().clone());
        let total = metadata.metadata().file_metadata().num_rows().max(0) as u64;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata)
            .with_batch_size(chunk_rows.max(1));
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

    /// Rows in the chunks handed out so far.
    pub fn rows_read(&self) -> u64 {
        self.read
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

/// A chunk of grasp rows as decoded, turned into JSON apart ([`GraspRows::row`]), on any
/// thread.
pub struct GraspRows {
    record: RecordBatch,
    first: u64,
}

impl GraspRows {
    /// Rows in the chunk.
    pub fn len(&self) -> usize {
        self.record.num_rows()
    }

    /// Whether the chunk has no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The 1-based number of row `i` in the file.
    pub fn number(&self, i: usize) -> u64 {
        self.first + i as u64
    }

    /// Row `i` as the JSON object of a grasp line: each non-null column under its name,
    /// `"dim": 3` and `"grasp": true` where absent. On failure (a non-finite number), the
    /// row's id where it could be read and the problem.
    pub fn row(&self, i: usize) -> Result<Value, (Option<Value>, String)> {
        let mut object = Map::new();
        let schema = self.record.schema();
        for (field, column) in schema.fields().iter().zip(self.record.columns()) {
            if null_at(column.as_ref(), i) {
                continue;
            }
            match arrow_value(column.as_ref(), i) {
                Ok(v) => {
                    object.insert(field.name().clone(), v);
                }
                Err(e) => {
                    let id = self.record.column_by_name("id");
                    let id = id.and_then(|a| (!null_at(a, i)).then(|| arrow_value(a, i).ok()));
                    return Err((id.flatten(), format!("column `{}`: {e}", field.name())));
                }
            }
        }
        object.entry("dim").or_insert(Value::from(3));
        object.entry("grasp").or_insert(Value::Bool(true));
        Ok(Value::Object(object))
    }
}

/// Whether values of type `t` have a JSON form here ([`arrow_value`]).
fn json_form(t: &DataType) -> bool {
    use DataType::*;
    match t {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64
        | Float16 | Float32 | Float64 | Utf8 | LargeUtf8 | Utf8View => true,
        List(f) | LargeList(f) | FixedSizeList(f, _) => json_form(f.data_type()),
        Struct(fields) => fields.iter().all(|f| json_form(f.data_type())),
        _ => false,
    }
}

/// Whether entry `i` of `a` is null (every entry of a column of type null).
fn null_at(a: &dyn Array, i: usize) -> bool {
    a.data_type() == &DataType::Null || a.is_null(i)
}

/// Entry `i` of `a` as JSON: numbers, booleans, strings, lists (of either offset width or of
/// fixed size) as arrays, structs as objects without their null fields, null as null.
/// Refused: a non-finite number, a type without a JSON form.
pub fn arrow_value(a: &dyn Array, i: usize) -> Result<Value, String> {
    if null_at(a, i) {
        return Ok(Value::Null);
    }
    macro_rules! ints {
        ($($t:ty),*) => {$(
            if let Some(p) = a.as_primitive_opt::<$t>() {
                return Ok(Value::from(p.value(i)));
            }
        )*};
    }
    ints!(Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type);
    let float = match a.data_type() {
        DataType::Float64 => a.as_primitive_opt::<Float64Type>().map(|p| p.value(i)),
        DataType::Float32 => a
            .as_primitive_opt::<Float32Type>()
            .map(|p| p.value(i).into()),
        DataType::Float16 => a
            .as_primitive_opt::<Float16Type>()
            .map(|p| p.value(i).into()),
        _ => None,
    };
    if let Some(x) = float {
        return serde_json::Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| format!("non-finite number {x}"));
    }
    if let Some(b) = a.as_boolean_opt() {
        return Ok(Value::Bool(b.value(i)));
    }
    if let Some(s) = a.as_string_opt::<i32>() {
        return Ok(Value::from(s.value(i)));
    }
    if let Some(s) = a.as_string_opt::<i64>() {
        return Ok(Value::from(s.value(i)));
    }
    if let Some(s) = a.as_string_view_opt() {
        return Ok(Value::from(s.value(i)));
    }
    let items = |values: &ArrayRef, range: std::ops::Range<usize>| -> Result<Value, String> {
        let items: Result<Vec<Value>, String> =
            range.map(|j| arrow_value(values.as_ref(), j)).collect();
        items.map(Value::Array)
    };
    if let Some(l) = a.as_list_opt::<i32>() {
        let o = l.value_offsets();
        return items(l.values(), o[i] as usize..o[i + 1] as usize);
    }
    if let Some(l) = a.as_list_opt::<i64>() {
        let o = l.value_offsets();
        return items(l.values(), o[i] as usize..o[i + 1] as usize);
    }
    if let Some(l) = a.as_fixed_size_list_opt() {
        let start = l.value_offset(i) as usize;
        return items(l.values(), start..start + l.value_length() as usize);
    }
    if let Some(s) = a.as_struct_opt() {
        let mut object = Map::new();
        for (name, column) in s.column_names().into_iter().zip(s.columns()) {
            if !null_at(column.as_ref(), i) {
                object.insert(name.to_string(), arrow_value(column.as_ref(), i)?);
            }
        }
        return Ok(Value::Object(object));
    }
    Err(format!("type {} has no JSON form", a.data_type()))
}

/// The output's `id` column type for an input whose `id` column has type `input` (`None`:
/// JSON Lines, or no id column): an integer id column (up to 64-bit signed, or 32-bit
/// unsigned) stays integer, as int64; anything else is text (a string id as it is, any
/// other id as its JSON text).
pub fn grasp_id_type(input: Option<&DataType>) -> DataType {
    use DataType::*;
    match input {
        Some(Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32) => Int64,
        _ => Utf8,
    }
}

/// The grasp answers' schema, the `id` column of type `id` ([`grasp_id_type`]): one column
/// per field of a [`GraspReport`], and `line`, `error` for the refused rows.
pub fn grasp_answer_schema(id: DataType) -> SchemaRef {
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

/// A Parquet file of grasp answers to `out` (ids of type `id`, see [`grasp_id_type`]) and
/// its encoder ([`ParquetEncoder::encode_record`] of a [`grasp_answers_batch`]); snappy,
/// no dictionaries, no statistics, as the cases' answers.
pub fn grasp_answers_file<W: std::io::Write + Send>(
    out: W,
    id: DataType,
) -> Result<(ParquetAnswers<W>, ParquetEncoder), String> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None)
        .build();
    file_of(out, grasp_answer_schema(id), props)
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

/// The rows' answers as a record batch of `schema` (a [`grasp_answer_schema`]).
pub fn grasp_answers_batch<'a>(
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
        Arc::new(refined),
        Arc::new(reason.finish()),
        Arc::new(line.finish()),
        Arc::new(error.finish()),
    ];
    RecordBatch::try_new(schema.clone(), columns).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{FixedSizeListBuilder, LargeListBuilder};
    use arrow_array::{Float32Array, Float64Array, Int32Array, Int64Array, NullArray};
    use serde_json::json;

    #[test]
    fn arrow_values_are_the_json_of_their_rows() {
        let mut fixed = FixedSizeListBuilder::new(Float64Builder::new(), 3);
        fixed.values().append_slice(&[1.0, 0.0, -2.5]);
        fixed.append(true);
        fixed.values().append_slice(&[0.0, 0.0, 0.0]);
        fixed.append(false);
        let mut large = LargeListBuilder::new(Int64Builder::new());
        large.values().append_value(7);
        large.append(true);
        large.values().append_null();
        large.append(true);
        let mu: ArrayRef = Arc::new(Float32Array::from(vec![Some(0.5), None]));
        let n: ArrayRef = Arc::new(Int32Array::from(vec![3, 4]));
        let nothing: ArrayRef = Arc::new(NullArray::new(2));
        let s = StructArray::from(vec![
            (Arc::new(Field::new("mu", DataType::Float32, true)), mu),
            (Arc::new(Field::new("k", DataType::Int32, true)), n),
            (Arc::new(Field::new("none", DataType::Null, true)), nothing),
        ]);
        let fixed = fixed.finish();
        let large = large.finish();
        assert_eq!(arrow_value(&fixed, 0).unwrap(), json!([1.0, 0.0, -2.5]));
        assert_eq!(arrow_value(&fixed, 1).unwrap(), Value::Null);
        assert_eq!(arrow_value(&large, 1).unwrap(), json!([null]));
        assert_eq!(arrow_value(&s, 0).unwrap(), json!({"mu": 0.5, "k": 3}));
        assert_eq!(
            arrow_value(&s, 1).unwrap(),
            json!({"k": 4}),
            "nulls dropped"
        );
        let nan = Float64Array::from(vec![f64::NAN]);
        assert!(arrow_value(&nan, 0).unwrap_err().contains("non-finite"));
        let bytes = arrow_array::BinaryArray::from(vec![&b"x"[..]]);
        assert!(arrow_value(&bytes, 0).is_err());
        assert!(!json_form(bytes.data_type()));
        assert!(json_form(s.data_type()) && json_form(large.data_type()));
    }

    #[test]
    fn a_row_is_a_grasp_line_with_dim_and_grasp_implied() {
        let id: ArrayRef = Arc::new(Int64Array::from(vec![Some(9), None]));
        let half: ArrayRef = Arc::new(Float64Array::from(vec![Some(0.5), Some(f64::INFINITY)]));
        let record = RecordBatch::try_from_iter([("id", id), ("half_size", half)]).unwrap();
        let rows = GraspRows { record, first: 41 };
        assert_eq!(
            rows.row(0).unwrap(),
            json!({"id": 9, "half_size": 0.5, "dim": 3, "grasp": true})
        );
        let (id, error) = rows.row(1).unwrap_err();
        assert_eq!((id, rows.number(1)), (None, 42));
        assert!(
            error.contains("`half_size`") && error.contains("non-finite"),
            "{error}"
        );
    }
}
