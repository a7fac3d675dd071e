//! `planar-hold eval`: cone tests from JSON Lines or Parquet to either, streamed.

use std::io::{BufWriter, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_schema::DataType;
use planar_hold::io::lines::{LineChunk, LineReader};
use planar_hold::io::parquet::{answers_file, ParquetAnswers, ParquetCases, RowGroup};
use planar_hold::io::{format_json, parse_json_chunk_into, CaseBatch};
use planar_hold::Answers;

use super::pipeline::{self, Engines, Format, Output, Progress, CHUNK_ROWS, PARQUET_CHUNK_BYTES};
use super::{exit, BackendArg, Failure};

#[derive(clap::Args)]
pub(super) struct Args {
    /// Input file, one case a line or row ("-" for standard input, JSON Lines only).
    cases: String,
    #[arg(long, value_enum, default_value_t = BackendArg::Gpu)]
    backend: BackendArg,
    /// Output file (default: standard output); a file is written whole or not at all.
    #[arg(short, long)]
    output: Option<String>,
    /// Input format (default: from the extension, `.parquet` or else JSON Lines).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Output format (default: from the output's extension, else JSON Lines).
    #[arg(long, value_enum)]
    output_format: Option<Format>,
    /// Each general answer with the proof of its two bounds (`"proof"`, docs/proof.md), which
    /// `planar-hold check-proof` checks.
    #[arg(long)]
    proof: bool,
}

/// Where chunks come from.
enum Source {
    Json(LineReader<Box<dyn Read + Send>>),
    /// The chunks left to hand out, by number: each worker decodes its own.
    Parquet(std::ops::Range<usize>),
}

/// A chunk as read: lines of text, or the number of a Parquet chunk to decode.
enum Chunk {
    Lines(LineChunk, Spare),
    Rows(usize, Spare),
}

/// The buffers one chunk goes through, recycled from chunk to chunk.
#[derive(Default)]
struct Spare {
    lines: LineChunk,
    batch: CaseBatch,
    answers: Answers,
    text: Vec<u8>,
}

/// A chunk answered: its output and what the writer reports in order.
struct Answered {
    encoded: Encoded,
    /// Refused lines, (number, error).
    refused: Vec<(u64, String)>,
    /// `--backend both`: (line, why) where GPU and CPU disagree.
    disagreements: Vec<(u64, String)>,
    cases: usize,
    spare: Spare,
}

/// Where answers go: text, or a Parquet file taking encoded row groups.
enum Sink<W: Write + Send> {
    Json(W),
    Parquet(ParquetAnswers<W>),
}

enum Encoded {
    /// JSON Lines in `spare.text`.
    Json,
    Parquet(RowGroup),
}

pub(super) fn run(args: Args) -> Result<(), Failure> {
    let path = args.cases.as_str();
    let in_format = Format::of(path, args.format);
    let out_format = Format::of(args.output.as_deref().unwrap_or("-"), args.output_format);
    let mut parquet = None;
    let mut source = match in_format {
        Format::Json => Source::Json(pipeline::line_reader(path, CHUNK_ROWS)?),
        Format::Parquet if path == "-" => {
            return Err(Failure::new(
                "Parquet input must be a file (its footer is read first), not standard input",
                exit::IO,
            ))
        }
        Format::Parquet => {
            // Each chunk is decoded by the worker that then evaluates it, on lanes (decoders)
            // that run side by side: row groups, or a huge one's pages, in parallel.
            let workers = pipeline::workers();
            let ids_as_json = out_format == Format::Json;
            let cases = ParquetCases::open_for(
                path.as_ref(),
                CHUNK_ROWS,
                PARQUET_CHUNK_BYTES as u64,
                ids_as_json,
                workers,
            )
            .map_err(|e| Failure::new(format!("cannot read {path}: {e}"), exit::IO))?;
            let source = Source::Parquet(0..cases.chunks());
            parquet = Some(cases);
            source
        }
    };
    let id_type = match &parquet {
        None => Some(DataType::Utf8),
        Some(p) => p.id_type(),
    };
    let engines = Engines::new(args.backend)?;
    let searched = Searched::default();
    let (output, sink) = Output::create(args.output.as_deref())?;
    let mut progress = match &source {
        Source::Json(_) => Progress::new(
            std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            "bytes",
        ),
        Source::Parquet(_) => Progress::new(parquet.as_ref().map(|p| p.total_rows()), "rows"),
    };
    let parquet = parquet.as_ref();
    let read_failure = |e: String| Failure::new(format!("cannot read {path}: {e}"), exit::IO);

    let read = |mut spare: Spare| -> Option<Result<Chunk, Failure>> {
        let chunk = match &mut source {
            Source::Json(lines) => match lines.next_chunk_in(std::mem::take(&mut spare.lines)) {
                Ok(chunk) => Ok(Chunk::Lines(chunk?, spare)),
                Err(e) => Err(read_failure(e.to_string())),
            },
            Source::Parquet(chunks) => Ok(Chunk::Rows(chunks.next()?, spare)),
        };
        progress.set(match &source {
            Source::Json(lines) => lines.consumed(),
            Source::Parquet(chunks) => {
                (chunks.start * parquet.map_or(CHUNK_ROWS, ParquetCases::chunk_rows)) as u64
            }
        });
        Some(chunk)
    };

    let out = BufWriter::with_capacity(1 << 20, sink);
    let (mut sink, encoder) = match out_format {
        Format::Json => (Sink::Json(out), None),
        Format::Parquet => {
            let (file, encoder) =
                answers_file(out, id_type).map_err(|e| output.write_failure(e))?;
            (Sink::Parquet(file), Some(encoder))
        }
    };

    // On every core: cases from the chunk, their outcomes, the answers encoded.
    let work = |chunk: Chunk, index: usize| -> Result<Answered, Failure> {
        let mut spare = match chunk {
            Chunk::Lines(lines, mut spare) => {
                parse_json_chunk_into(&lines, &mut spare.batch);
                spare.lines = lines;
                spare
            }
            Chunk::Rows(k, mut spare) => {
                let cases = parquet.ok_or_else(|| read_failure("no Parquet input".into()))?;
                let rows = cases.decode(k).map_err(read_failure)?;
                rows.cases_into(&mut spare.batch).map_err(read_failure)?;
                spare
            }
        };
        let Spare { batch, answers, .. } = &mut spare;
        engines
            .main
            .evaluate_into(&batch.batch, Engines::options(args.proof), answers)?;
        searched.add(answers);
        let mut disagreements = Vec::new();
        if let Some(cpu) = &engines.check {
            let checked = cpu.evaluate(&batch.batch, Engines::options(false))?;
            let rows = batch.rows.iter().zip(&batch.numbers);
            disagreements = rows
                .filter_map(|(row, &number)| {
                    let id = *row.as_ref().ok()?;
                    Some((number, answers.disagreement(&checked, &batch.batch, id)?))
                })
                .collect();
        }
        let encoded = match &encoder {
            None => {
                spare.text.clear();
                format_json(&spare.batch, &spare.answers, &mut spare.text);
                Encoded::Json
            }
            Some(encoder) => Encoded::Parquet(
                encoder
                    .encode(index, &spare.batch, &spare.answers)
                    .map_err(|e| output.write_failure(e))?,
            ),
        };
        Ok(Answered {
            encoded,
            refused: spare
                .batch
                .refused()
                .map(|(n, e)| (n, e.to_string()))
                .collect(),
            disagreements,
            cases: spare.batch.case_count(),
            spare,
        })
    };

    let mut tally = pipeline::Tally::new(path);
    let write = |done: Answered| -> Result<Spare, Failure> {
        for (number, error) in &done.refused {
            tally.refused(*number, error);
        }
        tally.answered(done.cases, &done.disagreements);
        match (done.encoded, &mut sink) {
            (Encoded::Parquet(group), Sink::Parquet(file)) => file.append(group),
            (Encoded::Json, Sink::Json(out)) => out
                .write_all(&done.spare.text)
                .and_then(|()| out.flush())
                .map_err(|e| e.to_string()),
            _ => Err("internal error: an answer encoded for the other format".into()),
        }
        .map_err(|e| output.write_failure(e))?;
        Ok(done.spare)
    };
    pipeline::stream(Spare::default, read, work, write)?;
    let out = match sink {
        Sink::Json(out) => out,
        Sink::Parquet(file) => file.finish().map_err(|e| output.write_failure(e))?,
    };
    output.finish(out)?;
    searched.report();
    tally.conclude()
}

/// General cases the device searched over a run, and how many of them the host searched on.
#[derive(Default)]
struct Searched {
    cases: AtomicUsize,
    resolved: AtomicUsize,
}

impl Searched {
    /// Counts a chunk's answers.
    fn add(&self, answers: &Answers) {
        self.cases.fetch_add(answers.searched, Ordering::Relaxed);
        self.resolved.fetch_add(answers.resolved, Ordering::Relaxed);
    }

    /// The line a run whose general cases the GPU searched ends with, on stderr.
    fn report(&self) {
        let cases = self.cases.load(Ordering::Relaxed);
        if cases > 0 {
            eprintln!(
                "planar-hold: general cases: {cases} on the GPU, {} re-solved on the host",
                self.resolved.load(Ordering::Relaxed)
            );
        }
    }
}
