//! The thread split: an output is cut into parts (whole rows where there are enough)
//! that the calling thread and rayon's threads write, or written by the calling thread
//! alone when small.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::error::PadError;
use crate::options::{Interrupt, PadOptions, Stopper};
use crate::tune::{INTERRUPT_BYTES, LINGER, MAX_THREADS, PARTS_PER_THREAD};

use super::elem::Elem;
use super::Exec;

/// Runs `exec` over `out`, in parallel when it is large enough; whole planes around
/// the cache where the output is large enough ([`PadOptions::stream_min_bytes`]) and
/// written before ([`PadOptions::output_memory`]). With [`PadOptions::interrupt`] and
/// an output over [`INTERRUPT_BYTES`], no part is over that, and the interrupt is asked
/// on the calling thread between its parts.
pub(super) fn drive<T: Elem>(
    exec: &mut Exec<'_, T>,
    out: &mut [T],
    opts: &PadOptions,
) -> Result<(), PadError> {
    let elem = std::mem::size_of::<T>().max(1);
    let bytes = out.len().saturating_mul(elem);
    exec.stream = opts.around_cache(bytes);
    let exec = &*exec;
    let threads = for_bytes(opts, bytes);
    let parts = match threads {
        1 => 1,
        t => t * PARTS_PER_THREAD,
    };
    // Whole rows to a part where there are enough, else 64-byte multiples.
    let align = (64 / elem).max(1);
    let rows = out.len() / exec.out_row;
    let mut chunk = match rows >= parts {
        true => rows.div_ceil(parts) * exec.out_row,
        false => out.len().div_ceil(parts).div_ceil(align) * align,
    };
    let interrupt = asked(opts, bytes);
    let most = INTERRUPT_BYTES / elem;
    if interrupt.is_some() && chunk > most {
        chunk = match exec.out_row <= most {
            true => most - most % exec.out_row,
            false => (most - most % align).max(align),
        };
    }
    let cpu = exec.cpu;
    share_until(
        threads,
        out.chunks_mut(chunk.max(1)).enumerate(),
        &Stopper::new(interrupt),
        |(i, c)| {
            crate::arch::with_avx2(
                cpu,
                #[inline(always)]
                || exec.run_range(i * chunk, c),
            );
            // Non-temporal stores ordered before the part is handed over.
            if exec.stream {
                crate::arch::fence();
            }
        },
    )
}

/// Runs `work` on every one of `parts` with `threads` threads (0: all cores, as
/// [`thread_count`] says; no more than there are parts): the calling thread and
/// `threads - 1` of rayon's (the current pool, of which a calling worker is one,
/// where that has enough and this is not a forked child, else a pool of their own),
/// each taking the next part when it is done with one. The calling thread starts at
/// once, so that a pool thread slow to wake (0.1-0.2 ms on a VM whose idle vCPU
/// sleeps) takes fewer parts instead of holding up the start: on the 2-core VM, 2-8
/// MiB pads with two threads took 1.2-2x the one-thread time when the caller waited
/// for the pool (docs/performance.md, "Waking the pool").
pub fn share<I>(threads: usize, parts: I, work: impl Fn(I::Item) + Sync)
where
    I: Iterator + Send,
    I::Item: Send,
{
    // Without an interrupt nothing stops it.
    let _ = share_until(threads, parts, &Stopper::new(None), work);
}

/// [`share`], with the `stopper`'s interrupt asked on the calling thread between two
/// of the parts it takes: once it says stop (there, or in a loop of the work's own),
/// no thread takes another part, and the call returns [`PadError::Interrupted`] once
/// the parts begun are done. No barrier between parts: a pad written in 64 MiB parts,
/// each shared by two threads and waited for before the next, took 1.4x as long as
/// one share of the whole (docs/performance.md, "Interrupts without barriers").
pub(crate) fn share_until<I>(
    threads: usize,
    parts: I,
    stopper: &Stopper<'_>,
    work: impl Fn(I::Item) + Sync,
) -> Result<(), PadError>
where
    I: Iterator + Send,
    I::Item: Send,
{
    let most = parts.size_hint().1.unwrap_or(usize::MAX);
    // No helper without a part to take: waiting for it to wake would cost.
    let helpers = thread_count(threads).min(most).saturating_sub(1);
    if helpers == 0 {
        // The calling thread alone, without the lock.
        let mut parts = parts;
        take_parts(|| parts.next(), &work, stopper);
    } else {
        let parts = Mutex::new(parts);
        // The lock is let go before the part is worked on.
        let next = || match stopper.stopped() {
            true => None,
            false => parts.lock().unwrap_or_else(PoisonError::into_inner).next(),
        };
        let run = || take_parts(next, &work, stopper);
        if !crate::os::forked() && helpers <= rayon::current_num_threads() {
            let call = CALLS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            rayon::in_place_scope(|s| with_helpers(s, helpers, &run));
            linger(helpers, call);
        } else {
            match rayon::ThreadPoolBuilder::new().num_threads(helpers).build() {
                Ok(pool) => pool.in_place_scope(|s| with_helpers(s, helpers, &run)),
                Err(_) => run(),
            }
        }
    }
    match stopper.stopped() {
        true => Err(PadError::Interrupted),
        false => Ok(()),
    }
}

/// One thread's share of the parts `next` gives, each thread checking the `stopper`
/// before each part but its first (a part taken then dropped is not written): only
/// the calling thread's check asks its interrupt, the others see the answer.
fn take_parts<T>(mut next: impl FnMut() -> Option<T>, work: &impl Fn(T), stopper: &Stopper<'_>) {
    let mut first = true;
    while let Some(part) = next() {
        if !first && stopper.check().is_err() {
            return;
        }
        first = false;
        work(part);
    }
}

/// The interrupt a pad of an output of `bytes` bytes asks: `opts.interrupt` where the
/// output is over [`INTERRUPT_BYTES`] (written in parts of at most that), none for
/// smaller ones (a question from Python takes the GIL).
pub(super) fn asked(opts: &PadOptions, bytes: usize) -> Option<&Interrupt> {
    opts.interrupt.as_ref().filter(|_| bytes > INTERRUPT_BYTES)
}

/// How many of `items` to a part when they are shared among `threads` threads
/// ([`share`]): four parts per thread, so that a thread finishing early takes
/// another; at least one.
pub fn part_len(threads: usize, items: usize) -> usize {
    items
        .div_ceil(thread_count(threads).saturating_mul(PARTS_PER_THREAD))
        .max(1)
}

/// [`share`] for work with a result, stopped by the `stopper` ([`Stopper`]: asked by
/// the calling thread between its parts): the result of each part taken, in the
/// order of `parts` (all of them unless it stopped).
pub fn share_map<I, R>(
    threads: usize,
    parts: I,
    stopper: &Stopper<'_>,
    work: impl Fn(I::Item) -> R + Sync,
) -> Vec<R>
where
    I: Iterator + Send,
    I::Item: Send,
    R: Send,
{
    let done = Mutex::new(Vec::new());
    let _ = share_until(threads, parts.enumerate(), stopper, |(k, part)| {
        let r = work(part);
        done.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((k, r));
    });
    let mut done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
    done.sort_unstable_by_key(|&(k, _)| k);
    done.into_iter().map(|(_, r)| r).collect()
}

/// [`share_map`] for work that can fail: [`PadError::Interrupted`] where the
/// `stopper` stopped, else the first error in the order of `parts`.
pub(super) fn try_share<I>(
    threads: usize,
    parts: I,
    stopper: &Stopper<'_>,
    work: impl Fn(I::Item) -> Result<(), PadError> + Sync,
) -> Result<(), PadError>
where
    I: Iterator + Send,
    I::Item: Send,
{
    let done = share_map(threads, parts, stopper, work);
    match stopper.stopped() {
        true => Err(PadError::Interrupted),
        false => done.into_iter().collect(),
    }
}

/// The `share` calls made on rayon's pool so far: a lingering thread leaves when it
/// changes.
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// rayon's threads lingering now.
static LINGERING: AtomicUsize = AtomicUsize::new(0);

/// Keeps `helpers` of rayon's threads awake for [`LINGER`] after `share` call number
/// `call`, each leaving as soon as another call starts (its parts are then queued for
/// them), so that a loop of pads finds its helpers awake: one asleep waits for its
/// vCPU on a VM, and a Python loop's two-thread pads ran at one thread's speed
/// (docs/performance.md, "Waking the pool"). Rayon work queued meanwhile waits at
/// most [`LINGER`]. Not from inside rayon's pool (its threads are busy there), and not
/// under Miri (a loop on the clock).
fn linger(helpers: usize, call: usize) {
    if cfg!(miri) || rayon::current_thread_index().is_some() {
        return;
    }
    for _ in 0..helpers {
        if LINGERING.fetch_add(1, Ordering::Relaxed) >= helpers {
            LINGERING.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        rayon::spawn(move || {
            let start = Instant::now();
            while CALLS.load(Ordering::Relaxed) == call && start.elapsed() < LINGER {
                std::hint::spin_loop();
            }
            LINGERING.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

/// Runs `run` on `helpers` threads of the scope's pool and on the calling thread.
fn with_helpers<'s>(s: &rayon::Scope<'s>, helpers: usize, run: &'s (impl Fn() + Sync)) {
    for _ in 0..helpers {
        s.spawn(move |_| run());
    }
    run();
}

/// The threads an output of `bytes` bytes is written by: `opts.threads`, at most one
/// per [`PadOptions::parallel_threshold`] bytes, at least one (the calling thread).
pub fn for_bytes(opts: &PadOptions, bytes: usize) -> usize {
    let threads = thread_count(opts.threads);
    match opts.parallel_threshold {
        0 => threads,
        least => threads.min(bytes / least).max(1),
    }
}

/// The threads a caller's `threads` asks for: 0 = all of rayon's, at most
/// `tune::MAX_THREADS` (1024).
pub fn thread_count(threads: usize) -> usize {
    // Watched for forks from the first use of rayon's global pool on (`share`).
    crate::os::forked();
    match threads {
        0 => rayon::current_num_threads(),
        t => t.min(MAX_THREADS),
    }
}
