"""``ndpad.pad``: a drop-in for ``numpy.pad``.

This layer only normalizes arguments the way ``numpy.pad`` does (same broadcasting,
same casting, same exceptions) and hands the padding to the Rust core:

* the index modes (constant, edge, reflect, symmetric, wrap, empty) are one call of
  the core's kernel, reading the input in place and writing each output element once;
* the statistic modes (maximum, mean, median, minimum) and linear_ramp: the Rust
  numpy front end (``ndpad_frontends::numpy::stats``) copies the input into place and
  computes each statistic (or ramp) once per line, axis after axis as numpy does,
  in numpy's order of summation, bit for bit numpy's; for the types it does not
  compute (float16, complex, bool, datetime, object, ml_dtypes, non-native byte
  order), F-ordered results, and the values where numpy's result depends on more
  than the values (NaN payloads, -0.0 beside +0.0 in a maximum, an overflow numpy
  warns of), numpy's own reductions run on the same views ``numpy.pad`` uses;
* ``reflect_type='odd'`` (reflect, symmetric): the Rust numpy front end
  (``ndpad_frontends::numpy::odd``) runs numpy's chunks in numpy's order with numpy's
  arithmetic (``2 * edge - chunk`` in the array's type: integers wrap, float16 and
  bfloat16 round each operation, bool is the truth of numpy's int64 result), bit for
  bit, for bool, integers, float16, float32, float64, complex64, complex128 and
  ml_dtypes' bfloat16 of native byte order (``_odd.odd_name``). numpy's own algorithm
  runs for the other dtypes (datetime64, timedelta64, object, strings, longdouble,
  clongdouble, ml_dtypes' float8 / int4 / ..., non-native byte order), for empty
  arrays, and again where numpy would report a floating-point exception that
  ``numpy.errstate`` does not ignore (an overflow, ``inf - inf``), so that numpy
  warns or raises as it does, and where a complex edge has an infinite or NaN part
  (numpy's complex product then depends on whether its loops fuse operations);
* a callable ``mode`` runs through numpy's own algorithm.

The arguments are checked, and each mode handed to its family here (``_Numpy``), by
the helpers ``ndpad.dask`` shares (``_dispatch.py``).
"""

from __future__ import annotations

import functools
import math
import sys
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _device
from . import _dispatch as dispatch
from . import _dlpack
from . import _layout as layout
from . import _ndpad
from ._dispatch import along, as_pairs, numpy_pad
from ._odd import odd_name, pad_odd_box

__all__ = ["pad"]

# What numpy's ``array_function_dispatch`` compares a type's ``__array_function__`` with.
_NDARRAY_ARRAY_FUNCTION = np.ndarray.__array_function__


def pad(
    array: Any,
    pad_width: Any,
    mode: Any = "constant",
    *,
    negative_pads: Optional[str] = None,
    interior: Any = 0,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
    order: Optional[str] = None,
    **kwargs: Any,
) -> np.ndarray:
    """Pad an array: ``numpy.pad``'s result, bit for bit, computed by ndpad's kernel.

    Parameters
    ----------
    array : array_like of rank N
        The array to pad. Any dtype numpy has (bool, integers, floats, complex,
        ``U`` / ``S`` strings, datetime64 / timedelta64, structured / void, object,
        and ml_dtypes' bfloat16, float8_*, int4 / uint4, float4_e2m1fn, int2 / uint2)
        and any memory layout. Arrays of fixed-width types without negative strides
        (slices such as ``a[::2, 1:-1]`` or ``a[:, ::2]``, transposes) are read
        where they lie, a block at a time where their rows are not in C order;
        other layouts (negative strides, packed types) are copied once first.
    pad_width : int, sequence, array_like or dict
        Number of values padded to the edges of each axis, in every form numpy
        accepts: ``n``, ``(n,)``, ``(before, after)``, ``((before, after),)``, one
        pair per axis, an integer ndarray, or ``{axis: n or (before, after)}``.
        Negative widths crop, only with ``negative_pads``.
    mode : str, callable or sequence of str, optional
        One of 'constant' (default), 'edge', 'linear_ramp', 'maximum', 'mean',
        'median', 'minimum', 'reflect', 'symmetric', 'wrap', 'empty', or a
        function (``padding_func(vector, iaxis_pad_width, iaxis, kwargs)``, run
        through numpy's own algorithm). Beyond numpy: a sequence of one mode name
        per axis; the axes are padded in order, each group of equal modes in one
        pass, so corners are what padding axis after axis gives.
    negative_pads : {None, 'crop_first', 'original_index'}, optional
        Beyond numpy. None (default): negative widths are an error, as in numpy.
        'crop_first': a negative width removes elements, then the rest is padded
        (ONNX). 'original_index': output element ``o`` reads input element
        ``o - before`` of the uncropped array, folded by the mode (OpenVINO Pad-12).
    interior : int or sequence of int, optional
        Beyond numpy: elements inserted between neighbouring elements of each axis
        (nGraph's ``padding_interior``), constant mode only, with one constant.
    out : ndarray, optional
        Beyond numpy: the array to pad into, of the padded shape and the input's
        dtype, writable, not overlapping the input, in any layout (written where
        its elements lie where it is one block, as ``order=`` writes a new one).
        Returned. A pad stopped by Ctrl-C (``KeyboardInterrupt``, raised within a
        part of the pad) leaves it partly written.
    threads : int, optional
        Beyond numpy: threads for the kernel, 0 to 1024; None or 0 uses all cores.
        The statistic modes and linear_ramp split only the copy of the input (with
        the last axis's pads) among them.
    order : {None, 'A', 'C', 'F', 'K'}, optional
        Beyond numpy: the memory layout of the new output. None or 'A' (default):
        numpy.pad's (F-ordered for an F-contiguous input that is not C-contiguous,
        else C). 'C', 'F': that order. 'K': the input's, its axes ordered by their
        strides, largest first (as ``numpy.empty_like(array, order='K')``), so that
        a transposed view (a channels-last image seen as NCHW) is padded where its
        elements lie, without a transpose. The index modes are padded in the
        asked layout (a constant per side where the padded axes lie in it in
        order or in reverse); the statistic modes, linear_ramp,
        ``reflect_type='odd'``, a mode per axis and a callable mode are padded as
        numpy.pad lays them out and copied. The values are numpy.pad's in every
        layout. Not with ``out=`` (which has its own layout), and for numpy arrays
        and array-likes only.
    stat_length : sequence or int, optional
        'maximum', 'mean', 'median', 'minimum': values at each edge of each axis
        used for the statistic, broadcast as ``pad_width``. Default: the whole axis.
        The core computes the statistics (and linear_ramp) of float32, float64 and
        integer arrays, in numpy's order of summation; other types, F-ordered
        results and the values whose result numpy leaves to its implementation
        (NaN payloads, -0.0 beside +0.0 in a maximum, 64-bit integer means) go
        through numpy's own reductions: the result is numpy's either way.
    constant_values : sequence or scalar, optional
        'constant': the values to pad with, broadcast as ``pad_width``, cast to the
        array's dtype as numpy casts them (default 0).
    end_values : sequence or scalar, optional
        'linear_ramp': the values at the ends of the ramps (default 0).
    reflect_type : {'even', 'odd'}, optional
        'reflect', 'symmetric': 'odd' extends by ``2 * edge - reflection`` (runs
        through numpy's own algorithm).

    Returns
    -------
    pad : ndarray
        The padded array, of the input's dtype; F-ordered when the input is
        F-contiguous and not C-contiguous, as numpy.pad does. For an array whose
        type overrides numpy's functions (see Notes), what ``numpy.pad`` returns
        for it: a lazy dask array, a pint or astropy quantity in its units...
        An array of another library in host memory that exports DLPack (a torch
        CPU tensor, a JAX array on the CPU) is read in place, and the result is
        an array of that library (``out=`` of that library: written in place).

    Raises
    ------
    ValueError, TypeError
        Where numpy.pad raises them, with the same messages.
    TypeError
        ``negative_pads``, ``interior``, ``out``, ``threads`` or a sequence of modes
        for an array padded by another implementation (see Notes) that does not
        take them.
    ndpad.PadError
        An invalid use of the keywords beyond numpy (a ValueError).

    Notes
    -----
    ``ndpad.pad`` dispatches as ``numpy.pad`` does (NEP 18): when the type of
    ``array`` defines an ``__array_function__`` other than ``numpy.ndarray``'s
    (pint and astropy quantities, dask arrays, CuPy arrays, ...), the array is not
    converted with ``numpy.asarray`` but padded by the implementation ``numpy.pad``
    would hand it to, and the result is what ``numpy.pad`` returns:

    * a dask array goes to :func:`ndpad.dask.pad` (lazy, computed by ndpad's kernel
      chunk by chunk; it takes ``negative_pads``, ``interior``, ``threads`` and a
      sequence of modes, not ``out``);
    * any other such type goes to ``numpy.pad`` itself, which calls the type's
      ``__array_function__`` (a TypeError where no implementation accepts it, as
      in numpy). ndpad's own keywords are a TypeError there.

    ndarrays, their subclasses that do not override ``__array_function__``, and
    other array-likes (lists, scalars, xarray objects) are converted with
    ``numpy.asarray``, as ``numpy.pad`` converts them.

    Examples
    --------
    >>> import numpy as np, ndpad
    >>> ndpad.pad(np.array([1, 2, 3]), (2, 3), mode="reflect")
    array([3, 2, 1, 2, 3, 2, 1, 2])
    >>> nchw = np.zeros((1, 4, 4, 3), dtype=np.float32).transpose(0, 3, 1, 2)
    >>> ndpad.pad(nchw, ((0, 0), (0, 0), (1, 1), (1, 1)), order="K").strides
    (432, 4, 72, 12)
    """
    if order is not None and order != "A":
        return _pad_ordered(array, pad_width, mode, order, negative_pads, interior, out,
                            threads, kwargs)
    result = _REPEATS.pad(array, pad_width, mode, negative_pads, interior, out, threads,
                          kwargs)
    if result is not None:
        return result
    stat_key = _stat_key(array, pad_width, mode, negative_pads, interior, out, kwargs)
    if stat_key is not None:
        result = _STAT_PADS.pad(stat_key, array, threads)
        if result is not None:
            return result
    result = _pad_anything(array, pad_width, mode, negative_pads=negative_pads,
                           interior=interior, out=out, threads=threads, **kwargs)
    if stat_key is not None:
        _STAT_PADS.remember(stat_key, array, pad_width, mode, kwargs)
        return result
    # Remembered by the arguments as given: an array of another library (read
    # through DLPack) has no key, as it would not be found again.
    key = _REPEATS.key(array, pad_width, mode, negative_pads, interior, out, threads,
                       kwargs)
    if key is not None and not _device.active() and not _REPEATS.known(key):
        _remember(key, array, pad_width, mode, kwargs)
    return result


def _pad_ordered(array: Any, pad_width: Any, mode: Any, order: Any, negative_pads: Any,
                 interior: Any, out: Any, threads: Any, kwargs: dict) -> np.ndarray:
    """``pad`` into a new output laid out as ``order`` says (``_layout.asked_axes``):
    where that is numpy.pad's layout, ``pad`` itself; else the whole argument
    handling with the layout asked for (``_pad``)."""
    if order not in ("C", "F", "K"):
        raise _ndpad.PadError(f"order must be None, 'A', 'C', 'F' or 'K', not {order!r}")
    if out is not None:
        raise TypeError("order= lays out a new output; out= has its own layout")
    if type(array) is not np.ndarray:
        if _overrides(array) or (not isinstance(array, np.ndarray)
                                 and hasattr(array, "__dlpack__")):
            raise TypeError(f"order= is for numpy arrays, not {type(array).__name__}")
        array = np.asarray(array)
    axes = layout.asked_axes(array, order)
    if axes == layout.numpy_axes(array):
        return pad(array, pad_width, mode, negative_pads=negative_pads, interior=interior,
                   threads=threads, **kwargs)
    return _pad(array, pad_width, mode, negative_pads, interior, None, threads, kwargs,
                axes)


#: The keyword each statistic mode and linear_ramp takes.
_STAT_KEYWORDS = {"maximum": "stat_length", "minimum": "stat_length", "mean": "stat_length",
                  "median": "stat_length", "linear_ramp": "end_values"}


class _NotPlain(Exception):
    """An argument that is not numbers and tuples or lists of them."""


def _plain(value: Any) -> Any:
    """``value`` as a key that tells apart what the argument handling tells apart:
    each number with its exact type and its sign (-0.0 equals 0.0 but starts another
    ramp), each sequence with its own type (``_NotPlain`` for anything else: arrays,
    dicts, objects)."""
    kind = type(value)
    if kind in (tuple, list):
        return kind, tuple(_plain(v) for v in value)
    if value is None:
        return kind, value
    if isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
        return kind, value, math.copysign(1.0, value)
    raise _NotPlain


def _stat_key(array: Any, pad_width: Any, mode: Any, negative_pads: Any, interior: Any,
              out: Any, kwargs: dict) -> Optional[tuple]:
    """The key of a statistic or linear_ramp pad of a numpy array by plain arguments
    (``_StatPads``), or None."""
    if type(mode) is not str or type(array) is not np.ndarray:
        return None
    keyword = _STAT_KEYWORDS.get(mode)
    if (keyword is None or out is not None or negative_pads is not None
            or type(interior) is not int or interior != 0
            or len(kwargs) > 1 or (kwargs and keyword not in kwargs)):
        return None
    try:
        # A keyword given as None is not one left out (end_values=None is numpy's
        # error, its default 0).
        given = _plain(kwargs[keyword]) if kwargs else ()
        return array.dtype, array.shape, _plain(pad_width), mode, given
    except _NotPlain:
        return None


class _StatPads:
    """The statistic and linear_ramp pads run lately, found again by their plain
    arguments (``_stat_key``: the dtype and shape, ``pad_width``, the mode and its
    keyword, each of its exact type), so that the same pad of another C-contiguous
    array of that dtype and shape skips the argument handling (9 of a small pad's
    10 us) and calls the core at once; where it declines (values numpy's own
    reductions compute), the whole handling runs. At most ``limit``, the oldest
    forgotten first; only pads the core computes (``_core_call``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pads: Dict[tuple, tuple] = {}
        #: Keys whose pad the core declined once (64-bit integer means, NaN payloads):
        #: not remembered again, so that such pads do not pay a core call each time.
        self.declined: Dict[tuple, None] = {}

    def pad(self, key: tuple, array: np.ndarray, threads: Any) -> Optional[np.ndarray]:
        """The pad remembered under ``key`` of ``array``; None where there is none or
        the core declines (the key is then forgotten and not remembered again)."""
        recipe = self.pads.get(key)
        if recipe is None or _device.active():
            return None
        nthreads = dispatch.threads(threads)
        if not (array.flags.c_contiguous and array.flags.aligned):
            return None
        call, out_shape, args = recipe
        # Written whole by the core: memory from the output pool where it is large.
        padded, _ = dispatch.new_output(out_shape, array.dtype, like=array)
        if call(array, padded, *args, nthreads):
            return padded
        self.pads.pop(key, None)
        if len(self.declined) >= self.limit:
            self.declined.pop(next(iter(self.declined), None), None)
        self.declined[key] = None
        return None

    def remember(self, key: tuple, array: np.ndarray, pad_width: Any, mode: str,
                 kwargs: dict) -> None:
        """Remembers the core's call for a pad just run through the whole handling
        (its arguments valid) of ``array``, where the core computes it (not of an
        empty array, whose pad reads no keyword)."""
        if (key in self.pads or key in self.declined or _device.active() or array.ndim == 0
                or array.size == 0):
            return
        widths = dispatch.normalize_widths(pad_width, array.ndim, False)
        core = _core_call(array.dtype, array.shape, widths, mode,
                          _mode_pairs(mode, kwargs, array.ndim))
        if core is None:
            return
        out_shape = dispatch.output_shape(array.shape, widths, [0] * array.ndim)
        recipe = (core[0], out_shape, core[1])
        if len(self.pads) >= self.limit:
            self.pads.pop(next(iter(self.pads), None), None)
        self.pads[key] = recipe


_STAT_PADS = _StatPads(64)


@_dlpack.accepting
def _pad_anything(array: Any, pad_width: Any, mode: Any = "constant", *,
                  negative_pads: Optional[str] = None, interior: Any = 0,
                  out: Optional[np.ndarray] = None, threads: Optional[int] = None,
                  **kwargs: Any) -> Any:
    """``pad`` through the whole argument handling, of any array (those of other
    libraries through DLPack or on their CUDA device)."""
    return _pad(array, pad_width, mode, negative_pads, interior, out, threads, kwargs)


#: The small index pads run lately, found again by their plain arguments
#: (``_ndpad.Repeats``: the array's dtype and shape, ``pad_width``, the mode and a
#: constant, each of its exact type), so that the same pad of another array of that
#: dtype and shape (a loop over images, a data loader; C order, or a layout without
#: negative strides other than Fortran order) skips the argument handling,
#: and so does one of another shape of the same rank (its spec made in Rust from the
#: remembered widths and constants, and remembered in turn):
#: at most ``_REPEATS_MAX``, the oldest forgotten first, and as many keys of pads
#: found not to be remembered (a large output, a constant numpy warns of or that is
#: not one kernel word), not tried again. ``out`` is not part of the key: a
#: C-contiguous one of the padded shape and dtype is written; ``threads`` is checked
#: on each call.
_REPEATS_MAX = 64
_REPEATS = _ndpad.Repeats(_REPEATS_MAX)


def _repeat_dtype(dtype: np.dtype) -> bool:
    """Whether pads of ``dtype`` are remembered: bool, numbers, datetimes and
    timedeltas in native order whose elements are one word of the kernel (1, 2, 4, 8
    or 16 bytes), and text and raw bytes (``S``, native ``U``, ``V`` without fields) of
    any size: every type whose pad is one call of the kernel."""
    known = _REPEAT_DTYPES.get(dtype)
    if known is None:
        known = _REPEAT_DTYPES[dtype] = dtype.isnative and (
            (dtype.kind in "biufcmM" and dtype.itemsize in (1, 2, 4, 8, 16))
            or (dtype.kind in "SUV" and dtype.names is None and dtype.itemsize > 0))
    return known


_REPEAT_DTYPES: Dict[np.dtype, bool] = {}


def _remember(key: Any, array: np.ndarray, pad_width: Any, mode: str,
              kwargs: dict) -> None:
    """Remembers the spec of a pad ``ndpad.pad`` has just run through the whole
    argument handling (so the arguments are valid) under ``key``, its plain
    arguments (made only for the index modes), where it is a pad of a type
    ``_repeat_dtype`` takes (``_REPEATS.remember`` notes a large output, one of the
    output pool, as not remembered); else notes the key as not remembered."""
    if not _repeat_dtype(array.dtype):
        return _REPEATS.single(key)
    widths = dispatch.normalize_widths(pad_width, array.ndim, False)
    values: List[bytes] = []
    finish = None
    if mode == "constant":
        given = kwargs.get("constant_values", 0)
        try:
            # Converted as the whole handling converts it (0 to numpy's int64, which
            # a 'V' cell takes), then cast.
            cell = dispatch.cast(dispatch.as_pairs(given, 1)[0][0], array.dtype)
        except (OverflowError, ValueError, TypeError):
            return _REPEATS.single(key)
        if array.dtype.kind in "biufc" and cell.item() != given:
            # Rounded, wrapped or overflowed in the cast, which numpy may warn of on
            # every call: such constants are not remembered.
            return _REPEATS.single(key)
        c = dispatch.constants(array.dtype, dispatch.as_pairs(given, array.ndim),
                               [0] * array.ndim)
        if c.indexed:
            # Not one kernel word ('0' in a text array): a zero pad, then the sides.
            values = [bytes(array.dtype.itemsize)]
            finish = functools.partial(_write_sides, widths=widths, cells=c.cells)
        else:
            values = [dispatch.value_bytes(cell)]
    alloc = dispatch.written_dtype(array.dtype)
    _REPEATS.remember(key, widths, values, None if alloc is array.dtype else alloc, finish)


def _pad(array: Any, pad_width: Any, mode: Any, negative_pads: Any, interior: Any,
         out: Any, threads: Any, kwargs: dict, axes: Optional[List[int]] = None) -> Any:
    """``pad`` through the whole argument handling; ``axes``: the new output's layout
    (``_layout``; None: numpy.pad's). The index modes are padded in that layout;
    the others (statistics, linear_ramp, reflect_type='odd', a mode per axis, a
    callable) in numpy.pad's, and copied."""
    if type(array) is not np.ndarray and _overrides(array):
        return _hand_over(array, pad_width, mode, negative_pads, interior, out, threads,
                          kwargs)
    array = np.asarray(array)
    if _device.current(array) is not None:
        _device.check_numpy_mode(mode, kwargs)
    dispatch.check_negative_pads(negative_pads)
    widths = dispatch.normalize_widths(pad_width, array.ndim, negative_pads is not None)
    nthreads = dispatch.threads(threads)

    if callable(mode):
        dispatch.refuse_extensions(negative_pads, interior, out)
        return layout.laid(numpy_pad(array, widths, mode, **kwargs), axes)

    modes = dispatch.parse_modes(mode, array.ndim, kwargs)
    interiors = dispatch.parse_interior(interior, modes)

    if array.ndim == 0:
        # numpy still broadcasts (and checks) the mode's values for no axes.
        names = set() if isinstance(mode, (list, tuple)) else {dispatch.mode_name(mode)}
        for m in set(modes) | names:
            if m == "constant":
                as_pairs(kwargs.get("constant_values", 0), 0)
            elif m == "linear_ramp":
                as_pairs(kwargs.get("end_values", 0), 0)
            elif m in dispatch.STAT_FUNCTIONS:
                as_pairs(kwargs.get("stat_length"), 0, as_index=True)
        # numpy's ``padded[()] = array``: an object array gets the input array itself
        # as its element.
        result = np.empty((), dtype=array.dtype)
        result[()] = array
        return _into(out, result, array)

    groups = dispatch.mode_groups(modes, widths, interiors)
    if len(groups) > 1:
        result = array
        for m, part, part_interior in groups:
            result = dispatch.pad_one_mode(_Numpy(None, nthreads), result, part, m,
                                           kwargs, negative_pads, part_interior)
        return _into(out, layout.laid(result, axes), array)
    result = dispatch.pad_one_mode(_Numpy(out, nthreads, axes), array, widths, modes[0],
                                   kwargs, negative_pads, interiors)
    return layout.laid(result, axes)


def _axes(axes: Optional[List[int]], array: np.ndarray) -> List[int]:
    """The layout ``axes`` of a new output for the pad of ``array``, or numpy.pad's."""
    return layout.numpy_axes(array) if axes is None else axes


class _Numpy(dispatch.Padder):
    """The mode families of a numpy array: into ``out`` (or a new array laid out as
    ``axes`` where the family can write it so; None: numpy.pad's layout) with
    ``threads`` of the kernel."""

    __slots__ = ("out", "threads", "axes")

    def __init__(self, out: Optional[np.ndarray], threads: int,
                 axes: Optional[List[int]] = None) -> None:
        self.out = out
        self.threads = threads
        self.axes = axes

    def index(self, array, widths, mode, values, negative_pads, interiors):
        if values is not None:
            return _pad_constant(array, widths, values, negative_pads, interiors, self.out,
                                 self.threads, self.axes)
        return _run(array, widths, mode, [], negative_pads, interiors, self.out,
                    self.threads, axes=self.axes)

    def empty(self, array, shape):
        made = layout.empty(shape, array.dtype, _axes(self.axes, array))
        return _into(self.out, made, array)

    def odd(self, array, widths, mode):
        return _pad_odd(array, widths, mode, self.out, self.threads)

    def ramps(self, array, widths, kwargs):
        return _pad_ramps(array, widths, kwargs, self.out, self.threads)

    def stats(self, array, widths, mode, kwargs):
        return _pad_stats(array, widths, mode, kwargs, self.out, self.threads)


def _overrides(array: Any) -> bool:
    """Whether ``numpy.pad`` hands ``array`` to another implementation, as numpy's
    ``array_function_dispatch`` decides it: ``numpy.pad``'s dispatcher names the array
    only, and an argument counts when its type defines an ``__array_function__``
    other than ``numpy.ndarray``'s (looked up on the type, not the instance)."""
    method = getattr(type(array), "__array_function__", _NDARRAY_ARRAY_FUNCTION)
    return method is not _NDARRAY_ARRAY_FUNCTION


def _hand_over(array: Any, pad_width: Any, mode: Any, negative_pads: Any, interior: Any,
               out: Any, threads: Any, kwargs: dict) -> Any:
    """``array`` padded by the implementation ``numpy.pad`` dispatches it to: a dask
    array by ``ndpad.dask.pad``, anything else by ``numpy.pad`` itself (numpy's
    function, which calls the type's ``__array_function__``)."""
    dask_array = sys.modules.get("dask.array")  # loaded wherever a dask array exists
    if dask_array is not None and isinstance(array, dask_array.Array):
        if out is not None:
            raise TypeError(
                "out= is not available for a dask array: ndpad.pad hands it to "
                "ndpad.dask.pad, which returns a new lazy dask array")
        from . import dask as ndask

        return ndask.pad(array, pad_width, mode, negative_pads=negative_pads,
                         interior=interior, threads=threads, **kwargs)
    given = [
        name
        for name, used in (
            ("negative_pads=", negative_pads is not None),
            ("interior=", bool(np.any(np.asarray(interior) != 0))),
            ("out=", out is not None),
            ("threads=", threads is not None),
            ("a sequence of modes", isinstance(mode, (list, tuple))),
        )
        if used
    ]
    if given:
        kind = type(array)
        raise TypeError(
            f"ndpad.pad hands a {kind.__module__}.{kind.__qualname__} to its own "
            "implementation of numpy.pad (its type defines __array_function__), which "
            f"takes numpy.pad's arguments only, not {', '.join(given)}")
    return numpy_pad(array, pad_width, mode, **kwargs)


def _into(out: Optional[np.ndarray], result: np.ndarray, array: Any = None) -> np.ndarray:
    if out is None:
        return result
    _check_out(out, result.shape, result.dtype, array)
    np.copyto(out, result)
    return out


def _check_out(out: Any, shape: Tuple[int, ...], dtype: np.dtype, array: Any) -> None:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, not {type(out).__name__}")
    if out.shape != tuple(shape) or out.dtype != dtype:
        raise ValueError(
            f"out must have the padded shape {tuple(shape)} and dtype {dtype}; "
            f"it has shape {out.shape} and dtype {out.dtype}"
        )
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    if array is not None and np.may_share_memory(out, array):
        raise ValueError("out overlaps the input array")


def _pad_constant(array, widths, values, negative_pads, interiors, out, threads,
                  axes=None):
    memory = "written"
    on_host = _device.current(array) is None
    if out is None and on_host:
        # numpy allocates the output before it casts the constants: its errors first.
        shape = dispatch.output_shape(array.shape, widths, interiors)
        axes = _axes(axes, array)
        out, memory = layout.new_output(shape, array.dtype, axes, zeros=True, like=array)
    c = dispatch.constants(array.dtype, values, interiors)
    if c.indexed and c.fill is None:
        if (not array.dtype.hasobject and not any(interiors) and on_host
                and all(b >= 0 and a >= 0 for b, a in widths)):
            return _pad_sides(array, widths, c.cells, negative_pads, out, threads, memory,
                              axes)
        return _pad_indexed(array, widths, "constant", c.cells, negative_pads, interiors,
                            out, threads)
    return _run(array, widths, "constant", c.values or [], negative_pads, interiors, out,
                threads, memory=memory, fill=None if c.fill is None else c.fill[()],
                axes=axes)


def _run(array, widths, mode, values, negative_pads, interiors, out, threads,
         memory="written", fill=None, axes=None):
    """One call of the kernel: the index modes (``values``: the constants' bytes, as
    ``dispatch.index_spec`` takes them). ``memory``: what ``out`` holds, "written", or
    "fresh" / "zeroed" when allocated just before by ``numpy.empty`` / ``numpy.zeros``
    and never written (``ndpad::OutputMemory``). Object arrays are padded on their
    pointers (``Spec.execute_objects``), ``fill`` the constant. ``axes``: the layout
    (``_layout``) of the new output, or of an ``out`` the caller made so; None: that
    ``out``'s own, or numpy.pad's. The kernel pads the input's transpose to the
    layout into C order."""
    if array.dtype.hasobject and array.dtype != np.object_:
        return _pad_indexed(array, widths, mode, None, negative_pads, interiors, out,
                            threads, axes)
    device = _device.current(array)
    if out is not None and axes is None:
        axes = layout.out_axes(out, array)
    if len(values) > 1 and len(set(values)) == 1:
        values = values[:1]  # one constant on every side: any layout keeps it
    if axes is None or device is not None:
        axes = layout.numpy_axes(array)
    corners = _corners(axes, widths) if len(values) > 1 else "last"
    if corners is None:
        axes = layout.numpy_axes(array)
        corners = _corners(axes, widths)
    src = array.transpose(axes)
    sides = values
    if len(values) > 1:
        sides = [values[2 * a + side] for a in axes for side in (0, 1)]
    spec = dispatch.index_spec(src.dtype.itemsize, src.shape, [widths[a] for a in axes],
                               [interiors[a] for a in axes], mode, sides, negative_pads,
                               corners)
    if device is not None:
        return device.run(spec)
    if out is None:
        # A C-contiguous input (in the layout) with a heap-sized output of a type
        # numpy does not clear (not objects): allocated and padded in one call
        # (None for the others, made below).
        made = spec.padded(src, threads)
        if made is not None:
            return layout.transposed(made, axes)
    if not (src.flags.c_contiguous or spec.reads_in_place(src)):
        # A layout the kernel does not read where it lies (a negative stride, a
        # packed type): copied once.
        src = np.ascontiguousarray(src)
    out_shape = spec.output_shape
    full_shape = tuple(out_shape[i] for i in layout.back(axes))
    if out is not None:
        _check_out(out, full_shape, array.dtype, array)
        if not out.transpose(axes).flags.c_contiguous:
            result = _run(array, widths, mode, values, negative_pads, interiors, None,
                          threads, fill=fill)
            np.copyto(out, result)
            return out
        result = out
    else:
        result, memory = layout.new_output(full_shape, array.dtype, axes, like=src)
    dst = result.transpose(axes)
    if src.dtype == np.object_:
        spec.execute_objects(src, dst, threads, fill, memory)
    else:
        spec.execute(src, dst, threads, memory)
    return result


def _corners(axes: List[int], widths) -> Optional[str]:
    """The kernel's corners for a constant per side in the layout ``axes``: where the
    pads of several axes meet, numpy writes the constant of the last of them in
    numpy's order; the kernel, of the last in the layout ("last") or of the first
    ("first"). The one that keeps numpy's, where the padded axes lie in the layout in
    order or in reverse; else None."""
    padded = [a for a in axes if max(widths[a]) > 0]
    if padded == sorted(padded):
        return "last"
    if padded == sorted(padded, reverse=True):
        return "first"
    return None


def _pad_sides(array, widths, cells, negative_pads, out, threads, memory, axes):
    """A constant pad whose constants the kernel cannot write (not one of its words
    repeated: '0' in a 'U10' array): the kernel pads with zero bytes, then each side's
    constant (``cells``) is written over its side, axis by axis as numpy.pad writes
    them (the last axis's in the corners)."""
    zero = [bytes(array.dtype.itemsize)]
    result = _run(array, widths, "constant", zero, negative_pads, [0] * array.ndim, out,
                  threads, memory=memory, axes=axes)
    _write_sides(result, widths, cells)
    return result


def _write_sides(result, widths, cells) -> None:
    """Each side's constant (``cells``) over its side of ``result``, axis by axis as
    numpy.pad writes them (the last axis's in the corners)."""
    for axis, ((before, after), (left, right)) in enumerate(zip(widths, cells)):
        n = result.shape[axis]
        if before:
            result[dispatch.along(axis, slice(0, before))] = left
        if after:
            result[dispatch.along(axis, slice(n - after, n))] = right


def _pad_indexed(array, widths, mode, cells, negative_pads, interiors, out, threads,
                 axes=None):
    """Elements the kernel cannot write as bytes (objects in a structured array, or a
    constant per side for an object array or not one kernel word repeated): the kernel
    pads the elements' indices, each side's constant a negative index of its own;
    numpy gathers the elements and the constants (``dispatch.gather``), so reference
    counts stay right."""
    if mode == "constant" and cells is None:
        zero = dispatch.cast(0, array.dtype)
        cells = [(zero, zero)] * array.ndim
    index = np.arange(array.size, dtype=np.intp).reshape(array.shape)
    values = dispatch.index_values(array.ndim, interiors) if mode == "constant" else []
    picked = _run(index, widths, mode, values, negative_pads, interiors, None, threads)
    if out is not None:
        _check_out(out, picked.shape, array.dtype, array)
        result = out
    else:
        result = layout.empty(picked.shape, array.dtype, _axes(axes, array))
    dispatch.gather(result, array, picked, cells if mode == "constant" else None)
    return result


def _simple(array, widths, out, threads):
    """numpy's ``_pad_simple``: the input written into place by the kernel (the pad
    areas hold zeros until the caller fills them)."""
    return _run(array, widths, "constant", [], None, [0] * array.ndim, out, threads)


def _roi(padded, area, axis):
    return padded[(slice(None),) * (axis + 1) + area[axis + 1:]]


def _set_sides(roi, axis, pair, values):
    roi[along(axis, slice(None, pair[0]))] = values[0]
    roi[along(axis, slice(roi.shape[axis] - pair[1], None))] = values[1]


def _area(array, widths):
    return tuple(slice(b, b + n) for n, (b, _) in zip(array.shape, widths))


def _pad_stats(array, widths, mode, kwargs, out, threads):
    func = dispatch.STAT_FUNCTIONS[mode]
    pair = _core_pair(array, widths, out)  # numpy allocates, then reads stat_length
    padded = _simple(array, widths, out, threads) if pair is None else pair[2]
    lengths = _mode_pairs(mode, kwargs, array.ndim)
    core = None if pair is None else _core_call(array.dtype, array.shape, widths, mode,
                                                lengths)
    if core is not None and core[0](pair[1], padded, *core[1], threads):
        return padded
    # numpy's own reductions: the types and cases the core declines.
    area = _area(array, widths)
    integer = np.issubdtype(padded.dtype, np.integer)
    for axis, (pair, length) in enumerate(zip(widths, lengths)):
        roi = _roi(padded, area, axis)
        lo = pair[0]
        hi = roi.shape[axis] - pair[1]
        full = hi - lo
        left = full if length[0] is None or full < length[0] else length[0]
        right = full if length[1] is None or full < length[1] else length[1]
        if (left == 0 or right == 0) and func in (np.amax, np.amin):
            raise ValueError("stat_length of 0 yields no value for padding")
        left_stat = func(roi[along(axis, slice(lo, lo + left))], axis=axis, keepdims=True)
        if integer:
            left_stat.round(out=left_stat)
        if left == right == full:
            right_stat = left_stat
        else:
            right_stat = func(roi[along(axis, slice(hi - right, hi))], axis=axis, keepdims=True)
            if integer:
                right_stat.round(out=right_stat)
        _set_sides(roi, axis, pair, (left_stat, right_stat))
    return padded


def _pad_ramps(array, widths, kwargs, out, threads):
    pair = _core_pair(array, widths, out)  # numpy allocates, then reads end_values
    padded = _simple(array, widths, out, threads) if pair is None else pair[2]
    ends = _mode_pairs("linear_ramp", kwargs, array.ndim)
    if pair is not None and _ramps_in_rust(pair[1], padded, array.shape, widths, ends,
                                           threads):
        return padded
    # numpy's own linspace: the types and cases the core declines.
    area = _area(array, widths)
    for axis, (pair, end_pair) in enumerate(zip(widths, ends)):
        roi = _roi(padded, area, axis)
        lo = pair[0]
        hi = roi.shape[axis] - pair[1]
        edges = (roi[along(axis, slice(lo, lo + 1))], roi[along(axis, slice(hi - 1, hi))])
        left, right = (
            np.linspace(start=end, stop=edge.squeeze(axis), num=width, endpoint=False,
                        dtype=padded.dtype, axis=axis)
            for end, edge, width in zip(end_pair, edges, pair)
        )
        _set_sides(roi, axis, pair, (left, right[along(axis, slice(None, None, -1))]))
    return padded


_RUST_NAMES = {
    np.float32: "f32", np.float64: "f64",
    np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64",
    np.uint8: "u8", np.uint16: "u16", np.uint32: "u32", np.uint64: "u64",
}
for _t in (np.byte, np.short, np.intc, np.int_, np.longlong):  # C names, e.g. "q"
    _RUST_NAMES.setdefault(_t, f"i{8 * np.dtype(_t).itemsize}")
for _t in (np.ubyte, np.ushort, np.uintc, np.uint, np.ulonglong):
    _RUST_NAMES.setdefault(_t, f"u{8 * np.dtype(_t).itemsize}")


def _rust_name(padded: np.ndarray) -> Optional[str]:
    """The core's name of ``padded``'s type when the core computes statistics and
    ramps of it (native float32 / float64 / integers, a C-contiguous buffer)."""
    dtype = padded.dtype
    if not (dtype.isnative and padded.flags.c_contiguous and padded.flags.aligned):
        return None
    return _RUST_NAMES.get(dtype.type)


def _core_pair(array: np.ndarray, widths, out):
    """``(name, src, dst)`` where the core pads ``array`` itself (the copy fused with
    the statistics or ramps): a type it computes, a C-ordered result (numpy.pad's
    result is F-ordered for an F-ordered input), aligned buffers; else None."""
    if _RUST_NAMES.get(array.dtype.type) is None or not array.dtype.isnative:
        return None
    if array.flags.f_contiguous and not array.flags.c_contiguous:
        return None
    src = np.ascontiguousarray(array)
    shape = tuple(n + b + a for n, (b, a) in zip(array.shape, widths))
    if out is None:
        # Written whole by the core: memory from the output pool where it is large.
        dst, _ = dispatch.new_output(shape, array.dtype, like=src)
    else:
        _check_out(out, shape, array.dtype, array)
        dst = out
    name = _rust_name(dst)
    if name is None or not src.flags.aligned:
        return None
    return name, src, dst


_LINSPACE_TYPES: dict = {}

#: The least float that float32 rounds to infinity: its largest value plus half the
#: gap below it.
_F32_TO_INF = float(np.finfo(np.float32).max) + 2.0**103


def _linspace_type(end: Any, dtype: np.dtype) -> np.dtype:
    """numpy.linspace's type for a ramp from ``end`` to an edge of ``dtype``: it
    depends on their types only (checked for every pair of a Python or numpy scalar
    type and a numeric dtype), asked of numpy once per pair of types (a call of
    linspace took two thirds of a small ramp's time)."""
    key = (type(end), dtype)
    dt = _LINSPACE_TYPES.get(key)
    if dt is None:
        with np.errstate(all="ignore"):
            dt = np.linspace(end, np.zeros((), dtype), 1, endpoint=False).dtype
        if len(_LINSPACE_TYPES) < 256:  # bounded: scalar types are few
            _LINSPACE_TYPES[key] = dt
    return dt


def _ramp_end(end: Any, dtype: np.dtype):
    """``end`` as a value of numpy.linspace's type for a ramp from ``end`` to an edge
    of ``dtype``, and that type's core name; None where the core should not compute
    it (the value is not exactly a value of the type, or an unusual type)."""
    if isinstance(end, (bool, np.bool_, int, np.integer)):
        value = int(end)
        if abs(value) > 2**24:
            return None  # inexact in float32, or converted in ways not checked here
    elif isinstance(end, (float, np.floating)) and not isinstance(end, np.longdouble):
        value = float(end)
    else:
        return None
    dt = _linspace_type(end, dtype)
    if dt == np.float32:
        if abs(value) >= _F32_TO_INF:
            return None  # infinite in float32 (and numpy warns of the cast)
        cast = float(np.float32(value))
    elif dt == np.float64:
        cast = value
    else:
        return None
    if cast != cast or cast in (float("inf"), float("-inf")):
        return None
    return float(cast), _RUST_NAMES[dt.type]


def _ramp_pairs(dtype: np.dtype, ends):
    """``(compute type, [(start, start)] per axis)`` for the core, or None."""
    pairs = []
    compute = None
    for pair in ends:
        cells = [_ramp_end(end, dtype) for end in pair]
        if None in cells:
            return None
        for _, c in cells:
            if compute not in (None, c):
                return None  # one type for every ramp (rare: mixed end types)
            compute = c
        pairs.append((cells[0][0], cells[1][0]))
    return compute, pairs


def _ramps_in_rust(src: np.ndarray, padded: np.ndarray, shape, widths, ends,
                   threads: int = 0) -> bool:
    """The core pads ``src`` into ``padded`` with ramps; False where it declines (the
    input is in place then)."""
    core = _core_call(padded.dtype, shape, widths, "linear_ramp", ends)
    if _rust_name(padded) is None or core is None:
        np.copyto(padded[_area(src, widths)], src)
        return False
    return core[0](src, padded, *core[1], threads)


def _mode_pairs(mode: str, kwargs: dict, ndim: int):
    """A statistic mode's ``stat_length`` (default None) or linear_ramp's
    ``end_values`` (default 0), one pair an axis, as numpy.pad reads them."""
    if mode == "linear_ramp":
        return as_pairs(kwargs.get("end_values", 0), ndim)
    return as_pairs(kwargs.get("stat_length"), ndim, as_index=True)


def _core_call(dtype: np.dtype, shape, widths, mode: str, pairs):
    """The core's pad of an array of ``dtype`` and ``shape`` in a statistic mode or
    linear_ramp (``pairs``: its ``_mode_pairs``): the function and its arguments
    between the buffers and ``threads``; None where the core does not compute it
    (the type, or end values not of the ramp's type)."""
    name = _RUST_NAMES.get(dtype.type)
    if name is None or not dtype.isnative:
        return None
    if mode != "linear_ramp":
        lengths = [tuple(None if v is None else int(v) for v in p) for p in pairs]
        return _ndpad.pad_stat, (name, list(shape), widths, lengths, mode)
    ramps = _ramp_pairs(dtype, pairs)
    if ramps is None:
        return None
    return _ndpad.pad_ramp, (name, ramps[0], list(shape), widths, ramps[1])


def _pad_odd(array, widths, mode, out, threads):
    """reflect / symmetric with ``reflect_type='odd'`` (``_odd.pad_odd_box``), in
    numpy.pad's layout."""
    shape = tuple(n + b + a for n, (b, a) in zip(array.shape, widths))
    if array.size == 0 or odd_name(array.dtype) is None:
        return _into(out, numpy_pad(array, widths, mode, reflect_type="odd"), array)
    if out is None:
        # Written whole: memory from the output pool where it is large.
        out, _ = layout.new_output(shape, array.dtype, layout.numpy_axes(array),
                                   like=array)
    else:
        _check_out(out, shape, array.dtype, array)
    return pad_odd_box(array, array.shape, widths, mode, [(0, n) for n in array.shape],
                       [(0, n) for n in shape], out, threads)
