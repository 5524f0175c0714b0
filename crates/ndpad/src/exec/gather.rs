//! Inputs whose rows are not laid out in C order (a step on the last axis, a
//! transpose): the output is cut into boxes of about [`GATHER_BOX_BYTES`], and each
//! box's reads ([`Plan::window`] with [`Source::Reads`]) are gathered into a buffer
//! in C order, which stays in the cache while the box's window pads it (around the
//! cache where the whole output goes so: [`PadOptions::stream_min_bytes`]). Each input
//! element is read once from where it lies and each output byte written once, as
//! numpy.pad does with its one strided copy into the output's middle; a copy of the
//! whole input to C order first read and wrote every input byte once more. An input
//! of one box's size or less, and the input of a window's plan (which keeps no spec to
//! cut boxes from), are gathered whole and padded as C-ordered inputs. On AMD CPUs,
//! rows that are each a line of elements a short step apart are padded where they lie,
//! row by row, instead ([`super::stepped`]).

use std::ops::Range;

use crate::arch::{transpose_square, with_avx2, Cpu, TRANSPOSES};
use crate::error::PadError;
use crate::index::{c_strides, next_index};
use crate::options::{PadOptions, Stopper};
use crate::plan::{Plan, Source};
use crate::spec::PadSpec;
use crate::tensor::{Data, DataMut};
use crate::tune::{
    GATHER_BOX_BYTES, GATHER_BOX_MAX, GATHER_REUSE_LINES, GATHER_SPAN, GATHER_TILE_ROWS,
};

use super::stepped::{run_stepped, stepped};
use super::threads::{asked, for_bytes, try_share};

/// An input as it lies: its bytes from its first element to the end of its last,
/// the byte strides of its axes (none negative), and its elements' bytes.
#[derive(Clone, Copy)]
pub(super) struct Strided<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) strides: &'a [usize],
    pub(super) w: usize,
}

/// Pads `src`, an input of `plan` (the bytes its strides reach checked by the
/// caller), into `out` (C order): box by box on the threads `opts` asks for, or
/// gathered whole and padded as a C-ordered input where it fits a box (one gather
/// instead of a window per box: a small input padded to a large output) or the plan
/// is a window's (it keeps no spec to cut boxes from).
pub(super) fn run_gathered(
    plan: &Plan,
    src: Strided<'_>,
    out: &mut [u8],
    opts: &PadOptions,
) -> Result<(), PadError> {
    if plan.out_numel == 0 {
        return Ok(());
    }
    match &plan.spec {
        Some(_)
            if plan.in_numel.saturating_mul(src.w) > GATHER_BOX_BYTES
                && stepped(
                    plan,
                    src,
                    Cpu::get().is_amd(),
                    opts.beyond_cache(plan.output_bytes()),
                ) =>
        {
            run_stepped(plan, src, out, opts)
        }
        Some(spec) if plan.in_numel.saturating_mul(src.w) > GATHER_BOX_BYTES => {
            run_boxes(plan, spec, src, out, opts)
        }
        _ => {
            let reads: Vec<Vec<Range<usize>>> = plan
                .in_shape
                .iter()
                .map(|&n| std::iter::once(0..n).collect())
                .collect();
            let mut buf = Vec::new();
            let read = gather(src, &reads, &mut buf)?;
            super::run(
                plan,
                Data::Bytes(&buf[..read]),
                &mut DataMut::Bytes(out),
                opts,
            )?;
            Ok(())
        }
    }
}

/// [`run_gathered`] box by box, the boxes' windows planned from `spec`.
fn run_boxes(
    plan: &Plan,
    spec: &PadSpec,
    src: Strided<'_>,
    out: &mut [u8],
    opts: &PadOptions,
) -> Result<(), PadError> {
    let shape = &plan.out_shape;
    let boxes = Boxes::new(shape, src.w, src.strides);
    let bytes = out.len();
    let stopper = Stopper::new(asked(opts, bytes));
    let threads = for_bytes(opts, bytes);
    // Boxes to a part: a part's boxes share one buffer.
    let per = stopper.part_len(threads, boxes.count, boxes.largest());
    let mut parts = Vec::with_capacity(boxes.count.div_ceil(per));
    let mut rest = out;
    for first in (0..boxes.count).step_by(per) {
        let end = (first + per).min(boxes.count);
        let len: usize = (first..end).map(|b| boxes.bytes(b)).sum();
        let len = len.min(rest.len());
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(len);
        rest = tail;
        parts.push((first..end, part));
    }
    // Each box is written by the calling thread of its part, and asks nothing; around
    // the cache where the whole output goes so (a box on its own would be taken as
    // small, and through the cache each box's output lines were read before being
    // written: f32 [2000,4000][:, ::2] reflect 8, one thread, cold, 5.2 -> 4.2 ms).
    let one = PadOptions {
        threads: 1,
        interrupt: None,
        max_output_bytes: None,
        stream_min_bytes: match opts.around_cache(bytes) {
            true => 0,
            false => usize::MAX,
        },
        ..opts.clone()
    };
    try_share(threads, parts.into_iter(), &stopper, |(range, part)| {
        let mut buf = Vec::new();
        let mut at = 0;
        for b in range {
            let n = boxes.bytes(b);
            let window = Plan::window(
                plan.dtype,
                &plan.in_shape,
                spec,
                &boxes.at(b),
                Source::Reads,
            )?;
            let read = gather(src, &window.reads, &mut buf)?;
            let len = part.len();
            let dst = part
                .get_mut(at..at + n)
                .ok_or_else(|| PadError::OutputMismatch {
                    expected: format!("{n} bytes at {at}"),
                    got: format!("{len} bytes"),
                })?;
            super::run(
                &window.plan,
                Data::Bytes(&buf[..read]),
                &mut DataMut::Bytes(dst),
                &one,
            )?;
            at += n;
        }
        Ok(())
    })
}

/// The output cut into boxes that are whole in memory: one index of each axis before
/// the split axis `axis`, `per` indices of it (fewer in the last box of a run), every
/// index of the axes after it; in C order, so that each box follows the one before.
struct Boxes<'a> {
    shape: &'a [usize],
    axis: usize,
    per: usize,
    /// Boxes along the split axis, for each index of the axes before it.
    runs: usize,
    /// Bytes of one index of the split axis.
    step: usize,
    count: usize,
}

impl<'a> Boxes<'a> {
    fn new(shape: &'a [usize], w: usize, strides: &[usize]) -> Self {
        // Bytes of one index of each axis (an output of bytes that fit `usize`).
        let inner = c_strides(shape, w).unwrap_or_default();
        // The outermost axis whose index fits a box (the last one's is an element).
        let axis = inner
            .iter()
            .position(|&b| b <= GATHER_BOX_BYTES)
            .unwrap_or(shape.len().saturating_sub(1));
        let step = inner.get(axis).copied().unwrap_or(w);
        let extent = shape.get(axis).copied().unwrap_or(1);
        let per = (GATHER_BOX_BYTES / step.max(1)).clamp(1, extent.max(1));
        // Where the split axis's indices lie closer than `GATHER_SPAN` in the input
        // (NHWC read as NCHW: 32 channels of f32 in 128 bytes), a box of a multiple of
        // a span's indices reads the spans about once (about: the boxes start at output
        // coordinates, not at the spans' addresses), not once for each box sharing one.
        let stride = strides.get(axis).copied().unwrap_or(0);
        let mut share = match stride {
            // GATHER_SPAN / gcd(s, GATHER_SPAN), a power of two over a power of two.
            s if s > 0 && s < GATHER_SPAN => GATHER_SPAN >> s.trailing_zeros(),
            _ => 1,
        };
        let grown = |share: usize| per.next_multiple_of(share).min(extent.max(1));
        while share > 1 && grown(share).saturating_mul(step) > GATHER_BOX_MAX {
            share /= 2;
        }
        let per = grown(share);
        let runs = extent.div_ceil(per);
        let outer: usize = shape[..axis].iter().product();
        Boxes {
            shape,
            axis,
            per,
            runs,
            step,
            count: outer.saturating_mul(runs),
        }
    }

    /// Box `b`'s output coordinates.
    fn at(&self, b: usize) -> Vec<Range<usize>> {
        let (mut outer, run) = (b / self.runs, b % self.runs);
        // Every index of the axes after the split axis.
        let mut out: Vec<Range<usize>> = self.shape.iter().map(|&n| 0..n).collect();
        for a in (0..self.axis).rev() {
            let i = outer % self.shape[a];
            outer /= self.shape[a];
            out[a] = i..i + 1;
        }
        let start = run * self.per;
        out[self.axis] = start..(start + self.per).min(self.shape[self.axis]);
        out
    }

    /// The output bytes of the largest box.
    fn largest(&self) -> usize {
        self.per * self.step
    }

    /// Box `b`'s output bytes.
    fn bytes(&self, b: usize) -> usize {
        let start = (b % self.runs) * self.per;
        let len = self.per.min(self.shape[self.axis] - start);
        len * self.step
    }
}

/// The input elements at the coordinates `reads` (sorted intervals on each axis, laid
/// end to end: a window's input in C order) gathered from `src` into the start of
/// `buf` (grown where it is shorter); their bytes.
fn gather(
    src: Strided<'_>,
    reads: &[Vec<Range<usize>>],
    buf: &mut Vec<u8>,
) -> Result<usize, PadError> {
    let Strided { bytes, strides, w } = src;
    let dims: Vec<usize> = reads
        .iter()
        .map(|iv| iv.iter().map(Range::len).sum())
        .collect();
    let total = dims.iter().fold(w, |n, &d| n.saturating_mul(d));
    if buf.len() < total {
        // Grown once to the largest box's reads (every byte is written below).
        buf.try_reserve_exact(total - buf.len())
            .map_err(|_| PadError::OutOfMemory {
                shape: dims.clone(),
                bytes: total,
            })?;
        buf.resize(total, 0);
    }
    let (Some(last), Some(&stride)) = (reads.last(), strides.last()) else {
        return Ok(0);
    };
    if total == 0 {
        return Ok(0);
    }
    let order = memory_order(strides, &dims);
    // The byte offsets of the coordinates read on each axis (but C order's last, read
    // as runs).
    let axes = dims.len() - usize::from(order.is_none());
    let offsets: Vec<Vec<usize>> = reads[..axes]
        .iter()
        .zip(strides)
        .map(|(reads, &s)| {
            reads
                .iter()
                .flat_map(|r| r.clone())
                .map(|c| c * s)
                .collect()
        })
        .collect();
    let cpu = Cpu::get();
    let copy = Gathering {
        bytes,
        offsets: &offsets,
        dims: &dims,
        last: (last, stride),
        // x86_64 without AVX2 moves single bytes faster one by one.
        groups: w > 1 || cpu.has_avx2() || cfg!(not(target_arch = "x86_64")),
    };
    let buf = &mut buf[..total];
    let order = order.as_deref();
    // Compiled for AVX2 where the CPU has it: the steps read as groups ([`every`])
    // take 32-byte shuffles, about a half (f32) to a tenth (u8) of the time of the
    // element loop.
    with_avx2(
        cpu,
        #[inline(always)]
        || by_width!(w, W => copy.run::<W>(order, buf)),
    );
    Ok(total)
}

/// The gather's loops where C order would lose the input's lines between their uses:
/// the axis that lies closest in the input is not the last axis read (the buffer's
/// rows), and the coordinates of the axes read after it, each a line read before the
/// closest axis's next coordinate comes back to it, are more than
/// [`GATHER_REUSE_LINES`] (NHWC read as NCHW: a whole plane of pixels between two
/// channels). The closest axis and the rows' go last, as the tile's columns and rows;
/// the others before them by their strides, the largest first (axes of one coordinate
/// read and axes read without a stride, a broadcast, cost no reads and go first).
/// `None` where C order keeps those lines (a step on the last axis, NCHW read as NHWC).
pub(super) fn memory_order(strides: &[usize], dims: &[usize]) -> Option<Vec<usize>> {
    let read = |a: &usize| dims[*a] > 1 && strides[*a] > 0;
    let fastest = (0..dims.len()).filter(read).min_by_key(|&a| strides[a])?;
    let rows = (0..dims.len()).rfind(read)?;
    let between = (fastest + 1..dims.len())
        .filter(read)
        .fold(1usize, |n, a| n.saturating_mul(dims[a]));
    if between <= GATHER_REUSE_LINES {
        return None;
    }
    let mut order: Vec<usize> = (0..dims.len())
        .filter(|&a| a != rows && a != fastest)
        .collect();
    order.sort_by_key(|a| (read(a), std::cmp::Reverse(strides[*a])));
    order.extend([rows, fastest]);
    Some(order)
}

/// A gather's copy, worked out by [`gather`]: the input's bytes, the byte offsets of
/// the coordinates read on each axis (all but the last in C order), the coordinates
/// read on each axis, the last axis's intervals and stride, and whether steps of 2-4
/// elements are read as groups ([`elements`]).
struct Gathering<'a> {
    bytes: &'a [u8],
    offsets: &'a [Vec<usize>],
    dims: &'a [usize],
    last: (&'a [Range<usize>], usize),
    groups: bool,
}

impl Gathering<'_> {
    /// The copy into `buf` (C order) with elements of `W` bytes: in `order`
    /// ([`memory_order`]) where it is given, else in C order.
    #[inline(always)]
    fn run<const W: usize>(&self, order: Option<&[usize]>, buf: &mut [u8]) {
        match order {
            Some(order) => self.by_memory_order::<W>(order, buf),
            None => self.c_order::<W>(buf),
        }
    }

    /// C order: each last axis's intervals as runs of elements (the last axis's
    /// offsets, where given, unused).
    #[inline(always)]
    fn c_order<const W: usize>(&self, buf: &mut [u8]) {
        let (last, s) = self.last;
        let offsets = &self.offsets[..self.dims.len().saturating_sub(1)];
        let extents: Vec<usize> = offsets.iter().map(Vec::len).collect();
        let mut index = vec![0usize; extents.len()];
        let mut to = 0;
        loop {
            let base: usize = offsets.iter().zip(&index).map(|(o, &i)| o[i]).sum();
            for r in last {
                let (at, n) = (base + r.start * s, r.len());
                let dst = &mut buf[to..to + n * W];
                to += n * W;
                match s == W {
                    true => dst.copy_from_slice(&self.bytes[at..at + n * W]),
                    false => elements::<W>(self.bytes, at, s, dst, self.groups),
                }
            }
            if !next_index(&mut index, &extents) {
                return;
            }
        }
    }

    /// The loops in `order` (at least two axes; the last two copied as a [`Tile`]):
    /// the input read in the order it lies in memory, each element written to its
    /// place in C order in `buf`, a few streams of writes.
    #[inline(always)]
    fn by_memory_order<const W: usize>(&self, order: &[usize], buf: &mut [u8]) {
        let offsets = self.offsets;
        // The byte strides of the buffer (C order; its bytes fit, allocated by the
        // caller) and at least two axes in `order`: else C order, never a buffer left
        // unwritten.
        let (Some(step), (outer, &[m, i])) = (
            c_strides(self.dims, W),
            order.split_at(order.len().saturating_sub(2)),
        ) else {
            return self.c_order::<W>(buf);
        };
        let tile = Tile::new::<W>((&offsets[m], step[m]), (&offsets[i], step[i]));
        let extents: Vec<usize> = outer.iter().map(|&a| offsets[a].len()).collect();
        let mut index = vec![0usize; outer.len()];
        loop {
            let at = outer.iter().zip(&index).map(|(&a, &k)| offsets[a][k]).sum();
            let to = outer.iter().zip(&index).map(|(&a, &k)| k * step[a]).sum();
            tile.copy::<W>(self.bytes, buf, (at, to), self.groups);
            if !next_index(&mut index, &extents) {
                return;
            }
        }
    }
}

/// Two axes of the memory-order copy, each given by its coordinates' offsets in the
/// input and its step in the buffer: `rows`, the buffer's innermost axis read, and
/// `cols`, the axis lying closest in the input (NHWC read as NCHW: the columns and the
/// channels). `apart`: the rows' distance in the input where they lie side by side in
/// the buffer and evenly in the input, so that a column is one strided copy. (The rows
/// are read in one interval: a box that splits their axis reads one coordinate of
/// every other axis, and keeps C order. They lie apart in the buffer where a broadcast
/// axis follows.) `squares`: the elements are of 1 or 2 bytes, the rows even and the
/// columns side by side in the input, so that squares of 16 bytes a side are
/// transposed in registers ([`transpose_square`], where the CPU can: [`TRANSPOSES`];
/// elsewhere the columns as before, unmeasured there). NHWC read as NCHW, Rust, one thread,
/// cold: u8 3.8 -> 2.2 ms, u16 4.7 -> 4.0; f32 8.5-8.9 -> 8.9-9.9 and f64 7.6 -> 8.1
/// (their columns of 64 lines were bound by the reads, not the instructions).
struct Tile<'a> {
    rows: (&'a [usize], usize),
    cols: (&'a [usize], usize),
    apart: Option<usize>,
    squares: bool,
}

impl<'a> Tile<'a> {
    fn new<const W: usize>(rows: (&'a [usize], usize), cols: (&'a [usize], usize)) -> Self {
        let first = rows.0.first().copied().unwrap_or(0);
        let apart = rows.0.get(1).map_or(0, |&r| r.wrapping_sub(first));
        let even = rows.1 == W && rows.0.windows(2).all(|p| p[1] == p[0].wrapping_add(apart));
        let side_by_side = cols.0.windows(2).all(|p| p[1] == p[0].wrapping_add(W));
        Tile {
            rows,
            cols,
            apart: even.then_some(apart),
            squares: TRANSPOSES && even && side_by_side && matches!(W, 1 | 2),
        }
    }

    /// The tile's elements of `W` bytes from `src` into `dst`, from the offsets `(at,
    /// to)`: [`GATHER_TILE_ROWS`] rows at a time, so that the block's input lines stay
    /// in the first-level cache from the first column to the last; in squares of `16 /
    /// W` rows and columns transposed in registers where it can ([`Tile::squares`]),
    /// the rest a column at a time, each column one strided copy where the rows are
    /// even (`groups` as [`elements`] takes it), else element by element.
    #[inline(always)]
    fn copy<const W: usize>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        (at, to): (usize, usize),
        groups: bool,
    ) {
        let ((rows, row_step), (cols, col_step)) = (self.rows, self.cols);
        let n = 16 / W;
        for start in (0..rows.len()).step_by(GATHER_TILE_ROWS) {
            let block = &rows[start..(start + GATHER_TILE_ROWS).min(rows.len())];
            let to = to + start * row_step;
            // The block's rows and columns in whole squares: all of them, or none where
            // one was refused (it cannot be: each lies inside both), so that the
            // columns below write every element.
            let (square_rows, square_cols) = match (self.apart, self.squares) {
                (Some(apart), true) => {
                    let (whole_rows, whole_cols) = (block.len() / n * n, cols.len() / n * n);
                    let mut all = true;
                    for k in (0..whole_cols).step_by(n) {
                        for i in (0..whole_rows).step_by(n) {
                            let (at, to) =
                                (at + cols[k] + block[i], to + k * col_step + i * row_step);
                            all &= src
                                .get(at..)
                                .zip(dst.get_mut(to..))
                                .is_some_and(|(s, d)| transpose_square::<W>(s, apart, d, col_step));
                        }
                    }
                    if all {
                        (whole_rows, whole_cols)
                    } else {
                        (0, 0)
                    }
                }
                _ => (0, 0),
            };
            for (k, &c) in cols.iter().enumerate() {
                // The rows the squares did not take.
                let skip = if k < square_cols { square_rows } else { 0 };
                let part = &block[skip..];
                let to = to + k * col_step + skip * row_step;
                match (
                    self.apart,
                    part.first(),
                    dst.get_mut(to..to + part.len() * W),
                ) {
                    (Some(apart), Some(&r), Some(run)) => {
                        elements::<W>(src, at + c + r, apart, run, groups)
                    }
                    _ => {
                        for (j, &r) in part.iter().enumerate() {
                            let (at, to) = (at + c + r, to + j * row_step);
                            if let (Some(e), Some(d)) = (
                                src.get(at..).and_then(|s| s.first_chunk::<W>()),
                                dst.get_mut(to..).and_then(|d| d.first_chunk_mut::<W>()),
                            ) {
                                *d = *e;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The elements of `W` bytes `s` bytes apart from `src[at..]` on (0: one element,
/// repeated: a broadcast axis) into `dst`; steps of 2, 3 and 4 elements as groups
/// ([`every`]) where `groups` says.
#[inline(always)]
pub(super) fn elements<const W: usize>(
    src: &[u8],
    at: usize,
    s: usize,
    dst: &mut [u8],
    groups: bool,
) {
    let dst: &mut [[u8; W]] = bytemuck::cast_slice_mut(dst);
    let Some(n) = dst.len().checked_sub(1) else {
        return;
    };
    let src = &src[at..at + n * s + W];
    if s.is_multiple_of(W) {
        // Whole elements apart (a step, a transpose of one type): read as elements.
        let src: &[[u8; W]] = bytemuck::cast_slice(src);
        match s / W {
            0 => dst.fill(src[0]),
            2 if groups => every::<W, 2>(src, dst),
            3 if groups => every::<W, 3>(src, dst),
            4 if groups => every::<W, 4>(src, dst),
            k => dst
                .iter_mut()
                .zip(src.iter().step_by(k))
                .for_each(|(d, e)| *d = *e),
        }
        return;
    }
    for (j, d) in dst.iter_mut().enumerate() {
        if let Some(e) = src[j * s..].first_chunk::<W>() {
            *d = *e;
        }
    }
}

/// Every `K`th element of `src` (`K` * (`dst.len()` - 1) + 1 elements) into `dst`: a
/// step known when compiled, which the compiler moves by vector shuffles.
#[inline(always)]
fn every<const W: usize, const K: usize>(src: &[[u8; W]], dst: &mut [[u8; W]]) {
    let Some(n) = dst.len().checked_sub(1) else {
        return;
    };
    debug_assert_eq!(src.len(), K * n + 1);
    let (chunks, last) = src.as_chunks::<K>();
    let (head, tail) = dst.split_at_mut(n);
    head.iter_mut().zip(chunks).for_each(|(d, g)| *d = g[0]);
    tail.copy_from_slice(&last[..1]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boxes of `shape` (elements of `w` bytes, the split axis `strides` apart): each
    /// box's bytes, in order, cover the output once, and agree with its coordinates.
    fn boxes_of(shape: &[usize], w: usize, strides: &[usize]) -> (usize, usize) {
        let boxes = Boxes::new(shape, w, strides);
        let total: usize = shape.iter().product::<usize>() * w;
        let mut sum = 0;
        for b in 0..boxes.count {
            let at = boxes.at(b);
            let n: usize = at.iter().map(Range::len).product::<usize>() * w;
            assert_eq!(n, boxes.bytes(b), "{shape:?} box {b}");
            assert!(n <= boxes.largest());
            sum += n;
        }
        assert_eq!(sum, total, "{shape:?}");
        assert!(boxes.per >= 1 && boxes.per <= shape[boxes.axis]);
        (boxes.axis, boxes.per)
    }

    /// `elements` of every width and step (a broadcast, contiguous, the steps moved as
    /// groups or not, others, a step of part elements) agree with reading each element
    /// where it lies, for runs of 0 to 6 elements and a longer one.
    #[test]
    fn elements_of_every_step() {
        fn each<const W: usize>() {
            let src: Vec<u8> = (0..3000u32).map(|i| (i * 37 % 251) as u8).collect();
            for (s, groups) in [0, W, 2 * W, 3 * W, 4 * W, 5 * W, W + 1, 3]
                .into_iter()
                .flat_map(|s| [(s, true), (s, false)])
            {
                for n in (0..=6usize).chain([37]) {
                    let mut got = vec![0u8; n * W];
                    elements::<W>(&src, 1, s, &mut got, groups);
                    let want: Vec<u8> = (0..n)
                        .flat_map(|j| src[1 + j * s..][..W].to_vec())
                        .collect();
                    assert_eq!(got, want, "W {W} step {s} n {n}");
                }
            }
        }
        each::<1>();
        each::<2>();
        each::<4>();
        each::<8>();
        each::<16>();
    }

    /// A split axis closer than a span takes whole spans of it, as many as fit
    /// `GATHER_BOX_MAX` (a box of all the indices where they fit); others keep
    /// `GATHER_BOX_BYTES`.
    #[test]
    fn boxes_take_whole_spans() {
        // f32 NHWC read as NCHW: planes of 114x114, 5 of 256 KiB, grown to 32 (128 bytes).
        assert_eq!(
            boxes_of(&[2, 64, 114, 114], 4, &[0, 4, 28672, 256]),
            (1, 32)
        );
        // Fewer channels than a span: all of them.
        assert_eq!(
            boxes_of(&[2, 20, 114, 114], 4, &[0, 4, 28672, 256]),
            (1, 20)
        );
        // u8 planes of 203x204: 128 a span, halved to 32 to fit 2 MiB.
        assert_eq!(boxes_of(&[1, 70, 203, 204], 1, &[0, 1, 14000, 70]), (1, 32));
        // u8, 40 planes of 52,000 bytes (2.08 MB, under 2 MiB): one box of all 40.
        assert_eq!(boxes_of(&[1, 40, 200, 260], 1, &[0, 1, 10400, 40]), (1, 40));
        // A split axis a span or more apart, or unread: boxes of 256 KiB.
        assert_eq!(boxes_of(&[2, 64, 114, 114], 4, &[0, 128, 9, 4]).1, 5);
        assert_eq!(boxes_of(&[2, 64, 114, 114], 4, &[0, 0, 9, 4]).1, 5);
        // A long last axis: split there, elements a box.
        assert_eq!(boxes_of(&[300_001], 8, &[16]), (0, 32768));
    }

    /// The gather keeps C order where the lines read after the closest axis's
    /// coordinates fit `GATHER_REUSE_LINES`; else the closest axis and the rows' last.
    #[test]
    fn memory_order_where_c_order_loses_its_lines() {
        // NHWC read as NCHW: a plane of pixels between two channels.
        let nhwc = [1 << 20, 4, 28672, 256];
        assert_eq!(
            memory_order(&nhwc, &[1, 32, 112, 112]),
            Some(vec![0, 2, 3, 1])
        );
        // NCHW read as NHWC: 64 channels between two columns; a step on the last axis.
        assert_eq!(
            memory_order(&[1 << 20, 448, 4, 50176], &[2, 8, 112, 64]),
            None
        );
        assert_eq!(memory_order(&[16000, 8], &[100, 2000]), None);
        // The limit, and a broadcast axis after the rows (not read, first).
        let lines = GATHER_REUSE_LINES;
        assert_eq!(memory_order(&[4, 64], &[16, lines]), None);
        assert_eq!(memory_order(&[4, 64], &[16, lines + 1]), Some(vec![1, 0]));
        assert_eq!(
            memory_order(&[4, 64, 0], &[16, 600, 3]),
            Some(vec![2, 1, 0])
        );
        // Nothing read: C order.
        assert_eq!(memory_order(&[0, 0], &[5, 1]), None);
    }
}
