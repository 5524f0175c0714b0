//! Every error of the core, with its message.

use ndpad::{
    output_dim, output_shape, pad, pad_into, pad_with, AxisPad, DType, Mode, NegativePads,
    Oversize, PadOptions, PadSpec, Plan, Scalar, Tensor, TensorView, TensorViewMut,
};

fn err(shape: &[usize], spec: &PadSpec) -> String {
    output_shape(shape, spec).unwrap_err().to_string()
}

fn one(begin: i64, end: i64, mode: Mode) -> PadSpec {
    PadSpec::new(vec![AxisPad::new(begin, end)], mode)
}

#[test]
fn shape_errors_name_axis_values_and_limits() {
    assert_eq!(
        err(&[3, 4], &one(1, 1, Mode::Edge)),
        "the pad spec has 1 axis but the tensor has rank 2"
    );
    assert_eq!(
        err(&[3], &one(-2, -2, Mode::Constant(None))),
        "axis 0: pads begin=-2 end=-2 on extent 3 give a negative extent -1"
    );
    assert_eq!(
        err(&[3], &one(i64::MAX, i64::MAX, Mode::Constant(None))),
        "axis 0: extent 9223372036854775807 + 3 + 9223372036854775807 overflows"
    );
    let interior = PadSpec::new(
        vec![AxisPad {
            begin: 0,
            end: 0,
            interior: u64::MAX,
        }],
        Mode::Constant(None),
    );
    assert_eq!(
        err(&[usize::MAX], &interior),
        "axis 0: interior padding 18446744073709551615 of 18446744073709551615 elements overflows"
    );
    let interior_edge = PadSpec::new(
        vec![AxisPad {
            begin: 0,
            end: 0,
            interior: 2,
        }],
        Mode::Edge,
    );
    assert_eq!(
        err(&[3], &interior_edge),
        "axis 0: interior padding 2 is only defined for constant mode, not edge"
    );
    assert_eq!(
        err(&[0], &one(1, 0, Mode::Wrap)),
        "axis 0: wrap padding needs data to read from, but the axis has 0 elements"
    );
    assert_eq!(
        err(&[2], &one(-2, 1, Mode::Edge)),
        "axis 0: edge padding needs data to read from, but the axis has 0 elements after cropping begin=-2 end=1 from 2"
    );
    assert_eq!(
        err(&[3], &one(0, 4, Mode::Symmetric)),
        "axis 0: end pad 4 exceeds the maximum 3 allowed by symmetric padding of an axis of 3 elements"
    );
    assert_eq!(
        err(&[1], &one(1, 0, Mode::Reflect)),
        "axis 0: begin pad 1 exceeds the maximum 0 allowed by reflect padding of an axis of 1 elements"
    );
    // The same pads are fine when the pattern may repeat, or when clamping.
    assert_eq!(
        output_shape(
            &[1],
            &one(1, 0, Mode::Reflect).with_oversize(Oversize::Repeat)
        )
        .unwrap(),
        vec![2]
    );
    let clamp = one(-2, -2, Mode::Constant(None)).with_clamp_negative_extent(true);
    assert_eq!(output_shape(&[3], &clamp).unwrap(), vec![0]);
    // OriginalIndex checks the uncropped extent.
    let ov = one(-3, 3, Mode::Reflect).with_negative(NegativePads::OriginalIndex);
    assert_eq!(
        err(&[3], &ov),
        "axis 0: end pad 3 exceeds the maximum 2 allowed by reflect padding of an axis of 3 elements"
    );
    // Unknown extents: only what does not depend on them is checked.
    assert_eq!(
        output_dim(0, None, &AxisPad::new(5, -9), &one(5, -9, Mode::Edge)).unwrap(),
        None
    );
    assert!(output_dim(
        0,
        None,
        &AxisPad {
            begin: 0,
            end: 0,
            interior: 1
        },
        &interior_edge
    )
    .is_err());
}

#[test]
fn value_and_buffer_errors() {
    let x = Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap();
    let spec = one(1, 0, Mode::Constant(Some(Scalar::from(1.0f64))));
    assert_eq!(
        pad(x.view(), &spec).unwrap_err().to_string(),
        "the pad value is of type float64 but the tensor is float32"
    );
    assert_eq!(
        TensorView::from_bytes(DType::Float32, &[3], &[0u8; 8])
            .unwrap_err()
            .to_string(),
        "a float32 tensor of shape [3] needs 12 bytes but 8 were given"
    );
    assert_eq!(
        TensorView::from_bytes(DType::String, &[1], &[0u8; 8])
            .unwrap_err()
            .to_string(),
        "string elements are held as strings, not as bytes"
    );
    assert_eq!(
        TensorView::from_bytes(DType::Uint8, &[usize::MAX, 2], &[])
            .unwrap_err()
            .to_string(),
        format!(
            "shape [{}, 2] has more elements than fit in memory",
            usize::MAX
        )
    );
    let mut buf = [0u8; 8];
    let mut out = TensorViewMut::from_bytes(DType::Float32, &[2], &mut buf).unwrap();
    assert_eq!(
        pad_into(
            x.view(),
            &one(1, 0, Mode::Edge),
            &mut out,
            &PadOptions::default()
        )
        .unwrap_err()
        .to_string(),
        "the output buffer is float32 of shape [2] but the padded result is float32 of shape [3]"
    );
    let plan = Plan::new(DType::Float32, &[3], &one(0, 0, Mode::Edge)).unwrap();
    assert_eq!(
        plan.execute(x.view(), &mut out, &PadOptions::default())
            .unwrap_err()
            .to_string(),
        "the input is float32 of shape [2] but the plan was made for float32 of shape [3]"
    );
}

#[test]
fn giant_outputs_are_errors_not_allocations() {
    let x = Tensor::from_slice(&[2], &[1u8, 2]).unwrap();
    // Over the caller's limit: refused before anything is allocated.
    let limited = PadOptions {
        max_output_bytes: Some(1 << 20),
        ..PadOptions::default()
    };
    let spec = one(1 << 40, 0, Mode::Constant(None));
    assert_eq!(
        pad_with(x.view(), &spec, &limited).unwrap_err().to_string(),
        "the output of shape [1099511627778] needs 1099511627778 bytes (1 TiB), over the limit of 1048576 bytes (1 MiB)"
    );
    // No limit: the allocator refuses 2^60 bytes and ndpad says so.
    let spec = one(1 << 60, 0, Mode::Constant(None));
    let e = pad_with(x.view(), &spec, &PadOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "cannot allocate 1152921504606846978 bytes (1 EiB) for the output of shape [1152921504606846978]"
    );
    // A short axis repeated by a huge pad is tiled (one period planned): the plan is
    // small, the output is what cannot be allocated.
    let spec = one(1 << 40, 0, Mode::Wrap).with_oversize(Oversize::Repeat);
    let plan = Plan::new(DType::Uint8, &[2], &spec).unwrap();
    assert!(plan.axes()[0].segs.is_empty(), "tiled");
    let x = Tensor::from_slice(&[2], &[1u8, 2]).unwrap();
    assert_eq!(
        pad_with(x.view(), &spec, &PadOptions::default())
            .unwrap_err()
            .to_string(),
        "cannot allocate 1099511627778 bytes (1 TiB) for the output of shape [1099511627778]"
    );
    // Sub-byte types are not tiled: their runs are listed, and too many are refused.
    assert_eq!(
        Plan::new(DType::Int4, &[2], &spec).unwrap_err().to_string(),
        "axis 0: an output extent of 1099511627778 needs more than 4194304 runs of the input (a short axis repeated by a very large pad)"
    );
}

#[test]
fn output_limit_counts_shared_text_and_packed_bytes() {
    // One 1 MiB string repeated 201 times by an edge pad: the output holds its text
    // once, 16 bytes an element beside it, and the constant's text ("", unused).
    let x = Tensor::from_strings(&[1], vec!["x".repeat(1 << 20)]).unwrap();
    let limited = PadOptions {
        max_output_bytes: Some(100 << 10),
        ..PadOptions::default()
    };
    let e = pad_with(x.view(), &one(200, 0, Mode::Edge), &limited)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "the output of shape [201] needs 1051792 bytes (1 MiB), over the limit of 102400 bytes (100 KiB)"
    );
    let fits = PadOptions {
        max_output_bytes: Some(1051792),
        ..PadOptions::default()
    };
    let y = pad_with(x.view(), &one(200, 0, Mode::Edge), &fits).unwrap();
    assert_eq!(y.strings().unwrap().text_len(), 1 << 20);
    assert!(y.strings().unwrap().iter().all(|s| s.len() == 1 << 20));
    let tight = PadOptions {
        max_output_bytes: Some(1051791),
        ..PadOptions::default()
    };
    assert!(pad_with(x.view(), &one(200, 0, Mode::Edge), &tight).is_err());
    // int2 padded on its last axis is padded in place, with no working copy: 2000
    // output elements are 500 packed bytes, and that is all the limit counts.
    let x = Tensor::from_bytes(DType::Int2, &[1000], vec![0; 250]).unwrap();
    let spec = one(500, 500, Mode::Constant(None));
    let fits = PadOptions {
        max_output_bytes: Some(500),
        ..PadOptions::default()
    };
    assert_eq!(pad_with(x.view(), &spec, &fits).unwrap().shape(), &[2000]);
    let tight = PadOptions {
        max_output_bytes: Some(499),
        ..PadOptions::default()
    };
    assert_eq!(
        pad_with(x.view(), &spec, &tight).unwrap_err().to_string(),
        "the output of shape [2000] needs 500 bytes, over the limit of 499 bytes"
    );
}
