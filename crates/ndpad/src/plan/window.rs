//! Windows: [`Plan::window`] plans one box of the output, reading only the input
//! region the box needs ([`Window`], [`Source`]).

use std::ops::Range;

use crate::dtype::DType;
use crate::error::PadError;
use crate::spec::{axis_maps, faces, Face, PadSpec};

use super::{constant, row_axis, segments, tile_period, Plan, PlanAxis, Seg};

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

impl Plan {
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
        let faces = faces(dtype, spec, &maps)?;
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
        let mut plan = Plan::assemble(dtype, axes, row_axis, value)?;
        // The faces inside the box, in the box's coordinates.
        plan.faces = faces
            .into_iter()
            .filter_map(|f| {
                let region: Vec<Range<usize>> = f
                    .region
                    .iter()
                    .zip(out_box)
                    .map(|(r, b)| {
                        r.start.max(b.start) - b.start..r.end.min(b.end).max(b.start) - b.start
                    })
                    .collect();
                (!empty && region.iter().all(|r| !r.is_empty())).then_some(Face {
                    region,
                    value: f.value,
                })
            })
            .collect();
        Ok(Window { plan, input, reads })
    }
}
