//! Shared by the integration tests: engines on every backend, the public data, comparisons.
#![allow(dead_code)]

pub mod grade;
pub mod grade_grasp;

use std::path::PathBuf;

use planar_hold::{Backend, Batch, Case, Engine, Options, Outcome};
use planar_hold::{GeneralBatch, GeneralOutcome};
use planar_hold::{HoldReport, Report, Scene};

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

/// The planar cases' outcomes from `engine` (one [`Engine::evaluate`] call).
pub fn planar_outcomes(engine: &Engine, cases: &[Case]) -> Vec<Outcome> {
    let answers = engine.evaluate(&Batch::from(cases), Options::default());
    answers.expect("the engine answers").planar
}

/// The reports of planar scenes, through the gate ([`planar_hold::hold_reports`]).
pub fn planar_reports(
    engine: &Engine,
    scenes: &[Scene],
    options: Options,
) -> Result<Vec<HoldReport>, planar_hold::Error> {
    let reports = planar_hold::hold_reports(engine, scenes, options)?;
    Ok(reports
        .into_iter()
        .filter_map(|r| match r {
            Report::Planar(r) => Some(r),
            Report::Spatial(_) | Report::Grasp(_) => None,
        })
        .collect())
}

/// The general cases' outcomes from `engine` with `options`, and how many the host
/// re-solved (one [`Engine::evaluate`] call).
pub fn general_outcomes(
    engine: &Engine,
    batch: &GeneralBatch,
    options: Options,
) -> (Vec<GeneralOutcome>, usize) {
    let answers = engine.evaluate(&Batch::from(batch.clone()), options);
    let answers = answers.expect("the engine answers");
    (answers.general, answers.resolved)
}

/// The public cases and their expected answers, in the repository: `tests/data/`.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// `tests/data/NAME`; a file missing there is looked for in `$PLANAR_HOLD_SHARED/cases/`,
/// an optional extra source (another copy of the public sets), never a requirement.
pub fn data(name: &str) -> PathBuf {
    let here = data_dir().join(name);
    if !here.exists() {
        if let Some(dir) = std::env::var_os("PLANAR_HOLD_SHARED") {
            let there = PathBuf::from(dir).join("cases").join(name);
            if there.exists() {
                return there;
            }
        }
    }
    assert!(
        here.exists(),
        "{} is missing from the repository",
        here.display()
    );
    here
}

/// The lines of a JSON Lines file in `tests/data/`, parsed.
pub fn read_data(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(data(name)).expect("a readable data file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The CLI binary built with the tests.
pub fn cli() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_planar-hold"))
}

/// `gate --backend cpu --proof` on `lines` (JSON Lines, one a line), which must succeed, and
/// `check-proof --require` on its answers, which must pass: the answers, parsed. `name` keeps
/// the temporary files of concurrent tests apart.
pub fn gate_with_checked_proofs(name: &str, lines: &[String]) -> Vec<serde_json::Value> {
    let dir = std::env::temp_dir().join(format!("planar-hold-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let (cases, answers) = (dir.join("cases.jsonl"), dir.join("answers.jsonl"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&cases, text).expect("the cases written");
    let mut gate = cli();
    gate.arg("gate").arg(&cases);
    gate.args(["--backend", "cpu", "--proof", "-o"])
        .arg(&answers);
    let run = gate.output().expect("the CLI runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let check = cli()
        .args(["check-proof", "--require"])
        .arg(&cases)
        .arg(&answers)
        .output()
        .expect("the CLI runs");
    let text = std::fs::read_to_string(&answers).expect("the answers written");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// `planar-hold ARGS…`, which must succeed: its standard output (its standard error in the
/// failure's message).
pub fn cli_ok<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> String {
    let out = cli().args(args).output().expect("the CLI runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the CLI writes UTF-8")
}
