//! `planar-hold bench --general`: the general engine's rate by dimension and generator
//! count (d = 3: K = 32, 64, 256; d = 6: K = 16 … 256) on contact cones
//! ([`planar_hold::general::sample::contact_cases`]), on all cores and on one, and where
//! the time goes: the NNLS alone (verdict, witness, certificate, distance) against the
//! whole test with the inside margin (the facets).

use std::time::Instant;

use planar_hold::general::cpu::{solve_batch_into, Solver};
use planar_hold::general::sample::contact_cases;
use planar_hold::general::{GeneralBatch, GeneralOutcome};
use planar_hold::Verdict;
use serde_json::json;

use super::Failure;

/// The (d, K) pairs the issue asks for.
pub const SHAPES: [(usize, usize); 8] = [
    (3, 32),
    (3, 64),
    (3, 256),
    (6, 16),
    (6, 32),
    (6, 64),
    (6, 128),
    (6, 256),
];

/// Cases per second of `f` over `batch`, best of three runs.
fn rate(batch: &GeneralBatch, mut f: impl FnMut(&GeneralBatch, &mut [GeneralOutcome])) -> f64 {
    let mut out = vec![GeneralOutcome::default(); batch.len()];
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        f(batch, &mut out);
        best = best.min(t.elapsed().as_secs_f64());
    }
    batch.len() as f64 / best
}

/// Cases per (d, K) so that each lasts about the same: fewer for the large ones.
fn cases_for(d: usize, k: usize, scale: usize) -> usize {
    let cost = (k * d * d).max(1);
    (scale * 2000 / cost).clamp(20, 20_000)
}

pub fn run(scale: usize, json_out: bool) -> Result<(), Failure> {
    let arch = super::bench::cpu_features();
    println!(
        "general engine on contact cones: {arch}, {} threads",
        rayon::current_num_threads()
    );
    println!(
        "{:>2} {:>4} {:>7} {:>6} {:>12} {:>12} {:>12} {:>10}",
        "d", "K", "cases", "held", "all cores/s", "one core/s", "NNLS only/s", "facets %"
    );
    let mut rows = Vec::new();
    for (d, k) in SHAPES {
        let n = cases_for(d, k, scale);
        let batch = contact_cases(2026 + (d * 1000 + k) as u64, n, d, k);
        let mut out = vec![GeneralOutcome::default(); n];
        solve_batch_into(&batch, &mut out);
        let held = out
            .iter()
            .filter(|o| o.verdict == Verdict::Supported)
            .count();
        let all = rate(&batch, solve_batch_into);
        let one = rate(&batch, |b, o| {
            let mut s = Solver::new();
            for (i, slot) in o.iter_mut().enumerate() {
                *slot = s.solve(&b.get(i));
            }
        });
        let nnls = rate(&batch, |b, o| {
            let mut s = Solver::without_inside_margin();
            for (i, slot) in o.iter_mut().enumerate() {
                *slot = s.solve(&b.get(i));
            }
        });
        let facets = 100.0 * (1.0 - one / nnls).max(0.0);
        println!(
            "{d:>2} {k:>4} {n:>7} {:>5.0}% {all:>12.0} {one:>12.0} {nnls:>12.0} {facets:>9.0}%",
            100.0 * held as f64 / n as f64
        );
        rows.push(
            json!({"d": d, "k": k, "cases": n, "held": held, "all_cores_per_s": all,
                         "one_core_per_s": one, "nnls_only_per_s": nnls}),
        );
    }
    if json_out {
        println!("{}", json!({"general": rows, "cpu": arch}));
    }
    Ok(())
}
