//! `ndpad pad`, `shape` and `info` end to end: every framework, every format, the
//! value parser, exit codes, atomic outputs and the README's first command.

mod common;

use std::path::Path;

use common::{assert_fails, listing, ndpad, read, repo, s, stdout_ok, write};
use ndpad::{DType, Tensor};

/// The README's first command, exactly: pad the shipped example and show the result.
#[test]
fn readme_first_command() {
    let tmp = tempfile::tempdir().unwrap();
    let padded = tmp.path().join("padded.npy");
    let out = ndpad()
        .args([
            "pad",
            "examples/image.npy",
            s(&padded),
            "--mode",
            "reflect",
            "--pads",
            "2,2,2,2",
        ])
        .output()
        .unwrap();
    assert_eq!(stdout_ok(&out), "");
    assert!(out.stderr.is_empty());
    let shown = stdout_ok(
        &ndpad()
            .args(["info", "--values", s(&padded)])
            .output()
            .unwrap(),
    );
    let values = "\
values:
[[22 21 20 21 22 23 24 25 26 27 26 25]
 [12 11 10 11 12 13 14 15 16 17 16 15]
 [ 2  1  0  1  2  3  4  5  6  7  6  5]
 [12 11 10 11 12 13 14 15 16 17 16 15]
 [22 21 20 21 22 23 24 25 26 27 26 25]
 [32 31 30 31 32 33 34 35 36 37 36 35]
 [42 41 40 41 42 43 44 45 46 47 46 45]
 [52 51 50 51 52 53 54 55 56 57 56 55]
 [42 41 40 41 42 43 44 45 46 47 46 45]
 [32 31 30 31 32 33 34 35 36 37 36 35]]
";
    assert!(
        shown.contains("dtype: uint8\nshape: [10, 12]\nelements: 120\nbytes: 120\n"),
        "{shown}"
    );
    assert!(shown.ends_with(values), "{shown}");
    // The shipped example is the 6x8 image 10 * row + column.
    let image = read(&repo().join("examples/image.npy"), None);
    let want: Vec<u8> = (0..6)
        .flat_map(|r| (0..8).map(move |c| 10 * r + c))
        .collect();
    assert_eq!(image, Tensor::from_slice(&[6, 8], &want).unwrap());
}

fn input_2x3(dir: &Path, ext: &str) -> std::path::PathBuf {
    let p = dir.join(format!("x.{ext}"));
    write(
        &p,
        &Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap(),
    );
    p
}

fn run_pad(input: &Path, output: &Path, args: &[&str]) -> std::process::Output {
    ndpad()
        .args(["pad", s(input), s(output)])
        .args(args)
        .output()
        .unwrap()
}

fn values_i32(p: &Path) -> (Vec<usize>, Vec<i32>) {
    let t = read(p, None);
    (t.shape().to_vec(), t.to_vec::<i32>().unwrap())
}

/// Input extension, output extension, flags, expected shape and values.
type Case = (
    &'static str,
    &'static str,
    &'static [&'static str],
    Vec<usize>,
    Vec<i32>,
);

#[test]
fn every_framework_and_format() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: [Case; 6] = [
        // ONNX (default), .npy -> .npy.
        (
            "npy",
            "npy",
            &["--mode", "edge", "--pads", "0,1,1,0"],
            vec![3, 4],
            vec![1, 1, 2, 3, 4, 4, 5, 6, 4, 4, 5, 6],
        ),
        // ONNX opset 18 with axes, negative pads, .npy -> .pb.
        (
            "npy",
            "pb",
            &["--opset", "18", "--pads", "-1,2", "--axes", "-1"],
            vec![2, 4],
            vec![2, 3, 0, 0, 5, 6, 0, 0],
        ),
        // ONNX Pad-11 with a value, .pb -> .npy.
        (
            "pb",
            "npy",
            &["--opset", "11", "--pads", "0,1,0,0", "--value", "7"],
            vec![2, 4],
            vec![7, 1, 2, 3, 7, 4, 5, 6],
        ),
        // OpenVINO Pad-12: negative pads read the uncropped input; .pb -> .pb.
        (
            "pb",
            "pb",
            &[
                "--framework",
                "openvino",
                "--mode",
                "SYMMETRIC",
                "--pads-begin",
                "0,-1",
                "--pads-end",
                "0,2",
            ],
            vec![2, 4],
            vec![2, 3, 3, 2, 5, 6, 6, 5],
        ),
        // nGraph with interior padding and a value.
        (
            "npy",
            "npy",
            &[
                "--framework",
                "ngraph",
                "--mode",
                "constant",
                "--padding-below",
                "0,0",
                "--padding-above",
                "0,1",
                "--padding-interior",
                "1,0",
                "--value",
                "-9",
            ],
            vec![3, 4],
            vec![1, 2, 3, -9, -9, -9, -9, -9, 4, 5, 6, -9],
        ),
        // numpy: oversized wrap repeats.
        (
            "npy",
            "npy",
            &[
                "--framework",
                "numpy",
                "--mode",
                "wrap",
                "--pad-width",
                "0:0,4:0",
            ],
            vec![2, 7],
            vec![3, 1, 2, 3, 1, 2, 3, 6, 4, 5, 6, 4, 5, 6],
        ),
    ];
    for (i, (inx, outx, args, shape, data)) in cases.into_iter().enumerate() {
        let input = input_2x3(tmp.path(), inx);
        let output = tmp.path().join(format!("out{i}.{outx}"));
        let out = run_pad(&input, &output, args);
        assert_eq!(stdout_ok(&out), "", "case {i}");
        assert_eq!(values_i32(&output), (shape, data), "case {i}: {args:?}");
    }
}

#[test]
fn negative_lists_parse_with_and_without_equals() {
    let tmp = tempfile::tempdir().unwrap();
    let input = input_2x3(tmp.path(), "npy");
    let a = tmp.path().join("a.npy");
    let b = tmp.path().join("b.npy");
    stdout_ok(&run_pad(&input, &a, &["--pads", "-1,0,2,3"]));
    stdout_ok(&run_pad(&input, &b, &["--pads=-1,0,2,3"]));
    assert_eq!(read(&a, None), read(&b, None));
    assert_eq!(read(&a, None).shape(), &[3, 6]);
    // Lists that are not numbers are usage errors (clap's, exit 2).
    let out = run_pad(&input, &a, &["--pads", "1,x,0,0"]);
    assert_fails(&out, 2, &["--pads", "\"x\" is not an integer"]);
    let out = run_pad(&input, &a, &["--framework", "numpy", "--pad-width", "1-2"]);
    assert_fails(&out, 2, &["--pad-width"]);
}

#[test]
fn values_parse_as_the_tensor_type() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("o.pb");
    let f = tmp.path().join("f.npy");
    write(&f, &Tensor::from_slice(&[1], &[1.5f32]).unwrap());
    for (v, bits) in [
        ("nan", f32::NAN.to_bits()),
        ("-inf", f32::NEG_INFINITY.to_bits()),
        ("-2.5e-3", (-2.5e-3f32).to_bits()),
    ] {
        stdout_ok(&run_pad(&f, &o, &["--pads", "1,0", "--value", v]));
        let t = read(&o, None).to_vec::<f32>().unwrap();
        assert_eq!(t[0].to_bits() & 0xFFC0_0000, bits & 0xFFC0_0000, "{v}");
        assert_eq!(t[1], 1.5);
    }
    let b = tmp.path().join("b.pb");
    write(&b, &Tensor::from_bytes(DType::Bool, &[1], vec![0]).unwrap());
    stdout_ok(&run_pad(&b, &o, &["--pads", "0,1", "--value", "true"]));
    assert_eq!(read(&o, None).bytes().unwrap(), &[0, 1]);
    let st = tmp.path().join("s.pb");
    write(&st, &Tensor::from_strings(&[1], vec!["a"]).unwrap());
    stdout_ok(&run_pad(&st, &o, &["--pads", "1,1", "--value", "-x y"]));
    assert_eq!(
        read(&o, None).strings().unwrap(),
        &["-x y".to_string(), "a".into(), "-x y".into()]
    );
    // A value that is not one of the type: rejected (exit 1), naming it.
    let out = run_pad(&f, &o, &["--pads", "1,0", "--value", "abc"]);
    assert_fails(
        &out,
        1,
        &["ONNX Pad-25: constant_value: invalid float32 value \"abc\": not a number"],
    );
    let i = input_2x3(tmp.path(), "npy");
    let out = run_pad(&i, &o, &["--pads", "1,0,0,0", "--value", "3000000000"]);
    assert_fails(
        &out,
        1,
        &["constant_value: invalid int32 value \"3000000000\": out of range"],
    );
}

#[test]
fn a_fractional_value_for_integer_data_is_refused_by_every_framework() {
    // The framework's constant has the data's type: 1.5 is not an int32, whichever
    // front end reads it (the message ndpad.onnx.pad & co. give too).
    let tmp = tempfile::tempdir().unwrap();
    let i = input_2x3(tmp.path(), "npy");
    let o = tmp.path().join("o.npy");
    for (flags, want) in [
        (
            &["--pads", "1,0,0,0"][..],
            "ONNX Pad-25: constant_value: invalid int32 value \"1.5\": not an integer",
        ),
        (
            &[
                "--framework",
                "openvino",
                "--pads-begin",
                "1,0",
                "--pads-end",
                "0,0",
            ],
            "OpenVINO Pad-12: pad_value: invalid int32 value \"1.5\": not an integer",
        ),
        (
            &[
                "--framework",
                "ngraph",
                "--padding-below",
                "1,0",
                "--padding-above",
                "0,0",
            ],
            "nGraph Pad-0: arg_pad_value: invalid int32 value \"1.5\": not an integer",
        ),
        (
            &["--framework", "numpy", "--pad-width", "1:0,0:0"],
            "numpy.pad: constant_values: invalid int32 value \"1.5\": not an integer",
        ),
    ] {
        let out = run_pad(&i, &o, &[flags, &["--value", "1.5"]].concat());
        assert_fails(&out, 1, &[want]);
        assert!(!o.exists());
        stdout_ok(&run_pad(&i, &o, &[flags, &["--value", "-7"]].concat()));
        assert_eq!(values_i32(&o).1[0], -7);
        std::fs::remove_file(&o).unwrap();
    }
    // Past 128 bits: out of range, not "not an integer".
    let out = run_pad(&i, &o, &["--pads", "1,0,0,0", "--value", &"9".repeat(50)]);
    assert_fails(&out, 1, &["out of range -2147483648..=2147483647"]);
}

#[test]
fn modes_are_case_insensitive_and_checked_per_framework() {
    let tmp = tempfile::tempdir().unwrap();
    let input = input_2x3(tmp.path(), "npy");
    let o = tmp.path().join("o.npy");
    stdout_ok(&run_pad(
        &input,
        &o,
        &["--mode", "ReFlEcT", "--pads", "0,1,0,1"],
    ));
    stdout_ok(&run_pad(
        &input,
        &o,
        &[
            "--framework",
            "NGRAPH",
            "--mode",
            "edge",
            "--padding-below",
            "0,1",
            "--padding-above",
            "0,0",
        ],
    ));
    // symmetric is OpenVINO's and numpy's, not ONNX's; wrap arrives in Pad-19.
    let out = run_pad(&input, &o, &["--mode", "symmetric", "--pads", "0,1,0,1"]);
    assert_fails(
        &out,
        1,
        &[
            "ONNX Pad-25",
            "\"symmetric\"",
            "constant, reflect, edge, wrap",
        ],
    );
    let out = run_pad(
        &input,
        &o,
        &["--opset", "18", "--mode", "wrap", "--pads", "0,1,0,1"],
    );
    assert_fails(&out, 1, &["ONNX Pad-18", "\"wrap\""]);
    let out = run_pad(
        &input,
        &o,
        &[
            "--framework",
            "openvino",
            "--mode",
            "wrap",
            "--pads-begin",
            "0,0",
            "--pads-end",
            "0,0",
        ],
    );
    assert_fails(&out, 1, &["OpenVINO Pad-12", "\"wrap\""]);
    // OpenVINO Pad-1 and Pad-12 both crop.
    let out = run_pad(
        &input,
        &o,
        &[
            "--framework",
            "openvino",
            "--opset",
            "1",
            "--pads-begin",
            "0,-1",
            "--pads-end",
            "0,0",
        ],
    );
    // Pad-1 crops as Pad-12 does (the runtime accepts negative pads in Pad-1).
    stdout_ok(&out);
    assert_eq!(read(&o, None).shape(), &[2, 2]);
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let input = input_2x3(tmp.path(), "npy");
    let o = tmp.path().join("o.npy");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--pads", "1,1,1,1", "--pad-width", "1:1"],
            "--pad-width does not apply to --framework onnx",
        ),
        (
            &["--framework", "numpy", "--pads", "1,1"],
            "--pads does not apply to --framework numpy",
        ),
        (
            &["--framework", "openvino", "--pads-begin", "1,1"],
            "needs --pads-end",
        ),
        (
            &["--framework", "ngraph", "--padding-above", "1,1"],
            "needs --padding-below",
        ),
        (&["--mode", "edge"], "needs --pads"),
        (&["--pads", "1,1,1,1", "--opset", "26"], "--opset 26"),
        (
            &[
                "--framework",
                "openvino",
                "--opset",
                "5",
                "--pads-begin",
                "0,0",
                "--pads-end",
                "0,0",
            ],
            "--opset 5",
        ),
        (
            &["--pads", "1,1,1,1", "--framework", "tensorflow"],
            "tensorflow",
        ),
        (&["--pads", "1,1,1,1", "--max-output-bytes", "lots"], "lots"),
        (&["--pads", "1,1,1,1", "--no-such-flag"], "--no-such-flag"),
        (&["--pads", "1,1,1,1", "--threads", "100000"], "--threads"),
    ];
    for (args, msg) in cases {
        let out = run_pad(&input, &o, args);
        assert_fails(&out, 2, &[msg]);
        assert!(!o.exists());
    }
    // Unknown extensions, missing arguments and commands.
    let out = run_pad(&input, &tmp.path().join("o.txt"), &["--pads", "1,1,1,1"]);
    assert_fails(&out, 2, &["o.txt", ".npy or .pb"]);
    let out = run_pad(&tmp.path().join("x.csv"), &o, &["--pads", "1,1,1,1"]);
    assert_fails(&out, 2, &["x.csv", ".npy or .pb"]);
    assert_fails(
        &ndpad().args(["pad", s(&input)]).output().unwrap(),
        2,
        &["OUTPUT"],
    );
    assert_fails(
        &ndpad().arg("transmogrify").output().unwrap(),
        2,
        &["transmogrify"],
    );
    assert_fails(&ndpad().output().unwrap(), 2, &["Usage"]);
}

#[test]
fn help_and_version_exit_0() {
    for args in [
        vec!["--help"],
        vec!["--version"],
        vec!["pad", "--help"],
        vec!["shape", "--help"],
        vec!["info", "--help"],
        vec!["run", "--help"],
        vec!["onnx-test", "--help"],
    ] {
        let out = stdout_ok(&ndpad().args(&args).output().unwrap());
        assert!(!out.is_empty(), "{args:?}");
    }
    let help = stdout_ok(&ndpad().args(["pad", "--help"]).output().unwrap());
    for flag in [
        "--pads-begin",
        "--padding-interior",
        "--pad-width",
        "--max-output-bytes",
        "--axes",
    ] {
        assert!(help.contains(flag), "{flag}");
    }
}

#[test]
fn rejected_inputs_exit_1_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let input = input_2x3(tmp.path(), "pb");
    let o = tmp.path().join("o.npy");
    let missing = tmp.path().join("missing.npy");
    assert_fails(
        &run_pad(&missing, &o, &["--pads", "1,1"]),
        1,
        &["missing.npy", "No such file"],
    );
    let dir_npy = tmp.path().join("d.npy");
    std::fs::create_dir(&dir_npy).unwrap();
    assert_fails(
        &run_pad(&dir_npy, &o, &["--pads", "1,1"]),
        1,
        &["d.npy", "directory"],
    );
    assert_fails(
        &run_pad(&input, &dir_npy, &["--pads", "1,1,1,1"]),
        1,
        &["d.npy", "directory"],
    );
    assert_fails(
        &run_pad(
            &input,
            &tmp.path().join("no/such/dir/o.npy"),
            &["--pads", "1,1,1,1"],
        ),
        1,
        &["no/such/dir/o.npy", "temporary file"],
    );
    assert_fails(
        &run_pad(&input, &o, &["--pads", "1,1"]),
        1,
        &["x.pb", "pads has 2 values but 4"],
    );
    assert_fails(
        &run_pad(&input, &o, &["--mode", "reflect", "--pads", "0,0,-3,0"]),
        1,
        &["x.pb", "negative extent"],
    );
    // Text that is not representable in .npy: a string ending in NUL.
    let st = tmp.path().join("s.pb");
    write(&st, &Tensor::from_strings(&[1], vec!["a\0"]).unwrap());
    assert_fails(&run_pad(&st, &o, &["--pads", "0,0"]), 1, &["o.npy", "NUL"]);
    assert!(!o.exists());
}

#[test]
fn max_output_bytes_refuses_before_allocating() {
    let tmp = tempfile::tempdir().unwrap();
    let input = input_2x3(tmp.path(), "npy");
    let o = tmp.path().join("o.npy");
    // 10^9 x 10^9 int32 elements: refused at once by the default limit.
    let start = std::time::Instant::now();
    let out = run_pad(&input, &o, &["--pads", "1000000000,1000000000,0,0"]);
    assert_fails(&out, 1, &["o.npy", "over the limit", "--max-output-bytes"]);
    assert!(start.elapsed().as_secs() < 5);
    // An explicit limit: 3x4 int32 is 48 bytes.
    let out = run_pad(
        &input,
        &o,
        &["--pads", "1,0,0,1", "--max-output-bytes", "47"],
    );
    assert_fails(&out, 1, &["needs 48 bytes", "limit of 47 bytes"]);
    stdout_ok(&run_pad(
        &input,
        &o,
        &["--pads", "1,0,0,1", "--max-output-bytes", "48"],
    ));
    stdout_ok(&run_pad(
        &input,
        &o,
        &["--pads", "1,0,0,1", "--max-output-bytes", "1K"],
    ));
    stdout_ok(&run_pad(
        &input,
        &o,
        &["--pads", "1,0,0,1", "--max-output-bytes", "unlimited"],
    ));
    assert_eq!(read(&o, None).shape(), &[3, 4]);
}

#[test]
fn outputs_are_atomic_and_inputs_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let input = input_2x3(tmp.path(), "npy");
    let before = std::fs::read(&input).unwrap();
    let o = tmp.path().join("o.pb");
    std::fs::write(&o, b"precious").unwrap();
    let mtime = std::fs::metadata(&o).unwrap().modified().unwrap();
    // Failures of every stage: the front end, the value, the output limit.
    for args in [
        &["--pads", "1,2,3"][..],
        &["--pads", "1,0,0,0", "--value", "x"],
        &["--pads", "1,0,0,0", "--max-output-bytes", "1"],
        &["--mode", "edge", "--pads", "0,0,0,0", "--dtype", "float"],
    ] {
        let out = run_pad(&input, &o, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(std::fs::read(&o).unwrap(), b"precious", "{args:?}");
        assert_eq!(std::fs::metadata(&o).unwrap().modified().unwrap(), mtime);
        assert_eq!(
            listing(tmp.path()),
            vec!["o.pb", "x.npy"],
            "{args:?}: a temporary file is left"
        );
    }
    // Success replaces it.
    stdout_ok(&run_pad(&input, &o, &["--pads", "1,0,0,0"]));
    assert_eq!(read(&o, None).shape(), &[3, 3]);
    assert_eq!(listing(tmp.path()), vec!["o.pb", "x.npy"]);
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input was modified"
    );
    // The output may not be the input, not even through a link.
    let out = run_pad(&input, &input, &["--pads", "1,0,0,0"]);
    assert_fails(&out, 1, &["never modifies its input"]);
    #[cfg(unix)]
    {
        let link = tmp.path().join("link.npy");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let out = run_pad(&input, &link, &["--pads", "1,0,0,0"]);
        assert_fails(&out, 1, &["never modifies its input"]);
        std::fs::remove_file(&link).unwrap();
    }
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input was modified"
    );
    // New files get ordinary permissions, not a temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let fresh = tmp.path().join("fresh.npy");
        stdout_ok(&run_pad(&input, &fresh, &["--pads", "1,0,0,0"]));
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert!(mode & 0o044 != 0 || mode == 0o600, "mode {mode:o}");
    }
}

#[test]
fn shape_inference() {
    let cases: &[(&[&str], &str)] = &[
        (&["--shape", "2,3", "--pads", "1,0,0,1"], "[3, 4]\n"),
        (
            &["--shape", "batch,3,?,5", "--pads", "0,0,1,1,0,0,1,1"],
            "[batch, 3, ?, 7]\n",
        ),
        // A name survives where its axis is not padded; a padded name prints `?`.
        (
            &["--shape", "N,C,224,224", "--pads", "0,0,1,1,0,0,1,1"],
            "[N, C, 226, 226]\n",
        ),
        (
            &["--shape", "N,C,H,W", "--pads", "0,0,1,1,0,0,1,1"],
            "[N, C, ?, ?]\n",
        ),
        (
            &["--shape", "N,H", "--pads", "0,1,0,1", "--axes", "-1,1"],
            "[N, ?]\n",
        ),
        // A repeated axis: the last entry's pads win.
        (
            &["--shape", "2,3,4", "--pads", "1,2,3,4", "--axes", "-1,2"],
            "[2, 3, 10]\n",
        ),
        (
            &["--shape", "3,4", "--pads", "1,-1", "--axes", "-1"],
            "[3, 4]\n",
        ),
        (
            &[
                "--shape",
                "3,4",
                "--framework",
                "openvino",
                "--pads-begin",
                "-5,0",
                "--pads-end",
                "0,0",
            ],
            "[0, 4]\n",
        ),
        (
            &[
                "--shape",
                "3,3",
                "--framework",
                "ngraph",
                "--padding-below",
                "1,2",
                "--padding-above",
                "1,0",
                "--padding-interior",
                "1,2",
            ],
            "[7, 9]\n",
        ),
        (
            &["--shape", "3,4", "--framework", "numpy", "--pad-width", "2"],
            "[7, 8]\n",
        ),
        (
            &[
                "--shape", "3", "--dtype", "string", "--opset", "13", "--pads", "1,1",
            ],
            "[5]\n",
        ),
    ];
    for (args, want) in cases {
        let out = stdout_ok(&ndpad().arg("shape").args(*args).output().unwrap());
        assert_eq!(&out, want, "{args:?}");
    }
    // Rejected pads (exit 1), usage errors (exit 2).
    let out = ndpad()
        .args(["shape", "--shape", "3,4", "--pads", "-5,0,0,0"])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["shape [3, 4]", "negative extent"]);
    let out = ndpad()
        .args([
            "shape", "--shape", "3", "--dtype", "string", "--opset", "11", "--pads", "1,1",
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["ONNX Pad-11", "string"]);
    let out = ndpad()
        .args(["shape", "--shape", "3,-4", "--pads", "0,0,0,0"])
        .output()
        .unwrap();
    assert_fails(&out, 2, &["negative"]);
    let out = ndpad().args(["shape", "--pads", "0,0"]).output().unwrap();
    assert_fails(&out, 2, &["--shape"]);
}

#[test]
fn info_of_both_formats_and_a_model() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("t.pb");
    write(
        &p,
        &Tensor::from_slice(&[2, 2], &[1.5f64, -0.0, f64::NAN, 1e300]).unwrap(),
    );
    let out = stdout_ok(&ndpad().args(["info", "--values", s(&p)]).output().unwrap());
    assert!(out.contains("format: ONNX TensorProto, name \"x\"\ndtype: float64 (ONNX: double)\nshape: [2, 2]\nelements: 4\nbytes: 32\n"), "{out}");
    assert!(out.contains("[[  1.5  -0.0]\n [  NaN 1e300]]"), "{out}");
    let out = stdout_ok(
        &ndpad()
            .args(["info", "examples/image.npy"])
            .output()
            .unwrap(),
    );
    assert!(
        out.starts_with("path: examples/image.npy\nformat: npy 1.0, descr \"|u1\", C order"),
        "{out}"
    );
    let out = stdout_ok(
        &ndpad()
            .args(["info", "testdata/onnx-node/test_constant_pad/model.onnx"])
            .output()
            .unwrap(),
    );
    assert!(out.contains("opsets: ai.onnx 25"), "{out}");
    assert!(
        out.contains("node 0 \"\": Pad (x, pads, value) -> (y) mode \"constant\"\n"),
        "{out}"
    );
    let s_path = tmp.path().join("s.npy");
    write(
        &s_path,
        &Tensor::from_strings(&[2], vec!["héllo", ""]).unwrap(),
    );
    let out = stdout_ok(&ndpad().args(["info", s(&s_path)]).output().unwrap());
    // numpy's dtype name, with ONNX's beside it where they differ.
    assert!(out.contains("dtype: str160 (ONNX: string)\n"), "{out}");
}

#[test]
fn no_progress_output_when_not_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("big.npy");
    write(
        &input,
        &Tensor::from_bytes(DType::Uint8, &[4096, 4096], vec![7u8; 1 << 24]).unwrap(),
    );
    let o = tmp.path().join("o.npy");
    let out = run_pad(&input, &o, &["--pads", "8,8,8,8", "--threads", "2"]);
    assert_eq!(stdout_ok(&out), "");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(&o, None).shape(), &[4112, 4112]);
}

#[test]
fn help_names_every_format() {
    let text = |args: &[&str]| stdout_ok(&ndpad().args(args).output().unwrap());
    for page in [text(&["--help"]), text(&["man"])] {
        for ext in [".npy", ".pb", ".zarr", ".onnx"] {
            assert!(page.contains(ext), "{ext} missing:\n{page}");
        }
    }
    let info = text(&["info", "--help"]);
    for ext in [".npy", ".pb", ".zarr", ".onnx"] {
        assert!(info.contains(ext), "{ext} missing:\n{info}");
    }
    let run = text(&["run", "--help"]);
    assert!(
        run.contains("Write the value NAME (a graph output or any node's output) to PATH"),
        "{run}"
    );
    // A file info cannot read: the message names what it takes.
    let out = ndpad().args(["info", "README.md"]).output().unwrap();
    assert_fails(&out, 2, &["README.md", ".npy or .pb", ".zarr", ".onnx"]);
}

#[test]
fn usage_errors_have_the_one_prefix() {
    // clap's own usage errors start as every other error does.
    let out = ndpad().arg("padx").output().unwrap();
    assert_fails(&out, 2, &["ndpad: error: unrecognized subcommand 'padx'"]);
    let out = ndpad()
        .args(["pad", "a.npy", "b.npy", "--pads", "x"])
        .output()
        .unwrap();
    assert_fails(&out, 2, &["ndpad: error: invalid value 'x' for '--pads"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("\nerror:"));
}
