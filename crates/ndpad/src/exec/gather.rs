//! Inputs whose rows are not laid out in C order (a step on the last axis, a
//! transpose): the output is cut into boxes of about [`GATHER_BOX_BYTES`], and each
//! box's reads ([`Plan::window`] with [`Source::Reads`]) are gathered into a buffer
//! in C order, which stays in the cache while the box's window pads it. Each input
//! element is read once from where it lies and each output byte written once, as
//! numpy.pad does with its one strided copy into the output's middle; a copy of the
//! whole input to C order first read and wrote every input byte once more. An input
//! of one box's size or less, and the input of a window's plan (which keeps no spec to
//! cut boxes from), are gathered whole and padded as C-ordered inputs.

use std::ops::Range;

use crate::error::PadError;
use crate::options::{PadOptions, Stopper};
use crate::plan::{Plan, Source};
use crate::spec::PadSpec;
use crate::tensor::{Data, DataMut};
use crate::tune::{GATHER_BOX_BYTES, INTERRUPT_BYTES};

use super::threads::{asked, for_bytes, share_map};

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
    let boxes = Boxes::new(shape, src.w);
    let bytes = out.len();
    let interrupt = asked(opts, bytes);
    let threads = for_bytes(opts, bytes);
    // Boxes to a part: a part's boxes share one buffer; with an interrupt no part
    // is over `INTERRUPT_BYTES` (asked between the calling thread's parts).
    let per = super::part_len(threads, boxes.count);
    let per = match interrupt {
        Some(_) => per.min((INTERRUPT_BYTES / GATHER_BOX_BYTES).max(1)),
        None => per,
    };
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
    // Each box is written by the calling thread of its part, and asks nothing.
    let one = PadOptions {
        threads: 1,
        interrupt: None,
        max_output_bytes: None,
        ..opts.clone()
    };
    let stopper = Stopper::new(interrupt);
    let done = share_map(threads, parts.into_iter(), &stopper, |(range, part)| {
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
    });
    if stopper.stopped() {
        return Err(PadError::Interrupted);
    }
    done.into_iter().collect()
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
    fn new(shape: &'a [usize], w: usize) -> Self {
        // Bytes of one index of each axis (an output of bytes that fit `usize`).
        let mut inner = vec![w; shape.len()];
        for a in (0..shape.len().saturating_sub(1)).rev() {
            inner[a] = inner[a + 1].saturating_mul(shape[a + 1]);
        }
        // The outermost axis whose index fits a box (the last one's is an element).
        let axis = inner
            .iter()
            .position(|&b| b <= GATHER_BOX_BYTES)
            .unwrap_or(shape.len().saturating_sub(1));
        let step = inner.get(axis).copied().unwrap_or(w);
        let extent = shape.get(axis).copied().unwrap_or(1);
        let per = (GATHER_BOX_BYTES / step.max(1)).clamp(1, extent.max(1));
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
    let Strided {
        bytes: src,
        strides,
        w,
    } = src;
    let dims: Vec<usize> = reads
        .iter()
        .map(|iv| iv.iter().map(Range::len).sum())
        .collect();
    let total = dims.iter().fold(w, |n, &d| n.saturating_mul(d));
    if buf.len() < total {
        // Grown once to the largest box's reads (every byte is written below).
        buf.try_reserve_exact(total - buf.len())
            .map_err(|_| PadError::OutOfMemory {
                shape: dims,
                bytes: total,
            })?;
        buf.resize(total, 0);
    }
    let Some((last, outer)) = reads.split_last() else {
        return Ok(0);
    };
    if total == 0 {
        return Ok(0);
    }
    let s = strides[outer.len()];
    // The byte offsets of the coordinates read on each outer axis.
    let offsets: Vec<Vec<usize>> = outer
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
    let mut index = vec![0usize; outer.len()];
    let mut to = 0;
    loop {
        let base: usize = offsets.iter().zip(&index).map(|(o, &i)| o[i]).sum();
        for r in last {
            let (at, n) = (base + r.start * s, r.len());
            let dst = &mut buf[to..to + n * w];
            to += n * w;
            match (s, w) {
                (s, w) if s == w => dst.copy_from_slice(&src[at..at + n * w]),
                (_, 1) => elements::<1>(src, at, s, dst),
                (_, 2) => elements::<2>(src, at, s, dst),
                (_, 4) => elements::<4>(src, at, s, dst),
                (_, 8) => elements::<8>(src, at, s, dst),
                _ => elements::<16>(src, at, s, dst),
            }
        }
        // The next index of the outer axes, the last fastest.
        let mut a = outer.len();
        loop {
            if a == 0 {
                return Ok(total);
            }
            a -= 1;
            index[a] += 1;
            if index[a] < offsets[a].len() {
                break;
            }
            index[a] = 0;
        }
    }
}

/// The elements of `W` bytes `s` bytes apart from `src[at..]` on (0: one element,
/// repeated: a broadcast axis) into `dst`.
#[inline]
fn elements<const W: usize>(src: &[u8], at: usize, s: usize, dst: &mut [u8]) {
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
