//! The plane loops' rows: [`plane_rows`] writes a plane row by row with
//! [`plane_row`] (the copy in 64-byte moves, then the row's ends), for either kind
//! of ends ([`RowEnds`]: [`Ends`], or [`Singles`] by value).

#![allow(unsafe_code)]

use crate::arch::{copy_run, prefetch_lines, WriteAhead};

use super::{CopyPlane, Ends, RowMap};

/// What a row of a plane holds besides its copy, written after it: [`Ends`], or
/// [`Singles`].
pub(super) trait RowEnds: Copy {
    /// The part `lo..hi` of a row's copy that [`plane_rows_long`] may write around
    /// the cache (clear of bytes the ends rewrite).
    #[cfg(target_arch = "x86_64")]
    fn open_part(self, p: &CopyPlane<'_>) -> (usize, usize);

    /// Writes the ends of the row at `d` whose input row starts at `s`.
    ///
    /// # Safety
    /// As [`plane_row`], `s` the input row of an output row that is not the
    /// constant; for [`Singles`], their `fits` for `p`'s rows.
    unsafe fn write(self, p: &CopyPlane<'_>, s: *const u8, d: *mut u8);
}

/// The loop of [`copy_plane`], once `p` fits `out`, asking for the output lines
/// ahead of each row where `ahead` is given.
#[inline(always)]
pub(super) fn plane_rows<E: RowEnds>(
    p: &CopyPlane<'_>,
    ends: E,
    ahead: Option<WriteAhead>,
    out: &mut [u8],
) {
    prefetch_lines(p.jump);
    let mut d = out.as_mut_ptr();
    let mut ahead = ahead.map(|w| w.forward(d));
    for &r in &p.rows.rows()[p.range.clone()] {
        if let Some(a) = &mut ahead {
            a.reached(d.wrapping_add(p.out_row));
        }
        // SAFETY: `fits` checked that `out` holds exactly `range.len()` rows of
        // `out_row` bytes, so `d` (advanced by `out_row` per row) starts a row of `out`
        // here.
        unsafe {
            plane_row(p, ends, r, d);
            d = d.add(p.out_row);
        }
    }
}

/// Writes output row `r` of the plane `p` at `d`: the copy (64-byte moves, the last
/// one overlapping its predecessor), then its `ends` (the first and last 16 bytes as
/// blends of two windows each, or the constant before and after it); a constant row
/// from `constant_row`.
///
/// # Safety
/// `p` must fit its output (`CopyPlane::fits`), `r` be one of its rows, and `d` be
/// valid for writes of `p.out_row` bytes, not overlap `p.src` or `p.constant_row`,
/// and not be referenced elsewhere while the row is written.
#[inline(always)]
pub(super) unsafe fn plane_row<E: RowEnds>(p: &CopyPlane<'_>, ends: E, r: u32, d: *mut u8) {
    // SAFETY: `fits` checked that every input row read (`base + r * stride`, the
    // largest `r` included) ends inside `src`; that the copy's source and destination
    // ranges (so the constant's before and after it) and, with blends, the four
    // 16-byte windows lie inside their rows and a row has at least 16 bytes; that
    // `constant_row` is a row long; the caller vouches for `d`.
    unsafe {
        if r == RowMap::CONSTANT {
            // `d`'s row, as the caller vouches.
            let row = std::slice::from_raw_parts_mut(d, p.out_row);
            crate::arch::copy_cached(row, p.constant_row);
        } else {
            let s = p.src.as_ptr().add(p.base + r as usize * p.stride);
            copy_run(s.add(p.copy.from), d.add(p.copy.at), p.copy.len);
            ends.write(p, s, d);
        }
    }
}

impl RowEnds for Ends<'_> {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn open_part(self, p: &CopyPlane<'_>) -> (usize, usize) {
        let copy_end = p.copy.at + p.copy.len;
        match self {
            Ends::Blend(_) => (p.copy.at.max(16), copy_end.min(p.out_row - 16)),
            Ends::Open | Ends::Constant => (p.copy.at, copy_end),
        }
    }

    #[inline(always)]
    unsafe fn write(self, p: &CopyPlane<'_>, s: *const u8, d: *mut u8) {
        // SAFETY: as `plane_row`'s.
        unsafe {
            if let Ends::Constant = self {
                let (f, end) = (p.constant_row.as_ptr(), p.copy.at + p.copy.len);
                copy_run(f, d, p.copy.at);
                copy_run(f.add(end), d.add(end), p.out_row - end);
            }
            if let Ends::Blend(e) = self {
                let window = |at: usize| &*s.add(at).cast::<[u8; 16]>();
                let (l, h) = (e.end(false, window), e.end(true, window));
                std::ptr::write_unaligned(d.cast::<[u8; 16]>(), l);
                std::ptr::write_unaligned(d.add(p.out_row - 16).cast::<[u8; 16]>(), h);
            }
        }
    }
}

/// [`Singles`] as the plane loops take them: by value, so that the loops hold the
/// list's address and length in registers.
#[derive(Clone, Copy)]
pub(super) struct SinglesRef<'a> {
    pub(super) size: usize,
    pub(super) at: &'a [(u32, u32)],
}

impl RowEnds for SinglesRef<'_> {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn open_part(self, p: &CopyPlane<'_>) -> (usize, usize) {
        (p.copy.at, p.copy.at + p.copy.len)
    }

    #[inline(always)]
    unsafe fn write(self, _: &CopyPlane<'_>, s: *const u8, d: *mut u8) {
        /// The loop for elements of `N` bytes (`N == size`): moves of a fixed size.
        #[inline(always)]
        unsafe fn each<const N: usize>(k: SinglesRef<'_>, s: *const u8, d: *mut u8) {
            // SAFETY: as `write`'s caller vouches (`fits`), `N` being the elements'
            // size.
            unsafe {
                for &(o, i) in k.at {
                    let v = std::ptr::read_unaligned(s.add(i as usize).cast::<[u8; N]>());
                    std::ptr::write_unaligned(d.add(o as usize).cast::<[u8; N]>(), v);
                }
            }
        }
        // SAFETY: as the caller vouches.
        unsafe {
            match self.size {
                1 => each::<1>(self, s, d),
                2 => each::<2>(self, s, d),
                3 => each::<3>(self, s, d),
                4 => each::<4>(self, s, d),
                6 => each::<6>(self, s, d),
                8 => each::<8>(self, s, d),
                12 => each::<12>(self, s, d),
                _ => each::<16>(self, s, d),
            }
        }
    }
}
