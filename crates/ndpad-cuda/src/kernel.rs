//! The kernels' source text, compiled at run time by NVRTC, one module per variant.
//!
//! The text is plain C++ with CUDA's qualifiers, so a test can also compile it with
//! the host's C++ compiler (the qualifiers defined away, the grid simulated) and run
//! it against the CPU kernel: the kernel text itself is verified without a GPU.

use crate::error::CudaError;
use crate::gather::WIDTHS;

/// Threads per block of every launch.
pub const BLOCK: u32 = 256;

/// One compiled module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// The gather, moving kernel elements of this many bytes.
    Gather(usize),
    /// Widening packed 4- or 2-bit elements to bytes, and packing them again.
    Packed,
}

impl Variant {
    /// The module's source.
    ///
    /// # Errors
    /// [`CudaError::BadWidth`] for a gather width not in [`WIDTHS`].
    pub fn source(self) -> Result<String, CudaError> {
        match self {
            Variant::Gather(width) => {
                let ty = element_type(width)?;
                let entry = |name: String, body: &str| {
                    format!(
                        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}(\n\
                         \x20   {ty}* __restrict__ out, const {ty}* __restrict__ in,\n\
                         \x20   const long long* __restrict__ maps, const unsigned long long* __restrict__ meta,\n\
                         \x20   int naxes, unsigned long long unit, unsigned long long total,\n\
                         \x20   const {ty}* __restrict__ constant) {{\n\
                         \x20 {body}<{ty}>(out, in, maps, meta, naxes, unit, total, constant);\n\
                         }}\n"
                    )
                };
                Ok(format!(
                    "{PRELUDE}{GATHER}{ROWS}\n{}\n{}",
                    entry(gather_name(width), "ndpad_gather"),
                    entry(rows_name(width), "ndpad_rows"),
                ))
            }
            Variant::Packed => Ok(format!("{PRELUDE}{PACKED}")),
        }
    }

    /// The names of the module's kernels.
    pub fn kernels(self) -> Vec<String> {
        match self {
            Variant::Gather(width) => vec![gather_name(width), rows_name(width)],
            Variant::Packed => vec![UNPACK.to_string(), PACK.to_string()],
        }
    }
}

/// The gather kernel of kernel elements of `width` bytes.
pub fn gather_name(width: usize) -> String {
    format!("ndpad_gather_w{width}")
}

/// The row kernel of kernel elements of `width` bytes: one block per output row of
/// the last gathered axis at a time (the row's source found once, then one map
/// look-up per element and no division where the unit is one element).
pub fn rows_name(width: usize) -> String {
    format!("ndpad_rows_w{width}")
}

/// Kernel elements per row from which the row kernel is used (a block's threads
/// stride along one row: on shorter rows most of them would idle).
pub const ROWS_MIN: u64 = BLOCK as u64 / 2;

/// The kernel widening packed elements to one byte each.
pub const UNPACK: &str = "ndpad_unpack";
/// The kernel packing one-byte elements.
pub const PACK: &str = "ndpad_pack";

/// The C++ type moved at `width` bytes.
fn element_type(width: usize) -> Result<&'static str, CudaError> {
    Ok(match width {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        16 => "ndpad_v16",
        _ => {
            debug_assert!(!WIDTHS.contains(&width));
            return Err(CudaError::BadWidth { width, elem: 1 });
        }
    })
}

/// Blocks of a grid-stride launch over `n` items: enough to fill `sms`
/// multiprocessors 32 blocks deep, fewer for small `n`, at least one.
pub fn grid(n: u64, sms: u32) -> u32 {
    let want = n.div_ceil(u64::from(BLOCK)).max(1);
    let cap = u64::from(sms.max(1)) * 32;
    want.min(cap).min(u64::from(u32::MAX)) as u32
}

const PRELUDE: &str = r#"// ndpad: generated at run time, compiled by NVRTC.
struct alignas(16) ndpad_v16 { unsigned long long lo, hi; };
"#;

/// One thread per output element at a time, a grid-stride loop (any element count,
/// any grid): the element's row is split into one coordinate per gathered axis, each
/// axis's map gives the input offset of its coordinate (or -1 for the constant), and
/// the element is copied or filled. The index arithmetic is 32-bit where every index
/// the loop reaches fits (a 64-bit division costs several times a 32-bit one), 64-bit
/// otherwise; `NDPAD_INDEX32_MAX` is only redefined by the host tests, to run the
/// 64-bit path on small tensors.
const GATHER: &str = r#"
#ifndef NDPAD_INDEX32_MAX
#define NDPAD_INDEX32_MAX 0xFFFFFFFFull
#endif
template <typename T, typename I>
__device__ __forceinline__ void ndpad_gather_loop(
    T* __restrict__ out, const T* __restrict__ in,
    const long long* __restrict__ maps, const unsigned long long* __restrict__ meta,
    int naxes, I unit, I total, const T value) {
  const unsigned long long* dims = meta;
  const unsigned long long* starts = meta + naxes;
  const I step = (I)gridDim.x * (I)blockDim.x;
  for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < total; i += step) {
    const I u = i % unit;
    I r = i / unit;
    long long src = 0;
    bool fill = false;
    for (int a = naxes - 1; a >= 0; --a) {
      const I d = (I)dims[a];
      const I c = r % d;
      r /= d;
      const long long m = maps[starts[a] + c];
      if (m < 0) { fill = true; break; }
      src += m;
    }
    out[i] = fill ? value : in[(unsigned long long)src * unit + u];
  }
}

template <typename T>
__device__ __forceinline__ void ndpad_gather(
    T* __restrict__ out, const T* __restrict__ in,
    const long long* __restrict__ maps, const unsigned long long* __restrict__ meta,
    int naxes, unsigned long long unit, unsigned long long total,
    const T* __restrict__ constant) {
  const T value = *constant;
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  // Every extent divides `total`, and no index passes `total + step`.
  if (total + step <= NDPAD_INDEX32_MAX) {
    ndpad_gather_loop<T, unsigned int>(out, in, maps, meta, naxes, (unsigned int)unit,
                                       (unsigned int)total, value);
  } else {
    ndpad_gather_loop<T, unsigned long long>(out, in, maps, meta, naxes, unit, total, value);
  }
}
"#;

/// The row kernel: blocks stride over the rows of the last gathered axis (`naxes >=
/// 1`; the host uses the element kernel otherwise), each block finds its row's source
/// once (or that the whole row is the constant) and its threads stride along the row.
const ROWS: &str = r#"
template <typename T>
__device__ __forceinline__ void ndpad_rows(
    T* __restrict__ out, const T* __restrict__ in,
    const long long* __restrict__ maps, const unsigned long long* __restrict__ meta,
    int naxes, unsigned long long unit, unsigned long long total,
    const T* __restrict__ constant) {
  const T value = *constant;
  const unsigned long long* dims = meta;
  const unsigned long long* starts = meta + naxes;
  const unsigned long long row_len = dims[naxes - 1] * unit;
  const unsigned long long rows = total / row_len;
  const long long* __restrict__ row_map = maps + starts[naxes - 1];
  for (unsigned long long row = blockIdx.x; row < rows; row += gridDim.x) {
    unsigned long long r = row;
    long long base = 0;
    bool fill = false;
    for (int a = naxes - 2; a >= 0; --a) {
      const unsigned long long d = dims[a];
      const unsigned long long c = r % d;
      r /= d;
      const long long m = maps[starts[a] + c];
      if (m < 0) { fill = true; break; }
      base += m;
    }
    T* __restrict__ o = out + row * row_len;
    if (fill) {
      for (unsigned long long j = threadIdx.x; j < row_len; j += blockDim.x) o[j] = value;
    } else if (unit == 1) {
      for (unsigned long long j = threadIdx.x; j < row_len; j += blockDim.x) {
        const long long m = row_map[j];
        o[j] = m < 0 ? value : in[(unsigned long long)(base + m)];
      }
    } else {
      for (unsigned long long j = threadIdx.x; j < row_len; j += blockDim.x) {
        const long long m = row_map[j / unit];
        o[j] = m < 0 ? value : in[(unsigned long long)(base + m) * unit + j % unit];
      }
    }
  }
}
"#;

/// Packed 4- and 2-bit elements, first in the low bits: widened to one byte each
/// before the gather, packed again after it (each output byte written once, the
/// unused high bits of the last byte zero, as the CPU kernel leaves them).
const PACKED: &str = r#"
extern "C" __global__ void __launch_bounds__(256) ndpad_unpack(
    unsigned char* __restrict__ out, const unsigned char* __restrict__ in,
    unsigned long long n, unsigned int bits) {
  const unsigned int per = 8u / bits;
  const unsigned int mask = (1u << bits) - 1u;
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < n; i += step) {
    out[i] = (unsigned char)((in[i / per] >> ((unsigned int)(i % per) * bits)) & mask);
  }
}

extern "C" __global__ void __launch_bounds__(256) ndpad_pack(
    unsigned char* __restrict__ out, const unsigned char* __restrict__ in,
    unsigned long long n, unsigned int bits) {
  const unsigned int per = 8u / bits;
  const unsigned int mask = (1u << bits) - 1u;
  const unsigned long long bytes = (n + per - 1) / per;
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       j < bytes; j += step) {
    unsigned int b = 0;
    for (unsigned int k = 0; k < per; ++k) {
      const unsigned long long idx = j * per + k;
      if (idx < n) b |= ((unsigned int)in[idx] & mask) << (k * bits);
    }
    out[j] = (unsigned char)b;
  }
}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_width_has_its_own_kernel_and_type() {
        for w in WIDTHS {
            let src = Variant::Gather(w).source().unwrap();
            assert!(src.contains(&format!("void __launch_bounds__(256) ndpad_gather_w{w}(")));
            assert!(src.contains(&format!("void __launch_bounds__(256) ndpad_rows_w{w}(")));
            assert!(src.contains(&format!("ndpad_gather<{}>", element_type(w).unwrap())));
            assert_eq!(src.matches('{').count(), src.matches('}').count());
        }
        assert_eq!(
            Variant::Gather(3).source().unwrap_err().to_string(),
            "a kernel element of 3 bytes cannot carry 1-byte elements (widths are 1, 2, 4, 8 or 16 and multiples of the element)"
        );
        assert_eq!(Variant::Packed.kernels(), [UNPACK, PACK]);
        assert!(PACKED.contains(&format!("__launch_bounds__({BLOCK})")));
    }

    #[test]
    fn grids_cover_any_count_without_limits() {
        assert_eq!(grid(0, 132), 1);
        assert_eq!(grid(1, 132), 1);
        assert_eq!(grid(257, 132), 2);
        // More than 2^31 elements, more than 65535 rows: a grid-stride loop over a
        // grid sized by the device, never by the element count.
        assert_eq!(grid(1 << 40, 132), 132 * 32);
        assert_eq!(grid(u64::MAX, 0), 32);
    }
}
