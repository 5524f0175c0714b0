"""What ``ndpad.pad`` (``_numpy.py``), ``ndpad.dask`` and the framework functions
share: ``numpy.pad``'s arguments normalized as numpy normalizes them (same
broadcasting, same casting, same exceptions), the outputs of the extension, the
constants of each side, and the one mode dispatch (``pad_one_mode``) that hands each
mode to a ``Padder``: numpy arrays' (``_numpy.py``) or dask arrays'
(``ndpad.dask``).

Every name here is public to the package: the modules import these, never each
other's private names (``python/tests/test_imports.py``).
"""

from __future__ import annotations

import math
import operator
import threading
import typing
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _ndpad

try:  # numpy's own pad, not ``np.pad``: users may set ``numpy.pad = ndpad.pad``
    from numpy.lib._arraypad_impl import pad as numpy_pad
except ImportError:  # pragma: no cover - numpy < 2
    numpy_pad = np.pad

STAT_FUNCTIONS = {
    "maximum": np.amax,
    "minimum": np.amin,
    "mean": np.mean,
    "median": np.median,
}
# The keywords each mode takes, as numpy.pad checks them.
ALLOWED_KWARGS = {
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
# The modes the kernel runs in one call (index maps, no arithmetic).
INDEX_MODES = frozenset(("constant", "edge", "reflect", "symmetric", "wrap"))
NEGATIVE_PADS = (None, "crop_first", "original_index")

_MODE_NAMES = {name: name for name in ALLOWED_KWARGS}


# ---------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------


#: numpy's NPY_NEEDS_INIT (``dtype.flags``): new arrays of the type are cleared.
_NEEDS_INIT = 0x08


def new_output(shape: Tuple[int, ...], dtype: np.dtype, order: str = "C",
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
        return _ndpad.empty_objects(shape, order == "F"), "zeroed"
    nbytes = dtype.itemsize * math.prod(shape)
    # Impossible shapes (negative or overflowing extents) get numpy's own errors.
    if (not dtype.hasobject and _ndpad.POOL_MIN_BYTES <= nbytes < 1 << 62
            and min(shape) >= 0):
        made = _ndpad.pooled_output(shape, dtype, order == "F", like)
        if made is not None:
            return made
        # Not mapped: numpy allocates it (or raises its MemoryError).
    alloc = written_dtype(dtype)
    if alloc is not dtype:
        try:
            return np.empty(shape, dtype=alloc, order=order).view(dtype), "written"
        except (ValueError, MemoryError):
            pass  # numpy's own error, naming the type, below
    return np.empty(shape, dtype=dtype, order=order), "written"


def written_dtype(dtype: np.dtype) -> np.dtype:
    """The type to allocate an output of ``dtype`` that the kernel writes whole as:
    ``dtype`` itself, or for a type numpy clears on allocation ('U' strings: a pass
    the kernel makes useless) bytes of its size, to be viewed as it."""
    if dtype.flags & _NEEDS_INIT and not dtype.hasobject and dtype.itemsize:
        return np.dtype((np.void, dtype.itemsize))
    return dtype


_REMEMBERING = threading.Lock()


def remember(cache: dict, key: Any, value: Any, limit: int) -> None:
    """Stores ``value`` under ``key`` in ``cache``, which holds at most ``limit``
    entries: the oldest is forgotten first (one thread at a time)."""
    with _REMEMBERING:
        if len(cache) >= limit:
            cache.pop(next(iter(cache)), None)
        cache[key] = value


def output_shape(shape: Sequence[int], widths, interiors) -> Tuple[int, ...]:
    """The padded shape of an array of ``shape`` (the core's shape function); a
    PadError where a crop leaves an axis a negative extent."""
    return tuple(_ndpad.numpy_output_shape(shape, [b for b, _ in widths],
                                           [a for _, a in widths], interiors))


# ---------------------------------------------------------------------------
# Arguments, normalized as numpy.pad normalizes them
# ---------------------------------------------------------------------------


def as_pairs(x: Any, ndim: int, as_index: bool = False, allow_negative: bool = False):
    """Broadcasts ``x`` to one ``(before, after)`` pair per axis, as numpy.pad does.

    An index argument (``as_index``: ``stat_length``) is converted here as numpy
    converts it (rounded, cast to ``intp``) and paired by the extension
    (``index_pairs``), with numpy's checks and messages; ``allow_negative`` skips
    the checks of its values. Other values (``constant_values``, ``end_values``) are
    arbitrary objects, which Rust cannot broadcast: they are paired here."""
    if x is None:
        return ((None, None),) * ndim
    x = np.array(x)
    if as_index:
        return index_pairs(np.round(x).astype(np.intp, copy=False), ndim, allow_negative)
    if x.ndim < 3:
        if x.size == 1:
            v = x.ravel()[0]
            return ((v, v),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            return ((x[0], x[1]),) * ndim
    return np.broadcast_to(x, (ndim, 2)).tolist()


def index_pairs(x: Any, ndim: int, allow_negative: bool) -> List[Tuple[int, int]]:
    """An integer array converted as numpy converts an index argument (``pad_width``,
    ``stat_length``) as one ``(before, after)`` pair of Python ints per axis: numpy's
    ``_as_pairs(x, ndim, as_index=True)``, its ValueErrors and messages included, in
    the extension (``ndpad_frontends::numpy::index_pairs``)."""
    return _ndpad.numpy_index_pairs(np.asarray(x, dtype=np.int64), ndim, allow_negative)


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


def normalize_widths(pad_width: Any, ndim: int, allow_negative: bool) -> list:
    """``pad_width`` as one ``(before, after)`` pair of Python ints per axis, from
    every form numpy.pad takes, with its exceptions."""
    pairs = _int_widths(pad_width, ndim)
    if pairs is not None:
        # numpy's rule (``index_pairs``) without a call: the values checked as given,
        # before broadcasting them (also to 0 axes). test_differential.py checks that
        # the two agree on every form taken here.
        if not allow_negative and any(b < 0 or a < 0 for b, a in pairs):
            raise ValueError("index can't contain negative values")
        return pairs * ndim if len(pairs) == 1 else pairs
    if isinstance(pad_width, dict):
        pad_width = _widths_from_dict(pad_width, ndim)
    pad_width = np.asarray(pad_width)
    if not pad_width.dtype.kind == "i":
        raise TypeError("`pad_width` must be of integral type.")
    # numpy's rounding and cast to intp leave integers as they are.
    return index_pairs(pad_width, ndim, allow_negative)


def check_negative_pads(negative_pads: Any) -> None:
    if negative_pads not in NEGATIVE_PADS:
        raise _ndpad.PadError(
            "negative_pads must be None, 'crop_first' or 'original_index', "
            f"not {negative_pads!r}"
        )


def _shown(value: Any) -> str:
    """``value`` for a message: its repr, shortened; its type where repr fails."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any object may be passed
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def integer(value: Any, name: str, low: int, high: int, range_text: str = "") -> int:
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


def threads(value: Optional[int]) -> int:
    """``threads=`` as the kernel takes it (None: 0, all cores)."""
    if value is None:
        return 0
    return integer(value, "threads", 0, 1024, "from 0 (all cores) to 1024")


def mode_name(mode: Any) -> str:
    """The mode name (a plain ``str``) that ``mode`` stands for, found as numpy.pad
    finds it: by looking it up among the names (so an object equal to and hashing as
    'constant', such as a ``str`` subclass, is 'constant'); an unhashable mode is a
    TypeError, any other unknown one a ValueError, numpy's messages."""
    try:
        return _MODE_NAMES[mode]
    except KeyError:
        raise ValueError(f"mode '{mode}' is not supported") from None


def parse_modes(mode: Any, ndim: int, kwargs: dict) -> Tuple[str, ...]:
    """One mode name per axis from a (non-callable) ``mode``, and the keywords checked
    against the modes, with numpy's exceptions."""
    modes: Tuple[str, ...]
    if isinstance(mode, (list, tuple)):
        given = tuple(mode)
        if len(given) != ndim or not all(isinstance(m, str) for m in given):
            raise ValueError(
                f"mode must be a mode name or one mode name per axis ({ndim} axes), "
                f"not {mode!r}"
            )
        modes = tuple(mode_name(m) for m in given)
        allowed = set().union(*(ALLOWED_KWARGS[m] for m in modes))
    else:
        name = mode_name(mode)
        modes = (name,) * ndim
        allowed = set(ALLOWED_KWARGS[name])
    unsupported = set(kwargs) - allowed
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    return modes


def parse_interior(interior: Any, modes: Sequence[str]) -> List[int]:
    """``interior=`` as one int per axis, for constant mode only."""
    ndim = len(modes)
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
    if any(values) and any(m != "constant" for m in modes):
        raise _ndpad.PadError("interior padding is for constant mode only")
    return [int(v) for v in values]


def refuse_extensions(negative_pads: Any, interior: Any, out: Any) -> None:
    """A callable mode (numpy's algorithm) takes none of ndpad's keywords."""
    if negative_pads is not None or np.any(np.asarray(interior) != 0) or out is not None:
        raise _ndpad.PadError(
            "a callable mode runs through numpy's algorithm: negative_pads, interior "
            "and out= are not available with it"
        )


def mode_groups(modes: Sequence[str], widths, interiors):
    """Consecutive axes of equal modes, each as ``(mode, widths, interiors)`` of the
    whole array, zero on the other axes: padded one after the other."""
    groups: list = []
    for axis, m in enumerate(modes):
        if groups and groups[-1][0] == m:
            groups[-1][1].add(axis)
        else:
            groups.append((m, {axis}))
    return [
        (m,
         [(b, a) if i in axes else (0, 0) for i, (b, a) in enumerate(widths)],
         [v if i in axes else 0 for i, v in enumerate(interiors)])
        for m, axes in groups
    ]


# ---------------------------------------------------------------------------
# Constants: one per side, written by the kernel (``PadSpec::sides``)
# ---------------------------------------------------------------------------


def cast(value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` cast to ``dtype`` by assignment, exactly as numpy.pad writes it."""
    cell = np.empty((), dtype=dtype)
    cell[()] = value
    return cell


def value_bytes(cell: np.ndarray) -> bytes:
    """The bytes of a cast constant (``cast``), as the kernel takes them."""
    return cell.reshape(1).view(np.uint8).tobytes()


def index_spec(itemsize: int, shape: Sequence[int], widths, interiors: Sequence[int],
               mode: str, values: Sequence[bytes], negative_pads: Optional[str],
               corners: str = "last") -> Any:
    """The kernel's spec of an index pad of elements of ``itemsize`` bytes:
    ``widths`` one ``(before, after)`` pair per axis of ``shape``; ``values`` the
    constants' bytes: none (zeros), one, or one per side (``before, after`` of each
    axis in turn); ``corners``: which axis's constant an element in the pads of
    several takes, numpy's "last", or "first" for an array given with its axes
    reversed (a Fortran-ordered array's transpose)."""
    return _ndpad.numpy_spec(itemsize, list(shape), [b for b, _ in widths],
                             [a for _, a in widths], list(interiors), mode, list(values),
                             negative_pads, corners)


def _same_object(x: Any, y: Any) -> bool:
    if x is y:
        return True
    try:
        return bool(x == y)
    except Exception:  # noqa: BLE001 - any object may be passed
        return False


def _one_word(value: bytes) -> bool:
    """Whether the kernel writes ``value`` as it is: one of its words (the widest of
    16, 8, 4, 2, 1 bytes dividing the element) repeated (``NumpyPad::resolve_bytes``)."""
    for width in (16, 8, 4, 2, 1):
        if len(value) % width == 0:
            return value == value[:width] * (len(value) // width)
    return True


class Constants(NamedTuple):
    """A constant pad's values (``constants``). ``cells``: per axis, each side's value
    cast to the dtype (0-d arrays). ``values``: each side's bytes as the kernel takes
    them (``before, after`` of each axis in turn); None where the kernel pads the
    elements' indices instead, to be gathered (``gather``): objects, or a constant that
    is not one kernel word repeated. ``fill``: for an object array whose sides all hold
    one object, the cell holding it (that object, None included, is ``fill[()]``),
    which the kernel writes (``Spec.execute_objects``); None otherwise."""

    cells: list
    values: Optional[List[bytes]]
    fill: Optional[np.ndarray]

    @property
    def indexed(self) -> bool:
        return self.values is None


def constants(dtype: np.dtype, values, interiors) -> Constants:
    """Each side's constant (``values``, as ``as_pairs`` gives them) cast to ``dtype``
    as numpy.pad casts it. Interior padding takes one value."""
    # A scalar constant is one object on every side: cast (and read) once.
    cast_once: Dict[int, np.ndarray] = {}

    def cell(v: Any) -> np.ndarray:
        c = cast_once.get(id(v))
        if c is None:
            c = cast_once[id(v)] = cast(v, dtype)
        return c

    cells = [(cell(b), cell(a)) for b, a in values]
    flat = [c for pair in cells for c in pair]
    if dtype.hasobject:
        # Object (or object-holding structured) cells have no bytes to compare.
        first = flat[0][()] if flat else None
        same = all(_same_object(c[()], first) for c in flat)
        if any(interiors) and not same:
            raise _ndpad.PadError(
                "interior padding takes one constant value, not one per side")
        one = bool(flat) and dtype == np.object_ and all(c[()] is first for c in flat)
        return Constants(cells, None, flat[0] if one else None)
    read = {id(c): value_bytes(c) for c in cast_once.values()}
    raw = [read[id(c)] for c in flat]
    if any(interiors) and len(set(raw)) > 1:
        raise _ndpad.PadError("interior padding takes one constant value, not one per side")
    if not all(_one_word(v) for v in set(raw)):
        return Constants(cells, None, None)
    return Constants(cells, raw, None)


def index_values(ndim: int, interiors) -> List[bytes]:
    """The constants of an index pad of a ``gather``: each side its own negative
    index, which reads its constant from the end of the gather's table (one, the
    first side's, where interior padding puts constants inside)."""
    count = 2 * ndim
    if any(interiors):
        return [np.array(-count, dtype=np.intp).tobytes()]
    return [np.array(j - count, dtype=np.intp).tobytes() for j in range(count)]


def gather(result: np.ndarray, src: np.ndarray, picked: np.ndarray,
           cells: Optional[list]) -> None:
    """Elements padded on their indices: ``result`` gathers the elements of ``src``
    whose indices the kernel padded into ``picked``, the constants (``cells``, in a
    constant pad) at the negative indices ``index_values`` gave each side, so
    reference counts stay right."""
    if cells is None:
        if src.size:
            result[...] = src.reshape(-1)[picked]
        return
    flat = [c for pair in cells for c in pair]
    table = np.empty(src.size + len(flat), dtype=src.dtype)
    table[:src.size] = src.reshape(-1)
    for j, c in enumerate(flat):
        table[src.size + j] = c[()]
    result[...] = table[picked]


# ---------------------------------------------------------------------------
# The mode dispatch
# ---------------------------------------------------------------------------


def along(axis: int, sl: slice) -> tuple:
    """The index of ``sl`` along ``axis``, every earlier axis whole."""
    return (slice(None),) * axis + (sl,)


def empty_axis_check(shape: Sequence[int], widths) -> None:
    """numpy's error for an empty axis padded in a mode that reads the array."""
    for axis, pair in enumerate(widths):
        if shape[axis] == 0 and any(pair):
            raise ValueError(
                f"can't extend empty axis {axis} using modes other than "
                "'constant' or 'empty'"
            )


def reflects_oddly(shape: Sequence[int], widths, kwargs: dict) -> bool:
    """Whether reflect / symmetric reflect oddly. numpy compares ``reflect_type`` with
    'odd' only on an axis it reflects (padded, longer than one element), so only then
    does an unusual value (an array) raise its error; any other value is 'even'."""
    reflects = any(n > 1 and (b > 0 or a > 0) for n, (b, a) in zip(shape, widths))
    return reflects and bool(kwargs.get("reflect_type", "even") == "odd")


def _refuse_negative(negative_pads: Any, widths, what: str) -> None:
    if negative_pads is not None and any(b < 0 or a < 0 for b, a in widths):
        raise _ndpad.PadError(f"{what} does not take negative pads")


class Padder:
    """How one kind of array is padded in each family of modes; ``pad_one_mode``
    picks the method, after numpy's checks, in numpy's order."""

    __slots__ = ()

    def index(self, array: Any, widths, mode: str, values, negative_pads: Any,
              interiors) -> Any:
        """The index modes: 'constant' (``values``: each side's constant, as
        ``as_pairs`` gives them), 'edge', 'reflect', 'symmetric', 'wrap' (``values``
        None)."""
        raise NotImplementedError

    def empty(self, array: Any, shape: Tuple[int, ...]) -> Any:
        """The result of ``shape`` (no element) of an array with no element."""
        raise NotImplementedError

    def odd(self, array: Any, widths, mode: str) -> Any:
        """reflect or symmetric with ``reflect_type='odd'`` (numpy's algorithm)."""
        raise NotImplementedError

    def ramps(self, array: Any, widths, kwargs: dict) -> Any:
        """linear_ramp."""
        raise NotImplementedError

    def stats(self, array: Any, widths, mode: str, kwargs: dict) -> Any:
        """maximum, mean, median, minimum."""
        raise NotImplementedError


def pad_one_mode(padder: Padder, array: Any, widths, mode: str, kwargs: dict,
                 negative_pads: Any, interiors) -> Any:
    """``array`` padded in one mode by ``padder``, with numpy.pad's checks (and
    ndpad's) in numpy's order."""
    if mode == "constant":
        values = as_pairs(kwargs.get("constant_values", 0), array.ndim)
        return padder.index(array, widths, "constant", values, negative_pads, interiors)
    if mode == "empty":
        zero = as_pairs(0, array.ndim)
        return padder.index(array, widths, "constant", zero, negative_pads, interiors)
    if math.prod(array.shape) == 0:
        empty_axis_check(array.shape, widths)
        return padder.empty(array, output_shape(array.shape, widths, interiors))
    if mode in ("reflect", "symmetric") and reflects_oddly(array.shape, widths, kwargs):
        _refuse_negative(negative_pads, widths, "reflect_type='odd'")
        return padder.odd(array, widths, mode)
    if mode in INDEX_MODES and mode != "constant":
        return padder.index(array, widths, mode, None, negative_pads, interiors)
    _refuse_negative(negative_pads, widths, f"mode '{mode}'")
    if mode == "linear_ramp":
        return padder.ramps(array, widths, kwargs)
    return padder.stats(array, widths, mode, kwargs)
