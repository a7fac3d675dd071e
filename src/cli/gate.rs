//! `planar-hold gate`: scenes and edits from JSON Lines, or grasps from Parquet rows,
//! streamed in chunks (one per core at a time); every need of every scene of a chunk goes to
//! the engine in one batch. Answers as JSON Lines, or grasp answers as Parquet.

use std::io::{BufWriter, Read, Write};

use planar_hold::io::json::{salvage_id, write_line, ErrorLine};
use planar_hold::io::lines::{LineChunk, LineReader, MAX_LINE};
use planar_hold::io::parquet::{
    grasp_answers_file, GraspRow, GraspRows, ParquetAnswers, ParquetEncoder, ParquetGrasps,
    RowGroup,
};
use planar_hold::io::write_report;
use planar_hold::{hold_reports, parse_line, Options, Report, SceneLine, Threads};
use serde_json::Value;

use super::pictures::Pictures;
use super::pipeline::{self, Engines, Format, Output, Progress};
use super::{exit, BackendArg, Failure};

#[derive(clap::Args)]
pub(super) struct Args {
    /// Input file, one scene or edit a line ("-" for standard input), or grasps as the rows
    /// of a `.parquet` file.
    scenes: String,
    #[arg(long, value_enum, default_value_t = BackendArg::Gpu)]
    backend: BackendArg,
    /// Output file (default: standard output); a file is written whole or not at all. A
    /// `.parquet` name writes grasp answers as Parquet (other lines are refused).
    #[arg(short, long)]
    output: Option<String>,
    /// Also write one SVG picture per line into this directory (as `draw` does).
    #[arg(long, value_name = "DIR")]
    draw: Option<String>,
    /// Each spatial need's and each grasp's answer with the proof of its two bounds
    /// (`"proof"`, docs/proof.md), which `planar-hold check-proof` checks.
    #[arg(long)]
    proof: bool,
    /// Ask of every grasp line without its own `"q1_at_least"` whether q1 ≥ T: answered
    /// `"q1_at_least": true/false/"uncertain"`, the search stopping once its bracket decides
    /// it (docs/contract-grasp.md §6).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    q1_at_least: Option<f64>,
    /// Leave out each spatial scene's support region (its `support_region` fields), about a
    /// third of a small scene's time: for callers who ask only whether the needs hold.
    #[arg(long)]
    no_region: bool,
}

/// A chunk of lines (or rows), parsed: for each its number and its scene, or its id (when
/// it has one) and error.
struct Scenes {
    numbers: Vec<u64>,
    /// For each line: the index of its scene in `scenes`, or its id and error.
    rows: Vec<Result<u32, (Option<Value>, String)>>,
    scenes: Vec<SceneLine>,
}

impl Scenes {
    fn of(numbers: Vec<u64>, parsed: Vec<Result<SceneLine, (Option<Value>, String)>>) -> Scenes {
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
            numbers,
            rows,
            scenes,
        }
    }
}

/// A Parquet output holds grasp answers alone: what a line of another kind is told.
const GRASPS_ONLY: &str = "not a grasp line (\"dim\": 3, \"grasp\": true): a Parquet output \
     (-o FILE.parquet) holds grasp answers only; write JSON Lines for scenes and edits";

/// The scenes of a chunk's lines, parsed on this thread; with `grasps_only` (a Parquet
/// output) a line of any other kind is refused.
fn parse_chunk(chunk: &LineChunk, grasps_only: bool) -> Scenes {
    let parsed: Vec<_> = (0..chunk.lines.len())
        .map(|k| {
            if chunk.lines[k].too_long {
                return Err((None, format!("line longer than {MAX_LINE} bytes")));
            }
            let bytes = chunk.text(k);
            let text = std::str::from_utf8(bytes)
                .map_err(|e| (salvage_id(bytes), format!("invalid input: not UTF-8: {e}")))?;
            let scene = parse_line(text).map_err(|e| (salvage_id(bytes), e.to_string()))?;
            if grasps_only && !matches!(scene, SceneLine::Grasp(_)) {
                return Err((salvage_id(bytes), GRASPS_ONLY.to_string()));
            }
            Ok(scene)
        })
        .collect();
    Scenes::of(chunk.lines.iter().map(|l| l.number).collect(), parsed)
}

/// The grasps of a chunk of Parquet rows, read column by column on this thread.
fn parse_rows(rows: &GraspRows) -> Scenes {
    let parsed = rows
        .grasps()
        .into_iter()
        .map(|g| g.map(SceneLine::Grasp))
        .collect();
    Scenes::of(rows.numbers().collect(), parsed)
}

pub(super) fn run(args: Args) -> Result<(), Failure> {
    let pictures = args.draw.as_deref().map(Pictures::new).transpose()?;
    if let Some(t) = args.q1_at_least.filter(|t| !t.is_finite()) {
        return Err(Failure::new(
            format!("--q1-at-least must be a finite number, got {t}"),
            exit::USAGE,
        ));
    }
    stream(
        &args.scenes,
        args.backend,
        args.output.as_deref(),
        pictures,
        Asked {
            proof: args.proof,
            q1_at_least: args.q1_at_least,
            support_region: !args.no_region,
        },
    )
}

/// What the gate asks of every line beyond its answer.
#[derive(Clone, Copy, Debug)]
pub(super) struct Asked {
    /// Each answer's proof (`--proof`).
    pub proof: bool,
    /// The threshold of every grasp line that names none (`--q1-at-least`).
    pub q1_at_least: Option<f64>,
    /// Each spatial scene's support region (not `--no-region`).
    pub support_region: bool,
}

impl Default for Asked {
    /// Each line's answer as the contract has it: no proof, no threshold, every region.
    fn default() -> Asked {
        Asked {
            proof: false,
            q1_at_least: None,
            support_region: true,
        }
    }
}

/// Where chunks come from.
enum Source {
    Json(LineReader<Box<dyn Read + Send>>),
    Parquet(ParquetGrasps),
}

/// A chunk as read: lines of text (in the spare), or Parquet rows.
enum Chunk {
    Lines(Spare),
    Rows(GraspRows, Spare),
}

/// The buffers one chunk goes through, recycled from chunk to chunk.
#[derive(Default)]
struct Spare {
    lines: LineChunk,
    text: Vec<u8>,
    /// Where the input stood once this chunk was read (bytes or rows): the progress bar's
    /// position when its answers are written.
    position: u64,
    /// This chunk is the whole input: it alone is answered on every core (see `work`).
    whole: bool,
}

/// A chunk judged: its scenes and reports (for the pictures), its output (lines in
/// `spare.text`, or a Parquet row group), and the `--backend both` disagreements,
/// (line, why).
struct Judged {
    scenes: Scenes,
    reports: Vec<Report>,
    group: Option<RowGroup>,
    disagreements: Vec<(u64, String)>,
    spare: Spare,
}

/// Where answers go: text, or a Parquet file taking encoded row groups.
enum Sink<W: Write + Send> {
    Json(W),
    Parquet(ParquetAnswers<W>),
}

/// The gate's pipeline: reports to `output` (standard output when `None`), and with
/// `pictures` one SVG per valid line (`draw` sends the reports to the null device). A
/// `.parquet` input is read as grasp rows, a `.parquet` output written as grasp answers.
pub(super) fn stream(
    path: &str,
    backend: BackendArg,
    output: Option<&str>,
    mut pictures: Option<Pictures>,
    asked: Asked,
) -> Result<(), Failure> {
    let proof = asked.proof;
    let read_failure = |e: String| Failure::new(format!("cannot read {path}: {e}"), exit::IO);
    let grasps_only = Format::of(output.unwrap_or("-"), None) == Format::Parquet;
    // A chunk written as Parquet is a row group: those keep their size.
    let lines = if grasps_only {
        pipeline::GATE_CHUNK_ROWS
    } else {
        pipeline::GATE_CHUNK_LINES
    };
    let mut source = match Format::of(path, None) {
        Format::Json => Source::Json(pipeline::line_reader(path, lines)?),
        Format::Parquet if path == "-" => {
            return Err(Failure::new(
                "Parquet input must be a file (its footer is read first), not standard input",
                exit::IO,
            ))
        }
        Format::Parquet => Source::Parquet(
            ParquetGrasps::open(path.as_ref(), pipeline::GATE_CHUNK_ROWS).map_err(read_failure)?,
        ),
    };
    if grasps_only && proof {
        return Err(Failure::new(
            "--proof writes each proof as a JSON object: write JSON Lines (-o FILE.jsonl), \
             not Parquet",
            exit::USAGE,
        ));
    }
    let engines = Engines::new(backend)?;
    let (output, sink) = Output::create(output)?;
    let mut progress = match &source {
        Source::Json(_) => {
            let size = std::fs::metadata(path).ok().filter(|m| m.is_file());
            Progress::new(size.map(|m| m.len()), "bytes")
        }
        Source::Parquet(p) => Progress::new(Some(p.total_rows()), "rows"),
    };
    let out = BufWriter::with_capacity(1 << 20, sink);
    let (mut sink, encoder): (_, Option<ParquetEncoder>) = if grasps_only {
        let id = match &source {
            Source::Parquet(p) => p.id_type(),
            Source::Json(_) => None,
        };
        let (file, encoder) = grasp_answers_file(out, id).map_err(|e| output.write_failure(e))?;
        (Sink::Parquet(file), Some(encoder))
    } else {
        (Sink::Json(out), None)
    };

    let source_total = match &source {
        Source::Parquet(p) => p.total_rows(),
        Source::Json(_) => 0,
    };
    let mut first = true;
    let read = |mut spare: Spare| -> Option<Result<Chunk, Failure>> {
        let chunk = match &mut source {
            Source::Json(lines) => match lines.next_chunk_in(std::mem::take(&mut spare.lines)) {
                Ok(chunk) => {
                    spare.lines = chunk?;
                    spare.position = lines.consumed();
                    spare.whole = first && lines.finished();
                    Ok(Chunk::Lines(spare))
                }
                Err(e) => Err(read_failure(e.to_string())),
            },
            Source::Parquet(rows) => match rows.next_rows()? {
                Ok(rows) => {
                    // The rows read so far: up to this chunk's last.
                    spare.position = rows.numbers().end - 1;
                    spare.whole = first && rows.numbers().end > source_total;
                    Ok(Chunk::Rows(rows, spare))
                }
                Err(e) => Err(read_failure(e)),
            },
        };
        first = false;
        Some(chunk)
    };

    let work = |chunk: Chunk, index: usize| -> Result<Judged, Failure> {
        let (mut scenes, mut spare) = match chunk {
            Chunk::Lines(spare) => (parse_chunk(&spare.lines, grasps_only), spare),
            Chunk::Rows(rows, spare) => (parse_rows(&rows), spare),
        };
        if let Some(t) = asked.q1_at_least {
            for s in &mut scenes.scenes {
                if let SceneLine::Grasp(g) = s {
                    g.q1_at_least.get_or_insert(t);
                }
            }
        }
        let good = &scenes.scenes;
        // On the worker's own thread, as `eval`'s are, where the input has other chunks for
        // the other workers (the reader's first chunks are of 1, 2, 4, ... lines, so a file
        // of a few lines has several): the 69 public spatial scenes on 2 cores 1.11-1.16x,
        // the public grasps 1.19x faster than on every core from every worker (2026-12-07,
        // AVX-512). On every core where one chunk is the whole input: a gate line can cost
        // milliseconds (a circular grasp's search, a large stance's region).
        let all_cores = Options {
            threads: if spare.whole {
                Threads::All
            } else {
                Threads::Current
            },
            support_region: asked.support_region,
            ..Engines::options(proof)
        };
        let reports = hold_reports(&engines.main, good, all_cores)?;
        let mut disagreements = Vec::new();
        if let Some(cpu) = &engines.check {
            let options = Options {
                support_region: asked.support_region,
                ..Engines::options(false)
            };
            let checked = hold_reports(cpu, good, options)?;
            let lines = scenes.rows.iter().zip(&scenes.numbers);
            disagreements = pipeline::disagreements(
                &reports,
                &checked,
                lines.filter_map(|(r, &n)| r.is_ok().then_some(n)),
                Report::disagreement,
            );
        }
        spare.text.clear();
        let group = match &encoder {
            None => {
                format(&scenes, &reports, &mut spare.text);
                None
            }
            Some(encoder) => {
                let group = encoder
                    .encode_grasps(index, grasp_rows(&scenes, &reports))
                    .map_err(|e| output.write_failure(e))?;
                Some(group)
            }
        };
        Ok(Judged {
            scenes,
            reports,
            group,
            disagreements,
            spare,
        })
    };

    let mut tally = pipeline::Tally::new(path);
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
        match (done.group, &mut sink) {
            (Some(group), Sink::Parquet(file)) => file.append(group),
            (None, Sink::Json(out)) => out
                .write_all(&done.spare.text)
                .and_then(|_| out.flush())
                .map_err(|e| e.to_string()),
            _ => Err("internal error: an answer encoded for the other format".into()),
        }
        .map_err(|e| output.write_failure(e))?;
        progress.set(done.spare.position);
        Ok(done.spare)
    };
    pipeline::stream(Spare::default, read, work, write)?;
    let out = match sink {
        Sink::Json(out) => out,
        Sink::Parquet(file) => file.finish().map_err(|e| output.write_failure(e))?,
    };
    output.finish(out)?;
    tally.conclude()
}

/// The chunk's output lines, appended to `text`: a report or `{"id", "line", "error"}`.
fn format(batch: &Scenes, reports: &[Report], text: &mut Vec<u8>) {
    for (row, &line) in batch.rows.iter().zip(&batch.numbers) {
        match row {
            Ok(i) => write_report(text, &reports[*i as usize]),
            Err((id, error)) => {
                let id = id.clone();
                write_line(text, &ErrorLine { id, line, error });
            }
        }
    }
}

/// The chunk's rows for a Parquet output: grasp answers, or refused rows (only grasps are
/// parsed for a Parquet output, so every report is a grasp's).
fn grasp_rows<'a>(
    batch: &'a Scenes,
    reports: &'a [Report],
) -> impl ExactSizeIterator<Item = GraspRow<'a>> + 'a {
    let rows = batch.rows.iter().zip(&batch.numbers);
    rows.map(move |(row, &line)| match row {
        Ok(i) => match &reports[*i as usize] {
            Report::Grasp(r) => GraspRow::Answered(r),
            other => GraspRow::Refused {
                id: Some(other.id()),
                line,
                error: GRASPS_ONLY,
            },
        },
        Err((id, error)) => GraspRow::Refused {
            id: id.as_ref(),
            line,
            error,
        },
    })
}
