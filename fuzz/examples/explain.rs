//! Prints what the library readers say about files (by extension: .npy, .pb, .onnx),
//! and how long each read took: a quick look at the hostile corpus without the CLI.
//!
//! `cargo run --release --example explain -- FILE...`

use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                println!("{path}: cannot read: {e}");
                continue;
            }
        };
        let t = Instant::now();
        let what = if path.ends_with(".npy") {
            ndpad_formats::npy::read_npy(&bytes)
                .map(|t| format!("{:?} {:?}", t.dtype(), t.shape()))
                .map_err(|e| e.to_string())
        } else if path.ends_with(".pb") {
            ndpad_formats::onnx::read_tensor(&bytes)
                .map(|t| format!("{:?} {:?}", t.tensor.dtype(), t.tensor.shape()))
                .map_err(|e| e.to_string())
        } else {
            ndpad_formats::onnx::read_model(&bytes)
                .map(|m| format!("model, {} nodes", m.graph.nodes.len()))
                .map_err(|e| e.to_string())
        };
        let us = t.elapsed().as_micros();
        match what {
            Ok(s) => println!("{path}: OK {s} ({us} us)"),
            Err(e) => println!("{path}: ERR {e} ({us} us)"),
        }
    }
}
