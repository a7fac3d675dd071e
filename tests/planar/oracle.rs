//! The float32 answers against an independent float64 oracle of docs/contract-planar.md §5–§6, written from
//! the math: every candidate plane, margin = min over supporting unit normals of y·need.
//! Cases near rays, facets and flat cones included. The oracle's tolerances (1e-7,
//! relative) sit between float32 rounding, which makes an exactly flat cone or opposite
//! pair of the float64 data very slightly otherwise, and the tested ε = 1e-5.

use planar_hold::details::sample::Rng;
use planar_hold::details::sample::{case_of_kind, KINDS};
use planar_hold::{Case, Verdict};

type V = [f64; 3];

fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: V) -> f64 {
    dot(a, a).sqrt()
}

/// The float64 signed distance of the need to the cone's boundary (1000 when it fills R³).
fn oracle_margin(case: &Case) -> f64 {
    let w: Vec<V> = case
        .active_generators()
        .map(|(_, g)| g.map(f64::from))
        .collect();
    let n = case.need.map(f64::from);
    let mut candidates: Vec<V> = Vec::new();
    for (i, &a) in w.iter().enumerate() {
        for &b in &w[i + 1..] {
            let c = cross(a, b);
            if norm(c) > 1e-7 * norm(a) * norm(b) {
                candidates.extend([c, c.map(|x| -x)]);
            }
        }
        candidates.extend([a, a.map(|x| -x)]);
        let t = if dot(a, a) > 0.0 {
            dot(n, a) / dot(a, a)
        } else {
            0.0
        };
        candidates.push([t * a[0] - n[0], t * a[1] - n[1], t * a[2] - n[2]]);
        for k in 0..3 {
            let mut e = [0.0; 3];
            e[k] = 1.0;
            let c = cross(a, e);
            candidates.extend([c, c.map(|x| -x)]);
        }
    }
    candidates.push(n.map(|x| -x));
    let scale = w.iter().map(|&g| norm(g)).fold(norm(n), f64::max);
    let mut best = f64::INFINITY;
    for v in candidates {
        let l = norm(v);
        if l <= 1e-12 * scale * scale.max(1.0) {
            continue;
        }
        let y = v.map(|x| x / l);
        if w.iter().all(|&g| dot(y, g) >= -1e-7 * norm(g)) {
            best = best.min(dot(y, n));
        }
    }
    if best.is_infinite() {
        if norm(n) == 0.0 && w.iter().all(|&g| norm(g) == 0.0) {
            0.0
        } else {
            1000.0
        }
    } else {
        best.min(1000.0)
    }
}

/// Mixed cases plus needs a hair off a ray or a facet, where float32 cancels.
fn workload() -> Vec<Case> {
    let mut rng = Rng::new(99);
    let mut cases: Vec<Case> = (0..KINDS.len() * 600)
        .map(|i| case_of_kind(&mut rng, i % KINDS.len()))
        .collect();
    for _ in 0..3000 {
        let g: Vec<[f32; 3]> = (0..2 + rng.below(8)).map(|_| rng.vector()).collect();
        let (i, j) = (rng.below(g.len()), rng.below(g.len()));
        let (a, b) = (rng.unit(), if rng.below(2) == 0 { 0.0 } else { rng.unit() });
        let off = [1e-2f32, 1e-3, 1e-4][rng.below(3)];
        let noise = rng.vector();
        let need = [0, 1, 2].map(|k| a * g[i][k] + b * g[j][k] + off * noise[k]);
        cases.push(Case::new(&g, need).unwrap());
    }
    cases
}

#[test]
fn margins_and_verdicts_match_the_float64_oracle() {
    let cases = workload();
    let mut engines = vec![(
        "cpu",
        crate::common::planar_outcomes(&planar_hold::Engine::cpu(), &cases),
    )];
    if let Some(gpu) = crate::common::gpu_engine() {
        engines.push(("gpu", crate::common::planar_outcomes(&gpu, &cases)));
    }
    for (name, outcomes) in engines {
        let mut failures = Vec::new();
        for (k, (case, o)) in cases.iter().zip(&outcomes).enumerate() {
            let d = oracle_margin(case);
            let m = o.margin as f64;
            let far = d.abs() > 1e-3 * (1f64).max(norm(case.need.map(f64::from)));
            if d >= 999.0 {
                if m < 999.0 || o.verdict() != Verdict::Supported {
                    failures.push(format!("case {k}: full cone, got {:?} {m}", o.verdict()));
                }
                continue;
            }
            let tolerance = if far { 1e-4 * d.abs().max(1.0) } else { 1e-3 };
            if (m - d).abs() > tolerance {
                failures.push(format!("case {k}: margin {m} vs float64 {d}"));
            }
            if far && (o.verdict() == Verdict::Supported) != (d > 0.0) {
                failures.push(format!("case {k}: {:?} at float64 margin {d}", o.verdict()));
            }
            if far && o.verdict() == Verdict::Uncertain {
                failures.push(format!("case {k}: uncertain at float64 margin {d}"));
            }
        }
        assert!(
            failures.is_empty(),
            "{name}: {} failures: {:?}",
            failures.len(),
            &failures[..failures.len().min(10)]
        );
    }
}
