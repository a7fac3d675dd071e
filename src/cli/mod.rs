//! Command-line interface: argument parsing here, one module per command, the streaming
//! pipeline of `eval` and `gate` (and where answers go) in `pipeline`.

mod bench;
mod bench_general;
mod bench_grasps;
mod bench_input;
mod bench_spatial;
mod check_proof;
mod cores;
mod demo;
mod draw;
mod draw_answers;
mod eval;
mod gate;
mod info;
mod machine;
mod pictures;
mod pipeline;
mod quiet;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use planar_hold::{Backend, Engine, Error};

/// Exit statuses, one meaning each (also in `--help` and docs/cli.md).
pub(crate) mod exit {
    /// The engine failed: no GPU adapter, device lost, out of memory (or an internal error).
    pub(crate) const ENGINE: u8 = 1;
    /// The command line (clap's own status) or `PLANAR_HOLD_SIMD` was not understood.
    pub(crate) const USAGE: u8 = 2;
    /// `--backend both`: some answers differ between GPU and CPU (all written).
    pub(crate) const DISAGREE: u8 = 3;
    /// Nothing could be read or written: missing input, bad path, unwritable output,
    /// unreadable Parquet, an input with no case to time.
    pub(crate) const IO: u8 = 4;
    /// Some input lines or rows were refused (answered with an "error"), the rest answered.
    pub(crate) const REFUSED: u8 = 5;
    /// `check-proof`: some proof did not pass.
    pub(crate) const PROOF: u8 = 6;
}

const EXIT_STATUSES: &str = "Exit status: 0 every line answered; 1 the engine failed (no GPU \
adapter, device lost, out of memory); 2 usage error (or a bad PLANAR_HOLD_SIMD); 3 --backend \
both: GPU and CPU disagree (all answers written); 4 nothing could be read or written \
(missing file, bad path, unwritable output, unreadable Parquet); 5 some lines or rows refused (answered in place with an \"error\" field), the rest answered; 6 check-proof: some proof failed.";

#[derive(Parser)]
#[command(
    name = "planar-hold",
    version,
    about = "Can planar frictional contacts hold a rigid box? Exact, batched, GPU or CPU.",
    after_help = EXIT_STATUSES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Cone tests, streamed from JSON Lines or Parquet to either:
    /// {"id", "generators": [[fx, fz, m], ...], "need": [x, y, z]}
    #[command(after_help = EXIT_STATUSES)]
    Eval(eval::Args),
    /// Hold gate over scenes and edits from JSON Lines (docs/contract-planar.md §8–§9), one line per scene or edit;
    /// grasps (docs/contract-grasp.md) also as Parquet rows in, and their answers as Parquet out.
    #[command(after_help = EXIT_STATUSES)]
    Gate(gate::Args),
    /// One SVG picture per scene or edit line: the scene with its forces or failure, and
    /// the wrench cone's slice with the needs. Writes DIR/<id>.svg.
    #[command(after_help = EXIT_STATUSES)]
    ///
    /// With --answers: one picture of a data set instead, from `gate`'s grasp answers.
    Draw {
        /// Input file, one scene or edit a line ("-" for standard input).
        #[arg(required_unless_present = "answers")]
        scenes: Option<String>,
        /// Directory for the pictures (created if missing); with --answers, the SVG file.
        #[arg(short, long, value_name = "DIR")]
        output: String,
        /// gpu or cpu.
        #[arg(long, value_enum, default_value_t = BackendArg::Gpu)]
        backend: BackendArg,
        /// Grasp answers of `gate` (JSON Lines or Parquet, one file or more): one picture of
        /// the data set, the distribution of q1 and its force-closure share, and how q1
        /// moves between two series answering the same ids (a "coulomb" file's inner and
        /// outer pyramids, or two files).
        #[arg(long, num_args = 1.., value_name = "FILE", conflicts_with = "scenes")]
        answers: Vec<String>,
    },
    /// The docs/contract-planar.md §6 reference scenes, two spatial scenes and a grasp through
    /// the gate, then a random batch on the GPU and the CPU.
    Demo {
        /// Cases in the random batch.
        #[arg(long, default_value_t = 100_000)]
        cases: usize,
        /// Backends to run (`both`: the CPU, and the GPU when an adapter is found).
        #[arg(long, value_enum, default_value_t = BackendArg::Both)]
        backend: BackendArg,
    },
    /// The adapters found and the limits that bound a batch.
    Info {
        /// `cpu`: the CPU alone, without looking for adapters.
        #[arg(long, value_enum, default_value_t = BackendArg::Both)]
        backend: BackendArg,
    },
    /// Cases/s, µs per case and latency of each backend at batch sizes 256, 65,536 and N.
    Bench(bench::Args),
    /// Checks each answer's proof (written with `--proof`) against its case: determinants
    /// and dot products only (docs/proof.md). Prints the lines that fail.
    #[command(after_help = EXIT_STATUSES)]
    CheckProof(check_proof::Args),
}

/// Which engine(s) a command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum BackendArg {
    Gpu,
    Cpu,
    /// Both: the GPU's answers are written, every disagreement is reported.
    Both,
}

/// A command's failure: the message for stderr and the exit status.
pub(crate) struct Failure {
    pub message: String,
    pub code: u8,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure {
            message: e.to_string(),
            code: exit::ENGINE,
        }
    }
}

/// A failed write to standard output (`demo`, `info`, `bench`); a closed pipe is told
/// apart by [`run`], which ends quietly on it.
impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        let code = if e.kind() == std::io::ErrorKind::BrokenPipe {
            0
        } else {
            exit::IO
        };
        Failure {
            message: format!("cannot write standard output: {e}"),
            code,
        }
    }
}

impl Failure {
    pub(crate) fn new(message: impl Into<String>, code: u8) -> Failure {
        Failure {
            message: message.into(),
            code,
        }
    }
}

pub(crate) fn engine(backend: Backend) -> Result<Engine, Failure> {
    Engine::new(backend).map_err(Failure::from)
}

pub(crate) fn run() -> ExitCode {
    // Before any thread or adapter exists: see `quiet`.
    quiet::runtime_dir_for_headless_drivers();
    let cli = Cli::parse();
    // A misspelt or unsupported PLANAR_HOLD_SIMD stops every command before any work.
    let result = planar_hold::details::Simd::from_env()
        .map_err(|e| Failure::new(e, exit::USAGE))
        .and_then(|_| command(cli.command));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`| head`): nothing more to say to it.
        Err(f) if f.code == 0 => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("planar-hold: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn command(command: Command) -> Result<(), Failure> {
    match command {
        Command::Eval(args) => eval::run(args),
        Command::CheckProof(args) => check_proof::run(args),
        Command::Gate(args) => gate::run(args),
        Command::Draw {
            scenes,
            output,
            backend,
            answers,
        } => match scenes {
            Some(scenes) => draw::run(&scenes, backend, &output),
            None => draw_answers::run(&answers, &output),
        },
        Command::Demo { cases, backend } => demo::run(cases, backend),
        Command::Info { backend } => info::run(backend),
        Command::Bench(args) => bench::run(args),
    }
}
