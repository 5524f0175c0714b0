"""``reflect_type='odd'`` of ``ndpad.pad`` and ``ndpad.dask.pad``: a box of numpy's
odd reflection computed by the Rust numpy front end (``_ndpad.pad_odd_window``) for
the types it computes (``odd_name``), with numpy's floating-point reports; numpy's
own algorithm on the box's region for the others, and where numpy would report.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from . import _ndpad
from ._dispatch import numpy_pad


# The dtypes whose odd reflection the Rust front end computes, by numpy's kind and size.
_ODD_NAMES = {
    ("b", 1): "bool",
    ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
    ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
    ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64",
    ("c", 8): "complex64", ("c", 16): "complex128",
}


def odd_name(dtype: np.dtype) -> Optional[str]:
    """The core's name of ``dtype`` where the Rust front end computes its odd
    reflection (native byte order), else None (numpy's own algorithm)."""
    if not dtype.isnative or dtype.hasobject:
        return None
    if dtype.kind == "V" and dtype.name == "bfloat16" and dtype.itemsize == 2:
        return "bfloat16"  # ml_dtypes
    return _ODD_NAMES.get((dtype.kind, dtype.itemsize))


def _fp_reported(flags) -> bool:
    """Whether numpy would warn of (or raise, log, call for) the floating-point
    exceptions ``flags`` (``pad_odd_window``'s) under the current ``errstate``, or
    computes values differently on different machines (complex edges with an
    infinite or NaN part, where numpy's loops may fuse operations)."""
    multiply, subtract, undetermined = flags
    if undetermined:
        return True
    overflow = multiply[0] or subtract[0]
    invalid = multiply[1] or subtract[1]
    if not (overflow or invalid):
        return False
    err = np.geterr()
    return (overflow and err["over"] != "ignore") or (invalid and err["invalid"] != "ignore")


# A box whose region numpy's own algorithm would pad to more elements than this many
# times the box's (and more than ``_ODD_RECOMPUTE_MIN``) reports its floating-point
# exceptions by raising them again (``_raise_again``) rather than being recomputed by
# numpy: a dask chunk of a pad 2^33 wide would pad its whole lines (128 GB a chunk).
_ODD_RECOMPUTE_RATIO = 4
# Below this many elements numpy recomputes any box (its warnings then counted as its).
_ODD_RECOMPUTE_MIN = 1 << 20


def _raise_again(flags, dtype: np.dtype) -> None:
    """numpy's reports of the exceptions ``flags`` names, under the current
    ``errstate`` (a warning, a ``FloatingPointError``, a call...): one ``multiply``,
    then one ``subtract``, of values of ``dtype`` that raise the same exceptions, so
    that numpy says "overflow encountered in multiply" as its own pad would (once,
    where numpy's pad may say it once a reflected chunk)."""
    if not any(flags[0] + flags[1]):
        return
    if dtype.kind == "V":
        import ml_dtypes  # bfloat16, the only such type computed here

        largest = ml_dtypes.finfo(dtype).max
    else:
        largest = np.finfo(dtype).max
    # Per ufunc, operands that overflow and operands that are invalid.
    for op, raised, operands in (
        (np.multiply, flags[0], ((largest, 2), (np.inf, 0))),
        (np.subtract, flags[1], ((largest, -largest), (np.inf, np.inf))),
    ):
        chosen = [pair for pair, r in zip(operands, raised) if r]
        if chosen:
            a, b = zip(*chosen)
            op(np.array(a, dtype), np.array(b, dtype))


def _region_pad(shape, widths, region, box):
    """numpy's own algorithm for a box: the widths to pad the region by (along the
    axes whose lines the box needs whole) and the cut of the box from that pad
    (each line is padded from its own values alone)."""
    sub_widths = []
    cut = []
    for n, (b, a), (r0, r1), (s, e) in zip(shape, widths, region, box):
        if (b == 0 and a == 0) or (s >= b and e <= b + n) or s == e:
            sub_widths.append((0, 0))
            cut.append(slice(s - b - r0, e - b - r0) if s != e else slice(0, 0))
        else:
            sub_widths.append((b, a))
            cut.append(slice(s, e))
    return sub_widths, tuple(cut)


def pad_odd_box(src: np.ndarray, shape, widths, mode: str, region, box,
                out: Optional[np.ndarray] = None, threads: int = 1) -> np.ndarray:
    """The part ``box`` (``(start, stop)`` per axis) of ``numpy.pad(array, widths,
    mode, reflect_type='odd')`` for an array of ``shape``, from ``src``: its elements
    in ``region`` (``_ndpad.odd_window`` names the region a box needs), into ``out``
    (C-ordered or not) or a new C-ordered array.

    Where numpy would report floating-point exceptions of the box's values, the box
    is numpy's own pad of the region, cut; or, where that pad would be many times the
    box (the box of a wide pad), these values with numpy's reports raised again (and
    where numpy's values would depend on the machine, those of the plain formula)."""
    box_shape = tuple(int(e) - int(s) for s, e in box)
    region_pad = None
    name = odd_name(src.dtype)
    if name is not None and 0 not in box_shape:
        src_c = np.ascontiguousarray(src)
        if not src_c.flags.aligned:
            src_c = src_c.copy()
        direct = (out is not None and out.flags.c_contiguous and out.flags.aligned
                  and out.flags.writeable)
        dst = out if direct else np.empty(box_shape, dtype=src.dtype)
        flags = _ndpad.pad_odd_window(src_c, dst, name, [int(n) for n in shape],
                                      [(int(b), int(a)) for b, a in widths], mode,
                                      [(int(s), int(e)) for s, e in region],
                                      [(int(s), int(e)) for s, e in box], threads)
        # Reported: numpy recomputes the box, unless its pad of the region would be
        # far larger than the box; then these values stand, numpy's reports raised.
        kept = not _fp_reported(flags)
        if not kept:
            region_pad = _region_pad(shape, widths, region, box)
            recomputed = math.prod(int(r1) - int(r0) + b + a
                                   for (r0, r1), (b, a) in zip(region, region_pad[0]))
            kept = recomputed > max(_ODD_RECOMPUTE_RATIO * math.prod(box_shape),
                                    _ODD_RECOMPUTE_MIN)
            if kept:
                _raise_again(flags, src.dtype)
        if kept:
            if out is None or direct:
                return dst
            np.copyto(out, dst)
            return out
    sub_widths, cut = region_pad or _region_pad(shape, widths, region, box)
    result = numpy_pad(src, sub_widths, mode, reflect_type="odd")[cut]
    if out is None:
        return np.ascontiguousarray(result)
    np.copyto(out, result)
    return out
