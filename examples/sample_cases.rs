//! Writes the built-in sample workload as `eval` input lines, so that other tools (the Python
//! rate check, `bench --input`) can run the very cases `planar-hold bench` times.
//!
//! `cargo run --release --example sample_cases -- N [mixed|box] > cases.jsonl`

use std::io::{BufWriter, Write};

use planar_hold::details::sample::{box_cases, mixed_cases};

/// The seed `planar-hold bench` draws its workload from (`SEED` in src/cli/bench.rs).
const BENCH_SEED: u64 = 2026;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .ok_or("usage: sample_cases N [mixed|box]")?
        .parse()?;
    let cases = match args.next().as_deref() {
        None | Some("mixed") => mixed_cases(BENCH_SEED, n),
        Some("box") => box_cases(BENCH_SEED, n),
        Some(other) => return Err(format!("unknown workload {other:?}: mixed or box").into()),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for case in &cases {
        let generators: Vec<[f32; 3]> = case.active_generators().map(|(_, g)| g).collect();
        let line = serde_json::json!({ "generators": generators, "need": case.need });
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}
