//! Inputs whose rows are each a line of elements a short step apart (a step on the
//! last axis, an image's channel), padded row by row where they lie on AMD CPUs
//! ([`stepped`]), instead of a box at a time ([`super::gather`]).

use crate::arch::{with_avx2, Cpu, LinesAhead, WriteAhead};
use crate::error::PadError;
use crate::index::next_index;
use crate::options::{PadOptions, Stopper};
use crate::plan::{Plan, PlanAxis, Seg};
use crate::tensor::DataMut;
use crate::tune::{GATHER_SPAN, STEPPED_ROW_MIN, STEPPED_ROW_MIN_BEYOND_CACHE, WRITE_AHEAD};

use super::gather::{elements, memory_order, Strided};
use super::threads::{asked, for_bytes, share_until};

/// Whether `src` is padded row by row where it lies ([`run_stepped`]) rather than a
/// box at a time: on AMD CPUs (`amd`), where its rows are each a line of elements
/// under [`GATHER_SPAN`] bytes apart (a step on the last axis, an image's channel)
/// read in C order ([`memory_order`]), the output's rows [`STEPPED_ROW_MIN`] bytes or
/// more ([`STEPPED_ROW_MIN_BEYOND_CACHE`] where the output is too large to stay in
/// the cache: `beyond`). On an AMD Zen 4, f32 [2000,4000][:, ::2] reflect 8 (one
/// thread, cold) ran in 0.7-0.8 of the boxes' time, a step of 3 in 0.67: the boxes
/// write their gathered buffer and read it back before writing it out, where rows in
/// place write each output byte once, straight from the input. Intel CPUs keep the
/// boxes (measured at 1.14x numpy.pad on the step of 2; rows in place are not
/// measured there).
pub(super) fn stepped(plan: &Plan, src: Strided<'_>, amd: bool, beyond: bool) -> bool {
    let (Some(&s), Some(&row)) = (src.strides.last(), plan.out_shape.last()) else {
        return false;
    };
    let least = match beyond {
        true => STEPPED_ROW_MIN_BEYOND_CACHE,
        false => STEPPED_ROW_MIN,
    };
    amd && plan.tile.is_none()
        && s > 0
        && s < GATHER_SPAN
        && row.saturating_mul(src.w) >= least
        && memory_order(src.strides, &plan.in_shape).is_none()
}

/// Pads `src` row by row where it lies ([`stepped`]): each output row's input row is
/// found from the outer axes' maps, its elements moved by the last axis's runs
/// ([`Seg`]; a copy as one strided move, [`elements`]), through the cache, in parts
/// on the threads `opts` asks for; the faces after.
pub(super) fn run_stepped(
    plan: &Plan,
    src: Strided<'_>,
    out: &mut [u8],
    opts: &PadOptions,
) -> Result<(), PadError> {
    let (Some((last, outer)), Some((&len, out_outer))) =
        (plan.axes.split_last(), plan.out_shape.split_last())
    else {
        return Ok(());
    };
    let w = src.w;
    let row = len * w;
    if row == 0 || out.is_empty() {
        return Ok(());
    }
    let rows = out.len() / row;
    let bytes = out.len();
    let stopper = Stopper::new(asked(opts, bytes));
    let threads = for_bytes(opts, bytes);
    let per = stopper.part_len(threads, rows, row);
    let bits = plan.value.bits().unwrap_or(0).to_le_bytes();
    let value = &bits[..w.min(16)];
    let cpu = Cpu::get();
    let rows_of = Rows {
        src,
        outer,
        out_outer,
        segs: &last.segs,
        // x86_64 without AVX2 moves single bytes faster one by one.
        groups: w > 1 || cpu.has_avx2() || cfg!(not(target_arch = "x86_64")),
        // Outputs too large to stay in the cache ask for their lines ahead: f32
        // [2000,4000][:, ::2] reflect 8 (16 MB out), Zen 4, one thread, 8% faster cold
        // and 15% hot; a 2 MB output (u8 [1080,1920,3][..., 1]) 5% slower hot.
        ahead: cpu.write_ahead().filter(|_| opts.beyond_cache(bytes)),
    };
    share_until(
        threads,
        out.chunks_mut(per * row).enumerate(),
        &stopper,
        |(i, part)| {
            with_avx2(
                cpu,
                #[inline(always)]
                || by_width!(w, W => rows_of.write::<W>((i * per, row), value, part)),
            );
        },
    )?;
    super::faces::fill(plan, &mut DataMut::Bytes(out));
    Ok(())
}

/// The rows [`run_stepped`] writes: the input, the outer axes and their output
/// extents, the last axis's runs, and whether steps are moved as groups.
struct Rows<'a> {
    src: Strided<'a>,
    outer: &'a [PlanAxis],
    out_outer: &'a [usize],
    segs: &'a [Seg],
    groups: bool,
    ahead: Option<WriteAhead>,
}

impl Rows<'_> {
    /// Output rows `first..` of `row` bytes into `out` (whole rows), elements of `W`
    /// bytes, `value` the constant's bytes.
    #[inline(always)]
    fn write<const W: usize>(&self, (first, row): (usize, usize), value: &[u8], out: &mut [u8]) {
        let Strided { bytes, strides, .. } = self.src;
        let (Some(&s), Some(value)) = (strides.last(), value.first_chunk::<W>()) else {
            return;
        };
        // The first row's output coordinates on the outer axes, the last read back.
        let mut index = vec![0usize; self.out_outer.len()];
        let mut rest = first;
        for (i, &n) in index.iter_mut().zip(self.out_outer).rev() {
            (*i, rest) = (rest % n.max(1), rest / n.max(1));
        }
        let mut lines = self.ahead.map(|a| a.forward(out.as_ptr()));
        for dst in out.chunks_exact_mut(row.max(1)) {
            // The input row: each outer axis's input coordinate (none: the constant).
            let base = self
                .outer
                .iter()
                .zip(&index)
                .zip(strides)
                .try_fold(0usize, |at, ((axis, &o), &st)| {
                    Some(at + axis.map.src(o)? * st)
                });
            let d: &mut [[u8; W]] = bytemuck::cast_slice_mut(dst);
            match base {
                None => d.fill(*value),
                Some(base) => {
                    // The plan reads inside the input (its strides' reach checked
                    // by the caller): the constant stands in only for a bug's read.
                    let el = |i: usize| {
                        let at = base + i * s;
                        debug_assert!(at + W <= bytes.len(), "element {i} at {at} past the input");
                        bytes
                            .get(at..)
                            .and_then(|b| b.first_chunk::<W>())
                            .unwrap_or(value)
                    };
                    let mut at = 0;
                    for seg in self.segs {
                        let part = &mut d[at..at + seg.len()];
                        at += seg.len();
                        match *seg {
                            Seg::Copy { src, .. } => {
                                self.copy(base + src * s, part, &mut lines);
                            }
                            Seg::Fill { src: None, .. } => part.fill(*value),
                            Seg::Fill { src: Some(i), .. } => part.fill(*el(i)),
                            _ => {
                                for (k, e) in part.iter_mut().enumerate() {
                                    *e = seg.src_at(k).map_or(*value, |i| *el(i));
                                }
                            }
                        }
                    }
                }
            }
            next_index(&mut index, self.out_outer);
        }
    }

    /// A run of the input's elements from byte `at` on into `part`; where `lines`
    /// asks for the output's lines ahead, in pieces of [`WRITE_AHEAD`] bytes, each
    /// asking for the lines ahead of it.
    #[inline(always)]
    fn copy<const W: usize>(
        &self,
        at: usize,
        part: &mut [[u8; W]],
        lines: &mut Option<LinesAhead>,
    ) {
        let Strided { bytes, strides, .. } = self.src;
        let s = strides.last().copied().unwrap_or(0);
        let piece = match lines {
            Some(_) => (WRITE_AHEAD / W).max(1),
            None => part.len().max(1),
        };
        for (k, p) in part.chunks_mut(piece).enumerate() {
            if let Some(l) = lines.as_mut() {
                l.reached(p.as_ptr().cast());
            }
            let p = bytemuck::cast_slice_mut(p);
            elements::<W>(bytes, at + k * piece * s, s, p, self.groups);
        }
    }
}

#[cfg(test)]
// Under Miri the reference comparison (and what only it uses) is left out.
#[cfg_attr(miri, allow(dead_code, unused_imports))]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::spec::{AxisPad, Mode, PadSpec};
    use crate::tensor::Tensor;
    use crate::Scalar;

    /// `spec` of the `shape` elements of `w` bytes laid out with the byte `strides` in
    /// `buf`: by [`run_stepped`] (on `threads` threads, each part one row or more;
    /// outputs of `stream_min_bytes` or more ask for their lines ahead, in pieces) and
    /// by the reference, of the same elements in C order.
    fn both(
        dtype: DType,
        (shape, strides): (&[usize], &[usize]),
        buf: &[u8],
        spec: &PadSpec,
        (threads, stream_min_bytes): (usize, usize),
    ) -> (Vec<u8>, Vec<u8>) {
        let w = dtype.byte_len(1).unwrap();
        let n: usize = shape.iter().product();
        let mut held = Vec::with_capacity(n * w);
        for i in 0..n {
            let (mut at, mut rest) = (0, i);
            for a in (0..shape.len()).rev() {
                at += rest % shape[a] * strides[a];
                rest /= shape[a];
            }
            held.extend_from_slice(&buf[at..at + w]);
        }
        let x = Tensor::from_bytes(dtype, shape, held).unwrap();
        let want = crate::reference::pad(x.view(), spec).unwrap();
        let plan = Plan::new(dtype, shape, spec).unwrap();
        let mut out = vec![0xAA; want.bytes().unwrap().len()];
        let opts = PadOptions {
            threads,
            parallel_threshold: 0,
            stream_min_bytes,
            ..PadOptions::default()
        };
        let src = Strided {
            bytes: buf,
            strides,
            w,
        };
        run_stepped(&plan, src, &mut out, &opts).unwrap();
        (out, want.bytes().unwrap().to_vec())
    }

    /// Rows read in place, each a step of 2 to 4 elements (or an image's channel, 3
    /// bytes apart), equal the reference's pad of the same elements: every mode, a
    /// constant per side, crops, interior padding, a broadcast outer axis, outer axes
    /// with gaps; one thread, and three asking for the output's lines ahead. Not under
    /// Miri (safe code only; a pool of its own for three threads trips Miri over
    /// crossbeam-epoch, and the cases are large).
    #[cfg(not(miri))]
    #[test]
    fn rows_in_place_equal_the_reference() {
        let buf: Vec<u8> = (0..400_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let layouts: [(DType, &[usize], &[usize]); 6] = [
            // f32 [40, 300] of [40, 600]: a step of 2.
            (DType::Float32, &[40, 300], &[2400, 8]),
            // u8 [30, 500, 3][..., 1]: an image's channel.
            (DType::Uint8, &[30, 500], &[1500, 3]),
            // i16 [3, 20, 200] with gaps between the outer axes, a step of 3.
            (DType::Int16, &[3, 20, 200], &[30000, 1300, 6]),
            // f64 [4, 10, 100] whose first axis is broadcast, a step of 4.
            (DType::Float64, &[4, 10, 100], &[0, 3300, 32]),
            // f32 with an outer axis of one element.
            (DType::Float32, &[1, 30, 250], &[0, 2000, 8]),
            // 1-D: one row.
            (DType::Float32, &[2000], &[12]),
        ];
        for (dtype, shape, strides) in layouts {
            let rank = shape.len();
            let pads = |mode| {
                // The outer axes by one where they have three elements or more.
                let pads = shape
                    .iter()
                    .enumerate()
                    .map(|(a, &n)| match (a + 1 == rank, n >= 3) {
                        (true, _) => AxisPad::new(5, 7),
                        (false, true) => AxisPad::new(1, 1),
                        (false, false) => AxisPad::new(0, 0),
                    })
                    .collect();
                PadSpec::new(pads, mode)
            };
            let side = |v: u128| Scalar::from_bits(dtype, v).ok();
            let sides = (0..rank)
                .map(|a| [side(a as u128 + 1), side(a as u128 + 5)])
                .collect();
            let mut crop: Vec<AxisPad> = shape
                .iter()
                .map(|&n| match n >= 3 {
                    true => AxisPad::new(2, 1),
                    false => AxisPad::new(0, 0),
                })
                .collect();
            crop[rank - 1] = AxisPad::new(-3, 5);
            let mut interior: Vec<AxisPad> = (0..rank).map(|_| AxisPad::new(1, 0)).collect();
            interior[rank - 1] = AxisPad {
                begin: 2,
                end: 1,
                interior: 2,
            };
            let specs = [
                pads(Mode::Reflect),
                pads(Mode::Symmetric),
                pads(Mode::Edge),
                pads(Mode::Wrap),
                pads(Mode::Constant(None)),
                pads(Mode::Constant(None)).with_sides(sides),
                PadSpec::new(crop, Mode::Reflect),
                PadSpec::new(interior, Mode::Constant(None)),
            ];
            for spec in specs {
                // One thread without asking ahead, three asking (in pieces).
                for run in [(1, usize::MAX), (3, 0)] {
                    let (got, want) = both(dtype, (shape, strides), &buf, &spec, run);
                    assert!(
                        got == want,
                        "{dtype:?} {shape:?} {strides:?} {spec:?} {run:?}"
                    );
                }
            }
        }
    }

    /// Rows go in place only on AMD, each a line of elements under `GATHER_SPAN` bytes
    /// apart read in C order, the output's rows `STEPPED_ROW_MIN` bytes or more
    /// (`STEPPED_ROW_MIN_BEYOND_CACHE` for an output too large for the cache).
    #[test]
    fn which_rows_go_in_place() {
        let spec = PadSpec::new(vec![AxisPad::new(1, 1), AxisPad::new(8, 8)], Mode::Edge);
        let buf = [0u8; 0];
        let in_place = |shape: &[usize], strides: &[usize], amd, beyond| {
            let plan = Plan::new(DType::Float32, shape, &spec).unwrap();
            let src = Strided {
                bytes: &buf,
                strides,
                w: 4,
            };
            stepped(&plan, src, amd, beyond)
        };
        let at = |shape: &[usize], strides: &[usize], amd| in_place(shape, strides, amd, false);
        // Rows of 416 and 352 bytes: in place only where the output is beyond the cache.
        assert!(in_place(&[2000, 88], &[800, 8], true, true));
        assert!(!in_place(&[2000, 88], &[800, 8], true, false));
        assert!(!in_place(&[2000, 72], &[800, 8], true, true));
        assert!(at(&[2000, 2000], &[16000, 8], true));
        assert!(!at(&[2000, 2000], &[16000, 8], false));
        // A step of a cache line pair or more; rows of fewer bytes; a transpose.
        assert!(!at(&[2000, 2000], &[400_000, 128], true));
        assert!(at(&[2000, 248], &[2000, 4 * 2], true));
        assert!(!at(&[2000, 230], &[2000, 4 * 2], true));
        assert!(!at(&[2000, 2000], &[4, 8000], true));
    }
}
