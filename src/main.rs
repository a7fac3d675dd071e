//! `planar-hold`: the command-line tool. Each command lives in `src/cli/`.

mod cli;

/// Keeps freed chunk buffers for the next chunk instead of handing them back to the kernel.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}
