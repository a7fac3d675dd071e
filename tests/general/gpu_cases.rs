//! The general GPU tests' cases and comparisons, shared by `tests/general/gpu.rs` and the
//! crate's unit tests of the search (`src/general/search_tests.rs`): random and public
//! batches, GPU against CPU with every proof re-checked. Each includer imports the names used
//! here (the engine's types, `solver::{witness, certificate}`, `data`, rand and serde_json).

use super::*;

pub(super) fn nrm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// General cases a GPU call answered, and how many of them the host searched on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stats {
    pub(super) cases: usize,
    pub(super) resolved: usize,
}

/// The general cases of `batch` through `engine`: their outcomes, and the call's counts.
pub(super) fn general_on(engine: &Engine, batch: &GeneralBatch) -> (Vec<GeneralOutcome>, Stats) {
    let answers = engine
        .evaluate(&Batch::from(batch.clone()), Options::default())
        .expect("gpu");
    let stats = Stats {
        cases: answers.searched,
        resolved: answers.resolved,
    };
    (answers.general, stats)
}

/// The public cases (`tests/data/general_public.jsonl`) in one batch.
pub(super) fn public_batch() -> GeneralBatch {
    let path = data("general_public.jsonl");
    let text = std::fs::read_to_string(&path).expect("general_public.jsonl");
    let mut batch = GeneralBatch::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let need: Vec<f64> = serde_json::from_value(v["need"].clone()).unwrap();
        let gens: Vec<Vec<f64>> = serde_json::from_value(v["generators"].clone()).unwrap();
        batch.push(need.len(), &gens.concat(), &need).unwrap();
    }
    assert!(batch.len() >= 300, "{} public cases", batch.len());
    batch
}

pub(super) fn unit(rng: &mut StdRng, d: usize) -> Vec<f64> {
    loop {
        let v: Vec<f64> = (0..d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let n = nrm(&v);
        if n > 0.1 && n <= 1.0 {
            return v.iter().map(|x| x / n).collect();
        }
    }
}

/// Random cases of the shapes contact problems produce, K from 1 to 256: pointed cones
/// (narrow or wide), cones in a subspace, cones holding a line, duplicates and zero
/// generators, scales over four decades; needs inside, on faces, outside and zero.
pub(super) fn random_batch(seed: u64, n: usize, d: usize) -> GeneralBatch {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut batch = GeneralBatch::default();
    for _ in 0..n {
        let k = *[4usize, 8, 16, 32, 64, 128, 256]
            .get(rng.random_range(0..7))
            .unwrap();
        let k = rng.random_range(1..=k);
        let axis = unit(&mut rng, d);
        let family = rng.random_range(0..5);
        let spread = if rng.random_bool(0.5) { 0.3 } else { 1.2 };
        let basis: Vec<Vec<f64>> = (0..d - 1).map(|_| unit(&mut rng, d)).collect();
        let mut gens: Vec<Vec<f64>> = Vec::new();
        for _ in 0..k {
            let mut g: Vec<f64> = if family == 1 {
                let r = rng.random_range(1..d);
                let mut v = vec![0.0; d];
                for b in &basis[..r] {
                    let c = rng.random_range(-1.0..1.0);
                    for a in 0..d {
                        v[a] += c * b[a];
                    }
                }
                v
            } else {
                let u = unit(&mut rng, d);
                (0..d).map(|a| axis[a] + spread * u[a]).collect()
            };
            let scale = 10f64.powf(rng.random_range(-2.0..2.0));
            g.iter_mut().for_each(|x| *x *= scale);
            gens.push(g);
        }
        if family == 2 {
            let l = unit(&mut rng, d);
            gens.push(l.iter().map(|x| -x).collect());
            gens.push(l);
        }
        if family == 3 {
            let copies: Vec<Vec<f64>> = gens.iter().take(3).cloned().collect();
            for c in copies {
                gens.push(c.iter().map(|x| x * 2.5).collect());
            }
            gens.push(vec![0.0; d]);
        }
        gens.truncate(256);
        let need: Vec<f64> = match rng.random_range(0..5) {
            0 => vec![0.0; d],
            1 => axis.clone(),
            2 => {
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
            _ => unit(&mut rng, d),
        };
        batch.push(d, &gens.concat(), &need).unwrap();
    }
    batch
}

/// Every proof of an outcome, re-checked in float64.
pub(super) fn proofs_valid(
    batch: &GeneralBatch,
    i: usize,
    o: &GeneralOutcome,
) -> Result<(), String> {
    let case = batch.get(i);
    match o.verdict {
        Verdict::Supported => {
            let (idx, w) = o.witness().ok_or("supported without a witness")?;
            if idx.len() > case.dim {
                return Err(format!("witness of {} generators", idx.len()));
            }
            if !solver::witness(&case, idx, w) {
                return Err(format!("witness {idx:?} {w:?} fails"));
            }
        }
        Verdict::Unsupported => {
            let y = o.certificate.ok_or("unsupported without a certificate")?;
            if !solver::certificate(&case, &y[..case.dim]) {
                return Err(format!("certificate {y:?} fails"));
            }
        }
        Verdict::Uncertain => {}
    }
    Ok(())
}

/// GPU against CPU over a batch: (agreeing, uncertain on one side only), panicking with
/// every disagreement or failed proof.
pub(super) fn compare(
    name: &str,
    batch: &GeneralBatch,
    gpu: &[GeneralOutcome],
    cpu: &[GeneralOutcome],
) {
    let mut failures = Vec::new();
    let mut same_verdict = 0;
    let mut one_uncertain = 0;
    for i in 0..batch.len() {
        let (g, c) = (&gpu[i], &cpu[i]);
        let s = nrm(batch.get(i).need);
        if let Some(why) = g.disagreement(c, s) {
            failures.push(format!("{name} case {i}: {why}"));
        }
        if let Err(why) = proofs_valid(batch, i, g) {
            failures.push(format!("{name} case {i}: GPU proof: {why}"));
        }
        if g.verdict == c.verdict {
            same_verdict += 1;
        } else {
            one_uncertain += 1;
        }
    }
    eprintln!(
        "{name}: {} cases, {same_verdict} same verdict, {one_uncertain} uncertain on one side",
        batch.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
