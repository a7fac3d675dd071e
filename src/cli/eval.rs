//! `planar-hold eval`: cone tests from JSON Lines.

use planar_hold::jsonl::{parse_case, Answer};
use planar_hold::{Backend, Case, Outcome};

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
                    let why = g.disagreement(c)?;
                    Some(format!("line {}: {why}", parsed.line_of(i)))
                })
                .collect();
            for d in &disagreements {
                eprintln!("planar-hold: GPU and CPU disagree: {d}");
            }
            if !disagreements.is_empty() {
                let n = cases.len();
                parsed.finish(output, answers(ids, &cases, &gpu))?;
                return Err(Failure::new(
                    format!(
                        "{} of {n} cases disagree between GPU and CPU",
                        disagreements.len()
                    ),
                    3,
                ));
            }
            gpu
        }
    };
    parsed.finish(output, answers(ids, &cases, &outcomes))
}

fn answers(
    ids: Vec<Option<serde_json::Value>>,
    cases: &[Case],
    outcomes: &[Outcome],
) -> Vec<Answer> {
    ids.into_iter()
        .zip(cases.iter().zip(outcomes))
        .map(|(id, (case, o))| Answer::new(id, case, o))
        .collect()
}
