//! The general rows of a chunk (docs/contract-general.md) through the engine `--backend` asks for:
//! on the GPU the float32 search runs on the device (taken in turn, as for planar rows) and
//! this worker finishes its chunk's cases in float64 from the passive sets found; with
//! `--backend both` the CPU's answers are compared with them. Counts what the host had to
//! re-solve, for the one line a run ends with.

use std::sync::atomic::{AtomicUsize, Ordering};

use planar_hold::general::host::finish_serial;
use planar_hold::general::{solver, GeneralOutcome};
use planar_hold::io::{CaseBatch, RowCase};
use planar_hold::Engine;

use super::pipeline::{Engines, SharedEngine};
use super::Failure;

/// General cases answered on the GPU over a run, and how many of them the host re-solved.
#[derive(Default)]
pub struct GeneralCount {
    cases: AtomicUsize,
    resolved: AtomicUsize,
}

impl GeneralCount {
    /// The line a GPU run with general cases ends with, on stderr.
    pub fn report(&self) {
        let cases = self.cases.load(Ordering::Relaxed);
        if cases > 0 {
            eprintln!(
                "planar-hold: general cases: {cases} on the GPU, {} re-solved on the host",
                self.resolved.load(Ordering::Relaxed)
            );
        }
    }
}

/// Fills `batch.general_outcomes`; returns the (line, why) of every general row where GPU
/// and CPU disagree (`--backend both`).
pub fn solve(
    engines: &Engines,
    batch: &mut CaseBatch,
    count: &GeneralCount,
) -> Result<Vec<(u64, String)>, Failure> {
    if batch.general.is_empty() || matches!(engines.main, SharedEngine::Cpu) {
        batch.solve_general();
        return Ok(Vec::new());
    }
    let mut hints = Vec::new();
    engines.main.with(|engine| match engine {
        Engine::Gpu(gpu) => gpu.general_hints_into(&batch.general, &mut hints),
        Engine::Cpu => unreachable!("a shared CPU engine is SharedEngine::Cpu"),
    })?;
    let n = batch.general.len();
    batch.general_outcomes.clear();
    batch.general_outcomes.resize(n, GeneralOutcome::default());
    let stats = finish_serial(&batch.general, &hints, &mut batch.general_outcomes);
    count.cases.fetch_add(stats.cases, Ordering::Relaxed);
    count.resolved.fetch_add(stats.resolved, Ordering::Relaxed);
    let mut disagreements = Vec::new();
    if engines.check.is_some() {
        let mut checked = vec![GeneralOutcome::default(); n];
        solver::solve_batch_serial(&batch.general, &mut checked);
        for (row, &number) in batch.rows.iter().zip(&batch.numbers) {
            let Ok(RowCase::General(i)) = row.as_ref().map(|&r| RowCase::of(r)) else {
                continue;
            };
            let need = batch.general.get(i).need;
            let norm = need.iter().map(|v| v * v).sum::<f64>().sqrt();
            if let Some(why) = batch.general_outcomes[i].disagreement(&checked[i], norm) {
                disagreements.push((number, why));
            }
        }
    }
    Ok(disagreements)
}
