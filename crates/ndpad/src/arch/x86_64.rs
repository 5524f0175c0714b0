//! x86_64 intrinsics: code compiled for AVX2, non-temporal line movers (AVX and SSE2)
//! and 16-byte stores, and the store fence; the prefetch hints in [`hints`], the
//! blends, shuffles and permutes in [`shuffles`].

mod hints;
mod shuffles;

use super::{Avx, Avx2, Avx512, Cpu, Seam, LINE, PAGE};
use crate::tune::{PAGE_ALIAS_BYTES, READ_AHEAD, STREAM_PAGES, WIDE_LINES_MIN};
pub(crate) use hints::{has_prefetchw, is_amd, prefetch, prefetch_write, read_ahead};
pub(super) use shuffles::{blend, permute, permute2, permute64, shuffle, shuffle2, shuffle_avx2};
use std::arch::x86_64::{
    __m128i, __m256i, _mm256_and_ps, _mm256_andnot_ps, _mm256_blendv_epi8, _mm256_castps_si256,
    _mm256_loadu_ps, _mm256_loadu_si256, _mm256_or_ps, _mm256_permutevar8x32_epi32,
    _mm_loadu_si128, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpackhi_epi8,
    _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_unpacklo_epi8,
};
// Miri cannot run these (inline assembly); it checks ordinary stores in their place.
use std::arch::x86_64::{__m512i, _mm512_loadu_si512};
#[cfg(not(miri))]
use std::arch::x86_64::{_mm256_stream_si256, _mm512_stream_si512, _mm_sfence, _mm_stream_si128};

/// Runs `work` compiled for AVX2 when `cpu` has it, else as it is. `work` and what it
/// calls with `#[inline(always)]` are inlined into the AVX2 function, so the executor's
/// copies become 32-byte moves.
#[inline(always)]
pub(crate) fn with_avx2<R>(cpu: Cpu, work: impl FnOnce() -> R) -> R {
    #[target_feature(enable = "avx2")]
    fn avx2<R>(work: impl FnOnce() -> R) -> R {
        work()
    }
    if cpu.has_avx2() {
        // SAFETY: the CPU supports AVX2 (`Cpu` detected it), the only requirement of
        // calling a function compiled with that feature enabled.
        return unsafe { avx2(work) };
    }
    work()
}

/// Runs `work` compiled for AVX-512F, BW and VBMI (and AVX2), which `avx512` proves
/// the CPU has: `work` and what it calls with `#[inline(always)]` are inlined into
/// that function, the permutes of [`Avx512`] among them.
#[inline(always)]
pub(crate) fn with_avx512<R>(token: Avx512, work: impl FnOnce() -> R) -> R {
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vbmi")]
    fn avx512<R>(work: impl FnOnce() -> R) -> R {
        work()
    }
    let _ = token;
    // SAFETY: the token proves the CPU has these features (`Cpu` detected them), the
    // only requirement of calling a function compiled with them enabled.
    unsafe { avx512(work) }
}

/// Copies `src` into `dst` with non-temporal stores when they have the same length,
/// at least `min` bytes: the destination lines are written without first being read
/// into the cache. Returns `false`, having written nothing, on other lengths.
pub(crate) fn stream_copy(dst: &mut [u8], src: &[u8], min: usize, cpu: Cpu) -> bool {
    let n = dst.len();
    if src.len() != n || n < min {
        return false;
    }
    // Regular stores up to the first 64-byte boundary of `dst`, non-temporal ones for
    // whole 64-byte lines, regular stores for the rest.
    let head = dst.as_ptr().align_offset(64).min(n);
    let body = head + (n - head) / 64 * 64;
    dst[..head].copy_from_slice(&src[..head]);
    stream_copy_lines(&mut dst[head..body], &src[head..body], cpu);
    fence();
    dst[body..].copy_from_slice(&src[body..]);
    true
}

/// Whether a non-temporal copy to address `d` from `s` goes line by line: on AMD,
/// where the destination lies less than `PAGE_ALIAS_BYTES` after the source within
/// its page, or less than a line before it. A page at a time, each load would follow
/// a store to an address a multiple of 4 KiB away, and wait for it (a line before:
/// f32 [16,200,1024] padded to 1000 rows by wrap, 14.5 ms against 3.2).
fn line_by_line(cpu: Cpu, d: usize, s: usize) -> bool {
    let past = d.wrapping_sub(s) % PAGE;
    cpu.amd && !(PAGE_ALIAS_BYTES..=PAGE - LINE).contains(&past)
}

/// Copies `src` into `dst` with non-temporal stores when `dst` is whole 64-byte lines
/// from a 64-byte boundary, of `src`'s length; returns `false`, having written
/// nothing, otherwise. Not fenced: the caller fences after its part ([`fence`]).
pub(crate) fn stream_copy_lines(dst: &mut [u8], src: &[u8], cpu: Cpu) -> bool {
    let n = dst.len();
    if src.len() != n || !n.is_multiple_of(64) || dst.as_ptr().align_offset(64) != 0 {
        return false;
    }
    let (s, d, lines) = (src.as_ptr(), dst.as_mut_ptr(), n / 64);
    let aliased = line_by_line(cpu, d as usize, s as usize);
    match cpu.avx() {
        // SAFETY: `s` and `d` are valid for `lines` 64-byte lines (the slices' length),
        // do not overlap (one is borrowed mutably), and `d` is 64-byte aligned, as
        // both movers require; the `Avx` token proves AVX.
        Some(avx) if aliased => unsafe { stream_lines(s, d, lines, avx) },
        // SAFETY: as above, `stream_pages_avx512` requiring the same; the `Avx` token
        // proves AVX-512F, which it is compiled for.
        Some(avx) if avx.avx512 => unsafe { stream_pages_avx512(s, d, lines) },
        // SAFETY: as above; the token proves AVX.
        Some(_) => unsafe { stream_pages_avx(s, d, lines) },
        // SAFETY: as above; SSE2 is part of the x86_64 baseline.
        None => unsafe { stream_lines_sse2(s, d, lines) },
    }
    true
}

/// Writes `line` over each 64-byte line of `dst` with non-temporal stores when `dst` is
/// whole lines from a 64-byte boundary; returns `false`, having written nothing,
/// otherwise. The constant goes out from registers: no buffer is written and read
/// back. Not fenced: the caller fences after its part ([`fence`]).
pub(crate) fn stream_fill_lines(dst: &mut [u8], line: &[u8; 64], cpu: Cpu) -> bool {
    let n = dst.len();
    if !n.is_multiple_of(64) || dst.as_ptr().align_offset(64) != 0 {
        return false;
    }
    let (d, lines) = (dst.as_mut_ptr(), n / 64);
    match cpu.avx() {
        // SAFETY: `d` is valid for writes of `lines` 64-byte lines (the slice's length)
        // and 64-byte aligned; `avx` proves AVX.
        Some(_) => unsafe { stream_fill_avx(d, lines, line) },
        None => {
            // SAFETY: each load reads 16 of `line`'s 64 bytes; SSE2 is part of the
            // x86_64 baseline.
            let v: [__m128i; 4] = std::array::from_fn(|h| unsafe {
                _mm_loadu_si128(line.as_ptr().add(h * 16).cast())
            });
            for k in 0..lines {
                for (h, &x) in v.iter().enumerate() {
                    // SAFETY: `k < lines`, so the 16 bytes at `k * 64 + h * 16` lie
                    // inside `dst`, 16-byte aligned (`d` is 64-byte aligned) as the
                    // store requires.
                    unsafe { stream16(d.add(k * 64 + h * 16).cast(), x) };
                }
            }
        }
    }
    true
}

/// Writes each 64-byte line of `dst` as the `N`-byte elements of `src` each followed
/// by the constant `c` (`[s0, c, s1, c, ..]`), or with `constant_first` each
/// preceded by it (`[c, s0, c, s1, ..]`), with non-temporal stores: 32 bytes of
/// `src` a line, interleaved in registers (SSE2 unpacks), no buffer written and read
/// back. Returns `false`, having written nothing, where `dst` is not whole lines from
/// a 64-byte boundary, `src` is not half its length, or `N` is not 1, 2, 4, 8 or 16.
/// Not fenced: the caller fences after its part ([`fence`]).
pub(crate) fn stream_interleaved<const N: usize>(
    dst: &mut [u8],
    src: &[u8],
    c: &[u8; N],
    constant_first: bool,
) -> bool {
    let n = dst.len();
    if !n.is_multiple_of(64)
        || dst.as_ptr().align_offset(64) != 0
        || src.len() * 2 != n
        || ![1, 2, 4, 8, 16].contains(&N)
    {
        return false;
    }
    let fill: [u8; 16] = std::array::from_fn(|i| c[i % N]);
    let (d, s) = (dst.as_mut_ptr(), src.as_ptr());
    // SAFETY: SSE2 is part of the x86_64 baseline. The loads read 16 of `fill`'s 16
    // bytes and, for line `k < n / 64`, `src` bytes `32 * k .. 32 * k + 32` (inside
    // it: `src.len() == n / 2`); the stores write the 64 bytes of `dst`'s line `k`,
    // each 16-byte aligned (`d` is 64-byte aligned).
    unsafe {
        let cv = _mm_loadu_si128(fill.as_ptr().cast());
        for k in 0..n / 64 {
            for h in 0..2 {
                let x = _mm_loadu_si128(s.add(32 * k + 16 * h).cast());
                let (a, b) = if constant_first { (cv, x) } else { (x, cv) };
                let (lo, hi) = unpack::<N>(a, b);
                let dk = d.add(64 * k + 32 * h).cast::<__m128i>();
                stream16(dk, lo);
                stream16(dk.add(1), hi);
            }
        }
    }
    true
}

/// The low halves of `a` and `b` interleaved in elements of `W` bytes, and their high
/// halves (SSE2's `PUNPCKL*` and `PUNPCKH*`); `(a, b)` for other widths.
#[inline(always)]
fn unpack<const W: usize>(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 is part of the x86_64 baseline; the interleaves touch no memory.
    unsafe {
        match W {
            1 => (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
            2 => (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)),
            4 => (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)),
            8 => (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)),
            _ => (a, b),
        }
    }
}

/// Transposes a square of `n = 16 / W` rows of 16 bytes, elements of `W` bytes (1, 2,
/// 4 or 8): row `i` read from `src[i * apart..]`, column `j` written as 16 bytes to
/// `dst[j * step..]`. `log2(n)` rounds of SSE2 interleaves, each pairing row `i` with
/// row `i + n / 2` into rows `2i` and `2i + 1`: each round moves one bit of the row
/// index into the element index, and after the last, row `j` holds column `j`: a
/// transpose's gather (`exec/gather.rs`) moves 16 bytes a load and a store, not an
/// element. `false`, having written nothing, for other widths, or where `src` or
/// `dst` is too short for its rows.
#[inline(always)]
pub(crate) fn transpose_square<const W: usize>(
    src: &[u8],
    apart: usize,
    dst: &mut [u8],
    step: usize,
) -> bool {
    if !matches!(W, 1 | 2 | 4 | 8) {
        return false;
    }
    let n = 16 / W;
    let fits = |len: usize, gap: usize| {
        (n - 1)
            .checked_mul(gap)
            .and_then(|e| e.checked_add(16))
            .is_some_and(|e| e <= len)
    };
    if !fits(src.len(), apart) || !fits(dst.len(), step) {
        return false;
    }
    let mut rows = [bytemuck::cast::<[u8; 16], __m128i>([0; 16]); 16];
    for (i, r) in rows.iter_mut().take(n).enumerate() {
        if let Some(b) = src[i * apart..].first_chunk::<16>() {
            *r = bytemuck::cast(*b);
        }
    }
    let mut width = W;
    while width < 16 {
        let mut next = rows;
        for i in 0..n / 2 {
            (next[2 * i], next[2 * i + 1]) = unpack::<W>(rows[i], rows[i + n / 2]);
        }
        rows = next;
        width *= 2;
    }
    for (j, r) in rows.iter().take(n).enumerate() {
        if let Some(d) = dst[j * step..].first_chunk_mut::<16>() {
            *d = bytemuck::cast(*r);
        }
    }
    true
}

/// # Safety
/// `d` must be valid for writes of `lines * 64` bytes and 64-byte aligned; the CPU
/// must have AVX.
#[target_feature(enable = "avx")]
unsafe fn stream_fill_avx(d: *mut u8, lines: usize, line: &[u8; 64]) {
    // SAFETY: the loads read `line`'s 64 bytes; every store is 32 bytes inside the
    // `lines` lines from `d`, 32-byte aligned, as the caller vouches.
    unsafe {
        let a = _mm256_loadu_si256(line.as_ptr().cast());
        let b = _mm256_loadu_si256(line.as_ptr().add(32).cast());
        for k in 0..lines {
            let dk = d.add(k * 64).cast::<__m256i>();
            stream32(dk, a);
            stream32(dk.add(1), b);
        }
    }
}

/// Copies `lines` 64-byte lines from `s` to `d` with non-temporal stores: 64-byte
/// ones where the CPU has AVX-512F and there are [`WIDE_LINES_MIN`] lines or more,
/// else 32-byte ones (inlined into the AVX2 loops; the AVX-512F mover is a call).
///
/// # Safety
/// `s` must be valid for reads and `d` for writes of `lines * 64` bytes, not
/// overlapping; `d` must be 64-byte aligned.
#[inline(always)]
pub(crate) unsafe fn stream_lines(s: *const u8, d: *mut u8, lines: usize, avx: Avx) {
    // SAFETY: as the caller vouches.
    unsafe { stream_lines_by::<0>(s, d, lines, avx) }
}

/// [`stream_lines`], each line first asking for the source `AHEAD` bytes beyond it
/// where `AHEAD > 0`: the choice of mover of both line movers.
///
/// # Safety
/// As [`stream_lines`].
#[inline(always)]
unsafe fn stream_lines_by<const AHEAD: usize>(s: *const u8, d: *mut u8, lines: usize, avx: Avx) {
    // SAFETY: `avx` proves the CPU has AVX, and AVX-512F where it says so; the rest
    // as the caller vouches.
    unsafe {
        match avx.avx512 && lines >= WIDE_LINES_MIN {
            true => stream_lines_avx512::<AHEAD>(s, d, lines),
            false => stream_lines_avx::<AHEAD>(s, d, lines),
        }
    }
}

/// # Safety
/// As [`stream_lines`], on a CPU with AVX. With `AHEAD > 0`, each line first asks
/// for the source `AHEAD` bytes beyond it ([`read_ahead`]: a hint, any address).
#[target_feature(enable = "avx")]
#[inline]
unsafe fn stream_lines_avx<const AHEAD: usize>(s: *const u8, d: *mut u8, lines: usize) {
    each_line::<AHEAD>(s, lines, |k| {
        // SAFETY: k < lines, so the 64 bytes at k * 64 lie inside both ranges; `d +
        // k * 64` and `d + k * 64 + 32` are 32-byte aligned as `_mm256_stream_si256`
        // requires; `_mm256_loadu_si256` has no alignment requirement.
        unsafe {
            let (sk, dk) = (
                s.add(k * 64).cast::<__m256i>(),
                d.add(k * 64).cast::<__m256i>(),
            );
            let (a, b) = (_mm256_loadu_si256(sk), _mm256_loadu_si256(sk.add(1)));
            stream32(dk, a);
            stream32(dk.add(1), b);
        }
    });
}

/// Calls `line(k)` for each of `lines` lines from `s`, each first asking for the
/// source `AHEAD` bytes beyond it where `AHEAD > 0` ([`read_ahead`]: a hint, any
/// address): the loop of both line movers.
#[inline(always)]
fn each_line<const AHEAD: usize>(s: *const u8, lines: usize, mut line: impl FnMut(usize)) {
    for k in 0..lines {
        if AHEAD > 0 {
            read_ahead(s.wrapping_add(k * 64 + AHEAD));
        }
        line(k);
    }
}

/// [`stream_lines_avx`] a line a load and a store, on a CPU with AVX-512F: the u8
/// image [2160,3840,3] padded by 16 (long rows streamed) ran 1.48 -> 1.62 of a copy
/// cold on the Intel Xeon VM (model 167; docs/performance.md).
///
/// # Safety
/// As [`stream_lines`], on a CPU with AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn stream_lines_avx512<const AHEAD: usize>(s: *const u8, d: *mut u8, lines: usize) {
    each_line::<AHEAD>(s, lines, |k| {
        // SAFETY: k < lines, so the 64 bytes at k * 64 lie inside both ranges; `d +
        // k * 64` is 64-byte aligned as `_mm512_stream_si512` requires;
        // `_mm512_loadu_si512` has no alignment requirement.
        unsafe {
            let v = _mm512_loadu_si512(s.add(k * 64).cast::<__m512i>());
            let dk = d.add(k * 64).cast::<__m512i>();
            #[cfg(not(miri))]
            _mm512_stream_si512(dk, v);
            #[cfg(miri)]
            dk.write(v);
        }
    });
}

/// [`stream_lines`] reading the source [`READ_AHEAD`] bytes ahead, a line at a time,
/// into the second-level cache ([`read_ahead`]): long rows' copies, where the
/// hardware prefetcher alone keeps too few lines in flight.
///
/// # Safety
/// As [`stream_lines`].
#[inline(always)]
pub(crate) unsafe fn stream_lines_ahead(s: *const u8, d: *mut u8, lines: usize, avx: Avx) {
    // SAFETY: as the caller vouches.
    unsafe { stream_lines_by::<READ_AHEAD>(s, d, lines, avx) }
}

/// [`stream_lines`] for long copies: blocks of [`STREAM_PAGES`] 4 KiB pages, a line
/// of each page in turn (as glibc's large `memcpy` does), the rest line by line, each
/// line by `line` (the AVX or the AVX-512F mover). Several streams at once keep more
/// reads in flight (the hardware prefetcher follows each page; reading 16 KiB ahead
/// into the second-level cache did as well in a C loop): a 256 MB copy on the Intel
/// Xeon VM moved 21.6 GB/s against 18.6 line by line.
///
/// # Safety
/// As [`stream_lines`], `line` a mover of that contract.
#[inline(always)]
unsafe fn stream_pages(
    s: *const u8,
    d: *mut u8,
    lines: usize,
    line: impl Fn(*const u8, *mut u8, usize),
) {
    let block = PAGE * STREAM_PAGES;
    let blocks = lines * 64 / block;
    for b in 0..blocks {
        for i in (0..PAGE).step_by(64) {
            for p in 0..STREAM_PAGES {
                let at = b * block + p * PAGE + i;
                // `at + 64 <= blocks * block <= lines * 64`: the line lies inside both
                // ranges; `d + at` is 64-byte aligned (`d` is, `at` a multiple of 64).
                line(s.wrapping_add(at), d.wrapping_add(at), 1);
            }
        }
    }
    let done = blocks * block;
    // The lines after the blocks, inside both ranges; `d + done` aligned.
    line(
        s.wrapping_add(done),
        d.wrapping_add(done),
        lines - done / 64,
    );
}

/// [`stream_pages`] with 32-byte stores.
///
/// # Safety
/// As [`stream_lines`], on a CPU with AVX.
#[target_feature(enable = "avx")]
unsafe fn stream_pages_avx(s: *const u8, d: *mut u8, lines: usize) {
    // SAFETY: each line `stream_pages` moves lies inside both ranges, its
    // destination 64-byte aligned; AVX as this function is compiled for.
    unsafe { stream_pages(s, d, lines, |s, d, n| stream_lines_avx::<0>(s, d, n)) }
}

/// [`stream_pages`] with 64-byte stores.
///
/// # Safety
/// As [`stream_lines`], on a CPU with AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn stream_pages_avx512(s: *const u8, d: *mut u8, lines: usize) {
    // SAFETY: as `stream_pages_avx`; AVX-512F as this function is compiled for.
    unsafe { stream_pages(s, d, lines, |s, d, n| stream_lines_avx512::<0>(s, d, n)) }
}

/// Byte `i` is 0 below 64 and 0xff from 64 on: the 64 bytes from `64 - k` select
/// the second of two lines from byte `k` on ([`stream_joined`]).
static JOIN_MASK: [u8; 128] = {
    let mut m = [0u8; 128];
    let mut i = 64;
    while i < 128 {
        m[i] = 0xff;
        i += 1;
    }
    m
};

/// Writes the 64-byte line `d` with non-temporal stores: its first `k` bytes from
/// `a`'s, the rest from `b`'s (64 bytes read at each), joined in registers.
///
/// # Safety
/// `a` and `b` must be valid for reads and `d` for writes of 64 bytes, not
/// overlapping; `d` must be 64-byte aligned; `k <= 64`.
#[inline(always)]
pub(crate) unsafe fn stream_joined(a: *const u8, b: *const u8, k: usize, d: *mut u8, avx: Avx) {
    let _ = avx;
    // SAFETY: `avx` proves the CPU has AVX; the rest as the caller vouches.
    unsafe { stream_joined_avx(a, b, k, d) }
}

/// # Safety
/// As [`stream_joined`], on a CPU with AVX.
#[target_feature(enable = "avx")]
#[inline]
unsafe fn stream_joined_avx(a: *const u8, b: *const u8, k: usize, d: *mut u8) {
    for h in 0..2 {
        // SAFETY: `h * 32 + 32 <= 64`, inside the 64 bytes of `a`, `b` and `d`;
        // `64 - k + h * 32 + 32 <= 128` (`k <= 64`), inside `JOIN_MASK`; `d + h * 32`
        // is 32-byte aligned as the store requires. The bitwise operations on the
        // float type raise nothing whatever the bits.
        unsafe {
            let m = _mm256_loadu_ps(JOIN_MASK.as_ptr().add(64 - k + h * 32).cast());
            let x = _mm256_loadu_ps(a.add(h * 32).cast());
            let y = _mm256_loadu_ps(b.add(h * 32).cast());
            let v = _mm256_or_ps(_mm256_andnot_ps(m, x), _mm256_and_ps(m, y));
            stream32(d.add(h * 32).cast(), _mm256_castps_si256(v));
        }
    }
}

/// For each seam start `e` (in 4-byte words from a half-line's start, `-7..=7`, at
/// index `e + 7`): the `VPERMD` control moving seam word `i - e` to word `i`, and the
/// mask of the words that take it (all bytes set).
static SEAM_WORDS: [[[i32; 8]; 2]; 15] = {
    let mut t = [[[0i32; 8]; 2]; 15];
    let mut k = 0;
    while k < 15 {
        let e = k as i32 - 7;
        let mut i = 0;
        while i < 8 {
            t[k][0][i] = (i as i32 - e) & 7;
            t[k][1][i] = if i as i32 - e >= 0 && i as i32 - e < 8 {
                -1
            } else {
                0
            };
            i += 1;
        }
        k += 1;
    }
    t
};

/// The 32 bytes of a half-line holding (part of) a seam: `a`'s 32 bytes, except the
/// 4-byte words from `e` to `e + 7` (those of them within the half-line), which are
/// `seam`'s words from its first: one `VPERMD` and one `VPBLENDVB`.
///
/// # Safety
/// `a` must be valid for reads of 32 bytes; `-7 <= e <= 7`.
#[inline(always)]
pub(crate) unsafe fn seamed(a: *const u8, seam: Seam, e: isize, avx2: Avx2) -> [u8; 32] {
    let _ = avx2;
    // SAFETY: `avx2` proves the CPU has AVX2; the rest as the caller vouches.
    unsafe { std::mem::transmute::<__m256i, [u8; 32]>(seamed_avx2(a, seam, e)) }
}

/// Writes [`seamed`]'s 32 bytes at `d` with a non-temporal store.
///
/// # Safety
/// As [`seamed`]; `d` must be valid for writes of 32 bytes, 32-byte aligned.
#[inline(always)]
pub(crate) unsafe fn stream_seamed(a: *const u8, seam: Seam, e: isize, d: *mut u8, avx2: Avx2) {
    let _ = avx2;
    // SAFETY: `avx2` proves the CPU has AVX2; the rest as the caller vouches.
    unsafe { stream32(d.cast(), seamed_avx2(a, seam, e)) }
}

/// Writes the 32 bytes at `s` to `d` with a non-temporal store.
///
/// # Safety
/// `s` must be valid for reads and `d` for writes of 32 bytes, `d` 32-byte aligned.
#[inline(always)]
pub(crate) unsafe fn stream_half(s: *const u8, d: *mut u8, avx: Avx) {
    let _ = avx;
    // SAFETY: `avx` proves the CPU has AVX; the rest as the caller vouches.
    unsafe { stream_half_avx(s, d) }
}

/// # Safety
/// As [`stream_half`], on a CPU with AVX.
#[target_feature(enable = "avx")]
#[inline]
unsafe fn stream_half_avx(s: *const u8, d: *mut u8) {
    // SAFETY: as the caller vouches.
    unsafe { stream32(d.cast(), _mm256_loadu_si256(s.cast())) }
}

/// # Safety
/// As [`seamed`], on a CPU with AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn seamed_avx2(a: *const u8, seam: Seam, e: isize) -> __m256i {
    let [control, mask] = &SEAM_WORDS[(e + Seam::REACH) as usize];
    // SAFETY: each load reads 32 bytes: of `seam`, of the table's row, of `a` (as the
    // caller vouches); no alignment is required.
    unsafe {
        let s = _mm256_loadu_si256(seam.0.as_ptr().cast());
        let moved = _mm256_permutevar8x32_epi32(s, _mm256_loadu_si256(control.as_ptr().cast()));
        let x = _mm256_loadu_si256(a.cast());
        _mm256_blendv_epi8(x, moved, _mm256_loadu_si256(mask.as_ptr().cast()))
    }
}

/// [`stream_lines`] with 16-byte stores, for CPUs without AVX.
///
/// # Safety
/// As [`stream_lines`], without the need for AVX.
unsafe fn stream_lines_sse2(s: *const u8, d: *mut u8, lines: usize) {
    for k in 0..lines {
        // SAFETY: k < lines, so the 64 bytes at k * 64 lie inside both ranges; every
        // `d + k * 64 + 16 * i` is 16-byte aligned as `_mm_stream_si128` requires;
        // SSE2 is part of the x86_64 baseline.
        unsafe {
            let (sk, dk) = (
                s.add(k * 64).cast::<__m128i>(),
                d.add(k * 64).cast::<__m128i>(),
            );
            let (a, b) = (_mm_loadu_si128(sk), _mm_loadu_si128(sk.add(1)));
            let (c, e) = (_mm_loadu_si128(sk.add(2)), _mm_loadu_si128(sk.add(3)));
            stream16(dk, a);
            stream16(dk.add(1), b);
            stream16(dk.add(2), c);
            stream16(dk.add(3), e);
        }
    }
}

/// Writes the row `v` into `d` (of its length) around the cache: 16-byte
/// non-temporal stores where `W` is a multiple of 16 and `d` 16-byte aligned,
/// ordinary ones otherwise. The caller fences after its part ([`fence`]).
#[inline(always)]
pub(crate) fn store_around_cache<const W: usize>(d: &mut [u8], v: &[u8; W]) {
    if W.is_multiple_of(16) && d.len() == W && (d.as_ptr() as usize).is_multiple_of(16) {
        for k in (0..W).step_by(16) {
            // SAFETY: `k + 16 <= W`, the length of both `v` and `d`; `d + k` is 16-byte
            // aligned (`d` is, `k` a multiple of 16) as the store requires; SSE2 is part
            // of the x86_64 baseline.
            unsafe {
                let x = _mm_loadu_si128(v.as_ptr().add(k).cast::<__m128i>());
                stream16(d.as_mut_ptr().add(k).cast::<__m128i>(), x);
            }
        }
        return;
    }
    d.copy_from_slice(v);
}

/// Orders earlier non-temporal stores before later stores, so that whoever is handed
/// the output (another thread, after rayon's join) sees them.
#[inline(always)]
pub(crate) fn fence() {
    // SAFETY: SSE is part of the x86_64 baseline.
    #[cfg(not(miri))]
    unsafe {
        _mm_sfence()
    };
}

/// A 16-byte non-temporal store of `v` at `d`; under Miri, which cannot run the
/// instruction, an ordinary aligned store of the same bytes (so Miri still checks
/// the address).
///
/// # Safety
/// `d` must be valid for a write of 16 bytes and 16-byte aligned.
#[inline(always)]
unsafe fn stream16(d: *mut __m128i, v: __m128i) {
    // SAFETY: as the caller vouches; SSE2 is part of the x86_64 baseline.
    unsafe {
        #[cfg(not(miri))]
        _mm_stream_si128(d, v);
        #[cfg(miri)]
        d.write(v);
    }
}

/// [`stream16`] for 32 bytes, 32-byte aligned, on a CPU with AVX.
///
/// # Safety
/// `d` must be valid for a write of 32 bytes and 32-byte aligned; the CPU must have
/// AVX.
#[target_feature(enable = "avx")]
#[inline]
unsafe fn stream32(d: *mut __m256i, v: __m256i) {
    // SAFETY: as the caller vouches.
    unsafe {
        #[cfg(not(miri))]
        _mm256_stream_si256(d, v);
        #[cfg(miri)]
        d.write(v);
    }
}

#[cfg(test)]
mod tests;
