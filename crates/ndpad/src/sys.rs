//! The crate's only `unsafe` code: huge-page advice for large fresh outputs, which
//! measurably cuts the page-fault cost of a new buffer (see the README's performance
//! section), a fallible zeroed allocation, and the call of the kernel compiled for
//! AVX2 once the CPU is known to have it.

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
