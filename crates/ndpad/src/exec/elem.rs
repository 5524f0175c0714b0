//! The element representations the executor is generic over (`[u8; N]`: fixed-width
//! types, and strings' 16-byte spans), chosen once per call, never per element, and what
//! each can do: copy a run, fill with the constant, and for bytes the narrow rows and
//! the plane loops.

use super::plane_loops::{copy_plane, copy_plane_singles, CopyPlane, Ends, Stage};
use crate::arch::Cpu;
use crate::tune::{CACHED_COPY_PIECE, INLINE_COPY_MAX, STAGE_BYTES, STREAM_MIN};

use super::row_kernel::{narrow_rows, shuffled_rows, Narrow, PlaneEnds, Shuffle};
use super::Exec;

/// Operations the executor needs from an element representation.
pub(crate) trait Elem: Clone + Send + Sync {
    /// Copies `src` into `dst`; runs of [`STREAM_MIN`] bytes or more around the cache
    /// where `stream` says the output is written so.
    fn copy_run(dst: &mut [Self], src: &[Self], stream: bool);
    fn fill(dst: &mut [Self], v: &Self);
    /// Writes `out` around the cache through a staging buffer: `make(at, piece)`
    /// writes elements `at .. at + piece.len()` of `out` into `piece`, a buffer in the
    /// cache (or `out`'s own partial lines at either end), whose whole lines
    /// non-temporal stores then move to `out`. Returns `false`, having written
    /// nothing, where it cannot (no such stores, elements that do not tile a line).
    fn around_cache(_out: &mut [Self], _cpu: Cpu, _make: impl FnMut(usize, &mut [Self])) -> bool {
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
        _stream: bool,
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
}

/// Copies `src` into `dst` (of the same length): runs of 64 bytes to
/// [`INLINE_COPY_MAX`] through inlined 64-byte moves (a `memcpy` call per row was
/// slower there), longer ones by `memcpy`, whose string-move path is faster there, and
/// with `stream` runs of at least [`STREAM_MIN`] bytes around the cache; without,
/// through the cache, in pieces where a `memcpy` would not stay in it.
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8], stream: bool) {
    let n = dst.len();
    if (64..INLINE_COPY_MAX).contains(&n) && crate::arch::copy_moves(dst, src) {
        return;
    }
    // The length test stays here, inlined, so that short runs make no call.
    if n < STREAM_MIN
        || !stream
        || !crate::arch::stream_copy(dst, src, STREAM_MIN, crate::arch::Cpu::get())
    {
        if n <= CACHED_COPY_PIECE {
            dst.copy_from_slice(src);
        } else {
            copy_in_pieces(dst, src);
        }
    }
}

/// A long copy through the cache, [`CACHED_COPY_PIECE`] bytes a `memcpy`: one longer
/// `memcpy` may go around the cache by itself (glibc's does above its non-temporal
/// threshold), which a run that is not to stream must not.
#[inline(never)]
fn copy_in_pieces(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst
        .chunks_mut(CACHED_COPY_PIECE)
        .zip(src.chunks(CACHED_COPY_PIECE))
    {
        d.copy_from_slice(s);
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
        stream: bool,
    ) -> usize {
        let (src, dst): (&[u8], &mut [u8]) =
            (bytemuck::cast_slice(src), bytemuck::cast_slice_mut(dst));
        let at = (first * N, stride * N);
        match w.width {
            8 => narrow_rows::<8>(w, src, at, dst, rows, stream),
            16 => narrow_rows::<16>(w, src, at, dst, rows, stream),
            32 => narrow_rows::<32>(w, src, at, dst, rows, stream),
            _ => narrow_rows::<64>(w, src, at, dst, rows, stream),
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
    fn copy_plane(
        x: &Exec<'_, Self>,
        base: usize,
        stride: usize,
        rows: std::ops::Range<usize>,
        jump: &[usize],
        stage: Option<&mut Stage>,
        dst: &mut [Self],
    ) -> bool {
        let Some(constant_row) = &x.planes.constant_row else {
            return false;
        };
        let Some((copy, ends)) = x.kernel.plane_row(x.out_row) else {
            return false;
        };
        let plane = CopyPlane {
            src: bytemuck::cast_slice(x.src),
            base: base * N,
            stride: stride * N,
            rows: &x.planes.map,
            range: rows,
            in_row: x.in_row * N,
            out_row: x.out_row * N,
            constant_row,
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
    fn around_cache(out: &mut [Self], cpu: Cpu, make: impl FnMut(usize, &mut [Self])) -> bool {
        staged(out, cpu, make)
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

/// [`Elem::around_cache`] for elements of `N` bytes.
fn staged<const N: usize>(
    out: &mut [[u8; N]],
    cpu: Cpu,
    mut make: impl FnMut(usize, &mut [[u8; N]]),
) -> bool {
    // Only x86_64 has the non-temporal stores; elsewhere staging would only add a copy.
    if !cfg!(target_arch = "x86_64") || N == 0 || !64usize.is_multiple_of(N) {
        return false;
    }
    let skip = out.as_ptr().cast::<u8>().align_offset(64);
    if !skip.is_multiple_of(N) {
        return false;
    }
    let line = 64 / N;
    let head = (skip / N).min(out.len());
    let (first, rest) = out.split_at_mut(head);
    let lines = rest.len() / line * line;
    let (body, tail) = rest.split_at_mut(lines);
    make(0, first);
    let mut stage = [0u8; STAGE_BYTES];
    let per = STAGE_BYTES / N;
    for (k, piece) in body.chunks_mut(per).enumerate() {
        let staged: &mut [[u8; N]] = bytemuck::cast_slice_mut(&mut stage[..piece.len() * N]);
        make(head + k * per, staged);
        let (dst, src) = (
            bytemuck::cast_slice_mut(piece),
            bytemuck::cast_slice(staged),
        );
        if !crate::arch::stream_copy_lines(dst, src, cpu) {
            dst.copy_from_slice(src);
        }
    }
    make(head + lines, tail);
    true
}
