//! `ndpad._ndpad`: the Python extension. It only translates: arrays arrive through
//! numpy's array interface and are read and written in place; specs come from the
//! core ([`ndpad::PadSpec`]) or a front end ([`ndpad_frontends`]); the core pads.
//! The pure-Python layer (`python/ndpad`) normalizes arguments and allocates outputs.
//! `unsafe` code lives in `raw` alone.

#![deny(unsafe_code)]

use ndpad::{
    packed, AxisPad, DType, Layout, Mode, NegativePads, OutputMemory, Oversize, PadOptions,
    PadSpec, Plan, PooledBuffer, Scalar, TensorView, TensorViewMut,
};
use ndpad_frontends::ngraph::{NgPadNode, NgraphPad};
use ndpad_frontends::numpy::{index_pairs, odd, stats, NumpyPad};
use ndpad_frontends::onnx::{OnnxPad, PadNode};
use ndpad_frontends::openvino::{OpenVinoPad, OvPadNode};
use ndpad_frontends::{Dim, FrontendError, PadValue, Resolved};
use numpy::{
    PyArrayDescr, PyArrayDescrMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

mod cuda;
mod frameworks;
#[allow(unsafe_code)]
mod raw;
mod repeats;

create_exception!(
    _ndpad,
    PadError,
    PyValueError,
    "An invalid pad: the message names the value, the axis and the limit."
);

fn pad_error(e: impl std::fmt::Display) -> PyErr {
    PadError::new_err(e.to_string())
}

/// A new output array of `shape` and `dtype` (Fortran order with `fortran`) over a
/// pooled buffer, starting where `like` (the input) starts in its cache line (at the
/// dtype's alignment), and
/// what its memory holds for the kernel: "zeroed" (just mapped,
/// never touched) or "written" (reused: an earlier output of the same size that numpy
/// has freed). `None` when the output is smaller than the pool takes
/// (`POOL_MIN_BYTES`), holds Python objects, or cannot be mapped (numpy then
/// allocates it, or raises its MemoryError).
#[pyfunction]
#[pyo3(signature = (shape, dtype, fortran=false, like=None))]
fn pooled_output<'py>(
    py: Python<'py>,
    shape: Vec<usize>,
    dtype: Bound<'py, PyArrayDescr>,
    fortran: bool,
    like: Option<Bound<'py, PyUntypedArray>>,
) -> PyResult<Option<(Bound<'py, PyAny>, &'static str)>> {
    if dtype.has_object() || dtype.has_subarray() {
        return Ok(None);
    }
    let bytes = shape
        .iter()
        .try_fold(dtype.itemsize(), |n, &d| n.checked_mul(d));
    let Some(bytes) = bytes.filter(|&b| b >= ndpad::PooledBuffer::MIN_BYTES) else {
        return Ok(None);
    };
    // Where the input starts in its line, rounded down to the dtype's alignment (an
    // unaligned input still gets an aligned output, as numpy.pad's always is).
    let line_offset = match &like {
        Some(a) => {
            let offset = raw::Array::of(a, "like")?.address() % 64;
            offset - offset % dtype.alignment().max(1)
        }
        None => 0,
    };
    let Some(buf) = ndpad::PooledBuffer::with_line_offset(bytes, line_offset) else {
        return Ok(None);
    };
    let memory = match buf.memory() {
        OutputMemory::Zeroed => "zeroed",
        _ => "written",
    };
    let array = raw::pooled_array(py, buf, &dtype, &shape, fortran)?;
    Ok(Some((array, memory)))
}

/// Returns the pool's idle output buffers to the OS now (it does so by itself after
/// 5 s idle).
#[pyfunction]
fn release_pool() {
    ndpad::PooledBuffer::release_idle();
}

/// Bytes of idle output buffers the pool holds now (tests).
#[pyfunction]
fn pooled_bytes() -> usize {
    ndpad::pooled_bytes()
}

/// Ctrl-C during a pad run with the GIL released: between parts of the pad
/// (`ndpad::Interrupt`), the calling thread takes the GIL and lets Python run its
/// signal handlers; an exception they raise (KeyboardInterrupt) stops the pad and is
/// raised when it returns, the output partly written.
struct Signals {
    interrupt: ndpad::Interrupt,
    raised: std::sync::Arc<std::sync::Mutex<Option<PyErr>>>,
}

impl Signals {
    fn new() -> Signals {
        let raised = std::sync::Arc::new(std::sync::Mutex::new(None));
        let keep = std::sync::Arc::clone(&raised);
        let interrupt = ndpad::Interrupt::new(move || {
            Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(e) => {
                    if let Ok(mut slot) = keep.lock() {
                        *slot = Some(e);
                    }
                    true
                }
            })
        });
        Signals { interrupt, raised }
    }

    /// Runs a front end's `work` on an output of `out_bytes` with the GIL released,
    /// asking an interrupt that lets Python run its signal handlers: the handler's
    /// exception where one stopped the work, raised whatever the work returned (a
    /// front end's threads may report a part declined or failed before the part that
    /// saw the stop), else the work's result, its error a `PadError`. An output under
    /// [`GIL_KEPT_BELOW`] is done with the GIL held and no signal asked about.
    fn run<T: Send, E: std::fmt::Display + Send>(
        py: Python<'_>,
        out_bytes: usize,
        work: impl FnOnce(Option<&ndpad::Interrupt>) -> Result<T, E> + Send,
    ) -> PyResult<T> {
        if out_bytes < GIL_KEPT_BELOW {
            return work(None).map_err(pad_error);
        }
        let signals = Signals::new();
        let done = py.detach(|| work(Some(&signals.interrupt)));
        if let Some(err) = signals.raised() {
            return Err(err);
        }
        done.map_err(pad_error)
    }

    /// The exception a signal handler raised during the work, if one did: raised
    /// whatever the work returned.
    fn raised(&self) -> Option<PyErr> {
        self.raised.lock().ok().and_then(|mut slot| slot.take())
    }
}

fn frontend_error(e: FrontendError) -> PyErr {
    match e {
        // numpy's own errors of its index arguments: numpy's class and message.
        FrontendError::NegativeIndex
        | FrontendError::EmptyIndex
        | FrontendError::IndexRank
        | FrontendError::IndexBroadcast { .. } => PyValueError::new_err(e.to_string()),
        e => pad_error(e),
    }
}

/// Pads whose output is smaller run with the GIL held and without the signal checks
/// (a few microseconds; releasing the GIL and preparing the checks cost a fifth of
/// an 8x8 pad's call).
const GIL_KEPT_BELOW: usize = 256 << 10;

/// A validated pad of arrays of one type and shape, ready to run any number of times.
#[pyclass(frozen, module = "ndpad._ndpad")]
struct Spec {
    plan: Plan,
    /// What the plan pads (kept to plan windows of it).
    spec: PadSpec,
    /// The shape of the whole input (also for a window), with the trailing word axis
    /// when `words > 1`.
    shape: Vec<usize>,
    /// Bytes of one element as numpy stores it (packed types: one byte each).
    itemsize: usize,
    /// Elements of the plan's type per numpy element (a trailing axis of the plan
    /// that numpy does not see; 1 when the plan's type is the element's).
    words: usize,
    /// The plan's index maps on each CUDA device it ran on.
    device_maps: cuda::Maps,
}

#[pymethods]
impl Spec {
    /// The padded shape (numpy's axes only).
    #[getter]
    fn output_shape(&self) -> Vec<usize> {
        self.numpy_shape(self.plan.output_shape())
    }

    /// The spec's element type, by ndpad's name (`DType::name`, for messages).
    #[getter]
    fn dtype(&self) -> &'static str {
        self.plan.dtype().name()
    }

    /// Pads the array `src` (C-contiguous, or any layout `reads_in_place` takes) into
    /// the C-contiguous, writable array `dst` of the padded shape, with the GIL
    /// released; `memory`: what `dst` holds,
    /// "written", "fresh" (`numpy.empty`, untouched) or "zeroed" (`numpy.zeros`,
    /// untouched; `ndpad::OutputMemory`).
    #[pyo3(signature = (src, dst, threads=0, memory="written"))]
    fn execute(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyUntypedArray>,
        dst: &Bound<'_, PyUntypedArray>,
        threads: usize,
        memory: &str,
    ) -> PyResult<()> {
        self.run(py, src, dst, threads, output_memory(memory)?)
    }

    /// `src` (an array of the input's shape and element size that `reads_in_place`
    /// takes) padded into a new C-ordered array of its dtype (`numpy.empty`'s memory, written whole), with
    /// `execute`'s threads and checks: one call where the framework pads and
    /// `ndpad.pad`'s whole handling would make the output in Python
    /// (`dispatch.new_output`). `None` where that output is not `numpy.empty`'s: an
    /// output of the pool's size (`POOL_MIN_BYTES` and more), a dtype numpy clears on
    /// allocation (objects, 'U'), or `src` in a layout not read in place.
    #[pyo3(signature = (src, threads=0))]
    fn padded<'py>(
        &self,
        py: Python<'py>,
        src: &Bound<'py, PyUntypedArray>,
        threads: usize,
    ) -> PyResult<Option<Bound<'py, PyUntypedArray>>> {
        let dtype = src.dtype();
        let cleared = dtype.flags() & numpy::npyffi::NPY_NEEDS_INIT != 0;
        if cleared
            || !self.reads_in_place(src)?
            || self.plan.output_bytes() >= PooledBuffer::MIN_BYTES
        {
            return Ok(None);
        }
        let out = raw::empty(py, &dtype, &self.output_dims()?)?;
        self.run(py, src, &out, threads, OutputMemory::Written)?;
        Ok(Some(out))
    }

    /// Pads the CUDA device array at address `src` (`src_bytes` bytes, C-contiguous,
    /// of the spec's input shape and element size) into the one at `dst`
    /// (`dst_bytes`, of the output shape), on device `device`: queued on `stream`
    /// (the library's current CUstream, as an int) without waiting, or with `None`
    /// on ndpad's own stream, waited for. The index maps go to the device once per
    /// spec. Packed 4- and 2-bit types (one byte an element in Python) are refused.
    #[pyo3(signature = (device, src, src_bytes, dst, dst_bytes, stream=None))]
    #[allow(clippy::too_many_arguments)]
    fn execute_device(
        &self,
        py: Python<'_>,
        device: usize,
        src: u64,
        src_bytes: usize,
        dst: u64,
        dst_bytes: usize,
        stream: Option<u64>,
    ) -> PyResult<()> {
        match self.plan.dtype().layout() {
            Layout::Bytes(_) => {}
            Layout::Packed(_) | Layout::Strings => {
                return Err(PyTypeError::new_err(format!(
                    "{} arrays cannot be padded on the GPU from Python (pad them on the host)",
                    self.plan.dtype().name()
                )))
            }
        }
        cuda::pad(
            py,
            &self.plan,
            &self.device_maps,
            device,
            (src, src_bytes),
            (dst, dst_bytes),
            stream,
        )
    }

    /// Pads the object array `src` into the object array `dst` (numpy's `O`; as
    /// `execute` takes its arrays) on the elements' pointers, with the GIL held: each
    /// element of `dst` then holds a reference to the object it shows, `fill` (None
    /// when not given) where the spec's constant, a null pointer, lies; the objects
    /// `dst` held before are released. Python code cannot run until it returns (no
    /// signal handler either), so no object the kernel copies can be freed meanwhile.
    /// `memory`: "zeroed" where `dst` holds only null pointers (`empty_objects`), so
    /// that there is nothing to release and no null to write (taken on the caller's
    /// word: references such a `dst` held would leak); "written" (or "fresh") else.
    #[pyo3(signature = (src, dst, threads=0, fill=None, memory="written"))]
    fn execute_objects(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyUntypedArray>,
        dst: &Bound<'_, PyUntypedArray>,
        threads: usize,
        fill: Option<&Bound<'_, PyAny>>,
        memory: &str,
    ) -> PyResult<()> {
        if self.words != 1 {
            return Err(PyValueError::new_err(format!(
                "the spec pads elements of {} bytes, not object pointers",
                self.itemsize
            )));
        }
        // Shapes and layouts, with `execute`'s messages.
        self.arrays(src, dst)?;
        let opts = PadOptions {
            threads,
            output_memory: output_memory(memory)?,
            ..PadOptions::default()
        };
        raw::pad_objects(py, &self.plan, src, dst, fill, &opts)?.map_err(pad_error)
    }

    /// Whether `execute` reads `src` (of the input's shape and element size) where it
    /// lies: C-contiguous, or any layout without a negative stride of a fixed-width
    /// type (rows in C order are read in place, others gathered a box of the output
    /// at a time: `ndpad::Plan::execute_strided`). Otherwise copy it to C order first.
    fn reads_in_place(&self, src: &Bound<'_, PyUntypedArray>) -> PyResult<bool> {
        let input = raw::Array::of(src, "the input")?;
        Ok(input.c_contiguous || self.strides_in_place(&input).is_some())
    }

    /// The box `out_box` of the padded output (a `(start, stop)` pair per axis): a
    /// spec that pads the input region it reads into an array of the box's shape,
    /// and that region (a `(start, stop)` pair per axis of the input). Boxes are in
    /// the coordinates of the whole output, also for a window's own `window`.
    fn window(&self, out_box: Vec<(usize, usize)>) -> PyResult<(Spec, Vec<(usize, usize)>)> {
        let (spec, w) = self.windowed(&out_box, ndpad::Source::Region)?;
        let region = w.input[..out_box.len()]
            .iter()
            .map(|r| (r.start, r.end))
            .collect();
        Ok((spec, region))
    }

    /// As `window`, but the spec reads the intervals the box reads laid end to end on
    /// each axis (never more than it reads, also where they lie far apart), given as
    /// a list of `(start, stop)` intervals per axis.
    #[allow(clippy::type_complexity)]
    fn window_reads(
        &self,
        out_box: Vec<(usize, usize)>,
    ) -> PyResult<(Spec, Vec<Vec<(usize, usize)>>)> {
        let (spec, w) = self.windowed(&out_box, ndpad::Source::Reads)?;
        let reads = w.reads[..out_box.len()]
            .iter()
            .map(|iv| iv.iter().map(|r| (r.start, r.end)).collect())
            .collect();
        Ok((spec, reads))
    }

    /// For a pad of strings: the same pad of the input's element indices (int64, of
    /// the input's shape, holding its C-order positions), with -1 where the constant
    /// goes, and the constant. The caller gathers the strings by the padded indices:
    /// every allocation is then numpy's, checked (`MemoryError`) before anything is
    /// padded, none one per output string in the kernel (issue #27: a pad of 10^9
    /// strings allocated ~24 GB unchecked and the process died).
    fn string_indices(&self) -> PyResult<(Spec, String)> {
        if self.plan.dtype() != DType::String {
            return Err(PyTypeError::new_err(format!(
                "this pad is of {}, not of strings",
                self.plan.dtype()
            )));
        }
        let mut spec = self.spec.clone();
        if let Mode::Constant(_) = spec.mode {
            let minus_one = Scalar::from_bits(DType::Int64, u128::from(u64::MAX));
            spec.mode = Mode::Constant(Some(minus_one.map_err(pad_error)?));
        }
        let constant = self.plan.value().as_str().unwrap_or_default().to_owned();
        Ok((Spec::new(DType::Int64, &self.shape, &spec, 8)?, constant))
    }
}

impl Spec {
    /// `execute` with `memory` parsed: also the remembered pads' (`repeats`).
    fn run(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyUntypedArray>,
        dst: &Bound<'_, PyUntypedArray>,
        threads: usize,
        output_memory: OutputMemory,
    ) -> PyResult<()> {
        let (input, output, strided) = self.arrays(src, dst)?;
        let packed_bits = match self.plan.dtype().layout() {
            Layout::Strings => {
                return Err(PyTypeError::new_err(
                    "strings are padded through string_indices",
                ))
            }
            Layout::Packed(bits) => Some(bits),
            Layout::Bytes(_) => None,
        };
        let src_bytes = input.bytes()?;
        let dst_bytes = output.output_apart(&input)?;
        let plan = &self.plan;
        Signals::run(py, plan.output_bytes(), |interrupt| {
            let opts = PadOptions {
                threads,
                output_memory,
                interrupt: interrupt.cloned(),
                ..PadOptions::default()
            };
            match packed_bits {
                None => run_bytes(plan, src_bytes, strided.as_deref(), dst_bytes, &opts),
                Some(bits) => run_packed(plan, bits, src_bytes, dst_bytes, &opts),
            }
        })
    }

    fn windowed(
        &self,
        out_box: &[(usize, usize)],
        source: ndpad::Source,
    ) -> PyResult<(Spec, ndpad::Window)> {
        let mut ranges: Vec<std::ops::Range<usize>> = out_box.iter().map(|&(a, b)| a..b).collect();
        if self.words > 1 {
            ranges.push(0..self.words);
        }
        let mut w = Plan::window(self.plan.dtype(), &self.shape, &self.spec, &ranges, source)
            .map_err(pad_error)?;
        let plan = std::mem::replace(&mut w.plan, self.plan.clone());
        let spec = Spec {
            shape: self.shape.clone(),
            plan,
            spec: self.spec.clone(),
            itemsize: self.itemsize,
            words: self.words,
            device_maps: cuda::Maps::default(),
        };
        Ok((spec, w))
    }

    fn new(dtype: DType, shape: &[usize], spec: &PadSpec, itemsize: usize) -> PyResult<Spec> {
        let plan = Plan::new(dtype, shape, spec).map_err(pad_error)?;
        let words = match dtype.layout() {
            Layout::Bytes(w) => itemsize / w,
            _ => 1,
        };
        Ok(Spec {
            plan,
            spec: spec.clone(),
            shape: shape.to_vec(),
            itemsize,
            words,
            device_maps: cuda::Maps::default(),
        })
    }

    /// [`Spec::output_shape`] as numpy's extents.
    fn output_dims(&self) -> PyResult<Vec<numpy::npyffi::npy_intp>> {
        self.output_shape()
            .into_iter()
            .map(numpy::npyffi::npy_intp::try_from)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| PyValueError::new_err("the padded shape is too large"))
    }

    fn numpy_shape(&self, shape: &[usize]) -> Vec<usize> {
        let n = shape.len() - usize::from(self.words > 1);
        shape[..n].to_vec()
    }

    /// `src` and `dst` as `execute` takes them (shapes, layouts, `dst` writable, the
    /// two apart in memory), with the input's strides where its rows are read in
    /// place.
    fn arrays<'a>(
        &self,
        src: &'a Bound<'_, PyUntypedArray>,
        dst: &'a Bound<'_, PyUntypedArray>,
    ) -> PyResult<(raw::Array<'a>, raw::Array<'a>, Option<Vec<isize>>)> {
        let input = raw::Array::of(src, "the input")?;
        let output = raw::Array::of(dst, "the output")?;
        // An input in another layout whose rows the kernel reads in place.
        let strided = match input.c_contiguous {
            true => None,
            false => Some(self.strides_in_place(&input).ok_or_else(|| {
                PyValueError::new_err(
                    "the input must be C-contiguous, or of a fixed-width type without \
                     negative strides",
                )
            })?),
        };
        self.check(
            &input,
            self.plan.input_shape(),
            "the input",
            strided.is_some(),
        )?;
        self.check(&output, self.plan.output_shape(), "the output", false)?;
        Ok((input, output, strided))
    }

    /// The byte strides of the plan's input axes (the numpy array's, and the word
    /// axis's) where `execute_strided` reads `a` where it lies: a fixed-width type,
    /// no negative stride, and for objects whole pointers apart.
    fn strides_in_place(&self, a: &raw::Array<'_>) -> Option<Vec<isize>> {
        let fixed = matches!(self.plan.dtype().layout(), Layout::Bytes(_));
        let readable = fixed && a.spans() && (!a.objects() || a.pointer_aligned());
        if !readable || a.itemsize != self.itemsize {
            return None;
        }
        let mut strides = a.strides.to_vec();
        if self.words > 1 {
            strides.push(isize::try_from(self.itemsize / self.words).ok()?);
        }
        Some(strides)
    }

    fn check(
        &self,
        a: &raw::Array<'_>,
        shape: &[usize],
        what: &str,
        strided: bool,
    ) -> PyResult<()> {
        let want = &shape[..shape.len() - usize::from(self.words > 1)];
        if a.itemsize != self.itemsize || a.shape != want {
            return Err(PyValueError::new_err(format!(
                "{what} must have shape {want:?} and {} bytes per element; it has shape {:?} and {}",
                self.itemsize, a.shape, a.itemsize
            )));
        }
        if !a.c_contiguous && !strided {
            return Err(PyValueError::new_err(format!(
                "{what} must be C-contiguous"
            )));
        }
        Ok(())
    }
}

/// The fixed-width pad of `src` (C-contiguous, or read where it lies with `strides`)
/// into the C-contiguous `dst`.
pub(crate) fn run_bytes(
    plan: &Plan,
    src: &[u8],
    strides: Option<&[isize]>,
    dst: &mut [u8],
    opts: &PadOptions,
) -> Result<(), ndpad::PadError> {
    let mut out = TensorViewMut::from_bytes(plan.dtype(), plan.output_shape(), dst)?;
    match strides {
        Some(strides) => plan.execute_strided(src, strides, &mut out, opts),
        None => {
            let view = TensorView::from_bytes(plan.dtype(), plan.input_shape(), src)?;
            plan.execute(view, &mut out, opts)
        }
    }
}

/// Packed 4- and 2-bit types arrive one element a byte (ml_dtypes' layout, signed
/// values sign-extended): packed for the kernel, padded, unpacked into `dst`. Every
/// buffer is allocated fallibly ([`ndpad::PadError::OutOfMemory`], not an abort).
fn run_packed(
    plan: &Plan,
    bits: u32,
    src: &[u8],
    dst: &mut [u8],
    opts: &PadOptions,
) -> Result<(), ndpad::PadError> {
    let dtype = plan.dtype();
    let mask = ((1u16 << bits) - 1) as u8;
    let buffer = |bytes: usize| {
        ndpad::output_buffer(bytes).ok_or_else(|| ndpad::PadError::OutOfMemory {
            shape: plan.output_shape().to_vec(),
            bytes,
        })
    };
    let mut low = buffer(src.len())?;
    for (l, b) in low.iter_mut().zip(src) {
        *l = b & mask;
    }
    let packed_len = |n: usize| dtype.byte_len(n).unwrap_or(0);
    let mut input = buffer(packed_len(src.len()))?;
    packed::pack(&low, bits, &mut input);
    drop(low);
    let mut output = buffer(packed_len(dst.len()))?;
    let view = TensorView::from_bytes(dtype, plan.input_shape(), &input)?;
    let mut out = TensorViewMut::from_bytes(dtype, plan.output_shape(), &mut output)?;
    plan.execute(view, &mut out, opts)?;
    let wide = packed::unpack(&output, bits, dst.len()).ok_or(ndpad::PadError::OutOfMemory {
        shape: plan.output_shape().to_vec(),
        bytes: dst.len(),
    })?;
    let signed = dtype.is_signed_integer();
    let sign = 1u8 << (bits - 1);
    for (d, v) in dst.iter_mut().zip(wide) {
        *d = if signed && v & sign != 0 {
            v | !mask
        } else {
            v
        };
    }
    Ok(())
}

fn parse_negative(negative: Option<&str>) -> PyResult<Option<NegativePads>> {
    match negative {
        None => Ok(None),
        Some("crop_first") => Ok(Some(NegativePads::CropFirst)),
        Some("original_index") => Ok(Some(NegativePads::OriginalIndex)),
        Some(other) => Err(PyValueError::new_err(format!(
            "negative_pads must be None, 'crop_first' or 'original_index', not {other:?}"
        ))),
    }
}

/// `memory` ("written", "fresh" or "zeroed") as the core's [`OutputMemory`].
fn output_memory(memory: &str) -> PyResult<OutputMemory> {
    match memory {
        "written" => Ok(OutputMemory::Written),
        "fresh" => Ok(OutputMemory::Fresh),
        "zeroed" => Ok(OutputMemory::Zeroed),
        other => Err(PyValueError::new_err(format!(
            "memory must be 'written', 'fresh' or 'zeroed', not {other:?}"
        ))),
    }
}

/// A new object array of `shape` (Fortran order when `fortran`) holding no
/// references (null pointers, which numpy shows as None): the output of
/// `Spec.execute_objects`, which then has none to release.
#[pyfunction]
#[pyo3(signature = (shape, fortran=false))]
fn empty_objects<'py>(
    py: Python<'py>,
    shape: Vec<usize>,
    fortran: bool,
) -> PyResult<Bound<'py, PyAny>> {
    raw::empty_objects(py, &shape, fortran)
}

/// A numpy.pad-style index pad of elements of `itemsize` opaque bytes
/// ([`NumpyPad::resolve_bytes`]): `values` the constants' bytes (none, one, or one per
/// side); `negative` the policy for negative pads (None: the caller has rejected
/// them); `corners` "last" (numpy's) or "first" ([`ndpad::Corners`]: for an array
/// given with its axes reversed).
#[pyfunction]
#[pyo3(signature = (itemsize, shape, begins, ends, interiors, mode, values=Vec::new(), negative=None, corners="last"))]
#[allow(clippy::too_many_arguments)]
fn numpy_spec(
    itemsize: usize,
    shape: Vec<usize>,
    begins: Vec<i64>,
    ends: Vec<i64>,
    interiors: Vec<u64>,
    mode: &str,
    values: Vec<Vec<u8>>,
    negative: Option<&str>,
    corners: &str,
) -> PyResult<Spec> {
    let corners = match corners {
        "last" => ndpad::Corners::LastAxis,
        "first" => ndpad::Corners::FirstAxis,
        other => {
            return Err(PyValueError::new_err(format!(
                "corners must be 'last' or 'first', not {other:?}"
            )))
        }
    };
    let pads = axis_pads(&shape, &begins, &ends, &interiors)?;
    let negative = parse_negative(negative)?;
    let values: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
    numpy_spec_of(itemsize, &shape, pads, mode, &values, negative, corners)
}

/// One [`AxisPad`] per axis of `shape` from the three lists of a numpy pad.
fn axis_pads(
    shape: &[usize],
    begins: &[i64],
    ends: &[i64],
    interiors: &[u64],
) -> PyResult<Vec<AxisPad>> {
    if begins.len() != shape.len() || ends.len() != shape.len() || interiors.len() != shape.len() {
        return Err(PyValueError::new_err(format!(
            "one pad per axis: {}, {} / {} / {} pads",
            ndpad::axes(shape.len()),
            begins.len(),
            ends.len(),
            interiors.len()
        )));
    }
    Ok((0..shape.len())
        .map(|i| AxisPad {
            begin: begins[i],
            end: ends[i],
            interior: interiors[i],
        })
        .collect())
}

/// The spec of [`numpy_spec`]'s arguments, parsed.
fn numpy_spec_of(
    itemsize: usize,
    shape: &[usize],
    pads: Vec<AxisPad>,
    mode: &str,
    values: &[&[u8]],
    negative: Option<NegativePads>,
    corners: ndpad::Corners,
) -> PyResult<Spec> {
    let r = NumpyPad
        .resolve_bytes(itemsize, shape, pads, mode, values, negative)
        .map_err(frontend_error)?;
    Spec::new(r.dtype, &r.shape, &r.spec.with_corners(corners), itemsize)
}

/// The spec of a numpy index pad with plain arguments (`ndpad.pad`'s remembered
/// pads): `widths` one `(before, after)` pair per axis of `shape`, `values` the
/// constants' bytes as [`numpy_spec`] takes them; no interior, no negative pads,
/// numpy's corners. (The front end checks that there is one pair per axis.)
pub(crate) fn plain_numpy_spec(
    itemsize: usize,
    shape: &[usize],
    widths: &[(i64, i64)],
    mode: &str,
    values: &[Vec<u8>],
) -> PyResult<Spec> {
    let pads = widths.iter().map(|&(b, e)| AxisPad::new(b, e)).collect();
    let values: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
    numpy_spec_of(
        itemsize,
        shape,
        pads,
        mode,
        &values,
        None,
        ndpad::Corners::LastAxis,
    )
}

/// numpy.pad's index argument (`pad_width`, `stat_length`) `values`, already
/// converted to integers as numpy converts it, as one `(before, after)` pair per axis
/// of `ndim` ([`ndpad_frontends::numpy::index_pairs`]); `allow_negative` skips the
/// checks of the values. numpy's ValueError, with numpy's message, where numpy raises
/// one.
#[pyfunction]
fn numpy_index_pairs(
    values: PyReadonlyArrayDyn<'_, i64>,
    ndim: usize,
    allow_negative: bool,
) -> PyResult<Vec<(i64, i64)>> {
    // In C order, whatever the strides (a Fortran-ordered array's slice is not).
    let flat: Vec<i64> = values.as_array().iter().copied().collect();
    index_pairs(&flat, values.shape(), ndim, allow_negative).map_err(frontend_error)
}

/// A pad value from Python: a tensor (the ONNX name of its type, its shape and its
/// bytes, one byte per element for the packed types), a string, or a Python number
/// as `("number", text)`, which the front end reads as a value of the data's type
/// (the rule and the message of the CLI's `--value`).
#[derive(FromPyObject)]
enum Value {
    Tensor(String, Vec<usize>, Vec<u8>),
    Number(String, String),
    Text(String),
}

fn pad_value(value: Option<Value>) -> PyResult<Option<PadValue>> {
    Ok(match value {
        None => None,
        Some(Value::Number(tag, text)) if tag == "number" => Some(PadValue::Text(text)),
        Some(Value::Number(tag, _)) => {
            return Err(PyTypeError::new_err(format!(
                "a pad value tuple of two is (\"number\", text), not ({tag:?}, ..)"
            )))
        }
        Some(Value::Text(s)) => Some(PadValue::Scalar(Scalar::string(s))),
        Some(Value::Tensor(name, shape, mut bytes)) => {
            let dtype: DType = name.parse().map_err(pad_error)?;
            if let Layout::Packed(bits) = dtype.layout() {
                let low: Vec<u8> = bytes
                    .iter()
                    .map(|b| b & ((1u16 << bits) - 1) as u8)
                    .collect();
                bytes = vec![0u8; dtype.byte_len(low.len()).unwrap_or(0)];
                packed::pack(&low, bits, &mut bytes);
            }
            let t = ndpad::Tensor::from_bytes(dtype, &shape, bytes).map_err(pad_error)?;
            Some(PadValue::Tensor(t))
        }
    })
}

fn resolved(r: Result<Resolved, FrontendError>, dtype: DType, shape: &[usize]) -> PyResult<Spec> {
    let r = r.map_err(frontend_error)?;
    let itemsize = match dtype.layout() {
        Layout::Bytes(w) => w,
        Layout::Packed(_) => 1,
        Layout::Strings => 0,
    };
    Spec::new(dtype, shape, &r.spec, itemsize)
}

fn parse_dtype(name: &str) -> PyResult<DType> {
    name.parse().map_err(pad_error)
}

fn parse_oversize(s: &str) -> PyResult<Oversize> {
    match s {
        "repeat" => Ok(Oversize::Repeat),
        "error" => Ok(Oversize::Error),
        other => Err(PyValueError::new_err(format!(
            "reflect_oversize must be 'repeat' or 'error', not {other:?}"
        ))),
    }
}

fn onnx_pad_node(
    op: &OnnxPad,
    dtype: DType,
    pads: Vec<i64>,
    mode: &str,
    value: Option<Value>,
    axes: Option<Vec<i64>>,
) -> PyResult<PadNode> {
    let mut node = PadNode::new(dtype).mode(mode);
    let value = pad_value(value)?;
    if op.opset() < 11 {
        // Opsets 1 and 2: `paddings` / `pads` and the float `value` are attributes.
        node = if op.opset() < 2 {
            node.paddings(pads)
        } else {
            node.pads_attribute(pads)
        };
        if let Some(v) = value {
            let f = match &v {
                PadValue::Scalar(s) => s.to_f64(),
                PadValue::Tensor(t) => t.view().scalar_at(0).and_then(|s| s.to_f64()),
                PadValue::Text(t) => Scalar::parse(DType::Float64, t)
                    .map_err(|e| PadError::new_err(format!("constant_value: {e}")))?
                    .to_f64(),
            }
            .ok_or_else(|| PyTypeError::new_err("the value attribute of Pad-1/2 is a float"))?;
            node = node.value(f as f32);
        }
    } else {
        node = node.pads(pads);
        if let Some(v) = value {
            node = node.constant_value(v);
        }
    }
    if let Some(a) = axes {
        node = node.axes(a);
    }
    Ok(node)
}

/// A dim from Python: a number or a name (None, an unknown dim, is the `Option`'s).
#[derive(FromPyObject, IntoPyObject)]
enum PyDim {
    Known(usize),
    Named(String),
}

fn dims_in(shape: Vec<Option<PyDim>>) -> Vec<Dim> {
    shape
        .into_iter()
        .map(|d| match d {
            Some(PyDim::Known(n)) => Dim::Known(n),
            Some(PyDim::Named(s)) => Dim::Named(s),
            None => Dim::Unknown,
        })
        .collect()
}

fn dims_out(dims: Result<Vec<Dim>, FrontendError>) -> PyResult<Vec<Option<PyDim>>> {
    Ok(dims
        .map_err(frontend_error)?
        .into_iter()
        .map(|d| match d {
            Dim::Known(n) => Some(PyDim::Known(n)),
            Dim::Named(s) => Some(PyDim::Named(s)),
            Dim::Unknown => None,
        })
        .collect())
}

/// The output shape of ONNX Pad (dims may be names or None). The data's type does
/// not change the shape; `float` stands for it.
#[pyfunction]
#[pyo3(signature = (shape, pads, axes=None, opset=25, mode="constant"))]
fn onnx_output_shape(
    shape: Vec<Option<PyDim>>,
    pads: Vec<i64>,
    axes: Option<Vec<i64>>,
    opset: i64,
    mode: &str,
) -> PyResult<Vec<Option<PyDim>>> {
    let op = OnnxPad::new(opset).map_err(frontend_error)?;
    let node = onnx_pad_node(&op, DType::Float32, pads, mode, None, axes)?;
    dims_out(op.output_dims(&node, &dims_in(shape)))
}

/// The output shape of OpenVINO Pad (dims may be names or None).
#[pyfunction]
#[pyo3(signature = (shape, pads_begin, pads_end, pad_mode="constant", opset=12))]
fn openvino_output_shape(
    shape: Vec<Option<PyDim>>,
    pads_begin: Vec<i64>,
    pads_end: Vec<i64>,
    pad_mode: &str,
    opset: i64,
) -> PyResult<Vec<Option<PyDim>>> {
    let op = openvino_op(opset)?;
    let node = OvPadNode::new(DType::Float32, pad_mode, pads_begin, pads_end);
    dims_out(op.output_dims(&node, &dims_in(shape)))
}

/// The output shape of nGraph Pad v0 (dims may be names or None).
#[pyfunction]
#[pyo3(signature = (shape, below, above, interior=None, pad_mode="constant"))]
fn ngraph_output_shape(
    shape: Vec<Option<PyDim>>,
    below: Vec<i64>,
    above: Vec<i64>,
    interior: Option<Vec<i64>>,
    pad_mode: &str,
) -> PyResult<Vec<Option<PyDim>>> {
    let mut node = NgPadNode::new(DType::Float32, pad_mode, below, above);
    if let Some(i) = interior {
        node = node.interior(i);
    }
    dims_out(NgraphPad.output_dims(&node, &dims_in(shape)))
}

/// The shape numpy.pad gives an array of `shape` padded by `begins` / `ends` (negative:
/// cropped) with `interiors` between neighbours: the core's shape function
/// ([`ndpad::output_shape`]), for outputs allocated before their pad's spec is made.
#[pyfunction]
fn numpy_output_shape(
    shape: Vec<usize>,
    begins: Vec<i64>,
    ends: Vec<i64>,
    interiors: Vec<u64>,
) -> PyResult<Vec<usize>> {
    let pads = axis_pads(&shape, &begins, &ends, &interiors)?;
    ndpad::output_shape(&shape, &PadSpec::new(pads, Mode::Constant(None))).map_err(pad_error)
}

fn openvino_op(opset: i64) -> PyResult<OpenVinoPad> {
    match opset {
        1 => Ok(OpenVinoPad::V1),
        12 => Ok(OpenVinoPad::V12),
        other => Err(pad_error(format!(
            "OpenVINO Pad: opset {other} does not exist (1 or 12)"
        ))),
    }
}

/// The buffer of a statistic or ramp fill (C-contiguous and writable: checked when
/// its bytes are taken) and its type.
fn stat_buffer<'a>(
    dst: &'a Bound<'_, PyUntypedArray>,
    dtype: &str,
) -> PyResult<(raw::Array<'a>, DType)> {
    let output = raw::Array::of(dst, "the output")?;
    let dtype = parse_dtype(dtype)?;
    if dtype.layout() != Layout::Bytes(output.itemsize) {
        return Err(PyValueError::new_err(format!(
            "the output has {} bytes per element, not a {}",
            output.itemsize,
            dtype.name()
        )));
    }
    Ok((output, dtype))
}

/// numpy.pad's statistic `mode` into the pad areas of `dst` (the input, of shape
/// `in_shape`, already written at `pads[i][0]`), with the GIL released. True when
/// done; False when declined (numpy's own reductions must fill the pads).
#[pyfunction]
fn fill_stat(
    py: Python<'_>,
    dst: &Bound<'_, PyUntypedArray>,
    dtype: &str,
    in_shape: Vec<usize>,
    pads: Vec<(usize, usize)>,
    lengths: Vec<(Option<usize>, Option<usize>)>,
    mode: &str,
) -> PyResult<bool> {
    let stat = stats::Stat::from_name(mode)
        .ok_or_else(|| PyValueError::new_err(format!("{mode:?} is not a statistic mode")))?;
    let (output, dtype) = stat_buffer(dst, dtype)?;
    let bytes = output.output()?;
    let fill = Signals::run(py, bytes.len(), |interrupt| {
        stats::fill_stat_bytes(dtype, bytes, &in_shape, &pads, &lengths, stat, interrupt)
    })?;
    Ok(fill == stats::Outcome::Done)
}

/// numpy.pad's `linear_ramp` into the pad areas of `dst` (as `fill_stat`), computed
/// in `compute` (numpy.linspace's type), `ends` being values of it.
#[pyfunction]
fn fill_ramp(
    py: Python<'_>,
    dst: &Bound<'_, PyUntypedArray>,
    dtype: &str,
    compute: &str,
    in_shape: Vec<usize>,
    pads: Vec<(usize, usize)>,
    ends: Vec<(f64, f64)>,
) -> PyResult<bool> {
    let (output, dtype) = stat_buffer(dst, dtype)?;
    let compute = parse_dtype(compute)?;
    let bytes = output.output()?;
    let fill = Signals::run(py, bytes.len(), |interrupt| {
        stats::fill_ramp_bytes(dtype, compute, bytes, &in_shape, &pads, &ends, interrupt)
    })?;
    Ok(fill == stats::Outcome::Done)
}

/// The bytes of the input `src` (C-contiguous) and the output `dst` of a fused
/// statistic or ramp pad, and their type.
fn stat_pair<'a>(
    src: &'a Bound<'_, PyUntypedArray>,
    dst: &'a Bound<'_, PyUntypedArray>,
    dtype: &str,
) -> PyResult<(&'a [u8], &'a mut [u8], DType)> {
    let (output, dtype) = stat_buffer(dst, dtype)?;
    let input = raw::Array::of(src, "the input")?;
    if !input.c_contiguous || input.itemsize != output.itemsize {
        return Err(PyValueError::new_err(
            "the input must be C-contiguous, of the output's type",
        ));
    }
    let dst_bytes = output.output_apart(&input)?;
    Ok((input.bytes()?, dst_bytes, dtype))
}

/// Pads `src` (shape `in_shape`) into `dst` with numpy.pad's statistic `mode`, the
/// GIL released: the copy of the input fused with the pads (split among `threads`,
/// 0 = all cores). True when done; False
/// when declined (the input is in place, the pads must be filled by numpy's own
/// reductions).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn pad_stat(
    py: Python<'_>,
    src: &Bound<'_, PyUntypedArray>,
    dst: &Bound<'_, PyUntypedArray>,
    dtype: &str,
    in_shape: Vec<usize>,
    pads: Vec<(usize, usize)>,
    lengths: Vec<(Option<usize>, Option<usize>)>,
    mode: &str,
    threads: usize,
) -> PyResult<bool> {
    let stat = stats::Stat::from_name(mode)
        .ok_or_else(|| PyValueError::new_err(format!("{mode:?} is not a statistic mode")))?;
    let (src_bytes, dst_bytes, dtype) = stat_pair(src, dst, dtype)?;
    let fill = Signals::run(py, dst_bytes.len(), |interrupt| {
        stats::pad_stat_bytes(
            dtype, src_bytes, dst_bytes, &in_shape, &pads, &lengths, stat, threads, interrupt,
        )
    })?;
    Ok(fill == stats::Outcome::Done)
}

/// Pads `src` into `dst` with numpy.pad's `linear_ramp` (as `pad_stat`), computed in
/// `compute`, `ends` being values of it.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn pad_ramp(
    py: Python<'_>,
    src: &Bound<'_, PyUntypedArray>,
    dst: &Bound<'_, PyUntypedArray>,
    dtype: &str,
    compute: &str,
    in_shape: Vec<usize>,
    pads: Vec<(usize, usize)>,
    ends: Vec<(f64, f64)>,
    threads: usize,
) -> PyResult<bool> {
    let (src_bytes, dst_bytes, dtype) = stat_pair(src, dst, dtype)?;
    let compute = parse_dtype(compute)?;
    let fill = Signals::run(py, dst_bytes.len(), |interrupt| {
        stats::pad_ramp_bytes(
            dtype, compute, src_bytes, dst_bytes, &in_shape, &pads, &ends, threads, interrupt,
        )
    })?;
    Ok(fill == stats::Outcome::Done)
}

fn reflection(mode: &str) -> PyResult<odd::Reflection> {
    odd::Reflection::from_name(mode)
        .ok_or_else(|| PyValueError::new_err(format!("{mode:?} is neither reflect nor symmetric")))
}

fn ranges(pairs: &[(usize, usize)]) -> Vec<std::ops::Range<usize>> {
    pairs.iter().map(|&(a, b)| a..b).collect()
}

/// The input region (`(start, stop)` per axis) that the box `out_box` of an odd pad of
/// an array of `in_shape` by `pads` is computed from.
#[pyfunction]
fn odd_window(
    in_shape: Vec<usize>,
    pads: Vec<(usize, usize)>,
    out_box: Vec<(usize, usize)>,
) -> PyResult<Vec<(usize, usize)>> {
    let region = odd::odd_window(&in_shape, &pads, &ranges(&out_box)).map_err(pad_error)?;
    Ok(region.iter().map(|r| (r.start, r.end)).collect())
}

/// `pad_odd_window`'s floating-point exceptions: `(overflow, invalid)` of numpy's
/// `multiply`, of its `subtract`, and whether a value is undetermined.
type OddFlags = ((bool, bool), (bool, bool), bool);

/// The box `out_box` of an odd pad of an array of `in_shape` by `pads` with numpy.pad's
/// `mode` ('reflect' or 'symmetric') and `reflect_type='odd'`, bit for bit, into `dst`,
/// from `src`: the input's elements in `region` (as `odd_window` gives it), the GIL
/// released (split among `threads`, 0 = all cores). Returns the floating-point
/// exceptions numpy would have reported, `((overflow, invalid) of multiply, (overflow,
/// invalid) of subtract, undetermined)` (the last: values numpy computes differently
/// on different machines, to be left to numpy).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn pad_odd_window(
    py: Python<'_>,
    src: &Bound<'_, PyUntypedArray>,
    dst: &Bound<'_, PyUntypedArray>,
    dtype: &str,
    in_shape: Vec<usize>,
    pads: Vec<(usize, usize)>,
    mode: &str,
    region: Vec<(usize, usize)>,
    out_box: Vec<(usize, usize)>,
    threads: usize,
) -> PyResult<OddFlags> {
    let mode = reflection(mode)?;
    let (src_bytes, dst_bytes, dtype) = stat_pair(src, dst, dtype)?;
    let (region, out_box) = (ranges(&region), ranges(&out_box));
    let flags = Signals::run(py, dst_bytes.len(), |interrupt| {
        odd::pad_odd_window_bytes(
            dtype, &in_shape, &pads, mode, &region, src_bytes, &out_box, dst_bytes, threads,
            interrupt,
        )
    })?;
    let (m, s) = (flags.multiply, flags.subtract);
    Ok((
        (m.overflow, m.invalid),
        (s.overflow, s.invalid),
        flags.undetermined,
    ))
}

/// The `ndpad` command (`ndpad._cli:main`, the console script `pip install .`
/// installs): runs the command line `argv` (the program's name first) as the `ndpad`
/// binary does, then ends the process with its exit code, so that the process behaves
/// as the binary's: same output, exit codes, signal handling (SIGINT / SIGTERM stop
/// the command, exit 128 + the signal). Never returns.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> PyResult<()> {
    let code = py.detach(|| ndpad_cli::main(argv));
    std::process::exit(code)
}

/// The Python exception of a zarr error: `OSError` for files that could not be
/// written, `MemoryError` for chunks over the memory budget, [`PadError`] (a
/// `ValueError`) for the rest.
fn zarr_error(e: ndpad_zarr::ZarrError) -> PyErr {
    use ndpad_zarr::ZarrError as Z;
    match e {
        Z::Write { .. } | Z::Io { .. } => pyo3::exceptions::PyOSError::new_err(e.to_string()),
        Z::ChunkOverBudget { .. } => pyo3::exceptions::PyMemoryError::new_err(e.to_string()),
        e => pad_error(e),
    }
}

/// `ndpad.zarr.pad`: the zarr v3 array at `src` padded into a new one at `dst` as
/// `numpy.pad` pads (the numpy front end resolves `pad_width`, `mode` and `values`:
/// none, one constant, or one per side; `interior` and `negative` as `ndpad.pad`
/// takes them), chunk by chunk with the GIL released; Ctrl-C stops it (nothing is
/// written). The output's shape, its chunk count and the chunks not stored (all fill
/// value).
#[pyfunction]
// max_chunks: ndpad_zarr::DEFAULT_MAX_CHUNKS, written out so that the text signature
// (and mypy.stubtest) shows it.
#[pyo3(signature = (src, dst, pad_width, mode="constant", values=Vec::new(), interior=Vec::new(), negative=None, threads=0, chunks=None, max_memory=None, max_chunks=1_048_576))]
#[allow(clippy::too_many_arguments)]
fn zarr_pad(
    py: Python<'_>,
    src: std::path::PathBuf,
    dst: std::path::PathBuf,
    pad_width: Vec<(i64, i64)>,
    mode: &str,
    values: Vec<Value>,
    interior: Vec<u64>,
    negative: Option<&str>,
    threads: usize,
    chunks: Option<Vec<u64>>,
    max_memory: Option<u64>,
    max_chunks: u64,
) -> PyResult<(Vec<usize>, u64, u64)> {
    use ndpad_frontends::numpy::NumpyPadNode;
    let values = values
        .into_iter()
        .map(|v| {
            pad_value(Some(v))?.ok_or_else(|| PyValueError::new_err("a constant value is missing"))
        })
        .collect::<PyResult<Vec<PadValue>>>()?;
    let negative = parse_negative(negative)?;
    let input = py
        .detach(|| ndpad_zarr::ZarrArray::open(&src))
        .map_err(zarr_error)?;
    let node = match values.as_slice() {
        [] => NumpyPadNode::new(input.dtype(), mode, pad_width),
        [one] => NumpyPadNode::new(input.dtype(), mode, pad_width).constant_values(one.clone()),
        _ if values.len() % 2 == 0 => NumpyPadNode::new(input.dtype(), mode, pad_width)
            .constant_values_per_side(
                values
                    .chunks(2)
                    .map(|p| (p[0].clone(), p[1].clone()))
                    .collect(),
            ),
        _ => {
            return Err(PyValueError::new_err(format!(
                "constant values: one, or one per side, not {}",
                values.len()
            )))
        }
    };
    let node = match negative {
        Some(policy) => node.interior(interior).negative_pads(policy),
        None => node.interior(interior),
    };
    let r = NumpyPad
        .resolve(&node, input.shape())
        .map_err(frontend_error)?;
    let signals = Signals::new();
    let opts = ndpad_zarr::ZarrPadOptions {
        threads,
        chunks,
        max_chunks,
        max_memory,
        interrupt: Some(signals.interrupt.clone()),
        ..ndpad_zarr::ZarrPadOptions::default()
    };
    let done = py.detach(|| ndpad_zarr::pad_array(&input, &dst, &r.spec, &opts));
    if let Some(err) = signals.raised() {
        return Err(err);
    }
    match done {
        Ok(report) => Ok((report.shape, report.chunks, report.chunks_skipped)),
        Err(e) => Err(zarr_error(e)),
    }
}

const _: () = assert!(ndpad_zarr::DEFAULT_MAX_CHUNKS == 1_048_576);

/// The extension module.
#[pymodule]
fn _ndpad(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Watch for forks from now on (`ndpad::threads`): a child forked after rayon's
    // pool started (by a zarr read, say) then never hands work to the parent's threads.
    ndpad::threads::count(1);
    m.add("PadError", m.py().get_type::<PadError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Spec>()?;
    m.add_class::<repeats::Repeats>()?;
    m.add_class::<repeats::RepeatKey>()?;
    m.add_function(wrap_pyfunction!(repeats::node_key, m)?)?;
    m.add_class::<raw::PooledMemory>()?;
    m.add("POOL_MIN_BYTES", ndpad::PooledBuffer::MIN_BYTES)?;
    m.add_function(wrap_pyfunction!(pooled_output, m)?)?;
    m.add_function(wrap_pyfunction!(pooled_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(release_pool, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_spec, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_index_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(empty_objects, m)?)?;
    m.add_class::<frameworks::Node>()?;
    m.add_function(wrap_pyfunction!(frameworks::onnx_node, m)?)?;
    m.add_function(wrap_pyfunction!(frameworks::openvino_node, m)?)?;
    m.add_function(wrap_pyfunction!(frameworks::ngraph_node, m)?)?;
    m.add_function(wrap_pyfunction!(onnx_output_shape, m)?)?;
    m.add_function(wrap_pyfunction!(openvino_output_shape, m)?)?;
    m.add_function(wrap_pyfunction!(ngraph_output_shape, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_output_shape, m)?)?;
    m.add_function(wrap_pyfunction!(fill_stat, m)?)?;
    m.add_function(wrap_pyfunction!(fill_ramp, m)?)?;
    m.add_function(wrap_pyfunction!(pad_stat, m)?)?;
    m.add_function(wrap_pyfunction!(pad_ramp, m)?)?;
    m.add_function(wrap_pyfunction!(odd_window, m)?)?;
    m.add_function(wrap_pyfunction!(pad_odd_window, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(zarr_pad, m)?)?;
    Ok(())
}
