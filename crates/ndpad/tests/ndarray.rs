//! The `ndarray` feature: arrays of every element type, dimension type and layout.
#![cfg(feature = "ndarray")]

use half::{bf16, f16};
use ndarray::{array, s, Array, ArrayD, Axis, Ix3, IxDyn, ShapeBuilder};
use ndpad::{
    pad, pad_array, pad_array_into, pad_array_with, AxisPad, Element, Mode, PadOptions, PadSpec,
    Tensor,
};

/// ndpad's own result for the same elements in C order.
fn expected<A: Element, D: ndarray::Dimension>(
    x: &ndarray::ArrayView<'_, A, D>,
    spec: &PadSpec,
) -> Vec<A> {
    let elems: Vec<A> = x.iter().copied().collect();
    let t = Tensor::from_slice(x.shape(), &elems).unwrap();
    pad(t.view(), spec).unwrap().to_vec::<A>().unwrap()
}

fn spec3(mode: Mode) -> PadSpec {
    PadSpec::new(
        vec![AxisPad::new(1, 0), AxisPad::new(2, -1), AxisPad::new(0, 3)],
        mode,
    )
    .with_oversize(ndpad::Oversize::Repeat)
}

#[test]
fn every_layout_pads_as_its_c_order_copy() {
    let base = Array::from_shape_fn((4, 5, 6), |(i, j, k)| (i * 100 + j * 10 + k) as i32);
    let fortran = {
        let mut f = Array::<i32, Ix3>::zeros((4, 5, 6).f());
        f.assign(&base);
        f
    };
    let permuted = base.clone().permuted_axes([2, 0, 1]);
    for mode in [
        Mode::Constant(None),
        Mode::Edge,
        Mode::Reflect,
        Mode::Symmetric,
        Mode::Wrap,
    ] {
        let spec = spec3(mode.clone());
        let views = [
            ("standard", base.view()),
            ("fortran", fortran.view()),
            ("strided", base.slice(s![..;2, 1.., ..;3])),
            ("reversed", base.slice(s![..;-1, .., ..;-2])),
            ("permuted", permuted.view()),
        ];
        for (name, v) in views {
            let y = pad_array(&v, &spec).unwrap();
            assert!(y.is_standard_layout(), "{name}");
            assert_eq!(
                y.iter().copied().collect::<Vec<_>>(),
                expected(&v, &spec),
                "{name} {mode:?}"
            );
        }
    }
}

#[test]
fn every_element_type() {
    fn check<A: Element + std::fmt::Debug + PartialEq>(values: [A; 6]) {
        let x = Array::from_shape_vec((2, 3), values.to_vec()).unwrap();
        let spec = PadSpec::new(vec![AxisPad::new(1, 1), AxisPad::new(0, 2)], Mode::Wrap);
        let y = pad_array(&x, &spec).unwrap();
        assert_eq!(y.shape(), &[4, 5]);
        assert_eq!(
            y.iter().copied().collect::<Vec<_>>(),
            expected(&x.view(), &spec)
        );
        // And transposed.
        let t = x.t();
        let spec = PadSpec::new(vec![AxisPad::new(0, 1), AxisPad::new(1, 0)], Mode::Edge);
        let y = pad_array(&t, &spec).unwrap();
        assert_eq!(y.iter().copied().collect::<Vec<_>>(), expected(&t, &spec));
    }
    check([1i8, -2, 3, -4, 5, -6]);
    check([1i16, -2, 3, -4, 5, -6]);
    check([1i32, -2, 3, -4, 5, -6]);
    check([1i64, -2, 3, -4, 5, -6]);
    check([1u8, 2, 3, 4, 5, 6]);
    check([1u16, 2, 3, 4, 5, 6]);
    check([1u32, 2, 3, 4, 5, 6]);
    check([1u64, 2, 3, 4, 5, u64::MAX]);
    check([1.5f32, -2.0, 3.0, 4.0, 5.0, f32::NAN].map(|v| if v.is_nan() { 0.0 } else { v }));
    check([1.5f64, -2.0, 3.0, 4.0, 5.0, 6.25]);
    check([1.5, -2.0, 3.0, 4.0, 5.0, 6.25].map(f16::from_f32));
    check([1.5, -2.0, 3.0, 4.0, 5.0, 6.25].map(bf16::from_f32));
}

#[test]
fn dynamic_dimensions_and_constants() {
    let x: ArrayD<f32> = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad::new(0, 1), AxisPad::new(1, 0)],
        Mode::Constant(Some(9.5f32.into())),
    );
    let y = pad_array(&x, &spec).unwrap();
    assert_eq!(
        y.into_dimensionality::<ndarray::Ix2>().unwrap(),
        array![[9.5, 1.0, 2.0], [9.5, 3.0, 4.0], [9.5, 9.5, 9.5]]
    );
}

#[test]
fn into_views_of_any_layout() {
    let x = array![[1u8, 2, 3], [4, 5, 6]];
    let spec = PadSpec::new(vec![AxisPad::new(1, 0), AxisPad::new(0, 1)], Mode::Reflect);
    let want = pad_array(&x, &spec).unwrap();
    // Standard layout.
    let mut out = Array::<u8, _>::zeros((3, 4));
    pad_array_into(&x, &spec, out.view_mut()).unwrap();
    assert_eq!(out, want);
    // Fortran layout and a strided window.
    let mut f = Array::<u8, _>::zeros((3, 4).f());
    pad_array_into(&x, &spec, f.view_mut()).unwrap();
    assert_eq!(f, want);
    let mut big = Array::<u8, _>::zeros((6, 4));
    pad_array_into(&x.view(), &spec, big.slice_mut(s![..;2, ..])).unwrap();
    assert_eq!(big.select(Axis(0), &[0, 2, 4]), want);
    assert!(big.select(Axis(0), &[1, 3, 5]).iter().all(|&v| v == 0));
}

#[test]
fn errors_name_the_values() {
    let x = array![[1u8, 2, 3]];
    let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(3, 0)], Mode::Reflect);
    assert_eq!(
        pad_array(&x, &spec).unwrap_err().to_string(),
        "axis 1: begin pad 3 exceeds the maximum 2 allowed by reflect padding of an axis of 3 elements"
    );
    let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(1, 0)], Mode::Edge);
    let mut out = Array::<u8, _>::zeros((1, 3));
    assert_eq!(
        pad_array_into(&x, &spec, out.view_mut())
            .unwrap_err()
            .to_string(),
        "the output buffer is uint8 of shape [1, 3] but the padded result is uint8 of shape [1, 4]"
    );
    let opts = PadOptions {
        max_output_bytes: Some(3),
        ..PadOptions::default()
    };
    assert_eq!(
        pad_array_with(&x, &spec, &opts).unwrap_err().to_string(),
        "the output of shape [1, 4] needs 4 bytes, over the limit of 3 bytes"
    );
    let spec = PadSpec::new(vec![AxisPad::new(0, 0)], Mode::Edge);
    assert_eq!(
        pad_array(&x, &spec).unwrap_err().to_string(),
        "the pad spec has 1 axis but the tensor has rank 2"
    );
}

#[test]
fn ndarray_is_re_exported() {
    // Callers need not depend on ndarray 0.17 themselves.
    use ndpad::ndarray::Array2;
    let a = Array2::from_shape_vec((1, 2), vec![1u8, 2]).unwrap();
    let spec = ndpad::PadSpec::new(
        vec![ndpad::AxisPad::new(0, 0), ndpad::AxisPad::new(1, 0)],
        ndpad::Mode::Edge,
    );
    let y = ndpad::pad_array(&a.view(), &spec).unwrap();
    assert_eq!(y.as_slice().unwrap(), &[1, 1, 2]);
}
