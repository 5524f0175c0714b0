//! numpy.pad's rule for its index arguments (`pad_width`, `stat_length`): numpy 2.x's
//! `_as_pairs(x, ndim, as_index=True)` on the argument already converted to integers
//! (numpy's `np.round(x).astype(np.intp)`, done by the caller), given with its shape.
//!
//! - One value: the same `(value, value)` pair on every axis.
//! - Two values of an array of at most 2 dimensions, other than the shape `(2, 1)`:
//!   `(first, second)` on every axis.
//! - Anything else is broadcast to `(ndim, 2)` by numpy's broadcasting rules: a
//!   `(ndim, 2)`, `(1, 2)`, `(ndim, 1)` or `(2,)` array (`(2, 1)` with `ndim` 2 gives
//!   each axis its own value on both sides).
//!
//! The values are checked as given, before broadcasting (so also with `ndim` 0), and
//! the errors are numpy's, with numpy's messages word for word (see
//! [`FrontendError::NegativeIndex`] and the variants after it).
//!
//! ```
//! use ndpad_frontends::numpy::index_pairs;
//! assert_eq!(index_pairs(&[3], &[], 2, false).unwrap(), vec![(3, 3), (3, 3)]);
//! assert_eq!(index_pairs(&[1, 2], &[2], 2, false).unwrap(), vec![(1, 2), (1, 2)]);
//! assert_eq!(index_pairs(&[1, 2], &[2, 1], 2, false).unwrap(), vec![(1, 1), (2, 2)]);
//! let e = index_pairs(&[1, -2], &[2], 2, false).unwrap_err();
//! assert_eq!(e.to_string(), "index can't contain negative values");
//! ```

use crate::error::{numpy_shape, FrontendError};

/// The most axes a numpy array has (numpy 2's `NPY_MAXDIMS`).
pub const MAX_DIMS: usize = 64;

/// `values` (an integer array of `shape`, in C order) as one `(before, after)` pair
/// for each of `ndim` axes, exactly as numpy.pad's `_as_pairs(x, ndim,
/// as_index=True)` pairs them. `allow_negative` skips numpy's checks of the values
/// (ndpad's `negative_pads`): then only the broadcast can fail.
///
/// # Errors
/// - [`FrontendError::NegativeIndex`]: a negative value (unless `allow_negative`).
/// - [`FrontendError::EmptyIndex`]: no value at all (unless `allow_negative`; numpy
///   takes the minimum of the values).
/// - [`FrontendError::IndexRank`]: an array of more than 2 dimensions that is not
///   taken as one or two values (numpy checks those only from 3 dimensions on).
/// - [`FrontendError::IndexBroadcast`]: a shape that does not broadcast to
///   `(ndim, 2)`.
/// - [`FrontendError::TooManyDims`]: `ndim` over [`MAX_DIMS`].
/// - [`FrontendError::PadsLength`]: `values` of another length than `shape` holds
///   (a caller's mistake, never numpy's).
pub fn index_pairs(
    values: &[i64],
    shape: &[usize],
    ndim: usize,
    allow_negative: bool,
) -> Result<Vec<(i64, i64)>, FrontendError> {
    if ndim > MAX_DIMS {
        return Err(FrontendError::TooManyDims {
            ndim,
            limit: MAX_DIMS,
        });
    }
    let size = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if size != Some(values.len()) {
        return Err(FrontendError::PadsLength {
            op: "numpy.pad".into(),
            name: "index values",
            expected: size.unwrap_or(usize::MAX),
            got: values.len(),
            why: format!("an array of shape {}", numpy_shape(shape)),
        });
    }
    let check = |vs: &[i64]| {
        if !allow_negative && vs.iter().any(|&v| v < 0) {
            return Err(FrontendError::NegativeIndex);
        }
        Ok(())
    };
    // numpy's shortcuts for one value, and for two other than one per axis of two.
    if shape.len() < 3 {
        match *values {
            [v] => {
                check(values)?;
                return Ok(vec![(v, v); ndim]);
            }
            [b, a] if shape != [2, 1] => {
                check(values)?;
                return Ok(vec![(b, a); ndim]);
            }
            _ => {}
        }
    }
    if !allow_negative && values.is_empty() {
        return Err(FrontendError::EmptyIndex);
    }
    check(values)?;
    broadcast(values, shape, ndim)
}

/// `np.broadcast_to(values, (ndim, 2))` as pairs.
fn broadcast(
    values: &[i64],
    shape: &[usize],
    ndim: usize,
) -> Result<Vec<(i64, i64)>, FrontendError> {
    let (rows, cols) = match *shape {
        [] => (1, 1),
        [c] => (1, c),
        [r, c] => (r, c),
        _ => return Err(FrontendError::IndexRank),
    };
    if !(rows == ndim || rows == 1) || !(cols == 2 || cols == 1) {
        return Err(FrontendError::IndexBroadcast {
            shape: shape.to_vec(),
            ndim,
        });
    }
    let pair = |axis: usize| {
        let row = if rows == 1 { 0 } else { axis } * cols;
        (values[row], values[row + cols - 1])
    };
    Ok((0..ndim).map(pair).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(values: &[i64], shape: &[usize], ndim: usize) -> Vec<(i64, i64)> {
        index_pairs(values, shape, ndim, false).unwrap()
    }

    fn message(values: &[i64], shape: &[usize], ndim: usize, allow: bool) -> String {
        index_pairs(values, shape, ndim, allow)
            .unwrap_err()
            .to_string()
    }

    const NEGATIVE: &str = "index can't contain negative values";
    const EMPTY: &str = "zero-size array to reduction operation minimum which has no identity";
    const RANK: &str = "input operand has more dimensions than allowed by the axis remapping";

    fn not_broadcast(shape: &str, ndim: usize) -> String {
        format!(
            "operands could not be broadcast together with remapped shapes \
             [original->remapped]: {shape}  and requested shape ({ndim},2)"
        )
    }

    #[test]
    fn one_value_is_every_side() {
        for shape in [&[][..], &[1], &[1, 1]] {
            assert_eq!(pairs(&[4], shape, 3), vec![(4, 4); 3], "{shape:?}");
        }
        assert_eq!(pairs(&[0], &[1], 1), vec![(0, 0)]);
        // From 3 dimensions on, numpy takes no shortcut: one value does not broadcast.
        assert_eq!(message(&[4], &[1, 1, 1], 3, false), RANK);
        assert_eq!(message(&[4], &[1, 1, 1, 1], 0, false), RANK);
    }

    /// No more pairs than a numpy array has axes (a huge `ndim` from the Python
    /// package's private function aborted the interpreter, out of memory).
    #[test]
    fn at_most_numpy_dims() {
        assert_eq!(pairs(&[1], &[], MAX_DIMS).len(), MAX_DIMS);
        assert_eq!(
            message(&[1], &[], 1 << 40, false),
            "maximum supported dimension for an ndarray is currently 64, found 1099511627776"
        );
    }

    #[test]
    fn two_values_are_before_and_after_of_every_axis() {
        for shape in [&[2][..], &[1, 2]] {
            assert_eq!(pairs(&[1, 2], shape, 3), vec![(1, 2); 3], "{shape:?}");
        }
        // Also where (ndim, 2) would not broadcast: numpy's shortcut comes first.
        assert_eq!(pairs(&[1, 2], &[2], 1), vec![(1, 2)]);
        assert_eq!(pairs(&[1, 2], &[1, 2], 4), vec![(1, 2); 4]);
    }

    #[test]
    fn two_by_one_is_one_value_per_axis() {
        assert_eq!(pairs(&[1, 2], &[2, 1], 2), vec![(1, 1), (2, 2)]);
        assert_eq!(
            message(&[1, 2], &[2, 1], 3, false),
            not_broadcast("(2,1)", 3)
        );
        assert_eq!(
            message(&[1, 2], &[2, 1], 1, false),
            not_broadcast("(2,1)", 1)
        );
        assert_eq!(
            message(&[1, 2], &[2, 1], 0, false),
            not_broadcast("(2,1)", 0)
        );
        assert_eq!(message(&[1, -2], &[2, 1], 2, false), NEGATIVE);
    }

    #[test]
    fn a_pair_per_axis() {
        let v = [1, 2, 3, 4, 5, 6];
        assert_eq!(pairs(&v, &[3, 2], 3), vec![(1, 2), (3, 4), (5, 6)]);
        assert_eq!(message(&v, &[3, 2], 2, false), not_broadcast("(3,2)", 2));
        assert_eq!(message(&v, &[3, 2], 0, false), not_broadcast("(3,2)", 0));
        assert_eq!(message(&v, &[2, 3], 2, false), not_broadcast("(2,3)", 2));
    }

    #[test]
    fn one_pair_of_rows_or_one_value_per_axis() {
        assert_eq!(pairs(&[7, 8, 9], &[3, 1], 3), vec![(7, 7), (8, 8), (9, 9)]);
        assert_eq!(
            message(&[7, 8, 9], &[3, 1], 2, false),
            not_broadcast("(3,1)", 2)
        );
        assert_eq!(
            message(&[7, 8, 9], &[1, 3], 3, false),
            not_broadcast("(1,3)", 3)
        );
    }

    #[test]
    fn other_lengths_do_not_broadcast() {
        assert_eq!(
            message(&[1, 2, 3], &[3], 2, false),
            not_broadcast("(3,)", 2)
        );
        assert_eq!(
            message(&[1, 2, 3], &[3], 3, false),
            not_broadcast("(3,)", 3)
        );
        assert_eq!(
            message(&[1, 2, 3, 4], &[4], 2, false),
            not_broadcast("(4,)", 2)
        );
        assert_eq!(
            message(&[1, 2, 3, 4], &[2, 2], 1, false),
            not_broadcast("(2,2)", 1)
        );
        assert_eq!(
            message(&[1, 2, 3, 4, 5, 6, 7, 8], &[2, 2, 2], 2, false),
            RANK
        );
        // Two values in 3 dimensions take no shortcut.
        assert_eq!(message(&[1, 2], &[1, 1, 2], 2, false), RANK);
        assert_eq!(message(&[1; 10], &[5, 1, 2], 5, false), RANK);
    }

    #[test]
    fn negatives_refused_before_broadcasting() {
        assert_eq!(message(&[-1], &[], 2, false), NEGATIVE);
        assert_eq!(message(&[-1], &[], 0, false), NEGATIVE);
        assert_eq!(message(&[1, -1], &[2], 2, false), NEGATIVE);
        assert_eq!(message(&[-1, 1], &[1, 2], 0, false), NEGATIVE);
        assert_eq!(message(&[1, 2, 3, -4], &[2, 2], 2, false), NEGATIVE);
        // Before the shape is looked at.
        assert_eq!(message(&[1, 2, -3], &[3], 2, false), NEGATIVE);
        assert_eq!(message(&[-1], &[1, 1, 1], 2, false), NEGATIVE);
        assert_eq!(
            message(&[1, -1, 0, 0, 0, 0, 0, 0], &[2, 2, 2], 2, false),
            NEGATIVE
        );
        assert_eq!(
            index_pairs(&[0, i64::MIN], &[2], 1, false).unwrap_err(),
            FrontendError::NegativeIndex
        );
    }

    #[test]
    fn allow_negative_keeps_the_broadcast() {
        let ok = |v: &[i64], s: &[usize], n| index_pairs(v, s, n, true).unwrap();
        assert_eq!(ok(&[-1], &[], 2), vec![(-1, -1); 2]);
        assert_eq!(ok(&[1, -2], &[2], 2), vec![(1, -2); 2]);
        assert_eq!(ok(&[-1, 2, 3, -4], &[2, 2], 2), vec![(-1, 2), (3, -4)]);
        assert_eq!(ok(&[-1, 2], &[2, 1], 2), vec![(-1, -1), (2, 2)]);
        assert_eq!(
            message(&[-1, 2, 3], &[3], 2, true),
            not_broadcast("(3,)", 2)
        );
        assert_eq!(message(&[-1], &[1, 1, 1], 2, true), RANK);
    }

    #[test]
    fn no_value() {
        for shape in [&[0][..], &[0, 2], &[2, 0], &[0, 0], &[0, 1, 1]] {
            for ndim in [0, 2] {
                assert_eq!(message(&[], shape, ndim, false), EMPTY, "{shape:?}");
            }
        }
        // Unchecked, numpy's broadcast decides: (0, 2) and (0, 1) are no axes' pairs.
        assert_eq!(index_pairs(&[], &[0, 2], 0, true).unwrap(), vec![]);
        assert_eq!(index_pairs(&[], &[0, 1], 0, true).unwrap(), vec![]);
        assert_eq!(message(&[], &[0], 0, true), not_broadcast("(0,)", 0));
        assert_eq!(message(&[], &[0], 2, true), not_broadcast("(0,)", 2));
        assert_eq!(message(&[], &[0, 2], 1, true), not_broadcast("(0,2)", 1));
        assert_eq!(message(&[], &[2, 0], 2, true), not_broadcast("(2,0)", 2));
        assert_eq!(message(&[], &[0, 1, 1], 0, true), RANK);
    }

    #[test]
    fn no_axis() {
        assert_eq!(pairs(&[3], &[], 0), vec![]);
        assert_eq!(pairs(&[1, 2], &[2], 0), vec![]);
        assert_eq!(pairs(&[1, 2], &[1, 2], 0), vec![]);
        assert_eq!(
            message(&[1, 2, 3, 4], &[2, 2], 0, false),
            not_broadcast("(2,2)", 0)
        );
        assert_eq!(message(&[-3], &[1], 0, false), NEGATIVE);
    }

    #[test]
    fn values_must_fill_the_shape() {
        let e = index_pairs(&[1, 2, 3], &[2, 2], 2, false).unwrap_err();
        assert!(matches!(
            e,
            FrontendError::PadsLength {
                expected: 4,
                got: 3,
                ..
            }
        ));
        assert!(e.to_string().contains("shape (2,2)"), "{e}");
        let e = index_pairs(&[], &[usize::MAX, 2], 2, false).unwrap_err();
        assert!(matches!(e, FrontendError::PadsLength { .. }));
    }

    #[test]
    fn shapes_as_numpy_writes_them() {
        assert_eq!(numpy_shape(&[]), "()");
        assert_eq!(numpy_shape(&[3]), "(3,)");
        assert_eq!(numpy_shape(&[3, 2]), "(3,2)");
        assert_eq!(numpy_shape(&[0, 1, 2]), "(0,1,2)");
    }
}
