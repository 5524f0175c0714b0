//! What runs on the host: the per-axis index maps derived from the core's [`Plan`],
//! the kernel element width chosen for a call, and a host emulation of the gather
//! kernel (the same maps, the same index arithmetic) that tests compare with the CPU
//! kernel, so the maps are verified without a GPU.

use ndpad::{numel, DType, Layout, Plan};

use crate::error::CudaError;

/// The most entries the index tables of one plan may have (the output coordinates
/// of the gathered axes outside their affine bodies): 2^30 entries, 8 GiB.
pub const MAX_MAP_ENTRIES: u64 = 1 << 30;

/// The most gathered axes a plan may have once runs of axes the pad leaves alone are
/// fused (the kernel takes them as launch parameters, unrolled).
pub const MAX_AXES: usize = 16;

/// The kernel element widths, in bytes, widest first.
pub const WIDTHS: [usize; 5] = [16, 8, 4, 2, 1];

/// Words (u64) of the kernel's launch parameters ([`GatherPlan::params`]): the unit's
/// and the row's divisors, the element count, the axis count, the constant, then
/// [`MAX_AXES`] axes of [`AXIS_WORDS`] words.
pub const PARAM_WORDS: usize = 4 + 4 + 2 + 2 + MAX_AXES * AXIS_WORDS;

/// Words of one axis in the launch parameters: its extent's divisor (4), where its
/// table starts, its body's first and end coordinate, its stride and the body's base.
pub const AXIS_WORDS: usize = 9;

/// One gathered axis as the kernel reads it. Output coordinate `c` in the body
/// `lo..hi` reads input offset `c * stride + base` (in units); any other reads
/// `maps[start + c]` before the body, `maps[start + c - (hi - lo)]` after it (an input
/// offset in units, or -1 for the constant).
#[derive(Clone, Debug, PartialEq, Eq)]
struct GatherAxis {
    n: u64,
    lo: u64,
    hi: u64,
    stride: u64,
    base: i64,
    start: u64,
}

impl GatherAxis {
    /// The input offset in units that coordinate `c` reads, or -1.
    fn map(&self, maps: &[i64], c: u64) -> i64 {
        if (self.lo..self.hi).contains(&c) {
            (c * self.stride) as i64 + self.base
        } else {
            let skip = if c >= self.hi { self.hi - self.lo } else { 0 };
            maps[(self.start + c - skip) as usize]
        }
    }
}

/// A plan as the gather kernel runs it.
///
/// The output is viewed as `rows x unit`: the trailing axes the pad leaves as they
/// are fuse into one contiguous *unit* of elements (`unit` elements, the same in the
/// input and the output), and the axes up to the last padded one are *gathered*
/// (runs of axes the pad leaves alone among them fused into one). Output element `i`
/// is unit element `u = i % unit` of row `r = i / unit`; `r` is split into one
/// coordinate `c[a]` per gathered axis (last axis fastest), and each axis maps its
/// coordinate to an input offset in units, or to the constant: by `c * stride + base`
/// in its *body* (where the output reads the input in order) and by an index table
/// elsewhere (the pads). The element reads input element `sum(offsets) * unit + u`,
/// or is the constant when any axis maps to it.
///
/// Every table entry is the core's own [`ndpad::AxisMap::src`] of the plan, and the
/// body is the window [`ndpad::AxisMap`] reads in order: the GPU executor has no
/// semantics of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatherPlan {
    dtype: DType,
    elem: usize,
    packed: Option<u32>,
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
    in_numel: u64,
    out_numel: u64,
    unit: u64,
    dims: Vec<u64>,
    axes: Vec<GatherAxis>,
    maps: Vec<i64>,
    constant: Vec<u8>,
}

impl GatherPlan {
    /// Derives the index tables of `plan`.
    ///
    /// # Errors
    /// [`CudaError::UnsupportedType`] for strings; [`CudaError::Sides`] for constants
    /// per side; [`CudaError::TooManyAxes`] for more than [`MAX_AXES`] gathered axes;
    /// [`CudaError::MapsTooLarge`] when the tables would have more than
    /// [`MAX_MAP_ENTRIES`] entries; [`CudaError::OutOfMemory`] when they cannot be
    /// allocated.
    pub fn new(plan: &Plan) -> Result<GatherPlan, CudaError> {
        if !plan.faces().is_empty() {
            return Err(CudaError::Sides {
                faces: plan.faces().len(),
            });
        }
        let dtype = plan.dtype();
        let (elem, packed) = match dtype.layout() {
            Layout::Bytes(w) => (w, None),
            Layout::Packed(bits) => (1, Some(bits)),
            Layout::Strings => {
                return Err(CudaError::UnsupportedType {
                    dtype,
                    reason: "strings are not fixed-width bytes",
                })
            }
        };
        let in_shape = plan.input_shape().to_vec();
        let out_shape = plan.output_shape().to_vec();
        let in_numel = numel(&in_shape)? as u64;
        let out_numel = plan.output_numel() as u64;
        let axes = plan.axes();
        // The gathered axes: up to the last one the pad changes; none when the output
        // is empty (nothing is written) or the pad changes nothing (one unit).
        let last = axes.iter().rposition(|ax| !ax.map.is_identity(ax.dim));
        let gathered = match last {
            Some(l) if out_numel > 0 => l + 1,
            _ => 0,
        };
        let mut unit: u64 = if gathered == 0 {
            out_numel
        } else {
            out_shape[gathered..].iter().map(|&d| d as u64).product()
        };
        // Runs of axes left alone fuse into one: its extent the run's product, its
        // stride the run's last axis's.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for (a, ax) in axes[..gathered].iter().enumerate() {
            match runs.last_mut() {
                Some((_, end))
                    if ax.map.is_identity(ax.dim)
                        && axes[*end - 1].map.is_identity(axes[*end - 1].dim) =>
                {
                    *end = a + 1
                }
                _ => runs.push((a, a + 1)),
            }
        }
        if runs.len() > MAX_AXES {
            return Err(CudaError::TooManyAxes {
                axes: runs.len(),
                limit: MAX_AXES,
            });
        }
        // The body of each axis and the size of its table (the coordinates outside).
        let bodies: Vec<(u64, u64, u64)> = runs
            .iter()
            .map(|&(first, end)| {
                let n: u64 = out_shape[first..end].iter().map(|&d| d as u64).product();
                if end - first > 1 {
                    return (n, 0, n);
                }
                let m = &axes[first].map;
                if m.interior != 0 || m.len == 0 {
                    return (n, 0, 0);
                }
                let lo = m.shift.clamp(0, n as i128) as u64;
                let hi = (m.shift + m.len as i128).clamp(lo as i128, n as i128) as u64;
                (n, lo, hi)
            })
            .collect();
        let entries: u128 = bodies
            .iter()
            .map(|&(n, lo, hi)| u128::from(n - (hi - lo)))
            .sum();
        if entries > u128::from(MAX_MAP_ENTRIES) {
            return Err(CudaError::MapsTooLarge {
                shape: out_shape,
                entries,
                limit: MAX_MAP_ENTRIES,
            });
        }
        let mut maps: Vec<i64> = Vec::new();
        maps.try_reserve_exact(entries as usize)
            .map_err(|_| CudaError::OutOfMemory {
                what: "the index tables",
                bytes: entries * 8,
            })?;
        let mut gaxes = Vec::with_capacity(runs.len());
        for (&(first, end), &(n, lo, hi)) in runs.iter().zip(&bodies) {
            // Input stride of the axis in units: the input extents of the gathered axes
            // after it (their product is at most the input's element count).
            let stride: u64 = in_shape[end..gathered].iter().map(|&d| d as u64).product();
            let start = maps.len() as u64;
            let m = &axes[first].map;
            let src = |o: u64| match m.src(o as usize) {
                Some(s) => (s as u64 * stride) as i64,
                None => -1,
            };
            let base = if end - first > 1 {
                0
            } else {
                ((m.offset as i128 - m.shift) * stride as i128) as i64
            };
            maps.extend((0..lo).chain(hi..n).map(src));
            let axis = GatherAxis {
                n,
                lo,
                hi,
                stride,
                base,
                start,
            };
            debug_assert!(end - first > 1 || (lo..hi).all(|c| axis.map(&maps, c) == src(c)));
            gaxes.push(axis);
        }
        fold_unit(&mut gaxes, &mut maps, &mut unit, elem);
        let constant = plan.value().to_le_bytes();
        debug_assert_eq!(constant.len(), elem);
        Ok(GatherPlan {
            dtype,
            elem,
            packed,
            in_shape,
            out_shape,
            in_numel,
            out_numel,
            unit,
            dims: gaxes.iter().map(|a| a.n).collect(),
            axes: gaxes,
            maps,
            constant,
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Bytes per element as the gather moves them (1 for the packed types, which are
    /// widened to one byte per element around the gather).
    pub fn elem_bytes(&self) -> usize {
        self.elem
    }

    /// Bits per element of a packed type, `None` for a fixed-width one.
    pub fn packed_bits(&self) -> Option<u32> {
        self.packed
    }

    /// The input shape.
    pub fn input_shape(&self) -> &[usize] {
        &self.in_shape
    }

    /// The output shape.
    pub fn output_shape(&self) -> &[usize] {
        &self.out_shape
    }

    /// Input elements.
    pub fn input_numel(&self) -> u64 {
        self.in_numel
    }

    /// Output elements.
    pub fn output_numel(&self) -> u64 {
        self.out_numel
    }

    /// Contiguous elements per unit (the fused trailing axes the pad leaves alone).
    pub fn unit(&self) -> u64 {
        self.unit
    }

    /// Output extents of the gathered axes (the innermost one times the unit where a
    /// small unit is folded into it).
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    /// The index tables of the gathered axes (the coordinates outside each axis's
    /// body), one after the other.
    pub fn maps(&self) -> &[i64] {
        &self.maps
    }

    /// The kernel's launch parameters at `args` ([`PARAM_WORDS`] words, laid out as
    /// `ndpad_params` in [`crate::kernel`]).
    pub fn params(&self, args: &GatherArgs) -> [u64; PARAM_WORDS] {
        let mut p = [0u64; PARAM_WORDS];
        p[0..4].copy_from_slice(&divisor(args.unit));
        let row = self.dims.last().map_or(args.total, |&n| n * args.unit);
        p[4..8].copy_from_slice(&divisor(row));
        p[8] = args.total;
        p[9] = self.axes.len() as u64;
        let mut constant = [0u8; 16];
        constant[..args.constant.len()].copy_from_slice(&args.constant);
        p[10] = u64::from_le_bytes(constant[..8].try_into().unwrap_or_default());
        p[11] = u64::from_le_bytes(constant[8..].try_into().unwrap_or_default());
        // Innermost first: the kernel's unrolled loops stop after the last axis.
        for (a, x) in self.axes.iter().rev().enumerate() {
            let w = &mut p[12 + a * AXIS_WORDS..12 + (a + 1) * AXIS_WORDS];
            w[..4].copy_from_slice(&divisor(x.n));
            w[4..].copy_from_slice(&[x.start, x.lo, x.hi, x.stride, x.base as u64]);
        }
        p
    }

    /// The constant's bytes (one element; for packed types one byte holding the value).
    pub fn constant(&self) -> &[u8] {
        &self.constant
    }

    /// Bytes of the input as stored (packed types: two or four elements a byte).
    pub fn input_bytes(&self) -> usize {
        self.dtype
            .byte_len(self.in_numel as usize)
            .unwrap_or(usize::MAX)
    }

    /// Bytes of the output as stored.
    pub fn output_bytes(&self) -> usize {
        self.dtype
            .byte_len(self.out_numel as usize)
            .unwrap_or(usize::MAX)
    }

    /// The widest kernel element for buffers at device addresses `input` and `output`:
    /// the widest of [`WIDTHS`] that is a multiple of the element, divides a unit's
    /// bytes, and divides both addresses (so every load and store is aligned).
    pub fn widest(&self, input: u64, output: u64) -> usize {
        let unit_bytes = self.unit.saturating_mul(self.elem as u64);
        WIDTHS
            .into_iter()
            .find(|&w| {
                let w64 = w as u64;
                w >= self.elem
                    && unit_bytes.is_multiple_of(w64)
                    && input.is_multiple_of(w64)
                    && output.is_multiple_of(w64)
            })
            .unwrap_or(self.elem)
    }

    /// The launch arguments of the gather at kernel element `width`: `width / elem`
    /// elements move as one, so the unit and the element count shrink by that factor
    /// and the constant is repeated as often.
    ///
    /// # Errors
    /// [`CudaError::BadWidth`] when `width` is not one of [`WIDTHS`], is narrower than
    /// the element, or does not divide a unit's bytes.
    pub fn args(&self, width: usize) -> Result<GatherArgs, CudaError> {
        let bad = CudaError::BadWidth {
            width,
            elem: self.elem,
        };
        if !WIDTHS.contains(&width) || width < self.elem {
            return Err(bad);
        }
        let lanes = (width / self.elem) as u64;
        if !self.unit.is_multiple_of(lanes) {
            return Err(bad);
        }
        Ok(GatherArgs {
            width,
            unit: self.unit / lanes,
            total: self.out_numel / lanes,
            constant: self.constant.repeat(lanes as usize),
        })
    }
}

/// How a call launches the gather: `Launch::default()` lets the plan and the buffers
/// choose; tests force each choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// Bytes per kernel element (`None`: the widest the buffers and the unit allow).
    pub width: Option<usize>,
    /// Whether each thread writes 16 bytes at a time, `16 / width` kernel elements
    /// with one store (`Some(true)`), or one kernel element (`Some(false)`); `None`:
    /// the former where the output's address is a multiple of 16.
    pub vector: Option<bool>,
}

impl Launch {
    /// Kernel elements each thread writes at a time at kernel element `width` into an
    /// output at device address `output`.
    ///
    /// # Errors
    /// [`CudaError::Unaligned`] when 16-byte stores are asked for (`Some(true)`) into
    /// an output whose address is not a multiple of 16.
    pub fn lanes(&self, width: usize, output: u64) -> Result<usize, CudaError> {
        let aligned = output.is_multiple_of(16);
        match self.vector {
            Some(true) if !aligned => Err(CudaError::Unaligned {
                address: output,
                align: 16,
            }),
            Some(false) => Ok(1),
            _ if aligned => Ok((16 / width.max(1)).max(1)),
            _ => Ok(1),
        }
    }
}

/// What one launch of the gather kernel takes besides the buffers and maps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatherArgs {
    /// Bytes per kernel element.
    pub width: usize,
    /// Kernel elements per unit.
    pub unit: u64,
    /// Kernel elements of the output.
    pub total: u64,
    /// One kernel element of the constant.
    pub constant: Vec<u8>,
}

/// The gather kernel on the host: the same tables, bodies and index arithmetic,
/// element by element (`input` and `output` in the working layout: one byte per
/// element for the packed types).
///
/// # Errors
/// [`CudaError::BadWidth`] as [`GatherPlan::args`]; [`CudaError::BufferSize`] when a
/// buffer is not of the plan's working size.
pub fn emulate_gather(
    gp: &GatherPlan,
    width: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), CudaError> {
    let args = gp.args(width)?;
    check_len("input", input.len(), gp.in_numel as usize * gp.elem)?;
    check_len("output", output.len(), gp.out_numel as usize * gp.elem)?;
    for (i, out) in (0..args.total).zip(output.chunks_exact_mut(width)) {
        let u = i % args.unit;
        let mut r = i / args.unit;
        let mut src: i64 = 0;
        let mut fill = false;
        for x in gp.axes.iter().rev() {
            let m = x.map(&gp.maps, r % x.n);
            r /= x.n;
            fill |= m < 0;
            src += m;
        }
        if fill {
            out.copy_from_slice(&args.constant);
        } else {
            let at = (src as u64 * args.unit + u) as usize * width;
            out.copy_from_slice(&input[at..at + width]);
        }
    }
    Ok(())
}

/// The widest unit (in elements) folded into the innermost axis: its pads' table
/// entries repeat per unit element, so a few (three channels) fold and big ones stay.
const FOLD_MAX: u64 = 64;

/// Folds a unit of at most [`FOLD_MAX`] elements that no kernel element wider than
/// the element divides (three channels of bytes, say: moved an element at a time
/// anyway) into the innermost gathered axis, so that the kernel divides by no unit:
/// the axis's extent, body and table grow by the unit, the outer axes' strides,
/// bases and table entries count elements.
fn fold_unit(axes: &mut [GatherAxis], maps: &mut Vec<i64>, unit: &mut u64, elem: usize) {
    let u = *unit;
    let wider = WIDTHS
        .iter()
        .any(|&w| w > elem && (u * elem as u64).is_multiple_of(w as u64));
    let Some((last, outer)) = axes.split_last_mut() else {
        return;
    };
    let side = maps.len() as u64 - last.start;
    if u <= 1 || u > FOLD_MAX || wider || maps.len() as u64 + side * (u - 1) > MAX_MAP_ENTRIES {
        return;
    }
    let times = |m: i64| if m < 0 { m } else { m * u as i64 };
    for x in outer.iter_mut() {
        x.stride *= u;
        x.base *= u as i64;
    }
    let tail = maps.split_off(last.start as usize);
    maps.iter_mut().for_each(|m| *m = times(*m));
    maps.extend(
        tail.iter()
            .flat_map(|&m| (0..u as i64).map(move |k| if m < 0 { -1 } else { m * u as i64 + k })),
    );
    last.n *= u;
    last.lo *= u;
    last.hi *= u;
    last.base *= u as i64;
    *unit = 1;
}

/// The kernel's divisor of `d` (`ndpad_div`): `[d, m64, m32, l]`, where `n / d` is
/// `(t + ((n - t) >> min(l, 1))) >> max(l, 1) - 1` with `t` the high half of `m * n`,
/// for every `n` of 64 bits (`m64`) or of 32 bits (`m32`, 0 where `d` needs more)
/// (Granlund and Montgomery, "Division by invariant integers using multiplication",
/// 1994, figure 4.1): a division in a multiplication, a subtraction and shifts.
pub(crate) fn divisor(d: u64) -> [u64; 4] {
    let d = d.max(1);
    let l = 64 - (d - 1).leading_zeros();
    let magic = |bits: u32| {
        ((((1u128 << bits) * ((1u128 << l) - u128::from(d))) / u128::from(d)) + 1) as u64
    };
    let m32 = if d <= u64::from(u32::MAX) {
        magic(32)
    } else {
        0
    };
    [d, magic(64), m32, u64::from(l)]
}

/// A whole pad on the host as the GPU executor does it: packed inputs widened to one
/// byte per element, gathered at kernel element `width`, packed again.
///
/// # Errors
/// As [`emulate_gather`]; [`CudaError::BufferSize`] when `input` is not of the plan's
/// input size.
pub fn emulate(gp: &GatherPlan, width: usize, input: &[u8]) -> Result<Vec<u8>, CudaError> {
    check_len("input", input.len(), gp.input_bytes())?;
    // Allocated fallibly: the plan's sizes can be far beyond memory.
    let zeroed = |what, bytes: usize| {
        ndpad::zeroed_vec::<u8>(bytes).ok_or(CudaError::OutOfMemory {
            what,
            bytes: bytes as u128,
        })
    };
    match gp.packed {
        None => {
            let mut out = zeroed("the output", gp.output_bytes())?;
            emulate_gather(gp, width, input, &mut out)?;
            Ok(out)
        }
        Some(bits) => {
            let n = gp.in_numel as usize;
            let wide = ndpad::packed::unpack(input, bits, n).ok_or(CudaError::OutOfMemory {
                what: "the widened input",
                bytes: n as u128,
            })?;
            let mut out_wide = zeroed("the widened output", gp.out_numel as usize)?;
            emulate_gather(gp, width, &wide, &mut out_wide)?;
            let mut out = zeroed("the output", gp.output_bytes())?;
            ndpad::packed::pack(&out_wide, bits, &mut out);
            Ok(out)
        }
    }
}

pub(crate) fn check_len(which: &'static str, got: usize, expected: usize) -> Result<(), CudaError> {
    if got == expected {
        Ok(())
    } else {
        Err(CudaError::BufferSize {
            which,
            got,
            expected,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n / d` as the kernel computes it from `divisor(d)`, at 32 or 64 bits.
    fn quotient(n: u64, div: &[u64; 4], bits: u32) -> u64 {
        let [_, m64, m32, l] = *div;
        let t = if bits == 32 {
            (m32 * n) >> 32
        } else {
            ((u128::from(m64) * u128::from(n)) >> 64) as u64
        };
        (t + ((n - t) >> l.min(1))) >> (l.max(1) - 1)
    }

    #[test]
    fn divisions_by_multiplication_are_exact() {
        let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut ds: Vec<u64> = (1..=300).collect();
        ds.extend([
            u32::MAX as u64,
            1 << 32,
            (1 << 32) + 1,
            u64::MAX,
            1 << 63,
            (1 << 63) + 1,
        ]);
        ds.extend((0..200).map(|k| next() >> (k % 64)).filter(|&d| d > 0));
        for d in ds {
            let div = divisor(d);
            let mut ns: Vec<u64> =
                vec![0, 1, d - 1, d, d.wrapping_add(1), u64::MAX, u32::MAX as u64];
            ns.extend((0..50).map(|k| next() >> (k % 64)));
            for n in ns {
                assert_eq!(quotient(n, &div, 64), n / d, "{n} / {d} (64-bit)");
                if d <= u32::MAX as u64 && n <= u32::MAX as u64 {
                    assert_eq!(quotient(n, &div, 32), n / d, "{n} / {d} (32-bit)");
                }
            }
        }
    }
}
