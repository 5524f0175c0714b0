//! The memory budget bounds what a pad allocates: a counting global allocator
//! records the most bytes live at once while arrays whose decoded input chunks would
//! take many times the budget (a plane of them) are padded, on more threads than the
//! budget holds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use ndpad::{AxisPad, Mode, PadSpec, Tensor};
use ndpad_zarr::{ZarrArray, ZarrPadOptions};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Ordering::SeqCst) + n;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

// SAFETY: every call is passed on to the system allocator unchanged; the counters
// only observe the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::SeqCst);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Bookkeeping outside the budget: per output chunk, its file's path (kept to sync
/// it at the end) and the chunk's index and box; and a fixed part (the metadata, the
/// plans, the thread pool).
const SLACK_PER_CHUNK: usize = 256;
const SLACK: usize = 256 << 10;

/// The tests run one at a time: the counters are the whole process's.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Resets the peak to what is live now; returns that.
fn start_counting() -> usize {
    let before = LIVE.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    before
}

/// `write_tensor` of `x` at `path`, asserting that it allocated at most the budget of
/// `opts` (and the fixed slack) at once; its report.
fn write_within(
    x: &Tensor,
    path: &std::path::Path,
    opts: &ZarrPadOptions,
    what: &str,
) -> ndpad_zarr::PadReport {
    let budget = opts.max_memory.unwrap();
    let before = start_counting();
    let report = ndpad_zarr::write_tensor(x, path, opts).unwrap();
    let peak = PEAK.load(Ordering::SeqCst) - before;
    eprintln!("{what}: {peak} bytes at most (budget {budget} + {SLACK}): {report:?}");
    assert!(
        peak as u64 <= budget + SLACK as u64,
        "{what}: {peak} bytes at most, over the budget of {budget} + {SLACK}: {report:?}"
    );
    report
}

#[test]
fn a_pad_allocates_within_its_budget() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.zarr");
    // f32 (32, 128, 128) in chunks of 16^3 (16 KiB, zstd): a plane of input chunks
    // decoded is 1 MiB, the whole array 2 MiB.
    let shape = [32usize, 128, 128];
    let n: usize = shape.iter().product();
    // Values zstd cannot shrink much (a chunk's encoding is near its size).
    let data: Vec<f32> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 8) as f32)
        .collect();
    let x = Tensor::from_slice(&shape, &data).unwrap();
    let opts = ZarrPadOptions {
        chunks: Some(vec![16, 16, 16]),
        ..ZarrPadOptions::default()
    };
    ndpad_zarr::write_tensor(&x, &a, &opts).unwrap();
    drop((x, data));
    let input = ZarrArray::open(&a).unwrap();
    // Two cases, 16 threads asked in each:
    // - output chunks as the input's (16 KiB; ~80 KiB a thread) in 1 MiB: the parts
    //   a shift keeps (~300 KiB) fit beside the threads, each input chunk decoded once;
    // - output chunks of 128 KiB (~512 KiB a thread) in 2 MiB: two threads run,
    //   where sixteen would hold several MiB.
    let cases: [(u64, Option<Vec<u64>>, bool); 2] = [
        (1 << 20, None, true),
        (2 << 20, Some(vec![8, 64, 64]), false),
    ];
    for (budget, chunks, decoded_once) in cases {
        for (i, mode) in [Mode::Constant(None), Mode::Reflect, Mode::Edge, Mode::Wrap]
            .into_iter()
            .enumerate()
        {
            let spec = PadSpec::new(vec![AxisPad::new(3, 3); 3], mode.clone());
            let b = dir.path().join(format!("b{budget}-{i}.zarr"));
            let opts = ZarrPadOptions {
                threads: 16,
                chunks: chunks.clone(),
                max_memory: Some(budget),
                ..ZarrPadOptions::default()
            };
            let before = start_counting();
            let report = ndpad_zarr::pad_array(&input, &b, &spec, &opts).unwrap();
            let peak = PEAK.load(Ordering::SeqCst) - before;
            let slack = SLACK + SLACK_PER_CHUNK * report.chunks as usize;
            eprintln!("{mode:?}: {peak} bytes at most (budget {budget} + {slack}): {report:?}");
            assert!(
                peak as u64 <= budget + slack as u64,
                "{mode:?}: {peak} bytes at most, over the budget of {budget} + {slack}: \
                 {report:?}"
            );
            // Fewer threads than asked: the budget holds fewer threads' buffers.
            assert!(report.threads < 16 && report.threads >= 1, "{report:?}");
            assert!(
                report.threads as u64 * report.per_thread_bytes + report.parts_peak_bytes <= budget,
                "{report:?}"
            );
            // A shift decodes each input chunk once (2 x 8 x 8 of them): the parts
            // later pieces read are kept, not the chunks.
            if decoded_once && !matches!(mode, Mode::Wrap) {
                assert_eq!(report.input_decodes, 128, "{mode:?}: {report:?}");
            }
            let want = ndpad::pad(
                ndpad_zarr::read_array(&input, 1 << 30, 1 << 20, None)
                    .unwrap()
                    .view(),
                &spec,
            )
            .unwrap();
            let got = ndpad_zarr::read_array(&ZarrArray::open(&b).unwrap(), 1 << 30, 1 << 20, None)
                .unwrap();
            assert!(got == want, "{mode:?}");
        }
    }
    // A tensor held in memory written as a new array (8 chunks of 256 KiB, three
    // buffers a thread): a budget of 1 MiB holds one thread of the 16 asked.
    let x = ndpad_zarr::read_array(&input, 1 << 30, 1 << 20, None).unwrap();
    let budget: u64 = 1 << 20;
    let opts = ZarrPadOptions {
        threads: 16,
        chunks: Some(vec![4, 128, 128]),
        max_memory: Some(budget),
        ..ZarrPadOptions::default()
    };
    let report = write_within(&x, &dir.path().join("c.zarr"), &opts, "write_tensor");
    assert_eq!(report.threads, 1, "{report:?}");
}

#[test]
fn strings_are_budgeted_at_their_own_text() {
    let _alone = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // One 1 KiB string edge-padded to 20000 elements: 320 KB in memory (the text
    // shared), but a chunk's cells and encoding hold each element's own text.
    let one = Tensor::from_strings(&[1], vec!["x".repeat(1 << 10)]).unwrap();
    let x = ndpad::pad(
        one.view(),
        &PadSpec::new(vec![AxisPad::new(0, 19_999)], Mode::Edge),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let budget: u64 = 4 << 20;
    // The default chunk (all 20000: 21 MB of cells) is refused, not allocated.
    let opts = ZarrPadOptions {
        max_memory: Some(budget),
        ..ZarrPadOptions::default()
    };
    let e = ndpad_zarr::write_tensor(&x, &dir.path().join("a.zarr"), &opts).unwrap_err();
    assert!(
        e.to_string()
            .contains("a chunk of strings of shape [20000] (20960000 bytes of string)"),
        "{e}"
    );
    // Chunks of 500 (524 KB each) fit, on fewer threads than asked.
    let opts = ZarrPadOptions {
        threads: 16,
        chunks: Some(vec![500]),
        max_memory: Some(budget),
        ..ZarrPadOptions::default()
    };
    let b = dir.path().join("b.zarr");
    let report = write_within(&x, &b, &opts, "strings");
    assert!(report.threads < 16, "{report:?}");
    let back =
        ndpad_zarr::read_array(&ZarrArray::open(&b).unwrap(), 1 << 30, 1 << 20, None).unwrap();
    assert!(back == x);
}
