//! The general test on the GPU (`shaders/search.wgsl` + the host's float64 finish) against
//! the CPU engine: the public cases and random cases of both dimensions give the same
//! verdicts (except where one says uncertain) and margins (1e-6 relative), every proof
//! re-checked here; the engine on every backend; `eval` on the GPU; the invariants. The
//! shader's search against its float32 twin, both kernel variants, chunked uploads and the
//! Pod layouts are unit tests of the crate (`src/general/search_tests.rs`), on the same cases
//! (`gpu_cases.rs`). GPU tests skip without an adapter unless `PLANAR_HOLD_REQUIRE_GPU`.

use crate::common::data;
use planar_hold::details::solver;
use planar_hold::{Batch, Engine, Options, Threads, Verdict};
use planar_hold::{GeneralBatch, GeneralOutcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

#[path = "gpu_cases.rs"]
mod cases;
use cases::{compare, general_on, nrm, proofs_valid, public_batch, random_batch, Stats};

fn run_both(name: &str, batch: &GeneralBatch) -> Option<Stats> {
    let gpu = crate::common::gpu_engine()?;
    let t = std::time::Instant::now();
    let (on_gpu, stats) = general_on(&gpu, batch);
    let gpu_time = t.elapsed();
    let t = std::time::Instant::now();
    let (on_cpu, _) = general_on(&Engine::cpu(), batch);
    let cpu_time = t.elapsed();
    eprintln!(
        "{name} on {}: {} cases, {} re-solved on the host; GPU+host {:.0} cases/s, CPU {:.0} cases/s",
        gpu.describe(),
        stats.cases,
        stats.resolved,
        batch.len() as f64 / gpu_time.as_secs_f64(),
        batch.len() as f64 / cpu_time.as_secs_f64()
    );
    assert_eq!(stats.cases, batch.len());
    compare(name, batch, &on_gpu, &on_cpu);
    Some(stats)
}

#[test]
fn public_cases_on_the_gpu_equal_the_cpu() {
    let batch = public_batch();
    let Some(stats) = run_both("public", &batch) else {
        return;
    };
    // The float32 search should find the final passive set for nearly every case.
    assert!(
        stats.resolved * 5 <= stats.cases,
        "{} of {} re-solved",
        stats.resolved,
        stats.cases
    );
}

#[test]
fn random_cases_on_the_gpu_equal_the_cpu() {
    for d in [3, 6] {
        let batch = random_batch(40 + d as u64, 1200, d);
        let Some(stats) = run_both(&format!("random d={d}"), &batch) else {
            return;
        };
        assert!(
            stats.resolved * 5 <= stats.cases,
            "d = {d}: {} of {} re-solved",
            stats.resolved,
            stats.cases
        );
    }
}

#[test]
fn workers_sharing_one_device_each_read_their_answers_back() {
    // As `eval` and `gate` do: several threads submit to one engine at once, each on its own
    // thread, each waiting for its own chunks. Another thread's poll may run a mapping's
    // callback while its owner's wait returns: every call must still read its answers back
    // (it once failed "a search chunk's readback never completed" in about one call of
    // thirty here, small batches making the threads' polls overlap), the same as one alone.
    let Some(gpu) = crate::common::gpu_engine() else {
        return;
    };
    let batch = Batch::from(random_batch(17, 16, 6));
    let options = Options {
        threads: Threads::Current,
        ..Options::default()
    };
    let alone = gpu.evaluate(&batch, options).expect("one call").general;
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..100 {
                    let answers = gpu.evaluate(&batch, options).expect("a call beside others");
                    assert_eq!(answers.general, alone);
                }
            });
        }
    });
}

#[test]
fn the_engine_answers_general_batches_on_every_backend() {
    let batch = random_batch(11, 500, 6);
    let expected: Vec<GeneralOutcome> = batch
        .iter()
        .map(|c| solver::Solver::new().solve(&c))
        .collect();
    let this_thread = Options {
        threads: Threads::Current,
        ..Options::default()
    };
    for (name, engine) in crate::common::engines() {
        let (out, resolved) = crate::common::general_outcomes(&engine, &batch, Options::default());
        assert_eq!(out.len(), batch.len(), "{name}");
        if name == "cpu" {
            assert_eq!(resolved, 0);
            assert!(
                out == expected,
                "the CPU engine differs from one solver a case"
            );
        } else {
            compare(name, &batch, &out, &expected);
        }
        // On this thread alone: the same answers, bit for bit.
        let (alone, _) = crate::common::general_outcomes(&engine, &batch, this_thread);
        assert!(alone == out, "{name}: one thread and all cores differ");
        // Answers reused for a shorter batch, and for an empty one, hold exactly its own.
        let mut shorter = GeneralBatch::default();
        for case in batch.iter().take(7) {
            shorter.push(case.dim, case.generators, case.need).unwrap();
        }
        let mut answers = engine
            .evaluate(&Batch::from(batch.clone()), Options::default())
            .unwrap();
        engine
            .evaluate_into(&Batch::from(shorter), Options::default(), &mut answers)
            .unwrap();
        assert!(answers.general == out[..7], "{name}: reused answers");
        engine
            .evaluate_into(&Batch::default(), Options::default(), &mut answers)
            .unwrap();
        assert!(answers.general.is_empty() && answers.planar.is_empty());
    }
}

/// `eval --backend both` over the public cases: the GPU's general answers equal the CPU's
/// (exit 0, not 3), and the run says how many the host re-solved.
#[test]
fn eval_on_the_gpu_answers_general_rows_and_counts_the_re_solved() {
    if crate::common::gpu_engine().is_none() {
        return;
    }
    let path = crate::common::data("general_public.jsonl");
    let mut answers = Vec::new();
    for backend in ["both", "cpu"] {
        let out = crate::common::cli()
            .arg("eval")
            .arg(&path)
            .args(["--backend", backend])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{backend}: {stderr}");
        let said = stderr
            .lines()
            .any(|l| l.starts_with("planar-hold: general cases: 300 on the GPU, ")); // (one line is planar)
        assert_eq!(said, backend == "both", "{backend}: {stderr}");
        let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 301);
        answers.push(lines);
    }
    for (g, c) in answers[0].iter().zip(&answers[1]) {
        assert_eq!(g["id"], c["id"]);
        assert_eq!(g["verdict"], c["verdict"], "{}", g["id"]);
        let (mg, mc) = (g["margin"].as_f64().unwrap(), c["margin"].as_f64().unwrap());
        assert!((mg - mc).abs() <= 1e-6 * mc.abs().max(1.0), "{}", g["id"]);
    }
}

/// The invariants of tests/general/engine.rs on the GPU engine: the whole case scaled by 1e-30 and
/// 1e30 scales the margin, each generator scaled on its own and the generators permuted
/// change nothing; every proof re-checked.
#[test]
fn invariants_hold_on_the_gpu() {
    let Some(gpu) = crate::common::gpu_engine() else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(77);
    for d in [3usize, 6] {
        let base = random_batch(900 + d as u64, 300, d);
        let (base_out, _) = general_on(&gpu, &base);
        let variants: [(&str, f64); 4] = [
            ("×1e-30", 1e-30),
            ("×1e30", 1e30),
            ("per-generator", 0.0),
            ("permuted", -1.0),
        ];
        for (name, f) in variants {
            let mut batch = GeneralBatch::default();
            for c in base.iter() {
                let k = c.len();
                let mut order: Vec<usize> = (0..k).collect();
                if f < 0.0 {
                    for i in (1..k).rev() {
                        order.swap(i, rng.random_range(0..=i));
                    }
                }
                let mut gens = Vec::with_capacity(k * d);
                for &i in &order {
                    let s = if f > 0.0 {
                        f
                    } else if f == 0.0 {
                        10f64.powf(rng.random_range(-6.0..6.0))
                    } else {
                        1.0
                    };
                    gens.extend(c.generator(i).iter().map(|x| x * s));
                }
                let s = if f > 0.0 { f } else { 1.0 };
                let need: Vec<f64> = c.need.iter().map(|x| x * s).collect();
                batch.push(d, &gens, &need).unwrap();
            }
            let (out, _) = general_on(&gpu, &batch);
            let mut bad = Vec::new();
            for i in 0..batch.len() {
                if let Err(e) = proofs_valid(&batch, i, &out[i]) {
                    bad.push(format!("{name} case {i}: {e}"));
                }
                let (a, b) = (&base_out[i], &out[i]);
                let s = nrm(base.get(i).need);
                let scale = if f > 0.0 { f } else { 1.0 };
                let m = if b.capped { b.margin } else { b.margin / scale };
                if a.capped != b.capped {
                    bad.push(format!(
                        "{name} case {i}: capped {} vs {}",
                        a.capped, b.capped
                    ));
                    continue;
                }
                if a.capped || (a.margin * scale).abs() >= 999.0 {
                    continue; // the cap, or a margin scaled past it
                }
                let decisive = a.margin.abs() > 1e-6 * s && m.abs() > 1e-6 * s;
                if decisive && a.verdict != b.verdict {
                    bad.push(format!(
                        "{name} case {i}: {:?} vs {:?}",
                        a.verdict, b.verdict
                    ));
                }
                if (a.margin - m).abs() > 1e-7 * s.max(a.margin.abs()).max(1e-300) {
                    bad.push(format!("{name} case {i}: margin {} vs {m}", a.margin));
                }
            }
            assert!(
                bad.is_empty(),
                "d = {d}: {}",
                bad[..bad.len().min(10)].join("\n")
            );
        }
    }
}
