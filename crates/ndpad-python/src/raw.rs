//! numpy arrays as byte slices, and new arrays over the core's pooled buffers: the
//! extension's only `unsafe` code.

use std::ffi::c_int;

use numpy::npyffi::{
    get_type_object, npy_intp, NpyTypes, NPY_ARRAY_CARRAY, NPY_ARRAY_FARRAY, PY_ARRAY_API,
};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What the extension needs to know of a numpy array.
pub(crate) struct Array {
    data: *mut u8,
    /// Bytes from `data` (its first element) to the end of its last element: the
    /// elements' bytes for a C-contiguous array; for another layout with non-negative
    /// strides, every byte its strides reach (`None` with a negative stride).
    len: Option<usize>,
    pub(crate) shape: Vec<usize>,
    /// Bytes between neighbours along each axis.
    pub(crate) strides: Vec<isize>,
    pub(crate) itemsize: usize,
    pub(crate) c_contiguous: bool,
    writable: bool,
    what: &'static str,
}

impl Array {
    pub(crate) fn of(a: &Bound<'_, PyUntypedArray>, what: &'static str) -> PyResult<Array> {
        let shape = a.shape().to_vec();
        let itemsize = a.dtype().itemsize();
        let numel = shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or_else(|| PyValueError::new_err(format!("{what} has too many elements")))?;
        let strides = a.strides().to_vec();
        let c_contiguous = a.is_c_contiguous();
        let too_many = || PyValueError::new_err(format!("{what} has too many bytes"));
        let len = match (numel, c_contiguous) {
            (0, _) => Some(0),
            (_, true) => Some(numel.checked_mul(itemsize).ok_or_else(too_many)?),
            // The last element's offset, plus the element.
            _ => shape
                .iter()
                .zip(&strides)
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
            what,
        })
    }

    /// Where the array's first element is (an address, never dereferenced).
    pub(crate) fn address(&self) -> usize {
        self.data as usize
    }

    pub(crate) fn check_writable(&self) -> PyResult<()> {
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
    /// the array's base).
    ///
    /// # Safety
    /// The array must be alive for as long as the slice is used, nothing may write to
    /// it meanwhile, and its layout must have non-negative strides (`spans`).
    pub(crate) unsafe fn bytes<'a>(&self) -> &'a [u8] {
        let len = self.len.unwrap_or(0);
        if len == 0 {
            return &[];
        }
        // SAFETY: the array's elements, and so every byte between its first and its
        // last (its base's memory, one allocation), lie in `len` bytes from `data`
        // (the caller's contract).
        unsafe { std::slice::from_raw_parts(self.data, len) }
    }

    /// The array's bytes, to write.
    ///
    /// # Safety
    /// As [`Array::bytes`], and the array must be C-contiguous, writable and not
    /// overlap any other slice in use.
    pub(crate) unsafe fn bytes_mut<'a>(&self) -> &'a mut [u8] {
        let len = self.len.unwrap_or(0);
        if len == 0 {
            return &mut [];
        }
        // SAFETY: as in `bytes`; writable and unaliased by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.data, len) }
    }
}

/// Fails when the two arrays' bytes overlap.
pub(crate) fn check_disjoint(a: &Array, b: &Array) -> PyResult<()> {
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

/// A new numpy array of `shape` and `dtype` (C order, or Fortran order with
/// `fortran`) over the `len` bytes at `data`, which `owner` keeps alive: `owner`
/// becomes the array's base, freed when numpy frees the last array over it.
///
/// # Safety
/// `data` must be valid for reads and writes of `len` bytes for as long as `owner`
/// lives, written through nothing else meanwhile, and initialized (numpy may read it).
pub(crate) unsafe fn array_over<'py>(
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

/// Object arrays (numpy's `O`) are padded on their elements' pointers, which the
/// kernel copies as pointer-sized words; these two calls, made with the GIL held
/// throughout, keep the references right. The non-null pointers `dst` holds before
/// the pad (none in an array of [`empty_objects`]; their references move to the
/// caller, which gives them back through [`adopt_objects`]). An object array that is
/// not pointer-aligned is refused.
pub(crate) fn object_addresses(dst: &Array) -> PyResult<Vec<usize>> {
    // SAFETY: `dst` is alive (the caller borrows it) and nothing writes to it during
    // this call (the GIL is held and the kernel has not started).
    let bytes = unsafe { dst.bytes() };
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let words: &[usize] = bytemuck::try_cast_slice(bytes)
        .map_err(|_| PyValueError::new_err(format!("{} is not aligned", dst.what)))?;
    let held = words.iter().filter(|&&w| w != 0).count();
    let mut out = Vec::new();
    out.try_reserve_exact(held)
        .map_err(|_| PyValueError::new_err(format!("{} has too many elements", dst.what)))?;
    out.extend(words.iter().copied().filter(|&w| w != 0));
    Ok(out)
}

/// Gives each element of the object array `dst` (`array`), just written by the
/// kernel, a reference of its own (a null pointer, the kernel's constant, becomes
/// `fill`; numpy's `PyArray_INCREF` counts them all in one loop), then drops the
/// references `old` held ([`object_addresses`] of `dst` before the pad).
///
/// # Safety
/// The GIL is held from [`object_addresses`] until this returns; `dst` is a
/// C-contiguous, writable, pointer-aligned object array, alive, written by nothing
/// else meanwhile; every non-null pointer in it was copied by the kernel from the
/// elements of an object array the caller keeps alive (or is `fill`, alive); every
/// address in `old` owns one reference.
pub(crate) unsafe fn adopt_objects(
    array: &Bound<'_, PyUntypedArray>,
    dst: &Array,
    old: Vec<usize>,
    fill: *mut pyo3::ffi::PyObject,
) {
    // SAFETY: the caller's contract: `dst` is C-contiguous, writable and unaliased.
    let bytes = unsafe { dst.bytes_mut() };
    // Aligned: `object_addresses` cast the same bytes.
    if let Ok(words) = bytemuck::try_cast_slice_mut::<u8, usize>(bytes) {
        for w in words.iter_mut().filter(|w| **w == 0) {
            *w = fill as usize;
        }
    }
    // SAFETY: `array` is a live object array whose every element is now the address
    // of a live object (an element of the caller's input array, or `fill`); the GIL
    // is held. numpy increments each one's count.
    unsafe { numpy::PY_ARRAY_API.PyArray_INCREF(array.py(), array.as_array_ptr()) };
    for a in old {
        // SAFETY: `a` owned one reference (it was an element of `dst`, which now holds
        // other pointers); the GIL is held. A finalizer this runs sees `dst` complete.
        unsafe { pyo3::ffi::Py_DecRef(a as *mut pyo3::ffi::PyObject) };
    }
}

/// A new object array of `shape` (Fortran order when `fortran`) whose elements are
/// null pointers, which numpy reads as None and skips when it frees the array: an
/// output for [`adopt_objects`] with no references to drop (`numpy.empty` fills
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
