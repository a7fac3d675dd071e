//! Sliding contacts (docs/contract-scenes.md, "slip"): the public sliding set (planar and
//! spatial lines) through the gate graded by the project's own rules on every backend, its
//! invalid lines refused as the contract lists, the pushed box of the contract's worked
//! reference held exactly for push heights in [−29/6, 17/6], and the invariants of Coulomb's
//! law while slipping over thousands of random scenes: a slip scaled or given a normal
//! component, a sliding point written as a degenerate edge, a sliding segment or face written
//! as its points, sliding never holding more than sticking, μ = 0 sliding as μ = 0 sticking,
//! mirror images, and the GPU against the CPU.

use std::path::Path;

use crate::common::grade;
use planar_hold::general::GeneralBatch;
use planar_hold::rng::Rng;
use planar_hold::scene::{hold_reports, parse_line, parse_planar, Report, SceneLine};
use planar_hold::{Backend, Batch, Engine, Options, Verdict};
use serde_json::{json, Value};

/// `gate` on the public sliding set with `backend`: the planar lines graded as planar scenes
/// (with the sliding evidence rule: every witness and certificate re-checked against the
/// generators rebuilt with the slips), the spatial lines as spatial scenes (support regions
/// included).
fn grade_public(backend: &str) {
    let run = crate::common::cli()
        .arg("gate")
        .arg(crate::common::data("sliding_public.jsonl"))
        .args(["--backend", backend])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "gate failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let answers: Vec<Value> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines = crate::common::read_data("sliding_public.jsonl");
    let expected = crate::common::read_data("sliding_public.expected.jsonl");
    assert_eq!(answers.len(), lines.len());
    let of_kind = |kind: &str| -> (Vec<Value>, Vec<Value>) {
        (lines.iter().zip(&expected))
            .filter(|(_, e)| e["kind"] == kind)
            .map(|(l, e)| (l.clone(), e.clone()))
            .unzip()
    };
    let (planar, planar_expected) = of_kind("planar");
    let (spatial, spatial_expected) = of_kind("spatial");
    assert_eq!((planar.len(), spatial.len()), (67, 93));
    let graded = grade::planar_scenes(
        &planar,
        &planar_expected,
        &answers,
        &format!("sliding_public planar ({backend})"),
    );
    println!("{graded}");
    graded.assert_passed();
    let sliding = planar.iter().filter(|l| grade::slides(l)).count();
    assert_eq!(graded.checked["sliding evidence"], sliding, "{graded}");
    let graded = grade::spatial_scenes(
        &spatial,
        &spatial_expected,
        &answers,
        true,
        &format!("sliding_public spatial ({backend})"),
    );
    println!("{graded}");
    graded.assert_passed();
    // Every answer names its sliding contacts, with the direction used.
    for (line, answer) in lines.iter().zip(&answers) {
        let given: Vec<usize> = (line["contacts"].as_array().unwrap().iter().enumerate())
            .filter(|(_, c)| !c["slip"].is_null())
            .map(|(k, _)| k)
            .collect();
        let named: Vec<usize> = (answer["sliding"].as_array().into_iter().flatten())
            .map(|s| s["contact"].as_u64().unwrap() as usize)
            .collect();
        assert_eq!(given, named, "{}", line["id"]);
    }
}

#[test]
fn the_public_sliding_set_passes_the_grader_on_the_cpu() {
    grade_public("cpu");
}

/// The same on the GPU (CI: GL and Vulkan): the planar lines by the enumeration's kernel,
/// the spatial ones by the general engine's search finished on the host.
#[test]
fn the_public_sliding_set_passes_the_grader_on_the_gpu() {
    if crate::common::gpu_engine().is_some() {
        grade_public("gpu");
    }
}

/// Every invalid line of the public set refused as the contract lists (a slip of the wrong
/// length or not finite, without a tangential part, on an interval μ, on an edit or a grasp
/// line), by line, with its problem named and never as an unknown field; a file of them
/// with good lines between answers the good ones.
#[test]
fn the_public_invalid_sliding_lines_are_refused_by_line_with_the_problem() {
    let graded = grade::refusals(
        Path::new(env!("CARGO_BIN_EXE_planar-hold")),
        &["gate", "--backend", "cpu"],
        &crate::common::data("sliding_public_invalid.jsonl"),
        &crate::common::data("sliding_public_invalid.expected.jsonl"),
        |_| false,
        "sliding_public_invalid",
    );
    println!("{graded}");
    graded.assert_passed();
    assert_eq!(graded.cases, 12);
    assert_eq!(graded.checked["refused for its own problem"], 12);

    let bad = std::fs::read_to_string(crate::common::data("sliding_public_invalid.jsonl")).unwrap();
    let good = std::fs::read_to_string(crate::common::data("sliding_public.jsonl")).unwrap();
    let good: Vec<&str> = good.lines().take(12).collect();
    let mixed: String = bad
        .lines()
        .zip(&good)
        .flat_map(|(b, g)| [*g, b])
        .map(|l| format!("{l}\n"))
        .collect();
    let file = std::env::temp_dir().join(format!(
        "planar-hold-sliding-mixed-{}.jsonl",
        std::process::id()
    ));
    std::fs::write(&file, mixed).unwrap();
    let out = crate::common::cli()
        .args(["gate", file.to_str().unwrap(), "--backend", "cpu"])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    assert_eq!(out.status.code(), Some(5), "bad lines: exit status 5");
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 24);
    for (k, a) in answers.iter().enumerate() {
        if k % 2 == 0 {
            assert!(a["held"].is_boolean(), "line {}: {a}", k + 1);
        } else {
            assert_eq!(a["line"], k as u64 + 1, "{a}");
            let error = a["error"].as_str().unwrap();
            assert!(error.contains("slip") || error.contains("finite"), "{a}");
        }
    }
}

// ------------------------------------------------------------------ the pushed box

/// The contract's reference: a box of half-size 1 sliding right on the floor (μ = 0.3),
/// pushed at `(−1, h)` by a sticking finger (μ = 0.5).
fn pushed_box(h: f64) -> String {
    json!({"id": format!("push h={h}"), "half_size": 1.0, "contacts": [
        {"pair": 0, "p0": [-1.0, -1.0], "p1": [1.0, -1.0], "normal": [0.0, 1.0], "mu": 0.3,
         "slip": [1.0, 0.0]},
        {"pair": 1, "p0": [-1.0, h], "p1": [-1.0, h], "normal": [1.0, 0.0], "mu": 0.5}]})
    .to_string()
}

fn cpu() -> Engine {
    Engine::new(Backend::Cpu).unwrap()
}

fn report(engine: &mut Engine, line: &str) -> Report {
    let scene = parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    hold_reports(engine, &[scene]).unwrap().remove(0)
}

/// Held exactly for −29/6 ≤ h ≤ 17/6: by the gate (the planar enumeration, float32) 1e-3
/// inside and outside both ends, and by the general engine (float64) on the same generators
/// 1e-5 inside and outside, with the margin 0 at both ends.
#[test]
fn the_pushed_box_holds_exactly_between_minus_29_6_and_17_6() {
    let mut engine = cpu();
    let (lo, hi) = (-29.0 / 6.0, 17.0 / 6.0);
    for (h, held) in [
        (lo - 1e-3, false),
        (lo + 1e-3, true),
        (-1.0, true),
        (0.0, true),
        (1.0, true),
        (hi - 1e-3, true),
        (hi + 1e-3, false),
    ] {
        let r = report(&mut engine, &pushed_box(h));
        assert_eq!(r.held(), held, "h = {h}: {:?}", r.reason());
        assert!(!r.uncertain(), "h = {h}: decisive");
        if !held {
            let reason = r.reason().unwrap();
            assert!(reason.contains("certified unsupported"), "{reason}");
            assert!(
                reason.contains("contact 0 (pair 0) slides along (1.00000, 0.00000)"),
                "the reason names the sliding floor: {reason}"
            );
        }
    }
    // The same generators in float64, by the general engine: the ends to 1e-5.
    let mut batch = GeneralBatch::new();
    let heights = [lo - 1e-5, lo + 1e-5, hi - 1e-5, hi + 1e-5, lo, hi];
    for h in heights {
        let SceneLine::Planar(s) = parse_line(&pushed_box(h)).unwrap() else {
            unreachable!()
        };
        batch
            .push(3, &s.generators_f64().concat(), &[0.0, 1.0, 0.0])
            .unwrap();
    }
    let answers = engine
        .evaluate(&Batch::from(batch), Options::default())
        .unwrap();
    let verdicts: Vec<Verdict> = answers.general.iter().map(|o| o.verdict).collect();
    assert_eq!(
        verdicts[..4],
        [
            Verdict::Unsupported,
            Verdict::Supported,
            Verdict::Supported,
            Verdict::Unsupported
        ]
    );
    for o in &answers.general[4..] {
        assert!(o.margin.abs() < 1e-12, "margin at an end: {}", o.margin);
    }
}

/// At h = 0: held, margin μ/√(1+μ²) = 0.3/√1.09 (the plane through the two floor rays binds),
/// the floor's rays (−0.3, 1) at both corners; the contract's witness (generators 0, 1, 3,
/// weights 0.23913, 0.63043, 0.26087: the floor's corners and the finger's upper ray) holds
/// on these generators, and so does the one reported (the enumeration's first in table order).
#[test]
fn the_pushed_box_at_h_0_has_the_contracts_margin_and_witness() {
    let line = pushed_box(0.0);
    let SceneLine::Planar(scene) = parse_line(&line).unwrap() else {
        unreachable!()
    };
    let g = scene.generators_f64();
    assert_eq!(g.len(), 6);
    assert_eq!(g[0], [-0.3, 1.0, 1.3]);
    assert_eq!(g[1], [-0.3, 1.0, -0.7]);
    assert_eq!(g[3], [1.0, 0.5, 0.5]);
    let Report::Planar(r) = report(&mut cpu(), &line) else {
        unreachable!()
    };
    assert!(r.held);
    let want = 0.3 / 1.09f64.sqrt();
    assert!(
        (r.robust_margin as f64 - want).abs() < 1e-6,
        "{}",
        r.robust_margin
    );
    let need = &r.needs[0];
    assert_eq!(need.binding.as_ref().unwrap().generators, [0, 1]);
    let reproduces = |idx: &[u32], w: &[f64], tol: f64| {
        let sum: Vec<f64> = (0..3)
            .map(|a| idx.iter().zip(w).map(|(&i, x)| x * g[i as usize][a]).sum())
            .collect();
        (sum[0].abs() < tol && (sum[1] - 1.0).abs() < tol && sum[2].abs() < tol)
            && w.iter().all(|&x| x >= 0.0)
    };
    assert!(reproduces(&[0, 1, 3], &[0.23913, 0.63043, 0.26087], 1e-5));
    // Exactly: N = 0.86957 = 20/23 on the floor, the finger 6/23 pushing up.
    assert!(reproduces(
        &[0, 1, 3],
        &[5.5 / 23.0, 14.5 / 23.0, 6.0 / 23.0],
        1e-15
    ));
    let w = need.witness.as_ref().unwrap();
    assert!(reproduces(&w.generators, &w.weights, 1e-6), "{w:?}");
    assert_eq!(r.sliding.len(), 1);
    assert_eq!(r.sliding[0].direction, [1.0, 0.0]);
    assert_eq!(r.sliding[0].ray, [-0.3, 1.0]);
}
