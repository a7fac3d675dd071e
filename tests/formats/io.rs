//! Streaming I/O of `eval` and `gate`: answers in input order across chunks and threads,
//! both formats, bad rows in the middle of large inputs, atomic `-o`, exit statuses, stdin
//! and stdout. Answers are compared with the library's own engine on the same cases (not
//! with fixed margins: the kernels may change numerically).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, Int64Array, ListArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use planar_hold::io::json::{parse_case, Answer};
use planar_hold::{Backend, Case, Engine};
use serde_json::{json, Value};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("planar-hold-io-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cli(args: &[&str]) -> Command {
    let mut c = crate::common::cli();
    c.args(args);
    c
}

/// Runs with `stdin` fed from `input` (when given).
fn run(mut c: Command, input: Option<&[u8]>) -> Output {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.map(<[u8]>::to_vec);
    let feeder = std::thread::spawn(move || {
        if let Some(d) = data {
            let _ = stdin.write_all(&d);
        }
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn case_line(id: usize, c: &Case) -> String {
    let gens: Vec<[f32; 3]> = c.active_generators().map(|(_, g)| g).collect();
    json!({"id": format!("c{id}"), "generators": gens, "need": c.need}).to_string()
}

/// What `eval` must write for these good lines: the library's answers, as JSON text.
fn expected_answers(lines: &[String]) -> Vec<String> {
    let parsed: Vec<(Option<Value>, Case)> = lines.iter().map(|l| parse_case(l).unwrap()).collect();
    let cases: Vec<Case> = parsed.iter().map(|p| p.1).collect();
    let outcomes = crate::common::planar_outcomes(&Engine::new(Backend::Cpu).unwrap(), &cases);
    parsed
        .into_iter()
        .zip(&outcomes)
        .map(|((id, case), o)| serde_json::to_string(&Answer::new(id, &case, o)).unwrap())
        .collect()
}

/// 70,000 cases (several chunks of 16,384) with bad lines spread through them.
struct Big {
    text: Vec<u8>,
    /// Per output line: `Ok(expected answer)` or `Err(input line number)`.
    want: Vec<Result<String, u64>>,
}

fn big() -> Big {
    let cases = planar_hold::details::sample::mixed_cases(11, 70_000);
    let good: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| case_line(i, c))
        .collect();
    let answers = expected_answers(&good);
    let mut bad: Vec<(usize, Vec<u8>)> = vec![
        (5, b"not json".to_vec()),
        (
            32_767,
            br#"{"id": "typo", "generators": [[0,1,0]], "Need": [0,1,0]}"#.to_vec(),
        ),
        (
            32_768,
            b"{\"id\": \"utf8\", \"generators\": [[0,1,0]]} \xff".to_vec(),
        ),
        (40_000, {
            let mut long = br#"{"id": "long", "generators": [[0,1,0]], "pad": ""#.to_vec();
            long.extend(std::iter::repeat_n(b'x', (1 << 20) + 10));
            long.extend(b"\"}");
            long
        }),
        (69_999, br#"{"generators": [[1, 0]]}"#.to_vec()),
    ];
    let mut text = b"\xEF\xBB\xBF".to_vec(); // a byte-order mark, accepted
    let mut want = Vec::new();
    let mut number = 0u64;
    for (i, (line, answer)) in good.iter().zip(answers).enumerate() {
        if let Some(pos) = bad.iter().position(|(at, _)| *at == i) {
            number += 1;
            text.extend(&bad.remove(pos).1);
            text.push(b'\n');
            want.push(Err(number));
        }
        if i % 10_000 == 3 {
            text.extend(b"   \r\n"); // blank lines are skipped but counted
            number += 1;
        }
        number += 1;
        text.extend(line.as_bytes());
        text.extend(if i % 2 == 0 { &b"\n"[..] } else { &b"\r\n"[..] });
        want.push(Ok(answer));
    }
    Big { text, want }
}

fn check_big(out: &[u8], want: &[Result<String, u64>]) {
    let text = String::from_utf8(out.to_vec()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), want.len());
    for (k, (got, want)) in lines.iter().zip(want).enumerate() {
        match want {
            Ok(answer) => assert_eq!(got, answer, "output line {}", k + 1),
            Err(number) => {
                let v: Value = serde_json::from_str(got).unwrap();
                assert_eq!(v["line"], json!(number), "output line {}: {got}", k + 1);
                assert!(
                    v["error"].is_string() && v.get("verdict").is_none(),
                    "{got}"
                );
            }
        }
    }
}

#[test]
fn stdin_to_stdout_in_order_across_chunks_with_bad_lines_in_the_middle() {
    let big = big();
    let out = run(cli(&["eval", "-", "--backend", "cpu"]), Some(&big.text));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    check_big(&out.stdout, &big.want);
    // Each refused line is named on stderr with its number and what is wrong.
    let numbers: Vec<u64> = big
        .want
        .iter()
        .filter_map(|w| w.as_ref().err().copied())
        .collect();
    for (number, word) in numbers.iter().zip([
        "expected",
        "unknown field `Need`",
        "at column",
        "longer than 1048576",
        "three numbers",
    ]) {
        let line = stderr
            .lines()
            .find(|l| l.starts_with(&format!("planar-hold: -:{number}: ")))
            .unwrap_or_else(|| panic!("line {number} not named:\n{stderr}"));
        assert!(line.contains(word), "{line:?} lacks {word:?}");
        // One sentence naming the line once: not again in words, nor serde's "line 1".
        assert!(!line.contains("at line"), "{line:?}");
        assert!(!line.contains(&format!("line {number}")), "{line:?}");
    }
    assert!(stderr.contains("5 bad input line(s)"), "{stderr}");
}

#[test]
fn file_to_file_equals_stdin_to_stdout_and_ids_survive_bad_lines() {
    let big = big();
    let d = dir("file");
    let input = d.join("cases.jsonl");
    std::fs::write(&input, &big.text).unwrap();
    let output = d.join("answers.jsonl");
    let out = run(
        cli(&[
            "eval",
            input.to_str().unwrap(),
            "--backend",
            "cpu",
            "-o",
            output.to_str().unwrap(),
        ]),
        None,
    );
    assert_eq!(out.status.code(), Some(5));
    assert!(out.stdout.is_empty());
    let written = std::fs::read(&output).unwrap();
    check_big(&written, &big.want);
    assert!(!d.join("answers.jsonl.partial").exists());
    // A refused line keeps its id when it has one.
    let typo = String::from_utf8(written).unwrap();
    assert!(
        typo.lines()
            .any(|l| l.starts_with(r#"{"id":"typo","line":"#)),
        "typo id lost"
    );
}

#[test]
fn unknown_fields_are_refused_and_bom_accepted_by_the_parser() {
    let e = parse_case(r#"{"generators": [[0,1,0]], "Need": [1,0,0]}"#).unwrap_err();
    assert!(e.contains("unknown field `Need`"), "{e}");
    let e = parse_case(r#"{"generators": [[0,1,0],[1,2]]}"#).unwrap_err();
    assert!(
        e.contains("generator 1 must be three numbers, got 2"),
        "{e}"
    );
    let (id, case) = parse_case(r#"{"id": {"k": [1, 2]}, "generators": [[0,1,0]]}"#).unwrap();
    assert_eq!(id, Some(json!({"k": [1, 2]})));
    assert_eq!(case.need, [0.0, 1.0, 0.0]);
    let out = run(
        cli(&["eval", "-", "--backend", "cpu"]),
        Some(b"\xEF\xBB\xBF{\"generators\": [[0,1,0]]}\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ------------------------------------------------------------------ Parquet

/// Writes cases to Parquet: `generators` list<list<float32>>, `need`, int64 `id`; row
/// `null_row` has null generators, row `short_row` a two-number generator.
fn write_parquet(path: &Path, cases: &[Case], null_row: usize, short_row: usize) {
    write_parquet_groups(path, cases, null_row, short_row, 20_000, None);
}

/// [`write_parquet`] with row groups of `group_rows` and the writer's `props`.
fn write_parquet_groups(
    path: &Path,
    cases: &[Case],
    null_row: usize,
    short_row: usize,
    group_rows: usize,
    props: Option<WriterProperties>,
) {
    let mut gens = arrow_array::builder::ListBuilder::new(arrow_array::builder::ListBuilder::new(
        arrow_array::builder::Float32Builder::new(),
    ));
    let mut need = arrow_array::builder::FixedSizeListBuilder::new(
        arrow_array::builder::Float64Builder::new(),
        3,
    );
    for (i, c) in cases.iter().enumerate() {
        if i == null_row {
            gens.append_null();
        } else {
            for (_, g) in c.active_generators() {
                let take = if i == short_row { 2 } else { 3 };
                gens.values().values().append_slice(&g[..take]);
                gens.values().append(true);
            }
            gens.append(true);
        }
        need.values().append_slice(&c.need.map(f64::from));
        need.append(true);
    }
    let ids = Int64Array::from_iter_values((0..cases.len() as i64).map(|i| 1000 + i));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids),
        Arc::new(gens.finish()),
        Arc::new(need.finish()),
    ];
    let schema = Schema::new(
        ["id", "generators", "need"]
            .iter()
            .zip(&columns)
            .map(|(n, c)| Field::new(*n, c.data_type().clone(), true))
            .collect::<Vec<_>>(),
    );
    let batch = RecordBatch::try_new(Arc::new(schema), columns).unwrap();
    let mut w =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), props).unwrap();
    // Several row groups, so that batches stream.
    for start in (0..batch.num_rows()).step_by(group_rows) {
        w.write(&batch.slice(start, group_rows.min(batch.num_rows() - start)))
            .unwrap();
        w.flush().unwrap();
    }
    w.close().unwrap();
}

/// The whole file as one batch (the reader fills a batch across row groups).
fn read_parquet(path: &Path) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .with_batch_size(1 << 20)
        .build()
        .unwrap();
    let mut batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1);
    batches.pop().unwrap()
}

#[test]
fn parquet_in_and_out_mirror_the_json_answers_row_for_row() {
    let n = 45_000; // several chunks, three row groups
    let (null_row, short_row) = (20_001, 33_000);
    let cases = planar_hold::details::sample::mixed_cases(12, n);
    let d = dir("parquet");
    let input = d.join("cases.parquet");
    write_parquet(&input, &cases, null_row, short_row);
    let (as_json, as_parquet) = (d.join("answers.jsonl"), d.join("answers.parquet"));
    for output in [&as_json, &as_parquet] {
        let out = run(
            cli(&[
                "eval",
                input.to_str().unwrap(),
                "--backend",
                "cpu",
                "-o",
                output.to_str().unwrap(),
            ]),
            None,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{stderr}");
        assert!(
            stderr.contains(&format!(":{}: generators is null", null_row + 1)),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!(
                ":{}: generator 0 must be three numbers, got 2",
                short_row + 1
            )),
            "{stderr}"
        );
    }
    let json: Vec<Value> = std::fs::read_to_string(&as_json)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json.len(), n);
    // The JSON answers are the library's own on the same (float32) cases, ids as int64.
    let outcomes = crate::common::planar_outcomes(&Engine::new(Backend::Cpu).unwrap(), &cases);
    for (i, (got, (case, o))) in json.iter().zip(cases.iter().zip(&outcomes)).enumerate() {
        if i == null_row || i == short_row {
            assert_eq!(got["line"], json!(i + 1));
            assert_eq!(got["id"], json!(1000 + i));
            continue;
        }
        let want = serde_json::to_string(&Answer::new(Some(json!(1000 + i)), case, o)).unwrap();
        let want: Value = serde_json::from_str(&want).unwrap();
        assert_eq!(got, &want, "row {}", i + 1);
    }
    // The Parquet answers hold the same values, column by column.
    let t = read_parquet(&as_parquet);
    assert_eq!(t.num_rows(), n);
    let col = |name: &str| t.column_by_name(name).unwrap().clone();
    assert_eq!(
        col("id").data_type(),
        &DataType::Int64,
        "ids pass through with their type"
    );
    let (id, verdict, margin) = (col("id"), col("verdict"), col("margin"));
    let (id, verdict, margin) = (
        id.as_primitive::<Int64Type>(),
        verdict.as_string::<i32>(),
        margin.as_primitive::<Float64Type>(),
    );
    let (witness, certificate, binding, line, error) = (
        col("witness"),
        col("certificate"),
        col("binding"),
        col("line"),
        col("error"),
    );
    let witness = witness.as_struct();
    let w_gens = witness.column(0).as_list::<i32>();
    let w_weights = witness.column(1).as_list::<i32>();
    let certificate = certificate.as_list::<i32>();
    let binding = binding.as_primitive::<UInt32Type>();
    let (line, error) = (line.as_primitive::<UInt64Type>(), error.as_string::<i32>());
    let floats = |l: &ListArray, i: usize| -> Value {
        json!(l.value(i).as_primitive::<Float64Type>().values().to_vec())
    };
    for (i, want) in json.iter().enumerate() {
        assert_eq!(id.value(i), 1000 + i as i64);
        if want.get("error").is_some() {
            assert!(verdict.is_null(i) && margin.is_null(i) && witness.is_null(i));
            assert_eq!(line.value(i), want["line"].as_u64().unwrap());
            assert_eq!(error.value(i), want["error"].as_str().unwrap());
            continue;
        }
        assert!(line.is_null(i) && error.is_null(i));
        assert_eq!(
            verdict.value(i),
            want["verdict"].as_str().unwrap(),
            "row {i}"
        );
        assert_eq!(margin.value(i), want["margin"].as_f64().unwrap(), "row {i}");
        match want["witness"].as_object() {
            None => assert!(witness.is_null(i)),
            Some(w) => {
                let g = w_gens.value(i);
                assert_eq!(
                    json!(g.as_primitive::<UInt32Type>().values().to_vec()),
                    w["generators"]
                );
                assert_eq!(floats(w_weights, i), w["weights"]);
            }
        }
        if want["certificate"].is_null() {
            assert!(certificate.is_null(i));
        } else {
            assert_eq!(floats(certificate, i), want["certificate"], "row {i}");
        }
        assert_eq!(binding.is_null(i), want["binding"].is_null());
    }
}

/// Writer properties without an offset index (as pyarrow writes by default), pages of at
/// most `page_rows` rows.
fn no_offset_index(page_rows: usize) -> WriterProperties {
    WriterProperties::builder()
        .set_statistics_enabled(EnabledStatistics::None)
        .set_offset_index_disabled(true)
        .set_data_page_row_count_limit(page_rows)
        .build()
}

/// One chunk's row numbers, cases (their bytes) or errors, and ids.
type Chunk = (Vec<u64>, Vec<Result<Vec<u8>, String>>, ArrayRef);

/// The chunks of a whole file, in order.
type Decoded = Vec<Chunk>;

fn decoded(batch: &planar_hold::io::CaseBatch) -> Chunk {
    let rows = batch
        .rows
        .iter()
        .map(|r| match r {
            Ok(id) => Ok(bytemuck::bytes_of(&batch.batch.planar[id.index()]).to_vec()),
            Err(e) => Err(e.clone()),
        })
        .collect();
    let planar_hold::io::Ids::Arrow(ids) = &batch.ids else {
        panic!("ids passed through as Arrow")
    };
    (batch.numbers.clone(), rows, ids.clone())
}

/// Every chunk decoded by `lanes` decoders on as many threads (each thread taking another
/// lane's chunks than its index, and in a staggered order, so that they wait for each other).
fn decode_in_lanes(path: &Path, chunk: usize, lanes: usize) -> Decoded {
    use planar_hold::io::parquet::ParquetCases;
    let cases = ParquetCases::open(path, chunk, false, lanes).unwrap();
    let count = cases.chunks();
    let slots: Vec<std::sync::Mutex<Option<_>>> = (0..count).map(|_| Default::default()).collect();
    std::thread::scope(|s| {
        for t in 0..lanes {
            let (cases, slots) = (&cases, &slots);
            s.spawn(move || {
                for k in ((t + 1) % lanes..count).step_by(lanes) {
                    if k % 3 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    let rows = cases.decode(k).unwrap();
                    let mut batch = planar_hold::io::CaseBatch::default();
                    rows.cases_into(&mut batch).unwrap();
                    *slots[k].lock().unwrap() = Some(decoded(&batch));
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|s| s.into_inner().unwrap().unwrap())
        .collect()
}

/// Parquet decoded on several lanes at once gives each chunk exactly as one decoder reading
/// the file in order does: row groups smaller than a chunk, straddling chunks, one huge
/// row group, with and without an offset index (without one a lane reads the pages it
/// skips), bad rows included.
#[test]
fn parquet_chunks_decoded_in_parallel_lanes_equal_one_reader_in_order() {
    use planar_hold::io::parquet::ParquetCases;
    let n = 23_456;
    let cases = planar_hold::details::sample::mixed_cases(21, n);
    let d = dir("lanes");
    let no_index = no_offset_index(700);
    let small_pages = WriterProperties::builder()
        .set_data_page_row_count_limit(500)
        .build();
    for (name, group_rows, props) in [
        ("small-groups", 1_000, None),
        ("small-groups-no-index", 1_000, Some(no_index.clone())),
        ("straddling", 7_000, Some(small_pages.clone())),
        ("one-group", n, Some(small_pages)),
        ("one-group-no-index", n, Some(no_index)),
    ] {
        let path = d.join(format!("{name}.parquet"));
        write_parquet_groups(&path, &cases, 4_321, 11_111, group_rows, props);
        let chunk = 2_048;
        let mut one = ParquetCases::new(std::fs::File::open(&path).unwrap(), chunk, false).unwrap();
        let (mut want, mut batch) = (Vec::new(), planar_hold::io::CaseBatch::default());
        while let Some(rows) = one.next_rows() {
            rows.unwrap().cases_into(&mut batch).unwrap();
            want.push(decoded(&batch));
        }
        assert_eq!(want.len(), n.div_ceil(chunk), "{name}");
        assert_eq!(want.iter().map(|w| w.0.len()).sum::<usize>(), n, "{name}");
        assert_eq!(want[2].0[0], 2 * chunk as u64 + 1, "{name}: row numbers");
        // The lanes worth having for 6 workers: one each where skipping is free (an offset
        // index, or row groups within a chunk), else one per three workers. Chunks of an
        // eighth of a worker's share: 23,456 / 48 rows.
        let opened = ParquetCases::open_for(&path, chunk, u64::MAX, false, 6).unwrap();
        assert_eq!(opened.chunk_rows(), n / 48, "{name}");
        let cheap = !name.ends_with("no-index") || group_rows <= n / 48;
        assert_eq!(opened.lanes(), if cheap { 6 } else { 2 }, "{name}");
        // Never fewer than 64 rows for the share; never more bytes than the budget (a row
        // is more than a byte: one row a chunk).
        let many = ParquetCases::open_for(&path, chunk, u64::MAX, false, 1_000).unwrap();
        assert_eq!(many.chunk_rows(), 64, "{name}");
        let tight = ParquetCases::open_for(&path, chunk, 1, false, 6).unwrap();
        assert_eq!(tight.chunk_rows(), 1, "{name}");
        for lanes in [2, 3, 5] {
            let got = decode_in_lanes(&path, chunk, lanes);
            assert_eq!(got.len(), want.len(), "{name}, {lanes} lanes");
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.0, w.0, "{name}, {lanes} lanes, chunk {k}: row numbers");
                assert_eq!(g.1, w.1, "{name}, {lanes} lanes, chunk {k}: cases");
                assert_eq!(&g.2, &w.2, "{name}, {lanes} lanes, chunk {k}: ids");
            }
        }
    }
}

/// `eval` from one Parquet file of one row group gives the same bytes whatever the number
/// of workers (each a decoding lane): JSON answers byte for byte, Parquet answers row for row.
#[test]
fn parquet_answers_do_not_depend_on_the_workers() {
    let n = 40_000;
    let cases = planar_hold::details::sample::mixed_cases(22, n);
    let d = dir("workers");
    let no_index = no_offset_index(20_000);
    for (name, props) in [("indexed", None), ("no-index", Some(no_index))] {
        let input = d.join(format!("{name}.parquet"));
        write_parquet_groups(&input, &cases, 100, 39_999, n, props);
        same_answers_whatever_the_workers(&input, n);
    }
}

/// `eval`'s answers to `input` (`n` rows) on 1 to 7 workers: the same bytes.
fn same_answers_whatever_the_workers(input: &Path, n: usize) {
    let d = input.parent().unwrap();
    let name = input.file_stem().unwrap().to_str().unwrap();
    let answers = |threads: &str, ext: &str| {
        let output = d.join(format!("{name}-answers-{threads}.{ext}"));
        let mut c = cli(&[
            "eval",
            input.to_str().unwrap(),
            "--backend",
            "cpu",
            "-o",
            output.to_str().unwrap(),
        ]);
        c.env("RAYON_NUM_THREADS", threads);
        let out = run(c, None);
        assert_eq!(
            out.status.code(),
            Some(5),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        output
    };
    let one = std::fs::read(answers("1", "jsonl")).unwrap();
    assert_eq!(one.iter().filter(|&&b| b == b'\n').count(), n);
    for threads in ["2", "4", "7"] {
        assert!(
            one == std::fs::read(answers(threads, "jsonl")).unwrap(),
            "{threads} workers"
        );
        assert_eq!(
            read_parquet(&answers("1", "parquet")),
            read_parquet(&answers(threads, "parquet")),
            "{threads} workers"
        );
    }
}

/// A page that fails to decode in the middle of a huge row group, decoded by several lanes:
/// the run stops there with the read error (no hang, no panic), everything before it written.
#[test]
fn a_corrupt_page_on_one_lane_ends_the_run_at_its_place() {
    let n = 60_000;
    let cases = planar_hold::details::sample::mixed_cases(23, n);
    let d = dir("corrupt");
    let (good, bad) = (d.join("good.parquet"), d.join("bad.parquet"));
    let props = WriterProperties::builder()
        .set_data_page_row_count_limit(1_000)
        .build();
    write_parquet_groups(&good, &cases, n, n, n, Some(props));
    // Spoil the header of the generators' middle page, found from the offset index.
    let mut bytes = std::fs::read(&good).unwrap();
    let meta = parquet::file::metadata::ParquetMetaDataReader::new()
        .with_offset_index_policy(parquet::file::metadata::PageIndexPolicy::Required)
        .parse_and_finish(&bytes::Bytes::from(bytes.clone()))
        .unwrap();
    let pages = meta.offset_index().unwrap()[0][1].page_locations();
    let page = pages[pages.len() / 2].offset as usize;
    for b in &mut bytes[page..page + 16] {
        *b = 0xff;
    }
    std::fs::write(&bad, bytes).unwrap();
    let eval = |input: &Path| {
        let mut c = cli(&["eval", input.to_str().unwrap(), "--backend", "cpu"]);
        c.env("RAYON_NUM_THREADS", "4");
        run(c, None)
    };
    let want = eval(&good);
    assert!(want.status.success());
    let got = eval(&bad);
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("cannot read") && !stderr.contains("panicked"),
        "{stderr}"
    );
    // Whole chunks before the failure, as the good file's answers: chunks of an eighth of a
    // worker's share, 60,000 / (8 · 4) rows.
    assert!(got.stdout.len() < want.stdout.len(), "{stderr}");
    assert!(want.stdout.starts_with(&got.stdout));
    let lines = String::from_utf8_lossy(&got.stdout).lines().count();
    assert!(lines > 0 && lines.is_multiple_of(n / 32), "{lines} lines");
}

#[test]
fn json_to_parquet_and_back_keeps_string_ids() {
    let cases = planar_hold::details::sample::mixed_cases(13, 300);
    let text: String = cases
        .iter()
        .enumerate()
        .map(|(i, c)| case_line(i, c) + "\n")
        .collect();
    let d = dir("roundtrip");
    let (input, output) = (d.join("cases.jsonl"), d.join("answers.parquet"));
    std::fs::write(&input, &text).unwrap();
    let out = run(
        cli(&[
            "eval",
            input.to_str().unwrap(),
            "--backend",
            "cpu",
            "-o",
            output.to_str().unwrap(),
        ]),
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = read_parquet(&output);
    let ids = t.column_by_name("id").unwrap();
    let ids = ids.as_string::<i32>();
    assert_eq!(ids.len(), 300);
    assert!((0..300).all(|i| ids.value(i) == format!("c{i}")));
    // Parquet on standard output too (--output-format), byte for byte the same file.
    let out = run(
        cli(&[
            "eval",
            input.to_str().unwrap(),
            "--backend",
            "cpu",
            "--output-format",
            "parquet",
        ]),
        None,
    );
    assert!(out.status.success());
    assert_eq!(out.stdout, std::fs::read(&output).unwrap());
}

// ------------------------------------------------------------------ statuses and outputs

#[test]
fn exit_statuses_mean_one_thing_each() {
    let d = dir("status");
    let good = d.join("good.jsonl");
    std::fs::write(&good, "{\"generators\": [[0, 1, 0]]}\n").unwrap();
    let good = good.to_str().unwrap();
    let status = |args: &[&str]| run(cli(args), None).status.code();
    assert_eq!(status(&["eval", good, "--backend", "cpu"]), Some(0));
    assert_eq!(
        status(&["eval", "/nonexistent/x.jsonl", "--backend", "cpu"]),
        Some(4)
    );
    assert_eq!(
        status(&[
            "eval",
            good,
            "--backend",
            "cpu",
            "-o",
            "/nonexistent/dir/out.jsonl"
        ]),
        Some(4)
    );
    assert_eq!(
        status(&["eval", good, "--backend", "cpu", "--no-such-flag"]),
        Some(2)
    );
    assert_eq!(
        status(&["gate", "/nonexistent/x.jsonl", "--backend", "cpu"]),
        Some(4)
    );
    let bad = d.join("bad.jsonl");
    std::fs::write(&bad, "{\"generators\": [[0, 1, 0]]}\n{\"x\": 1}\n").unwrap();
    assert_eq!(
        status(&["eval", bad.to_str().unwrap(), "--backend", "cpu"]),
        Some(5)
    );
    let help = run(cli(&["eval", "--help"]), None);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("5 some lines or rows refused") && help.contains("4 nothing could be read"),
        "{help}"
    );
}

#[test]
fn an_unreadable_input_leaves_no_output_file() {
    let d = dir("atomic");
    let output = d.join("answers.jsonl");
    std::fs::write(&output, "old answers\n").unwrap();
    // A directory opens but cannot be read: the failure comes after the output is opened.
    let out = run(
        cli(&[
            "eval",
            d.to_str().unwrap(),
            "--backend",
            "cpu",
            "-o",
            output.to_str().unwrap(),
        ]),
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        "old answers\n",
        "replaced"
    );
    assert!(
        !d.join("answers.jsonl.partial").exists(),
        "temporary file left behind"
    );
}

#[test]
fn demo_and_info_end_quietly_on_a_closed_pipe() {
    for args in [
        &["demo", "--backend", "cpu", "--cases", "1000"][..],
        &["info", "--backend", "cpu"],
    ] {
        let mut child = cli(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away before anything is written
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "{args:?}: {status:?} {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn gate_streams_in_order_across_chunks() {
    let scenes = std::fs::read_to_string(crate::common::data("scenes_public.jsonl")).unwrap();
    let lines: Vec<&str> = scenes.lines().filter(|l| !l.trim().is_empty()).collect();
    let once = run(
        cli(&["gate", "-", "--backend", "cpu"]),
        Some(scenes.as_bytes()),
    );
    assert!(
        once.status.success(),
        "{}",
        String::from_utf8_lossy(&once.stderr)
    );
    let once: Vec<String> = String::from_utf8(once.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(once.len(), lines.len());
    // Over many chunks (of 512 lines at most): the answers of the copies repeat the first
    // run's, in order, and a bad line in the middle is answered in its place.
    let copies = 3 * 4_096 / lines.len() + 2;
    let mut text = String::new();
    for k in 0..copies {
        text.push_str(&lines.join("\n"));
        text.push('\n');
        if k == copies / 2 {
            text.push_str("{\"id\": \"oops\"\n");
        }
    }
    let many = run(
        cli(&["gate", "-", "--backend", "cpu"]),
        Some(text.as_bytes()),
    );
    assert_eq!(many.status.code(), Some(5));
    let got: Vec<String> = String::from_utf8(many.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got.len(), copies * lines.len() + 1);
    let bad_at = (copies / 2 + 1) * lines.len();
    for (k, g) in got.iter().enumerate() {
        if k == bad_at {
            assert!(
                g.contains("\"error\"") && g.contains(&format!("\"line\":{}", k + 1)),
                "{g}"
            );
            continue;
        }
        let k = if k > bad_at { k - 1 } else { k };
        assert_eq!(g, &once[k % lines.len()], "output line {}", k + 1);
    }
}
