//! `planar-hold bench --input FILE`: the user's own cases (JSON Lines or Parquet) instead of
//! the built-in workload, and what the format itself costs per core (parse and format, or
//! decode and encode, with no evaluation): how many cores it takes to feed an engine.

use std::io::Write;
use std::time::{Duration, Instant};

use arrow_schema::DataType;
use planar_hold::io::json::{parse_case_raw, write_answer};
use planar_hold::io::lines::LineReader;
use planar_hold::io::parquet::{ParquetAnswers, ParquetCases};
use planar_hold::io::{parse_json_chunk, CaseBatch, Ids};
use planar_hold::{Backend, Case, Engine};
use serde::Serialize;

use super::io::{self, Format, CHUNK_BYTES, CHUNK_ROWS};
use super::{exit, Failure};

/// Rows timed for the format's own rates: enough for a stable rate, few enough to keep.
const FORMAT_SAMPLE: usize = 65_536;

/// The cases of a file, loaded for timing, and the format's own rates per core.
pub struct Input {
    pub path: String,
    /// Taken by the bench (the table's largest batch).
    pub cases: Vec<Case>,
    count: usize,
    pub report: FormatRates,
}

#[derive(Serialize)]
pub struct FormatRates {
    pub format: &'static str,
    /// Rows of the file refused (not timed).
    pub refused: usize,
    /// Cases per second per core: text or columns to cases.
    pub decode_per_core: f64,
    /// Cases per second per core: outcomes to answers, formatted.
    pub encode_per_core: f64,
}

/// Loads up to `limit` cases of `path` (refused rows skipped), then times decoding and
/// encoding a sample of them on one thread.
pub fn load(path: &str, format: Option<Format>, limit: usize) -> Result<Input, Failure> {
    let format = Format::of(path, format);
    let read_failure = |e: String| Failure::new(format!("cannot read {path}: {e}"), exit::IO);
    let (mut cases, mut refused) = (Vec::<Case>::new(), 0);
    let mut keep = |batch: CaseBatch| {
        refused += batch.refused().count();
        let take = batch.cases.len().min(limit - cases.len());
        cases.extend_from_slice(&batch.cases[..take]);
        cases.len()
    };
    let mut loaded = 0;
    // The first lines' text, kept to time parsing alone.
    let (mut sample_lines, mut sampled) = (Vec::new(), 0);
    match format {
        Format::Json => {
            let mut lines = LineReader::new(io::open_input(path)?, CHUNK_ROWS, CHUNK_BYTES);
            while loaded < limit {
                let Some(chunk) = lines
                    .next_chunk()
                    .map_err(|e| read_failure(e.to_string()))?
                else {
                    break;
                };
                let sample = chunk.lines.len().min(FORMAT_SAMPLE - sampled);
                for k in 0..sample {
                    sample_lines.extend_from_slice(chunk.text(k));
                    sample_lines.push(b'\n');
                }
                sampled += sample;
                loaded = keep(parse_json_chunk(&chunk));
            }
        }
        Format::Parquet => {
            let mut reader =
                ParquetCases::new(io::open_file(path)?, CHUNK_ROWS, false).map_err(read_failure)?;
            while loaded < limit {
                let Some(batch) = reader.next_batch() else {
                    break;
                };
                loaded = keep(batch.map_err(read_failure)?);
            }
        }
    }
    if cases.is_empty() {
        return Err(Failure::new(format!("{path}: no case to time"), exit::IO));
    }
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Failure::new(e.to_string(), exit::ENGINE))?;
    let sample = &cases[..cases.len().min(FORMAT_SAMPLE)];
    let report = one.install(|| -> Result<FormatRates, Failure> {
        Ok(match format {
            Format::Json => FormatRates {
                format: "json",
                refused,
                decode_per_core: json_decode_rate(&sample_lines),
                encode_per_core: json_encode_rate(sample)?,
            },
            Format::Parquet => FormatRates {
                format: "parquet",
                refused,
                decode_per_core: parquet_decode_rate(path)?,
                encode_per_core: parquet_encode_rate(sample)?,
            },
        })
    })?;
    Ok(Input {
        path: path.to_string(),
        count: cases.len(),
        cases,
        report,
    })
}

/// Cases per second parsing `text` (one case a line, each ended by a newline) on this
/// thread. Lines are found with `memchr` as `LineReader` finds them: a byte-by-byte split
/// would cost a quarter of the parse and count a cost that eval does not have.
fn json_decode_rate(text: &[u8]) -> f64 {
    let start = Instant::now();
    let (mut n, mut from) = (0usize, 0);
    for end in memchr::memchr_iter(b'\n', text) {
        if parse_case_raw(&text[from..end]).is_ok() {
            n += 1;
        }
        from = end + 1;
    }
    n as f64 / start.elapsed().as_secs_f64().max(1e-9)
}

/// Cases per second formatting outcomes as JSON Lines, timed as eval formats them: each
/// chunk of [`CHUNK_ROWS`] evaluated (CPU, not timed) and then formatted while its cases are
/// still in cache. (Formatting the whole sample after evaluating it read 13 MB of cases that
/// had left the cache, for the witness's re-solve: 15% slower than eval formats.)
fn json_encode_rate(sample: &[Case]) -> Result<f64, Failure> {
    let mut engine = Engine::new(Backend::Cpu)?;
    let mut out = Vec::with_capacity(sample.len() * 200);
    let mut elapsed = Duration::ZERO;
    for chunk in sample.chunks(CHUNK_ROWS) {
        let outcomes = engine.evaluate(chunk)?;
        let start = Instant::now();
        for (case, o) in chunk.iter().zip(&outcomes) {
            write_answer(&mut out, None, case, o);
        }
        elapsed += start.elapsed();
    }
    std::hint::black_box(&out);
    Ok(sample.len() as f64 / elapsed.as_secs_f64().max(1e-9))
}

/// Cases per second reading the first [`FORMAT_SAMPLE`] rows of `path` into cases.
fn parquet_decode_rate(path: &str) -> Result<f64, Failure> {
    let failure = |e: String| Failure::new(format!("cannot read {path}: {e}"), exit::IO);
    let start = Instant::now();
    let mut reader = ParquetCases::new(io::open_file(path)?, 8192, false).map_err(failure)?;
    let mut n = 0;
    while n < FORMAT_SAMPLE {
        let Some(batch) = reader.next_batch() else {
            break;
        };
        n += batch.map_err(failure)?.rows.len();
    }
    Ok(n as f64 / start.elapsed().as_secs_f64().max(1e-9))
}

/// The sample's outcomes (CPU), then cases per second encoding them as Parquet in memory.
fn parquet_encode_rate(sample: &[Case]) -> Result<f64, Failure> {
    let outcomes = Engine::new(Backend::Cpu)?.evaluate(sample)?;
    let batch = CaseBatch::from_rows(
        (1..=sample.len() as u64).collect(),
        sample.iter().copied().map(Ok).collect(),
        Ids::None,
    );
    let start = Instant::now();
    let mut sink = Vec::new();
    let fail = |e: String| Failure::new(e, exit::ENGINE);
    let mut writer = ParquetAnswers::new(&mut sink, None::<DataType>).map_err(fail)?;
    writer.write(&batch, &outcomes).map_err(fail)?;
    writer
        .finish()
        .map_err(fail)?
        .flush()
        .map_err(|e| fail(e.to_string()))?;
    Ok(sample.len() as f64 / start.elapsed().as_secs_f64().max(1e-9))
}

impl Input {
    /// The lines the table gets: the format's rates and the cores each engine would need.
    pub fn print(&self, engine_rates: &[(&str, f64)]) {
        let r = &self.report;
        println!(
            "\ninput {}: {} cases ({} refused rows skipped), format {}",
            self.path, self.count, r.refused, r.format
        );
        println!(
            "  per core, no evaluation: decode {:.0} cases/s, encode {:.0} cases/s",
            r.decode_per_core, r.encode_per_core
        );
        let per_core = 1.0 / (1.0 / r.decode_per_core + 1.0 / r.encode_per_core);
        for (backend, rate) in engine_rates {
            println!(
                "  cores to decode and encode at {backend}'s rate ({rate:.0} cases/s): {:.1}",
                rate / per_core
            );
        }
    }
}
