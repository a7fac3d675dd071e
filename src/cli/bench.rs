//! `planar-hold bench`: throughput (cases/s, µs per case) of each backend at batch sizes
//! 256, 65,536 and N, the GPU's kernel-only share where the adapter has timestamps, the
//! 256-case round-trip latency and the ratios between backends. A readable table on stdout,
//! and with `--json` one machine-readable line last. `--general` times the general engine
//! instead (`bench_general`), `--spatial` the gate on spatial scenes (`bench_spatial`),
//! `--grasps FILE` the gate's stages on a file of grasps (`bench_grasps`).

use std::time::{Duration, Instant};

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use planar_hold::details::planar;
use planar_hold::details::sample::{box_cases, mixed_cases};
use planar_hold::details::Simd;
use planar_hold::{Answers, Backend, Batch, Case, Engine, Options, Outcome, MAX_GENERATORS};
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::machine::cpu_model;
use super::Failure;

/// The fixed batch sizes: one workgroup's worth (latency-bound) and a mid-size batch.
const FIXED_BATCHES: [usize; 2] = [256, 65_536];

/// A timed run repeats the batch until it lasts at least this long, so that the clock's
/// resolution and per-call jitter do not dominate small batches.
const MIN_RUN: Duration = Duration::from_millis(20);

/// Round trips timed for the 256-case latency.
const LATENCY_SAMPLES: usize = 31;

/// Seed of the workload: the same cases on every backend and every run.
const SEED: u64 = 2026;

#[derive(clap::Args)]
pub(super) struct Args {
    /// Cases in the largest batch (also timed: 256 and 65,536).
    #[arg(long, default_value_t = 1_000_000)]
    cases: usize,
    /// Backends to time, comma separated.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Which::Cpu, Which::Cpu1, Which::CpuRef, Which::Gpu])]
    backend: Vec<Which>,
    /// The cases: `mixed` (boxes, random cones, degenerate shapes) or `box` (the planner's).
    #[arg(long, value_enum, default_value_t = Workload::Mixed)]
    workload: Workload,
    /// Also print one JSON line with every number, last.
    #[arg(long)]
    json: bool,
    /// Time these cases (JSON Lines or Parquet, up to --cases) instead of the workload, and
    /// the format's own decode and encode rates per core.
    #[arg(long)]
    input: Option<String>,
    /// The input's format (default: from its extension).
    #[arg(long, value_enum)]
    format: Option<super::pipeline::Format>,
    /// Time the general engine instead (d = 3 and 6, K = 16 … 256), on the CPU and (where
    /// `--backend` has gpu) the GPU; `--cases` scales the number of cases per row
    /// (1,000,000 by default: about a second a row).
    #[arg(long, conflicts_with = "input")]
    general: bool,
    /// With --general: time only the GPU's search (pack, upload, kernel, readback, and the
    /// kernel alone from timestamps), `--cases` cases per shape.
    #[arg(long, requires = "general")]
    general_search_only: bool,
    /// Time the gate on spatial scenes instead (a cube on its corners, two feet, a
    /// four-finger grasp, jittered, 8 needs each): scenes per second on the CPU (all cores,
    /// one) and (where `--backend` has gpu) the GPU, and the cost of each stage; `--cases`
    /// scales the scenes per family (1,000,000 by default: 1,000 a family).
    #[arg(long, conflicts_with_all = ["input", "general"])]
    spatial: bool,
    /// With --spatial: also write the scenes timed to this file, as JSON Lines (the input
    /// of scripts/spatial_peers.py).
    #[arg(long, requires = "spatial", value_name = "PATH")]
    spatial_out: Option<String>,
    /// Time `gate` on these grasps (JSON Lines or Parquet) instead, around the engine: µs a
    /// grasp per core of reading, parsing, planning and writing the answers, the engine's
    /// own on the first grasps, and the pipeline's ceiling (the first --cases rows, at most
    /// 65,536).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["input", "general", "spatial"])]
    grasps: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Which {
    /// The CPU fast path on all cores (rayon).
    Cpu,
    /// The CPU fast path on one thread.
    Cpu1,
    /// The scalar CPU reference (`planar::cone_test`, the shader's mirror) on one thread.
    CpuRef,
    /// The shader through wgpu.
    Gpu,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Cpu => "cpu",
            Which::Cpu1 => "cpu1",
            Which::CpuRef => "cpu-ref",
            Which::Gpu => "gpu",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Workload {
    Mixed,
    Box,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Mixed => "mixed",
            Workload::Box => "box",
        }
    }
}

/// One backend ready to run: what it is and how to evaluate a batch.
struct Runner {
    which: Which,
    adapter: String,
    /// `None` for `cpu1`: the CPU path on the calling thread alone, without rayon.
    engine: Option<Engine>,
}

impl Runner {
    /// Evaluates the batch; returns the kernel-only time where the GPU reports it.
    fn run(&mut self, batch: &Batch, answers: &mut Answers) -> Result<Option<Duration>, Failure> {
        let (cases, out) = (&batch.planar, &mut answers.planar);
        match &mut self.engine {
            None if self.which == Which::CpuRef => {
                for (o, c) in out.iter_mut().zip(cases) {
                    *o = planar::cone_test(c);
                }
                Ok(None)
            }
            None => {
                planar::cone_test_slice(cases, out);
                Ok(None)
            }
            Some(engine) => {
                engine.evaluate_into(batch, Options::default(), answers)?;
                Ok(answers.kernel_time)
            }
        }
    }
}

/// The median time of one backend at one batch size.
#[derive(Serialize)]
struct Measurement {
    backend: &'static str,
    adapter: String,
    batch: usize,
    cases_per_s: f64,
    us_per_case: f64,
    runs: usize,
    /// Batches evaluated back to back in one timed run.
    reps_per_run: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel_cases_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel_us_per_case: Option<f64>,
    /// 1 − kernel / total: the share of upload, readback and scheduling.
    #[serde(skip_serializing_if = "Option::is_none")]
    transfer_share: Option<f64>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Peak resident memory of this process (VmHWM), in MiB; Linux only.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Warm-up, then `runs` timed runs of `reps` batches each (reps chosen so a run lasts
/// `MIN_RUN`); the median per case.
fn measure(
    runner: &mut Runner,
    batch: &Batch,
    out: &mut Answers,
    runs: usize,
    progress: &ProgressBar,
) -> Result<Measurement, Failure> {
    let cases = &batch.planar;
    let timed = |runner: &mut Runner, out: &mut Answers| {
        let start = Instant::now();
        runner
            .run(batch, out)
            .map(|kernel| (start.elapsed(), kernel))
    };
    // The first call may grow buffers or fault pages in: time a second one if it was short.
    let (mut once, _) = timed(runner, out)?;
    if once < MIN_RUN {
        once = timed(runner, out)?.0;
    }
    let reps = (MIN_RUN.as_secs_f64() / once.as_secs_f64().max(1e-9))
        .ceil()
        .max(1.0) as usize;
    progress.inc(1);

    let (mut totals, mut kernels) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let mut total = Duration::ZERO;
        let mut kernel = Some(Duration::ZERO);
        for _ in 0..reps {
            let (t, k) = timed(runner, out)?;
            total += t;
            kernel = kernel.zip(k).map(|(a, b)| a + b);
        }
        totals.push(total.as_secs_f64());
        kernels.push(kernel.map(|k| k.as_secs_f64()));
        progress.inc(1);
    }
    let per_case = (reps * cases.len()) as f64;
    let total = median(totals) / per_case;
    let kernel = kernels
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .map(|k| median(k) / per_case);
    Ok(Measurement {
        backend: runner.which.name(),
        adapter: runner.adapter.clone(),
        batch: cases.len(),
        cases_per_s: 1.0 / total,
        us_per_case: total * 1e6,
        runs,
        reps_per_run: reps,
        kernel_cases_per_s: kernel.map(|k| 1.0 / k),
        kernel_us_per_case: kernel.map(|k| k * 1e6),
        transfer_share: kernel.map(|k| 1.0 - k / total),
    })
}

/// Median µs of one evaluation of 256 cases: what a caller waits for a small batch.
fn latency_us(runner: &mut Runner, batch: &Batch, out: &mut Answers) -> Result<f64, Failure> {
    runner.run(batch, out)?;
    let mut samples = Vec::with_capacity(LATENCY_SAMPLES);
    for _ in 0..LATENCY_SAMPLES {
        let start = Instant::now();
        runner.run(batch, out)?;
        samples.push(start.elapsed().as_secs_f64() * 1e6);
    }
    Ok(median(samples))
}

/// The backends asked for, in order, without duplicates; the GPU skipped (with a line
/// saying why, also returned for the JSON) when no adapter is found.
fn runners(backends: &[Which]) -> (Vec<Runner>, Map<String, Value>) {
    let model = cpu_model();
    let mut out: Vec<Runner> = Vec::new();
    let mut skipped = Map::new();
    for &which in backends {
        if out.iter().any(|r| r.which == which) {
            continue;
        }
        let runner = match which {
            Which::Cpu => Runner {
                which,
                adapter: format!(
                    "{model} ({} threads, {})",
                    rayon::current_num_threads(),
                    Simd::chosen()
                ),
                engine: Some(Engine::cpu()),
            },
            Which::Cpu1 => Runner {
                which,
                adapter: format!("{model} (1 thread, {})", Simd::chosen()),
                engine: None,
            },
            Which::CpuRef => Runner {
                which,
                adapter: format!("{model} (1 thread, scalar)"),
                engine: None,
            },
            Which::Gpu => match Engine::new(Backend::Gpu) {
                Ok(engine) => Runner {
                    which,
                    adapter: engine.describe(),
                    engine: Some(engine),
                },
                Err(e) => {
                    println!("gpu: {e}\ngpu: skipped (no adapter)\n");
                    skipped.insert("gpu".into(), json!(e.to_string()));
                    continue;
                }
            },
        };
        out.push(runner);
    }
    (out, skipped)
}

fn runs_for(batch: usize) -> usize {
    if batch <= FIXED_BATCHES[1] {
        5
    } else {
        3
    }
}

pub(super) fn run(args: Args) -> Result<(), Failure> {
    if args.cases == 0 {
        return Err(Failure::new("--cases must be at least 1", 2));
    }
    if args.general && args.general_search_only {
        return super::bench_general::run_search(args.cases, args.json);
    }
    if let Some(path) = &args.grasps {
        return super::bench_grasps::run(path, args.format, args.cases, args.json);
    }
    if args.spatial {
        let gpu = args.backend.contains(&Which::Gpu);
        return super::bench_spatial::run(
            args.cases.div_ceil(1000),
            gpu,
            args.json,
            args.spatial_out.as_deref(),
        );
    }
    if args.general {
        let gpu = args.backend.contains(&Which::Gpu);
        return super::bench_general::run(args.cases.div_ceil(1000), gpu, args.json);
    }
    let mut input = args
        .input
        .as_deref()
        .map(|path| super::bench_input::load(path, args.format, args.cases))
        .transpose()?;
    let largest = input.as_ref().map_or(args.cases, |i| i.cases.len());
    let mut batches: Vec<usize> = FIXED_BATCHES.to_vec();
    batches.push(largest);
    batches.sort_unstable();
    batches.dedup();
    batches.retain(|&b| b <= largest);
    let (mut runners, skipped) = runners(&args.backend);
    if runners.is_empty() {
        return Err(Failure::new("no backend to time", 1));
    }

    // Every batch is a prefix of one workload, generated once.
    let cases = match (&mut input, args.workload) {
        (Some(input), _) => std::mem::take(&mut input.cases),
        (None, Workload::Mixed) => mixed_cases(SEED, largest),
        (None, Workload::Box) => box_cases(SEED, largest),
    };

    let active = mean_active(&cases);

    let steps: usize = batches.iter().map(|&b| 1 + runs_for(b)).sum::<usize>() + 1;
    let progress = ProgressBar::new((steps * runners.len()) as u64);
    progress.set_style(
        ProgressStyle::with_template("{msg:>16} [{bar:30}] {pos}/{len} {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let mut results = Vec::new();
    let mut latency = Map::new();
    for runner in &mut runners {
        for &batch in &batches {
            progress.set_message(format!("{} × {batch}", runner.which.name()));
            // The prefix as the engine takes it, and its answers' buffers.
            let prefix = Batch::from(&cases[..batch]);
            let mut out = Answers {
                planar: vec![Outcome::default(); batch],
                ..Answers::default()
            };
            results.push(measure(
                runner,
                &prefix,
                &mut out,
                runs_for(batch),
                &progress,
            )?);
            if batch == FIXED_BATCHES[0] {
                let us = latency_us(runner, &prefix, &mut out)?;
                latency.insert(runner.which.name().into(), json!(us));
                progress.inc(1);
            }
        }
    }
    progress.finish_and_clear();

    let ratios = ratios(&results, &batches);
    let peak = peak_rss_mib();
    print_table(&args, active, &runners, &results, &ratios, &latency, peak);
    if let Some(input) = &input {
        let at_largest: Vec<(&str, f64)> = results
            .iter()
            .filter(|m| m.batch == largest)
            .map(|m| (m.backend, m.cases_per_s))
            .collect();
        input.print(&at_largest);
    }
    if args.json {
        let line = json!({
            "workload": args.workload.name(),
            "mean_active_generators": active,
            "simd": Simd::chosen().name(),
            "results": results,
            "ratios": ratios_json(&ratios),
            "latency_256_us": latency,
            "peak_rss_mib": peak,
            "skipped": skipped,
            "input": input.as_ref().map(|i| json!({"path": i.path, "cases": largest, "format": i.report})),
        });
        println!("{line}");
    }
    Ok(())
}

/// Throughput ratios, "a_vs_b" = cases/s of a ÷ cases/s of b, by batch size, for the
/// pairs that were both timed.
type Ratios = Vec<(String, Vec<(usize, f64)>)>;

fn ratios(results: &[Measurement], batches: &[usize]) -> Ratios {
    let rate = |backend: &str, batch: usize| {
        results
            .iter()
            .find(|m| m.backend == backend && m.batch == batch)
            .map(|m| m.cases_per_s)
    };
    [
        ("gpu", "cpu"),
        ("gpu", "cpu1"),
        ("cpu", "cpu1"),
        ("cpu1", "cpu-ref"),
    ]
    .into_iter()
    .map(|(a, b)| {
        let by_batch = batches
            .iter()
            .filter_map(|&n| Some((n, rate(a, n)? / rate(b, n)?)))
            .collect::<Vec<_>>();
        (format!("{a}_vs_{b}"), by_batch)
    })
    .filter(|(_, by_batch)| !by_batch.is_empty())
    .collect()
}

/// `{"gpu_vs_cpu": {"256": 0.5, ...}, ...}`
fn ratios_json(ratios: &Ratios) -> Value {
    let pairs = ratios.iter().map(|(pair, by_batch)| {
        let cells = by_batch.iter().map(|(n, r)| (n.to_string(), json!(r)));
        (pair.clone(), Value::Object(cells.collect()))
    });
    Value::Object(pairs.collect())
}

/// The mean number of active generators of the workload's cases: the fast path's work
/// grows with the slots a case uses.
fn mean_active(cases: &[Case]) -> f64 {
    let mask = (1u32 << MAX_GENERATORS) - 1;
    let total: u64 = cases
        .iter()
        .map(|c| u64::from((c.active_mask & mask).count_ones()))
        .sum();
    total as f64 / cases.len().max(1) as f64
}

fn print_table(
    args: &Args,
    active: f64,
    runners: &[Runner],
    results: &[Measurement],
    ratios: &Ratios,
    latency: &Map<String, Value>,
    peak: Option<f64>,
) {
    println!(
        "planar-hold bench: workload {} ({active:.2} active generators per case on average), median of timed runs after a warm-up",
        args.workload.name()
    );
    let simd = Simd::chosen();
    println!(
        "  CPU fast path: {simd}, {} cases per group ({})",
        simd.lanes(),
        planar_hold::details::SIMD_ENV
    );
    for r in runners {
        println!("  {:<5} {}", r.which.name(), r.adapter);
    }
    println!(
        "\n{:<5} {:>9} {:>14} {:>10} {:>10} {:>16} {:>9}",
        "", "batch", "cases/s", "µs/case", "runs×reps", "kernel cases/s", "transfer"
    );
    for m in results {
        let kernel = m
            .kernel_cases_per_s
            .map_or(String::new(), |k| format!("{k:.0}"));
        let share = m
            .transfer_share
            .map_or(String::new(), |s| format!("{:.0}%", s * 100.0));
        let row = format!(
            "{:<5} {:>9} {:>14.0} {:>10.3} {:>10} {:>16} {:>9}",
            m.backend,
            m.batch,
            m.cases_per_s,
            m.us_per_case,
            format!("{}×{}", m.runs, m.reps_per_run),
            kernel,
            share
        );
        println!("{}", row.trim_end());
    }
    if !ratios.is_empty() {
        println!("\nthroughput ratios");
        for (pair, by_batch) in ratios {
            let cells: Vec<String> = by_batch
                .iter()
                .map(|(batch, r)| format!("{batch}: {r:.2}"))
                .collect();
            println!("  {:<12} {}", pair.replace("_vs_", "/"), cells.join("   "));
        }
    }
    if !latency.is_empty() {
        let cells: Vec<String> = latency
            .iter()
            .map(|(b, us)| format!("{b} {:.0} µs", us.as_f64().unwrap_or(f64::NAN)))
            .collect();
        println!("\n256-case round trip (median): {}", cells.join(", "));
    }
    match peak {
        Some(mib) => println!("peak resident memory: {mib:.0} MiB"),
        None => println!("peak resident memory: unknown"),
    }
}
