//! The command line's rough edges of issue 19, each pinned.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};

use common::{assert_fails, ndpad, read, s, stdout_ok, write};
use ndpad::{DType, Tensor};
use ndpad_formats::npy::{write_npy_strings_to, NpyStrings, StringKind};
use ndpad_formats::onnx::{
    write_model, Attribute, AttributeValue, Graph, Model, NamedTensor, Node, ValueInfo,
};

/// A string .npy of the given kind and width.
fn write_strings(path: &Path, values: &[&str], kind: StringKind, width: usize) {
    let t = Tensor::from_strings(
        &[values.len()],
        values.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
    )
    .unwrap();
    let mut out = Vec::new();
    write_npy_strings_to(&mut out, &t.view(), Some(NpyStrings { kind, width })).unwrap();
    std::fs::write(path, out).unwrap();
}

/// The descr of a .npy file.
fn descr(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    ndpad_formats::npy::parse_npy_header(&bytes).unwrap().descr
}

fn strings(path: &Path) -> Vec<String> {
    read(path, None).strings().unwrap().to_vec()
}

#[test]
fn a_string_npy_keeps_its_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let u = tmp.path().join("u.npy");
    let o = tmp.path().join("o.npy");
    // ASCII text in a <U file comes back <U (it used to come back |S).
    write_strings(&u, &["ab", "c"], StringKind::Unicode, 2);
    stdout_ok(
        &ndpad()
            .args(["pad", s(&u), s(&o), "--pads", "1,1"])
            .output()
            .unwrap(),
    );
    assert_eq!(descr(&o), "<U2");
    assert_eq!(strings(&o), ["", "ab", "c", ""]);
    // S stays S, and keeps at least its width.
    let b = tmp.path().join("b.npy");
    write_strings(&b, &["ab", "c"], StringKind::Bytes, 4);
    stdout_ok(
        &ndpad()
            .args(["pad", s(&b), s(&o), "--pads", "0,1"])
            .output()
            .unwrap(),
    );
    assert_eq!(descr(&o), "|S4");
    // A longer constant widens the output (ONNX pads with the whole value).
    stdout_ok(
        &ndpad()
            .args(["pad", s(&u), s(&o), "--pads", "0,1", "--value", "longer"])
            .output()
            .unwrap(),
    );
    assert_eq!(descr(&o), "<U6");
}

#[test]
fn run_outputs_keep_the_input_string_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("m.onnx");
    let pads = Tensor::from_slice(&[2], &[1i64, 1]).unwrap();
    let graph = Graph {
        name: "g".into(),
        nodes: vec![Node::new("Pad", &["x", "pads"], &["y"])],
        initializers: vec![NamedTensor {
            name: "pads".into(),
            tensor: pads,
        }],
        inputs: vec![ValueInfo {
            name: "x".into(),
            elem_type: Some(DType::String),
            shape: None,
        }],
        outputs: vec![ValueInfo {
            name: "y".into(),
            elem_type: Some(DType::String),
            shape: None,
        }],
        value_info: vec![],
    };
    std::fs::write(&model, write_model(&Model::new(graph, 19)).unwrap()).unwrap();
    let u = tmp.path().join("u.npy");
    write_strings(&u, &["ab"], StringKind::Unicode, 3);
    let o = tmp.path().join("o.npy");
    let out = ndpad()
        .args(["run", s(&model), "--input"])
        .arg(format!("x={}", s(&u)))
        .arg("--output")
        .arg(format!("y={}", s(&o)))
        .output()
        .unwrap();
    stdout_ok(&out);
    assert_eq!(descr(&o), "<U3");
    assert_eq!(strings(&o), ["", "ab", ""]);
    // run reads an input from stdin and writes an output to stdout with `-`.
    let out = ndpad()
        .args(["run", s(&model), "--input", "x=-", "--output", "y=-"])
        .write_stdin(std::fs::read(&u).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = ndpad_formats::npy::read_npy(&out.stdout).unwrap();
    assert_eq!(t.strings().unwrap(), ["", "ab", ""]);
    assert_eq!(
        ndpad_formats::npy::parse_npy_header(&out.stdout)
            .unwrap()
            .descr,
        "<U3"
    );
}

#[test]
fn numpy_framework_is_numpy_pad() {
    let tmp = tempfile::tempdir().unwrap();
    let u = tmp.path().join("u.npy");
    let o = tmp.path().join("o.npy");
    write_strings(&u, &["ab", "c"], StringKind::Unicode, 5);
    let np = |extra: &[&str], input: &Path| {
        ndpad()
            .args([
                "pad",
                s(input),
                s(&o),
                "--framework",
                "numpy",
                "--pad-width",
                "1:1",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    // Strings pad with '0' by default, as numpy.
    stdout_ok(&np(&[], &u));
    assert_eq!(strings(&o), ["0", "ab", "c", "0"]);
    assert_eq!(descr(&o), "<U5");
    // A longer --value is cut to the U5 width: np.pad(a, 1, constant_values='toolongvalue').
    stdout_ok(&np(&["--value", "toolongvalue"], &u));
    assert_eq!(strings(&o), ["toolo", "ab", "c", "toolo"]);
    assert_eq!(descr(&o), "<U5");
    // S: cut to bytes.
    let b = tmp.path().join("b.npy");
    write_strings(&b, &["ab"], StringKind::Bytes, 3);
    stdout_ok(&np(&["--value", "wxyz"], &b));
    assert_eq!(strings(&o), ["wxy", "ab", "wxy"]);
    assert_eq!(descr(&o), "|S3");
    // Rank 0 comes back unchanged.
    let z = tmp.path().join("z.npy");
    write(&z, &Tensor::from_slice(&[], &[7i32]).unwrap());
    stdout_ok(&np(&[], &z));
    assert_eq!(read(&o, None), Tensor::from_slice(&[], &[7i32]).unwrap());
}

#[test]
fn float_values_out_of_range_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("o.npy");
    let f32_in = tmp.path().join("f.npy");
    write(&f32_in, &Tensor::from_slice(&[1], &[1.5f32]).unwrap());
    let out = ndpad()
        .args(["pad", s(&f32_in), s(&o), "--pads", "1,0", "--value", "1e40"])
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        &["ONNX Pad-25: constant_value: invalid float32 value \"1e40\": out of range: the largest finite float32 is 3.4028235e38"],
    );
    let f16_in = tmp.path().join("h.npy");
    write(
        &f16_in,
        &Tensor::from_bytes(DType::Float16, &[1], vec![0x00, 0x3c]).unwrap(),
    );
    let out = ndpad()
        .args([
            "pad",
            s(&f16_in),
            s(&o),
            "--pads",
            "1,0",
            "--value",
            "1e-10",
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["invalid float16 value \"1e-10\": rounds to 0"]);
    // inf stays allowed.
    stdout_ok(
        &ndpad()
            .args(["pad", s(&f32_in), s(&o), "--pads", "1,0", "--value", "inf"])
            .output()
            .unwrap(),
    );
    assert_eq!(
        read(&o, None).to_vec::<f32>().unwrap(),
        [f32::INFINITY, 1.5]
    );
}

#[test]
fn errors_say_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("o.npy");
    let x = tmp.path().join("x.npy");
    write(&x, &Tensor::from_slice(&[2], &[1i32, 2]).unwrap());
    // A model given to pad.
    let out = ndpad()
        .args([
            "pad",
            "testdata/onnx-node/test_constant_pad/model.onnx",
            s(&o),
            "--pads",
            "1,1",
        ])
        .output()
        .unwrap();
    assert_fails(
        &out,
        2,
        &["this is a model, not a tensor file; use `ndpad run"],
    );
    // A mode the framework lacks: the frameworks that have it.
    let out = ndpad()
        .args(["pad", s(&x), s(&o), "--mode", "symmetric", "--pads", "1,1"])
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        &["ONNX Pad-25: mode \"symmetric\" is not supported (supported: constant, reflect, edge, wrap); mode \"symmetric\" is in --framework openvino, --framework ngraph, --framework numpy"],
    );
    // Complex: the form that works.
    let c = tmp.path().join("c.npy");
    write(
        &c,
        &Tensor::from_bytes(DType::Complex64, &[1], vec![0; 8]).unwrap(),
    );
    let out = ndpad()
        .args(["pad", s(&c), s(&o), "--pads", "1,1", "--value", "1+2j"])
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        &["write a complex value as re,im (`1,2` for 1+2j)"],
    );
    stdout_ok(
        &ndpad()
            .args(["pad", s(&c), s(&o), "--pads", "1,0", "--value", "1,2"])
            .output()
            .unwrap(),
    );
    // datetime64: not supported (not "the item size is not a number").
    let d = tmp.path().join("d.npy");
    let mut file =
        b"\x93NUMPY\x01\x00\x76\x00{'descr': '<M8[D]', 'fortran_order': False, 'shape': (1,), }"
            .to_vec();
    file.resize(127, b' ');
    file.push(b'\n');
    file.extend([0u8; 8]);
    std::fs::write(&d, file).unwrap();
    let out = ndpad().args(["info", s(&d)]).output().unwrap();
    assert_fails(&out, 1, &["datetime64 arrays are not supported"]);
    // Byte counts in limit errors come with KiB / MiB / GiB.
    let out = ndpad()
        .args([
            "pad",
            s(&x),
            s(&o),
            "--pads",
            "1048576,0",
            "--max-output-bytes",
            "1M",
        ])
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        &["needs 4194312 bytes (4 MiB), over the limit of 1048576 bytes (1 MiB)"],
    );
}

#[test]
fn reflect_oversize_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("o.npy");
    let x = tmp.path().join("x.npy");
    write(&x, &Tensor::from_slice(&[2], &[1i32, 2]).unwrap());
    let pad = |extra: &[&str]| {
        ndpad()
            .args(["pad", s(&x), s(&o), "--mode", "reflect", "--pads", "2,0"])
            .args(extra)
            .output()
            .unwrap()
    };
    stdout_ok(&pad(&[]));
    assert_eq!(read(&o, None).to_vec::<i32>().unwrap(), [1, 2, 1, 2]);
    stdout_ok(&pad(&["--reflect-oversize", "repeat"]));
    let out = pad(&["--reflect-oversize", "error"]);
    assert_fails(
        &out,
        1,
        &["begin pad 2 exceeds the maximum 1 allowed by reflect"],
    );
    // ONNX only.
    let out = ndpad()
        .args([
            "shape",
            "--shape",
            "3",
            "--framework",
            "numpy",
            "--pad-width",
            "1",
        ])
        .args(["--reflect-oversize", "error"])
        .output()
        .unwrap();
    assert_fails(
        &out,
        2,
        &["--reflect-oversize does not apply to --framework numpy"],
    );
}

#[test]
fn info_names_and_model_values() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("f.npy");
    write(&f, &Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap());
    let out = stdout_ok(&ndpad().args(["info", s(&f)]).output().unwrap());
    assert!(out.contains("dtype: float32 (ONNX: float)\n"), "{out}");
    let i = tmp.path().join("i.npy");
    write(&i, &Tensor::from_slice(&[2], &[1i64, 2]).unwrap());
    let out = stdout_ok(&ndpad().args(["info", s(&i)]).output().unwrap());
    assert!(out.contains("dtype: int64\n"), "{out}");
    // A model: --values prints initializers and attributes; the node shows its mode.
    let mut node = Node::new("Pad", &["x", "pads"], &["y"]);
    node.attributes = vec![Attribute {
        name: "mode".into(),
        value: AttributeValue::String(b"reflect".to_vec()),
    }];
    let graph = Graph {
        name: "g".into(),
        nodes: vec![node],
        initializers: vec![NamedTensor {
            name: "pads".into(),
            tensor: Tensor::from_slice(&[2], &[1i64, 2]).unwrap(),
        }],
        inputs: vec![],
        outputs: vec![],
        value_info: vec![],
    };
    let m = tmp.path().join("m.onnx");
    std::fs::write(&m, write_model(&Model::new(graph, 19)).unwrap()).unwrap();
    let out = stdout_ok(&ndpad().args(["info", s(&m)]).output().unwrap());
    assert!(
        out.contains("node 0 \"\": Pad (x, pads) -> (y) mode \"reflect\"\n"),
        "{out}"
    );
    assert!(!out.contains("initializer \"pads\""), "{out}");
    let out = stdout_ok(&ndpad().args(["info", "--values", s(&m)]).output().unwrap());
    assert!(
        out.contains("initializer \"pads\": int64 [2] [1 2]\n"),
        "{out}"
    );
    assert!(out.contains("  attribute mode: \"reflect\"\n"), "{out}");
}

#[test]
fn pipes_through_stdin_and_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let x = tmp.path().join("x.npy");
    write(&x, &Tensor::from_slice(&[2], &[1u8, 2]).unwrap());
    let bin = assert_cmd::cargo::cargo_bin("ndpad");
    // ndpad pad x.npy - ... | ndpad pad - o.npy ...
    let mut first = StdCommand::new(&bin)
        .args(["pad", s(&x), "-", "--pads", "1,0", "--value", "9"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let o = tmp.path().join("o.npy");
    let second = StdCommand::new(&bin)
        .args(["pad", "-", s(&o), "--mode", "edge", "--pads", "0,2"])
        .stdin(first.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(first.wait().unwrap().success());
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert_eq!(read(&o, None).to_vec::<u8>().unwrap(), [9, 1, 2, 2, 2]);
    // info reads stdin too; a broken input names <stdin>.
    let mut child = StdCommand::new(&bin)
        .args(["info", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&o).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("from standard input") && text.contains("shape: [5]"),
        "{text}"
    );
    let out = ndpad()
        .args(["info", "-"])
        .write_stdin("garbage")
        .output()
        .unwrap();
    assert_fails(&out, 1, &["<stdin>: "]);
}

#[test]
fn completions_and_man_page() {
    for (shell, marker) in [
        ("bash", "_ndpad()"),
        ("zsh", "#compdef ndpad"),
        ("fish", "complete -c ndpad"),
    ] {
        let out = stdout_ok(&ndpad().args(["completions", shell]).output().unwrap());
        assert!(out.contains(marker), "{shell}: {out}");
        assert!(out.contains("reflect-oversize"), "{shell}");
    }
    let out = stdout_ok(&ndpad().arg("man").output().unwrap());
    assert!(out.starts_with(".ie") || out.contains(".TH ndpad"), "{out}");
    assert!(out.contains(".TH ndpad-pad"), "{out}");
    let out = ndpad().args(["completions", "tcsh"]).output().unwrap();
    assert_fails(&out, 2, &["tcsh"]);
}

#[test]
fn help_states_byte_and_memory_order() {
    let out = stdout_ok(&ndpad().args(["pad", "--help"]).output().unwrap());
    assert!(
        out.contains(
            "The output is little-endian and in C order (a big-endian or Fortran .npy comes out"
        ),
        "{out}"
    );
    assert!(out.contains("--framework numpy is numpy.pad"), "{out}");
    let out = stdout_ok(&ndpad().args(["shape", "--help"]).output().unwrap());
    assert!(
        out.contains("a padded named\nextent prints as `?`"),
        "{out}"
    );
}
