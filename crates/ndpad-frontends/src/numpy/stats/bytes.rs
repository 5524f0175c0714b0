//! The functions on the bytes of a buffer of a [`DType`] (what the Python package
//! calls): each casts them to its Rust type and runs the typed function.

use ndpad::{DType, Interrupt};

use super::elem::Elem;
use super::geometry::shape_error;
use super::ramp::{fill_ramp, pad_ramp};
use super::reduce::{fill_stat, pad_stat};
use super::{Outcome, Stat, StatsError};

/// `$go!(T)` for the Rust type `T` of `dtype`, for the types this module computes
/// (`f32`, `f64`, every integer width); others declined with `$why`.
macro_rules! by_type {
    ($dtype:expr, $go:ident, $why:literal) => {
        match $dtype {
            DType::Float32 => $go!(f32),
            DType::Float64 => $go!(f64),
            DType::Int8 => $go!(i8),
            DType::Int16 => $go!(i16),
            DType::Int32 => $go!(i32),
            DType::Int64 => $go!(i64),
            DType::Uint8 => $go!(u8),
            DType::Uint16 => $go!(u16),
            DType::Uint32 => $go!(u32),
            DType::Uint64 => $go!(u64),
            _ => Ok(Outcome::Declined($why)),
        }
    };
}

/// [`fill_stat`] on the bytes of a buffer of `dtype` (native byte order, aligned).
pub fn fill_stat_bytes(
    dtype: DType,
    out: &mut [u8],
    input: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
    interrupt: Option<&Interrupt>,
) -> Result<Outcome, StatsError> {
    macro_rules! go {
        ($t:ty) => {
            match bytemuck::try_cast_slice_mut::<u8, $t>(out) {
                Ok(s) => fill_stat::<$t>(s, input, pads, lengths, stat, interrupt),
                Err(_) => Ok(Outcome::Declined("an unaligned buffer")),
            }
        };
    }
    by_type!(dtype, go, "a type without statistics here")
}

/// [`fill_ramp`] on the bytes of a buffer of `dtype`, computing in `compute`
/// (`Float32` or `Float64`).
pub fn fill_ramp_bytes(
    dtype: DType,
    compute: DType,
    out: &mut [u8],
    input: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
    interrupt: Option<&Interrupt>,
) -> Result<Outcome, StatsError> {
    macro_rules! go {
        ($t:ty) => {
            match (bytemuck::try_cast_slice_mut::<u8, $t>(out), compute) {
                (Err(_), _) => Ok(Outcome::Declined("an unaligned buffer")),
                (Ok(s), DType::Float32) => fill_ramp::<$t, f32>(s, input, pads, ends, interrupt),
                (Ok(s), DType::Float64) => fill_ramp::<$t, f64>(s, input, pads, ends, interrupt),
                _ => Ok(Outcome::Declined("a ramp computed in another type")),
            }
        };
    }
    by_type!(dtype, go, "a type without ramps here")
}

fn cast_pair<'a, T: Elem>(
    input: &'a [u8],
    out: &'a mut [u8],
) -> Result<(&'a [T], &'a mut [T]), StatsError> {
    match (
        bytemuck::try_cast_slice::<u8, T>(input),
        bytemuck::try_cast_slice_mut::<u8, T>(out),
    ) {
        (Ok(i), Ok(o)) => Ok((i, o)),
        _ => Err(shape_error(
            "buffers not aligned to, or not a whole number of, their elements".to_string(),
        )),
    }
}

/// [`pad_stat`] on the bytes of buffers of `dtype` (native byte order, aligned).
/// Types other than float32, float64 and the integers are declined untouched.
#[allow(clippy::too_many_arguments)]
pub fn pad_stat_bytes(
    dtype: DType,
    input: &[u8],
    out: &mut [u8],
    shape: &[usize],
    pads: &[(usize, usize)],
    lengths: &[(Option<usize>, Option<usize>)],
    stat: Stat,
    threads: usize,
    interrupt: Option<&Interrupt>,
) -> Result<Outcome, StatsError> {
    macro_rules! go {
        ($t:ty) => {{
            let (i, o) = cast_pair::<$t>(input, out)?;
            pad_stat::<$t>(i, o, shape, pads, lengths, stat, threads, interrupt)
        }};
    }
    by_type!(dtype, go, "a type without statistics here")
}

/// [`pad_ramp`] on the bytes of buffers of `dtype`, computing in `compute`
/// (`Float32` or `Float64`). Other types are declined untouched.
#[allow(clippy::too_many_arguments)]
pub fn pad_ramp_bytes(
    dtype: DType,
    compute: DType,
    input: &[u8],
    out: &mut [u8],
    shape: &[usize],
    pads: &[(usize, usize)],
    ends: &[(f64, f64)],
    threads: usize,
    interrupt: Option<&Interrupt>,
) -> Result<Outcome, StatsError> {
    macro_rules! go {
        ($t:ty) => {{
            let (i, o) = cast_pair::<$t>(input, out)?;
            match compute {
                DType::Float32 => pad_ramp::<$t, f32>(i, o, shape, pads, ends, threads, interrupt),
                DType::Float64 => pad_ramp::<$t, f64>(i, o, shape, pads, ends, threads, interrupt),
                _ => Ok(Outcome::Declined("a ramp computed in another type")),
            }
        }};
    }
    by_type!(dtype, go, "a type without ramps here")
}
