//! The general cone test (docs/contract-general.md) on the CPU: the public cases against their
//! independently computed answers, every proof re-checked here in float64 (not by the
//! engine's own checks), and the invariants the math promises over random and degenerate
//! cones: scaling, per-generator scaling, permutation, duplication, generators added inside
//! or anywhere, the planar embedding, and agreement with the planar enumeration.

use planar_hold::details::solver::Solver;
use planar_hold::{Case, Verdict};
use planar_hold::{GeneralCase, GeneralOutcome};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

fn data(name: &str) -> std::path::PathBuf {
    crate::common::data(name)
}

fn read_jsonl(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (the public cases in tests/data)", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn nrm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// A case owned: dimension, flat generators, need.
#[derive(Clone, Debug)]
struct Owned {
    d: usize,
    gens: Vec<f64>,
    need: Vec<f64>,
}

impl Owned {
    fn k(&self) -> usize {
        self.gens.len() / self.d
    }
    fn g(&self, i: usize) -> &[f64] {
        &self.gens[i * self.d..(i + 1) * self.d]
    }
    fn solve(&self, solver: &mut Solver) -> GeneralOutcome {
        solver.solve(&GeneralCase::new(self.d, &self.gens, &self.need).unwrap())
    }
}

/// The grader's witness rule, written again here: at most d distinct indices, weights
/// ≥ −1e-9 scale, residual ≤ 1e-7 scale.
fn witness_valid(c: &Owned, idx: &[u32], w: &[f64]) -> Result<(), String> {
    let s = nrm(&c.need);
    if idx.is_empty() {
        return if s == 0.0 {
            Ok(())
        } else {
            Err("empty witness".into())
        };
    }
    if idx.len() > c.d {
        return Err(format!("{} generators", idx.len()));
    }
    let mut r = c.need.clone();
    let mut tot = 0.0;
    for (&i, &l) in idx.iter().zip(w) {
        let g = c.g(i as usize);
        tot += l.abs() * nrm(g);
        for a in 0..c.d {
            r[a] -= l * g[a];
        }
    }
    let sc = s.max(tot);
    for (&i, &l) in idx.iter().zip(w) {
        if l * nrm(c.g(i as usize)) < -1e-9 * sc {
            return Err(format!("negative weight {l}"));
        }
    }
    if nrm(&r) > 1e-7 * sc {
        return Err(format!("residual {} of scale {sc}", nrm(&r)));
    }
    Ok(())
}

fn certificate_valid(c: &Owned, y: &[f64]) -> Result<(), String> {
    let ny = nrm(y);
    for i in 0..c.k() {
        let g = c.g(i);
        let s: f64 = y.iter().zip(g).map(|(a, b)| a * b).sum();
        if s < -1e-7 * ny * nrm(g) {
            return Err(format!("y·w{i} = {s}"));
        }
    }
    let s: f64 = y.iter().zip(&c.need).map(|(a, b)| a * b).sum();
    if s.is_nan() || s >= 0.0 {
        return Err(format!("y·need = {s}"));
    }
    Ok(())
}

/// Every proof of an outcome, checked here.
fn proofs_valid(c: &Owned, o: &GeneralOutcome) -> Result<(), String> {
    match o.verdict {
        Verdict::Supported => {
            let (i, w) = o.witness().unwrap();
            witness_valid(c, i, w)
        }
        Verdict::Unsupported => {
            certificate_valid(c, &o.certificate.ok_or("no certificate")?[..c.d])
        }
        Verdict::Uncertain => Ok(()),
    }?;
    if !o.margin.is_finite() || o.margin > 1000.0 {
        return Err(format!("margin {}", o.margin));
    }
    Ok(())
}

fn owned_of(v: &Value) -> Owned {
    let need: Vec<f64> = serde_json::from_value(v["need"].clone()).unwrap();
    let gens: Vec<Vec<f64>> = serde_json::from_value(v["generators"].clone()).unwrap();
    Owned {
        d: need.len(),
        gens: gens.concat(),
        need,
    }
}

#[test]
fn public_cases_match_their_answers() {
    let cases = read_jsonl(&data("general_public.jsonl"));
    let expected = read_jsonl(&data("general_public.expected.jsonl"));
    let mut solver = Solver::new();
    let mut failures = Vec::new();
    for (c, e) in cases.iter().zip(&expected) {
        assert_eq!(c["id"], e["id"]);
        let case = owned_of(c);
        let o = case.solve(&mut solver);
        let id = c["id"].as_str().unwrap_or("?").to_string();
        let s = nrm(&case.need);
        let dexp = e["d"].as_f64().unwrap();
        let full = e["full"].as_bool().unwrap();
        let amb = e["amb"].as_bool().unwrap_or(false);
        if let Err(why) = proofs_valid(&case, &o) {
            failures.push(format!("{id}: proof: {why}"));
        }
        let must_support = full || s == 0.0 || dexp > 1e-6 * s;
        let must_refute = !full && s > 0.0 && dexp < -1e-6 * s;
        if !amb {
            if must_support && o.verdict != Verdict::Supported {
                failures.push(format!(
                    "{id}: {:?}, expected supported (d = {dexp})",
                    o.verdict
                ));
            }
            if must_refute && o.verdict != Verdict::Unsupported {
                failures.push(format!(
                    "{id}: {:?}, expected unsupported (d = {dexp})",
                    o.verdict
                ));
            }
        }
        let want = if full { 1000.0 } else { dexp.min(1000.0) };
        let tol = if amb { 1e-4 } else { 1e-6 } * s.max(dexp.abs());
        let alt_ok = e["alt"].as_array().is_some_and(|alts| {
            alts.iter().any(|a| {
                let ad = a["d"].as_f64().unwrap();
                let wa = if a["full"].as_bool().unwrap() {
                    1000.0
                } else {
                    ad.min(1000.0)
                };
                (o.margin - wa).abs() <= 1e-4 * s.max(ad.abs())
            })
        });
        if (o.margin - want).abs() > tol && !(amb && alt_ok) {
            failures.push(format!("{id}: margin {} expected {want}", o.margin));
        }
        if o.capped != full && !amb {
            failures.push(format!("{id}: capped {} full {full}", o.capped));
        }
        let b = &e["binding"];
        if o.verdict == Verdict::Supported && b["unique"].as_bool() == Some(true) && !amb && !full {
            let nonzero = |i: u32| nrm(case.g(i as usize)) > 0.0;
            let mut want: Vec<u32> = serde_json::from_value(b["generators"].clone()).unwrap();
            want.retain(|&i| nonzero(i));
            let got: Vec<u32> = o
                .facet
                .map(|f| f.generators.iter().filter(|&i| nonzero(i)).collect())
                .unwrap_or_default();
            if got != want {
                failures.push(format!("{id}: facet {got:?} expected {want:?}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} public cases wrong:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------------------------ random families

fn unit(rng: &mut StdRng, d: usize) -> Vec<f64> {
    loop {
        let v: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let n = nrm(&v);
        if n > 0.1 && n <= 1.0 {
            return v.iter().map(|x| x / n).collect();
        }
    }
}

/// A random case of one of the families contact problems produce: pointed cones around a
/// direction (narrow or wide), cones in a subspace (rank-deficient), cones holding a line
/// (non-pointed), half-spaces, duplicated and zero generators; needs inside, outside, near
/// the boundary and zero.
fn random_case(rng: &mut StdRng, d: usize) -> Owned {
    let k = rng.random_range(1..=40);
    let axis = unit(rng, d);
    let family = rng.random_range(0..6);
    let mut gens = Vec::new();
    let spread = if rng.random_bool(0.5) { 0.3 } else { 1.2 };
    let basis: Vec<Vec<f64>> = (0..d - 1).map(|_| unit(rng, d)).collect();
    for _ in 0..k {
        let mut g: Vec<f64> = match family {
            // in a subspace of dimension d−1 or less
            1 => {
                let r = rng.random_range(1..d);
                let mut v = vec![0.0; d];
                for b in &basis[..r] {
                    let c = rng.random_range(-1.0..1.0);
                    for a in 0..d {
                        v[a] += c * b[a];
                    }
                }
                v
            }
            _ => {
                let u = unit(rng, d);
                (0..d).map(|a| axis[a] + spread * u[a]).collect()
            }
        };
        let scale = 10f64.powf(rng.random_range(-2.0..2.0));
        for x in &mut g {
            *x *= scale;
        }
        gens.push(g);
    }
    match family {
        2 => {
            // holds a line
            let l = unit(rng, d);
            gens.push(l.clone());
            gens.push(l.iter().map(|x| -x).collect());
        }
        3 => {
            // a half-space: a basis of the plane, both signs, and the normal
            let n = unit(rng, d);
            gens.clear();
            let mut b = crate::basis::Basis::new(d);
            b.push(&n, 1e-12);
            for _ in 0..d * 3 {
                let u = unit(rng, d);
                let r = b.residual(&u);
                gens.push(r[..d].to_vec());
                gens.push(r[..d].iter().map(|x| -x).collect());
            }
            gens.push(n.clone());
        }
        4 => {
            // duplicates and zero generators
            let copies: Vec<Vec<f64>> = gens.iter().take(3).cloned().collect();
            for c in copies {
                gens.push(c.iter().map(|x| x * 2.5).collect());
            }
            gens.push(vec![0.0; d]);
        }
        _ => {}
    }
    gens.truncate(256);
    let need: Vec<f64> = match rng.random_range(0..5) {
        0 => vec![0.0; d],
        1 => axis.clone(),
        2 => {
            // a positive combination of a few generators: inside or on a face
            let mut v = vec![0.0; d];
            for _ in 0..rng.random_range(1..4) {
                let g = &gens[rng.random_range(0..gens.len())];
                let c = rng.random_range(0.1..2.0);
                for a in 0..d {
                    v[a] += c * g[a];
                }
            }
            v
        }
        _ => unit(rng, d),
    };
    Owned {
        d,
        gens: gens.concat(),
        need,
    }
}

/// Whether two outcomes of the same cone (up to what the invariant changes) agree within
/// the general test's tolerance (docs/contract-general.md §6); near the boundary either verdict may be uncertain.
fn agree(a: &GeneralOutcome, b: &GeneralOutcome, s: f64, what: &str) -> Result<(), String> {
    let tol = 1e-7 * s.max(a.margin.abs()).max(b.margin.abs()).max(1e-300);
    let decisive = a.margin.abs() > 1e-6 * s && b.margin.abs() > 1e-6 * s;
    if decisive && a.verdict != b.verdict {
        return Err(format!(
            "{what}: verdict {:?} vs {:?} (margins {} {})",
            a.verdict, b.verdict, a.margin, b.margin
        ));
    }
    if (a.margin - b.margin).abs() > tol {
        return Err(format!("{what}: margin {} vs {}", a.margin, b.margin));
    }
    if a.capped != b.capped {
        return Err(format!("{what}: capped {} vs {}", a.capped, b.capped));
    }
    Ok(())
}

fn check_all(results: Vec<Result<(), String>>) {
    let bad: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}

#[test]
fn every_proof_passes_on_random_and_degenerate_cases() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut solver = Solver::new();
    let mut results = Vec::new();
    let mut verdicts = [0usize; 3];
    for n in 0..3000 {
        let d = if n % 2 == 0 { 3 } else { 6 };
        let c = random_case(&mut rng, d);
        let o = c.solve(&mut solver);
        verdicts[o.verdict as usize] += 1;
        results.push(proofs_valid(&c, &o).map_err(|e| format!("case {n}: {e} {c:?}")));
    }
    check_all(results);
    // The families reach every verdict; uncertain stays rare.
    assert!(verdicts[0] > 300 && verdicts[1] > 300, "{verdicts:?}");
    assert!(verdicts[2] < 30, "{verdicts:?}");
}

#[test]
fn scaling_the_whole_case_scales_the_margin() {
    let mut rng = StdRng::seed_from_u64(2);
    let mut solver = Solver::new();
    let mut results = Vec::new();
    for n in 0..600 {
        let d = if n % 2 == 0 { 3 } else { 6 };
        let c = random_case(&mut rng, d);
        let base = c.solve(&mut solver);
        for exp in [-30, -7, 9, 30] {
            let f = 10f64.powi(exp);
            let scaled = Owned {
                d,
                gens: c.gens.iter().map(|x| x * f).collect(),
                need: c.need.iter().map(|x| x * f).collect(),
            };
            let mut o = scaled.solve(&mut solver);
            results.push(proofs_valid(&scaled, &o).map_err(|e| format!("case {n} ×1e{exp}: {e}")));
            if !o.capped {
                o.margin /= f;
            }
            // (a scaled margin beyond 1000 is reported as 1000)
            if base.margin.abs() < 999.0 && base.margin * f < 999.0 {
                results.push(agree(
                    &base,
                    &o,
                    nrm(&c.need),
                    &format!("case {n} ×1e{exp}"),
                ));
            }
        }
    }
    check_all(results);
}

#[test]
fn scaling_permuting_and_duplicating_generators_changes_nothing_but_indices() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut solver = Solver::new();
    let mut results = Vec::new();
    for n in 0..600 {
        let d = if n % 2 == 0 { 3 } else { 6 };
        let c = random_case(&mut rng, d);
        let s = nrm(&c.need);
        let base = c.solve(&mut solver);
        let k = c.k();
        // per-generator scaling
        let mut scaled = c.clone();
        for i in 0..k {
            let f = 10f64.powf(rng.random_range(-6.0..6.0));
            for a in 0..d {
                scaled.gens[i * d + a] *= f;
            }
        }
        let o = scaled.solve(&mut solver);
        results.push(proofs_valid(&scaled, &o).map_err(|e| format!("case {n} per-generator: {e}")));
        results.push(agree(
            &base,
            &o,
            s,
            &format!("case {n} per-generator scaling"),
        ));
        // a permutation, and the facet's generators permuted with it
        let mut perm: Vec<usize> = (0..k).collect();
        for i in (1..k).rev() {
            perm.swap(i, rng.random_range(0..=i));
        }
        let permuted = Owned {
            d,
            gens: perm.iter().flat_map(|&i| c.g(i).to_vec()).collect(),
            need: c.need.clone(),
        };
        let o = permuted.solve(&mut solver);
        results.push(agree(&base, &o, s, &format!("case {n} permuted")));
        if let (Some(fa), Some(fb)) = (base.facet, o.facet) {
            if base.verdict == Verdict::Supported && o.verdict == Verdict::Supported {
                // the same facet unless two tie
                let mapped: Vec<u32> = {
                    let mut v: Vec<u32> = fb
                        .generators
                        .iter()
                        .map(|j| perm[j as usize] as u32)
                        .collect();
                    v.sort();
                    v
                };
                let orig: Vec<u32> = fa.generators.iter().collect();
                let va: f64 = fa.normal[..d].iter().zip(&c.need).map(|(a, b)| a * b).sum();
                let vb: f64 = fb.normal[..d].iter().zip(&c.need).map(|(a, b)| a * b).sum();
                if mapped != orig && (va - vb).abs() > 1e-9 * s {
                    results.push(Err(format!(
                        "case {n} permuted: facet {mapped:?} vs {orig:?}"
                    )));
                }
            }
        }
        // every generator twice, the copy scaled
        let mut doubled = c.clone();
        doubled.gens.extend(c.gens.iter().map(|x| x * 3.0));
        if doubled.k() <= 256 {
            let o = doubled.solve(&mut solver);
            results.push(proofs_valid(&doubled, &o).map_err(|e| format!("case {n} doubled: {e}")));
            results.push(agree(&base, &o, s, &format!("case {n} duplicated")));
        }
    }
    check_all(results);
}

#[test]
fn adding_a_generator_never_lowers_the_margin_and_one_inside_changes_nothing() {
    let mut rng = StdRng::seed_from_u64(4);
    let mut solver = Solver::new();
    let mut results = Vec::new();
    for n in 0..800 {
        let d = if n % 2 == 0 { 3 } else { 6 };
        let c = random_case(&mut rng, d);
        if c.k() >= 256 {
            continue;
        }
        let s = nrm(&c.need);
        let base = c.solve(&mut solver);
        // any generator: C grows, the margin never falls
        let mut more = c.clone();
        more.gens.extend(unit(&mut rng, d));
        let o = more.solve(&mut solver);
        if o.margin < base.margin - 1e-7 * s.max(base.margin.abs()) {
            results.push(Err(format!(
                "case {n}: margin {} fell to {}",
                base.margin, o.margin
            )));
        }
        if base.verdict == Verdict::Supported && o.verdict == Verdict::Unsupported {
            results.push(Err(format!("case {n}: un-held by a generator")));
        }
        // a positive combination of generators: C is the same
        let mut inside = c.clone();
        let mut v = vec![0.0; d];
        for i in 0..c.k() {
            let w = rng.random_range(0.0..1.0);
            for (va, ga) in v.iter_mut().zip(c.g(i)) {
                *va += w * ga;
            }
        }
        inside.gens.extend(v);
        let o = inside.solve(&mut solver);
        results.push(agree(
            &base,
            &o,
            s,
            &format!("case {n} + a generator inside"),
        ));
    }
    check_all(results);
}

/// docs/contract-spatial.md §1: a planar case is the spatial one restricted to (f_x, f_z, τ_y/ℓ).
fn embed(v: &[f64]) -> Vec<f64> {
    vec![v[0], 0.0, v[1], 0.0, v[2], 0.0]
}

#[test]
fn the_planar_embedding_and_the_enumeration_agree_with_the_general_engine() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut solver = Solver::new();
    let mut results = Vec::new();
    for n in 0..2000 {
        let k = rng.random_range(1..=16);
        // planar contacts: friction rays at random points, as the planar tests build them
        let mut gens: Vec<[f32; 3]> = Vec::new();
        for _ in 0..k {
            let mu: f32 = rng.random_range(0.0..1.0);
            let x: f32 = rng.random_range(-1.0..1.0);
            let z: f32 = rng.random_range(-1.0..1.0);
            let (nx, nz) = if rng.random_bool(0.8) {
                (0.0f32, 1.0f32)
            } else {
                (1.0, 0.0)
            };
            let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let (fx, fz) = (nx + s * mu * nz, nz - s * mu * nx);
            gens.push([fx, fz, (z * fx - x * fz)]);
        }
        let need: [f32; 3] = if rng.random_bool(0.7) {
            [0.0, 1.0, rng.random_range(-0.5..0.5)]
        } else {
            [
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            ]
        };
        let planar = planar_hold::details::planar::cone_test(&Case::new(&gens, need).unwrap());
        let flat: Vec<f64> = gens.iter().flat_map(|g| g.map(f64::from)).collect();
        let need64: Vec<f64> = need.iter().map(|&x| f64::from(x)).collect();
        let s = nrm(&need64);
        let general = Owned {
            d: 3,
            gens: flat.clone(),
            need: need64.clone(),
        }
        .solve(&mut solver);
        let spatial = Owned {
            d: 6,
            gens: flat.chunks(3).flat_map(embed).collect(),
            need: embed(&need64),
        }
        .solve(&mut solver);
        // the enumeration decides in float32 to 1e-5: compare where both are decisive
        let pm = f64::from(planar.margin);
        if pm.abs() > 1e-4 * s && general.margin.abs() > 1e-4 * s {
            if planar.verdict() != general.verdict {
                results.push(Err(format!(
                    "case {n}: enumeration {:?} general {:?}",
                    planar.verdict(),
                    general.verdict
                )));
            }
            if (pm - general.margin).abs() > 2e-5 * s.max(pm.abs()) && pm < 999.0 {
                results.push(Err(format!(
                    "case {n}: enumeration margin {pm} general {}",
                    general.margin
                )));
            }
        }
        // the embedding: the same verdicts; the same margin outside
        if general.margin.abs() > 1e-6 * s {
            if general.verdict != spatial.verdict {
                results.push(Err(format!(
                    "case {n}: R³ {:?} R⁶ {:?}",
                    general.verdict, spatial.verdict
                )));
            }
            if general.verdict == Verdict::Unsupported
                && (general.margin - spatial.margin).abs() > 1e-7 * s
            {
                results.push(Err(format!(
                    "case {n}: outside margin R³ {} R⁶ {}",
                    general.margin, spatial.margin
                )));
            }
        }
    }
    check_all(results);
}

#[test]
fn empty_zero_and_whole_space_cones() {
    let mut solver = Solver::new();
    for d in [3usize, 6] {
        let need: Vec<f64> = (0..d).map(|a| if a == 2 { 1.0 } else { 0.0 }).collect();
        let zero = vec![0.0; d];
        // K = 0: C = {0}
        let o = Owned {
            d,
            gens: vec![],
            need: need.clone(),
        }
        .solve(&mut solver);
        assert_eq!(o.verdict, Verdict::Unsupported);
        assert!((o.margin + 1.0).abs() < 1e-12);
        let o = Owned {
            d,
            gens: vec![],
            need: zero.clone(),
        }
        .solve(&mut solver);
        assert_eq!(
            (o.verdict, o.margin, o.capped),
            (Verdict::Supported, 0.0, false)
        );
        // ±e_i: C = R^d, capped whatever the need
        let mut gens = Vec::new();
        for a in 0..d {
            for s in [1.0, -1.0] {
                let mut e = vec![0.0; d];
                e[a] = s;
                gens.extend(e);
            }
        }
        for n in [&need, &zero] {
            let o = Owned {
                d,
                gens: gens.clone(),
                need: n.clone(),
            }
            .solve(&mut solver);
            assert_eq!(
                (o.verdict, o.margin, o.capped),
                (Verdict::Supported, 1000.0, true)
            );
            assert!(o.facet.is_none());
        }
        // only zero generators: C = {0}
        let o = Owned {
            d,
            gens: vec![0.0; 4 * d],
            need: need.clone(),
        }
        .solve(&mut solver);
        assert_eq!(o.verdict, Verdict::Unsupported);
    }
}

/// A planar scene with five body pairs or more goes to the general engine: the same
/// scene with its contacts repeated (new pairs, the same contacts) is the same cone, so the
/// gate's answers agree with the enumeration's on the original.
#[test]
fn planar_scenes_of_five_pairs_or_more_are_decided_by_the_general_engine() {
    use crate::common::planar_reports;
    use planar_hold::details::scene::parse_planar;
    let text = std::fs::read_to_string(data("scenes_public.jsonl")).unwrap();
    let mut small = Vec::new();
    let mut grown = Vec::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        let Some(contacts) = v["contacts"].as_array().cloned() else {
            continue;
        };
        if contacts.is_empty() || parse_planar(line).is_err() {
            continue;
        }
        let mut more = contacts.clone();
        let mut pair = 100;
        while more.len() < 5 {
            for c in &contacts {
                let mut c = c.clone();
                c["pair"] = serde_json::json!(pair);
                pair += 1;
                more.push(c);
            }
        }
        small.push(parse_planar(line).unwrap());
        v["contacts"] = Value::Array(more);
        let scene = parse_planar(&v.to_string()).unwrap();
        assert!(scene.is_general());
        grown.push(scene);
    }
    assert!(small.len() > 20, "{} scenes", small.len());
    let engine = planar_hold::Engine::new(planar_hold::Backend::Cpu).unwrap();
    let a = planar_reports(&engine, &small, planar_hold::Options::default()).unwrap();
    let b = planar_reports(&engine, &grown, planar_hold::Options::default()).unwrap();
    let mut bad = Vec::new();
    for (x, y) in a.iter().zip(&b) {
        let tol = 2e-5 * 1f32.max(x.robust_margin.abs());
        let decisive = x.robust_margin.abs() > 1e-4;
        if decisive && (x.held != y.held || (x.robust_margin - y.robust_margin).abs() > tol) {
            bad.push(format!(
                "{}: held {} / {}, margin {} / {}",
                x.id, x.held, y.held, x.robust_margin, y.robust_margin
            ));
        }
        if !y.held && y.reason.is_none() {
            bad.push(format!("{}: not held without a reason", y.id));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The inside margin is the least `n·need` over every facet (each checked), on cones with
/// hundreds of facets.
#[test]
fn the_inside_margin_is_the_least_over_every_facet() {
    let mut solver = Solver::new();
    let mut held = 0;
    for (d, k) in [(3, 32), (3, 256), (6, 16), (6, 64), (6, 128)] {
        for cases in [
            planar_hold::details::sample::random_cases(15 + k as u64, 24, d, k),
            planar_hold::details::sample::contact_cases(16 + k as u64, 24, d, k),
        ] {
            for case in cases.iter() {
                let out = solver.solve(&case);
                if out.verdict != Verdict::Supported || out.capped || out.facet.is_none() {
                    continue;
                }
                held += 1;
                let s = case.need.iter().map(|v| v * v).sum::<f64>().sqrt();
                let (facets, _) = solver.facets_proven(&case);
                let least = facets
                    .iter()
                    .map(|f| (0..d).map(|a| f.normal[a] * case.need[a]).sum::<f64>())
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    (out.margin - least.min(1000.0)).abs() <= 1e-12 * s.max(1.0),
                    "d = {d}, K = {k}: margin {} against the least over {} facets {}",
                    out.margin,
                    facets.len(),
                    least
                );
            }
        }
    }
    assert!(held > 50, "{held} held cases");
}

/// One solver answers a cone's needs one after another from the rays and the shape (rank,
/// basis, whether it is all of R^d) it kept (a scene's needs): every answer equals a fresh
/// solver's, whatever came before — the same cone with other needs, a cone one bit away, a
/// cone of the other dimension, the cone with every generator's opposite added (all of
/// R^d where it spans it) and then the cone again.
#[test]
fn a_solver_reusing_a_cone_answers_as_a_fresh_one() {
    let mut rng = StdRng::seed_from_u64(77);
    let mut kept = Solver::new();
    let mut cases = Vec::new();
    for _ in 0..300 {
        let d = if rng.random_bool(0.7) { 6 } else { 3 };
        let c = random_case(&mut rng, d);
        for _ in 0..3 {
            let mut again = c.clone();
            again.need = unit(&mut rng, d);
            cases.push(again);
        }
        let mut nudged = c.clone();
        let i = rng.random_range(0..nudged.gens.len());
        nudged.gens[i] = f64::from_bits(nudged.gens[i].to_bits() ^ 1);
        cases.push(nudged);
        if rng.random_bool(0.3) {
            let mut both = c.clone();
            both.gens.extend(c.gens.iter().map(|v| -v));
            for _ in 0..2 {
                let mut again = both.clone();
                again.need = unit(&mut rng, d);
                cases.push(again);
            }
        }
        cases.push(c);
    }
    let results = cases
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let a = c.solve(&mut kept);
            let b = c.solve(&mut Solver::new());
            if a == b {
                Ok(())
            } else {
                Err(format!("case {n}: kept {a:?} fresh {b:?}"))
            }
        })
        .collect();
    check_all(results);
}
