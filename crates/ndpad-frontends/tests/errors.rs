//! Every error path of every front end, each asserting its message.

mod common;

use common::assert_err;
use ndpad::{AxisPad, DType, NegativePads, Oversize, Scalar, Tensor};
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::numpy::{NumpyPad, NumpyPadNode};
use ndpad_frontends::onnx::{OnnxPad, PadNode};
use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
use ndpad_frontends::{FrontendError, IntInput};

fn onnx(opset: i64) -> OnnxPad {
    OnnxPad::new(opset).unwrap()
}

fn f32_node() -> PadNode {
    PadNode::new(DType::Float32)
}

// ---------------------------------------------------------------------------- ONNX

#[test]
fn onnx_unknown_mode() {
    let n = f32_node().mode("bogus").pads(vec![1, 1]);
    assert_err(
        onnx(19).resolve(&n, &[2]),
        &["ONNX Pad-19: mode \"bogus\" is not supported (supported: constant, reflect, edge, wrap)"],
    );
}

#[test]
fn onnx_missing_pads() {
    assert_err(
        onnx(1).resolve(&f32_node(), &[2]),
        &["ONNX Pad-1: the required attribute \"paddings\" is missing"],
    );
    assert_err(
        onnx(2).resolve(&f32_node(), &[2]),
        &["ONNX Pad-2: the required attribute \"pads\" is missing"],
    );
    assert_err(
        onnx(11).resolve(&f32_node(), &[2]),
        &["ONNX Pad-11: the required input \"pads\" is missing"],
    );
}

#[test]
fn onnx_pads_must_be_int64() {
    let n = f32_node().pads_input(IntInput::typed(DType::Int32, vec![1, 1]));
    assert_err(
        onnx(19).resolve(&n, &[2]),
        &["ONNX Pad-19: pads of type int32 is not supported (allowed: int64)"],
    );
}

#[test]
fn onnx_pads_length() {
    let n = f32_node().pads(vec![1, 1, 1]);
    assert_err(
        onnx(11).resolve(&n, &[2, 2]),
        &["ONNX Pad-11: pads has 3 values but 4 were expected (2 x the data's rank 2)"],
    );
    let n = f32_node().pads(vec![1, 2, 3, 4]).axes(vec![1]);
    assert_err(
        onnx(18).resolve(&n, &[2, 3, 4]),
        &["ONNX Pad-18: pads has 4 values but 2 were expected (2 x the 1 entries of axes)"],
    );
    let n = f32_node().paddings(vec![1]);
    assert_err(
        onnx(1).resolve(&n, &[2]),
        &["ONNX Pad-1: paddings has 1 values but 2 were expected"],
    );
}

#[test]
fn onnx_axes_errors() {
    let n = f32_node().pads(vec![1, 1]).axes(vec![3]);
    assert_err(
        onnx(18).resolve(&n, &[2, 3, 4]),
        &["ONNX Pad-18: axes[0] = 3 is out of range [-3, 2] for data of rank 3"],
    );
    let n = f32_node().pads(vec![1, 1]).axes(vec![-4]);
    assert_err(
        onnx(18).resolve(&n, &[2, 3, 4]),
        &["axes[0] = -4 is out of range [-3, 2]"],
    );
    // A repeated axis (also -1 and r-1): the last entry's pads win, as ONNX Runtime,
    // the reference and OpenVINO's ONNX importer do; out of range stays an error.
    let n = f32_node().pads(vec![1, 2, 3, 4]).axes(vec![2, -1]);
    let r = onnx(18).resolve(&n, &[2, 3, 4]).unwrap();
    assert_eq!(r.output_shape, vec![2, 3, 10]);
    assert_eq!(r.spec.axes[2], ndpad::AxisPad::new(2, 4));
    let n = f32_node().pads(vec![5, 1, 0, 0]).axes(vec![0, 0]);
    let r = onnx(18).resolve(&n, &[2, 3, 4]).unwrap();
    assert_eq!(r.output_shape, vec![3, 3, 4]);
    let n = f32_node().pads(vec![1, 1, 1, 1]).axes(vec![2, 3]);
    assert_err(
        onnx(18).resolve(&n, &[2, 3, 4]),
        &["ONNX Pad-18: axes[1] = 3 is out of range [-3, 2] for data of rank 3"],
    );
    let n = f32_node()
        .pads(vec![1, 1])
        .axes_input(IntInput::typed(DType::Int8, vec![0]));
    assert_err(
        onnx(18).resolve(&n, &[2]),
        &["ONNX Pad-18: axes of type int8 is not supported (allowed: int32, int64)"],
    );
    let n = f32_node()
        .pads(vec![1, 1])
        .axes_input(IntInput::typed(DType::Int32, vec![1 << 40]));
    assert_err(
        onnx(18).resolve(&n, &[2]),
        &["ONNX Pad-18: axes[0] = 1099511627776 does not fit its type int32"],
    );
}

#[test]
fn onnx_constant_value_errors() {
    let n = f32_node()
        .pads(vec![1, 1])
        .constant_value(Scalar::from(0.1f64));
    assert_err(
        onnx(19).resolve(&n, &[2]),
        &["ONNX Pad-19: constant_value is of type float64 but the data is float32; they must be the same type"],
    );
    // Also checked when the mode ignores the value (T binds both inputs).
    let n = f32_node()
        .mode("edge")
        .pads(vec![1, 1])
        .constant_value(Scalar::from(1i32));
    assert_err(
        onnx(19).resolve(&n, &[2]),
        &["constant_value is of type int32"],
    );
    let two = Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap();
    let n = f32_node().pads(vec![1, 1]).constant_value(two);
    assert_err(
        onnx(19).resolve(&n, &[2]),
        &["ONNX Pad-19: constant_value must be a scalar or a one-element tensor, but has shape [2]"],
    );
    let none = Tensor::from_slice::<f32>(&[0], &[]).unwrap();
    let n = f32_node().pads(vec![1, 1]).constant_value(none);
    assert_err(onnx(19).resolve(&n, &[2]), &["but has shape [0]"]);
}

#[test]
fn onnx_rank_0() {
    let n = f32_node().pads(vec![]);
    assert_err(
        onnx(19).resolve(&n, &[]),
        &["ONNX Pad-19: the data is a scalar (rank 0), which has no axis to pad"],
    );
}

#[test]
fn onnx_unknown_pads_cannot_resolve() {
    let n = f32_node().pads_input(IntInput::unknown(DType::Int64));
    assert_err(
        onnx(19).resolve(&n, &[2]),
        &["ONNX Pad-19: the values of input \"pads\" are not known"],
    );
    let n = f32_node()
        .pads(vec![1, 1])
        .axes_input(IntInput::unknown(DType::Int64));
    assert_err(
        onnx(19).resolve(&n, &[2]),
        &["the values of input \"axes\" are not known"],
    );
}

#[test]
fn onnx_shape_errors_from_the_core() {
    // Reflect wider than the axis under ORT's policy (the default repeats).
    let n = f32_node().mode("reflect").pads(vec![3, 0]);
    let ort = onnx(19).with_reflect_oversize(Oversize::Error);
    assert_eq!(ort.reflect_oversize(), Oversize::Error);
    assert_err(
        ort.resolve(&n, &[3]),
        &["ONNX Pad-19: axis 0: begin pad 3 exceeds the maximum 2 allowed by reflect padding of an axis of 3 elements"],
    );
    assert_eq!(onnx(19).resolve(&n, &[3]).unwrap().output_shape, vec![6]);
    // Cropped first: reflect [0,-2,0,3] on 3x4 leaves 2 columns (peer notes).
    let n = f32_node().mode("reflect").pads(vec![0, -2, 0, 3]);
    assert_err(
        ort.resolve(&n, &[3, 4]),
        &["axis 1: end pad 3 exceeds the maximum 1"],
    );
    // More removed than there is.
    let n = f32_node().pads(vec![-2, -2]);
    assert_err(
        onnx(19).resolve(&n, &[3]),
        &["ONNX Pad-19: axis 0: pads begin=-2 end=-2 on extent 3 give a negative extent -1"],
    );
    // Edge cannot grow an empty axis.
    let n = f32_node().mode("edge").pads(vec![1, 0]);
    assert_err(
        onnx(19).resolve(&n, &[0]),
        &["ONNX Pad-19: axis 0: edge padding needs data to read from, but the axis has 0 elements"],
    );
    let n = f32_node().mode("wrap").pads(vec![-3, 1]);
    assert_err(
        onnx(19).resolve(&n, &[3]),
        &["wrap padding needs data", "after cropping"],
    );
}

#[test]
fn error_type_is_matchable() {
    let e = onnx(19)
        .resolve(&f32_node().mode("x").pads(vec![0, 0]), &[1])
        .unwrap_err();
    assert!(matches!(e, FrontendError::UnsupportedMode { .. }));
    let e = onnx(19)
        .resolve(&f32_node().pads(vec![-2, -2]), &[3])
        .unwrap_err();
    assert!(matches!(e, FrontendError::Shape { .. }));
    assert!(std::error::Error::source(&e).is_some());
}

// ------------------------------------------------------------------------ OpenVINO

fn ov(mode: &str, b: Vec<i64>, e: Vec<i64>) -> OvPadNode {
    OvPadNode::new(DType::Float32, mode, b, e)
}

#[test]
fn openvino_mode_and_types() {
    assert_err(
        OpenVinoPad::V12.resolve(&ov("wrap", vec![1], vec![1]), &[2]),
        &["OpenVINO Pad-12: mode \"wrap\" is not supported (supported: constant, edge, reflect, symmetric)"],
    );
    // Strings: constant mode only (the runtime pads them with "" or the given string).
    let n = OvPadNode::new(DType::String, "edge", vec![1], vec![1]);
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: data of type string is not supported (allowed: any numeric type; string only in mode constant)"],
    );
    let x = Tensor::from_strings(&[2], vec!["a", "b"]).unwrap();
    let n = OvPadNode::new(DType::String, "constant", vec![1], vec![1]);
    let r = OpenVinoPad::V12.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).strings().unwrap(),
        ["", "a", "b", ""]
    );
    let n = n.pad_value(Scalar::string("z"));
    let r = OpenVinoPad::V12.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).strings().unwrap(),
        ["z", "a", "b", "z"]
    );
    let n = OvPadNode {
        pads_begin: IntInput::typed(DType::Float32, vec![1]),
        ..ov("constant", vec![1], vec![1])
    };
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: pads_begin of type float32 is not supported (allowed: any integer type)"],
    );
    let n = OvPadNode {
        pads_end: IntInput::typed(DType::Uint8, vec![-1]),
        ..ov("constant", vec![1], vec![1])
    };
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: pads_end[0] = -1 does not fit its type uint8"],
    );
}

#[test]
fn openvino_lengths_and_negatives() {
    assert_err(
        OpenVinoPad::V12.resolve(&ov("edge", vec![1], vec![1, 1]), &[2, 2]),
        &["OpenVINO Pad-12: pads_begin has 1 values but 2 were expected (one per axis of the data's rank 2)"],
    );
    assert_err(
        OpenVinoPad::V12.resolve(&ov("edge", vec![1, 1], vec![1]), &[2, 2]),
        &["pads_end has 1 values but 2 were expected"],
    );
    // Pad-1 accepts negative pads, with Pad-12's rules (as the runtime does).
    let x = Tensor::from_slice(&[4], &[1i32, 2, 3, 4]).unwrap();
    let n = OvPadNode::new(DType::Int32, "reflect", vec![2], vec![-3]);
    for version in [OpenVinoPad::V1, OpenVinoPad::V12] {
        let r = version.resolve(&n, x.shape()).unwrap();
        assert_eq!(r.output_shape, vec![3], "{version:?}");
        assert_eq!(
            common::run(&x, &r.spec).to_vec::<i32>().unwrap(),
            vec![3, 2, 1],
            "{version:?}"
        );
    }
}

#[test]
fn openvino_pad_value_errors() {
    // With another mode than constant, pad_value is ignored (the runtime ignores it),
    // but its type is still checked.
    let n = ov("edge", vec![1], vec![1]).pad_value(Scalar::from(1.0f32));
    let r = OpenVinoPad::V12.resolve(&n, &[2]).unwrap();
    assert_eq!(r.spec.mode, ndpad::Mode::Edge);
    let n = ov("edge", vec![1], vec![1]).pad_value(Scalar::from(1i64));
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: pad_value is of type int64 but the data is float"],
    );
    let n = ov("constant", vec![1], vec![1]).pad_value(Scalar::from(1i64));
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: pad_value is of type int64 but the data is float"],
    );
    let n = ov("constant", vec![1], vec![1])
        .pad_value(Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap());
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["pad_value must be a scalar or a one-element tensor, but has shape [2]"],
    );
}

#[test]
fn openvino_limits_on_the_original_extent() {
    assert_err(
        OpenVinoPad::V12.resolve(&ov("reflect", vec![0, 4], vec![0, 0]), &[3, 4]),
        &["OpenVINO Pad-12: axis 1: begin pad 4 exceeds the maximum 3 allowed by reflect padding of an axis of 4 elements"],
    );
    assert_eq!(
        OpenVinoPad::V12
            .resolve(&ov("symmetric", vec![0, 4], vec![0, 0]), &[3, 4])
            .unwrap()
            .output_shape,
        vec![3, 8]
    );
    assert_err(
        OpenVinoPad::V12.resolve(&ov("symmetric", vec![0, 5], vec![0, 0]), &[3, 4]),
        &["begin pad 5 exceeds the maximum 4 allowed by symmetric padding of an axis of 4 elements"],
    );
    // Checked against the original extent, not the cropped one.
    assert_eq!(
        OpenVinoPad::V12
            .resolve(&ov("reflect", vec![0, -2], vec![0, 3]), &[3, 4])
            .unwrap()
            .output_shape,
        vec![3, 5]
    );
    assert_err(
        OpenVinoPad::V12.resolve(&ov("edge", vec![1], vec![0]), &[0]),
        &["axis 0: edge padding needs data to read from, but the axis has 0 elements"],
    );
    assert_err(
        OpenVinoPad::V12.resolve(&ov("reflect", vec![1], vec![0]), &[1]),
        &["begin pad 1 exceeds the maximum 0 allowed by reflect padding of an axis of 1 elements"],
    );
}

#[test]
fn openvino_rank_0_and_unknown_pads() {
    assert_err(
        OpenVinoPad::V12.resolve(&ov("constant", vec![], vec![]), &[]),
        &["OpenVINO Pad-12: the data is a scalar (rank 0)"],
    );
    let n = OvPadNode {
        pads_begin: IntInput::unknown(DType::Int32),
        ..ov("constant", vec![1], vec![1])
    };
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: the values of input \"pads_begin\" are not known"],
    );
    let n = OvPadNode {
        pads_end: IntInput::unknown(DType::Int32),
        ..ov("constant", vec![1], vec![1])
    };
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: the values of input \"pads_end\" are not known"],
    );
}

// -------------------------------------------------------------------------- nGraph

#[test]
fn ngraph_errors() {
    let n = NgPadNode::new(DType::Float32, "WRAP", vec![1], vec![1]);
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["nGraph Pad-0: mode \"WRAP\" is not supported (supported: CONSTANT, EDGE, REFLECT, SYMMETRIC)"],
    );
    let n = NgPadNode::new(DType::Float32, "constant", vec![1], vec![1, 1]);
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["nGraph Pad-0: padding_above has 2 values but 1 were expected (one per axis of the data's rank 1)"],
    );
    let n = NgPadNode::new(DType::Float32, "constant", vec![1, 1], vec![1]);
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["padding_below has 2 values but 1 were expected"],
    );
    let n = NgPadNode::new(DType::Float32, "constant", vec![1], vec![1]).interior(vec![1, 1]);
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["padding_interior has 2 values but 1 were expected"],
    );
    let n = NgPadNode::new(DType::Float32, "constant", vec![1], vec![1]).interior(vec![-1]);
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["nGraph Pad-0: padding_interior[0] = -1 is negative, which nGraph Pad-0 does not allow"],
    );
    let n = NgPadNode::new(DType::Float32, "edge", vec![1], vec![1]).interior(vec![1]);
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["nGraph Pad-0: axis 0: interior padding 1 is only defined for constant mode, not edge"],
    );
    let n =
        NgPadNode::new(DType::Float32, "constant", vec![1], vec![1]).pad_value(Scalar::from(1u8));
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["nGraph Pad-0: arg_pad_value is of type uint8 but the data is float"],
    );
    let n = NgPadNode::new(DType::Float32, "constant", vec![-3], vec![0]);
    assert_err(NgraphPad.resolve(&n, &[2]), &["give a negative extent -1"]);
    // Reflect wider than the axis repeats (tests/leeway.rs); growing nothing fails.
    let n = NgPadNode::new(DType::Float32, "reflect", vec![2], vec![0]);
    assert_eq!(NgraphPad.resolve(&n, &[2]).unwrap().output_shape, vec![4]);
    let n = NgPadNode::new(DType::Float32, "symmetric", vec![2], vec![0]);
    assert_err(
        NgraphPad.resolve(&n, &[0]),
        &["nGraph Pad-0: axis 0: symmetric padding needs data to read from"],
    );
    let n = NgPadNode::new(DType::Float32, "constant", vec![], vec![]);
    assert_err(
        NgraphPad.resolve(&n, &[]),
        &["nGraph Pad-0: the data is a scalar (rank 0)"],
    );
}

// --------------------------------------------------------------------------- numpy

#[test]
fn numpy_errors() {
    let n = NumpyPadNode::new(DType::Int64, "linear_ramp", vec![(1, 1)]);
    assert_err(
        NumpyPad.resolve(&n, &[2]),
        &["numpy.pad: mode \"linear_ramp\" is not supported (supported: constant, edge, reflect, symmetric, wrap)"],
    );
    let n = NumpyPadNode::new(DType::Int64, "edge", vec![(1, -1)]);
    assert_err(
        NumpyPad.resolve(&n, &[2]),
        &["numpy.pad: pad_width[0] (after) = -1 is negative, which numpy.pad does not allow"],
    );
    let n = NumpyPadNode::new(DType::Int64, "edge", vec![(1, 1), (1, 1)]);
    assert_err(
        NumpyPad.resolve(&n, &[2, 2, 2]),
        &["numpy.pad: pad_width has 2 values but 3 were expected (one (before, after) pair per axis of rank 3, or one pair for all)"],
    );
    let n =
        NumpyPadNode::new(DType::Int64, "edge", vec![(1, 1)]).constant_values(Scalar::from(1i64));
    assert_err(
        NumpyPad.resolve(&n, &[2]),
        &["numpy.pad: constant_values is only allowed with mode constant, not with mode edge"],
    );
    let n = NumpyPadNode::new(DType::Int64, "constant", vec![(1, 1)])
        .constant_values(Scalar::from(1i32));
    assert_err(
        NumpyPad.resolve(&n, &[2]),
        &["constant_values is of type int32 but the data is int64"],
    );
    let n = NumpyPadNode::new(DType::Int64, "wrap", vec![(1, 0)]);
    assert_err(
        NumpyPad.resolve(&n, &[0]),
        &["numpy.pad: axis 0: wrap padding needs data to read from, but the axis has 0 elements"],
    );
    // Rank 0: returned unchanged, whatever pad_width (as numpy); the mode is still
    // checked.
    let x = Tensor::from_slice(&[], &[5i64]).unwrap();
    for widths in [vec![], vec![(2, 3)], vec![(1, 1), (2, 2)]] {
        let n = NumpyPadNode::new(DType::Int64, "edge", widths);
        let r = NumpyPad.resolve(&n, x.shape()).unwrap();
        assert_eq!(r.output_shape, Vec::<usize>::new());
        assert_eq!(common::run(&x, &r.spec), x);
    }
    let n = NumpyPadNode::new(DType::Int64, "mean", vec![(1, 1)]);
    assert_err(
        NumpyPad.resolve(&n, &[]),
        &["mode \"mean\" is not supported"],
    );
}

#[test]
fn numpy_bytes_errors() {
    let pads = || vec![AxisPad::new(1, 1)];
    assert_err(
        NumpyPad.resolve_bytes(0, &[2], pads(), "edge", &[], None),
        &["numpy.pad: elements of 0 bytes cannot be padded"],
    );
    assert_err(
        NumpyPad.resolve_bytes(12, &[2], pads(), "constant", &[&[1, 2, 3]], None),
        &["numpy.pad: the constant has 3 bytes but the elements have 12"],
    );
    let record: Vec<u8> = (1..=12).collect();
    assert_err(
        NumpyPad.resolve_bytes(12, &[2], pads(), "constant", &[&record], None),
        &["numpy.pad: a constant of 12 bytes is padded as 4-byte words, but it is not one word repeated (pad the elements' indices instead)"],
    );
    assert_err(
        NumpyPad.resolve_bytes(1, &[2], pads(), "constant", &[&[1], &[2], &[3]], None),
        &["numpy.pad: constant_values has 3 values but 2 were expected (one value, or one per side of rank 1)"],
    );
    assert_err(
        NumpyPad.resolve_bytes(4, &[2, 2], pads(), "edge", &[], None),
        &["numpy.pad: pad_width has 1 values but 2 were expected (one pad per axis of rank 2)"],
    );
    assert_err(
        NumpyPad.resolve_bytes(4, &[2], pads(), "mean", &[], None),
        &["numpy.pad: mode \"mean\" is not supported"],
    );
}

#[test]
fn numpy_bytes_word_types() {
    use ndpad_frontends::numpy::word_type;
    for (itemsize, dtype, words) in [
        (1, DType::Uint8, 1),
        (3, DType::Uint8, 3),
        (6, DType::Uint16, 3),
        (12, DType::Uint32, 3),
        (24, DType::Uint64, 3),
        (48, DType::Complex128, 3),
        (16, DType::Complex128, 1),
    ] {
        assert_eq!(word_type(itemsize).unwrap(), (dtype, words), "{itemsize}");
    }
    // A 12-byte record whose constant is one u32 word repeated: three u32 words.
    let value: Vec<u8> = [1u8, 2, 3, 4].repeat(3);
    let r = NumpyPad
        .resolve_bytes(
            12,
            &[2],
            vec![AxisPad::new(1, 0)],
            "constant",
            &[&value],
            None,
        )
        .unwrap();
    assert_eq!((r.dtype, r.shape.clone()), (DType::Uint32, vec![2, 3]));
    let x = Tensor::from_slice(&[2, 3], &[7u32, 8, 9, 10, 11, 12]).unwrap();
    let word = u32::from_le_bytes([1, 2, 3, 4]);
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<u32>().unwrap(),
        vec![word, word, word, 7, 8, 9, 10, 11, 12]
    );
    // One constant per side: the most common one is the mode's, the others the
    // sides', corners the last axis's (numpy.pad's constant_values=((1, 2), (3, 3))).
    let r = NumpyPad
        .resolve_bytes(
            1,
            &[1, 1],
            vec![AxisPad::new(1, 1), AxisPad::new(1, 1)],
            "constant",
            &[&[1], &[2], &[3], &[3]],
            None,
        )
        .unwrap();
    assert_eq!(
        r.spec.mode,
        ndpad::Mode::Constant(Some(ndpad::Scalar::from(3u8)))
    );
    let x = Tensor::from_slice(&[1, 1], &[9u8]).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<u8>().unwrap(),
        vec![3, 1, 3, 3, 9, 3, 3, 2, 3]
    );
    // Negative pads only with a policy; reflections repeat when wider than the axis.
    let r = NumpyPad
        .resolve_bytes(
            1,
            &[2],
            vec![AxisPad::new(-1, 3)],
            "reflect",
            &[],
            Some(NegativePads::CropFirst),
        )
        .unwrap();
    let x = Tensor::from_slice(&[2], &[1u8, 2]).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<u8>().unwrap(),
        vec![2, 2, 2, 2]
    );
}

#[test]
fn numpy_interior_and_negative_pads() {
    // ndpad's keywords beyond numpy: interior counts (constant mode only) and
    // negative widths that crop under a policy.
    let x = Tensor::from_slice(&[2, 3], &[1i64, 2, 3, 4, 5, 6]).unwrap();
    let n = NumpyPadNode::new(DType::Int64, "constant", vec![(1, 0), (0, 1)])
        .constant_values(Scalar::from(9i64))
        .interior(vec![1, 0]);
    let r = NumpyPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(r.output_shape, vec![4, 4]);
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i64>().unwrap(),
        vec![9, 9, 9, 9, 1, 2, 3, 9, 9, 9, 9, 9, 4, 5, 6, 9]
    );
    let n = NumpyPadNode::new(DType::Int64, "constant", vec![(0, 0)]).interior(vec![2]);
    let r = NumpyPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(r.output_shape, vec![4, 7]);
    let n = NumpyPadNode::new(DType::Int64, "edge", vec![(1, -1), (-1, 1)])
        .negative_pads(NegativePads::CropFirst);
    let r = NumpyPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i64>().unwrap(),
        vec![2, 3, 3, 2, 3, 3]
    );
    let n = NumpyPadNode::new(DType::Int64, "reflect", vec![(1, 1)]).interior(vec![1]);
    assert_err(
        NumpyPad.resolve(&n, x.shape()),
        &["numpy.pad: interior is only allowed with mode constant, not with mode reflect"],
    );
    let n = NumpyPadNode::new(DType::Int64, "constant", vec![(1, 1)]).interior(vec![1, 1, 1]);
    assert_err(
        NumpyPad.resolve(&n, x.shape()),
        &["numpy.pad: interior has 3 values but 2 were expected (one count per axis of rank 2, or one for all)"],
    );
    // Without a policy a negative width is numpy's error.
    let n = NumpyPadNode::new(DType::Int64, "edge", vec![(1, -2)]);
    assert_err(
        NumpyPad.resolve(&n, x.shape()),
        &["numpy.pad: pad_width[0] (after) = -2 is negative, which numpy.pad does not allow"],
    );
}

#[test]
fn numpy_semantics() {
    // One pair broadcasts; oversized modes repeat; reflect on one element copies it.
    let x = Tensor::from_slice(&[1], &[7i64]).unwrap();
    let n = NumpyPadNode::new(DType::Int64, "reflect", vec![(2, 1)]);
    let r = NumpyPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i64>().unwrap(),
        vec![7, 7, 7, 7]
    );
    let x = Tensor::from_slice(&[2], &[1i64, 2]).unwrap();
    let n = NumpyPadNode::new(DType::Int64, "symmetric", vec![(5, 0)]);
    let r = NumpyPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i64>().unwrap(),
        vec![1, 1, 2, 2, 1, 1, 2]
    );
    let n = NumpyPadNode::new(DType::Int64, "constant", vec![(1, 1)]);
    assert_eq!(
        NumpyPad.resolve(&n, &[2, 3]).unwrap().output_shape,
        vec![4, 5]
    );
}

#[test]
fn text_values_take_the_data_type() {
    use ndpad_frontends::PadValue;
    let text = |t: &str| PadValue::Text(t.into());
    // ONNX, OpenVINO, nGraph and numpy: the constant has the data's type.
    let onnx = OnnxPad::new(25).unwrap();
    let n = onnx.node(
        DType::Int64,
        "constant",
        vec![1, 1],
        Some(text("1.5")),
        None,
    );
    assert_err(
        onnx.resolve(&n, &[4]),
        &["ONNX Pad-25: constant_value: invalid int64 value \"1.5\": not an integer"],
    );
    let n = onnx.node(DType::Int64, "constant", vec![1, 1], Some(text("-3")), None);
    assert_eq!(
        onnx.resolve(&n, &[4]).unwrap().spec.mode,
        ndpad::Mode::Constant(Some(Scalar::from(-3i64)))
    );
    let n = OvPadNode::new(DType::Uint8, "constant", vec![1], vec![0]).pad_value(text("256"));
    assert_err(
        OpenVinoPad::V12.resolve(&n, &[2]),
        &["OpenVINO Pad-12: pad_value: invalid uint8 value \"256\": out of range 0..=255"],
    );
    let n = NgPadNode::new(DType::Int32, "CONSTANT", vec![1], vec![0]).pad_value(text("2.0"));
    assert_err(
        NgraphPad.resolve(&n, &[2]),
        &["nGraph Pad-0: arg_pad_value: invalid int32 value \"2.0\": not an integer"],
    );
    let n =
        NumpyPadNode::new(DType::Float32, "constant", vec![(1, 1)]).constant_values(text("1e40"));
    assert_err(
        NumpyPad.resolve(&n, &[2]),
        &["numpy.pad: constant_values: invalid float32 value \"1e40\": out of range"],
    );
    // Pad-2's float attribute takes the text as a number.
    let pad2 = OnnxPad::new(2).unwrap();
    let n = pad2.node(
        DType::Float32,
        "constant",
        vec![1, 1],
        Some(text("0.5")),
        None,
    );
    assert_eq!(n.value, Some(0.5));
}

/// numpy.pad's `constant_values` per axis and side: corners take the last axis's
/// (`np.pad([[5]], ((1, 1), (1, 0)), constant_values=((1, 2), (3, 4)))`), and a count
/// of pairs other than one or the rank is refused.
#[test]
fn numpy_constants_per_side() {
    use ndpad::Scalar;
    use ndpad_frontends::PadValue;
    let v = |x: i32| PadValue::Scalar(Scalar::from(x));
    let node = NumpyPadNode::new(DType::Int32, "constant", vec![(1, 1), (1, 0)])
        .constant_values_per_side(vec![(v(1), v(2)), (v(3), v(4))]);
    let r = NumpyPad.resolve(&node, &[1, 1]).unwrap();
    let x = Tensor::from_slice(&[1, 1], &[5i32]).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![3, 1, 3, 5, 3, 2]
    );
    let node = NumpyPadNode::new(DType::Int32, "constant", vec![(1, 1)])
        .constant_values_per_side(vec![(v(1), v(2)); 3]);
    assert_err(
        NumpyPad.resolve(&node, &[1, 1]),
        &["numpy.pad: constant_values has 3 values but 2 were expected (one (before, after) pair per axis of rank 2, or one pair for all)"],
    );
}
