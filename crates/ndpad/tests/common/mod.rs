//! Helpers shared by the integration tests.

use ndpad::{DType, Layout, Scalar, Tensor};

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
            let s: Vec<String> = (0..n).map(|_| format!("s{}", next() % 1000)).collect();
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

/// A xorshift generator: the cases are reproducible from their seed.
#[allow(dead_code)] // not every test crate draws cases
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// `x`'s elements (of `w` bytes) laid out with the byte `strides` in a buffer of
/// `len` bytes, 0xEE in the gaps (bytes that would show up in an output if read).
#[allow(dead_code)]
pub fn strided_bytes(x: &Tensor, w: usize, strides: &[isize], len: usize) -> Vec<u8> {
    let shape = x.shape();
    let bytes = x.bytes().unwrap();
    let mut buf = vec![0xEEu8; len];
    for i in 0..shape.iter().product::<usize>() {
        let (mut at, mut rest) = (0usize, i);
        for a in (0..shape.len()).rev() {
            at += (rest % shape[a]) * strides[a] as usize;
            rest /= shape[a];
        }
        buf[at..at + w].copy_from_slice(&bytes[i * w..(i + 1) * w]);
    }
    buf
}

/// A constant of `dtype` picked by `pick`: none for a third of the picks, else the
/// byte `pick` repeated over the type's bits (a string `pad<pick>`, a bool true).
#[allow(dead_code)]
pub fn value(dtype: DType, pick: u8) -> Option<Scalar> {
    match (pick % 3, dtype) {
        (0, _) => None,
        (_, DType::String) => Some(Scalar::string(format!("pad{pick}"))),
        _ => {
            let bits = u128::from(pick) * 0x0101_0101_0101_0101_0101_0101_0101_0101;
            let width = dtype.bits();
            let mask = if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            };
            let bits = if dtype == DType::Bool { 1 } else { bits & mask };
            Some(Scalar::from_bits(dtype, bits).unwrap())
        }
    }
}
