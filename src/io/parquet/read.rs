//! Reading: a Parquet file of cases opened and its chunks of rows decoded, on lanes that
//! run side by side (row groups, or a huge one's pages, in parallel).

use std::fs::File;
use std::ops::Range;
use std::path::Path;
use std::sync::{Condvar, Mutex, PoisonError};

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelectionPolicy,
};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData};
use parquet::file::reader::ChunkReader;

use super::columns::{cases_of, id_json_supported};
use crate::io::CaseBatch;

/// The fewest rows [`ParquetCases::open_for`] makes a chunk of to spread a file over its
/// workers: a chunk's hand-offs and its decoder's start cost tens of microseconds.
const MIN_SHARE_ROWS: u64 = 64;

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
        Self::with_opener(first, open, &|_| batch_rows, ids_as_json, 1)
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
        Self::open_sized(path, &|_| batch_rows, ids_as_json, lanes)
    }

    fn open_sized(
        path: &Path,
        chunk_rows: &dyn Fn(&ParquetMetaData) -> usize,
        ids_as_json: bool,
        lanes: usize,
    ) -> Result<Self, String> {
        let path = path.to_path_buf();
        let open = move || File::open(&path).map_err(|e| e.to_string());
        let first = open()?;
        Self::with_opener(first, open, chunk_rows, ids_as_json, lanes)
    }

    /// Opens the file at `path` with as many lanes as pay for `workers` threads that also
    /// evaluate and encode: one per worker where a lane skips the others' rows for free (the
    /// file has an offset index, or row groups no larger than a chunk, so that each lane opens
    /// its own groups); else one per three workers. There every lane reads the pages it skips
    /// (a nested column's page does not say how many rows it holds): skipping costs about
    /// 45 % of decoding, and decoding about a third of a worker's time per row, so a third of
    /// the workers keep up with the rest.
    ///
    /// A chunk holds at most `batch_rows` rows, at most `batch_bytes` of the file's data
    /// (uncompressed, as its row groups count it), and at most an eighth of a worker's share of
    /// the rows (but [`MIN_SHARE_ROWS`]), as a chunk of JSON Lines does: a file of 2,000 cones
    /// of 128 generators was one chunk of 16,384 rows, which one worker answered alone.
    pub fn open_for(
        path: &Path,
        batch_rows: usize,
        batch_bytes: u64,
        ids_as_json: bool,
        workers: usize,
    ) -> Result<Self, String> {
        let rows = |metadata: &ParquetMetaData| {
            let groups = metadata.row_groups();
            let total: u64 = groups.iter().map(|g| g.num_rows().max(0) as u64).sum();
            let bytes: u64 = groups
                .iter()
                .map(|g| g.total_byte_size().max(0) as u64)
                .sum();
            let by_bytes = (batch_bytes * total / bytes.max(1)).max(1);
            let share = (total / (8 * workers.max(1) as u64)).max(MIN_SHARE_ROWS);
            (batch_rows as u64).min(by_bytes).min(share) as usize
        };
        let mut cases = Self::open_sized(path, &rows, ids_as_json, 1)?;
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
        chunk_rows: &dyn Fn(&ParquetMetaData) -> usize,
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
        let chunk_rows = chunk_rows(metadata.metadata()).max(1);
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

    /// Rows in each chunk (the last may hold fewer).
    pub fn chunk_rows(&self) -> usize {
        self.chunk_rows
    }

    /// Chunks in the file: [`ParquetCases::decode`] takes `0..chunks()`.
    pub fn chunks(&self) -> usize {
        self.total_rows().div_ceil(self.chunk_rows as u64) as usize
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
}

/// Rows of a Parquet input as the decoder gives them: turned into cases apart
/// ([`RowBatch::cases_into`]), so that this can happen on another thread than the decoding.
pub struct RowBatch {
    record: RecordBatch,
    first: u64,
    ids_as_json: bool,
}

impl RowBatch {
    /// The rows' 1-based numbers in the file.
    pub fn numbers(&self) -> Range<u64> {
        self.first..self.first + self.record.num_rows() as u64
    }

    /// The batch's cases into `out` (cleared first).
    pub fn cases_into(&self, out: &mut CaseBatch) -> Result<(), String> {
        cases_of(&self.record, self.first, self.ids_as_json, out)
    }
}

/// Runs a step of the Parquet reader, turning a panic of the decoder on a malformed file
/// into an error: a corrupt input is the user's problem to hear about, never a crash.
/// The panic's own message is kept off stderr (the error says it all).
pub(super) fn guarded<T>(step: impl FnOnce() -> T) -> Result<T, String> {
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

/// The schema's column names, for messages.
pub(super) fn names(schema: &Schema) -> String {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    names.join(", ")
}
