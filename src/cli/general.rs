//! The general rows of a chunk (docs/contract-general.md) in `eval`'s account: how many the GPU
//! answered and how many of those the host had to re-solve, for the one line a run ends
//! with, and with `--backend both` where the GPU's answers and the CPU's disagree.

use std::sync::atomic::{AtomicUsize, Ordering};

use planar_hold::general::GeneralOutcome;
use planar_hold::io::CaseBatch;
use planar_hold::{Answers, CaseKind};

/// General cases answered on the GPU over a run, and how many of them the host re-solved.
#[derive(Default)]
pub struct GeneralCount {
    cases: AtomicUsize,
    resolved: AtomicUsize,
}

impl GeneralCount {
    /// Counts a chunk's answers from the GPU.
    pub fn add(&self, answers: &Answers) {
        self.cases
            .fetch_add(answers.general.len(), Ordering::Relaxed);
        self.resolved.fetch_add(answers.resolved, Ordering::Relaxed);
    }

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

/// `--backend both`: the (line, why) of every general row of `batch` whose answer on the
/// GPU (`main`) and on the CPU (`checked`) differ beyond tolerance.
pub fn disagreements(
    batch: &CaseBatch,
    main: &[GeneralOutcome],
    checked: &[GeneralOutcome],
) -> Vec<(u64, String)> {
    let lines = batch.numbers_of(CaseKind::General);
    (0..main.len())
        .zip(lines)
        .filter_map(|(i, number)| {
            let need = batch.batch.general.get(i).need;
            let norm = need.iter().map(|v| v * v).sum::<f64>().sqrt();
            Some((number, main[i].disagreement(&checked[i], norm)?))
        })
        .collect()
}
