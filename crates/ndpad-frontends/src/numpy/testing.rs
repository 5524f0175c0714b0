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
