//! `planar-hold bench --grasps FILE`: what `gate` spends on a file of grasps (JSON Lines or
//! Parquet) around the engine, stage by stage on one core, and the engine's own time on the
//! first grasps: the ceiling the pipeline puts on `gate` once the engine is fast, and its
//! share of a grasp's time today.
//!
//! The stages, as `gate` runs them: **read** (one worker at a time: Parquet pages decoded into
//! Arrow columns, or JSON text split into lines), **parse** (a worker: rows or lines into
//! checked grasps), **engine** (the gate on one thread: the grasps' wrenches into the
//! engine's batch, answered, judged into reports), **answers** (the reports as a Parquet row
//! group, encoded and compressed, and as JSON Lines). Each format stage is timed over the
//! first `--cases` rows (at most 65,536), best of three; the engine over the first grasps
//! until about two seconds have passed, and its reports, repeated, are what the answer
//! stages encode. Times are the thread's own time on a core (Linux), so a
//! machine busy with other work does not inflate them.

use std::time::{Duration, Instant};

use planar_hold::details::Simd;
use planar_hold::io::lines::LineChunk;
use planar_hold::io::parquet::{grasp_answers_file, GraspRow, GraspRows, ParquetGrasps};
use planar_hold::io::write_report;
use planar_hold::{hold_reports, parse_line, Report, SceneLine};
use planar_hold::{Engine, Options, Threads};
use serde::Serialize;
use serde_json::json;

use super::pipeline::{self, Format, GATE_CHUNK_ROWS};
use super::{exit, Failure};

/// A clock of this thread's own time on a core: the scheduler's account of it where Linux
/// keeps one (so that a machine shared with other work does not inflate a stage), else the
/// wall clock.
struct Clock {
    wall: Instant,
    cpu: Option<f64>,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: thread_cpu_seconds(),
        }
    }

    fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu_seconds()) {
            (Some(a), Some(b)) => Duration::from_secs_f64((b - a).max(0.0)),
            _ => self.wall.elapsed(),
        }
    }
}

/// The calling thread's time on a core so far, in seconds (Linux: the first field of
/// /proc/thread-self/schedstat, in nanoseconds).
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}

/// Rows timed for the format stages (best of three runs).
const SAMPLE: usize = 65_536;

/// About how long the engine's sample runs.
const ENGINE_SECONDS: f64 = 2.0;

/// Microseconds a grasp, per core, of each stage.
#[derive(Serialize)]
struct Stages {
    read: f64,
    parse: f64,
    engine: f64,
    answers_parquet: f64,
    answers_json: f64,
}

/// The chunks of a file as read, before parsing.
enum Chunks {
    Rows(Vec<GraspRows>),
    Lines(Vec<LineChunk>),
}

/// Reads the first `limit` rows of `path` in `gate`'s chunks: the chunks and the time.
fn read(path: &str, format: Format, limit: usize) -> Result<(Chunks, Duration), Failure> {
    let failure = |e: String| Failure::new(format!("cannot read {path}: {e}"), exit::IO);
    let start = Clock::start();
    let mut n = 0;
    let chunks = match format {
        Format::Parquet => {
            let mut file = ParquetGrasps::open(path.as_ref(), GATE_CHUNK_ROWS).map_err(failure)?;
            let mut chunks = Vec::new();
            while n < limit {
                let Some(rows) = file.next_rows() else { break };
                let rows = rows.map_err(failure)?;
                n += rows.numbers().count();
                chunks.push(rows);
            }
            Chunks::Rows(chunks)
        }
        Format::Json => {
            let mut lines = pipeline::line_reader(path, GATE_CHUNK_ROWS)?;
            let mut chunks = Vec::new();
            while n < limit {
                let Some(chunk) = lines.next_chunk().map_err(|e| failure(e.to_string()))? else {
                    break;
                };
                n += chunk.lines.len();
                chunks.push(chunk);
            }
            Chunks::Lines(chunks)
        }
    };
    Ok((chunks, start.elapsed()))
}

/// The chunks' grasps (the refused rows left out) and how many were refused.
fn parse(chunks: &Chunks) -> (Vec<SceneLine>, usize) {
    let (mut grasps, mut refused) = (Vec::new(), 0);
    let mut keep = |g: Result<SceneLine, ()>| match g {
        Ok(g @ SceneLine::Grasp(_)) => grasps.push(g),
        _ => refused += 1,
    };
    match chunks {
        Chunks::Rows(chunks) => {
            for rows in chunks {
                for g in rows.grasps() {
                    keep(g.map(SceneLine::Grasp).map_err(|_| ()));
                }
            }
        }
        Chunks::Lines(chunks) => {
            for chunk in chunks {
                for k in 0..chunk.lines.len() {
                    let text = std::str::from_utf8(chunk.text(k)).map_err(|_| ());
                    keep(text.and_then(|t| parse_line(t).map_err(|_| ())));
                }
            }
        }
    }
    (grasps, refused)
}

/// The best of three timings of `f`, in seconds.
fn best(mut f: impl FnMut() -> Result<Duration, Failure>) -> Result<f64, Failure> {
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        best = best.min(f()?.as_secs_f64());
    }
    Ok(best)
}

pub(super) fn run(
    path: &str,
    format: Option<Format>,
    cases: usize,
    json: bool,
) -> Result<(), Failure> {
    let format = Format::of(path, format);
    let limit = cases.clamp(1, SAMPLE);
    let cores = rayon::current_num_threads();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Failure::new(e.to_string(), exit::ENGINE))?;
    one.install(|| -> Result<(), Failure> {
        let (chunks, _) = read(path, format, limit)?;
        let (grasps, refused) = parse(&chunks);
        let n = grasps.len() + refused;
        if grasps.is_empty() {
            return Err(Failure::new(format!("{path}: no grasp to time"), exit::IO));
        }
        let per_grasp = |seconds: f64, count: usize| 1e6 * seconds / count.max(1) as f64;
        let read_s = best(|| read(path, format, limit).map(|(_, t)| t))?;
        let parse_s = best(|| {
            let start = Clock::start();
            std::hint::black_box(parse(&chunks));
            Ok(start.elapsed())
        })?;
        // The engine on the first grasps, as gate's workers run it (one thread each), a
        // doubling sample until the time is up.
        let (mut reports, mut engine_s, mut take) = (Vec::new(), 0.0, 16);
        let engine = Engine::cpu();
        let options = Options {
            threads: Threads::Current,
            ..Options::default()
        };
        while engine_s < ENGINE_SECONDS && reports.len() < grasps.len() {
            let part = &grasps[reports.len()..grasps.len().min(reports.len() + take)];
            let start = Clock::start();
            reports.extend(hold_reports(&engine, part, options)?);
            engine_s += start.elapsed().as_secs_f64();
            take *= 2;
        }
        let engine_us = per_grasp(engine_s, reports.len());
        let answered: Vec<&Report> = (0..grasps.len())
            .map(|i| &reports[i % reports.len()])
            .collect();
        let id = match format {
            Format::Parquet => ParquetGrasps::open(path.as_ref(), 1)
                .map_err(|e| Failure::new(e, exit::IO))?
                .id_type()
                .cloned(),
            Format::Json => None,
        };
        let parquet_s = best(|| {
            let fail = |e: String| Failure::new(e, exit::ENGINE);
            let (mut file, encoder) = grasp_answers_file(Vec::new(), id.as_ref()).map_err(fail)?;
            let start = Clock::start();
            for (index, part) in answered.chunks(GATE_CHUNK_ROWS).enumerate() {
                let rows = part.iter().map(|r| match r {
                    Report::Grasp(g) => GraspRow::Answered(g),
                    _ => unreachable!("only grasps are timed"),
                });
                file.append(encoder.encode_grasps(index, rows).map_err(fail)?)
                    .map_err(fail)?;
            }
            std::hint::black_box(file.finish().map_err(fail)?);
            Ok(start.elapsed())
        })?;
        let json_s = best(|| {
            let mut text = Vec::with_capacity(1 << 20);
            let start = Clock::start();
            for part in answered.chunks(GATE_CHUNK_ROWS) {
                text.clear();
                for r in part {
                    write_report(&mut text, r);
                }
                std::hint::black_box(&text);
            }
            Ok(start.elapsed())
        })?;
        let g = grasps.len();
        let stages = Stages {
            read: per_grasp(read_s, n),
            parse: per_grasp(parse_s, n),
            engine: engine_us,
            answers_parquet: per_grasp(parquet_s, g),
            answers_json: per_grasp(json_s, g),
        };
        print(
            path,
            format,
            (n, refused),
            (reports.len(), cores),
            &stages,
            json,
        );
        Ok(())
    })
}

/// The stages' lines: rows timed and refused, grasps the engine answered and the cores
/// `gate` would run on.
fn print(
    path: &str,
    format: Format,
    (rows, refused): (usize, usize),
    (engine_sample, cores): (usize, usize),
    s: &Stages,
    json: bool,
) {
    let simd = Simd::chosen().name();
    let answers = match format {
        Format::Parquet => s.answers_parquet,
        Format::Json => s.answers_json,
    };
    // A worker's time a grasp around the engine (its reads included); the reads, one worker
    // at a time, bound the rate on any number of cores.
    let around = s.read + s.parse + answers;
    let ceiling = (cores as f64 * 1e6 / around).min(1e6 / s.read);
    let today = (cores as f64 * 1e6 / (around + s.engine)).min(1e6 / s.read);
    let format_name = match format {
        Format::Parquet => "parquet",
        Format::Json => "json",
    };
    println!(
        "grasps {path}: {rows} rows timed ({refused} refused), format {format_name}, \
         instruction set {simd}"
    );
    println!(
        "  per core, µs a grasp: read {:.2}, parse {:.2}, answers {:.2} (Parquet) / {:.2} \
         (JSON Lines)",
        s.read, s.parse, s.answers_parquet, s.answers_json
    );
    println!(
        "  engine, one core, first {engine_sample} grasps: {:.1} µs a grasp ({:.0} grasps/s)",
        s.engine,
        1e6 / s.engine
    );
    println!(
        "  gate on {cores} cores, {format_name} out: at most {today:.0} grasps/s with this \
         engine ({:.2} % of a grasp's time around it); with a free engine, {ceiling:.0} \
         grasps/s (the pipeline's ceiling)",
        100.0 * around / (around + s.engine)
    );
    if json {
        let line = json!({
            "path": path,
            "format": format_name,
            "rows": rows,
            "refused": refused,
            "engine_sample": engine_sample,
            "us_per_grasp": s,
            "cores": cores,
            "simd": simd,
            "grasps_per_s_today": today,
            "grasps_per_s_ceiling": ceiling,
        });
        println!("{line}");
    }
}
