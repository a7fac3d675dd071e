//! The proofs of the two bounds (docs/proof.md): every public answer's proof passes the checker
//! and gives the bounds the answer reports; proofs with a planted bug (a face dropped or
//! repeated, an index changed, a bound nudged, the wrong plane, a witness's weight changed) are
//! caught.

use planar_hold::details::proof::{check, check_answer, check_disc_answer, DiscPoint};
use planar_hold::details::proof::{InnerProof, Measure, Proof};
use planar_hold::details::scene::{grasp_discs, main_pyramid};
use planar_hold::{hold_reports, parse_line, Report, SceneLine};
use planar_hold::{Backend, Engine, Options, Verdict};
use planar_hold::{GeneralBatch, GeneralCase, GENERAL_MARGIN_CAP};

fn nrm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(crate::common::data(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// The general cases of a public set (those of 6 numbers or more than 16 generators), as a batch.
fn general_batch(name: &str) -> GeneralBatch {
    let mut batch = GeneralBatch::default();
    for line in lines(name) {
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let rows: Vec<Vec<f64>> = serde_json::from_value(v["generators"].clone()).unwrap();
        let d = rows.first().map_or(3, Vec::len);
        if d == 3 && rows.len() <= 16 {
            continue;
        }
        let need: Vec<f64> = match v.get("need") {
            Some(n) => serde_json::from_value(n.clone()).unwrap(),
            None => planar_hold::default_need(d).to_vec(),
        };
        if batch.push(d, &rows.concat(), &need).is_err() {
            continue;
        }
    }
    batch
}

/// `check_answer` of the answer `o` to the cone test `case` with its proof `p`, within `tol`.
pub(crate) fn check_cone_answer(
    case: &GeneralCase<'_>,
    o: &planar_hold::GeneralOutcome,
    p: &Proof,
    tol: f64,
) -> Result<(), String> {
    check_answer(
        case.generators,
        case.dim,
        case.need,
        p,
        o.margin,
        o.margin_lower,
        o.margin_checked,
        tol,
        GENERAL_MARGIN_CAP,
    )
    .map(|_| ())
}

fn options() -> Options {
    Options {
        proof: true,
        ..Options::default()
    }
}

/// Every answer of the general public sets with a proof passes, and its bounds are the
/// answer's; a proof is missing only where there is nothing to prove (the near-duplicate
/// cones' inner hulls included: a face that folds against its neighbour by rounding is
/// retried with the neighbour replaced).
#[test]
fn every_public_cone_test_proof_passes() {
    let engine = Engine::new(Backend::Cpu).unwrap();
    for name in ["general_public.jsonl", "general_dup_public.jsonl"] {
        let batch = general_batch(name);
        let answers = engine.evaluate(&batch.clone().into(), options()).unwrap();
        let (mut checked, mut missing) = (0, 0);
        for (i, o) in answers.general.iter().enumerate() {
            let case = batch.get(i);
            match &answers.proofs[i] {
                Some(p) => {
                    check_cone_answer(&case, o, p, 1e-9 * nrm(case.need))
                        .unwrap_or_else(|e| panic!("{name} case {i}: {e}"));
                    checked += 1;
                }
                None => {
                    let due = o.verdict != Verdict::Uncertain
                        && !o.capped
                        && !(o.verdict == Verdict::Supported && o.facet.is_none())
                        && nrm(case.need) > 0.0;
                    missing += usize::from(due);
                }
            }
        }
        assert!(checked > 200, "{name}: {checked} proofs");
        // The local search closes on every public case (where it could not, the whole facet
        // set would answer, its completeness proof not in this form).
        assert_eq!(missing, 0, "{name}: {missing} answers without a proof");
    }
}

/// The local search and its proof at every scale: the general public sets with the need and
/// every generator scaled by 2^-500, 2^-100, 2^100 and 2^500 (exactly: about 1e-151, 1e-30,
/// 1e30 and 1e151) are answered as unscaled, the same verdicts and margins (scaled), and with
/// a proof that passes wherever the unscaled answer has one. A thin face's normal is derived
/// from its generators as given, each row first brought near 1 by a power of two: at 1e-30 the
/// squared length of a cross product of five rows (about 1e-160) underflowed to 0, the face
/// was taken as degenerate, and 11 of the near-duplicate cones fell back to the whole facet
/// set, without a proof.
#[test]
fn every_public_cone_test_has_its_proof_at_every_scale() {
    let engine = Engine::new(Backend::Cpu).unwrap();
    for name in ["general_public.jsonl", "general_dup_public.jsonl"] {
        let batch = general_batch(name);
        let base = engine.evaluate(&batch.clone().into(), options()).unwrap();
        for k in [-500, -100, 100, 500] {
            let s = 2f64.powi(k);
            let mut scaled = GeneralBatch::default();
            for i in 0..batch.len() {
                let c = batch.get(i);
                let g: Vec<f64> = c.generators.iter().map(|v| v * s).collect();
                let x: Vec<f64> = c.need.iter().map(|v| v * s).collect();
                scaled.push(c.dim, &g, &x).unwrap();
            }
            let answers = engine.evaluate(&scaled.clone().into(), options()).unwrap();
            for (i, (o, b)) in answers.general.iter().zip(&base.general).enumerate() {
                let case = scaled.get(i);
                let at = format!("{name} case {i} scaled by 2^{k}");
                assert_eq!(o.verdict, b.verdict, "{at}");
                let want = (b.margin * s).min(GENERAL_MARGIN_CAP);
                if b.margin < GENERAL_MARGIN_CAP {
                    assert!(
                        (o.margin - want).abs() <= 1e-12 * want.abs().max(s),
                        "{at}: margin {} against {want}",
                        o.margin
                    );
                }
                match &answers.proofs[i] {
                    Some(p) => {
                        // |need| of the unscaled case, scaled (its squares underflow at
                        // 2^-500).
                        let tol = 1e-9 * nrm(batch.get(i).need) * s;
                        check_cone_answer(&case, o, p, tol).unwrap_or_else(|e| panic!("{at}: {e}"));
                    }
                    None => assert!(
                        base.proofs[i].is_none() || want >= GENERAL_MARGIN_CAP,
                        "{at}: no proof"
                    ),
                }
            }
        }
    }
}

/// A cone test's proof checks at every scale: each inner proof of the general public sets,
/// against its case with generators and need scaled by 2^±500 (exactly), gives its bounds
/// scaled by the same power. Before the checker brought each row near 1 by a power of two,
/// the products of six row lengths of 1e±150 overflowed or underflowed ("x lies on its
/// plane").
#[test]
fn a_cone_tests_proof_checks_at_every_scale() {
    let engine = Engine::new(Backend::Cpu).unwrap();
    let batch = general_batch("general_public.jsonl");
    let answers = engine.evaluate(&batch.clone().into(), options()).unwrap();
    let mut checked = 0;
    for (i, proof) in answers.proofs.iter().enumerate() {
        let Some(Proof::Inner(p)) = proof else {
            continue;
        };
        if !p.lines.is_empty() || p.faces.is_empty() {
            continue;
        }
        let case = batch.get(i);
        let at = check(
            case.generators,
            case.dim,
            case.need,
            &Proof::Inner(p.clone()),
        )
        .unwrap_or_else(|e| panic!("case {i}: {e}"));
        for k in [-500, 500] {
            let f = 2f64.powi(k);
            let g: Vec<f64> = case.generators.iter().map(|v| v * f).collect();
            let x: Vec<f64> = case.need.iter().map(|v| v * f).collect();
            let mut q = p.clone();
            q.lower *= f;
            let c = check(&g, case.dim, &x, &Proof::Inner(q))
                .unwrap_or_else(|e| panic!("case {i} scaled by 2^{k}: {e}"));
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
            assert!(
                close(c.lower, at.lower * f) && close(c.upper, at.upper * f),
                "case {i} scaled by 2^{k}: {c:?} against {at:?}"
            );
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked} proofs");
}

/// Every grasp's and every spatial need's proof of the public sets passes; every grasp has one.
#[test]
fn every_public_grasp_and_scene_proof_passes() {
    let engine = Engine::new(Backend::Cpu).unwrap();
    for name in [
        "grasp_public.jsonl",
        "scenes3d_public.jsonl",
        "sliding_public.jsonl",
    ] {
        let scenes: Vec<SceneLine> = lines(name).iter().map(|l| parse_line(l).unwrap()).collect();
        let reports = hold_reports(&engine, &scenes, options()).unwrap();
        let mut checked = 0;
        for (scene, report) in scenes.iter().zip(&reports) {
            match (scene, report) {
                (SceneLine::Grasp(s), Report::Grasp(r)) => {
                    // Every grasp carries one: the 0 just outside W by 1e-8 (Wolfe's nearest
                    // point refined in double-double) and W spanning less than a
                    // hyperplane too.
                    let p = r
                        .proof
                        .as_ref()
                        .unwrap_or_else(|| panic!("{name} {}: no proof", r.id));
                    let w = s.generators(r.pyramid, main_pyramid(s.friction));
                    let lifted: Vec<f64> = w
                        .iter()
                        .flat_map(|g| std::iter::once(1.0).chain(*g))
                        .collect();
                    let scale = w.iter().map(|g| nrm(g)).fold(0.0, f64::max);
                    let e = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
                    check_answer(
                        &lifted,
                        7,
                        &e,
                        p,
                        r.q1,
                        r.q1_lower,
                        r.margin_checked,
                        1e-9 * scale,
                        f64::INFINITY,
                    )
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", r.id));
                    checked += 1;
                }
                (SceneLine::Spatial(s), Report::Spatial(r)) => {
                    let g = s.generators(r.pyramid, main_pyramid(s.friction)).concat();
                    for need in &r.needs {
                        let Some(p) = &need.proof else { continue };
                        let tol = 1e-9 * nrm(&need.need);
                        check_answer(
                            &g,
                            6,
                            &need.need,
                            p,
                            need.margin,
                            need.margin_lower,
                            need.margin_checked,
                            tol,
                            GENERAL_MARGIN_CAP,
                        )
                        .unwrap_or_else(|e| panic!("{name} {}: {e}", r.id));
                        checked += 1;
                    }
                }
                _ => {}
            }
        }
        assert!(checked > 50, "{name}: {checked} proofs");
    }
}

/// A supported case's proof with at least `faces` faces, from random cones of `k`
/// generators in R^d.
fn a_proof(d: usize, k: usize, faces: usize) -> (GeneralBatch, InnerProof, f64) {
    let batch = planar_hold::details::sample::random_cases(99 + k as u64, 40, d, k);
    let engine = Engine::new(Backend::Cpu).unwrap();
    let answers = engine.evaluate(&batch.clone().into(), options()).unwrap();
    for (i, p) in answers.proofs.iter().enumerate() {
        if let Some(Proof::Inner(p)) = p {
            if p.faces.len() >= faces && p.lines.is_empty() && answers.general[i].margin > 1e-6 {
                let mut one = GeneralBatch::default();
                let c = batch.get(i);
                one.push(c.dim, c.generators, c.need).unwrap();
                return (one, p.clone(), answers.general[i].margin);
            }
        }
    }
    panic!("no proof with {faces} faces")
}

fn fails(case: &GeneralCase<'_>, p: &InnerProof, margin: f64) -> bool {
    let tol = 1e-9 * nrm(case.need);
    check_answer(
        case.generators,
        case.dim,
        case.need,
        &Proof::Inner(p.clone()),
        margin,
        p.lower,
        true,
        tol,
        GENERAL_MARGIN_CAP,
    )
    .is_err()
}

#[test]
fn planted_bugs_are_caught() {
    for (d, k) in [(3, 40), (6, 24), (6, 64)] {
        let (batch, good, margin) = a_proof(d, k, 4);
        let case = batch.get(0);
        assert!(
            !fails(&case, &good, margin),
            "R^{d}: the proof itself must pass"
        );
        let mut bugs: Vec<(&str, InnerProof)> = Vec::new();
        let mut p = good.clone();
        p.faces.remove(p.faces.len() / 2);
        bugs.push(("a face dropped", p));
        let mut p = good.clone();
        p.faces.push(p.faces[0].clone());
        bugs.push(("a face repeated", p));
        let mut p = good.clone();
        let unused = (0..k as u32)
            .find(|i| !p.faces.iter().any(|f| f.contains(i)))
            .unwrap();
        p.faces[1][0] = unused;
        bugs.push(("an index changed", p));
        // In R⁶ two faces trading an index leave ridges unmatched. (In R³, where a face is an
        // arc, a trade can make another closed polygon around x: a proof still, of the bound
        // it then gives.)
        if d > 3 {
            // Two faces that share no more than half their indices: the trade makes new ones.
            let mut p = good.clone();
            let j = (1..p.faces.len())
                .find(|&j| p.faces[j].iter().filter(|i| p.faces[0].contains(i)).count() * 2 < d)
                .unwrap();
            let b = p.faces[j]
                .iter()
                .copied()
                .find(|i| !p.faces[0].contains(i))
                .unwrap();
            let a = p.faces[0]
                .iter()
                .copied()
                .find(|i| !p.faces[j].contains(i))
                .unwrap();
            let ia = p.faces[0].iter().position(|&i| i == a).unwrap();
            let ib = p.faces[j].iter().position(|&i| i == b).unwrap();
            p.faces[0][ia] = b;
            p.faces[j][ib] = a;
            bugs.push(("two faces' indices swapped", p));
        }
        let mut p = good.clone();
        p.lower *= 1.0 + 1e-6;
        bugs.push(("the bound from below nudged up by 1e-6", p));
        let mut p = good.clone();
        p.upper = p.faces.iter().find(|f| **f != good.upper).unwrap().clone();
        bugs.push(("the plane from above another face's", p));
        let mut p = good.clone();
        p.interior = p.interior.iter().map(|v| -v).collect();
        bugs.push(("the interior turned", p));
        for (what, p) in bugs {
            assert!(
                fails(&case, &p, margin),
                "R^{d}, K = {k}: {what} was not caught"
            );
        }
        // The upper bound nudged: the value is no longer the plane's.
        assert!(check_answer(
            case.generators,
            case.dim,
            case.need,
            &Proof::Inner(good.clone()),
            margin * (1.0 + 1e-6),
            good.lower,
            true,
            1e-9 * nrm(case.need),
            GENERAL_MARGIN_CAP
        )
        .is_err());
        assert!(check(
            case.generators,
            case.dim,
            case.need,
            &Proof::Inner(good.clone())
        )
        .is_ok());
    }
    let _ = Measure::Cone;
}

/// A circular grasp's answer checked against its proof as `check-proof` checks it: the
/// discs rebuilt from the line, the strict tolerance ε·scale.
fn check_circular(
    s: &planar_hold::SpatialScene,
    r: &planar_hold::GraspReport,
    p: &Proof,
) -> Result<(), String> {
    let discs = grasp_discs(s);
    let ell = s.body.half_size;
    let scale = discs
        .iter()
        .map(|d| (1.0 + d.mu * d.mu).sqrt() * (1.0 + (nrm(&d.p) / ell).powi(2)).sqrt())
        .fold(0.0, f64::max);
    check_disc_answer(
        &discs,
        ell,
        p,
        &r.weakest,
        r.q1,
        r.q1_lower,
        r.margin_checked,
        1e-9 * scale,
        1e-9 * scale,
    )
    .map(|_| ())
}

/// Every circular public grasp carries a proof naming its own disc points, and it passes;
/// planted bugs are caught: inside a face dropped, a point moved 1e-6 off its disc, a point
/// given another disc, the bound from below nudged up by 1e-6, the weakest direction turned;
/// outside a point off its disc, a disc index beyond the line's, the bound nudged.
#[test]
fn every_public_circular_grasp_proof_passes_and_planted_bugs_are_caught() {
    let engine = Engine::new(Backend::Cpu).unwrap();
    let scenes: Vec<SceneLine> = lines("grasp_circular_public.jsonl")
        .iter()
        .map(|l| parse_line(l).unwrap())
        .collect();
    let reports = hold_reports(&engine, &scenes, options()).unwrap();
    let (mut inner, mut nearest) = (0, 0);
    for (scene, report) in scenes.iter().zip(&reports) {
        let (SceneLine::Grasp(s), Report::Grasp(r)) = (scene, report) else {
            panic!("a grasp line answered as something else");
        };
        let p = r
            .proof
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no proof", r.id));
        check_circular(s, r, p).unwrap_or_else(|e| panic!("{}: {e}", r.id));
        let ndiscs = grasp_discs(s).len() as u32;
        let b_disc = |q: &DiscPoint| q.0 as usize;
        let mut bugs: Vec<(&str, Proof, f64, [f64; 6])> = Vec::new();
        // 1e-6 along its disc's normal: its normal force no longer 1.
        let discs = grasp_discs(s);
        let off = |q: &DiscPoint| {
            let n = discs[q.0 as usize].n;
            DiscPoint(q.0, q.1 + 1e-6 * n[0], q.2 + 1e-6 * n[1], q.3 + 1e-6 * n[2])
        };
        match p {
            Proof::Inner(good) if !good.faces.is_empty() => {
                inner += 1;
                let mut b = good.clone();
                b.faces.remove(b.faces.len() / 2);
                bugs.push(("a face dropped", Proof::Inner(b), r.q1_lower, r.weakest));
                let mut b = good.clone();
                let used = b.faces[0][0] as usize;
                b.points[used] = off(&b.points[used]);
                bugs.push((
                    "a point off its disc",
                    Proof::Inner(b),
                    r.q1_lower,
                    r.weakest,
                ));
                // A disc of another normal: the force is then off it (one of the same
                // normal and μ, a face's other corner, holds it too: a proof still).
                let i = b_disc(&good.points[used]);
                if let Some(j) = (0..ndiscs).find(|&j| {
                    let (m, n) = (discs[j as usize].n, discs[i].n);
                    (0..3).map(|a| (m[a] - n[a]).abs()).sum::<f64>() > 1e-3
                }) {
                    let mut b = good.clone();
                    b.points[used].0 = j;
                    bugs.push((
                        "a point given another disc",
                        Proof::Inner(b),
                        r.q1_lower,
                        r.weakest,
                    ));
                }
                let mut b = good.clone();
                b.lower += 1e-6 * b.lower.abs().max(1.0);
                bugs.push((
                    "the proof's bound nudged up",
                    Proof::Inner(b),
                    r.q1_lower,
                    r.weakest,
                ));
                let nudged = r.q1_lower + 1e-6 * r.q1_lower.abs().max(1.0);
                bugs.push(("the answer's bound nudged up", p.clone(), nudged, r.weakest));
                // The weakest direction moved (three ways: a symmetric W may tie one).
                let moved = [
                    [3, 4, 5, 0, 1, 2].map(|a| r.weakest[a]),
                    [1, 2, 3, 4, 5, 0].map(|a| r.weakest[a]),
                    r.weakest.map(|v| -v),
                ];
                assert!(
                    moved.iter().any(|&u| {
                        let mut r2 = r.clone();
                        r2.weakest = u;
                        check_circular(s, &r2, p).is_err()
                    }),
                    "{}: the weakest direction moved was not caught",
                    r.id
                );
            }
            Proof::Nearest(good) => {
                nearest += 1;
                let mut b = good.clone();
                b.points[0] = off(&b.points[0]);
                bugs.push((
                    "a point off its disc",
                    Proof::Nearest(b),
                    r.q1_lower,
                    r.weakest,
                ));
                let mut b = good.clone();
                b.points[0].0 = ndiscs;
                bugs.push((
                    "a disc beyond the line's",
                    Proof::Nearest(b),
                    r.q1_lower,
                    r.weakest,
                ));
                let nudged = r.q1_lower + 1e-6 * r.q1_lower.abs().max(1.0);
                bugs.push(("the answer's bound nudged up", p.clone(), nudged, r.weakest));
            }
            Proof::Inner(_) => {}
        }
        for (what, b, lower, weakest) in bugs {
            let mut r2 = r.clone();
            r2.q1_lower = lower;
            r2.weakest = weakest;
            assert!(
                check_circular(s, &r2, &b).is_err(),
                "{}: {what} was not caught",
                r.id
            );
        }
    }
    assert!(
        inner > 50 && nearest > 50,
        "inner {inner}, nearest {nearest}"
    );
}
