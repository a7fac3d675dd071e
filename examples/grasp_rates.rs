//! Grasps per second of the Ferrari–Canny metric (general::grasp) on random fingertip
//! grasps of a sphere, for 2–16 contacts × k = 4, 8, 16 pyramid edges: on one thread (one
//! solver, the lifted cone solved then finished) and on all cores (one batch). Each cell
//! runs until about `SECONDS` (default 0.5) have passed, at least 2 grasps.
//! `cargo run --release --example grasp_rates [contacts,…] [k,…]`
use std::time::Instant;

use planar_hold::details::sample::Rng;
use planar_hold::details::scene::{pyramid_edges, wrench};
use planar_hold::details::solver::Solver;
use planar_hold::details::solver::{finish, ForceClosure};
use planar_hold::GeneralBatch;
use planar_hold::{Batch, Engine, Options};

/// Uniform in [0, 1) in float64: the library's SplitMix64, 53 bits.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A uniform random unit vector (by rejection from the cube).
fn unit3(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v = [0, 1, 2].map(|_| 2.0 * unit(rng) - 1.0);
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if l > 0.1 && l <= 1.0 {
            return v.map(|x| x / l);
        }
    }
}

/// The wrenches (6 numbers each) of `contacts` fingertips on the unit sphere, μ 0.5, `k` edges.
fn grasp(rng: &mut Rng, contacts: usize, k: usize) -> Vec<f64> {
    let mut w = Vec::with_capacity(contacts * k * 6);
    for _ in 0..contacts {
        let p = unit3(rng);
        let t = unit3(rng);
        let n: [f64; 3] = std::array::from_fn(|a| -p[a] + 0.2 * t[a]);
        let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        for r in pyramid_edges(n.map(|x| x / l), 0.5, k) {
            w.extend_from_slice(&wrench(p, r, 1.0));
        }
    }
    w
}

fn main() {
    let list = |i: usize, default: &[usize]| -> Vec<usize> {
        std::env::args()
            .nth(i)
            .map(|a| a.split(',').map(|x| x.parse().expect("a number")).collect())
            .unwrap_or_else(|| default.to_vec())
    };
    let contacts = list(1, &[2, 3, 4, 6, 8, 12, 16]);
    let ks = list(2, &[4, 8, 16]);
    let seconds: f64 = std::env::var("SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.5);
    let engine = Engine::cpu();
    println!("contacts  k    K  grasps  fc%  facets/grasp  1 thread/s  all cores/s");
    for &c in &contacts {
        for &k in &ks {
            if c * k > 256 {
                continue;
            }
            let mut rng = Rng::new(2026 + (c * 100 + k) as u64);
            // One thread: grasps one after another with one solver, until the time is up.
            let mut solver = Solver::new();
            let mut grasps = Vec::new();
            let t = Instant::now();
            let mut closed = 0;
            let mut facets = 0;
            while grasps.len() < 2 || t.elapsed().as_secs_f64() < seconds {
                let w = grasp(&mut rng, c, k);
                let mut b = GeneralBatch::default();
                b.push_grasp(&w).unwrap();
                let case = b.get(0);
                let o = solver.solve(&case);
                let g = finish(&case, &o, &mut solver);
                closed += usize::from(g.force_closure == ForceClosure::True);
                grasps.push(w);
            }
            let one = grasps.len() as f64 / t.elapsed().as_secs_f64();
            if grasps.len() <= 64 {
                for w in &grasps {
                    let mut b = GeneralBatch::default();
                    b.push_grasp(w).unwrap();
                    facets += solver.facets_proven(&b.get(0)).0.len();
                }
            }
            // All cores: the same grasps in one batch, solved and finished by the engine.
            let mut batch = GeneralBatch::default();
            for w in &grasps {
                batch.push_grasp(w).unwrap();
            }
            let batch = Batch::from(batch);
            let t = Instant::now();
            let answers = engine.evaluate(&batch, Options::default()).unwrap();
            assert_eq!(answers.grasps.len(), batch.len());
            let all = batch.len() as f64 / t.elapsed().as_secs_f64();
            let per = if grasps.len() <= 64 {
                format!("{:.0}", facets as f64 / grasps.len() as f64)
            } else {
                "-".into()
            };
            println!(
                "{c:>8} {k:>2} {:>4} {:>7} {:>4.0} {per:>13} {one:>11.1} {all:>12.1}",
                c * k,
                grasps.len(),
                100.0 * closed as f64 / grasps.len() as f64
            );
        }
    }
}
