//! Tiny planes: planes (one pass of the innermost outer axis) of at most
//! [`TINY_PLANE_MAX`] bytes, in rows of at most [`TINY_ROW_MAX`],
//! such as a 7x7 feature map padded by one to 9x9 (36-byte rows of f32, which the
//! row kernels write a few elements a call). Each is written whole from a table built
//! once per pad ([`TinyPlanes::new`]). With AVX-512 (F, BW and VBMI), every 64 output
//! bytes are taken by one [`Avx512::permute`] (by 4-byte words for elements of 4, 8
//! or 16 bytes, by bytes for other widths) from two 64-byte windows of the plane's
//! input, the constant kept in the index.
//! With AVX2, for elements of 4, 8 or 16 bytes every 32 output bytes are taken by
//! [`Avx2::permute2`] from at most two 32-byte windows of the plane's input and the
//! constant, a 4-byte word a lane; for other widths every 32 output bytes by
//! [`Avx2::shuffle2`], each half from two 16-byte windows, a byte a lane. Where no
//! piece needs a second window (a constant pad: each piece's input is one run with
//! the constant between its rows), by [`Avx2::permute`] and [`Avx2::shuffle`] from
//! one: half the loads; where only a few do (a map reflected by one), every piece
//! from one window and those few written again from two.

#![allow(unsafe_code)]

use crate::arch::{Avx2, Avx512, Blend16, Blend32, Cpu, Permute64, Permute8, Shuffle32};
use crate::plan::Seg;
use crate::tune::{TINY_GROUP_BYTES, TINY_PLANE_MAX, TINY_ROW_MAX, TINY_TWO_WINDOWS_SHARE};

use super::plane_loops::RowMap;

mod sink;
pub(in crate::exec) use sink::{Direct, Sink, Streamed, TinyStage};

/// 32 output bytes of a plane by words from one 32-byte input window: its byte
/// offset from the plane's input base, and what each output word takes.
struct Words {
    a: usize,
    permute: Permute8,
}

/// [`Words`] from two windows.
struct Words2 {
    a: usize,
    b: usize,
    permute: Permute8,
}

/// 32 output bytes of a plane by bytes, each half from its own 16-byte input window
/// (their byte offsets from the plane's input base), and what each output byte
/// takes.
struct Bytes {
    a: [usize; 2],
    shuffle: Shuffle32,
}

/// [`Bytes`] from two windows a half.
struct Bytes2 {
    a: [usize; 2],
    b: [usize; 2],
    blend: Blend32,
}

/// 64 output bytes of a plane from two 64-byte input windows (their byte offsets
/// from the plane's input base), by words or bytes: 128 bytes of table (`u32`
/// offsets, which the span's check lets them be).
struct Wide {
    permute: Permute64,
    take: u64,
    a: u32,
    b: u32,
}

const _: () = assert!(std::mem::size_of::<Wide>() == 128);

/// A plane's pieces: with AVX-512, 64 bytes a piece by words (elements of 4, 8 or
/// 16 bytes) or bytes ([`Avx512::permute`]), each from two windows. With AVX2, by 4-byte words ([`Avx2::permute`], elements of 4, 8 or 16
/// bytes), or by bytes ([`Avx2::shuffle`], elements of other widths), from one window
/// each, the few that need two written again after the others (their index in the
/// plane, and the piece from both windows); or all from two windows (`Words2`,
/// `Bytes2`) where more than a few need them ([`TINY_TWO_WINDOWS_SHARE`]).
enum Table {
    Words(Avx2, Vec<Words>, Vec<(usize, Words2)>),
    Words2(Avx2, Vec<Words2>),
    Bytes(Avx2, Vec<Bytes>, Vec<(usize, Bytes2)>),
    Bytes2(Avx2, Vec<Bytes2>),
    WideWords(Avx512, Vec<Wide>),
    WideBytes(Avx512, Vec<Wide>),
}

/// The table of one plane's output, the same for every plane of the pad.
pub(crate) struct TinyPlanes {
    table: Table,
    /// Input bytes from a plane's base that the windows read: every window lies
    /// inside (the unchecked loads of [`TinyPlanes::write`] rely on it).
    span: usize,
    /// Bytes of an output plane.
    bytes: usize,
    /// The constant's element repeated: a whole number of elements of each width.
    fill: [u8; 48],
}

impl TinyPlanes {
    /// The table for planes whose output rows take input rows `rows` (each `stride`
    /// bytes apart; [`RowMap::CONSTANT`] for a row of the constant) and whose bytes of
    /// a row take input columns as the row axis's `segs` say (`unit` bytes to a
    /// segment position; `in_row` bytes to an input row), `value` the bytes of the
    /// constant's element. `None` where the planes are not tiny, a piece would need more
    /// than two windows, or there is no AVX2. With AVX-512, a table of 64-byte pieces
    /// where the span is a window at least and no piece needs three.
    pub(super) fn new(
        cpu: Cpu,
        rows: &[u32],
        (segs, unit, in_row): (&[Seg], usize, usize),
        stride: usize,
        value: &[u8],
    ) -> Option<TinyPlanes> {
        let avx2 = cpu.avx2()?;
        let (grain, window) = grain(value.len())?;
        // A 64-byte piece's grains (and its windows').
        let lanes = 64 / grain;
        let (unit, in_row, stride) = (unit / grain, in_row / grain, stride / grain);
        let mut cols = Vec::new();
        for seg in segs {
            for k in 0..seg.len() {
                let src = seg.src_at(k);
                cols.extend((0..unit).map(|sub| src.map(|s| s * unit + sub)));
            }
        }
        let out = rows.len().checked_mul(cols.len())?;
        let bytes = out.checked_mul(grain)?;
        if out == 0 || bytes > TINY_PLANE_MAX || cols.len() * grain > TINY_ROW_MAX {
            return None;
        }
        if cols.iter().flatten().any(|&c| c >= in_row) {
            return None;
        }
        let last_row = rows.iter().filter(|&&r| r != RowMap::CONSTANT).max();
        let span = (*last_row? as usize)
            .checked_mul(stride)?
            .checked_add(in_row)?;
        // Each output grain's source in grains from the base, row by row, `NONE` for
        // the constant (and past the plane's end, to the last piece's end): every
        // source is under `span`, which leaves room for a window past it in a `u32`.
        const NONE: u32 = u32::MAX;
        u32::try_from(span.checked_add(2 * lanes)?).ok()?;
        let grain_src = |c: &Option<usize>| c.map_or(NONE, |c| c as u32);
        let cols: Vec<u32> = cols.iter().map(grain_src).collect();
        let mut srcs: Vec<u32> = Vec::with_capacity(out.next_multiple_of(lanes));
        for &r in rows {
            match r {
                RowMap::CONSTANT => srcs.extend(std::iter::repeat_n(NONE, cols.len())),
                r => {
                    let base = (r as usize * stride) as u32;
                    srcs.extend(
                        cols.iter()
                            .map(|&c| if c == NONE { NONE } else { base + c }),
                    );
                }
            }
        }
        srcs.resize(out.next_multiple_of(lanes), NONE);
        // Each piece's first grain and windows (in bytes from the base), and each of
        // its lanes' source, `window` lanes a piece in one list: its place in window a
        // or b, or the constant; `None` where a piece needs three windows or the span
        // is less than one.
        let pieces = |window: usize| -> Option<(Vec<Head>, Vec<Lane>)> {
            if span < window {
                return None;
            }
            let mut heads: Vec<Head> = Vec::with_capacity(out.div_ceil(window));
            let mut all = vec![FILL; out.next_multiple_of(window)];
            let chunks = srcs.chunks_exact(window).zip(all.chunks_exact_mut(window));
            for (start, (piece, lanes)) in (0..out).step_by(window).zip(chunks) {
                // Window `a` from the first element read, `b` from the first beyond it
                // (`NONE` where there is none).
                let min = |from: u32| {
                    piece
                        .iter()
                        .map(|&s| if s >= from { s } else { NONE })
                        .min()
                };
                let a = min(0).filter(|&a| a != NONE).unwrap_or(0);
                let b = min(a + window as u32).filter(|&b| b != NONE).unwrap_or(a);
                if min(b + window as u32).is_some_and(|s| s != NONE) {
                    return None;
                }
                // Both windows inside the span (still covering what they give).
                let (a, b) = (a as usize, b as usize);
                let (wa, wb) = (a.min(span - window), b.min(span - window));
                for (lane, &s) in lanes.iter_mut().zip(piece) {
                    *lane = match s as usize {
                        _ if s == NONE => FILL,
                        s if s < a + window => (s - wa) as u8,
                        s => (s - wb + window) as u8,
                    };
                }
                heads.push((start, wa * grain, wb * grain));
            }
            Some((heads, all))
        };

        let fill: [u8; 48] = std::array::from_fn(|i| value[i % value.len()]);
        let span_bytes = span.checked_mul(grain)?;
        let planes = |table| TinyPlanes {
            table,
            span: span_bytes,
            bytes,
            fill,
        };
        // (The wide pieces' windows are `u32`s: under the span.)
        let avx512 = cpu.avx512().filter(|_| u32::try_from(span_bytes).is_ok());
        if let Some((avx512, made)) = avx512.and_then(|w| Some((w, pieces(lanes)?))) {
            // The constant's bytes from each of its bytes on (a division a piece,
            // not a byte: the table's making is paid for by the runs).
            let pattern: [u8; 64 + 16] = std::array::from_fn(|i| value[i % value.len()]);
            let entry = |&(start, a, b, from): &Piece| {
                let at = start * grain % value.len();
                // A lane's place in the windows is the permute's index (its low
                // byte, for words), a constant's grain keeps the constant's bytes.
                // (Grains of 1 or 4 bytes: shifts, not divisions, a byte.)
                let shift = grain.trailing_zeros();
                let index: [u8; 64] = std::array::from_fn(|i| match from[i >> shift] {
                    FILL => pattern[at + i],
                    k if i & (grain - 1) == 0 => k,
                    _ => 0,
                });
                let take =
                    (from.iter().enumerate()).fold(0, |t, (i, &k)| t | (u64::from(k != FILL) << i));
                Wide {
                    permute: Permute64(index),
                    take,
                    a: a as u32,
                    b: b as u32,
                }
            };
            let pieces = joined(&made, lanes).iter().map(entry).collect();
            return Some(planes(match grain {
                4 => Table::WideWords(avx512, pieces),
                _ => Table::WideBytes(avx512, pieces),
            }));
        }
        let made = pieces(window)?;
        let pieces = joined(&made, window);
        let w = window as u8;
        let word = |lane: &Lane| match *lane {
            FILL => Permute8::FILL,
            k if k < w => u32::from(k),
            k => Permute8::FROM_B | u32::from(k - w),
        };
        let two = |lanes: &[Lane]| lanes.iter().any(|&k| k != FILL && k >= w);
        // Bytes: pairs of 16-byte pieces, one a half (a last piece alone is paired
        // with itself: what it writes past the plane is not the plane's); each byte
        // from window `a` or `b` of its half, or the constant's byte at the plane's
        // byte `start + i`.
        let pairs: Vec<(&Piece, &Piece)> = pieces
            .chunks(2)
            .map(|pair| (&pair[0], pair.last().unwrap_or(&pair[0])))
            .collect();
        let blend = |&(lo, hi): &(&Piece, &Piece)| {
            let mut blend = Blend32 {
                a: [Blend16::NONE; 32],
                b: [Blend16::NONE; 32],
                fill: [0; 32],
            };
            for (half, (start, _, _, lanes)) in [lo, hi].into_iter().enumerate() {
                for (i, lane) in lanes.iter().enumerate() {
                    let at = 16 * half + i;
                    match *lane {
                        FILL => blend.fill[at] = value[(start + i) % value.len()],
                        k if k < w => blend.a[at] = k,
                        k => blend.b[at] = k - w,
                    }
                }
            }
            blend
        };
        let words2 = |(_, a, b, lanes): &Piece| Words2 {
            a: *a,
            b: *b,
            permute: Permute8(std::array::from_fn(|l| word(&lanes[l]))),
        };
        let bytes2 = |pair: &(&Piece, &Piece)| Bytes2 {
            a: [pair.0 .1, pair.1 .1],
            b: [pair.0 .2, pair.1 .2],
            blend: blend(pair),
        };
        let table = if grain == 4 {
            let one = |(_, a, _, lanes): &Piece| Words {
                a: *a,
                permute: Permute8(std::array::from_fn(|l| word(&lanes[l]))),
            };
            match by_windows(&pieces, |p| two(p.3), one, words2) {
                Ok((pieces, again)) => Table::Words(avx2, pieces, again),
                Err(pieces) => Table::Words2(avx2, pieces),
            }
        } else {
            let one = |pair: &(&Piece, &Piece)| {
                let blend = blend(pair);
                Bytes {
                    a: [pair.0 .1, pair.1 .1],
                    shuffle: Shuffle32 {
                        control: blend.a,
                        fill: blend.fill,
                    },
                }
            };
            let twice = |pair: &(&Piece, &Piece)| two(pair.0 .3) || two(pair.1 .3);
            match by_windows(&pairs, twice, one, bytes2) {
                Ok((pairs, again)) => Table::Bytes(avx2, pairs, again),
                Err(pairs) => Table::Bytes2(avx2, pairs),
            }
        };
        Some(planes(table))
    }

    /// Proof of AVX-512 where the table is of 64-byte pieces.
    fn avx512(&self) -> Option<Avx512> {
        match self.table {
            Table::WideWords(avx512, _) | Table::WideBytes(avx512, _) => Some(avx512),
            _ => None,
        }
    }

    /// The entries (words or bytes, each a few nanoseconds to make) of the table for
    /// planes of `bytes` output bytes and elements of `size` bytes; 0 where there is
    /// none.
    fn grains(bytes: usize, size: usize) -> usize {
        grain(size).map_or(0, |(grain, _)| bytes / grain)
    }

    /// Input bytes from a plane's base that its table reads.
    pub(super) fn span(&self) -> usize {
        self.span
    }

    /// Writes one plane's output at the start of `dst` from `src`, the input's bytes
    /// from the plane's base on. Where `dst` goes on past the plane, the last piece is
    /// stored whole: up to 63 bytes after the plane are overwritten (the caller writes
    /// them next).
    #[inline(always)]
    pub(super) fn write(&self, src: &[u8], dst: &mut [u8]) {
        let src = &src[..self.span];
        // Unchecked: a bounds check a window ran the 7x7 maps 8% slower hot.
        //
        // # Safety
        // `at + W <= src.len()`.
        unsafe fn window<const W: usize>(src: &[u8], at: usize) -> &[u8; W] {
            debug_assert!(at + W <= src.len());
            // SAFETY: the W bytes at `at` lie inside `src`, as the caller vouches;
            // `[u8; W]` has alignment 1.
            unsafe { &*src.as_ptr().add(at).cast::<[u8; W]>() }
        }
        // Every window of the table lies inside the span, `src` (`TinyPlanes::new`
        // clamps each start to at most `span - window` grains, `span - W` bytes).
        let fill: [u8; 32] = std::array::from_fn(|i| self.fill[i]);
        let words2 = |avx2: &Avx2, p: &Words2| {
            // SAFETY: `p`'s windows lie inside `src`, as above.
            let (a, b) = unsafe { (window(src, p.a), window(src, p.b)) };
            avx2.permute2(a, b, &p.permute, &fill)
        };
        let bytes2 = |avx2: &Avx2, p: &Bytes2| {
            // SAFETY: `p`'s windows lie inside `src`, as above.
            let (a, b) = unsafe {
                (
                    [window(src, p.a[0]), window(src, p.a[1])],
                    [window(src, p.b[0]), window(src, p.b[1])],
                )
            };
            avx2.shuffle2(a, b, &p.blend)
        };
        match &self.table {
            Table::Words(avx2, pieces, twos) => {
                pieces_to(dst, self.bytes, pieces, |p| {
                    // SAFETY: `p`'s window lies inside `src`, as above.
                    let a = unsafe { window(src, p.a) };
                    avx2.permute(a, &p.permute, &fill)
                });
                pieces_again(dst, self.bytes, twos, |p| words2(avx2, p));
            }
            Table::Words2(avx2, pieces) => pieces_to(dst, self.bytes, pieces, |p| words2(avx2, p)),
            Table::Bytes(avx2, pieces, twos) => {
                pieces_to(dst, self.bytes, pieces, |p| {
                    // SAFETY: `p`'s windows lie inside `src`, as above.
                    let a = unsafe { [window(src, p.a[0]), window(src, p.a[1])] };
                    avx2.shuffle(a, &p.shuffle)
                });
                pieces_again(dst, self.bytes, twos, |p| bytes2(avx2, p));
            }
            Table::Bytes2(avx2, pieces) => pieces_to(dst, self.bytes, pieces, |p| bytes2(avx2, p)),
            Table::WideWords(avx512, pieces) => pieces_to(dst, self.bytes, pieces, |p| {
                // SAFETY: `p`'s windows lie inside `src`, as above.
                let (a, b) = unsafe { (window(src, p.a as usize), window(src, p.b as usize)) };
                avx512.permute::<4>([a, b], &p.permute, p.take)
            }),
            Table::WideBytes(avx512, pieces) => pieces_to(dst, self.bytes, pieces, |p| {
                // SAFETY: `p`'s windows lie inside `src`, as above.
                let (a, b) = unsafe { (window(src, p.a as usize), window(src, p.b as usize)) };
                avx512.permute::<1>([a, b], &p.permute, p.take)
            }),
        }
    }

    /// Writes the constant over one plane's output at the start of `dst`, 48 bytes a
    /// store (whole elements of every width: 3, 6 and 12 bytes too), the last store
    /// whole where `dst` goes on past the plane: up to 47 bytes after it are
    /// overwritten (the caller writes them next).
    #[inline(always)]
    pub(super) fn write_constant(&self, dst: &mut [u8]) {
        let end = self.bytes.next_multiple_of(48).min(dst.len());
        for out in dst[..end].chunks_mut(48) {
            out.copy_from_slice(&self.fill[..out.len()]);
        }
    }
}

/// A pad's tiny planes: the table of one plane, and where a run of planes holds a
/// few that make [`TINY_GROUP_BYTES`], the group's (their inputs a fixed step
/// apart: the axis above copied, whose stride is every run's step).
pub(crate) struct Tiny {
    pub(super) one: TinyPlanes,
    pub(super) group: Option<TinyGroup>,
    /// Whether runs of planes go around the cache where the output does
    /// ([`Streamed`]; outputs of at least [`crate::tune::TINY_STREAM_MIN`]).
    pub(super) around: bool,
}

/// Tiny planes written several at once: the table of `planes` planes one after the
/// other, so that the work of a plane in a run and its last partial piece are paid
/// once a group.
pub(crate) struct TinyGroup {
    pub(super) planes: usize,
    pub(super) table: TinyPlanes,
}

impl Tiny {
    /// The tables of planes whose output rows take input rows `rows` (`stride`
    /// elements of `size` bytes apart; `row` and `value` as [`TinyPlanes::new`]'s):
    /// a plane's, and where there is an axis above the plane axis (`above`: the
    /// elements between two planes' inputs, and its length, the most planes a run
    /// has) a group's; `around`: whether their runs go around the cache where the
    /// output does. `None` where there is no plane's table.
    pub(super) fn new(
        cpu: Cpu,
        rows: &[u32],
        row: (&[Seg], usize, usize),
        (stride, size): (usize, usize),
        above: Option<(usize, usize)>,
        value: &[u8],
        around: bool,
    ) -> Option<Tiny> {
        let one = TinyPlanes::new(cpu, rows, row, stride * size, value)?;
        let group = above.and_then(|(step, most)| {
            let planes = Tiny::group_planes(one.bytes, most);
            // The group's rows: the plane's, a step on for each plane after the first.
            if planes == 0 || stride == 0 || !step.is_multiple_of(stride) {
                return None;
            }
            let step_rows = u32::try_from(step / stride).ok()?;
            let mut group = Vec::with_capacity(planes * rows.len());
            for p in 0..u32::try_from(planes).ok()? {
                for &r in rows {
                    group.push(match r {
                        RowMap::CONSTANT => r,
                        r => r
                            .checked_add(p.checked_mul(step_rows)?)
                            .filter(|&r| r != RowMap::CONSTANT)?,
                    });
                }
            }
            let table = TinyPlanes::new(cpu, &group, row, stride * size, value)?;
            Some(TinyGroup { planes, table })
        });
        Some(Tiny { one, group, around })
    }

    /// The entries (words or bytes, each a few nanoseconds to make) of the tables for
    /// planes of `bytes` output bytes and elements of `size` bytes, in runs of at
    /// most `most` planes: a plane's and a group's; 0 where there is none.
    pub(super) fn grains(bytes: usize, size: usize, most: usize) -> usize {
        TinyPlanes::grains(bytes, size) * (1 + Tiny::group_planes(bytes, most))
    }

    /// The planes of a group of planes of `bytes` output bytes, in runs of at most
    /// `most` planes: as many as make [`TINY_GROUP_BYTES`], at most `most`; 0 where
    /// that is under two.
    fn group_planes(bytes: usize, most: usize) -> usize {
        match (TINY_GROUP_BYTES / bytes.max(1)).min(most) {
            k if k >= 2 => k,
            _ => 0,
        }
    }

    /// Proof of AVX-512 where a table is of 64-byte pieces: the runs of planes are
    /// then written by code compiled for it ([`crate::arch::with_avx512`]).
    pub(super) fn avx512(&self) -> Option<Avx512> {
        let group = self.group.as_ref().map(|g| &g.table);
        [Some(&self.one), group]
            .into_iter()
            .flatten()
            .find_map(TinyPlanes::avx512)
    }
}

/// The grain of a table for elements of `size` bytes and its pieces' windows (in
/// grains): words of 4 bytes, 8 to a window, where the elements are whole words;
/// bytes, 16 to a window, otherwise. `None` for other sizes.
/// (The widths an element or a fused unit has; 48 bytes of the constant are a whole
/// number of elements of each.)
fn grain(size: usize) -> Option<(usize, usize)> {
    match size {
        4 | 8 | 16 => Some((4, 8)),
        1 | 2 | 3 | 6 | 12 => Some((1, 16)),
        _ => None,
    }
}

/// A piece of a plane being tabled: its first output grain, the byte offsets of its
/// windows `a` and `b` from the plane's input base, and where each of its grains
/// comes from.
type Piece<'a> = (usize, usize, usize, &'a [Lane]);

/// A [`Piece`] but for its lanes.
type Head = (usize, usize, usize);

/// The pieces of `heads`, each with its `window` lanes of `all`.
fn joined<'a>((heads, all): &'a (Vec<Head>, Vec<Lane>), window: usize) -> Vec<Piece<'a>> {
    let lanes = all.chunks_exact(window);
    heads
        .iter()
        .zip(lanes)
        .map(|(&(s, a, b), l)| (s, a, b, l))
        .collect()
}

/// Where one output grain (word or byte) of a piece comes from: its place in window
/// `a` (below the piece's `window` lanes), or in `b` plus `window`, or
/// [`FILL`], the constant. (A byte, not an enum of three: the tables' making is a
/// loop over every grain, which branches on it no more.)
type Lane = u8;

/// The [`Lane`] of a grain of the constant.
const FILL: Lane = u8::MAX;

/// Writes a plane's `bytes` at the start of `dst`, `W` bytes a piece from `piece`,
/// the last piece stored whole where `dst` goes on past the plane.
#[inline(always)]
fn pieces_to<P, const W: usize>(
    dst: &mut [u8],
    bytes: usize,
    pieces: &[P],
    piece: impl Fn(&P) -> [u8; W],
) {
    let end = bytes.next_multiple_of(W).min(dst.len());
    let mut chunks = dst[..end].chunks_exact_mut(W);
    // Whole pieces by fixed-size stores (a copy of a length known only at run time
    // was a call to memcpy).
    for (p, out) in pieces.iter().zip(&mut chunks) {
        if let Ok(out) = <&mut [u8; W]>::try_from(out) {
            *out = piece(p);
        }
    }
    let tail = chunks.into_remainder();
    if let (false, Some(p)) = (tail.is_empty(), pieces.last()) {
        last_piece(tail, &piece(p));
    }
}

/// Pieces from one window each, and the few from two again with their index.
type OneAndAgain<O, T> = (Vec<O>, Vec<(usize, T)>);

/// The table's pieces from `units` (pieces of words, or pairs of pieces of bytes):
/// each from one window (`one`) and those that need two (`two`) from both again, with
/// their index (`both`), where at most one in [`TINY_TWO_WINDOWS_SHARE`] needs two;
/// else every one from both windows.
fn by_windows<U, O, T>(
    units: &[U],
    two: impl Fn(&U) -> bool,
    one: impl Fn(&U) -> O,
    both: impl Fn(&U) -> T,
) -> Result<OneAndAgain<O, T>, Vec<T>> {
    let twos: Vec<usize> = (0..units.len()).filter(|&k| two(&units[k])).collect();
    if twos.len() * TINY_TWO_WINDOWS_SHARE > units.len() {
        return Err(units.iter().map(both).collect());
    }
    let again = twos.into_iter().map(|k| (k, both(&units[k]))).collect();
    Ok((units.iter().map(one).collect(), again))
}

/// Writes the pieces `again` (each with its index among the plane's pieces) over
/// those [`pieces_to`] wrote at the start of `dst`, as it stores them.
#[inline(always)]
fn pieces_again<P, const W: usize>(
    dst: &mut [u8],
    bytes: usize,
    again: &[(usize, P)],
    piece: impl Fn(&P) -> [u8; W],
) {
    let end = bytes.next_multiple_of(W).min(dst.len());
    let dst = &mut dst[..end];
    for (k, p) in again {
        let at = k * W;
        let v = piece(p);
        // A whole piece by one fixed-size store (a copy of the length left, which the
        // compiler made of both cases, was a call to memcpy a piece).
        match dst.get_mut(at..at + W).map(<&mut [u8; W]>::try_from) {
            Some(Ok(out)) => *out = v,
            _ => last_piece(dst.get_mut(at..).unwrap_or_default(), &v),
        }
    }
}

/// The part of a piece `v` that `out`, the plane's end, holds (of the last plane
/// of a part, whose output ends there: [`pieces_to`], [`pieces_again`]).
#[cold]
fn last_piece(out: &mut [u8], v: &[u8]) {
    let n = out.len().min(v.len());
    out[..n].copy_from_slice(&v[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AxisPad, DType, Mode, PadSpec, Plan};

    /// 7x7, 7x24 and 7x100 planes padded by their tables, of words (f32) and of bytes
    /// (f16, u8): the reference's planes (the table alone, small enough for Miri;
    /// `exec::tests` runs whole pads). With AVX-512, 64-byte pieces wherever a plane's
    /// input is a window at least. With AVX2 alone, from one window a piece where the
    /// constant pads the rows, from two where wrapped columns need them, from one and
    /// a few pieces again from two where 100 columns are reflected by one.
    #[test]
    fn a_plane_by_its_table_is_the_references() {
        let cpu = crate::arch::Cpu::get();
        if cpu.avx2().is_none() {
            return;
        }
        // The windows of each piece: one, one and two for a few again, or two; two
        // 64-byte ones.
        let windows = |t: &TinyPlanes| match &t.table {
            Table::Words(_, _, again) if again.is_empty() => "one",
            Table::Bytes(_, _, again) if again.is_empty() => "one",
            Table::Words(..) | Table::Bytes(..) => "again",
            Table::Words2(..) | Table::Bytes2(..) => "two",
            Table::WideWords(..) | Table::WideBytes(..) => "wide",
        };
        // AVX-512 where this CPU has it, and AVX2 alone.
        for (cpu, dtype) in [cpu, cpu.without("avx512")]
            .into_iter()
            .flat_map(|c| [DType::Float32, DType::Float16, DType::Uint8].map(|d| (c, d)))
        {
            let size = dtype.byte_len(1).unwrap();
            // A constant of distinct bytes (by its bits: Miri has no F16C conversions).
            let bits = 0x4746_4544u128 & ((1 << (8 * size)) - 1);
            let seven = crate::Scalar::from_bits(dtype, bits).unwrap();
            let bits = bits.to_le_bytes();
            let constant = Mode::Constant(Some(seven));
            // Rows, columns, pads, mode, and the windows of the table's pieces.
            let cases = [
                (7, 7, [(1, 2), (2, -1)], Mode::Reflect, None),
                (7, 7, [(1, 2), (2, -1)], constant.clone(), Some("one")),
                (7, 7, [(1, 2), (2, -1)], Mode::Wrap, None),
                (7, 7, [(1, 2), (2, -1)], Mode::Edge, None),
                (7, 24, [(0, 0), (0, 3)], constant, Some("one")),
                (7, 24, [(0, 0), (0, 3)], Mode::Wrap, Some("two")),
                (7, 7, [(1, 1), (1, 1)], Mode::Reflect, None),
                (7, 24, [(1, 1), (3, 3)], Mode::Reflect, None),
                (7, 100, [(1, 1), (1, 1)], Mode::Reflect, Some("again")),
                (7, 100, [(1, 1), (2, 2)], Mode::Symmetric, None),
                // The plane's last piece, short of 32 bytes, written again (in f32).
                (2, 41, [(1, -1), (-1, 2)], Mode::Wrap, None),
            ];
            for (n, cols, pads, mode, want_windows) in cases {
                let data: Vec<u8> = (0..n * cols * size).map(|i| (i * 7 + 3) as u8).collect();
                let x = crate::TensorView::from_bytes(dtype, &[n, cols], &data).unwrap();
                let axes = pads.iter().map(|&(b, a)| AxisPad::new(b, a)).collect();
                let spec = PadSpec::new(axes, mode.clone());
                let plan = Plan::new(dtype, &[n, cols], &spec).unwrap();
                let want = crate::reference::pad(x.clone(), &spec).unwrap();
                let want = want.bytes().unwrap();
                let rows = super::super::setup::row_map(&plan.axes[0].segs, plan.axes[0].map.n);
                let row = (&plan.axes[1].segs[..], size, cols * size);
                let t = TinyPlanes::new(cpu, &rows.unwrap(), row, cols * size, &bits[..size]);
                let t = t.unwrap();
                let mut out = vec![0xAAu8; want.len()];
                t.write(&data, &mut out);
                let case = format!("{dtype:?} {n}x{cols} {pads:?} {mode:?}");
                assert_eq!(&out[..], want, "{case}");
                match cpu.avx512() {
                    Some(_) => assert_eq!(windows(&t) == "wide", t.span >= 64, "{case}"),
                    None => {
                        if let Some(w) = want_windows {
                            assert_eq!(windows(&t), w, "{case}");
                        }
                    }
                }
            }
        }
        // More than two windows to a piece (rows 0, 3 and 6 in its 8 elements, of 32 or
        // 64 bytes): no table, of words or of bytes.
        let cpu = crate::arch::Cpu::get();
        let rows = [0u32, 3, 6, 0];
        let segs = [Seg::Copy { src: 0, len: 2 }];
        assert!(TinyPlanes::new(cpu, &rows, (&segs, 4, 28), 28, &[0; 4]).is_none());
        assert!(TinyPlanes::new(cpu, &rows, (&segs, 1, 7), 7, &[0; 1]).is_none());
    }
}
