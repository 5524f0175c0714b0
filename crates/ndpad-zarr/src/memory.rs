//! Arrays held in memory: a zarr array read whole into a [`Tensor`]
//! ([`read_array`]), and a [`Tensor`] written as a new zarr array
//! ([`write_tensor`]), chunks encoded in parallel. String arrays (vlen-utf8) are
//! read this way too, chunk by chunk ([`read_strings`]).

use std::ops::Range;
use std::path::{Path, PathBuf};

use ndpad::index::{copy_box, copy_pod_box, extract_box};
use ndpad::{Buffer, DType, Interrupt, PadError, Tensor};
use zarrs::array::{ArrayBytes, CodecOptions, Element, FillValue};

use crate::node::{check_output, element_bytes, is_time, zarr_name, STRING_BYTES};
use crate::pad::{direct_chunks, on_threads, PadReport, Run, Stage, ZarrArray, ZarrPadOptions};
use crate::stage::StagedDir;
use crate::ZarrError;

/// zarr arrays are padded on little-endian machines only (zarrs decodes to the
/// machine's order; ndpad's tensors are little-endian).
pub(crate) fn little_endian_only() -> Result<(), ZarrError> {
    if cfg!(target_endian = "big") {
        return Err(ZarrError::BigEndian);
    }
    Ok(())
}

/// The whole array `input` read into memory: refused when it takes more than `limit`
/// bytes (strings counted at 24 bytes each, then their text), or has more than
/// `max_chunks` chunks; `interrupt` is asked between chunks of strings and at the end.
/// Dates and times are refused (they have no tensor type).
///
/// # Errors
/// [`ZarrError::TooLargeToRead`], [`ZarrError::StringsTooLarge`],
/// [`ZarrError::TimeAsTensor`], [`ZarrError::Interrupted`], and what reading finds.
pub fn read_array(
    input: &ZarrArray,
    limit: u64,
    max_chunks: u64,
    interrupt: Option<&Interrupt>,
) -> Result<Tensor, ZarrError> {
    little_endian_only()?;
    let path = input.path();
    let type_name = input.type_name();
    if is_time(type_name) {
        return Err(ZarrError::TimeAsTensor {
            path: path.to_path_buf(),
            name: type_name.to_string(),
        });
    }
    let run = ZarrPadOptions {
        interrupt: interrupt.cloned(),
        ..ZarrPadOptions::default()
    }
    .run();
    let (in_grid, _, _) = input.chunks(max_chunks, limit)?;
    let tensor_err = |source| ZarrError::Pad {
        path: path.to_path_buf(),
        source,
    };
    if input.dtype() == DType::String {
        let strings = read_strings(input, &in_grid, limit, &run)?;
        return Tensor::from_strings(input.shape(), strings).map_err(tensor_err);
    }
    let width = element_bytes(input.dtype()) as u64;
    let bytes = input
        .shape()
        .iter()
        .try_fold(width, |n, &d| n.checked_mul(d as u64))
        .filter(|&b| b <= limit && usize::try_from(b).is_ok());
    if bytes.is_none() {
        return Err(ZarrError::TooLargeToRead {
            path: path.to_path_buf(),
            shape: input.shape().to_vec(),
            dtype: input.dtype(),
            limit,
        });
    }
    let array = input.array();
    let whole: Vec<Range<usize>> = input.shape().iter().map(|&d| 0..d).collect();
    let read = |source| {
        input.at(ZarrError::ReadRegion {
            region: whole.clone(),
            source,
        })
    };
    let data: ArrayBytes<'static> = array
        .retrieve_array_subset(&array.subset_all())
        .map_err(|e| read(Box::new(e)))?;
    let data = data
        .into_fixed()
        .map_err(|e| read(Box::new(e)))?
        .into_owned();
    run.check()?;
    Tensor::from_bytes(input.dtype(), input.shape(), data).map_err(tensor_err)
}

/// The strings of a zarr string array (its chunk grid `grid`), read chunk by chunk
/// (each decoded into at most [`crate::MAX_VARIABLE_CHUNK_BYTES`]), refused where
/// the array's strings, or their text, take more than `limit` bytes.
pub(crate) fn read_strings(
    input: &ZarrArray,
    grid: &[u64],
    limit: u64,
    run: &Run,
) -> Result<ndpad::Strings, ZarrError> {
    let path = input.path();
    let too_large = |shape: Option<&[usize]>| ZarrError::StringsTooLarge {
        path: path.to_path_buf(),
        shape: shape.map(<[usize]>::to_vec),
        limit,
    };
    let shape = input.shape();
    let n = ndpad::numel(shape)
        .ok()
        .filter(|&n| {
            (n as u64)
                .checked_mul(STRING_BYTES as u64)
                .is_some_and(|b| b <= limit)
        })
        .ok_or_else(|| too_large(Some(shape)))?;
    let mut all = ndpad::Strings::filled(n, "").map_err(|_| too_large(Some(shape)))?;
    let count = crate::chunk_count(grid).map_err(|e| input.at(e))?;
    let array = input.array();
    let mut text: u64 = 0;
    for i in 0..count {
        run.check()?;
        let idx = zarrs::array::unravel_index(i, grid).ok_or_else(|| ZarrError::ChunkIndex {
            index: i,
            grid: grid.to_vec(),
        })?;
        let subset = array
            .chunk_subset_bounded(&idx)
            .map_err(|e| input.zarrs(e))?;
        let part: Vec<String> = array
            .retrieve_array_subset::<Vec<String>>(&subset)
            .map_err(|e| {
                input.at(ZarrError::Chunk {
                    index: idx.clone(),
                    source: Box::new(crate::codec(e)),
                })
            })?;
        text = part
            .iter()
            .fold(text, |t, s| t.saturating_add(s.len() as u64));
        if text > limit {
            return Err(too_large(None));
        }
        let at: Vec<usize> = subset.start().iter().map(|&a| a as usize).collect();
        let sub: Vec<usize> = subset.shape().iter().map(|&d| d as usize).collect();
        // What the strings are placed by: never trusted to the decoder.
        let region: Vec<Range<usize>> = at.iter().zip(&sub).map(|(&a, &d)| a..a + d).collect();
        let inside =
            region.len() == shape.len() && region.iter().zip(shape).all(|(r, &d)| r.end <= d);
        if !inside || part.len() != sub.iter().product::<usize>() {
            return Err(input.at(ZarrError::Metadata(format!(
                "chunk {idx:?} decoded to {} strings; its region {region:?} of {shape:?} \
                 holds {}",
                part.len(),
                sub.iter().product::<usize>()
            ))));
        }
        let mut next = part.iter();
        ndpad::index::try_for_each_run(shape, &region, 1, |_, at, len| {
            (at..at + len).for_each(|i| {
                all.set(i, next.next().map_or("", String::as_str));
            });
            Ok::<(), std::convert::Infallible>(())
        })
        .unwrap_or_else(|never| match never {});
    }
    Ok(all)
}

/// The bytes a default chunk holds at most: 4 MiB (halving an extent at a time, a
/// chunk of a larger array holds 2 to 4 MiB).
const DEFAULT_CHUNK_BYTES: u64 = 4 << 20;

/// The default chunk shape of a new array of `shape` (elements of `width` bytes):
/// the whole array, its longest extent halved (rounding up) until a chunk holds at
/// most 4 MiB. Extents of 0 take chunks of 1.
pub fn default_chunks(shape: &[usize], width: usize) -> Vec<u64> {
    let mut chunk: Vec<u64> = shape.iter().map(|&d| (d as u64).max(1)).collect();
    let bytes = |c: &[u64]| c.iter().fold(width as u64, |n, &d| n.saturating_mul(d));
    while bytes(&chunk) > DEFAULT_CHUNK_BYTES {
        let Some(longest) = (0..chunk.len()).max_by_key(|&k| (chunk[k], std::cmp::Reverse(k)))
        else {
            break;
        };
        if chunk[longest] == 1 {
            break;
        }
        chunk[longest] = chunk[longest].div_ceil(2);
    }
    chunk
}

/// The zarr fill value 0 of a data type (`false`, `0`, `0.0`, `[0.0, 0.0]`,
/// `"0x00"`): the byte pattern of zeros; the empty string for strings.
fn zero_fill(dtype: DType) -> serde_json::Value {
    match dtype {
        DType::String => serde_json::json!(""),
        DType::Bool => serde_json::json!(false),
        DType::Complex64 | DType::Complex128 => serde_json::json!([0.0, 0.0]),
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => {
            serde_json::json!(0.0)
        }
        // zarrs takes float8 fill values as bytes: 0x00 is 0.0 (float8_e8m0fnu has
        // no 0: 0x00 is its least value, 2^-127).
        DType::Float8E4M3FNUZ | DType::Float8E5M2 | DType::Float8E5M2FNUZ | DType::Float8E8M0 => {
            serde_json::json!("0x00")
        }
        _ => serde_json::json!(0),
    }
}

/// The buffers a thread writing a new array's chunks holds at once, in chunks: the
/// chunk's cells, the whole edge chunk made of them, and its encoding (zstd: at most
/// a little over the chunk).
const WRITE_BUFFERS: u64 = 3;

/// A new zarr array, checked and ready to be written ([`NewArray::write`]).
#[derive(Debug)]
pub(crate) struct NewArray {
    pub(crate) output: PathBuf,
    pub(crate) json: serde_json::Value,
    pub(crate) chunk_shape: Vec<u64>,
    pub(crate) grid: Vec<u64>,
    pub(crate) count: u64,
    /// A chunk's bytes (decoded; strings at their element size, their text apart).
    pub(crate) chunk_bytes: u64,
}

impl NewArray {
    /// The array of `dtype` and `shape` to be written at `output`: chunks of
    /// `opts.chunks` or [`default_chunks`], the bytes codec (little-endian) and zstd
    /// (level 3), fill value 0; strings a `string` array (vlen-utf8, then zstd), fill
    /// value the empty string.
    fn new(
        dtype: DType,
        shape: &[usize],
        output: &Path,
        opts: &ZarrPadOptions,
    ) -> Result<NewArray, ZarrError> {
        let Some(type_name) = zarr_name(dtype) else {
            return Err(ZarrError::NoZarrType {
                path: output.to_path_buf(),
                dtype,
            });
        };
        let width = element_bytes(dtype);
        let chunk_shape = opts
            .chunk_shape(shape.len())?
            .unwrap_or_else(|| default_chunks(shape, width));
        let budget = opts.budget();
        let bytes = chunk_shape
            .iter()
            .try_fold(width as u64, |n, &d| n.checked_mul(d));
        let Some(chunk_bytes) = bytes.filter(|&b| b <= budget && usize::try_from(b).is_ok()) else {
            return Err(ZarrError::ChunkOverBudget {
                path: output.to_path_buf(),
                which: "a chunk",
                shape: chunk_shape,
                bytes,
                dtype,
                limit: budget,
            });
        };
        let shape_u64: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let out_err = |e| ZarrError::At {
            path: output.to_path_buf(),
            source: Box::new(e),
        };
        let (grid, count) = crate::chunk_grid(&shape_u64, &chunk_shape).map_err(out_err)?;
        crate::check_chunks("output", &grid, count, 1, opts.max_chunks).map_err(out_err)?;
        let array_to_bytes = if dtype == DType::String {
            serde_json::json!({"name": "vlen-utf8"})
        } else {
            serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}})
        };
        let json = serde_json::json!({
            "zarr_format": 3,
            "node_type": "array",
            "shape": shape,
            "data_type": type_name,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk_shape}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": zero_fill(dtype),
            "codecs": [
                array_to_bytes,
                {"name": "zstd", "configuration": {"level": 3, "checksum": false}},
            ],
            "attributes": {},
        });
        Ok(NewArray {
            output: output.to_path_buf(),
            json,
            chunk_shape,
            grid,
            count,
            chunk_bytes,
        })
    }

    /// A chunk's bytes for the strings `s`: in memory they share their text, but a
    /// chunk's cells and its encoding hold each element's own, counted at the longest
    /// element's length. [`ZarrError::ChunkOverBudget`] where the budget cannot hold
    /// one (as for chunks of other types).
    fn string_chunk_bytes(
        &self,
        s: &ndpad::Strings,
        opts: &ZarrPadOptions,
    ) -> Result<u64, ZarrError> {
        // The longest element, or the fill value where an edge chunk's cells hold it.
        let fill = self
            .json
            .get("fill_value")
            .and_then(serde_json::Value::as_str);
        let longest = s.iter().chain(fill).map(str::len).max().unwrap_or(0) as u64;
        let bytes = self
            .chunk_shape
            .iter()
            .try_fold(STRING_BYTES as u64 + longest, |n, &d| n.checked_mul(d));
        let budget = opts.budget();
        bytes
            .filter(|&b| b <= budget)
            .ok_or_else(|| ZarrError::ChunkOverBudget {
                path: self.output.clone(),
                which: "a chunk of strings",
                shape: self.chunk_shape.clone(),
                bytes,
                dtype: DType::String,
                limit: budget,
            })
    }

    /// The threads that write chunks: those asked (0: rayon's), at most as many as
    /// the budget holds at [`WRITE_BUFFERS`] chunks each, at least one.
    fn threads(&self, opts: &ZarrPadOptions) -> usize {
        let asked = match opts.threads {
            0 => rayon::current_num_threads(),
            n => n,
        };
        let per_thread = self.chunk_bytes.saturating_mul(WRITE_BUFFERS).max(1);
        let fit = usize::try_from(opts.budget() / per_thread).unwrap_or(usize::MAX);
        asked.min(fit).max(1)
    }

    /// Writes `padded` (of the array's shape) as this array: staged beside the
    /// output, chunks encoded in parallel, synced together, moved into place. A chunk
    /// that holds nothing but the fill value is not stored; the part of an edge chunk
    /// outside the array holds it.
    pub(crate) fn write(
        mut self,
        padded: &Tensor,
        opts: &ZarrPadOptions,
    ) -> Result<PadReport, ZarrError> {
        if let Some(s) = padded.strings() {
            self.chunk_bytes = self.string_chunk_bytes(s, opts)?;
        }
        let run = opts.run();
        run.stage(Stage::Writing);
        let out_shape = padded.shape();
        let staged = StagedDir::new(&self.output)?;
        let out = staged.create_array(&self.json)?;
        let fill: &FillValue = out.fill_value();
        let fill_text = String::from_utf8_lossy(fill.as_ne_bytes()).into_owned();
        let width = padded.dtype().byte_len(1).unwrap_or(1);
        let codec_opts = CodecOptions::default().with_store_empty_chunks(true);
        let direct = direct_chunks(&self.json);
        let grid = &self.grid;
        let skipped = std::sync::atomic::AtomicU64::new(0);
        let one = |i: u64| -> Result<(), ZarrError> {
            run.check()?;
            let ChunkPlace { idx, bx, full } = chunk_place(&out, grid, i)?;
            let in_chunk = |e| ZarrError::Chunk {
                index: idx.clone(),
                source: Box::new(e),
            };
            let data = match padded.data() {
                Buffer::Bytes(b) => {
                    let part = extract_box(b, out_shape, &bx, width)
                        .map_err(|e| in_chunk(crate::codec(e)))?;
                    let cells = chunk_cells(part, &bx, &full, width, fill.as_ne_bytes())
                        .map_err(|e| in_chunk(crate::codec(e)))?;
                    if fill.equals_all(&cells) {
                        skipped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        return Ok(());
                    }
                    ArrayBytes::new_flen(cells)
                }
                Buffer::Strings(s) => {
                    let part =
                        string_box(s, out_shape, &bx).map_err(|e| in_chunk(crate::codec(e)))?;
                    let cells = chunk_cells(part, &bx, &full, 1, &[&fill_text[..]])
                        .map_err(|e| in_chunk(crate::codec(e)))?;
                    if cells.iter().all(|c| c.as_bytes() == fill.as_ne_bytes()) {
                        skipped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        return Ok(());
                    }
                    let cells: Vec<String> = cells.into_iter().map(str::to_owned).collect();
                    String::to_array_bytes(out.data_type(), &cells)
                        .map_err(|e| in_chunk(crate::codec(e)))?
                        .into_owned()
                }
            };
            staged
                .write_chunk(&out, &idx, data, &codec_opts, direct)
                .map_err(in_chunk)
        };
        // The threads the budget holds; rayon's own pool where that is all it has.
        let threads = self.threads(opts);
        let pool_threads = if opts.threads == 0 && threads == rayon::current_num_threads() {
            0
        } else {
            threads
        };
        let result = on_threads(pool_threads, || {
            use rayon::prelude::*;
            (0..self.count).into_par_iter().try_for_each(one)
        })?;
        run.check()?;
        result.map_err(|e| ZarrError::At {
            path: self.output.clone(),
            source: Box::new(e),
        })?;
        drop(out);
        staged.finish(&run)?;
        Ok(PadReport {
            shape: out_shape.to_vec(),
            dtype: padded.dtype(),
            chunk_shape: self.chunk_shape,
            chunks: self.count,
            chunks_skipped: skipped.into_inner(),
            threads,
            input_decodes: 0,
            parts_peak_bytes: 0,
            per_thread_bytes: self.chunk_bytes.saturating_mul(WRITE_BUFFERS),
        })
    }
}

/// Checks that a tensor of `dtype` and `shape` can be written as a new zarr array
/// at `output` (coming from `input`, when a file: never written over), with the
/// chunks of `opts`: what [`write_tensor`] refuses, refused before a pad is done.
///
/// # Errors
/// As [`write_tensor`].
pub fn check_new_array(
    input: Option<&Path>,
    dtype: DType,
    shape: &[usize],
    output: &Path,
    opts: &ZarrPadOptions,
) -> Result<(), ZarrError> {
    little_endian_only()?;
    check_output(input, output)?;
    NewArray::new(dtype, shape, output, opts).map(|_| ())
}

/// Writes `tensor` as a new zarr v3 array at `output` (staged beside it, moved into
/// place when complete): chunks of `opts.chunks` or [`default_chunks`], the bytes
/// codec (little-endian) and zstd (level 3), fill value 0 (chunks of nothing but 0
/// are not stored); strings a `string` array (vlen-utf8, then zstd), fill value the
/// empty string.
///
/// # Errors
/// A type zarr lacks here ([`ZarrError::NoZarrType`]), chunks over the budget or too
/// many, an output that may not be replaced, a failed write.
pub fn write_tensor(
    tensor: &Tensor,
    output: &Path,
    opts: &ZarrPadOptions,
) -> Result<PadReport, ZarrError> {
    little_endian_only()?;
    check_output(None, output)?;
    NewArray::new(tensor.dtype(), tensor.shape(), output, opts)?.write(tensor, opts)
}

/// Where chunk `i` of `out`'s chunk grid `grid` lies: its index, its box inside the
/// array, and its whole shape (larger than the box at the array's far edges).
pub(crate) struct ChunkPlace {
    pub(crate) idx: Vec<u64>,
    pub(crate) bx: Vec<Range<usize>>,
    pub(crate) full: Vec<usize>,
}

/// [`ChunkPlace`] of chunk `i`.
pub(crate) fn chunk_place<S: ?Sized>(
    out: &zarrs::array::Array<S>,
    grid: &[u64],
    i: u64,
) -> Result<ChunkPlace, ZarrError> {
    let idx = zarrs::array::unravel_index(i, grid).ok_or_else(|| ZarrError::ChunkIndex {
        index: i,
        grid: grid.to_vec(),
    })?;
    let in_chunk = |e| ZarrError::Chunk {
        index: idx.clone(),
        source: Box::new(crate::codec(e)),
    };
    let bx = out
        .chunk_subset_bounded(&idx)
        .map_err(in_chunk)?
        .to_ranges()
        .into_iter()
        .map(|r| r.start as usize..r.end as usize)
        .collect();
    let full = out
        .chunk_shape(&idx)
        .map_err(in_chunk)?
        .iter()
        .map(|n| n.get() as usize)
        .collect();
    Ok(ChunkPlace { idx, bx, full })
}

/// The whole chunk of shape `full` made of `part` (a C-order box of `box_shape` at
/// the chunk's origin) and, around it, the element `fill` (`w` units), written into
/// `buf` (a buffer to reuse; its contents do not matter).
pub(crate) fn edge_chunk<T: Cell>(
    mut buf: Vec<T>,
    fill: &[T],
    full: &[usize],
    part: &[T],
    box_shape: &[usize],
    w: usize,
) -> Result<Vec<T>, PadError> {
    let n = full.iter().product::<usize>() * fill.len();
    buf.clear();
    match fill.split_first() {
        // One repeated unit (a byte pattern such as 0): a plain fill.
        Some((first, rest)) if rest.iter().all(|x| x == first) => buf.resize(n, first.clone()),
        _ => buf.extend(fill.iter().cloned().cycle().take(n)),
    }
    embed(&mut buf, full, part, box_shape, &vec![0; full.len()], w)?;
    Ok(buf)
}

/// A unit of a chunk's elements: a byte, or a whole string.
pub(crate) trait Cell: Clone + PartialEq {
    /// How a box of these units is copied: bytes as `copy_through_cache` copies
    /// (never at `memcpy`'s speed a few bytes past their source within a page),
    /// strings cloned.
    const COPY_BOX: BoxCopy<Self>;
}

/// [`ndpad::index::copy_box`]'s signature.
pub(crate) type BoxCopy<T> = fn(
    &mut [T],
    &[usize],
    &[usize],
    &[T],
    &[usize],
    &[Range<usize>],
    usize,
) -> Result<(), PadError>;

impl Cell for u8 {
    const COPY_BOX: BoxCopy<u8> = copy_pod_box;
}

impl Cell for &str {
    const COPY_BOX: BoxCopy<Self> = copy_box;
}

/// Copies a compact C-order box of `shape` (elements of `w` units: bytes, or one
/// string) into a C-order buffer of `full` at `at` ([`Cell::COPY_BOX`] of the whole
/// box).
pub(crate) fn embed<T: Cell>(
    dst: &mut [T],
    full: &[usize],
    src: &[T],
    shape: &[usize],
    at: &[usize],
    w: usize,
) -> Result<(), PadError> {
    let whole: Vec<Range<usize>> = shape.iter().map(|&n| 0..n).collect();
    T::COPY_BOX(dst, full, at, src, shape, &whole, w)
}

/// The chunk `full` whose part inside the array is `part`, the array's box `bx`
/// (elements of `w` units): that box, and the element `fill` (`w` units) in the rest
/// of an edge chunk.
fn chunk_cells<T: Cell>(
    part: Vec<T>,
    bx: &[Range<usize>],
    full: &[usize],
    w: usize,
    fill: &[T],
) -> Result<Vec<T>, PadError> {
    let box_shape: Vec<usize> = bx.iter().map(Range::len).collect();
    if box_shape == full {
        return Ok(part);
    }
    edge_chunk(Vec::new(), fill, full, &part, &box_shape, w)
}

/// The elements of the box `bx` of the strings `s` (of `shape`), in C order.
fn string_box<'a>(
    s: &'a ndpad::Strings,
    shape: &[usize],
    bx: &[Range<usize>],
) -> Result<Vec<&'a str>, PadError> {
    let mut part = Vec::with_capacity(bx.iter().map(Range::len).product());
    ndpad::index::try_for_each_run(shape, bx, 1, |_, at, len| {
        part.extend((at..at + len).map(|i| s.get(i).unwrap_or_default()));
        Ok::<(), PadError>(())
    })?;
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_chunks_hold_at_most_4_mib() {
        assert_eq!(default_chunks(&[2, 3], 4), vec![2, 3]);
        assert_eq!(default_chunks(&[1100, 1000], 4), vec![550, 1000]);
        assert_eq!(default_chunks(&[1 << 30], 1), vec![4 << 20]);
        assert_eq!(default_chunks(&[0, 5], 8), vec![1, 5]);
        assert_eq!(default_chunks(&[], 8), Vec::<u64>::new());
        let c = default_chunks(&[3000, 3000, 3], 16);
        let bytes = c.iter().product::<u64>() * 16;
        assert!(bytes <= 4 << 20 && bytes > 1 << 20, "{c:?}");
    }

    #[test]
    fn embed_places_a_box() {
        let mut dst = vec![0u8; 12];
        embed(&mut dst, &[3, 4], &[1, 2, 3, 4], &[2, 2], &[1, 1], 1).unwrap();
        assert_eq!(dst, vec![0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0]);
        // Elements of two bytes.
        let mut dst = vec![0u8; 6];
        embed(&mut dst, &[3], &[7, 8], &[1], &[2], 2).unwrap();
        assert_eq!(dst, [0, 0, 0, 0, 7, 8]);
        let mut strings = vec![""; 3];
        embed(&mut strings, &[3], &["a"], &[1], &[2], 1).unwrap();
        assert_eq!(strings, ["", "", "a"]);
    }
}
