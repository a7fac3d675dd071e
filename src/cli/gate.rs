//! `planar-hold gate`: scenes and edits from JSON Lines, streamed in chunks; every need of
//! every scene of a chunk goes to the engine in one batch.

use std::io::{BufWriter, Write};

use planar_hold::io::json::{salvage_id, write_line, ErrorLine};
use planar_hold::io::lines::{LineChunk, MAX_LINE};
use planar_hold::scene::{hold_reports, parse_line, HoldReport, Scene};
use rayon::prelude::*;
use serde_json::Value;

use super::draw::Pictures;
use super::io::{self, Engines, Output, Progress};
use super::{BackendArg, Failure};

#[derive(clap::Args)]
pub struct Args {
    /// Input file, one scene or edit a line ("-" for standard input).
    scenes: String,
    #[arg(long, value_enum, default_value_t = BackendArg::Gpu)]
    backend: BackendArg,
    /// Output file (default: standard output); a file is written whole or not at all.
    #[arg(short, long)]
    output: Option<String>,
    /// Also write one SVG picture per line into this directory (as `draw` does).
    #[arg(long, value_name = "DIR")]
    draw: Option<String>,
}

/// A chunk of lines, parsed: for each line its number and its scene, or its id (when it
/// has one) and error.
struct Scenes {
    numbers: Vec<u64>,
    /// For each line: the index of its scene in `scenes`, or its id and error.
    rows: Vec<Result<u32, (Option<Value>, String)>>,
    scenes: Vec<Scene>,
}

fn parse_chunk(chunk: &LineChunk) -> Scenes {
    let parsed: Vec<_> = (0..chunk.lines.len())
        .into_par_iter()
        .map(|k| {
            if chunk.lines[k].too_long {
                return Err((None, format!("line longer than {MAX_LINE} bytes")));
            }
            let bytes = chunk.text(k);
            let text = std::str::from_utf8(bytes)
                .map_err(|e| (None, format!("invalid input: not UTF-8: {e}")))?;
            parse_line(text).map_err(|e| (salvage_id(bytes), e.to_string()))
        })
        .collect();
    let mut scenes = Vec::with_capacity(parsed.len());
    let rows = parsed
        .into_iter()
        .map(|r| {
            r.map(|scene| {
                scenes.push(scene);
                (scenes.len() - 1) as u32
            })
        })
        .collect();
    Scenes {
        numbers: chunk.lines.iter().map(|l| l.number).collect(),
        rows,
        scenes,
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    let pictures = args.draw.as_deref().map(Pictures::new).transpose()?;
    stream(&args.scenes, args.backend, args.output.as_deref(), pictures)
}

/// The gate's pipeline: reports to `output` (standard output when `None`), and with
/// `pictures` one SVG per valid line (`draw` sends the reports to the null device).
pub fn stream(
    path: &str,
    backend: BackendArg,
    output: Option<&str>,
    mut pictures: Option<Pictures>,
) -> Result<(), Failure> {
    let mut lines = io::line_reader(path, io::GATE_CHUNK_ROWS)?;
    let mut engines = Engines::new(backend)?;
    let (output, sink) = Output::create(output)?;
    let size = std::fs::metadata(path).ok().filter(|m| m.is_file());
    let mut progress = Progress::new(size.map(|m| m.len()), "bytes");

    let read = || {
        let chunk = match lines.next_chunk() {
            Ok(chunk) => chunk?,
            Err(e) => {
                let message = format!("cannot read {path}: {e}");
                return Some(Err(Failure::new(message, super::exit::IO)));
            }
        };
        let scenes = parse_chunk(&chunk);
        progress.set(lines.consumed());
        Some(Ok(scenes))
    };

    let (mut disagreeing, mut total) = (0, 0);
    let evaluate = |batch: &Scenes| -> Result<Vec<HoldReport>, Failure> {
        let good = &batch.scenes;
        let reports = hold_reports(&mut engines.main, good)?;
        if let Some(cpu) = &mut engines.check {
            let checked = hold_reports(cpu, good)?;
            let lines = batch.rows.iter().zip(&batch.numbers);
            let numbers = lines.filter_map(|(r, n)| r.is_ok().then_some(*n));
            for ((g, c), number) in reports.iter().zip(&checked).zip(numbers) {
                if let Some(why) = g.disagreement(c) {
                    eprintln!("planar-hold: GPU and CPU disagree: line {number}: {why}");
                    disagreeing += 1;
                }
            }
        }
        total += reports.len();
        Ok(reports)
    };

    let mut refused = 0;
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    let write = |batch: Scenes, reports: Vec<HoldReport>| {
        for (row, &line) in batch.rows.iter().zip(&batch.numbers) {
            if let Err((_, error)) = row {
                eprintln!("planar-hold: {path}:{line}: line {line}: {error}");
                refused += 1;
            }
        }
        if let Some(pictures) = &mut pictures {
            let lines = batch.rows.iter().zip(&batch.numbers);
            for (row, &line) in lines {
                if let Ok(i) = row {
                    let i = *i as usize;
                    pictures.write(line as usize, &batch.scenes[i], &reports[i])?;
                }
            }
        }
        let text = format(&batch, &reports);
        out.write_all(&text)
            .and_then(|_| out.flush())
            .map_err(|e| output.write_failure(e))
    };
    io::stream(read, evaluate, write)?;
    out.flush().map_err(|e| output.write_failure(e))?;
    drop(out);
    output.commit()?;
    io::conclude(disagreeing, refused, total)
}

/// The chunk's output lines, formatted on every core: a report or `{"id", "line", "error"}`.
fn format(batch: &Scenes, reports: &[HoldReport]) -> Vec<u8> {
    const SPLIT: usize = 256;
    let parts: Vec<Vec<u8>> = batch
        .rows
        .par_chunks(SPLIT)
        .zip(batch.numbers.par_chunks(SPLIT))
        .map(|(rows, numbers)| {
            let mut text = Vec::with_capacity(rows.len() * 1024);
            for (row, &line) in rows.iter().zip(numbers) {
                match row {
                    Ok(i) => write_line(&mut text, &reports[*i as usize]),
                    Err((id, error)) => {
                        let id = id.clone();
                        write_line(&mut text, &ErrorLine { id, line, error });
                    }
                }
            }
            text
        })
        .collect();
    parts.concat()
}
