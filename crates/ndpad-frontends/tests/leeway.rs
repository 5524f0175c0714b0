//! Where the runtimes have leeway, ndpad follows them (issue 19, section 3), and the
//! numpy front end is numpy.pad.

mod common;

use common::assert_err;
use ndpad::{DType, Oversize, Scalar, Tensor};
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::numpy::{NumpyPad, NumpyPadNode};
use ndpad_frontends::onnx::{OnnxPad, PadNode};

#[test]
fn ngraph_reflect_wider_than_the_axis_repeats() {
    // As numpy.pad([1, 2, 3], 10, 'reflect').
    let x = Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap();
    let n = NgPadNode::new(DType::Int32, "REFLECT", vec![10], vec![10]);
    let r = NgraphPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1]
    );
}

#[test]
fn ngraph_symmetric() {
    let x = Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap();
    let n = NgPadNode::new(DType::Int32, "symmetric", vec![2], vec![4]);
    let r = NgraphPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![2, 1, 1, 2, 3, 3, 2, 1, 1]
    );
    // Negative padding reads the uncropped input, as for the other modes.
    let n = NgPadNode::new(DType::Int32, "SYMMETRIC", vec![-1], vec![1]);
    let r = NgraphPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![2, 3, 3]
    );
    let n = NgPadNode::new(DType::Int32, "SYMMETRIC", vec![1], vec![1]).interior(vec![1]);
    assert_err(
        NgraphPad.resolve(&n, x.shape()),
        &["interior padding 1 is only defined for constant mode, not symmetric"],
    );
}

#[test]
fn onnx_reflect_oversize_error_covers_one_element_after_cropping() {
    let ort = OnnxPad::new(18)
        .unwrap()
        .with_reflect_oversize(Oversize::Error);
    // [1, 2, 3] cropped by 2 at the end leaves [1]: reflecting it is ORT's error.
    let n = PadNode::new(DType::Float32)
        .mode("reflect")
        .pads(vec![2, -2]);
    assert_err(
        ort.resolve(&n, &[3]),
        &["ONNX Pad-18: axis 0: begin pad 2 exceeds the maximum 0 allowed by reflect padding of an axis of 1 elements"],
    );
    // The default repeats (copies the one element).
    let r = OnnxPad::new(18).unwrap().resolve(&n, &[3]).unwrap();
    assert_eq!(r.output_shape, vec![3]);
    // A crop to exactly nothing is the empty result under both policies.
    let n = PadNode::new(DType::Float32)
        .mode("reflect")
        .pads(vec![-1, -2]);
    assert_eq!(ort.resolve(&n, &[3]).unwrap().output_shape, vec![0]);
}

#[test]
fn numpy_pads_strings_with_0_by_default() {
    let x = Tensor::from_strings(&[2], vec!["ab", "c"]).unwrap();
    let n = NumpyPadNode::new(DType::String, "constant", vec![(1, 1)]);
    let r = NumpyPad.resolve(&n, x.shape()).unwrap();
    let y = common::run(&x, &r.spec);
    assert_eq!(y.strings().unwrap(), ["0", "ab", "c", "0"]);
    // A given value is used as it is.
    let n = n.constant_values(Scalar::string("zz"));
    let r = NumpyPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).strings().unwrap(),
        ["zz", "ab", "c", "zz"]
    );
}

#[test]
fn ngraph_reflect_of_one_element_is_an_error() {
    // nGraph's type_prop test pad_deduce_too_small_for_reflect: [1, 5, 1, 2], pads 0..3.
    let n = NgPadNode::new(
        DType::Float32,
        "REFLECT",
        vec![0, 1, 2, 3],
        vec![0, 1, 2, 3],
    );
    let want = "nGraph Pad-0: REFLECT pads axis 2 (2 below, 2 above) but the axis has 1 \
                element; REFLECT needs at least 2 on a padded axis";
    assert_eq!(
        NgraphPad
            .resolve(&n, &[1, 5, 1, 2])
            .unwrap_err()
            .to_string(),
        want
    );
    assert_eq!(
        NgraphPad
            .infer_shape(&n, &[None, Some(5), Some(1), None])
            .unwrap_err()
            .to_string(),
        want
    );
    let dims = [
        ndpad_frontends::Dim::Unknown,
        ndpad_frontends::Dim::Known(5),
        ndpad_frontends::Dim::Known(1),
        ndpad_frontends::Dim::Named("w".into()),
    ];
    assert_eq!(
        NgraphPad.output_dims(&n, &dims).unwrap_err().to_string(),
        want
    );
    // One side is enough; crops alone and unpadded axes of one element are fine.
    let n = NgPadNode::new(DType::Float32, "reflect", vec![0, 0], vec![0, 1]);
    assert!(NgraphPad
        .resolve(&n, &[3, 1])
        .unwrap_err()
        .to_string()
        .contains("axis 1 (0 below, 1 above)"));
    let n = NgPadNode::new(
        DType::Float32,
        "REFLECT",
        vec![0, 1, 0, 3],
        vec![0, 1, -1, 3],
    );
    assert_eq!(
        NgraphPad.resolve(&n, &[1, 5, 1, 2]).unwrap().output_shape,
        vec![1, 7, 0, 8]
    );
    // Unknown extents cannot be checked; symmetric and edge of one element pad.
    let n = NgPadNode::new(DType::Float32, "REFLECT", vec![1], vec![1]);
    assert_eq!(NgraphPad.infer_shape(&n, &[None]).unwrap(), vec![None]);
    let x = Tensor::from_slice(&[1], &[7i32]).unwrap();
    for mode in ["SYMMETRIC", "EDGE"] {
        let n = NgPadNode::new(DType::Int32, mode, vec![2], vec![1]);
        let r = NgraphPad.resolve(&n, x.shape()).unwrap();
        assert_eq!(
            common::run(&x, &r.spec).to_vec::<i32>().unwrap(),
            vec![7; 4]
        );
    }
}

#[test]
fn ngraph_reflect_of_two_elements_repeats() {
    // Axes of two or more elements keep repeating the reflection (numpy.pad([1, 2], 5,
    // 'reflect')), as nGraph's backend test pad_reflect_1d_multi_reflect needs.
    let x = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
    let n = NgPadNode::new(DType::Int32, "REFLECT", vec![5], vec![4]);
    let r = NgraphPad.resolve(&n, x.shape()).unwrap();
    assert_eq!(
        common::run(&x, &r.spec).to_vec::<i32>().unwrap(),
        vec![2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]
    );
}
