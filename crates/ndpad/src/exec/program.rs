//! The general row writers: the row program (a row's long runs, then lists of single
//! elements and constants), the sandwich and singles rows, and the run-by-run walk of
//! a row's segments that every kernel falls back to for partial rows.

use super::plane_loops::RowCopy;
use crate::plan::Seg;
use crate::tune::STREAMED_RUN_MIN;

use super::elem::Elem;
use super::row_kernel::{RowKernel, Sandwich, SinglesRow};
use super::Exec;

/// A whole row (of units of one element) as a program: the long runs, in the order
/// they are best written (the longest copy first), and every other element as a
/// constant (`constants`, by position) or a single element (`singles`, (output,
/// input) pairs).
#[derive(Clone)]
pub(crate) struct RowProgram {
    pub(crate) runs: Vec<(usize, Seg)>,
    pub(crate) constants: Vec<u32>,
    pub(crate) singles: Vec<(u32, u32)>,
}

impl RowProgram {
    /// The program of a row made of `segs`, runs shorter than `short` elements taken
    /// apart into single elements and constants.
    pub(crate) fn new(segs: &[Seg], short: usize) -> RowProgram {
        // Each allocated once, of the size it takes (none where empty): counted first.
        let short_segs = || segs.iter().filter(|s| s.len() < short);
        let single = |s: &&Seg| (0..s.len()).filter(|&k| s.src_at(k).is_some()).count();
        let nsingles: usize = short_segs().map(|s| single(&s)).sum();
        let nconstants = short_segs().map(Seg::len).sum::<usize>() - nsingles;
        let mut runs = Vec::with_capacity(segs.len() - short_segs().count());
        let mut constants = Vec::with_capacity(nconstants);
        let mut singles = Vec::with_capacity(nsingles);
        let mut at = 0;
        for &seg in segs {
            if seg.len() >= short {
                runs.push((at, seg));
            } else {
                for k in 0..seg.len() {
                    let d = (at + k) as u32;
                    match seg.src_at(k) {
                        Some(s) => singles.push((d, s as u32)),
                        None => constants.push(d),
                    }
                }
            }
            at += seg.len();
        }
        longest_copy_first(&mut runs);
        RowProgram {
            runs,
            constants,
            singles,
        }
    }
}

/// Moves the longest copy to the front: writing it first makes a row read its input
/// from the start, which keeps the hardware prefetcher streaming (wrap padding would
/// otherwise start each row with a read from its end).
pub(crate) fn longest_copy_first(runs: &mut Vec<(usize, Seg)>) {
    let longest = runs
        .iter()
        .enumerate()
        .filter(|(_, (_, s))| matches!(s, Seg::Copy { .. }))
        .max_by_key(|(_, (_, s))| s.len())
        .map(|(k, _)| k);
    if let Some(k) = longest {
        let main = runs.remove(k);
        runs.insert(0, main);
    }
}

/// Writes `out` as `vals` interleaved with `value`, `[v0, value, v1, value, ..]`, or
/// `[value, v0, value, v1, ..]` where `constant_first`: exact pairs (a loop the
/// compiler turns into vector interleaves), then a last data element.
#[inline(always)]
pub(super) fn interleave<T: Elem>(out: &mut [T], vals: &[T], value: &T, constant_first: bool) {
    let out = if constant_first {
        let Some((c, rest)) = out.split_first_mut() else {
            return;
        };
        *c = value.clone();
        rest
    } else {
        out
    };
    let mut pairs = out.chunks_exact_mut(2);
    let mut vals = vals.iter();
    for (pair, v) in (&mut pairs).zip(&mut vals) {
        pair[0] = v.clone();
        pair[1] = value.clone();
    }
    if let (Some(d), Some(v)) = (pairs.into_remainder().first_mut(), vals.next()) {
        *d = v.clone();
    }
}

/// Writes a row's single elements: the constant at `constants`, `src[s]` at `d` for
/// each `(d, s)` of `singles`.
#[inline(always)]
fn write_singles<T: Elem>(
    constants: &[u32],
    singles: &[(u32, u32)],
    src: &[T],
    out: &mut [T],
    value: &T,
) {
    for &d in constants {
        out[d as usize] = value.clone();
    }
    for &(d, s) in singles {
        out[d as usize] = src[s as usize].clone();
    }
}

/// Copies `c` of the row `src` into the row `out` (`stream`: as [`Elem::copy_run`]).
#[inline(always)]
fn copy<T: Elem>(c: RowCopy, src: &[T], out: &mut [T], stream: bool) {
    T::copy_run(
        &mut out[c.at..c.at + c.len],
        &src[c.from..c.from + c.len],
        stream,
    );
}

impl Sandwich {
    /// Writes the row: its copy, then its ends, blended where `kernel` is Blend's
    /// (rows outside the plane loops; the loops blend their own).
    #[inline(always)]
    fn write<T: Elem>(
        &self,
        kernel: &RowKernel,
        src: &[T],
        out: &mut [T],
        value: &T,
        stream: bool,
    ) {
        copy(self.copy, src, out, stream);
        if let RowKernel::Blend(_, e) = kernel {
            if e.write_row(T::as_bytes(src), T::as_bytes_mut(out)) {
                return;
            }
        }
        write_singles(
            &self.constants[..self.nconstants],
            &self.singles[..self.nsingles],
            src,
            out,
            value,
        );
    }
}

impl SinglesRow {
    #[inline(always)]
    fn write<T: Elem>(&self, src: &[T], out: &mut [T], stream: bool) {
        copy(self.copy, src, out, stream);
        write_singles(&[], &self.at, src, out, &src[0]);
    }
}

/// Fills `dst` with copies of `pattern`, starting `phase` elements into it.
fn repeat_pattern<T: Elem>(dst: &mut [T], pattern: &[T], phase: usize, stream: bool) {
    if pattern.len() == 1 {
        T::fill(dst, &pattern[0]);
        return;
    }
    let mut done = 0;
    let mut at = phase;
    while done < dst.len() {
        let take = (pattern.len() - at).min(dst.len() - done);
        T::copy_run(&mut dst[done..done + take], &pattern[at..at + take], stream);
        done += take;
        at = 0;
    }
}

impl<T: Elem> Exec<'_, T> {
    /// Writes a whole output row that reads `src`, as the row kernel does.
    #[inline(always)]
    pub(super) fn write_full_row(&self, src: &[T], out: &mut [T]) {
        match &self.setup.kernel {
            RowKernel::Blend(w, _) | RowKernel::Sandwich(w) => {
                w.write(&self.setup.kernel, src, out, &self.value, self.stream)
            }
            RowKernel::Slice { from } => {
                T::copy_run(out, &src[*from..*from + out.len()], self.stream)
            }
            RowKernel::ConstantEnds(c) => {
                let end = c.at + c.len;
                // Zero ends of a zeroed output are already there.
                let ends = !self.zero_rows_kept;
                if ends {
                    self.fill_run(&mut out[..c.at]);
                }
                copy(*c, src, out, self.stream);
                if ends {
                    self.fill_run(&mut out[end..]);
                }
            }
            RowKernel::Singles(s) => s.write(src, out, self.stream),
            RowKernel::Program(p) => {
                for &(at, seg) in &p.runs {
                    let dst = &mut out[at..at + seg.len()];
                    match seg {
                        Seg::Copy { src: s, len } => {
                            T::copy_run(dst, &src[s..s + len], self.stream)
                        }
                        Seg::Fill { src: None, .. } => self.fill_run(dst),
                        Seg::Fill { src: Some(s), .. } => T::fill(dst, &src[s]),
                        _ => self.write_row_part(src, at, seg, dst),
                    }
                }
                write_singles(&p.constants, &p.singles, src, out, &self.value);
            }
            RowKernel::Narrow(_) | RowKernel::Runs => self.write_row(src, 0, out),
        }
    }

    /// Writes one whole run `seg` that starts at row element `at`.
    fn write_row_part(&self, src: &[T], at: usize, seg: Seg, dst: &mut [T]) {
        match seg {
            Seg::Spread { src: s, gap, .. } => self.write_spread(src, s, gap, 0, dst),
            Seg::Rev { src: s, .. } => self.write_rev(src, s, 0, dst),
            _ => self.write_row(src, at, dst),
        }
    }

    /// Writes elements `at .. at + out.len()` of a [`Seg::Rev`] run whose first unit
    /// reads unit `first` of `src` (the next ones read the units before it).
    fn write_rev(&self, src: &[T], first: usize, at: usize, out: &mut [T]) {
        let unit = self.unit;
        if unit == 1 {
            let hi = first - at;
            let lo = hi + 1 - out.len();
            for (d, s) in out.iter_mut().zip(src[lo..=hi].iter().rev()) {
                *d = s.clone();
            }
            return;
        }
        let mut done = 0;
        while done < out.len() {
            let pos = at + done;
            let (u, within) = (pos / unit, pos % unit);
            let take = (unit - within).min(out.len() - done);
            let from = (first - u) * unit + within;
            T::copy_run(
                &mut out[done..done + take],
                &src[from..from + take],
                self.stream,
            );
            done += take;
        }
    }

    /// Writes elements `at .. at + out.len()` of a [`Seg::Spread`] run whose first unit
    /// reads unit `first` of `src`.
    fn write_spread(&self, src: &[T], first: usize, gap: usize, at: usize, out: &mut [T]) {
        let (unit, step) = (self.unit, gap + 1);
        if unit == 1 {
            // Up to the first data element, then [data, gap constants] chunks.
            let lead = (step - at % step) % step;
            let lead = lead.min(out.len());
            T::fill(&mut out[..lead], &self.value);
            let first = first + at.div_ceil(step);
            if step == 2 {
                // One constant between neighbours (the common case): around the cache,
                // interleaved in registers, where the output goes so.
                let (rest, vals) = (&mut out[lead..], &src[first..]);
                if !(self.stream
                    && std::mem::size_of_val(rest) >= STREAMED_RUN_MIN
                    && T::interleave_around_cache(rest, vals, &self.value))
                {
                    interleave(rest, vals, &self.value, false);
                }
                return;
            }
            let chunks = out[lead..].chunks_mut(step);
            for (chunk, v) in chunks.zip(&src[first..]) {
                if let Some((d, gap)) = chunk.split_first_mut() {
                    *d = v.clone();
                    T::fill(gap, &self.value);
                }
            }
            return;
        }
        let mut done = 0;
        while done < out.len() {
            let pos = at + done;
            let (u, within) = (pos / unit, pos % unit);
            if u % step == 0 {
                // Inside a data unit: copy up to its end.
                let take = (unit - within).min(out.len() - done);
                let from = (first + u / step) * unit + within;
                T::copy_run(
                    &mut out[done..done + take],
                    &src[from..from + take],
                    self.stream,
                );
                done += take;
            } else {
                // Inside a gap: fill up to the next data unit.
                let next = (u / step + 1) * step * unit;
                let take = (next - pos).min(out.len() - done);
                T::fill(&mut out[done..done + take], &self.value);
                done += take;
            }
        }
    }

    /// Writes row elements `col .. col + out.len()` of a row that reads `src`, run by
    /// run.
    pub(super) fn write_row(&self, src: &[T], col: usize, out: &mut [T]) {
        let end = col + out.len();
        for &(pos, seg) in &self.setup.row_segs {
            let seg_end = pos + seg.len() * self.unit;
            let (a, b) = (pos.max(col), seg_end.min(end));
            if a >= b {
                continue;
            }
            let dst = &mut out[a - col..b - col];
            match seg {
                Seg::Copy { src: s, .. } => {
                    let from = s * self.unit + (a - pos);
                    T::copy_run(dst, &src[from..from + (b - a)], self.stream);
                }
                Seg::Spread { src: s, gap, .. } => self.write_spread(src, s, gap, a - pos, dst),
                Seg::Rev { src: s, .. } => self.write_rev(src, s, a - pos, dst),
                Seg::Fill { src: None, .. } => self.fill_run(dst),
                Seg::Fill { src: Some(s), .. } => repeat_pattern(
                    dst,
                    &src[s * self.unit..(s + 1) * self.unit],
                    (a - pos) % self.unit,
                    self.stream,
                ),
            }
        }
    }
}
