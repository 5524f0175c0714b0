//! Property tests: the fast kernel equals the reference implementation on random
//! ranks 0-6, shapes with zero-size axes, negative and oversized pads, every mode,
//! both policies, every dtype class and thread counts that split rows.

use ndpad::{
    pad_into, pad_with, reference, AxisPad, Corners, DType, Layout, Mode, NegativePads,
    OutputMemory, Oversize, PadOptions, PadSpec, Plan, Tensor, TensorViewMut,
};
use proptest::prelude::*;

mod common;
use common::{tensor, value};

fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DType::ALL.to_vec())
}

/// Every mode, the constant being `value(dtype, 1)`.
fn every_mode(dtype: DType) -> [Mode; 5] {
    [
        Mode::Constant(value(dtype, 1)),
        Mode::Edge,
        Mode::Reflect,
        Mode::Symmetric,
        Mode::Wrap,
    ]
}

#[derive(Debug, Clone)]
struct Case {
    dtype: DType,
    shape: Vec<usize>,
    pads: Vec<(i64, i64, u64)>,
    mode: u8,
    value: u8,
    crop_first: bool,
    repeat: bool,
    clamp: bool,
    seed: u64,
    threads: usize,
}

fn case(max_rank: usize, max_dim: usize, max_pad: i64) -> impl Strategy<Value = Case> {
    (0..=max_rank, dtype())
        .prop_flat_map(move |(rank, dtype)| {
            (
                Just(dtype),
                prop::collection::vec(0..=max_dim, rank),
                prop::collection::vec((-max_pad..=max_pad, -max_pad..=max_pad, 0u64..=2), rank),
                0u8..5,
                any::<u8>(),
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                any::<u64>(),
                prop::sample::select(vec![1usize, 2, 3]),
            )
        })
        .prop_map(
            |(dtype, shape, pads, mode, value, crop_first, repeat, clamp, seed, threads)| Case {
                dtype,
                shape,
                pads,
                mode,
                value,
                crop_first,
                repeat,
                clamp,
                seed,
                threads,
            },
        )
}

fn spec_of(c: &Case) -> PadSpec {
    let mode = match c.mode {
        0 => Mode::Constant(value(c.dtype, c.value)),
        1 => Mode::Edge,
        2 => Mode::Reflect,
        3 => Mode::Symmetric,
        _ => Mode::Wrap,
    };
    let interior_ok = mode.is_constant() || c.value.is_multiple_of(7); // mostly valid, sometimes an error
    let axes = c
        .pads
        .iter()
        .map(|&(begin, end, interior)| AxisPad {
            begin,
            end,
            interior: if interior_ok { interior } else { 0 },
        })
        .collect();
    // Half the constant pads give some sides constants of their own (numpy's
    // per-axis `constant_values`), from the seed's bits.
    let sides = if mode.is_constant() && c.seed % 4 < 2 {
        (0..c.pads.len())
            .map(|a| {
                [0, 1].map(|s| {
                    let bits = (c.seed >> ((8 + 4 * a + 2 * s) % 60)) & 3;
                    value(c.dtype, (bits as u8).wrapping_add(c.value))
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    // Corners to the first axis on a quarter of them (the seed's bits 62-63).
    let corners = match c.seed >> 62 {
        0 => Corners::FirstAxis,
        _ => Corners::LastAxis,
    };
    PadSpec::new(axes, mode)
        .with_sides(sides)
        .with_corners(corners)
        .with_negative(if c.crop_first {
            NegativePads::CropFirst
        } else {
            NegativePads::OriginalIndex
        })
        .with_oversize(if c.repeat {
            Oversize::Repeat
        } else {
            Oversize::Error
        })
        .with_clamp_negative_extent(c.clamp)
}

/// Outputs larger than this, counted at 32 bytes an element (more than any type
/// takes), are not compared: the reference refuses those over
/// [`reference::LIMIT_BYTES`], and building them one element at a time is slow.
const CHECK_LIMIT_BYTES: u128 = 32 << 20;

fn check(c: &Case) -> Result<(), TestCaseError> {
    let x = tensor(c.dtype, c.shape.clone(), c.seed);
    let spec = spec_of(c);
    if let Ok(shape) = ndpad::output_shape(&c.shape, &spec) {
        let elems: u128 = shape.iter().map(|&d| d as u128).product();
        prop_assume!(
            elems * 32 <= CHECK_LIMIT_BYTES,
            "output of {} elements",
            elems
        );
    }
    let want = reference::pad(x.view(), &spec);
    let opts = PadOptions {
        threads: c.threads,
        interrupt: None,
        parallel_threshold: 0,
        max_output_bytes: None,
        // Half the cases write whole planes around the cache, however small.
        stream_min_bytes: if c.seed.is_multiple_of(2) {
            0
        } else {
            usize::MAX
        },
        // pad_with writes its fresh output through the cache; pad_into below streams.
        output_memory: OutputMemory::Written,
        kernel: None,
    };
    let got = pad_with(x.view(), &spec, &opts);
    match (&want, &got) {
        (Ok(w), Ok(g)) => prop_assert_eq!(w, g),
        (Err(w), Err(g)) => prop_assert_eq!(w, g),
        _ => prop_assert!(false, "reference {:?} but kernel {:?}", want, got),
    }
    // One plan run until it takes its setup for repeated runs (whole planes and
    // tables, even for small outputs), made at its second run or, for a tiny plane's
    // table, up to 32 runs later (one for every 256 entries of an 8 KiB table: the
    // tuned TINY_TABLE_GRAINS_A_RUN and TINY_PLANE_MAX), and taken again after.
    if let (Ok(w), Ok(plan)) = (&want, Plan::new(c.dtype, &c.shape, &spec)) {
        for run in 0..36 {
            prop_assert_eq!(w, &plan.pad(x.view(), &opts).unwrap(), "run {}", run);
        }
    }
    // pad_into a caller's buffer gives the same bytes.
    if let Ok(w) = want {
        if let Some(bytes) = w.bytes() {
            let mut buf = vec![0xAAu8; bytes.len()];
            let mut out = TensorViewMut::from_bytes(c.dtype, w.shape(), &mut buf).unwrap();
            pad_into(x.view(), &spec, &mut out, &opts).unwrap();
            prop_assert_eq!(&buf[..], bytes);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn kernel_equals_reference_small(c in case(6, 4, 5)) {
        check(&c)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn kernel_equals_reference_wide(c in case(3, 90, 70)) {
        check(&c)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The runs of an axis read exactly what `AxisMap::src` says, coordinate by
    /// coordinate.
    #[test]
    fn runs_equal_coordinate_map(c in case(1, 12, 30)) {
        let spec = spec_of(&c);
        for (axis, (&d, pad)) in c.shape.iter().zip(&spec.axes).enumerate() {
            let Ok(map) = ndpad::axis_map(axis, d, pad, &spec) else { continue };
            let runs = ndpad::segments(axis, &map).unwrap();
            let expanded: Vec<Option<usize>> =
                runs.iter().flat_map(|s| (0..s.len()).map(move |k| s.src_at(k))).collect();
            let direct: Vec<Option<usize>> = (0..map.n).map(|o| map.src(o)).collect();
            prop_assert_eq!(expanded, direct);
        }
    }
}

/// Packed types whose trailing unpadded axes fill whole bytes (the byte-aligned path).
fn aligned_packed_case() -> impl Strategy<Value = Case> {
    (
        case(3, 5, 4),
        prop::sample::select(vec![
            DType::Int4,
            DType::Uint4,
            DType::Float4E2M1,
            DType::Int2,
            DType::Uint2,
        ]),
        prop::sample::select(vec![4usize, 8, 12]),
    )
        .prop_map(|(mut c, dtype, last)| {
            c.dtype = dtype;
            c.shape.push(last);
            c.pads.push((0, 0, 0));
            c
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn kernel_equals_reference_packed_aligned(c in aligned_packed_case()) {
        check(&c)?;
    }
}

/// Packed outputs padded on their last axis (rows that start inside bytes), large
/// enough to be split among threads in blocks of rows that start on bytes.
#[test]
fn packed_unaligned_rows_in_blocks() {
    for dtype in [
        DType::Int4,
        DType::Uint4,
        DType::Float4E2M1,
        DType::Int2,
        DType::Uint2,
    ] {
        let x = tensor(dtype, vec![301, 299], 7);
        let interior = |begin, end| AxisPad {
            interior: 1,
            ..AxisPad::new(begin, end)
        };
        let specs = every_mode(dtype)
            .map(|mode| PadSpec::new(vec![AxisPad::new(2, 1), AxisPad::new(3, 2)], mode));
        let spread = PadSpec::new(
            vec![interior(1, 0), interior(-3, 2)],
            Mode::Constant(value(dtype, 2)),
        );
        for spec in specs.iter().chain([&spread]) {
            let want = reference::pad(x.view(), spec).unwrap();
            for threads in [1, 2, 3] {
                let opts = PadOptions {
                    threads,
                    parallel_threshold: 0,
                    ..PadOptions::default()
                };
                assert_eq!(
                    pad_with(x.view(), spec, &opts).unwrap(),
                    want,
                    "{dtype} {threads} {spec:?}"
                );
                // Into a buffer of stray bits: every element and the unused bits of
                // the last byte are written.
                let bytes = want.bytes().unwrap();
                let mut buf = vec![0xAAu8; bytes.len()];
                let mut out = TensorViewMut::from_bytes(dtype, want.shape(), &mut buf).unwrap();
                pad_into(x.view(), spec, &mut out, &opts).unwrap();
                assert_eq!(&buf[..], bytes, "into {dtype} {threads} {spec:?}");
            }
        }
    }
}

/// Asserts that the kernel, with each thread count (every block split, however
/// small), gives the reference's output, both fresh and into a buffer holding other
/// bytes (so that every output byte must be written), writing whole planes both
/// directly and around the cache (however small the output).
fn assert_kernel_matches(x: &Tensor, spec: &PadSpec, threads: &[usize], what: &str) {
    let want = reference::pad(x.view(), spec).unwrap();
    assert_kernel_gives(x, spec, &want, threads, what);
}

/// [`assert_kernel_matches`] against a given output (where the reference is too slow).
/// Failures name the case, not the tensors (which may be large).
fn assert_kernel_gives(x: &Tensor, spec: &PadSpec, want: &Tensor, threads: &[usize], what: &str) {
    for (&threads, stream_min_bytes) in threads.iter().flat_map(|t| [(t, usize::MAX), (t, 0)]) {
        let opts = PadOptions {
            interrupt: None,
            threads,
            parallel_threshold: 0,
            max_output_bytes: None,
            stream_min_bytes,
            output_memory: OutputMemory::Written,
            kernel: None,
        };
        let what = format!("{what}, threads {threads}, stream from {stream_min_bytes}");
        assert!(pad_with(x.view(), spec, &opts).unwrap() == *want, "{what}");
        if let Some(bytes) = want.bytes() {
            let mut buf = vec![0xAAu8; bytes.len()];
            let mut out = TensorViewMut::from_bytes(x.dtype(), want.shape(), &mut buf).unwrap();
            pad_into(x.view(), spec, &mut out, &opts).unwrap();
            assert!(buf == bytes, "{what} (into)");
        }
    }
}

/// Narrow constant-padded rows of up to 64 bytes take the fixed-width window path
/// (rows of 8, 16, 32 or 64 bytes one window each, narrower ones a window reaching
/// into the next row): windows that start before the input (a begin pad on the first
/// row), end after it (the last rows), and batches split among threads.
#[test]
fn narrow_rows_through_windows() {
    let cases: [(DType, usize, i64, i64); 15] = [
        (DType::Float32, 7, 0, 1),
        (DType::Float32, 6, 1, 1),
        (DType::Float32, 13, 2, 1),
        (DType::Uint8, 5, 2, 1),
        (DType::Uint8, 60, 3, 1),
        (DType::Float64, 3, 1, 0),
        (DType::Int16, 14, 0, 2),
        (DType::Float16, 4, 3, 1),
        // Narrower than their window: 40, 5, 12, 44, 62, 3 and 24 bytes.
        (DType::Float64, 3, 1, 1),
        (DType::Uint8, 3, 1, 1),
        (DType::Float32, 1, 1, 1),
        (DType::Float32, 10, 1, 0),
        (DType::Int16, 29, 0, 2),
        (DType::Uint8, 1, 1, 1),
        (DType::Complex64, 1, 1, 1),
    ];
    for (dtype, width, begin, end) in cases {
        let x = tensor(dtype, vec![1001, width], 11);
        for value in [None, value(dtype, 1), value(dtype, 2)] {
            let spec = PadSpec::new(
                vec![AxisPad::new(0, 0), AxisPad::new(begin, end)],
                Mode::Constant(value),
            );
            let what = format!("{dtype} {width} {begin} {end}");
            assert_kernel_matches(&x, &spec, &[1, 3], &what);
        }
    }
}

/// Row copies of 64 bytes up to 1 KiB take an inlined loop of 64-byte moves (the last
/// one overlapping); rows that are one run of their input row (crops of the last axis)
/// take a loop of such copies; rows of one long copy between a few single elements take
/// the fixed-array path. Every byte length around those bounds, in all modes, fresh and
/// into a dirty buffer.
#[test]
fn row_copies_around_the_inline_bounds() {
    let widths = [
        15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 2047, 2048, 2049,
    ];
    for width in widths {
        let x = tensor(DType::Uint8, vec![2, 5, width * 4], 5);
        let y = tensor(DType::Float32, vec![2, 5, width], 7);
        for (begin, end) in [(-1, -2), (0, 0), (-3, 0), (1, 2), (3, -1), (2, 0)] {
            for x in [&x, &y] {
                let modes = [
                    Mode::Constant(None),
                    Mode::Constant(value(x.dtype(), 1)),
                    Mode::Edge,
                    Mode::Reflect,
                    Mode::Symmetric,
                    Mode::Wrap,
                ];
                for mode in modes {
                    let spec = PadSpec::new(
                        vec![
                            AxisPad::new(0, 0),
                            AxisPad::new(-1, 1),
                            AxisPad::new(begin, end),
                        ],
                        mode.clone(),
                    );
                    let what = format!("{} width {width} pads {begin},{end} {mode:?}", x.dtype());
                    assert_kernel_matches(x, &spec, &[1, 3], &what);
                }
            }
        }
    }
}

/// Unpadded trailing axes whose bytes make 3, 6 or 12 (RGB pixels of u8, u16, f32) are
/// moved as one element each, like 2, 4, 8 and 16.
#[test]
fn pixel_units_of_three_channels() {
    for dtype in [DType::Uint8, DType::Int16, DType::Float32, DType::Float64] {
        let x = tensor(dtype, vec![6, 9, 3], 3);
        for mode in every_mode(dtype) {
            for (b, e) in [(2, 3), (-1, 4), (5, -2)] {
                let spec = PadSpec::new(
                    vec![AxisPad::new(b, e), AxisPad::new(e, b), AxisPad::new(0, 0)],
                    mode.clone(),
                )
                .with_oversize(Oversize::Repeat);
                assert_kernel_matches(&x, &spec, &[1, 2], &format!("{dtype} {mode:?} {b},{e}"));
            }
        }
    }
}

/// Runs of 16 MiB or more are copied with non-temporal stores: regular stores up to
/// the destination's first 64-byte boundary, whole lines streamed, regular stores for
/// the rest. Pads and crops at either end move where the run starts in the input and
/// the output; one thread (the path) and two (blocks below the threshold).
#[test]
fn long_runs_streamed() {
    let n = (16 << 20) + 77;
    let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
    let x = Tensor::from_bytes(DType::Uint8, &[n], data.clone()).unwrap();
    for (begin, end) in [(3i64, 5i64), (64, 0), (0, 1), (-5, 2), (7, -3), (-1, -63)] {
        let lo = begin.min(0).unsigned_abs() as usize;
        let hi = n - end.min(0).unsigned_abs() as usize;
        let mut want = vec![0u8; begin.max(0) as usize];
        want.extend_from_slice(&data[lo..hi]);
        want.resize(want.len() + end.max(0) as usize, 0);
        let want = Tensor::from_bytes(DType::Uint8, &[want.len()], want).unwrap();
        let spec = PadSpec::new(vec![AxisPad::new(begin, end)], Mode::Constant(None));
        assert_kernel_gives(&x, &spec, &want, &[1, 2], &format!("pads {begin}, {end}"));
    }
}

/// Whole planes (passes of the innermost outer axis) are written from that axis's row
/// map: rows of one copy between a few single elements through the kernel checked
/// once a plane (their first and last 16 bytes blended from the input, or up to 64
/// elements copied one by one), crops as copies, other rows one by one; the next
/// plane's first rows are prefetched where the input jumps (wrap padding, a large
/// crop), and planes of 16 KiB of input or more read ahead. Outputs of 64 KiB or
/// more (smaller ones go batch by batch). Every mode, element sizes from 1 to 16
/// bytes, single elements within 16 bytes or beyond, threads splitting planes
/// (between rows and inside them).
#[test]
fn whole_planes() {
    type Case = (DType, Vec<usize>, Vec<(i64, i64)>, Mode);
    let mut cases: Vec<Case> = vec![
        (
            DType::Float32,
            vec![2, 3, 40, 600],
            vec![(0, 0), (0, 0), (3, 2), (1, 3)],
            Mode::Wrap,
        ),
        (
            DType::Uint8,
            vec![3, 70, 2100],
            vec![(0, 0), (5, 5), (2, 2)],
            Mode::Wrap,
        ),
        (
            DType::Float32,
            vec![2, 200, 300],
            vec![(0, 0), (-60, -20), (2, 2)],
            Mode::Constant(None),
        ),
        (
            DType::Float64,
            vec![4, 33, 300],
            vec![(1, 0), (-1, 30), (1, 1)],
            Mode::Wrap,
        ),
    ];
    // A single plane of a few long rows, which threads split inside rows (fewer rows
    // than blocks): parts of the plane, then the rest of a row.
    for mode in every_mode(DType::Float32) {
        cases.push((DType::Float32, vec![3, 9000], vec![(1, 2), (3, 2)], mode));
    }
    // Planes of 23 KiB of input in rows of 320 bytes: written around the cache, the
    // staged loop that reads ahead (row ends blended, the constant around the copy,
    // a crop), whole and split among threads.
    for mode in every_mode(DType::Float32) {
        for row in [(2, 3), (-2, -2)] {
            cases.push((
                DType::Float32,
                vec![3, 4, 72, 80],
                vec![(0, 0), (0, 0), (3, 1), row],
                mode.clone(),
            ));
        }
    }
    // RGB pixels of u8 padded by 16 on each side: 48 bytes of single elements at each
    // end, too many for the blends (in modes other than the constant, each element
    // copied on its own after the row's copy); in rows of 216 bytes, and of 2496
    // (over the staging limit: the long-row loop when streamed).
    for mode in every_mode(DType::Uint8) {
        for w in [40, 800] {
            cases.push((
                DType::Uint8,
                vec![16, 20, w, 3],
                vec![(0, 0), (3, 2), (16, 16), (0, 0)],
                mode.clone(),
            ));
        }
    }
    for dtype in [
        DType::Uint8,
        DType::Int16,
        DType::Float32,
        DType::Float64,
        DType::Complex128,
    ] {
        for mode in every_mode(dtype) {
            for row in [(1, 2), (3, 3), (4, 0), (0, 5), (9, 9), (-2, 3)] {
                cases.push((
                    dtype,
                    vec![64, 13, 70],
                    vec![(0, 0), (2, 1), row],
                    mode.clone(),
                ));
            }
        }
    }
    for (dtype, shape, pads, mode) in cases {
        let x = tensor(dtype, shape.clone(), 5);
        let spec = PadSpec::new(
            pads.iter().map(|&(b, e)| AxisPad::new(b, e)).collect(),
            mode,
        );
        assert_kernel_matches(
            &x,
            &spec,
            &[1, 2, 3],
            &format!("{dtype:?} {shape:?} {pads:?}"),
        );
    }
}

/// The element at flat index `i` of `t`, written at flat index `j` of `out` (the
/// buffer of a tensor of the same type), whatever the layout.
fn copy_element(t: &Tensor, i: usize, out: &mut ndpad::Buffer, j: usize) {
    match (out, t.dtype().layout()) {
        (ndpad::Buffer::Strings(s), _) => {
            assert!(s.set(j, t.strings().unwrap().get(i).unwrap()));
        }
        (ndpad::Buffer::Bytes(b), Layout::Packed(bits)) => {
            let v = ndpad::packed::get(t.bytes().unwrap(), bits, i).unwrap();
            ndpad::packed::set(b, bits, j, v);
        }
        (ndpad::Buffer::Bytes(b), _) => {
            let w = t.dtype().byte_len(1).unwrap();
            b[j * w..(j + 1) * w].copy_from_slice(&t.bytes().unwrap()[i * w..(i + 1) * w]);
        }
    }
}

fn tensor_of(dtype: DType, shape: &[usize], buffer: ndpad::Buffer) -> Tensor {
    match buffer {
        ndpad::Buffer::Strings(s) => Tensor::from_strings(shape, s).unwrap(),
        ndpad::Buffer::Bytes(b) => Tensor::from_bytes(dtype, shape, b.into_vec()).unwrap(),
    }
}

/// The box `b` of `t` (a range of coordinates per axis) as a tensor of its own.
fn slice_box(t: &Tensor, b: &[std::ops::Range<usize>]) -> Tensor {
    take(
        t,
        &b.iter().map(|r| r.clone().collect()).collect::<Vec<_>>(),
    )
}

/// The elements of `t` at the given coordinates of each axis, as a tensor of its own.
fn take(t: &Tensor, coords: &[Vec<usize>]) -> Tensor {
    let shape: Vec<usize> = coords.iter().map(Vec::len).collect();
    let n: usize = shape.iter().product();
    let mut out = match t.dtype().layout() {
        Layout::Strings => ndpad::Buffer::Strings(ndpad::Strings::filled(n, "").unwrap()),
        _ => ndpad::Buffer::Bytes(vec![0; t.dtype().byte_len(n).unwrap()].into()),
    };
    for j in 0..n {
        // Coordinates of element j of the box, then its flat index in t.
        let (mut rest, mut i, mut stride) = (j, 0, 1);
        for a in (0..shape.len()).rev() {
            i += coords[a][rest % shape[a]] * stride;
            rest /= shape[a];
            stride *= t.shape()[a];
        }
        copy_element(t, i, &mut out, j);
    }
    tensor_of(t.dtype(), &shape, out)
}

/// A box of `shape` picked by `seed`: per axis a random sub-range (possibly empty).
fn random_box(shape: &[usize], seed: u64) -> Vec<std::ops::Range<usize>> {
    let mut s = seed | 1;
    shape
        .iter()
        .map(|&n| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (s >> 33) as usize % (n + 1);
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = (s >> 33) as usize % (n + 1);
            if s.is_multiple_of(5) {
                0..n // the whole axis, often
            } else {
                a.min(b)..a.max(b)
            }
        })
        .collect()
}

fn check_window(c: &Case) -> Result<(), TestCaseError> {
    let x = tensor(c.dtype, c.shape.clone(), c.seed);
    let spec = spec_of(c);
    let Ok(full) = reference::pad(x.view(), &spec) else {
        // An invalid pad is as invalid for any window of it.
        let b: Vec<_> = c.shape.iter().map(|_| 0..0).collect();
        prop_assert!(
            ndpad::Plan::window(c.dtype, &c.shape, &spec, &b, ndpad::Source::Region).is_err()
        );
        return Ok(());
    };
    let elems: u128 = full.shape().iter().map(|&d| d as u128).product();
    prop_assume!(elems * 32 <= CHECK_LIMIT_BYTES);
    for k in 0..3u64 {
        let b = random_box(full.shape(), c.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let want = slice_box(&full, &b);
        let w = ndpad::Plan::window(c.dtype, &c.shape, &spec, &b, ndpad::Source::Region).unwrap();
        prop_assert_eq!(w.plan.output_shape(), want.shape());
        for (a, (hull, reads)) in w.input.iter().zip(&w.reads).enumerate() {
            prop_assert!(hull.end <= c.shape[a]);
            if let (Some(f), Some(l)) = (reads.first(), reads.last()) {
                prop_assert_eq!(hull.clone(), f.start..l.end);
            }
        }
        // The region as its own tensor, with every element outside `reads` changed:
        // the box must not depend on them.
        let region = slice_box(&x, &w.input);
        let other = tensor(c.dtype, region.shape().to_vec(), c.seed.wrapping_add(99));
        let (_, region_shape, mut buffer) = region.into_parts();
        let n: usize = region_shape.iter().product();
        for j in 0..n {
            let (mut rest, mut unread) = (j, false);
            for a in (0..region_shape.len()).rev() {
                let coord = w.input[a].start + rest % region_shape[a];
                rest /= region_shape[a];
                unread |= !w.reads[a].iter().any(|r| r.contains(&coord));
            }
            if unread {
                copy_element(&other, j, &mut buffer, j);
            }
        }
        let region = tensor_of(c.dtype, &region_shape, buffer);
        let opts = PadOptions {
            threads: c.threads,
            interrupt: None,
            parallel_threshold: 0,
            ..PadOptions::default()
        };
        let got = match want.dtype().layout() {
            Layout::Strings => {
                // A dirty buffer: every element and the text must be replaced.
                let mut s = ndpad::Strings::filled(want.strings().unwrap().len(), "old").unwrap();
                let mut out = TensorViewMut::from_strings(want.shape(), &mut s).unwrap();
                w.plan.execute(region.view(), &mut out, &opts).unwrap();
                Tensor::from_strings(want.shape(), s).unwrap()
            }
            _ => {
                let mut buf = vec![0u8; want.bytes().unwrap().len()];
                let mut out = TensorViewMut::from_bytes(c.dtype, want.shape(), &mut buf).unwrap();
                w.plan.execute(region.view(), &mut out, &opts).unwrap();
                Tensor::from_bytes(c.dtype, want.shape(), buf).unwrap()
            }
        };
        prop_assert_eq!(&got, &want, "box {:?} of {:?}", b, full.shape());
        // The same box from the intervals it reads, laid end to end.
        let reads =
            ndpad::Plan::window(c.dtype, &c.shape, &spec, &b, ndpad::Source::Reads).unwrap();
        let coords: Vec<Vec<usize>> = reads
            .reads
            .iter()
            .map(|iv| iv.iter().flat_map(|r| r.clone()).collect())
            .collect();
        let compact = take(&x, &coords);
        prop_assert_eq!(reads.plan.input_shape(), compact.shape());
        let got = reads.plan.pad(compact.view(), &opts).unwrap();
        prop_assert_eq!(&got, &want, "box {:?} of {:?}, reads", b, full.shape());
        // The same box read from the whole input, in place.
        let whole =
            ndpad::Plan::window(c.dtype, &c.shape, &spec, &b, ndpad::Source::Whole).unwrap();
        prop_assert_eq!(whole.plan.input_shape(), &c.shape[..]);
        let got = whole.plan.pad(x.view(), &opts).unwrap();
        prop_assert_eq!(
            &got,
            &want,
            "box {:?} of {:?}, whole input",
            b,
            full.shape()
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Any box of the output, computed from the input region it reads (with every
    /// element it does not read changed), equals that box of the whole pad.
    #[test]
    fn windows_equal_boxes_of_the_reference(c in case(4, 6, 7)) {
        check_window(&c)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn windows_equal_boxes_of_the_reference_wide(c in case(2, 40, 50)) {
        check_window(&c)?;
    }
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // a box of one axis
fn window_errors_name_the_box() {
    let spec = PadSpec::new(vec![AxisPad::new(1, 1)], Mode::Edge);
    let err = ndpad::Plan::window(DType::Float32, &[3], &spec, &[2..6], ndpad::Source::Region)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "axis 0: the window 2..6 is not inside the output extent 5"
    );
    let err =
        ndpad::Plan::window(DType::Float32, &[3], &spec, &[], ndpad::Source::Region).unwrap_err();
    assert_eq!(err.to_string(), "the window has 0 axes; the tensor has 1");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// The box covering the whole output, read from the whole input, is today's plan:
    /// same row axis, unit and segments up to the row axis (so the same kernel paths,
    /// at the same speed).
    #[test]
    fn whole_window_is_the_plan(c in case(5, 6, 6)) {
        let spec = spec_of(&c);
        let Ok(plan) = ndpad::Plan::new(c.dtype, &c.shape, &spec) else { return Ok(()) };
        prop_assume!(plan.output_numel() > 0);
        let b: Vec<_> = plan.output_shape().iter().map(|&n| 0..n).collect();
        let w = ndpad::Plan::window(c.dtype, &c.shape, &spec, &b, ndpad::Source::Whole).unwrap();
        prop_assert_eq!(w.plan.row_axis(), plan.row_axis());
        prop_assert_eq!(w.plan.unit(), plan.unit());
        prop_assert_eq!(w.plan.input_shape(), plan.input_shape());
        let r = plan.row_axis().map_or(0, |r| r + 1);
        prop_assert_eq!(&w.plan.axes()[..r], &plan.axes()[..r]);
    }
}
