//! Deterministic random cases of point contacts on a box, for the demo, the benches and the
//! cross-checks: the planner's workload (boxes), and the mixed workload (boxes among the
//! engine's degenerate cones, [`crate::planar::sample`]). Here rather than in the engine's
//! room because a box's generators are this layer's [`edge_rays`].

use super::edge_rays;
use crate::planar::sample::{cone_of_kind, CONE_KINDS};
use crate::planar::types::Case;
use crate::rng::Rng;

/// Generators of point contacts on a box of half-size 1 (docs/contract-planar.md §2, [`edge_rays`]): each
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
