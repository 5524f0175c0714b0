//! How a pad runs: [`PadOptions`] (threads, output limit, how the output is written,
//! interruption) and the choices in it ([`OutputMemory`], [`Interrupt`], and for tests
//! [`KernelName`]). Plain configuration: nothing here knows the plan or the executor
//! that read it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::tune::{INTERRUPT_BYTES, PARALLEL_MIN_BYTES};

/// What an output's memory holds before the pad ([`PadOptions::output_memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMemory {
    /// Written before, or not known: outputs of at least
    /// [`PadOptions::stream_min_bytes`] are written around the cache where they can.
    #[default]
    Written,
    /// Just allocated and never written: the OS zeroes each page as it is first
    /// touched, which leaves it in the cache, so the output is written through the
    /// cache (around it, the zeroed lines went to memory as well: a fresh 64 MiB pad
    /// took 1.4x as long; `docs/performance.md`).
    Fresh,
    /// Fresh, and every byte zero (a zeroing allocation: `calloc`, `numpy.zeros`):
    /// whole rows of a zero constant are not written at all (pages never touched stay
    /// the OS's zero pages, as `numpy.zeros` leaves them).
    Zeroed,
}

/// A question asked on the calling thread between parts of a long pad: `true` stops
/// the pad with [`PadError::Interrupted`](crate::PadError::Interrupted), the output
/// then partly written. The CLI asks whether SIGINT or SIGTERM arrived; the Python
/// package lets Python run its signal handlers (Ctrl-C). Parts are at most 16 MiB of
/// output (`tune::INTERRUPT_BYTES`); the other threads write on while it is asked.
#[derive(Clone)]
pub struct Interrupt(Arc<dyn Fn() -> bool + Send + Sync>);

impl Interrupt {
    /// `asked` is called between parts of a pad; `true` stops it.
    pub fn new(asked: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        Interrupt(Arc::new(asked))
    }

    /// Whether the pad is to stop now.
    pub fn requested(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Interrupt(..)")
    }
}

/// An [`Interrupt`]'s answer, shared by the threads of one pad: asked only on the
/// thread that made the stopper (the one Python's signal handlers run on), between
/// the parts that thread takes ([`threads::share_map`](crate::threads::share_map)) and
/// by its [`Ticker`]s in loops of its own; every thread sees the answer. A stopper
/// that said stop stays stopped (the question is not asked again: a signal is
/// answered once).
#[derive(Debug)]
pub struct Stopper<'a> {
    interrupt: Option<&'a Interrupt>,
    /// The thread that asks (none without an interrupt: nothing to ask).
    caller: Option<std::thread::ThreadId>,
    stopped: AtomicBool,
    /// Work that the calling thread's tickers dropped before their next check, for
    /// its next ticker.
    carried: AtomicUsize,
}

impl<'a> Stopper<'a> {
    /// The work (bytes read or written) between two checks of a [`Ticker`], for loops
    /// that cut their work into pieces of about that size.
    pub const CHECK_BYTES: usize = INTERRUPT_BYTES;

    /// A stopper asking `interrupt` (none: never stops) on the calling thread.
    pub fn new(interrupt: Option<&'a Interrupt>) -> Self {
        Stopper {
            interrupt,
            caller: interrupt.map(|_| std::thread::current().id()),
            stopped: AtomicBool::new(false),
            carried: AtomicUsize::new(0),
        }
    }

    /// A counter of one loop's work (on any thread) that checks this stopper. On the
    /// calling thread, the work a ticker counts and has not checked for when dropped
    /// is carried to its next one (loops over parts smaller than 16 MiB still ask);
    /// other threads' tickers only look at the answer, their work not counted towards
    /// a question (a helper that took the caller's carried count crossed 16 MiB and
    /// checked without asking, the count lost to the caller).
    pub fn ticker(&self) -> Ticker<'_> {
        let asks = self.on_caller();
        Ticker {
            stopper: self,
            asks,
            since: match asks {
                true => self.carried.swap(0, Ordering::Relaxed),
                false => 0,
            },
        }
    }

    /// How many of `items`, each `item_bytes` of work, make a part where `threads`
    /// share them ([`crate::threads::part_len`]): at most [`Stopper::CHECK_BYTES`] of
    /// work where there is an interrupt, so that once the calling thread (which alone
    /// asks it) has no part left to take, the parts still in progress end soon.
    pub fn part_len(&self, threads: usize, items: usize, item_bytes: usize) -> usize {
        let per = crate::threads::part_len(threads, items);
        match self.interrupt {
            Some(_) => per.min((Self::CHECK_BYTES / item_bytes.max(1)).max(1)),
            None => per,
        }
    }

    /// Whether this is the thread that asks the interrupt.
    fn on_caller(&self) -> bool {
        self.caller == Some(std::thread::current().id())
    }

    /// Whether a check said stop (asks nothing).
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// Whether the work is to stop: it stopped before, or (on the thread that made the
    /// stopper) the interrupt says so now.
    pub fn check(&self) -> Result<(), crate::PadError> {
        let Some(interrupt) = self.interrupt else {
            return Ok(());
        };
        if self.stopped.load(Ordering::Relaxed) {
            return Err(crate::PadError::Interrupted);
        }
        if self.on_caller() && interrupt.requested() {
            self.stopped.store(true, Ordering::Relaxed);
            return Err(crate::PadError::Interrupted);
        }
        Ok(())
    }
}

/// Counts the work of one loop and checks its [`Stopper`] as often as the executor
/// asks between parts: once the work it was told of since the last check reaches
/// 16 MiB (`tune::INTERRUPT_BYTES`).
#[derive(Debug)]
pub struct Ticker<'a> {
    stopper: &'a Stopper<'a>,
    /// Made on the stopper's calling thread: its checks ask the interrupt.
    asks: bool,
    since: usize,
}

impl Ticker<'_> {
    /// `bytes` more of work done (read or written):
    /// [`PadError::Interrupted`](crate::PadError::Interrupted) where the stopper, checked
    /// now, says stop.
    pub fn tick(&mut self, bytes: usize) -> Result<(), crate::PadError> {
        if self.stopper.interrupt.is_none() {
            return Ok(());
        }
        self.since = self.since.saturating_add(bytes);
        if self.since < INTERRUPT_BYTES {
            return Ok(());
        }
        self.since = 0;
        self.stopper.check()
    }
}

impl Drop for Ticker<'_> {
    fn drop(&mut self) {
        if self.asks && self.since > 0 {
            self.stopper
                .carried
                .fetch_add(self.since, Ordering::Relaxed);
        }
    }
}

/// Two interrupts are equal when they are the same question (clones of one).
impl PartialEq for Interrupt {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Interrupt {}

/// How the executor runs a pad.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadOptions {
    /// Threads to use: 0 = all of rayon's, 1 = the calling thread only (at most 1024).
    pub threads: usize,
    /// The least output bytes a thread is given: an output smaller than twice this is
    /// written by the calling thread alone, a larger one by at most one thread per
    /// this many bytes (and at most `threads`; with an `interrupt`, each piece
    /// between two questions by as many as the whole output); 0 splits every output
    /// among `threads`.
    pub parallel_threshold: usize,
    /// Refuse to allocate an output larger than this many bytes (counting a string
    /// element as its `String` header plus its text).
    pub max_output_bytes: Option<u64>,
    /// Outputs of at least this many bytes are written around the cache where their
    /// rows are one copy each (a crop), or one copy between a few single elements or
    /// runs of the constant (non-temporal stores, on x86_64 CPUs with AVX2): the
    /// output's lines are not read into the cache before being written, which saves
    /// a third of the memory traffic, but the output is not in the cache afterwards.
    /// The default is where an output, beside its input, no longer stays in the
    /// cache, from the caches detected: a third of the last-level cache, or, where
    /// that is a host's shared with cores this machine does not see (over 64 MiB), the
    /// private caches of the cores this process may use; 1 to 16 MiB (16 MiB where no
    /// cache is reported). Then runs of 16 MiB or more (as in padding the first
    /// axis) go around the cache too. `usize::MAX` never writes around the cache.
    pub stream_min_bytes: usize,
    /// What the output's memory holds before the pad, which decides how it is
    /// written ([`OutputMemory`]); [`Plan::pad`](crate::Plan::pad) (and so
    /// [`crate::pad`] and [`crate::pad_with`]) says [`OutputMemory::Zeroed`] for the
    /// output it allocates.
    pub output_memory: OutputMemory,
    /// Asked between parts of a long pad whether to stop ([`Interrupt`]); `None`
    /// runs every pad to its end.
    pub interrupt: Option<Interrupt>,
    /// For tests: the row kernel to use where it applies (whatever the size
    /// thresholds say); the usual choice elsewhere.
    #[doc(hidden)]
    pub kernel: Option<KernelName>,
}

impl Default for PadOptions {
    fn default() -> Self {
        PadOptions {
            threads: 0,
            parallel_threshold: PARALLEL_MIN_BYTES,
            max_output_bytes: None,
            stream_min_bytes: crate::tune::stream_min_bytes(),
            output_memory: OutputMemory::Written,
            interrupt: None,
            kernel: None,
        }
    }
}

impl PadOptions {
    /// One thread, no limit.
    pub fn single_threaded() -> Self {
        PadOptions {
            threads: 1,
            ..PadOptions::default()
        }
    }

    /// Whether an output of `bytes` is written around the cache where its rows can be
    /// ([`PadOptions::stream_min_bytes`], [`PadOptions::output_memory`]): the rule of
    /// the executor, and of the front ends' own copies.
    pub fn around_cache(&self, bytes: usize) -> bool {
        self.output_memory == OutputMemory::Written && self.beyond_cache(bytes)
    }

    /// Whether an output of `bytes` is too large to stay in the cache
    /// ([`PadOptions::stream_min_bytes`]), whatever its memory held: such outputs are
    /// written around the cache ([`PadOptions::around_cache`]) or, where their rows
    /// cannot be, ask for their lines ahead.
    pub fn beyond_cache(&self, bytes: usize) -> bool {
        bytes >= self.stream_min_bytes
    }
}

/// The row kernels by name, in the order the executor tries them
/// (`exec::row_kernel::choose`): for messages, tests, and [`PadOptions::kernel`]
/// (forcing one where it applies).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelName {
    /// Constant-padded rows of at most 64 bytes, each one fixed-width load (8, 16, 32
    /// or 64 bytes) blended with the constant.
    Narrow,
    /// Each output row is one run of its input row (a crop of the row axis, or none).
    Slice,
    /// One copy between a few single elements or constants, the row's first and last
    /// 16 bytes blended from the input row (`PSHUFB`); whole planes, and rows of small
    /// outputs with at least `tune::BLEND_ROW_SINGLES_MIN` single elements.
    Blend,
    /// One copy between runs of the constant.
    ConstantEnds,
    /// One copy between up to `tune::SINGLES_MAX` single elements read from the input
    /// row; whole planes.
    Singles,
    /// One copy between up to `tune::SANDWICH_MAX` single elements or constants, from
    /// fixed arrays.
    Sandwich,
    /// Any row of single elements: its long runs, then lists of single elements and
    /// constants.
    Program,
    /// Any row, run by run as the axis map gives them.
    Runs,
}

impl KernelName {
    /// Every kernel, in the order the executor tries them.
    pub const ALL: [KernelName; 8] = [
        KernelName::Narrow,
        KernelName::Slice,
        KernelName::Blend,
        KernelName::ConstantEnds,
        KernelName::Singles,
        KernelName::Sandwich,
        KernelName::Program,
        KernelName::Runs,
    ];
}

impl std::fmt::Display for KernelName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// An interrupt answering `stop` from its `stop_at`-th question on, counting them.
    fn counting(stop_at: usize) -> (Interrupt, Arc<AtomicUsize>) {
        let asked = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&asked);
        let interrupt =
            Interrupt::new(move || count.fetch_add(1, Ordering::Relaxed) + 1 >= stop_at);
        (interrupt, asked)
    }

    #[test]
    fn parts_asked_between_are_at_most_check_bytes() {
        let (interrupt, _) = counting(usize::MAX);
        let quarter = Stopper::CHECK_BYTES / 4;
        // Two threads, four parts each: 1000 items of a quarter check are 125 a part
        // unasked, 4 asked; items over a check are one a part.
        assert_eq!(Stopper::new(None).part_len(2, 1000, quarter), 125);
        let asking = Stopper::new(Some(&interrupt));
        assert_eq!(asking.part_len(2, 1000, quarter), 4);
        assert_eq!(asking.part_len(2, 1000, Stopper::CHECK_BYTES * 3), 1);
        assert_eq!(asking.part_len(2, 16, 1), 2);
    }

    #[test]
    fn tickers_ask_once_per_check_bytes_and_a_stop_stays() {
        let (interrupt, asked) = counting(3);
        let stopper = Stopper::new(Some(&interrupt));
        let mut ticker = stopper.ticker();
        let quarter = Stopper::CHECK_BYTES / 4;
        for _ in 0..7 {
            assert!(ticker.tick(quarter).is_ok());
        }
        assert_eq!(asked.load(Ordering::Relaxed), 1);
        // Work a dropped ticker did not check for is carried to the next.
        drop(ticker);
        let mut ticker = stopper.ticker();
        assert!(ticker.tick(quarter).is_ok());
        assert_eq!(asked.load(Ordering::Relaxed), 2);
        assert!(!stopper.stopped());
        // Another thread's tickers never ask; they see the stop once it is said.
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut other = stopper.ticker();
                assert!(other.tick(Stopper::CHECK_BYTES * 3).is_ok());
            });
        });
        assert_eq!(asked.load(Ordering::Relaxed), 2);
        assert!(matches!(
            ticker.tick(Stopper::CHECK_BYTES),
            Err(crate::PadError::Interrupted)
        ));
        assert!(stopper.stopped());
        std::thread::scope(|s| {
            s.spawn(|| assert!(stopper.ticker().tick(Stopper::CHECK_BYTES).is_err()));
        });
        // Stopped: not asked again.
        assert!(stopper.check().is_err());
        assert_eq!(asked.load(Ordering::Relaxed), 3);
        // Without an interrupt nothing stops.
        let never = Stopper::new(None);
        assert!(never.ticker().tick(usize::MAX).is_ok());
        assert!(never.check().is_ok());
    }

    #[test]
    fn helpers_tickers_leave_the_callers_count_alone() {
        // Parts of 5/8 of a check taken in turn by the calling thread and a helper (as
        // two threads share a pad's parts): the caller asks once per check of its own
        // work, whatever the helper did (a helper that took the caller's carried work
        // left it unasked for the whole pad).
        let (interrupt, asked) = counting(usize::MAX);
        let stopper = Stopper::new(Some(&interrupt));
        let five_eighths = Stopper::CHECK_BYTES / 8 * 5;
        for _ in 0..4 {
            assert!(stopper.ticker().tick(five_eighths).is_ok());
            std::thread::scope(|s| {
                s.spawn(|| assert!(stopper.ticker().tick(five_eighths).is_ok()));
            });
        }
        assert_eq!(asked.load(Ordering::Relaxed), 2);
    }
}
