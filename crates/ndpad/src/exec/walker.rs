//! The row walker: the output's rows in order, as an odometer over the outer axes
//! (every axis before the row axis), each output row mapped to its input row (or to
//! the constant). Shared by the byte, string and packed paths.

use crate::plan::{Plan, Seg};

/// One outer axis: its segments with their starting coordinates, and its input stride
/// (in elements of the representation).
pub(super) struct Outer<'p> {
    pub(super) segs: &'p [Seg],
    pub(super) starts: Vec<usize>,
    pub(super) stride: usize,
    /// Output coordinates (the axis's output length).
    pub(super) n: usize,
}

/// The outer axes of a plan, outermost first.
pub(super) struct Walker<'p> {
    pub(super) outer: Vec<Outer<'p>>,
}

/// A position of the walk: the current coordinate of each outer axis.
pub(super) struct Cursor {
    pub(super) at: Vec<At>,
}

/// A coordinate of an outer axis: its segment, and the offset into it.
#[derive(Clone, Copy, Default)]
pub(super) struct At {
    pub(super) seg: usize,
    pub(super) off: usize,
}

impl<'p> Walker<'p> {
    /// The walker of `plan`'s outer axes, input strides counted in elements of `size`
    /// bytes, `unit` of them to a row element: those of a C-contiguous input, or the
    /// given byte strides of its outer axes (whole multiples of `size`,
    /// [`Plan::strided_rows`]).
    pub(super) fn new(
        plan: &'p Plan,
        unit: usize,
        size: usize,
        strides: Option<&[usize]>,
    ) -> Walker<'p> {
        let outer_count = plan.row_axis.unwrap_or(0);
        // Input stride of the innermost outer axis: one input row.
        let mut stride = plan.row_axis.map_or(0, |r| plan.in_shape[r]) * unit;
        let mut outer: Vec<Outer<'p>> = Vec::with_capacity(outer_count);
        for a in (0..outer_count).rev() {
            let ax = &plan.axes[a];
            // An axis of one output coordinate that reads input coordinate 0 (an
            // unpadded axis of extent 1: NCHW's N of one image) moves no row: left out,
            // its pads walk as those of the tensor without it.
            if ax.map.n == 1 && matches!(ax.segs[..], [s] if s.src_at(0) == Some(0)) {
                stride *= ax.dim;
                continue;
            }
            let mut starts = Vec::with_capacity(ax.segs.len());
            let mut pos = 0;
            for s in &ax.segs {
                starts.push(pos);
                pos += s.len();
            }
            outer.push(Outer {
                segs: &ax.segs,
                starts,
                stride: strides.map_or(stride, |s| s[a] / size.max(1)),
                n: ax.map.n,
            });
            stride *= ax.dim;
        }
        outer.reverse();
        Walker { outer }
    }

    /// The output's rows.
    pub(super) fn rows(&self) -> usize {
        self.outer.iter().map(|o| o.n).product()
    }

    /// The innermost outer axis, whose passes are the planes.
    pub(super) fn plane_axis(&self) -> Option<&Outer<'p>> {
        self.outer.last()
    }

    /// The elements between the inputs of two planes of a run ([`Self::plane_run`]'s
    /// step where it gives more than one plane), and the output length of the axis
    /// above the plane axis (the most planes a run has), where there is one.
    pub(super) fn plane_step(&self) -> Option<(usize, usize)> {
        let a = self.outer.len().checked_sub(2)?;
        Some((self.outer[a].stride, self.outer[a].n))
    }

    /// The cursor at output row `row`.
    pub(super) fn cursor(&self, mut row: usize) -> Cursor {
        let k = self.outer.len();
        let mut c = Cursor {
            at: vec![At::default(); k],
        };
        for a in (0..k).rev() {
            let o = &self.outer[a];
            let coord = row % o.n;
            row /= o.n;
            let s = o.starts.partition_point(|&st| st <= coord) - 1;
            c.at[a].seg = s;
            c.at[a].off = coord - o.starts[s];
        }
        c
    }

    /// Input element offset of the cursor's row, or `None` when it is all constant.
    pub(super) fn row_src(&self, c: &Cursor) -> Option<usize> {
        let base = self.base_src(c)?;
        match self.outer.last() {
            Some(o) => {
                let a = self.outer.len() - 1;
                Some(base + o.segs[c.at[a].seg].src_at(c.at[a].off)? * o.stride)
            }
            None => Some(base),
        }
    }

    /// Moves the cursor one row on; `true` when an axis other than the innermost
    /// moved (so [`Self::base_src`] changed). Inlined: once per batch of rows.
    #[inline]
    pub(super) fn advance(&self, c: &mut Cursor) -> bool {
        let inner = self.outer.len().saturating_sub(1);
        for a in (0..self.outer.len()).rev() {
            let o = &self.outer[a];
            c.at[a].off += 1;
            if c.at[a].off < o.segs[c.at[a].seg].len() {
                return a < inner;
            }
            c.at[a].off = 0;
            c.at[a].seg += 1;
            if c.at[a].seg < o.segs.len() {
                return a < inner;
            }
            c.at[a].seg = 0;
        }
        true
    }

    /// Input element offset of the cursor's row contributed by all outer axes but the
    /// innermost, or `None` when one of them is constant there.
    #[inline]
    pub(super) fn base_src(&self, c: &Cursor) -> Option<usize> {
        let k = self.outer.len().saturating_sub(1);
        let mut off = 0;
        for (a, o) in self.outer[..k].iter().enumerate() {
            off += o.segs[c.at[a].seg].src_at(c.at[a].off)? * o.stride;
        }
        Some(off)
    }

    /// Moves the cursor `rows` rows on, all within the innermost axis's current
    /// segment; `true` as [`Self::advance`].
    #[inline]
    pub(super) fn skip(&self, c: &mut Cursor, rows: usize) -> bool {
        if let Some(a) = self.outer.len().checked_sub(1) {
            c.at[a].off += rows - 1;
        }
        self.advance(c)
    }

    /// The planes from the cursor's on (the cursor at a plane's first row) whose inputs
    /// follow one another a fixed stride apart: how many (at least the cursor's), and
    /// that stride; those along a copied segment of the axis above the innermost.
    #[inline(always)]
    pub(super) fn plane_run(&self, c: &Cursor) -> (usize, usize) {
        let Some(a) = self.outer.len().checked_sub(2) else {
            return (1, 0);
        };
        let o = &self.outer[a];
        match o.segs[c.at[a].seg] {
            seg @ Seg::Copy { .. } => (seg.len() - c.at[a].off, o.stride),
            _ => (1, 0),
        }
    }

    /// Moves the cursor (at a plane's first row) `planes` planes on, all within the
    /// run [`Self::plane_run`] gave; `true` as [`Self::advance`].
    #[inline(always)]
    pub(super) fn skip_planes(&self, c: &mut Cursor, planes: usize) -> bool {
        debug_assert!(planes >= 1);
        if let Some(a) = self.outer.len().checked_sub(2) {
            c.at[a].off += planes - 1;
        }
        // The innermost axis's end: the next plane's first row.
        self.seek_inner(c, self.outer.last().map_or(0, |o| o.n))
    }

    /// The cursor's position along the innermost outer axis: (its segment, that
    /// segment's remaining rows from the cursor on, the coordinate within the axis).
    #[inline(always)]
    pub(super) fn inner(&self, c: &Cursor) -> Option<(Seg, usize, usize)> {
        let a = self.outer.len().checked_sub(1)?;
        let o = &self.outer[a];
        let seg = o.segs[c.at[a].seg];
        Some((
            seg,
            seg.len() - c.at[a].off,
            o.starts[c.at[a].seg] + c.at[a].off,
        ))
    }

    /// Moves the cursor to coordinate `at` of the innermost outer axis (the other axes
    /// unchanged); `at` may be the axis's length, which moves it to the next plane's
    /// first row and returns `true` as [`Self::advance`].
    #[inline(always)]
    pub(super) fn seek_inner(&self, c: &mut Cursor, at: usize) -> bool {
        let Some(a) = self.outer.len().checked_sub(1) else {
            return false;
        };
        let o = &self.outer[a];
        if at >= o.n {
            let last = o.segs.len() - 1;
            c.at[a] = At {
                seg: last,
                off: o.segs[last].len() - 1,
            };
            return self.advance(c);
        }
        let seg = o.starts.partition_point(|&st| st <= at) - 1;
        c.at[a] = At {
            seg,
            off: at - o.starts[seg],
        };
        false
    }
}
