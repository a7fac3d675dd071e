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

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

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
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelectionPolicy,
};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowRowGroupWriterFactory};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::metadata::PageIndexPolicy;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::ChunkReader;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;
use serde_json::value::RawValue;

use super::json::{candidate_name, f32_as_written, DEFAULT_NEED};
use super::{CaseBatch, Ids, JsonIds};
use crate::planar::types::{polish, Case, MAX_GENERATORS};
use crate::{Answer, Answers, CaseKind};

// ------------------------------------------------------------------ reading

/// A Parquet file of cases, read a chunk of rows at a time: row `k·chunk_rows + 1` onwards
/// is chunk `k`. Chunks can be decoded on several threads at once ([`ParquetCases::decode`])
/// by *lanes*: lane `j` is one decoder that reads the chunks `j`, `j + lanes`, ... of the file
/// in order and skips the others, so that a file of one huge row group is decoded in
/// parallel too, each decoder holding one chunk and its pages at a time.
pub struct ParquetCases {
    build: Build,
    lanes: Vec<Mutex<Lane>>,
    /// Wakes the threads waiting for their chunk's turn on a lane.
    turn: Condvar,
    /// Each row group's first row (0-based) and, last, the total.
    starts: Vec<u64>,
    chunk_rows: usize,
    /// Whether a lane skips the rows of other lanes without reading their pages.
    skips_are_cheap: bool,
    /// Chunks handed out by [`ParquetCases::next_rows`].
    next: usize,
    ids_as_json: bool,
    id_type: Option<DataType>,
}

/// Makes a decoder over the given row groups (in file order) with the selection of rows
/// within them (`None`: every row).
type Build = Box<
    dyn Fn(Vec<usize>, Option<RowSelection>) -> Result<ParquetRecordBatchReader, String>
        + Send
        + Sync,
>;

/// One decoder and the chunk it decodes next.
struct Lane {
    reader: Option<ParquetRecordBatchReader>,
    next: usize,
    /// Its first failure: every later chunk of the lane fails with it.
    failed: Option<String>,
}

impl ParquetCases {
    /// Opens `file` (a `File`, or `bytes::Bytes` in memory), checks its columns, and reads
    /// `batch_rows` rows per chunk, on one lane. With `ids_as_json` the ids are converted to
    /// JSON text (for a JSON output), else the `id` column is passed through as it is.
    pub fn new<T: ChunkReader + 'static>(
        file: T,
        batch_rows: usize,
        ids_as_json: bool,
    ) -> Result<Self, String> {
        let file = Mutex::new(Some(file));
        let open = move || {
            let taken = file.lock().unwrap_or_else(PoisonError::into_inner).take();
            taken.ok_or_else(|| "internal error: one reader for one lane".to_string())
        };
        let first = open()?;
        Self::with_opener(first, open, batch_rows, ids_as_json, 1)
    }

    /// Opens the file at `path` as [`ParquetCases::new`] does, with `lanes` decoders (each
    /// reading the file through its own handle), for [`ParquetCases::decode`] on as many
    /// threads.
    pub fn open(
        path: &Path,
        batch_rows: usize,
        ids_as_json: bool,
        lanes: usize,
    ) -> Result<Self, String> {
        let path = path.to_path_buf();
        let open = move || File::open(&path).map_err(|e| e.to_string());
        let first = open()?;
        Self::with_opener(first, open, batch_rows, ids_as_json, lanes)
    }

    /// Opens the file at `path` with as many lanes as pay for `workers` threads that also
    /// evaluate and encode: one per worker where a lane skips the others' rows for free (the
    /// file has an offset index, or row groups no larger than a chunk, so that each lane opens
    /// its own groups); else one per three workers. There every lane reads the pages it skips
    /// (a nested column's page does not say how many rows it holds): skipping costs about
    /// 45 % of decoding, and decoding about a third of a worker's time per row, so a third of
    /// the workers keep up with the rest.
    pub fn open_for(
        path: &Path,
        batch_rows: usize,
        ids_as_json: bool,
        workers: usize,
    ) -> Result<Self, String> {
        let mut cases = Self::open(path, batch_rows, ids_as_json, 1)?;
        let lanes = if cases.skips_are_cheap {
            workers
        } else {
            workers.div_ceil(3)
        };
        cases.set_lanes(lanes);
        Ok(cases)
    }

    /// Decodes on `lanes` lanes (before any chunk is decoded).
    fn set_lanes(&mut self, lanes: usize) {
        self.lanes = (0..lanes.max(1))
            .map(|j| {
                Mutex::new(Lane {
                    reader: None,
                    next: j,
                    failed: None,
                })
            })
            .collect();
    }

    /// The lanes decoding the chunks.
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    fn with_opener<T: ChunkReader + 'static>(
        first: T,
        open: impl Fn() -> Result<T, String> + Send + Sync + 'static,
        batch_rows: usize,
        ids_as_json: bool,
        lanes: usize,
    ) -> Result<Self, String> {
        // The Parquet schema alone, not the Arrow schema some writers embed: decoding that
        // (arrow-ipc) panics on a corrupt one, and the Parquet types are all we need. An
        // offset index, where the file has one, lets a lane skip other lanes' pages unread.
        let options = ArrowReaderOptions::new()
            .with_skip_arrow_metadata(true)
            .with_offset_index_policy(PageIndexPolicy::Optional);
        let metadata =
            guarded(|| ArrowReaderMetadata::load(&first, options))?.map_err(|e| e.to_string())?;
        let schema = metadata.schema().clone();
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
        let mask = ProjectionMask::roots(metadata.parquet_schema(), roots);
        let mut starts = vec![0u64];
        for group in metadata.metadata().row_groups() {
            starts.push(starts[starts.len() - 1] + group.num_rows().max(0) as u64);
        }
        let chunk_rows = batch_rows.max(1);
        let groups = metadata.metadata().row_groups();
        let indexed = metadata.metadata().offset_index().is_some_and(|index| {
            index.len() == groups.len() && index.iter().all(|g| !g.is_empty())
        });
        let small = groups
            .iter()
            .all(|g| g.num_rows() as u64 <= chunk_rows as u64);
        let skips_are_cheap = indexed || small;
        let first = Mutex::new(Some(first));
        let build: Build = Box::new(move |groups, selection| {
            let file = match first.lock().unwrap_or_else(PoisonError::into_inner).take() {
                Some(file) => file,
                None => open()?,
            };
            let mut builder =
                ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata.clone())
                    .with_projection(mask.clone())
                    .with_row_groups(groups)
                    .with_batch_size(chunk_rows);
            if let Some(selection) = selection {
                builder = builder
                    .with_row_selection(selection)
                    .with_row_selection_policy(RowSelectionPolicy::Selectors);
            }
            guarded(|| builder.build())?.map_err(|e| e.to_string())
        });
        let mut cases = ParquetCases {
            build,
            lanes: Vec::new(),
            turn: Condvar::new(),
            starts,
            chunk_rows,
            skips_are_cheap,
            next: 0,
            ids_as_json,
            id_type,
        };
        cases.set_lanes(lanes);
        Ok(cases)
    }

    /// The type of the output's id column: the input's own, or none without one.
    pub fn id_type(&self) -> Option<DataType> {
        self.id_type.clone()
    }

    /// Rows in the file.
    pub fn total_rows(&self) -> u64 {
        self.starts[self.starts.len() - 1]
    }

    /// Chunks in the file: [`ParquetCases::decode`] takes `0..chunks()`.
    pub fn chunks(&self) -> usize {
        self.total_rows().div_ceil(self.chunk_rows as u64) as usize
    }

    /// Rows in the chunks handed out by [`ParquetCases::next_rows`] so far.
    pub fn rows_read(&self) -> u64 {
        (self.next as u64 * self.chunk_rows as u64).min(self.total_rows())
    }

    /// Chunk `k`'s rows as decoded, not yet cases. Any thread may call it; each lane's chunks
    /// must all be asked for, in order (the pipeline asks for every chunk): a call waits for
    /// the earlier chunks of its lane.
    pub fn decode(&self, k: usize) -> Result<RowBatch, String> {
        let count = self.chunks();
        if k >= count {
            return Err(format!("internal error: chunk {k} of {count}"));
        }
        let lanes = self.lanes.len();
        let mut lane = self.lanes[k % lanes]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while lane.next < k {
            lane = self.turn.wait(lane).unwrap_or_else(PoisonError::into_inner);
        }
        if lane.next != k {
            return Err(format!("internal error: chunk {k} asked for twice"));
        }
        let result = match lane.failed.clone() {
            Some(e) => Err(e),
            None => self.decode_on(&mut lane, k),
        };
        if let Err(e) = &result {
            lane.failed.get_or_insert_with(|| e.clone());
        }
        lane.next += lanes;
        drop(lane);
        self.turn.notify_all();
        result
    }

    /// Chunk `k`, the lane's next, from the lane's decoder (made at its first chunk).
    fn decode_on(&self, lane: &mut Lane, k: usize) -> Result<RowBatch, String> {
        if lane.reader.is_none() {
            let (groups, selection) = self.lane_plan(k, self.lanes.len());
            lane.reader = Some((self.build)(groups, selection)?);
        }
        let reader = lane.reader.as_mut().ok_or("internal error: no decoder")?;
        let first = (k * self.chunk_rows) as u64;
        let rows = (self.total_rows() - first).min(self.chunk_rows as u64) as usize;
        let record = match guarded(|| reader.next()) {
            Ok(Some(Ok(b))) => b,
            Ok(Some(Err(e))) => return Err(e.to_string()),
            Ok(None) => {
                return Err(format!(
                    "rows {} on: fewer rows than the footer says",
                    first + 1
                ))
            }
            Err(e) => return Err(e),
        };
        // The decoder gives each selected run as one batch of `chunk_rows`; anything else
        // would put rows under another row's number.
        if record.num_rows() != rows {
            return Err(format!(
                "rows {}..: decoded {} rows where the chunk has {rows}",
                first + 1,
                record.num_rows()
            ));
        }
        Ok(RowBatch {
            record,
            first: first + 1,
            ids_as_json: self.ids_as_json,
        })
    }

    /// The row groups lane `j = first % lanes` touches and the rows it selects within them
    /// (`None`: all of them): chunks `first`, `first + lanes`, ...
    fn lane_plan(&self, first: usize, lanes: usize) -> (Vec<usize>, Option<RowSelection>) {
        let groups = self.starts.len() - 1;
        if lanes == 1 {
            return ((0..groups).collect(), None);
        }
        let (c, total) = (self.chunk_rows as u64, self.total_rows());
        let chunks = (first..self.chunks()).step_by(lanes);
        let ranges: Vec<(u64, u64)> = chunks
            .map(|k| (k as u64 * c, ((k as u64 + 1) * c).min(total)))
            .collect();
        // Row groups holding a selected row, and the selection within them, in the rows of
        // those groups alone (the others are never opened).
        let mut kept = Vec::new();
        let mut selected = Vec::new();
        let (mut offset, mut r) = (0u64, 0usize);
        for g in 0..groups {
            let (start, end) = (self.starts[g], self.starts[g + 1]);
            while r < ranges.len() && ranges[r].1 <= start {
                r += 1;
            }
            let mut any = false;
            let mut s = r;
            while s < ranges.len() && ranges[s].0 < end {
                let (a, b) = (ranges[s].0.max(start), ranges[s].1.min(end));
                selected.push((offset + a - start) as usize..(offset + b - start) as usize);
                any = true;
                s += 1;
            }
            if any {
                kept.push(g);
                offset += end - start;
            }
        }
        let selection =
            RowSelection::from_consecutive_ranges(selected.into_iter(), offset as usize);
        (kept, Some(selection))
    }

    /// The next chunk's rows as decoded, not yet cases; `None` at the end. On one lane, or
    /// on as many lanes as the file was opened with, from this thread.
    pub fn next_rows(&mut self) -> Option<Result<RowBatch, String>> {
        if self.next >= self.chunks() {
            return None;
        }
        self.next += 1;
        Some(self.decode(self.next - 1))
    }

    /// The next chunk, as cases; `None` at the end.
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
    let mut numbers = Vec::new();
    out.numbers.reserve(n);
    out.rows.reserve(n);
    out.batch.planar.reserve(n);
    for i in 0..n {
        let number = first + i as u64;
        // Each row classified once, by its shape, then read by its engine's reader.
        match row_shape(&gens, &inner, need.as_ref(), i) {
            Some((range, dim)) if CaseKind::of(dim, range.1 - range.0) == CaseKind::General => {
                match general_row(
                    range,
                    dim,
                    &inner,
                    &floats,
                    need.as_ref(),
                    i,
                    &mut numbers,
                    out,
                ) {
                    Ok(index) => out.push_general(number, index),
                    Err(e) => out.push(number, Err(e)),
                }
            }
            shape => {
                let plain = shape
                    .and_then(|(range, _)| plain_row(range, &inner, &floats, need.as_ref(), i));
                match plain {
                    Some(case) => out.push(number, Ok(case)),
                    None => out.push(number, row_case(&gens, &inner, &floats, need.as_ref(), i)),
                }
            }
        }
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

    /// Number `j`, or `None` when it is null.
    #[inline]
    fn get(&self, j: usize) -> Option<f64> {
        use Floats::{F32, F64};
        let (F32(_, nulls) | F64(_, nulls)) = self;
        if nulls.is_some_and(|n| n.is_null(j)) {
            return None;
        }
        Some(match self {
            F32(v, _) => v[j] as f64,
            F64(v, _) => v[j],
        })
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

impl Floats<'_> {
    /// The three numbers from `a` in float32, or `None` when one is null or not finite there
    /// (as [`triple`] takes them).
    #[inline]
    fn three_f32(&self, a: usize) -> Option<[f32; 3]> {
        let narrow = self.three(a)?.map(|x| x as f32);
        narrow.iter().all(|x| x.is_finite()).then_some(narrow)
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

/// Row `i`'s generators' range in `inner` and its dimension (the first generator's
/// numbers; without generators, the need's), or `None` when either is null: the planar
/// reader then says what is wrong.
#[inline]
fn row_shape(
    gens: &Nested,
    inner: &Nested,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> Option<((usize, usize), usize)> {
    let (a, b) = gens.range(i)?;
    let dim = if b > a {
        inner.range(a).map(|(x, y)| y - x)
    } else {
        need.and_then(|(n, _)| n.range(i)).map(|(x, y)| y - x)
    }?;
    Some(((a, b), dim))
}

/// Row `i`, a general case by its shape (docs/contract-general.md: generators of 6 numbers,
/// or more than 16), its generators at `(a, b)` in `inner`, into `out.batch.general`: its index
/// there, or why it is refused. `numbers` is scratch.
#[allow(clippy::too_many_arguments)]
fn general_row(
    (a, b): (usize, usize),
    dim: usize,
    inner: &Nested,
    floats: &Floats,
    need: Option<&(Nested, Floats)>,
    i: usize,
    numbers: &mut Vec<f64>,
    out: &mut CaseBatch,
) -> Result<u32, String> {
    if dim != 3 && dim != 6 {
        return Err(format!("generator 0 has {dim} numbers: 3 or 6 are taken"));
    }
    numbers.clear();
    for k in 0..b - a {
        let (x, y) = inner
            .range(a + k)
            .ok_or_else(|| format!("generator {k} is null"))?;
        if y - x != dim {
            return Err(format!(
                "generator {k} has {} numbers, generator 0 has {dim}",
                y - x
            ));
        }
        for j in x..y {
            numbers.push(
                floats
                    .get(j)
                    .ok_or_else(|| format!("generator {k} has a null number"))?,
            );
        }
    }
    let mut need_numbers = [0.0; crate::general::MAX_DIM];
    let need_slice = match need.and_then(|(n, f)| n.range(i).map(|r| (r, f))) {
        Some(((x, y), f)) => {
            if y - x != dim {
                return Err(format!(
                    "the need has {} numbers, the generators {dim}",
                    y - x
                ));
            }
            for (slot, j) in need_numbers.iter_mut().zip(x..y) {
                *slot = f.get(j).ok_or("the need has a null number")?;
            }
            &need_numbers[..dim]
        }
        None => crate::general::default_need(dim),
    };
    out.batch
        .general
        .push(dim, numbers, need_slice)
        .map_err(|e| e.to_string())
}

/// Row `i`, its generators at `(a, b)` in `inner`, as a planar case when it is one in the
/// plainest form (1 to 16 generators of three numbers each, finite in float32, no null; the
/// need absent, null, or three such numbers): the case [`row_case`] gives, without the
/// errors' bookkeeping; `None` for any other row, which [`row_case`] answers.
#[inline]
fn plain_row(
    (a, b): (usize, usize),
    inner: &Nested,
    floats: &Floats,
    need: Option<&(Nested, Floats)>,
    i: usize,
) -> Option<Case> {
    let count = b - a;
    if count == 0 || count > MAX_GENERATORS || inner.nulls.is_some() {
        return None;
    }
    let mut g = [[0f32; 3]; MAX_GENERATORS];
    for (k, slot) in g[..count].iter_mut().enumerate() {
        let (x, y) = inner.range(a + k)?;
        if y - x != 3 {
            return None;
        }
        *slot = floats.three_f32(x)?;
    }
    let need = match need.and_then(|(n, f)| n.range(i).map(|r| (r, f))) {
        Some(((x, y), f)) if y - x == 3 => f.three_f32(x)?,
        Some(_) => return None,
        None => DEFAULT_NEED,
    };
    Case::new(&g[..count], need).ok()
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
    let props = props.build();
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
