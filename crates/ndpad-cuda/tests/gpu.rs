//! The GPU against the CPU kernel, bit for bit. Every test skips (passing, with a
//! message saying why) where there is no CUDA driver; the heavy ones (1000 random
//! cases at every width, a tensor of more than 2^31 elements) also need
//! `NDPAD_CUDA_TESTS=1`. `bench/device/check_all.sh` runs them all on a GPU machine.

mod common;

use std::sync::OnceLock;

use ndpad::{AxisPad, DType, Mode, PadSpec, Plan, Tensor};
use ndpad_cuda::{CudaError, CudaPadder, GatherPlan, Launch};
use proptest::prelude::*;

/// The device, or why there is none (printed by every test that skips).
fn device() -> Result<&'static CudaPadder, String> {
    static DEV: OnceLock<Result<CudaPadder, CudaError>> = OnceLock::new();
    match DEV.get_or_init(|| CudaPadder::new(0)) {
        Ok(d) => Ok(d),
        Err(e) => Err(e.to_string()),
    }
}

macro_rules! gpu_or_skip {
    () => {
        match device() {
            Ok(d) => d,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        }
    };
}

fn heavy() -> bool {
    if std::env::var("NDPAD_CUDA_TESTS").is_ok_and(|v| v == "1") {
        return true;
    }
    eprintln!("skipped: set NDPAD_CUDA_TESTS=1 to run the heavy GPU tests");
    false
}

/// The GPU's bytes for `gp` at every width the unit allows, with each kernel, each
/// equal to `want`.
fn check_all_widths(
    d: &CudaPadder,
    gp: &GatherPlan,
    input: &[u8],
    want: &[u8],
) -> Result<(), String> {
    let mut launches: Vec<Launch> = common::widths(gp)
        .into_iter()
        .flat_map(|w| {
            [false, true].map(|vector| Launch {
                width: Some(w),
                vector: Some(vector),
            })
        })
        .collect();
    launches.push(Launch::default());
    for launch in launches {
        let got = d
            .pad_bytes(gp, input, launch)
            .map_err(|e| format!("{launch:?}: {e}"))?;
        if got != want {
            let at = got.iter().zip(want).position(|(a, b)| a != b);
            return Err(format!(
                "{launch:?}: first difference at byte {at:?} of {}",
                want.len()
            ));
        }
    }
    Ok(())
}

#[test]
fn no_driver_is_a_typed_error() {
    match device() {
        Ok(d) => eprintln!(
            "device {} ({}): nothing to check here",
            d.device_name(),
            d.arch()
        ),
        Err(why) => assert!(
            why.starts_with("no CUDA driver: none of ") || why.starts_with("no NVRTC: none of "),
            "{why}"
        ),
    }
}

#[test]
fn small_pads_of_every_type_match_the_cpu() {
    let d = gpu_or_skip!();
    eprintln!("device: {} ({})", d.device_name(), d.arch());
    for dtype in common::fixed_types() {
        let shape = [3usize, 5, 4];
        let n: usize = shape.iter().product();
        let mut input: Vec<u8> = (0..dtype.byte_len(n).unwrap())
            .map(|i| (i * 131 + 7) as u8)
            .collect();
        if dtype == DType::Bool {
            input.iter_mut().for_each(|b| *b &= 1);
        }
        ndpad::packed::clear_unused_bits(&mut input, dtype.bits(), n);
        for mode in [
            Mode::Constant(None),
            Mode::Edge,
            Mode::Reflect,
            Mode::Symmetric,
            Mode::Wrap,
        ] {
            let spec = PadSpec::new(
                vec![AxisPad::new(1, 2), AxisPad::new(-1, 3), AxisPad::new(0, 0)],
                mode,
            );
            let x = ndpad::TensorView::from_bytes(dtype, &shape, &input).unwrap();
            let want = ndpad::pad(x, &spec).unwrap();
            let gp = GatherPlan::new(&Plan::new(dtype, &shape, &spec).unwrap()).unwrap();
            check_all_widths(d, &gp, &input, want.bytes().unwrap())
                .unwrap_or_else(|e| panic!("{dtype} {spec:?}: {e}"));
        }
    }
}

#[test]
fn pytorch_139333_shape_on_the_gpu() {
    let d = gpu_or_skip!();
    let n = 65540 * 2;
    let vals: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let x = Tensor::from_slice(&[1, 65540, 2], &vals).unwrap();
    let spec = PadSpec::new(
        vec![AxisPad::new(0, 0), AxisPad::new(0, 0), AxisPad::new(0, 1)],
        Mode::Reflect,
    );
    let got = d.pad(x.view(), &spec).unwrap();
    assert_eq!(got.shape(), &[1, 65540, 3]);
    assert!(got == ndpad::pad(x.view(), &spec).unwrap());
}

#[test]
fn strings_are_refused_on_the_gpu() {
    let d = gpu_or_skip!();
    let x = Tensor::from_strings(&[2], vec!["a", "b"]).unwrap();
    let spec = PadSpec::new(vec![AxisPad::new(1, 1)], Mode::Edge);
    assert_eq!(
        d.pad(x.view(), &spec).unwrap_err().to_string(),
        "string tensors cannot be padded on the GPU: strings are not fixed-width bytes"
    );
}

#[test]
fn random_pads_match_the_cpu_bit_for_bit() {
    let d = gpu_or_skip!();
    let cases = if heavy() { 1000 } else { 50 };
    common::run(cases, |c| {
        let Some(want) = common::cpu(c) else {
            return Ok(());
        };
        let gp = GatherPlan::new(&Plan::new(c.dtype, &c.shape, &c.spec).unwrap()).unwrap();
        check_all_widths(d, &gp, &c.input, &want)
            .map_err(|e| TestCaseError::fail(format!("{e}: {c:?}")))?;
        prop_assert!(true);
        Ok(())
    });
}

#[test]
fn more_than_2_pow_31_elements() {
    let d = gpu_or_skip!();
    if !heavy() {
        return;
    }
    // uint8 padded by 1 on every side: [46341, 46341] -> 46343^2 = 2_147_673_649
    // elements (> 2^31; the element kernel's 32-bit index path), constant; [65537,
    // 65537] -> 65539^2 = 4_295_360_521 (> 2^32: its 64-bit path), reflect; each with
    // the element kernel and the row kernel.
    for (side, mode) in [(46341usize, Mode::Constant(None)), (65537, Mode::Reflect)] {
        let input: Vec<u8> = (0..side * side).map(|i| (i % 251) as u8).collect();
        let x = ndpad::TensorView::from_bytes(DType::Uint8, &[side, side], &input).unwrap();
        let spec = PadSpec::new(vec![AxisPad::new(1, 1), AxisPad::new(1, 1)], mode);
        let gp = GatherPlan::new(&Plan::new(DType::Uint8, &[side, side], &spec).unwrap()).unwrap();
        assert!(gp.output_numel() > 1 << 31);
        let want = ndpad::pad(x, &spec).unwrap();
        for vector in [false, true] {
            let launch = Launch {
                width: None,
                vector: Some(vector),
            };
            let got = d.pad_bytes(&gp, &input, launch).unwrap();
            assert!(got == want.bytes().unwrap(), "{side} {spec:?} {launch:?}");
        }
    }
    // 16-byte elements, more than 2^31 bytes moved at 16 bytes a time.
    let shape = [1usize << 14, 1 << 13];
    let input: Vec<u8> = (0..(1usize << 27) * 16).map(|i| (i % 253) as u8).collect();
    let x = ndpad::TensorView::from_bytes(DType::Complex128, &shape, &input).unwrap();
    let spec = PadSpec::new(vec![AxisPad::new(3, 5), AxisPad::new(0, 0)], Mode::Wrap);
    let gp = GatherPlan::new(&Plan::new(DType::Complex128, &shape, &spec).unwrap()).unwrap();
    assert!(gp.output_bytes() > 1 << 31);
    let got = d
        .pad_bytes(
            &gp,
            &input,
            Launch {
                width: Some(16),
                vector: None,
            },
        )
        .unwrap();
    assert!(got == ndpad::pad(x, &spec).unwrap().bytes().unwrap());
}

#[test]
fn device_buffers_reuse_uploaded_maps() {
    use ndpad_cuda::cudarc::driver::{DevicePtr, DevicePtrMut};
    let d = gpu_or_skip!();
    let shape = [5usize, 7];
    let spec = PadSpec::new(
        vec![AxisPad::new(2, 2), AxisPad::new(1, 3)],
        Mode::Symmetric,
    );
    let gp = GatherPlan::new(&Plan::new(DType::Float32, &shape, &spec).unwrap()).unwrap();
    let maps = d.upload(&gp).unwrap();
    assert_eq!(maps.plan(), &gp);
    let s = d.stream();
    for k in 0..3u8 {
        let input: Vec<u8> = (0..gp.input_bytes())
            .map(|i| (i as u8).wrapping_mul(k + 3))
            .collect();
        let x = ndpad::TensorView::from_bytes(DType::Float32, &shape, &input).unwrap();
        let want = ndpad::pad(x, &spec).unwrap();
        let d_in = s.clone_htod(&input).unwrap();
        // Larger than needed: only the first bytes are written.
        let mut d_out = s.alloc_zeros::<u8>(gp.output_bytes() + 16).unwrap();
        d.pad_device(&maps, &d_in, &mut d_out, Launch::default())
            .unwrap();
        let got = s.clone_dtoh(&d_out).unwrap();
        assert_eq!(&got[..gp.output_bytes()], want.bytes().unwrap());
        assert!(got[gp.output_bytes()..].iter().all(|&b| b == 0));

        // The same through raw device addresses (as DLPack gives them).
        let mut d_out2 = s.alloc_zeros::<u8>(gp.output_bytes()).unwrap();
        {
            let (in_ptr, _a) = d_in.device_ptr(s);
            let (out_ptr, _b) = d_out2.device_ptr_mut(s);
            // SAFETY: both are live allocations of this device of the plan's sizes,
            // not overlapping, used by nothing else meanwhile.
            unsafe { d.pad_device_ptr(&maps, in_ptr, out_ptr, Launch::default()) }.unwrap();
        }
        assert_eq!(s.clone_dtoh(&d_out2).unwrap(), want.bytes().unwrap());
    }
    let d_in = s.clone_htod(&vec![0u8; gp.input_bytes()]).unwrap();
    let mut small = s.alloc_zeros::<u8>(gp.output_bytes() - 1).unwrap();
    assert_eq!(
        d.pad_device(&maps, &d_in, &mut small, Launch::default())
            .unwrap_err()
            .to_string(),
        format!(
            "the output buffer holds {} bytes but the plan needs {}",
            gp.output_bytes() - 1,
            gp.output_bytes()
        )
    );
    let mut out = s.alloc_zeros::<u8>(gp.output_bytes()).unwrap();
    assert_eq!(
        d.pad_device(&maps, &d_in, &mut out, Launch { width: Some(8), vector: None }).unwrap_err().to_string(),
        "a kernel element of 8 bytes cannot carry 4-byte elements (widths are 1, 2, 4, 8 or 16 and multiples of the element)"
    );
}

/// Not a check: the time of a few workloads with each kernel, as GB/s of input plus
/// output bytes, beside a device-to-device copy of the output's bytes (counted read
/// plus written). Each call includes the constant's upload and a stream sync.
#[test]
fn timings_of_a_few_workloads() {
    use std::time::Instant;
    let d = gpu_or_skip!();
    if !heavy() {
        return;
    }
    let hw = |p: i64, mode: Mode| {
        PadSpec::new(
            vec![
                AxisPad::new(0, 0),
                AxisPad::new(0, 0),
                AxisPad::new(p, p),
                AxisPad::new(p, p),
            ],
            mode,
        )
    };
    let workloads: Vec<(&str, DType, Vec<usize>, PadSpec)> = vec![
        (
            "f32 [256,64,112,112] pad 1 H,W constant",
            DType::Float32,
            vec![256, 64, 112, 112],
            hw(1, Mode::Constant(None)),
        ),
        (
            "f32 [256,64,112,112] pad 3 H,W reflect",
            DType::Float32,
            vec![256, 64, 112, 112],
            hw(3, Mode::Reflect),
        ),
        (
            "u8 [2160,3840,3] pad 16 reflect",
            DType::Uint8,
            vec![2160, 3840, 3],
            PadSpec::new(
                vec![
                    AxisPad::new(16, 16),
                    AxisPad::new(16, 16),
                    AxisPad::new(0, 0),
                ],
                Mode::Reflect,
            ),
        ),
        (
            "f32 [16777216,7] -> [16777216,8] constant",
            DType::Float32,
            vec![1 << 24, 7],
            PadSpec::new(
                vec![AxisPad::new(0, 0), AxisPad::new(0, 1)],
                Mode::Constant(None),
            ),
        ),
        (
            "f32 [64,1024,1024] pad axis 0 by 2 edge",
            DType::Float32,
            vec![64, 1024, 1024],
            PadSpec::new(
                vec![AxisPad::new(2, 2), AxisPad::new(0, 0), AxisPad::new(0, 0)],
                Mode::Edge,
            ),
        ),
    ];
    let s = d.stream();
    eprintln!(
        "| workload | one element a thread GB/s | 16 bytes a thread GB/s | default GB/s | dtod copy GB/s |"
    );
    eprintln!("| --- | --- | --- | --- | --- |");
    for (name, dtype, shape, spec) in workloads {
        let gp = GatherPlan::new(&Plan::new(dtype, &shape, &spec).unwrap()).unwrap();
        let maps = d.upload(&gp).unwrap();
        let d_in = s.alloc_zeros::<u8>(gp.input_bytes()).unwrap();
        let mut d_out = s.alloc_zeros::<u8>(gp.output_bytes()).unwrap();
        let bytes = (gp.input_bytes() + gp.output_bytes()) as f64;
        let reps = 10;
        let mut line = format!("| {name} |");
        for vector in [Some(false), Some(true), None] {
            let launch = Launch {
                width: None,
                vector,
            };
            d.pad_device(&maps, &d_in, &mut d_out, launch).unwrap();
            let t = Instant::now();
            for _ in 0..reps {
                d.pad_device(&maps, &d_in, &mut d_out, launch).unwrap();
            }
            let secs = t.elapsed().as_secs_f64() / reps as f64;
            line += &format!(" {:.0} |", bytes / secs / 1e9);
        }
        let mut d_copy = s.alloc_zeros::<u8>(gp.output_bytes()).unwrap();
        s.memcpy_dtod(&d_out, &mut d_copy).unwrap();
        s.synchronize().unwrap();
        let t = Instant::now();
        for _ in 0..reps {
            s.memcpy_dtod(&d_out, &mut d_copy).unwrap();
        }
        s.synchronize().unwrap();
        let secs = t.elapsed().as_secs_f64() / reps as f64;
        line += &format!(" {:.0} |", 2.0 * gp.output_bytes() as f64 / secs / 1e9);
        eprintln!("{line}");
    }
}
