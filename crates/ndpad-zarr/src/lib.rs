//! ndpad's zarr v3 arrays: padded zarr to zarr chunk by chunk within a memory budget,
//! read and written whole, and every read of a store ndpad did not write bounded, with
//! typed errors ([`ZarrError`], naming the path, the value and the limit). The CLI
//! (`ndpad pad IN.zarr OUT.zarr`), the Python package (`ndpad.zarr.pad`) and the fuzz
//! target use it.
//!
//! Padding:
//!
//! - [`pad`] / [`pad_array`]: a zarr array padded into a new one by a [`ndpad::PadSpec`]
//!   (from a front end), chunks in parallel, each from the input region it reads
//!   (each input chunk decoded once where the budget keeps the parts later chunks
//!   read of it), within the memory budget, the output staged beside its
//!   destination and renamed into place when complete (removed on an error or an
//!   interrupt). [`ZarrPadOptions`]: threads, the output's chunks, the most chunks,
//!   the memory budget ([`DEFAULT_MAX_MEMORY`]), an [`ndpad::Interrupt`] and a
//!   progress callback ([`Progress`]). The library never tunes its host's allocator.
//! - [`read_array`]: a whole array into an [`ndpad::Tensor`]; [`write_tensor`]: a
//!   tensor as a new zarr array ([`check_new_array`] refuses what it would refuse,
//!   before the work).
//! - [`array_json`], [`node_type`], [`in_group`], [`check_output`]: what a path holds
//!   and whether an output may replace it.
//!
//! Hostile input:
//!
//! - [`read_metadata`]: `zarr.json` from a regular file of at most
//!   [`MAX_METADATA_BYTES`], parsed; [`parse_metadata`] for bytes already read, which
//!   also refuses more than [`MAX_RANK`] axes.
//! - [`chunk_grid`]: the chunk count of a regular grid, checked (a count reaching 2^64
//!   is an error, never a wrapped 0); [`subchunks`]: the chunks inside each chunk of
//!   a sharded array; [`check_chunks`] bounds both by the caller's limit.
//! - [`open`]: the array over a store that reads regular files only (a FIFO chunk
//!   would block forever) of at most the size the codecs can encode a chunk to (for
//!   strings, [`MAX_VARIABLE_CHUNK_BYTES`]), with the bounded codecs of [`codecs`]
//!   (gzip and zstd decoding at most the expected size, shard indexes checked before
//!   zarrs reads through them, vlen-utf8 chunks' layout checked).

#![forbid(unsafe_code)]

pub mod codecs;
mod feed;
mod memory;
mod node;
mod pad;
mod stage;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use zarrs::array::{
    Array, ArrayMetadata, ArrayMetadataV3, ArrayToBytesCodecTraits, BytesRepresentation,
};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::{
    MaybeBytes, MaybeBytesIterator, ReadableStorageTraits, StorageError, StoreKey,
};

pub use memory::{check_new_array, default_chunks, read_array, write_tensor};
pub use node::{
    array_json, check_output, dtype_of, in_group, node_type, zarr_name, NotArray, Overlap, TYPES,
};
pub use pad::{
    pad, pad_array, PadReport, Progress, ProgressFn, Stage, ZarrArray, ZarrPadOptions,
    DEFAULT_MAX_MEMORY,
};

use ndpad::DType;
use node::io_text;

pub use codecs::{
    check_blosc_header, check_shard_index, check_vlen, decode_bounded, MAX_VARIABLE_CHUNK_BYTES,
};

/// The largest `zarr.json` read: an array's metadata is its shape, type, codecs and
/// attributes, kilobytes in practice; parsing takes up to ~120 times the text's size
/// (JSON values, then zarrs' metadata), so 1 MiB keeps that near 128 MiB.
pub const MAX_METADATA_BYTES: u64 = 1 << 20;

/// The most axes an array may have (as for `.npy` and `.pb` tensors).
pub const MAX_RANK: usize = 64;

/// The default bound on the chunks of a pad (input chunks, counting those inside
/// shards, and output chunks): each costs a file and ~1 KiB of bookkeeping, a million
/// of them about half a minute.
pub const DEFAULT_MAX_CHUNKS: u64 = 1 << 20;

/// What is wrong with a zarr array.
#[derive(Debug, thiserror::Error)]
pub enum ZarrError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A metadata file or chunk that is not a regular file.
    #[error("{path}: is {kind}, not a regular file")]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is: "a FIFO", "a socket", ...
        kind: &'static str,
    },
    /// A metadata file over [`MAX_METADATA_BYTES`].
    #[error("{path} is {size} bytes, over the limit of {limit} bytes for a zarr array's metadata")]
    MetadataTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Metadata that is not JSON.
    #[error("{path} is not valid JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        source: serde_json::Error,
    },
    /// More than [`MAX_RANK`] axes.
    #[error("the array has {rank} axes, over the limit of {limit}")]
    Rank {
        /// The axes of the shape.
        rank: usize,
        /// [`MAX_RANK`].
        limit: usize,
    },
    /// Metadata that zarrs cannot read, or that ndpad does not handle.
    #[error("{0}")]
    Metadata(String),
    /// Chunks (or shard indexes) over [`MAX_CHUNK_BYTES`].
    #[error("chunks of shape {shape:?} (or their shard index) exceed {limit} bytes")]
    ChunkTooLarge {
        /// The chunk shape.
        shape: Vec<u64>,
        /// [`MAX_CHUNK_BYTES`].
        limit: u64,
    },
    /// A chunk grid of 2^64 chunks or more.
    #[error(
        "the chunk grid has 2^64 or more chunks ({per_axis:?} per axis); refused before any work"
    )]
    ChunkCountOverflow {
        /// The chunks along each axis.
        per_axis: Vec<u64>,
    },
    /// A path that is not a zarr v3 array (the reason names what it is).
    #[error("{path}: {reason}")]
    NotAnArray {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        reason: NotArray,
    },
    /// An array of a data type ndpad does not pad.
    #[error("{path}: data type {name:?} is not one ndpad pads in zarr arrays (those: {TYPES})")]
    UnsupportedType {
        /// The array.
        path: PathBuf,
        /// Its zarr data type.
        name: String,
    },
    /// A tensor of a type that has no zarr v3 data type here.
    #[error("{path}: data type {dtype} has no zarr v3 array here (those ndpad writes: {TYPES})")]
    NoZarrType {
        /// Where it was to be written.
        path: PathBuf,
        /// Its type.
        dtype: DType,
    },
    /// Dates and times asked for as a tensor (they pad zarr to zarr only).
    #[error(
        "{path}: data type {name:?}: dates and times are padded into zarr outputs only \
         (the .npy and .pb outputs here have no date or time type)"
    )]
    TimeAsTensor {
        /// The array.
        path: PathBuf,
        /// Its zarr data type.
        name: String,
    },
    /// An extent that does not fit this machine's `usize`.
    #[error("{path}: extent {extent} is too large")]
    ExtentTooLarge {
        /// The array.
        path: PathBuf,
        /// The extent.
        extent: u64,
    },
    /// A chunk grid other than `regular`, with no chunk shape given for the output.
    #[error(
        "{path}: chunk grid {name:?}: ndpad writes regular chunk grids; give the output's \
         chunk shape with --chunks (`ZarrPadOptions::chunks`)"
    )]
    IrregularGrid {
        /// The input array.
        path: PathBuf,
        /// The grid's name.
        name: String,
    },
    /// A chunk shape whose rank is not the array's.
    #[error("--chunks has {} extents; the array has {rank} axes", chunks.len())]
    ChunksRank {
        /// The chunk shape given.
        chunks: Vec<u64>,
        /// The array's axes.
        rank: usize,
    },
    /// A chunk shape with an extent of 0.
    #[error("--chunks: every extent must be at least 1 (got {extent})")]
    ChunkExtentZero {
        /// The extent.
        extent: u64,
    },
    /// Chunks larger than the memory budget ([`ZarrPadOptions::max_memory`]).
    #[error(
        "{path}: {which} of shape {shape:?} ({} bytes of {dtype}) is larger than the memory \
         budget of {limit} bytes, which every chunk is held in; choose smaller chunks with \
         --chunks or a larger budget",
        bytes.map_or("over 2^64".to_string(), |b| b.to_string())
    )]
    ChunkOverBudget {
        /// The array.
        path: PathBuf,
        /// "a chunk" (of the output) or "its chunks" (of the input).
        which: &'static str,
        /// The chunk shape.
        shape: Vec<u64>,
        /// Its bytes (`None`: 2^64 or more).
        bytes: Option<u64>,
        /// The element type.
        dtype: DType,
        /// The budget.
        limit: u64,
    },
    /// An array read whole that is larger than the limit.
    #[error(
        "{path}: shape {shape:?} of {dtype} is larger than {limit} bytes, which an array \
         read whole (into a .npy or .pb output) is read into; pad it into a .zarr output \
         (chunk by chunk) instead"
    )]
    TooLargeToRead {
        /// The array.
        path: PathBuf,
        /// Its shape.
        shape: Vec<usize>,
        /// Its type.
        dtype: DType,
        /// The limit.
        limit: u64,
    },
    /// A string array whose strings (of `shape`, at 24 bytes each), or their text
    /// (`shape` `None`), take more than the limit.
    #[error(
        "{path}: {} take more than {limit} bytes, which a string array is read into",
        shape.as_ref().map_or("its strings' text".to_string(), |s| format!("the strings of shape {s:?}"))
    )]
    StringsTooLarge {
        /// The array.
        path: PathBuf,
        /// The array's shape, or `None` for its strings' text.
        shape: Option<Vec<usize>>,
        /// The limit.
        limit: u64,
    },
    /// A chunk index outside the chunk grid (zarrs and ndpad disagree: a bug).
    #[error("chunk {index} is outside the chunk grid {grid:?}")]
    ChunkIndex {
        /// The linear index.
        index: u64,
        /// The chunks along each axis.
        grid: Vec<u64>,
    },
    /// zarrs' chunk grid of the output is not the one ndpad computed (a bug).
    #[error("{path}: zarrs' chunk grid {zarrs:?} is not the grid {grid:?} of chunks {chunks:?}")]
    GridMismatch {
        /// The output.
        path: PathBuf,
        /// zarrs' grid.
        zarrs: Vec<u64>,
        /// ndpad's grid.
        grid: Vec<u64>,
        /// The chunk shape.
        chunks: Vec<u64>,
    },
    /// The output is the input, lies inside it or holds it.
    #[error("{path}: {relation} {input}; {advice}", relation = relation.text(), advice = relation.advice())]
    OutputOverlapsInput {
        /// The output.
        path: PathBuf,
        /// The input.
        input: PathBuf,
        /// How they overlap.
        relation: Overlap,
    },
    /// An output that exists and is not replaced.
    #[error(
        "{path}: exists and is {}; ndpad replaces only a zarr array or an empty directory{}",
        if *group { "a zarr group" } else { "not a zarr array or an empty directory" },
        if *group { ", never a group with its arrays (remove it or choose another output)" }
        else { " (remove it or choose another output)" }
    )]
    OutputNotReplaceable {
        /// The output.
        path: PathBuf,
        /// Whether it is a zarr group.
        group: bool,
    },
    /// A file or directory of the output that could not be written.
    #[error("{path}: {action}: {}", io_text(source))]
    Write {
        /// The output (or the file).
        path: PathBuf,
        /// What failed: "cannot write", "cannot create a temporary directory in its
        /// directory", "cannot move the result into place", "cannot sync ..".
        action: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// A chunk of the output could not be made.
    #[error("chunk {index:?}: {source}")]
    Chunk {
        /// The chunk's grid index.
        index: Vec<u64>,
        /// Why.
        source: Box<ZarrError>,
    },
    /// A region of the input could not be read.
    #[error("reading input region {region:?}: {source}")]
    ReadRegion {
        /// The region.
        region: Vec<std::ops::Range<usize>>,
        /// zarrs' error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An error of zarrs (reading, encoding, storing) about the array at `path`.
    #[error("{path}: {source}")]
    Zarrs {
        /// The array.
        path: PathBuf,
        /// zarrs' error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An error of zarrs inside a chunk (its array named by [`ZarrError::At`]).
    #[error("{0}")]
    Codec(Box<dyn std::error::Error + Send + Sync>),
    /// One of the errors above about the array at `path`.
    #[error("{path}: {source}")]
    At {
        /// The array.
        path: PathBuf,
        /// What is wrong.
        source: Box<ZarrError>,
    },
    /// The core refused or failed the pad.
    #[error("{path}: {source}")]
    Pad {
        /// The array (input or output).
        path: PathBuf,
        /// The core's error.
        source: ndpad::PadError,
    },
    /// The thread pool could not be started.
    #[error("cannot start {threads} threads: {source}")]
    Threads {
        /// The threads asked for.
        threads: usize,
        /// rayon's error.
        source: rayon::ThreadPoolBuildError,
    },
    /// A padding thread panicked (a bug).
    #[error("a padding thread panicked")]
    Panicked,
    /// Big-endian machines (zarrs decodes to the machine's order).
    #[error("zarr arrays are padded on little-endian machines only")]
    BigEndian,
    /// The interrupt ([`ZarrPadOptions::interrupt`]) asked to stop: nothing was
    /// written (the staged output is removed).
    #[error("interrupted; nothing was written")]
    Interrupted,
    /// A chunk grid with more chunks than the limit.
    #[error("the {what} has {count} chunks ({per_axis:?} per axis{inner}), over the limit of {limit} chunks (--max-chunks); refused before any work")]
    TooManyChunks {
        /// "input" or "output".
        what: &'static str,
        /// The count, or "2^64 or more".
        count: String,
        /// The chunks along each axis.
        per_axis: Vec<u64>,
        /// ", N inside each shard" for a sharded array.
        inner: String,
        /// The limit.
        limit: u64,
    },
}

/// A zarrs error inside a chunk, boxed.
pub(crate) fn codec(e: impl std::error::Error + Send + Sync + 'static) -> ZarrError {
    ZarrError::Codec(Box::new(e))
}

/// What a file that is not a regular file is, in the words of
/// `ndpad_formats::open_regular`.
fn kind_of(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// The size of the regular file at `path` (following links), `None` if there is
/// nothing there: the check of a chunk file before zarrs opens it (a stat, not an
/// open, which costs several times more per chunk).
///
/// # Errors
/// [`ZarrError::NotRegular`] for a FIFO, socket, device or directory, and
/// [`ZarrError::Io`] when it cannot be examined.
pub fn regular_file(path: &Path) -> Result<Option<u64>, ZarrError> {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m.len())),
        Ok(m) => Err(ZarrError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(&m),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ZarrError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Reads and parses a `zarr.json` (a regular file of at most [`MAX_METADATA_BYTES`]).
///
/// # Errors
/// A missing, irregular, oversized or unreadable file, or text that is not JSON.
pub fn read_metadata(file: &Path) -> Result<serde_json::Value, ZarrError> {
    let io = |source| ZarrError::Io {
        path: file.to_path_buf(),
        source,
    };
    let too_large = |size| ZarrError::MetadataTooLarge {
        path: file.to_path_buf(),
        size,
        limit: MAX_METADATA_BYTES,
    };
    // Opened without blocking and examined as opened (a FIFO is refused, not
    // waited on), as the formats' inputs are.
    let (f, size) = ndpad_formats::open_regular(file).map_err(|e| match e {
        ndpad_formats::FormatError::NotRegular { kind, .. } => ZarrError::NotRegular {
            path: file.to_path_buf(),
            kind,
        },
        ndpad_formats::FormatError::Io { source, .. } => io(source),
        other => ZarrError::Metadata(other.to_string()),
    })?;
    if size > MAX_METADATA_BYTES {
        return Err(too_large(size));
    }
    let mut text = Vec::new();
    f.take(MAX_METADATA_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(io)?;
    if text.len() as u64 > MAX_METADATA_BYTES {
        // It grew since it was examined.
        return Err(too_large(text.len() as u64));
    }
    serde_json::from_slice(&text).map_err(|source| ZarrError::Json {
        path: file.to_path_buf(),
        source,
    })
}

/// The fields of a zarr v3 array's metadata that zarrs reads.
const KNOWN_FIELDS: [&str; 10] = [
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "storage_transformers",
    "dimension_names",
];

/// The zarrs metadata of an array's `zarr.json` without its attributes, refusing
/// more than [`MAX_RANK`] axes before zarrs sizes anything by the rank.
///
/// # Errors
/// Too many axes, or metadata zarrs does not accept.
pub fn array_metadata(json: &serde_json::Value) -> Result<ArrayMetadataV3, ZarrError> {
    if let Some(shape) = json.get("shape").and_then(serde_json::Value::as_array) {
        if shape.len() > MAX_RANK {
            return Err(ZarrError::Rank {
                rank: shape.len(),
                limit: MAX_RANK,
            });
        }
    }
    // Without the attributes and the extension fields that need not be understood,
    // which zarrs keeps but ndpad never asks it for: they are most of a large
    // zarr.json, and parsed they take ~16 times their text, once more per copy.
    let needed = |k: &str, v: &serde_json::Value| {
        KNOWN_FIELDS.contains(&k)
            || (k != "attributes"
                && v.get("must_understand")
                    .and_then(serde_json::Value::as_bool)
                    != Some(false)
                && v.is_object())
    };
    let lean: serde_json::Value = match json.as_object() {
        Some(map) => map
            .iter()
            .filter(|(k, v)| needed(k, v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        None => json.clone(),
    };
    serde_json::from_value(lean).map_err(|e| {
        ZarrError::Metadata(format!(
            "zarr.json is not valid zarr v3 array metadata: {e}"
        ))
    })
}

/// Parses `zarr.json` bytes already read (at most [`MAX_METADATA_BYTES`]).
///
/// # Errors
/// As [`read_metadata`] and [`array_metadata`].
pub fn parse_metadata(bytes: &[u8]) -> Result<ArrayMetadataV3, ZarrError> {
    let path = PathBuf::from("zarr.json");
    if bytes.len() as u64 > MAX_METADATA_BYTES {
        return Err(ZarrError::MetadataTooLarge {
            path,
            size: bytes.len() as u64,
            limit: MAX_METADATA_BYTES,
        });
    }
    let json = serde_json::from_slice(bytes).map_err(|source| ZarrError::Json { path, source })?;
    array_metadata(&json)
}

/// The chunks along each axis of a regular grid of `chunk_shape` over `shape`, and
/// their count (0 for an empty array), checked.
///
/// # Errors
/// Ranks that differ, a chunk extent of 0, or a count of 2^64 or more.
pub fn chunk_grid(shape: &[u64], chunk_shape: &[u64]) -> Result<(Vec<u64>, u64), ZarrError> {
    if shape.len() != chunk_shape.len() {
        return Err(ZarrError::Metadata(format!(
            "the chunk shape {chunk_shape:?} has {} axes; the array's shape {shape:?} has {}",
            chunk_shape.len(),
            shape.len()
        )));
    }
    let per_axis = shape
        .iter()
        .zip(chunk_shape)
        .map(|(&s, &c)| {
            (c > 0).then(|| s.div_ceil(c)).ok_or_else(|| {
                ZarrError::Metadata(format!(
                    "the chunk shape {chunk_shape:?} has an extent of 0"
                ))
            })
        })
        .collect::<Result<Vec<u64>, _>>()?;
    let count = chunk_count(&per_axis)?;
    Ok((per_axis, count))
}

/// The number of chunks of a grid of `per_axis` chunks along each axis (0 when an
/// axis has none), checked.
///
/// # Errors
/// [`ZarrError::TooManyChunks`] for 2^64 or more.
pub fn chunk_count(per_axis: &[u64]) -> Result<u64, ZarrError> {
    if per_axis.contains(&0) {
        return Ok(0);
    }
    per_axis
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or_else(|| ZarrError::ChunkCountOverflow {
            per_axis: per_axis.to_vec(),
        })
}

/// The chunks inside each chunk of `chunk_shape` of an array with these codecs (1
/// unless the codecs shard; nested sharding multiplies), checked.
///
/// # Errors
/// A sharding codec whose chunk shape is malformed, or a count of 2^64 or more.
pub fn subchunks(codecs: &serde_json::Value, chunk_shape: &[u64]) -> Result<u64, ZarrError> {
    let Some(list) = codecs.as_array() else {
        return Ok(1);
    };
    let Some(conf) = list.iter().find_map(|c| {
        (c.get("name").and_then(serde_json::Value::as_str) == Some("sharding_indexed"))
            .then(|| c.get("configuration"))
            .flatten()
    }) else {
        return Ok(1);
    };
    let inner: Vec<u64> = conf
        .get("chunk_shape")
        .and_then(serde_json::Value::as_array)
        .and_then(|a| a.iter().map(serde_json::Value::as_u64).collect())
        .ok_or_else(|| ZarrError::Metadata("the sharding codec has no valid chunk_shape".into()))?;
    let (_, count) = chunk_grid(chunk_shape, &inner)?;
    let deeper = subchunks(
        conf.get("codecs").unwrap_or(&serde_json::Value::Null),
        &inner,
    )?;
    count
        .checked_mul(deeper)
        .ok_or_else(|| ZarrError::ChunkCountOverflow {
            per_axis: vec![count, deeper],
        })
}

/// Refuses a grid of `per_axis` chunks (`count` of them), each holding `inner`
/// chunks of a shard, when there are more than `limit` chunks in all.
///
/// # Errors
/// [`ZarrError::TooManyChunks`].
pub fn check_chunks(
    what: &'static str,
    per_axis: &[u64],
    count: u64,
    inner: u64,
    limit: u64,
) -> Result<(), ZarrError> {
    let total = count.checked_mul(inner);
    if total.is_some_and(|t| t <= limit) {
        return Ok(());
    }
    Err(ZarrError::TooManyChunks {
        what,
        count: total.map_or_else(|| "2^64 or more".into(), |t| t.to_string()),
        per_axis: per_axis.to_vec(),
        inner: if inner > 1 {
            format!(", {inner} inside each shard")
        } else {
            String::new()
        },
        limit,
    })
}

/// A directory store that reads only regular files of at most `max_file` bytes: a
/// FIFO would block the read forever, a device never end, and an oversized file be
/// read whole into memory.
#[derive(Debug)]
pub struct RegularFiles {
    inner: FilesystemStore,
    max_file: AtomicU64,
}

impl RegularFiles {
    /// The store of the directory `root`.
    ///
    /// # Errors
    /// When zarrs cannot open it as a store.
    pub fn new(root: &Path) -> Result<RegularFiles, ZarrError> {
        Ok(RegularFiles {
            inner: FilesystemStore::new(root).map_err(|e| ZarrError::Metadata(e.to_string()))?,
            max_file: AtomicU64::new(u64::MAX),
        })
    }

    fn check(&self, key: &StoreKey) -> Result<(), StorageError> {
        let path = self.inner.key_to_fspath(key);
        let size = regular_file(&path).map_err(|e| StorageError::Other(e.to_string()))?;
        let max = self.max_file.load(Ordering::Relaxed);
        match size {
            Some(n) if n > max => Err(StorageError::Other(format!(
                "{} is {n} bytes, more than its codecs can encode a chunk to ({max} bytes)",
                path.display()
            ))),
            _ => Ok(()),
        }
    }
}

impl ReadableStorageTraits for RegularFiles {
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        self.check(key)?;
        self.inner.get(key)
    }
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        self.check(key)?;
        self.inner.get_partial_many(key, byte_ranges)
    }
    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.check(key)?;
        self.inner.size_key(key)
    }
    fn supports_get_partial(&self) -> bool {
        self.inner.supports_get_partial()
    }
}

/// The most bytes a chunk, or a shard's index, may have: zarrs computes their sizes
/// (a chunk's encoded bound, a shard's index) with unchecked arithmetic that a chunk
/// near 2^64 bytes overflows (a panic); 2^48 is far from that and far above any chunk
/// ndpad can hold in memory.
pub const MAX_CHUNK_BYTES: u64 = 1 << 48;

/// Refuses chunks of `shape` (elements of `width` bytes) of an array with metadata
/// `json` whose bytes, or whose shard index (16 bytes per chunk inside it), exceed
/// [`MAX_CHUNK_BYTES`], before zarrs computes with them.
///
/// # Errors
/// [`ZarrError::ChunkTooLarge`].
pub fn check_chunk_size(
    shape: &[u64],
    width: usize,
    json: &serde_json::Value,
) -> Result<(), ZarrError> {
    let too_large = || ZarrError::ChunkTooLarge {
        shape: shape.to_vec(),
        limit: MAX_CHUNK_BYTES,
    };
    let bytes = shape
        .iter()
        .try_fold(width as u64, |n, &d| n.checked_mul(d))
        .filter(|&b| b <= MAX_CHUNK_BYTES);
    let codecs = json.get("codecs").unwrap_or(&serde_json::Value::Null);
    let index = subchunks(codecs, shape)
        .map_err(|_| too_large())?
        .checked_mul(16)
        .filter(|&b| b <= MAX_CHUNK_BYTES);
    match (bytes, index) {
        (Some(_), Some(_)) => Ok(()),
        _ => Err(too_large()),
    }
}

/// The array at `path` with metadata `json` (from [`read_metadata`]), reading its
/// chunks through [`RegularFiles`] and the codecs of [`codecs`].
///
/// # Errors
/// Metadata zarrs does not accept (or with too many axes), or a store zarrs cannot
/// open.
pub fn open(
    path: &Path,
    json: &serde_json::Value,
) -> Result<Array<dyn ReadableStorageTraits>, ZarrError> {
    codecs::register();
    let meta = array_metadata(json)?;
    let store = Arc::new(RegularFiles::new(path)?);
    let dyn_store: Arc<dyn ReadableStorageTraits> = store.clone();
    let array = Array::new_with_metadata(dyn_store, "/", ArrayMetadata::V3(meta))
        .map_err(|e| ZarrError::Metadata(e.to_string()))?;
    // A chunk file larger than the codecs can encode a chunk to is refused unread.
    let origin = vec![0; array.dimensionality()];
    if let Ok(shape) = array.chunk_shape(&origin) {
        let extents: Vec<u64> = shape.iter().map(|n| n.get()).collect();
        check_chunk_size(&extents, array.data_type().fixed_size().unwrap_or(1), json)?;
        // A missing chunk of strings decodes to its fill value in every element, built
        // whole by zarrs: no larger than a stored chunk may decode to.
        if array.data_type().fixed_size().is_none() {
            let fill = array.fill_value().as_ne_bytes().len() as u64;
            let total = extents
                .iter()
                .try_fold(fill, |n, &d| n.checked_mul(d))
                .filter(|&t| t <= codecs::variable_chunk_limit());
            if total.is_none() {
                return Err(ZarrError::Metadata(format!(
                    "the fill value ({fill} bytes of text) in each element of a chunk of \
                     {extents:?} exceeds the {} bytes a chunk of strings may decode to",
                    codecs::variable_chunk_limit()
                )));
            }
        }
        // Chunks of strings, whose size no codec bounds: what a chunk may decode to
        // (an encoding of it larger than that is no use).
        let max = match array.codecs().encoded_representation(
            &shape,
            array.data_type(),
            array.fill_value(),
        ) {
            Ok(BytesRepresentation::FixedSize(n) | BytesRepresentation::BoundedSize(n)) => n,
            _ => codecs::variable_chunk_limit(),
        };
        store.max_file.store(max, Ordering::Relaxed);
    }
    Ok(array)
}

/// Decodes the first chunk of the array whose `zarr.json` is `metadata` from the
/// encoded bytes `chunk`, in memory, as the CLI reads chunks (the codecs of
/// [`codecs`], the chunk-size bound of [`open`]): what the fuzz target feeds.
/// Chunks of more than `max_chunk_bytes` decoded (strings counted at 24 bytes each),
/// or arrays of more than `max_chunks` chunks (counting those inside a shard), are
/// refused first. A chunk of strings gives their text, concatenated.
///
/// # Errors
/// Whatever is wrong with the metadata or the chunk.
pub fn decode_chunk(
    metadata: &[u8],
    chunk: &[u8],
    max_chunk_bytes: u64,
    max_chunks: u64,
) -> Result<Vec<u8>, ZarrError> {
    use zarrs::array::ArrayBytes;
    use zarrs::storage::store::MemoryStore;
    use zarrs::storage::WritableStorageTraits;
    let other = |e: &dyn std::fmt::Display| ZarrError::Metadata(e.to_string());
    codecs::register();
    let meta = parse_metadata(metadata)?;
    let codecs_json = serde_json::to_value(&meta.codecs).map_err(|e| other(&e))?;
    let store = Arc::new(MemoryStore::new());
    let array = Array::new_with_metadata(store.clone(), "/", ArrayMetadata::V3(meta))
        .map_err(|e| other(&e))?;
    let origin = vec![0; array.dimensionality()];
    let shape: Vec<u64> = array
        .chunk_shape(&origin)
        .map_err(|e| other(&e))?
        .iter()
        .map(|n| n.get())
        .collect();
    // Strings (variable size) count a `String` each before their text.
    let fixed = array.data_type().fixed_size();
    let bytes = shape
        .iter()
        .try_fold(fixed.unwrap_or(node::STRING_BYTES) as u64, |n, &d| {
            n.checked_mul(d)
        })
        .filter(|&b| b <= max_chunk_bytes)
        .ok_or_else(|| ZarrError::Metadata(format!("chunks of shape {shape:?} are too large")))?;
    let (per_axis, count) = chunk_grid(array.shape(), &shape)?;
    check_chunks(
        "array",
        &per_axis,
        count,
        subchunks(&codecs_json, &shape)?,
        max_chunks,
    )?;
    if let Ok(BytesRepresentation::FixedSize(n) | BytesRepresentation::BoundedSize(n)) =
        array.codecs().encoded_representation(
            &array.chunk_shape(&origin).map_err(|e| other(&e))?,
            array.data_type(),
            array.fill_value(),
        )
    {
        if chunk.len() as u64 > n {
            return Err(ZarrError::Metadata(format!(
                "a chunk of {} bytes, more than its codecs encode to ({n})",
                chunk.len()
            )));
        }
    }
    if count == 0 {
        return Ok(Vec::new());
    }
    store
        .set(&array.chunk_key(&origin), chunk.to_vec().into())
        .map_err(|e| other(&e))?;
    if fixed.is_none() {
        let strings: Vec<String> = array.retrieve_chunk(&origin).map_err(|e| other(&e))?;
        let elements: u64 = shape.iter().product();
        if strings.len() as u64 != elements {
            return Err(ZarrError::Metadata(format!(
                "a chunk decoded to {} strings, expected {elements}",
                strings.len()
            )));
        }
        return Ok(strings.concat().into_bytes());
    }
    let decoded: ArrayBytes<'static> = array.retrieve_chunk(&origin).map_err(|e| other(&e))?;
    let decoded = decoded.into_fixed().map_err(|e| other(&e))?.into_owned();
    if decoded.len() as u64 != bytes {
        return Err(ZarrError::Metadata(format!(
            "a chunk decoded to {} bytes, expected {bytes}",
            decoded.len()
        )));
    }
    Ok(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_counts_are_checked() {
        assert_eq!(chunk_grid(&[10, 7], &[3, 7]).unwrap(), (vec![4, 1], 4));
        assert_eq!(chunk_grid(&[0, 1 << 40], &[1, 1]).unwrap().1, 0);
        // 2^32 x 2^32 chunks of one element: 2^64 chunks, never a wrapped 0.
        let e = chunk_grid(&[1 << 32, 1 << 32], &[1, 1]).unwrap_err();
        assert!(
            e.to_string()
                == "the chunk grid has 2^64 or more chunks ([4294967296, 4294967296] per \
                    axis); refused before any work",
            "{e}"
        );
        assert_eq!(
            chunk_grid(&[4], &[0]).unwrap_err().to_string(),
            "the chunk shape [0] has an extent of 0"
        );
        let e = check_chunks("input", &[1 << 20, 2], 1 << 21, 1, 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the input has 2097152 chunks ([1048576, 2] per axis), over the limit of 1048576 \
             chunks (--max-chunks); refused before any work"
        );
    }

    #[test]
    fn chunks_zarrs_would_overflow_on_are_refused() {
        let none = serde_json::json!({});
        assert!(check_chunk_size(&[1 << 20, 1 << 20], 8, &none).is_ok());
        let e = check_chunk_size(&[1 << 63, 1 << 63], 1, &none).unwrap_err();
        assert_eq!(
            e.to_string(),
            "chunks of shape [9223372036854775808, 9223372036854775808] (or their shard \
             index) exceed 281474976710656 bytes"
        );
        let sharded = serde_json::json!({"codecs": [{"name": "sharding_indexed",
            "configuration": {"chunk_shape": [1, 1]}}]});
        assert!(check_chunk_size(&[1 << 31, 1 << 31], 1, &sharded).is_err());
        assert!(check_chunk_size(&[1 << 10, 1 << 10], 1, &sharded).is_ok());
    }

    #[test]
    fn subchunks_multiply_through_nested_shards() {
        let codecs = serde_json::json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 2], "codecs": [{"name": "sharding_indexed",
            "configuration": {"chunk_shape": [1, 1], "codecs": []}}]}}]);
        assert_eq!(subchunks(&codecs, &[4, 6]).unwrap(), 6 * 4);
        assert_eq!(subchunks(&serde_json::json!([]), &[4, 6]).unwrap(), 1);
    }

    #[test]
    fn zarrs_gets_only_the_metadata_it_reads() {
        let json = serde_json::json!({
            "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
            "codecs": [{"name": "bytes"}], "attributes": {"big": [0, 0, 0]},
            "ignored": {"must_understand": false, "big": [0, 0]}, "list": [0, 0],
        });
        let meta = array_metadata(&json).unwrap();
        assert!(meta.attributes.is_empty());
        assert!(meta.additional_fields.is_empty());
        // An extension that must be understood still reaches zarrs (which refuses it
        // when the array is made).
        let mut strict = json.clone();
        strict["ext"] = serde_json::json!({"must_understand": true});
        assert_eq!(array_metadata(&strict).unwrap().additional_fields.len(), 1);
    }

    #[test]
    fn decode_chunk_checks_shards_and_sizes() {
        let meta = br#"{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
            "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2],
              "codecs": [{"name": "bytes"}], "index_codecs": [{"name": "bytes",
              "configuration": {"endian": "little"}}], "index_location": "end"}}]}"#;
        let shard = |index: [u64; 4]| {
            let mut b = vec![1u8, 2, 3, 4];
            for v in index {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b
        };
        let ok = decode_chunk(meta, &shard([0, 2, 2, 2]), 1 << 20, 16).unwrap();
        assert_eq!(ok, vec![1, 2, 3, 4]);
        let e = decode_chunk(meta, &shard([u64::MAX - 7, 16, 2, 2]), 1 << 20, 16).unwrap_err();
        assert!(e.to_string().contains("shard index entry 0: offset 18446744073709551608 + size 16 lies outside the shard's 36 bytes"), "{e}");
        let e = decode_chunk(meta, &shard([0, 2, 2, 2]), 3, 16).unwrap_err();
        assert_eq!(e.to_string(), "chunks of shape [4] are too large");
        let e = decode_chunk(meta, &shard([0, 2, 2, 2]), 1 << 20, 1).unwrap_err();
        assert!(e.to_string().contains("2 inside each shard"), "{e}");
    }

    #[test]
    fn metadata_is_bounded_and_regular() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("zarr.json");
        fs::write(&big, vec![b' '; (MAX_METADATA_BYTES + 1) as usize]).unwrap();
        let e = read_metadata(&big).unwrap_err().to_string();
        assert!(e.ends_with("zarr.json is 1048577 bytes, over the limit of 1048576 bytes for a zarr array's metadata"), "{e}");
        let e = read_metadata(dir.path()).unwrap_err().to_string();
        assert!(e.ends_with(": is a directory, not a regular file"), "{e}");
        let shape = vec![1; 65];
        let e = array_metadata(&serde_json::json!({"shape": shape})).unwrap_err();
        assert_eq!(e.to_string(), "the array has 65 axes, over the limit of 64");
    }
}
