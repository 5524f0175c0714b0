//! The coordinates of a box in C order (the last axis fastest), and the contiguous
//! runs of a box inside a larger C-order array: the one index walk of the workspace
//! (the executor's own walker, `exec/walker.rs`, steps through a plan's segments
//! instead).

use std::ops::Range;

/// Calls `f` with every index of a box of `extents`, in C order: once, with the empty
/// index, for no axes; never for an empty box.
///
/// ```
/// let mut seen = Vec::new();
/// ndpad::index::for_each_index(&[2, 2], |i| seen.push(i.to_vec()));
/// assert_eq!(seen, [[0, 0], [0, 1], [1, 0], [1, 1]]);
/// ```
pub fn for_each_index(extents: &[usize], mut f: impl FnMut(&[usize])) {
    let _ = try_for_each_index(extents, |i| {
        f(i);
        Ok::<(), std::convert::Infallible>(())
    });
}

/// [`for_each_index`] with a call that may fail: the walk stops at the first error,
/// which it returns.
///
/// # Errors
/// The first error of `f`.
pub fn try_for_each_index<E>(
    extents: &[usize],
    mut f: impl FnMut(&[usize]) -> Result<(), E>,
) -> Result<(), E> {
    if extents.contains(&0) {
        return Ok(());
    }
    let mut index = vec![0; extents.len()];
    loop {
        f(&index)?;
        // The next index: the last axis that is not at its end steps on, the axes
        // after it start again.
        let mut a = extents.len();
        loop {
            if a == 0 {
                return Ok(());
            }
            a -= 1;
            index[a] += 1;
            if index[a] < extents[a] {
                break;
            }
            index[a] = 0;
        }
    }
}

/// The C-order strides of `shape` in multiples of `unit` (the distance between
/// neighbours along each axis); `None` when the array's size overflows.
///
/// ```
/// assert_eq!(ndpad::index::c_strides(&[2, 3, 4], 8), Some(vec![96, 32, 8]));
/// ```
pub fn c_strides(shape: &[usize], unit: usize) -> Option<Vec<usize>> {
    let mut strides = vec![0; shape.len()];
    let mut step = unit;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = step;
        step = step.checked_mul(d)?;
    }
    Some(strides)
}

/// Calls `f(k, offset, len)` for each contiguous run `k` of the box `region` (a range
/// of coordinates per axis, inside `shape`) in a C-order array of `shape` whose
/// elements are `width` bytes: `offset` is where the run starts in the array, in
/// bytes, and every run is `len` bytes long (the trailing axes the box covers whole
/// are one run). The runs are in C order, so run `k` is bytes `k * len ..` of the box
/// laid out compactly. Nothing is called for an empty box.
///
/// ```
/// // Rows 1..3, columns 2..4 of a 4x5 array of bytes: two runs of two bytes.
/// let mut runs = Vec::new();
/// ndpad::index::try_for_each_run(&[4, 5], &[1..3, 2..4], 1, |k, at, len| {
///     runs.push((k, at, len));
///     Ok::<(), ()>(())
/// }).unwrap();
/// assert_eq!(runs, [(0, 7, 2), (1, 12, 2)]);
/// ```
///
/// # Errors
/// The first error of `f`.
///
/// # Panics
/// Never for a `region` inside `shape` whose array's size fits in `usize`; the sizes
/// are not checked again here (callers check them where they read them).
pub fn try_for_each_run<E>(
    shape: &[usize],
    region: &[Range<usize>],
    width: usize,
    mut f: impl FnMut(usize, usize, usize) -> Result<(), E>,
) -> Result<(), E> {
    let extents: Vec<usize> = region.iter().map(Range::len).collect();
    if extents.contains(&0) {
        return Ok(());
    }
    // The innermost axis the box does not cover whole: runs are contiguous from it.
    let split = (0..shape.len())
        .rev()
        .find(|&a| extents[a] != shape[a])
        .unwrap_or(0);
    let strides = c_strides(shape, width).unwrap_or_else(|| vec![0; shape.len()]);
    let len = extents[split..].iter().product::<usize>() * width;
    let start = region.get(split).map_or(0, |r| r.start * strides[split]);
    let mut k = 0;
    try_for_each_index(&extents[..split], |index| {
        let offset = index
            .iter()
            .zip(region)
            .zip(&strides)
            .map(|((i, r), s)| (r.start + i) * s)
            .sum::<usize>()
            + start;
        f(k, offset, len)?;
        k += 1;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_every_index_in_c_order() {
        let mut seen = Vec::new();
        for_each_index(&[2, 3], |i| seen.push(i.to_vec()));
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[1], vec![0, 1]);
        assert_eq!(seen[3], vec![1, 0]);
        let mut n = 0;
        for_each_index(&[], |_| n += 1);
        for_each_index(&[3, 0], |_| n += 10);
        assert_eq!(n, 1);
        let mut calls = 0;
        let stopped = try_for_each_index(&[4, 4], |i| {
            calls += 1;
            if i == [1, 1] {
                Err(i.to_vec())
            } else {
                Ok(())
            }
        });
        assert_eq!((stopped, calls), (Err(vec![1, 1]), 6));
    }

    #[test]
    fn strides_and_overflow() {
        assert_eq!(c_strides(&[], 4), Some(vec![]));
        assert_eq!(c_strides(&[5], 4), Some(vec![4]));
        assert_eq!(c_strides(&[usize::MAX, 2, 3], 1), None);
    }

    /// Every run, read from a C-order array, gives the box element for element.
    #[test]
    fn runs_cover_the_box_in_order() {
        let shape = [3usize, 4, 5];
        let array: Vec<u16> = (0..60).collect();
        for region in [
            [0..3, 0..4, 0..5],
            [1..2, 0..4, 0..5],
            [0..3, 1..3, 0..5],
            [1..3, 2..4, 1..4],
            [2..3, 3..4, 4..5],
            [0..3, 0..0, 0..5],
        ] {
            let mut want = Vec::new();
            for_each_index(&region.clone().map(|r| r.len()), |i| {
                let at: usize = (0..3)
                    .map(|a| (region[a].start + i[a]) * [20, 5, 1][a])
                    .sum();
                want.push(array[at]);
            });
            let bytes: &[u8] = bytemuck::cast_slice(&array);
            let mut got = vec![0u8; want.len() * 2];
            try_for_each_run(&shape, &region, 2, |k, at, len| {
                got[k * len..(k + 1) * len].copy_from_slice(&bytes[at..at + len]);
                Ok::<(), ()>(())
            })
            .unwrap();
            let want: &[u8] = bytemuck::cast_slice(&want);
            assert_eq!(&got[..], want, "{region:?}");
        }
    }
}
