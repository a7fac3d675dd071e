//! `planar-hold bench --general`: the general engine's rate by dimension and generator
//! count (d = 3: K = 32, 64, 256; d = 6: K = 16 … 256) on contact cones
//! ([`planar_hold::details::sample::contact_cases`]) and on the random pointed cones of
//! `scripts/general_peers.py` ([`planar_hold::details::sample::random_cases`]), on all
//! cores and on one, for the NNLS alone (verdict, witness, certificate, distance) and the
//! whole test with the inside margin (the facets); the instruction set of the engine's
//! column kernels is named in the header. Where `--backend` has gpu, also the GPU
//! end to end (`shaders/search.wgsl`'s float32 search, then the float64 finish and facets
//! on all cores) and how many cases the host re-solved; `--general-search-only` times the
//! GPU's search alone (pack, upload, kernel, readback; the kernel from timestamps) at
//! `--cases` cases per shape, for a real GPU's kernel-only rate.

use std::time::Instant;

use planar_hold::details::sample::contact_cases;
use planar_hold::details::sample::random_cases;
use planar_hold::GeneralBatch;
use planar_hold::{Answers, Backend, Batch, Engine, Error, Options, Threads, Verdict};
use serde_json::json;

use super::Failure;

/// The (d, K) pairs the general bench times: the shapes of contact cones, feet and grasps.
pub(super) const SHAPES: [(usize, usize); 8] = [
    (3, 32),
    (3, 64),
    (3, 256),
    (6, 16),
    (6, 32),
    (6, 64),
    (6, 128),
    (6, 256),
];

/// Cases per second of `engine` over `batch` with `options`, best of three runs; also the
/// cases the host re-solved in the last.
fn rate(engine: &Engine, batch: &Batch, options: Options) -> Result<(f64, usize), Error> {
    let mut answers = Answers::default();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        engine.evaluate_into(batch, options, &mut answers)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok((batch.len() as f64 / best, answers.resolved))
}

/// The options of one column: with or without the inside margin, on all cores or one.
fn options(inside_margin: bool, threads: Threads) -> Options {
    Options {
        inside_margin,
        threads,
        ..Options::default()
    }
}

/// Cases per (d, K) so that each lasts about the same: fewer for the large ones.
fn cases_for(d: usize, k: usize, scale: usize) -> usize {
    let cost = (k * d * d).max(1);
    (scale * 2000 / cost).clamp(20, 20_000)
}

/// The GPU engine, or `None` with a line saying why.
fn gpu_engine() -> Option<Engine> {
    match Engine::new(Backend::Gpu) {
        Ok(g) => Some(g),
        Err(e) => {
            println!("gpu: {e}\ngpu: skipped (no adapter)");
            None
        }
    }
}

pub(super) fn run(scale: usize, gpu: bool, json_out: bool) -> Result<(), Failure> {
    let arch = super::machine::cpu_features();
    let kernels = planar_hold::details::solver::kernels();
    let mut gpu = if gpu { gpu_engine() } else { None };
    let adapter = gpu.as_ref().map(|g| g.describe());
    println!(
        "general engine: {arch}, column kernels {kernels}, {}",
        super::machine::threads_and_gpu(adapter.as_deref())
    );
    println!(
        "cases/s; NNLS only: verdict, witness, certificate, distance (no inside margin); \
         full: with the inside margin (facets)"
    );
    println!(
        "{:<8} {:>2} {:>4} {:>6} {:>5} {:>11} {:>11} {:>11} {:>11} {:>9} {:>11} {:>9}",
        "cones",
        "d",
        "K",
        "cases",
        "held",
        "NNLS all",
        "NNLS 1 core",
        "full all",
        "full 1 core",
        "facets %",
        "gpu e2e",
        "re-solved"
    );
    let mut rows = Vec::new();
    for (cones, make) in [
        (
            "contact",
            contact_cases as fn(u64, usize, usize, usize) -> GeneralBatch,
        ),
        ("random", random_cases),
    ] {
        for (d, k) in SHAPES {
            let n = cases_for(d, k, scale);
            let batch = Batch::from(make(2026 + (d * 1000 + k) as u64, n, d, k));
            let cpu = &mut Engine::cpu();
            let held = cpu
                .evaluate(&batch, Options::default())?
                .general
                .iter()
                .filter(|o| o.verdict == Verdict::Supported)
                .count();
            let (nnls_all, _) = rate(cpu, &batch, options(false, Threads::All))?;
            let (nnls_one, _) = rate(cpu, &batch, options(false, Threads::Current))?;
            let (all, _) = rate(cpu, &batch, options(true, Threads::All))?;
            let (one, _) = rate(cpu, &batch, options(true, Threads::Current))?;
            let facets = 100.0 * (1.0 - one / nnls_one).max(0.0);
            let (mut e2e, mut resolved) = (None, None);
            if let Some(gpu) = &mut gpu {
                gpu.evaluate(&batch, Options::default())?; // warm-up: buffers grow
                let (r, count) = rate(gpu, &batch, Options::default())?;
                e2e = Some(r);
                resolved = Some(count);
            }
            let cell = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0}"));
            println!(
                "{cones:<8} {d:>2} {k:>4} {n:>6} {:>4.0}% {nnls_all:>11.0} {nnls_one:>11.0} \
                 {all:>11.0} {one:>11.0} {facets:>8.0}% {:>11} {:>9}",
                100.0 * held as f64 / n as f64,
                cell(e2e),
                cell(resolved.map(|r| r as f64))
            );
            rows.push(
                json!({"cones": cones, "d": d, "k": k, "cases": n, "held": held,
                             "nnls_all_cores_per_s": nnls_all, "nnls_only_per_s": nnls_one,
                             "all_cores_per_s": all, "one_core_per_s": one,
                             "gpu_cases_per_s": e2e, "gpu_resolved": resolved}),
            );
        }
    }
    if json_out {
        println!(
            "{}",
            json!({"general": rows, "cpu": arch, "kernels": kernels, "adapter": adapter})
        );
    }
    Ok(())
}

/// Most numbers generated per shape for `run_search` (1 GiB of float64); a larger `--cases`
/// repeats the batch.
const SEARCH_VALUES: usize = 1 << 27;

/// The GPU's search alone at `cases` cases per shape: pack, upload, kernel and readback,
/// and the kernel alone where the adapter has timestamps.
pub(super) fn run_search(cases: usize, json_out: bool) -> Result<(), Failure> {
    let engine = gpu_engine();
    let Some((engine, gpu)) = engine.as_ref().and_then(|e| Some((e, e.gpu()?))) else {
        return Err(Failure::new("--general-search-only needs a GPU adapter", 1));
    };
    let adapter = engine.describe();
    println!("general engine's GPU search on contact cones: {adapter}");
    println!(
        "{:>2} {:>4} {:>10} {:>12} {:>12}",
        "d", "K", "cases", "search/s", "kernel/s"
    );
    let mut rows = Vec::new();
    for (d, k) in SHAPES {
        let distinct = cases.clamp(1, 1 << 20).min(SEARCH_VALUES / (d * (k + 1)));
        let repeats = cases.div_ceil(distinct);
        let batch = contact_cases(2026 + (d * 1000 + k) as u64, distinct, d, k);
        let mut hints = Vec::new();
        gpu.general_hints_into(&batch, &mut hints)?; // warm-up: buffers grow
        let t = Instant::now();
        let mut kernel = Some(0.0);
        for _ in 0..repeats {
            let k = gpu.general_hints_into(&batch, &mut hints)?;
            kernel = kernel.zip(k).map(|(a, b)| a + b.as_secs_f64());
        }
        let total = (distinct * repeats) as f64;
        let search = total / t.elapsed().as_secs_f64();
        let kernel = kernel.map(|s| total / s);
        println!(
            "{d:>2} {k:>4} {:>10} {search:>12.0} {:>12}",
            distinct * repeats,
            kernel.map_or("-".into(), |v| format!("{v:.0}"))
        );
        rows.push(json!({"d": d, "k": k, "cases": distinct * repeats,
                         "search_cases_per_s": search, "kernel_cases_per_s": kernel}));
    }
    if json_out {
        println!("{}", json!({"general_search": rows, "adapter": adapter}));
    }
    Ok(())
}
