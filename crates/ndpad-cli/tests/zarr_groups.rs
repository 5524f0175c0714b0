//! Issue #29: zarr arrays told by their zarr.json, not their name (inside groups,
//! as inputs, outputs and for `info`), and zarr <-> .npy.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{assert_fails, ndpad, s, stdout_ok, write};
use ndpad::{DType, Tensor};
use serde_json::{json, Value};
use zarrs::array::{Array, ArrayBytes};
use zarrs::filesystem::FilesystemStore;

/// A zarr v3 group at `path`.
fn group(path: &Path) {
    std::fs::create_dir_all(path).unwrap();
    std::fs::write(
        path.join("zarr.json"),
        r#"{"zarr_format":3,"node_type":"group","attributes":{"keep":1}}"#,
    )
    .unwrap();
}

/// A float32 zarr v3 array at `path` (chunks of 2 per axis, zstd).
fn array(path: &Path, shape: &[u64], data: &[f32]) -> PathBuf {
    std::fs::create_dir_all(path).unwrap();
    let meta = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": vec![2; shape.len()]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0.0,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                   {"name": "zstd", "configuration": {"level": 3, "checksum": false}}],
    });
    std::fs::write(path.join("zarr.json"), meta.to_string()).unwrap();
    let store = Arc::new(FilesystemStore::new(path).unwrap());
    let a = Array::open(store, "/").unwrap();
    let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    a.store_array_subset(&a.subset_all(), ArrayBytes::new_flen(bytes))
        .unwrap();
    path.to_path_buf()
}

/// The shape, metadata and f32 data of a zarr array.
fn read(path: &Path) -> (Vec<u64>, Value, Vec<f32>) {
    let meta: Value =
        serde_json::from_slice(&std::fs::read(path.join("zarr.json")).unwrap()).unwrap();
    let store = Arc::new(FilesystemStore::new(path).unwrap());
    let a = Array::open(store, "/").unwrap();
    let bytes: ArrayBytes<'static> = a.retrieve_array_subset(&a.subset_all()).unwrap();
    let data = bytes
        .into_fixed()
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (a.shape().to_vec(), meta, data)
}

fn data(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 + 1.0).collect()
}

/// [[1,2,3],[4,5,6]] padded by one column of 0 on each side.
const PADDED: [f32; 10] = [0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 4.0, 5.0, 6.0, 0.0];

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn arrays_in_a_group_are_padded_into_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("grp.zarr");
    group(&g);
    let a = array(&g.join("a"), &[2, 3], &data(6));
    let before = tree(&g);
    // An array named without .zarr, inside a group, into the same group.
    stdout_ok(
        &ndpad()
            .args(["pad", s(&a), s(&g.join("b")), "--pads", "0,1,0,1"])
            .output()
            .unwrap(),
    );
    let (shape, meta, got) = read(&g.join("b"));
    assert_eq!(shape, vec![2, 5]);
    assert_eq!(meta["node_type"], "array");
    assert_eq!(got, PADDED);
    // The group's other members and its own metadata are untouched; nothing staged
    // is left.
    let after: Vec<_> = tree(&g)
        .into_iter()
        .filter(|(n, _)| !n.starts_with("b/"))
        .collect();
    assert_eq!(after, before);
    let names: Vec<String> = std::fs::read_dir(&g)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("ndpad")), "{names:?}");
    // Into another group, under a name without .zarr; and out of it.
    let g2 = dir.path().join("other");
    group(&g2);
    stdout_ok(
        &ndpad()
            .args([
                "pad",
                s(&g.join("b")),
                s(&g2.join("c")),
                "--pads",
                "0,0,0,0",
            ])
            .output()
            .unwrap(),
    );
    assert_eq!(read(&g2.join("c")).2, PADDED);
    // A .npy named inside a group is a .npy file; zarr to standard output is .npy.
    let npy = g2.join("c.npy");
    stdout_ok(
        &ndpad()
            .args(["pad", s(&g2.join("c")), s(&npy), "--pads", "0,0,0,0"])
            .output()
            .unwrap(),
    );
    let t = common::read(&npy, None);
    assert_eq!(t.shape(), &[2, 5]);
    let piped = ndpad()
        .args(["pad", s(&g2.join("c")), "-", "--pads", "0,0,0,-1"])
        .output()
        .unwrap();
    assert!(piped.status.success());
    let t = ndpad_formats::npy::read_npy_as(&piped.stdout, None).unwrap();
    assert_eq!(t.shape(), &[2, 4]);
    // `info` of an array without .zarr in its name.
    let text = stdout_ok(&ndpad().args(["info", s(&a)]).output().unwrap());
    assert!(text.contains("format: zarr v3 array"), "{text}");
    assert!(text.contains("shape: [2, 3]"), "{text}");
    // A whole group stays refused, naming its arrays and how to give one.
    assert_fails(
        &ndpad()
            .args([
                "pad",
                s(&g),
                s(&dir.path().join("g2.zarr")),
                "--pads",
                "0,1,0,1",
            ])
            .output()
            .unwrap(),
        1,
        &[
            "is a zarr group",
            "one array at a time",
            "members: a, b",
            "grp.zarr/a",
        ],
    );
    // A group without .zarr in its name is told by its zarr.json too.
    assert_fails(
        &ndpad()
            .args([
                "pad",
                s(&g2),
                s(&dir.path().join("g3.zarr")),
                "--pads",
                "0,1,0,1",
            ])
            .output()
            .unwrap(),
        1,
        &["is a zarr group", "members: c"],
    );
    // An output in a plain directory, not named .zarr, is still no zarr array.
    assert_fails(
        &ndpad()
            .args([
                "pad",
                s(&a),
                s(&dir.path().join("plain")),
                "--pads",
                "0,1,0,1",
            ])
            .output()
            .unwrap(),
        2,
        &["cannot tell the output's format"],
    );
}

/// The types a zarr array and a .npy file share, with bytes to pad (a value per
/// element: every byte pattern of each width but those the type lacks).
const TYPES: [(DType, &str); 19] = [
    (DType::Bool, "bool"),
    (DType::Int8, "int8"),
    (DType::Int16, "int16"),
    (DType::Int32, "int32"),
    (DType::Int64, "int64"),
    (DType::Uint8, "uint8"),
    (DType::Uint16, "uint16"),
    (DType::Uint32, "uint32"),
    (DType::Uint64, "uint64"),
    (DType::Float16, "float16"),
    (DType::BFloat16, "bfloat16"),
    (DType::Float32, "float32"),
    (DType::Float64, "float64"),
    (DType::Complex64, "complex64"),
    (DType::Complex128, "complex128"),
    (DType::Float8E4M3FNUZ, "float8_e4m3fnuz"),
    (DType::Float8E5M2, "float8_e5m2"),
    (DType::Float8E5M2FNUZ, "float8_e5m2fnuz"),
    (DType::Float8E8M0, "float8_e8m0fnu"),
];

/// .npy -> zarr -> .npy for every type: the zarr array holds the in-memory pad (the
/// .npy -> .npy path's), with ndpad's defaults (zstd, fill value 0, the zarr type),
/// and reads back into the same .npy; `info` reads it.
#[test]
fn npy_to_zarr_and_back_for_every_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shape = [3usize, 5];
    for (dtype, name) in TYPES {
        let w = dtype.byte_len(1).unwrap();
        let bytes: Vec<u8> = (0..15 * w)
            .map(|i| match dtype {
                DType::Bool => (i % 2) as u8,
                // Small values: no NaN patterns, which compare unequal.
                _ if w == 1 => (i % 7 + 1) as u8,
                _ => (i % 5 + 1) as u8 * ((i % w == 0) as u8),
            })
            .collect();
        let t = Tensor::from_bytes(dtype, &shape, bytes).unwrap();
        let npy = d.join(format!("{name}.npy"));
        write(&npy, &t);
        // .npy has no bfloat16 or float8: its raw data says which with --dtype.
        let raw = ["--dtype".to_string(), dtype.name().to_string()];
        let dt: &[String] = if matches!(dtype, DType::BFloat16) || name.starts_with("float8") {
            &raw
        } else {
            &[]
        };
        let flags = ["--pads", "1,0,0,2"];
        let reference = d.join(format!("{name}_ref.npy"));
        stdout_ok(
            &ndpad()
                .args(["pad", s(&npy), s(&reference)])
                .args(flags)
                .args(dt)
                .output()
                .unwrap(),
        );
        let z = d.join(format!("{name}.zarr"));
        let out = ndpad()
            .args(["pad", s(&npy), s(&z), "--chunks", "2,3"])
            .args(flags)
            .args(dt)
            .output()
            .unwrap();
        stdout_ok(&out);
        let meta: Value =
            serde_json::from_slice(&std::fs::read(z.join("zarr.json")).unwrap()).unwrap();
        assert_eq!(meta["data_type"], name, "{name}");
        assert_eq!(meta["shape"], json!([4, 7]), "{name}");
        assert_eq!(
            meta["chunk_grid"]["configuration"]["chunk_shape"],
            json!([2, 3])
        );
        assert_eq!(meta["codecs"][1]["name"], "zstd");
        let expect = common::read(&reference, Some(dtype));
        let store = Arc::new(FilesystemStore::new(&z).unwrap());
        let a = Array::open(store, "/").unwrap();
        let got: ArrayBytes<'static> = a.retrieve_array_subset(&a.subset_all()).unwrap();
        assert_eq!(
            got.into_fixed().unwrap().as_ref(),
            expect.bytes().unwrap(),
            "{name}"
        );
        // Back to .npy, with a pad that crops what was added.
        let back = d.join(format!("{name}_back.npy"));
        stdout_ok(
            &ndpad()
                .args(["pad", s(&z), s(&back), "--pads", "-1,0,0,-2"])
                .output()
                .unwrap(),
        );
        let back = common::read(&back, Some(dtype));
        assert_eq!(back.shape(), &shape, "{name}");
        assert_eq!(back.bytes(), t.bytes(), "{name}");
        let text = stdout_ok(&ndpad().args(["info", s(&z)]).output().unwrap());
        assert!(text.contains(&format!("dtype: {name}")), "{text}");
    }
}

/// A .pb and standard input go to zarr too; zarr goes to .pb; without --chunks an
/// array of 4.4 MB is cut into chunks of at most 4 MiB along its longest axis;
/// chunks that are nothing but 0 are not stored.
#[test]
fn defaults_pb_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = Tensor::from_slice(&[1100, 1000], &vec![1.5f32; 1_100_000]).unwrap();
    let pb = d.join("big.pb");
    write(&pb, &t);
    let z = d.join("big.zarr");
    stdout_ok(
        &ndpad()
            .args(["pad", s(&pb), s(&z), "--pads", "0,0,0,0"])
            .output()
            .unwrap(),
    );
    let (shape, meta, data) = read(&z);
    assert_eq!(shape, vec![1100, 1000]);
    assert_eq!(
        meta["chunk_grid"]["configuration"]["chunk_shape"],
        json!([550, 1000])
    );
    assert!(data.iter().all(|&x| x == 1.5));
    let back = d.join("back.pb");
    stdout_ok(
        &ndpad()
            .args(["pad", s(&z), s(&back), "--pads", "0,0,0,0"])
            .output()
            .unwrap(),
    );
    assert_eq!(common::read(&back, None).bytes(), t.bytes());
    // Standard input; zero padding is not stored.
    let small = Tensor::from_slice(&[2, 3], &data_f32()).unwrap();
    let npy = d.join("small.npy");
    write(&npy, &small);
    let z = d.join("stdin.zarr");
    let out = ndpad()
        .args(["pad", "-", s(&z), "--pads", "0,0,0,4", "--chunks", "2,3"])
        .write_stdin(std::fs::read(&npy).unwrap())
        .output()
        .unwrap();
    stdout_ok(&out);
    let (shape, _, data) = read(&z);
    assert_eq!(shape, vec![2, 7]);
    assert_eq!(&data[..7], &[1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]);
    assert!(z.join("c/0/0").is_file());
    assert!(!z.join("c/0/1").exists(), "a chunk of zeros was stored");
    assert!(!z.join("c/0/2").exists(), "a chunk of zeros was stored");
}

fn data_f32() -> Vec<f32> {
    data(6)
}

/// What cannot be converted is refused, naming the value and the limit; nothing is
/// left behind.
#[test]
fn conversions_refused_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = array(&d.join("a.zarr"), &[2, 3], &data(6));
    // The output limit holds for a .npy output.
    let o = d.join("o.npy");
    assert_fails(
        &ndpad()
            .args(["pad", s(&a), s(&o), "--pads", "0,1,0,1"])
            .args(["--max-output-bytes", "16"])
            .output()
            .unwrap(),
        1,
        &["o.npy", "40 bytes", "16"],
    );
    assert!(!o.exists());
    // Strings become a zarr string array (vlen-utf8), and read back.
    let strings = Tensor::from_strings(&[2], vec!["a".to_string(), "bc".to_string()]).unwrap();
    let npy = d.join("s.npy");
    write(&npy, &strings);
    let texts = d.join("texts.zarr");
    stdout_ok(
        &ndpad()
            .args(["pad", s(&npy), s(&texts), "--pads", "1,1", "--mode", "edge"])
            .output()
            .unwrap(),
    );
    let read_strings = |p: &Path| -> Vec<String> {
        let store = Arc::new(FilesystemStore::new(p).unwrap());
        let array = Array::open(store, "/").unwrap();
        array.retrieve_array_subset(&array.subset_all()).unwrap()
    };
    assert_eq!(read_strings(&texts), ["a", "a", "bc", "bc"]);
    let z = d.join("s.zarr");
    // zarr dates and times pad into zarr only; strings into either.
    for (name, fill) in [
        ("numpy.datetime64", json!("NaT")),
        ("numpy.timedelta64", json!(0)),
        ("string", json!("-")),
    ] {
        let p = d.join(format!("{name}.zarr"));
        std::fs::create_dir(&p).unwrap();
        let meta = json!({
            "zarr_format": 3, "node_type": "array", "shape": [2],
            "data_type": if name == "string" { json!(name) } else {
                json!({"name": name, "configuration": {"unit": "s", "scale_factor": 1}})
            },
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
            "chunk_key_encoding": {"name": "default"},
            "fill_value": fill,
            "codecs": if name == "string" { json!([{"name": "vlen-utf8"}]) } else {
                json!([{"name": "bytes", "configuration": {"endian": "little"}}])
            },
        });
        std::fs::write(p.join("zarr.json"), meta.to_string()).unwrap();
        let npy_out = d.join("t.npy");
        let out = ndpad()
            .args(["pad", s(&p), s(&npy_out), "--pads", "1,1"])
            .output()
            .unwrap();
        if name == "string" {
            stdout_ok(&out);
            std::fs::remove_file(&npy_out).unwrap();
        } else {
            assert_fails(&out, 1, &[name, "padded into zarr outputs only"]);
            assert!(!npy_out.exists());
        }
        let zarr_out = d.join(format!("padded-{name}.zarr"));
        stdout_ok(
            &ndpad()
                .args(["pad", s(&p), s(&zarr_out), "--pads", "1,1"])
                .output()
                .unwrap(),
        );
        let m: Value =
            serde_json::from_slice(&std::fs::read(zarr_out.join("zarr.json")).unwrap()).unwrap();
        assert_eq!(m["data_type"], meta["data_type"]);
        assert_eq!(m["shape"], json!([4]));
        if name == "string" {
            // The input's missing chunk reads as its fill value; the constant is "".
            assert_eq!(read_strings(&zarr_out), ["", "-", "-", ""]);
        }
    }
    // --chunks must fit the array.
    let small = d.join("small.npy");
    write(&small, &Tensor::from_slice(&[2, 3], &data(6)).unwrap());
    assert_fails(
        &ndpad()
            .args([
                "pad",
                s(&small),
                s(&z),
                "--pads",
                "0,0,0,0",
                "--chunks",
                "2",
            ])
            .output()
            .unwrap(),
        2,
        &["--chunks has 1 extents; the array has 2 axes"],
    );
    // A zarr output never replaces the .npy input's directory.
    assert_fails(
        &ndpad()
            .args(["pad", s(&small), s(d), "--pads", "0,0,0,0"])
            .output()
            .unwrap(),
        2,
        &["cannot tell the output's format"],
    );
    let names = common::listing(d);
    assert!(names.iter().all(|n| !n.contains("ndpad")), "{names:?}");
}

/// SIGINT stops a .npy -> zarr pad into a group (padding or writing its chunks) and
/// leaves nothing: the group holds what it held.
#[test]
fn sigint_stops_a_pad_into_a_group_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("grp.zarr");
    group(&g);
    let input = dir.path().join("big.npy");
    write(
        &input,
        &Tensor::from_slice(&[4096, 4096], &vec![7u8; 4096 * 4096]).unwrap(),
    );
    let before = tree(&g);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ndpad"))
        .args(["pad", s(&input), s(&g.join("b")), "--mode", "edge"])
        .args(["--pads", "8192,8192,8192,8192", "--chunks", "256,256"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once chunks are being written to the staging directory in the group (6400
    // chunk files: a second or more of work), not after a sleep the pad may outrun.
    let started = std::time::Instant::now();
    while std::fs::read_dir(&g).unwrap().count() < 2 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "no staging"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the signal"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let code = child.wait().unwrap().code();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    assert_eq!(tree(&g), before);
    assert_eq!(
        std::fs::read_dir(&g).unwrap().count(),
        1,
        "only zarr.json is left in the group"
    );
}
