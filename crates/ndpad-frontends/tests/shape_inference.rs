//! Shape inference with unknown (symbolic) extents and unknown pads.

mod common;

use common::assert_err;
use ndpad::{DType, Oversize};
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::numpy::{NumpyPad, NumpyPadNode};
use ndpad_frontends::onnx::{OnnxPad, PadNode};
use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
use ndpad_frontends::IntInput;

#[test]
fn onnx_unknown_dims() {
    let op = OnnxPad::new(19).unwrap();
    let n = PadNode::new(DType::Float32).pads(vec![1, 0, 0, 2, 1, 0]);
    // batch unknown and padded -> unknown; known dims exact; unknown unpadded -> unknown.
    let out = op.infer_shape(&n, &[None, Some(3), None]).unwrap();
    assert_eq!(out, vec![None, Some(4), None]);
    let out = op.infer_shape(&n, &[Some(2), Some(3), Some(4)]).unwrap();
    assert_eq!(out, vec![Some(5), Some(4), Some(4)]);
    // The same result as resolve for known shapes.
    assert_eq!(
        op.resolve(&n, &[2, 3, 4]).unwrap().output_shape,
        vec![5, 4, 4]
    );
}

#[test]
fn onnx_unknown_pads_keep_the_rank() {
    let op = OnnxPad::new(19).unwrap();
    let n = PadNode::new(DType::Float32).pads_input(IntInput::unknown(DType::Int64));
    assert_eq!(
        op.infer_shape(&n, &[Some(2), None, Some(4)]).unwrap(),
        vec![None; 3]
    );
    // Known axes, unknown pads: only those axes become unknown.
    let n = PadNode::new(DType::Float32)
        .pads_input(IntInput::unknown(DType::Int64))
        .axes(vec![-1]);
    assert_eq!(
        op.infer_shape(&n, &[Some(2), None, Some(4)]).unwrap(),
        vec![Some(2), None, None]
    );
    // Unknown axes: every axis may be padded.
    let n = PadNode::new(DType::Float32)
        .pads(vec![1, 1])
        .axes_input(IntInput::unknown(DType::Int32));
    assert_eq!(
        op.infer_shape(&n, &[Some(2), Some(3)]).unwrap(),
        vec![None, None]
    );
    // Axes and pads known.
    let n = PadNode::new(DType::Float32).pads(vec![1, 2]).axes(vec![1]);
    assert_eq!(
        op.infer_shape(&n, &[None, Some(3)]).unwrap(),
        vec![None, Some(6)]
    );
}

#[test]
fn onnx_inference_still_validates() {
    let op = OnnxPad::new(19)
        .unwrap()
        .with_reflect_oversize(Oversize::Error);
    let n = PadNode::new(DType::Float32)
        .mode("reflect")
        .pads(vec![3, 0, 0, 0]);
    assert_err(
        op.infer_shape(&n, &[Some(3), None]),
        &["ONNX Pad-19: axis 0: begin pad 3 exceeds the maximum 2"],
    );
    // Unknown extent: cannot be checked, stays unknown.
    assert_eq!(op.infer_shape(&n, &[None, None]).unwrap(), vec![None, None]);
    let n = PadNode::new(DType::Float32).pads(vec![1, 1, 1]);
    assert_err(
        op.infer_shape(&n, &[None, None]),
        &["pads has 3 values but 4 were expected"],
    );
    let n = PadNode::new(DType::String).pads(vec![1, 1]);
    assert_err(
        OnnxPad::new(11).unwrap().infer_shape(&n, &[None]),
        &["ONNX Pad-11: data of type string is not supported"],
    );
}

#[test]
fn openvino_inference() {
    let n = OvPadNode::new(DType::Float32, "constant", vec![2, -1], vec![-1, 3]);
    assert_eq!(
        OpenVinoPad::V12.infer_shape(&n, &[Some(3), None]).unwrap(),
        vec![Some(4), None]
    );
    // Clamped to 0.
    let n = OvPadNode::new(DType::Float32, "constant", vec![-5], vec![0]);
    assert_eq!(
        OpenVinoPad::V12.infer_shape(&n, &[Some(3)]).unwrap(),
        vec![Some(0)]
    );
    let n = OvPadNode {
        pads_end: IntInput::unknown(DType::Int32),
        ..OvPadNode::new(DType::Float32, "edge", vec![1, 1], vec![])
    };
    assert_eq!(
        OpenVinoPad::V12
            .infer_shape(&n, &[Some(3), Some(4)])
            .unwrap(),
        vec![None, None]
    );
}

#[test]
fn ngraph_and_numpy_inference() {
    let n = NgPadNode::new(DType::Int32, "constant", vec![1, 2], vec![1, 0]).interior(vec![1, 2]);
    assert_eq!(
        NgraphPad.infer_shape(&n, &[Some(3), None]).unwrap(),
        vec![Some(7), None]
    );
    let n = NgPadNode::new(DType::Int32, "edge", vec![0], vec![0]).interior(vec![1]);
    assert_err(
        NgraphPad.infer_shape(&n, &[None]),
        &["interior padding 1 is only defined for constant mode, not edge"],
    );
    let n = NumpyPadNode::new(DType::Int64, "wrap", vec![(2, 3)]);
    assert_eq!(
        NumpyPad.infer_shape(&n, &[Some(1), None]).unwrap(),
        vec![Some(6), None]
    );
}

// ----------------------------------------------------------------- named extents

mod named {
    use ndpad::DType;
    use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
    use ndpad_frontends::numpy::{NumpyPad, NumpyPadNode};
    use ndpad_frontends::onnx::{self, OnnxPad};
    use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
    use ndpad_frontends::{Dim, IntInput};

    fn nchw() -> Vec<Dim> {
        vec![
            Dim::from("N"),
            Dim::from("C"),
            Dim::from("H"),
            Dim::Known(224),
        ]
    }

    #[test]
    fn a_name_survives_where_its_axis_is_not_padded() {
        let out = onnx::output_shape(&nchw(), &[0, 0, 1, 1, 0, 0, 1, 1], None, 25).unwrap();
        assert_eq!(
            out,
            [
                Dim::from("N"),
                Dim::from("C"),
                Dim::Unknown,
                Dim::Known(226)
            ]
        );
        assert_eq!(
            out.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["N", "C", "?", "226"]
        );
        // axes: only the listed axes are padded; a zero pad keeps the name.
        let out = onnx::output_shape(&nchw(), &[0, 2, 0, 2], Some(&[-2, -1]), 18).unwrap();
        assert_eq!(
            out,
            [
                Dim::from("N"),
                Dim::from("C"),
                Dim::from("H"),
                Dim::Known(228)
            ]
        );
        // Unknown extents stay unknown; unknown pads make their axes unknown.
        let out = onnx::output_shape(&[Dim::Unknown, Dim::Known(3)], &[0, 0, 0, 0], None, 13);
        assert_eq!(out.unwrap(), [Dim::Unknown, Dim::Known(3)]);
        let pad = OnnxPad::new(25).unwrap();
        let node = ndpad_frontends::onnx::PadNode::new(DType::Float32)
            .pads_input(IntInput::unknown(DType::Int64));
        assert_eq!(
            pad.output_dims(&node, &nchw()).unwrap(),
            [Dim::Unknown, Dim::Unknown, Dim::Unknown, Dim::Unknown]
        );
        // Errors are those of the version.
        let e = onnx::output_shape(&nchw(), &[1, 1], Some(&[0]), 13).unwrap_err();
        assert_eq!(
            e.to_string(),
            "ONNX Pad-13: has no input \"axes\"; axes exist from Pad-18"
        );
    }

    #[test]
    fn every_front_end_keeps_names() {
        let want = [
            Dim::from("N"),
            Dim::from("C"),
            Dim::Unknown,
            Dim::Known(226),
        ];
        let ov = OvPadNode::new(
            DType::Float32,
            "constant",
            vec![0, 0, 1, 1],
            vec![0, 0, 0, 1],
        );
        assert_eq!(OpenVinoPad::V12.output_dims(&ov, &nchw()).unwrap(), want);
        let ng = NgPadNode::new(DType::Float32, "EDGE", vec![0, 0, 1, 1], vec![0, 0, 0, 1]);
        assert_eq!(NgraphPad.output_dims(&ng, &nchw()).unwrap(), want);
        let np = NumpyPadNode::new(DType::Float32, "wrap", vec![(0, 0), (0, 0), (1, 0), (1, 1)]);
        assert_eq!(NumpyPad.output_dims(&np, &nchw()).unwrap(), want);
        // Interior padding changes the extent too.
        let ng = NgPadNode::new(DType::Float32, "CONSTANT", vec![0; 4], vec![0; 4])
            .interior(vec![1, 0, 0, 0]);
        assert_eq!(
            NgraphPad.output_dims(&ng, &nchw()).unwrap(),
            [
                Dim::Unknown,
                Dim::from("C"),
                Dim::from("H"),
                Dim::Known(224)
            ]
        );
    }
}
