//! `ndpad run` and `ndpad onnx-test` end to end, on the official ONNX Pad node tests
//! and on models built here.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_fails, listing, ndpad, read, repo, s, stdout_ok, write};
use ndpad::{DType, Tensor};
use ndpad_formats::onnx::{
    read_tensor, write_model, write_tensor, Attribute, AttributeValue, Dim, Graph, Model,
    NamedTensor, Node, ValueInfo,
};

fn value_info(name: &str, dtype: DType, shape: &[u64]) -> ValueInfo {
    ValueInfo {
        name: name.into(),
        elem_type: Some(dtype),
        shape: Some(shape.iter().map(|&d| Dim::Value(d)).collect()),
    }
}

fn attr(name: &str, value: AttributeValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

fn save_model(path: &Path, m: &Model) {
    std::fs::write(path, write_model(m).unwrap()).unwrap();
}

/// `Constant(pads) -> Pad(x, pads, cv) [wrap or constant] -> Identity -> y`, opset 19;
/// `cv` is an initializer.
fn pad_model(mode: &str) -> Model {
    let pads = Tensor::from_slice(&[4], &[0i64, 1, 1, 2]).unwrap();
    let mut constant = Node::new("Constant", &[], &["pads"]);
    constant.attributes = vec![attr("value", AttributeValue::Tensor(pads))];
    let mut pad = Node::new("Pad", &["x", "pads", "cv"], &["padded"]);
    pad.name = "the_pad".into();
    pad.attributes = vec![attr(
        "mode",
        AttributeValue::String(mode.as_bytes().to_vec()),
    )];
    let identity = Node::new("Identity", &["padded"], &["y"]);
    let graph = Graph {
        name: "g".into(),
        nodes: vec![constant, pad, identity],
        initializers: vec![NamedTensor {
            name: "cv".into(),
            tensor: Tensor::from_slice(&[], &[-1i32]).unwrap(),
        }],
        inputs: vec![value_info("x", DType::Int32, &[2, 3])],
        outputs: vec![value_info("y", DType::Int32, &[3, 6])],
        value_info: vec![],
    };
    Model::new(graph, 19)
}

fn x_2x3(dir: &Path) -> PathBuf {
    let p = dir.join("x.npy");
    write(
        &p,
        &Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap(),
    );
    p
}

#[test]
fn run_writes_outputs_in_both_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("m.onnx");
    save_model(&model, &pad_model("constant"));
    let x = x_2x3(tmp.path());
    let x_before = std::fs::read(&x).unwrap();
    let model_before = std::fs::read(&model).unwrap();
    let y = tmp.path().join("y.pb");
    let padded = tmp.path().join("padded.npy");
    let input = format!("x={}", s(&x));
    let out = ndpad()
        .args(["run", s(&model), "--input", &input])
        .args(["--output", &format!("y={}", s(&y))])
        .args(["--output", &format!("padded={}", s(&padded))])
        .output()
        .unwrap();
    assert_eq!(stdout_ok(&out), "");
    let want = Tensor::from_slice(
        &[3, 6],
        &[
            -1, 1, 2, 3, -1, -1, //
            -1, 4, 5, 6, -1, -1, //
            -1, -1, -1, -1, -1, -1,
        ],
    )
    .unwrap();
    assert_eq!(read(&y, None), want);
    assert_eq!(read(&padded, None), want);
    let named = read_tensor(&std::fs::read(&y).unwrap()).unwrap();
    assert_eq!(named.name, "y");
    assert_eq!(std::fs::read(&x).unwrap(), x_before);
    assert_eq!(std::fs::read(&model).unwrap(), model_before);

    // Without --output: the graph outputs are described.
    let out = ndpad()
        .args(["run", s(&model), "--input", &input])
        .output()
        .unwrap();
    assert_eq!(stdout_ok(&out), "output \"y\": int32 [3, 6]\n");

    // A graph input with an initializer may be overridden by --input; wrap ignores
    // the value.
    let mut m = pad_model("wrap");
    m.graph.inputs.push(value_info("cv", DType::Int32, &[]));
    save_model(&model, &m);
    let cv = tmp.path().join("cv.pb");
    write(&cv, &Tensor::from_slice(&[], &[9i32]).unwrap());
    stdout_ok(
        &ndpad()
            .args(["run", s(&model), "--input", &input])
            .args([
                "--input",
                &format!("cv={}", s(&cv)),
                "--output",
                &format!("y={}", s(&y)),
            ])
            .output()
            .unwrap(),
    );
    let want = [3, 1, 2, 3, 1, 2, 6, 4, 5, 6, 4, 5, 3, 1, 2, 3, 1, 2];
    assert_eq!(read(&y, None).to_vec::<i32>().unwrap(), want);
}

#[test]
fn run_reflect_oversize() {
    // Reflect by 3 of an axis of 3: repeats by default (the ONNX spec's Example 2);
    // ONNX Runtime's rejection with --reflect-oversize error.
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("m.onnx");
    let mut m = pad_model("reflect");
    let pads = Tensor::from_slice(&[4], &[0i64, 3, 0, 3]).unwrap();
    m.graph.nodes[0].attributes = vec![attr("value", AttributeValue::Tensor(pads))];
    m.graph.outputs = vec![value_info("y", DType::Int32, &[2, 9])];
    save_model(&model, &m);
    let x = x_2x3(tmp.path());
    let y = tmp.path().join("y.npy");
    let run = |extra: &[&str]| {
        ndpad()
            .args(["run", s(&model), "--input", &format!("x={}", s(&x))])
            .args(["--output", &format!("y={}", s(&y))])
            .args(extra)
            .output()
            .unwrap()
    };
    let want = [2, 3, 2, 1, 2, 3, 2, 1, 2, 5, 6, 5, 4, 5, 6, 5, 4, 5];
    stdout_ok(&run(&[]));
    assert_eq!(read(&y, None).to_vec::<i32>().unwrap(), want);
    std::fs::remove_file(&y).unwrap();
    stdout_ok(&run(&["--reflect-oversize", "repeat"]));
    assert_eq!(read(&y, None).to_vec::<i32>().unwrap(), want);
    std::fs::remove_file(&y).unwrap();
    assert_fails(
        &run(&["--reflect-oversize", "error"]),
        1,
        &[
            "m.onnx",
            "begin pad 3 exceeds the maximum 2 allowed by reflect",
        ],
    );
    assert!(!y.exists());
    assert_fails(
        &run(&["--reflect-oversize", "sometimes"]),
        2,
        &["invalid value 'sometimes' for '--reflect-oversize <POLICY>'"],
    );
}

#[test]
fn run_old_opsets_take_attributes() {
    let tmp = tempfile::tempdir().unwrap();
    let x = tmp.path().join("x.pb");
    write(&x, &Tensor::from_slice(&[2], &[1.0f32, 2.0]).unwrap());
    let y = tmp.path().join("y.npy");
    for (opset, name) in [(1, "paddings"), (2, "pads")] {
        let mut pad = Node::new("Pad", &["x"], &["y"]);
        pad.attributes = vec![
            attr(name, AttributeValue::Ints(vec![1, 2])),
            attr("value", AttributeValue::Float(0.5)),
        ];
        let graph = Graph {
            nodes: vec![pad],
            inputs: vec![value_info("x", DType::Float32, &[2])],
            outputs: vec![value_info("y", DType::Float32, &[5])],
            ..Graph::default()
        };
        let model = tmp.path().join(format!("m{opset}.onnx"));
        save_model(&model, &Model::new(graph, opset));
        stdout_ok(
            &ndpad()
                .args(["run", s(&model), "--input", &format!("x={}", s(&x))])
                .args(["--output", &format!("y={}", s(&y))])
                .output()
                .unwrap(),
        );
        assert_eq!(
            read(&y, None).to_vec::<f32>().unwrap(),
            vec![0.5, 1.0, 2.0, 0.5, 0.5],
            "opset {opset}"
        );
    }
}

#[test]
fn run_rejects_what_it_cannot_run() {
    let tmp = tempfile::tempdir().unwrap();
    let x = x_2x3(tmp.path());
    let input = format!("x={}", s(&x));
    let y = tmp.path().join("y.npy");
    let output = format!("y={}", s(&y));
    let model = tmp.path().join("m.onnx");

    // An operator other than Pad / Identity / Constant, named.
    let mut m = pad_model("constant");
    m.graph.nodes[2] = Node::new("Relu", &["padded"], &["y"]);
    save_model(&model, &m);
    let out = ndpad()
        .args(["run", s(&model), "--input", &input, "--output", &output])
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        &["m.onnx", "node 2 (Relu)", "operator Relu is not supported"],
    );

    // A Pad the version does not allow: the front end's message, with the node.
    let mut m = pad_model("symmetric");
    m.graph.nodes[1].name = "p".into();
    save_model(&model, &m);
    let out = ndpad()
        .args(["run", s(&model), "--input", &input, "--output", &output])
        .output()
        .unwrap();
    assert_fails(
        &out,
        1,
        &["node 1 \"p\" (Pad)", "ONNX Pad-19", "\"symmetric\""],
    );

    save_model(&model, &pad_model("constant"));
    // A graph input not given; one the model does not have; one of the wrong type.
    let out = ndpad()
        .args(["run", s(&model), "--output", &output])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["graph input \"x\" is not given"]);
    let out = ndpad()
        .args([
            "run",
            s(&model),
            "--input",
            &input,
            "--input",
            &format!("z={}", s(&x)),
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["no graph input \"z\""]);
    // An initializer that is not a graph input is a constant: it cannot be fed.
    let out = ndpad()
        .args([
            "run",
            s(&model),
            "--input",
            &input,
            "--input",
            &format!("cv={}", s(&x)),
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["no graph input \"cv\" (its inputs: x)"]);
    let f = tmp.path().join("f.npy");
    write(&f, &Tensor::from_slice(&[2, 3], &[0f32; 6]).unwrap());
    let out = ndpad()
        .args(["run", s(&model), "--input", &format!("x={}", s(&f))])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["f.npy", "declared int32", "float"]);
    let w = tmp.path().join("w.npy");
    write(&w, &Tensor::from_slice(&[3, 2], &[0i32; 6]).unwrap());
    let out = ndpad()
        .args(["run", s(&model), "--input", &format!("x={}", s(&w))])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["w.npy", "declared of shape [2, 3]", "[3, 2]"]);
    // A value the model does not compute.
    let out = ndpad()
        .args([
            "run",
            s(&model),
            "--input",
            &input,
            "--output",
            &format!("nope={}", s(&y)),
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["computes no value \"nope\""]);
    // Not a model.
    let out = ndpad()
        .args(["run", "testdata/formats/bad/garbage.pb", "--input", &input])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["garbage.pb", "ModelProto"]);
    // Usage errors: NAME=PATH syntax, an output given twice, a bad extension.
    let out = ndpad()
        .args(["run", s(&model), "--input", "x"])
        .output()
        .unwrap();
    assert_fails(&out, 2, &["NAME=PATH"]);
    let out = ndpad()
        .args([
            "run",
            s(&model),
            "--input",
            &input,
            "--output",
            &output,
            "--output",
            &format!("padded={}", s(&y)),
        ])
        .output()
        .unwrap();
    assert_fails(&out, 2, &["output of two values"]);
    let out = ndpad()
        .args(["run", s(&model), "--input", &input, "--output", "y=y.csv"])
        .output()
        .unwrap();
    assert_fails(&out, 2, &["y.csv"]);
    assert!(!y.exists());
    // The output may not overwrite an input.
    let out = ndpad()
        .args([
            "run",
            s(&model),
            "--input",
            &input,
            "--output",
            &format!("y={}", s(&x)),
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["never modifies its input"]);
}

#[test]
fn run_outputs_are_all_or_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("m.onnx");
    save_model(&model, &pad_model("constant"));
    let x = x_2x3(tmp.path());
    let y = tmp.path().join("y.npy");
    // The second output cannot be written: the first is not left behind either.
    let out = ndpad()
        .args(["run", s(&model), "--input", &format!("x={}", s(&x))])
        .args(["--output", &format!("y={}", s(&y))])
        .args([
            "--output",
            &format!("padded={}", s(&tmp.path().join("no/dir/p.npy"))),
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["no/dir/p.npy"]);
    assert_eq!(listing(tmp.path()), vec!["m.onnx", "x.npy"]);
    // The output limit applies to every Pad.
    let out = ndpad()
        .args(["run", s(&model), "--input", &format!("x={}", s(&x))])
        .args([
            "--output",
            &format!("y={}", s(&y)),
            "--max-output-bytes",
            "10",
        ])
        .output()
        .unwrap();
    assert_fails(&out, 1, &["over the limit of 10 bytes"]);
    assert_eq!(listing(tmp.path()), vec!["m.onnx", "x.npy"]);
}

/// A string Pad whose elements share one long text in memory but each take it in a
/// file: `run` refuses the file over the output limit before writing (it asked for
/// elements x length bytes at once, aborting the process, out of memory).
#[test]
fn run_limits_string_files() {
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("m.onnx");
    let long = "A".repeat(1 << 20);
    let pad = {
        let mut n = Node::new("Pad", &["x", "pads"], &["y"]);
        n.attributes = vec![attr("mode", AttributeValue::String(b"edge".to_vec()))];
        n
    };
    let graph = Graph {
        name: "g".into(),
        nodes: vec![pad],
        initializers: vec![
            NamedTensor {
                name: "x".into(),
                tensor: Tensor::from_strings(&[1], vec![long.as_str()]).unwrap(),
            },
            NamedTensor {
                name: "pads".into(),
                tensor: Tensor::from_slice(&[2], &[0i64, 200_000]).unwrap(),
            },
        ],
        inputs: vec![],
        outputs: vec![value_info("y", DType::String, &[200_001])],
        value_info: vec![],
    };
    save_model(&model, &Model::new(graph, 18));
    for (y, bytes) in [("y.npy", "209716248704"), ("y.pb", "209721648603")] {
        let out = ndpad()
            .args([
                "run",
                s(&model),
                "--output",
                &format!("y={}", s(&tmp.path().join(y))),
            ])
            .args(["--max-output-bytes", "1G"])
            .output()
            .unwrap();
        assert_fails(
            &out,
            1,
            &[
                &format!("{y}: the output of shape [200001] needs {bytes} bytes"),
                "over the limit of 1073741824 bytes",
            ],
        );
    }
    assert_eq!(listing(tmp.path()), vec!["m.onnx"]);
}

/// Runs `Pad(x, pads) [edge]` on the raw-typed `testdata/formats/npy/bf16_as_V2.npy`
/// as input `x`, declared of type `declared` (the output too), writing `y`.
fn run_on_raw_v2(dir: &Path, declared: Option<DType>, y: &Path) -> std::process::Output {
    let mut m = pad_model("edge");
    m.graph.nodes[1].inputs.truncate(2);
    m.graph.inputs[0].elem_type = declared;
    m.graph.outputs[0].elem_type = declared;
    m.graph.initializers.clear();
    let model = dir.join("m.onnx");
    save_model(&model, &m);
    ndpad()
        .args([
            "run",
            s(&model),
            "--input",
            "x=testdata/formats/npy/bf16_as_V2.npy",
        ])
        .args(["--output", &format!("y={}", s(y))])
        .output()
        .unwrap()
}

#[test]
fn run_types_raw_npy_inputs_from_the_model() {
    let tmp = tempfile::tempdir().unwrap();
    let y = tmp.path().join("y.pb");
    stdout_ok(&run_on_raw_v2(tmp.path(), Some(DType::BFloat16), &y));
    let t = read(&y, None);
    assert_eq!((t.dtype(), t.shape()), (DType::BFloat16, &[3usize, 6][..]));
}

#[test]
fn run_names_the_model_not_a_flag_for_raw_npy_types() {
    let tmp = tempfile::tempdir().unwrap();
    let y = tmp.path().join("y.pb");
    let run = |declared| run_on_raw_v2(tmp.path(), declared, &y);
    // A declared type that cannot be the raw data's: the model's type is named.
    assert_fails(
        &run(Some(DType::Int64)),
        1,
        &[
            "bf16_as_V2.npy: the element type int64 is not accepted",
            "(the element type the model declares for this input)",
        ],
    );
    // No declared type: the model is said to declare none (run has no --dtype).
    let out = run(None);
    assert_fails(
        &out,
        1,
        &[
            "raw dtype <V2",
            "the model declares no element type for this input",
        ],
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("--dtype"));
}

fn all_entries(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .map(|n| format!("{}/{n}", s(dir)))
        .collect()
}

/// `ndpad onnx-test testdata/onnx-node/*`: every official ONNX Pad node test passes.
#[test]
fn official_onnx_pad_node_tests_pass() {
    let args: Vec<String> = listing(&repo().join("testdata/onnx-node"))
        .into_iter()
        .map(|n| format!("testdata/onnx-node/{n}"))
        .collect();
    let out = stdout_ok(&ndpad().arg("onnx-test").args(&args).output().unwrap());
    let passes = out.lines().filter(|l| l.starts_with("PASS ")).count();
    assert_eq!(passes, 6, "{out}");
    for t in [
        "test_constant_pad",
        "test_constant_pad_axes",
        "test_constant_pad_negative_axes",
        "test_edge_pad",
        "test_reflect_pad",
        "test_wrap_pad",
    ] {
        assert!(
            out.contains(&format!("PASS testdata/onnx-node/{t}/test_data_set_0\n")),
            "{out}"
        );
    }
    assert!(
        out.ends_with("6 passed, 0 failed, 0 errors, 1 skipped\n"),
        "{out}"
    );
    // The parent directory works too.
    let out = stdout_ok(
        &ndpad()
            .args(["onnx-test", "testdata/onnx-node"])
            .output()
            .unwrap(),
    );
    assert!(out.ends_with("6 passed, 0 failed, 0 errors\n"), "{out}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

#[test]
fn onnx_test_reports_fail_and_error() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("test_constant_pad");
    copy_dir(&repo().join("testdata/onnx-node/test_constant_pad"), &t);
    // Data set 1: one expected element changed.
    copy_dir(&t.join("test_data_set_0"), &t.join("test_data_set_1"));
    let out0 = t.join("test_data_set_1/output_0.pb");
    let named = read_tensor(&std::fs::read(&out0).unwrap()).unwrap();
    let mut v = named.tensor.to_vec::<f32>().unwrap();
    v[7] += 1.0;
    let changed = Tensor::from_slice(named.tensor.shape(), &v).unwrap();
    std::fs::write(&out0, write_tensor(&changed.view(), &named.name).unwrap()).unwrap();
    // Data set 2: an input missing.
    copy_dir(&t.join("test_data_set_0"), &t.join("test_data_set_2"));
    std::fs::remove_file(t.join("test_data_set_2/input_1.pb")).unwrap();
    // A model with an unsupported operator.
    let bad = tmp.path().join("test_relu");
    copy_dir(&repo().join("testdata/onnx-node/test_edge_pad"), &bad);
    let mut m = pad_model("constant");
    m.graph.nodes = vec![
        Node::new("Pad", &["x", "pads"], &["t"]),
        Node::new("Relu", &["t"], &["y"]),
    ];
    m.graph.initializers.clear();
    let untyped = |n: &str| ValueInfo {
        name: n.into(),
        ..ValueInfo::default()
    };
    m.graph.inputs = vec![untyped("x"), untyped("pads")];
    m.graph.outputs = vec![untyped("y")];
    save_model(&bad.join("model.onnx"), &m);
    let missing = tmp.path().join("missing");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();

    let mut args = all_entries(tmp.path());
    args.push(s(&missing).to_string());
    let out = ndpad().arg("onnx-test").args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let idx = {
        let shape = named.tensor.shape();
        let mut rest = 7;
        let mut idx = vec![0; shape.len()];
        for i in (0..shape.len()).rev() {
            idx[i] = rest % shape[i];
            rest /= shape[i];
        }
        idx
    };
    let lines: Vec<&str> = text.lines().collect();
    let d = s(&t);
    assert!(
        lines.contains(&format!("PASS {d}/test_data_set_0").as_str()),
        "{text}"
    );
    let fail = format!(
        "FAIL {d}/test_data_set_1: output 0 \"y\": 1 of {} elements differ; first at index {idx:?}: expected {:?}, got {:?}",
        v.len(),
        v[7],
        v[7] - 1.0
    );
    assert!(lines.contains(&fail.as_str()), "{fail}\n{text}");
    assert!(
        text.contains(&format!(
            "ERROR {d}/test_data_set_2: 2 input_*.pb files for the model's 3 graph inputs"
        )),
        "{text}"
    );
    assert!(
        text.contains("ERROR ") && text.contains("operator Relu is not supported"),
        "{text}"
    );
    assert!(
        text.contains(&format!("ERROR {}: no model.onnx", s(&empty))),
        "{text}"
    );
    assert!(
        text.contains(&format!("ERROR {}: No such file", s(&missing))),
        "{text}"
    );
    assert!(text.ends_with("1 passed, 1 failed, 4 errors\n"), "{text}");
    // Nothing to run at all is a failure too.
    let out = ndpad()
        .args(["onnx-test", "testdata/onnx-node/generate.py"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no data sets found"));
    // At least one DIR is required (usage error).
    assert_fails(&ndpad().arg("onnx-test").output().unwrap(), 2, &["DIR"]);
}
