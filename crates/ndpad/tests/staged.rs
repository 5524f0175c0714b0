//! Rows written around the cache (through the staging buffer: interior padding's
//! interleaved rows, whole rows of the constant; built in registers: rows with
//! blended ends; long rows between runs of the constant, streamed from both) equal
//! the reference at every element size, every start of the output within a cache
//! line, and on both sides of the staged pieces' boundaries.

use ndpad::{
    pad_into, reference, AxisPad, DType, Mode, PadOptions, PadSpec, Tensor, TensorViewMut,
};

fn input(dtype: DType, shape: &[usize]) -> Tensor {
    let width = dtype.byte_len(1).unwrap();
    let n: usize = shape.iter().product();
    let bytes = (0..n * width)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[1] | 1)
        .collect();
    Tensor::from_bytes(dtype, shape, bytes).unwrap()
}

#[test]
fn staged_rows_equal_the_reference() {
    let types = [
        DType::Uint8,
        DType::Float16,
        DType::Float32,
        DType::Float64,
        DType::Complex128,
    ];
    for dtype in types {
        let width = dtype.byte_len(1).unwrap();
        // Rows of 700 to 2600 elements: from under to several 4 KiB pieces, both
        // parities of the data's first position.
        for (cols, begin) in [(700usize, 1i64), (1031, 0), (1300, 2), (2600, 3)] {
            let x = input(dtype, &[3, cols]);
            let spec = PadSpec::new(
                vec![
                    AxisPad {
                        begin: 1,
                        end: 2,
                        interior: 1,
                    },
                    AxisPad {
                        begin,
                        end: 2,
                        interior: 1,
                    },
                ],
                Mode::Constant(Some(ndpad::Scalar::from_bits(dtype, 0x5a).unwrap())),
            );
            let what = format!("{dtype:?} {cols} cols, begin {begin}");
            equals_reference_around_cache(&x, &spec, (0..64).step_by(width.max(8)), &what);
        }
    }
}

/// Rows padded a few elements at each end in every mode, of a line to 2 KiB (and rows
/// of the constant between them): written around the cache half-line by half-line,
/// the rows' ends moved into place in registers where an output starts on a 4-byte
/// boundary, they equal the reference at every element size, at every start within a
/// line, with one thread and two.
#[test]
fn seamed_rows_equal_the_reference() {
    let modes = [Mode::Reflect, Mode::Symmetric, Mode::Edge, Mode::Wrap];
    // (type, columns, pads at each end): output rows of 68, 132, 136, 248, 472 and
    // 2048 bytes, and of 66 (not whole words).
    let cases = [
        (DType::Uint8, 62, (3, 3)),
        (DType::Uint8, 62, (3, 1)),
        (DType::Float16, 62, (1, 3)),
        (DType::Float16, 32, (1, 0)),
        (DType::Float32, 56, (3, 3)),
        (DType::Float32, 112, (3, 3)),
        (DType::Float32, 510, (1, 1)),
        (DType::Float64, 16, (1, 0)),
    ];
    for (dtype, cols, (begin, end)) in cases {
        let constant = Mode::Constant(Some(ndpad::Scalar::from_bits(dtype, 0x5a).unwrap()));
        for mode in modes.iter().cloned().chain([constant]) {
            let width = dtype.byte_len(1).unwrap();
            let out_row = (cols + begin + end) * width;
            // Planes of 8 KiB and more, outputs of 64 KiB and more.
            let rows = (9000 / out_row).max(40);
            let planes = (70_000 / (rows * out_row)).max(2) + 1;
            let x = input(dtype, &[planes, rows, cols]);
            let pad = |b: usize, e: usize| AxisPad {
                begin: b as i64,
                end: e as i64,
                interior: 0,
            };
            let spec = PadSpec::new(vec![pad(0, 0), pad(2, 3), pad(begin, end)], mode.clone());
            let skips = (0..64).step_by(4).chain([2, 63]);
            let what = format!("{dtype:?} {mode:?} {cols} cols");
            equals_reference_around_cache(&x, &spec, skips, &what);
        }
    }
}

/// Rows over 2 KiB between runs of the constant (a letterboxed image; a copy under
/// two lines among them), their whole lines streamed from the constant and the
/// input, rows of the constant between such rows, and the long runs of a 1-D pad
/// equal the reference for the constant zero and not, at any start within a line,
/// with one thread and two; the first and last rows read the input's ends.
#[test]
fn framed_rows_equal_the_reference() {
    // (type, shape, pads (begin, end) per axis): output rows of 4203, 2812 and
    // 2480 bytes (the last a copy of 80 bytes); rows of 3188 bytes, each a crop or
    // with ends of a few elements, between rows of the constant; one row, 1-D, of
    // runs of 64 KiB and more.
    type Case = (DType, &'static [usize], &'static [(i64, i64)]);
    let cases: [Case; 7] = [
        (
            DType::Uint8,
            &[2, 30, 800, 3],
            &[(0, 0), (1, 2), (300, 301), (0, 0)],
        ),
        (DType::Float32, &[40, 600], &[(1, 1), (100, 3)]),
        (DType::Float32, &[40, 20], &[(0, 0), (600, 0)]),
        (DType::Float32, &[3, 30, 800], &[(0, 0), (5, 6), (-1, -2)]),
        (DType::Float32, &[3, 30, 800], &[(0, 0), (5, 6), (1, 2)]),
        (DType::Uint8, &[100_000], &[(3000, 5)]),
        (DType::Float32, &[30_000], &[(17_000, 1300)]),
    ];
    for (dtype, shape, pads) in cases {
        let x = input(dtype, shape);
        let constants = [None, Some(ndpad::Scalar::from_bits(dtype, 0x5a).unwrap())];
        for constant in constants {
            let what = format!("{dtype:?} {shape:?} {constant:?}");
            let spec = spec_of(pads, Mode::Constant(constant));
            equals_reference_around_cache(&x, &spec, (0..64).step_by(5), &what);
        }
    }
}

/// A 2-D array of thousands of rows is one tall plane, written by the plane loops
/// (cropped, padded by reflection and with the constant), whole or split between two
/// threads, equal to the reference (`exec::tests::tall_arrays_are_one_plane` checks
/// that the executor makes it one plane).
#[test]
fn tall_planes_equal_the_reference() {
    let x = input(DType::Float32, &[5000, 70]);
    let cases = [
        ([(0, -1), (-2, -3)], Mode::Edge),
        ([(2, 3), (3, 2)], Mode::Reflect),
        (
            [(1, 1), (2, 2)],
            Mode::Constant(Some(
                ndpad::Scalar::from_bits(DType::Float32, 0x5a).unwrap(),
            )),
        ),
    ];
    for (pads, mode) in cases {
        let what = format!("[5000, 70] {pads:?} {mode:?}");
        equals_reference_around_cache(&x, &spec_of(&pads, mode), [0, 28].into_iter(), &what);
    }
}

/// A spec of `(begin, end)` pads per axis, none interior.
fn spec_of(pads: &[(i64, i64)], mode: Mode) -> PadSpec {
    let pads = pads
        .iter()
        .map(|&(begin, end)| AxisPad {
            begin,
            end,
            interior: 0,
        })
        .collect();
    PadSpec::new(pads, mode)
}

/// `x` padded by `spec` into outputs starting `skips` bytes into a line, around the
/// cache however small, with one thread and two, equals the reference, and the bytes
/// around each output are untouched.
fn equals_reference_around_cache(
    x: &Tensor,
    spec: &PadSpec,
    skips: impl Iterator<Item = usize> + Clone,
    what: &str,
) {
    let want = reference::pad(x.view(), spec).unwrap();
    let want = want.bytes().unwrap();
    for threads in [1, 2] {
        let opts = PadOptions {
            threads,
            parallel_threshold: 0,
            // Around the cache, however small.
            stream_min_bytes: 0,
            ..PadOptions::default()
        };
        for skip in skips.clone() {
            let mut buf = vec![0xEEu8; want.len() + 64];
            let (out_bytes, _) = buf[skip..].split_at_mut(want.len());
            let mut out =
                TensorViewMut::from_bytes(x.dtype(), &want_shape(x, spec), out_bytes).unwrap();
            pad_into(x.view(), spec, &mut out, &opts).unwrap();
            let what = format!("{what}, start +{skip}, {threads} threads");
            assert!(&buf[skip..skip + want.len()] == want, "{what}");
            assert!(
                buf[..skip].iter().all(|&b| b == 0xEE),
                "wrote before: {what}"
            );
            let after = &buf[skip + want.len()..];
            assert!(after.iter().all(|&b| b == 0xEE), "wrote after: {what}");
        }
    }
}

fn want_shape(x: &Tensor, spec: &PadSpec) -> Vec<usize> {
    ndpad::output_shape(x.shape(), spec).unwrap()
}

/// The benchmarks' non-temporal copy: every length and alignment copied exactly, the
/// bytes around the destination untouched, other lengths refused.
#[test]
fn copy_around_cache_copies_exactly() {
    let src: Vec<u8> = (0..700u32).map(|i| (i * 31 % 251) as u8).collect();
    for len in [0usize, 1, 15, 63, 64, 65, 127, 128, 200, 511] {
        for (s_off, d_off) in [(0usize, 0usize), (1, 0), (0, 7), (13, 33), (64, 1)] {
            let mut dst = vec![0xEEu8; 700];
            let from = &src[s_off..s_off + len];
            assert!(ndpad::copy_around_cache(&mut dst[d_off..d_off + len], from));
            assert_eq!(&dst[d_off..d_off + len], from, "{len} {s_off} {d_off}");
            assert!(dst[..d_off].iter().all(|&b| b == 0xEE));
            assert!(dst[d_off + len..].iter().all(|&b| b == 0xEE));
        }
    }
    let mut dst = vec![0u8; 10];
    assert!(!ndpad::copy_around_cache(&mut dst, &src[..11]));
    assert!(dst.iter().all(|&b| b == 0));
}
