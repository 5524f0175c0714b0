//! Calls into the operating system's memory manager: a fallible zeroed allocation (a
//! large one comes straight from the OS, untouched) and transparent-huge-page advice
//! for large fresh outputs.

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

/// A zeroed buffer of `len` bytes for an output, as [`crate::pad`] allocates one:
/// untouched pages from the OS, advised to use transparent huge pages when at least
/// 4 MiB long (`tune::HUGE_PAGE_ADVICE_BYTES`). `None` when it cannot be allocated.
pub fn output_buffer(len: usize) -> Option<Vec<u8>> {
    let mut b = try_zeroed(len)?;
    if b.len() >= crate::tune::HUGE_PAGE_ADVICE_BYTES {
        advise_huge_pages(&mut b);
    }
    Some(b)
}
