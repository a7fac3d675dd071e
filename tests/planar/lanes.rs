//! The CPU fast path against the scalar reference, byte for byte, on every instruction set
//! this CPU can run: lane groups, slot bounds and the sort by slots change no answer. And
//! the choice of instruction set through `PLANAR_HOLD_SIMD`, as the CLI reports it.

use planar_hold::details::planar;
use planar_hold::details::sample::Rng;
use planar_hold::details::sample::{box_cases, case_of_kind, mixed_cases, KINDS};
use planar_hold::details::Simd;
use planar_hold::{Case, Outcome, MAX_GENERATORS};

/// The outcomes of `simd`, one call over the whole slice.
fn fast(simd: Simd, cases: &[Case]) -> Vec<Outcome> {
    let mut out = vec![Outcome::default(); cases.len()];
    planar::cone_test_slice_with(simd, cases, &mut out);
    out
}

/// Index, case and both outcomes of every case whose bytes differ (at most 5 shown).
fn differences(simd: Simd, cases: &[Case]) -> Vec<String> {
    let got = fast(simd, cases);
    cases
        .iter()
        .zip(&got)
        .enumerate()
        .filter_map(|(i, (case, g))| {
            let want = planar::cone_test(case);
            (bytemuck::bytes_of(g) != bytemuck::bytes_of(&want))
                .then(|| format!("{simd} case {i}: {case:?}\n  fast {g:?}\n  ref  {want:?}"))
        })
        .take(5)
        .collect()
}

fn assert_all_paths_match(cases: &[Case]) {
    let paths: Vec<Simd> = Simd::ALL.into_iter().filter(|s| s.available()).collect();
    assert!(paths.contains(&Simd::Baseline));
    for simd in paths {
        let bad = differences(simd, cases);
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

#[test]
fn every_kind_matches_the_reference_bit_for_bit() {
    let mut cases = mixed_cases(17, 12_000);
    cases.extend(box_cases(3, 3000));
    assert_all_paths_match(&cases);
}

/// Active slots scattered over all 16 (gaps, the highest slot alone, none), with garbage
/// left in the inactive ones, which every path must read as zero.
#[test]
fn scattered_masks_match_the_reference_bit_for_bit() {
    let mut rng = Rng::new(99);
    let cases: Vec<Case> = (0..6000)
        .map(|i| {
            let case = case_of_kind(&mut rng, i % KINDS.len());
            let mut full = Case {
                need: case.need,
                generators: std::array::from_fn(|_| rng.vector()),
                active_mask: 0,
            };
            // Spread the case's generators over random increasing slots.
            let mut slot = 0;
            for (g, w) in case.generators.iter().enumerate() {
                if case.active_mask >> g & 1 == 1 {
                    slot += rng.below(3);
                    if slot >= MAX_GENERATORS {
                        break;
                    }
                    full.generators[slot] = *w;
                    full.active_mask |= 1 << slot;
                    slot += 1;
                }
            }
            if i % 97 == 0 {
                full.active_mask = 1 << 15;
            }
            // Bits beyond slot 15 mean nothing.
            if i % 5 == 0 {
                full.active_mask |= 0xABCD_0000;
            }
            full
        })
        .collect();
    assert_all_paths_match(&cases);
}

/// Generators and needs from subnormal to about 1e37 within one case, and nearly parallel pairs
/// (the thin pairs whose cross products are taken from exact product errors).
#[test]
fn extreme_scales_and_thin_pairs_match_the_reference_bit_for_bit() {
    let mut rng = Rng::new(5);
    let cases: Vec<Case> = (0..6000)
        .map(|i| {
            let mut case = case_of_kind(&mut rng, i % KINDS.len());
            // Now and then subnormal or near the largest float32.
            let scale = |rng: &mut Rng| match rng.below(10) {
                0 => 1e-42,
                1 => 2e37,
                _ => 10f32.powi(rng.below(61) as i32 - 30),
            };
            let original = case.generators;
            for g in 0..MAX_GENERATORS {
                if case.active_mask >> g & 1 == 1 {
                    if i % 3 == 0 && g > 0 {
                        // Nearly parallel to the previous generator.
                        let e = 1e-4 * rng.unit();
                        case.generators[g] = original[g - 1].map(|x| x * (1.0 + e) + e);
                    }
                    if i % 2 == 0 {
                        let s = scale(&mut rng);
                        case.generators[g] = case.generators[g].map(|x| x * s);
                    }
                }
            }
            if i % 4 == 1 {
                let s = scale(&mut rng);
                case.need = case.need.map(|x| x * s);
            }
            let finite = |v: &[f32; 3]| v.iter().all(|x| x.is_finite());
            assert!(finite(&case.need) && case.generators.iter().all(finite));
            case
        })
        .collect();
    assert_all_paths_match(&cases);
}

/// Lengths around the lane counts and the sort's block, so that partial groups and blocks
/// are padded and scattered back correctly.
#[test]
fn partial_groups_match_the_reference() {
    let cases = mixed_cases(8, 2100);
    for n in [0, 1, 7, 8, 9, 15, 16, 17, 1023, 1024, 1025, 2100] {
        assert_all_paths_match(&cases[..n]);
    }
}

#[test]
fn cli_reports_the_instruction_set_and_rejects_a_bad_one() {
    let out = crate::common::cli()
        .arg("info")
        .env("PLANAR_HOLD_SIMD", "sse9")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("PLANAR_HOLD_SIMD") && stderr.contains("sse9"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let out = crate::common::cli()
        .args(["bench", "--backend", "cpu1", "--cases", "300", "--json"])
        .env("PLANAR_HOLD_SIMD", "baseline")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("CPU fast path: baseline"), "{stdout}");
    let line: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(line["simd"], "baseline");
    let active = line["mean_active_generators"].as_f64().unwrap();
    // The workload: the --cases of the run (its largest batch), seed 2026.
    let cases = planar_hold::details::sample::mixed_cases(2026, 300);
    let expected = cases
        .iter()
        .map(|c| c.active_mask.count_ones() as f64)
        .sum::<f64>()
        / cases.len() as f64;
    assert!((active - expected).abs() < 1e-9, "{active} vs {expected}");
}
