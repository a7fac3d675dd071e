//! `planar-hold gate`: scenes and edits from JSON Lines, every need of every line in one batch.

use planar_hold::scene::{hold_reports, parse_line, HoldReport};
use planar_hold::Backend;

use super::{engine, io, BackendArg, Failure};

/// `draw`: a directory for one picture per line (`planar-hold draw`'s), beside the report.
pub fn run(
    path: &str,
    backend: BackendArg,
    output: Option<&str>,
    draw: Option<&str>,
) -> Result<(), Failure> {
    let lines = io::read_lines(path)?;
    let parsed = io::parse_all(path, &lines, |text| {
        parse_line(text).map_err(|e| e.to_string())
    });
    let scenes = &parsed.items;
    let (reports, disagreeing) = match backend {
        BackendArg::Cpu => (hold_reports(&mut engine(Backend::Cpu)?, scenes)?, 0),
        BackendArg::Gpu => (hold_reports(&mut engine(Backend::Gpu)?, scenes)?, 0),
        BackendArg::Both => {
            let gpu = hold_reports(&mut engine(Backend::Gpu)?, scenes)?;
            let cpu = hold_reports(&mut engine(Backend::Cpu)?, scenes)?;
            let disagreeing = parsed.report_disagreements(&gpu, &cpu, disagreement);
            (gpu, disagreeing)
        }
    };
    if let Some(dir) = draw {
        let mut pictures = super::draw::Pictures::new(dir)?;
        for ((scene, report), &line) in scenes.iter().zip(&reports).zip(parsed.item_lines()) {
            pictures.write(line, scene, report)?;
        }
    }
    let total = reports.len();
    parsed.finish(output, reports)?;
    io::agreement(disagreeing, total)
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
