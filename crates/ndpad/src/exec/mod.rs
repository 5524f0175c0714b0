//! The CPU executor of a [`Plan`], entered through the methods of [`Plan`] that run
//! it ([`entry`]: [`Plan::pad`], [`Plan::execute`]). Walks the output's rows
//! ([`walker`]), writes each with the row kernel chosen once per call
//! ([`row_kernel`], [`program`]), whole planes at a time through the plane loops
//! ([`plane_loops`]) where it can, prefetching across planes ([`prefetch`]), the
//! output split among threads ([`threads`]).
//! Generic over the element width ([`elem`]: `[u8; N]`, for fixed-width types and for
//! strings' spans), chosen once per call; sub-byte rows that start inside bytes take
//! the [`packed`] path; a tiled plan pads its tile and repeats it ([`tile`]).

/// `$body` with `$W` the constant element width of `$w` bytes: 1, 2, 4 or 8, and 16
/// for any other (the byte kernel's widths; the caller's type leaves no other).
macro_rules! by_width {
    ($w:expr, $W:ident => $body:expr) => {
        by_width!($w, $W => $body; 1 2 4 8)
    };
    ($w:expr, $W:ident => $body:expr; $($n:literal)*) => {
        match $w {
            $($n => {
                const $W: usize = $n;
                $body
            })*
            _ => {
                const $W: usize = 16;
                $body
            }
        }
    };
}

mod elem;
mod entry;
mod faces;
mod gather;
mod packed;
mod plane_loops;
mod prefetch;
mod program;
mod row_kernel;
mod setup;
mod stepped;
mod threads;
mod tile;
mod tiny;
mod walker;

pub use threads::{for_bytes, part_len, share, share_map, thread_count};

use crate::arch::Cpu;
use std::sync::Arc;

use crate::dtype::Layout;
use crate::error::PadError;
use crate::options::{KernelName, OutputMemory, PadOptions};
use crate::plan::{Plan, Seg};
use crate::strings::{Span, Strings};
use crate::tensor::{Data, DataMut};
use crate::tune::{JUMP_LINES, NARROW_ROW_BYTES, STREAMED_RUN_MIN, TINY_READ_AHEAD};

use elem::Elem;
use plane_loops::{RowMap, Stage};
use row_kernel::{RowKernel, Stores};
use setup::{Runs, Setup};
use tiny::Tiny;
use walker::Walker;

/// The executor for one plan and one element representation.
pub(crate) struct Exec<'p, T> {
    src: &'p [T],
    walk: Walker<'p>,
    /// The row kernel and what the plane loops, tiny planes and narrow rows need.
    setup: Arc<Setup>,
    /// Whether rows are written around the cache ([`PadOptions::stream_min_bytes`]);
    /// set by [`threads::drive`].
    stream: bool,
    /// Whole rows of the constant, and the constant ends of rows written by
    /// [`RowKernel::ConstantEnds`], are left as they are: the output is zeroed and the
    /// constant's bytes are zero ([`OutputMemory::Zeroed`]).
    zero_rows_kept: bool,
    cpu: Cpu,
    unit: usize,
    in_row: usize,
    out_row: usize,
    value: T,
}

impl<'p, T: Elem> Exec<'p, T> {
    /// The executor of `plan` over `src` (elements of the representation, `unit` to a
    /// row unit; laid out in C order, or with the given byte strides of its outer
    /// axes), `value` the constant (and its bytes, for byte representations).
    fn new(
        plan: &'p Plan,
        (src, strides): (&'p [T], Option<&[usize]>),
        unit: usize,
        (value, value_bytes): (T, Option<&[u8]>),
        opts: &PadOptions,
    ) -> Self {
        let size = std::mem::size_of::<T>();
        let walk = Walker::new(plan, unit, size, strides);
        let make = |runs| Setup::new(plan, &walk, (unit, size), value_bytes, opts.kernel, runs);
        // Kept in the plan where it depends on nothing else: a C-ordered input, no
        // kernel named (and the same unit, width and constant).
        let setup = match strides.is_none() && opts.kernel.is_none() {
            true => setup::kept(plan, (unit, size, value_bytes), make),
            false => Arc::new(make(Runs::Once)),
        };
        let (in_row, out_row) = setup.rows;
        Exec {
            src,
            walk,
            setup,
            stream: false,
            zero_rows_kept: opts.output_memory == OutputMemory::Zeroed
                && value_bytes.is_some_and(|v| v.iter().all(|&b| b == 0)),
            cpu: Cpu::get(),
            unit,
            in_row,
            out_row,
            value,
        }
    }

    /// `count` whole tiny planes from the cursor on into `run`, around the cache
    /// through `stage` where one is given.
    #[inline(always)]
    fn tiny_run(
        &self,
        tiny: &Tiny,
        count: usize,
        at: (&mut walker::Cursor, &mut Option<usize>),
        run: &mut [u8],
        stage: Option<&mut tiny::TinyStage>,
    ) {
        match stage {
            Some(stage) => {
                let sink = tiny::Streamed::new(run, stage, self.cpu);
                self.tiny_planes(tiny, count, at, sink);
            }
            None => {
                let sink = tiny::Direct::new(run, self.cpu.write_ahead());
                self.tiny_planes(tiny, count, at, sink);
            }
        }
    }

    /// `count` whole tiny planes from the cursor on into `sink`, one after the other,
    /// by the group's table where a run of planes holds its planes, else one by one;
    /// the cursor and the input's base move past them.
    #[inline(always)]
    fn tiny_planes<S: tiny::Sink>(
        &self,
        Tiny {
            one: tiny, group, ..
        }: &Tiny,
        count: usize,
        (cursor, base): (&mut walker::Cursor, &mut Option<usize>),
        mut sink: S,
    ) {
        let walk = &self.walk;
        let (src, size) = (T::as_bytes(self.src), std::mem::size_of::<T>());
        let bytes = self.setup.planes.map.rows().len() * self.out_row * size;
        let mut k = 0;
        while k < count {
            // Planes whose inputs are `step` apart, one after the other (the walker
            // moved once for them all).
            let (planes, step) = walk.plane_run(cursor);
            let planes = planes.min(count - k);
            // Around the cache, the input of the plane `ahead` planes on is asked for.
            let ahead = TINY_READ_AHEAD.div_ceil(step.saturating_mul(size).max(1));
            let read_ahead = |j: usize| {
                if let (true, Some(b)) = (S::AROUND && j + ahead < planes, *base) {
                    let at = src.as_ptr().wrapping_add((b + (j + ahead) * step) * size);
                    for line in crate::arch::lines_of(at as usize, tiny.span()) {
                        crate::arch::read_ahead(line as *const u8);
                    }
                }
            };
            let mut j = 0;
            // Whole groups of the run's planes by the group's table (a run of two
            // planes and more is the axis above's copy, its step the step the group
            // was made for; the next group or plane overwrites what its last piece
            // stores past its end).
            if let (Some(g), Some(b)) = (group, *base) {
                while j + g.planes <= planes {
                    (j..j + g.planes).for_each(read_ahead);
                    g.table.write(&src[(b + j * step) * size..], sink.plane());
                    sink.done(g.planes * bytes);
                    j += g.planes;
                }
            }
            for j in j..planes {
                read_ahead(j);
                // The next plane overwrites what this one's last piece stores past
                // its end.
                let dst = sink.plane();
                match *base {
                    Some(b) => tiny.write(&src[(b + j * step) * size..], dst),
                    // Written even where zero rows could be kept: the plane before may
                    // have stored past its end into this one.
                    None => tiny.write_constant(dst),
                }
                sink.done(bytes);
            }
            k += planes;
            if walk.skip_planes(cursor, planes) {
                *base = walk.base_src(cursor);
            }
        }
        sink.finish();
    }

    /// Writes output elements `start .. start + out.len()`. Inlined into its callers,
    /// which compile it for the CPU's vector width ([`crate::arch::with_avx2`]).
    #[inline(always)]
    fn run_range(&self, start: usize, out: &mut [T]) {
        if out.is_empty() {
            return;
        }
        let walk = &self.walk;
        let mut cursor = walk.cursor(start / self.out_row);
        // The next plane's jump lines to prefetch while a plane is written.
        let mut jump = [0usize; JUMP_LINES];
        // The staging buffer of planes written around the cache.
        let mut stage = (self.stream && self.setup.planes.constant_row.is_some()).then(Stage::new);
        // The staging buffer of tiny planes written around the cache.
        let mut tiny_stage = (self.stream
            && self.setup.planes.tiny.as_ref().is_some_and(|t| t.around))
        .then(tiny::TinyStage::new);
        // The outer axes' part of the input offset, kept until they move: the work
        // between two batches of rows delays the next batch's first reads (which miss
        // the cache where the input jumps, as wrap padding's do at each plane).
        let mut base = walk.base_src(&cursor);
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
                match walk.row_src(&cursor) {
                    None => T::fill(dst, &self.value),
                    Some(off) => self.write_row(&self.src[off..off + self.in_row], col, dst),
                }
                done += take;
                col = 0;
                if walk.advance(&mut cursor) {
                    base = walk.base_src(&cursor);
                }
                whole = None;
                continue;
            }
            let inner = walk.inner(&cursor);
            // Tiny planes: the whole ones from here on, one after the other.
            if let (Some(tiny), Some((_, _, 0))) = (&self.setup.planes.tiny, inner) {
                let n = self.setup.planes.map.rows().len();
                let count = full_rows / n;
                if count > 0 {
                    let plane = n * self.out_row;
                    let run = T::as_bytes_mut(&mut out[done..done + count * plane]);
                    let at = (&mut cursor, &mut base);
                    let stage = tiny_stage.as_deref_mut();
                    // Tables of 64-byte pieces are read by code compiled for AVX-512.
                    match tiny.avx512() {
                        Some(avx512) => crate::arch::with_avx512(
                            avx512,
                            #[inline(always)]
                            || self.tiny_run(tiny, count, at, run, stage),
                        ),
                        None => self.tiny_run(tiny, count, at, run, stage),
                    }
                    done += count * plane;
                    whole = Some(full_rows - count * n);
                    continue;
                }
            }
            // Rows of a plane (one pass of the innermost outer axis) from its row map:
            // whole planes, and parts of planes where the plane loops write their rows
            // (a plane split between threads, as a single image is).
            if let (Some((_, _, at)), Some(b)) = (inner, base) {
                let n = self.setup.planes.map.rows().len();
                let take = n.saturating_sub(at).min(full_rows);
                let all = at == 0 && take == n;
                if take > 0 && (all || self.setup.planes.constant_row.is_some()) {
                    let stride = walk.outer[walk.outer.len() - 1].stride;
                    let mut lines = 0;
                    // The cursor moves past the rows first (to the next plane's first
                    // row, whose jump lines are then known).
                    if walk.seek_inner(&mut cursor, at + take) {
                        base = walk.base_src(&cursor);
                    }
                    if at + take == n && all && full_rows >= 2 * n {
                        if let Some(nb) = base {
                            lines = self.jump_lines(b, nb, stride, &mut jump);
                        }
                    }
                    let dst = &mut out[done..done + take * self.out_row];
                    let rows = at..at + take;
                    let stage = stage.as_deref_mut();
                    self.write_plane(b, stride, rows, &jump[..lines], stage, dst);
                    done += take * self.out_row;
                    whole = Some(full_rows - take);
                    continue;
                }
            }
            // Whole rows along the innermost outer axis's current segment: their
            // sources are one fixed row, consecutive rows, or the constant.
            let (seg, left, stride) = match inner {
                Some((seg, left, _)) => (seg, left, walk.outer[walk.outer.len() - 1].stride),
                None => (Seg::Copy { src: 0, len: 1 }, 1, 0),
            };
            let rows = if matches!(seg, Seg::Spread { .. } | Seg::Rev { .. }) {
                1
            } else {
                left.min(full_rows)
            };
            let dst = &mut out[done..done + rows * self.out_row];
            let first = seg.src_at(seg.len() - left);
            self.write_batch(base.zip(first), seg, stride, dst);
            done += rows * self.out_row;
            whole = Some(full_rows - rows);
            if walk.skip(&mut cursor, rows) {
                base = walk.base_src(&cursor);
            }
        }
    }

    /// Writes whole output rows `dst` along one segment of the innermost outer axis,
    /// their sources `stride` apart: consecutive input rows from input row `s` of the
    /// outer axes' offset `base` (a `Copy` segment), that one row repeated (any other
    /// segment that reads), or the constant (`None`).
    #[inline(always)]
    fn write_batch(&self, from: Option<(usize, usize)>, seg: Seg, stride: usize, dst: &mut [T]) {
        // Consecutive narrow rows, several a shuffle; the rest as the kernel says.
        let (from, dst) = match (&self.setup.shuffle, from, seg) {
            (Some(sh), Some((base, s)), Seg::Copy { .. }) if stride == self.in_row => {
                let rows = dst.len() / self.out_row;
                let src = &self.src[base + s * stride..];
                let n = T::shuffled_rows(sh, src, dst, rows);
                if n == rows {
                    return;
                }
                (Some((base, s + n)), &mut dst[n * self.out_row..])
            }
            _ => (from, dst),
        };
        match (from, seg, &self.setup.kernel) {
            (Some((base, s)), Seg::Copy { .. }, RowKernel::Slice { from }) => {
                // Each output row is one run of its input row: a loop of copies.
                let from = base + s * stride + from;
                for (k, row) in dst.chunks_exact_mut(self.out_row).enumerate() {
                    let at = from + k * stride;
                    T::copy_run(row, &self.src[at..at + self.out_row], self.stream);
                }
            }
            (Some((base, s)), Seg::Copy { .. }, RowKernel::Narrow(w)) => {
                let first = base + s * stride;
                let mut k = 0;
                let rows = dst.len() / self.out_row;
                let stores = Stores {
                    around: self.stream,
                    ahead: self.setup.narrow_ahead,
                };
                while k < rows {
                    let (from, to) = (first + k * stride, k * self.out_row);
                    let n =
                        T::narrow_rows(w, self.src, from, stride, &mut dst[to..], rows - k, stores);
                    if n > 0 {
                        k += n;
                        continue;
                    }
                    // A row whose load would reach outside the input (the first or
                    // last rows).
                    let row = &mut dst[to..to + self.out_row];
                    self.write_full_row(&self.src[from..from + self.in_row], row);
                    k += 1;
                }
            }
            (Some((base, s)), Seg::Copy { .. }, RowKernel::Program(p)) if self.setup.singles => {
                // Rows of single elements (narrow rows of the modes that read): each
                // element from its place in the input row, or the constant; the rows'
                // input bounds checked once.
                let first = base + s * stride;
                let rows = dst.len() / self.out_row;
                let end = first + rows.saturating_sub(1) * stride + self.in_row;
                let src = &self.src[first..end];
                // Each output element's place in its input row (`NONE`: the constant),
                // in output order.
                const NONE: u32 = u32::MAX;
                let mut map = [NONE; NARROW_ROW_BYTES];
                let map = &mut map[..self.out_row];
                for &(d, s) in &p.singles {
                    map[d as usize] = s;
                }
                for (k, row) in dst.chunks_exact_mut(self.out_row).enumerate() {
                    let r = &src[k * stride..k * stride + self.in_row];
                    for (o, &s) in row.iter_mut().zip(map.iter()) {
                        *o = match s {
                            NONE => self.value.clone(),
                            s => r[s as usize].clone(),
                        };
                    }
                }
            }
            (Some((base, s)), Seg::Copy { .. }, _) => {
                // Consecutive input rows: a plain loop of rows.
                let first = base + s * stride;
                for (k, row) in dst.chunks_exact_mut(self.out_row).enumerate() {
                    let from = first + k * stride;
                    self.write_full_row(&self.src[from..from + self.in_row], row);
                }
            }
            (Some((base, s)), _, _) => {
                let src = &self.src[base + s * stride..base + s * stride + self.in_row];
                dst.chunks_exact_mut(self.out_row)
                    .for_each(|row| self.write_full_row(src, row));
            }
            // Zero rows of a zeroed output: already there.
            _ if self.zero_rows_kept => {}
            _ => self.fill_run(dst),
        }
    }

    /// Writes the constant over `dst` (whole rows, or a run of a row): around the
    /// cache where the output goes so ([`Elem::fill_around_cache`]).
    #[inline(always)]
    fn fill_run(&self, dst: &mut [T]) {
        if !(self.stream
            && std::mem::size_of_val(dst) >= STREAMED_RUN_MIN
            && T::fill_around_cache(dst, &self.value, self.cpu))
        {
            T::fill(dst, &self.value);
        }
    }

    /// Writes rows `rows` of a plane (one pass of the innermost outer axis) whose
    /// input starts at `base`, its rows `stride` apart, from the row map: through the
    /// plane loops where the kernel has them, else row by row.
    #[inline(always)]
    fn write_plane(
        &self,
        base: usize,
        stride: usize,
        rows: std::ops::Range<usize>,
        jump: &[usize],
        stage: Option<&mut Stage>,
        dst: &mut [T],
    ) {
        if T::copy_plane(self, base, stride, rows.clone(), jump, stage, dst) {
            return;
        }
        crate::arch::prefetch_lines(jump);
        let rows = dst
            .chunks_exact_mut(self.out_row)
            .zip(&self.setup.planes.map.rows()[rows]);
        if let RowKernel::Slice { from } = self.setup.kernel {
            // Each output row is one run of its input row (a crop, or none).
            for (row, &s) in rows {
                if s == RowMap::CONSTANT {
                    T::fill(row, &self.value);
                } else {
                    let at = base + s as usize * stride + from;
                    T::copy_run(row, &self.src[at..at + self.out_row], self.stream);
                }
            }
        } else {
            for (row, &s) in rows {
                if s == RowMap::CONSTANT {
                    T::fill(row, &self.value);
                } else {
                    let at = base + s as usize * stride;
                    self.write_full_row(&self.src[at..at + self.in_row], row);
                }
            }
        }
    }
}

/// Runs the plan over byte elements of width `W` bytes, fusing `unit` elements into
/// one `[u8; W * unit]` where that width is one of 2, 3, 4, 6, 8, 12 or 16 bytes.
/// The input of a byte representation: its bytes, and the byte strides of its outer
/// axes where it is not in C order.
type Input<'a> = (&'a [u8], Option<&'a [usize]>);

fn run_bytes<const W: usize>(
    plan: &Plan,
    src: Input<'_>,
    out: &mut [u8],
    opts: &PadOptions,
    fill: &[u8],
) -> Result<KernelName, PadError> {
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
    (src, strides): Input<'_>,
    out: &mut [u8],
    opts: &PadOptions,
    fill: &[u8],
    unit: usize,
) -> Result<KernelName, PadError> {
    let src: &[[u8; N]] = bytemuck::cast_slice(src);
    let out: &mut [[u8; N]] = bytemuck::cast_slice_mut(out);
    let mut value = [0u8; N];
    for (i, b) in value.iter_mut().enumerate() {
        *b = fill[i % fill.len()];
    }
    let mut exec = Exec::new(plan, (src, strides), unit, (value, Some(&value)), opts);
    threads::drive(&mut exec, out, opts)?;
    Ok(exec.setup.kernel.name())
}

/// [`run`] for an input of a fixed-width type whose outer axes lie `strides` bytes
/// apart ([`Plan::strided_rows`]), `src` reaching exactly to the end of its last row.
pub(crate) fn run_strided(
    plan: &Plan,
    src: &[u8],
    strides: &[usize],
    out: &mut DataMut<'_>,
    opts: &PadOptions,
) -> Result<Option<KernelName>, PadError> {
    if let Some(tile) = &plan.tile {
        return tile::run(plan, tile, out, |t| {
            run_strided(tile, src, strides, t, opts)
        });
    }
    let (DataMut::Bytes(o), Layout::Bytes(w)) = (out, plan.dtype.layout()) else {
        return Err(PadError::StorageMismatch {
            dtype: plan.dtype,
            expected: "bytes",
            given: "strings",
        });
    };
    if plan.out_numel == 0 {
        return Ok(None);
    }
    // The constant's bytes, on the stack (`Scalar::to_le_bytes` allocates).
    let bits = plan.value.bits().unwrap_or(0).to_le_bytes();
    let fill = &bits[..w.min(16)];
    let src = (src, Some(strides));
    let name = by_width!(w, W => run_bytes::<W>(plan, src, o, opts, fill)?);
    faces::fill(plan, &mut DataMut::Bytes(o));
    Ok(Some(name))
}

/// Pads the string tensor `s` into the output's `text` and `spans` (the plan's output
/// elements, every one written here, none read): the text becomes the input's and the
/// constant, and the spans, 16-byte elements, are padded by the byte kernel. The faces
/// are left to the caller.
pub(crate) fn pad_spans(
    plan: &Plan,
    s: &Strings,
    text: &mut String,
    spans: &mut [Span],
    opts: &PadOptions,
) -> Result<KernelName, PadError> {
    let value = plan.value.as_str().unwrap_or_default();
    let span = Strings::take_text(text, s, value).ok_or_else(|| PadError::OutOfMemory {
        shape: plan.out_shape.clone(),
        bytes: s.text_len().saturating_add(value.len()),
    })?;
    let fill: [u8; 16] = bytemuck::cast(span);
    let src = (bytemuck::cast_slice(&s.spans), None);
    let out = bytemuck::cast_slice_mut(spans);
    match run_bytes::<16>(plan, src, out, opts, &fill) {
        Ok(name) => Ok(name),
        Err(e) => {
            // Stopped part-way: spans not yet written point into the old text (or
            // were never set). Every element becomes the constant, a valid tensor.
            spans.fill(span);
            Err(e)
        }
    }
}

/// Pads `src` (the plan's input type and shape, unchecked) into `out` (the plan's
/// output); the row kernel that wrote the rows (`None` for an empty output).
pub(crate) fn run(
    plan: &Plan,
    src: Data<'_>,
    out: &mut DataMut<'_>,
    opts: &PadOptions,
) -> Result<Option<KernelName>, PadError> {
    if plan.out_numel == 0 {
        return Ok(None);
    }
    if let Some(tile) = &plan.tile {
        return tile::run(plan, tile, out, |t| run(tile, src, t, opts));
    }
    let name = match (src, &mut *out, plan.dtype.layout()) {
        (Data::Strings(s), DataMut::Strings(o), _) => {
            pad_spans(plan, s, &mut o.text, &mut o.spans, opts)?
        }
        (Data::Bytes(s), DataMut::Bytes(o), Layout::Bytes(w)) => {
            let bits = plan.value.bits().unwrap_or(0).to_le_bytes();
            let fill = &bits[..w.min(16)];
            by_width!(w, W => run_bytes::<W>(plan, (s, None), o, opts, fill)?)
        }
        (Data::Bytes(s), DataMut::Bytes(o), Layout::Packed(bits)) if !plan.packed_unaligned() => {
            // Sub-byte types whose unit (the fused unpadded trailing axes) fills whole
            // bytes: every run starts on a byte boundary, so the bytes are padded as
            // they are, a unit of `unit * bits / 8` bytes at a time.
            let v = plan.value.bits().unwrap_or(0) as u8;
            let fill = [crate::bits::pattern(v, bits as usize)];
            let src: &[[u8; 1]] = bytemuck::cast_slice(s);
            let unit = plan.unit * bits as usize / 8;
            let mut exec = Exec::new(plan, (src, None), unit, (fill, Some(&fill[..])), opts);
            threads::drive(&mut exec, bytemuck::cast_slice_mut::<u8, [u8; 1]>(o), opts)?;
            exec.setup.kernel.name()
        }
        (Data::Bytes(s), DataMut::Bytes(o), Layout::Packed(bits)) => {
            // Other sub-byte cases: rows start inside bytes, so runs are moved as bit
            // ranges (whole bytes at a time where they can be).
            let v = plan.value.bits().unwrap_or(0) as u8;
            packed::run_packed(plan, s, o, bits as usize, v, opts)?;
            crate::packed::clear_unused_bits(o, bits, plan.out_numel);
            KernelName::Runs
        }
        _ => {
            return Err(PadError::StorageMismatch {
                dtype: plan.dtype,
                expected: "matching",
                given: "mixed",
            })
        }
    };
    faces::fill(plan, out);
    Ok(Some(name))
}

#[cfg(test)]
mod tests;
