//! Everything that can go wrong, as one value every part of the crate returns.

/// Everything that can go wrong, as a value: input, adapter, device.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A case with more generators than its engine takes (16 for the planar enumeration,
    /// docs/contract-planar.md §2; 256 for the general engine): the count given and the most.
    #[error("more than {max} generators: {count}")]
    TooManyGenerators {
        /// Generators given.
        count: usize,
        /// The most the engine takes.
        max: usize,
    },
    /// A NaN or infinity in a case; names the generator or the need.
    #[error("non-finite number in {0}")]
    NonFinite(String),
    /// Malformed or out-of-range input (a scene line, a file, mismatched lengths), in words.
    #[error("invalid input: {0}")]
    Input(String),
    /// No GPU adapter matches the environment (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`); holds
    /// what was asked for. The message says how to install a software adapter.
    #[error(
        "no GPU adapter found{0}. Install a software one (Debian: `apt-get install mesa-vulkan-drivers` \
         for lavapipe, or Mesa's EGL/llvmpipe for WGPU_BACKEND=gl), or run with `--backend cpu`"
    )]
    NoAdapter(String),
    /// The adapter refused to create a device with the features and limits asked for.
    #[error("GPU device could not be created: {0}")]
    RequestDevice(String),
    /// The device was lost (driver reset, timeout) during or between batches.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// Allocating a chunk's buffers failed; a smaller
    /// [`GpuOptions::max_chunk_cases`](crate::gpu::GpuOptions::max_chunk_cases) may fit.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),
    /// The device's limits do not admit a chunk of even one case.
    #[error("GPU limits exceeded: {0}")]
    Limits(String),
    /// Any other GPU failure: shader or pipeline validation, readback, mapping.
    #[error("GPU error: {0}")]
    Gpu(String),
}

/// serde_json's message for an error in one line of text: its position as "at column C"
/// (serde's "line 1" would contradict the line number the caller gives).
pub(crate) fn one_line(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(message) if e.line() == 1 => format!("{message} at column {}", e.column()),
        _ => text,
    }
}

/// A scene, spatial scene or grasp line that serde could not read, as [`Error::Input`]: a
/// field of the wrong kind ("invalid field in `what`: ..."), or text that is not JSON
/// ("malformed JSON (parse error): ..."), where a `NaN` or `Infinity` at the error's column
/// is named as such (JSON has no such numbers; a writer that allows them made it).
pub(crate) fn line_error(what: &str, text: &str, e: &serde_json::Error) -> Error {
    if e.classify() == serde_json::error::Category::Data {
        return Error::Input(format!("invalid field in {what}: {}", one_line(e)));
    }
    Error::Input(format!("malformed JSON (parse error): {}", syntax(text, e)))
}

/// What is wrong with `text` where serde's syntax error `e` stopped: a `NaN` or `Infinity`
/// there named as such, else serde's words ([`one_line`]).
fn syntax(text: &str, e: &serde_json::Error) -> String {
    let rest = text
        .lines()
        .nth(e.line().saturating_sub(1))
        .and_then(|line| line.get(e.column().saturating_sub(1)..))
        .unwrap_or_default();
    let word = ["NaN", "Infinity"]
        .into_iter()
        .find(|w| rest.starts_with(w));
    match word {
        Some(word) => format!(
            "{word} at column {} is not a JSON number (numbers must be finite)",
            e.column()
        ),
        None => one_line(e),
    }
}

/// The syntax error of a line that is not JSON, as [`syntax`] words it; `None` for a line
/// that is. A case's reader stops at the first thing it cannot take, which for a line the
/// wrong reader got (a truncated line of six-number generators, read as planar) is not what
/// is wrong with it.
pub(crate) fn not_json(text: &[u8]) -> Option<String> {
    use serde_json::error::Category;
    let e = serde_json::from_slice::<serde::de::IgnoredAny>(text).err()?;
    matches!(e.classify(), Category::Syntax | Category::Eof)
        .then(|| syntax(&String::from_utf8_lossy(text), &e))
}
