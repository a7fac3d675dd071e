//! `"friction": "circular"` grasps and `q1_at_least` thresholds (docs/contract-grasp.md §5,
//! §6): the public circular grasps graded by the rules of the shared
//! `check_grasp_circular.py` (the closed-form support function rebuilt here from each case),
//! and invariants over random fingertip grasps: inner(k) ≤ circular ≤ outer(k) for k = 4…64,
//! raising μ never lowers q1, scaling positions and ℓ together leaves it, thresholds agree
//! with the full q1, a line's `"tolerance"` closes the bracket to it.

use planar_hold::{hold_reports, parse_line, GraspReport, Report, SceneLine};
use planar_hold::{Backend, Engine};
use serde_json::{json, Value};

fn reports(lines: &[Value]) -> Vec<GraspReport> {
    let engine = Engine::new(Backend::Cpu).unwrap();
    let scenes: Vec<SceneLine> = lines
        .iter()
        .map(|l| parse_line(&l.to_string()).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    hold_reports(&engine, &scenes, planar_hold::Options::default())
        .unwrap()
        .into_iter()
        .map(|r| match r {
            Report::Grasp(r) => r,
            _ => panic!("a grasp line answered as another kind"),
        })
        .collect()
}

fn v3(v: &Value) -> [f64; 3] {
    std::array::from_fn(|k| v[k].as_f64().unwrap())
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Per point: position, unit normal, μ.
fn frames(c: &Value) -> Vec<([f64; 3], [f64; 3], f64)> {
    let mut out = Vec::new();
    for ct in c["contacts"].as_array().unwrap() {
        let n = v3(&ct["normal"]);
        let l = dot(&n, &n).sqrt();
        let n = n.map(|v| v / l);
        for p in ct["points"].as_array().unwrap() {
            out.push((v3(p), n, ct["mu"].as_f64().unwrap()));
        }
    }
    out
}

/// The closed-form `h_W(u)` of the case's circular W (the grader's `support`).
fn support(c: &Value, u: &[f64; 6]) -> f64 {
    let ell = c["half_size"].as_f64().unwrap();
    frames(c)
        .iter()
        .map(|(p, n, mu)| {
            let t = cross([u[3], u[4], u[5]], *p);
            let v = [u[0] + t[0] / ell, u[1] + t[1] / ell, u[2] + t[2] / ell];
            let vn = dot(&v, n);
            let vt = [v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]];
            vn + mu * dot(&vt, &vt).sqrt()
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The grader's scale: a bound of max |w| over the discs.
fn scale(c: &Value) -> f64 {
    let ell = c["half_size"].as_f64().unwrap();
    frames(c)
        .iter()
        .map(|(p, _, mu)| (1.0 + mu * mu).sqrt() * (1.0 + dot(p, p) / (ell * ell)).sqrt())
        .fold(0.0, f64::max)
}

/// A small deterministic generator (xorshift), uniform in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (a, b) = (self.next().max(1e-300), self.next());
        (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
    }

    fn unit6(&mut self) -> [f64; 6] {
        let u: [f64; 6] = std::array::from_fn(|_| self.normal());
        let l = dot(&u, &u).sqrt();
        u.map(|v| v / l)
    }
}

#[test]
fn public_circular_grasps_grade() {
    let cases = crate::common::read_data("grasp_circular_public.jsonl");
    let expected = crate::common::read_data("grasp_circular_public.expected.jsonl");
    let answers = reports(&cases);
    let mut rng = Rng(20261202);
    let (mut closed, mut failures) = (0, Vec::new());
    for ((c, e), r) in cases.iter().zip(&expected).zip(&answers) {
        let id = &c["id"];
        let s = e["scale"].as_f64().unwrap();
        assert!((s - scale(c)).abs() <= 1e-12 * s, "{id}: scale");
        let tol = 1e-9 * s;
        let mut fail = |why: String| failures.push(format!("{id}: {why}"));
        // Severe: force closure against the pyramids' labels.
        if e["inner_fc"] == json!(true) && r.force_closure == json!(false) {
            fail("force_closure false, inner pyramids in force closure".into());
        }
        if e["outer_holds_0"] == json!(false) && r.force_closure == json!(true) {
            fail("force_closure true, 0 outside the outer pyramids' W".into());
        }
        // The bound from above is attained: h_W(weakest) = q1.
        let hu = support(c, &r.weakest);
        if (hu - r.q1).abs() > tol {
            fail(format!("h_W(weakest) {hu} != q1 {}", r.q1));
        }
        // The bound from below is never above h_W(u) for any u, nor above q1.
        let hmin = (0..2000)
            .map(|_| support(c, &rng.unit6()))
            .fold(f64::INFINITY, f64::min);
        if r.q1_lower > hmin + tol || r.q1_lower > r.q1 + tol {
            fail(format!("q1_lower {} above h_W(u) {hmin}", r.q1_lower));
        }
        // Never a bound on the wrong side of the pyramids' q1.
        if let Some(qi) = e["q1_inner"].as_f64() {
            if r.q1 < qi - 1e-7 * s {
                fail(format!("q1 {} below the inner pyramids' {qi}", r.q1));
            }
        }
        if let Some(qo) = e["q1_outer"].as_f64() {
            if r.q1_lower > qo + 1e-7 * s {
                fail(format!(
                    "q1_lower {} above the outer pyramids' {qo}",
                    r.q1_lower
                ));
            }
        }
        // Closed: the bracket within 1e-6 and q1 not above the sampled minimum.
        if r.q1 - r.q1_lower <= 1e-6 * s && r.q1 <= hmin + tol {
            closed += 1;
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // docs/contract-grasp.md §5: every public bracket closes (within 1e-6 here; the engine
    // closes them to 1e-9 of the scale, the grader's tolerance on q1).
    assert_eq!(
        closed,
        cases.len(),
        "only {closed} of {} brackets closed",
        cases.len()
    );
}

/// A random fingertip grasp: `n` points on a sphere of radius `r`, normals pointing inward
/// and tilted, one μ.
fn fingertips(rng: &mut Rng, n: usize, r: f64, ell: f64, mu: f64) -> Value {
    let contacts: Vec<Value> = (0..n)
        .map(|_| {
            let d: [f64; 3] = std::array::from_fn(|_| rng.normal());
            let l = dot(&d, &d).sqrt();
            let p = d.map(|v| v / l * r);
            let tilt: [f64; 3] = std::array::from_fn(|_| 0.3 * rng.normal());
            let nrm: [f64; 3] = std::array::from_fn(|k| -d[k] / l + tilt[k]);
            json!({"points": [p], "normal": nrm, "mu": mu})
        })
        .collect();
    json!({"id": 0, "dim": 3, "grasp": true, "half_size": ell, "pyramid": 4,
           "friction": "circular", "contacts": contacts})
}

fn with(line: &Value, f: impl Fn(&mut Value)) -> Value {
    let mut l = line.clone();
    f(&mut l);
    l
}

#[test]
fn circular_lies_between_the_pyramids_and_grows_with_mu() {
    let mut rng = Rng(7);
    let base: Vec<Value> = (0..24)
        .map(|i| {
            let mu = 0.3 + 0.4 * rng.next();
            fingertips(&mut rng, 3 + i % 3, 1.0, 1.0, mu)
        })
        .collect();
    let circ = reports(&base);
    for k in [4u64, 8, 16, 51] {
        let inner = reports(
            &base
                .iter()
                .map(|l| {
                    with(l, |l| {
                        l["friction"] = json!("inner");
                        l["pyramid"] = json!(k);
                    })
                })
                .collect::<Vec<_>>(),
        );
        let outer = reports(
            &base
                .iter()
                .map(|l| {
                    with(l, |l| {
                        l["friction"] = json!("outer");
                        l["pyramid"] = json!(k);
                    })
                })
                .collect::<Vec<_>>(),
        );
        for (((l, c), i), o) in base.iter().zip(&circ).zip(&inner).zip(&outer) {
            let tol = 1e-7 * scale(l);
            assert!(
                i.q1 <= c.q1 + tol,
                "k {k}: inner {} > circular {}",
                i.q1,
                c.q1
            );
            assert!(
                c.q1_lower <= o.q1 + tol,
                "k {k}: circular lower {} > outer {}",
                c.q1_lower,
                o.q1
            );
        }
    }
    // Raising μ never lowers q1; scaling positions and ℓ together leaves it.
    let more = reports(
        &base
            .iter()
            .map(|l| {
                with(l, |l| {
                    for c in l["contacts"].as_array_mut().unwrap() {
                        c["mu"] = json!(c["mu"].as_f64().unwrap() * 1.5);
                    }
                })
            })
            .collect::<Vec<_>>(),
    );
    let scaled = reports(
        &base
            .iter()
            .map(|l| {
                with(l, |l| {
                    l["half_size"] = json!(3.0);
                    for c in l["contacts"].as_array_mut().unwrap() {
                        let p = v3(&c["points"][0]).map(|v| v * 3.0);
                        c["points"] = json!([p]);
                    }
                })
            })
            .collect::<Vec<_>>(),
    );
    for (((l, c), m), s) in base.iter().zip(&circ).zip(&more).zip(&scaled) {
        let tol = 1e-7 * scale(l);
        assert!(
            m.q1 >= c.q1_lower - tol,
            "μ × 1.5: {} < {}",
            m.q1,
            c.q1_lower
        );
        assert!(
            s.q1 >= c.q1_lower - tol && s.q1_lower <= c.q1 + tol,
            "scaled"
        );
    }
}

#[test]
fn thresholds_agree_with_the_full_q1() {
    let mut rng = Rng(11);
    let base: Vec<Value> = (0..24)
        .map(|i| {
            let mu = 0.2 + 0.5 * rng.next();
            fingertips(&mut rng, 3 + i % 3, 1.0, 1.0, mu)
        })
        .collect();
    // Every friction that searches a threshold's bracket (the true cones, and the pyramids'
    // wrenches): each answer agrees with the full q1, and some stopped before the bracket
    // closed (the point of asking a threshold).
    for friction in ["circular", "inner", "outer"] {
        let lines: Vec<Value> = base
            .iter()
            .map(|l| with(l, |l| l["friction"] = json!(friction)))
            .collect();
        let full = reports(&lines);
        let mut stopped = 0;
        for t in [-0.05, 0.0, 0.02, 0.05, 0.1] {
            let asked = reports(
                &lines
                    .iter()
                    .map(|l| with(l, |l| l["q1_at_least"] = json!(t)))
                    .collect::<Vec<_>>(),
            );
            for (f, a) in full.iter().zip(&asked) {
                let tol = 1e-7 * scale(&lines[0]).max(1.0);
                stopped += usize::from(!a.margin_checked && f.margin_checked);
                assert!(a.q1_lower <= a.q1, "{friction} T {t}: an empty bracket");
                // A search stops once T is decided and force closure with it.
                if !f.force_closure.is_string() {
                    assert_eq!(a.force_closure, f.force_closure, "{friction} T {t}");
                }
                match a.q1_at_least.as_ref().expect("q1_at_least answered") {
                    Value::Bool(true) => {
                        assert!(a.q1_lower >= t && f.q1 >= t - tol, "{friction} T {t}")
                    }
                    Value::Bool(false) => {
                        assert!(a.q1 < t && f.q1_lower < t + tol, "{friction} T {t}")
                    }
                    other => assert!(
                        a.q1_lower < t
                            && a.q1 >= t
                            && f.q1_lower <= a.q1 + tol
                            && f.q1 >= a.q1_lower - tol,
                        "{friction} T {t}: {other} with full q1 {}",
                        f.q1
                    ),
                }
            }
        }
        assert!(
            stopped > 0,
            "{friction}: no threshold's search stopped early"
        );
    }
}

/// Thresholds on a grasp whose search meets a point on the span of a ridge through three
/// of a contact's four coplanar wrenches (once refused there, its bracket [0.054, 0.52]
/// left T = 0.1 and 0.2 uncertain) are decided, and agree with the full q1.
#[test]
fn thresholds_on_a_grasp_whose_search_meets_coplanar_wrenches_are_decided() {
    let line = json!({"id": "g8258", "dim": 3, "grasp": true, "half_size": 0.05, "pyramid": 4,
        "friction": "inner", "contacts": [
        {"points": [[-0.004958113239518583, -0.04175523593517947, -0.027053971706601745]],
         "normal": [0.09916226479037166, 0.8351047187035894, 0.5410794341320349], "mu": 0.5},
        {"points": [[0.0071125085506207626, 0.025612423461047026, 0.04234874244377694]],
         "normal": [-0.14225017101241524, -0.5122484692209405, -0.8469748488755388], "mu": 0.5},
        {"points": [[0.0092023498570943, 0.04234527789245943, -0.024943820824364964]],
         "normal": [-0.184046997141886, -0.8469055578491886, 0.49887641648729925], "mu": 0.5}]});
    let full = &reports(std::slice::from_ref(&line))[0];
    assert!(
        full.margin_checked && (full.q1 - 0.152726127471).abs() < 1e-9,
        "{full:?}"
    );
    for (t, answer) in [(0.1, true), (0.2, false)] {
        let asked = &reports(&[with(&line, |l| l["q1_at_least"] = json!(t))])[0];
        assert_eq!(asked.q1_at_least, Some(json!(answer)), "T {t}: {asked:?}");
        assert_eq!(asked.force_closure, json!(true), "T {t}");
        // The two brackets overlap (to rounding: the search's float hull bound).
        let tol = 1e-12 * scale(&line);
        assert!(
            asked.q1_lower <= full.q1 + tol && asked.q1 >= full.q1_lower - tol,
            "T {t}: {asked:?}"
        );
    }
}

/// A circular grasp whose inner hull meets, at its 11th query, a support point on the span
/// of a ridge through three points of one disc (a disc's points all lie on one 2-flat) and
/// barely beyond one face there: the hull once refused that point and the bracket stayed
/// [0.001, 0.027]. It closes, the proof checked.
#[test]
fn a_circular_search_through_a_discs_coplanar_points_closes() {
    let line = json!({"id": "g201", "dim": 3, "grasp": true, "half_size": 0.05, "pyramid": 8,
        "friction": "circular", "contacts": [
        {"points": [[0.018125381957476143, 0.03729737255736087, -0.02793522022846828]],
         "normal": [-0.36250763914952283, -0.7459474511472173, 0.5587044045693655], "mu": 0.5},
        {"points": [[-0.014492037126438574, 0.010220883488037397, 0.04674948556561763]],
         "normal": [0.28984074252877146, -0.20441766976074793, -0.9349897113123525], "mu": 0.5},
        {"points": [[-0.02566179599701589, 0.02857000062248606, 0.032019170673811735]],
         "normal": [0.5132359199403178, -0.5714000124497212, -0.6403834134762347], "mu": 0.5},
        {"points": [[-0.04815460791176812, 0.0023240305220521623, -0.01325641803039]],
         "normal": [0.9630921582353623, -0.04648061044104324, 0.2651283606078], "mu": 0.5}]});
    let r = &reports(std::slice::from_ref(&line))[0];
    let tol = 1e-9 * scale(&line);
    assert!(r.margin_checked && r.q1 - r.q1_lower <= tol, "{r:?}");
    assert!(
        (r.q1 - 0.0066221731).abs() < 1e-8 && r.force_closure == json!(true),
        "{r:?}"
    );
}

/// Each line's bracket closes to 1e-9 · max|w| and proves force closure.
fn each_closes_in_force_closure(lines: &[&str]) {
    let lines: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (line, r) in lines.iter().zip(reports(&lines)) {
        let tol = 1e-9 * scale(line);
        assert!(r.margin_checked && r.q1 - r.q1_lower <= tol, "{r:?}");
        assert_eq!(r.force_closure, json!(true), "{r:?}");
    }
}

/// Circular grasps whose inner hull of float64 normals left the bracket open (a support
/// point refused early, or faces the proof checker would not take): the search runs once
/// more with every thin face's normal in double-double, and each closes.
#[test]
fn a_bracket_left_open_by_float_normals_closes_in_double_double() {
    each_closes_in_force_closure(&[
        r#"{"id": "g6", "dim": 3, "grasp": true, "half_size": 0.05, "friction": "circular", "contacts": [{"points": [[-0.021745782186661313, -0.019020865690517794, -0.03871334773370714]], "normal": [0.5857588694064437, 0.7126381961838126, 0.38604837553286825], "mu": 0.5}, {"points": [[0.010246064627280555, -0.04325651312713901, 0.010625875556961435]], "normal": [-0.06611830792620163, 0.8613342872841186, -0.5037177929215277], "mu": 0.5}, {"points": [[0.04304656195802242, 0.016813391469658018, 0.02738319572449775]], "normal": [-0.943092033167141, -0.12289378715807066, -0.3089895371280639], "mu": 0.5}, {"points": [[-0.030965670558241593, -0.019367104768114048, 0.009599407793060715]], "normal": [0.7181405828105192, 0.6670125584369753, -0.1984145917212955], "mu": 0.5}]}"#,
        r#"{"id": "g109", "dim": 3, "grasp": true, "half_size": 0.05, "friction": "circular", "contacts": [{"points": [[-0.008389459021018418, -0.024517593811925614, 0.044436509782727826]], "normal": [0.39976858095392626, 0.3094134272550429, -0.8628142399823803], "mu": 1.0}, {"points": [[0.03880097049908212, -0.0013507538082371071, -0.002545538942754662]], "normal": [-0.9740120325367949, -0.22494942681667093, 0.026425666470175684], "mu": 1.0}, {"points": [[-0.0243715535779936, -0.03353942032376997, 0.012616319414964067]], "normal": [0.6475670647795434, 0.7231751785365109, -0.24015527843770657], "mu": 1.0}]}"#,
    ]);
}

/// Two-contact grasps with a face contact (four corners, each its own disc of one force
/// disc): the corners' discs crowd the inner hull with points on neighbouring arcs, and the
/// finer hulls (float64 and double-double normals) leave faces the checker finds unevenly
/// met, brackets 4e-4 to 4e-2 open. The coarser third search closes each.
#[test]
fn a_face_contacts_crowded_discs_close_in_the_coarser_search() {
    each_closes_in_force_closure(&[
        r#"{"id": "g16", "dim": 3, "grasp": true, "half_size": 0.05, "friction": "circular", "contacts": [{"points": [[-0.012475320395964794, 0.030444762664415693, -0.0010435293827840805]], "normal": [0.5315167166818536, -0.8465714140449956, 0.02840459134715373], "mu": 1.0}, {"points": [[0.04726583534108399, -0.02007999191203031, -0.010779010172868538], [0.04726583534108399, -0.009014505937499405, -0.021818856565820867], [0.03797324841830278, -0.01789157080904221, -0.030716538049302904], [0.03797324841830278, -0.028957056783573118, -0.019676691656350574]], "normal": [-0.8040931508983485, 0.41988946265316535, 0.4208646383710586], "mu": 1.0}]}"#,
        r#"{"id": "g5", "dim": 3, "grasp": true, "half_size": 0.05, "friction": "circular", "contacts": [{"points": [[-0.04559718184656651, 0.011025424281316634, -0.038008229676090584]], "normal": [0.7821822582700206, -0.38701898863133455, 0.4882696153626496], "mu": 1.0}, {"points": [[0.015993953698725798, 0.02465303769685088, 0.031474061728757864], [0.024348264315380504, 0.02465303769685088, 0.012984993824986706], [0.026513865068418747, 0.004503774908618075, 0.013963523486768768], [0.01815955445176404, 0.004503774908618075, 0.03245259139053993]], "normal": [-0.9050164298035245, -0.11712871434673729, -0.40893291144289495], "mu": 1.0}]}"#,
        r#"{"id": "g9", "dim": 3, "grasp": true, "half_size": 0.05, "friction": "circular", "contacts": [{"points": [[0.046420137758794264, 0.0010436233716389874, -0.04707292056032506], [0.046420137758794264, 0.04803180844643428, -0.031975802596253745], [-0.0028467532441959105, 0.04892813550860432, -0.03476552590536645], [-0.0028467532441959105, 0.0019399504338090331, -0.04986264386943776]], "normal": [-0.05937073978643878, -0.3053552204539679, 0.950385871422087], "mu": 1.0}, {"points": [[0.023903053298489962, -0.024767119477480903, 0.05477524689430884]], "normal": [-0.31614551162154375, 0.1370586591100321, -0.9387581900811904], "mu": 1.0}]}"#,
    ]);
}

/// A circular grasp whose wrenches would square past float64 (a point 5e300 half sizes out)
/// is refused by name, not answered with q1 = ∞ (once written as null, "closed"); one of
/// 1e100 half sizes is answered, q1 finite and the bracket ordered; and one whose positions
/// and ℓ are 1e154 (their squares overflow) is answered as at its own scale.
#[test]
fn a_circular_grasp_too_large_to_square_is_refused() {
    let line = |x: &str| {
        format!(
            r#"{{"id": 1, "dim": 3, "grasp": true, "half_size": 0.2, "friction": "circular", "contacts": [
            {{"points": [[-0.05, -0.01, -0.08]], "normal": [0, 0, 1], "mu": 0.4}},
            {{"points": [[-0.2, -0.07, 0.06]], "normal": [1, 0, 0], "mu": 0.4}},
            {{"points": [[{x}, -0.1, 0.004]], "normal": [0, 1, 0], "mu": 0.4}}]}}"#
        )
    };
    let e = parse_line(&line("1e300")).expect_err("refused").to_string();
    assert!(e.contains("contacts[2]") && e.contains("circular"), "{e}");
    let ok: Value = serde_json::from_str(&line("1e100")).unwrap();
    let r = &reports(&[ok])[0];
    assert!(r.q1.is_finite() && r.q1_lower <= r.q1, "{r:?}");
    // Positions and ℓ scaled together by 2^520 (|p| about 1e155, whose square overflows):
    // the same q1, as scaling them together must leave it.
    let small: Value = serde_json::from_str(&line("0.004")).unwrap();
    let big = with(&small, |l| {
        let f = 2f64.powi(520);
        l["half_size"] = json!(l["half_size"].as_f64().unwrap() * f);
        for c in l["contacts"].as_array_mut().unwrap() {
            for p in c["points"].as_array_mut().unwrap() {
                for v in p.as_array_mut().unwrap() {
                    *v = json!(v.as_f64().unwrap() * f);
                }
            }
        }
    });
    let r = reports(&[small, big]);
    assert!(
        r[0].margin_checked && r[1].margin_checked && (r[0].q1 - r[1].q1).abs() <= 1e-9,
        "{:?} scaled {:?}",
        r[0],
        r[1]
    );
}

/// A circular grasp has no pyramid of its own: its k sizes only the inner pyramids that seed
/// its search. Twenty fingertips at k = 16 (320 generators, which a pyramid line refuses)
/// take 12 edges a point instead, and answer as at k = 8 (the same true cones); a fingertip
/// given twice changes nothing (docs/contract-grasp.md's invariants), and past 85 points (3
/// edges each: 258) the line is refused.
#[test]
fn a_circular_grasp_of_many_points_takes_fewer_pyramid_edges() {
    // Fingertips spread over the unit sphere (a spiral), each pushing inwards.
    let tips: Vec<Value> = (0..20)
        .map(|i| {
            let z = 1.0 - (2 * i + 1) as f64 / 20.0;
            let (r, a) = ((1.0 - z * z).sqrt(), 2.399_963 * i as f64);
            let p = [r * a.cos(), r * a.sin(), z];
            json!({"points": [p], "normal": p.map(|v| -v), "mu": 0.4})
        })
        .collect();
    let grasp = |k: usize, friction: &str, contacts: &[Value]| {
        json!({"id": k, "dim": 3, "grasp": true, "half_size": 1.0, "pyramid": k,
               "friction": friction, "contacts": contacts})
    };
    let e = parse_line(&grasp(16, "inner", &tips).to_string())
        .expect_err("a pyramid line of 320 generators")
        .to_string();
    assert!(e.contains("320 generators, more than 256"), "{e}");
    let mut twice = tips.clone();
    twice.push(tips[7].clone());
    let r = reports(&[
        grasp(16, "circular", &tips),
        grasp(8, "circular", &tips),
        grasp(16, "circular", &twice),
    ]);
    assert_eq!((r[0].pyramid, r[0].n_generators), (12, 240), "{:?}", r[0]);
    assert_eq!((r[2].pyramid, r[2].n_generators), (12, 252), "{:?}", r[2]);
    for other in &r[1..] {
        assert!(
            r[0].margin_checked
                && other.margin_checked
                && (r[0].q1 - other.q1).abs() <= 1e-9
                && r[0].force_closure == Value::Bool(true),
            "{:?} against {other:?}",
            r[0]
        );
    }
    let many: Vec<Value> = (0..88).map(|i| tips[i % 20].clone()).collect();
    let e = parse_line(&grasp(4, "circular", &many).to_string())
        .expect_err("88 points of at least 3 edges each")
        .to_string();
    assert!(
        e.contains("88 points x 3 pyramid edges = 264 generators"),
        "{e}"
    );
}

#[test]
fn circular_is_refused_off_grasp_lines_and_bad_thresholds() {
    let spatial = r#"{"id": 1, "dim": 3, "half_size": 1, "friction": "circular", "contacts": [{"points": [[0,0,-1]], "normal": [0,0,1], "mu": 0.5}]}"#;
    let e = parse_line(spatial).expect_err("refused").to_string();
    assert!(e.contains("circular") && e.contains("grasp"), "{e}");
    let bad = r#"{"id": 2, "dim": 3, "grasp": true, "half_size": 1, "q1_at_least": "high", "contacts": [{"points": [[0,0,-1]], "normal": [0,0,1], "mu": 0.5}]}"#;
    let e = parse_line(bad).expect_err("refused").to_string();
    assert!(e.contains("q1_at_least"), "{e}");
}

#[test]
fn a_lines_tolerance_closes_the_circular_bracket_to_it() {
    // `"tolerance": 1e-3`: every circular bracket closes within 1e-3 of the grasp's scale
    // (the support function's bound of max |w|), overlaps the default's (1e-9) bracket, and
    // at least one stays wider than the default's would (the search stopped earlier). A
    // pyramid line's q1 is its exact facets' whatever the tolerance: the same answer.
    let mut rng = Rng(23);
    let base: Vec<Value> = (0..16)
        .map(|i| {
            let mu = 0.3 + 0.4 * rng.next();
            fingertips(&mut rng, 3 + i % 3, 1.0, 0.7, mu)
        })
        .collect();
    let loose_lines: Vec<Value> = base
        .iter()
        .map(|l| with(l, |l| l["tolerance"] = json!(1e-3)))
        .collect();
    let (tight, loose) = (reports(&base), reports(&loose_lines));
    let mut wider = 0;
    for ((l, t), a) in base.iter().zip(&tight).zip(&loose) {
        let s = scale(l);
        let gap = a.q1 - a.q1_lower;
        if a.margin_checked {
            assert!(gap <= 1e-3 * s, "gap {gap} beyond 1e-3 × {s}");
        }
        assert!(gap >= 0.0, "q1 {} below q1_lower {}", a.q1, a.q1_lower);
        let slack = 1e-7 * s;
        assert!(
            a.q1_lower <= t.q1 + slack && t.q1_lower <= a.q1 + slack,
            "loose [{}, {}] misses tight [{}, {}]",
            a.q1_lower,
            a.q1,
            t.q1_lower,
            t.q1
        );
        if t.margin_checked && gap > 1e-9 * s {
            wider += 1; // closed to 1e-9 by default, left wider when asked
        }
    }
    assert!(loose.iter().filter(|a| a.margin_checked).count() >= 14);
    assert!(wider > 0, "no bracket was left wider than the default's");
    for friction in ["inner", "coulomb"] {
        let of = |lines: &[Value]| {
            let lines: Vec<Value> = lines
                .iter()
                .map(|l| with(l, |l| l["friction"] = json!(friction)))
                .collect();
            reports(&lines)
        };
        assert_eq!(of(&base), of(&loose_lines), "{friction}");
    }
}

#[test]
fn a_bad_tolerance_is_refused_by_name() {
    let line = |t: &str| {
        format!(
            r#"{{"id": 3, "dim": 3, "grasp": true, "half_size": 1, "friction": "circular", "tolerance": {t}, "contacts": [{{"points": [[0,0,-1]], "normal": [0,0,1], "mu": 0.5}}]}}"#
        )
    };
    for bad in ["0", "-1e-6", "0.2", "\"tight\"", "[1e-6]"] {
        let e = parse_line(&line(bad)).expect_err(bad).to_string();
        assert!(
            e.contains("tolerance must be a number above 0"),
            "{bad}: {e}"
        );
    }
    for good in ["1e-12", "0.1", "null"] {
        parse_line(&line(good)).unwrap_or_else(|e| panic!("{good}: {e}"));
    }
    let e = planar_hold::details::scene::grasp_tolerance(f64::NAN)
        .expect_err("NaN")
        .to_string();
    assert!(e.contains("got NaN"), "{e}");
}

/// `gate --proof` gives every public circular grasp a proof (its own disc points) that
/// `check-proof --require` passes; a point moved off its disc fails it, by line.
#[test]
fn check_proof_passes_every_public_circular_proof_and_fails_a_point_off_its_disc() {
    let cases = crate::common::data("grasp_circular_public.jsonl");
    let run = crate::common::cli()
        .arg("gate")
        .arg(&cases)
        .args(["--backend", "cpu", "--proof"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut answers: Vec<Value> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(answers.iter().all(|a| a["proof"]["points"].is_array()));
    let check = |answers: &[Value], name: &str| {
        let path = std::env::temp_dir().join(format!(
            "planar-hold-circular-proof-{name}-{}.jsonl",
            std::process::id()
        ));
        let text: String = answers.iter().map(|a| format!("{a}\n")).collect();
        std::fs::write(&path, text).unwrap();
        let out = crate::common::cli()
            .arg("check-proof")
            .arg("--require")
            .arg(&cases)
            .arg(&path)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        out
    };
    let honest = check(&answers, "honest");
    assert!(
        honest.status.success(),
        "{}",
        String::from_utf8_lossy(&honest.stdout)
    );
    // Line 5's first point pushed 1e-6 along z: no longer on its disc.
    let z = answers[4]["proof"]["points"][0][3].as_f64().unwrap();
    answers[4]["proof"]["points"][0][3] = json!(z + 1e-6);
    let bad = check(&answers, "moved");
    assert_eq!(bad.status.code(), Some(6));
    let out = String::from_utf8_lossy(&bad.stdout);
    assert!(
        out.contains("\"line\":5") && out.contains("off disc"),
        "{out}"
    );
    // An answer missing at the end: its line named, the rest still checked (on every core,
    // reported in order).
    answers.pop();
    let short = check(&answers, "short");
    assert_eq!(short.status.code(), Some(6));
    let out = String::from_utf8_lossy(&short.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].contains("\"line\":5") && lines[1].contains("\"line\":200"),
        "{out}"
    );
    assert!(lines[1].contains("no answer"), "{out}");
}

/// Two random fingertip grasps whose support points crowd so that the inner hull once kept a
/// face of nearly dependent points, which the proof checker will not orient ("x lies on its
/// plane"): the hull refuses such a face as degenerate, and both brackets close with an inner
/// proof.
#[test]
fn crowded_support_points_make_no_face_the_checker_cannot_orient() {
    let lines: Vec<Value> = [
        r#"{"id": 9152, "half_size": 1.0, "pyramid": 8, "friction": "circular", "contacts": [{"points": [[-0.7139432822868619, -0.6582438170956811, -0.23874686790148614]], "normal": [0.5903050690835308, 0.7850429450317725, 0.18774317529574597], "mu": 0.5}, {"points": [[-0.854143648186145, -0.09178808488909132, -0.5118726167081572]], "normal": [0.8577770088555464, 0.06616816929392479, 0.5097454035605642], "mu": 0.5}, {"points": [[0.5444749049736979, -0.8339049930270734, 0.09027480522493055]], "normal": [-0.47140057994480733, 0.881477129428819, -0.02792066477769484], "mu": 0.5}, {"points": [[-0.6616277268762337, 0.47089590271634635, -0.5835287480780577]], "normal": [0.7647449559134574, -0.3729010642436402, 0.5254616529213951], "mu": 0.5}], "dim": 3, "grasp": true}"#,
        r#"{"id": 12796, "half_size": 1.0, "pyramid": 8, "friction": "circular", "contacts": [{"points": [[0.20915398614567884, 0.7332374244467244, 0.6470065606082426]], "normal": [-0.08523988987803362, -0.8111873705120136, -0.5785405872498365], "mu": 0.5}, {"points": [[-0.3754039483984721, -0.1384340060169227, -0.9164648937656826]], "normal": [0.3497319003315364, 0.0020178513600685563, 0.936847653659004], "mu": 0.5}, {"points": [[0.3895508628919787, -0.29884552705660844, -0.8711724721192542]], "normal": [-0.1998214800008877, 0.29009424564366687, 0.9359042177352802], "mu": 0.5}, {"points": [[0.09392648208393756, 0.9932123511896522, 0.06860788152726113]], "normal": [-0.09172699496128384, -0.9874664065485002, 0.12843774497228144], "mu": 0.5}], "dim": 3, "grasp": true}"#,
    ]
    .iter()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let scenes: Vec<SceneLine> = lines
        .iter()
        .map(|l| parse_line(&l.to_string()).unwrap())
        .collect();
    let engine = Engine::new(Backend::Cpu).unwrap();
    let options = planar_hold::Options {
        proof: true,
        ..planar_hold::Options::default()
    };
    for report in hold_reports(&engine, &scenes, options).unwrap() {
        let Report::Grasp(r) = report else {
            panic!("a grasp answered as something else")
        };
        assert!(r.margin_checked, "{}: [{}, {}]", r.id, r.q1_lower, r.q1);
        let proof = serde_json::to_value(r.proof.as_ref().unwrap()).unwrap();
        assert_eq!(proof["kind"], "inner", "{}", r.id);
    }
}

/// The public circular grasp `id` with every contact's μ multiplied by `factor`.
fn public_with_mu_times(id: &str, factor: f64) -> Value {
    let mut line = crate::common::read_data("grasp_circular_public.jsonl")
        .into_iter()
        .find(|l| l["id"] == json!(id))
        .unwrap();
    for c in line["contacts"].as_array_mut().unwrap() {
        c["mu"] = json!(c["mu"].as_f64().unwrap() * factor);
    }
    line
}

#[test]
fn a_bracket_that_will_not_close_stops_in_bounded_memory() {
    // A public fingertip grasp with every μ 100 times its own (up to 124): its friction
    // discs far wider than their normal force, the inner hull crowds (200 points, half a
    // million faces still 1e-5 apart) and would run to gigabytes before its query limit
    // (μ 1e8 once aborted the whole file). The search stops at its face limit and answers
    // the bracket it has, both ends on their sides, h_W(weakest) = q1. The same grasp with
    // a normal written 1e300 long (its squares overflow) is the same grasp.
    let line = public_with_mu_times("public-fingertip-0012-c", 100.0);
    let long = with(&line, |l| {
        let n = &mut l["contacts"][0]["normal"];
        *n = json!(n
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() * 1e300)
            .collect::<Vec<_>>());
    });
    let r = reports(&[line.clone(), long]);
    let s = scale(&line);
    for r in &r {
        assert_eq!(r.force_closure, json!(true), "{r:?}");
        assert!(r.q1_lower <= r.q1 && r.q1_lower > 0.0, "{r:?}");
        assert!(r.q1 - r.q1_lower <= 1e-2 * r.q1, "{r:?}");
        assert!(
            (support(&line, &r.weakest) - r.q1).abs() <= 1e-9 * s,
            "{r:?}"
        );
    }
    assert!((r[0].q1 - r[1].q1).abs() <= 1e-9 * s);
}

#[test]
fn a_fold_the_checker_finds_leaves_the_bound_the_hull_proved_before_it() {
    // A public degenerate grasp with its μ tripled: an add folds the inner hull within
    // rounding, and the checker finds that fold a true one. The bound the hull proved
    // just before that add still closes the bracket, and its proof passes `check-proof`
    // (it once fell back to a bound below 0).
    let line = public_with_mu_times("public-degenerate-0032-c", 3.0);
    let answers = crate::common::gate_with_checked_proofs("fold", &[line.to_string()]);
    let a = &answers[0];
    let (q1, lower) = (a["q1"].as_f64().unwrap(), a["q1_lower"].as_f64().unwrap());
    assert!(
        a["margin_checked"] == json!(true) && lower > 0.42 && lower <= q1,
        "{a}"
    );
}

#[test]
fn an_open_brackets_bound_from_below_is_the_one_its_proof_proves() {
    // Two public grasps made extreme: one with μ and every position (with ℓ) times 1e8, one
    // with a point moved 1e8 half sizes out. Their friction discs' points are 1e8 against a
    // nearest point of about 1, and a minor cycle of Wolfe's search moved that point away
    // from 0 in rounding: the answer once kept the bound from below of an earlier iterate
    // while its proof held the last one ("the bound from below -1.0 is more than the
    // proof's, -1.13"). Both brackets stay open here; each bound must be its proof's.
    let mut far = public_with_mu_times("public-scale-0003-c", 1e8);
    far["half_size"] = json!(far["half_size"].as_f64().unwrap() * 1e8);
    for c in far["contacts"].as_array_mut().unwrap() {
        for p in c["points"].as_array_mut().unwrap() {
            *p = json!(v3(p).map(|v| v * 1e8));
        }
    }
    let out = public_with_mu_times("public-scale-0005-c", 1.0);
    let out = with(&out, |l| {
        l["contacts"][1]["points"][0][1] = json!(-2.0630762881959077)
    });
    let answers =
        crate::common::gate_with_checked_proofs("wolfe", &[far, out].map(|l| l.to_string()));
    for a in &answers {
        assert_eq!(a["proof"]["kind"], json!("nearest"), "{a}");
        assert!(a["q1_lower"].as_f64().unwrap() <= a["q1"].as_f64().unwrap());
    }
}
