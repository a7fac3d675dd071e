//! Streaming in one place for `eval` and `gate`: a thread on every core (the calling one
//! among them, each kept on its core: [`super::cores`]) reads a chunk, parses, evaluates and
//! formats it (a chunk stays in that core's caches from text to answers), and writes
//! whatever is next in input order. A fixed set of recycled buffers bounds the chunks in
//! flight, so memory does not grow with the input and no chunk needs fresh memory. Also
//! where answers go (`-o`, whole or not at all).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use planar_hold::io::lines::LineReader;
use planar_hold::{Backend, Engine, Options, Threads};

use super::cores::{Core, Spread};
use super::{engine, exit, BackendArg, Failure};

/// Lines (or Parquet rows) per chunk, and the bytes of JSON text that also end a chunk.
pub(super) const CHUNK_ROWS: usize = 16_384;
/// Scenes per chunk of the gate: each has several needs and a report of about 1 KiB.
pub(super) const GATE_CHUNK_ROWS: usize = 4_096;
/// Lines per chunk of the gate's JSON Lines: a line's scene, cases, report and answer take
/// a few KiB, and a chunk of 512 keeps what a worker touches from chunk to chunk small
/// (40,000 3 × 4 grasps 1.09-1.12x faster than in chunks of 4,096, with half the page
/// faults, 2026-12-07). Where a chunk is a Parquet row group (read or written), it keeps
/// [`GATE_CHUNK_ROWS`].
pub(super) const GATE_CHUNK_LINES: usize = 512;
pub(super) const CHUNK_BYTES: usize = 4 << 20;
/// The data (uncompressed, as a file's row groups count it) that also ends a chunk of
/// Parquet rows: about what [`CHUNK_BYTES`] of JSON text hold, as numbers take 2–3 times as
/// many bytes written out. Chunks of 4 MiB decoded 1.1× slower (R⁶ cones of 128 and 256
/// generators, two cores, 2026-12-07: the decoder grows its values page by page, copying).
pub(super) const PARQUET_CHUNK_BYTES: usize = 1 << 20;

/// Chunks in flight beyond one per worker: those done but waiting for an earlier one to be
/// written.
const SPARE_CHUNKS: usize = 2;

/// A file format, from `--format`/`--output-format` or the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Format {
    /// JSON Lines: one JSON object a line (.jsonl, .json, "-").
    Json,
    /// Apache Parquet (.parquet).
    Parquet,
}

impl Format {
    /// `explicit`, else Parquet for a `.parquet`/`.pq` name, else JSON Lines.
    pub(super) fn of(path: &str, explicit: Option<Format>) -> Format {
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

/// Opens an input file for reading, or standard input for "-" (read in large blocks by
/// [`LineReader`], so unbuffered here).
pub(super) fn open_input(path: &str) -> Result<Box<dyn Read + Send>, Failure> {
    if path == "-" {
        return Ok(Box::new(std::io::stdin()));
    }
    Ok(Box::new(open_file(path)?))
}

pub(super) fn open_file(path: &str) -> Result<File, Failure> {
    File::open(path).map_err(|e| Failure::new(format!("cannot read {path}: {e}"), exit::IO))
}

/// A JSON Lines reader over `path`, `rows` lines (or [`chunk_bytes`]) per chunk.
pub(super) fn line_reader(
    path: &str,
    rows: usize,
) -> Result<LineReader<Box<dyn Read + Send>>, Failure> {
    let input = open_input(path)?;
    let size = (path != "-")
        .then(|| std::fs::metadata(path).ok())
        .flatten()
        .filter(|meta| meta.is_file())
        .map(|meta| meta.len());
    Ok(LineReader::new(input, rows, chunk_bytes(size)).with_size(size))
}

/// The bytes that end a chunk of a file of `size` bytes: [`CHUNK_BYTES`], or less where
/// that would leave fewer than [`CHUNKS_PER_WORKER`] chunks a worker. The chunks double from
/// a few lines, and the last, largest, held half of a file of some thousand grasps: one
/// worker answered it while the others waited (4,096 grasps of 3 contacts on 2 cores: 1.11–
/// 1.15× faster with this). Never below [`MIN_CHUNK_BYTES`]: a chunk's hand-offs cost
/// microseconds.
fn chunk_bytes(size: Option<u64>) -> usize {
    let workers = workers() as u64;
    size.map_or(CHUNK_BYTES, |size| {
        (size / (CHUNKS_PER_WORKER * workers)).clamp(MIN_CHUNK_BYTES as u64, CHUNK_BYTES as u64)
            as usize
    })
}

/// The pipeline's workers, one a core: rayon's count (`RAYON_NUM_THREADS` where it is a
/// positive number, else the cores this process may use), found once and without starting
/// rayon's pool, which a streaming command may never use: its threads would start, spin and
/// stop for nothing (0.4 ms of a gate of 69 scenes, 2026-12-07).
pub(super) fn workers() -> usize {
    static WORKERS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *WORKERS.get_or_init(|| {
        std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// How many chunks a worker should get of a file at least: see [`chunk_bytes`]. 16 rather
/// than 8: the last chunk, which one worker answers while the others may wait, is half as
/// large, and a chunk's text stays in its core's cache (2026-12-08, medians of interleaved
/// runs on 2 cores: 4,096 3 × 4 grasps through `gate` 1.01–1.06×, 2,000 random R⁶ cones of
/// 128 and 256 generators through `eval` 1.00–1.06×; 32 measured the same as 16).
const CHUNKS_PER_WORKER: u64 = 16;

/// The fewest bytes that end a chunk (about 4 spatial scenes or grasps, 20 cone tests): the
/// 69 public spatial scenes on 2 cores 1.04× faster than with 16 KiB (whose last chunk
/// of 30 scenes one worker answered alone), the public grasps 1.05× (2026-12-07).
const MIN_CHUNK_BYTES: usize = 2 << 10;

/// The engines a `--backend` asks for: the one whose answers are written, and for `both`
/// the CPU that checks the GPU. The workers share them by reference, each calling with
/// [`Engines::options`].
pub(super) struct Engines {
    pub main: Engine,
    pub check: Option<Engine>,
}

impl Engines {
    /// Each worker's call: on its own thread (the workers are the parallelism, and a chunk
    /// stays in its core's caches), on either backend.
    /// With `proof`, each general answer's proof too ([`Options::proof`]).
    pub(super) fn options(proof: bool) -> Options {
        Options {
            threads: Threads::Current,
            proof,
            ..Options::default()
        }
    }

    pub(super) fn new(backend: BackendArg) -> Result<Engines, Failure> {
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
pub(super) struct Output {
    name: String,
    /// (temporary, destination) of a regular file not yet renamed.
    pending: Option<(PathBuf, PathBuf)>,
}

impl Output {
    /// Opens the destination (`None` or "-": standard output).
    pub(super) fn create(output: Option<&str>) -> Result<(Output, Box<dyn Write + Send>), Failure> {
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
    pub(super) fn write_failure(&self, e: impl std::fmt::Display) -> Failure {
        Failure::new(format!("cannot write {}: {e}", self.name), exit::IO)
    }

    /// Flushes and closes `out`, this output's writer, then puts a complete file in place.
    pub(super) fn finish(self, mut out: impl Write) -> Result<(), Failure> {
        out.flush().map_err(|e| self.write_failure(e))?;
        drop(out);
        self.commit()
    }

    /// Puts a complete file in place (call once its writer is flushed and dropped).
    pub(super) fn commit(mut self) -> Result<(), Failure> {
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

/// Runs the pipeline. `read` fills a spare (one of the buffers `spare` makes, recycled) with
/// the next chunk, or returns `None` at the end; `work` turns a chunk and its index into its
/// output; `write` takes the outputs in input order and hands back a spare. The spares bound
/// the chunks in flight. The first failure, at its place in the order, ends the run:
/// everything before it is written, nothing after.
///
/// Every thread does every job: the calling thread and a helper for each further worker
/// (as many workers as rayon's threads: `RAYON_NUM_THREADS`) each read a chunk, work on it
/// (it is in that core's caches from text to answers) and write whatever is next in order,
/// one thread at a time reading and one writing. A helper that cannot start leaves its
/// share to the others. No thread waits to be woken while there is
/// work: on a 2-core VM a thread just started or woken could sit for milliseconds behind a
/// busy one while the other core idled, and a dedicated reader, writer and workers handed
/// every chunk on three times (the 69 public spatial scenes: see docs/performance.md).
pub(super) fn stream<S: Send, C: Send, O: Send>(
    spare: impl Fn() -> S,
    read: impl FnMut(S) -> Option<Result<C, Failure>> + Send,
    work: impl Fn(C, usize) -> Result<O, Failure> + Sync,
    write: impl FnMut(O) -> Result<S, Failure> + Send,
) -> Result<(), Failure> {
    let workers = workers();
    let flow = Flow {
        state: Mutex::new(State {
            spares: (0..workers + SPARE_CHUNKS).map(|_| spare()).collect(),
            done: BTreeMap::new(),
            read: 0,
            written: 0,
            reading: false,
            writing: false,
            input_over: false,
            working: 0,
            end: None,
        }),
        changed: Condvar::new(),
        read: Mutex::new(read),
        work,
        write: Mutex::new(write),
        _chunk: PhantomData,
    };
    let mut spread = Spread::new(workers);
    if let Some(spread) = &spread {
        spread.home();
    }
    std::thread::scope(|s| {
        for w in 1..workers {
            let flow = &flow;
            let helper = std::thread::Builder::new().name(format!("worker {w}"));
            let start = move |core: Option<Core>| {
                helper.spawn_scoped(s, move || {
                    if let Some(core) = core {
                        core.take();
                    }
                    flow.take_part()
                })
            };
            // Where the system refuses a thread, the others answer its share.
            let _ = match &mut spread {
                Some(spread) => spread.spawn(|core| start(Some(core))),
                None => start(None),
            };
        }
        flow.take_part();
    });
    if let Some(spread) = &spread {
        spread.release();
    }
    let end = flow
        .state
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .end;
    end.unwrap_or_else(|| Err(internal("the run ended unfinished")))
}

/// The pipeline's jobs and what its threads share.
struct Flow<S, C, O, R, W, Wr> {
    state: Mutex<State<S, O>>,
    /// Signalled when a thread may find something to do: a spare back, a read done, the end.
    changed: Condvar,
    read: Mutex<R>,
    work: W,
    write: Mutex<Wr>,
    /// The chunks `read` makes and `work` takes.
    _chunk: PhantomData<fn(C)>,
}

/// Where the run stands.
struct State<S, O> {
    /// Buffers free for the next chunk.
    spares: Vec<S>,
    /// Outputs (or failures) waiting for those before them, by chunk index.
    done: BTreeMap<usize, Result<O, Failure>>,
    /// Chunks read so far: the next one's index.
    read: usize,
    /// Chunks written so far: the index of the next to write.
    written: usize,
    /// A thread is reading, or writing (each is one thread's at a time).
    reading: bool,
    writing: bool,
    /// `read` has said the input is over (or failed).
    input_over: bool,
    /// Chunks being worked on.
    working: usize,
    /// How the run ended, once it has: every chunk read written, or the first failure.
    end: Option<Result<(), Failure>>,
}

type Guard<'a, S, O> = MutexGuard<'a, State<S, O>>;

impl<S, C, O, R, W, Wr> Flow<S, C, O, R, W, Wr>
where
    R: FnMut(S) -> Option<Result<C, Failure>>,
    W: Fn(C, usize) -> Result<O, Failure>,
    Wr: FnMut(O) -> Result<S, Failure>,
{
    /// One thread's part until the run ends: write what is next in order, else read a chunk
    /// and work on it, else wait for a change.
    fn take_part(&self) {
        let mut state = self.lock();
        loop {
            if state.end.is_some() {
                return;
            }
            if !state.writing && state.done.contains_key(&state.written) {
                state = self.write_next(state);
                continue;
            }
            if !state.reading && !state.input_over {
                if let Some(spare) = state.spares.pop() {
                    state = self.read_and_work(state, spare);
                    continue;
                }
            }
            if state.input_over && !state.reading && !state.writing && state.working == 0 {
                // Every chunk read was written, unless one was lost on the way.
                let whole = state.done.is_empty() && state.written == state.read;
                state.end = Some(
                    whole
                        .then_some(())
                        .ok_or_else(|| internal("a chunk was lost")),
                );
                self.changed.notify_all();
                return;
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Writes the outputs that are next in order, outside the lock; a failure (a chunk's,
    /// or the writer's) ends the run there.
    fn write_next<'a>(&'a self, mut state: Guard<'a, S, O>) -> Guard<'a, S, O> {
        state.writing = true;
        let first = state.written;
        let mut outputs = Vec::new();
        while let Some(output) = state.done.remove(&(first + outputs.len())) {
            outputs.push(output);
        }
        drop(state);
        let (mut freed, mut failure) = (Vec::new(), None);
        let mut write = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        for output in outputs {
            let written = output.and_then(|output| {
                catch_unwind(AssertUnwindSafe(|| write(output)))
                    .unwrap_or_else(|_| Err(internal("the writer panicked")))
            });
            match written {
                Ok(spare) => freed.push(spare),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        drop(write);
        let mut state = self.lock();
        state.writing = false;
        state.written += freed.len();
        state.spares.append(&mut freed);
        if let Some(e) = failure {
            state.end = Some(Err(e));
        }
        self.changed.notify_all();
        state
    }

    /// Reads the next chunk into `spare` and works on it, each outside the lock.
    fn read_and_work<'a>(&'a self, mut state: Guard<'a, S, O>, spare: S) -> Guard<'a, S, O> {
        state.reading = true;
        let index = state.read;
        drop(state);
        let chunk = {
            let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
            catch_unwind(AssertUnwindSafe(|| read(spare)))
                .unwrap_or_else(|_| Some(Err(internal("the reader panicked"))))
        };
        let mut state = self.lock();
        state.reading = false;
        // Another thread may read now.
        self.changed.notify_all();
        let Some(chunk) = chunk else {
            state.input_over = true;
            return state;
        };
        state.input_over |= chunk.is_err();
        state.read += 1;
        state.working += 1;
        drop(state);
        let output = catch_unwind(AssertUnwindSafe(|| {
            chunk.and_then(|chunk| (self.work)(chunk, index))
        }))
        .unwrap_or_else(|_| Err(internal("a worker panicked")));
        let mut state = self.lock();
        state.working -= 1;
        state.done.insert(index, output);
        state
    }

    fn lock(&self) -> Guard<'_, S, O> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn internal(what: &str) -> Failure {
    Failure::new(format!("internal error: {what}"), exit::ENGINE)
}

/// A progress bar on stderr that shows itself once a run has lasted a second, and only
/// when stderr is a terminal.
pub(super) struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    terminal: bool,
}

impl Progress {
    /// `total` in `unit`s ("bytes" or "rows"), when known.
    pub(super) fn new(total: Option<u64>, unit: &str) -> Progress {
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

    pub(super) fn set(&mut self, position: u64) {
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

/// `--backend both`: where the checking engine's results (`checked`) differ beyond tolerance
/// from the main engine's (`main`), as (line, why). `numbers` are the line numbers of the
/// rows `main` answers, in order.
pub(super) fn disagreements<T>(
    main: &[T],
    checked: &[T],
    numbers: impl Iterator<Item = u64>,
    differ: impl Fn(&T, &T) -> Option<String>,
) -> Vec<(u64, String)> {
    main.iter()
        .zip(checked)
        .zip(numbers)
        .filter_map(|((m, c), number)| Some((number, differ(m, c)?)))
        .collect()
}

/// The writer's account of a run: each refused line and each `--backend both` disagreement
/// named on stderr as its chunk is written (so in input order), and the counts the exit
/// status comes from.
pub(super) struct Tally<'a> {
    /// The input's name, as the messages give it.
    path: &'a str,
    refused: usize,
    disagreeing: usize,
    answered: usize,
}

impl Tally<'_> {
    pub(super) fn new(path: &str) -> Tally<'_> {
        Tally {
            path,
            refused: 0,
            disagreeing: 0,
            answered: 0,
        }
    }

    /// Line `number` was refused for `error`.
    pub(super) fn refused(&mut self, number: u64, error: &str) {
        eprintln!("planar-hold: {}:{number}: {error}", self.path);
        self.refused += 1;
    }

    /// A chunk's `--backend both` disagreements, (line, why), and its `answered` rows.
    pub(super) fn answered(&mut self, answered: usize, disagreements: &[(u64, String)]) {
        for (number, why) in disagreements {
            eprintln!("planar-hold: GPU and CPU disagree: line {number}: {why}");
        }
        self.disagreeing += disagreements.len();
        self.answered += answered;
    }

    /// The exit status once every answer is written: `--backend both` disagreements (3)
    /// first, then refused lines.
    pub(super) fn conclude(&self) -> Result<(), Failure> {
        if self.disagreeing > 0 {
            return Err(Failure::new(
                format!(
                    "{} of {} answers disagree between GPU and CPU",
                    self.disagreeing, self.answered
                ),
                exit::DISAGREE,
            ));
        }
        if self.refused > 0 {
            return Err(Failure::new(
                format!(
                    "{} bad input line(s), answered with an \"error\" field",
                    self.refused
                ),
                exit::REFUSED,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `stream` over chunks 1..=count whose work takes uneven times (so that the workers
    /// finish out of order), failing or panicking at `bad`; returns what was written.
    fn run(count: usize, bad: Option<(usize, bool)>) -> (Vec<usize>, Result<(), Failure>) {
        let (mut next, mut written) = (0, Vec::new());
        let read = |()| {
            next += 1;
            (next <= count).then_some(Ok(next))
        };
        let work = |n: usize, index: usize| {
            assert_eq!(n, index + 1, "chunks are numbered in reading order");
            std::thread::sleep(Duration::from_micros(if n.is_multiple_of(3) {
                400
            } else {
                20
            }));
            match bad {
                Some((at, true)) if at == n => panic!("chunk {n}"),
                Some((at, false)) if at == n => Err(Failure::new(format!("chunk {n}"), 9)),
                _ => Ok(n),
            }
        };
        let result = stream(
            || (),
            read,
            work,
            |n| {
                written.push(n);
                Ok(())
            },
        );
        (written, result)
    }

    #[test]
    fn outputs_come_in_input_order_and_a_failure_ends_the_run_at_its_place() {
        let (written, result) = run(300, None);
        assert!(result.is_ok());
        assert_eq!(written, (1..=300).collect::<Vec<_>>());

        let (written, result) = run(300, Some((50, false)));
        assert_eq!(result.err().map(|f| f.code), Some(9));
        assert_eq!(written, (1..50).collect::<Vec<_>>());

        let (written, result) = run(300, Some((30, true)));
        assert_eq!(result.err().map(|f| f.code), Some(exit::ENGINE));
        assert_eq!(written, (1..30).collect::<Vec<_>>());
    }

    /// Runs `stream` over chunks 1..=count where reading chunk `read_fails` and writing
    /// chunk `write_fails` fail (a panic where the flag says so); returns what was written.
    fn run_io(
        count: usize,
        read_fails: Option<(usize, bool)>,
        write_fails: Option<(usize, bool)>,
    ) -> (Vec<usize>, Result<(), Failure>) {
        let (mut next, mut written) = (0, Vec::new());
        let read = |()| {
            next += 1;
            match read_fails {
                Some((at, true)) if at == next => panic!("reading {next}"),
                Some((at, false)) if at == next => Some(Err(Failure::new("unreadable", 7))),
                _ => (next <= count).then_some(Ok(next)),
            }
        };
        let work = |n: usize, _| {
            std::thread::sleep(Duration::from_micros(if n % 4 == 1 { 300 } else { 10 }));
            Ok(n)
        };
        let write = |n: usize| {
            match write_fails {
                Some((at, true)) if at == n => panic!("writing {n}"),
                Some((at, false)) if at == n => return Err(Failure::new("disk full", 8)),
                _ => written.push(n),
            }
            Ok(())
        };
        let result = stream(|| (), read, work, write);
        (written, result)
    }

    #[test]
    fn a_read_or_write_failure_ends_the_run_at_its_place() {
        let code = |r: Result<(), Failure>| r.err().map(|f| f.code);
        let (written, result) = run_io(200, Some((77, false)), None);
        assert_eq!((written, code(result)), ((1..77).collect(), Some(7)));
        let (written, result) = run_io(200, Some((5, true)), None);
        assert_eq!(
            (written, code(result)),
            ((1..5).collect(), Some(exit::ENGINE))
        );
        let (written, result) = run_io(200, None, Some((120, false)));
        assert_eq!((written, code(result)), ((1..120).collect(), Some(8)));
        let (written, result) = run_io(200, None, Some((1, true)));
        assert_eq!((written, code(result)), (vec![], Some(exit::ENGINE)));
        // No chunk at all, and one.
        assert_eq!(run_io(0, None, None).0, Vec::<usize>::new());
        assert!(run_io(0, None, None).1.is_ok());
        assert_eq!(run_io(1, None, None).0, vec![1]);
    }

    #[test]
    fn the_workers_are_as_many_as_rayons_threads() {
        assert_eq!(workers(), rayon::current_num_threads());
    }

    #[test]
    fn a_files_chunks_are_a_share_of_it_between_the_least_and_the_most() {
        let workers = workers() as u64;
        let share = CHUNKS_PER_WORKER * workers;
        // Standard input, and any file large enough: the most.
        assert_eq!(chunk_bytes(None), CHUNK_BYTES);
        assert_eq!(
            chunk_bytes(Some(share * CHUNK_BYTES as u64 * 3)),
            CHUNK_BYTES
        );
        // A small file: the least, never 0.
        assert_eq!(chunk_bytes(Some(0)), MIN_CHUNK_BYTES);
        assert_eq!(chunk_bytes(Some(1000)), MIN_CHUNK_BYTES);
        // Between: the file's share, so every worker gets several chunks.
        let size = share * (MIN_CHUNK_BYTES as u64 * 5);
        assert_eq!(chunk_bytes(Some(size)), MIN_CHUNK_BYTES * 5);
    }
}
