//! JSON Lines in and out, in one place: numbered input lines, all-or-nothing output.

use std::io::{Read, Write};

use super::Failure;

/// The non-blank lines of a file ("-": standard input) with their 1-based line numbers.
pub fn read_lines(path: &str) -> Result<Vec<(usize, String)>, Failure> {
    let mut text = String::new();
    let read = if path == "-" {
        std::io::stdin().read_to_string(&mut text)
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text))
    };
    read.map_err(|e| Failure::new(format!("cannot read {path}: {e}"), 2))?;
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect())
}

/// One output line: an answer, or the error that kept an input line from being answered.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum Line<T> {
    Answer(T),
    Error {
        id: Option<serde_json::Value>,
        line: usize,
        error: String,
    },
}

/// A line that did not parse: its number, its id when it has one, and what is wrong.
type BadLine = (usize, Option<serde_json::Value>, String);

/// The input lines parsed: the good items, and where each line's answer or error goes.
pub struct Parsed<T> {
    pub items: Vec<T>,
    /// The input line number of each item.
    item_lines: Vec<usize>,
    /// For each input line: `Ok(index into items)` or its error line.
    slots: Vec<Result<usize, BadLine>>,
    path: String,
}

/// Parses every line with `parse`. A bad line becomes an error line of the output (with its
/// id when it has one) and is reported on stderr with its line number: the good lines are
/// still answered, and the command fails at the end, so nothing is lost or silent.
pub fn parse_all<T>(
    path: &str,
    lines: &[(usize, String)],
    parse: impl Fn(&str) -> Result<T, String>,
) -> Parsed<T> {
    let mut items = Vec::with_capacity(lines.len());
    let mut slots = Vec::with_capacity(lines.len());
    let mut item_lines = Vec::with_capacity(lines.len());
    for (number, text) in lines {
        match parse(text) {
            Ok(item) => {
                slots.push(Ok(items.len()));
                items.push(item);
                item_lines.push(*number);
            }
            Err(e) => {
                let id = serde_json::from_str::<serde_json::Value>(text)
                    .ok()
                    .and_then(|v| v.get("id").cloned());
                slots.push(Err((*number, id, e)));
            }
        }
    }
    Parsed {
        items,
        item_lines,
        slots,
        path: path.to_string(),
    }
}

impl<T> Parsed<T> {
    /// The input line number of each item.
    pub fn item_lines(&self) -> &[usize] {
        &self.item_lines
    }

    /// `--backend both`: names on stderr every line whose GPU and CPU answers differ
    /// (as `differ` says) and returns how many do.
    pub fn report_disagreements<A>(
        &self,
        gpu: &[A],
        cpu: &[A],
        differ: impl Fn(&A, &A) -> Option<String>,
    ) -> usize {
        let mut count = 0;
        for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
            if let Some(why) = differ(g, c) {
                eprintln!(
                    "planar-hold: GPU and CPU disagree: line {}: {why}",
                    self.item_lines[i]
                );
                count += 1;
            }
        }
        count
    }

    /// Writes the answers (one per good line, in order) and the error lines, then fails
    /// if any line was bad, naming each on stderr.
    pub fn finish<A: serde::Serialize>(
        self,
        output: Option<&str>,
        answers: Vec<A>,
    ) -> Result<(), Failure> {
        let mut answers: Vec<Option<A>> = answers.into_iter().map(Some).collect();
        let mut errors = Vec::new();
        let out: Vec<Line<A>> = self
            .slots
            .into_iter()
            .map(|slot| match slot {
                Ok(i) => Line::Answer(answers[i].take().expect("one answer per good line")),
                Err((line, id, error)) => {
                    errors.push(format!("{}:{line}: line {line}: {error}", self.path));
                    Line::Error { id, line, error }
                }
            })
            .collect();
        write_lines(output, &out)?;
        if errors.is_empty() {
            return Ok(());
        }
        for e in &errors {
            eprintln!("planar-hold: {e}");
        }
        Err(Failure::new(
            format!(
                "{} bad input line(s), answered with an \"error\" field",
                errors.len()
            ),
            2,
        ))
    }
}

/// Writes one JSON value per line to `output` (standard output when `None`). A regular
/// file is written beside its destination and renamed into place, so it is whole or absent.
pub fn write_lines<T: serde::Serialize>(output: Option<&str>, items: &[T]) -> Result<(), Failure> {
    let mut buffer = Vec::with_capacity(items.len() * 160);
    for item in items {
        serde_json::to_writer(&mut buffer, item).map_err(|e| Failure::new(e.to_string(), 1))?;
        buffer.push(b'\n');
    }
    match output {
        None | Some("-") => {
            let mut out = std::io::stdout().lock();
            out.write_all(&buffer)
                .and_then(|_| out.flush())
                .map_err(|e| Failure::new(format!("cannot write standard output: {e}"), 1))
        }
        Some(path) => {
            let fail = |e: std::io::Error| Failure::new(format!("cannot write {path}: {e}"), 1);
            // Only a regular file (or a new one) is written aside and renamed into place: a
            // device, pipe or symlink such as /dev/null is written as it is, never replaced.
            let regular = match std::fs::symlink_metadata(path) {
                Ok(meta) => meta.file_type().is_file(),
                Err(_) => true,
            };
            if !regular {
                return std::fs::write(path, &buffer).map_err(fail);
            }
            let tmp = format!("{path}.partial");
            std::fs::write(&tmp, &buffer)
                .and_then(|_| std::fs::rename(&tmp, path))
                .map_err(|e| {
                    let _ = std::fs::remove_file(&tmp);
                    fail(e)
                })
        }
    }
}

/// After the answers are written: fails with exit status 3 when `disagreeing` of `total`
/// answers differed between GPU and CPU (`--backend both`).
pub fn agreement(disagreeing: usize, total: usize) -> Result<(), Failure> {
    if disagreeing == 0 {
        return Ok(());
    }
    Err(Failure::new(
        format!("{disagreeing} of {total} answers disagree between GPU and CPU"),
        3,
    ))
}
