//! `planar-hold eval`: cone tests from JSON Lines.

use planar_hold::jsonl::{parse_case, Answer};
use planar_hold::{Backend, Case, Outcome};

use super::{engine, io, BackendArg, Failure};

pub fn run(path: &str, backend: BackendArg, output: Option<&str>) -> Result<(), Failure> {
    let lines = io::read_lines(path)?;
    let mut parsed = io::parse_all(path, &lines, parse_case);
    let (ids, cases): (Vec<_>, Vec<Case>) = std::mem::take(&mut parsed.items).into_iter().unzip();
    let (outcomes, disagreeing) = match backend {
        BackendArg::Cpu => (engine(Backend::Cpu)?.evaluate(&cases)?, 0),
        BackendArg::Gpu => (engine(Backend::Gpu)?.evaluate(&cases)?, 0),
        BackendArg::Both => {
            let gpu = engine(Backend::Gpu)?.evaluate(&cases)?;
            let cpu = engine(Backend::Cpu)?.evaluate(&cases)?;
            let disagreeing = parsed.report_disagreements(&gpu, &cpu, Outcome::disagreement);
            (gpu, disagreeing)
        }
    };
    parsed.finish(output, answers(ids, &cases, &outcomes))?;
    io::agreement(disagreeing, cases.len())
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
