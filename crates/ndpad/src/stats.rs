//! numpy.pad's statistic modes (`maximum`, `minimum`, `mean`, `median`) and
//! `linear_ramp`, bit for bit, in place.
//!
//! The caller has written the input into the middle of a C-contiguous buffer of the
//! padded shape (the pad areas may hold anything). [`fill_stat`] and [`fill_ramp`]
//! fill the pad areas axis after axis, as `numpy.pad` does: the statistic (or the
//! ramp's edge) of axis `k` is taken over a region that spans the axes before `k`
//! whole (their pads already filled) and only the original extent of the axes after
//! `k`, so corners come out as numpy computes them.
//!
//! Each statistic is computed once per line and written to the whole pad of that
//! line. Where numpy's reduction order shows in the result it is followed: the mean
//! of a line that is numpy's inner loop (the padded axis is the last axis of the
//! region with more than one element) is numpy's pairwise sum; any other mean is
//! summed one row of the region after the other (numpy's element-wise accumulation).
//!
//! Where numpy's result is not determined by the values alone (which NaN payload wins
//! among different NaNs, which zero `maximum` returns for -0.0 and +0.0, sums of more
//! than one buffer of numpy's iterator), or where numpy would emit a floating-point
//! warning (an overflow, `inf - inf`), the functions stop and return
//! [`Fill::Declined`]; they may have written part of the pad areas by then, never the
//! input area, so the caller can redo the pads its own way on the same buffer.

use std::ops::{Add, Div, Mul, Sub};

use crate::DType;

/// A statistic mode of `numpy.pad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// `np.amax` of each line's span.
    Maximum,
    /// `np.amin` of each line's span.
    Minimum,
    /// `np.mean` (integers: rounded half to even).
    Mean,
    /// `np.median` (integers: rounded half to even).
    Median,
}

impl Stat {
    /// The mode by numpy's name.
    pub fn from_name(name: &str) -> Option<Stat> {
        match name {
            "maximum" => Some(Stat::Maximum),
            "minimum" => Some(Stat::Minimum),
            "mean" => Some(Stat::Mean),
            "median" => Some(Stat::Median),
            _ => None,
        }
    }
}

/// What a fill did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Every pad area holds numpy's values.
    Done,
    /// Not computed here (the reason); the pad areas may be partly written.
    Declined(&'static str),
}

/// Arguments that do not describe a padded buffer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StatsError {
    /// The shapes, pads, lengths or buffer do not fit together.
    #[error("statistic pad: {0}")]
    Shape(String),
}

type Step<T> = Result<T, &'static str>;

/// The accumulator of a mean: `f32` for `f32`, `f64` for the rest.
pub trait Acc: Copy + Add<Output = Self> + PartialEq + Send + Sync + 'static {
    /// 0.0, numpy's identity of `add`.
    const ZERO: Self;
    /// Neither infinite nor NaN.
    fn finite(self) -> bool;
}

impl Acc for f32 {
    const ZERO: Self = 0.0;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Acc for f64 {
    const ZERO: Self = 0.0;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// An element type the statistics and ramps take.
pub trait Elem: Copy + PartialOrd + bytemuck::Pod + Send + Sync + 'static {
    /// The type numpy's mean sums in.
    type Sum: Acc;
    /// A floating-point type (NaN, signed zeros).
    const FLOAT: bool;
    /// Whether mean and median are exact here: integers of at most 32 bits sum
    /// exactly in `f64`, in any order; 64-bit ones would need numpy's cast of
    /// out-of-range rounded means.
    const MEAN: bool;
    /// The largest finite value, as `f64`.
    const MAX_F64: f64;
    /// The bit that makes a NaN quiet (0 for integers).
    const QUIET: u64;
    /// The bits of the NaN numpy's maximum and minimum make (0 for integers).
    const CANONICAL_NAN: u64;
    /// The raw bits.
    fn bits(self) -> u64;
    /// A NaN.
    fn nan(self) -> bool;
    /// A zero of either sign (floats; `false` for integers).
    fn float_zero(self) -> bool;
    /// Negative sign bit.
    fn negative(self) -> bool;
    /// Infinite.
    fn inf(self) -> bool;
    /// The value in the mean's type.
    fn to_sum(self) -> Self::Sum;
    /// As `f32` (one rounding).
    fn to_f32(self) -> f32;
    /// As `f64` (one rounding).
    fn to_f64(self) -> f64;
    /// numpy's mean from a sum of `count` values (`None`: outside the type).
    fn mean_of(sum: Self::Sum, count: usize) -> Option<Self>;
    /// A ramp value computed in `f32`, as numpy's `astype` (integers: floored);
    /// `None` where numpy's cast overflows.
    fn from_f32(y: f32) -> Option<Self>;
    /// As [`Elem::from_f32`], from `f64`.
    fn from_f64(y: f64) -> Option<Self>;
}

macro_rules! float_elem {
    ($t:ty, $quiet:expr) => {
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        impl Elem for $t {
            type Sum = $t;
            const FLOAT: bool = true;
            const MEAN: bool = true;
            const MAX_F64: f64 = <$t>::MAX as f64;
            const QUIET: u64 = $quiet;
            const CANONICAL_NAN: u64 = <$t>::NAN.to_bits() as u64;
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn float_zero(self) -> bool {
                self == 0.0
            }
            fn negative(self) -> bool {
                self.is_sign_negative()
            }
            fn inf(self) -> bool {
                self.is_infinite()
            }
            fn to_sum(self) -> $t {
                self
            }
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            fn mean_of(sum: $t, count: usize) -> Option<$t> {
                // numpy: true_divide(sum, intp(count)) runs in f64, cast back.
                Some((f64::from(sum) / count as f64) as $t)
            }
            fn from_f32(y: f32) -> Option<$t> {
                Some(y as $t)
            }
            #[allow(clippy::cast_possible_truncation)]
            fn from_f64(y: f64) -> Option<$t> {
                let v = y as $t;
                // numpy warns of an overflowing cast: left to numpy.
                (v.is_finite() || !y.is_finite()).then_some(v)
            }
        }
    };
}

float_elem!(f32, 1 << 22);
float_elem!(f64, 1 << 51);

macro_rules! int_elem {
    ($t:ty, $mean:expr) => {
        #[allow(clippy::unnecessary_cast)]
        impl Elem for $t {
            type Sum = f64;
            const FLOAT: bool = false;
            const MEAN: bool = $mean;
            const MAX_F64: f64 = <$t>::MAX as f64;
            const QUIET: u64 = 0;
            const CANONICAL_NAN: u64 = 0;
            fn bits(self) -> u64 {
                self as u64
            }
            fn nan(self) -> bool {
                false
            }
            fn float_zero(self) -> bool {
                false
            }
            fn negative(self) -> bool {
                false
            }
            fn inf(self) -> bool {
                false
            }
            fn to_sum(self) -> f64 {
                self as f64
            }
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn mean_of(sum: f64, count: usize) -> Option<$t> {
                int_of((sum / count as f64).round_ties_even())
            }
            fn from_f32(y: f32) -> Option<$t> {
                int_of(f64::from(y.floor()))
            }
            fn from_f64(y: f64) -> Option<$t> {
                int_of(y.floor())
            }
        }

        impl IntOf for $t {
            fn int_of(v: f64) -> Option<$t> {
                // -2^(n-1) and 2^n are exact in f64; NaN fails both tests.
                let lo = <$t>::MIN as f64;
                let hi = (<$t>::MAX as f64) + 1.0;
                (v >= lo && v < hi).then(|| v as $t)
            }
        }
    };
}

trait IntOf: Sized {
    fn int_of(v: f64) -> Option<Self>;
}

fn int_of<T: IntOf>(v: f64) -> Option<T> {
    T::int_of(v)
}

int_elem!(i8, true);
int_elem!(i16, true);
int_elem!(i32, true);
int_elem!(i64, false);
int_elem!(u8, true);
int_elem!(u16, true);
int_elem!(u32, true);
int_elem!(u64, false);

/// The type `numpy.linspace` computes a ramp in (`f32` or `f64`).
pub trait Comp:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + PartialEq
    + Send
    + Sync
    + 'static
{
    /// 0.0.
    const ZERO: Self;
    /// The largest integer below which every integer is exact.
    const EXACT: usize;
    /// An element's value (one rounding, numpy's cast).
    fn of<T: Elem>(t: T) -> Self;
    /// A count (exact below [`Comp::EXACT`]).
    fn count(n: usize) -> Self;
    /// `v`, when it is exactly representable and finite.
    fn exact(v: f64) -> Option<Self>;
    /// Neither infinite nor NaN.
    fn finite(self) -> bool;
    /// As an element, numpy's `floor` (integers) and `astype`.
    fn to<T: Elem>(self) -> Option<T>;
}

impl Comp for f32 {
    const ZERO: Self = 0.0;
    const EXACT: usize = 1 << 24;
    fn of<T: Elem>(t: T) -> f32 {
        t.to_f32()
    }
    fn count(n: usize) -> f32 {
        n as f32
    }
    #[allow(clippy::cast_possible_truncation)]
    fn exact(v: f64) -> Option<f32> {
        let c = v as f32;
        (c.is_finite() && f64::from(c) == v).then_some(c)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn to<T: Elem>(self) -> Option<T> {
        T::from_f32(self)
    }
}

impl Comp for f64 {
    const ZERO: Self = 0.0;
    const EXACT: usize = 1 << 53;
    fn of<T: Elem>(t: T) -> f64 {
        t.to_f64()
    }
    fn count(n: usize) -> f64 {
        n as f64
    }
    fn exact(v: f64) -> Option<f64> {
        v.is_finite().then_some(v)
    }
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn to<T: Elem>(self) -> Option<T> {
        T::from_f64(self)
    }
}

/// Mean lines longer than this are left to numpy (its iterator may split them into
/// buffers, which changes the order of the sum).
const MAX_MEAN_SPAN: usize = 8192;

/// The padded buffer's geometry, checked.
struct Geometry {
    out: Vec<usize>,
    input: Vec<usize>,
    pads: Vec<(usize, usize)>,
    /// Elements between neighbours of each axis (C order).
    strides: Vec<usize>,
}

fn shape_error(msg: String) -> StatsError {
    StatsError::Shape(msg)
}

impl Geometry {
    fn new(len: usize, input: &[usize], pads: &[(usize, usize)]) -> Result<Geometry, StatsError> {
        if input.len() != pads.len() {
            return Err(shape_error(format!(
                "{} pads for {}",
                pads.len(),
                crate::axes(input.len())
            )));
        }
        let mut out = Vec::with_capacity(input.len());
        for (axis, (&n, &(b, a))) in input.iter().zip(pads).enumerate() {
            let dim = b
                .checked_add(n)
                .and_then(|d| d.checked_add(a))
                .ok_or_else(|| shape_error(format!("axis {axis}: padded extent overflows")))?;
            out.push(dim);
        }
        let mut strides = vec![1usize; out.len()];
        let mut total = 1usize;
        for k in (0..out.len()).rev() {
            strides[k] = total;
            total = total
                .checked_mul(out[k])
                .ok_or_else(|| shape_error("padded size overflows".to_string()))?;
        }
        if total != len {
            return Err(shape_error(format!(
                "buffer of {len} elements for padded shape {out:?}"
            )));
        }
        Ok(Geometry {
            out,
            input: input.to_vec(),
            pads: pads.to_vec(),
            strides,
        })
    }

    /// Offsets (from an axis-`k` slab's start) of the rows of the region of axis
    /// `k < last`: axes `k+1 .. last` over their original extents, the last axis at
    /// its first original element.
    fn rows(&self, k: usize) -> Vec<usize> {
        let d = self.out.len();
        let mut offsets = vec![self.pads[d - 1].0];
        for i in (k + 1)..(d - 1) {
            let (b, n, st) = (self.pads[i].0, self.input[i], self.strides[i]);
            offsets = offsets
                .iter()
                .flat_map(|&o| (b..b + n).map(move |j| o + j * st))
                .collect();
        }
        offsets
    }
}

fn clamp(length: Option<usize>, full: usize) -> usize {
    match length {
        Some(l) if l < full => l,
        _ => full,
    }
}

/// Fills the pad areas of the C-contiguous buffer `out` (the input, of shape
/// `input`, already at offsets `pads[i].0`) with numpy.pad's `stat`, `lengths` being
/// each axis's `stat_length` pair (`None`: the whole axis).
pub fn fill_stat<T: Elem>(
    out: &mut [T],
    input: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
) -> Result<Fill, StatsError> {
    let g = Geometry::new(out.len(), input, pads)?;
    if let Some(why) = stat_checks::<T>(&g, lengths, stat)? {
        return Ok(Fill::Declined(why));
    }
    let mut work = Work::default();
    for k in 0..input.len() {
        let full = input[k];
        let spans = (clamp(lengths[k].0, full), clamp(lengths[k].1, full));
        let result = if k + 1 == input.len() {
            last_axis(out, &g, k, spans, stat, &mut work)
        } else if input[k + 1..].iter().all(|&n| n == 1) {
            strided_axis(out, &g, k, spans, stat, &mut work)
        } else {
            row_axis(out, &g, k, spans, stat, &mut work)
        };
        if let Err(why) = result {
            return Ok(Fill::Declined(why));
        }
    }
    Ok(Fill::Done)
}

/// The cases declined before any value is read (`Some(why)`), and lengths that do not
/// fit the geometry.
fn stat_checks<T: Elem>(
    g: &Geometry,
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
) -> Result<Option<&'static str>, StatsError> {
    let input = &g.input;
    if lengths.len() != input.len() {
        return Err(shape_error(format!(
            "{} stat_length pairs for {}",
            lengths.len(),
            crate::axes(input.len())
        )));
    }
    if matches!(stat, Stat::Mean | Stat::Median) && !T::MEAN {
        return Ok(Some("mean and median of 64-bit integers"));
    }
    if input.contains(&0) {
        return Ok(Some("an empty axis"));
    }
    for (k, &(l, r)) in lengths.iter().enumerate() {
        let full = input[k];
        let spans = (clamp(l, full), clamp(r, full));
        if spans.0 == 0 || spans.1 == 0 {
            return Ok(Some("stat_length 0"));
        }
        if stat == Stat::Mean && spans.0.max(spans.1) > MAX_MEAN_SPAN {
            return Ok(Some("a mean over more than one buffer"));
        }
    }
    Ok(None)
}

/// Copies `input` (C order, the geometry's input shape) into the middle of `out`, and
/// pads the last axis of each line of the input area (the lines of the other areas
/// depend on the other axes' pads; see [`pad_stat`]) with `line_pads` while the line
/// is in cache, until it fails: the rest is only copied.
fn copy_in<T: Elem>(
    input: &[T],
    out: &mut [T],
    g: &Geometry,
    mut line_pads: impl FnMut(&mut [T]) -> Step<()>,
) -> Result<Step<()>, StatsError> {
    let d = g.out.len();
    let n = g.input[d - 1];
    if input.len() != g.input.iter().product::<usize>() {
        return Err(shape_error(format!(
            "an input of {} elements for shape {:?}",
            input.len(),
            g.input
        )));
    }
    if n == 0 || input.is_empty() {
        return Ok(Ok(())); // nothing to copy (and no line of the input area)
    }
    let b = g.pads[d - 1].0;
    let dim = g.out[d - 1];
    let mut lines = input.chunks_exact(n);
    let mut result = Ok(());
    for_lines(g, true, |off| {
        if let Some(src) = lines.next() {
            let line = &mut out[off..off + dim];
            line[b..b + n].copy_from_slice(src);
            if result.is_ok() {
                result = line_pads(line);
            }
        }
    });
    Ok(result)
}

/// Calls `f` with the offset of each line (a row along the last axis) of the output
/// whose indices on the other axes are all within their original extents (`inside`),
/// or of each other line, in order.
fn for_lines(g: &Geometry, inside: bool, mut f: impl FnMut(usize)) {
    let d = g.out.len();
    let m = d - 1;
    let dim = g.out[m];
    if m == 0 {
        if inside {
            f(0);
        }
        return;
    }
    // Groups of lines along axis m - 1, an odometer over the axes before it.
    let inner = m - 1;
    let (b, n, count) = (g.pads[inner].0, g.input[inner], g.out[inner]);
    let groups: usize = g.out[..inner].iter().product();
    let mut idx = vec![0usize; inner];
    for group in 0..groups {
        let within = (0..inner).all(|k| idx[k] >= g.pads[k].0 && idx[k] < g.pads[k].0 + g.input[k]);
        let first = group * count;
        match (inside, within) {
            (true, true) => (b..b + n).for_each(|j| f((first + j) * dim)),
            (true, false) => {}
            (false, true) => (0..b)
                .chain(b + n..count)
                .for_each(|j| f((first + j) * dim)),
            (false, false) => (0..count).for_each(|j| f((first + j) * dim)),
        }
        for k in (0..inner).rev() {
            idx[k] += 1;
            if idx[k] < g.out[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// [`copy_in`] on `threads` threads (0: all of rayon's), split by slabs of the first
/// axis, each thread with its own copy of `state`; the states come back in the
/// order of the slabs (one state when the calling thread did it all).
fn copy_in_threads<T: Elem, S: Clone + Send + Sync>(
    input: &[T],
    out: &mut [T],
    g: &Geometry,
    threads: usize,
    state: S,
    line_pads: impl Fn(&mut [T], &mut S) -> Step<()> + Sync,
) -> Result<(Step<()>, Vec<S>), StatsError> {
    let threads = crate::exec::thread_count(threads);
    let d = g.out.len();
    if threads <= 1
        || d < 2
        || out.len() < crate::tune::STATS_PARALLEL_MIN_ELEMENTS
        || g.input[0] < 2
    {
        let mut state = state;
        let r = copy_in(input, out, g, |line| line_pads(line, &mut state))?;
        return Ok((r, vec![state]));
    }
    let inner = Geometry {
        out: g.out[1..].to_vec(),
        input: g.input[1..].to_vec(),
        pads: g.pads[1..].to_vec(),
        strides: g.strides[1..].to_vec(),
    };
    let slab = g.strides[0];
    let in_slab: usize = g.input[1..].iter().product();
    if input.len() != in_slab * g.input[0] || in_slab == 0 {
        // copy_in reports the mismatch (or copies nothing).
        let mut state = state;
        let r = copy_in(input, out, g, |line| line_pads(line, &mut state))?;
        return Ok((r, vec![state]));
    }
    let (b, n) = (g.pads[0].0, g.input[0]);
    let work = || {
        use rayon::prelude::*;
        out.par_chunks_exact_mut(slab)
            .enumerate()
            .skip(b)
            .take(n)
            .map(|(i, part)| {
                let mut state = state.clone();
                let src = &input[(i - b) * in_slab..(i - b + 1) * in_slab];
                let r = copy_in(src, part, &inner, |line| line_pads(line, &mut state));
                (r, state)
            })
            .collect::<Vec<_>>()
    };
    let parts = crate::exec::with_threads(threads, work);
    let mut result = Ok(());
    let mut states = Vec::with_capacity(parts.len());
    for (r, state) in parts {
        let r = r?;
        if result.is_ok() {
            result = r;
        }
        states.push(state);
    }
    Ok((result, states))
}

/// The last axis's ramps, each side having met a zero step where any thread's did.
fn merge_zero_steps<C: Comp>(states: Vec<Vec<Ramp<C>>>) -> Vec<Ramp<C>> {
    let mut states = states.into_iter();
    let mut first = states.next().unwrap_or_default();
    for other in states {
        for (side, o) in first.iter_mut().zip(other) {
            side.met_zero |= o.met_zero;
        }
    }
    first
}

/// Pads `input` (C-contiguous, of shape `shape`) into `out` (C-contiguous, of the
/// padded shape) with numpy.pad's `stat`: [`fill_stat`] fused with the copy of the
/// input, so that the last axis is padded while each line is in cache. Declined or
/// not, the input is copied into the middle of `out`.
pub fn pad_stat<T: Elem>(
    input: &[T],
    out: &mut [T],
    shape: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
    threads: usize,
) -> Result<Fill, StatsError> {
    let g = Geometry::new(out.len(), shape, pads)?;
    let declined = stat_checks::<T>(&g, lengths, stat)?;
    if shape.is_empty() {
        if input.len() != out.len() {
            return Err(shape_error(format!(
                "an input of {} elements for shape []",
                input.len()
            )));
        }
        out.copy_from_slice(input);
        return Ok(Fill::Done);
    }
    let d = shape.len();
    let spans: Vec<(usize, usize)> = lengths
        .iter()
        .zip(shape)
        .map(|(&(l, r), &n)| (clamp(l, n), clamp(r, n)))
        .collect();
    let mut work = Work::default();
    let (b, n, a) = (pads[d - 1].0, shape[d - 1], pads[d - 1].1);
    if let Some(why) = declined {
        // (`line_pads` doing nothing cannot fail.)
        let _ = copy_in(input, out, &g, |_| Ok(()))?;
        return Ok(Fill::Declined(why));
    }
    let last = spans[d - 1];
    let copied = copy_in_threads(input, out, &g, threads, Vec::new(), |line, sort| {
        line_pads(line, (b, n, a), last, stat, sort)
    })?;
    if let Err(why) = copied.0 {
        return Ok(Fill::Declined(why));
    }
    for k in 0..d - 1 {
        let result = if shape[k + 1..].iter().all(|&n| n == 1) {
            strided_axis(out, &g, k, spans[k], stat, &mut work)
        } else {
            row_axis(out, &g, k, spans[k], stat, &mut work)
        };
        if let Err(why) = result {
            return Ok(Fill::Declined(why));
        }
    }
    let dim = g.out[d - 1];
    let mut result = Ok(());
    for_lines(&g, false, |off| {
        if result.is_ok() {
            result = line_pads(
                &mut out[off..off + dim],
                (b, n, a),
                last,
                stat,
                &mut work.sort,
            );
        }
    });
    Ok(match result {
        Ok(()) => Fill::Done,
        Err(why) => Fill::Declined(why),
    })
}

/// The last axis's pads of one line (`(before, extent, after)`).
fn line_pads<T: Elem>(
    line: &mut [T],
    (b, n, a): (usize, usize, usize),
    (ll, rl): (usize, usize),
    stat: Stat,
    sort: &mut Vec<T>,
) -> Step<()> {
    let same = ll == n && rl == n;
    // numpy also computes the statistic of a side without pads; nothing shows it.
    let left = if b > 0 || (a > 0 && same) {
        Some(line_stat(&line[b..b + ll], stat, sort)?)
    } else {
        None
    };
    if let Some(v) = left {
        line[..b].fill(v);
    }
    if a > 0 {
        let right = match left {
            Some(v) if same => v,
            _ => line_stat(&line[b + n - rl..b + n], stat, sort)?,
        };
        line[b + n..].fill(right);
    }
    Ok(())
}

/// Scratch buffers, reused across lines.
struct Work<T: Elem> {
    gather: Vec<T>,
    sort: Vec<T>,
    left: Vec<T>,
    right: Vec<T>,
    acc: Vec<T::Sum>,
}

impl<T: Elem> Default for Work<T> {
    fn default() -> Self {
        Work {
            gather: Vec::new(),
            sort: Vec::new(),
            left: Vec::new(),
            right: Vec::new(),
            acc: Vec::new(),
        }
    }
}

/// The spans of the left and right statistics on an axis: `(start, len)`.
fn span_ranges(g: &Geometry, k: usize, spans: (usize, usize)) -> ((usize, usize), (usize, usize)) {
    let b = g.pads[k].0;
    let n = g.input[k];
    ((b, spans.0), (b + n - spans.1, spans.1))
}

/// Axis `k` is the last: each line is contiguous.
fn last_axis<T: Elem>(
    out: &mut [T],
    g: &Geometry,
    k: usize,
    spans: (usize, usize),
    stat: Stat,
    work: &mut Work<T>,
) -> Step<()> {
    let (b, n, a) = (g.pads[k].0, g.input[k], g.pads[k].1);
    for line in out.chunks_exact_mut(g.out[k]) {
        line_pads(line, (b, n, a), spans, stat, &mut work.sort)?;
    }
    Ok(())
}

/// Axis `k` is not the last, but every later axis has one element: each line is
/// numpy's inner loop (pairwise sums), strided.
fn strided_axis<T: Elem>(
    out: &mut [T],
    g: &Geometry,
    k: usize,
    spans: (usize, usize),
    stat: Stat,
    work: &mut Work<T>,
) -> Step<()> {
    let (b, n, st, dim) = (g.pads[k].0, g.input[k], g.strides[k], g.out[k]);
    let offset: usize = ((k + 1)..g.out.len())
        .map(|i| g.pads[i].0 * g.strides[i])
        .sum();
    let ((l0, ll), (r0, rl)) = span_ranges(g, k, spans);
    let same = ll == n && rl == n;
    let a = g.pads[k].1;
    for slab in out.chunks_exact_mut(dim * st) {
        let line = &mut slab[offset..];
        let left = if b > 0 || (a > 0 && same) {
            work.gather.clear();
            work.gather.extend((l0..l0 + ll).map(|j| line[j * st]));
            Some(line_stat(&work.gather, stat, &mut work.sort)?)
        } else {
            None
        };
        if let Some(v) = left {
            for j in 0..b {
                line[j * st] = v;
            }
        }
        if a > 0 {
            let right = match left {
                Some(v) if same => v,
                _ => {
                    work.gather.clear();
                    work.gather.extend((r0..r0 + rl).map(|j| line[j * st]));
                    line_stat(&work.gather, stat, &mut work.sort)?
                }
            };
            for j in b + n..dim {
                line[j * st] = right;
            }
        }
    }
    Ok(())
}

/// Axis `k` is not numpy's inner loop: whole rows of the region at a time.
fn row_axis<T: Elem>(
    out: &mut [T],
    g: &Geometry,
    k: usize,
    spans: (usize, usize),
    stat: Stat,
    work: &mut Work<T>,
) -> Step<()> {
    let d = g.out.len();
    let (b, n, st, dim) = (g.pads[k].0, g.input[k], g.strides[k], g.out[k]);
    let width = g.input[d - 1];
    let rows = g.rows(k);
    let ((l0, ll), (r0, rl)) = span_ranges(g, k, spans);
    let same = ll == n && rl == n;
    let a = g.pads[k].1;
    if b == 0 && a == 0 {
        return Ok(());
    }
    let (do_left, do_right) = (b > 0 || same, a > 0 && !same);
    let mut left = std::mem::take(&mut work.left);
    let mut right = std::mem::take(&mut work.right);
    left.resize(width, out[0]);
    right.resize(width, out[0]);
    let mut result = Ok(());
    'slabs: for slab in out.chunks_exact_mut(dim * st) {
        for &row in &rows {
            if do_left {
                if let Err(e) = row_stat(slab, row, st, (l0, ll), width, stat, work, &mut left) {
                    result = Err(e);
                    break 'slabs;
                }
            }
            let right_values = if !do_right {
                &left
            } else {
                if let Err(e) = row_stat(slab, row, st, (r0, rl), width, stat, work, &mut right) {
                    result = Err(e);
                    break 'slabs;
                }
                &right
            };
            for j in b + n..dim {
                slab[row + j * st..row + j * st + width].copy_from_slice(right_values);
            }
            for j in 0..b {
                slab[row + j * st..row + j * st + width].copy_from_slice(&left);
            }
        }
    }
    work.left = left;
    work.right = right;
    result
}

/// The statistic of the span `(start, len)` of axis `k` (stride `st`) for each of the
/// `width` elements of the row at `row`, into `res`.
#[allow(clippy::too_many_arguments)]
fn row_stat<T: Elem>(
    slab: &[T],
    row: usize,
    st: usize,
    (start, len): (usize, usize),
    width: usize,
    stat: Stat,
    work: &mut Work<T>,
    res: &mut [T],
) -> Step<()> {
    let at = |j: usize| &slab[row + j * st..row + j * st + width];
    match stat {
        Stat::Maximum | Stat::Minimum => {
            res.copy_from_slice(at(start));
            let max = stat == Stat::Maximum;
            for j in start + 1..start + len {
                let r = at(j);
                if max {
                    for (a, &x) in res.iter_mut().zip(r) {
                        *a = if (x > *a) | x.nan() { x } else { *a };
                    }
                } else {
                    for (a, &x) in res.iter_mut().zip(r) {
                        *a = if (x < *a) | x.nan() { x } else { *a };
                    }
                }
            }
            if T::FLOAT {
                for (x, &v) in res.iter().enumerate() {
                    if v.nan() || v.float_zero() {
                        column(slab, row + x, st, start, len, &mut work.gather);
                        check_extreme(v, &work.gather)?;
                    }
                }
            }
        }
        Stat::Mean => {
            work.acc.clear();
            work.acc.resize(width, <T::Sum as Acc>::ZERO);
            for j in start..start + len {
                for (a, &x) in work.acc.iter_mut().zip(at(j)) {
                    *a = *a + x.to_sum();
                }
            }
            for (x, (r, &s)) in res.iter_mut().zip(&work.acc).enumerate() {
                if T::FLOAT && !s.finite() {
                    column(slab, row + x, st, start, len, &mut work.gather);
                    check_nonfinite_sum(&work.gather)?;
                }
                *r = T::mean_of(s, len).ok_or("a mean outside the type")?;
            }
        }
        Stat::Median => {
            for (x, r) in res.iter_mut().enumerate() {
                column(slab, row + x, st, start, len, &mut work.gather);
                *r = median(&work.gather, &mut work.sort)?;
            }
        }
    }
    Ok(())
}

fn column<T: Elem>(slab: &[T], at: usize, st: usize, start: usize, len: usize, into: &mut Vec<T>) {
    into.clear();
    into.extend((start..start + len).map(|j| slab[at + j * st]));
}

/// The statistic of one line (numpy's inner loop), `span` not empty.
fn line_stat<T: Elem>(span: &[T], stat: Stat, sort: &mut Vec<T>) -> Step<T> {
    match stat {
        Stat::Maximum => extreme(span, |x, a| x > a),
        Stat::Minimum => extreme(span, |x, a| x < a),
        Stat::Mean => {
            let s = <T::Sum as Acc>::ZERO + pairwise(span);
            if T::FLOAT && !s.finite() {
                check_nonfinite_sum(span)?;
            }
            T::mean_of(s, span.len()).ok_or("a mean outside the type")
        }
        Stat::Median => median(span, sort),
    }
}

fn extreme<T: Elem>(span: &[T], better: impl Fn(T, T) -> bool) -> Step<T> {
    let mut acc = *span.first().ok_or("an empty span")?;
    for &x in span {
        if better(x, acc) || x.nan() {
            acc = x;
        }
    }
    if T::FLOAT && (acc.nan() || acc.float_zero()) {
        check_extreme(acc, span)?;
    }
    Ok(acc)
}

/// A maximum or minimum that is a NaN or a zero is numpy's only when every NaN of the
/// span is the canonical NaN (numpy returns either the last NaN of the span or a NaN
/// of its own making, depending on where the NaN is), and the span's zeros have one
/// sign.
fn check_extreme<T: Elem>(v: T, span: &[T]) -> Step<()> {
    if v.nan() {
        if span.iter().any(|x| x.nan() && x.bits() != T::CANONICAL_NAN) {
            return Err("a NaN other than the canonical one");
        }
    } else {
        let neg = span.iter().any(|x| x.float_zero() && x.negative());
        let pos = span.iter().any(|x| x.float_zero() && !x.negative());
        if neg && pos {
            return Err("zeros of both signs");
        }
    }
    Ok(())
}

/// A mean's sum that is not finite is numpy's when it comes from one NaN payload and
/// infinities of one sign, without an overflow (numpy would warn of one).
fn check_nonfinite_sum<T: Elem>(span: &[T]) -> Step<()> {
    let mut nan: Option<u64> = None;
    let (mut pos, mut neg) = (false, false);
    let mut finite = 0.0f64;
    for &x in span {
        if x.nan() {
            let q = x.bits() | T::QUIET;
            if nan.is_some_and(|n| n != q) {
                return Err("NaNs of different payloads");
            }
            nan = Some(q);
        } else if x.inf() {
            if x.negative() {
                neg = true;
            } else {
                pos = true;
            }
        } else {
            finite += x.to_f64().abs();
        }
    }
    if (pos && neg) || (nan.is_none() && !pos && !neg) || finite >= T::MAX_F64 / 2.0 {
        return Err("an overflowing or invalid sum");
    }
    Ok(())
}

/// numpy's `pairwise_sum` (loops_utils.h.src): 8 accumulators up to 128 elements,
/// halves beyond.
fn pairwise<T: Elem>(a: &[T]) -> T::Sum {
    let n = a.len();
    if n < 8 {
        let mut res = <T::Sum as Acc>::ZERO;
        for &x in a {
            res = res + x.to_sum();
        }
        res
    } else if n <= 128 {
        let mut r = [<T::Sum as Acc>::ZERO; 8];
        for (r, &x) in r.iter_mut().zip(a) {
            *r = x.to_sum();
        }
        let end = n - n % 8;
        let mut i = 8;
        while i < end {
            for (j, r) in r.iter_mut().enumerate() {
                *r = *r + a[i + j].to_sum();
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[end..] {
            res = res + x.to_sum();
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(&a[..n2]) + pairwise(&a[n2..])
    }
}

/// numpy's median: the mean of the middle one or two values; a NaN anywhere makes it
/// that NaN.
fn median<T: Elem>(span: &[T], sort: &mut Vec<T>) -> Step<T> {
    if T::FLOAT {
        if let Some(&first) = span.iter().find(|x| x.nan()) {
            if span.iter().any(|x| x.nan() && x.bits() != first.bits()) {
                return Err("NaNs of different payloads");
            }
            return Ok(first);
        }
    }
    sort.clear();
    sort.extend_from_slice(span);
    let n = sort.len();
    if n == 0 {
        return Err("an empty span");
    }
    let h = n / 2;
    let cmp = |a: &T, b: &T| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal);
    let (lower, &mut hi, _) = sort.select_nth_unstable_by(h, cmp);
    if n % 2 == 1 {
        return T::mean_of(<T::Sum as Acc>::ZERO + hi.to_sum(), 1)
            .ok_or("a median outside the type");
    }
    let lo = lower
        .iter()
        .copied()
        .reduce(|a, b| if b > a { b } else { a })
        .ok_or("an empty span")?;
    let s = (<T::Sum as Acc>::ZERO + lo.to_sum()) + hi.to_sum();
    if T::FLOAT && !s.finite() {
        let (lf, hf) = (!lo.inf(), !hi.inf());
        if (lf && hf) || (!lf && !hf && lo != hi) {
            return Err("an overflowing or invalid median");
        }
    }
    T::mean_of(s, 2).ok_or("a median outside the type")
}

/// Fills the pad areas of `out` (as [`fill_stat`]) with numpy.pad's `linear_ramp`,
/// computed in `C` (numpy.linspace's `result_type(end_value, edge)`), `ends` being
/// each axis's `end_values` pair, already values of `C`.
pub fn fill_ramp<T: Elem, C: Comp>(
    out: &mut [T],
    input: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
) -> Result<Fill, StatsError> {
    let g = Geometry::new(out.len(), input, pads)?;
    if ends.len() != input.len() {
        return Err(shape_error(format!(
            "{} end_values pairs for {}",
            ends.len(),
            crate::axes(input.len())
        )));
    }
    if input.contains(&0) {
        return Ok(Fill::Declined("an empty axis"));
    }
    for k in 0..input.len() {
        let result =
            ramp_sides::<T, C>(&g, ends, k).and_then(|mut sides| ramp_axis(out, &g, k, &mut sides));
        if let Err(why) = result {
            return Ok(Fill::Declined(why));
        }
    }
    Ok(Fill::Done)
}

/// The ramps of axis `k`'s sides that have pads.
fn ramp_sides<T: Elem, C: Comp>(g: &Geometry, ends: &[(f64, f64)], k: usize) -> Step<Vec<Ramp<C>>> {
    let (b, a) = g.pads[k];
    let n = g.input[k];
    let mut sides = Vec::with_capacity(2);
    if n == 0 {
        return Err("an empty axis");
    }
    let last = b + n - 1;
    for (width, end, edge, right) in [(b, ends[k].0, b, false), (a, ends[k].1, last, true)] {
        if width == 0 {
            continue;
        }
        if width >= C::EXACT {
            return Err("a ramp too long to count exactly");
        }
        let start =
            C::exact(end).ok_or("an end value that is not exactly a value of the ramp's type")?;
        let mut ramp = Ramp::new(width, edge, if right { b + n } else { 0 }, right, start);
        // A guess of numpy's formula: the outermost pad of an earlier axis holds its
        // end value; where that is this side's, its lines there have a zero step. A
        // wrong guess costs a second pass, not a wrong value.
        let held = |e: f64| C::exact(e).and_then(|c| c.to::<T>()).map(C::of);
        let guess = (0..k).any(|j| {
            (g.pads[j].0 > 0 && held(ends[j].0) == Some(start))
                || (g.pads[j].1 > 0 && held(ends[j].1) == Some(start))
        });
        ramp.set_any_zero(guess);
        sides.push(ramp);
    }
    Ok(sides)
}

/// Pads `input` into `out` with numpy.pad's `linear_ramp`, as [`pad_stat`] does
/// ([`fill_ramp`] fused with the copy of the input).
pub fn pad_ramp<T: Elem, C: Comp>(
    input: &[T],
    out: &mut [T],
    shape: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
    threads: usize,
) -> Result<Fill, StatsError> {
    let g = Geometry::new(out.len(), shape, pads)?;
    if ends.len() != shape.len() {
        return Err(shape_error(format!(
            "{} end_values pairs for {}",
            ends.len(),
            crate::axes(shape.len())
        )));
    }
    if shape.is_empty() {
        if input.len() != out.len() {
            return Err(shape_error(format!(
                "an input of {} elements for shape []",
                input.len()
            )));
        }
        out.copy_from_slice(input);
        return Ok(Fill::Done);
    }
    let d = shape.len();
    let last = match ramp_sides::<T, C>(&g, ends, d - 1) {
        Ok(sides) if !shape.contains(&0) => sides,
        Ok(_) => {
            let _ = copy_in(input, out, &g, |_| Ok(()))?;
            return Ok(Fill::Declined("an empty axis"));
        }
        Err(why) => {
            let _ = copy_in(input, out, &g, |_| Ok(()))?;
            return Ok(Fill::Declined(why));
        }
    };
    let (copied, states) = copy_in_threads(input, out, &g, threads, last, |line, sides| {
        ramp_line(line, sides)
    })?;
    let mut last = merge_zero_steps(states);
    if let Err(why) = copied {
        return Ok(Fill::Declined(why));
    }
    for k in 0..d - 1 {
        let result =
            ramp_sides::<T, C>(&g, ends, k).and_then(|mut sides| ramp_axis(out, &g, k, &mut sides));
        if let Err(why) = result {
            return Ok(Fill::Declined(why));
        }
    }
    let dim = g.out[d - 1];
    let mut result = Ok(());
    for_lines(&g, false, |off| {
        if result.is_ok() {
            result = ramp_line(&mut out[off..off + dim], &mut last);
        }
    });
    let redo = result.and_then(|()| {
        let mut again = redo_sides(&last);
        ramp_pass(out, &g, d - 1, &mut again)
    });
    Ok(match redo {
        Ok(()) => Fill::Done,
        Err(why) => Fill::Declined(why),
    })
}

/// The sides written with the wrong one of numpy's two formulas, to be written again.
fn redo_sides<C: Comp>(sides: &[Ramp<C>]) -> Vec<Ramp<C>> {
    let mut again = Vec::new();
    for side in sides {
        if side.met_zero != side.any_zero {
            let mut redo = Ramp::new(side.width, side.edge, side.first, side.right, side.start);
            redo.set_any_zero(side.met_zero);
            again.push(redo);
        }
    }
    again
}

/// The last axis's ramps of one line.
fn ramp_line<T: Elem, C: Comp>(line: &mut [T], sides: &mut [Ramp<C>]) -> Step<()> {
    for side in sides.iter_mut() {
        let f = side.factor(line[side.edge])?;
        let dst = &mut line[side.first..side.first + side.width];
        if side.right {
            for (o, &x) in dst.iter_mut().rev().zip(&side.fracs) {
                *o = side.value(x, f)?;
            }
        } else {
            for (o, &x) in dst.iter_mut().zip(&side.fracs) {
                *o = side.value(x, f)?;
            }
        }
    }
    Ok(())
}

/// One side of one axis's ramps.
#[derive(Clone)]
struct Ramp<C: Comp> {
    width: usize,
    /// The index (on axis `k`) of the edge the ramps end at.
    edge: usize,
    /// The index of the pad's first element.
    first: usize,
    /// The right pad: the ramp is written reversed.
    right: bool,
    start: C,
    div: C,
    /// numpy's linspace: y_j = j * (delta / num) + start, unless any step of the side
    /// is zero (subnormal deltas); then y_j = (j / num) * delta + start.
    any_zero: bool,
    /// A step of zero was met (the side is written again with `any_zero`).
    met_zero: bool,
    /// `j`, or `j / num` with `any_zero`, for each `j`.
    fracs: Vec<C>,
}

impl<C: Comp> Ramp<C> {
    fn new(width: usize, edge: usize, first: usize, right: bool, start: C) -> Ramp<C> {
        let div = C::count(width);
        let mut ramp = Ramp {
            width,
            edge,
            first,
            right,
            start,
            div,
            any_zero: false,
            met_zero: false,
            fracs: Vec::new(),
        };
        ramp.set_any_zero(false);
        ramp
    }

    fn set_any_zero(&mut self, any_zero: bool) {
        self.any_zero = any_zero;
        let div = self.div;
        self.fracs = (0..self.width)
            .map(|j| {
                if any_zero {
                    C::count(j) / div
                } else {
                    C::count(j)
                }
            })
            .collect();
    }

    /// The line's factor (its step, or its delta with `any_zero`).
    #[inline]
    fn factor<T: Elem>(&mut self, edge: T) -> Step<C> {
        if edge.inf() {
            // numpy computes 0 * inf (and warns).
            return Err("an infinite edge");
        }
        let delta = C::of(edge) - self.start;
        if !delta.finite() && !edge.nan() {
            return Err("an overflowing ramp");
        }
        let step = delta / self.div;
        if step == C::ZERO {
            self.met_zero = true;
        }
        Ok(if self.any_zero { delta } else { step })
    }

    #[inline]
    fn value<T: Elem>(&self, x: C, f: C) -> Step<T> {
        (x * f + self.start)
            .to()
            .ok_or("a ramp value outside the type")
    }

    /// The index on the axis of ramp value `j`.
    #[inline]
    fn pos(&self, j: usize) -> usize {
        if self.right {
            self.first + (self.width - 1 - j)
        } else {
            self.first + j
        }
    }
}

/// The ramps of axis `k` (its sides with pads), both sides in one pass over the
/// lines; a side that met a zero step is written again with numpy's other formula.
fn ramp_axis<T: Elem, C: Comp>(
    out: &mut [T],
    g: &Geometry,
    k: usize,
    sides: &mut [Ramp<C>],
) -> Step<()> {
    ramp_pass(out, g, k, sides)?;
    let mut again = redo_sides(sides);
    if !again.is_empty() {
        ramp_pass(out, g, k, &mut again)?;
    }
    Ok(())
}

fn ramp_pass<T: Elem, C: Comp>(
    out: &mut [T],
    g: &Geometry,
    k: usize,
    sides: &mut [Ramp<C>],
) -> Step<()> {
    if sides.is_empty() {
        return Ok(());
    }
    let d = g.out.len();
    let (st, dim) = (g.strides[k], g.out[k]);
    if k + 1 == d {
        for line in out.chunks_exact_mut(dim) {
            ramp_line(line, sides)?;
        }
        return Ok(());
    }
    let rows = g.rows(k);
    let width = g.input[d - 1];
    let mut factors: Vec<C> = Vec::with_capacity(width);
    for slab in out.chunks_exact_mut(dim * st) {
        for &row in &rows {
            for side in sides.iter_mut() {
                let at = row + side.edge * st;
                factors.clear();
                for &e in &slab[at..at + width] {
                    factors.push(side.factor(e)?);
                }
                for (j, &x) in side.fracs.iter().enumerate() {
                    let pos = side.pos(j);
                    let dst = &mut slab[row + pos * st..row + pos * st + width];
                    // One check per row (no early exit in the loop: it vectorizes).
                    let mut fits = true;
                    let start = side.start;
                    for (o, &f) in dst.iter_mut().zip(&factors) {
                        let v = (x * f + start).to::<T>();
                        fits &= v.is_some();
                        *o = v.unwrap_or(*o);
                    }
                    if !fits {
                        return Err("a ramp value outside the type");
                    }
                }
            }
        }
    }
    Ok(())
}

/// `$go!(T)` for the Rust type `T` of `dtype`, for the types this module computes
/// (`f32`, `f64`, every integer width); others declined with `$why`.
macro_rules! by_type {
    ($dtype:expr, $go:ident, $why:literal) => {
        match $dtype {
            DType::Float32 => $go!(f32),
            DType::Float64 => $go!(f64),
            DType::Int8 => $go!(i8),
            DType::Int16 => $go!(i16),
            DType::Int32 => $go!(i32),
            DType::Int64 => $go!(i64),
            DType::Uint8 => $go!(u8),
            DType::Uint16 => $go!(u16),
            DType::Uint32 => $go!(u32),
            DType::Uint64 => $go!(u64),
            _ => Ok(Fill::Declined($why)),
        }
    };
}

/// [`fill_stat`] on the bytes of a buffer of `dtype` (native byte order, aligned).
pub fn fill_stat_bytes(
    dtype: DType,
    out: &mut [u8],
    input: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
) -> Result<Fill, StatsError> {
    macro_rules! go {
        ($t:ty) => {
            match bytemuck::try_cast_slice_mut::<u8, $t>(out) {
                Ok(s) => fill_stat::<$t>(s, input, pads, lengths, stat),
                Err(_) => Ok(Fill::Declined("an unaligned buffer")),
            }
        };
    }
    by_type!(dtype, go, "a type without statistics here")
}

/// [`fill_ramp`] on the bytes of a buffer of `dtype`, computing in `compute`
/// (`Float32` or `Float64`).
pub fn fill_ramp_bytes(
    dtype: DType,
    compute: DType,
    out: &mut [u8],
    input: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
) -> Result<Fill, StatsError> {
    macro_rules! go {
        ($t:ty) => {
            match (bytemuck::try_cast_slice_mut::<u8, $t>(out), compute) {
                (Err(_), _) => Ok(Fill::Declined("an unaligned buffer")),
                (Ok(s), DType::Float32) => fill_ramp::<$t, f32>(s, input, pads, ends),
                (Ok(s), DType::Float64) => fill_ramp::<$t, f64>(s, input, pads, ends),
                _ => Ok(Fill::Declined("a ramp computed in another type")),
            }
        };
    }
    by_type!(dtype, go, "a type without ramps here")
}

fn cast_pair<'a, T: Elem>(
    input: &'a [u8],
    out: &'a mut [u8],
) -> Result<(&'a [T], &'a mut [T]), StatsError> {
    match (
        bytemuck::try_cast_slice::<u8, T>(input),
        bytemuck::try_cast_slice_mut::<u8, T>(out),
    ) {
        (Ok(i), Ok(o)) => Ok((i, o)),
        _ => Err(shape_error(
            "buffers not aligned to, or not a whole number of, their elements".to_string(),
        )),
    }
}

/// [`pad_stat`] on the bytes of buffers of `dtype` (native byte order, aligned).
/// Types other than float32, float64 and the integers are declined untouched.
#[allow(clippy::too_many_arguments)]
pub fn pad_stat_bytes(
    dtype: DType,
    input: &[u8],
    out: &mut [u8],
    shape: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
    threads: usize,
) -> Result<Fill, StatsError> {
    macro_rules! go {
        ($t:ty) => {{
            let (i, o) = cast_pair::<$t>(input, out)?;
            pad_stat::<$t>(i, o, shape, pads, lengths, stat, threads)
        }};
    }
    by_type!(dtype, go, "a type without statistics here")
}

/// [`pad_ramp`] on the bytes of buffers of `dtype`, computing in `compute`
/// (`Float32` or `Float64`). Other types are declined untouched.
#[allow(clippy::too_many_arguments)]
pub fn pad_ramp_bytes(
    dtype: DType,
    compute: DType,
    input: &[u8],
    out: &mut [u8],
    shape: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
    threads: usize,
) -> Result<Fill, StatsError> {
    macro_rules! go {
        ($t:ty) => {{
            let (i, o) = cast_pair::<$t>(input, out)?;
            match compute {
                DType::Float32 => pad_ramp::<$t, f32>(i, o, shape, pads, ends, threads),
                DType::Float64 => pad_ramp::<$t, f64>(i, o, shape, pads, ends, threads),
                _ => Ok(Fill::Declined("a ramp computed in another type")),
            }
        }};
    }
    by_type!(dtype, go, "a type without ramps here")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat<T: Elem>(
        input: &[T],
        shape: &[usize],
        pads: &[(usize, usize)],
        lengths: &[(Option<usize>, Option<usize>)],
        stat: Stat,
    ) -> (Fill, Vec<T>) {
        let out_shape: Vec<usize> = shape
            .iter()
            .zip(pads)
            .map(|(&n, &(b, a))| b + n + a)
            .collect();
        let total: usize = out_shape.iter().product();
        let zero: T = bytemuck::Zeroable::zeroed();
        let mut out = vec![zero; total];
        // The input into the middle (C order).
        for (i, &v) in input.iter().enumerate() {
            let mut rest = i;
            let mut offset = 0;
            let mut stride = 1;
            for k in (0..shape.len()).rev() {
                let idx = rest % shape[k];
                rest /= shape[k];
                offset += (idx + pads[k].0) * stride;
                stride *= out_shape[k];
            }
            out[offset] = v;
        }
        let fill = fill_stat(&mut out, shape, pads, lengths, stat).unwrap();
        (fill, out)
    }

    #[test]
    fn corners_follow_numpy_axis_after_axis() {
        let (fill, out) = stat(
            &[1i32, 2, 3, 4],
            &[2, 2],
            &[(1, 1); 2],
            &[(None, None); 2],
            Stat::Maximum,
        );
        assert_eq!(fill, Fill::Done);
        assert_eq!(out, [4, 3, 4, 4, 2, 1, 2, 2, 4, 3, 4, 4, 4, 3, 4, 4]);
        let (fill, out) = stat(
            &[1.0f32, 2.0, 3.0, 4.0],
            &[2, 2],
            &[(1, 2), (2, 1)],
            &[(Some(1), Some(1)); 2],
            Stat::Mean,
        );
        assert_eq!(fill, Fill::Done);
        let expect = [
            1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0, 3.0, 3.0,
            3.0, 4.0, 4.0, 3.0, 3.0, 3.0, 4.0, 4.0,
        ];
        assert_eq!(out, expect);
    }

    #[test]
    fn integer_means_and_medians_round_half_to_even() {
        let (_, out) = stat(
            &[1i16, 2, 3, 4],
            &[4],
            &[(1, 1)],
            &[(None, None)],
            Stat::Median,
        );
        assert_eq!(out, [2, 1, 2, 3, 4, 2]);
        let (_, out) = stat(&[2u8, 3], &[2], &[(1, 1)], &[(None, None)], Stat::Mean);
        assert_eq!(out, [2, 2, 3, 2]);
        let (_, out) = stat(&[-1i8, -2], &[2], &[(1, 1)], &[(None, None)], Stat::Mean);
        assert_eq!(out, [-2, -1, -2, -2]);
    }

    #[test]
    fn means_sum_pairwise_like_numpy() {
        // numpy: np.mean of 1e8 and 199 ones in float32 is 500000.97 (pairwise sum
        // 1.0000019e8; a sequential sum would stay at 1e8).
        let mut xs = vec![1.0f32; 200];
        xs[0] = 1e8;
        assert_eq!(<f32 as Acc>::ZERO + pairwise(&xs), 1.000_001_9e8);
        let (fill, out) = stat(&xs, &[200], &[(1, 0)], &[(None, None)], Stat::Mean);
        assert_eq!(fill, Fill::Done);
        assert_eq!(out[0].to_bits(), 1_223_959_583);
        // A mean of -0.0 is +0.0 (numpy adds to its identity, 0.0).
        let (_, out) = stat(&[-0.0f64], &[1], &[(1, 0)], &[(None, None)], Stat::Mean);
        assert!(out[0] == 0.0 && out[0].is_sign_positive());
    }

    #[test]
    fn unspecified_cases_are_declined() {
        let (fill, _) = stat(
            &[-0.0f32, 0.0],
            &[2],
            &[(1, 1)],
            &[(None, None)],
            Stat::Maximum,
        );
        assert!(matches!(fill, Fill::Declined(_)));
        let nan = f64::from_bits(0x7FF8_0000_0000_0001);
        let (fill, _) = stat(&[1.0, nan], &[2], &[(1, 1)], &[(None, None)], Stat::Minimum);
        assert!(matches!(fill, Fill::Declined(_)));
        let (fill, out) = stat(
            &[1.0, f64::NAN],
            &[2],
            &[(1, 1)],
            &[(None, None)],
            Stat::Minimum,
        );
        assert_eq!(fill, Fill::Done);
        assert_eq!(out[0].to_bits(), f64::NAN.to_bits());
        let (fill, _) = stat(&[1i64, 2], &[2], &[(1, 1)], &[(None, None)], Stat::Mean);
        assert!(matches!(fill, Fill::Declined(_)));
        let (fill, _) = stat(
            &[1u8, 2],
            &[2],
            &[(1, 1)],
            &[(Some(0), None)],
            Stat::Maximum,
        );
        assert!(matches!(fill, Fill::Declined(_)));
        let (fill, _) = stat(
            &[f32::MAX, f32::MAX],
            &[2],
            &[(1, 1)],
            &[(None, None)],
            Stat::Mean,
        );
        assert!(matches!(fill, Fill::Declined(_)));
    }

    #[test]
    fn ramps_are_linspace() {
        let mut out = vec![0.0f64; 7];
        out[3] = 1.0;
        out[4] = 2.0;
        let fill = fill_ramp::<f64, f64>(&mut out, &[2], &[(3, 2)], &[(0.0, 5.0)]).unwrap();
        assert_eq!(fill, Fill::Done);
        assert_eq!(out, [0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0, 2.0, 3.5, 5.0]);
        let mut out = vec![0u8, 0, 10, 0];
        let fill = fill_ramp::<u8, f64>(&mut out, &[1], &[(2, 1)], &[(-3.0, 0.0)]).unwrap();
        assert!(
            matches!(fill, Fill::Declined(_)),
            "uint8 below 0: numpy's cast"
        );
    }

    /// A deterministic sequence of small values (some equal, some negative).
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut x = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((x >> 33) % 17) as f32 - 8.0
            })
            .collect()
    }

    #[test]
    fn fused_pads_equal_in_place_fills() {
        // The last shape is large enough to be split among threads.
        let shapes: [&[usize]; 5] = [&[5], &[3, 4], &[2, 1, 9], &[2, 3, 1, 4], &[3, 200, 500]];
        for ((s, shape), threads) in shapes.iter().enumerate().zip([1, 2, 1, 3, 3]) {
            let n: usize = shape.iter().product();
            let input = values(n, s as u64);
            let pads: Vec<(usize, usize)> = (0..shape.len()).map(|k| (k % 3, 2 - k % 2)).collect();
            let lengths: Vec<(Option<usize>, Option<usize>)> =
                (0..shape.len()).map(|k| (Some(k + 1), None)).collect();
            for st in [Stat::Maximum, Stat::Minimum, Stat::Mean, Stat::Median] {
                let (fill, expect) = stat(&input, shape, &pads, &lengths, st);
                assert_eq!(fill, Fill::Done);
                let mut out = vec![f32::NAN; expect.len()];
                let fused =
                    pad_stat(&input, &mut out, shape, &pads, &lengths, st, threads).unwrap();
                assert_eq!(fused, Fill::Done);
                assert_eq!(out, expect, "{st:?} {shape:?}");
            }
            for ends in [
                [(1.5, 1.5); 4],
                [(0.0, 2.0), (2.0, 0.0), (1.0, 1.0), (-3.0, 0.25)],
            ] {
                let ends = &ends[..shape.len()];
                let (_, mut expect) = stat(&input, shape, &pads, &lengths, Stat::Maximum);
                let fill = fill_ramp::<f32, f64>(&mut expect, shape, &pads, ends).unwrap();
                assert_eq!(fill, Fill::Done);
                let mut out = vec![f32::NAN; expect.len()];
                let fused =
                    pad_ramp::<f32, f64>(&input, &mut out, shape, &pads, ends, threads).unwrap();
                assert_eq!(fused, Fill::Done);
                assert_eq!(out, expect, "ramp {shape:?} {ends:?}");
            }
        }
    }

    #[test]
    fn a_zero_step_anywhere_switches_the_whole_side() {
        // numpy: the right ramps of [[0.1, 5e-324], [1.0, 0.1]] to 0 (5 wide): 5e-324 / 5
        // is 0, so every line of the side is (j / 5) * delta + 0, also the second,
        // where j * (delta / 5) differs for j = 1, 2, 4.
        let mut out = vec![0.0f64; 2 * 7];
        out[0] = 0.1;
        out[1] = 5e-324;
        out[7] = 1.0;
        out[8] = 0.1;
        let fill =
            fill_ramp::<f64, f64>(&mut out, &[2, 2], &[(0, 0), (0, 5)], &[(0.0, 0.0); 2]).unwrap();
        assert_eq!(fill, Fill::Done);
        let numpy: Vec<f64> = (0..5).rev().map(|j| (j as f64 / 5.0) * 0.1).collect();
        assert_eq!(out[9..14], numpy[..]);
        // numpy.pad: 0.08000000000000002, 0.06, 0.04000000000000001, 0.020000000000000004
        assert_eq!(out[9], 0.080_000_000_000_000_02);
        assert_ne!(out[9], 4.0 * (0.1 / 5.0));
    }

    #[test]
    fn bad_geometry_is_an_error() {
        let mut out = vec![0.0f32; 5];
        let r = fill_stat(&mut out, &[2], &[(1, 1)], &[(None, None)], Stat::Mean);
        assert!(matches!(r, Err(StatsError::Shape(_))));
        let r = fill_stat(&mut out, &[2, 1], &[(1, 1)], &[(None, None)], Stat::Mean);
        assert!(matches!(r, Err(StatsError::Shape(_))));
        let mut words = [0u32; 5];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        let r = fill_stat_bytes(
            DType::Float32,
            &mut bytes[1..17],
            &[2],
            &[(1, 1)],
            &[(None, None)],
            Stat::Mean,
        );
        assert_eq!(r, Ok(Fill::Declined("an unaligned buffer")));
    }
}
