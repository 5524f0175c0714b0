//! Helpers of the numpy front end's tests.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// An interrupt that says stop from its `stop_at`-th question on, and the count of
/// the questions asked.
pub(crate) fn counting(stop_at: usize) -> (ndpad::Interrupt, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    let interrupt =
        ndpad::Interrupt::new(move || count.fetch_add(1, Ordering::Relaxed) + 1 >= stop_at);
    (interrupt, asked)
}

/// Checks a pad on `threads` threads whose interrupt said stop at its first question
/// (`asked` questions; `stopped`: the pad said interrupted): stopped after one
/// question, or, on more than one thread, never asked and done: the calling thread
/// asks between its own parts only, and other threads may have written them all.
pub(crate) fn assert_stopped_at_first(threads: usize, asked: &AtomicUsize, stopped: bool) {
    match asked.load(Ordering::Relaxed) {
        0 if threads > 1 => assert!(!stopped, "threads {threads}: stopped unasked"),
        n => {
            assert!(stopped, "threads {threads}: asked {n} times, not stopped");
            assert_eq!(n, 1, "threads {threads}");
        }
    }
}
