//! The reference implementation: plainly correct, simple and slow; the oracle the
//! executor is tested against.
//!
//! It shares only the validation of [`crate::output_shape`] with the executor. Each
//! axis's source coordinates are built as an explicit list by following the definitions
//! literally (insert interior values, crop, then mirror / clamp / wrap one step at a
//! time), and every output element is then read through those lists.

use crate::dtype::{DType, Layout};
use crate::error::PadError;
use crate::packed;
use crate::scalar::Scalar;
use crate::spec::{output_shape, Corners, Mode, NegativePads, PadSpec};
use crate::strings::{Span, Strings};
use crate::tensor::{Data, Tensor, TensorView};

/// The largest output (in bytes) the reference produces: it is a test oracle for
/// small tensors.
pub const LIMIT_BYTES: u64 = 1 << 28;

/// Pads `input` as `spec` says, the slow and obvious way.
///
/// # Errors
/// Every error of [`crate::output_shape`]; [`PadError::ValueType`] when the pad value
/// is not of the tensor's type; [`PadError::OutputTooLarge`] for outputs over
/// [`LIMIT_BYTES`].
///
/// ```
/// use ndpad::{reference, AxisPad, Mode, PadSpec, Tensor};
/// let x = Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap();
/// let spec = PadSpec::new(vec![AxisPad::new(2, 1)], Mode::Reflect);
/// let y = reference::pad(x.view(), &spec).unwrap();
/// assert_eq!(y.to_vec::<i32>().unwrap(), vec![3, 2, 1, 2, 3, 2]);
/// ```
pub fn pad(input: TensorView<'_>, spec: &PadSpec) -> Result<Tensor, PadError> {
    let out_shape = output_shape(input.shape(), spec)?;
    let value = match &spec.mode {
        Mode::Constant(Some(v)) => {
            if v.dtype() != input.dtype() {
                return Err(PadError::ValueType {
                    value: v.dtype(),
                    tensor: input.dtype(),
                });
            }
            v.clone()
        }
        _ => Scalar::zero(input.dtype()),
    };
    let dtype = input.dtype();
    let out_numel: usize = out_shape.iter().product();
    let bytes = match dtype.layout() {
        Layout::Strings => out_numel as u128 * std::mem::size_of::<Span>() as u128,
        _ => dtype.byte_len(out_numel).map_or(u128::MAX, |b| b as u128),
    };
    check_limit(&out_shape, bytes)?;
    let lists: Vec<Vec<Option<usize>>> = if out_numel == 0 {
        vec![Vec::new(); out_shape.len()]
    } else {
        input
            .shape()
            .iter()
            .zip(&spec.axes)
            .zip(&out_shape)
            .map(|((&d, pad), &n)| axis_list(d, pad.begin, pad.end, pad.interior, n, spec))
            .collect()
    };
    let in_shape = input.shape();
    // The constants: the mode's, then each side's where it has its own (numpy.pad
    // writes axis after axis, each over the data of the later axes: an element in the
    // pad of several axes ends with the last one's, or the first one's where the spec
    // says so).
    let maps = crate::spec::axis_maps(in_shape, spec)?;
    crate::spec::faces(dtype, spec, &maps)?;
    let mut constants = vec![value];
    let mut side_of = vec![[0usize; 2]; spec.sides.len()];
    for (axis, pair) in spec.sides.iter().enumerate() {
        for (side, v) in pair.iter().enumerate() {
            if let Some(v) = v {
                side_of[axis][side] = constants.len();
                constants.push(v.clone());
            }
        }
    }
    let mut sources: Vec<Result<usize, usize>> = Vec::with_capacity(out_numel);
    crate::index::for_each_index(&out_shape, |idx| {
        let mut flat = Some(0usize);
        let mut constant = None;
        for (axis, &o) in idx.iter().enumerate() {
            flat = match (flat, lists[axis][o]) {
                (Some(f), Some(i)) => Some(f * in_shape[axis] + i),
                _ => None,
            };
            if let Some(sides) = side_of.get(axis) {
                let pad = &spec.axes[axis];
                let side = if (o as i128) < i128::from(pad.begin) {
                    Some(sides[0])
                } else if (o as i128) >= out_shape[axis] as i128 - i128::from(pad.end) {
                    Some(sides[1])
                } else {
                    None
                };
                if side.is_some() && (spec.corners == Corners::LastAxis || constant.is_none()) {
                    constant = side;
                }
            }
        }
        sources.push(flat.ok_or(constant.unwrap_or(0)));
    });
    match (input.data(), dtype.layout()) {
        (Data::Strings(s), _) => {
            // Each element written out anew: no span is shared with the input, and
            // the text is each element's, counted against the limit first.
            let text = |src: &Result<usize, usize>| match src {
                Ok(i) => s.get(*i).unwrap_or_default(),
                Err(c) => constants[*c].as_str().unwrap_or_default(),
            };
            check_limit(
                &out_shape,
                bytes + sources.iter().map(|t| text(t).len() as u128).sum::<u128>(),
            )?;
            let out: Strings = sources.iter().map(text).collect();
            Tensor::from_strings(&out_shape, out)
        }
        (Data::Bytes(b), Layout::Bytes(w)) => {
            let mut out = Vec::with_capacity(out_numel * w);
            for src in &sources {
                match src {
                    Ok(i) => out.extend_from_slice(&b[i * w..(i + 1) * w]),
                    Err(c) => out.extend_from_slice(&constants[*c].to_le_bytes()),
                }
            }
            Tensor::from_bytes(dtype, &out_shape, out)
        }
        (Data::Bytes(b), Layout::Packed(bits)) => {
            let mut out = vec![0u8; dtype.byte_len(out_numel).unwrap_or(0)];
            for (k, src) in sources.iter().enumerate() {
                let v = match src {
                    Ok(i) => packed::get(b, bits, *i).unwrap_or(0),
                    Err(c) => constants[*c].bits().unwrap_or(0) as u8,
                };
                packed::set(&mut out, bits, k, v);
            }
            Tensor::from_bytes(dtype, &out_shape, out)
        }
        (Data::Bytes(_), Layout::Strings) => Err(PadError::StorageMismatch {
            dtype: DType::String,
            expected: "strings",
            given: "bytes",
        }),
    }
}

/// Refuses an output of more than [`LIMIT_BYTES`].
fn check_limit(shape: &[usize], bytes: u128) -> Result<(), PadError> {
    if bytes > u128::from(LIMIT_BYTES) {
        return Err(PadError::OutputTooLarge {
            shape: shape.to_vec(),
            bytes,
            limit: LIMIT_BYTES,
        });
    }
    Ok(())
}

/// The source coordinate of every output coordinate of one axis, built literally.
fn axis_list(
    d: usize,
    begin: i64,
    end: i64,
    interior: u64,
    n: usize,
    spec: &PadSpec,
) -> Vec<Option<usize>> {
    if n == 0 {
        return Vec::new();
    }
    let mode = &spec.mode;
    if mode.is_constant() {
        // Output coordinate o is position o - begin of the axis with `interior` values
        // inserted between neighbours: data where the position falls on an element.
        let step = i128::from(interior) + 1;
        let spread = if d == 0 {
            0
        } else {
            (d as i128 - 1) * step + 1
        };
        return (0..n as i128)
            .map(|o| {
                let p = o - i128::from(begin);
                (p >= 0 && p < spread && p % step == 0).then(|| (p / step) as usize)
            })
            .collect();
    }
    // Non-constant modes: which window of the input is "the data", and which output
    // position holds its first element.
    let (lo, hi, start) = match spec.negative {
        NegativePads::CropFirst => {
            let lo = (-begin).max(0) as usize;
            let hi = d - (-end).max(0) as usize;
            (lo, hi, begin.max(0) as i128)
        }
        NegativePads::OriginalIndex => (0, d, begin as i128),
    };
    (0..n)
        .map(|o| {
            // Walk from the output position back into the window one reflection at a
            // time.
            let mut p = o as i128 - start + lo as i128;
            let (a, b) = (lo as i128, hi as i128 - 1);
            // Far outside the window, whole periods of the pattern are skipped first.
            let period = match mode {
                Mode::Reflect => 2 * (b - a),
                Mode::Symmetric => 2 * (b - a + 1),
                Mode::Wrap => b - a + 1,
                _ => 0,
            };
            if period > 0 && (p < a - period || p > b + period) {
                p = a + (p - a).rem_euclid(period);
            }
            loop {
                if p >= a && p <= b {
                    return Some(p as usize);
                }
                p = match mode {
                    Mode::Edge => p.clamp(a, b),
                    Mode::Reflect if a == b => a,
                    Mode::Reflect if p < a => 2 * a - p,
                    Mode::Reflect => 2 * b - p,
                    Mode::Symmetric if p < a => 2 * a - p - 1,
                    Mode::Symmetric => 2 * b - p + 1,
                    Mode::Wrap if p < a => p + (b - a + 1),
                    Mode::Wrap => p - (b - a + 1),
                    Mode::Constant(_) => return None,
                };
            }
        })
        .collect()
}
