//! Helpers shared by the end-to-end tests: they drive the built `ndpad` binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use ndpad::{DType, Tensor};
use ndpad_formats::npy::{read_npy_as, write_npy};
use ndpad_formats::onnx::{read_tensor, write_tensor};

/// The repository root (commands run there, as the README's do).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `ndpad` with the repository root as working directory and a fixed locale.
pub fn ndpad() -> Command {
    let mut c = Command::cargo_bin("ndpad").expect("the ndpad binary is built");
    c.current_dir(repo());
    c
}

/// Reads a tensor file the way the library does (raw .npy data as `dtype`).
pub fn read(path: &Path, dtype: Option<DType>) -> Tensor {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match path.extension().and_then(|e| e.to_str()) {
        Some("npy") => read_npy_as(&bytes, dtype).unwrap(),
        Some("pb") => read_tensor(&bytes).unwrap().tensor,
        other => panic!("unexpected extension {other:?}"),
    }
}

/// Writes a tensor file with the library.
pub fn write(path: &Path, t: &Tensor) {
    let bytes = match path.extension().and_then(|e| e.to_str()) {
        Some("npy") => write_npy(&t.view()).unwrap(),
        Some("pb") => write_tensor(&t.view(), "x").unwrap(),
        other => panic!("unexpected extension {other:?}"),
    };
    std::fs::write(path, bytes).unwrap();
}

/// A path as a `&str` argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// The names in a directory, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Asserts a failure: the exit code, `ndpad: error:` on stderr with each of `parts`,
/// nothing on stdout, and no panic.
pub fn assert_fails(out: &std::process::Output, code: i32, parts: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for p in parts {
        assert!(err.contains(p), "stderr lacks {p:?}: {err}");
    }
    // One prefix for every error, clap's usage errors included (bare `ndpad` prints
    // its help, exit 2).
    if code != 0 && !err.starts_with("Tensor padding") {
        assert!(err.starts_with("ndpad: error: "), "{err}");
    }
    if code == 1 {
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// Stdout of a successful run.
pub fn stdout_ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}; stderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}
