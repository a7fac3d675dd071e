//! Property tests of scale: the same answer for the same cone, whatever the units.
//!
//! Over thousands of cases of the random and degenerate families (`sample`), on every
//! engine: scaling by powers of two (exactly the same answer, the margin scaled exactly) and
//! of ten (the same answer away from the boundary) across the float32 range, each generator
//! scaled on its own, generators permuted, a generator added, thin cones of nearly parallel
//! generators, and reproductions of scale failures once found. Every witness and certificate is re-checked in
//! float64, relative to the case's own magnitudes.

use planar_hold::details::sample::Rng;
use planar_hold::details::sample::{box_cases, mixed_cases};
use planar_hold::{Case, Engine, Outcome, Verdict, MARGIN_CAP, MAX_GENERATORS};

type V = [f64; 3];

fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: V) -> f64 {
    dot(a, a).sqrt()
}

fn wide(v: [f32; 3]) -> V {
    v.map(f64::from)
}

/// An outcome's evidence checked in float64 as an outsider would, relative to the case's
/// magnitudes (no absolute floor, so that it means the same at every scale): finite fields;
/// a witness of non-negative weights reproducing the need to 1e-4 of its length (plus
/// float32's rounding of forces far beyond it; of docs/contract-planar.md §7's wider scale where the cone fills
/// R³); a unit certificate with every generator on its side within 1e-4 and the need beyond.
fn check_evidence(case: &Case, o: &Outcome) -> Result<(), String> {
    let need = wide(case.need);
    let need_len = norm(need);
    if !o.margin.is_finite() || o.margin > MARGIN_CAP {
        return Err(format!("margin {}", o.margin));
    }
    if !o
        .certificate
        .iter()
        .chain(&o.witness_weight)
        .all(|v| v.is_finite())
    {
        return Err(format!("non-finite field: {o:?}"));
    }
    match o.verdict() {
        Verdict::Supported => {
            let w = o.witness().ok_or("supported without a witness")?;
            let mut sum = [0.0f64; 3];
            let mut forces = 0.0;
            for (&i, &l) in w.indices.iter().zip(&w.weights) {
                if case.active_mask >> i & 1 == 0 {
                    return Err(format!("witness uses inactive generator {i}"));
                }
                if !(l >= 0.0 && l.is_finite()) {
                    return Err(format!("weight {l}"));
                }
                let g = wide(case.generators[i as usize]);
                for (s, gk) in sum.iter_mut().zip(g) {
                    *s += l * gk;
                }
                forces += l * norm(g);
            }
            let r = norm([0, 1, 2].map(|k| sum[k] - need[k]));
            let tolerance = if o.is_capped() {
                1e-4 * need_len.max(forces)
            } else {
                1e-4 * need_len + 1e-6 * forces
            };
            if r > tolerance {
                return Err(format!("witness residual {r:e} > {tolerance:e}"));
            }
        }
        Verdict::Unsupported => {
            let y = wide(o.certificate().ok_or("unsupported without a certificate")?);
            if (norm(y) - 1.0).abs() > 1e-5 {
                return Err(format!("certificate {y:?} not unit"));
            }
            for (i, g) in case.active_generators() {
                let g = wide(g);
                if dot(y, g) < -1e-4 * norm(g) {
                    return Err(format!(
                        "generator {i} beyond the certificate: {:e}",
                        dot(y, g) / norm(g)
                    ));
                }
            }
            if dot(y, need) >= 0.0 {
                return Err(format!("certificate y·need = {:e} not < 0", dot(y, need)));
            }
        }
        Verdict::Uncertain => {}
    }
    Ok(())
}

/// Every failure of `check_evidence` over a batch, for one assertion.
fn evidence_failures(name: &str, cases: &[Case], outcomes: &[Outcome]) -> Vec<String> {
    cases
        .iter()
        .zip(outcomes)
        .enumerate()
        .filter_map(|(k, (c, o))| {
            check_evidence(c, o)
                .err()
                .map(|e| format!("{name} case {k}: {e}"))
        })
        .collect()
}

fn assert_none(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{what}: {} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(8)]
    );
}

/// The random and degenerate families: every kind of `sample::KINDS`, and physical boxes.
fn family(seed: u64, n: usize) -> Vec<Case> {
    let mut cases = mixed_cases(seed, n);
    cases.extend(box_cases(seed + 1, n / 4));
    cases
}

/// The case with the need times `need_factor` and generator slot `i` times `factor(i)`,
/// computed in float64 and rounded once; `None` where a non-zero component would leave the
/// normal float32 range.
fn rescaled(case: &Case, need_factor: f64, factor: impl Fn(usize) -> f64) -> Option<Case> {
    let scale = |v: [f32; 3], f: f64| -> Option<[f32; 3]> {
        let out = v.map(|x| (x as f64 * f) as f32);
        out.iter()
            .zip(&v)
            .all(|(o, x)| *x == 0.0 || (o.is_normal()))
            .then_some(out)
    };
    let mut out = *case;
    out.need = scale(case.need, need_factor)?;
    for (i, g) in case.active_generators() {
        out.generators[i] = scale(g, factor(i))?;
    }
    Some(out)
}

/// Whether the rescaling of `rescaled` is exact for this case (powers of two, no subnormals).
fn is_exact(case: &Case, scaled: &Case, need_factor: f64, factor: impl Fn(usize) -> f64) -> bool {
    let same = |a: [f32; 3], b: [f32; 3], f: f64| (0..3).all(|k| a[k] as f64 * f == b[k] as f64);
    same(case.need, scaled.need, need_factor)
        && case
            .active_generators()
            .all(|(i, g)| same(g, scaled.generators[i], factor(i)))
}

fn evaluate(engine: &Engine, cases: &[Case]) -> Vec<Outcome> {
    crate::common::planar_outcomes(engine, cases)
}

/// A base case is "far from the boundary" where its verdict is certain and its margin is
/// beyond 1e-3 of the need's length (and of 1, where the need is short but not zero).
fn far(case: &Case, o: &Outcome) -> bool {
    o.verdict() != Verdict::Uncertain && o.margin.abs() as f64 > 1e-3 * norm(wide(case.need))
}

#[test]
fn powers_of_two_change_nothing_but_the_units() {
    let base = family(71, 2400);
    let ks = [-100, -60, -21, -1, 1, 17, 60, 100, 125];
    let mut scaled = Vec::new();
    let mut origin = Vec::new();
    for (n, case) in base.iter().enumerate() {
        for &k in &ks {
            let f = 2f64.powi(k);
            if let Some(s) = rescaled(case, f, |_| f).filter(|s| is_exact(case, s, f, |_| f)) {
                scaled.push(s);
                origin.push((n, k));
            }
        }
    }
    assert!(
        scaled.len() > 8 * base.len(),
        "only {} scaled cases",
        scaled.len()
    );
    for (name, engine) in crate::common::engines() {
        let before = evaluate(&engine, &base);
        let after = evaluate(&engine, &scaled);
        let mut failures = evidence_failures(name, &scaled, &after);
        for (o, &(n, k)) in after.iter().zip(&origin) {
            let b = &before[n];
            // The same scaled problem inside: the same bits, but for the margin's units.
            let same = Outcome {
                margin: b.margin,
                ..*o
            };
            if same != *b {
                failures.push(format!("{name} case {n} × 2^{k}: {b:?} became {o:?}"));
                continue;
            }
            if b.is_capped() || b.margin >= MARGIN_CAP {
                // Capped, or a larger finite margin also reported as the cap: scaling down
                // may bring it under, never above.
                if k > 0 && o.margin != MARGIN_CAP {
                    failures.push(format!(
                        "{name} case {n} × 2^{k}: margin {} not capped",
                        o.margin
                    ));
                }
                continue;
            }
            let expected = (b.margin as f64 * 2f64.powi(k))
                .min(MARGIN_CAP as f64)
                .max(-f32::MAX as f64);
            let exact = expected as f32;
            let ok = if exact.is_normal() || exact == 0.0 {
                o.margin == exact
            } else {
                (o.margin as f64 - expected).abs() <= f32::from_bits(1) as f64
            };
            if !ok {
                failures.push(format!(
                    "{name} case {n} × 2^{k}: margin {} vs {expected:e}",
                    o.margin
                ));
            }
        }
        assert_none("2^k scaling", &failures);
    }
}

/// Two answers to the same cone, the second's need `factor` times the first's (rescaled,
/// reordered): the same verdict where the first is far from the boundary; the margin scaled
/// by `factor` to within `rel` of the case's magnitude (the first's margin or need length),
/// both past the cap alike. Returns what differs.
fn same_answer(case: &Case, a: &Outcome, b: &Outcome, factor: f64, rel: f64) -> Option<String> {
    if far(case, a) && a.verdict() != b.verdict() {
        return Some(format!(
            "verdict {:?} became {:?}",
            a.verdict(),
            b.verdict()
        ));
    }
    if far(case, a) && a.is_capped() != b.is_capped() {
        return Some(format!("capped {} became {}", a.is_capped(), b.is_capped()));
    }
    if a.margin >= MARGIN_CAP {
        return None; // the true margin is unknown beyond the cap
    }
    // Where the uncapped margin may lie, capped.
    let cap = MARGIN_CAP as f64;
    let m = a.margin as f64;
    let slack = rel * m.abs().max(norm(wide(case.need)));
    let lo = ((m - slack) * factor).min(cap);
    let hi = ((m + slack) * factor).min(cap);
    let got = b.margin as f64;
    (got < lo - lo.abs() * 1e-6 || got > hi + hi.abs() * 1e-6)
        .then(|| format!("margin {:e} became {got:e}", m * factor))
}

/// The unit normal of candidate `index` for the case, in float64 (docs/contract-planar.md §5).
fn candidate_normal(case: &Case, index: u32) -> V {
    use planar_hold::details::planar::Candidate;
    let g = |i: u32| wide(case.generators[i as usize]);
    let n = wide(case.need);
    let cross = |a: V, b: V| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let signed = |v: V, negative: bool| if negative { v.map(|x| -x) } else { v };
    let y = match Candidate::at(index).expect("a candidate") {
        Candidate::PairPlane { i, j, negative } => signed(cross(g(i), g(j)), negative),
        Candidate::GeneratorDirection { i, negative } => signed(g(i), negative),
        Candidate::Perpendicular { i } => {
            let w = g(i);
            let t = dot(n, w) / dot(w, w);
            [0, 1, 2].map(|k| t * w[k] - n[k])
        }
        Candidate::GeneratorPlane { i, axis, negative } => {
            let mut e = [0.0; 3];
            e[axis as usize] = 1.0;
            signed(cross(g(i), e), negative)
        }
        Candidate::Apex => n.map(|x| -x),
    };
    y.map(|v| v / norm(y))
}

/// The same binding, or a tie: two candidates with the same plane (to 1e-4).
fn same_binding(a_case: &Case, a: &Outcome, b_case: &Case, b: &Outcome) -> bool {
    match (a.binding(), b.binding()) {
        (Some(x), Some(y)) if x != y => {
            let (u, v) = (candidate_normal(a_case, x), candidate_normal(b_case, y));
            norm([0, 1, 2].map(|k| u[k] - v[k])) < 1e-4
        }
        (x, y) => x == y,
    }
}

#[test]
fn the_fast_path_is_the_reference_at_every_scale() {
    // Uniform and per-generator scales across the range, thin pairs included: the lanes
    // path (all cores) answers bit for bit as the scalar reference.
    let mut rng = Rng::new(9);
    let mut cases: Vec<Case> = Vec::new();
    for case in family(80, 1200)
        .iter()
        .chain(thin_cones(81, 300).iter().map(|(c, _)| c))
    {
        let f = generator_factors(&mut rng, 10.0, 30);
        let k = 10f64.powi(rng.below(61) as i32 - 30);
        cases.extend(rescaled(case, k, |i| f[i] * k));
        cases.push(*case);
    }
    let batch = crate::common::planar_outcomes(&Engine::cpu(), &cases);
    let one_by_one: Vec<Outcome> = cases
        .iter()
        .map(planar_hold::details::planar::cone_test)
        .collect();
    for (k, (a, b)) in batch.iter().zip(&one_by_one).enumerate() {
        assert_eq!(a, b, "case {k}: {:?}", cases[k]);
    }
}

/// Counts of answers compared, and of witness subsets and bindings that stayed the same.
#[derive(Default)]
struct Tally {
    compared: usize,
    same_subset: usize,
    same_binding: usize,
}

impl Tally {
    fn add(&mut self, (a_case, a): (&Case, &Outcome), (b_case, b): (&Case, &Outcome)) {
        self.compared += 1;
        self.same_subset +=
            usize::from(a.witness().map(|w| w.indices) == b.witness().map(|w| w.indices));
        self.same_binding += usize::from(same_binding(a_case, a, b_case, b));
    }

    /// Subsets and bindings (up to ties) the same in all but `slack` of the cases (a witness
    /// on the edge of a sub-cone, or a near tie, may go either way under rounding).
    fn assert_mostly_same(&self, what: &str, slack: f64) {
        let least = ((1.0 - slack) * self.compared as f64).floor() as usize;
        eprintln!(
            "{what}: {} compared, witness subset same in {}, binding same in {}",
            self.compared, self.same_subset, self.same_binding
        );
        assert!(
            self.same_subset >= least,
            "{what}: witness subsets differ too often"
        );
        assert!(
            self.same_binding >= least,
            "{what}: bindings differ too often"
        );
    }
}

#[test]
fn powers_of_ten_keep_the_answer_away_from_the_boundary() {
    let base = family(72, 2400);
    let ks = [-30, -20, -9, -3, 2, 7, 15, 25, 36];
    let mut scaled = Vec::new();
    let mut origin = Vec::new();
    for (n, case) in base.iter().enumerate() {
        for &k in &ks {
            let f = 10f64.powi(k);
            if let Some(s) = rescaled(case, f, |_| f) {
                scaled.push(s);
                origin.push((n, k));
            }
        }
    }
    assert!(
        scaled.len() > 8 * base.len(),
        "only {} scaled cases",
        scaled.len()
    );
    for (name, engine) in crate::common::engines() {
        let before = evaluate(&engine, &base);
        let after = evaluate(&engine, &scaled);
        let mut failures = evidence_failures(name, &scaled, &after);
        let mut tally = Tally::default();
        for (t, (o, &(n, k))) in after.iter().zip(&origin).enumerate() {
            let b = &before[n];
            if let Some(why) = same_answer(&base[n], b, o, 10f64.powi(k), 1e-4) {
                failures.push(format!("{name} case {n} × 1e{k}: {why}"));
            }
            if far(&base[n], b) {
                tally.add((&base[n], b), (&scaled[t], o));
            }
        }
        assert_none("10^k scaling", &failures);
        tally.assert_mostly_same(&format!("{name} 10^k scaling"), 0.002);
    }
}

/// One random factor per generator slot: `powers_of` to a power in `-span..=span`.
fn generator_factors(rng: &mut Rng, powers_of: f64, span: i32) -> [f64; MAX_GENERATORS] {
    std::array::from_fn(|_| powers_of.powi(rng.below(2 * span as usize + 1) as i32 - span))
}

#[test]
fn scaling_each_generator_by_a_power_of_two_changes_only_its_weight() {
    let base = family(73, 3000);
    let mut rng = Rng::new(5);
    let mut scaled = Vec::new();
    let mut origin = Vec::new();
    for (n, case) in base.iter().enumerate() {
        let f = generator_factors(&mut rng, 2.0, 100);
        if let Some(s) = rescaled(case, 1.0, |i| f[i]).filter(|s| is_exact(case, s, 1.0, |i| f[i]))
        {
            scaled.push(s);
            origin.push((n, f));
        }
    }
    assert!(
        scaled.len() > base.len() / 2,
        "only {} scaled cases",
        scaled.len()
    );
    for (name, engine) in crate::common::engines() {
        let before = evaluate(&engine, &base);
        let after = evaluate(&engine, &scaled);
        let mut failures = evidence_failures(name, &scaled, &after);
        for (o, (n, f)) in after.iter().zip(&origin) {
            let b = &before[*n];
            // Weight k scales inversely with its generator, exactly.
            let weights = |o: &Outcome| o.witness().map(|w| w.weights);
            let expected = b.witness().map(|w| {
                w.indices
                    .iter()
                    .zip(&w.weights)
                    .map(|(&i, &l)| l / f[i as usize])
                    .collect::<Vec<_>>()
            });
            let same = Outcome {
                witness_exponent: b.witness_exponent,
                ..*o
            };
            if same != *b || weights(o) != expected {
                failures.push(format!("{name} case {n}: {b:?} became {o:?}"));
            }
        }
        assert_none("per-generator 2^k scaling", &failures);
    }
}

#[test]
fn scaling_each_generator_keeps_the_answer_away_from_the_boundary() {
    let base = family(74, 3000);
    let mut rng = Rng::new(6);
    let mut scaled = Vec::new();
    let mut origin = Vec::new();
    for (n, case) in base.iter().enumerate() {
        let f = generator_factors(&mut rng, 10.0, 30);
        if let Some(s) = rescaled(case, 1.0, |i| f[i]) {
            scaled.push(s);
            origin.push(n);
        }
    }
    assert!(
        scaled.len() > base.len() / 2,
        "only {} scaled cases",
        scaled.len()
    );
    for (name, engine) in crate::common::engines() {
        let before = evaluate(&engine, &base);
        let after = evaluate(&engine, &scaled);
        let mut failures = evidence_failures(name, &scaled, &after);
        let mut tally = Tally::default();
        for (t, (o, &n)) in after.iter().zip(&origin).enumerate() {
            if let Some(why) = same_answer(&base[n], &before[n], o, 1.0, 1e-4) {
                failures.push(format!("{name} case {n}: {why}"));
            }
            if far(&base[n], &before[n]) {
                tally.add((&base[n], &before[n]), (&scaled[t], o));
            }
        }
        assert_none("per-generator 10^k scaling", &failures);
        tally.assert_mostly_same(&format!("{name} per-generator 10^k scaling"), 0.002);
    }
}

#[test]
fn permuting_the_generators_keeps_verdict_and_margin() {
    let base = family(75, 3000);
    let mut rng = Rng::new(7);
    let permuted: Vec<Case> = base
        .iter()
        .map(|case| {
            let mut gens: Vec<[f32; 3]> = case.active_generators().map(|(_, g)| g).collect();
            for i in (1..gens.len()).rev() {
                gens.swap(i, rng.below(i + 1));
            }
            Case::new(&gens, case.need).unwrap()
        })
        .collect();
    for (name, engine) in crate::common::engines() {
        let before = evaluate(&engine, &base);
        let after = evaluate(&engine, &permuted);
        let mut failures = evidence_failures(name, &permuted, &after);
        for (n, (b, o)) in before.iter().zip(&after).enumerate() {
            if let Some(why) = same_answer(&base[n], b, o, 1.0, 1e-4) {
                failures.push(format!("{name} case {n}: {why}"));
            }
        }
        assert_none("permutation", &failures);
    }
}

#[test]
fn adding_a_generator_never_loses_support() {
    let base: Vec<Case> = family(76, 3000)
        .into_iter()
        .filter(|c| c.active_mask.count_ones() < MAX_GENERATORS as u32)
        .collect();
    let mut rng = Rng::new(8);
    let grown: Vec<Case> = base
        .iter()
        .map(|case| {
            let mut gens: Vec<[f32; 3]> = case.active_generators().map(|(_, g)| g).collect();
            gens.insert(rng.below(gens.len() + 1), rng.vector());
            Case::new(&gens, case.need).unwrap()
        })
        .collect();
    for (name, engine) in crate::common::engines() {
        let before = evaluate(&engine, &base);
        let after = evaluate(&engine, &grown);
        let mut failures = evidence_failures(name, &grown, &after);
        for (n, (b, o)) in before.iter().zip(&after).enumerate() {
            if b.verdict() == Verdict::Supported && o.verdict() == Verdict::Unsupported {
                failures.push(format!("{name} case {n}: supported became unsupported"));
            }
            let size = (b.margin.abs() as f64).max(norm(wide(base[n].need)));
            if (o.margin as f64) < b.margin as f64 - 1e-4 * size {
                failures.push(format!(
                    "{name} case {n}: margin {} fell to {}",
                    b.margin, o.margin
                ));
            }
        }
        assert_none("adding a generator", &failures);
    }
}

// ------------------------------------------------------------------ thin cones

/// Cones of 16 generators within `spread` radians of one axis, each at its own scale, with
/// needs inside (non-negative combinations), on the axis, and outside.
fn thin_cones(seed: u64, n: usize) -> Vec<(Case, bool)> {
    let mut rng = Rng::new(seed);
    let spreads = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6];
    (0..n)
        .map(|t| {
            let spread = spreads[t % spreads.len()];
            let axis = rng.vector().map(f64::from);
            let gens: Vec<V> = (0..MAX_GENERATORS)
                .map(|_| {
                    let v = rng.vector().map(f64::from);
                    let s = 10f64.powi(rng.below(7) as i32 - 3);
                    [0, 1, 2].map(|k| s * (axis[k] + spread * v[k]))
                })
                .collect();
            let (need, inside): (V, bool) = match rng.below(3) {
                0 => {
                    let (i, j) = (rng.below(16), rng.below(16));
                    let (a, b) = (rng.unit() as f64, rng.unit() as f64);
                    ([0, 1, 2].map(|k| a * gens[i][k] + b * gens[j][k]), true)
                }
                1 => (axis.map(|x| -x), false),
                _ => {
                    let v = rng.vector().map(f64::from);
                    ([0, 1, 2].map(|k| axis[k] + 0.5 * v[k]), false)
                }
            };
            let narrow = |v: V| v.map(|x| x as f32);
            let gens: Vec<[f32; 3]> = gens.into_iter().map(narrow).collect();
            (Case::new(&gens, narrow(need)).unwrap(), inside)
        })
        .collect()
}

#[test]
fn thin_cones_give_only_proofs_that_check_out() {
    let family = thin_cones(77, 3000);
    let cases: Vec<Case> = family.iter().map(|(c, _)| *c).collect();
    for (name, engine) in crate::common::engines() {
        let outcomes = evaluate(&engine, &cases);
        let mut failures = evidence_failures(name, &cases, &outcomes);
        let mut answered = 0;
        for (k, ((_, inside), o)) in family.iter().zip(&outcomes).enumerate() {
            if *inside && o.verdict() == Verdict::Unsupported {
                failures.push(format!(
                    "{name} case {k}: a need inside the cone is unsupported"
                ));
            }
            answered += usize::from(o.verdict() != Verdict::Uncertain);
        }
        assert_none("thin cones", &failures);
        // Uncertain only near the boundary, which the thinnest cones are everywhere.
        assert!(
            answered > cases.len() / 2,
            "{name}: only {answered} certain answers"
        );
    }
}

// ------------------------------------------------------------------ reproductions of scale failures once found

/// The flat box of docs/contract-planar.md §6 at μ = 0.2 (corners A₊, A₋, B₊, B₋).
const FLAT_BOX: [[f32; 3]; 4] = [
    [0.2, 1.0, 0.8],
    [-0.2, 1.0, 1.2],
    [0.2, 1.0, -1.2],
    [-0.2, 1.0, -0.8],
];

fn times(g: [f32; 3], s: f32) -> [f32; 3] {
    g.map(|v| v * s)
}

#[test]
fn issue_reproductions_through_the_api() {
    let gravity = [0.0, 1.0, 0.0];
    let case = |g: &[[f32; 3]], need: [f32; 3]| Case::new(g, need).unwrap();
    let box_at = |s: [f32; 4]| {
        let g: Vec<[f32; 3]> = FLAT_BOX.iter().zip(s).map(|(g, s)| times(*g, s)).collect();
        g
    };
    let sliding = 0.2 / 1.04f64.sqrt();
    for (name, engine) in crate::common::engines() {
        let run = |c: Case| {
            let o = evaluate(&engine, &[c])[0];
            check_evidence(&c, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
            o
        };
        // Nothing points along +y.
        let o = run(case(&[[1.0, 0.0, 0.0]], [0.0, 2e19, 0.0]));
        assert_eq!(o.verdict(), Verdict::Unsupported, "{name} n");
        assert_eq!(o.margin, -2e19, "{name} n");
        // No contacts at all.
        let o = run(case(&[], [0.0, 1e-23, 0.0]));
        assert_eq!(o.verdict(), Verdict::Unsupported, "{name} e");
        assert_eq!(o.margin, -1e-23, "{name} e");
        // The flat box × 1e20 and with per-generator scales: supported, margin 0.196.
        for s in [[1e20; 4], [1e-20, 1e20, 1e-20, 1e20]] {
            let o = run(case(&box_at(s), gravity));
            assert_eq!(o.verdict(), Verdict::Supported, "{name} {s:?}");
            assert!(
                (o.margin as f64 - sliding).abs() < 1e-6,
                "{name} {s:?}: {}",
                o.margin
            );
            let w = o.witness().unwrap();
            assert_eq!(w.indices, [0, 3], "{name}");
            for (&i, &l) in w.indices.iter().zip(&w.weights) {
                let expected = 0.5 / s[i as usize] as f64;
                assert!((l - expected).abs() < 1e-6 * expected, "{name} {s:?}: {l}");
            }
        }
        // The flat box with need and generators × 1e13, 1e10, 1e-30: supported, margin
        // 0.196 × the scale (capped at 1000).
        for s in [1e13f32, 1e10, 1e-30] {
            let o = run(case(&box_at([s; 4]), times(gravity, s)));
            assert_eq!(o.verdict(), Verdict::Supported, "{name} ×{s}");
            let expected = (sliding * s as f64).min(1000.0);
            assert!(
                (o.margin as f64 - expected).abs() < 1e-5 * expected,
                "{name} ×{s}: {}",
                o.margin
            );
        }
        // 16 nearly parallel generators (pairwise angle ~1e-4), the need inside.
        let gens: Vec<[f32; 3]> = (0..16)
            .map(|k| {
                let a = 1e-4 * k as f32;
                [a.cos(), a.sin(), 1.0]
            })
            .collect();
        let inside = [0, 1, 2].map(|k| gens[0][k] + gens[15][k]);
        let o = run(case(&gens, inside));
        assert_ne!(o.verdict(), Verdict::Unsupported, "{name} thin cone");
    }
}

#[test]
fn issue_reproductions_through_the_cli() {
    let dir = std::env::temp_dir().join(format!("planar-hold-issue7-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("repro.jsonl");
    std::fs::write(
        &input,
        concat!(
            r#"{"id":"n","generators":[[1,0,0]],"need":[0,2e19,0]}"#, "\n",
            r#"{"id":"e","generators":[],"need":[0,1e-23,0]}"#, "\n",
            r#"{"id":"b20","generators":[[2e19,1e20,8e19],[-2e19,1e20,1.2e20],[2e19,1e20,-1.2e20],[-2e19,1e20,-8e19]]}"#, "\n",
            r#"{"id":"m","generators":[[2e-21,1e-20,8e-21],[-2e19,1e20,1.2e20],[2e-21,1e-20,-1.2e-20],[-2e19,1e20,-8e19]]}"#, "\n",
        ),
    )
    .unwrap();
    let mut backends = vec!["cpu"];
    if crate::common::gpu_engine().is_some() {
        backends.push("gpu");
    }
    for backend in backends {
        let out = crate::common::cli()
            .args(["eval", "--backend", backend])
            .arg(&input)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let verdicts: Vec<&str> = lines
            .iter()
            .map(|l| l["verdict"].as_str().unwrap())
            .collect();
        assert_eq!(
            verdicts,
            ["unsupported", "unsupported", "supported", "supported"],
            "{backend}"
        );
        for l in &lines[2..] {
            let m = l["margin"].as_f64().unwrap();
            assert!((m - 0.19612).abs() < 1e-5, "{backend}: {l}");
        }
        assert_eq!(lines[0]["margin"].as_f64(), Some(-2e19), "{backend}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

// ------------------------------------------------------------------ the gate

use crate::common::planar_reports;
use planar_hold::details::scene::parse_planar;
use planar_hold::HoldReport;
use serde_json::{json, Value};

/// Where a contact lies: `(pair, p0, p1, inward normal)`.
type Placement = (u32, [f64; 2], [f64; 2], [f64; 2]);

/// A scene line: contacts `(placement, mu)` on a box of half-size `half`.
fn scene_line(half: f64, mass: [f64; 2], com: [f64; 2], contacts: &[(Placement, Value)]) -> Value {
    let contacts: Vec<Value> = contacts
        .iter()
        .map(|((pair, p0, p1, n), mu)| json!({"pair": pair, "p0": p0, "p1": p1, "normal": n, "mu": mu}))
        .collect();
    json!({"id": "t", "half_size": half, "mass": {"nominal": 1.0, "range": mass},
           "com_offset_x": com, "contacts": contacts})
}

fn gate(engine: &Engine, lines: &[Value]) -> Vec<HoldReport> {
    let scenes: Vec<_> = lines
        .iter()
        .map(|l| parse_planar(&l.to_string()).expect("valid scene"))
        .collect();
    planar_reports(engine, &scenes, planar_hold::Options::default()).expect("hold reports")
}

/// Random scenes of 1–4 contacts (points or segments) on the box's faces, with a random
/// mass and centre-of-mass box, at friction `mu` everywhere.
fn random_scenes(seed: u64, n: usize) -> Vec<Box<dyn Fn(Value, f64) -> Value>> {
    let mut rng = Rng::new(seed);
    let faces = [
        ([0.0, 1.0], 0usize),
        ([0.0, -1.0], 0),
        ([1.0, 0.0], 1),
        ([-1.0, 0.0], 1),
    ];
    (0..n)
        .map(|_| {
            let half = 10f64.powi(rng.below(5) as i32 - 2) * (0.5 + rng.unit() as f64);
            let count = 1 + rng.below(4);
            let contacts: Vec<Placement> = (0..count)
                .map(|pair| {
                    let (normal, along) = faces[rng.below(4)];
                    let mut p0 = [0.0; 2];
                    p0[1 - along] = -normal[1 - along] * half;
                    let mut p1 = p0;
                    p0[along] = rng.range(-1.0, 1.0) as f64 * half;
                    p1[along] = if rng.below(2) == 0 {
                        p0[along]
                    } else {
                        rng.range(-1.0, 1.0) as f64 * half
                    };
                    (pair as u32, p0, p1, normal)
                })
                .collect();
            let m = 0.5 + rng.unit() as f64;
            let mass = [m, m * (1.0 + 0.2 * rng.unit() as f64)];
            let x = rng.range(-0.5, 0.5) as f64 * half;
            let com = [x, x + 0.1 * half * rng.unit() as f64];
            Box::new(move |mu: Value, scale: f64| {
                let c: Vec<_> = contacts
                    .iter()
                    .map(|&(pair, p0, p1, n)| {
                        let at = |p: [f64; 2]| p.map(|v| v * scale);
                        ((pair, at(p0), at(p1), n), mu.clone())
                    })
                    .collect();
                scene_line(half * scale, mass, com.map(|v| v * scale), &c)
            }) as Box<dyn Fn(Value, f64) -> Value>
        })
        .collect()
}

const MUS: [f64; 12] = [
    0.05, 0.2, 0.5, 1.0, 3.0, 10.0, 99.0, 100.0, 1e3, 1e5, 1e6, 1e30,
];

#[test]
fn more_friction_never_unholds() {
    let floor = |mu: Value| {
        [
            scene_line(
                1.0,
                [1.0, 1.0],
                [0.0, 0.0],
                &[((0, [-1.0, -1.0], [1.0, -1.0], [0.0, 1.0]), mu.clone())],
            ),
            scene_line(
                1.0,
                [1.0, 1.0],
                [0.0, 0.0],
                &[
                    ((0, [-1.0, -1.0], [-1.0, -1.0], [0.0, 1.0]), mu.clone()),
                    ((1, [1.0, -1.0], [1.0, -1.0], [0.0, 1.0]), mu),
                ],
            ),
        ]
    };
    let scenes = random_scenes(78, 400);
    for (name, engine) in crate::common::engines() {
        // docs/contract-planar.md §6's flat box, as a segment and as two corners: held for every μ ≥ 0.2.
        for mu in MUS
            .iter()
            .filter(|&&m| m >= 0.2)
            .map(|&m| json!(m))
            .chain([json!([1e6, 1e9])])
        {
            for r in gate(&engine, &floor(mu.clone())) {
                assert!(
                    r.held,
                    "{name}: flat box at mu {mu} not held: {:?}",
                    r.reason
                );
                assert!(
                    r.robust_margin >= 0.19,
                    "{name}: mu {mu}: {}",
                    r.robust_margin
                );
            }
        }
        let lines: Vec<Value> = scenes
            .iter()
            .flat_map(|s| MUS.map(|mu| s(json!(mu), 1.0)))
            .collect();
        let reports = gate(&engine, &lines);
        let mut failures = Vec::new();
        let mut held = 0;
        for (n, ladder) in reports.chunks(MUS.len()).enumerate() {
            for (k, pair) in ladder.windows(2).enumerate() {
                let (a, b) = (&pair[0], &pair[1]);
                held += usize::from(b.held);
                if a.held && !b.held {
                    failures.push(format!(
                        "{name} scene {n}: held at mu {} but not at {}: {:?}",
                        MUS[k],
                        MUS[k + 1],
                        b.reason
                    ));
                }
                let size = a.robust_margin.abs().max(1.0);
                if b.robust_margin < a.robust_margin - 1e-4 * size {
                    failures.push(format!(
                        "{name} scene {n}: margin {} at mu {} fell to {} at {}",
                        a.robust_margin,
                        MUS[k],
                        b.robust_margin,
                        MUS[k + 1]
                    ));
                }
            }
        }
        assert_none("raising mu", &failures);
        assert!(held > lines.len() / 4, "{name}: only {held} held");
    }
}

#[test]
fn units_of_length_and_mass_change_no_answer() {
    let scenes = random_scenes(79, 300);
    let scales = [1.0, 1e-12, 1e-6, 2f64.powi(-40), 1e6, 1e12];
    for (name, engine) in crate::common::engines() {
        let lines: Vec<Value> = scenes
            .iter()
            .flat_map(|s| scales.map(|k| s(json!(0.6), k)))
            .collect();
        let reports = gate(&engine, &lines);
        let mut failures = Vec::new();
        for (n, group) in reports.chunks(scales.len()).enumerate() {
            let base = &group[0];
            for (r, k) in group.iter().zip(scales).skip(1) {
                // ℓ and positions scaled together: the same dimensionless generators and needs.
                let far = base.robust_margin.abs() > 1e-3;
                if far && r.held != base.held {
                    failures.push(format!(
                        "{name} scene {n} × {k}: held {} became {}",
                        base.held, r.held
                    ));
                }
                if (r.robust_margin - base.robust_margin).abs()
                    > 1e-4 * base.robust_margin.abs().max(1.0)
                {
                    failures.push(format!(
                        "{name} scene {n} × {k}: margin {} became {}",
                        base.robust_margin, r.robust_margin
                    ));
                }
            }
        }
        assert_none("half_size scaling", &failures);
    }
}

#[test]
fn extreme_masses_and_offsets_follow_spec() {
    let corner = |mass: [f64; 2], com: [f64; 2]| {
        scene_line(
            1.0,
            mass,
            com,
            &[((0, [-1.0, -1.0], [-1.0, -1.0], [0.0, 1.0]), json!(0.5))],
        )
    };
    let flat = |mass: [f64; 2], com: [f64; 2]| {
        scene_line(
            1.0,
            mass,
            com,
            &[((0, [-1.0, -1.0], [1.0, -1.0], [0.0, 1.0]), json!(0.5))],
        )
    };
    // Four walls pinch the box: the cone fills R³, held whatever the load.
    let pinched = |mass: [f64; 2], com: [f64; 2]| {
        let mu = json!(0.5);
        scene_line(
            1.0,
            mass,
            com,
            &[
                ((0, [-1.0, -1.0], [1.0, -1.0], [0.0, 1.0]), mu.clone()),
                ((1, [-1.0, 1.0], [1.0, 1.0], [0.0, -1.0]), mu.clone()),
                ((2, [-1.0, -1.0], [-1.0, 1.0], [1.0, 0.0]), mu.clone()),
                ((3, [1.0, -1.0], [1.0, 1.0], [-1.0, 0.0]), mu),
            ],
        )
    };
    // A need beyond float32 (mass × offset / ℓ ≈ 2e49) is refused, naming the cause.
    let refused = parse_planar(&corner([1e30, 1e30], [2e19, 2e19]).to_string())
        .unwrap_err()
        .to_string();
    assert!(refused.contains("not finite in float32"), "{refused}");
    for (name, engine) in crate::common::engines() {
        for mass in [[1e-20, 1e-20], [1e-30, 1e18], [1e18, 1e18]] {
            for com in [[0.0, 0.0], [2e19, 2e19], [-2e19, 3e-19]] {
                let lines = [corner(mass, com), flat(mass, com), pinched(mass, com)];
                let r = gate(&engine, &lines);
                let what = format!("{name} mass {mass:?} com {com:?}");
                assert!(!r[0].held, "{what}: a lone corner holds");
                assert!(
                    r[0].robust_margin < 0.0 && !r[0].uncertain,
                    "{what}: {:?}",
                    r[0].reason
                );
                // The floor segment holds while the centre of mass is over it, by a margin
                // that scales with the mass; past it, it is certified not to.
                let over = com.iter().all(|x| x.abs() < 1.0);
                assert_eq!(r[1].held, over, "{what}: segment {:?}", r[1].reason);
                if over && mass[0] == mass[1] {
                    let expected = (0.5 / 1.25f64.sqrt() * mass[0]).min(1000.0);
                    assert!(
                        (r[1].robust_margin as f64 - expected).abs() < 1e-5 * expected,
                        "{what}: {}",
                        r[1].robust_margin
                    );
                }
                assert!(r[2].held, "{what}: pinched box not held: {:?}", r[2].reason);
                assert!(
                    r[2].robust_margin >= 999.0,
                    "{what}: {}",
                    r[2].robust_margin
                );
                for report in &r {
                    for need in &report.needs {
                        assert!(need.margin.is_finite(), "{what}: margin {}", need.margin);
                    }
                }
            }
        }
    }
}
