//! Random pads of every mode, policy and (non-string) type, shared by the host
//! emulation test and the GPU test.

#![allow(dead_code)]

use ndpad::{AxisPad, DType, Layout, Mode, NegativePads, Oversize, PadSpec, Scalar};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// One random pad: a tensor and a spec (which may be invalid for the shape).
#[derive(Clone, Debug)]
pub struct Case {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub spec: PadSpec,
    pub input: Vec<u8>,
}

pub fn fixed_types() -> Vec<DType> {
    DType::ALL
        .into_iter()
        .filter(|d| d.layout() != Layout::Strings)
        .collect()
}

fn scalar(dtype: DType, bits: u128) -> Scalar {
    let width = dtype.bits();
    let mut b = if width >= 128 {
        bits
    } else {
        bits & ((1u128 << width) - 1)
    };
    if dtype == DType::Bool {
        b &= 1;
    }
    Scalar::from_bits(dtype, b).expect("masked to the type's width")
}

pub fn case() -> impl Strategy<Value = Case> {
    let dtype = prop::sample::select(fixed_types());
    let shape = prop::collection::vec(0usize..6, 1..=4);
    (dtype, shape).prop_flat_map(|(dtype, shape)| {
        let rank = shape.len();
        // A third of the axes left as they are, so that trailing ones fuse into units
        // of several elements (moved several at a time).
        let pad = prop_oneof![
            2 => (-4i64..8, -4i64..8, 0u64..3),
            1 => Just((0i64, 0i64, 0u64)),
        ];
        let pads = prop::collection::vec(pad, rank);
        let mode = 0u8..5;
        let policies = (any::<bool>(), any::<bool>(), any::<bool>(), any::<u128>());
        let n: usize = shape.iter().product();
        let bytes = dtype.byte_len(n).expect("small");
        let input = prop::collection::vec(any::<u8>(), bytes);
        (Just(dtype), Just(shape), pads, mode, policies, input).prop_map(
            |(dtype, shape, pads, mode, (orig, repeat, clamp, bits), mut input)| {
                let mode = match mode {
                    0 => Mode::Constant(Some(scalar(dtype, bits))),
                    1 => Mode::Edge,
                    2 => Mode::Reflect,
                    3 => Mode::Symmetric,
                    _ => Mode::Wrap,
                };
                let interior = mode.is_constant();
                let axes = pads
                    .into_iter()
                    .map(|(begin, end, i)| AxisPad {
                        begin,
                        end,
                        interior: if interior { i } else { 0 },
                    })
                    .collect();
                let spec = PadSpec::new(axes, mode)
                    .with_negative(if orig {
                        NegativePads::OriginalIndex
                    } else {
                        NegativePads::CropFirst
                    })
                    .with_oversize(if repeat {
                        Oversize::Repeat
                    } else {
                        Oversize::Error
                    })
                    .with_clamp_negative_extent(clamp);
                if dtype == DType::Bool {
                    input.iter_mut().for_each(|b| *b &= 1);
                }
                Case {
                    dtype,
                    shape,
                    spec,
                    input,
                }
            },
        )
    })
}

/// Runs `check` on `cases` random cases (a fixed seed: the same cases every run).
pub fn run(cases: u32, check: impl Fn(&Case) -> Result<(), TestCaseError>) {
    let config = Config {
        cases,
        failure_persistence: None,
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &[7; 32],
        ),
    );
    if let Err(e) = runner.run(&case(), |c| check(&c)) {
        panic!("{e}");
    }
}

/// The CPU kernel's output bytes, or `None` where the spec is invalid for the shape.
pub fn cpu(c: &Case) -> Option<Vec<u8>> {
    let view = ndpad::TensorView::from_bytes(c.dtype, &c.shape, &c.input).unwrap();
    let out = ndpad::pad(view, &c.spec).ok()?;
    Some(out.bytes().unwrap().to_vec())
}

/// Every kernel element width the plan's unit allows (alignment aside).
pub fn widths(gp: &ndpad_cuda::GatherPlan) -> Vec<usize> {
    ndpad_cuda::WIDTHS
        .into_iter()
        .filter(|&w| gp.args(w).is_ok())
        .collect()
}
