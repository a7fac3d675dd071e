//! `planar-hold`: the command-line tool. Each command lives in `src/cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
