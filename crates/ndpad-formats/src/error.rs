//! The error type of the formats crate.

use ndpad::{DType, PadError};

fn describe_start(found: &[u8]) -> String {
    if found.is_empty() {
        "the input is empty".into()
    } else {
        format!(
            "it starts with \"{}\", not the magic \"\\x93NUMPY\"",
            found.escape_ascii()
        )
    }
}

/// Why a tensor or model file could not be read or written. Every message names the
/// field or value at fault, and the limit or the bytes actually present where there
/// is one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// An input that is not a regular file (a FIFO would block, a device never end).
    #[error("{path}: is {kind}, not a regular file")]
    NotRegular {
        /// The file.
        path: String,
        /// What it is: "a FIFO", "a socket", "a character device", ...
        kind: &'static str,
    },
    /// A file that changed size while it was being read.
    #[error("{path}: the file changed while being read: it ended at byte {at}, its size when opened was {size} bytes")]
    Changed {
        /// The file.
        path: String,
        /// Where the read found its end (or, where it grew, the size it had).
        at: u64,
        /// Its size when opened.
        size: u64,
    },
    /// The input ends before a part it must contain.
    #[error("truncated input: the {what} needs {needed} bytes but only {got} are present")]
    Truncated {
        /// The part that is cut short.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes present.
        got: u64,
    },
    /// A .npy file does not start with the magic string.
    #[error("not a .npy file: {}", describe_start(found))]
    NpyMagic {
        /// The first bytes of the input (at most 6).
        found: Vec<u8>,
    },
    /// A .npy format version other than 1.0, 2.0 or 3.0.
    #[error("unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are supported)")]
    NpyVersion {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The .npy header is longer than ndpad accepts.
    #[error(".npy header length {len} exceeds the limit of {}", ndpad::byte_size(*limit as u128))]
    NpyHeaderTooLong {
        /// Declared header length.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// The .npy header dictionary is malformed.
    #[error("malformed .npy header: {reason}")]
    NpyHeader {
        /// What is wrong, naming the field and value.
        reason: String,
    },
    /// A numpy dtype (`descr`) ndpad cannot represent.
    #[error("unsupported .npy dtype {descr:?}: {reason}")]
    NpyDescr {
        /// The `descr` of the header.
        descr: String,
        /// Why it is not supported.
        reason: String,
    },
    /// The file stores raw bytes (`V1`, `V2`) and no element type was given: the
    /// caller must give one ([`crate::npy::read_npy_as`], [`crate::npy::NpyFile::open_as`]).
    #[error(
        "the .npy data has raw dtype {descr}, which does not name its element type: \
         the caller must give one of {candidates}"
    )]
    NpyRawDType {
        /// The `descr`, e.g. `|V2`.
        descr: String,
        /// The types it may hold, comma-separated.
        candidates: String,
    },
    /// An explicit element type that does not fit the file's dtype.
    #[error("the element type {dtype} is not accepted for the .npy dtype {descr}: {reason}")]
    DTypeOverride {
        /// The type asked for.
        dtype: DType,
        /// The file's `descr`.
        descr: String,
        /// Why it does not fit.
        reason: String,
    },
    /// The header's shape does not match the bytes present.
    #[error("the header's shape {shape:?} of {descr} needs {needed} bytes of data but {got} bytes follow the {header_len}-byte header (file size {file_size} bytes)")]
    NpyDataLength {
        /// Shape from the header.
        shape: Vec<u64>,
        /// The `descr`.
        descr: String,
        /// Bytes the shape needs.
        needed: u128,
        /// Bytes present after the header.
        got: u64,
        /// Header length including magic and length fields.
        header_len: u64,
        /// Size of the whole input.
        file_size: u64,
    },
    /// An element that is not a valid value of its type.
    #[error("element {index}: {reason}")]
    Element {
        /// Flat (C-order) index of the element.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A tensor that cannot be written in the requested format.
    #[error("cannot write a {dtype} tensor: {reason}")]
    Unwritable {
        /// The type.
        dtype: DType,
        /// Why.
        reason: String,
    },
    /// The protobuf bytes could not be decoded.
    #[error("invalid {message} protobuf: {reason}")]
    Protobuf {
        /// The message being decoded (`TensorProto`, `ModelProto`).
        message: &'static str,
        /// The decoder's explanation.
        reason: String,
    },
    /// A protobuf input holds more messages, or nests deeper, than the limits allow.
    #[error("{what} ({value}) exceeds the limit of {limit}")]
    Limit {
        /// What was counted.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// A field of a `TensorProto` is invalid.
    #[error("tensor {name:?}: {field}: {reason}")]
    TensorField {
        /// The tensor's name (may be empty).
        name: String,
        /// The field at fault.
        field: &'static str,
        /// What is wrong, with the value.
        reason: String,
    },
    /// The tensor keeps its data in an external file.
    #[error(
        "tensor {name:?}: external data is not supported (data_location = EXTERNAL{location})"
    )]
    ExternalData {
        /// The tensor's name.
        name: String,
        /// The `location` entry, if any, for context.
        location: String,
    },
    /// Part of a model ndpad does not support or that is invalid.
    #[error("{context}: {reason}")]
    Model {
        /// Where in the model (node, attribute, input).
        context: String,
        /// What is wrong.
        reason: String,
    },
    /// An error of the core (shape overflow, unknown type code, ...).
    #[error(transparent)]
    Core(#[from] PadError),
}
