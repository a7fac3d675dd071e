//! Streaming in one place for `eval` and `gate`: a reader thread (read and parse a chunk on
//! every core), the engine on the calling thread, a writer thread (format on every core and
//! write in order), joined by bounded channels so that a few chunks are in flight and memory
//! does not grow with the input. Also where answers go (`-o`, whole or not at all).

use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::sync_channel;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use planar_hold::io::lines::LineReader;
use planar_hold::{Backend, Engine};

use super::{engine, exit, BackendArg, Failure};

/// Lines (or Parquet rows) per chunk, and the bytes of JSON text that also end a chunk.
pub const CHUNK_ROWS: usize = 16_384;
/// Scenes per chunk of the gate: each has several needs and a report of about 1 KiB.
pub const GATE_CHUNK_ROWS: usize = 4_096;
pub const CHUNK_BYTES: usize = 4 << 20;

/// Chunks queued between two stages (besides the one each stage holds).
const DEPTH: usize = 1;

/// A file format, from `--format`/`--output-format` or the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// JSON Lines: one JSON object a line (.jsonl, .json, "-").
    Json,
    /// Apache Parquet (.parquet).
    Parquet,
}

impl Format {
    /// `explicit`, else Parquet for a `.parquet`/`.pq` name, else JSON Lines.
    pub fn of(path: &str, explicit: Option<Format>) -> Format {
        explicit.unwrap_or_else(|| {
            let lower = path.to_ascii_lowercase();
            if lower.ends_with(".parquet") || lower.ends_with(".pq") {
                Format::Parquet
            } else {
                Format::Json
            }
        })
    }
}

/// Opens an input file for reading, or standard input for "-".
pub fn open_input(path: &str) -> Result<Box<dyn BufRead + Send>, Failure> {
    if path == "-" {
        return Ok(Box::new(BufReader::with_capacity(
            1 << 20,
            std::io::stdin(),
        )));
    }
    let file = open_file(path)?;
    Ok(Box::new(BufReader::with_capacity(1 << 20, file)))
}

pub fn open_file(path: &str) -> Result<File, Failure> {
    File::open(path).map_err(|e| Failure::new(format!("cannot read {path}: {e}"), exit::IO))
}

/// A JSON Lines reader over `path`, `rows` lines (or [`CHUNK_BYTES`]) per chunk.
pub fn line_reader(
    path: &str,
    rows: usize,
) -> Result<LineReader<Box<dyn BufRead + Send>>, Failure> {
    Ok(LineReader::new(open_input(path)?, rows, CHUNK_BYTES))
}

/// The engines a `--backend` asks for: the one whose answers are written, and for `both`
/// the CPU that checks the GPU.
pub struct Engines {
    pub main: Engine,
    pub check: Option<Engine>,
}

impl Engines {
    pub fn new(backend: BackendArg) -> Result<Engines, Failure> {
        Ok(match backend {
            BackendArg::Cpu => Engines {
                main: engine(Backend::Cpu)?,
                check: None,
            },
            BackendArg::Gpu => Engines {
                main: engine(Backend::Gpu)?,
                check: None,
            },
            BackendArg::Both => Engines {
                main: engine(Backend::Gpu)?,
                check: Some(engine(Backend::Cpu)?),
            },
        })
    }
}

/// Where answers go: standard output, a regular file written beside its destination and
/// renamed into place when complete (whole or absent), or a device/pipe written in place.
pub struct Output {
    name: String,
    /// (temporary, destination) of a regular file not yet renamed.
    pending: Option<(PathBuf, PathBuf)>,
}

impl Output {
    /// Opens the destination (`None` or "-": standard output).
    pub fn create(output: Option<&str>) -> Result<(Output, Box<dyn Write + Send>), Failure> {
        let path = match output {
            None | Some("-") => {
                let out = Output {
                    name: "standard output".into(),
                    pending: None,
                };
                return Ok((out, Box::new(std::io::stdout())));
            }
            Some(p) => p,
        };
        let fail = |e: std::io::Error| Failure::new(format!("cannot write {path}: {e}"), exit::IO);
        // Only a regular file (or a new one) is written aside and renamed into place: a
        // device, pipe or symlink such as /dev/null is written as it is, never replaced.
        let regular = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta.file_type().is_file(),
            Err(_) => true,
        };
        let mut out = Output {
            name: path.to_string(),
            pending: None,
        };
        let file = if regular {
            let tmp = PathBuf::from(format!("{path}.partial"));
            let file = File::create(&tmp).map_err(fail)?;
            out.pending = Some((tmp, PathBuf::from(path)));
            file
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(fail)?
        };
        Ok((out, Box::new(file)))
    }

    /// The failure of a write to this output.
    pub fn write_failure(&self, e: impl std::fmt::Display) -> Failure {
        Failure::new(format!("cannot write {}: {e}", self.name), exit::IO)
    }

    /// Puts a complete file in place (call once its writer is flushed and dropped).
    pub fn commit(mut self) -> Result<(), Failure> {
        if let Some((tmp, dest)) = self.pending.take() {
            if let Err(e) = std::fs::rename(&tmp, &dest) {
                let _ = std::fs::remove_file(&tmp);
                return Err(self.write_failure(e));
            }
        }
        Ok(())
    }
}

impl Drop for Output {
    /// An output never committed leaves nothing behind.
    fn drop(&mut self) {
        if let Some((tmp, _)) = self.pending.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Runs the pipeline: `read` on a reader thread until it returns `None`, `evaluate` on
/// this thread, `write` on a writer thread, each chunk in input order. The first failure
/// of any stage stops the others and is returned.
pub fn stream<B: Send, R: Send>(
    mut read: impl FnMut() -> Option<Result<B, Failure>> + Send,
    mut evaluate: impl FnMut(&B) -> Result<R, Failure>,
    mut write: impl FnMut(B, R) -> Result<(), Failure> + Send,
) -> Result<(), Failure> {
    std::thread::scope(|s| {
        let (to_engine, from_reader) = sync_channel::<Result<B, Failure>>(DEPTH);
        let (to_writer, from_engine) = sync_channel::<(B, R)>(DEPTH);
        let reader = s.spawn(move || {
            while let Some(batch) = read() {
                let failed = batch.is_err();
                if to_engine.send(batch).is_err() || failed {
                    break;
                }
            }
        });
        let writer = s.spawn(move || -> Result<(), Failure> {
            for (batch, result) in from_engine {
                write(batch, result)?;
            }
            Ok(())
        });
        let mut outcome = Ok(());
        for batch in from_reader {
            match batch.and_then(|b| evaluate(&b).map(|r| (b, r))) {
                Ok(done) => {
                    if to_writer.send(done).is_err() {
                        break; // the writer failed: its error is returned below
                    }
                }
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        drop(to_writer);
        let written = writer.join().unwrap_or_else(|_| {
            Err(Failure::new(
                "internal error: the writer thread panicked",
                exit::ENGINE,
            ))
        });
        if reader.join().is_err() {
            return Err(Failure::new(
                "internal error: the reader thread panicked",
                exit::ENGINE,
            ));
        }
        outcome.and(written)
    })
}

/// A progress bar on stderr that shows itself once a run has lasted a second, and only
/// when stderr is a terminal.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    terminal: bool,
}

impl Progress {
    /// `total` in `unit`s ("bytes" or "rows"), when known.
    pub fn new(total: Option<u64>, unit: &str) -> Progress {
        let bar = match total {
            Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::hidden()),
            None => ProgressBar::hidden(),
        };
        let template = match (total, unit) {
            (Some(_), "bytes") => "{elapsed} [{bar:30}] {bytes}/{total_bytes} ({eta} left)",
            (Some(_), _) => "{elapsed} [{bar:30}] {human_pos}/{human_len} rows ({eta} left)",
            (None, _) => "{elapsed} {spinner} {human_pos} lines",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    pub fn set(&mut self, position: u64) {
        if !self.shown && self.terminal && self.start.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_position(position);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The exit status once every answer is written: `--backend both` disagreements (3)
/// first, then refused lines (named on stderr as they were written).
pub fn conclude(disagreeing: usize, refused: usize, total: usize) -> Result<(), Failure> {
    if disagreeing > 0 {
        return Err(Failure::new(
            format!("{disagreeing} of {total} answers disagree between GPU and CPU"),
            exit::DISAGREE,
        ));
    }
    if refused > 0 {
        return Err(Failure::new(
            format!("{refused} bad input line(s), answered with an \"error\" field"),
            exit::REFUSED,
        ));
    }
    Ok(())
}
