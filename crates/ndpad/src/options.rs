//! How a pad runs: [`PadOptions`] (threads, output limit, how the output is written,
//! interruption) and the choices in it ([`OutputMemory`], [`Interrupt`], and for tests
//! [`KernelName`]). Plain configuration: nothing here knows the plan or the executor
//! that read it.

use std::sync::Arc;

use crate::tune::PARALLEL_MIN_BYTES;

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
    /// cache, from the caches detected: a quarter of the last-level cache, or, where
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
    /// 16 bytes blended from the input row (`PSHUFB`); whole planes.
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
