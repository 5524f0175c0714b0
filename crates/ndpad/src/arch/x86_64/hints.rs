//! Prefetch hints: lines asked for into the first or second level, or owned for
//! writing (`PREFETCHW`, where the CPU has it), and the detection of the last.

use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};

/// Whether CPUID's vendor string (leaf 0) is AMD's, "AuthenticAMD".
pub(crate) fn is_amd() -> bool {
    if cfg!(miri) {
        return false;
    }
    // SAFETY: CPUID exists on every x86_64 CPU, and leaf 0 on every one. (A safe
    // function in recent Rust: the block is for older ones.)
    #[allow(unused_unsafe)]
    let id = unsafe { std::arch::x86_64::__cpuid(0) };
    // The vendor string's 12 bytes are EBX, EDX, ECX: "Auth", "enti", "cAMD".
    (id.ebx, id.edx, id.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
}

/// Asks the CPU to bring the 64-byte line holding `p` into its first-level cache. A
/// hint: any address may be given (it is not dereferenced, and a prefetch never
/// faults).
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    // SAFETY: PREFETCHT0 reads no memory into the program and cannot fault, whatever
    // the address; SSE is part of the x86_64 baseline.
    unsafe { _mm_prefetch::<{ _MM_HINT_T0 }>(p.cast()) };
}

/// Asks the CPU to bring the 64-byte line holding `p` into its first-level cache,
/// owned for writing (`PREFETCHW`). A hint, as [`prefetch`]; only where the CPU has
/// it (`WriteAhead`).
#[inline(always)]
pub(crate) fn prefetch_write(p: *const u8) {
    // SAFETY: PREFETCHW reads no memory into the program and cannot fault, whatever
    // the address; its only caller holds a `WriteAhead`, made only where the CPU has
    // it (`has_prefetchw`). Miri cannot run inline assembly: there it is left out.
    #[cfg(not(miri))]
    unsafe {
        std::arch::asm!("prefetchw [{}]", in(reg) p, options(nostack, preserves_flags, readonly));
    }
    #[cfg(miri)]
    let _ = p;
}

/// Whether the CPU has `PREFETCHW`: CPUID's extended leaf 0x8000_0001, ECX bit 8
/// (`PRFCHW`; Intel since Broadwell, AMD since the K6-2), which `std` does not
/// detect.
pub(crate) fn has_prefetchw() -> bool {
    if cfg!(miri) {
        return false;
    }
    // SAFETY: CPUID exists on every x86_64 CPU, and no leaf beyond leaf 0x8000_0000's
    // EAX is asked for. (A safe function in recent Rust: the block is for older ones.)
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::__cpuid;
        __cpuid(0x8000_0000).eax >= 0x8000_0001 && __cpuid(0x8000_0001).ecx & (1 << 8) != 0
    }
}

/// Asks the CPU to bring the 64-byte line holding `p` into its second-level cache:
/// input read far ahead (`READ_AHEAD`, the next plane after a gap). A line
/// prefetched to the first level holds one of its few fill buffers until it arrives,
/// which non-temporal stores need too: cold pads that stream their output ran 6-11%
/// faster this way (Intel Xeon VM; docs/performance.md). A hint, as [`prefetch`].
#[inline(always)]
pub(crate) fn read_ahead(p: *const u8) {
    // SAFETY: PREFETCHT1 reads no memory into the program and cannot fault, whatever
    // the address; SSE is part of the x86_64 baseline.
    unsafe { _mm_prefetch::<{ _MM_HINT_T1 }>(p.cast()) };
}
