//! ONNX `Pad`, every version (1, 2, 11, 13, 18, 19, 21, 23, 24, 25), driven by
//! [`VERSIONS`], a table read from the operator's documentation.
//!
//! ```
//! use ndpad::{pad, DType, Tensor};
//! use ndpad_frontends::onnx::{OnnxPad, PadNode};
//! let x = Tensor::from_slice(&[3, 2], &[1.0f32, 1.2, 2.3, 3.4, 4.5, 5.7]).unwrap();
//! let node = PadNode::new(DType::Float32).mode("reflect").pads(vec![0, 2, 0, 0]);
//! let r = OnnxPad::new(18).unwrap().resolve(&node, x.shape()).unwrap();
//! assert_eq!(r.output_shape, vec![3, 4]);
//! let y = pad(x.view(), &r.spec).unwrap();
//! assert_eq!(y.to_vec::<f32>().unwrap()[..4], [1.0, 1.2, 1.0, 1.2]);
//! ```

use ndpad::{AxisPad, DType, NegativePads, Oversize, PadSpec, Scalar};

use crate::common::{
    check_int_range, check_len, check_non_negative, check_rank, infer_dims, infer_named,
    known_pads, parse_mode, resolve, type_list, Dim, IntInput, ModeKind, PadValue, Resolved,
};
use crate::error::FrontendError;

/// Where a version takes its pads from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadsSource {
    /// Pad-1: the INTS attribute `paddings` (no negative values).
    PaddingsAttribute,
    /// Pad-2: the INTS attribute `pads` (negative values remove elements).
    PadsAttribute,
    /// Pad-11 and later: the `int64` input `pads`.
    PadsInput,
}

/// Where a version takes its constant from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSource {
    /// Pad-1/2: the FLOAT attribute `value`, cast to the data's type.
    FloatAttribute,
    /// Pad-11 and later: the optional input `constant_value` of the data's type.
    Input,
}

/// One version of ONNX Pad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnnxVersion {
    /// The opset the version appeared in.
    pub since: i64,
    /// Where the pads come from.
    pub pads: PadsSource,
    /// Where the constant comes from.
    pub value: ValueSource,
    /// Whether the optional `axes` input exists.
    pub axes: bool,
    /// The mode names the version defines.
    pub modes: &'static [&'static str],
    /// The data types the version accepts (its `T` constraint).
    pub types: &'static [DType],
}

/// The largest opset with a Pad version.
pub const MAX_OPSET: i64 = 25;

use DType as D;

const MODES_3: &[&str] = &["constant", "reflect", "edge"];
const MODES_4: &[&str] = &["constant", "reflect", "edge", "wrap"];

/// Pad-1, Pad-2: "Constrain input and output types to float tensors."
const FLOATS: &[DType] = &[D::Float64, D::Float32, D::Float16];
/// Pad-11: "Constrain input and output to only numeric types."
const NUMERIC: &[DType] = &[
    D::Float64,
    D::Float32,
    D::Float16,
    D::Int16,
    D::Int32,
    D::Int64,
    D::Int8,
    D::Uint16,
    D::Uint32,
    D::Uint64,
    D::Uint8,
];
/// Pad-13, 18, 19: "all tensor types".
const ALL_13: &[DType] = &[
    D::BFloat16,
    D::Bool,
    D::Complex128,
    D::Complex64,
    D::Float64,
    D::Float32,
    D::Float16,
    D::Int16,
    D::Int32,
    D::Int64,
    D::Int8,
    D::String,
    D::Uint16,
    D::Uint32,
    D::Uint64,
    D::Uint8,
];
/// `base` followed by `added` (each version's type list is the previous one plus what
/// the spec's diff adds).
const fn extend<const N: usize>(base: &[DType], added: &[DType]) -> [DType; N] {
    let mut out = [D::Bool; N];
    assert!(base.len() + added.len() == N, "type list length");
    let mut i = 0;
    while i < base.len() {
        out[i] = base[i];
        i += 1;
    }
    let mut j = 0;
    while j < added.len() {
        out[i + j] = added[j];
        j += 1;
    }
    out
}

/// Pad-21: "all tensor types up to IRv10" (adds float8 x4, int4, uint4).
const ALL_21: [DType; 22] = extend(
    ALL_13,
    &[
        D::Float8E4M3FN,
        D::Float8E4M3FNUZ,
        D::Float8E5M2,
        D::Float8E5M2FNUZ,
        D::Int4,
        D::Uint4,
    ],
);
/// Pad-23: "all tensor types up to IRv11" (adds float4e2m1).
const ALL_23: [DType; 23] = extend(&ALL_21, &[D::Float4E2M1]);
/// Pad-24: "all tensor types up to IRv12" (adds float8e8m0).
const ALL_24: [DType; 24] = extend(&ALL_23, &[D::Float8E8M0]);
/// Pad-25: adds int2 and uint2.
const ALL_25: [DType; 26] = extend(&ALL_24, &[D::Int2, D::Uint2]);

const fn v(
    since: i64,
    pads: PadsSource,
    axes: bool,
    modes: &'static [&'static str],
    types: &'static [DType],
) -> OnnxVersion {
    let value = match pads {
        PadsSource::PadsInput => ValueSource::Input,
        _ => ValueSource::FloatAttribute,
    };
    OnnxVersion {
        since,
        pads,
        value,
        axes,
        modes,
        types,
    }
}

use PadsSource::{PaddingsAttribute as PADDINGS, PadsAttribute as PADS_ATTR, PadsInput as INPUT};

/// Every version of ONNX Pad, oldest first.
pub const VERSIONS: [OnnxVersion; 10] = [
    v(1, PADDINGS, false, MODES_3, FLOATS),
    v(2, PADS_ATTR, false, MODES_3, FLOATS),
    v(11, INPUT, false, MODES_3, NUMERIC),
    v(13, INPUT, false, MODES_3, ALL_13),
    v(18, INPUT, true, MODES_3, ALL_13),
    v(19, INPUT, true, MODES_4, ALL_13),
    v(21, INPUT, true, MODES_4, &ALL_21),
    v(23, INPUT, true, MODES_4, &ALL_23),
    v(24, INPUT, true, MODES_4, &ALL_24),
    v(25, INPUT, true, MODES_4, &ALL_25),
];

/// What each ONNX mode name means.
const MODE_KINDS: &[(&str, ModeKind)] = &[
    ("constant", ModeKind::Constant),
    ("reflect", ModeKind::Reflect),
    ("edge", ModeKind::Edge),
    ("wrap", ModeKind::Wrap),
];

/// The `axes` input's allowed types (`Tind`).
const AXES_TYPES: &[DType] = &[D::Int32, D::Int64];

/// A Pad node: its attributes, the type of its data, and its other inputs. Fill in
/// what the model has; [`OnnxPad`] checks that it fits the version.
#[derive(Clone, Debug, PartialEq)]
pub struct PadNode {
    /// Element type of the `data` input.
    pub data_type: DType,
    /// Attribute `mode` (`None`: the default, `constant`).
    pub mode: Option<String>,
    /// Attribute `paddings` (Pad-1).
    pub paddings: Option<Vec<i64>>,
    /// Attribute `pads` (Pad-2).
    pub pads_attribute: Option<Vec<i64>>,
    /// Attribute `value` (Pad-1, Pad-2).
    pub value: Option<f32>,
    /// Input `pads` (Pad-11 and later).
    pub pads: Option<IntInput>,
    /// Input `constant_value` (Pad-11 and later).
    pub constant_value: Option<PadValue>,
    /// Input `axes` (Pad-18 and later).
    pub axes: Option<IntInput>,
}

impl PadNode {
    /// A node on data of type `data_type` with nothing else set.
    pub fn new(data_type: DType) -> PadNode {
        PadNode {
            data_type,
            mode: None,
            paddings: None,
            pads_attribute: None,
            value: None,
            pads: None,
            constant_value: None,
            axes: None,
        }
    }

    /// Sets the `mode` attribute.
    pub fn mode(mut self, mode: &str) -> PadNode {
        self.mode = Some(mode.to_string());
        self
    }

    /// Sets the `pads` input to an `int64` constant.
    pub fn pads(mut self, pads: impl Into<Vec<i64>>) -> PadNode {
        self.pads = Some(IntInput::i64(pads));
        self
    }

    /// Sets the `pads` input.
    pub fn pads_input(mut self, pads: IntInput) -> PadNode {
        self.pads = Some(pads);
        self
    }

    /// Sets the `paddings` attribute (Pad-1).
    pub fn paddings(mut self, paddings: impl Into<Vec<i64>>) -> PadNode {
        self.paddings = Some(paddings.into());
        self
    }

    /// Sets the `pads` attribute (Pad-2).
    pub fn pads_attribute(mut self, pads: impl Into<Vec<i64>>) -> PadNode {
        self.pads_attribute = Some(pads.into());
        self
    }

    /// Sets the `value` attribute (Pad-1, Pad-2).
    pub fn value(mut self, value: f32) -> PadNode {
        self.value = Some(value);
        self
    }

    /// Sets the `constant_value` input.
    pub fn constant_value(mut self, value: impl Into<PadValue>) -> PadNode {
        self.constant_value = Some(value.into());
        self
    }

    /// Sets the `axes` input to an `int64` constant.
    pub fn axes(mut self, axes: impl Into<Vec<i64>>) -> PadNode {
        self.axes = Some(IntInput::i64(axes));
        self
    }

    /// Sets the `axes` input.
    pub fn axes_input(mut self, axes: IntInput) -> PadNode {
        self.axes = Some(axes);
        self
    }
}

/// ONNX Pad as a model of a given opset defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnnxPad {
    opset: i64,
    version: &'static OnnxVersion,
    reflect_oversize: Oversize,
}

/// A node translated, before the data's extents are looked at.
struct Translated {
    spec: PadSpec,
    /// Per axis: the pads, or `None` when they are not known.
    pads: Vec<Option<AxisPad>>,
}

impl OnnxPad {
    /// Pad as imported with `opset`: the latest version whose `since` is <= `opset`.
    ///
    /// # Errors
    /// [`FrontendError::UnsupportedOpset`] for an opset below 1 or above [`MAX_OPSET`].
    pub fn new(opset: i64) -> Result<OnnxPad, FrontendError> {
        let version = VERSIONS
            .iter()
            .rev()
            .find(|v| v.since <= opset)
            .filter(|_| opset <= MAX_OPSET)
            .ok_or(FrontendError::UnsupportedOpset {
                opset,
                max: MAX_OPSET,
            })?;
        Ok(OnnxPad {
            opset,
            version,
            reflect_oversize: Oversize::Repeat,
        })
    }

    /// Sets what a reflect pad wider than the axis allows (`d - 1`, after cropping)
    /// does. The default, [`Oversize::Repeat`], is the spec's: its Example 2 reflects
    /// `[1.0, 1.2]` by 2 into `[1.0, 1.2, 1.0, 1.2]`, as `numpy.pad` and the ONNX
    /// reference do. [`Oversize::Error`] rejects it as ONNX Runtime does.
    pub fn with_reflect_oversize(mut self, oversize: Oversize) -> OnnxPad {
        self.reflect_oversize = oversize;
        self
    }

    /// What an oversized reflect pad does (see [`OnnxPad::with_reflect_oversize`]).
    pub fn reflect_oversize(&self) -> Oversize {
        self.reflect_oversize
    }

    /// The opset asked for.
    pub fn opset(&self) -> i64 {
        self.opset
    }

    /// The version of Pad that applies.
    pub fn version(&self) -> &'static OnnxVersion {
        self.version
    }

    /// The operator and version, as error messages name it (`ONNX Pad-18 (opset 20)`).
    pub fn name(&self) -> String {
        if self.opset == self.version.since {
            format!("ONNX Pad-{}", self.version.since)
        } else {
            format!("ONNX Pad-{} (opset {})", self.version.since, self.opset)
        }
    }

    /// A node with `pads` and the constant put where this version takes them: the
    /// `paddings` / `pads` attribute and the float `value` attribute (the constant's
    /// numeric value) for Pad-1/2, the `pads` / `constant_value` inputs from Pad-11 on.
    /// `axes` is set as given (an error before Pad-18).
    pub fn node(
        &self,
        data_type: DType,
        mode: &str,
        pads: Vec<i64>,
        constant: Option<PadValue>,
        axes: Option<Vec<i64>>,
    ) -> PadNode {
        let mut node = PadNode::new(data_type).mode(mode);
        match self.version.pads {
            PadsSource::PaddingsAttribute => node.paddings = Some(pads),
            PadsSource::PadsAttribute => node.pads_attribute = Some(pads),
            PadsSource::PadsInput => node.pads = Some(IntInput::i64(pads)),
        }
        match (self.version.value, constant) {
            (_, None) => {}
            (ValueSource::Input, Some(c)) => node.constant_value = Some(c),
            (ValueSource::FloatAttribute, Some(c)) => {
                match c.to_f64() {
                    Some(x) => node.value = Some(x as f32),
                    // Not a number (a string): leave it as an input so that the
                    // version check reports it.
                    None => node.constant_value = Some(c),
                }
            }
        }
        node.axes = axes.map(IntInput::i64);
        node
    }

    /// Translates `node` on data of `shape` into a spec and computes the output shape.
    ///
    /// # Errors
    /// Every check of the version (types, attributes and inputs that exist, modes,
    /// pads length, axes), [`FrontendError::NotConstant`] when the pads or axes are not
    /// known, and the core's shape errors as [`FrontendError::Shape`].
    pub fn resolve(&self, node: &PadNode, shape: &[usize]) -> Result<Resolved, FrontendError> {
        let t = self.translate(node, shape.len())?;
        let op = self.name();
        let unknown = if node.pads.as_ref().is_some_and(|p| p.values.is_none()) {
            "pads"
        } else {
            "axes"
        };
        let axes = known_pads(&op, unknown, t.pads)?;
        let spec = PadSpec { axes, ..t.spec };
        resolve(&op, shape, spec)
    }

    /// The output shape of `node` on data of `shape`, where `None` is an unknown
    /// (symbolic) extent: a known extent gets its exact padded extent; an unknown one,
    /// or one whose pads are not known, stays unknown. The rank is always known.
    ///
    /// # Errors
    /// As [`OnnxPad::resolve`], except that unknown pads and axes are no error.
    pub fn infer_shape(
        &self,
        node: &PadNode,
        shape: &[Option<usize>],
    ) -> Result<Vec<Option<usize>>, FrontendError> {
        let t = self.translate(node, shape.len())?;
        infer_dims(&self.name(), shape, &t.pads, &t.spec)
    }

    /// [`OnnxPad::infer_shape`] on extents that may be names: a name survives where
    /// its axis is not padded (see [`Dim`]).
    ///
    /// # Errors
    /// As [`OnnxPad::infer_shape`].
    pub fn output_dims(&self, node: &PadNode, shape: &[Dim]) -> Result<Vec<Dim>, FrontendError> {
        let t = self.translate(node, shape.len())?;
        infer_named(&self.name(), shape, &t.pads, &t.spec)
    }

    fn translate(&self, node: &PadNode, rank: usize) -> Result<Translated, FrontendError> {
        let ver = self.version;
        let op = self.name();
        let not_in = |kind: &'static str, name: &'static str, hint: &str| {
            Err(FrontendError::NotInVersion {
                op: op.clone(),
                kind,
                name,
                hint: hint.to_string(),
            })
        };
        if !ver.types.contains(&node.data_type) {
            return Err(FrontendError::UnsupportedType {
                op,
                what: "data",
                dtype: node.data_type,
                allowed: type_list(ver.types),
            });
        }
        check_rank(&op, rank)?;
        let table: Vec<(&str, ModeKind)> = MODE_KINDS
            .iter()
            .filter(|(n, _)| ver.modes.contains(n))
            .copied()
            .collect();
        let kind = parse_mode(&op, node.mode.as_deref().unwrap_or("constant"), &table)?;

        // Where the pads come from.
        let pads: Option<Vec<i64>> = match ver.pads {
            PadsSource::PaddingsAttribute | PadsSource::PadsAttribute => {
                let (own, own_name, other, other_name) = if ver.pads == PadsSource::PadsAttribute {
                    (&node.pads_attribute, "pads", &node.paddings, "paddings")
                } else {
                    (&node.paddings, "paddings", &node.pads_attribute, "pads")
                };
                if other.is_some() {
                    return not_in(
                        "attribute",
                        other_name,
                        &format!("; its pads are the attribute {own_name:?}"),
                    );
                }
                if node.pads.is_some() {
                    return not_in(
                        "input",
                        "pads",
                        &format!(
                            "; its pads are the attribute {own_name:?} (an input from Pad-11)"
                        ),
                    );
                }
                let Some(p) = own else {
                    return Err(FrontendError::Missing {
                        op,
                        kind: "attribute",
                        name: own_name,
                    });
                };
                if ver.pads == PadsSource::PaddingsAttribute {
                    check_non_negative(&op, "paddings", p)?;
                }
                Some(p.clone())
            }
            PadsSource::PadsInput => {
                if node.paddings.is_some() {
                    return not_in("attribute", "paddings", "; pads are an input since Pad-11");
                }
                if node.pads_attribute.is_some() {
                    return not_in("attribute", "pads", "; pads are an input since Pad-11");
                }
                let Some(p) = &node.pads else {
                    return Err(FrontendError::Missing {
                        op,
                        kind: "input",
                        name: "pads",
                    });
                };
                if p.dtype != DType::Int64 {
                    return Err(FrontendError::UnsupportedType {
                        op,
                        what: "pads",
                        dtype: p.dtype,
                        allowed: "int64".into(),
                    });
                }
                p.values.clone()
            }
        };

        // Where the constant comes from.
        let value: Option<Scalar> = match ver.value {
            ValueSource::FloatAttribute => {
                if node.constant_value.is_some() {
                    return not_in(
                        "input",
                        "constant_value",
                        "; its constant is the float attribute \"value\"",
                    );
                }
                match node.value {
                    // FLOAT attribute, cast to T (via f32, as the attribute is one).
                    Some(x) => Some(Scalar::from_f64(node.data_type, f64::from(x)).map_err(
                        |source| FrontendError::Shape {
                            op: op.clone(),
                            source,
                        },
                    )?),
                    None => None,
                }
            }
            ValueSource::Input => {
                if node.value.is_some() {
                    return not_in(
                        "attribute",
                        "value",
                        "; the constant is the input \"constant_value\" since Pad-11",
                    );
                }
                match &node.constant_value {
                    Some(c) => Some(c.to_scalar(&op, "constant_value", node.data_type)?),
                    None => None,
                }
            }
        };

        // Which axes the pads apply to: `None` inside when the axes are not known.
        let axes: Option<Option<Vec<usize>>> = match &node.axes {
            None => None,
            Some(_) if !ver.axes => {
                return not_in("input", "axes", "; axes exist from Pad-18");
            }
            Some(a) => {
                if !AXES_TYPES.contains(&a.dtype) {
                    return Err(FrontendError::UnsupportedType {
                        op,
                        what: "axes",
                        dtype: a.dtype,
                        allowed: type_list(AXES_TYPES),
                    });
                }
                match &a.values {
                    None => Some(None),
                    Some(values) => {
                        check_int_range(&op, "axes", a.dtype, values)?;
                        Some(Some(normalize_axes(&op, values, rank)?))
                    }
                }
            }
        };
        let pads_name = match ver.pads {
            PadsSource::PaddingsAttribute => "paddings",
            _ => "pads",
        };
        let per_axis: Vec<Option<AxisPad>> = match (axes, pads) {
            (None, Some(p)) => {
                check_len(&op, pads_name, p.len(), 2 * rank, || {
                    format!("2 x the data's rank {rank}")
                })?;
                (0..rank)
                    .map(|i| Some(AxisPad::new(p[i], p[rank + i])))
                    .collect()
            }
            (Some(Some(ax)), Some(p)) => {
                let n = ax.len();
                check_len(&op, pads_name, p.len(), 2 * n, || {
                    format!("2 x the {n} entries of axes")
                })?;
                let mut out = vec![Some(AxisPad::default()); rank];
                // A repeated axis: the last entry wins.
                for (i, &a) in ax.iter().enumerate() {
                    out[a] = Some(AxisPad::new(p[i], p[n + i]));
                }
                out
            }
            (Some(Some(ax)), None) => {
                let mut out = vec![Some(AxisPad::default()); rank];
                for &a in &ax {
                    out[a] = None;
                }
                out
            }
            (None | Some(None), _) => vec![None; rank],
        };
        let oversize = match kind {
            // Wrap repeats periodically (ONNX Runtime and numpy agree); reflect as
            // configured (the spec's Example 2 repeats); edge has no limit.
            ModeKind::Reflect => self.reflect_oversize,
            _ => Oversize::Repeat,
        };
        let spec = PadSpec::new(Vec::new(), kind.into_mode(value))
            .with_negative(NegativePads::CropFirst)
            .with_oversize(oversize);
        Ok(Translated {
            spec,
            pads: per_axis,
        })
    }
}

/// Normalizes negative axes and rejects out-of-range ones. A repeated axis (also `-1`
/// and `r-1`) is kept: the caller lets the last entry's pads win, as ONNX Runtime, the
/// reference and OpenVINO's ONNX importer do.
fn normalize_axes(op: &str, values: &[i64], rank: usize) -> Result<Vec<usize>, FrontendError> {
    let r = rank as i64;
    values
        .iter()
        .enumerate()
        .map(|(index, &axis)| {
            if axis < -r || axis >= r {
                return Err(FrontendError::AxisOutOfRange {
                    op: op.to_string(),
                    index,
                    axis,
                    rank,
                });
            }
            Ok(if axis < 0 { axis + r } else { axis } as usize)
        })
        .collect()
}

/// The output shape of an ONNX Pad of opset `opset` with `pads` (and `axes` from
/// Pad-18) on data of `shape`, where an extent may be a name or unknown: a known
/// extent gets its exact padded extent, a name survives where its axis is not padded,
/// anything else is [`Dim::Unknown`]. The data type is taken as `float`, the mode as
/// `constant` (neither changes a shape). The function behind the Python package's
/// `ndpad.onnx.output_shape(shape, pads, axes=None, opset=25)`.
///
/// ```
/// use ndpad_frontends::{onnx, Dim};
/// let shape = [Dim::from("N"), Dim::from("C"), Dim::Known(224), Dim::Named("W".into())];
/// let out = onnx::output_shape(&shape, &[0, 0, 1, 1, 0, 0, 1, 1], None, 25).unwrap();
/// assert_eq!(out, [Dim::from("N"), Dim::from("C"), Dim::Known(226), Dim::Unknown]);
/// ```
///
/// # Errors
/// As [`OnnxPad::output_dims`]; [`FrontendError::UnsupportedOpset`] for an opset
/// outside 1 to [`MAX_OPSET`].
pub fn output_shape(
    shape: &[Dim],
    pads: &[i64],
    axes: Option<&[i64]>,
    opset: i64,
) -> Result<Vec<Dim>, FrontendError> {
    let onnx = OnnxPad::new(opset)?;
    let node = onnx.node(
        DType::Float32,
        "constant",
        pads.to_vec(),
        None,
        axes.map(<[i64]>::to_vec),
    );
    onnx.output_dims(&node, shape)
}
