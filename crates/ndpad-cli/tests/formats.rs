//! Every file of `testdata/formats/` (written by numpy, ml_dtypes and the `onnx`
//! package) through the CLI: `info` reports the manifest's type and shape, `pad` to
//! .npy and .pb gives exactly the library's result, and every malformed file of
//! `bad/` is rejected with exit code 1, a message naming the file and the problem, no
//! panic, and bounded memory.

mod common;

use common::{assert_fails, ndpad, read, repo, s, stdout_ok};
use ndpad::{pad, AxisPad, DType, Mode, PadSpec};
use serde_json::Value;

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join("testdata/formats/manifest.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["files"].as_array().unwrap().clone()
}

fn entry_dtype(e: &Value) -> DType {
    e["dtype"].as_str().unwrap().parse().unwrap()
}

fn entry_shape(e: &Value) -> Vec<usize> {
    e["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

/// Raw `V1`/`V2` .npy data needs `--dtype`.
fn is_raw(e: &Value) -> bool {
    e["npy_descr"].as_str().is_some_and(|d| d.contains('V'))
}

#[test]
fn info_reports_every_fixture() {
    let mut n = 0;
    for e in manifest() {
        let path = e["path"].as_str().unwrap();
        if path.starts_with("bad/") {
            continue;
        }
        let file = format!("testdata/formats/{path}");
        let mut cmd = ndpad();
        cmd.args(["info", &file]);
        if is_raw(&e) {
            cmd.args(["--dtype", e["dtype"].as_str().unwrap()]);
        }
        let out = stdout_ok(&cmd.output().unwrap());
        let dtype = entry_dtype(&e);
        let shape = entry_shape(&e);
        // .npy files show numpy's name, with ONNX's beside it where they differ.
        assert!(
            out.contains(&format!("dtype: {dtype}\n"))
                || out.contains(&format!("dtype: {dtype} (ONNX: {})\n", dtype.onnx_name()))
                || out.contains(&format!(" (ONNX: {})\n", dtype.onnx_name())),
            "{path}: {out}"
        );
        assert!(
            out.contains(&format!("shape: {shape:?}\n")),
            "{path}: {out}"
        );
        let numel: usize = shape.iter().product();
        assert!(
            out.contains(&format!("elements: {numel}\n")),
            "{path}: {out}"
        );
        n += 1;
    }
    assert!(n > 90, "only {n} fixtures");
}

#[test]
fn raw_npy_needs_dtype() {
    for (file, dtype) in [
        ("bf16_as_V2.npy", "bfloat16"),
        ("f8e4m3fn_as_V1.npy", "float8e4m3fn"),
        ("int4_as_V1.npy", "int4"),
    ] {
        let path = format!("testdata/formats/npy/{file}");
        let tmp = tempfile::tempdir().unwrap();
        let outp = tmp.path().join("o.pb");
        let out = ndpad()
            .args(["pad", &path, s(&outp), "--pads", "1,0,0,1"])
            .output()
            .unwrap();
        assert_fails(
            &out,
            1,
            &[&path, "raw dtype", "pass --dtype to say which", dtype],
        );
        assert!(!outp.exists());
        let out = ndpad().args(["info", &path]).output().unwrap();
        assert_fails(&out, 1, &["pass --dtype"]);
        // With --dtype: padded and written with the type (a .pb records it).
        stdout_ok(
            &ndpad()
                .args([
                    "pad",
                    &path,
                    s(&outp),
                    "--pads",
                    "1,0,0,1",
                    "--dtype",
                    dtype,
                ])
                .output()
                .unwrap(),
        );
        let t = read(&outp, None);
        assert_eq!(t.dtype().name(), dtype);
        assert_eq!(t.shape(), &[3, 4]);
        // A --dtype that does not fit the file is refused.
        let out = ndpad()
            .args([
                "pad",
                &path,
                s(&outp),
                "--pads",
                "1,0,0,1",
                "--dtype",
                "int64",
            ])
            .output()
            .unwrap();
        assert_fails(&out, 1, &[&path, "(set by --dtype int64)"]);
    }
    // --dtype on a .pb must match its declared type.
    let tmp = tempfile::tempdir().unwrap();
    let out = ndpad()
        .args([
            "pad",
            "testdata/formats/pb/float_raw.pb",
            s(&tmp.path().join("o.pb")),
            "--pads",
            "1,0,0,1",
            "--dtype",
            "double",
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["float_raw.pb", "--dtype float64", "float32"]);
    // An unknown type name is a usage error.
    let out = ndpad()
        .args(["info", "examples/image.npy", "--dtype", "float7"])
        .output()
        .unwrap();
    assert_fails(&out, 2, &["float7"]);
}

/// Pads every fixture of rank >= 1 by one constant element before and after each axis,
/// into .npy and .pb, and compares with the library's own result on the same input.
#[test]
fn pad_round_trips_every_fixture() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for e in manifest() {
        let path = e["path"].as_str().unwrap();
        if path.starts_with("bad/") {
            continue;
        }
        let file = repo().join("testdata/formats").join(path);
        let dtype = entry_dtype(&e);
        let shape = entry_shape(&e);
        let raw = is_raw(&e);
        let input = read(&file, raw.then_some(dtype));
        assert_eq!(input.dtype(), dtype, "{path}");
        if shape.is_empty() {
            // Rank 0 has no axis to pad: rejected by every front end.
            let out = ndpad()
                .args(["pad", s(&file), s(&tmp.path().join("x.npy")), "--pads", ""])
                .output()
                .unwrap();
            assert_fails(&out, 1, &["rank 0"]);
            continue;
        }
        let spec = PadSpec::new(vec![AxisPad::new(1, 1); shape.len()], Mode::Constant(None));
        let want = pad(input.view(), &spec).unwrap();
        let pads = vec!["1"; 2 * shape.len()].join(",");
        for ext in ["npy", "pb"] {
            // numpy's fixed-width strings cannot end in NUL; every string fixture pads
            // with "" which is fine.
            let outp = tmp.path().join(format!("out.{ext}"));
            let mut cmd = ndpad();
            cmd.args(["pad", s(&file), s(&outp), "--pads", &pads]);
            if raw {
                cmd.args(["--dtype", dtype.name()]);
            }
            stdout_ok(&cmd.output().unwrap());
            let got = read(
                &outp,
                Some(dtype).filter(|_| ext == "npy" && needs_dtype(dtype)),
            );
            assert_eq!(got, want, "{path} -> .{ext}");
            checked += 1;
        }
    }
    assert!(checked > 180, "only {checked} round trips");
}

/// Types that .npy stores as raw `V` data (numpy has no dtype for them).
fn needs_dtype(d: DType) -> bool {
    use DType::*;
    matches!(
        d,
        BFloat16
            | Float8E4M3FN
            | Float8E4M3FNUZ
            | Float8E5M2
            | Float8E5M2FNUZ
            | Float8E8M0
            | Int4
            | Uint4
            | Float4E2M1
            | Int2
            | Uint2
    )
}

/// What each malformed file's message must say.
fn expected_message(name: &str) -> &'static str {
    match name {
        "bad_version.npy" => "format version 9.0",
        "empty.npy" => "empty",
        "external_data.pb" => "external data is not supported",
        "garbage.pb" => "invalid TensorProto protobuf",
        "header_len_too_big.npy" => "header needs 60010 bytes",
        "header_missing_key.npy" => "'fortran_order' is missing",
        "header_not_dict.npy" => "malformed .npy header",
        "huge_dims.pb" => "[1000000, 1000000000]",
        "huge_shape.npy" => "[1000000, 1000000000]",
        "int4_raw_length_mismatch.pb" => "has 3 bytes but dims [3] of int4 need 2",
        "negative_dim.npy" => "negative",
        "object_dtype.npy" => "object (pickled) arrays are not supported",
        "overflow_shape.npy" => "[4294967296, 4294967296, 4294967296]",
        "raw_data_length_mismatch.pb" => "has 20 bytes but dims [3, 4] of float32 need 48",
        "truncated.pb" => "truncated",
        "truncated_data.npy" => "needs 48 bytes of data but 41 bytes follow",
        "truncated_header.npy" => "truncated input",
        "typed_count_mismatch.pb" => "int32_data: has 5 values but dims [2, 3]",
        "unknown_data_type.pb" => "999",
        "unknown_dtype.npy" => "<q9",
        "wrong_magic.npy" => "not a .npy file",
        other => panic!("no expected message for new bad file {other}: add one"),
    }
}

#[test]
fn bad_files_are_rejected_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let outp = tmp.path().join("out.npy");
    let mut n = 0;
    for e in manifest() {
        let path = e["path"].as_str().unwrap();
        let Some(name) = path.strip_prefix("bad/") else {
            continue;
        };
        let file = format!("testdata/formats/{path}");
        let want = expected_message(name);
        for args in [
            vec!["info", file.as_str()],
            vec!["pad", file.as_str(), s(&outp), "--pads", "1,1"],
        ] {
            let out = ndpad().args(&args).output().unwrap();
            assert_fails(&out, 1, &[&format!("ndpad: error: {file}: "), want]);
        }
        assert!(!outp.exists(), "{file} left an output");
        n += 1;
    }
    assert_eq!(n, 21);
    assert_eq!(common::listing(tmp.path()), Vec::<String>::new());
}

/// Every malformed file (among them headers claiming 10^15 elements) is refused before
/// anything is allocated from its numbers: under a 512 MiB address-space limit, fast.
#[cfg(target_os = "linux")]
#[test]
fn bad_files_under_a_memory_limit() {
    let bin = assert_cmd::cargo::cargo_bin("ndpad");
    let bad: Vec<String> = manifest()
        .iter()
        .filter_map(|e| e["path"].as_str()?.strip_prefix("bad/").map(str::to_string))
        .collect();
    assert_eq!(bad.len(), 21);
    for f in bad {
        let file = format!("testdata/formats/bad/{f}");
        let start = std::time::Instant::now();
        let out = std::process::Command::new("sh")
            .current_dir(repo())
            .arg("-c")
            .arg(format!(
                "ulimit -v 524288 && exec '{}' info '{file}'",
                bin.display()
            ))
            .output()
            .unwrap();
        assert_fails(&out, 1, &[&file]);
        assert!(
            start.elapsed().as_secs_f64() < 5.0,
            "{f} took {:?}",
            start.elapsed()
        );
    }
}

#[test]
fn fortran_and_big_endian_inputs_pad_in_c_order() {
    // i2_f_3d.npy is Fortran order; the output is C order with the same values.
    let tmp = tempfile::tempdir().unwrap();
    let outp = tmp.path().join("o.npy");
    let file = repo().join("testdata/formats/npy/i2_f_3d.npy");
    stdout_ok(
        &ndpad()
            .args(["pad", s(&file), s(&outp), "--pads", "0,0,0,0,0,0"])
            .output()
            .unwrap(),
    );
    assert_eq!(read(&outp, None), read(&file, None));
    let info = stdout_ok(&ndpad().args(["info", s(&outp)]).output().unwrap());
    assert!(info.contains("C order"), "{info}");
    let file = repo().join("testdata/formats/npy/f4_be.npy");
    stdout_ok(
        &ndpad()
            .args(["pad", s(&file), s(&outp), "--pads", "0,0,0,0"])
            .output()
            .unwrap(),
    );
    assert_eq!(read(&outp, None), read(&file, None));
    let info = stdout_ok(&ndpad().args(["info", s(&outp)]).output().unwrap());
    assert!(info.contains("\"<f4\""), "{info}");
}
