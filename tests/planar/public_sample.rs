//! The public planar sets of `tests/data/` through the CLI on every backend, graded by the
//! project's own rules (`tests/common/grade.rs`): zero failures allowed.

use std::path::Path;

use crate::common::grade::{self, Grading};
use serde_json::Value;

fn run_cli(command: &str, backend: &str, input: &Path) -> Vec<Value> {
    let out = crate::common::cli()
        .args([command, input.to_str().unwrap(), "--backend", backend])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command} --backend {backend}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn backends() -> Vec<&'static str> {
    let mut b = vec!["cpu"];
    if crate::common::gpu_engine().is_some() {
        b.push("gpu");
    }
    b
}

/// Runs `command` on `name`.jsonl on every backend and grades the answers with `grader`
/// against `name`.expected.jsonl.
fn run_and_grade(
    command: &str,
    name: &str,
    grader: fn(&[Value], &[Value], &[Value], &str) -> Grading,
) {
    let cases = crate::common::read_data(&format!("{name}.jsonl"));
    let expected = crate::common::read_data(&format!("{name}.expected.jsonl"));
    for backend in backends() {
        let answers = run_cli(
            command,
            backend,
            &crate::common::data(&format!("{name}.jsonl")),
        );
        grader(&cases, &expected, &answers, &format!("{name} ({backend})")).assert_passed();
    }
}

#[test]
fn public_cone_sample_passes_the_grader() {
    run_and_grade("eval", "public_sample", grade::planar_cases);
}

#[test]
fn public_scenes_pass_the_gate_grader() {
    run_and_grade("gate", "scenes_public", grade::planar_scenes);
}

/// The public invalid scenes, less the one that docs/contract-scenes.md now makes valid: a
/// planar scene of five body pairs or more (`too_many_generators`, 20 generators) is decided
/// by the general engine. That one is answered instead (checked here, and in tests/general/engine.rs).
#[test]
fn public_invalid_scenes_are_rejected() {
    let five_pairs = |e: &Value| e["sub"] == "too_many_generators";
    let lines =
        std::fs::read_to_string(crate::common::data("scenes_public_invalid.jsonl")).unwrap();
    let expected = crate::common::read_data("scenes_public_invalid.expected.jsonl");
    let now_valid: Vec<&str> = lines
        .lines()
        .zip(&expected)
        .filter(|(_, e)| five_pairs(e))
        .map(|(l, _)| l)
        .collect();
    assert_eq!(now_valid.len(), 1, "the public set's five-pair scene");
    let dir = std::env::temp_dir().join(format!("planar-hold-test-invalid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("five.jsonl"), now_valid.join("\n")).unwrap();
    for backend in backends() {
        let five = run_cli("gate", backend, &dir.join("five.jsonl"));
        assert!(
            five[0]["held"].is_boolean() && five[0]["n_generators"] == 20,
            "{}",
            five[0]
        );
        grade::refusals(
            Path::new(env!("CARGO_BIN_EXE_planar-hold")),
            &["gate", "--backend", backend],
            &crate::common::data("scenes_public_invalid.jsonl"),
            &crate::common::data("scenes_public_invalid.expected.jsonl"),
            five_pairs,
            &format!("scenes_public_invalid ({backend})"),
        )
        .assert_passed();
    }
}
