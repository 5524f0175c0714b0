//! ONNX TensorProto and ModelProto: every error path (asserting the message), limits,
//! and round-trip properties.

use ndpad::{DType, Layout, Tensor};
use ndpad_formats::onnx::proto::{
    self, AttributeProto, GraphProto, ModelProto, NodeProto, Segment, SparseTensorProto,
    StringStringEntryProto, TensorProto, TypeProto, TypeProtoTensor, ValueInfoProto,
};
use ndpad_formats::onnx::{
    model_from_proto, read_model, read_model_with, read_tensor, read_tensor_with,
    tensor_from_proto, write_model, write_tensor, Attribute, AttributeValue, Dim, Graph, Model,
    NamedTensor, Node, OpsetImport, ProtoLimits, ValueInfo,
};
use proptest::prelude::*;
use prost::Message;

fn proto(dtype: i32, dims: &[i64]) -> TensorProto {
    TensorProto {
        name: "t".into(),
        data_type: dtype,
        dims: dims.to_vec(),
        ..TensorProto::default()
    }
}

fn err(p: TensorProto) -> String {
    tensor_from_proto(p).unwrap_err().to_string()
}

#[test]
fn tensor_field_errors() {
    let mut p = proto(1, &[1]);
    p.data_location = 1;
    assert_eq!(
        err(p),
        "tensor \"t\": external data is not supported (data_location = EXTERNAL)"
    );
    let mut p = proto(1, &[1]);
    p.external_data.push(StringStringEntryProto {
        key: "location".into(),
        value: "w.bin".into(),
    });
    assert!(err(p)
        .contains("external data is not supported (data_location = EXTERNAL, location \"w.bin\")"));
    let mut p = proto(1, &[1]);
    p.data_location = 2;
    assert!(err(p).contains("data_location: 2 is neither DEFAULT"));
    let mut p = proto(1, &[1]);
    p.segment = Some(Segment { begin: 0, end: 1 });
    assert!(err(p).contains("segment: segmented tensors (begin 0, end 1) are not supported"));
    assert!(err(proto(0, &[1])).contains("data_type: is 0 (UNDEFINED)"));
    assert!(err(proto(999, &[1])).contains("data_type: 999 is not a data type ndpad supports"));
    assert!(err(proto(1, &[2, -3])).contains("dims: entry 1 is -3"));
    assert!(err(proto(1, &[i64::MAX, i64::MAX])).contains("has more elements than fit in memory"));
    assert!(err(proto(1, &[i64::MAX])).contains("needs more bytes than fit in memory"));
    let mut p = proto(1, &[1]);
    p.int64_data = vec![1];
    assert!(err(p).contains(
        "int64_data: has 1 values, but a float32 tensor keeps its data in float_data or raw_data"
    ));
    let mut p = proto(8, &[1]);
    p.float_data = vec![1.0];
    assert!(err(p).contains("a string tensor keeps its data in string_data"));
    let mut p = proto(8, &[1]);
    p.raw_data = vec![1];
    assert!(err(p).contains("raw_data: string tensors keep their data in string_data"));
    let mut p = proto(6, &[1]);
    p.raw_data = vec![1, 0, 0, 0];
    p.int32_data = vec![1];
    assert!(err(p).contains("raw_data: is set together with int32_data (1 values)"));
    let mut p = proto(9, &[2]);
    p.raw_data = vec![1, 3];
    assert!(err(p).contains("raw_data: bool element 1 is 3, not 0 or 1"));
    let mut p = proto(14, &[2]);
    p.float_data = vec![1.0, 2.0, 3.0];
    assert!(err(p).contains("float_data: has 3 values but dims [2] of complex64 need 4"));
    let mut p = proto(1, &[]);
    p.float_data = vec![1.0, 2.0];
    assert!(err(p).contains("need 1 (a tensor with no dims is a scalar)"));
    let mut p = proto(22, &[3]);
    p.int32_data = vec![0x21];
    assert!(err(p).contains("int32_data: has 1 values but dims [3] of int4 need 2"));
    for (code, bad, range) in [
        (3, 128, "int8 (-128..=127)"),
        (5, -32769, "int16 (-32768..=32767)"),
        (4, -1, "uint16 (0..=65535)"),
        (10, 65536, "float16 (0..=65535)"),
        (2, 256, "uint8 (0..=255)"),
        (9, 2, "bool (0..=1)"),
        (17, -1, "float8e4m3fn (0..=255)"),
        (
            22,
            256,
            "int4 (0..=255: one byte of packed elements per entry)",
        ),
    ] {
        let mut p = proto(code, &[2]);
        p.int32_data = vec![0, bad];
        if matches!(code, 22) {
            p.int32_data = vec![bad];
        }
        let e = err(p);
        assert!(
            e.contains(&format!("value {bad} at index")) && e.contains(range),
            "{e}"
        );
    }
    let mut p = proto(12, &[1]);
    p.uint64_data = vec![1 << 32];
    assert!(err(p).contains("uint64_data: value 4294967296 at index 0 is out of range for uint32"));
    let mut p = proto(8, &[2]);
    p.string_data = vec![b"ok".to_vec(), vec![0xff]];
    assert!(err(p).contains("string_data: element 1 is not valid UTF-8"));
}

#[test]
fn typed_fields_decode_every_type() {
    let cases: Vec<(TensorProto, Vec<u8>)> = vec![
        (
            {
                let mut p = proto(1, &[1]);
                p.float_data = vec![1.5];
                p
            },
            1.5f32.to_le_bytes().to_vec(),
        ),
        (
            {
                let mut p = proto(11, &[1]);
                p.double_data = vec![-2.0];
                p
            },
            (-2.0f64).to_le_bytes().to_vec(),
        ),
        (
            {
                let mut p = proto(7, &[1]);
                p.int64_data = vec![-3];
                p
            },
            (-3i64).to_le_bytes().to_vec(),
        ),
        (
            {
                let mut p = proto(13, &[1]);
                p.uint64_data = vec![u64::MAX];
                p
            },
            u64::MAX.to_le_bytes().to_vec(),
        ),
        (
            {
                let mut p = proto(12, &[1]);
                p.uint64_data = vec![7];
                p
            },
            7u32.to_le_bytes().to_vec(),
        ),
        (
            {
                let mut p = proto(6, &[1]);
                p.int32_data = vec![-5];
                p
            },
            (-5i32).to_le_bytes().to_vec(),
        ),
        (
            {
                let mut p = proto(5, &[1]);
                p.int32_data = vec![-5];
                p
            },
            (-5i16).to_le_bytes().to_vec(),
        ),
        (
            {
                let mut p = proto(3, &[1]);
                p.int32_data = vec![-5];
                p
            },
            vec![0xfb],
        ),
        (
            {
                let mut p = proto(16, &[1]);
                p.int32_data = vec![0x3f80];
                p
            },
            vec![0x80, 0x3f],
        ),
        (
            {
                let mut p = proto(15, &[1]);
                p.double_data = vec![1.0, 2.0];
                p
            },
            [1.0f64.to_le_bytes(), 2.0f64.to_le_bytes()].concat(),
        ),
        // Packed: unused high bits of the last byte are cleared.
        (
            {
                let mut p = proto(21, &[3]);
                p.int32_data = vec![0x21, 0xf3];
                p
            },
            vec![0x21, 0x03],
        ),
        (
            {
                let mut p = proto(26, &[5]);
                p.int32_data = vec![0xff, 0xff];
                p
            },
            vec![0xff, 0x03],
        ),
        (
            {
                let mut p = proto(25, &[2]);
                p.raw_data = vec![0xff];
                p
            },
            vec![0x0f],
        ),
    ];
    for (p, want) in cases {
        let code = p.data_type;
        let t = tensor_from_proto(p).unwrap().tensor;
        assert_eq!(t.bytes().unwrap(), want.as_slice(), "type {code}");
    }
}

#[test]
fn wire_format_errors_and_limits() {
    let e = read_tensor(&[0x0b]).unwrap_err().to_string(); // field 1, wire type 3 (group)
    assert!(
        e.contains("field 1 at byte 0 has wire type 3, which ONNX does not use"),
        "{e}"
    );
    let e = read_tensor(&[0x02, 0x00]).unwrap_err().to_string();
    assert!(e.contains("field number 0 at byte 0"), "{e}");
    let e = read_tensor(&[0x08]).unwrap_err().to_string();
    assert!(e.contains("field 1 at byte 0 runs past the end"), "{e}");
    let e = read_tensor(&[0x80]).unwrap_err().to_string();
    assert!(e.contains("bad field tag at byte 0"), "{e}");
    // A name that is not UTF-8: prost names the field.
    let e = read_tensor(&[0x10, 0x01, 0x42, 0x01, 0xff])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("invalid TensorProto protobuf") && e.contains("TensorProto.name"),
        "{e}"
    );
    // Many tiny messages are refused before decoding.
    let graph = GraphProto {
        node: vec![NodeProto::default(); 10],
        ..GraphProto::default()
    };
    let bytes = ModelProto {
        graph: Some(graph),
        ..ModelProto::default()
    }
    .encode_to_vec();
    let limits = ProtoLimits {
        max_messages: 5,
        ..ProtoLimits::default()
    };
    let e = read_model_with(&bytes, &limits).unwrap_err().to_string();
    assert_eq!(e, "number of protobuf messages (6) exceeds the limit of 5");
    let mut p = proto(8, &[3]);
    p.string_data = vec![vec![]; 3];
    let limits = ProtoLimits {
        max_strings: 3,
        ..ProtoLimits::default()
    };
    let e = read_tensor_with(&p.encode_to_vec(), &limits)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "number of protobuf strings (4) exceeds the limit of 3");
}

#[test]
fn deeply_nested_undeclared_fields_are_skipped() {
    // A graph input whose type is a sequence of sequences ... 100000 deep: the
    // sequence field is not declared, so it is skipped without recursion.
    let mut inner: Vec<u8> = Vec::new();
    for _ in 0..100_000 {
        let mut outer = vec![0x22]; // TypeProto.sequence_type (4), length-delimited
        let mut len = inner.len() as u64;
        loop {
            let b = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                outer.push(b);
                break;
            }
            outer.push(b | 0x80);
        }
        outer.extend(&inner);
        inner = outer;
    }
    let vi = ValueInfoProto {
        name: "x".into(),
        ..ValueInfoProto::default()
    };
    let mut vi_bytes = vi.encode_to_vec();
    vi_bytes.push(0x12); // ValueInfoProto.type (2)
    let mut len = inner.len() as u64;
    loop {
        let b = (len & 0x7f) as u8;
        len >>= 7;
        if len == 0 {
            vi_bytes.push(b);
            break;
        }
        vi_bytes.push(b | 0x80);
    }
    vi_bytes.extend(&inner);
    let vi = ValueInfoProto::decode(vi_bytes.as_slice()).unwrap();
    let graph = GraphProto {
        input: vec![vi],
        ..GraphProto::default()
    };
    let bytes = ModelProto {
        graph: Some(graph),
        ..ModelProto::default()
    }
    .encode_to_vec();
    let e = read_model(&bytes).unwrap_err().to_string();
    assert!(e.contains("graph input \"x\": is not a tensor"), "{e}");
}

fn model_err(m: ModelProto) -> String {
    model_from_proto(m).unwrap_err().to_string()
}

fn with_node(attr: AttributeProto) -> ModelProto {
    let node = NodeProto {
        op_type: "If".into(),
        name: "n".into(),
        attribute: vec![attr],
        ..NodeProto::default()
    };
    ModelProto {
        graph: Some(GraphProto {
            node: vec![node],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    }
}

#[test]
fn model_errors() {
    use proto::attribute_type as at;
    let attr = |ty: i32| AttributeProto {
        name: "a".into(),
        r#type: ty,
        ..AttributeProto::default()
    };
    let cases = [
        (
            attr(at::GRAPH),
            "graph attributes (subgraphs) are not supported",
        ),
        (
            attr(at::GRAPHS),
            "graph attributes (subgraphs) are not supported",
        ),
        (attr(at::SPARSE_TENSOR), "sparse tensor attributes"),
        (attr(at::TYPE_PROTOS), "type proto attributes"),
        (attr(at::UNDEFINED), "has no type"),
        (attr(99), "has unknown type 99"),
        (attr(at::TENSOR), "is of type TENSOR but has no tensor"),
        (
            AttributeProto {
                ref_attr_name: "p".into(),
                ..attr(at::INT)
            },
            "refers to function attribute \"p\"",
        ),
        (
            AttributeProto {
                t: Some(Box::new(proto(1, &[-1]))),
                ..attr(at::TENSOR)
            },
            "dims: entry 0 is -1",
        ),
        (
            AttributeProto {
                tensors: vec![proto(1, &[2])],
                ..attr(at::TENSORS)
            },
            "float_data: has 0 values",
        ),
    ];
    for (a, want) in cases {
        let e = model_err(with_node(a));
        assert!(e.starts_with("node 0 \"n\" (If) attribute \"a\": "), "{e}");
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    }
    assert!(model_err(ModelProto::default()).contains("the model: has no graph"));
    let sparse = GraphProto {
        sparse_initializer: vec![SparseTensorProto {
            values: Some(proto(1, &[0])),
            ..Default::default()
        }],
        ..GraphProto::default()
    };
    let e = model_err(ModelProto {
        graph: Some(sparse),
        ..ModelProto::default()
    });
    assert!(
        e.contains("sparse initializer \"t\": sparse initializers are not supported"),
        "{e}"
    );
    let vi = |tt: Option<TypeProtoTensor>| ValueInfoProto {
        name: "x".into(),
        r#type: Some(TypeProto {
            tensor_type: tt,
            ..TypeProto::default()
        }),
        ..ValueInfoProto::default()
    };
    let graph = |v: ValueInfoProto| ModelProto {
        graph: Some(GraphProto {
            output: vec![v],
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    };
    assert!(model_err(graph(vi(None))).contains("graph output \"x\": is not a tensor"));
    let e = model_err(graph(vi(Some(TypeProtoTensor {
        elem_type: 77,
        shape: None,
    }))));
    assert!(e.contains("elem_type 77 is not a data type"), "{e}");
    let shape = proto::TensorShapeProto {
        dim: vec![proto::Dimension {
            value: Some(proto::dimension::Value::DimValue(-4)),
            denotation: String::new(),
        }],
    };
    let e = model_err(graph(vi(Some(TypeProtoTensor {
        elem_type: 1,
        shape: Some(shape),
    }))));
    assert!(
        e.contains("graph output \"x\": dimension 0 is negative (-4)"),
        "{e}"
    );
    let many = proto::TensorShapeProto {
        dim: vec![
            proto::Dimension {
                value: Some(proto::dimension::Value::DimValue(1)),
                denotation: String::new(),
            };
            65
        ],
    };
    let e = model_err(graph(vi(Some(TypeProtoTensor {
        elem_type: 1,
        shape: Some(many),
    }))));
    assert!(
        e.contains("graph output \"x\": has 65 dimensions, more than the limit of 64"),
        "{e}"
    );
    let bad_init = GraphProto {
        initializer: vec![proto(1, &[3])],
        ..GraphProto::default()
    };
    let e = model_err(ModelProto {
        graph: Some(bad_init),
        ..ModelProto::default()
    });
    assert!(
        e.contains("tensor \"t\": float_data: has 0 values but dims [3]"),
        "{e}"
    );
    let e = read_model(b"\x3a\x05").unwrap_err().to_string();
    assert!(e.contains("invalid ModelProto protobuf"), "{e}");
}

#[test]
fn model_round_trip_keeps_everything() {
    let pads = Tensor::from_slice(&[4], &[1i64, 0, 0, 2]).unwrap();
    let value = Tensor::from_slice(&[], &[1.5f32]).unwrap();
    let node = Node {
        name: "pad0".into(),
        op_type: "Pad".into(),
        domain: String::new(),
        inputs: vec!["x".into(), "pads".into(), "".into()],
        outputs: vec!["y".into()],
        attributes: vec![
            Attribute {
                name: "mode".into(),
                value: AttributeValue::String(b"reflect".to_vec()),
            },
            Attribute {
                name: "f".into(),
                value: AttributeValue::Float(-0.5),
            },
            Attribute {
                name: "i".into(),
                value: AttributeValue::Int(-7),
            },
            Attribute {
                name: "t".into(),
                value: AttributeValue::Tensor(value.clone()),
            },
            Attribute {
                name: "fs".into(),
                value: AttributeValue::Floats(vec![1.0, 2.0]),
            },
            Attribute {
                name: "is".into(),
                value: AttributeValue::Ints(vec![0, -1, i64::MAX]),
            },
            Attribute {
                name: "ss".into(),
                value: AttributeValue::Strings(vec![b"a".to_vec(), vec![]]),
            },
            Attribute {
                name: "ts".into(),
                value: AttributeValue::Tensors(vec![pads.clone(), value]),
            },
        ],
    };
    let graph = Graph {
        name: "g".into(),
        nodes: vec![node, Node::new("Identity", &["y"], &["z"])],
        initializers: vec![NamedTensor {
            name: "pads".into(),
            tensor: pads,
        }],
        inputs: vec![ValueInfo {
            name: "x".into(),
            elem_type: Some(DType::Float32),
            shape: Some(vec![Dim::Param("N".into()), Dim::Value(3), Dim::Unknown]),
        }],
        outputs: vec![ValueInfo {
            name: "z".into(),
            elem_type: Some(DType::Float32),
            shape: None,
        }],
        value_info: vec![ValueInfo {
            name: "y".into(),
            elem_type: None,
            shape: Some(vec![]),
        }],
    };
    let mut model = Model::new(graph, 21);
    model.opset_imports.push(OpsetImport {
        domain: "com.example".into(),
        version: 1,
    });
    let back = read_model(&write_model(&model).unwrap()).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.opset_version("com.example"), Some(1));
    assert_eq!(
        back.graph.nodes[0].attribute("mode"),
        Some(&AttributeValue::String(b"reflect".to_vec()))
    );
    assert_eq!(back.graph.nodes[0].attribute("nope"), None);
    // A dimension too large for int64 cannot be written.
    let mut huge = model.clone();
    huge.graph.inputs[0].shape = Some(vec![Dim::Value(u64::MAX)]);
    let e = write_model(&huge).unwrap_err().to_string();
    assert!(
        e.contains("dimension 18446744073709551615 does not fit in an int64"),
        "{e}"
    );
}

#[test]
fn unwritable_dims() {
    let t = Tensor::from_bytes(DType::Uint8, &[0, usize::MAX], vec![]).unwrap();
    let e = write_tensor(&t.view(), "x").unwrap_err().to_string();
    assert!(e.contains("does not fit in an int64"), "{e}");
}

fn arb_tensor(dtype: DType) -> impl Strategy<Value = Tensor> {
    proptest::collection::vec(0usize..4, 0..4).prop_flat_map(move |shape| {
        let n: usize = shape.iter().product();
        let strings = proptest::collection::vec("\\PC{0,5}", n);
        let bytes = proptest::collection::vec(any::<u8>(), dtype.byte_len(n).unwrap());
        (Just(shape), strings, bytes).prop_map(move |(shape, strings, mut bytes)| {
            if dtype == DType::String {
                return Tensor::from_strings(&shape, strings).unwrap();
            }
            if dtype == DType::Bool {
                bytes.iter_mut().for_each(|b| *b &= 1);
            }
            if let Layout::Packed(bits) = dtype.layout() {
                let used = (n % (8 / bits) as usize) as u32 * bits;
                if used != 0 {
                    *bytes.last_mut().unwrap() &= (1u8 << used) - 1;
                }
            }
            Tensor::from_bytes(dtype, &shape, bytes).unwrap()
        })
    })
}

proptest! {
    #[test]
    fn tensor_round_trip_every_type(
        t in proptest::sample::select(DType::ALL.to_vec()).prop_flat_map(arb_tensor),
        name in "[a-z_]{0,8}",
    ) {
        let back = read_tensor(&write_tensor(&t.view(), &name).unwrap()).unwrap();
        prop_assert_eq!(back.name, name);
        prop_assert_eq!(back.tensor, t);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = read_tensor(&data);
        let _ = read_model(&data);
    }

    #[test]
    fn corrupted_models_never_panic(pos in 0usize..400, byte in any::<u8>()) {
        let graph = Graph {
            nodes: vec![Node::new("Pad", &["x", "p"], &["y"])],
            initializers: vec![NamedTensor { name: "p".into(), tensor: Tensor::from_slice(&[2], &[1i64, 1]).unwrap() }],
            inputs: vec![ValueInfo { name: "x".into(), elem_type: Some(DType::Int4), shape: Some(vec![Dim::Value(3)]) }],
            ..Graph::default()
        };
        let mut bytes = write_model(&Model::new(graph, 25)).unwrap();
        if let Some(b) = bytes.get_mut(pos) {
            *b = byte;
        }
        let _ = read_model(&bytes);
    }
}
