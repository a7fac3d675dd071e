//! The fuzz targets' bodies, shared by the cargo-fuzz binaries (`fuzz/fuzz_targets/`) and
//! the stable test that replays the corpus with mutations (`tests/formats/fuzz_corpus.rs`). Each
//! must return normally on every input: an error is fine, a panic is a bug.
// Each fuzz binary uses one body.
#![allow(dead_code)]

use std::io::BufReader;

use planar_hold::details::planar;
use planar_hold::io::json;
use planar_hold::io::lines::LineReader;
use planar_hold::io::parquet::ParquetCases;
use planar_hold::io::{format_json, parse_json_chunk_into, CaseBatch};
use planar_hold::{hold_reports, parse_line, Engine, Options, SceneLine};

/// JSON Lines of cases: the line splitter (BOM, blank and long lines), the parser (fast
/// path, serde, and the general cases' reader), and the answers of whatever parsed (the
/// general engine's included).
pub fn case_json(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok((_, case)) = json::parse_case(text) {
            let _ = planar::cone_test(&case);
        }
    }
    let mut lines = LineReader::new(BufReader::with_capacity(64, data), 8, 1 << 12);
    let mut batch = CaseBatch::default();
    while let Ok(Some(chunk)) = lines.next_chunk() {
        parse_json_chunk_into(&chunk, &mut batch);
        let answers = Engine::cpu()
            .evaluate(&batch.batch, Options::default())
            .expect("the CPU engine answers every case");
        format_json(&batch, &answers, &mut Vec::new());
    }
}

/// One scene or edit line of the gate, and its cases when it parses.
pub fn scene_line(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let engine = Engine::cpu();
        match parse_line(text) {
            Ok(SceneLine::Planar(s)) => {
                let _ = s.cases();
                if s.is_general() {
                    let _ = hold_reports(&engine, &[SceneLine::Planar(s)], Options::default());
                }
            }
            // Small spatial scenes answered whole (a large one's facets take a while).
            Ok(l @ SceneLine::Spatial(_)) => {
                if matches!(&l, SceneLine::Spatial(s) if s.generator_count(s.pyramid) <= 48) {
                    let _ = hold_reports(&engine, &[l], Options::default());
                }
            }
            // Small grasps answered whole too (the lifted cone's facets grow fast with K).
            Ok(l @ SceneLine::Grasp(_)) => {
                if matches!(&l, SceneLine::Grasp(s) if s.generator_count(s.pyramid) <= 32) {
                    let _ = hold_reports(&engine, &[l], Options::default());
                }
            }
            Err(_) => {}
        }
    }
}

/// A Parquet file of cases, every batch parsed and answered.
pub fn parquet(data: &[u8]) {
    let bytes = bytes::Bytes::copy_from_slice(data);
    for ids_as_json in [false, true] {
        let Ok(mut reader) = ParquetCases::new(bytes.clone(), 64, ids_as_json) else {
            continue;
        };
        let mut batch = CaseBatch::default();
        while let Some(Ok(rows)) = reader.next_rows() {
            if rows.cases_into(&mut batch).is_err() {
                break;
            }
            let answers = Engine::cpu()
                .evaluate(&batch.batch, Options::default())
                .expect("the CPU engine answers every case");
            format_json(&batch, &answers, &mut Vec::new());
        }
    }
}
