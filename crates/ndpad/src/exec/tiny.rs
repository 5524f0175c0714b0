//! Tiny planes: planes (one pass of the innermost outer axis) of 4-, 8- or 16-byte
//! elements (moved as 4-byte words) of at most [`TINY_PLANE_MAX`] bytes of narrow
//! rows ([`TINY_WIDE_PLANE_MAX`] of wider ones), such as a 7x7 feature map padded by
//! one to 9x9 (36-byte rows, which the row kernels write a few elements a call).
//! Each is written whole from a table built once per pad ([`TinyPlanes::new`]):
//! every 32 output bytes are taken by [`Avx2::permute`] from at most two 32-byte
//! windows of the plane's input and the constant.

#![allow(unsafe_code)]

use crate::arch::{Avx2, Permute8};
use crate::plan::Seg;
use crate::tune::{NARROW_ROW_BYTES, TINY_PLANE_MAX, TINY_WIDE_PLANE_MAX};

use super::plane_loops::RowMap;

/// 32 output bytes of a plane: the starts of its two input windows (in 4-byte words
/// from the plane's input base) and what each output word takes.
struct Piece {
    a: usize,
    b: usize,
    permute: Permute8,
}

/// The table of one plane's output, the same for every plane of the pad.
pub(crate) struct TinyPlanes {
    avx2: Avx2,
    pieces: Vec<Piece>,
    /// Input words from a plane's base that the windows read: each window's 8 words
    /// lie inside (the unchecked loads of [`TinyPlanes::write`] rely on it).
    span: usize,
    /// Bytes of an output plane.
    bytes: usize,
    /// The constant's element, to 32 bytes.
    fill: [u8; 32],
}

impl TinyPlanes {
    /// The table for planes whose output rows take input rows `rows` (each `stride`
    /// 4-byte words apart; [`RowMap::CONSTANT`] for a row of the constant) and whose
    /// words of a row take input columns as the row axis's `segs` say (`unit` words
    /// to a segment position; `in_row` words to an input row), `value` the bytes of
    /// the constant's element (4, 8 or 16). `None` where the planes are not tiny, a
    /// piece would need more than two windows, or there is no AVX2.
    pub(super) fn new(
        avx2: Option<Avx2>,
        rows: &[u32],
        (segs, unit, in_row): (&[Seg], usize, usize),
        stride: usize,
        value: &[u8],
    ) -> Option<TinyPlanes> {
        let avx2 = avx2?;
        if !matches!(value.len(), 4 | 8 | 16) {
            return None;
        }
        let mut cols = Vec::new();
        for seg in segs {
            for k in 0..seg.len() {
                let src = seg.src_at(k);
                cols.extend((0..unit).map(|sub| src.map(|s| s * unit + sub)));
            }
        }
        let out = rows.len().checked_mul(cols.len())?;
        let most = match cols.len() * 4 <= NARROW_ROW_BYTES {
            true => TINY_PLANE_MAX,
            false => TINY_WIDE_PLANE_MAX,
        };
        if out == 0 || out.checked_mul(4)? > most {
            return None;
        }
        if cols.iter().flatten().any(|&c| c >= in_row) {
            return None;
        }
        let last_row = rows.iter().filter(|&&r| r != RowMap::CONSTANT).max();
        let span = (*last_row? as usize)
            .checked_mul(stride)?
            .checked_add(in_row)?;
        if span < 8 {
            return None;
        }
        let src_of = |i: usize| match (rows[i / cols.len()], cols[i % cols.len()]) {
            (RowMap::CONSTANT, _) | (_, None) => None,
            (r, Some(c)) => Some(r as usize * stride + c),
        };
        let mut pieces = Vec::with_capacity(out.div_ceil(8));
        for start in (0..out).step_by(8) {
            let srcs: [Option<usize>; 8] =
                std::array::from_fn(|l| (start + l < out).then(|| src_of(start + l)).flatten());
            // Window `a` from the first element read, `b` from the first beyond it.
            let a = srcs.iter().flatten().min().copied().unwrap_or(0);
            let beyond_a = || srcs.iter().flatten().copied().filter(|&s| s >= a + 8);
            let b = beyond_a().min().unwrap_or(a);
            if beyond_a().any(|s| s >= b + 8) {
                return None;
            }
            // Both windows inside the span (still covering what they give).
            let (wa, wb) = (a.min(span - 8), b.min(span - 8));
            let mut permute = Permute8([0; 8]);
            for (word, s) in permute.0.iter_mut().zip(srcs) {
                *word = match s {
                    None => Permute8::FILL,
                    Some(s) if s < a + 8 => (s - wa) as u32,
                    Some(s) => Permute8::FROM_B | (s - wb) as u32,
                };
            }
            pieces.push(Piece {
                a: wa,
                b: wb,
                permute,
            });
        }
        let mut fill = [0u8; 32];
        fill.chunks_exact_mut(value.len())
            .for_each(|c| c.copy_from_slice(value));
        Some(TinyPlanes {
            avx2,
            pieces,
            span,
            bytes: out * 4,
            fill,
        })
    }

    /// Writes one plane's output at the start of `dst` from `src`, the input's bytes
    /// from the plane's base on. Where `dst` goes on past the plane, the last piece is
    /// stored whole: up to 28 bytes after the plane are overwritten (the caller writes
    /// them next).
    #[inline(always)]
    pub(super) fn write(&self, src: &[u8], dst: &mut [u8]) {
        let src = &src[..self.span * 4];
        let end = self.bytes.next_multiple_of(32).min(dst.len());
        let dst = &mut dst[..end];
        // Unchecked: a bounds check a window ran the 7x7 maps 8% slower hot.
        let window = |at: usize| {
            debug_assert!(at + 8 <= self.span);
            // SAFETY: every window starts at most `span - 8` words from the plane's
            // base (`TinyPlanes::new` clamps `a` and `b` so), so its 32 bytes lie
            // inside `src`, the span's `4 * span` bytes; `[u8; 32]` has alignment 1.
            unsafe { &*src.as_ptr().add(at * 4).cast::<[u8; 32]>() }
        };
        let piece = |p: &Piece| {
            self.avx2
                .permute(window(p.a), window(p.b), &p.permute, &self.fill)
        };
        let mut chunks = dst.chunks_exact_mut(32);
        // Whole pieces by fixed-size stores (a copy of a length known only at run
        // time was a call to memcpy).
        for (p, out) in self.pieces.iter().zip(&mut chunks) {
            if let Ok(out) = <&mut [u8; 32]>::try_from(out) {
                *out = piece(p);
            }
        }
        let tail = chunks.into_remainder();
        if let (false, Some(p)) = (tail.is_empty(), self.pieces.last()) {
            tail.copy_from_slice(&piece(p)[..tail.len()]);
        }
    }

    /// Writes the constant over one plane's output at the start of `dst`, whole
    /// 32-byte pieces as [`TinyPlanes::write`] stores them.
    #[inline(always)]
    pub(super) fn write_constant(&self, dst: &mut [u8]) {
        let end = self.bytes.next_multiple_of(32).min(dst.len());
        for out in dst[..end].chunks_mut(32) {
            out.copy_from_slice(&self.fill[..out.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AxisPad, DType, Mode, PadSpec, Plan, Tensor};

    /// One 7x7 plane padded to 10x9 by its table: the reference's plane (the table
    /// alone, small enough for Miri; `exec::tests` runs whole pads).
    #[test]
    fn a_plane_by_its_table_is_the_references() {
        let Some(avx2) = crate::arch::Cpu::get().avx2() else {
            return;
        };
        let data: Vec<f32> = (0..49).map(|i| i as f32 + 0.5).collect();
        let x = Tensor::from_slice(&[7, 7], &data).unwrap();
        let seven = crate::Scalar::from_f64(DType::Float32, 7.0).unwrap();
        for mode in [
            Mode::Reflect,
            Mode::Constant(Some(seven)),
            Mode::Wrap,
            Mode::Edge,
        ] {
            let pads = vec![AxisPad::new(1, 2), AxisPad::new(2, -1)];
            let spec = PadSpec::new(pads, mode.clone());
            let plan = Plan::new(DType::Float32, &[7, 7], &spec).unwrap();
            let want = crate::reference::pad(x.view(), &spec).unwrap();
            let rows = super::super::row_map(&plan.axes[0].segs, plan.axes[0].map.n).unwrap();
            let value = 7f32.to_le_bytes();
            let t =
                TinyPlanes::new(Some(avx2), &rows, (&plan.axes[1].segs, 1, 7), 7, &value).unwrap();
            let mut out = vec![0xAAu8; want.bytes().unwrap().len()];
            t.write(x.bytes().unwrap(), &mut out);
            assert_eq!(&out[..], want.bytes().unwrap(), "{mode:?}");
        }
        // More than two windows to a piece (rows 0, 3 and 6 in its 8 elements): no
        // table.
        let rows = [0u32, 3, 6, 0];
        let segs = [Seg::Copy { src: 0, len: 2 }];
        assert!(TinyPlanes::new(Some(avx2), &rows, (&segs, 1, 7), 7, &[0; 4]).is_none());
    }
}
