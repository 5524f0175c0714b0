//! `ndpad pad IN.zarr OUT.zarr`: zarr v3 arrays made here with zarrs (several codecs,
//! chunks that do not divide the shape), padded by the CLI for every front end, and
//! read back: the data is the in-memory pad of the same data (the CLI's own `.npy`
//! path, and `ndpad::pad` for the same spec); the output keeps the chunk shape,
//! codecs and fill value; chunks that are nothing but the fill value are not stored;
//! inputs that are not zarr v3 arrays, and outputs that would clobber something, are
//! refused with messages that say so.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{assert_fails, ndpad, s, stdout_ok, write};
use ndpad::{AxisPad, DType, Mode, PadSpec, Tensor};
use serde_json::{json, Value};
use zarrs::array::{Array, ArrayBytes};
use zarrs::filesystem::FilesystemStore;

/// A zarr v3 array of `dtype` (a zarr name) at `dir/name`, holding `bytes` (C order,
/// little-endian), with the given chunk shape, codecs and fill value.
#[allow(clippy::too_many_arguments)]
fn make(
    dir: &Path,
    name: &str,
    dtype: &str,
    shape: &[u64],
    chunks: &[u64],
    codecs: Value,
    fill: Value,
    bytes: &[u8],
) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(&path).unwrap();
    let meta = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": codecs,
        "attributes": {"made_by": "ndpad tests"},
        "dimension_names": (0..shape.len()).map(|i| format!("d{i}")).collect::<Vec<_>>(),
    });
    std::fs::write(
        path.join("zarr.json"),
        serde_json::to_vec_pretty(&meta).unwrap(),
    )
    .unwrap();
    let store = Arc::new(FilesystemStore::new(&path).unwrap());
    let array = Array::open(store, "/").unwrap();
    array
        .store_array_subset(&array.subset_all(), ArrayBytes::new_flen(bytes.to_vec()))
        .unwrap();
    path
}

/// The shape, metadata and bytes (C order, little-endian) of a zarr array.
fn read(path: &Path) -> (Vec<usize>, Value, Vec<u8>) {
    let meta: Value =
        serde_json::from_slice(&std::fs::read(path.join("zarr.json")).unwrap()).unwrap();
    let store = Arc::new(FilesystemStore::new(path).unwrap());
    let array = Array::open(store, "/").unwrap();
    let shape = array.shape().iter().map(|&d| d as usize).collect();
    let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&array.subset_all()).unwrap();
    (shape, meta, bytes.into_fixed().unwrap().into_owned())
}

/// Codecs: none (bytes only), zstd, gzip, blosc, big-endian bytes, sharding.
fn codecs(kind: &str, width: usize) -> Value {
    let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
    match kind {
        "none" => json!([bytes]),
        "zstd" => json!([bytes, {"name": "zstd", "configuration": {"level": 3, "checksum": true}}]),
        "gzip" => json!([bytes, {"name": "gzip", "configuration": {"level": 5}}]),
        "blosc" => json!([bytes, {"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": width, "blocksize": 0}}]),
        "big" => json!([{"name": "bytes", "configuration": {"endian": "big"}}]),
        "shard" => json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [1, 3, 2],
            "codecs": [bytes, {"name": "zstd", "configuration": {"level": 1, "checksum": false}}],
            "index_codecs": [bytes, {"name": "crc32c"}],
            "index_location": "end"}}]),
        other => panic!("{other}"),
    }
}

/// The same pad through the CLI's in-memory `.npy` path: the reference.
fn npy_pad(dir: &Path, t: &Tensor, flags: &[&str]) -> Tensor {
    let (i, o) = (dir.join("ref_in.npy"), dir.join("ref_out.npy"));
    write(&i, t);
    let mut cmd = ndpad();
    cmd.args(["pad", s(&i), s(&o)]).args(flags);
    if t.view().dtype() == DType::BFloat16 {
        // .npy has no bfloat16: its raw V2 data says which with --dtype.
        cmd.args(["--dtype", "bfloat16"]);
    }
    stdout_ok(&cmd.output().unwrap());
    common::read(&o, Some(t.view().dtype()))
}

fn pad_zarr(input: &Path, output: &Path, flags: &[&str]) {
    stdout_ok(
        &ndpad()
            .args(["pad", s(input), s(output)])
            .args(flags)
            .output()
            .unwrap(),
    );
}

/// The metadata that padding keeps: everything but the shape.
fn kept(meta: &Value) -> Value {
    let mut m = meta.clone();
    m.as_object_mut().unwrap().remove("shape");
    m
}

fn f32_data(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.25 - 3.0).collect()
}

fn le_bytes(t: &Tensor) -> Vec<u8> {
    t.bytes().unwrap().to_vec()
}

/// Every front end, mode, crop and interior padding, over several codecs and a chunk
/// shape that divides no axis: the zarr output holds the in-memory pad, with the
/// input's chunk shape, codecs, fill value, attributes and dimension names.
#[test]
fn every_front_end_and_codec_gives_the_in_memory_pad() {
    let dir = tempfile::tempdir().unwrap();
    let shape = [5usize, 7, 6];
    let t = Tensor::from_slice(&shape, &f32_data(5 * 7 * 6)).unwrap();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("zstd", vec!["--mode", "reflect", "--pads", "1,3,2,0,4,5"]),
        ("gzip", vec!["--mode", "wrap", "--pads", "2,9,13,1,7,11"]),
        ("blosc", vec!["--mode", "edge", "--pads=-1,-3,2,0,4,-5"]),
        ("none", vec!["--value", "2.5", "--pads", "0,9,0,1,0,3"]),
        ("big", vec!["--pads", "3,3,3,3,3,3"]),
        ("shard", vec!["--mode", "reflect", "--pads", "0,2,1,1,3,0"]),
        (
            "zstd",
            vec![
                "--opset", "18", "--mode", "edge", "--pads", "2,3,1,0", "--axes", "-1,0",
            ],
        ),
        (
            "gzip",
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
            "blosc",
            vec![
                "--framework",
                "ngraph",
                "--padding-below=1,0,-1",
                "--padding-above=0,2,1",
                "--padding-interior=2,1,0",
                "--value",
                "-1",
            ],
        ),
        (
            "none",
            vec![
                "--framework",
                "numpy",
                "--mode",
                "wrap",
                "--pad-width",
                "8:3,0:15,2:2",
            ],
        ),
        (
            "shard",
            vec![
                "--framework",
                "numpy",
                "--mode",
                "symmetric",
                "--pad-width",
                "1:4",
            ],
        ),
    ];
    for (k, (codec, flags)) in cases.iter().enumerate() {
        let input = make(
            dir.path(),
            &format!("in{k}.zarr"),
            "float32",
            &[5, 7, 6],
            &[2, 3, 4],
            codecs(codec, 4),
            json!(0.0),
            &le_bytes(&t),
        );
        let output = dir.path().join(format!("out{k}.zarr"));
        pad_zarr(&input, &output, flags);
        let want = npy_pad(dir.path(), &t, flags);
        let (got_shape, meta, got) = read(&output);
        assert_eq!(got_shape, want.view().shape(), "{codec} {flags:?}");
        assert!(got == le_bytes(&want), "{codec} {flags:?}: data differs");
        let (_, in_meta, _) = read(&input);
        assert_eq!(kept(&meta), kept(&in_meta), "{codec} {flags:?}");
    }
}

/// The same data through `ndpad::pad` with the spec the flags stand for.
#[test]
fn matches_ndpad_pad_for_the_same_spec() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tensor::from_slice(&[9, 4], &f32_data(36)).unwrap();
    let input = make(
        dir.path(),
        "a.zarr",
        "float32",
        &[9, 4],
        &[4, 3],
        codecs("zstd", 4),
        json!(0.0),
        &le_bytes(&t),
    );
    let spec = PadSpec::new(vec![AxisPad::new(3, -2), AxisPad::new(3, 2)], Mode::Reflect);
    let want = ndpad::pad(t.view(), &spec).unwrap();
    let out = dir.path().join("b.zarr");
    pad_zarr(&input, &out, &["--mode", "reflect", "--pads=3,3,-2,2"]);
    let (shape, _, got) = read(&out);
    assert_eq!(shape, want.view().shape());
    assert_eq!(got, le_bytes(&want));
}

/// Each data type zarr and ndpad share pads bit for bit.
#[test]
fn data_types() {
    let dir = tempfile::tempdir().unwrap();
    // (zarr name, ndpad type, fill value)
    let types: Vec<(&str, DType, Value)> = vec![
        ("bool", DType::Bool, json!(false)),
        ("int8", DType::Int8, json!(0)),
        ("int16", DType::Int16, json!(-3)),
        ("int32", DType::Int32, json!(0)),
        ("int64", DType::Int64, json!(7)),
        ("uint8", DType::Uint8, json!(0)),
        ("uint16", DType::Uint16, json!(0)),
        ("uint32", DType::Uint32, json!(1)),
        ("uint64", DType::Uint64, json!(0)),
        ("float16", DType::Float16, json!("NaN")),
        ("bfloat16", DType::BFloat16, json!(0.0)),
        ("float64", DType::Float64, json!(-0.5)),
        ("complex64", DType::Complex64, json!([1.0, -1.0])),
        ("complex128", DType::Complex128, json!([0.0, 0.0])),
    ];
    for (name, dtype, fill) in types {
        let width = dtype.byte_len(1).unwrap();
        let n = 4 * 5;
        let mut bytes: Vec<u8> = (0..n * width).map(|i| (i * 37 % 256) as u8).collect();
        if dtype == DType::Bool {
            bytes.iter_mut().for_each(|b| *b &= 1);
        }
        if matches!(dtype, DType::Float16 | DType::BFloat16) {
            // Keep clear of NaN patterns so that the comparison is of values.
            bytes.chunks_mut(2).for_each(|c| c[1] &= 0x3f);
        }
        let t = Tensor::from_bytes(dtype, &[4, 5], bytes.clone()).unwrap();
        let input = make(
            dir.path(),
            &format!("{name}.zarr"),
            name,
            &[4, 5],
            &[3, 2],
            codecs("blosc", width),
            fill,
            &bytes,
        );
        for flags in [
            vec!["--mode", "edge", "--pads", "1,2,3,1"],
            vec!["--pads", "2,0,0,3"],
        ] {
            let out = dir.path().join(format!("{name}_out.zarr"));
            pad_zarr(&input, &out, &flags);
            let want = npy_pad(dir.path(), &t, &flags);
            let (shape, meta, got) = read(&out);
            assert_eq!(shape, want.view().shape(), "{name}");
            assert_eq!(got, le_bytes(&want), "{name} {flags:?}");
            assert_eq!(meta["data_type"], json!(name));
        }
    }
}

/// A chunk that is all padding with the fill value as the constant is not stored;
/// one whose constant is not the fill value is; `--chunks` sets the chunk shape.
#[test]
fn fill_value_chunks_are_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tensor::from_slice(
        &[4, 4],
        &f32_data(16).iter().map(|v| v + 10.0).collect::<Vec<_>>(),
    )
    .unwrap();
    let input = make(
        dir.path(),
        "a.zarr",
        "float32",
        &[4, 4],
        &[2, 2],
        codecs("zstd", 4),
        json!(0.0),
        &le_bytes(&t),
    );
    // 4 x 4 padded by 4 before each axis: 8 x 8 in chunks of 2 x 2; only the four
    // chunks at [2..4, 2..4] hold data.
    let out = dir.path().join("b.zarr");
    pad_zarr(&input, &out, &["--pads", "4,4,0,0"]);
    for i in 0..4 {
        for j in 0..4 {
            let stored = out.join(format!("c/{i}/{j}")).is_file();
            assert_eq!(stored, i >= 2 && j >= 2, "chunk {i},{j}");
        }
    }
    // A constant other than the fill value: every chunk is stored.
    let out2 = dir.path().join("c.zarr");
    pad_zarr(&input, &out2, &["--pads", "4,4,0,0", "--value", "1"]);
    assert!(out2.join("c/0/0").is_file());
    let (_, _, got) = read(&out2);
    let want = npy_pad(dir.path(), &t, &["--pads", "4,4,0,0", "--value", "1"]);
    assert_eq!(got, le_bytes(&want));
    // --chunks: the chunk shape changes, nothing else.
    let out3 = dir.path().join("d.zarr");
    pad_zarr(&input, &out3, &["--pads", "4,4,0,0", "--chunks", "3,5"]);
    let (_, meta, got) = read(&out3);
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shape"],
        json!([3, 5])
    );
    assert_eq!(
        got,
        le_bytes(&npy_pad(dir.path(), &t, &["--pads", "4,4,0,0"]))
    );
    assert!(!out3.join("c/0/0").exists());
    assert!(out3.join("c/1/0").is_file());
    // `ndpad info` describes the array.
    let info = stdout_ok(&ndpad().args(["info", s(&out3)]).output().unwrap());
    for part in [
        "shape: [8, 8]",
        "dtype: float32",
        "\"chunk_shape\":[3,5]",
        "zstd",
        "fill value: 0.0",
    ] {
        assert!(info.contains(part), "{part:?} not in {info}");
    }
}

/// An existing output array is replaced only after success; a failure leaves it,
/// and no temporary directory, behind.
#[test]
fn outputs_are_replaced_only_after_success() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tensor::from_slice(&[3, 3], &f32_data(9)).unwrap();
    let input = make(
        dir.path(),
        "a.zarr",
        "float32",
        &[3, 3],
        &[2, 2],
        codecs("gzip", 4),
        json!(0.0),
        &le_bytes(&t),
    );
    let out = dir.path().join("b.zarr");
    pad_zarr(&input, &out, &["--pads", "1,1,1,1"]);
    let before = std::fs::read(out.join("zarr.json")).unwrap();
    // A failing pad (a corrupt input chunk) leaves the old output as it was.
    let broken = make(
        dir.path(),
        "broken.zarr",
        "float32",
        &[3, 3],
        &[2, 2],
        codecs("gzip", 4),
        json!(0.0),
        &le_bytes(&t),
    );
    std::fs::write(broken.join("c/0/0"), b"not gzip").unwrap();
    let o = ndpad()
        .args(["pad", s(&broken), s(&out), "--pads", "2,2,2,2"])
        .output()
        .unwrap();
    assert_fails(&o, 1, &["b.zarr", "chunk"]);
    assert_eq!(std::fs::read(out.join("zarr.json")).unwrap(), before);
    let names = common::listing(dir.path());
    assert!(names.iter().all(|n| !n.contains("ndpad")), "{names:?}");
    // A successful pad replaces it.
    pad_zarr(&input, &out, &["--pads", "2,2,2,2"]);
    assert_eq!(read(&out).0, vec![7, 7]);
    let names = common::listing(dir.path());
    assert!(names.iter().all(|n| !n.contains("ndpad")), "{names:?}");
}

#[test]
fn errors_name_what_was_found() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = Tensor::from_slice(&[3, 3], &f32_data(9)).unwrap();
    let input = make(
        d,
        "a.zarr",
        "float32",
        &[3, 3],
        &[2, 2],
        codecs("none", 4),
        json!(0.0),
        &le_bytes(&t),
    );
    let run = |args: &[&str]| ndpad().args(args).output().unwrap();
    let out = d.join("o.zarr");
    // A group.
    let g = d.join("g.zarr");
    std::fs::create_dir(&g).unwrap();
    std::fs::write(
        g.join("zarr.json"),
        r#"{"zarr_format":3,"node_type":"group"}"#,
    )
    .unwrap();
    std::fs::create_dir(g.join("x")).unwrap();
    std::fs::write(g.join("x/zarr.json"), "{}").unwrap();
    assert_fails(
        &run(&["pad", s(&g), s(&out), "--pads", "1,1"]),
        1,
        &["g.zarr", "is a zarr group, not an array", "members: x"],
    );
    // A v2 array and a v2 group.
    let v2 = d.join("v2.zarr");
    std::fs::create_dir(&v2).unwrap();
    std::fs::write(v2.join(".zarray"), "{}").unwrap();
    assert_fails(
        &run(&["pad", s(&v2), s(&out), "--pads", "1,1"]),
        1,
        &["v2.zarr", "zarr v2 array", "v3"],
    );
    std::fs::remove_file(v2.join(".zarray")).unwrap();
    std::fs::write(v2.join(".zgroup"), "{}").unwrap();
    assert_fails(
        &run(&["pad", s(&v2), s(&out), "--pads", "1,1"]),
        1,
        &["zarr v2 group"],
    );
    // Not a zarr directory, a missing one, a file.
    let empty = d.join("empty.zarr");
    std::fs::create_dir(&empty).unwrap();
    assert_fails(
        &run(&["pad", s(&empty), s(&out), "--pads", "1,1"]),
        1,
        &["without zarr.json"],
    );
    assert_fails(
        &run(&["pad", s(&d.join("nope.zarr")), s(&out), "--pads", "1,1"]),
        1,
        &["nope.zarr", "No such file"],
    );
    // A type ndpad does not pad.
    let int4 = make(
        d,
        "i4.zarr",
        "uint8",
        &[2],
        &[2],
        codecs("none", 1),
        json!(0),
        &[1, 2],
    );
    let meta = std::fs::read_to_string(int4.join("zarr.json"))
        .unwrap()
        .replace("\"uint8\"", "\"int4\"");
    std::fs::write(int4.join("zarr.json"), meta).unwrap();
    assert_fails(
        &run(&["pad", s(&int4), s(&out), "--pads", "1,1"]),
        1,
        &["data type \"int4\" is not one ndpad pads"],
    );
    // The output is the input, inside it, or holds it.
    assert_fails(
        &run(&["pad", s(&input), s(&input), "--pads", "1,1,1,1"]),
        1,
        &["the output is the input array"],
    );
    assert_fails(
        &run(&[
            "pad",
            s(&input),
            s(&input.join("c/x.zarr")),
            "--pads",
            "1,1,1,1",
        ]),
        1,
        &["inside the input array"],
    );
    // An existing directory that is not a zarr array is left alone.
    let keep = d.join("keep.zarr");
    std::fs::create_dir(&keep).unwrap();
    std::fs::write(keep.join("precious.txt"), "x").unwrap();
    assert_fails(
        &run(&["pad", s(&input), s(&keep), "--pads", "1,1,1,1"]),
        1,
        &["keep.zarr", "not a zarr array"],
    );
    assert!(keep.join("precious.txt").is_file());
    // Flags that do not apply: usage errors (zarr <-> .npy is tests/zarr_groups.rs').
    assert_fails(
        &run(&[
            "pad",
            s(&input),
            s(&out),
            "--pads",
            "1,1,1,1",
            "--chunks",
            "2",
        ]),
        2,
        &["--chunks has 1 extents"],
    );
    assert_fails(
        &run(&[
            "pad",
            s(&input),
            s(&out),
            "--pads",
            "1,1,1,1",
            "--chunks",
            "0,2",
        ]),
        2,
        &["at least 1"],
    );
    let npy = d.join("x.npy");
    write(&npy, &t);
    assert_fails(
        &run(&[
            "pad",
            s(&npy),
            s(&d.join("y.npy")),
            "--pads",
            "1,1,1,1",
            "--chunks",
            "2,2",
        ]),
        2,
        &["--chunks applies to a .zarr output"],
    );
    // Front-end and type errors name the input.
    assert_fails(
        &run(&["pad", s(&input), s(&out), "--pads", "1,1"]),
        1,
        &["a.zarr"],
    );
    assert_fails(
        &run(&[
            "pad",
            s(&input),
            s(&out),
            "--pads",
            "1,1,1,1",
            "--dtype",
            "int8",
        ]),
        1,
        &["--dtype int8 does not match"],
    );
    assert_fails(
        &run(&[
            "pad",
            s(&input),
            s(&out),
            "--pads",
            "1,1,1,1",
            "--value",
            "x",
        ]),
        1,
        &["a.zarr", "constant_value: invalid float32 value \"x\""],
    );
    assert!(!out.exists());
}
