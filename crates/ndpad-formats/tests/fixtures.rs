//! Reads the files written by numpy, ml_dtypes and the `onnx` package under
//! `testdata/formats/` (described by its `manifest.json`) and the official ONNX Pad
//! node tests under `testdata/onnx-node/`, and checks every value.

use std::path::{Path, PathBuf};

use ndpad::{DType, Tensor};
use ndpad_formats::npy::{read_npy_as, write_npy, NpyFile};
use ndpad_formats::onnx::{read_model, read_tensor, write_model, write_tensor, AttributeValue};
use serde_json::Value;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// The fixtures are checked in: a missing manifest is a failure, not a skip.
fn manifest() -> Value {
    let text = std::fs::read_to_string(testdata().join("formats/manifest.json"))
        .expect("testdata/formats/manifest.json (regenerate with testdata/formats/generate.py)");
    serde_json::from_str(&text).expect("manifest.json is JSON")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn float(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "nan" => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        _ => v.as_f64().unwrap_or_else(|| panic!("not a float: {v}")),
    }
}

fn same_f64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Checks `t` against a manifest entry's dtype, shape and data.
fn check_tensor(entry: &Value, t: &Tensor) {
    let path = entry["path"].as_str().unwrap();
    let dtype: DType = entry["dtype"].as_str().unwrap().parse().unwrap();
    let shape: Vec<usize> = entry["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(t.dtype(), dtype, "{path}");
    assert_eq!(t.shape(), shape.as_slice(), "{path}");
    let data = entry["data"].as_array().unwrap();
    if let Some(raw) = entry["raw_hex"].as_str() {
        assert_eq!(t.bytes().unwrap(), hex(raw).as_slice(), "{path}");
        return;
    }
    match dtype {
        DType::String => {
            let want: Vec<&str> = data.iter().map(|v| v.as_str().unwrap()).collect();
            assert_eq!(t.strings().unwrap(), want.as_slice(), "{path}");
        }
        DType::Bool => {
            let want: Vec<u8> = data.iter().map(|v| v.as_bool().unwrap() as u8).collect();
            assert_eq!(t.bytes().unwrap(), want.as_slice(), "{path}");
        }
        DType::Float32 | DType::Complex64 => {
            let got: Vec<f32> = t
                .bytes()
                .unwrap()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let want: Vec<f64> = flatten(data).iter().map(float).collect();
            assert_eq!(got.len(), want.len(), "{path}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    same_f64(f64::from(*g), *w as f32 as f64),
                    "{path}[{i}]: {g} vs {w}"
                );
            }
        }
        DType::Float64 | DType::Complex128 => {
            let got: Vec<f64> = t
                .bytes()
                .unwrap()
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let want: Vec<f64> = flatten(data).iter().map(float).collect();
            assert_eq!(got.len(), want.len(), "{path}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(same_f64(*g, *w), "{path}[{i}]: {g} vs {w}");
            }
        }
        d if d.is_integer() => {
            let ndpad::Layout::Bytes(w) = d.layout() else {
                panic!("{path}: packed type without raw_hex")
            };
            let signed = matches!(d, DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64);
            let got: Vec<i128> = t
                .bytes()
                .unwrap()
                .chunks_exact(w)
                .map(|c| {
                    let mut b = [0u8; 16];
                    b[..w].copy_from_slice(c);
                    let u = u128::from_le_bytes(b);
                    if signed && c[w - 1] & 0x80 != 0 {
                        (u as i128) - (1i128 << (8 * w))
                    } else {
                        u as i128
                    }
                })
                .collect();
            let want: Vec<i128> = data
                .iter()
                .map(|v| {
                    v.as_i64()
                        .map(i128::from)
                        .or(v.as_u64().map(i128::from))
                        .unwrap()
                })
                .collect();
            assert_eq!(got, want, "{path}");
        }
        other => panic!("{path}: no check for {other}"),
    }
}

fn f_order(e: &Value) -> bool {
    e["fortran_order"].as_bool().unwrap()
}

fn flatten(data: &[Value]) -> Vec<Value> {
    data.iter()
        .flat_map(|v| match v {
            Value::Array(a) => a.clone(),
            other => vec![other.clone()],
        })
        .collect()
}

fn entries(prefix: &str) -> Vec<Value> {
    manifest()["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["path"].as_str().unwrap().starts_with(prefix))
        .cloned()
        .collect()
}

#[test]
fn numpy_files() {
    let files = entries("npy/");
    let mut identical = 0;
    for e in &files {
        let path = e["path"].as_str().unwrap();
        let full = testdata().join("formats").join(path);
        let bytes = std::fs::read(&full).unwrap();
        let descr = e["npy_descr"].as_str().unwrap();
        let dtype: DType = e["dtype"].as_str().unwrap().parse().unwrap();
        let explicit = descr.contains('V').then_some(dtype);
        if explicit.is_some() {
            let err = read_npy_as(&bytes, None).unwrap_err().to_string();
            assert!(
                err.contains(&format!(
                    "raw dtype {descr}, which does not name its element type: the caller must give one of "
                )),
                "{path}: {err}"
            );
            assert!(err.contains(dtype.name()), "{path}: {err}");
        }
        let t = read_npy_as(&bytes, explicit).unwrap_or_else(|e| panic!("{path}: {e}"));
        check_tensor(e, &t);
        // Through the file API too.
        let f = NpyFile::open_as(&full, explicit).unwrap();
        assert_eq!(f.header().descr, descr, "{path}");
        assert_eq!(
            f.header().fortran_order,
            e["fortran_order"].as_bool().unwrap()
        );
        let version = format!("{}.{}", f.header().version.0, f.header().version.1);
        assert_eq!(version, e["npy_version"].as_str().unwrap(), "{path}");
        assert_eq!(f.into_tensor(), t, "{path}");
        // What ndpad writes reads back the same.
        let again = read_npy_as(&write_npy(&t.view()).unwrap(), explicit).unwrap();
        assert_eq!(again, t, "{path}");
        // For C-order little-endian version 1.0 files, ndpad writes the same bytes as numpy.
        let written = write_npy(&t.view()).unwrap();
        if !descr.starts_with('>')
            && !f_order(e)
            && version == "1.0"
            && written.len() == bytes.len()
            && written[..8] == bytes[..8]
        {
            assert_eq!(written, bytes, "{path}");
            identical += 1;
        }
        // ml_dtypes layout of the packed types: one element per byte, as numpy wrote it.
        if let Some(npy_hex) = e["npy_bytes_hex"].as_str() {
            let written = write_npy(&t.view()).unwrap();
            assert!(written.ends_with(&hex(npy_hex)), "{path}");
        }
    }
    if !files.is_empty() {
        assert!(
            identical >= 20,
            "only {identical} files written byte for byte as numpy does"
        );
        assert!(files.len() >= 30, "only {} npy fixtures", files.len());
    }
}

#[test]
fn onnx_tensor_files() {
    let files = entries("pb/");
    for e in &files {
        let path = e["path"].as_str().unwrap();
        let bytes = std::fs::read(testdata().join("formats").join(path)).unwrap();
        let t = read_tensor(&bytes).unwrap_or_else(|err| panic!("{path}: {err}"));
        assert_eq!(t.name, e["tensor_name"].as_str().unwrap(), "{path}");
        check_tensor(e, &t.tensor);
        let again = read_tensor(&write_tensor(&t.tensor.view(), &t.name).unwrap()).unwrap();
        assert_eq!(again, t, "{path}");
    }
    if !files.is_empty() {
        // Every ndpad type but string has a fixture in both encodings.
        for d in DType::ALL {
            if d == DType::String {
                continue;
            }
            for enc in ["raw_data", "typed"] {
                assert!(
                    files.iter().any(|e| e["dtype"] == d.onnx_name()
                        && (enc == "raw_data") == (e["fields"][0] == "raw_data")),
                    "no {enc} fixture for {d}"
                );
            }
        }
    }
}

/// The malformed files, with words each error must contain.
const BAD: &[(&str, &[&str])] = &[
    (
        "bad/truncated_data.npy",
        &["[3, 4]", "needs 48 bytes", "41 bytes"],
    ),
    ("bad/truncated_header.npy", &["truncated", "header"]),
    ("bad/wrong_magic.npy", &["not a .npy file", "NUMPZ"]),
    ("bad/bad_version.npy", &["version 9.0"]),
    (
        "bad/huge_shape.npy",
        &[
            "[1000000, 1000000000]",
            "4000000000000000 bytes",
            "file size",
        ],
    ),
    (
        "bad/overflow_shape.npy",
        &["[4294967296, 4294967296, 4294967296]", "needs"],
    ),
    ("bad/unknown_dtype.npy", &["<q9"]),
    (
        "bad/object_dtype.npy",
        &["|O", "object (pickled) arrays are not supported"],
    ),
    ("bad/header_not_dict.npy", &["expected '{'"]),
    (
        "bad/header_missing_key.npy",
        &["'fortran_order' is missing"],
    ),
    (
        "bad/header_len_too_big.npy",
        &["header", "needs 60010 bytes"],
    ),
    (
        "bad/negative_dim.npy",
        &["'shape' entry 0 is negative (-1)"],
    ),
    ("bad/empty.npy", &["not a .npy file: the input is empty"]),
    ("bad/truncated.pb", &["TensorProto", "truncated"]),
    (
        "bad/raw_data_length_mismatch.pb",
        &["raw_data", "20 bytes", "[3, 4]", "need 48"],
    ),
    (
        "bad/typed_count_mismatch.pb",
        &["int32_data: has 5 values", "[2, 3]", "need 6"],
    ),
    ("bad/unknown_data_type.pb", &["data_type", "999"]),
    (
        "bad/external_data.pb",
        &["external data is not supported", "../../../etc/passwd"],
    ),
    (
        "bad/huge_dims.pb",
        &["raw_data", "16 bytes", "[1000000, 1000000000]"],
    ),
    (
        "bad/int4_raw_length_mismatch.pb",
        &["raw_data", "3 bytes", "need 2"],
    ),
    ("bad/garbage.pb", &["invalid TensorProto protobuf"]),
];

#[test]
fn malformed_files() {
    let files = entries("bad/");
    for e in &files {
        let path = e["path"].as_str().unwrap();
        let full = testdata().join("formats").join(path);
        let bytes = std::fs::read(&full).unwrap();
        let start = std::time::Instant::now();
        let err = if path.ends_with(".npy") {
            let e1 = read_npy_as(&bytes, None).unwrap_err().to_string();
            let e2 = NpyFile::open(&full).unwrap_err().to_string();
            assert_eq!(e1, e2, "{path}");
            e1
        } else {
            read_tensor(&bytes).unwrap_err().to_string()
        };
        assert!(
            start.elapsed().as_millis() < 100,
            "{path} took {:?}",
            start.elapsed()
        );
        let (_, words) = BAD
            .iter()
            .find(|(p, _)| *p == path)
            .unwrap_or_else(|| panic!("{path}: add it to BAD (message: {err})"));
        for w in *words {
            assert!(err.contains(w), "{path}: {err:?} lacks {w:?}");
        }
    }
    // Every expectation names a file that exists in the manifest.
    for (p, _) in BAD {
        assert!(
            files.iter().any(|e| e["path"].as_str() == Some(*p)),
            "{p} is in BAD but not in the manifest"
        );
    }
}

#[test]
fn onnx_pad_node_tests() {
    let root = testdata().join("onnx-node");
    let dirs = std::fs::read_dir(&root).expect("testdata/onnx-node");
    let mut seen = 0;
    for dir in dirs {
        let dir = dir.unwrap().path();
        let model_path = dir.join("model.onnx");
        if !model_path.exists() {
            continue;
        }
        seen += 1;
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&model_path).unwrap();
        let model = read_model(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(model.opset_version(""), Some(25), "{name}");
        assert_eq!(model.graph.nodes.len(), 1, "{name}");
        let node = &model.graph.nodes[0];
        assert_eq!(node.op_type, "Pad", "{name}");
        let mode = match node.attribute("mode") {
            Some(AttributeValue::String(s)) => String::from_utf8(s.clone()).unwrap(),
            None => "constant".into(),
            other => panic!("{name}: mode {other:?}"),
        };
        assert!(name.contains(&mode), "{name}: mode {mode}");
        assert_eq!(model.graph.inputs.len(), node.inputs.len(), "{name}");
        // Inputs match their declared types and shapes.
        let set = dir.join("test_data_set_0");
        for (i, vi) in model.graph.inputs.iter().enumerate() {
            let t = read_tensor(&std::fs::read(set.join(format!("input_{i}.pb"))).unwrap())
                .unwrap_or_else(|e| panic!("{name} input {i}: {e}"));
            assert_eq!(Some(t.tensor.dtype()), vi.elem_type, "{name} input {i}");
            if let Some(dims) = &vi.shape {
                let want: Vec<usize> = dims
                    .iter()
                    .map(|d| match d {
                        ndpad_formats::onnx::Dim::Value(v) => *v as usize,
                        other => panic!("{name}: {other:?}"),
                    })
                    .collect();
                assert_eq!(t.tensor.shape(), want.as_slice(), "{name} input {i}");
            }
        }
        let out = read_tensor(&std::fs::read(set.join("output_0.pb")).unwrap()).unwrap();
        assert_eq!(Some(out.tensor.dtype()), model.graph.outputs[0].elem_type);
        // Writing the model and reading it back keeps everything.
        assert_eq!(
            read_model(&write_model(&model).unwrap()).unwrap(),
            model,
            "{name}"
        );
    }
    if root.exists() {
        assert!(seen >= 6, "only {seen} ONNX node test directories");
    }
}
