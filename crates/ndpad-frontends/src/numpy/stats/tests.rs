//! numpy.pad's statistic modes and ramps against values numpy gave, its corners and
//! its declined cases.

use ndpad::DType;

use super::bytes::fill_stat_bytes;
use super::elem::{Acc, Elem};
use super::ramp::{fill_ramp, pad_ramp};
use super::reduce::{fill_stat, pad_stat, pairwise};
use super::{Outcome, Stat, StatsError};

/// The padded shape.
fn padded(shape: &[usize], pads: &[(usize, usize)]) -> Vec<usize> {
    shape
        .iter()
        .zip(pads)
        .map(|(&n, &(b, a))| b + n + a)
        .collect()
}

fn stat<T: Elem>(
    input: &[T],
    shape: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
) -> (Outcome, Vec<T>) {
    let out_shape = padded(shape, pads);
    let total: usize = out_shape.iter().product();
    let zero: T = bytemuck::Zeroable::zeroed();
    let mut out = vec![zero; total];
    // The input into the middle (C order).
    for (i, &v) in input.iter().enumerate() {
        let mut rest = i;
        let mut offset = 0;
        let mut stride = 1;
        for k in (0..shape.len()).rev() {
            let idx = rest % shape[k];
            rest /= shape[k];
            offset += (idx + pads[k].0) * stride;
            stride *= out_shape[k];
        }
        out[offset] = v;
    }
    let fill = fill_stat(&mut out, shape, pads, lengths, stat, None).unwrap();
    (fill, out)
}

#[test]
fn corners_follow_numpy_axis_after_axis() {
    let (fill, out) = stat(
        &[1i32, 2, 3, 4],
        &[2, 2],
        &[(1, 1); 2],
        &[(None, None); 2],
        Stat::Maximum,
    );
    assert_eq!(fill, Outcome::Done);
    assert_eq!(out, [4, 3, 4, 4, 2, 1, 2, 2, 4, 3, 4, 4, 4, 3, 4, 4]);
    let (fill, out) = stat(
        &[1.0f32, 2.0, 3.0, 4.0],
        &[2, 2],
        &[(1, 2), (2, 1)],
        &[(Some(1), Some(1)); 2],
        Stat::Mean,
    );
    assert_eq!(fill, Outcome::Done);
    let expect = [
        1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0, 3.0, 3.0, 3.0,
        4.0, 4.0, 3.0, 3.0, 3.0, 4.0, 4.0,
    ];
    assert_eq!(out, expect);
}

#[test]
fn integer_means_and_medians_round_half_to_even() {
    let (_, out) = stat(
        &[1i16, 2, 3, 4],
        &[4],
        &[(1, 1)],
        &[(None, None)],
        Stat::Median,
    );
    assert_eq!(out, [2, 1, 2, 3, 4, 2]);
    let (_, out) = stat(&[2u8, 3], &[2], &[(1, 1)], &[(None, None)], Stat::Mean);
    assert_eq!(out, [2, 2, 3, 2]);
    let (_, out) = stat(&[-1i8, -2], &[2], &[(1, 1)], &[(None, None)], Stat::Mean);
    assert_eq!(out, [-2, -1, -2, -2]);
}

/// One-byte integers' medians, counted in bins, are the middle values of the sorted
/// line (their mean rounded half to even where two): signed and unsigned, odd and
/// even lengths, every value, few values, one value.
#[test]
fn one_byte_medians_are_the_sorted_middles() {
    fn check<T: Elem + Ord + Into<i16>>(line: &[T]) {
        let mut sorted = line.to_vec();
        sorted.sort();
        let (n, h) = (line.len(), line.len() / 2);
        let want: i16 = match n % 2 {
            1 => sorted[h].into(),
            _ => {
                let sum = f64::from(sorted[h - 1].into()) + f64::from(sorted[h].into());
                (sum / 2.0).round_ties_even() as i16
            }
        };
        let (_, out) = stat(line, &[n], &[(1, 1)], &[(None, None)], Stat::Median);
        let (first, last): (i16, i16) = (out[0].into(), out[n + 1].into());
        assert_eq!((first, last), (want, want), "{n} values");
    }
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for n in 1..=70 {
        for few in [256, 3, 1] {
            // Every byte, or a few spread out (0, 85, 170), or only 0.
            let bytes: Vec<u8> = (0..n)
                .map(|_| (next() % few * if few == 256 { 1 } else { 85 }) as u8)
                .collect();
            check(&bytes);
            let signed: Vec<i8> = bytes.iter().map(|&b| b as i8).collect();
            check(&signed);
        }
    }
}

#[test]
fn means_sum_pairwise_like_numpy() {
    // numpy: np.mean of 1e8 and 199 ones in float32 is 500000.97 (pairwise sum
    // 1.0000019e8; a sequential sum would stay at 1e8).
    let mut xs = vec![1.0f32; 200];
    xs[0] = 1e8;
    assert_eq!(<f32 as Acc>::ZERO + pairwise(&xs), 1.000_001_9e8);
    let (fill, out) = stat(&xs, &[200], &[(1, 0)], &[(None, None)], Stat::Mean);
    assert_eq!(fill, Outcome::Done);
    assert_eq!(out[0].to_bits(), 1_223_959_583);
    // A mean of -0.0 is +0.0 (numpy adds to its identity, 0.0).
    let (_, out) = stat(&[-0.0f64], &[1], &[(1, 0)], &[(None, None)], Stat::Mean);
    assert!(out[0] == 0.0 && out[0].is_sign_positive());
}

#[test]
fn unspecified_cases_are_declined() {
    let (fill, _) = stat(
        &[-0.0f32, 0.0],
        &[2],
        &[(1, 1)],
        &[(None, None)],
        Stat::Maximum,
    );
    assert!(matches!(fill, Outcome::Declined(_)));
    let nan = f64::from_bits(0x7FF8_0000_0000_0001);
    let (fill, _) = stat(&[1.0, nan], &[2], &[(1, 1)], &[(None, None)], Stat::Minimum);
    assert!(matches!(fill, Outcome::Declined(_)));
    let (fill, out) = stat(
        &[1.0, f64::NAN],
        &[2],
        &[(1, 1)],
        &[(None, None)],
        Stat::Minimum,
    );
    assert_eq!(fill, Outcome::Done);
    assert_eq!(out[0].to_bits(), f64::NAN.to_bits());
    let (fill, _) = stat(&[1i64, 2], &[2], &[(1, 1)], &[(None, None)], Stat::Mean);
    assert!(matches!(fill, Outcome::Declined(_)));
    let (fill, _) = stat(
        &[1u8, 2],
        &[2],
        &[(1, 1)],
        &[(Some(0), None)],
        Stat::Maximum,
    );
    assert!(matches!(fill, Outcome::Declined(_)));
    let (fill, _) = stat(
        &[f32::MAX, f32::MAX],
        &[2],
        &[(1, 1)],
        &[(None, None)],
        Stat::Mean,
    );
    assert!(matches!(fill, Outcome::Declined(_)));
}

#[test]
fn ramps_are_linspace() {
    let mut out = vec![0.0f64; 7];
    out[3] = 1.0;
    out[4] = 2.0;
    let fill = fill_ramp::<f64, f64>(&mut out, &[2], &[(3, 2)], &[(0.0, 5.0)], None).unwrap();
    assert_eq!(fill, Outcome::Done);
    assert_eq!(out, [0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0, 2.0, 3.5, 5.0]);
    let mut out = vec![0u8, 0, 10, 0];
    let fill = fill_ramp::<u8, f64>(&mut out, &[1], &[(2, 1)], &[(-3.0, 0.0)], None).unwrap();
    assert!(
        matches!(fill, Outcome::Declined(_)),
        "uint8 below 0: numpy's cast"
    );
}

/// A deterministic sequence of small values (some equal, some negative).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((x >> 33) % 17) as f32 - 8.0
        })
        .collect()
}

#[test]
fn fused_pads_equal_in_place_fills() {
    // The last two shapes are large enough to be split among threads; the last one
    // into parts of several slabs each.
    let shapes: [&[usize]; 6] = [
        &[5],
        &[3, 4],
        &[2, 1, 9],
        &[2, 3, 1, 4],
        &[3, 200, 500],
        &[40, 100, 70],
    ];
    for ((s, shape), threads) in shapes.iter().enumerate().zip([1, 2, 1, 3, 3, 3]) {
        let pads: Vec<(usize, usize)> = (0..shape.len()).map(|k| (k % 3, 2 - k % 2)).collect();
        fused_equals_fills(shape, &pads, threads, s as u64);
    }
}

/// Integer means summed in integers: the longest span of a mean (8192) of the type's
/// largest or smallest values, or of both, is numpy's `f64` sum divided, along the last
/// axis and the first (taken during the copy, and in its pass on two threads).
#[test]
fn integer_means_of_the_longest_spans_are_f64_sums() {
    fn check<T: Elem<Sum = f64> + std::fmt::Debug + Into<f64>>(lo: T, hi: T) {
        let n = 8192;
        let lines: [Vec<T>; 3] = [
            vec![hi; n],
            vec![lo; n],
            (0..n).map(|i| if i % 3 == 0 { lo } else { hi }).collect(),
        ];
        for line in lines {
            let sum: f64 = line.iter().map(|&x| x.into()).sum();
            let mean = T::mean_of(sum, n).unwrap();
            let mut out = vec![lo; n + 2];
            let r = pad_stat(
                &line,
                &mut out,
                &[n],
                &[(1, 1)],
                &[(None, None)],
                Stat::Mean,
                1,
                None,
            );
            assert_eq!(r, Ok(Outcome::Done));
            assert_eq!((out[0], out[n + 1]), (mean, mean), "{lo:?} {hi:?}");
            // The same values down the first axis of [n, 2].
            let input: Vec<T> = line.iter().flat_map(|&x| [x, x]).collect();
            for threads in [1, 2] {
                let mut out = vec![lo; (n + 2) * 2];
                let (shape, pads) = ([n, 2], [(1, 1), (0, 0)]);
                let lengths = [(None, None); 2];
                let r = pad_stat(
                    &input,
                    &mut out,
                    &shape,
                    &pads,
                    &lengths,
                    Stat::Mean,
                    threads,
                    None,
                );
                assert_eq!(r, Ok(Outcome::Done));
                assert_eq!(out[..2], [mean; 2], "{lo:?} {hi:?} on {threads}");
                assert_eq!(out[(n + 1) * 2..], [mean; 2], "{lo:?} {hi:?} on {threads}");
            }
        }
    }
    check(i8::MIN, i8::MAX);
    check(u8::MIN, u8::MAX);
    check(i16::MIN, i16::MAX);
    check(u16::MIN, u16::MAX);
    check(i32::MIN, i32::MAX);
    check(u32::MIN, u32::MAX);
}

/// The first axis's statistics taken during the copy (one thread, spans of more rows
/// than a pass reads back cheaply) are its pass's, bit for bit, or declined alike:
/// NaNs, signed zeros, infinities and overflowing sums among the values, integers too.
#[test]
fn first_axis_taken_in_the_copy_equals_its_pass() {
    type Case<'a> = (&'a [usize], &'a [(usize, usize)]);
    let cases: [Case; 5] = [
        (&[40, 30], &[(2, 3), (1, 1)]),
        (&[40, 30], &[(0, 2), (0, 0)]),
        (&[30, 5, 6], &[(3, 0), (1, 2), (2, 1)]),
        (&[25, 7, 1, 4], &[(1, 1), (0, 0), (0, 1), (1, 0)]),
        (&[33, 9], &[(4, 0), (0, 3)]),
    ];
    let spans = [
        (None, None),
        (Some(20), Some(30)),
        (Some(17), None),
        (Some(2), Some(25)),
    ];
    let specials = [
        f32::NAN,
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
    ];
    for (c, (shape, pads)) in cases.into_iter().enumerate() {
        let n: usize = shape.iter().product();
        for (v, special) in [None].into_iter().chain(specials.map(Some)).enumerate() {
            let mut input = values(n, (c * 10 + v) as u64);
            if let Some(x) = special {
                // In the first rows, on more than one column (twice on one of them).
                for at in [3, n / shape[0] + 1, 5 * n / shape[0] + 1] {
                    input[at % n] = x;
                }
            }
            let ints: Vec<i32> = input.iter().map(|&x| x.clamp(-1e9, 1e9) as i32).collect();
            // Sums that round: their order shows.
            let fracs: Vec<f32> = input.iter().map(|&x| x * 0.37 + 1000.3).collect();
            for (l, &span) in spans.iter().enumerate() {
                let mut lengths = vec![(None, None); shape.len()];
                lengths[0] = span;
                for st in [Stat::Maximum, Stat::Minimum, Stat::Mean] {
                    let what = format!("{shape:?} {special:?} {l} {st:?}");
                    same_as_pass(&input, shape, pads, &lengths, st, &what);
                    same_as_pass(&ints, shape, pads, &lengths, st, &what);
                    same_as_pass(&fracs, shape, pads, &lengths, st, &what);
                }
            }
        }
    }
}

/// Outputs larger than any cache's share (`Stores::Around`: the copy written around
/// the cache), on one thread (the first axis taken during the copy) and on two.
#[test]
fn large_outputs_equal_in_place_fills() {
    let shape = [2100usize, 2000];
    let pads = [(3usize, 2usize), (2, 3)];
    let input: Vec<f32> = values(shape[0] * shape[1], 3)
        .iter()
        .map(|&x| x * 0.37 + 10.1)
        .collect();
    let cases = [
        (Stat::Maximum, (None, None)),
        (Stat::Mean, (None, None)),
        (Stat::Minimum, (Some(2), Some(2))),
    ];
    for (st, span) in cases {
        let lengths = [span; 2];
        let (fill, expect) = stat(&input, &shape, &pads, &lengths, st);
        assert_eq!(fill, Outcome::Done);
        for threads in [1, 2] {
            let mut out = vec![0f32; expect.len()];
            let r = pad_stat(&input, &mut out, &shape, &pads, &lengths, st, threads, None);
            assert_eq!(r, Ok(Outcome::Done));
            assert!(out == expect, "{st:?} on {threads}");
        }
    }
    let ends = [(1.5, -2.0); 2];
    let (_, mut expect) = stat(&input, &shape, &pads, &[(None, None); 2], Stat::Maximum);
    let fill = fill_ramp::<f32, f64>(&mut expect, &shape, &pads, &ends, None);
    assert_eq!(fill, Ok(Outcome::Done));
    for threads in [1, 2] {
        let mut out = vec![0f32; expect.len()];
        let r = pad_ramp::<f32, f64>(&input, &mut out, &shape, &pads, &ends, threads, None);
        assert_eq!(r, Ok(Outcome::Done));
        assert!(out == expect, "ramp on {threads}");
    }
}

/// `pad_stat` on one thread gives `fill_stat`'s output, or declines where it does.
fn same_as_pass<T: Elem + std::fmt::Debug>(
    input: &[T],
    shape: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    st: Stat,
    what: &str,
) {
    let (fill, expect) = stat(input, shape, pads, lengths, st);
    let mut out = expect.clone();
    out.fill(bytemuck::Zeroable::zeroed());
    let fused = pad_stat(input, &mut out, shape, pads, lengths, st, 1, None).unwrap();
    match fill {
        Outcome::Done => {
            assert_eq!(fused, Outcome::Done, "{what}");
            let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
            assert!(bits(&out) == bits(&expect), "{what}: {out:?} {expect:?}");
        }
        Outcome::Declined(_) => assert!(matches!(fused, Outcome::Declined(_)), "{what}"),
    }
}

/// Last axes without pads: the input area's lines copied as runs of the axes before
/// them, and no line of them padded.
#[test]
fn unpadded_last_axes_are_copied_as_runs() {
    type Case<'a> = (&'a [usize], &'a [(usize, usize)], usize);
    let cases: [Case; 5] = [
        (&[6, 5, 3], &[(2, 1), (1, 2), (0, 0)], 1),
        (&[5, 4, 3, 2], &[(1, 0), (2, 1), (0, 0), (0, 0)], 2),
        (&[4, 3], &[(2, 3), (0, 0)], 1),
        (&[7, 3, 2], &[(0, 0), (0, 0), (0, 0)], 1),
        (&[60, 300, 50], &[(1, 2), (3, 0), (0, 0)], 3),
    ];
    for (s, (shape, pads, threads)) in cases.into_iter().enumerate() {
        fused_equals_fills(shape, pads, threads, s as u64);
    }
}

/// `pad_stat` and `pad_ramp` of the input give the output of `fill_stat` and
/// `fill_ramp` on the copied input.
fn fused_equals_fills(shape: &[usize], pads: &[(usize, usize)], threads: usize, seed: u64) {
    let n: usize = shape.iter().product();
    let input = values(n, seed);
    let lengths: Vec<(Option<usize>, Option<usize>)> =
        (0..shape.len()).map(|k| (Some(k + 1), None)).collect();
    for st in [Stat::Maximum, Stat::Minimum, Stat::Mean, Stat::Median] {
        let (fill, expect) = stat(&input, shape, pads, &lengths, st);
        assert_eq!(fill, Outcome::Done);
        let mut out = vec![f32::NAN; expect.len()];
        let fused = pad_stat(&input, &mut out, shape, pads, &lengths, st, threads, None).unwrap();
        assert_eq!(fused, Outcome::Done);
        assert_eq!(out, expect, "{st:?} {shape:?}");
    }
    for ends in [
        [(1.5, 1.5); 4],
        [(0.0, 2.0), (2.0, 0.0), (1.0, 1.0), (-3.0, 0.25)],
    ] {
        let ends = &ends[..shape.len()];
        let (_, mut expect) = stat(&input, shape, pads, &lengths, Stat::Maximum);
        let fill = fill_ramp::<f32, f64>(&mut expect, shape, pads, ends, None).unwrap();
        assert_eq!(fill, Outcome::Done);
        let mut out = vec![f32::NAN; expect.len()];
        let fused =
            pad_ramp::<f32, f64>(&input, &mut out, shape, pads, ends, threads, None).unwrap();
        assert_eq!(fused, Outcome::Done);
        assert_eq!(out, expect, "ramp {shape:?} {ends:?}");
    }
}

/// numpy computes `edge - end` also on a side without pads, and warns where it
/// overflows: an end value that might overflow there is declined (numpy's own ramps
/// then warn), on an axis of one element too.
#[test]
fn large_end_values_of_sides_without_pads_are_declined() {
    type Case<'a> = (&'a [usize], &'a [(usize, usize)]);
    let cases: [Case; 2] = [
        (&[2, 2], &[(1, 1), (0, 0)]),
        (&[2, 1, 2], &[(1, 0), (0, 0), (0, 1)]),
    ];
    let input = [1.0f32, 2.0, 3.0, 4.0];
    for (shape, pads) in cases {
        let len: usize = padded(shape, pads).iter().product();
        let run = |end: f64, wide: bool| {
            let mut ends = vec![(0.0, 0.0); shape.len()];
            ends[1].1 = end; // axis 1 has no pads
            let mut out = vec![0f32; len];
            let r = match wide {
                true => pad_ramp::<f32, f64>(&input, &mut out, shape, pads, &ends, 1, None),
                false => pad_ramp::<f32, f32>(&input, &mut out, shape, pads, &ends, 1, None),
            };
            r.unwrap()
        };
        // 2^103 and 2^970: half the gap between the two largest values.
        for (end, wide, declined) in [
            (1.0e31, false, false),
            (-1.1e31, false, true),
            (1.1e31, true, false),
            (9.9e291, true, false),
            (-1.0e292, true, true),
        ] {
            let r = run(end, wide);
            assert_eq!(
                matches!(r, Outcome::Declined(_)),
                declined,
                "{shape:?} {end} {r:?}"
            );
        }
    }
}

#[test]
fn a_zero_step_anywhere_switches_the_whole_side() {
    // numpy: the right ramps of [[0.1, 5e-324], [1.0, 0.1]] to 0 (5 wide): 5e-324 / 5
    // is 0, so every line of the side is (j / 5) * delta + 0, also the second,
    // where j * (delta / 5) differs for j = 1, 2, 4.
    let mut out = vec![0.0f64; 2 * 7];
    out[0] = 0.1;
    out[1] = 5e-324;
    out[7] = 1.0;
    out[8] = 0.1;
    let fill = fill_ramp::<f64, f64>(&mut out, &[2, 2], &[(0, 0), (0, 5)], &[(0.0, 0.0); 2], None)
        .unwrap();
    assert_eq!(fill, Outcome::Done);
    let numpy: Vec<f64> = (0..5).rev().map(|j| (j as f64 / 5.0) * 0.1).collect();
    assert_eq!(out[9..14], numpy[..]);
    // numpy.pad: 0.08000000000000002, 0.06, 0.04000000000000001, 0.020000000000000004
    assert_eq!(out[9], 0.080_000_000_000_000_02);
    assert_ne!(out[9], 4.0 * (0.1 / 5.0));
}

/// Ramps along an outer axis take a row of edges at once: an infinite edge or an
/// overflowing ramp anywhere in it is declined (numpy warns of both), a NaN edge is not,
/// and a zero step in it switches the whole side to numpy's other formula.
#[test]
fn a_row_of_outer_ramps_is_checked_whole() {
    let ramp = |edges: [f64; 3], end: f64| {
        let mut out = vec![0.0f64; 3 * 3];
        out[6..].copy_from_slice(&edges);
        fill_ramp::<f64, f64>(
            &mut out,
            &[1, 3],
            &[(2, 0), (0, 0)],
            &[(end, 0.0), (0.0, 0.0)],
            None,
        )
        .map(|fill| (fill, out))
        .unwrap()
    };
    let (fill, _) = ramp([1.0, f64::INFINITY, 2.0], 0.0);
    assert_eq!(fill, Outcome::Declined("an infinite edge"));
    let (fill, _) = ramp([1.0, f64::MAX, 2.0], -f64::MAX);
    assert_eq!(fill, Outcome::Declined("an overflowing ramp"));
    let (fill, out) = ramp([1.0, f64::NAN, 2.0], 0.0);
    assert_eq!(fill, Outcome::Done);
    assert!(out[4].is_nan());
    assert_eq!([out[3], out[5]], [0.5, 1.0]);

    let mut out = vec![0.0f64; 6 * 2];
    out[10] = 5e-324;
    out[11] = 0.1;
    let fill = fill_ramp::<f64, f64>(&mut out, &[1, 2], &[(5, 0), (0, 0)], &[(0.0, 0.0); 2], None)
        .unwrap();
    assert_eq!(fill, Outcome::Done);
    let numpy: Vec<f64> = (0..5).map(|j| (j as f64 / 5.0) * 0.1).collect();
    let column: Vec<f64> = (0..5).map(|j| out[2 * j + 1]).collect();
    assert_eq!(column, numpy);
    assert_ne!(out[9], 4.0 * (0.1 / 5.0));
}

#[test]
fn bad_geometry_is_an_error() {
    let mut out = vec![0.0f32; 5];
    let r = fill_stat(&mut out, &[2], &[(1, 1)], &[(None, None)], Stat::Mean, None);
    assert!(matches!(r, Err(StatsError::Shape(_))));
    let r = fill_stat(
        &mut out,
        &[2, 1],
        &[(1, 1)],
        &[(None, None)],
        Stat::Mean,
        None,
    );
    assert!(matches!(r, Err(StatsError::Shape(_))));
    let mut words = [0u32; 5];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
    let r = fill_stat_bytes(
        DType::Float32,
        &mut bytes[1..17],
        &[2],
        &[(1, 1)],
        &[(None, None)],
        Stat::Mean,
        None,
    );
    assert_eq!(r, Ok(Outcome::Declined("an unaligned buffer")));
}

#[test]
fn an_empty_output_counts_no_ramp() {
    // An empty axis makes the output empty however wide the other pads: the ramp of
    // 2^52 steps is not counted out (found by the numpy_arith fuzz target: 2^55 bytes
    // asked of the allocator, an abort).
    let (shape, pads) = ([0usize, 3], [(0usize, 0usize), (1 << 52, 0)]);
    let ends = [(0.0, 0.0); 2];
    let r = pad_ramp::<f64, f64>(&[], &mut [], &shape, &pads, &ends, 1, None);
    assert_eq!(r, Ok(Outcome::Declined("an empty axis")));
    let r = fill_ramp::<f64, f64>(&mut [], &shape, &pads, &ends, None);
    assert_eq!(r, Ok(Outcome::Declined("an empty axis")));
}

#[test]
fn long_pads_ask_the_interrupt_and_stop() {
    use crate::numpy::testing::{assert_stopped_at_first, counting};
    use std::sync::atomic::Ordering;
    // 64 MiB of f32 output: [2048, 8192] padded by 1 on each side of both axes.
    let shape = [2048usize, 8192];
    let pads = [(1usize, 1usize), (1, 1)];
    let input: Vec<f32> = (0..shape[0] * shape[1]).map(|i| (i % 251) as f32).collect();
    let len = (shape[0] + 2) * (shape[1] + 2);
    let lengths = [(Some(3), Some(3)); 2];
    for threads in [1, 2] {
        let stat = |out: &mut [f32], stat, interrupt| {
            pad_stat(
                &input, out, &shape, &pads, &lengths, stat, threads, interrupt,
            )
        };
        // Never stopping: asked (several times), the result as without an interrupt.
        let (never, asked) = counting(usize::MAX);
        let mut out = vec![0f32; len];
        assert_eq!(stat(&mut out, Stat::Mean, Some(&never)), Ok(Outcome::Done));
        // (With two threads the calling thread may have written too little to ask.)
        assert!(threads > 1 || asked.load(Ordering::Relaxed) >= 2);
        let mut plain = vec![0f32; len];
        assert_eq!(stat(&mut plain, Stat::Mean, None), Ok(Outcome::Done));
        assert!(out == plain, "threads {threads}");
        // Stopping at the first question: interrupted, asked once.
        let (stop, asked) = counting(1);
        let r = stat(&mut out, Stat::Median, Some(&stop));
        assert!(matches!(
            r,
            Ok(Outcome::Done) | Err(StatsError::Interrupted)
        ));
        assert_stopped_at_first(threads, &asked, r.is_err());
        let (stop, asked) = counting(1);
        let ends = [(0.0, 1.0); 2];
        let r = pad_ramp::<f32, f64>(&input, &mut out, &shape, &pads, &ends, threads, Some(&stop));
        assert!(matches!(
            r,
            Ok(Outcome::Done) | Err(StatsError::Interrupted)
        ));
        assert_stopped_at_first(threads, &asked, r.is_err());
    }
    // The first axis taken during the copy (whole spans, one thread) stops as well.
    let mut out = vec![0f32; len];
    let (stop, asked) = counting(1);
    let whole = [(None, None); 2];
    let r = pad_stat(
        &input,
        &mut out,
        &shape,
        &pads,
        &whole,
        Stat::Maximum,
        1,
        Some(&stop),
    );
    assert_eq!(r, Err(StatsError::Interrupted));
    assert_eq!(asked.load(Ordering::Relaxed), 1);
    // In place: the fill walks stop as well (the second question: after some work).
    let (stop, asked) = counting(2);
    let r = fill_stat(
        &mut out,
        &shape,
        &pads,
        &lengths,
        Stat::Maximum,
        Some(&stop),
    );
    assert_eq!(r, Err(StatsError::Interrupted));
    assert_eq!(asked.load(Ordering::Relaxed), 2);
    let (stop, _) = counting(1);
    let r = fill_ramp::<f32, f64>(&mut out, &shape, &pads, &[(0.0, 1.0); 2], Some(&stop));
    assert_eq!(r, Err(StatsError::Interrupted));
    // A small pad (under 16 MiB of work) is never asked.
    let (stop, asked) = counting(1);
    let mut small = vec![0f32; 8];
    let r = fill_stat(
        &mut small,
        &[2, 2],
        &[(1, 1), (0, 0)],
        &[(None, None); 2],
        Stat::Mean,
        Some(&stop),
    );
    assert_eq!(r, Ok(Outcome::Done));
    assert_eq!(asked.load(Ordering::Relaxed), 0);
}

#[test]
fn a_stop_wins_over_a_slab_declined_before_it() {
    use crate::numpy::testing::counting;
    // 64 MiB of f32 output on two threads; the first line's mean is declined (NaNs of
    // two payloads), the interrupt says stop at its first question: interrupted, not
    // declined (declined, Python would redo the pad with numpy and lose the Ctrl-C).
    let shape = [2048usize, 8192];
    let pads = [(1usize, 1usize), (1, 1)];
    let mut input: Vec<f32> = (0..shape[0] * shape[1]).map(|i| (i % 251) as f32).collect();
    input[0] = f32::from_bits(0x7fc0_0001);
    input[1] = f32::from_bits(0x7fc0_0002);
    let mut out = vec![0f32; (shape[0] + 2) * (shape[1] + 2)];
    let lengths = [(None, None); 2];
    let mut mean = |interrupt| {
        pad_stat(
            &input,
            &mut out,
            &shape,
            &pads,
            &lengths,
            Stat::Mean,
            2,
            interrupt,
        )
    };
    let declined = mean(None);
    assert!(matches!(declined, Ok(Outcome::Declined(_))), "{declined:?}");
    let (stop, _) = counting(1);
    assert_eq!(mean(Some(&stop)), Err(StatsError::Interrupted));
}

#[test]
fn threads_clone_a_state_per_part_and_copy_in_past_a_decline() {
    use super::geometry::{copy_in_threads, Geometry, Stores};
    use super::Stop;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    // A state that counts its clones (a ramp's holds its fractions: one a slab kept
    // 256 MiB of copies for a [8192, 8192] pad).
    struct Counted(Arc<AtomicUsize>);
    impl Clone for Counted {
        fn clone(&self) -> Self {
            self.0.fetch_add(1, Ordering::Relaxed);
            Counted(Arc::clone(&self.0))
        }
    }
    // Lines of 4400 bytes: long enough to be written around the cache.
    const W: usize = 1100;
    let shape = [1024usize, W];
    let pads = [(1usize, 1usize), (2, 2)];
    let input: Vec<f32> = (0..shape[0] * shape[1]).map(|i| i as f32).collect();
    let g = Geometry::new(1026 * (W + 4), &shape, &pads).unwrap();
    for stores in [Stores::Cached, Stores::Around] {
        let mut out = vec![0f32; 1026 * (W + 4)];
        let clones = Arc::new(AtomicUsize::new(0));
        let stopper = ndpad::Stopper::new(None);
        // Slab 10's lines decline: the first decline is the result, every line
        // copied in; each line's pads are given the input's line.
        let (r, states) = copy_in_threads(
            &input,
            &mut out,
            &g,
            stores,
            2,
            &stopper,
            Counted(Arc::clone(&clones)),
            |line, _| {
                assert_eq!((line.before.len(), line.after.len()), (2, 2));
                line.before.fill(-line.values[0]);
                line.after.fill(-line.values[W - 1]);
                match line.values[0] == (10 * W) as f32 {
                    true => Err(Stop::Declined("slab 10")),
                    false => Ok(()),
                }
            },
        )
        .unwrap();
        assert_eq!(r, Err(Stop::Declined("slab 10")));
        assert!(states.len() <= 8, "{} states", states.len());
        assert_eq!(clones.load(Ordering::Relaxed), states.len());
        for (i, row) in input.chunks_exact(W).enumerate() {
            let at = (i + 1) * (W + 4);
            assert_eq!(&out[at + 2..at + 2 + W], row, "{stores:?} row {i}");
            if i <= 10 {
                // (The lines after the first decline are only copied.)
                assert_eq!(out[at..at + 2], [-row[0]; 2], "{stores:?} row {i}");
                assert_eq!(
                    out[at + 2 + W..at + 4 + W],
                    [-row[W - 1]; 2],
                    "{stores:?} row {i}"
                );
            }
        }
    }
}

#[test]
fn outer_lines_are_each_visited_once_on_any_threads() {
    use super::geometry::{outer_lines_threads, Geometry};
    // A line is outside the input area where any of its axes but the last is in a pad.
    type Case<'a> = (&'a [usize], &'a [(usize, usize)]);
    let cases: [Case; 4] = [
        (&[3, 4, 5], &[(1, 2), (0, 1), (2, 2)]),
        (&[64, 70, 60], &[(3, 1), (2, 2), (1, 1)]),
        (&[300, 400], &[(200, 100), (0, 3)]),
        (&[7], &[(2, 2)]),
    ];
    for (shape, pads) in cases {
        let out_shape = padded(shape, pads);
        let len: usize = out_shape.iter().product();
        let dim = out_shape[out_shape.len() - 1];
        let g = Geometry::new(len, shape, pads).unwrap();
        for threads in [1, 2] {
            let mut out = vec![0u32; len];
            let stopper = ndpad::Stopper::new(None);
            let (r, states) =
                outer_lines_threads(&mut out, &g, threads, &stopper, &0usize, |line, n| {
                    *n += 1;
                    line.iter_mut().for_each(|v| *v += 1);
                    Ok(())
                });
            assert_eq!(r, Ok(()));
            let mut visited = 0;
            for (l, line) in out.chunks_exact(dim).enumerate() {
                let (mut rest, mut outside) = (l, false);
                for k in (0..out_shape.len() - 1).rev() {
                    let i = rest % out_shape[k];
                    rest /= out_shape[k];
                    outside |= i < pads[k].0 || i >= pads[k].0 + shape[k];
                }
                assert!(
                    line.iter().all(|&v| v == u32::from(outside)),
                    "{shape:?} line {l}"
                );
                visited += outside as usize;
            }
            assert_eq!(states.iter().sum::<usize>(), visited, "{shape:?}");
        }
    }
}

#[test]
fn wide_pads_are_the_same_on_one_thread_and_two() {
    // Outputs of over 1 MiB: the outer lines (and the copy) shared by threads.
    let shape = [300usize, 400];
    let pads = [(200usize, 100usize), (50, 70)];
    let input = values(shape[0] * shape[1], 7);
    let len = 600 * 520;
    let run = |threads: usize, what: usize| {
        let mut out = vec![0f32; len];
        let r = match what {
            0 => pad_ramp::<f32, f64>(
                &input,
                &mut out,
                &shape,
                &pads,
                &[(1.5, -2.0); 2],
                threads,
                None,
            ),
            1 => pad_stat(
                &input,
                &mut out,
                &shape,
                &pads,
                &[(Some(5), None); 2],
                Stat::Mean,
                threads,
                None,
            ),
            _ => pad_stat(
                &input,
                &mut out,
                &shape,
                &pads,
                &[(None, Some(3)); 2],
                Stat::Median,
                threads,
                None,
            ),
        };
        assert_eq!(r, Ok(Outcome::Done), "{what}");
        out
    };
    for what in 0..3 {
        let one = run(1, what);
        assert!(one.iter().all(|v| v.is_finite()));
        assert!(run(2, what) == one, "{what}");
    }
}

/// Unpadded axes of one element are left out (one axis at least, and not where a
/// stat length of 0 asks numpy for its error or warning, nor where the arguments do
/// not fit the shape); the pads come out as without them.
#[test]
fn unit_axes_left_alone() {
    use super::squeezed;
    // Which axes stay, from the shapes `squeezed` gives (its per-axis argument: each
    // axis's index, `stays` true for the axes named).
    let stay = |shape: &[usize], pads: &[(usize, usize)], n: usize, stays: &[usize]| {
        let idx: Vec<usize> = (0..n).collect();
        squeezed(shape, pads, &idx, |k| stays.contains(k)).map(|(s, p, k)| {
            assert_eq!((s.len(), p.len()), (k.len(), k.len()));
            k
        })
    };
    assert_eq!(stay(&[1], &[(0, 0)], 1, &[]), None);
    assert_eq!(stay(&[1, 1], &[(0, 0), (0, 0)], 2, &[]), Some(vec![1]));
    assert_eq!(
        stay(&[3, 1, 4, 1], &[(1, 0), (0, 0), (0, 2), (0, 0)], 4, &[]),
        Some(vec![0, 2])
    );
    assert_eq!(stay(&[3, 1], &[(1, 0), (0, 1)], 2, &[]), None);
    assert_eq!(stay(&[3, 1], &[(1, 0), (0, 0)], 2, &[1]), None);
    assert_eq!(stay(&[3, 1], &[(1, 0), (0, 0)], 1, &[]), None);
    assert_eq!(stay(&[3, 1], &[(1, 0)], 2, &[]), None);
    let input: Vec<f32> = (0..12).map(|v| ((v * 7) % 12) as f32).collect();
    for s in [Stat::Maximum, Stat::Minimum, Stat::Mean, Stat::Median] {
        let flat = stat(&input, &[3, 4], &[(1, 2), (2, 1)], &[(None, None); 2], s);
        for shape in [[1, 3, 4, 1], [3, 1, 1, 4]] {
            let pads: Vec<_> = shape
                .iter()
                .scan(0, |k, &n| {
                    let p = if n == 1 { (0, 0) } else { [(1, 2), (2, 1)][*k] };
                    *k += usize::from(n > 1);
                    Some(p)
                })
                .collect();
            let lengths = [(None, Some(2)); 4];
            let unit = stat(&input, &shape, &pads, &lengths[..], s);
            let lengths = [(None, Some(2)); 2];
            assert_eq!(
                unit,
                stat(&input, &[3, 4], &[(1, 2), (2, 1)], &lengths, s),
                "{s:?}"
            );
            let mut out = vec![0.0f32; unit.1.len()];
            let done = pad_stat(
                &input,
                &mut out,
                &shape,
                &pads,
                &[(None, None); 4],
                s,
                1,
                None,
            );
            assert_eq!((done.unwrap(), out), flat.clone(), "{s:?} {shape:?}");
        }
    }
}

/// An integer ramp value is numpy's `floor` and cast, `None` outside the type.
#[test]
fn integer_values_are_floors() {
    fn check<T: Elem + TryFrom<i128> + PartialEq + std::fmt::Debug>(v: f64) {
        let floor = v.floor();
        let expect = match floor.is_finite() && floor.abs() < 1e30 {
            true => T::try_from(floor as i128).ok(),
            false => None,
        };
        assert_eq!(T::from_f64(v), expect, "{v}");
        #[allow(clippy::cast_possible_truncation)]
        let w = v as f32;
        if f64::from(w) == v {
            assert_eq!(T::from_f32(w), expect, "{w}");
        }
    }
    let two52 = 4_503_599_627_370_496.0f64;
    let two63 = 9_223_372_036_854_775_808.0f64;
    let mut cases = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        -1e-300,
        -1.0,
        -1.5,
        127.5,
        -128.5,
        -128.0,
        255.99,
        256.0,
        65535.5,
        -32768.25,
        4_294_967_295.5,
        -2_147_483_648.5,
        two52 - 0.5,
        -(two52 - 0.5),
        two63,
        -two63,
        two63 - 1024.0,
        2.0 * two63,
        2.0 * two63 - 2048.0,
        1e300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    cases.extend(values(2000, 11).iter().map(|&v| f64::from(v) * 1e3));
    for v in cases {
        check::<u8>(v);
        check::<i8>(v);
        check::<u16>(v);
        check::<i16>(v);
        check::<u32>(v);
        check::<i32>(v);
        check::<u64>(v);
        check::<i64>(v);
    }
}
