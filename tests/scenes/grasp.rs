//! Grasp quality (docs/contract-grasp.md): the public grasps graded on every engine, and
//! invariants over thousands of random grasps that a wrong number would break: scale,
//! permutation, duplication, monotonicity in contacts and μ, two point contacts, the
//! inner ≤ coulomb ≤ outer bracket, `h_W(weakest) = q1`, and q1 against a brute-force facet
//! enumeration of small grasps.

use crate::common::grade_grasp::{case_wrenches, grasps, support};
use planar_hold::{hold_reports, parse_line, GraspReport, Report, SceneLine};
use planar_hold::{Backend, Engine};
use serde_json::{json, Value};

fn read(name: &str) -> Vec<Value> {
    std::fs::read_to_string(crate::common::data(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn reports_on(engine: &Engine, lines: &[Value]) -> Vec<GraspReport> {
    let scenes: Vec<SceneLine> = lines
        .iter()
        .map(|l| parse_line(&l.to_string()).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    hold_reports(engine, &scenes, planar_hold::Options::default())
        .unwrap()
        .into_iter()
        .map(|r| match r {
            Report::Grasp(r) => r,
            _ => panic!("a grasp line answered as another kind"),
        })
        .collect()
}

fn cpu() -> Engine {
    Engine::new(Backend::Cpu).unwrap()
}

#[test]
fn public_grasps_grade_on_every_engine() {
    let cases = read("grasp_public.jsonl");
    let expected = read("grasp_public.expected.jsonl");
    for (name, engine) in crate::common::engines() {
        let answers: Vec<Value> = reports_on(&engine, &cases)
            .iter()
            .map(|r| serde_json::to_value(r).unwrap())
            .collect();
        grasps(
            &cases,
            &expected,
            &answers,
            &format!("grasp_public ({name})"),
        )
        .assert_passed();
        if name == "cpu" {
            planted_errors_are_caught(&cases, &expected, &answers);
        }
    }
}

/// The grader fails answers with a planted error: q1 off by 1%, a negated direction, a
/// flipped verdict, q1 clamped to 0 outside.
fn planted_errors_are_caught(cases: &[Value], expected: &[Value], answers: &[Value]) {
    type Plant = fn(&Value, &mut Value) -> bool;
    let plants: [(&str, Plant); 4] = [
        ("q1 x 1.01", |_, a| {
            let q = a["q1"].as_f64().unwrap();
            a["q1"] = json!(q * 1.01);
            q.abs() > 1e-4
        }),
        ("weakest negated", |case, a| {
            let u: Vec<f64> = a["weakest"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| -v.as_f64().unwrap())
                .collect();
            a["weakest"] = json!(u);
            // an error only where −u's support is not q1 too
            let mode = if case["friction"] == "outer" {
                "outer"
            } else {
                "inner"
            };
            let h = support(&case_wrenches(case, mode), &u);
            (h - a["q1"].as_f64().unwrap()).abs() > 1e-5
        }),
        ("verdict flipped", |_, a| {
            let flip = a["force_closure"] == true;
            a["force_closure"] = json!(!flip);
            flip && a["q1"].as_f64().unwrap() > 1e-4
        }),
        ("q1 clamped to 0", |_, a| {
            let q = a["q1"].as_f64().unwrap();
            a["q1"] = json!(0.0);
            q < -1e-4
        }),
    ];
    for (what, plant) in plants {
        let mut planted = 0;
        let bad: Vec<Value> = answers
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut b = a.clone();
                // one answer in four, where the plant is an error
                if i % 4 == 0 && plant(&cases[i], &mut b) {
                    planted += 1;
                    b
                } else {
                    a.clone()
                }
            })
            .collect();
        let g = grasps(cases, expected, &bad, what);
        assert!(planted > 0, "{what}: nothing planted");
        assert_eq!(
            g.cases - g.passed(),
            planted,
            "{what}: {planted} planted\n{g}"
        );
    }
}

// ------------------------------------------------------------------ random grasps

/// splitmix64: the tests' own numbers, independent of the library's.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    fn below(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }

    fn unit3(&mut self) -> [f64; 3] {
        loop {
            let v = [
                self.range(-1., 1.),
                self.range(-1., 1.),
                self.range(-1., 1.),
            ];
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if l > 0.1 && l <= 1.0 {
                return v.map(|x| x / l);
            }
        }
    }
}

/// A contact: points, inward normal, μ.
#[derive(Clone)]
struct Contact {
    points: Vec<[f64; 3]>,
    normal: [f64; 3],
    mu: f64,
}

/// A fingertip on a sphere of radius `r`: a point on it, its normal inward and tilted.
fn fingertip(rng: &mut Rng, r: f64) -> Contact {
    let v = rng.unit3();
    let tilt = rng.unit3();
    let n: Vec<f64> = (0..3).map(|a| -v[a] + 0.2 * tilt[a]).collect();
    Contact {
        points: vec![v.map(|x| x * r)],
        normal: [n[0], n[1], n[2]],
        mu: rng.range(0.05, 1.0),
    }
}

fn grasp(contacts: &[Contact], ell: f64, k: usize, friction: &str) -> Value {
    json!({
        "id": "g", "dim": 3, "grasp": true, "half_size": ell, "pyramid": k, "friction": friction,
        "contacts": contacts.iter().map(|c| json!({
            "points": c.points, "normal": c.normal, "mu": c.mu
        })).collect::<Vec<_>>()
    })
}

fn random_grasp(rng: &mut Rng, n: usize) -> (Vec<Contact>, f64) {
    let r = rng.range(0.02, 2.0);
    let mut cs: Vec<Contact> = (0..n).map(|_| fingertip(rng, r)).collect();
    if rng.below(4) == 0 {
        // an edge contact now and then
        let c = &mut cs[0];
        let p = c.points[0];
        let t = rng.unit3();
        c.points.push([
            p[0] + 0.1 * r * t[0],
            p[1] + 0.1 * r * t[1],
            p[2] + 0.1 * r * t[2],
        ]);
    }
    (cs, r)
}

fn tol(q: f64) -> f64 {
    1e-8 * q.abs().max(1.0)
}

fn fc(r: &GraspReport) -> Option<bool> {
    r.force_closure.as_bool()
}

fn same_verdict(a: &GraspReport, b: &GraspReport) -> bool {
    match (fc(a), fc(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true, // uncertain agrees with anything
    }
}

/// `h_W(weakest)` from the line's own wrenches equals q1, the direction a unit vector.
fn assert_direction(line: &Value, r: &GraspReport) {
    let w = case_wrenches(
        line,
        if line["friction"] == "outer" {
            "outer"
        } else {
            "inner"
        },
    );
    let s = w
        .iter()
        .map(|x| x.iter().map(|v| v * v).sum::<f64>().sqrt())
        .fold(0.0, f64::max);
    let u = r.weakest;
    let nu = u.iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!((nu - 1.0).abs() < 1e-9, "|weakest| = {nu}");
    let h = support(&w, &u);
    assert!(
        (h - r.q1).abs() <= 1e-9 * s,
        "h_W(weakest) {h} vs q1 {}",
        r.q1
    );
}

#[test]
fn invariants_over_random_grasps() {
    let mut rng = Rng(2026);
    let engine = cpu();
    let bases = 1500;
    let mut lines = Vec::new();
    // Per base: the base, scaled, contacts permuted, a duplicated contact, μ raised, a
    // contact added.
    let mut perms = Vec::new();
    for b in 0..bases {
        let n = 2 + rng.below(5);
        let k = if b % 5 == 0 { 8 } else { 4 };
        let (cs, r) = random_grasp(&mut rng, n);
        lines.push(grasp(&cs, r, k, "inner"));
        let c = if b % 2 == 0 { 1e-3 } else { 1e3 };
        let scaled: Vec<Contact> = cs
            .iter()
            .map(|x| Contact {
                points: x.points.iter().map(|p| p.map(|v| v * c)).collect(),
                ..x.clone()
            })
            .collect();
        lines.push(grasp(&scaled, r * c, k, "inner"));
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.below(i + 1));
        }
        let permuted: Vec<Contact> = perm.iter().map(|&i| cs[i].clone()).collect();
        lines.push(grasp(&permuted, r, k, "inner"));
        perms.push(perm);
        let mut dup = cs.clone();
        dup.push(cs[rng.below(n)].clone());
        lines.push(grasp(&dup, r, k, "inner"));
        let raised: Vec<Contact> = cs
            .iter()
            .map(|x| Contact {
                mu: x.mu * 1.5,
                ..x.clone()
            })
            .collect();
        lines.push(grasp(&raised, r, k, "inner"));
        let mut more = cs.clone();
        more.push(fingertip(&mut rng, r));
        lines.push(grasp(&more, r, k, "inner"));
    }
    let reports = reports_on(&engine, &lines);
    let mut closed = 0;
    for (b, perm) in perms.iter().enumerate() {
        let at = 6 * b;
        let base = &reports[at];
        for v in 0..6 {
            assert_direction(&lines[at + v], &reports[at + v]);
        }
        closed += usize::from(fc(base) == Some(true));
        let what = &lines[at];
        let [scaled, permuted, dup, raised, more] = std::array::from_fn(|v| &reports[at + 1 + v]);
        assert!(
            (scaled.q1 - base.q1).abs() <= tol(base.q1),
            "scaled: {} vs {} in {what}",
            scaled.q1,
            base.q1
        );
        assert!(same_verdict(scaled, base), "scaled verdict in {what}");
        assert!(
            (permuted.q1 - base.q1).abs() <= tol(base.q1),
            "permuted: {} vs {} in {what}",
            permuted.q1,
            base.q1
        );
        assert!(same_verdict(permuted, base), "permuted verdict in {what}");
        // The binding contacts, through the permutation, are the base's.
        if let (Some(fp), Some(fb)) = (&permuted.facet, &base.facet) {
            let mut mapped: Vec<usize> = fp.contacts.iter().map(|&c| perm[c]).collect();
            mapped.sort_unstable();
            if base.q1.abs() > 1e-6 {
                assert_eq!(mapped, fb.contacts, "permuted binding contacts in {what}");
            }
        }
        assert!(
            (dup.q1 - base.q1).abs() <= tol(base.q1),
            "duplicated: {} vs {} in {what}",
            dup.q1,
            base.q1
        );
        assert!(same_verdict(dup, base), "duplicated verdict in {what}");
        assert!(
            raised.q1 >= base.q1 - tol(base.q1),
            "raised μ lowered q1: {} < {} in {what}",
            raised.q1,
            base.q1
        );
        assert!(
            more.q1 >= base.q1 - tol(base.q1),
            "a contact more lowered q1: {} < {} in {what}",
            more.q1,
            base.q1
        );
    }
    // The sample holds both kinds.
    assert!(
        closed > bases / 10 && closed < bases * 9 / 10,
        "{closed} of {bases} in force closure"
    );
}

#[test]
fn two_point_contacts_are_never_force_closure() {
    let mut rng = Rng(7);
    let mut lines = Vec::new();
    for b in 0..600 {
        let r = rng.range(0.05, 1.0);
        let mut cs = vec![fingertip(&mut rng, r), fingertip(&mut rng, r)];
        if b % 3 == 0 {
            // antipodal: the best two fingers can do
            cs[1].points[0] = cs[0].points[0].map(|v| -v);
            cs[1].normal = cs[0].normal.map(|v| -v);
            cs[0].mu = 2.0;
            cs[1].mu = 2.0;
        }
        lines.push(grasp(&cs, r, [4, 8, 16][b % 3], "inner"));
    }
    for (line, r) in lines.iter().zip(reports_on(&cpu(), &lines)) {
        assert_direction(line, &r);
        assert_ne!(
            fc(&r),
            Some(true),
            "two point contacts in force closure: {line}"
        );
        assert!(r.q1 <= 1e-8, "two point contacts, q1 {} > 0: {line}", r.q1);
    }
}

#[test]
fn coulomb_lies_between_the_inner_and_the_outer_pyramids() {
    let mut rng = Rng(11);
    let mut lines = Vec::new();
    for b in 0..120 {
        let (cs, r) = random_grasp(&mut rng, 3 + b % 3);
        for f in ["inner", "outer", "coulomb"] {
            lines.push(grasp(&cs, r, 4, f));
        }
    }
    let reports = reports_on(&cpu(), &lines);
    for t in 0..120 {
        let (inner, outer, coulomb) = (&reports[3 * t], &reports[3 * t + 1], &reports[3 * t + 2]);
        let upper = coulomb.q1_upper.expect("coulomb has q1_upper");
        assert!(
            (coulomb.q1 - inner.q1).abs() <= tol(inner.q1),
            "{} vs inner {}",
            coulomb.q1,
            inner.q1
        );
        assert!(
            (upper - outer.q1).abs() <= tol(outer.q1),
            "{upper} vs outer {}",
            outer.q1
        );
        assert!(
            inner.q1 <= outer.q1 + tol(outer.q1),
            "inner {} > outer {}",
            inner.q1,
            outer.q1
        );
        // Its verdict never contradicts a proven pyramid.
        if fc(inner) == Some(true) {
            assert_eq!(fc(coulomb), Some(true));
        }
        if fc(outer) == Some(false) {
            assert_eq!(fc(coulomb), Some(false));
        }
        assert_direction(&lines[3 * t + 2], coulomb);
    }
}

/// q1 of a force-closure grasp by brute force: every 6 affinely independent wrenches whose
/// hyperplane has all the others on one side is a facet, q1 the least offset.
fn brute_q1(w: &[[f64; 6]]) -> Option<f64> {
    let k = w.len();
    let mut best: Option<f64> = None;
    let mut pick: Vec<usize> = (0..6).collect();
    loop {
        // Null vector of the rows (w_i, −1): the plane a·x = b through the six.
        let mut m: Vec<[f64; 7]> = pick
            .iter()
            .map(|&i| {
                let mut r = [0.0; 7];
                r[..6].copy_from_slice(&w[i]);
                r[6] = -1.0;
                r
            })
            .collect();
        let mut cols = Vec::new();
        let mut row = 0;
        for c in 0..7 {
            let p = (row..6).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()));
            let Some(p) = p.filter(|&p| m[p][c].abs() > 1e-10) else {
                continue;
            };
            m.swap(row, p);
            let pivot = m[row][c];
            for x in m[row].iter_mut() {
                *x /= pivot;
            }
            for a in 0..6 {
                if a != row {
                    let f = m[a][c];
                    let r = m[row];
                    for (x, y) in m[a].iter_mut().zip(r) {
                        *x -= f * y;
                    }
                }
            }
            cols.push(c);
            row += 1;
            if row == 6 {
                break;
            }
        }
        if row == 6 {
            let free = (0..7).find(|c| !cols.contains(c)).unwrap();
            let mut v = [0.0; 7];
            v[free] = 1.0;
            for (r, &c) in cols.iter().enumerate() {
                v[c] = -m[r][free];
            }
            let na = v[..6].iter().map(|x| x * x).sum::<f64>().sqrt();
            if na > 1e-12 {
                let (a, b): (Vec<f64>, f64) = (v[..6].iter().map(|x| x / na).collect(), v[6] / na);
                let s: Vec<f64> = w
                    .iter()
                    .map(|x| x.iter().zip(&a).map(|(p, q)| p * q).sum::<f64>() - b)
                    .collect();
                let below = s.iter().all(|&t| t <= 1e-9);
                let above = s.iter().all(|&t| t >= -1e-9);
                if below || above {
                    let off = if below { b } else { -b };
                    best = Some(best.map_or(off, |o: f64| o.min(off)));
                }
            }
        }
        let mut j = 6;
        loop {
            if j == 0 {
                return best;
            }
            j -= 1;
            if pick[j] < k - 6 + j {
                pick[j] += 1;
                for t in j + 1..6 {
                    pick[t] = pick[t - 1] + 1;
                }
                break;
            }
        }
    }
}

#[test]
fn small_grasps_match_a_brute_force_facet_enumeration() {
    let mut rng = Rng(5);
    let mut lines = Vec::new();
    while lines.len() < 250 {
        let (cs, r) = random_grasp(&mut rng, 3);
        if cs.iter().map(|c| c.points.len()).sum::<usize>() == 3 {
            lines.push(grasp(&cs, r, 4, "inner")); // K = 12: 924 six-subsets
        }
    }
    let reports = reports_on(&cpu(), &lines);
    let mut checked = 0;
    for (line, r) in lines.iter().zip(&reports) {
        let w = case_wrenches(line, "inner");
        let brute = brute_q1(&w);
        if let Some(q) = brute.filter(|&q| q > 1e-6) {
            // 0 strictly inside every facet: force closure, q1 the least offset.
            assert_eq!(
                fc(r),
                Some(true),
                "brute force q1 {q}, reported {:?}: {line}",
                r.force_closure
            );
            assert!(
                (r.q1 - q).abs() <= 1e-9,
                "q1 {} vs brute force {q}: {line}",
                r.q1
            );
            checked += 1;
        } else if fc(r) == Some(true) {
            panic!("force closure where brute force finds q1 {brute:?}: {line}");
        }
    }
    assert!(checked >= 20, "only {checked} force-closure grasps checked");
}

#[test]
fn gpu_answers_random_grasps_as_the_cpu_does() {
    let Some(gpu) = crate::common::gpu_engine() else {
        return;
    };
    let mut rng = Rng(3);
    let lines: Vec<Value> = (0..300)
        .map(|b| {
            let (cs, r) = random_grasp(&mut rng, 2 + b % 6);
            grasp(&cs, r, [4, 8][b % 2], ["inner", "outer", "coulomb"][b % 3])
        })
        .collect();
    let on_cpu = reports_on(&cpu(), &lines);
    let on_gpu = reports_on(&gpu, &lines);
    for ((a, b), line) in on_cpu.iter().zip(&on_gpu).zip(&lines) {
        assert!(
            (a.q1 - b.q1).abs() <= 1e-9 * a.q1.abs().max(1.0),
            "{} vs {}: {line}",
            a.q1,
            b.q1
        );
        assert_eq!(a.force_closure, b.force_closure, "{line}");
        assert_direction(line, b);
    }
}

#[test]
fn bad_grasp_lines_are_refused_with_the_problem() {
    let ok = json!({"id": "g", "dim": 3, "grasp": true, "half_size": 0.05, "pyramid": 4,
        "contacts": [{"points": [[0.05, 0, 0]], "normal": [-1, 0, 0], "mu": 0.5}]});
    assert!(matches!(
        parse_line(&ok.to_string()),
        Ok(SceneLine::Grasp(_))
    ));
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut v = ok.clone();
        edit(&mut v);
        parse_line(&v.to_string())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            "at least one contact",
            Box::new(|v| v["contacts"] = json!([])),
        ),
        (
            "zero vector",
            Box::new(|v| v["contacts"][0]["normal"] = json!([0, 0, 0])),
        ),
        (
            "is negative: a friction coefficient is at least 0",
            Box::new(|v| v["contacts"][0]["mu"] = json!(-0.1)),
        ),
        (
            "no `mass`",
            Box::new(|v| v["mass"] = json!({"nominal": 1.0})),
        ),
        (
            "no `margin_min`",
            Box::new(|v| v["margin_min"] = json!(0.0)),
        ),
        (
            "no `com_offset`",
            Box::new(|v| v["com_offset"] = json!([[0, 0], [0, 0]])),
        ),
        ("unknown field", Box::new(|v| v["colour"] = json!("red"))),
        (
            "grasp must be true",
            Box::new(|v| v["grasp"] = json!("yes")),
        ),
        (
            "not coplanar",
            Box::new(|v| {
                v["contacts"][0]["points"] = json!([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.5]])
            }),
        ),
    ];
    for (words, edit) in &cases {
        let error = with(edit.as_ref());
        assert!(error.contains(words), "{words:?} not in {error:?}");
    }
    // 5 points × 64 edges = 320 generators: refused.
    let error = with(&|v| {
        v["pyramid"] = json!(64);
        v["contacts"][0]["points"] =
            json!([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 1.5, 0]]);
    });
    assert!(error.contains("too many"), "{error}");
}

/// A truncated or NaN-bearing grasp or spatial line is read by its own reader, which says
/// what is wrong (not the planar reader's "unknown field `dim`"), and the gate's error line
/// keeps its id.
#[test]
fn truncated_and_nan_3d_lines_say_what_is_wrong_and_keep_their_id() {
    // Written as a writer would, `id` first (json! would sort the keys).
    let grasp = r#"{"id": "g7", "dim": 3, "grasp": true, "half_size": 0.05, "contacts": [{"points": [[0.05, 0, 0]], "normal": [-1, 0, 0], "mu": 0.5}]}"#;
    let scene = r#"{"id": "s7", "dim": 3, "half_size": 0.5, "contacts": [{"pair": 0, "points": [[0, 0, -0.5]], "normal": [0, 0, 1], "mu": 0.5}]}"#;
    let lines = [
        (
            grasp[..grasp.len() - 20].to_string(),
            "g7",
            "EOF while parsing",
        ),
        (
            grasp.replace("0.05, 0, 0", "0.05, NaN, 0"),
            "g7",
            "NaN at column",
        ),
        (
            scene[..scene.len() / 2].to_string(),
            "s7",
            "EOF while parsing",
        ),
        (
            scene.replace("0.5,", "Infinity,"),
            "s7",
            "Infinity at column",
        ),
    ];
    for (line, _, words) in &lines {
        let error = parse_line(line).err().map(|e| e.to_string()).expect(line);
        assert!(
            error.contains("malformed JSON") && error.contains(words) && !error.contains("`dim`"),
            "{line}: {error}"
        );
    }
    let text: String = lines.iter().map(|(l, ..)| format!("{l}\n")).collect();
    let path =
        std::env::temp_dir().join(format!("planar-hold-broken-{}.jsonl", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let out = crate::common::cli()
        .args(["gate", "--backend", "cpu"])
        .arg(&path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(5));
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), lines.len());
    for (k, (answer, (_, id, _))) in answers.iter().zip(&lines).enumerate() {
        assert_eq!(answer["id"], *id, "{answer}");
        assert_eq!(answer["line"], k + 1, "{answer}");
    }
}

#[test]
fn a_face_contact_a_hair_off_its_plane_is_proven_by_the_local_search() {
    // The public grasps degenerate-0032 and -0017 (a face contact with a vertex given twice)
    // with every point moved by 1e-11 or 1e-10 half sizes: their wrenches coplanar but for a
    // hair, a face the inner hull would make had no plane, and the whole facet set could not
    // be proven complete: force closure "uncertain". The coarser hulls' searches close (the
    // last one at 1e-8), each proof checked before its bound is taken.
    let lines = [
        r#"{"id": "off-plane-1e-11", "dim": 3, "grasp": true, "half_size": 0.06024771829787459, "pyramid": 16, "friction": "inner", "contacts": [{"points": [[-0.01807431548907328, -0.01131043203983341, 0.040022683505728344], [0.018074315489418354, -0.011310432039462963, 0.0400226835052175], [0.01807431548906868, 0.011310432039844423, 0.04002268350528719], [-0.018074315489155737, 0.01131043204017746, 0.04002268350549924], [0.018074315489918655, 0.011310432039754797, 0.04002268350616831]], "normal": [0.0, 0.0, -1.0], "mu": 0.4}, {"points": [[-0.018074315489330767, -0.011310432039312498, -0.040022683505412875], [0.018074315488995147, -0.011310432039595529, -0.040022683505535346], [0.018074315489318565, 0.011310432039809857, -0.04002268350513988], [-0.018074315489006957, 0.011310432039993342, -0.040022683506062466]], "normal": [0.0, 0.0, 1.0], "mu": 0.4}], "category": "degenerate", "sub": "repeated_vertex"}"#,
        r#"{"id": "off-plane-1e-10", "dim": 3, "grasp": true, "half_size": 0.06024771829787459, "pyramid": 16, "friction": "inner", "contacts": [{"points": [[-0.018074315488443488, -0.011310432037952524, 0.040022683506400904], [0.018074315493253293, -0.01131043204447926, 0.04002268350098125], [0.018074315493769186, 0.01131043204364335, 0.04002268349970446], [-0.018074315484613374, 0.011310432040929984, 0.04002268350992301], [0.018074315491786293, 0.01131043203812536, 0.04002268350097978]], "normal": [0.0, 0.0, -1.0], "mu": 0.4}, {"points": [[-0.018074315486172766, -0.011310432037086204, -0.040022683505991655], [0.018074315486600854, -0.011310432041253855, -0.04002268350037943], [0.01807431548891943, 0.011310432036123003, -0.040022683499772824], [-0.01807431548359874, 0.011310432035722386, -0.040022683509285166]], "normal": [0.0, 0.0, 1.0], "mu": 0.4}], "category": "degenerate", "sub": "repeated_vertex"}"#,
        r#"{"id": "twice-1e-10", "dim": 3, "grasp": true, "half_size": 0.07721366543052151, "pyramid": 8, "friction": "inner", "contacts": [{"points": [[-0.01990117578086796, -0.02316409963010391, 0.05278885275196868], [0.01990117579441712, -0.023164099627276925, 0.05278885274884454], [0.01990117579224275, 0.023164099632428665, 0.052788852742730395], [-0.0199011757890535, 0.023164099623857955, 0.05278885274006792], [-0.01990117578487643, -0.023164099631800515, 0.05278885274367691]], "normal": [0.0, 0.0, -1.0], "mu": 0.4}, {"points": [[-0.01990117579508775, -0.02316409963652916, -0.052788852744812265], [0.019901175785573676, -0.023164099630144007, -0.05278885274474796], [0.019901175794061792, 0.02316409963225992, -0.05278885275179919], [-0.019901175780215788, 0.02316409962427159, -0.05278885274621686]], "normal": [0.0, 0.0, 1.0], "mu": 0.4}], "category": "degenerate", "sub": "repeated_vertex"}"#,
    ];
    let lines = lines.map(String::from);
    for a in crate::common::gate_with_checked_proofs("off-plane", &lines) {
        let (q1, lower) = (a["q1"].as_f64().unwrap(), a["q1_lower"].as_f64().unwrap());
        assert!(
            a["force_closure"] == json!(true)
                && a["margin_checked"] == json!(true)
                && [0.1396023331, 0.1577531549]
                    .iter()
                    .any(|q| (q1 - q).abs() < 1e-9)
                && lower <= q1
                && q1 - lower <= 1e-9 * q1,
            "{a}"
        );
        assert_eq!(a["proof"]["kind"], json!("inner"), "{a}");
    }
}
