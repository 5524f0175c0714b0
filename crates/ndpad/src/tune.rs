//! Every tuned threshold of the core, in one place, each with a one-line reason.
//! The measurements behind them (machine, workload, effect, commit) are in
//! `docs/tuning.md`; change a value only with a paired-round benchmark that shows it.

// ---- Copies ----

/// Runs from 64 bytes up to this are copied by inlined 64-byte moves: a `memcpy` call
/// per row cost up to a quarter of a copy's speed on row-by-row padding (AMD, rows
/// under 1 KiB); longer runs call `memcpy`, 1.2-1.3x faster on 1-4 KiB rows (Intel).
pub(crate) const INLINE_COPY_MAX: usize = 1024;

/// Outputs this large go around the cache whatever the cache (the most
/// `stream_min_bytes` is) or where none is reported; a reported L3 of
/// 260 MiB (a VM's share of a host's) kept 26 MB outputs out of it no better (streamed
/// 2.3 ms hot, 3.0 ms cold; through it 4.5 / 4.7 ms).
pub(crate) const STREAM_MIN: usize = 16 << 20;

/// Outputs of at least the last-level cache's size over this go around the cache (the
/// default of `PadOptions::stream_min_bytes`): with their input beside them larger
/// ones do not stay in it. On a Zen 4's 32 MiB L3, f32 1080x1920 reflect 8 (8.5 MB
/// out) through the cache ran 1.2x faster in a loop and 2x with two threads, 5-12%
/// slower cold (a share of 4 streamed it); 9.4-10.5 MB ran even, 11.7 MB 10-20% slower.
pub(crate) const STREAM_CACHE_SHARE: usize = 3;

/// A reported last-level cache larger than this is a host's, shared with cores this
/// machine does not see (a 2-core Intel VM is shown 260 MiB): the visible cores'
/// private caches are what holds an output there. On that VM f32 outputs of 6.6-13 MB
/// ran 10-35% faster streamed, hot and cold; 3.3 MB hot 6% slower.
pub(crate) const HOST_CACHE_MIN: usize = 64 << 20;

/// The least output written around the cache however small the reported cache: a
/// smaller one stays in the cache's other levels.
pub(crate) const STREAM_MIN_FLOOR: usize = 1 << 20;

/// Where outputs start to go around the cache (the default of
/// `PadOptions::stream_min_bytes`), from the detected caches and the cores this
/// process may run on: see [`stream_min_for`].
/// Found once: `available_parallelism` reads the cgroup's files at each call (13 us,
/// more than a small pad takes).
pub(crate) fn stream_min_bytes() -> usize {
    static MIN: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MIN.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        stream_min_for(data_caches(), cores)
    })
}

/// Where outputs start to go around the cache: the last-level cache over
/// `STREAM_CACHE_SHARE`, or, where that cache is a host's (larger than
/// [`HOST_CACHE_MIN`]), the private level below it times the `cores`; at least
/// [`STREAM_MIN_FLOOR`], at most `STREAM_MIN` (a large cache is shared with other
/// cores and tenants), `STREAM_MIN` where no cache is reported.
pub(crate) fn stream_min_for(caches: Option<Caches>, cores: usize) -> usize {
    let Some(c) = caches else {
        return STREAM_MIN;
    };
    let ours = match c.below {
        Some(private) if c.last > HOST_CACHE_MIN => private.saturating_mul(cores),
        _ => c.last / STREAM_CACHE_SHARE,
    };
    ours.clamp(STREAM_MIN_FLOOR, STREAM_MIN)
}

/// The line movers (`stream_lines`, `stream_lines_ahead`) move at least this many
/// lines by AVX-512F's 64-byte stores, fewer by 32-byte ones: the 64-byte mover is a
/// call from the plane loops (compiled for AVX2), which cost crops of 208- and
/// 432-byte rows, streamed a line at a time, 0.05-0.09 of a copy hot on the Intel
/// Xeon VM; 5 ran even with 2 on rows of 3-7.
#[cfg(target_arch = "x86_64")]
pub(crate) const WIDE_LINES_MIN: usize = 2;

/// Copies through the cache whose destination lies 1 to this many bytes less one
/// past their source within a 4 KiB page go by inlined moves, not `memcpy`
/// (`arch::copy_cached`): glibc 2.36's `rep movsb` (4 KiB up to the L2 cache's size
/// on AMD) moved 3 GB/s there on the Zen 5 EPYC, 30 elsewhere (1-31 bytes past;
/// 32-63 1.1x slower); the moves ran at 30-37 at every distance.
pub(crate) const COPY_ALIAS_BYTES: usize = 64;

/// Runs that do not stream are copied by `memcpy` calls of at most this many bytes:
/// glibc's goes around the cache above its threshold (240 MiB on this VM), which
/// made a fresh 256 MiB output take 1.4x as long; 1-4 MiB pieces were slower here.
pub(crate) const CACHED_COPY_PIECE: usize = 16 << 20;

/// Long non-temporal copies move this many 4 KiB pages at once, a line of each in
/// turn (`arch::stream_copy`): a 256 MB copy 18.6 -> 21.6 GB/s on the Intel Xeon VM;
/// 2 and 8 pages within the noise of 4 (glibc's large `memcpy` takes 4).
#[cfg(target_arch = "x86_64")]
pub(crate) const STREAM_PAGES: usize = 4;

/// On AMD, long non-temporal copies whose destination lies less than this many bytes
/// after the source within a 4 KiB page (or less than a line before it) go line by
/// line, not `STREAM_PAGES` at once, where each load waited on a store 4 KiB away.
/// Zen 5 EPYC, ratio to a copy, cold, 6 paired rounds: f32 [16,1024,1024] axis 0 by 2
/// (0 bytes after) 0.56 -> 1.80 (hot 0.60 -> 1.96); [16,1000,1000] (512 after) even;
/// u8 [2160,3840,3] (1 KiB) the pages ahead by 0.09. Line by line reading ahead lost
/// to both (-0.2, -0.27).
#[cfg(target_arch = "x86_64")]
pub(crate) const PAGE_ALIAS_BYTES: usize = 512;

/// Copied runs at least this long go around the cache where the output does.
pub(crate) const STREAMED_COPY_MIN: usize = 64 << 10;

/// Constant and interleaved runs shorter than this many bytes are written through the
/// cache even where the output goes around it: their partial lines at either end are
/// much of them (tuned when such runs were staged through a buffer).
pub(crate) const STREAMED_RUN_MIN: usize = 1024;

// ---- Row kernels ----

/// Runs shorter than this many elements are written from lists of single elements
/// and constants, not one call each.
pub(crate) const SHORT_RUN: usize = 8;

/// Single elements (or constants) a sandwich row holds at most: fixed arrays, no
/// run loop.
pub(crate) const SANDWICH_MAX: usize = 8;

/// Single elements a sandwich row outside the plane loops holds at least to have
/// its ends blended (two 16-byte blends cost about as much as two to four single
/// elements written one by one).
pub(crate) const BLEND_ROW_SINGLES_MIN: usize = 4;

/// Rows at most this many bytes long are written element by element (longer rows
/// copy their runs; narrow constant rows use one fixed-width window).
pub(crate) const NARROW_ROW_BYTES: usize = 64;

/// The most single elements a row of the singles kernel has (wider ends go to the
/// row program).
pub(crate) const SINGLES_MAX: usize = 64;

// ---- Whole planes ----

/// Plans of outputs under this many bytes keep their executor's setup (the row
/// kernel, row map and tiny planes' table) between runs: making it took 0.11 of the
/// 0.27 us a pad of a 1x1 array took, and about 1 us of f32 [256,256] padded by one
/// (6.7 -> 5.8 us; 256 KiB kept none of it). No larger: the setup is then a small
/// part of a pad's time.
pub(crate) const KEEP_SETUP_MAX: usize = 1 << 20;

/// Setups of output rows longer than this many bytes are not kept (they may hold a
/// row of the constant, and Python remembers 64 plans).
pub(crate) const KEEP_ROW_MAX: usize = 64 << 10;

/// Outputs smaller than this are written row by row on a plan's first run: preparing
/// whole planes (the row map, the blends, a tiny plane's table) took longer than it
/// saved once. A small plan's second run makes them for the runs after (`Runs`).
pub(crate) const PLANE_MIN_BYTES: usize = 64 << 10;

/// A small plan's repeated setup waits one run for every this many entries of the
/// tiny plane's table it makes (about 1.2 us of making; a run of such a plan saves
/// 0.4-1.5 us with the table): made at the second run, the table of a u8 [64,64]
/// reflect 1 pad (4356 entries, ~18 us) cost a loop of a few pads more than the pads.
pub(crate) const TINY_TABLE_GRAINS_A_RUN: usize = 256;

/// Planes of at most this many output bytes are written whole from a table
/// ([`exec::tiny`](crate::exec); 64 bytes of table a 32 output bytes by words, 128
/// by bytes). Row by row, a [32,512,7,7] f32 pad by one (9x9 planes) ran 0.17-0.38
/// of a copy; since runs of planes skip the walker, planes of 3-8 KB gained too
/// ([512,32,32] edge hot 0.98 -> 1.13, [2048,8,62] symmetric 0.49 -> 0.74 cold, u8
/// [2048,64,120] hot 0.72 -> 0.84); 16 KiB lost ([32,64,56,56] reflect 1.37 ->
/// 0.81). Half this for tables of bytes (the same 16 KiB of table as words) lost
/// CIFAR's 4.8 KB planes (0.79 -> 0.67).
pub(crate) const TINY_PLANE_MAX: usize = 8192;

/// Runs of tiny planes whose inputs follow one another are written this many output
/// bytes (whole planes, two at least) at once from a table of those planes
/// ([`exec::tiny`](crate::exec)'s groups): the per-plane work and each plane's last
/// partial piece are paid once a group.
pub(crate) const TINY_GROUP_BYTES: usize = 1024;

/// An output of one plane (no run of planes for a table to take at once) is written
/// from a table only where its rows are at most this many bytes: longer rows ran
/// faster through the plane loops (f32 [16,16,3] reflect 4, 288-byte rows, 510 -> 365
/// ns; [24,24] reflect 4, 128-byte rows, 288 -> 265), shorter ones by the table (u8
/// [64,64] reflect 1, 66-byte rows, 285 against 320 ns; [32,32] reflect 4 195 against
/// 360).
pub(crate) const TINY_ONE_PLANE_ROW_MAX: usize = 96;

/// Tiny planes' tables take every piece from two windows where more than one in this
/// many pieces needs two; else each from one, and those few again from two: f32 maps
/// reflected by one, 7x7 (1 of 11) +0.07 cold, 16x16 (2 of 41) +0.04; 8x8 (2 of 13)
/// -0.04, 6x6 by two (3 of 13) -0.07.
pub(crate) const TINY_TWO_WINDOWS_SHARE: usize = 10;

/// Planes of rows longer than this many output bytes are left to the plane loops,
/// which copy long rows faster (and stream them whole): [4096,1,600] edge (2408-byte
/// rows) 1.32 of a copy, by the table 0.69; 2008-byte rows ran 0.56 -> 0.69 by it.
pub(crate) const TINY_ROW_MAX: usize = 2 << 10;

/// Tiny planes go around the cache (staged, then streamed a line at a time) only in
/// outputs this large, even where smaller ones stream: the table's output stays in
/// the cache between calls up to about here. Intel Xeon (model 167), hot: f32
/// [N,512,7,7] 5.3 MB -17%, 10.6 MB even, 21 MB +55%; u8 [N,32,32,3] 9.6 MB -11%,
/// 48 MB +30% (cold all gained, +17-35%).
pub(crate) const TINY_STREAM_MIN: usize = 16 << 20;

/// Tiny planes going around the cache first ask for the input of the plane this many
/// bytes ahead (the first plane at least this far), into the second-level cache.
/// Intel Xeon (model 167), paired, cold / hot: u8 [10000,32,32,3] pad 4 (a plane
/// ahead) +0.073 / +0.125 of a copy; f32 [128,512,7,7] (16 planes) +0.114 / -0.030;
/// 1 KiB and 8 KiB ahead lost more hot there (-0.075, -0.038), 4 KiB gained CIFAR
/// nothing (2 planes ahead).
pub(crate) const TINY_READ_AHEAD: usize = 3 << 10;

/// Loops that write the output through the cache ask, a row (or tiny plane) at a
/// time, for the output lines this many bytes on, owned for writing (`WriteAhead`).
/// Intel Xeon (model 167), f32 [8,8,112,112] reflect 3 (3.6 MB), 1-4 KiB even
/// (cold ~+0.15 of a copy, hot ~+0.07), 8 KiB behind them cold.
pub(crate) const WRITE_AHEAD: usize = 2 << 10;

/// Whether the plane loops' rows ask ahead on AMD CPUs too: on the Zen 5 EPYC, hot,
/// asking lost to not asking (f32 [8,8,112,112] reflect 3 -0.087 of a copy, u8
/// [1024,1024] constant 16 -0.067, f32 512x512 reflect 1 -0.057; cold even), where
/// on the Intel Xeon it gained (above). The tiny planes and narrow rows ask on both.
pub(crate) const PLANE_WRITE_AHEAD_ON_AMD: bool = false;

/// Narrow rows (the narrow kernel's and the shuffles') ask for the output ahead,
/// each line once, only in outputs this large: hot, where their output stays in the
/// second-level cache, asking lost (f32 [8000,7] -> [..,8], 256 KB: -0.46 of a copy,
/// [1000,7] -0.25); 512 KB +0.20, 1 MB +0.25; rows of 4-16 bytes 2 MB +0.12-0.26.
pub(crate) const WRITE_AHEAD_NARROW_MIN: usize = 512 << 10;

/// Planes of more rows than this are written row by row: the row map (4 bytes a row)
/// stays under 16 MiB. Row by row, a 2-D f32 [20000,300] crop or pad ran 0.6x
/// as fast (its one plane had 20000 rows; the limit was 4096).
pub(crate) const PLANE_MAX_ROWS: usize = 1 << 22;

/// Rows longer than this are written row by row, never by the plane loops: those
/// hold a whole row of the constant (a [1, 2^31] byte pad asked for 2 GiB more, and
/// aborted where that did not fit), and rows this long gain nothing from planes.
pub(crate) const PLANE_ROW_MAX: usize = 16 << 20;

/// The longest row the staged loop writes (longer rows stream their copy directly).
pub(crate) const STAGE_ROW_MAX: usize = 2 << 10;

/// Long rows' lines of the constant are read from the first this many bytes of the
/// constant row (rounded up to 64 constants), L1-resident: batches letterboxed on
/// their rows (2.8 MB rows) +14%; a period of only 64 constants (a `%` and a call a
/// line or three) ran 10-20% slower than reading the whole row.
pub(crate) const CONSTANT_PERIOD_MIN: usize = 8 << 10;

/// The smallest plane the staged loop writes: each plane's partial first and last
/// lines cost small planes more than streaming saves.
#[cfg(any(target_arch = "x86_64", test))]
pub(crate) const STAGE_PLANE_MIN: usize = 8 << 10;

// ---- Prefetching ----

/// The next plane's first rows (up to this many) that lie far from the input just read
/// are prefetched while a plane is written (wrap padding jumps back at each plane).
pub(crate) const JUMP_ROWS: usize = 6;

/// At most this many lines of the next plane are prefetched for its jump.
pub(crate) const JUMP_LINES: usize = 64;

/// Input rows within this many bytes of the previous plane's last input row are not
/// prefetched: the hardware prefetcher streams there.
pub(crate) const JUMP_NEAR: usize = 8192;

/// The staged loop prefetches the jump's lines one a row, ending this many rows before
/// the plane's end (all at once, or spread from the start, was slower).
#[cfg(target_arch = "x86_64")]
pub(crate) const JUMP_TAIL_ROWS: usize = 8;

/// A gap of more than this many bytes between a plane's input and the next plane's
/// (rows cropped) makes the whole next plane prefetched: the hardware prefetcher lost
/// the stream across such gaps.
pub(crate) const GAP_MIN: usize = 384;

/// The largest plane input prefetched whole after a gap (larger ones ran slower).
pub(crate) const GAP_PLANE_MAX: usize = 32 << 10;

/// The plane loops prefetch the input this many bytes ahead of where they read: the
/// hardware prefetcher alone keeps too few lines in flight. Into the second-level
/// cache (`arch::read_ahead`): cold NCHW pads +6-11%, long rows +10-14% (Intel Xeon VM).
pub(crate) const READ_AHEAD: usize = 16 << 10;

/// The packed path reads its input and output rows this many bytes ahead: 16 KiB (as
/// the planes) left int4 [1024,1023] at 0.79x a copy cold and lost 15-23% hot to
/// it, 4 KiB 0.86x cold and 1.34x hot (Intel); 2 KiB measured as 4.
pub(crate) const PACKED_READ_AHEAD: usize = 4 << 10;

/// The smallest plane input read ahead on: on smaller planes the prefetches gained in
/// some modes and cost in others.
#[cfg(any(target_arch = "x86_64", test))]
pub(crate) const READ_AHEAD_PLANE_MIN: usize = 16 << 10;

/// The shortest input row read ahead for: shorter rows take so few instructions that
/// the prefetching ones cost more than they save.
pub(crate) const READ_AHEAD_ROW_MIN: usize = 256;

// ---- Plans ----

/// An axis whose output repeats its period (reflect, symmetric, wrap) more than this
/// many times is planned for one period and tiled (`exec/tile.rs`): its runs would take
/// more memory than the output (not measured: only such very large repeats tile).
pub(crate) const TILE_MIN_PERIODS: usize = 1 << 20;

// ---- Threads and memory ----

/// The least output bytes a thread is given (the default of
/// `PadOptions::parallel_threshold`): on the 2-core VM, 1 MiB on two threads took
/// 1.07-1.12x one thread's time, 2 MiB 0.84-0.86x; on the 16-core Xeon, 26 MB outputs
/// still gained from all 16 threads (1.6 MB each).
pub(crate) const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// The most output bytes of a part when `PadOptions::interrupt` is asked between the
/// calling thread's parts, so that Ctrl-C stops a pad within 0.2 s (the other threads
/// finish the parts they began): fresh pages of a VM can fault at 0.15-0.3 GB/s a
/// thread, and 64 MiB parts stopped a CLI pad 0.2-0.5 s after SIGTERM on the loaded
/// 2-core VM, 16 MiB ones 4-132 ms (a question costs a few microseconds).
pub(crate) const INTERRUPT_BYTES: usize = 16 << 20;

/// Output bytes of a box of an input whose rows are not in C order (`exec/gather.rs`):
/// the box's reads, gathered, stay in the cache while it is padded. f32 [2000,4000]
/// `[:, ::2]` padded by 8, one thread, Intel Xeon: hot, 64 KiB 2.21-2.26 ms, 256 KiB
/// 2.27-2.42, 1 MiB 2.83-2.98; cold (bench/python.py), 64 KiB 0.74-0.78x numpy.pad,
/// 256 KiB 0.81-0.84x, 512 KiB 0.82-0.83x (u8 image as CHW 1.13 / 1.27-1.38 / 1.22-1.25x).
pub(crate) const GATHER_BOX_BYTES: usize = 256 << 10;

/// Input bytes whose indices of a box's split axis the box takes together, where they
/// lie closer (`exec/gather.rs`): a pair of cache lines, which the second-level cache
/// fetches together on Intel. NHWC f32 [8,112,112,64] read as NCHW, one thread, boxes
/// of 16 channels 8.6-8.7 ms, 32 (128 bytes) 6.8-6.9, 64 8.1-8.3.
pub(crate) const GATHER_SPAN: usize = 128;

/// The most output bytes of a box grown to whole spans (`GATHER_SPAN`): the measured
/// best, 32 f32 channels of 114x114 (1.7 MB), fits. The same workload before the
/// tiles, 5 channels a box (256 KiB) 17 ms, 8 (512 KiB) 11.5-11.9, 16 (832 KiB) 9.8-10.2.
pub(crate) const GATHER_BOX_MAX: usize = 2 << 20;

/// The least output row (bytes) padded where it lies, row by row, on AMD CPUs
/// (`exec/stepped.rs`): each row pays its setup (its input row found from each outer
/// axis's map), which the boxes do not. Zen 4, steps of 2 reflected by 8, outputs
/// of 2-4 MB: rows of 320-640 B 1.2-1.6x slower hot in place (cold 1.1-1.5x faster),
/// 960 B 1.35x faster hot; rows of 1.9 KiB (an image's channel) 1.4x -> 2.0-2.2x
/// numpy.pad.
pub(crate) const STEPPED_ROW_MIN: usize = 1 << 10;

/// [`STEPPED_ROW_MIN`] for outputs too large to stay in the cache (whose rows in
/// place ask for their lines ahead): f32 16 MB outputs of rows of 448-992 B ran
/// 1.2-1.45x faster in place, hot and cold; 320 B even, 256 B 1.15x slower.
pub(crate) const STEPPED_ROW_MIN_BEYOND_CACHE: usize = 384;

/// The most lines read between two uses of a line for which the gather keeps C order
/// (`exec/gather.rs`, `memory_order`): within the first-level cache. From Python, one
/// thread, C order against memory order: f32 [200,300,100] read as [200,100,300]
/// (300 lines) 3.9 against 5.0 ms, `a[::2].T` of f32 [2000,4000] (1000) 6.5 against 4.1.
pub(crate) const GATHER_REUSE_LINES: usize = 512;

/// Rows of a transposed input's tile copied a column at a time (u8 and u16 squares of
/// them first, transposed in registers; `exec/gather.rs`): the
/// NHWC workload of `GATHER_SPAN` (112 rows a tile) alike from 32 to 256 (6.3-7.1
/// ms), 16 7.2-7.6; NCHW f32 [8,64,112,112] read as NHWC (64 rows, the channels) 16
/// 9.7 ms, 32 5.9-6.9, 64 4.9-5.1 (a strided copy a column: fewer, longer ones). The
/// next block's rows prefetched gained nothing.
pub(crate) const GATHER_TILE_ROWS: usize = 64;

/// Parts per thread an output is split into, so that a thread finishing early takes
/// another part.
pub(crate) const PARTS_PER_THREAD: usize = 4;

/// rayon's threads stay awake this long after a parallel pad, for the next: a Python
/// loop calls again tens of microseconds later, when they sleep already, and on the
/// 2-core VM a sleeping one's vCPU took milliseconds to return (two-thread pads of
/// f32 [8,64,112,112] 1.06-2.28 ms without, 1.0-1.3 ms with 200 us; one thread 1.7-2.7).
pub(crate) const LINGER: std::time::Duration = std::time::Duration::from_micros(200);

/// More threads than this buys nothing and only costs pool start-up.
pub(crate) const MAX_THREADS: usize = 1024;

/// Outputs `Plan::pad` allocates at least this large are zeroed allocations (glibc
/// maps them from the OS, untouched: its largest mmap threshold), smaller ones
/// uninitialized and written whole: a smaller allocation may be reused heap memory,
/// which `calloc` clears on one thread first (0.7-1.4 ms of a 2.9 ms pad of 28 MB).
pub(crate) const FRESH_MIN_BYTES: usize = 32 << 20;

/// Fresh outputs at least this large are advised to use transparent huge pages
/// (one page fault per 2 MiB instead of per 4 KiB).
pub(crate) const HUGE_PAGE_ADVICE_BYTES: usize = 4 << 20;

/// Outputs the Python package takes from the pool (`os::PooledBuffer`) from this size
/// on: glibc maps every block this large afresh. From 4 MiB the loop gained, but a
/// single call after the pool emptied took 1.2-2.1x numpy.pad's time: glibc served
/// numpy from its warm heap, the pool mapped fresh pages (docs/performance.md).
pub(crate) const POOL_MIN_BYTES: usize = FRESH_MIN_BYTES;

/// Idle output buffers (`os::PooledBuffer`, outputs of at least `POOL_MIN_BYTES`) kept
/// for reuse, at most this many bytes in all: a few outputs of a batch pipeline, so
/// that repeated pads of one size take no page faults.
pub(crate) const POOL_MAX_BYTES: usize = 1 << 30;

/// Pooled buffers idle this long are returned to the OS: longer than the gap between
/// two steps of a data loader, short enough that memory is not held after it stops.
pub(crate) const POOL_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

// ---- The cache ----

/// The data caches Linux reports for the first CPU, as `lscpu` reads them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caches {
    /// Bytes of the last (largest) level.
    pub(crate) last: usize,
    /// Bytes of the level below it (one core's), where reported.
    pub(crate) below: Option<usize>,
}

/// The CPU's data caches, detected once; `None` where none is reported.
pub(crate) fn data_caches() -> Option<Caches> {
    static CACHES: std::sync::OnceLock<Option<Caches>> = std::sync::OnceLock::new();
    *CACHES.get_or_init(detect_caches)
}

fn detect_caches() -> Option<Caches> {
    // Miri's isolation stops the machine at a file read.
    if cfg!(miri) {
        return None;
    }
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let read = |i: usize, f: &str| std::fs::read_to_string(dir.join(format!("index{i}/{f}")));
    // (level, bytes) of each data or unified cache.
    let mut levels: Vec<(u32, usize)> = Vec::new();
    for i in 0..16 {
        let Ok(kind) = read(i, "type") else { break };
        if kind.trim() == "Instruction" {
            continue;
        }
        let level = read(i, "level")
            .ok()
            .and_then(|l| l.trim().parse::<u32>().ok());
        let size = read(i, "size").ok().and_then(|s| parse_cache_size(&s));
        if let (Some(level), Some(size)) = (level, size) {
            levels.push((level, size));
        }
    }
    levels.sort_unstable();
    let &(top, last) = levels.last()?;
    let below = levels
        .iter()
        .rev()
        .find(|&&(l, _)| l + 1 == top)
        .map(|&(_, b)| b);
    Some(Caches { last, below })
}

/// A cache size as sysfs writes it: "32768K", "2M", or bytes.
fn parse_cache_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits
        .parse::<usize>()
        .ok()?
        .checked_mul(unit)
        .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_starts_where_the_cache_that_is_ours_ends() {
        let mib = |n: usize| n << 20;
        let caches = |last, below| Some(Caches { last, below });
        // A reported L3 of 64 MiB or less: a third of it (10.67 MiB of 32), at most
        // STREAM_MIN (16 MiB of 64's 21.3).
        assert_eq!(stream_min_for(caches(mib(32), Some(mib(1))), 2), 11_184_810);
        assert_eq!(stream_min_for(caches(mib(64), Some(mib(1))), 2), mib(16));
        assert_eq!(stream_min_for(caches(mib(6), Some(mib(1))), 2), mib(2));
        // A host's 260 MiB seen from 2 cores of 2 MiB L2 each: their L2s.
        assert_eq!(stream_min_for(caches(mib(260), Some(mib(2))), 2), mib(4));
        assert_eq!(stream_min_for(caches(mib(260), Some(mib(2))), 64), mib(16));
        assert_eq!(stream_min_for(caches(mib(260), None), 2), mib(16));
        assert_eq!(stream_min_for(caches(1 << 10, None), 2), mib(1));
        assert_eq!(stream_min_for(None, 2), mib(16));
    }

    #[test]
    fn cache_sizes_parse() {
        assert_eq!(parse_cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("1G"), Some(1 << 30));
        assert_eq!(parse_cache_size("65536"), Some(65536));
        for bad in ["", "K", "0K", "-1K", "12Q", "99999999999999999999G"] {
            assert_eq!(parse_cache_size(bad), None, "{bad:?}");
        }
    }
}
