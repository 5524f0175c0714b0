//! Every worked example of the specs, through the front ends and `ndpad::pad`, plus
//! the official ONNX backend node tests (testdata/onnx-node).

mod common;

use common::{flat, onnx_x, run, x12};
use ndpad::{DType, Scalar, Tensor};
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::onnx::{OnnxPad, PadNode};
use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
use ndpad_frontends::{IntInput, PadValue};

// ---------------------------------------------------------------- ONNX (000, 003, 004)

fn onnx_run(opset: i64, node: &PadNode, x: &Tensor) -> Tensor {
    let r = OnnxPad::new(opset)
        .unwrap()
        .resolve(node, x.shape())
        .unwrap();
    let y = run(x, &r.spec);
    assert_eq!(y.shape(), &r.output_shape[..]);
    y
}

#[test]
fn onnx_example_1_constant_every_input_version() {
    let expected = flat(&[
        &[0.0f32, 0.0, 1.0, 1.2],
        &[0.0, 0.0, 2.3, 3.4],
        &[0.0, 0.0, 4.5, 5.7],
    ]);
    for opset in [11, 13, 18, 19, 21, 23, 24, 25] {
        let node = PadNode::new(DType::Float32)
            .mode("constant")
            .pads(vec![0, 2, 0, 0])
            .constant_value(Scalar::from(0.0f32));
        let y = onnx_run(opset, &node, &onnx_x());
        assert_eq!(y.shape(), &[3, 4]);
        assert_eq!(y.to_vec::<f32>().unwrap(), expected, "opset {opset}");
    }
}

#[test]
fn onnx_example_2_reflect() {
    let expected = flat(&[
        &[1.0f32, 1.2, 1.0, 1.2],
        &[2.3, 3.4, 2.3, 3.4],
        &[4.5, 5.7, 4.5, 5.7],
    ]);
    for opset in [11, 13, 18, 19, 21, 23, 24, 25] {
        let node = PadNode::new(DType::Float32)
            .mode("reflect")
            .pads(vec![0, 2, 0, 0]);
        assert_eq!(
            onnx_run(opset, &node, &onnx_x()).to_vec::<f32>().unwrap(),
            expected
        );
    }
}

#[test]
fn onnx_example_3_edge() {
    let expected = flat(&[
        &[1.0f32, 1.0, 1.0, 1.2],
        &[2.3, 2.3, 2.3, 3.4],
        &[4.5, 4.5, 4.5, 5.7],
    ]);
    for opset in [11, 13, 18, 19, 21, 23, 24, 25] {
        let node = PadNode::new(DType::Float32)
            .mode("edge")
            .pads(vec![0, 2, 0, 0]);
        assert_eq!(
            onnx_run(opset, &node, &onnx_x()).to_vec::<f32>().unwrap(),
            expected
        );
    }
}

#[test]
fn onnx_example_4_wrap() {
    let expected = flat(&[
        &[3.4f32, 2.3, 3.4, 2.3],
        &[5.7, 4.5, 5.7, 4.5],
        &[1.2, 1.0, 1.2, 1.0],
        &[3.4, 2.3, 3.4, 2.3],
        &[5.7, 4.5, 5.7, 4.5],
        &[1.2, 1.0, 1.2, 1.0],
    ]);
    for opset in [19, 21, 23, 24, 25] {
        let node = PadNode::new(DType::Float32)
            .mode("wrap")
            .pads(vec![2, 1, 1, 1]);
        let y = onnx_run(opset, &node, &onnx_x());
        assert_eq!(y.shape(), &[6, 4]);
        assert_eq!(y.to_vec::<f32>().unwrap(), expected);
    }
}

#[test]
fn onnx_pad_2_example_attribute_pads() {
    // Pad-2: pads = [0, 2, 0, 0] as an attribute; default value 0.
    let node = PadNode::new(DType::Float32).pads_attribute(vec![0, 2, 0, 0]);
    let y = onnx_run(2, &node, &onnx_x());
    assert_eq!(
        y.to_vec::<f32>().unwrap(),
        flat(&[
            &[0.0f32, 0.0, 1.0, 1.2],
            &[0.0, 0.0, 2.3, 3.4],
            &[0.0, 0.0, 4.5, 5.7]
        ])
    );
}

#[test]
fn onnx_pad_1_paddings_follow_the_attribute_text() {
    // Pad-1's attribute text says [x1_begin, x2_begin, ..., x1_end, x2_end, ...]; its
    // example (`paddings = [0, 0, 2, 0]` said to prepend two columns) is written in the
    // interleaved order and contradicts it. ndpad follows the normative attribute text
    // (as the ONNX reference implementation does): [0, 2, 0, 0] prepends two columns.
    let node = PadNode::new(DType::Float32).paddings(vec![0, 2, 0, 0]);
    let y = onnx_run(1, &node, &onnx_x());
    assert_eq!(
        y.to_vec::<f32>().unwrap(),
        flat(&[
            &[0.0f32, 0.0, 1.0, 1.2],
            &[0.0, 0.0, 2.3, 3.4],
            &[0.0, 0.0, 4.5, 5.7]
        ])
    );
    // The example's literal list adds two rows at the end of axis 0.
    let node = PadNode::new(DType::Float32).paddings(vec![0, 0, 2, 0]);
    let r = OnnxPad::new(1).unwrap().resolve(&node, &[3, 2]).unwrap();
    assert_eq!(r.output_shape, vec![5, 2]);
}

#[test]
fn onnx_pad_2_value_attribute_is_a_float() {
    // 0.1 as a FLOAT attribute, cast to double, is 0.10000000149011612.
    let x = Tensor::from_slice(&[1], &[5.0f64]).unwrap();
    let node = PadNode::new(DType::Float64)
        .pads_attribute(vec![1, 0])
        .value(0.1);
    let y = onnx_run(2, &node, &x);
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.10000000149011612, 5.0]);
    // float16: 0.1f32 rounds to the nearest half.
    let x = Tensor::from_slice(&[1], &[half::f16::from_f32(5.0)]).unwrap();
    let node = PadNode::new(DType::Float16)
        .pads_attribute(vec![0, 1])
        .value(0.1);
    let y = onnx_run(2, &node, &x);
    assert_eq!(
        y.to_vec::<half::f16>().unwrap()[1],
        half::f16::from_f32(0.1)
    );
}

#[test]
fn onnx_constant_value_one_element_tensor() {
    let value = Tensor::from_slice(&[1], &[7i32]).unwrap();
    let x = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
    let node = PadNode::new(DType::Int32)
        .pads(vec![1, 1])
        .constant_value(value);
    assert_eq!(
        onnx_run(13, &node, &x).to_vec::<i32>().unwrap(),
        vec![7, 1, 2, 7]
    );
    let scalar = Tensor::from_slice(&[], &[9i32]).unwrap();
    let node = PadNode::new(DType::Int32)
        .pads(vec![1, 0])
        .constant_value(scalar);
    assert_eq!(
        onnx_run(13, &node, &x).to_vec::<i32>().unwrap(),
        vec![9, 1, 2]
    );
}

#[test]
fn onnx_strings_and_bool_from_13() {
    let x = Tensor::from_strings(&[2], vec!["a", "b"]).unwrap();
    let node = PadNode::new(DType::String).pads(vec![1, 1]);
    let y = onnx_run(13, &node, &x);
    assert_eq!(y.strings().unwrap(), &["", "a", "b", ""]);
    let node = PadNode::new(DType::String)
        .pads(vec![0, 1])
        .constant_value(Scalar::string("z"));
    assert_eq!(onnx_run(18, &node, &x).strings().unwrap(), &["a", "b", "z"]);
    let x = Tensor::from_bytes(DType::Bool, &[1], vec![1]).unwrap();
    let node = PadNode::new(DType::Bool).pads(vec![1, 0]);
    assert_eq!(onnx_run(13, &node, &x).bytes().unwrap(), &[0, 1]);
}

#[test]
fn onnx_float8e8m0_default_is_bit_pattern_zero() {
    // float8e8m0 cannot represent 0: the default pads the all-zero pattern (2^-127).
    let x = Tensor::from_bytes(DType::Float8E8M0, &[1], vec![127]).unwrap();
    let node = PadNode::new(DType::Float8E8M0).pads(vec![1, 0]);
    assert_eq!(onnx_run(24, &node, &x).bytes().unwrap(), &[0x00, 127]);
}

#[test]
fn onnx_negative_pads_crop_first() {
    // Peer behaviour (ONNX Runtime): wrap [0,-1,0,2] on X gives rows [2,3,4,2,3].
    let node = PadNode::new(DType::Int32)
        .mode("wrap")
        .pads(vec![0, -1, 0, 2]);
    let y = onnx_run(19, &node, &x12());
    assert_eq!(y.shape(), &[3, 5]);
    assert_eq!(y.to_vec::<i32>().unwrap()[..5], [2, 3, 4, 2, 3]);
    // Constant mode may crop an axis to nothing.
    let node = PadNode::new(DType::Int32).pads(vec![0, -4, 0, 0]);
    assert_eq!(onnx_run(19, &node, &x12()).shape(), &[3, 0]);
    // Wrap wider than the axis repeats.
    let x = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
    let node = PadNode::new(DType::Int32).mode("wrap").pads(vec![5, 0]);
    assert_eq!(
        onnx_run(19, &node, &x).to_vec::<i32>().unwrap(),
        vec![2, 1, 2, 1, 2, 1, 2]
    );
}

#[test]
fn onnx_constant_value_ignored_in_other_modes() {
    let x = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
    let node = PadNode::new(DType::Int32)
        .mode("edge")
        .pads(vec![1, 1])
        .constant_value(Scalar::from(9i32));
    assert_eq!(
        onnx_run(11, &node, &x).to_vec::<i32>().unwrap(),
        vec![1, 1, 2, 2]
    );
    let x = Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap();
    let node = PadNode::new(DType::Float32)
        .mode("reflect")
        .pads_attribute(vec![1, 0])
        .value(3.0);
    assert_eq!(
        onnx_run(2, &node, &x).to_vec::<f32>().unwrap(),
        vec![2.0, 1.0, 2.0]
    );
}

#[test]
fn onnx_axes_negative_and_int32() {
    let x = Tensor::from_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
    let node = PadNode::new(DType::Int32)
        .pads(vec![1, 0])
        .axes_input(IntInput::typed(DType::Int32, vec![-1]));
    let y = onnx_run(18, &node, &x);
    assert_eq!(y.to_vec::<i32>().unwrap(), vec![0, 1, 2, 0, 3, 4]);
}

/// The ONNX backend tests, from the protobuf files regenerated by
/// testdata/onnx-node/generate.py.
#[test]
fn onnx_backend_node_tests() {
    use common::pb;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/onnx-node");
    let names = [
        "test_constant_pad",
        "test_constant_pad_axes",
        "test_constant_pad_negative_axes",
        "test_edge_pad",
        "test_reflect_pad",
        "test_wrap_pad",
    ];
    let mut ran = 0;
    for name in names {
        let case = dir.join(name);
        if !case.exists() {
            eprintln!("notice: {} is missing; skipped", case.display());
            continue;
        }
        let (opset, attrs) = pb::model(&std::fs::read(case.join("model.onnx")).unwrap());
        let mode = attrs
            .iter()
            .find(|(n, _)| n == "mode")
            .map_or("constant".to_string(), |(_, s)| s.clone());
        let ds = case.join("test_data_set_0");
        let input = |i: usize| {
            let p = ds.join(format!("input_{i}.pb"));
            p.exists().then(|| pb::tensor(&std::fs::read(p).unwrap()))
        };
        let x = input(0).unwrap();
        let pads = input(1).unwrap();
        let mut node = PadNode::new(x.dtype())
            .mode(&mode)
            .pads_input(IntInput::typed(pads.dtype(), pads.to_vec::<i64>().unwrap()));
        if let Some(v) = input(2) {
            node = node.constant_value(PadValue::Tensor(v));
        }
        if let Some(a) = input(3) {
            let values: Vec<i64> = match a.dtype() {
                DType::Int32 => a
                    .to_vec::<i32>()
                    .unwrap()
                    .into_iter()
                    .map(i64::from)
                    .collect(),
                _ => a.to_vec::<i64>().unwrap(),
            };
            node = node.axes_input(IntInput::typed(a.dtype(), values));
        }
        let expected = pb::tensor(&std::fs::read(ds.join("output_0.pb")).unwrap());
        let y = onnx_run(opset, &node, &x);
        assert_eq!(y, expected, "{name} (opset {opset}, mode {mode})");
        ran += 1;
    }
    eprintln!("ran {ran} ONNX backend node tests");
}

// ------------------------------------------------------------------- OpenVINO (002)

fn ov(mode: &str, begin: Vec<i64>, end: Vec<i64>) -> (Vec<usize>, Vec<i32>) {
    let x = x12();
    let node = OvPadNode::new(DType::Int32, mode, begin, end);
    let r = OpenVinoPad::V12.resolve(&node, x.shape()).unwrap();
    let y = run(&x, &r.spec);
    assert_eq!(y.shape(), &r.output_shape[..]);
    (y.shape().to_vec(), y.to_vec::<i32>().unwrap())
}

#[test]
fn openvino_positive_pads_all_modes() {
    let b = vec![0, 1];
    let e = vec![2, 3];
    let cases: [(&str, &[&[i32]]); 4] = [
        (
            "constant",
            &[
                &[0, 1, 2, 3, 4, 0, 0, 0],
                &[0, 5, 6, 7, 8, 0, 0, 0],
                &[0, 9, 10, 11, 12, 0, 0, 0],
                &[0, 0, 0, 0, 0, 0, 0, 0],
                &[0, 0, 0, 0, 0, 0, 0, 0],
            ],
        ),
        (
            "edge",
            &[
                &[1, 1, 2, 3, 4, 4, 4, 4],
                &[5, 5, 6, 7, 8, 8, 8, 8],
                &[9, 9, 10, 11, 12, 12, 12, 12],
                &[9, 9, 10, 11, 12, 12, 12, 12],
                &[9, 9, 10, 11, 12, 12, 12, 12],
            ],
        ),
        (
            "reflect",
            &[
                &[2, 1, 2, 3, 4, 3, 2, 1],
                &[6, 5, 6, 7, 8, 7, 6, 5],
                &[10, 9, 10, 11, 12, 11, 10, 9],
                &[6, 5, 6, 7, 8, 7, 6, 5],
                &[2, 1, 2, 3, 4, 3, 2, 1],
            ],
        ),
        (
            "symmetric",
            &[
                &[1, 1, 2, 3, 4, 4, 3, 2],
                &[5, 5, 6, 7, 8, 8, 7, 6],
                &[9, 9, 10, 11, 12, 12, 11, 10],
                &[9, 9, 10, 11, 12, 12, 11, 10],
                &[5, 5, 6, 7, 8, 8, 7, 6],
            ],
        ),
    ];
    for (mode, rows) in cases {
        let (shape, data) = ov(mode, b.clone(), e.clone());
        assert_eq!(shape, vec![5, 8], "{mode}");
        assert_eq!(data, flat(rows), "{mode}");
    }
}

#[test]
fn openvino_negative_pads_all_modes() {
    for mode in ["constant", "edge", "reflect", "symmetric"] {
        let (shape, data) = ov(mode, vec![-1, -1], vec![-1, -1]);
        assert_eq!(shape, vec![1, 2], "{mode}");
        assert_eq!(data, vec![6, 7], "{mode}");
    }
}

#[test]
fn openvino_mixed_pads_all_modes() {
    let cases: [(&str, &[&[i32]]); 4] = [
        (
            "constant",
            &[
                &[0, 0, 0, 0, 0, 0],
                &[0, 0, 0, 0, 0, 0],
                &[2, 3, 4, 0, 0, 0],
                &[6, 7, 8, 0, 0, 0],
            ],
        ),
        (
            "edge",
            &[
                &[2, 3, 4, 4, 4, 4],
                &[2, 3, 4, 4, 4, 4],
                &[2, 3, 4, 4, 4, 4],
                &[6, 7, 8, 8, 8, 8],
            ],
        ),
        (
            "reflect",
            &[
                &[10, 11, 12, 11, 10, 9],
                &[6, 7, 8, 7, 6, 5],
                &[2, 3, 4, 3, 2, 1],
                &[6, 7, 8, 7, 6, 5],
            ],
        ),
        (
            "symmetric",
            &[
                &[6, 7, 8, 8, 7, 6],
                &[2, 3, 4, 4, 3, 2],
                &[2, 3, 4, 4, 3, 2],
                &[6, 7, 8, 8, 7, 6],
            ],
        ),
    ];
    for (mode, rows) in cases {
        let (shape, data) = ov(mode, vec![2, -1], vec![-1, 3]);
        assert_eq!(shape, vec![4, 6], "{mode}");
        assert_eq!(data, flat(rows), "{mode}");
    }
}

#[test]
fn openvino_ir_examples_shapes_and_value() {
    // Constant mode, positive pads, pad_value 15.0 on 1x3x32x40.
    let node = OvPadNode::new(
        DType::Float32,
        "constant",
        vec![0, 5, 2, 1],
        vec![1, 0, 3, 7],
    )
    .pad_value(Scalar::from(15.0f32));
    let r = OpenVinoPad::V12.resolve(&node, &[1, 3, 32, 40]).unwrap();
    assert_eq!(r.output_shape, vec![2, 8, 37, 48]);
    let x = Tensor::from_slice(&[1, 3, 32, 40], &vec![1.0f32; 3 * 32 * 40]).unwrap();
    let y = run(&x, &r.spec).to_vec::<f32>().unwrap();
    assert_eq!(
        y.iter().filter(|&&v| v == 15.0).count(),
        2 * 8 * 37 * 48 - 3 * 32 * 40
    );
    // Positive and negative pads on 2x3x32x40 (the printed comment's "2 =" is a typo
    // for 1 = 0 + 2 + (-1)).
    let node = OvPadNode::new(
        DType::Float32,
        "constant",
        vec![0, -2, -8, 1],
        vec![-1, 4, -6, 7],
    )
    .pad_value(Scalar::from(15.0f32));
    let r = OpenVinoPad::V12.resolve(&node, &[2, 3, 32, 40]).unwrap();
    assert_eq!(r.output_shape, vec![1, 5, 18, 48]);
    // Edge mode.
    let node = OvPadNode::new(DType::Float32, "edge", vec![0, 5, 2, 1], vec![1, 0, 3, 7]);
    let r = OpenVinoPad::V12.resolve(&node, &[1, 3, 32, 40]).unwrap();
    assert_eq!(r.output_shape, vec![2, 8, 37, 48]);
}

#[test]
fn openvino_peer_notes_original_index() {
    // reflect [0,-2,0,3] on X gives rows [3,4,3,2,1]; edge [0,-4,0,2] gives [4,4].
    let (shape, data) = ov("reflect", vec![0, -2], vec![0, 3]);
    assert_eq!(shape, vec![3, 5]);
    assert_eq!(data[..5], [3, 4, 3, 2, 1]);
    let (shape, data) = ov("edge", vec![0, -4], vec![0, 2]);
    assert_eq!(shape, vec![3, 2]);
    assert_eq!(data[..2], [4, 4]);
    // A negative total extent is clamped to 0, as the spec's max(..., 0) says.
    let (shape, _) = ov("constant", vec![0, -5], vec![0, -1]);
    assert_eq!(shape, vec![3, 0]);
}

#[test]
fn openvino_pad_1_positive_example() {
    let x = x12();
    let node = OvPadNode::new(DType::Int32, "symmetric", vec![0, 1], vec![2, 3]);
    let r = OpenVinoPad::V1.resolve(&node, x.shape()).unwrap();
    assert_eq!(
        run(&x, &r.spec).to_vec::<i32>().unwrap()[..8],
        [1, 1, 2, 3, 4, 4, 3, 2]
    );
}

#[test]
fn openvino_pads_of_other_integer_types() {
    let node = OvPadNode {
        pads_begin: IntInput::typed(DType::Uint8, vec![0, 1]),
        pads_end: IntInput::typed(DType::Int32, vec![2, 3]),
        ..OvPadNode::new(DType::Int32, "constant", vec![], vec![])
    };
    let r = OpenVinoPad::V12.resolve(&node, &[3, 4]).unwrap();
    assert_eq!(r.output_shape, vec![5, 8]);
}

// --------------------------------------------------------------------- nGraph (001)

#[test]
fn ngraph_interior_example_42() {
    let x = Tensor::from_slice(&[3, 3], &(1..=9).collect::<Vec<i32>>()).unwrap();
    let node = NgPadNode::new(DType::Int32, "CONSTANT", vec![1, 2], vec![1, 0])
        .interior(vec![1, 2])
        .pad_value(Scalar::from(42i32));
    let r = NgraphPad.resolve(&node, x.shape()).unwrap();
    assert_eq!(r.output_shape, vec![7, 9]);
    let y = run(&x, &r.spec);
    let f = 42;
    let expected = flat(&[
        &[f, f, f, f, f, f, f, f, f],
        &[f, f, 1, f, f, 2, f, f, 3],
        &[f, f, f, f, f, f, f, f, f],
        &[f, f, 4, f, f, 5, f, f, 6],
        &[f, f, f, f, f, f, f, f, f],
        &[f, f, 7, f, f, 8, f, f, 9],
        &[f, f, f, f, f, f, f, f, f],
    ]);
    assert_eq!(y.to_vec::<i32>().unwrap(), expected);
}

#[test]
fn ngraph_extent_formula_and_modes() {
    // d = 0: p + q.
    let node = NgPadNode::new(DType::Float32, "constant", vec![2], vec![3]).interior(vec![4]);
    assert_eq!(
        NgraphPad.resolve(&node, &[0]).unwrap().output_shape,
        vec![5]
    );
    // Negative padding crops; edge and reflect read the uncropped input.
    let x = Tensor::from_slice(&[4], &[1i32, 2, 3, 4]).unwrap();
    let node = NgPadNode::new(DType::Int32, "Edge", vec![-1], vec![2]);
    let r = NgraphPad.resolve(&node, x.shape()).unwrap();
    assert_eq!(
        run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![2, 3, 4, 4, 4]
    );
    let node = NgPadNode::new(DType::Int32, "reflect", vec![2], vec![-1]);
    let r = NgraphPad.resolve(&node, x.shape()).unwrap();
    assert_eq!(
        run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![3, 2, 1, 2, 3]
    );
    // Default value is 0.
    let node = NgPadNode::new(DType::Int32, "constant", vec![1], vec![0]);
    let r = NgraphPad.resolve(&node, x.shape()).unwrap();
    assert_eq!(
        run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![0, 1, 2, 3, 4]
    );
}
