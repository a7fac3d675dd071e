//! The physical layer (docs/contract-planar.md §2, §3, §8, §9) through `parse_line` and `hold_reports`, on the CPU backend.

use std::path::PathBuf;

use crate::common::planar_reports;
use approx::assert_abs_diff_eq;
use planar_hold::details::scene::parse_planar;
use planar_hold::{Backend, Batch, Case, Engine, Options, Outcome, Verdict};
use planar_hold::{HoldReport, Scene};
use serde_json::{json, Value};

fn engine() -> Engine {
    Engine::new(Backend::Cpu).expect("cpu engine")
}

fn evaluate(cases: &[Case]) -> Vec<Outcome> {
    let answers = engine().evaluate(&Batch::from(cases), Options::default());
    answers.expect("the CPU engine answers").planar
}

fn report(line: &Value) -> HoldReport {
    let scene = parse_planar(&line.to_string()).expect("valid line");
    planar_reports(&engine(), &[scene], planar_hold::Options::default())
        .unwrap()
        .remove(0)
}

fn contact(pair: u32, p0: [f64; 2], p1: [f64; 2], normal: [f64; 2], mu: Value) -> Value {
    json!({"pair": pair, "p0": p0, "p1": p1, "normal": normal, "mu": mu})
}

fn scene(contacts: Vec<Value>) -> Value {
    json!({"id": "t", "half_size": 1.0, "contacts": contacts})
}

fn floor_segment(mu: f64) -> Value {
    scene(vec![contact(
        0,
        [-1.0, -1.0],
        [1.0, -1.0],
        [0.0, 1.0],
        json!(mu),
    )])
}

fn floor_corners(mu: f64) -> Value {
    scene(vec![
        contact(0, [-1.0, -1.0], [-1.0, -1.0], [0.0, 1.0], json!(mu)),
        contact(1, [1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(mu)),
    ])
}

// ------------------------------------------------------------------ docs/contract-planar.md §6 reference values

#[test]
fn flat_box_segment_and_corners_agree_with_spec() {
    let expected = [
        (0.2, 0.2 / (1.0f64 + 0.04).sqrt()),
        (0.5, 0.447_213_6),
        (0.8, 1.0 / 3f64.sqrt()),
        (1.5, 1.0 / 3f64.sqrt()),
    ];
    for (mu, want) in expected {
        for (line, n_gens) in [(floor_segment(mu), 4), (floor_corners(mu), 8)] {
            let r = report(&line);
            assert!(r.held, "mu {mu}: {:?}", r.reason);
            assert!(!r.uncertain);
            assert_eq!(r.n_generators, n_gens);
            assert_abs_diff_eq!(r.robust_margin as f64, want, epsilon = 1e-5);
            assert_eq!(r.needs.len(), 1);
            assert_eq!(r.needs[0].verdict, "supported");
            assert!(r.needs[0].witness.is_some());
            assert!(r.reason.is_none());
        }
    }
    assert_abs_diff_eq!(
        report(&floor_segment(0.2)).robust_margin,
        0.19612,
        epsilon = 1e-5
    );
}

#[test]
fn segment_and_corner_points_give_the_same_generators() {
    let a = parse_planar(&floor_segment(0.3).to_string()).unwrap();
    let b = parse_planar(&floor_corners(0.3).to_string()).unwrap();
    // a point contact gives its 2 rays twice (p0 = p1): the same cone
    let (ga, gb) = (a.generators(), b.generators());
    assert_eq!(gb.len(), 8);
    assert_eq!(&gb[0..2], &ga[0..2]);
    assert_eq!(&gb[2..4], &ga[0..2]);
    assert_eq!(&gb[4..6], &ga[2..4]);
    assert_eq!(&gb[6..8], &ga[2..4]);
    assert_eq!(a.needs(), vec![[0.0, 1.0, 0.0]]);
    // docs/contract-planar.md §2: w = (r_x, r_z, (p_z r_x − p_x r_z)/ℓ), t = (n_z, −n_x) = (1, 0).
    let g = a.generators();
    assert_eq!(g.len(), 4);
    assert_abs_diff_eq!(g[0][0], 0.3);
    assert_abs_diff_eq!(g[0][1], 1.0);
    assert_abs_diff_eq!(g[0][2], 0.7); // (−1)(0.3) − (−1)(1)
    assert_abs_diff_eq!(g[1][0], -0.3);
}

#[test]
fn corner_alone_fails_with_a_certificate() {
    let r = report(&scene(vec![contact(
        0,
        [-1.0, -1.0],
        [-1.0, -1.0],
        [0.0, 1.0],
        json!(0.2),
    )]));
    assert!(!r.held);
    assert!(!r.uncertain);
    assert_abs_diff_eq!(r.robust_margin, -0.636_209, epsilon = 1e-4);
    let n = &r.needs[0];
    assert_eq!(n.verdict, "unsupported");
    assert!(n.witness.is_none());
    let y = n.certificate.expect("certificate");
    assert!(y[1] < 0.0, "y·need = y_z < 0: {y:?}");
    let reason = r.reason.expect("reason");
    assert!(reason.contains("certificate"), "{reason}");
    assert!(reason.contains("contact 0 (pair 0)"), "{reason}");
}

#[test]
fn certificate_separates_the_scene_generators() {
    let s = parse_planar(
        &scene(vec![contact(
            0,
            [-1.0, -1.0],
            [-1.0, -1.0],
            [0.0, 1.0],
            json!(0.2),
        )])
        .to_string(),
    )
    .unwrap();
    let r = planar_reports(
        &engine(),
        std::slice::from_ref(&s),
        planar_hold::Options::default(),
    )
    .unwrap()
    .remove(0);
    let y = r.needs[0].certificate.unwrap();
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for g in s.generators() {
        assert!(dot(y, g) >= -1e-5, "{y:?}·{g:?}");
    }
    assert!(dot(y, s.needs()[0]) < -0.1);
}

#[test]
fn sideways_push_on_scene_generators() {
    let s = parse_planar(&floor_segment(0.2).to_string()).unwrap();
    let g = s.generators();
    let cases: Vec<Case> = [0.19f32, -0.19, 0.21, -0.21]
        .iter()
        .map(|&x| Case::new(&g, [x, 1.0, 0.0]).unwrap())
        .collect();
    let out = evaluate(&cases);
    assert_eq!(out[0].verdict(), Verdict::Supported);
    assert_eq!(out[1].verdict(), Verdict::Supported);
    assert_eq!(out[2].verdict(), Verdict::Unsupported);
    assert_eq!(out[3].verdict(), Verdict::Unsupported);
}

#[test]
fn sideways_push_as_a_tilted_floor() {
    // Gravity on a floor tilted by θ is a sideways push of tan θ on a flat one.
    for (tan, held, want) in [(0.19, true, 0.009_633_46), (0.21, false, -0.009_596_49)] {
        let th = f64::atan(tan);
        let (c, s) = (th.cos(), th.sin());
        let rot = |p: [f64; 2]| [c * p[0] - s * p[1], s * p[0] + c * p[1]];
        let r = report(&scene(vec![contact(
            0,
            rot([-1.0, -1.0]),
            rot([1.0, -1.0]),
            rot([0.0, 1.0]),
            json!(0.2),
        )]));
        assert_eq!(r.held, held, "tan {tan}: {:?}", r.reason);
        assert!(!r.uncertain);
        assert_abs_diff_eq!(r.robust_margin as f64, want, epsilon = 1e-5);
    }
}

// ------------------------------------------------------------------ step, wall

#[test]
fn box_on_a_step() {
    // Bottom edge supported from x = −1 to 0.3: the centre of mass is above the support.
    let r = report(&scene(vec![contact(
        0,
        [-1.0, -1.0],
        [0.3, -1.0],
        [0.0, 1.0],
        json!(0.5),
    )]));
    assert!(r.held);
    assert_abs_diff_eq!(r.robust_margin, 0.207_514, epsilon = 1e-5);
    // Supported only from 0.2 to 1: it tips off the step.
    let r = report(&scene(vec![contact(
        0,
        [0.2, -1.0],
        [1.0, -1.0],
        [0.0, 1.0],
        json!(0.5),
    )]));
    assert!(!r.held && !r.uncertain);
    assert_abs_diff_eq!(r.robust_margin, -0.140_028, epsilon = 1e-5);
    assert_eq!(r.needs[0].verdict, "unsupported");
    // Centre of mass over the step edge or beyond it.
    let mut line = scene(vec![contact(
        0,
        [-1.0, -1.0],
        [0.2, -1.0],
        [0.0, 1.0],
        json!(0.5),
    )]);
    line["com_offset_x"] = json!([-0.1, 0.25]);
    let r = report(&line);
    assert!(!r.held);
    assert_eq!(r.needs.len(), 2);
    assert_abs_diff_eq!(r.needs[0].margin, 0.210_042, epsilon = 1e-5);
    assert_abs_diff_eq!(r.needs[1].margin, -0.035_007, epsilon = 1e-5);
    assert_eq!(r.binding_need.index, 1);
    assert_abs_diff_eq!(r.binding_need.com_offset_x, 0.25);
    let reason = r.reason.unwrap();
    assert!(reason.contains("need 1"), "{reason}");
}

#[test]
fn box_against_a_wall() {
    let wall = |mu_floor: f64, mu_wall: f64| {
        scene(vec![
            contact(0, [0.5, -1.0], [0.5, -1.0], [0.0, 1.0], json!(mu_floor)),
            contact(1, [-1.0, 0.5], [-1.0, 0.5], [1.0, 0.0], json!(mu_wall)),
        ])
    };
    let r = report(&wall(0.3, 0.3));
    assert!(r.held);
    assert_abs_diff_eq!(r.robust_margin, 0.028_798, epsilon = 1e-5);
    let r = report(&wall(0.5, 0.5));
    assert_abs_diff_eq!(r.robust_margin, 0.298_142, epsilon = 1e-5);
    let r = report(&wall(0.0, 0.3));
    assert!(!r.held && !r.uncertain);
    assert_abs_diff_eq!(r.robust_margin, -0.340_799, epsilon = 1e-5);
    // Without the wall it tips.
    let r = report(&scene(vec![contact(
        0,
        [0.5, -1.0],
        [0.5, -1.0],
        [0.0, 1.0],
        json!(0.5),
    )]));
    assert!(!r.held);
    assert_abs_diff_eq!(r.robust_margin, -1.0 / 3.0, epsilon = 1e-5);
}

// ------------------------------------------------------------------ robustness (docs/contract-planar.md §8)

fn with_box(mut line: Value, mass: Option<[f64; 2]>, com: Option<[f64; 2]>) -> Value {
    if let Some(m) = mass {
        line["mass"] = json!({"nominal": 1.0, "range": m});
    }
    if let Some(c) = com {
        line["com_offset_x"] = json!(c);
    }
    line
}

fn step_scene() -> Value {
    scene(vec![
        contact(0, [-1.0, -1.0], [0.4, -1.0], [0.0, 1.0], json!(0.4)),
        contact(1, [1.0, 0.2], [1.0, 0.2], [-1.0, 0.0], json!(0.3)),
    ])
}

#[test]
fn robust_margin_is_the_minimum_over_corners() {
    let base = step_scene();
    let (mass, com) = ([0.8, 1.3], [-0.3, 0.35]);
    let r = report(&with_box(base.clone(), Some(mass), Some(com)));
    assert_eq!(r.needs.len(), 4);
    let mut singles = Vec::new();
    // need order: mass outer, com inner, lower ends first
    for m in mass {
        for x in com {
            let s = report(&with_box(base.clone(), Some([m, m]), Some([x, x])));
            assert_eq!(s.needs.len(), 1);
            singles.push(s.robust_margin);
        }
    }
    for (k, n) in r.needs.iter().enumerate() {
        assert_abs_diff_eq!(n.margin, singles[k], epsilon = 1e-6);
        assert_abs_diff_eq!(n.mass, mass[k / 2]);
        assert_abs_diff_eq!(n.com_offset_x, com[k % 2]);
    }
    let min = singles.iter().cloned().fold(f32::INFINITY, f32::min);
    assert_abs_diff_eq!(r.robust_margin, min, epsilon = 1e-6);
    assert_abs_diff_eq!(r.needs[r.binding_need.index].margin, min);
}

#[test]
fn robust_margin_is_monotone_in_the_intervals() {
    let base = step_scene();
    let mut last = f32::INFINITY;
    for w in [0.0, 0.05, 0.1, 0.2, 0.3, 0.5] {
        let r = report(&with_box(
            base.clone(),
            Some([1.0 - w, 1.0 + w]),
            Some([-w, 0.6 * w]),
        ));
        assert!(
            r.robust_margin <= last + 1e-6,
            "w {w}: {} > {last}",
            r.robust_margin
        );
        last = r.robust_margin;
    }
    // and in μ: a wider μ interval (lower lower end) never raises it
    let mut last = f32::INFINITY;
    for lo in [0.9, 0.6, 0.4, 0.2, 0.1, 0.0] {
        let r = report(&scene(vec![contact(
            0,
            [-1.0, -1.0],
            [1.0, -1.0],
            [0.0, 1.0],
            json!([lo, 0.9]),
        )]));
        assert!(r.robust_margin <= last + 1e-6);
        last = r.robust_margin;
    }
}

#[test]
fn mu_interval_uses_its_lower_end() {
    let a = report(&scene(vec![contact(
        0,
        [-1.0, -1.0],
        [1.0, -1.0],
        [0.0, 1.0],
        json!([0.2, 0.9]),
    )]));
    let b = report(&floor_segment(0.2));
    assert_eq!(a.robust_margin, b.robust_margin);
    assert_abs_diff_eq!(a.robust_margin, 0.19612, epsilon = 1e-5);
}

#[test]
fn mass_scales_the_need_and_normals_are_normalised() {
    let mut line = floor_segment(0.5);
    line["mass"] = json!({"nominal": 2.0, "range": [1.0, 3.0]});
    line["contacts"][0]["normal"] = json!([0.0, 7.0]);
    let s = parse_planar(&line.to_string()).unwrap();
    assert_eq!(s.needs(), vec![[0.0, 0.5, 0.0], [0.0, 1.5, 0.0]]);
    assert_eq!(s.contacts[0].normal, [0.0, 1.0]);
    let r = report(&line);
    assert_abs_diff_eq!(r.needs[0].margin, 0.5 * 0.447_213_6, epsilon = 1e-5);
    assert_abs_diff_eq!(r.robust_margin, 0.5 * 0.447_213_6, epsilon = 1e-5);
}

#[test]
fn margin_min_gates() {
    let mut line = floor_segment(0.2);
    line["margin_min"] = json!(0.25);
    let r = report(&line);
    assert!(!r.held && !r.uncertain);
    assert!(r.needs.iter().all(|n| n.verdict == "supported"));
    let reason = r.reason.unwrap();
    assert!(reason.contains("margin_min"), "{reason}");
    line["margin_min"] = json!(0.19);
    assert!(report(&line).held);
}

// ------------------------------------------------------------------ edits (docs/contract-planar.md §9)

fn edit(before: Vec<Value>, after: Vec<Value>) -> Value {
    json!({"id": "e", "half_size": 1.0, "before": before, "after": after})
}

#[test]
fn kept_segment_shrinks_to_its_overlap() {
    let before = contact(0, [-1.0, -1.0], [0.5, -1.0], [0.0, 1.0], json!(0.5));
    // after: shifted along the line, reversed, other μ and a scaled normal
    let after = contact(0, [0.9, -1.0], [-0.4, -1.0], [0.0, 3.0], json!(0.1));
    let s = parse_planar(&edit(vec![before], vec![after]).to_string()).unwrap();
    assert_eq!(s.contacts.len(), 1);
    let c = &s.contacts[0];
    assert_abs_diff_eq!(c.p0[0], -0.4, epsilon = 1e-12);
    assert_abs_diff_eq!(c.p1[0], 0.5, epsilon = 1e-12);
    assert_abs_diff_eq!(c.p0[1], -1.0, epsilon = 1e-12);
    assert_eq!(c.mu.lower(), 0.5, "old μ");
    assert_eq!(c.normal, [0.0, 1.0]);
    let direct = scene(vec![contact(
        0,
        [-0.4, -1.0],
        [0.5, -1.0],
        [0.0, 1.0],
        json!(0.5),
    )]);
    let r = report(&edit(
        vec![contact(
            0,
            [-1.0, -1.0],
            [0.5, -1.0],
            [0.0, 1.0],
            json!(0.5),
        )],
        vec![contact(
            0,
            [0.9, -1.0],
            [-0.4, -1.0],
            [0.0, 3.0],
            json!(0.1),
        )],
    ));
    assert_abs_diff_eq!(
        r.robust_margin,
        report(&direct).robust_margin,
        epsilon = 1e-6
    );
    assert!(r.held);
    let e = r.edit.unwrap();
    assert_eq!(e.kept, vec![0]);
}

#[test]
fn a_make_contributes_nothing() {
    let floor = contact(0, [-1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(0.2));
    let wall = contact(3, [1.0, -0.5], [1.0, 0.5], [-1.0, 0.0], json!(0.9));
    let r = report(&edit(vec![floor.clone()], vec![floor.clone(), wall]));
    assert_eq!(r.n_generators, 4);
    assert_abs_diff_eq!(r.robust_margin, 0.19612, epsilon = 1e-5);
    assert_eq!(r.edit.unwrap().made, vec![3]);
    // a make alone: nothing holds
    let corner = contact(0, [1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(0.5));
    let r = report(&edit(
        vec![corner.clone()],
        vec![
            corner,
            contact(1, [-1.0, -1.0], [-1.0, -1.0], [0.0, 1.0], json!(0.5)),
        ],
    ));
    assert!(!r.held);
    assert_eq!(r.needs[0].verdict, "unsupported");
    assert!(r.reason.unwrap().contains("made [1]"));
}

#[test]
fn a_break_contributes_nothing() {
    let a = contact(0, [-1.0, -1.0], [-1.0, -1.0], [0.0, 1.0], json!(0.5));
    let b = contact(1, [1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(0.5));
    let r = report(&edit(
        vec![a.clone(), b.clone()],
        vec![a.clone(), b.clone()],
    ));
    assert!(r.held);
    assert_abs_diff_eq!(r.robust_margin, 0.447_213_6, epsilon = 1e-5);
    let r = report(&edit(
        vec![a, b],
        vec![contact(1, [1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(0.5))],
    ));
    assert!(!r.held && !r.uncertain);
    assert_eq!(r.n_generators, 4);
    let e = r.edit.unwrap();
    assert_eq!(e.broken, vec![0]);
    assert_eq!(e.kept, vec![1]);
}

#[test]
fn a_sliding_point_contact_contributes_nothing() {
    let floor = contact(0, [-1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(0.5));
    let wall = contact(1, [1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], json!(0.5));
    // the wall point slides along its tangent: the two points do not overlap
    let slid = contact(1, [1.0, 0.1], [1.0, 0.1], [-1.0, 0.0], json!(0.5));
    let s = parse_planar(
        &edit(vec![floor.clone(), wall.clone()], vec![floor.clone(), slid]).to_string(),
    )
    .unwrap();
    assert_eq!(s.contacts.len(), 1);
    assert_eq!(s.edit.as_ref().unwrap().no_overlap, vec![1]);
    // staying put keeps it
    let s = parse_planar(
        &edit(vec![floor.clone(), wall.clone()], vec![floor.clone(), wall]).to_string(),
    )
    .unwrap();
    assert_eq!(s.contacts.len(), 2);
    // a kept segment that moved off its line (floor lifted) keeps nothing
    let lifted = contact(0, [-1.0, -0.97], [1.0, -0.97], [0.0, 1.0], json!(0.5));
    let r = report(&edit(vec![floor], vec![lifted]));
    assert_eq!(r.n_generators, 0);
    assert!(!r.held && !r.uncertain);
    assert_abs_diff_eq!(r.robust_margin, -1.0, epsilon = 1e-6);
}

#[test]
fn point_inside_an_old_segment_is_kept_as_a_point() {
    let floor = contact(0, [-1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(0.5));
    let point = contact(0, [0.3, -1.0], [0.3, -1.0], [0.0, 1.0], json!(0.5));
    let s = parse_planar(&edit(vec![floor], vec![point]).to_string()).unwrap();
    assert_eq!(s.contacts.len(), 1);
    assert_abs_diff_eq!(s.contacts[0].p0[0], 0.3, epsilon = 1e-12);
    assert_abs_diff_eq!(s.contacts[0].p1[0], 0.3, epsilon = 1e-12);
}

// ------------------------------------------------------------------ public case files

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn read_lines(name: &str) -> Vec<String> {
    std::fs::read_to_string(cases_dir().join(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn public_scenes_match_expected() {
    let lines = read_lines("scenes_public.jsonl");
    let expected: Vec<Value> = read_lines("scenes_public.expected.jsonl")
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), expected.len());
    let scenes: Vec<Scene> = lines.iter().map(|l| parse_planar(l).unwrap()).collect();
    let reports = planar_reports(&engine(), &scenes, planar_hold::Options::default()).unwrap();
    let mut failures = Vec::new();
    for ((s, r), e) in scenes.iter().zip(&reports).zip(&expected) {
        let id = e["id"].as_str().unwrap();
        assert_eq!(r.id, e["id"]);
        // structure: generators and needs
        assert_eq!(
            s.generators().len() as u64,
            e["n_gens"].as_u64().unwrap(),
            "{id}"
        );
        let d: Vec<f64> = e["d_needs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(r.needs.len(), d.len(), "{id}: needs");
        let near = e["near"].as_bool().unwrap();
        let want = e["robust_margin"].as_f64().unwrap();
        let got = r.robust_margin as f64;
        let tol = if near {
            1e-3
        } else {
            1e-4 * want.abs().max(1.0)
        };
        let margin_ok = if want >= 999.0 {
            got >= 999.0
        } else {
            (got - want).abs() <= tol
        };
        if !margin_ok {
            failures.push(format!("{id}: robust margin {got} expected {want}"));
        }
        for (k, (n, &dk)) in r.needs.iter().zip(&d).enumerate() {
            let ok = if dk >= 999.0 {
                n.margin >= 999.0
            } else {
                (n.margin as f64 - dk).abs() <= 1e-3f64.max(1e-4 * dk.abs())
            };
            if !ok {
                failures.push(format!("{id}: need {k} margin {} expected {dk}", n.margin));
            }
        }
        if r.held {
            assert!(!r.uncertain, "{id}");
        }
        if !near {
            if r.held != e["held"].as_bool().unwrap() {
                failures.push(format!(
                    "{id}: held {} expected {} ({:?})",
                    r.held, e["held"], r.reason
                ));
            }
            if r.uncertain {
                failures.push(format!("{id}: uncertain but far from the boundary"));
            }
        } else if r.held {
            // sound: held only if the true margin clears margin_min
            let mm = e["margin_min"].as_f64().unwrap();
            assert!(want >= mm - 1e-4, "{id}: held but robust {want} < {mm}");
        }
        if !r.held {
            assert!(r.reason.is_some(), "{id}");
        }
        // output serialises with the fields the CLI promises
        let v = serde_json::to_value(r).unwrap();
        for f in [
            "id",
            "held",
            "robust_margin",
            "uncertain",
            "binding_need",
            "needs",
        ] {
            assert!(v.get(f).is_some(), "{id}: {f}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn public_invalid_lines_are_rejected_with_their_keywords() {
    let lines = read_lines("scenes_public_invalid.jsonl");
    let expected: Vec<Value> = read_lines("scenes_public_invalid.expected.jsonl")
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), expected.len());
    for (line, e) in lines.iter().zip(&expected) {
        // docs/contract-scenes.md has since made five body pairs a valid scene (the general engine).
        if e["sub"] == "too_many_generators" {
            assert!(parse_planar(line).is_ok_and(|s| s.is_general()));
            continue;
        }
        let err = parse_planar(line).expect_err(&format!("{} accepted", e["sub"]));
        let text = err.to_string().to_lowercase();
        let keywords: Vec<String> = e["keywords"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_lowercase())
            .collect();
        assert!(
            keywords.iter().any(|k| text.contains(k.as_str())),
            "{}: {text:?} lacks all of {keywords:?}",
            e["sub"]
        );
    }
}

#[test]
fn invalid_input_messages() {
    let ok = floor_segment(0.5);
    let cases: Vec<(Value, &str)> = vec![
        (
            {
                let mut l = ok.clone();
                l["contacts"][0]["normal"] = json!([0.0, 0.0]);
                l
            },
            "contact 0 (pair 0): normal",
        ),
        (
            {
                let mut l = ok.clone();
                l["contacts"][0]["mu"] = json!(-0.1);
                l
            },
            "negative",
        ),
        (
            {
                let mut l = ok.clone();
                l["contacts"][0]["mu"] = json!([0.67, 0.203]);
                l
            },
            "mu interval [0.67, 0.203] is upside down",
        ),
        (
            {
                let mut l = ok.clone();
                l["contacts"][0]["mu"] = json!("high");
                l
            },
            "mu must be a number",
        ),
        (
            {
                let mut l = ok.clone();
                l["half_size"] = json!(-1.0);
                l
            },
            "half_size must be positive",
        ),
        (
            {
                let mut l = ok.clone();
                l["mass"] = json!({"nominal": 0.0});
                l
            },
            "nominal mass must be positive",
        ),
        (
            {
                let mut l = ok.clone();
                l["mass"] = json!({"nominal": 1.0, "range": [0.0, 1.0]});
                l
            },
            "mass range",
        ),
        (
            {
                let mut l = ok.clone();
                l["mass"] = json!({"nominal": 1.0, "range": [1.2, 1.0]});
                l
            },
            "upside down",
        ),
        (
            {
                let mut l = ok.clone();
                l["com_offset_x"] = json!([0.2, -0.2]);
                l
            },
            "com_offset_x",
        ),
        (
            {
                let mut l = ok.clone();
                l.as_object_mut().unwrap().remove("half_size");
                l
            },
            "half_size",
        ),
        (
            {
                let mut l = ok.clone();
                l.as_object_mut().unwrap().remove("contacts");
                l
            },
            "contacts",
        ),
        (
            {
                let mut l = ok.clone();
                l["contacts"][0].as_object_mut().unwrap().remove("p1");
                l
            },
            "p1",
        ),
        (
            {
                let mut l = ok.clone();
                l["contacts"][0].as_object_mut().unwrap().remove("pair");
                l
            },
            "pair",
        ),
        (
            {
                let mut l = ok.clone();
                l["contacts"][0]["pair"] = json!(-1);
                l
            },
            "pair",
        ),
        (
            {
                let c = ok["contacts"][0].clone();
                let mut l = ok.clone();
                l["contacts"] = json!([c.clone(), c]);
                l
            },
            "pair 0 has two contacts",
        ),
        (
            scene(
                (0..65)
                    .map(|k| contact(k, [-1.0, -1.0], [1.0, -1.0], [0.0, 1.0], json!(0.5)))
                    .collect(),
            ),
            "more than 256 generators (260)",
        ),
        (
            edit(
                vec![ok["contacts"][0].clone(), ok["contacts"][0].clone()],
                vec![],
            ),
            "two contacts",
        ),
        (
            {
                let mut l = ok.clone();
                l["before"] = json!([]);
                l
            },
            "not both",
        ),
        (
            {
                let mut l = ok.clone();
                l["colour"] = json!(1);
                l
            },
            "unknown field",
        ),
    ];
    for (line, want) in cases {
        let err = parse_planar(&line.to_string()).expect_err(want);
        let text = err.to_string();
        assert!(text.contains(want), "{text:?} lacks {want:?}");
    }
}

#[test]
fn never_panics_on_garbage() {
    let good = floor_segment(0.5).to_string();
    let mut inputs: Vec<String> = (0..good.len()).map(|k| good[..k].to_string()).collect();
    inputs.extend(
        [
            "",
            "null",
            "[]",
            "1e999",
            "{\"id\": \"x\", \"half_size\": 1e999, \"contacts\": []}",
            "{\"id\": \"x\", \"half_size\": NaN, \"contacts\": []}",
            "{\"id\": [1], \"half_size\": 1, \"contacts\": []}",
            "{\"id\": \"x\", \"half_size\": 1, \"contacts\": [{\"pair\": 0, \"p0\": [1e308, 0], \"p1\": [-1e308, 0], \"normal\": [1e308, 1e308], \"mu\": 1e308}]}",
            "{\"id\": \"x\", \"half_size\": 1e-300, \"contacts\": [{\"pair\": 0, \"p0\": [1, 0], \"p1\": [1, 0], \"normal\": [0, 1], \"mu\": 0.1}]}",
            "{\"id\": \"x\", \"half_size\": 1, \"mass\": {\"nominal\": 1e-300, \"range\": [1, 2]}, \"contacts\": []}",
        ]
        .map(str::to_string),
    );
    let mut scenes = Vec::new();
    for text in &inputs {
        if let Ok(s) = parse_planar(text) {
            scenes.push(s);
        }
    }
    // whatever parsed makes cases the engine takes
    for s in &scenes {
        let cases = s.cases().expect("a parsed scene makes valid cases");
        let out = evaluate(&cases);
        let _ = planar_hold::details::scene::judge(s, &out);
    }
    let r = planar_reports(&engine(), &scenes, planar_hold::Options::default()).unwrap();
    assert_eq!(r.len(), scenes.len());
}

#[test]
fn one_engine_call_for_many_scenes() {
    let scenes: Vec<Scene> = [floor_segment(0.2), floor_segment(0.5), floor_corners(1.0)]
        .iter()
        .map(|l| parse_planar(&l.to_string()).unwrap())
        .collect();
    let r = planar_reports(&engine(), &scenes, planar_hold::Options::default()).unwrap();
    assert_abs_diff_eq!(r[0].robust_margin, 0.19612, epsilon = 1e-5);
    assert_abs_diff_eq!(r[1].robust_margin, 0.447_213_6, epsilon = 1e-5);
    assert_abs_diff_eq!(r[2].robust_margin, 0.577_350_3, epsilon = 1e-5);
    assert!(
        planar_reports(&engine(), &[], planar_hold::Options::default())
            .unwrap()
            .is_empty()
    );
}
