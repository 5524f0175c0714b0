//! `PadOptions::interrupt`: a long pad is written in parts, the interrupt asked on
//! the calling thread between two of its parts; `true` stops it with
//! `PadError::Interrupted`. Outputs are over the part size (16 MiB), so that every
//! path writes more than one part.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ndpad::{pad_with, AxisPad, DType, Interrupt, Mode, PadError, PadOptions, PadSpec, Tensor};

/// An interrupt that counts its questions and answers `true` from question `stop` on.
fn counting(stop: usize) -> (Interrupt, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let n = Arc::clone(&asked);
    let interrupt = Interrupt::new(move || n.fetch_add(1, Ordering::SeqCst) + 1 >= stop);
    (interrupt, asked)
}

/// The pad written in parts, never stopped, equals the pad written whole; stopped at
/// the first question, it is `Interrupted`, asked once. With two threads the calling
/// thread may take one part only (the other thread writing the rest), and is then
/// never asked: the pad is whole.
fn check(x: &Tensor, spec: &PadSpec) {
    for threads in [1, 2] {
        let whole = PadOptions {
            threads,
            ..PadOptions::default()
        };
        let expected = pad_with(x.view(), spec, &whole).unwrap();
        let (never, asked) = counting(usize::MAX);
        let parts = PadOptions {
            interrupt: Some(never),
            ..whole.clone()
        };
        assert_eq!(
            pad_with(x.view(), spec, &parts).unwrap(),
            expected,
            "threads {threads}"
        );
        let asked_never = asked.load(Ordering::SeqCst);
        assert!(threads > 1 || asked_never >= 1, "asked between parts");
        let (first, asked) = counting(1);
        let stopped = PadOptions {
            interrupt: Some(first),
            ..whole
        };
        let got = pad_with(x.view(), spec, &stopped);
        match asked.load(Ordering::SeqCst) {
            0 if threads > 1 => assert_eq!(got.unwrap(), expected),
            n => {
                assert_eq!(got.unwrap_err(), PadError::Interrupted);
                assert_eq!(n, 1);
            }
        }
    }
}

#[test]
fn planes_of_bytes() {
    // [300, 1024, 512] u8 reflect-padded by 1 on its last two axes: 158 MB.
    let x = Tensor::from_bytes(
        DType::Uint8,
        &[300, 1024, 512],
        (0..300 * 1024 * 512).map(|i| (i % 251) as u8).collect(),
    )
    .unwrap();
    let pads = vec![AxisPad::new(0, 0), AxisPad::new(1, 1), AxisPad::new(1, 1)];
    check(&x, &PadSpec::new(pads, Mode::Reflect));
}

#[test]
fn one_long_row() {
    // A 1-D f32 pad: a single 160 MB row, split inside the row.
    let n = 40_000_000usize;
    let x = Tensor::from_slice(&[n], &(0..n).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    check(&x, &PadSpec::new(vec![AxisPad::new(1000, 7)], Mode::Edge));
}

#[test]
fn packed_rows_inside_bytes() {
    // int4 rows of 8003 elements (not whole bytes): the packed path, 80 MB.
    let (rows, cols) = (20_000usize, 8001usize);
    let x = Tensor::from_bytes(
        DType::Int4,
        &[rows, cols],
        (0..(rows * cols).div_ceil(2))
            .map(|i| (i % 239) as u8)
            .collect(),
    )
    .unwrap();
    let pads = vec![AxisPad::new(0, 0), AxisPad::new(1, 1)];
    check(&x, &PadSpec::new(pads, Mode::Reflect));
}

#[test]
fn strings() {
    // 5 million strings: 80 MB of 16-byte spans.
    let x = Tensor::from_strings(
        &[1000, 4998],
        ndpad::Strings::filled(1000 * 4998, "ab").unwrap(),
    )
    .unwrap();
    let pads = vec![AxisPad::new(0, 0), AxisPad::new(1, 1)];
    let spec = PadSpec::new(pads, Mode::Edge);
    check(&x, &spec);
    // Into a caller's strings, stopped after the first part: every element is then
    // the constant (""), none a span into the text the buffer held before.
    let mut out = ndpad::Strings::filled(1000 * 5000, "x").unwrap();
    let mut view = ndpad::TensorViewMut::from_strings(&[1000, 5000], &mut out).unwrap();
    let stopped = PadOptions {
        interrupt: Some(counting(1).0),
        threads: 1,
        ..PadOptions::default()
    };
    assert_eq!(
        ndpad::pad_into(x.view(), &spec, &mut view, &stopped).unwrap_err(),
        PadError::Interrupted
    );
    assert!(out.iter().all(str::is_empty));
}

#[test]
fn small_pads_are_never_asked() {
    let x = Tensor::from_slice(&[3], &[1u8, 2, 3]).unwrap();
    let (first, asked) = counting(1);
    let opts = PadOptions {
        interrupt: Some(first),
        ..PadOptions::default()
    };
    let y = pad_with(
        x.view(),
        &PadSpec::new(vec![AxisPad::new(1, 1)], Mode::Edge),
        &opts,
    );
    assert_eq!(y.unwrap().to_vec::<u8>().unwrap(), [1, 1, 2, 3, 3]);
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    // Split among threads, but under the part size: not asked either.
    let x = Tensor::from_bytes(DType::Uint8, &[2048, 4096], vec![7; 2048 * 4096]).unwrap();
    let threaded = PadOptions {
        threads: 2,
        parallel_threshold: 0,
        ..opts
    };
    let spec = PadSpec::new(vec![AxisPad::new(1, 1), AxisPad::new(1, 1)], Mode::Edge);
    assert!(pad_with(x.view(), &spec, &threaded).is_ok());
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    assert_eq!(
        PadError::Interrupted.to_string(),
        "the pad was interrupted; the output is partly written"
    );
}

/// An input whose rows are not in C order (a step of 2 on its last axis) is padded box
/// by box, the interrupt asked between the calling thread's parts: never stopped, the
/// gathered pad equals the pad of the same elements in C order; stopped at the first
/// question, it is `Interrupted`.
#[test]
fn gathered_boxes_are_asked_between_parts() {
    let (rows, cols) = (2100, 2000);
    let data: Vec<f32> = (0..rows * cols * 2).map(|i| (i % 1013) as f32).collect();
    let every_other: Vec<f32> = data.iter().step_by(2).copied().collect();
    let x = Tensor::from_slice(&[rows, cols], &every_other).unwrap();
    let spec = PadSpec::new(vec![AxisPad::new(2, 3), AxisPad::new(1, 1)], Mode::Reflect);
    let plan = ndpad::Plan::new(DType::Float32, &[rows, cols], &spec).unwrap();
    let bytes: &[u8] = bytemuck::cast_slice(&data);
    let strides = [(cols * 8) as isize, 8];
    for threads in [1, 2] {
        let whole = PadOptions {
            threads,
            ..PadOptions::default()
        };
        let expected = pad_with(x.view(), &spec, &whole).unwrap();
        let mut out = vec![0u8; expected.bytes().unwrap().len()];
        let shape = plan.output_shape().to_vec();
        let run = |out: &mut [u8], opts: &PadOptions| {
            let mut view = ndpad::TensorViewMut::from_bytes(DType::Float32, &shape, out).unwrap();
            plan.execute_strided(&bytes[..bytes.len() - 4], &strides, &mut view, opts)
        };
        let (never, asked) = counting(usize::MAX);
        run(
            &mut out,
            &PadOptions {
                interrupt: Some(never),
                ..whole.clone()
            },
        )
        .unwrap();
        assert!(
            threads > 1 || asked.load(Ordering::SeqCst) >= 1,
            "asked between parts"
        );
        assert_eq!(&out[..], expected.bytes().unwrap(), "threads {threads}");
        let (first, asked) = counting(1);
        let got = run(
            &mut out,
            &PadOptions {
                interrupt: Some(first),
                ..whole
            },
        );
        match asked.load(Ordering::SeqCst) {
            0 if threads > 1 => got.unwrap(),
            n => {
                assert_eq!(got.unwrap_err(), PadError::Interrupted);
                assert_eq!(n, 1);
            }
        }
    }
}
