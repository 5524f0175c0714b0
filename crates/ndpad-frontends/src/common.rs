//! Pieces every front end shares: integer inputs, pad values, results, and the
//! table-driven mode lookup.

use ndpad::{output_dim, output_shape, AxisPad, DType, Mode, PadSpec, Scalar, Tensor};

use crate::error::FrontendError;

/// A 1-D integer input (pads, axes, ...): its declared element type and, when it is a
/// constant known before running the model, its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntInput {
    /// The element type of the tensor (checked against what the operator accepts).
    pub dtype: DType,
    /// The values, or `None` when they are only known at run time (shape inference
    /// then gives unknown extents).
    pub values: Option<Vec<i64>>,
}

impl IntInput {
    /// A constant `int64` tensor.
    pub fn i64(values: impl Into<Vec<i64>>) -> IntInput {
        IntInput {
            dtype: DType::Int64,
            values: Some(values.into()),
        }
    }

    /// A constant tensor of another integer type.
    pub fn typed(dtype: DType, values: impl Into<Vec<i64>>) -> IntInput {
        IntInput {
            dtype,
            values: Some(values.into()),
        }
    }

    /// A tensor of type `dtype` whose values are not known (a graph input).
    pub fn unknown(dtype: DType) -> IntInput {
        IntInput {
            dtype,
            values: None,
        }
    }
}

/// A pad value as a model or caller provides it.
#[derive(Clone, Debug, PartialEq)]
pub enum PadValue {
    /// A single typed value.
    Scalar(Scalar),
    /// A tensor that must hold exactly one element.
    Tensor(Tensor),
    /// A value written as text (the CLI's `--value`, a Python number), read as a value
    /// of the data's type by [`Scalar::parse`]: the framework's constant has the data's
    /// type, so `1.5` for integer data is an error (not an integer), as are integers
    /// out of the type's range and finite floats beyond its largest value.
    Text(String),
}

impl From<Scalar> for PadValue {
    fn from(s: Scalar) -> PadValue {
        PadValue::Scalar(s)
    }
}

impl From<Tensor> for PadValue {
    fn from(t: Tensor) -> PadValue {
        PadValue::Tensor(t)
    }
}

impl PadValue {
    /// The value's element type; `None` for text (it takes the data's type).
    pub fn dtype(&self) -> Option<DType> {
        match self {
            PadValue::Scalar(s) => Some(s.dtype()),
            PadValue::Tensor(t) => Some(t.dtype()),
            PadValue::Text(_) => None,
        }
    }

    /// The value as a number, where it is one (a float attribute's value); text is
    /// read as a float64.
    pub(crate) fn to_f64(&self) -> Option<f64> {
        match self {
            PadValue::Scalar(s) => s.to_f64(),
            PadValue::Tensor(t) => t.view().scalar_at(0).and_then(|s| s.to_f64()),
            PadValue::Text(t) => Scalar::parse(DType::Float64, t).ok()?.to_f64(),
        }
    }

    /// The single value, checked to be of type `data` and to have one element (text:
    /// read as a value of type `data`).
    pub(crate) fn to_scalar(
        &self,
        op: &str,
        name: &'static str,
        data: DType,
    ) -> Result<Scalar, FrontendError> {
        let wrong_type = |value: DType| FrontendError::ValueType {
            op: op.to_string(),
            name,
            value,
            data,
        };
        match self {
            PadValue::Text(text) => {
                Scalar::parse(data, text).map_err(|source| FrontendError::Value {
                    op: op.to_string(),
                    name,
                    source: Box::new(source),
                })
            }
            PadValue::Scalar(s) if s.dtype() != data => Err(wrong_type(s.dtype())),
            PadValue::Scalar(s) => Ok(s.clone()),
            PadValue::Tensor(t) if t.dtype() != data => Err(wrong_type(t.dtype())),
            PadValue::Tensor(t) => {
                let one = ndpad::numel(t.shape()).ok() == Some(1);
                let scalar = if one { t.view().scalar_at(0) } else { None };
                scalar.ok_or_else(|| FrontendError::ValueShape {
                    op: op.to_string(),
                    name,
                    shape: t.shape().to_vec(),
                })
            }
        }
    }
}

/// [`infer_dims`] for a spec whose pads are all known.
pub(crate) fn infer_known(
    op: &str,
    shape: &[Option<usize>],
    spec: &PadSpec,
) -> Result<Vec<Option<usize>>, FrontendError> {
    let pads: Vec<Option<AxisPad>> = spec.axes.iter().copied().map(Some).collect();
    infer_dims(op, shape, &pads, spec)
}

/// [`infer_named`] for a spec whose pads are all known.
pub(crate) fn infer_named_known(
    op: &str,
    shape: &[Dim],
    spec: &PadSpec,
) -> Result<Vec<Dim>, FrontendError> {
    let pads: Vec<Option<AxisPad>> = spec.axes.iter().copied().map(Some).collect();
    infer_named(op, shape, &pads, spec)
}

/// A pad value that only constant mode may be given: `None` when absent, an error
/// naming it with any other mode, else the value as a scalar of the data's type.
pub(crate) fn constant_only(
    op: &str,
    name: &'static str,
    kind: ModeKind,
    value: Option<&PadValue>,
    data: DType,
) -> Result<Option<Scalar>, FrontendError> {
    match value {
        None => Ok(None),
        Some(_) if kind != ModeKind::Constant => Err(FrontendError::ValueWithMode {
            op: op.to_string(),
            name,
            mode: kind.name(),
        }),
        Some(v) => v.to_scalar(op, name, data).map(Some),
    }
}

/// The pads of every axis, or [`FrontendError::NotConstant`] naming the input whose
/// values are not known.
pub(crate) fn known_pads(
    op: &str,
    name: &'static str,
    pads: Vec<Option<AxisPad>>,
) -> Result<Vec<AxisPad>, FrontendError> {
    pads.into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| FrontendError::NotConstant {
            op: op.to_string(),
            name,
        })
}

/// What a front end produces: the normalized spec and, for a concrete input shape, the
/// output shape (computed by [`ndpad::output_shape`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The spec to hand to [`ndpad::pad`].
    pub spec: PadSpec,
    /// The padded shape.
    pub output_shape: Vec<usize>,
}

/// The kind of mode a framework's name stands for (the constant's value comes later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ModeKind {
    Constant,
    Edge,
    Reflect,
    Symmetric,
    Wrap,
}

impl ModeKind {
    pub(crate) fn into_mode(self, value: Option<Scalar>) -> Mode {
        match self {
            ModeKind::Constant => Mode::Constant(value),
            ModeKind::Edge => Mode::Edge,
            ModeKind::Reflect => Mode::Reflect,
            ModeKind::Symmetric => Mode::Symmetric,
            ModeKind::Wrap => Mode::Wrap,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        self.into_mode(None).name()
    }
}

/// Looks `given` up (case-insensitively) in a framework's table of mode names.
pub(crate) fn parse_mode(
    op: &str,
    given: &str,
    table: &[(&str, ModeKind)],
) -> Result<ModeKind, FrontendError> {
    table
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(given.trim()))
        .map(|&(_, kind)| kind)
        .ok_or_else(|| FrontendError::UnsupportedMode {
            op: op.to_string(),
            mode: given.to_string(),
            supported: table.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        })
}

/// Comma-separated type names.
pub(crate) fn type_list(types: &[DType]) -> String {
    types
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks that every value of an integer input fits the input's declared type. The
/// callers check first that `dtype` is an integer type; for any other type there is no
/// range to check.
pub(crate) fn check_int_range(
    op: &str,
    name: &'static str,
    dtype: DType,
    values: &[i64],
) -> Result<(), FrontendError> {
    let Some((lo, hi)) = dtype.int_range() else {
        return Ok(());
    };
    for (index, &v) in values.iter().enumerate() {
        if i128::from(v) < lo || i128::from(v) > hi {
            return Err(FrontendError::IntOutOfType {
                op: op.to_string(),
                name,
                index,
                value: v,
                dtype,
            });
        }
    }
    Ok(())
}

/// Checks that no value of a list is negative.
pub(crate) fn check_non_negative(
    op: &str,
    name: &'static str,
    values: &[i64],
) -> Result<(), FrontendError> {
    match values.iter().position(|&v| v < 0) {
        Some(index) => Err(FrontendError::NegativePad {
            op: op.to_string(),
            name,
            index,
            value: values[index],
            side: String::new(),
        }),
        None => Ok(()),
    }
}

/// Checks a list's length.
pub(crate) fn check_len(
    op: &str,
    name: &'static str,
    got: usize,
    expected: usize,
    why: impl FnOnce() -> String,
) -> Result<(), FrontendError> {
    if got != expected {
        return Err(FrontendError::PadsLength {
            op: op.to_string(),
            name,
            expected,
            got,
            why: why(),
        });
    }
    Ok(())
}

/// Rejects rank-0 data.
pub(crate) fn check_rank(op: &str, rank: usize) -> Result<(), FrontendError> {
    if rank == 0 {
        return Err(FrontendError::ScalarData { op: op.to_string() });
    }
    Ok(())
}

/// The output shape of `spec` for a concrete shape, with the core's error wrapped.
pub(crate) fn resolve(op: &str, shape: &[usize], spec: PadSpec) -> Result<Resolved, FrontendError> {
    let output_shape = output_shape(shape, &spec).map_err(|source| FrontendError::Shape {
        op: op.to_string(),
        source,
    })?;
    Ok(Resolved { spec, output_shape })
}

/// Output extents for a shape with unknown extents. `pads` is `None` when the pads of
/// an axis are not known (the extent is then unknown); known extents are checked and
/// computed by [`ndpad::output_dim`].
pub(crate) fn infer_dims(
    op: &str,
    shape: &[Option<usize>],
    pads: &[Option<AxisPad>],
    spec: &PadSpec,
) -> Result<Vec<Option<usize>>, FrontendError> {
    shape
        .iter()
        .zip(pads)
        .enumerate()
        .map(|(axis, (&dim, pad))| match pad {
            Some(p) => output_dim(axis, dim, p, spec).map_err(|source| FrontendError::Shape {
                op: op.to_string(),
                source,
            }),
            None => Ok(None),
        })
        .collect()
}

/// One extent of a shape as a model declares it: a number, a name (a symbolic
/// dimension such as `N` or `batch`), or unknown.
///
/// A name survives padding where its axis is left as it is (no begin, end or interior
/// pad); a padded named extent becomes [`Dim::Unknown`], as ONNX shape inference
/// gives it (ndpad does not build expressions such as `H+2`: a clamped or
/// interior-padded extent has none that is simple).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A known extent.
    Known(usize),
    /// A symbolic extent.
    Named(String),
    /// An extent nothing is known about.
    Unknown,
}

impl Dim {
    /// The extent when it is known.
    pub fn known(&self) -> Option<usize> {
        match self {
            Dim::Known(n) => Some(*n),
            _ => None,
        }
    }
}

impl From<usize> for Dim {
    fn from(n: usize) -> Dim {
        Dim::Known(n)
    }
}

impl From<Option<usize>> for Dim {
    fn from(n: Option<usize>) -> Dim {
        n.map_or(Dim::Unknown, Dim::Known)
    }
}

impl From<&str> for Dim {
    fn from(name: &str) -> Dim {
        Dim::Named(name.to_string())
    }
}

impl std::fmt::Display for Dim {
    /// `224`, the name, or `?`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Named(name) => f.write_str(name),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// [`infer_dims`] on a shape of [`Dim`]s: known extents are computed, a name is kept
/// where its axis's pads are known to leave it as it is, anything else is unknown.
pub(crate) fn infer_named(
    op: &str,
    shape: &[Dim],
    pads: &[Option<AxisPad>],
    spec: &PadSpec,
) -> Result<Vec<Dim>, FrontendError> {
    let extents: Vec<Option<usize>> = shape.iter().map(Dim::known).collect();
    let out = infer_dims(op, &extents, pads, spec)?;
    Ok(out
        .into_iter()
        .zip(shape)
        .zip(pads)
        .map(|((n, dim), pad)| match (n, dim, pad) {
            (Some(n), _, _) => Dim::Known(n),
            (None, Dim::Named(name), Some(p)) if p.is_identity() => Dim::Named(name.clone()),
            _ => Dim::Unknown,
        })
        .collect())
}
