//! Shared by the integration tests: engines on every backend, the public data, comparisons.
#![allow(dead_code)]

use std::path::PathBuf;

use planar_hold::{Backend, Engine};

/// The GPU engine on the adapter the environment selects. Without one the test skips with
/// a notice, unless `PLANAR_HOLD_REQUIRE_GPU` is set (as in CI), where it fails instead.
pub fn gpu_engine() -> Option<Engine> {
    gpu_or_skip(Engine::new(Backend::Gpu))
}

/// `Some` of a GPU object, or a skip notice (a panic under `PLANAR_HOLD_REQUIRE_GPU`).
pub fn gpu_or_skip<T>(made: Result<T, planar_hold::Error>) -> Option<T> {
    match made {
        Ok(e) => Some(e),
        Err(e) if std::env::var_os("PLANAR_HOLD_REQUIRE_GPU").is_some() => {
            panic!("PLANAR_HOLD_REQUIRE_GPU is set but the GPU engine failed: {e}")
        }
        Err(e) => {
            eprintln!("NOTICE: GPU test skipped, no adapter ({e}); set PLANAR_HOLD_REQUIRE_GPU to fail instead");
            None
        }
    }
}

/// Every engine this machine has: the CPU always, the GPU where an adapter exists.
pub fn engines() -> Vec<(&'static str, Engine)> {
    let mut all = vec![("cpu", Engine::new(Backend::Cpu).expect("cpu engine"))];
    if let Some(gpu) = gpu_engine() {
        all.push(("gpu", gpu));
    }
    all
}

/// `../shared/` beside the repository (CI lays a copy there), or `$PLANAR_HOLD_SHARED`.
pub fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PLANAR_HOLD_SHARED") {
        return PathBuf::from(dir);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    assert!(
        dir.join("cases").is_dir(),
        "no shared data at {} (set PLANAR_HOLD_SHARED)",
        dir.display()
    );
    dir
}

/// The CLI binary built with the tests.
pub fn cli() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_planar-hold"))
}
