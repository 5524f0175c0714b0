//! Portable code: the 64-byte moves (which the compiler turns into vector moves of the
//! width it compiles for), and the fallbacks of the x86_64 functions on other targets.

#[cfg(not(target_arch = "x86_64"))]
use super::Cpu;
#[cfg(all(target_arch = "x86_64", test))]
use super::Seam;
use super::PAGE;
use super::{Blend16, Ssse3};
use crate::tune::COPY_ALIAS_BYTES;

/// Copies `src` into `dst` with [`copy_run`]'s inlined moves; `false`, having written
/// nothing, where their lengths differ.
#[inline(always)]
pub(crate) fn copy_moves(dst: &mut [u8], src: &[u8]) -> bool {
    if dst.len() != src.len() {
        return false;
    }
    // SAFETY: `src` is valid for reads and `dst` for writes of `dst.len()` bytes (their
    // common length); they do not overlap (`dst` is borrowed mutably).
    unsafe { copy_run(src.as_ptr(), dst.as_mut_ptr(), dst.len()) };
    true
}

/// Copies `src` into `dst` through the cache: by `memcpy`, but where the destination
/// lies 1 to [`COPY_ALIAS_BYTES`] - 1 bytes past the source within a 4 KiB page, by
/// [`copy_run`]'s inlined moves (glibc's `rep movsb` ran ten times slower there: each
/// load waited on a store 4 KiB away). Panics where the lengths differ, as
/// `copy_from_slice`.
#[inline(always)]
pub(crate) fn copy_cached(dst: &mut [u8], src: &[u8]) {
    if by_moves(dst, src) && copy_moves(dst, src) {
        return;
    }
    dst.copy_from_slice(src);
}

/// Whether [`copy_cached`] copies `src` into `dst` by the moves.
#[inline(always)]
fn by_moves(dst: &[u8], src: &[u8]) -> bool {
    just_past(dst.as_ptr() as usize, src.as_ptr() as usize)
}

/// Whether address `d` lies 1 to [`COPY_ALIAS_BYTES`] - 1 bytes past address `s`
/// within a 4 KiB page.
#[inline(always)]
fn just_past(d: usize, s: usize) -> bool {
    (1..COPY_ALIAS_BYTES).contains(&(d.wrapping_sub(s) % PAGE))
}

/// The `N` 8-byte words (native order) at `at`, `at + stride`, .. of `src`, or `None`
/// where the last would reach past `src`: one bounds check for them all (the narrow
/// rows' gather, where a check per row was most of the time).
#[inline(always)]
pub(crate) fn words_at<const N: usize>(src: &[u8], at: usize, stride: usize) -> Option<[u64; N]> {
    let end = stride
        .checked_mul(N.checked_sub(1)?)?
        .checked_add(at)?
        .checked_add(8)?;
    if end > src.len() {
        return None;
    }
    let mut w = [0u64; N];
    for (j, x) in w.iter_mut().enumerate() {
        // SAFETY: `at + j * stride + 8 <= at + (N - 1) * stride + 8 = end <= src.len()`
        // (computed above without overflow), so the 8 bytes read lie inside `src`;
        // `read_unaligned` takes any address.
        *x = unsafe {
            src.as_ptr()
                .add(at + j * stride)
                .cast::<u64>()
                .read_unaligned()
        };
    }
    Some(w)
}

/// Copies `n` bytes from `s` to `d` as 64-byte moves, the last one overlapping its
/// predecessor (`memcpy` below 64 bytes).
///
/// # Safety
/// `s` must be valid for reads and `d` for writes of `n` bytes; they must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_run(s: *const u8, d: *mut u8, n: usize) {
    // SAFETY: every move reads and writes 64 bytes at an offset `k` with
    // `k + 64 <= n`, inside the ranges the caller vouches for.
    unsafe {
        if n < 64 {
            std::ptr::copy_nonoverlapping(s, d, n);
            return;
        }
        let mut k = 0;
        while k + 64 <= n {
            move64(s.add(k), d.add(k));
            k += 64;
        }
        if !n.is_multiple_of(64) {
            move64(s.add(n - 64), d.add(n - 64));
        }
    }
}

/// Moves 64 bytes from `s` to `d`, as two 32-byte moves in address order (as one
/// 64-byte move the compiler stored the upper half first, which was slower).
///
/// # Safety
/// `s` must be valid for reads and `d` for writes of 64 bytes.
#[inline(always)]
pub(crate) unsafe fn move64(s: *const u8, d: *mut u8) {
    type Half = [u8; 32];
    // SAFETY: as the caller vouches; unaligned reads and writes.
    unsafe {
        std::ptr::write_unaligned(d.cast::<Half>(), std::ptr::read_unaligned(s.cast::<Half>()));
        let (s, d) = (s.add(32), d.add(32));
        std::ptr::write_unaligned(d.cast::<Half>(), std::ptr::read_unaligned(s.cast::<Half>()));
    }
}

/// [`Ssse3::blend`] byte by byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn blend(_: Ssse3, a: &[u8; 16], b: &[u8; 16], s: &Blend16) -> [u8; 16] {
    let pick = |w: &[u8; 16], c: u8| if c < 16 { w[c as usize] } else { 0 };
    std::array::from_fn(|i| pick(a, s.a[i]) | pick(b, s.b[i]) | s.fill[i])
}

/// [`Ssse3::shuffle`] byte by byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn shuffle(_: Ssse3, w: &[u8; 16], control: &[u8; 16], fill: &[u8; 16]) -> [u8; 16] {
    std::array::from_fn(|i| match control[i] {
        c @ 0..16 => w[c as usize] | fill[i],
        _ => fill[i],
    })
}

/// [`Avx2::permute`](super::Avx2::permute) element by element: `p` takes no word
/// from a second window.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn permute(
    avx2: super::Avx2,
    a: &[u8; 32],
    p: &super::Permute8,
    fill: &[u8; 32],
) -> [u8; 32] {
    permute2(avx2, a, a, p, fill)
}

/// [`Avx2::permute2`](super::Avx2::permute2) element by element.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn permute2(
    _: super::Avx2,
    a: &[u8; 32],
    b: &[u8; 32],
    p: &super::Permute8,
    fill: &[u8; 32],
) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, (o, &word)) in out.chunks_exact_mut(4).zip(&p.0).enumerate() {
        let lane = (word % 8) as usize;
        // The constant by the output's lane, the windows by the word's.
        let from = match (word & super::Permute8::FILL, word & super::Permute8::FROM_B) {
            (0, 0) => &a[lane * 4..lane * 4 + 4],
            (0, _) => &b[lane * 4..lane * 4 + 4],
            _ => &fill[i * 4..i * 4 + 4],
        };
        o.copy_from_slice(from);
    }
    out
}

/// [`Avx2::shuffle2`](super::Avx2::shuffle2) byte by byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn shuffle2(
    _: super::Avx2,
    a: [&[u8; 16]; 2],
    b: [&[u8; 16]; 2],
    s: &super::Blend32,
) -> [u8; 32] {
    let pick = |w: &[u8; 16], c: u8| if c < 16 { w[c as usize] } else { 0 };
    std::array::from_fn(|i| pick(a[i / 16], s.a[i]) | pick(b[i / 16], s.b[i]) | s.fill[i])
}

/// [`Avx2::shuffle`](super::Avx2::shuffle) byte by byte.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn shuffle_avx2(_: super::Avx2, a: [&[u8; 16]; 2], s: &super::Shuffle32) -> [u8; 32] {
    let pick = |w: &[u8; 16], c: u8| if c < 16 { w[c as usize] } else { 0 };
    std::array::from_fn(|i| pick(a[i / 16], s.control[i]) | s.fill[i])
}

/// [`Avx512::permute`](super::Avx512::permute) lane by lane (also Miri's, which has
/// no AVX-512 permutes).
pub(super) fn permute64<const L: usize>(
    _: super::Avx512,
    [a, b]: [&[u8; 64]; 2],
    p: &super::Permute64,
    take: u64,
) -> [u8; 64] {
    // A lane's index is its low byte: its place in `a`, or in `b` plus a window's
    // lanes (the permutes read as many bits as that takes).
    let lanes = 64 / L;
    std::array::from_fn(|i| {
        let (lane, byte) = (i / L, i % L);
        match (take >> lane & 1, p.0[L * lane] as usize % (2 * lanes)) {
            (0, _) => p.0[i],
            (_, k) if k < lanes => a[L * k + byte],
            (_, k) => b[L * (k - lanes) + byte],
        }
    })
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn with_avx512<R>(_: super::Avx512, work: impl FnOnce() -> R) -> R {
    work()
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn with_avx2<R>(_: Cpu, work: impl FnOnce() -> R) -> R {
    work()
}

/// No non-temporal stores here: the caller copies as usual.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn stream_copy(_: &mut [u8], _: &[u8], _: usize, _: Cpu) -> bool {
    false
}

/// No non-temporal stores here: the caller copies as usual.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn stream_copy_lines(_: &mut [u8], _: &[u8], _: Cpu) -> bool {
    false
}

/// No non-temporal stores here: the caller interleaves as usual.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn stream_interleaved<const N: usize>(
    _: &mut [u8],
    _: &[u8],
    _: &[u8; N],
    _: bool,
) -> bool {
    false
}

/// No transposes in registers here (`TRANSPOSES` is `false`): the caller copies
/// element by element.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn transpose_square<const W: usize>(_: &[u8], _: usize, _: &mut [u8], _: usize) -> bool {
    false
}

/// No non-temporal stores here: the caller fills as usual.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn stream_fill_lines(_: &mut [u8], _: &[u8; 64], _: Cpu) -> bool {
    false
}

/// [`seamed`](super::seamed) word by word: what the x86_64 tests check it against.
///
/// # Safety
/// `a` must be valid for reads of 32 bytes; `-7 <= e <= 7`.
#[cfg(all(target_arch = "x86_64", test))]
#[inline(always)]
pub(super) unsafe fn seamed_words(a: *const u8, seam: Seam, e: isize) -> [u8; 32] {
    // SAFETY: as the caller vouches.
    let mut v = unsafe { a.cast::<[u8; 32]>().read_unaligned() };
    for i in 0..8isize {
        if (0..8).contains(&(i - e)) {
            let (at, from) = (4 * i as usize, 4 * (i - e) as usize);
            v[at..at + 4].copy_from_slice(&seam.0[from..from + 4]);
        }
    }
    v
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn store_around_cache<const W: usize>(d: &mut [u8], v: &[u8; W]) {
    d.copy_from_slice(v);
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn prefetch(_: *const u8) {}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn read_ahead(_: *const u8) {}

/// No write prefetch off x86_64 (no `WriteAhead` is made there).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn prefetch_write(_: *const u8) {}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn fence() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The moves take the copies whose destination lies 1 to 63 bytes past the source
    /// within a page, wherever the page; the others go to `memcpy`.
    #[test]
    fn just_past_is_one_to_a_line_less_one_past_within_a_page() {
        for base in [0usize, 5 * PAGE, usize::MAX - 3 * PAGE] {
            let s = base.wrapping_add(100);
            let at = |d: usize| s.wrapping_add(d);
            for d in [1, 16, COPY_ALIAS_BYTES - 1, PAGE + 1, 7 * PAGE + 63] {
                assert!(just_past(at(d), s), "{base} {d}");
            }
            for d in [0, COPY_ALIAS_BYTES, PAGE - 1, PAGE, 7 * PAGE + 64] {
                assert!(!just_past(at(d), s), "{base} {d}");
            }
            assert!(!just_past(s.wrapping_sub(16), s), "{base} before");
        }
    }

    /// The moves where the destination lies a few bytes past the source, not before it.
    #[test]
    fn the_moves_take_a_destination_just_past_its_source() {
        let buf = vec![0u8; 3 * PAGE];
        let (a, b) = (&buf[100..1100], &buf[116..1116]);
        assert!(by_moves(b, a));
        assert!(!by_moves(a, b));
        assert!(!by_moves(a, &buf[PAGE + 100..PAGE + 1100]));
        assert!(by_moves(&buf[PAGE + 140..PAGE + 1140], a));
    }

    /// Every byte in its place at every distance around the window, for runs shorter
    /// and longer than a move and than a page.
    #[test]
    fn copies_through_the_cache_at_every_distance() {
        let n = if cfg!(miri) { 300 } else { 5000 };
        let src: Vec<u8> = (0..n as u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut buf = vec![0u8; n + 3 * PAGE];
        let base = buf.as_ptr().align_offset(PAGE);
        let s_at = src.as_ptr() as usize % PAGE;
        let distances = (0..80).chain(PAGE - 70..PAGE);
        for d in distances.step_by(if cfg!(miri) { 13 } else { 1 }) {
            let start = base + (s_at + d) % PAGE;
            for len in [0, 1, 63, 64, 65, 200, n] {
                let dst = &mut buf[start..start + len];
                dst.fill(0);
                copy_cached(dst, &src[..len]);
                assert_eq!(dst, &src[..len], "{d} {len}");
            }
        }
    }
}
