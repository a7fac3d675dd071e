//! Writing: the answers' schema and columns, row groups encoded (and compressed) on any
//! thread, appended to the file in order.

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, ListBuilder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowRowGroupWriterFactory};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use crate::io::json::{candidate_name, f32_as_written};
use crate::io::{CaseBatch, Ids};
use crate::planar::types::polish;
use crate::{Answer, Answers};

/// The output schema; the id column has the input's type (a Parquet input's `id`), is
/// text (JSON Lines input: a string id as it is, others as JSON text), or is absent.
pub(crate) fn answer_schema(id: Option<DataType>) -> SchemaRef {
    let list = |t: DataType| DataType::List(Arc::new(Field::new_list_field(t, true)));
    let witness = Fields::from(vec![
        Field::new("generators", list(DataType::UInt32), true),
        Field::new("weights", list(DataType::Float64), true),
    ]);
    let facet = Fields::from(vec![
        Field::new("normal", list(DataType::Float64), true),
        Field::new("generators", list(DataType::UInt32), true),
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
        Field::new("facet", DataType::Struct(facet), true),
        Field::new("margin_checked", DataType::Boolean, true),
        Field::new("margin_lower", DataType::Float64, true),
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
    pub(super) schema: SchemaRef,
    factory: ArrowRowGroupWriterFactory,
}

/// One batch's answers, encoded and compressed, ready to append.
pub struct RowGroup(Vec<ArrowColumnChunk>);

/// A Parquet file of answers to `out` whose ids have type `id` (see `answer_schema`), and
/// its encoder.
pub fn answers_file<W: Write + Send>(
    out: W,
    id: Option<DataType>,
) -> Result<(ParquetAnswers<W>, ParquetEncoder), String> {
    let schema = answer_schema(id);
    // No dictionaries: the float columns rarely repeat, and building them cost more than
    // snappy needs to squeeze the repeated strings (verdicts, candidates). No statistics:
    // every row group holds every verdict and a spread of margins, so min/max prune nothing,
    // and computing them cost about 4 % of `eval`'s instructions (Parquet to Parquet). The
    // witness weights and the certificates are stored uncompressed: snappy saved 1–7 % of
    // their bytes and cost more time than that.
    let mut props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::None);
    for column in [&["witness", "weights"][..], &["certificate"]] {
        let mut path: Vec<String> = column.iter().map(|s| s.to_string()).collect();
        path.extend(["list".to_string(), "item".to_string()]);
        props = props.set_column_compression(ColumnPath::new(path), Compression::UNCOMPRESSED);
    }
    file_of(out, schema, props.build())
}

/// A Parquet file of `schema` written with `props` to `out`, and its encoder (the cases'
/// answers here, the grasps' in [`super::grasps`]).
pub(super) fn file_of<W: Write + Send>(
    out: W,
    schema: SchemaRef,
    props: WriterProperties,
) -> Result<(ParquetAnswers<W>, ParquetEncoder), String> {
    let (writer, factory) = ArrowWriter::try_new(out, schema.clone(), Some(props))
        .and_then(ArrowWriter::into_serialized_writer)
        .map_err(|e| e.to_string())?;
    Ok((
        ParquetAnswers { writer },
        ParquetEncoder { schema, factory },
    ))
}

impl ParquetEncoder {
    /// The answers of `batch` (`answers` answer `batch.batch`) as row group number `index`
    /// of the file.
    pub fn encode(
        &self,
        index: usize,
        batch: &CaseBatch,
        answers: &Answers,
    ) -> Result<RowGroup, String> {
        self.encode_record(index, &answers_batch(&self.schema, batch, answers)?)
    }

    /// The answers of `batch` in Arrow columns, not yet encoded (what [`ParquetEncoder::encode`]
    /// encodes).
    pub fn answers_batch(
        &self,
        batch: &CaseBatch,
        answers: &Answers,
    ) -> Result<RecordBatch, String> {
        answers_batch(&self.schema, batch, answers)
    }

    /// Answers already in columns ([`ParquetEncoder::answers_batch`]) as row group number
    /// `index`: the Parquet encoding (and compression) alone.
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

    /// Writes the footer and returns the output.
    pub fn finish(self) -> Result<W, String> {
        self.writer.into_inner().map_err(|e| e.to_string())
    }
}

/// The answers of one batch as a record batch of `schema`.
fn answers_batch(
    schema: &SchemaRef,
    batch: &CaseBatch,
    answers: &Answers,
) -> Result<RecordBatch, String> {
    let n = batch.rows.len();
    let mut verdict = StringBuilder::with_capacity(n, n * 11);
    let mut margin = Float64Builder::with_capacity(n);
    let mut capped = BooleanBuilder::with_capacity(n);
    let mut w_gens = ListBuilder::with_capacity(UInt32Builder::with_capacity(n * 3), n);
    let mut w_weights = ListBuilder::with_capacity(Float64Builder::with_capacity(n * 3), n);
    let mut w_valid = Vec::with_capacity(n);
    let mut certificate = ListBuilder::with_capacity(Float64Builder::with_capacity(n * 3), n);
    let mut binding = UInt32Builder::with_capacity(n);
    let mut candidate = StringBuilder::with_capacity(n, n * 12);
    // The general test's facet (null on planar rows, which have `binding`).
    let mut f_normal = ListBuilder::with_capacity(Float64Builder::with_capacity(0), n);
    let mut f_gens = ListBuilder::with_capacity(UInt32Builder::with_capacity(0), n);
    let mut f_valid = Vec::with_capacity(n);
    // Whether the margin is proven (general rows; null on planar rows, whose JSON answers
    // have no such key: the enumeration tries every candidate).
    let mut margin_checked = BooleanBuilder::with_capacity(n);
    // The proven bound from below (general rows, docs/contract-general.md §9).
    let mut margin_lower = Float64Builder::with_capacity(n);
    let mut line = UInt64Builder::with_capacity(n);
    let mut error = StringBuilder::with_capacity(n, 0);
    for (r, row) in batch.rows.iter().enumerate() {
        let answered = row
            .as_ref()
            .ok()
            .and_then(|&id| Some((id, answers.get(id)?)));
        let general = match answered {
            Some((id, Answer::General(o))) => Some((id.index(), o)),
            _ => None,
        };
        if let Some((i, o)) = general {
            let d = batch.batch.general.get(i).dim;
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
            match &o.facet {
                Some(f) => {
                    f_normal.values().append_slice(&f.normal[..d]);
                    f_normal.append(true);
                    for g in f.generators.iter() {
                        f_gens.values().append_value(g);
                    }
                    f_gens.append(true);
                }
                None => {
                    f_normal.append_null();
                    f_gens.append_null();
                }
            }
            f_valid.push(o.facet.is_some());
            margin_checked.append_value(o.margin_checked);
            margin_lower.append_value(o.margin_lower);
            line.append_null();
            error.append_null();
            continue;
        }
        let planar = match answered {
            Some((id, Answer::Planar(o))) => Some((&batch.batch.planar[id.index()], o)),
            _ => None,
        };
        match planar {
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
                f_normal.append_null();
                f_gens.append_null();
                f_valid.push(false);
                margin_checked.append_null();
                margin_lower.append_null();
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
                f_normal.append_null();
                f_gens.append_null();
                f_valid.push(false);
                margin_checked.append_null();
                margin_lower.append_null();
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
    let facet_fields = match schema.field_with_name("facet").map(|f| f.data_type()) {
        Ok(DataType::Struct(f)) => f.clone(),
        _ => return Err("answer schema without a facet struct".into()),
    };
    let facet = StructArray::try_new(
        facet_fields,
        vec![Arc::new(f_normal.finish()), Arc::new(f_gens.finish())],
        Some(NullBuffer::from(f_valid)),
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
        Arc::new(facet),
        Arc::new(margin_checked.finish()),
        Arc::new(margin_lower.finish()),
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
