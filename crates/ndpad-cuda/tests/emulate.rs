//! The index maps against the CPU kernel, without a GPU: the host emulation of the
//! gather (same maps, same index arithmetic) at every kernel element width gives the
//! CPU kernel's bytes for random pads of every mode, policy and type.

mod common;

use ndpad::{AxisPad, DType, Mode, PadSpec, Plan, Tensor};
use ndpad_cuda::{emulate, CudaError, GatherPlan, MAX_MAP_ENTRIES};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn emulation_matches_the_cpu_kernel() {
    let valid = AtomicUsize::new(0);
    let multi_lane = AtomicUsize::new(0);
    common::run(3000, |c| {
        let Some(want) = common::cpu(c) else {
            return Ok(());
        };
        valid.fetch_add(1, Ordering::Relaxed);
        let plan = Plan::new(c.dtype, &c.shape, &c.spec).unwrap();
        let gp = GatherPlan::new(&plan).unwrap();
        let widths = common::widths(&gp);
        if widths.len() > 1 {
            multi_lane.fetch_add(1, Ordering::Relaxed);
        }
        prop_assert!(widths.contains(&gp.elem_bytes()));
        for w in widths {
            let got = emulate(&gp, w, &c.input).unwrap();
            prop_assert_eq!(&got, &want, "width {}: {:?}", w, c);
        }
        Ok(())
    });
    // Most random specs are valid: the comparison is not vacuous.
    assert!(valid.into_inner() > 1000);
    // Many move several elements at a time (units of several elements).
    let multi_lane = multi_lane.into_inner();
    assert!(multi_lane > 200, "{multi_lane}");
}

#[test]
fn tiled_plans_keep_their_full_maps() {
    // A short axis repeated very many times: the CPU plan tiles it, the maps do not.
    let x = Tensor::from_slice(&[2, 3], &[1u16, 2, 3, 4, 5, 6]).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad::new(0, 0), AxisPad::new(0, 3_000_000)],
        Mode::Wrap,
    )
    .with_oversize(ndpad::Oversize::Repeat);
    let plan = Plan::new(DType::Uint16, &[2, 3], &spec).unwrap();
    let gp = GatherPlan::new(&plan).unwrap();
    let want = ndpad::pad(x.view(), &spec).unwrap();
    let got = emulate(&gp, 2, x.bytes().unwrap()).unwrap();
    assert!(got == want.bytes().unwrap());
}

#[test]
fn pytorch_139333_shape() {
    // [1, 65540, 2] reflect (0, 1) on the last axis: 65540 rows, more than a grid's y.
    let n = 65540 * 2;
    let vals: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let x = Tensor::from_slice(&[1, 65540, 2], &vals).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad::new(0, 0), AxisPad::new(0, 0), AxisPad::new(0, 1)],
        Mode::Reflect,
    );
    let plan = Plan::new(DType::Float32, x.shape(), &spec).unwrap();
    let gp = GatherPlan::new(&plan).unwrap();
    assert_eq!(gp.unit(), 1);
    // The two axes left alone fuse into one.
    assert_eq!(gp.dims(), &[65540, 3]);
    let got = emulate(&gp, 4, x.bytes().unwrap()).unwrap();
    assert!(got == ndpad::pad(x.view(), &spec).unwrap().bytes().unwrap());
}

#[test]
fn packed_types_round_trip_bit_exact() {
    // int4 [3, 5] (odd rows: rows do not start on bytes) and uint2 [7].
    for (dtype, shape) in [(DType::Int4, vec![3, 5]), (DType::Uint2, vec![7])] {
        let n: usize = shape.iter().product();
        let input: Vec<u8> = (0..dtype.byte_len(n).unwrap())
            .map(|i| (i * 37 + 11) as u8)
            .collect();
        let mut input = input;
        ndpad::packed::clear_unused_bits(&mut input, dtype.bits(), n);
        for mode in [Mode::Reflect, Mode::Wrap, Mode::Constant(None)] {
            let axes = shape.iter().map(|_| AxisPad::new(2, 1)).collect();
            let spec = PadSpec::new(axes, mode);
            let x = ndpad::TensorView::from_bytes(dtype, &shape, &input).unwrap();
            let want = ndpad::pad(x, &spec).unwrap();
            let gp = GatherPlan::new(&Plan::new(dtype, &shape, &spec).unwrap()).unwrap();
            assert_eq!(gp.packed_bits(), Some(dtype.bits()));
            assert_eq!(emulate(&gp, 1, &input).unwrap(), want.bytes().unwrap());
        }
    }
}

#[test]
fn strings_are_refused_by_name() {
    let spec = PadSpec::new(vec![AxisPad::new(1, 1)], Mode::Edge);
    let plan = Plan::new(DType::String, &[2], &spec).unwrap();
    let e = GatherPlan::new(&plan).unwrap_err();
    assert_eq!(
        e.to_string(),
        "string tensors cannot be padded on the GPU: strings are not fixed-width bytes"
    );
}

#[test]
fn huge_maps_are_refused_before_any_allocation() {
    // 2^31 edge coordinates need a table entry each (only the 3 of the body do not).
    let spec = PadSpec::new(vec![AxisPad::new(0, 1 << 31)], Mode::Edge);
    let plan = Plan::new(DType::Uint8, &[3], &spec).unwrap();
    let e = GatherPlan::new(&plan).unwrap_err();
    assert!(matches!(e, CudaError::MapsTooLarge { .. }));
    assert_eq!(
        e.to_string(),
        format!(
            "the index maps of output shape [2147483651] need 2147483648 entries, over the limit of {MAX_MAP_ENTRIES}"
        )
    );
}

#[test]
fn widths_and_buffers_are_checked() {
    let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(1, 1)], Mode::Edge);
    let plan = Plan::new(DType::Float32, &[2, 3], &spec).unwrap();
    let gp = GatherPlan::new(&plan).unwrap();
    assert_eq!(
        gp.args(2).unwrap_err().to_string(),
        "a kernel element of 2 bytes cannot carry 4-byte elements (widths are 1, 2, 4, 8 or 16 and multiples of the element)"
    );
    assert!(gp.args(3).is_err());
    assert!(
        gp.args(8).is_err(),
        "a unit of one element moves 4 bytes at a time"
    );
    assert_eq!(
        emulate(&gp, 4, &[0; 5]).unwrap_err().to_string(),
        "the input buffer holds 5 bytes but the plan needs 24"
    );
}

#[test]
fn axes_left_alone_fuse_and_too_many_axes_are_refused() {
    // [2, 3, 4, 5, 6] padded on axes 1 and 4: axes 2 and 3 fuse, axis 0 stays alone.
    let spec = PadSpec::new(
        vec![
            AxisPad::new(0, 0),
            AxisPad::new(1, 0),
            AxisPad::new(0, 0),
            AxisPad::new(0, 0),
            AxisPad::new(0, 2),
        ],
        Mode::Wrap,
    );
    let shape = [2usize, 3, 4, 5, 6];
    let gp = GatherPlan::new(&Plan::new(DType::Uint8, &shape, &spec).unwrap()).unwrap();
    assert_eq!(gp.dims(), &[2, 4, 20, 8]);
    let input: Vec<u8> = (0..720).map(|i| (i % 251) as u8).collect();
    let x = ndpad::TensorView::from_bytes(DType::Uint8, &shape, &input).unwrap();
    assert_eq!(
        emulate(&gp, 1, &input).unwrap(),
        ndpad::pad(x, &spec).unwrap().bytes().unwrap()
    );
    // Seventeen padded axes: seventeen gathered axes, one over the limit.
    let spec = PadSpec::new(vec![AxisPad::new(1, 0); 17], Mode::Edge);
    let plan = Plan::new(DType::Uint8, &[1; 17], &spec).unwrap();
    assert_eq!(
        GatherPlan::new(&plan).unwrap_err().to_string(),
        "the pad changes axes so that 17 axes are gathered, over the GPU kernel's limit of 16: pad on the host"
    );
}

#[test]
fn small_units_fold_into_the_innermost_axis() {
    let spec = PadSpec::new(
        vec![AxisPad::new(2, 1), AxisPad::new(1, 3), AxisPad::new(0, 0)],
        Mode::Reflect,
    );
    // Three channels of bytes: moved a byte at a time, folded (no unit to divide by).
    let shape = [4usize, 5, 3];
    let gp = GatherPlan::new(&Plan::new(DType::Uint8, &shape, &spec).unwrap()).unwrap();
    assert_eq!((gp.dims(), gp.unit()), (&[7u64, 27][..], 1));
    let input: Vec<u8> = (0..60).map(|i| i * 3 + 1).collect();
    let x = ndpad::TensorView::from_bytes(DType::Uint8, &shape, &input).unwrap();
    assert_eq!(
        emulate(&gp, 1, &input).unwrap(),
        ndpad::pad(x, &spec).unwrap().bytes().unwrap()
    );
    // Two channels of float32: 8 bytes move at once, the unit stays.
    let shape = [4usize, 5, 2];
    let gp = GatherPlan::new(&Plan::new(DType::Float32, &shape, &spec).unwrap()).unwrap();
    assert_eq!((gp.dims(), gp.unit()), (&[7u64, 9][..], 2));
}
