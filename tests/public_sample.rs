//! The public samples graded by the project's own graders (`../shared/tools/`), through
//! the CLI, on both backends: zero failures allowed.

mod common;

use std::path::Path;
use std::process::Command;

fn grade(tool: &str, args: &[&Path]) -> (bool, String) {
    let out = Command::new("python3")
        .arg(common::shared_dir().join("tools").join(tool))
        .args(args)
        .output()
        .expect("python3 runs the grader");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.success(), text)
}

fn run_cli(command: &str, backend: &str, input: &Path, output: &Path) {
    let out = common::cli()
        .args([
            command,
            input.to_str().unwrap(),
            "--backend",
            backend,
            "-o",
            output.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command} --backend {backend}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn backends() -> Vec<&'static str> {
    let mut b = vec!["cpu"];
    if common::gpu_engine().is_some() {
        b.push("gpu");
    }
    b
}

/// Runs `command` on `name`.jsonl on every backend and grades the answers with `tool`
/// against `name`.expected.jsonl: zero failures allowed.
fn run_and_grade(command: &str, name: &str, tool: &str) {
    let cases = common::shared_dir().join("cases");
    let (input, expected) = (
        cases.join(format!("{name}.jsonl")),
        cases.join(format!("{name}.expected.jsonl")),
    );
    let dir = tempdir(name);
    for backend in backends() {
        let results = dir.join(format!("{backend}.jsonl"));
        run_cli(command, backend, &input, &results);
        let (ok, report) = grade(tool, &[&input, &expected, &results]);
        eprintln!("{backend}: {}", report.lines().last().unwrap_or(""));
        assert!(ok, "{backend}:\n{report}");
    }
}

#[test]
fn public_cone_sample_passes_the_grader() {
    run_and_grade("eval", "public_sample", "check_results.py");
}

#[test]
fn public_scenes_pass_the_gate_grader() {
    run_and_grade("gate", "scenes_public", "check_gate.py");
}

#[test]
fn public_invalid_scenes_are_rejected() {
    let cases = common::shared_dir().join("cases");
    for backend in backends() {
        let command = format!(
            "{} gate --backend {backend}",
            env!("CARGO_BIN_EXE_planar-hold")
        );
        let out = Command::new("python3")
            .arg(common::shared_dir().join("tools/check_gate.py"))
            .args(["--invalid", &command, "--cases"])
            .arg(cases.join("scenes_public_invalid.jsonl"))
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{backend}:\n{report}");
    }
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("planar-hold-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
