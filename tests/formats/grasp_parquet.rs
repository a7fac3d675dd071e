//! Grasps as Parquet rows through `planar-hold gate` (docs/contract-grasp.md §1, docs/cli.md):
//! the same grasps as JSON Lines and as Parquet get the same answers, field for field, in
//! either output format; a refused row is answered with its row number and the rest still
//! answered (exit status 5).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, FixedSizeListBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use serde_json::{json, Map, Value};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "planar-hold-grasp-parquet-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `planar-hold gate INPUT --backend cpu -o OUTPUT`.
fn gate(input: &Path, output: &Path) -> Output {
    gate_with(input, output, &[])
}

/// `planar-hold gate INPUT --backend cpu -o OUTPUT ARGS…`.
fn gate_with(input: &Path, output: &Path, args: &[&str]) -> Output {
    gate_command(input, output).args(args).output().unwrap()
}

/// The command of [`gate_with`], to add to.
fn gate_command(input: &Path, output: &Path) -> std::process::Command {
    let mut command = crate::common::cli();
    command
        .arg("gate")
        .arg(input)
        .args(["--backend", "cpu", "-o"])
        .arg(output);
    command
}

fn write_jsonl(path: &Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Grasp lines as Parquet rows, `group_rows` a row group: `id` (int64 when every id is an
/// integer, else utf8), `half_size`, `pyramid` (int64), `friction` and the labels (utf8),
/// `mass` and `q1_at_least` (float64, null where absent), with `dim_and_grasp` the `dim` (int64) and `grasp`
/// (boolean) columns (else they are left implied), and `contacts`: a list of structs of
/// `points` list<list<float64>>, `normal` fixed_size_list<float64, 3> and `mu` (float64, or
/// list<float64> when some contact's μ is an interval).
fn write_grasps(path: &Path, rows: &[Value], group_rows: usize, dim_and_grasp: bool) {
    let int_ids = rows.iter().all(|r| r["id"].is_i64());
    let intervals = rows
        .iter()
        .flat_map(|r| r["contacts"].as_array().unwrap())
        .any(|c| c["mu"].is_array());
    let mut id_text = StringBuilder::new();
    let mut id_int = Int64Builder::new();
    let mut half_size = Float64Builder::new();
    let mut pyramid = Int64Builder::new();
    let mut dim = Int64Builder::new();
    let mut grasp = BooleanBuilder::new();
    let mut mass = Float64Builder::new();
    let mut q1_at_least = Float64Builder::new();
    let mut labels: Vec<(&str, StringBuilder)> = ["friction", "category", "sub", "scale_of"]
        .into_iter()
        .map(|k| (k, StringBuilder::new()))
        .collect();
    let mut points = ListBuilder::new(ListBuilder::new(Float64Builder::new()));
    let mut normal = FixedSizeListBuilder::new(Float64Builder::new(), 3);
    let mut mu = Float64Builder::new();
    let mut mu_list = ListBuilder::new(Float64Builder::new());
    let mut contact_counts = Vec::new();
    for r in rows {
        let o = r.as_object().unwrap();
        for k in o.keys() {
            let known = [
                "id",
                "dim",
                "grasp",
                "half_size",
                "pyramid",
                "friction",
                "category",
                "sub",
                "scale_of",
                "mass",
                "q1_at_least",
                "contacts",
            ];
            assert!(known.contains(&k.as_str()), "no column for {k}");
        }
        match &r["id"] {
            Value::String(s) => id_text.append_value(s),
            Value::Null => id_text.append_null(),
            v => id_text.append_value(v.to_string()),
        }
        id_int.append_option(r["id"].as_i64());
        half_size.append_option(r["half_size"].as_f64());
        pyramid.append_option(r["pyramid"].as_i64());
        dim.append_option(r["dim"].as_i64());
        grasp.append_option(r["grasp"].as_bool());
        mass.append_option(r["mass"].as_f64());
        q1_at_least.append_option(r["q1_at_least"].as_f64());
        for (k, b) in &mut labels {
            b.append_option(r[*k].as_str());
        }
        let contacts = r["contacts"].as_array().unwrap();
        contact_counts.push(contacts.len());
        for c in contacts {
            for p in c["points"].as_array().unwrap() {
                let p = p.as_array().unwrap().iter().map(|x| x.as_f64().unwrap());
                let p: Vec<f64> = p.collect();
                points.values().values().append_slice(&p);
                points.values().append(true);
            }
            points.append(true);
            let n: Vec<f64> = c["normal"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            normal.values().append_slice(&n);
            normal.append(true);
            match &c["mu"] {
                Value::Array(m) => {
                    let m: Vec<f64> = m.iter().map(|x| x.as_f64().unwrap()).collect();
                    mu_list.values().append_slice(&m);
                }
                m => mu_list.values().append_value(m.as_f64().unwrap()),
            }
            mu_list.append(true);
            mu.append_option(c["mu"].as_f64());
        }
    }
    let mu: ArrayRef = if intervals {
        Arc::new(mu_list.finish())
    } else {
        Arc::new(mu.finish())
    };
    let (points, normal): (ArrayRef, ArrayRef) =
        (Arc::new(points.finish()), Arc::new(normal.finish()));
    let contact_fields = Fields::from(vec![
        Field::new("points", points.data_type().clone(), true),
        Field::new("normal", normal.data_type().clone(), true),
        Field::new("mu", mu.data_type().clone(), true),
    ]);
    let contact = StructArray::new(contact_fields.clone(), vec![points, normal, mu], None);
    let contacts = ListArray::new(
        Arc::new(Field::new_list_field(
            DataType::Struct(contact_fields),
            true,
        )),
        OffsetBuffer::from_lengths(contact_counts),
        Arc::new(contact),
        None,
    );
    let id: ArrayRef = if int_ids {
        Arc::new(id_int.finish())
    } else {
        Arc::new(id_text.finish())
    };
    let mut columns: Vec<(&str, ArrayRef)> = vec![
        ("id", id),
        ("half_size", Arc::new(half_size.finish())),
        ("pyramid", Arc::new(pyramid.finish())),
        ("mass", Arc::new(mass.finish())),
        ("q1_at_least", Arc::new(q1_at_least.finish())),
        ("contacts", Arc::new(contacts)),
    ];
    if dim_and_grasp {
        columns.push(("dim", Arc::new(dim.finish())));
        columns.push(("grasp", Arc::new(grasp.finish())));
    }
    for (k, mut b) in labels {
        columns.push((k, Arc::new(b.finish())));
    }
    let schema = Schema::new(
        columns
            .iter()
            .map(|(n, c)| Field::new(*n, c.data_type().clone(), true))
            .collect::<Vec<_>>(),
    );
    let columns = columns.into_iter().map(|(_, c)| c).collect();
    let batch = RecordBatch::try_new(Arc::new(schema), columns).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    for start in (0..batch.num_rows()).step_by(group_rows) {
        w.write(&batch.slice(start, group_rows.min(batch.num_rows() - start)))
            .unwrap();
        w.flush().unwrap();
    }
    w.close().unwrap();
}

fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A Parquet file of grasp answers, row by row in the form of the JSON answers: each
/// answered row's fields (`q1_upper`, `refined` and `reason` only where not null, `facet`
/// null or an object), each refused row's `id`, `line` and `error`, its answer columns null.
fn parquet_answers(path: &Path) -> (DataType, Vec<Value>) {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let mut batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1);
    let t = batches.pop().unwrap();
    let names: Vec<&str> = t
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        [
            "id",
            "force_closure",
            "q1",
            "q1_lower",
            "q1_upper",
            "weakest",
            "facet",
            "margin_checked",
            "friction",
            "pyramid",
            "n_generators",
            "q1_at_least",
            "q1_at_least_uncertain",
            "refined",
            "reason",
            "line",
            "error"
        ]
    );
    let col = |name: &str| t.column_by_name(name).unwrap().clone();
    let id = col("id");
    let id_type = id.data_type().clone();
    let (fc, q1, q1_lower, q1_upper, weakest) = (
        col("force_closure"),
        col("q1"),
        col("q1_lower"),
        col("q1_upper"),
        col("weakest"),
    );
    let (fc, q1, q1_lower, q1_upper, weakest) = (
        fc.as_string::<i32>(),
        q1.as_primitive::<Float64Type>(),
        q1_lower.as_primitive::<Float64Type>(),
        q1_upper.as_primitive::<Float64Type>(),
        weakest.as_list::<i32>(),
    );
    let (facet, checked, friction) = (col("facet"), col("margin_checked"), col("friction"));
    let (facet, checked, friction) = (
        facet.as_struct(),
        checked.as_boolean(),
        friction.as_string::<i32>(),
    );
    let (pyramid, n_gens, refined, reason) = (
        col("pyramid"),
        col("n_generators"),
        col("refined"),
        col("reason"),
    );
    let (pyramid, n_gens, refined, reason) = (
        pyramid.as_primitive::<Int64Type>(),
        n_gens.as_primitive::<Int64Type>(),
        refined.as_struct(),
        reason.as_string::<i32>(),
    );
    let (line, error) = (col("line"), col("error"));
    let (line, error) = (line.as_primitive::<UInt64Type>(), error.as_string::<i32>());
    let (at_least, at_least_uncertain) = (col("q1_at_least"), col("q1_at_least_uncertain"));
    let (at_least, at_least_uncertain) = (at_least.as_boolean(), at_least_uncertain.as_boolean());
    let floats = |a: ArrayRef| json!(a.as_primitive::<Float64Type>().values().to_vec());
    let indices = |a: ArrayRef| json!(a.as_primitive::<UInt32Type>().values().to_vec());
    let rows = (0..t.num_rows())
        .map(|i| {
            let id = if id.is_null(i) {
                Value::Null
            } else if let Some(s) = id.as_string_opt::<i32>() {
                json!(s.value(i))
            } else {
                json!(id.as_primitive::<Int64Type>().value(i))
            };
            let mut o = Map::new();
            o.insert("id".into(), id);
            if !error.is_null(i) {
                let answer: [&dyn Array; 8] =
                    [fc, q1, q1_lower, weakest, facet, checked, friction, pyramid];
                assert!(answer.iter().all(|a| a.is_null(i)), "row {}", i + 1);
                assert!(n_gens.is_null(i) && refined.is_null(i) && reason.is_null(i));
                assert!(at_least.is_null(i) && at_least_uncertain.is_null(i));
                o.insert("line".into(), json!(line.value(i)));
                o.insert("error".into(), json!(error.value(i)));
                return Value::Object(o);
            }
            assert!(line.is_null(i), "row {}", i + 1);
            let verdict = match fc.value(i) {
                "true" => json!(true),
                "false" => json!(false),
                other => json!(other),
            };
            o.insert("force_closure".into(), verdict);
            o.insert("q1".into(), json!(q1.value(i)));
            o.insert("q1_lower".into(), json!(q1_lower.value(i)));
            if !q1_upper.is_null(i) {
                o.insert("q1_upper".into(), json!(q1_upper.value(i)));
            }
            o.insert("weakest".into(), floats(weakest.value(i)));
            let f = if facet.is_null(i) {
                Value::Null
            } else {
                let c = |k: usize| facet.column(k).as_list::<i32>().value(i);
                json!({"normal": floats(c(0)), "generators": indices(c(1)), "contacts": indices(c(2))})
            };
            o.insert("facet".into(), f);
            o.insert("margin_checked".into(), json!(checked.value(i)));
            o.insert("friction".into(), json!(friction.value(i)));
            o.insert("pyramid".into(), json!(pyramid.value(i)));
            o.insert("n_generators".into(), json!(n_gens.value(i)));
            // A threshold's answer: decided (true/false, not uncertain), "uncertain" (null,
            // true), or none asked (null, null).
            match (at_least.is_null(i), at_least_uncertain.is_null(i)) {
                (true, true) => {}
                (false, false) => {
                    assert!(!at_least_uncertain.value(i), "row {}", i + 1);
                    o.insert("q1_at_least".into(), json!(at_least.value(i)));
                }
                (true, false) => {
                    assert!(at_least_uncertain.value(i), "row {}", i + 1);
                    o.insert("q1_at_least".into(), json!("uncertain"));
                }
                (false, true) => panic!("row {}: q1_at_least without its uncertainty", i + 1),
            }
            if !refined.is_null(i) {
                let r = |k: usize| refined.column(k).clone();
                o.insert(
                    "refined".into(),
                    json!({
                        "pyramid": r(0).as_primitive::<Int64Type>().value(i),
                        "q1": r(1).as_primitive::<Float64Type>().value(i),
                        "q1_upper": r(2).as_primitive::<Float64Type>().value(i),
                    }),
                );
            }
            if !reason.is_null(i) {
                o.insert("reason".into(), json!(reason.value(i)));
            }
            Value::Object(o)
        })
        .collect();
    (id_type, rows)
}

/// The public grasps but the twelve `large` ones (15 s of the 18 alone, and nothing for the
/// formats that the others lack), and three bad rows in between: a zero normal, μ < 0, and
/// a `mass` (a scene's field, not a grasp's). Returns the rows and the bad rows' numbers.
fn public_grasps_with_bad_rows() -> (Vec<Value>, Vec<usize>) {
    let mut rows: Vec<Value> = crate::common::read_data("grasp_public.jsonl")
        .into_iter()
        .filter(|g| g["category"] != "large")
        .collect();
    assert!(rows.len() > 150);
    let mut bad = Vec::new();
    let template = rows[0].clone();
    for (at, edit) in [(10, "normal"), (77, "mu"), (150, "mass")] {
        let mut g = template.clone();
        g["id"] = json!(format!("bad-{edit}"));
        match edit {
            "normal" => g["contacts"][1]["normal"] = json!([0.0, 0.0, 0.0]),
            "mu" => g["contacts"][2]["mu"] = json!(-0.25),
            _ => g["mass"] = json!(1.5),
        }
        rows.insert(at, g);
        bad.push(at + 1);
    }
    (rows, bad)
}

#[test]
fn grasp_parquet_answers_equal_the_json_lines_answers_field_for_field() {
    let (rows, bad) = public_grasps_with_bad_rows();
    let d = dir("public");
    let (jsonl, parquet) = (d.join("grasps.jsonl"), d.join("grasps.parquet"));
    write_jsonl(&jsonl, &rows);
    write_grasps(&parquet, &rows, 64, false);
    let runs = [
        (&jsonl, d.join("want.jsonl")),
        (&parquet, d.join("from_parquet.jsonl")),
        (&parquet, d.join("from_parquet.parquet")),
        (&jsonl, d.join("from_jsonl.parquet")),
    ];
    for (input, output) in &runs {
        let out = gate(input, output);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{}: {stderr}", output.display());
        for n in &bad {
            assert!(stderr.contains(&format!(":{n}: ")), "row {n}: {stderr}");
        }
        assert_eq!(
            stderr.matches("planar-hold: ").count(),
            bad.len() + 1,
            "{stderr}"
        );
    }
    let want = json_lines(&runs[0].1);
    assert_eq!(want.len(), rows.len());
    for n in &bad {
        let refused = &want[n - 1];
        assert_eq!(refused["line"], json!(n));
        assert_eq!(refused["id"], rows[n - 1]["id"]);
        assert!(refused["error"].is_string(), "{refused}");
    }
    let errors: Vec<&str> = bad
        .iter()
        .map(|n| want[n - 1]["error"].as_str().unwrap())
        .collect();
    assert!(errors[0].contains("normal"), "{}", errors[0]);
    assert!(errors[1].contains("mu"), "{}", errors[1]);
    assert!(errors[2].contains("mass"), "{}", errors[2]);
    // Every kind of answer is among them: refined "coulomb" ones, each verdict.
    assert!(want.iter().any(|a| a.get("refined").is_some()));
    for verdict in [json!(true), json!(false), json!("uncertain")] {
        assert!(
            want.iter().any(|a| a["force_closure"] == verdict),
            "{verdict}"
        );
    }
    // Parquet in, JSON Lines out: the very same text.
    assert_eq!(
        std::fs::read_to_string(&runs[1].1).unwrap(),
        std::fs::read_to_string(&runs[0].1).unwrap()
    );
    // Parquet out, from either input: the same values, field for field.
    for (_, output) in &runs[2..] {
        let (id_type, got) = parquet_answers(output);
        assert_eq!(id_type, DataType::Utf8);
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{}: row {}", output.display(), i + 1);
        }
    }
}

/// `Decided::at_least` of a bracket, as the answers write it.
fn at_least(lower: f64, q1: f64, t: f64) -> Value {
    if lower >= t {
        json!(true)
    } else if q1 < t {
        json!(false)
    } else {
        json!("uncertain")
    }
}

#[test]
fn grasp_thresholds_and_circular_rows_agree_across_formats() {
    // Pyramid and circular grasps, each row with a threshold of its own (a `q1_at_least`
    // column, float64) or none (null: `--q1-at-least 0.05` applies). The thresholds come
    // from each grasp's full bracket, so that every answer occurs: true (T below q1_lower),
    // false (T above q1), uncertain (T = q1 where the bracket is open). Through every pair
    // of formats the answers are those of JSON Lines in and out.
    let pyramids = crate::common::read_data("grasp_public.jsonl")
        .into_iter()
        .filter(|g| g["category"] != "large")
        .take(40);
    let circular = crate::common::read_data("grasp_circular_public.jsonl")
        .into_iter()
        .take(24);
    let mut rows: Vec<Value> = pyramids.chain(circular).collect();
    let d = dir("thresholds");
    let plain = d.join("plain.jsonl");
    write_jsonl(&plain, &rows);
    let full_answers = d.join("full.jsonl");
    assert_eq!(gate(&plain, &full_answers).status.code(), Some(0));
    let full = json_lines(&full_answers);
    assert!(full.iter().all(|a| a.get("q1_at_least").is_none()));
    let bracket = |a: &Value| (a["q1_lower"].as_f64().unwrap(), a["q1"].as_f64().unwrap());
    for (i, (r, a)) in rows.iter_mut().zip(&full).enumerate() {
        let (lower, q1) = bracket(a);
        let t = match i % 4 {
            0 => continue,
            1 => q1,
            2 => q1 + 0.01,
            _ => lower - 0.01,
        };
        r["q1_at_least"] = json!(t);
    }
    let (jsonl, parquet) = (d.join("grasps.jsonl"), d.join("grasps.parquet"));
    write_jsonl(&jsonl, &rows);
    write_grasps(&parquet, &rows, 16, false);
    let runs = [
        (&jsonl, d.join("want.jsonl")),
        (&parquet, d.join("from_parquet.jsonl")),
        (&parquet, d.join("from_parquet.parquet")),
        (&jsonl, d.join("from_jsonl.parquet")),
    ];
    for (input, output) in &runs {
        let out = gate_with(input, output, &["--q1-at-least", "0.05"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", output.display());
    }
    let want = json_lines(&runs[0].1);
    assert_eq!(want.len(), rows.len());
    // Every threshold is decided by the bracket its answer reports (the row's own, else
    // --q1-at-least's). "coulomb" lines are answered in full: the full answer's bracket.
    // The others stop once T is decided (the true cones', and the pyramids' wrenches'
    // searches): their bracket overlaps the full one, within rounding.
    for (i, (w, a)) in want.iter().zip(&full).enumerate() {
        let t = rows[i]["q1_at_least"].as_f64().unwrap_or(0.05);
        let (lower, q1) = bracket(w);
        assert_eq!(w["q1_at_least"], at_least(lower, q1, t), "row {}", i + 1);
        let (full_lower, full_q1) = bracket(a);
        if a["friction"] == "coulomb" {
            assert_eq!((lower, q1), (full_lower, full_q1), "row {}", i + 1);
        } else {
            let tol = 1e-7 * full_q1.abs().max(1.0);
            assert!(
                lower <= q1 && lower <= full_q1 + tol && q1 >= full_lower - tol,
                "row {}: [{lower}, {q1}] against the full [{full_lower}, {full_q1}]",
                i + 1
            );
        }
    }
    for value in [json!(true), json!(false), json!("uncertain")] {
        assert!(want.iter().any(|a| a["q1_at_least"] == value), "{value}");
    }
    assert!(want.iter().any(|a| a["friction"] == "circular"));
    // Parquet in, JSON Lines out: the very same text.
    assert_eq!(
        std::fs::read_to_string(&runs[1].1).unwrap(),
        std::fs::read_to_string(&runs[0].1).unwrap()
    );
    // Parquet out, from either input: the same values, field for field.
    for (_, output) in &runs[2..] {
        let (_, got) = parquet_answers(output);
        assert_eq!(got, want, "{}", output.display());
    }
}

#[test]
fn grasp_parquet_output_refuses_proofs_by_name() {
    // A proof is a JSON object: `gate --proof` with a Parquet output is refused with status 2
    // and says to write JSON Lines, before anything is read or written; without --proof the
    // same grasps answer (q1_lower among the columns).
    let rows: Vec<Value> = crate::common::read_data("grasp_public.jsonl")
        .into_iter()
        .take(8)
        .collect();
    let d = dir("proof");
    let input = d.join("grasps.jsonl");
    write_jsonl(&input, &rows);
    let output = d.join("answers.parquet");
    let out = crate::common::cli()
        .arg("gate")
        .arg(&input)
        .args(["--backend", "cpu", "--proof", "-o"])
        .arg(&output)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--proof") && stderr.contains("JSON Lines"),
        "{stderr}"
    );
    assert!(!output.exists());
    assert_eq!(gate(&input, &output).status.code(), Some(0));
    let (_, got) = parquet_answers(&output);
    assert_eq!(got.len(), rows.len());
    assert!(got
        .iter()
        .all(|a| a["q1_lower"].as_f64().unwrap() <= a["q1"].as_f64().unwrap() + 1e-9));
}

#[test]
fn grasp_parquet_rows_are_numbered_across_chunks_and_row_groups() {
    // 9,000 rows over chunks (of 4,096 rows at most; a file this small is cut finer, for
    // every core) and row groups of 1,000: good grasps at the first and last rows and on
    // either side of 4,096-row boundaries, the rest refused, every row's number checked
    // (μ an interval from below 0), cheaply; integer ids, μ intervals and explicit `dim`
    // and `grasp` columns.
    let public = crate::common::read_data("grasp_public.jsonl");
    let good_at = [1usize, 4096, 4097, 8192, 8193, 9000];
    let rows: Vec<Value> = (1..=9000usize)
        .map(|n| {
            let k = good_at.iter().position(|&g| g == n);
            let mut g = public[k.unwrap_or(0)].clone();
            g["id"] = json!(100_000 + n);
            for c in g["contacts"].as_array_mut().unwrap() {
                let m = c["mu"].as_f64().unwrap();
                c["mu"] = if k.is_some() {
                    json!([m, m + 0.1])
                } else {
                    json!([-m, m])
                };
            }
            g
        })
        .collect();
    let d = dir("chunks");
    let (jsonl, parquet) = (d.join("grasps.jsonl"), d.join("grasps.parquet"));
    write_jsonl(&jsonl, &rows);
    write_grasps(&parquet, &rows, 1000, true);
    let (want, from_parquet, as_parquet) = (
        d.join("want.jsonl"),
        d.join("from_parquet.jsonl"),
        d.join("from_parquet.parquet"),
    );
    for (input, output) in [
        (&jsonl, &want),
        (&parquet, &from_parquet),
        (&parquet, &as_parquet),
    ] {
        let out = gate(input, output);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{stderr}");
        assert!(stderr.contains(":4098: "), "{stderr}");
        assert!(!stderr.contains(":4097: "), "{stderr}");
    }
    let text = std::fs::read_to_string(&want).unwrap();
    assert_eq!(text, std::fs::read_to_string(&from_parquet).unwrap());
    let want: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(want.len(), rows.len());
    for (i, a) in want.iter().enumerate() {
        let n = i + 1;
        assert_eq!(a["id"], json!(100_000 + n));
        assert_eq!(
            a.get("error").is_none(),
            good_at.contains(&n),
            "row {n}: {a}"
        );
        if a.get("error").is_some() {
            assert_eq!(a["line"], json!(n));
        }
    }
    let (id_type, got) = parquet_answers(&as_parquet);
    assert_eq!(
        id_type,
        DataType::Int64,
        "integer ids pass through as int64"
    );
    assert_eq!(got, want);
}

#[test]
fn grasp_parquet_output_refuses_lines_that_are_not_grasps() {
    let d = dir("kinds");
    let grasp = crate::common::read_data("grasp_public.jsonl").swap_remove(0);
    let scene = crate::common::read_data("scenes_public.jsonl").swap_remove(0);
    let input = d.join("mixed.jsonl");
    write_jsonl(&input, &[grasp.clone(), scene.clone(), grasp]);
    let output = d.join("answers.parquet");
    let out = gate(&input, &output);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains(":2: not a grasp line"), "{stderr}");
    let (_, got) = parquet_answers(&output);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], got[2]);
    assert_eq!(got[1]["line"], json!(2));
    assert_eq!(got[1]["id"], scene["id"]);
    // A Parquet file without a `contacts` column is no file of grasps: nothing is written.
    let cases = d.join("cases.parquet");
    let ids: ArrayRef = Arc::new(arrow_array::Int64Array::from(vec![1, 2]));
    let batch = RecordBatch::try_from_iter([("id", ids)]).unwrap();
    let mut w =
        ArrowWriter::try_new(std::fs::File::create(&cases).unwrap(), batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let answers = d.join("none.jsonl");
    let out = gate(&cases, &answers);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("no `contacts` column"), "{stderr}");
    assert!(!answers.exists());
}

/// One fingertip of a hand-built grasp row: each field may be null (`None`), and lists may
/// hold nulls or the wrong number of numbers.
#[derive(Clone)]
struct Tip {
    points: Option<Vec<Vec<Option<f64>>>>,
    normal: Option<Vec<Option<f64>>>,
    mu: Option<f32>,
}

fn tip(p: [f64; 3], n: [f64; 3]) -> Tip {
    Tip {
        points: Some(vec![p.iter().map(|&x| Some(x)).collect()]),
        normal: Some(n.iter().map(|&x| Some(x)).collect()),
        mu: Some(0.5),
    }
}

/// Four fingertips on a unit cube, in force closure (the README's grasp, scaled).
fn four_tips() -> Vec<Tip> {
    vec![
        tip([1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        tip([-1.0, 0.6, 0.0], [1.0, 0.0, 0.0]),
        tip([-1.0, -0.6, 0.4], [1.0, 0.0, 0.0]),
        tip([0.0, 0.0, 1.0], [0.0, 0.0, -1.0]),
    ]
}

/// Rows of (id, half_size, tips) as Parquet in row groups of `group_rows`: `id` int64,
/// `half_size` int64 (an integer column where a line has a number), `pyramid` int32,
/// `contacts` list<struct<points: list<list<float64>>, normal: list<float64>, mu: float32>>.
fn write_tips(path: &Path, rows: &[TipRow], group_rows: usize) {
    use arrow_array::builder::{Float32Builder, Int32Builder, StructBuilder};
    let points_type = DataType::List(Arc::new(Field::new_list_field(
        DataType::List(Arc::new(Field::new_list_field(DataType::Float64, true))),
        true,
    )));
    let fields = Fields::from(vec![
        Field::new("points", points_type, true),
        Field::new(
            "normal",
            DataType::List(Arc::new(Field::new_list_field(DataType::Float64, true))),
            true,
        ),
        Field::new("mu", DataType::Float32, true),
    ]);
    let contact = StructBuilder::new(
        fields,
        vec![
            Box::new(ListBuilder::new(ListBuilder::new(Float64Builder::new()))),
            Box::new(ListBuilder::new(Float64Builder::new())),
            Box::new(Float32Builder::new()),
        ],
    );
    let mut contacts = ListBuilder::new(contact);
    let (mut ids, mut half, mut k) = (
        Int64Builder::new(),
        Int64Builder::new(),
        Int32Builder::new(),
    );
    for (id, half_size, tips) in rows {
        ids.append_option(*id);
        half.append_option(*half_size);
        k.append_value(6);
        let s = contacts.values();
        for t in tips {
            let points = s
                .field_builder::<ListBuilder<ListBuilder<Float64Builder>>>(0)
                .unwrap();
            match &t.points {
                Some(ps) => {
                    for p in ps {
                        points.values().values().extend(p.iter().copied());
                        points.values().append(true);
                    }
                    points.append(true);
                }
                None => points.append(false),
            }
            let normal = s.field_builder::<ListBuilder<Float64Builder>>(1).unwrap();
            match &t.normal {
                Some(n) => {
                    normal.values().extend(n.iter().copied());
                    normal.append(true);
                }
                None => normal.append(false),
            }
            s.field_builder::<Float32Builder>(2)
                .unwrap()
                .append_option(t.mu);
            s.append(true);
        }
        contacts.append(true);
    }
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(ids.finish()) as ArrayRef),
        ("half_size", Arc::new(half.finish()) as ArrayRef),
        ("pyramid", Arc::new(k.finish()) as ArrayRef),
        ("contacts", Arc::new(contacts.finish()) as ArrayRef),
    ])
    .unwrap();
    let mut w =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    for start in (0..batch.num_rows()).step_by(group_rows) {
        w.write(&batch.slice(start, group_rows.min(batch.num_rows() - start)))
            .unwrap();
        w.flush().unwrap();
    }
    w.close().unwrap();
}

/// A hand-built row: (id, half_size, fingertips).
type TipRow = (Option<i64>, Option<i64>, Vec<Tip>);

/// A change made to a good row: its fingertips, id and half_size.
type Edit = dyn Fn(&mut Vec<Tip>, &mut Option<i64>, &mut Option<i64>);

/// A row's grasp line: what the row means, for the rows that can be read.
fn tips_line(id: i64, half_size: i64, tips: &[Tip]) -> Value {
    let contacts: Vec<Value> = tips
        .iter()
        .map(|t| {
            let p: Vec<Vec<f64>> = t
                .points
                .as_ref()
                .unwrap()
                .iter()
                .map(|p| p.iter().map(|x| x.unwrap()).collect())
                .collect();
            let n: Vec<f64> = t
                .normal
                .as_ref()
                .unwrap()
                .iter()
                .map(|x| x.unwrap())
                .collect();
            json!({"points": p, "normal": n, "mu": t.mu.unwrap()})
        })
        .collect();
    json!({"id": id, "dim": 3, "grasp": true, "half_size": half_size, "pyramid": 6, "contacts": contacts})
}

#[test]
fn grasp_rows_are_read_column_by_column_with_each_bad_value_named_by_row_and_place() {
    // Ten rows in row groups of three: good rows on both sides of each group boundary, bad
    // ones holding a null, a list of the wrong length or a NaN where a line could not.
    let good = four_tips();
    let mut rows: Vec<TipRow> = Vec::new();
    let mut want_error: Vec<(usize, &str)> = Vec::new();
    let mut edit = |n: usize, error: &'static str, change: &Edit| {
        let (mut tips, mut id, mut half) = (good.clone(), Some(n as i64), Some(1));
        change(&mut tips, &mut id, &mut half);
        rows.push((id, half, tips));
        if !error.is_empty() {
            want_error.push((n, error));
        }
    };
    edit(1, "", &|_, _, _| ());
    edit(
        2,
        "contacts[1].normal: invalid length 2, expected an array of length 3",
        &|t, _, _| {
            t[1].normal.as_mut().unwrap().pop();
        },
    );
    edit(3, "contacts[1]: missing field `normal`", &|t, _, _| {
        t[1].normal = None
    });
    edit(4, "", &|_, _, _| ());
    edit(
        5,
        "contacts[0].points[0][1]: non-finite number NaN",
        &|t, _, _| {
            t[0].points.as_mut().unwrap()[0][1] = Some(f64::NAN);
        },
    );
    edit(
        6,
        "contacts[2].normal[1]: invalid type: null, expected f64",
        &|t, _, _| {
            t[2].normal.as_mut().unwrap()[1] = None;
        },
    );
    edit(7, "", &|_, _, _| ());
    edit(8, "missing field `half_size`", &|_, _, h| *h = None);
    edit(9, "contacts[3].points[0]: invalid length 4", &|t, _, _| {
        t[3].points.as_mut().unwrap()[0].push(Some(0.0));
    });
    edit(10, "missing field `id`", &|_, id, _| *id = None);
    edit(11, "contacts[2]: missing field `mu`", &|t, _, _| {
        t[2].mu = None
    });
    edit(12, "", &|t, _, _| t.truncate(3));
    let d = dir("columns");
    let parquet = d.join("tips.parquet");
    write_tips(&parquet, &rows, 3);
    let answers = d.join("answers.jsonl");
    let out = gate(&parquet, &answers);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    let got = json_lines(&answers);
    assert_eq!(got.len(), rows.len());
    for (n, error) in &want_error {
        let a = &got[n - 1];
        assert_eq!(a["line"], json!(n), "row {n}: {a}");
        let text = a["error"].as_str().unwrap_or_default();
        assert!(text.contains(error), "row {n}: {text}");
        assert!(stderr.contains(&format!(":{n}: ")), "row {n}: {stderr}");
        // The id where the row has one, the rest of the row refused.
        let id = if *n == 10 { Value::Null } else { json!(n) };
        assert_eq!(a["id"], id, "row {n}");
    }
    // The good rows: the answers of the same grasps as JSON Lines, byte for byte.
    let good_rows: Vec<usize> = (1..=rows.len())
        .filter(|n| !want_error.iter().any(|(m, _)| m == n))
        .collect();
    assert_eq!(good_rows, [1, 4, 7, 12]);
    let lines: Vec<Value> = good_rows
        .iter()
        .map(|&n| tips_line(n as i64, 1, &rows[n - 1].2))
        .collect();
    let jsonl = d.join("tips.jsonl");
    write_jsonl(&jsonl, &lines);
    let from_lines = d.join("from_lines.jsonl");
    let out = gate(&jsonl, &from_lines);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = json_lines(&from_lines);
    for (k, &n) in good_rows.iter().enumerate() {
        assert_eq!(got[n - 1], want[k], "row {n}");
        assert!(got[n - 1]["q1"].is_f64());
    }
    assert_eq!(got[0]["force_closure"], json!(true));
}

#[test]
fn a_few_thousand_parquet_grasps_are_cut_into_chunks_for_every_core() {
    // 2,048 rows, one row group: one chunk of 4,096 would leave a core idle. Each chunk is
    // written as a row group of its own, so the output shows how the input was cut.
    let public = crate::common::read_data("grasp_public.jsonl");
    let rows: Vec<Value> = (0..2048).map(|i| public[i % 8].clone()).collect();
    let d = dir("spread");
    let (input, output) = (d.join("grasps.parquet"), d.join("answers.parquet"));
    write_grasps(&input, &rows, 2048, false);
    let out = gate_command(&input, &output)
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::fs::File::open(&output).unwrap();
    let meta = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let groups = meta.metadata().row_groups();
    assert_eq!(groups.iter().map(|g| g.num_rows()).sum::<i64>(), 2048);
    // At most an eighth of the file's share a core: 2,048 / (8 · 2) = 128 rows a chunk.
    assert_eq!(
        groups.len(),
        16,
        "{:?}",
        groups.iter().map(|g| g.num_rows()).collect::<Vec<_>>()
    );
    let (_, got) = parquet_answers(&output);
    assert_eq!(got.len(), 2048);
    assert!(got.iter().all(|a| a.get("error").is_none()));
}

#[test]
fn json_grasps_written_as_parquet_keep_row_groups_of_parquet_size() {
    // The gate reads JSON Lines in chunks of at most 512 lines, but a chunk written as
    // Parquet is a row group, and those keep the size of a Parquet input's chunks (4,096
    // rows at most): 512-row groups would make a large answer file needlessly fragmented.
    let public = crate::common::read_data("grasp_public.jsonl");
    let rows: Vec<Value> = (0..12_000).map(|i| public[i % 8].clone()).collect();
    let d = dir("json_to_parquet_groups");
    let (input, output) = (d.join("grasps.jsonl"), d.join("answers.parquet"));
    write_jsonl(&input, &rows);
    let out = gate_command(&input, &output)
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = std::fs::File::open(&output).unwrap();
    let meta = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let sizes: Vec<i64> = meta
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    assert_eq!(sizes.iter().sum::<i64>(), 12_000);
    let largest = sizes.iter().copied().max().unwrap_or(0);
    assert!((513..=4096).contains(&largest), "{sizes:?}");
}
