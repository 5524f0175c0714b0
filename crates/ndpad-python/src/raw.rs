//! numpy arrays as byte slices: the extension's only `unsafe` code.

use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What the extension needs to know of a numpy array.
pub(crate) struct Array {
    data: *mut u8,
    /// Bytes from `data` to the end of the last element (C-contiguous arrays only).
    len: usize,
    pub(crate) shape: Vec<usize>,
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
        let len = numel
            .checked_mul(itemsize)
            .ok_or_else(|| PyValueError::new_err(format!("{what} has too many bytes")))?;
        let raw = a.as_array_ptr();
        // SAFETY: `raw` points to the live PyArrayObject `a` borrows; reading its
        // fields does not touch the data.
        let (data, flags) = unsafe { ((*raw).fields.data as *mut u8, (*raw).fields.flags) };
        Ok(Array {
            data,
            len,
            shape,
            itemsize,
            c_contiguous: a.is_c_contiguous(),
            writable: flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0,
            what,
        })
    }

    pub(crate) fn check_writable(&self) -> PyResult<()> {
        if !self.writable {
            return Err(PyValueError::new_err(format!("{} is read-only", self.what)));
        }
        Ok(())
    }

    fn range(&self) -> (usize, usize) {
        let start = self.data as usize;
        (start, start.saturating_add(self.len))
    }

    /// The array's bytes.
    ///
    /// # Safety
    /// The array must be alive and C-contiguous for as long as the slice is used, and
    /// nothing may write to it meanwhile.
    pub(crate) unsafe fn bytes<'a>(&self) -> &'a [u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: a C-contiguous array holds `len` bytes from `data` (the caller's
        // contract).
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    /// The array's bytes, to write.
    ///
    /// # Safety
    /// As [`Array::bytes`], and the array must be writable and not overlap any other
    /// slice in use.
    pub(crate) unsafe fn bytes_mut<'a>(&self) -> &'a mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as in `bytes`; writable and unaliased by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
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
