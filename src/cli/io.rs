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

/// Parses every line with `parse`; on any error, reports up to ten of them with their
/// line numbers and fails, so that nothing is computed or written for a bad file.
pub fn parse_all<T>(
    path: &str,
    lines: &[(usize, String)],
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, Failure> {
    let mut items = Vec::with_capacity(lines.len());
    let mut errors = Vec::new();
    for (number, text) in lines {
        match parse(text) {
            Ok(item) => items.push(item),
            Err(e) => errors.push(format!("{path}:{number}: line {number}: {e}")),
        }
    }
    if errors.is_empty() {
        return Ok(items);
    }
    let shown = errors.len().min(10);
    let mut message = format!("{} bad input line(s), nothing written:\n", errors.len());
    message.push_str(&errors[..shown].join("\n"));
    if errors.len() > shown {
        message.push_str(&format!("\n... and {} more", errors.len() - shown));
    }
    Err(Failure::new(message, 2))
}

/// Writes one JSON value per line to `output` (standard output when `None`). A file is
/// written beside its destination and renamed into place, so it is whole or absent.
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
            let tmp = format!("{path}.partial");
            std::fs::write(&tmp, &buffer)
                .and_then(|_| std::fs::rename(&tmp, path))
                .map_err(|e| {
                    let _ = std::fs::remove_file(&tmp);
                    Failure::new(format!("cannot write {path}: {e}"), 1)
                })
        }
    }
}
