//! Pieces of the output that read a bounded input: [`split_axis`] cuts an output
//! range along one axis into pieces each reading an input hull no wider than a
//! limit, and [`file_order_boxes`] lays the whole output out in boxes of a byte
//! budget, in file order. The one windowed-padding layer of the workspace: the CLI
//! writes `.npy` files larger than memory box by box, ndpad-zarr cuts each output
//! chunk into pieces; each box or piece is then planned with [`Plan::window`].
//!
//! [`Plan::window`]: super::Plan::window

use std::ops::Range;

use crate::error::PadError;
use crate::spec::{axis_maps, output_shape, AxisMap, PadSpec};

use super::{repeat_period, segments, Seg};

/// Where [`split_axis`] may cut an output range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// At both ends of every run of the axis ([`Seg`]), and inside a run every `limit`
    /// coordinates from its start: each piece lies inside one run, so it reads no
    /// more input coordinates than its own length, and is at most `limit` long (the
    /// CLI's boxes, which read no more than their own size).
    Runs,
    /// Only where the hull of what a piece reads would grow wider than `limit`:
    /// neighbouring runs share a piece while their reads together fit (ndpad-zarr's
    /// pieces of an output chunk, as few as the limit allows).
    Hull,
}

/// A piece of an output range along one axis ([`split_axis`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Its output coordinates.
    pub out: Range<usize>,
    /// The hull of the input coordinates it reads, as [`Window::input`] gives it on
    /// this axis: `0..0` where it reads none (the constant).
    ///
    /// [`Window::input`]: super::Window::input
    pub reads: Range<usize>,
}

/// The hull of two hulls of reads (an empty one reads nothing and adds nothing).
fn hull(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.clone(),
        (_, true) => a.clone(),
        _ => a.start.min(b.start)..a.end.max(b.end),
    }
}

/// The source window of an axis: what a whole period of a repeating axis reads.
fn whole_window(map: &AxisMap) -> Range<usize> {
    map.offset..map.offset.saturating_add(map.len)
}

/// A run of the output range being split: one of the axis's runs, or, on an axis of
/// more runs than a plan lists ([`PadError::TooManyRuns`]: a short axis repeated
/// very many times), the whole range as one.
enum Run {
    Seg(Seg),
    Periodic(usize),
}

impl Run {
    fn len(&self) -> usize {
        match self {
            Run::Seg(s) => s.len(),
            Run::Periodic(n) => *n,
        }
    }

    /// The hull of what its output coordinates `k..k + m` read (`m > 0`), the run
    /// starting at output coordinate `start` of the axis (`map`, number `axis`).
    fn reads(&self, k: usize, m: usize, map: &AxisMap, axis: usize, start: usize) -> Range<usize> {
        match self {
            Run::Seg(s) => s.reads_part(k, m),
            Run::Periodic(_) => match repeat_period(map) {
                // A stretch shorter than a period has a few runs, listed; a longer one
                // reads the whole source window.
                Some(period) if m < period => {
                    match segments(axis, &map.window(start.saturating_add(k), m)) {
                        Ok(segs) => segs.iter().fold(0..0, |h, s| hull(&h, &s.reads())),
                        Err(_) => whole_window(map),
                    }
                }
                _ => whole_window(map),
            },
        }
    }
}

/// Splits the output coordinates `range` of axis `axis` of the pad `spec` of a tensor
/// of `shape` into pieces, in order, that together cover it, each reading an input
/// hull at most `limit` wide: [`Cut`] says where a piece may end. A `limit` of 0 is
/// taken as 1; an empty range is one empty piece.
///
/// The pieces of an axis are those of any box whose range on that axis is `range`: a
/// pad's window is separable by axis. On an axis of more runs than a plan lists
/// ([`PadError::TooManyRuns`]: a short axis repeated very many times) the range is
/// taken as one run whatever the runs in it, so with a `limit` below the input axis's
/// length a piece may read up to that whole (short) axis.
///
/// # Errors
/// Every error of [`output_shape`]; [`PadError::NoAxis`] for an axis the tensor lacks;
/// [`PadError::WindowOutside`] for a range outside the axis's output.
///
/// ```
/// use ndpad::{split_axis, AxisPad, Cut, Mode, PadSpec, Piece};
/// // 100 elements wrapped by 2: output 0..4 reads 98, 99, then 0, 1.
/// let spec = PadSpec::new(vec![AxisPad::new(2, 2)], Mode::Wrap);
/// let pieces = split_axis(&[100], &spec, 0, 0..4, 4, Cut::Hull).unwrap();
/// assert_eq!(pieces, [Piece { out: 0..2, reads: 98..100 }, Piece { out: 2..4, reads: 0..2 }]);
/// ```
pub fn split_axis(
    shape: &[usize],
    spec: &PadSpec,
    axis: usize,
    range: Range<usize>,
    limit: usize,
    cut: Cut,
) -> Result<Vec<Piece>, PadError> {
    let maps = axis_maps(shape, spec)?;
    let map = maps.get(axis).ok_or(PadError::NoAxis {
        axis,
        rank: shape.len(),
    })?;
    if range.start > range.end || range.end > map.n {
        return Err(PadError::WindowOutside {
            axis,
            start: range.start,
            end: range.end,
            extent: map.n,
        });
    }
    let limit = limit.max(1);
    let window = map.window(range.start, range.len());
    if cut == Cut::Hull {
        // A range of a period or more of a repeating axis reads its whole source
        // window: one piece where that fits, found without listing the runs (a short
        // axis repeated a million times has millions).
        let whole = whole_window(&window);
        if repeat_period(&window).is_some_and(|p| range.len() >= p) && whole.len() <= limit {
            return Ok(vec![Piece {
                out: range,
                reads: whole,
            }]);
        }
    }
    let runs: Vec<Run> = match segments(axis, &window) {
        Ok(segs) => segs.into_iter().map(Run::Seg).collect(),
        Err(PadError::TooManyRuns { .. }) => vec![Run::Periodic(range.len())],
        Err(e) => return Err(e),
    };
    let mut out: Vec<Piece> = Vec::new();
    let mut piece: Option<Piece> = None;
    // Output coordinates below `range.end`, so none of this overflows.
    let mut at = range.start;
    for run in &runs {
        let len = run.len();
        let mut k = 0;
        while k < len {
            let m = (len - k).min(limit);
            let reads = run.reads(k, m, &window, axis, at - range.start);
            let next = at + k..at + k + m;
            piece = match piece.take() {
                Some(mut p) if cut == Cut::Hull && hull(&p.reads, &reads).len() <= limit => {
                    p.reads = hull(&p.reads, &reads);
                    p.out.end = next.end;
                    Some(p)
                }
                last => {
                    out.extend(last);
                    Some(Piece { out: next, reads })
                }
            };
            k += m;
        }
        at += len;
    }
    out.extend(piece);
    if out.is_empty() {
        out.push(Piece {
            out: range.start..range.start,
            reads: 0..0,
        });
    }
    Ok(out)
}

/// The boxes (a range of output coordinates per axis) that the output of the pad
/// `spec` of a tensor of `shape`, elements of `width` bytes, is written in, one after
/// the other, in file (C) order, each at most `budget` bytes (one element where not
/// even that fits): the trailing axes whole, the outermost axis `k` whose one index
/// (with the axes after it whole) fits split into pieces by [`split_axis`] with
/// [`Cut::Runs`] and a limit of the indices that fit, single indices on the axes
/// before `k`. No box crosses a run of axis `k`, so each reads an input region no
/// larger than itself on that axis. A rank-0 output is one empty box; an empty output
/// has none. The boxes are made as they are taken ([`FileBoxes`]): there may be far
/// more of them than memory holds at once (small boxes of a large output).
///
/// # Errors
/// Every error of [`output_shape`].
///
/// ```
/// use ndpad::{file_order_boxes, AxisPad, Mode, PadSpec};
/// // 2 x 3 edge-padded to 2 x 5 of bytes, 5 bytes at a time: one row each.
/// let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(1, 1)], Mode::Edge);
/// let boxes: Vec<_> = file_order_boxes(&[2, 3], &spec, 1, 5).unwrap().collect();
/// assert_eq!(boxes, [vec![0..1, 0..5], vec![1..2, 0..5]]);
/// ```
pub fn file_order_boxes(
    shape: &[usize],
    spec: &PadSpec,
    width: usize,
    budget: usize,
) -> Result<FileBoxes, PadError> {
    let out_shape = output_shape(shape, spec)?;
    let Some(last) = out_shape.len().checked_sub(1) else {
        return Ok(FileBoxes::one_empty());
    };
    if out_shape.contains(&0) {
        return Ok(FileBoxes::none());
    }
    // inner[k]: bytes of one index of axis k (the axes after it whole).
    let mut inner = vec![width; out_shape.len()];
    for k in (0..last).rev() {
        inner[k] = inner[k + 1].saturating_mul(out_shape[k + 1]);
    }
    let k = inner.iter().position(|&b| b <= budget).unwrap_or(last);
    // Elements of no bytes all fit.
    let per = budget.checked_div(inner[k]).unwrap_or(usize::MAX).max(1);
    let pieces = split_axis(shape, spec, k, 0..out_shape[k], per, Cut::Runs)?
        .into_iter()
        .map(|p| p.out)
        .collect();
    Ok(FileBoxes {
        index: Some(vec![0; k]),
        out_shape,
        pieces,
        next: 0,
    })
}

/// The boxes of [`file_order_boxes`], in file order: for each index of the axes
/// before the split axis, each piece of it, the axes after it whole.
#[derive(Clone, Debug)]
pub struct FileBoxes {
    /// The output's shape.
    out_shape: Vec<usize>,
    /// The split axis's pieces (its index: `index.len()`).
    pieces: Vec<Range<usize>>,
    /// The index of the axes before the split axis; `None` when all are taken.
    index: Option<Vec<usize>>,
    /// The piece the next box takes.
    next: usize,
}

impl FileBoxes {
    /// No boxes (an empty output).
    fn none() -> FileBoxes {
        FileBoxes {
            out_shape: Vec::new(),
            pieces: Vec::new(),
            index: None,
            next: 0,
        }
    }

    /// One box of no axes (a rank-0 output).
    fn one_empty() -> FileBoxes {
        FileBoxes {
            out_shape: Vec::new(),
            pieces: std::iter::once(0..0).collect(),
            index: Some(Vec::new()),
            next: 0,
        }
    }
}

impl Iterator for FileBoxes {
    type Item = Vec<Range<usize>>;

    fn next(&mut self) -> Option<Vec<Range<usize>>> {
        let index = self.index.as_mut()?;
        let k = index.len();
        let Some(piece) = self.pieces.get(self.next) else {
            self.index = None;
            return None;
        };
        let mut b: Vec<Range<usize>> = index.iter().map(|&i| i..i + 1).collect();
        if k < self.out_shape.len() {
            b.push(piece.clone());
            b.extend(self.out_shape[k + 1..].iter().map(|&n| 0..n));
        }
        self.next += 1;
        if self.next == self.pieces.len() {
            // The next index of the axes before `k`, or none.
            self.next = 0;
            if !crate::index::next_index(index, &self.out_shape[..k]) {
                self.index = None;
            }
        }
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AxisPad, Mode, Oversize};

    fn outs(p: &[Piece]) -> Vec<Range<usize>> {
        p.iter().map(|p| p.out.clone()).collect()
    }

    fn piece(out: Range<usize>, reads: Range<usize>) -> Piece {
        Piece { out, reads }
    }

    #[test]
    fn split_axis_bounds_each_piece_read() {
        // Wrap of 4 by 2: output 0..4 reads 2..4 then 0..2, a hull of 4.
        let spec = PadSpec::new(vec![AxisPad::new(2, 2)], Mode::Wrap);
        let p = split_axis(&[4], &spec, 0, 0..4, 4, Cut::Hull).unwrap();
        assert_eq!(p, [piece(0..4, 0..4)]);
        // Wrap of 100 by 2: 98..100 then 0..2, a hull of 100: split there.
        let p = split_axis(&[100], &spec, 0, 0..4, 4, Cut::Hull).unwrap();
        assert_eq!(outs(&p), [0..2, 2..4]);
        assert_eq!(p[0].reads, 98..100);
        // Constants read nothing and never split.
        let spec = PadSpec::new(vec![AxisPad::new(3, 0)], Mode::Constant(None));
        let p = split_axis(&[60], &spec, 0, 0..4, 4, Cut::Hull).unwrap();
        assert_eq!(p, [piece(0..4, 0..1)]);
        let p = split_axis(&[60], &spec, 0, 0..3, 4, Cut::Hull).unwrap();
        assert_eq!(p, [piece(0..3, 0..0)]);
        // An empty range: one empty piece.
        let p = split_axis(&[60], &spec, 0, 5..5, 4, Cut::Hull).unwrap();
        assert_eq!(p, [piece(5..5, 0..0)]);
    }

    #[test]
    fn split_axis_cuts_runs_every_limit() {
        // Reflect of 4 by 3 reads 3, 2 1, 0 1 2 3, 2 1, 0: runs of 1, 2, 4, 2, 1.
        let spec = PadSpec::new(vec![AxisPad::new(3, 3)], Mode::Reflect);
        let p = split_axis(&[4], &spec, 0, 0..10, 2, Cut::Runs).unwrap();
        assert_eq!(outs(&p), [0..1, 1..3, 3..5, 5..7, 7..9, 9..10]);
        assert_eq!(p[0].reads, 3..4);
        assert_eq!(p[1].reads, 1..3);
        assert_eq!(p[5].reads, 0..1);
        // Interior padding: a run of 4 inputs, 3 constants between; every piece
        // reads at most what it holds.
        let spec = PadSpec::new(
            vec![AxisPad {
                interior: 3,
                ..AxisPad::new(0, 0)
            }],
            Mode::Constant(None),
        );
        let p = split_axis(&[4], &spec, 0, 1..13, 3, Cut::Runs).unwrap();
        assert_eq!(outs(&p), [1..4, 4..7, 7..10, 10..13]);
        let reads: Vec<_> = p.iter().map(|p| p.reads.clone()).collect();
        assert_eq!(reads, [0..0, 1..2, 2..3, 3..4]);
    }

    #[test]
    fn split_axis_refuses_what_is_not_there() {
        let spec = PadSpec::new(vec![AxisPad::new(1, 1)], Mode::Edge);
        let e = split_axis(&[3], &spec, 1, 0..1, 4, Cut::Hull).unwrap_err();
        assert_eq!(e, PadError::NoAxis { axis: 1, rank: 1 });
        #[allow(clippy::reversed_empty_ranges)] // a reversed range is refused
        let e = split_axis(&[3], &spec, 0, 4..2, 4, Cut::Hull).unwrap_err();
        assert!(matches!(e, PadError::WindowOutside { .. }));
        let e = split_axis(&[3], &spec, 0, 0..6, 4, Cut::Hull).unwrap_err();
        assert!(matches!(e, PadError::WindowOutside { .. }));
        assert!(split_axis(&[3, 3], &spec, 0, 0..1, 4, Cut::Hull).is_err());
        // A limit of 0 is 1.
        let p = split_axis(&[3], &spec, 0, 0..5, 0, Cut::Runs).unwrap();
        assert_eq!(p.len(), 5);
    }

    /// An axis of more runs than a plan lists: the range is one run, cut every limit
    /// (Runs) or kept whole while what it reads fits (Hull).
    #[test]
    fn split_axis_of_too_many_runs() {
        let spec = PadSpec::new(vec![AxisPad::new(0, 9 << 20)], Mode::Wrap)
            .with_oversize(Oversize::Repeat);
        let n = 2 + (9 << 20);
        let p = split_axis(&[2], &spec, 0, 0..n, n, Cut::Hull).unwrap();
        assert_eq!(p, [piece(0..n, 0..2)]);
        let p = split_axis(&[2], &spec, 0, 0..n, 4 << 20, Cut::Runs).unwrap();
        assert_eq!(outs(&p), [0..4 << 20, 4 << 20..8 << 20, 8 << 20..n]);
        let p = split_axis(&[2], &spec, 0, 1..2, 1, Cut::Runs).unwrap();
        assert_eq!(p, [piece(1..2, 1..2)]);
    }

    #[test]
    fn boxes_cover_the_output_in_file_order_within_segments() {
        let spec = PadSpec::new(vec![AxisPad::new(2, 3), AxisPad::new(1, 1)], Mode::Wrap)
            .with_oversize(Oversize::Repeat);
        // 7 x 6 of 4-byte elements: a row is 24 bytes; 50 bytes hold two rows.
        let b: Vec<_> = file_order_boxes(&[2, 4], &spec, 4, 50).unwrap().collect();
        let rows: Vec<Range<usize>> = b.iter().map(|x| x[0].clone()).collect();
        // Segments of axis 0: [0, 2) reads rows 0-1 (wrap), [2, 4) the data, [4, 7)
        // rows 0, 1, 0: runs of at most two rows, none crossing a segment.
        assert_eq!(rows, vec![0..2, 2..4, 4..6, 6..7]);
        assert!(b.iter().all(|x| x[1] == (0..6)));
        // A budget below one row splits the rows instead: runs of at most two
        // elements within axis 1's segments [0, 1) [1, 5) [5, 6), row after row.
        let b: Vec<_> = file_order_boxes(&[2, 4], &spec, 4, 10).unwrap().collect();
        assert_eq!(b.len(), 7 * 4);
        assert_eq!(b[0], vec![0..1, 0..1]);
        assert_eq!(b[1], vec![0..1, 1..3]);
        assert_eq!(b[4], vec![1..2, 0..1]);
    }

    /// Boxes are made as they are taken: a 1 x 1 input wrapped to 200001 x 5001 in
    /// boxes of a byte has about 10^9 of them (their list took 72 GB and aborted).
    #[test]
    fn boxes_are_made_as_taken() {
        let spec = PadSpec::new(
            vec![AxisPad::new(0, 200_000), AxisPad::new(0, 5000)],
            Mode::Wrap,
        )
        .with_oversize(Oversize::Repeat);
        let mut b = file_order_boxes(&[1, 1], &spec, 1, 1).unwrap();
        assert_eq!(b.next(), Some(vec![0..1, 0..1]));
        assert_eq!(b.next(), Some(vec![0..1, 1..2]));
        assert_eq!(b.nth(4999), Some(vec![1..2, 0..1]));
        // All of them, on a smaller pad.
        let spec = PadSpec::new(vec![AxisPad::new(0, 200), AxisPad::new(0, 50)], Mode::Wrap)
            .with_oversize(Oversize::Repeat);
        let mut b = file_order_boxes(&[1, 1], &spec, 1, 1).unwrap();
        assert_eq!(b.clone().count(), 201 * 51);
        assert_eq!(b.nth(201 * 51 - 1), Some(vec![200..201, 50..51]));
        assert_eq!(b.next(), None);
    }

    #[test]
    fn boxes_of_no_axes_no_elements_and_no_bytes() {
        let none = PadSpec::new(vec![], Mode::Edge);
        assert_eq!(
            file_order_boxes(&[], &none, 4, 1)
                .unwrap()
                .collect::<Vec<_>>(),
            vec![Vec::<Range<usize>>::new()]
        );
        let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(1, 1)], Mode::Edge);
        assert_eq!(file_order_boxes(&[0, 3], &spec, 4, 100).unwrap().count(), 0);
        // Elements of no bytes: the whole output in one box.
        let b: Vec<_> = file_order_boxes(&[2, 3], &spec, 0, 0).unwrap().collect();
        assert_eq!(b, [vec![0..2, 0..5]]);
        assert!(file_order_boxes(&[2], &spec, 4, 100).is_err());
    }
}
