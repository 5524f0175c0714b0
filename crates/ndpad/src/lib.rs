//! # ndpad: the tensor padding engine
//!
//! One normalized [`PadSpec`] (per axis: `begin`, `end` — negative removes elements —
//! and `interior`; a [`Mode`]; the two policies frameworks disagree on), one
//! shape-inference function ([`output_shape`]), a plainly correct [`reference`](mod@reference)
//! implementation, and a fast kernel ([`pad`], [`pad_into`], [`Plan`]) that copies
//! contiguous runs and fills constants, on every element type of ONNX Pad-25
//! ([`DType`]), multi-threaded above a size threshold.
//!
//! With the optional `ndarray` feature, `pad_array` / `pad_array_into` pad an
//! `ndarray` array or view of any [`Element`] type, dimension and layout.
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

#[cfg(feature = "ndarray")]
mod array;
mod bits;
mod dtype;
mod error;
mod exec;
pub mod packed;
mod plan;
pub mod reference;
mod scalar;
mod spec;
pub mod stats;
mod sys;
mod tensor;

#[cfg(feature = "ndarray")]
pub use array::{pad_array, pad_array_into, pad_array_with};
pub use dtype::{DType, Layout};
pub use error::{byte_size, PadError};
pub use exec::PadOptions;
pub use plan::{segments, Plan, PlanAxis, Seg, Source, Window};
pub use scalar::Scalar;
pub use spec::{
    axis_map, output_dim, output_shape, AxisMap, AxisPad, Fold, Mode, NegativePads, Oversize,
    PadSpec,
};
pub use tensor::{numel, Buffer, Data, DataMut, Element, Tensor, TensorView, TensorViewMut};

/// The repository's README, so that its Rust code blocks are compiled and run as
/// doctests (`cargo test --doc -p ndpad`): its quick start must build when pasted.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// A tensor's type and shape, for messages.
fn describe(d: DType, s: &[usize]) -> String {
    format!("{d} of shape {s:?}")
}

/// Fresh outputs at least this large are advised to use transparent huge pages.
const HUGE_PAGE_ADVICE_BYTES: usize = 4 << 20;

/// Pads `input` as `spec` says, with the default [`PadOptions`] (all threads, no
/// output limit).
///
/// # Errors
/// See [`pad_with`].
pub fn pad(input: TensorView<'_>, spec: &PadSpec) -> Result<Tensor, PadError> {
    pad_with(input, spec, &PadOptions::default())
}

/// Pads `input` into a newly allocated tensor. The output buffer is allocated once
/// (zeroed by the allocator, so large buffers come straight from the OS) and each
/// element is written once.
///
/// # Errors
/// Every error of [`output_shape`]; [`PadError::ValueType`] when the constant is of
/// another type than the tensor; [`PadError::OutputTooLarge`] when the output exceeds
/// `opts.max_output_bytes` (for strings: as if every element were as long as the
/// longest input string or the constant; for 4- and 2-bit types padded on their
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

impl Plan {
    /// Runs the plan into a newly allocated tensor. The output buffer is allocated
    /// once (zeroed by the allocator, so large buffers come straight from the OS) and
    /// each element is written once.
    ///
    /// # Errors
    /// As [`pad_with`], and [`PadError::InputMismatch`] when `input` does not match
    /// the plan.
    pub fn pad(&self, input: TensorView<'_>, opts: &PadOptions) -> Result<Tensor, PadError> {
        self.check_input(&input)?;
        self.check_limit(&input, opts)?;
        let no_memory = || PadError::OutOfMemory {
            shape: self.output_shape().to_vec(),
            bytes: self.output_bytes(),
        };
        let mut out = match input.dtype().layout() {
            Layout::Strings => {
                let mut s = Vec::new();
                s.try_reserve_exact(self.output_numel())
                    .map_err(|_| no_memory())?;
                s.resize(self.output_numel(), String::new());
                Buffer::Strings(s)
            }
            _ => {
                // Zeroed by the allocator: a large buffer comes untouched from the OS, and
                // the writing threads fault its (huge) pages in as they first write them.
                let mut b = sys::try_zeroed(self.output_bytes()).ok_or_else(no_memory)?;
                if b.len() >= HUGE_PAGE_ADVICE_BYTES {
                    sys::advise_huge_pages(&mut b);
                }
                Buffer::Bytes(b)
            }
        };
        {
            let mut dst = match &mut out {
                Buffer::Bytes(b) => DataMut::Bytes(b),
                Buffer::Strings(s) => DataMut::Strings(s),
            };
            self.run(input.data(), &mut dst, opts)?;
        }
        match out {
            Buffer::Bytes(b) => Tensor::from_bytes(input.dtype(), self.output_shape(), b),
            Buffer::Strings(s) => Tensor::from_strings(self.output_shape(), s),
        }
    }

    fn check_input(&self, input: &TensorView<'_>) -> Result<(), PadError> {
        if input.dtype() != self.dtype || input.shape() != self.in_shape {
            return Err(PadError::InputMismatch {
                expected: describe(self.dtype, &self.in_shape),
                got: describe(input.dtype(), input.shape()),
            });
        }
        Ok(())
    }

    /// Runs the plan: pads `input` (of the plan's type and shape) into `output` (of
    /// the plan's output shape).
    ///
    /// # Errors
    /// [`PadError::InputMismatch`] / [`PadError::OutputMismatch`] when `input` /
    /// `output` does not match the plan.
    pub fn execute(
        &self,
        input: TensorView<'_>,
        output: &mut TensorViewMut<'_>,
        opts: &PadOptions,
    ) -> Result<(), PadError> {
        self.check_input(&input)?;
        if output.dtype() != self.dtype || output.shape() != self.out_shape {
            return Err(PadError::OutputMismatch {
                expected: describe(self.dtype, &self.out_shape),
                got: describe(output.dtype(), output.shape()),
            });
        }
        self.run(input.data(), output.data_mut(), opts)
    }

    /// Fails when the output exceeds `opts.max_output_bytes`.
    fn check_limit(&self, input: &TensorView<'_>, opts: &PadOptions) -> Result<(), PadError> {
        let Some(limit) = opts.max_output_bytes else {
            return Ok(());
        };
        let n = self.out_numel as u128;
        let bytes = match (self.dtype.layout(), input.data()) {
            // Every output string may be a copy of the longest input string (or the
            // constant): an upper bound, computed without padding anything.
            (Layout::Strings, data) => {
                let longest_input = match data {
                    Data::Strings(s) => s.iter().map(String::len).max().unwrap_or(0),
                    Data::Bytes(_) => 0,
                };
                let longest = longest_input.max(self.value.as_str().map_or(0, str::len));
                n * (std::mem::size_of::<String>() + longest) as u128
            }
            _ => self.output_bytes() as u128,
        };
        if bytes > limit as u128 {
            return Err(PadError::OutputTooLarge {
                shape: self.out_shape.clone(),
                bytes,
                limit,
            });
        }
        Ok(())
    }
}
