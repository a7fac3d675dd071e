//! `planar-hold draw`: one SVG picture per scene or edit line (`planar_hold::draw`), and the
//! writer `gate --draw` shares.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use planar_hold::scene::{hold_reports, parse_line, HoldReport, Scene};
use planar_hold::Backend;

use super::{engine, io, BackendArg, Failure};

/// Writes the pictures of one run into a directory, one file per line, never two lines into
/// one file: a name already written in this run gets `-line-<N>` added.
pub struct Pictures {
    dir: PathBuf,
    used: HashSet<String>,
}

impl Pictures {
    /// Creates `dir` if needed.
    pub fn new(dir: &str) -> Result<Pictures, Failure> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::new(format!("cannot create directory {dir}: {e}"), 2))?;
        Ok(Pictures {
            dir: PathBuf::from(dir),
            used: HashSet::new(),
        })
    }

    /// Writes the picture of input line `line`.
    pub fn write(
        &mut self,
        line: usize,
        scene: &Scene,
        report: &HoldReport,
    ) -> Result<(), Failure> {
        let mut name = planar_hold::draw::file_name(Some(&report.id), line);
        if self.used.contains(&name) {
            name = format!("{}-line-{line}.svg", name.trim_end_matches(".svg"));
        }
        let path = self.dir.join(&name);
        std::fs::write(&path, planar_hold::draw::svg_text(scene, report))
            .map_err(|e| Failure::new(format!("cannot write {}: {e}", show(&path)), 1))?;
        self.used.insert(name);
        Ok(())
    }
}

fn show(p: &Path) -> String {
    p.display().to_string()
}

pub fn run(path: &str, backend: BackendArg, dir: &str) -> Result<(), Failure> {
    let backend = match backend {
        BackendArg::Gpu => Backend::Gpu,
        BackendArg::Cpu => Backend::Cpu,
        BackendArg::Both => {
            return Err(Failure::new(
                "draw: --backend both compares answers (gate, eval); pick gpu or cpu to draw",
                2,
            ))
        }
    };
    let lines = io::read_lines(path)?;
    let mut scenes = Vec::with_capacity(lines.len());
    let mut numbers = Vec::with_capacity(lines.len());
    let mut errors = Vec::new();
    for (number, text) in &lines {
        match parse_line(text) {
            Ok(s) => {
                scenes.push(s);
                numbers.push(*number);
            }
            Err(e) => errors.push(format!("{path}:{number}: line {number}: {e}")),
        }
    }
    let reports = hold_reports(&mut engine(backend)?, &scenes)?;
    let mut pictures = Pictures::new(dir)?;
    for ((scene, report), &number) in scenes.iter().zip(&reports).zip(&numbers) {
        pictures.write(number, scene, report)?;
    }
    if errors.is_empty() {
        return Ok(());
    }
    for e in &errors {
        eprintln!("planar-hold: {e}");
    }
    Err(Failure::new(
        format!("{} bad input line(s), not drawn", errors.len()),
        2,
    ))
}
