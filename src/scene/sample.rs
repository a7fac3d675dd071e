//! Deterministic random cases of point contacts on a box, for the demo, the benches and the
//! cross-checks: the planner's workload (boxes), and the mixed workload (boxes among the
//! engine's degenerate cones, [`crate::planar::sample`]). Here rather than in the engine's
//! room because a box's generators are this layer's [`edge_rays`].

use super::edge_rays;
use super::spatial::{pyramid_edges, tangent_basis, wrench};
use crate::general::GeneralBatch;
use crate::planar::sample::{cone_of_kind, CONE_KINDS};
use crate::planar::types::Case;
use crate::rng::Rng;

/// Generators of point contacts on a box of half-size 1 (docs/contract-planar.md §2, `edge_rays`): each
/// contact at `p` with inward unit normal `n` and friction `mu` gives the rays `n ± μt`.
pub fn contact_generators(contacts: &[([f32; 2], [f32; 2], f32)]) -> Vec<[f32; 3]> {
    let wide = |v: [f32; 2]| v.map(f64::from);
    contacts
        .iter()
        .flat_map(|&(p, n, mu)| edge_rays(wide(p), wide(n), mu as f64, 1.0))
        .map(|g| g.map(|v| v as f32))
        .collect()
}

/// The kinds of case [`case_of_kind`] draws from, in its order: a box, then the engine's cones.
pub const KINDS: [&str; 1 + CONE_KINDS.len()] = {
    let mut kinds = ["box"; 1 + CONE_KINDS.len()];
    let mut i = 0;
    while i < CONE_KINDS.len() {
        kinds[1 + i] = CONE_KINDS[i];
        i += 1;
    }
    kinds
};

/// One case of the given kind (an index into [`KINDS`]).
pub fn case_of_kind(rng: &mut Rng, kind: usize) -> Case {
    match kind {
        0 => box_case(rng),
        _ => cone_of_kind(rng, kind - 1),
    }
}

/// Up to 4 point contacts on the faces of a box of half-size 1, random friction, the need near
/// gravity.
fn box_case(rng: &mut Rng) -> Case {
    let n = 1 + rng.below(4);
    // (inward normal, the coordinate that runs along the face)
    let faces = [
        ([0.0f32, 1.0f32], 0usize),
        ([0.0, -1.0], 0),
        ([1.0, 0.0], 1),
        ([-1.0, 0.0], 1),
    ];
    let contacts: Vec<_> = (0..n)
        .map(|_| {
            let (normal, along) = faces[rng.below(4)];
            let mut p = [0.0f32; 2];
            p[along] = rng.range(-1.0, 1.0);
            p[1 - along] = -normal[1 - along];
            (p, normal, rng.range(0.0, 1.2))
        })
        .collect();
    let need = [
        rng.range(-0.3, 0.3),
        rng.range(0.5, 1.5),
        rng.range(-0.5, 0.5),
    ];
    Case::new(&contact_generators(&contacts), need).expect("at most 16 finite generators")
}

/// `n` cases cycling through every kind, from `seed`.
pub fn mixed_cases(seed: u64, n: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| case_of_kind(&mut rng, i % KINDS.len()))
        .collect()
}

/// `n` physical box cases (the planner's workload), from `seed`.
pub fn box_cases(seed: u64, n: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| box_case(&mut rng)).collect()
}

/// `n` cases in R^d (3 or 6) of exactly `k` generators each (`k` ≤ 256): contacts of a
/// pyramid of 4 edges (R⁶) or 2 rays (R³) at random points of a unit box, until `k`
/// generators; the need is the weight with a random offset of the centre of mass and a
/// random push, so that both verdicts occur.
pub fn contact_cases(seed: u64, n: usize, d: usize, k: usize) -> GeneralBatch {
    let mut rng = Rng::new(seed);
    let mut batch = GeneralBatch::default();
    let mut gens = Vec::with_capacity(k * d);
    for _ in 0..n {
        gens.clear();
        let edges = if d == 6 { 4 } else { 2 };
        while gens.len() < k * d {
            let p = [
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 0.2),
            ];
            // mostly floor contacts, some on the walls
            let nrm: [f64; 3] = match rng.below(5) {
                0 => [1.0, 0.0, 0.0],
                1 => [-1.0, 0.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            };
            let nrm = if d == 3 && nrm[0] == 0.0 {
                [0.0, 0.0, 1.0]
            } else {
                nrm
            };
            let mu = f64::from(rng.range(0.1, 0.9));
            // R⁶: the pyramid's edges; R³: its planar restriction, the two rays n ± μt₁.
            let forces = if d == 6 {
                pyramid_edges(nrm, mu, edges)
            } else {
                let (t1, _) = tangent_basis(nrm);
                [1.0, -1.0]
                    .map(|c: f64| std::array::from_fn(|a| nrm[a] + mu * (c * t1[a])))
                    .to_vec()
            };
            let p = p.map(f64::from);
            let p = if d == 3 { [p[0], 0.0, p[2]] } else { p };
            for f in forces {
                if gens.len() >= k * d {
                    break;
                }
                let w = wrench(p, f, 1.0);
                if d == 6 {
                    gens.extend_from_slice(&w);
                } else {
                    gens.extend_from_slice(&[w[0], w[2], w[4]]);
                }
            }
        }
        let dx = f64::from(rng.range(-0.6, 0.6));
        let dy = f64::from(rng.range(-0.6, 0.6));
        let push: [f64; 3] = std::array::from_fn(|_| f64::from(rng.range(-0.3, 0.3)));
        let need6 = [push[0], push[1], 1.0 + push[2], dy, -dx, 0.0];
        let need = if d == 6 {
            need6.to_vec()
        } else {
            vec![need6[0], need6[2], need6[4]]
        };
        batch
            .push(d, &gens, &need)
            .expect("sample cases are well formed");
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind once, by name, in the order the mixed workload cycles.
    #[test]
    fn kinds_are_a_box_then_the_engines_cones() {
        assert_eq!(KINDS[0], "box");
        assert_eq!(KINDS[1..], CONE_KINDS);
    }
}
