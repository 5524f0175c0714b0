//! OpenVINO `Pad-12` and `Pad-1`.
//!
//! Negative pads map output coordinates onto the *uncropped* input
//! ([`NegativePads::OriginalIndex`]), a negative extent is clamped to 0
//! (`max(pads_begin + d + pads_end, 0)`), and reflect / symmetric pads are limited to
//! `d - 1` / `d` of the original extent ([`Oversize::Error`]), as the spec states.
//!
//! ```
//! use ndpad::{pad, DType, Tensor};
//! use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
//! let x = Tensor::from_slice(&[3, 4], &(1..=12).collect::<Vec<i32>>()).unwrap();
//! let node = OvPadNode::new(DType::Int32, "reflect", vec![2, -1], vec![-1, 3]);
//! let r = OpenVinoPad::V12.resolve(&node, x.shape()).unwrap();
//! let y = pad(x.view(), &r.spec).unwrap();
//! assert_eq!(y.shape(), &[4, 6]);
//! assert_eq!(y.to_vec::<i32>().unwrap()[..6], [10, 11, 12, 11, 10, 9]);
//! ```

use ndpad::{AxisPad, DType, NegativePads, Oversize, PadSpec};

use crate::common::{
    check_int_range, check_len, check_rank, infer_dims, infer_named, known_pads, parse_mode,
    resolve, Dim, IntInput, ModeKind, PadValue, Resolved,
};
use crate::error::FrontendError;

/// The version of OpenVINO's Pad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenVinoPad {
    /// `Pad-1`: its spec has no negative pads, but the runtime accepts them with
    /// Pad-12's rules, and so does ndpad.
    V1,
    /// `Pad-12`: negative pads crop.
    V12,
}

/// OpenVINO's mode names.
const MODES: &[(&str, ModeKind)] = &[
    ("constant", ModeKind::Constant),
    ("edge", ModeKind::Edge),
    ("reflect", ModeKind::Reflect),
    ("symmetric", ModeKind::Symmetric),
];

/// A Pad node: `pad_mode`, the data's type, `pads_begin`, `pads_end` (any integer
/// type, one entry per axis) and the optional `pad_value`.
#[derive(Clone, Debug, PartialEq)]
pub struct OvPadNode {
    /// Element type of `data`.
    pub data_type: DType,
    /// Attribute `pad_mode` (required).
    pub pad_mode: String,
    /// Input `pads_begin`.
    pub pads_begin: IntInput,
    /// Input `pads_end`.
    pub pads_end: IntInput,
    /// Input `pad_value` (constant mode only).
    pub pad_value: Option<PadValue>,
}

impl OvPadNode {
    /// A node with `int64` pads and no `pad_value`.
    pub fn new(data_type: DType, pad_mode: &str, begin: Vec<i64>, end: Vec<i64>) -> OvPadNode {
        OvPadNode {
            data_type,
            pad_mode: pad_mode.to_string(),
            pads_begin: IntInput::i64(begin),
            pads_end: IntInput::i64(end),
            pad_value: None,
        }
    }

    /// Sets `pad_value`.
    pub fn pad_value(mut self, value: impl Into<PadValue>) -> OvPadNode {
        self.pad_value = Some(value.into());
        self
    }
}

impl OpenVinoPad {
    /// The operator's versioned name (`OpenVINO Pad-12`).
    pub fn name(&self) -> String {
        match self {
            OpenVinoPad::V1 => "OpenVINO Pad-1".into(),
            OpenVinoPad::V12 => "OpenVINO Pad-12".into(),
        }
    }

    /// Translates `node` on data of `shape` and computes the output shape.
    ///
    /// # Errors
    /// Unknown mode, string data in a mode other than constant, non-integer pads,
    /// values that do not fit their declared type, a pads list whose length is not the
    /// rank, a `pad_value` of another type than the data (it is ignored, but still
    /// checked, in the other modes), pads
    /// whose values are not known, rank-0 data, and the core's shape errors.
    pub fn resolve(&self, node: &OvPadNode, shape: &[usize]) -> Result<Resolved, FrontendError> {
        let (spec, pads) = self.translate(node, shape.len())?;
        let op = self.name();
        let unknown = if node.pads_begin.values.is_none() {
            "pads_begin"
        } else {
            "pads_end"
        };
        let axes = known_pads(&op, unknown, pads)?;
        resolve(&op, shape, PadSpec { axes, ..spec })
    }

    /// The output shape for data whose extents may be unknown (`None`).
    ///
    /// # Errors
    /// As [`OpenVinoPad::resolve`], except that unknown pads are no error.
    pub fn infer_shape(
        &self,
        node: &OvPadNode,
        shape: &[Option<usize>],
    ) -> Result<Vec<Option<usize>>, FrontendError> {
        let (spec, pads) = self.translate(node, shape.len())?;
        infer_dims(&self.name(), shape, &pads, &spec)
    }

    /// [`OpenVinoPad::infer_shape`] on extents that may be names: a name survives
    /// where its axis is not padded (see [`Dim`]).
    ///
    /// # Errors
    /// As [`OpenVinoPad::infer_shape`].
    pub fn output_dims(&self, node: &OvPadNode, shape: &[Dim]) -> Result<Vec<Dim>, FrontendError> {
        let (spec, pads) = self.translate(node, shape.len())?;
        infer_named(&self.name(), shape, &pads, &spec)
    }

    fn translate(
        &self,
        node: &OvPadNode,
        rank: usize,
    ) -> Result<(PadSpec, Vec<Option<AxisPad>>), FrontendError> {
        let op = self.name();
        check_rank(&op, rank)?;
        let kind = parse_mode(&op, &node.pad_mode, MODES)?;
        // The spec says "any numeric type"; the runtime also pads strings in constant
        // mode (with "" or the given string), and so does ndpad.
        if node.data_type == DType::String && kind != ModeKind::Constant {
            return Err(FrontendError::UnsupportedType {
                op,
                what: "data",
                dtype: node.data_type,
                allowed: "any numeric type; string only in mode constant".into(),
            });
        }
        let mut lists = Vec::new();
        for (name, input) in [
            ("pads_begin", &node.pads_begin),
            ("pads_end", &node.pads_end),
        ] {
            if !input.dtype.is_integer() {
                return Err(FrontendError::UnsupportedType {
                    op,
                    what: name,
                    dtype: input.dtype,
                    allowed: "any integer type".into(),
                });
            }
            if let Some(values) = &input.values {
                check_int_range(&op, name, input.dtype, values)?;
                check_len(&op, name, values.len(), rank, || {
                    format!("one per axis of the data's rank {rank}")
                })?;
            }
            lists.push(input.values.as_deref());
        }
        // Type-checked in every mode, used only in constant mode (the runtime ignores
        // it in the others, as ONNX's front end does).
        let value = match &node.pad_value {
            Some(v) => Some(v.to_scalar(&op, "pad_value", node.data_type)?),
            None => None,
        };
        let value = value.filter(|_| kind == ModeKind::Constant);
        let pads = (0..rank)
            .map(|i| match (lists[0], lists[1]) {
                (Some(b), Some(e)) => Some(AxisPad::new(b[i], e[i])),
                _ => None,
            })
            .collect();
        let spec = PadSpec::new(Vec::new(), kind.into_mode(value))
            .with_negative(NegativePads::OriginalIndex)
            .with_oversize(Oversize::Error)
            .with_clamp_negative_extent(true);
        Ok((spec, pads))
    }
}
