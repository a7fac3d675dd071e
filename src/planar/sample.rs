//! Deterministic random cones for the cross-checks of the engine: the degenerate shapes where
//! implementations part ways (flat cones, parallel and opposite generators, zero and
//! duplicate generators, empty sets, need on a facet or a ray, need = 0, cones filling R³).
//! Cones of physical contacts (boxes) and the mixed workload of the demo and the benches,
//! these kinds among boxes, are the physical layer's (`scene::sample`).

use super::types::{Case, MAX_GENERATORS};
use crate::rng::Rng;

fn combine(a: [f32; 3], wa: f32, b: [f32; 3], wb: f32) -> [f32; 3] {
    [
        wa * a[0] + wb * b[0],
        wa * a[1] + wb * b[1],
        wa * a[2] + wb * b[2],
    ]
}

/// The kinds of cone [`cone_of_kind`] draws, in its order.
pub(crate) const CONE_KINDS: [&str; 11] = [
    "pointed",
    "iso",
    "flat",
    "parallel",
    "opposite",
    "zero",
    "duplicate",
    "empty",
    "need_on_facet",
    "need_on_ray",
    "need_zero",
];

/// One cone of the given kind (an index into [`CONE_KINDS`]).
pub(crate) fn cone_of_kind(rng: &mut Rng, kind: usize) -> Case {
    let need_default = [0.0, 1.0, 0.0];
    let random_gens = |rng: &mut Rng, n: usize| (0..n).map(|_| rng.vector()).collect::<Vec<_>>();
    let (gens, need): (Vec<[f32; 3]>, [f32; 3]) = match CONE_KINDS[kind] {
        "pointed" => {
            let axis = rng.vector();
            let count = 2 + rng.below(10);
            let g = (0..count)
                .map(|_| combine(axis, 1.5, rng.vector(), 1.0))
                .collect();
            (g, rng.vector())
        }
        "iso" => {
            let n = 1 + rng.below(MAX_GENERATORS);
            (random_gens(rng, n), rng.vector())
        }
        "flat" => {
            // Every generator in one plane through the origin; need in or near it.
            let (a, b) = (rng.vector(), rng.vector());
            let count = 2 + rng.below(6);
            let g: Vec<_> = (0..count)
                .map(|_| {
                    let (s, t) = (rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
                    combine(a, s, b, t)
                })
                .collect();
            let need = if rng.below(2) == 0 {
                let (s, t) = (rng.unit(), rng.unit());
                combine(a, s, b, t)
            } else {
                rng.vector()
            };
            (g, need)
        }
        "parallel" => {
            let a = rng.vector();
            let count = rng.below(4);
            let mut g = random_gens(rng, count);
            g.push(a);
            let s = rng.range(0.1, 4.0);
            g.push(combine(a, s, a, 0.0));
            let need = if rng.below(2) == 0 {
                let s = rng.range(0.0, 2.0);
                combine(a, s, a, 0.0)
            } else {
                rng.vector()
            };
            (g, need)
        }
        "opposite" => {
            let a = rng.vector();
            let count = rng.below(5);
            let mut g = random_gens(rng, count);
            g.push(a);
            let s = -rng.range(0.1, 4.0);
            g.push(combine(a, s, a, 0.0));
            (g, rng.vector())
        }
        "zero" => {
            let count = rng.below(8);
            let mut g = random_gens(rng, count);
            let at = rng.below(g.len() + 1);
            g.insert(at, [0.0; 3]);
            (g, rng.vector())
        }
        "duplicate" => {
            let count = 1 + rng.below(7);
            let mut g = random_gens(rng, count);
            let at = rng.below(g.len());
            let copy = g[at];
            g.push(copy);
            (g, rng.vector())
        }
        "empty" => (
            Vec::new(),
            if rng.below(2) == 0 {
                need_default
            } else {
                rng.vector()
            },
        ),
        "need_on_facet" => {
            let count = 2 + rng.below(8);
            let g = random_gens(rng, count);
            let (i, j) = (rng.below(g.len()), rng.below(g.len()));
            let (s, t) = (rng.unit(), rng.unit());
            (g.clone(), combine(g[i], s, g[j], t))
        }
        "need_on_ray" => {
            let count = 1 + rng.below(8);
            let g = random_gens(rng, count);
            let i = rng.below(g.len());
            let s = rng.range(0.1, 3.0);
            (g.clone(), combine(g[i], s, g[i], 0.0))
        }
        _ => {
            let n = rng.below(MAX_GENERATORS + 1);
            (random_gens(rng, n), [0.0; 3])
        }
    };
    Case::new(&gens, need).expect("at most 16 finite generators")
}

/// `n` cones cycling through every kind, from `seed`.
#[cfg(test)]
pub(crate) fn cone_cases(seed: u64, n: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| cone_of_kind(&mut rng, i % CONE_KINDS.len()))
        .collect()
}
