//! The faces of a plan ([`crate::Face`]: the sides that take a constant of their own)
//! written over the output after the kernel has written the rest. Faces are disjoint
//! and only cover pad, so each is written once, whatever the kernel put there.

use crate::dtype::Layout;
use crate::packed;
use crate::plan::Plan;
use crate::tensor::DataMut;

/// Writes each face of `plan` into `out` (the plan's output).
pub(crate) fn fill(plan: &Plan, out: &mut DataMut<'_>) {
    let shape = &plan.out_shape;
    for face in &plan.faces {
        match (&mut *out, plan.dtype.layout()) {
            (DataMut::Bytes(o), Layout::Bytes(w)) => {
                let value = face.value.to_le_bytes();
                let _ = crate::index::try_for_each_run(shape, &face.region, w, |_, at, len| {
                    for e in o[at..at + len].chunks_exact_mut(w) {
                        e.copy_from_slice(&value);
                    }
                    Ok::<(), std::convert::Infallible>(())
                });
            }
            (DataMut::Bytes(o), Layout::Packed(bits)) => {
                let v = face.value.bits().unwrap_or(0) as u8;
                let _ = crate::index::try_for_each_run(shape, &face.region, 1, |_, at, len| {
                    (at..at + len).for_each(|i| packed::set(o, bits, i, v));
                    Ok::<(), std::convert::Infallible>(())
                });
            }
            (DataMut::Strings(o), _) => {
                // The face's constant joins the text once; its elements are its span.
                let span = o.append_text(face.value.as_str().unwrap_or_default());
                let _ = crate::index::try_for_each_run(shape, &face.region, 1, |_, at, len| {
                    o.spans[at..at + len].fill(span);
                    Ok::<(), std::convert::Infallible>(())
                });
            }
            // The kernel refused mixed storage before the faces are reached.
            (DataMut::Bytes(_), Layout::Strings) => {}
        }
    }
}
