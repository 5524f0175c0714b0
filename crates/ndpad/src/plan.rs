//! The execution plan: what the fast kernel does, as plain data.
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

    /// The input coordinates the run reads, as one interval (empty for the constant).
    pub fn reads(&self) -> Range<usize> {
        match *self {
            Seg::Copy { src, len } | Seg::Spread { src, len, .. } => src..src + len,
            Seg::Rev { src, len } => (src + 1).saturating_sub(len)..src + 1,
            Seg::Fill { src: Some(src), .. } => src..src + 1,
            Seg::Fill { src: None, .. } => 0..0,
        }
    }

    /// The same run reading input coordinates `origin` lower (`origin` is at most the
    /// least coordinate it reads).
    fn moved_down(self, origin: usize) -> Seg {
        match self {
            Seg::Copy { src, len } => Seg::Copy {
                src: src - origin,
                len,
            },
            Seg::Rev { src, len } => Seg::Rev {
                src: src - origin,
                len,
            },
            Seg::Spread { src, len, gap } => Seg::Spread {
                src: src - origin,
                len,
                gap,
            },
            Seg::Fill { src, len } => Seg::Fill {
                src: src.map(|s| s - origin),
                len,
            },
        }
    }

    /// The input coordinate of the run's `k`-th output coordinate.
    pub fn src_at(&self, k: usize) -> Option<usize> {
        match *self {
            Seg::Copy { src, .. } => Some(src + k),
            Seg::Rev { src, .. } => src.checked_sub(k),
            Seg::Spread { src, gap, .. } => k.is_multiple_of(gap + 1).then(|| src + k / (gap + 1)),
            Seg::Fill { src, .. } => src,
        }
    }
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

/// The most runs one axis of a window or of a sub-byte tensor may need. Only an
/// oversized pad that repeats a short axis many times (numpy's reflect / symmetric /
/// wrap) comes near it; [`Plan::new`] tiles such axes instead.
pub const MAX_RUNS: usize = 1 << 22;

/// The run of output coordinates starting at `o` of a non-constant axis: as long as
/// the fold keeps reading consecutive (or reversed, or the same) input coordinates,
/// at most `left` long.
fn run_at(map: &AxisMap, o: usize, left: usize) -> Seg {
    let p = o as i128 - map.shift;
    let len = map.len as i128;
    let at = |q: i128| map.offset + q as usize;
    let take = |k: i128| (k.max(1) as usize).min(left);
    match map.fold {
        Fold::Edge if p < 0 => Seg::Fill {
            src: Some(at(0)),
            len: take(-p),
        },
        Fold::Edge if p >= len => Seg::Fill {
            src: Some(at(len - 1)),
            len: left,
        },
        Fold::Reflect if len == 1 => Seg::Fill {
            src: Some(at(0)),
            len: left,
        },
        Fold::Reflect | Fold::Symmetric | Fold::Wrap => {
            let (period, back) = map.period();
            let r = p.rem_euclid(period);
            if r < len {
                Seg::Copy {
                    src: at(r),
                    len: take(len - r),
                }
            } else {
                Seg::Rev {
                    src: at(period - back - r),
                    len: take(period - r),
                }
            }
        }
        // Edge inside the data, and constant mode (handled by the caller).
        _ => Seg::Copy {
            src: at(p.max(0)),
            len: take(len - p),
        },
    }
}

/// Appends a run, merging it into the last one when it continues it.
fn push_seg(segs: &mut Vec<Seg>, seg: Seg) {
    if let Some(last) = segs.last_mut() {
        match (last, seg) {
            (Seg::Fill { src: a, len }, Seg::Fill { src: b, len: more }) if *a == b => {
                *len += more;
                return;
            }
            (Seg::Copy { src: a, len }, Seg::Copy { src: b, len: more }) if *a + *len == b => {
                *len += more;
                return;
            }
            (Seg::Rev { src: a, len }, Seg::Rev { src: b, len: more })
                if a.checked_sub(*len) == Some(b) =>
            {
                *len += more;
                return;
            }
            _ => {}
        }
    }
    segs.push(seg);
}

/// The runs of one axis (see [`Seg`]), in output order.
///
/// # Errors
/// [`PadError::TooManyRuns`] when the axis needs more than 2^22 runs (`MAX_RUNS`; a
/// tiny axis repeated by a giant pad).
///
/// ```
/// use ndpad::{axis_map, segments, AxisPad, Mode, PadSpec, Seg};
/// let spec = PadSpec::new(vec![AxisPad::new(2, 1)], Mode::Reflect);
/// let map = axis_map(0, 4, &spec.axes[0], &spec).unwrap();
/// assert_eq!(
///     segments(0, &map).unwrap(),
///     vec![Seg::Rev { src: 2, len: 2 }, Seg::Copy { src: 0, len: 4 }, Seg::Rev { src: 2, len: 1 }]
/// );
/// ```
pub fn segments(axis: usize, map: &AxisMap) -> Result<Vec<Seg>, PadError> {
    let n = map.n;
    if n == 0 {
        return Ok(Vec::new());
    }
    if map.interior > 0 {
        return Ok(interior_segments(map));
    }
    let mut segs = Vec::new();
    if map.fold == Fold::Constant {
        let clamp = |x: i128| x.clamp(0, n as i128) as usize;
        let lo = clamp(map.shift);
        let hi = clamp(map.shift + map.len as i128).max(lo);
        push_run(&mut segs, Seg::Fill { src: None, len: lo });
        if hi > lo {
            let src = map.offset + (lo as i128 - map.shift) as usize;
            segs.push(Seg::Copy { src, len: hi - lo });
        }
        push_run(
            &mut segs,
            Seg::Fill {
                src: None,
                len: n - hi,
            },
        );
        return Ok(segs);
    }
    let mut o = 0;
    while o < n {
        let seg = run_at(map, o, n - o);
        o += seg.len();
        push_seg(&mut segs, seg);
        if segs.len() > MAX_RUNS {
            return Err(PadError::TooManyRuns {
                axis,
                extent: n,
                limit: MAX_RUNS,
            });
        }
    }
    Ok(segs)
}

/// The period of an axis whose output repeats it more than `min_periods` times
/// (reflect, symmetric and wrap without interior padding), planned as a tile
/// (`exec/tile.rs`); sub-byte types are not tiled.
fn tile_period(dtype: DType, map: &AxisMap, min_periods: usize) -> Option<usize> {
    let periodic = map.interior == 0
        && match map.fold {
            Fold::Reflect => map.len > 1,
            Fold::Symmetric | Fold::Wrap => map.len > 0,
            _ => false,
        };
    let period = usize::try_from(map.period().0).ok()?;
    let fits = !matches!(dtype.layout(), Layout::Packed(_));
    (periodic && fits && period > 0 && map.n / period > min_periods).then_some(period)
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

/// Sorted, disjoint, non-adjacent intervals covering the non-empty ones given.
fn merged(intervals: impl Iterator<Item = Range<usize>>) -> Vec<Range<usize>> {
    let mut all: Vec<Range<usize>> = intervals.filter(|r| !r.is_empty()).collect();
    all.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(all.len());
    for r in all {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// What the plan of a window ([`Plan::window`]) reads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The input region the box reads ([`Window::input`]), as a tensor of its own
    /// (for inputs stored in pieces: chunks, tiles, files).
    Region,
    /// The whole input tensor, of which only the region is read (for inputs in
    /// memory or memory-mapped).
    Whole,
    /// The intervals the box reads ([`Window::reads`]) laid end to end on each axis,
    /// as a tensor of its own: never larger than the box's reads, also where they lie
    /// far apart (a wrap across the seam reads both ends of an axis).
    Reads,
}

/// A box of the padded output, planned by [`Plan::window`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The plan: its output is the box; its input the region `input` of the tensor,
    /// the whole tensor, or the intervals `reads` laid end to end, as [`Source`] chose.
    pub plan: Plan,
    /// Per axis, the range of input coordinates the box reads at most (the hull of
    /// `reads`); empty where the box reads nothing.
    pub input: Vec<Range<usize>>,
    /// Per axis, the input coordinates the box reads, as sorted disjoint intervals.
    pub reads: Vec<Vec<Range<usize>>>,
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
    /// The plan of one period of the axes the output repeats very many times, padded
    /// and then repeated over the output (`exec/tile.rs`); `None` for an untiled plan.
    pub(crate) tile: Option<Box<Plan>>,
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
            return Plan::tiled(tile, maps, &periods, value);
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
        Plan::assemble(dtype, axes, row_axis, value)
    }

    /// Plans one box of the padded output (`out_box`: a range of output coordinates
    /// per axis) of a `dtype` tensor of `shape`, reading only the input region the
    /// box needs. Running the window's plan on its input (with [`Source::Region`], that
    /// region as a tensor of its own; with [`Source::Whole`], the whole tensor, of
    /// which it reads only the region) writes exactly the box of what padding the
    /// whole tensor writes, for every mode and policy; the whole output is the box
    /// covering it.
    ///
    /// # Errors
    /// Every error of [`Plan::new`] for the whole pad; [`PadError::WindowRank`] and
    /// [`PadError::WindowOutside`] for a box that is not inside the output.
    ///
    /// ```
    /// use ndpad::{AxisPad, DType, Mode, PadSpec, Plan, PadOptions, Source, TensorView, TensorViewMut};
    /// // [1, 2, 3, 4] reflect-padded by 3 on each side is [4,3,2, 1,2,3,4, 3,2,1];
    /// // its last three elements read input elements 0..3.
    /// let spec = PadSpec::new(vec![AxisPad::new(3, 3)], Mode::Reflect);
    /// let w = Plan::window(DType::Uint8, &[4], &spec, &[7..10], Source::Region).unwrap();
    /// assert_eq!(w.input, vec![0..3]);
    /// assert_eq!(w.reads, vec![vec![0..3]]);
    /// let region = TensorView::from_bytes(DType::Uint8, &[3], &[1, 2, 3]).unwrap();
    /// let mut buf = [0u8; 3];
    /// let mut out = TensorViewMut::from_bytes(DType::Uint8, &[3], &mut buf).unwrap();
    /// w.plan.execute(region, &mut out, &PadOptions::default()).unwrap();
    /// assert_eq!(buf, [3, 2, 1]);
    /// ```
    pub fn window(
        dtype: DType,
        shape: &[usize],
        spec: &PadSpec,
        out_box: &[Range<usize>],
        source: Source,
    ) -> Result<Window, PadError> {
        let maps = axis_maps(shape, spec)?;
        if out_box.len() != shape.len() {
            return Err(PadError::WindowRank {
                window: out_box.len(),
                rank: shape.len(),
            });
        }
        let value = constant(dtype, spec)?;
        for (a, (map, r)) in maps.iter().zip(out_box).enumerate() {
            if r.start > r.end || r.end > map.n {
                return Err(PadError::WindowOutside {
                    axis: a,
                    start: r.start,
                    end: r.end,
                    extent: map.n,
                });
            }
        }
        let empty = out_box.iter().any(|r| r.is_empty());
        // A box that repeats an axis's period very often is tiled as a whole pad is
        // ([`Plan::tiling`]): one period from the box's start is planned, and repeated.
        // A period reads the whole input axis, as the box does, so the tile's reads are
        // the box's.
        let periods: Vec<Option<usize>> = maps
            .iter()
            .zip(out_box)
            .map(|(m, r)| {
                let m = m.window(r.start, r.len());
                tile_period(dtype, &m, crate::tune::TILE_MIN_PERIODS).filter(|_| !empty)
            })
            .collect();
        if periods.iter().any(Option::is_some) {
            let tile_box: Vec<Range<usize>> = out_box
                .iter()
                .zip(&periods)
                .map(|(r, p)| match p {
                    Some(p) => r.start..r.start + p,
                    None => r.clone(),
                })
                .collect();
            let Window {
                plan: tile,
                input,
                reads,
            } = Plan::window(dtype, shape, spec, &tile_box, source)?;
            let maps = maps
                .iter()
                .zip(out_box)
                .map(|(m, r)| m.window(r.start, r.len()));
            let plan = Plan::tiled(tile, maps.collect(), &periods, value)?;
            return Ok(Window { plan, input, reads });
        }
        let mut axes = Vec::with_capacity(shape.len());
        let mut input = Vec::with_capacity(shape.len());
        let mut reads = Vec::with_capacity(shape.len());
        for (a, (map, r)) in maps.iter().zip(out_box).enumerate() {
            let map = map.window(r.start, r.len());
            // An empty box reads nothing, whatever its other axes would read.
            let segs = if empty {
                Vec::new()
            } else {
                segments(a, &map)?
            };
            let intervals = merged(segs.iter().map(Seg::reads));
            let hull = match (intervals.first(), intervals.last()) {
                (Some(f), Some(l)) => f.start..l.end,
                _ => 0..0,
            };
            let segs = match source {
                Source::Region => segs.into_iter().map(|s| s.moved_down(hull.start)).collect(),
                Source::Whole => segs,
                Source::Reads => {
                    // Each run reads inside one interval, which starts at `at` of the
                    // intervals laid end to end.
                    let mut starts = Vec::with_capacity(intervals.len());
                    let mut at = 0;
                    for r in &intervals {
                        starts.push((r.clone(), at));
                        at += r.len();
                    }
                    segs.into_iter()
                        .map(|s| {
                            let first = s.reads().start;
                            match starts.iter().find(|(r, _)| r.contains(&first)) {
                                Some((r, at)) => s.moved_down(r.start - at),
                                None => s, // the constant reads nothing
                            }
                        })
                        .collect()
                }
            };
            let dim = match source {
                Source::Region => hull.len(),
                Source::Whole => shape[a],
                Source::Reads => intervals.iter().map(|r| r.len()).sum(),
            };
            axes.push(PlanAxis { dim, map, segs });
            input.push(hull);
            reads.push(intervals);
        }
        let row_axis = row_axis(&axes);
        let plan = Plan::assemble(dtype, axes, row_axis, value)?;
        Ok(Window { plan, input, reads })
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
            tile: None,
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
