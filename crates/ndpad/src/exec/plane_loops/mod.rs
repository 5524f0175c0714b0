//! The plane loops: a plane of output rows (one pass of the innermost outer axis),
//! each row the constant or one copy from an input row plus its [`Ends`] (a crop's
//! nothing, two 16-byte blends, runs of the constant) or [`Singles`], written with
//! raw moves after one bounds check per plane ([`CopyPlane::fits`]): directly, or for
//! large outputs around the cache (crops and rows with blended ends streamed
//! straight from the input, built in registers; other rows staged through a small
//! buffer; long rows streamed straight from the input), reading the input ahead where
//! that pays.

#![allow(unsafe_code)]

use crate::arch::{Blend16, Cpu, Ssse3, WriteAhead};
// The loops around the cache, and the checks that pick one, are x86_64's alone (they
// run only in `copy_plane`'s AVX2 functions); the tests check the checks everywhere.
#[cfg(any(target_arch = "x86_64", test))]
use crate::arch::LINE;
#[cfg(target_arch = "x86_64")]
use crate::arch::{Avx, Avx2};
#[cfg(any(target_arch = "x86_64", test))]
use crate::tune::{READ_AHEAD_PLANE_MIN, READ_AHEAD_ROW_MIN, STAGE_PLANE_MIN, STAGE_ROW_MAX};

mod rows;
mod streamed;
#[cfg(test)]
mod tests;

use rows::{plane_rows, SinglesRef};
pub(crate) use streamed::Stage;
#[cfg(target_arch = "x86_64")]
use streamed::{
    plane_rows_framed, plane_rows_joined, plane_rows_long, plane_rows_seamed, plane_staged,
};

/// The first and last 16 bytes of rows of one copy between a few single elements,
/// each blended from two 16-byte windows of the input row and the constant (built by
/// `exec::row_kernel`'s `edges_of`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edges {
    pub(crate) ssse3: Ssse3,
    /// Byte offsets, in the input row, of the windows of the first and the last 16
    /// bytes.
    pub(crate) left: [usize; 2],
    pub(crate) right: [usize; 2],
    pub(crate) left_blend: Blend16,
    pub(crate) right_blend: Blend16,
}

impl Edges {
    /// The row's first 16 output bytes, or with `last` its last 16, blended from the
    /// input row's windows at the byte offsets `window` is given.
    #[inline(always)]
    pub(crate) fn end<'a>(&self, last: bool, window: impl Fn(usize) -> &'a [u8; 16]) -> [u8; 16] {
        let (at, blend) = match last {
            false => (self.left, &self.left_blend),
            true => (self.right, &self.right_blend),
        };
        self.ssse3.blend(window(at[0]), window(at[1]), blend)
    }

    /// Writes the first and last 16 bytes of the output row `out` from the input row
    /// `src`, after the row's copy (rows outside the plane loops); `false`, having
    /// written nothing, where a window or an end does not fit the rows given. (Each
    /// window checked as it is taken, not by [`Self::end`] after a check of all four:
    /// that was 3-4% slower on u8 [20,20] reflect 4, one-shot.)
    #[inline(always)]
    pub(crate) fn write_row(&self, src: &[u8], out: &mut [u8]) -> bool {
        let window = |at: usize| src.get(at..).and_then(<[u8]>::first_chunk::<16>);
        let (Some(l0), Some(l1), Some(r0), Some(r1)) = (
            window(self.left[0]),
            window(self.left[1]),
            window(self.right[0]),
            window(self.right[1]),
        ) else {
            return false;
        };
        let Some(last) = out.len().checked_sub(16) else {
            return false;
        };
        out[..16].copy_from_slice(&self.ssse3.blend(l0, l1, &self.left_blend));
        out[last..].copy_from_slice(&self.ssse3.blend(r0, r1, &self.right_blend));
        true
    }
}

/// The input row of each output row of a plane ([`RowMap::CONSTANT`] for a row of the
/// constant), with its smallest and largest rows and whether it holds the constant,
/// found once, when it is made (not at each plane).
#[derive(Clone, Debug, Default)]
pub(crate) struct RowMap {
    rows: Vec<u32>,
    // `first` and `constant` are read only by the checks of the loops around the cache
    // (x86_64's, and the tests'); cfg-gating them would split `new` apart.
    #[cfg_attr(not(any(target_arch = "x86_64", test)), allow(dead_code))]
    first: Option<u32>,
    last: Option<u32>,
    #[cfg_attr(not(any(target_arch = "x86_64", test)), allow(dead_code))]
    constant: bool,
}

impl RowMap {
    /// A constant row.
    pub(crate) const CONSTANT: u32 = u32::MAX;

    pub(crate) fn new(rows: Vec<u32>) -> RowMap {
        let read = || rows.iter().copied().filter(|&r| r != Self::CONSTANT);
        let (first, last) = (read().min(), read().max());
        let constant = rows.contains(&Self::CONSTANT);
        RowMap {
            rows,
            first,
            last,
            constant,
        }
    }

    pub(crate) fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// The largest input row, `None` when every row is the constant.
    pub(crate) fn last(&self) -> Option<u32> {
        self.last
    }
}

/// A row's one copy: `len` units from `from` in the input row to `at` in the output
/// row (units: elements of the executor's representation, or bytes in a
/// [`CopyPlane`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowCopy {
    pub(crate) at: usize,
    pub(crate) from: usize,
    pub(crate) len: usize,
}

impl RowCopy {
    /// The copy in bytes, for elements of `size` bytes.
    pub(crate) fn bytes(self, size: usize) -> RowCopy {
        RowCopy {
            at: self.at * size,
            from: self.from * size,
            len: self.len * size,
        }
    }
}

/// What a row of a [`CopyPlane`] holds besides its copy.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ends<'a> {
    /// Nothing: the bytes around the copy are left as they are (a crop's copy is
    /// the whole row).
    Open,
    /// The first and last 16 bytes blended from the input row and the constant, after
    /// the copy (a few elements padded at each end, any mode).
    Blend(&'a Edges),
    /// The constant (`constant_row`'s bytes) before and after the copy, however many (a
    /// constant pad of the row axis).
    Constant,
}

/// Single elements of a row copied one by one from its input row, besides the
/// copy: ends too wide for [`Ends::Blend`] in modes other than the constant (the u8
/// image `[2160,3840,3]` reflect-padded by 16 has 32 a row). Each element is `size`
/// bytes (1, 2, 3, 4, 6, 8, 12 or 16): (output byte, input byte) pairs within the
/// rows. Written by [`copy_plane_singles`].
#[derive(Clone, Debug)]
pub(crate) struct Singles {
    pub(crate) size: usize,
    pub(crate) at: Vec<(u32, u32)>,
}

impl Singles {
    /// The element sizes [`RowEnds::write`] has a loop for.
    pub(crate) const SIZES: [usize; 8] = [1, 2, 3, 4, 6, 8, 12, 16];

    /// Whether every element lies inside rows of `in_row` and `out_row` bytes.
    #[inline(always)]
    fn fits(&self, in_row: usize, out_row: usize) -> bool {
        let within = |at: u32, row: usize| {
            (at as usize)
                .checked_add(self.size)
                .is_some_and(|e| e <= row)
        };
        Self::SIZES.contains(&self.size)
            && self
                .at
                .iter()
                .all(|&(d, s)| within(d, out_row) && within(s, in_row))
    }
}

/// A plane of output rows, all in bytes: each the constant (`constant_row`), or one copy
/// from an input row with its [`Ends`].
pub(crate) struct CopyPlane<'a> {
    pub(crate) src: &'a [u8],
    /// Where the plane's input starts, and the distance between its input rows.
    pub(crate) base: usize,
    pub(crate) stride: usize,
    /// The input row of each output row of a whole plane, and the output rows
    /// written: all, or a run of them (a thread's part of a plane).
    pub(crate) rows: &'a RowMap,
    pub(crate) range: std::ops::Range<usize>,
    pub(crate) in_row: usize,
    pub(crate) out_row: usize,
    pub(crate) constant_row: &'a [u8],
    /// `constant_row` repeats every this many bytes (a multiple of 64 constants:
    /// whole lines), so that its lines can be read from its start, in the L1 cache
    /// however long the row ([`stream_constant`](streamed::stream_constant)); its
    /// length or more where it does not repeat within it. Read only by the long-row
    /// loops around the cache, x86_64's alone (set by the executor on every target).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) constant_period: usize,
    /// The copy of each row that is not the constant.
    pub(crate) copy: RowCopy,
    pub(crate) ends: Ends<'a>,
    /// The jump lines: input lines (addresses; prefetching is a hint, any address
    /// will do) of the next plane that the hardware prefetcher cannot foresee
    /// (`exec::prefetch`). The staged loop prefetches them one a row over the plane's
    /// last rows ([`JUMP_TAIL_ROWS`]), the other loops all as they start.
    pub(crate) jump: &'a [usize],
}

impl CopyPlane<'_> {
    /// Whether every read and write of [`copy_plane`] into an `out` of `out_len` bytes
    /// lies inside its slices.
    #[inline(always)]
    fn fits(&self, out_len: usize) -> bool {
        let in_row = |end: Option<usize>| end.is_some_and(|e| e <= self.in_row);
        let last = self.rows.last().map_or(Some(0), |r| {
            (r as usize)
                .checked_mul(self.stride)?
                .checked_add(self.base)?
                .checked_add(self.in_row)
        });
        let edges = match self.ends {
            Ends::Blend(e) => {
                self.out_row >= 16
                    && e.left
                        .iter()
                        .chain(&e.right)
                        .all(|&w| in_row(w.checked_add(16)))
            }
            Ends::Open | Ends::Constant => true,
        };
        self.range.start <= self.range.end
            && self.range.end <= self.rows.rows().len()
            && self.range.len().checked_mul(self.out_row) == Some(out_len)
            && self.constant_row.len() == self.out_row
            && last.is_some_and(|e| e <= self.src.len())
            && self
                .copy
                .at
                .checked_add(self.copy.len)
                .is_some_and(|e| e <= self.out_row)
            && in_row(self.copy.from.checked_add(self.copy.len))
            && edges
    }

    /// The bytes of input the plane's rows span: from its first byte to the end of
    /// its last input row.
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    fn plane_in(&self) -> usize {
        self.rows
            .last()
            .map_or(0, |r| (r as usize + 1).saturating_mul(self.stride))
    }

    /// Whether [`plane_rows_streamed`] prefetches the input ahead of its rows.
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    fn reads_ahead(&self) -> bool {
        self.in_row >= READ_AHEAD_ROW_MIN && self.plane_in() >= READ_AHEAD_PLANE_MIN
    }

    /// Whether some row is read and the `len` bytes from byte `from` of every input
    /// row read lie a line or more from either end of the input (the loops that read
    /// rows straight from the input read up to a line beyond them).
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    fn clear_of_input_ends(&self, from: usize, len: usize) -> bool {
        let at = |r: u32| (r as usize) * self.stride + self.base + from;
        self.rows.first.is_some_and(|r| at(r) >= LINE)
            && self
                .rows
                .last
                .is_some_and(|r| at(r) + len + LINE <= self.src.len())
    }

    /// Whether [`plane_rows_joined`] can write the plane: rows that are each one copy
    /// of a line to [`STAGE_ROW_MAX`] bytes (a crop; longer rows measured faster
    /// through [`plane_rows_long`]), none the constant, all at least a line from
    /// either end of the input (a joined line reads up to 63 bytes beyond its rows),
    /// in a plane (or part) of at least [`STAGE_PLANE_MIN`] bytes, as the staged
    /// loop's. Only after `fits`.
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    fn joins(&self) -> bool {
        matches!(self.ends, Ends::Open)
            && self.range.len() * self.out_row >= STAGE_PLANE_MIN
            && self.copy.at == 0
            && self.copy.len == self.out_row
            && (LINE..=STAGE_ROW_MAX).contains(&self.out_row)
            && !self.rows.constant
            && self.clear_of_input_ends(self.copy.from, self.out_row)
    }

    /// Whether [`plane_rows_seamed`] can write the plane (its ends [`Ends::Blend`])
    /// into an output at `o`: as the staged loop ([`streams`](Self::streams)), rows of
    /// a line or more in whole 4-byte words, starting at a multiple of 4 bytes (a seam
    /// moves by words), not all the constant, the rows read all a line from either
    /// end of the input (a half-line reads up to 32 bytes beyond its row). Only after
    /// `fits`.
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    fn seams(&self, o: *const u8) -> bool {
        self.streams()
            && self.out_row >= LINE
            && self.out_row.is_multiple_of(4)
            && (o as usize).is_multiple_of(4)
            && self.clear_of_input_ends(0, self.in_row)
    }

    /// Whether [`plane_rows_framed`] can write the plane: rows longer than
    /// [`STAGE_ROW_MAX`] of one copy between runs of the constant ([`Ends::Constant`]),
    /// a copy of two lines or more (so that a line holds at most one of its ends).
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    fn frames(&self) -> bool {
        matches!(self.ends, Ends::Constant)
            && self.out_row > STAGE_ROW_MAX
            && self.copy.len >= 2 * LINE
    }

    /// Whether [`plane_rows_streamed`] can write the plane: each row written covers
    /// every byte of its output row (the staging buffer then holds no stale byte
    /// that counts), a row fits the buffer, and the plane is not mostly partial
    /// lines. Only after `fits`.
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    fn streams(&self) -> bool {
        let end = self.copy.at + self.copy.len;
        let covered = match self.ends {
            Ends::Open => self.copy.at == 0 && end == self.out_row,
            Ends::Blend(_) => self.copy.at <= 16 && end + 16 >= self.out_row,
            Ends::Constant => true,
        };
        covered
            && self.out_row <= STAGE_ROW_MAX
            && self.range.len() * self.out_row >= STAGE_PLANE_MIN
    }
}

/// Writes the plane `p` into `out` ([`plane_row`] for each row). Returns `false`,
/// having written nothing, where a read or write would leave its slice. Everything is
/// checked once per plane, so that a row takes few instructions (what pads short rows
/// fast). Where the CPU has AVX2, in a function of its own (its own register
/// allocation, measured faster than the loop merged into the executor's), around the
/// cache where `stage` is given: crops [joined](CopyPlane::joins) and rows with
/// blended ends [seamed](CopyPlane::seams) in registers, other planes that
/// [stream](CopyPlane::streams) staged, rows longer than [`STAGE_ROW_MAX`] streamed
/// straight from the input (and from the constant row where it
/// [frames](CopyPlane::frames) them); else directly.
#[inline(always)]
pub(crate) fn copy_plane(
    p: &CopyPlane<'_>,
    stage: Option<&mut Stage>,
    cpu: Cpu,
    out: &mut [u8],
) -> bool {
    if !p.fits(out.len()) {
        return false;
    }
    // Only the loops around the cache (x86_64's) take the staging buffer.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = stage;
    // The loops around the cache need 32-byte non-temporal stores; they run only in
    // the AVX2 function.
    match cpu.avx2() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `avx2` came from a `Cpu` with AVX2, the only requirement of calling a
        // function compiled for it.
        Some(avx2) => unsafe { copy_plane_avx2(p, stage, avx2, cpu.plane_write_ahead(), out) },
        _ => plane_direct(p, cpu.plane_write_ahead(), out),
    }
    true
}

/// [`copy_plane`]'s loops compiled for AVX2, in a function of their own (its own
/// register allocation; `p` a parameter, so its fields stay in registers across the
/// rows' raw stores).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn copy_plane_avx2(
    p: &CopyPlane<'_>,
    stage: Option<&mut Stage>,
    avx2: Avx2,
    ahead: Option<WriteAhead>,
    out: &mut [u8],
) {
    match stage {
        Some(st) => plane_around_cache(p, st, avx2, ahead, out),
        None => plane_direct(p, ahead, out),
    }
}

/// [`copy_plane`]'s loops around the cache, one copy of each per kind of ends (each
/// call passes a constant kind, so the loop is compiled for it).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn plane_around_cache(
    p: &CopyPlane<'_>,
    st: &mut Stage,
    avx2: Avx2,
    ahead: Option<WriteAhead>,
    out: &mut [u8],
) {
    let avx = avx2.avx();
    // The line the part ends in, which its last bytes take ordinary stores into (and
    // the next part's first ones): asked for now, so that those stores do not wait
    // on its read from memory.
    crate::arch::prefetch(out.as_ptr().wrapping_add(out.len().saturating_sub(1)));
    match p.ends {
        Ends::Open if p.joins() => plane_rows_joined(p, avx, out),
        Ends::Blend(e) if p.seams(out.as_ptr()) => plane_rows_seamed(p, e, st, avx2, out),
        Ends::Open if p.streams() => plane_staged(p, Ends::Open, st, avx, out),
        Ends::Blend(e) if p.streams() => plane_staged(p, Ends::Blend(e), st, avx, out),
        Ends::Constant if p.streams() => plane_staged(p, Ends::Constant, st, avx, out),
        // SAFETY: `avx2` proves the CPU has AVX2, the only requirement of calling a
        // function compiled for it.
        _ if p.out_row > STAGE_ROW_MAX => unsafe { plane_long_rows(p, avx2, out) },
        _ => plane_direct(p, ahead, out),
    }
}

/// [`plane_around_cache`] for rows longer than [`STAGE_ROW_MAX`], in a function of its
/// own: compiled with the short rows' loops, these made those slower (a crop of
/// 208-byte rows lost 4.6% to two prefetches added here).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn plane_long_rows(p: &CopyPlane<'_>, avx2: Avx2, out: &mut [u8]) {
    let avx = avx2.avx();
    match p.ends {
        Ends::Open => plane_rows_long(p, Ends::Open, avx, out),
        Ends::Blend(e) => plane_rows_long(p, Ends::Blend(e), avx, out),
        Ends::Constant if p.frames() => plane_rows_framed(p, avx, out),
        Ends::Constant => plane_rows_long(p, Ends::Constant, avx, out),
    }
}

/// [`plane_rows`] with one copy of the loop per kind of ends.
#[inline(always)]
fn plane_direct(p: &CopyPlane<'_>, ahead: Option<WriteAhead>, out: &mut [u8]) {
    match p.ends {
        Ends::Open => plane_rows(p, Ends::Open, ahead, out),
        Ends::Blend(e) => plane_rows(p, Ends::Blend(e), ahead, out),
        Ends::Constant => plane_rows(p, Ends::Constant, ahead, out),
    }
}

/// [`copy_plane`] for rows of one copy and [`Singles`] (`p.ends` must be
/// [`Ends::Open`]): the direct loop, or with `stream` for rows longer than
/// [`STAGE_ROW_MAX`] the long-row loop around the cache; never staged (its rows are
/// long, like the u8 image's, or few). A function of its own, so that
/// [`copy_plane`]'s stays as it is (a fourth kind of [`Ends`] made its dispatch a
/// jump table, and slower). Returns `false`, having written nothing, where a read or
/// write would leave its slice.
#[inline(always)]
pub(crate) fn copy_plane_singles(
    p: &CopyPlane<'_>,
    k: &Singles,
    stream: bool,
    cpu: Cpu,
    out: &mut [u8],
) -> bool {
    if !(matches!(p.ends, Ends::Open) && k.fits(p.in_row, p.out_row) && p.fits(out.len())) {
        return false;
    }
    let k = SinglesRef {
        size: k.size,
        at: &k.at,
    };
    #[cfg(target_arch = "x86_64")]
    if cpu.has_avx2() {
        let long = cpu.avx().filter(|_| stream && p.out_row > STAGE_ROW_MAX);
        // SAFETY: the CPU has AVX2 (`cpu`), the only requirement of calling a function
        // compiled for it.
        unsafe { copy_plane_singles_avx2(p, k, long, cpu.plane_write_ahead(), out) };
        return true;
    }
    // Only x86_64's AVX2 loops stream.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = stream;
    plane_rows(p, k, cpu.plane_write_ahead(), out);
    true
}

/// [`copy_plane_singles`]'s loops compiled for AVX2, in a function of their own.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn copy_plane_singles_avx2(
    p: &CopyPlane<'_>,
    k: SinglesRef<'_>,
    long: Option<Avx>,
    ahead: Option<WriteAhead>,
    out: &mut [u8],
) {
    match long {
        Some(avx) => plane_rows_long(p, k, avx, out),
        None => plane_rows(p, k, ahead, out),
    }
}
