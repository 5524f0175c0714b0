//! Calls into the operating system's memory manager: a fallible zeroed allocation (a
//! large one comes straight from the OS, untouched), an uninitialized one written
//! whole by the kernel, and transparent-huge-page advice for large fresh outputs.

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

/// A buffer of `len` bytes, allocated uninitialized (no clearing pass: reused heap
/// memory stays as it is, hot in the cache), filled by `write`, which must write every
/// byte of the slice it is given and read none it has not written (the kernel's
/// contract for outputs of [`crate::OutputMemory::Written`]). `None` when the
/// allocator refuses; `Some(Err)` when `write` fails (the buffer is freed).
pub(crate) fn written_buffer<E>(
    len: usize,
    write: impl FnOnce(&mut [u8]) -> Result<(), E>,
) -> Option<Result<Vec<u8>, E>> {
    let mut b: Vec<u8> = Vec::new();
    b.try_reserve_exact(len).ok()?;
    // SAFETY: the Vec's spare capacity holds at least `len` bytes (reserved above),
    // valid for writes and owned by `b` alone while `bytes` lives. The slice covers
    // memory not yet initialized: `write` only writes it (and reads what it wrote),
    // by its contract, so no uninitialized byte is ever read.
    let bytes = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr(), len) };
    if let Err(e) = write(bytes) {
        return Some(Err(e));
    }
    // SAFETY: `write` succeeded, so all `len` bytes are initialized; `len` is within
    // the capacity.
    unsafe { b.set_len(len) };
    Some(Ok(b))
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
