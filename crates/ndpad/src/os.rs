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

/// A vector of `len` zeroed elements, or `None` when the allocator refuses (instead
/// of aborting the process as `vec![0; len]` does) or `len` elements overflow. Zeroed
/// memory from the allocator is not written by it: a large buffer comes straight
/// from the OS, untouched (the OS's zero pages until written).
pub fn zeroed_vec<T: bytemuck::Zeroable>(len: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(len).ok()?;
    if layout.size() == 0 {
        // Nothing to allocate: no elements, or elements of no size.
        return Some(std::iter::repeat_with(T::zeroed).take(len).collect());
    }
    // SAFETY: `layout` has a non-zero size (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of
    // `[T; len]`, exactly what `Vec<T>` with capacity `len` deallocates with; all
    // `len` elements are initialized: zero bytes, a valid `T` (`Zeroable`); the Vec
    // takes sole ownership.
    Some(unsafe { Vec::from_raw_parts(ptr.cast::<T>(), len, len) })
}

/// A buffer of `len` elements (bytes of an output, a string tensor's spans),
/// allocated uninitialized (no clearing pass: reused heap memory stays as it is, hot
/// in the cache), filled by `write`, which must write every element of the slice it is
/// given and read none it has not written (the kernel's contract for outputs of
/// [`crate::OutputMemory::Written`]). `None` when the allocator refuses; `Some(Err)`
/// when `write` fails (the buffer is freed).
pub(crate) fn written_vec<T: bytemuck::Pod, E>(
    len: usize,
    write: impl FnOnce(&mut [T]) -> Result<(), E>,
) -> Option<Result<Vec<T>, E>> {
    let mut b: Vec<T> = Vec::new();
    b.try_reserve_exact(len).ok()?;
    // SAFETY: the Vec's spare capacity holds at least `len` elements (reserved above),
    // valid for writes and owned by `b` alone while `items` lives. The slice covers
    // memory not yet initialized: `write` only writes it (and reads what it wrote),
    // by its contract, so no uninitialized element is ever read.
    let items = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr(), len) };
    if let Err(e) = write(items) {
        return Some(Err(e));
    }
    // SAFETY: `write` succeeded, so all `len` elements are initialized; `len` is within
    // the capacity.
    unsafe { b.set_len(len) };
    Some(Ok(b))
}

/// A zeroed buffer of `len` bytes for an output, as [`crate::pad`] allocates one:
/// untouched pages from the OS, advised to use transparent huge pages when at least
/// 4 MiB long (`tune::HUGE_PAGE_ADVICE_BYTES`). `None` when it cannot be allocated.
pub fn output_buffer(len: usize) -> Option<Vec<u8>> {
    let mut b = zeroed_vec(len)?;
    if b.len() >= crate::tune::HUGE_PAGE_ADVICE_BYTES {
        advise_huge_pages(&mut b);
    }
    Some(b)
}

// ---- Fork ----

/// Set in a child process forked after `forked` was first asked.
static FORKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(all(unix, not(miri)))]
extern "C" fn note_fork() {
    FORKED.store(true, Ordering::Relaxed);
}

/// Whether this process is a child forked after the first call of this function
/// (a `pthread_atfork` handler tells): threads of the parent, as rayon's global
/// pool's, did not come along, and work sent to them would never run.
pub(crate) fn forked() -> bool {
    #[cfg(all(unix, not(miri)))]
    {
        static WATCH: std::sync::Once = std::sync::Once::new();
        WATCH.call_once(|| {
            // SAFETY: registers a handler run in the child after a fork; it only
            // stores to an atomic, which is async-signal-safe as such a handler must
            // be. The handler is a plain function, valid for the process's life.
            unsafe {
                libc::pthread_atfork(None, None, Some(note_fork));
            }
        });
    }
    FORKED.load(Ordering::Relaxed)
}

// ---- The pool of large output buffers ----

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::options::OutputMemory;
use crate::tune::{POOL_IDLE, POOL_MAX_BYTES, POOL_MIN_BYTES};

/// Bytes of a transparent huge page: pooled buffers are mapped in whole ones.
const HUGE_PAGE: usize = 2 << 20;

/// A large output buffer of pages mapped from the OS, reused across calls: when it is
/// dropped its pages go back to a bounded pool (`tune::POOL_MAX_BYTES` in all), where
/// the next buffer of the same size takes them, already faulted in, instead of mapping
/// and faulting in fresh ones; pages idle in the pool for `tune::POOL_IDLE` are
/// returned to the OS. A buffer just mapped holds zeros and was never touched
/// ([`OutputMemory::Zeroed`]: the threads that write it fault its huge pages in); a
/// reused one holds what its last owner wrote ([`OutputMemory::Written`]).
///
/// ```
/// let mut b = ndpad::PooledBuffer::new(3 << 20).unwrap();
/// assert_eq!(b.len(), 3 << 20);
/// b.as_mut_slice()[0] = 7;
/// assert_eq!(b.as_slice()[0], 7);
/// ```
pub struct PooledBuffer {
    /// The mapping's start (a huge page).
    ptr: NonNull<u8>,
    /// Where the bytes start in it (under a cache line).
    off: usize,
    len: usize,
    /// Bytes mapped: `off + len` rounded up to whole huge pages.
    cap: usize,
    memory: OutputMemory,
}

// SAFETY: a `PooledBuffer` owns its mapping alone, as a `Vec<u8>` owns its heap block;
// `&PooledBuffer` only reads it.
unsafe impl Send for PooledBuffer {}
// SAFETY: as above: shared references only read.
unsafe impl Sync for PooledBuffer {}

impl std::fmt::Debug for PooledBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PooledBuffer")
            .field("len", &self.len)
            .field("memory", &self.memory)
            .finish()
    }
}

impl PooledBuffer {
    /// Outputs at least this large (32 MiB) are worth pooling: glibc maps them afresh
    /// at every call, each page faulted in again; smaller ones often come from its
    /// freed heap memory, warm.
    pub const MIN_BYTES: usize = POOL_MIN_BYTES;

    /// A buffer of `len` bytes: one from the pool when it holds one of the same size
    /// (rounded up to 2 MiB), else freshly mapped (after returning the idle buffers
    /// to the OS, where it refused at first). `None` when the OS refuses.
    pub fn new(len: usize) -> Option<PooledBuffer> {
        PooledBuffer::with_line_offset(len, 0)
    }

    /// [`PooledBuffer::new`], its bytes starting `line_offset` (modulo 64) bytes into
    /// a cache line: where the input starts in its line, so that long copies from it
    /// move between equally aligned addresses (as between two of the allocator's
    /// blocks; a copy between lines out of step was up to 1.8x as slow here).
    pub fn with_line_offset(len: usize, line_offset: usize) -> Option<PooledBuffer> {
        let off = line_offset % 64;
        let cap = len
            .checked_add(off)?
            .max(1)
            .checked_next_multiple_of(HUGE_PAGE)?;
        if let Some(ptr) = pool_take(cap) {
            return Some(PooledBuffer {
                ptr,
                off,
                len,
                cap,
                memory: OutputMemory::Written,
            });
        }
        // Where the OS refuses (an address-space limit), the idle buffers go back first.
        let ptr = map(cap).or_else(|| {
            PooledBuffer::release_idle();
            map(cap)
        })?;
        Some(PooledBuffer {
            ptr,
            off,
            len,
            cap,
            memory: OutputMemory::Zeroed,
        })
    }

    /// What the buffer holds: [`OutputMemory::Zeroed`] when just mapped (never
    /// touched), [`OutputMemory::Written`] when reused from the pool.
    pub fn memory(&self) -> OutputMemory {
        self.memory
    }

    /// Bytes of the buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buffer's first byte, for callers that hand its memory on (it stays valid
    /// as long as the buffer lives).
    pub fn as_ptr(&self) -> *const u8 {
        self.data()
    }

    /// The buffer's first byte, to write through (while no slice of it is in use).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.data()
    }

    /// The first byte: `off` bytes into the mapping (inside it: `off < cap`).
    fn data(&self) -> *mut u8 {
        self.ptr.as_ptr().wrapping_add(self.off)
    }

    /// The buffer's bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `data()` is `off` bytes into a live mapping of `cap >= off + len`
        // bytes that this buffer owns alone; every byte is initialized (the OS zeroes new pages, a
        // reused buffer was initialized before); the borrow of `self` keeps it alive
        // and excludes writers.
        unsafe { std::slice::from_raw_parts(self.data(), self.len) }
    }

    /// The buffer's bytes, to write.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`; the mutable borrow of `self` excludes any other
        // reference to the bytes.
        unsafe { std::slice::from_raw_parts_mut(self.data(), self.len) }
    }
}

impl Drop for PooledBuffer {
    fn drop(&mut self) {
        pool_give(self.ptr, self.cap);
    }
}

/// Maps `cap` bytes (a multiple of `HUGE_PAGE`) of zeroed pages, aligned to a huge
/// page and advised to use transparent huge pages. `None` when the OS refuses.
#[cfg(all(unix, not(miri)))]
fn map(cap: usize) -> Option<NonNull<u8>> {
    let over = cap.checked_add(HUGE_PAGE)?;
    // SAFETY: an anonymous private mapping of fresh memory: no file, no address
    // asked for, so nothing existing is touched.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            over,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return None;
    }
    let start = raw as usize;
    let head = start.next_multiple_of(HUGE_PAGE) - start;
    let tail = over - head - cap;
    // SAFETY: the head [start, start + head) and the tail [start + head + cap, start +
    // over) lie inside the mapping just made, which nothing else refers to yet; what
    // stays mapped is the aligned [start + head, start + head + cap).
    unsafe {
        if head > 0 {
            libc::munmap(raw, head);
        }
        if tail > 0 {
            libc::munmap(raw.cast::<u8>().add(head + cap).cast(), tail);
        }
        #[cfg(target_os = "linux")]
        libc::madvise(raw.cast::<u8>().add(head).cast(), cap, libc::MADV_HUGEPAGE);
        NonNull::new(raw.cast::<u8>().add(head))
    }
}

/// Returns a mapping made by `map` to the OS.
#[cfg(all(unix, not(miri)))]
fn unmap(ptr: NonNull<u8>, cap: usize) {
    // SAFETY: `ptr` and `cap` are a mapping made by `map`, owned by the caller, which
    // gives it up here; nothing refers to it afterwards.
    unsafe {
        libc::munmap(ptr.as_ptr().cast(), cap);
    }
}

/// Elsewhere (and under Miri) a zeroed heap block aligned to a page stands in for a
/// mapping.
#[cfg(not(all(unix, not(miri))))]
fn map(cap: usize) -> Option<NonNull<u8>> {
    let layout = std::alloc::Layout::from_size_align(cap, 4096).ok()?;
    // SAFETY: `cap` is non-zero (a multiple of a huge page, at least one).
    NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
}

#[cfg(not(all(unix, not(miri))))]
fn unmap(ptr: NonNull<u8>, cap: usize) {
    if let Ok(layout) = std::alloc::Layout::from_size_align(cap, 4096) {
        // SAFETY: `ptr` was allocated by `map` with this very layout, and is given up.
        unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) }
    }
}

/// A mapping kept in the pool: its address, its bytes, and since when it is idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Idle {
    ptr: NonNull<u8>,
    cap: usize,
    since: Instant,
}

/// The pool's bookkeeping (no memory is touched here): the idle mappings, newest last.
#[derive(Debug)]
struct Shelf {
    idle: Vec<Idle>,
    bytes: usize,
}

// SAFETY: the shelf holds addresses of mappings no one else refers to while they are
// on it; whoever takes one off owns it.
unsafe impl Send for Shelf {}

impl Shelf {
    const fn new() -> Shelf {
        Shelf {
            idle: Vec::new(),
            bytes: 0,
        }
    }

    /// Takes the newest idle mapping of exactly `cap` bytes off the shelf.
    fn take(&mut self, cap: usize) -> Option<NonNull<u8>> {
        let i = self.idle.iter().rposition(|m| m.cap == cap)?;
        let m = self.idle.remove(i);
        self.bytes -= m.cap;
        Some(m.ptr)
    }

    /// Puts a mapping on the shelf, or hands it back (`Err`) when it alone exceeds
    /// `max` bytes or the shelf cannot grow; the oldest mappings are to be evicted
    /// first (`evict`) so that it fits.
    fn put(&mut self, ptr: NonNull<u8>, cap: usize, now: Instant, max: usize) -> Result<(), ()> {
        if cap > max || self.bytes.saturating_add(cap) > max || self.idle.try_reserve(1).is_err() {
            return Err(());
        }
        self.idle.push(Idle {
            ptr,
            cap,
            since: now,
        });
        self.bytes += cap;
        Ok(())
    }

    /// The oldest mapping, taken off the shelf when more than `room` bytes would be
    /// left for others (so that `room` bytes fit under the bound `max`), or when it
    /// has been idle since before `stale`.
    fn evict(
        &mut self,
        room: usize,
        max: usize,
        stale: Option<Instant>,
    ) -> Option<(NonNull<u8>, usize)> {
        let oldest = self.idle.first()?;
        let full = self.bytes.saturating_add(room) > max;
        let old = stale.is_some_and(|t| oldest.since <= t);
        if !(full || old) {
            return None;
        }
        let m = self.idle.remove(0);
        self.bytes -= m.cap;
        Some((m.ptr, m.cap))
    }
}

/// The idle mappings of this process.
static POOL: Mutex<Shelf> = Mutex::new(Shelf::new());

/// The process whose reaper thread runs (0: none): a forked child has none.
static REAPER: AtomicU32 = AtomicU32::new(0);

/// The pool, or `None` when another thread holds it (never waited for: a thread of
/// a parent process may have held it at `fork`).
fn shelf() -> Option<std::sync::MutexGuard<'static, Shelf>> {
    match POOL.try_lock() {
        Ok(s) => Some(s),
        Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

fn pool_take(cap: usize) -> Option<NonNull<u8>> {
    shelf()?.take(cap)
}

fn pool_give(ptr: NonNull<u8>, cap: usize) {
    // Under Miri no thread returns idle memory: nothing is kept.
    let max = if cfg!(miri) { 0 } else { POOL_MAX_BYTES };
    let kept = loop {
        let Some(mut s) = shelf() else {
            break false;
        };
        if cap > max {
            break false;
        }
        match s.evict(cap, max, None) {
            Some((p, c)) => {
                drop(s);
                unmap(p, c);
            }
            None => break s.put(ptr, cap, Instant::now(), max).is_ok(),
        }
    };
    if !kept {
        unmap(ptr, cap);
    } else if !start_reaper() {
        // No thread to return it when idle: not kept after all.
        if let Some(p) = shelf().and_then(|mut s| s.take(cap)) {
            unmap(p, cap);
        }
    }
}

/// Starts the thread that returns idle mappings to the OS, unless it runs in this
/// process; `false` when it could not be started.
fn start_reaper() -> bool {
    let me = std::process::id();
    let was = REAPER.load(Ordering::Acquire);
    if was == me {
        return true;
    }
    if REAPER
        .compare_exchange(was, me, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return true; // another thread of this process just started it
    }
    let started = std::thread::Builder::new()
        .name("ndpad-pool".into())
        .spawn(reap)
        .is_ok();
    if !started {
        REAPER.store(0, Ordering::Release);
    }
    started
}

/// The reaper: every half `POOL_IDLE`, returns mappings idle for `POOL_IDLE` to the
/// OS; ends when the pool is empty (the next mapping put there starts it again).
fn reap() {
    loop {
        std::thread::sleep(POOL_IDLE / 2);
        loop {
            let Some(mut s) = shelf() else { break };
            let stale = Instant::now().checked_sub(POOL_IDLE);
            let Some((p, c)) = s.evict(0, usize::MAX, stale) else {
                if s.idle.is_empty() {
                    REAPER.store(0, Ordering::Release);
                    return;
                }
                break;
            };
            drop(s);
            unmap(p, c);
        }
    }
}

impl PooledBuffer {
    /// Returns every idle pooled buffer to the OS now (as the pool does by itself
    /// after `POOL_IDLE`, 5 s): the next buffers are mapped afresh.
    pub fn release_idle() {
        while let Some((p, c)) =
            shelf().and_then(|mut s| s.evict(0, usize::MAX, Some(Instant::now())))
        {
            unmap(p, c);
        }
    }
}

/// Bytes idle in the pool now (tests, benchmarks).
#[doc(hidden)]
pub fn pooled_bytes() -> usize {
    shelf().map_or(0, |s| s.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn fake(n: usize) -> NonNull<u8> {
        NonNull::new((n * 4096) as *mut u8).unwrap()
    }

    #[test]
    fn zeroed_vec_is_zeroed_or_refused() {
        assert_eq!(zeroed_vec::<u32>(1000), Some(vec![0u32; 1000]));
        assert_eq!(zeroed_vec::<u64>(0), Some(Vec::new()));
        assert_eq!(zeroed_vec::<()>(3), Some(vec![(); 3]));
        // More than the address space: refused, not an abort (Miri stops at a
        // request it cannot serve instead).
        assert_eq!(zeroed_vec::<u64>(usize::MAX / 4), None);
        if !cfg!(miri) {
            assert_eq!(zeroed_vec::<u8>(isize::MAX as usize), None);
        }
    }

    #[test]
    fn shelf_takes_the_newest_of_the_same_size() {
        let t = Instant::now();
        let mut s = Shelf::new();
        s.put(fake(1), 4 << 20, t, 16 << 20).unwrap();
        s.put(fake(2), 2 << 20, t, 16 << 20).unwrap();
        s.put(fake(3), 4 << 20, t, 16 << 20).unwrap();
        assert_eq!(s.bytes, 10 << 20);
        assert_eq!(s.take(6 << 20), None);
        assert_eq!(s.take(4 << 20), Some(fake(3)));
        assert_eq!(s.take(4 << 20), Some(fake(1)));
        assert_eq!(s.take(4 << 20), None);
        assert_eq!(s.bytes, 2 << 20);
    }

    #[test]
    fn shelf_is_bounded_and_evicts_the_oldest() {
        let t = Instant::now();
        let mut s = Shelf::new();
        // Alone larger than the bound: refused.
        assert!(s.put(fake(1), 8 << 20, t, 4 << 20).is_err());
        s.put(fake(1), 2 << 20, t, 4 << 20).unwrap();
        s.put(fake(2), 2 << 20, t, 4 << 20).unwrap();
        assert!(s.put(fake(3), 2 << 20, t, 4 << 20).is_err());
        // Room for 2 MiB more: the oldest goes, then nothing more.
        assert_eq!(s.evict(2 << 20, 4 << 20, None), Some((fake(1), 2 << 20)));
        assert_eq!(s.evict(2 << 20, 4 << 20, None), None);
        s.put(fake(3), 2 << 20, t, 4 << 20).unwrap();
        assert_eq!(s.bytes, 4 << 20);
    }

    #[test]
    fn shelf_evicts_what_is_idle_too_long() {
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_secs(3);
        let mut s = Shelf::new();
        s.put(fake(1), 2 << 20, t0, usize::MAX).unwrap();
        s.put(fake(2), 2 << 20, t1, usize::MAX).unwrap();
        assert_eq!(s.evict(0, usize::MAX, None), None);
        assert_eq!(s.evict(0, usize::MAX, Some(t0)), Some((fake(1), 2 << 20)));
        assert_eq!(s.evict(0, usize::MAX, Some(t0)), None);
        assert_eq!(s.evict(0, usize::MAX, Some(t1)), Some((fake(2), 2 << 20)));
        assert_eq!((s.bytes, s.idle.len()), (0, 0));
        assert_eq!(s.evict(0, 0, Some(t1)), None);
    }

    #[test]
    fn pooled_buffer_is_zeroed_then_reused_dirty() {
        // A size no other test asks for (the pool is the process's).
        let len = (6 << 20) + 12345;
        let mut b = PooledBuffer::new(len).unwrap();
        assert_eq!(b.len(), len);
        assert_eq!(b.memory(), OutputMemory::Zeroed);
        assert!(b.as_slice().iter().step_by(4093).all(|&x| x == 0));
        assert_eq!(b.as_ptr() as usize % 4096, 0);
        let last = len - 1;
        b.as_mut_slice()[0] = 1;
        b.as_mut_slice()[last] = 2;
        let ptr = b.as_ptr();
        drop(b);
        let c = PooledBuffer::new(len - 1000).unwrap();
        if cfg!(miri) {
            // Nothing kept under Miri (no thread to return it).
            assert_eq!(c.memory(), OutputMemory::Zeroed);
        } else {
            // Same 2 MiB size class: the same pages, as the last owner left them.
            assert_eq!(c.memory(), OutputMemory::Written);
            assert_eq!(c.as_ptr(), ptr);
            assert_eq!(c.as_slice()[0], 1);
        }
        let e = PooledBuffer::new(0).unwrap();
        assert!(e.is_empty());
        // Placed in a line as asked, the last byte still inside the mapping.
        let mut f = PooledBuffer::with_line_offset(2 << 20, 64 + 16).unwrap();
        assert_eq!(f.as_ptr() as usize % 4096, 16);
        f.as_mut_slice()[(2 << 20) - 1] = 3;
        assert_eq!(f.as_slice()[(2 << 20) - 1], 3);
    }
}
