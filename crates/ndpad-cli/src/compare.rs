//! Exact tensor comparison for `ndpad onnx-test`: integers, bool and strings exactly;
//! floats bit for bit, except that any NaN equals any NaN.

use ndpad::{numel, DType, Scalar, TensorView};

use crate::info::element_text;

/// Whether two elements of the same type are equal under the test's rules.
fn same(a: &Scalar, b: &Scalar) -> bool {
    if a == b {
        return true;
    }
    let (Some(x), Some(y)) = (a.bits(), b.bits()) else {
        return false;
    };
    let nan32 = |bits: u128| f32::from_bits(bits as u32).is_nan();
    let nan64 = |bits: u128| f64::from_bits(bits as u64).is_nan();
    match a.dtype() {
        DType::Complex64 => {
            let part = |p: u128, q: u128| p == q || (nan32(p) && nan32(q));
            part(x & 0xFFFF_FFFF, y & 0xFFFF_FFFF) && part(x >> 32, y >> 32)
        }
        DType::Complex128 => {
            let part = |p: u128, q: u128| p == q || (nan64(p) && nan64(q));
            let lo = u128::from(u64::MAX);
            part(x & lo, y & lo) && part(x >> 64, y >> 64)
        }
        d if d.is_integer() || d == DType::Bool => false,
        _ => matches!((a.to_f64(), b.to_f64()), (Some(p), Some(q)) if p.is_nan() && q.is_nan()),
    }
}

/// The multi-index of flat (row-major) position `flat` in `shape`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (i, &d) in shape.iter().enumerate().rev() {
        if d > 0 {
            idx[i] = flat % d;
            flat /= d;
        }
    }
    idx
}

/// `None` when `got` equals `expected`; otherwise what differs: the type, the shape, or
/// the number of differing elements with the first differing index and both values.
pub fn difference(expected: &TensorView<'_>, got: &TensorView<'_>) -> Option<String> {
    if expected.dtype() != got.dtype() {
        return Some(format!(
            "type differs: expected {}, got {}",
            expected.dtype(),
            got.dtype()
        ));
    }
    if expected.shape() != got.shape() {
        return Some(format!(
            "shape differs: expected {:?}, got {:?}",
            expected.shape(),
            got.shape()
        ));
    }
    if let (ndpad::Data::Bytes(a), ndpad::Data::Bytes(b)) = (expected.data(), got.data()) {
        if a == b {
            return None;
        }
    }
    let n = numel(expected.shape()).unwrap_or(0);
    let mut first = None;
    let mut count = 0usize;
    for i in 0..n {
        let (Some(a), Some(b)) = (expected.scalar_at(i), got.scalar_at(i)) else {
            continue;
        };
        if !same(&a, &b) {
            count += 1;
            if first.is_none() {
                first = Some((i, a, b));
            }
        }
    }
    let (i, a, b) = first?;
    let idx = unravel(i, expected.shape());
    let bits = |s: &Scalar| {
        s.bits()
            .map_or(String::new(), |b| format!(" (bits {b:#x})"))
    };
    let (ta, tb) = (element_text(&a), element_text(&b));
    let (ea, eb) = if ta == tb {
        (bits(&a), bits(&b))
    } else {
        (String::new(), String::new())
    };
    Some(format!(
        "{count} of {n} elements differ; first at index {idx:?}: expected {ta}{ea}, got {tb}{eb}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndpad::Tensor;

    #[test]
    fn rules() {
        let a = Tensor::from_slice(&[3], &[1.0f32, f32::NAN, -0.0]).unwrap();
        let b = Tensor::from_slice(&[3], &[1.0f32, -f32::NAN, -0.0]).unwrap();
        assert_eq!(difference(&a.view(), &b.view()), None);
        let c = Tensor::from_slice(&[3], &[1.0f32, f32::NAN, 0.0]).unwrap();
        let d = difference(&a.view(), &c.view()).unwrap();
        assert!(
            d.contains("1 of 3 elements differ; first at index [2]"),
            "{d}"
        );
        let i = Tensor::from_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
        let j = Tensor::from_slice(&[2, 2], &[1i32, 2, 3, 5]).unwrap();
        let d = difference(&i.view(), &j.view()).unwrap();
        assert!(d.contains("index [1, 1]: expected 4, got 5"), "{d}");
        let k = Tensor::from_slice(&[4], &[1i32, 2, 3, 4]).unwrap();
        assert!(difference(&i.view(), &k.view()).unwrap().contains("shape"));
        assert!(difference(&a.view(), &k.view()).unwrap().contains("type"));
        let s = Tensor::from_strings(&[2], vec!["a", "b"]).unwrap();
        let t = Tensor::from_strings(&[2], vec!["a", "c"]).unwrap();
        assert!(difference(&s.view(), &t.view()).unwrap().contains("\"c\""));
        assert_eq!(unravel(5, &[2, 3]), vec![1, 2]);
    }
}
