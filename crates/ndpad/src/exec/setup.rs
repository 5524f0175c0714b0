//! What an executor is made of besides its input ([`Setup`]): the row kernel and what
//! the plane loops, the tiny planes and the narrow rows need, made from the plan; a
//! small plan keeps its setup between runs ([`kept`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crate::arch::{Cpu, WriteAhead};
use crate::options::KernelName;
use crate::plan::{Plan, Seg};
use crate::tune::{
    KEEP_ROW_MAX, KEEP_SETUP_MAX, NARROW_ROW_BYTES, PLANE_MAX_ROWS, PLANE_MIN_BYTES, PLANE_ROW_MAX,
    TINY_ONE_PLANE_ROW_MAX, TINY_PLANE_MAX, TINY_STREAM_MIN, TINY_TABLE_GRAINS_A_RUN,
    WRITE_AHEAD_NARROW_MIN,
};

use super::plane_loops::RowMap;
use super::program::longest_copy_first;
use super::row_kernel::{choose, RowKernel, Rows, Shuffle};
use super::tiny::Tiny;
use super::walker::{self, Walker};

/// Whole planes: the innermost outer axis's source row for each of its output
/// coordinates ([`RowMap::CONSTANT`] for a constant row), so that its output rows are
/// written a plane (one pass of that axis) at a time where a plane lies in a thread's
/// part ([`Exec::write_plane`](super::Exec)). Empty for outputs under
/// [`PLANE_MIN_BYTES`] on a plan's first run ([`Runs::Once`]), narrow rows, planes of
/// more than [`PLANE_MAX_ROWS`] rows, and a single plane of rows that the plane loops
/// cannot write.
pub(super) struct Planes {
    pub(super) map: RowMap,
    /// A whole output row of the constant, in bytes, where the plane loops write the
    /// rows ([`RowKernel::plane_row`]).
    pub(super) constant_row: Option<Vec<u8>>,
    /// Whole planes written by permutes from a table (several at once where runs of
    /// them make a group), where they are tiny.
    pub(super) tiny: Option<Tiny>,
}

/// How an executor writes a plan's rows, for an element of `size` bytes, `unit` to a
/// row unit.
pub(super) struct Setup {
    pub(super) kernel: RowKernel,
    pub(super) planes: Planes,
    /// The row axis's segments with their first element, the longest copy first:
    /// reading the input row from its start keeps the hardware prefetcher streaming.
    pub(super) row_segs: Vec<(usize, Seg)>,
    /// Narrow rows of consecutive input rows written several a shuffle, where they
    /// can be.
    pub(super) shuffle: Option<Shuffle>,
    /// Rows of single elements (the Program kernel with no run) of at most
    /// [`NARROW_ROW_BYTES`], written batch by batch through an element map.
    pub(super) singles: bool,
    /// The CPU's [`WriteAhead`] for the narrow rows' stores through the cache, in
    /// outputs of at least [`WRITE_AHEAD_NARROW_MIN`] bytes.
    pub(super) narrow_ahead: Option<WriteAhead>,
    /// Elements of an input row and of an output row.
    pub(super) rows: (usize, usize),
    /// What it was made for: `unit` and `size`, and the constant's bytes.
    made_for: MadeFor,
    /// The runs a kept plan makes with its first run's setup before it makes its
    /// repeated one: one for every [`TINY_TABLE_GRAINS_A_RUN`] entries of the tiny
    /// planes' tables (a plane's and a group's) that one would make, so that a few
    /// runs do not pay for a table only many repay.
    repeat_after: usize,
}

/// What a [`Setup`] depends on besides the plan and the CPU: an element of `size`
/// bytes, `unit` to a row unit, and the constant's bytes.
#[derive(Clone, PartialEq)]
pub(super) struct MadeFor {
    pub(super) unit: usize,
    pub(super) size: usize,
    pub(super) value: Option<Vec<u8>>,
}

impl Setup {
    /// The setup of `plan` walked by `walk`, `unit` elements of `size` bytes to a row
    /// unit, `value_bytes` the constant's bytes (for byte representations), `force`
    /// the row kernel named ([`crate::PadOptions::kernel`]), for `runs`.
    pub(super) fn new(
        plan: &Plan,
        walk: &Walker<'_>,
        (unit, size): (usize, usize),
        value_bytes: Option<&[u8]>,
        force: Option<KernelName>,
        runs: Runs,
    ) -> Setup {
        let cpu = Cpu::get();
        let (segs, in_units, out_units): (&[Seg], usize, usize) = match plan.row_axis {
            Some(r) => (&plan.axes[r].segs, plan.axes[r].dim, plan.axes[r].map.n),
            None => (&[Seg::Copy { src: 0, len: 1 }], 1, 1),
        };
        // Whole planes where the output is large, the setup serves repeated runs (or a
        // kernel is forced), and planes are not too tall.
        let large =
            force.is_some() || runs == Runs::Repeated || plan.output_bytes() >= PLANE_MIN_BYTES;
        let plane_axis = walk.plane_axis().filter(|o| large && o.n <= PLANE_MAX_ROWS);
        let rows = Rows {
            segs,
            unit,
            size,
            in_units,
            out_units,
            value: value_bytes,
            planes: plane_axis.is_some(),
            cpu,
        };
        let kernel = choose(&rows, force);
        let narrow_ahead = cpu
            .write_ahead()
            .filter(|_| plan.output_bytes() >= WRITE_AHEAD_NARROW_MIN);
        // Rows of at most 16 bytes take a shuffle (one or more rows a store), but
        // narrow constant rows that fill their window (one store each already), and
        // narrower ones where it writes only one at once.
        let shuffle = match (value_bytes, force, &kernel) {
            (_, _, RowKernel::Narrow(w)) if w.row == w.width => None,
            (Some(v), None, k) => Shuffle::new(
                segs,
                (in_units, out_units),
                (unit, rows.size),
                v,
                cpu,
                narrow_ahead,
            )
            .filter(|s| s.rows >= 2 || !matches!(k, RowKernel::Narrow(_))),
            _ => None,
        };
        // Narrow rows go batch by batch: those of the narrow kernel, of a shuffle, and
        // of single elements ([`Exec::write_batch`]'s element map).
        let row_bytes = out_units * unit * rows.size;
        let singles = matches!(&kernel, RowKernel::Program(p) if p.runs.is_empty())
            && row_bytes <= NARROW_ROW_BYTES;
        let batched = matches!(kernel, RowKernel::Narrow(_)) || shuffle.is_some() || singles;
        let planes = rows.planes && !batched;
        let copies = kernel.plane_row(out_units * unit).is_some() && row_bytes <= PLANE_ROW_MAX;
        // Rows the plane loops cannot write still go plane by plane where there are
        // several planes (to prefetch across them); a single plane of such rows ran
        // faster batch by batch.
        // Tiny planes: whole, by permutes of words or shuffles of bytes (not where a
        // row kernel is named: the tests of the row kernels).
        // (The plane's size first: a tall plane's row map alone took 1 ms, [N,7]'s.)
        // A single plane (no run of planes to take at once) only of short rows.
        let small = |o: &&walker::Outer<'_>| {
            let one = walk.rows() <= o.n;
            o.n.saturating_mul(row_bytes) <= TINY_PLANE_MAX
                && (!one || row_bytes <= TINY_ONE_PLANE_ROW_MAX)
        };
        // The plane axis a table would write, and the constant's bytes, whether this
        // setup makes one (whole planes) or not.
        let tables = walk
            .plane_axis()
            .filter(|o| force.is_none() && o.n <= PLANE_MAX_ROWS)
            .filter(small)
            .zip(value_bytes);
        // The runs a kept plan waits for its tiny tables (a plane's and a group's).
        let repeat_after = match tables {
            Some((o, v)) if cpu.avx2().is_some() => {
                let most = walk.plane_step().map_or(0, |(_, most)| most);
                Tiny::grains(o.n * row_bytes, v.len(), most) / TINY_TABLE_GRAINS_A_RUN
            }
            _ => 0,
        };
        let tiny = match tables {
            Some((o, v)) if plane_axis.is_some() => row_map(o.segs, o.n).and_then(|map| {
                let size = rows.size;
                let row = (segs, unit * size, in_units * unit * size);
                let around = plan.output_bytes() >= TINY_STREAM_MIN;
                let above = walk.plane_step();
                let tiny = Tiny::new(cpu, &map, row, (o.stride, size), above, v, around);
                tiny.map(|t| (map, t))
            }),
            _ => None,
        };
        let (map, tiny) = match tiny {
            Some((map, t)) => (Some(map), Some(t)),
            None => match plane_axis {
                Some(o) if planes && (copies || walk.outer.len() > 1) => {
                    (row_map(o.segs, o.n), None)
                }
                _ => (None, None),
            },
        };
        let map = RowMap::new(map.unwrap_or_default());
        let constant_row = match value_bytes {
            // `repeat` copies in doubling blocks: a 2.8 MB row built byte by byte
            // took longer than the pad.
            Some(v) if copies && tiny.is_none() && !map.rows().is_empty() => {
                Some(v.repeat(out_units * unit))
            }
            _ => None,
        };
        let mut row_segs = Vec::with_capacity(segs.len());
        let mut pos = 0;
        for &seg in segs {
            row_segs.push((pos, seg));
            pos += seg.len() * unit;
        }
        longest_copy_first(&mut row_segs);
        Setup {
            kernel,
            planes: Planes {
                map,
                constant_row,
                tiny,
            },
            row_segs,
            shuffle,
            singles,
            narrow_ahead,
            rows: (in_units * unit, out_units * unit),
            made_for: MadeFor {
                unit,
                size,
                value: value_bytes.map(<[u8]>::to_vec),
            },
            repeat_after,
        }
    }
}

/// The runs a [`Setup`] is made for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Runs {
    /// One: a plan's first run, or a run whose setup is not kept. Small outputs go row
    /// by row: whole planes' row map and tables cost more to make than they save once.
    Once,
    /// The runs of a small plan from its second on (its setup kept; from a later one
    /// where it would make a large tiny table: [`TINY_TABLE_GRAINS_A_RUN`]): whole
    /// planes and tables wherever they pay, made once.
    Repeated,
}

/// What a small plan keeps of its runs: what its first run's setup was made for, the
/// runs it waits before its repeated setup and those it made since the first, and the
/// repeated setup (for [`Runs::Repeated`]), which the runs after take.
struct KeptSetup {
    first: MadeFor,
    repeat_after: usize,
    runs: AtomicUsize,
    repeated: OnceLock<Arc<Setup>>,
}

/// The [`Setup`] of `plan` for `unit` elements of `size` bytes and the constant
/// `value`: `make`'s for one run where the plan is large or runs for the first time
/// (then noting what it was made for, where its output is under [`KEEP_SETUP_MAX`]
/// bytes and its rows at most [`KEEP_ROW_MAX`]); from its second run for the same
/// (or a later one: [`Setup::repeat_after`]), `make`'s for repeated runs, made once
/// and kept (making a setup, the kernel's choice, the row map, a tiny plane's table,
/// is much of a small pad's time).
pub(super) fn kept(
    plan: &Plan,
    (unit, size, value): (usize, usize, Option<&[u8]>),
    make: impl FnOnce(Runs) -> Setup,
) -> Arc<Setup> {
    let same = |m: &MadeFor| (m.unit, m.size, m.value.as_deref()) == (unit, size, value);
    match plan.kept.get().map(|k| k.downcast_ref::<KeptSetup>()) {
        Some(Some(k)) => match k.repeated.get() {
            Some(s) if same(&s.made_for) => Arc::clone(s),
            None if same(&k.first) && k.runs.fetch_add(1, Ordering::Relaxed) >= k.repeat_after => {
                let s = Arc::new(make(Runs::Repeated));
                // Another thread's, where it made one meanwhile, serves as well.
                let _ = k.repeated.set(Arc::clone(&s));
                s
            }
            _ => Arc::new(make(Runs::Once)),
        },
        Some(None) => Arc::new(make(Runs::Once)),
        None => {
            let s = make(Runs::Once);
            if plan.output_bytes() < KEEP_SETUP_MAX && s.rows.1.saturating_mul(size) <= KEEP_ROW_MAX
            {
                let k = KeptSetup {
                    first: s.made_for.clone(),
                    repeat_after: s.repeat_after,
                    runs: AtomicUsize::new(0),
                    repeated: OnceLock::new(),
                };
                plan.kept.keep(Arc::new(k));
            }
            Arc::new(s)
        }
    }
}

/// The source row of each of an axis's `n` output coordinates ([`RowMap::CONSTANT`]
/// for the constant), one segment at a time; `None` where a source row does not fit
/// below [`RowMap::CONSTANT`].
pub(super) fn row_map(segs: &[Seg], n: usize) -> Option<Vec<u32>> {
    let mut rows = Vec::with_capacity(n);
    for seg in segs {
        let Some((first, last)) = seg_ends(seg) else {
            rows.extend(std::iter::repeat_n(RowMap::CONSTANT, seg.len()));
            continue;
        };
        if first.max(last) >= RowMap::CONSTANT as usize {
            return None;
        }
        rows.extend((0..seg.len()).map(|k| seg.src_at(k).map_or(RowMap::CONSTANT, |s| s as u32)));
    }
    Some(rows)
}

/// The first and last input coordinates a run reads, or `None` for the constant.
fn seg_ends(seg: &Seg) -> Option<(usize, usize)> {
    let last = seg.len().checked_sub(1)?;
    match *seg {
        Seg::Copy { src, .. } => Some((src, src + last)),
        Seg::Rev { src, .. } => Some((src, src.saturating_sub(last))),
        Seg::Spread { src, gap, .. } => Some((src, src + last / (gap + 1))),
        Seg::Fill { src, .. } => src.map(|s| (s, s)),
    }
}
