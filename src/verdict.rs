//! The verdict of a cone test: one type for both kinds.

/// The answer of a cone test, of either kind (docs/contract-planar.md §4–§7,
/// docs/contract-general.md): the word both kinds and every format share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A witness holds: non-negative weights reproduce the need.
    Supported = 0,
    /// A certificate holds: a plane with every generator on one side and the need beyond it.
    Unsupported = 1,
    /// Within tolerance of the boundary: neither (or both) passed. Not held.
    Uncertain = 2,
}

impl Verdict {
    /// "supported", "unsupported" or "uncertain": the word every output format uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Unsupported => "unsupported",
            Verdict::Uncertain => "uncertain",
        }
    }
}
