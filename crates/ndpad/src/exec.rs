//! The CPU executor of a [`Plan`]: copies runs of units, fills constants, splits the
//! output among threads. Generic over the element representation (`[u8; N]` for
//! fixed-width types, `String`), chosen once per call, never per element.

use rayon::prelude::*;

use crate::dtype::Layout;
use crate::error::PadError;
use crate::plan::{Plan, Seg};
use crate::sys::{Edges, RowMap, Stage};
use crate::tensor::{Data, DataMut};

/// How the kernel runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadOptions {
    /// Threads to use: 0 = all of rayon's, 1 = the calling thread only (at most 1024).
    pub threads: usize,
    /// Outputs smaller than this many bytes are written by the calling thread alone.
    pub parallel_threshold: usize,
    /// Refuse to allocate an output larger than this many bytes (counting a string
    /// element as its `String` header plus its text).
    pub max_output_bytes: Option<u64>,
    /// Outputs of at least this many bytes are written around the cache where their
    /// rows are one copy each (a crop), or one copy between a few single elements or
    /// runs of the constant (non-temporal stores, on x86_64 CPUs with AVX2): the
    /// output's lines are not read into the cache before being written, which saves
    /// a third of the memory traffic, but the output is not in the cache afterwards.
    /// The default, 16 MiB, is about where an output no longer fits a last-level
    /// cache's share; `usize::MAX` never streams padded rows (runs of 16 MiB or
    /// more, as in padding the first axis, are always copied so).
    pub stream_min_bytes: usize,
}

impl Default for PadOptions {
    fn default() -> Self {
        PadOptions {
            threads: 0,
            parallel_threshold: 1 << 20,
            max_output_bytes: None,
            stream_min_bytes: crate::sys::STREAM_MIN,
        }
    }
}

impl PadOptions {
    /// One thread, no limit.
    pub fn single_threaded() -> Self {
        PadOptions {
            threads: 1,
            ..PadOptions::default()
        }
    }
}

/// Operations the executor needs from an element representation.
pub(crate) trait Elem: Clone + Send + Sync {
    fn copy_run(dst: &mut [Self], src: &[Self]);
    fn fill(dst: &mut [Self], v: &Self);
    /// Writes up to `rows` whole output rows into `dst` through a fixed-width window
    /// (see [`Window`]), row `k` reading the input row at `first + k * stride`; stops
    /// at the first row whose window would reach outside `src`, and returns how many
    /// rows it wrote. `stream`: the rows go around the cache where they can
    /// ([`crate::sys::store_around_cache`]).
    fn window_rows(
        _w: &Window,
        _src: &[Self],
        _first: usize,
        _stride: usize,
        _dst: &mut [Self],
        _rows: usize,
        _stream: bool,
    ) -> usize {
        0
    }
    /// Writes rows of a plane of `x` ([`Exec::write_plane`]) through
    /// [`crate::sys::copy_plane`]: where each row is one copy (a crop), or one copy
    /// between single elements that [`Edges`] writes or runs of the constant; or
    /// through [`crate::sys::copy_plane_picks`] where it is one copy between single
    /// elements listed in [`Exec::picks`]; `false`, having written nothing, where it
    /// cannot. `ahead`: input lines of the next plane to prefetch meanwhile
    /// ([`crate::sys::CopyPlane::ahead`]).
    fn copy_plane(
        _x: &Exec<'_, Self>,
        _base: usize,
        _stride: usize,
        _rows: std::ops::Range<usize>,
        _ahead: &[usize],
        _stage: Option<&mut Stage>,
        _dst: &mut [Self],
    ) -> bool {
        false
    }
}

/// Narrow constant-padded rows (`[c; lo] data [c; hi]` of exactly 8, 16, 32 or 64
/// bytes) written with fixed-width vector operations instead of a gather or memcpy
/// calls: a `width`-byte window is read from the input starting `lo` bytes before the
/// row's data (reading a little of the neighbouring rows, never writing them), the
/// constant is blended in where there is no data, and the window is stored as the
/// output row.
pub(crate) struct Window {
    width: usize,
    /// Byte offset, within an input row, where the window starts (may be "negative":
    /// stored as the amount to subtract).
    back: usize,
    /// Byte offset, within an input row, of the data's first byte.
    data: usize,
    /// 0xFF where the window holds data, 0 where it holds the constant.
    mask: [u8; 64],
    /// The constant where the window holds no data, 0 elsewhere.
    fill: [u8; 64],
}

/// [`Elem::window_rows`] for windows of `W` bytes, on bytes: one bounds check for the
/// batch, then a loop of `W`-byte loads, blends and stores (around the cache with
/// `stream`).
#[inline(always)]
fn window_rows_fixed<const W: usize>(
    w: &Window,
    src: &[u8],
    (first, stride): (usize, usize),
    dst: &mut [u8],
    rows: usize,
    stream: bool,
) -> usize {
    let Some(start) = (first + w.data).checked_sub(w.back) else {
        return 0;
    };
    let Some(room) = src.len().checked_sub(start + W) else {
        return 0;
    };
    // Rows whose whole window lies inside `src` (all of them when the stride is 0).
    let fit = match room.checked_div(stride) {
        Some(q) => q.saturating_add(1),
        None => rows,
    };
    let n = fit.min(rows).min(dst.len() / W);
    let (mut mask, mut fill) = ([0u8; W], [0u8; W]);
    mask.copy_from_slice(&w.mask[..W]);
    fill.copy_from_slice(&w.fill[..W]);
    let src = &src[start..];
    let mut at = 0;
    for d in dst[..n * W].chunks_exact_mut(W) {
        let s = &src[at..at + W];
        at += stride;
        let mut o = [0u8; W];
        for i in 0..W {
            o[i] = (s[i] & mask[i]) | fill[i];
        }
        match stream {
            true => crate::sys::store_around_cache(d, &o),
            false => d.copy_from_slice(&o),
        }
    }
    n
}

/// Runs of bytes from 64 up to (not including) this many are copied by an inlined
/// loop of 64-byte moves rather than a `memcpy` call.
const INLINE_COPY_MAX: usize = 8192;

/// Copies `src` into `dst` (of the same length). Runs of 64 bytes to
/// [`INLINE_COPY_MAX`] go through inlined 64-byte moves ([`crate::sys::copy_moves`]):
/// on row-by-row padding, a `memcpy` call per row ran at 0.70-0.93x a plain copy of the
/// same bytes (varying with code placement), inlined moves at 0.92-0.98x. Longer runs
/// keep `memcpy`, whose string-move path is faster there, up to
/// [`crate::sys::STREAM_MIN`] bytes; runs at least that long are written around the
/// cache ([`crate::sys::stream_copy`]).
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = dst.len();
    if (64..INLINE_COPY_MAX).contains(&n) && crate::sys::copy_moves(dst, src) {
        return;
    }
    // The length test stays here, inlined, so that short runs make no call.
    if n < crate::sys::STREAM_MIN || !crate::sys::stream_copy(dst, src) {
        dst.copy_from_slice(src);
    }
}

impl<const N: usize> Elem for [u8; N] {
    #[inline]
    fn copy_run(dst: &mut [Self], src: &[Self]) {
        if dst.len() <= 2 {
            // Single elements (reflect / symmetric pads) without a memcpy call.
            dst.iter_mut().zip(src).for_each(|(d, s)| *d = *s);
        } else {
            copy_bytes(bytemuck::cast_slice_mut(dst), bytemuck::cast_slice(src));
        }
    }

    #[inline]
    fn window_rows(
        w: &Window,
        src: &[Self],
        first: usize,
        stride: usize,
        dst: &mut [Self],
        rows: usize,
        stream: bool,
    ) -> usize {
        let (src, dst): (&[u8], &mut [u8]) =
            (bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst));
        let at = (first * N, stride * N);
        match w.width {
            8 => window_rows_fixed::<8>(w, src, at, dst, rows, stream),
            16 => window_rows_fixed::<16>(w, src, at, dst, rows, stream),
            32 => window_rows_fixed::<32>(w, src, at, dst, rows, stream),
            _ => window_rows_fixed::<64>(w, src, at, dst, rows, stream),
        }
    }

    #[inline(always)]
    fn copy_plane(
        x: &Exec<'_, Self>,
        base: usize,
        stride: usize,
        rows: std::ops::Range<usize>,
        ahead: &[usize],
        stage: Option<&mut Stage>,
        dst: &mut [Self],
    ) -> bool {
        let Some(fill_row) = &x.fill_row else {
            return false;
        };
        use crate::sys::Ends;
        let (copy_at, copy_from, copy_len, ends, picks) =
            match (x.slice, &x.sandwich, x.fill_ends, &x.picks) {
                (Some(off), ..) => (0, off, x.out_row, Ends::Open, None),
                (
                    None,
                    Some(Sandwich {
                        edges: Some(e),
                        at,
                        from,
                        len,
                        ..
                    }),
                    ..,
                ) => (*at, *from, *len, Ends::Blend(e), None),
                (None, _, Some((at, from, len)), _) => (at, from, len, Ends::Fill, None),
                (None, _, None, Some(b)) => {
                    let ((at, from, len), k) = &**b;
                    (*at, *from, *len, Ends::Open, Some(k))
                }
                _ => return false,
            };
        let plane = crate::sys::CopyPlane {
            src: bytemuck::cast_slice(x.src),
            base: base * N,
            stride: stride * N,
            rows: &x.plane,
            range: rows,
            in_row: x.in_row * N,
            out_row: x.out_row * N,
            fill_row,
            copy_at: copy_at * N,
            copy_from: copy_from * N,
            copy_len: copy_len * N,
            ends,
            ahead,
        };
        let out = bytemuck::cast_slice_mut(dst);
        match picks {
            Some(k) => crate::sys::copy_plane_picks(&plane, k, stage.is_some(), out),
            None => crate::sys::copy_plane(&plane, stage, out),
        }
    }

    #[inline]
    fn fill(dst: &mut [Self], v: &Self) {
        if dst.len() <= 4 {
            dst.iter_mut().for_each(|d| *d = *v);
        } else if v.iter().all(|&b| b == v[0]) {
            // A byte-uniform value (zero, the common case) is a memset.
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(dst);
            bytes.fill(v[0]);
        } else {
            dst.fill(*v);
        }
    }
}

impl Elem for String {
    fn copy_run(dst: &mut [Self], src: &[Self]) {
        dst.clone_from_slice(src);
    }

    fn fill(dst: &mut [Self], v: &Self) {
        dst.iter_mut().for_each(|d| d.clone_from(v));
    }
}

/// Fills `dst` with copies of `pattern`, starting `phase` elements into it.
fn fill_pattern<T: Elem>(dst: &mut [T], pattern: &[T], phase: usize) {
    if pattern.len() == 1 {
        T::fill(dst, &pattern[0]);
        return;
    }
    let mut done = 0;
    let mut at = phase;
    while done < dst.len() {
        let take = (pattern.len() - at).min(dst.len() - done);
        T::copy_run(&mut dst[done..done + take], &pattern[at..at + take]);
        done += take;
        at = 0;
    }
}

/// Runs shorter than this many elements are written element by element from a
/// precomputed list, rather than one call per run.
const SHORT_RUN: usize = 8;

/// A whole row (of units of one element) as a program: the long runs, in the order
/// they are best written (the longest copy first), and every other element as a
/// constant (`fills`, by position) or a copy (`picks`, (destination, source) pairs).
struct RowProgram {
    runs: Vec<(usize, Seg)>,
    fills: Vec<u32>,
    picks: Vec<(u32, u32)>,
}

impl RowProgram {
    fn new(segs: &[Seg], short: usize) -> RowProgram {
        let mut runs = Vec::new();
        let mut fills = Vec::new();
        let mut picks = Vec::new();
        let mut at = 0;
        for &seg in segs {
            if seg.len() >= short {
                runs.push((at, seg));
            } else {
                for k in 0..seg.len() {
                    let d = (at + k) as u32;
                    match seg.src_at(k) {
                        Some(s) => picks.push((d, s as u32)),
                        None => fills.push(d),
                    }
                }
            }
            at += seg.len();
        }
        longest_copy_first(&mut runs);
        RowProgram { runs, fills, picks }
    }
}

/// Single elements a [`Sandwich`] row holds at most.
const SANDWICH: usize = 8;

/// The common row shape, one long copy between a few single elements (padding both
/// ends of the row axis by a few elements, any mode): written without the general
/// program's run loop, from fixed arrays.
#[derive(Clone, Copy)]
struct Sandwich {
    /// The copy: `len` elements from `from` in the input row to `at` in the output row.
    at: usize,
    from: usize,
    len: usize,
    picks: [(u32, u32); SANDWICH],
    npicks: usize,
    fills: [u32; SANDWICH],
    nfills: usize,
    /// The single elements as two 16-byte shuffles, when they fit ([`Edges`]).
    edges: Option<Edges>,
}

/// A [`Sandwich`] row's first and last 16 bytes, written after its copy as two 16-byte
/// vectors ([`Edges`]), each blended from two 16-byte windows of the input row (one
/// holding the single elements' sources, one the copy's bytes there) and the
/// constant: replaces a loop over the single elements (two bounds checks, an index
/// load and a move each) in [`crate::sys::copy_plane`]. Read after the copy, the
/// windows are in the cache and the input row is read from its start: reading its end
/// first, as wrap padding's left edge does, slowed the hardware prefetcher
/// (`[8,64,112,112]` f32 wrap padding fell from 0.88x a copy to 0.61x).
///
/// For `w`, a row of `out_row` elements of `size` bytes read from an input row of
/// `in_row` elements, `value` the constant's bytes; `None` where a row is shorter than
/// 16 bytes, or the single elements in the first or last 16 bytes read more than 16
/// bytes apart, or there is no SSSE3.
fn edges_of(
    w: &Sandwich,
    size: usize,
    in_row: usize,
    out_row: usize,
    value: Option<&[u8]>,
) -> Option<Edges> {
    let ssse3 = crate::sys::Ssse3::detect()?;
    let (in_b, out_b) = (in_row.checked_mul(size)?, out_row.checked_mul(size)?);
    let (copy_at, copy_from) = (w.at.checked_mul(size)?, w.from.checked_mul(size)?);
    let copy_end = w.at.checked_add(w.len)?.checked_mul(size)?;
    // Every single element lies in the first or the last 16 bytes.
    if in_b < 16 || out_b < 16 || size == 0 || copy_at > 16 || copy_end + 16 < out_b {
        return None;
    }
    /// Where an output byte comes from.
    #[derive(Clone, Copy)]
    enum Byte {
        /// That input byte, of a single element.
        Single(usize),
        /// That input byte, of the copy.
        Copied(usize),
        Constant(u8),
    }
    /// Where a window over `bytes` starts: at the first, inside the input row.
    fn window(bytes: impl Iterator<Item = usize>, in_b: usize) -> usize {
        bytes.min().unwrap_or(0).min(in_b - 16)
    }
    let source = |p: usize| -> Option<Byte> {
        if (copy_at..copy_end).contains(&p) {
            return Some(Byte::Copied(copy_from + (p - copy_at)));
        }
        let (d, j) = (u32::try_from(p / size).ok()?, p % size);
        if let Some(&(_, s)) = w.picks[..w.npicks].iter().find(|&&(pd, _)| pd == d) {
            return Some(Byte::Single(s as usize * size + j));
        }
        let fill = w.fills[..w.nfills].contains(&d);
        fill.then(|| value?.get(j).map(|&b| Byte::Constant(b)))?
    };
    let side = |at: usize| -> Option<([usize; 2], crate::sys::Blend16)> {
        let none = crate::sys::Blend16::NONE;
        let mut blend = crate::sys::Blend16 {
            a: [none; 16],
            b: [none; 16],
            fill: [0; 16],
        };
        let srcs: [Option<Byte>; 16] = std::array::from_fn(|i| source(at + i));
        let srcs: [Byte; 16] = {
            let mut all = [Byte::Constant(0); 16];
            for (a, s) in all.iter_mut().zip(srcs) {
                *a = s?;
            }
            all
        };
        // Window a holds the single elements' sources, b the copy's bytes.
        let singles = srcs.iter().filter_map(|s| match *s {
            Byte::Single(x) => Some(x),
            _ => None,
        });
        let copied = srcs.iter().filter_map(|s| match *s {
            Byte::Copied(x) => Some(x),
            _ => None,
        });
        let (a, b) = (window(singles, in_b), window(copied, in_b));
        for (i, s) in srcs.into_iter().enumerate() {
            let (ctrl, k) = match s {
                Byte::Single(x) => (&mut blend.a[i], x.checked_sub(a)?),
                Byte::Copied(x) => (&mut blend.b[i], x.checked_sub(b)?),
                Byte::Constant(v) => {
                    blend.fill[i] = v;
                    continue;
                }
            };
            *ctrl = u8::try_from(k).ok().filter(|&k| k < 16)?;
        }
        Some(([a, b], blend))
    };
    let (left, left_blend) = side(0)?;
    let (right, right_blend) = side(out_b - 16)?;
    Some(Edges {
        ssse3,
        left,
        right,
        left_blend,
        right_blend,
    })
}

impl Sandwich {
    /// The sandwich of program `p` (its [`Edges`] are added where whole planes use
    /// them).
    fn new(p: &RowProgram) -> Option<Sandwich> {
        let [(at, Seg::Copy { src: from, len })] = p.runs[..] else {
            return None;
        };
        if p.picks.len() > SANDWICH || p.fills.len() > SANDWICH {
            return None;
        }
        let mut w = Sandwich {
            at,
            from,
            len,
            picks: [(0, 0); SANDWICH],
            npicks: p.picks.len(),
            fills: [0; SANDWICH],
            nfills: p.fills.len(),
            edges: None,
        };
        w.picks[..p.picks.len()].copy_from_slice(&p.picks);
        w.fills[..p.fills.len()].copy_from_slice(&p.fills);
        Some(w)
    }

    #[inline(always)]
    fn write<T: Elem>(&self, src: &[T], out: &mut [T], value: &T) {
        T::copy_run(
            &mut out[self.at..self.at + self.len],
            &src[self.from..self.from + self.len],
        );
        write_singles(
            &self.fills[..self.nfills],
            &self.picks[..self.npicks],
            src,
            out,
            value,
        );
    }
}

/// Writes a row's single elements: the constant at `fills`, `src[s]` at `d` for each
/// `(d, s)` of `picks`.
#[inline(always)]
fn write_singles<T: Elem>(
    fills: &[u32],
    picks: &[(u32, u32)],
    src: &[T],
    out: &mut [T],
    value: &T,
) {
    for &d in fills {
        out[d as usize] = value.clone();
    }
    for &(d, s) in picks {
        out[d as usize] = src[s as usize].clone();
    }
}

/// Moves the longest copy to the front: writing it first makes a row read its input
/// from the start, which keeps the hardware prefetcher streaming (wrap padding would
/// otherwise start each row with a read from its end).
fn longest_copy_first(runs: &mut Vec<(usize, Seg)>) {
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

/// Rows at most this many bytes long are written element by element (longer rows copy
/// their runs: with 64 units of 4 bytes as the bound, a `[32,64,56,56]` f32 pad of 3
/// wrote 62 single elements a row and ran at 0.27-0.36x a copy).
const NARROW_ROW_BYTES: usize = 64;

/// At the start of each plane, the next plane's first rows (up to this many) that lie
/// far from the input just read are picked for prefetching while the plane is written
/// ([`Exec::prefetch_plane`]).
const PLANE_AHEAD_ROWS: usize = 6;
/// Outputs smaller than this many bytes are written batch by batch: there the work of
/// preparing whole planes (the row map, the row ends' blends) took longer than it
/// saved (an f32 `[64,64]` pad of 1 went from 0.8 to 1.8 microseconds).
const PLANE_MIN_BYTES: usize = 64 << 10;
/// Planes of more rows than this are written batch by batch (their per-plane work is
/// negligible; the row map would cost memory and time).
const PLANE_MAX_ROWS: usize = 1 << 12;
/// A gap of more than this many bytes between the end of a plane's input and the
/// next plane's first input row (rows cropped) makes [`Exec::prefetch_plane`]
/// prefetch the whole next plane: on this project's machine the hardware prefetcher
/// carried on across gaps of 224 and 320 bytes (and prefetching then cost up to
/// 19%), not across 448 or more.
const PLANE_GAP_MIN: usize = 384;
/// The largest plane input prefetched whole (a 50 KiB plane prefetched whole ran 15%
/// slower; 25.6 KiB ones gained 17%).
const PLANE_GAP_BYTES: usize = 32 << 10;
/// At most this many lines are prefetched per plane.
const PLANE_AHEAD_LINES: usize = 64;
/// Input rows within this many bytes of the previous plane's last input row are not
/// prefetched: the hardware prefetcher streams there.
const PLANE_AHEAD_NEAR: usize = 8192;

/// A constant row in [`Exec::plane`].
const NO_ROW: u32 = crate::sys::RowMap::CONSTANT;

/// A row's one copy: where it goes, where it starts in the input row, its length.
type RowCopy = (usize, usize, usize);

/// The most single elements a row written through [`crate::sys::Picks`] has.
const PICKS_MAX: usize = 64;

/// A row of one long copy (the longest `Copy` run) between at most [`PICKS_MAX`]
/// single elements of `size` bytes, all read from the input row: the copy (where it
/// goes, where it starts in the input row, its length, in row coordinates) and the
/// elements, in bytes. The u8 image `[2160,3840,3]` reflect-padded by 16 (16
/// elements at each end), one thread, cold: 1.00x -> 1.15x a copy (10 paired rounds,
/// 10 won), through [`crate::sys::copy_plane_picks`]'s long-row loop.
fn picks_of(segs: &[Seg], size: usize) -> Option<(RowCopy, crate::sys::Picks)> {
    let main = (0..segs.len())
        .filter(|&k| matches!(segs[k], Seg::Copy { .. }))
        .max_by_key(|&k| segs[k].len())?;
    let singles: usize = segs.iter().map(Seg::len).sum::<usize>() - segs[main].len();
    if singles > PICKS_MAX || !crate::sys::Picks::SIZES.contains(&size) {
        return None;
    }
    let mut picks = crate::sys::Picks {
        size,
        at: Vec::with_capacity(singles),
    };
    let byte = |c: usize| u32::try_from(c.checked_mul(size)?).ok();
    let (mut at, mut copy) = (0, None);
    for (k, seg) in segs.iter().enumerate() {
        if k == main {
            copy = Some((at, seg.src_at(0)?, seg.len()));
        } else if matches!(seg, Seg::Spread { .. }) {
            return None;
        } else {
            for j in 0..seg.len() {
                // The constant has its own paths (`fill_ends`, the blends).
                picks.at.push((byte(at + j)?, byte(seg.src_at(j)?)?));
            }
        }
        at += seg.len();
    }
    Some((copy?, picks))
}

/// The source row of each of an axis's `n` output coordinates ([`NO_ROW`] for the
/// constant), one segment at a time; `None` where a source row does not fit below
/// [`NO_ROW`].
fn row_map(segs: &[Seg], n: usize) -> Option<Vec<u32>> {
    let mut rows = Vec::with_capacity(n);
    for seg in segs {
        let Some((first, last)) = seg_ends(seg) else {
            rows.extend(std::iter::repeat_n(NO_ROW, seg.len()));
            continue;
        };
        if first.max(last) >= NO_ROW as usize {
            return None;
        }
        rows.extend((0..seg.len()).map(|k| seg.src_at(k).map_or(NO_ROW, |s| s as u32)));
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

/// One outer axis: its segments with their starting coordinates, and its input stride
/// (in elements of the representation).
struct Outer<'p> {
    segs: &'p [Seg],
    starts: Vec<usize>,
    stride: usize,
    n: usize,
}

/// The executor for one plan and one element representation.
pub(crate) struct Exec<'p, T> {
    src: &'p [T],
    outer: Vec<Outer<'p>>,
    /// The row axis's segments with their first element, the longest copy first:
    /// reading the input row from its start keeps the hardware prefetcher streaming
    /// (wrap padding would otherwise start each row with a read from its end).
    row_segs: Vec<(usize, Seg)>,
    program: Option<RowProgram>,
    /// The program when it is a [`Sandwich`].
    sandwich: Option<Sandwich>,
    window: Option<Window>,
    /// When every output row is a single run of its input row (a crop of the row
    /// axis, or none): where that run starts in the input row, in elements.
    slice: Option<usize>,
    /// The innermost outer axis's source row for each of its output coordinates
    /// ([`NO_ROW`] for a constant row): its output rows are written a whole plane at a
    /// time where a plane (one pass of that axis) lies in a thread's range
    /// ([`Self::write_plane`]); empty for outputs under [`PLANE_MIN_BYTES`], windowed
    /// rows, planes of more than [`PLANE_MAX_ROWS`] rows, and a single plane of rows
    /// that [`Elem::copy_plane`] cannot write.
    plane: RowMap,
    /// A whole output row of the constant, in bytes, for [`Elem::copy_plane`].
    fill_row: Option<Vec<u8>>,
    /// When each output row is one copy between runs of the constant (constant
    /// padding of the row axis, no window): where the copy goes, where it starts in
    /// the input row and its length, in elements.
    fill_ends: Option<RowCopy>,
    /// Otherwise, when each output row is one copy (where it goes, where it starts in
    /// the input row, its length, in elements) between at most [`PICKS_MAX`] single
    /// elements read from the input row (ends too wide for the blends): those.
    /// Boxed: held inline (56 bytes, the fields after it moved) the unrelated f32
    /// `[8,64,112,112]` edge, reflect and wrap pads ran 2-5% slower (50-90 paired
    /// rounds; not understood), boxed within +-1%.
    picks: Option<Box<(RowCopy, crate::sys::Picks)>>,
    /// Whether [`Elem::copy_plane`] writes around the cache
    /// ([`PadOptions::stream_min_bytes`]); set by [`drive`].
    stream: bool,
    unit: usize,
    in_row: usize,
    out_row: usize,
    value: T,
}

/// The odometer over outer axes: current coordinate per axis as (segment, offset).
struct Cursor {
    seg: Vec<usize>,
    off: Vec<usize>,
}

impl<'p, T: Elem> Exec<'p, T> {
    /// The fixed-width window for narrow constant-padded rows, when they are.
    fn window(segs: &[Seg], small: bool, out_units: usize, value: Option<&[u8]>) -> Option<Window> {
        let value = value?;
        let n = value.len();
        let out_b = out_units * n;
        if !small || out_b > 64 || n == 0 {
            return None;
        }
        let (lo, data, len) = match segs {
            [Seg::Copy { src, len }] => (0, *src, *len),
            [Seg::Copy { src, len }, Seg::Fill { src: None, .. }] => (0, *src, *len),
            [Seg::Fill { src: None, len: lo }, Seg::Copy { src, len }] => (*lo, *src, *len),
            [Seg::Fill { src: None, len: lo }, Seg::Copy { src, len }, Seg::Fill { src: None, .. }] => {
                (*lo, *src, *len)
            }
            _ => return None,
        };
        // Exactly one row per window, so that every output byte is written once.
        let width = [8, 16, 32, 64].into_iter().find(|&w| w == out_b)?;
        let mut mask = [0u8; 64];
        let mut fill = [0u8; 64];
        for i in 0..out_b {
            if i >= lo * n && i < (lo + len) * n {
                mask[i] = 0xFF;
            } else {
                fill[i] = value[i % n];
            }
        }
        Some(Window {
            width,
            back: lo * n,
            data: data * n,
            mask,
            fill,
        })
    }

    fn new(
        plan: &'p Plan,
        src: &'p [T],
        unit: usize,
        value: T,
        value_bytes: Option<&[u8]>,
    ) -> Self {
        let outer_count = plan.row_axis.unwrap_or(0);
        // Input stride of the innermost outer axis: one input row.
        let mut stride = plan.row_axis.map_or(0, |r| plan.in_shape[r]) * unit;
        // Input strides of the outer axes, innermost first.
        let mut outer: Vec<Outer<'p>> = Vec::with_capacity(outer_count);
        for a in (0..outer_count).rev() {
            let ax = &plan.axes[a];
            let mut starts = Vec::with_capacity(ax.segs.len());
            let mut pos = 0;
            for s in &ax.segs {
                starts.push(pos);
                pos += s.len();
            }
            outer.push(Outer {
                segs: &ax.segs,
                starts,
                stride,
                n: ax.map.n,
            });
            stride *= ax.dim;
        }
        outer.reverse();
        let (segs, in_units, out_units): (&[Seg], usize, usize) = match plan.row_axis {
            Some(r) => (&plan.axes[r].segs, plan.axes[r].dim, plan.axes[r].map.n),
            None => (&[Seg::Copy { src: 0, len: 1 }], 1, 1),
        };
        let small = unit == 1
            && out_units.saturating_mul(std::mem::size_of::<T>()) <= NARROW_ROW_BYTES
            && in_units < u32::MAX as usize;
        let program = (unit == 1
            && out_units < u32::MAX as usize
            && in_units < u32::MAX as usize
            && segs.len() > 1)
            .then(|| RowProgram::new(segs, if small { usize::MAX } else { SHORT_RUN }));
        let mut sandwich = program.as_ref().and_then(Sandwich::new);
        let window = Self::window(segs, small, out_units, value_bytes);
        let mut row_segs = Vec::with_capacity(segs.len());
        let mut pos = 0;
        for &seg in segs {
            row_segs.push((pos, seg));
            pos += seg.len() * unit;
        }
        longest_copy_first(&mut row_segs);
        let slice = match segs {
            [Seg::Copy { src, .. }] if window.is_none() => Some(src * unit),
            _ => None,
        };
        let fill_ends = match (segs, &window, value_bytes) {
            (_, Some(_), _) | (_, _, None) => None,
            ([Seg::Copy { src, len }, Seg::Fill { src: None, .. }], _, _) => Some((0, *src, *len)),
            ([Seg::Fill { src: None, len: lo }, Seg::Copy { src, len }], _, _)
            | (
                [Seg::Fill { src: None, len: lo }, Seg::Copy { src, len }, Seg::Fill { src: None, .. }],
                _,
                _,
            ) => Some((*lo, *src, *len)),
            _ => None,
        }
        .map(|(at, from, len)| (at * unit, from * unit, len * unit));
        // Whole planes where the output is large and rows are not windowed; their rows
        // through `copy_plane` where that can write them (a crop, ends the blends can
        // write, or runs of the constant around a copy), else row by row where there
        // are several planes (to prefetch across them). A single plane of such other
        // rows (the u8 image reflect-padded by 16 pixels) ran 1.6% faster batch by
        // batch.
        let large = plan.output_bytes() >= PLANE_MIN_BYTES;
        let planes = match (outer.last(), &window) {
            (Some(o), None) if large && o.n <= PLANE_MAX_ROWS => Some(o),
            _ => None,
        };
        if let (Some(w), Some(_)) = (sandwich.as_mut(), planes) {
            let size = std::mem::size_of::<T>();
            w.edges = edges_of(w, size, in_units, out_units, value_bytes);
        }
        let blends = slice.is_some() || sandwich.is_some_and(|w| w.edges.is_some());
        let picks = match (planes, &window) {
            (Some(_), None) if !blends && fill_ends.is_none() && value_bytes.is_some() => {
                picks_of(segs, unit * std::mem::size_of::<T>())
                    .map(|((at, from, len), k)| Box::new(((at * unit, from * unit, len * unit), k)))
            }
            _ => None,
        };
        let copies = blends || fill_ends.is_some() || picks.is_some();
        let plane = match planes {
            Some(o) if copies || outer.len() > 1 => row_map(o.segs, o.n),
            _ => None,
        };
        let plane = RowMap::new(plane.unwrap_or_default());
        // The constant row of whole planes written through `copy_plane`.
        let fill_row = match value_bytes {
            Some(v) if copies && !plane.rows().is_empty() => Some(
                v.iter()
                    .copied()
                    .cycle()
                    .take(out_units * unit * v.len())
                    .collect(),
            ),
            _ => None,
        };
        Exec {
            src,
            plane,
            fill_row,
            fill_ends,
            picks,
            stream: false,
            outer,
            row_segs,
            program,
            sandwich,
            window,
            slice,
            unit,
            in_row: in_units * unit,
            out_row: out_units * unit,
            value,
        }
    }

    fn rows(&self) -> usize {
        self.outer.iter().map(|o| o.n).product()
    }

    /// The cursor at output row `row`.
    fn cursor(&self, mut row: usize) -> Cursor {
        let k = self.outer.len();
        let mut c = Cursor {
            seg: vec![0; k],
            off: vec![0; k],
        };
        for a in (0..k).rev() {
            let o = &self.outer[a];
            let coord = row % o.n;
            row /= o.n;
            let s = o.starts.partition_point(|&st| st <= coord) - 1;
            c.seg[a] = s;
            c.off[a] = coord - o.starts[s];
        }
        c
    }

    /// Input element offset of the cursor's row, or `None` when it is all constant.
    fn row_src(&self, c: &Cursor) -> Option<usize> {
        let base = self.base_src(c)?;
        match self.outer.last() {
            Some(o) => {
                let a = self.outer.len() - 1;
                Some(base + o.segs[c.seg[a]].src_at(c.off[a])? * o.stride)
            }
            None => Some(base),
        }
    }

    /// Moves the cursor one row on; `true` when an axis other than the innermost
    /// moved (so [`Self::base_src`] changed).
    fn advance(&self, c: &mut Cursor) -> bool {
        let inner = self.outer.len().saturating_sub(1);
        for a in (0..self.outer.len()).rev() {
            let o = &self.outer[a];
            c.off[a] += 1;
            if c.off[a] < o.segs[c.seg[a]].len() {
                return a < inner;
            }
            c.off[a] = 0;
            c.seg[a] += 1;
            if c.seg[a] < o.segs.len() {
                return a < inner;
            }
            c.seg[a] = 0;
        }
        true
    }

    /// Input element offset of the cursor's row contributed by all outer axes but the
    /// innermost, or `None` when one of them is constant there.
    fn base_src(&self, c: &Cursor) -> Option<usize> {
        let k = self.outer.len().saturating_sub(1);
        let mut off = 0;
        for (a, o) in self.outer[..k].iter().enumerate() {
            off += o.segs[c.seg[a]].src_at(c.off[a])? * o.stride;
        }
        Some(off)
    }

    /// Moves the cursor `rows` rows on, all within the innermost axis's current
    /// segment; `true` as [`Self::advance`].
    fn skip(&self, c: &mut Cursor, rows: usize) -> bool {
        if let Some(a) = self.outer.len().checked_sub(1) {
            c.off[a] += rows - 1;
        }
        self.advance(c)
    }

    /// Writes output elements `start .. start + out.len()`. Inlined into its callers,
    /// which compile it for the CPU's vector width ([`crate::sys::with_avx2`]).
    #[inline(always)]
    fn run_range(&self, start: usize, out: &mut [T]) {
        if out.is_empty() {
            return;
        }
        let mut cursor = self.cursor(start / self.out_row);
        // The next plane's lines to prefetch while a plane is written.
        let mut ahead = [0usize; PLANE_AHEAD_LINES];
        // The staging buffer of planes written around the cache.
        let mut stage = (self.stream && self.fill_row.is_some()).then(Stage::new);
        // The outer axes' part of the input offset, kept until they move: the work
        // between two batches of rows delays the next batch's first reads (which miss
        // the cache where the input jumps, as wrap padding's do at each plane).
        let mut base = self.base_src(&cursor);
        let mut col = start % self.out_row;
        let mut done = 0;
        // Whole rows left, once the range is at a row boundary.
        let mut whole: Option<usize> = None;
        while done < out.len() {
            let full_rows = whole.unwrap_or((out.len() - done) / self.out_row);
            if col != 0 || full_rows == 0 {
                // A partial row at either end of the range.
                let take = (self.out_row - col).min(out.len() - done);
                let dst = &mut out[done..done + take];
                match self.row_src(&cursor) {
                    None => T::fill(dst, &self.value),
                    Some(off) => self.write_row(&self.src[off..off + self.in_row], col, dst),
                }
                done += take;
                col = 0;
                if self.advance(&mut cursor) {
                    base = self.base_src(&cursor);
                }
                whole = None;
                continue;
            }
            // Rows of a plane (one pass of the innermost outer axis) from its row map:
            // whole planes, and parts of planes where `copy_plane` writes their rows (a
            // plane split between threads, as a single image is).
            if let (Some(a), Some(b)) = (self.outer.len().checked_sub(1), base) {
                let n = self.plane.rows().len();
                let at = self.outer[a].starts[cursor.seg[a]] + cursor.off[a];
                let take = n.saturating_sub(at).min(full_rows);
                let all = at == 0 && take == n;
                if take > 0 && (all || self.fill_row.is_some()) {
                    let stride = self.outer[a].stride;
                    let mut lines = 0;
                    if at + take == n {
                        // The cursor moves to the next plane first, to prefetch its
                        // rows.
                        let segs = self.outer[a].segs;
                        cursor.seg[a] = segs.len() - 1;
                        cursor.off[a] = segs[segs.len() - 1].len() - 1;
                        if self.advance(&mut cursor) {
                            base = self.base_src(&cursor);
                        }
                        if all && full_rows >= 2 * n {
                            if let Some(nb) = base {
                                lines = self.prefetch_plane(b, nb, stride, &mut ahead);
                            }
                        }
                    } else {
                        let starts = &self.outer[a].starts;
                        let seg = starts.partition_point(|&st| st <= at + take) - 1;
                        (cursor.seg[a], cursor.off[a]) = (seg, at + take - starts[seg]);
                    }
                    let dst = &mut out[done..done + take * self.out_row];
                    let rows = at..at + take;
                    let stage = stage.as_deref_mut();
                    self.write_plane(b, stride, rows, &ahead[..lines], stage, dst);
                    done += take * self.out_row;
                    whole = Some(full_rows - take);
                    continue;
                }
            }
            // Whole rows along the innermost outer axis's current segment: their
            // sources are one fixed row, consecutive rows, or the constant.
            let (seg, left, stride) = match self.outer.last() {
                Some(o) => {
                    let a = self.outer.len() - 1;
                    let seg = o.segs[cursor.seg[a]];
                    (seg, seg.len() - cursor.off[a], o.stride)
                }
                None => (Seg::Copy { src: 0, len: 1 }, 1, 0),
            };
            let rows = if matches!(seg, Seg::Spread { .. } | Seg::Rev { .. }) {
                1
            } else {
                left.min(full_rows)
            };
            let dst = &mut out[done..done + rows * self.out_row];
            let first = seg.src_at(
                self.outer
                    .last()
                    .map_or(0, |_| cursor.off[self.outer.len() - 1]),
            );
            match (base, first, seg, self.slice) {
                (Some(base), Some(s), Seg::Copy { .. }, Some(off)) => {
                    // Each output row is one run of its input row: a loop of copies.
                    let from = base + s * stride + off;
                    for (k, row) in dst.chunks_exact_mut(self.out_row).enumerate() {
                        let at = from + k * stride;
                        T::copy_run(row, &self.src[at..at + self.out_row]);
                    }
                }
                (Some(base), Some(s), Seg::Copy { .. }, None) if self.window.is_none() => {
                    // Consecutive input rows, no window: a plain loop of rows.
                    let first = base + s * stride;
                    for (k, row) in dst.chunks_exact_mut(self.out_row).enumerate() {
                        let from = first + k * stride;
                        self.write_full_row(&self.src[from..from + self.in_row], row);
                    }
                }
                (Some(base), Some(s), Seg::Copy { .. }, None) => {
                    let first = base + s * stride;
                    let mut k = 0;
                    while k < rows {
                        let (from, to) = (first + k * stride, k * self.out_row);
                        if let Some(w) = &self.window {
                            let n = T::window_rows(
                                w,
                                self.src,
                                from,
                                stride,
                                &mut dst[to..],
                                rows - k,
                                self.stream,
                            );
                            if n > 0 {
                                k += n;
                                continue;
                            }
                        }
                        // A row whose window would reach outside the input (the first
                        // or last rows), or any row without a window.
                        let row = &mut dst[to..to + self.out_row];
                        self.write_full_row(&self.src[from..from + self.in_row], row);
                        k += 1;
                    }
                }
                (Some(base), Some(s), _, _) => {
                    let src = &self.src[base + s * stride..base + s * stride + self.in_row];
                    dst.chunks_exact_mut(self.out_row)
                        .for_each(|row| self.write_full_row(src, row));
                }
                _ => T::fill(dst, &self.value),
            }
            done += rows * self.out_row;
            whole = Some(full_rows - rows);
            if self.skip(&mut cursor, rows) {
                base = self.base_src(&cursor);
            }
        }
    }

    /// The lines of the first input rows of the plane whose input starts at `next`
    /// that lie far from the last input row of the plane starting at `cur`: wrap
    /// padding starts each plane with its last rows, a large crop skips rows, and the
    /// hardware prefetcher cannot foresee such a jump (the first reads after it missed
    /// the cache with little else in flight). Called as the plane at `cur` starts, a
    /// plane ahead; the lines go into `ahead` (their count is returned) for the plane's
    /// writer to prefetch ([`crate::sys::CopyPlane::ahead`]: over the last rows of a
    /// staged plane, else at once). Prefetched at once, f32 wrap padding by 3, one
    /// thread, cache cold, went from 0.86x to 0.91x a copy on `[8,64,112,112]` and
    /// from 0.78x to 0.88x on `[32,64,56,56]` (10 paired rounds each).
    ///
    /// Where the rows are cropped, so that the next plane's input starts more than
    /// [`PLANE_GAP_MIN`] bytes after this one's ends, the hardware prefetcher lost the
    /// stream at every plane: the whole next plane (at most [`PLANE_GAP_BYTES`]) is
    /// prefetched instead, at once (0 is returned). f32 crops of 2 on H and W, one
    /// thread, cold (8 paired rounds each): `[128,64,28,28]` 0.35x -> 0.68x a copy,
    /// `[64,64,40,40]` 0.40x -> 0.87x, `[32,64,56,56]` 0.52x -> 1.04x,
    /// `[16,64,64,64]` 0.82x -> 0.87x, `[16,64,80,80]` 0.83x -> 0.99x;
    /// `[8,64,112,112]` (planes over the limit) unchanged. Row by row on purpose: the
    /// same lines prefetched as one span from the lowest row to the end of the
    /// highest (fewer prefetch instructions, back to back) ran 9-32% slower on those
    /// crops (6 paired rounds each).
    #[inline(always)]
    fn prefetch_plane(
        &self,
        cur: usize,
        next: usize,
        stride: usize,
        ahead: &mut [usize; PLANE_AHEAD_LINES],
    ) -> usize {
        let elem = std::mem::size_of::<T>();
        let near = PLANE_AHEAD_NEAR / elem.max(1);
        let end = cur + self.plane.last().map_or(0, |r| r as usize + 1) * stride;
        let map = self.plane.rows();
        // Where the next plane's input, read in order, starts after a gap (a crop of
        // the rows: no row there continues the stream), every row of it is prefetched,
        // up to the line budget.
        let low = map
            .iter()
            .take(PLANE_AHEAD_ROWS)
            .filter(|&&s| s != NO_ROW)
            .map(|&s| next + s as usize * stride)
            .min();
        let gap = low.is_some_and(|o| o > end.saturating_add(PLANE_GAP_MIN / elem.max(1)))
            && map.len().saturating_mul(self.in_row).saturating_mul(elem) <= PLANE_GAP_BYTES;
        let (rows, near, budget) = match gap {
            true => (map.len(), 0, PLANE_GAP_BYTES / 64),
            false => (PLANE_AHEAD_ROWS, near, PLANE_AHEAD_LINES),
        };
        let mut lines = 0;
        for &s in map.iter().take(rows) {
            let off = next + s as usize * stride;
            if s == NO_ROW || off.abs_diff(end) <= near {
                continue;
            }
            let start = (self.src.as_ptr() as usize).wrapping_add(off * elem);
            let mut line = start & !63;
            while line < start.wrapping_add(self.in_row * elem) && lines < budget {
                match (gap, ahead.get_mut(lines)) {
                    (true, _) => crate::sys::prefetch(line as *const u8),
                    (false, Some(a)) => *a = line,
                    // `budget` is `ahead`'s length here.
                    (false, None) => break,
                }
                line += 64;
                lines += 1;
            }
        }
        if gap {
            0
        } else {
            lines
        }
    }

    /// Writes rows `rows` of a plane (one pass of the innermost outer axis) whose
    /// input starts at `base`, its rows `stride` apart, from the row map
    /// [`Self::plane`].
    #[inline(always)]
    fn write_plane(
        &self,
        base: usize,
        stride: usize,
        rows: std::ops::Range<usize>,
        ahead: &[usize],
        stage: Option<&mut Stage>,
        dst: &mut [T],
    ) {
        if T::copy_plane(self, base, stride, rows.clone(), ahead, stage, dst) {
            return;
        }
        crate::sys::prefetch_lines(ahead);
        let rows = dst
            .chunks_exact_mut(self.out_row)
            .zip(&self.plane.rows()[rows]);
        if let Some(off) = self.slice {
            // Each output row is one run of its input row (a crop, or none).
            for (row, &s) in rows {
                if s == NO_ROW {
                    T::fill(row, &self.value);
                } else {
                    let at = base + s as usize * stride + off;
                    T::copy_run(row, &self.src[at..at + self.out_row]);
                }
            }
        } else {
            for (row, &s) in rows {
                if s == NO_ROW {
                    T::fill(row, &self.value);
                } else {
                    let at = base + s as usize * stride;
                    self.write_full_row(&self.src[at..at + self.in_row], row);
                }
            }
        }
    }

    /// Writes one output row of a packed `bits`-bit tensor, starting at element `at`
    /// of `out`, from the input row starting at element `row` of `src`.
    fn write_packed_row(
        &self,
        src: &[u8],
        row: usize,
        out: &mut [u8],
        at: usize,
        bits: usize,
        value: u8,
    ) {
        use crate::bits::{copy, fill};
        let unit = self.unit;
        for &(pos, seg) in &self.row_segs {
            let at = at + pos;
            match seg {
                Seg::Copy { src: s, len } => copy(out, at, src, row + s * unit, len * unit, bits),
                Seg::Fill { src: None, len } => fill(out, at, len * unit, bits, value),
                Seg::Fill { src: Some(s), len } if unit == 1 => {
                    let v = crate::packed::get(src, bits as u32, row + s).unwrap_or(0);
                    fill(out, at, len, bits, v)
                }
                Seg::Fill { src: Some(s), len } => {
                    for k in 0..len {
                        copy(out, at + k * unit, src, row + s * unit, unit, bits);
                    }
                }
                Seg::Rev { src: s, len } => {
                    for k in 0..len {
                        copy(out, at + k * unit, src, row + (s - k) * unit, unit, bits);
                    }
                }
                Seg::Spread { src: s, len, gap } => {
                    let step = (gap + 1) * unit;
                    for k in 0..len {
                        copy(out, at + k * step, src, row + (s + k) * unit, unit, bits);
                        if k + 1 < len {
                            fill(out, at + k * step + unit, gap * unit, bits, value);
                        }
                    }
                }
            }
        }
    }

    /// Writes a whole output row that reads `src`.
    #[inline(always)]
    fn write_full_row(&self, src: &[T], out: &mut [T]) {
        if let Some(w) = &self.sandwich {
            return w.write(src, out, &self.value);
        }
        let Some(p) = &self.program else {
            return self.write_row(src, 0, out);
        };
        for &(at, seg) in &p.runs {
            let dst = &mut out[at..at + seg.len()];
            match seg {
                Seg::Copy { src: s, len } => T::copy_run(dst, &src[s..s + len]),
                Seg::Fill { src: None, .. } => T::fill(dst, &self.value),
                Seg::Fill { src: Some(s), .. } => T::fill(dst, &src[s]),
                _ => self.write_row_part(src, at, seg, dst),
            }
        }
        write_singles(&p.fills, &p.picks, src, out, &self.value);
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
            T::copy_run(&mut out[done..done + take], &src[from..from + take]);
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
                // One constant between neighbours (the common case): exact pairs (a
                // loop the compiler turns into vector interleaves), then a last
                // data element.
                let mut pairs = out[lead..].chunks_exact_mut(2);
                let mut vals = src[first..].iter();
                for (pair, v) in (&mut pairs).zip(&mut vals) {
                    pair[0] = v.clone();
                    pair[1] = self.value.clone();
                }
                if let (Some(d), Some(v)) = (pairs.into_remainder().first_mut(), vals.next()) {
                    *d = v.clone();
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
                T::copy_run(&mut out[done..done + take], &src[from..from + take]);
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

    /// Writes row elements `col .. col + out.len()` of a row that reads `src`.
    fn write_row(&self, src: &[T], col: usize, out: &mut [T]) {
        let end = col + out.len();
        for &(pos, seg) in &self.row_segs {
            let seg_end = pos + seg.len() * self.unit;
            let (a, b) = (pos.max(col), seg_end.min(end));
            if a >= b {
                continue;
            }
            let dst = &mut out[a - col..b - col];
            match seg {
                Seg::Copy { src: s, .. } => {
                    let from = s * self.unit + (a - pos);
                    T::copy_run(dst, &src[from..from + (b - a)]);
                }
                Seg::Spread { src: s, gap, .. } => self.write_spread(src, s, gap, a - pos, dst),
                Seg::Rev { src: s, .. } => self.write_rev(src, s, a - pos, dst),
                Seg::Fill { src: None, .. } => T::fill(dst, &self.value),
                Seg::Fill { src: Some(s), .. } => fill_pattern(
                    dst,
                    &src[s * self.unit..(s + 1) * self.unit],
                    (a - pos) % self.unit,
                ),
            }
        }
    }
}

/// Runs `exec` over `out`, in parallel when it is large enough; whole planes around
/// the cache where the output is large enough ([`PadOptions::stream_min_bytes`]).
fn drive<T: Elem>(exec: &mut Exec<'_, T>, out: &mut [T], opts: &PadOptions) {
    let elem = std::mem::size_of::<T>().max(1);
    exec.stream = out.len().saturating_mul(elem) >= opts.stream_min_bytes;
    let exec = &*exec;
    let Some(threads) = split_threads(opts, out.len().saturating_mul(elem)) else {
        crate::sys::with_avx2(
            #[inline(always)]
            || exec.run_range(0, out),
        );
        if exec.stream {
            crate::sys::stream_fence();
        }
        return;
    };
    let tasks = threads * 4;
    let rows = exec.rows();
    let chunk = if rows >= tasks {
        rows.div_ceil(tasks) * exec.out_row
    } else {
        let align = (64 / elem).max(1);
        out.len().div_ceil(tasks).div_ceil(align) * align
    };
    with_threads(threads, || {
        out.par_chunks_mut(chunk.max(1))
            .enumerate()
            .for_each(|(i, c)| {
                crate::sys::with_avx2(
                    #[inline(always)]
                    || exec.run_range(i * chunk, c),
                );
                if exec.stream {
                    crate::sys::stream_fence();
                }
            });
    });
}

/// More threads than this buys nothing and only costs pool start-up.
const MAX_THREADS: usize = 1024;

/// The threads to split an output of `bytes` bytes among, or `None` when the calling
/// thread writes it alone (one thread asked for, or a small output).
fn split_threads(opts: &PadOptions, bytes: usize) -> Option<usize> {
    let threads = match opts.threads {
        0 => rayon::current_num_threads(),
        t => t.min(MAX_THREADS),
    };
    (threads > 1 && bytes >= opts.parallel_threshold).then_some(threads)
}

/// Runs `work`, which splits itself with rayon, on `threads` threads: in rayon's
/// global pool when that has as many, else in a pool of its own (or the global one
/// when no new pool can be had).
fn with_threads(threads: usize, work: impl FnOnce() + Send) {
    if threads == rayon::current_num_threads() {
        return work();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

/// Pads a packed `bits`-bit tensor whose rows need not start on byte boundaries:
/// `exec` (built over no input, for its row odometer and row runs, in elements)
/// walks the output rows; each run is a bit-range copy or fill. Threads take blocks
/// of rows that start on byte boundaries, so no two write the same byte.
fn run_packed(
    exec: &Exec<'_, [u8; 1]>,
    src: &[u8],
    out: &mut [u8],
    bits: usize,
    value: u8,
    opts: &PadOptions,
) {
    let (rows, out_row) = (exec.rows(), exec.out_row);
    if rows == 0 || out_row == 0 {
        return;
    }
    // Rows per block: a multiple of 8 / gcd(row bits, 8), so blocks start on bytes.
    let row_bits = out_row * bits;
    let align = 8 >> row_bits.trailing_zeros().min(3);
    let threads = split_threads(opts, out.len());
    let per = match threads {
        Some(t) => rows.div_ceil(t * 4).next_multiple_of(align),
        None => rows.next_multiple_of(align),
    };
    let block_bytes = per * row_bits / 8;
    let block = |(k, chunk): (usize, &mut [u8])| {
        let first = k * per;
        let mut cursor = exec.cursor(first);
        for r in 0..per.min(rows - first) {
            let at = r * out_row;
            match exec.row_src(&cursor) {
                None => crate::bits::fill(chunk, at, out_row, bits, value),
                Some(row) => exec.write_packed_row(src, row, chunk, at, bits, value),
            }
            exec.advance(&mut cursor);
        }
    };
    match threads {
        Some(t) => with_threads(t, || {
            out.par_chunks_mut(block_bytes).enumerate().for_each(block)
        }),
        None => block((0, out)),
    }
}

/// Runs the plan over byte elements of width `W` bytes, fusing `unit` elements into
/// one `[u8; W * unit]` where that width is one of 2, 3, 4, 6, 8, 12 or 16 bytes.
fn run_bytes<const W: usize>(
    plan: &Plan,
    src: &[u8],
    out: &mut [u8],
    opts: &PadOptions,
    fill: &[u8],
) {
    let unit = plan.unit;
    macro_rules! fused {
        ($($n:literal),*) => {
            match W.checked_mul(unit) {
                $(Some($n) if plan.row_axis.is_some() => {
                    return run_typed::<$n>(plan, src, out, opts, fill, 1);
                })*
                _ => {}
            }
        };
    }
    fused!(2, 3, 4, 6, 8, 12, 16);
    run_typed::<W>(plan, src, out, opts, fill, unit)
}

fn run_typed<const N: usize>(
    plan: &Plan,
    src: &[u8],
    out: &mut [u8],
    opts: &PadOptions,
    fill: &[u8],
    unit: usize,
) {
    let src: &[[u8; N]] = bytemuck::cast_slice(src);
    let out: &mut [[u8; N]] = bytemuck::cast_slice_mut(out);
    let mut value = [0u8; N];
    for (i, b) in value.iter_mut().enumerate() {
        *b = fill[i % fill.len()];
    }
    let mut exec = Exec::new(plan, src, unit, value, Some(&value));
    drive(&mut exec, out, opts);
}

impl Plan {
    /// True when a 4- or 2-bit tensor's runs do not all start on byte boundaries (its
    /// unpadded trailing axes do not fill whole bytes), so they are moved as bit
    /// ranges rather than as bytes.
    pub(crate) fn packed_unaligned(&self) -> bool {
        match self.dtype.layout() {
            Layout::Packed(bits) => {
                self.row_axis.is_none() || !(self.unit * bits as usize).is_multiple_of(8)
            }
            _ => false,
        }
    }

    /// Pads `src` (the plan's input type and shape, unchecked) into `out` (the plan's
    /// output).
    pub(crate) fn run(
        &self,
        src: Data<'_>,
        out: &mut DataMut<'_>,
        opts: &PadOptions,
    ) -> Result<(), PadError> {
        if self.out_numel == 0 {
            return Ok(());
        }
        match (src, out, self.dtype.layout()) {
            (Data::Strings(s), DataMut::Strings(o), _) => {
                let value = self.value.as_str().unwrap_or_default().to_string();
                let mut exec = Exec::new(self, s, self.unit, value, None);
                drive(&mut exec, o, opts);
            }
            (Data::Bytes(s), DataMut::Bytes(o), Layout::Bytes(w)) => {
                let fill = self.value.to_le_bytes();
                match w {
                    1 => run_bytes::<1>(self, s, o, opts, &fill),
                    2 => run_bytes::<2>(self, s, o, opts, &fill),
                    4 => run_bytes::<4>(self, s, o, opts, &fill),
                    8 => run_bytes::<8>(self, s, o, opts, &fill),
                    _ => run_bytes::<16>(self, s, o, opts, &fill),
                }
            }
            (Data::Bytes(s), DataMut::Bytes(o), Layout::Packed(bits))
                if !self.packed_unaligned() =>
            {
                // Sub-byte types whose unit (the fused unpadded trailing axes) fills
                // whole bytes: every run starts on a byte boundary, so the bytes are
                // padded as they are, a unit of `unit * bits / 8` bytes at a time.
                let v = self.value.bits().unwrap_or(0) as u8;
                let fill = [(0..8 / bits).fold(0u8, |b, k| b | (v << (k * bits)))];
                let src: &[[u8; 1]] = bytemuck::cast_slice(s);
                let mut exec = Exec::new(
                    self,
                    src,
                    self.unit * bits as usize / 8,
                    fill,
                    Some(&fill[..]),
                );
                drive(&mut exec, bytemuck::cast_slice_mut::<u8, [u8; 1]>(o), opts);
            }
            (Data::Bytes(s), DataMut::Bytes(o), Layout::Packed(bits)) => {
                // Other sub-byte cases: rows start inside bytes, so runs are moved as
                // bit ranges (whole bytes at a time where they can be).
                let v = self.value.bits().unwrap_or(0) as u8;
                let exec = Exec::new(self, &[] as &[[u8; 1]], self.unit, [v], None);
                run_packed(&exec, s, o, bits as usize, v, opts);
                crate::packed::clear_unused_bits(o, bits, self.out_numel);
            }
            _ => {
                return Err(PadError::StorageMismatch {
                    dtype: self.dtype,
                    expected: "matching",
                    given: "mixed",
                })
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AxisPad, DType, Mode, PadSpec, Tensor};

    /// `run_range` over ranges that start and end inside rows and span parts of
    /// planes (threads never split so: blocks are whole rows where there are enough
    /// rows), directly and around the cache, equal the reference's bytes there.
    #[test]
    fn ranges_inside_planes_and_rows() {
        let shape = [2usize, 40, 700];
        let data: Vec<f32> = (0..shape.iter().product()).map(|i| i as f32).collect();
        let x = Tensor::from_slice(&shape, &data).unwrap();
        for mode in [Mode::Reflect, Mode::Constant(None)] {
            let pads = vec![AxisPad::new(0, 0), AxisPad::new(2, 3), AxisPad::new(3, 1)];
            let spec = PadSpec::new(pads, mode);
            let plan = Plan::new(DType::Float32, &shape, &spec).unwrap();
            let want = crate::reference::pad(x.view(), &spec).unwrap();
            let want: &[[u8; 4]] = bytemuck::cast_slice(want.bytes().unwrap());
            let src: &[[u8; 4]] = bytemuck::cast_slice(x.bytes().unwrap());
            let value = [0u8; 4];
            let mut exec = Exec::new(&plan, src, plan.unit, value, Some(&value));
            assert!(!exec.plane.rows().is_empty() && exec.fill_row.is_some());
            let row = exec.out_row;
            for stream in [false, true] {
                exec.stream = stream;
                // Planes of 45 rows: inside the first; across into the second; from
                // inside the first to the end.
                for (start, end) in [(5, 3 * row + 7), (row + 1, 60 * row + 9), (7, want.len())] {
                    let mut out = vec![[0xAAu8; 4]; end - start];
                    exec.run_range(start, &mut out);
                    assert!(out[..] == want[start..end], "{stream} {start}..{end}");
                }
            }
        }
    }
}
