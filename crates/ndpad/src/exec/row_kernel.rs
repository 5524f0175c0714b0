//! The row kernels: how each output row is written, chosen once per call by
//! [`choose`], which tries the candidates in one stated order and takes the first that
//! applies. Each kernel writes a whole row ([`super::Exec::write_full_row`]); those
//! with a [`RowKernel::plane_row`] are also written a whole plane at a time by the
//! plane loops ([`plane_loops`](super::plane_loops)).

use super::plane_loops::{Edges, RowCopy, Singles};
use crate::arch::{Blend16, Cpu, Ssse3, WriteAhead, LINE};
use crate::options::KernelName;
use crate::plan::Seg;
use crate::tune::{
    BLEND_ROW_SINGLES_MIN, NARROW_ROW_BYTES, READ_AHEAD, SANDWICH_MAX, SHORT_RUN, SINGLES_MAX,
};

use super::program::RowProgram;

/// The row kernel of one call, with what it needs.
pub(crate) enum RowKernel {
    Narrow(Narrow),
    /// Where each row's run starts in its input row, in elements.
    Slice {
        from: usize,
    },
    /// A sandwich, its single elements as two 16-byte blends.
    Blend(Sandwich, Edges),
    /// The copy, in elements.
    ConstantEnds(RowCopy),
    Singles(Box<SinglesRow>),
    Sandwich(Sandwich),
    Program(RowProgram),
    Runs,
}

/// What a plane loop writes besides each row's copy.
pub(crate) enum PlaneEnds<'a> {
    Open,
    Blend(&'a Edges),
    Constant,
    Singles(&'a Singles),
}

impl RowKernel {
    pub(crate) fn name(&self) -> KernelName {
        match self {
            RowKernel::Narrow(_) => KernelName::Narrow,
            RowKernel::Slice { .. } => KernelName::Slice,
            RowKernel::Blend(..) => KernelName::Blend,
            RowKernel::ConstantEnds(_) => KernelName::ConstantEnds,
            RowKernel::Singles(_) => KernelName::Singles,
            RowKernel::Sandwich(_) => KernelName::Sandwich,
            RowKernel::Program(_) => KernelName::Program,
            RowKernel::Runs => KernelName::Runs,
        }
    }

    /// A row as the plane loops write it (its copy, in elements, and its ends), for the
    /// kernels they write; `out_row`: the output row's elements.
    pub(crate) fn plane_row(&self, out_row: usize) -> Option<(RowCopy, PlaneEnds<'_>)> {
        match self {
            RowKernel::Slice { from } => Some((
                RowCopy {
                    at: 0,
                    from: *from,
                    len: out_row,
                },
                PlaneEnds::Open,
            )),
            RowKernel::Blend(w, e) => Some((w.copy, PlaneEnds::Blend(e))),
            RowKernel::ConstantEnds(c) => Some((*c, PlaneEnds::Constant)),
            RowKernel::Singles(s) => Some((s.copy, PlaneEnds::Singles(&s.bytes))),
            _ => None,
        }
    }
}

/// What [`choose`] looks at: the row axis's runs and the element representation.
pub(crate) struct Rows<'a> {
    pub(crate) segs: &'a [Seg],
    /// Elements of the representation to a row unit.
    pub(crate) unit: usize,
    /// Bytes of an element of the representation.
    pub(crate) size: usize,
    pub(crate) in_units: usize,
    pub(crate) out_units: usize,
    /// The constant's bytes (for strings, its span's).
    pub(crate) value: Option<&'a [u8]>,
    /// Whether the rows will be written whole planes at a time.
    pub(crate) planes: bool,
    pub(crate) cpu: Cpu,
}

/// The row kernel for `rows`: `force`, where it applies, else the first that applies
/// of Narrow, Slice, Blend, ConstantEnds, Singles (whole planes),
/// Sandwich, Program, Runs ([`KernelName::ALL`]'s order).
pub(crate) fn choose(rows: &Rows<'_>, force: Option<KernelName>) -> RowKernel {
    let narrow = rows.unit == 1
        && rows.out_units.saturating_mul(rows.size) <= NARROW_ROW_BYTES
        && rows.in_units < u32::MAX as usize;
    // The row as a program of single elements (units of one element; row coordinates
    // fit a u32): narrow rows of whole planes all single elements (the Singles
    // kernel's plane loops write them), other rows their runs under `SHORT_RUN`. Made
    // once, when a kernel first asks (a constant pad's narrow rows never do). (Narrow
    // rows outside the plane loops with a long copy are a sandwich: u8 [32,32]
    // reflect by 1 took 1.24 us as an element map, 27 ns a 34-byte row, 0.48 us so.)
    let short = match narrow && rows.planes {
        true => usize::MAX,
        false => SHORT_RUN,
    };
    let mut program = Program {
        segs: rows.segs,
        short: (rows.unit == 1
            && rows.out_units < u32::MAX as usize
            && rows.in_units < u32::MAX as usize
            && rows.segs.len() > 1)
            .then_some(short),
        made: None,
    };
    let mut candidate = |k| candidate(rows, k, narrow, &mut program);
    force
        .and_then(&mut candidate)
        .or_else(|| KernelName::ALL.into_iter().find_map(candidate))
        .unwrap_or(RowKernel::Runs)
}

/// A row as a [`RowProgram`] of runs under `short` elements taken apart (`None`: it
/// cannot be one), made the first time a kernel asks for it.
struct Program<'a> {
    segs: &'a [Seg],
    short: Option<usize>,
    made: Option<Option<RowProgram>>,
}

impl Program<'_> {
    fn get(&mut self) -> &mut Option<RowProgram> {
        let (segs, short) = (self.segs, self.short);
        self.made
            .get_or_insert_with(|| short.map(|s| RowProgram::new(segs, s)))
    }
}

/// Kernel `k` for `r`, where it applies (`narrow`: rows narrow enough to be written
/// element by element; `program`: the row as a program, where it can be one, taken
/// by the Program kernel).
fn candidate(
    r: &Rows<'_>,
    k: KernelName,
    narrow: bool,
    program: &mut Program<'_>,
) -> Option<RowKernel> {
    match k {
        KernelName::Narrow => Narrow::new(r.segs, r.out_units, r.value?)
            .filter(|_| narrow)
            .map(RowKernel::Narrow),
        KernelName::Slice => match r.segs {
            [Seg::Copy { src, .. }] => Some(RowKernel::Slice { from: src * r.unit }),
            _ => None,
        },
        KernelName::Blend => {
            let w = Sandwich::new(program.get().as_ref()?)?;
            // Row by row (outside the plane loops), only where the blends replace
            // enough single elements: fewer, and constants, are written faster alone.
            if !r.planes && w.nsingles < BLEND_ROW_SINGLES_MIN {
                return None;
            }
            let e = edges_of(&w, r)?;
            Some(RowKernel::Blend(w, e))
        }
        KernelName::ConstantEnds => {
            r.value?;
            let c = match r.segs {
                [Seg::Copy { src, len }, Seg::Fill { src: None, .. }] => (0, *src, *len),
                [Seg::Fill { src: None, len: lo }, Seg::Copy { src, len }]
                | [Seg::Fill { src: None, len: lo }, Seg::Copy { src, len }, Seg::Fill { src: None, .. }] => {
                    (*lo, *src, *len)
                }
                _ => return None,
            };
            let u = r.unit;
            Some(RowKernel::ConstantEnds(RowCopy {
                at: c.0 * u,
                from: c.1 * u,
                len: c.2 * u,
            }))
        }
        KernelName::Singles => {
            r.value?;
            if !(r.planes && r.unit == 1) {
                return None;
            }
            let s = singles_of(r.segs, r.size)?;
            Some(RowKernel::Singles(Box::new(s)))
        }
        KernelName::Sandwich => Sandwich::new(program.get().as_ref()?).map(RowKernel::Sandwich),
        KernelName::Program => program.get().take().map(RowKernel::Program),
        KernelName::Runs => Some(RowKernel::Runs),
    }
}

/// Narrow constant-padded rows (`[c; lo] data [c; hi]` of at most 64 bytes) written
/// with fixed-width vector operations instead of a gather or memcpy calls: `width`
/// bytes (8, 16, 32 or 64, the least that holds a row) are loaded from the input
/// starting `lo` bytes before the row's data (reading a little of the neighbouring
/// rows, never writing them), the constant is blended in where there is no data, and
/// the result is stored at the output row; where the row is narrower than `width`,
/// over the start of the next row too, which is written after it.
pub(crate) struct Narrow {
    pub(crate) width: usize,
    /// Bytes of an output row (at most `width`).
    pub(crate) row: usize,
    /// Byte offset, within an input row, where the load starts (may be "negative":
    /// stored as the amount to subtract).
    pub(crate) back: usize,
    /// Byte offset, within an input row, of the data's first byte.
    pub(crate) data: usize,
    /// 0xFF where the load holds data, 0 where the row holds the constant.
    pub(crate) mask: [u8; 64],
    /// The constant where the row holds no data, 0 elsewhere.
    pub(crate) constant: [u8; 64],
}

impl Narrow {
    /// The narrow rows of `out_units` elements made of `segs`, with the constant
    /// `value` (an element's bytes), where they are narrow constant rows.
    fn new(segs: &[Seg], out_units: usize, value: &[u8]) -> Option<Narrow> {
        let n = value.len();
        let out_b = out_units.checked_mul(n)?;
        if n == 0 || out_b > NARROW_ROW_BYTES {
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
        let width = [8, 16, 32, 64].into_iter().find(|&w| w >= out_b)?;
        let mut mask = [0u8; 64];
        let mut constant = [0u8; 64];
        for i in 0..out_b {
            if i >= lo * n && i < (lo + len) * n {
                mask[i] = 0xFF;
            } else {
                constant[i] = value[i % n];
            }
        }
        Some(Narrow {
            width,
            row: out_b,
            back: lo * n,
            data: data * n,
            mask,
            constant,
        })
    }
}

/// Rows of at most 16 bytes, in and out, written `rows` at a time: that many
/// consecutive input rows in one 16-byte load, one byte shuffle (`PSHUFB`) puts each
/// output byte where it goes and the constant's bytes in (any mode: each output element
/// is an element of its own input row or the constant), and the 16 bytes are stored
/// (over the start of the next rows, which are written after), through the cache,
/// asking for the output lines ahead (`ahead`: where the CPU can, in large outputs).
/// An RGB image padded to RGBA is four rows a shuffle.
pub(crate) struct Shuffle {
    ssse3: Ssse3,
    ahead: Option<WriteAhead>,
    /// Rows a shuffle takes.
    pub(crate) rows: usize,
    /// Their input and output bytes.
    in_step: usize,
    out_step: usize,
    /// Each output byte's place in the window ([`Blend16::NONE`]: the constant's).
    control: [u8; 16],
    /// The constant's bytes where it goes, 0 elsewhere.
    fill: [u8; 16],
}

impl Shuffle {
    /// The shuffle of rows of `out_units` units made of `segs` (`unit` elements of
    /// `size` bytes a unit, `in_units` units an input row), the constant's element
    /// bytes `value`, asking for the output ahead with `ahead`; `None` where a row is
    /// wider than a shuffle, or there is no SSSE3.
    pub(crate) fn new(
        segs: &[Seg],
        (in_units, out_units): (usize, usize),
        (unit, size): (usize, usize),
        value: &[u8],
        cpu: Cpu,
        ahead: Option<WriteAhead>,
    ) -> Option<Shuffle> {
        let ssse3 = cpu.ssse3()?;
        let elem = unit.checked_mul(size)?;
        let (in_b, out_b) = (in_units.checked_mul(elem)?, out_units.checked_mul(elem)?);
        if in_b == 0 || out_b == 0 || value.len() != size {
            return None;
        }
        let rows = (16 / in_b).min(16 / out_b);
        if rows == 0 {
            return None;
        }
        let (mut control, mut fill) = ([Blend16::NONE; 16], [0u8; 16]);
        // Each output unit's source unit in its input row (`None`: the constant).
        let mut at = 0;
        for seg in segs {
            for k in 0..seg.len() {
                let from = seg.src_at(k);
                for r in 0..rows {
                    for b in 0..elem {
                        let o = r * out_b + at * elem + b;
                        match from {
                            Some(u) => control[o] = u8::try_from(r * in_b + u * elem + b).ok()?,
                            None => fill[o] = value[b % size],
                        }
                    }
                }
                at += 1;
            }
        }
        (at == out_units).then_some(Shuffle {
            ssse3,
            ahead,
            rows,
            in_step: rows * in_b,
            out_step: rows * out_b,
            control,
            fill,
        })
    }
}

/// Writes up to `rows` output rows of `s` into `dst` from the consecutive input rows
/// starting at `src`'s first byte, `s.rows` at a time; stops where a load would pass
/// the end of `src` or a store the end of `dst` (the caller writes the rest), and
/// returns how many rows it wrote.
#[inline(always)]
pub(crate) fn shuffled_rows(s: &Shuffle, src: &[u8], dst: &mut [u8], rows: usize) -> usize {
    let (mut done, mut i, mut o) = (0, 0, 0);
    let mut ahead = s.ahead.map(|w| w.forward(dst.as_ptr()));
    while done + s.rows <= rows {
        if let Some(a) = &mut ahead {
            a.reached(dst.as_ptr().wrapping_add(o));
        }
        let (Some(window), Some(out)) = (
            src.get(i..).and_then(<[u8]>::first_chunk::<16>),
            dst.get_mut(o..).and_then(<[u8]>::first_chunk_mut::<16>),
        ) else {
            break;
        };
        *out = s.ssse3.shuffle(window, &s.control, &s.fill);
        (i, o, done) = (i + s.in_step, o + s.out_step, done + s.rows);
    }
    done
}

/// A narrow output row: the input's bytes under `mask`, the constant elsewhere.
/// Taken a word at a time (every narrow width is a multiple of 8 bytes), which the
/// compiler keeps in registers, where byte-wise it may not.
#[inline(always)]
fn blend<const W: usize>(s: &[u8], mask: &[u8; W], constant: &[u8; W]) -> [u8; W] {
    let mut o = [0u8; W];
    let words = o.chunks_exact_mut(8).zip(s.chunks_exact(8));
    for ((o, s), (m, c)) in words.zip(mask.chunks_exact(8).zip(constant.chunks_exact(8))) {
        o.copy_from_slice(&(word(s) & word(m) | word(c)).to_ne_bytes());
    }
    o
}

/// The first 8 bytes of `b` as a word.
#[inline(always)]
fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_ne_bytes(w)
}

/// How a loop stores its output rows: `around` the cache (non-temporal stores) where
/// it can, and where it stores through the cache, asking for the output lines ahead
/// (`ahead`, where the CPU can).
#[derive(Clone, Copy)]
pub(crate) struct Stores {
    pub(crate) around: bool,
    pub(crate) ahead: Option<WriteAhead>,
}

/// Writes up to `rows` whole output rows of `w.row` bytes into `dst` as `w` says, row
/// `k` reading the input row at byte `first + k * stride` of `src`; stops at the
/// first row whose load would reach outside `src`, and returns how many rows it
/// wrote (rows narrower than `W` may have written into the start of the next of the
/// `rows`, which the caller then writes). One bounds check for the batch, then a loop
/// of `W`-byte loads, blends and stores (rows of `W` bytes around the cache as
/// `stores` says: rows narrower than a 16-byte store are gathered a whole 64-byte
/// line at a time; through it, asking for the output lines ahead where `stores`
/// holds the CPU's token), the input read [`READ_AHEAD`] ahead.
#[inline(always)]
pub(crate) fn narrow_rows<const W: usize>(
    w: &Narrow,
    src: &[u8],
    (first, stride): (usize, usize),
    dst: &mut [u8],
    rows: usize,
    stores: Stores,
) -> usize {
    let Some(start) = (first + w.data).checked_sub(w.back) else {
        return 0;
    };
    let Some(room) = src.len().checked_sub(start + W) else {
        return 0;
    };
    // Rows whose whole load lies inside `src` (all of them when the stride is 0); the
    // division only where some do not (a batch's rows are a handful, and a division
    // costs as much as several of them).
    let fit = match rows.saturating_sub(1).checked_mul(stride) {
        Some(reach) if reach <= room => rows,
        _ => room / stride + 1,
    };
    let (mut mask, mut constant) = ([0u8; W], [0u8; W]);
    mask.copy_from_slice(&w.mask[..W]);
    constant.copy_from_slice(&w.constant[..W]);
    let src = &src[start..];
    let row = w.row;
    let mut ahead = stores.ahead.map(|w| w.forward(dst.as_ptr()));
    if row < W {
        // Each store also covers the start of the next row, which its own store then
        // overwrites (or the caller writes after: the rows past `n`); rows whose store
        // would pass the end of the `rows` rows store their own bytes only. Through
        // the cache (non-temporal stores are not ordered), so asking for the output
        // ahead even where it goes around the cache. A loop of its own: the
        // rows of `W` bytes below through this one's indexing ran 15-25% slower (f32
        // [N,7] -> [N,8], hot and cold).
        let end = dst.len().min(rows.saturating_mul(row));
        let dst = &mut dst[..end];
        let n = fit.min(rows).min(dst.len() / row);
        let wide = match dst.len().checked_sub(W) {
            Some(last) => (last / row + 1).min(n),
            None => 0,
        };
        let mut at = 0;
        for k in 0..n {
            crate::arch::prefetch(src.as_ptr().wrapping_add(at + READ_AHEAD));
            let o = blend(&src[at..at + W], &mask, &constant);
            at += stride;
            let to = k * row;
            if let Some(a) = &mut ahead {
                a.reached(dst.as_ptr().wrapping_add(to));
            }
            match k < wide {
                true => dst[to..to + W].copy_from_slice(&o),
                false => dst[to..to + row].copy_from_slice(&o[..row]),
            }
        }
        return n;
    }
    let n = fit.min(rows).min(dst.len() / W);
    let dst = &mut dst[..n * W];
    let (mut k, mut at) = (0, 0);
    if stores.around && W == 8 && (dst.as_ptr() as usize).is_multiple_of(W) {
        // Rows of one word, too narrow for a non-temporal store of their own: the
        // rows before the first whole line written directly, then each line built
        // in registers and stored around the cache.
        let (m, c) = (word(&mask), word(&constant));
        let head = ((dst.as_ptr() as usize).wrapping_neg() % LINE / W).min(n);
        for d in dst[..head * W].chunks_exact_mut(W) {
            d.copy_from_slice(&blend(&src[at..at + W], &mask, &constant));
            at += stride;
        }
        k = head;
        for line in dst[head * W..].chunks_exact_mut(LINE) {
            crate::arch::prefetch(src.as_ptr().wrapping_add(at + READ_AHEAD));
            let Some(mut l) = crate::arch::words_at::<{ LINE / 8 }>(src, at, stride) else {
                break;
            };
            l.iter_mut().for_each(|r| *r = *r & m | c);
            crate::arch::store_around_cache::<LINE>(line, bytemuck::cast_ref(&l));
            at += stride * (LINE / W);
            k += LINE / W;
        }
    }
    for d in dst[k * W..].chunks_exact_mut(W) {
        crate::arch::prefetch(src.as_ptr().wrapping_add(at + READ_AHEAD));
        let o = blend(&src[at..at + W], &mask, &constant);
        at += stride;
        if stores.around {
            crate::arch::store_around_cache(d, &o);
        } else {
            if let Some(a) = &mut ahead {
                a.reached(d.as_ptr());
            }
            d.copy_from_slice(&o);
        }
    }
    n
}

/// The common row shape, one long copy between a few single elements (padding both
/// ends of the row axis by a few elements, any mode): written without the general
/// program's run loop, from fixed arrays.
#[derive(Clone, Copy)]
pub(crate) struct Sandwich {
    /// The copy, in elements.
    pub(crate) copy: RowCopy,
    /// (output, input) positions of the single elements.
    pub(crate) singles: [(u32, u32); SANDWICH_MAX],
    pub(crate) nsingles: usize,
    /// Output positions of the constant.
    pub(crate) constants: [u32; SANDWICH_MAX],
    pub(crate) nconstants: usize,
}

impl Sandwich {
    /// The sandwich of program `p`, where it is one.
    fn new(p: &RowProgram) -> Option<Sandwich> {
        let [(at, Seg::Copy { src: from, len })] = p.runs[..] else {
            return None;
        };
        if p.singles.len() > SANDWICH_MAX || p.constants.len() > SANDWICH_MAX {
            return None;
        }
        let mut w = Sandwich {
            copy: RowCopy { at, from, len },
            singles: [(0, 0); SANDWICH_MAX],
            nsingles: p.singles.len(),
            constants: [0; SANDWICH_MAX],
            nconstants: p.constants.len(),
        };
        w.singles[..p.singles.len()].copy_from_slice(&p.singles);
        w.constants[..p.constants.len()].copy_from_slice(&p.constants);
        Some(w)
    }
}

/// A [`Sandwich`] row's first and last 16 bytes, written after its copy as two 16-byte
/// vectors ([`Edges`]), each blended from two 16-byte windows of the input row (one
/// holding the single elements' sources, one the copy's bytes there) and the
/// constant: replaces a loop over the single elements. Read after the copy, the
/// windows are in the cache and the input row is read from its start (reading its
/// end first, as wrap padding's left edge does, slowed the hardware prefetcher).
///
/// `None` where a row is shorter than 16 bytes, or the single elements in the first or
/// last 16 bytes read more than 16 bytes apart, or there is no SSSE3.
fn edges_of(w: &Sandwich, r: &Rows<'_>) -> Option<Edges> {
    let ssse3 = r.cpu.ssse3()?;
    let size = r.size;
    let (in_b, out_b) = (
        r.in_units.checked_mul(size)?,
        r.out_units.checked_mul(size)?,
    );
    let (copy_at, copy_from) = (w.copy.at.checked_mul(size)?, w.copy.from.checked_mul(size)?);
    let copy_end = w.copy.at.checked_add(w.copy.len)?.checked_mul(size)?;
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
        if let Some(&(_, s)) = w.singles[..w.nsingles].iter().find(|&&(pd, _)| pd == d) {
            return Some(Byte::Single(s as usize * size + j));
        }
        let constant = w.constants[..w.nconstants].contains(&d);
        constant.then(|| r.value?.get(j).map(|&b| Byte::Constant(b)))?
    };
    let side = |at: usize| -> Option<([usize; 2], Blend16)> {
        let none = Blend16::NONE;
        let mut blend = Blend16 {
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

/// A row of one long copy (the longest `Copy` run) between at most [`SINGLES_MAX`]
/// single elements, all read from the input row.
pub(crate) struct SinglesRow {
    /// The copy, in elements.
    pub(crate) copy: RowCopy,
    /// (output, input) positions of the single elements, in elements.
    pub(crate) at: Vec<(u32, u32)>,
    /// The same in bytes, for the plane loops.
    pub(crate) bytes: Singles,
}

/// The [`SinglesRow`] of a row made of `segs`, elements of `size` bytes, where it is
/// one (no constant, no interior run, a size the plane loops have a loop for).
fn singles_of(segs: &[Seg], size: usize) -> Option<SinglesRow> {
    let main = (0..segs.len())
        .filter(|&k| matches!(segs[k], Seg::Copy { .. }))
        .max_by_key(|&k| segs[k].len())?;
    let count: usize = segs.iter().map(Seg::len).sum::<usize>() - segs[main].len();
    if count > SINGLES_MAX || !Singles::SIZES.contains(&size) {
        return None;
    }
    let mut at = Vec::with_capacity(count);
    let mut bytes = Singles {
        size,
        at: Vec::with_capacity(count),
    };
    let byte = |c: u32| c.checked_mul(u32::try_from(size).ok()?);
    let (mut pos, mut copy) = (0, None);
    for (k, seg) in segs.iter().enumerate() {
        if k == main {
            copy = Some(RowCopy {
                at: pos,
                from: seg.src_at(0)?,
                len: seg.len(),
            });
        } else if matches!(seg, Seg::Spread { .. }) {
            return None;
        } else {
            for j in 0..seg.len() {
                // The constant has its own kernels (ConstantEnds, the blends).
                let (d, s) = (
                    u32::try_from(pos + j).ok()?,
                    u32::try_from(seg.src_at(j)?).ok()?,
                );
                at.push((d, s));
                bytes.at.push((byte(d)?, byte(s)?));
            }
        }
        pos += seg.len();
    }
    Some(SinglesRow {
        copy: copy?,
        at,
        bytes,
    })
}
