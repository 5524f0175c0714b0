//! Property tests of whole planes, which the kernel writes by its plane loops: small
//! planes (up to 12 x 48 elements) from a table of permutes or shuffles where the CPU
//! has AVX2 (`exec::tiny`), and planes of longer rows (16-800 elements) by the row
//! loops through the cache and around it (staged, seamed, joined, long and framed
//! rows: `exec::plane_loops`). Random planes, pixels of 1-3 channels fused into one
//! unit, every mode, pads and crops of both plane axes, batches long enough that the
//! output takes whole planes (64 KiB and more), one or two threads, through the cache
//! and around it: the reference's bytes.

use ndpad::{
    output_shape, pad_into, pad_with, reference, AxisPad, DType, Mode, OutputMemory, Oversize,
    PadOptions, PadSpec, TensorViewMut,
};
use proptest::prelude::*;

mod common;
use common::{tensor, value};

/// The least output taking whole planes (the core's `PLANE_MIN_BYTES`).
const PLANES_FROM: usize = 64 << 10;

#[derive(Debug, Clone)]
struct Case {
    dtype: DType,
    /// Rows, columns and channels of a plane.
    plane: [usize; 3],
    /// Pads of the batch axis, the rows and the columns (the channels are not padded).
    pads: [(i64, i64); 3],
    mode: u8,
    value: u8,
    extra_planes: usize,
    threads: usize,
    around: bool,
}

/// Planes of `rows` x `cols` elements of 1-3 channels, both plane axes padded by
/// `pads` at each end, the batch axis by 0 or 1.
fn case(
    rows: std::ops::RangeInclusive<usize>,
    cols: std::ops::RangeInclusive<usize>,
    pads: std::ops::RangeInclusive<i64>,
) -> impl Strategy<Value = Case> {
    let dtypes = vec![
        DType::Uint8,
        DType::Int16,
        DType::Float16,
        DType::Float32,
        DType::Int32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ];
    let pad = move || (pads.clone(), pads.clone());
    (
        prop::sample::select(dtypes),
        (rows, cols, 1usize..=3),
        ((0i64..=1, 0i64..=1), pad(), pad()),
        (0u8..5, any::<u8>(), 0usize..3),
        (1usize..=2, any::<bool>()),
    )
        .prop_map(
            |(
                dtype,
                (h, w, c),
                (batch, rows, cols),
                (mode, value, extra_planes),
                (threads, around),
            )| {
                // Channels only where a pixel fits a unit of 16 bytes.
                let size = dtype.byte_len(1).unwrap();
                let c = if c * size <= 16 { c } else { 1 };
                Case {
                    dtype,
                    plane: [h, w, c],
                    pads: [batch, rows, cols],
                    mode,
                    value,
                    extra_planes,
                    threads,
                    around,
                }
            },
        )
}

fn mode(c: &Case) -> Mode {
    match c.mode {
        0 => Mode::Constant(value(c.dtype, c.value)),
        1 => Mode::Edge,
        2 => Mode::Reflect,
        3 => Mode::Symmetric,
        _ => Mode::Wrap,
    }
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let [h, w, ch] = c.plane;
    let axes = [c.pads[0], c.pads[1], c.pads[2], (0, 0)]
        .iter()
        .map(|&(b, a)| AxisPad::new(b, a))
        .collect();
    let spec = PadSpec::new(axes, mode(c)).with_oversize(Oversize::Repeat);
    // Enough planes that the output takes whole planes; a spec refused (a crop that
    // empties a plane axis the mode must read) on a few planes, refused alike.
    let plane_out = match output_shape(&[1, h, w, ch], &spec) {
        Ok(s) => s[1..].iter().product::<usize>() * c.dtype.byte_len(1).unwrap(),
        Err(_) => PLANES_FROM,
    };
    prop_assume!(plane_out > 0, "an empty plane");
    let batch = PLANES_FROM.div_ceil(plane_out) + c.extra_planes;
    let shape = vec![batch, h, w, ch];
    let x = tensor(c.dtype, shape.clone(), u64::from(c.value));
    let want = reference::pad(x.view(), &spec);
    let opts = PadOptions {
        threads: c.threads,
        parallel_threshold: 0,
        stream_min_bytes: if c.around { 0 } else { usize::MAX },
        output_memory: OutputMemory::Written,
        ..PadOptions::single_threaded()
    };
    let got = pad_with(x.view(), &spec, &opts);
    prop_assert_eq!(&want, &got, "{:?} {:?}", shape, spec);
    let Ok(want) = want else { return Ok(()) };
    let bytes = want.bytes().unwrap();
    let mut buf = vec![0xAAu8; bytes.len()];
    let mut out = TensorViewMut::from_bytes(c.dtype, want.shape(), &mut buf).unwrap();
    pad_into(x.view(), &spec, &mut out, &opts).unwrap();
    prop_assert_eq!(&buf[..], bytes, "pad_into {:?} {:?}", shape, spec);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn small_planes_equal_reference(c in case(1..=12, 1..=48, -2..=4)) {
        check(&c)?;
    }

    #[test]
    fn planes_of_long_rows_equal_reference(c in case(1..=6, 16..=800, -3..=20)) {
        check(&c)?;
    }
}
