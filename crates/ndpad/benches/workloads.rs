//! The benchmark workloads, shared by `benches/pad.rs` (criterion) and
//! `examples/ratios.rs` (the ratio table).

#![allow(dead_code)]

use ndpad::{AxisPad, DType, Mode, PadSpec, Scalar, Tensor};

/// One workload: a name, an input and a spec.
pub struct Workload {
    pub name: &'static str,
    pub input: Tensor,
    pub spec: PadSpec,
}

fn f32_tensor(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    Tensor::from_slice(shape, &v).unwrap()
}

fn nchw(scale: usize, pad: i64, mode: Mode) -> (Tensor, PadSpec) {
    let n = (8 / scale).max(1);
    let spec = PadSpec::new(
        vec![
            AxisPad::new(0, 0),
            AxisPad::new(0, 0),
            AxisPad::new(pad, pad),
            AxisPad::new(pad, pad),
        ],
        mode,
    );
    (f32_tensor(&[n, 64, 112, 112]), spec)
}

fn image(mode: Mode) -> (Tensor, PadSpec) {
    let img: Vec<u8> = (0..2160 * 3840 * 3).map(|i| i as u8).collect();
    let img = Tensor::from_bytes(DType::Uint8, &[2160, 3840, 3], img).unwrap();
    (
        img,
        PadSpec::new(
            vec![
                AxisPad::new(16, 16),
                AxisPad::new(16, 16),
                AxisPad::new(0, 0),
            ],
            mode,
        ),
    )
}

type Make = fn(usize) -> (Tensor, PadSpec);

/// The workloads of the performance issue (plus the sub-byte, string and interior
/// paths), built lazily: only those whose name contains `only`. `scale` divides the
/// big dimensions (1 = full size).
pub fn workloads(scale: usize, only: &str) -> Vec<Workload> {
    let zero = || Mode::Constant(None);
    let table: Vec<(&'static str, Make)> = vec![
        ("nchw_pad1_constant", |s| nchw(s, 1, Mode::Constant(None))),
        ("nchw_pad3_reflect", |s| nchw(s, 3, Mode::Reflect)),
        ("nchw_pad3_edge", |s| nchw(s, 3, Mode::Edge)),
        ("nchw_pad3_wrap", |s| nchw(s, 3, Mode::Wrap)),
        ("nchw_pad3_symmetric", |s| nchw(s, 3, Mode::Symmetric)),
        ("nchw_crop2", |s| nchw(s, -2, Mode::Constant(None))),
        ("narrow_rows_7_to_8", |s| {
            let spec = PadSpec::new(
                vec![AxisPad::new(0, 0), AxisPad::new(0, 1)],
                Mode::Constant(None),
            );
            (f32_tensor(&[1048576 / s, 7]), spec)
        }),
        ("outer_axis_pad2", |s| {
            let spec = PadSpec::new(
                vec![AxisPad::new(2, 2), AxisPad::new(0, 0), AxisPad::new(0, 0)],
                Mode::Constant(None),
            );
            (f32_tensor(&[(16 / s).max(1), 1024, 1024]), spec)
        }),
        ("1d_64Mi_pad1000", |s| {
            (
                f32_tensor(&[(64 << 20) / s]),
                PadSpec::new(vec![AxisPad::new(1000, 1000)], Mode::Constant(None)),
            )
        }),
        ("u8_image_pad16_constant", |_| image(Mode::Constant(None))),
        ("u8_image_pad16_reflect", |_| image(Mode::Reflect)),
        ("int4_pad1_constant", |_| {
            let t = Tensor::from_bytes(DType::Int4, &[1024, 1023], vec![0x5A; 1024 * 1023 / 2])
                .unwrap();
            (
                t,
                PadSpec::new(
                    vec![AxisPad::new(1, 1), AxisPad::new(1, 1)],
                    Mode::Constant(None),
                ),
            )
        }),
        ("int4_aligned_rows_pad2_edge", |_| {
            let t = Tensor::from_bytes(DType::Int4, &[64, 256, 2048], vec![0x5A; 64 * 256 * 1024])
                .unwrap();
            let spec = PadSpec::new(
                vec![AxisPad::new(0, 0), AxisPad::new(2, 2), AxisPad::new(0, 0)],
                Mode::Edge,
            );
            (t, spec)
        }),
        ("string_pad2_edge", |_| {
            let t = Tensor::from_strings(
                &[256, 256],
                (0..65536).map(|i| format!("s{i}")).collect::<Vec<_>>(),
            )
            .unwrap();
            (
                t,
                PadSpec::new(vec![AxisPad::new(2, 2), AxisPad::new(2, 2)], Mode::Edge),
            )
        }),
        ("interior1_constant", |_| {
            let spec = PadSpec::new(
                vec![
                    AxisPad {
                        begin: 1,
                        end: 1,
                        interior: 1,
                    },
                    AxisPad {
                        begin: 1,
                        end: 1,
                        interior: 1,
                    },
                ],
                Mode::Constant(Some(Scalar::from(7.0f32))),
            );
            (f32_tensor(&[512, 512]), spec)
        }),
    ];
    let _ = zero;
    table
        .into_iter()
        .filter(|(name, _)| name.contains(only))
        .map(|(name, make)| {
            let (input, spec) = make(scale);
            Workload { name, input, spec }
        })
        .collect()
}

/// Bytes moved by a pad: input read plus output written (strings: their 16-byte
/// spans, and the text, copied once).
pub fn traffic(w: &Workload, out_bytes: usize, out_numel: usize) -> usize {
    match w.input.strings() {
        Some(s) => 16 * (s.len() + out_numel) + 2 * s.text_len(),
        None => w.input.bytes().map_or(0, <[u8]>::len) + out_bytes,
    }
}
