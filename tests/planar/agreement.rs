//! GPU against CPU on thousands of random and degenerate cases, every answer's evidence
//! checked in float64, and chunked streaming against one dispatch.

use planar_hold::details::device::GpuBackend;
use planar_hold::details::device::GpuContext;
use planar_hold::details::device::GpuOptions;
use planar_hold::details::planar;
use planar_hold::details::sample::Rng;
use planar_hold::details::sample::{box_cases, case_of_kind, mixed_cases, KINDS};
use planar_hold::{Case, Engine, Outcome, Verdict};

/// Checks an outcome's evidence in float64, as an outsider would: a witness reproduces the
/// need with non-negative weights; a certificate is a unit normal with every generator on
/// its side and the need strictly beyond.
fn check_evidence(case: &Case, o: &Outcome) -> Result<(), String> {
    let g = |i: u32| case.generators[i as usize].map(f64::from);
    let need = case.need.map(f64::from);
    let need_len = need.iter().map(|v| v * v).sum::<f64>().sqrt();
    match o.verdict() {
        Verdict::Supported => {
            let w = o.witness().ok_or("supported without a witness")?;
            let mut sum = [0.0f64; 3];
            for (&i, &l) in w.indices.iter().zip(&w.weights) {
                if case.active_mask >> i & 1 == 0 {
                    return Err(format!("witness uses inactive generator {i}"));
                }
                if l < 0.0 {
                    return Err(format!("negative weight {l}"));
                }
                for (s, gk) in sum.iter_mut().zip(g(i)) {
                    *s += l * gk;
                }
            }
            let r = (0..3)
                .map(|k| (sum[k] - need[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            // Where the cone fills R³ and every witness has forces far beyond the need,
            // docs/contract-planar.md §7 scales the tolerance by those forces.
            let forces: f64 = w
                .indices
                .iter()
                .zip(&w.weights)
                .map(|(&i, &l)| l * dot_len(g(i)))
                .sum();
            let scale = if o.is_capped() {
                need_len.max(forces)
            } else {
                need_len.max(1.0)
            };
            if r > 1e-4 * scale {
                return Err(format!("witness residual {r}"));
            }
        }
        Verdict::Unsupported => {
            let y = o
                .certificate()
                .ok_or("unsupported without a certificate")?
                .map(f64::from);
            let dot = |a: [f64; 3]| a[0] * y[0] + a[1] * y[1] + a[2] * y[2];
            if (dot(y) - 1.0).abs() > 1e-5 {
                return Err("certificate not unit".into());
            }
            for (i, w) in case.active_generators() {
                let w = w.map(f64::from);
                if dot(w) < -1e-4 * dot_len(w) {
                    return Err(format!(
                        "certificate has generator {i} beyond it: {}",
                        dot(w)
                    ));
                }
            }
            if dot(need) >= 0.0 {
                return Err(format!("certificate y·need = {} not < 0", dot(need)));
            }
        }
        Verdict::Uncertain => {}
    }
    Ok(())
}

fn dot_len(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// 2,000 cases of every kind of `sample::KINDS` plus 4,000 boxes: 28,000 cases.
fn workload() -> Vec<Case> {
    let mut rng = Rng::new(7);
    let mut cases: Vec<Case> = (0..KINDS.len() * 2000)
        .map(|i| case_of_kind(&mut rng, i % KINDS.len()))
        .collect();
    cases.extend(box_cases(11, 4000));
    cases
}

#[test]
fn cpu_answers_carry_valid_evidence() {
    let cases = workload();
    let outcomes = crate::common::planar_outcomes(&Engine::cpu(), &cases);
    let bad: Vec<String> = cases
        .iter()
        .zip(&outcomes)
        .enumerate()
        .filter_map(|(i, (c, o))| {
            check_evidence(c, o)
                .err()
                .map(|e| format!("case {i} ({}): {e}", KINDS[i % KINDS.len()]))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} bad: {:?}",
        bad.len(),
        &bad[..bad.len().min(10)]
    );
    // The workload reaches every verdict.
    for v in [Verdict::Supported, Verdict::Unsupported] {
        assert!(
            outcomes.iter().filter(|o| o.verdict() == v).count() > 1000,
            "{v:?}"
        );
    }
}

#[test]
fn gpu_agrees_with_cpu_on_random_and_degenerate_cases() {
    let Some(gpu) = crate::common::gpu_engine() else {
        return;
    };
    let cases = workload();
    let on_cpu = crate::common::planar_outcomes(&Engine::cpu(), &cases);
    let on_gpu = crate::common::planar_outcomes(&gpu, &cases);
    let mut disagreements = Vec::new();
    let mut same_witness = 0usize;
    for (i, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        if let Some(why) = g.disagreement(c) {
            disagreements.push(format!("case {i} ({}): {why}", KINDS[i % KINDS.len()]));
        }
        if g.witness().map(|w| w.indices) == c.witness().map(|w| w.indices) {
            same_witness += 1;
        }
        if let Err(e) = check_evidence(&cases[i], g) {
            disagreements.push(format!("case {i}: GPU evidence: {e}"));
        }
    }
    let n = cases.len();
    eprintln!(
        "GPU/CPU on {n} cases: {} disagreements, witness subsets equal in {same_witness}",
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{:?}",
        &disagreements[..disagreements.len().min(10)]
    );
    assert!(
        same_witness as f64 >= 0.999 * n as f64,
        "witness subsets equal in only {same_witness}/{n}"
    );
}

#[test]
fn chunked_streaming_matches_one_dispatch() {
    let Some(ctx) = crate::common::gpu_or_skip(GpuContext::from_env()) else {
        return;
    };
    // Chunks of 7 workgroups (448 cases): a 5,000-case batch takes 12 chunks, more than
    // one chunk and more than one dispatch's worth of workgroups.
    let options = GpuOptions {
        max_chunk_cases: 1000,
        max_workgroups: 7,
    };
    let small = Engine::from(GpuBackend::new(ctx, options).unwrap());
    assert_eq!(small.gpu().unwrap().chunk_cases(), 448);
    let cases = mixed_cases(3, 5000);
    let chunked = crate::common::planar_outcomes(&small, &cases);
    let Some(whole) = crate::common::gpu_engine() else {
        return;
    };
    let at_once = crate::common::planar_outcomes(&whole, &cases);
    assert_eq!(chunked, at_once);
    // Reused buffers: a second, shorter batch on the same engine, and an empty one.
    let again = crate::common::planar_outcomes(&small, &cases[..999]);
    assert_eq!(&again[..], &at_once[..999]);
    assert!(crate::common::planar_outcomes(&small, &[]).is_empty());
    // And the CPU agrees case by case.
    let on_cpu = crate::common::planar_outcomes(&Engine::cpu(), &cases);
    assert!(chunked
        .iter()
        .zip(&on_cpu)
        .all(|(g, c)| g.disagreement(c).is_none()));
}

#[test]
fn single_thread_and_batch_cpu_agree_exactly() {
    let cases = mixed_cases(5, 3000);
    let batch = crate::common::planar_outcomes(&Engine::cpu(), &cases);
    let one_by_one: Vec<Outcome> = cases.iter().map(planar::cone_test).collect();
    assert_eq!(batch, one_by_one);
}

#[test]
fn chunks_smaller_than_the_smallest_slot_work() {
    let Some(ctx) = crate::common::gpu_or_skip(GpuContext::from_env()) else {
        return;
    };
    // One workgroup per dispatch: 64-case chunks, below the 256-case slot minimum.
    let options = GpuOptions {
        max_chunk_cases: 1 << 17,
        max_workgroups: 1,
    };
    let tiny = Engine::from(GpuBackend::new(ctx, options).unwrap());
    assert_eq!(tiny.gpu().unwrap().chunk_cases(), 64);
    let cases = mixed_cases(4, 300);
    let out = crate::common::planar_outcomes(&tiny, &cases);
    assert!(out
        .iter()
        .zip(&crate::common::planar_outcomes(&Engine::cpu(), &cases))
        .all(|(g, c)| g.disagreement(c).is_none()));
}

/// The cases of `mixed_cases(seed, n)` with their generators scattered over random slots
/// and junk left in the inactive ones: holes below the highest active slot, which bounds
/// every loop of the kernel, and data the kernel must never read.
fn scattered_cases(seed: u64, n: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    mixed_cases(seed, n)
        .into_iter()
        .map(|case| {
            let mut slots: Vec<usize> = (0..16).collect();
            for i in (1..16).rev() {
                slots.swap(i, rng.below(i + 1));
            }
            let mut out = case;
            out.active_mask = 0;
            for g in &mut out.generators {
                *g = rng.vector();
            }
            for ((_, g), &slot) in case.active_generators().zip(&slots) {
                out.generators[slot] = g;
                out.active_mask |= 1 << slot;
            }
            out
        })
        .collect()
}

#[test]
fn scattered_slots_fast_path_matches_the_reference_exactly() {
    let cases = scattered_cases(13, 20_000);
    let batch = crate::common::planar_outcomes(&Engine::cpu(), &cases);
    let one_by_one: Vec<Outcome> = cases.iter().map(planar::cone_test).collect();
    assert_eq!(batch, one_by_one);
}

#[test]
fn gpu_agrees_with_cpu_on_scattered_slots() {
    let Some(gpu) = crate::common::gpu_engine() else {
        return;
    };
    let cases = scattered_cases(17, 3000);
    let on_gpu = crate::common::planar_outcomes(&gpu, &cases);
    let on_cpu = crate::common::planar_outcomes(&Engine::cpu(), &cases);
    let bad: Vec<String> = on_gpu
        .iter()
        .zip(&on_cpu)
        .enumerate()
        .filter_map(|(i, (g, c))| g.disagreement(c).map(|why| format!("case {i}: {why}")))
        .collect();
    assert!(bad.is_empty(), "{:?}", &bad[..bad.len().min(10)]);
}
