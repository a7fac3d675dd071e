//! The grader of the public grasps (docs/contract-grasp.md), the rules of the shared
//! `check_grasp.py` in Rust so that `cargo test` grades them without it: the wrenches rebuilt
//! here from each case (§3's pyramid edges, contacts then points then edges; `"coulomb"`:
//! the inner pyramids), every reported direction checked against them (`h_W(weakest)` must
//! be the reported q1), and the answers against the expected labels. Severe and medium
//! failures fail the set; low ones are notes.

use std::collections::HashMap;

use serde_json::Value;

use super::grade::Grading;

const BAND: f64 = 1e-7;
const TQ: f64 = 1e-7;
const UNIT_TOL: f64 = 1e-6;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn cross(a: &[f64], b: &[f64]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

fn tq(q: f64) -> f64 {
    TQ * q.abs().max(1.0)
}

/// The case's wrenches (6 numbers each) with `mode` "inner" or "outer" pyramids.
pub fn case_wrenches(c: &Value, mode: &str) -> Vec<[f64; 6]> {
    let k = c["pyramid"].as_u64().unwrap_or(4) as usize;
    let ell = c["half_size"].as_f64().expect("half_size");
    let mut out = Vec::new();
    for ct in c["contacts"].as_array().expect("contacts") {
        let n: Vec<f64> = ct["normal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let l = dot(&n, &n).sqrt();
        let n: Vec<f64> = n.iter().map(|v| v / l).collect();
        let mu = ct["mu"].as_f64().expect("a number mu");
        let mu = if mode == "inner" {
            mu
        } else {
            mu / (std::f64::consts::PI / k as f64).cos()
        };
        let mut axis = [0.0; 3];
        let mut i = 0;
        for j in 1..3 {
            if n[j].abs() < n[i].abs() {
                i = j;
            }
        }
        axis[i] = 1.0;
        let t1 = cross(&axis, &n);
        let lt = dot(&t1, &t1).sqrt();
        let t1: Vec<f64> = t1.iter().map(|v| v / lt).collect();
        let t2 = cross(&n, &t1);
        for p in ct["points"].as_array().unwrap() {
            let p: Vec<f64> = p
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            for j in 0..k {
                let th = 2.0 * std::f64::consts::PI * j as f64 / k as f64;
                let r: Vec<f64> = (0..3)
                    .map(|a| n[a] + mu * (th.cos() * t1[a] + th.sin() * t2[a]))
                    .collect();
                let t = cross(&p, &r);
                out.push([r[0], r[1], r[2], t[0] / ell, t[1] / ell, t[2] / ell]);
            }
        }
    }
    out
}

/// `h_W(u)` over the wrenches.
pub fn support(w: &[[f64; 6]], u: &[f64]) -> f64 {
    w.iter()
        .map(|x| dot(x, u))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Grades `answers` (by id) against `expected` for the grasp `cases`.
pub fn grasps(cases: &[Value], expected: &[Value], answers: &[Value], name: &str) -> Grading {
    let mut g = Grading::new(name);
    let by_id: HashMap<String, &Value> = answers
        .iter()
        .filter_map(|a| a["id"].as_str().map(|id| (id.to_string(), a)))
        .collect();
    let case_of: HashMap<String, &Value> = cases
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_string(), c))
        .collect();
    for e in expected {
        let id = e["id"].as_str().unwrap().to_string();
        g.cases += 1;
        let c = case_of[&id];
        let w = case_wrenches(
            c,
            if c["friction"] == "outer" {
                "outer"
            } else {
                "inner"
            },
        );
        let check = |g: &mut Grading, rule: &'static str, bad: bool, why: String, severe: bool| {
            g.check(rule);
            if bad {
                if severe {
                    g.fail(&id, rule, why);
                } else {
                    g.note(&id, rule, why);
                }
            }
        };
        let Some(a) = by_id.get(&id) else {
            check(&mut g, "answered", true, "no answer".into(), true);
            continue;
        };
        if a.get("error").is_some() {
            check(
                &mut g,
                "answered",
                true,
                format!("error: {}", a["error"]),
                true,
            );
            continue;
        }
        let v = &a["force_closure"];
        let known = v == &Value::Bool(true) || v == &Value::Bool(false) || v == "uncertain";
        check(&mut g, "verdict known", !known, format!("{v}"), true);
        let q = num(&a["q1"]);
        check(
            &mut g,
            "q1 finite",
            q.is_none(),
            format!("{}", a["q1"]),
            true,
        );
        let qe = e["q1"].as_f64().unwrap();
        let amb = e["amb"].as_bool().unwrap_or(false);
        let fe = &e["force_closure"];
        let coulomb = e.get("q1_outer").is_some();
        let (is_true, is_false) = (v == &Value::Bool(true), v == &Value::Bool(false));
        if coulomb {
            let qin = qe;
            let qout = e["q1_outer"].as_f64().unwrap();
            check(
                &mut g,
                "true only where true",
                is_true && fe == false,
                format!("outer {qout}"),
                true,
            );
            check(
                &mut g,
                "false only where false",
                is_false && fe == true && qin > BAND,
                format!("inner {qin}"),
                true,
            );
            if fe == "uncertain" {
                let fr = &e["fc_refined"];
                check(
                    &mut g,
                    "gap refined",
                    (is_true && fr == false) || (is_false && fr == true),
                    format!("{v} vs refined {fr}"),
                    true,
                );
                check(
                    &mut g,
                    "gap proven",
                    is_true && fr.is_null(),
                    "true without a proof up to k = 64".into(),
                    true,
                );
            } else {
                let decisive = (fe == true && qin > BAND) || (fe == false && qout < -BAND);
                check(
                    &mut g,
                    "decided where decisive",
                    v == "uncertain" && !amb && decisive,
                    format!("q1 {qe}"),
                    false,
                );
            }
        } else {
            check(
                &mut g,
                "true only where true",
                is_true && fe == false,
                format!("q1 {qe}"),
                true,
            );
            check(
                &mut g,
                "false only where false",
                is_false && fe == true && qe > BAND,
                format!("q1 {qe}"),
                true,
            );
            check(
                &mut g,
                "decided where decisive",
                v == "uncertain" && !amb && qe.abs() > BAND,
                format!("q1 {qe}"),
                false,
            );
        }
        if let Some(q) = q {
            check(
                &mut g,
                "q1",
                (q - qe).abs() > tq(qe),
                format!("{q} vs {qe}"),
                true,
            );
        }
        let u: Option<Vec<f64>> = a["weakest"]
            .as_array()
            .filter(|u| u.len() == 6)
            .and_then(|u| u.iter().map(num).collect());
        check(
            &mut g,
            "weakest given",
            u.is_none(),
            format!("{}", a["weakest"]),
            true,
        );
        let mut h = None;
        if let Some(u) = &u {
            let nu = dot(u, u).sqrt();
            check(
                &mut g,
                "weakest unit",
                (nu - 1.0).abs() > UNIT_TOL,
                format!("|u| = {nu}"),
                true,
            );
            let hw = support(&w, u);
            h = Some(hw);
            if let Some(q) = q {
                check(
                    &mut g,
                    "h_W(weakest) = q1",
                    (hw - q).abs() > tq(q),
                    format!("h {hw} vs q1 {q}"),
                    true,
                );
            }
        }
        if coulomb {
            let qu = num(&a["q1_upper"]);
            let qo = e["q1_outer"].as_f64().unwrap();
            check(
                &mut g,
                "q1_upper",
                qu.is_none_or(|qu| (qu - qo).abs() > tq(qo)),
                format!("{:?} vs {qo}", qu),
                true,
            );
        }
        let gens: Option<Vec<usize>> = a["facet"]["generators"].as_array().map(|l| {
            l.iter()
                .filter_map(|x| x.as_u64().map(|x| x as usize))
                .collect()
        });
        if let (Some(gens), Some(u), Some(h)) = (&gens, &u, h) {
            let off: Vec<usize> = gens
                .iter()
                .copied()
                .filter(|&i| {
                    i >= w.len()
                        || (dot(&w[i], u) - h).abs() > TQ * dot(&w[i], &w[i]).sqrt().max(1.0)
                })
                .collect();
            check(
                &mut g,
                "facet on the weakest plane",
                !off.is_empty(),
                format!("{off:?}"),
                false,
            );
        }
        if e["binding_unique"].as_bool().unwrap_or(false) && !amb {
            let mut want: Vec<usize> = e["binding"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as usize)
                .collect();
            want.sort_unstable();
            let mut got = gens.clone().unwrap_or_default();
            got.sort_unstable();
            check(
                &mut g,
                "facet generators",
                got != want,
                format!("{got:?} vs {want:?}"),
                true,
            );
        }
    }
    g
}
