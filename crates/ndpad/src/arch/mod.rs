//! CPU-specific instructions, by purpose: code compiled for AVX2 or AVX-512,
//! non-temporal line movers and stores, the `PSHUFB` blend, the permutes, prefetch
//! hints and store fences. The x86_64 intrinsics are in `x86_64.rs`, the portable
//! fallbacks (and the 64-byte moves, which are portable code the compiler
//! vectorizes) in `generic.rs`.
//!
//! The CPU's features are detected once into a [`Cpu`], which the executor passes
//! down; [`Avx`], [`Avx2`], [`Avx512`], [`Ssse3`] and [`WriteAhead`] are proof tokens,
//! made only from a `Cpu` that has the feature, and required by the functions that
//! use it. `NDPAD_DISABLE_CPU_FEATURES` (read once, like numpy's
//! `NPY_DISABLE_CPU_FEATURES`) names features not to use (`avx512`, `avx2`, `avx`,
//! `ssse3`, `prefetchw`, comma-separated), so that tests run the portable paths on
//! any machine.

#![allow(unsafe_code)]

mod generic;
#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(not(target_arch = "x86_64"))]
use generic as imp;
pub(crate) use generic::{copy_cached, copy_moves, copy_run, words_at};
#[cfg(target_arch = "x86_64")]
use x86_64 as imp;

pub(crate) use imp::{
    fence, prefetch, read_ahead, store_around_cache, stream_copy, stream_copy_lines,
    stream_fill_lines, stream_interleaved, transpose_square, with_avx2, with_avx512,
};
// What only the plane loops around the cache use, which run only in x86_64's AVX2
// functions: the staged loop's 64-byte move and the non-temporal line movers.
#[cfg(target_arch = "x86_64")]
pub(crate) use generic::move64;
#[cfg(target_arch = "x86_64")]
pub(crate) use imp::{
    seamed, stream_half, stream_joined, stream_lines, stream_lines_ahead, stream_seamed,
};

use std::sync::OnceLock;

/// Whether [`transpose_square`] transposes in registers (x86_64's SSE2, its baseline:
/// no CPU check), so that a transpose's gather takes squares.
pub(crate) const TRANSPOSES: bool = cfg!(target_arch = "x86_64");

use crate::tune::{PLANE_WRITE_AHEAD_ON_AMD, WRITE_AHEAD};

/// A cache line: what a prefetch fetches and a non-temporal store should write whole.
pub(crate) const LINE: usize = 64;

/// Bytes of a page: the stride of the non-temporal page loops, and the span within
/// which a load is checked against earlier stores by the low bits of its address.
pub(crate) const PAGE: usize = 4096;

/// The CPU features the executor may use, detected once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cpu {
    avx512: bool,
    /// AVX-512BW and VBMI (`VPERMI2B`), besides AVX-512F.
    vbmi: bool,
    avx2: bool,
    avx: bool,
    ssse3: bool,
    prefetchw: bool,
    /// An AMD CPU: the plane loops' rows do not ask ahead ([`Cpu::plane_write_ahead`]);
    /// long copies to a destination near the source's place in its page go line by
    /// line (`PAGE_ALIAS_BYTES`).
    amd: bool,
}

impl Cpu {
    /// The features of this CPU (detected on the first call, then cached), less those
    /// named in `NDPAD_DISABLE_CPU_FEATURES`.
    pub(crate) fn get() -> Cpu {
        static CPU: OnceLock<Cpu> = OnceLock::new();
        *CPU.get_or_init(|| {
            let off = std::env::var("NDPAD_DISABLE_CPU_FEATURES").unwrap_or_default();
            Cpu::detect().without(&off)
        })
    }

    /// What the hardware has.
    fn detect() -> Cpu {
        #[cfg(target_arch = "x86_64")]
        {
            Cpu {
                avx512: std::is_x86_feature_detected!("avx512f"),
                vbmi: std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512vbmi"),
                avx2: std::is_x86_feature_detected!("avx2"),
                avx: std::is_x86_feature_detected!("avx"),
                ssse3: std::is_x86_feature_detected!("ssse3"),
                prefetchw: imp::has_prefetchw(),
                amd: imp::is_amd(),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Cpu::BASELINE
    }

    /// No feature beyond the target's baseline.
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub(crate) const BASELINE: Cpu = Cpu {
        avx512: false,
        vbmi: false,
        avx2: false,
        avx: false,
        ssse3: false,
        prefetchw: false,
        amd: false,
    };

    /// `self` less the features named in `names` (comma- or space-separated, any
    /// case): "avx512" (all of AVX-512), "avx2", "avx", "ssse3", "prefetchw"; turning
    /// off one turns off those that imply it (AVX-512F implies AVX2, AVX2 implies
    /// AVX).
    pub(crate) fn without(self, names: &str) -> Cpu {
        let mut c = self;
        for name in names.split([',', ' ']).map(str::trim) {
            match name.to_ascii_lowercase().as_str() {
                "avx512" => (c.avx512, c.vbmi) = (false, false),
                "avx2" => (c.avx2, c.avx512, c.vbmi) = (false, false, false),
                "avx" => (c.avx, c.avx2, c.avx512, c.vbmi) = (false, false, false, false),
                "ssse3" => c.ssse3 = false,
                "prefetchw" => c.prefetchw = false,
                _ => {}
            }
        }
        c
    }

    /// An AMD CPU.
    pub(crate) fn is_amd(self) -> bool {
        self.amd
    }

    /// Whether code may be compiled for AVX2 ([`with_avx2`]).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn has_avx2(self) -> bool {
        self.avx2
    }

    /// Proof of AVX, where the CPU has it.
    #[cfg(any(target_arch = "x86_64", test))]
    pub(crate) fn avx(self) -> Option<Avx> {
        self.avx.then_some(Avx {
            avx512: self.avx512,
        })
    }

    /// Proof of AVX2 (and so of AVX), where the CPU has it.
    pub(crate) fn avx2(self) -> Option<Avx2> {
        (self.avx2 && self.avx).then_some(Avx2 {
            avx512: self.avx512,
        })
    }

    /// Proof of AVX-512F, BW and VBMI (and so of AVX2), where the CPU has them all.
    pub(crate) fn avx512(self) -> Option<Avx512> {
        (self.avx512 && self.vbmi && self.avx2 && self.avx).then_some(Avx512(()))
    }

    /// Proof of SSSE3, where the CPU has it.
    pub(crate) fn ssse3(self) -> Option<Ssse3> {
        self.ssse3.then_some(Ssse3(()))
    }

    /// Proof of `PREFETCHW`, where the CPU has it.
    pub(crate) fn write_ahead(self) -> Option<WriteAhead> {
        self.prefetchw.then_some(WriteAhead(()))
    }

    /// [`Cpu::write_ahead`] for the plane loops' rows through the cache, where it pays
    /// on this CPU's vendor ([`PLANE_WRITE_AHEAD_ON_AMD`]).
    pub(crate) fn plane_write_ahead(self) -> Option<WriteAhead> {
        self.write_ahead()
            .filter(|_| !self.amd || PLANE_WRITE_AHEAD_ON_AMD)
    }
}

/// Proof that the CPU has AVX (32-byte non-temporal stores): made only by
/// [`Cpu::avx`]; with `avx512`, that it has AVX-512F too (whole lines moved by one
/// 64-byte load and non-temporal store). Its field is private to `arch`, so that
/// nothing else can make one (a forged `avx512` would run AVX-512 code on a CPU
/// without it).
#[cfg(any(target_arch = "x86_64", test))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx {
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx512: bool,
}

/// Proof that the CPU has AVX2 (`VPERMD`, besides AVX's stores): made only by
/// [`Cpu::avx2`]; `avx512` as [`Avx`]'s.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2 {
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx512: bool,
}

impl Avx2 {
    /// AVX2 implies AVX.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn avx(self) -> Avx {
        Avx {
            avx512: self.avx512,
        }
    }
}

/// Proof that the CPU has AVX-512F, AVX-512BW and AVX-512 VBMI (`VPERMI2D`,
/// `VPERMI2B`: 64 output bytes from two 64-byte windows by words or bytes; Ice Lake,
/// Zen 4 and later), besides AVX2: made only by [`Cpu::avx512`]. Code that uses it
/// runs compiled for it ([`with_avx512`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

/// The 32 output bytes around the boundary between two rows: the first row's last 16
/// and the next row's first 16, moved into place by [`seamed`] wherever that boundary
/// falls within a 32-byte half-line (at a multiple of 4 bytes).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seam([u8; 32]);

#[cfg(target_arch = "x86_64")]
impl Seam {
    #[inline(always)]
    pub(crate) fn new(end: [u8; 16], start: [u8; 16]) -> Seam {
        let mut s = [0u8; 32];
        s[..16].copy_from_slice(&end);
        s[16..].copy_from_slice(&start);
        Seam(s)
    }

    /// The farthest a seam may start from a half-line's start, in 4-byte words,
    /// either way ([`seamed`]'s `e`).
    pub(crate) const REACH: isize = 7;
}

/// Proof that the CPU has SSSE3 (`PSHUFB`): made only by [`Cpu::ssse3`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ssse3(());

/// Proof that the CPU has `PREFETCHW` (x86_64's `PRFCHW`): made only by
/// [`Cpu::write_ahead`]. Loops that write the output through the cache ask with it
/// for the lines [`WRITE_AHEAD`] bytes on, owned for writing: a store to a line the
/// cache does not hold waits for its read, and the hardware prefetcher did not ask
/// early enough (docs/performance.md, "Output lines asked for ahead").
#[derive(Clone, Copy, Debug)]
pub(crate) struct WriteAhead(());

impl WriteAhead {
    /// A [`LinesAhead`] for a loop that writes forward from address `at`.
    #[inline(always)]
    pub(crate) fn forward(self, at: *const u8) -> LinesAhead {
        LinesAhead {
            next: (at as usize).wrapping_add(WRITE_AHEAD) & !(LINE - 1),
        }
    }
}

/// The output lines a loop that writes forward asks for ahead, each once (a hint:
/// any address will do, nothing is read or written). Asked for a store at a time,
/// as narrow rows first were, they cost more than they saved where the output was
/// in the cache already (f32 `[8000,7] -> [..,8]` hot, 32-byte rows: 2.40 -> 1.33
/// of a copy). Made by [`WriteAhead::forward`].
pub(crate) struct LinesAhead {
    /// The next line to ask for (an address).
    next: usize,
}

impl LinesAhead {
    /// The loop has reached address `at`: asks for each line up to [`WRITE_AHEAD`]
    /// bytes after it not asked for yet.
    #[inline(always)]
    pub(crate) fn reached(&mut self, at: *const u8) {
        let end = (at as usize).wrapping_add(WRITE_AHEAD);
        while self.next < end {
            imp::prefetch_write(self.next as *const u8);
            self.next += LINE;
        }
    }
}

/// 16 bytes taken from two 16-byte windows and a constant: output byte `i` is
/// `a_window[a[i]]` where `a[i] < 16`, else `b_window[b[i]]` where `b[i] < 16`, else
/// `fill[i]` (each position is given by exactly one of the three; the others hold
/// [`Blend16::NONE`] or 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blend16 {
    pub(crate) a: [u8; 16],
    pub(crate) b: [u8; 16],
    pub(crate) fill: [u8; 16],
}

impl Blend16 {
    /// The control byte of a position a window does not give.
    pub(crate) const NONE: u8 = 0x80;
}

impl Ssse3 {
    /// `s` applied to the windows `a` and `b`: two `PSHUFB`s and two `POR`s on x86_64,
    /// inlined into callers compiled with SSSE3 (the AVX2 plane loops).
    #[inline(always)]
    pub(crate) fn blend(self, a: &[u8; 16], b: &[u8; 16], s: &Blend16) -> [u8; 16] {
        imp::blend(self, a, b, s)
    }

    /// Output byte `i` is `window[control[i]]` where `control[i] < 16`, else
    /// `fill[i]` (0 where the window gives it): one `PSHUFB` and one `POR` on x86_64.
    #[inline(always)]
    pub(crate) fn shuffle(
        self,
        window: &[u8; 16],
        control: &[u8; 16],
        fill: &[u8; 16],
    ) -> [u8; 16] {
        imp::shuffle(self, window, control, fill)
    }
}

/// Eight 4-byte output elements taken from one or two 32-byte windows and a
/// constant, one 32-bit word each: its low 3 bits the lane of the window, plus
/// [`Permute8::FROM_B`] where the element comes from `b` (else `a`; ignored with one
/// window: the lane of `a`), plus [`Permute8::FILL`] where it is the constant's word
/// of the same lane (which wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub(crate) struct Permute8(pub(crate) [u32; 8]);

impl Permute8 {
    /// The element comes from window `b`.
    pub(crate) const FROM_B: u32 = 8;
    /// The element is the constant.
    pub(crate) const FILL: u32 = 16;
}

impl Avx2 {
    /// `p` applied to the window `a` with the constant `fill` (no word from `b`): one
    /// `VPERMD`, one shift and one `VBLENDVPS` on x86_64, inlined into callers
    /// compiled with AVX2.
    #[inline(always)]
    pub(crate) fn permute(self, a: &[u8; 32], p: &Permute8, fill: &[u8; 32]) -> [u8; 32] {
        imp::permute(self, a, p, fill)
    }

    /// `p` applied to the windows `a` and `b` with the constant `fill`: two `VPERMD`s,
    /// two shifts and two `VBLENDVPS`s on x86_64, inlined into callers compiled with
    /// AVX2.
    #[inline(always)]
    pub(crate) fn permute2(
        self,
        a: &[u8; 32],
        b: &[u8; 32],
        p: &Permute8,
        fill: &[u8; 32],
    ) -> [u8; 32] {
        imp::permute2(self, a, b, p, fill)
    }
}

/// Two [`Blend16`] controls of one window each, side by side: output bytes 0-15 from
/// the window `a[0]`, 16-31 from `a[1]`, each control byte below 16 the byte of its
/// window or [`Blend16::NONE`] for none (other values are not defined, as in
/// [`Blend32`]), `fill` the constant's bytes where the window gives none (else 0).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct Shuffle32 {
    pub(crate) control: [u8; 32],
    pub(crate) fill: [u8; 32],
}

impl Avx2 {
    /// `s` applied to the window `a`, a pair of 16-byte windows (one a half of the
    /// output): one `VPSHUFB` and one `VPOR` on x86_64 (after loading the pair into
    /// one register), inlined into callers compiled with AVX2.
    #[inline(always)]
    pub(crate) fn shuffle(self, a: [&[u8; 16]; 2], s: &Shuffle32) -> [u8; 32] {
        imp::shuffle_avx2(self, a, s)
    }
}

/// Two [`Blend16`]s side by side: output bytes 0-15 from the windows `a[0]` and
/// `b[0]`, 16-31 from `a[1]` and `b[1]`, each control byte below 16 the byte of its
/// window or [`Blend16::NONE`] for none (other values are not defined: `VPSHUFB`
/// reads their low 4 bits, the portable fallback gives 0), `fill` the constant's
/// bytes where neither window gives the byte (else 0).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct Blend32 {
    pub(crate) a: [u8; 32],
    pub(crate) b: [u8; 32],
    pub(crate) fill: [u8; 32],
}

impl Avx2 {
    /// `s` applied to the windows `a` and `b`, a pair of 16-byte windows each (one a
    /// half of the output): two `VPSHUFB`s and two `VPOR`s on x86_64 (after loading
    /// each pair into one register), inlined into callers compiled with AVX2.
    #[inline(always)]
    pub(crate) fn shuffle2(self, a: [&[u8; 16]; 2], b: [&[u8; 16]; 2], s: &Blend32) -> [u8; 32] {
        imp::shuffle2(self, a, b, s)
    }
}

/// 64 output bytes taken from two 64-byte windows `a` and `b` and a constant, by
/// lanes of bytes or of 4-byte words, with a mask `take` (a bit a lane): where lane
/// `i`'s bit is set, lane `i` of `index` (its low byte, for words) is the lane of `a`
/// it takes, or that of `b` plus the lanes a window holds (64 bytes, 16 words); where
/// it is clear, `index` holds the output's bytes there (the constant's).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Permute64(pub(crate) [u8; 64]);

impl Avx512 {
    /// `p` with the mask `take` (a bit a lane) applied to the windows `w` by lanes of
    /// `L` bytes, 1 or 4: one `VPERMI2B` or `VPERMI2D` on x86_64, inlined into callers
    /// compiled for AVX-512 ([`with_avx512`]).
    #[inline(always)]
    pub(crate) fn permute<const L: usize>(
        self,
        w: [&[u8; 64]; 2],
        p: &Permute64,
        take: u64,
    ) -> [u8; 64] {
        imp::permute64::<L>(self, w, p, take)
    }
}

/// The addresses of the cache lines that the `len` bytes at address `at` touch.
#[inline(always)]
pub(crate) fn lines_of(at: usize, len: usize) -> impl Iterator<Item = usize> {
    (at & !(LINE - 1)..at.wrapping_add(len)).step_by(LINE)
}

/// [`prefetch`]es each of `lines` (addresses).
#[inline(always)]
pub(crate) fn prefetch_lines(lines: &[usize]) {
    lines.iter().for_each(|&l| prefetch(l as *const u8));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vendor CPUID gives is the one Linux reports (where it does).
    #[cfg(all(target_arch = "x86_64", target_os = "linux", not(miri)))]
    #[test]
    fn the_vendor_is_the_one_linux_reports() {
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        if let Some(vendor) = info.lines().find_map(|l| l.strip_prefix("vendor_id")) {
            assert_eq!(imp::is_amd(), vendor.contains("AuthenticAMD"), "{vendor}");
        }
    }

    #[test]
    fn features_turned_off_by_name() {
        let all = Cpu {
            avx512: true,
            vbmi: true,
            avx2: true,
            avx: true,
            ssse3: true,
            prefetchw: true,
            amd: false,
        };
        assert_eq!(all.without(""), all);
        let c = all.without("AVX512");
        assert!(!c.avx512 && c.avx2 && c.avx && c.avx().is_some_and(|a| !a.avx512));
        assert!(all.avx().is_some_and(|a| a.avx512));
        assert!(all.avx512().is_some() && c.avx512().is_none() && !c.vbmi);
        let c = all.without("avx2");
        assert!(!c.avx2 && !c.avx512 && !c.vbmi && c.avx);
        let c = all.without("avx, ssse3");
        assert!(!c.avx && !c.avx2 && !c.avx512 && !c.ssse3 && c.prefetchw);
        assert!(all.write_ahead().is_some() && all.without("prefetchw").write_ahead().is_none());
        // The plane loops ask ahead on Intel, not on AMD; the other loops on both.
        let amd = Cpu { amd: true, ..all };
        assert!(all.plane_write_ahead().is_some() && amd.write_ahead().is_some());
        assert_eq!(amd.plane_write_ahead().is_some(), PLANE_WRITE_AHEAD_ON_AMD);
        assert!(amd.without("prefetchw").plane_write_ahead().is_none());
        assert_eq!(all.without("avx2,avx,ssse3,PrefetchW"), Cpu::BASELINE);
        assert!(Cpu::BASELINE.avx().is_none() && Cpu::BASELINE.ssse3().is_none());
    }

    /// A loop of 100-byte rows moving forward asks for every line up to `WRITE_AHEAD`
    /// bytes past where it is, each once: the next line to ask for never goes back
    /// and stays within a line of that point.
    #[test]
    fn lines_ahead_asks_each_line_once() {
        let base = 3 * 4096 + 40;
        let mut a = WriteAhead(()).forward(base as *const u8);
        assert_eq!(a.next, (base + WRITE_AHEAD) & !(LINE - 1));
        for k in 1..200 {
            let (at, before) = (base + 100 * k, a.next);
            a.reached(at as *const u8);
            let end = at + WRITE_AHEAD;
            assert!(
                a.next >= before && a.next >= end && a.next < end + LINE,
                "row {k}"
            );
            assert_eq!(a.next % LINE, 0);
        }
    }

    #[test]
    fn blend_takes_each_byte_from_its_source() {
        let a: [u8; 16] = std::array::from_fn(|i| i as u8);
        let b: [u8; 16] = std::array::from_fn(|i| 100 + i as u8);
        let mut s = Blend16 {
            a: [Blend16::NONE; 16],
            b: [Blend16::NONE; 16],
            fill: [0; 16],
        };
        (s.a[0], s.a[1], s.b[2], s.b[15], s.fill[3]) = (15, 3, 0, 7, 42);
        let want = |c: Cpu| {
            let Some(t) = c.ssse3() else { return };
            let r = t.blend(&a, &b, &s);
            assert_eq!(&r[..4], &[15, 3, 100, 42]);
            assert_eq!(r[15], 107);
            assert!(r[4..15].iter().all(|&x| x == 0));
        };
        want(Cpu::get());
        // The portable fallback, whatever this CPU has.
        let r = generic::blend(Ssse3(()), &a, &b, &s);
        assert_eq!(&r[..4], &[15, 3, 100, 42]);
        assert_eq!(r[15], 107);
    }

    #[test]
    fn permute_takes_each_element_from_its_window_or_the_fill() {
        let a: [u8; 32] = std::array::from_fn(|i| i as u8);
        let b: [u8; 32] = std::array::from_fn(|i| 100 + i as u8);
        let fill: [u8; 32] = std::array::from_fn(|i| 200 + i as u8);
        let (b_, f_) = (Permute8::FROM_B, Permute8::FILL);
        let p = Permute8([7, 0, 3, 3, 6 | b_, 2 | b_, f_ | 5, 1]);
        let lane = |w: &[u8; 32], l: usize| [w[4 * l], w[4 * l + 1], w[4 * l + 2], w[4 * l + 3]];
        let picks = [
            lane(&a, 7),
            lane(&a, 0),
            lane(&a, 3),
            lane(&a, 3),
            lane(&b, 6),
            lane(&b, 2),
            [224, 225, 226, 227], // the constant's sixth word: the output's lane
            lane(&a, 1),
        ];
        let want: [u8; 32] = std::array::from_fn(|i| picks[i / 4][i % 4]);
        if let Some(t) = Cpu::get().avx2() {
            assert_eq!(t.permute2(&a, &b, &p, &fill), want);
        }
        // The portable fallback, whatever this CPU has.
        assert_eq!(
            generic::permute2(Avx2 { avx512: false }, &a, &b, &p, &fill),
            want
        );
        // From one window: the same words from `a` (`FROM_B` ignored).
        let p = Permute8([7, 0, 3, 3, 6 | b_, 2, f_ | 5, 1]);
        let want: [u8; 32] = std::array::from_fn(|i| match i / 4 {
            4 => a[24 + i % 4],
            5 => a[8 + i % 4],
            _ => want[i],
        });
        if let Some(t) = Cpu::get().avx2() {
            assert_eq!(t.permute(&a, &p, &fill), want);
        }
        assert_eq!(
            generic::permute(Avx2 { avx512: false }, &a, &p, &fill),
            want
        );
    }

    #[test]
    fn permute64_takes_each_lane_from_its_windows_or_the_index() {
        let a: [u8; 64] = std::array::from_fn(|i| i as u8);
        let b: [u8; 64] = std::array::from_fn(|i| 100 + i as u8);
        // By bytes: lane i takes a's byte 63 - i, b's byte i, or keeps 200 + i.
        let mut p = Permute64(std::array::from_fn(|i| 200u8.wrapping_add(i as u8)));
        let mut take = 0;
        let mut want = p.0;
        for i in 0..64 {
            match i % 3 {
                0 => (p.0[i], want[i]) = (63 - i as u8, a[63 - i]),
                1 => (p.0[i], want[i]) = (64 + i as u8, b[i]),
                _ => continue,
            }
            take |= 1 << i;
        }
        let token = Avx512(());
        if let Some(t) = Cpu::get().avx512() {
            assert_eq!(t.permute::<1>([&a, &b], &p, take), want);
        }
        // The portable fallback, whatever this CPU has.
        assert_eq!(generic::permute64::<1>(token, [&a, &b], &p, take), want);
        // By words: word w takes a's word 15 - w, b's word w, or keeps the index's.
        let mut p = Permute64(std::array::from_fn(|i| 200u8.wrapping_add(i as u8)));
        let mut take = 0;
        let mut want = p.0;
        for w in 0..16 {
            let from = match w % 3 {
                0 => &a[4 * (15 - w)..][..4],
                1 => &b[4 * w..][..4],
                _ => continue,
            };
            p.0[4 * w..4 * w + 4].copy_from_slice(&[[15 - w, 16 + w][w % 3] as u8, 0, 0, 0]);
            want[4 * w..4 * w + 4].copy_from_slice(from);
            take |= 1 << w;
        }
        if let Some(t) = Cpu::get().avx512() {
            assert_eq!(t.permute::<4>([&a, &b], &p, take), want);
        }
        assert_eq!(generic::permute64::<4>(token, [&a, &b], &p, take), want);
    }

    #[test]
    fn shuffle2_takes_each_half_from_its_own_windows() {
        let w: [[u8; 16]; 4] = std::array::from_fn(|k| std::array::from_fn(|i| (k * 50 + i) as u8));
        let (a, b) = ([&w[0], &w[2]], [&w[1], &w[3]]);
        let mut s = Blend32 {
            a: [Blend16::NONE; 32],
            b: [Blend16::NONE; 32],
            fill: [0; 32],
        };
        // Byte 0 from a's first window, 1 from b's first, 16 from a's second, 31 from
        // b's second, 5 the constant.
        (s.a[0], s.b[1], s.a[16], s.b[31], s.fill[5]) = (15, 2, 3, 0, 42);
        let mut want = [0u8; 32];
        (want[0], want[1], want[16], want[31], want[5]) = (15, 52, 103, 150, 42);
        if let Some(t) = Cpu::get().avx2() {
            assert_eq!(t.shuffle2(a, b, &s), want);
        }
        // The portable fallback, whatever this CPU has.
        assert_eq!(generic::shuffle2(Avx2 { avx512: false }, a, b, &s), want);
        // From one window a half: `b`'s bytes are the constant's here.
        let one = Shuffle32 {
            control: s.a,
            fill: std::array::from_fn(|i| if s.a[i] == Blend16::NONE { 7 } else { 0 }),
        };
        let want: [u8; 32] = std::array::from_fn(|i| match i {
            0 | 16 => want[i],
            _ => 7,
        });
        if let Some(t) = Cpu::get().avx2() {
            assert_eq!(t.shuffle(a, &one), want);
        }
        assert_eq!(generic::shuffle_avx2(Avx2 { avx512: false }, a, &one), want);
    }

    #[test]
    fn shuffle_takes_each_byte_from_the_window_or_the_fill() {
        let w: [u8; 16] = std::array::from_fn(|i| 100 + i as u8);
        let control: [u8; 16] = std::array::from_fn(|i| [15, 0, Blend16::NONE, 7][i % 4]);
        let fill: [u8; 16] = std::array::from_fn(|i| [0, 0, 42, 0][i % 4]);
        let want: [u8; 16] = std::array::from_fn(|i| [115, 100, 42, 107][i % 4]);
        if let Some(t) = Cpu::get().ssse3() {
            assert_eq!(t.shuffle(&w, &control, &fill), want);
        }
        // The portable fallback, whatever this CPU has.
        assert_eq!(generic::shuffle(Ssse3(()), &w, &control, &fill), want);
    }
}
