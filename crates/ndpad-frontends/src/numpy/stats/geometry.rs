//! The padded buffer's geometry ([`Geometry`], checked), and the walks over it shared
//! by the statistics and the ramps: the copy of the input into the middle
//! ([`copy_in`], on threads: [`copy_in_threads`]) and the lines outside it, whose
//! last-axis pads come after the other axes' ([`outer_lines_threads`]).

use super::elem::Elem;
use super::{tick, StatsError, Step, Stop};

/// The padded buffer's geometry, checked.
pub(super) struct Geometry {
    pub(super) out: Vec<usize>,
    pub(super) input: Vec<usize>,
    pub(super) pads: Vec<(usize, usize)>,
    /// Elements between neighbours of each axis (C order).
    pub(super) strides: Vec<usize>,
}

pub(super) fn shape_error(msg: String) -> StatsError {
    StatsError::Shape(msg)
}

impl Geometry {
    pub(super) fn new(
        len: usize,
        input: &[usize],
        pads: &[(usize, usize)],
    ) -> Result<Geometry, StatsError> {
        if input.len() != pads.len() {
            return Err(shape_error(format!(
                "{} pads for {}",
                pads.len(),
                ndpad::axes(input.len())
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
        let overflow = || shape_error("padded size overflows".to_string());
        let strides = ndpad::index::c_strides(&out, 1).ok_or_else(overflow)?;
        let total = ndpad::numel(&out).map_err(|_| overflow())?;
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

    /// The geometry with its last axes made one while the last (of at least one
    /// element) has no pads: its lines are then runs of the joined axis's lines.
    fn joined(&self) -> Option<Geometry> {
        let d = self.out.len();
        if d < 2 || self.pads[d - 1] != (0, 0) {
            return None; // (asked for each slab of a split copy: no allocation)
        }
        let (mut input, mut pads) = (self.input.clone(), self.pads.clone());
        while input.len() >= 2 && pads[input.len() - 1] == (0, 0) {
            let n = input.pop().filter(|&n| n > 0)?;
            pads.pop();
            let (i, (b, a)) = (input.last_mut()?, pads.last_mut()?);
            (*i, *b, *a) = (i.checked_mul(n)?, b.checked_mul(n)?, a.checked_mul(n)?);
        }
        Geometry::new(self.out.iter().product(), &input, &pads).ok()
    }

    /// The geometry of one slab of the first axis (of at least two).
    fn inner(&self) -> Geometry {
        Geometry {
            out: self.out[1..].to_vec(),
            input: self.input[1..].to_vec(),
            pads: self.pads[1..].to_vec(),
            strides: self.strides[1..].to_vec(),
        }
    }

    /// Offsets (from an axis-`k` slab's start) of the rows of the region of axis
    /// `k < last`: axes `k+1 .. last` over their original extents, the last axis at
    /// its first original element.
    pub(super) fn rows(&self, k: usize) -> Vec<usize> {
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

/// One line along the last axis: its pads before and after, and its values between
/// them, which the pads are computed from (in [`copy_in`], the input's line, read
/// where it lies: the output's may have gone around the cache).
pub(super) struct Line<'a, T> {
    pub(super) before: &'a mut [T],
    pub(super) values: &'a [T],
    pub(super) after: &'a mut [T],
}

impl<'a, T> Line<'a, T> {
    /// A line of the output, `b` pads before its `n` values.
    pub(super) fn split(line: &'a mut [T], b: usize, n: usize) -> Line<'a, T> {
        let (before, rest) = line.split_at_mut(b);
        let (values, after) = rest.split_at_mut(n);
        Line {
            before,
            values,
            after,
        }
    }
}

pub(super) fn clamp(length: Option<usize>, full: usize) -> usize {
    match length {
        Some(l) if l < full => l,
        _ => full,
    }
}

/// The shortest line (bytes) [`copy_in`] writes around the cache: f32 lines of a [h, w]
/// pad with `stat_length` 3 (8 MiB in, one thread, cold) ran around the cache 2.1x
/// slower at 512 bytes, 1.6x at 1 KiB, the same at 2 KiB, 7% faster at 4 KiB and 25%
/// at 8 KiB (each line's copy is fenced, and its partial cache lines at both ends are
/// read for ownership).
const AROUND_LINE_MIN: usize = 4 << 10;

/// How [`copy_in`] writes the input's lines into the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stores {
    /// Through the cache: a later pass reads them back.
    Cached,
    /// Around the cache (non-temporal stores where the CPU has them) for lines of at
    /// least [`AROUND_LINE_MIN`] bytes: the output is larger than the cache keeps
    /// (`PadOptions::stream_min_bytes`) and only its pads are read again.
    Around,
}

impl Stores {
    /// The stores for an output of `bytes` whose middle no later pass reads whole
    /// (`reread`: one does).
    pub(super) fn for_output(bytes: usize, reread: bool) -> Stores {
        match !reread && ndpad::PadOptions::default().around_cache(bytes) {
            true => Stores::Around,
            false => Stores::Cached,
        }
    }

    /// The stores for lines of `bytes`.
    fn for_line(self, bytes: usize) -> Stores {
        match bytes >= AROUND_LINE_MIN {
            true => self,
            false => Stores::Cached,
        }
    }

    fn copy<T: Elem>(self, dst: &mut [T], src: &[T]) {
        match self {
            Stores::Cached => ndpad::copy_through_cache(dst, src),
            Stores::Around => {
                // (Equal lengths: the copy cannot refuse.)
                let _ = ndpad::copy_around_cache(
                    bytemuck::cast_slice_mut(dst),
                    bytemuck::cast_slice(src),
                );
            }
        }
    }
}

/// Copies `input` (C order, the geometry's input shape) into the middle of `out` with
/// `stores`, and pads the last axis of each line of the input area (the lines of the
/// other areas depend on the other axes' pads; see [`pad_stat`]) with `line_pads`,
/// from the input's line while it is in cache, until it fails: the rest is only
/// copied (or nothing more, where the `ticker` stopped it). A last axis without pads
/// needs no `line_pads`: its lines are copied as runs of the axes before it (an
/// image's [h, w, 3] as lines of w * 3).
pub(super) fn copy_in<T: Elem>(
    input: &[T],
    out: &mut [T],
    g: &Geometry,
    stores: Stores,
    ticker: &mut ndpad::Ticker<'_>,
    line_pads: impl FnMut(Line<'_, T>) -> Step<()>,
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
    Ok(match g.joined() {
        Some(joined) => copy_lines(input, out, &joined, stores, ticker, |_| Ok(())),
        None => copy_lines(input, out, g, stores, ticker, line_pads),
    })
}

/// [`copy_in`] of a checked input, not empty.
fn copy_lines<T: Elem>(
    input: &[T],
    out: &mut [T],
    g: &Geometry,
    stores: Stores,
    ticker: &mut ndpad::Ticker<'_>,
    mut line_pads: impl FnMut(Line<'_, T>) -> Step<()>,
) -> Step<()> {
    let d = g.out.len();
    let n = g.input[d - 1];
    let b = g.pads[d - 1].0;
    let dim = g.out[d - 1];
    let mut lines = input.chunks_exact(n);
    let line_bytes = dim * std::mem::size_of::<T>();
    let stores = stores.for_line(n.saturating_mul(std::mem::size_of::<T>()));
    let mut result = Ok(());
    for_lines(g, true, |off| {
        if result == Err(Stop::Interrupted) {
            return;
        }
        if let Some(src) = lines.next() {
            if let Err(stop) = tick(ticker, line_bytes) {
                result = Err(stop);
                return;
            }
            let (before, rest) = out[off..off + dim].split_at_mut(b);
            let (middle, after) = rest.split_at_mut(n);
            stores.copy(middle, src);
            if result.is_ok() {
                result = line_pads(Line {
                    before,
                    values: src,
                    after,
                });
            }
        }
    });
    result
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
    // Groups of lines along axis m - 1, one per index of the axes before it.
    let inner = m - 1;
    let (b, n, count) = (g.pads[inner].0, g.input[inner], g.out[inner]);
    let mut group = 0;
    ndpad::index::for_each_index(&g.out[..inner], |idx| {
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
        group += 1;
    });
}

/// [`copy_in`] one slab of the first axis after the other on this thread (the first
/// axis of at least two; else the whole at once), each slab `j`'s input then handed
/// to `slab_in(j, input)` while it is in cache; once the `stopper` stopped, no slab
/// is begun.
pub(super) fn copy_in_slabs<T: Elem>(
    input: &[T],
    out: &mut [T],
    g: &Geometry,
    stores: Stores,
    stopper: &ndpad::Stopper<'_>,
    line_pads: impl FnMut(Line<'_, T>) -> Step<()>,
    slab_in: impl FnMut(usize, &[T]),
) -> Result<Step<()>, StatsError> {
    let mut ticker = stopper.ticker();
    match Slabs::of(input, out, g) {
        Some(slabs) => {
            let body = &mut out[slabs.body.clone()];
            let part = (0, body);
            slabs.copy_part(
                input,
                part,
                &g.inner(),
                stores,
                stopper,
                &mut ticker,
                line_pads,
                slab_in,
            )
        }
        None => copy_in(input, out, g, stores, &mut ticker, line_pads),
    }
}

/// The first axis's input slabs and the output slabs they fill, where the geometry
/// has a first axis of at least two and its buffers are as it says.
struct Slabs {
    /// Elements of an input slab and of an output slab.
    in_slab: usize,
    slab: usize,
    /// The output slabs of the input area.
    body: std::ops::Range<usize>,
}

impl Slabs {
    fn of<T>(input: &[T], out: &[T], g: &Geometry) -> Option<Slabs> {
        if g.out.len() < 2 {
            return None;
        }
        let (b, n, slab) = (g.pads[0].0, g.input[0], g.strides[0]);
        let in_slab: usize = g.input[1..].iter().product();
        if in_slab == 0 || input.len() != in_slab.checked_mul(n)? {
            return None;
        }
        let lo = b.checked_mul(slab)?;
        let hi = b.checked_add(n)?.checked_mul(slab)?;
        (hi <= out.len()).then_some(Slabs {
            in_slab,
            slab,
            body: lo..hi,
        })
    }

    /// Copies the output slabs `part.1` in, the first of them slab `part.0`, each
    /// slab's input then handed to `slab_in`: the first slab's decline (the later
    /// slabs still copied in), an interrupt (at once), or a mismatch.
    #[allow(clippy::too_many_arguments)]
    fn copy_part<T: Elem>(
        &self,
        input: &[T],
        (first, part): (usize, &mut [T]),
        inner: &Geometry,
        stores: Stores,
        stopper: &ndpad::Stopper<'_>,
        ticker: &mut ndpad::Ticker<'_>,
        mut line_pads: impl FnMut(Line<'_, T>) -> Step<()>,
        mut slab_in: impl FnMut(usize, &[T]),
    ) -> Result<Step<()>, StatsError> {
        let mut result = Ok(());
        for (j, slab) in part.chunks_exact_mut(self.slab).enumerate() {
            if stopper.stopped() {
                return Ok(Err(Stop::Interrupted));
            }
            let i = first + j;
            let src = &input[i * self.in_slab..(i + 1) * self.in_slab];
            match copy_in(src, slab, inner, stores, ticker, &mut line_pads)? {
                Ok(()) => {}
                Err(Stop::Declined(why)) => result = result.and(Err(Stop::Declined(why))),
                Err(Stop::Interrupted) => return Ok(Err(Stop::Interrupted)),
            }
            slab_in(i, src);
        }
        Ok(result)
    }
}

/// Whether [`copy_in_threads`] shares the copy of `out` among `threads`.
pub(super) fn splits<T>(out: &[T], g: &Geometry, threads: usize) -> bool {
    ndpad::threads::count(threads) > 1
        && g.out.len() >= 2
        && super::shared(out, g.out[g.out.len() - 1])
        && g.input[0] >= 2
}

/// [`copy_in`] on `threads` threads (0: all of rayon's), split by slabs of the first
/// axis, each part of slabs with its own copy of `state`; the states come back in
/// the order of the parts (one state when the calling thread did it all). Each loop
/// ticks the `stopper`; once it stopped, no slab is begun.
#[allow(clippy::too_many_arguments)]
pub(super) fn copy_in_threads<T: Elem, S: Clone + Send + Sync>(
    input: &[T],
    out: &mut [T],
    g: &Geometry,
    stores: Stores,
    threads: usize,
    stopper: &ndpad::Stopper<'_>,
    state: S,
    line_pads: impl Fn(Line<'_, T>, &mut S) -> Step<()> + Sync,
) -> Result<(Step<()>, Vec<S>), StatsError> {
    let threads = ndpad::threads::count(threads);
    // Split where the pad is large enough and its buffers are as `g` says (else
    // copy_in, on this thread, reports the mismatch or copies nothing).
    let split = match splits(out, g, threads) {
        true => Slabs::of(input, out, g),
        false => None,
    };
    let Some(slabs) = split else {
        let mut state = state;
        let mut ticker = stopper.ticker();
        let r = copy_in(input, out, g, stores, &mut ticker, |line| {
            line_pads(line, &mut state)
        })?;
        return Ok((r, vec![state]));
    };
    let inner = g.inner();
    let (n, slab) = (g.input[0], slabs.slab);
    // Parts of whole slabs, a state per part (cloned once: a ramp's state holds its
    // values' fractions, and a state per slab kept every slab's copy until the end).
    let per = stopper.part_len(
        threads,
        n,
        (slabs.in_slab + slab) * std::mem::size_of::<T>(),
    );
    let parts = out[slabs.body.clone()].chunks_mut(per * slab).enumerate();
    let parts = ndpad::threads::share_map(threads, parts, stopper, |(k, part)| {
        let mut ticker = stopper.ticker();
        let mut state = state.clone();
        let r = slabs.copy_part(
            input,
            (k * per, part),
            &inner,
            stores,
            stopper,
            &mut ticker,
            |line| line_pads(line, &mut state),
            |_, _| {},
        );
        (r, state)
    });
    let parts = parts
        .into_iter()
        .map(|(r, state)| r.map(|r| (r, state)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(first_stop(parts, stopper))
}

/// The parts' first stop in their order (interrupted where the `stopper` stopped: a
/// stop wins over a part declined before it, else the caller would redo the pad its
/// own way, the interrupt lost) and their states.
fn first_stop<S>(parts: Vec<(Step<()>, S)>, stopper: &ndpad::Stopper<'_>) -> (Step<()>, Vec<S>) {
    let mut result = Ok(());
    let mut states = Vec::with_capacity(parts.len());
    for (r, state) in parts {
        if result.is_ok() {
            result = r;
        }
        states.push(state);
    }
    if stopper.stopped() {
        result = Err(Stop::Interrupted);
    }
    (result, states)
}

/// The runs of consecutive lines that [`for_lines`] visits outside the input area,
/// as (first line, lines); lines of at least one element.
fn outer_runs(g: &Geometry) -> Vec<(usize, usize)> {
    let dim = g.out[g.out.len() - 1];
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for_lines(g, false, |off| {
        let line = off / dim;
        match runs.last_mut() {
            Some((first, lines)) if *first + *lines == line => *lines += 1,
            _ => runs.push((line, 1)),
        }
    });
    runs
}

/// Calls `line_pads` on each line outside the input area (the lines [`for_lines`]
/// visits with `inside` false) on `threads` threads, in parts of consecutive runs of
/// them, each part with its own copy of `state`: the first stop in the lines' order
/// (interrupted where the `stopper` stopped) and the parts' states. The lines are
/// independent: each one's pads read only its own elements. A last axis without pads
/// has none to write (as in [`copy_in`]).
pub(super) fn outer_lines_threads<T: Elem, S: Clone + Send + Sync>(
    out: &mut [T],
    g: &Geometry,
    threads: usize,
    stopper: &ndpad::Stopper<'_>,
    state: &S,
    line_pads: impl Fn(&mut [T], &mut S) -> Step<()> + Sync,
) -> (Step<()>, Vec<S>) {
    let d = g.out.len();
    let dim = g.out[d - 1];
    let runs = match dim == 0 || g.pads[d - 1] == (0, 0) {
        true => Vec::new(),
        false => outer_runs(g),
    };
    let lines: usize = runs.iter().map(|&(_, n)| n).sum();
    if lines == 0 {
        return (Ok(()), Vec::new());
    }
    let threads = match super::shared(out, dim) {
        true => threads,
        false => 1,
    };
    let line_bytes = dim * std::mem::size_of::<T>();
    let per = stopper.part_len(threads, lines, line_bytes);
    // The runs cut into parts of `per` lines, each a list of slices of whole lines.
    let mut parts: Vec<Vec<&mut [T]>> = Vec::new();
    let (mut part, mut in_part) = (Vec::new(), 0);
    let (mut rest, mut at) = (out, 0);
    for (first, mut n) in runs {
        rest = std::mem::take(&mut rest).split_at_mut((first - at) * dim).1;
        at = first;
        while n > 0 {
            let take = n.min(per - in_part);
            let (lines, tail) = std::mem::take(&mut rest).split_at_mut(take * dim);
            rest = tail;
            at += take;
            n -= take;
            part.push(lines);
            in_part += take;
            if in_part == per {
                parts.push(std::mem::take(&mut part));
                in_part = 0;
            }
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    let done = ndpad::threads::share_map(threads, parts.into_iter(), stopper, |part| {
        let mut ticker = stopper.ticker();
        let mut state = state.clone();
        for line in part.into_iter().flat_map(|run| run.chunks_exact_mut(dim)) {
            let r = tick(&mut ticker, line_bytes).and_then(|()| line_pads(line, &mut state));
            if r.is_err() {
                return (r, state);
            }
        }
        (Ok(()), state)
    });
    first_stop(done, stopper)
}
