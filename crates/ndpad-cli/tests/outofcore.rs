//! `ndpad pad` window by window: outputs larger than `--window-bytes` are written
//! from a `.npy` input read by boxes, never whole; the result is the same file, and a
//! file larger than the process's memory limit pads.

mod common;

use std::io::Write;
use std::os::unix::fs::FileExt;
use std::time::Duration;

use common::{ndpad, s, write};
use ndpad::{axis_map, AxisPad, DType, Mode, PadSpec, Tensor};

/// The same pad, written whole and window by window (4 KiB windows), gives the same
/// bytes, for every front end, crops and interior padding.
#[test]
fn windows_give_the_whole_pad() {
    let dir = tempfile::tempdir().unwrap();
    let f32s: Vec<f32> = (0..3 * 40 * 50).map(|i| i as f32 * 0.5 - 7.0).collect();
    let x = Tensor::from_slice(&[3, 40, 50], &f32s).unwrap();
    let bytes: Vec<u8> = (0..40 * 60 * 3).map(|i| (i * 7 % 251) as u8).collect();
    let img = Tensor::from_slice(&[40, 60, 3], &bytes).unwrap();
    let cases: Vec<(&Tensor, Vec<&str>)> = vec![
        (&x, vec!["--mode", "reflect", "--pads", "1,3,2,0,4,5"]),
        (&x, vec!["--mode", "wrap", "--pads", "2,45,60,1,7,55"]),
        (&x, vec!["--mode", "edge", "--pads=-1,-3,2,0,4,-5"]),
        (&x, vec!["--value", "2.5", "--pads", "0,9,0,1,0,3"]),
        (
            &x,
            vec![
                "--framework",
                "openvino",
                "--mode",
                "symmetric",
                "--pads-begin=0,-2,3",
                "--pads-end=1,4,-6",
            ],
        ),
        (
            &x,
            vec![
                "--framework",
                "ngraph",
                "--value",
                "9",
                "--padding-below=1,-1,2",
                "--padding-above",
                "0,2,1",
                "--padding-interior",
                "0,1,2",
            ],
        ),
        (
            &x,
            vec![
                "--framework",
                "numpy",
                "--mode",
                "symmetric",
                "--pad-width",
                "1:2,70:3,0:9",
            ],
        ),
        (&img, vec!["--mode", "reflect", "--pads", "16,16,0,16,16,0"]),
    ];
    let input = dir.path().join("x.npy");
    let whole = dir.path().join("whole.npy");
    let windowed = dir.path().join("windowed.npy");
    for (t, flags) in cases {
        write(&input, t);
        ndpad()
            .args(["pad", s(&input), s(&whole)])
            .args(&flags)
            .assert()
            .success();
        ndpad()
            .args(["pad", s(&input), s(&windowed), "--window-bytes", "4K"])
            .args(&flags)
            .assert()
            .success();
        let (a, b) = (
            std::fs::read(&whole).unwrap(),
            std::fs::read(&windowed).unwrap(),
        );
        assert!(
            a.len() > 4096,
            "{flags:?}: the output must need several windows"
        );
        assert!(a == b, "{flags:?}: windowed output differs");
    }
}

#[test]
fn window_bytes_is_checked() {
    let out = ndpad()
        .args([
            "pad",
            "examples/image.npy",
            "/tmp/never.npy",
            "--pads",
            "1,1,1,1",
        ])
        .args(["--window-bytes", "100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("least window of 4096 bytes"));
}

/// A 256 MiB `.npy` padded under a 128 MiB address-space limit (so neither the input
/// nor the output can be held): with the default 256 MiB windows it fails cleanly,
/// naming `--window-bytes` and leaving nothing behind; with 16 MiB windows the output
/// is checked on sampled boxes against the coordinate maps the reference pads with.
/// The files are removed afterwards.
#[test]
fn pads_a_file_twice_its_memory_limit() {
    const SHAPE: [usize; 3] = [64, 1024, 1024];
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.npy");
    let output = dir.path().join("padded.npy");
    // Element i holds i (uint32), written 4 MiB at a time.
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        f.write_all(&ndpad_formats::npy::npy_header(DType::Uint32, &SHAPE).unwrap())
            .unwrap();
        let n: usize = SHAPE.iter().product();
        let chunk = 1 << 20;
        let mut buf = Vec::with_capacity(chunk * 4);
        for start in (0..n).step_by(chunk) {
            buf.clear();
            buf.extend((start..start + chunk).flat_map(|i| (i as u32).to_le_bytes()));
            f.write_all(&buf).unwrap();
        }
    }
    let pads = [2i64, -3, 5, 1, 4, -2];
    let limited = |window: &[&str]| {
        assert_cmd::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 131072 && exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_ndpad"))
            .args(["pad", s(&input), s(&output), "--mode", "reflect"])
            .arg(format!("--pads={}", pads.map(|p| p.to_string()).join(",")))
            .args(window)
            .timeout(Duration::from_secs(600))
            .output()
            .unwrap()
    };
    let out = limited(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot allocate") && err.contains("a smaller --window-bytes"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "{err}");
    let out = limited(&["--window-bytes", "16M"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&input).unwrap();
    // The expected value of each output element: the input element its axes map to.
    let spec = PadSpec::new(
        (0..3).map(|a| AxisPad::new(pads[a], pads[a + 3])).collect(),
        Mode::Reflect,
    );
    let maps: Vec<_> = (0..3)
        .map(|a| axis_map(a, SHAPE[a], &spec.axes[a], &spec).unwrap())
        .collect();
    let out_shape: Vec<usize> = maps.iter().map(|m| m.n).collect();
    let file = std::fs::File::open(&output).unwrap();
    let header = {
        let mut h = vec![0u8; 4096];
        file.read_at(&mut h, 0).unwrap();
        ndpad_formats::npy::parse_npy_header(&h).unwrap()
    };
    assert_eq!(header.shape, out_shape);
    let len = file.metadata().unwrap().len() as usize;
    assert_eq!(
        len,
        header.data_offset + out_shape.iter().product::<usize>() * 4
    );
    // Boxes at the corners, edges and middle of the output.
    let starts = |n: usize| [0, 1, n / 2, n - 3];
    for &o0 in &starts(out_shape[0]) {
        for &o1 in &starts(out_shape[1]) {
            let row = o0 * out_shape[1] * out_shape[2] + o1 * out_shape[2];
            let mut got = vec![0u8; out_shape[2] * 4];
            file.read_exact_at(&mut got, (header.data_offset + row * 4) as u64)
                .unwrap();
            for o2 in 0..out_shape[2] {
                let src = |a: usize, o: usize| maps[a].src(o).unwrap();
                let i = (src(0, o0) * SHAPE[1] + src(1, o1)) * SHAPE[2] + src(2, o2);
                let v = u32::from_le_bytes(got[o2 * 4..o2 * 4 + 4].try_into().unwrap());
                assert_eq!(v, i as u32, "output ({o0}, {o1}, {o2})");
            }
        }
    }
}

/// A short axis repeated by a very large pad (more runs than a plan lists) pads
/// window by window as it does whole: its windows are tiled.
#[test]
fn huge_repeats_pad_by_windows() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("ten.npy");
    write(
        &input,
        &Tensor::from_slice(&[10], &(0u8..10).collect::<Vec<_>>()).unwrap(),
    );
    let whole = dir.path().join("whole.npy");
    ndpad()
        .args([
            "pad",
            s(&input),
            s(&whole),
            "--mode",
            "wrap",
            "--pads",
            "50000000,3",
        ])
        .assert()
        .success();
    for budget in ["1M", "32M"] {
        let windows = dir.path().join(format!("w{budget}.npy"));
        ndpad()
            .args([
                "pad",
                s(&input),
                s(&windows),
                "--mode",
                "wrap",
                "--pads",
                "50000000,3",
            ])
            .args(["--window-bytes", budget])
            .assert()
            .success();
        assert!(
            std::fs::read(&windows).unwrap() == std::fs::read(&whole).unwrap(),
            "--window-bytes {budget}"
        );
    }
}
