//! The general test on the GPU (`shaders/search.wgsl` + the host's float64 finish) against
//! the CPU engine: the public cases and random cases of both dimensions give the same
//! verdicts (except where one says uncertain) and margins (1e-6 relative), every proof
//! re-checked here; the shader's float32 search against its twin (`general::search`);
//! both kernel variants; chunked uploads against one dispatch; the Pod layouts against
//! naga's reflection. GPU tests skip without an adapter unless `PLANAR_HOLD_REQUIRE_GPU`.

use std::mem::{offset_of, size_of};

use planar_hold::details::device::GpuBackend;
use planar_hold::details::search::{self, pack_range, HINT_INSIDE, HINT_OUTSIDE};
use planar_hold::details::search::{GeneralHint, GeneralParams, GeneralRecord};
use planar_hold::details::search::{GeneralMode, SEARCH_WGSL};
use planar_hold::details::solver;
use planar_hold::details::solver::Solver;
use planar_hold::{Batch, Engine, Options, Threads, Verdict};
use planar_hold::{GeneralBatch, GeneralOutcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

fn nrm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn gpu() -> Option<GpuBackend> {
    crate::common::gpu_or_skip(GpuBackend::from_env())
}

/// General cases a GPU call answered, and how many of them the host searched on.
#[derive(Clone, Copy, Debug)]
struct Stats {
    cases: usize,
    resolved: usize,
}

/// The general cases of `batch` through `engine`: their outcomes, and the call's counts.
fn general_on(engine: &Engine, batch: &GeneralBatch) -> (Vec<GeneralOutcome>, Stats) {
    let answers = engine
        .evaluate(&Batch::from(batch.clone()), Options::default())
        .expect("gpu");
    let stats = Stats {
        cases: answers.searched,
        resolved: answers.resolved,
    };
    (answers.general, stats)
}

/// The public cases (`tests/data/general_public.jsonl`) in one batch.
fn public_batch() -> GeneralBatch {
    let path = crate::common::data("general_public.jsonl");
    let text = std::fs::read_to_string(&path).expect("general_public.jsonl");
    let mut batch = GeneralBatch::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let need: Vec<f64> = serde_json::from_value(v["need"].clone()).unwrap();
        let gens: Vec<Vec<f64>> = serde_json::from_value(v["generators"].clone()).unwrap();
        batch.push(need.len(), &gens.concat(), &need).unwrap();
    }
    assert!(batch.len() >= 300, "{} public cases", batch.len());
    batch
}

fn unit(rng: &mut StdRng, d: usize) -> Vec<f64> {
    loop {
        let v: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let n = nrm(&v);
        if n > 0.1 && n <= 1.0 {
            return v.iter().map(|x| x / n).collect();
        }
    }
}

/// Random cases of the shapes contact problems produce, K from 1 to 256: pointed cones
/// (narrow or wide), cones in a subspace, cones holding a line, duplicates and zero
/// generators, scales over four decades; needs inside, on faces, outside and zero.
fn random_batch(seed: u64, n: usize, d: usize) -> GeneralBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut batch = GeneralBatch::new();
    for _ in 0..n {
        let k = *[4usize, 8, 16, 32, 64, 128, 256]
            .get(rng.random_range(0..7))
            .unwrap();
        let k = rng.random_range(1..=k);
        let axis = unit(&mut rng, d);
        let family = rng.random_range(0..5);
        let spread = if rng.random_bool(0.5) { 0.3 } else { 1.2 };
        let basis: Vec<Vec<f64>> = (0..d - 1).map(|_| unit(&mut rng, d)).collect();
        let mut gens: Vec<Vec<f64>> = Vec::new();
        for _ in 0..k {
            let mut g: Vec<f64> = if family == 1 {
                let r = rng.random_range(1..d);
                let mut v = vec![0.0; d];
                for b in &basis[..r] {
                    let c = rng.random_range(-1.0..1.0);
                    for a in 0..d {
                        v[a] += c * b[a];
                    }
                }
                v
            } else {
                let u = unit(&mut rng, d);
                (0..d).map(|a| axis[a] + spread * u[a]).collect()
            };
            let scale = 10f64.powf(rng.random_range(-2.0..2.0));
            g.iter_mut().for_each(|x| *x *= scale);
            gens.push(g);
        }
        if family == 2 {
            let l = unit(&mut rng, d);
            gens.push(l.iter().map(|x| -x).collect());
            gens.push(l);
        }
        if family == 3 {
            let copies: Vec<Vec<f64>> = gens.iter().take(3).cloned().collect();
            for c in copies {
                gens.push(c.iter().map(|x| x * 2.5).collect());
            }
            gens.push(vec![0.0; d]);
        }
        gens.truncate(256);
        let need: Vec<f64> = match rng.random_range(0..5) {
            0 => vec![0.0; d],
            1 => axis.clone(),
            2 => {
                let mut v = vec![0.0; d];
                for _ in 0..rng.random_range(1..4) {
                    let g = &gens[rng.random_range(0..gens.len())];
                    let c = rng.random_range(0.1..2.0);
                    for a in 0..d {
                        v[a] += c * g[a];
                    }
                }
                v
            }
            _ => unit(&mut rng, d),
        };
        batch.push(d, &gens.concat(), &need).unwrap();
    }
    batch
}

/// Every proof of an outcome, re-checked in float64.
fn proofs_valid(batch: &GeneralBatch, i: usize, o: &GeneralOutcome) -> Result<(), String> {
    let case = batch.get(i);
    match o.verdict {
        Verdict::Supported => {
            let (idx, w) = o.witness().ok_or("supported without a witness")?;
            if idx.len() > case.dim {
                return Err(format!("witness of {} generators", idx.len()));
            }
            if !solver::witness(&case, idx, w) {
                return Err(format!("witness {idx:?} {w:?} fails"));
            }
        }
        Verdict::Unsupported => {
            let y = o.certificate.ok_or("unsupported without a certificate")?;
            if !solver::certificate(&case, &y[..case.dim]) {
                return Err(format!("certificate {y:?} fails"));
            }
        }
        Verdict::Uncertain => {}
    }
    Ok(())
}

/// GPU against CPU over a batch: (agreeing, uncertain on one side only), panicking with
/// every disagreement or failed proof.
fn compare(name: &str, batch: &GeneralBatch, gpu: &[GeneralOutcome], cpu: &[GeneralOutcome]) {
    let mut failures = Vec::new();
    let mut same_verdict = 0;
    let mut one_uncertain = 0;
    for i in 0..batch.len() {
        let (g, c) = (&gpu[i], &cpu[i]);
        let s = nrm(batch.get(i).need);
        if let Some(why) = g.disagreement(c, s) {
            failures.push(format!("{name} case {i}: {why}"));
        }
        if let Err(why) = proofs_valid(batch, i, g) {
            failures.push(format!("{name} case {i}: GPU proof: {why}"));
        }
        if g.verdict == c.verdict {
            same_verdict += 1;
        } else {
            one_uncertain += 1;
        }
    }
    eprintln!(
        "{name}: {} cases, {same_verdict} same verdict, {one_uncertain} uncertain on one side",
        batch.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn run_both(name: &str, batch: &GeneralBatch) -> Option<Stats> {
    let gpu = Engine::from(gpu()?);
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

/// The shader's hints against the twin's on the same upload: passive sets, statuses and
/// iteration counts equal, residuals within float32 rounding. GPU compilers may contract a
/// product into the sum after it, so a case may tie-break differently; at most 1% may
/// differ, and the count is printed.
#[test]
fn the_shader_search_equals_its_twin() {
    let Some(mut gpu) = gpu() else { return };
    for d in [3, 6] {
        let mut batch = random_batch(7 + d as u64, 3000, d);
        let public = public_batch();
        for i in 0..public.len() {
            let c = public.get(i);
            if c.dim == d {
                batch.push(d, c.generators, c.need).unwrap();
            }
        }
        for mode in [GeneralMode::PerInvocation, GeneralMode::PerWorkgroup] {
            gpu.general_kernel_mut().unwrap().mode = mode;
            let mut hints = Vec::new();
            gpu.general_hints_into(&batch, &mut hints).expect("gpu");
            let (mut values, mut records) = (Vec::new(), Vec::new());
            pack_range(&batch, 0..batch.len(), &mut values, &mut records);
            let mut differ = Vec::new();
            let mut statuses = [0usize; 3];
            for (i, (h, rec)) in hints.iter().zip(&records).enumerate() {
                let t = search::search(&values, rec);
                statuses[t.status as usize] += 1;
                let mut a = h.index[..h.len as usize].to_vec();
                let mut b = t.index[..t.len as usize].to_vec();
                a.sort_unstable();
                b.sort_unstable();
                let same = a == b && h.status == t.status && h.iterations == t.iterations;
                let close = (h.residual - t.residual).abs() <= 1e-5 * t.residual.max(1e-3);
                if !same || !close {
                    differ.push(format!("case {i}: shader {h:?}\n twin {t:?}"));
                }
            }
            eprintln!(
            "d = {d}, {mode:?}: {} of {} hints differ from the twin; twin statuses (inside, outside, unfinished) {statuses:?}",
            differ.len(),
            batch.len()
        );
            assert!(statuses[HINT_INSIDE as usize] > 100 && statuses[HINT_OUTSIDE as usize] > 100);
            // One invocation per case, Mesa 22.3's lavapipe (Vulkan) gives about 1.5% of
            // d = 6 cases another search (residuals far apart, not rounding), GL's llvmpipe
            // about 0.1%; the same functions in uniform control flow (one workgroup per
            // case) match the twin on both. Cause not found (divergent lanes are the
            // suspect); the host re-solves such cases, so answers are unaffected.
            let allowed = match mode {
                GeneralMode::PerInvocation => batch.len() * 3 / 100,
                GeneralMode::PerWorkgroup => batch.len() / 100,
            };
            assert!(
                differ.len() <= allowed,
                "{} differ:\n{}",
                differ.len(),
                differ[..differ.len().min(10)].join("\n")
            );
        }
    }
}

#[test]
fn one_workgroup_per_case_gives_the_same_hints() {
    let Some(mut gpu) = gpu() else { return };
    for d in [3, 6] {
        let batch = random_batch(90 + d as u64, 1500, d);
        gpu.general_kernel_mut().unwrap().mode = GeneralMode::PerInvocation;
        let mut by_invocation = Vec::new();
        let t = std::time::Instant::now();
        gpu.general_hints_into(&batch, &mut by_invocation)
            .expect("gpu");
        let per_invocation = t.elapsed();
        gpu.general_kernel_mut().unwrap().mode = GeneralMode::PerWorkgroup;
        let mut by_workgroup = Vec::new();
        let t = std::time::Instant::now();
        gpu.general_hints_into(&batch, &mut by_workgroup)
            .expect("gpu");
        let per_workgroup = t.elapsed();
        eprintln!(
            "d = {d}, {} cases: search (upload, kernel, readback) {:.0} cases/s one invocation per case, {:.0} one workgroup per case",
            batch.len(),
            batch.len() as f64 / per_invocation.as_secs_f64(),
            batch.len() as f64 / per_workgroup.as_secs_f64()
        );
        gpu.general_kernel_mut().unwrap().mode = GeneralMode::PerInvocation;
        let differ: Vec<usize> = (0..batch.len())
            .filter(|&i| by_invocation[i] != by_workgroup[i])
            .collect();
        // Equal but where lavapipe's divergent lanes differ (see the twin test): under 1%.
        assert!(
            differ.len() * 100 <= batch.len(),
            "d = {d}: {} differ, first {:?} vs {:?}",
            differ.len(),
            by_invocation[differ[0]],
            by_workgroup[differ[0]]
        );
    }
}

#[test]
fn chunked_uploads_match_one_dispatch() {
    let Some(mut gpu) = gpu() else { return };
    let mut batch = random_batch(5, 600, 6);
    let more = random_batch(6, 600, 3);
    for i in 0..more.len() {
        let c = more.get(i);
        batch.push(c.dim, c.generators, c.need).unwrap();
    }
    let mut whole = Vec::new();
    gpu.general_hints_into(&batch, &mut whole).expect("gpu");
    // Chunks of at most 37 cases and of the fewest numbers allowed (one largest case).
    gpu.general_kernel_mut().unwrap().limit_chunks(37, 0);
    let (cases, values) = gpu.general_kernel_mut().unwrap().chunk_limits();
    assert_eq!((cases, values), (37, planar_hold::MAX_DIM * 257));
    let mut chunked = Vec::new();
    gpu.general_hints_into(&batch, &mut chunked).expect("gpu");
    assert_eq!(whole.len(), batch.len());
    assert!(whole == chunked, "chunked hints differ from one dispatch");
    // An empty batch, then a small one, on the same buffers.
    let gpu = Engine::from(gpu);
    let (out, _) = general_on(&gpu, &GeneralBatch::new());
    assert!(out.is_empty());
    let (out, stats) = general_on(&gpu, &random_batch(8, 3, 3));
    assert_eq!((out.len(), stats.cases), (3, 3));
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
        let mut shorter = GeneralBatch::new();
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
            .evaluate_into(&Batch::new(), Options::default(), &mut answers)
            .unwrap();
        assert!(answers.general.is_empty() && answers.planar.is_empty());
    }
}

/// The twin alone (no GPU needed): its hints, confirmed by the float64 solve, give the
/// CPU's answers, and most are confirmed as they are.
#[test]
fn twin_hints_finish_to_the_cpu_answers() {
    for d in [3, 6] {
        let batch = random_batch(21 + d as u64, 800, d);
        let (mut values, mut records) = (Vec::new(), Vec::new());
        pack_range(&batch, 0..batch.len(), &mut values, &mut records);
        let hints: Vec<GeneralHint> = records.iter().map(|r| search::search(&values, r)).collect();
        // Each case finished from its hint as the engine finishes the GPU's, one solver.
        let mut solver = Solver::new();
        let mut resolved = 0;
        let out: Vec<GeneralOutcome> = hints
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let (o, confirmed) = solver.solve_hinted(&batch.get(i), &h.index[..h.len as usize]);
                resolved += usize::from(!confirmed);
                o
            })
            .collect();
        let stats = Stats {
            cases: batch.len(),
            resolved,
        };
        let (expected, _) = general_on(&Engine::cpu(), &batch);
        eprintln!(
            "twin d = {d}: {} re-solved of {}",
            stats.resolved, stats.cases
        );
        compare(&format!("twin d={d}"), &batch, &out, &expected);
        assert!(stats.resolved * 5 <= stats.cases);
    }
}

#[test]
fn pod_layouts_match_the_shader() {
    assert_eq!(size_of::<GeneralRecord>(), 16);
    assert_eq!(size_of::<GeneralHint>(), 48);
    assert_eq!(size_of::<GeneralParams>(), 16);
    let module = naga::front::wgsl::parse_str(SEARCH_WGSL).expect("parses");
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let mut seen = 0;
    for (handle, ty) in module.types.iter() {
        let Some(name) = ty.name.as_deref() else {
            continue;
        };
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            continue;
        };
        let offsets: Vec<(String, u32)> = members
            .iter()
            .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
            .collect();
        let off = |n: &str| offsets.iter().find(|(m, _)| m == n).map(|x| x.1 as usize);
        match name {
            "Record" => {
                assert_eq!(*span as usize, size_of::<GeneralRecord>());
                assert_eq!(off("count"), Some(offset_of!(GeneralRecord, count)));
                assert_eq!(off("dim"), Some(offset_of!(GeneralRecord, dim)));
            }
            "Hint" => {
                assert_eq!(*span as usize, size_of::<GeneralHint>());
                assert_eq!(off("len"), Some(offset_of!(GeneralHint, len)));
                assert_eq!(off("index"), Some(offset_of!(GeneralHint, index)));
                assert_eq!(off("residual"), Some(offset_of!(GeneralHint, residual)));
                assert_eq!(off("iterations"), Some(offset_of!(GeneralHint, iterations)));
            }
            "GeneralParams" => assert_eq!(*span as usize, size_of::<GeneralParams>()),
            _ => continue,
        }
        let _ = layouter[handle].size;
        seen += 1;
    }
    assert_eq!(seen, 3);
}

/// `eval --backend both` over the public cases: the GPU's general answers equal the CPU's
/// (exit 0, not 3), and the run says how many the host re-solved.
#[test]
fn eval_on_the_gpu_answers_general_rows_and_counts_the_re_solved() {
    if gpu().is_none() {
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

/// A large chunk is packed on all cores: the same bytes as case by case.
#[test]
fn packing_on_all_cores_equals_case_by_case() {
    let mut batch = random_batch(3, 3000, 6);
    let more = random_batch(4, 3000, 3);
    for i in 0..more.len() {
        let c = more.get(i);
        batch.push(c.dim, c.generators, c.need).unwrap();
    }
    let (mut values, mut records) = (Vec::new(), Vec::new());
    pack_range(&batch, 100..batch.len(), &mut values, &mut records);
    let mut one_by_one = Vec::new();
    for i in 100..batch.len() {
        let rec = search::pack_case(&batch.get(i), &mut one_by_one);
        assert_eq!(rec, records[i - 100], "record {i}");
    }
    assert!(values == one_by_one);
    // Unit vectors: every generator's float32 length is 1 (or 0 for a zero generator).
    for rec in &records {
        let d = rec.dim as usize;
        for g in 0..=rec.count as usize {
            let at = rec.offset as usize + g * d;
            let n = values[at..at + d].iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!(n == 0.0 || (n - 1.0).abs() < 1e-6, "length {n}");
        }
    }
}

/// The invariants of tests/general/engine.rs on the GPU engine: the whole case scaled by 1e-30 and
/// 1e30 scales the margin, each generator scaled on its own and the generators permuted
/// change nothing; every proof re-checked.
#[test]
fn invariants_hold_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    let gpu = Engine::from(gpu);
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
            let mut batch = GeneralBatch::new();
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
