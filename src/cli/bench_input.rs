//! `planar-hold bench --input FILE`: the user's own cases (JSON Lines or Parquet) instead of
//! the built-in workload, and what the format itself costs per core (parse and format, or
//! decode and encode, with no evaluation): how many cores it takes to feed an engine.

use std::time::Instant;

use arrow_schema::DataType;
use planar_hold::io::lines::{LineChunk, LineReader};
use planar_hold::io::parquet::{answers_file, ParquetCases};
use planar_hold::io::{format_json, parse_json_chunk_into, CaseBatch, Ids};
use planar_hold::{Answers, Backend, Batch, Case, Engine, Options};
use serde::Serialize;

use super::pipeline::{self, Format, CHUNK_BYTES, CHUNK_ROWS};
use super::{exit, Failure};

/// Rows timed for the format's own rates (best of three runs): enough for a stable rate,
/// few enough to keep.
const FORMAT_SAMPLE: usize = 65_536;

/// The cases of a file, loaded for timing, and the format's own rates per core.
pub(super) struct Input {
    pub path: String,
    /// Taken by the bench (the table's largest batch).
    pub cases: Vec<Case>,
    count: usize,
    pub report: FormatRates,
}

#[derive(Serialize)]
pub(super) struct FormatRates {
    pub format: &'static str,
    /// Rows of the file refused (not timed).
    pub refused: usize,
    /// Cases per second per core: text or columns to cases.
    pub decode_per_core: f64,
    /// Cases per second per core: outcomes to answers, formatted.
    pub encode_per_core: f64,
    /// What bounds decoding, in cases per second per core: JSON Lines' numbers parsed by
    /// fast-float2 alone (no structure, no cases), or the Parquet reader alone (Arrow
    /// arrays, no cases).
    pub decode_floor_per_core: f64,
    /// What bounds encoding: JSON Lines' numbers formatted by zmij alone, or answers already
    /// in Arrow columns encoded and compressed into Parquet.
    pub encode_floor_per_core: f64,
}

/// Loads up to `limit` cases of `path` (refused rows skipped), then times decoding and
/// encoding a sample of them on one thread.
pub(super) fn load(path: &str, format: Option<Format>, limit: usize) -> Result<Input, Failure> {
    let format = Format::of(path, format);
    let read_failure = |e: String| Failure::new(format!("cannot read {path}: {e}"), exit::IO);
    let (mut cases, mut refused) = (Vec::<Case>::new(), 0);
    let mut batch = CaseBatch::default();
    let mut keep = |batch: &CaseBatch| {
        refused += batch.refused().count();
        let take = batch.batch.planar.len().min(limit - cases.len());
        cases.extend_from_slice(&batch.batch.planar[..take]);
        cases.len()
    };
    let mut loaded = 0;
    // The first lines' text, kept to time parsing alone.
    let (mut sample_lines, mut sampled) = (Vec::new(), 0);
    match format {
        Format::Json => {
            let mut lines = LineReader::new(pipeline::open_input(path)?, CHUNK_ROWS, CHUNK_BYTES);
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
                parse_json_chunk_into(&chunk, &mut batch);
                loaded = keep(&batch);
            }
        }
        Format::Parquet => {
            let mut reader = ParquetCases::new(pipeline::open_file(path)?, CHUNK_ROWS, false)
                .map_err(read_failure)?;
            while loaded < limit {
                let Some(rows) = reader.next_rows() else {
                    break;
                };
                rows.and_then(|rows| rows.cases_into(&mut batch))
                    .map_err(read_failure)?;
                loaded = keep(&batch);
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
                decode_per_core: best(|| Ok(json_decode_rate(&sample_lines)))?,
                encode_per_core: best(|| json_encode_rate(sample))?,
                decode_floor_per_core: best(|| Ok(json_numbers_rate(&sample_lines)))?,
                encode_floor_per_core: best(|| json_floats_rate(sample))?,
            },
            Format::Parquet => FormatRates {
                format: "parquet",
                refused,
                decode_per_core: best(|| parquet_decode_rate(path, true))?,
                encode_per_core: best(|| parquet_encode_rate(sample, true))?,
                decode_floor_per_core: best(|| parquet_decode_rate(path, false))?,
                encode_floor_per_core: best(|| parquet_encode_rate(sample, false))?,
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

/// The best of three timings of a rate: the first also pays for first-touched memory.
fn best(rate: impl Fn() -> Result<f64, Failure>) -> Result<f64, Failure> {
    let mut best = 0f64;
    for _ in 0..3 {
        best = best.max(rate()?);
    }
    Ok(best)
}

/// Cases per second parsing `text` (one case a line, split into chunks beforehand) as
/// `eval` does, on this thread.
fn json_decode_rate(text: &[u8]) -> f64 {
    let mut lines = LineReader::new(text, CHUNK_ROWS, CHUNK_BYTES);
    let chunks: Vec<LineChunk> = std::iter::from_fn(|| lines.next_chunk().ok().flatten()).collect();
    let mut batch = CaseBatch::default();
    let (start, mut n) = (Instant::now(), 0);
    for chunk in &chunks {
        parse_json_chunk_into(chunk, &mut batch);
        n += batch.batch.planar.len();
    }
    n as f64 / start.elapsed().as_secs_f64().max(1e-9)
}

/// The sample as a batch with its answers (CPU), for the encoders.
fn answered(sample: &[Case]) -> Result<(CaseBatch, Answers), Failure> {
    let batch = CaseBatch::from_rows(
        (1..=sample.len() as u64).collect(),
        sample.iter().copied().map(Ok).collect(),
        Ids::None,
    );
    let answers = Engine::new(Backend::Cpu)?.evaluate(&batch.batch, Options::default())?;
    Ok((batch, answers))
}

/// Cases per second formatting the sample's answers as JSON Lines, timed as `eval` formats
/// them: each chunk evaluated (not timed), then formatted while its cases are in cache (the
/// witness's re-solve reads them).
fn json_encode_rate(sample: &[Case]) -> Result<f64, Failure> {
    let mut elapsed = std::time::Duration::ZERO;
    let mut out = Vec::new();
    for part in sample.chunks(CHUNK_ROWS) {
        let (batch, answers) = answered(part)?;
        out.clear();
        let start = Instant::now();
        format_json(&batch, &answers, &mut out);
        elapsed += start.elapsed();
        std::hint::black_box(&out);
    }
    Ok(sample.len() as f64 / elapsed.as_secs_f64().max(1e-9))
}

/// Cases per second parsing only the numbers of `text`'s lines, with fast-float2 as the
/// JSON parser does (each number found beforehand): the floor under JSON decoding.
fn json_numbers_rate(text: &[u8]) -> f64 {
    let is_number = |b: &u8| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9');
    let mut spans = Vec::new();
    let mut at = 0;
    while at < text.len() {
        if text[at] == b'-' || text[at].is_ascii_digit() {
            let len = text[at..].iter().take_while(|b| is_number(b)).count();
            spans.push(at..at + len);
            at += len;
        } else {
            at += 1;
        }
    }
    let lines = memchr::memchr_iter(b'\n', text).count().max(1);
    let start = Instant::now();
    for span in spans {
        std::hint::black_box(fast_float2::parse::<f64, _>(&text[span]).ok());
    }
    lines as f64 / start.elapsed().as_secs_f64().max(1e-9)
}

/// Cases per second formatting only the floats of the sample's answers (margin, witness
/// weights, certificate) with zmij, as the JSON writer does: the floor under JSON encoding.
fn json_floats_rate(sample: &[Case]) -> Result<f64, Failure> {
    let outcomes = Engine::new(Backend::Cpu)?
        .evaluate(&Batch::from(sample), Options::default())?
        .planar;
    let mut buffer = zmij::Buffer::new();
    let start = Instant::now();
    for o in &outcomes {
        std::hint::black_box(buffer.format(o.margin).len());
        for k in 0..o.witness_len.min(3) as usize {
            std::hint::black_box(buffer.format(f64::from(o.witness_weight[k])).len());
        }
        if let Some(c) = o.certificate() {
            for x in c {
                std::hint::black_box(buffer.format(x).len());
            }
        }
    }
    Ok(outcomes.len() as f64 / start.elapsed().as_secs_f64().max(1e-9))
}

/// Cases per second reading the first [`FORMAT_SAMPLE`] rows of `path` into cases, or
/// without `cases` only decoding them (the Parquet reader alone).
fn parquet_decode_rate(path: &str, cases: bool) -> Result<f64, Failure> {
    let failure = |e: String| Failure::new(format!("cannot read {path}: {e}"), exit::IO);
    let start = Instant::now();
    let mut reader =
        ParquetCases::new(pipeline::open_file(path)?, CHUNK_ROWS, false).map_err(failure)?;
    let (mut batch, mut n) = (CaseBatch::default(), 0);
    while n < FORMAT_SAMPLE {
        let Some(rows) = reader.next_rows() else {
            break;
        };
        let rows = rows.map_err(failure)?;
        n += rows.numbers().count();
        if cases {
            rows.cases_into(&mut batch).map_err(failure)?;
        }
    }
    Ok(n as f64 / start.elapsed().as_secs_f64().max(1e-9))
}

/// Cases per second encoding the sample's answers as Parquet in memory, in row groups of
/// `eval`'s chunk size; without `columns`, from answers already in Arrow columns (the
/// Parquet encoding and compression alone).
fn parquet_encode_rate(sample: &[Case], columns: bool) -> Result<f64, Failure> {
    let fail = |e: String| Failure::new(e, exit::ENGINE);
    let (mut file, encoder) = answers_file(Vec::new(), None::<DataType>).map_err(fail)?;
    let mut elapsed = std::time::Duration::ZERO;
    for (index, part) in sample.chunks(CHUNK_ROWS).enumerate() {
        // As eval encodes: right after the chunk's evaluation, while it is in cache.
        let (batch, answers) = answered(part)?;
        let record = match columns {
            true => None,
            false => Some(encoder.answers_batch(&batch, &answers).map_err(fail)?),
        };
        let start = Instant::now();
        let group = match &record {
            None => encoder.encode(index, &batch, &answers),
            Some(record) => encoder.encode_record(index, record),
        };
        file.append(group.map_err(fail)?).map_err(fail)?;
        elapsed += start.elapsed();
    }
    std::hint::black_box(file.finish().map_err(fail)?);
    Ok(sample.len() as f64 / elapsed.as_secs_f64().max(1e-9))
}

impl Input {
    /// The lines the table gets: the format's rates and the cores each engine would need.
    pub(super) fn print(&self, engine_rates: &[(&str, f64)]) {
        let r = &self.report;
        println!(
            "\ninput {}: {} cases ({} refused rows skipped), format {}",
            self.path, self.count, r.refused, r.format
        );
        println!(
            "  per core, no evaluation: decode {:.0} cases/s, encode {:.0} cases/s",
            r.decode_per_core, r.encode_per_core
        );
        let (decoder, encoder) = match r.format {
            "json" => ("numbers by fast-float2", "floats by zmij"),
            _ => ("the Parquet reader", "Parquet encoding of Arrow columns"),
        };
        println!(
            "  floors, per core: decode {:.0} cases/s ({decoder} alone), encode {:.0} cases/s \
             ({encoder} alone)",
            r.decode_floor_per_core, r.encode_floor_per_core
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
