//! Reads general cases (JSON Lines) on stdin, writes general answers (dev tool).
use planar_hold::general::{cpu::Solver, GeneralCase};
use std::io::BufRead;
fn main() {
    let mut solver = Solver::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        if std::env::var("FACETS").is_ok() {
            facets_dump(&line);
        }
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let gens: Vec<Vec<f64>> = serde_json::from_value(v["generators"].clone()).unwrap();
        let need: Vec<f64> = serde_json::from_value(v["need"].clone()).unwrap();
        let d = need.len();
        let flat: Vec<f64> = gens.concat();
        let case = GeneralCase::new(d, &flat, &need).unwrap();
        let o = solver.solve(&case);
        let w = o
            .witness()
            .map(|(i, w)| serde_json::json!({"generators": i, "weights": w}));
        let f = o.facet.map(|f| serde_json::json!({"normal": &f.normal[..d], "generators": f.generators.iter().collect::<Vec<_>>()}));
        let ans = serde_json::json!({"id": v["id"], "verdict": o.verdict.as_str(), "margin": o.margin, "capped": o.capped,
          "witness": w, "certificate": o.certificate.map(|c| c[..d].to_vec()), "facet": f});
        println!("{ans}");
    }
}
#[allow(dead_code)]
fn facets_dump(line: &str) {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let gens: Vec<Vec<f64>> = serde_json::from_value(v["generators"].clone()).unwrap();
    let need: Vec<f64> = serde_json::from_value(v["need"].clone()).unwrap();
    let flat: Vec<f64> = gens.concat();
    let case = GeneralCase::new(need.len(), &flat, &need).unwrap();
    for f in Solver::new().facets(&case) {
        let m: f64 = f.normal.iter().zip(&need).map(|(a, b)| a * b).sum();
        eprintln!(
            "{m:.6} {:?} {:?}",
            &f.normal[..need.len()],
            f.generators.iter().collect::<Vec<_>>()
        );
    }
}
