//! Outputs written window by window: a `.npy` input read by boxes, never whole, and
//! the output written in order, one window at a time, so that files larger than
//! memory pad in memory bounded by a few windows.

use std::ops::Range;
use std::path::Path;

use ndpad::{axis_map, segments, PadOptions, PadSpec, Plan, Source, TensorView, TensorViewMut};
use ndpad_formats::npy::{npy_header, NpyBoxes};

use crate::failure::{CmdResult, Failure};
use crate::progress::Progress;
use crate::tensor_io::{pad_error_text, stage_with};

/// The boxes an output of `out_shape` (elements of `width` bytes) is written in, in
/// file order: whole trailing axes, the outermost of them that fits in `budget`
/// bytes split into runs no longer than fits, and no run crossing a segment of that
/// axis (so that each box reads an input region no larger than itself).
pub fn boxes(
    in_shape: &[usize],
    spec: &PadSpec,
    out_shape: &[usize],
    width: usize,
    budget: usize,
) -> Result<Vec<Vec<Range<usize>>>, ndpad::PadError> {
    if out_shape.contains(&0) || out_shape.is_empty() {
        return Ok(if out_shape.is_empty() {
            vec![Vec::new()]
        } else {
            Vec::new()
        });
    }
    // inner[k]: bytes of one index of axis k (the axes after it whole).
    let mut inner = vec![width; out_shape.len()];
    for k in (0..out_shape.len() - 1).rev() {
        inner[k] = inner[k + 1].saturating_mul(out_shape[k + 1]);
    }
    let k = inner
        .iter()
        .position(|&b| b <= budget)
        .unwrap_or(out_shape.len() - 1);
    let per = (budget / inner[k]).max(1);
    let map = axis_map(k, in_shape[k], &spec.axes[k], spec)?;
    // A short axis repeated very many times has too many segments to list: its boxes
    // read the whole (short) axis anyway, and their plans are tiled.
    let lens: Vec<usize> = match segments(k, &map) {
        Err(ndpad::PadError::TooManyRuns { .. }) => vec![map.n],
        segs => segs?.iter().map(|s| s.len()).collect(),
    };
    let mut runs = Vec::new();
    let mut at = 0;
    for len in lens {
        let end = at + len;
        while at < end {
            let stop = (at + per).min(end);
            runs.push(at..stop);
            at = stop;
        }
    }
    let mut out = Vec::new();
    ndpad::index::for_each_index(&out_shape[..k], |index| {
        for run in &runs {
            let mut b: Vec<Range<usize>> = index.iter().map(|&i| i..i + 1).collect();
            b.push(run.clone());
            b.extend(out_shape[k + 1..].iter().map(|&n| 0..n));
            out.push(b);
        }
    });
    Ok(out)
}

/// Pads the `.npy` file `input` into the `.npy` file `dest`, window by window.
pub fn pad_npy(
    input: &NpyBoxes,
    spec: &PadSpec,
    out_shape: &[usize],
    dest: &Path,
    budget: usize,
    opts: &PadOptions,
) -> CmdResult {
    let dtype = input.dtype();
    let in_shape = input.header().shape.clone();
    let rejected =
        |e: &dyn std::fmt::Display| Failure::rejected(format!("{}: {e}", dest.display()));
    let width = dtype.byte_len(1).unwrap_or(1);
    let header = npy_header(dtype, out_shape).map_err(|e| rejected(&e))?;
    let boxes = boxes(&in_shape, spec, out_shape, width, budget)
        .map_err(|e| rejected(&pad_error_text(&e)))?;
    let progress = Progress::spinner("padding by windows");
    let staged = stage_with(dest, |w| {
        w.write_all(&header).map_err(|e| rejected(&e))?;
        // One output buffer for every window (grown to the largest): windows of the
        // same size reuse its pages instead of faulting in new ones.
        let mut buf: Vec<u8> = Vec::new();
        for b in &boxes {
            crate::interrupt::check()?;
            let window = Plan::window(dtype, &in_shape, spec, b, Source::Region)
                .map_err(|e| rejected(&pad_error_text(&e)))?;
            // The input's errors name the input file.
            let region = input
                .read_box(&window.input)
                .map_err(|e| Failure::rejected(e.to_string()))?;
            let view = TensorView::from_bytes(dtype, window.plan.input_shape(), &region)
                .map_err(|e| rejected(&e))?;
            let n = window.plan.output_bytes();
            buf.try_reserve(n.saturating_sub(buf.len()))
                .map_err(|_| rejected(&format!("cannot allocate a window of {n} bytes")))?;
            buf.resize(n, 0);
            let mut out = TensorViewMut::from_bytes(dtype, window.plan.output_shape(), &mut buf)
                .map_err(|e| rejected(&e))?;
            window
                .plan
                .execute(view, &mut out, opts)
                .map_err(|e| rejected(&pad_error_text(&e)))?;
            w.write_all(&buf).map_err(|e| rejected(&e))?;
        }
        Ok(())
    })?;
    staged.commit()?;
    progress.finish();
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndpad::{AxisPad, Mode};

    #[test]
    fn boxes_cover_the_output_in_file_order_within_segments() {
        let spec = PadSpec::new(vec![AxisPad::new(2, 3), AxisPad::new(1, 1)], Mode::Wrap)
            .with_oversize(ndpad::Oversize::Repeat);
        // 7 x 6 of 4-byte elements: a row is 24 bytes; 50 bytes hold two rows.
        let b = boxes(&[2, 4], &spec, &[7, 6], 4, 50).unwrap();
        let rows: Vec<Range<usize>> = b.iter().map(|x| x[0].clone()).collect();
        // Segments of axis 0: [0, 2) reads rows 0-1 (wrap), [2, 4) the data, [4, 7)
        // rows 0, 1, 0: runs of at most two rows, none crossing a segment.
        assert_eq!(rows, vec![0..2, 2..4, 4..6, 6..7]);
        assert!(b.iter().all(|x| x[1] == (0..6)));
        // A budget below one row splits the rows instead: runs of at most two
        // elements within axis 1's segments [0, 1) [1, 5) [5, 6), row after row.
        let b = boxes(&[2, 4], &spec, &[7, 6], 4, 10).unwrap();
        assert_eq!(b.len(), 7 * 4);
        assert_eq!(b[0], vec![0..1, 0..1]);
        assert_eq!(b[1], vec![0..1, 1..3]);
        assert_eq!(b[4], vec![1..2, 0..1]);
    }
}
