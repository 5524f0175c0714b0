//! # ndpad-formats: tensor and model files for ndpad
//!
//! - [`npy`]: NumPy `.npy` files (versions 1.0–3.0), read from memory or
//!   from files ([`npy::NpyFile`], [`read_regular`]: regular files only), and written.
//! - [`onnx`]: ONNX protobuf — `TensorProto` (`.pb`) to and from [`ndpad::Tensor`],
//!   and `ModelProto` (`.onnx`) to and from a small owned [`onnx::Model`].
//!
//! Every reader treats its input as hostile: header numbers are checked against the
//! bytes actually present before anything is allocated from them, all arithmetic is
//! checked, nesting and message counts are bounded, and every failure is a
//! [`FormatError`] whose message names the field and value at fault. No input makes
//! a reader panic.
//!
//! ```
//! use ndpad::Tensor;
//! use ndpad_formats::{npy, onnx};
//! let t = Tensor::from_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
//! let from_npy = npy::read_npy(&npy::write_npy(&t.view()).unwrap()).unwrap();
//! let from_pb = onnx::read_tensor(&onnx::write_tensor(&t.view(), "x").unwrap()).unwrap();
//! assert_eq!(from_npy, t);
//! assert_eq!(from_pb.tensor, t);
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod file;
pub mod npy;
pub mod onnx;

pub use error::FormatError;
pub use file::{open_regular, read_exact_named, read_regular};
