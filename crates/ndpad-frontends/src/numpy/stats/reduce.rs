//! The statistic modes: [`fill_stat`] and [`pad_stat`], the statistic of each line
//! (maximum, minimum, numpy's pairwise or row-by-row mean, median) and the checks
//! that decline what numpy does not determine by the values alone.

use super::elem::{Acc, Elem};
use super::geometry::{
    clamp, copy_in, copy_in_slabs, copy_in_threads, outer_lines_threads, shape_error, splits,
    Geometry, Line, Stores,
};
use super::{outcome, squeezed, tick, Outcome, Stat, StatsError, Step, Stop};

/// Mean lines longer than this are left to numpy (its iterator may split them into
/// buffers, which changes the order of the sum).
const MAX_MEAN_SPAN: usize = 8192;

/// A pass after the copy that reads at most this many rows of a span back leaves the
/// copy around the cache (f32 [2000,2000] minimum, `stat_length` 3, one thread: 2.8 ->
/// 2.2 ms); a longer one keeps it through the cache (maximum on two threads: 2.9-3.3
/// ms through, 3.6-3.7 around) unless its axis is taken during the copy ([`Columns`]).
const REREAD_ROWS: usize = 16;

/// The most bytes of a side's running statistics taken during the copy ([`Columns`]):
/// they stay in the second-level cache beside the slab being copied (half of the
/// Intel VM's 2 MiB a core; larger ones keep the pass after the copy, not measured).
const COLUMNS_MAX_BYTES: usize = 1 << 20;

/// The shortest span whose median of one-byte integers is counted in bins, not
/// selected (`counted_middle`): u8 [1000,1000] padded by 8 with `stat_length` 32,
/// selected 0.87 ms, counted 1.07; 64: 1.44 against 1.12.
const COUNTED_MEDIAN_MIN: usize = 48;

/// Fills the pad areas of the C-contiguous buffer `out` (the input, of shape
/// `input`, already at offsets `pads[i].0`) with numpy.pad's `stat`, `lengths` being
/// each axis's `stat_length` pair (`None`: the whole axis); `interrupt` asked on the
/// calling thread (see the module's notes).
pub fn fill_stat<T: Elem>(
    out: &mut [T],
    input: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
    interrupt: Option<&ndpad::Interrupt>,
) -> Result<Outcome, StatsError> {
    if let Some((input, pads, lengths)) = squeezed(input, pads, lengths, zero_length) {
        return fill_stat(out, &input, &pads, &lengths, stat, interrupt);
    }
    let g = Geometry::new(out.len(), input, pads)?;
    if let Some(why) = stat_checks::<T>(&g, lengths, stat)? {
        return Ok(Outcome::Declined(why));
    }
    let stopper = ndpad::Stopper::new(interrupt);
    let mut work = Work::new(&stopper);
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
        if result.is_err() {
            return outcome(result);
        }
    }
    Ok(Outcome::Done)
}

/// A stat length pair with a 0 (numpy's error or warning, even on an unpadded axis).
fn zero_length(&(l, r): &(Option<usize>, Option<usize>)) -> bool {
    l == Some(0) || r == Some(0)
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
            ndpad::axes(input.len())
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

/// Pads `input` (C-contiguous, of shape `shape`) into `out` (C-contiguous, of the
/// padded shape) with numpy.pad's `stat`: [`fill_stat`] fused with the copy of the
/// input, so that the last axis is padded while each line is in cache, on `threads`
/// (0: all of rayon's: the copy and the last axis's pads of the lines outside the
/// input area; the other axes' passes on the calling thread), asking `interrupt`.
/// Declined or not, the input is copied into the middle of `out` (unless
/// interrupted).
#[allow(clippy::too_many_arguments)]
pub fn pad_stat<T: Elem>(
    input: &[T],
    out: &mut [T],
    shape: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
    threads: usize,
    interrupt: Option<&ndpad::Interrupt>,
) -> Result<Outcome, StatsError> {
    if let Some((shape, pads, lengths)) = squeezed(shape, pads, lengths, zero_length) {
        return pad_stat(
            input, out, &shape, &pads, &lengths, stat, threads, interrupt,
        );
    }
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
        return Ok(Outcome::Done);
    }
    let d = shape.len();
    let spans: Vec<(usize, usize)> = lengths
        .iter()
        .zip(shape)
        .map(|(&(l, r), &n)| (clamp(l, n), clamp(r, n)))
        .collect();
    let stopper = ndpad::Stopper::new(interrupt);
    let mut work = Work::new(&stopper);
    let (b, n) = (pads[d - 1].0, shape[d - 1]);
    if let Some(why) = declined {
        // (`line_pads` doing nothing cannot fail; the caller reads the output back.)
        let stores = Stores::Cached;
        let copied = copy_in(input, out, &g, stores, &mut work.ticker, |_| Ok(()))?;
        return outcome(copied.and(Err(Stop::Declined(why))));
    }
    // The first axis's statistics taken during the copy, where it runs on this thread;
    // the passes of the axes from `first` on come after it.
    let mut columns = match splits(out, &g, threads) {
        true => None,
        false => Columns::new(&g, spans[0], stat),
    };
    let first = usize::from(columns.is_some());
    let stores = Stores::for_output(std::mem::size_of_val(out), rereads(&g, &spans, first));
    let last = spans[d - 1];
    let copied = match columns.as_mut() {
        Some(columns) => copy_in_slabs(
            input,
            out,
            &g,
            stores,
            &stopper,
            |line| line_pads(line, last, stat, &mut work.sort),
            |j, slab| columns.take(j, slab),
        )?,
        None => {
            copy_in_threads(
                input,
                out,
                &g,
                stores,
                threads,
                &stopper,
                Vec::new(),
                |line, sort| line_pads(line, last, stat, sort),
            )?
            .0
        }
    };
    if copied.is_err() {
        return outcome(copied);
    }
    if let Some(columns) = columns {
        let result = columns.write(input, out, &g, &mut work);
        if result.is_err() {
            return outcome(result);
        }
    }
    for k in first..d - 1 {
        let result = if shape[k + 1..].iter().all(|&n| n == 1) {
            strided_axis(out, &g, k, spans[k], stat, &mut work)
        } else {
            row_axis(out, &g, k, spans[k], stat, &mut work)
        };
        if result.is_err() {
            return outcome(result);
        }
    }
    let (result, _) = outer_lines_threads(out, &g, threads, &stopper, &Vec::new(), |line, sort| {
        line_pads(Line::split(line, b, n), last, stat, sort)
    });
    outcome(result)
}

/// Whether the passes of the axes from `first` on but the last read much of the input
/// area back: a padded axis whose statistic spans more than a few of its rows.
fn rereads(g: &Geometry, spans: &[(usize, usize)], first: usize) -> bool {
    let d = g.out.len();
    (first..d.saturating_sub(1))
        .any(|k| g.pads[k] != (0, 0) && spans[k].0.max(spans[k].1) > REREAD_ROWS)
}

/// The first axis's maxima, minima or sums of each side's span, element by element,
/// taken from the input's slabs in order as the copy passes them: the values
/// [`row_axis`] reads back after the copy, in its order.
struct Columns<T: Elem> {
    stat: Stat,
    /// Each side's span of input slabs (`(start, len)`) and its running values (a
    /// side whose statistic is the other's, or without pads, has none).
    sides: Vec<((usize, usize), Running<T>)>,
    /// The left side's values are the right side's too (both spans the whole axis).
    both: bool,
}

/// One side's running values: maxima or minima, or sums.
enum Running<T: Elem> {
    Extremes(Vec<T>),
    Sums(Vec<T::Wide>),
}

impl<T: Elem> Columns<T> {
    /// The first axis's statistic (spans `spans`) taken during the copy: `None` where
    /// its pass would read few rows back ([`REREAD_ROWS`]), the axis is numpy's inner
    /// loop (its pairwise sums), the stat is a median, or the running values would not
    /// stay in cache beside a slab.
    fn new(g: &Geometry, spans: (usize, usize), stat: Stat) -> Option<Columns<T>> {
        let d = g.out.len();
        let (b, n, a) = (g.pads[0].0, g.input[0], g.pads[0].1);
        let in_slab: usize = g.input[1..].iter().product();
        let bytes =
            in_slab.saturating_mul(std::mem::size_of::<T::Wide>().max(std::mem::size_of::<T>()));
        if d < 2
            || (b == 0 && a == 0)
            || spans.0.max(spans.1) <= REREAD_ROWS
            || stat == Stat::Median
            || g.input[1..].iter().all(|&m| m == 1)
            || bytes > COLUMNS_MAX_BYTES
        {
            return None;
        }
        let same = spans.0 == n && spans.1 == n;
        let running = || match stat {
            Stat::Mean => Running::Sums(vec![T::WIDE_ZERO; in_slab]),
            _ => Running::Extremes(Vec::with_capacity(in_slab)),
        };
        let mut sides = Vec::with_capacity(2);
        if b > 0 || same {
            sides.push(((0, spans.0), running()));
        }
        if a > 0 && !same {
            sides.push(((n - spans.1, spans.1), running()));
        }
        Some(Columns {
            stat,
            sides,
            both: same,
        })
    }

    /// Takes input slab `j` into the sides whose span holds it.
    fn take(&mut self, j: usize, slab: &[T]) {
        let max = self.stat == Stat::Maximum;
        for ((start, len), running) in &mut self.sides {
            if !(*start..*start + *len).contains(&j) {
                continue;
            }
            match running {
                Running::Sums(sums) => {
                    for (s, &x) in sums.iter_mut().zip(slab) {
                        *s = *s + x.to_wide();
                    }
                }
                Running::Extremes(v) if j == *start => {
                    v.clear();
                    v.extend_from_slice(slab);
                }
                Running::Extremes(v) if max => {
                    for (e, &x) in v.iter_mut().zip(slab) {
                        *e = if (x > *e) | x.nan() { x } else { *e };
                    }
                }
                Running::Extremes(v) => {
                    for (e, &x) in v.iter_mut().zip(slab) {
                        *e = if (x < *e) | x.nan() { x } else { *e };
                    }
                }
            }
        }
    }

    /// The statistics (checked as [`row_stat`] checks them, a column read from
    /// `input` where needed) written into the first axis's pads of `out`.
    fn write(self, input: &[T], out: &mut [T], g: &Geometry, work: &mut Work<'_, T>) -> Step<()> {
        let d = g.out.len();
        let (b, n, st, dim) = (g.pads[0].0, g.input[0], g.strides[0], g.out[0]);
        let width = g.input[d - 1];
        let in_slab = input.len() / n;
        let mut values: Vec<Vec<T>> = Vec::with_capacity(2);
        for ((start, len), running) in self.sides {
            tick(&mut work.ticker, in_slab * std::mem::size_of::<T>())?;
            let column = |e: usize, into: &mut Vec<T>| {
                into.clear();
                into.extend((start..start + len).map(|j| input[j * in_slab + e]));
            };
            let side = match running {
                Running::Extremes(v) => {
                    if T::FLOAT {
                        for (e, &x) in v.iter().enumerate() {
                            if x.nan() || x.float_zero() {
                                tick(&mut work.ticker, len * 64)?;
                                column(e, &mut work.gather);
                                check_extreme(x, &work.gather)?;
                            }
                        }
                    }
                    v
                }
                Running::Sums(sums) => {
                    let mut v = Vec::with_capacity(in_slab);
                    for (e, &s) in sums.iter().enumerate() {
                        let s = T::sum_of_wide(s);
                        if T::FLOAT && !s.finite() {
                            tick(&mut work.ticker, len * 64)?;
                            column(e, &mut work.gather);
                            check_nonfinite_sum(&work.gather)?;
                        }
                        v.push(T::mean_of(s, len).ok_or("a mean outside the type")?);
                    }
                    v
                }
            };
            values.push(side);
        }
        let (left, right) = match (values.first(), values.get(1)) {
            (Some(l), Some(r)) => (Some(l), Some(r)),
            (Some(l), None) if self.both => (Some(l), Some(l)),
            (Some(l), None) if b > 0 => (Some(l), None),
            (Some(r), None) => (None, Some(r)),
            (None, _) => (None, None),
        };
        let rows = g.rows(0);
        for (js, side) in [(0..b, left), (b + n..dim, right)] {
            let Some(side) = side else { continue };
            for j in js {
                tick(&mut work.ticker, in_slab * std::mem::size_of::<T>())?;
                for (&row, v) in rows.iter().zip(side.chunks_exact(width)) {
                    let at = j * st + row;
                    ndpad::copy_through_cache(&mut out[at..at + width], v);
                }
            }
        }
        Ok(())
    }
}

/// The last axis's pads of one line, `(ll, rl)` the spans of its statistics.
fn line_pads<T: Elem>(
    line: Line<'_, T>,
    (ll, rl): (usize, usize),
    stat: Stat,
    sort: &mut Vec<T>,
) -> Step<()> {
    let Line {
        before,
        values,
        after,
    } = line;
    let n = values.len();
    let same = ll == n && rl == n;
    // numpy also computes the statistic of a side without pads; nothing shows it.
    let left = if !before.is_empty() || (!after.is_empty() && same) {
        Some(line_stat(&values[..ll], stat, sort)?)
    } else {
        None
    };
    if let Some(v) = left {
        before.fill(v);
    }
    if !after.is_empty() {
        let right = match left {
            Some(v) if same => v,
            _ => line_stat(&values[n - rl..], stat, sort)?,
        };
        after.fill(right);
    }
    Ok(())
}

/// Scratch buffers, reused across lines, and the ticker of the calling thread's
/// loops.
struct Work<'a, T: Elem> {
    gather: Vec<T>,
    sort: Vec<T>,
    left: Vec<T>,
    right: Vec<T>,
    acc: Vec<T::Wide>,
    ticker: ndpad::Ticker<'a>,
}

impl<'a, T: Elem> Work<'a, T> {
    fn new(stopper: &'a ndpad::Stopper<'a>) -> Self {
        Work {
            gather: Vec::new(),
            sort: Vec::new(),
            left: Vec::new(),
            right: Vec::new(),
            acc: Vec::new(),
            ticker: stopper.ticker(),
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
    work: &mut Work<'_, T>,
) -> Step<()> {
    let (b, n) = (g.pads[k].0, g.input[k]);
    let line_bytes = g.out[k] * std::mem::size_of::<T>();
    for line in out.chunks_exact_mut(g.out[k]) {
        tick(&mut work.ticker, line_bytes)?;
        line_pads(Line::split(line, b, n), spans, stat, &mut work.sort)?;
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
    work: &mut Work<'_, T>,
) -> Step<()> {
    let (b, n, st, dim) = (g.pads[k].0, g.input[k], g.strides[k], g.out[k]);
    let offset: usize = ((k + 1)..g.out.len())
        .map(|i| g.pads[i].0 * g.strides[i])
        .sum();
    let ((l0, ll), (r0, rl)) = span_ranges(g, k, spans);
    let same = ll == n && rl == n;
    let a = g.pads[k].1;
    // A cache line read or written per element.
    let line_bytes = dim * 64;
    for slab in out.chunks_exact_mut(dim * st) {
        tick(&mut work.ticker, line_bytes)?;
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
    work: &mut Work<'_, T>,
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
    // Each side's row is computed into its buffer and copied into the pad rows (which
    // may lie a few bytes past it in their pages: `copy_through_cache`); where both
    // sides take one statistic, the right rows take the left row.
    let mut left = std::mem::take(&mut work.left);
    let mut right = std::mem::take(&mut work.right);
    left.resize(width, out[0]);
    right.resize(width, out[0]);
    let row_bytes = width * std::mem::size_of::<T>();
    let mut rows_pads = || -> Step<()> {
        for slab in out.chunks_exact_mut(dim * st) {
            for &row in &rows {
                tick(&mut work.ticker, (b + a) * row_bytes)?;
                if do_left {
                    row_stat(slab, row, st, (l0, ll), width, stat, work, &mut left)?;
                }
                if do_right {
                    row_stat(slab, row, st, (r0, rl), width, stat, work, &mut right)?;
                }
                let right_values = if do_right { &right } else { &left };
                for (js, values) in [(0..b, &left), (b + n..dim, right_values)] {
                    for j in js {
                        let at = row + j * st;
                        ndpad::copy_through_cache(&mut slab[at..at + width], values);
                    }
                }
            }
        }
        Ok(())
    };
    let result = rows_pads();
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
    work: &mut Work<'_, T>,
    res: &mut [T],
) -> Step<()> {
    let at = |j: usize| &slab[row + j * st..row + j * st + width];
    let row_bytes = width * std::mem::size_of::<T>();
    match stat {
        Stat::Maximum | Stat::Minimum => {
            res.copy_from_slice(at(start));
            let max = stat == Stat::Maximum;
            for j in start + 1..start + len {
                tick(&mut work.ticker, row_bytes)?;
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
                        tick(&mut work.ticker, len * 64)?;
                        column(slab, row + x, st, start, len, &mut work.gather);
                        check_extreme(v, &work.gather)?;
                    }
                }
            }
        }
        Stat::Mean => {
            work.acc.clear();
            work.acc.resize(width, T::WIDE_ZERO);
            for j in start..start + len {
                tick(&mut work.ticker, row_bytes)?;
                for (a, &x) in work.acc.iter_mut().zip(at(j)) {
                    *a = *a + x.to_wide();
                }
            }
            for (x, (r, &s)) in res.iter_mut().zip(&work.acc).enumerate() {
                let s = T::sum_of_wide(s);
                if T::FLOAT && !s.finite() {
                    tick(&mut work.ticker, len * 64)?;
                    column(slab, row + x, st, start, len, &mut work.gather);
                    check_nonfinite_sum(&work.gather)?;
                }
                *r = T::mean_of(s, len).ok_or("a mean outside the type")?;
            }
        }
        Stat::Median => {
            for (x, r) in res.iter_mut().enumerate() {
                // A cache line read per element of the column.
                tick(&mut work.ticker, len * 64)?;
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
            let s = match T::FLOAT {
                true => <T::Sum as Acc>::ZERO + pairwise(span),
                false => T::sum_of_wide(span.iter().fold(T::WIDE_ZERO, |s, &x| s + x.to_wide())),
            };
            if T::FLOAT && !s.finite() {
                check_nonfinite_sum(span)?;
            }
            T::mean_of(s, span.len()).ok_or(Stop::Declined("a mean outside the type"))
        }
        Stat::Median => median(span, sort),
    }
}

/// The maximum (`better`: `>`) or minimum (`<`) of a span, or a NaN of it where it
/// has one: `LANES` running extremes, each of every `LANES`th element (NaNs never
/// better: the comparison the compiler turns into vector maxima and minima), and
/// whether a NaN was met (the order in which equal values are met cannot show:
/// integers that compare equal are equal, and floats' are zeros, checked below).
fn extreme<T: Elem>(span: &[T], better: impl Fn(T, T) -> bool) -> Step<T> {
    const LANES: usize = 16;
    let first = *span.first().ok_or("an empty span")?;
    let (mut lanes, mut nans) = ([first; LANES], [false; LANES]);
    // Whole chunks apart from the rest: a loop of fixed length, which the compiler
    // widens (`chunks` with its shorter last chunk ran 1.8x slower).
    let mut take = |chunk: &[T]| {
        for ((a, n), &x) in lanes.iter_mut().zip(&mut nans).zip(chunk) {
            *a = if better(x, *a) { x } else { *a };
            *n |= x.nan();
        }
    };
    let mut chunks = span.chunks_exact(LANES);
    chunks.by_ref().for_each(&mut take);
    let mut acc = lanes
        .into_iter()
        .fold(first, |a, x| if better(x, a) { x } else { a });
    let mut any_nan = nans.contains(&true);
    // The rest one by one in registers: through the lanes, its flags' byte stores
    // read back as one vector waited for every store before them to leave the core
    // (behind a line's non-temporal copy perf put 45% of the time on that load).
    for &x in chunks.remainder() {
        acc = if better(x, acc) { x } else { acc };
        any_nan |= x.nan();
    }
    // A NaN of the span where it has one (which one, `check_extreme` makes moot).
    if any_nan {
        acc = span.iter().copied().find(|x| x.nan()).unwrap_or(acc);
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
            return Err(Stop::Declined("a NaN other than the canonical one"));
        }
    } else {
        let neg = span.iter().any(|x| x.float_zero() && x.negative());
        let pos = span.iter().any(|x| x.float_zero() && !x.negative());
        if neg && pos {
            return Err(Stop::Declined("zeros of both signs"));
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
                return Err(Stop::Declined("NaNs of different payloads"));
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
        return Err(Stop::Declined("an overflowing or invalid sum"));
    }
    Ok(())
}

/// numpy's `pairwise_sum` (loops_utils.h.src): 8 accumulators up to 128 elements,
/// halves beyond.
pub(super) fn pairwise<T: Elem>(a: &[T]) -> T::Sum {
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

/// The values at places `n / 2 - 1` (where `n`, the span's length, is even; else the
/// other) and `n / 2` of the sorted span (not empty, no NaN), by selection.
fn selected_middle<T: Elem>(span: &[T], sort: &mut Vec<T>) -> Step<(T, T)> {
    sort.clear();
    sort.extend_from_slice(span);
    let h = span.len() / 2;
    let cmp = |a: &T, b: &T| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal);
    let (lower, &mut hi, _) = sort.select_nth_unstable_by(h, cmp);
    let lo = match span.len() % 2 {
        0 => lower
            .iter()
            .copied()
            .reduce(|a, b| if b > a { b } else { a })
            .ok_or("an empty span")?,
        _ => hi,
    };
    Ok((lo, hi))
}

/// [`selected_middle`] for one-byte integers of spans of [`COUNTED_MEDIAN_MIN`] or
/// more (up to `u32::MAX`), counted in 256 bins: linear whatever the values (selection
/// met long runs of one value, an image's black, at a third of numpy.pad's speed). Four
/// sets of bins, a value's count in one of them by its place, so that a run of one value
/// does not wait on its own last count. `None` for other types or spans.
fn counted_middle<T: Elem>(span: &[T]) -> Option<(T, T)> {
    let n = span.len();
    if !(COUNTED_MEDIAN_MIN..=u32::MAX as usize).contains(&n) {
        return None;
    }
    span.first()?.byte_rank()?;
    let mut bins = [[0u32; 256]; 4];
    let (fours, rest) = span.as_chunks::<4>();
    for four in fours {
        for (set, x) in bins.iter_mut().zip(four) {
            if let Some(r) = x.byte_rank() {
                set[usize::from(r)] += 1;
            }
        }
    }
    for x in rest {
        if let Some(r) = x.byte_rank() {
            bins[0][usize::from(r)] += 1;
        }
    }
    // The places of the two middle values, and the bins holding them.
    let h = n / 2;
    let want = (h - (1 - n % 2), h);
    let (mut seen, mut lo) = (0usize, None);
    for r in 0..=255u8 {
        seen += bins
            .iter()
            .map(|set| set[usize::from(r)] as usize)
            .sum::<usize>();
        if lo.is_none() && want.0 < seen {
            lo = T::of_byte_rank(r);
        }
        if want.1 < seen {
            return Some((lo?, T::of_byte_rank(r)?));
        }
    }
    None
}

/// numpy's median: the mean of the middle one or two values; a NaN anywhere makes it
/// that NaN.
fn median<T: Elem>(span: &[T], sort: &mut Vec<T>) -> Step<T> {
    if T::FLOAT {
        if let Some(&first) = span.iter().find(|x| x.nan()) {
            if span.iter().any(|x| x.nan() && x.bits() != first.bits()) {
                return Err(Stop::Declined("NaNs of different payloads"));
            }
            return Ok(first);
        }
    }
    let n = span.len();
    if n == 0 {
        return Err(Stop::Declined("an empty span"));
    }
    let (lo, hi) = match counted_middle(span) {
        Some(middle) => middle,
        None => selected_middle(span, sort)?,
    };
    if n % 2 == 1 {
        return T::mean_of(<T::Sum as Acc>::ZERO + hi.to_sum(), 1)
            .ok_or(Stop::Declined("a median outside the type"));
    }
    let s = (<T::Sum as Acc>::ZERO + lo.to_sum()) + hi.to_sum();
    if T::FLOAT && !s.finite() {
        let (lf, hf) = (!lo.inf(), !hi.inf());
        if (lf && hf) || (!lf && !hf && lo != hi) {
            return Err(Stop::Declined("an overflowing or invalid median"));
        }
    }
    T::mean_of(s, 2).ok_or(Stop::Declined("a median outside the type"))
}
