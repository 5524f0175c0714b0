//! The crate's only `unsafe` code: huge-page advice for large fresh outputs, which
//! measurably cuts the page-fault cost of a new buffer (see the README's performance
//! section), a fallible zeroed allocation, the call of the kernel compiled for AVX2
//! once the CPU is known to have it, and the non-temporal copy of very long runs.

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
/// become 32-byte moves: a crop of [8,64,112,112] (one thread, cache cold) went from
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
/// 288 MiB. Returns `false`, having written nothing, on other targets or lengths.
pub(crate) fn stream_copy(dst: &mut [u8], src: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
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
        for k in 0..lines {
            // SAFETY: k < lines, so the 64 bytes at k * 64 lie inside the ranges
            // `src[head..body]` and `dst[head..body]` (of lines * 64 bytes each), which
            // do not overlap (`dst` is borrowed mutably); `d` is 64-byte aligned, so
            // every `d + k * 64 + 16 * i` is 16-byte aligned as `_mm_stream_si128`
            // requires; `_mm_loadu_si128` has no alignment requirement. SSE2, which
            // these need, is part of the x86_64 baseline.
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
        // SAFETY: SSE is part of the x86_64 baseline. The fence orders the
        // non-temporal stores before any later store, so that whoever is handed the
        // output (another thread, after rayon's join) sees them.
        unsafe { _mm_sfence() };
        dst[body..].copy_from_slice(&src[body..]);
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (dst, src);
        false
    }
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
