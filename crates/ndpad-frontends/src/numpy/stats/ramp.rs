//! `linear_ramp`: [`fill_ramp`] and [`pad_ramp`], each side a `numpy.linspace` from
//! the edge value to the end value ([`Ramp`]).

use super::elem::{Comp, Elem};
use super::geometry::{
    copy_in, copy_in_threads, outer_lines_threads, shape_error, Geometry, Line, Stores,
};
use super::{outcome, squeezed, tick, Outcome, StatsError, Step, Stop};

/// The last axis's ramps, each side having met a zero step where any thread's did.
fn merge_zero_steps<C: Comp>(states: impl IntoIterator<Item = Vec<Ramp<C>>>) -> Vec<Ramp<C>> {
    let mut states = states.into_iter();
    let mut first = states.next().unwrap_or_default();
    for other in states {
        for (side, o) in first.iter_mut().zip(other) {
            side.met_zero |= o.met_zero;
        }
    }
    first
}

/// Fills the pad areas of `out` (as [`fill_stat`](super::fill_stat)) with numpy.pad's
/// `linear_ramp`, computed in `C` (numpy.linspace's `result_type(end_value, edge)`),
/// `ends` being each axis's `end_values` pair, already values of `C`; `interrupt`
/// asked on the calling thread.
pub fn fill_ramp<T: Elem, C: Comp>(
    out: &mut [T],
    input: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
    interrupt: Option<&ndpad::Interrupt>,
) -> Result<Outcome, StatsError> {
    if let Some((input, pads, ends)) = squeezed(input, pads, ends, loud::<C>) {
        return fill_ramp::<T, C>(out, &input, &pads, &ends, interrupt);
    }
    let g = Geometry::new(out.len(), input, pads)?;
    if ends.len() != input.len() {
        return Err(shape_error(format!(
            "{} end_values pairs for {}",
            ends.len(),
            ndpad::axes(input.len())
        )));
    }
    if input.contains(&0) {
        return Ok(Outcome::Declined("an empty axis"));
    }
    let stopper = ndpad::Stopper::new(interrupt);
    let mut ticker = stopper.ticker();
    for k in 0..input.len() {
        let result = ramp_sides::<T, C>(&g, ends, k)
            .and_then(|mut sides| ramp_axis(out, &g, k, &mut sides, &mut ticker));
        if result.is_err() {
            return outcome(result);
        }
    }
    Ok(Outcome::Done)
}

/// `end` never makes numpy's ramp of a side without pads overflow.
fn quiet<C: Comp>(end: f64) -> bool {
    end.abs() < C::QUIET_END
}

/// Unit axes are left alone but where their sides' `edge - end` might warn.
fn loud<C: Comp>(&(left, right): &(f64, f64)) -> bool {
    !quiet::<C>(left) || !quiet::<C>(right)
}

/// The ramps of axis `k`'s sides that have pads (declined where a side without pads
/// might warn in numpy).
fn ramp_sides<T: Elem, C: Comp>(g: &Geometry, ends: &[(f64, f64)], k: usize) -> Step<Vec<Ramp<C>>> {
    let (b, a) = g.pads[k];
    let n = g.input[k];
    let mut sides = Vec::with_capacity(2);
    if n == 0 {
        return Err(Stop::Declined("an empty axis"));
    }
    let last = b + n - 1;
    for (width, end, edge, right) in [(b, ends[k].0, b, false), (a, ends[k].1, last, true)] {
        if width == 0 {
            // numpy still computes `edge - end` (linspace's delta), and warns where
            // it overflows.
            if !quiet::<C>(end) {
                return Err(Stop::Declined("a large end value of a side without pads"));
            }
            continue;
        }
        if width >= C::EXACT {
            return Err(Stop::Declined("a ramp too long to count exactly"));
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

/// Pads `input` into `out` with numpy.pad's `linear_ramp`, as [`pad_stat`](super::pad_stat) does
/// ([`fill_ramp`] fused with the copy of the input).
pub fn pad_ramp<T: Elem, C: Comp>(
    input: &[T],
    out: &mut [T],
    shape: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
    threads: usize,
    interrupt: Option<&ndpad::Interrupt>,
) -> Result<Outcome, StatsError> {
    if let Some((shape, pads, ends)) = squeezed(shape, pads, ends, loud::<C>) {
        return pad_ramp::<T, C>(input, out, &shape, &pads, &ends, threads, interrupt);
    }
    let g = Geometry::new(out.len(), shape, pads)?;
    if ends.len() != shape.len() {
        return Err(shape_error(format!(
            "{} end_values pairs for {}",
            ends.len(),
            ndpad::axes(shape.len())
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
        return Ok(Outcome::Done);
    }
    let d = shape.len();
    let stopper = ndpad::Stopper::new(interrupt);
    let mut ticker = stopper.ticker();
    // An empty axis first: the output is then empty, whatever the other pads' widths
    // (a ramp's steps are not counted out for a pad that writes nothing).
    let sides = match shape.contains(&0) {
        true => Err(Stop::Declined("an empty axis")),
        false => ramp_sides::<T, C>(&g, ends, d - 1),
    };
    let last = match sides {
        Ok(sides) => sides,
        Err(why) => {
            // (The caller reads the output back.)
            let copied = copy_in(input, out, &g, Stores::Cached, &mut ticker, |_| Ok(()))?;
            return outcome(copied.and(Err(why)));
        }
    };
    let (b, n) = (pads[d - 1].0, shape[d - 1]);
    // The other axes' ramps read only the input area's edges back.
    let stores = Stores::for_output(std::mem::size_of_val(out), false);
    let (copied, states) = copy_in_threads(
        input,
        out,
        &g,
        stores,
        threads,
        &stopper,
        last,
        |line, sides| ramp_line(line, sides),
    )?;
    let last = merge_zero_steps(states);
    if copied.is_err() {
        return outcome(copied);
    }
    for k in 0..d - 1 {
        let result = ramp_sides::<T, C>(&g, ends, k)
            .and_then(|mut sides| ramp_axis(out, &g, k, &mut sides, &mut ticker));
        if result.is_err() {
            return outcome(result);
        }
    }
    let (result, states) = outer_lines_threads(out, &g, threads, &stopper, &last, |line, sides| {
        ramp_line(Line::split(line, b, n), sides)
    });
    let last = merge_zero_steps(std::iter::once(last).chain(states));
    outcome(result.and_then(|()| {
        let mut again = redo_sides(&last);
        ramp_pass(out, &g, d - 1, &mut again, &mut ticker)
    }))
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

/// The last axis's ramps of one line (each side's pad `width` long).
fn ramp_line<T: Elem, C: Comp>(line: Line<'_, T>, sides: &mut [Ramp<C>]) -> Step<()> {
    let Line {
        before,
        values,
        after,
    } = line;
    for side in sides.iter_mut() {
        let edge = match side.right {
            true => values.last(),
            false => values.first(),
        };
        let f = side.factor(*edge.ok_or("an empty axis")?)?;
        let fracs = side.fracs.iter().map(|&x| (x, f));
        match side.right {
            true => side.put(after.iter_mut().rev().zip(fracs))?,
            false => side.put(before.iter_mut().zip(fracs))?,
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
            return Err(Stop::Declined("an infinite edge"));
        }
        let delta = C::of(edge) - self.start;
        if !delta.finite() && !edge.nan() {
            return Err(Stop::Declined("an overflowing ramp"));
        }
        let step = delta / self.div;
        if step == C::ZERO {
            self.met_zero = true;
        }
        Ok(if self.any_zero { delta } else { step })
    }

    /// [`Ramp::factor`] of each of a row's edge elements, into `out`: one pass without
    /// a branch an element (it vectorizes), then, only where an edge is infinite or a
    /// ramp overflows, the elements one at a time for the first of them.
    fn factors<T: Elem>(&mut self, edges: &[T], out: &mut Vec<C>) -> Step<()> {
        let (start, div, any_zero) = (self.start, self.div, self.any_zero);
        let (mut odd, mut zero) = (false, false);
        out.clear();
        out.resize(edges.len(), C::ZERO);
        for (o, &e) in out.iter_mut().zip(edges) {
            let delta = C::of(e) - start;
            let step = delta / div;
            odd |= e.inf() | (!delta.finite() & !e.nan());
            zero |= step == C::ZERO;
            *o = if any_zero { delta } else { step };
        }
        if odd {
            for &e in edges {
                self.factor(e)?;
            }
        }
        self.met_zero |= zero;
        Ok(())
    }

    /// Writes each `(o, (x, f))`'s ramp value (`x` of `fracs`, `f` its line's factor)
    /// into `o`; declined, the rest written, where one lies outside the type (one
    /// check for all: no early exit in the loop, which vectorizes).
    #[inline]
    fn put<'a, T: Elem>(&self, values: impl Iterator<Item = (&'a mut T, (C, C))>) -> Step<()> {
        let mut fits = true;
        for (o, (x, f)) in values {
            let v = (x * f + self.start).to::<T>();
            fits &= v.is_some();
            *o = v.unwrap_or(*o);
        }
        match fits {
            true => Ok(()),
            false => Err(Stop::Declined("a ramp value outside the type")),
        }
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
    ticker: &mut ndpad::Ticker<'_>,
) -> Step<()> {
    ramp_pass(out, g, k, sides, ticker)?;
    let mut again = redo_sides(sides);
    if !again.is_empty() {
        ramp_pass(out, g, k, &mut again, ticker)?;
    }
    Ok(())
}

fn ramp_pass<T: Elem, C: Comp>(
    out: &mut [T],
    g: &Geometry,
    k: usize,
    sides: &mut [Ramp<C>],
    ticker: &mut ndpad::Ticker<'_>,
) -> Step<()> {
    if sides.is_empty() {
        return Ok(());
    }
    let d = g.out.len();
    let (st, dim) = (g.strides[k], g.out[k]);
    let size = std::mem::size_of::<T>();
    if k + 1 == d {
        let (b, n) = (g.pads[k].0, g.input[k]);
        for line in out.chunks_exact_mut(dim) {
            tick(ticker, dim * size)?;
            ramp_line(Line::split(line, b, n), sides)?;
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
                side.factors(&slab[at..at + width], &mut factors)?;
                for (j, &x) in side.fracs.iter().enumerate() {
                    tick(ticker, width * size)?;
                    let pos = side.pos(j);
                    let dst = &mut slab[row + pos * st..row + pos * st + width];
                    side.put(dst.iter_mut().zip(factors.iter().map(|&f| (x, f))))?;
                }
            }
        }
    }
    Ok(())
}
