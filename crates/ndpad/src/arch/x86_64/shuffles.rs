//! The `PSHUFB` blends and shuffles and the `VPERMD` permutes that build 16 or 32
//! output bytes from windows of the input and a constant (the rows' blended ends,
//! the tiny planes' tables).

use crate::arch::{Avx2, Avx512, Blend16, Blend32, Permute64, Permute8, Shuffle32, Ssse3};
use std::arch::x86_64::{
    __m128i, __m256i, _mm256_blendv_ps, _mm256_castps_si256, _mm256_castsi256_ps,
    _mm256_loadu2_m128i, _mm256_loadu_si256, _mm256_or_si256, _mm256_permutevar8x32_epi32,
    _mm256_shuffle_epi8, _mm256_slli_epi32, _mm256_storeu_si256, _mm_loadu_si128, _mm_or_si128,
    _mm_shuffle_epi8, _mm_storeu_si128,
};
use std::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_mask2_permutex2var_epi32, _mm512_mask2_permutex2var_epi8,
    _mm512_storeu_si512,
};

/// [`Ssse3::blend`]: two `PSHUFB`s and two `POR`s.
#[inline(always)]
pub(in crate::arch) fn blend(ssse3: Ssse3, a: &[u8; 16], b: &[u8; 16], s: &Blend16) -> [u8; 16] {
    #[target_feature(enable = "ssse3")]
    fn pshufb(a: &[u8; 16], b: &[u8; 16], s: &Blend16) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: each load reads the 16 bytes of a 16-byte array, the store writes
        // the 16 bytes of `out`; these intrinsics have no alignment requirement, and
        // SSSE3 is enabled for this function.
        unsafe {
            let load = |x: &[u8; 16]| _mm_loadu_si128(x.as_ptr().cast::<__m128i>());
            let from_a = _mm_shuffle_epi8(load(a), load(&s.a));
            let from_b = _mm_shuffle_epi8(load(b), load(&s.b));
            let r = _mm_or_si128(_mm_or_si128(from_a, from_b), load(&s.fill));
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), r);
        }
        out
    }
    let _ = ssse3;
    // SAFETY: `ssse3` proves the CPU has SSSE3, the only requirement of calling a
    // function compiled with that feature.
    unsafe { pshufb(a, b, s) }
}

/// [`Avx2::shuffle2`]: each pair of windows loaded into the two halves of one
/// register, two `VPSHUFB`s (which pick within each half) and two `VPOR`s.
#[inline(always)]
pub(in crate::arch) fn shuffle2(
    avx2: Avx2,
    a: [&[u8; 16]; 2],
    b: [&[u8; 16]; 2],
    s: &Blend32,
) -> [u8; 32] {
    #[target_feature(enable = "avx2")]
    fn vpshufb(a: [&[u8; 16]; 2], b: [&[u8; 16]; 2], s: &Blend32) -> [u8; 32] {
        let mut out = [0u8; 32];
        // SAFETY: each load reads the 16 bytes of a 16-byte array or the 32 of a
        // 32-byte one, the store writes the 32 bytes of `out`; these intrinsics have
        // no alignment requirement, and AVX2 is enabled for this function.
        unsafe {
            let pair = |w: [&[u8; 16]; 2]| {
                _mm256_loadu2_m128i(w[1].as_ptr().cast::<__m128i>(), w[0].as_ptr().cast())
            };
            let load = |x: &[u8; 32]| _mm256_loadu_si256(x.as_ptr().cast::<__m256i>());
            let from_a = _mm256_shuffle_epi8(pair(a), load(&s.a));
            let from_b = _mm256_shuffle_epi8(pair(b), load(&s.b));
            let r = _mm256_or_si256(_mm256_or_si256(from_a, from_b), load(&s.fill));
            _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), r);
        }
        out
    }
    let _ = avx2;
    // SAFETY: `avx2` proves the CPU has AVX2, the only requirement of calling a
    // function compiled with that feature.
    unsafe { vpshufb(a, b, s) }
}

/// [`Avx2::shuffle`]: the pair of windows loaded into the two halves of one
/// register, one `VPSHUFB` (which picks within each half) and one `VPOR`.
#[inline(always)]
pub(in crate::arch) fn shuffle_avx2(avx2: Avx2, a: [&[u8; 16]; 2], s: &Shuffle32) -> [u8; 32] {
    #[target_feature(enable = "avx2")]
    fn vpshufb(a: [&[u8; 16]; 2], s: &Shuffle32) -> [u8; 32] {
        let mut out = [0u8; 32];
        // SAFETY: each load reads the 16 bytes of a 16-byte array or the 32 of a
        // 32-byte one, the store writes the 32 bytes of `out`; these intrinsics have
        // no alignment requirement, and AVX2 is enabled for this function.
        unsafe {
            let pair = _mm256_loadu2_m128i(a[1].as_ptr().cast::<__m128i>(), a[0].as_ptr().cast());
            let load = |x: &[u8; 32]| _mm256_loadu_si256(x.as_ptr().cast::<__m256i>());
            let r = _mm256_or_si256(_mm256_shuffle_epi8(pair, load(&s.control)), load(&s.fill));
            _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), r);
        }
        out
    }
    let _ = avx2;
    // SAFETY: `avx2` proves the CPU has AVX2, the only requirement of calling a
    // function compiled with that feature.
    unsafe { vpshufb(a, s) }
}

/// [`Avx2::permute`]: one `VPERMD`, one shift that moves the `FILL` bit to each
/// word's sign bit, and one `VBLENDVPS` (which selects by it).
#[inline(always)]
pub(in crate::arch) fn permute(
    avx2: Avx2,
    a: &[u8; 32],
    p: &Permute8,
    fill: &[u8; 32],
) -> [u8; 32] {
    #[target_feature(enable = "avx2")]
    fn vpermd(a: &[u8; 32], p: &Permute8, fill: &[u8; 32]) -> [u8; 32] {
        const _: () = assert!(Permute8::FILL == 1 << 4);
        let mut out = [0u8; 32];
        // SAFETY: each load reads the 32 bytes of a 32-byte array (`p`'s words), the
        // store writes the 32 bytes of `out`; these intrinsics have no alignment
        // requirement, and AVX2 is enabled for this function.
        unsafe {
            let load = |x: *const u8| _mm256_loadu_si256(x.cast::<__m256i>());
            let words = load(p.0.as_ptr().cast::<u8>());
            let from_a = _mm256_permutevar8x32_epi32(load(a.as_ptr()), words);
            let ps = _mm256_castsi256_ps;
            let f = _mm256_slli_epi32::<27>(words);
            let r = _mm256_blendv_ps(ps(from_a), ps(load(fill.as_ptr())), ps(f));
            _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), _mm256_castps_si256(r));
        }
        out
    }
    let _ = avx2;
    // SAFETY: `avx2` proves the CPU has AVX2, the only requirement of calling a
    // function compiled with that feature.
    unsafe { vpermd(a, p, fill) }
}

/// [`Avx2::permute2`]: two `VPERMD`s (which read a word's low 3 bits), two shifts
/// that move the `FROM_B` and `FILL` bits to each word's sign bit, and two
/// `VBLENDVPS`s (which select by it).
#[inline(always)]
pub(in crate::arch) fn permute2(
    avx2: Avx2,
    a: &[u8; 32],
    b: &[u8; 32],
    p: &Permute8,
    fill: &[u8; 32],
) -> [u8; 32] {
    #[target_feature(enable = "avx2")]
    fn vpermd(a: &[u8; 32], b: &[u8; 32], p: &Permute8, fill: &[u8; 32]) -> [u8; 32] {
        const _: () = assert!(Permute8::FROM_B == 1 << 3 && Permute8::FILL == 1 << 4);
        let mut out = [0u8; 32];
        // SAFETY: each load reads the 32 bytes of a 32-byte array (`p`'s words), the
        // store writes the 32 bytes of `out`; these intrinsics have no alignment
        // requirement, and AVX2 is enabled for this function.
        unsafe {
            let load = |x: *const u8| _mm256_loadu_si256(x.cast::<__m256i>());
            let words = load(p.0.as_ptr().cast::<u8>());
            let from_a = _mm256_permutevar8x32_epi32(load(a.as_ptr()), words);
            let from_b = _mm256_permutevar8x32_epi32(load(b.as_ptr()), words);
            let ps = _mm256_castsi256_ps;
            let r = _mm256_blendv_ps(ps(from_a), ps(from_b), ps(_mm256_slli_epi32::<28>(words)));
            let f = _mm256_slli_epi32::<27>(words);
            let r = _mm256_blendv_ps(r, ps(load(fill.as_ptr())), ps(f));
            _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), _mm256_castps_si256(r));
        }
        out
    }
    let _ = avx2;
    // SAFETY: `avx2` proves the CPU has AVX2, the only requirement of calling a
    // function compiled with that feature.
    unsafe { vpermd(a, b, p, fill) }
}

/// [`Ssse3::shuffle`]: one `PSHUFB` and one `POR`.
#[inline(always)]
pub(in crate::arch) fn shuffle(
    ssse3: Ssse3,
    w: &[u8; 16],
    control: &[u8; 16],
    fill: &[u8; 16],
) -> [u8; 16] {
    #[target_feature(enable = "ssse3")]
    fn pshufb(w: &[u8; 16], control: &[u8; 16], fill: &[u8; 16]) -> [u8; 16] {
        let mut out = [0u8; 16];
        // SAFETY: each load reads the 16 bytes of a 16-byte array, the store writes
        // the 16 bytes of `out`; these intrinsics have no alignment requirement, and
        // SSSE3 is enabled for this function.
        unsafe {
            let load = |x: &[u8; 16]| _mm_loadu_si128(x.as_ptr().cast::<__m128i>());
            let r = _mm_or_si128(_mm_shuffle_epi8(load(w), load(control)), load(fill));
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), r);
        }
        out
    }
    let _ = ssse3;
    // SAFETY: `ssse3` proves the CPU has SSSE3, the only requirement of calling a
    // function compiled with that feature.
    unsafe { pshufb(w, control, fill) }
}

/// [`Avx512::permute`]: one `VPERMI2B` (lanes of a byte) or `VPERMI2D` (of 4 bytes),
/// which keeps the index's lanes where `take` is clear.
#[inline(always)]
pub(in crate::arch) fn permute64<const L: usize>(
    avx512: Avx512,
    w: [&[u8; 64]; 2],
    p: &Permute64,
    take: u64,
) -> [u8; 64] {
    const { assert!(L == 1 || L == 4) };
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn vpermi2<const L: usize>([a, b]: [&[u8; 64]; 2], p: &Permute64, take: u64) -> [u8; 64] {
        let mut out = [0u8; 64];
        // SAFETY: each load reads the 64 bytes of a 64-byte array, the store writes
        // the 64 bytes of `out`; these intrinsics have no alignment requirement, and
        // the features they need are enabled for this function.
        unsafe {
            let load = |x: &[u8; 64]| _mm512_loadu_si512(x.as_ptr().cast::<__m512i>());
            let (a, index, b) = (load(a), load(&p.0), load(b));
            let r = match L {
                1 => _mm512_mask2_permutex2var_epi8(a, index, take, b),
                _ => _mm512_mask2_permutex2var_epi32(a, index, take as u16, b),
            };
            _mm512_storeu_si512(out.as_mut_ptr().cast::<__m512i>(), r);
        }
        out
    }
    // Miri has no AVX-512 permutes: it runs the portable one in their place.
    if cfg!(miri) {
        return crate::arch::generic::permute64::<L>(avx512, w, p, take);
    }
    // SAFETY: `avx512` proves the CPU has AVX-512F, BW and VBMI, the only requirement
    // of calling a function compiled with those features.
    unsafe { vpermi2::<L>(w, p, take) }
}
