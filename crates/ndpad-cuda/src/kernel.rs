//! The kernels' source text, compiled at run time by NVRTC, one module per variant.
//!
//! The text is plain C++ with CUDA's qualifiers, so a test can also compile it with
//! the host's C++ compiler (the qualifiers defined away, the grid simulated) and run
//! it against the CPU kernel: the kernel text itself is verified without a GPU.

use crate::error::CudaError;
use crate::gather::{MAX_AXES, WIDTHS};

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
                let entry = |name: String, lanes: usize| {
                    format!(
                        "extern \"C\" __global__ void __launch_bounds__({BLOCK}) {name}(\n\
                         \x20   {ty}* __restrict__ out, const {ty}* __restrict__ in,\n\
                         \x20   const long long* __restrict__ maps, const ndpad_params p) {{\n\
                         \x20 ndpad_gather<{ty}, {lanes}>(out, in, maps, p);\n\
                         }}\n"
                    )
                };
                Ok(format!(
                    "{}{GATHER}\n{}\n{}",
                    prelude(),
                    entry(gather_name(width), 1),
                    entry(vector_name(width), 16 / width),
                ))
            }
            Variant::Packed => Ok(format!("{}{PACKED}", prelude())),
        }
    }

    /// The names of the module's kernels.
    pub fn kernels(self) -> Vec<String> {
        match self {
            Variant::Gather(width) => vec![gather_name(width), vector_name(width)],
            Variant::Packed => vec![UNPACK.to_string(), PACK.to_string()],
        }
    }
}

/// The gather kernel of kernel elements of `width` bytes, one at a time per thread.
pub fn gather_name(width: usize) -> String {
    format!("ndpad_gather_w{width}")
}

/// The gather kernel of kernel elements of `width` bytes, `16 / width` consecutive
/// ones per thread, written with one 16-byte store (the output 16-byte aligned).
pub fn vector_name(width: usize) -> String {
    format!("ndpad_vector_w{width}")
}

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

/// The prelude: the 16-byte element and the launch parameters, laid out as
/// [`crate::GatherPlan::params`] writes them (u64 words; the axes innermost first).
fn prelude() -> String {
    format!(
        r#"// ndpad: generated at run time, compiled by NVRTC.
struct alignas(16) ndpad_v16 {{ unsigned long long lo, hi; }};
#define NDPAD_MAX_AXES {MAX_AXES}
typedef unsigned long long ndpad_u64;
struct ndpad_div {{ ndpad_u64 d, m64, m32, l; }};
struct ndpad_axis {{ ndpad_div n; ndpad_u64 start, lo, hi, stride; long long base; }};
struct ndpad_params {{
  ndpad_div unit, row;
  ndpad_u64 total, naxes, constant[2];
  ndpad_axis axes[NDPAD_MAX_AXES];
}};
"#
    )
}

/// Each thread takes `V` consecutive kernel elements at a time (a chunk; one 16-byte
/// store where `V > 1`), a grid-stride loop (any element count, any grid). A chunk
/// finds the offset of the outer axes once per row of the innermost gathered axis it
/// touches (one, or two where it runs into the next row) and maps each element's
/// coordinate on that axis; one over more rows (rows shorter than a chunk) or past
/// the end finds each element's own: its row `i / unit` split into one coordinate per axis, each mapped
/// to an input offset by its body (`c * stride + base`) or its table (-1: the
/// constant). Divisions are multiplications by the host's magic numbers; the index
/// arithmetic is 32-bit where every index the loop reaches fits, 64-bit otherwise
/// (`NDPAD_INDEX32_MAX` is only redefined by the host tests, to run the 64-bit path
/// on small tensors).
const GATHER: &str = r#"
#ifndef NDPAD_INDEX32_MAX
#define NDPAD_INDEX32_MAX 0xFFFFFFFFull
#endif
__device__ __forceinline__ unsigned int ndpad_mulhi(unsigned int a, unsigned int b) {
  return __umulhi(a, b);
}
__device__ __forceinline__ ndpad_u64 ndpad_mulhi(ndpad_u64 a, ndpad_u64 b) {
  return __umul64hi(a, b);
}

// n / v.d by multiplication (GatherPlan's divisor()).
template <typename I>
__device__ __forceinline__ I ndpad_quot(I n, const ndpad_div& v) {
  const I t = ndpad_mulhi(sizeof(I) == 4 ? (I)v.m32 : (I)v.m64, n);
  return (t + ((n - t) >> (v.l ? 1u : 0u))) >> (v.l ? (unsigned)v.l - 1u : 0u);
}

// The input offset in units that coordinate c of axis x reads, or -1.
template <typename I>
__device__ __forceinline__ long long ndpad_map(const ndpad_axis& x,
                                               const long long* __restrict__ maps, I c) {
  if (c >= (I)x.lo && c < (I)x.hi) return (long long)c * (long long)x.stride + x.base;
  return maps[x.start + (ndpad_u64)c - (c >= (I)x.hi ? x.hi - x.lo : 0ull)];
}

// The input offset in units of row r of the axes from FROM outwards (r their
// coordinates, the innermost fastest), or -1.
template <typename I, int FROM>
__device__ __forceinline__ long long ndpad_offset(const ndpad_params& p,
                                                  const long long* __restrict__ maps, I r) {
  long long src = 0;
  bool fill = false;
#pragma unroll
  for (int k = FROM; k < NDPAD_MAX_AXES; ++k) {
    if (k >= (int)p.naxes) break;
    const I q = ndpad_quot<I>(r, p.axes[k].n);
    const long long m = ndpad_map<I>(p.axes[k], maps, r - q * (I)p.axes[k].n.d);
    r = q;
    fill |= m < 0;
    src += m;
  }
  return fill ? -1 : src;
}

// The input element that output element i reads, or -1.
template <typename I>
__device__ __forceinline__ long long ndpad_source(const ndpad_params& p,
                                                  const long long* __restrict__ maps, I i) {
  const I r = ndpad_quot<I>(i, p.unit);
  const long long m = ndpad_offset<I, 0>(p, maps, r);
  return m < 0 ? -1 : m * (long long)p.unit.d + (long long)(i - r * (I)p.unit.d);
}

// One chunk: V kernel elements, written with one store where V > 1.
template <typename T, int V>
union ndpad_lanes {
  T e[V];
  ndpad_v16 v;
};

// The values of chunk g (output elements g * V on; the constant past the end). A
// chunk within a row of the innermost axis, or running into the next row, finds the
// outer axes' offset of each row once; one over more rows (rows shorter than V) or
// past the end finds each element's own.
template <typename T, int V, typename I>
__device__ __forceinline__ void ndpad_read(
    ndpad_lanes<T, V>& w, const T* __restrict__ in, const long long* __restrict__ maps,
    const ndpad_params& p, const T value, I g) {
  const I total = (I)p.total;
  const I i0 = g * (I)V;
  const I len = (I)p.row.d;
  const I row = ndpad_quot<I>(i0, p.row);
  const I j0 = i0 - row * len;
  if (p.naxes > 0 && (I)V <= len && i0 + (I)V <= total) {
    const long long here = ndpad_offset<I, 1>(p, maps, row);
    const bool crosses = j0 + (I)V > len;
    const long long next = crosses ? ndpad_offset<I, 1>(p, maps, row + 1) : here;
    const ndpad_axis& x = p.axes[0];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      I j = j0 + (I)k;
      const bool on = j >= len;
      j = on ? j - len : j;
      const long long outer = on ? next : here;
      long long m;
      long long u = 0;
      if (p.unit.d == 1) {
        m = ndpad_map<I>(x, maps, j);
      } else {
        const I c = ndpad_quot<I>(j, p.unit);
        m = ndpad_map<I>(x, maps, c);
        u = (long long)(j - c * (I)p.unit.d);
      }
      w.e[k] = (outer < 0 || m < 0) ? value : in[(outer + m) * (long long)p.unit.d + u];
    }
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const long long s = i0 + (I)k < total ? ndpad_source<I>(p, maps, i0 + (I)k) : -1;
      w.e[k] = s < 0 ? value : in[s];
    }
  }
}

// Stores chunk g (the elements before the end).
template <typename T, int V, typename I>
__device__ __forceinline__ void ndpad_write(T* __restrict__ out, const ndpad_lanes<T, V>& w,
                                            I g, I total) {
  const I i0 = g * (I)V;
  if (i0 + (I)V <= total) {
    if constexpr (V > 1) {
      *reinterpret_cast<ndpad_v16*>(out + i0) = w.v;
    } else {
      out[i0] = w.e[0];
    }
  } else {
    for (int k = 0; k < V; ++k) {
      if (i0 + (I)k < total) out[i0 + k] = w.e[k];
    }
  }
}

template <typename T, int V, typename I>
__device__ __forceinline__ void ndpad_gather_loop(
    T* __restrict__ out, const T* __restrict__ in, const long long* __restrict__ maps,
    const ndpad_params& p, const T value) {
  const I total = (I)p.total;
  const I chunks = (I)((p.total + V - 1) / V);
  const I step = (I)gridDim.x * (I)blockDim.x;
  for (I g = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; g < chunks; g += step) {
    ndpad_lanes<T, V> w;
    ndpad_read<T, V, I>(w, in, maps, p, value, g);
    ndpad_write<T, V, I>(out, w, g, total);
  }
}

template <typename T, int V>
__device__ __forceinline__ void ndpad_gather(
    T* __restrict__ out, const T* __restrict__ in, const long long* __restrict__ maps,
    const ndpad_params& p) {
  union { ndpad_u64 w[2]; T t; } c;
  c.w[0] = p.constant[0];
  c.w[1] = p.constant[1];
  const T value = c.t;
  const ndpad_u64 step = (ndpad_u64)gridDim.x * blockDim.x;
  // No index the loop reaches passes total + 16 * (step + 1).
  if (p.total + 16 * (step + 1) <= NDPAD_INDEX32_MAX) {
    ndpad_gather_loop<T, V, unsigned int>(out, in, maps, p, value);
  } else {
    ndpad_gather_loop<T, V, ndpad_u64>(out, in, maps, p, value);
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
            assert!(src.contains(&format!("void __launch_bounds__(256) ndpad_vector_w{w}(")));
            let ty = element_type(w).unwrap();
            assert!(src.contains(&format!("ndpad_gather<{ty}, 1>")));
            assert!(src.contains(&format!("ndpad_gather<{ty}, {}>", 16 / w)));
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
