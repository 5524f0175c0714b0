//! The coordinates of a box in C order (the last axis fastest), and the contiguous
//! runs of a box inside a larger C-order array: the one index walk of the workspace
//! (the executor's own walker, `exec/walker.rs`, steps through a plan's segments
//! instead).

use std::ops::Range;

use crate::error::PadError;

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
        if !next_index(&mut index, extents) {
            return Ok(());
        }
    }
}

/// Steps `index` to the next index of a box of `extents` in C order: the last axis
/// that is not at its end steps on, the axes after it start again. `false` (the
/// index back at all zeros) after the last one.
///
/// ```
/// let mut i = [0, 1];
/// assert!(ndpad::index::next_index(&mut i, &[2, 2]));
/// assert_eq!(i, [1, 0]);
/// assert!(!ndpad::index::next_index(&mut [1, 1], &[2, 2]));
/// ```
pub fn next_index(index: &mut [usize], extents: &[usize]) -> bool {
    for a in (0..index.len()).rev() {
        index[a] += 1;
        if index[a] < extents[a] {
            return true;
        }
        index[a] = 0;
    }
    false
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
    let at: Vec<usize> = region.iter().map(|r| r.start).collect();
    let extents: Vec<usize> = region.iter().map(Range::len).collect();
    // The box laid out compactly is the second array: its runs are the first's.
    let mut k = 0;
    for_each_common_run(
        shape,
        &at,
        &extents,
        &vec![0; at.len()],
        &extents,
        width,
        |a, _, len| {
            f(k, a, len)?;
            k += 1;
            Ok(())
        },
    )
}

/// Calls `f(a, b, len)` for each contiguous run, in C order, of a box of `extents`
/// that lies at `a_at` in a C-order array of `a_shape` and at `b_at` in one of
/// `b_shape` (elements of `width` units): `a` and `b` are where the run starts in each
/// array, `len` its length, the same for every run (the trailing axes the box covers
/// whole in both arrays are one run). The one walk under [`try_for_each_run`] and
/// [`copy_box`]; the callers check that the box lies inside both arrays.
fn for_each_common_run<E>(
    a_shape: &[usize],
    a_at: &[usize],
    b_shape: &[usize],
    b_at: &[usize],
    extents: &[usize],
    width: usize,
    mut f: impl FnMut(usize, usize, usize) -> Result<(), E>,
) -> Result<(), E> {
    if extents.contains(&0) {
        return Ok(());
    }
    // The innermost axis the box does not cover whole in both arrays: runs are
    // contiguous in both from it on.
    let split = (0..extents.len())
        .rev()
        .find(|&a| extents[a] != a_shape[a] || extents[a] != b_shape[a])
        .unwrap_or(0);
    let a_strides = c_strides(a_shape, width).unwrap_or_else(|| vec![0; a_shape.len()]);
    let b_strides = c_strides(b_shape, width).unwrap_or_else(|| vec![0; b_shape.len()]);
    let len = extents[split..].iter().product::<usize>() * width;
    // Where a run at `index` (of the axes before `split`) starts in one array.
    let offset = |at: &[usize], strides: &[usize], index: &[usize]| -> usize {
        index
            .iter()
            .zip(at)
            .zip(strides)
            .map(|((i, a), s)| (a + i) * s)
            .sum::<usize>()
            + at.get(split).map_or(0, |a| a * strides[split])
    };
    try_for_each_index(&extents[..split], |index| {
        f(
            offset(a_at, &a_strides, index),
            offset(b_at, &b_strides, index),
            len,
        )
    })
}

/// The corner and extents of the box `bx`, checked as [`check_box`] checks them (and
/// refused where a range runs backwards).
fn checked_box(
    shape: &[usize],
    bx: &[Range<usize>],
    unit: usize,
    buf_len: usize,
) -> Result<(Vec<usize>, Vec<usize>), PadError> {
    if let Some((axis, r)) = bx.iter().enumerate().find(|(_, r)| r.start > r.end) {
        return Err(PadError::BoxOutside {
            axis,
            start: r.start,
            end: r.end,
            extent: shape.get(axis).copied().unwrap_or(0),
        });
    }
    let at: Vec<usize> = bx.iter().map(|r| r.start).collect();
    let extents: Vec<usize> = bx.iter().map(Range::len).collect();
    check_box(shape, &at, &extents, unit, buf_len)?;
    Ok((at, extents))
}

/// Checks that a box of `extents` at `at` lies inside `shape`, and that `buf_len` is
/// the length of a C-order array of `shape` with elements of `unit` items.
fn check_box(
    shape: &[usize],
    at: &[usize],
    extents: &[usize],
    unit: usize,
    buf_len: usize,
) -> Result<(), PadError> {
    for n in [at.len(), extents.len()] {
        if n != shape.len() {
            return Err(PadError::BoxRank {
                box_axes: n,
                rank: shape.len(),
            });
        }
    }
    for (axis, ((&start, &n), &extent)) in at.iter().zip(extents).zip(shape).enumerate() {
        let end = start.checked_add(n);
        if end.is_none_or(|end| end > extent) {
            return Err(PadError::BoxOutside {
                axis,
                start,
                end: end.unwrap_or(usize::MAX),
                extent,
            });
        }
    }
    let expected = crate::tensor::numel(shape)
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| PadError::ShapeOverflow {
            shape: shape.to_vec(),
        })?;
    if buf_len != expected {
        return Err(PadError::BufferLength {
            shape: shape.to_vec(),
            unit,
            expected,
            got: buf_len,
        });
    }
    Ok(())
}

/// Copies the box `src_box` (a range of coordinates per axis) of the C-order array
/// `src` of `src_shape` into the C-order array `dst` of `dst_shape`, its first corner
/// at `dst_at`; each element is `unit` items (its bytes, or one `String`). Copying a
/// whole compact box places it (`src_box` all of `src_shape`); copying into a compact
/// buffer of the box's shape takes it out ([`extract_box`] allocates that buffer).
///
/// ```
/// // The 2 x 2 box at (1, 1) of a 3 x 4 array, into columns 2..4 of a 2 x 4 one.
/// let src: Vec<u8> = (0..12).collect();
/// let mut dst = vec![0u8; 8];
/// ndpad::index::copy_box(&mut dst, &[2, 4], &[0, 2], &src, &[3, 4], &[1..3, 1..3], 1).unwrap();
/// assert_eq!(dst, [0, 0, 5, 6, 0, 0, 9, 10]);
/// ```
///
/// # Errors
/// [`PadError::BoxRank`] when the box, `dst_at` and the shapes differ in rank;
/// [`PadError::BoxOutside`] for a box not inside either array;
/// [`PadError::BufferLength`] for a buffer not as long as its shape says;
/// [`PadError::ShapeOverflow`] for a shape whose size overflows. Nothing is copied
/// then.
pub fn copy_box<T: Clone>(
    dst: &mut [T],
    dst_shape: &[usize],
    dst_at: &[usize],
    src: &[T],
    src_shape: &[usize],
    src_box: &[Range<usize>],
    unit: usize,
) -> Result<(), PadError> {
    let copy = <[T]>::clone_from_slice;
    copy_box_by(dst, dst_shape, dst_at, src, src_shape, src_box, unit, copy)
}

/// [`copy_box`] for plain-data elements, each run copied as
/// [`copy_through_cache`](crate::copy_through_cache) copies (never at `memcpy`'s
/// speed where a run lands a few bytes past its source within a 4 KiB page).
///
/// # Errors
/// As [`copy_box`].
pub fn copy_pod_box<T: bytemuck::Pod>(
    dst: &mut [T],
    dst_shape: &[usize],
    dst_at: &[usize],
    src: &[T],
    src_shape: &[usize],
    src_box: &[Range<usize>],
    unit: usize,
) -> Result<(), PadError> {
    let copy = crate::copy_through_cache;
    copy_box_by(dst, dst_shape, dst_at, src, src_shape, src_box, unit, copy)
}

/// [`copy_box`], each run copied by `copy(destination, source)`.
#[allow(clippy::too_many_arguments)]
fn copy_box_by<T>(
    dst: &mut [T],
    dst_shape: &[usize],
    dst_at: &[usize],
    src: &[T],
    src_shape: &[usize],
    src_box: &[Range<usize>],
    unit: usize,
    copy: impl Fn(&mut [T], &[T]),
) -> Result<(), PadError> {
    let (src_at, extents) = checked_box(src_shape, src_box, unit, src.len())?;
    check_box(dst_shape, dst_at, &extents, unit, dst.len())?;
    for_each_common_run(
        dst_shape,
        dst_at,
        src_shape,
        &src_at,
        &extents,
        unit,
        |d, s, len| {
            copy(&mut dst[d..d + len], &src[s..s + len]);
            Ok(())
        },
    )
}

/// The box `bx` of the C-order array `src` of `shape` (elements of `unit` items), as
/// a C-order array of its own.
///
/// ```
/// let src: Vec<u8> = (0..12).collect();
/// assert_eq!(ndpad::index::extract_box(&src, &[3, 4], &[1..3, 1..3], 1).unwrap(), [5, 6, 9, 10]);
/// ```
///
/// # Errors
/// As [`copy_box`]; [`PadError::OutOfMemory`] where the box cannot be allocated.
pub fn extract_box<T: Clone>(
    src: &[T],
    shape: &[usize],
    bx: &[Range<usize>],
    unit: usize,
) -> Result<Vec<T>, PadError> {
    let (_, extents) = checked_box(shape, bx, unit, src.len())?;
    // No larger than `src`, so its size fits.
    let n = extents.iter().product::<usize>() * unit;
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| PadError::OutOfMemory {
            shape: extents,
            bytes: n.saturating_mul(std::mem::size_of::<T>()),
        })?;
    // Taken run by run: no placeholder elements to write over (for strings, each
    // would be allocated for nothing).
    try_for_each_run(shape, bx, unit, |_, off, len| {
        out.extend_from_slice(&src[off..off + len]);
        Ok(())
    })?;
    Ok(out)
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

    #[test]
    fn extract_box_copies_a_box() {
        let src: Vec<u8> = (0..12).collect();
        let take = |shape: &[usize], bx: &[Range<usize>], w| extract_box(&src[..], shape, bx, w);
        assert_eq!(take(&[3, 4], &[1..3, 1..3], 1).unwrap(), [5, 6, 9, 10]);
        assert_eq!(take(&[2, 3], &[0..2, 2..3], 2).unwrap(), [4, 5, 10, 11]);
        assert_eq!(extract_box(&src[..4], &[], &[], 4).unwrap(), [0, 1, 2, 3]);
        assert!(take(&[3, 4], &[1..3, 0..0], 1).unwrap().is_empty());
        // Strings, one item each.
        let s: Vec<String> = (0..6).map(|i| i.to_string()).collect();
        assert_eq!(
            extract_box(&s, &[2, 3], &[1..2, 0..2], 1).unwrap(),
            ["3", "4"]
        );
    }

    #[test]
    fn copy_box_moves_a_box_between_buffers() {
        let src: Vec<u8> = (0..12).collect();
        let mut dst = vec![0u8; 8];
        // src [3, 4] box [1..3, 1..3] -> dst [2, 4] at [0, 2].
        copy_box(&mut dst, &[2, 4], &[0, 2], &src, &[3, 4], &[1..3, 1..3], 1).unwrap();
        assert_eq!(dst, vec![0, 0, 5, 6, 0, 0, 9, 10]);
        // A compact box placed (what ndpad-zarr calls embedding); rows whole in
        // both arrays are one run.
        fn place<T: Clone>(dst: &mut [T], full: &[usize], at: &[usize], src: &[T]) {
            let whole: Vec<Range<usize>> = vec![0..2, 0..2];
            copy_box(dst, full, at, src, &[2, 2], &whole, 1).unwrap();
        }
        let mut dst = vec![0u8; 12];
        place(&mut dst, &[3, 4], &[1, 1], &[1, 2, 3, 4]);
        assert_eq!(dst, vec![0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0]);
        let mut dst = vec![0u16; 6];
        place(&mut dst, &[3, 2], &[1, 0], &[7, 8, 9, 10]);
        assert_eq!(dst, [0, 0, 7, 8, 9, 10]);
        // Rank 0: one element.
        let mut one = [0u8; 2];
        copy_box(&mut one, &[], &[], &[5, 6], &[], &[], 2).unwrap();
        assert_eq!(one, [5, 6]);
    }

    /// `copy_pod_box` places what `copy_box` places, runs of 8 KiB a few bytes past
    /// their source within a page included (the distance `copy_through_cache` moves
    /// by its own loop), and refuses what it refuses.
    #[test]
    fn copy_pod_box_copies_as_copy_box() {
        let (rows, row) = (3, 8192);
        let src: Vec<u8> = (0..rows * row).map(|i| (i * 7 % 251) as u8).collect();
        let mut expected = vec![0u8; rows * (row + 64)];
        let (full, at, bx) = ([rows, row + 64], [0, 32], [0..rows, 0..row]);
        copy_box(&mut expected, &full, &at, &src, &[rows, row], &bx, 1).unwrap();
        let mut space = vec![0u8; expected.len() + 2 * crate::arch::PAGE];
        // Where the destination's run would start in `space` (at column 32).
        let (run, page) = (space.as_ptr() as usize + 32, crate::arch::PAGE);
        for past in [0, 1, 8, 31, 63, 64, 2048] {
            // The destination's run `past` bytes after the source's in its page.
            let skip = (src.as_ptr() as usize + past + page - run % page) % page;
            let dst = &mut space[skip..skip + expected.len()];
            dst.fill(0);
            copy_pod_box(dst, &full, &at, &src, &[rows, row], &bx, 1).unwrap();
            assert!(dst == &expected[..], "{past} bytes past");
        }
        let err = copy_pod_box(
            &mut [0u8; 4],
            &[2, 2],
            &[1, 1],
            &src[..4],
            &[2, 2],
            &[0..2, 0..2],
            1,
        );
        assert!(matches!(err, Err(PadError::BoxOutside { axis: 0, .. })));
    }

    /// What does not fit is refused, nothing copied.
    #[test]
    fn copy_box_refuses_boxes_outside_and_wrong_buffers() {
        let src = [1u8; 12];
        let mut dst = [0u8; 8];
        let mut copy = |dst_at: &[usize], src_shape: &[usize], bx: &[Range<usize>], n: usize| {
            copy_box(&mut dst, &[2, 4], dst_at, &src[..n], src_shape, bx, 1).unwrap_err()
        };
        assert!(matches!(
            copy(&[0, 3], &[3, 4], &[0..2, 0..2], 12),
            PadError::BoxOutside {
                axis: 1,
                start: 3,
                end: 5,
                extent: 4
            }
        ));
        assert!(matches!(
            copy(&[0, 0], &[3, 4], &[2..4, 0..2], 12),
            PadError::BoxOutside { axis: 0, .. }
        ));
        #[allow(clippy::reversed_empty_ranges)] // a backward range is refused
        let backward = copy(&[0, 0], &[3, 4], &[2..1, 0..2], 12);
        assert!(matches!(backward, PadError::BoxOutside { .. }));
        assert!(matches!(
            copy(&[0], &[3, 4], &[0..1, 0..1], 12),
            PadError::BoxRank {
                box_axes: 1,
                rank: 2
            }
        ));
        assert!(matches!(
            copy(&[0, 0], &[3, 4], &[0..1, 0..1], 11),
            PadError::BufferLength {
                expected: 12,
                got: 11,
                ..
            }
        ));
        assert!(matches!(
            copy(&[0, 0], &[usize::MAX, 2], &[0..1, 0..1], 12),
            PadError::ShapeOverflow { .. }
        ));
        assert_eq!(dst, [0; 8]);
        assert!(extract_box(&src, &[3, 4], &[0..1, 0..usize::MAX], 1).is_err());
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
