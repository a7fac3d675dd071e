//! Plain-old-data types shared byte for byte with `shaders/search.wgsl` (the general
//! engine's float32 search). Keep in sync with the shader's structs: `search_tests.rs`
//! compares sizes and offsets against naga's reflection of it.

use bytemuck::{Pod, Zeroable};

/// One case of the general kernel (`shaders/search.wgsl`): where its numbers start in the
/// chunk's float32 buffer (the unit need, then `count` unit generators, `dim` numbers each),
/// how many generators, and the dimension (3, 6, or 7 for a lifted grasp cone). 16 bytes.
/// Keep in sync with `struct Record` in `shaders/search.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub(crate) struct GeneralRecord {
    /// Index of the case's first number (its need) in the chunk's value buffer.
    pub offset: u32,
    /// Generators (K ≤ 256).
    pub count: u32,
    /// 3, 6 or 7.
    pub dim: u32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}

/// What the general kernel's float32 search writes for one case: its passive set (the hint
/// the host's float64 solve starts from) and what it thinks of the need. 48 bytes.
/// Keep in sync with `struct Hint` in `shaders/search.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GeneralHint {
    /// `HINT_INSIDE`, `HINT_OUTSIDE` or `HINT_UNFINISHED` of `crate::general::search`.
    pub status: u32,
    /// Generators in the passive set (≤ dim).
    pub len: u32,
    /// The passive set's generator indices (in the order the search holds them; up to 7,
    /// the last entry padding).
    pub index: [u32; 8],
    /// |need − Σ xᵢwᵢ| in the unit scale (the need normalised), float32.
    pub residual: f32,
    /// Outer iterations the search took.
    pub iterations: u32,
}

/// The general kernel's uniform: cases in the dispatch. Keep in sync with
/// `struct GeneralParams` in `shaders/search.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub(crate) struct GeneralParams {
    /// Cases in the dispatch.
    pub count: u32,
    /// Padding to a uniform's 16-byte alignment.
    pub _pad: [u32; 3],
}
