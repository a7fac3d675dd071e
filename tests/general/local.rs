//! The local search against the whole facet set (docs/contract-general.md §9): on thousands of
//! random, contact and degenerate cones in R³, R⁶ and the lifted grasp cones of R⁷, the bound
//! from below never exceeds the exact margin (the whole facet set's, proven complete), the bound
//! from above is never under it, and where the local search says `margin_checked` the two
//! routes agree; verdicts, witnesses' validity and capped agree everywhere.

use planar_hold::details::sample;
use planar_hold::details::sample::Rng;
use planar_hold::details::solver::{Route, Solver};
use planar_hold::Verdict;
use planar_hold::{GeneralBatch, GeneralCase, GeneralOutcome};

fn nrm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn f(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * f64::from(rng.unit())
}

/// The ways a cone is made degenerate: exact and scaled copies, copies moved by 1e-12…1e-8,
/// points on one 2-flat (a pyramid's edges), a generator and its opposite (a line in C),
/// a zero generator.
fn degenerate(rng: &mut Rng, case: &GeneralCase<'_>) -> Vec<f64> {
    let d = case.dim;
    let k = case.len();
    let mut g = case.generators.to_vec();
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(k);
        let w: Vec<f64> = case.generator(i).to_vec();
        let n = nrm(&w);
        let add: Vec<f64> = match rng.below(6) {
            0 => w.clone(),
            1 => w
                .iter()
                .map(|x| x * [0.5, 2.0, 1e-3, 1e3][rng.below(4)])
                .collect(),
            2 => {
                let delta = [1e-12, 1e-10, 1e-9, 1e-8][rng.below(4)];
                w.iter()
                    .map(|x| x + delta * n * f(rng, -1.0, 1.0))
                    .collect()
            }
            3 => {
                // On the 2-flat through three generators.
                let (j, l) = (rng.below(k), rng.below(k));
                let (a, b) = (f(rng, 0.0, 1.0), f(rng, 0.0, 1.0));
                (0..d)
                    .map(|t| {
                        w[t] + a * (case.generator(j)[t] - w[t]) + b * (case.generator(l)[t] - w[t])
                    })
                    .collect()
            }
            4 => w.iter().map(|x| -x).collect(),
            _ => vec![0.0; d],
        };
        if g.len() / d < 256 {
            g.extend_from_slice(&add);
        }
    }
    g
}

/// The lifted grasp cone of random fingertip wrenches: `contacts` points on the unit sphere,
/// inward normals, pyramids of `k` edges (their wrenches on one 2-flat each).
fn grasp(rng: &mut Rng, contacts: usize, k: usize, batch: &mut GeneralBatch) {
    let mut w = Vec::new();
    for _ in 0..contacts {
        let p: Vec<f64> = loop {
            let v: Vec<f64> = (0..3).map(|_| f(rng, -1.0, 1.0)).collect();
            let n = nrm(&v);
            if n > 0.2 && n <= 1.0 {
                break v.iter().map(|x| x / n).collect();
            }
        };
        let n = [-p[0], -p[1], -p[2]];
        let a = if n[0].abs() <= n[1].abs() && n[0].abs() <= n[2].abs() {
            [1.0, 0.0, 0.0]
        } else if n[1].abs() <= n[2].abs() {
            [0.0, 1.0, 0.0]
        } else {
            [0.0, 0.0, 1.0]
        };
        let cross = |u: &[f64], v: &[f64]| {
            [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ]
        };
        let t1 = cross(&a, &n);
        let l = nrm(&t1);
        let t1 = t1.map(|x| x / l);
        let t2 = cross(&n, &t1);
        let mu = f(rng, 0.2, 1.0);
        for j in 0..k {
            let th = std::f64::consts::TAU * j as f64 / k as f64;
            let r: [f64; 3] =
                std::array::from_fn(|t| n[t] + mu * (th.cos() * t1[t] + th.sin() * t2[t]));
            let m = cross(&p, &r);
            w.extend_from_slice(&r);
            w.extend_from_slice(&m);
        }
    }
    batch.push_grasp(&w).unwrap();
}

#[derive(Default)]
struct Tally {
    inside: usize,
    checked: usize,
    fallbacks: usize,
    bad: Vec<String>,
}

/// `rel`: how far (relative to |need|) the two may differ: 1e-9, or for cones with copies moved
/// by up to 1e-8, which the whole facet set counts as one direction (docs/contract-general.md §8:
/// its cone is then a sub-cone, a hair smaller), ten times that.
fn compare(
    case: &GeneralCase<'_>,
    local: &GeneralOutcome,
    whole: &GeneralOutcome,
    rel: f64,
    t: &mut Tally,
) {
    let s = nrm(case.need).max(1e-300);
    let tol = rel * s;
    let name = format!("d = {}, K = {}", case.dim, case.len());
    if local.verdict != whole.verdict || local.capped != whole.capped {
        t.bad.push(format!(
            "{name}: {:?}/{} vs {:?}/{}",
            local.verdict, local.capped, whole.verdict, whole.capped
        ));
        return;
    }
    if local.verdict != Verdict::Supported || local.capped || whole.facet.is_none() {
        if (local.margin - whole.margin).abs() > tol || local.margin_lower != local.margin {
            t.bad.push(format!(
                "{name}: margin {} vs {}",
                local.margin, whole.margin
            ));
        }
        return;
    }
    t.inside += 1;
    // The exact margin, where the whole set is proven complete.
    if whole.margin_checked {
        if local.margin_lower > whole.margin + tol {
            t.bad.push(format!(
                "{name}: lower {} above the margin {}",
                local.margin_lower, whole.margin
            ));
        }
        if local.margin < whole.margin - tol {
            t.bad.push(format!(
                "{name}: upper {} under the margin {}",
                local.margin, whole.margin
            ));
        }
    }
    if local.margin_lower > local.margin + tol {
        t.bad.push(format!(
            "{name}: lower {} above upper {}",
            local.margin_lower, local.margin
        ));
    }
    if local.margin_checked {
        t.checked += 1;
        if local.margin - local.margin_lower > 1e-9 * s {
            t.bad.push(format!(
                "{name}: checked with a gap {} .. {}",
                local.margin_lower, local.margin
            ));
        }
    }
}

fn run(batches: &[GeneralBatch], with_degenerate: bool) -> Tally {
    let mut local = Solver::with_route(Route::Local);
    let mut whole = Solver::with_route(Route::Whole);
    let mut rng = Rng::new(77);
    let mut t = Tally::default();
    for batch in batches {
        for case in batch.iter() {
            compare(
                &case,
                &local.solve(&case),
                &whole.solve(&case),
                1e-9,
                &mut t,
            );
            if with_degenerate {
                let g = degenerate(&mut rng, &case);
                let c = GeneralCase::new(case.dim, &g, case.need).unwrap();
                compare(&c, &local.solve(&c), &whole.solve(&c), 1e-7, &mut t);
            }
        }
    }
    t.fallbacks = local.fallbacks();
    t
}

fn verdict(t: &Tally, what: &str, least_checked: f64) {
    assert!(
        t.bad.is_empty(),
        "{what}: {} failures:\n{}",
        t.bad.len(),
        t.bad[..t.bad.len().min(12)].join("\n")
    );
    assert!(t.inside > 0, "{what}: no case inside");
    assert!(
        t.checked as f64 >= least_checked * t.inside as f64,
        "{what}: only {} of {} inside margins closed",
        t.checked,
        t.inside
    );
    eprintln!(
        "{what}: {} inside, {} closed, {} from the whole facet set",
        t.inside, t.checked, t.fallbacks
    );
    assert!(
        t.fallbacks as f64 <= (1.0 - least_checked) * t.inside as f64,
        "{what}: {} of {} inside margins fell back to the whole facet set",
        t.fallbacks,
        t.inside
    );
}

#[test]
fn random_and_contact_cones_bound_the_exact_margin_from_both_sides() {
    let mut batches = Vec::new();
    for (d, k, n) in [
        (3, 8, 300),
        (3, 40, 200),
        (3, 255, 40),
        (6, 8, 300),
        (6, 16, 300),
        (6, 40, 150),
        (6, 96, 40),
        (6, 200, 8),
    ] {
        batches.push(sample::random_cases(11 + k as u64, n, d, k));
        batches.push(planar_hold::details::sample::contact_cases(
            13 + k as u64,
            n,
            d,
            k,
        ));
    }
    let t = run(&batches, true);
    verdict(&t, "random and contact cones", 0.99);
}

#[test]
fn lifted_grasp_cones_bound_the_exact_q1_from_both_sides() {
    let mut rng = Rng::new(5);
    let mut batch = GeneralBatch::default();
    for (contacts, k, n) in [
        (2, 4, 100),
        (3, 4, 300),
        (4, 4, 300),
        (4, 8, 150),
        (6, 6, 60),
        (8, 8, 20),
    ] {
        for _ in 0..n {
            grasp(&mut rng, contacts, k, &mut batch);
        }
    }
    let t = run(&[batch], false);
    verdict(&t, "grasps", 0.99);
}

/// Runs of needs on one cone (a scene's centre-of-mass positions): each cone of random and
/// contact samples (some made degenerate) with seven needs near its own, pushed as one run
/// ([`GeneralBatch::push_need`]). A solver taking them one after another with
/// [`Solver::solve_next`] goes on from the last need's inner hull (and NNLS, and prepared
/// columns): its bounds still hold the exact margin between them, and agree where it says
/// `margin_checked`, whatever else the solver was asked between two needs. The engine answers
/// every run so, on one solver in order: the same bits on all cores as on one, and as the
/// solver taking them one after another (an odd run, so that the halves the threads take cut
/// through runs), each answer with a proof that passes.
#[test]
fn needs_on_one_cone_go_on_from_the_last_hull_within_the_exact_margin() {
    use crate::proof::check_cone_answer;
    use planar_hold::{Backend, Engine, Options, Threads};
    let mut rng = Rng::new(91);
    let mut runs = GeneralBatch::default();
    for (d, k, n) in [
        (3, 8, 60),
        (3, 40, 40),
        (6, 8, 60),
        (6, 16, 60),
        (6, 40, 40),
        (6, 96, 12),
        (6, 200, 4),
    ] {
        for batch in [
            sample::random_cases(21 + k as u64, n, d, k),
            sample::contact_cases(23 + k as u64, n, d, k),
        ] {
            for (c, case) in batch.iter().enumerate() {
                let g = if c % 4 == 3 {
                    degenerate(&mut rng, &case)
                } else {
                    case.generators.to_vec()
                };
                runs.push(d, &g, case.need).unwrap();
                let s = nrm(case.need);
                for _ in 0..6 {
                    let need: Vec<f64> = case
                        .need
                        .iter()
                        .map(|v| v + 0.2 * s * f(&mut rng, -1.0, 1.0))
                        .collect();
                    runs.push_need(&need).unwrap();
                }
            }
        }
    }
    let mut next = Solver::with_route(Route::Local);
    let mut whole = Solver::with_route(Route::Whole);
    let mut t = Tally::default();
    let mut went_on: Vec<GeneralOutcome> = Vec::new();
    let mut differ = 0;
    // Another cone's facets asked of the same solver between two needs of a run: what the
    // run kept of its cone must not carry over (the answers stay the engine's).
    let other = sample::random_cases(3, 1, 6, 12);
    for (i, case) in runs.iter().enumerate() {
        if i % 5 == 2 {
            let _ = next.facets_proven(&other.get(0));
        }
        let o = next.solve_next(&case);
        compare(&case, &o, &whole.solve(&case), 1e-7, &mut t);
        differ += usize::from(o != Solver::new().solve(&case));
        went_on.push(o);
    }
    t.fallbacks = next.fallbacks();
    verdict(&t, "runs of needs", 0.99);
    let reused = next.hulls_reused();
    assert!(
        reused * 2 > t.inside,
        "{reused} of {} inside margins went on from the last hull",
        t.inside
    );
    // Going on from another hull finds other faces: some answers differ in their last bits.
    assert!(differ > 0, "no answer differs from a fresh solver's");

    let engine = Engine::new(Backend::Cpu).unwrap();
    let batch = runs.clone().into();
    let answers = |threads| {
        let options = Options {
            proof: true,
            threads,
            ..Options::default()
        };
        engine.evaluate(&batch, options).unwrap()
    };
    let (all, one) = (answers(Threads::All), answers(Threads::Current));
    assert!(
        all.general == one.general,
        "the answers depend on the threads"
    );
    assert!(
        all.general == went_on,
        "the engine's answers are not the solver's in order"
    );
    for (i, (o, p)) in all.general.iter().zip(&all.proofs).enumerate() {
        let case = runs.get(i);
        if let Some(p) = p {
            check_cone_answer(&case, o, p, 1e-9 * nrm(case.need))
                .unwrap_or_else(|e| panic!("case {i}: {e}"));
        }
    }
}
