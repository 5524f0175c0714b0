//! # ndpad: the tensor padding engine
//!
//! One normalized [`PadSpec`] (per axis: `begin`, `end` — negative removes elements —
//! and `interior`; a [`Mode`]; the two policies frameworks disagree on), one
//! shape-inference function ([`output_shape`]), a plainly correct [`reference`](mod@reference)
//! implementation, and a fast executor ([`pad`], [`pad_into`], [`Plan`]) that copies
//! contiguous runs and fills constants, on every element type of ONNX Pad-25
//! ([`DType`]), multi-threaded above a size threshold.
//!
//! With the optional `ndarray` feature, `pad_array` / `pad_array_into` pad an
//! `ndarray` array or view of any [`Element`] type, dimension and layout. The arrays
//! are those of `ndarray` 0.17: depend on `ndarray = "0.17"`, or use the re-export
//! `ndpad::ndarray`.
//!
//! Front ends (ONNX, OpenVINO, nGraph) only translate their operators into a
//! [`PadSpec`]; nothing else pads.
//!
//! ```
//! use ndpad::{pad, AxisPad, Mode, PadSpec, Tensor};
//! let x = Tensor::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
//! let spec = PadSpec::new(vec![AxisPad::new(0, 0), AxisPad::new(1, 1)], Mode::Edge);
//! let y = pad(x.view(), &spec).unwrap();
//! assert_eq!(y.shape(), &[2, 4]);
//! assert_eq!(y.to_vec::<f32>().unwrap(), vec![1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]);
//! ```
//!
//! # Errors, never panics
//! Every entry point returns a [`PadError`] naming the axis, value and limit involved;
//! all shape arithmetic is checked.

#![deny(unsafe_code)]
#![warn(missing_docs)]
// docs.rs (all features): items behind a feature say which.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod arch;
#[cfg(feature = "ndarray")]
mod array;
mod bits;
mod dtype;
mod error;
mod exec;
pub mod index;
mod options;
mod os;
pub mod packed;
mod plan;
pub mod reference;
mod scalar;
mod spec;
mod strings;
mod tensor;
mod tune;

/// The threads the kernel runs on, for front ends that split work of their own the
/// same way: `count` turns a caller's `threads` (0: all cores) into a number, `share`
/// hands parts of the work to the calling thread and that many less one of rayon's
/// (as the kernel splits an output; never the global pool in a child forked after
/// first use), `share_map` does so for work with a result per part, `part_len` says
/// how many items to put in a part, `for_bytes` how many threads write an output
/// (and [`Stopper`] stops such work on an [`Interrupt`]).
pub mod threads {
    pub use crate::exec::{for_bytes, part_len, share, share_map, thread_count as count};
}

#[cfg(feature = "ndarray")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
pub use array::{pad_array, pad_array_into, pad_array_with};
pub use dtype::{DType, Layout};
pub use error::{axes, byte_size, PadError};
/// The `ndarray` crate (0.17) whose arrays [`pad_array`] takes, for callers that do not
/// depend on it themselves.
#[cfg(feature = "ndarray")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
pub use ndarray;
#[doc(hidden)]
pub use options::KernelName;
pub use options::{Interrupt, OutputMemory, PadOptions, Stopper, Ticker};
#[doc(hidden)]
pub use os::pooled_bytes;
pub use os::{output_buffer, zeroed_vec, PooledBuffer};
pub use plan::{
    file_order_boxes, segments, split_axis, Cut, FileBoxes, Piece, Plan, PlanAxis, Seg, Source,
    Window,
};
pub use scalar::Scalar;
pub use spec::{
    axis_map, output_dim, output_shape, AxisMap, AxisPad, Corners, Face, Fold, Mode, NegativePads,
    Oversize, PadSpec, SideConstants,
};
pub use strings::{Strings, StringsIter};
pub use tensor::{
    numel, Buffer, Data, DataMut, Element, OwnedBytes, Tensor, TensorView, TensorViewMut,
};

/// The repository's README, so that its Rust code blocks are compiled and run as
/// doctests (`cargo test --doc -p ndpad`): its quick start must build when pasted.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// Copies `src` into `dst` with non-temporal stores on x86_64 (each line of `dst`
/// written without being read into the cache first), a plain copy elsewhere: the
/// floor of an output written around the cache, which benchmarks measure beside the
/// pad. `false`, having written nothing, when the lengths differ.
#[doc(hidden)]
pub fn copy_around_cache(dst: &mut [u8], src: &[u8]) -> bool {
    if dst.len() != src.len() {
        return false;
    }
    if !arch::stream_copy(dst, src, 0, arch::Cpu::get()) {
        dst.copy_from_slice(src);
    }
    true
}

/// Copies `src` into `dst` through the cache, as `copy_from_slice` does (and panics
/// where the lengths differ, as it does), but never at the speed `memcpy` falls to
/// where the destination lies a few bytes past the source within a 4 KiB page
/// (glibc's `rep movsb`, ten times slower there on AMD Zen 5): the copies of tiles
/// and of the front ends' own passes.
#[doc(hidden)]
pub fn copy_through_cache<T: bytemuck::Pod>(dst: &mut [T], src: &[T]) {
    if std::mem::size_of::<T>() == 0 {
        // No bytes to view (a cast of zero-sized elements panics).
        dst.copy_from_slice(src);
        return;
    }
    arch::copy_cached(bytemuck::cast_slice_mut(dst), bytemuck::cast_slice(src));
}

/// Pads `input` as `spec` says, with the default [`PadOptions`] (all threads, no
/// output limit).
///
/// # Errors
/// See [`pad_with`].
pub fn pad(input: TensorView<'_>, spec: &PadSpec) -> Result<Tensor, PadError> {
    pad_with(input, spec, &PadOptions::default())
}

/// Pads `input` into a newly allocated tensor, each element written once (no clearing
/// pass). An output of 32 MiB and more ([`PooledBuffer::MIN_BYTES`]) takes its pages
/// from the output pool: a dropped earlier output of the same size, already faulted
/// in, or new pages that the writing threads fault in; they go back to the pool when
/// the tensor is dropped (at most 1 GiB stays idle there, returned to the OS after 5 s
/// idle). A loop of same-size pads thus runs at `pad_into`'s speed.
///
/// # Errors
/// Every error of [`output_shape`]; [`PadError::ValueType`] when the constant is of
/// another type than the tensor; [`PadError::OutputTooLarge`] when the output exceeds
/// `opts.max_output_bytes` (for strings: 16 bytes an element, the input's text and
/// the constants' text, which the elements share; for 4- and 2-bit types padded on their
/// last axis: with the one-byte-per-element working copy of the input);
/// [`PadError::ShapeOverflow`] when it cannot be addressed;
/// [`PadError::OutOfMemory`] when it cannot be allocated.
///
/// ```
/// use ndpad::{pad_with, AxisPad, Mode, PadOptions, PadSpec, Tensor};
/// let x = Tensor::from_slice(&[3], &[1u8, 2, 3]).unwrap();
/// let spec = PadSpec::new(vec![AxisPad::new(1_000_000, 0)], Mode::Constant(None));
/// let opts = PadOptions { max_output_bytes: Some(1000), ..PadOptions::default() };
/// assert!(pad_with(x.view(), &spec, &opts).unwrap_err().to_string().contains("limit of 1000 bytes"));
/// ```
pub fn pad_with(
    input: TensorView<'_>,
    spec: &PadSpec,
    opts: &PadOptions,
) -> Result<Tensor, PadError> {
    Plan::new(input.dtype(), input.shape(), spec)?.pad(input, opts)
}

/// Pads `input` into the caller's `output`, which must have the padded shape and the
/// input's type.
///
/// # Errors
/// As [`pad_with`], and [`PadError::OutputMismatch`] when `output` is not of the padded
/// shape and type.
///
/// ```
/// use ndpad::{pad_into, AxisPad, DType, Mode, PadOptions, PadSpec, Tensor, TensorViewMut};
/// let x = Tensor::from_slice(&[2], &[7u8, 9]).unwrap();
/// let spec = PadSpec::new(vec![AxisPad::new(1, 1)], Mode::Wrap);
/// let mut buf = [0u8; 4];
/// let mut out = TensorViewMut::from_bytes(DType::Uint8, &[4], &mut buf).unwrap();
/// pad_into(x.view(), &spec, &mut out, &PadOptions::default()).unwrap();
/// assert_eq!(buf, [9, 7, 9, 7]);
/// ```
pub fn pad_into(
    input: TensorView<'_>,
    spec: &PadSpec,
    output: &mut TensorViewMut<'_>,
    opts: &PadOptions,
) -> Result<(), PadError> {
    let plan = Plan::new(input.dtype(), input.shape(), spec)?;
    plan.execute(input, output, opts)
}
