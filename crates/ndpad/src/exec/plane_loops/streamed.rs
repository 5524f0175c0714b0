//! The plane loops around the cache: [`plane_rows_joined`] streams a crop's lines
//! straight from the input, joining two rows' bytes where a line spans them;
//! [`plane_rows_seamed`] streams rows with blended ends the same way, moving the ends
//! of two rows into place in registers where a half-line spans them;
//! [`plane_rows_streamed`] stages rows in a small buffer ([`Stage`]) and stores whole
//! lines with non-temporal stores; [`plane_rows_long`] streams long rows' lines
//! straight from the input, and [`plane_rows_framed`] long rows between runs of the
//! constant, the constant's lines streamed too.

#![allow(unsafe_code)]

// All here but `Stage` (which the executor makes on every target) is x86_64's alone:
// the loops run only in `copy_plane`'s AVX2 functions.
#[cfg(target_arch = "x86_64")]
use crate::arch::{
    copy_run, move64, prefetch, prefetch_lines, read_ahead, seamed, stream_half, stream_joined,
    stream_lines, stream_lines_ahead, stream_seamed, Avx, Avx2, Seam, LINE,
};
use crate::tune::STAGE_ROW_MAX;
#[cfg(target_arch = "x86_64")]
use crate::tune::{JUMP_TAIL_ROWS, READ_AHEAD};

#[cfg(target_arch = "x86_64")]
use super::rows::{plane_row, RowEnds};
#[cfg(target_arch = "x86_64")]
use super::{CopyPlane, Edges, Ends, RowMap};

/// [`plane_rows`] around the cache for rows longer than [`STAGE_ROW_MAX`] (staged,
/// a row's loads and then its stores would come in bursts): the whole output lines
/// inside each row's copy (clear of blended ends) are written with non-temporal
/// stores straight from the input, read [`READ_AHEAD`] ahead
/// ([`stream_lines_ahead`]), the rest of the row as [`plane_row`] writes it, with
/// ordinary stores (faster on long rows than staging them, writing them directly or
/// `memcpy` calls).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn plane_rows_long<E: RowEnds>(p: &CopyPlane<'_>, ends: E, avx: Avx, out: &mut [u8]) {
    let (copy_end, o) = (p.copy.at + p.copy.len, out.as_mut_ptr());
    // The part of a row's copy that may go around the cache.
    let (lo, hi) = ends.open_part(p);
    prefetch_lines(p.jump);
    for (k, &r) in p.rows.rows()[p.range.clone()].iter().enumerate() {
        // SAFETY: `fits` checked that `out` holds exactly `range.len()` rows of
        // `out_row` bytes, so `d` starts a row of `out`; the copy and the ends as in
        // `plane_row`. The lines streamed, `a..b` of the row, lie inside the copy's
        // part `lo..hi` (so they are written once, by nothing else), `d + a` is
        // 64-byte aligned, and their source is the copy's; a row of the constant
        // (over `STAGE_ROW_MAX`, so two lines or more) from `constant_row`, a row
        // long.
        unsafe {
            let d = o.add(k * p.out_row);
            if r == RowMap::CONSTANT {
                stream_row(p, d, avx);
                continue;
            }
            let s = p.src.as_ptr().add(p.base + r as usize * p.stride);
            // The input byte of output byte `i` of the copy (`copy_at <= i <=
            // copy_end`).
            let from = |i: usize| s.add(p.copy.from + (i - p.copy.at));
            let row = d as usize;
            let a = (row + lo).next_multiple_of(64) - row;
            let b = ((row + hi) & !63).saturating_sub(row);
            // The lines this row ends in and those the next row starts in, which take
            // ordinary stores: asked for a row ahead of those stores, so that they do
            // not wait on their reads from memory (a hint: any address). The next
            // row's head is taken as this row's `a` long (within a line of its own;
            // computing it exactly ran 4% slower on the f32 1080x1920 image, 0 of 4
            // paired rounds).
            for x in (b..p.out_row + a).step_by(LINE) {
                crate::arch::prefetch(d.wrapping_add(x));
            }
            if b > a {
                copy_run(from(p.copy.at), d.add(p.copy.at), a - p.copy.at);
                stream_lines_ahead(from(a), d.add(a), (b - a) / 64, avx);
                copy_run(from(b), d.add(b), copy_end - b);
            } else {
                copy_run(from(p.copy.at), d.add(p.copy.at), p.copy.len);
            }
            ends.write(p, s, d);
        }
    }
}

/// Writes a row of the constant at `d`, its whole lines with non-temporal stores
/// ([`stream_constant`]; the rows of the constant of the long-row loops).
///
/// # Safety
/// `d` must be valid for writes of a row, `out_row >= 2 * LINE` bytes, and
/// `constant_row` a row long.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stream_row(p: &CopyPlane<'_>, d: *mut u8, avx: Avx) {
    let (c, w) = (p.constant_row.as_ptr(), p.out_row);
    let a = (d as usize).next_multiple_of(LINE) - d as usize;
    let b = ((d as usize + w) & !(LINE - 1)) - d as usize;
    // The line the row ends in, asked for a row ahead of its ordinary stores.
    crate::arch::prefetch(d.wrapping_add(b));
    // SAFETY: `a < LINE <= b <= w` (a row of two lines or more holds a whole line),
    // `d + a` 64-byte aligned; every move lies inside the row and `constant_row`.
    unsafe {
        std::ptr::copy_nonoverlapping(c, d, a);
        stream_constant(p, a, d.add(a), (b - a) / LINE, avx);
        std::ptr::copy_nonoverlapping(c.add(b), d.add(b), w - b);
    }
}

/// Streams `lines` whole lines of the constant to `d`, bytes `x..` of an output row:
/// where `constant_row` repeats within its first `constant_period + LINE` bytes, from
/// those (a long row's constant is then read from the L1 cache, not from wherever
/// the rest of the row was evicted to: a batch of images letterboxed on their rows,
/// 2.8 MB rows, ran 0.61 of a non-temporal copy), else from its bytes `x..`.
///
/// # Safety
/// `d` must be valid for writes of `lines` lines, 64-byte aligned; `x + lines *
/// LINE <= constant_row.len()`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn stream_constant(
    p: &CopyPlane<'_>,
    x: usize,
    d: *mut u8,
    lines: usize,
    avx: Avx,
) {
    let (c, period) = (p.constant_row.as_ptr(), p.constant_period.max(1));
    if period + LINE > p.constant_row.len() {
        // SAFETY: as the caller vouches.
        unsafe { stream_lines(c.add(x), d, lines, avx) };
        return;
    }
    let mut done = 0;
    while done < lines {
        let o = (x + done * LINE) % period;
        let n = ((period - o) / LINE + 1).min(lines - done);
        // SAFETY: `o < period`, so the `n` lines read end by `o + (period - o) + LINE
        // <= constant_row.len()`; the lines written are the caller's `done..done + n`.
        unsafe { stream_lines(c.add(o), d.add(done * LINE), n, avx) };
        done += n;
    }
}

/// [`plane_rows`] around the cache for long rows of one copy between runs of the
/// constant ([`Ends::Constant`], [`CopyPlane::frames`]): every whole output line of a
/// row goes out with a non-temporal store, from the constant row, from the input, or
/// where the copy starts or ends inside it, from both joined in registers
/// ([`stream_joined`]), the copy's lines read [`READ_AHEAD`] ahead
/// ([`stream_lines_ahead`]); a row of the constant as [`stream_row`] writes it. Only the
/// partial lines at the rows' two ends take ordinary stores. The wide runs of the
/// constant of a letterboxed image went through the cache in [`plane_rows_long`]
/// (u8 [1920,1080,3] padded to [1920,1920,3]: 0.66 of a non-temporal copy).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn plane_rows_framed(p: &CopyPlane<'_>, avx: Avx, out: &mut [u8]) {
    debug_assert!(p.frames());
    let (o, w, c) = (out.as_mut_ptr(), p.out_row, p.constant_row.as_ptr());
    prefetch_lines(p.jump);
    for (k, &r) in p.rows.rows()[p.range.clone()].iter().enumerate() {
        // SAFETY: `fits`: `out` holds `range.len()` rows of `w` bytes, so `d` starts
        // one; `constant_row` is a row long; each row read lies inside the input, its
        // copy of `len` bytes at `i` too, and a joined line reads less than a line
        // beyond the copy (`len >= 2 * LINE`: the line where it starts holds no byte
        // after its end), only where `joins` found that much input on that side.
        // Every move below stays inside the row: `a..b` are its whole lines, `d + a`
        // 64-byte aligned.
        unsafe {
            let d = o.add(k * w);
            if r == RowMap::CONSTANT {
                stream_row(p, d, avx);
                continue;
            }
            let a = (d as usize).next_multiple_of(LINE) - d as usize;
            let b = ((d as usize + w) & !(LINE - 1)) - d as usize;
            // The line this row ends and the next starts in (ordinary stores), asked
            // for a row ahead.
            crate::arch::prefetch(d.wrapping_add(b));
            // The row's runs: the constant up to `at`, the copy, the constant from
            // `end`. `joins`: the copy lies a line or more from either end of the
            // input, so that the lines where it starts and ends can read that far
            // beyond it.
            let (at, end) = (p.copy.at, p.copy.at + p.copy.len);
            let i = p.base + r as usize * p.stride + p.copy.from;
            let joins = i >= LINE && i + p.copy.len + LINE <= p.src.len();
            let s = p.src.as_ptr().add(i);
            // The input byte of output byte `i` of the copy (`i` may be less than a
            // line outside it, for the joined lines).
            let from = |i: usize| s.wrapping_add(i).wrapping_sub(at);
            // Bytes `lo..hi` (under a line) with ordinary stores, run by run.
            let ordinary = |lo: usize, hi: usize| {
                let x = at.clamp(lo, hi);
                let y = end.clamp(x, hi);
                std::ptr::copy_nonoverlapping(c.add(lo), d.add(lo), x - lo);
                std::ptr::copy_nonoverlapping(from(x), d.add(x), y - x);
                std::ptr::copy_nonoverlapping(c.add(y), d.add(y), hi - y);
            };
            ordinary(0, a);
            // Whole lines of the constant before the copy, the line where it starts,
            // its whole lines, the line where it ends, the constant after it.
            let x = a + at.saturating_sub(a).min(b - a) / LINE * LINE;
            stream_constant(p, a, d.add(a), (x - a) / LINE, avx);
            let mut x1 = x;
            if x < at && x < b {
                if joins {
                    stream_joined(c.add(x), from(x), at - x, d.add(x), avx);
                } else {
                    ordinary(x, x + LINE);
                }
                x1 += LINE;
            }
            let y = x1 + (end.min(b).max(x1) - x1) / LINE * LINE;
            stream_lines_ahead(from(x1), d.add(x1), (y - x1) / LINE, avx);
            let mut y1 = y;
            if y < end && y < b {
                if joins {
                    stream_joined(from(y), c.add(y), end - y, d.add(y), avx);
                } else {
                    ordinary(y, y + LINE);
                }
                y1 += LINE;
            }
            stream_constant(p, y1, d.add(y1), (b - y1) / LINE, avx);
            ordinary(b, w);
        }
    }
}

/// [`plane_rows`] around the cache for rows that are each one whole copy of a line or
/// more (a crop), none the constant ([`CopyPlane::joins`]): each whole output line is
/// read straight from the input, from the one row it lies in, or where it spans two
/// rows from both, their bytes joined in registers ([`stream_joined`]), and stored
/// with non-temporal stores, the input read [`READ_AHEAD`] bytes ahead of each line;
/// the partial lines at the plane's two ends take ordinary stores. No staging buffer:
/// reading back a buffer's lines just after the row's stores into it waited on those
/// stores (an AMD Zen 3 ran staged crops of 208-byte rows at 0.55-0.64x a
/// non-temporal copy, joined at 0.92; `docs/performance.md`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn plane_rows_joined(p: &CopyPlane<'_>, avx: Avx, out: &mut [u8]) {
    debug_assert!(p.joins());
    let (o, n, w) = (out.as_mut_ptr(), out.len(), p.out_row);
    let rows = &p.rows.rows()[p.range.clone()];
    // The input byte of output row `j`'s first byte.
    let row = |j: usize| {
        // SAFETY: `joins`: no row is the constant (`u32::MAX`) and there is one at
        // least, so by `fits` every row of the map starts inside the input, its copy
        // of `w` bytes from `copy.from` too (and by `joins` a line more on either
        // side).
        unsafe {
            p.src
                .as_ptr()
                .add(p.base + rows[j] as usize * p.stride + p.copy.from)
        }
    };
    prefetch_lines(p.jump);
    // The bytes up to the first line boundary (fewer than a line, so in row 0).
    let head = ((o as usize).next_multiple_of(LINE) - o as usize).min(n);
    // SAFETY: `head < 64 <= w` bytes of row 0's copy, into the output's first bytes.
    unsafe { std::ptr::copy_nonoverlapping(row(0), o, head) };
    let lines = (n - head) / LINE;
    let (mut j, mut col) = (0, head);
    for l in 0..lines {
        // SAFETY: `d` is the output's line `l` after the head, 64-byte aligned and
        // inside `out` (`head + 64 * lines <= n`). The line is output bytes `col..col
        // + 64` of row `j`, or where `k < 64` of them are left in row `j`, those and
        // row `j + 1`'s first `64 - k` (which exists: the line lies in the output).
        // The reads: row `j`'s copy from `col`, 64 bytes, up to `64 - k` past its end;
        // row `j + 1`'s copy from `k` bytes before its start; both inside the input
        // (`joins`: every row a line or more from its ends). The prefetch's address
        // is a hint, never read (`wrapping_add`: it may lie past the input).
        unsafe {
            let d = o.add(head + l * LINE);
            read_ahead(row(j).wrapping_add(col + READ_AHEAD));
            let k = w - col;
            if k >= LINE {
                stream_lines(row(j).add(col), d, 1, avx);
                col += LINE;
            } else {
                stream_joined(row(j).add(col), row(j + 1).sub(k), k, d, avx);
                (j, col) = (j + 1, LINE - k);
            }
        }
        if col == w {
            (j, col) = (j + 1, 0);
        }
    }
    let done = head + lines * LINE;
    if done < n {
        // SAFETY: the last `n - done < 64` output bytes, the rest of row `j` from
        // `col` (`n` ends a row).
        unsafe { std::ptr::copy_nonoverlapping(row(j).add(col), o.add(done), n - done) };
    }
}

/// [`plane_rows`] around the cache for rows with blended ends ([`Ends::Blend`]) of a
/// line to [`STAGE_ROW_MAX`] bytes ([`CopyPlane::seams`]), built in registers: each
/// 32-byte half-line of the output is read straight from its row's input (or the
/// constant row), or where it holds (part of) a seam, the 32 bytes around a boundary
/// between rows (the blended ends of both, [`Seam`]), that seam moved into place over
/// it ([`seamed`]), and stored with a non-temporal store. No ordinary store but the
/// partial half-lines at the part's two ends (and the constant row's copy into
/// `stage`, once, where the plane has rows of it): the staged loop's ordinary stores
/// into its buffer held rows under 400 bytes at 0.55-0.67 of a non-temporal copy on
/// an AMD Zen 3 (`docs/performance.md`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn plane_rows_seamed(
    p: &CopyPlane<'_>,
    e: &Edges,
    stage: &mut Stage,
    avx2: Avx2,
    out: &mut [u8],
) {
    debug_assert!(p.seams(out.as_ptr()));
    let (o, w) = (out.as_mut_ptr(), p.out_row as isize);
    let rows = &p.rows.rows()[p.range.clone()];
    let last = rows.len() - 1;
    // The output bytes `c..c + 32` of the row whose input row is `s` are the 32
    // input bytes at `at(s, c)`, where they are its copy's (`-16 <= c < w - 16`; the
    // bytes outside the copy are garbage, which the seams replace).
    let shift = p.copy.from as isize - p.copy.at as isize;
    let at = |s: *const u8, c: isize| s.wrapping_offset(shift + c);
    // The constant row, a line into the buffer (reads `c..c + 32` of it stay inside:
    // `w + 128 <= STAGE_ROW_MAX + 128`, the buffer's length), where the plane has it.
    let constant = stage.0.as_mut_ptr().wrapping_add(LINE);
    if p.rows.constant {
        // SAFETY: `constant_row` is a row long (`fits`), `w <= STAGE_ROW_MAX` bytes
        // from `LINE` in the buffer; the two do not overlap (one is borrowed mutably).
        unsafe { std::ptr::copy_nonoverlapping(p.constant_row.as_ptr(), constant, p.out_row) };
    }
    // The "input row" of output row `j`: where `at` finds its bytes.
    let row = |j: usize| match rows[j] {
        RowMap::CONSTANT => constant.wrapping_offset(-shift).cast_const(),
        // SAFETY: by `fits`, each row of the map starts inside the input.
        r => unsafe { p.src.as_ptr().add(p.base + r as usize * p.stride) },
    };
    let window = |s: *const u8, from: usize| {
        // SAFETY: `fits`: each of the edges' windows lies inside the input row.
        unsafe { &*s.add(from).cast::<[u8; 16]>() }
    };
    // The first 16 bytes of output row `j`, or with `end` its last 16.
    let edge = |j: usize, end: bool| -> [u8; 16] {
        let s = row(j);
        match (rows[j] == RowMap::CONSTANT, end) {
            // SAFETY: the buffer holds the constant row at `constant`, `w >= 64`
            // bytes (`seams`); `s` is `constant` less `shift`.
            (true, _) => unsafe {
                let c = if end { w - 16 } else { 0 };
                at(s, c).cast::<[u8; 16]>().read_unaligned()
            },
            (false, end) => e.end(end, |from| window(s, from)),
        }
    };
    let seam = |j: usize, next: usize| Seam::new(edge(j, true), edge(next, false));
    // Where the seam before output byte `c` of a row (at `-16`), or after it (at `w -
    // 16`), starts, in words from a half-line at `c`.
    let word = |seam_at: isize, c: isize| (seam_at - c) / 4;
    prefetch_lines(p.jump);
    // Output byte `c` of row `j` is the part's byte `pos = j * w + c`; half-lines
    // start at `c` in `-16..w - 16` of a row (one starting in a seam's first half
    // belongs to the row before), each 32-byte aligned in the output.
    let lead = ((o as usize).next_multiple_of(32) - o as usize) as isize;
    let mut before = seam(0, 0);
    // SAFETY (here and below): the 32-byte reads at `at(s, c)`, `c` in `-16..w - 16`,
    // lie from 32 bytes before the input row `s` to 28 after it (`shift >= -16`; the
    // copy reaches to within 16 bytes of the output row's end: `streams`), inside the
    // input (`seams`: every row read a line from its ends), or for the constant row
    // from 16 bytes before it to 16 after it, inside the buffer; the stores write the
    // part's bytes `pos..pos + 32` (or its first and last fewer), inside `out`,
    // 32-byte aligned (`pos - lead` is a multiple of 32); `rows` has a row at least
    // (`STAGE_PLANE_MIN` bytes: `streams`).
    unsafe {
        if lead > 0 {
            // The first `lead` bytes: row 0's, its left end from `before` (whose
            // first half is not the output's).
            let v = seamed(at(row(0), 0), before, word(-16, 0), avx2);
            std::ptr::copy_nonoverlapping(v.as_ptr(), o, lead as usize);
        }
        let (mut c, mut pos) = (lead, lead as usize);
        for j in 0..rows.len() {
            let s = row(j);
            if c < 16 {
                stream_seamed(at(s, c), before, word(-16, c), o.add(pos), avx2);
                (c, pos) = (c + 32, pos + 32);
            }
            // The input `READ_AHEAD` ahead, once a line (without, rows of 472 bytes
            // ran 5-10% slower than staged with it; once a half-line, 4-8% slower
            // than this), and once more where the inner steps end, so that short
            // rows' last lines are read ahead too.
            while c + 80 <= w {
                read_ahead(at(s, c).wrapping_add(READ_AHEAD));
                stream_half(at(s, c), o.add(pos), avx2.avx());
                stream_half(at(s, c + 32), o.add(pos + 32), avx2.avx());
                (c, pos) = (c + 64, pos + 64);
            }
            read_ahead(at(s, c).wrapping_add(READ_AHEAD));
            if c + 48 <= w {
                stream_half(at(s, c), o.add(pos), avx2.avx());
                (c, pos) = (c + 32, pos + 32);
            }
            let after = seam(j, (j + 1).min(last));
            if c < w - 16 {
                if j == last && c + 32 > w {
                    // The part's last bytes, row `last`'s from `c`.
                    let v = seamed(at(s, c), after, word(w - 16, c), avx2);
                    std::ptr::copy_nonoverlapping(v.as_ptr(), o.add(pos), (w - c) as usize);
                    return;
                }
                stream_seamed(at(s, c), after, word(w - 16, c), o.add(pos), avx2);
                (c, pos) = (c + 32, pos + 32);
            }
            (c, before) = (c - w, after);
        }
        if c < 0 {
            // The part's last `-c` bytes: the last row's right end, from `before`.
            let v = seamed(at(row(last), c), before, word(-16, c), avx2);
            std::ptr::copy_nonoverlapping(v.as_ptr(), o.add(pos), (-c) as usize);
        }
    }
}

/// The staging buffer of [`plane_rows_streamed`]: a row and a line on each side, in
/// whole 64-byte lines. One per thread's part of an output (made by the executor).
/// Within one page (aligned to one, and shorter): a row's unaligned stores that split
/// across two pages made the staged loop 4.5-6x slower on the Zen 3, wherever the
/// allocator happened to place the buffer near a page's end (docs/performance.md).
#[repr(C, align(4096))]
pub(crate) struct Stage([u8; STAGE_ROW_MAX + 128]);

// One page holds the whole buffer.
const _: () = assert!(std::mem::size_of::<Stage>() == 4096);

impl Stage {
    pub(crate) fn new() -> Box<Stage> {
        Box::new(Stage([0; STAGE_ROW_MAX + 128]))
    }
}

/// [`plane_rows_streamed`], with or without reading ahead (`p.reads_ahead()`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn plane_staged(
    p: &CopyPlane<'_>,
    ends: Ends<'_>,
    stage: &mut Stage,
    avx: Avx,
    out: &mut [u8],
) {
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
#[cfg(target_arch = "x86_64")]
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
                read_ahead(line as *const u8);
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
