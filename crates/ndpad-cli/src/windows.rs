//! Outputs written window by window: a `.npy` input read by boxes, never whole, and
//! the output written in order, one window at a time, so that files larger than
//! memory pad in memory bounded by a few windows. The boxes are the core's
//! ([`ndpad::file_order_boxes`]), each planned with [`Plan::window`].

use std::io::ErrorKind;
use std::path::Path;

use ndpad::{file_order_boxes, PadOptions, PadSpec, Plan, Source, TensorView, TensorViewMut};
use ndpad_formats::npy::{npy_header, NpyBoxes};
use ndpad_formats::FormatError;

use crate::failure::{CmdResult, Failure};
use crate::progress::Progress;
use crate::tensor_io::{pad_error_text, stage_with};

/// What an allocation failure suggests.
const SMALLER: &str = "(a smaller --window-bytes needs less memory)";

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
    // The boxes in file order within the budget, each reading no more than itself.
    let boxes = file_order_boxes(&in_shape, spec, width, budget)
        .map_err(|e| rejected(&pad_error_text(&e)))?;
    let progress = Progress::spinner("padding by windows");
    let staged = stage_with(dest, |w| {
        w.write_all(&header).map_err(|e| rejected(&e))?;
        // One output buffer for every window (grown to the largest): windows of the
        // same size reuse its pages instead of faulting in new ones.
        let mut buf: Vec<u8> = Vec::new();
        for b in boxes {
            crate::interrupt::check()?;
            let window = Plan::window(dtype, &in_shape, spec, &b, Source::Region)
                .map_err(|e| rejected(&pad_error_text(&e)))?;
            // The input's errors name the input file.
            let region = input.read_box(&window.input).map_err(|e| match &e {
                FormatError::Io { source, .. } if source.kind() == ErrorKind::OutOfMemory => {
                    Failure::rejected(format!("{e} {SMALLER}"))
                }
                _ => Failure::rejected(e.to_string()),
            })?;
            let view = TensorView::from_bytes(dtype, window.plan.input_shape(), &region)
                .map_err(|e| rejected(&e))?;
            let n = window.plan.output_bytes();
            buf.try_reserve(n.saturating_sub(buf.len())).map_err(|_| {
                rejected(&format!("cannot allocate a window of {n} bytes {SMALLER}"))
            })?;
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
