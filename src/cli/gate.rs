//! `planar-hold gate`: scenes and edits from JSON Lines, streamed in chunks (one per core at
//! a time); every need of every scene of a chunk goes to the engine in one batch.

use std::io::{BufWriter, Write};

use planar_hold::io::json::{salvage_id, write_line, ErrorLine};
use planar_hold::io::lines::{LineChunk, MAX_LINE};
use planar_hold::scene::{hold_reports, parse_line, Report, SceneLine};
use serde_json::Value;

use super::pictures::Pictures;
use super::pipeline::{self, Engines, Output, Progress};
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
    scenes: Vec<SceneLine>,
}

/// The scenes of a chunk's lines, parsed on this thread.
fn parse_chunk(chunk: &LineChunk) -> Scenes {
    let parsed: Vec<_> = (0..chunk.lines.len())
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

/// The buffers one chunk goes through, recycled from chunk to chunk.
#[derive(Default)]
struct Spare {
    lines: LineChunk,
    text: Vec<u8>,
}

/// A chunk judged: its scenes and reports (for the pictures), its output lines in
/// `spare.text`, and the `--backend both` disagreements, (line, why).
struct Judged {
    scenes: Scenes,
    reports: Vec<Report>,
    disagreements: Vec<(u64, String)>,
    spare: Spare,
}

/// The gate's pipeline: reports to `output` (standard output when `None`), and with
/// `pictures` one SVG per valid line (`draw` sends the reports to the null device).
pub fn stream(
    path: &str,
    backend: BackendArg,
    output: Option<&str>,
    mut pictures: Option<Pictures>,
) -> Result<(), Failure> {
    let mut lines = pipeline::line_reader(path, pipeline::GATE_CHUNK_ROWS)?;
    let engines = Engines::new(backend)?;
    let (output, sink) = Output::create(output)?;
    let size = std::fs::metadata(path).ok().filter(|m| m.is_file());
    let mut progress = Progress::new(size.map(|m| m.len()), "bytes");

    let read = |mut spare: Spare| {
        let chunk = match lines.next_chunk_in(std::mem::take(&mut spare.lines)) {
            Ok(chunk) => chunk?,
            Err(e) => {
                let message = format!("cannot read {path}: {e}");
                return Some(Err(Failure::new(message, super::exit::IO)));
            }
        };
        progress.set(lines.consumed());
        spare.lines = chunk;
        Some(Ok(spare))
    };

    let work = |mut spare: Spare, _: usize| -> Result<Judged, Failure> {
        let scenes = parse_chunk(&spare.lines);
        let good = &scenes.scenes;
        let reports = engines.main.with(|e| hold_reports(e, good))?;
        let mut disagreements = Vec::new();
        if let Some(cpu) = &engines.check {
            let checked = cpu.with(|e| hold_reports(e, good))?;
            let lines = scenes.rows.iter().zip(&scenes.numbers);
            disagreements = pipeline::disagreements(
                &reports,
                &checked,
                lines.filter_map(|(r, &n)| r.is_ok().then_some(n)),
                Report::disagreement,
            );
        }
        spare.text.clear();
        format(&scenes, &reports, &mut spare.text);
        Ok(Judged {
            scenes,
            reports,
            disagreements,
            spare,
        })
    };

    let mut tally = pipeline::Tally::new(path);
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    let write = |done: Judged| -> Result<Spare, Failure> {
        let batch = &done.scenes;
        for (row, &line) in batch.rows.iter().zip(&batch.numbers) {
            if let Err((_, error)) = row {
                tally.refused(line, error);
            }
        }
        tally.answered(done.reports.len(), &done.disagreements);
        if let Some(pictures) = &mut pictures {
            let lines = batch.rows.iter().zip(&batch.numbers);
            for (row, &line) in lines {
                if let Ok(i) = row {
                    let i = *i as usize;
                    pictures.write(line as usize, &batch.scenes[i], &done.reports[i])?;
                }
            }
        }
        out.write_all(&done.spare.text)
            .and_then(|_| out.flush())
            .map_err(|e| output.write_failure(e))?;
        Ok(done.spare)
    };
    pipeline::stream(Spare::default, read, work, write)?;
    output.finish(out)?;
    tally.conclude()
}

/// The chunk's output lines, appended to `text`: a report or `{"id", "line", "error"}`.
fn format(batch: &Scenes, reports: &[Report], text: &mut Vec<u8>) {
    for (row, &line) in batch.rows.iter().zip(&batch.numbers) {
        match row {
            Ok(i) => write_line(text, &reports[*i as usize]),
            Err((id, error)) => {
                let id = id.clone();
                write_line(text, &ErrorLine { id, line, error });
            }
        }
    }
}
