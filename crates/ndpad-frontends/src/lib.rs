//! # ndpad-frontends: framework Pad operators translated into [`ndpad::PadSpec`]
//!
//! Each module takes one framework's Pad exactly as its document defines it, checks
//! it, and returns a [`Resolved`]: the normalized spec and the output shape, both
//! computed by the core ([`ndpad::output_shape`] / [`ndpad::output_dim`]). Hand the
//! spec to [`ndpad::pad`]. The one exception: numpy's statistic modes and
//! linear_ramp are arithmetic, not index maps, and are computed here
//! ([`numpy::stats`]).
//!
//! - [`onnx`] — ONNX Pad-1 to Pad-25 through a version table ([`onnx::VERSIONS`]).
//! - [`openvino`] — OpenVINO Pad-1 and Pad-12.
//! - [`ngraph`] — nGraph Pad v0 (interior padding).
//! - [`numpy`] — `numpy.pad`, with its statistic modes and linear_ramp ([`numpy::stats`]).
//!
//! Shapes whose extents are names or unknown go through each front end's
//! `output_dims` with [`Dim`]s (and [`onnx::output_shape`]): a name survives where its
//! axis is not padded; a padded named extent becomes [`Dim::Unknown`].
//!
//! Every error is a [`FrontendError`] naming the operator and version, the value, the
//! input / attribute / axis and the limit; the exceptions are numpy.pad's own errors
//! of its index arguments ([`numpy::index_pairs`]), numpy's messages word for word. `SEMANTICS.md` in this crate lists where
//! the frameworks differ and what each front end does.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod common;
mod error;
pub mod ngraph;
pub mod numpy;
pub mod onnx;
pub mod openvino;

pub use common::{Dim, IntInput, PadValue, Resolved};
pub use error::FrontendError;
