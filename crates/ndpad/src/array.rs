//! Padding [`ndarray`] arrays (the optional `ndarray` feature).
//!
//! Any element type ndpad knows as a Rust number ([`Element`]: `i8` … `u64`, `f32`,
//! `f64`, `half::f16`, `half::bf16`), any dimension type (`Ix1` … `IxDyn`) and any
//! layout: a standard-layout (C-order, contiguous) input is read in place, without a
//! copy; a Fortran-order or strided one is first gathered into C order. The result is
//! a standard-layout [`Array`] of the same dimension type, or is written into the
//! caller's [`ArrayViewMut`] (of any layout).
//!
//! ```
//! use ndarray::{array, s, Array2};
//! use ndpad::{pad_array, pad_array_into, AxisPad, Mode, PadSpec};
//! let x = array![[1.0f32, 2.0], [3.0, 4.0]];
//! let spec = PadSpec::new(vec![AxisPad::new(1, 0), AxisPad::new(0, 1)], Mode::Edge);
//! let y = pad_array(&x.view(), &spec).unwrap();
//! assert_eq!(y, array![[1.0, 2.0, 2.0], [1.0, 2.0, 2.0], [3.0, 4.0, 4.0]]);
//! // A transposed (Fortran-order) view, into part of a bigger array.
//! let mut big = Array2::<f32>::zeros((3, 5));
//! pad_array_into(&x.t(), &spec, big.slice_mut(s![.., 1..4])).unwrap();
//! assert_eq!(big.row(2), array![0.0, 2.0, 4.0, 4.0, 0.0]);
//! ```

use std::borrow::Cow;

use ::ndarray::{Array, ArrayBase, ArrayViewMut, Data, Dimension, IxDyn};

use crate::tensor::Element;
use crate::{
    output_shape, pad_into, DType, PadError, PadOptions, PadSpec, Tensor, TensorView, TensorViewMut,
};

/// The elements of `input` in C order: borrowed when it is in standard layout.
fn c_order<A: Element, S: Data<Elem = A>, D: Dimension>(input: &ArrayBase<S, D>) -> Cow<'_, [A]> {
    match input.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(input.iter().copied().collect()),
    }
}

fn describe(dtype: DType, shape: &[usize]) -> String {
    format!("{dtype} of shape {shape:?}")
}

/// Pads `input` as `spec` says into a new standard-layout array, with the default
/// [`PadOptions`].
///
/// # Errors
/// As [`crate::pad`].
pub fn pad_array<A, S, D>(input: &ArrayBase<S, D>, spec: &PadSpec) -> Result<Array<A, D>, PadError>
where
    A: Element,
    S: Data<Elem = A>,
    D: Dimension,
{
    pad_array_with(input, spec, &PadOptions::default())
}

/// Pads `input` as `spec` says into a new standard-layout array.
///
/// # Errors
/// As [`crate::pad_with`]: the shape errors of [`output_shape`],
/// [`PadError::OutputTooLarge`] over `opts.max_output_bytes`,
/// [`PadError::OutOfMemory`] when the output cannot be allocated.
pub fn pad_array_with<A, S, D>(
    input: &ArrayBase<S, D>,
    spec: &PadSpec,
    opts: &PadOptions,
) -> Result<Array<A, D>, PadError>
where
    A: Element,
    S: Data<Elem = A>,
    D: Dimension,
{
    let shape = output_shape(input.shape(), spec)?;
    let n = crate::numel(&shape)?;
    let bytes = n
        .checked_mul(std::mem::size_of::<A>())
        .ok_or_else(|| PadError::ShapeOverflow {
            shape: shape.clone(),
        })?;
    if let Some(limit) = opts.max_output_bytes {
        if bytes as u128 > u128::from(limit) {
            return Err(PadError::OutputTooLarge {
                shape,
                bytes: bytes as u128,
                limit,
            });
        }
    }
    let mut data: Vec<A> = crate::os::zeroed_vec(n).ok_or_else(|| PadError::OutOfMemory {
        shape: shape.clone(),
        bytes,
    })?;
    let elems = c_order(input);
    let view = TensorView::from_bytes(A::DTYPE, input.shape(), bytemuck::cast_slice(&elems))?;
    let mut out = TensorViewMut::from_bytes(A::DTYPE, &shape, bytemuck::cast_slice_mut(&mut data))?;
    pad_into(view, spec, &mut out, opts)?;
    let dim = D::from_dimension(&IxDyn(&shape)).ok_or_else(|| PadError::OutputMismatch {
        expected: describe(A::DTYPE, &shape),
        got: format!("an array of {} dimensions", input.ndim()),
    })?;
    Array::from_shape_vec(dim, data).map_err(|e| PadError::OutputMismatch {
        expected: describe(A::DTYPE, &shape),
        got: e.to_string(),
    })
}

/// Pads `input` as `spec` says into `output`, which must have the padded shape; it
/// may have any layout (a standard-layout one is written in place, another through a
/// C-order buffer).
///
/// # Errors
/// As [`crate::pad_into`]: [`PadError::OutputMismatch`] when `output` is not of the
/// padded shape.
pub fn pad_array_into<A, S, D>(
    input: &ArrayBase<S, D>,
    spec: &PadSpec,
    mut output: ArrayViewMut<'_, A, D>,
) -> Result<(), PadError>
where
    A: Element,
    S: Data<Elem = A>,
    D: Dimension,
{
    let shape = output_shape(input.shape(), spec)?;
    if output.shape() != shape.as_slice() {
        return Err(PadError::OutputMismatch {
            expected: describe(A::DTYPE, &shape),
            got: describe(A::DTYPE, output.shape()),
        });
    }
    let elems = c_order(input);
    let view = TensorView::from_bytes(A::DTYPE, input.shape(), bytemuck::cast_slice(&elems))?;
    let opts = PadOptions::default();
    if let Some(slice) = output.as_slice_mut() {
        let mut out = TensorViewMut::from_bytes(A::DTYPE, &shape, bytemuck::cast_slice_mut(slice))?;
        return pad_into(view, spec, &mut out, &opts);
    }
    let padded: Tensor = crate::pad_with(view, spec, &opts)?;
    let bytes = padded.bytes().unwrap_or_default();
    for (dst, src) in output
        .iter_mut()
        .zip(bytes.chunks_exact(std::mem::size_of::<A>()))
    {
        *dst = bytemuck::pod_read_unaligned(src);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::ndarray::{s, Array3, ShapeBuilder};

    #[test]
    fn a_standard_layout_input_is_not_copied() {
        let x = Array3::<u16>::zeros((2, 3, 4));
        assert!(matches!(c_order(&x.view()), Cow::Borrowed(_)));
        assert!(matches!(c_order(&x.slice(s![.., 1.., ..])), Cow::Owned(_)));
        let f = Array3::<u16>::zeros((2, 3, 4).f());
        assert!(matches!(c_order(&f), Cow::Owned(_)));
    }
}
