//! Against numpy 2's `numpy.pad(..., reflect_type='odd')` (the expected values were
//! computed by numpy.lib._arraypad_impl.pad), and windows against the whole pad.

#![allow(clippy::single_range_in_vec_init)] // one-axis boxes and regions

use std::ops::Range;

use half::f16;
use ndpad::{DType, Tensor};

use super::*;

type Case<'a> = (&'a [usize], &'a [(usize, usize)]);

fn odd<T: ndpad::Element>(
    shape: &[usize],
    x: &[T],
    widths: &[(usize, usize)],
    mode: Reflection,
) -> Vec<T> {
    let t = Tensor::from_slice(shape, x).unwrap();
    let (y, flags) = pad_odd(t.view(), widths, mode, 1).unwrap();
    assert!(!flags.any());
    y.to_vec::<T>().unwrap()
}

#[test]
fn wide_pads_take_several_rounds() {
    let x = [1i64, 2, 4];
    assert_eq!(
        odd(&[3], &x, &[(10, 7)], Reflection::Reflect),
        [-14, -12, -11, -10, -8, -6, -5, -4, -2, 0, 1, 2, 4, 6, 7, 8, 10, 12, 13, 14]
    );
    assert_eq!(
        odd(&[3], &x, &[(10, 7)], Reflection::Symmetric),
        [-8, -8, -6, -5, -5, -4, -2, -2, 0, 1, 1, 2, 4, 4, 6, 7, 7, 8, 10, 10]
    );
}

#[test]
fn two_and_one_element_axes() {
    let x = [3i32, 5];
    assert_eq!(
        odd(&[2], &x, &[(5, 6)], Reflection::Reflect),
        [-7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17]
    );
    assert_eq!(
        odd(&[2], &x, &[(5, 6)], Reflection::Symmetric),
        [-1, -1, 1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11]
    );
    for mode in [Reflection::Reflect, Reflection::Symmetric] {
        assert_eq!(odd(&[1], &[7i16], &[(2, 3)], mode), [7; 6]);
    }
}

#[test]
fn integers_wrap_around() {
    assert_eq!(
        odd(&[3], &[100i8, 120, -128], &[(4, 4)], Reflection::Reflect),
        [44, 64, 72, 80, 100, 120, -128, -120, -100, -80, -72]
    );
    assert_eq!(
        odd(&[3], &[250u8, 3, 9], &[(3, 5)], Reflection::Symmetric),
        [235, 241, 250, 250, 3, 9, 9, 15, 24, 24, 33]
    );
}

#[test]
fn float16_rounds_each_operation_and_reports_overflow() {
    let x: Vec<f16> = [1.5f32, 3.25, 60000.0, -0.1]
        .iter()
        .map(|&v| f16::from_f32(v))
        .collect();
    let t = Tensor::from_slice(&[4], &x).unwrap();
    let (y, flags) = pad_odd(t.view(), &[(5, 4)], Reflection::Reflect, 1).unwrap();
    let bits: Vec<u16> = y
        .to_vec::<f16>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(
        bits,
        [
            18035, 31571, 16947, 64339, 46080, 15872, 17024, 31571, 44646, 64339, 49894, 48845,
            10816
        ]
    );
    assert!(!flags.any());
    // 2 * 40000 is infinite in float16 (numpy warns of the overflow).
    let x = [f16::from_f32(40000.0), f16::from_f32(1.0)];
    let t = Tensor::from_slice(&[2], &x).unwrap();
    let (y, flags) = pad_odd(t.view(), &[(1, 0)], Reflection::Reflect, 1).unwrap();
    assert_eq!(y.to_vec::<f16>().unwrap()[0], f16::INFINITY);
    let overflow = Exceptions {
        overflow: true,
        invalid: false,
    };
    assert_eq!(
        flags,
        FpFlags {
            multiply: overflow,
            ..FpFlags::NONE
        }
    );
}

#[test]
fn a_signaling_nan_edge_is_invalid() {
    // numpy warns "invalid value encountered in multiply" for 2 * sNaN.
    let snan = f32::from_bits(0x7f80_0001);
    for x in [[snan, 29.5], [29.5, snan]] {
        let t = Tensor::from_slice(&[2], &x).unwrap();
        let (_, flags) = pad_odd(t.view(), &[(1, 1)], Reflection::Reflect, 1).unwrap();
        assert!(flags.multiply.invalid, "{x:?}");
    }
    let t = Tensor::from_slice(&[2], &[snan, 29.5]).unwrap();
    let (_, flags) = pad_odd(t.view(), &[(1, 0)], Reflection::Reflect, 1).unwrap();
    assert!(flags.multiply.invalid, "1-D (1, 0)");
    let t = Tensor::from_slice(&[1, 2], &[snan, 29.5]).unwrap();
    let (_, flags) = pad_odd(t.view(), &[(0, 0), (1, 0)], Reflection::Reflect, 1).unwrap();
    assert!(flags.multiply.invalid);
    let t = Tensor::from_slice(&[2], &[f64::from_bits(0x7ff0_0000_0000_0001), 1.0]).unwrap();
    let (_, flags) = pad_odd(t.view(), &[(1, 0)], Reflection::Symmetric, 1).unwrap();
    assert!(flags.multiply.invalid, "f64");
    let t = Tensor::from_slice(&[2], &[f16::from_bits(0x7c01), f16::ONE]).unwrap();
    let (_, flags) = pad_odd(t.view(), &[(1, 0)], Reflection::Reflect, 1).unwrap();
    assert!(flags.multiply.invalid, "f16");
}

#[test]
fn corners_follow_numpy_axis_order() {
    let x: Vec<i64> = (0..6).map(|v| v * v).collect();
    assert_eq!(
        odd(&[2, 3], &x, &[(3, 2), (4, 3)], Reflection::Reflect),
        [
            37, 20, 5, -10, -27, -44, -59, -74, -91, -108, 22, 11, 2, -7, -18, -29, -38, -47, -58,
            -69, 7, 2, -1, -4, -9, -14, -17, -20, -25, -30, -8, -7, -4, -1, 0, 1, 4, 7, 8, 9, -23,
            -16, -7, 2, 9, 16, 25, 34, 41, 48, -38, -25, -10, 5, 18, 31, 46, 61, 74, 87, -53, -34,
            -13, 8, 27, 46, 67, 88, 107, 126
        ]
    );
    assert_eq!(
        odd(&[2, 3], &x, &[(3, 2), (4, 3)], Reflection::Symmetric),
        [
            -1, -1, -4, -9, -9, -14, -17, -17, -20, -25, -1, -1, -4, -9, -9, -14, -17, -17, -20,
            -25, -4, -4, -1, 0, 0, 1, 4, 4, 7, 8, -4, -4, -1, 0, 0, 1, 4, 4, 7, 8, -7, -7, 2, 9, 9,
            16, 25, 25, 34, 41, -7, -7, 2, 9, 9, 16, 25, 25, 34, 41, -10, -10, 5, 18, 18, 31, 46,
            46, 61, 74
        ]
    );
    let x: Vec<i64> = (0..12).map(|v| v * v % 11).collect();
    assert_eq!(
        odd(
            &[2, 3, 2],
            &x,
            &[(1, 2), (2, 0), (3, 1)],
            Reflection::Reflect
        ),
        [
            -24, -21, -18, -15, -12, -9, 40, 25, 10, -5, -20, -35, -3, -3, -3, -3, -3, -3, -46,
            -31, -16, -1, 14, 29, 18, 15, 12, 9, 6, 3, -17, -13, -9, -5, -1, 3, 5, 2, -1, -4, -7,
            -10, -3, -2, -1, 0, 1, 2, -11, -6, -1, 4, 9, 14, 11, 9, 7, 5, 3, 1, -10, -5, 0, 5, 10,
            15, -30, -21, -12, -3, 6, 15, -3, -1, 1, 3, 5, 7, 24, 19, 14, 9, 4, -1, 4, 3, 2, 1, 0,
            -1, -3, 3, 9, 15, 21, 27, -65, -44, -23, -2, 19, 40, -3, 0, 3, 6, 9, 12, 59, 44, 29,
            14, -1, -16, -3, -3, -3, -3, -3, -3, 4, 11, 18, 25, 32, 39, -100, -67, -34, -1, 32, 65,
            -3, 1, 5, 9, 13, 17, 94, 69, 44, 19, -6, -31, -10, -9, -8, -7, -6, -5
        ]
    );
    let row = odd(
        &[1, 3],
        &[2i64, 9, 4],
        &[(2, 1), (1, 5)],
        Reflection::Reflect,
    );
    assert_eq!(row, [-5, 2, 9, 4, -1, 6, 13, 8, 3].repeat(4));
}

#[test]
fn bool_is_the_truth_of_the_int64_result() {
    let x = [0u8, 1, 0, 0];
    let t = Tensor::from_bytes(DType::Bool, &[4], x.to_vec()).unwrap();
    let (y, _) = pad_odd(t.view(), &[(5, 5)], Reflection::Reflect, 1).unwrap();
    assert_eq!(
        y.bytes().unwrap(),
        [1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0]
    );
}

/// The box `out_box` of an odd pad of `x` (of `shape`) by `widths`, padded from its
/// window of the input alone, and the same box cut out of `full`, the whole pad.
fn window_and_whole<T: ndpad::Element + Copy>(
    (shape, widths, mode): (&[usize], &[(usize, usize)], Reflection),
    x: &[T],
    full: &[T],
    out_box: &[Range<usize>],
) -> (Vec<T>, Vec<T>) {
    let out = odd_output_shape(shape, widths).unwrap();
    let strides = ndpad::index::c_strides(&out, 1).unwrap();
    let ranges = odd_window(shape, widths, out_box).unwrap();
    // The region, cut out of the input.
    let mut region = Vec::new();
    let in_strides = ndpad::index::c_strides(shape, 1).unwrap();
    let extents: Vec<usize> = ranges.iter().map(Range::len).collect();
    ndpad::index::for_each_index(&extents, |i| {
        let at: usize = i
            .iter()
            .zip(&ranges)
            .zip(&in_strides)
            .map(|((i, r), s)| (r.start + i) * s)
            .sum();
        region.push(x[at]);
    });
    let t = Tensor::from_slice(&extents, &region).unwrap();
    let (b, _) = pad_odd_window(t.view(), shape, widths, mode, &ranges, out_box).unwrap();
    let mut expected = Vec::new();
    let box_ext: Vec<usize> = out_box.iter().map(Range::len).collect();
    ndpad::index::for_each_index(&box_ext, |i| {
        let at: usize = i
            .iter()
            .zip(out_box)
            .zip(&strides)
            .map(|((i, r), s)| (r.start + i) * s)
            .sum();
        expected.push(full[at]);
    });
    (b.to_vec::<T>().unwrap(), expected)
}

/// Every box of a few shapes: the window of the whole pad.
#[test]
fn windows_are_boxes_of_the_whole_pad() {
    let cases: &[Case] = &[
        (&[5], &[(7, 3)]),
        (&[2, 3], &[(3, 2), (4, 3)]),
        (&[3, 1, 2], &[(0, 0), (2, 1), (3, 4)]),
        (&[4, 3], &[(0, 0), (2, 0)]),
    ];
    for &(shape, widths) in cases {
        for mode in [Reflection::Reflect, Reflection::Symmetric] {
            let n: usize = shape.iter().product();
            let x: Vec<i32> = (0..n as i32).map(|v| v * v - 3 * v).collect();
            let full = odd(shape, &x, widths, mode);
            let out = odd_output_shape(shape, widths).unwrap();
            // Boxes: each axis split in three ranges.
            let cuts: Vec<Vec<Range<usize>>> = out
                .iter()
                .map(|&d| vec![0..d / 3, d / 3..d - 1, d - 1..d, 1..d])
                .collect();
            let counts: Vec<usize> = cuts.iter().map(Vec::len).collect();
            ndpad::index::for_each_index(&counts, |pick| {
                let out_box: Vec<Range<usize>> =
                    pick.iter().zip(&cuts).map(|(&i, c)| c[i].clone()).collect();
                let (b, expected) = window_and_whole((shape, widths, mode), &x, &full, &out_box);
                assert_eq!(b, expected, "{shape:?} {widths:?} {out_box:?}");
            });
        }
    }
}

/// Small boxes of wide pads (lines 64 times longer than the box and the original):
/// computed along their chains of reflections, a range at a time, the same bits as the
/// whole pad, ints and floats (whose values round at every reflection), boxes at the
/// pads' far ends, inside them, and across the original.
#[test]
fn small_boxes_of_wide_pads_are_the_whole_pads() {
    let cases: &[Case] = &[
        (&[3], &[(700, 500)]),
        (&[2], &[(1000, 0)]),
        (&[1], &[(300, 400)]),
        (&[2, 3], &[(300, 200), (1, 2)]),
        (&[4, 2], &[(1, 0), (150, 390)]),
    ];
    for &(shape, widths) in cases {
        for mode in [Reflection::Reflect, Reflection::Symmetric] {
            let n: usize = shape.iter().product();
            let xi: Vec<i32> = (0..n as i32).map(|v| v * v - 3 * v + 1).collect();
            let xf: Vec<f32> = xi.iter().map(|&v| v as f32 / 3.0).collect();
            let (fi, ff) = (odd(shape, &xi, widths, mode), odd(shape, &xf, widths, mode));
            let out = odd_output_shape(shape, widths).unwrap();
            let cuts: Vec<Vec<Range<usize>>> = out
                .iter()
                .zip(widths)
                .map(|(&d, &(b, _))| {
                    let b = b.max(1);
                    vec![0..2, d / 2..d / 2 + 3, d - 2..d, b - 1..b + 1]
                })
                .collect();
            let counts: Vec<usize> = cuts.iter().map(Vec::len).collect();
            ndpad::index::for_each_index(&counts, |pick| {
                let out_box: Vec<Range<usize>> =
                    pick.iter().zip(&cuts).map(|(&i, c)| c[i].clone()).collect();
                let case = format!("{shape:?} {widths:?} {mode:?} {out_box:?}");
                let (b, expected) = window_and_whole((shape, widths, mode), &xi, &fi, &out_box);
                assert_eq!(b, expected, "{case}");
                let (b, expected) = window_and_whole((shape, widths, mode), &xf, &ff, &out_box);
                let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
                assert_eq!(bits(b), bits(expected), "{case}");
            });
        }
    }
}

#[test]
fn bad_arguments_are_typed_errors() {
    let t = Tensor::from_slice(&[0, 2], &[0i32; 0]).unwrap();
    assert!(matches!(
        pad_odd(t.view(), &[(1, 0), (0, 0)], Reflection::Reflect, 1),
        Err(OddError::EmptyAxis { axis: 0, .. })
    ));
    assert!(matches!(
        pad_odd(t.view(), &[(0, 0), (1, 1)], Reflection::Reflect, 1).map(|(t, _)| t.shape().to_vec()),
        Ok(s) if s == [0, 4]
    ));
    let t = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
    assert!(matches!(
        pad_odd(t.view(), &[(1, 0), (0, 0)], Reflection::Reflect, 1),
        Err(OddError::Rank { .. })
    ));
    assert!(matches!(
        pad_odd(t.view(), &[(usize::MAX, 1)], Reflection::Reflect, 1),
        Err(OddError::Overflow { .. })
    ));
    assert!(matches!(
        odd_window(&[2], &[(1, 1)], &[0..5]),
        Err(OddError::Range { .. })
    ));
    assert!(matches!(
        pad_odd_window(
            t.view(),
            &[4],
            &[(1, 1)],
            Reflection::Reflect,
            &[0..2],
            &[0..2]
        ),
        Err(OddError::Region { .. })
    ));
    // A box at the end of a pad of 2^62, and at its start: a few values of a line
    // of 2^62 (its chains of 62 reflections; padding the line whole allocated it, or
    // failed to). And a symmetric pad whose after-chunk mirrors at usize::MAX (found
    // by the numpy_arith fuzz target: the check of its last read overflowed).
    let two = Tensor::from_slice(&[2], &[1i64, 2]).unwrap();
    let (wide, widest) = (1usize << 62, (1usize << 63) - 2);
    let (reflect, symmetric) = (Reflection::Reflect, Reflection::Symmetric);
    for (widths, mode, out_box, want) in [
        ((wide, 0), reflect, wide - 1..wide + 1, [0, 1]),
        (
            (wide, 0),
            reflect,
            0..2,
            [1 - (1i64 << 62), 2 - (1i64 << 62)],
        ),
        ((widest, 1), symmetric, widest + 1..widest + 3, [2, 2]),
    ] {
        let (y, _) =
            pad_odd_window(two.view(), &[2], &[widths], mode, &[0..2], &[out_box]).unwrap();
        assert_eq!(y.to_vec::<i64>().unwrap(), want);
    }
    let s = Tensor::from_bytes(DType::Float8E4M3FN, &[2], vec![1, 2]).unwrap();
    assert!(matches!(
        pad_odd(s.view(), &[(1, 1)], Reflection::Reflect, 1),
        Err(OddError::UnsupportedType {
            dtype: DType::Float8E4M3FN
        })
    ));
    let mut dst = [0u8; 3];
    assert!(pad_odd_bytes(
        DType::Int16,
        &[1],
        &[(0, 0)],
        Reflection::Reflect,
        &[1, 2],
        &mut dst,
        1,
        None
    )
    .is_err());
    // Rank 0: the array itself.
    let z = Tensor::from_slice(&[], &[5u16]).unwrap();
    assert_eq!(
        pad_odd(z.view(), &[], Reflection::Symmetric, 1)
            .unwrap()
            .0
            .to_vec::<u16>()
            .unwrap(),
        [5]
    );
}

#[test]
fn threads_give_the_same_values() {
    let shape = [70, 40, 30];
    let n: usize = shape.iter().product();
    let x: Vec<f32> = (0..n).map(|v| (v as f32).sin() * 1000.0).collect();
    let widths = [(30, 61), (2, 45), (7, 0)];
    let t = Tensor::from_slice(&shape, &x).unwrap();
    let (one, _) = pad_odd(t.view(), &widths, Reflection::Symmetric, 1).unwrap();
    let (many, _) = pad_odd(t.view(), &widths, Reflection::Symmetric, 4).unwrap();
    assert_eq!(one.bytes().unwrap(), many.bytes().unwrap());
}

#[test]
fn long_pads_ask_the_interrupt_and_stop() {
    use crate::numpy::testing::{assert_stopped_at_first, counting};
    use std::sync::atomic::Ordering;
    // 32 MiB of f32 output, three quarters of it pads: [1024, 2048] padded to
    // [2048, 4096], whole and as a box (the steps' path).
    let shape = [1024usize, 2048];
    let widths = [(512usize, 512usize), (1024, 1024)];
    let x: Vec<f32> = (0..shape[0] * shape[1]).map(|i| (i % 251) as f32).collect();
    let src: &[u8] = bytemuck::cast_slice(&x);
    let all: Vec<Range<usize>> = shape.iter().map(|&n| 0..n).collect();
    for (out_box, len) in [
        (vec![0..2048, 0..4096], 2048 * 4096),
        (vec![0..2048, 1..4095], 2048 * 4094),
    ] {
        for threads in [1, 2] {
            let mut dst = vec![0f32; len];
            let mut plain = vec![0f32; len];
            let (never, asked) = counting(usize::MAX);
            let run = |dst: &mut [f32], interrupt| {
                pad_odd_window_bytes(
                    DType::Float32,
                    &shape,
                    &widths,
                    Reflection::Reflect,
                    &all,
                    src,
                    &out_box,
                    bytemuck::cast_slice_mut(dst),
                    threads,
                    interrupt,
                )
            };
            let r = run(&mut dst, Some(&never));
            assert!(r.is_ok(), "{r:?}");
            // (With two threads the calling thread may have written too little to ask.)
            assert!(
                threads > 1 || asked.load(Ordering::Relaxed) >= 2,
                "{out_box:?}"
            );
            assert!(run(&mut plain, None).is_ok());
            assert!(dst == plain, "{out_box:?} threads {threads}");
            let (stop, asked) = counting(1);
            let r = run(&mut dst, Some(&stop));
            assert!(matches!(r, Ok(_) | Err(OddError::Interrupted)), "{r:?}");
            assert_stopped_at_first(threads, &asked, r.is_err());
        }
    }
}

/// A long chunk of single elements asks the interrupt as it goes, not once for the
/// whole chunk: 2^22 elements reflected by 2^22 - 1 on each side (two chunks of 4M
/// elements), as one line ([2^22]) and as rows of one element ([2^22, 1], its
/// column padded too); and two rows of 2^22 elements reflected by one on each side.
#[test]
fn a_long_chunk_of_single_elements_asks_the_interrupt_as_it_goes() {
    use crate::numpy::testing::counting;
    use std::sync::atomic::Ordering;
    let n = 1usize << 22;
    let x: Vec<f32> = (0..2 * n).map(|i| (i % 251) as f32).collect();
    let src: &[u8] = bytemuck::cast_slice(&x);
    let cases: [(Case<'_>, usize); 3] = [
        ((&[n], &[(n - 1, n - 1)]), 4),
        ((&[n, 1], &[(n - 1, n - 1), (1, 1)]), 4),
        // Two rows of 4M elements written (48 MiB touched each: two asks when a row
        // was a tick).
        ((&[2, n], &[(1, 1), (0, 0)]), 5),
    ];
    for ((shape, widths), least) in cases {
        let src = &src[..shape.iter().product::<usize>() * 4];
        let len = odd_output_shape(shape, widths).unwrap().iter().product();
        let mut dst = vec![0f32; len];
        let mut run = |interrupt| {
            let dst = bytemuck::cast_slice_mut(&mut dst);
            let mode = Reflection::Reflect;
            pad_odd_bytes(DType::Float32, shape, widths, mode, src, dst, 1, interrupt)
        };
        let (never, asked) = counting(usize::MAX);
        let r = run(Some(&never));
        assert!(r.is_ok(), "{r:?}");
        let asks = asked.load(Ordering::Relaxed);
        assert!(asks >= least, "{shape:?}: {asks} asks");
        let (stop, asked) = counting(3);
        assert_eq!(run(Some(&stop)), Err(OddError::Interrupted), "{shape:?}");
        assert_eq!(asked.load(Ordering::Relaxed), 3, "{shape:?}");
    }
}
