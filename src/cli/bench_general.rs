//! `planar-hold bench --general N`: the general engine (SPEC-SPATIAL §1) at fixed shapes
//! (d = 3: K = 32, 64, 256; d = 6: K = 16, 32, 64, 128, 256), N cases each: the CPU on all
//! cores, the GPU end to end (float32 search on the device, float64 finish on all cores),
//! the GPU's search alone (pack, upload, kernel, readback) and its kernel-only rate where
//! the adapter has timestamps, and how many cases the host re-solved. One JSON line last
//! with `--json`.

use std::time::Instant;

use planar_hold::general::{cpu, GeneralBatch, GeneralOutcome};
use planar_hold::gpu::GpuEngine;
use planar_hold::sample::Rng;
use serde_json::{json, Value};

use super::Failure;

/// Most distinct cases generated per shape; a larger N repeats the batch.
const MAX_DISTINCT: usize = 1 << 20;

/// `3x32,6x16` into shapes.
pub fn parse_shapes(text: &str) -> Result<Vec<(usize, usize)>, Failure> {
    text.split(',')
        .map(|s| {
            let (d, k) = s.trim().split_once('x').unwrap_or(("", ""));
            match (d.parse::<usize>(), k.parse::<usize>()) {
                (Ok(d @ (3 | 6)), Ok(k @ 1..=256)) => Ok((d, k)),
                _ => Err(Failure::new(
                    format!("--general-shapes: {s:?} is not DxK with D 3 or 6 and K 1..256"),
                    2,
                )),
            }
        })
        .collect()
}

/// Uniform in [lo, hi), float64.
fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
}

/// `n` cases of dimension `d` with `k` generators: pointed cones around a random axis
/// (unit directions spread about it, lengths over two decades), the need the axis (inside),
/// a random direction (often outside) or a combination of three generators (on a face or
/// inside), a third each.
fn workload(seed: u64, n: usize, d: usize, k: usize) -> GeneralBatch {
    let mut rng = Rng::new(seed);
    let unit = |rng: &mut Rng| -> [f64; 6] {
        loop {
            let mut v = [0.0; 6];
            for x in &mut v[..d] {
                *x = uniform(rng, -1.0, 1.0);
            }
            let n = v[..d].iter().map(|x| x * x).sum::<f64>().sqrt();
            if n > 0.1 && n <= 1.0 {
                return v.map(|x| x / n);
            }
        }
    };
    let mut batch = GeneralBatch::new();
    let mut gens = Vec::with_capacity(k * d);
    for i in 0..n {
        let axis = unit(&mut rng);
        gens.clear();
        for _ in 0..k {
            let u = unit(&mut rng);
            let len = 10f64.powf(uniform(&mut rng, -1.0, 1.0));
            gens.extend((0..d).map(|a| (axis[a] + 0.8 * u[a]) * len));
        }
        let need: Vec<f64> = match i % 3 {
            0 => axis[..d].to_vec(),
            1 => unit(&mut rng)[..d].to_vec(),
            _ => {
                let mut v = vec![0.0; d];
                for t in 0..3 {
                    let g = (i * 7 + t * 13) % k;
                    for a in 0..d {
                        v[a] += gens[g * d + a];
                    }
                }
                v
            }
        };
        batch
            .push(d, &gens, &need)
            .expect("generated cases are valid");
    }
    batch
}

/// Times the general rows and prints them (and one JSON line with `json`).
pub fn run(
    cases: usize,
    shapes: &[(usize, usize)],
    search_only: bool,
    json: bool,
) -> Result<(), Failure> {
    let mut gpu = match GpuEngine::from_env() {
        Ok(g) => Some(g),
        Err(e) => {
            println!("gpu: {e}\ngpu: skipped (no adapter)\n");
            None
        }
    };
    let adapter = gpu.as_ref().map(|g| g.describe());
    println!(
        "planar-hold bench --general: {cases} cases per shape, cpu = {} threads{}",
        rayon::current_num_threads(),
        adapter
            .as_deref()
            .map(|a| format!(", gpu = {a}"))
            .unwrap_or_default()
    );
    println!(
        "{:>2} {:>4} {:>12} {:>12} {:>12} {:>12} {:>10}",
        "d", "K", "cpu c/s", "gpu c/s", "search c/s", "kernel c/s", "re-solved"
    );
    let mut rows = Vec::new();
    for (n, &(d, k)) in shapes.iter().enumerate() {
        // At most 2^27 numbers (1 GiB of float64) generated; a larger N repeats them.
        let distinct = cases.clamp(1, MAX_DISTINCT).min((1 << 27) / (d * (k + 1)));
        let repeats = cases.div_ceil(distinct);
        let batch = workload(2026 + n as u64, distinct, d, k);
        let mut out = vec![GeneralOutcome::default(); distinct];
        let mut row = json!({"d": d, "k": k, "cases": distinct * repeats});
        let rate = |t: Instant| (distinct * repeats) as f64 / t.elapsed().as_secs_f64();
        if !search_only {
            let t = Instant::now();
            for _ in 0..repeats {
                cpu::solve_batch_into(&batch, &mut out);
            }
            row["cpu_cases_per_s"] = json!(rate(t));
        }
        if let Some(gpu) = &mut gpu {
            let mut hints = Vec::new();
            gpu.general_hints_into(&batch, &mut hints)?; // warm-up: buffers grow
            let t = Instant::now();
            let mut kernel = Some(0.0);
            for _ in 0..repeats {
                gpu.general_hints_into(&batch, &mut hints)?;
                let k = gpu.general_kernel()?.last_kernel_time();
                kernel = kernel.zip(k).map(|(a, b)| a + b.as_secs_f64());
            }
            row["search_cases_per_s"] = json!(rate(t));
            row["kernel_cases_per_s"] = json!(kernel.map(|s| (distinct * repeats) as f64 / s));
            if !search_only {
                let t = Instant::now();
                let mut resolved = 0;
                for _ in 0..repeats {
                    resolved += gpu.evaluate_general_into(&batch, &mut out)?.resolved;
                }
                row["gpu_cases_per_s"] = json!(rate(t));
                row["resolved"] = json!(resolved);
            }
        }
        let cell = |key: &str| match &row[key] {
            Value::Number(v) => format!("{:.0}", v.as_f64().unwrap_or(0.0)),
            _ => "-".into(),
        };
        println!(
            "{d:>2} {k:>4} {:>12} {:>12} {:>12} {:>12} {:>10}",
            cell("cpu_cases_per_s"),
            cell("gpu_cases_per_s"),
            cell("search_cases_per_s"),
            cell("kernel_cases_per_s"),
            cell("resolved")
        );
        rows.push(row);
    }
    if json {
        println!(
            "{}",
            json!({"general": rows, "adapter": adapter, "threads": rayon::current_num_threads()})
        );
    }
    Ok(())
}
