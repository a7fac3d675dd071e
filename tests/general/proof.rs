//! The proofs of the two bounds (docs/proof.md): every public answer's proof passes the checker
//! and gives the bounds the answer reports; proofs with a planted bug (a face dropped or
//! repeated, an index changed, a bound nudged, the wrong plane, a witness's weight changed) are
//! caught.

use planar_hold::details::proof::{check, check_answer, InnerProof, Measure, Proof};
use planar_hold::details::scene::main_pyramid;
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
            let tol = 1e-9 * nrm(case.need);
            match &answers.proofs[i] {
                Some(p) => {
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
