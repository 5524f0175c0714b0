//! The packed path: 4- and 2-bit tensors whose rows need not start on byte
//! boundaries, every run moved as a bit range (whole bytes at a time where it can).

use rayon::prelude::*;

use crate::error::PadError;
use crate::options::PadOptions;
use crate::plan::{Plan, Seg};
use crate::tune::{INTERRUPT_BYTES, PARTS_PER_THREAD};

use super::threads::{split_threads, with_threads};
use super::walker::Walker;

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
    let mut row_segs = Vec::with_capacity(segs.len());
    let mut pos = 0;
    for &seg in segs {
        row_segs.push((pos, seg));
        pos += seg.len() * unit;
    }
    let (rows, out_row) = (walk.rows(), out_units * unit);
    if rows == 0 || out_row == 0 {
        return Ok(());
    }
    // Rows per block: a multiple of 8 / gcd(row bits, 8), so blocks start on bytes.
    let row_bits = out_row * bits;
    let align = 8 >> row_bits.trailing_zeros().min(3);
    let threads = split_threads(opts, out.len());
    let mut per = match threads {
        Some(t) => rows.div_ceil(t * PARTS_PER_THREAD).next_multiple_of(align),
        None => rows.next_multiple_of(align),
    };
    if opts.interrupt.is_some() {
        // No block longer than a part between two questions of the interrupt.
        per = per.min(
            (INTERRUPT_BYTES * 8 / row_bits)
                .next_multiple_of(align)
                .max(align),
        );
    }
    let block_bytes = per * row_bits / 8;
    let block = |(k, chunk): (usize, &mut [u8])| {
        let first = k * per;
        let mut cursor = walk.cursor(first);
        for r in 0..per.min(rows - first) {
            let at = r * out_row;
            match walk.row_src(&cursor) {
                None => crate::bits::fill(chunk, at, out_row, bits, value),
                Some(row) => packed_row(&row_segs, unit, src, row, chunk, at, bits, value),
            }
            walk.advance(&mut cursor);
        }
    };
    // Blocks to a part between two questions of the interrupt: all of them without one.
    let round = match &opts.interrupt {
        Some(_) => (INTERRUPT_BYTES / block_bytes)
            .max(1)
            .saturating_mul(block_bytes),
        None => out.len(),
    };
    let per_round = round / block_bytes;
    for (r, part) in out.chunks_mut(round.max(1)).enumerate() {
        if r > 0 && opts.interrupt.as_ref().is_some_and(|i| i.requested()) {
            return Err(PadError::Interrupted);
        }
        let first = r * per_round;
        match threads {
            Some(t) => with_threads(t, || {
                part.par_chunks_mut(block_bytes)
                    .enumerate()
                    .for_each(|(k, c)| block((first + k, c)))
            }),
            None => part
                .chunks_mut(block_bytes)
                .enumerate()
                .for_each(|(k, c)| block((first + k, c))),
        }
    }
    Ok(())
}

/// Writes one output row of a packed `bits`-bit tensor (its runs `row_segs`, each with
/// its first element, in units of `unit` elements), starting at element `at` of `out`,
/// from the input row starting at element `row` of `src`.
#[allow(clippy::too_many_arguments)]
fn packed_row(
    row_segs: &[(usize, Seg)],
    unit: usize,
    src: &[u8],
    row: usize,
    out: &mut [u8],
    at: usize,
    bits: usize,
    value: u8,
) {
    use crate::bits::{copy, fill};
    for &(pos, seg) in row_segs {
        let at = at + pos;
        match seg {
            Seg::Copy { src: s, len } => copy(out, at, src, row + s * unit, len * unit, bits),
            Seg::Fill { src: None, len } => fill(out, at, len * unit, bits, value),
            Seg::Fill { src: Some(s), len } if unit == 1 => {
                let v = crate::packed::get(src, bits as u32, row + s).unwrap_or(0);
                fill(out, at, len, bits, v)
            }
            Seg::Fill { src: Some(s), len } => {
                for k in 0..len {
                    copy(out, at + k * unit, src, row + s * unit, unit, bits);
                }
            }
            Seg::Rev { src: s, len } => {
                for k in 0..len {
                    copy(out, at + k * unit, src, row + (s - k) * unit, unit, bits);
                }
            }
            Seg::Spread { src: s, len, gap } => {
                let step = (gap + 1) * unit;
                for k in 0..len {
                    copy(out, at + k * step, src, row + (s + k) * unit, unit, bits);
                    if k + 1 < len {
                        fill(out, at + k * step + unit, gap * unit, bits, value);
                    }
                }
            }
        }
    }
}
