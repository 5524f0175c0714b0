//! The normalized pad description and the one shape-inference function.

use std::fmt;

use crate::dtype::DType;
use crate::error::PadError;
use crate::scalar::Scalar;

/// Padding of one axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AxisPad {
    /// Elements added before the data (negative: elements removed from the start).
    pub begin: i64,
    /// Elements added after the data (negative: elements removed from the end).
    pub end: i64,
    /// Elements inserted between each pair of neighbouring elements (nGraph's
    /// `padding_interior`); constant mode only.
    pub interior: u64,
}

impl AxisPad {
    /// Exterior padding only.
    pub const fn new(begin: i64, end: i64) -> AxisPad {
        AxisPad {
            begin,
            end,
            interior: 0,
        }
    }

    /// True when the axis is left as it is.
    pub fn is_identity(&self) -> bool {
        self.begin == 0 && self.end == 0 && self.interior == 0
    }
}

/// How padded elements get their values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// A constant; `None` is the type's default ([`Scalar::zero`]).
    Constant(Option<Scalar>),
    /// The nearest edge element is repeated.
    Edge,
    /// Mirrored about the edge element, which is not repeated (`[1,2,3]` -> `3,2 | 1,2,3`).
    Reflect,
    /// Mirrored with the edge element repeated (`[1,2,3]` -> `2,1 | 1,2,3`).
    Symmetric,
    /// Periodic, as if the axis were a ring (`[1,2,3]` -> `2,3 | 1,2,3`).
    Wrap,
}

impl Mode {
    /// The mode's lowercase name.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Constant(_) => "constant",
            Mode::Edge => "edge",
            Mode::Reflect => "reflect",
            Mode::Symmetric => "symmetric",
            Mode::Wrap => "wrap",
        }
    }

    /// True for [`Mode::Constant`].
    pub fn is_constant(&self) -> bool {
        matches!(self, Mode::Constant(_))
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How negative pads combine with the non-constant modes (constant mode gives the
/// same result either way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NegativePads {
    /// Remove the elements first, then pad what is left (ONNX Runtime).
    #[default]
    CropFirst,
    /// Output coordinate `o` reads input coordinate `o - begin` of the *uncropped*
    /// data, folded by the mode (OpenVINO Pad-12).
    OriginalIndex,
}

/// What reflect / symmetric / wrap do when a pad is wider than the axis allows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Oversize {
    /// It is an error: reflect needs `pad <= d - 1`, symmetric and wrap `pad <= d`.
    #[default]
    Error,
    /// The pattern repeats as far as needed (numpy.pad).
    Repeat,
}

/// The constants of one axis's two sides, `[begin, end]` ([`PadSpec::sides`]); `None`
/// for the mode's.
pub type SideConstants = [Option<Scalar>; 2];

/// Which axis's side constant an element in the pad of several axes takes
/// ([`PadSpec::sides`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Corners {
    /// The last of them, as numpy.pad writes its axes in order.
    #[default]
    LastAxis,
    /// The first of them: numpy's corners for a tensor given with its axes reversed
    /// (a Fortran-ordered array padded through its transpose).
    FirstAxis,
}

/// The normalized description of a pad: one [`AxisPad`] per axis, a mode and the two
/// policies on which frameworks disagree.
///
/// ```
/// use ndpad::{AxisPad, Mode, PadSpec, output_shape};
/// let spec = PadSpec::new(vec![AxisPad::new(0, 2), AxisPad::new(1, -1)], Mode::Edge);
/// assert_eq!(output_shape(&[3, 4], &spec).unwrap(), vec![5, 4]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PadSpec {
    /// Padding per axis (as many as the tensor's rank).
    pub axes: Vec<AxisPad>,
    /// How new elements get their values.
    pub mode: Mode,
    /// How negative pads combine with non-constant modes.
    pub negative: NegativePads,
    /// What oversized reflect / symmetric / wrap pads do.
    pub oversize: Oversize,
    /// Clamp a negative output extent to 0 (OpenVINO) instead of failing.
    pub clamp_negative_extent: bool,
    /// Per axis, the constants of its two sides (`[begin, end]`) where they differ
    /// from the mode's (numpy.pad's `constant_values` per axis and side): constant
    /// mode without interior padding only; empty (the default) or one pair per axis.
    /// An element in the pad of several axes takes the constant of the last of them,
    /// as numpy.pad writes its corners, or of the first ([`PadSpec::corners`]).
    pub sides: Vec<SideConstants>,
    /// Which axis's side constant the corners of [`PadSpec::sides`] take.
    pub corners: Corners,
}

impl PadSpec {
    /// A spec with the default policies ([`NegativePads::CropFirst`],
    /// [`Oversize::Error`], no clamping).
    pub fn new(axes: Vec<AxisPad>, mode: Mode) -> PadSpec {
        PadSpec {
            axes,
            mode,
            negative: NegativePads::default(),
            oversize: Oversize::default(),
            clamp_negative_extent: false,
            sides: Vec::new(),
            corners: Corners::default(),
        }
    }

    /// A spec from separate begin and end lists (no interior padding).
    ///
    /// # Errors
    /// [`PadError::RankMismatch`] when the lists differ in length.
    pub fn from_begin_end(begin: &[i64], end: &[i64], mode: Mode) -> Result<PadSpec, PadError> {
        if begin.len() != end.len() {
            return Err(PadError::RankMismatch {
                spec: begin.len(),
                rank: end.len(),
            });
        }
        let axes = begin
            .iter()
            .zip(end)
            .map(|(&b, &e)| AxisPad::new(b, e))
            .collect();
        Ok(PadSpec::new(axes, mode))
    }

    /// Sets the negative-pad policy.
    pub fn with_negative(mut self, negative: NegativePads) -> PadSpec {
        self.negative = negative;
        self
    }

    /// Sets the oversize policy.
    pub fn with_oversize(mut self, oversize: Oversize) -> PadSpec {
        self.oversize = oversize;
        self
    }

    /// Sets whether a negative extent is clamped to 0.
    pub fn with_clamp_negative_extent(mut self, clamp: bool) -> PadSpec {
        self.clamp_negative_extent = clamp;
        self
    }

    /// Sets the constants of each axis's sides ([`PadSpec::sides`]).
    ///
    /// ```
    /// use ndpad::{pad, AxisPad, Mode, PadSpec, Scalar, Tensor};
    /// let x = Tensor::from_slice(&[1, 2], &[1u8, 2]).unwrap();
    /// let spec = PadSpec::new(vec![AxisPad::new(1, 0), AxisPad::new(1, 1)], Mode::Constant(None))
    ///     .with_sides(vec![[Some(Scalar::from(7u8)), None], [None, Some(Scalar::from(9u8))]]);
    /// // Axis 0's begin takes 7 over axis 1's data; axis 1's end (the last axis, so
    /// // also in the corner) takes 9; its begin the mode's constant, 0.
    /// let y = pad(x.view(), &spec).unwrap();
    /// assert_eq!(y.to_vec::<u8>().unwrap(), vec![0, 7, 7, 9, 0, 1, 2, 9]);
    /// ```
    pub fn with_sides(mut self, sides: Vec<SideConstants>) -> PadSpec {
        self.sides = sides;
        self
    }

    /// Sets which axis's side constant the corners take ([`Corners`]).
    ///
    /// ```
    /// use ndpad::{pad, AxisPad, Corners, Mode, PadSpec, Scalar, Tensor};
    /// let x = Tensor::from_slice(&[1, 1], &[5u8]).unwrap();
    /// let sides = vec![[Some(Scalar::from(7u8)), None], [Some(Scalar::from(9u8)), None]];
    /// let spec = PadSpec::new(vec![AxisPad::new(1, 0); 2], Mode::Constant(None)).with_sides(sides);
    /// // The corner takes axis 1's 9 (numpy's order), or axis 0's 7.
    /// let last = pad(x.view(), &spec).unwrap();
    /// assert_eq!(last.to_vec::<u8>().unwrap(), vec![9, 7, 9, 5]);
    /// let first = pad(x.view(), &spec.with_corners(Corners::FirstAxis)).unwrap();
    /// assert_eq!(first.to_vec::<u8>().unwrap(), vec![7, 7, 9, 5]);
    /// ```
    pub fn with_corners(mut self, corners: Corners) -> PadSpec {
        self.corners = corners;
        self
    }
}

/// A box of the output that takes a constant of its own ([`PadSpec::sides`]): the pad
/// of one side of one axis, over the whole extent of the axes before it and the data
/// of the axes after it, so that the faces are disjoint and corners belong to the last
/// axis (the data of the axes before it and the whole of those after it for
/// [`Corners::FirstAxis`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Face {
    /// Per axis, the output coordinates of the box.
    pub region: Vec<std::ops::Range<usize>>,
    /// The constant written there.
    pub value: Scalar,
}

/// The faces of the sides of `spec` that take their own constant, on the output of
/// `maps` (`spec`'s axis maps), for a `dtype` tensor.
///
/// # Errors
/// [`PadError::Sides`] for sides with a non-constant mode, with interior padding, or
/// not one pair per axis; [`PadError::ValueType`] for a constant of another type.
pub(crate) fn faces(dtype: DType, spec: &PadSpec, maps: &[AxisMap]) -> Result<Vec<Face>, PadError> {
    if spec.sides.is_empty() {
        return Ok(Vec::new());
    }
    let refused = |why: String| Err(PadError::Sides { why });
    if !spec.mode.is_constant() {
        return refused(format!("{} mode has no constants", spec.mode.name()));
    }
    if spec.sides.len() != spec.axes.len() {
        return refused(format!(
            "{} pairs given for {} axes",
            spec.sides.len(),
            spec.axes.len()
        ));
    }
    if let Some((axis, pad)) = spec.axes.iter().enumerate().find(|(_, p)| p.interior > 0) {
        return refused(format!(
            "axis {axis}: interior padding {} takes the mode's one constant",
            pad.interior
        ));
    }
    // Per axis, the output coordinates of its begin pad, its data and its end pad (a
    // negative pad has none; a crop can leave an axis shorter than its end pad).
    let parts: Vec<[std::ops::Range<usize>; 3]> = spec
        .axes
        .iter()
        .zip(maps)
        .map(|(p, m)| {
            let clip = |v: i64| usize::try_from(v.max(0)).unwrap_or(usize::MAX).min(m.n);
            let b = clip(p.begin);
            let e = m.n - clip(p.end);
            [0..b, b..e.max(b), e..m.n]
        })
        .collect();
    let mut out = Vec::new();
    for (axis, pair) in spec.sides.iter().enumerate() {
        for (side, value) in pair.iter().enumerate() {
            let Some(value) = value else { continue };
            if value.dtype() != dtype {
                return Err(PadError::ValueType {
                    value: value.dtype(),
                    tensor: dtype,
                });
            }
            let region: Vec<std::ops::Range<usize>> = maps
                .iter()
                .zip(&parts)
                .enumerate()
                .map(|(k, (m, p))| {
                    // The axes whose pads this face's corners take: before it for the
                    // last axis's corners, after it for the first's.
                    let whole = match spec.corners {
                        Corners::LastAxis => k < axis,
                        Corners::FirstAxis => k > axis,
                    };
                    match k == axis {
                        true => p[2 * side].clone(),
                        false if whole => 0..m.n,
                        false => p[1].clone(),
                    }
                })
                .collect();
            if region.iter().all(|r| !r.is_empty()) {
                out.push(Face {
                    region,
                    value: value.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// The mode kind without its value (plain data an executor on any device can use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fold {
    /// Constant: positions outside the data (or between elements) take the value.
    Constant,
    /// Clamp to the nearest edge.
    Edge,
    /// Reflect without repeating the edge.
    Reflect,
    /// Reflect repeating the edge.
    Symmetric,
    /// Periodic.
    Wrap,
}

/// How one output axis reads the input: output coordinate `o` is position
/// `p = o - shift` on a source window of `len` elements starting at input coordinate
/// `offset`; positions outside the window are folded back by `fold` (or are the
/// constant); with `interior > 0` only every `(interior + 1)`-th position is data.
///
/// Plain data, validated by [`axis_map`], so an executor on any device can evaluate it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisMap {
    /// Output extent.
    pub n: usize,
    /// Input coordinate of the window's first element.
    pub offset: usize,
    /// Elements in the window (0 only when nothing is ever read).
    pub len: usize,
    /// `o - shift` is the position in the (interior-padded) window.
    pub shift: i128,
    /// Elements inserted between data elements.
    pub interior: u64,
    /// What happens outside the window.
    pub fold: Fold,
}

impl AxisMap {
    /// The input coordinate output coordinate `o` reads, or `None` for the constant.
    pub fn src(&self, o: usize) -> Option<usize> {
        let p = o as i128 - self.shift;
        let len = self.len as i128;
        let q = match self.fold {
            Fold::Constant => {
                let step = self.interior as i128 + 1;
                if p < 0 || p % step != 0 || p / step >= len {
                    return None;
                }
                p / step
            }
            Fold::Edge => p.clamp(0, len - 1),
            Fold::Reflect if len == 1 => 0,
            Fold::Reflect | Fold::Symmetric | Fold::Wrap => {
                let (period, back) = self.period();
                let r = p.rem_euclid(period);
                if r < len {
                    r
                } else {
                    period - back - r
                }
            }
        };
        Some(self.offset + q as usize)
    }

    /// The period of a repeating fold (reflect of more than one element, symmetric,
    /// wrap) and where its second half reads: position `r` of a period reads window
    /// position `r` while `r < len`, and `period - back - r` after that.
    pub(crate) fn period(&self) -> (i128, i128) {
        let len = self.len as i128;
        match self.fold {
            Fold::Reflect => (2 * (len - 1), 0),
            Fold::Symmetric => (2 * len, 1),
            _ => (len, 0),
        }
    }

    /// The map of the `n` output coordinates starting at `start`: output coordinate
    /// `o` of the window reads what `start + o` reads here.
    pub fn window(&self, start: usize, n: usize) -> AxisMap {
        AxisMap {
            n,
            shift: self.shift - start as i128,
            ..*self
        }
    }

    /// True when output coordinate `o` reads input coordinate `o` for every `o`.
    pub fn is_identity(&self, dim: usize) -> bool {
        self.n == dim
            && self.offset == 0
            && self.len == dim
            && self.shift == 0
            && self.interior == 0
    }
}

fn overflow(axis: usize, what: String) -> PadError {
    PadError::Overflow { axis, what }
}

/// Validates one axis and returns how it maps output to input coordinates. The single
/// place where extents are computed and pads checked: [`output_shape`],
/// [`output_dim`], the executor and every front end go through it.
///
/// # Errors
/// See [`output_shape`].
pub fn axis_map(
    axis: usize,
    dim: usize,
    pad: &AxisPad,
    spec: &PadSpec,
) -> Result<AxisMap, PadError> {
    let mode = &spec.mode;
    let AxisPad {
        begin,
        end,
        interior,
    } = *pad;
    if interior > 0 && !mode.is_constant() {
        return Err(PadError::InteriorWithMode {
            axis,
            interior,
            mode: mode.name(),
        });
    }
    let d = dim as i128;
    let spread: i128 = if dim == 0 {
        0
    } else {
        (d - 1)
            .checked_mul(interior as i128 + 1)
            .and_then(|x| x.checked_add(1))
            .ok_or_else(|| {
                overflow(
                    axis,
                    format!("interior padding {interior} of {dim} elements"),
                )
            })?
    };
    let mut n = spread + begin as i128 + end as i128;
    if n < 0 {
        if !spec.clamp_negative_extent {
            return Err(PadError::NegativeExtent {
                axis,
                dim,
                begin,
                end,
                extent: n,
            });
        }
        n = 0;
    }
    if n > i64::MAX as i128 || n > usize::MAX as i128 {
        return Err(overflow(axis, format!("extent {begin} + {spread} + {end}")));
    }
    let n = n as usize;
    let fold = match mode {
        Mode::Constant(_) => {
            // Interior padding only exists between elements: none on 0 or 1 element.
            let interior = if dim > 1 { interior } else { 0 };
            return Ok(AxisMap {
                n,
                offset: 0,
                len: dim,
                shift: begin as i128,
                interior,
                fold: Fold::Constant,
            });
        }
        Mode::Edge => Fold::Edge,
        Mode::Reflect => Fold::Reflect,
        Mode::Symmetric => Fold::Symmetric,
        Mode::Wrap => Fold::Wrap,
    };
    let (offset, len, shift) = match spec.negative {
        NegativePads::OriginalIndex => (0, d, begin as i128),
        NegativePads::CropFirst => {
            let lo = (-(begin as i128)).max(0);
            let hi = (-(end as i128)).max(0);
            (lo, d - lo - hi, (begin as i128).max(0))
        }
    };
    let grows = begin > 0 || end > 0;
    if n > 0 && len <= 0 && (grows || spec.negative == NegativePads::OriginalIndex) {
        let after = if len == d {
            String::new()
        } else {
            format!(" after cropping begin={begin} end={end} from {dim}")
        };
        return Err(PadError::EmptyAxis {
            axis,
            mode: mode.name(),
            dim: len.max(0) as usize,
            after,
        });
    }
    if spec.oversize == Oversize::Error {
        let limit = match fold {
            Fold::Reflect => len - 1,
            Fold::Symmetric | Fold::Wrap => len,
            _ => i128::MAX,
        };
        for (side, p) in [("begin", begin), ("end", end)] {
            if p > 0 && p as i128 > limit {
                return Err(PadError::PadTooLarge {
                    axis,
                    side,
                    pad: p,
                    limit: limit.max(0) as i64,
                    mode: mode.name(),
                    dim: len.max(0) as usize,
                });
            }
        }
    }
    if n == 0 {
        // Nothing is read: keep the map trivially valid.
        return Ok(AxisMap {
            n,
            offset: 0,
            len: dim.max(1),
            shift: 0,
            interior: 0,
            fold,
        });
    }
    Ok(AxisMap {
        n,
        offset: offset as usize,
        len: len as usize,
        shift,
        interior: 0,
        fold,
    })
}

/// Padded extent of one axis whose input extent may be unknown (`None`, a symbolic
/// dimension): a known extent gets its exact padded extent; an unknown one stays
/// unknown.
///
/// # Errors
/// See [`output_shape`]; an unknown extent is only checked for what does not depend
/// on it (interior padding with a non-constant mode).
pub fn output_dim(
    axis: usize,
    dim: Option<usize>,
    pad: &AxisPad,
    spec: &PadSpec,
) -> Result<Option<usize>, PadError> {
    match dim {
        Some(d) => axis_map(axis, d, pad, spec).map(|m| Some(m.n)),
        None => {
            if pad.interior > 0 && !spec.mode.is_constant() {
                return Err(PadError::InteriorWithMode {
                    axis,
                    interior: pad.interior,
                    mode: spec.mode.name(),
                });
            }
            Ok(None)
        }
    }
}

/// The shape `spec` gives a tensor of `shape`: per axis `begin + (d-1)(interior+1) + 1
/// + end` when `d > 0`, `begin + end` when `d = 0`.
///
/// # Errors
/// - [`PadError::RankMismatch`]: the spec has another number of axes.
/// - [`PadError::NegativeExtent`]: an extent is negative (and the spec does not clamp).
/// - [`PadError::Overflow`]: an extent does not fit in `i64` / `usize`.
/// - [`PadError::InteriorWithMode`]: interior padding with a non-constant mode.
/// - [`PadError::EmptyAxis`]: a non-constant mode must grow an axis with no data.
/// - [`PadError::PadTooLarge`]: an oversized reflect/symmetric/wrap pad under
///   [`Oversize::Error`].
///
/// ```
/// use ndpad::{AxisPad, Mode, PadSpec, output_shape};
/// let spec = PadSpec::new(vec![AxisPad { begin: 1, end: 1, interior: 1 }], Mode::Constant(None));
/// assert_eq!(output_shape(&[3], &spec).unwrap(), vec![7]);
/// let err = output_shape(&[3], &PadSpec::new(vec![AxisPad::new(3, 0)], Mode::Reflect)).unwrap_err();
/// assert_eq!(err.to_string(), "axis 0: begin pad 3 exceeds the maximum 2 allowed by reflect padding of an axis of 3 elements");
/// ```
pub fn output_shape(shape: &[usize], spec: &PadSpec) -> Result<Vec<usize>, PadError> {
    axis_maps(shape, spec).map(|maps| maps.iter().map(|m| m.n).collect())
}

/// [`axis_map`] for every axis.
pub(crate) fn axis_maps(shape: &[usize], spec: &PadSpec) -> Result<Vec<AxisMap>, PadError> {
    if spec.axes.len() != shape.len() {
        return Err(PadError::RankMismatch {
            spec: spec.axes.len(),
            rank: shape.len(),
        });
    }
    shape
        .iter()
        .zip(&spec.axes)
        .enumerate()
        .map(|(axis, (&d, pad))| axis_map(axis, d, pad, spec))
        .collect()
}
