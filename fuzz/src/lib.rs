//! The fuzz targets' bodies, shared by the libFuzzer binaries in `fuzz_targets/`
//! (run with `cargo fuzz run <target>`) and by the stable-Rust driver in
//! `examples/stable.rs` (a plain mutation loop, for machines where cargo-fuzz cannot
//! run).
//!
//! Every function takes arbitrary bytes and panics only when it finds a bug: a panic
//! inside the library, an allocation beyond the limit, or a mismatch between the fast
//! kernel and the reference implementation.

#![forbid(unsafe_code)]

use std::ops::Range;

use arbitrary::{Result as AResult, Unstructured};
use ndpad::{
    numel, output_shape, pad_into, pad_with, reference, AxisPad, Buffer, Corners, DType, Layout,
    Mode, NegativePads, OutputMemory, Oversize, PadOptions, PadSpec, Plan, Scalar, Tensor,
    TensorViewMut,
};
use ndpad_formats::{npy, onnx};
use ndpad_frontends::{
    ngraph::{NgPadNode, NgraphPad},
    numpy::{NumpyPad, NumpyPadNode},
    onnx::{OnnxPad, PadNode},
    openvino::{OpenVinoPad, OvPadNode},
    IntInput, PadValue, Resolved,
};

/// The largest output (in elements) that is padded and compared with the reference.
pub const MAX_COMPARED_ELEMENTS: usize = 4096;
/// The output limit used when an output is too large to compare.
pub const OUTPUT_LIMIT_BYTES: u64 = 1 << 16;

/// The names of the targets, in the order of `fuzz_targets/`.
pub const TARGETS: [&str; 7] = [
    "npy",
    "tensor_proto",
    "model_proto",
    "frontends",
    "core",
    "zarr",
    "numpy_arith",
];

/// Runs the target called `name` on `data`.
///
/// # Panics
/// On an unknown name, and wherever the target finds a bug.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "npy" => fuzz_npy(data),
        "tensor_proto" => fuzz_tensor_proto(data),
        "model_proto" => fuzz_model_proto(data),
        "frontends" => fuzz_frontends(data),
        "core" => fuzz_core(data),
        "zarr" => fuzz_zarr(data),
        "numpy_arith" => fuzz_numpy_arith(data),
        _ => panic!("unknown fuzz target {name}"),
    }
}

// ---------------------------------------------------------------------------------
// Formats.

/// `.npy` parsing: `read_npy`, `read_npy_as` with a type picked from the length, a
/// write/read round trip of what was read, and now and then `NpyFile` on a temporary
/// file (also padded past the memory-map threshold, so the mapped path is taken).
pub fn fuzz_npy(data: &[u8]) {
    let plain = npy::read_npy(data);
    if let Ok(t) = &plain {
        roundtrip_npy(t);
    }
    let pick = data.len() % (DType::ALL.len() + 1);
    let as_type = DType::ALL.get(pick).copied();
    let typed = npy::read_npy_as(data, as_type);
    if let Ok(t) = &typed {
        if let Some(d) = as_type {
            assert_eq!(t.dtype(), d, "read_npy_as returned another type");
        }
    }
    if data.len() % 8 == 3 {
        npy_file_agrees(data, as_type);
        // Past the map threshold: the same header, with the data padded by zeros.
        let mut big = data.to_vec();
        big.resize(1 << 16, 0);
        npy_file_agrees(&big, as_type);
    }
}

fn roundtrip_npy(t: &Tensor) {
    if let Ok(bytes) = npy::write_npy(&t.view()) {
        // Raw V1/V2 types come back only when named.
        let back = npy::read_npy_as(&bytes, Some(t.dtype()))
            .unwrap_or_else(|e| panic!("write_npy output does not read back: {e}"));
        assert_eq!(&back, t, "npy round trip changed the tensor");
    }
}

fn npy_file_agrees(bytes: &[u8], dtype: Option<DType>) {
    let path = std::env::temp_dir().join(format!("ndpad-fuzz-{}.npy", std::process::id()));
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    let from_file = npy::NpyFile::open_as(&path, dtype);
    let from_mem = npy::read_npy_as(bytes, dtype);
    match (from_file, from_mem) {
        (Ok(f), Ok(m)) => {
            assert_eq!(f.shape(), m.shape());
            let v = f.view();
            assert_eq!(v.dtype(), m.dtype());
            assert_eq!(f.into_tensor(), m, "NpyFile and read_npy_as differ");
        }
        (Err(_), Err(_)) => {}
        (f, m) => panic!(
            "NpyFile and read_npy_as disagree: file {:?}, memory {:?}",
            f.map(|f| f.header().clone()),
            m.map(|m| m.shape().to_vec())
        ),
    }
    let _ = std::fs::remove_file(&path);
}

/// `TensorProto` parsing, under the default and under tight limits, and a round trip
/// of what was read.
pub fn fuzz_tensor_proto(data: &[u8]) {
    let r = onnx::read_tensor(data);
    let tight = onnx::ProtoLimits {
        max_messages: 4,
        max_strings: 8,
    };
    let _ = onnx::read_tensor_with(data, &tight);
    if let Ok(nt) = r {
        if let Ok(bytes) = onnx::write_tensor(&nt.tensor.view(), &nt.name) {
            let back = onnx::read_tensor(&bytes)
                .unwrap_or_else(|e| panic!("write_tensor output does not read back: {e}"));
            assert_eq!(back, nt, "TensorProto round trip changed the tensor");
        }
    }
}

/// `ModelProto` parsing, under the default and under tight limits, and a round trip
/// of what was read (compared through `Debug`, so that NaN attributes compare equal).
pub fn fuzz_model_proto(data: &[u8]) {
    let r = onnx::read_model(data);
    let tight = onnx::ProtoLimits {
        max_messages: 16,
        max_strings: 32,
    };
    let _ = onnx::read_model_with(data, &tight);
    if let Ok(m) = r {
        let _ = m.opset_version("");
        if let Ok(bytes) = onnx::write_model(&m) {
            let back = onnx::read_model(&bytes)
                .unwrap_or_else(|e| panic!("write_model output does not read back: {e}"));
            assert_eq!(
                format!("{back:?}"),
                format!("{m:?}"),
                "ModelProto round trip changed the model"
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// Structured input helpers.

/// Pads a fuzzer is most likely to break things with.
const EXTREMES: [i64; 14] = [
    i64::MIN,
    i64::MIN + 1,
    i64::MAX,
    i64::MAX - 1,
    1 << 62,
    -(1 << 62),
    1 << 32,
    -(1 << 32),
    u32::MAX as i64,
    i32::MAX as i64,
    i32::MIN as i64,
    1 << 31,
    1 << 16,
    -(1 << 16),
];

fn pad_value(u: &mut Unstructured<'_>) -> AResult<i64> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => *u.choose(&EXTREMES)?,
        1 => u.arbitrary()?,
        _ => u.int_in_range(-6..=6)?,
    })
}

fn interior_value(u: &mut Unstructured<'_>) -> AResult<u64> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 => *u.choose(&[u64::MAX, i64::MAX as u64, 1 << 62, 1 << 32, u32::MAX as u64])?,
        1 => u.arbitrary()?,
        2..=5 => u.int_in_range(0..=3)?,
        _ => 0,
    })
}

fn dtype(u: &mut Unstructured<'_>) -> AResult<DType> {
    Ok(*u.choose(&DType::ALL)?)
}

/// A shape of rank 0-5 with extents 0-6 and at most 512 elements.
fn shape(u: &mut Unstructured<'_>) -> AResult<Vec<usize>> {
    let rank = u.int_in_range(0..=5usize)?;
    let mut s = Vec::with_capacity(rank);
    for _ in 0..rank {
        s.push(u.int_in_range(0..=6usize)?);
    }
    while s.iter().product::<usize>() > 512 {
        let i = s.iter().position(|&d| d > 1).unwrap_or(0);
        s[i] -= 1;
    }
    Ok(s)
}

/// A tensor of `dtype` and `shape` with fuzzer-chosen elements; bools are 0/1 and the
/// unused high bits of a packed tensor's last byte are 0 (as every reader makes them).
fn tensor(u: &mut Unstructured<'_>, dtype: DType, shape: &[usize]) -> AResult<Tensor> {
    let n: usize = shape.iter().product();
    Ok(match dtype.layout() {
        Layout::Strings => {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let len = u.int_in_range(0..=3usize)?;
                let bytes = u.bytes(len)?;
                v.push(String::from_utf8_lossy(bytes).into_owned());
            }
            Tensor::from_strings(shape, v).expect("string tensor")
        }
        _ => {
            let len = dtype.byte_len(n).expect("small tensor");
            let mut b = vec![0u8; len];
            for (i, x) in b.iter_mut().enumerate() {
                *x = if u.is_empty() {
                    i as u8
                } else {
                    u.arbitrary()?
                };
            }
            if dtype == DType::Bool {
                b.iter_mut().for_each(|x| *x &= 1);
            }
            if let Layout::Packed(bits) = dtype.layout() {
                ndpad::packed::clear_unused_bits(&mut b, bits, n);
            }
            Tensor::from_bytes(dtype, shape, b).expect("byte tensor")
        }
    })
}

/// A scalar of `dtype` (any bit pattern that fits), or of another type now and then.
fn scalar(u: &mut Unstructured<'_>, dtype: DType) -> AResult<Scalar> {
    let d = if u.ratio(1u8, 8)? {
        self::dtype(u)?
    } else {
        dtype
    };
    if d == DType::String {
        let len = u.int_in_range(0..=4usize)?;
        return Ok(Scalar::string(
            String::from_utf8_lossy(u.bytes(len)?).into_owned(),
        ));
    }
    let width = d.bits();
    let raw: u128 = u.arbitrary()?;
    let bits = if width >= 128 {
        raw
    } else {
        raw & ((1u128 << width) - 1)
    };
    let bits = if d == DType::Bool { bits & 1 } else { bits };
    Ok(Scalar::from_bits(d, bits).expect("masked bits fit"))
}

// ---------------------------------------------------------------------------------
// The differential check shared by the core and front-end targets.

/// Pads `x` with `spec` through `pad_with` (one thread, or the global pool with a
/// threshold of 0 so that rows are split), `pad_into`, `Plan::execute_strided` of `x`
/// laid out in memory as `laid` says (fixed-width types), and
/// `ndpad::reference::pad`, and checks that they agree exactly. Outputs too large to
/// compare are padded only under an output limit, which must hold.
fn differential(x: &Tensor, spec: &PadSpec, parallel: bool, laid: Option<&InputLayout>) {
    let shape = x.shape();
    let expected_shape = output_shape(shape, spec);
    let opts = if parallel {
        PadOptions {
            threads: 0,
            parallel_threshold: 0,
            max_output_bytes: None,
            // Whole planes around the cache, however small (pad_into; pad_with's
            // fresh output is written through it).
            stream_min_bytes: 0,
            output_memory: OutputMemory::Written,
            interrupt: None,
            kernel: None,
        }
    } else {
        PadOptions::single_threaded()
    };
    let out_shape = match &expected_shape {
        Err(e) => {
            // The reference fails on the same check before allocating anything.
            let r = reference::pad(x.view(), spec).expect_err("reference padded a bad spec");
            assert_eq!(&r, e, "reference and output_shape fail differently");
            let f = pad_with(x.view(), spec, &opts).expect_err("pad_with padded a bad spec");
            assert_eq!(&f, e, "pad_with and output_shape fail differently");
            return;
        }
        Ok(s) => s.clone(),
    };
    match numel(&out_shape) {
        Ok(n) if n <= MAX_COMPARED_ELEMENTS => {}
        _ => {
            // Too large (or not addressable): only a limited run, which must refuse
            // rather than allocate.
            let opts = PadOptions {
                max_output_bytes: Some(OUTPUT_LIMIT_BYTES),
                ..PadOptions::single_threaded()
            };
            if let Ok(t) = pad_with(x.view(), spec, &opts) {
                let n = numel(t.shape()).expect("output numel");
                let bytes = match t.data() {
                    Buffer::Bytes(b) => b.len() as u64,
                    Buffer::Strings(s) => (s.len() * 16 + s.text_len()) as u64,
                };
                assert!(
                    bytes <= OUTPUT_LIMIT_BYTES,
                    "output of {n} elements ({bytes} bytes) passed a limit of {OUTPUT_LIMIT_BYTES}"
                );
            }
            return;
        }
    }
    let expected = reference::pad(x.view(), spec);
    let fast = pad_with(x.view(), spec, &opts);
    match (&fast, &expected) {
        (Ok(f), Ok(r)) => assert!(
            f == r,
            "pad_with differs from the reference\n shape {shape:?} dtype {:?}\n spec {spec:?}\n input {:?}\n fast {:?}\n ref  {:?}",
            x.dtype(),
            x.data(),
            f.data(),
            r.data()
        ),
        (Err(f), Err(r)) => assert_eq!(f, r, "pad_with and the reference fail differently"),
        _ => panic!(
            "pad_with and the reference disagree\n shape {shape:?} dtype {:?}\n spec {spec:?}\n fast {fast:?}\n ref  {expected:?}",
            x.dtype()
        ),
    }
    if let Ok(r) = &expected {
        assert_eq!(r.shape(), &out_shape[..], "reference shape");
        // pad_into a dirty caller buffer: every element must be written.
        match r.data() {
            Buffer::Bytes(rb) => {
                let mut buf = vec![0xA5u8; rb.len()];
                {
                    let mut out = TensorViewMut::from_bytes(x.dtype(), r.shape(), &mut buf)
                        .expect("output view");
                    pad_into(x.view(), spec, &mut out, &opts)
                        .unwrap_or_else(|e| panic!("pad_into failed where pad did: {e}"));
                }
                let n = r.shape().iter().product::<usize>();
                same_packed_aware(x.dtype(), n, &buf, rb, spec);
                if let (Some(laid), Layout::Bytes(w), Some(bytes)) =
                    (laid, x.dtype().layout(), x.bytes())
                {
                    let (strides, src) = laid.lay(x.shape(), w, bytes);
                    let plan = Plan::new(x.dtype(), x.shape(), spec)
                        .unwrap_or_else(|e| panic!("no plan where pad_with padded: {e}"));
                    let mut buf = vec![0xA5u8; rb.len()];
                    {
                        let mut out = TensorViewMut::from_bytes(x.dtype(), r.shape(), &mut buf)
                            .expect("output view");
                        plan.execute_strided(&src, &strides, &mut out, &opts)
                            .unwrap_or_else(|e| panic!("execute_strided failed: {e}"));
                    }
                    assert!(
                        buf[..] == rb[..],
                        "execute_strided differs from the reference\n strides {strides:?}\n spec {spec:?}\n got  {buf:?}\n want {rb:?}"
                    );
                }
            }
            Buffer::Strings(rs) => {
                let mut buf = ndpad::Strings::filled(rs.len(), "junk").expect("output buffer");
                {
                    let mut out =
                        TensorViewMut::from_strings(r.shape(), &mut buf).expect("output view");
                    pad_into(x.view(), spec, &mut out, &opts)
                        .unwrap_or_else(|e| panic!("pad_into failed where pad did: {e}"));
                }
                assert_eq!(&buf, rs, "pad_into differs from the reference (strings)");
            }
        }
    }
}

/// Equal bytes, except for the unused high bits of a packed tensor's last byte (which
/// belong to the caller's buffer).
fn same_packed_aware(dtype: DType, n: usize, got: &[u8], want: &[u8], spec: &PadSpec) {
    let (mut g, mut w) = (got.to_vec(), want.to_vec());
    if let Layout::Packed(bits) = dtype.layout() {
        ndpad::packed::clear_unused_bits(&mut g, bits, n);
        ndpad::packed::clear_unused_bits(&mut w, bits, n);
    }
    assert!(
        g == w,
        "pad_into differs from the reference\n dtype {dtype:?} spec {spec:?}\n got  {g:?}\n want {w:?}"
    );
}

// ---------------------------------------------------------------------------------
// Core.

/// Arbitrary shape, spec (pads of any size, interior, every mode, both policies,
/// clamping, a constant of any bit pattern or of the wrong type) and type: `pad_with`
/// and `pad_into` must equal the reference, or fail as it fails.
pub fn fuzz_core(data: &[u8]) {
    let _ = core_input(&mut Unstructured::new(data));
}

fn core_input(u: &mut Unstructured<'_>) -> AResult<()> {
    let d = dtype(u)?;
    let s = shape(u)?;
    let mut rank = s.len();
    if u.ratio(1u8, 32)? {
        rank = u.int_in_range(0..=6)?; // a spec of the wrong rank
    }
    let mut axes = Vec::with_capacity(rank);
    for _ in 0..rank {
        let interior = if u.ratio(1u8, 4)? {
            interior_value(u)?
        } else {
            0
        };
        axes.push(AxisPad {
            begin: pad_value(u)?,
            end: pad_value(u)?,
            interior,
        });
    }
    let mode = match u.int_in_range(0..=5u8)? {
        0 => Mode::Constant(None),
        1 => Mode::Constant(Some(scalar(u, d)?)),
        2 => Mode::Edge,
        3 => Mode::Reflect,
        4 => Mode::Symmetric,
        _ => Mode::Wrap,
    };
    let spec = PadSpec::new(axes, mode)
        .with_negative(if u.arbitrary()? {
            NegativePads::OriginalIndex
        } else {
            NegativePads::CropFirst
        })
        .with_oversize(if u.arbitrary()? {
            Oversize::Repeat
        } else {
            Oversize::Error
        })
        .with_clamp_negative_extent(u.arbitrary()?);
    // Constants per side: mostly one pair per axis of the tensor's type, sometimes a
    // wrong count or type (refused alike by the kernel and the reference).
    let spec = if u.ratio(1u8, 4)? {
        let count = if u.ratio(1u8, 16)? {
            u.int_in_range(0..=6)?
        } else {
            rank
        };
        let mut sides = Vec::with_capacity(count);
        for _ in 0..count {
            let mut pair = [None, None];
            for side in &mut pair {
                if u.arbitrary()? {
                    let t = if u.ratio(1u8, 16)? { dtype(u)? } else { d };
                    *side = Some(scalar(u, t)?);
                }
            }
            sides.push(pair);
        }
        let corners = match u.arbitrary()? {
            true => Corners::FirstAxis,
            false => Corners::LastAxis,
        };
        spec.with_sides(sides).with_corners(corners)
    } else {
        spec
    };
    let parallel = u.ratio(1u8, 4)?;
    let x = tensor(u, d, &s)?;
    let laid = InputLayout::maybe(u, &s)?;
    if debug() {
        eprintln!(
            "core input: dtype {d:?} shape {s:?} parallel {parallel} layout {laid:?}\n spec {spec:?}\n data {:?}",
            x.data()
        );
    }
    differential(&x, &spec, parallel, laid.as_ref());
    Ok(())
}

/// Where an input's elements lie for [`Plan::execute_strided`]: its axes in memory
/// outermost first (`order`), each a `step` of elements apart (1: packed), the
/// strides of axes of one element anything (`loose`, none negative else), the buffer
/// `tail` bytes longer than the strides reach.
#[derive(Debug)]
struct InputLayout {
    order: Vec<usize>,
    steps: Vec<usize>,
    loose: Vec<isize>,
    tail: usize,
}

impl InputLayout {
    /// A layout for half the inputs of `shape`, none for the others.
    fn maybe(u: &mut Unstructured<'_>, shape: &[usize]) -> AResult<Option<InputLayout>> {
        match u.ratio(1u8, 2)? {
            true => InputLayout::arbitrary(u, shape).map(Some),
            false => Ok(None),
        }
    }

    fn arbitrary(u: &mut Unstructured<'_>, shape: &[usize]) -> AResult<InputLayout> {
        let mut order: Vec<usize> = (0..shape.len()).collect();
        for i in (1..order.len()).rev() {
            let j = u.int_in_range(0..=i)?;
            order.swap(i, j);
        }
        let mut steps = Vec::with_capacity(shape.len());
        let mut loose = Vec::with_capacity(shape.len());
        for _ in shape {
            steps.push(if u.ratio(1u8, 3)? {
                u.int_in_range(2..=3)?
            } else {
                1
            });
            loose.push(u.int_in_range(-64..=64)?);
        }
        Ok(InputLayout {
            order,
            steps,
            loose,
            tail: u.int_in_range(0..=8)?,
        })
    }

    /// The byte strides of elements of `w` bytes laid out so, and the bytes of
    /// `data` (C order) written where they lie, the gaps junk.
    fn lay(&self, shape: &[usize], w: usize, data: &[u8]) -> (Vec<isize>, Vec<u8>) {
        let mut strides = vec![0usize; shape.len()];
        let mut block = w;
        for &a in self.order.iter().rev() {
            strides[a] = block * self.steps[a];
            block = strides[a] * shape[a].max(1);
        }
        let n: usize = shape.iter().product();
        let reach = match n {
            0 => 0,
            _ => {
                w + shape
                    .iter()
                    .zip(&strides)
                    .map(|(&d, &s)| s * (d - 1))
                    .sum::<usize>()
            }
        };
        let mut buf = vec![0xEEu8; reach + self.tail];
        let mut index = vec![0usize; shape.len()];
        for element in data.chunks_exact(w).take(n) {
            let at: usize = index.iter().zip(&strides).map(|(&i, &s)| i * s).sum();
            buf[at..at + w].copy_from_slice(element);
            ndpad::index::next_index(&mut index, shape);
        }
        let strides = strides
            .iter()
            .zip(shape)
            .zip(&self.loose)
            .map(|((&s, &d), &l)| if d <= 1 { l } else { s as isize })
            .collect();
        (strides, buf)
    }
}

/// `NDPAD_FUZZ_DEBUG=1`: print the decoded structured input (for reproductions).
fn debug() -> bool {
    std::env::var_os("NDPAD_FUZZ_DEBUG").is_some()
}

// ---------------------------------------------------------------------------------
// Front ends.

const MODE_NAMES: [&str; 12] = [
    "constant",
    "edge",
    "reflect",
    "wrap",
    "symmetric",
    "CONSTANT",
    "EDGE",
    "REFLECT",
    "Reflect",
    "",
    "circular",
    "constant\0",
];

fn mode_name(u: &mut Unstructured<'_>) -> AResult<String> {
    if u.ratio(1u8, 16)? {
        let len = u.int_in_range(0..=8usize)?;
        return Ok(String::from_utf8_lossy(u.bytes(len)?).into_owned());
    }
    Ok((*u.choose(&MODE_NAMES)?).to_string())
}

fn pad_list(u: &mut Unstructured<'_>, len: usize) -> AResult<Vec<i64>> {
    // Mostly the right length, sometimes off by a little.
    let len = match u.int_in_range(0..=15u8)? {
        0 => len.saturating_sub(1),
        1 => len + 1,
        2 => u.int_in_range(0..=8)?,
        _ => len,
    };
    (0..len).map(|_| pad_value(u)).collect()
}

fn int_input(u: &mut Unstructured<'_>, len: usize) -> AResult<IntInput> {
    let d = match u.int_in_range(0..=11u8)? {
        0 => dtype(u)?,
        1 => DType::Int32,
        2 => *u.choose(&[DType::Int8, DType::Int16, DType::Uint8, DType::Uint64])?,
        _ => DType::Int64,
    };
    Ok(if u.ratio(1u8, 16)? {
        IntInput::unknown(d)
    } else {
        IntInput::typed(d, pad_list(u, len)?)
    })
}

fn value_input(u: &mut Unstructured<'_>, d: DType) -> AResult<Option<PadValue>> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => None,
        1 | 2 => Some(PadValue::Scalar(scalar(u, d)?)),
        _ => {
            let vd = if u.ratio(1u8, 6)? { dtype(u)? } else { d };
            let vs: Vec<usize> = match u.int_in_range(0..=4u8)? {
                0 => vec![],
                1 => vec![1],
                2 => vec![1, 1],
                3 => vec![2],
                _ => vec![0],
            };
            Some(PadValue::Tensor(tensor(u, vd, &vs)?))
        }
    })
}

/// Builds an ONNX (opset -1..27), OpenVINO Pad-1/Pad-12, nGraph or numpy node from
/// arbitrary attributes and inputs and resolves it: it must return `Ok` or `Err`;
/// when `Ok`, the shape must be the core's `output_shape` of the spec, shape
/// inference must agree, and padding must equal the reference.
pub fn fuzz_frontends(data: &[u8]) {
    let _ = frontends_input(&mut Unstructured::new(data));
}

/// A front end's resolved node and, where it has one, its shape inference.
type Outcome<E> = (Result<Resolved, E>, Option<Result<Vec<Option<usize>>, E>>);

fn frontends_input(u: &mut Unstructured<'_>) -> AResult<()> {
    let d = dtype(u)?;
    let s = shape(u)?;
    let rank = s.len();
    let which = u.int_in_range(0..=4u8)?;
    let (resolved, inferred): Outcome<_> = match which {
        0 => {
            let opset = u.int_in_range(-1..=27i64)?;
            let Ok(mut op) = OnnxPad::new(opset) else {
                return Ok(());
            };
            if u.arbitrary()? {
                op = op.with_reflect_oversize(Oversize::Error);
            }
            let mut node = PadNode::new(d);
            if u.ratio(7u8, 8)? {
                node.mode = Some(mode_name(u)?);
            }
            if u.ratio(1u8, 3)? {
                node.paddings = Some(pad_list(u, 2 * rank)?);
            }
            if u.ratio(1u8, 3)? {
                node.pads_attribute = Some(pad_list(u, 2 * rank)?);
            }
            if u.ratio(1u8, 4)? {
                node.value = Some(f32::from_bits(u.arbitrary()?));
            }
            let axes_len = u.int_in_range(0..=rank)?;
            if u.ratio(1u8, 3)? {
                let mut ax = int_input(u, axes_len)?;
                if let Some(v) = ax.values.as_mut() {
                    for a in v.iter_mut() {
                        if !u.ratio(1u8, 8)? {
                            *a = u.int_in_range(-(rank as i64) - 1..=rank as i64)?;
                        }
                    }
                }
                node.axes = Some(ax);
            }
            let pads_len = if node.axes.is_some() {
                2 * axes_len
            } else {
                2 * rank
            };
            if u.ratio(3u8, 4)? {
                node.pads = Some(int_input(u, pads_len)?);
            }
            node.constant_value = value_input(u, d)?;
            let shape_in: Vec<Option<usize>> = s.iter().map(|&x| Some(x)).collect();
            (
                op.resolve(&node, &s),
                Some(op.infer_shape(&node, &shape_in)),
            )
        }
        1 | 2 => {
            let op = if which == 1 {
                OpenVinoPad::V1
            } else {
                OpenVinoPad::V12
            };
            let node = OvPadNode {
                data_type: d,
                pad_mode: mode_name(u)?,
                pads_begin: int_input(u, rank)?,
                pads_end: int_input(u, rank)?,
                pad_value: value_input(u, d)?,
            };
            (op.resolve(&node, &s), None)
        }
        3 => {
            let mut node =
                NgPadNode::new(d, &mode_name(u)?, pad_list(u, rank)?, pad_list(u, rank)?);
            if u.ratio(1u8, 3)? {
                let mut v = pad_list(u, rank)?;
                for x in v.iter_mut() {
                    if !u.ratio(1u8, 8)? {
                        *x = u.int_in_range(0..=3)?;
                    }
                }
                node.padding_interior = Some(v);
            }
            node.arg_pad_value = value_input(u, d)?;
            let shape_in: Vec<Option<usize>> = s.iter().map(|&x| Some(x)).collect();
            (
                NgraphPad.resolve(&node, &s),
                Some(NgraphPad.infer_shape(&node, &shape_in)),
            )
        }
        _ => {
            let pairs = if u.ratio(1u8, 4)? { 1 } else { rank };
            let mut pw = Vec::with_capacity(pairs);
            for _ in 0..pairs {
                pw.push((pad_value(u)?, pad_value(u)?));
            }
            let mut node = NumpyPadNode::new(d, &mode_name(u)?, pw);
            // One constant for every side, or (numpy's per-axis form) one pair per
            // axis, sometimes of another count.
            if u.ratio(1u8, 3)? {
                let count = if u.ratio(1u8, 8)? {
                    u.int_in_range(0..=6)?
                } else {
                    rank
                };
                let mut values = Vec::with_capacity(count);
                for _ in 0..count {
                    let b = value_input(u, d)?.unwrap_or(PadValue::Scalar(Scalar::zero(d)));
                    let a = value_input(u, d)?.unwrap_or(PadValue::Scalar(Scalar::zero(d)));
                    values.push((b, a));
                }
                node = node.constant_values_per_side(values);
            } else if let Some(v) = value_input(u, d)? {
                node = node.constant_values(v);
            }
            let shape_in: Vec<Option<usize>> = s.iter().map(|&x| Some(x)).collect();
            (
                NumpyPad.resolve(&node, &s),
                Some(NumpyPad.infer_shape(&node, &shape_in)),
            )
        }
    };
    if debug() {
        eprintln!("frontends: which {which} dtype {d:?} shape {s:?} -> {resolved:?}");
    }
    let Ok(r) = resolved else {
        return Ok(());
    };
    let core = output_shape(&s, &r.spec)
        .unwrap_or_else(|e| panic!("front end resolved a spec the core rejects: {e}\n{r:?}"));
    assert_eq!(
        core, r.output_shape,
        "front end's output shape is not the core's"
    );
    if let Some(inf) = inferred {
        let inf = inf.unwrap_or_else(|e| panic!("resolve succeeded, infer_shape failed: {e}"));
        let want: Vec<Option<usize>> = core.iter().map(|&x| Some(x)).collect();
        assert_eq!(inf, want, "infer_shape and resolve differ");
    }
    let x = tensor(u, d, &s)?;
    let parallel = u.ratio(1u8, 4)?;
    let laid = InputLayout::maybe(u, &s)?;
    if debug() {
        eprintln!(
            "frontends input: shape {s:?} parallel {parallel} layout {laid:?}\n resolved {r:?}\n data {:?}",
            x.data()
        );
    }
    differential(&x, &r.spec, parallel, laid.as_ref());
    Ok(())
}

// ---------------------------------------------------------------------------------
// Zarr.

/// The largest decoded chunk the `zarr` target decodes (larger ones are refused).
pub const ZARR_CHUNK_BYTES: u64 = 1 << 16;
/// The most chunks (counting those inside a shard) of an array the `zarr` target
/// decodes a chunk of.
pub const ZARR_MAX_CHUNKS: u64 = 1 << 12;

/// Zarr metadata and chunks: the input is a little-endian `u16` length, that many
/// bytes of `zarr.json`, then the bytes of the array's first chunk (encoded with its
/// codecs: sharding and its index, gzip, zstd, blosc, crc32c, transpose, bytes,
/// vlen-utf8 for string arrays).
/// `ndpad_zarr::decode_chunk` must return an error or exactly one chunk's bytes; the
/// shard-index check and the bounded decoders also see the chunk bytes raw.
pub fn fuzz_zarr(data: &[u8]) {
    let n = data
        .get(..2)
        .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])));
    let rest = data.get(2..).unwrap_or_default();
    let (meta, chunk) = rest.split_at(n.min(rest.len()));
    // Chunks of strings decode into at most what a fixed-size chunk may.
    ndpad_zarr::codecs::limit_variable_chunks(ZARR_CHUNK_BYTES);
    let decoded = ndpad_zarr::decode_chunk(meta, chunk, ZARR_CHUNK_BYTES, ZARR_MAX_CHUNKS);
    if std::env::var_os("NDPAD_FUZZ_DEBUG").is_some() {
        eprintln!("zarr: {decoded:?}");
    }
    if let Ok(bytes) = decoded {
        assert!(
            bytes.len() as u64 <= ZARR_CHUNK_BYTES,
            "decode_chunk returned {} bytes, over its limit",
            bytes.len()
        );
    }
    let index: Vec<u64> = chunk
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect();
    let _ = ndpad_zarr::check_shard_index(&index, chunk.len() as u64);
    let _ = ndpad_zarr::check_blosc_header(chunk, 4096);
    let _ = ndpad_zarr::check_vlen(chunk, index.len() as u64);
    for gzip in [true, false] {
        if let Ok(out) = ndpad_zarr::decode_bounded(gzip, chunk, 4096) {
            assert!(
                out.len() <= 4096,
                "a bounded decoder returned {} bytes",
                out.len()
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// numpy's arithmetic modes.

/// numpy's arithmetic pads on arbitrary geometry: `reflect_type='odd'`
/// (`numpy::odd`: a box of the output from its input region, extents and widths up
/// to 2^62) and the statistic modes and linear_ramp (`numpy::stats`, in place and
/// into a new buffer). Each must return `Ok` or `Err`; an odd box must equal the
/// same box of the whole pad, bit for bit, with no floating-point exception the whole
/// pad does not raise.
pub fn fuzz_numpy_arith(data: &[u8]) {
    let _ = numpy_arith_input(&mut Unstructured::new(data));
}

/// An extent or width: mostly small, sometimes a few hundred (long lines), rarely
/// huge.
fn span(u: &mut Unstructured<'_>, small: usize) -> AResult<usize> {
    Ok(match u.int_in_range(0..=63u8)? {
        0 => u.arbitrary()?,
        1 => 1 << u.int_in_range(20..=62u32)?,
        2..=9 => u.int_in_range(0..=600usize)?,
        _ => u.int_in_range(0..=small)?,
    })
}

/// Bytes of `n` elements of `dtype` (8-byte aligned), fuzzer-chosen, or None over
/// the limit.
fn elements(u: &mut Unstructured<'_>, dtype: DType, n: usize) -> AResult<Option<Vec<u64>>> {
    let Some(bytes) = dtype
        .byte_len(n)
        .filter(|&b| b <= OUTPUT_LIMIT_BYTES as usize)
    else {
        return Ok(None);
    };
    let mut words = vec![0u64; bytes.div_ceil(8)];
    for w in &mut words {
        *w = match u.int_in_range(0..=3u8)? {
            0 => u.arbitrary()?,
            // Small values, as floats of each width (and small integers).
            1 => 0x3FF0_0000_3F80_3C00,
            2 => 0x7FF0_0000_7F80_7C00, // infinities
            _ => u64::from(u.int_in_range(0..=9u8)?) * 0x0001_0001_0001_0001,
        };
    }
    Ok(Some(words))
}

fn numpy_arith_input(u: &mut Unstructured<'_>) -> AResult<()> {
    use ndpad_frontends::numpy::{odd, stats};
    // Mostly the types computed here (odd: all of these; statistics: not the last 5).
    let d = match u.ratio(1u8, 8)? {
        true => dtype(u)?,
        false => *u.choose(&[
            DType::Float32,
            DType::Float64,
            DType::Int8,
            DType::Int16,
            DType::Int64,
            DType::Uint8,
            DType::Uint32,
            DType::Uint64,
            DType::Float16,
            DType::BFloat16,
            DType::Complex64,
            DType::Complex128,
            DType::Bool,
        ])?,
    };
    let rank = u.int_in_range(0..=3usize)?;
    let mut shape = Vec::with_capacity(rank);
    let mut widths = Vec::with_capacity(rank);
    for _ in 0..rank {
        shape.push(span(u, 6)?);
        widths.push((span(u, 9)?, span(u, 9)?));
    }
    let threads = u.int_in_range(1..=2usize)?;
    let input_n = numel(&shape).ok();
    let input = match input_n {
        Some(n) => elements(u, d, n)?,
        None => None,
    };
    match u.int_in_range(0..=2u8)? {
        0 => {
            let mode = match u.arbitrary()? {
                true => odd::Reflection::Reflect,
                false => odd::Reflection::Symmetric,
            };
            let Ok(out) = odd::odd_output_shape(&shape, &widths) else {
                return Ok(());
            };
            // A box inside the output (or, now and then, anywhere).
            let mut bx = Vec::with_capacity(rank);
            for &n in &out {
                let (a, b) = match u.ratio(1u8, 16)? {
                    true => (u.arbitrary()?, u.arbitrary()?),
                    false => {
                        let a = match u.arbitrary()? {
                            true => u.int_in_range(0..=n)?,
                            false => n.saturating_sub(u.int_in_range(0..=n.min(8))?),
                        };
                        (a, a.saturating_add(u.int_in_range(0..=(n - a).min(8))?))
                    }
                };
                bx.push(a..b);
            }
            let Ok(region) = odd::odd_window(&shape, &widths, &bx) else {
                return Ok(());
            };
            let region_shape: Vec<usize> = region.iter().map(|r| r.len()).collect();
            let box_shape: Vec<usize> = bx.iter().map(|r| r.len()).collect();
            let (Some(input), Ok(box_n)) = (input, numel(&box_shape)) else {
                return Ok(());
            };
            let Some(box_bytes) = d.byte_len(box_n).filter(|&b| b <= 1 << 16) else {
                return Ok(());
            };
            let unit = d.byte_len(1).unwrap_or(1).max(1);
            let input: &[u8] = bytemuck::cast_slice(&input);
            let input = &input[..d.byte_len(input_n.unwrap_or(0)).unwrap_or(0)];
            let region_n = numel(&region_shape).unwrap_or(0);
            let mut src = vec![0u64; d.byte_len(region_n).unwrap_or(0).div_ceil(8)];
            let src_bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut src)
                [..d.byte_len(region_n).unwrap_or(0)];
            let zeros = vec![0; rank];
            if d.bits() % 8 != 0
                || ndpad::index::copy_box(
                    src_bytes,
                    &region_shape,
                    &zeros,
                    input,
                    &shape,
                    &region,
                    unit,
                )
                .is_err()
            {
                return Ok(());
            }
            let mut dst = vec![0u64; box_bytes.div_ceil(8)];
            let dst_bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut dst)[..box_bytes];
            let got = odd::pad_odd_window_bytes(
                d, &shape, &widths, mode, &region, src_bytes, &bx, dst_bytes, threads, None,
            );
            // The whole pad, where small, has the box's values (and where it pads, so
            // does the box).
            let Ok(out_n) = numel(&out) else {
                return Ok(());
            };
            let Some(out_bytes) = d.byte_len(out_n).filter(|&b| b <= 1 << 16) else {
                return Ok(());
            };
            let mut whole = vec![0u64; out_bytes.div_ceil(8)];
            let whole_bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut whole)[..out_bytes];
            let all: Vec<Range<usize>> = shape.iter().map(|&n| 0..n).collect();
            let out_all: Vec<Range<usize>> = out.iter().map(|&n| 0..n).collect();
            let whole_flags = odd::pad_odd_window_bytes(
                d,
                &shape,
                &widths,
                mode,
                &all,
                input,
                &out_all,
                whole_bytes,
                1,
                None,
            );
            let Ok(whole_flags) = whole_flags else {
                return Ok(());
            };
            let flags = got.unwrap_or_else(|e| {
                panic!("{d:?} {shape:?} {widths:?} {mode:?} box {bx:?}: {e} (the whole pads)")
            });
            let mut want = vec![0u8; box_bytes];
            ndpad::index::copy_box(&mut want, &box_shape, &zeros, whole_bytes, &out, &bx, unit)
                .expect("the box inside the whole output");
            // (Undetermined values, complex edges with an infinite or NaN part, are
            // numpy's to compute: their NaNs' bits may differ between the paths.)
            assert!(
                want == dst_bytes || whole_flags.undetermined,
                "{d:?} {shape:?} {widths:?} {mode:?} box {bx:?}"
            );
            let (m, s, w) = (flags.multiply, flags.subtract, whole_flags);
            assert!(
                (!m.overflow || w.multiply.overflow)
                    && (!m.invalid || w.multiply.invalid)
                    && (!s.overflow || w.subtract.overflow)
                    && (!s.invalid || w.subtract.invalid)
                    && (!flags.undetermined || w.undetermined),
                "box flags {flags:?} beyond the whole pad's {whole_flags:?}"
            );
        }
        which => {
            let Some(input) = input else {
                return Ok(());
            };
            let input: &[u8] = bytemuck::cast_slice(&input);
            let input = &input[..d.byte_len(input_n.unwrap_or(0)).unwrap_or(0)];
            let out_shape: Option<Vec<usize>> = shape
                .iter()
                .zip(&widths)
                .map(|(&n, &(b, a))| n.checked_add(b)?.checked_add(a))
                .collect();
            let out_n = out_shape.and_then(|s| numel(&s).ok());
            // The output's size, now and then one element off.
            let skew = match u.ratio(1u8, 16)? {
                true => 1,
                false => 0,
            };
            let Some(out_bytes) = out_n
                .and_then(|n| d.byte_len(n.checked_add(skew)?))
                .filter(|&b| b <= 1 << 16)
            else {
                return Ok(());
            };
            let mut out = vec![0u64; out_bytes.div_ceil(8)];
            let out = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut out)[..out_bytes];
            let pads = widths.clone();
            if which == 1 {
                let mut lengths = Vec::with_capacity(rank);
                for _ in 0..rank {
                    let mut side = || -> AResult<Option<usize>> {
                        Ok(match u.arbitrary()? {
                            true => Some(span(u, 4)?),
                            false => None,
                        })
                    };
                    lengths.push((side()?, side()?));
                }
                let stat = *u.choose(&[
                    stats::Stat::Maximum,
                    stats::Stat::Minimum,
                    stats::Stat::Mean,
                    stats::Stat::Median,
                ])?;
                let _ = stats::pad_stat_bytes(
                    d, input, out, &shape, &pads, &lengths, stat, threads, None,
                );
                let _ = stats::fill_stat_bytes(d, out, &shape, &pads, &lengths, stat, None);
            } else {
                let mut ends = Vec::with_capacity(rank);
                for _ in 0..rank {
                    ends.push((
                        f64::from_bits(u.arbitrary()?),
                        f64::from_bits(u.arbitrary()?),
                    ));
                }
                let compute = *u.choose(&[DType::Float32, DType::Float64, DType::Int8])?;
                let _ = stats::pad_ramp_bytes(
                    d, compute, input, out, &shape, &pads, &ends, threads, None,
                );
                let _ = stats::fill_ramp_bytes(d, compute, out, &shape, &pads, &ends, None);
            }
        }
    }
    Ok(())
}
