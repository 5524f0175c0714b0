//! Tiled plans: an axis whose output repeats its period very many times is planned
//! for one period and repeated (`exec/tile.rs`). Forced on every repeating axis
//! (`Plan::tiling` with 0), random pads equal the reference, from contiguous and
//! strided inputs; and the very large repeats that once were refused are padded.

mod common;
use common::{strided_bytes, tensor, Rng};

use ndpad::{
    pad, reference, AxisPad, DType, Layout, Mode, NegativePads, Oversize, PadOptions, PadSpec,
    Plan, Tensor, TensorViewMut,
};

/// A random repeating pad: rank 1-4, short axes, wide pads on some of them, crops on
/// others, both negative-pad policies, every repeating mode.
fn case(seed: u64) -> (Tensor, PadSpec) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let dtypes = [
        DType::Uint8,
        DType::Float32,
        DType::Float16,
        DType::Complex128,
        DType::Bool,
        DType::String,
        DType::Int4,
    ];
    let dtype = rng.pick(&dtypes);
    let rank = 1 + rng.below(4) as usize;
    let shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(5) as usize).collect();
    let pads = shape
        .iter()
        .map(|_| match rng.below(4) {
            0 => AxisPad::new(rng.below(3) as i64, rng.below(3) as i64),
            1 => AxisPad::new(-(rng.below(2) as i64), rng.below(9) as i64),
            _ => AxisPad::new(rng.below(17) as i64, rng.below(17) as i64),
        })
        .collect();
    let mode = [Mode::Reflect, Mode::Symmetric, Mode::Wrap][rng.below(3) as usize].clone();
    let mut spec = PadSpec::new(pads, mode);
    spec.oversize = Oversize::Repeat;
    if rng.below(2) == 0 {
        spec.negative = NegativePads::OriginalIndex;
    }
    (tensor(dtype, shape, rng.next()), spec)
}

/// How many axes of `plan` are tiled (no runs on an axis of a non-empty output).
fn tiled_axes(plan: &Plan) -> usize {
    if plan.output_numel() == 0 {
        return 0;
    }
    plan.axes()
        .iter()
        .filter(|ax| ax.segs.is_empty() && ax.map.n > 0)
        .count()
}

#[test]
fn tiled_plans_equal_the_reference() {
    let mut tiled = 0;
    for seed in 0..2000u64 {
        let (x, spec) = case(seed);
        let Ok(want) = reference::pad(x.view(), &spec) else {
            continue;
        };
        let plan = Plan::tiling(x.dtype(), x.shape(), &spec, 0).unwrap();
        let opts = PadOptions {
            threads: 1 + seed as usize % 3,
            parallel_threshold: 0,
            ..PadOptions::default()
        };
        let got = plan.pad(x.view(), &opts).unwrap();
        assert!(
            got == want,
            "seed {seed}: {:?} {:?} {spec:?}",
            x.dtype(),
            x.shape()
        );
        tiled += usize::from(tiled_axes(&plan) > 0);
        if x.dtype().layout() == Layout::Packed(4) {
            assert_eq!(tiled_axes(&plan), 0, "sub-byte types are not tiled");
        }
    }
    assert!(tiled >= 800, "only {tiled} tiled cases");
}

/// A tiled plan reads a strided input in place as an untiled one does.
#[test]
fn tiled_plans_read_strided_inputs() {
    let mut checked = 0;
    for seed in 0..600u64 {
        let (x, spec) = case(seed);
        let Layout::Bytes(w) = x.dtype().layout() else {
            continue;
        };
        let Ok(want) = reference::pad(x.view(), &spec) else {
            continue;
        };
        let plan = Plan::tiling(x.dtype(), x.shape(), &spec, 0).unwrap();
        let shape = x.shape().to_vec();
        let row = plan.row_axis().unwrap_or(0);
        // C strides from the row axis on; a gap of one unit per outer axis.
        let unit = plan.unit() * w;
        let mut strides = vec![0isize; shape.len()];
        let mut extent = w;
        for a in (0..shape.len()).rev() {
            if a < row {
                extent += unit;
            }
            strides[a] = extent as isize;
            extent *= shape[a];
        }
        let buf = strided_bytes(&x, w, &strides, extent);
        let mut out = vec![0xAAu8; want.bytes().unwrap().len()];
        let mut view = TensorViewMut::from_bytes(x.dtype(), want.shape(), &mut out).unwrap();
        plan.execute_strided(&buf, &strides, &mut view, &PadOptions::default())
            .unwrap();
        assert!(
            out == want.bytes().unwrap(),
            "seed {seed}: {shape:?} {spec:?}"
        );
        checked += usize::from(tiled_axes(&plan) > 0 && row > 0);
    }
    assert!(checked >= 100, "only {checked} strided tiled cases");
}

/// Millions of repetitions of a two-element axis (numpy.pad returns them; they were
/// refused as too many runs before tiling): every mode, on a middle axis too.
#[test]
fn millions_of_repetitions_are_padded() {
    let n = 2_200_000;
    for mode in [Mode::Reflect, Mode::Symmetric, Mode::Wrap] {
        let x = Tensor::from_slice(&[2], &[1u8, 2]).unwrap();
        let mut spec = PadSpec::new(vec![AxisPad::new(n, n + 1)], mode.clone());
        spec.oversize = Oversize::Repeat;
        let plan = Plan::new(x.dtype(), x.shape(), &spec).unwrap();
        assert_eq!(tiled_axes(&plan), 1);
        let got = pad(x.view(), &spec).unwrap();
        assert!(got == reference::pad(x.view(), &spec).unwrap(), "{mode:?}");

        // A middle axis, against the plan that lists its runs.
        let x = Tensor::from_slice(&[2, 2, 1], &[1u16, 2, 3, 4]).unwrap();
        let pads = vec![AxisPad::new(1, 0), AxisPad::new(n, n), AxisPad::new(0, 1)];
        let mut spec = PadSpec::new(pads, mode.clone());
        spec.oversize = Oversize::Repeat;
        let tiled = Plan::new(x.dtype(), x.shape(), &spec).unwrap();
        assert_eq!(tiled_axes(&tiled), 1);
        let listed = Plan::tiling(x.dtype(), x.shape(), &spec, usize::MAX).unwrap();
        assert_eq!(tiled_axes(&listed), 0);
        let opts = PadOptions::default();
        assert!(tiled.pad(x.view(), &opts).unwrap() == listed.pad(x.view(), &opts).unwrap());
    }
}

/// A window that repeats an axis's period very many times is tiled like a whole pad
/// (it was refused: more than `MAX_RUNS` runs), and gives the box of the whole pad,
/// read from the region or from the whole input, for every repeating mode.
#[test]
fn huge_repeats_in_windows_are_tiled() {
    let x = Tensor::from_slice(&[2, 2], &[1u8, 2, 3, 4]).unwrap();
    for mode in [Mode::Wrap, Mode::Reflect, Mode::Symmetric] {
        let mut spec = PadSpec::new(
            vec![AxisPad::new(1, 0), AxisPad::new(6_000_000, 6_000_001)],
            mode,
        );
        spec.oversize = Oversize::Repeat;
        let whole = pad(x.view(), &spec).unwrap();
        let row = 12_000_003;
        for source in [ndpad::Source::Region, ndpad::Source::Whole] {
            let out_box = [1..3, 1_000_001..11_000_001];
            let w = Plan::window(DType::Uint8, &[2, 2], &spec, &out_box, source).unwrap();
            let input = match source {
                ndpad::Source::Whole => x.bytes().unwrap().to_vec(),
                _ => w.input[0]
                    .clone()
                    .flat_map(|i| {
                        x.bytes().unwrap()[i * 2 + w.input[1].start..i * 2 + w.input[1].end]
                            .to_vec()
                    })
                    .collect(),
            };
            let view =
                ndpad::TensorView::from_bytes(DType::Uint8, w.plan.input_shape(), &input).unwrap();
            let mut got = vec![0u8; 2 * 10_000_000];
            let mut out =
                TensorViewMut::from_bytes(DType::Uint8, &[2, 10_000_000], &mut got).unwrap();
            w.plan
                .execute(view, &mut out, &PadOptions::default())
                .unwrap();
            let bytes = whole.bytes().unwrap();
            let want: Vec<u8> = (1..3)
                .flat_map(|r| bytes[r * row + 1_000_001..r * row + 11_000_001].to_vec())
                .collect();
            assert!(got == want, "{:?} {source:?}", spec.mode);
        }
    }
}
