//! The fuzz targets on stable: every seed of `fuzz/corpus/` and mutations of it (bit flips,
//! byte edits, cuts and splices) through the targets' bodies. A panic fails the test;
//! errors are the expected answer to most mutants. The real fuzzing is `cargo +nightly
//! fuzz run TARGET` in `fuzz/` (docs/tests.md, fuzzing).

#[path = "../../fuzz/bodies/mod.rs"]
mod bodies;

use std::path::Path;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {}", dir.display());
    out
}

/// A random edit of `data`, sometimes spliced with `other`.
fn mutate(rng: &mut StdRng, data: &[u8], other: &[u8]) -> Vec<u8> {
    let mut d = data.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = rng.random_range(0..=d.len());
        match rng.random_range(0..7) {
            0 if at < d.len() => d[at] ^= 1 << rng.random_range(0..8),
            1 if at < d.len() => d[at] = rng.random(),
            2 => {
                const BYTES: &[u8] = b"{}[],:\"-0.e9\\\n\xff";
                d.insert(at, BYTES[rng.random_range(0..BYTES.len())]);
            }
            3 if at < d.len() => {
                d.remove(at);
            }
            4 => d.truncate(at),
            5 => {
                let from = rng.random_range(0..=other.len());
                let to = rng.random_range(from..=other.len());
                d.splice(at..at, other[from..to].iter().copied());
            }
            _ if at < d.len() => {
                // Repeat a piece (deep nesting, long arrays).
                let to = rng.random_range(at..=d.len().min(at + 16));
                let piece = d[at..to].to_vec();
                for _ in 0..rng.random_range(1..64) {
                    d.splice(at..at, piece.iter().copied());
                }
            }
            _ => {}
        }
    }
    d
}

fn replay(target: &str, body: fn(&[u8]), mutants_per_seed: usize) {
    let seeds = seeds(target);
    let mut rng = StdRng::seed_from_u64(0x5eed);
    for (k, seed) in seeds.iter().enumerate() {
        body(seed);
        let other = &seeds[(k + 1) % seeds.len()];
        for _ in 0..mutants_per_seed {
            let m = mutate(&mut rng, seed, other);
            let caught = std::panic::catch_unwind(|| body(&m));
            assert!(
                caught.is_ok(),
                "{target} panicked on {:?}",
                String::from_utf8_lossy(&m)
            );
        }
    }
}

#[test]
fn case_json_corpus_and_mutants() {
    replay("case_json", bodies::case_json, 300);
}

#[test]
fn scene_line_corpus_and_mutants() {
    replay("scene_line", bodies::scene_line, 300);
}

#[test]
fn parquet_corpus_and_mutants() {
    replay("parquet", bodies::parquet, 3000);
}
