//! numpy arrays as byte slices, new arrays over the core's pooled buffers, and object
//! arrays padded on their pointers: the extension's only `unsafe` code (the rest of
//! the crate denies it). The functions here are safe to call: each checks what its
//! `unsafe` blocks rely on (layouts, writability, overlap, the GIL held). What no
//! check can see is Python code handing the same memory to two calls that run at
//! once on two threads (the GIL released): as with numpy's own loops, which release
//! it too, that race is the caller's.

use std::ffi::c_int;
use std::marker::PhantomData;

use numpy::npyffi::{
    get_type_object, npy_intp, NpyTypes, NPY_ARRAY_CARRAY, NPY_ARRAY_FARRAY, PY_ARRAY_API,
};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What the extension needs to know of a numpy array, borrowed for `'a` (which keeps
/// its memory alive).
pub(crate) struct Array<'a> {
    data: *mut u8,
    /// Bytes from `data` (its first element) to the end of its last element: the
    /// elements' bytes for a C-contiguous array; for another layout with non-negative
    /// strides, every byte its strides reach (`None` with a negative stride).
    len: Option<usize>,
    pub(crate) shape: &'a [usize],
    /// Bytes between neighbours along each axis.
    pub(crate) strides: &'a [isize],
    pub(crate) itemsize: usize,
    pub(crate) c_contiguous: bool,
    writable: bool,
    /// Its elements hold Python objects (references): their bytes are not handed
    /// out, but to [`pad_objects`], which counts what it copies.
    objects: bool,
    what: &'static str,
    array: PhantomData<&'a ()>,
}

impl<'a> Array<'a> {
    pub(crate) fn of(a: &'a Bound<'_, PyUntypedArray>, what: &'static str) -> PyResult<Array<'a>> {
        let shape = a.shape();
        let dtype = a.dtype();
        let itemsize = dtype.itemsize();
        let numel = shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or_else(|| PyValueError::new_err(format!("{what} has too many elements")))?;
        let strides = a.strides();
        let c_contiguous = a.is_c_contiguous();
        let too_many = || PyValueError::new_err(format!("{what} has too many bytes"));
        let len = match (numel, c_contiguous) {
            (0, _) => Some(0),
            (_, true) => Some(numel.checked_mul(itemsize).ok_or_else(too_many)?),
            // The last element's offset, plus the element.
            _ => shape
                .iter()
                .zip(strides)
                .try_fold(itemsize, |end, (&n, &s)| {
                    end.checked_add(usize::try_from(s).ok()?.checked_mul(n - 1)?)
                }),
        };
        let raw = a.as_array_ptr();
        // SAFETY: `raw` points to the live PyArrayObject `a` borrows; reading its
        // fields does not touch the data.
        let (data, flags) = unsafe { ((*raw).fields.data as *mut u8, (*raw).fields.flags) };
        Ok(Array {
            data,
            len,
            shape,
            strides,
            itemsize,
            c_contiguous,
            writable: flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0,
            objects: dtype.has_object(),
            what,
            array: PhantomData,
        })
    }

    /// Refuses an array of Python objects: bytes copied or written there would be
    /// references nobody counted.
    fn check_plain(&self) -> PyResult<()> {
        match self.objects {
            true => Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{} holds Python objects: object arrays are padded through execute_objects",
                self.what
            ))),
            false => Ok(()),
        }
    }

    /// The array as the object pointers it holds, for [`pad_objects`] (which counts
    /// the references it copies).
    fn into_pointers(mut self) -> Self {
        self.objects = false;
        self
    }

    /// Whether its elements hold Python objects.
    pub(crate) fn objects(&self) -> bool {
        self.objects
    }

    /// Whether the array starts on a pointer's alignment and its strides are whole
    /// pointers: the layouts of object arrays [`pad_objects`] reads (every word the
    /// kernel reads is an element's pointer).
    pub(crate) fn pointer_aligned(&self) -> bool {
        const WORD: usize = std::mem::size_of::<usize>();
        (self.data as usize).is_multiple_of(WORD)
            && self
                .strides
                .iter()
                .all(|&s| s.unsigned_abs().is_multiple_of(WORD))
    }

    /// Where the array's first element is (an address, never dereferenced).
    pub(crate) fn address(&self) -> usize {
        self.data as usize
    }

    fn check_writable(&self) -> PyResult<()> {
        if !self.writable {
            return Err(PyValueError::new_err(format!("{} is read-only", self.what)));
        }
        Ok(())
    }

    fn range(&self) -> (usize, usize) {
        let start = self.data as usize;
        (start, start.saturating_add(self.len.unwrap_or(usize::MAX)))
    }

    /// Whether the array's bytes can be taken as one slice (non-negative strides).
    pub(crate) fn spans(&self) -> bool {
        self.len.is_some()
    }

    /// The array's bytes: from its first element to the end of its last (for a
    /// layout other than C order, the bytes between its elements too, which belong to
    /// the array's base). Refused with a negative stride.
    pub(crate) fn bytes(&self) -> PyResult<&'a [u8]> {
        self.check_plain()?;
        let len = self
            .len
            .ok_or_else(|| PyValueError::new_err(format!("{} has a negative stride", self.what)))?;
        if len == 0 {
            return Ok(&[]);
        }
        // SAFETY: the array's elements, and so every byte between its first and its
        // last (its base's memory, one allocation), lie in `len` bytes from `data`;
        // the borrow `'a` of the array keeps them alive. No slice that writes them is
        // handed out while this one lives (`output` takes the array it writes by
        // value, and checks that it does not overlap the input).
        Ok(unsafe { std::slice::from_raw_parts(self.data, len) })
    }

    /// The bytes of a C-contiguous, writable array, to write: the output of a pad
    /// (which takes the array, so that no other slice of it is made from it).
    pub(crate) fn output(self) -> PyResult<&'a mut [u8]> {
        self.output_of(None)
    }

    /// [`Array::output`], refused where its bytes overlap those of `input` (read
    /// meanwhile).
    pub(crate) fn output_apart(self, input: &Array<'a>) -> PyResult<&'a mut [u8]> {
        self.output_of(Some(input))
    }

    fn output_of(self, input: Option<&Array<'a>>) -> PyResult<&'a mut [u8]> {
        self.check_plain()?;
        if !self.c_contiguous {
            return Err(PyValueError::new_err(format!(
                "{} must be C-contiguous",
                self.what
            )));
        }
        self.check_writable()?;
        if let Some(input) = input {
            check_disjoint(input, &self)?;
        }
        let len = self.len.unwrap_or(0);
        if len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: a C-contiguous array's `len` bytes from `data` are its elements,
        // alive for `'a`; it is writable; the input read meanwhile does not overlap
        // it (checked above), and `self` is consumed, so this is the one slice of it.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.data, len) })
    }
}

/// Whether `out` is writable and its bytes lie apart from those of `input` (what
/// `execute` checks, without its messages).
pub(crate) fn writable_apart(
    input: &Bound<'_, PyUntypedArray>,
    out: &Bound<'_, PyUntypedArray>,
) -> bool {
    match (Array::of(input, "the input"), Array::of(out, "the output")) {
        (Ok(i), Ok(o)) => o.writable && check_disjoint(&i, &o).is_ok(),
        _ => false,
    }
}

/// Fails when the two arrays' bytes overlap.
fn check_disjoint(a: &Array<'_>, b: &Array<'_>) -> PyResult<()> {
    let (a0, a1) = a.range();
    let (b0, b1) = b.range();
    if a0 < b1 && b0 < a1 {
        return Err(PyValueError::new_err(format!(
            "{} overlaps {} in memory",
            b.what, a.what
        )));
    }
    Ok(())
}

/// The memory of an array made by [`pooled_array`]: the core's pooled buffer, given
/// back to the pool (`ndpad::PooledBuffer`) when numpy frees the last array over it.
#[pyclass(frozen, module = "ndpad._ndpad")]
pub(crate) struct PooledMemory {
    _buf: ndpad::PooledBuffer,
}

/// A new numpy array of `shape` and `dtype` (Fortran order with `fortran`) over the
/// pooled buffer `buf`, which becomes its base (a [`PooledMemory`]).
pub(crate) fn pooled_array<'py>(
    py: Python<'py>,
    mut buf: ndpad::PooledBuffer,
    dtype: &Bound<'py, PyArrayDescr>,
    shape: &[usize],
    fortran: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (data, len) = (buf.as_mut_ptr(), buf.len());
    let owner = Bound::new(py, PooledMemory { _buf: buf })?.into_any();
    // SAFETY: `data` is the start of the `len` bytes of the buffer `owner` now owns
    // (moving a `PooledBuffer` does not move its mapping), initialized (zero pages or
    // an earlier output), and nothing else refers to them: the buffer was the caller's
    // alone and is now only reachable through `owner`.
    unsafe { array_over(owner, data, len, dtype, shape, fortran) }
}

/// A new C-ordered numpy array of `dtype` and extents `dims`, as `numpy.empty` makes
/// it (cleared where the type needs it: objects).
pub(crate) fn empty<'py>(
    py: Python<'py>,
    dtype: &Bound<'py, PyArrayDescr>,
    dims: &[npy_intp],
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let nd = c_int::try_from(dims.len())
        .map_err(|_| PyValueError::new_err(format!("shape {dims:?} has too many axes")))?;
    // SAFETY: `PyArray_Empty` steals the descriptor reference it is given (a new one,
    // `into_dtype_ptr` of a clone) and only reads the `nd` extents at `dims` (its
    // pointer is not `const` in the C API alone); it returns a new reference or null
    // with an exception set, and what it returns is an ndarray.
    unsafe {
        let arr = PY_ARRAY_API.PyArray_Empty(
            py,
            nd,
            dims.as_ptr().cast_mut(),
            dtype.clone().into_dtype_ptr(),
            0,
        );
        Ok(Bound::from_owned_ptr_or_err(py, arr)?.cast_into_unchecked())
    }
}

/// A new numpy array of `shape` and `dtype` (C order, or Fortran order with
/// `fortran`) over the `len` bytes at `data`, which `owner` keeps alive: `owner`
/// becomes the array's base, freed when numpy frees the last array over it.
///
/// # Safety
/// `data` must be valid for reads and writes of `len` bytes for as long as `owner`
/// lives, written through nothing else meanwhile, and initialized (numpy may read it).
unsafe fn array_over<'py>(
    owner: Bound<'py, PyAny>,
    data: *mut u8,
    len: usize,
    dtype: &Bound<'py, PyArrayDescr>,
    shape: &[usize],
    fortran: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = owner.py();
    let bytes = shape
        .iter()
        .try_fold(dtype.itemsize(), |n, &d| n.checked_mul(d));
    if bytes != Some(len) || dtype.has_object() || dtype.has_subarray() {
        return Err(PyValueError::new_err(format!(
            "an output of shape {shape:?} and item size {} does not fill a buffer of {len} bytes",
            dtype.itemsize()
        )));
    }
    let mut dims = shape
        .iter()
        .map(|&d| npy_intp::try_from(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| PyValueError::new_err(format!("shape {shape:?} is too large")))?;
    let nd = c_int::try_from(dims.len())
        .map_err(|_| PyValueError::new_err(format!("shape {shape:?} has too many axes")))?;
    let flags = if fortran {
        NPY_ARRAY_FARRAY
    } else {
        NPY_ARRAY_CARRAY
    };
    // SAFETY: `PyArray_NewFromDescr` steals the descriptor reference it is given (a new
    // one, `into_dtype_ptr` of a clone); `dims` holds `nd` extents; with `data` given
    // and no strides, numpy computes C (or Fortran, by `flags`) strides over exactly
    // `len` bytes (checked above: no objects, no subarray that would add axes), which
    // the caller's contract makes valid. `PyArray_SetBaseObject` steals the reference
    // to `owner` (also on failure), so the array keeps `data` alive through it.
    unsafe {
        let subtype = get_type_object(py, NpyTypes::PyArray_Type);
        let arr = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            subtype,
            dtype.clone().into_dtype_ptr(),
            nd,
            dims.as_mut_ptr(),
            std::ptr::null_mut(),
            data.cast(),
            flags,
            std::ptr::null_mut(),
        );
        let arr = Bound::from_owned_ptr_or_err(py, arr)?;
        if PY_ARRAY_API.PyArray_SetBaseObject(py, arr.as_ptr().cast(), owner.into_ptr()) < 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(arr)
    }
}

/// Pads the object array `src` into the object array `dst` (numpy's `O`) on their
/// elements' pointers, by `plan` (a pad of pointer-sized words whose constant is zero,
/// the null pointer), with the GIL held throughout (`py`): each element of `dst` then
/// holds a reference of its own to the object it shows (a null pointer, the
/// constant, becomes `fill`, a null element of `src` None, as numpy reads it;
/// numpy's `PyArray_INCREF` counts them all in one loop),
/// and the references `dst` held before are dropped, also after a failed pad. `src`
/// is read where it lies when C-contiguous or its rows are in C order with its other
/// axes apart. The outer `Err` is a refused argument, the inner one the pad's error.
pub(crate) fn pad_objects(
    py: Python<'_>,
    plan: &ndpad::Plan,
    src: &Bound<'_, PyUntypedArray>,
    dst: &Bound<'_, PyUntypedArray>,
    fill: Option<&Bound<'_, PyAny>>,
    opts: &ndpad::PadOptions,
) -> PyResult<Result<(), ndpad::PadError>> {
    use numpy::PyUntypedArrayMethods;
    const WORD: usize = std::mem::size_of::<usize>();
    for (a, what) in [(src, "the input"), (dst, "the output")] {
        if a.dtype().kind() != b'O' {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{what} is not an object array"
            )));
        }
    }
    // Every word the kernel writes is a word of `src` or the constant: a null pointer
    // (no side with a constant of its own).
    if plan.dtype().layout() != ndpad::Layout::Bytes(WORD)
        || plan.value().to_le_bytes().iter().any(|&b| b != 0)
        || !plan.faces().is_empty()
    {
        return Err(PyValueError::new_err(
            "the spec pads pointer-sized elements with a zero constant only",
        ));
    }
    let input = Array::of(src, "the input")?.into_pointers();
    let output = Array::of(dst, "the output")?.into_pointers();
    if !input.pointer_aligned() || !output.pointer_aligned() {
        return Err(PyValueError::new_err(
            "object arrays must be pointer-aligned",
        ));
    }
    // Any other layout is read where it lies (`Plan::execute_strided`; a negative
    // stride is refused by `bytes`).
    let strides = match input.c_contiguous {
        true => None,
        false => Some(input.strides.to_vec()),
    };
    let none = py.None();
    let fill = fill.map_or(none.as_ptr(), Bound::as_ptr);
    let src_bytes = input.bytes()?;
    // A null element of the input (numpy reads it as None) would be taken for a pad
    // position and given the constant: where the constant is not None and the input's
    // span holds a null word, the kernel reads a copy of the span with None there.
    let src_words: &[usize] = match src_bytes.is_empty() {
        true => &[],
        false => bytemuck::try_cast_slice(src_bytes)
            .map_err(|_| PyValueError::new_err("the input is not pointer-aligned"))?,
    };
    let mut nulls_as_none: Vec<usize> = Vec::new();
    if fill != none.as_ptr() && src_words.contains(&0) {
        nulls_as_none
            .try_reserve_exact(src_words.len())
            .map_err(|_| {
                pyo3::exceptions::PyMemoryError::new_err("cannot copy the input's elements")
            })?;
        let none = none.as_ptr() as usize;
        nulls_as_none.extend(src_words.iter().map(|&w| if w == 0 { none } else { w }));
    }
    let src_bytes: &[u8] = match nulls_as_none.is_empty() {
        true => src_bytes,
        false => bytemuck::cast_slice(&nulls_as_none),
    };
    let dst_bytes = output.output_apart(&input)?;
    let words: &mut [usize] = match dst_bytes.is_empty() {
        true => &mut [],
        false => bytemuck::try_cast_slice_mut(dst_bytes)
            .map_err(|_| PyValueError::new_err("the output is not pointer-aligned"))?,
    };
    // The references `dst` holds now move to `old`, dropped at the end (none where it
    // holds null pointers only: a pass over the output saved).
    let held = match opts.output_memory {
        ndpad::OutputMemory::Zeroed => 0,
        _ => words.iter().filter(|&&w| w != 0).count(),
    };
    let mut old: Vec<usize> = Vec::new();
    old.try_reserve_exact(held)
        .map_err(|_| PyValueError::new_err("the output has too many elements"))?;
    if held > 0 {
        old.extend(words.iter().copied().filter(|&w| w != 0));
    }
    let padded = crate::run_bytes(
        plan,
        src_bytes,
        strides.as_deref(),
        bytemuck::cast_slice_mut(words),
        opts,
    );
    // The constant's references, counted and added at once after the loop.
    let mut fills = 0;
    let immortals = py.version_info() >= (3, 12);
    for w in words.iter_mut() {
        if *w == 0 {
            *w = fill as usize;
            fills += 1;
        } else {
            // SAFETY: `*w` is the address of a live object: a pointer the kernel
            // copied from an element of `src` (borrowed, so alive), or one `dst` held
            // before (whose reference is in `old`, not yet dropped; or, where the
            // caller said "zeroed" of an output that held references, still `dst`'s
            // own: counted twice, a leak, never an early free); the GIL is held
            // (`py`), so no Python code runs meanwhile. `dst` now owns one more
            // reference to it, as an element of `dst`.
            unsafe { add_refs(*w as *mut pyo3::ffi::PyObject, 1, immortals) };
        }
    }
    // SAFETY: `fill` is a live object (the caller's constant, borrowed, or None); the
    // GIL is held. `dst` holds it at the `fills` elements the kernel left null.
    unsafe { add_refs(fill, fills, immortals) };
    for a in old {
        // SAFETY: `a` owned one reference (it was an element of `dst`, which holds
        // its own now); the GIL is held. A finalizer this runs sees `dst` complete.
        unsafe { pyo3::ffi::Py_DecRef(a as *mut pyo3::ffi::PyObject) };
    }
    Ok(padded)
}

/// Adds `n` references to the object at `op`, as `n` calls of `Py_INCREF` compiled
/// for the 3.10 stable ABI (this extension's) do: its reference count, the object's
/// first word, incremented in place. pyo3's abi3 `Py_INCREF` calls into the
/// interpreter instead (`Py_IncRef`), a call per element that took most of an object
/// pad's time (`docs/performance.md`). An immortal object (3.12 and later, `immortals`:
/// the count's low 32 bits read negative) is left as it is, as CPython's own
/// `Py_INCREF` leaves it: numpy's decrements skip it too, so a count added here would
/// never come off. Builds whose count is not the first word, or is not to be touched
/// (free-threaded, PyPy, GraalPy, reference debugging), call `Py_INCREF`.
///
/// # Safety
/// `op` is a live object, the GIL held; whoever holds the `n` references drops them
/// (numpy, when it frees the array).
unsafe fn add_refs(op: *mut pyo3::ffi::PyObject, n: usize, immortals: bool) {
    #[cfg(any(Py_GIL_DISABLED, PyPy, GraalPy, py_sys_config = "Py_REF_DEBUG"))]
    {
        let _ = immortals;
        // SAFETY: by the caller, `op` is a live object and the GIL is held.
        (0..n).for_each(|_| unsafe { pyo3::ffi::Py_INCREF(op) });
    }
    #[cfg(not(any(Py_GIL_DISABLED, PyPy, GraalPy, py_sys_config = "Py_REF_DEBUG")))]
    // SAFETY: by the caller, `op` is a live object: in these builds its first word is
    // its reference count (`ob_refcnt`, a `Py_ssize_t`), aligned, and with the GIL
    // held no other thread changes it meanwhile.
    unsafe {
        let count = op.cast::<isize>();
        if immortals && (*count as i32) < 0 {
            return;
        }
        *count = (*count).wrapping_add(n as isize);
    }
}

/// A new object array of `shape` (Fortran order when `fortran`) whose elements are
/// null pointers, which numpy reads as None and skips when it frees the array: an
/// output for [`pad_objects`] with no references to drop (`numpy.empty` fills
/// None, one reference each). numpy's MemoryError where it cannot allocate it.
pub(crate) fn empty_objects<'py>(
    py: Python<'py>,
    shape: &[usize],
    fortran: bool,
) -> PyResult<Bound<'py, PyAny>> {
    use numpy::npyffi::{get_type_object, NpyTypes, PY_ARRAY_API};
    use numpy::{Element, PyArrayDescrMethods};
    let mut dims = shape
        .iter()
        .map(|&d| numpy::npyffi::npy_intp::try_from(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| PyValueError::new_err(format!("shape {shape:?} is too large")))?;
    let rank = std::ffi::c_int::try_from(dims.len())
        .map_err(|_| PyValueError::new_err(format!("shape {shape:?} has too many axes")))?;
    let descr = <Py<PyAny> as Element>::get_dtype(py).into_dtype_ptr();
    // SAFETY: the arguments are what `PyArray_NewFromDescr` takes: numpy's array type,
    // a descriptor reference it steals, `rank` extents, no strides or data (numpy
    // allocates; for a type that needs initializing, objects, zeroed: every element a
    // null pointer, never an uninitialized one), no base object. A null result is
    // numpy's error, turned into a Python exception.
    unsafe {
        let ptr = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            get_type_object(py, NpyTypes::PyArray_Type),
            descr,
            rank,
            dims.as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ffi::c_int::from(fortran),
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, ptr)
    }
}

/// Pads the device memory at address `src` (`src_bytes` long) into the device memory
/// at `dst` (`dst_bytes`) as `maps`'s plan says: queued on the caller's `stream`
/// without waiting ([`ndpad_cuda::CudaPadder::pad_device_ptr_on`]), or with `None` on
/// the padder's own stream, waited for. The byte counts are checked against the
/// plan's; the addresses are the caller's word.
pub(crate) fn pad_on_device(
    padder: &ndpad_cuda::CudaPadder,
    maps: &ndpad_cuda::DeviceMaps,
    (src, src_bytes): (u64, usize),
    (dst, dst_bytes): (u64, usize),
    stream: Option<u64>,
) -> Result<(), ndpad_cuda::CudaError> {
    use ndpad_cuda::{CudaError, Launch};
    let gp = maps.plan();
    for (which, got, expected) in [
        ("input", src_bytes, gp.input_bytes()),
        ("output", dst_bytes, gp.output_bytes()),
    ] {
        if got < expected {
            return Err(CudaError::BufferSize {
                which,
                got,
                expected,
            });
        }
    }
    // SAFETY: `src` and `dst` are the data addresses of live device arrays of the
    // padder's device that `ndpad._device` holds for the call (torch / CuPy / JAX
    // arrays, kept referenced until the queued pad has run: the caller's stream
    // orders their reuse after it), `src_bytes` and `dst_bytes` their sizes, checked
    // above against the plan's; `dst` is a new array or an `out=` that
    // `ndpad._device` checked does not overlap `src`; `stream` is the library's
    // current stream on that device (or none).
    unsafe {
        match stream {
            Some(s) => padder.pad_device_ptr_on(maps, src, dst, s, Launch::default()),
            None => padder.pad_device_ptr(maps, src, dst, Launch::default()),
        }
    }
}
