//! The packed path: 4- and 2-bit tensors whose rows need not start on byte
//! boundaries, every run moved as a bit range (whole bytes at a time where it can).

use crate::error::PadError;
use crate::options::PadOptions;
use crate::plan::{Plan, Seg};
use crate::tune::{INTERRUPT_BYTES, PACKED_READ_AHEAD, READ_AHEAD_ROW_MIN};

use super::threads::{asked, for_bytes, part_len, share_until};
use super::walker::Walker;
use crate::bits::{pattern, BitWriter};

/// Pads a packed `bits`-bit tensor: the walker gives each output row's input row, and
/// each run of the row axis is a bit-range copy or fill. Threads take blocks of rows
/// that start on byte boundaries, so no two write the same byte.
pub(super) fn run_packed(
    plan: &Plan,
    src: &[u8],
    out: &mut [u8],
    bits: usize,
    value: u8,
    opts: &PadOptions,
) -> Result<(), PadError> {
    let walk = Walker::new(plan, plan.unit, 1, None);
    let unit = plan.unit;
    let (segs, out_units): (&[Seg], usize) = match plan.row_axis {
        Some(r) => (&plan.axes[r].segs, plan.axes[r].map.n),
        None => (&[Seg::Copy { src: 0, len: 1 }], 1),
    };
    let fill = pattern(value, bits);
    let (rows, out_row) = (walk.rows(), out_units * unit);
    if rows == 0 || out_row == 0 {
        return Ok(());
    }
    // Rows per block: a multiple of 8 / gcd(row bits, 8), so blocks start on bytes.
    let row_bits = out_row * bits;
    let align = 8 >> row_bits.trailing_zeros().min(3);
    let threads = for_bytes(opts, out.len());
    let mut per = match threads {
        1 => rows.next_multiple_of(align),
        t => part_len(t, rows).next_multiple_of(align),
    };
    let interrupt = asked(opts, out.len());
    if interrupt.is_some() {
        // No block longer than a part between two questions of the interrupt.
        per = per.min(
            (INTERRUPT_BYTES * 8 / row_bits)
                .next_multiple_of(align)
                .max(align),
        );
    }
    let block_bytes = per * row_bits / 8;
    // Rows long enough prefetch their input and output `PACKED_READ_AHEAD` bytes ahead:
    // cold, int4 [1024,1023] padded by 1 went from 0.65x to 0.80x a copy with both
    // (16 KiB ahead), 0.86x at 4 KiB.
    let in_row = plan.in_shape.last().map_or(1, |&n| (n * bits).div_ceil(8));
    let ahead = in_row >= READ_AHEAD_ROW_MIN;
    let (out_row_bytes, src_at) = (row_bits / 8, src.as_ptr() as usize);
    let stride = walk.plane_axis().map_or(0, |o| o.stride);
    let framed = Framed::of(segs, unit * bits);
    let rows_of = |(k, chunk): (usize, &mut [u8])| {
        let first = k * per;
        let count = per.min(rows - first);
        let mut cursor = walk.cursor(first);
        let out_at = chunk.as_ptr() as usize;
        // The output row the stream has reached and input row `row`, read ahead.
        let read_rows_ahead = |w: &BitWriter<'_>, row: usize| {
            if ahead {
                read_ahead(out_at + w.at(), out_row_bytes);
                read_ahead(src_at + row * bits / 8, in_row);
            }
        };
        if ahead {
            // The lines the rows read ahead start past, asked for first: int4
            // [1024,1023] cold +0.03 to +0.06 of a copy (paired, 48 rounds).
            let first_in = walk.base_src(&cursor).unwrap_or(0) * bits / 8;
            prefetch(out_at, PACKED_READ_AHEAD);
            prefetch(src_at + first_in, PACKED_READ_AHEAD);
        }
        let mut w = BitWriter::new(chunk);
        let mut done = 0;
        while done < count {
            // The rows along the innermost outer axis's current segment: consecutive
            // input rows, one row repeated, or the constant.
            let (seg, left) = walk
                .inner(&cursor)
                .map_or((Seg::Copy { src: 0, len: 1 }, 1), |(s, l, _)| (s, l));
            let take = left.min(count - done);
            let off = seg.len() - left;
            let constant = matches!(seg, Seg::Fill { src: None, .. });
            match walk.base_src(&cursor).filter(|_| !constant) {
                None => w.fill(take * row_bits, fill),
                Some(base) => match (seg, framed) {
                    // Consecutive rows of a constant pad: each one copy, the constant
                    // from one row's copy to the next one's a single fill.
                    (Seg::Copy { src: s, .. }, Some(f)) => {
                        w.fill(f.head, fill);
                        for j in off..off + take {
                            let row = base + (s + j) * stride;
                            read_rows_ahead(&w, row);
                            w.copy(src, row * bits + f.at, f.len);
                            let last = j + 1 == off + take;
                            w.fill(if last { f.tail } else { f.tail + f.head }, fill);
                        }
                    }
                    _ => {
                        for j in off..off + take {
                            match seg.src_at(j) {
                                None => w.fill(row_bits, fill),
                                Some(s) => {
                                    let row = base + s * stride;
                                    read_rows_ahead(&w, row);
                                    packed_row(segs, unit, src, row, &mut w, bits, fill)
                                }
                            }
                        }
                    }
                },
            }
            walk.skip(&mut cursor, take);
            done += take;
        }
        w.finish();
    };
    // Compiled for the baseline: the rows' time is their fixed work (prefetches, the
    // nibbles at their ends), not the shifted copies; inlined into code compiled for
    // AVX2 they ran even (int4 [1024,1023] pad 1, Zen 5, 20 paired rounds).
    share_until(
        threads,
        out.chunks_mut(block_bytes).enumerate(),
        &crate::options::Stopper::new(interrupt),
        rows_of,
    )
}

/// A row that is one copy between runs of the constant (the row axis of a constant
/// pad), in bits: the constant before and after it, and the copy's offset into the
/// input row and its length.
#[derive(Clone, Copy)]
struct Framed {
    head: usize,
    at: usize,
    len: usize,
    tail: usize,
}

impl Framed {
    /// The framed form of the row `segs` whose elements are `run` bits, if it has one.
    fn of(segs: &[Seg], run: usize) -> Option<Framed> {
        let constant = |s: &[Seg]| {
            s.iter().try_fold(0, |n, seg| match *seg {
                Seg::Fill { src: None, len } => Some(n + len * run),
                _ => None,
            })
        };
        let (copy, src, len) = segs.iter().enumerate().find_map(|(i, s)| match *s {
            Seg::Copy { src, len } => Some((i, src, len)),
            _ => None,
        })?;
        Some(Framed {
            head: constant(&segs[..copy])?,
            at: src * run,
            len: len * run,
            tail: constant(&segs[copy + 1..])?,
        })
    }
}

/// Prefetches the lines of the `len` bytes [`PACKED_READ_AHEAD`] bytes past address `at`.
#[inline(always)]
fn read_ahead(at: usize, len: usize) {
    prefetch(at.wrapping_add(PACKED_READ_AHEAD), len);
}

/// Prefetches the lines of the `len` bytes at address `at` (a hint: any address).
#[inline(always)]
fn prefetch(at: usize, len: usize) {
    for line in crate::arch::lines_of(at, len) {
        crate::arch::prefetch(line as *const u8);
    }
}

/// Writes one output row of a packed `bits`-bit tensor (its runs `segs`, in units of
/// `unit` elements) to `w`, from the input row starting at element `row` of `src`;
/// `fill` is the constant's byte.
#[inline(always)]
fn packed_row(
    segs: &[Seg],
    unit: usize,
    src: &[u8],
    row: usize,
    w: &mut BitWriter<'_>,
    bits: usize,
    fill: u8,
) {
    let elem = |k: usize| (row + k * unit) * bits;
    let run = unit * bits;
    for &seg in segs {
        match seg {
            Seg::Copy { src: s, len } => w.copy(src, elem(s), len * run),
            Seg::Fill { src: None, len } => w.fill(len * run, fill),
            Seg::Fill { src: Some(s), len } if unit == 1 => {
                let v = crate::packed::get(src, bits as u32, row + s).unwrap_or(0);
                w.fill(len * bits, pattern(v, bits))
            }
            Seg::Fill { src: Some(s), len } => (0..len).for_each(|_| w.copy(src, elem(s), run)),
            Seg::Rev { src: s, len } => (0..len).for_each(|k| w.copy(src, elem(s - k), run)),
            Seg::Spread { src: s, len, gap } => {
                for k in 0..len {
                    w.copy(src, elem(s + k), run);
                    if k + 1 < len {
                        w.fill(gap * run, fill);
                    }
                }
            }
        }
    }
}
