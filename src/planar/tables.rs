//! The two index tables of docs/contract-planar.md §4–§5, generated in the table order of docs/contract-planar.md §4–§5 and packed for upload.
//!
//! Both are uploaded once per device as uniform buffers of `vec4<u32>` entries (16-byte
//! stride, as uniform arrays require); the CPU reference walks the very same entries.

/// Witness subsets: 16 singles, 120 pairs, 560 triples (docs/contract-planar.md §4).
pub(crate) const WITNESS_COUNT: usize = 696;
/// Certificate candidates for 16 generators (docs/contract-planar.md §5).
pub(crate) const CANDIDATE_COUNT: usize = 385;
/// Pairs `i < j` of 16 generators.
pub(crate) const PAIR_COUNT: usize = 120;

/// First entry of the pairs in the witness table (after the 16 singles).
pub(crate) const FIRST_PAIR: usize = 16;
/// First entry of the triples in the witness table.
pub(crate) const FIRST_TRIPLE: usize = FIRST_PAIR + PAIR_COUNT;

/// First generator direction `±wᵢ` in the candidate table (after the 240 pair planes).
pub(crate) const FIRST_GENERATOR_DIRECTION: usize = 2 * PAIR_COUNT;
/// First perpendicular part of the need in the candidate table.
pub(crate) const FIRST_PERPENDICULAR: usize = FIRST_GENERATOR_DIRECTION + 32;
/// First plane through one generator in the candidate table.
pub(crate) const FIRST_GENERATOR_PLANE: usize = FIRST_PERPENDICULAR + 16;
/// Index of the apex `−need`, the last candidate.
pub(crate) const APEX: usize = FIRST_GENERATOR_PLANE + 96;

/// Candidate kind `±(wᵢ × wⱼ)`, as stored in `.x` of a packed candidate (keep the kinds in
/// sync with the shader).
pub(crate) const KIND_PAIR_PLANE: u32 = 0;
/// Candidate kind `±wᵢ`.
pub(crate) const KIND_GENERATOR_DIRECTION: u32 = 1;
/// Candidate kind `−(need − (need·wᵢ / wᵢ·wᵢ) wᵢ)`.
pub(crate) const KIND_PERPENDICULAR: u32 = 2;
/// Candidate kind `±(wᵢ × e_axis)`.
pub(crate) const KIND_GENERATOR_PLANE: u32 = 3;
/// Candidate kind `−need`.
pub(crate) const KIND_APEX: u32 = 4;

/// Index of the pair `i < j` among the 120 pairs in lexicographic order.
/// The shader computes the same expression (`pair_index`).
pub(crate) const fn pair_index(i: u32, j: u32) -> u32 {
    i * (31 - i) / 2 + (j - i - 1)
}

/// Index of the triple `i < j < k` among the 560 triples in lexicographic order: those with
/// a smaller first index, then a smaller second one, then a smaller third one.
/// The shader computes the same expression (`triple_index`).
pub(crate) const fn triple_index(i: u32, j: u32, k: u32) -> u32 {
    let (a, b) = (16 - i, 16 - j);
    560 - a * (a - 1) * (a - 2) / 6 + (a - 1) * (a - 2) / 2 - b * (b - 1) / 2 + (k - j - 1)
}

/// A witness subset packed as `(i, j, k, size)`; unused indices are 0.
pub(crate) type PackedSubset = [u32; 4];

/// A candidate packed as `(kind, i, j or axis, sign)`; sign 0 is `+`, 1 is `−`.
pub(crate) type PackedCandidate = [u32; 4];

/// One certificate candidate of docs/contract-planar.md §5, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// `±(wᵢ × wⱼ)`, the plane through two generators.
    PairPlane {
        /// First generator slot.
        i: u32,
        /// Second generator slot, `j > i`.
        j: u32,
        /// The `−` sign.
        negative: bool,
    },
    /// `±wᵢ`.
    GeneratorDirection {
        /// Generator slot.
        i: u32,
        /// The `−` sign.
        negative: bool,
    },
    /// `−(need − (need·wᵢ / wᵢ·wᵢ) wᵢ)`, the part of the need perpendicular to `wᵢ`.
    Perpendicular {
        /// Generator slot.
        i: u32,
    },
    /// `±(wᵢ × e_axis)`, a plane through one generator.
    GeneratorPlane {
        /// Generator slot.
        i: u32,
        /// Coordinate axis 0, 1 or 2 (force x, force z, moment).
        axis: u32,
        /// The `−` sign.
        negative: bool,
    },
    /// `−need`.
    Apex,
}

impl Candidate {
    /// The candidate a table entry stands for; an unknown kind reads as the apex.
    pub(crate) fn unpack(p: PackedCandidate) -> Candidate {
        let negative = p[3] == 1;
        match p[0] {
            KIND_PAIR_PLANE => Candidate::PairPlane {
                i: p[1],
                j: p[2],
                negative,
            },
            KIND_GENERATOR_DIRECTION => Candidate::GeneratorDirection { i: p[1], negative },
            KIND_PERPENDICULAR => Candidate::Perpendicular { i: p[1] },
            KIND_GENERATOR_PLANE => Candidate::GeneratorPlane {
                i: p[1],
                axis: p[2],
                negative,
            },
            _ => Candidate::Apex,
        }
    }

    /// The generator slots the candidate is built from.
    pub(crate) fn generators(&self) -> Vec<u32> {
        match *self {
            Candidate::PairPlane { i, j, .. } => vec![i, j],
            Candidate::GeneratorDirection { i, .. }
            | Candidate::Perpendicular { i }
            | Candidate::GeneratorPlane { i, .. } => vec![i],
            Candidate::Apex => vec![],
        }
    }

    /// The candidate at `index` of the table.
    pub fn at(index: u32) -> Option<Candidate> {
        candidates()
            .get(index as usize)
            .map(|&p| Candidate::unpack(p))
    }
}

impl std::fmt::Display for Candidate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |negative: bool| if negative { '-' } else { '+' };
        match *self {
            Candidate::PairPlane { i, j, negative } => write!(f, "{}(w{i} x w{j})", s(negative)),
            Candidate::GeneratorDirection { i, negative } => write!(f, "{}w{i}", s(negative)),
            Candidate::Perpendicular { i } => write!(f, "-(need perpendicular to w{i})"),
            Candidate::GeneratorPlane { i, axis, negative } => {
                write!(f, "{}(w{i} x e{axis})", s(negative))
            }
            Candidate::Apex => write!(f, "-need"),
        }
    }
}

/// The 696 witness subsets in the table order of docs/contract-planar.md §4–§5: singles, pairs, triples, each lexicographic.
pub(crate) fn witness_subsets() -> &'static [PackedSubset; WITNESS_COUNT] {
    static TABLE: std::sync::OnceLock<[PackedSubset; WITNESS_COUNT]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let n = crate::MAX_GENERATORS as u32;
        let singles = (0..n).map(|i| [i, 0, 0, 1]);
        let pairs = (0..n).flat_map(move |i| (i + 1..n).map(move |j| [i, j, 0, 2]));
        let triples = (0..n)
            .flat_map(move |i| (i + 1..n).flat_map(move |j| (j + 1..n).map(move |k| [i, j, k, 3])));
        let all: Vec<PackedSubset> = singles.chain(pairs).chain(triples).collect();
        all.try_into().expect("16 + 120 + 560 subsets")
    })
}

/// The 385 certificate candidates in the table order of docs/contract-planar.md §4–§5.
pub(crate) fn candidates() -> &'static [PackedCandidate; CANDIDATE_COUNT] {
    static TABLE: std::sync::OnceLock<[PackedCandidate; CANDIDATE_COUNT]> =
        std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let n = crate::MAX_GENERATORS as u32;
        let signs = [0u32, 1];
        let mut all: Vec<PackedCandidate> = Vec::with_capacity(CANDIDATE_COUNT);
        for i in 0..n {
            for j in i + 1..n {
                all.extend(signs.map(|s| [KIND_PAIR_PLANE, i, j, s]));
            }
        }
        for i in 0..n {
            all.extend(signs.map(|s| [KIND_GENERATOR_DIRECTION, i, 0, s]));
        }
        all.extend((0..n).map(|i| [KIND_PERPENDICULAR, i, 0, 1]));
        for i in 0..n {
            for axis in 0..3 {
                all.extend(signs.map(|s| [KIND_GENERATOR_PLANE, i, axis, s]));
            }
        }
        all.push([KIND_APEX, 0, 0, 1]);
        all.try_into().expect("240 + 32 + 16 + 96 + 1 candidates")
    })
}
