//! Workloads of the general test for benchmarks and tests: the cones contact problems make,
//! reproducible from a seed. Friction pyramids at contact points on a body (a wrench of a
//! force at a point, docs/contract-spatial.md §1, in R⁶; its planar restriction in R³), needs about the
//! body's weight: most held, some not, a few near the boundary.

use super::GeneralBatch;
use crate::rng::Rng;

/// `n` cases in R^d (3 or 6) of exactly `k` generators each (`k` ≤ 256): contacts of a
/// pyramid of 4 edges (R⁶) or 2 rays (R³) at random points of a unit box, until `k`
/// generators; the need is the weight with a random offset of the centre of mass and a
/// random push, so that both verdicts occur.
pub fn contact_cases(seed: u64, n: usize, d: usize, k: usize) -> GeneralBatch {
    let mut rng = Rng::new(seed);
    let mut batch = GeneralBatch::new();
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
            let (t1, t2) = tangents(nrm);
            for j in 0..edges {
                if gens.len() >= k * d {
                    break;
                }
                let th = std::f64::consts::TAU * j as f64 / edges as f64;
                let (c, s) = if d == 6 {
                    (th.cos(), th.sin())
                } else {
                    (th.cos(), 0.0)
                };
                let f: [f64; 3] = std::array::from_fn(|a| nrm[a] + mu * (c * t1[a] + s * t2[a]));
                let p = p.map(f64::from);
                let p = if d == 3 { [p[0], 0.0, p[2]] } else { p };
                let tau = [
                    p[1] * f[2] - p[2] * f[1],
                    p[2] * f[0] - p[0] * f[2],
                    p[0] * f[1] - p[1] * f[0],
                ];
                if d == 6 {
                    gens.extend_from_slice(&[f[0], f[1], f[2], tau[0], tau[1], tau[2]]);
                } else {
                    gens.extend_from_slice(&[f[0], f[2], tau[1]]);
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

/// docs/contract-spatial.md §2's tangent basis of a unit normal.
fn tangents(n: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let mut axis = [0.0; 3];
    let a = (0..3)
        .min_by(|&i, &j| n[i].abs().total_cmp(&n[j].abs()))
        .unwrap_or(0);
    axis[a] = 1.0;
    let cross = |u: [f64; 3], v: [f64; 3]| {
        [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ]
    };
    let t1 = cross(axis, n);
    let l = (t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]).sqrt();
    let t1 = t1.map(|x| x / l);
    (t1, cross(n, t1))
}

/// `n` random pointed cones in R^d of `k` generators each, the workload of
/// `scripts/general_peers.py`: Gaussian generators with the "up" coordinate (1 in R³, 2 in
/// R⁶) made `|g| + 0.3`; even cases' needs inside (a positive combination of d + 2
/// generators, normalised), odd cases' the same with the up coordinate set to −0.3 (outside).
/// General position: the cones have many facets (thousands at d = 6, K = 256).
pub fn random_cases(seed: u64, n: usize, d: usize, k: usize) -> GeneralBatch {
    let mut rng = Rng::new(seed);
    let mut gauss = move || {
        // Box–Muller on two uniforms in (0, 1].
        let u1 = 1.0 - f64::from(rng.unit());
        let u2 = f64::from(rng.unit());
        (-2.0 * u1.max(1e-300).ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    };
    let up = if d == 6 { 2 } else { 1 };
    let mut batch = GeneralBatch::new();
    let mut gens = vec![0.0; k * d];
    for c in 0..n {
        for (a, g) in gens.iter_mut().enumerate() {
            *g = gauss();
            if a % d == up {
                *g = g.abs() + 0.3;
            }
        }
        let mut need = vec![0.0; d];
        for j in 0..(d + 2).min(k) {
            let i = (j * 7919 + c * 31) % k;
            let l = 0.1 + 0.9 * gauss().abs().min(1.0);
            for a in 0..d {
                need[a] += l * gens[i * d + a];
            }
        }
        let s = need.iter().map(|v| v * v).sum::<f64>().sqrt();
        need.iter_mut().for_each(|v| *v /= s);
        if c % 2 == 1 {
            need[up] = -0.3;
        }
        batch
            .push(d, &gens, &need)
            .expect("sample cases are well formed");
    }
    batch
}
