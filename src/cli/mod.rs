//! Command-line interface: argument parsing here, one module per command, JSON Lines I/O in `io`.

mod bench;
mod demo;
mod eval;
mod gate;
mod info;
mod io;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use planar_hold::{Backend, Engine, Error};

#[derive(Parser)]
#[command(
    name = "planar-hold",
    version,
    about = "Can planar frictional contacts hold a rigid box? Exact, batched, GPU or CPU."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Cone tests from JSON Lines: {"id", "generators": [[fx, fz, m], ...], "need": [x, y, z]}
    Eval {
        /// Input file, one case a line ("-" for standard input).
        cases: String,
        #[arg(long, value_enum, default_value_t = BackendArg::Gpu)]
        backend: BackendArg,
        /// Output file (default: standard output); written whole or not at all.
        #[arg(short, long)]
        output: Option<String>,
    },
    /// Hold gate over scenes and edits from JSON Lines (SPEC §8–9), one line per scene or edit.
    Gate {
        /// Input file, one scene or edit a line ("-" for standard input).
        scenes: String,
        #[arg(long, value_enum, default_value_t = BackendArg::Gpu)]
        backend: BackendArg,
        /// Output file (default: standard output); written whole or not at all.
        #[arg(short, long)]
        output: Option<String>,
    },
    /// The SPEC §6 reference scenes, then a random batch on the GPU and the CPU.
    Demo {
        /// Cases in the random batch.
        #[arg(long, default_value_t = 100_000)]
        cases: usize,
    },
    /// The adapters found and the limits that bound a batch.
    Info,
    /// Cases/s, µs per case and latency of each backend at batch sizes 256, 65,536 and N.
    Bench(bench::Args),
}

/// Which engine(s) a command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Gpu,
    Cpu,
    /// Both: the GPU's answers are written, every disagreement is reported.
    Both,
}

/// A command's failure: the message for stderr and the exit status.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure {
            message: e.to_string(),
            code: 1,
        }
    }
}

impl Failure {
    pub fn new(message: impl Into<String>, code: u8) -> Failure {
        Failure {
            message: message.into(),
            code,
        }
    }
}

pub fn engine(backend: Backend) -> Result<Engine, Failure> {
    Engine::new(backend).map_err(Failure::from)
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    // A misspelt or unsupported PLANAR_HOLD_SIMD stops every command before any work.
    let result = planar_hold::cpu::Simd::from_env()
        .map_err(|e| Failure::new(e, 2))
        .and_then(|_| command(cli.command));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("planar-hold: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn command(command: Command) -> Result<(), Failure> {
    match command {
        Command::Eval {
            cases,
            backend,
            output,
        } => eval::run(&cases, backend, output.as_deref()),
        Command::Gate {
            scenes,
            backend,
            output,
        } => gate::run(&scenes, backend, output.as_deref()),
        Command::Demo { cases } => demo::run(cases),
        Command::Info => info::run(),
        Command::Bench(args) => bench::run(args),
    }
}
