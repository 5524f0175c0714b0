//! The runs of one axis: [`Seg`], and [`segments`], which lists an axis's runs
//! from its [`AxisMap`] (a run per stretch the fold reads in one direction, not per
//! element).

use std::ops::Range;

use crate::error::PadError;
use crate::spec::{AxisMap, Fold};

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

    /// The input coordinates the run's output coordinates `k..k + m` read, as one
    /// interval (empty for the constant, and for constants between interior values).
    pub(super) fn reads_part(&self, k: usize, m: usize) -> Range<usize> {
        let last = k.saturating_add(m).saturating_sub(1);
        match *self {
            Seg::Copy { src, .. } => src.saturating_add(k)..src.saturating_add(k).saturating_add(m),
            Seg::Rev { src, .. } => {
                src.saturating_sub(last)..src.saturating_sub(k).saturating_add(1)
            }
            Seg::Spread { src, gap, .. } => {
                // Values sit at multiples of `gap + 1`: the first at or after `k`, the
                // last at or before `k + m - 1`.
                let step = gap.saturating_add(1);
                let (first, end) = (k.div_ceil(step), last / step + 1);
                if m == 0 || first >= end {
                    0..0
                } else {
                    src.saturating_add(first)..src.saturating_add(end)
                }
            }
            Seg::Fill { .. } => self.reads(),
        }
    }

    /// The same run reading input coordinates `origin` lower (`origin` is at most the
    /// least coordinate it reads).
    pub(super) fn moved_down(self, origin: usize) -> Seg {
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
    if map.shift == 0 && map.len == n {
        // The window as it is, in every mode: one copy, the run of an axis left alone
        // (a reflected axis of one element would read it as a fill of it, which
        // `Plan`'s row axis took for padding: [h, w, 1] went an element a row).
        return Ok(vec![Seg::Copy {
            src: map.offset,
            len: n,
        }]);
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
