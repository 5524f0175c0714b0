//! The one error type of the CUDA executor.

use ndpad::{DType, PadError};

/// Why a pad could not run on the GPU. Every message names the value and the limit
/// involved; nothing in this crate panics on any input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CudaError {
    /// The CUDA driver library could not be loaded (no NVIDIA driver on this machine).
    #[error("no CUDA driver: none of {tried} could be loaded (no NVIDIA GPU driver on this machine, or it is not on the library path)")]
    NoDriver {
        /// The library names tried.
        tried: String,
    },
    /// NVRTC, the run-time CUDA compiler, could not be loaded.
    #[error("no NVRTC: none of {tried} could be loaded (put a folder holding libnvrtc.so, or a link of that name to libnvrtc.so.12 or .13, on LD_LIBRARY_PATH; bench/device/nvrtc.sh does)")]
    NoNvrtc {
        /// The library names tried.
        tried: String,
    },
    /// The driver has no device of the ordinal asked for.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The device asked for.
        ordinal: usize,
        /// Devices the driver reports.
        count: i32,
    },
    /// The element type cannot be padded on the GPU.
    #[error("{dtype} tensors cannot be padded on the GPU: {reason}")]
    UnsupportedType {
        /// The element type.
        dtype: DType,
        /// Why.
        reason: &'static str,
    },
    /// The plan gives some sides constants of their own ([`ndpad::PadSpec::sides`]),
    /// which the GPU kernel does not write.
    #[error("constants per side ({faces} faces) are not padded on the GPU: pad on the host")]
    Sides {
        /// The plan's faces.
        faces: usize,
    },
    /// A call into the CUDA driver failed.
    #[error("CUDA driver call failed while {what}: {message}")]
    Driver {
        /// What was being done.
        what: &'static str,
        /// The driver's error.
        message: String,
    },
    /// NVRTC could not compile a kernel.
    #[error("NVRTC could not compile kernel {kernel} for {arch}: {log}")]
    Compile {
        /// The kernel's name.
        kernel: String,
        /// The target architecture.
        arch: String,
        /// NVRTC's error and log.
        log: String,
    },
    /// cudarc panicked (a missing symbol in an old driver, for one); caught and reported.
    #[error("the CUDA bindings panicked while {what}: {message}")]
    Panicked {
        /// What was being done.
        what: &'static str,
        /// The panic's message.
        message: String,
    },
    /// The per-axis index maps would be too large.
    #[error("the index maps of output shape {shape:?} need {entries} entries, over the limit of {limit}")]
    MapsTooLarge {
        /// The output shape.
        shape: Vec<usize>,
        /// Entries needed (the gathered axes' output coordinates outside their bodies).
        entries: u128,
        /// The most allowed.
        limit: u64,
    },
    /// Host memory for the index maps or a staging buffer could not be had.
    #[error("cannot allocate {bytes} bytes of host memory for {what}")]
    OutOfMemory {
        /// What the memory was for.
        what: &'static str,
        /// Bytes asked for.
        bytes: u128,
    },
    /// A buffer handed in is not of the size the plan needs.
    #[error("the {which} buffer holds {got} bytes but the plan needs {expected}")]
    BufferSize {
        /// `input` or `output`.
        which: &'static str,
        /// Bytes it holds.
        got: usize,
        /// Bytes the plan needs.
        expected: usize,
    },
    /// A kernel element width that is not one of 1, 2, 4, 8, 16 bytes, or not a
    /// multiple of the element size.
    #[error("a kernel element of {width} bytes cannot carry {elem}-byte elements (widths are 1, 2, 4, 8 or 16 and multiples of the element)")]
    BadWidth {
        /// The width asked for.
        width: usize,
        /// The element size.
        elem: usize,
    },
    /// A buffer address that is not a multiple of the element's size, or an output
    /// address 16-byte stores (asked for) do not fit.
    #[error("the kernel needs a buffer address that is a multiple of {align}; it is {address:#x}")]
    Unaligned {
        /// The buffer's device address.
        address: u64,
        /// The alignment needed.
        align: u64,
    },
    /// More gathered axes than the kernel takes, once runs of axes the pad leaves
    /// alone are fused.
    #[error("the pad changes axes so that {axes} axes are gathered, over the GPU kernel's limit of {limit}: pad on the host")]
    TooManyAxes {
        /// Gathered axes.
        axes: usize,
        /// The most the kernel takes.
        limit: usize,
    },
    /// An error of the core (planning the pad).
    #[error(transparent)]
    Pad(#[from] PadError),
}
