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
//! [`Outcome::Declined`]; they may have written part of the pad areas by then, never the
//! input area, so the caller can redo the pads its own way on the same buffer.
//!
//! Each takes an [`ndpad::Interrupt`], asked on the calling thread about every 16 MiB
//! of work ([`ndpad::Ticker`]; between parts where threads share the work): when it
//! says stop, the function returns [`StatsError::Interrupted`], the output partly
//! written.

mod bytes;
mod elem;
mod geometry;
mod ramp;
mod reduce;
#[cfg(test)]
mod tests;

/// Pads of less work (bytes of output, and [`LINE_WORK`] a line) are done by the
/// calling thread alone: on the 2-core Intel VM two threads ran i16 [500,600] and u8
/// [512,1024] linear_ramp and maximum 1.3-1.8x slower (their mean even), f32
/// [700,800] and larger 1.1-1.2x faster.
const PARALLEL_MIN_WORK: usize = 1 << 20;

/// A line's own work (its statistic or ramp set up, its pads written) as bytes of
/// output: u8 [256,256,3] linear_ramp pad 3, 69k lines of 9 bytes, ran 1.15x faster
/// on two threads, though its output is 0.6 MB.
const LINE_WORK: usize = 256;

/// Whether a pad of `out` (its lines `dim` elements long) is shared by threads.
fn shared<T>(out: &[T], dim: usize) -> bool {
    let lines = out.len().checked_div(dim).unwrap_or(0);
    let work = lines.saturating_mul(LINE_WORK);
    std::mem::size_of_val(out).saturating_add(work) >= PARALLEL_MIN_WORK
}

pub use bytes::{fill_ramp_bytes, fill_stat_bytes, pad_ramp_bytes, pad_stat_bytes};
pub use elem::{Acc, Comp, Elem};
pub use ramp::{fill_ramp, pad_ramp};
pub use reduce::{fill_stat, pad_stat};

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

/// How a fill or pad of this module ended: done, or declined (the caller then pads
/// the areas its own way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every pad area holds numpy's values.
    Done,
    /// Not computed here (the reason); the pad areas may be partly written.
    Declined(&'static str),
}

/// Arguments that do not describe a padded buffer, or a pad stopped by its interrupt.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StatsError {
    /// The shapes, pads, lengths or buffer do not fit together.
    #[error("statistic pad: {0}")]
    Shape(String),
    /// The interrupt asked to stop ([`ndpad::Interrupt`]): the output is partly
    /// written.
    #[error("statistic pad: interrupted")]
    Interrupted,
}

/// Why a walk over the buffer stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// numpy's result is not computed here (the reason).
    Declined(&'static str),
    /// The interrupt asked to stop.
    Interrupted,
}

impl From<&'static str> for Stop {
    fn from(why: &'static str) -> Stop {
        Stop::Declined(why)
    }
}

type Step<T> = Result<T, Stop>;

/// The outcome of a walk that ended with `step`.
fn outcome(step: Step<()>) -> Result<Outcome, StatsError> {
    match step {
        Ok(()) => Ok(Outcome::Done),
        Err(Stop::Declined(why)) => Ok(Outcome::Declined(why)),
        Err(Stop::Interrupted) => Err(StatsError::Interrupted),
    }
}

/// The shape, pads and per-axis arguments (`per_axis`: stat lengths or end values)
/// without the axes that can be left out: those of one element left unpadded, whose
/// statistic (numpy's too) is that element and is written nowhere, unless `keep`
/// says it stays (a stat length of 0 asks numpy for an error or a warning there).
/// Such an axis changes neither the layout nor a value, but a trailing one made every
/// line a line of one element: [h, w, 1] ran 20-40x slower than [h, w]. `None` where
/// no axis goes, and where the arguments are not one an axis (the full path reports
/// that); one axis at least stays.
type Squeezed<A> = (Vec<usize>, Vec<(usize, usize)>, Vec<A>);
fn squeezed<A: Copy>(
    shape: &[usize],
    pads: &[(usize, usize)],
    per_axis: &[A],
    keep: impl Fn(&A) -> bool,
) -> Option<Squeezed<A>> {
    let d = shape.len();
    if pads.len() != d || per_axis.len() != d {
        return None;
    }
    let alone = |k: usize| shape[k] == 1 && pads[k] == (0, 0) && !keep(&per_axis[k]);
    if !(0..d).any(alone) {
        return None;
    }
    let mut stay: Vec<usize> = (0..d).filter(|&k| !alone(k)).collect();
    if stay.is_empty() {
        stay.push(d - 1);
    }
    if stay.len() == d {
        return None;
    }
    Some((pick(shape, &stay), pick(pads, &stay), pick(per_axis, &stay)))
}

/// The entries of `v` at the axes `stay`.
fn pick<T: Copy>(v: &[T], stay: &[usize]) -> Vec<T> {
    stay.iter().map(|&k| v[k]).collect()
}

/// `bytes` more of work: [`Stop::Interrupted`] where the ticker's interrupt says so.
fn tick(ticker: &mut ndpad::Ticker<'_>, bytes: usize) -> Step<()> {
    ticker.tick(bytes).map_err(|_| Stop::Interrupted)
}
