//! Fresh outputs of 32 MiB and more come from the output pool: a dropped output's
//! pages serve the next output of that size, holding what the earlier pad wrote, so
//! every element of the reused buffer must be written again (the zero constant too).

use ndpad::{
    pad_into, pad_with, AxisPad, Buffer, DType, Mode, PadOptions, PadSpec, PooledBuffer, Scalar,
    Tensor, TensorViewMut,
};

/// An f32 input whose output, padded by [`spec`], just exceeds the pool's minimum.
fn input(seed: u32) -> Tensor {
    let shape = [6usize, 256, 4096];
    let values: Vec<f32> = (0..shape.iter().product())
        .map(|i: usize| (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) as f32)
        .collect();
    Tensor::from_slice(&shape, &values).unwrap()
}

/// Whole planes and rows of padding (which a zeroed output leaves to the zero pages),
/// and one element on each side of every row.
fn spec(mode: Mode) -> PadSpec {
    PadSpec::new(
        vec![AxisPad::new(1, 1), AxisPad::new(2, 2), AxisPad::new(1, 1)],
        mode,
    )
}

#[test]
fn pooled_outputs_are_written_whole_when_reused() {
    let modes = [
        Mode::Edge,
        Mode::Constant(None),
        Mode::Reflect,
        Mode::Constant(Some(Scalar::from(7.5f32))),
        Mode::Wrap,
    ];
    for threads in [1, 2] {
        let opts = PadOptions {
            threads,
            ..PadOptions::default()
        };
        for (k, mode) in modes.iter().enumerate() {
            let x = input(k as u32 + 17 * threads as u32);
            let spec = spec(mode.clone());
            // Each output is dropped before the next pad, whose output of the same
            // size may take its pages.
            let got = pad_with(x.view(), &spec, &opts).unwrap();
            let Buffer::Bytes(bytes) = got.data() else {
                panic!("an f32 output holds bytes");
            };
            assert!(bytes.len() >= PooledBuffer::MIN_BYTES);
            assert!(bytes.is_pooled(), "a {} byte output is pooled", bytes.len());
            let mut want = vec![0xA5u8; bytes.len()];
            let mut out =
                TensorViewMut::from_bytes(DType::Float32, got.shape(), &mut want).unwrap();
            pad_into(x.view(), &spec, &mut out, &opts).unwrap();
            assert!(**bytes == want[..], "{mode:?} with {threads} threads");
            // A copy, and the bytes as a vector, hold the same elements.
            assert_eq!(got.clone(), got);
            assert_eq!(got.into_parts().2, Buffer::Bytes(want.into()));
        }
    }
}

#[test]
fn small_outputs_are_not_pooled() {
    let x = Tensor::from_slice(&[2, 2], &[1u8, 2, 3, 4]).unwrap();
    let spec = PadSpec::new(vec![AxisPad::new(1, 1); 2], Mode::Edge);
    let got = pad_with(x.view(), &spec, &PadOptions::default()).unwrap();
    let Buffer::Bytes(bytes) = got.data() else {
        panic!("u8 output holds bytes");
    };
    assert!(!bytes.is_pooled());
    assert_eq!(
        bytes.clone().into_vec(),
        vec![1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4]
    );
}
