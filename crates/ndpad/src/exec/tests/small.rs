//! Small outputs: the setup a plan keeps between its runs, and rows written one by
//! one.

use super::*;

/// A small plan notes what its first run's setup was made for, its second run makes
/// the setup for repeated runs (whole planes where the first went row by row), and the
/// runs after take it where it was made for their constant (an executor of zeros
/// makes one for 0) and no kernel is named; clones start without one, and large
/// outputs, or those of long rows, keep none.
#[test]
fn a_kept_setup_serves_only_the_runs_it_was_made_for() {
    // Rows of 92 bytes: too wide for the narrow rows' kernel, which writes no planes.
    let x = Tensor::from_slice(&[6, 20], &(0..120).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
    let seven = crate::Scalar::from_f64(DType::Float32, 7.0).unwrap();
    let pads = vec![AxisPad::new(1, 2), AxisPad::new(2, 1)];
    let spec = PadSpec::new(pads, Mode::Constant(Some(seven)));
    let plan = Plan::new(DType::Float32, &[6, 20], &spec).unwrap();
    let src: &[[u8; 4]] = bytemuck::cast_slice(x.bytes().unwrap());
    let opts = PadOptions::single_threaded();
    let exec =
        |v: [u8; 4], opts: &PadOptions| Exec::new(&plan, (src, None), 1, (v, Some(&v)), opts);
    let (zero, seven) = ([0u8; 4], 7.0f32.to_ne_bytes());
    let whole = |e: &Exec<'_, [u8; 4]>| {
        e.setup.planes.tiny.is_some() || !e.setup.planes.map.rows().is_empty()
    };
    let first = exec(zero, &opts);
    assert!(plan.kept.get().is_some() && !whole(&first));
    let second = exec(zero, &opts);
    assert!(whole(&second) && !Arc::ptr_eq(&first.setup, &second.setup));
    assert!(Arc::ptr_eq(&second.setup, &exec(zero, &opts).setup));
    assert!(!Arc::ptr_eq(&second.setup, &exec(seven, &opts).setup));
    let named = PadOptions {
        kernel: Some(KernelName::Runs),
        ..opts.clone()
    };
    assert!(!Arc::ptr_eq(&second.setup, &exec(zero, &named).setup));
    let want = crate::reference::pad(x.view(), &spec).unwrap();
    for _ in 0..3 {
        assert_eq!(plan.pad(x.view(), &opts).unwrap(), want);
    }
    let clone = plan.clone();
    assert!(clone.kept.get().is_none());
    assert_eq!(clone, plan);
    if cfg!(miri) {
        return; // a 1 MiB pad: minutes under Miri
    }
    let edge = PadSpec::new(vec![AxisPad::new(1, 1); 2], Mode::Edge);
    let big = Plan::new(DType::Uint8, &[1024, 1024], &edge).unwrap();
    let xb = Tensor::from_slice(&[1024, 1024], &vec![3u8; 1 << 20]).unwrap();
    big.pad(xb.view(), &opts).unwrap();
    assert!(big.kept.get().is_none());
    // Nor outputs of rows over KEEP_ROW_MAX (a setup may hold a row of the constant).
    let long = Plan::new(DType::Uint8, &[2, 1 << 17], &edge).unwrap();
    let xl = Tensor::from_slice(&[2, 1 << 17], &vec![3u8; 1 << 18]).unwrap();
    long.pad(xl.view(), &opts).unwrap();
    assert!(long.kept.get().is_none());
}

/// Rows of small outputs (no plane loops) with at least `BLEND_ROW_SINGLES_MIN` single
/// elements blend their ends; fewer stay a sandwich, and constant ends keep their
/// kernel. Each pads as the reference does.
#[test]
fn small_outputs_blend_the_ends_of_their_rows() {
    use crate::tune::BLEND_ROW_SINGLES_MIN;
    let cpu_blends = Cpu::get().ssse3().is_some();
    for (size, dtype) in [(1, DType::Uint8), (4, DType::Float32)] {
        for mode in [Mode::Reflect, Mode::Edge, Mode::Wrap, Mode::Constant(None)] {
            for p in 1..=4usize {
                let shape = [5usize, 20];
                let n: usize = shape.iter().product();
                let data: Vec<u8> = (0..n * size).map(|i| (i * 7 + 3) as u8).collect();
                let x = Tensor::from_bytes(dtype, &shape, data.clone()).unwrap();
                let pads = vec![AxisPad::new(1, 1), AxisPad::new(p as i64, p as i64)];
                let spec = PadSpec::new(pads, mode.clone());
                let plan = Plan::new(dtype, &shape, &spec).unwrap();
                let opts = PadOptions::single_threaded();
                let want = crate::reference::pad(x.view(), &spec).unwrap();
                assert_eq!(
                    plan.pad(x.view(), &opts).unwrap(),
                    want,
                    "{dtype:?} {mode:?} {p}"
                );
                let reads = !matches!(mode, Mode::Constant(_));
                // A plan's first run (a clone keeps nothing): row by row.
                let unit = plan.unit;
                let name = match size {
                    1 => setup_of::<1>(&plan.clone(), &data, unit).kernel.name(),
                    _ => setup_of::<4>(&plan.clone(), &data, unit).kernel.name(),
                };
                // Rows of 20 elements: every single element within 16 bytes of an end.
                match reads && 2 * p >= BLEND_ROW_SINGLES_MIN && cpu_blends {
                    true => assert_eq!(name, KernelName::Blend, "{dtype:?} {mode:?} {p}"),
                    false => assert_ne!(name, KernelName::Blend, "{dtype:?} {mode:?} {p}"),
                }
            }
        }
    }
}

/// The setup an executor of `plan` takes over the input `data` (elements of `N`
/// bytes, `unit` to a row unit, a zero constant, one thread): the plan's kept one
/// where it keeps one for these.
fn setup_of<const N: usize>(plan: &Plan, data: &[u8], unit: usize) -> Arc<Setup> {
    let src: &[[u8; N]] = bytemuck::cast_slice(data);
    let v = [0u8; N];
    let opts = PadOptions::single_threaded();
    Exec::new(plan, (src, None), unit, (v, Some(&v)), &opts).setup
}

/// A small plan's repeated runs write an output of one plane from a tiny plane's table
/// only where its rows are short (`TINY_ONE_PLANE_ROW_MAX`); longer rows go through
/// the plane loops. Each run pads as the reference does.
#[test]
fn one_plane_takes_a_table_only_of_short_rows() {
    let tables = Cpu::get().avx2().is_some();
    // f32 rows of 24 elements (96 bytes) and of 24 pixels of three channels (288
    // bytes, a pixel one 12-byte element).
    let p = AxisPad::new(4, 4);
    let cases = [
        (vec![16, 16], vec![p, p], true),
        (vec![16, 16, 3], vec![p, p, AxisPad::new(0, 0)], false),
    ];
    for (shape, pads, short) in cases {
        let spec = PadSpec::new(pads, Mode::Reflect);
        let plan = Plan::new(DType::Float32, &shape, &spec).unwrap();
        let n: usize = shape.iter().product();
        let x = Tensor::from_slice(&shape, &(0..n).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
        let opts = PadOptions::single_threaded();
        let want = crate::reference::pad(x.view(), &spec).unwrap();
        for _ in 0..3 {
            assert_eq!(plan.pad(x.view(), &opts).unwrap(), want, "{shape:?}");
        }
        let bytes = x.bytes().unwrap();
        // The second run's setup, kept (the three-channel pixel one 12-byte element).
        let setup = match shape.len() {
            2 => setup_of::<4>(&plan, bytes, 1),
            _ => setup_of::<12>(&plan, bytes, 1),
        };
        let (tiny, map) = (
            setup.planes.tiny.is_some(),
            !setup.planes.map.rows().is_empty(),
        );
        assert_eq!(tiny, short && tables, "{shape:?}");
        assert!(tiny || map, "{shape:?}");
    }
}

/// A small plan whose repeated setup makes a tiny plane's table of many entries makes
/// it only after a run for every `TINY_TABLE_GRAINS_A_RUN` of them (until then each
/// run takes a setup for one run); each run pads as the reference does. Without AVX2
/// (no table) the second run makes it, as for a plan of a few entries.
#[test]
fn a_large_table_waits_for_the_runs_it_pays_for() {
    use crate::tune::TINY_TABLE_GRAINS_A_RUN;
    // u8 [24,24] reflect 1: one plane of 26 rows of 26 bytes, 676 entries.
    let spec = PadSpec::new(vec![AxisPad::new(1, 1); 2], Mode::Reflect);
    let plan = Plan::new(DType::Uint8, &[24, 24], &spec).unwrap();
    let x = Tensor::from_slice(&[24, 24], &(0..576).map(|v| v as u8).collect::<Vec<_>>()).unwrap();
    let want = crate::reference::pad(x.view(), &spec).unwrap();
    let wait = match Cpu::get().avx2() {
        Some(_) => 26 * 26 / TINY_TABLE_GRAINS_A_RUN,
        None => 0,
    };
    assert!(wait >= 1 || Cpu::get().avx2().is_none());
    let bytes = x.bytes().unwrap();
    let first = setup_of::<1>(&plan, bytes, 1);
    for _ in 0..wait {
        let s = setup_of::<1>(&plan, bytes, 1);
        assert!(s.planes.tiny.is_none() && s.planes.map.rows().is_empty());
        assert!(!Arc::ptr_eq(&first, &s));
    }
    let repeated = setup_of::<1>(&plan, bytes, 1);
    assert!(repeated.planes.tiny.is_some() || !repeated.planes.map.rows().is_empty());
    assert!(Arc::ptr_eq(&repeated, &setup_of::<1>(&plan, bytes, 1)));
    assert_eq!(repeated.planes.tiny.is_some(), wait >= 1);
    let opts = PadOptions::single_threaded();
    for _ in 0..2 {
        assert_eq!(plan.pad(x.view(), &opts).unwrap(), want);
    }
}
