//! What a path holds: a zarr v3 array of a type ndpad pads ([`array_json`],
//! [`dtype_of`]), a group ([`node_type`], [`in_group`]), and whether an output may
//! go there ([`check_output`]).

use std::fs;
use std::path::{Path, PathBuf};

use ndpad::DType;

use crate::{read_metadata, ZarrError};

/// The data types ndpad pads in zarr arrays, for messages.
pub const TYPES: &str = "bool, int8-64, uint8-64, float16, bfloat16, float32, float64, \
                         complex64, complex128, float8_e5m2, float8_e4m3fnuz, \
                         float8_e5m2fnuz, float8_e8m0fnu, string, numpy.datetime64, \
                         numpy.timedelta64";

const DATETIME: &str = "numpy.datetime64";
const TIMEDELTA: &str = "numpy.timedelta64";

/// The ndpad type of a zarr v3 data type name; `None` for the types ndpad lacks.
/// Dates and times are `Int64`: padded as their counts of their unit.
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

/// True for zarr's date and time types (padded as int64 counts of their unit).
pub(crate) fn is_time(type_name: &str) -> bool {
    matches!(type_name, DATETIME | TIMEDELTA)
}

/// What a string costs in memory besides its text (a `String`: pointer, length and
/// capacity, as a chunk's cells hold it; a tensor's `Strings` take 16 bytes): what a
/// string array is bounded by before its text is read.
pub(crate) const STRING_BYTES: usize = std::mem::size_of::<String>();

/// The bytes an element of `dtype` takes in memory: its width, or [`STRING_BYTES`].
pub(crate) fn element_bytes(dtype: DType) -> usize {
    match dtype.byte_len(1) {
        _ if dtype == DType::String => STRING_BYTES,
        Some(w) => w.max(1),
        None => 1,
    }
}

/// An I/O error's text without its "(os error N)".
pub(crate) fn io_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The directory holding `path` (`.` for a bare name).
pub(crate) fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Why a path is not a zarr v3 array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotArray {
    /// It could not be examined (its error's text: "No such file or directory").
    Missing(String),
    /// A file, not a directory.
    File,
    /// A zarr v3 group, with some of its members' paths.
    Group(Vec<PathBuf>),
    /// A zarr.json that is not a v3 array's (its `zarr_format`, `node_type`).
    NotV3 {
        /// `zarr_format`, if it has one.
        format: Option<u64>,
        /// `node_type`.
        node: String,
    },
    /// A zarr v2 array.
    V2Array,
    /// A zarr v2 group.
    V2Group,
    /// A directory without zarr.json.
    NoMetadata,
}

impl std::fmt::Display for NotArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotArray::Missing(e) => f.write_str(e),
            NotArray::File => f.write_str("is a file, not a zarr array (a directory holding zarr.json)"),
            NotArray::Group(members) => {
                let hint = match members.first() {
                    None => "it holds no arrays".to_string(),
                    Some(first) => format!(
                        "its members: {}; e.g. {}",
                        members
                            .iter()
                            .filter_map(|m| m.file_name().map(|n| n.to_string_lossy()))
                            .collect::<Vec<_>>()
                            .join(", "),
                        first.display()
                    ),
                };
                write!(
                    f,
                    "is a zarr group, not an array; ndpad pads one array at a time: give the \
                     path of one of its arrays ({hint})"
                )
            }
            NotArray::NotV3 { format, node } => write!(
                f,
                "zarr.json is not the metadata of a zarr v3 array (zarr_format {}, node_type {node:?})",
                format.map_or("missing".to_string(), |f| f.to_string())
            ),
            NotArray::V2Array => f.write_str(
                "is a zarr v2 array (.zarray); ndpad reads zarr v3 arrays only (convert it, \
                 e.g. with zarr-python 3: zarr.create_array(..., zarr_format=3) and copy the data)",
            ),
            NotArray::V2Group => f.write_str("is a zarr v2 group (.zgroup), not a zarr v3 array"),
            NotArray::NoMetadata => f.write_str("is a directory without zarr.json: not a zarr v3 array"),
        }
    }
}

/// How an output overlaps its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// The same directory.
    Same,
    /// Inside the input.
    Inside,
    /// Holding the input.
    Holds,
}

impl Overlap {
    pub(crate) fn text(self) -> &'static str {
        match self {
            Overlap::Same => "the output is the input array",
            Overlap::Inside => "lies inside the input array",
            Overlap::Holds => "holds the input array",
        }
    }

    pub(crate) fn advice(self) -> &'static str {
        match self {
            Overlap::Same => "ndpad never modifies its input, choose another output",
            Overlap::Inside => "choose another output",
            Overlap::Holds => "replacing it would delete the input",
        }
    }
}

/// The members of a group directory that are zarr nodes, for its error message.
fn members(path: &Path) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.join("zarr.json").is_file()
                || p.join(".zarray").is_file()
                || p.join(".zgroup").is_file()
        })
        .collect();
    names.sort();
    names.truncate(10);
    names
}

/// The metadata (zarr.json, as it is written) of the zarr v3 array at `path`,
/// refusing anything else with the reason ([`NotArray`]).
///
/// # Errors
/// [`ZarrError::NotAnArray`], or the errors of [`read_metadata`] (named by the path).
pub fn array_json(path: &Path) -> Result<serde_json::Value, ZarrError> {
    let not = |reason| ZarrError::NotAnArray {
        path: path.to_path_buf(),
        reason,
    };
    let meta = fs::metadata(path).map_err(|e| not(NotArray::Missing(io_text(&e))))?;
    if !meta.is_dir() {
        return Err(not(NotArray::File));
    }
    let v3 = path.join("zarr.json");
    // Anything named zarr.json is read (a FIFO or a directory is refused there).
    if fs::symlink_metadata(&v3).is_ok() {
        let json = read_metadata(&v3).map_err(|e| ZarrError::At {
            path: path.to_path_buf(),
            source: Box::new(e),
        })?;
        let node = json.get("node_type").and_then(|v| v.as_str()).unwrap_or("");
        let format = json.get("zarr_format").and_then(serde_json::Value::as_u64);
        return match (format, node) {
            (Some(3), "array") => Ok(json),
            (Some(3), "group") => Err(not(NotArray::Group(members(path)))),
            _ => Err(not(NotArray::NotV3 {
                format,
                node: node.to_string(),
            })),
        };
    }
    if path.join(".zarray").is_file() {
        return Err(not(NotArray::V2Array));
    }
    if path.join(".zgroup").is_file() {
        return Err(not(NotArray::V2Group));
    }
    Err(not(NotArray::NoMetadata))
}

/// The `node_type` of the zarr v3 node at `path` (a directory holding a zarr.json
/// that reads as zarr v3 metadata: read bounded, as every zarr.json is); `None`
/// for anything else.
pub fn node_type(path: &Path) -> Option<String> {
    if !fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let json = read_metadata(&path.join("zarr.json")).ok()?;
    if json.get("zarr_format").and_then(serde_json::Value::as_u64) != Some(3) {
        return None;
    }
    json.get("node_type")?.as_str().map(str::to_string)
}

/// True when `path` lies directly inside an existing zarr v3 group (an array written
/// there becomes one of its members).
pub fn in_group(path: &Path) -> bool {
    node_type(parent_of(path)).as_deref() == Some("group")
}

/// True when `a` and `b` are the same file or directory.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    matches!((fs::metadata(a), fs::metadata(b)),
        (Ok(x), Ok(y)) if x.dev() == y.dev() && x.ino() == y.ino())
}

/// Refuses an output that is the input, lies inside it or holds it, or that exists
/// and is not a zarr array or an empty directory (ndpad replaces only what looks like
/// its own kind of output; a group, v3 or v2, is refused).
///
/// # Errors
/// [`ZarrError::OutputOverlapsInput`], [`ZarrError::OutputNotReplaceable`], or
/// [`ZarrError::NotAnArray`] when the input or the output's directory is missing.
pub fn check_output(input: Option<&Path>, output: &Path) -> Result<(), ZarrError> {
    if let Some(input) = input {
        check_not_input(input, output)?;
    }
    check_replaceable(output)
}

fn check_not_input(input: &Path, output: &Path) -> Result<(), ZarrError> {
    let overlap = |relation| ZarrError::OutputOverlapsInput {
        path: output.to_path_buf(),
        input: input.to_path_buf(),
        relation,
    };
    if same_file(input, output) {
        return Err(overlap(Overlap::Same));
    }
    let missing = |path: &Path, e: &std::io::Error| ZarrError::NotAnArray {
        path: path.to_path_buf(),
        reason: NotArray::Missing(io_text(e)),
    };
    let canon_in = fs::canonicalize(input).map_err(|e| missing(input, &e))?;
    let parent = parent_of(output);
    let canon_parent = fs::canonicalize(parent).map_err(|e| {
        missing(
            output,
            &std::io::Error::new(
                e.kind(),
                format!("its directory {}: {}", parent.display(), io_text(&e)),
            ),
        )
    })?;
    if canon_parent.starts_with(&canon_in) {
        return Err(overlap(Overlap::Inside));
    }
    if let Some(name) = output.file_name() {
        if canon_in.starts_with(canon_parent.join(name)) {
            return Err(overlap(Overlap::Holds));
        }
    }
    Ok(())
}

fn check_replaceable(output: &Path) -> Result<(), ZarrError> {
    let Ok(meta) = fs::symlink_metadata(output) else {
        return Ok(());
    };
    let refuse = |group| ZarrError::OutputNotReplaceable {
        path: output.to_path_buf(),
        group,
    };
    // A group is never replaced: that would delete its arrays.
    let v3 = if meta.is_dir() {
        node_type(output)
    } else {
        None
    };
    if v3.as_deref() == Some("group") || (meta.is_dir() && output.join(".zgroup").is_file()) {
        return Err(refuse(true));
    }
    let zarr_node = meta.is_dir()
        && (v3.as_deref() == Some("array")
            || output.join(".zarray").is_file()
            || fs::read_dir(output).is_ok_and(|mut d| d.next().is_none()));
    if !zarr_node {
        return Err(refuse(false));
    }
    Ok(())
}
