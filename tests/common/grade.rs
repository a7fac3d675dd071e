//! The project's graders of the public sets in `tests/data/`: the program's answers against
//! the independently computed expected answers, and every proof the answers carry re-checked
//! here in float64 from the input alone (never by the engine's own checks). The rules follow
//! the contract in `docs/`: `contract-planar.md` (the planar test and the planar gate),
//! `contract-general.md` (any number of generators) and `contract-spatial.md` (spatial
//! scenes, their gate and the support region).
//!
//! Each grader returns a [`Grading`]: which rules it checked how often, every failure with
//! the case's id, and a printable summary; [`Grading::assert_passed`] fails the test with it.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

// ------------------------------------------------------------------ the tally

/// The outcome of grading one set.
#[derive(Debug, Default)]
pub struct Grading {
    pub name: String,
    pub cases: usize,
    /// How many cases each rule was checked on.
    pub checked: BTreeMap<&'static str, usize>,
    /// Failures that fail the set: (case id, rule, what was wrong).
    pub failures: Vec<(String, &'static str, String)>,
    /// Reported, but not failing the set (answers the contract allows but does not prefer).
    pub notes: Vec<(String, &'static str, String)>,
}

impl Grading {
    pub fn new(name: &str) -> Self {
        Grading {
            name: name.to_string(),
            ..Grading::default()
        }
    }

    pub fn check(&mut self, rule: &'static str) {
        *self.checked.entry(rule).or_default() += 1;
    }

    pub fn fail(&mut self, id: &str, rule: &'static str, why: String) {
        self.failures.push((id.to_string(), rule, why));
    }

    pub fn note(&mut self, id: &str, rule: &'static str, why: String) {
        self.notes.push((id.to_string(), rule, why));
    }

    /// Cases without a failure.
    pub fn passed(&self) -> usize {
        let mut bad: Vec<&str> = self.failures.iter().map(|f| f.0.as_str()).collect();
        bad.sort_unstable();
        bad.dedup();
        self.cases - bad.len()
    }

    /// Fails the calling test with the summary unless every case passed every rule.
    pub fn assert_passed(&self) {
        assert!(self.failures.is_empty(), "\n{self}");
        assert!(self.cases > 0, "{}: no case graded", self.name);
        eprintln!("{}: {}/{} ok", self.name, self.cases, self.cases);
    }
}

impl fmt::Display for Grading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: rules (failed/checked):", self.name)?;
        for (rule, n) in &self.checked {
            let failed = self.failures.iter().filter(|x| x.1 == *rule).count();
            writeln!(f, "  {rule:<24} {failed:>5}/{n}")?;
        }
        for (id, rule, why) in self.failures.iter().take(40) {
            writeln!(f, "  FAIL {id}: {rule}: {why}")?;
        }
        if self.failures.len() > 40 {
            writeln!(f, "  ... and {} more failures", self.failures.len() - 40)?;
        }
        if !self.notes.is_empty() {
            writeln!(f, "  {} notes (not failures), e.g.:", self.notes.len())?;
            for (id, rule, why) in self.notes.iter().take(5) {
                writeln!(f, "  note {id}: {rule}: {why}")?;
            }
        }
        write!(
            f,
            "{}: {}/{} ok{}",
            self.name,
            self.passed(),
            self.cases,
            if self.failures.is_empty() {
                String::new()
            } else {
                format!(", {} failing", self.cases - self.passed())
            }
        )
    }
}

// ------------------------------------------------------------------ small helpers

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

fn cross(a: &[f64], b: &[f64]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

fn vector(v: &Value) -> Option<Vec<f64>> {
    v.as_array()?.iter().map(num).collect()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|r| vector(r).expect("a row of numbers"))
                .collect()
        })
        .unwrap_or_default()
}

fn id_of(v: &Value) -> String {
    match &v["id"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The answers of a run, by id (the first answer of an id counts).
pub fn by_id(answers: &[Value]) -> HashMap<String, &Value> {
    let mut map = HashMap::new();
    for a in answers {
        map.entry(id_of(a)).or_insert(a);
    }
    map
}

/// The numerical rank of `vectors`: Gram–Schmidt on their unit directions, a direction
/// counting when more than 1e-12 of it is left.
fn rank(vectors: &[&[f64]]) -> usize {
    let mut basis: Vec<Vec<f64>> = Vec::new();
    for v in vectors {
        let n = norm(v);
        if n == 0.0 {
            continue;
        }
        let mut u: Vec<f64> = v.iter().map(|x| x / n).collect();
        for b in &basis {
            let c = dot(&u, b);
            u.iter_mut().zip(b).for_each(|(x, y)| *x -= c * y);
        }
        let left = norm(&u);
        if left > 1e-12 {
            basis.push(u.iter().map(|x| x / left).collect());
        }
    }
    basis.len()
}

/// The generator indices and weights of a witness object, or why it is malformed.
fn witness_parts(w: &Value, k: usize) -> Result<(Vec<usize>, Vec<f64>), String> {
    let (Some(idx), Some(wts)) = (w["generators"].as_array(), w["weights"].as_array()) else {
        return Err("a witness needs lists \"generators\" and \"weights\"".into());
    };
    if idx.len() != wts.len() {
        return Err(format!("{} generators, {} weights", idx.len(), wts.len()));
    }
    let idx: Vec<usize> = idx
        .iter()
        .map(|i| i.as_u64().map(|i| i as usize).filter(|&i| i < k))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            format!(
                "an index out of 0..{k} or not an integer: {}",
                w["generators"]
            )
        })?;
    let wts: Vec<f64> = wts
        .iter()
        .map(num)
        .collect::<Option<_>>()
        .ok_or("a weight that is not a finite number")?;
    Ok((idx, wts))
}

/// The contract's "names line 1": `line 1` (not `line 10` or `line 1.5`), `FILE.jsonl:1`,
/// or an error answer whose `line` field is 1.
fn names_line_one(text: &str) -> bool {
    let low = text.to_lowercase();
    let after_ok = |rest: &str| {
        let mut c = rest.chars();
        match c.next() {
            None => true,
            Some(d) if d.is_ascii_digit() => false,
            Some('.') => !c.next().is_some_and(|d| d.is_ascii_digit()),
            Some(_) => true,
        }
    };
    for pat in ["line 1", "line: 1", "line:1", "line #1", ".jsonl:1"] {
        let mut from = 0;
        while let Some(at) = low[from..].find(pat) {
            let end = from + at + pat.len();
            if after_ok(&low[end..]) {
                return true;
            }
            from = end;
        }
    }
    false
}

fn crashed(text: &str) -> bool {
    [
        "panicked at",
        "RUST_BACKTRACE",
        "Traceback (most recent call last)",
        "core dumped",
    ]
    .iter()
    .any(|p| text.contains(p))
}

// ------------------------------------------------------------------ the planar test

/// `eval`'s answers to planar cone tests (`public_sample`) against the expected signed
/// distance `d` and `full` (C = R³), docs/contract-planar.md §6–§7. The planar engine
/// computes in float32, hence its tolerances: margins within 1e-4 relative where
/// |d| > 1e-3, within 1e-3 nearer the boundary; decisive verdicts beyond 1e-3; proofs
/// re-checked to 1e-4.
pub fn planar_cases(cases: &[Value], expected: &[Value], answers: &[Value], name: &str) -> Grading {
    let mut g = Grading::new(name);
    let answers = by_id(answers);
    assert_eq!(cases.len(), expected.len(), "cases and expected answers");
    for (case, exp) in cases.iter().zip(expected) {
        g.cases += 1;
        let id = id_of(case);
        assert_eq!(id, id_of(exp), "cases and expected answers out of step");
        let gens = rows(&case["generators"]);
        let need = vector(&case["need"]).unwrap_or_else(|| vec![0.0, 1.0, 0.0]);
        let (d, full) = (exp["d"].as_f64().unwrap(), exp["full"].as_bool().unwrap());
        g.check("format");
        let Some(ans) = answers.get(&id) else {
            g.fail(&id, "format", "no answer".into());
            continue;
        };
        let verdict = ans["verdict"].as_str().unwrap_or("");
        if !["supported", "unsupported", "uncertain"].contains(&verdict) {
            g.fail(&id, "format", format!("verdict {}", ans["verdict"]));
            continue;
        }
        let Some(margin) = ans["margin"].as_f64().filter(|m| !m.is_nan()) else {
            g.fail(&id, "format", format!("margin {}", ans["margin"]));
            continue;
        };
        if full {
            g.check("whole space held, margin capped");
            if verdict != "supported" || margin < 999.0 {
                g.fail(
                    &id,
                    "whole space held, margin capped",
                    format!("{verdict}, margin {margin}"),
                );
            }
        } else if !margin.is_finite() {
            g.fail(&id, "format", format!("margin {margin}"));
            continue;
        } else if d.abs() > 1e-3 {
            g.check("verdict beyond 1e-3");
            if (verdict == "supported") != (d > 0.0) || verdict == "uncertain" {
                g.fail(
                    &id,
                    "verdict beyond 1e-3",
                    format!("{verdict}, expected d = {d:.6e}"),
                );
            }
            g.check("margin beyond 1e-3");
            if (margin - d).abs() > 1e-4 * d.abs().max(1.0) {
                g.fail(
                    &id,
                    "margin beyond 1e-3",
                    format!("margin {margin:.9}, expected {d:.9}"),
                );
            }
        } else {
            g.check("margin near the boundary");
            if (margin - d).abs() > 1e-3 {
                g.fail(
                    &id,
                    "margin near the boundary",
                    format!("margin {margin:.6e}, expected {d:.6e}"),
                );
            }
        }
        g.check("sound verdict");
        if (d < -1e-4 && verdict == "supported") || (d > 1e-4 && verdict == "unsupported") {
            g.fail(&id, "sound verdict", format!("{verdict} but d = {d:.6e}"));
        }
        g.check("evidence");
        let (wit, cert) = (&ans["witness"], &ans["certificate"]);
        if verdict == "supported" && wit.is_null() {
            g.fail(&id, "evidence", "supported without a witness".into());
        }
        if verdict == "unsupported" && cert.is_null() {
            g.fail(&id, "evidence", "unsupported without a certificate".into());
        }
        if !wit.is_null() {
            g.check("witness");
            let why = witness_parts(wit, gens.len()).and_then(|(idx, wts)| {
                if wts.iter().any(|&w| w < -1e-6) {
                    return Err(format!("negative weight in {wts:?}"));
                }
                let mut sum = [0.0f64; 3];
                for (&i, &w) in idx.iter().zip(&wts) {
                    (0..3).for_each(|a| sum[a] += w * gens[i][a]);
                }
                let res = norm(&[sum[0] - need[0], sum[1] - need[1], sum[2] - need[2]]);
                if res > 1e-4 * norm(&need).max(1.0) {
                    return Err(format!("residual {res:.3e}"));
                }
                Ok(())
            });
            if let Err(why) = why {
                g.fail(&id, "witness", why);
            }
        }
        if !cert.is_null() {
            g.check("certificate");
            match vector(cert).filter(|y| y.len() == 3) {
                None => g.fail(&id, "certificate", format!("not 3 finite numbers: {cert}")),
                Some(y) => {
                    let ny = norm(&y);
                    if let Some(i) =
                        (0..gens.len()).find(|&i| dot(&y, &gens[i]) < -1e-4 * norm(&gens[i]) * ny)
                    {
                        g.fail(
                            &id,
                            "certificate",
                            format!("y·w_{i} = {:.3e} < 0", dot(&y, &gens[i])),
                        );
                    }
                    if dot(&y, &need) >= 0.0 {
                        g.fail(
                            &id,
                            "certificate",
                            format!("y·need = {:.3e} is not < 0", dot(&y, &need)),
                        );
                    }
                }
            }
        }
    }
    g
}

/// `gate`'s reports on planar scenes (`scenes_public`) against the expected held and robust
/// margin, docs/contract-planar.md §8–§9. "near" lines (the robust margin within 1e-3 of
/// `margin_min`, or a need within 1e-3 of its cone's boundary) may answer not held where the
/// truth is held, with the margin to 1e-3; every other line must match held exactly, be
/// decisive, and give the margin to 1e-4 relative.
pub fn planar_scenes(
    cases: &[Value],
    expected: &[Value],
    answers: &[Value],
    name: &str,
) -> Grading {
    let mut g = Grading::new(name);
    let answers = by_id(answers);
    for (case, exp) in cases.iter().zip(expected) {
        g.cases += 1;
        let id = id_of(case);
        assert_eq!(id, id_of(exp), "cases and expected answers out of step");
        g.check("format");
        let Some(ans) = answers.get(&id) else {
            g.fail(&id, "format", "no answer".into());
            continue;
        };
        if !ans["error"].is_null() && ans["error"] != false {
            g.fail(
                &id,
                "format",
                format!("a valid line refused: {}", ans["error"]),
            );
            continue;
        }
        let (Some(held), Some(uncertain), Some(m)) = (
            ans["held"].as_bool(),
            ans["uncertain"].as_bool(),
            ans["robust_margin"].as_f64().filter(|m| !m.is_nan()),
        ) else {
            g.fail(
                &id,
                "format",
                format!("held/uncertain/robust_margin missing in {ans}"),
            );
            continue;
        };
        let want = exp["robust_margin"].as_f64().unwrap();
        let (e_held, near) = (
            exp["held"].as_bool().unwrap(),
            exp["near"].as_bool().unwrap(),
        );
        let margin_min = exp["margin_min"].as_f64().unwrap();
        let margin_ok = if want >= 999.0 {
            m >= 999.0
        } else if near {
            (m - want).abs() <= 1e-3
        } else {
            (m - want).abs() <= 1e-4 * want.abs().max(1.0)
        };
        g.check("robust margin");
        if !margin_ok {
            g.fail(
                &id,
                "robust margin",
                format!("{m:.9}, expected {want:.9} (near: {near})"),
            );
        }
        if !near {
            g.check("held beyond 1e-3");
            if held != e_held || uncertain {
                g.fail(
                    &id,
                    "held beyond 1e-3",
                    format!("held {held} uncertain {uncertain}, expected held {e_held}"),
                );
            }
        }
        g.check("never held when not");
        if held && want < margin_min - 1e-4 {
            g.fail(
                &id,
                "never held when not",
                format!("held, robust margin {want} < margin_min {margin_min}"),
            );
        }
        g.check("held is not uncertain");
        if held && uncertain {
            g.fail(
                &id,
                "held is not uncertain",
                "held and uncertain at once".into(),
            );
        }
        if slides(case) {
            g.check("sliding evidence");
            for why in planar_evidence(case, exp, ans).into_iter().take(3) {
                g.fail(&id, "sliding evidence", why);
            }
        }
    }
    g
}

/// Whether a scene line has a sliding contact (`"slip"`, docs/contract-scenes.md).
pub fn slides(case: &Value) -> bool {
    case["contacts"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| !c["slip"].is_null()))
}

/// The unit direction of a slip's tangential part at unit normal `n` (`v − (v·n)n`,
/// normalised), computed here from the line alone.
fn tangential(v: &[f64], n: &[f64]) -> Vec<f64> {
    let vn = dot(v, n);
    let vt: Vec<f64> = v.iter().zip(n).map(|(a, b)| a - vn * b).collect();
    let l = norm(&vt);
    vt.iter().map(|x| x / l).collect()
}

/// A planar scene line's generators rebuilt from the line alone (docs/contract-planar.md
/// §2 with docs/contract-scenes.md's sliding contacts): contacts in order, endpoints p0, p1;
/// at each, `n + μt` and `n − μt`, or the one sliding ray `n − μ·sign(v·t)·t`.
fn planar_generators(case: &Value) -> Vec<Vec<f64>> {
    let ell = case["half_size"].as_f64().unwrap();
    let mut out = Vec::new();
    for c in case["contacts"].as_array().unwrap() {
        let n = vector(&c["normal"]).unwrap();
        let l = norm(&n);
        let n = [n[0] / l, n[1] / l];
        let t = [n[1], -n[0]];
        let mu = num(&c["mu"]).or_else(|| num(&c["mu"][0])).unwrap();
        let rays: Vec<[f64; 2]> = match vector(&c["slip"]) {
            Some(v) => {
                let u = tangential(&v, &n);
                vec![[n[0] - mu * u[0], n[1] - mu * u[1]]]
            }
            None => vec![
                [n[0] + mu * t[0], n[1] + mu * t[1]],
                [n[0] - mu * t[0], n[1] - mu * t[1]],
            ],
        };
        for end in ["p0", "p1"] {
            let p = vector(&c[end]).unwrap();
            for r in &rays {
                out.push(vec![r[0], r[1], (p[1] * r[0] - p[0] * r[1]) / ell]);
            }
        }
    }
    out
}

/// A planar line's needs at the corners of its mass × centre-of-mass box, in need order:
/// `((mass, com_offset_x), need)`.
fn planar_needs(case: &Value) -> Vec<((f64, f64), Vec<f64>)> {
    let ell = case["half_size"].as_f64().unwrap();
    let m0 = case["mass"]["nominal"].as_f64().unwrap_or(1.0);
    let ends = |v: &Value, d: [f64; 2]| {
        let iv = vector(v).map(|v| [v[0], v[1]]).unwrap_or(d);
        if iv[0] == iv[1] {
            vec![iv[0]]
        } else {
            iv.to_vec()
        }
    };
    let mut out = Vec::new();
    for m in ends(&case["mass"]["range"], [m0, m0]) {
        for x in ends(&case["com_offset_x"], [0.0, 0.0]) {
            let a = m / m0;
            out.push(((m, x), vec![0.0, a, -a * x / ell]));
        }
    }
    out
}

/// The planar evidence rule of a sliding line (checked against generators rebuilt with the
/// slips, at the planar engine's float32 tolerances): one need per corner, matched by its
/// `mass` and `com_offset_x`; a supported need has a witness of at most 3 independent
/// generators, weights ≥ −1e-5|need|/|wᵢ|, residual ≤ 1e-4·max(|need|, Σλᵢ|wᵢ|); an
/// unsupported one a certificate with y·wᵢ ≥ −1e-4|y||wᵢ| and y·need < 0; away from the
/// boundary (|d| > 1e-3, not a near line) the verdict is the expected one.
fn planar_evidence(case: &Value, exp: &Value, ans: &Value) -> Vec<String> {
    let gens = planar_generators(case);
    let corners = planar_needs(case);
    let Some(needs) = ans["needs"].as_array() else {
        return vec!["no needs".into()];
    };
    if needs.len() != corners.len() {
        return vec![format!("{} needs, expected {}", needs.len(), corners.len())];
    }
    let d = exp["d_needs"].as_array().cloned().unwrap_or_default();
    let near = exp["near"].as_bool().unwrap_or(false);
    let mut out = Vec::new();
    for (i, (((m, x), need), n)) in corners.iter().zip(needs).enumerate() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        if !(n["mass"].as_f64().is_some_and(|v| close(v, *m))
            && n["com_offset_x"].as_f64().is_some_and(|v| close(v, *x)))
        {
            out.push(format!("need {i} is not the corner ({m}, {x})"));
            continue;
        }
        let verdict = n["verdict"].as_str().unwrap_or("");
        if let Some(d) = d.get(i).and_then(num) {
            if !near && d.abs() > 1e-3 * norm(need).max(1.0) {
                let want = if d > 0.0 { "supported" } else { "unsupported" };
                if verdict != want {
                    out.push(format!("need {i}: {verdict}, expected {want} (d {d:.6})"));
                }
            }
        }
        let checked = match verdict {
            "supported" => planar_witness(&gens, need, &n["witness"]),
            "unsupported" => planar_certificate(&gens, need, &n["certificate"]),
            "uncertain" => Ok(()),
            other => Err(format!("verdict {other:?}")),
        };
        if let Err(why) = checked {
            out.push(format!(
                "need {i}: {why} (generators rebuilt with the slips)"
            ));
        }
    }
    out
}

fn planar_witness(gens: &[Vec<f64>], need: &[f64], wit: &Value) -> Result<(), String> {
    let (idx, wts) = witness_parts(wit, gens.len())?;
    if idx.len() > 3 {
        return Err(format!("witness of {} generators (at most 3)", idx.len()));
    }
    let s = norm(need);
    let (mut sum, mut total, mut used) = (vec![0.0; 3], 0.0, Vec::new());
    for (&i, &w) in idx.iter().zip(&wts) {
        let ng = norm(&gens[i]);
        if w < -1e-5 * s / ng.max(1e-300) {
            return Err(format!("weight {w:.3e} of generator {i} is negative"));
        }
        let w = w.max(0.0);
        sum.iter_mut().zip(&gens[i]).for_each(|(a, x)| *a += w * x);
        total += w * ng;
        if w > 0.0 {
            used.push(gens[i].as_slice());
        }
    }
    let res = norm(&sum.iter().zip(need).map(|(a, b)| a - b).collect::<Vec<_>>());
    if res > 1e-4 * s.max(total) {
        return Err(format!(
            "witness residual {res:.3e} > 1e-4 × {:.3e}",
            s.max(total)
        ));
    }
    if rank(&used) < used.len() {
        return Err("witness generators not linearly independent".into());
    }
    Ok(())
}

fn planar_certificate(gens: &[Vec<f64>], need: &[f64], cert: &Value) -> Result<(), String> {
    let y = vector(cert)
        .filter(|y| y.len() == 3)
        .ok_or_else(|| format!("certificate not 3 finite numbers: {cert}"))?;
    let ny = norm(&y);
    if ny == 0.0 || dot(&y, need) >= -1e-9 * ny * norm(need) {
        return Err(format!(
            "certificate: y·need = {:.3e} is not < 0",
            dot(&y, need)
        ));
    }
    match gens.iter().position(|w| dot(&y, w) < -1e-4 * ny * norm(w)) {
        Some(i) => Err(format!(
            "certificate: y·w_{i} = {:.3e} < 0, it does not support the cone",
            dot(&y, &gens[i])
        )),
        None => Ok(()),
    }
}

// ------------------------------------------------------------------ refused lines

/// Runs `program args… FILE` once per line of the `cases` file, the line alone in FILE, and
/// checks that each is refused (docs/contract-scenes.md, bad lines): a non-zero exit with a
/// message on stderr, or an answer with an `"error"`; the message names line 1 and one of the
/// line's expected `keywords`; nothing crashed; no answer says `"held": true`. Lines for
/// which `skip` is true are left out.
pub fn refusals(
    program: &Path,
    args: &[&str],
    cases: &Path,
    expected: &Path,
    skip: impl Fn(&Value) -> bool,
    name: &str,
) -> Grading {
    let mut g = Grading::new(name);
    let text = std::fs::read(cases).unwrap();
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(|b| b.is_ascii_whitespace()))
        .collect();
    let exps: Vec<Value> = std::fs::read_to_string(expected)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        exps.len(),
        "{name}: lines and expected answers"
    );
    let dir = std::env::temp_dir().join(format!(
        "planar-hold-refusals-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, (line, exp)) in lines.iter().zip(&exps).enumerate() {
        if skip(exp) {
            continue;
        }
        g.cases += 1;
        let id = format!(
            "line {} ({}, {})",
            n + 1,
            id_of(exp),
            exp["sub"].as_str().unwrap_or("?")
        );
        let file = dir.join(format!("line{n:03}.jsonl"));
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        std::fs::write(&file, bytes).unwrap();
        let out = Command::new(program)
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        let answers: Vec<Value> = stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let errors: Vec<&Value> = answers
            .iter()
            .filter(|a| !a["error"].is_null() && a["error"] != false)
            .collect();
        g.check("refused");
        if answers.iter().any(|a| a["held"] == true) {
            g.fail(&id, "refused", "an answer says held: true".into());
            continue;
        }
        if crashed(&stderr) || crashed(&stdout) || out.status.code().is_none() {
            g.fail(
                &id,
                "refused",
                format!("crashed ({}): {stderr}", out.status),
            );
            continue;
        }
        let message = if !out.status.success() && !stderr.trim().is_empty() {
            stderr.to_string()
        } else if !errors.is_empty() {
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            g.fail(
                &id,
                "refused",
                format!("accepted (exit {}, stdout {stdout:.120})", out.status),
            );
            continue;
        };
        // A refused line keeps its id, whatever broke after it (where the expected answer
        // names one: a line broken before its id has none).
        if let (Some(want @ Value::String(_)), Some(first)) = (exp.get("id"), errors.first()) {
            g.check("keeps its id");
            if first["id"] != *want {
                g.fail(
                    &id,
                    "keeps its id",
                    format!("id {} in {first}", first["id"]),
                );
            }
        }
        g.check("names line 1");
        if !names_line_one(&message) && !errors.iter().any(|e| e["line"] == 1) {
            g.fail(
                &id,
                "names line 1",
                message.trim().chars().take(160).collect(),
            );
        }
        let low = message.to_lowercase();
        if let Some(words) = exp["forbid"].as_array() {
            g.check("refused for its own problem");
            if let Some(w) =
                (words.iter().filter_map(Value::as_str)).find(|w| low.contains(&w.to_lowercase()))
            {
                g.fail(
                    &id,
                    "refused for its own problem",
                    format!("the message says {w:?}: {:.160}", message.trim()),
                );
            }
        }
        g.check("names the problem");
        let keywords: Vec<&str> = exp["keywords"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        if !keywords.iter().any(|k| low.contains(&k.to_lowercase())) {
            g.fail(
                &id,
                "names the problem",
                format!("none of {keywords:?} in {:.160}", message.trim()),
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    g
}

// ------------------------------------------------------------------ the general test

/// Witness rule of the general test (docs/contract-general.md): at most d distinct indices,
/// finite weights with λᵢ|wᵢ| ≥ −1e-9·scale, residual |Σλᵢwᵢ − need| ≤ 1e-7·scale, where
/// scale = max(|need|, Σ|λᵢ||wᵢ|). A zero need is held by the empty (or null) witness.
fn general_witness(gens: &[Vec<f64>], need: &[f64], wit: &Value) -> Result<(), String> {
    let s = norm(need);
    if wit.is_null() {
        return if s == 0.0 {
            Ok(())
        } else {
            Err("no witness".into())
        };
    }
    let (idx, wts) = witness_parts(wit, gens.len())?;
    if idx.len() > need.len() {
        return Err(format!("{} generators in R^{}", idx.len(), need.len()));
    }
    let mut seen = idx.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != idx.len() {
        return Err(format!("a generator repeated in {idx:?}"));
    }
    if idx.is_empty() {
        return if s == 0.0 {
            Ok(())
        } else {
            Err("an empty witness for a non-zero need".into())
        };
    }
    let total: f64 = idx
        .iter()
        .zip(&wts)
        .map(|(&i, w)| w.abs() * norm(&gens[i]))
        .sum();
    let scale = s.max(total);
    for (&i, &w) in idx.iter().zip(&wts) {
        if w * norm(&gens[i]) < -1e-9 * scale {
            return Err(format!("weight {w:.3e} of generator {i} is negative"));
        }
    }
    let mut sum = vec![0.0; need.len()];
    for (&i, &w) in idx.iter().zip(&wts) {
        sum.iter_mut().zip(&gens[i]).for_each(|(a, x)| *a += w * x);
    }
    let res = norm(&sum.iter().zip(need).map(|(a, b)| a - b).collect::<Vec<_>>());
    if res > 1e-7 * scale {
        return Err(format!("residual {res:.3e} > 1e-7 × {scale:.3e}"));
    }
    Ok(())
}

/// Certificate rule of the general test: d finite numbers, y ≠ 0, y·wᵢ ≥ −1e-7|y||wᵢ| for
/// every generator, y·need < 0.
fn general_certificate(gens: &[Vec<f64>], need: &[f64], cert: &Value) -> Result<(), String> {
    let y = vector(cert)
        .filter(|y| y.len() == need.len())
        .ok_or_else(|| format!("not {} finite numbers: {cert}", need.len()))?;
    let ny = norm(&y);
    if ny == 0.0 {
        return Err("the zero vector".into());
    }
    for (i, w) in gens.iter().enumerate() {
        if dot(&y, w) < -1e-7 * ny * norm(w) {
            return Err(format!(
                "does not support C: y·w_{i}/(|y||w_{i}|) = {:.3e}",
                dot(&y, w) / (ny * norm(w))
            ));
        }
    }
    if dot(&y, need) >= 0.0 {
        return Err(format!("y·need = {:.3e} is not < 0", dot(&y, need)));
    }
    Ok(())
}

/// The general test's answers (`eval` on R³ and R⁶ lines, or the Python API's) against the
/// expected signed distance (docs/contract-general.md). Failing: a missing or refused answer,
/// a verdict without a valid proof, a decisive verdict against the expected distance beyond
/// 1e-6|need|, a margin not within 1e-6·max(|need|, |d|) of min(d, 1000), `capped` not equal
/// to "C is all of R^d", and — held, the expected binding facet unique — facet generators
/// other than the expected ones. On "amb" cases (ill-posed at float64: the expected line lists
/// the defensible alternative answers in `alt`) the margin may be within 1e-4 of d or of an
/// alternative, and a wrong verdict or `capped` is only noted. Noted, not failing: an
/// uncertain verdict where a decisive one was expected, and a facet normal that is not a unit
/// vector supporting C at the margin.
pub fn general_cases(
    cases: &[Value],
    expected: &[Value],
    answers: &[Value],
    name: &str,
) -> Grading {
    let mut g = Grading::new(name);
    let answers = by_id(answers);
    let expected: HashMap<String, &Value> = expected.iter().map(|e| (id_of(e), e)).collect();
    for case in cases {
        g.cases += 1;
        let id = id_of(case);
        let exp = expected[&id];
        let need = vector(&case["need"]).expect("a need");
        let dim = need.len();
        let gens = rows(&case["generators"]);
        let s = norm(&need);
        let d = exp["d"].as_f64().unwrap();
        let full = exp["full"].as_bool().unwrap();
        let amb = exp["amb"].as_bool().unwrap_or(false);
        g.check("answered");
        let Some(ans) = answers.get(&id) else {
            g.fail(&id, "answered", "no answer".into());
            continue;
        };
        if !ans["error"].is_null() {
            g.fail(&id, "answered", format!("refused: {}", ans["error"]));
            continue;
        }
        let verdict = ans["verdict"].as_str().unwrap_or("");
        if !["supported", "unsupported", "uncertain"].contains(&verdict) {
            g.fail(&id, "answered", format!("verdict {}", ans["verdict"]));
            continue;
        }
        let margin = num(&ans["margin"]);
        if margin.is_none() {
            g.fail(&id, "answered", format!("margin {}", ans["margin"]));
        }
        // The proofs.
        if verdict == "supported" {
            g.check("witness");
            if let Err(why) = general_witness(&gens, &need, &ans["witness"]) {
                g.fail(&id, "witness", why);
            }
        }
        if verdict == "unsupported" {
            g.check("certificate");
            if let Err(why) = general_certificate(&gens, &need, &ans["certificate"]) {
                g.fail(&id, "certificate", why);
            }
        }
        // The verdict against the expected distance.
        let must_hold = full || s == 0.0 || d > 1e-6 * s;
        let must_not = !full && s > 0.0 && d < -1e-6 * s;
        g.check("verdict");
        let wrong = (verdict == "unsupported" && must_hold) || (verdict == "supported" && must_not);
        if wrong {
            let why = format!("{verdict}, expected d = {d:.6e} (|need| {s:.3e}, full {full})");
            if amb {
                g.note(&id, "verdict", why);
            } else {
                g.fail(&id, "verdict", why);
            }
        }
        if verdict == "uncertain" && (must_hold || must_not) && !amb {
            g.note(&id, "decisive", format!("uncertain, expected d = {d:.6e}"));
        }
        // The margin.
        let want = if full { 1000.0 } else { d.min(1000.0) };
        let tol = if amb { 1e-4 } else { 1e-6 } * s.max(d.abs());
        if let Some(m) = margin {
            g.check("margin");
            let mut ok = (m - want).abs() <= tol;
            if amb && !ok {
                for alt in exp["alt"].as_array().into_iter().flatten() {
                    let ad = alt["d"].as_f64().unwrap();
                    let aw = if alt["full"] == true {
                        1000.0
                    } else {
                        ad.min(1000.0)
                    };
                    ok |= (m - aw).abs() <= 1e-4 * s.max(ad.abs());
                }
            }
            if !ok {
                let how = if m > want { "too large" } else { "too small" };
                g.fail(
                    &id,
                    "margin",
                    format!("margin {how}: {m:.12e}, expected {want:.12e} (tol {tol:.1e})"),
                );
            }
        }
        g.check("capped");
        if ans["capped"].as_bool() != Some(full) {
            let why = format!("capped {}, C = R^{dim}: {full}", ans["capped"]);
            if amb {
                g.note(&id, "capped", why);
            } else {
                g.fail(&id, "capped", why);
            }
        }
        // The binding facet.
        let nonzero = |i: &usize| *i < gens.len() && norm(&gens[*i]) > 0.0;
        let binding = &exp["binding"];
        if verdict == "supported" && !full && !amb && binding["unique"] == true {
            g.check("binding facet");
            let want: Vec<usize> = binding["generators"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap() as usize)
                .filter(nonzero)
                .collect();
            match ans["facet"]["generators"].as_array() {
                None => g.fail(
                    &id,
                    "binding facet",
                    format!("no facet, expected generators {want:?}"),
                ),
                Some(got) => {
                    let mut got: Vec<usize> = got
                        .iter()
                        .filter_map(|i| i.as_u64())
                        .map(|i| i as usize)
                        .filter(nonzero)
                        .collect();
                    got.sort_unstable();
                    let mut want = want;
                    want.sort_unstable();
                    if got != want {
                        g.fail(
                            &id,
                            "binding facet",
                            format!("generators {got:?}, expected {want:?}"),
                        );
                    }
                }
            }
        }
        if let Some(n) = ans["facet"].get("normal").filter(|n| !n.is_null()) {
            g.check("facet normal");
            match vector(n).filter(|n| n.len() == dim) {
                None => g.note(&id, "facet normal", format!("not {dim} finite numbers")),
                Some(n) => {
                    if (norm(&n) - 1.0).abs() > 1e-6 {
                        g.note(&id, "facet normal", format!("|n| = {}", norm(&n)));
                    } else if gens.iter().any(|w| dot(&n, w) < -1e-7 * norm(w)) {
                        g.note(&id, "facet normal", "does not support C".into());
                    } else if let Some(m) = margin
                        .filter(|&m| verdict == "supported" && !full && d >= 0.0 && m < 1000.0)
                    {
                        if (dot(&n, &need) - m).abs() > tol {
                            g.note(
                                &id,
                                "facet normal",
                                format!("n·need {:.9e} ≠ margin {m:.9e}", dot(&n, &need)),
                            );
                        }
                    }
                }
            }
        }
    }
    g
}

// ------------------------------------------------------------------ spatial scenes

/// A spatial scene rebuilt from its line, independently of the library: contacts with unit
/// normals and the lower end of μ, and the pyramid generators of docs/contract-spatial.md.
struct Scene3 {
    ell: f64,
    k: usize,
    friction: String,
    contacts: Vec<Contact3>,
}

/// Points, unit normal, μ (lower end), and for a sliding contact the unit direction of its
/// slip's tangential part.
type Contact3 = (Vec<[f64; 3]>, [f64; 3], f64, Option<Vec<f64>>);

impl Scene3 {
    fn new(v: &Value) -> Scene3 {
        let contacts = v["contacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let points = rows(&c["points"])
                    .iter()
                    .map(|p| [p[0], p[1], p[2]])
                    .collect();
                let n = vector(&c["normal"]).unwrap();
                let l = norm(&n);
                let mu = num(&c["mu"]).or_else(|| num(&c["mu"][0])).unwrap();
                let n = [n[0] / l, n[1] / l, n[2] / l];
                let slip = vector(&c["slip"]).map(|v| tangential(&v, &n));
                (points, n, mu, slip)
            })
            .collect();
        Scene3 {
            ell: v["half_size"].as_f64().unwrap(),
            k: v["pyramid"].as_u64().unwrap_or(4) as usize,
            friction: v["friction"].as_str().unwrap_or("inner").to_string(),
            contacts,
        }
    }

    /// The wrenches of the pyramid edges, contacts in order, then points, then edges;
    /// `outer` widens μ to μ/cos(π/k). A sliding contact gives its one ray `n − μu` a point
    /// (docs/contract-scenes.md), whatever the pyramid.
    fn generators(&self, outer: bool, k: usize) -> Vec<Vec<f64>> {
        let mut out = Vec::new();
        for (points, n, mu, slip) in &self.contacts {
            if let Some(u) = slip {
                let r: Vec<f64> = (0..3).map(|i| n[i] - mu * u[i]).collect();
                for p in points {
                    let tau = cross(p, &r);
                    out.push([r.clone(), tau.iter().map(|t| t / self.ell).collect()].concat());
                }
                continue;
            }
            let axis = (0..3).fold(
                0,
                |best, i| if n[i].abs() < n[best].abs() { i } else { best },
            );
            let mut a = [0.0; 3];
            a[axis] = 1.0;
            let t1 = cross(&a, n);
            let l1 = norm(&t1);
            let t1 = [t1[0] / l1, t1[1] / l1, t1[2] / l1];
            let t2 = cross(n, &t1);
            let mu = if outer {
                mu / (std::f64::consts::PI / k as f64).cos()
            } else {
                *mu
            };
            for p in points {
                for j in 0..k {
                    let th = 2.0 * std::f64::consts::PI * j as f64 / k as f64;
                    let r: Vec<f64> = (0..3)
                        .map(|i| n[i] + mu * (th.cos() * t1[i] + th.sin() * t2[i]))
                        .collect();
                    let tau = cross(p, &r);
                    out.push([r.clone(), tau.iter().map(|t| t / self.ell).collect()].concat());
                }
            }
        }
        out
    }

    /// Does y support the true Coulomb cone at every contact point (a sliding contact's
    /// one ray at its points)?
    fn supports_coulomb(&self, y: &[f64]) -> bool {
        let ny = norm(y);
        self.contacts.iter().all(|(points, n, mu, slip)| {
            points.iter().all(|p| {
                let turn = cross(&y[3..], p);
                let gv: Vec<f64> = (0..3).map(|i| y[i] + turn[i] / self.ell).collect();
                let gn = dot(&gv, n);
                let scale = ny * (1.0 + mu * mu).sqrt() * (norm(p) / self.ell).max(1.0);
                match slip {
                    Some(u) => gn - mu * dot(&gv, u) >= -1e-7 * scale,
                    None => {
                        let gt = norm(&(0..3).map(|i| gv[i] - gn * n[i]).collect::<Vec<_>>());
                        gn - mu * gt >= -1e-7 * scale
                    }
                }
            })
        })
    }
}

/// The spatial witness rule: at most 6 indices, weights ≥ −1e-9|need|/|wᵢ| (then taken as 0),
/// residual ≤ 1e-7·max(|need|, Σλᵢ|wᵢ|), the generators of positive weight independent.
fn spatial_witness(gens: &[Vec<f64>], need: &[f64], wit: &Value) -> Result<(), String> {
    if wit.is_null() {
        return Err("no witness".into());
    }
    let (idx, wts) = witness_parts(wit, gens.len())?;
    if idx.len() > 6 {
        return Err(format!("{} generators (at most 6)", idx.len()));
    }
    let s = norm(need);
    let (mut sum, mut total, mut used) = (vec![0.0; 6], 0.0, Vec::new());
    for (&i, &w) in idx.iter().zip(&wts) {
        let ng = norm(&gens[i]);
        if w < -1e-9 * s / ng.max(1e-300) {
            return Err(format!("weight {w:.3e} of generator {i} is negative"));
        }
        let w = w.max(0.0);
        sum.iter_mut().zip(&gens[i]).for_each(|(a, x)| *a += w * x);
        total += w * ng;
        if w > 0.0 {
            used.push(gens[i].as_slice());
        }
    }
    let res = norm(&sum.iter().zip(need).map(|(a, b)| a - b).collect::<Vec<_>>());
    if res > 1e-7 * s.max(total) {
        return Err(format!("residual {res:.3e} > 1e-7 × {:.3e}", s.max(total)));
    }
    if rank(&used) < used.len() {
        return Err("generators not linearly independent".into());
    }
    Ok(())
}

/// The spatial certificate rule: 6 finite numbers, y ≠ 0, y·need < −1e-9|y||need|, and y
/// supports the generators (y·wᵢ ≥ −1e-7|y||wᵢ|); under "coulomb" friction it supports the
/// true Coulomb cone at every point, or the outer pyramid.
fn spatial_certificate(scene: &Scene3, need: &[f64], cert: &Value) -> Result<(), String> {
    let y = vector(cert)
        .filter(|y| y.len() == 6)
        .ok_or_else(|| format!("not 6 finite numbers: {cert}"))?;
    let ny = norm(&y);
    if ny == 0.0 {
        return Err("the zero vector".into());
    }
    if dot(&y, need) >= -1e-9 * ny * norm(need) {
        return Err(format!("y·need = {:.3e} is not < 0", dot(&y, need)));
    }
    let supports = |gens: Vec<Vec<f64>>| -> Result<(), String> {
        match gens.iter().position(|w| dot(&y, w) < -1e-7 * ny * norm(w)) {
            Some(i) => Err(format!(
                "y·w_{i} = {:.3e} < 0: does not support the cone",
                dot(&y, &gens[i])
            )),
            None => Ok(()),
        }
    };
    match scene.friction.as_str() {
        "coulomb" if scene.supports_coulomb(&y) => Ok(()),
        "coulomb" => supports(scene.generators(true, scene.k))
            .map_err(|e| format!("supports neither the Coulomb cone nor the outer pyramid ({e})")),
        "outer" => supports(scene.generators(true, scene.k)),
        _ => supports(scene.generators(false, scene.k)),
    }
}

/// Under "coulomb" friction a witness may use the inner pyramid at k or any doubling of k
/// up to 64.
fn spatial_witness_any_k(scene: &Scene3, need: &[f64], wit: &Value) -> Result<(), String> {
    let outer = scene.friction == "outer";
    let first = spatial_witness(&scene.generators(outer, scene.k), need, wit);
    if first.is_ok() || scene.friction != "coulomb" {
        return first;
    }
    let mut k = scene.k * 2;
    while k <= 64 {
        if spatial_witness(&scene.generators(false, k), need, wit).is_ok() {
            return Ok(());
        }
        k *= 2;
    }
    first
}

/// The convex hull of points in the plane (counter-clockwise, no repeated or collinear
/// vertices).
fn hull(points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a.partial_cmp(b).unwrap());
    p.dedup();
    if p.len() <= 2 {
        return p;
    }
    let turn = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let chain = |pts: &mut dyn Iterator<Item = [f64; 2]>| {
        let mut h: Vec<[f64; 2]> = Vec::new();
        for q in pts {
            while h.len() >= 2 && turn(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
        h
    };
    let mut lower = chain(&mut p.clone().into_iter());
    lower.extend(chain(&mut p.into_iter().rev()));
    lower
}

fn to_segment(q: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let l = ab[0] * ab[0] + ab[1] * ab[1];
    let t = if l == 0.0 {
        0.0
    } else {
        (((q[0] - a[0]) * ab[0] + (q[1] - a[1]) * ab[1]) / l).clamp(0.0, 1.0)
    };
    (q[0] - a[0] - t * ab[0]).hypot(q[1] - a[1] - t * ab[1])
}

/// Distance from q to the filled convex polygon h (counter-clockwise).
fn to_polygon(q: [f64; 2], h: &[[f64; 2]]) -> f64 {
    match h.len() {
        0 => f64::INFINITY,
        1 => (q[0] - h[0][0]).hypot(q[1] - h[0][1]),
        2 => to_segment(q, h[0], h[1]),
        n => {
            let edge = |i: usize| (h[i], h[(i + 1) % n]);
            let inside = (0..n).all(|i| {
                let (a, b) = edge(i);
                (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]) >= 0.0
            });
            if inside {
                0.0
            } else {
                (0..n)
                    .map(|i| to_segment(q, edge(i).0, edge(i).1))
                    .fold(f64::INFINITY, f64::min)
            }
        }
    }
}

/// The Hausdorff distance between two filled convex polygons given by their vertices.
fn hausdorff(p: &[[f64; 2]], q: &[[f64; 2]]) -> f64 {
    let (hp, hq) = (hull(p), hull(q));
    let one =
        |a: &[[f64; 2]], b: &[[f64; 2]]| a.iter().map(|&x| to_polygon(x, b)).fold(0.0, f64::max);
    one(&hp, &hq).max(one(&hq, &hp))
}

fn diameter(p: &[[f64; 2]]) -> f64 {
    p.iter()
        .flat_map(|a| p.iter().map(move |b| (a[0] - b[0]).hypot(a[1] - b[1])))
        .fold(0.0, f64::max)
}

fn polygon(v: &Value) -> Option<Vec<[f64; 2]>> {
    v.as_array()?
        .iter()
        .map(|p| vector(p).filter(|p| p.len() == 2).map(|p| [p[0], p[1]]))
        .collect()
}

/// `gate`'s reports on spatial scenes (`scenes3d_public`) against the expected reports
/// (docs/contract-spatial.md): held (near lines and lines the reference leaves uncertain by
/// linearisation may say not held; none may say held where the reference is not held beyond
/// 1e-6), the robust margin and each need's margin within 1e-6·max(1, |m|) (1e-3 on near
/// lines; between the inner and the outer pyramid's where the reference is uncertain by
/// linearisation), each need's verdict where it is farther than 1e-6 from the boundary, its
/// witness or certificate re-checked against generators rebuilt here, the report consistent
/// with itself, and the support region within 1e-6·half_size (Hausdorff) of the reference's.
/// `require_region`: every report must carry a support region.
pub fn spatial_scenes(
    scenes: &[Value],
    expected: &[Value],
    answers: &[Value],
    require_region: bool,
    name: &str,
) -> Grading {
    let mut g = Grading::new(name);
    let answers = by_id(answers);
    assert_eq!(scenes.len(), expected.len(), "scenes and expected answers");
    for (line, exp) in scenes.iter().zip(expected) {
        g.cases += 1;
        let id = id_of(line);
        assert_eq!(id, id_of(exp), "scenes and expected answers out of step");
        let scene = Scene3::new(line);
        g.check("format");
        let Some(ans) = answers.get(&id) else {
            g.fail(&id, "format", "no answer".into());
            continue;
        };
        if !ans["error"].is_null() && ans["error"] != false {
            g.fail(
                &id,
                "format",
                format!("a valid scene refused: {}", ans["error"]),
            );
            continue;
        }
        let (Some(held), Some(uncertain), Some(m)) = (
            ans["held"].as_bool(),
            ans["uncertain"].as_bool(),
            ans["robust_margin"].as_f64().filter(|m| !m.is_nan()),
        ) else {
            g.fail(&id, "format", "held/uncertain/robust_margin missing".into());
            continue;
        };
        let want = exp["robust_margin"].as_f64().unwrap();
        let (e_held, near) = (
            exp["held"].as_bool().unwrap(),
            exp["near"].as_bool().unwrap(),
        );
        let margin_min = exp["margin_min"].as_f64().unwrap();
        let coulomb = scene.friction == "coulomb";
        let open = exp["coulomb_uncertain"].as_bool().unwrap_or(false);
        let upper = exp["margin_upper"].as_f64().unwrap_or(want);
        let tol = |v: f64| if near { 1e-3 } else { 1e-6 } * v.abs().max(1.0);
        let margin_ok = |got: f64, lo: f64, hi: Option<f64>| match hi {
            _ if lo >= 999.0 => got >= 999.0,
            Some(hi) if hi >= 999.0 => got >= lo - tol(lo),
            Some(hi) => lo - tol(lo) <= got && got <= hi + tol(hi),
            None => (got - lo).abs() <= tol(lo),
        };
        // The needs, matched to the reference's by their (mass, centre-of-mass offset) labels.
        let refs = exp["needs"].as_array().unwrap();
        let got_needs = ans["needs"].as_array().cloned().unwrap_or_default();
        let key = |n: &Value| -> Option<[f64; 3]> {
            Some([
                num(&n["mass"])?,
                num(&n["com_offset"][0])?,
                num(&n["com_offset"][1])?,
            ])
        };
        let mut pairs = Vec::new();
        for n in &got_needs {
            let found = key(n).and_then(|k| {
                refs.iter().position(|r| {
                    let rk = key(r).unwrap();
                    (0..3).all(|i| (k[i] - rk[i]).abs() <= 1e-12 * rk[i].abs().max(1.0))
                })
            });
            match found {
                Some(i) => pairs.push((i, n)),
                None => break,
            }
        }
        let mut covered: Vec<usize> = pairs.iter().map(|p| p.0).collect();
        covered.sort_unstable();
        covered.dedup();
        if pairs.len() != got_needs.len() || covered.len() != refs.len() {
            g.fail(
                &id,
                "format",
                format!("needs do not match the reference's {} corners", refs.len()),
            );
            continue;
        }
        // Held.
        g.check("held");
        let d_key = if coulomb { "d_outer" } else { "d" };
        let beyond = refs.iter().any(|r| {
            r[d_key].as_f64().unwrap() < -1e-6 * norm(&vector(&r["need"]).unwrap()).max(1.0)
        }) || (if coulomb { upper } else { want })
            < margin_min - 1e-6 * margin_min.abs().max(1.0);
        if !near && !open {
            if held != e_held {
                g.fail(&id, "held", format!("held {held}, reference {e_held} (robust {want:.9}, margin_min {margin_min})"));
            }
        } else if held && beyond {
            g.fail(
                &id,
                "held",
                "held, but the reference is not held beyond 1e-6".into(),
            );
        }
        g.check("robust margin");
        if !margin_ok(m, want, open.then_some(upper)) {
            g.fail(
                &id,
                "robust margin",
                format!(
                    "{m:.12}, reference {want:.12}{}",
                    if open {
                        format!(" .. {upper:.12}")
                    } else {
                        String::new()
                    }
                ),
            );
        }
        let mut margins = Vec::new();
        for (ri, n) in &pairs {
            let r = &refs[*ri];
            let need = vector(&r["need"]).unwrap();
            let s = norm(&need).max(1.0);
            let verdict = n["verdict"].as_str().unwrap_or("");
            let Some(nm) = n["margin"].as_f64().filter(|m| !m.is_nan()) else {
                g.fail(
                    &id,
                    "need margin",
                    format!("need {ri}: margin {}", n["margin"]),
                );
                continue;
            };
            margins.push(nm);
            let (rv, rd) = (r["verdict"].as_str().unwrap(), r["d"].as_f64().unwrap());
            let linearisation = coulomb
                && rv == "uncertain"
                && rd < -1e-6 * s
                && r["d_outer"].as_f64().unwrap() > 1e-6 * s;
            let far = rv != "uncertain"
                && (if rv == "supported" {
                    rd
                } else {
                    r[d_key].as_f64().unwrap()
                })
                .abs()
                    > 1e-6 * s;
            if far && !linearisation {
                g.check("need verdict");
                if verdict != rv {
                    g.fail(
                        &id,
                        "need verdict",
                        format!("need {ri}: {verdict}, reference {rv} (d {rd:.6e})"),
                    );
                }
            }
            g.check("need margin");
            let hi = (open && coulomb).then(|| r["d_outer"].as_f64().unwrap());
            if !margin_ok(nm, rd, hi) {
                g.fail(
                    &id,
                    "need margin",
                    format!("need {ri}: {nm:.12}, reference {rd:.12}"),
                );
            }
            match verdict {
                "supported" => {
                    g.check("witness");
                    if let Err(why) = spatial_witness_any_k(&scene, &need, &n["witness"]) {
                        g.fail(&id, "witness", format!("need {ri}: {why}"));
                    }
                }
                "unsupported" => {
                    g.check("certificate");
                    if let Err(why) = spatial_certificate(&scene, &need, &n["certificate"]) {
                        g.fail(&id, "certificate", format!("need {ri}: {why}"));
                    }
                }
                "uncertain" => {}
                other => g.fail(&id, "format", format!("need {ri}: verdict {other:?}")),
            }
        }
        g.check("consistent");
        if held && uncertain {
            g.fail(&id, "consistent", "held and uncertain at once".into());
        }
        if held && pairs.iter().any(|(_, n)| n["verdict"] != "supported") {
            g.fail(
                &id,
                "consistent",
                "held with a need that is not supported".into(),
            );
        }
        if held && m < margin_min {
            g.fail(
                &id,
                "consistent",
                format!("held with robust margin {m} < margin_min {margin_min}"),
            );
        }
        let least = margins.iter().copied().fold(f64::INFINITY, f64::min);
        if !(least >= 999.0 && m >= 999.0) && (least - m).abs() > 1e-9 * m.abs().max(1.0) {
            g.fail(
                &id,
                "consistent",
                format!("robust margin {m:.12} is not the least need margin {least:.12}"),
            );
        }
        // The support region.
        let region = &ans["support_region"];
        if region.is_null() {
            if require_region {
                g.check("support region");
                g.fail(&id, "support region", "missing".into());
            }
            continue;
        }
        g.check("support region");
        let reference = polygon(&exp["support_region"]).unwrap_or_default();
        match polygon(region) {
            None => g.fail(
                &id,
                "support region",
                format!("not a list of [x, y]: {region:.80}"),
            ),
            Some(got) => {
                let tol = 1e-6 * scene.ell;
                if got.is_empty() || reference.is_empty() {
                    let other = if got.is_empty() { &reference } else { &got };
                    if !other.is_empty() && diameter(other) > tol {
                        g.fail(
                            &id,
                            "support region",
                            format!("{} vertices, reference {}", got.len(), reference.len()),
                        );
                    }
                } else {
                    let h = hausdorff(&got, &reference);
                    if h > tol {
                        g.fail(
                            &id,
                            "support region",
                            format!(
                                "Hausdorff distance {h:.3e} > 1e-6 half_size ({} vs {} vertices)",
                                got.len(),
                                reference.len()
                            ),
                        );
                    }
                }
            }
        }
    }
    g
}
