//! Workloads of the general test for benchmarks and tests, reproducible from a seed: random
//! pointed cones in general position. The cones contact problems make are built from
//! contacts in the physical layer ([`crate::scene::sample::contact_cases`]), whose formulas
//! they use.

use super::GeneralBatch;
use crate::rng::Rng;

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
    let mut batch = GeneralBatch::default();
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
