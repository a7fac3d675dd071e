//! Cases from Parquet and answers to Parquet, through the Arrow crates, a row group at a
//! time (memory bounded by the batch size, not the file's).
//!
//! Input columns: `generators` (list of 3-number lists, float32 or float64; fixed-size lists
//! accepted), optional `need` (3 numbers; null or absent: (0, 1, 0)), optional `id` (any
//! type, passed through). Output columns mirror the JSON answers: `id`, `verdict`, `margin`,
//! `capped`, `witness` {`generators`, `weights`}, `certificate`, `binding`,
//! `binding_candidate`, and `line`, `error` (set on refused rows only). Floats are stored as
//! float64 holding the value the JSON answer's decimal reads back as, so that a reader gets
//! the same numbers from either format.

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, ListBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowRowGroupWriterFactory};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::ChunkReader;
use parquet::file::writer::SerializedFileWriter;
use serde_json::value::RawValue;

use super::json::{candidate_name, f32_as_written, DEFAULT_NEED};
use super::{CaseBatch, Ids, JsonIds, RowCase};
use crate::types::{polish, Case, Outcome, MAX_GENERATORS};

// ------------------------------------------------------------------ reading

/// A Parquet file of cases, read a batch of rows at a time.
pub struct ParquetCases {
    reader: ParquetRecordBatchReader,
    /// Rows read so far (row numbers are 1-based).
    rows: u64,
    total: u64,
    ids_as_json: bool,
    id_type: Option<DataType>,
}

impl ParquetCases {
    /// Opens `file` (a `File`, or `bytes::Bytes` in memory), checks its columns, and reads
    /// `batch_rows` rows per batch. With `ids_as_json` the ids are converted to JSON text
    /// (for a JSON output), else the `id` column is passed through as it is.
    pub fn new<T: ChunkReader + 'static>(
        file: T,
        batch_rows: usize,
        ids_as_json: bool,
    ) -> Result<Self, String> {
        // The Parquet schema alone, not the Arrow schema some writers embed: decoding that
        // (arrow-ipc) panics on a corrupt one, and the Parquet types are all we need.
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let builder =
            guarded(|| ParquetRecordBatchReaderBuilder::try_new_with_options(file, options))?
                .map_err(|e| e.to_string())?;
        let schema = builder.schema().clone();
        let index = |name: &str| schema.index_of(name).ok();
        let generators = index("generators")
            .ok_or_else(|| format!("no `generators` column (columns: {})", names(&schema)))?;
        let mut roots = vec![generators];
        roots.extend(index("need"));
        let id_type = index("id").map(|i| schema.field(i).data_type().clone());
        if let Some(i) = index("id") {
            let t = schema.field(i).data_type();
            if ids_as_json && !id_json_supported(t) {
                return Err(format!(
                    "the id column's type {t} has no JSON form here: write Parquet \
                     (-o FILE.parquet) to pass it through"
                ));
            }
            roots.push(i);
        }
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        let total = builder.metadata().file_metadata().num_rows().max(0) as u64;
        let reader = guarded(|| {
            builder
                .with_projection(mask)
                .with_batch_size(batch_rows.max(1))
                .build()
        })?
        .map_err(|e| e.to_string())?;
        Ok(ParquetCases {
            reader,
            rows: 0,
            total,
            ids_as_json,
            id_type,
        })
    }

    /// The type of the output's id column: the input's own, or none without one.
    pub fn id_type(&self) -> Option<DataType> {
        self.id_type.clone()
    }

    /// Rows in the file.
    pub fn total_rows(&self) -> u64 {
        self.total
    }

    /// Rows read so far.
    pub fn rows_read(&self) -> u64 {
        self.rows
    }

    /// The next batch of rows as decoded, not yet cases; `None` at the end.
    pub fn next_rows(&mut self) -> Option<Result<RowBatch, String>> {
        let record = match guarded(|| self.reader.next()) {
            Ok(None) => return None,
            Ok(Some(Ok(b))) => b,
            Ok(Some(Err(e))) => return Some(Err(e.to_string())),
            Err(e) => return Some(Err(e)),
        };
        let first = self.rows + 1;
        self.rows += record.num_rows() as u64;
        Some(Ok(RowBatch {
            record,
            first,
            ids_as_json: self.ids_as_json,
        }))
    }

    /// The next batch, as cases; `None` at the end.
    pub fn next_batch(&mut self) -> Option<Result<CaseBatch, String>> {
        Some(self.next_rows()?.and_then(|rows| {
            let mut batch = CaseBatch::default();
            rows.cases_into(&mut batch).map(|()| batch)
        }))
    }
}

/// Rows of a Parquet input as the decoder gives them: turned into cases apart
/// ([`RowBatch::cases_into`]), so that this can happen on another thread than the decoding.
pub struct RowBatch {
    record: RecordBatch,
    first: u64,
    ids_as_json: bool,
}

impl RowBatch {
    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.record.num_rows()
    }

    /// Whether the batch has no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The batch's cases into `out` (cleared first).
    pub fn cases_into(&self, out: &mut CaseBatch) -> Result<(), String> {
        cases_of(&self.record, self.first, self.ids_as_json, out)
    }
}

/// Runs a step of the Parquet reader, turning a panic of the decoder on a malformed file
/// into an error: a corrupt input is the user's problem to hear about, never a crash.
/// The panic's own message is kept off stderr (the error says it all).
fn guarded<T>(step: impl FnOnce() -> T) -> Result<T, String> {
    thread_local! {
        static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(|g| g.get()) {
                previous(info);
            }
        }));
    });
    GUARDED.with(|g| g.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(step));
    GUARDED.with(|g| g.set(false));
    result.map_err(|_| "malformed Parquet file (the decoder gave up)".to_string())
}

fn names(schema: &Schema) -> String {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    names.join(", ")
}

/// The cases of one record batch (columns as [`ParquetCases`] describes), first row
/// numbered `first`, into `out` (cleared first).
fn cases_of(
    batch: &RecordBatch,
    first: u64,
    ids_as_json: bool,
    out: &mut CaseBatch,
) -> Result<(), String> {
    out.clear();
    let n = batch.num_rows();
    let column = |name: &str| batch.column_by_name(name);
    let generators = column("generators").ok_or("no `generators` column")?;
    let gens = Nested::of(generators, "generators")?;
    let inner = Nested::of(gens.values, "generators' items")?;
    let floats = Floats::of(inner.values, "generators' numbers")?;
    let need = match column("need") {
        Some(a) => {
            let nested = Nested::of(a, "need")?;
            let floats = Floats::of(nested.values, "need's numbers")?;
            Some((nested, floats))
        }
        None => None,
    };
    for i in 0..n {
        let row = row_case(&gens, &inner, &floats, need.as_ref(), i);
        out.push(first + i as u64, row);
    }
    out.ids = match column("id") {
        None => Ids::None,
        Some(a) if ids_as_json => {
            let mut ids = match std::mem::take(&mut out.ids) {
                Ids::Json(ids) => ids,
                _ => JsonIds::default(),
            };
            ids.clear();
            for i in 0..n {
                ids.push(id_json(a, i).as_deref().map(RawValue::get));
            }
            Ids::Json(ids)
        }
        Some(a) => Ids::Arrow(a.clone()),
    };
    Ok(())
}

/// A list column of any offset width, or a fixed-size one, read without a dynamic call
/// per row.
struct Nested<'a> {
    nulls: Option<&'a NullBuffer>,
    offsets: Offsets<'a>,
    values: &'a ArrayRef,
}

enum Offsets<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
    /// (the array's offset, the list size).
    Fixed(usize, usize),
}

impl<'a> Nested<'a> {
    fn of(a: &'a ArrayRef, what: &str) -> Result<Nested<'a>, String> {
        let (offsets, values) = if let Some(l) = a.as_list_opt::<i32>() {
            (Offsets::I32(l.value_offsets()), l.values())
        } else if let Some(l) = a.as_list_opt::<i64>() {
            (Offsets::I64(l.value_offsets()), l.values())
        } else if let Some(l) = a.as_fixed_size_list_opt() {
            let size = l.value_length().max(0) as usize;
            (Offsets::Fixed(l.offset(), size), l.values())
        } else {
            return Err(format!("{what} must be a list, got {}", a.data_type()));
        };
        Ok(Nested {
            nulls: a.nulls().filter(|n| n.null_count() > 0),
            offsets,
            values,
        })
    }

    /// The range of row `i` in `values`, or `None` when the row is null.
    #[inline]
    fn range(&self, i: usize) -> Option<(usize, usize)> {
        if self.nulls.is_some_and(|n| n.is_null(i)) {
            return None;
        }
        Some(match self.offsets {
            Offsets::I32(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::I64(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::Fixed(first, n) => ((first + i) * n, (first + i + 1) * n),
        })
    }
}

/// A column of float32 or float64 numbers: its values and its nulls, if any.
enum Floats<'a> {
    F32(&'a [f32], Option<&'a NullBuffer>),
    F64(&'a [f64], Option<&'a NullBuffer>),
}

impl<'a> Floats<'a> {
    fn of(a: &'a ArrayRef, what: &str) -> Result<Floats<'a>, String> {
        let nulls = a.nulls().filter(|n| n.null_count() > 0);
        if let Some(f) = a.as_primitive_opt::<Float32Type>() {
            Ok(Floats::F32(f.values(), nulls))
        } else if let Some(f) = a.as_primitive_opt::<Float64Type>() {
            Ok(Floats::F64(f.values(), nulls))
        } else {
            Err(format!(
                "{what} must be float32 or float64, got {}",
                a.data_type()
            ))
        }
    }

    /// The three numbers from `a`, or `None` when one is null.
    #[inline]
    fn three(&self, a: usize) -> Option<[f64; 3]> {
        use Floats::{F32, F64};
        let (F32(_, nulls) | F64(_, nulls)) = self;
        if nulls.is_some_and(|n| (a..a + 3).any(|i| n.is_null(i))) {
            return None;
        }
        Some(match self {
            F32(v, _) => [v[a] as f64, v[a + 1] as f64, v[a + 2] as f64],
            F64(v, _) => [v[a], v[a + 1], v[a + 2]],
        })
    }
}

/// Three numbers at `range`, finite in float32; errors name `what`.
#[inline]
fn triple(
    floats: &Floats,
    (a, b): (usize, usize),
    what: &dyn std::fmt::Display,
) -> Result<[f32; 3], String> {
    if b - a != 3 {
        return Err(format!("{what} must be three numbers, got {}", b - a));
    }
    let wide = floats
        .three(a)
        .ok_or_else(|| format!("{what} has a null number"))?;
    let narrow = wide.map(|x| x as f32);
    if narrow.iter().all(|x| x.is_finite()) {
        Ok(narrow)
    } else {
        Err(format!("{what} = {wide:?} is not finite in float32"))
    }
}

fn row_case(
    gens: &Nested,
    inner: &Nested,
    floats: &Floats,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> Result<Case, String> {
    let (a, b) = gens.range(i).ok_or("generators is null")?;
    if b - a > MAX_GENERATORS {
        return Err(format!(
            "{} generators, more than {MAX_GENERATORS} (at most 4 body pairs × 2 endpoints × 2 rays)",
            b - a
        ));
    }
    let mut g = [[0f32; 3]; MAX_GENERATORS];
    for (k, slot) in g[..b - a].iter_mut().enumerate() {
        let what = GeneratorName(k);
        let range = inner
            .range(a + k)
            .ok_or_else(|| format!("generator {k} is null"))?;
        *slot = triple(floats, range, &what)?;
    }
    let need = match need.and_then(|(n, f)| n.range(i).map(|r| (r, f))) {
        Some((range, f)) => triple(f, range, &"need")?,
        None => DEFAULT_NEED,
    };
    Case::new(&g[..b - a], need).map_err(|e| e.to_string())
}

/// "generator k", formatted only when an error needs it.
struct GeneratorName(usize);

impl std::fmt::Display for GeneratorName {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "generator {}", self.0)
    }
}

fn id_json_supported(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Null | Boolean
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Float32
            | Float64
            | Utf8
            | LargeUtf8
            | Utf8View
    )
}

/// Row `i` of an id column as JSON text (`None` when null or of a type without a JSON form).
fn id_json(a: &ArrayRef, i: usize) -> Option<Box<RawValue>> {
    if a.is_null(i) {
        return None;
    }
    macro_rules! int {
        ($($t:ty),*) => {$(
            if let Some(p) = a.as_primitive_opt::<$t>() {
                return RawValue::from_string(p.value(i).to_string()).ok();
            }
        )*};
    }
    int!(Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type);
    let value = if let Some(p) = a.as_primitive_opt::<Float32Type>() {
        serde_json::json!(p.value(i))
    } else if let Some(p) = a.as_primitive_opt::<Float64Type>() {
        serde_json::json!(p.value(i))
    } else if let Some(s) = a.as_string_opt::<i32>() {
        serde_json::json!(s.value(i))
    } else if let Some(s) = a.as_string_opt::<i64>() {
        serde_json::json!(s.value(i))
    } else if let Some(s) = a.as_string_view_opt() {
        serde_json::json!(s.value(i))
    } else if let Some(b) = a.as_boolean_opt() {
        serde_json::json!(b.value(i))
    } else {
        return None;
    };
    serde_json::value::to_raw_value(&value).ok()
}

// ------------------------------------------------------------------ writing

/// The output schema; the id column has the input's type (a Parquet input's `id`), is
/// text (JSON Lines input: a string id as it is, others as JSON text), or is absent.
pub fn answer_schema(id: Option<DataType>) -> SchemaRef {
    let list = |t: DataType| DataType::List(Arc::new(Field::new_list_field(t, true)));
    let witness = Fields::from(vec![
        Field::new("generators", list(DataType::UInt32), true),
        Field::new("weights", list(DataType::Float64), true),
    ]);
    let mut fields = Vec::new();
    if let Some(t) = id {
        fields.push(Field::new("id", t, true));
    }
    fields.extend([
        Field::new("verdict", DataType::Utf8, true),
        Field::new("margin", DataType::Float64, true),
        Field::new("capped", DataType::Boolean, true),
        Field::new("witness", DataType::Struct(witness), true),
        Field::new("certificate", list(DataType::Float64), true),
        Field::new("binding", DataType::UInt32, true),
        Field::new("binding_candidate", DataType::Utf8, true),
        Field::new("line", DataType::UInt64, true),
        Field::new("error", DataType::Utf8, true),
    ]);
    Arc::new(Schema::new(fields))
}

/// A Parquet file of answers: row groups encoded on any thread by its [`ParquetEncoder`],
/// appended here in order, then the footer.
pub struct ParquetAnswers<W: Write + Send> {
    writer: SerializedFileWriter<W>,
}

/// Encodes batches of answers into row groups, on whatever thread calls it: the costly
/// half of writing Parquet, done beside the engine while the file takes them in order.
pub struct ParquetEncoder {
    schema: SchemaRef,
    factory: ArrowRowGroupWriterFactory,
}

/// One batch's answers, encoded and compressed, ready to append.
pub struct RowGroup(Vec<ArrowColumnChunk>);

/// A Parquet file of answers to `out` whose ids have type `id` (see [`answer_schema`]), and
/// its encoder.
pub fn answers_file<W: Write + Send>(
    out: W,
    id: Option<DataType>,
) -> Result<(ParquetAnswers<W>, ParquetEncoder), String> {
    let schema = answer_schema(id);
    // No dictionaries: the float columns rarely repeat, and building them cost more than
    // snappy needs to squeeze the repeated strings (verdicts, candidates).
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .build();
    let (writer, factory) = ArrowWriter::try_new(out, schema.clone(), Some(props))
        .and_then(ArrowWriter::into_serialized_writer)
        .map_err(|e| e.to_string())?;
    Ok((
        ParquetAnswers { writer },
        ParquetEncoder { schema, factory },
    ))
}

impl ParquetEncoder {
    /// The answers of `batch` (`outcomes[i]` answers `batch.cases[i]`) as row group number
    /// `index` of the file.
    pub fn encode(
        &self,
        index: usize,
        batch: &CaseBatch,
        outcomes: &[Outcome],
    ) -> Result<RowGroup, String> {
        self.encode_record(index, &answers_batch(&self.schema, batch, outcomes)?)
    }

    /// The answers' schema (see [`answer_schema`]).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Answers already in columns ([`answers_batch`]) as row group number `index`: the
    /// Parquet encoding (and compression) alone.
    pub fn encode_record(&self, index: usize, record: &RecordBatch) -> Result<RowGroup, String> {
        let fail = |e: parquet::errors::ParquetError| e.to_string();
        let mut writers = self.factory.create_column_writers(index).map_err(fail)?;
        let mut next = writers.iter_mut();
        for (array, field) in record.columns().iter().zip(self.schema.fields()) {
            for leaf in compute_leaves(field, array).map_err(fail)? {
                next.next()
                    .ok_or("more leaf columns than writers")?
                    .write(&leaf)
                    .map_err(fail)?;
            }
        }
        let chunks = writers.into_iter().map(|w| w.close().map_err(fail));
        Ok(RowGroup(chunks.collect::<Result<_, _>>()?))
    }
}

impl<W: Write + Send> ParquetAnswers<W> {
    /// Appends a row group (the file's next: encoded with that index) and writes it out.
    pub fn append(&mut self, group: RowGroup) -> Result<(), String> {
        let fail = |e: parquet::errors::ParquetError| e.to_string();
        let mut row_group = self.writer.next_row_group().map_err(fail)?;
        for chunk in group.0 {
            chunk.append_to_row_group(&mut row_group).map_err(fail)?;
        }
        row_group.close().map_err(fail)?;
        self.writer.flush().map_err(|e| e.to_string())
    }

    /// Row groups appended so far: the index of the next one.
    pub fn row_groups(&self) -> usize {
        self.writer.flushed_row_groups().len()
    }

    /// Writes the footer and returns the output.
    pub fn finish(self) -> Result<W, String> {
        self.writer.into_inner().map_err(|e| e.to_string())
    }
}

/// The answers of one batch as a record batch of `schema`.
pub fn answers_batch(
    schema: &SchemaRef,
    batch: &CaseBatch,
    outcomes: &[Outcome],
) -> Result<RecordBatch, String> {
    let n = batch.rows.len();
    let mut verdict = StringBuilder::with_capacity(n, n * 11);
    let mut margin = Float64Builder::with_capacity(n);
    let mut capped = BooleanBuilder::with_capacity(n);
    let mut w_gens = ListBuilder::new(UInt32Builder::with_capacity(n * 3));
    let mut w_weights = ListBuilder::new(Float64Builder::with_capacity(n * 3));
    let mut w_valid = Vec::with_capacity(n);
    let mut certificate = ListBuilder::new(Float64Builder::with_capacity(n * 3));
    let mut binding = UInt32Builder::with_capacity(n);
    let mut candidate = StringBuilder::with_capacity(n, n * 12);
    let mut line = UInt64Builder::with_capacity(n);
    let mut error = StringBuilder::new();
    for (r, row) in batch.rows.iter().enumerate() {
        let answered = row.as_ref().ok().map(|&i| RowCase::of(i));
        let general = match answered {
            Some(RowCase::General(i)) => batch.general_outcomes.get(i).map(|o| (i, o)),
            _ => None,
        };
        if let Some((i, o)) = general {
            let d = batch.general.get(i).dim;
            verdict.append_value(o.verdict.as_str());
            margin.append_value(o.margin);
            capped.append_value(o.capped);
            match o.witness() {
                Some((slots, weights)) => {
                    w_gens.values().append_slice(slots);
                    w_gens.append(true);
                    w_weights.values().append_slice(weights);
                    w_weights.append(true);
                }
                None => {
                    w_gens.append_null();
                    w_weights.append_null();
                }
            }
            w_valid.push(o.witness().is_some());
            match &o.certificate {
                Some(c) => {
                    certificate.values().append_slice(&c[..d]);
                    certificate.append(true);
                }
                None => certificate.append_null(),
            }
            binding.append_null();
            candidate.append_null();
            line.append_null();
            error.append_null();
            continue;
        }
        let planar = match answered {
            Some(RowCase::Planar(i)) => Some(i),
            _ => None,
        };
        match planar.and_then(|i| Some((&batch.cases[i], outcomes.get(i)?))) {
            Some((case, o)) => {
                verdict.append_value(o.verdict().as_str());
                margin.append_value(f32_as_written(o.margin));
                capped.append_value(o.is_capped());
                match o.witness_parts() {
                    Some((slots, weights)) => {
                        w_gens.values().append_slice(slots);
                        w_gens.append(true);
                        let weights = polish(case, slots, &weights[..slots.len()]);
                        w_weights.values().append_slice(&weights[..slots.len()]);
                        w_weights.append(true);
                    }
                    None => {
                        w_gens.append_null();
                        w_weights.append_null();
                    }
                }
                w_valid.push(o.witness_parts().is_some());
                match o.certificate() {
                    Some(c) => {
                        certificate.values().append_slice(&c.map(f32_as_written));
                        certificate.append(true);
                    }
                    None => certificate.append_null(),
                }
                binding.append_option(o.binding());
                candidate.append_option(o.binding().and_then(candidate_name));
                line.append_null();
                error.append_null();
            }
            None => {
                let e = match row {
                    Err(e) => e.as_str(),
                    Ok(_) => "no answer",
                };
                verdict.append_null();
                margin.append_null();
                capped.append_null();
                w_gens.append_null();
                w_weights.append_null();
                w_valid.push(false);
                certificate.append_null();
                binding.append_null();
                candidate.append_null();
                line.append_value(batch.numbers[r]);
                error.append_value(e);
            }
        }
    }
    let witness_fields = match schema.field_with_name("witness").map(|f| f.data_type()) {
        Ok(DataType::Struct(f)) => f.clone(),
        _ => return Err("answer schema without a witness struct".into()),
    };
    let witness = StructArray::try_new(
        witness_fields,
        vec![Arc::new(w_gens.finish()), Arc::new(w_weights.finish())],
        Some(NullBuffer::from(w_valid)),
    )
    .map_err(|e| e.to_string())?;
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    if let Ok(field) = schema.field_with_name("id") {
        columns.push(id_column(batch, field.data_type())?);
    }
    columns.extend([
        Arc::new(verdict.finish()) as ArrayRef,
        Arc::new(margin.finish()),
        Arc::new(capped.finish()),
        Arc::new(witness),
        Arc::new(certificate.finish()),
        Arc::new(binding.finish()),
        Arc::new(candidate.finish()),
        Arc::new(line.finish()),
        Arc::new(error.finish()),
    ]);
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())
}

/// The id column of the output: the input's own, or the JSON ids as text.
fn id_column(batch: &CaseBatch, t: &DataType) -> Result<ArrayRef, String> {
    match &batch.ids {
        Ids::Arrow(a) if a.data_type() == t => Ok(a.clone()),
        Ids::Arrow(a) => Err(format!(
            "id column changed type from {t} to {}",
            a.data_type()
        )),
        Ids::Json(ids) => {
            let mut b = StringBuilder::new();
            for row in 0..ids.len() {
                match ids.get(row) {
                    None => b.append_null(),
                    Some(raw) => match serde_json::from_str::<std::borrow::Cow<str>>(raw) {
                        Ok(s) => b.append_value(s),
                        Err(_) => b.append_value(raw),
                    },
                }
            }
            Ok(Arc::new(b.finish()))
        }
        Ids::None => Ok(arrow_array::new_null_array(t, batch.rows.len())),
    }
}
