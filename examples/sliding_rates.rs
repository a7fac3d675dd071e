//! Scenes per second of the gate (`scene::hold_reports`, all cores, the CPU engine) on random
//! scenes with sliding contacts against random scenes of sticking contacts only, at the same
//! number of generators K (docs/contract-scenes.md §7: a sliding contact gives one ray a
//! point, a sticking one 2 planar edge rays or k = 4 pyramid edges). Planar: K = 8, 16 (the
//! enumeration) and 24 (the general engine); spatial: K = 16 and 32. Point contacts on the
//! floor and the walls of a box, half of the generators' contacts sliding; each set timed
//! `ROUNDS` times in turn, the best kept. `cargo run --release --example sliding_rates [N]`
use std::time::Instant;

use planar_hold::details::sample::Rng;
use planar_hold::{hold_reports, parse_line, SceneLine};
use planar_hold::{Backend, Engine, Options};
use serde_json::{json, Value};

const ROUNDS: usize = 3;

fn f(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A planar point contact on the floor or a side wall of a box of half-size 1, sliding
/// along its surface one way or the other when `slides`.
fn planar_contact(rng: &mut Rng, pair: usize, slides: bool) -> Value {
    let (p, n): ([f64; 2], [f64; 2]) = match rng.below(3) {
        0 => ([-1.0, f(rng, -1.0, 1.0)], [1.0, 0.0]),
        1 => ([1.0, f(rng, -1.0, 1.0)], [-1.0, 0.0]),
        _ => ([f(rng, -1.0, 1.0), -1.0], [0.0, 1.0]),
    };
    let mut c = json!({"pair": pair, "p0": p, "p1": p, "normal": n, "mu": f(rng, 0.2, 0.8)});
    if slides {
        let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        c["slip"] = json!([s * n[1], -s * n[0]]);
    }
    c
}

/// A spatial point contact on the floor or a side wall of a cube of half-size 0.5.
fn spatial_contact(rng: &mut Rng, pair: usize, slides: bool) -> Value {
    let e = 0.5;
    let (p, n): ([f64; 3], [f64; 3]) = match rng.below(3) {
        0 => ([-e, f(rng, -e, e), f(rng, -e, e)], [1.0, 0.0, 0.0]),
        1 => ([f(rng, -e, e), -e, f(rng, -e, e)], [0.0, 1.0, 0.0]),
        _ => ([f(rng, -e, e), f(rng, -e, e), -e], [0.0, 0.0, 1.0]),
    };
    let mut c = json!({"pair": pair, "points": [p], "normal": n, "mu": f(rng, 0.2, 0.8)});
    if slides {
        c["slip"] = json!([f(rng, -1.0, 1.0), f(rng, -1.0, 1.0), f(rng, -1.0, 1.0)]);
    }
    c
}

/// `n` scenes of `stick` sticking and `slide` sliding point contacts, as parsed lines.
fn scenes(seed: u64, n: usize, spatial: bool, stick: usize, slide: usize) -> Vec<SceneLine> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let contacts: Vec<Value> = (0..stick + slide)
                .map(|k| {
                    if spatial {
                        spatial_contact(&mut rng, k, k >= stick)
                    } else {
                        planar_contact(&mut rng, k, k >= stick)
                    }
                })
                .collect();
            let x = f(&mut rng, -0.3, 0.3);
            let line = if spatial {
                json!({"id": i, "dim": 3, "half_size": 0.5, "pyramid": 4,
                       "com_offset": [[x, x + 0.02], [0.0, 0.0]], "contacts": contacts})
            } else {
                json!({"id": i, "half_size": 1.0, "com_offset_x": [x, x + 0.02],
                       "contacts": contacts})
            };
            parse_line(&line.to_string())
                .expect("a valid scene (a random slip had no tangential part?)")
        })
        .collect()
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(20_000, |a| a.parse().expect("N: scenes a set"));
    let engine = Engine::new(Backend::Cpu).expect("the CPU engine");
    // (what, K, sticking set, sliding set)
    let cases = [
        ("planar", 8, (2, 0), (1, 2)),
        ("planar", 16, (4, 0), (2, 4)),
        ("planar", 24, (6, 0), (3, 6)),
        ("spatial", 16, (4, 0), (2, 8)),
        ("spatial", 32, (8, 0), (4, 16)),
    ];
    println!("| scenes | K | sticking scenes/s | sliding scenes/s | sliding / sticking |");
    println!("|---|---:|---:|---:|---:|");
    for (what, k, (a, b), (c, d)) in cases {
        let spatial = what == "spatial";
        let count = if spatial { n / 10 } else { n };
        let sets = [
            scenes(36, count, spatial, a, b),
            scenes(37, count, spatial, c, d),
        ];
        let mut best = [f64::INFINITY; 2];
        for _ in 0..ROUNDS {
            for (set, best) in sets.iter().zip(&mut best) {
                let t = Instant::now();
                let reports =
                    hold_reports(&engine, set, Options::default()).expect("the gate answers");
                *best = best.min(t.elapsed().as_secs_f64());
                assert_eq!(reports.len(), set.len());
            }
        }
        let rate = |s: f64| count as f64 / s;
        println!(
            "| {what} | {k} | {:.0} | {:.0} | {:.2} |",
            rate(best[0]),
            rate(best[1]),
            best[0] / best[1]
        );
    }
}
