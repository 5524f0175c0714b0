//! What runs on the host: the per-axis index maps derived from the core's [`Plan`],
//! the kernel element width chosen for a call, and a host emulation of the gather
//! kernel (the same maps, the same index arithmetic) that tests compare with the CPU
//! kernel, so the maps are verified without a GPU.

use ndpad::{numel, DType, Layout, Plan};

use crate::error::CudaError;

/// The most entries the index maps of one plan may have (the sum of the output
/// extents of the gathered axes): 2^30 entries, 8 GiB of maps.
pub const MAX_MAP_ENTRIES: u64 = 1 << 30;

/// The kernel element widths, in bytes, widest first.
pub const WIDTHS: [usize; 5] = [16, 8, 4, 2, 1];

/// A plan as the gather kernel runs it.
///
/// The output is viewed as `rows x unit`: the trailing axes the pad leaves as they
/// are fuse into one contiguous *unit* of elements (`unit` elements, the same in the
/// input and the output), and the axes up to the last padded one are *gathered*.
/// Output element `i` is unit element `u = i % unit` of row `r = i / unit`; `r` is
/// split into one coordinate `c[a]` per gathered axis (last axis fastest), and
/// `maps[starts[a] + c[a]]` is the input coordinate that coordinate reads times the
/// input stride of the axis in units, or `-1` for the constant. The element reads
/// input element `sum(maps) * unit + u`, or is the constant when any map is `-1`.
///
/// Every map entry is the core's own [`ndpad::AxisMap::src`] of the plan: the GPU
/// executor has no semantics of its own.
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
    starts: Vec<u64>,
    maps: Vec<i64>,
    constant: Vec<u8>,
}

impl GatherPlan {
    /// Derives the index maps of `plan`.
    ///
    /// # Errors
    /// [`CudaError::UnsupportedType`] for strings; [`CudaError::Sides`] for constants
    /// per side; [`CudaError::MapsTooLarge`] when the
    /// maps would have more than [`MAX_MAP_ENTRIES`] entries; [`CudaError::OutOfMemory`]
    /// when they cannot be allocated.
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
        let unit: u64 = if gathered == 0 {
            out_numel
        } else {
            out_shape[gathered..].iter().map(|&d| d as u64).product()
        };
        let dims: Vec<u64> = out_shape[..gathered].iter().map(|&d| d as u64).collect();
        let entries: u128 = dims.iter().map(|&d| u128::from(d)).sum();
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
                what: "the index maps",
                bytes: entries * 8,
            })?;
        let mut starts = Vec::with_capacity(gathered);
        for (a, ax) in axes[..gathered].iter().enumerate() {
            // Input stride of axis `a` in units: the input extents of the gathered axes
            // after it (their product is at most the input's element count).
            let stride: u64 = in_shape[a + 1..gathered]
                .iter()
                .map(|&d| d as u64)
                .product();
            starts.push(maps.len() as u64);
            maps.extend((0..ax.map.n).map(|o| match ax.map.src(o) {
                Some(s) => (s as u64 * stride) as i64,
                None => -1,
            }));
        }
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
            dims,
            starts,
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

    /// Output extents of the gathered axes.
    pub fn dims(&self) -> &[u64] {
        &self.dims
    }

    /// Where each gathered axis's map starts in [`GatherPlan::maps`].
    pub fn starts(&self) -> &[u64] {
        &self.starts
    }

    /// The index maps of the gathered axes, one after the other.
    pub fn maps(&self) -> &[i64] {
        &self.maps
    }

    /// What the kernel reads besides the maps: the extents, then the starts.
    pub fn meta(&self) -> Vec<u64> {
        self.dims.iter().chain(&self.starts).copied().collect()
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
    /// The row kernel (`Some(true)`), the element kernel (`Some(false)`), or the row
    /// kernel where a row has at least [`crate::kernel::ROWS_MIN`] kernel elements
    /// (`None`). A plan without gathered axes (a pad that changes nothing) always
    /// takes the element kernel.
    pub rows: Option<bool>,
}

impl GatherPlan {
    /// Whether a launch with `args` and the choice `rows` takes the row kernel.
    pub fn takes_rows(&self, args: &GatherArgs, rows: Option<bool>) -> bool {
        match self.dims.last() {
            None => false,
            Some(&last) => {
                rows.unwrap_or_else(|| last.saturating_mul(args.unit) >= crate::kernel::ROWS_MIN)
            }
        }
    }

    /// Rows of the last gathered axis (the row kernel's blocks), at `args`.
    pub fn rows(&self, args: &GatherArgs) -> u64 {
        match self.dims.last() {
            Some(&last) if last > 0 && args.unit > 0 => args.total / (last * args.unit),
            _ => 0,
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

/// The gather kernel on the host: the same maps, the same index arithmetic, element
/// by element (`input` and `output` in the working layout: one byte per element for
/// the packed types).
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
    let (dims, starts, maps) = (&gp.dims, &gp.starts, &gp.maps);
    for (i, out) in (0..args.total).zip(output.chunks_exact_mut(width)) {
        let u = i % args.unit;
        let mut r = i / args.unit;
        let mut src: i64 = 0;
        let mut fill = false;
        for a in (0..dims.len()).rev() {
            let c = r % dims[a];
            r /= dims[a];
            let m = maps[(starts[a] + c) as usize];
            if m < 0 {
                fill = true;
                break;
            }
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
