//! Writes of packed sub-byte elements (4 or 2 bits, the first element in the lowest
//! bits of the first byte) at any element offset: the executor's path for packed
//! tensors whose rows do not start on byte boundaries. The output is written in order
//! as a stream of bits; whole bytes are moved as bytes (shifted, in a loop the
//! compiler vectorizes, when source and destination are out of phase), and only the
//! stream's last partial byte is merged with what the output held.

/// Bits `bit .. bit + n` of `src` (`n <= 8`) as the low bits of a byte.
#[inline]
fn read(src: &[u8], bit: usize, n: usize) -> u8 {
    let (i, sh) = (bit / 8, bit % 8);
    let lo = u16::from(src[i]);
    let hi = if sh + n > 8 { u16::from(src[i + 1]) } else { 0 };
    let mask = (1u16 << n) - 1;
    (((lo | (hi << 8)) >> sh) & mask) as u8
}

/// A packed output written in order, as a stream of bits from its first byte on:
/// whole bytes are stored as they complete, the partial byte at the end waits in a
/// register until the next write fills it (so runs that meet inside a byte cost no
/// read-modify-write). No byte of the output is read, so it may start uninitialized.
pub(crate) struct BitWriter<'a> {
    out: &'a mut [u8],
    /// The byte the pending bits belong to.
    at: usize,
    /// The pending bits, in the low `n` bits.
    acc: u8,
    n: usize,
}

impl<'a> BitWriter<'a> {
    /// A stream writing `out` from its first bit on.
    pub(crate) fn new(out: &'a mut [u8]) -> Self {
        BitWriter {
            out,
            at: 0,
            acc: 0,
            n: 0,
        }
    }

    /// The byte the stream has reached.
    pub(crate) fn at(&self) -> usize {
        self.at
    }

    /// Appends the low `k` bits of `v` (`k <= 8`).
    #[inline]
    fn push(&mut self, v: u8, k: usize) {
        let b = u16::from(self.acc) | (u16::from(v & low(k)) << self.n);
        if self.n + k >= 8 {
            self.out[self.at] = b as u8;
            self.at += 1;
            self.acc = (b >> 8) as u8;
            self.n = self.n + k - 8;
        } else {
            self.acc = b as u8;
            self.n += k;
        }
    }

    /// Appends `n` bits of the repeating byte `pattern` (every byte of a run of
    /// equal elements is the same byte, whatever its phase).
    #[inline(always)]
    pub(crate) fn fill(&mut self, mut n: usize, pattern: u8) {
        if self.n > 0 {
            let take = (8 - self.n).min(n);
            self.push(pattern, take);
            n -= take;
        }
        if n >= 8 {
            let bytes = n / 8;
            self.out[self.at..self.at + bytes].fill(pattern);
            self.at += bytes;
        }
        let rest = n % 8;
        if rest > 0 {
            self.push(pattern, rest);
        }
    }

    /// Appends bits `s .. s + n` of `src`.
    #[inline(always)]
    pub(crate) fn copy(&mut self, src: &[u8], mut s: usize, mut n: usize) {
        if self.n > 0 {
            let take = (8 - self.n).min(n);
            self.push(read(src, s, take), take);
            s += take;
            n -= take;
        }
        let bytes = n / 8;
        if bytes > 0 {
            let (s0, sh) = (s / 8, s % 8);
            let out = &mut self.out[self.at..self.at + bytes];
            if sh == 0 {
                crate::arch::copy_cached(out, &src[s0..s0 + bytes]);
            } else {
                // Each output byte takes the high bits of one input byte and the low
                // bits of the next: the input's bytes s0 ..= s0 + bytes all hold copied
                // bits. Byte by byte over two slices of exactly `bytes`: no bounds
                // checks, so the compiler vectorizes it (16-bit lane shifts and masks).
                let (lo, hi) = (&src[s0..s0 + bytes], &src[s0 + 1..=s0 + bytes]);
                for ((o, &x), &y) in out.iter_mut().zip(lo).zip(hi) {
                    *o = (x >> sh) | (y << (8 - sh));
                }
            }
            self.at += bytes;
            s += bytes * 8;
        }
        let rest = n % 8;
        if rest > 0 {
            self.push(read(src, s, rest), rest);
        }
    }

    /// Stores the pending bits, the rest of their byte cleared.
    pub(crate) fn finish(self) {
        if self.n > 0 {
            self.out[self.at] = self.acc;
        }
    }
}

/// The low `n` bits of a byte set (`n <= 8`).
#[inline]
fn low(n: usize) -> u8 {
    ((1u16 << n) - 1) as u8
}

/// The byte holding `bits`-bit elements all equal to the low bits of `v`.
pub(crate) fn pattern(v: u8, bits: usize) -> u8 {
    (0..8 / bits).fold(0u8, |p, k| p | ((v & low(bits)) << (k * bits)))
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
    fn writes_match_an_element_model_at_every_phase() {
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
                        // `di` elements of 3, then a fill of `n`, a copy of `n`, a
                        // fill of 1 and a copy of 1: every phase meets every other.
                        let mut want = vec![3 & m; di];
                        want.extend(std::iter::repeat_n(2 & m, n));
                        want.extend_from_slice(&src_vals[si..si + n]);
                        want.extend([1, src_vals[si]]);
                        let mut got = vec![0xa5; (want.len() * bits).div_ceil(8)];
                        let mut w = BitWriter::new(&mut got);
                        w.fill(di * bits, pattern(3, bits));
                        w.fill(n * bits, pattern(2, bits));
                        w.copy(&src, si * bits, n * bits);
                        w.fill(bits, pattern(1, bits));
                        w.copy(&src, si * bits, bits);
                        w.finish();
                        // The last byte's bits beyond the stream are cleared.
                        want.resize(got.len() * 8 / bits, 0);
                        assert_eq!(unpack(&got, bits), want, "{bits} {si} {di} {n}");
                    }
                }
            }
        }
    }
}
