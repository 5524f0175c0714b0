//! Zarr v3 arrays: `ndpad pad IN.zarr OUT.zarr`, chunk by chunk; `IN.zarr OUT.npy`
//! ([`read_whole`]) and `IN.npy OUT.zarr` ([`pad_to_zarr`]) in memory, as are string
//! arrays (`string`, vlen-utf8: variable-length, so read whole). Dates and times
//! (`numpy.datetime64`, `numpy.timedelta64`) are padded as their int64 counts of
//! their unit, zarr to zarr (the `.npy` and `.pb` writers have no date type). A zarr array
//! is told by its zarr.json, not its name ([`node_type`]); an output is a zarr array
//! too where it goes into an existing group ([`in_group`]).
//!
//! The output keeps the input's metadata (data type, chunk grid and chunk key
//! encoding, codecs, fill value, dimension names, attributes) with the padded shape,
//! and `--chunks` as its chunk shape when given. Its chunks are computed in parallel
//! (rayon), each from only the input region it reads: per output chunk,
//! [`Plan::window`] with [`Source::Region`] gives that region, which is read with
//! zarrs' array-subset retrieval (decoding only the input chunks it touches). A chunk
//! whose window would read a region larger than itself along an axis (a wrap pad
//! whose chunk straddles the seam reads both ends of the axis) is split there into
//! pieces that each read no more than their own extent. A chunk that comes out as
//! nothing but the fill value (all padding with the fill value as the constant) is
//! not stored, as zarr allows. The output is written to a directory beside the
//! destination and moved into place only when every chunk is written (and synced:
//! the chunk files are synced together at the end, not one by one as zarrs' store
//! does). The threads take output chunks in C order, the next one as each finishes,
//! and reuse their buffers (see [`keep_freed_memory`]).

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ndpad::{
    Buffer, DType, PadOptions, PadSpec, Plan, Seg, Source, Tensor, TensorView, TensorViewMut,
};
use zarrs::array::chunk_cache::{ChunkCache, ChunkCacheDecodedLruChunkLimit};
use zarrs::array::{
    Array, ArrayBytes, ArrayMetadata, ArraySubset, ArrayToBytesCodecTraits, CodecOptions, Element,
    FillValue,
};
use zarrs::filesystem::FilesystemStore;
use zarrs::metadata::v3::{ArrayMetadataV3, MetadataV3};
use zarrs::storage::ReadableStorageTraits;

use crate::args::{ByteLimit, PadCmd};
use crate::failure::{CmdResult, Failure};
use crate::padcmd::{build_op, frontend_text};
use crate::progress::Progress;
use crate::tensor_io::{default_max_output_bytes, io_text, pad_error_text, same_file};

/// The error of a command other than `pad` given a `.zarr` path.
pub fn only_pad(path: &Path) -> Failure {
    Failure::usage(format!(
        "{}: zarr arrays are read and written by `ndpad pad` (and described by \
         `ndpad info`) only (this command takes .npy and .pb files)",
        path.display()
    ))
}

/// The ndpad type of a zarr v3 data type name; `None` for the types ndpad lacks.
pub fn dtype_of(name: &str) -> Option<DType> {
    Some(match name {
        "bool" => DType::Bool,
        "int8" => DType::Int8,
        "int16" => DType::Int16,
        "int32" => DType::Int32,
        "int64" => DType::Int64,
        "uint8" => DType::Uint8,
        "uint16" => DType::Uint16,
        "uint32" => DType::Uint32,
        "uint64" => DType::Uint64,
        "float16" => DType::Float16,
        "bfloat16" => DType::BFloat16,
        "float32" => DType::Float32,
        "float64" => DType::Float64,
        "complex64" | "complex_float32" => DType::Complex64,
        "complex128" | "complex_float64" => DType::Complex128,
        "float8_e4m3fnuz" => DType::Float8E4M3FNUZ,
        "float8_e5m2" => DType::Float8E5M2,
        "float8_e5m2fnuz" => DType::Float8E5M2FNUZ,
        "float8_e8m0fnu" => DType::Float8E8M0,
        "string" => DType::String,
        // Stored as int64 counts of the type's unit, and padded as such.
        DATETIME | TIMEDELTA => DType::Int64,
        _ => return None,
    })
}

const DATETIME: &str = "numpy.datetime64";
const TIMEDELTA: &str = "numpy.timedelta64";

const TYPES: &str = "bool, int8-64, uint8-64, float16, bfloat16, float32, float64, complex64, \
                     complex128, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu, \
                     string, numpy.datetime64, numpy.timedelta64";

/// True for zarr's date and time types (padded as int64 counts of their unit).
fn is_time(type_name: &str) -> bool {
    matches!(type_name, DATETIME | TIMEDELTA)
}

/// What a string costs in memory besides its text (a `String`: pointer, length and
/// capacity): what a string array is bounded by before its text is read.
const STRING_BYTES: usize = std::mem::size_of::<String>();

/// The bytes an element of `dtype` takes in memory: its width, or [`STRING_BYTES`].
fn element_bytes(dtype: DType) -> usize {
    match dtype.byte_len(1) {
        _ if dtype == DType::String => STRING_BYTES,
        Some(w) => w.max(1),
        None => 1,
    }
}

fn rejected(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::rejected(format!("{}: {e}", path.display()))
}

/// Reads a zarr.json (a regular file of bounded size; see [`ndpad_zarr::read_metadata`]).
fn read_json(path: &Path, file: &Path) -> Result<serde_json::Value, Failure> {
    ndpad_zarr::read_metadata(file).map_err(|e| rejected(path, e))
}

/// The members of a group directory that are zarr nodes, for its error message.
fn members(path: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let p = e.path();
            p.join("zarr.json").is_file()
                || p.join(".zarray").is_file()
                || p.join(".zgroup").is_file()
        })
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    names.truncate(10);
    names
}

/// Checks that `path` is a zarr v3 array, with a message naming what it is otherwise;
/// its metadata (zarr.json) as it is written.
fn check_array(path: &Path) -> Result<serde_json::Value, Failure> {
    let meta = fs::metadata(path).map_err(|e| rejected(path, io_text(&e)))?;
    if !meta.is_dir() {
        return Err(rejected(
            path,
            "is a file, not a zarr array (a directory holding zarr.json)",
        ));
    }
    let v3 = path.join("zarr.json");
    // Anything named zarr.json is read (a FIFO or a directory is refused there).
    if fs::symlink_metadata(&v3).is_ok() {
        let json = read_json(path, &v3)?;
        let node = json.get("node_type").and_then(|v| v.as_str()).unwrap_or("");
        let format = json.get("zarr_format").and_then(serde_json::Value::as_u64);
        return match (format, node) {
            (Some(3), "array") => Ok(json),
            (Some(3), "group") => {
                let m = members(path);
                let hint = match m.first() {
                    None => "it holds no arrays".to_string(),
                    Some(first) => format!(
                        "its members: {}; e.g. {}",
                        m.join(", "),
                        path.join(first).display()
                    ),
                };
                Err(rejected(
                    path,
                    format!(
                        "is a zarr group, not an array; ndpad pads one array at a time: \
                         give the path of one of its arrays ({hint})"
                    ),
                ))
            }
            _ => Err(rejected(
                path,
                format!(
                    "zarr.json is not the metadata of a zarr v3 array (zarr_format {}, node_type {node:?})",
                    format.map_or("missing".to_string(), |f| f.to_string())
                ),
            )),
        };
    }
    if path.join(".zarray").is_file() {
        return Err(rejected(
            path,
            "is a zarr v2 array (.zarray); ndpad reads zarr v3 arrays only (convert it, \
             e.g. with zarr-python 3: zarr.create_array(..., zarr_format=3) and copy the data)",
        ));
    }
    if path.join(".zgroup").is_file() {
        return Err(rejected(
            path,
            "is a zarr v2 group (.zgroup), not a zarr v3 array",
        ));
    }
    Err(rejected(
        path,
        "is a directory without zarr.json: not a zarr v3 array",
    ))
}

/// Refuses an output that is the input, lies inside it or holds it, or that exists
/// and is not a zarr array or an empty directory (ndpad replaces only what looks like
/// its own kind of output; a group, v3 or v2, is refused).
fn check_output(input: Option<&Path>, output: &Path) -> Result<(), Failure> {
    if let Some(input) = input {
        check_not_input(input, output)?;
    }
    check_replaceable(output)
}

/// Refuses an output that is the input, lies inside it or holds it.
fn check_not_input(input: &Path, output: &Path) -> Result<(), Failure> {
    if same_file(input, output) {
        return Err(rejected(
            output,
            format!(
                "the output is the input array {}; ndpad never modifies its input, choose another output",
                input.display()
            ),
        ));
    }
    let canon_in = fs::canonicalize(input).map_err(|e| rejected(input, io_text(&e)))?;
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let canon_parent = fs::canonicalize(parent).map_err(|e| {
        rejected(
            output,
            format!("its directory {}: {}", parent.display(), io_text(&e)),
        )
    })?;
    if canon_parent.starts_with(&canon_in) {
        return Err(rejected(
            output,
            format!(
                "lies inside the input array {}; choose another output",
                input.display()
            ),
        ));
    }
    if let Some(name) = output.file_name() {
        if canon_in.starts_with(canon_parent.join(name)) {
            return Err(rejected(
                output,
                format!(
                    "holds the input array {}; replacing it would delete the input",
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses an output that exists and is not a zarr array or an empty directory.
fn check_replaceable(output: &Path) -> Result<(), Failure> {
    if let Ok(meta) = fs::symlink_metadata(output) {
        // A group is never replaced: that would delete its arrays.
        let v3_node = || {
            ndpad_zarr::read_metadata(&output.join("zarr.json"))
                .ok()
                .and_then(|j| j.get("node_type")?.as_str().map(str::to_string))
        };
        let v3 = if meta.is_dir() { v3_node() } else { None };
        if v3.as_deref() == Some("group") || (meta.is_dir() && output.join(".zgroup").is_file()) {
            return Err(rejected(
                output,
                "exists and is a zarr group; ndpad replaces only a zarr array or an empty \
                 directory, never a group with its arrays (remove it or choose another output)",
            ));
        }
        let zarr_node = meta.is_dir()
            && (v3.as_deref() == Some("array")
                || output.join(".zarray").is_file()
                || fs::read_dir(output).is_ok_and(|mut d| d.next().is_none()));
        if !zarr_node {
            return Err(rejected(
                output,
                "exists and is not a zarr array or an empty directory; ndpad replaces only \
                 those (remove it or choose another output)",
            ));
        }
    }
    Ok(())
}

/// A directory beside the destination that is removed when dropped, unless moved
/// into place.
struct StagedDir {
    tmp: PathBuf,
    dest: PathBuf,
    keep: bool,
}

impl StagedDir {
    fn new(dest: &Path) -> Result<StagedDir, Failure> {
        let parent = dest
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = dest
            .file_name()
            .map_or("output".into(), |n| n.to_string_lossy().into_owned());
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        for attempt in 0..100u32 {
            let tmp = parent.join(format!(
                ".{name}.ndpad-{}-{nanos:x}-{attempt}.tmp",
                std::process::id()
            ));
            // A plain mkdir: permissions as the umask gives them.
            match fs::create_dir(&tmp) {
                Ok(()) => {
                    return Ok(StagedDir {
                        tmp,
                        dest: dest.to_path_buf(),
                        keep: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(rejected(
                        dest,
                        format!(
                            "cannot create a temporary directory in its directory: {}",
                            io_text(&e)
                        ),
                    ))
                }
            }
        }
        Err(rejected(
            dest,
            "cannot create a temporary directory in its directory",
        ))
    }

    /// Syncs the chunk files `written` into the directory, then moves it into place;
    /// neither after a signal (the directory is then removed).
    fn finish(self, written: &Mutex<Vec<PathBuf>>, progress: &Progress) -> Result<(), Failure> {
        crate::interrupt::check()?;
        progress.set_message("syncing");
        let files = std::mem::take(
            &mut *written
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        sync_all(&self.tmp, files).map_err(|e| rejected(&self.dest, e))?;
        crate::interrupt::check()?;
        progress.set_message("moving into place");
        self.commit()
    }

    /// Moves the directory into place, replacing what is there (atomically where the
    /// file system can exchange two names).
    fn commit(mut self) -> Result<(), Failure> {
        let fail = |e: &std::io::Error| {
            rejected(
                &self.dest,
                format!("cannot move the result into place: {}", io_text(e)),
            )
        };
        if fs::symlink_metadata(&self.dest).is_err() {
            fs::rename(&self.tmp, &self.dest).map_err(|e| fail(&e))?;
            self.keep = true;
            return Ok(());
        }
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{renameat_with, RenameFlags, CWD};
            if renameat_with(CWD, &self.tmp, CWD, &self.dest, RenameFlags::EXCHANGE).is_ok() {
                // The old output is now at the temporary name, removed on drop.
                return Ok(());
            }
        }
        // No exchange: the old output moves aside, the new one in, the old one away.
        let aside = self.tmp.with_extension("old");
        fs::rename(&self.dest, &aside).map_err(|e| fail(&e))?;
        if let Err(e) = fs::rename(&self.tmp, &self.dest) {
            let _ = fs::rename(&aside, &self.dest);
            return Err(fail(&e));
        }
        self.keep = true;
        let _ = fs::remove_dir_all(&aside);
        Ok(())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

/// What the chunk cache holds per chunk besides the chunk's bytes (its entry, key and
/// array-bytes wrapper: ~600 bytes measured with one-byte chunks), rounded up.
const CACHE_ENTRY_BYTES: u64 = 1024;

/// An input array ready to be read by regions.
pub struct ZarrInput {
    array: Arc<Array<dyn ReadableStorageTraits>>,
    json: serde_json::Value,
    meta: ArrayMetadataV3,
    dtype: DType,
    shape: Vec<usize>,
}

/// Opens a zarr v3 array of a type ndpad has.
pub fn open(path: &Path) -> Result<ZarrInput, Failure> {
    let json = check_array(path)?;
    let array = Arc::new(ndpad_zarr::open(path, &json).map_err(|e| rejected(path, e))?);
    let ArrayMetadata::V3(meta) = array.metadata().clone() else {
        return Err(rejected(path, "is not a zarr v3 array"));
    };
    let type_name = meta.data_type.name().to_string();
    let dtype = dtype_of(&type_name).ok_or_else(|| {
        rejected(
            path,
            format!(
                "data type {type_name:?} is not one ndpad pads in zarr arrays (those: {TYPES})"
            ),
        )
    })?;
    let shape = meta
        .shape
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| rejected(path, format!("extent {d} is too large")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ZarrInput {
        array,
        json,
        meta,
        dtype,
        shape,
    })
}

/// The chunk shape of a regular chunk grid.
fn regular_chunks(path: &Path, grid: &MetadataV3) -> Result<Vec<u64>, Failure> {
    if grid.name() != "regular" {
        return Err(rejected(
            path,
            format!(
                "chunk grid {:?}: ndpad writes regular chunk grids; give the output's chunk shape with --chunks",
                grid.name()
            ),
        ));
    }
    let conf: serde_json::Value = grid
        .to_configuration()
        .map_err(|e| rejected(path, format!("chunk grid: {e}")))?;
    conf.get("chunk_shape")
        .and_then(|v| v.as_array())
        .and_then(|a| {
            a.iter()
                .map(serde_json::Value::as_u64)
                .collect::<Option<Vec<u64>>>()
        })
        .ok_or_else(|| rejected(path, "chunk grid: no chunk_shape"))
}

/// True for a path ending in `.zarr`, or a directory holding a zarr.json.
pub fn is_zarr(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("zarr"))
        || node_type(path).is_some()
}

/// The `node_type` of the zarr v3 node at `path` (a directory holding a zarr.json
/// that reads as zarr v3 metadata: read bounded, as every zarr.json is); `None`
/// for anything else.
pub fn node_type(path: &Path) -> Option<String> {
    if !fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let json = ndpad_zarr::read_metadata(&path.join("zarr.json")).ok()?;
    if json.get("zarr_format").and_then(serde_json::Value::as_u64) != Some(3) {
        return None;
    }
    json.get("node_type")?.as_str().map(str::to_string)
}

/// True when `path` lies directly inside an existing zarr v3 group (an array written
/// there becomes one of its members).
pub fn in_group(path: &Path) -> bool {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    node_type(parent).as_deref() == Some("group")
}

/// `ndpad info IN.zarr`.
pub fn info(cmd: &crate::args::InfoCmd) -> CmdResult {
    if cmd.values {
        return Err(Failure::usage(format!(
            "{}: --values is for .npy and .pb files, not zarr arrays",
            cmd.path.display()
        )));
    }
    crate::info::print_lines(&info_lines(&cmd.path)?)?;
    Ok(0)
}

/// Lines describing a zarr array (shape, data type, chunks, codecs, fill value).
pub fn info_lines(path: &Path) -> Result<Vec<String>, Failure> {
    let json = check_array(path)?;
    let array = ndpad_zarr::open(path, &json).map_err(|e| rejected(path, e))?;
    let ArrayMetadata::V3(meta) = array.metadata().clone() else {
        return Err(rejected(path, "is not a zarr v3 array"));
    };
    let show = |v: Option<&serde_json::Value>| v.map_or("-".to_string(), ToString::to_string);
    let dtype = meta.data_type.name();
    Ok(vec![
        format!("path: {}", path.display()),
        "format: zarr v3 array".to_string(),
        match dtype_of(dtype) {
            Some(_) if is_time(dtype) => format!("dtype: {dtype} (padded as int64 counts)"),
            Some(d) if d.onnx_name() != dtype => {
                format!("dtype: {dtype} (ONNX: {})", d.onnx_name())
            }
            Some(_) => format!("dtype: {dtype}"),
            None => format!("dtype: {dtype} (not padded by ndpad)"),
        },
        format!("shape: {:?}", meta.shape),
        format!("chunk grid: {}", show(json.get("chunk_grid"))),
        format!("chunk grid shape: {:?}", array.chunk_grid_shape()),
        format!("codecs: {}", show(json.get("codecs"))),
        format!("fill value: {}", show(json.get("fill_value"))),
    ])
}

/// Splits the output range `start..` of one axis, given as the runs `segs`, into
/// pieces each reading a hull of input coordinates no longer than `limit`.
fn split_axis(segs: &[Seg], start: usize, limit: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut p0, mut at) = (start, start);
    let mut hull: Option<Range<usize>> = None;
    for s in segs {
        let r = s.reads();
        let grown = match (&hull, r.is_empty()) {
            (h, true) => h.clone(),
            (None, false) => Some(r.clone()),
            (Some(h), false) => Some(h.start.min(r.start)..h.end.max(r.end)),
        };
        if grown.as_ref().is_some_and(|g| g.len() > limit) && at > p0 {
            out.push(p0..at);
            p0 = at;
            hull = (!r.is_empty()).then_some(r);
        } else {
            hull = grown;
        }
        at += s.len();
    }
    if at > p0 || out.is_empty() {
        out.push(p0..at);
    }
    out
}

/// The rows of a C-order box of `shape` placed at `at` in a C-order buffer of `full`
/// (elements of `w` bytes), in order: `f(k, offset, len)` for the box's `k`-th row,
/// which lies at byte `offset` of the buffer and is `len` bytes long. Nothing for an
/// empty box; one row of one element for rank 0.
fn box_rows(
    full: &[usize],
    at: &[usize],
    shape: &[usize],
    w: usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let rank = shape.len();
    if rank == 0 {
        return f(0, 0, w);
    }
    if shape.contains(&0) {
        return;
    }
    let mut stride = vec![w; rank];
    for k in (0..rank - 1).rev() {
        stride[k] = stride[k + 1] * full[k + 1];
    }
    let row = shape[rank - 1] * w;
    let rows: usize = shape[..rank - 1].iter().product();
    let mut idx = vec![0usize; rank - 1];
    for r in 0..rows {
        let off: usize = (0..rank - 1)
            .map(|k| (at[k] + idx[k]) * stride[k])
            .sum::<usize>()
            + at[rank - 1] * w;
        f(r, off, row);
        for k in (0..rank - 1).rev() {
            idx[k] += 1;
            if idx[k] < shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// Copies a C-order box of `shape` (elements of `w` units: bytes, or one string)
/// into a C-order buffer of `full` at `at`.
fn embed<T: Clone>(
    dst: &mut [T],
    full: &[usize],
    src: &[T],
    shape: &[usize],
    at: &[usize],
    w: usize,
) {
    box_rows(full, at, shape, w, |r, off, len| {
        dst[off..off + len].clone_from_slice(&src[r * len..(r + 1) * len]);
    });
}

/// What padding a box of the output needs.
struct Job<'a> {
    input: &'a ZarrInput,
    /// Decoded input chunks: an output chunk shifted by the pads reads parts of up to
    /// 2^rank input chunks, which its neighbours read too.
    cache: &'a ChunkCacheDecodedLruChunkLimit,
    spec: &'a PadSpec,
    opts: &'a PadOptions,
    width: usize,
    pool: &'a Pool,
}

impl Job<'_> {
    /// The padded output's box `bx`, as C-order bytes.
    fn pad_box(&self, bx: &[Range<usize>]) -> Result<Vec<u8>, String> {
        let dtype = self.input.dtype;
        let shape = &self.input.shape;
        let whole = Plan::window(dtype, shape, self.spec, bx, Source::Whole)
            .map_err(|e| pad_error_text(&e))?;
        let pieces: Vec<Vec<Range<usize>>> = whole
            .plan
            .axes()
            .iter()
            .zip(bx)
            .map(|(ax, r)| split_axis(&ax.segs, r.start, r.len().max(1)))
            .collect();
        if pieces.iter().all(|p| p.len() == 1) {
            return self.pad_piece(bx);
        }
        let box_shape: Vec<usize> = bx.iter().map(Range::len).collect();
        // Every byte is written: the pieces cover the box.
        let mut buf = self
            .pool
            .take(box_shape.iter().product::<usize>() * self.width);
        // Every combination of one piece per axis, in C order.
        let mut pick = vec![0usize; pieces.len()];
        loop {
            let sub: Vec<Range<usize>> = pieces
                .iter()
                .zip(&pick)
                .map(|(p, &i)| p[i].clone())
                .collect();
            let bytes = self.pad_piece(&sub)?;
            let sub_shape: Vec<usize> = sub.iter().map(Range::len).collect();
            let at: Vec<usize> = sub.iter().zip(bx).map(|(s, b)| s.start - b.start).collect();
            embed(&mut buf, &box_shape, &bytes, &sub_shape, &at, self.width);
            self.pool.give(bytes);
            let mut a = pieces.len();
            loop {
                if a == 0 {
                    return Ok(buf);
                }
                a -= 1;
                pick[a] += 1;
                if pick[a] < pieces[a].len() {
                    break;
                }
                pick[a] = 0;
            }
        }
    }

    /// One box from the input region its window reads.
    fn pad_piece(&self, bx: &[Range<usize>]) -> Result<Vec<u8>, String> {
        let dtype = self.input.dtype;
        let window = Plan::window(dtype, &self.input.shape, self.spec, bx, Source::Region)
            .map_err(|e| pad_error_text(&e))?;
        let region: Vec<u8> =
            if window.input.iter().any(Range::is_empty) && !window.input.is_empty() {
                Vec::new()
            } else {
                let ranges: Vec<Range<u64>> = window
                    .input
                    .iter()
                    .map(|r| r.start as u64..r.end as u64)
                    .collect();
                let subset = ArraySubset::new_with_ranges(&ranges);
                let bytes: ArrayBytes<'static> = self
                    .cache
                    .retrieve_array_subset(&subset, &CodecOptions::default())
                    .map_err(|e| format!("reading input region {:?}: {e}", window.input))?;
                bytes
                    .into_fixed()
                    .map_err(|e| format!("reading input region {:?}: {e}", window.input))?
                    .into_owned()
            };
        if is_identity(&window.plan) {
            // The box lies inside the array: the region read is the box itself.
            return Ok(region);
        }
        let view = TensorView::from_bytes(dtype, window.plan.input_shape(), &region)
            .map_err(|e| e.to_string())?;
        let n = window.plan.output_bytes();
        let mut buf = self.pool.take(n);
        let mut dst = TensorViewMut::from_bytes(dtype, window.plan.output_shape(), &mut buf)
            .map_err(|e| e.to_string())?;
        window
            .plan
            .execute(view, &mut dst, self.opts)
            .map_err(|e| pad_error_text(&e))?;
        self.pool.give(region);
        Ok(buf)
    }
}

/// Byte buffers of finished chunks, used again for the next ones: a buffer of tens of
/// megabytes taken fresh from the kernel costs as much to fault in as to fill.
#[derive(Default)]
struct Pool(Mutex<Vec<Vec<u8>>>);

impl Pool {
    /// A buffer of `n` bytes (of unspecified values).
    fn take(&self, n: usize) -> Vec<u8> {
        let mut buf = self
            .0
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default();
        buf.truncate(n);
        buf.resize(n, 0);
        buf
    }

    /// Keeps `buf` for later (at most a few buffers).
    fn give(&self, buf: Vec<u8>) {
        if let Ok(mut p) = self.0.lock() {
            if p.len() < 8 && buf.capacity() > 0 {
                p.push(buf);
            }
        }
    }
}

/// How many decoded input chunks (of shape `in_chunk`, `chunk_bytes` each, in a grid
/// of `in_grid`) the cache holds while output chunks of `out_chunk` are padded on
/// `threads` threads. Counted in chunks, each costing its bytes and the cache's own
/// bookkeeping (a cache counting bytes alone held a million one-byte chunks in
/// 600 MB). Output chunks go plane by plane (the first axis), so two planes of input
/// chunks let each be decoded once; at least what every thread's output chunk reads
/// (shifted by the pads: one more input chunk per axis than it spans); at most a
/// quarter of the memory (`mem_limit` is half), and no more than there are.
fn cache_entries(
    in_grid: &[u64],
    in_chunk: &[u64],
    chunk_bytes: u64,
    out_chunk: &[u64],
    threads: u64,
    mem_limit: u64,
) -> u64 {
    let per_entry = chunk_bytes.saturating_add(CACHE_ENTRY_BYTES);
    let plane_chunks = in_grid
        .iter()
        .skip(1)
        .fold(1u64, |n, &d| n.saturating_mul(d));
    let two_planes = plane_chunks.saturating_mul(2).saturating_add(1);
    let one_chunk_reads = out_chunk.iter().zip(in_chunk).fold(1u64, |n, (&o, &i)| {
        n.saturating_mul(o.div_ceil(i.max(1)).saturating_add(1))
    });
    let all = in_grid.iter().fold(1u64, |n, &d| n.saturating_mul(d));
    two_planes
        .max(one_chunk_reads.saturating_mul(threads))
        .min(mem_limit / 2 / per_entry)
        .min(all)
        .max(1)
}

/// True for a plan whose output is its input (every axis one copy of the whole
/// input extent, in order).
fn is_identity(plan: &Plan) -> bool {
    plan.axes()
        .iter()
        .all(|ax| matches!(ax.segs.as_slice(), [Seg::Copy { src: 0, len }] if *len == ax.dim))
}

/// Keeps freed memory in the process for reuse: each chunk's buffers (decoded input
/// chunks, the padded chunk, its encoding) are tens of megabytes, which glibc's
/// malloc would otherwise map fresh from the kernel and return on every free, so that
/// every chunk paid for zeroing its pages anew (a third of the time of a pad). One
/// arena (the threads' own arenas cannot hold allocations above 64 MiB) that neither
/// maps large allocations separately (`M_MMAP_MAX` 0: glibc refuses an
/// `M_MMAP_THRESHOLD` above 32 MiB, so 64 MiB chunks were still mapped fresh, 11% of
/// the samples in `clear_page_erms` at 768^3) nor trims its top: memory stays at its
/// peak, which the chunk cache and the chunks in flight bound.
#[allow(unsafe_code)]
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before this
    // command starts its threads.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// Encodes one chunk with the array's codecs and writes it to its file under `root`
/// (recorded in `written`). zarrs' store would sync each chunk's file as it is
/// written, leaving a thread idle for the disk on every chunk; these files are synced
/// together once all are written ([`sync_all`]). Arrays with storage transformers
/// go through the store.
fn write_chunk(
    out: &Array<FilesystemStore>,
    root: &Path,
    idx: &[u64],
    data: ArrayBytes<'_>,
    opts: &CodecOptions,
    direct: bool,
    written: &Mutex<Vec<PathBuf>>,
) -> Result<(), String> {
    if !direct {
        return out
            .store_chunk_opt(idx, data, opts)
            .map_err(|e| e.to_string());
    }
    let shape = out.chunk_shape(idx).map_err(|e| e.to_string())?;
    let encoded = out
        .codecs()
        .encode(data, &shape, out.data_type(), out.fill_value(), opts)
        .map_err(|e| e.to_string())?;
    let path = root.join(out.chunk_key(idx).as_str());
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| io_text(&e))?;
    }
    fs::write(&path, &encoded).map_err(|e| format!("{}: {}", path.display(), io_text(&e)))?;
    // A poisoned list is still the list: every file in it must be synced.
    written
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(path);
    Ok(())
}

/// Syncs the chunk files written (in parallel: most were written back while later
/// chunks were padded) and the directories holding them.
fn sync_all(root: &Path, files: Vec<PathBuf>) -> Result<(), String> {
    use rayon::prelude::*;
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs.push(root.to_path_buf());
    files.par_iter().chain(dirs.par_iter()).try_for_each(|p| {
        fs::File::open(p)
            .and_then(|f| f.sync_all())
            .map_err(|e| format!("cannot sync {}: {}", p.display(), io_text(&e)))
    })
}

/// Runs `run` (which splits itself with rayon) on `threads` threads (0: rayon's
/// global pool).
fn on_threads<R: Send>(threads: usize, run: impl FnOnce() -> R + Send) -> Result<R, Failure> {
    if threads == 0 {
        return Ok(run());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Failure::rejected(format!("cannot start {threads} threads: {e}")))?;
    Ok(pool.install(run))
}

fn to_usize(v: &[u64]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

/// `ndpad pad IN.zarr OUT.zarr`.
pub fn pad(cmd: &PadCmd) -> CmdResult {
    little_endian_only()?;
    let chunks_flag = chunks_flag(cmd)?;
    let mut input = open(&cmd.input)?;
    check_output(Some(&cmd.input), &cmd.output)?;
    check_dtype(&cmd.input, cmd.dtype, &input)?;
    let dtype = input.dtype;
    let op = build_op(&cmd.pad, dtype, None).map_err(|f| Failure {
        message: format!("{}: {}", cmd.input.display(), f.message),
        ..f
    })?;
    let resolved = op
        .resolve(&input.shape)
        .map_err(|e| rejected(&cmd.input, frontend_text(&e, cmd.pad.framework)))?;
    let out_shape = resolved.output_shape.clone();
    let width = element_bytes(dtype);
    let total: u128 = out_shape
        .iter()
        .fold(width as u128, |n, &d| n.saturating_mul(d as u128));
    if let Some(ByteLimit(Some(limit))) = cmd.exec.max_output_bytes {
        if total > u128::from(limit) {
            let e = ndpad::PadError::OutputTooLarge {
                shape: out_shape.clone(),
                bytes: total,
                limit,
            };
            return Err(rejected(
                &cmd.output,
                format!("{e} (set by --max-output-bytes)"),
            ));
        }
    }
    // The output's metadata: the input's zarr.json as written (so that its codecs,
    // fill value, attributes read back as they were), with the padded shape and
    // --chunks' chunk grid.
    let mut json = std::mem::take(&mut input.json);
    json["shape"] = serde_json::json!(out_shape);
    let chunk_shape = match chunks_flag {
        Some(c) => {
            if c.len() != out_shape.len() {
                return Err(Failure::usage(format!(
                    "--chunks has {} extents; the array has {} axes",
                    c.len(),
                    out_shape.len()
                )));
            }
            json["chunk_grid"] = serde_json::json!({
                "name": "regular",
                "configuration": { "chunk_shape": c },
            });
            c
        }
        None => regular_chunks(&cmd.input, &input.meta.chunk_grid)?,
    };
    let chunk_bytes = chunk_shape
        .iter()
        .try_fold(width as u64, |n, &d| n.checked_mul(d))
        .filter(|&b| usize::try_from(b).is_ok());
    let mem_limit = default_max_output_bytes();
    match chunk_bytes {
        Some(b) if b <= mem_limit => {}
        _ => {
            return Err(rejected(
                &cmd.output,
                format!(
                    "a chunk of shape {chunk_shape:?} ({} bytes of {dtype}) is larger than \
                     {mem_limit} bytes (half of the memory), which every chunk is held in; \
                     choose smaller chunks with --chunks",
                    chunk_bytes.map_or("over 2^64".to_string(), |b| b.to_string())
                ),
            ))
        }
    }

    // The work, bounded before any is done: the input's chunks (counting those
    // inside its shards; every one may be read) and the output's, checked (a count
    // reaching 2^64 is an error, never a wrapped 0), and a decoded input chunk no
    // larger than an output chunk may be.
    let codecs_json = json.get("codecs").unwrap_or(&serde_json::Value::Null);
    let (in_grid, in_chunk, in_chunk_bytes) =
        input_chunks(&cmd.input, &input, codecs_json, cmd.max_chunks, mem_limit)?;
    let out_shape_u64: Vec<u64> = out_shape.iter().map(|&d| d as u64).collect();
    let (grid, count) = ndpad_zarr::chunk_grid(&out_shape_u64, &chunk_shape)
        .map_err(|e| rejected(&cmd.output, e))?;
    let out_inner =
        ndpad_zarr::subchunks(codecs_json, &chunk_shape).map_err(|e| rejected(&cmd.output, e))?;
    ndpad_zarr::check_chunks("output", &grid, count, out_inner, cmd.max_chunks)
        .map_err(|e| rejected(&cmd.output, e))?;
    if dtype == DType::String {
        // Strings are read whole and padded in memory.
        let strings = read_strings(&cmd.input, &input, &in_grid, mem_limit)?;
        let whole =
            Tensor::from_strings(&input.shape, strings).map_err(|e| rejected(&cmd.input, e))?;
        let progress = Progress::spinner("padding");
        let padded = ndpad::pad_with(
            whole.view(),
            &resolved.spec,
            &crate::tensor_io::pad_options(&cmd.exec),
        )
        .map_err(|e| rejected(&cmd.output, pad_error_text(&e)))?;
        drop(whole);
        return write_padded(cmd, &padded, &json, &grid, count, progress);
    }

    keep_freed_memory();
    let staged = StagedDir::new(&cmd.output)?;
    let out_err = |e: &dyn std::fmt::Display| rejected(&cmd.output, e);
    let store = FilesystemStore::new(&staged.tmp).map_err(|e| out_err(&e))?;
    let text = serde_json::to_vec_pretty(&json).map_err(|e| out_err(&e))?;
    fs::write(staged.tmp.join("zarr.json"), text)
        .map_err(|e| rejected(&cmd.output, format!("cannot write: {}", io_text(&e))))?;
    // The metadata as written, less the attributes (which zarrs does not need).
    let out_meta = ndpad_zarr::array_metadata(&json).map_err(|e| out_err(&e))?;
    let out = Array::new_with_metadata(Arc::new(store), "/", ArrayMetadata::V3(out_meta))
        .map_err(|e| out_err(&e))?;

    let opts = PadOptions {
        threads: 1,
        max_output_bytes: None,
        interrupt: Some(crate::interrupt::pad_interrupt()),
        ..PadOptions::default()
    };
    let threads = match cmd.exec.threads {
        0 => rayon::current_num_threads(),
        n => n,
    } as u64;
    let entries = cache_entries(
        &in_grid,
        &in_chunk,
        in_chunk_bytes,
        &chunk_shape,
        threads,
        mem_limit,
    );
    let cache = ChunkCacheDecodedLruChunkLimit::new(Arc::clone(&input.array), entries);
    let pool = Pool::default();
    let job = Job {
        pool: &pool,
        input: &input,
        cache: &cache,
        spec: &resolved.spec,
        opts: &opts,
        width,
    };
    if out.chunk_grid_shape() != grid.as_slice() {
        return Err(out_err(&format!(
            "zarrs' chunk grid {:?} is not the grid {grid:?} of chunks {chunk_shape:?}",
            out.chunk_grid_shape()
        )));
    }
    let fill: &FillValue = out.fill_value();
    let codec_opts = CodecOptions::default().with_store_empty_chunks(true);
    // Chunk files written directly (not through a storage transformer), synced
    // together at the end.
    let direct = json
        .get("storage_transformers")
        .and_then(|v| v.as_array())
        .is_none_or(Vec::is_empty);
    let written: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let progress = Progress::bar(count, "padding chunks");
    let skipped = AtomicU64::new(0);
    let one = |i: u64| -> Result<(), String> {
        let idx = zarrs::array::unravel_index(i, &grid).ok_or("chunk index out of the grid")?;
        let bounded = out.chunk_subset_bounded(&idx).map_err(|e| e.to_string())?;
        let bx: Vec<Range<usize>> = bounded
            .to_ranges()
            .into_iter()
            .map(|r| r.start as usize..r.end as usize)
            .collect();
        let full: Vec<usize> = to_usize(
            &out.chunk_shape(&idx)
                .map_err(|e| e.to_string())?
                .iter()
                .map(|n| n.get())
                .collect::<Vec<u64>>(),
        );
        let bytes = job
            .pad_box(&bx)
            .map_err(|e| format!("chunk {idx:?}: {e}"))?;
        let box_shape: Vec<usize> = bx.iter().map(Range::len).collect();
        let bytes = if box_shape == full {
            bytes
        } else {
            // An edge chunk: the part outside the array holds the fill value.
            let fill_bytes = fill.as_ne_bytes();
            let n: usize = full.iter().product();
            let mut buf = match fill_bytes.first() {
                Some(&b) if fill_bytes.iter().all(|&x| x == b) => {
                    let mut buf = pool.take(n * fill_bytes.len());
                    buf.fill(b);
                    buf
                }
                _ => fill_bytes.repeat(n),
            };
            let at = vec![0; full.len()];
            embed(&mut buf, &full, &bytes, &box_shape, &at, width);
            pool.give(bytes);
            buf
        };
        if fill.equals_all(&bytes) {
            skipped.fetch_add(1, Ordering::Relaxed);
        } else {
            write_chunk(
                &out,
                &staged.tmp,
                &idx,
                ArrayBytes::new_flen(&bytes[..]),
                &codec_opts,
                direct,
                &written,
            )
            .map_err(|e| format!("chunk {idx:?}: {e}"))?;
        }
        pool.give(bytes);
        progress.inc();
        Ok(())
    };
    // The chunks in C order, each thread taking the next one as it finishes its
    // last: the threads work on neighbouring chunks, which share input chunks in the
    // cache, and none waits for another (no barrier between planes).
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let first_error: Mutex<Option<String>> = Mutex::new(None);
    let run = || {
        rayon::broadcast(|_| {
            while !stop.load(Ordering::Relaxed) {
                // SIGINT / SIGTERM: no further chunk starts (the staged output is
                // removed as its guard drops).
                if crate::interrupt::received().is_some() {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                if let Err(e) = one(i) {
                    stop.store(true, Ordering::Relaxed);
                    if let Ok(mut f) = first_error.lock() {
                        f.get_or_insert(e);
                    }
                }
            }
        });
        match first_error.lock().map(|mut f| f.take()) {
            Ok(None) => Ok(()),
            Ok(Some(e)) => Err(e),
            Err(_) => Err("a padding thread panicked".to_string()),
        }
    };
    let result = on_threads(cmd.exec.threads, run)?;
    crate::interrupt::check()?;
    result.map_err(|e| out_err(&e))?;
    drop(out);
    staged.finish(&written, &progress)?;
    progress.finish();
    Ok(0)
}

/// zarr arrays are padded on little-endian machines only.
fn little_endian_only() -> Result<(), Failure> {
    if cfg!(target_endian = "big") {
        // zarrs decodes to the machine's order; ndpad's tensors are little-endian.
        return Err(Failure::rejected(
            "zarr arrays are padded on little-endian machines only",
        ));
    }
    Ok(())
}

/// `--chunks`, checked (every extent at least 1).
fn chunks_flag(cmd: &PadCmd) -> Result<Option<Vec<u64>>, Failure> {
    match &cmd.chunks {
        Some(c) => {
            if let Some(bad) = c.0.iter().find(|&&x| x < 1) {
                return Err(Failure::usage(format!(
                    "--chunks: every extent must be at least 1 (got {bad})"
                )));
            }
            Ok(Some(c.0.iter().map(|&x| x as u64).collect()))
        }
        None => Ok(None),
    }
}

/// Refuses a `--dtype` other than the array's own type.
fn check_dtype(path: &Path, given: Option<DType>, input: &ZarrInput) -> Result<(), Failure> {
    match given {
        Some(d) if d != input.dtype => Err(rejected(
            path,
            format!(
                "--dtype {d} does not match the array's own type {} (a zarr array declares its type)",
                input.meta.data_type.name()
            ),
        )),
        _ => Ok(()),
    }
}

/// The input's chunk grid, chunk shape and decoded chunk bytes, refused where the
/// chunks (counting those inside its shards) are more than `max_chunks` or one is
/// larger than `mem_limit`.
fn input_chunks(
    path: &Path,
    input: &ZarrInput,
    codecs: &serde_json::Value,
    max_chunks: u64,
    mem_limit: u64,
) -> Result<(Vec<u64>, Vec<u64>, u64), Failure> {
    let dtype = input.dtype;
    let width = element_bytes(dtype);
    let in_grid: Vec<u64> = input.array.chunk_grid_shape().to_vec();
    let in_chunk: Vec<u64> = input
        .array
        .chunk_shape(&vec![0; in_grid.len()])
        .map_err(|e| rejected(path, e))?
        .iter()
        .map(|n| n.get())
        .collect();
    let in_count = ndpad_zarr::chunk_count(&in_grid).map_err(|e| rejected(path, e))?;
    let in_inner = ndpad_zarr::subchunks(codecs, &in_chunk).map_err(|e| rejected(path, e))?;
    ndpad_zarr::check_chunks("input", &in_grid, in_count, in_inner, max_chunks)
        .map_err(|e| rejected(path, e))?;
    let in_chunk_bytes = in_chunk
        .iter()
        .try_fold(width as u64, |n, &d| n.checked_mul(d))
        .filter(|&b| b <= mem_limit)
        .ok_or_else(|| {
            rejected(
                path,
                format!(
                    "its chunks of shape {in_chunk:?} are larger than {mem_limit} bytes of \
                     {dtype} (half of the memory), which every chunk read is held in"
                ),
            )
        })?;
    Ok((in_grid, in_chunk, in_chunk_bytes))
}

/// A whole zarr array read into memory, for `ndpad pad IN.zarr OUT.npy` (or `.pb`):
/// refused when it is larger than half of the memory (the limit an output held in
/// memory has), or its chunks are bounded as a zarr pad bounds them.
pub fn read_whole(cmd: &PadCmd) -> Result<Tensor, Failure> {
    little_endian_only()?;
    let path = &cmd.input;
    let input = open(path)?;
    check_dtype(path, cmd.dtype, &input)?;
    let type_name = input.meta.data_type.name();
    if is_time(type_name) {
        return Err(rejected(
            path,
            format!(
                "data type {type_name:?}: dates and times are padded into zarr outputs only \
                 (the .npy and .pb outputs here have no date or time type)"
            ),
        ));
    }
    let mem_limit = default_max_output_bytes();
    let codecs = input.json.get("codecs").unwrap_or(&serde_json::Value::Null);
    let (in_grid, _, _) = input_chunks(path, &input, codecs, cmd.max_chunks, mem_limit)?;
    if input.dtype == DType::String {
        let strings = read_strings(path, &input, &in_grid, mem_limit)?;
        return Tensor::from_strings(&input.shape, strings).map_err(|e| rejected(path, e));
    }
    let width = element_bytes(input.dtype) as u64;
    let bytes = input
        .shape
        .iter()
        .try_fold(width, |n, &d| n.checked_mul(d as u64))
        .filter(|&b| b <= mem_limit && usize::try_from(b).is_ok());
    if bytes.is_none() {
        return Err(rejected(
            path,
            format!(
                "shape {:?} of {} is larger than {mem_limit} bytes (half of the memory), which \
                 an array padded into a .npy or .pb output is read into; pad it into a .zarr \
                 output (chunk by chunk) instead",
                input.shape, input.dtype
            ),
        ));
    }
    let data: ArrayBytes<'static> = input
        .array
        .retrieve_array_subset(&input.array.subset_all())
        .map_err(|e| rejected(path, format!("reading the array: {e}")))?;
    let data = data
        .into_fixed()
        .map_err(|e| rejected(path, format!("reading the array: {e}")))?
        .into_owned();
    crate::interrupt::check()?;
    Tensor::from_bytes(input.dtype, &input.shape, data).map_err(|e| rejected(path, e))
}

/// The strings of a zarr string array (its chunk grid `grid`), read chunk by chunk
/// (each decoded into at most [`ndpad_zarr::MAX_VARIABLE_CHUNK_BYTES`]), refused
/// where the array's strings, or their text, take more than `mem_limit` bytes.
fn read_strings(
    path: &Path,
    input: &ZarrInput,
    grid: &[u64],
    mem_limit: u64,
) -> Result<Vec<String>, Failure> {
    let too_large = |what: String| {
        rejected(
            path,
            format!(
                "{what} take more than {mem_limit} bytes (half of the memory), which a \
                 string array is read into"
            ),
        )
    };
    let n = ndpad::numel(&input.shape)
        .ok()
        .filter(|&n| {
            (n as u64)
                .checked_mul(STRING_BYTES as u64)
                .is_some_and(|b| b <= mem_limit)
        })
        .ok_or_else(|| too_large(format!("the strings of shape {:?}", input.shape)))?;
    let mut all: Vec<String> = Vec::new();
    all.try_reserve_exact(n)
        .map_err(|_| too_large(format!("the strings of shape {:?}", input.shape)))?;
    all.resize(n, String::new());
    let count = ndpad_zarr::chunk_count(grid).map_err(|e| rejected(path, e))?;
    let mut text: u64 = 0;
    for i in 0..count {
        crate::interrupt::check()?;
        let idx = zarrs::array::unravel_index(i, grid)
            .ok_or_else(|| rejected(path, "chunk index out of the grid"))?;
        let subset = input
            .array
            .chunk_subset_bounded(&idx)
            .map_err(|e| rejected(path, e))?;
        let part: Vec<String> = input
            .array
            .retrieve_array_subset::<Vec<String>>(&subset)
            .map_err(|e| rejected(path, format!("chunk {idx:?}: {e}")))?;
        text = part
            .iter()
            .fold(text, |t, s| t.saturating_add(s.len() as u64));
        if text > mem_limit {
            return Err(too_large("its strings' text".into()));
        }
        let at: Vec<usize> = subset.start().iter().map(|&a| a as usize).collect();
        let shape: Vec<usize> = subset.shape().iter().map(|&d| d as usize).collect();
        embed(&mut all, &input.shape, &part, &shape, &at, 1);
    }
    Ok(all)
}

/// The zarr v3 data type of an ndpad type; `None` for those zarr lacks here.
pub fn zarr_name(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::Bool => "bool",
        DType::Int8 => "int8",
        DType::Int16 => "int16",
        DType::Int32 => "int32",
        DType::Int64 => "int64",
        DType::Uint8 => "uint8",
        DType::Uint16 => "uint16",
        DType::Uint32 => "uint32",
        DType::Uint64 => "uint64",
        DType::Float16 => "float16",
        DType::BFloat16 => "bfloat16",
        DType::Float32 => "float32",
        DType::Float64 => "float64",
        DType::Complex64 => "complex64",
        DType::Complex128 => "complex128",
        DType::Float8E4M3FNUZ => "float8_e4m3fnuz",
        DType::Float8E5M2 => "float8_e5m2",
        DType::Float8E5M2FNUZ => "float8_e5m2fnuz",
        DType::Float8E8M0 => "float8_e8m0fnu",
        DType::String => "string",
        _ => return None,
    })
}

/// The bytes a default chunk holds at most: 4 MiB (halving an extent at a time, a
/// chunk of a larger array holds 2 to 4 MiB).
const DEFAULT_CHUNK_BYTES: u64 = 4 << 20;

/// The default chunk shape of an array of `shape` (elements of `width` bytes): the
/// whole array, its longest extent halved (rounding up) until a chunk holds at most
/// [`DEFAULT_CHUNK_BYTES`]. Extents of 0 take chunks of 1.
fn default_chunks(shape: &[usize], width: usize) -> Vec<u64> {
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

/// Copies the C-order box `bx` out of a C-order buffer of `shape` (elements of `w`
/// units: bytes, or one string).
fn extract<T: Clone>(src: &[T], shape: &[usize], bx: &[Range<usize>], w: usize) -> Vec<T> {
    let at: Vec<usize> = bx.iter().map(|r| r.start).collect();
    let box_shape: Vec<usize> = bx.iter().map(Range::len).collect();
    let mut out = Vec::with_capacity(box_shape.iter().product::<usize>() * w);
    box_rows(shape, &at, &box_shape, w, |_, off, len| {
        out.extend_from_slice(&src[off..off + len]);
    });
    out
}

/// `ndpad pad IN.npy OUT.zarr` (or `.pb`, or `-`): the input padded in memory (under
/// the output limit of a .npy output), written as a new zarr v3 array: chunks of
/// `--chunks` or [`default_chunks`], the bytes codec (little-endian) and zstd
/// (level 3), fill value 0; chunks that are nothing but 0 are not stored. Strings
/// (`U` and `S` arrays, ONNX string tensors) become a `string` array (vlen-utf8, then
/// zstd), fill value the empty string.
pub fn pad_to_zarr(cmd: &PadCmd) -> CmdResult {
    little_endian_only()?;
    let chunks_flag = chunks_flag(cmd)?;
    let input_path = (!crate::tensor_io::is_stdio(&cmd.input)).then_some(cmd.input.as_path());
    check_output(input_path, &cmd.output)?;
    let input = crate::tensor_io::read_tensor_file(&cmd.input, cmd.dtype)?;
    let view = input.view();
    let dtype = view.dtype();
    let Some(type_name) = zarr_name(dtype) else {
        return Err(rejected(
            &cmd.input,
            format!("data type {dtype} has no zarr v3 array here (those ndpad writes: {TYPES})"),
        ));
    };
    let op = build_op(&cmd.pad, dtype, input.npy_strings()).map_err(|f| Failure {
        message: format!("{}: {}", cmd.input.display(), f.message),
        ..f
    })?;
    let resolved = op
        .resolve(view.shape())
        .map_err(|e| rejected(&cmd.input, frontend_text(&e, cmd.pad.framework)))?;
    let out_shape = resolved.output_shape.clone();
    let width = element_bytes(dtype);
    let chunk_shape = match chunks_flag {
        Some(c) if c.len() != out_shape.len() => {
            return Err(Failure::usage(format!(
                "--chunks has {} extents; the array has {} axes",
                c.len(),
                out_shape.len()
            )))
        }
        Some(c) => c,
        None => default_chunks(&out_shape, width),
    };
    let mem_limit = default_max_output_bytes();
    let chunk_bytes = chunk_shape
        .iter()
        .try_fold(width as u64, |n, &d| n.checked_mul(d))
        .filter(|&b| b <= mem_limit && usize::try_from(b).is_ok());
    if chunk_bytes.is_none() {
        return Err(rejected(
            &cmd.output,
            format!(
                "a chunk of shape {chunk_shape:?} of {dtype} is larger than {mem_limit} bytes \
                 (half of the memory), which every chunk is held in; choose smaller chunks \
                 with --chunks"
            ),
        ));
    }
    let out_shape_u64: Vec<u64> = out_shape.iter().map(|&d| d as u64).collect();
    let (grid, count) = ndpad_zarr::chunk_grid(&out_shape_u64, &chunk_shape)
        .map_err(|e| rejected(&cmd.output, e))?;
    ndpad_zarr::check_chunks("output", &grid, count, 1, cmd.max_chunks)
        .map_err(|e| rejected(&cmd.output, e))?;

    let progress = Progress::spinner("padding");
    let padded = ndpad::pad_with(
        view,
        &resolved.spec,
        &crate::tensor_io::pad_options(&cmd.exec),
    )
    .map_err(|e| rejected(&cmd.output, pad_error_text(&e)))?;
    drop(input);
    let array_to_bytes = if dtype == DType::String {
        serde_json::json!({"name": "vlen-utf8"})
    } else {
        serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}})
    };
    let json = serde_json::json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": out_shape,
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
    write_padded(cmd, &padded, &json, &grid, count, progress)
}

/// Writes `padded` as the zarr array of metadata `json` (the padded shape, the chunk
/// grid `grid` of `count` chunks) at `cmd.output`: staged beside it, chunks encoded
/// in parallel, synced together, moved into place. A chunk that holds nothing but
/// the fill value is not stored; the part of an edge chunk outside the array holds it.
fn write_padded(
    cmd: &PadCmd,
    padded: &Tensor,
    json: &serde_json::Value,
    grid: &[u64],
    count: u64,
    progress: Progress,
) -> CmdResult {
    progress.set_message("writing chunks");
    let out_shape = padded.shape();
    let staged = StagedDir::new(&cmd.output)?;
    let out_err = |e: &dyn std::fmt::Display| rejected(&cmd.output, e);
    let store = FilesystemStore::new(&staged.tmp).map_err(|e| out_err(&e))?;
    let text = serde_json::to_vec_pretty(json).map_err(|e| out_err(&e))?;
    fs::write(staged.tmp.join("zarr.json"), text)
        .map_err(|e| rejected(&cmd.output, format!("cannot write: {}", io_text(&e))))?;
    let out_meta = ndpad_zarr::array_metadata(json).map_err(|e| out_err(&e))?;
    let out = Array::new_with_metadata(Arc::new(store), "/", ArrayMetadata::V3(out_meta))
        .map_err(|e| out_err(&e))?;
    let fill: &FillValue = out.fill_value();
    let fill_text = [String::from_utf8_lossy(fill.as_ne_bytes()).into_owned()];
    let width = padded.dtype().byte_len(1).unwrap_or(1);
    let codec_opts = CodecOptions::default().with_store_empty_chunks(true);
    let direct = json
        .get("storage_transformers")
        .and_then(|v| v.as_array())
        .is_none_or(Vec::is_empty);
    let written: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let one = |i: u64| -> Result<(), String> {
        crate::interrupt::check().map_err(|f| f.message)?;
        let idx = zarrs::array::unravel_index(i, grid).ok_or("chunk index out of the grid")?;
        let bounded = out.chunk_subset_bounded(&idx).map_err(|e| e.to_string())?;
        let bx: Vec<Range<usize>> = bounded
            .to_ranges()
            .into_iter()
            .map(|r| r.start as usize..r.end as usize)
            .collect();
        let full: Vec<usize> = out
            .chunk_shape(&idx)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|n| n.get() as usize)
            .collect();
        let data = match padded.data() {
            Buffer::Bytes(b) => {
                let cells = chunk_cells(b, out_shape, &bx, &full, width, fill.as_ne_bytes());
                if fill.equals_all(&cells) {
                    return Ok(());
                }
                ArrayBytes::new_flen(cells)
            }
            Buffer::Strings(s) => {
                let cells = chunk_cells(s, out_shape, &bx, &full, 1, &fill_text);
                if cells.iter().all(|c| c.as_bytes() == fill.as_ne_bytes()) {
                    return Ok(());
                }
                String::to_array_bytes(out.data_type(), &cells)
                    .map_err(|e| e.to_string())?
                    .into_owned()
            }
        };
        write_chunk(&out, &staged.tmp, &idx, data, &codec_opts, direct, &written)
            .map_err(|e| format!("chunk {idx:?}: {e}"))
    };
    let result = on_threads(cmd.exec.threads, || {
        use rayon::prelude::*;
        (0..count).into_par_iter().try_for_each(one)
    })?;
    crate::interrupt::check()?;
    result.map_err(|e| out_err(&e))?;
    drop(out);
    staged.finish(&written, &progress)?;
    progress.finish();
    Ok(0)
}

/// The chunk `full` whose part inside the array is the box `bx` of the C-order
/// `src` of `shape` (elements of `w` units): that box, and the element `fill` (`w`
/// units) in the rest of an edge chunk.
fn chunk_cells<T: Clone>(
    src: &[T],
    shape: &[usize],
    bx: &[Range<usize>],
    full: &[usize],
    w: usize,
    fill: &[T],
) -> Vec<T> {
    let part = extract(src, shape, bx, w);
    let box_shape: Vec<usize> = bx.iter().map(Range::len).collect();
    if box_shape == full {
        return part;
    }
    let n = full.iter().product::<usize>();
    let mut buf: Vec<T> = fill.iter().cloned().cycle().take(n * fill.len()).collect();
    embed(&mut buf, full, &part, &box_shape, &vec![0; full.len()], w);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_axis_bounds_each_piece_read() {
        // Wrap: output [2, 6) of an axis of 4 padded by 2: reads 2..4 then 0..2.
        let segs = [Seg::Copy { src: 2, len: 2 }, Seg::Copy { src: 0, len: 2 }];
        assert_eq!(split_axis(&segs, 2, 4), vec![2..6]);
        let segs = [Seg::Copy { src: 98, len: 2 }, Seg::Copy { src: 0, len: 2 }];
        assert_eq!(split_axis(&segs, 10, 4), vec![10..12, 12..14]);
        // Constants read nothing and never split.
        let segs = [
            Seg::Fill { src: None, len: 3 },
            Seg::Copy { src: 50, len: 1 },
        ];
        assert_eq!(split_axis(&segs, 0, 4), vec![0..4]);
    }

    #[test]
    fn the_cache_counts_chunks_with_their_bookkeeping() {
        // 1000 x 1000 one-byte chunks: two planes, not a gigabyte's worth (a million
        // entries of ~600 bytes each).
        assert_eq!(
            cache_entries(&[1000, 1000], &[1, 1], 1, &[1, 1], 2, 8 << 30),
            2001
        );
        // Large output chunks over small input chunks: what each thread reads.
        assert_eq!(
            cache_entries(&[100, 100], &[1, 1], 1, &[10, 10], 4, 8 << 30),
            4 * 11 * 11
        );
        // Never more than a quarter of the memory, nor more than there are.
        assert_eq!(
            cache_entries(&[4, 4], &[1 << 20, 1], 1 << 20, &[1 << 20, 1], 1, 8 << 20),
            3
        );
        assert_eq!(cache_entries(&[2, 1], &[1, 1], 1, &[1, 1], 64, 8 << 30), 2);
    }

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
    fn extract_copies_a_box() {
        let src: Vec<u8> = (0..12).collect();
        assert_eq!(extract(&src, &[3, 4], &[1..3, 1..3], 1), vec![5, 6, 9, 10]);
        assert_eq!(extract(&src, &[2, 3], &[0..2, 2..3], 2), vec![4, 5, 10, 11]);
        assert_eq!(extract(&src[..4], &[], &[], 4), vec![0, 1, 2, 3]);
    }

    #[test]
    fn embed_places_a_box() {
        let mut dst = vec![0u8; 12];
        embed(&mut dst, &[3, 4], &[1, 2, 3, 4], &[2, 2], &[1, 1], 1);
        assert_eq!(dst, vec![0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0]);
    }
}
