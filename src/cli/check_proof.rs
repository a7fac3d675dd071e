//! `planar-hold check-proof`: every answer's proof (`--proof`, docs/proof.md) checked against the
//! case it answers, with determinants and dot products only ([`planar_hold::details::proof`]).

use std::io::{BufRead, Write};

use planar_hold::details::proof::RegionProof;
use planar_hold::details::proof::{check_answer, check_disc_answer, Proof};
use planar_hold::details::scene::{check_support_region, grasp_discs, main_pyramid};
use planar_hold::FrictionModel;
use planar_hold::{default_need, GENERAL_MARGIN_CAP};
use planar_hold::{parse_line, SceneLine, SpatialScene};
use rayon::prelude::*;
use serde_json::Value;

use super::{exit, Failure};

/// Lines checked together on every core.
const CHUNK: usize = 4096;

#[derive(clap::Args)]
pub(super) struct Args {
    /// The cases, JSON Lines: cone tests as given to `eval`, or spatial scenes and grasps as
    /// given to `gate`.
    cases: String,
    /// Their answers, JSON Lines, one per case in the same order, written with `--proof`.
    answers: String,
    /// Fail on an answer that should carry a proof and does not (inside, outside: every
    /// decided answer but a flat or capped cone).
    #[arg(long)]
    require: bool,
}

/// What a line came to.
enum Outcome {
    Checked,
    Unproven,
    Skipped,
}

pub(super) fn run(args: Args) -> Result<(), Failure> {
    let open = |p: &str| {
        std::fs::File::open(p)
            .map(std::io::BufReader::new)
            .map_err(|e| Failure::new(format!("cannot read {p}: {e}"), exit::IO))
    };
    let (cases, answers) = (open(&args.cases)?, open(&args.answers)?);
    let (mut checked, mut unproven, mut failed, mut skipped) = (0, 0, 0, 0);
    let mut answers = answers.lines();
    let mut out = std::io::stdout().lock();
    let mut say = |v: Value| -> Result<(), Failure> {
        writeln!(out, "{v}").map_err(|e| Failure::new(format!("cannot write: {e}"), exit::IO))
    };
    // Pairs of lines read a chunk at a time and checked on every core, reported in order.
    let mut cases = cases.lines().enumerate();
    let mut chunk: Vec<(usize, String, Option<String>)> = Vec::with_capacity(CHUNK);
    loop {
        chunk.clear();
        for (n, case) in cases.by_ref() {
            let case = case
                .map_err(|e| Failure::new(format!("cannot read {}: {e}", args.cases), exit::IO))?;
            if case.trim().is_empty() {
                continue;
            }
            let answer = answers.next().transpose().map_err(|e| {
                Failure::new(format!("cannot read {}: {e}", args.answers), exit::IO)
            })?;
            chunk.push((n + 1, case, answer));
            if chunk.len() == CHUNK {
                break;
            }
        }
        if chunk.is_empty() {
            break;
        }
        let outcomes: Vec<Result<Outcome, String>> = chunk
            .par_iter()
            .map(|(_, case, answer)| match answer {
                Some(answer) => line(case, answer, args.require),
                None => Err("no answer".into()),
            })
            .collect();
        for ((number, _, answer), outcome) in chunk.iter().zip(outcomes) {
            match outcome {
                Ok(Outcome::Checked) => checked += 1,
                Ok(Outcome::Unproven) => unproven += 1,
                Ok(Outcome::Skipped) => skipped += 1,
                Err(why) => {
                    failed += 1;
                    say(match answer {
                        Some(answer) => {
                            let id = serde_json::from_str::<Value>(answer)
                                .ok()
                                .and_then(|a| a.get("id").cloned());
                            serde_json::json!({"line": number, "id": id, "error": why})
                        }
                        None => serde_json::json!({"line": number, "error": why}),
                    })?;
                }
            }
        }
    }
    eprintln!(
        "check-proof: {checked} proofs checked, {failed} failed, {unproven} answers without a proof, \
         {skipped} with nothing to prove"
    );
    if failed > 0 {
        return Err(Failure::new(format!("{failed} proofs failed"), exit::PROOF));
    }
    Ok(())
}

fn numbers(v: &Value) -> Option<Vec<f64>> {
    v.as_array()?.iter().map(Value::as_f64).collect()
}

/// One case line and its answer line.
fn line(case: &str, answer: &str, require: bool) -> Result<Outcome, String> {
    let case: Value = serde_json::from_str(case).map_err(|e| format!("case: {e}"))?;
    let answer: Value = serde_json::from_str(answer).map_err(|e| format!("answer: {e}"))?;
    if answer.get("error").is_some() {
        return Ok(Outcome::Skipped);
    }
    if case.get("dim").is_none() && case.get("generators").is_none() {
        // A planar scene or edit: the enumeration answers it, every candidate tried.
        return Ok(Outcome::Skipped);
    }
    if case.get("dim").is_some() {
        if case.get("id") != answer.get("id") {
            return Err(format!(
                "the answer's id {:?} is not the case's",
                answer.get("id")
            ));
        }
        return scene(&case, &answer, require);
    }
    if answer.get("binding").is_some() {
        // The planar enumeration's answer: every candidate tried, nothing to prove here.
        return Ok(Outcome::Skipped);
    }
    if case.get("id") != answer.get("id") {
        return Err(format!(
            "the answer's id {:?} is not the case's",
            answer.get("id")
        ));
    }
    let gens = case
        .get("generators")
        .and_then(Value::as_array)
        .ok_or("the case has no generators")?;
    let rows: Vec<Vec<f64>> = gens
        .iter()
        .map(|g| numbers(g).ok_or("a generator is not numbers"))
        .collect::<Result<_, _>>()?;
    let given = match case.get("need") {
        Some(v) => Some(numbers(v).ok_or("the need is not numbers")?),
        None => None,
    };
    let d = rows
        .first()
        .map(Vec::len)
        .or(given.as_ref().map(Vec::len))
        .unwrap_or(3);
    let need = given.unwrap_or_else(|| default_need(d).to_vec());
    let generators: Vec<f64> = rows.concat();
    if need.iter().all(|&v| v == 0.0) {
        return Ok(Outcome::Skipped); // held by no force at all: margin 0 unless capped
    }
    let proof = match answer.get("proof") {
        None | Some(Value::Null) => {
            let decided = matches!(
                answer["verdict"].as_str(),
                Some("supported" | "unsupported")
            );
            let nothing = answer["capped"] == Value::Bool(true)
                || (answer["verdict"] == "supported" && answer["facet"].is_null());
            if require && decided && !nothing {
                return Err("no proof".into());
            }
            return Ok(if decided && !nothing {
                Outcome::Unproven
            } else {
                Outcome::Skipped
            });
        }
        Some(p) => serde_json::from_value::<Proof>(p.clone()).map_err(|e| format!("proof: {e}"))?,
    };
    let num = |k: &str| {
        answer
            .get(k)
            .and_then(Value::as_f64)
            .ok_or(format!("the answer has no {k}"))
    };
    let value = num("margin")?;
    let lower = num("margin_lower")?;
    let closed = answer.get("margin_checked") == Some(&Value::Bool(true));
    let s = length(&need);
    let tol = 1e-9 * s.max(f64::MIN_POSITIVE);
    if let Some(w) = answer.get("witness").filter(|w| !w.is_null()) {
        witness(&generators, d, &need, w, tol)?;
    }
    check_answer(
        &generators,
        d,
        &need,
        &proof,
        value,
        lower,
        closed,
        tol,
        GENERAL_MARGIN_CAP,
    )?;
    Ok(Outcome::Checked)
}

/// A vector's length at any scale: the tolerances below are relative to it, and summed as
/// plain squares a need of 1e-200 would have length 0 (every rounding refused) and one of
/// 1e200 an infinite one (anything accepted).
fn length(v: &[f64]) -> f64 {
    let big = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if big == 0.0 || !big.is_finite() {
        return big;
    }
    big * v.iter().map(|x| (x / big) * (x / big)).sum::<f64>().sqrt()
}

/// The witness: weights ≥ 0 whose combination of its generators is the need within `tol`
/// (relative to the total force as well).
fn witness(generators: &[f64], d: usize, need: &[f64], w: &Value, tol: f64) -> Result<(), String> {
    let idx: Vec<usize> = w["generators"]
        .as_array()
        .and_then(|a| a.iter().map(|v| v.as_u64().map(|i| i as usize)).collect())
        .ok_or("witness: generators are not indices")?;
    let weights = numbers(&w["weights"]).ok_or("witness: weights are not numbers")?;
    if idx.len() != weights.len() || idx.iter().any(|&i| (i + 1) * d > generators.len()) {
        return Err("witness: indices and weights do not fit".into());
    }
    let mut r = need.to_vec();
    let mut total = 0.0;
    for (&i, &l) in idx.iter().zip(&weights) {
        let g = &generators[i * d..(i + 1) * d];
        if l < 0.0 {
            return Err(format!("witness: weight {l} of generator {i} is negative"));
        }
        total += l * length(g);
        for (ra, ga) in r.iter_mut().zip(g) {
            *ra -= l * ga;
        }
    }
    let res = length(&r);
    if res > tol.max(1e-9 * total) {
        return Err(format!("witness: its forces miss the need by {res}"));
    }
    Ok(())
}

/// A spatial scene's or a grasp's answer: the generators rebuilt from the line by the
/// physical layer (docs/contract-spatial.md §3: the pyramid edges at the answer's k), then
/// each need's proof (scenes) or the q1's (grasps, on the generators `(1, wᵢ)` about e₀).
fn scene(case: &Value, answer: &Value, require: bool) -> Result<Outcome, String> {
    let line = parse_line(&case.to_string()).map_err(|e| format!("case: {e}"))?;
    let k = answer
        .get("pyramid")
        .and_then(Value::as_u64)
        .ok_or("the answer has no pyramid")? as usize;
    let flat =
        |s: &SpatialScene| -> Vec<f64> { s.generators(k, main_pyramid(s.friction)).concat() };
    match line {
        SceneLine::Planar(_) => Ok(Outcome::Skipped),
        SceneLine::Grasp(s) => {
            let w = flat(&s);
            let scale = w.chunks_exact(6).map(length).fold(0.0, f64::max);
            let lifted: Vec<f64> = w
                .chunks_exact(6)
                .flat_map(|g| std::iter::once(1.0).chain(g.iter().copied()))
                .collect();
            let e = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
            let Some(p) = answer.get("proof") else {
                return if require {
                    Err("no proof".into())
                } else {
                    Ok(Outcome::Unproven)
                };
            };
            let proof: Proof =
                serde_json::from_value(p.clone()).map_err(|e| format!("proof: {e}"))?;
            let num = |k: &str| {
                answer
                    .get(k)
                    .and_then(Value::as_f64)
                    .ok_or(format!("the answer has no {k}"))
            };
            let closed = answer.get("margin_checked") == Some(&Value::Bool(true));
            if s.friction == FrictionModel::Circular {
                // The true cones: the proof names its own points on the discs (docs/proof.md).
                let discs = grasp_discs(&s);
                let scale = discs
                    .iter()
                    .map(|d| {
                        let r = length(&d.p) / s.body.half_size;
                        (1.0 + d.mu * d.mu).sqrt() * (1.0 + r * r).sqrt()
                    })
                    .fold(0.0, f64::max);
                let scale = scale.max(f64::MIN_POSITIVE);
                let weakest = answer
                    .get("weakest")
                    .and_then(numbers)
                    .ok_or("the answer has no weakest")?;
                check_disc_answer(
                    &discs,
                    s.body.half_size,
                    &proof,
                    &weakest,
                    num("q1")?,
                    num("q1_lower")?,
                    closed,
                    1e-9 * scale,
                    s.tolerance.unwrap_or(1e-9) * scale,
                )?;
                return Ok(Outcome::Checked);
            }
            let tol = 1e-9 * scale.max(f64::MIN_POSITIVE);
            check_answer(
                &lifted,
                7,
                &e,
                &proof,
                num("q1")?,
                num("q1_lower")?,
                closed,
                tol,
                f64::INFINITY,
            )?;
            Ok(Outcome::Checked)
        }
        SceneLine::Spatial(s) => {
            let mut proven = region(&s, answer, require)?;
            let g = flat(&s);
            let needs = answer
                .get("needs")
                .and_then(Value::as_array)
                .ok_or("the answer has no needs")?;
            for (t, need) in needs.iter().enumerate() {
                let x = need
                    .get("need")
                    .and_then(numbers)
                    .ok_or(format!("need {t}: no need"))?;
                let Some(p) = need.get("proof") else {
                    let decided =
                        matches!(need["verdict"].as_str(), Some("supported" | "unsupported"));
                    let nothing = need["capped"] == Value::Bool(true)
                        || (need["verdict"] == "supported" && need["binding"].is_null());
                    if require && decided && !nothing {
                        return Err(format!("need {t}: no proof"));
                    }
                    continue;
                };
                let proof: Proof = serde_json::from_value(p.clone())
                    .map_err(|e| format!("need {t}: proof: {e}"))?;
                let num = |k: &str| {
                    need.get(k)
                        .and_then(Value::as_f64)
                        .ok_or(format!("need {t}: no {k}"))
                };
                let closed = need.get("margin_checked") == Some(&Value::Bool(true));
                let s = length(&x);
                check_answer(
                    &g,
                    6,
                    &x,
                    &proof,
                    num("margin")?,
                    num("margin_lower")?,
                    closed,
                    1e-9 * s,
                    GENERAL_MARGIN_CAP,
                )
                .map_err(|e| format!("need {t}: {e}"))?;
                proven += 1;
            }
            Ok(if proven > 0 {
                Outcome::Checked
            } else {
                Outcome::Skipped
            })
        }
    }
}

/// A spatial scene's support region against its proof (`support_region_proof`,
/// docs/contract-support-region.md §4), on the scene's main pyramid at its own k: 1 when
/// checked, 0 when there is none (an error under `require`).
fn region(s: &SpatialScene, answer: &Value, require: bool) -> Result<usize, String> {
    let Some(p) = answer.get("support_region_proof") else {
        return if require {
            Err("support region: no proof".into())
        } else {
            Ok(0)
        };
    };
    let proof: RegionProof =
        serde_json::from_value(p.clone()).map_err(|e| format!("support region: proof: {e}"))?;
    let vertices: Vec<[f64; 2]> = answer
        .get("support_region")
        .and_then(Value::as_array)
        .and_then(|v| {
            v.iter()
                .map(|p| numbers(p).and_then(|p| <[f64; 2]>::try_from(p).ok()))
                .collect()
        })
        .ok_or("support region: not a list of [x, y] points")?;
    let checked = answer.get("support_region_checked") == Some(&Value::Bool(true));
    check_support_region(s, &vertices, checked, &proof)
        .map_err(|e| format!("support region: {e}"))?;
    Ok(1)
}
