//! The execution plan: what the fast kernel does, as plain data.
//!
//! A [`Plan`] is computed once per (shape, type, spec). It holds, per axis, a list of
//! [`Seg`]ments saying where each run of output coordinates comes from (a contiguous
//! run of input coordinates, one repeated input coordinate, or the constant). The
//! trailing axes that are left as they are fuse into one *unit* of contiguous
//! elements, so the innermost padded axis (the *row* axis) copies whole units at a
//! time. Nothing in it is CPU-specific: a GPU backend can evaluate the same segments.

use crate::dtype::DType;
use crate::error::PadError;
use crate::scalar::Scalar;
use crate::spec::{axis_maps, AxisMap, Fold, Mode, PadSpec};
use crate::tensor::numel;

/// A run of output coordinates along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    /// `len` output coordinates read input coordinates `src, src + 1, ...`.
    Copy {
        /// First input coordinate.
        src: usize,
        /// Number of coordinates.
        len: usize,
    },
    /// `len` output coordinates read input coordinates `src, src - 1, ...` (reflected
    /// pads).
    Rev {
        /// First input coordinate (the largest).
        src: usize,
        /// Number of coordinates.
        len: usize,
    },
    /// Interior padding: `len` input coordinates `src, src + 1, ...`, each followed by
    /// `gap` constants except the last (`len + (len - 1) * gap` output coordinates).
    Spread {
        /// First input coordinate.
        src: usize,
        /// Number of input coordinates.
        len: usize,
        /// Constants between neighbours.
        gap: usize,
    },
    /// `len` output coordinates all read input coordinate `src`, or the constant when
    /// `src` is `None`.
    Fill {
        /// The repeated input coordinate, or `None` for the constant.
        src: Option<usize>,
        /// Number of coordinates.
        len: usize,
    },
}

impl Seg {
    /// Output coordinates the run covers.
    pub fn len(&self) -> usize {
        match *self {
            Seg::Copy { len, .. } | Seg::Fill { len, .. } | Seg::Rev { len, .. } => len,
            Seg::Spread { len, gap, .. } => len + len.saturating_sub(1) * gap,
        }
    }

    /// True for an empty run.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The input coordinate of the run's `k`-th output coordinate.
    pub fn src_at(&self, k: usize) -> Option<usize> {
        match *self {
            Seg::Copy { src, .. } => Some(src + k),
            Seg::Rev { src, .. } => src.checked_sub(k),
            Seg::Spread { src, gap, .. } => (k % (gap + 1) == 0).then(|| src + k / (gap + 1)),
            Seg::Fill { src, .. } => src,
        }
    }
}

/// Appends one output coordinate's source to `segs`, extending the last run when it
/// continues it.
fn push(segs: &mut Vec<Seg>, src: Option<usize>) {
    if let Some(last) = segs.last_mut() {
        match (last, src) {
            (Seg::Fill { src: s, len }, x) if *s == x => {
                *len += 1;
                return;
            }
            (Seg::Copy { src: s, len }, Some(x)) if *s + *len == x => {
                *len += 1;
                return;
            }
            (Seg::Rev { src: s, len }, Some(x)) if s.checked_sub(*len) == Some(x) => {
                *len += 1;
                return;
            }
            (last @ Seg::Copy { len: 1, .. }, Some(x))
                if last.src_at(0).and_then(|s| s.checked_sub(1)) == Some(x) =>
            {
                *last = Seg::Rev { src: x + 1, len: 2 };
                return;
            }
            (last @ Seg::Copy { len: 1, .. }, Some(x)) if last.src_at(0) == Some(x) => {
                *last = Seg::Fill {
                    src: Some(x),
                    len: 2,
                };
                return;
            }
            _ => {}
        }
    }
    segs.push(match src {
        Some(x) => Seg::Copy { src: x, len: 1 },
        None => Seg::Fill { src: None, len: 1 },
    });
}

/// Appends a run, merging neighbouring constant runs.
fn push_run(segs: &mut Vec<Seg>, seg: Seg) {
    if seg.is_empty() {
        return;
    }
    if let (
        Some(Seg::Fill { src: None, len }),
        Seg::Fill {
            src: None,
            len: more,
        },
    ) = (segs.last_mut(), seg)
    {
        *len += more;
        return;
    }
    segs.push(seg);
}

/// The segments of an interior-padded (constant mode) axis, computed from the
/// positions of its first and last visible data elements.
fn interior_segments(map: &AxisMap) -> Vec<Seg> {
    let n = map.n as i128;
    let step = map.interior as i128 + 1;
    let spread = if map.len == 0 {
        0
    } else {
        (map.len as i128 - 1) * step + 1
    };
    // Output coordinates [o0, o1) hold interior-padded positions [o0 - shift, o1 - shift).
    let o0 = map.shift.clamp(0, n);
    let o1 = (map.shift + spread).clamp(o0, n);
    let mut segs = Vec::new();
    let fill = |len: i128| Seg::Fill {
        src: None,
        len: len as usize,
    };
    push_run(&mut segs, fill(o0));
    let (p0, p1) = (o0 - map.shift, o1 - map.shift);
    // First and last data elements inside [p0, p1).
    // (p0 is negative only when the window is empty: p0 == p1.)
    let i0 = (p0.max(0) + step - 1) / step;
    let i1 = if p1 > 0 { (p1 - 1) / step } else { -1 };
    if p0 < p1 && i0 <= i1 {
        push_run(&mut segs, fill(i0 * step - p0));
        let len = (i1 - i0 + 1) as usize;
        let gap = map.interior as usize;
        push_run(
            &mut segs,
            Seg::Spread {
                src: map.offset + i0 as usize,
                len,
                gap,
            },
        );
        push_run(&mut segs, fill(p1 - (i1 * step + 1)));
    } else {
        push_run(&mut segs, fill(p1 - p0));
    }
    push_run(&mut segs, fill(n - o1));
    segs
}

/// The segments of one axis: the middle (data) part as one run, the padded parts
/// coordinate by coordinate except where they are a single fill.
pub fn segments(map: &AxisMap) -> Vec<Seg> {
    let n = map.n;
    let mut segs = Vec::new();
    if n == 0 {
        return segs;
    }
    if map.interior > 0 {
        return interior_segments(map);
    }
    let clamp = |x: i128| x.clamp(0, n as i128) as usize;
    let lo = clamp(map.shift);
    let hi = clamp(map.shift + map.len as i128).max(lo);
    let edge_fill = |src: usize, len: usize| Seg::Fill {
        src: Some(src),
        len,
    };
    match map.fold {
        Fold::Constant => push_run(&mut segs, Seg::Fill { src: None, len: lo }),
        Fold::Edge => push_run(&mut segs, edge_fill(map.offset, lo)),
        _ => (0..lo).for_each(|o| push(&mut segs, map.src(o))),
    }
    if hi > lo {
        let src = map.offset + (lo as i128 - map.shift) as usize;
        segs.push(Seg::Copy { src, len: hi - lo });
    }
    let rest = n - hi;
    match map.fold {
        Fold::Constant => push_run(
            &mut segs,
            Seg::Fill {
                src: None,
                len: rest,
            },
        ),
        Fold::Edge => push_run(&mut segs, edge_fill(map.offset + map.len - 1, rest)),
        _ => (hi..n).for_each(|o| push(&mut segs, map.src(o))),
    }
    segs
}

/// One axis of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanAxis {
    /// Input extent.
    pub dim: usize,
    /// How output coordinates map to input coordinates.
    pub map: AxisMap,
    /// The same, as runs.
    pub segs: Vec<Seg>,
}

/// Everything the kernel needs, computed once.
///
/// ```
/// use ndpad::{AxisPad, DType, Mode, PadSpec, Plan};
/// let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(1, 2), AxisPad::new(0, 0)], Mode::Edge);
/// let plan = Plan::new(DType::Float32, &[4, 5, 3], &spec).unwrap();
/// assert_eq!(plan.output_shape(), &[4, 8, 3]);
/// assert_eq!(plan.row_axis(), Some(1)); // the last padded axis
/// assert_eq!(plan.unit(), 3);           // the unpadded axis after it is fused
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub(crate) dtype: DType,
    pub(crate) in_shape: Vec<usize>,
    pub(crate) out_shape: Vec<usize>,
    pub(crate) axes: Vec<PlanAxis>,
    pub(crate) row_axis: Option<usize>,
    pub(crate) unit: usize,
    pub(crate) value: Scalar,
    pub(crate) in_numel: usize,
    pub(crate) out_numel: usize,
}

impl Plan {
    /// Validates `spec` for a `dtype` tensor of `shape` and plans the copy.
    ///
    /// # Errors
    /// Every error of [`crate::output_shape`]; [`PadError::ValueType`] when the constant
    /// is of another type; [`PadError::ShapeOverflow`] when a shape's element count
    /// does not fit in memory.
    pub fn new(dtype: DType, shape: &[usize], spec: &PadSpec) -> Result<Plan, PadError> {
        let maps = axis_maps(shape, spec)?;
        let value = match &spec.mode {
            Mode::Constant(Some(v)) if v.dtype() != dtype => {
                return Err(PadError::ValueType {
                    value: v.dtype(),
                    tensor: dtype,
                })
            }
            Mode::Constant(Some(v)) => v.clone(),
            _ => Scalar::zero(dtype),
        };
        let out_shape: Vec<usize> = maps.iter().map(|m| m.n).collect();
        let in_numel = numel(shape)?;
        let out_numel = numel(&out_shape)?;
        dtype
            .byte_len(out_numel)
            .ok_or_else(|| PadError::ShapeOverflow {
                shape: out_shape.clone(),
            })?;
        let row_axis = (0..shape.len())
            .rev()
            .find(|&a| !maps[a].is_identity(shape[a]));
        let unit = row_axis.map_or(in_numel, |r| shape[r + 1..].iter().product());
        let axes = shape
            .iter()
            .zip(maps)
            .enumerate()
            .map(|(a, (&dim, map))| {
                // Segments are only needed up to the row axis, and nothing is read when
                // the output is empty.
                let used = out_numel > 0 && row_axis.is_some_and(|r| a <= r);
                let segs = if used { segments(&map) } else { Vec::new() };
                PlanAxis { dim, map, segs }
            })
            .collect();
        Ok(Plan {
            dtype,
            in_shape: shape.to_vec(),
            out_shape,
            axes,
            row_axis,
            unit,
            value,
            in_numel,
            out_numel,
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The input shape.
    pub fn input_shape(&self) -> &[usize] {
        &self.in_shape
    }

    /// The output shape.
    pub fn output_shape(&self) -> &[usize] {
        &self.out_shape
    }

    /// The per-axis maps and segments.
    pub fn axes(&self) -> &[PlanAxis] {
        &self.axes
    }

    /// The innermost axis that is not left as it is (`None`: the pad changes nothing).
    pub fn row_axis(&self) -> Option<usize> {
        self.row_axis
    }

    /// Elements per unit: the product of the extents after the row axis.
    pub fn unit(&self) -> usize {
        self.unit
    }

    /// The constant written by constant mode.
    pub fn value(&self) -> &Scalar {
        &self.value
    }

    /// Elements of the output.
    pub fn output_numel(&self) -> usize {
        self.out_numel
    }

    /// Bytes of the output (0 for strings).
    pub fn output_bytes(&self) -> usize {
        self.dtype.byte_len(self.out_numel).unwrap_or(usize::MAX)
    }
}
