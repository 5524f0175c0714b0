//! The one error type of the core.

use crate::dtype::DType;

/// Why a pad could not be planned or carried out. Every message names the offending
/// value, and the axis and limit involved where there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PadError {
    /// `PadOptions::interrupt` asked the pad to stop; the output is partly written.
    #[error("the pad was interrupted; the output is partly written")]
    Interrupted,
    /// The spec describes a different number of axes than the tensor has.
    #[error("the pad spec has {} but the tensor has rank {rank}", axes(*spec))]
    RankMismatch {
        /// Axes in the spec.
        spec: usize,
        /// Rank of the tensor.
        rank: usize,
    },
    /// Arithmetic on a size or pad overflowed.
    #[error("axis {axis}: {what} overflows")]
    Overflow {
        /// The axis.
        axis: usize,
        /// What was being computed, with its operands.
        what: String,
    },
    /// The padded extent of an axis is negative.
    #[error(
        "axis {axis}: pads begin={begin} end={end} on extent {dim} give a negative extent {extent}"
    )]
    NegativeExtent {
        /// The axis.
        axis: usize,
        /// Input extent.
        dim: usize,
        /// Begin pad.
        begin: i64,
        /// End pad.
        end: i64,
        /// The resulting (negative) extent.
        extent: i128,
    },
    /// A non-constant mode must grow an axis that has no data to read from.
    #[error("axis {axis}: {mode} padding needs data to read from, but the axis has {dim} elements{after}")]
    EmptyAxis {
        /// The axis.
        axis: usize,
        /// The mode's name.
        mode: &'static str,
        /// Elements left on the axis (after cropping).
        dim: usize,
        /// Extra wording (e.g. after a crop).
        after: String,
    },
    /// A pad is wider than the mode allows on this axis.
    #[error("axis {axis}: {side} pad {pad} exceeds the maximum {limit} allowed by {mode} padding of an axis of {dim} elements")]
    PadTooLarge {
        /// The axis.
        axis: usize,
        /// `begin` or `end`.
        side: &'static str,
        /// The pad.
        pad: i64,
        /// The largest pad allowed.
        limit: i64,
        /// The mode's name.
        mode: &'static str,
        /// The extent the limit derives from.
        dim: usize,
    },
    /// An axis would need more runs than a plan holds.
    #[error("axis {axis}: an output extent of {extent} needs more than {limit} runs of the input (a short axis repeated by a very large pad)")]
    TooManyRuns {
        /// The axis.
        axis: usize,
        /// Its output extent.
        extent: usize,
        /// The most runs allowed.
        limit: usize,
    },
    /// A window of the output does not lie inside the output.
    #[error("axis {axis}: the window {start}..{end} is not inside the output extent {extent}")]
    WindowOutside {
        /// The axis.
        axis: usize,
        /// The window's first coordinate.
        start: usize,
        /// One past its last coordinate.
        end: usize,
        /// The output extent.
        extent: usize,
    },
    /// A window names another number of axes than the tensor has.
    #[error("the window has {}; the tensor has {rank}", axes(*window))]
    WindowRank {
        /// Axes of the window.
        window: usize,
        /// Axes of the tensor.
        rank: usize,
    },
    /// An axis the tensor does not have ([`crate::split_axis`]).
    #[error("axis {axis} is not an axis of a tensor of rank {rank}")]
    NoAxis {
        /// The axis asked for.
        axis: usize,
        /// Rank of the tensor.
        rank: usize,
    },
    /// A box copied between arrays ([`crate::index::copy_box`]) does not lie inside
    /// one of them.
    #[error("axis {axis}: the box {start}..{end} is not inside the array's extent {extent}")]
    BoxOutside {
        /// The axis.
        axis: usize,
        /// The box's first coordinate.
        start: usize,
        /// One past its last coordinate (saturated where it overflows).
        end: usize,
        /// The array's extent.
        extent: usize,
    },
    /// A box, or where it goes, names another number of axes than its array has.
    #[error("a box of {} does not fit an array of rank {rank}", axes(*box_axes))]
    BoxRank {
        /// Axes of the box.
        box_axes: usize,
        /// Rank of the array.
        rank: usize,
    },
    /// A C-order buffer is not as long as its shape says.
    #[error(
        "a buffer of shape {shape:?} needs {expected} items ({unit} per element) but holds {got}"
    )]
    BufferLength {
        /// The buffer's shape.
        shape: Vec<usize>,
        /// Items per element (bytes, or 1 for strings).
        unit: usize,
        /// Items the shape needs.
        expected: usize,
        /// Items the buffer holds.
        got: usize,
    },
    /// Interior padding was asked for with a mode other than constant.
    #[error(
        "axis {axis}: interior padding {interior} is only defined for constant mode, not {mode}"
    )]
    InteriorWithMode {
        /// The axis.
        axis: usize,
        /// The interior pad.
        interior: u64,
        /// The mode's name.
        mode: &'static str,
    },
    /// Constants per side ([`crate::PadSpec::sides`]) where they cannot apply.
    #[error("constants per side: {why}")]
    Sides {
        /// Why, with the offending values.
        why: String,
    },
    /// The pad value is not of the tensor's type.
    #[error("the pad value is of type {value} but the tensor is {tensor}")]
    ValueType {
        /// The value's type.
        value: DType,
        /// The tensor's type.
        tensor: DType,
    },
    /// A value is not a valid value of its type.
    #[error("invalid {dtype} value {value:?}: {reason}")]
    InvalidValue {
        /// The type.
        dtype: DType,
        /// The offending value as text.
        value: String,
        /// Why.
        reason: String,
    },
    /// A type name or code that ndpad does not know.
    #[error("unknown data type {0}")]
    UnknownDType(String),
    /// A tensor's buffer does not match its shape and type.
    #[error("a {dtype} tensor of shape {shape:?} needs {expected} {unit} but {got} were given")]
    DataLength {
        /// Type.
        dtype: DType,
        /// Shape.
        shape: Vec<usize>,
        /// What the shape needs.
        expected: usize,
        /// What was given.
        got: usize,
        /// `bytes` or `strings`.
        unit: &'static str,
    },
    /// String data given as bytes, or other data given as strings.
    #[error("{dtype} elements are held as {expected}, not as {given}")]
    StorageMismatch {
        /// The type.
        dtype: DType,
        /// How its elements are held.
        expected: &'static str,
        /// How they were given.
        given: &'static str,
    },
    /// The number of elements of a shape overflows.
    #[error("shape {shape:?} has more elements than fit in memory")]
    ShapeOverflow {
        /// The shape.
        shape: Vec<usize>,
    },
    /// The output would be larger than the caller allows.
    #[error("the output of shape {shape:?} needs {}, over the limit of {}", byte_size(*bytes), byte_size(u128::from(*limit)))]
    OutputTooLarge {
        /// The output shape.
        shape: Vec<usize>,
        /// Bytes it needs.
        bytes: u128,
        /// The limit.
        limit: u64,
    },
    /// The output could not be allocated.
    #[error("cannot allocate {} for the output of shape {shape:?}", byte_size(*bytes as u128))]
    OutOfMemory {
        /// The output shape.
        shape: Vec<usize>,
        /// Bytes asked for.
        bytes: usize,
    },
    /// The input given to [`crate::Plan::execute`] is not the one the plan was made for.
    #[error("the input is {got} but the plan was made for {expected}")]
    InputMismatch {
        /// What the plan expects.
        expected: String,
        /// What was given.
        got: String,
    },
    /// A caller-provided output does not have the padded shape or type.
    #[error("the output buffer is {got} but the padded result is {expected}")]
    OutputMismatch {
        /// What the pad produces.
        expected: String,
        /// What was given.
        got: String,
    },
}

/// A byte count as limit messages give it: `500 bytes`, and from 1 KiB on with the
/// size in the largest binary unit beside it (`1610612736 bytes (1.5 GiB)`).
///
/// ```
/// assert_eq!(ndpad::byte_size(1000), "1000 bytes");
/// assert_eq!(ndpad::byte_size(1536), "1536 bytes (1.5 KiB)");
/// assert_eq!(ndpad::byte_size(8 << 30), "8589934592 bytes (8 GiB)");
/// ```
pub fn byte_size(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut unit = 0;
    let mut scale = 1024u128;
    while unit + 1 < UNITS.len() && bytes >= scale * 1024 {
        scale *= 1024;
        unit += 1;
    }
    let value = bytes as f64 / scale as f64;
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{bytes} bytes ({text} {})", UNITS[unit])
}

/// `n` axes in words: "1 axis", "0 axes", "3 axes".
///
/// ```
/// assert_eq!(ndpad::axes(1), "1 axis");
/// assert_eq!(ndpad::axes(2), "2 axes");
/// ```
pub fn axes(n: usize) -> String {
    if n == 1 {
        "1 axis".to_string()
    } else {
        format!("{n} axes")
    }
}
