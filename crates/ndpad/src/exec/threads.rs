//! The thread split: an output is cut into parts (whole rows where there are enough)
//! that rayon's threads write, or written by the calling thread alone when small.

use rayon::prelude::*;

use crate::tune::{MAX_THREADS, PARTS_PER_THREAD};

use super::elem::Elem;
use super::{Exec, OutputMemory, PadOptions};

/// Runs `exec` over `out`, in parallel when it is large enough; whole planes around
/// the cache where the output is large enough ([`PadOptions::stream_min_bytes`]) and
/// written before ([`PadOptions::output_memory`]).
pub(super) fn drive<T: Elem>(exec: &mut Exec<'_, T>, out: &mut [T], opts: &PadOptions) {
    let elem = std::mem::size_of::<T>().max(1);
    exec.stream = opts.output_memory == OutputMemory::Written
        && out.len().saturating_mul(elem) >= opts.stream_min_bytes;
    let exec = &*exec;
    let cpu = exec.cpu;
    let Some(threads) = split_threads(opts, out.len().saturating_mul(elem)) else {
        crate::arch::with_avx2(
            cpu,
            #[inline(always)]
            || exec.run_range(0, out),
        );
        if exec.stream {
            crate::arch::fence();
        }
        return;
    };
    let parts = threads * PARTS_PER_THREAD;
    let rows = exec.walk.rows();
    let chunk = if rows >= parts {
        rows.div_ceil(parts) * exec.out_row
    } else {
        let align = (64 / elem).max(1);
        out.len().div_ceil(parts).div_ceil(align) * align
    };
    with_threads(threads, || {
        out.par_chunks_mut(chunk.max(1))
            .enumerate()
            .for_each(|(i, c)| {
                crate::arch::with_avx2(
                    cpu,
                    #[inline(always)]
                    || exec.run_range(i * chunk, c),
                );
                // Non-temporal stores ordered before the part is handed over.
                if exec.stream {
                    crate::arch::fence();
                }
            });
    });
}

/// The threads to split an output of `bytes` bytes among, or `None` when the calling
/// thread writes it alone (one thread asked for, or a small output).
pub(super) fn split_threads(opts: &PadOptions, bytes: usize) -> Option<usize> {
    let threads = thread_count(opts.threads);
    (threads > 1 && bytes >= opts.parallel_threshold).then_some(threads)
}

/// The threads a caller's `threads` asks for: 0 = all of rayon's, at most
/// [`MAX_THREADS`].
pub(crate) fn thread_count(threads: usize) -> usize {
    match threads {
        0 => rayon::current_num_threads(),
        t => t.min(MAX_THREADS),
    }
}

/// Runs `work`, which splits itself with rayon, on `threads` threads: in rayon's
/// global pool when that has as many, else in a pool of its own (or the global one
/// when no new pool can be had).
pub(crate) fn with_threads<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> R {
    if threads == rayon::current_num_threads() {
        return work();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}
