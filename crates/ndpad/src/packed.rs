//! The packed sub-byte types (4-bit: int4, uint4, float4e2m1; 2-bit: int2, uint2),
//! stored as ONNX stores them: the first element in the lowest bits of the first
//! byte. One set of helpers for every crate that reads or writes them.

/// Element `i` of a packed buffer of `bits`-bit elements, or `None` past its end.
///
/// ```
/// assert_eq!(ndpad::packed::get(&[0x21], 4, 1), Some(2));
/// assert_eq!(ndpad::packed::get(&[0x21], 4, 2), None);
/// ```
pub fn get(bytes: &[u8], bits: u32, i: usize) -> Option<u8> {
    let per = (8 / bits) as usize;
    let shift = (i % per) as u32 * bits;
    bytes.get(i / per).map(|b| (b >> shift) & mask(bits))
}

/// Sets element `i` of a packed buffer of `bits`-bit elements to the low `bits` bits of
/// `v` (nothing happens past the buffer's end).
///
/// ```
/// let mut b = [0u8; 1];
/// ndpad::packed::set(&mut b, 2, 3, 0b11);
/// assert_eq!(b, [0b1100_0000]);
/// ```
pub fn set(bytes: &mut [u8], bits: u32, i: usize, v: u8) {
    let per = (8 / bits) as usize;
    let shift = (i % per) as u32 * bits;
    if let Some(b) = bytes.get_mut(i / per) {
        let m = mask(bits) << shift;
        *b = (*b & !m) | ((v << shift) & m);
    }
}

/// Clears the bits after the last of `numel` elements in the last byte (ndpad keeps
/// them zero, so equal tensors have equal bytes).
///
/// ```
/// let mut b = [0xFF];
/// ndpad::packed::clear_unused_bits(&mut b, 4, 1);
/// assert_eq!(b, [0x0F]);
/// // Elements of a byte or more leave every bit alone.
/// let mut w = [0xFF, 0xFF];
/// ndpad::packed::clear_unused_bits(&mut w, 16, 1);
/// assert_eq!(w, [0xFF, 0xFF]);
/// ```
pub fn clear_unused_bits(bytes: &mut [u8], bits: u32, numel: usize) {
    // Whole-byte (or wider) elements leave no unused bits.
    let per = match 8u32.checked_div(bits) {
        Some(per) if per > 1 => per as usize,
        _ => return,
    };
    let used = (numel % per) as u32 * bits;
    if let (Some(last), true) = (bytes.last_mut(), used != 0) {
        *last &= (1u8 << used) - 1;
    }
}

fn mask(bits: u32) -> u8 {
    ((1u16 << bits) - 1) as u8
}

/// Widens `numel` packed `bits`-bit elements (4 or 2) to one byte each, or `None`
/// when the memory cannot be had.
///
/// ```
/// assert_eq!(ndpad::packed::unpack(&[0x21, 0x03], 4, 3), Some(vec![1, 2, 3]));
/// ```
pub fn unpack(packed: &[u8], bits: u32, numel: usize) -> Option<Vec<u8>> {
    match bits {
        4 => unpack_n::<2>(packed, numel),
        _ => unpack_n::<4>(packed, numel),
    }
}

/// [`unpack`] for `P` elements per byte (known at compile time, so the inner loop
/// unrolls).
fn unpack_n<const P: usize>(packed: &[u8], numel: usize) -> Option<Vec<u8>> {
    let bits = 8 / P as u32;
    let mask = ((1u16 << bits) - 1) as u8;
    let mut wide = crate::os::zeroed_vec(numel.div_ceil(P) * P)?;
    for (chunk, &b) in wide.chunks_exact_mut(P).zip(packed) {
        for (k, v) in chunk.iter_mut().enumerate() {
            *v = (b >> (k as u32 * bits)) & mask;
        }
    }
    wide.truncate(numel);
    Some(wide)
}

/// Packs one-byte-per-element values (each already within `bits` bits) into `out`
/// (`values.len()` elements, first in the low bits), writing each byte once.
///
/// ```
/// let mut out = [0u8; 2];
/// ndpad::packed::pack(&[1, 2, 3], 4, &mut out);
/// assert_eq!(out, [0x21, 0x03]);
/// ```
pub fn pack(values: &[u8], bits: u32, out: &mut [u8]) {
    match bits {
        4 => pack_n::<2>(values, out),
        _ => pack_n::<4>(values, out),
    }
}

/// [`pack`] for `P` elements per byte.
fn pack_n<const P: usize>(values: &[u8], out: &mut [u8]) {
    let bits = 8 / P as u32;
    let fold = |chunk: &[u8]| {
        chunk
            .iter()
            .enumerate()
            .fold(0u8, |b, (k, &v)| b | (v << (k as u32 * bits)))
    };
    let chunks = values.chunks_exact(P);
    let rest = chunks.remainder();
    let whole = values.len() / P;
    for (byte, chunk) in out.iter_mut().zip(chunks) {
        *byte = fold(chunk);
    }
    if let (Some(byte), false) = (out.get_mut(whole), rest.is_empty()) {
        *byte = fold(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack_get_set_agree() {
        let vals = [1u8, 2, 3, 0, 1];
        let mut a = vec![0u8; 2];
        pack(&vals, 2, &mut a);
        let mut b = vec![0u8; 2];
        for (i, &v) in vals.iter().enumerate() {
            set(&mut b, 2, i, v);
        }
        assert_eq!(a, b);
        assert_eq!(unpack(&b, 2, 5).unwrap(), vals);
        assert_eq!(
            (0..5).map(|i| get(&b, 2, i).unwrap()).collect::<Vec<_>>(),
            vals
        );
    }
}
