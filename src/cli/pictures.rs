//! The pictures of one `draw` or `gate --draw` run (`planar_hold::details::draw`), written into a
//! directory one file per line.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use planar_hold::{Report, SceneLine};

use super::{exit, Failure};

/// Writes the pictures of one run into a directory, one file per line, never two lines into
/// one file: a name already written in this run gets `-line-<N>` added.
pub(super) struct Pictures {
    dir: PathBuf,
    used: HashSet<String>,
}

impl Pictures {
    /// Creates `dir` if needed.
    pub(super) fn new(dir: &str) -> Result<Pictures, Failure> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::new(format!("cannot create directory {dir}: {e}"), exit::IO))?;
        Ok(Pictures {
            dir: PathBuf::from(dir),
            used: HashSet::new(),
        })
    }

    /// Writes the picture of input line `line`.
    pub(super) fn write(
        &mut self,
        line: usize,
        scene: &SceneLine,
        report: &Report,
    ) -> Result<(), Failure> {
        let mut name = planar_hold::details::draw::file_name(Some(report.id()), line);
        if self.used.contains(&name) {
            name = format!("{}-line-{line}.svg", name.trim_end_matches(".svg"));
        }
        let path = self.dir.join(&name);
        let text = match (scene, report) {
            (SceneLine::Planar(s), Report::Planar(r)) => planar_hold::details::draw::svg_text(s, r),
            (SceneLine::Spatial(s), Report::Spatial(r)) => {
                planar_hold::details::draw::spatial::svg_text(s, r)
            }
            (SceneLine::Grasp(s), Report::Grasp(r)) => {
                planar_hold::details::draw::grasp::svg_text(s, r)
            }
            _ => return Err(Failure::new("draw: a report of the other kind", exit::IO)),
        };
        std::fs::write(&path, text)
            .map_err(|e| Failure::new(format!("cannot write {}: {e}", show(&path)), exit::IO))?;
        self.used.insert(name);
        Ok(())
    }
}

fn show(p: &Path) -> String {
    p.display().to_string()
}
