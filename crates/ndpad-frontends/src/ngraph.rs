//! nGraph `Pad` (v0): `padding_below`, `padding_above` (either may be negative),
//! `padding_interior`, `pad_mode` CONSTANT / EDGE / REFLECT / SYMMETRIC and the scalar
//! `arg_pad_value`. Reflect and symmetric pads wider than the axis repeat the pattern
//! (as `numpy.pad`: a 1-D reflect by 10 of 3 elements, nGraph's backend test
//! `pad_reflect_1d_multi_reflect`); a REFLECT pad of an axis of one element is an
//! error, as nGraph's type propagation gives it (`pad_deduce_too_small_for_reflect`). Extents follow the text's formula `p + (d-1)(r+1) + 1 + q`
//! (`p + q` for `d = 0`), which [`ndpad::output_shape`] computes.
//!
//! ```
//! use ndpad::{pad, DType, Scalar, Tensor};
//! use ndpad_frontends::ngraph::{NgraphPad, NgPadNode};
//! let x = Tensor::from_slice(&[3, 3], &(1..=9).collect::<Vec<i32>>()).unwrap();
//! let node = NgPadNode::new(DType::Int32, "CONSTANT", vec![1, 2], vec![1, 0])
//!     .interior(vec![1, 2])
//!     .pad_value(Scalar::from(42i32));
//! let r = NgraphPad.resolve(&node, x.shape()).unwrap();
//! assert_eq!(r.output_shape, vec![7, 9]);
//! ```

use ndpad::{AxisPad, DType, Mode, NegativePads, Oversize, PadSpec};

use crate::common::{
    check_len, check_non_negative, check_rank, infer_known, infer_named_known, parse_mode, resolve,
    Dim, ModeKind, PadValue, Resolved,
};
use crate::error::FrontendError;

/// nGraph's Pad v0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NgraphPad;

/// nGraph's mode names (matched case-insensitively).
const MODES: &[(&str, ModeKind)] = &[
    ("CONSTANT", ModeKind::Constant),
    ("EDGE", ModeKind::Edge),
    ("REFLECT", ModeKind::Reflect),
    ("SYMMETRIC", ModeKind::Symmetric),
];

/// A Pad v0 node.
#[derive(Clone, Debug, PartialEq)]
pub struct NgPadNode {
    /// Element type of `arg`.
    pub data_type: DType,
    /// Attribute `pad_mode`.
    pub pad_mode: String,
    /// Attribute `padding_below` (one per axis, may be negative).
    pub padding_below: Vec<i64>,
    /// Attribute `padding_above` (one per axis, may be negative).
    pub padding_above: Vec<i64>,
    /// Attribute `padding_interior` (one per axis, not negative; `None`: all 0).
    pub padding_interior: Option<Vec<i64>>,
    /// Input `arg_pad_value` (`None`: the type's zero).
    pub arg_pad_value: Option<PadValue>,
}

impl NgPadNode {
    /// A node without interior padding and with the default pad value.
    pub fn new(data_type: DType, pad_mode: &str, below: Vec<i64>, above: Vec<i64>) -> NgPadNode {
        NgPadNode {
            data_type,
            pad_mode: pad_mode.to_string(),
            padding_below: below,
            padding_above: above,
            padding_interior: None,
            arg_pad_value: None,
        }
    }

    /// Sets `padding_interior`.
    pub fn interior(mut self, interior: Vec<i64>) -> NgPadNode {
        self.padding_interior = Some(interior);
        self
    }

    /// Sets `arg_pad_value`.
    pub fn pad_value(mut self, value: impl Into<PadValue>) -> NgPadNode {
        self.arg_pad_value = Some(value.into());
        self
    }
}

const OP: &str = "nGraph Pad-0";

impl NgraphPad {
    /// Translates `node` on data of `shape` and computes the output shape.
    ///
    /// # Errors
    /// Unknown mode, list lengths other than the rank, negative interior padding,
    /// `arg_pad_value` of another type or not a scalar, rank-0 data, and the core's
    /// shape errors (interior padding with another mode than CONSTANT, negative
    /// extents, an empty axis grown by EDGE/REFLECT/SYMMETRIC), and a REFLECT pad of an
    /// axis of one element ([`FrontendError::ReflectTooShort`]).
    pub fn resolve(&self, node: &NgPadNode, shape: &[usize]) -> Result<Resolved, FrontendError> {
        let spec = self.translate(node, shape.len())?;
        check_reflect_extents(&spec, shape.iter().map(|&d| Some(d)))?;
        resolve(OP, shape, spec)
    }

    /// The output shape for data whose extents may be unknown (`None`).
    ///
    /// # Errors
    /// As [`NgraphPad::resolve`].
    pub fn infer_shape(
        &self,
        node: &NgPadNode,
        shape: &[Option<usize>],
    ) -> Result<Vec<Option<usize>>, FrontendError> {
        let spec = self.translate(node, shape.len())?;
        check_reflect_extents(&spec, shape.iter().copied())?;
        infer_known(OP, shape, &spec)
    }

    /// [`NgraphPad::infer_shape`] on extents that may be names: a name survives where
    /// its axis is not padded (see [`Dim`]).
    ///
    /// # Errors
    /// As [`NgraphPad::infer_shape`].
    pub fn output_dims(&self, node: &NgPadNode, shape: &[Dim]) -> Result<Vec<Dim>, FrontendError> {
        let spec = self.translate(node, shape.len())?;
        let known = shape.iter().map(|d| match d {
            Dim::Known(n) => Some(*n),
            _ => None,
        });
        check_reflect_extents(&spec, known)?;
        infer_named_known(OP, shape, &spec)
    }

    fn translate(&self, node: &NgPadNode, rank: usize) -> Result<PadSpec, FrontendError> {
        check_rank(OP, rank)?;
        let kind = parse_mode(OP, &node.pad_mode, MODES)?;
        let why = || format!("one per axis of the data's rank {rank}");
        check_len(OP, "padding_below", node.padding_below.len(), rank, why)?;
        check_len(OP, "padding_above", node.padding_above.len(), rank, why)?;
        let interior = match &node.padding_interior {
            Some(i) => {
                check_len(OP, "padding_interior", i.len(), rank, why)?;
                check_non_negative(OP, "padding_interior", i)?;
                i.clone()
            }
            None => vec![0; rank],
        };
        let value = match &node.arg_pad_value {
            Some(v) => Some(v.to_scalar(OP, "arg_pad_value", node.data_type)?),
            None => None,
        };
        let axes = (0..rank)
            .map(|i| AxisPad {
                begin: node.padding_below[i],
                end: node.padding_above[i],
                interior: interior[i] as u64,
            })
            .collect();
        // Reflect / symmetric wider than the axis repeat the pattern, as numpy does.
        Ok(PadSpec::new(axes, kind.into_mode(value))
            .with_negative(NegativePads::OriginalIndex)
            .with_oversize(Oversize::Repeat))
    }
}

/// nGraph's REFLECT needs two elements on every padded axis (known extents only): the
/// reflection of one element is not defined ("REFLECT padding mode requires an input
/// of dimension of at least 2"). Wider pads of longer axes repeat (not checked here).
fn check_reflect_extents(
    spec: &PadSpec,
    extents: impl Iterator<Item = Option<usize>>,
) -> Result<(), FrontendError> {
    if !matches!(spec.mode, Mode::Reflect) {
        return Ok(());
    }
    for (axis, (extent, pad)) in extents.zip(&spec.axes).enumerate() {
        if extent == Some(1) && (pad.begin > 0 || pad.end > 0) {
            return Err(FrontendError::ReflectTooShort {
                op: OP.to_string(),
                axis,
                extent: 1,
                below: pad.begin,
                above: pad.end,
            });
        }
    }
    Ok(())
}
