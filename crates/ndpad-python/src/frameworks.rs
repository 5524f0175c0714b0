//! The framework pads from Python (ONNX, OpenVINO, nGraph): a [`Node`] is one Pad of
//! a framework for data of one element type, its arguments converted once; its spec
//! is made by the framework's front end for each shape it pads (which checks the
//! node against that shape), and the last few specs are kept. A model run again, or
//! run on inputs of a new shape, then skips the arguments' handling in Python.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use ndpad::DType;
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::onnx::{OnnxPad, PadNode};
use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::{
    frontend_error, onnx_pad_node, openvino_op, pad_value, parse_dtype, parse_oversize, resolved,
    Spec, Value,
};

/// Specs a [`Node`] keeps, one per shape, the oldest forgotten first: a model whose
/// inputs take turns among a few shapes finds each spec again; a loop over many
/// shapes makes each (the front end and the plan, a few microseconds) and holds at
/// most this many.
const SHAPES_KEPT: usize = 4;

/// A framework's Pad node and its operator.
enum Op {
    Onnx(OnnxPad, PadNode),
    OpenVino(OpenVinoPad, OvPadNode),
    Ngraph(NgPadNode),
}

/// A framework's Pad for data of one element type, its spec made for each shape.
#[pyclass(frozen, module = "ndpad._ndpad")]
pub(crate) struct Node {
    dtype: DType,
    op: Op,
    /// The specs made last, by the numpy shape each pads, newest last.
    specs: Mutex<VecDeque<(Vec<usize>, Py<Spec>)>>,
}

impl Node {
    fn new(dtype: DType, op: Op) -> Node {
        Node {
            dtype,
            op,
            specs: Mutex::default(),
        }
    }

    fn specs(&self) -> MutexGuard<'_, VecDeque<(Vec<usize>, Py<Spec>)>> {
        // A panic cannot leave the list half-changed: take it as it is.
        self.specs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The spec for data of `shape`: a kept one, else made by the front end (its
    /// error where the node is invalid for `shape`, nothing kept) and kept.
    fn spec_for(&self, py: Python<'_>, shape: &[usize]) -> PyResult<Py<Spec>> {
        let kept = |specs: &VecDeque<(Vec<usize>, Py<Spec>)>| {
            (specs.iter().rev())
                .find(|(s, _)| s == shape)
                .map(|(_, spec)| spec.clone_ref(py))
        };
        if let Some(spec) = kept(&self.specs()) {
            return Ok(spec);
        }
        let made = match &self.op {
            Op::Onnx(op, node) => op.resolve(node, shape),
            Op::OpenVino(op, node) => op.resolve(node, shape),
            Op::Ngraph(node) => NgraphPad.resolve(node, shape),
        };
        let made = Py::new(py, resolved(made, self.dtype, shape)?)?;
        let (spec, unkept) = {
            let mut specs = self.specs();
            // Another thread may have kept one for `shape` meanwhile (making a spec
            // can run Python's garbage collector, which can switch threads): that one.
            match kept(&specs) {
                Some(spec) => (spec, Some(made)),
                None => {
                    specs.push_back((shape.to_vec(), made.clone_ref(py)));
                    let forgotten = match specs.len() > SHAPES_KEPT {
                        true => specs.pop_front().map(|(_, spec)| spec),
                        false => None,
                    };
                    (made, forgotten)
                }
            }
        };
        // Released once the list is let go.
        drop(unkept);
        Ok(spec)
    }
}

#[pymethods]
impl Node {
    /// Specs a node keeps at most (one per shape).
    #[classattr]
    const SHAPES_KEPT: usize = SHAPES_KEPT;

    /// The spec for data of `shape` (the front end's error where the node is invalid
    /// for it).
    fn spec(&self, py: Python<'_>, shape: Vec<usize>) -> PyResult<Py<Spec>> {
        self.spec_for(py, &shape)
    }

    /// `src` padded into a new array (`Spec.padded` of the spec for its shape), or
    /// `None` where `Spec.padded` gives none.
    #[pyo3(signature = (src, threads=0))]
    fn padded<'py>(
        &self,
        py: Python<'py>,
        src: &Bound<'py, PyUntypedArray>,
        threads: usize,
    ) -> PyResult<Option<Bound<'py, PyUntypedArray>>> {
        self.spec_for(py, src.shape())?
            .get()
            .padded(py, src, threads)
    }

    /// How many specs the node keeps now.
    fn __len__(&self) -> usize {
        self.specs().len()
    }
}

/// ONNX Pad of `opset` (1-25) for data of type `dtype`.
#[pyfunction]
#[pyo3(signature = (dtype, pads, mode="constant", value=None, axes=None, opset=25, reflect_oversize="repeat"))]
pub(crate) fn onnx_node(
    dtype: &str,
    pads: Vec<i64>,
    mode: &str,
    value: Option<Value>,
    axes: Option<Vec<i64>>,
    opset: i64,
    reflect_oversize: &str,
) -> PyResult<Node> {
    let dtype = parse_dtype(dtype)?;
    let op = OnnxPad::new(opset)
        .map_err(frontend_error)?
        .with_reflect_oversize(parse_oversize(reflect_oversize)?);
    let node = onnx_pad_node(&op, dtype, pads, mode, value, axes)?;
    Ok(Node::new(dtype, Op::Onnx(op, node)))
}

/// OpenVINO Pad of `opset` 1 or 12 for data of type `dtype`.
#[pyfunction]
#[pyo3(signature = (dtype, pads_begin, pads_end, pad_mode="constant", value=None, opset=12))]
pub(crate) fn openvino_node(
    dtype: &str,
    pads_begin: Vec<i64>,
    pads_end: Vec<i64>,
    pad_mode: &str,
    value: Option<Value>,
    opset: i64,
) -> PyResult<Node> {
    let dtype = parse_dtype(dtype)?;
    let op = openvino_op(opset)?;
    let mut node = OvPadNode::new(dtype, pad_mode, pads_begin, pads_end);
    if let Some(v) = pad_value(value)? {
        node = node.pad_value(v);
    }
    Ok(Node::new(dtype, Op::OpenVino(op, node)))
}

/// nGraph Pad v0 for data of type `dtype`.
#[pyfunction]
#[pyo3(signature = (dtype, below, above, interior=None, value=None, pad_mode="constant"))]
pub(crate) fn ngraph_node(
    dtype: &str,
    below: Vec<i64>,
    above: Vec<i64>,
    interior: Option<Vec<i64>>,
    value: Option<Value>,
    pad_mode: &str,
) -> PyResult<Node> {
    let dtype = parse_dtype(dtype)?;
    let mut node = NgPadNode::new(dtype, pad_mode, below, above);
    if let Some(i) = interior {
        node = node.interior(i);
    }
    if let Some(v) = pad_value(value)? {
        node = node.pad_value(v);
    }
    Ok(Node::new(dtype, Op::Ngraph(node)))
}
