//! The input regions that the output's pieces read, fed from the input's chunks
//! ([`Feed`]) within a bounded store.
//!
//! An output chunk (or a piece of one: a chunk whose read would be wider than itself
//! along an axis is split there) reads one box of the input, which overlaps a few
//! input chunks; neighbouring output chunks read the same input chunks. A compressed
//! input chunk can only be decoded whole, so the first piece to need it decodes it,
//! takes its own part, and keeps for the pieces that read it later only *their*
//! parts (for a shift by the pads, thin slabs at the chunk's faces), within a byte
//! budget: a decoded chunk itself is never kept. A piece whose part was not kept
//! (the store was full, or it comes too far ahead in the order of the chunks)
//! decodes the chunk again. An input whose codecs read a part of a chunk without
//! decoding all of it (the `bytes` codec alone) is read part by part, nothing kept.
//!
//! The pieces that read an input chunk are known before any reading: a pad's window
//! is separable by axis (which input coordinates an output range reads along one axis
//! depends on that axis alone), so per axis and per output chunk along it, the pieces
//! and the input range each reads ([`Axes`], cut by [`ndpad::split_axis`]) give, for
//! any input chunk, its readers.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use ndpad::index::{copy_pod_box, extract_box};
use ndpad::{split_axis, Cut, DType, PadError, PadSpec, Piece, Plan, Source};
use zarrs::array::{ArrayBytes, ArraySubset, CodecOptions};

use crate::memory::embed;
use crate::pad::ZarrArray;
use crate::ZarrError;

/// A piece of the output: its chunk's linear index, and its own linear index among
/// that chunk's pieces (C order over the pieces along each axis).
pub(crate) type Reader = (u64, u64);

/// The most readers of one input chunk looked at when its parts are kept (a shift
/// reads each input chunk from 2^rank output chunks; the rest decode it again).
const MAX_READERS: usize = 4096;

/// A piece along one axis: its output range, and the input range it reads.
type AxisPiece = (Range<usize>, Range<usize>);

/// A box (or region) of an array: a range per axis.
pub(crate) type Region = Vec<Range<usize>>;

/// Per axis, the pieces of each output chunk along it and what they read.
pub(crate) struct Axes {
    /// `[axis][output chunk along it]`: its pieces, each an output range and the
    /// input range it reads (empty where it reads nothing).
    pieces: Vec<Vec<Vec<AxisPiece>>>,
    /// `[axis][input chunk along it]`: the (output chunk, piece) along that axis
    /// whose reads overlap it.
    readers: Vec<Vec<Vec<(u64, usize)>>>,
    out_grid: Vec<u64>,
    in_chunk: Vec<u64>,
    in_grid: Vec<u64>,
    shape: Vec<usize>,
    /// Per axis, the extent an output chunk reads of the input chunks the one before
    /// it along the axis read.
    shared: Vec<usize>,
}

impl Axes {
    /// The pieces of the output chunks (of `out_chunk`, a grid of `out_grid` over
    /// `out_shape`) of `spec` padding a `dtype` array of `shape` whose chunks are
    /// `in_chunk` (a grid of `in_grid`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        dtype: DType,
        shape: &[usize],
        spec: &PadSpec,
        out_shape: &[usize],
        out_chunk: &[u64],
        out_grid: &[u64],
        in_chunk: &[u64],
        in_grid: &[u64],
    ) -> Result<Axes, PadError> {
        let rank = shape.len();
        let mut pieces = Vec::with_capacity(rank);
        let mut readers = Vec::with_capacity(rank);
        let empty = out_shape.contains(&0);
        let in_empty = shape.contains(&0);
        if !empty {
            // The pieces depend on the axis maps alone; the windows the pieces plan
            // also check the spec against the type (its constant's): refused here,
            // before any chunk is padded.
            Plan::window(dtype, shape, spec, &vec![0..1; rank], Source::Whole)?;
        }
        for a in 0..rank {
            let mut along = Vec::new();
            // The readers of each input chunk along the axis; none where the input has
            // no elements (its grid's other axes then are not bounded by a count).
            let in_chunks = if in_empty {
                0
            } else {
                usize::try_from(in_grid[a]).unwrap_or(0)
            };
            let mut by_chunk: Vec<Vec<(u64, usize)>> = vec![Vec::new(); in_chunks];
            // No chunks at all where any extent is 0: nothing to plan.
            let chunks = if empty { 0 } else { out_grid[a] };
            for t in 0..chunks {
                let cs = out_chunk[a] as usize;
                let start = t as usize * cs;
                let end = (start + cs).min(out_shape[a]);
                // Pieces reading no wider than the chunk: a chunk whose read would be
                // wider (a wrap across the seam) is split there.
                let split = split_axis(shape, spec, a, start..end, end - start, Cut::Hull)?;
                let mut list = Vec::with_capacity(split.len());
                for (p, Piece { out, reads: read }) in split.into_iter().enumerate() {
                    if !read.is_empty() {
                        let ic = in_chunk[a] as usize;
                        for c in read.start / ic..=(read.end - 1) / ic {
                            if let Some(l) = by_chunk.get_mut(c) {
                                l.push((t, p));
                            }
                        }
                    }
                    list.push((out, read));
                }
                along.push(list);
            }
            pieces.push(along);
            readers.push(by_chunk);
        }
        // Per axis, what an output chunk reads of the input chunks its predecessor
        // along the axis read (a shift by the pads: the pad's width).
        let shared: Vec<usize> = (0..rank)
            .map(|a| {
                let ic = in_chunk[a] as usize;
                let chunks_of = |l: &Vec<AxisPiece>| -> Vec<Range<usize>> {
                    l.iter()
                        .filter(|(_, r)| !r.is_empty())
                        .map(|(_, r)| (r.start / ic) * ic..(r.end - 1) / ic * ic + ic)
                        .collect()
                };
                pieces[a]
                    .windows(2)
                    .map(|w: &[Vec<AxisPiece>]| {
                        let before = chunks_of(&w[0]);
                        let n: usize = w[1]
                            .iter()
                            .flat_map(|(_, r)| {
                                before.iter().map(move |c| {
                                    r.end.min(c.end).saturating_sub(r.start.max(c.start))
                                })
                            })
                            .sum();
                        n.min(ic)
                    })
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        Ok(Axes {
            shared,
            pieces,
            readers,
            out_grid: out_grid.to_vec(),
            in_chunk: in_chunk.to_vec(),
            in_grid: in_grid.to_vec(),
            shape: shape.to_vec(),
        })
    }

    /// The bytes (elements of `width`) of parts kept at once for a shift by the
    /// pads in C order, each input chunk decoded once: along each axis, the slab an
    /// output chunk reads of the input chunks before it, over the extent of the
    /// array on the axes after it and of a chunk on those before it (for the
    /// 7.8 GiB benchmark, 100 + 20 + 4 MiB).
    pub(crate) fn parts_wanted(&self, width: usize) -> u64 {
        (0..self.shape.len())
            .map(|a| {
                (0..self.shape.len()).fold(self.shared[a] as u64 * width as u64, |n, b| {
                    let ext = match b.cmp(&a) {
                        std::cmp::Ordering::Less => (self.in_chunk[b] as usize).min(self.shape[b]),
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Greater => self.shape[b],
                    };
                    n.saturating_mul(ext as u64)
                })
            })
            .fold(0u64, u64::saturating_add)
    }

    /// The output chunk `i`'s index along each axis.
    fn unravel(grid: &[u64], mut i: u64) -> Vec<u64> {
        let mut idx = vec![0; grid.len()];
        for a in (0..grid.len()).rev() {
            let d = grid[a].max(1);
            idx[a] = i % d;
            i /= d;
        }
        idx
    }

    /// The pieces of output chunk `i`, in C order: each its box and the input region
    /// it reads (per axis; an empty range on any axis: it reads nothing).
    pub(crate) fn pieces(&self, i: u64) -> Vec<(Region, Region)> {
        let t = Self::unravel(&self.out_grid, i);
        let lists: Vec<&Vec<AxisPiece>> = t
            .iter()
            .enumerate()
            .map(|(a, &t)| &self.pieces[a][t as usize])
            .collect();
        let lens: Vec<usize> = lists.iter().map(|l| l.len()).collect();
        let mut out = Vec::new();
        ndpad::index::for_each_index(&lens, |pick| {
            let (bx, read) = pick.iter().zip(&lists).map(|(&p, l)| l[p].clone()).unzip();
            out.push((bx, read));
        });
        out
    }

    /// The read region of piece `p` of output chunk `i` (its per-axis pieces `ps`).
    fn read_of(&self, t: &[u64], ps: &[usize]) -> Vec<Range<usize>> {
        t.iter()
            .zip(ps)
            .enumerate()
            .map(|(a, (&t, &p))| self.pieces[a][t as usize][p].1.clone())
            .collect()
    }

    /// The input chunks a region overlaps: each its linear index and grid index.
    pub(crate) fn chunks_of(&self, region: &[Range<usize>]) -> Vec<(u64, Vec<u64>)> {
        if region.iter().any(Range::is_empty) && !region.is_empty() {
            return Vec::new();
        }
        let spans: Vec<Range<u64>> = region
            .iter()
            .zip(&self.in_chunk)
            .map(|(r, &c)| (r.start as u64 / c)..((r.end as u64 - 1) / c + 1))
            .collect();
        let lens: Vec<usize> = spans.iter().map(|s| (s.end - s.start) as usize).collect();
        let mut out = Vec::new();
        ndpad::index::for_each_index(&lens, |i| {
            let idx: Vec<u64> = i
                .iter()
                .zip(&spans)
                .map(|(&i, s)| s.start + i as u64)
                .collect();
            let linear = idx
                .iter()
                .zip(&self.in_grid)
                .fold(0u64, |n, (&i, &g)| n * g + i);
            out.push((linear, idx));
        });
        out
    }

    /// Input chunk `idx`'s box in the array.
    fn chunk_box(&self, idx: &[u64]) -> Vec<Range<usize>> {
        idx.iter()
            .zip(&self.in_chunk)
            .zip(&self.shape)
            .map(|((&i, &c), &n)| {
                let s = (i * c) as usize;
                s..(s + c as usize).min(n)
            })
            .collect()
    }

    /// The readers of input chunk `idx` (at most [`MAX_READERS`]), sorted, each with
    /// the region it reads.
    fn readers_of(&self, idx: &[u64]) -> Vec<(Reader, Vec<Range<usize>>)> {
        let lists: Vec<&Vec<(u64, usize)>> = idx
            .iter()
            .enumerate()
            .map(|(a, &c)| &self.readers[a][c as usize])
            .collect();
        if lists.iter().any(|l| l.is_empty()) {
            return Vec::new();
        }
        let lens: Vec<usize> = lists.iter().map(|l| l.len()).collect();
        let mut out = Vec::new();
        // Stops at MAX_READERS (the `Err` ends the walk; nothing else fails).
        let _ = ndpad::index::try_for_each_index(&lens, |pick| {
            if out.len() >= MAX_READERS {
                return Err(());
            }
            let t: Vec<u64> = pick.iter().zip(&lists).map(|(&p, l)| l[p].0).collect();
            let ps: Vec<usize> = pick.iter().zip(&lists).map(|(&p, l)| l[p].1).collect();
            let chunk = t
                .iter()
                .zip(&self.out_grid)
                .fold(0u64, |n, (&i, &g)| n * g + i);
            let piece = t
                .iter()
                .zip(&ps)
                .enumerate()
                .fold(0u64, |n, (a, (&t, &p))| {
                    n * self.pieces[a][t as usize].len() as u64 + p as u64
                });
            out.push(((chunk, piece), self.read_of(&t, &ps)));
            Ok(())
        });
        out.sort_by_key(|r| r.0);
        out
    }
}

/// A part of a decoded input chunk kept for a piece that reads it later: its box in
/// the array, and its bytes (C order).
struct Part {
    bx: Vec<Range<usize>>,
    bytes: Vec<u8>,
}

/// What the threads share, under one lock.
#[derive(Default)]
struct State {
    /// The next output chunk to start: those before it are started (or done).
    next: u64,
    /// Input chunks being decoded now (their parts not yet all kept).
    busy: HashSet<u64>,
    /// Per input chunk, the started pieces that have not read it yet.
    wanting: HashMap<u64, Vec<Reader>>,
    /// The parts kept, by the piece that will read them and their input chunk.
    parts: HashMap<(Reader, u64), Part>,
    /// Their bytes, now and at most.
    held: u64,
    peak: u64,
    /// Input chunks decoded (counting each decoding again).
    decodes: u64,
}

impl State {
    fn unwant(&mut self, c: u64, r: Reader) {
        if let Some(w) = self.wanting.get_mut(&c) {
            w.retain(|x| *x != r);
            if w.is_empty() {
                self.wanting.remove(&c);
            }
        }
    }
}

/// An output chunk started: the (piece, input chunk) pairs it registered.
pub(crate) struct Started {
    pub(crate) chunk: u64,
    registered: Vec<(Reader, u64)>,
}

/// Feeds the pieces of the output their input regions (see the module's text).
pub(crate) struct Feed<'a> {
    input: &'a ZarrArray,
    axes: &'a Axes,
    width: usize,
    /// Parts are read without decoding whole chunks: nothing is kept.
    partial: bool,
    /// The most bytes of parts kept.
    budget: u64,
    /// Parts are kept for pieces at most this many output chunks ahead of the next
    /// to start (and for the started ones).
    horizon: u64,
    count: u64,
    state: Mutex<State>,
    done: Condvar,
}

/// Clears an input chunk's busy mark when its decoder is done (also on an error).
struct Busy<'f, 'a> {
    feed: &'f Feed<'a>,
    chunk: u64,
}

impl Drop for Busy<'_, '_> {
    fn drop(&mut self) {
        self.feed.lock().busy.remove(&self.chunk);
        self.feed.done.notify_all();
    }
}

impl<'a> Feed<'a> {
    /// A feed of `input` (elements of `width` bytes) for the `count` output chunks of
    /// `axes`, keeping at most `budget` bytes of parts for pieces at most `horizon`
    /// chunks ahead; `partial`: read parts of chunks directly.
    pub(crate) fn new(
        input: &'a ZarrArray,
        axes: &'a Axes,
        width: usize,
        partial: bool,
        budget: u64,
        horizon: u64,
        count: u64,
    ) -> Feed<'a> {
        Feed {
            input,
            axes,
            width,
            partial,
            budget,
            horizon,
            count,
            state: Mutex::new(State::default()),
            done: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A thread that panicked left no invariant half-made that matters here.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next output chunk, registered as wanting the input chunks its pieces
    /// read; `None` when all are started.
    pub(crate) fn start(&self) -> Option<Started> {
        let mut st = self.lock();
        if st.next >= self.count {
            return None;
        }
        let chunk = st.next;
        st.next += 1;
        let mut registered = Vec::new();
        if !self.partial {
            for (p, (_, read)) in self.axes.pieces(chunk).into_iter().enumerate() {
                for (c, _) in self.axes.chunks_of(&read) {
                    let r = (chunk, p as u64);
                    st.wanting.entry(c).or_default().push(r);
                    registered.push((r, c));
                }
            }
        }
        Some(Started { chunk, registered })
    }

    /// Done with an output chunk (or stopped): what it registered is dropped, and
    /// any part kept for it that it did not read.
    pub(crate) fn finish(&self, s: Started) {
        let mut st = self.lock();
        for (r, c) in s.registered {
            st.unwant(c, r);
            if let Some(p) = st.parts.remove(&(r, c)) {
                st.held -= p.bytes.len() as u64;
            }
        }
    }

    /// The input chunks decoded, and the most bytes of parts kept at once.
    pub(crate) fn stats(&self) -> (u64, u64) {
        let st = self.lock();
        (st.decodes, st.peak)
    }

    /// Fills `buf` (C order, of `region`'s shape) with the input region `region`
    /// that piece `r` reads.
    pub(crate) fn read(
        &self,
        r: Reader,
        region: &[Range<usize>],
        buf: &mut [u8],
    ) -> Result<(), ZarrError> {
        let region_shape: Vec<usize> = region.iter().map(Range::len).collect();
        let read_err = |source| ZarrError::ReadRegion {
            region: region.to_vec(),
            source,
        };
        'chunks: for (c, idx) in self.axes.chunks_of(region) {
            let cbox = self.axes.chunk_box(&idx);
            let bx: Vec<Range<usize>> = region
                .iter()
                .zip(&cbox)
                .map(|(a, b)| a.start.max(b.start)..a.end.min(b.end))
                .collect();
            let at: Vec<usize> = bx
                .iter()
                .zip(region)
                .map(|(b, r)| b.start - r.start)
                .collect();
            let bx_shape: Vec<usize> = bx.iter().map(Range::len).collect();
            if self.partial {
                let within: Vec<Range<u64>> = bx
                    .iter()
                    .zip(&cbox)
                    .map(|(b, c)| (b.start - c.start) as u64..(b.end - c.start) as u64)
                    .collect();
                let bytes: ArrayBytes<'static> = self
                    .input
                    .array()
                    .retrieve_chunk_subset_opt(
                        &idx,
                        &ArraySubset::new_with_ranges(&within),
                        &CodecOptions::default(),
                    )
                    .map_err(|e| read_err(Box::new(e)))?;
                let bytes = bytes.into_fixed().map_err(|e| read_err(Box::new(e)))?;
                self.check_len(bytes.len(), &bx_shape, region)?;
                embed(buf, &region_shape, &bytes, &bx_shape, &at, self.width)
                    .map_err(|e| read_err(Box::new(e)))?;
                continue;
            }
            let mut st = self.lock();
            loop {
                if let Some(p) = st.parts.remove(&(r, c)) {
                    st.held -= p.bytes.len() as u64;
                    if p.bx == bx {
                        st.unwant(c, r);
                        drop(st);
                        embed(buf, &region_shape, &p.bytes, &bx_shape, &at, self.width)
                            .map_err(|e| read_err(Box::new(e)))?;
                        continue 'chunks;
                    }
                    // Kept for another box (never, when the axes agree with the
                    // windows): decoded again below.
                }
                if !st.busy.contains(&c) {
                    break;
                }
                st = self.done.wait(st).unwrap_or_else(PoisonError::into_inner);
            }
            st.busy.insert(c);
            st.unwant(c, r);
            st.decodes += 1;
            drop(st);
            let busy = Busy {
                feed: self,
                chunk: c,
            };
            let array = self.input.array();
            let decoded: ArrayBytes<'static> = array
                .retrieve_chunk_opt(&idx, &CodecOptions::default())
                .map_err(|e| read_err(Box::new(e)))?;
            let decoded = decoded.into_fixed().map_err(|e| read_err(Box::new(e)))?;
            let full: Vec<usize> = self.axes.in_chunk.iter().map(|&n| n as usize).collect();
            self.check_len(decoded.len(), &full, region)?;
            let origin: Vec<usize> = cbox.iter().map(|b| b.start).collect();
            let within = |b: &[Range<usize>]| -> Vec<Range<usize>> {
                b.iter()
                    .zip(&origin)
                    .map(|(b, o)| b.start - o..b.end - o)
                    .collect()
            };
            copy_pod_box(
                buf,
                &region_shape,
                &at,
                &decoded,
                &full,
                &within(&bx),
                self.width,
            )
            .map_err(|e| read_err(Box::new(e)))?;
            self.keep(r, c, &idx, &cbox, &decoded, &full, &within);
            drop(busy);
        }
        Ok(())
    }

    /// Refuses a decoded chunk (or part) whose length is not its shape's (zarrs
    /// checks this; never trusted here, as embed slices by it).
    fn check_len(
        &self,
        len: usize,
        shape: &[usize],
        region: &[Range<usize>],
    ) -> Result<(), ZarrError> {
        let want = shape.iter().product::<usize>() * self.width;
        if len == want {
            return Ok(());
        }
        Err(ZarrError::ReadRegion {
            region: region.to_vec(),
            source: format!("an input chunk decoded to {len} bytes, not the {want} of {shape:?}")
                .into(),
        })
    }

    /// Keeps, from input chunk `c` (grid index `idx`, box `cbox`, decoded as
    /// `decoded` of shape `full`), the parts its later readers (other than `r`) read,
    /// nearest first, while the budget holds them.
    #[allow(clippy::too_many_arguments)]
    fn keep(
        &self,
        r: Reader,
        c: u64,
        idx: &[u64],
        cbox: &[Range<usize>],
        decoded: &[u8],
        full: &[usize],
        within: &dyn Fn(&[Range<usize>]) -> Region,
    ) {
        let readers = self.axes.readers_of(idx);
        let wanted: Vec<(Reader, Vec<Range<usize>>)> = {
            let st = self.lock();
            let waiting = st.wanting.get(&c);
            readers
                .into_iter()
                .filter(|(z, _)| {
                    *z != r
                        && !st.parts.contains_key(&(*z, c))
                        && ((z.0 >= st.next && z.0 - st.next < self.horizon)
                            || waiting.is_some_and(|w| w.contains(z)))
                })
                .collect()
        };
        for (z, read) in wanted {
            let bx: Vec<Range<usize>> = read
                .iter()
                .zip(cbox)
                .map(|(a, b)| a.start.max(b.start)..a.end.min(b.end))
                .collect();
            if bx.iter().any(Range::is_empty) && !bx.is_empty() {
                continue;
            }
            let size = bx.iter().map(Range::len).product::<usize>() as u64 * self.width as u64;
            {
                let mut st = self.lock();
                if st.held + size > self.budget {
                    continue;
                }
                st.held += size;
                st.peak = st.peak.max(st.held);
            }
            let Ok(bytes) = extract_box(decoded, full, &within(&bx), self.width) else {
                // Never, for a box inside the chunk: nothing kept then.
                self.lock().held -= size;
                continue;
            };
            self.lock().parts.insert((z, c), Part { bx, bytes });
        }
    }
}
