//! The small pads `ndpad.pad` ran lately, found again by their plain arguments: a
//! loop over images (a data loader) pads arrays of one dtype and shape the same way,
//! and each repeat of a remembered pad is one call here, the argument handling
//! skipped. Which pads are remembered (index modes, types, constants numpy casts
//! without a warning) is the Python layer's rule (`_numpy._remember`), but for the
//! size of the output, which depends on the shape: this module's
//! ([`Remembered::pooled`]). It keeps the pads and finds them, and makes the pad of
//! another shape of the same rank from one remembered (the Python layer's rules do
//! not depend on the shape), so that a loop over arrays of many shapes skips the
//! argument handling as well.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use ndpad::{OutputMemory, PooledBuffer};
use ndpad_frontends::numpy::NumpyPad;
use numpy::npyffi::npy_intp;
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::{plain_numpy_spec, raw, Spec};

/// `pad_width` in the forms a pad is remembered by, each kept apart from the others
/// (`2`, `(2,)` and `((2, 2),)` are one pad but three keys).
#[derive(PartialEq)]
enum Widths {
    /// An `int`.
    Int(u64),
    /// A tuple of ints, of 1-tuples and of pairs (shared with [`Repeats::last_tuple`]).
    Tuple(Arc<[Width]>),
    /// A small array of signed integers: its shape and values.
    Array(Vec<usize>, Vec<i64>),
}

#[derive(PartialEq)]
enum Width {
    Int(u64),
    One(u64),
    Pair(u64, u64),
}

/// `constant_values` given as one scalar of its exact type (`1`, `1.0` and `True` are
/// equal but cast apart; a float by its bits: `-0.0` is not `0.0`).
#[derive(PartialEq)]
enum Constant {
    Bool(bool),
    Int(i128),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
}

/// A pad's arguments but the array's dtype.
struct Args {
    shape: Vec<usize>,
    widths: Widths,
    /// The mode's index among numpy's index modes ([`mode_index`]).
    mode: u8,
    constant: Option<Constant>,
}

impl PartialEq for Args {
    fn eq(&self, other: &Args) -> bool {
        // The last axis first: a loop over arrays of many shapes compares every pad
        // remembered, and most differ there (no `memcmp` call for them).
        self.shape.last() == other.shape.last()
            && self.shape == other.shape
            && self.widths == other.widths
            && self.mode == other.mode
            && self.constant == other.constant
    }
}

/// What a pad is remembered by: the array's dtype and shape, `pad_width`, the mode
/// and the constant, each of an exact type (arguments of other types are not plain:
/// no key).
#[pyclass(frozen, module = "ndpad._ndpad")]
pub(crate) struct RepeatKey {
    dtype: Py<PyArrayDescr>,
    args: Args,
}

impl RepeatKey {
    /// Of the same dtype as `other` (numpy's `==`: its C code, which may allocate, so
    /// never with the store held).
    fn same_dtype(&self, py: Python<'_>, other: &RepeatKey) -> bool {
        self.dtype.bind(py).is_equiv_to(other.dtype.bind(py))
    }
}

/// How a remembered pad is made, for its key's shape or another of its rank: numpy's
/// `widths` (one pair per axis) and the constants' bytes `values` (as
/// [`plain_numpy_spec`] takes them), the type its output is allocated as (`None`:
/// the array's; another of the same size is then viewed as the array's), and what to
/// run on the output after the kernel (`finish(result)`, the constant's sides of a
/// text array).
struct Recipe {
    widths: Vec<(i64, i64)>,
    values: Vec<Vec<u8>>,
    alloc: Option<Py<PyArrayDescr>>,
    finish: Option<Py<PyAny>>,
}

impl Recipe {
    fn clone_ref(&self, py: Python<'_>) -> Recipe {
        Recipe {
            widths: self.widths.clone(),
            values: self.values.clone(),
            alloc: self.alloc.as_ref().map(|d| d.clone_ref(py)),
            finish: self.finish.as_ref().map(|f| f.clone_ref(py)),
        }
    }
}

/// A remembered pad: its key, its spec and output dimensions, and its [`Recipe`].
struct Remembered {
    key: Py<RepeatKey>,
    spec: Py<Spec>,
    dims: Vec<npy_intp>,
    recipe: Recipe,
}

impl Remembered {
    /// The pad of `key` by `recipe`.
    fn new(py: Python<'_>, key: Py<RepeatKey>, recipe: Recipe) -> PyResult<Remembered> {
        let k = key.get();
        let Some(mode) = NumpyPad::index_modes().nth(usize::from(k.args.mode)) else {
            return Err(PyValueError::new_err("not one of numpy's index modes"));
        };
        let itemsize = k.dtype.bind(py).itemsize();
        let (widths, values) = (&recipe.widths, &recipe.values);
        let spec = plain_numpy_spec(itemsize, &k.args.shape, widths, mode, values)?;
        let dims = spec.output_dims()?;
        Ok(Remembered {
            key,
            spec: Py::new(py, spec)?,
            dims,
            recipe,
        })
    }

    /// Whether its output is large enough to come from the output pool
    /// ([`PooledBuffer::MIN_BYTES`]): such a pad is not remembered (the whole handling
    /// takes the pool, and its arguments cost nothing beside the pad).
    fn pooled(&self, py: Python<'_>) -> bool {
        let itemsize = self.key.get().dtype.bind(py).itemsize();
        let bytes = self
            .dims
            .iter()
            .try_fold(itemsize, |n, &d| n.checked_mul(usize::try_from(d).ok()?));
        bytes.is_none_or(|b| b >= PooledBuffer::MIN_BYTES)
    }
}

#[derive(Default)]
struct Store {
    pads: VecDeque<Arc<Remembered>>,
    /// Keys of pads found not to be remembered, not tried again.
    singles: VecDeque<Py<RepeatKey>>,
}

/// A `pad_width` tuple, held, and its widths as read.
type ReadTuple = (Py<PyTuple>, Arc<[Width]>);

/// The pads remembered, at most `limit` of them and as many keys of pads that are not
/// (the oldest forgotten first).
#[pyclass(frozen, module = "ndpad._ndpad")]
pub(crate) struct Repeats {
    limit: usize,
    store: Mutex<Store>,
    /// The `pad_width` tuple read last and its widths: a loop passes one tuple object
    /// again and again (a literal is one constant), which is then not read again
    /// (a tuple of ints and tuples of ints cannot change, and, held here, its address
    /// is no other object's).
    last_tuple: Mutex<Option<ReadTuple>>,
}

/// A pad's arguments as the call gave them.
struct Call<'a, 'py> {
    key: RepeatKey,
    array: &'a Bound<'py, PyUntypedArray>,
    out: Option<&'a Bound<'py, PyUntypedArray>>,
    threads: Option<&'a Bound<'py, PyAny>>,
}

impl Repeats {
    fn store(&self) -> MutexGuard<'_, Store> {
        // A panic cannot leave a `Store` half-changed: take it as it is.
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The `n`th remembered pad, newest first, whose arguments are `like` ones (the
    /// dtypes are compared after, the store let go).
    fn nth_pad(&self, like: impl Fn(&Args) -> bool, n: usize) -> Option<Arc<Remembered>> {
        let store = self.store();
        let mut pads = store.pads.iter().rev().filter(|r| like(&r.key.get().args));
        pads.nth(n).cloned()
    }

    /// The newest remembered pad of `key`'s dtype whose arguments are `like` ones.
    fn find_like(
        &self,
        py: Python<'_>,
        key: &RepeatKey,
        like: impl Fn(&Args) -> bool,
    ) -> Option<Arc<Remembered>> {
        (0..)
            .map_while(|n| self.nth_pad(&like, n))
            .find(|r| r.key.get().same_dtype(py, key))
    }

    /// The remembered pad of `key`.
    fn find(&self, py: Python<'_>, key: &RepeatKey) -> Option<Arc<Remembered>> {
        self.find_like(py, key, |a| *a == key.args)
    }

    /// The pad of `key` made from a remembered pad of another shape of the same rank,
    /// dtype, widths, mode and constant (its spec made again for `key`'s shape by the
    /// front end, which checks it as for the pad remembered), and remembered; `None`
    /// where there is none, the spec is an error (an empty axis grown by reflection:
    /// raised by the whole handling) or the output is [`Remembered::pooled`].
    fn reshaped(&self, py: Python<'_>, key: RepeatKey) -> Option<Arc<Remembered>> {
        let a = &key.args;
        let rank = |b: &Args| {
            (b.shape.len(), &b.widths, b.mode, &b.constant)
                == (a.shape.len(), &a.widths, a.mode, &a.constant)
        };
        let recipe = self.find_like(py, &key, rank)?.recipe.clone_ref(py);
        let key = Py::new(py, key).ok()?;
        let r = Remembered::new(py, key, recipe).ok()?;
        if r.pooled(py) {
            return None;
        }
        let r = Arc::new(r);
        // Not remembered before: `pad` looked for it just now.
        self.keep(Arc::clone(&r), None);
        Some(r)
    }

    /// Keeps `remembered` in place of `earlier`, the pad of its key remembered
    /// before (if any), the oldest forgotten where there are `limit`.
    fn keep(&self, remembered: Arc<Remembered>, earlier: Option<Arc<Remembered>>) {
        // What is forgotten is released once the store is let go (releasing a
        // Python object may run Python code, which may pad).
        let mut forgotten = Vec::new();
        {
            let mut store = self.store();
            if let Some(e) = &earlier {
                store.pads.retain(|r| !Arc::ptr_eq(r, e));
            }
            if store.pads.len() >= self.limit {
                forgotten.extend(store.pads.pop_front());
            }
            match self.limit {
                0 => forgotten.push(remembered),
                _ => store.pads.push_back(remembered),
            }
        }
        drop((earlier, forgotten));
    }

    /// Whether `key` is noted as not remembered.
    fn is_single(&self, py: Python<'_>, key: &RepeatKey) -> bool {
        let nth = |n: usize| {
            let store = self.store();
            let mut like = store.singles.iter().filter(|k| k.get().args == key.args);
            like.nth(n).map(|k| k.clone_ref(py))
        };
        (0..).map_while(nth).any(|k| k.get().same_dtype(py, key))
    }

    /// `pad`'s arguments as a [`Call`], or `None` where they are not plain
    /// ([`Repeats::key`]).
    #[allow(clippy::too_many_arguments)]
    fn call<'a, 'py>(
        &self,
        array: &'a Bound<'py, PyAny>,
        pad_width: &Bound<'py, PyAny>,
        mode: &Bound<'py, PyAny>,
        negative_pads: &Bound<'py, PyAny>,
        interior: &Bound<'py, PyAny>,
        out: &'a Bound<'py, PyAny>,
        threads: &'a Bound<'py, PyAny>,
        kwargs: &Bound<'py, PyDict>,
    ) -> Option<Call<'a, 'py>> {
        let array = array.cast_exact::<PyUntypedArray>().ok()?;
        let zero = interior.cast_exact::<PyInt>().ok()?.extract::<u8>().ok()? == 0;
        if !negative_pads.is_none() || !zero || array.ndim() == 0 || !plain_layout(array) {
            return None;
        }
        let dtype = array.dtype();
        if dtype.has_object() {
            return None;
        }
        let out = match out.is_none() {
            true => None,
            false => Some(out.cast_exact::<PyUntypedArray>().ok()?),
        };
        let threads = match threads {
            t if t.is_none() => None,
            t if t.is_exact_instance_of::<PyInt>() => Some(t),
            _ => return None,
        };
        let mode = mode_index(mode.cast_exact::<PyString>().ok()?)?;
        let constant = match kwargs.len() {
            0 => None,
            1 if is_constant(mode) => Some(constant(&kwargs.get_item("constant_values").ok()??)?),
            _ => return None,
        };
        let args = Args {
            shape: array.shape().to_vec(),
            widths: self.widths(pad_width)?,
            mode,
            constant,
        };
        let key = RepeatKey {
            dtype: dtype.unbind(),
            args,
        };
        Some(Call {
            key,
            array,
            out,
            threads,
        })
    }

    /// `pad_width` as [`Widths`]: a tuple the same object as the last one read, as it was
    /// read then.
    fn widths(&self, w: &Bound<'_, PyAny>) -> Option<Widths> {
        let Ok(t) = w.cast_exact::<PyTuple>() else {
            return int_or_array_widths(w);
        };
        let last = || self.last_tuple.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((held, read)) = &*last() {
            if held.bind(w.py()).is(t) {
                return Some(Widths::Tuple(Arc::clone(read)));
            }
        }
        let read: Arc<[Width]> = tuple_widths(t)?.into();
        // The tuple held before is let go once the lock is (releasing may run Python).
        let before = last().replace((t.clone().unbind(), Arc::clone(&read)));
        drop(before);
        Some(Widths::Tuple(read))
    }
}

#[pymethods]
impl Repeats {
    #[new]
    fn new(limit: usize) -> Repeats {
        Repeats {
            limit,
            store: Mutex::default(),
            last_tuple: Mutex::default(),
        }
    }

    /// The pad of `ndpad.pad`'s arguments where it is remembered: the padded array (or
    /// `out`, written); `None` where it is not, or the call is not one a remembered
    /// pad takes as it is (`threads` out of range, an `out` of another shape, type or
    /// layout, read-only or overlapping the input: the whole handling raises).
    #[allow(clippy::too_many_arguments)]
    fn pad<'py>(
        &self,
        py: Python<'py>,
        array: &Bound<'py, PyAny>,
        pad_width: &Bound<'py, PyAny>,
        mode: &Bound<'py, PyAny>,
        negative_pads: &Bound<'py, PyAny>,
        interior: &Bound<'py, PyAny>,
        out: &Bound<'py, PyAny>,
        threads: &Bound<'py, PyAny>,
        kwargs: &Bound<'py, PyDict>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(call) = self.call(
            array,
            pad_width,
            mode,
            negative_pads,
            interior,
            out,
            threads,
            kwargs,
        ) else {
            return Ok(None);
        };
        let threads = match call.threads {
            None => 0,
            Some(t) => match t.extract::<usize>() {
                Ok(n) if n <= 1024 => n,
                _ => return Ok(None),
            },
        };
        let hit = match self.find(py, &call.key) {
            Some(hit) => hit,
            None => match self.reshaped(py, call.key) {
                Some(hit) => hit,
                None => return Ok(None),
            },
        };
        let (array, spec) = (call.array, hit.spec.get());
        if !array.is_c_contiguous() && !spec.reads_in_place(array)? {
            // A layout the kernel does not read where it lies (a packed type's).
            return Ok(None);
        }
        let dtype = array.dtype();
        let result = match call.out {
            // Written where it fits; else the whole handling raises.
            Some(o) => {
                let fits = o.is_c_contiguous()
                    && o.shape()
                        .iter()
                        .map(|&d| d as npy_intp)
                        .eq(hit.dims.iter().copied())
                    && o.dtype().is_equiv_to(&dtype)
                    && raw::writable_apart(array, o);
                if !fits {
                    return Ok(None);
                }
                o.clone()
            }
            None => match &hit.recipe.alloc {
                None => raw::empty(py, &dtype, &hit.dims)?,
                Some(alloc) => raw::empty(py, alloc.bind(py), &hit.dims)?
                    .call_method1("view", (&dtype,))?
                    .cast_into()?,
            },
        };
        spec.run(py, array, &result, threads, OutputMemory::Written)?;
        if let Some(finish) = &hit.recipe.finish {
            finish.call1(py, (&result,))?;
        }
        Ok(Some(result.into_any()))
    }

    /// The key of `ndpad.pad`'s arguments (as `pad` takes them), or `None` where they
    /// are not plain: an array other than an ndarray of at least one axis, laid out
    /// as `plain_layout` says and of a type without objects, `pad_width` in another
    /// form than an `int` >= 0,
    /// a tuple of such ints or of 1-tuples and pairs of them, or a small array of
    /// non-negative signed integers (at most 64 of them, at most two axes), a mode
    /// other than a `str` naming one of numpy's index modes, keywords other than one `constant_values` scalar (`bool`,
    /// `int`, a `float` that is not NaN, `str`, `bytes`) in constant mode,
    /// `negative_pads`, `interior` other than the int 0, `out` neither None nor an
    /// ndarray, `threads` neither None nor an `int`.
    #[allow(clippy::too_many_arguments)]
    fn key(
        &self,
        array: &Bound<'_, PyAny>,
        pad_width: &Bound<'_, PyAny>,
        mode: &Bound<'_, PyAny>,
        negative_pads: &Bound<'_, PyAny>,
        interior: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        threads: &Bound<'_, PyAny>,
        kwargs: &Bound<'_, PyDict>,
    ) -> Option<RepeatKey> {
        self.call(
            array,
            pad_width,
            mode,
            negative_pads,
            interior,
            out,
            threads,
            kwargs,
        )
        .map(|c| c.key)
    }

    /// Whether the pad of `key` is remembered, or noted as not to be.
    fn known(&self, py: Python<'_>, key: &RepeatKey) -> bool {
        self.find(py, key).is_some() || self.is_single(py, key)
    }

    /// Remembers the pad of `key`: numpy's `widths` (one `(before, after)` pair per
    /// axis) and the constants' bytes `values` (none, one, or one per side, as
    /// `numpy_spec` takes them) for the key's dtype, shape and mode; its output
    /// allocated as `alloc` (None: the array's dtype; else a type of the same size,
    /// viewed as the array's), `finish` (None, or called with the output after the
    /// kernel). A [`Remembered::pooled`] pad is noted as not remembered instead.
    #[pyo3(signature = (key, widths, values, alloc=None, finish=None))]
    fn remember(
        &self,
        py: Python<'_>,
        key: Py<RepeatKey>,
        widths: Vec<(i64, i64)>,
        values: Vec<Vec<u8>>,
        alloc: Option<Py<PyArrayDescr>>,
        finish: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let recipe = Recipe {
            widths,
            values,
            alloc,
            finish,
        };
        let remembered = Remembered::new(py, key, recipe)?;
        if remembered.pooled(py) {
            self.single(py, remembered.key.clone_ref(py));
            return Ok(());
        }
        let earlier = self.find(py, remembered.key.get());
        self.keep(Arc::new(remembered), earlier);
        Ok(())
    }

    /// Notes that the pad of `key` is not remembered.
    fn single(&self, py: Python<'_>, key: Py<RepeatKey>) {
        if self.is_single(py, key.get()) {
            return;
        }
        let mut forgotten = None;
        {
            let mut store = self.store();
            if store.singles.len() >= self.limit {
                forgotten = store.singles.pop_front();
            }
            match self.limit {
                0 => forgotten = Some(key),
                _ => store.singles.push_back(key),
            }
        }
        drop(forgotten);
    }

    /// Whether the pad of `key` is remembered.
    fn __contains__(&self, py: Python<'_>, key: &RepeatKey) -> bool {
        self.find(py, key).is_some()
    }

    /// How many pads are remembered.
    fn __len__(&self) -> usize {
        self.store().pads.len()
    }

    /// How many keys are noted as not remembered.
    #[getter]
    fn singles(&self) -> usize {
        self.store().singles.len()
    }

    /// Forgets every pad and key.
    fn clear(&self) {
        let forgotten = std::mem::take(&mut *self.store());
        drop(forgotten);
    }
}

/// numpy's index modes ([`NumpyPad::index_modes`]) as interned Python strings.
static INDEX_MODES: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();

/// The index of `mode` among numpy's index modes ([`NumpyPad::index_modes`]), `None`
/// for another string (not remembered: padded through the whole handling, which runs
/// the other modes or names the error). Compared as Python strings: the text's
/// UTF-8 would be copied each call, and a literal mode is the interned name itself.
fn mode_index(mode: &Bound<'_, PyString>) -> Option<u8> {
    let py = mode.py();
    let names = INDEX_MODES.get_or_init(py, || {
        NumpyPad::index_modes()
            .map(|n| PyString::intern(py, n).unbind())
            .collect()
    });
    let at = names.iter().position(|n| n.bind(py).is(mode)).or_else(|| {
        names
            .iter()
            .position(|n| n.bind(py).as_any().eq(mode).unwrap_or(false))
    })?;
    u8::try_from(at).ok()
}

/// Whether [`mode_index`] `i` is constant mode's.
fn is_constant(i: u8) -> bool {
    NumpyPad::index_modes().nth(usize::from(i)) == Some("constant")
}

/// An `int` >= 0 (not a bool).
fn count(v: &Bound<'_, PyAny>) -> Option<u64> {
    v.cast_exact::<PyInt>().ok()?.extract().ok()
}

/// `pad_width` given as an `int` or a small array (a tuple: [`Repeats::widths`]).
fn int_or_array_widths(w: &Bound<'_, PyAny>) -> Option<Widths> {
    if let Some(n) = count(w) {
        return Some(Widths::Int(n));
    }
    // A small array of signed integers (numpy takes no other), by its values.
    let a = w.cast_exact::<PyUntypedArray>().ok()?;
    if a.dtype().kind() != b'i' || a.len() > 64 || a.ndim() > 2 {
        return None;
    }
    let values: Vec<i64> = w
        .call_method0("ravel")
        .ok()?
        .call_method0("tolist")
        .ok()?
        .extract()
        .ok()?;
    if values.iter().any(|&v| v < 0) {
        return None;
    }
    Some(Widths::Array(a.shape().to_vec(), values))
}

/// A tuple of ints, of 1-tuples and of pairs of them, as [`Width`]s.
fn tuple_widths(t: &Bound<'_, PyTuple>) -> Option<Vec<Width>> {
    t.iter()
        .map(|item| {
            if let Some(n) = count(&item) {
                return Some(Width::Int(n));
            }
            let pair = item.cast_exact::<PyTuple>().ok()?;
            match pair.len() {
                1 => Some(Width::One(count(&pair.get_item(0).ok()?)?)),
                2 => Some(Width::Pair(
                    count(&pair.get_item(0).ok()?)?,
                    count(&pair.get_item(1).ok()?)?,
                )),
                _ => None,
            }
        })
        .collect()
}

fn constant(v: &Bound<'_, PyAny>) -> Option<Constant> {
    if v.is_exact_instance_of::<PyBool>() {
        return Some(Constant::Bool(v.extract().ok()?));
    }
    if v.is_exact_instance_of::<PyInt>() {
        return Some(Constant::Int(v.extract().ok()?));
    }
    if let Ok(f) = v.cast_exact::<PyFloat>() {
        let f = f.value();
        return (!f.is_nan()).then(|| Constant::Float(f.to_bits()));
    }
    if let Ok(s) = v.cast_exact::<PyString>() {
        return Some(Constant::Str(s.to_cow().ok()?.into_owned()));
    }
    let b = v.cast_exact::<PyBytes>().ok()?;
    Some(Constant::Bytes(b.as_bytes().to_vec()))
}

/// The key a framework pad's node is remembered under (`_frameworks.node_key`):
/// `data`'s dtype and then, for each of `args`, its type and its value (a `float` by
/// its bits, so that `-0.0` is not `0.0`; integers in a list, a tuple or a 1-D array
/// of integers as a tuple: `1`, `1.0` and `True` convert apart), or `None` where one
/// is not None, a bool, int, str, float, or such integers. The data's shape is not
/// part of it: the node makes the spec for each shape.
#[pyfunction]
#[pyo3(signature = (data, *args))]
pub(crate) fn node_key<'py>(
    data: &Bound<'py, PyUntypedArray>,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let py = data.py();
    let mut key = Vec::with_capacity(1 + 2 * args.len());
    key.push(data.dtype().into_any());
    for v in args.iter() {
        let value = if v.is_none()
            || v.is_exact_instance_of::<PyInt>()
            || v.is_exact_instance_of::<PyString>()
            || v.is_exact_instance_of::<PyBool>()
        {
            v.clone()
        } else if let Ok(f) = v.cast_exact::<PyFloat>() {
            f.value().to_bits().into_pyobject(py)?.into_any()
        } else if let Some(ints) = int_sequence(&v)? {
            ints.into_any()
        } else {
            return Ok(None);
        };
        key.push(v.get_type().into_any());
        key.push(value);
    }
    PyTuple::new(py, key).map(Some)
}

/// A list or tuple of `int`s, or a 1-D array of integers of at most 8 bytes, as a
/// tuple of its values; `None` for anything else.
fn int_sequence<'py>(v: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let py = v.py();
    if let Ok(a) = v.cast_exact::<PyUntypedArray>() {
        let d = a.dtype();
        if a.ndim() != 1 || d.kind() != b'i' || d.itemsize() > 8 {
            return Ok(None);
        }
        let values: Vec<i64> = v.call_method0("tolist")?.extract()?;
        return PyTuple::new(py, values).map(Some);
    }
    let items = match (v.cast_exact::<PyList>(), v.cast_exact::<PyTuple>()) {
        (Ok(l), _) => l.to_tuple(),
        (_, Ok(t)) => t.clone(),
        _ => return Ok(None),
    };
    Ok(items
        .iter()
        .all(|x| x.is_exact_instance_of::<PyInt>())
        .then_some(items))
}

/// Whether `array`'s pad is one the remembered specs run: C-contiguous, or in another
/// layout without negative strides that is not Fortran order (numpy pads a Fortran-
/// ordered array into a Fortran-ordered output, `ndpad.pad` through its transpose).
fn plain_layout(array: &Bound<'_, PyUntypedArray>) -> bool {
    array.is_c_contiguous()
        || (!array.is_fortran_contiguous() && array.strides().iter().all(|&s| s >= 0))
}
