//! `planar-hold eval` on general lines (docs/contract-general.md): the public cases graded by the
//! project's own rules, lines of both kinds mixed in one file, and bad general lines named by
//! line with the rest answered.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common::grade;
use serde_json::Value;

fn temp(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "planar-hold-general-{name}-{}.jsonl",
        std::process::id()
    ));
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    path
}

/// Runs `eval` on the public general set `name` with `backend` and grades the answers by
/// the project's rules (`tests/common/grade.rs`): no failure allowed.
fn grade_public(name: &str, backend: &str) {
    let run = crate::common::cli()
        .arg("eval")
        .arg(crate::common::data(&format!("{name}.jsonl")))
        .args(["--backend", backend])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "eval failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let answers: Vec<Value> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let graded = grade::general_cases(
        &crate::common::read_data(&format!("{name}.jsonl")),
        &crate::common::read_data(&format!("{name}.expected.jsonl")),
        &answers,
        &format!("{name} ({backend})"),
    );
    println!("{graded}");
    graded.assert_passed();
}

#[test]
fn the_public_general_cases_pass_the_grader_on_the_cpu() {
    grade_public("general_public", "cpu");
}

/// The same through the GPU's search and the host's float64 finish (`--backend gpu`); CI
/// runs it on GL and on Vulkan. Skips without an adapter unless PLANAR_HOLD_REQUIRE_GPU.
#[test]
fn the_public_general_cases_pass_the_grader_on_the_gpu() {
    if crate::common::gpu_engine().is_some() {
        grade_public("general_public", "gpu");
    }
}

/// Cones of near-duplicate generators (exact copies, power-of-two multiples, copies moved by
/// 1e-12…1e-8 of their length, a face vertex that is also a point contact): the inside
/// margin is a minimum over every facet, so a facet missed makes it too large.
#[test]
fn the_public_near_duplicate_cases_pass_the_grader_on_the_cpu() {
    grade_public("general_dup_public", "cpu");
}

#[test]
fn the_public_near_duplicate_cases_pass_the_grader_on_the_gpu() {
    if crate::common::gpu_engine().is_some() {
        grade_public("general_dup_public", "gpu");
    }
}

fn eval_lines(path: &Path) -> (std::process::Output, Vec<Value>) {
    let out = crate::common::cli()
        .arg("eval")
        .arg(path)
        .args(["--backend", "cpu"])
        .output()
        .unwrap();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, lines)
}

/// Writes cases (`{"id": string, "generators": [[…], …], "need": […]}`) as a Parquet file of
/// the columns `eval` reads: `id`, `generators` (a list of lists of float64), `need`.
fn write_parquet(path: &Path, cases: &[Value]) {
    use arrow_array::builder::{Float64Builder, ListBuilder};
    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use std::sync::Arc;
    let mut gens = ListBuilder::new(ListBuilder::new(Float64Builder::new()));
    let mut need = ListBuilder::new(Float64Builder::new());
    for l in cases {
        for g in l["generators"].as_array().unwrap() {
            for x in g.as_array().unwrap() {
                gens.values().values().append_value(x.as_f64().unwrap());
            }
            gens.values().append(true);
        }
        gens.append(true);
        for x in l["need"].as_array().unwrap() {
            need.values().append_value(x.as_f64().unwrap());
        }
        need.append(true);
    }
    let ids =
        StringArray::from_iter_values(cases.iter().map(|l| l["id"].as_str().unwrap().to_string()));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(gens.finish()),
        Arc::new(need.finish()),
    ];
    let batch =
        RecordBatch::try_from_iter(["id", "generators", "need"].into_iter().zip(columns)).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(path).unwrap(),
        batch.schema(),
        None,
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn planar_and_general_lines_mix_in_one_file_and_bad_ones_are_named() {
    // A cube of half-size 0.5 on its four bottom corners, μ = 0.5, pyramids of 4 edges.
    let mut cube = Vec::new();
    for (px, py) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
        for (tx, ty) in [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)] {
            let f: [f64; 3] = [0.5 * tx, 0.5 * ty, 1.0];
            let p: [f64; 3] = [px, py, -0.5];
            let t = [
                p[1] * f[2] - p[2] * f[1],
                p[2] * f[0] - p[0] * f[2],
                p[0] * f[1] - p[1] * f[0],
            ];
            cube.push(format!(
                "[{},{},{},{},{},{}]",
                f[0],
                f[1],
                f[2],
                t[0] / 0.5,
                t[1] / 0.5,
                t[2] / 0.5
            ));
        }
    }
    let six = cube.join(",");
    let twenty = (0..20)
        .map(|i| {
            format!(
                "[{}, 1, {}]",
                (i as f64 - 9.5) * 0.01,
                (i as f64 - 9.5) * 0.1
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    let many = (0..257).map(|_| "[0,1,0]").collect::<Vec<_>>().join(",");
    let text = [
        r#"{"id": "planar", "generators": [[0.2,1,0.8],[-0.2,1,1.2],[0.2,1,-1.2],[-0.2,1,-0.8]]}"#
            .to_string(),
        format!(r#"{{"id": "six", "generators": [{six}]}}"#),
        format!(r#"{{"id": "twenty", "generators": [{twenty}]}}"#),
        format!(r#"{{"id": "too many", "generators": [{many}]}}"#),
        r#"{"id": "mixed", "generators": [[1,0,1,0,0,0], [0,1,0]]}"#.to_string(),
        r#"{"id": "need", "generators": [[1,0,1,0,0,0]], "need": [0,1,0]}"#.to_string(),
        r#"{"id": "huge", "generators": [[1,0,1,0,0,1e400]]}"#.to_string(),
        r#"{"id": "seven", "generators": [[1,0,1,0,0,0,0], [1,0,0]]}"#.to_string(),
        r#"{"id": "empty6", "generators": [], "need": [0,0,1,0,0,0]}"#.to_string(),
        format!(r#"{{"id": "typo", "generators": [{six}], "Need": [0,0,1,0,0,0]}}"#),
    ]
    .join("\n");
    let path = temp("mixed", &text);
    let (out, lines) = eval_lines(&path);
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "planar", "six", "twenty", "too many", "mixed", "need", "huge", "seven", "empty6",
            "typo"
        ]
    );
    // the planar line keeps its planar answer
    assert!(lines[0].get("binding_candidate").is_some());
    // the cube: held, bound by a facet in R⁶
    assert_eq!(lines[1]["verdict"], "supported", "{}", lines[1]);
    assert!(lines[1]["margin"].as_f64().unwrap() > 0.1, "{}", lines[1]);
    assert_eq!(
        lines[1]["facet"]["normal"].as_array().unwrap().len(),
        6,
        "{}",
        lines[1]
    );
    // twenty planar rays in a thin fan: a flat cone, held with margin 0 and no facet
    assert_eq!(lines[2]["verdict"], "supported", "{}", lines[2]);
    assert_eq!(lines[2]["facet"], Value::Null);
    let error = |k: usize| {
        lines[k]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("line {k}: {}", lines[k]))
            .to_string()
    };
    assert!(
        error(3).contains("257 generators, more than 256"),
        "{}",
        error(3)
    );
    assert!(
        error(4).contains("generator 1 has 3 numbers, generator 0 has 6"),
        "{}",
        error(4)
    );
    assert!(error(5).contains("the need has 3 numbers"), "{}", error(5));
    assert!(lines[6]["error"].is_string(), "{}", lines[6]);
    assert!(lines[7]["error"].is_string(), "{}", lines[7]);
    assert_eq!(lines[8]["verdict"], "unsupported");
    assert!(error(9).contains("unknown field `Need`"), "{}", error(9));
    for (k, l) in lines.iter().enumerate() {
        if l.get("error").is_some() {
            assert_eq!(l["line"], k + 1);
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(":4: not a valid case: 257 generators"),
        "{stderr}"
    );
}

/// The public general cases (and a planar one and bad rows) written as Parquet (`generators`
/// a list of lists of float64, `need` a list) give, row for row, the JSON Lines answers of
/// the same cases.
#[test]
fn parquet_input_takes_general_rows_as_json_lines_does() {
    let cases = std::fs::read_to_string(crate::common::data("general_public.jsonl")).unwrap();
    let mut lines: Vec<Value> = cases
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines.push(serde_json::json!({"id": "planar", "generators": [[0.2,1,0.8],[-0.2,1,1.2],[0.2,1,-1.2],[-0.2,1,-0.8]], "need": [0,1,0]}));
    lines.push(serde_json::json!({"id": "mixed", "generators": [[1,0,1,0,0,0],[0,1,0]], "need": [0,0,1,0,0,0]}));
    lines.push(serde_json::json!({"id": "need", "generators": [[1,0,1,0,0,0]], "need": [0,1,0]}));
    lines.push(serde_json::json!({"id": "empty6", "generators": [], "need": [0,0,1,0,0,0]}));
    let dir = std::env::temp_dir().join(format!(
        "planar-hold-general-parquet-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let pq = dir.join("cases.parquet");
    write_parquet(&pq, &lines);
    let jsonl = dir.join("cases.jsonl");
    std::fs::write(
        &jsonl,
        lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let run = |path: &Path| {
        let out = crate::common::cli()
            .arg("eval")
            .arg(path)
            .args(["--backend", "cpu"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(5),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (from_parquet, from_json) = (run(&pq), run(&jsonl));
    let mut n = 0;
    for (p, j) in from_parquet.lines().zip(from_json.lines()) {
        let (p, j): (Value, Value) = (
            serde_json::from_str(p).unwrap(),
            serde_json::from_str(j).unwrap(),
        );
        if j.get("error").is_some() {
            assert!(p["error"].is_string(), "{p} vs {j}");
            assert_eq!(p["line"], j["line"]);
        } else {
            assert_eq!(p, j);
        }
        n += 1;
    }
    assert_eq!(n, lines.len());
}

/// The general engine's column kernels (unit scaling, the NNLS's choice of generator, the
/// double description's signs) give the same answers bit for bit with AVX2 and without
/// (`PLANAR_HOLD_SIMD=baseline`): `eval` writes the same bytes on contact and random cones of
/// d = 3 and 6, K = 17 to 256, tiny and duplicated generators among them. (On a CPU without
/// AVX2 both runs take the baseline, and the test compares it with itself.)
#[test]
fn general_answers_are_the_same_bits_with_and_without_avx2() {
    use planar_hold::details::sample::contact_cases;
    use planar_hold::details::sample::random_cases;
    let mut text = String::new();
    let mut line = |gens: Vec<Vec<f64>>, need: &[f64]| {
        let v = serde_json::json!({ "generators": gens, "need": need });
        text.push_str(&v.to_string());
        text.push('\n');
    };
    for (d, k) in [
        (3, 17),
        (3, 64),
        (3, 256),
        (6, 16),
        (6, 33),
        (6, 128),
        (6, 256),
    ] {
        for (s, batch) in [
            contact_cases(70 + k as u64, 40, d, k),
            random_cases(80 + k as u64, 40, d, k),
        ]
        .iter()
        .enumerate()
        {
            for (c, case) in batch.iter().enumerate() {
                let mut gens: Vec<Vec<f64>> = (0..case.len())
                    .map(|i| case.generator(i).to_vec())
                    .collect();
                match (s + c) % 4 {
                    1 => gens
                        .iter_mut()
                        .for_each(|g| g.iter_mut().for_each(|x| *x *= 1e-310)),
                    2 => {
                        let half = gens.len() / 2;
                        let copy = gens[..half].to_vec();
                        gens[half..half * 2].clone_from_slice(&copy);
                    }
                    _ => {}
                }
                let scale = if (s + c) % 4 == 1 { 1e-310 } else { 1.0 };
                let need: Vec<f64> = case.need.iter().map(|x| x * scale).collect();
                line(gens, &need);
            }
        }
    }
    let path = temp("simd", &text);
    let run = |simd: Option<&str>| {
        let mut cmd = crate::common::cli();
        cmd.arg("eval").arg(&path).args(["--backend", "cpu"]);
        if let Some(s) = simd {
            cmd.env("PLANAR_HOLD_SIMD", s);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let chosen = run(None);
    let baseline = run(Some("baseline"));
    assert_eq!(String::from_utf8_lossy(&chosen).lines().count(), 560);
    assert!(chosen == baseline, "AVX2 and baseline answers differ");
    std::fs::remove_file(path).ok();
}

/// `eval` to Parquet writes what it writes to JSON Lines for general rows, the facet (its
/// unit normal and the generators on it) in a `facet` struct column: null on planar rows,
/// which have `binding`, and where the general answer has no facet.
#[test]
fn parquet_output_holds_the_general_answers_facet_included() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt32Type};
    use arrow_array::Array;
    let cases = crate::common::data("general_public.jsonl");
    let dir = std::env::temp_dir().join(format!(
        "planar-hold-general-parquet-out-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let pq = dir.join("answers.parquet");
    let run = |extra: &[&std::ffi::OsStr]| {
        let out = crate::common::cli()
            .arg("eval")
            .arg(&cases)
            .args(["--backend", "cpu"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let json: Vec<Value> = run(&[])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    run(&["-o".as_ref(), pq.as_os_str()]);
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&pq).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let (mut rows, mut facets, mut planar) = (0, 0, 0);
    for batch in reader {
        let batch = batch.unwrap();
        let facet = batch.column_by_name("facet").unwrap().as_struct();
        let normal = facet.column_by_name("normal").unwrap().as_list::<i32>();
        let on = facet.column_by_name("generators").unwrap().as_list::<i32>();
        let margin = batch
            .column_by_name("margin")
            .unwrap()
            .as_primitive::<Float64Type>();
        let checked = batch.column_by_name("margin_checked").unwrap().as_boolean();
        for r in 0..batch.num_rows() {
            let j = &json[rows];
            rows += 1;
            assert_eq!(margin.value(r), j["margin"].as_f64().unwrap(), "{j}");
            // General rows say whether the margin is proven, as the JSON answer does; planar
            // rows (no such key) hold null.
            match j.get("margin_checked") {
                Some(c) => assert_eq!(Some(checked.value(r)), c.as_bool(), "{j}"),
                None => assert!(checked.is_null(r), "{j}"),
            }
            match j.get("facet") {
                Some(f) if !f.is_null() => {
                    facets += 1;
                    assert!(facet.is_valid(r), "{j}");
                    let n: Vec<f64> = normal
                        .value(r)
                        .as_primitive::<Float64Type>()
                        .values()
                        .to_vec();
                    let g: Vec<u32> = on.value(r).as_primitive::<UInt32Type>().values().to_vec();
                    assert_eq!(serde_json::json!(n), f["normal"], "{j}");
                    assert_eq!(serde_json::json!(g), f["generators"], "{j}");
                }
                _ => {
                    planar += usize::from(j.get("binding").is_some());
                    assert!(facet.is_null(r), "{j}");
                }
            }
        }
    }
    assert_eq!(rows, json.len());
    assert!(
        facets > 200 && planar > 0,
        "{facets} facets, {planar} planar rows"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A cone's answer does not change when a generator is scaled (docs/contract-general.md §1),
/// nor, but for the margin's units, when the need and every generator are (1e-30 … 1e30). A
/// line of at most 16 generators in R³ is the enumeration's, in float32, which reads 1e-50
/// as 0 and refuses 1e40: such a line goes to the general engine, in float64, from JSON Lines
/// and from Parquet alike. The public planar sample, each case scaled by 1e-30 with each
/// generator by up to 1e±20 more, and by 1e30 with up to 1e±10 more: every verdict and
/// margin as the float64 references say (the enumeration got 55 of the first wrong, and
/// refused 78 of the second).
#[test]
fn planar_lines_float32_cannot_hold_are_answered_in_float64() {
    let cases = crate::common::read_data("public_sample.jsonl");
    let expected = crate::common::read_data("public_sample.expected.jsonl");
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let dir =
        std::env::temp_dir().join(format!("planar-hold-float32-range-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (scale, spread) in [(1e-30, 20.0), (1e30, 10.0)] {
        let mut scaled = Vec::new();
        for case in &cases {
            let g: Vec<Vec<f64>> = case["generators"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| {
                    let f = scale * 10f64.powf(spread * (2.0 * uniform() - 1.0));
                    let w = w.as_array().unwrap();
                    w.iter().map(|x| x.as_f64().unwrap() * f).collect()
                })
                .collect();
            let need: Vec<f64> = match case.get("need") {
                Some(n) => n
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() * scale)
                    .collect(),
                None => vec![0.0, scale, 0.0],
            };
            scaled.push(serde_json::json!({"id": case["id"], "generators": g, "need": need}));
        }
        let jsonl = dir.join("cases.jsonl");
        let text: String = scaled.iter().map(|l| l.to_string() + "\n").collect();
        std::fs::write(&jsonl, text).unwrap();
        let pq = dir.join("cases.parquet");
        write_parquet(&pq, &scaled);
        let (out, from_json) = eval_lines(&jsonl);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (out, from_parquet) = eval_lines(&pq);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(from_json, from_parquet);
        assert_eq!(from_json.len(), cases.len());
        let mut checked = 0;
        for (answer, want) in from_json.iter().zip(&expected) {
            let (d, full) = (want["d"].as_f64().unwrap(), want["full"].as_bool().unwrap());
            let (verdict, margin) = (
                answer["verdict"].as_str().unwrap(),
                answer["margin"].as_f64().unwrap(),
            );
            let id = &answer["id"];
            if full {
                assert!(verdict == "supported" && margin >= 999.0, "{id}: {answer}");
                continue;
            }
            if d.abs() <= 1e-3 {
                continue; // within tolerance of the boundary: either verdict, or uncertain
            }
            assert_eq!(
                verdict,
                if d > 0.0 { "supported" } else { "unsupported" },
                "{id}: {answer} (scale {scale})"
            );
            let want = (d * scale).min(1000.0);
            assert!(
                (margin - want).abs() <= 1e-6 * want.abs().max(scale),
                "{id}: margin {margin}, want {want} (scale {scale})"
            );
            checked += 1;
        }
        assert!(checked > 150, "{checked} decisive cases checked");
    }
    std::fs::remove_dir_all(dir).ok();
}
