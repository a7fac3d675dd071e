//! `planar-hold gate`: scenes and edits from JSON Lines, every need of every line in one batch.

use planar_hold::scene::{hold_reports, parse_line, HoldReport};
use planar_hold::Backend;

use super::{engine, io, BackendArg, Failure};

pub fn run(path: &str, backend: BackendArg, output: Option<&str>) -> Result<(), Failure> {
    let lines = io::read_lines(path)?;
    let parsed = io::parse_all(path, &lines, |text| {
        parse_line(text).map_err(|e| e.to_string())
    });
    let scenes = &parsed.items;
    let reports = match backend {
        BackendArg::Cpu => hold_reports(&mut engine(Backend::Cpu)?, scenes)?,
        BackendArg::Gpu => hold_reports(&mut engine(Backend::Gpu)?, scenes)?,
        BackendArg::Both => {
            let gpu = hold_reports(&mut engine(Backend::Gpu)?, scenes)?;
            let cpu = hold_reports(&mut engine(Backend::Cpu)?, scenes)?;
            let disagreements: Vec<String> = gpu
                .iter()
                .zip(&cpu)
                .enumerate()
                .filter_map(|(i, (g, c))| {
                    let why = disagreement(g, c)?;
                    Some(format!("line {}: {why}", parsed.line_of(i)))
                })
                .collect();
            for d in &disagreements {
                eprintln!("planar-hold: GPU and CPU disagree: {d}");
            }
            parsed.finish(output, gpu)?;
            if !disagreements.is_empty() {
                return Err(Failure::new(
                    format!("{} lines disagree between GPU and CPU", disagreements.len()),
                    3,
                ));
            }
            return Ok(());
        }
    };
    parsed.finish(output, reports)
}

/// How two reports on one line differ beyond tolerance: the gate's answer (unless either
/// is uncertain) or the robust margin by more than 2e-5 relative to max(1, |m|).
fn disagreement(a: &HoldReport, b: &HoldReport) -> Option<String> {
    if a.held != b.held && !a.uncertain && !b.uncertain {
        return Some(format!("held {} vs {}", a.held, b.held));
    }
    let tolerance = 2e-5 * 1f32.max(a.robust_margin.abs()).max(b.robust_margin.abs());
    ((a.robust_margin - b.robust_margin).abs() > tolerance)
        .then(|| format!("robust margin {} vs {}", a.robust_margin, b.robust_margin))
}
