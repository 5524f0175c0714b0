//! Issue #29: zarr arrays told by their zarr.json, not their name (inside groups,
//! as inputs, outputs and for `info`), and zarr <-> .npy.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{assert_fails, ndpad, s, stdout_ok, write};
use ndpad::Tensor;
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
    let _ = write;
}
