//! Pads of arrays in CUDA device memory (torch / CuPy / JAX tensors, by address): the
//! GPU executor of `ndpad-cuda` on a spec's plan. One padder per device, opened on
//! first use; each spec uploads its index maps once per device.

use std::sync::{Arc, Mutex, OnceLock};

use ndpad::Plan;
use ndpad_cuda::{CudaError, CudaPadder, DeviceMaps, GatherPlan};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

use crate::pad_error;

/// Something per CUDA device, by ordinal.
type PerDevice<T> = Mutex<Vec<(usize, Arc<T>)>>;

/// The padder of `device`, opened on first use.
fn padder(device: usize) -> Result<Arc<CudaPadder>, CudaError> {
    static OPEN: OnceLock<PerDevice<CudaPadder>> = OnceLock::new();
    let mut open = OPEN
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some((_, p)) = open.iter().find(|(d, _)| *d == device) {
        return Ok(Arc::clone(p));
    }
    let p = Arc::new(CudaPadder::new(device)?);
    open.push((device, Arc::clone(&p)));
    Ok(p)
}

/// A spec's index maps on each device it ran on.
#[derive(Default)]
pub(crate) struct Maps(PerDevice<DeviceMaps>);

impl Maps {
    fn on(
        &self,
        device: usize,
        padder: &CudaPadder,
        plan: &Plan,
    ) -> Result<Arc<DeviceMaps>, CudaError> {
        let mut maps = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, m)) = maps.iter().find(|(d, _)| *d == device) {
            return Ok(Arc::clone(m));
        }
        let m = Arc::new(padder.upload(&GatherPlan::new(plan)?)?);
        maps.push((device, Arc::clone(&m)));
        Ok(m)
    }
}

/// A device error as Python sees it: a PadError (a ValueError) for what the pad
/// asks that the GPU path does not take, a RuntimeError for the machine's (no
/// driver, no device, a failed driver call).
pub(crate) fn device_error(e: CudaError) -> PyErr {
    match e {
        CudaError::UnsupportedType { .. }
        | CudaError::BadWidth { .. }
        | CudaError::BufferSize { .. }
        | CudaError::Pad(_) => pad_error(e),
        // A valid pad the GPU does not take, as the modes it does not compute.
        CudaError::TooManyAxes { .. } => PyTypeError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(format!("ndpad on the GPU: {e}")),
    }
}

/// Pads the device array at address `src` (of `src_bytes` bytes) into the one at
/// `dst` (`dst_bytes`) on CUDA device `device` as `plan` says: queued on `stream`
/// (a CUstream of the device's primary context, the caller's current one) without
/// waiting, or with `None` on ndpad's own stream, waited for.
pub(crate) fn pad(
    py: Python<'_>,
    plan: &Plan,
    maps: &Maps,
    device: usize,
    (src, src_bytes): (u64, usize),
    (dst, dst_bytes): (u64, usize),
    stream: Option<u64>,
) -> PyResult<()> {
    py.detach(|| {
        let padder = padder(device)?;
        let maps = maps.on(device, &padder, plan)?;
        crate::raw::pad_on_device(&padder, &maps, (src, src_bytes), (dst, dst_bytes), stream)
    })
    .map_err(device_error)
}
