//! The element representations the executor is generic over (`[u8; N]`: fixed-width
//! types, and strings' 16-byte spans), chosen once per call, never per element, and what
//! each can do: copy a run, fill with the constant, and for bytes the narrow rows and
//! the plane loops.

use super::plane_loops::{copy_plane, copy_plane_singles, CopyPlane, Ends, Stage};
use crate::arch::Cpu;
use crate::tune::{CACHED_COPY_PIECE, CONSTANT_PERIOD_MIN, INLINE_COPY_MAX, STREAMED_COPY_MIN};

use super::program::interleave;
use super::row_kernel::{narrow_rows, shuffled_rows, Narrow, PlaneEnds, Shuffle, Stores};
use super::Exec;

/// Operations the executor needs from an element representation.
pub(crate) trait Elem: Clone + Send + Sync {
    /// Copies `src` into `dst`; runs of [`STREAMED_COPY_MIN`] bytes or more around the cache
    /// where `stream` says the output is written so.
    fn copy_run(dst: &mut [Self], src: &[Self], stream: bool);
    fn fill(dst: &mut [Self], v: &Self);
    /// Fills `out` with `v` around the cache: its whole 64-byte lines with
    /// non-temporal stores of a line of the constant held in registers, the partial
    /// lines at either end as [`fill`](Self::fill) does. Returns `false`, having
    /// written nothing, where it cannot (no such stores, elements that do not tile a
    /// line).
    fn fill_around_cache(_out: &mut [Self], _v: &Self, _cpu: Cpu) -> bool {
        false
    }
    /// Writes `out` as `vals` interleaved with `v` (`[vals[0], v, vals[1], v, ..]`,
    /// as `program::interleave`) around the cache: its whole 64-byte lines
    /// interleaved in registers and stored with non-temporal stores, the partial lines
    /// at either end as `interleave` does. Returns `false`, having written nothing,
    /// where it cannot (no such stores, elements that do not tile a line, fewer
    /// `vals` than `out` takes).
    fn interleave_around_cache(_out: &mut [Self], _vals: &[Self], _v: &Self) -> bool {
        false
    }
    /// Writes up to `rows` whole narrow output rows into `dst` as `w` says
    /// ([`narrow_rows`]), row `k` reading the input row at `first + k * stride`;
    /// returns how many rows it wrote (0 where it cannot; a row narrower than its
    /// window may have written into the next, which the caller then writes).
    fn narrow_rows(
        _w: &Narrow,
        _src: &[Self],
        _first: usize,
        _stride: usize,
        _dst: &mut [Self],
        _rows: usize,
        _stores: Stores,
    ) -> usize {
        0
    }
    /// Writes up to `rows` narrow output rows into `dst` from the consecutive input
    /// rows starting at `src`'s first element, several a shuffle ([`shuffled_rows`]);
    /// returns how many rows it wrote (the caller writes the rest).
    fn shuffled_rows(_s: &Shuffle, _src: &[Self], _dst: &mut [Self], _rows: usize) -> usize {
        0
    }
    /// Writes rows `rows` of a plane of `x` through the plane loops
    /// ([`plane_loops`](super::plane_loops)), for the row kernels they write; `false`,
    /// having written nothing, where they cannot. `jump`: the next plane's jump lines to
    /// prefetch meanwhile.
    fn copy_plane(
        _x: &Exec<'_, Self>,
        _base: usize,
        _stride: usize,
        _rows: std::ops::Range<usize>,
        _jump: &[usize],
        _stage: Option<&mut Stage>,
        _dst: &mut [Self],
    ) -> bool {
        false
    }

    /// The elements' bytes (what the tiny planes' table reads).
    fn as_bytes(s: &[Self]) -> &[u8];

    /// The elements' bytes, to write.
    fn as_bytes_mut(s: &mut [Self]) -> &mut [u8];
}

/// Copies `src` into `dst` (of the same length): runs of 64 bytes to
/// [`INLINE_COPY_MAX`] through inlined 64-byte moves (a `memcpy` call per row was
/// slower there), longer ones by `memcpy`, whose string-move path is faster there
/// (but at the distances where it stalls: `arch::copy_cached`), and
/// with `stream` runs of at least [`STREAMED_COPY_MIN`] bytes around the cache; without,
/// through the cache, in pieces where a `memcpy` would not stay in it.
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8], stream: bool) {
    let n = dst.len();
    if (64..INLINE_COPY_MAX).contains(&n) && crate::arch::copy_moves(dst, src) {
        return;
    }
    // The length test stays here, inlined, so that short runs make no call.
    if n < STREAMED_COPY_MIN
        || !stream
        || !crate::arch::stream_copy(dst, src, STREAMED_COPY_MIN, crate::arch::Cpu::get())
    {
        if n <= CACHED_COPY_PIECE {
            crate::arch::copy_cached(dst, src);
        } else {
            copy_in_pieces(dst, src);
        }
    }
}

/// A long copy through the cache, [`CACHED_COPY_PIECE`] bytes a `memcpy`
/// (`arch::copy_cached`): one longer
/// `memcpy` may go around the cache by itself (glibc's does above its non-temporal
/// threshold), which a run that is not to stream must not.
#[inline(never)]
fn copy_in_pieces(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst
        .chunks_mut(CACHED_COPY_PIECE)
        .zip(src.chunks(CACHED_COPY_PIECE))
    {
        crate::arch::copy_cached(d, s);
    }
}

impl<const N: usize> Elem for [u8; N] {
    #[inline]
    fn copy_run(dst: &mut [Self], src: &[Self], stream: bool) {
        if dst.len() <= 2 {
            // Single elements (reflect / symmetric pads) without a memcpy call.
            dst.iter_mut().zip(src).for_each(|(d, s)| *d = *s);
        } else {
            copy_bytes(
                bytemuck::cast_slice_mut(dst),
                bytemuck::cast_slice(src),
                stream,
            );
        }
    }

    #[inline]
    fn narrow_rows(
        w: &Narrow,
        src: &[Self],
        first: usize,
        stride: usize,
        dst: &mut [Self],
        rows: usize,
        stores: Stores,
    ) -> usize {
        let (src, dst): (&[u8], &mut [u8]) =
            (bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst));
        let at = (first * N, stride * N);
        match w.width {
            8 => narrow_rows::<8>(w, src, at, dst, rows, stores),
            16 => narrow_rows::<16>(w, src, at, dst, rows, stores),
            32 => narrow_rows::<32>(w, src, at, dst, rows, stores),
            _ => narrow_rows::<64>(w, src, at, dst, rows, stores),
        }
    }

    #[inline(always)]
    fn shuffled_rows(s: &Shuffle, src: &[Self], dst: &mut [Self], rows: usize) -> usize {
        shuffled_rows(
            s,
            bytemuck::cast_slice(src),
            bytemuck::cast_slice_mut(dst),
            rows,
        )
    }

    #[inline(always)]
    fn as_bytes(s: &[Self]) -> &[u8] {
        s.as_flattened()
    }

    #[inline(always)]
    fn as_bytes_mut(s: &mut [Self]) -> &mut [u8] {
        s.as_flattened_mut()
    }

    #[inline(always)]
    fn copy_plane(
        x: &Exec<'_, Self>,
        base: usize,
        stride: usize,
        rows: std::ops::Range<usize>,
        jump: &[usize],
        stage: Option<&mut Stage>,
        dst: &mut [Self],
    ) -> bool {
        let Some(constant_row) = &x.setup.planes.constant_row else {
            return false;
        };
        let Some((copy, ends)) = x.setup.kernel.plane_row(x.out_row) else {
            return false;
        };
        let plane = CopyPlane {
            src: bytemuck::cast_slice(x.src),
            base: base * N,
            stride: stride * N,
            rows: &x.setup.planes.map,
            range: rows,
            in_row: x.in_row * N,
            out_row: x.out_row * N,
            constant_row,
            constant_period: CONSTANT_PERIOD_MIN.next_multiple_of(64 * N),
            copy: copy.bytes(N),
            ends: match ends {
                PlaneEnds::Blend(e) => Ends::Blend(e),
                PlaneEnds::Constant => Ends::Constant,
                PlaneEnds::Open | PlaneEnds::Singles(_) => Ends::Open,
            },
            jump,
        };
        let out = bytemuck::cast_slice_mut(dst);
        match ends {
            PlaneEnds::Singles(k) => copy_plane_singles(&plane, k, stage.is_some(), x.cpu, out),
            _ => copy_plane(&plane, stage, x.cpu, out),
        }
    }

    #[inline]
    fn fill_around_cache(out: &mut [Self], v: &Self, cpu: Cpu) -> bool {
        by_lines(
            out,
            |_, body| {
                let line: [u8; 64] = std::array::from_fn(|i| v[i % N]);
                crate::arch::stream_fill_lines(bytemuck::cast_slice_mut(body), &line, cpu)
            },
            |_, part| Self::fill(part, v),
        )
    }

    #[inline]
    fn interleave_around_cache(out: &mut [Self], vals: &[Self], v: &Self) -> bool {
        // Output element `at` is `vals[at / 2]` where `at` is even, else `v`.
        let Some(vals) = vals.get(..out.len().div_ceil(2)) else {
            return false;
        };
        by_lines(
            out,
            |at, body| {
                let s = &vals[at.div_ceil(2)..][..body.len() / 2];
                let (d, s) = (bytemuck::cast_slice_mut(body), bytemuck::cast_slice(s));
                crate::arch::stream_interleaved::<N>(d, s, v, at % 2 == 1)
            },
            |at, part| interleave(part, &vals[at.div_ceil(2)..], v, at % 2 == 1),
        )
    }

    #[inline]
    fn fill(dst: &mut [Self], v: &Self) {
        // Up to four elements by fixed stores: as a loop, the compiler made each row
        // end a `memset` call (u8 [128,128] constant 1: a quarter of the pad's time).
        match dst {
            [] => {}
            [a] => *a = *v,
            [a, b] => [*a, *b] = [*v; 2],
            [a, b, c] => [*a, *b, *c] = [*v; 3],
            [a, b, c, d] => [*a, *b, *c, *d] = [*v; 4],
            _ => fill_long(dst, v),
        }
    }
}

/// [`Elem::fill`] of more than four elements.
fn fill_long<const N: usize>(dst: &mut [[u8; N]], v: &[u8; N]) {
    if v.iter().all(|&b| b == v[0]) {
        // A byte-uniform value (zero, the common case) is a memset.
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(dst);
        bytes.fill(v[0]);
    } else {
        dst.fill(*v);
    }
}

/// Writes `out` in three parts: its whole 64-byte lines by `lines(at, body)` (`at`:
/// the index in `out` of `body`'s first element), first, which may refuse them
/// (`false`: nothing is written), then the partial lines at either end by
/// `ends(at, part)`. Refuses elements that do not tile a line, or that a line
/// boundary would split.
fn by_lines<const N: usize>(
    out: &mut [[u8; N]],
    lines: impl FnOnce(usize, &mut [[u8; N]]) -> bool,
    mut ends: impl FnMut(usize, &mut [[u8; N]]),
) -> bool {
    if !64usize.is_multiple_of(N) {
        return false;
    }
    let skip = out.as_ptr().cast::<u8>().align_offset(64);
    if !skip.is_multiple_of(N) {
        return false;
    }
    let head = (skip / N).min(out.len());
    let (first, rest) = out.split_at_mut(head);
    let n = rest.len() / (64 / N) * (64 / N);
    let (body, tail) = rest.split_at_mut(n);
    if !body.is_empty() && !lines(head, body) {
        return false;
    }
    ends(0, first);
    ends(head + n, tail);
    true
}
