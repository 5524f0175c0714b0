//! The executor's unit tests: ranges inside rows and planes, fresh outputs, and the
//! narrow rows' kernels, each against the reference.

use super::*;
use crate::{AxisPad, DType, Mode, PadSpec, Tensor};

mod small;

/// `run_range` over ranges that start and end inside rows and span parts of
/// planes (threads never split so: blocks are whole rows where there are enough
/// rows), directly and around the cache, equal the reference's bytes there.
/// Whole planes forced (a kernel named), so that a small output (under Miri) has
/// them too.
#[test]
fn ranges_inside_planes_and_rows() {
    let shape = if cfg!(miri) {
        [2usize, 12, 40]
    } else {
        [2usize, 40, 700]
    };
    let data: Vec<f32> = (0..shape.iter().product()).map(|i| i as f32).collect();
    let x = Tensor::from_slice(&shape, &data).unwrap();
    for mode in [Mode::Reflect, Mode::Constant(None)] {
        let pads = vec![AxisPad::new(0, 0), AxisPad::new(2, 3), AxisPad::new(3, 1)];
        let spec = PadSpec::new(pads, mode);
        let plan = Plan::new(DType::Float32, &shape, &spec).unwrap();
        let want = crate::reference::pad(x.view(), &spec).unwrap();
        let want: &[[u8; 4]] = bytemuck::cast_slice(want.bytes().unwrap());
        let src: &[[u8; 4]] = bytemuck::cast_slice(x.bytes().unwrap());
        let value = [0u8; 4];
        let opts = PadOptions {
            kernel: Some(KernelName::Blend),
            ..PadOptions::default()
        };
        let mut exec = Exec::new(&plan, (src, None), plan.unit, (value, Some(&value)), &opts);
        assert!(
            !exec.setup.planes.map.rows().is_empty() && exec.setup.planes.constant_row.is_some()
        );
        let row = exec.out_row;
        for stream in [false, true] {
            exec.stream = stream;
            // Inside the first plane; across into the second; from inside the
            // first to the end.
            let across = (shape[1] + 5 + 15) * row + 9;
            for (start, end) in [(5, 3 * row + 7), (row + 1, across), (7, want.len())] {
                let mut out = vec![[0xAAu8; 4]; end - start];
                exec.run_range(start, &mut out);
                assert!(out[..] == want[start..end], "{stream} {start}..{end}");
            }
        }
    }
}

/// Rows longer than `PLANE_ROW_MAX` are written row by row, with no constant row (a
/// row of it each pad; 2 GiB for a [1, 2^31] byte pad, whose allocation aborted where
/// it did not fit), and pad as the reference does.
#[cfg(not(miri))]
#[test]
fn rows_over_the_plane_row_limit_hold_no_constant_row() {
    let n = crate::tune::PLANE_ROW_MAX;
    let x = Tensor::from_slice(&[2, n], &vec![3u8; 2 * n]).unwrap();
    let seven = crate::Scalar::from_f64(DType::Uint8, 7.0).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad::new(1, 0), AxisPad::new(2, 1)],
        Mode::Constant(Some(seven)),
    );
    let plan = Plan::new(DType::Uint8, x.shape(), &spec).unwrap();
    let src: &[[u8; 1]] = bytemuck::cast_slice(x.bytes().unwrap());
    let exec = Exec::new(
        &plan,
        (src, None),
        plan.unit,
        ([7], Some(&[7][..])),
        &PadOptions::default(),
    );
    assert!(exec.setup.planes.constant_row.is_none());
    let y = crate::pad(x.view(), &spec).unwrap();
    let y = y.bytes().unwrap();
    let w = n + 3;
    assert_eq!(y.len(), 3 * w);
    assert!(y[..w + 2].iter().all(|&b| b == 7));
    assert!(y[w + 2..2 * w - 1].iter().all(|&b| b == 3));
    assert_eq!(&y[2 * w - 1..2 * w + 2], &[7, 7, 7]);
    assert!(y[2 * w + 2..3 * w - 1].iter().all(|&b| b == 3));
    assert_eq!(y[3 * w - 1], 7);
}

/// A 2-D array of thousands of rows (`tests/staged.rs`' tall planes) is one plane to
/// the executor, written by the plane loops: its row map holds every output row.
#[cfg(not(miri))]
#[test]
fn tall_arrays_are_one_plane() {
    let shape = [5000usize, 70];
    let data: Vec<f32> = (0..shape.iter().product()).map(|i| i as f32).collect();
    let x = Tensor::from_slice(&shape, &data).unwrap();
    for (pads, mode) in [
        ([(0, -1), (-2, -3)], Mode::Edge),
        ([(2, 3), (3, 2)], Mode::Reflect),
        ([(1, 1), (2, 2)], Mode::Constant(None)),
    ] {
        let pads = pads.iter().map(|&(b, e)| AxisPad::new(b, e)).collect();
        let spec = PadSpec::new(pads, mode);
        let plan = Plan::new(DType::Float32, &shape, &spec).unwrap();
        let src: &[[u8; 4]] = bytemuck::cast_slice(x.bytes().unwrap());
        let value = [0u8; 4];
        let exec = Exec::new(
            &plan,
            (src, None),
            plan.unit,
            (value, Some(&value)),
            &PadOptions::default(),
        );
        assert_eq!(
            exec.setup.planes.map.rows().len(),
            plan.output_shape()[0],
            "{spec:?}"
        );
    }
}

/// Fresh outputs under `FRESH_MIN_BYTES` are allocated uninitialized and written
/// whole by the executor: every mode and element width gives the reference's bytes
/// (under Miri: no byte of the output is read before it is written).
#[test]
fn fresh_outputs_are_written_whole() {
    use crate::{pad_with, Scalar};
    let modes = [
        Mode::Constant(None),
        Mode::Constant(Some(Scalar::from_f64(DType::Float32, 1.5).unwrap())),
        Mode::Edge,
        Mode::Reflect,
        Mode::Symmetric,
        Mode::Wrap,
    ];
    let data: Vec<f32> = (0..3 * 5).map(|i| i as f32).collect();
    let x = Tensor::from_slice(&[3, 5], &data).unwrap();
    for mode in modes {
        for pads in [
            vec![AxisPad::new(1, 2), AxisPad::new(2, 1)],
            vec![AxisPad::new(-1, 2), AxisPad::new(0, 0)],
            vec![AxisPad::new(0, 0), AxisPad::new(4, 7)],
        ] {
            let spec = PadSpec::new(pads, mode.clone()).with_oversize(crate::Oversize::Repeat);
            let want = crate::reference::pad(x.view(), &spec).unwrap();
            // Miri stops in rayon's crossbeam-epoch (stacked borrows): one thread.
            let threads: &[usize] = if cfg!(miri) { &[1] } else { &[1, 2] };
            for &threads in threads {
                let opts = PadOptions {
                    threads,
                    parallel_threshold: 0,
                    ..PadOptions::default()
                };
                let got = pad_with(x.view(), &spec, &opts).unwrap();
                assert_eq!(got, want, "{mode:?} threads {threads}");
            }
        }
    }
}

/// Narrow rows of the modes that read (each element from its place in the input
/// row, the Program kernel with no run) of every element width, one element
/// to a row's whole width padded: the reference's bytes (a one-column row of a
/// single run goes through Runs).
#[test]
fn narrow_rows_of_single_elements() {
    use crate::TensorViewMut;
    let mut programs = 0;
    // Under Miri, two widths and two modes (each pad takes seconds there).
    let dtypes: &[DType] = match cfg!(miri) {
        true => &[DType::Uint8, DType::Float64],
        false => &[
            DType::Uint8,
            DType::Int16,
            DType::Float32,
            DType::Float64,
            DType::Complex128,
        ],
    };
    let modes: &[Mode] = match cfg!(miri) {
        true => &[Mode::Reflect, Mode::Wrap],
        false => &[Mode::Edge, Mode::Reflect, Mode::Symmetric, Mode::Wrap],
    };
    for &dtype in dtypes {
        let size = dtype.byte_len(1).unwrap();
        for cols in 1..=3usize {
            for (lo, hi) in [(1i64, 0i64), (0, 2), (2, 1), (3, 3)] {
                if (cols + (lo + hi) as usize) * size > NARROW_ROW_BYTES {
                    continue;
                }
                let rows = 9;
                let bytes: Vec<u8> = (0..rows * cols * size).map(|i| (i * 7) as u8).collect();
                let x = crate::TensorView::from_bytes(dtype, &[rows, cols], &bytes).unwrap();
                for mode in modes {
                    let pads = vec![AxisPad::new(1, 2), AxisPad::new(lo, hi)];
                    let spec =
                        PadSpec::new(pads, mode.clone()).with_oversize(crate::Oversize::Repeat);
                    let want = crate::reference::pad(x.clone(), &spec).unwrap();
                    let plan = Plan::new(dtype, &[rows, cols], &spec).unwrap();
                    let mut out = vec![0xAAu8; want.bytes().unwrap().len()];
                    let mut view =
                        TensorViewMut::from_bytes(dtype, want.shape(), &mut out).unwrap();
                    // Program forced: no shuffle, which would take most of these rows.
                    let opts = PadOptions {
                        threads: 1,
                        kernel: Some(KernelName::Program),
                        ..PadOptions::default()
                    };
                    let name = run(&plan, Data::Bytes(&bytes), view.data_mut(), &opts);
                    let case = format!("{dtype:?} [{rows},{cols}] ({lo},{hi}) {mode:?}");
                    programs += usize::from(name.unwrap() == Some(KernelName::Program));
                    assert_eq!(&out[..], want.bytes().unwrap(), "{case}");
                }
            }
        }
    }
    assert!(
        programs >= if cfg!(miri) { 30 } else { 150 },
        "{programs} pads through Program"
    );
}

/// Tiny planes of outputs of `TINY_STREAM_MIN` and more go around the cache, staged:
/// the same bytes as through the cache, at any offset of the output within a line,
/// on one thread and two; planes of words (f32 9x9, 324 bytes: each at another
/// offset) and of bytes (u8 40x40x3). Not under Miri (outputs of 17 MB; the stage's
/// run alone is `tiny::sink::tests::a_run_around_the_cache_writes_its_planes_in_place`).
#[cfg(not(miri))]
#[test]
fn tiny_planes_around_the_cache() {
    use crate::TensorViewMut;
    type Case = (DType, &'static [usize], &'static [(i64, i64)]);
    let cases: &[Case] = &[
        (DType::Float32, &[52000, 7, 7], &[(0, 0), (1, 1), (1, 1)]),
        // Planes of the constant too (the outer axis padded).
        (
            DType::Uint8,
            &[3500, 32, 32, 3],
            &[(1, 2), (4, 4), (4, 4), (0, 0)],
        ),
    ];
    for &(dtype, shape, pads) in cases {
        let n: usize = shape.iter().product::<usize>() * dtype.byte_len(1).unwrap();
        let bytes: Vec<u8> = (0..n).map(|i| (i * 13 + 1) as u8).collect();
        let seven = crate::Scalar::from_f64(dtype, 7.0).unwrap();
        for mode in [Mode::Constant(Some(seven)), Mode::Reflect] {
            let pads = pads.iter().map(|&(lo, hi)| AxisPad::new(lo, hi)).collect();
            let spec = PadSpec::new(pads, mode.clone());
            let plan = Plan::new(dtype, shape, &spec).unwrap();
            let len = plan.output_bytes();
            assert!(len >= crate::tune::TINY_STREAM_MIN, "{len}");
            // By the table, around the cache, where the CPU has AVX2.
            fn around<const N: usize>(plan: &Plan, bytes: &[u8]) -> bool {
                let src: &[[u8; N]] = bytemuck::cast_slice(bytes);
                let v = [0u8; N];
                let exec = Exec::new(plan, (src, None), 1, (v, Some(&v)), &PadOptions::default());
                exec.setup.planes.tiny.as_ref().is_some_and(|t| t.around)
            }
            let width = plan.unit * dtype.byte_len(1).unwrap();
            let tiny = match width {
                3 => around::<3>(&plan, &bytes),
                4 => around::<4>(&plan, &bytes),
                w => panic!("a unit of {w} bytes"),
            };
            assert_eq!(tiny, Cpu::get().avx2().is_some(), "{dtype:?} {mode:?}");
            let out_shape = plan.output_shape().to_vec();
            let pad = |stream_min_bytes, threads, offset: usize| {
                let mut out = vec![0xAAu8; len + offset];
                let mut view =
                    TensorViewMut::from_bytes(dtype, &out_shape, &mut out[offset..]).unwrap();
                let opts = PadOptions {
                    threads,
                    stream_min_bytes,
                    ..PadOptions::default()
                };
                run(&plan, Data::Bytes(&bytes), view.data_mut(), &opts).unwrap();
                out.drain(..offset);
                out
            };
            let want = pad(usize::MAX, 1, 0);
            for (threads, offset) in [(1, 0), (1, 20), (2, 44)] {
                let case = format!("{dtype:?} {mode:?} threads {threads} at {offset}");
                assert!(pad(0, threads, offset) == want, "{case}");
            }
        }
    }
}

/// Tiny planes (whole planes from a table: words of 4-, 8- and 16-byte elements, bytes
/// of 1- and 2-byte ones):
/// every mode, pads and crops of both plane axes, outer axes padded, elements fused
/// into 4- and 8-byte units, on one thread and split between two (parts of planes
/// then go row by row), runs of small planes by groups' tables (`TinyGroup`): the
/// reference's bytes. Outputs of at least `PLANE_MIN_BYTES` (smaller ones go row by
/// row on a plan's first run); under Miri, `tiny::tests` instead.
#[cfg(not(miri))]
#[test]
fn tiny_planes_by_their_tables() {
    use crate::TensorViewMut;
    type Case = (DType, &'static [usize], &'static [(i64, i64)]);
    let cases: &[Case] = &[
        (
            DType::Float32,
            &[31, 8, 7, 7],
            &[(0, 1), (1, 0), (1, 1), (1, 1)],
        ),
        (DType::Int32, &[700, 5, 3], &[(1, 1), (2, 1), (2, 2)]),
        (DType::Float32, &[900, 1, 9], &[(0, 0), (3, 3), (-1, 2)]),
        (
            DType::Uint8,
            &[400, 6, 5, 4],
            &[(1, 0), (1, 2), (-1, 1), (0, 0)],
        ),
        (
            DType::Int16,
            &[600, 3, 4, 2],
            &[(0, 0), (2, 2), (1, 1), (0, 0)],
        ),
        (DType::Float64, &[200, 5, 5], &[(1, 0), (1, 1), (2, 1)]),
        (DType::Complex128, &[200, 4, 3], &[(0, 1), (2, 1), (1, 1)]),
        (
            DType::Uint8,
            &[300, 5, 4, 8],
            &[(0, 0), (1, 1), (1, 1), (0, 0)],
        ),
        // The table of bytes: 1- and 2-byte elements with the last axis padded, and
        // 3- and 6-byte units (three channels fused: CIFAR's images).
        (DType::Uint8, &[1000, 6, 5], &[(1, 0), (1, 2), (2, 1)]),
        (DType::Float16, &[600, 5, 7], &[(0, 1), (1, 1), (1, 1)]),
        (
            DType::Uint8,
            &[400, 6, 6, 3],
            &[(0, 0), (1, 1), (2, 1), (0, 0)],
        ),
        (
            DType::Int16,
            &[300, 5, 5, 3],
            &[(1, 0), (1, 1), (1, 1), (0, 0)],
        ),
    ];
    let (mut tiny, mut groups, mut widths) = (0, 0, std::collections::BTreeSet::new());
    for &(dtype, shape, pads) in cases {
        let n: usize = shape.iter().product::<usize>() * dtype.byte_len(1).unwrap();
        let bytes: Vec<u8> = (0..n).map(|i| (i * 13 + 1) as u8).collect();
        let x = crate::TensorView::from_bytes(dtype, shape, &bytes).unwrap();
        let seven = crate::Scalar::from_f64(dtype, 7.0).unwrap();
        let modes = [
            Mode::Constant(None),
            Mode::Constant(Some(seven)),
            Mode::Edge,
            Mode::Reflect,
            Mode::Symmetric,
            Mode::Wrap,
        ];
        for mode in modes {
            let pads = pads.iter().map(|&(lo, hi)| AxisPad::new(lo, hi)).collect();
            let spec = PadSpec::new(pads, mode.clone()).with_oversize(crate::Oversize::Repeat);
            let want = crate::reference::pad(x.clone(), &spec).unwrap();
            let plan = Plan::new(dtype, shape, &spec).unwrap();
            let case = format!("{dtype:?} {shape:?} {mode:?}");
            let width = plan.unit * dtype.byte_len(1).unwrap();
            if Cpu::get().avx2().is_some() {
                // Whether the pad has a tiny plane's table, and a group's.
                fn tiny_of<const N: usize>(plan: &Plan, bytes: &[u8]) -> (bool, bool) {
                    let src: &[[u8; N]] = bytemuck::cast_slice(bytes);
                    let v = [0u8; N];
                    let opts = PadOptions::default();
                    let exec = Exec::new(plan, (src, None), 1, (v, Some(&v)), &opts);
                    let tiny = exec.setup.planes.tiny.as_ref();
                    (tiny.is_some(), tiny.is_some_and(|t| t.group.is_some()))
                }
                let made = match width {
                    1 => tiny_of::<1>(&plan, &bytes),
                    2 => tiny_of::<2>(&plan, &bytes),
                    3 => tiny_of::<3>(&plan, &bytes),
                    4 => tiny_of::<4>(&plan, &bytes),
                    6 => tiny_of::<6>(&plan, &bytes),
                    8 => tiny_of::<8>(&plan, &bytes),
                    12 => tiny_of::<12>(&plan, &bytes),
                    16 => tiny_of::<16>(&plan, &bytes),
                    w => panic!("{case}: a unit of {w} bytes"),
                };
                // (Every case has tables but where a piece would read more than two
                // windows: wrap of 3-byte units.)
                if made.0 {
                    tiny += 1;
                    widths.insert(width);
                }
                groups += usize::from(made.1);
            }
            for threads in [1, 2] {
                let mut out = vec![0xAAu8; want.bytes().unwrap().len()];
                let mut view = TensorViewMut::from_bytes(dtype, want.shape(), &mut out).unwrap();
                let opts = PadOptions {
                    threads,
                    parallel_threshold: 0,
                    ..PadOptions::default()
                };
                run(&plan, Data::Bytes(&bytes), view.data_mut(), &opts).unwrap();
                assert_eq!(&out[..], want.bytes().unwrap(), "{case} threads {threads}");
            }
        }
    }
    if Cpu::get().avx2().is_some() {
        assert!(tiny >= 70, "{tiny} pads of tiny planes");
        assert!(groups >= 50, "{groups} pads of groups of tiny planes");
        // Tables of bytes (1, 2, 3, 6) and of words (4, 8, 16).
        assert!(
            widths.is_superset(&[1, 2, 3, 4, 6, 8, 16].into()),
            "{widths:?}"
        );
    }
}

/// Rows of at most 16 bytes written several a shuffle (`Shuffle`), every mode,
/// element width and row width that takes one, the batch's rows not a multiple
/// of a shuffle's: the reference's bytes, through the cache and around it.
#[test]
fn narrow_rows_by_shuffles() {
    use crate::{Scalar, TensorViewMut};
    // Under Miri, fewer widths, modes and rows (each pad takes seconds there).
    let dtypes: &[DType] = match cfg!(miri) {
        true => &[DType::Uint8, DType::Float32],
        false => &[DType::Uint8, DType::Int16, DType::Float32, DType::Float64],
    };
    for &dtype in dtypes {
        let size = dtype.byte_len(1).unwrap();
        let seven = Scalar::from_f64(dtype, 7.0).unwrap();
        for cols in 1..=4usize {
            for (lo, hi) in [(0i64, 1i64), (1, 0), (1, 2), (2, 2), (0, 3)] {
                let out_b = (cols + (lo + hi) as usize) * size;
                if out_b > 16 || cols * size > 16 {
                    continue;
                }
                let rows = if cfg!(miri) { 11 } else { 37 };
                let bytes: Vec<u8> = (0..rows * cols * size).map(|i| (i * 7 + 1) as u8).collect();
                let x = crate::TensorView::from_bytes(dtype, &[rows, cols], &bytes).unwrap();
                let modes = [
                    Mode::Constant(Some(seven.clone())),
                    Mode::Reflect,
                    Mode::Edge,
                    Mode::Symmetric,
                    Mode::Wrap,
                ];
                for mode in &modes[..if cfg!(miri) { 2 } else { 5 }] {
                    let pads = vec![AxisPad::new(0, 1), AxisPad::new(lo, hi)];
                    let spec =
                        PadSpec::new(pads, mode.clone()).with_oversize(crate::Oversize::Repeat);
                    let want = crate::reference::pad(x.clone(), &spec).unwrap();
                    let plan = Plan::new(dtype, &[rows, cols], &spec).unwrap();
                    for &stream in &[usize::MAX, 0][..if cfg!(miri) { 1 } else { 2 }] {
                        let mut out = vec![0xAAu8; want.bytes().unwrap().len()];
                        let mut view =
                            TensorViewMut::from_bytes(dtype, want.shape(), &mut out).unwrap();
                        let opts = PadOptions {
                            threads: 1,
                            stream_min_bytes: stream,
                            ..PadOptions::default()
                        };
                        plan.execute(x.clone(), &mut view, &opts).unwrap();
                        let case = format!("{dtype:?} [{rows},{cols}] ({lo},{hi}) {mode:?}");
                        assert_eq!(&out[..], want.bytes().unwrap(), "{case} {stream}");
                    }
                }
            }
        }
    }
}

/// Shuffled rows of other shapes and outputs: fused trailing axes (a unit of five
/// bytes), interior padding, a crop, a zeroed output with a zero constant, two
/// threads, and an input whose rows lie apart (no shuffle): the reference's bytes.
#[test]
fn shuffled_rows_of_other_shapes() {
    use crate::{pad_with, NegativePads, OutputMemory, TensorViewMut};
    let rows = if cfg!(miri) { 9 } else { 301 };
    let data: Vec<u8> = (0..rows * 2 * 5).map(|i| (i * 13 + 5) as u8).collect();
    let unit = crate::TensorView::from_bytes(DType::Uint8, &[rows, 2, 5], &data).unwrap();
    let flat = crate::TensorView::from_bytes(DType::Uint8, &[rows * 2, 5], &data).unwrap();
    let interior = AxisPad {
        begin: 1,
        end: 0,
        interior: 1,
    };
    let cases = [
        (
            unit.clone(),
            vec![AxisPad::new(0, 0), AxisPad::new(1, 0), AxisPad::new(0, 0)],
        ),
        (flat.clone(), vec![AxisPad::new(0, 1), interior]),
        (flat.clone(), vec![AxisPad::new(1, 0), AxisPad::new(0, -1)]),
        (flat.clone(), vec![AxisPad::new(0, 0), AxisPad::new(2, 1)]),
    ];
    for (x, pads) in cases {
        for mode in [Mode::Constant(None), Mode::Edge, Mode::Reflect] {
            let interior = pads.iter().any(|p| p.interior > 0);
            if interior && mode != Mode::Constant(None) {
                continue;
            }
            let spec = PadSpec::new(pads.clone(), mode.clone())
                .with_negative(NegativePads::CropFirst)
                .with_oversize(crate::Oversize::Repeat);
            let want = crate::reference::pad(x.clone(), &spec).unwrap();
            let case = format!("{:?} {pads:?} {mode:?}", x.shape());
            // Miri stops in rayon's crossbeam-epoch (stacked borrows): one thread.
            let threads: &[usize] = if cfg!(miri) { &[1] } else { &[1, 2] };
            for &threads in threads {
                let opts = PadOptions {
                    threads,
                    parallel_threshold: 0,
                    ..PadOptions::default()
                };
                assert_eq!(
                    pad_with(x.clone(), &spec, &opts).unwrap(),
                    want,
                    "{case} {threads}"
                );
            }
            // A zeroed output: the zero constant's rows left as they are.
            let plan = Plan::new(DType::Uint8, x.shape(), &spec).unwrap();
            let mut out = vec![0u8; want.bytes().unwrap().len()];
            let mut view = TensorViewMut::from_bytes(DType::Uint8, want.shape(), &mut out).unwrap();
            let opts = PadOptions {
                threads: 1,
                output_memory: OutputMemory::Zeroed,
                ..PadOptions::default()
            };
            plan.execute(x.clone(), &mut view, &opts).unwrap();
            assert_eq!(&out[..], want.bytes().unwrap(), "{case} zeroed");
        }
    }
    // Rows 10 bytes apart, 5 read: no shuffle (its load takes consecutive rows).
    let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(1, 2)], Mode::Wrap);
    let plan = Plan::new(DType::Uint8, &[rows, 5], &spec).unwrap();
    let mut out = vec![0u8; rows * 8];
    let mut view = TensorViewMut::from_bytes(DType::Uint8, &[rows, 8], &mut out).unwrap();
    let strided = &data[..rows * 10 - 5];
    let one = PadOptions {
        threads: 1,
        ..PadOptions::default()
    };
    plan.execute_strided(strided, &[10, 1], &mut view, &one)
        .unwrap();
    for (r, row) in out.chunks_exact(8).enumerate() {
        let s = &data[r * 10..r * 10 + 5];
        assert_eq!(
            row,
            [s[4], s[0], s[1], s[2], s[3], s[4], s[0], s[1]],
            "row {r}"
        );
    }
}

/// Narrow rows of one to eight words, around the cache and through it: rows of
/// one word are gathered a line at a time (`arch::words_at`), from any output
/// alignment (under Miri: each load inside the input).
#[test]
fn narrow_rows_by_lines() {
    use crate::{Scalar, TensorViewMut};
    let seven = Scalar::from_f64(DType::Float32, 7.0).unwrap();
    for (cols, rows) in [(1usize, 67usize), (1, 5), (3, 40), (7, 21), (15, 9)] {
        let data: Vec<f32> = (0..cols * rows).map(|i| i as f32).collect();
        let x = Tensor::from_slice(&[rows, cols], &data).unwrap();
        let pads = vec![AxisPad::new(0, 0), AxisPad::new(0, 1)];
        let spec = PadSpec::new(pads, Mode::Constant(Some(seven.clone())));
        let want = crate::reference::pad(x.view(), &spec).unwrap();
        let bytes = want.bytes().unwrap().len();
        for (shift, stream) in [(0, 0), (4, 0), (12, 0), (0, usize::MAX)] {
            let opts = PadOptions {
                threads: 1,
                stream_min_bytes: stream,
                ..PadOptions::default()
            };
            // The output `shift` bytes into an 8-aligned buffer.
            let mut buf = vec![0u64; bytes / 8 + 3];
            let out = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut buf)[shift..shift + bytes];
            let mut view = TensorViewMut::from_bytes(DType::Float32, want.shape(), out).unwrap();
            let plan = Plan::new(DType::Float32, x.shape(), &spec).unwrap();
            plan.execute(x.view(), &mut view, &opts).unwrap();
            assert_eq!(
                &out[..],
                want.bytes().unwrap(),
                "[{rows},{cols}] shift {shift}"
            );
        }
    }
}

/// Runs `write` on an output run of `want.len()` elements of `N` bytes that starts
/// `lead` bytes into a line (the run's element 0 the line's `lead / N`), and checks
/// that it takes exactly runs whose elements tile a line and start at an element
/// boundary, writing `want` there (and nothing otherwise), and touches nothing
/// around the run.
fn around_cache_run<const N: usize>(
    want: &[[u8; N]],
    lead: usize,
    write: impl FnOnce(&mut [[u8; N]]) -> bool,
) {
    let n = std::mem::size_of_val(want);
    let mut buf = vec![0xAAu8; 64 + 64 + n + 64];
    let at = buf.as_ptr().align_offset(64) + lead;
    let fits = 64usize.is_multiple_of(N) && lead.is_multiple_of(N);
    let case = format!("N {N}, {} elements, lead {lead}", want.len());
    assert_eq!(
        write(bytemuck::cast_slice_mut(&mut buf[at..at + n])),
        fits,
        "{case}"
    );
    crate::arch::fence();
    match fits {
        true => assert_eq!(buf[at..at + n], *want.as_flattened(), "{case}"),
        false => assert!(buf[at..at + n].iter().all(|&b| b == 0xAA), "{case}"),
    }
    assert!(
        buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA),
        "{case}"
    );
}

/// Output runs written around the cache at every offset in a line, of lengths
/// across several lines.
fn around_cache_runs() -> impl Iterator<Item = (usize, usize)> {
    let leads = (0..64).step_by(if cfg!(miri) { 13 } else { 1 });
    [0, 1, 15, 16, 17, 100, 301]
        .into_iter()
        .flat_map(move |len| leads.clone().map(move |lead| (len, lead)))
}

/// Constant runs filled around the cache ([`Elem::fill_around_cache`]), and runs of
/// elements interleaved with the constant ([`Elem::interleave_around_cache`]),
/// starting anywhere in a line at an element boundary (an interleaved run's lines at
/// an even element or, its `[v, c, v, ..]` order kept, an odd one): every element
/// the constant, or as `program::interleave` writes it (`around_cache_run`);
/// elements of 3 bytes, a start between elements, or too few values for the lines,
/// are refused untouched.
#[test]
fn runs_around_the_cache() {
    fn check<const N: usize>() {
        let v: [u8; N] = std::array::from_fn(|i| 0xC0 + i as u8);
        let vals: Vec<[u8; N]> = (0..300)
            .map(|k| std::array::from_fn(|i| (k * 7 + i) as u8))
            .collect();
        for (len, lead) in around_cache_runs() {
            around_cache_run(&vec![v; len], lead, |out| {
                <[u8; N]>::fill_around_cache(out, &v, crate::arch::Cpu::get())
            });
            let mut want = vec![[0u8; N]; len];
            program::interleave(&mut want, &vals, &v, false);
            around_cache_run(&want, lead, |out| {
                <[u8; N]>::interleave_around_cache(out, &vals, &v)
            });
        }
        if 64usize.is_multiple_of(N) {
            let mut buf = vec![0xAAu8; 64 * 9];
            let at = buf.as_ptr().align_offset(64);
            let out: &mut [[u8; N]] = bytemuck::cast_slice_mut(&mut buf[at..at + 64 * 8]);
            let few = &vals[..64 * 4 / N - 1];
            assert!(!<[u8; N]>::interleave_around_cache(out, few, &v));
            assert!(buf.iter().all(|&b| b == 0xAA));
        }
    }
    check::<1>();
    check::<2>();
    check::<3>();
    check::<4>();
    check::<8>();
    check::<16>();
}

/// A new string output's spans are allocated unset and each written once: equal to
/// the reference in every mode, with sides of their own constant, cropped, and
/// empty.
#[test]
fn string_outputs_written_unset() {
    let x = Tensor::from_strings(
        &[3, 4],
        (0..12).map(|i| format!("s{i}")).collect::<Vec<_>>(),
    )
    .unwrap();
    let c = |s: &str| Some(crate::Scalar::string(s));
    let pads = || vec![AxisPad::new(1, 2), AxisPad::new(-1, 2)];
    let specs = [
        PadSpec::new(pads(), Mode::Edge),
        PadSpec::new(pads(), Mode::Reflect),
        PadSpec::new(pads(), Mode::Constant(c("k"))),
        PadSpec::new(pads(), Mode::Constant(c("k")))
            .with_sides(vec![[c("a"), None], [None, c("b")]]),
        PadSpec::new(
            vec![AxisPad::new(0, 0), AxisPad::new(-4, 0)],
            Mode::Constant(c("k")),
        ),
    ];
    for spec in &specs {
        let want = crate::reference::pad(x.view(), spec).unwrap();
        let got = crate::pad_with(x.view(), spec, &PadOptions::single_threaded()).unwrap();
        assert_eq!(got, want, "{spec:?}");
    }
    // Empty texts and an empty constant: the constant's span is all zero bytes, which
    // a zeroed output would hold already, but these spans start unset.
    let empty = Tensor::from_strings(&[2, 2], vec![""; 4]).unwrap();
    for value in [None, c("")] {
        let spec = PadSpec::new(
            vec![AxisPad::new(1, 1), AxisPad::new(1, 1)],
            Mode::Constant(value),
        );
        let want = crate::reference::pad(empty.view(), &spec).unwrap();
        let got = crate::pad_with(empty.view(), &spec, &PadOptions::single_threaded()).unwrap();
        assert_eq!(got, want, "{spec:?}");
        assert!(got.strings().unwrap().iter().all(str::is_empty));
    }
}

/// Outer axes of one output coordinate that read input coordinate 0 (unpadded axes
/// of extent 1, an axis cropped to its first element) are left out of the walk, and
/// the pads of tensors with them (bytes, packed, strings; C-contiguous and strided)
/// are the reference's; a padded unit axis stays in the walk.
#[test]
fn unit_axes_move_no_row() {
    use crate::TensorViewMut;
    let (z, r) = (AxisPad::new(0, 0), AxisPad::new(1, 2));
    let cases: [(&[usize], Vec<AxisPad>, usize); 4] = [
        (&[1, 1, 5, 6], vec![z, z, r, r], 1),
        (&[3, 1, 5, 6], vec![z, z, r, r], 2),
        (&[1, 4, 5, 6], vec![z, AxisPad::new(0, -3), r, r], 1),
        (&[1, 1, 5, 6], vec![AxisPad::new(1, 1), z, r, r], 2),
    ];
    for (shape, pads, walked) in cases {
        let n: usize = shape.iter().product();
        let bytes: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        let texts: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
        let inputs = [
            Tensor::from_bytes(DType::Uint8, shape, bytes.clone()).unwrap(),
            Tensor::from_bytes(DType::Int4, shape, bytes[..n.div_ceil(2)].to_vec()).unwrap(),
            Tensor::from_strings(shape, texts).unwrap(),
        ];
        for mode in [Mode::Reflect, Mode::Edge, Mode::Wrap, Mode::Constant(None)] {
            let spec = PadSpec::new(pads.clone(), mode).with_oversize(crate::Oversize::Repeat);
            for x in &inputs {
                let want = crate::reference::pad(x.view(), &spec).unwrap();
                let got = crate::pad_with(x.view(), &spec, &PadOptions::single_threaded());
                assert_eq!(got.unwrap(), want, "{shape:?} {spec:?} {:?}", x.dtype());
            }
            let plan = Plan::new(DType::Uint8, shape, &spec).unwrap();
            let walk = Walker::new(&plan, plan.unit, 1, None);
            assert_eq!(walk.outer.len(), walked, "{shape:?} {spec:?}");
            // The rows read where they lie, the unit axes' strides anything.
            let rows = n / shape[3];
            let mut strided = vec![0u8; rows * 10];
            for (k, row) in bytes.chunks(shape[3]).enumerate() {
                strided[k * 10..k * 10 + shape[3]].copy_from_slice(row);
            }
            let strides = [
                (shape[1] * shape[2] * 10) as isize,
                if shape[1] == 1 {
                    12345
                } else {
                    (shape[2] * 10) as isize
                },
                10,
                1,
            ];
            let want = crate::reference::pad(inputs[0].view(), &spec).unwrap();
            let mut out = vec![0u8; plan.output_numel()];
            let mut view =
                TensorViewMut::from_bytes(DType::Uint8, plan.output_shape(), &mut out).unwrap();
            plan.execute_strided(
                &strided,
                &strides,
                &mut view,
                &PadOptions::single_threaded(),
            )
            .unwrap();
            assert_eq!(
                &out[..],
                want.bytes().unwrap(),
                "strided {shape:?} {spec:?}"
            );
        }
    }
}
