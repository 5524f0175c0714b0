//! Moves of packed sub-byte elements (4 or 2 bits, the first element in the lowest
//! bits of the first byte) at any element offset: the executor's path for packed
//! tensors whose rows do not start on byte boundaries. Whole bytes are moved as
//! bytes (shifted, in a loop the compiler vectorizes, when source and destination are
//! out of phase);
//! only the partial bytes at the ends of a run are read, masked and written back.

/// Bits `bit .. bit + n` of `src` (`n <= 8`) as the low bits of a byte.
#[inline]
fn read(src: &[u8], bit: usize, n: usize) -> u8 {
    let (i, sh) = (bit / 8, bit % 8);
    let lo = u16::from(src[i]);
    let hi = if sh + n > 8 { u16::from(src[i + 1]) } else { 0 };
    let mask = (1u16 << n) - 1;
    (((lo | (hi << 8)) >> sh) & mask) as u8
}

/// Writes the low `n` bits of `v` to bits `bit .. bit + n` of `dst`, all inside one
/// byte (`bit % 8 + n <= 8`), leaving its other bits as they are.
#[inline]
fn write(dst: &mut [u8], bit: usize, n: usize, v: u8) {
    let (i, sh) = (bit / 8, bit % 8);
    let mask = (((1u16 << n) - 1) << sh) as u8;
    dst[i] = (dst[i] & !mask) | ((v << sh) & mask);
}

/// Copies `n` elements of `bits` bits from element `si` of `src` to element `di` of
/// `dst`; the bits of `dst` outside those elements are left as they are.
pub(crate) fn copy(dst: &mut [u8], di: usize, src: &[u8], si: usize, n: usize, bits: usize) {
    let (mut d, mut s, mut left) = (di * bits, si * bits, n * bits);
    if left == 0 {
        return;
    }
    // Up to the next byte boundary of the destination.
    if d % 8 != 0 {
        let take = (8 - d % 8).min(left);
        write(dst, d, take, read(src, s, take));
        d += take;
        s += take;
        left -= take;
    }
    let bytes = left / 8;
    let (d0, s0, sh) = (d / 8, s / 8, s % 8);
    if bytes > 0 {
        let out = &mut dst[d0..d0 + bytes];
        if sh == 0 {
            out.copy_from_slice(&src[s0..s0 + bytes]);
        } else {
            // Each output byte takes the high bits of one input byte and the low bits
            // of the next: the input's bytes s0 ..= s0 + bytes all hold copied bits.
            // Byte by byte over two slices of exactly `bytes`: no bounds checks, so the
            // compiler vectorizes it (16-bit lane shifts and masks).
            let (lo, hi) = (&src[s0..s0 + bytes], &src[s0 + 1..=s0 + bytes]);
            for ((o, &x), &y) in out.iter_mut().zip(lo).zip(hi) {
                *o = (x >> sh) | (y << (8 - sh));
            }
        }
    }
    let rest = left % 8;
    if rest > 0 {
        write(dst, (d0 + bytes) * 8, rest, read(src, s + bytes * 8, rest));
    }
}

/// Sets `n` elements of `bits` bits, from element `di` of `dst` on, to the low `bits`
/// bits of `v`; the other bits of `dst` are left as they are.
pub(crate) fn fill(dst: &mut [u8], di: usize, n: usize, bits: usize, v: u8) {
    let (mut d, mut left) = (di * bits, n * bits);
    if left == 0 {
        return;
    }
    let mask = ((1u16 << bits) - 1) as u8;
    // Every byte of a run of equal elements is the same byte, whatever its phase.
    let pattern = (0..8 / bits).fold(0u8, |p, k| p | ((v & mask) << (k * bits)));
    if d % 8 != 0 {
        let take = (8 - d % 8).min(left);
        write(dst, d, take, pattern);
        d += take;
        left -= take;
    }
    let bytes = left / 8;
    dst[d / 8..d / 8 + bytes].fill(pattern);
    let rest = left % 8;
    if rest > 0 {
        write(dst, d + bytes * 8, rest, pattern);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The element model: `crate::packed`'s one-value-per-byte conversions.
    fn unpack(b: &[u8], bits: usize) -> Vec<u8> {
        crate::packed::unpack(b, bits as u32, b.len() * 8 / bits).unwrap()
    }

    fn pack(v: &[u8], bits: usize) -> Vec<u8> {
        let mut out = vec![0u8; (v.len() * bits).div_ceil(8)];
        crate::packed::pack(v, bits as u32, &mut out);
        out
    }

    #[test]
    fn copy_and_fill_match_an_element_model_at_every_phase() {
        for bits in [2usize, 4] {
            let per = 8 / bits;
            let m = (1u8 << bits) - 1;
            let src_vals: Vec<u8> = (0..160).map(|i| (i * 7 + 3) as u8 & m).collect();
            let src = pack(&src_vals, bits);
            for si in 0..2 * per + 1 {
                for di in 0..2 * per + 1 {
                    for n in [0usize, 1, 2, 3, 5, 8, 9, 31, 32, 33, 63, 64, 65, 100] {
                        if si + n > src_vals.len() {
                            continue;
                        }
                        let mut want: Vec<u8> = (0..120).map(|i| (i * 5 + 1) as u8 & m).collect();
                        let mut got = pack(&want, bits);
                        want[di..di + n].copy_from_slice(&src_vals[si..si + n]);
                        copy(&mut got, di, &src, si, n, bits);
                        assert_eq!(unpack(&got, bits), want, "copy {bits} {si} {di} {n}");

                        let mut want: Vec<u8> = (0..120).map(|i| (i * 5 + 1) as u8 & m).collect();
                        let mut got = pack(&want, bits);
                        want[di..di + n].iter_mut().for_each(|x| *x = 2 & m);
                        fill(&mut got, di, n, bits, 2);
                        assert_eq!(unpack(&got, bits), want, "fill {bits} {di} {n}");
                    }
                }
            }
        }
    }
}
