//! Tiling: outputs that repeat a short axis very many times.
//!
//! Reflect, symmetric and wrap padding read input coordinate `fold(o - shift)` at
//! output coordinate `o`, and the fold is periodic: the output along such an axis
//! repeats itself every period (`2 (len - 1)`, `2 len` or `len` coordinates), data
//! region included. Where an axis repeats its period more often than
//! [`crate::tune::TILE_MIN_PERIODS`] times (a two-element axis padded by ten million),
//! listing its runs would cost more memory than the output, so [`crate::Plan::new`]
//! plans one period of it instead: the *tile*, the box of the output that starts at 0
//! and is one period long on each such axis. The executor pads the tile into a buffer
//! of its own; [`expand`] puts it into the output's corner and repeats it along each
//! tiled axis by copying what is already written, doubling each time.

use crate::error::PadError;
use crate::index::{c_strides, for_each_index};
use crate::options::KernelName;
use crate::plan::Plan;
use crate::strings::Strings;
use crate::tensor::DataMut;

/// Runs a tiled `plan`: `pad_tile` pads its tile (`plan`'s tile plan) into the buffer
/// it is given, then the tile is repeated over `out`.
pub(crate) fn run(
    plan: &Plan,
    tile: &Plan,
    out: &mut DataMut<'_>,
    pad_tile: impl FnOnce(&mut DataMut<'_>) -> Result<Option<KernelName>, PadError>,
) -> Result<Option<KernelName>, PadError> {
    let no_memory = || PadError::OutOfMemory {
        shape: tile.output_shape().to_vec(),
        bytes: tile.output_bytes(),
    };
    let from = plan.output_shape();
    let to = tile.output_shape();
    match out {
        DataMut::Bytes(o) => {
            let mut buf = crate::os::zeroed_vec(tile.output_bytes()).ok_or_else(no_memory)?;
            let name = pad_tile(&mut DataMut::Bytes(&mut buf))?;
            // Bytes of one element: the innermost axis counts `width` bytes a coordinate.
            let width = plan.dtype().byte_len(1).unwrap_or(1);
            expand(&buf, to, o, from, width);
            Ok(name)
        }
        DataMut::Strings(o) => {
            let mut buf = Strings::filled(tile.output_numel(), "")?;
            let name = pad_tile(&mut DataMut::Strings(&mut buf))?;
            // The tile's text (the input's and the constants) is the output's.
            std::mem::swap(&mut o.text, &mut buf.text);
            expand(&buf.spans, to, &mut o.spans, from, 1);
            Ok(name)
        }
    }
}

/// Fills `out` (C order, shape `out_shape`) by repeating `tile` (C order, shape
/// `tile_shape`, on each axis either the output's extent or a shorter period): `out[i]
/// = tile[i mod tile_shape]`. Each tensor element is `width` items of the slices.
/// The tile goes into the corner first; then, from the innermost axis out, the written
/// part of each block along a tiled axis is copied after itself until the block is
/// full (the axes inside it are complete by then, so a block is contiguous).
pub(crate) fn expand<T: bytemuck::Pod>(
    tile: &[T],
    tile_shape: &[usize],
    out: &mut [T],
    out_shape: &[usize],
    width: usize,
) {
    let rank = out_shape.len();
    if out.is_empty() {
        return;
    }
    if rank == 0 {
        crate::copy_through_cache(out, tile);
        return;
    }
    // Strides in items, of the output and of the tile (both in memory: no overflow).
    let strides = |shape: &[usize]| c_strides(shape, width).unwrap_or_default();
    let out_strides = strides(out_shape);
    let tile_strides = strides(tile_shape);
    // The tile into the corner, one innermost row at a time.
    let row = tile_shape[rank - 1] * width;
    for_each_index(&tile_shape[..rank - 1], |index| {
        let at = |s: &[usize]| index.iter().zip(s).map(|(i, s)| i * s).sum::<usize>();
        let (o, t) = (at(&out_strides), at(&tile_strides));
        crate::copy_through_cache(&mut out[o..o + row], &tile[t..t + row]);
    });
    // Each tiled axis from the innermost out; outer axes still hold only their tile.
    for axis in (0..rank).rev().filter(|&a| tile_shape[a] < out_shape[a]) {
        let block = out_shape[axis] * out_strides[axis];
        let written = tile_shape[axis] * out_strides[axis];
        let outer: Vec<usize> = (0..axis).map(|a| tile_shape[a]).collect();
        for_each_index(&outer, |index| {
            let start: usize = index.iter().zip(&out_strides).map(|(i, s)| i * s).sum();
            let block = &mut out[start..start + block];
            let mut filled = written;
            while filled < block.len() {
                let n = filled.min(block.len() - filled);
                let (head, tail) = block.split_at_mut(filled);
                crate::copy_through_cache(&mut tail[..n], &head[..n]);
                filled += n;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_every_tiled_axis() {
        // A 2x3 tile repeated to 5x7 (both axes tiled), width 2.
        let tile: Vec<u16> = (0..12).collect();
        let mut out = vec![0u16; 5 * 7 * 2];
        expand(&tile, &[2, 3], &mut out, &[5, 7], 2);
        for i in 0..5 {
            for j in 0..7 {
                for k in 0..2 {
                    let want = tile[((i % 2) * 3 + j % 3) * 2 + k];
                    assert_eq!(out[(i * 7 + j) * 2 + k], want, "{i} {j} {k}");
                }
            }
        }
    }

    #[test]
    fn expands_a_middle_axis_only() {
        let tile: Vec<u8> = (0..3 * 2 * 4).collect();
        let mut out = vec![0u8; 3 * 9 * 4];
        expand(&tile, &[3, 2, 4], &mut out, &[3, 9, 4], 1);
        for i in 0..3 {
            for j in 0..9 {
                for k in 0..4 {
                    assert_eq!(out[(i * 9 + j) * 4 + k], tile[(i * 2 + j % 2) * 4 + k]);
                }
            }
        }
    }
}
