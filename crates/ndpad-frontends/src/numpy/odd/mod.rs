//! numpy.pad's `reflect_type='odd'` (modes `reflect` and `symmetric`), bit for bit.
//!
//! numpy pads one axis after the other. Axis `a` is padded on the region that spans
//! the axes before it whole (already padded) and only the original extent of the axes
//! after it; on each line of that region along `a` it fills chunks, left then right,
//! each no longer than the part already filled (rounded down to the period), until
//! the pads are full: a wide pad takes several rounds, and a later chunk reads values
//! an earlier one computed, the other side's included. A chunk's values are
//! `2 * edge - reflection`, the edge being the line's outermost value so far, computed
//! in the array's type with numpy's casting ([`OddElem`]). An axis of one element is
//! filled with it (numpy's legacy behaviour), whatever the mode.
//!
//! Each line is padded from its own original values alone, so a box of the output
//! needs only a region of the input ([`odd_window`]): whole lines along each padded
//! axis the box leaves the original extent of, the box's own range elsewhere.
//! [`pad_odd_window`] computes the box from that region, one axis after the other,
//! keeping of each axis only the box's range; [`pad_odd`] is the box of the whole
//! output. The functions on bytes ([`pad_odd_bytes`], [`pad_odd_window_bytes`]) are
//! what the Python package calls.
//!
//! ```
//! use ndpad::Tensor;
//! use ndpad_frontends::numpy::odd::{pad_odd, Reflection};
//! let x = Tensor::from_slice(&[3], &[1i64, 2, 4]).unwrap();
//! let (y, _) = pad_odd(x.view(), &[(2, 3)], Reflection::Reflect, 1).unwrap();
//! // numpy.pad([1, 2, 4], (2, 3), 'reflect', reflect_type='odd')
//! assert_eq!(y.to_vec::<i64>().unwrap(), vec![-2, 0, 1, 2, 4, 6, 7, 8]);
//! ```

mod elem;
#[cfg(test)]
mod tests;

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use half::{bf16, f16};
use ndpad::{DType, Data, Tensor, TensorView};

pub use elem::{Complex, Exceptions, FpFlags, NpBool, OddElem};

/// Outputs of fewer elements are padded by the calling thread alone.
const PARALLEL_MIN_ELEMENTS: usize = 1 << 18;

/// A box whose padded lines are this many times longer than its kept and original
/// positions together is computed along its values' chains of reflections
/// ([`Chains`]), not by padding each line whole: a box at the end of a pad of 2^32
/// would fill (and allocate) lines of 2^32 elements for a few values.
const CHAIN_LINE_RATIO: usize = 64;

/// `mode`: `reflect` (the edge is the mirror's axis) or `symmetric` (the edge is
/// repeated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reflection {
    /// numpy's `reflect`.
    Reflect,
    /// numpy's `symmetric`.
    Symmetric,
}

impl Reflection {
    /// The mode by numpy's name.
    pub fn from_name(name: &str) -> Option<Reflection> {
        match name {
            "reflect" => Some(Reflection::Reflect),
            "symmetric" => Some(Reflection::Symmetric),
            _ => None,
        }
    }
}

/// Why an odd reflection could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OddError {
    /// Elements of a type whose arithmetic is not numpy's here.
    #[error(
        "numpy.pad reflect_type='odd': elements of type {dtype} are not computed here \
         (computed: bool, int8-int64, uint8-uint64, float16, bfloat16, float32, float64, \
         complex64, complex128)"
    )]
    UnsupportedType {
        /// The type given.
        dtype: DType,
    },
    /// A list with one entry per axis has another length.
    #[error("numpy.pad reflect_type='odd': {got} {what} for {axes}")]
    Rank {
        /// What the list holds (`pad widths`, `box ranges`, ...).
        what: &'static str,
        /// Its length.
        got: usize,
        /// The axes (`2 axes`).
        axes: String,
    },
    /// An empty axis padded: numpy's "can't extend empty axis".
    #[error(
        "numpy.pad reflect_type='odd': can't extend empty axis {axis} ({before} before, \
         {after} after) using modes other than 'constant' or 'empty'"
    )]
    EmptyAxis {
        /// The axis.
        axis: usize,
        /// Its pad before.
        before: usize,
        /// Its pad after.
        after: usize,
    },
    /// A range that is not inside the extent it indexes.
    #[error(
        "numpy.pad reflect_type='odd': the {what} {start}..{end} of axis {axis} is not \
         inside 0..{extent}"
    )]
    Range {
        /// Which range (`output box`, `input region`).
        what: &'static str,
        /// The axis.
        axis: usize,
        /// The range's start.
        start: usize,
        /// The range's end.
        end: usize,
        /// The extent it must lie in.
        extent: usize,
    },
    /// An input region that lacks elements the box reads.
    #[error(
        "numpy.pad reflect_type='odd': the input region {start}..{end} of axis {axis} \
         does not hold {need_start}..{need_end}, which the box reads"
    )]
    Region {
        /// The axis.
        axis: usize,
        /// The region's start.
        start: usize,
        /// The region's end.
        end: usize,
        /// The start of what the box reads.
        need_start: usize,
        /// The end of what the box reads.
        need_end: usize,
    },
    /// A buffer of another size than its shape.
    #[error("numpy.pad reflect_type='odd': the {what} has {got} bytes, not {expected}")]
    Length {
        /// Which buffer.
        what: &'static str,
        /// Its size in bytes.
        got: usize,
        /// The size of its shape.
        expected: usize,
    },
    /// A buffer not aligned to its elements.
    #[error("numpy.pad reflect_type='odd': the {what} is not aligned to its elements")]
    Unaligned {
        /// Which buffer.
        what: &'static str,
    },
    /// A size that does not fit in `usize`.
    #[error("numpy.pad reflect_type='odd': the {what} overflows")]
    Overflow {
        /// Which size.
        what: &'static str,
    },
    /// A working buffer that could not be allocated.
    #[error("numpy.pad reflect_type='odd': cannot allocate the {what} of {elements} elements")]
    OutOfMemory {
        /// Which buffer.
        what: &'static str,
        /// Its elements.
        elements: usize,
    },
    /// String elements (numpy's arithmetic on them fails).
    #[error("numpy.pad reflect_type='odd': string elements have no arithmetic")]
    Strings,
    /// The core's error building the result.
    #[error("numpy.pad reflect_type='odd': {0}")]
    Core(ndpad::PadError),
    /// The interrupt asked to stop ([`ndpad::Interrupt`]): the output is partly
    /// written.
    #[error("numpy.pad reflect_type='odd': interrupted")]
    Interrupted,
}

fn interrupted(_: ndpad::PadError) -> OddError {
    OddError::Interrupted
}

fn axes_text(rank: usize) -> String {
    ndpad::axes(rank)
}

fn rank_check<T>(what: &'static str, list: &[T], rank: usize) -> Result<(), OddError> {
    if list.len() == rank {
        Ok(())
    } else {
        Err(OddError::Rank {
            what,
            got: list.len(),
            axes: axes_text(rank),
        })
    }
}

/// The padded shape, checked: one pair per axis, no overflow, and no empty axis padded.
///
/// # Errors
/// [`OddError::Rank`], [`OddError::Overflow`], [`OddError::EmptyAxis`].
pub fn odd_output_shape(
    shape: &[usize],
    widths: &[(usize, usize)],
) -> Result<Vec<usize>, OddError> {
    rank_check("pad width pairs", widths, shape.len())?;
    let mut out = Vec::with_capacity(shape.len());
    for (axis, (&n, &(b, a))) in shape.iter().zip(widths).enumerate() {
        if n == 0 && (b > 0 || a > 0) {
            return Err(OddError::EmptyAxis {
                axis,
                before: b,
                after: a,
            });
        }
        let dim = n
            .checked_add(b)
            .and_then(|d| d.checked_add(a))
            .ok_or(OddError::Overflow {
                what: "padded extent",
            })?;
        out.push(dim);
    }
    ndpad::numel(&out).map_err(|_| OddError::Overflow {
        what: "padded size",
    })?;
    Ok(out)
}

fn check_box(out: &[usize], out_box: &[Range<usize>]) -> Result<(), OddError> {
    rank_check("output box ranges", out_box, out.len())?;
    for (axis, (r, &extent)) in out_box.iter().zip(out).enumerate() {
        if r.start > r.end || r.end > extent {
            return Err(OddError::Range {
                what: "output box",
                axis,
                start: r.start,
                end: r.end,
                extent,
            });
        }
    }
    Ok(())
}

/// What axis `axis` of a box needs: whole lines (`None`), or the input range of a box
/// inside the original extent (or an empty box).
fn axis_need(n: usize, (b, a): (usize, usize), r: &Range<usize>) -> Option<Range<usize>> {
    if r.is_empty() {
        return Some(0..0);
    }
    if (b == 0 && a == 0) || (r.start >= b && r.end <= b + n) {
        Some(r.start - b..r.end - b)
    } else {
        None
    }
}

/// The region of the input (a range per axis) that the box `out_box` of the output of
/// an odd pad of an array of `shape` by `widths` is computed from: the whole axis
/// where the box reaches into that axis's pads, else the box's own range, shifted to
/// the input's coordinates. An empty box needs nothing (empty ranges).
///
/// ```
/// use ndpad_frontends::numpy::odd::odd_window;
/// // A 4x6 array padded by 2 on axis 0: the box rows 0..3 (in the pad) and columns
/// // 1..3 reads whole columns, only their own two.
/// assert_eq!(odd_window(&[4, 6], &[(2, 2), (0, 0)], &[0..3, 1..3]).unwrap(), vec![0..4, 1..3]);
/// ```
///
/// # Errors
/// As [`odd_output_shape`], and [`OddError::Range`] for a box outside the output.
pub fn odd_window(
    shape: &[usize],
    widths: &[(usize, usize)],
    out_box: &[Range<usize>],
) -> Result<Vec<Range<usize>>, OddError> {
    let out = odd_output_shape(shape, widths)?;
    check_box(&out, out_box)?;
    if out_box.iter().any(Range::is_empty) {
        return Ok(vec![0..0; shape.len()]);
    }
    Ok(shape
        .iter()
        .zip(widths)
        .zip(out_box)
        .map(|((&n, &w), r)| axis_need(n, w, r).unwrap_or(0..n))
        .collect())
}

/// One chunk numpy fills: positions `start .. start + len` of the padded line, each
/// `p` set to `2 * line[edge] - line[mirror - p]`, or to `line[edge]` (`copy`: an
/// axis of one element).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chunk {
    start: usize,
    len: usize,
    edge: usize,
    mirror: usize,
    copy: bool,
}

impl Chunk {
    /// For a chunk of `len > 0` rows of a slab of `rows`: the row after its last, and
    /// the first row it reads (the edge, and for odd chunks the mirrors `mirror - p`
    /// of its rows p). Checked: every row inside the slab, and the rows written all on
    /// one side of the rows read (below them, or above the last).
    fn span(&self, rows: usize) -> Result<(usize, usize), OddError> {
        let bad = || overflow("reflection index");
        let end = self.start.checked_add(self.len).ok_or_else(bad)?;
        let (lo, hi) = if self.copy {
            (self.edge, self.edge)
        } else {
            let lo = self.mirror.checked_sub(end - 1).ok_or_else(bad)?;
            let hi = self.mirror.checked_sub(self.start).ok_or_else(bad)?;
            (lo.min(self.edge), hi.max(self.edge))
        };
        if hi >= rows || end > rows || !(end <= lo || hi < self.start) {
            return Err(bad());
        }
        Ok((end, lo))
    }

    /// A slab of `stride`-element rows split between the rows this chunk (`len > 0`)
    /// writes and the rows it reads ([`Chunk::span`]): the rows written, the rows
    /// read, and the slab row the latter start at.
    fn split<'s, S>(
        &self,
        slab: &'s mut [S],
        stride: usize,
    ) -> Result<(&'s mut [S], &'s [S], usize), OddError> {
        let (end, lo) = self.span(slab.len() / stride.max(1))?;
        // Written rows below the rows read, or above them.
        Ok(if end <= lo {
            let (w, r) = slab.split_at_mut(end * stride);
            (&mut w[self.start * stride..], &*r, end)
        } else {
            let (r, w) = slab.split_at_mut(self.start * stride);
            (&mut w[..self.len * stride], &*r, 0)
        })
    }
}

fn overflow(what: &'static str) -> OddError {
    OddError::Overflow { what }
}

/// `n` zeroed elements, allocated fallibly (a pad of 2^32 an axis asked for its
/// padded line whole).
fn zeroed<T: bytemuck::Zeroable>(n: usize, what: &'static str) -> Result<Vec<T>, OddError> {
    ndpad::zeroed_vec(n).ok_or(OddError::OutOfMemory { what, elements: n })
}

/// numpy's chunks of an axis of `n` elements padded by `(b, a)`, in its order
/// (`numpy.lib._arraypad_impl._set_reflect_both` called until both pads are full).
fn chunks(n: usize, (b, a): (usize, usize), mode: Reflection) -> Result<Vec<Chunk>, OddError> {
    let mut out = Vec::new();
    if b == 0 && a == 0 {
        return Ok(out);
    }
    let total = n
        .checked_add(b)
        .and_then(|s| s.checked_add(a))
        .ok_or(overflow("padded extent"))?;
    if n == 0 {
        return Err(OddError::EmptyAxis {
            axis: 0,
            before: b,
            after: a,
        });
    }
    if n == 1 {
        for (start, len) in [(0, b), (b + 1, a)] {
            if len > 0 {
                out.push(Chunk {
                    start,
                    len,
                    edge: b,
                    mirror: 0,
                    copy: true,
                });
            }
        }
        return Ok(out);
    }
    let bad = || overflow("reflection index");
    let (mut left, mut right) = (b, a);
    while left > 0 || right > 0 {
        let filled = total - left - right;
        // The length already filled, rounded down to whole periods, as numpy does.
        let (old, offset) = match mode {
            Reflection::Symmetric => (filled / n * n, 1),
            Reflection::Reflect => ((filled - 1) / (n - 1) * (n - 1), 0),
        };
        if old == 0 {
            return Err(bad()); // cannot happen: n >= 2 filled elements at least
        }
        if left > 0 {
            let len = old.min(left);
            let edge = left;
            let mirror = edge
                .checked_mul(2)
                .and_then(|m| m.checked_sub(offset))
                .ok_or_else(bad)?;
            out.push(Chunk {
                start: left - len,
                len,
                edge,
                mirror,
                copy: false,
            });
            left -= len;
        }
        if right > 0 {
            let len = old.min(right);
            let start = total - right;
            let edge = start.checked_sub(1).ok_or_else(bad)?;
            let mirror = edge
                .checked_mul(2)
                .and_then(|m| m.checked_add(offset))
                .ok_or_else(bad)?;
            // The last position reads mirror - (start + len - 1) >= 0 (len >= 1).
            if mirror < start + len - 1 {
                return Err(bad());
            }
            out.push(Chunk {
                start,
                len,
                edge,
                mirror,
                copy: false,
            });
            right -= len;
        }
    }
    Ok(out)
}

/// What one axis's step does: pad whole lines and keep `keep` of the padded line, or
/// keep the range `keep` of the lines as they are.
struct Step {
    axis: usize,
    chunks: Vec<Chunk>,
    /// The padded line's length and where the original extent starts (pad steps).
    line: usize,
    before: usize,
    keep: Range<usize>,
    pad: bool,
}

/// The elements of a long chunk counted as one piece of work (one element a row, or
/// positions of a line): ticked a piece at a time, so that a chunk of 10^9 elements
/// is interrupted inside it; 8 MiB of lines touched where each is a row.
const TICKED_ELEMENTS: usize = 1 << 16;

/// The element type's arithmetic on a slab of rows `stride` elements apart: each
/// chunk's rows, in the columns `cols` of each row. A chunk writes rows on one side of
/// its edge row and reads the edge and its mirror rows on the other, so the slab is
/// split once per chunk between what it writes and what it reads. Each row written
/// ticks the `ticker`.
fn run_chunks<T: OddElem>(
    slab: &mut [T::Store],
    stride: usize,
    cols: Range<usize>,
    chunks: &[Chunk],
    ticker: &mut ndpad::Ticker<'_>,
) -> Result<FpFlags, OddError> {
    let bad = || overflow("reflection index");
    let mut flags = FpFlags::NONE;
    if cols.is_empty() {
        return Ok(flags);
    }
    if cols.end > stride {
        return Err(bad());
    }
    let width = cols.len();
    // An element written: it, the edge's and the mirror row's read.
    let size = 3 * std::mem::size_of::<T::Store>();
    for c in chunks {
        if c.len == 0 {
            continue;
        }
        let (written, read, base) = c.split(slab, stride)?;
        let row_of = |r: usize| (r - base) * stride + cols.start;
        let edge = &read[row_of(c.edge)..row_of(c.edge) + width];
        let rows_written = written
            .chunks_exact_mut(stride)
            .map(|row| &mut row[cols.clone()]);
        if c.copy {
            for row in rows_written {
                // A long row a piece of columns a tick.
                for (row, edge) in row
                    .chunks_mut(TICKED_ELEMENTS)
                    .zip(edge.chunks(TICKED_ELEMENTS))
                {
                    ticker.tick(row.len() * size).map_err(interrupted)?;
                    ndpad::copy_through_cache(row, edge);
                }
            }
            continue;
        }
        // Row k of the chunk (p = start + k) reads row mirror - p of the slab.
        let first = c.mirror - c.start;
        if width == 1 {
            let e = edge[0];
            let at = |k: usize| row_of(first - k);
            let mut rows = rows_written;
            for from in (0..c.len).step_by(TICKED_ELEMENTS) {
                let to = (from + TICKED_ELEMENTS).min(c.len);
                // One element a row (a cache line read and one written each), a piece
                // of rows a tick, its flags with it.
                ticker
                    .tick((to - from).saturating_mul(128))
                    .map_err(interrupted)?;
                let outs = rows.by_ref().take(to - from).map(|o| &mut o[0]);
                let pairs = (from..to).map(|k| (e, read[at(k)]));
                flags = flags.or(odd_values::<T>(outs, pairs));
            }
            continue;
        }
        for (k, row) in rows_written.enumerate() {
            let at = row_of(first - k);
            let source = &read[at..at + width];
            // A long row a piece of columns a tick, its flags with it.
            let pieces = row
                .chunks_mut(TICKED_ELEMENTS)
                .zip(edge.chunks(TICKED_ELEMENTS))
                .zip(source.chunks(TICKED_ELEMENTS));
            for ((row, edge), source) in pieces {
                ticker.tick(row.len() * size).map_err(interrupted)?;
                let pairs = edge.iter().copied().zip(source.iter().copied());
                flags = flags.or(odd_values::<T>(row.iter_mut(), pairs));
            }
        }
    }
    Ok(flags)
}

/// Writes `T::odd(e, s)` of each pair of `pairs` (an edge value and the value across
/// it) through `outs`, in order: the floating-point flags numpy raises for them,
/// looked for only where a value written is suspicious.
#[inline]
fn odd_values<'a, T: OddElem>(
    outs: impl Iterator<Item = &'a mut T::Store>,
    pairs: impl Iterator<Item = (T::Store, T::Store)> + Clone,
) -> FpFlags
where
    T::Store: 'a,
{
    let mut odd = false;
    for (o, (e, s)) in outs.zip(pairs.clone()) {
        let v = T::odd(e, s);
        odd |= T::suspicious(v);
        *o = v;
    }
    match odd {
        true => pairs.fold(FpFlags::NONE, |f, (e, s)| f.or(T::flags(e, s))),
        false => FpFlags::NONE,
    }
}

/// Checks that `chunks` fit a line of `n` elements and that each writes positions on
/// one side of its edge only, reading on the other ([`line_chunks`] relies on it).
fn check_chunks(n: usize, chunks: &[Chunk]) -> Result<(), OddError> {
    for c in chunks.iter().filter(|c| c.len > 0) {
        c.span(n)?;
    }
    Ok(())
}

/// [`run_chunks`] on one contiguous line (the last axis), its chunks checked by
/// [`check_chunks`] for the line's length, in a loop of its own: positions read and
/// written in the one slice (a split a chunk, as `run_chunks` makes, cost short lines
/// 38%: f64 [20000,7] padded by 3). Each piece of a chunk ticks the `ticker` with what
/// it writes and reads.
fn line_chunks<T: OddElem>(
    line: &mut [T::Store],
    chunks: &[Chunk],
    ticker: &mut ndpad::Ticker<'_>,
) -> Result<FpFlags, OddError> {
    let mut flags = FpFlags::NONE;
    let size = 3 * std::mem::size_of::<T::Store>();
    for c in chunks {
        let e = line[c.edge];
        let end = c.start + c.len;
        for from in (c.start..end).step_by(TICKED_ELEMENTS) {
            let written = from..end.min(from + TICKED_ELEMENTS);
            ticker.tick(written.len() * size).map_err(interrupted)?;
            if c.copy {
                line[written].fill(e);
                continue;
            }
            let mut odd = false;
            for p in written.clone() {
                let v = T::odd(e, line[c.mirror - p]);
                odd |= T::suspicious(v);
                line[p] = v;
            }
            if odd {
                // The positions read lie across the edge from those written: unchanged.
                for p in written {
                    flags = flags.or(T::flags(e, line[c.mirror - p]));
                }
            }
        }
    }
    Ok(flags)
}

/// The whole output of an odd pad of `src` (an array of `shape`) by `widths`, into
/// `dst`, in place as numpy pads it: the array copied into the middle, then each
/// padded axis in turn, its lines spanning the earlier axes whole (pads included)
/// and the later axes' data only; the slabs of an axis (one per index of the earlier
/// axes) on `threads`.
fn whole_typed<T: OddElem>(
    shape: &[usize],
    widths: &[(usize, usize)],
    mode: Reflection,
    src: &[T::Store],
    dst: &mut [T::Store],
    threads: usize,
    stopper: &ndpad::Stopper<'_>,
) -> Result<FpFlags, OddError> {
    let out = odd_output_shape(shape, widths)?;
    let at: Vec<usize> = widths.iter().map(|w| w.0).collect();
    copy_in::<T>(src, shape, dst, &out, &at, stopper)?;
    let mut flags = FpFlags::NONE;
    for axis in 0..shape.len() {
        if widths[axis] == (0, 0) {
            continue;
        }
        let chunks = chunks(shape[axis], widths[axis], mode).map_err(|e| match e {
            OddError::EmptyAxis { before, after, .. } => OddError::EmptyAxis {
                axis,
                before,
                after,
            },
            e => e,
        })?;
        let stride: usize = out[axis + 1..].iter().product();
        // The later axes' data: runs of columns of a row.
        let data: Vec<Range<usize>> = (axis + 1..shape.len())
            .map(|k| at[k]..at[k] + shape[k])
            .collect();
        let mut cols = Vec::new();
        let _ = ndpad::index::try_for_each_run(&out[axis + 1..], &data, 1, |_, start, len| {
            cols.push(start..start + len);
            Ok::<(), std::convert::Infallible>(())
        });
        let slab_len = out[axis]
            .checked_mul(stride)
            .ok_or(overflow("padded slab"))?;
        if slab_len == 0 {
            continue;
        }
        if stride == 1 {
            check_chunks(out[axis], &chunks)?;
        }
        let one = |slab: &mut [T::Store], ticker: &mut ndpad::Ticker<'_>| {
            if stride == 1 {
                return line_chunks::<T>(slab, &chunks, ticker);
            }
            let mut f = FpFlags::NONE;
            for c in &cols {
                f = f.or(run_chunks::<T>(slab, stride, c.clone(), &chunks, ticker)?);
            }
            Ok::<FpFlags, OddError>(f)
        };
        let slabs = dst.len() / slab_len;
        // Threads where the axis writes enough: its pads, over the later axes' data.
        let per_slab = (widths[axis].0 + widths[axis].1)
            .saturating_mul(cols.iter().map(Range::len).sum::<usize>());
        let writes = per_slab.saturating_mul(slabs);
        let slabs_of = |part: &mut [T::Store]| {
            let mut ticker = stopper.ticker();
            part.chunks_exact_mut(slab_len)
                .try_fold(FpFlags::NONE, |f, slab| {
                    Ok::<_, OddError>(f.or(one(slab, &mut ticker)?))
                })
        };
        flags = flags.or(
            if ndpad::threads::count(threads) <= 1 || slabs < 2 || writes < PARALLEL_MIN_ELEMENTS {
                slabs_of(dst)?
            } else {
                let slab_work = per_slab.saturating_mul(3 * std::mem::size_of::<T::Store>());
                let per = stopper.part_len(threads, slabs, slab_work);
                share_parts(threads, stopper, dst.chunks_mut(per * slab_len), slabs_of)?
            },
        );
    }
    Ok(flags)
}

/// Copies `src` (an array of `shape`) into `dst` (of `out`) at `at`, in pieces of the
/// first axis of about [`ndpad::Stopper::CHECK_BYTES`], checking the `stopper` between
/// them (the pages of a fresh output fault as they are written: slow on a VM).
fn copy_in<T: OddElem>(
    src: &[T::Store],
    shape: &[usize],
    dst: &mut [T::Store],
    out: &[usize],
    at: &[usize],
    stopper: &ndpad::Stopper<'_>,
) -> Result<(), OddError> {
    let place = |_| overflow("the array's place in the output");
    let Some((&first, rest)) = shape.split_first() else {
        let all: [Range<usize>; 0] = [];
        return ndpad::index::copy_pod_box(dst, out, at, src, shape, &all, 1).map_err(place);
    };
    let row = rest
        .iter()
        .product::<usize>()
        .saturating_mul(std::mem::size_of::<T::Store>());
    let per = (ndpad::Stopper::CHECK_BYTES / row.max(1)).max(1);
    let mut from = at.to_vec();
    let mut bx: Vec<Range<usize>> = shape.iter().map(|&n| 0..n).collect();
    for start in (0..first).step_by(per) {
        if start > 0 {
            stopper.check().map_err(interrupted)?;
        }
        bx[0] = start..first.min(start + per);
        from[0] = at[0] + start;
        ndpad::index::copy_pod_box(dst, out, &from, src, shape, &bx, 1).map_err(place)?;
    }
    Ok(())
}

/// The kept range of a pad step's lines computed along chains of reflections: each
/// value of a chunk is `odd(edge, mirror - p)`, where the position read lies in an
/// earlier chunk or the original, so a value follows its chain of reflections down to
/// an original value (at most one step a chunk, the chunks' lengths doubling) and
/// comes back up with numpy's arithmetic in numpy's order: the same bits as the line
/// padded whole. The chunks' edges are computed first, in the chunks' order, a slab
/// at a time, then the kept positions, a range at a time (a range of one chunk reads
/// one mirrored range: 8.5x faster than value by value, a 1-D f32 box of 2^23 at the
/// end of a pad of 2^32).
/// Floating-point exceptions are those of the values computed: the kept ones, their
/// chains and the edges.
struct Chains<'s> {
    step: &'s Step,
    /// The chunks' indices by the position they start at.
    by_start: Vec<(usize, usize)>,
    /// Elements of a line's position (the axes after the step's).
    inner: usize,
    /// Original positions of a line.
    from: usize,
}

impl<'s> Chains<'s> {
    fn new(step: &'s Step, from: usize, inner: usize) -> Result<Chains<'s>, OddError> {
        check_chunks(step.line, &step.chunks)?;
        let original_end = step
            .before
            .checked_add(from)
            .ok_or(overflow("padded line"))?;
        if original_end > step.line || step.keep.end > step.line {
            return Err(overflow("padded line"));
        }
        let mut by_start: Vec<(usize, usize)> = step
            .chunks
            .iter()
            .enumerate()
            .filter(|(_, c)| c.len > 0)
            .map(|(i, c)| (c.start, i))
            .collect();
        by_start.sort_unstable();
        Ok(Chains {
            step,
            by_start,
            inner,
            from,
        })
    }

    /// The chunk holding the padded position `p`.
    fn chunk_at(&self, p: usize) -> Result<(usize, &'s Chunk), OddError> {
        let k = self.by_start.partition_point(|&(start, _)| start <= p);
        let (_, i) = *k
            .checked_sub(1)
            .and_then(|k| self.by_start.get(k))
            .ok_or(overflow("reflection index"))?;
        let c = &self.step.chunks[i];
        match p < c.start + c.len {
            true => Ok((i, c)),
            false => Err(overflow("reflection index")),
        }
    }

    /// The values of the padded positions `range` into `out` (`inner` a position),
    /// from the line's original values `line` (`from` positions) and the edges of
    /// the chunks before any it reads (`edges`, `inner` a chunk), a range at a time:
    /// each piece of `range` in one chunk is the
    /// chunk's mirrored range (computed first, into the piece, `depth + 1` chunks
    /// down), reversed, with `odd(edge, value)` applied: each value's operations
    /// those of its chain, in its order. Ticks the `ticker` with each piece.
    #[allow(clippy::too_many_arguments)]
    fn range_values<T: OddElem>(
        &self,
        (line, edges): (&[T::Store], &[T::Store]),
        range: Range<usize>,
        out: &mut [T::Store],
        depth: usize,
        flags: &mut FpFlags,
        ticker: &mut ndpad::Ticker<'_>,
    ) -> Result<(), OddError> {
        let (before, inner) = (self.step.before, self.inner);
        // A chain goes through each chunk once at most (checked, not assumed).
        if inner == 0 || depth > self.step.chunks.len() {
            return match inner {
                0 => Ok(()),
                _ => Err(overflow("reflection index")),
            };
        }
        let size = std::mem::size_of::<T::Store>();
        let (mut p, mut at) = (range.start, 0);
        while p < range.end {
            if p >= before && p - before < self.from {
                let r = p - before;
                let n = (self.from - r).min(range.end - p);
                let from = &line[r * inner..(r + n) * inner];
                ndpad::copy_through_cache(&mut out[at..at + n * inner], from);
                (p, at) = (p + n, at + n * inner);
                continue;
            }
            let (i, c) = self.chunk_at(p)?;
            let n = (c.start + c.len - p).min(range.end - p);
            ticker.tick(n * inner * size).map_err(interrupted)?;
            let edge = &edges[i * inner..(i + 1) * inner];
            let piece = &mut out[at..at + n * inner];
            if c.copy {
                piece
                    .chunks_exact_mut(inner)
                    .for_each(|v| ndpad::copy_through_cache(v, edge));
            } else {
                // Positions p..p + n read mirror - p down to mirror - (p + n - 1).
                let low = c
                    .mirror
                    .checked_sub(p + n - 1)
                    .ok_or(overflow("reflection index"))?;
                let mirrored = low..low + n;
                self.range_values::<T>((line, edges), mirrored, piece, depth + 1, flags, ticker)?;
                piece.reverse();
                for v in piece.chunks_exact_mut(inner) {
                    v.reverse();
                    for (x, &e) in v.iter_mut().zip(edge) {
                        let r = *x;
                        *x = T::odd(e, r);
                        if T::suspicious(*x) {
                            *flags = flags.or(T::flags(e, r));
                        }
                    }
                }
            }
            (p, at) = (p + n, at + n * inner);
        }
        Ok(())
    }

    /// The kept positions of one slab: `s` its original values, `d` the kept ones;
    /// `edges` a working buffer. Ticks the `ticker` as [`Chains::range_values`]
    /// computes the chunks' edges and the kept positions.
    fn kept<T: OddElem>(
        &self,
        s: &[T::Store],
        d: &mut [T::Store],
        edges: &mut Vec<T::Store>,
        ticker: &mut ndpad::Ticker<'_>,
    ) -> Result<FpFlags, OddError> {
        let inner = self.inner;
        let n = self.step.chunks.len().saturating_mul(inner);
        if edges.len() != n {
            *edges = Vec::new();
            *edges = zeroed(n, "chunk edges")?;
        }
        let mut flags = FpFlags::NONE;
        // Each chunk's edge from the original and the chunks before it.
        let mut edge = zeroed(inner, "chunk edges")?;
        for (i, c) in self.step.chunks.iter().enumerate() {
            let at = c.edge..c.edge + 1;
            self.range_values::<T>((s, edges), at, &mut edge, 0, &mut flags, ticker)?;
            edges[i * inner..(i + 1) * inner].copy_from_slice(&edge);
        }
        // Ranges of about TICKED_ELEMENTS values, so that the interrupt is asked
        // between them (range_values ticks before the work of each piece).
        let per = (TICKED_ELEMENTS / inner.max(1)).max(1);
        for (k, out) in d.chunks_mut((per * inner).max(1)).enumerate() {
            let start = self.step.keep.start + k * per;
            let range = start..start + out.len() / inner.max(1);
            self.range_values::<T>((s, edges), range, out, 0, &mut flags, ticker)?;
        }
        Ok(flags)
    }
}

/// One step: `src` of shape `[outer, from, inner]` into `dst` of `[outer, keep, inner]`.
fn run_step<T: OddElem>(
    step: &Step,
    src: &[T::Store],
    dst: &mut [T::Store],
    (outer, from, inner): (usize, usize, usize),
    threads: usize,
    stopper: &ndpad::Stopper<'_>,
) -> Result<FpFlags, OddError> {
    let keep = step.keep.len();
    let src_slab = from * inner;
    let dst_slab = keep * inner;
    if src.len() != outer * src_slab || dst.len() != outer * dst_slab {
        return Err(overflow("step buffer"));
    }
    if dst_slab == 0 || outer == 0 {
        return Ok(FpFlags::NONE);
    }
    let whole = step.keep.start == 0 && step.keep.end == step.line;
    // Far from the lines' original positions, the kept values by their chains.
    let chains = match step.pad && step.line / CHAIN_LINE_RATIO > keep.saturating_add(from) {
        true => Some(Chains::new(step, from, inner)?),
        false => None,
    };
    let line_len = match chains {
        Some(_) => 0,
        None => step
            .line
            .checked_mul(inner)
            .ok_or(overflow("padded line"))?,
    };
    let one = |s: &[T::Store],
               d: &mut [T::Store],
               scratch: &mut Vec<T::Store>,
               ticker: &mut ndpad::Ticker<'_>| {
        if !step.pad {
            let at = step.keep.start * inner;
            ndpad::copy_through_cache(d, &s[at..at + dst_slab]);
            return Ok(FpFlags::NONE);
        }
        if let Some(chains) = &chains {
            return chains.kept::<T>(s, d, scratch, ticker);
        }
        let line: &mut [T::Store] = if whole {
            d
        } else {
            if scratch.len() != line_len {
                *scratch = Vec::new(); // freed before the next is allocated
                *scratch = zeroed(line_len, "padded line")?;
            }
            scratch
        };
        ndpad::copy_through_cache(
            &mut line[step.before * inner..(step.before + from) * inner],
            s,
        );
        let flags = run_chunks::<T>(line, inner, 0..inner, &step.chunks, ticker)?;
        if !whole {
            let at = step.keep.start * inner;
            ndpad::copy_through_cache(d, &scratch[at..at + dst_slab]);
        }
        Ok(flags)
    };
    // The ticks of a slab's copies (its pads tick in run_chunks).
    let slab_bytes = (src_slab + dst_slab).saturating_mul(std::mem::size_of::<T::Store>());
    // Slabs of a part, a scratch line each part.
    let slabs_of = |(s, d): (&[T::Store], &mut [T::Store])| {
        let mut ticker = stopper.ticker();
        let mut scratch = Vec::new();
        s.chunks_exact(src_slab)
            .zip(d.chunks_exact_mut(dst_slab))
            .try_fold(FpFlags::NONE, |f, (s, d)| {
                ticker.tick(slab_bytes).map_err(interrupted)?;
                Ok::<_, OddError>(f.or(one(s, d, &mut scratch, &mut ticker)?))
            })
    };
    let count = ndpad::threads::count(threads);
    if count <= 1 || outer < 2 || dst.len() < PARALLEL_MIN_ELEMENTS {
        return slabs_of((src, dst));
    }
    // A slab's work for the parts: its copies and its pads (each padded line's
    // positions, or each kept value's chain of up to a step a chunk).
    let size = std::mem::size_of::<T::Store>();
    let pads_work = match chains {
        Some(_) => dst_slab.saturating_mul(step.chunks.len()),
        None => line_len.saturating_mul(3),
    };
    let slab_work = slab_bytes.saturating_add(pads_work.saturating_mul(size));
    let per = stopper.part_len(threads, outer, slab_work);
    let parts = src
        .chunks(per * src_slab)
        .zip(dst.chunks_mut(per * dst_slab));
    share_parts(threads, stopper, parts, slabs_of)
}

/// Runs `work` on the `parts` with `threads` threads ([`ndpad::threads::share_map`]):
/// the flags of all the parts, or the first error in the parts' order; once a part has
/// failed, the later parts not yet started are skipped (the output is not the result),
/// and all once the `stopper` stopped.
fn share_parts<I>(
    threads: usize,
    stopper: &ndpad::Stopper<'_>,
    parts: I,
    work: impl Fn(I::Item) -> Result<FpFlags, OddError> + Sync,
) -> Result<FpFlags, OddError>
where
    I: Iterator + Send,
    I::Item: Send,
{
    // The first part that failed: earlier parts still run, so the error is the first.
    let failed = AtomicUsize::new(usize::MAX);
    let flags = ndpad::threads::share_map(threads, parts.enumerate(), stopper, |(k, part)| {
        if stopper.stopped() {
            return Err(OddError::Interrupted);
        }
        if k > failed.load(Ordering::Relaxed) {
            return Ok(FpFlags::NONE);
        }
        let done = work(part);
        if done.is_err() {
            failed.fetch_min(k, Ordering::Relaxed);
        }
        done
    })
    .into_iter()
    .try_fold(FpFlags::NONE, |f, r| Ok(f.or(r?)));
    // A stop wins over an error of a part before it (the interrupt would be lost).
    match stopper.stopped() {
        true => Err(OddError::Interrupted),
        false => flags,
    }
}

/// Pads the box `out_box` of the output of an odd pad of an array of `shape` by
/// `widths` from `region` (its elements in C order), the ranges `ranges` of the input,
/// into `dst` (the box's elements in C order), one axis after the other on `threads`
/// (0: all of rayon's).
#[allow(clippy::too_many_arguments)]
fn window_typed<T: OddElem>(
    shape: &[usize],
    widths: &[(usize, usize)],
    mode: Reflection,
    ranges: &[Range<usize>],
    region: &[T::Store],
    out_box: &[Range<usize>],
    dst: &mut [T::Store],
    threads: usize,
    stopper: &ndpad::Stopper<'_>,
) -> Result<FpFlags, OddError> {
    let out = odd_output_shape(shape, widths)?;
    check_box(&out, out_box)?;
    rank_check("input region ranges", ranges, shape.len())?;
    for (axis, (r, &n)) in ranges.iter().zip(shape).enumerate() {
        if r.start > r.end || r.end > n {
            return Err(OddError::Range {
                what: "input region",
                axis,
                start: r.start,
                end: r.end,
                extent: n,
            });
        }
    }
    let box_shape: Vec<usize> = out_box.iter().map(Range::len).collect();
    let region_shape: Vec<usize> = ranges.iter().map(Range::len).collect();
    let unit = std::mem::size_of::<T::Store>();
    let box_n = ndpad::numel(&box_shape).map_err(|_| overflow("box size"))?;
    let region_n = ndpad::numel(&region_shape).map_err(|_| overflow("region size"))?;
    if dst.len() != box_n {
        return Err(OddError::Length {
            what: "output box",
            got: std::mem::size_of_val(dst),
            expected: box_n.saturating_mul(unit),
        });
    }
    if region.len() != region_n {
        return Err(OddError::Length {
            what: "input region",
            got: std::mem::size_of_val(region),
            expected: region_n.saturating_mul(unit),
        });
    }
    if box_n == 0 {
        return Ok(FpFlags::NONE);
    }
    let whole_box = out_box.iter().zip(&out).all(|(r, &n)| *r == (0..n));
    let whole_input = ranges.iter().zip(shape).all(|(r, &n)| *r == (0..n));
    if whole_box && whole_input {
        return whole_typed::<T>(shape, widths, mode, region, dst, threads, stopper);
    }
    // The steps: per axis, pad whole lines, or keep a range of the region's.
    let mut steps = Vec::new();
    for axis in 0..shape.len() {
        let (n, w, r, have) = (shape[axis], widths[axis], &out_box[axis], &ranges[axis]);
        let step = match axis_need(n, w, r) {
            Some(need) => {
                if need.start < have.start || need.end > have.end {
                    return Err(OddError::Region {
                        axis,
                        start: have.start,
                        end: have.end,
                        need_start: need.start,
                        need_end: need.end,
                    });
                }
                let keep = need.start - have.start..need.end - have.start;
                if keep.start == 0 && keep.end == have.len() {
                    continue; // the lines as they are
                }
                Step {
                    axis,
                    chunks: Vec::new(),
                    line: have.len(),
                    before: 0,
                    keep,
                    pad: false,
                }
            }
            None => {
                if have.start != 0 || have.end != n {
                    return Err(OddError::Region {
                        axis,
                        start: have.start,
                        end: have.end,
                        need_start: 0,
                        need_end: n,
                    });
                }
                Step {
                    axis,
                    chunks: chunks(n, w, mode).map_err(|e| match e {
                        OddError::EmptyAxis { before, after, .. } => OddError::EmptyAxis {
                            axis,
                            before,
                            after,
                        },
                        e => e,
                    })?,
                    line: out[axis],
                    before: w.0,
                    keep: r.clone(),
                    pad: true,
                }
            }
        };
        steps.push(step);
    }
    if steps.is_empty() {
        ndpad::copy_through_cache(dst, region);
        return Ok(FpFlags::NONE);
    }
    // The current buffer's shape: the box's extents on the axes stepped, the region's
    // on the others.
    let mut cur = region_shape;
    let mut flags = FpFlags::NONE;
    let mut buffer: Vec<T::Store> = Vec::new();
    let last = steps.len() - 1;
    for (k, step) in steps.iter().enumerate() {
        let a = step.axis;
        let outer: usize = cur[..a].iter().product();
        let inner: usize = cur[a + 1..].iter().product();
        let from = cur[a];
        cur[a] = step.keep.len();
        let src: Vec<T::Store> = if k == 0 {
            Vec::new()
        } else {
            std::mem::take(&mut buffer)
        };
        let src_ref: &[T::Store] = if k == 0 { region } else { &src };
        if k == last {
            flags = flags.or(run_step::<T>(
                step,
                src_ref,
                dst,
                (outer, from, inner),
                threads,
                stopper,
            )?);
        } else {
            let n = ndpad::numel(&cur).map_err(|_| overflow("step size"))?;
            let mut next = zeroed(n, "step buffer")?;
            flags = flags.or(run_step::<T>(
                step,
                src_ref,
                &mut next,
                (outer, from, inner),
                threads,
                stopper,
            )?);
            buffer = next;
        }
    }
    Ok(flags)
}

/// `$go!(T)` for numpy's type `T` of `dtype`.
macro_rules! by_type {
    ($dtype:expr, $go:ident) => {
        match $dtype {
            DType::Bool => $go!(NpBool),
            DType::Int8 => $go!(i8),
            DType::Int16 => $go!(i16),
            DType::Int32 => $go!(i32),
            DType::Int64 => $go!(i64),
            DType::Uint8 => $go!(u8),
            DType::Uint16 => $go!(u16),
            DType::Uint32 => $go!(u32),
            DType::Uint64 => $go!(u64),
            DType::Float16 => $go!(f16),
            DType::BFloat16 => $go!(bf16),
            DType::Float32 => $go!(f32),
            DType::Float64 => $go!(f64),
            DType::Complex64 => $go!(Complex<f32>),
            DType::Complex128 => $go!(Complex<f64>),
            DType::String => Err(OddError::Strings),
            dtype => Err(OddError::UnsupportedType { dtype }),
        }
    };
}

fn cast<'a, T: bytemuck::Pod>(what: &'static str, bytes: &'a [u8]) -> Result<&'a [T], OddError> {
    if bytes.is_empty() {
        return Ok(&[]); // an empty buffer may start anywhere
    }
    bytemuck::try_cast_slice(bytes).map_err(|e| cast_error(what, bytes.len(), e))
}

fn cast_mut<'a, T: bytemuck::Pod>(
    what: &'static str,
    bytes: &'a mut [u8],
) -> Result<&'a mut [T], OddError> {
    let len = bytes.len();
    if len == 0 {
        return Ok(&mut []);
    }
    bytemuck::try_cast_slice_mut(bytes).map_err(|e| cast_error(what, len, e))
}

fn cast_error(what: &'static str, len: usize, e: bytemuck::PodCastError) -> OddError {
    match e {
        bytemuck::PodCastError::OutputSliceWouldHaveSlop => OddError::Length {
            what,
            got: len,
            expected: len - len % 2,
        },
        _ => OddError::Unaligned { what },
    }
}

/// [`pad_odd_window`] on bytes: `region` holds the input's elements in `ranges` (C
/// order, native byte order, aligned), `dst` receives the box's, on `threads` (0:
/// all of rayon's), `interrupt` asked on the calling thread about every 16 MiB of
/// work ([`ndpad::Stopper`]). Returns the floating-point exceptions of the values
/// computed for the box (as [`pad_odd_window`]).
///
/// # Errors
/// [`OddError::UnsupportedType`] (or [`OddError::Strings`]) for a type not computed
/// here, before anything is written; the checks of [`odd_window`]; an input region
/// that lacks what the box reads ([`OddError::Region`]); buffers of another size or
/// misaligned; [`OddError::Interrupted`] where the interrupt said stop.
#[allow(clippy::too_many_arguments)]
pub fn pad_odd_window_bytes(
    dtype: DType,
    shape: &[usize],
    widths: &[(usize, usize)],
    mode: Reflection,
    ranges: &[Range<usize>],
    region: &[u8],
    out_box: &[Range<usize>],
    dst: &mut [u8],
    threads: usize,
    interrupt: Option<&ndpad::Interrupt>,
) -> Result<FpFlags, OddError> {
    let stopper = ndpad::Stopper::new(interrupt);
    macro_rules! go {
        ($t:ty) => {{
            type S = <$t as OddElem>::Store;
            let r = cast::<S>("input region", region)?;
            let d = cast_mut::<S>("output box", dst)?;
            window_typed::<$t>(
                shape, widths, mode, ranges, r, out_box, d, threads, &stopper,
            )
        }};
    }
    by_type!(dtype, go)
}

/// The odd pad of the whole array on bytes: `src` holds the input of `shape` (C
/// order, native byte order, aligned), `dst` the output of the padded shape.
///
/// # Errors
/// As [`pad_odd_window_bytes`].
#[allow(clippy::too_many_arguments)]
pub fn pad_odd_bytes(
    dtype: DType,
    shape: &[usize],
    widths: &[(usize, usize)],
    mode: Reflection,
    src: &[u8],
    dst: &mut [u8],
    threads: usize,
    interrupt: Option<&ndpad::Interrupt>,
) -> Result<FpFlags, OddError> {
    let out = odd_output_shape(shape, widths)?;
    let ranges: Vec<Range<usize>> = shape.iter().map(|&n| 0..n).collect();
    let all: Vec<Range<usize>> = out.iter().map(|&n| 0..n).collect();
    pad_odd_window_bytes(
        dtype, shape, widths, mode, &ranges, src, &all, dst, threads, interrupt,
    )
}

fn view_bytes<'a>(view: &TensorView<'a>) -> Result<&'a [u8], OddError> {
    match view.data() {
        Data::Bytes(b) => Ok(b),
        Data::Strings(_) => Err(OddError::Strings),
    }
}

fn check_type(dtype: DType) -> Result<usize, OddError> {
    macro_rules! size {
        ($t:ty) => {
            Ok::<usize, OddError>(std::mem::size_of::<<$t as OddElem>::Store>())
        };
    }
    by_type!(dtype, size)
}

/// The box `out_box` of the odd pad of an array of `shape` by `widths`, from `region`:
/// the input's elements in `ranges` ([`odd_window`] gives the ranges needed; any
/// larger ones do). Returns the box and the floating-point exceptions of the values
/// computed for it (numpy warns of them; the values are numpy's all the same): its
/// padded lines whole, or where those are over 64 times longer than it and the
/// original, its values, their chains and the chunks' edges; over boxes that tile
/// the output, every value numpy computes.
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_frontends::numpy::odd::{odd_window, pad_odd_window, Reflection};
/// let x: Vec<i32> = (0..12).map(|v| v * v).collect();
/// let widths = [(3, 0), (0, 2)];
/// let out_box = [0..2, 2..5]; // rows 0..2 (in the pad of axis 0), columns 2..5
/// let ranges = odd_window(&[4, 3], &widths, &out_box).unwrap();
/// assert_eq!(ranges, vec![0..4, 0..3]);
/// let region = Tensor::from_slice(&[4, 3], &x).unwrap();
/// let (b, _) = pad_odd_window(region.view(), &[4, 3], &widths, Reflection::Symmetric,
///     &ranges, &out_box).unwrap();
/// assert_eq!(b.shape(), &[2, 3]);
/// ```
///
/// # Errors
/// As [`pad_odd_window_bytes`], and a region whose shape is not that of `ranges`.
pub fn pad_odd_window(
    region: TensorView<'_>,
    shape: &[usize],
    widths: &[(usize, usize)],
    mode: Reflection,
    ranges: &[Range<usize>],
    out_box: &[Range<usize>],
) -> Result<(Tensor, FpFlags), OddError> {
    window_tensor(region, shape, widths, mode, ranges, out_box, 1)
}

/// [`pad_odd_window`] on `threads`: the region copied to an aligned buffer, the box
/// padded into another, made a tensor.
fn window_tensor(
    region: TensorView<'_>,
    shape: &[usize],
    widths: &[(usize, usize)],
    mode: Reflection,
    ranges: &[Range<usize>],
    out_box: &[Range<usize>],
    threads: usize,
) -> Result<(Tensor, FpFlags), OddError> {
    let unit = check_type(region.dtype())?;
    let region_shape: Vec<usize> = ranges.iter().map(Range::len).collect();
    if region.shape() != region_shape.as_slice() {
        return Err(OddError::Rank {
            what: "input region extents",
            got: region.shape().len(),
            axes: format!(
                "{region_shape:?} (the region's shape is {:?})",
                region.shape()
            ),
        });
    }
    let box_shape: Vec<usize> = out_box.iter().map(Range::len).collect();
    let n = ndpad::numel(&box_shape)
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or(overflow("box size"))?;
    let bytes = view_bytes(&region)?;
    // An aligned copy of the region (a view of bytes may start anywhere).
    let src = aligned_copy(bytes);
    let mut out = aligned_buffer(n);
    let flags = pad_odd_window_bytes(
        region.dtype(),
        shape,
        widths,
        mode,
        ranges,
        &bytemuck::cast_slice(&src)[..bytes.len()],
        out_box,
        &mut bytemuck::cast_slice_mut(&mut out)[..n],
        threads,
        None,
    )?;
    let mut bytes: Vec<u8> = bytemuck::cast_slice(&out).to_vec();
    bytes.truncate(n);
    let t = Tensor::from_bytes(region.dtype(), &box_shape, bytes).map_err(OddError::Core)?;
    Ok((t, flags))
}

/// A buffer of at least `n` bytes aligned for any element type computed here.
fn aligned_buffer(n: usize) -> Vec<u128> {
    vec![0u128; n.div_ceil(16)]
}

fn aligned_copy(bytes: &[u8]) -> Vec<u128> {
    let mut v = aligned_buffer(bytes.len());
    bytemuck::cast_slice_mut::<u128, u8>(&mut v)[..bytes.len()].copy_from_slice(bytes);
    v
}

/// numpy.pad's odd `mode` of `input` by `widths` (one `(before, after)` pair per
/// axis), on `threads` (0: all of rayon's): the padded tensor and the floating-point
/// exceptions numpy would have reported.
///
/// # Errors
/// As [`pad_odd_window`].
pub fn pad_odd(
    input: TensorView<'_>,
    widths: &[(usize, usize)],
    mode: Reflection,
    threads: usize,
) -> Result<(Tensor, FpFlags), OddError> {
    let shape = input.shape().to_vec();
    let out = odd_output_shape(&shape, widths)?;
    let ranges: Vec<Range<usize>> = shape.iter().map(|&n| 0..n).collect();
    let all: Vec<Range<usize>> = out.iter().map(|&n| 0..n).collect();
    window_tensor(input, &shape, widths, mode, &ranges, &all, threads)
}
