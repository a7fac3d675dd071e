//! `planar-hold`: the command-line tool. Each command lives in `src/cli/`.

#![warn(unreachable_pub)]

mod cli;

/// Keeps freed chunk buffers for the next chunk instead of handing them back to the kernel.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` of the `mimalloc.h` libmimalloc-sys builds (mimalloc 3; the
/// crate names no constant for it): the milliseconds before freed memory goes back to the
/// kernel.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> std::process::ExitCode {
    // The pipeline frees and reallocates the same few chunks' worth of memory all run long
    // (the Parquet reader's and writer's buffers are made anew for every chunk, one every
    // few milliseconds): purged after mimalloc's default 10 ms, it was faulted and zeroed in
    // again, about 10 % of the CPU time of `eval` Parquet -> Parquet. After a second, memory
    // the chunks no longer use still goes back (never purging let 4·10⁶ rows peak at
    // 121 MiB instead of 101).
    // SAFETY: sets an option before any thread exists; mimalloc reads it when it purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 1000) };
    cli::run()
}
