//! docs/contract-planar.md §6 reference values, on every backend.

use approx::assert_abs_diff_eq;
use planar_hold::details::planar::Candidate;
use planar_hold::details::sample::contact_generators;
use planar_hold::{Case, Engine, Outcome, Verdict};

const FLOOR: [f32; 2] = [0.0, 1.0];
const A: [f32; 2] = [-1.0, -1.0];
const B: [f32; 2] = [1.0, -1.0];
const GRAVITY: [f32; 3] = [0.0, 1.0, 0.0];

fn flat_box(mu: f32, need: [f32; 3]) -> Case {
    Case::new(&contact_generators(&[(A, FLOOR, mu), (B, FLOOR, mu)]), need).unwrap()
}

fn run(engine: &Engine, case: Case) -> Outcome {
    crate::common::planar_outcomes(engine, &[case])[0]
}

#[test]
fn flat_box_sliding_binds_at_low_friction() {
    for (name, engine) in crate::common::engines() {
        let o = run(&engine, flat_box(0.2, GRAVITY));
        assert_eq!(o.verdict(), Verdict::Supported, "{name}");
        // ½·A₊ + ½·B₋ (generators 0 = A₊, 3 = B₋).
        let w = o.witness().unwrap();
        assert_eq!(w.indices, vec![0, 3], "{name}");
        assert_abs_diff_eq!(w.weights[0], 0.5, epsilon = 1e-6);
        assert_abs_diff_eq!(w.weights[1], 0.5, epsilon = 1e-6);
        assert_abs_diff_eq!(o.margin, 0.2 / (1.0f32 + 0.04).sqrt(), epsilon = 1e-5);
        assert_abs_diff_eq!(o.margin, 0.19612, epsilon = 1e-5);
        // Sliding binds: the plane through the two rays of one friction edge.
        let binding = Candidate::at(o.binding().unwrap()).unwrap();
        assert!(
            matches!(binding, Candidate::PairPlane { .. }),
            "{name}: {binding}"
        );
        assert!(!o.is_capped());
    }
}

#[test]
fn flat_box_margins_follow_friction_then_tipping() {
    for (name, engine) in crate::common::engines() {
        assert_abs_diff_eq!(
            run(&engine, flat_box(0.5, GRAVITY)).margin,
            0.44721,
            epsilon = 1e-5
        );
        for mu in [0.72f32, 0.9, 1.5, 3.0] {
            let o = run(&engine, flat_box(mu, GRAVITY));
            assert_eq!(o.verdict(), Verdict::Supported, "{name} mu {mu}");
            assert_abs_diff_eq!(o.margin, 1.0 / 3f32.sqrt(), epsilon = 1e-5);
        }
    }
}

#[test]
fn corner_alone_is_certified_unsupported() {
    for (name, engine) in crate::common::engines() {
        let g = contact_generators(&[(A, FLOOR, 0.2)]);
        let o = run(&engine, Case::new(&g, GRAVITY).unwrap());
        assert_eq!(o.verdict(), Verdict::Unsupported, "{name}");
        assert!(o.witness().is_none());
        assert_abs_diff_eq!(o.margin, -0.636, epsilon = 1e-3);
        // The certificate is a unit normal with every generator on its side and need beyond.
        let y = o.certificate().unwrap();
        assert_abs_diff_eq!(y.iter().map(|v| v * v).sum::<f32>(), 1.0, epsilon = 1e-5);
        for w in &g {
            assert!(
                y[0] * w[0] + y[1] * w[1] + y[2] * w[2] >= -1e-5,
                "{name}: y·w < 0"
            );
        }
        assert!(y[1] < 0.0, "{name}: y·need = {} not < 0", y[1]);
        // y = (1, −1, 1)/√3 is one certificate: it must pass the same test.
        let s = 1.0 / 3f32.sqrt();
        assert!(g.iter().all(|w| s * (w[0] - w[1] + w[2]) >= 0.0));
    }
}

#[test]
fn sideways_push_holds_to_the_friction_limit() {
    for (name, engine) in crate::common::engines() {
        for push in [0.19f32, -0.19] {
            let o = run(&engine, flat_box(0.2, [push, 1.0, 0.0]));
            assert_eq!(o.verdict(), Verdict::Supported, "{name} push {push}");
            assert!(o.margin > 0.0);
        }
        for push in [0.21f32, -0.21] {
            let o = run(&engine, flat_box(0.2, [push, 1.0, 0.0]));
            assert_eq!(o.verdict(), Verdict::Unsupported, "{name} push {push}");
            assert!(o.margin < 0.0);
        }
    }
}

#[test]
fn need_zero_is_held_by_the_empty_witness() {
    for (name, engine) in crate::common::engines() {
        let o = run(&engine, flat_box(0.2, [0.0; 3]));
        assert_eq!(o.verdict(), Verdict::Supported, "{name}");
        assert_eq!(o.witness().unwrap().indices, Vec::<u32>::new());
        assert_eq!(o.margin, 0.0);
        let empty = run(&engine, Case::new(&[], [0.0; 3]).unwrap());
        assert_eq!(
            (empty.verdict(), empty.margin, empty.is_capped()),
            (Verdict::Supported, 0.0, false),
            "{name}"
        );
    }
}

#[test]
fn empty_set_is_certified_at_minus_the_need_length() {
    for (name, engine) in crate::common::engines() {
        let o = run(&engine, Case::new(&[], [0.0, 2.0, 0.0]).unwrap());
        assert_eq!(o.verdict(), Verdict::Unsupported, "{name}");
        assert_abs_diff_eq!(o.margin, -2.0, epsilon = 1e-6);
        assert_eq!(o.certificate().unwrap(), [0.0, -1.0, 0.0]);
    }
}

#[test]
fn cone_filling_space_is_capped() {
    // ± each axis: C = R³.
    let g = [
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
    ];
    for (name, engine) in crate::common::engines() {
        let o = run(&engine, Case::new(&g, [0.3, -2.0, 5.0]).unwrap());
        assert_eq!(o.verdict(), Verdict::Supported, "{name}");
        assert_eq!(
            (o.margin, o.is_capped(), o.binding()),
            (1000.0, true, None),
            "{name}"
        );
    }
}

#[test]
fn flat_cone_margin_is_zero_inside_and_distance_outside() {
    // Both generators in the plane y = 0... need in their wedge: on a flat cone, margin 0.
    let g = [[1.0, 0.0, 1.0], [1.0, 0.0, -1.0]];
    for (name, engine) in crate::common::engines() {
        let inside = run(&engine, Case::new(&g, [2.0, 0.0, 0.5]).unwrap());
        assert_eq!(inside.verdict(), Verdict::Supported, "{name}");
        assert_abs_diff_eq!(inside.margin, 0.0, epsilon = 1e-6);
        let above = run(&engine, Case::new(&g, [2.0, 0.5, 0.5]).unwrap());
        assert_eq!(above.verdict(), Verdict::Unsupported, "{name}");
        assert_abs_diff_eq!(above.margin, -0.5, epsilon = 1e-6);
    }
}

/// Cases the float64 oracle caught: a need 0.009 inside a cone whose only good witness is a
/// nearly dependent triple (float32 Cramer needs one refinement step), and a cone that fills
/// R³ but only through witnesses with forces thousands of times the need.
#[test]
#[allow(clippy::excessive_precision)] // float32 values as printed by the oracle run
fn hard_witnesses_are_found() {
    let inside = Case::new(
        &[
            [-0.7795886, 0.2510569, -0.33426762],
            [0.95640564, -0.2566682, 0.36247075],
            [-0.062638044, 0.58925152, -0.5919727],
            [0.75871754, -0.3040489, 0.3796786],
        ],
        [-0.021125313, 0.19788182, -0.19879459],
    )
    .unwrap();
    let full = Case::new(
        &[
            [-0.78951502, 0.38938057, -0.54235482],
            [0.86141443, -0.67137015, 0.13833559],
            [-0.77218592, -0.39597487, 0.08337724],
            [0.20977962, -0.93896365, 0.07152677],
            [0.70611405, -0.12217951, 0.89660573],
            [-0.77218592, -0.39597487, 0.08337724],
        ],
        [0.68421042, 0.55901134, -0.16807079],
    )
    .unwrap();
    for (name, engine) in crate::common::engines() {
        let o = run(&engine, inside);
        assert_eq!(o.verdict(), Verdict::Supported, "{name}");
        assert_abs_diff_eq!(o.margin, 0.0091245, epsilon = 1e-5);
        let o = run(&engine, full);
        assert_eq!(
            (o.verdict(), o.margin, o.is_capped()),
            (Verdict::Supported, 1000.0, true),
            "{name}"
        );
        assert!(o.witness().is_some());
    }
}
