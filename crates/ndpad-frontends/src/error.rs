//! The one error type of the front ends.

use ndpad::{DType, PadError};

/// Why a framework's Pad could not be translated into a [`ndpad::PadSpec`]. Every
/// message names the operator and version (`op`), the offending value, and the
/// input / attribute / axis and the limit involved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontendError {
    /// The model's opset has no Pad version.
    #[error("ONNX opset {opset} is not supported: Pad is defined for opsets 1 to {max}")]
    UnsupportedOpset {
        /// The opset asked for.
        opset: i64,
        /// The largest supported opset.
        max: i64,
    },
    /// A mode name the operator version does not have.
    #[error("{op}: mode {mode:?} is not supported (supported: {supported})")]
    UnsupportedMode {
        /// Operator and version.
        op: String,
        /// The mode as given.
        mode: String,
        /// The modes the version has.
        supported: String,
    },
    /// A data type the operator version does not accept.
    #[error("{op}: {what} of type {dtype} is not supported (allowed: {allowed})")]
    UnsupportedType {
        /// Operator and version.
        op: String,
        /// The input concerned (`data`, `pads`, `axes`, ...).
        what: &'static str,
        /// The type given.
        dtype: DType,
        /// The allowed types.
        allowed: String,
    },
    /// A required attribute or input is missing.
    #[error("{op}: the required {kind} {name:?} is missing")]
    Missing {
        /// Operator and version.
        op: String,
        /// `attribute` or `input`.
        kind: &'static str,
        /// Its name.
        name: &'static str,
    },
    /// An attribute or input that this version of the operator does not have.
    #[error("{op}: has no {kind} {name:?}{hint}")]
    NotInVersion {
        /// Operator and version.
        op: String,
        /// `attribute` or `input`.
        kind: &'static str,
        /// Its name.
        name: &'static str,
        /// Where the version takes this information from instead, if anywhere.
        hint: String,
    },
    /// A list of pads of the wrong length.
    #[error("{op}: {name} has {got} values but {expected} were expected ({why})")]
    PadsLength {
        /// Operator and version.
        op: String,
        /// The list's name.
        name: &'static str,
        /// The expected length.
        expected: usize,
        /// The given length.
        got: usize,
        /// Where the expected length comes from.
        why: String,
    },
    /// A negative pad where the operator does not allow one.
    #[error("{op}: {name}[{index}]{side} = {value} is negative, which {op} does not allow")]
    NegativePad {
        /// Operator and version.
        op: String,
        /// The list's name.
        name: &'static str,
        /// The position in the list.
        index: usize,
        /// The value.
        value: i64,
        /// Which part of the entry, if it has parts (numpy's `(before)` / `(after)`).
        side: String,
    },
    /// An integer that does not fit the type its tensor is tagged with.
    #[error("{op}: {name}[{index}] = {value} does not fit its type {dtype}")]
    IntOutOfType {
        /// Operator and version.
        op: String,
        /// The list's name.
        name: &'static str,
        /// The position in the list.
        index: usize,
        /// The value.
        value: i64,
        /// The tensor's type.
        dtype: DType,
    },
    /// An axis outside `[-rank, rank - 1]`.
    #[error("{op}: axes[{index}] = {axis} is out of range [-{rank}, {max}] for data of rank {rank}", max = *rank as i64 - 1)]
    AxisOutOfRange {
        /// Operator and version.
        op: String,
        /// The position in `axes`.
        index: usize,
        /// The axis as given.
        axis: i64,
        /// The data's rank.
        rank: usize,
    },
    /// An axis named twice (possibly once negative, once not). No longer produced by
    /// [`crate::onnx`], where the last entry's pads win as in ONNX Runtime; kept for
    /// callers that match on it.
    #[error(
        "{op}: axes[{index}] = {axis} repeats axis {normalized} (already given at axes[{first}])"
    )]
    RepeatedAxis {
        /// Operator and version.
        op: String,
        /// The position of the repetition.
        index: usize,
        /// The axis as given.
        axis: i64,
        /// The axis it refers to.
        normalized: usize,
        /// Where it was first given.
        first: usize,
    },
    /// The pad value is not of the data's type.
    #[error("{op}: {name} is of type {value} but the data is {data}; they must be the same type")]
    ValueType {
        /// Operator and version.
        op: String,
        /// The input's name.
        name: &'static str,
        /// The value's type.
        value: DType,
        /// The data's type.
        data: DType,
    },
    /// A pad value given as text that is not a value of the data's type (`1.5` for
    /// integer data, an integer out of range, ...).
    #[error("{op}: {name}: {source}")]
    Value {
        /// Operator and version.
        op: String,
        /// The input's name.
        name: &'static str,
        /// Why the text is not a value of the type ([`PadError::InvalidValue`]; boxed
        /// to keep the error small).
        #[source]
        source: Box<PadError>,
    },
    /// The pad value is not a scalar / one-element tensor.
    #[error("{op}: {name} must be a scalar or a one-element tensor, but has shape {shape:?}")]
    ValueShape {
        /// Operator and version.
        op: String,
        /// The input's name.
        name: &'static str,
        /// Its shape.
        shape: Vec<usize>,
    },
    /// A pad value given with a mode that has no use for it.
    #[error("{op}: {name} is only allowed with mode constant, not with mode {mode}")]
    ValueWithMode {
        /// Operator and version.
        op: String,
        /// The input's name.
        name: &'static str,
        /// The mode.
        mode: &'static str,
    },
    /// The values of an input are needed but are not known (not a constant).
    #[error(
        "{op}: the values of input {name:?} are not known, so the output shape cannot be computed"
    )]
    NotConstant {
        /// Operator and version.
        op: String,
        /// The input's name.
        name: &'static str,
    },
    /// A reflect pad of an axis with one element: nothing to reflect (nGraph Pad-0
    /// rejects it: "REFLECT padding mode requires an input of dimension of at least 2").
    #[error(
        "{op}: REFLECT pads axis {axis} ({below} below, {above} above) but the axis has \
         {extent} element; REFLECT needs at least 2 on a padded axis"
    )]
    ReflectTooShort {
        /// Operator and version.
        op: String,
        /// The axis.
        axis: usize,
        /// Its extent (1).
        extent: usize,
        /// The pad before the axis.
        below: i64,
        /// The pad after the axis.
        above: i64,
    },
    /// Elements of no bytes, which the byte path cannot move.
    #[error("{op}: elements of 0 bytes cannot be padded")]
    EmptyElements {
        /// Operator and version.
        op: String,
    },
    /// A constant whose byte count is not the element size.
    #[error("{op}: the constant has {got} bytes but the elements have {itemsize}")]
    ConstantBytes {
        /// Operator and version.
        op: String,
        /// The constant's byte count.
        got: usize,
        /// The element size.
        itemsize: usize,
    },
    /// A constant that is not one kernel word repeated, for elements the kernel moves
    /// as several words.
    #[error("{op}: a constant of {itemsize} bytes is padded as {word}-byte words, but it is not one word repeated (pad the elements' indices instead)")]
    WordConstant {
        /// Operator and version.
        op: String,
        /// The element size.
        itemsize: usize,
        /// The kernel word's size.
        word: usize,
    },
    /// Rank-0 (scalar) data.
    #[error("{op}: the data is a scalar (rank 0), which has no axis to pad")]
    ScalarData {
        /// Operator and version.
        op: String,
    },
    /// numpy.pad: a negative value in an index argument (`pad_width`, `stat_length`;
    /// [`crate::numpy::index_pairs`]). The message is numpy's, word for word, as are
    /// those of the three variants after this one: the Python package raises them as
    /// numpy does.
    #[error("index can't contain negative values")]
    NegativeIndex,
    /// numpy.pad: an index argument of no value (numpy's minimum of an empty array).
    #[error("zero-size array to reduction operation minimum which has no identity")]
    EmptyIndex,
    /// numpy.pad: an index argument of more than 2 dimensions that is neither one nor
    /// two values.
    #[error("input operand has more dimensions than allowed by the axis remapping")]
    IndexRank,
    /// numpy.pad: an index argument whose shape does not broadcast to `(ndim, 2)`.
    #[error(
        "operands could not be broadcast together with remapped shapes \
         [original->remapped]: {shown}  and requested shape ({ndim},2)",
        shown = numpy_shape(shape)
    )]
    IndexBroadcast {
        /// The argument's shape.
        shape: Vec<usize>,
        /// The number of axes it was to give a pair to.
        ndim: usize,
    },
    /// numpy.pad: pairs for more axes than a numpy array can have (its own message).
    #[error("maximum supported dimension for an ndarray is currently {limit}, found {ndim}")]
    TooManyDims {
        /// The number of axes asked for.
        ndim: usize,
        /// numpy's limit (`NPY_MAXDIMS`).
        limit: usize,
    },
    /// The pad is invalid for the data's shape (as the core checks it).
    #[error("{op}: {source}")]
    Shape {
        /// Operator and version.
        op: String,
        /// The core's error.
        #[source]
        source: PadError,
    },
}

/// A shape as numpy writes it in its messages: `(3,)`, `(2,3)`, `()`.
pub(crate) fn numpy_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let comma = if shape.len() == 1 { "," } else { "" };
    format!("({}{comma})", dims.join(","))
}
