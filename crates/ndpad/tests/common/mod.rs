//! Helpers shared by the integration tests.

use ndpad::{DType, Layout, Tensor};

/// A tensor of `dtype` and `shape` filled from a xorshift generator seeded with
/// `seed` (strings `s0`..`s999`, bools 0 or 1, packed types' unused high bits 0).
pub fn tensor(dtype: DType, shape: Vec<usize>, seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    match dtype.layout() {
        Layout::Strings => {
            let s = (0..n).map(|_| format!("s{}", next() % 1000)).collect();
            Tensor::from_strings(&shape, s).unwrap()
        }
        _ => {
            let len = dtype.byte_len(n).unwrap();
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if dtype == DType::Bool {
                bytes.iter_mut().for_each(|b| *b &= 1);
            }
            if let Layout::Packed(bits) = dtype.layout() {
                // Unused high bits of the last byte are zero, as ndpad writes them.
                let used = n * bits as usize % 8;
                if used != 0 {
                    let last = bytes.len() - 1;
                    bytes[last] &= (1u8 << used) - 1;
                }
            }
            Tensor::from_bytes(dtype, &shape, bytes).unwrap()
        }
    }
}
