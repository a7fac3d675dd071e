//! The command-line tool: answers, bad input named by line, nothing lost.

use std::io::Write;

fn input(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "planar-hold-cli-{name}-{}.jsonl",
        std::process::id()
    ));
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    path
}

fn eval(path: &std::path::Path, extra: &[&str]) -> std::process::Output {
    crate::common::cli()
        .arg("eval")
        .arg(path)
        .args(["--backend", "cpu"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn eval_answers_in_input_order_with_ids_and_evidence() {
    let path = input(
        "ok",
        "{\"id\": \"box\", \"generators\": [[0.2,1,0.8],[-0.2,1,1.2],[0.2,1,-1.2],[-0.2,1,-0.8]]}\n\
         \n\
         {\"generators\": [[0.2,1,0.8],[-0.2,1,1.2]], \"need\": [0, 1, 0]}\n",
    );
    let out = eval(&path, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "box");
    assert_eq!(lines[0]["verdict"], "supported");
    assert_eq!(lines[0]["witness"]["generators"], serde_json::json!([0, 3]));
    assert!((lines[0]["margin"].as_f64().unwrap() - 0.19612).abs() < 1e-5);
    assert!(lines[1].get("id").is_none());
    assert_eq!(lines[1]["verdict"], "unsupported");
    assert_eq!(lines[1]["witness"], serde_json::Value::Null);
    assert_eq!(lines[1]["certificate"].as_array().unwrap().len(), 3);
}

#[test]
fn bad_lines_are_named_and_the_rest_still_answered() {
    // 17 generators go to the general engine (docs/contract-general.md); 257 are too many for it.
    let too_many = format!(
        "{{\"id\": \"many\", \"generators\": [{}]}}",
        vec!["[1,0,0]"; 257].join(",")
    );
    let bad = [
        ("not json at all", "expected ident at column 2"),
        ("{\"generators\": [[1, 0]]}", "three numbers"),
        // Beyond float64 (1e39, which float32 does not hold, goes to the general engine).
        ("{\"generators\": [[1, 0, 1e999]]}", "out of range"),
        (too_many.as_str(), "more than 256"),
        (
            "{\"generators\": [[1, 0, 0]], \"need\": [0, NaN, 0]}",
            "column",
        ),
        ("{\"need\": [0, 1, 0]}", "generators"),
        // Text that is not JSON is named by its syntax error, whatever its generators' length
        // (the planar reader would have stopped at the six numbers first).
        (
            "{\"generators\": [[1, 0, 0, 0, 0, 0]], \"need\": [0, 0, 1, 0, 0, Infinity]}",
            "Infinity at column 62 is not a JSON number",
        ),
        (
            "{\"generators\": [[1, 0, 0, 0, 0, 0]]",
            "EOF while parsing an object",
        ),
        ("{\"generators\": [[1, \"a\", 0]]}", "not a valid case"),
    ];
    let mut text = String::from("{\"id\": \"good\", \"generators\": [[0, 1, 0]]}\n");
    for (line, _) in &bad {
        text.push_str(line);
        text.push('\n');
    }
    let path = input("bad", &text);
    let out_path = path.with_extension("out");
    let out = eval(&path, &["-o", out_path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for (k, (_, word)) in bad.iter().enumerate() {
        let number = k + 2;
        let named = format!("planar-hold: {}:{number}: ", path.display());
        let line = stderr
            .lines()
            .find(|l| l.starts_with(&named))
            .unwrap_or_else(|| panic!("line {number} not named:\n{stderr}"));
        assert!(
            line.contains(word),
            "line {number}: {line:?} lacks {word:?}"
        );
        // The number once, at the start: serde's position within the line is a column only.
        assert!(!line.contains("at line"), "{line:?}");
        assert!(
            !line[named.len()..].contains(&format!("line {number}")),
            "{line:?}"
        );
    }
    // The good line is answered, every bad one carries its error: one output line per input line.
    let written = std::fs::read_to_string(&out_path).unwrap();
    let lines: Vec<serde_json::Value> = written
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1 + bad.len());
    assert_eq!(lines[0]["verdict"], "supported");
    assert!(lines[1..]
        .iter()
        .all(|l| l["error"].is_string() && l.get("verdict").is_none()));
    assert_eq!(lines[4]["id"], "many");
}

/// A GPU command on a headless machine (no `XDG_RUNTIME_DIR`, no Wayland) prints no line of
/// the driver's: Mesa's Vulkan device-selection layer would have libwayland print
/// `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` at every enumeration.
#[test]
fn gpu_commands_without_a_runtime_dir_print_no_driver_error() {
    let path = input("quiet", "{\"generators\": [[0, 1, 0]]}\n");
    let headless = |args: &[&str]| {
        let out = crate::common::cli()
            .args(args)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("WAYLAND_SOCKET")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        for line in stderr.lines() {
            assert!(
                line.starts_with("planar-hold: ") && !line.contains("XDG_RUNTIME_DIR"),
                "{args:?}: a line not of ours on stderr: {line:?}\n{stderr}"
            );
        }
        (out, stderr)
    };
    // `info` enumerates every backend's adapters; `eval` makes a device and answers.
    let (info, _) = headless(&["info"]);
    assert!(info.status.success());
    let (out, stderr) = headless(&["eval", path.to_str().unwrap(), "--backend", "gpu"]);
    if out.status.code() == Some(1) && stderr.contains("no GPU adapter") {
        assert!(
            std::env::var_os("PLANAR_HOLD_REQUIRE_GPU").is_none(),
            "PLANAR_HOLD_REQUIRE_GPU is set but no adapter was found: {stderr}"
        );
        eprintln!(
            "NOTICE: GPU part skipped, no adapter; set PLANAR_HOLD_REQUIRE_GPU to fail instead"
        );
        return;
    }
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"verdict\":\"supported\""));
}

/// A refused line in the middle (a third line refused, from standard input), with a line that is
/// refused since 20 generators are a general case: a generator of 6 numbers, one of them a
/// string. The message names the line once, first, and serde's position within the line as
/// a column.
#[test]
fn a_refused_line_is_one_sentence_with_its_number_once() {
    let twenty = format!(
        "{{\"generators\": [{}, [1,0,0,0,0,\"a\"]]}}",
        vec!["[1,0,0,0,0,0]"; 19].join(",")
    );
    let text = format!("{{\"generators\": [[0,1,0]]}}\n\n{twenty}\n");
    let mut child = crate::common::cli()
        .args(["eval", "-", "--backend", "cpu"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    let line = stderr.lines().next().unwrap();
    let prefix = "planar-hold: -:3: not a valid case: invalid type: string \"a\", expected f64 \
                  at column ";
    let column = line
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{line:?}"));
    let column: usize = column.parse().unwrap_or_else(|_| panic!("{line:?}"));
    assert!(column > 0 && column <= twenty.len(), "{line:?}");
    // The answer line carries the same message, the number in its own field.
    let answers = String::from_utf8_lossy(&out.stdout);
    let refused: serde_json::Value = serde_json::from_str(answers.lines().nth(1).unwrap()).unwrap();
    assert_eq!(refused["line"], 3);
    assert_eq!(
        refused["error"].as_str().unwrap(),
        &line["planar-hold: -:3: ".len()..]
    );
}

#[test]
fn missing_input_file_is_a_clear_error() {
    let out = crate::common::cli()
        .args(["eval", "/nonexistent/cases.jsonl", "--backend", "cpu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/cases.jsonl"));
}

#[test]
fn no_adapter_says_how_to_get_one() {
    // A backend this build has no adapter for.
    let path = input("noadapter", "{\"generators\": []}\n");
    let out = crate::common::cli()
        .arg("eval")
        .arg(&path)
        .env("WGPU_BACKEND", "dx12")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no GPU adapter found") && stderr.contains("--backend cpu"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn both_backends_agree_through_the_cli() {
    if crate::common::gpu_engine().is_none() {
        return;
    }
    let cases: String = planar_hold::details::sample::mixed_cases(9, 2000)
        .iter()
        .map(|c| {
            let gens: Vec<[f32; 3]> = c.active_generators().map(|(_, g)| g).collect();
            format!(
                "{}\n",
                serde_json::json!({"generators": gens, "need": c.need})
            )
        })
        .collect();
    let path = input("both", &cases);
    let out = crate::common::cli()
        .arg("eval")
        .arg(&path)
        .args(["--backend", "both", "-o"])
        .arg(path.with_extension("out"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn demo_runs() {
    let out = crate::common::cli()
        .args(["demo", "--cases", "2000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("flat box, μ = 0.2") && stdout.contains("cases/s"),
        "{stdout}"
    );
    // The README's grasp, as the README quotes it: in force closure, q1 0.2068 proven.
    let grasp = stdout
        .split("four fingertips on a 10 cm cube")
        .nth(1)
        .unwrap();
    assert!(
        grasp.contains("force closure true, q1 0.20677, proven"),
        "{stdout}"
    );
    // Witness weights re-solved in float64 as eval's, to 5 decimals: not the float32 search's
    // widened to 17 digits (0.5699999332427979 for 0.57).
    let flat = stdout.split("flat box, μ = 0.5").next().unwrap();
    assert!(
        flat.contains("witness [0, 3] × [0.50000, 0.50000]"),
        "{stdout}"
    );
    let push = stdout.split("sideways push +0.19").nth(1).unwrap();
    assert!(
        push.lines()
            .nth(2)
            .unwrap()
            .ends_with("witness [0, 1, 2] × [0.57000, 0.02500, 0.40500]"),
        "{stdout}"
    );
}

#[cfg(unix)]
#[test]
fn output_to_a_pipe_writes_through_it_and_leaves_it_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = std::env::temp_dir().join(format!("planar-hold-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("answers");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let path = input("fifo", "{\"generators\": [[0, 1, 0]]}\n");
    let out = eval(&path, &["-o", fifo.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Not replaced by a regular file (as a rename would, e.g. for -o /dev/null); checked
    // before joining the reader, which would wait forever on a replaced pipe.
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let read = reader.join().unwrap();
    assert!(read.contains("\"verdict\":\"supported\""), "{read}");
}

/// The `sh` blocks of the README's first screen, run as written (the `echo '…' |` input
/// piped into the built binary): the box's answer is the `text` block that follows, byte for
/// byte; the stance's and the grasp's answers hold what the README says of them.
#[test]
fn the_readme_examples_answer_as_the_readme_says() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let blocks: Vec<(&str, &str)> = readme
        .split("```")
        .skip(1)
        .step_by(2)
        .filter_map(|b| b.split_once('\n'))
        .collect();
    let run = |block: &str| -> String {
        let (input, _) = block
            .split_once("echo '")
            .and_then(|(_, rest)| rest.split_once("' \\"))
            .unwrap_or_else(|| panic!("no echo '…' | in {block}"));
        let args: Vec<&str> = block
            .split("-- ")
            .nth(1)
            .unwrap_or_else(|| panic!("no cargo run -- in {block}"))
            .split_whitespace()
            .collect();
        let mut child = crate::common::cli()
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{input}\n").as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let sh: Vec<usize> = (0..blocks.len())
        .filter(|&i| blocks[i].0 == "sh" && blocks[i].1.contains("echo '"))
        .collect();
    assert!(sh.len() >= 2, "the README's two examples");
    // The box: the text block after it is its answer.
    let (lang, want) = blocks[sh[0] + 1];
    assert_eq!(lang, "text");
    assert_eq!(run(blocks[sh[0]].1).trim(), want.trim());
    // The stance: held, the robust margin and the support region the README quotes.
    let got = run(blocks[sh[1]].1);
    let v: serde_json::Value = serde_json::from_str(got.trim()).unwrap();
    assert_eq!(v["held"], true);
    let m = v["robust_margin"].as_f64().unwrap();
    assert!(
        readme.contains(&format!("`\"robust_margin\":{}", &format!("{m:.5}")[..7])),
        "{m}"
    );
    // Quoted to two decimals.
    let vertices: Vec<[f64; 2]> = serde_json::from_value(v["support_region"].clone()).unwrap();
    let rounded: Vec<String> = vertices
        .iter()
        .map(|p| {
            let r = |x: f64| (x * 100.0).round() / 100.0 + 0.0;
            format!("[{},{}]", r(p[0]), r(p[1]))
        })
        .collect();
    let region = format!("[{}]", rounded.join(","));
    assert!(readme.contains(&region), "{region}");
    // The grasp: force closure, the q1 the README quotes, the facet set proven complete.
    assert!(sh.len() >= 3, "the README's grasp example");
    let got = run(blocks[sh[2]].1);
    let v: serde_json::Value = serde_json::from_str(got.trim()).unwrap();
    assert_eq!(v["force_closure"], true);
    assert_eq!(v["margin_checked"], true);
    let q1 = v["q1"].as_f64().unwrap();
    assert!(
        readme.contains(&format!("`\"q1\":{}", &format!("{q1:.10}")[..7])),
        "{q1}"
    );
}

/// Every `--test NAME` the docs and the README name is a test binary that exists
/// (`tests/NAME/main.rs` or `tests/NAME.rs`): a newcomer's first command must run.
#[test]
fn the_test_binaries_the_docs_name_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let mut named = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (_, rest) in text
            .match_indices("--test ")
            .map(|(i, _)| text.split_at(i + 7))
        {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let exists = root.join("tests").join(&name).join("main.rs").is_file()
                || root.join("tests").join(format!("{name}.rs")).is_file();
            assert!(
                exists,
                "{}: --test {name}: no such test binary",
                page.display()
            );
            named += 1;
        }
    }
    assert!(named >= 2, "docs/tests.md names test binaries");
}
