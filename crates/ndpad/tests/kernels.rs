//! Every row kernel forced in turn: the kernel equals the reference on random pads
//! (each kernel where it applies, whatever the size thresholds say), and each kernel
//! is shown to have run on enough of them, so that a changed threshold cannot
//! silently drop a kernel's coverage. Path tests pin which kernel the benchmark's
//! workload shapes take. Run once as is and once with
//! `NDPAD_DISABLE_CPU_FEATURES=avx2,avx,ssse3` (the portable paths; `.ci/run`).

mod common;
use common::{strided_bytes, tensor, Rng};

use ndpad::{
    reference, AxisPad, DType, KernelName, Layout, Mode, OutputMemory, PadOptions, PadSpec, Plan,
    Scalar, Tensor,
};

/// A random case shaped so that every kernel applies to some: rank 1-4, small outer
/// axes, a row axis whose padded width is often a power of two (narrow rows) or has a
/// few elements at each end (sandwiches, blends, singles), sometimes cropped (slices)
/// or interior-padded (programs, runs), every mode and dtype class.
fn case(seed: u64) -> (Tensor, PadSpec, usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let dtypes = [
        DType::Float32,
        DType::Float32,
        DType::Uint8,
        DType::Uint8,
        DType::Float16,
        DType::Float64,
        DType::Int64,
        DType::Complex128,
        DType::String,
        DType::Int4,
        DType::Bool,
    ];
    let dtype = rng.pick(&dtypes);
    let rank = 1 + rng.below(4) as usize;
    let mut shape: Vec<usize> = (0..rank - 1).map(|_| 1 + rng.below(6) as usize).collect();
    let (lo, hi) = match rng.below(4) {
        // Padded by a few (both ends, one end, or a crop).
        0 => (rng.below(4) as i64, rng.below(4) as i64),
        1 => (-(rng.below(3) as i64), -(rng.below(3) as i64)),
        2 => (rng.below(20) as i64, rng.below(20) as i64),
        _ => (rng.below(2) as i64, 1 + rng.below(2) as i64),
    };
    // The row's output width: a power of two in bytes half the time.
    let size = dtype.bits().div_ceil(8).max(1) as usize;
    let out_bytes = rng.pick(&[8usize, 16, 32, 64]);
    let dim = if rng.below(2) == 0 && dtype != DType::String {
        let w = (out_bytes / size) as i64 - lo - hi;
        w.max(1) as usize
    } else {
        rng.below(70) as usize
    };
    shape.push(dim);
    let mode = match rng.below(5) {
        0 | 1 => Mode::Constant(match dtype {
            DType::String => Some(Scalar::string("pad".to_string())),
            _ => Scalar::from_bits(dtype, u128::from(rng.below(3))).ok(),
        }),
        2 => Mode::Edge,
        3 => Mode::Reflect,
        _ => Mode::Wrap,
    };
    let interior = mode.is_constant() && rng.below(6) == 0;
    let mut pads: Vec<AxisPad> = (0..rank - 1)
        .map(|_| AxisPad {
            begin: rng.below(4) as i64 - 1,
            end: rng.below(4) as i64 - 1,
            interior: 0,
        })
        .collect();
    pads.push(AxisPad {
        begin: lo,
        end: hi,
        interior: u64::from(interior),
    });
    let x = tensor(dtype, shape, rng.next());
    let threads = rng.pick(&[1usize, 1, 2, 3]);
    (x, PadSpec::new(pads, mode), threads)
}

/// Runs `cases` random cases with `kernel` forced: each equals the reference; returns
/// on how many the kernel ran.
fn forced(kernel: KernelName, cases: u64) -> usize {
    let mut ran = 0;
    for seed in 0..cases {
        let (x, spec, threads) = case(seed);
        let Ok(plan) = Plan::new(x.dtype(), x.shape(), &spec) else {
            continue;
        };
        let opts = PadOptions {
            threads,
            parallel_threshold: 0,
            stream_min_bytes: if seed % 2 == 0 { 0 } else { usize::MAX },
            kernel: Some(kernel),
            ..PadOptions::default()
        };
        let want = reference::pad(x.view(), &spec).unwrap();
        let (got, name) = plan.pad_reporting(x.view(), &opts).unwrap();
        assert!(
            got == want,
            "{kernel} forced, seed {seed}: {:?} {:?} {spec:?}",
            x.dtype(),
            x.shape()
        );
        ran += usize::from(name == Some(kernel));
    }
    ran
}

/// Whether the portable paths were asked for (SSSE3 off: no blends).
fn no_ssse3() -> bool {
    std::env::var("NDPAD_DISABLE_CPU_FEATURES").is_ok_and(|v| v.to_lowercase().contains("ssse3"))
}

macro_rules! forced_tests {
    ($($name:ident: $kernel:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            let k = KernelName::$kernel;
            let ran = forced(k, 600);
            if k == KernelName::Blend && no_ssse3() {
                assert_eq!(ran, 0, "blends without SSSE3");
            } else {
                assert!(ran >= 30, "{k} ran on only {ran} of 600 cases");
            }
        }
    )*};
}

forced_tests! {
    forced_narrow: Narrow,
    forced_slice: Slice,
    forced_blend: Blend,
    forced_constant_ends: ConstantEnds,
    forced_singles: Singles,
    forced_sandwich: Sandwich,
    forced_program: Program,
    forced_runs: Runs,
}

/// A shape, its pads and mode, and the kernel it must take.
type PathCase = (DType, Vec<usize>, Vec<AxisPad>, Mode, KernelName);

/// The kernel each shape of the benchmark's table takes (small versions of them: the
/// choice depends on the row shape and on the output being large enough for whole
/// planes), so that a changed threshold or order shows up here.
#[test]
fn benchmark_shapes_take_their_kernels() {
    let hw = |p: i64| {
        vec![
            AxisPad::new(0, 0),
            AxisPad::new(0, 0),
            AxisPad::new(p, p),
            AxisPad::new(p, p),
        ]
    };
    // Without SSSE3 (no blends) the next kernel that applies.
    let (blend, blend_constant, blend_row) = match no_ssse3() {
        true => (
            KernelName::Singles,
            KernelName::ConstantEnds,
            KernelName::Sandwich,
        ),
        false => (KernelName::Blend, KernelName::Blend, KernelName::Blend),
    };
    let cases: Vec<PathCase> = vec![
        (
            DType::Float32,
            vec![1, 8, 56, 56],
            hw(3),
            Mode::Reflect,
            blend,
        ),
        (DType::Float32, vec![1, 8, 56, 56], hw(3), Mode::Wrap, blend),
        (
            DType::Float32,
            vec![1, 8, 56, 56],
            hw(1),
            Mode::Constant(None),
            blend_constant,
        ),
        (
            DType::Float32,
            vec![1, 8, 56, 56],
            hw(-2),
            Mode::Constant(None),
            KernelName::Slice,
        ),
        (
            DType::Float32,
            vec![4096, 7],
            vec![AxisPad::new(0, 0), AxisPad::new(0, 1)],
            Mode::Constant(None),
            KernelName::Narrow,
        ),
        (
            // 40-byte rows: the 64-byte window, reaching into the next row.
            DType::Float64,
            vec![4096, 3],
            vec![AxisPad::new(0, 0), AxisPad::new(1, 1)],
            Mode::Constant(None),
            KernelName::Narrow,
        ),
        (
            DType::Uint8,
            vec![160, 256, 3],
            vec![
                AxisPad::new(16, 16),
                AxisPad::new(16, 16),
                AxisPad::new(0, 0),
            ],
            Mode::Reflect,
            KernelName::Singles,
        ),
        (
            DType::Uint8,
            vec![160, 256, 3],
            vec![
                AxisPad::new(16, 16),
                AxisPad::new(16, 16),
                AxisPad::new(0, 0),
            ],
            Mode::Constant(None),
            KernelName::ConstantEnds,
        ),
        (
            DType::Float32,
            vec![4, 64, 64],
            vec![AxisPad::new(2, 2), AxisPad::new(0, 0), AxisPad::new(0, 0)],
            Mode::Constant(None),
            // Axis 0 is the row axis, its unit the whole 64x64 plane.
            KernelName::ConstantEnds,
        ),
        (
            DType::Float32,
            vec![100_000],
            vec![AxisPad::new(1000, 1000)],
            Mode::Constant(None),
            KernelName::ConstantEnds,
        ),
        (
            DType::Float32,
            vec![1000],
            vec![AxisPad::new(3, 3)],
            Mode::Reflect,
            blend_row,
        ),
        (
            DType::Float32,
            vec![1000],
            vec![AxisPad::new(30, 30)],
            Mode::Reflect,
            KernelName::Program,
        ),
        (
            DType::Float32,
            vec![100, 100],
            vec![
                AxisPad::new(0, 0),
                AxisPad {
                    begin: 1,
                    end: 1,
                    interior: 1,
                },
            ],
            Mode::Constant(None),
            KernelName::Program,
        ),
        (
            DType::Int4,
            vec![64, 63],
            vec![AxisPad::new(1, 1), AxisPad::new(1, 0)],
            Mode::Edge,
            KernelName::Runs,
        ),
    ];
    for (dtype, shape, pads, mode, want) in cases {
        let n: usize = shape.iter().product();
        let x = Tensor::from_bytes(dtype, &shape, vec![1; dtype.byte_len(n).unwrap()]).unwrap();
        let spec = PadSpec::new(pads, mode);
        let plan = Plan::new(dtype, &shape, &spec).unwrap();
        let (_, name) = plan
            .pad_reporting(x.view(), &PadOptions::single_threaded())
            .unwrap();
        assert_eq!(name, Some(want), "{dtype:?} {shape:?} {spec:?}");
    }
}

/// The random cases (`case`) of fixed-width types that plan: the seed, the input, the
/// spec, the threads, the element's bytes and the plan.
fn fixed_width_cases(n: u64) -> impl Iterator<Item = (u64, Tensor, PadSpec, usize, usize, Plan)> {
    (0..n).filter_map(|seed| {
        let (x, spec, threads) = case(seed);
        let Layout::Bytes(w) = x.dtype().layout() else {
            return None;
        };
        let plan = Plan::new(x.dtype(), x.shape(), &spec).ok()?;
        Some((seed, x, spec, threads, w, plan))
    })
}

/// Inputs whose outer axes lie apart in memory (a slice of a larger array, rows in
/// place): `execute_strided` pads them as the reference pads their elements, under
/// every kernel, and reads nothing but their rows (the gaps hold bytes that would
/// show up in the output if read).
#[test]
fn strided_inputs_read_in_place() {
    let mut checked = 0;
    for (seed, x, spec, threads, w, plan) in fixed_width_cases(1500) {
        let shape = x.shape().to_vec();
        let row = plan.row_axis().unwrap_or(0);
        let mut rng = Rng(seed | 1);
        // C strides from the row axis on; gaps of whole units before it.
        let unit_bytes = plan.unit() * w;
        let mut strides = vec![0isize; shape.len()];
        let mut extent = w;
        for a in (0..shape.len()).rev() {
            if a < row {
                extent += unit_bytes * rng.below(3) as usize;
            }
            strides[a] = extent as isize;
            extent *= shape[a].max(1);
        }
        let outer = plan
            .strided_rows(&strides)
            .expect("a layout with row-major rows");
        assert_eq!(outer.len(), row);
        let buf = strided_bytes(&x, w, &strides, extent.max(1));
        let want = reference::pad(x.view(), &spec).unwrap();
        let mut out = vec![0xAAu8; want.bytes().unwrap().len()];
        let mut view = ndpad::TensorViewMut::from_bytes(x.dtype(), want.shape(), &mut out).unwrap();
        let opts = PadOptions {
            threads,
            parallel_threshold: 0,
            kernel: Some(KernelName::ALL[seed as usize % KernelName::ALL.len()]),
            ..PadOptions::default()
        };
        plan.execute_strided(&buf, &strides, &mut view, &opts)
            .unwrap();
        assert!(
            out == want.bytes().unwrap(),
            "seed {seed}: {:?} {shape:?} {strides:?} {spec:?}",
            x.dtype()
        );
        checked += usize::from(shape.iter().product::<usize>() > 0 && row > 0);
    }
    assert!(checked >= 200, "only {checked} strided cases");
}

/// `x`'s elements laid out in a random order of its axes, each with a step of one to
/// three times the span before (sometimes a byte more) and gaps between axes, or
/// (`broadcast`) a stride of 0 on one axis of several elements: the strides, the buffer (`strided_bytes`), and the tensor the
/// buffer holds at those strides (a broadcast axis repeats one element).
fn any_layout(
    x: &Tensor,
    w: usize,
    rng: &mut Rng,
    broadcast: bool,
) -> (Vec<isize>, Vec<u8>, Tensor) {
    let shape = x.shape().to_vec();
    let mut order: Vec<usize> = (0..shape.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut strides = vec![0isize; shape.len()];
    let mut extent = w;
    for &a in order.iter().rev() {
        // Whole steps of the layout before, sometimes a byte more (elements off
        // their alignment, as in a field of a packed record).
        let step = extent * (1 + rng.below(3) as usize) + rng.below(2) as usize;
        strides[a] = step as isize;
        extent = step * shape[a].max(1) + w * rng.below(2) as usize;
    }
    if broadcast {
        if let Some(a) = (0..shape.len()).find(|&a| shape[a] > 1) {
            strides[a] = 0;
        }
    }
    let buf = strided_bytes(x, w, &strides, extent.max(1));
    // What the buffer holds at the strides.
    let n: usize = shape.iter().product();
    let mut held = Vec::with_capacity(n * w);
    for i in 0..n {
        let (mut at, mut rest) = (0usize, i);
        for a in (0..shape.len()).rev() {
            at += (rest % shape[a]) * strides[a] as usize;
            rest /= shape[a];
        }
        held.extend_from_slice(&buf[at..at + w]);
    }
    let held = Tensor::from_bytes(x.dtype(), &shape, held).unwrap();
    (strides, buf, held)
}

/// `plan` run by `execute_strided` on the input `(bytes, strides)` with `threads`
/// threads (each given a part however small): the output's bytes.
fn strided_pad(plan: &Plan, (buf, strides): (&[u8], &[isize]), threads: usize) -> Vec<u8> {
    strided_pad_into(
        plan,
        (buf, strides),
        options(threads, OutputMemory::Written, None),
    )
}

/// Options of `threads` threads (every output split), an output that holds what
/// `memory` says, written around the cache from `stream` bytes on (the default where
/// `None`).
fn options(threads: usize, memory: OutputMemory, stream: Option<usize>) -> PadOptions {
    let default = PadOptions::default();
    PadOptions {
        threads,
        parallel_threshold: 0,
        output_memory: memory,
        stream_min_bytes: stream.unwrap_or(default.stream_min_bytes),
        ..default
    }
}

/// [`strided_pad`] with `opts`, into an output that holds what their `output_memory`
/// says (zeros where `OutputMemory::Zeroed`).
fn strided_pad_into(plan: &Plan, (buf, strides): (&[u8], &[isize]), opts: PadOptions) -> Vec<u8> {
    let bytes = plan.dtype().byte_len(plan.output_numel()).unwrap();
    let fill = if opts.output_memory == OutputMemory::Zeroed {
        0
    } else {
        0xAA
    };
    let mut out = vec![fill; bytes];
    let mut view =
        ndpad::TensorViewMut::from_bytes(plan.dtype(), plan.output_shape(), &mut out).unwrap();
    plan.execute_strided(buf, strides, &mut view, &opts)
        .unwrap();
    out
}

/// Inputs in any layout (a step on the last axis, a transpose, a broadcast axis):
/// `execute_strided` gathers their rows and pads them as the reference pads their
/// elements, one box or many, on one thread or several.
#[test]
fn any_layout_is_gathered() {
    let mut gathered = 0;
    for (seed, x, spec, threads, w, plan) in fixed_width_cases(1500) {
        let mut rng = Rng(seed | 1);
        let (strides, buf, held) = any_layout(&x, w, &mut rng, seed % 5 == 0);
        let want = reference::pad(held.view(), &spec).unwrap();
        let out = strided_pad(&plan, (&buf, &strides), threads);
        assert!(
            out == want.bytes().unwrap(),
            "seed {seed}: {:?} {:?} {strides:?} {spec:?}",
            x.dtype(),
            x.shape()
        );
        gathered +=
            usize::from(plan.strided_rows(&strides).is_none() && !want.shape().contains(&0));
        // A window's plan (no spec of a whole pad to cut boxes from): gathered whole.
        let whole: Vec<_> = want.shape().iter().map(|&n| 0..n).collect();
        let window =
            Plan::window(x.dtype(), x.shape(), &spec, &whole, ndpad::Source::Whole).unwrap();
        let again = strided_pad(&window.plan, (&buf, &strides), threads);
        assert!(again == out, "seed {seed}: the window's plan");
    }
    assert!(gathered >= 300, "only {gathered} gathered cases");
    // Outputs of many boxes (256 KiB each): split on the first axis, on a middle one,
    // and along one long axis; every mode, interior pads, crops, a constant per side,
    // a zeroed output.
    let cases: [(DType, &[usize], Vec<AxisPad>); 5] = [
        (
            DType::Float32,
            &[300, 500],
            vec![AxisPad::new(7, 9), AxisPad::new(8, 3)],
        ),
        (
            DType::Uint8,
            &[3, 200, 700],
            vec![AxisPad::new(1, 0), AxisPad::new(5, 5), AxisPad::new(0, 2)],
        ),
        (DType::Float64, &[100_000], vec![AxisPad::new(1000, 999)]),
        (
            DType::Int16,
            &[4, 3, 150, 170],
            vec![
                AxisPad::new(0, 0),
                AxisPad::new(2, 1),
                AxisPad::new(-3, 4),
                AxisPad::new(3, -2),
            ],
        ),
        (
            DType::Float32,
            &[2, 400, 300],
            vec![
                AxisPad::new(1, 1),
                AxisPad {
                    begin: 2,
                    end: 1,
                    interior: 1,
                },
                AxisPad::new(1, 1),
            ],
        ),
    ];
    let w = |d: DType| match d.layout() {
        Layout::Bytes(w) => w,
        _ => unreachable!(),
    };
    for (k, (dtype, shape, pads)) in cases.into_iter().enumerate() {
        let x = tensor(dtype, shape.to_vec(), k as u64 + 7);
        let interior = pads.iter().any(|p| p.interior > 0);
        let side = |v: u128| Scalar::from_bits(dtype, v).ok();
        let sides = (0..shape.len())
            .map(|a| [side(a as u128 + 1), side(a as u128 + 5)])
            .collect();
        let constant = PadSpec::new(pads.clone(), Mode::Constant(None));
        let specs = [Mode::Reflect, Mode::Symmetric, Mode::Edge, Mode::Wrap]
            .into_iter()
            .filter(|_| !interior)
            .map(|mode| PadSpec::new(pads.clone(), mode))
            .chain([constant.clone()])
            .chain((!interior).then(|| constant.with_sides(sides)));
        for spec in specs {
            let plan = Plan::new(dtype, shape, &spec).unwrap();
            let mut rng = Rng(k as u64 * 31 + 5);
            // The first layout drawn whose rows are not in C order.
            let (strides, buf, held) = loop {
                let drawn = any_layout(&x, w(dtype), &mut rng, false);
                if plan.strided_rows(&drawn.0).is_none() {
                    break drawn;
                }
            };
            let want = reference::pad(held.view(), &spec).unwrap();
            // The boxes written through the cache, and around it (an output of at
            // least `stream_min_bytes`).
            for (threads, memory, stream) in [
                (1, OutputMemory::Written, None),
                (2, OutputMemory::Written, None),
                (1, OutputMemory::Written, Some(0)),
                (2, OutputMemory::Written, Some(0)),
                (3, OutputMemory::Zeroed, None),
                (2, OutputMemory::Zeroed, Some(0)),
            ] {
                let opts = options(threads, memory, stream);
                let out = strided_pad_into(&plan, (&buf, &strides), opts);
                assert!(
                    out == want.bytes().unwrap(),
                    "{dtype:?} {shape:?} {strides:?} {spec:?} {threads} {stream:?}"
                );
            }
        }
    }
}

/// Channels-last inputs read as channels-first (NHWC as NCHW), whose channels lie
/// closer than a cache line: gathered in the input's order, boxes of whole spans'
/// channels (32 of f32, 128 of u8, fewer where that box would be too large), the last
/// box of each image shorter; a crop of the channels moves the boxes off the spans.
/// And channels-first inputs read as channels-last (NCHW as NHWC), which keep C order
/// (their channels, the lines read between two uses of one, fit `GATHER_REUSE_LINES`).
#[test]
fn moved_channels_are_gathered() {
    let cases: [(DType, [usize; 4], [i64; 2]); 6] = [
        (DType::Float32, [2, 40, 60, 70], [0, 0]),
        (DType::Float32, [2, 40, 60, 70], [-3, 2]),
        (DType::Uint8, [2, 200, 50, 66], [0, 0]),
        (DType::Uint8, [1, 70, 200, 200], [1, -5]),
        // Squares transposed in registers with rows and columns left over: blocks of
        // 64 and 26 rows, 40 and 24 channels (16 and 8 a square).
        (DType::Uint8, [1, 40, 30, 90], [0, 0]),
        (DType::Uint16, [2, 24, 30, 90], [0, -3]),
    ];
    for (k, (dtype, [n, c, h, w], [c0, c1])) in cases.into_iter().enumerate() {
        let e = dtype.byte_len(1).unwrap();
        let x = tensor(dtype, vec![n, c, h, w], k as u64 + 3);
        let nhwc = [h * w * c * e, e, w * c * e, c * e].map(|s| s as isize);
        let buf = strided_bytes(&x, e, &nhwc, n * h * w * c * e);
        // NHWC [n, h, w, c] of an NCHW array.
        let y = tensor(dtype, vec![n, h, w, c], k as u64 + 11);
        let nchw = [h * w * c * e, w * e, e, h * w * e].map(|s| s as isize);
        let buf_nchw = strided_bytes(&y, e, &nchw, n * h * w * c * e);
        for (mode, moved) in [Mode::Constant(None), Mode::Reflect, Mode::Wrap]
            .into_iter()
            .flat_map(|m| [(m.clone(), false), (m, true)])
        {
            let (x, strides, buf, p) = match moved {
                false => (&x, nhwc, &buf, [(0, 0), (c0, c1), (1, 2), (3, 1)]),
                true => (&y, nchw, &buf_nchw, [(0, 0), (1, 2), (3, 1), (c0, c1)]),
            };
            let spec = PadSpec::new(p.map(|(b, e)| AxisPad::new(b, e)).to_vec(), mode);
            let plan = Plan::new(dtype, x.shape(), &spec).unwrap();
            assert_eq!(plan.strided_rows(&strides), None);
            let want = reference::pad(x.view(), &spec).unwrap();
            for (threads, stream) in [(1, None), (2, None), (1, Some(0)), (2, Some(0))] {
                let opts = options(threads, OutputMemory::Written, stream);
                let out = strided_pad_into(&plan, (buf, &strides), opts);
                assert!(
                    out == want.bytes().unwrap(),
                    "{dtype:?} {:?} {spec:?} {threads} {stream:?}",
                    x.shape()
                );
            }
        }
    }
}

/// Tiles of the memory-order gather whose rows are not side by side in its buffer (a
/// broadcast last axis after them): copied element by element, gathered whole (under
/// a box) and as a box's window.
#[test]
fn tiles_of_rows_apart_are_gathered() {
    let (p, q) = (16usize, 600usize);
    let strides = [4isize, 64, 0];
    let src: Vec<u8> = (0..(q - 1) * 64 + p * 4)
        .map(|i| (i * 7 % 251) as u8)
        .collect();
    for r in [3usize, 8] {
        let mut held = Vec::new();
        for i in 0..p {
            for j in 0..q {
                for _ in 0..r {
                    held.extend_from_slice(&src[i * 4 + j * 64..][..4]);
                }
            }
        }
        let x = Tensor::from_bytes(DType::Float32, &[p, q, r], held).unwrap();
        for mode in [Mode::Wrap, Mode::Reflect, Mode::Constant(None)] {
            let pads = vec![AxisPad::new(1, 2), AxisPad::new(3, 1), AxisPad::new(1, 1)];
            let spec = PadSpec::new(pads, mode);
            let plan = Plan::new(DType::Float32, x.shape(), &spec).unwrap();
            let want = reference::pad(x.view(), &spec).unwrap();
            for threads in [1, 2] {
                let out = strided_pad(&plan, (&src, &strides), threads);
                assert!(out == want.bytes().unwrap(), "{r} {spec:?} {threads}");
            }
        }
    }
}

/// Layouts the rows cannot be read from in place are told apart; a negative stride,
/// too few strides and a buffer shorter than the strides reach are refused, naming
/// them.
#[test]
fn strided_layouts_refused() {
    let x = Tensor::from_slice(&[3, 4, 5], &[0f32; 60]).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad::new(1, 1), AxisPad::new(0, 0), AxisPad::new(2, 0)],
        Mode::Edge,
    );
    let plan = Plan::new(x.dtype(), x.shape(), &spec).unwrap();
    assert_eq!(plan.strided_rows(&[80, 20, 4]), Some(vec![80, 20]));
    assert_eq!(plan.strided_rows(&[160, 40, 4]), Some(vec![160, 40]));
    // Rows not contiguous, a negative or misaligned outer stride, too few strides.
    for bad in [&[80, 20, 8][..], &[-80, 20, 4], &[82, 20, 4], &[80, 20]] {
        assert_eq!(plan.strided_rows(bad), None, "{bad:?}");
    }
    let mut out = vec![0u8; 5 * 4 * 7 * 4];
    let mut view = ndpad::TensorViewMut::from_bytes(DType::Float32, &[5, 4, 7], &mut out).unwrap();
    let opts = PadOptions::single_threaded();
    for bad in [&[-80, 20, 4][..], &[80, 20]] {
        let e = plan
            .execute_strided(&[0; 240], bad, &mut view, &opts)
            .unwrap_err();
        assert!(
            e.to_string().contains(&format!("byte strides {bad:?}")),
            "{e}"
        );
    }
    let e = plan
        .execute_strided(&[0; 240], &[80, 20, 8], &mut view, &opts)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("240 bytes where the strides reach 256"),
        "{e}"
    );
    let e = plan
        .execute_strided(&[0; 200], &[80, 20, 4], &mut view, &opts)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("200 bytes where the strides reach 240"),
        "{e}"
    );
    // A negative stride on an axis of one element: nothing is read along it.
    let one = Tensor::from_slice(&[1, 5], &[1f32, 2., 3., 4., 5.]).unwrap();
    let spec = PadSpec::new(vec![AxisPad::new(1, 0), AxisPad::new(0, 1)], Mode::Edge);
    let plan = Plan::new(DType::Float32, &[1, 5], &spec).unwrap();
    let got = strided_pad(&plan, (one.bytes().unwrap(), &[-20, 4]), 1);
    let want = reference::pad(one.view(), &spec).unwrap();
    assert_eq!(&got[..], want.bytes().unwrap());
    // Strings have no byte layout.
    let s = Tensor::from_strings(&[2], vec!["a", "b"]).unwrap();
    let plan = Plan::new(
        s.dtype(),
        s.shape(),
        &PadSpec::new(vec![AxisPad::new(1, 1)], Mode::Edge),
    )
    .unwrap();
    assert_eq!(plan.strided_rows(&[24]), None);
    let mut text: ndpad::Strings = vec![""; 4].into();
    let mut spans = ndpad::TensorViewMut::from_strings(&[4], &mut text).unwrap();
    let e = plan
        .execute_strided(&[0; 48], &[24], &mut spans, &opts)
        .unwrap_err();
    assert!(e.to_string().contains("byte strides [24]"), "{e}");
}

/// `OutputMemory` says what the output holds before the pad: a written (or fresh)
/// output gets every element, a zeroed one is trusted to hold the zero constant's
/// rows and row ends already (they are left as they are), and a non-zero constant is
/// always written.
#[test]
fn output_memory_decides_what_is_written() {
    let x = Tensor::from_slice(&[2, 3], &[1u8, 2, 3, 4, 5, 6]).unwrap();
    let pads = vec![AxisPad::new(1, 0), AxisPad::new(1, 1)];
    let run = |mode: Mode, memory: OutputMemory| {
        let spec = PadSpec::new(pads.clone(), mode);
        let mut buf = [0xAAu8; 15];
        let mut out = ndpad::TensorViewMut::from_bytes(DType::Uint8, &[3, 5], &mut buf).unwrap();
        let opts = PadOptions {
            output_memory: memory,
            parallel_threshold: 0,
            ..PadOptions::default()
        };
        ndpad::pad_into(x.view(), &spec, &mut out, &opts).unwrap();
        buf
    };
    let zero = || Mode::Constant(None);
    let padded = [0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0];
    assert_eq!(run(zero(), OutputMemory::Written), padded);
    assert_eq!(run(zero(), OutputMemory::Fresh), padded);
    let kept = run(zero(), OutputMemory::Zeroed);
    for (k, (&got, &want)) in kept.iter().zip(&padded).enumerate() {
        assert!(
            got == want || (want == 0 && got == 0xAA),
            "element {k}: {got}"
        );
    }
    assert_eq!(kept[..5], [0xAA; 5], "the zero row is left as it is");
    let seven = Mode::Constant(Some(Scalar::from_bits(DType::Uint8, 7).unwrap()));
    let sevens = run(seven, OutputMemory::Zeroed);
    assert_eq!(sevens, padded.map(|v| if v == 0 { 7 } else { v }));
}

/// An axis left alone is one copy of its input in every mode, so trailing ones fuse
/// into the row unit: a reflect pad of an [h, w, 1] image once took its last axis (a
/// fill of its one element) for padding and went an element a row, 2-3x slower than
/// [h, w] and behind numpy.pad.
#[test]
fn axes_left_alone_fuse_in_every_mode() {
    let modes = [
        Mode::Constant(None),
        Mode::Edge,
        Mode::Reflect,
        Mode::Symmetric,
        Mode::Wrap,
    ];
    // (shape, pad on each side of each axis, row axis, unit)
    type Case<'a> = (&'a [usize], [i64; 3], Option<usize>, usize);
    let cases: [Case<'_>; 4] = [
        (&[6, 7, 1], [1, 2, 0], Some(1), 1),
        (&[6, 1, 3], [2, 0, 0], Some(0), 3),
        (&[1, 1, 5], [0, 0, 0], None, 5),
        (&[6, 1, 1], [0, 1, 0], Some(1), 1),
    ];
    for mode in modes {
        for (shape, p, row, unit) in cases {
            let pads = p.iter().map(|&p| AxisPad::new(p, p)).collect();
            let spec = PadSpec::new(pads, mode.clone()).with_oversize(ndpad::Oversize::Repeat);
            let plan = Plan::new(DType::Uint8, shape, &spec).unwrap();
            let why = format!("{shape:?} {spec:?}");
            assert_eq!((plan.row_axis(), plan.unit()), (row, unit), "{why}");
            let x = tensor(DType::Uint8, shape.to_vec(), 7);
            let want = reference::pad(x.view(), &spec).unwrap();
            assert_eq!(
                plan.pad(x.view(), &PadOptions::default()).unwrap(),
                want,
                "{why}"
            );
        }
    }
}
