//! Inputs the fuzzers found (see docs/fuzzing.md), kept as tests.

use ndpad::{
    pad, pad_with, reference, AxisPad, Mode, NegativePads, Oversize, PadOptions, PadSpec, Tensor,
};

/// F1: an interior pad of u64::MAX on an axis of 0 or 1 elements inserts nothing
/// (there is no pair of neighbours); the kernel once overflowed computing `gap + 1`.
#[test]
fn huge_interior_on_a_one_element_axis() {
    let x = Tensor::from_slice(&[1], &[7u8]).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad {
            begin: 0,
            end: 0,
            interior: u64::MAX,
        }],
        Mode::Constant(None),
    );
    assert_eq!(pad(x.view(), &spec).unwrap(), x);
    assert_eq!(reference::pad(x.view(), &spec).unwrap(), x);
    let empty = Tensor::from_slice::<u8>(&[0], &[]).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad {
            begin: 1,
            end: 0,
            interior: u64::MAX,
        }],
        Mode::Constant(None),
    );
    assert_eq!(
        pad(empty.view(), &spec).unwrap().to_vec::<u8>().unwrap(),
        vec![0]
    );
}

/// R1: the reference once built interior-padded lists before cropping them.
#[test]
fn reference_crops_huge_interior_padding_without_building_it() {
    let x = Tensor::from_slice(&[2], &[1u8, 2]).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad {
            begin: -(1 << 40),
            end: 0,
            interior: 1 << 40,
        }],
        Mode::Constant(None),
    );
    let want = pad(x.view(), &spec).unwrap();
    assert_eq!(want.to_vec::<u8>().unwrap(), vec![0, 2]);
    assert_eq!(reference::pad(x.view(), &spec).unwrap(), want);
    // ... and lists for an empty output.
    let e = Tensor::from_slice::<u8>(&[0, 1], &[]).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad::new(0, 0), AxisPad::new(0, 1 << 40)],
        Mode::Constant(None),
    );
    assert_eq!(
        reference::pad(e.view(), &spec).unwrap().shape(),
        &[0, (1 << 40) + 1]
    );
}

/// R2: the reference once walked far coordinates back one period at a time.
#[test]
fn reference_folds_far_coordinates_quickly() {
    let x = Tensor::from_slice(&[2], &[1u8, 2]).unwrap();
    let spec = PadSpec::new(vec![AxisPad::new(-(1 << 50), (1 << 50) + 1)], Mode::Wrap)
        .with_negative(NegativePads::OriginalIndex)
        .with_oversize(Oversize::Repeat);
    let want = pad_with(x.view(), &spec, &PadOptions::single_threaded()).unwrap();
    assert_eq!(want.to_vec::<u8>().unwrap(), vec![1, 2, 1]);
    assert_eq!(reference::pad(x.view(), &spec).unwrap(), want);
}

/// The reference refuses outputs beyond its limit instead of allocating them.
#[test]
fn reference_is_bounded() {
    let x = Tensor::from_slice(&[1], &[1u8]).unwrap();
    let spec = PadSpec::new(vec![AxisPad::new(1 << 30, 0)], Mode::Constant(None));
    let e = reference::pad(x.view(), &spec).unwrap_err().to_string();
    assert_eq!(e, "the output of shape [1073741825] needs 1073741825 bytes (1 GiB), over the limit of 268435456 bytes (256 MiB)");
}

/// R3: a thread count far beyond any machine's is capped (at 1024) on every path;
/// the packed bit-range path once took it as given.
#[test]
fn absurd_thread_counts_are_capped() {
    let opts = PadOptions {
        threads: usize::MAX,
        parallel_threshold: 0,
        ..PadOptions::default()
    };
    let spec = PadSpec::new(
        vec![AxisPad::new(1, 0), AxisPad::new(0, 1)],
        Mode::Constant(None),
    );
    let int4 = Tensor::from_bytes(ndpad::DType::Int4, &[3, 5], vec![0x21; 8]).unwrap();
    let f32s = Tensor::from_slice(&[3, 5], &[1.5f32; 15]).unwrap();
    for x in [int4, f32s] {
        let want = reference::pad(x.view(), &spec).unwrap();
        assert_eq!(pad_with(x.view(), &spec, &opts).unwrap(), want);
    }
}
