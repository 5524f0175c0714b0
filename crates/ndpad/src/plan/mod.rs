//! The execution plan: what the executor does, as plain data.
//!
//! A [`Plan`] is computed once per (shape, type, spec). It holds, per axis, a list of
//! [`Seg`]ments saying where each run of output coordinates comes from (a contiguous
//! run of input coordinates, one repeated input coordinate, or the constant). The
//! trailing axes that are left as they are fuse into one *unit* of contiguous
//! elements, so the innermost padded axis (the *row* axis) copies whole units at a
//! time. Nothing in it is CPU-specific: a GPU backend can evaluate the same segments.

use std::ops::Range;

use crate::dtype::{DType, Layout};
use crate::error::PadError;
use crate::scalar::Scalar;
use crate::spec::{axis_maps, faces, AxisMap, Face, Fold, Mode, PadSpec};
use crate::tensor::numel;

mod pieces;
mod segments;
mod window;

pub use pieces::{file_order_boxes, split_axis, Cut, FileBoxes, Piece};
pub use segments::{segments, Seg};
pub use window::{Source, Window};

/// The period of an axis that repeats its input (reflect, symmetric and wrap
/// without interior padding): every stretch of output this long reads the whole
/// source window.
fn repeat_period(map: &AxisMap) -> Option<usize> {
    let periodic = map.interior == 0
        && match map.fold {
            Fold::Reflect => map.len > 1,
            Fold::Symmetric | Fold::Wrap => map.len > 0,
            _ => false,
        };
    let period = usize::try_from(map.period().0).ok()?;
    (periodic && period > 0).then_some(period)
}

/// The period of an axis whose output repeats it more than `min_periods` times,
/// planned as a tile (`exec/tile.rs`); sub-byte types are not tiled.
fn tile_period(dtype: DType, map: &AxisMap, min_periods: usize) -> Option<usize> {
    let fits = !matches!(dtype.layout(), Layout::Packed(_));
    repeat_period(map).filter(|&period| fits && map.n / period > min_periods)
}

/// The innermost axis whose segments do more than copy the input axis as it is.
fn row_axis(axes: &[PlanAxis]) -> Option<usize> {
    axes.iter().rposition(|ax| {
        let copy = Seg::Copy {
            src: 0,
            len: ax.dim,
        };
        !(ax.map.n == ax.dim && ax.segs.iter().all(|s| *s == copy))
    })
}

/// The constant a spec writes into a `dtype` tensor.
fn constant(dtype: DType, spec: &PadSpec) -> Result<Scalar, PadError> {
    match &spec.mode {
        Mode::Constant(Some(v)) if v.dtype() != dtype => Err(PadError::ValueType {
            value: v.dtype(),
            tensor: dtype,
        }),
        Mode::Constant(Some(v)) => Ok(v.clone()),
        _ => Ok(Scalar::zero(dtype)),
    }
}

/// Elements of a `dtype` tensor of `shape`, checked to be addressable as bytes.
fn checked_numel(dtype: DType, shape: &[usize]) -> Result<usize, PadError> {
    let n = numel(shape)?;
    dtype.byte_len(n).ok_or_else(|| PadError::ShapeOverflow {
        shape: shape.to_vec(),
    })?;
    Ok(n)
}

/// One axis of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanAxis {
    /// Input extent.
    pub dim: usize,
    /// How output coordinates map to input coordinates.
    pub map: AxisMap,
    /// The same, as runs; none on an axis the plan tiles (an output that repeats the
    /// axis's period more than a million times: one period is planned and repeated).
    pub segs: Vec<Seg>,
}

/// Everything the executor needs, computed once. Reuse a plan to pad many inputs of
/// one shape the same way (a loop over images): a plan of a small output also keeps
/// what the executor prepares for its repeated runs (the row kernel, whole planes'
/// tables, made at its second run), which is much of a small pad's time.
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
    /// The boxes of the output that take a constant of their own
    /// ([`PadSpec::sides`]), written after the rest.
    pub(crate) faces: Vec<Face>,
    /// The plan of one period of the axes the output repeats very many times, padded
    /// and then repeated over the output (`exec/tile.rs`); `None` for an untiled plan.
    pub(crate) tile: Option<Box<Plan>>,
    /// What the executor keeps between the plan's runs.
    pub(crate) kept: Kept,
    /// The spec of a whole pad ([`Plan::new`]; none for a window's plan): an input
    /// whose rows are not in C order is padded a box at a time by its windows
    /// ([`Plan::execute_strided`]).
    pub(crate) spec: Option<std::sync::Arc<PadSpec>>,
}

/// What the executor keeps between a plan's runs (the setup of a small plan's
/// executor): opaque here, so that the plan does not depend on the executor. Not
/// part of what a plan is: clones start without it, and plans compare equal whatever
/// they keep.
#[derive(Default)]
pub(crate) struct Kept(std::sync::OnceLock<std::sync::Arc<dyn std::any::Any + Send + Sync>>);

impl Kept {
    /// What is kept, if anything.
    pub(crate) fn get(&self) -> Option<&std::sync::Arc<dyn std::any::Any + Send + Sync>> {
        self.0.get()
    }

    /// Keeps `v` where nothing is kept yet (else `v` is dropped: what another run
    /// kept first serves as well).
    pub(crate) fn keep(&self, v: std::sync::Arc<dyn std::any::Any + Send + Sync>) {
        let _ = self.0.set(v);
    }
}

impl Clone for Kept {
    fn clone(&self) -> Self {
        Kept::default()
    }
}

impl PartialEq for Kept {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Kept {}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0.get() {
            Some(_) => "Kept(..)",
            None => "Kept(none)",
        })
    }
}

impl Plan {
    /// Validates `spec` for a `dtype` tensor of `shape` and plans the copy.
    ///
    /// # Errors
    /// Every error of [`crate::output_shape`]; [`PadError::ValueType`] when the constant
    /// is of another type; [`PadError::ShapeOverflow`] when a shape's element count
    /// does not fit in memory.
    pub fn new(dtype: DType, shape: &[usize], spec: &PadSpec) -> Result<Plan, PadError> {
        Plan::tiling(dtype, shape, spec, crate::tune::TILE_MIN_PERIODS)
    }

    /// [`Plan::new`], tiling each axis that repeats its period more than `min_periods`
    /// times (tests tile every repeating axis with 0).
    #[doc(hidden)]
    pub fn tiling(
        dtype: DType,
        shape: &[usize],
        spec: &PadSpec,
        min_periods: usize,
    ) -> Result<Plan, PadError> {
        let maps = axis_maps(shape, spec)?;
        let value = constant(dtype, spec)?;
        let faces = faces(dtype, spec, &maps)?;
        let out_shape: Vec<usize> = maps.iter().map(|m| m.n).collect();
        let out_numel = checked_numel(dtype, &out_shape)?;
        let periods: Vec<Option<usize>> = maps
            .iter()
            .map(|m| tile_period(dtype, m, min_periods).filter(|_| out_numel > 0))
            .collect();
        if periods.iter().any(Option::is_some) {
            // The tile: one period from coordinate 0 on each tiled axis (see `exec/tile.rs`).
            let tile_box: Vec<Range<usize>> = maps
                .iter()
                .zip(&periods)
                .map(|(m, p)| 0..p.unwrap_or(m.n))
                .collect();
            let tile = Plan::window(dtype, shape, spec, &tile_box, Source::Whole)?.plan;
            let mut plan = Plan::tiled(tile, maps, &periods, value)?;
            plan.spec = Some(std::sync::Arc::new(spec.clone()));
            return Ok(plan);
        }
        let axes: Vec<PlanAxis> = shape
            .iter()
            .zip(maps)
            .enumerate()
            .map(|(a, (&dim, map))| {
                // Nothing is read when the output is empty.
                let segs = if out_numel > 0 {
                    segments(a, &map)?
                } else {
                    Vec::new()
                };
                Ok(PlanAxis { dim, map, segs })
            })
            .collect::<Result<_, PadError>>()?;
        let row_axis = if out_numel > 0 {
            row_axis(&axes)
        } else {
            axes.iter().rposition(|ax| !ax.map.is_identity(ax.dim))
        };
        let mut plan = Plan::assemble(dtype, axes, row_axis, value)?;
        plan.faces = faces;
        plan.spec = Some(std::sync::Arc::new(spec.clone()));
        Ok(plan)
    }

    /// The plan whose output repeats `tile` (one period of each axis with a period,
    /// the whole extent of the others; see `exec/tile.rs`) over the output of `maps`: the
    /// tiled axes list no segments, the others the tile's.
    fn tiled(
        tile: Plan,
        maps: Vec<AxisMap>,
        periods: &[Option<usize>],
        value: Scalar,
    ) -> Result<Plan, PadError> {
        let axes = tile
            .axes
            .iter()
            .zip(maps)
            .zip(periods)
            .map(|((ax, map), p)| PlanAxis {
                dim: ax.dim,
                map,
                segs: if p.is_some() {
                    Vec::new()
                } else {
                    ax.segs.clone()
                },
            })
            .collect();
        let mut plan = Plan::assemble(tile.dtype, axes, tile.row_axis, value)?;
        plan.tile = Some(Box::new(tile));
        Ok(plan)
    }

    /// The plan from its axes (input extents, maps with output extents, segments).
    fn assemble(
        dtype: DType,
        axes: Vec<PlanAxis>,
        row_axis: Option<usize>,
        value: Scalar,
    ) -> Result<Plan, PadError> {
        let in_shape: Vec<usize> = axes.iter().map(|ax| ax.dim).collect();
        let out_shape: Vec<usize> = axes.iter().map(|ax| ax.map.n).collect();
        let in_numel = numel(&in_shape)?;
        let out_numel = checked_numel(dtype, &out_shape)?;
        let unit = row_axis.map_or(in_numel, |r| in_shape[r + 1..].iter().product());
        Ok(Plan {
            dtype,
            in_shape,
            out_shape,
            axes,
            row_axis,
            unit,
            value,
            in_numel,
            out_numel,
            faces: Vec::new(),
            tile: None,
            kept: Default::default(),
            spec: None,
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

    /// The boxes of the output that take a constant of their own ([`PadSpec::sides`]),
    /// written after the rest of the output.
    pub fn faces(&self) -> &[Face] {
        &self.faces
    }

    /// Elements of the output.
    pub fn output_numel(&self) -> usize {
        self.out_numel
    }

    /// Bytes of the output (0 for strings).
    pub fn output_bytes(&self) -> usize {
        self.dtype.byte_len(self.out_numel).unwrap_or(usize::MAX)
    }

    /// The input's outer strides, in bytes, where an input laid out with the byte
    /// `strides` (one per input axis) can be read in place by
    /// [`Plan::execute_strided`]: fixed-width types only, the axes from the row axis on
    /// laid out as in a C-contiguous tensor (each row, with its units, contiguous), the
    /// strides of the axes before it non-negative multiples of a unit's bytes (a
    /// stride of an axis of extent 1 does not matter and counts as 0). `None` where
    /// it cannot (copy the input to C order then).
    pub fn strided_rows(&self, strides: &[isize]) -> Option<Vec<usize>> {
        let Layout::Bytes(w) = self.dtype.layout() else {
            return None;
        };
        if strides.len() != self.in_shape.len() {
            return None;
        }
        let row = self.row_axis.unwrap_or(0);
        let mut want = w as isize;
        for a in (row..self.in_shape.len()).rev() {
            if self.in_shape[a] > 1 && strides[a] != want {
                return None;
            }
            want = want.checked_mul(isize::try_from(self.in_shape[a]).ok()?)?;
        }
        let unit_bytes = self.unit.checked_mul(w)?;
        (0..row)
            .map(|a| match self.in_shape[a] {
                0 | 1 => Some(0),
                _ => usize::try_from(strides[a])
                    .ok()
                    .filter(|s| unit_bytes != 0 && s.is_multiple_of(unit_bytes)),
            })
            .collect()
    }

    /// True when a 4- or 2-bit tensor's runs do not all start on byte boundaries (its
    /// unpadded trailing axes do not fill whole bytes), so they are moved as bit
    /// ranges rather than as bytes.
    pub(crate) fn packed_unaligned(&self) -> bool {
        match self.dtype.layout() {
            Layout::Packed(bits) => {
                self.row_axis.is_none() || !(self.unit * bits as usize).is_multiple_of(8)
            }
            _ => false,
        }
    }
}
