//! The plane loops: a plane of output rows (one pass of the innermost outer axis),
//! each row the constant or one copy from an input row plus its [`Ends`] (a crop's
//! nothing, two 16-byte blends, runs of the constant) or [`Singles`], written with
//! raw moves after one bounds check per plane ([`CopyPlane::fits`]): directly, or for
//! large outputs around the cache (staged through a small buffer, or for long rows
//! streamed straight from the input), reading the input ahead where that pays.

#![allow(unsafe_code)]

use crate::arch::{
    copy_run, move64, prefetch, prefetch_lines, stream_lines, Avx, Blend16, Cpu, Ssse3,
};
use crate::tune::{
    JUMP_TAIL_ROWS, READ_AHEAD, READ_AHEAD_PLANE_MIN, READ_AHEAD_ROW_MIN, STAGE_PLANE_MIN,
    STAGE_ROW_MAX,
};

/// The first and last 16 bytes of rows of one copy between a few single elements,
/// each blended from two 16-byte windows of the input row and the constant (built by
/// `exec::strategy`'s `edges_of`).
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

/// The input row of each output row of a plane ([`RowMap::CONSTANT`] for a row of the
/// constant), with its largest row found once, when it is made (not at each plane).
#[derive(Clone, Debug, Default)]
pub(crate) struct RowMap {
    rows: Vec<u32>,
    last: Option<u32>,
}

impl RowMap {
    /// A constant row.
    pub(crate) const CONSTANT: u32 = u32::MAX;

    pub(crate) fn new(rows: Vec<u32>) -> RowMap {
        let last = rows.iter().copied().filter(|&r| r != Self::CONSTANT).max();
        RowMap { rows, last }
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

/// What a row of a plane holds besides its copy, written after it: [`Ends`], or
/// [`Singles`].
trait RowEnds: Copy {
    /// The part `lo..hi` of a row's copy that [`plane_rows_long`] may write around
    /// the cache (clear of bytes the ends rewrite).
    fn open_part(self, p: &CopyPlane<'_>) -> (usize, usize);

    /// Writes the ends of the row at `d` whose input row starts at `s`.
    ///
    /// # Safety
    /// As [`plane_row`], `s` the input row of an output row that is not the
    /// constant; for [`Singles`], their `fits` for `p`'s rows.
    unsafe fn write(self, p: &CopyPlane<'_>, s: *const u8, d: *mut u8);
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
    #[inline(always)]
    fn plane_in(&self) -> usize {
        self.rows
            .last()
            .map_or(0, |r| (r as usize + 1).saturating_mul(self.stride))
    }

    /// Whether [`plane_rows_streamed`] prefetches the input ahead of its rows.
    #[inline(always)]
    fn reads_ahead(&self) -> bool {
        self.in_row >= READ_AHEAD_ROW_MIN && self.plane_in() >= READ_AHEAD_PLANE_MIN
    }

    /// Whether [`plane_rows_streamed`] can write the plane: each row written covers
    /// every byte of its output row (the staging buffer then holds no stale byte
    /// that counts), a row fits the buffer, and the plane is not mostly partial
    /// lines. Only after `fits`.
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
/// allocation, measured faster than the loop merged into the executor's), staged
/// around the cache where `stage` is given and the plane [`streams`](CopyPlane::streams),
/// rows longer than [`STAGE_ROW_MAX`] streamed straight from the input, else
/// directly.
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
    // The loops around the cache need 32-byte non-temporal stores; they run only in
    // the AVX2 function.
    match cpu.avx().filter(|_| cpu.has_avx2()) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `avx` came from a `Cpu` with AVX2, the only requirement of calling a
        // function compiled for it.
        Some(avx) => unsafe { copy_plane_avx2(p, stage, avx, out) },
        _ => plane_direct(p, out),
    }
    true
}

/// [`copy_plane`]'s loops compiled for AVX2, in a function of their own (its own
/// register allocation; `p` a parameter, so its fields stay in registers across the
/// rows' raw stores).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn copy_plane_avx2(p: &CopyPlane<'_>, stage: Option<&mut Stage>, avx: Avx, out: &mut [u8]) {
    match stage {
        Some(st) => plane_around_cache(p, st, avx, out),
        None => plane_direct(p, out),
    }
}

/// [`copy_plane`]'s loops around the cache, one copy of each per kind of ends (each
/// call passes a constant kind, so the loop is compiled for it).
#[inline(always)]
fn plane_around_cache(p: &CopyPlane<'_>, st: &mut Stage, avx: Avx, out: &mut [u8]) {
    match p.ends {
        Ends::Open if p.streams() => plane_staged(p, Ends::Open, st, avx, out),
        Ends::Blend(e) if p.streams() => plane_staged(p, Ends::Blend(e), st, avx, out),
        Ends::Constant if p.streams() => plane_staged(p, Ends::Constant, st, avx, out),
        Ends::Open if p.out_row > STAGE_ROW_MAX => plane_rows_long(p, Ends::Open, avx, out),
        Ends::Blend(e) if p.out_row > STAGE_ROW_MAX => plane_rows_long(p, Ends::Blend(e), avx, out),
        Ends::Constant if p.out_row > STAGE_ROW_MAX => plane_rows_long(p, Ends::Constant, avx, out),
        _ => plane_direct(p, out),
    }
}

/// [`plane_rows`] with one copy of the loop per kind of ends.
#[inline(always)]
fn plane_direct(p: &CopyPlane<'_>, out: &mut [u8]) {
    match p.ends {
        Ends::Open => plane_rows(p, Ends::Open, out),
        Ends::Blend(e) => plane_rows(p, Ends::Blend(e), out),
        Ends::Constant => plane_rows(p, Ends::Constant, out),
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
    if cpu.has_avx2() {
        let long = cpu.avx().filter(|_| stream && p.out_row > STAGE_ROW_MAX);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has AVX2 (`cpu`), the only requirement of calling a function
        // compiled for it.
        unsafe {
            copy_plane_singles_avx2(p, k, long, out)
        };
        #[cfg(target_arch = "x86_64")]
        return true;
    }
    plane_rows(p, k, out);
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
    out: &mut [u8],
) {
    match long {
        Some(avx) => plane_rows_long(p, k, avx, out),
        None => plane_rows(p, k, out),
    }
}

/// The loop of [`copy_plane`], once `p` fits `out`.
#[inline(always)]
fn plane_rows<E: RowEnds>(p: &CopyPlane<'_>, ends: E, out: &mut [u8]) {
    prefetch_lines(p.jump);
    let mut d = out.as_mut_ptr();
    for &r in &p.rows.rows()[p.range.clone()] {
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
/// valid for writes of `p.out_row` bytes and not overlap `p.src`.
#[inline(always)]
unsafe fn plane_row<E: RowEnds>(p: &CopyPlane<'_>, ends: E, r: u32, d: *mut u8) {
    // SAFETY: `fits` checked that every input row read (`base + r * stride`, the
    // largest `r` included) ends inside `src`; that the copy's source and destination
    // ranges (so the constant's before and after it) and, with blends, the four
    // 16-byte windows lie inside their rows and a row has at least 16 bytes; that
    // `constant_row` is a row long; the caller vouches for `d`.
    unsafe {
        if r == RowMap::CONSTANT {
            std::ptr::copy_nonoverlapping(p.constant_row.as_ptr(), d, p.out_row);
        } else {
            let s = p.src.as_ptr().add(p.base + r as usize * p.stride);
            copy_run(s.add(p.copy.from), d.add(p.copy.at), p.copy.len);
            ends.write(p, s, d);
        }
    }
}

impl RowEnds for Ends<'_> {
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
                let l = e
                    .ssse3
                    .blend(window(e.left[0]), window(e.left[1]), &e.left_blend);
                let h = e
                    .ssse3
                    .blend(window(e.right[0]), window(e.right[1]), &e.right_blend);
                std::ptr::write_unaligned(d.cast::<[u8; 16]>(), l);
                std::ptr::write_unaligned(d.add(p.out_row - 16).cast::<[u8; 16]>(), h);
            }
        }
    }
}

/// [`Singles`] as the plane loops take them: by value, so that the loops hold the
/// list's address and length in registers.
#[derive(Clone, Copy)]
struct SinglesRef<'a> {
    size: usize,
    at: &'a [(u32, u32)],
}

impl RowEnds for SinglesRef<'_> {
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

/// [`plane_rows`] around the cache for rows longer than [`STAGE_ROW_MAX`] (staged,
/// a row's loads and then its stores would come in bursts): the whole output lines
/// inside each row's copy (clear of blended ends) are written with non-temporal
/// stores straight from the input, the rest of the row as [`plane_row`] writes it,
/// with ordinary stores (faster on long rows than staging them, writing them directly
/// or `memcpy` calls).
#[inline(always)]
fn plane_rows_long<E: RowEnds>(p: &CopyPlane<'_>, ends: E, avx: Avx, out: &mut [u8]) {
    let (copy_end, o) = (p.copy.at + p.copy.len, out.as_mut_ptr());
    // The part of a row's copy that may go around the cache.
    let (lo, hi) = ends.open_part(p);
    prefetch_lines(p.jump);
    for (k, &r) in p.rows.rows()[p.range.clone()].iter().enumerate() {
        // SAFETY: `fits` checked that `out` holds exactly `range.len()` rows of
        // `out_row` bytes, so `d` starts a row of `out`; the copy and the ends as in
        // `plane_row`. The lines streamed, `a..b` of the row, lie inside the copy's
        // part `lo..hi` (so they are written once, by nothing else), `d + a` is
        // 64-byte aligned, and their source is the copy's.
        unsafe {
            let d = o.add(k * p.out_row);
            if r == RowMap::CONSTANT {
                std::ptr::copy_nonoverlapping(p.constant_row.as_ptr(), d, p.out_row);
                continue;
            }
            let s = p.src.as_ptr().add(p.base + r as usize * p.stride);
            // The input byte of output byte `i` of the copy (`copy_at <= i <=
            // copy_end`).
            let from = |i: usize| s.add(p.copy.from + (i - p.copy.at));
            let row = d as usize;
            let a = (row + lo).next_multiple_of(64) - row;
            let b = ((row + hi) & !63).saturating_sub(row);
            if b > a {
                copy_run(from(p.copy.at), d.add(p.copy.at), a - p.copy.at);
                stream_lines(from(a), d.add(a), (b - a) / 64, avx);
                copy_run(from(b), d.add(b), copy_end - b);
            } else {
                copy_run(from(p.copy.at), d.add(p.copy.at), p.copy.len);
            }
            ends.write(p, s, d);
        }
    }
}

/// The staging buffer of [`plane_rows_streamed`]: a row and a line on each side, in
/// whole 64-byte lines. One per thread's part of an output (made by the executor).
#[repr(C, align(64))]
pub(crate) struct Stage([u8; STAGE_ROW_MAX + 128]);

impl Stage {
    pub(crate) fn new() -> Box<Stage> {
        Box::new(Stage([0; STAGE_ROW_MAX + 128]))
    }
}

/// [`plane_rows_streamed`], with or without reading ahead (`p.reads_ahead()`).
#[inline(always)]
fn plane_staged(p: &CopyPlane<'_>, ends: Ends<'_>, stage: &mut Stage, avx: Avx, out: &mut [u8]) {
    match p.reads_ahead() {
        true => plane_rows_streamed::<true>(p, ends, stage, avx, out),
        false => plane_rows_streamed::<false>(p, ends, stage, avx, out),
    }
}

/// [`plane_rows`] around the cache: each row is written into a staging buffer in the
/// first-level cache, at the offset it has within the output's 64-byte lines, and
/// every line it completes goes out with non-temporal stores, so that the output's
/// lines are never read into the cache first (a third of the memory traffic of
/// padding into a buffer). The partial lines at the plane's two ends take ordinary
/// stores. Needs `p.streams()`. Lines go out after every row (flushing in larger
/// bursts overlapped loads and stores less).
///
/// With `READS_AHEAD` (`p.reads_ahead()`), each row also prefetches its share of the
/// input [`READ_AHEAD`] bytes ahead, besides the next plane's jump lines
/// ([`CopyPlane::jump`]). A separate copy of the loop, so that planes without it pay
/// no branch a row.
#[inline(always)]
fn plane_rows_streamed<const READS_AHEAD: bool>(
    p: &CopyPlane<'_>,
    ends: Ends<'_>,
    stage: &mut Stage,
    avx: Avx,
    out: &mut [u8],
) {
    let st = stage.0.as_mut_ptr();
    let o = out.as_mut_ptr();
    // Buffer byte `i` is output byte `i - lead` (the output's first byte sits `lead`
    // bytes into its line). `skip`: the bytes at the buffer's start that are not the
    // output's, until its first line is out; `used`: the buffer's bytes in use;
    // `done`: the output's bytes written.
    let lead = o as usize % 64;
    let (mut skip, mut used, mut done) = (lead, lead, 0usize);
    // `p.jump`, one line a row from row `from` on, ending `JUMP_TAIL_ROWS` rows
    // before the plane's end; what does not fit into those rows, at once.
    let spread = p.range.len().saturating_sub(JUMP_TAIL_ROWS);
    let early = p.jump.len().saturating_sub(spread);
    prefetch_lines(&p.jump[..early]);
    let from = spread - (p.jump.len() - early);
    let mut jump = p.jump[early..].iter();
    // The input `READ_AHEAD` ahead: `span` lines a plane, `span / rows` a row
    // (`due` carries the remainder), from the line the part's first row is at.
    let rows = p.rows.rows().len().max(1);
    let span = p.plane_in().div_ceil(64);
    let start = span.saturating_mul(p.range.start);
    let (mut line, mut due) = (
        (p.src.as_ptr() as usize)
            .wrapping_add(p.base)
            .wrapping_add(READ_AHEAD)
            .wrapping_add((start / rows).wrapping_mul(64))
            & !63,
        start % rows,
    );
    for (i, &r) in p.rows.rows()[p.range.clone()].iter().enumerate() {
        if READS_AHEAD {
            due += span;
            while due >= rows {
                prefetch(line as *const u8);
                line = line.wrapping_add(64);
                due -= rows;
            }
        }
        if i >= from {
            if let Some(&line) = jump.next() {
                prefetch(line as *const u8);
            }
        }
        // SAFETY: `used < 64` here and `out_row <= STAGE_ROW_MAX` (`streams`), so the
        // row lies inside the buffer; the buffer does not overlap the input.
        unsafe { plane_row(p, ends, r, st.add(used)) };
        used += p.out_row;
        let lines = used / 64;
        let mut k = 0;
        if skip > 0 && lines > 0 {
            // SAFETY: the output's first line: the buffer's bytes `skip..64` (written
            // by rows, which cover every byte they span: `streams`) are the output's
            // first `64 - skip` bytes, all inside `out` (`used` counts only its
            // bytes, and `used >= 64`).
            unsafe { std::ptr::copy_nonoverlapping(st.add(skip), o, 64 - skip) };
            (done, skip, k) = (64 - skip, 0, 1);
        }
        // SAFETY: the lines `k..lines` (buffer bytes `64 * k .. 64 * lines <= used`)
        // were written by rows (or moved to the buffer's start); they are the output's
        // bytes `done..done + 64 * (lines - k)`, inside `out`, starting at a 64-byte
        // aligned address (the first line ended on a boundary).
        unsafe { stream_lines(st.add(64 * k), o.add(done), lines - k, avx) };
        done += 64 * (lines - k);
        // SAFETY: the partial last line moves to the buffer's start as one 64-byte
        // move (not a call): `64 * lines + 64 <= used + 64 <= STAGE_ROW_MAX + 127`
        // lies inside the buffer, all of whose bytes are initialized (`Stage::new`);
        // the bytes beyond `used` are overwritten by the next rows before they count.
        unsafe { move64(st.add(64 * lines), st) };
        used -= 64 * lines;
    }
    debug_assert_eq!(done + used - skip, out.len());
    // SAFETY: the rest, the buffer's bytes `skip..used`, are the output's last ones.
    unsafe { std::ptr::copy_nonoverlapping(st.add(skip), o.add(done), used - skip) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where outputs start within a 64-byte line: every offset (a sample under Miri,
    /// which runs these loops some thousand times slower).
    fn leads() -> impl Iterator<Item = usize> {
        (0..64).step_by(if cfg!(miri) { 9 } else { 1 })
    }

    /// Edges of rows of 24 bytes from input rows of 20 (the copy of input bytes 0..20
    /// to 2..22): the first two bytes from input bytes 18, 19 (window a), the last two
    /// the constant 7; window b holds the copy's bytes.
    fn edges(ssse3: Ssse3) -> Edges {
        let none = Blend16::NONE;
        let blank = Blend16 {
            a: [none; 16],
            b: [none; 16],
            fill: [0; 16],
        };
        let (mut left, mut right) = (blank, blank);
        left.a[..2].copy_from_slice(&[14, 15]);
        for i in 2..16 {
            left.b[i] = i as u8 - 2;
        }
        for i in 0..14 {
            right.b[i] = i as u8 + 2;
        }
        right.fill[14..].copy_from_slice(&[7, 7]);
        Edges {
            ssse3,
            left: [4, 0],
            right: [4, 4],
            left_blend: left,
            right_blend: right,
        }
    }

    fn plane<'a>(
        src: &'a [u8],
        rows: &'a RowMap,
        constant_row: &'a [u8],
        ends: Ends<'a>,
    ) -> CopyPlane<'a> {
        CopyPlane {
            src,
            base: 0,
            stride: 20,
            rows,
            range: 0..rows.rows().len(),
            in_row: 20,
            out_row: 24,
            constant_row,
            copy: RowCopy {
                at: 2,
                from: 0,
                len: 20,
            },
            ends,
            jump: &[],
        }
    }

    /// Planes whose input spans `READ_AHEAD_PLANE_MIN` bytes or more, in rows of
    /// `READ_AHEAD_ROW_MIN` or more, take the staged loop that prefetches ahead (its own
    /// copy of the loop): written whole or in parts (a thread's share), staged or not,
    /// they are the same, and the prefetches past the input's end change nothing.
    #[test]
    fn copy_plane_reading_ahead() {
        const ROW: usize = 260;
        let src: Vec<u8> = (0..1001 * ROW).map(|i| (i % 251) as u8).collect();
        let rows = RowMap::new(
            (0..512u32)
                .map(|k| match k % 4 {
                    0 => 1000,
                    1 => RowMap::CONSTANT,
                    _ => k * 7 % 1001,
                })
                .collect(),
        );
        let Some(ssse3) = Cpu::get().ssse3() else {
            return;
        };
        let e = edges(ssse3);
        let (constant_row, open_fill) = ([9u8; ROW + 4], [9u8; ROW]);
        let planes = [
            wide_plane(&src, &rows, &constant_row, (ROW, 2), Ends::Blend(&e)),
            wide_plane(&src, &rows, &constant_row, (ROW, 2), Ends::Constant),
            wide_plane(&src, &rows, &open_fill, (ROW, 0), Ends::Open),
        ];
        let mut stage = Stage::new();
        for whole in planes {
            assert!(whole.reads_ahead() && whole.streams(), "{:?}", whole.ends);
            let len = 512 * whole.out_row;
            let mut want = vec![0xAAu8; len];
            assert!(copy_plane(&whole, None, Cpu::get(), &mut want));
            assert_eq!(want[whole.out_row..2 * whole.out_row], *whole.constant_row);
            for (range, lead) in [(0..512, 0), (0..512, 37), (100..400, 5), (450..512, 63)] {
                let part = CopyPlane {
                    range: range.clone(),
                    ..whole
                };
                let n = range.len() * whole.out_row;
                let mut buf = vec![0xAAu8; n + 128];
                let at = buf.as_ptr().align_offset(64) + lead;
                assert!(copy_plane(
                    &part,
                    Some(&mut stage),
                    Cpu::get(),
                    &mut buf[at..at + n]
                ));
                let w = &want[range.start * whole.out_row..range.end * whole.out_row];
                assert_eq!(
                    &buf[at..at + n],
                    w,
                    "{:?} {range:?} lead {lead}",
                    whole.ends
                );
                assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
            }
        }
        // Shorter rows, or a smaller plane, keep the loop without.
        let short = plane(&src, &rows, &constant_row[..24], Ends::Constant);
        assert!(short.plane_in() >= READ_AHEAD_PLANE_MIN && !short.reads_ahead());
        let few = RowMap::new(vec![0, 1, 2]);
        let small = wide_plane(&src, &few, &constant_row, (ROW, 2), Ends::Constant);
        assert!(small.in_row >= READ_AHEAD_ROW_MIN && !small.reads_ahead());
    }

    /// A row stored around the cache is the row, at any alignment and width (16-byte
    /// aligned multiples of 16 take the non-temporal stores).
    #[test]
    fn rows_stored_around_the_cache() {
        fn check<const W: usize>() {
            let v: [u8; W] = std::array::from_fn(|i| i as u8 + 1);
            let mut buf = vec![0u8; W + 64];
            for at in 0..32 {
                let base = buf.as_ptr().align_offset(16) + at;
                buf.fill(0);
                crate::arch::store_around_cache(&mut buf[base..base + W], &v);
                crate::arch::fence();
                assert_eq!(buf[base..base + W], v, "{W} at {at}");
                assert!(buf[..base].iter().chain(&buf[base + W..]).all(|&b| b == 0));
            }
        }
        check::<8>();
        check::<16>();
        check::<32>();
        check::<64>();
    }

    /// A plane of input rows of `row` bytes, each copied whole to `copy_at` in an
    /// output row as long as `constant_row`.
    fn wide_plane<'a>(
        src: &'a [u8],
        rows: &'a RowMap,
        constant_row: &'a [u8],
        (row, copy_at): (usize, usize),
        ends: Ends<'a>,
    ) -> CopyPlane<'a> {
        CopyPlane {
            stride: row,
            in_row: row,
            out_row: constant_row.len(),
            copy: RowCopy {
                at: copy_at,
                from: 0,
                len: row,
            },
            ..plane(src, rows, constant_row, ends)
        }
    }

    /// A plane written through the staging buffer (where the CPU has AVX2) equals
    /// the plane written directly, wherever the output starts within a line; planes
    /// whose rows leave bytes unwritten, or too short, are not staged.
    #[test]
    fn copy_plane_streamed_equals_direct() {
        let src: Vec<u8> = (0..60).collect();
        let constant_row = [9u8; 24];
        let rows = RowMap::new(
            (0..512)
                .map(|k| [2, RowMap::CONSTANT, 0, 1][k % 4])
                .collect(),
        );
        let Some(ssse3) = Cpu::get().ssse3() else {
            return;
        };
        let e = edges(ssse3);
        let mut p = plane(&src, &rows, &constant_row, Ends::Blend(&e));
        assert!(p.streams());
        let len = 512 * 24;
        let mut want = vec![0xAAu8; len];
        assert!(copy_plane(&p, None, Cpu::get(), &mut want));
        let mut stage = Stage::new();
        for lead in leads() {
            let mut buf = vec![0xAAu8; len + 128];
            let at = buf.as_ptr().align_offset(64) + lead;
            assert!(copy_plane(
                &p,
                Some(&mut stage),
                Cpu::get(),
                &mut buf[at..at + len]
            ));
            assert_eq!(buf[at..at + len], want[..], "lead {lead}");
            assert!(buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0xAA));
        }
        // Lines to prefetch (hints: the output is the same): fewer than the rows, and
        // more (the surplus prefetched as the plane starts).
        let lines: Vec<usize> = (0..600).map(|k| src.as_ptr() as usize + k * 64).collect();
        for n in [0, 5, 504, 505, 600] {
            p.jump = &lines[..n];
            let mut buf = vec![0xAAu8; len];
            assert!(copy_plane(&p, Some(&mut stage), Cpu::get(), &mut buf));
            assert_eq!(buf, want, "{n} lines ahead");
        }
        p.jump = &[];
        // The constant before and after the copy, directly and staged.
        let constant_ends = plane(&src, &rows, &constant_row, Ends::Constant);
        assert!(constant_ends.streams());
        let mut direct = vec![0xAAu8; len];
        assert!(copy_plane(&constant_ends, None, Cpu::get(), &mut direct));
        let mut row1 = vec![9u8, 9];
        row1.extend(20..40);
        row1.extend([9, 9]);
        assert_eq!(direct[72..96], row1[..]);
        let mut buf = vec![0xAAu8; len + 64];
        assert!(copy_plane(
            &constant_ends,
            Some(&mut stage),
            Cpu::get(),
            &mut buf[5..5 + len]
        ));
        assert_eq!(buf[5..5 + len], direct[..]);
        // Rows longer than STAGE_ROW_MAX: their whole lines inside the copy straight
        // from the input; with the constant around the copy, or nothing (the bytes
        // around it then untouched).
        let long_src: Vec<u8> = (0..3 * 2100).map(|i| (i % 251) as u8).collect();
        let long_fill = vec![7u8; 2110];
        let long_rows = RowMap::new(vec![2, RowMap::CONSTANT, 0, 1]);
        for ends in [Ends::Constant, Ends::Open] {
            let long = wide_plane(&long_src, &long_rows, &long_fill, (2100, 5), ends);
            let n = 4 * 2110;
            let mut want = vec![0xAAu8; n];
            assert!(copy_plane(&long, None, Cpu::get(), &mut want));
            assert_eq!(want[2110 * 3 + 5..2110 * 4 - 5], long_src[2100..4200]);
            for lead in leads() {
                let mut buf = vec![0xAAu8; n + 128];
                let at = buf.as_ptr().align_offset(64) + lead;
                assert!(copy_plane(
                    &long,
                    Some(&mut stage),
                    Cpu::get(),
                    &mut buf[at..at + n]
                ));
                assert_eq!(buf[at..at + n], want[..], "{ends:?} lead {lead}");
                assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
            }
        }
        // Single elements around the copy, one by one (`copy_plane_singles`): each row's
        // first two bytes from its input bytes 10 and 11 (one 2-byte element), its
        // last two from 0 and 1; the same with or without streaming (short rows are
        // never staged).
        let singles = Singles {
            size: 2,
            at: vec![(0, 10), (22, 0)],
        };
        let pk = plane(&src, &rows, &constant_row, Ends::Open);
        let mut direct = vec![0xAAu8; len];
        assert!(copy_plane_singles(
            &pk,
            &singles,
            false,
            Cpu::get(),
            &mut direct
        ));
        let mut row1 = vec![30u8, 31];
        row1.extend(20..40);
        row1.extend([20, 21]);
        assert_eq!(direct[72..96], row1[..]);
        assert_eq!(direct[24..48], constant_row[..]);
        let mut buf = vec![0xAAu8; len + 64];
        assert!(copy_plane_singles(
            &pk,
            &singles,
            true,
            Cpu::get(),
            &mut buf[7..7 + len]
        ));
        assert_eq!(buf[7..7 + len], direct[..]);
        // Long rows: their whole lines inside the copy around the cache, at every
        // offset; elements outside a row, of a size without a loop, or ends other
        // than `Open` are refused, nothing written.
        let long_singles = Singles {
            size: 4,
            at: vec![(0, 8), (2104, 100)],
        };
        let mut long = wide_plane(
            &long_src,
            &long_rows,
            &long_fill[..2108],
            (2100, 4),
            Ends::Open,
        );
        let n = 4 * 2108;
        let mut want = vec![0xAAu8; n];
        assert!(copy_plane_singles(
            &long,
            &long_singles,
            false,
            Cpu::get(),
            &mut want
        ));
        assert_eq!(want[..4], long_src[4200 + 8..4200 + 12]);
        assert_eq!(want[4..2104], long_src[4200..6300]);
        assert_eq!(want[2104..2108], long_src[4200 + 100..4200 + 104]);
        assert_eq!(want[2108..4216], long_fill[..2108]);
        for lead in leads() {
            let mut buf = vec![0xAAu8; n + 128];
            let at = buf.as_ptr().align_offset(64) + lead;
            assert!(copy_plane_singles(
                &long,
                &long_singles,
                true,
                Cpu::get(),
                &mut buf[at..at + n]
            ));
            assert_eq!(buf[at..at + n], want[..], "singles lead {lead}");
            assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
        }
        let bads = [(4, (2105, 0)), (4, (0, 2097)), (5, (0, 0))];
        for (size, at) in bads {
            let bad = Singles { size, at: vec![at] };
            let mut buf = vec![0xAAu8; n];
            assert!(!copy_plane_singles(&long, &bad, true, Cpu::get(), &mut buf));
            assert!(buf.iter().all(|&b| b == 0xAA));
        }
        long.ends = Ends::Constant;
        let mut buf = vec![0xAAu8; n];
        assert!(!copy_plane_singles(
            &long,
            &long_singles,
            true,
            Cpu::get(),
            &mut buf
        ));
        assert!(buf.iter().all(|&b| b == 0xAA));
        // A copy that leaves bytes between it and the blends, no blends around a
        // partial copy, a plane under STAGE_PLANE_MIN bytes: written directly.
        p.copy.at = 17;
        assert!(!p.streams());
        let mut p = plane(&src, &rows, &constant_row, Ends::Open);
        assert!(!p.streams());
        let short = RowMap::new(vec![0; 42]);
        (p.rows, p.range, p.copy.at, p.copy.len, p.out_row) = (&short, 0..42, 0, 20, 20);
        assert!(!p.streams());
    }

    #[test]
    fn copy_plane_rows_and_limits() {
        let src: Vec<u8> = (0..60).collect();
        let constant_row = [9u8; 24];
        let rows = RowMap::new(vec![2, RowMap::CONSTANT, 0]);
        // Without edges: the copy alone, the bytes around it untouched.
        let mut out = [0xAAu8; 72];
        assert!(copy_plane(
            &plane(&src, &rows, &constant_row, Ends::Open),
            None,
            Cpu::get(),
            &mut out
        ));
        let row = |r: u8, left: [u8; 2], right: [u8; 2]| {
            let mut v = left.to_vec();
            v.extend(r * 20..r * 20 + 20);
            v.extend(right);
            v
        };
        assert_eq!(out[..24], row(2, [0xAA; 2], [0xAA; 2])[..]);
        assert_eq!(out[24..48], constant_row);
        assert_eq!(out[48..], row(0, [0xAA; 2], [0xAA; 2])[..]);
        let Some(ssse3) = Cpu::get().ssse3() else {
            return;
        };
        let e = edges(ssse3);
        let mut out = [0xAAu8; 72];
        assert!(copy_plane(
            &plane(&src, &rows, &constant_row, Ends::Blend(&e)),
            None,
            Cpu::get(),
            &mut out
        ));
        assert_eq!(out[..24], row(2, [58, 59], [7, 7])[..]);
        assert_eq!(out[24..48], constant_row);
        assert_eq!(out[48..], row(0, [18, 19], [7, 7])[..]);
        // Every read or write that would leave its slice is refused, nothing written.
        let past_input = RowMap::new(vec![3]);
        let mut bad = vec![plane(&src, &past_input, &constant_row, Ends::Open)];
        let mut p = plane(&src, &rows, &constant_row, Ends::Open);
        p.base = 1;
        bad.push(p);
        let mut p = plane(&src, &rows, &constant_row, Ends::Open);
        p.stride = usize::MAX / 2;
        bad.push(p);
        let mut p = plane(&src, &rows, &constant_row, Ends::Open);
        p.copy.len = 21;
        bad.push(p);
        let mut p = plane(&src, &rows, &constant_row, Ends::Open);
        p.copy.at = 5;
        bad.push(p);
        bad.push(plane(&src, &rows, &constant_row[..23], Ends::Open));
        let mut far = e;
        far.right[1] = 5;
        bad.push(plane(&src, &rows, &constant_row, Ends::Blend(&far)));
        let mut huge = e;
        huge.left[0] = usize::MAX;
        bad.push(plane(&src, &rows, &constant_row, Ends::Blend(&huge)));
        let narrow = [9u8; 12];
        let mut p = plane(&src, &rows, &narrow, Ends::Blend(&e));
        (p.out_row, p.copy.at, p.copy.len) = (12, 0, 12);
        bad.push(p);
        for (k, p) in bad.iter().enumerate() {
            let mut out = [0xAAu8; 72];
            let len = p.range.len() * p.out_row;
            assert!(
                !copy_plane(p, None, Cpu::get(), &mut out[..len]),
                "case {k}"
            );
            assert_eq!(out, [0xAA; 72], "case {k}");
        }
        let mut short = [0xAAu8; 71];
        assert!(!copy_plane(
            &plane(&src, &rows, &constant_row, Ends::Open),
            None,
            Cpu::get(),
            &mut short
        ));
    }
}
