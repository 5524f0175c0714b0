//! `ModelProto` to and from a small owned model.

use ndpad::{DType, Tensor};
use prost::Message;

use super::proto::{
    self, attribute_type as at, dimension, AttributeProto, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorShapeProto, TypeProto, TypeProtoTensor, ValueInfoProto,
};
use super::scan::{self, Kind, ProtoLimits};
use super::tensor::{tensor_from_proto, tensor_to_proto, NamedTensor};
use crate::error::FormatError;

/// An ONNX model: its opset imports and its main graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// `ir_version`.
    pub ir_version: i64,
    /// `producer_name`.
    pub producer_name: String,
    /// `producer_version`.
    pub producer_version: String,
    /// The opsets the model imports.
    pub opset_imports: Vec<OpsetImport>,
    /// The main graph.
    pub graph: Graph,
}

/// One `opset_import` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpsetImport {
    /// The domain (`""` or `ai.onnx` for the default one).
    pub domain: String,
    /// The opset version.
    pub version: i64,
}

/// A graph: nodes in order, initializers, inputs and outputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    /// The graph's name.
    pub name: String,
    /// The nodes, in the order they appear.
    pub nodes: Vec<Node>,
    /// Constant tensors, by name.
    pub initializers: Vec<NamedTensor>,
    /// The graph inputs (may include initializer names).
    pub inputs: Vec<ValueInfo>,
    /// The graph outputs.
    pub outputs: Vec<ValueInfo>,
    /// Type information on intermediate values.
    pub value_info: Vec<ValueInfo>,
}

/// One node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// The node's name (may be empty).
    pub name: String,
    /// The operator, e.g. `Pad`.
    pub op_type: String,
    /// The operator's domain (`""` is the default ONNX domain).
    pub domain: String,
    /// Input names (`""` is an omitted optional input).
    pub inputs: Vec<String>,
    /// Output names.
    pub outputs: Vec<String>,
    /// Attributes.
    pub attributes: Vec<Attribute>,
}

/// One attribute of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// The name.
    pub name: String,
    /// The value.
    pub value: AttributeValue,
}

/// The value of an attribute (graphs, sparse tensors and type protos are refused
/// when reading).
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeValue {
    /// `FLOAT`.
    Float(f32),
    /// `INT`.
    Int(i64),
    /// `STRING` (bytes, as ONNX stores them).
    String(Vec<u8>),
    /// `TENSOR`.
    Tensor(Tensor),
    /// `FLOATS`.
    Floats(Vec<f32>),
    /// `INTS`.
    Ints(Vec<i64>),
    /// `STRINGS`.
    Strings(Vec<Vec<u8>>),
    /// `TENSORS`.
    Tensors(Vec<Tensor>),
}

/// A graph input, output or intermediate value with what is known of its type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueInfo {
    /// The value's name.
    pub name: String,
    /// Its element type (`None` when not given).
    pub elem_type: Option<DType>,
    /// Its dimensions (`None` when the rank is unknown).
    pub shape: Option<Vec<Dim>>,
}

/// One dimension of a [`ValueInfo`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A known extent (`dim_value`).
    Value(u64),
    /// A symbolic extent (`dim_param`).
    Param(String),
    /// Neither given.
    Unknown,
}

impl std::fmt::Display for Dim {
    /// The extent, the symbol's name, or `?`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Value(v) => write!(f, "{v}"),
            Dim::Param(p) => f.write_str(p),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

impl Model {
    /// A model of `graph` importing the default ONNX domain at `opset` (IR version 10).
    ///
    /// ```
    /// use ndpad_formats::onnx::{Graph, Model};
    /// let m = Model::new(Graph::default(), 21);
    /// assert_eq!(m.opset_version(""), Some(21));
    /// assert_eq!(m.opset_version("ai.onnx"), Some(21));
    /// ```
    pub fn new(graph: Graph, opset: i64) -> Model {
        Model {
            ir_version: 10,
            producer_name: "ndpad".into(),
            producer_version: env!("CARGO_PKG_VERSION").into(),
            opset_imports: vec![OpsetImport {
                domain: String::new(),
                version: opset,
            }],
            graph,
        }
    }

    /// The imported version of `domain` (`""` and `ai.onnx` are the same domain).
    pub fn opset_version(&self, domain: &str) -> Option<i64> {
        let norm = |d: &str| if d == "ai.onnx" { "" } else { d }.to_string();
        self.opset_imports
            .iter()
            .find(|o| norm(&o.domain) == norm(domain))
            .map(|o| o.version)
    }
}

impl Node {
    /// A node of the default domain with no attributes.
    ///
    /// ```
    /// use ndpad_formats::onnx::Node;
    /// let n = Node::new("Pad", &["x", "pads"], &["y"]);
    /// assert_eq!(n.inputs, vec!["x", "pads"]);
    /// ```
    pub fn new(op_type: &str, inputs: &[&str], outputs: &[&str]) -> Node {
        Node {
            op_type: op_type.into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            ..Node::default()
        }
    }

    /// The value of the attribute `name`, if the node has it.
    pub fn attribute(&self, name: &str) -> Option<&AttributeValue> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.value)
    }
}

fn model_err(context: String, reason: impl Into<String>) -> FormatError {
    FormatError::Model {
        context,
        reason: reason.into(),
    }
}

fn value_info_from(v: ValueInfoProto, role: &str) -> Result<ValueInfo, FormatError> {
    let ctx = || format!("graph {role} {:?}", v.name);
    let Some(tp) = v.r#type else {
        return Ok(ValueInfo {
            name: v.name,
            elem_type: None,
            shape: None,
        });
    };
    let Some(tt) = tp.tensor_type else {
        return Err(model_err(
            ctx(),
            "is not a tensor (sequence, map, optional and sparse types are not supported)",
        ));
    };
    let elem_type = match tt.elem_type {
        0 => None,
        code => Some(DType::from_onnx_code(code).map_err(|_| {
            model_err(
                ctx(),
                format!("elem_type {code} is not a data type ndpad supports"),
            )
        })?),
    };
    let shape = match tt.shape {
        None => None,
        Some(s) => {
            if s.dim.len() > crate::npy::MAX_NDIM {
                return Err(model_err(
                    ctx(),
                    format!(
                        "has {} dimensions, more than the limit of {}",
                        s.dim.len(),
                        crate::npy::MAX_NDIM
                    ),
                ));
            }
            let mut dims = Vec::with_capacity(s.dim.len());
            for (i, d) in s.dim.into_iter().enumerate() {
                dims.push(match d.value {
                    Some(dimension::Value::DimValue(x)) => {
                        Dim::Value(u64::try_from(x).map_err(|_| {
                            model_err(ctx(), format!("dimension {i} is negative ({x})"))
                        })?)
                    }
                    Some(dimension::Value::DimParam(p)) => Dim::Param(p),
                    None => Dim::Unknown,
                });
            }
            Some(dims)
        }
    };
    Ok(ValueInfo {
        name: v.name,
        elem_type,
        shape,
    })
}

fn attribute_from(a: AttributeProto, node: &str) -> Result<Attribute, FormatError> {
    let ctx = || format!("{node} attribute {:?}", a.name);
    if !a.ref_attr_name.is_empty() {
        return Err(model_err(
            ctx(),
            format!(
                "refers to function attribute {:?}; functions are not supported",
                a.ref_attr_name
            ),
        ));
    }
    let tensor = |t: proto::TensorProto| tensor_from_proto(t).map(|n| n.tensor);
    let value = match a.r#type {
        at::FLOAT => AttributeValue::Float(a.f),
        at::INT => AttributeValue::Int(a.i),
        at::STRING => AttributeValue::String(a.s),
        at::TENSOR => match a.t {
            Some(t) => {
                AttributeValue::Tensor(tensor(*t).map_err(|e| model_err(ctx(), e.to_string()))?)
            }
            None => return Err(model_err(ctx(), "is of type TENSOR but has no tensor (t)")),
        },
        at::FLOATS => AttributeValue::Floats(a.floats),
        at::INTS => AttributeValue::Ints(a.ints),
        at::STRINGS => AttributeValue::Strings(a.strings),
        at::TENSORS => AttributeValue::Tensors(
            a.tensors
                .into_iter()
                .map(tensor)
                .collect::<Result<_, _>>()
                .map_err(|e| model_err(ctx(), e.to_string()))?,
        ),
        at::GRAPH | at::GRAPHS => {
            return Err(model_err(
                ctx(),
                "graph attributes (subgraphs) are not supported",
            ))
        }
        at::SPARSE_TENSOR | at::SPARSE_TENSORS => {
            return Err(model_err(
                ctx(),
                "sparse tensor attributes are not supported",
            ))
        }
        at::TYPE_PROTO | at::TYPE_PROTOS => {
            return Err(model_err(ctx(), "type proto attributes are not supported"))
        }
        at::UNDEFINED => return Err(model_err(ctx(), "has no type (type is UNDEFINED)")),
        other => return Err(model_err(ctx(), format!("has unknown type {other}"))),
    };
    Ok(Attribute {
        name: a.name,
        value,
    })
}

fn node_from(n: NodeProto, index: usize) -> Result<Node, FormatError> {
    let label = if n.name.is_empty() {
        format!("node {index} ({})", n.op_type)
    } else {
        format!("node {index} {:?} ({})", n.name, n.op_type)
    };
    let attributes = n
        .attribute
        .into_iter()
        .map(|a| attribute_from(a, &label))
        .collect::<Result<_, _>>()?;
    Ok(Node {
        name: n.name,
        op_type: n.op_type,
        domain: n.domain,
        inputs: n.input,
        outputs: n.output,
        attributes,
    })
}

fn graph_from(g: GraphProto) -> Result<Graph, FormatError> {
    if let Some(s) = g.sparse_initializer.first() {
        let name = s.values.as_ref().map_or("", |v| v.name.as_str());
        return Err(model_err(
            format!("sparse initializer {name:?}"),
            "sparse initializers are not supported",
        ));
    }
    let nodes = g
        .node
        .into_iter()
        .enumerate()
        .map(|(i, n)| node_from(n, i))
        .collect::<Result<_, _>>()?;
    let initializers = g
        .initializer
        .into_iter()
        .map(tensor_from_proto)
        .collect::<Result<_, _>>()?;
    let vis = |v: Vec<ValueInfoProto>, role: &str| {
        v.into_iter()
            .map(|x| value_info_from(x, role))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Graph {
        name: g.name,
        nodes,
        initializers,
        inputs: vis(g.input, "input")?,
        outputs: vis(g.output, "output")?,
        value_info: vis(g.value_info, "value_info")?,
    })
}

/// Converts a decoded `ModelProto`.
///
/// # Errors
/// [`FormatError::Model`] naming the node and attribute, or the input, for a model
/// without a graph, subgraph / sparse / type-proto / function-reference attributes,
/// sparse initializers, non-tensor inputs and outputs, unknown element types and
/// negative dimensions; every error of [`tensor_from_proto`] for initializers and
/// tensor attributes.
///
/// ```
/// use ndpad_formats::onnx::{model_from_proto, proto::ModelProto};
/// let err = model_from_proto(ModelProto::default()).unwrap_err();
/// assert!(err.to_string().contains("has no graph"));
/// ```
pub fn model_from_proto(m: ModelProto) -> Result<Model, FormatError> {
    let Some(graph) = m.graph else {
        return Err(model_err("the model".into(), "has no graph"));
    };
    Ok(Model {
        ir_version: m.ir_version,
        producer_name: m.producer_name,
        producer_version: m.producer_version,
        opset_imports: m
            .opset_import
            .into_iter()
            .map(|o| OpsetImport {
                domain: o.domain,
                version: o.version,
            })
            .collect(),
        graph: graph_from(graph)?,
    })
}

fn value_info_to(v: &ValueInfo) -> Result<ValueInfoProto, FormatError> {
    let dims = v
        .shape
        .as_ref()
        .map(|dims| {
            dims.iter()
                .map(|d| {
                    Ok(proto::Dimension {
                        value: match d {
                            Dim::Value(x) => Some(dimension::Value::DimValue(
                                i64::try_from(*x).map_err(|_| {
                                    model_err(
                                        format!("value {:?}", v.name),
                                        format!("dimension {x} does not fit in an int64"),
                                    )
                                })?,
                            )),
                            Dim::Param(p) => Some(dimension::Value::DimParam(p.clone())),
                            Dim::Unknown => None,
                        },
                        denotation: String::new(),
                    })
                })
                .collect::<Result<Vec<_>, FormatError>>()
        })
        .transpose()?;
    Ok(ValueInfoProto {
        name: v.name.clone(),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor {
                elem_type: v.elem_type.map_or(0, DType::onnx_code),
                shape: dims.map(|dim| TensorShapeProto { dim }),
            }),
            denotation: String::new(),
        }),
        doc_string: String::new(),
    })
}

fn attribute_to(a: &Attribute) -> Result<AttributeProto, FormatError> {
    let mut p = AttributeProto {
        name: a.name.clone(),
        ..AttributeProto::default()
    };
    match &a.value {
        AttributeValue::Float(f) => (p.r#type, p.f) = (at::FLOAT, *f),
        AttributeValue::Int(i) => (p.r#type, p.i) = (at::INT, *i),
        AttributeValue::String(s) => (p.r#type, p.s) = (at::STRING, s.clone()),
        AttributeValue::Tensor(t) => {
            p.r#type = at::TENSOR;
            p.t = Some(Box::new(tensor_to_proto(&t.view(), "")?));
        }
        AttributeValue::Floats(v) => (p.r#type, p.floats) = (at::FLOATS, v.clone()),
        AttributeValue::Ints(v) => (p.r#type, p.ints) = (at::INTS, v.clone()),
        AttributeValue::Strings(v) => (p.r#type, p.strings) = (at::STRINGS, v.clone()),
        AttributeValue::Tensors(v) => {
            p.r#type = at::TENSORS;
            p.tensors = v
                .iter()
                .map(|t| tensor_to_proto(&t.view(), ""))
                .collect::<Result<_, _>>()?;
        }
    }
    Ok(p)
}

/// Converts a model into a `ModelProto`.
///
/// # Errors
/// [`FormatError::Unwritable`] or [`FormatError::Model`] when a dimension does not fit
/// in an `int64`.
///
/// ```
/// use ndpad_formats::onnx::{model_to_proto, Graph, Model};
/// let p = model_to_proto(&Model::new(Graph::default(), 21)).unwrap();
/// assert_eq!(p.opset_import[0].version, 21);
/// ```
pub fn model_to_proto(m: &Model) -> Result<ModelProto, FormatError> {
    let g = &m.graph;
    let node = g
        .nodes
        .iter()
        .map(|n| {
            Ok(NodeProto {
                input: n.inputs.clone(),
                output: n.outputs.clone(),
                name: n.name.clone(),
                op_type: n.op_type.clone(),
                attribute: n
                    .attributes
                    .iter()
                    .map(attribute_to)
                    .collect::<Result<_, FormatError>>()?,
                domain: n.domain.clone(),
                ..NodeProto::default()
            })
        })
        .collect::<Result<_, FormatError>>()?;
    let initializer = g
        .initializers
        .iter()
        .map(|t| tensor_to_proto(&t.tensor.view(), &t.name))
        .collect::<Result<_, _>>()?;
    Ok(ModelProto {
        ir_version: m.ir_version,
        producer_name: m.producer_name.clone(),
        producer_version: m.producer_version.clone(),
        graph: Some(GraphProto {
            node,
            name: g.name.clone(),
            initializer,
            input: g
                .inputs
                .iter()
                .map(value_info_to)
                .collect::<Result<_, _>>()?,
            output: g
                .outputs
                .iter()
                .map(value_info_to)
                .collect::<Result<_, _>>()?,
            value_info: g
                .value_info
                .iter()
                .map(value_info_to)
                .collect::<Result<_, _>>()?,
            ..GraphProto::default()
        }),
        opset_import: m
            .opset_imports
            .iter()
            .map(|o| OperatorSetIdProto {
                domain: o.domain.clone(),
                version: o.version,
            })
            .collect(),
        ..ModelProto::default()
    })
}

/// Reads a serialized `ModelProto` (an `.onnx` file) with the default
/// [`ProtoLimits`].
///
/// # Errors
/// [`FormatError::Protobuf`] for bytes that are not a valid `ModelProto`,
/// [`FormatError::Limit`] over the limits, and every error of [`model_from_proto`].
///
/// ```
/// use ndpad::Tensor;
/// use ndpad_formats::onnx::{read_model, write_model, Graph, Model, NamedTensor, Node};
/// let pads = Tensor::from_slice(&[2], &[1i64, 1]).unwrap();
/// let graph = Graph {
///     nodes: vec![Node::new("Pad", &["x", "pads"], &["y"])],
///     initializers: vec![NamedTensor { name: "pads".into(), tensor: pads }],
///     ..Graph::default()
/// };
/// let model = Model::new(graph, 21);
/// assert_eq!(read_model(&write_model(&model).unwrap()).unwrap(), model);
/// assert!(read_model(b"\xff").is_err());
/// ```
pub fn read_model(bytes: &[u8]) -> Result<Model, FormatError> {
    read_model_with(bytes, &ProtoLimits::default())
}

/// Reads a serialized `ModelProto` under explicit limits.
///
/// # Errors
/// As [`read_model`].
///
/// ```
/// use ndpad_formats::onnx::{read_model_with, write_model, Graph, Model, Node, ProtoLimits};
/// let graph = Graph { nodes: vec![Node::new("Identity", &["x"], &["y"]); 3], ..Graph::default() };
/// let bytes = write_model(&Model::new(graph, 21)).unwrap();
/// let limits = ProtoLimits { max_messages: 3, ..ProtoLimits::default() };
/// let err = read_model_with(&bytes, &limits).unwrap_err();
/// assert!(err.to_string().contains("messages (4) exceeds the limit of 3"), "{err}");
/// ```
pub fn read_model_with(bytes: &[u8], limits: &ProtoLimits) -> Result<Model, FormatError> {
    model_from_proto(scan::decode(bytes, Kind::Model, "ModelProto", limits)?)
}

/// Serializes a model as a `ModelProto`.
///
/// # Errors
/// As [`model_to_proto`].
///
/// ```
/// use ndpad_formats::onnx::{write_model, Graph, Model};
/// assert!(!write_model(&Model::new(Graph::default(), 21)).unwrap().is_empty());
/// ```
pub fn write_model(m: &Model) -> Result<Vec<u8>, FormatError> {
    Ok(model_to_proto(m)?.encode_to_vec())
}
