//! `planar-hold eval`: cone tests from JSON Lines.

use planar_hold::jsonl::{parse_case, Answer};
use planar_hold::{Backend, Case, Outcome, Verdict};

use super::{engine, io, BackendArg, Failure};

pub fn run(path: &str, backend: BackendArg, output: Option<&str>) -> Result<(), Failure> {
    let lines = io::read_lines(path)?;
    let mut parsed = io::parse_all(path, &lines, parse_case);
    let (ids, cases): (Vec<_>, Vec<Case>) = std::mem::take(&mut parsed.items).into_iter().unzip();
    let outcomes = match backend {
        BackendArg::Cpu => engine(Backend::Cpu)?.evaluate(&cases)?,
        BackendArg::Gpu => engine(Backend::Gpu)?.evaluate(&cases)?,
        BackendArg::Both => {
            let gpu = engine(Backend::Gpu)?.evaluate(&cases)?;
            let cpu = engine(Backend::Cpu)?.evaluate(&cases)?;
            let disagreements: Vec<String> = gpu
                .iter()
                .zip(&cpu)
                .enumerate()
                .filter_map(|(i, (g, c))| {
                    disagreement(g, c).map(|why| format!("line {}: {why}", lines[i].0))
                })
                .collect();
            if !disagreements.is_empty() {
                io::write_lines(output, &answers(ids, &gpu))?;
                for d in &disagreements {
                    eprintln!("planar-hold: GPU and CPU disagree: {d}");
                }
                return Err(Failure::new(
                    format!(
                        "{} of {} cases disagree between GPU and CPU",
                        disagreements.len(),
                        cases.len()
                    ),
                    3,
                ));
            }
            gpu
        }
    };
    parsed.finish(output, answers(ids, &outcomes))
}

fn answers(ids: Vec<Option<serde_json::Value>>, outcomes: &[Outcome]) -> Vec<Answer> {
    ids.into_iter()
        .zip(outcomes)
        .map(|(id, o)| Answer::new(id, o))
        .collect()
}

/// How two answers to one case differ beyond SPEC §7's tolerance, if they do: verdicts
/// (unless one is uncertain), witness subsets (when both are supported), margins by more
/// than 2e-5 relative to max(1, |m|).
pub fn disagreement(a: &Outcome, b: &Outcome) -> Option<String> {
    let (va, vb) = (a.verdict(), b.verdict());
    if va != vb && va != Verdict::Uncertain && vb != Verdict::Uncertain {
        return Some(format!("verdict {} vs {}", va.as_str(), vb.as_str()));
    }
    let tolerance = 2e-5 * 1f32.max(a.margin.abs()).max(b.margin.abs());
    if (a.margin - b.margin).abs() > tolerance {
        return Some(format!("margin {} vs {}", a.margin, b.margin));
    }
    None
}
