//! `planar-hold eval`: cone tests from JSON Lines or Parquet to either, streamed.

use std::io::{BufWriter, Write};

use arrow_schema::DataType;
use planar_hold::io::parquet::{ParquetAnswers, ParquetCases};
use planar_hold::io::{format_json, parse_json_chunk, CaseBatch};
use planar_hold::Outcome;

use super::io::{self, Engines, Format, Output, Progress, CHUNK_ROWS};
use super::{exit, BackendArg, Failure};

#[derive(clap::Args)]
pub struct Args {
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
}

/// Where batches come from.
enum Source {
    Json(planar_hold::io::lines::LineReader<Box<dyn std::io::BufRead + Send>>),
    Parquet(ParquetCases),
}

pub fn run(args: Args) -> Result<(), Failure> {
    let path = args.cases.as_str();
    let in_format = Format::of(path, args.format);
    let out_format = Format::of(args.output.as_deref().unwrap_or("-"), args.output_format);
    let mut source = match in_format {
        Format::Json => Source::Json(io::line_reader(path, CHUNK_ROWS)?),
        Format::Parquet if path == "-" => {
            return Err(Failure::new(
                "Parquet input must be a file (its footer is read first), not standard input",
                exit::IO,
            ))
        }
        Format::Parquet => Source::Parquet(
            ParquetCases::new(io::open_file(path)?, CHUNK_ROWS, out_format == Format::Json)
                .map_err(|e| Failure::new(format!("cannot read {path}: {e}"), exit::IO))?,
        ),
    };
    let id_type = match &source {
        Source::Json(_) => Some(DataType::Utf8),
        Source::Parquet(p) => p.id_type(),
    };
    let mut engines = Engines::new(args.backend)?;
    let (output, sink) = Output::create(args.output.as_deref())?;
    let mut progress = match &source {
        Source::Json(_) => Progress::new(
            std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            "bytes",
        ),
        Source::Parquet(p) => Progress::new(Some(p.total_rows()), "rows"),
    };

    let read = || -> Option<Result<CaseBatch, Failure>> {
        let batch = match &mut source {
            Source::Json(lines) => match lines.next_chunk() {
                Ok(chunk) => chunk.map(|c| Ok(parse_json_chunk(&c))),
                Err(e) => Some(Err(e.to_string())),
            },
            Source::Parquet(p) => p.next_batch(),
        }?;
        progress.set(match &source {
            Source::Json(lines) => lines.consumed(),
            Source::Parquet(p) => p.rows_read(),
        });
        Some(batch.map_err(|e| Failure::new(format!("cannot read {path}: {e}"), exit::IO)))
    };

    let (mut disagreeing, mut total) = (0, 0);
    let evaluate = |batch: &CaseBatch| -> Result<Vec<Outcome>, Failure> {
        let outcomes = engines.main.evaluate(&batch.cases)?;
        if let Some(cpu) = &mut engines.check {
            let checked = cpu.evaluate(&batch.cases)?;
            let lines = batch.rows.iter().zip(&batch.numbers);
            let numbers = lines.filter_map(|(r, n)| r.is_ok().then_some(*n));
            for ((g, c), number) in outcomes.iter().zip(&checked).zip(numbers) {
                if let Some(why) = g.disagreement(c) {
                    eprintln!("planar-hold: GPU and CPU disagree: line {number}: {why}");
                    disagreeing += 1;
                }
            }
        }
        total += batch.cases.len();
        Ok(outcomes)
    };

    let mut refused = 0;
    let mut name_refused = |batch: &CaseBatch| {
        for (number, error) in batch.refused() {
            eprintln!("planar-hold: {path}:{number}: line {number}: {error}");
            refused += 1;
        }
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    match out_format {
        Format::Json => {
            let write = |batch: CaseBatch, outcomes: Vec<Outcome>| {
                name_refused(&batch);
                let text = format_json(&batch, &outcomes);
                drop(batch);
                out.write_all(&text)
                    .and_then(|_| out.flush())
                    .map_err(|e| output.write_failure(e))
            };
            io::stream(read, evaluate, write)?;
            out.flush().map_err(|e| output.write_failure(e))?;
        }
        Format::Parquet => {
            let mut writer =
                ParquetAnswers::new(&mut out, id_type).map_err(|e| output.write_failure(e))?;
            let write = |batch: CaseBatch, outcomes: Vec<Outcome>| {
                name_refused(&batch);
                writer
                    .write(&batch, &outcomes)
                    .map_err(|e| output.write_failure(e))
            };
            io::stream(read, evaluate, write)?;
            writer.finish().map_err(|e| output.write_failure(e))?;
            out.flush().map_err(|e| output.write_failure(e))?;
        }
    }
    drop(out);
    output.commit()?;
    io::conclude(disagreeing, refused, total)
}
