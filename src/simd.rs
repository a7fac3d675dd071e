//! The instruction sets the CPU fast path runs with, chosen at run time, and the few vector
//! operations it needs, one implementation per instruction set.
//!
//! `lanes.rs` is written once over [`Lanes`]; each `#[target_feature]` entry point in
//! `lanes.rs` instantiates it with one of the types here. The x86 types wrap `std::arch`
//! registers: they are only ever built inside such an entry point, after detection, so
//! their safe-looking operations never run on a CPU without the instructions.
//!
//! Every operation rounds exactly as the scalar reference's: IEEE add, sub, mul, div and
//! sqrt per lane; `min`/`max` are x86's `minps`/`maxps`, `a < b ? a : b`, the reference's
//! `lo`/`hi` exactly. Written as intrinsics rather than selects so that a running minimum
//! stays a plain load, min and store: LLVM turns a select-and-store into a masked store
//! (`vmaskmovps` on AVX2), which cannot forward to the load that follows.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

/// The instruction set the fast path runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// x86-64 AVX-512F (and AVX2): 16 cases at once.
    Avx512,
    /// x86-64 AVX2: 8 cases at once.
    Avx2,
    /// Whatever the build targets (SSE2 on x86-64, NEON on aarch64): 8 cases at once as
    /// plain arrays, vectorised by the compiler. Runs everywhere.
    Baseline,
}

/// Environment variable that forces an instruction set: `avx512`, `avx2` or `baseline`
/// (unset, empty or `auto`: the best this CPU has).
pub const SIMD_ENV: &str = "PLANAR_HOLD_SIMD";

impl Simd {
    /// Every instruction set, best first.
    pub const ALL: [Simd; 3] = [Simd::Avx512, Simd::Avx2, Simd::Baseline];

    /// The name `PLANAR_HOLD_SIMD`, `info` and `bench` use.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Avx512 => "avx512",
            Simd::Avx2 => "avx2",
            Simd::Baseline => "baseline",
        }
    }

    /// Cases evaluated at once.
    pub fn lanes(self) -> usize {
        match self {
            Simd::Avx512 => 16,
            Simd::Avx2 | Simd::Baseline => 8,
        }
    }

    /// Whether this CPU can run it.
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx2")
            }
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Simd::Avx512 | Simd::Avx2 => false,
            Simd::Baseline => true,
        }
    }

    /// The best instruction set this CPU has.
    pub(crate) fn detected() -> Simd {
        Simd::ALL
            .into_iter()
            .find(|s| s.available())
            .unwrap_or(Simd::Baseline)
    }

    /// The instruction set `PLANAR_HOLD_SIMD` asks for, else the best detected; an error
    /// for an unknown name or one this CPU lacks.
    pub fn from_env() -> Result<Simd, String> {
        match std::env::var(SIMD_ENV) {
            Ok(v) => Simd::parse(&v),
            Err(std::env::VarError::NotPresent) => Ok(Simd::detected()),
            Err(e) => Err(format!("{SIMD_ENV}: {e}")),
        }
    }

    /// `avx512`, `avx2`, `baseline`, or `auto` / empty for the best detected.
    pub(crate) fn parse(name: &str) -> Result<Simd, String> {
        let name = name.trim();
        if name.is_empty() || name.eq_ignore_ascii_case("auto") {
            return Ok(Simd::detected());
        }
        let simd = Simd::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                format!("{SIMD_ENV}={name:?}: expected avx512, avx2, baseline or auto")
            })?;
        if simd.available() {
            Ok(simd)
        } else {
            Err(format!("{SIMD_ENV}={name}: this CPU cannot run {name}"))
        }
    }

    /// The instruction set `cone_test_slice` uses: `from_env`, read once; where that is an
    /// error (the CLI reports it before any work), a warning and the best detected.
    pub fn chosen() -> Simd {
        static CHOSEN: std::sync::OnceLock<Simd> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            Simd::from_env().unwrap_or_else(|e| {
                let best = Simd::detected();
                eprintln!("warning: {e}; using {}", best.name());
                best
            })
        })
    }
}

impl std::fmt::Display for Simd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `L` float32 lanes, one per case, with the operations of the fast path.
pub(super) trait Lanes:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    const L: usize;
    /// One flag per lane.
    type Mask: Copy
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;

    fn splat(x: f32) -> Self;
    /// Lanes `0..L` of `a` (at least `L` long).
    fn load(a: &[f32]) -> Self;
    /// Into lanes `0..L` of `a` (at least `L` long).
    fn store(self, a: &mut [f32]);
    /// `self < o ? self : o` (`minps`).
    fn min(self, o: Self) -> Self;
    /// `self > o ? self : o` (`maxps`).
    fn max(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn lt(self, o: Self) -> Self::Mask;
    fn le(self, o: Self) -> Self::Mask;
    fn gt(self, o: Self) -> Self::Mask;
    fn ge(self, o: Self) -> Self::Mask;
    fn eq(self, o: Self) -> Self::Mask;
    /// For `self` the largest |component| of a vector: `(2^-e, e)`, `e` as the reference's
    /// `exponent_of` reads it from the float bits (largest component times `2^-e` in
    /// [2, 4), `e` in `-127..=126`; 0 for a zero vector).
    fn prescale(self) -> (Self, Self);
    /// `m ? a : b` per lane.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// Bit `l` set where lane `l` is.
    fn bits(m: Self::Mask) -> u32;
    #[inline(always)]
    fn any(m: Self::Mask) -> bool {
        Self::bits(m) != 0
    }
}

/// Operator traits for a wrapper type from its lane-wise intrinsics (sign flip: xor with −0).
#[cfg(target_arch = "x86_64")]
macro_rules! arithmetic {
    ($t:ty, $add:path, $sub:path, $mul:path, $div:path, $xor:path, $splat:path) => {
        impl Add for $t {
            type Output = $t;
            #[inline(always)]
            fn add(self, o: $t) -> $t {
                // SAFETY: see the module's doc: built only where the CPU has the instructions.
                unsafe { Self($add(self.0, o.0)) }
            }
        }
        impl Sub for $t {
            type Output = $t;
            #[inline(always)]
            fn sub(self, o: $t) -> $t {
                // SAFETY: as above.
                unsafe { Self($sub(self.0, o.0)) }
            }
        }
        impl Mul for $t {
            type Output = $t;
            #[inline(always)]
            fn mul(self, o: $t) -> $t {
                // SAFETY: as above.
                unsafe { Self($mul(self.0, o.0)) }
            }
        }
        impl Div for $t {
            type Output = $t;
            #[inline(always)]
            fn div(self, o: $t) -> $t {
                // SAFETY: as above.
                unsafe { Self($div(self.0, o.0)) }
            }
        }
        impl Neg for $t {
            type Output = $t;
            /// The sign bit flipped, as `-x` on a float.
            #[inline(always)]
            fn neg(self) -> $t {
                // SAFETY: as above.
                unsafe { Self($xor(self.0, $splat(-0.0))) }
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::{Avx2, Avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// 8 lanes in an AVX register; masks are all-ones lanes in another.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2(__m256);

    #[derive(Clone, Copy)]
    pub(crate) struct Avx2Mask(__m256);

    arithmetic!(
        Avx2,
        _mm256_add_ps,
        _mm256_sub_ps,
        _mm256_mul_ps,
        _mm256_div_ps,
        _mm256_xor_ps,
        _mm256_set1_ps
    );

    impl BitAnd for Avx2Mask {
        type Output = Avx2Mask;
        #[inline(always)]
        fn bitand(self, o: Avx2Mask) -> Avx2Mask {
            // SAFETY: as for `Avx2`.
            unsafe { Avx2Mask(_mm256_and_ps(self.0, o.0)) }
        }
    }
    impl BitOr for Avx2Mask {
        type Output = Avx2Mask;
        #[inline(always)]
        fn bitor(self, o: Avx2Mask) -> Avx2Mask {
            // SAFETY: as for `Avx2`.
            unsafe { Avx2Mask(_mm256_or_ps(self.0, o.0)) }
        }
    }
    impl Not for Avx2Mask {
        type Output = Avx2Mask;
        #[inline(always)]
        fn not(self) -> Avx2Mask {
            // SAFETY: as for `Avx2`.
            unsafe {
                Avx2Mask(_mm256_xor_ps(
                    self.0,
                    _mm256_castsi256_ps(_mm256_set1_epi32(-1)),
                ))
            }
        }
    }

    impl Lanes for Avx2 {
        const L: usize = 8;
        type Mask = Avx2Mask;
        #[inline(always)]
        fn splat(x: f32) -> Self {
            // SAFETY (this and every method below): as the module's doc says.
            unsafe { Avx2(_mm256_set1_ps(x)) }
        }
        #[inline(always)]
        fn load(a: &[f32]) -> Self {
            assert!(a.len() >= 8);
            unsafe { Avx2(_mm256_loadu_ps(a.as_ptr())) }
        }
        #[inline(always)]
        fn store(self, a: &mut [f32]) {
            assert!(a.len() >= 8);
            unsafe { _mm256_storeu_ps(a.as_mut_ptr(), self.0) }
        }
        #[inline(always)]
        fn min(self, o: Self) -> Self {
            unsafe { Avx2(_mm256_min_ps(self.0, o.0)) }
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            unsafe { Avx2(_mm256_max_ps(self.0, o.0)) }
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            unsafe { Avx2(_mm256_sqrt_ps(self.0)) }
        }
        #[inline(always)]
        fn abs(self) -> Self {
            unsafe { Avx2(_mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0)) }
        }
        #[inline(always)]
        fn lt(self, o: Self) -> Avx2Mask {
            unsafe { Avx2Mask(_mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn le(self, o: Self) -> Avx2Mask {
            unsafe { Avx2Mask(_mm256_cmp_ps::<_CMP_LE_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn gt(self, o: Self) -> Avx2Mask {
            unsafe { Avx2Mask(_mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn ge(self, o: Self) -> Avx2Mask {
            unsafe { Avx2Mask(_mm256_cmp_ps::<_CMP_GE_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn eq(self, o: Self) -> Avx2Mask {
            unsafe { Avx2Mask(_mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn prescale(self) -> (Self, Self) {
            unsafe {
                let bits = _mm256_castps_si256(self.0);
                let biased = _mm256_min_epi32(
                    _mm256_max_epi32(_mm256_srli_epi32::<23>(bits), _mm256_set1_epi32(1)),
                    _mm256_set1_epi32(254),
                );
                let zero = _mm256_cmpeq_epi32(bits, _mm256_setzero_si256());
                let e = _mm256_andnot_si256(zero, _mm256_sub_epi32(biased, _mm256_set1_epi32(128)));
                let factor = _mm256_slli_epi32::<23>(_mm256_sub_epi32(_mm256_set1_epi32(127), e));
                (
                    Avx2(_mm256_castsi256_ps(factor)),
                    Avx2(_mm256_cvtepi32_ps(e)),
                )
            }
        }
        #[inline(always)]
        fn select(m: Avx2Mask, a: Self, b: Self) -> Self {
            unsafe { Avx2(_mm256_blendv_ps(b.0, a.0, m.0)) }
        }
        #[inline(always)]
        fn bits(m: Avx2Mask) -> u32 {
            unsafe { _mm256_movemask_ps(m.0) as u32 }
        }
    }

    /// 16 lanes in an AVX-512 register; masks in a mask register.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512(__m512);

    #[derive(Clone, Copy)]
    pub(crate) struct Avx512Mask(__mmask16);

    /// `_mm512_xor_ps` needs AVX-512DQ; the sign flip through the integer unit needs only F.
    #[inline(always)]
    unsafe fn xor512(a: __m512, b: __m512) -> __m512 {
        unsafe {
            _mm512_castsi512_ps(_mm512_xor_si512(
                _mm512_castps_si512(a),
                _mm512_castps_si512(b),
            ))
        }
    }

    arithmetic!(
        Avx512,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_div_ps,
        xor512,
        _mm512_set1_ps
    );

    impl BitAnd for Avx512Mask {
        type Output = Avx512Mask;
        #[inline(always)]
        fn bitand(self, o: Avx512Mask) -> Avx512Mask {
            Avx512Mask(self.0 & o.0)
        }
    }
    impl BitOr for Avx512Mask {
        type Output = Avx512Mask;
        #[inline(always)]
        fn bitor(self, o: Avx512Mask) -> Avx512Mask {
            Avx512Mask(self.0 | o.0)
        }
    }
    impl Not for Avx512Mask {
        type Output = Avx512Mask;
        #[inline(always)]
        fn not(self) -> Avx512Mask {
            Avx512Mask(!self.0)
        }
    }

    impl Lanes for Avx512 {
        const L: usize = 16;
        type Mask = Avx512Mask;
        #[inline(always)]
        fn splat(x: f32) -> Self {
            // SAFETY (this and every method below): as the module's doc says.
            unsafe { Avx512(_mm512_set1_ps(x)) }
        }
        #[inline(always)]
        fn load(a: &[f32]) -> Self {
            assert!(a.len() >= 16);
            unsafe { Avx512(_mm512_loadu_ps(a.as_ptr())) }
        }
        #[inline(always)]
        fn store(self, a: &mut [f32]) {
            assert!(a.len() >= 16);
            unsafe { _mm512_storeu_ps(a.as_mut_ptr(), self.0) }
        }
        #[inline(always)]
        fn min(self, o: Self) -> Self {
            unsafe { Avx512(_mm512_min_ps(self.0, o.0)) }
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            unsafe { Avx512(_mm512_max_ps(self.0, o.0)) }
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            unsafe { Avx512(_mm512_sqrt_ps(self.0)) }
        }
        #[inline(always)]
        fn abs(self) -> Self {
            unsafe { Avx512(_mm512_abs_ps(self.0)) }
        }
        #[inline(always)]
        fn lt(self, o: Self) -> Avx512Mask {
            unsafe { Avx512Mask(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn le(self, o: Self) -> Avx512Mask {
            unsafe { Avx512Mask(_mm512_cmp_ps_mask::<_CMP_LE_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn gt(self, o: Self) -> Avx512Mask {
            unsafe { Avx512Mask(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn ge(self, o: Self) -> Avx512Mask {
            unsafe { Avx512Mask(_mm512_cmp_ps_mask::<_CMP_GE_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn eq(self, o: Self) -> Avx512Mask {
            unsafe { Avx512Mask(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(self.0, o.0)) }
        }
        #[inline(always)]
        fn prescale(self) -> (Self, Self) {
            unsafe {
                let bits = _mm512_castps_si512(self.0);
                let biased = _mm512_min_epi32(
                    _mm512_max_epi32(_mm512_srli_epi32::<23>(bits), _mm512_set1_epi32(1)),
                    _mm512_set1_epi32(254),
                );
                let zero = _mm512_cmpeq_epi32_mask(bits, _mm512_setzero_si512());
                let e = _mm512_mask_blend_epi32(
                    zero,
                    _mm512_sub_epi32(biased, _mm512_set1_epi32(128)),
                    _mm512_setzero_si512(),
                );
                let factor = _mm512_slli_epi32::<23>(_mm512_sub_epi32(_mm512_set1_epi32(127), e));
                (
                    Avx512(_mm512_castsi512_ps(factor)),
                    Avx512(_mm512_cvtepi32_ps(e)),
                )
            }
        }
        #[inline(always)]
        fn select(m: Avx512Mask, a: Self, b: Self) -> Self {
            unsafe { Avx512(_mm512_mask_blend_ps(m.0, b.0, a.0)) }
        }
        #[inline(always)]
        fn bits(m: Avx512Mask) -> u32 {
            u32::from(m.0)
        }
    }
}

/// 8 lanes as a plain array, for every target: the compiler vectorises what it can.
#[derive(Clone, Copy)]
pub(super) struct Portable([f32; 8]);

/// One flag per lane of `Portable`.
#[derive(Clone, Copy)]
pub(super) struct PortableMask([bool; 8]);

impl Portable {
    #[inline(always)]
    fn map(f: impl Fn(usize) -> f32) -> Portable {
        Portable(std::array::from_fn(f))
    }
    #[inline(always)]
    fn test(f: impl Fn(usize) -> bool) -> PortableMask {
        PortableMask(std::array::from_fn(f))
    }
}

impl Add for Portable {
    type Output = Portable;
    #[inline(always)]
    fn add(self, o: Portable) -> Portable {
        Portable::map(|l| self.0[l] + o.0[l])
    }
}
impl Sub for Portable {
    type Output = Portable;
    #[inline(always)]
    fn sub(self, o: Portable) -> Portable {
        Portable::map(|l| self.0[l] - o.0[l])
    }
}
impl Mul for Portable {
    type Output = Portable;
    #[inline(always)]
    fn mul(self, o: Portable) -> Portable {
        Portable::map(|l| self.0[l] * o.0[l])
    }
}
impl Div for Portable {
    type Output = Portable;
    #[inline(always)]
    fn div(self, o: Portable) -> Portable {
        Portable::map(|l| self.0[l] / o.0[l])
    }
}
impl Neg for Portable {
    type Output = Portable;
    #[inline(always)]
    fn neg(self) -> Portable {
        Portable::map(|l| -self.0[l])
    }
}
impl BitAnd for PortableMask {
    type Output = PortableMask;
    #[inline(always)]
    fn bitand(self, o: PortableMask) -> PortableMask {
        Portable::test(|l| self.0[l] & o.0[l])
    }
}
impl BitOr for PortableMask {
    type Output = PortableMask;
    #[inline(always)]
    fn bitor(self, o: PortableMask) -> PortableMask {
        Portable::test(|l| self.0[l] | o.0[l])
    }
}
impl Not for PortableMask {
    type Output = PortableMask;
    #[inline(always)]
    fn not(self) -> PortableMask {
        Portable::test(|l| !self.0[l])
    }
}

impl Lanes for Portable {
    const L: usize = 8;
    type Mask = PortableMask;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Portable([x; 8])
    }
    #[inline(always)]
    fn load(a: &[f32]) -> Self {
        Portable(a[..8].try_into().expect("8 lanes"))
    }
    #[inline(always)]
    fn store(self, a: &mut [f32]) {
        a[..8].copy_from_slice(&self.0);
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Portable::map(|l| {
            if self.0[l] < o.0[l] {
                self.0[l]
            } else {
                o.0[l]
            }
        })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Portable::map(|l| {
            if self.0[l] > o.0[l] {
                self.0[l]
            } else {
                o.0[l]
            }
        })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Portable::map(|l| self.0[l].sqrt())
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Portable::map(|l| self.0[l].abs())
    }
    #[inline(always)]
    fn lt(self, o: Self) -> PortableMask {
        Portable::test(|l| self.0[l] < o.0[l])
    }
    #[inline(always)]
    fn le(self, o: Self) -> PortableMask {
        Portable::test(|l| self.0[l] <= o.0[l])
    }
    #[inline(always)]
    fn gt(self, o: Self) -> PortableMask {
        Portable::test(|l| self.0[l] > o.0[l])
    }
    #[inline(always)]
    fn ge(self, o: Self) -> PortableMask {
        Portable::test(|l| self.0[l] >= o.0[l])
    }
    #[inline(always)]
    fn eq(self, o: Self) -> PortableMask {
        Portable::test(|l| self.0[l] == o.0[l])
    }
    #[inline(always)]
    fn prescale(self) -> (Self, Self) {
        let e: [i32; 8] = std::array::from_fn(|l| {
            let bits = self.0[l].to_bits();
            if bits == 0 {
                0
            } else {
                ((bits >> 23) as i32).clamp(1, 254) - 128
            }
        });
        (
            Portable::map(|l| f32::from_bits(((127 - e[l]) as u32) << 23)),
            Portable::map(|l| e[l] as f32),
        )
    }
    #[inline(always)]
    fn select(m: PortableMask, a: Self, b: Self) -> Self {
        Portable::map(|l| if m.0[l] { a.0[l] } else { b.0[l] })
    }
    #[inline(always)]
    fn bits(m: PortableMask) -> u32 {
        (0..8).fold(0, |bits, l| bits | (u32::from(m.0[l]) << l))
    }
}

#[cfg(test)]
mod tests {
    use super::Simd;

    #[test]
    fn simd_names_parse_and_unknown_ones_are_errors() {
        assert_eq!(Simd::parse("baseline"), Ok(Simd::Baseline));
        assert_eq!(Simd::parse(" AUTO "), Ok(Simd::detected()));
        assert_eq!(Simd::parse(""), Ok(Simd::detected()));
        let e = Simd::parse("sse9").unwrap_err();
        assert!(e.contains("PLANAR_HOLD_SIMD") && e.contains("sse9"), "{e}");
        for simd in Simd::ALL {
            assert_eq!(Simd::parse(simd.name()).is_ok(), simd.available(), "{simd}");
        }
        assert!(Simd::detected().available());
    }
}
