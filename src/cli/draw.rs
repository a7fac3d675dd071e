//! `planar-hold draw`: one SVG picture per scene or edit line (`planar_hold::details::draw`), the
//! gate's pipeline writing pictures instead of reports.

use super::pictures::Pictures;
use super::{exit, BackendArg, Failure};

/// `planar-hold draw`: the gate's pipeline with the reports discarded and a picture per
/// valid line; bad lines are named on stderr as `gate` names them (exit status 5).
pub(super) fn run(path: &str, backend: BackendArg, dir: &str) -> Result<(), Failure> {
    if backend == BackendArg::Both {
        return Err(Failure::new(
            "draw: --backend both compares answers (gate, eval); pick gpu or cpu to draw",
            exit::USAGE,
        ));
    }
    let pictures = Pictures::new(dir)?;
    super::gate::stream(
        path,
        backend,
        Some(NULL_DEVICE),
        Some(pictures),
        super::gate::Asked::default(),
    )
}

/// Where `draw` sends the reports it does not keep.
#[cfg(unix)]
const NULL_DEVICE: &str = "/dev/null";
#[cfg(not(unix))]
const NULL_DEVICE: &str = "NUL";
