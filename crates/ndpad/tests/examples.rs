//! Every worked example of ../shared/specs, reproduced on the core API (both the fast
//! kernel and the reference).

use ndpad::{pad, reference, AxisPad, Mode, NegativePads, Oversize, PadSpec, Scalar, Tensor};

fn both(x: &Tensor, spec: &PadSpec) -> Tensor {
    let fast = pad(x.view(), spec).unwrap();
    let slow = reference::pad(x.view(), spec).unwrap();
    assert_eq!(fast, slow, "kernel and reference disagree for {spec:?}");
    fast
}

fn onnx_data() -> Tensor {
    Tensor::from_slice(&[3, 2], &[1.0f32, 1.2, 2.3, 3.4, 4.5, 5.7]).unwrap()
}

/// ONNX pads `[b0, b1, e0, e1]` as a spec. Example 2 reflects 2 elements off an axis
/// of 2, which only the repeating policy (numpy's, the ONNX reference's) can give.
fn onnx_spec(pads: [i64; 4], mode: Mode) -> PadSpec {
    PadSpec::from_begin_end(&pads[..2], &pads[2..], mode)
        .unwrap()
        .with_oversize(Oversize::Repeat)
}

#[test]
fn onnx_example_1_constant() {
    let y = both(
        &onnx_data(),
        &onnx_spec([0, 2, 0, 0], Mode::Constant(Some(Scalar::from(0.0f32)))),
    );
    assert_eq!(y.shape(), &[3, 4]);
    assert_eq!(
        y.to_vec::<f32>().unwrap(),
        vec![0.0, 0.0, 1.0, 1.2, 0.0, 0.0, 2.3, 3.4, 0.0, 0.0, 4.5, 5.7]
    );
}

#[test]
fn onnx_example_2_reflect() {
    let y = both(&onnx_data(), &onnx_spec([0, 2, 0, 0], Mode::Reflect));
    // ONNX Runtime's policy (Oversize::Error) refuses this example.
    let strict = onnx_spec([0, 2, 0, 0], Mode::Reflect).with_oversize(Oversize::Error);
    assert!(pad(onnx_data().view(), &strict)
        .unwrap_err()
        .to_string()
        .contains("begin pad 2 exceeds the maximum 1"));
    assert_eq!(y.shape(), &[3, 4]);
    assert_eq!(
        y.to_vec::<f32>().unwrap(),
        vec![1.0, 1.2, 1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7, 4.5, 5.7]
    );
}

#[test]
fn onnx_example_3_edge() {
    let y = both(&onnx_data(), &onnx_spec([0, 2, 0, 0], Mode::Edge));
    assert_eq!(
        y.to_vec::<f32>().unwrap(),
        vec![1.0, 1.0, 1.0, 1.2, 2.3, 2.3, 2.3, 3.4, 4.5, 4.5, 4.5, 5.7]
    );
}

#[test]
fn onnx_example_4_wrap() {
    let y = both(&onnx_data(), &onnx_spec([2, 1, 1, 1], Mode::Wrap));
    assert_eq!(y.shape(), &[6, 4]);
    let row_a = [3.4, 2.3, 3.4, 2.3];
    let row_b = [5.7, 4.5, 5.7, 4.5];
    let row_c = [1.2, 1.0, 1.2, 1.0];
    let want: Vec<f32> = [row_a, row_b, row_c, row_a, row_b, row_c].concat();
    assert_eq!(y.to_vec::<f32>().unwrap(), want);
}

#[test]
fn ngraph_interior_example_with_42() {
    let x = Tensor::from_slice(&[3, 3], &[1i32, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
    let spec = PadSpec::new(
        vec![
            AxisPad {
                begin: 1,
                end: 1,
                interior: 1,
            },
            AxisPad {
                begin: 2,
                end: 0,
                interior: 2,
            },
        ],
        Mode::Constant(Some(Scalar::from(42i32))),
    );
    let y = both(&x, &spec);
    assert_eq!(y.shape(), &[7, 9]);
    let f = 42;
    #[rustfmt::skip]
    let want = vec![
        f, f, f, f, f, f, f, f, f,
        f, f, 1, f, f, 2, f, f, 3,
        f, f, f, f, f, f, f, f, f,
        f, f, 4, f, f, 5, f, f, 6,
        f, f, f, f, f, f, f, f, f,
        f, f, 7, f, f, 8, f, f, 9,
        f, f, f, f, f, f, f, f, f,
    ];
    assert_eq!(y.to_vec::<i32>().unwrap(), want);
}

fn ov_data() -> Tensor {
    Tensor::from_slice(&[3, 4], &(1..=12).collect::<Vec<i32>>()).unwrap()
}

/// OpenVINO Pad-12's policies.
fn ov_spec(begin: [i64; 2], end: [i64; 2], mode: Mode) -> PadSpec {
    PadSpec::from_begin_end(&begin, &end, mode)
        .unwrap()
        .with_negative(NegativePads::OriginalIndex)
        .with_clamp_negative_extent(true)
}

fn check_ov(begin: [i64; 2], end: [i64; 2], mode: Mode, shape: [usize; 2], want: &[i32]) {
    let y = both(&ov_data(), &ov_spec(begin, end, mode.clone()));
    assert_eq!(y.shape(), &shape, "{mode}");
    assert_eq!(y.to_vec::<i32>().unwrap(), want, "{mode}");
}

#[test]
fn openvino_positive_pads() {
    let (b, e) = ([0, 1], [2, 3]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Constant(None), [5, 8], &[
        0, 1, 2, 3, 4, 0, 0, 0,
        0, 5, 6, 7, 8, 0, 0, 0,
        0, 9, 10, 11, 12, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Edge, [5, 8], &[
        1, 1, 2, 3, 4, 4, 4, 4,
        5, 5, 6, 7, 8, 8, 8, 8,
        9, 9, 10, 11, 12, 12, 12, 12,
        9, 9, 10, 11, 12, 12, 12, 12,
        9, 9, 10, 11, 12, 12, 12, 12,
    ]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Reflect, [5, 8], &[
        2, 1, 2, 3, 4, 3, 2, 1,
        6, 5, 6, 7, 8, 7, 6, 5,
        10, 9, 10, 11, 12, 11, 10, 9,
        6, 5, 6, 7, 8, 7, 6, 5,
        2, 1, 2, 3, 4, 3, 2, 1,
    ]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Symmetric, [5, 8], &[
        1, 1, 2, 3, 4, 4, 3, 2,
        5, 5, 6, 7, 8, 8, 7, 6,
        9, 9, 10, 11, 12, 12, 11, 10,
        9, 9, 10, 11, 12, 12, 11, 10,
        5, 5, 6, 7, 8, 8, 7, 6,
    ]);
}

#[test]
fn openvino_negative_pads_all_modes() {
    for mode in [
        Mode::Constant(None),
        Mode::Edge,
        Mode::Reflect,
        Mode::Symmetric,
    ] {
        check_ov([-1, -1], [-1, -1], mode, [1, 2], &[6, 7]);
    }
}

#[test]
fn openvino_mixed_pads() {
    let (b, e) = ([2, -1], [-1, 3]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Constant(None), [4, 6], &[
        0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0,
        2, 3, 4, 0, 0, 0,
        6, 7, 8, 0, 0, 0,
    ]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Edge, [4, 6], &[
        2, 3, 4, 4, 4, 4,
        2, 3, 4, 4, 4, 4,
        2, 3, 4, 4, 4, 4,
        6, 7, 8, 8, 8, 8,
    ]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Reflect, [4, 6], &[
        10, 11, 12, 11, 10, 9,
        6, 7, 8, 7, 6, 5,
        2, 3, 4, 3, 2, 1,
        6, 7, 8, 7, 6, 5,
    ]);
    #[rustfmt::skip]
    check_ov(b, e, Mode::Symmetric, [4, 6], &[
        6, 7, 8, 8, 7, 6,
        2, 3, 4, 4, 3, 2,
        2, 3, 4, 4, 3, 2,
        6, 7, 8, 8, 7, 6,
    ]);
}

#[test]
fn openvino_shape_examples() {
    let shape = |input: &[usize], b: &[i64], e: &[i64]| {
        let spec = PadSpec::from_begin_end(b, e, Mode::Constant(None))
            .unwrap()
            .with_negative(NegativePads::OriginalIndex)
            .with_clamp_negative_extent(true);
        ndpad::output_shape(input, &spec).unwrap()
    };
    assert_eq!(
        shape(&[1, 3, 32, 40], &[0, 5, 2, 1], &[1, 0, 3, 7]),
        vec![2, 8, 37, 48]
    );
    assert_eq!(
        shape(&[2, 3, 32, 40], &[0, -2, -8, 1], &[-1, 4, -6, 7]),
        vec![1, 5, 18, 48]
    );
    // The output extent is max(begin + d + end, 0).
    assert_eq!(shape(&[3], &[-2], &[-5]), vec![0]);
}

#[test]
fn peer_behaviour_crop_first_vs_original_index() {
    let x = ov_data();
    // ONNX Runtime: wrap [0,-1,0,2] crops first -> rows [2,3,4,2,3].
    let crop = PadSpec::from_begin_end(&[0, -1], &[0, 2], Mode::Wrap)
        .unwrap()
        .with_oversize(Oversize::Repeat);
    let y = both(&x, &crop);
    assert_eq!(&y.to_vec::<i32>().unwrap()[..5], &[2, 3, 4, 2, 3]);
    // OpenVINO: reflect [0,-2,0,3] on the uncropped data -> rows [3,4,3,2,1].
    let ov = ov_spec([0, -2], [0, 3], Mode::Reflect);
    assert_eq!(
        &both(&x, &ov).to_vec::<i32>().unwrap()[..5],
        &[3, 4, 3, 2, 1]
    );
    // ... and edge [0,-4,0,2] -> [4,4].
    let ov = ov_spec([0, -4], [0, 2], Mode::Edge);
    assert_eq!(&both(&x, &ov).to_vec::<i32>().unwrap()[..2], &[4, 4]);
    // ONNX Runtime rejects reflect [0,-2,0,3]: the cropped axis is too short.
    let err = pad(
        x.view(),
        &PadSpec::from_begin_end(&[0, -2], &[0, 3], Mode::Reflect).unwrap(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "axis 1: end pad 3 exceeds the maximum 1 allowed by reflect padding of an axis of 2 elements"
    );
}

#[test]
fn numpy_repeats_oversized_reflect() {
    let x = Tensor::from_slice(&[3], &[1i64, 2, 3]).unwrap();
    let spec =
        PadSpec::new(vec![AxisPad::new(3, 0)], Mode::Reflect).with_oversize(Oversize::Repeat);
    assert_eq!(
        both(&x, &spec).to_vec::<i64>().unwrap(),
        vec![2, 3, 2, 1, 2, 3]
    );
}
