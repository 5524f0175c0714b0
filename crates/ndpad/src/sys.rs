//! The crate's only `unsafe` code: huge-page advice for large fresh outputs, which
//! measurably cuts the page-fault cost of a new buffer (see docs/performance.md),
//! a fallible zeroed allocation, the call of the kernel compiled for AVX2
//! once the CPU is known to have it, the non-temporal copy of very long runs,
//! prefetch hints, and the loop over a plane of rows that are each one copy, padded
//! by a few elements at each end (SSSE3 byte blends) or not (a crop), its bounds
//! checked once per plane instead of per access, written directly or, for large
//! outputs, through a small staging buffer and non-temporal stores.

#![allow(unsafe_code)]

/// Asks Linux to back a large, not yet touched buffer with transparent huge pages, so
/// that first touching it takes one fault per 2 MiB instead of one per 4 KiB. Only the
/// 2 MiB-aligned part inside the buffer is advised; errors are ignored (it is advice).
pub(crate) fn advise_huge_pages(buf: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buf.as_ptr().align_offset(HUGE);
        if start >= buf.len() {
            return;
        }
        let len = (buf.len() - start) / HUGE * HUGE;
        if len == 0 {
            return;
        }
        // SAFETY: the range [start, start + len) lies inside `buf`, which we borrow
        // mutably, so no other reference observes it; MADV_HUGEPAGE changes only how
        // the kernel backs the pages, never their contents.
        unsafe {
            libc::madvise(buf.as_mut_ptr().add(start).cast(), len, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// A zeroed byte buffer of `len` bytes, or `None` when the allocator refuses (instead
/// of aborting the process as `vec![0; len]` does). Zeroed memory from the allocator
/// is not written by it: a large buffer comes straight from the OS, untouched.
pub(crate) fn try_zeroed(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a non-zero size (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `[u8; len]`
    // (alignment 1, size `len`), exactly what `Vec<u8>` with capacity `len` deallocates
    // with; all `len` bytes are initialized (zeroed); the Vec takes sole ownership.
    Some(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// Runs `work` compiled for AVX2 when the CPU has it (checked at run time; the check
/// is cached by the standard library), else as it is. `work` and what it calls with
/// `#[inline(always)]` are inlined into the AVX2 function, so the kernel's copies
/// become 32-byte moves: a crop of `[8,64,112,112]` (one thread, cache cold) went from
/// 0.86-0.89x a plain copy of the same bytes with the baseline's 16-byte moves to
/// 0.90-0.95x.
#[inline(always)]
pub(crate) fn with_avx2<R>(work: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn avx2<R>(work: impl FnOnce() -> R) -> R {
            work()
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (detected just above), the only
            // requirement of calling a function compiled with that feature enabled.
            return unsafe { avx2(work) };
        }
    }
    work()
}

/// Runs at least this long are copied with non-temporal stores by [`stream_copy`]:
/// well beyond a last-level cache's share, where writing around the cache saves the
/// read of each destination line before it is written. Shorter runs keep the cache.
pub(crate) const STREAM_MIN: usize = 16 << 20;

/// Copies `src` into `dst` with non-temporal stores when they have the same length,
/// at least [`STREAM_MIN`] bytes: the destination lines are written without first
/// being read into the cache. A 64 MiB copy (cache cold, on the 2-core AMD EPYC VM) took 0.77x
/// the time of glibc's `memcpy`, which streams only above a threshold that VM puts at
/// 288 MiB; 32-byte stores where the CPU has AVX took that further (f32
/// `[16,1024,1024]` padded on axis 0: 1.18x -> 1.32x a copy, 10 paired rounds; the
/// 1-D pad 1.28x -> 1.36x). Returns `false`, having written nothing, on other
/// targets or lengths.
pub(crate) fn stream_copy(dst: &mut [u8], src: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let n = dst.len();
        if src.len() != n || n < STREAM_MIN {
            return false;
        }
        // Regular stores up to the first 64-byte boundary of `dst`, non-temporal ones
        // for whole 64-byte lines, regular stores for the rest.
        let head = dst.as_ptr().align_offset(64).min(n);
        let lines = (n - head) / 64;
        let body = head + lines * 64;
        dst[..head].copy_from_slice(&src[..head]);
        let (s, d) = (src[head..body].as_ptr(), dst[head..body].as_mut_ptr());
        if std::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU has AVX (detected just above); `s` and `d` are valid
            // for `lines` 64-byte lines, do not overlap, and `d` is 64-byte aligned,
            // as `stream_lines_avx` requires.
            unsafe { stream_lines_avx(s, d, lines) };
        } else {
            // SAFETY: as above; SSE2 is part of the x86_64 baseline.
            unsafe { stream_lines_sse2(s, d, lines) };
        }
        // SAFETY: SSE is part of the x86_64 baseline. The fence orders the
        // non-temporal stores before any later store, so that whoever is handed the
        // output (another thread, after rayon's join) sees them.
        unsafe { std::arch::x86_64::_mm_sfence() };
        dst[body..].copy_from_slice(&src[body..]);
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (dst, src);
        false
    }
}

/// Copies `lines` 64-byte lines from `s` to `d` with 32-byte non-temporal stores
/// (16-byte ones ran about 9% slower on the AMD EPYC VM, in a C test of
/// padded rows written around the cache).
///
/// # Safety
/// The CPU must have AVX; `s` must be valid for reads and `d` for writes of `lines *
/// 64` bytes, not overlapping; `d` must be 64-byte aligned.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn stream_lines_avx(s: *const u8, d: *mut u8, lines: usize) {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_stream_si256};
    for k in 0..lines {
        // SAFETY: k < lines, so the 64 bytes at k * 64 lie inside both ranges; `d +
        // k * 64` and `d + k * 64 + 32` are 32-byte aligned as `_mm256_stream_si256`
        // requires; `_mm256_loadu_si256` has no alignment requirement.
        unsafe {
            let (sk, dk) = (
                s.add(k * 64).cast::<__m256i>(),
                d.add(k * 64).cast::<__m256i>(),
            );
            let (a, b) = (_mm256_loadu_si256(sk), _mm256_loadu_si256(sk.add(1)));
            _mm256_stream_si256(dk, a);
            _mm256_stream_si256(dk.add(1), b);
        }
    }
}

/// [`stream_lines_avx`] with 16-byte stores, for CPUs without AVX.
///
/// # Safety
/// As [`stream_lines_avx`], but without the need for AVX.
#[cfg(target_arch = "x86_64")]
unsafe fn stream_lines_sse2(s: *const u8, d: *mut u8, lines: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    for k in 0..lines {
        // SAFETY: k < lines, so the 64 bytes at k * 64 lie inside both ranges; every
        // `d + k * 64 + 16 * i` is 16-byte aligned as `_mm_stream_si128` requires;
        // SSE2 is part of the x86_64 baseline.
        unsafe {
            let (sk, dk) = (
                s.add(k * 64).cast::<__m128i>(),
                d.add(k * 64).cast::<__m128i>(),
            );
            let (a, b) = (_mm_loadu_si128(sk), _mm_loadu_si128(sk.add(1)));
            let (c, e) = (_mm_loadu_si128(sk.add(2)), _mm_loadu_si128(sk.add(3)));
            _mm_stream_si128(dk, a);
            _mm_stream_si128(dk.add(1), b);
            _mm_stream_si128(dk.add(2), c);
            _mm_stream_si128(dk.add(3), e);
        }
    }
}

/// Writes the row `v` into `d` (of its length) around the cache: 16-byte
/// non-temporal stores where `W` is a multiple of 16 and `d` 16-byte aligned (on
/// x86_64), ordinary ones otherwise. Rows of narrow constant padding
/// ([`crate::exec`]'s windows) of outputs written around the cache: f32
/// `[1048576,7] -> [1048576,8]` (one thread, cache cold, 8 paired rounds) 0.99x a
/// copy -> 1.17x, no longer reading each output line before writing it. The caller
/// fences after its part ([`stream_fence`]).
#[inline(always)]
pub(crate) fn store_around_cache<const W: usize>(d: &mut [u8], v: &[u8; W]) {
    #[cfg(target_arch = "x86_64")]
    if W.is_multiple_of(16) && d.len() == W && (d.as_ptr() as usize).is_multiple_of(16) {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        for k in (0..W).step_by(16) {
            // SAFETY: `k + 16 <= W`, the length of both `v` and `d`; `d + k` is 16-byte
            // aligned (`d` is, `k` a multiple of 16) as the store requires; SSE2 is part
            // of the x86_64 baseline.
            unsafe {
                let x = _mm_loadu_si128(v.as_ptr().add(k).cast::<__m128i>());
                _mm_stream_si128(d.as_mut_ptr().add(k).cast::<__m128i>(), x);
            }
        }
        return;
    }
    d.copy_from_slice(v);
}

/// [`prefetch`]es each of `lines` (addresses).
#[inline(always)]
pub(crate) fn prefetch_lines(lines: &[usize]) {
    lines.iter().for_each(|&l| prefetch(l as *const u8));
}

/// Asks the CPU to bring the 64-byte line holding `p` into its first-level cache. A
/// hint: any address may be given (it is not dereferenced by the program, and a
/// prefetch never faults); does nothing on other targets.
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 reads no memory into the program and cannot fault, whatever
    // the address; SSE is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
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

/// Proof that the CPU has SSSE3 (`PSHUFB`): only [`Ssse3::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ssse3(());

impl Ssse3 {
    /// `Some` when the CPU has SSSE3 (checked at run time, cached by the standard
    /// library).
    pub(crate) fn detect() -> Option<Ssse3> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("ssse3") {
            return Some(Ssse3(()));
        }
        None
    }

    /// `s` applied to the windows `a` and `b`: two `PSHUFB`s and two `POR`s, inlined
    /// into callers compiled with SSSE3 (the AVX2 loop of [`copy_plane`]).
    #[inline(always)]
    pub(crate) fn blend(self, a: &[u8; 16], b: &[u8; 16], s: &Blend16) -> [u8; 16] {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "ssse3")]
            fn pshufb(a: &[u8; 16], b: &[u8; 16], s: &Blend16) -> [u8; 16] {
                use std::arch::x86_64::{
                    __m128i, _mm_loadu_si128, _mm_or_si128, _mm_shuffle_epi8, _mm_storeu_si128,
                };
                let mut out = [0u8; 16];
                // SAFETY: each load reads the 16 bytes of a 16-byte array, the store
                // writes the 16 bytes of `out`; these intrinsics have no alignment
                // requirement, and SSSE3 is enabled for this function.
                unsafe {
                    let load = |x: &[u8; 16]| _mm_loadu_si128(x.as_ptr().cast::<__m128i>());
                    let from_a = _mm_shuffle_epi8(load(a), load(&s.a));
                    let from_b = _mm_shuffle_epi8(load(b), load(&s.b));
                    let r = _mm_or_si128(_mm_or_si128(from_a, from_b), load(&s.fill));
                    _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), r);
                }
                out
            }
            // SAFETY: `self` exists only where the CPU has SSSE3 (`detect`), the only
            // requirement of calling a function compiled with that feature.
            unsafe { pshufb(a, b, s) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            let pick = |w: &[u8; 16], c: u8| if c < 16 { w[c as usize] } else { 0 };
            std::array::from_fn(|i| pick(a, s.a[i]) | pick(b, s.b[i]) | s.fill[i])
        }
    }
}

/// The first and last 16 bytes of rows of one copy between a few single elements,
/// each blended from two 16-byte windows of the input row and the constant (built by
/// `edges_of` in exec.rs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edges {
    pub(crate) ssse3: Ssse3,
    /// Byte offsets, in the input row, of the windows of the first and the last 16
    /// bytes.
    pub(crate) left: [usize; 2],
    pub(crate) right: [usize; 2],
    pub(crate) left_blend: Blend16,
    pub(crate) right_blend: Blend16,
}

/// The input row of each output row of a plane ([`RowMap::CONSTANT`] for a row of the
/// constant), with its largest row found once, when it is made (not at each plane).
#[derive(Clone, Debug, Default)]
pub(crate) struct RowMap {
    rows: Vec<u32>,
    last: Option<u32>,
}

impl RowMap {
    /// A constant row.
    pub(crate) const CONSTANT: u32 = u32::MAX;

    pub(crate) fn new(rows: Vec<u32>) -> RowMap {
        let last = rows.iter().copied().filter(|&r| r != Self::CONSTANT).max();
        RowMap { rows, last }
    }

    pub(crate) fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// The largest input row, `None` when every row is the constant.
    pub(crate) fn last(&self) -> Option<u32> {
        self.last
    }
}

/// What a row of a [`CopyPlane`] holds besides its copy.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ends<'a> {
    /// Nothing: the bytes around the copy are left as they are (a crop's copy is
    /// the whole row).
    Open,
    /// The first and last 16 bytes blended from the input row and the constant, after
    /// the copy (a few elements padded at each end, any mode).
    Blend(&'a Edges),
    /// The constant (`fill_row`'s bytes) before and after the copy, however many (a
    /// constant pad of the row axis).
    Fill,
}

/// Single elements of a row copied one by one from its input row, besides the
/// copy: ends too wide for [`Ends::Blend`] in modes other than the constant (the u8
/// image `[2160,3840,3]` reflect-padded by 16 has 32 a row). Each element is `size`
/// bytes (1, 2, 3, 4, 6, 8, 12 or 16): (output byte, input byte) pairs within the
/// rows. Written by [`copy_plane_picks`], which leaves [`copy_plane`]'s function
/// byte for byte as it was (as a fourth kind of [`Ends`] the dispatch became a jump
/// table and the loops moved; f32 reflect and wrap measured 4% slower in 20 paired
/// rounds, about the size of the differences seen between identical builds).
#[derive(Clone, Debug)]
pub(crate) struct Picks {
    pub(crate) size: usize,
    pub(crate) at: Vec<(u32, u32)>,
}

impl Picks {
    /// The element sizes [`RowEnds::write`] has a loop for (for `&Picks`).
    pub(crate) const SIZES: [usize; 8] = [1, 2, 3, 4, 6, 8, 12, 16];

    /// Whether every element lies inside rows of `in_row` and `out_row` bytes.
    fn fits(&self, in_row: usize, out_row: usize) -> bool {
        let within = |at: u32, row: usize| {
            (at as usize)
                .checked_add(self.size)
                .is_some_and(|e| e <= row)
        };
        Self::SIZES.contains(&self.size)
            && self
                .at
                .iter()
                .all(|&(d, s)| within(d, out_row) && within(s, in_row))
    }
}

/// What a row of a plane holds besides its copy, written after it: [`Ends`], or
/// [`Picks`].
trait RowEnds: Copy {
    /// The part `lo..hi` of a row's copy that [`plane_rows_long`] may write around
    /// the cache (clear of bytes the ends rewrite).
    fn open_part(self, p: &CopyPlane<'_>) -> (usize, usize);

    /// Writes the ends of the row at `d` whose input row starts at `s`.
    ///
    /// # Safety
    /// As [`plane_row`], `s` the input row of an output row that is not the
    /// constant; for [`Picks`], their `fits` for `p`'s rows.
    unsafe fn write(self, p: &CopyPlane<'_>, s: *const u8, d: *mut u8);
}

/// A plane of output rows, all in bytes: each the constant (`fill_row`), or one copy
/// from an input row with its [`Ends`].
pub(crate) struct CopyPlane<'a> {
    pub(crate) src: &'a [u8],
    /// Where the plane's input starts, and the distance between its input rows.
    pub(crate) base: usize,
    pub(crate) stride: usize,
    /// The input row of each output row of a whole plane, and the output rows
    /// written: all, or a run of them (a thread's part of a plane).
    pub(crate) rows: &'a RowMap,
    pub(crate) range: std::ops::Range<usize>,
    pub(crate) in_row: usize,
    pub(crate) out_row: usize,
    pub(crate) fill_row: &'a [u8],
    /// The copy: `copy_len` bytes from `copy_from` in the input row to `copy_at`.
    pub(crate) copy_at: usize,
    pub(crate) copy_from: usize,
    pub(crate) copy_len: usize,
    pub(crate) ends: Ends<'a>,
    /// Input lines (addresses; prefetching is a hint, any address will do) of the
    /// next plane that the hardware prefetcher cannot foresee
    /// ([`crate::exec`]'s `prefetch_plane`). The staged loop prefetches them one a row
    /// over the plane's last rows ([`AHEAD_TAIL_ROWS`]), the other loops all as they
    /// start.
    pub(crate) ahead: &'a [usize],
}

impl CopyPlane<'_> {
    /// Whether every read and write of [`copy_plane`] into an `out` of `out_len` bytes
    /// lies inside its slices.
    fn fits(&self, out_len: usize) -> bool {
        let in_row = |end: Option<usize>| end.is_some_and(|e| e <= self.in_row);
        let last = self.rows.last().map_or(Some(0), |r| {
            (r as usize)
                .checked_mul(self.stride)?
                .checked_add(self.base)?
                .checked_add(self.in_row)
        });
        let edges = match self.ends {
            Ends::Blend(e) => {
                self.out_row >= 16
                    && e.left
                        .iter()
                        .chain(&e.right)
                        .all(|&w| in_row(w.checked_add(16)))
            }
            Ends::Open | Ends::Fill => true,
        };
        self.range.start <= self.range.end
            && self.range.end <= self.rows.rows().len()
            && self.range.len().checked_mul(self.out_row) == Some(out_len)
            && self.fill_row.len() == self.out_row
            && last.is_some_and(|e| e <= self.src.len())
            && self
                .copy_at
                .checked_add(self.copy_len)
                .is_some_and(|e| e <= self.out_row)
            && in_row(self.copy_from.checked_add(self.copy_len))
            && edges
    }

    /// The bytes of input the plane's rows span: from its first byte to the end of
    /// its last input row.
    fn plane_in(&self) -> usize {
        self.rows
            .last()
            .map_or(0, |r| (r as usize + 1).saturating_mul(self.stride))
    }

    /// Whether [`plane_rows_streamed`] prefetches the input ahead of its rows.
    fn reads_ahead(&self) -> bool {
        self.in_row >= PREFETCH_ROW_MIN && self.plane_in() >= PREFETCH_PLANE_MIN
    }

    /// Whether [`plane_rows_streamed`] can write the plane: each row written covers
    /// every byte of its output row (the staging buffer then holds no stale byte
    /// that counts), a row fits the buffer, and the plane is not mostly partial
    /// lines. Only after `fits`.
    fn streams(&self) -> bool {
        let end = self.copy_at + self.copy_len;
        let covered = match self.ends {
            Ends::Open => self.copy_at == 0 && end == self.out_row,
            Ends::Blend(_) => self.copy_at <= 16 && end + 16 >= self.out_row,
            Ends::Fill => true,
        };
        covered
            && self.out_row <= STAGE_ROW_MAX
            && self.range.len() * self.out_row >= STAGE_PLANE_MIN
    }
}

/// Writes the plane `p` into `out` ([`plane_row`] for each row). Returns `false`, having
/// written nothing, where a read or write would leave its slice. Everything is
/// checked once per plane. The same loop in checked safe code took about 190
/// instructions a row (bounds checks, reloads, a copy loop), this one about 80, and
/// fewer instructions a row is what padded short rows faster: f32 `[32,64,56,56]`
/// padded by 3 (one thread, cache cold) went from 0.72-0.84x a copy to 0.91-0.93x
/// (wrap and reflect, paired rounds); on `[8,64,112,112]` (longer rows) wrap and
/// reflect gained 2%, a crop of 2 6%.
#[inline(always)]
pub(crate) fn copy_plane(p: &CopyPlane<'_>, stage: Option<&mut Stage>, out: &mut [u8]) -> bool {
    if !p.fits(out.len()) {
        return false;
    }
    // A function of its own (its own register allocation), compiled for AVX2 where
    // the CPU has it, measured faster than the loop inlined into the whole kernel:
    // wrap +1-4%, the crop +0-2.5% (8-10 paired rounds).
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        #[inline(never)]
        fn avx2(p: &CopyPlane<'_>, stage: Option<&mut Stage>, out: &mut [u8]) {
            // One copy of each loop per kind of ends. AVX2 implies AVX, which `Avx`
            // stands for.
            let avx = Avx(());
            match (p.ends, stage) {
                (Ends::Open, Some(st)) if p.streams() => plane_staged(p, Ends::Open, st, avx, out),
                (Ends::Blend(e), Some(st)) if p.streams() => {
                    plane_staged(p, Ends::Blend(e), st, avx, out)
                }
                (Ends::Fill, Some(st)) if p.streams() => plane_staged(p, Ends::Fill, st, avx, out),
                (Ends::Open, Some(_)) if p.out_row > STAGE_ROW_MAX => {
                    plane_rows_long(p, Ends::Open, avx, out)
                }
                (Ends::Blend(e), Some(_)) if p.out_row > STAGE_ROW_MAX => {
                    plane_rows_long(p, Ends::Blend(e), avx, out)
                }
                (Ends::Fill, Some(_)) if p.out_row > STAGE_ROW_MAX => {
                    plane_rows_long(p, Ends::Fill, avx, out)
                }
                _ => plane_direct(p, out),
            }
        }
        // SAFETY: the CPU supports AVX2 (detected just above), the only requirement
        // of calling a function compiled with that feature enabled.
        unsafe { avx2(p, stage, out) };
        return true;
    }
    // Without AVX2 the plane is written directly (the staging path's non-temporal
    // moves need AVX).
    let _ = stage;
    plane_direct(p, out);
    true
}

/// [`plane_rows`] with one copy of the loop per kind of ends (each call passes a
/// constant kind, so the loop is compiled for it).
#[inline(always)]
fn plane_direct(p: &CopyPlane<'_>, out: &mut [u8]) {
    match p.ends {
        Ends::Open => plane_rows(p, Ends::Open, out),
        Ends::Blend(e) => plane_rows(p, Ends::Blend(e), out),
        Ends::Fill => plane_rows(p, Ends::Fill, out),
    }
}

/// [`copy_plane`] for rows of one copy and [`Picks`] (`p.ends` must be
/// [`Ends::Open`]): the same direct loop, or for rows longer than [`STAGE_ROW_MAX`]
/// with `stream` the long-row loop around the cache. Never staged (its rows are long,
/// like the u8 image's, or few). Returns `false`, having written nothing, where a
/// read or write would leave its slice. The u8 image `[2160,3840,3]` reflect-padded
/// by 16 (one thread, cold): 0.95-1.02x a copy row by row, 1.16-1.17x this way (10
/// paired rounds each).
#[inline(always)]
pub(crate) fn copy_plane_picks(p: &CopyPlane<'_>, k: &Picks, stream: bool, out: &mut [u8]) -> bool {
    if !(matches!(p.ends, Ends::Open) && k.fits(p.in_row, p.out_row) && p.fits(out.len())) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        #[inline(never)]
        fn avx2(p: &CopyPlane<'_>, k: &Picks, long: bool, out: &mut [u8]) {
            match long {
                // AVX2 implies AVX, which `Avx` stands for.
                true => plane_rows_long(p, k, Avx(()), out),
                false => plane_rows(p, k, out),
            }
        }
        // SAFETY: the CPU supports AVX2 (detected just above), the only requirement
        // of calling a function compiled with that feature enabled.
        unsafe { avx2(p, k, stream && p.out_row > STAGE_ROW_MAX, out) };
        return true;
    }
    let _ = stream;
    plane_rows(p, k, out);
    true
}

/// The loop of [`copy_plane`], once `p` fits `out`.
#[inline(always)]
fn plane_rows<E: RowEnds>(p: &CopyPlane<'_>, ends: E, out: &mut [u8]) {
    prefetch_lines(p.ahead);
    let mut d = out.as_mut_ptr();
    for &r in &p.rows.rows()[p.range.clone()] {
        // SAFETY: `fits` checked that `out` holds exactly `range.len()` rows of
        // `out_row` bytes, so `d` (advanced by `out_row` per row) starts a row of `out`
        // here.
        unsafe {
            plane_row(p, ends, r, d);
            d = d.add(p.out_row);
        }
    }
}

/// Writes output row `r` of the plane `p` at `d`: the copy (64-byte moves, the last
/// one overlapping its predecessor), then its `ends` (the first and last 16 bytes as
/// blends of two windows each, or the constant before and after it); a constant row
/// from `fill_row`.
///
/// # Safety
/// `p` must fit its output (`CopyPlane::fits`), `r` be one of its rows, and `d` be
/// valid for writes of `p.out_row` bytes and not overlap `p.src`.
#[inline(always)]
unsafe fn plane_row<E: RowEnds>(p: &CopyPlane<'_>, ends: E, r: u32, d: *mut u8) {
    // SAFETY: `fits` checked that every input row read (`base + r * stride`, the
    // largest `r` included) ends inside `src`; that the copy's source and destination
    // ranges (so the constant's before and after it) and, with blends, the four
    // 16-byte windows lie inside their rows and a row has at least 16 bytes; that
    // `fill_row` is a row long; the caller vouches for `d`.
    unsafe {
        if r == RowMap::CONSTANT {
            std::ptr::copy_nonoverlapping(p.fill_row.as_ptr(), d, p.out_row);
        } else {
            let s = p.src.as_ptr().add(p.base + r as usize * p.stride);
            copy_run(s.add(p.copy_from), d.add(p.copy_at), p.copy_len);
            ends.write(p, s, d);
        }
    }
}

impl RowEnds for Ends<'_> {
    #[inline(always)]
    fn open_part(self, p: &CopyPlane<'_>) -> (usize, usize) {
        let copy_end = p.copy_at + p.copy_len;
        match self {
            Ends::Blend(_) => (p.copy_at.max(16), copy_end.min(p.out_row - 16)),
            Ends::Open | Ends::Fill => (p.copy_at, copy_end),
        }
    }

    #[inline(always)]
    unsafe fn write(self, p: &CopyPlane<'_>, s: *const u8, d: *mut u8) {
        // SAFETY: as `plane_row`'s.
        unsafe {
            if let Ends::Fill = self {
                let (f, end) = (p.fill_row.as_ptr(), p.copy_at + p.copy_len);
                copy_run(f, d, p.copy_at);
                copy_run(f.add(end), d.add(end), p.out_row - end);
            }
            if let Ends::Blend(e) = self {
                let window = |at: usize| &*s.add(at).cast::<[u8; 16]>();
                let l = e
                    .ssse3
                    .blend(window(e.left[0]), window(e.left[1]), &e.left_blend);
                let h = e
                    .ssse3
                    .blend(window(e.right[0]), window(e.right[1]), &e.right_blend);
                std::ptr::write_unaligned(d.cast::<[u8; 16]>(), l);
                std::ptr::write_unaligned(d.add(p.out_row - 16).cast::<[u8; 16]>(), h);
            }
        }
    }
}

impl RowEnds for &Picks {
    #[inline(always)]
    fn open_part(self, p: &CopyPlane<'_>) -> (usize, usize) {
        (p.copy_at, p.copy_at + p.copy_len)
    }

    #[inline(always)]
    unsafe fn write(self, _: &CopyPlane<'_>, s: *const u8, d: *mut u8) {
        /// The loop for elements of `N` bytes (`N == size`): moves of a fixed size.
        #[inline(always)]
        unsafe fn each<const N: usize>(k: &Picks, s: *const u8, d: *mut u8) {
            // SAFETY: as `write`'s caller vouches (`fits`), `N` being the elements'
            // size.
            unsafe {
                for &(o, i) in &k.at {
                    let v = std::ptr::read_unaligned(s.add(i as usize).cast::<[u8; N]>());
                    std::ptr::write_unaligned(d.add(o as usize).cast::<[u8; N]>(), v);
                }
            }
        }
        // SAFETY: as the caller vouches.
        unsafe {
            match self.size {
                1 => each::<1>(self, s, d),
                2 => each::<2>(self, s, d),
                3 => each::<3>(self, s, d),
                4 => each::<4>(self, s, d),
                6 => each::<6>(self, s, d),
                8 => each::<8>(self, s, d),
                12 => each::<12>(self, s, d),
                _ => each::<16>(self, s, d),
            }
        }
    }
}

/// [`plane_rows`] around the cache for rows longer than [`STAGE_ROW_MAX`] (staged,
/// a row's loads and then its stores would come in bursts): the whole output lines
/// inside each row's copy (clear of blended ends) are written with non-temporal
/// stores straight from the input, the rest of the row as [`plane_row`] writes it,
/// with ordinary stores. The u8 image `[2160,3840,3]` padded by 16 with the constant
/// (rows of 11616 bytes, 8 paired rounds): 1.19x a copy this way, 0.92x staged,
/// 0.99x written directly, 1.01x by `memcpy` calls row by row.
#[inline(always)]
fn plane_rows_long<E: RowEnds>(p: &CopyPlane<'_>, ends: E, avx: Avx, out: &mut [u8]) {
    let (copy_end, o) = (p.copy_at + p.copy_len, out.as_mut_ptr());
    // The part of a row's copy that may go around the cache.
    let (lo, hi) = ends.open_part(p);
    prefetch_lines(p.ahead);
    for (k, &r) in p.rows.rows()[p.range.clone()].iter().enumerate() {
        // SAFETY: `fits` checked that `out` holds exactly `range.len()` rows of
        // `out_row` bytes, so `d` starts a row of `out`; the copy and the ends as in
        // `plane_row`. The lines streamed, `a..b` of the row, lie inside the copy's
        // part `lo..hi` (so they are written once, by nothing else), `d + a` is
        // 64-byte aligned, and their source is the copy's.
        unsafe {
            let d = o.add(k * p.out_row);
            if r == RowMap::CONSTANT {
                std::ptr::copy_nonoverlapping(p.fill_row.as_ptr(), d, p.out_row);
                continue;
            }
            let s = p.src.as_ptr().add(p.base + r as usize * p.stride);
            // The input byte of output byte `i` of the copy (`copy_at <= i <=
            // copy_end`).
            let from = |i: usize| s.add(p.copy_from + (i - p.copy_at));
            let row = d as usize;
            let a = (row + lo).next_multiple_of(64) - row;
            let b = ((row + hi) & !63).saturating_sub(row);
            if b > a {
                copy_run(from(p.copy_at), d.add(p.copy_at), a - p.copy_at);
                stream_lines(from(a), d.add(a), (b - a) / 64, avx);
                copy_run(from(b), d.add(b), copy_end - b);
            } else {
                copy_run(from(p.copy_at), d.add(p.copy_at), p.copy_len);
            }
            ends.write(p, s, d);
        }
    }
}

/// The longest row [`plane_rows_streamed`] stages.
const STAGE_ROW_MAX: usize = 2 << 10;
/// The shortest plane it streams. Each plane's first and last lines are partial
/// (ordinary stores, the line between two planes written twice), which small planes
/// pay for: f32 `[128,64,28,28]` (4.6 KiB output planes), one thread, cold, ran at
/// 0.71x a copy staged and 0.94x written directly when padded by 3 with reflect,
/// 0.70x and 1.00x when cropped by 2 (8 paired rounds). At 1 KiB before; planes of
/// 15 KiB (`[32,64,56,56]` reflect) gain from staging.
const STAGE_PLANE_MIN: usize = 8 << 10;

/// [`plane_rows_streamed`] prefetches [`CopyPlane::ahead`] one line a row, ending
/// this many rows before the plane's end. f32 wrap padding by 3 (each plane's first
/// rows read the input's last three rows: 21 lines ahead on `[8,64,112,112]`), one
/// thread, cache cold, 12 paired rounds against prefetching them all as the plane
/// starts: `[32,64,56,56]` 0.86-0.89x a copy -> 1.01-1.02x (12 of 12 rounds, twice),
/// `[8,64,112,112]` +0-2%; the other modes (nothing ahead) within +-1%. Tried on
/// `[8,64,112,112]` wrap (10-14 paired rounds): all at once halfway through the
/// plane -1%, spread from its start -2%, from a quarter in -2%, ending 4 to 16 rows
/// before the end alike, into L2 or L3 instead -2 to -3%; two lines a row kept only
/// +1-3% of the `[32,64,56,56]` gain.
const AHEAD_TAIL_ROWS: usize = 8;

/// [`plane_rows_streamed`] prefetches the input this many bytes ahead of where its
/// rows read, spread evenly over the rows, on planes whose input spans at least
/// [`PREFETCH_PLANE_MIN`] bytes: the hardware prefetcher alone keeps too few lines
/// in flight there. f32 `[8,64,112,112]` padded by 3 (one thread, cache cold, 6
/// paired rounds each): reflect 0.97x a copy -> 1.23x, edge 1.02x -> 1.23x,
/// symmetric +20%, wrap 0.93x -> 1.18x, constant pad 1 +16%, the crop of 2 +22%;
/// `[16,64,64,64]` wrap +12%, `[4,32,224,224]` +5-9%. 16 and 32 KiB ahead measured
/// alike; 48 KiB (the whole next plane there) 2-5% less on modes other than wrap.
const PREFETCH_DISTANCE: usize = 16 << 10;
/// The smallest plane input (from the plane's first byte to the end of its last
/// input row) [`plane_rows_streamed`] prefetches [`PREFETCH_DISTANCE`] ahead on.
/// On smaller planes the prefetches gain in some modes and cost in others: f32
/// `[32,64,56,56]` (12.25 KiB planes) wrap +4-5%, reflect +6%, edge -4%, the crop
/// -1%; `[64,64,40,40]` (6.25 KiB) wrap +2 to +7%, reflect -7 to -9%, edge -7 to
/// -11% (6 paired rounds each, twice).
const PREFETCH_PLANE_MIN: usize = 16 << 10;
/// The shortest input row [`plane_rows_streamed`] prefetches ahead for: shorter
/// rows are written in so few instructions that the prefetching ones cost more than
/// they save. Rows of 128 bytes, reflect and edge padding by 3 (6 paired rounds
/// each): u8 `[32,64,128,128]` -7%, `[16,64,256,128]` -9%, `[8,64,512,128]` -3%
/// (planes of 16, 32 and 64 KiB), f32 `[8,64,128,32]` +1%; of 256 bytes: f32
/// `[16,64,64,64]` +5-12%, u8 `[8,64,256,256]` +4-13%.
const PREFETCH_ROW_MIN: usize = 256;

/// The staging buffer of [`plane_rows_streamed`]: a row and a line on each side, in
/// whole 64-byte lines. One per thread's part of an output (made by the executor).
#[repr(C, align(64))]
pub(crate) struct Stage([u8; STAGE_ROW_MAX + 128]);

impl Stage {
    pub(crate) fn new() -> Box<Stage> {
        Box::new(Stage([0; STAGE_ROW_MAX + 128]))
    }
}

/// Proof that the CPU has AVX: made only inside [`copy_plane`]'s AVX2 function.
#[derive(Clone, Copy)]
struct Avx(());

/// [`plane_rows_streamed`], with or without reading ahead (`p.reads_ahead()`).
#[inline(always)]
fn plane_staged(p: &CopyPlane<'_>, ends: Ends<'_>, stage: &mut Stage, avx: Avx, out: &mut [u8]) {
    match p.reads_ahead() {
        true => plane_rows_streamed::<true>(p, ends, stage, avx, out),
        false => plane_rows_streamed::<false>(p, ends, stage, avx, out),
    }
}

/// [`plane_rows`] around the cache: each row is written into a staging buffer in the
/// first-level cache, at the offset it has within the output's 64-byte lines, and
/// every line it completes goes out with non-temporal stores, so that the output's
/// lines are never read into the cache first (a third of the memory traffic of
/// padding into a buffer). The partial lines at the plane's two ends take ordinary
/// stores. Needs `p.streams()`.
///
/// Lines go out after every row: flushing every 4 KiB instead ran 6-9% slower in a C
/// test of f32 `[8,64,112,112]` reflect padding (bursts of loads, then of stores,
/// overlap less), and with 16-byte non-temporal stores instead of 32-byte ones about
/// 9% slower. One thread, cache cold, 8 paired rounds against writing the rows
/// directly: reflect +6.6%, edge +5%, symmetric +4%, constant pad 1 +7%, the crop
/// +3%, `[32,64,56,56]` reflect +4%, f32 constant pad 5 +10%; wrap 0 (with the next
/// plane's rows prefetched; -5% without).
///
/// With `AHEAD` (planes of [`PREFETCH_PLANE_MIN`] bytes of input or more:
/// `p.reads_ahead()`), each row also prefetches its share of the input
/// [`PREFETCH_DISTANCE`] bytes ahead, besides the next plane's far lines
/// ([`CopyPlane::ahead`], which still gain there: f32 `[8,64,112,112]` wrap 1.18x a
/// copy with them, 1.10x without). A separate copy of the loop, so that planes
/// without it run the loop as it was (one branch a row on them cost 3-6% on
/// `[64,64,40,40]`).
#[inline(always)]
fn plane_rows_streamed<const AHEAD: bool>(
    p: &CopyPlane<'_>,
    ends: Ends<'_>,
    stage: &mut Stage,
    avx: Avx,
    out: &mut [u8],
) {
    let st = stage.0.as_mut_ptr();
    let o = out.as_mut_ptr();
    // Buffer byte `i` is output byte `i - lead` (the output's first byte sits `lead`
    // bytes into its line). `skip`: the bytes at the buffer's start that are not the
    // output's, until its first line is out; `fill`: the buffer's bytes in use;
    // `done`: the output's bytes written.
    let lead = o as usize % 64;
    let (mut skip, mut fill, mut done) = (lead, lead, 0usize);
    // `p.ahead`, one line a row from row `from` on, ending `AHEAD_TAIL_ROWS` rows
    // before the plane's end; what does not fit into those rows, at once.
    let spread = p.range.len().saturating_sub(AHEAD_TAIL_ROWS);
    let early = p.ahead.len().saturating_sub(spread);
    prefetch_lines(&p.ahead[..early]);
    let from = spread - (p.ahead.len() - early);
    let mut ahead = p.ahead[early..].iter();
    // The input `PREFETCH_DISTANCE` ahead: `span` lines a plane, `span / rows` a row
    // (`due` carries the remainder), from the line the part's first row is at.
    let rows = p.rows.rows().len().max(1);
    let span = p.plane_in().div_ceil(64);
    let start = span.saturating_mul(p.range.start);
    let (mut line, mut due) = (
        (p.src.as_ptr() as usize)
            .wrapping_add(p.base)
            .wrapping_add(PREFETCH_DISTANCE)
            .wrapping_add((start / rows).wrapping_mul(64))
            & !63,
        start % rows,
    );
    for (i, &r) in p.rows.rows()[p.range.clone()].iter().enumerate() {
        if AHEAD {
            due += span;
            while due >= rows {
                prefetch(line as *const u8);
                line = line.wrapping_add(64);
                due -= rows;
            }
        }
        if i >= from {
            if let Some(&line) = ahead.next() {
                prefetch(line as *const u8);
            }
        }
        // SAFETY: `fill < 64` here and `out_row <= STAGE_ROW_MAX` (`streams`), so the
        // row lies inside the buffer; the buffer does not overlap the input.
        unsafe { plane_row(p, ends, r, st.add(fill)) };
        fill += p.out_row;
        let lines = fill / 64;
        let mut k = 0;
        if skip > 0 && lines > 0 {
            // SAFETY: the output's first line: the buffer's bytes `skip..64` (written
            // by rows, which cover every byte they span: `streams`) are the output's
            // first `64 - skip` bytes, all inside `out` (`fill` counts only its
            // bytes, and `fill >= 64`).
            unsafe { std::ptr::copy_nonoverlapping(st.add(skip), o, 64 - skip) };
            (done, skip, k) = (64 - skip, 0, 1);
        }
        // SAFETY: the lines `k..lines` (buffer bytes `64 * k .. 64 * lines <= fill`)
        // were written by rows (or moved to the buffer's start); they are the output's
        // bytes `done..done + 64 * (lines - k)`, inside `out`, starting at a 64-byte
        // aligned address (the first line ended on a boundary).
        unsafe { stream_lines(st.add(64 * k), o.add(done), lines - k, avx) };
        done += 64 * (lines - k);
        // SAFETY: the partial last line moves to the buffer's start as one 64-byte
        // move (not a call): `64 * lines + 64 <= fill + 64 <= STAGE_ROW_MAX + 127`
        // lies inside the buffer, all of whose bytes are initialized (`Stage::new`);
        // the bytes beyond `fill` are overwritten by the next rows before they count.
        unsafe { move64(st.add(64 * lines), st) };
        fill -= 64 * lines;
    }
    debug_assert_eq!(done + fill - skip, out.len());
    // SAFETY: the rest, the buffer's bytes `skip..fill`, are the output's last ones.
    unsafe { std::ptr::copy_nonoverlapping(st.add(skip), o.add(done), fill - skip) };
}

/// Stores `lines` 64-byte lines from `s` to `d` with 32-byte non-temporal stores.
///
/// # Safety
/// `s` must be valid for reads and `d` for writes of `lines * 64` bytes, not
/// overlapping; `d` must be 64-byte aligned.
#[inline(always)]
unsafe fn stream_lines(s: *const u8, d: *mut u8, lines: usize, avx: Avx) {
    let _ = avx;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `avx` exists only where the CPU has AVX; the rest as the caller vouches.
    unsafe {
        stream_lines_avx(s, d, lines)
    };
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: as the caller vouches.
    unsafe {
        std::ptr::copy_nonoverlapping(s, d, lines * 64)
    };
}

/// Orders earlier non-temporal stores before later stores, so that whoever is handed
/// the output (another thread, after rayon's join) sees them. Called once a thread's
/// part of an output is written, not after each plane (fenced after each plane,
/// f32 `[8,64,112,112]` reflect padding ran at 0.84x a copy rather than 0.94x).
#[inline(always)]
pub(crate) fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86_64 baseline.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Copies `src` into `dst` with [`copy_run`]'s inlined moves; `false`, having written
/// nothing, where their lengths differ.
#[inline(always)]
pub(crate) fn copy_moves(dst: &mut [u8], src: &[u8]) -> bool {
    if dst.len() != src.len() {
        return false;
    }
    // SAFETY: `src` is valid for reads and `dst` for writes of `dst.len()` bytes (their
    // common length); they do not overlap (`dst` is borrowed mutably).
    unsafe { copy_run(src.as_ptr(), dst.as_mut_ptr(), dst.len()) };
    true
}

/// Copies `n` bytes from `s` to `d` as 64-byte moves, the last one overlapping its
/// predecessor (`memcpy` below 64 bytes). (Unrolling runs of up to 8 moves, chosen by
/// a jump on their count, measured the same.)
///
/// # Safety
/// `s` must be valid for reads and `d` for writes of `n` bytes; they must not overlap.
#[inline(always)]
unsafe fn copy_run(s: *const u8, d: *mut u8, n: usize) {
    // SAFETY: every move reads and writes 64 bytes at an offset `k` with
    // `k + 64 <= n`, inside the ranges the caller vouches for.
    unsafe {
        if n < 64 {
            std::ptr::copy_nonoverlapping(s, d, n);
            return;
        }
        let mut k = 0;
        while k + 64 <= n {
            move64(s.add(k), d.add(k));
            k += 64;
        }
        if !n.is_multiple_of(64) {
            move64(s.add(n - 64), d.add(n - 64));
        }
    }
}

/// Moves 64 bytes from `s` to `d`, as two 32-byte moves in address order (as one
/// 64-byte move the compiler stored the upper half first; storing in order was 3-4%
/// faster on f32 `[8,64,112,112]` reflect padding by 3).
///
/// # Safety
/// `s` must be valid for reads and `d` for writes of 64 bytes.
#[inline(always)]
unsafe fn move64(s: *const u8, d: *mut u8) {
    type Half = [u8; 32];
    // SAFETY: as the caller vouches; unaligned reads and writes.
    unsafe {
        std::ptr::write_unaligned(d.cast::<Half>(), std::ptr::read_unaligned(s.cast::<Half>()));
        let (s, d) = (s.add(32), d.add(32));
        std::ptr::write_unaligned(d.cast::<Half>(), std::ptr::read_unaligned(s.cast::<Half>()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edges of rows of 24 bytes from input rows of 20 (the copy of input bytes 0..20
    /// to 2..22): the first two bytes from input bytes 18, 19 (window a), the last two
    /// the constant 7; window b holds the copy's bytes.
    fn edges(ssse3: Ssse3) -> Edges {
        let none = Blend16::NONE;
        let blank = Blend16 {
            a: [none; 16],
            b: [none; 16],
            fill: [0; 16],
        };
        let (mut left, mut right) = (blank, blank);
        left.a[..2].copy_from_slice(&[14, 15]);
        for i in 2..16 {
            left.b[i] = i as u8 - 2;
        }
        for i in 0..14 {
            right.b[i] = i as u8 + 2;
        }
        right.fill[14..].copy_from_slice(&[7, 7]);
        Edges {
            ssse3,
            left: [4, 0],
            right: [4, 4],
            left_blend: left,
            right_blend: right,
        }
    }

    fn plane<'a>(
        src: &'a [u8],
        rows: &'a RowMap,
        fill_row: &'a [u8],
        ends: Ends<'a>,
    ) -> CopyPlane<'a> {
        CopyPlane {
            src,
            base: 0,
            stride: 20,
            rows,
            range: 0..rows.rows().len(),
            in_row: 20,
            out_row: 24,
            fill_row,
            copy_at: 2,
            copy_from: 0,
            copy_len: 20,
            ends,
            ahead: &[],
        }
    }

    /// Planes whose input spans `PREFETCH_PLANE_MIN` bytes or more, in rows of
    /// `PREFETCH_ROW_MIN` or more, take the staged loop that prefetches ahead (its own
    /// copy of the loop): written whole or in parts (a thread's share), staged or not,
    /// they are the same, and the prefetches past the input's end change nothing.
    #[test]
    fn copy_plane_reading_ahead() {
        const ROW: usize = 260;
        let src: Vec<u8> = (0..1001 * ROW).map(|i| (i % 251) as u8).collect();
        let rows = RowMap::new(
            (0..512u32)
                .map(|k| match k % 4 {
                    0 => 1000,
                    1 => RowMap::CONSTANT,
                    _ => k * 7 % 1001,
                })
                .collect(),
        );
        let Some(ssse3) = Ssse3::detect() else {
            return;
        };
        let e = edges(ssse3);
        let (fill_row, open_fill) = ([9u8; ROW + 4], [9u8; ROW]);
        let planes = [
            wide_plane(&src, &rows, &fill_row, (ROW, 2), Ends::Blend(&e)),
            wide_plane(&src, &rows, &fill_row, (ROW, 2), Ends::Fill),
            wide_plane(&src, &rows, &open_fill, (ROW, 0), Ends::Open),
        ];
        let mut stage = Stage::new();
        for whole in planes {
            assert!(whole.reads_ahead() && whole.streams(), "{:?}", whole.ends);
            let len = 512 * whole.out_row;
            let mut want = vec![0xAAu8; len];
            assert!(copy_plane(&whole, None, &mut want));
            assert_eq!(want[whole.out_row..2 * whole.out_row], *whole.fill_row);
            for (range, lead) in [(0..512, 0), (0..512, 37), (100..400, 5), (450..512, 63)] {
                let part = CopyPlane {
                    range: range.clone(),
                    ..whole
                };
                let n = range.len() * whole.out_row;
                let mut buf = vec![0xAAu8; n + 128];
                let at = buf.as_ptr().align_offset(64) + lead;
                assert!(copy_plane(&part, Some(&mut stage), &mut buf[at..at + n]));
                let w = &want[range.start * whole.out_row..range.end * whole.out_row];
                assert_eq!(
                    &buf[at..at + n],
                    w,
                    "{:?} {range:?} lead {lead}",
                    whole.ends
                );
                assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
            }
        }
        // Shorter rows, or a smaller plane, keep the loop without.
        let short = plane(&src, &rows, &fill_row[..24], Ends::Fill);
        assert!(short.plane_in() >= PREFETCH_PLANE_MIN && !short.reads_ahead());
        let few = RowMap::new(vec![0, 1, 2]);
        let small = wide_plane(&src, &few, &fill_row, (ROW, 2), Ends::Fill);
        assert!(small.in_row >= PREFETCH_ROW_MIN && !small.reads_ahead());
    }

    /// A row stored around the cache is the row, at any alignment and width (16-byte
    /// aligned multiples of 16 take the non-temporal stores).
    #[test]
    fn rows_stored_around_the_cache() {
        fn check<const W: usize>() {
            let v: [u8; W] = std::array::from_fn(|i| i as u8 + 1);
            let mut buf = vec![0u8; W + 64];
            for at in 0..32 {
                let base = buf.as_ptr().align_offset(16) + at;
                buf.fill(0);
                store_around_cache(&mut buf[base..base + W], &v);
                stream_fence();
                assert_eq!(buf[base..base + W], v, "{W} at {at}");
                assert!(buf[..base].iter().chain(&buf[base + W..]).all(|&b| b == 0));
            }
        }
        check::<8>();
        check::<16>();
        check::<32>();
        check::<64>();
    }

    /// A plane of input rows of `row` bytes, each copied whole to `copy_at` in an
    /// output row as long as `fill_row`.
    fn wide_plane<'a>(
        src: &'a [u8],
        rows: &'a RowMap,
        fill_row: &'a [u8],
        (row, copy_at): (usize, usize),
        ends: Ends<'a>,
    ) -> CopyPlane<'a> {
        CopyPlane {
            stride: row,
            in_row: row,
            out_row: fill_row.len(),
            copy_at,
            copy_len: row,
            ..plane(src, rows, fill_row, ends)
        }
    }

    /// Both line movers of `stream_copy` (the SSE2 one runs only on CPUs without
    /// AVX, so `long_runs_streamed` does not reach it here): lines from an unaligned
    /// source, the bytes around them untouched.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn stream_lines_both_widths() {
        let src: Vec<u8> = (0..64 * 5 + 1).map(|i| (i * 7 % 251) as u8).collect();
        let mut movers: Vec<unsafe fn(*const u8, *mut u8, usize)> = vec![stream_lines_sse2];
        if std::is_x86_feature_detected!("avx") {
            movers.push(stream_lines_avx);
        }
        for mover in movers {
            let mut buf = vec![0xAAu8; 64 * 8];
            let at = buf.as_ptr().align_offset(64);
            // SAFETY: the source's bytes 1..321 and the buffer's aligned bytes at..at +
            // 320 (inside its 512) are valid, distinct; AVX was detected for that
            // mover.
            unsafe { mover(src.as_ptr().add(1), buf.as_mut_ptr().add(at), 5) };
            assert_eq!(buf[at..at + 320], src[1..]);
            assert!(buf[..at].iter().chain(&buf[at + 320..]).all(|&b| b == 0xAA));
        }
    }

    /// A plane written through the staging buffer (where the CPU has AVX2) equals
    /// the plane written directly, wherever the output starts within a line; planes
    /// whose rows leave bytes unwritten, or too short, are not staged.
    #[test]
    fn copy_plane_streamed_equals_direct() {
        let src: Vec<u8> = (0..60).collect();
        let fill_row = [9u8; 24];
        let rows = RowMap::new(
            (0..512)
                .map(|k| [2, RowMap::CONSTANT, 0, 1][k % 4])
                .collect(),
        );
        let Some(ssse3) = Ssse3::detect() else {
            return;
        };
        let e = edges(ssse3);
        let mut p = plane(&src, &rows, &fill_row, Ends::Blend(&e));
        assert!(p.streams());
        let len = 512 * 24;
        let mut want = vec![0xAAu8; len];
        assert!(copy_plane(&p, None, &mut want));
        let mut stage = Stage::new();
        for lead in 0..64 {
            let mut buf = vec![0xAAu8; len + 128];
            let at = buf.as_ptr().align_offset(64) + lead;
            assert!(copy_plane(&p, Some(&mut stage), &mut buf[at..at + len]));
            assert_eq!(buf[at..at + len], want[..], "lead {lead}");
            assert!(buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0xAA));
        }
        // Lines to prefetch (hints: the output is the same): fewer than the rows, and
        // more (the surplus prefetched as the plane starts).
        let lines: Vec<usize> = (0..600).map(|k| src.as_ptr() as usize + k * 64).collect();
        for n in [0, 5, 504, 505, 600] {
            p.ahead = &lines[..n];
            let mut buf = vec![0xAAu8; len];
            assert!(copy_plane(&p, Some(&mut stage), &mut buf));
            assert_eq!(buf, want, "{n} lines ahead");
        }
        p.ahead = &[];
        // The constant before and after the copy, directly and staged.
        let fill_ends = plane(&src, &rows, &fill_row, Ends::Fill);
        assert!(fill_ends.streams());
        let mut direct = vec![0xAAu8; len];
        assert!(copy_plane(&fill_ends, None, &mut direct));
        let mut row1 = vec![9u8, 9];
        row1.extend(20..40);
        row1.extend([9, 9]);
        assert_eq!(direct[72..96], row1[..]);
        let mut buf = vec![0xAAu8; len + 64];
        assert!(copy_plane(
            &fill_ends,
            Some(&mut stage),
            &mut buf[5..5 + len]
        ));
        assert_eq!(buf[5..5 + len], direct[..]);
        // Rows longer than STAGE_ROW_MAX: their whole lines inside the copy straight
        // from the input; with the constant around the copy, or nothing (the bytes
        // around it then untouched).
        let long_src: Vec<u8> = (0..3 * 2100).map(|i| (i % 251) as u8).collect();
        let long_fill = vec![7u8; 2110];
        let long_rows = RowMap::new(vec![2, RowMap::CONSTANT, 0, 1]);
        for ends in [Ends::Fill, Ends::Open] {
            let long = wide_plane(&long_src, &long_rows, &long_fill, (2100, 5), ends);
            let n = 4 * 2110;
            let mut want = vec![0xAAu8; n];
            assert!(copy_plane(&long, None, &mut want));
            assert_eq!(want[2110 * 3 + 5..2110 * 4 - 5], long_src[2100..4200]);
            for lead in 0..64 {
                let mut buf = vec![0xAAu8; n + 128];
                let at = buf.as_ptr().align_offset(64) + lead;
                assert!(copy_plane(&long, Some(&mut stage), &mut buf[at..at + n]));
                assert_eq!(buf[at..at + n], want[..], "{ends:?} lead {lead}");
                assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
            }
        }
        // Single elements around the copy, one by one (`copy_plane_picks`): each row's
        // first two bytes from its input bytes 10 and 11 (one 2-byte element), its
        // last two from 0 and 1; the same with or without streaming (short rows are
        // never staged).
        let picks = Picks {
            size: 2,
            at: vec![(0, 10), (22, 0)],
        };
        let pk = plane(&src, &rows, &fill_row, Ends::Open);
        let mut direct = vec![0xAAu8; len];
        assert!(copy_plane_picks(&pk, &picks, false, &mut direct));
        let mut row1 = vec![30u8, 31];
        row1.extend(20..40);
        row1.extend([20, 21]);
        assert_eq!(direct[72..96], row1[..]);
        assert_eq!(direct[24..48], fill_row[..]);
        let mut buf = vec![0xAAu8; len + 64];
        assert!(copy_plane_picks(&pk, &picks, true, &mut buf[7..7 + len]));
        assert_eq!(buf[7..7 + len], direct[..]);
        // Long rows: their whole lines inside the copy around the cache, at every
        // offset; elements outside a row, of a size without a loop, or ends other
        // than `Open` are refused, nothing written.
        let long_picks = Picks {
            size: 4,
            at: vec![(0, 8), (2104, 100)],
        };
        let mut long = wide_plane(
            &long_src,
            &long_rows,
            &long_fill[..2108],
            (2100, 4),
            Ends::Open,
        );
        let n = 4 * 2108;
        let mut want = vec![0xAAu8; n];
        assert!(copy_plane_picks(&long, &long_picks, false, &mut want));
        assert_eq!(want[..4], long_src[4200 + 8..4200 + 12]);
        assert_eq!(want[4..2104], long_src[4200..6300]);
        assert_eq!(want[2104..2108], long_src[4200 + 100..4200 + 104]);
        assert_eq!(want[2108..4216], long_fill[..2108]);
        for lead in 0..64 {
            let mut buf = vec![0xAAu8; n + 128];
            let at = buf.as_ptr().align_offset(64) + lead;
            assert!(copy_plane_picks(
                &long,
                &long_picks,
                true,
                &mut buf[at..at + n]
            ));
            assert_eq!(buf[at..at + n], want[..], "picks lead {lead}");
            assert!(buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0xAA));
        }
        let bads = [(4, (2105, 0)), (4, (0, 2097)), (5, (0, 0))];
        for (size, at) in bads {
            let bad = Picks { size, at: vec![at] };
            let mut buf = vec![0xAAu8; n];
            assert!(!copy_plane_picks(&long, &bad, true, &mut buf));
            assert!(buf.iter().all(|&b| b == 0xAA));
        }
        long.ends = Ends::Fill;
        let mut buf = vec![0xAAu8; n];
        assert!(!copy_plane_picks(&long, &long_picks, true, &mut buf));
        assert!(buf.iter().all(|&b| b == 0xAA));
        // A copy that leaves bytes between it and the blends, no blends around a
        // partial copy, a plane under STAGE_PLANE_MIN bytes: written directly.
        p.copy_at = 17;
        assert!(!p.streams());
        let mut p = plane(&src, &rows, &fill_row, Ends::Open);
        assert!(!p.streams());
        let short = RowMap::new(vec![0; 42]);
        (p.rows, p.range, p.copy_at, p.copy_len, p.out_row) = (&short, 0..42, 0, 20, 20);
        assert!(!p.streams());
    }

    #[test]
    fn copy_plane_rows_and_limits() {
        let src: Vec<u8> = (0..60).collect();
        let fill_row = [9u8; 24];
        let rows = RowMap::new(vec![2, RowMap::CONSTANT, 0]);
        // Without edges: the copy alone, the bytes around it untouched.
        let mut out = [0xAAu8; 72];
        assert!(copy_plane(
            &plane(&src, &rows, &fill_row, Ends::Open),
            None,
            &mut out
        ));
        let row = |r: u8, left: [u8; 2], right: [u8; 2]| {
            let mut v = left.to_vec();
            v.extend(r * 20..r * 20 + 20);
            v.extend(right);
            v
        };
        assert_eq!(out[..24], row(2, [0xAA; 2], [0xAA; 2])[..]);
        assert_eq!(out[24..48], fill_row);
        assert_eq!(out[48..], row(0, [0xAA; 2], [0xAA; 2])[..]);
        let Some(ssse3) = Ssse3::detect() else {
            return;
        };
        let e = edges(ssse3);
        let mut out = [0xAAu8; 72];
        assert!(copy_plane(
            &plane(&src, &rows, &fill_row, Ends::Blend(&e)),
            None,
            &mut out
        ));
        assert_eq!(out[..24], row(2, [58, 59], [7, 7])[..]);
        assert_eq!(out[24..48], fill_row);
        assert_eq!(out[48..], row(0, [18, 19], [7, 7])[..]);
        // Every read or write that would leave its slice is refused, nothing written.
        let past_input = RowMap::new(vec![3]);
        let mut bad = vec![plane(&src, &past_input, &fill_row, Ends::Open)];
        let mut p = plane(&src, &rows, &fill_row, Ends::Open);
        p.base = 1;
        bad.push(p);
        let mut p = plane(&src, &rows, &fill_row, Ends::Open);
        p.stride = usize::MAX / 2;
        bad.push(p);
        let mut p = plane(&src, &rows, &fill_row, Ends::Open);
        p.copy_len = 21;
        bad.push(p);
        let mut p = plane(&src, &rows, &fill_row, Ends::Open);
        p.copy_at = 5;
        bad.push(p);
        bad.push(plane(&src, &rows, &fill_row[..23], Ends::Open));
        let mut far = e;
        far.right[1] = 5;
        bad.push(plane(&src, &rows, &fill_row, Ends::Blend(&far)));
        let mut huge = e;
        huge.left[0] = usize::MAX;
        bad.push(plane(&src, &rows, &fill_row, Ends::Blend(&huge)));
        let narrow = [9u8; 12];
        let mut p = plane(&src, &rows, &narrow, Ends::Blend(&e));
        (p.out_row, p.copy_at, p.copy_len) = (12, 0, 12);
        bad.push(p);
        for (k, p) in bad.iter().enumerate() {
            let mut out = [0xAAu8; 72];
            let len = p.range.len() * p.out_row;
            assert!(!copy_plane(p, None, &mut out[..len]), "case {k}");
            assert_eq!(out, [0xAA; 72], "case {k}");
        }
        let mut short = [0xAAu8; 71];
        assert!(!copy_plane(
            &plane(&src, &rows, &fill_row, Ends::Open),
            None,
            &mut short
        ));
    }
}
