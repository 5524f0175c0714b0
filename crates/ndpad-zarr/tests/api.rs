//! The library API: a tensor written as a zarr array, padded zarr to zarr, read back
//! and compared with the core's pad; the budget, the interrupt and the progress.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ndpad::{AxisPad, Mode, PadSpec, Scalar, Tensor};
use ndpad_zarr::{Progress, ZarrArray, ZarrError, ZarrPadOptions};

fn tensor(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let data: Vec<i32> = (0..n as i32).map(|i| i * 7 - 50).collect();
    Tensor::from_slice(shape, &data).unwrap()
}

fn spec(mode: Mode) -> PadSpec {
    PadSpec::new(vec![AxisPad::new(2, 1), AxisPad::new(0, 5)], mode)
}

fn read(path: &Path) -> Tensor {
    ndpad_zarr::read_array(&ZarrArray::open(path).unwrap(), 1 << 30, 1 << 20, None).unwrap()
}

fn no_staging(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("ndpad"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn pads_as_the_core_pads() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.zarr"), dir.path().join("b.zarr"));
    let x = tensor(&[5, 7]);
    let opts = ZarrPadOptions {
        chunks: Some(vec![2, 3]),
        ..ZarrPadOptions::default()
    };
    ndpad_zarr::write_tensor(&x, &a, &opts).unwrap();
    assert_eq!(read(&a), x);
    for mode in [
        Mode::Constant(Some(Scalar::from(9i32))),
        Mode::Edge,
        Mode::Reflect,
        Mode::Wrap,
    ] {
        for (chunks, threads) in [(None, 0), (Some(vec![3, 4]), 1), (Some(vec![1, 1]), 3)] {
            let opts = ZarrPadOptions {
                chunks: chunks.clone(),
                threads,
                ..ZarrPadOptions::default()
            };
            let s = spec(mode.clone());
            let report = ndpad_zarr::pad(&a, &b, &s, &opts).unwrap();
            assert_eq!(report.shape, vec![8, 12]);
            assert_eq!(report.chunk_shape, chunks.unwrap_or(vec![2, 3]));
            assert_eq!(read(&b), ndpad::pad(x.view(), &s).unwrap(), "{mode:?}");
        }
    }
    no_staging(dir.path());
}

/// An output chunk that repeats a short axis more than a million times (which the
/// core plans as a tile) is one piece reading the short axis, not an empty one.
#[test]
fn chunks_of_a_short_axis_repeated_a_million_times() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.zarr"), dir.path().join("b.zarr"));
    let x = tensor(&[2]);
    ndpad_zarr::write_tensor(&x, &a, &ZarrPadOptions::default()).unwrap();
    let s = PadSpec::new(vec![AxisPad::new(1, 3 << 20)], Mode::Wrap)
        .with_oversize(ndpad::Oversize::Repeat);
    let opts = ZarrPadOptions {
        chunks: Some(vec![3 << 20]),
        ..ZarrPadOptions::default()
    };
    ndpad_zarr::pad(&a, &b, &s, &opts).unwrap();
    assert_eq!(read(&b), ndpad::pad(x.view(), &s).unwrap());
}

#[test]
fn the_budget_bounds_chunks_and_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.zarr"), dir.path().join("b.zarr"));
    let x = tensor(&[64, 64]);
    let opts = ZarrPadOptions {
        chunks: Some(vec![16, 16]),
        ..ZarrPadOptions::default()
    };
    ndpad_zarr::write_tensor(&x, &a, &opts).unwrap();
    // An output chunk of 32 KiB: a thread's buffers, three output chunks and its
    // encoding (128 KiB), fit in 200 KiB (a quarter kept for parts of input chunks)
    // for one thread only.
    let opts = ZarrPadOptions {
        chunks: Some(vec![64, 128]),
        threads: 4,
        max_memory: Some(200 << 10),
        ..ZarrPadOptions::default()
    };
    let report = ndpad_zarr::pad(&a, &b, &spec(Mode::Edge), &opts).unwrap();
    assert_eq!(report.threads, 1);
    assert!(report.input_decodes >= 1);
    assert_eq!(read(&b), ndpad::pad(x.view(), &spec(Mode::Edge)).unwrap());
    // Chunks that cannot fit are refused, naming the value and the limit.
    let opts = ZarrPadOptions {
        max_memory: Some(1000),
        ..ZarrPadOptions::default()
    };
    let e = ndpad_zarr::pad(&a, &b, &spec(Mode::Edge), &opts).unwrap_err();
    assert!(
        matches!(e, ZarrError::ChunkOverBudget { limit: 1000, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("1024 bytes of int32"), "{e}");
    let e = ndpad_zarr::write_tensor(&x, &b, &opts).unwrap_err();
    assert!(matches!(e, ZarrError::ChunkOverBudget { .. }), "{e}");
    no_staging(dir.path());
}

#[test]
fn an_interrupt_stops_the_pad_and_removes_the_staged_output() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.zarr"), dir.path().join("b.zarr"));
    let x = tensor(&[20, 20]);
    let opts = ZarrPadOptions {
        chunks: Some(vec![4, 4]),
        ..ZarrPadOptions::default()
    };
    ndpad_zarr::write_tensor(&x, &a, &opts).unwrap();
    // Yes on the fifth question: after some chunks are written.
    let asked = Arc::new(AtomicU64::new(0));
    let count = Arc::clone(&asked);
    let done = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&done);
    let opts = ZarrPadOptions {
        chunks: Some(vec![1, 1]),
        threads: 1,
        interrupt: Some(ndpad::Interrupt::new(move || {
            count.fetch_add(1, Ordering::SeqCst) >= 5
        })),
        progress: Some(Arc::new(move |p| {
            if p == Progress::ChunkDone {
                seen.fetch_add(1, Ordering::SeqCst);
            }
        })),
        ..ZarrPadOptions::default()
    };
    let e = ndpad_zarr::pad(&a, &b, &spec(Mode::Reflect), &opts).unwrap_err();
    assert!(matches!(e, ZarrError::Interrupted), "{e}");
    assert!(done.load(Ordering::SeqCst) < 8 * 12 + 20 * 20);
    assert!(!b.exists());
    no_staging(dir.path());
}

#[test]
fn outputs_that_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.zarr");
    ndpad_zarr::write_tensor(&tensor(&[2, 2]), &a, &ZarrPadOptions::default()).unwrap();
    let s = spec(Mode::Edge);
    let opts = ZarrPadOptions::default();
    let e = ndpad_zarr::pad(&a, &a, &s, &opts).unwrap_err();
    assert!(
        e.to_string().contains("the output is the input array"),
        "{e}"
    );
    let e = ndpad_zarr::pad(&a, &a.join("c"), &s, &opts).unwrap_err();
    assert!(e.to_string().contains("lies inside the input array"), "{e}");
    let keep = dir.path().join("keep");
    std::fs::create_dir(&keep).unwrap();
    std::fs::write(keep.join("f"), b"x").unwrap();
    let e = ndpad_zarr::pad(&a, &keep, &s, &opts).unwrap_err();
    assert!(
        matches!(e, ZarrError::OutputNotReplaceable { group: false, .. }),
        "{e}"
    );
    let bad = ZarrPadOptions {
        chunks: Some(vec![1]),
        ..ZarrPadOptions::default()
    };
    let e = ndpad_zarr::pad(&a, &dir.path().join("b"), &s, &bad).unwrap_err();
    assert!(matches!(e, ZarrError::ChunksRank { rank: 2, .. }), "{e}");
    let e = ndpad_zarr::pad(&dir.path().join("none"), &keep, &s, &opts).unwrap_err();
    assert!(matches!(e, ZarrError::NotAnArray { .. }), "{e}");
}
