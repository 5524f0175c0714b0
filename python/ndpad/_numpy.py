"""``ndpad.pad``: a drop-in for ``numpy.pad``.

This layer only normalizes arguments the way ``numpy.pad`` does (same broadcasting,
same casting, same exceptions) and hands the padding to the Rust core:

* the index modes (constant, edge, reflect, symmetric, wrap, empty) are one call of
  the core's kernel, reading the input in place and writing each output element once;
* the statistic modes (maximum, mean, median, minimum) and linear_ramp: the core
  (``ndpad::stats``) copies the input into place and computes each statistic (or
  ramp) once per line, axis after axis as numpy does, in numpy's order of summation,
  bit for bit numpy's; for the types it does not compute (float16, complex, bool,
  datetime, object, ml_dtypes, non-native byte order), F-ordered results, and the
  values where numpy's result depends on more than the values (NaN payloads, -0.0
  beside +0.0 in a maximum, an overflow numpy warns of), numpy's own reductions run
  on the same views ``numpy.pad`` uses;
* ``reflect_type='odd'`` and a callable ``mode`` run through numpy's own algorithm.
"""

from __future__ import annotations

import math
import operator
import sys
import typing
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from . import _dlpack
from . import _ndpad

try:  # numpy's own pad, not ``np.pad``: users may set ``numpy.pad = ndpad.pad``
    from numpy.lib._arraypad_impl import pad as _numpy_pad
except ImportError:  # pragma: no cover - numpy < 2
    _numpy_pad = np.pad

__all__ = ["pad"]

# What numpy's ``array_function_dispatch`` compares a type's ``__array_function__`` with.
_NDARRAY_ARRAY_FUNCTION = np.ndarray.__array_function__

_INDEX_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "empty")
_STAT_FUNCTIONS = {
    "maximum": np.amax,
    "minimum": np.amin,
    "mean": np.mean,
    "median": np.median,
}
_ALLOWED_KWARGS = {
    "empty": (),
    "edge": (),
    "wrap": (),
    "constant": ("constant_values",),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",),
    "mean": ("stat_length",),
    "median": ("stat_length",),
    "minimum": ("stat_length",),
    "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}
_NEGATIVE_PADS = (None, "crop_first", "original_index")


def _new_output(shape: Tuple[int, ...], dtype: np.dtype, order: str = "C",
                zeros: bool = False, like: Optional[np.ndarray] = None
                ) -> Tuple[np.ndarray, str]:
    """A new output array and what its memory holds for the kernel: "written" (reused
    memory, written whole by the kernel), "fresh", or "zeroed" (the kernel then leaves
    runs of a zero constant to the zero pages).

    Outputs of at least ``_ndpad.POOL_MIN_BYTES`` (the core's bound, 32 MiB) come
    from the core's pool of output buffers (``ndpad::PooledBuffer``): an earlier
    output of the same size that numpy has freed, its pages already faulted in
    ("written"), or freshly mapped zero pages ("zeroed"), starting where ``like``
    (the input) starts in its cache line, so that long copies between the two are
    aligned alike; the array's base returns the buffer to the pool when numpy frees
    it (docs/performance.md, "Fresh outputs written once"). Smaller ones may be heap
    memory the allocator reuses. (``zeros``: the caller's constant is zero; a new
    mapping is zeroed anyway.)"""
    if dtype == np.object_:
        # Null pointers (shown as None) for Spec.execute_objects: no None to release.
        return _ndpad.empty_objects(shape, order == "F"), "written"
    nbytes = dtype.itemsize * math.prod(shape)
    # Impossible shapes (negative or overflowing extents) get numpy's own errors.
    if (not dtype.hasobject and _ndpad.POOL_MIN_BYTES <= nbytes < 1 << 62
            and min(shape) >= 0):
        made = _ndpad.pooled_output(shape, dtype, order == "F", like)
        if made is not None:
            return made
        # Not mapped: numpy allocates it (or raises its MemoryError).
    return np.empty(shape, dtype=dtype, order=order), "written"


def _as_pairs(x: Any, ndim: int, as_index: bool = False, allow_negative: bool = False):
    """Broadcasts ``x`` to one ``(before, after)`` pair per axis, as numpy.pad does."""
    if x is None:
        return ((None, None),) * ndim
    x = np.array(x)
    if as_index:
        x = np.round(x).astype(np.intp, copy=False)
    check = as_index and not allow_negative
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if check and x < 0:
                raise ValueError("index can't contain negative values")
            v = x[0]
            return ((v, v),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if check and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0], x[1]),) * ndim
    if check and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return np.broadcast_to(x, (ndim, 2)).tolist()


def _widths_from_dict(pad_width: dict, ndim: int) -> list:
    seq = [(0, 0)] * ndim
    for axis, width in pad_width.items():
        if isinstance(width, int):
            seq[axis] = width, width
        elif (
            isinstance(width, tuple)
            and len(width) == 2
            and all(isinstance(w, int) for w in width)
        ):
            seq[axis] = width[0], width[1]
        else:
            typing.assert_never(width)  # numpy's AssertionError, message and all
    return seq


def _is_int64(v: Any) -> bool:
    return type(v) is int and -(1 << 63) <= v < (1 << 63)


def _int_widths(pad_width: Any, ndim: int) -> Optional[list]:
    """The common ``pad_width`` forms made of Python ints (``n``, ``(n,)``,
    ``(before, after)``, ``((before, after),)``, one pair per axis) as one pair, or one
    per axis, without numpy calls, which cost a small pad most of its time (a cold
    cache makes each one slow); ``None`` for any other form."""
    if _is_int64(pad_width):
        return [(pad_width, pad_width)]
    if type(pad_width) not in (tuple, list) or not pad_width:
        return None
    if len(pad_width) <= 2 and all(_is_int64(v) for v in pad_width):
        return [(pad_width[0], pad_width[-1])]
    pairs = [
        (p[0], p[1])
        for p in pad_width
        if type(p) in (tuple, list) and len(p) == 2 and _is_int64(p[0]) and _is_int64(p[1])
    ]
    if len(pairs) != len(pad_width) or len(pairs) not in (1, ndim):
        return None
    return pairs


def _normalize_widths(array: np.ndarray, pad_width: Any, allow_negative: bool):
    pairs = _int_widths(pad_width, array.ndim)
    if pairs is not None:
        # numpy checks the values as given, before broadcasting them (also to 0 axes).
        if not allow_negative and any(b < 0 or a < 0 for b, a in pairs):
            raise ValueError("index can't contain negative values")
        return pairs * array.ndim if len(pairs) == 1 else pairs
    if isinstance(pad_width, dict):
        pad_width = _widths_from_dict(pad_width, array.ndim)
    pad_width = np.asarray(pad_width)
    if not pad_width.dtype.kind == "i":
        raise TypeError("`pad_width` must be of integral type.")
    pairs = _as_pairs(pad_width, array.ndim, as_index=True, allow_negative=allow_negative)
    return [(int(b), int(a)) for b, a in pairs]


def _normalize_modes(mode: Any, ndim: int) -> Tuple[str, ...]:
    modes = tuple(mode)
    if len(modes) != ndim or not all(isinstance(m, str) for m in modes):
        raise ValueError(
            f"mode must be a mode name or one mode name per axis ({ndim} axes), "
            f"not {mode!r}"
        )
    return modes


def _cast(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` cast to ``dtype`` by assignment, exactly as numpy.pad writes it."""
    cell = np.empty((), dtype=dtype)
    cell[()] = value
    return cell


def _shown(value: Any) -> str:
    """``value`` for a message: its repr, shortened; its type where repr fails."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any object may be passed
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def _integer(value: Any, name: str, low: int, high: int, range_text: str = "") -> int:
    """``value`` as a Python int from ``low`` to ``high``: the one check of the integer
    arguments handed to the extension as they are (``threads=`` of every function;
    the frameworks' ``opset=``, integer lists and dims). An integer of any kind
    (``int``, numpy integers, ``__index__``) is taken; anything else (a float, a str)
    is a TypeError, a value out of range a ValueError; both messages name the value
    and the range (``range_text``, else ``low`` to ``high``)."""
    allowed = range_text or f"from {low} to {high}"
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{name} must be an integer {allowed}, not {_shown(value)} "
            f"({type(value).__name__})") from None
    if not low <= v <= high:
        raise ValueError(f"{name} must be an integer {allowed}, not {v}")
    return v


def _threads(threads: Optional[int]) -> int:
    """``threads=`` as the kernel takes it (None: 0, all cores)."""
    if threads is None:
        return 0
    return _integer(threads, "threads", 0, 1024, "from 0 (all cores) to 1024")


@_dlpack.accepting
def pad(
    array: Any,
    pad_width: Any,
    mode: Any = "constant",
    *,
    negative_pads: Optional[str] = None,
    interior: Any = 0,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
    **kwargs: Any,
) -> np.ndarray:
    """Pad an array: ``numpy.pad``'s result, bit for bit, computed by ndpad's kernel.

    Parameters
    ----------
    array : array_like of rank N
        The array to pad. Any dtype numpy has (bool, integers, floats, complex,
        ``U`` / ``S`` strings, datetime64 / timedelta64, structured / void, object,
        and ml_dtypes' bfloat16, float8_*, int4 / uint4, float4_e2m1fn, int2 / uint2)
        and any memory layout. C- and F-contiguous arrays, and arrays whose rows
        are in C order with their other axes apart (slices such as ``a[::2, 1:-1]``),
        are read in place; other layouts (a step on the last axis, negative
        strides) are copied once first.
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
        dtype, writable, not overlapping the input. Returned. A pad stopped by
        Ctrl-C (``KeyboardInterrupt``, raised within a part of the pad) leaves it
        partly written.
    threads : int, optional
        Beyond numpy: threads for the kernel, 0 to 1024; None or 0 uses all cores.
        The statistic modes and linear_ramp split only the copy of the input (with
        the last axis's pads) among them.
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
    """
    if type(array) is not np.ndarray and _overrides(array):
        return _dispatch(array, pad_width, mode, negative_pads, interior, out, threads,
                         kwargs)
    array = np.asarray(array)
    if negative_pads not in _NEGATIVE_PADS:
        raise _ndpad.PadError(
            "negative_pads must be None, 'crop_first' or 'original_index', "
            f"not {negative_pads!r}"
        )
    widths = _normalize_widths(array, pad_width, negative_pads is not None)
    nthreads = _threads(threads)

    if callable(mode):
        _refuse_extensions(mode, negative_pads, interior, out)
        return _numpy_pad(array, widths, mode, **kwargs)

    modes = _parse_modes(mode, array.ndim, kwargs)

    interiors = _normalize_interior(interior, array.ndim)
    if any(interiors) and any(m != "constant" for m in modes):
        raise _ndpad.PadError("interior padding is for constant mode only")

    if array.ndim == 0:
        # numpy still broadcasts (and checks) the mode's values for no axes.
        names = set() if isinstance(mode, (list, tuple)) else {_mode_name(mode)}
        for m in set(modes) | names:
            if m == "constant":
                _as_pairs(kwargs.get("constant_values", 0), 0)
            elif m == "linear_ramp":
                _as_pairs(kwargs.get("end_values", 0), 0)
            elif m in _STAT_FUNCTIONS:
                _as_pairs(kwargs.get("stat_length"), 0, as_index=True)
        # numpy's ``padded[()] = array``: an object array gets the input array itself
        # as its element.
        result = np.empty((), dtype=array.dtype)
        result[()] = array
        return _into(out, result, array)

    groups = _groups(modes)
    if len(groups) > 1:
        result = array
        for m, axes in groups:
            part = [(b, a) if i in axes else (0, 0) for i, (b, a) in enumerate(widths)]
            part_interior = [v if i in axes else 0 for i, v in enumerate(interiors)]
            result = _pad_one_mode(
                result, part, m, kwargs, negative_pads, part_interior, None, nthreads
            )
        return _into(out, result, array)
    return _pad_one_mode(array, widths, modes[0], kwargs, negative_pads, interiors, out, nthreads)


def _overrides(array: Any) -> bool:
    """Whether ``numpy.pad`` hands ``array`` to another implementation, as numpy's
    ``array_function_dispatch`` decides it: ``numpy.pad``'s dispatcher names the array
    only, and an argument counts when its type defines an ``__array_function__``
    other than ``numpy.ndarray``'s (looked up on the type, not the instance)."""
    method = getattr(type(array), "__array_function__", _NDARRAY_ARRAY_FUNCTION)
    return method is not _NDARRAY_ARRAY_FUNCTION


def _dispatch(array: Any, pad_width: Any, mode: Any, negative_pads: Any, interior: Any,
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
    return _numpy_pad(array, pad_width, mode, **kwargs)


_MODE_NAMES = {name: name for name in _ALLOWED_KWARGS}


def _mode_name(mode: Any) -> str:
    """The mode name (a plain ``str``) that ``mode`` stands for, found as numpy.pad
    finds it: by looking it up among the names (so an object equal to and hashing as
    'constant', such as a ``str`` subclass, is 'constant'); an unhashable mode is a
    TypeError, any other unknown one a ValueError, numpy's messages."""
    try:
        return _MODE_NAMES[mode]
    except KeyError:
        raise ValueError(f"mode '{mode}' is not supported") from None


def _parse_modes(mode: Any, ndim: int, kwargs: dict) -> Tuple[str, ...]:
    """One mode name per axis from a (non-callable) ``mode``, and the keywords checked
    against the modes, with numpy's exceptions."""
    modes: Tuple[str, ...]
    if isinstance(mode, (list, tuple)):
        modes = tuple(_mode_name(m) for m in _normalize_modes(mode, ndim))
        allowed = set().union(*(_ALLOWED_KWARGS[m] for m in modes))
    else:
        name = _mode_name(mode)
        modes = (name,) * ndim
        allowed = set(_ALLOWED_KWARGS[name])
    unsupported = set(kwargs) - allowed
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    return modes


def _refuse_extensions(mode: Any, negative_pads: Any, interior: Any, out: Any) -> None:
    if negative_pads is not None or np.any(np.asarray(interior) != 0) or out is not None:
        raise _ndpad.PadError(
            "a callable mode runs through numpy's algorithm: negative_pads, interior "
            "and out= are not available with it"
        )


def _normalize_interior(interior: Any, ndim: int) -> list:
    if type(interior) is int and interior == 0:
        return [0] * ndim
    values = np.asarray(interior)
    if values.dtype.kind not in "iu":
        raise TypeError("`interior` must be of integral type.")
    if values.ndim == 0:
        values = np.full(ndim, int(values))
    if values.shape != (ndim,):
        raise _ndpad.PadError(
            f"interior must be one integer or one per axis ({ndim} axes), "
            f"not shape {values.shape}"
        )
    if (values < 0).any():
        raise _ndpad.PadError(f"interior must not be negative: {values.tolist()}")
    return [int(v) for v in values]


def _groups(modes: Sequence[str]):
    """Consecutive axes of equal modes: [(mode, {axes})]."""
    groups: list = []
    for axis, m in enumerate(modes):
        if groups and groups[-1][0] == m:
            groups[-1][1].add(axis)
        else:
            groups.append((m, {axis}))
    return groups


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


def _output_shape(array: np.ndarray, widths, interiors) -> Tuple[int, ...]:
    shape = []
    for axis, (n, (b, a), i) in enumerate(zip(array.shape, widths, interiors)):
        spread = (n - 1) * (i + 1) + 1 if n else 0
        dim = b + spread + a
        if dim < 0:
            raise _ndpad.PadError(
                f"axis {axis}: pads ({b}, {a}) leave a negative extent {dim} "
                f"of an axis of {n} elements"
            )
        shape.append(dim)
    return tuple(shape)


def _empty_axis_check(array: np.ndarray, widths) -> None:
    for axis, pair in enumerate(widths):
        if array.shape[axis] == 0 and any(pair):
            raise ValueError(
                f"can't extend empty axis {axis} using modes other than "
                "'constant' or 'empty'"
            )


def _pad_one_mode(array, widths, mode, kwargs, negative_pads, interiors, out, threads):
    if mode == "constant":
        values = _as_pairs(kwargs.get("constant_values", 0), array.ndim)
        return _pad_constant(array, widths, values, negative_pads, interiors, out, threads)
    if mode == "empty":
        zero = _as_pairs(0, array.ndim)
        return _pad_constant(array, widths, zero, negative_pads, interiors, out, threads)
    if array.size == 0:
        _empty_axis_check(array, widths)
        shape = _output_shape(array, widths, interiors)
        result = np.empty(shape, dtype=array.dtype, order=_order(array))
        return _into(out, result, array)
    if mode in ("reflect", "symmetric") and _odd(array, widths, kwargs):
        if negative_pads is not None and any(b < 0 or a < 0 for b, a in widths):
            raise _ndpad.PadError("reflect_type='odd' does not take negative pads")
        result = _numpy_pad(array, widths, mode, reflect_type="odd")
        return _into(out, result, array)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return _run(array, widths, mode, None, negative_pads, interiors, out, threads)
    if negative_pads is not None and any(b < 0 or a < 0 for b, a in widths):
        raise _ndpad.PadError(f"mode '{mode}' does not take negative pads")
    if mode == "linear_ramp":
        return _pad_ramps(array, widths, kwargs, out, threads)
    return _pad_stats(array, widths, mode, kwargs, out, threads)


def _odd(array: np.ndarray, widths, kwargs) -> bool:
    """Whether reflect / symmetric reflect oddly. numpy compares ``reflect_type`` with
    'odd' only on an axis it reflects (padded, longer than one element), so only then
    does an unusual value (an array) raise its error; any other value is 'even'."""
    reflects = any(n > 1 and (b > 0 or a > 0) for n, (b, a) in zip(array.shape, widths))
    return reflects and bool(kwargs.get("reflect_type", "even") == "odd")


def _order(array: np.ndarray) -> str:
    return "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"


def _value_bytes(cell: np.ndarray) -> bytes:
    return cell.reshape(1).view(np.uint8).tobytes()


def _pad_constant(array, widths, values, negative_pads, interiors, out, threads):
    memory = "written"
    if out is None:
        # numpy allocates the output before it casts the constants: its errors first.
        shape = _output_shape(array, widths, interiors)
        out, memory = _new_output(shape, array.dtype, _order(array), zeros=True, like=array)
    # A scalar constant is one object on every side: cast (and read) once.
    cast: Dict[int, np.ndarray] = {}

    def cell(v: Any) -> np.ndarray:
        c = cast.get(id(v))
        if c is None:
            c = cast[id(v)] = _cast(v, array.dtype)
        return c

    cells = [(cell(b), cell(a)) for b, a in values]
    if array.dtype.hasobject:
        # Object (or object-holding structured) cells have no bytes to compare.
        fill = cells[0][0][()]
        if any(interiors) and not all(_same_object(c[()], fill)
                                      for pair in cells for c in pair):
            raise _ndpad.PadError(
                "interior padding takes one constant value, not one per side")
        if array.dtype != np.object_:
            return _pad_objects(array, widths, "constant", cells, negative_pads, interiors,
                                out, threads)
        # The kernel writes the first side's object everywhere; numpy the sides that
        # hold another.
        result = _run(array, widths, "constant", None, negative_pads, interiors, out, threads,
                      fill=fill)
        sides = {
            (axis, side)
            for axis in range(array.ndim)
            for side in (0, 1)
            if cells[axis][side][()] is not fill
        }
        _rewrite_sides(result, array.shape, widths, cells, sides)
        return result
    read = {id(c): _value_bytes(c) for c in cast.values()}
    raw = [read[id(c)] for pair in cells for c in pair]
    if any(interiors) and len(set(raw)) > 1:
        raise _ndpad.PadError("interior padding takes one constant value, not one per side")
    base = max(set(raw), key=raw.count) if raw else bytes(array.dtype.itemsize)
    result = _run(array, widths, "constant", base, negative_pads, interiors, out, threads,
                  memory=memory)
    partial = _base_is_partial(base, array.dtype.itemsize)
    sides = {
        (axis, side)
        for axis in range(array.ndim)
        for side in (0, 1)
        if partial or raw[2 * axis + side] != base
    }
    if partial and any(interiors):
        # Interior elements: the kernel wrote the constant's first word only.
        mask = _run(np.ones(array.shape, dtype=np.bool_), widths, "constant", b"\0",
                    negative_pads, interiors, None, threads)
        result[~mask] = cells[0][0]
    _rewrite_sides(result, array.shape, widths, cells, sides)
    return result


def _same_object(x: Any, y: Any) -> bool:
    if x is y:
        return True
    try:
        return bool(x == y)
    except Exception:  # noqa: BLE001 - an object without a usable ``==``
        return False


def _base_is_partial(base: bytes, itemsize: int) -> bool:
    """True when the kernel writes only part of the constant (see ``numpy_spec``)."""
    for width in (16, 8, 4, 2, 1):
        if itemsize % width == 0:
            return base != base[:width] * (itemsize // width)
    return False


def _data_area(n: int, b: int, a: int, out_n: int) -> slice:
    # Clipped at 0: a crop can leave an axis shorter than its after-pad.
    start = max(b, 0)
    return slice(start, max(out_n - max(a, 0), 0))


def _rewrite_sides(result, in_shape, widths, cells, sides):
    """Writes each side's constant (``cells[axis][side]``) for the ``(axis, side)``
    pairs in ``sides``.

    A pad element belongs to the last axis in which it is padding: the region of
    axis ``i`` spans every axis before it whole and the data of every axis after it,
    so every element is written at most once, and corners take the last axis's value,
    as numpy.pad gives them.
    """
    if not sides:
        return
    areas = [
        _data_area(n, b, a, result.shape[k])
        for k, (n, (b, a)) in enumerate(zip(in_shape, widths))
    ]
    for axis, side in sorted(sides):
        b, a = widths[axis]
        width = (b, a)[side]
        if width <= 0:
            continue
        n = result.shape[axis]
        here = slice(0, b) if side == 0 else slice(max(n - a, 0), n)
        result[(slice(None),) * axis + (here,) + tuple(areas[axis + 1:])] = cells[axis][side]


def _run(array, widths, mode, value, negative_pads, interiors, out, threads,
         memory="written", fill=None):
    """One call of the kernel: the index modes. ``memory``: what ``out`` holds,
    "written", or "fresh" / "zeroed" when allocated just before by ``numpy.empty`` /
    ``numpy.zeros`` and never written (``ndpad::OutputMemory``). Object arrays are
    padded on their pointers (``Spec.execute_objects``), ``fill`` the constant."""
    src = array
    fortran = src.flags.f_contiguous and not src.flags.c_contiguous
    if src.dtype.hasobject and src.dtype != np.object_:
        return _pad_objects(array, widths, mode, None, negative_pads, interiors, out, threads)
    shape, pads, inner = src.shape, widths, interiors
    if fortran:
        shape, pads, inner = shape[::-1], pads[::-1], inner[::-1]
        src = src.T
    spec = _ndpad.numpy_spec(
        src.dtype.itemsize,
        list(shape),
        [b for b, _ in pads],
        [a for _, a in pads],
        list(inner),
        mode,
        value,
        negative_pads,
    )
    if not (src.flags.c_contiguous or spec.reads_in_place(src)):
        # Rows not in C order (a transpose, a step on the last axis, negative
        # strides): copied once.
        src = np.ascontiguousarray(src)
    out_shape = tuple(spec.output_shape)
    full_shape = out_shape[::-1] if fortran else out_shape
    order = "F" if fortran else "C"
    if out is not None:
        _check_out(out, full_shape, array.dtype, array)
        fits = out.flags.f_contiguous if fortran else out.flags.c_contiguous
        if not fits:
            result = _run(array, widths, mode, value, negative_pads, interiors, None, threads,
                          fill=fill)
            np.copyto(out, result)
            return out
        dst = out
    else:
        dst, memory = _new_output(full_shape, array.dtype, order, like=src)
    if src.dtype == np.object_:
        spec.execute_objects(src, dst.T if fortran else dst, threads, fill)
    else:
        spec.execute(src, dst.T if fortran else dst, threads, memory)
    return dst


def _pad_objects(array, widths, mode, cells, negative_pads, interiors, out, threads):
    """Structured arrays holding objects: the kernel pads the elements' indices (-1 for
    the constant); numpy gathers the elements, so reference counts stay right, and
    writes the constants. (Plain object arrays go through ``_run``.)"""
    if mode == "constant" and cells is None:
        cells = [(_cast(0, array.dtype), _cast(0, array.dtype))] * array.ndim
    index = np.arange(array.size, dtype=np.intp).reshape(array.shape)
    value = np.array(-1, dtype=np.intp).tobytes() if mode == "constant" else None
    picked = _run(index, widths, mode, value, negative_pads, interiors, None, threads)
    if out is not None:
        _check_out(out, picked.shape, array.dtype, array)
        result = out
    else:
        result = np.empty(picked.shape, dtype=array.dtype, order=_order(array))
    if array.size:
        result[...] = array.reshape(-1)[picked]
    if mode == "constant":
        if any(interiors):
            result[picked < 0] = cells[0][0]
        else:
            every = {(axis, side) for axis in range(array.ndim) for side in (0, 1)}
            _rewrite_sides(result, array.shape, widths, cells, every)
    return result


def _simple(array, widths, out, threads):
    """numpy's ``_pad_simple``: the input written into place by the kernel (the pad
    areas hold zeros until the caller fills them)."""
    return _run(array, widths, "constant", None, None, [0] * array.ndim, out, threads)


def _roi(padded, area, axis):
    return padded[(slice(None),) * (axis + 1) + area[axis + 1:]]


def _at(axis, sl):
    return (slice(None),) * axis + (sl,) + (...,)


def _set_sides(roi, axis, pair, values):
    roi[_at(axis, slice(None, pair[0]))] = values[0]
    roi[_at(axis, slice(roi.shape[axis] - pair[1], None))] = values[1]


def _area(array, widths):
    return tuple(slice(b, b + n) for n, (b, _) in zip(array.shape, widths))


def _pad_stats(array, widths, mode, kwargs, out, threads):
    func = _STAT_FUNCTIONS[mode]
    pair = _core_pair(array, widths, out)  # numpy allocates, then reads stat_length
    padded = _simple(array, widths, out, threads) if pair is None else pair[2]
    lengths = _as_pairs(kwargs.get("stat_length"), array.ndim, as_index=True)
    if pair is not None and _ndpad.pad_stat(
        pair[1], padded, pair[0], list(array.shape), widths,
        [tuple(None if v is None else int(v) for v in p) for p in lengths], mode, threads,
    ):
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
        left_stat = func(roi[_at(axis, slice(lo, lo + left))], axis=axis, keepdims=True)
        if integer:
            left_stat.round(out=left_stat)
        if left == right == full:
            right_stat = left_stat
        else:
            right_stat = func(roi[_at(axis, slice(hi - right, hi))], axis=axis, keepdims=True)
            if integer:
                right_stat.round(out=right_stat)
        _set_sides(roi, axis, pair, (left_stat, right_stat))
    return padded


def _pad_ramps(array, widths, kwargs, out, threads):
    pair = _core_pair(array, widths, out)  # numpy allocates, then reads end_values
    padded = _simple(array, widths, out, threads) if pair is None else pair[2]
    ends = _as_pairs(kwargs.get("end_values", 0), array.ndim)
    if pair is not None and _ramps_in_rust(pair[1], padded, array.shape, widths, ends,
                                           threads):
        return padded
    # numpy's own linspace: the types and cases the core declines.
    area = _area(array, widths)
    for axis, (pair, end_pair) in enumerate(zip(widths, ends)):
        roi = _roi(padded, area, axis)
        lo = pair[0]
        hi = roi.shape[axis] - pair[1]
        edges = (roi[_at(axis, slice(lo, lo + 1))], roi[_at(axis, slice(hi - 1, hi))])
        left, right = (
            np.linspace(start=end, stop=edge.squeeze(axis), num=width, endpoint=False,
                        dtype=padded.dtype, axis=axis)
            for end, edge, width in zip(end_pair, edges, pair)
        )
        _set_sides(roi, axis, pair, (left, right[_at(axis, slice(None, None, -1))]))
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
        dst = np.empty(shape, dtype=array.dtype)
    else:
        _check_out(out, shape, array.dtype, array)
        dst = out
    name = _rust_name(dst)
    if name is None or not src.flags.aligned:
        return None
    return name, src, dst


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
    with np.errstate(all="ignore"):
        dt = np.linspace(end, np.zeros((), dtype), 1, endpoint=False).dtype
        if dt == np.float32:
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
    name = _rust_name(padded)
    ramps = _ramp_pairs(padded.dtype, ends)
    if name is None or ramps is None:
        np.copyto(padded[_area(src, widths)], src)
        return False
    return _ndpad.pad_ramp(src, padded, name, ramps[0], list(shape), widths, ramps[1],
                           threads)
