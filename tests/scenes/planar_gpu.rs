//! The physical layer on the GPU against the CPU: thousands of random scenes and edits,
//! every need of every line in one batch.

use crate::common::planar_reports;
use planar_hold::details::sample::Rng;
use planar_hold::details::scene::parse_planar;
use planar_hold::Scene;
use planar_hold::{Backend, Engine};
use serde_json::{json, Value};

/// A contact on one face of a box of half-size `h`: a segment or a point.
fn contact(rng: &mut Rng, pair: usize, h: f32) -> Value {
    let face = rng.below(4);
    let (normal, fixed, along) = match face {
        0 => ([0.0, 1.0], [0.0, -h], [1.0, 0.0]),
        1 => ([0.0, -1.0], [0.0, h], [1.0, 0.0]),
        2 => ([1.0, 0.0], [-h, 0.0], [0.0, 1.0]),
        _ => ([-1.0, 0.0], [h, 0.0], [0.0, 1.0]),
    };
    let (a, b) = (rng.range(-h, h), rng.range(-h, h));
    let b = if rng.below(3) == 0 { a } else { b };
    let at = |t: f32| [fixed[0] + t * along[0], fixed[1] + t * along[1]];
    let mu = if rng.below(2) == 0 {
        json!(rng.range(0.0, 1.2))
    } else {
        let lo = rng.range(0.0, 1.0);
        json!([lo, lo + rng.range(0.0, 0.5)])
    };
    json!({"pair": pair, "p0": at(a), "p1": at(b), "normal": normal, "mu": mu})
}

fn random_line(rng: &mut Rng, n: usize) -> String {
    let h = rng.range(0.5, 2.0);
    let m = rng.range(0.3, 2.0);
    let mut line = json!({
        "id": format!("r{n}"),
        "half_size": h,
        "mass": {"nominal": m, "range": [m * rng.range(0.7, 1.0), m * rng.range(1.0, 1.4)]},
        "com_offset_x": [-rng.range(0.0, 0.3 * h), rng.range(0.0, 0.3 * h)],
    });
    let pairs = 1 + rng.below(4);
    let contacts: Vec<Value> = (0..pairs).map(|p| contact(rng, p, h)).collect();
    if rng.below(3) == 0 {
        // An edit: the same pairs, some moved along their face, one maybe broken or made.
        let after: Vec<Value> = contacts
            .iter()
            .filter_map(|c| {
                if rng.below(5) == 0 {
                    return None; // broken
                }
                let mut c = c.clone();
                if rng.below(2) == 0 {
                    let shift = rng.range(-0.5, 0.5);
                    let n = [
                        c["normal"][0].as_f64().unwrap(),
                        c["normal"][1].as_f64().unwrap(),
                    ];
                    for end in ["p0", "p1"] {
                        c[end][0] = json!(c[end][0].as_f64().unwrap() + shift as f64 * n[1].abs());
                        c[end][1] = json!(c[end][1].as_f64().unwrap() + shift as f64 * n[0].abs());
                    }
                }
                Some(c)
            })
            .collect();
        line["before"] = json!(contacts);
        line["after"] = json!(after);
    } else {
        line["contacts"] = json!(contacts);
    }
    line.to_string()
}

#[test]
fn gpu_and_cpu_agree_on_random_scenes_and_edits() {
    let Some(gpu) = crate::common::gpu_engine() else {
        return;
    };
    let mut rng = Rng::new(42);
    let scenes: Vec<Scene> = (0..3000)
        .map(|n| {
            let line = random_line(&mut rng, n);
            parse_planar(&line).unwrap_or_else(|e| panic!("{line}: {e}"))
        })
        .collect();
    let on_gpu = planar_reports(&gpu, &scenes, planar_hold::Options::default()).unwrap();
    let on_cpu = planar_reports(
        &Engine::new(Backend::Cpu).unwrap(),
        &scenes,
        planar_hold::Options::default(),
    )
    .unwrap();
    let mut held = 0;
    for (g, c) in on_gpu.iter().zip(&on_cpu) {
        assert_eq!(g.id, c.id);
        if !g.uncertain && !c.uncertain {
            assert_eq!(g.held, c.held, "{}: held", g.id);
        }
        let scale = 1f32.max(g.robust_margin.abs());
        assert!(
            (g.robust_margin - c.robust_margin).abs() <= 2e-5 * scale,
            "{}: {} vs {}",
            g.id,
            g.robust_margin,
            c.robust_margin
        );
        held += g.held as usize;
    }
    // The random scenes reach both answers.
    assert!(held > 300 && held < 2700, "held {held} of 3000");
}
