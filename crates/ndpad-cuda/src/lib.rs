//! # ndpad-cuda: the CUDA executor of ndpad plans
//!
//! The GPU runs the same [`ndpad::Plan`] as the CPU kernel, with no semantics of its
//! own: on the host, each axis's output-to-input map (the core's
//! [`ndpad::AxisMap::src`]) becomes an affine body (where the output reads the input
//! in order) and an index table for the rest ([`GatherPlan`]); on the device, one
//! generic gather kernel, compiled at run time by NVRTC per kernel element width,
//! computes each output element's source from them and copies it (or writes the
//! constant). Divisions by multiplication, 64-bit indices where needed and a
//! grid-stride loop: any element count and shape. Each thread writes 16 bytes at a
//! time where the output allows (the row's outer offset found once per 16 bytes);
//! [`Launch`] forces a width or a store size.
//!
//! Every fixed-width type moves as bytes (1, 2, 4, 8 or 16 per element; several at
//! once where the unit and the buffers' alignment allow, up to 16 bytes); the packed
//! 4- and 2-bit types are widened to a byte per element on the device, gathered and
//! packed again, bit for bit as the CPU kernel writes them; strings are refused with
//! [`CudaError::UnsupportedType`].
//!
//! The crate builds and its host parts are tested without CUDA: the driver and NVRTC
//! are loaded at run time, and [`CudaPadder::new`] returns [`CudaError::NoDriver`]
//! where there is none. [`emulate`] runs the gather on the host with the same maps and
//! the same index arithmetic, so the maps are checked against the CPU kernel anywhere.
//!
//! ```
//! use ndpad::{AxisPad, DType, Mode, PadSpec, Plan};
//! use ndpad_cuda::{emulate, GatherPlan};
//! let spec = PadSpec::new(vec![AxisPad::new(2, 1)], Mode::Reflect);
//! let plan = Plan::new(DType::Uint8, &[4], &spec).unwrap();
//! let gp = GatherPlan::new(&plan).unwrap();
//! // Output coordinates 2..6 read the input in order; the table holds the others'.
//! assert_eq!(gp.maps(), &[2, 1, 2]);
//! assert_eq!(emulate(&gp, 1, &[10, 11, 12, 13]).unwrap(), [12, 11, 10, 11, 12, 13, 12]);
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[allow(unsafe_code)]
mod device;
mod error;
mod gather;
pub mod kernel;

/// The CUDA bindings this crate is built on (for device buffers of the same version).
pub use cudarc;
pub use device::{probe, CudaPadder, DeviceMaps};
pub use error::CudaError;
pub use gather::{
    emulate, emulate_gather, GatherArgs, GatherPlan, Launch, AXIS_WORDS, MAX_AXES, MAX_MAP_ENTRIES,
    PARAM_WORDS, WIDTHS,
};
