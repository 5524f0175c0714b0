"""The output chunks of ``ndpad.dask.pad``: ``chunks=`` ('auto', 'input', or what
``dask.array.Array.rechunk`` takes) against the output's shape, and the regular
'auto' chunks (see ``pad``'s Returns)."""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

import dask
import dask.array as da
from dask.array.core import normalize_chunks
from dask.utils import parse_bytes

from ._common import INTP


#: The most output chunks ``pad`` builds a graph of (a task each, and the chunks'
#: sizes held in tuples): a pad of 2^40 elements in chunks of 1 MiB would be 16
#: million tasks, minutes and gigabytes of graph before anything is computed (262,149
#: chunks took 4 s to build).
MAX_CHUNKS = 1 << 20


def check_count(shape: Sequence[int], counts: Sequence[int], have: int = 1) -> None:
    """Raises ``ValueError`` where an output of ``shape`` in ``counts`` chunks along
    its axes would add more than ``MAX_CHUNKS`` chunks to the input's ``have`` (an
    input of many chunks already has its graph)."""
    total = math.prod(counts)
    if total - have > MAX_CHUNKS:
        raise ValueError(
            f"ndpad.dask.pad: the output of shape {tuple(int(n) for n in shape)} would "
            f"be {total} chunks, {total - have} more than the input's, over "
            f"{MAX_CHUNKS}: pass larger chunks= or raise dask's array.chunk-size "
            f"({chunk_limit()} bytes a chunk now)")


def pieces(extent: int, unit: int) -> int:
    """The chunks of at most ``unit`` elements an axis of ``extent`` is cut in (one
    where it is empty)."""
    return max(-(-int(extent) // max(int(unit), 1)), 1)


def count(chunks: Sequence[Sequence[int]]) -> int:
    """The chunks of an array whose chunks along its axes are ``chunks``."""
    return math.prod(len(cs) for cs in chunks)


def whole_axis(c: Any) -> bool:
    """Whether ``c`` asks for an axis in one chunk (None or -1, as dask reads them)."""
    return c is None or (isinstance(c, numbers.Number) and c == -1)


def count_of(c: Any, n: int) -> Optional[int]:
    """The chunks of an axis of ``n`` given as ``c``: elements a chunk (a number, as
    dask reads it: a bool or a whole float too), the whole axis (``whole_axis``), or
    the sizes spelled out; None for anything else (dask's error comes later)."""
    if whole_axis(c):
        return 1
    if isinstance(c, (tuple, list)):
        return max(len(c), 1)
    if isinstance(c, float) and c.is_integer():
        c = int(c)
    if isinstance(c, numbers.Integral) and int(c) > 0:
        return pieces(n, int(c))
    return None


def chunk_counts(chunks: Any, shape: Sequence[int], dtype: np.dtype,
                 previous: Any) -> Optional[List[int]]:
    """Per axis the chunks dask's ``normalize_chunks`` makes of ``chunks=`` (one form
    for all axes, or one an axis), counted before dask spells their sizes out:
    numbers, whole axes and spelled-out sizes here, axes given in bytes or as 'auto'
    from the sizes dask's ``auto_chunks`` gives them (an int64 pad of 2^40 on each
    side in chunks of '1KiB' is 2^34 chunks: their tuple alone ran out of memory).
    None where dask would refuse the form (its error comes with ``normalize_chunks``)."""
    ndim = len(shape)
    given = chunks if isinstance(chunks, (tuple, list)) else (chunks,) * ndim
    if len(given) != ndim:
        return None
    limit = None
    axes: List[Any] = []
    for c in given:
        if isinstance(c, str) and c != "auto":
            try:
                limit = parse_bytes(c)
            except (ValueError, TypeError):
                return None
            c = "auto"
        axes.append(c)
    if any(isinstance(c, str) for c in axes):
        try:
            from dask.array.core import auto_chunks

            sized = tuple(n if whole_axis(c) else c for c, n in zip(axes, shape))
            axes = list(auto_chunks(sized, tuple(shape), limit, dtype, previous))
        except Exception:  # dask's own error, raised by normalize_chunks
            return None
    counts = []
    for c, n in zip(axes, shape):
        got = count_of(c, n)
        if got is None:
            return None
        counts.append(got)
    return counts


class Chunking:
    """``pad``'s ``chunks=``: the output chunks of an output shape."""

    def __init__(self, chunks: Any, in_chunks, widths) -> None:
        self.keep = chunks is None or (isinstance(chunks, str) and chunks == "input")
        self.auto = isinstance(chunks, str) and chunks == "auto"
        self.chunks = chunks
        self.in_chunks = tuple(tuple(int(c) for c in cs) for cs in in_chunks)
        self.widths = widths
        self.interiors = [0] * len(widths)

    def unchanged(self, axis: int) -> bool:
        return self.widths[axis] == (0, 0) and not self.interiors[axis]

    def changes_nothing(self) -> bool:
        """Whether the pad leaves every axis as it is (no width, no interior)."""
        return all(self.unchanged(k) for k in range(len(self.widths)))

    def target(self, shape: Sequence[int], dtype: np.dtype) -> Tuple[Tuple[int, ...], ...]:
        """The output chunks of an output of ``shape``."""
        if self.auto:
            return regular_chunks(self.in_chunks, shape, dtype)
        have = count(self.in_chunks)
        if self.keep:
            sizes = [None if self.unchanged(k) else max(cs) if cs and max(cs) > 0 else n
                     for k, (cs, n) in enumerate(zip(self.in_chunks, shape))]
            check_count(shape, [len(cs) if u is None else pieces(n, u)
                                for cs, n, u in zip(self.in_chunks, shape, sizes)], have)
            return tuple(cs if u is None else tuple(split(n, u)) or (0,)
                         for cs, n, u in zip(self.in_chunks, shape, sizes))
        units = chunk_units(self.in_chunks, shape, dtype)
        auto_counts = [pieces(n, u) for u, n in zip(units, shape)]
        chunks = self.chunks
        # The 'auto' chunks fill the axes a dict leaves out and size dask's 'auto'
        # (spelled out only where they are few enough; else their sizes stand in).
        few = math.prod(auto_counts) - have <= MAX_CHUNKS
        auto: Any = (tuple(axis_chunks(u, n) for u, n in zip(units, shape)) if few
                     else tuple(units))
        if isinstance(chunks, dict):
            ndim = len(shape)
            given = {}
            for axis, value in chunks.items():
                k = operator.index(axis)
                if not -ndim <= k < ndim:
                    raise ValueError(f"chunks: axis {axis} is out of bounds for {ndim} axes")
                given[k % ndim] = value
            chunks = tuple(auto[k] if given.get(k) is None else given[k] for k in range(ndim))
        previous = auto if few else None
        counts = chunk_counts(chunks, shape, dtype, previous)
        if counts is not None:
            check_count(shape, counts, have)
        result = normalize_chunks(chunks, tuple(shape), dtype=dtype,
                                  previous_chunks=previous)
        check_count(shape, [len(c) for c in result], have)
        return result

    def apply(self, result: "da.Array") -> "da.Array":
        """``result`` in the target chunks (the windowed layer of every mode has them
        already; the per-axis paths are rechunked)."""
        target = self.target(result.shape, result.dtype)
        if result.chunks == target:
            return result
        return result.rechunk(target)


def split(width: int, unit: int) -> List[int]:
    """``width`` in pieces of ``unit`` (the last one shorter)."""
    if width <= 0:
        return []
    unit = max(unit, 1)
    return [unit] * (width // unit) + ([width % unit] if width % unit else [])


def chunk_limit() -> int:
    """Bytes of a chunk as dask sizes them (``array.chunk-size``, 128 MiB by default)."""
    limit = dask.config.get("array.chunk-size")
    return max(int(parse_bytes(limit) if isinstance(limit, str) else limit), 1)


def chunk_units(in_chunks: Sequence[Sequence[int]], out_shape: Sequence[int],
           dtype: np.dtype) -> List[int]:
    """Per axis the largest output chunk: the axis's largest input chunk (at most the
    extent), grown where the block they make holds fewer bytes than dask's
    ``array.chunk-size``, as dask's automatic chunks grow previous ones: all axes by
    one factor, each by a whole number of its input chunks, those that reach their
    extent held there, the block at most ``array.chunk-size`` (an object element
    counts as its reference). An axis of length 0 padded is one chunk."""
    units = []
    for chunks, extent in zip(in_chunks, out_shape):
        largest = max(chunks) if chunks else 0
        units.append(max(extent, 1) if largest <= 0 else max(min(largest, extent), 1))
    if any(n <= 0 for n in out_shape):
        return units
    itemsize = INTP.itemsize if dtype.hasobject else max(dtype.itemsize, 1)
    budget = chunk_limit() / itemsize  # elements of a chunk
    grown = list(units)
    free = [k for k, n in enumerate(out_shape) if units[k] < n]
    while free:
        held = math.prod(grown[k] for k in range(len(grown)) if k not in free)
        base = math.prod(units[k] for k in free)
        factor = (budget / (held * base)) ** (1 / len(free))
        if factor <= 1:
            break
        full = [k for k in free if units[k] * factor >= out_shape[k]]
        if not full:
            for k in free:
                grown[k] = units[k] * int(factor)
            break
        for k in full:
            grown[k] = out_shape[k]
            free.remove(k)
    return grown


def axis_chunks(unit: int, extent: int) -> Tuple[int, ...]:
    """``extent`` in as few pieces as ``unit`` allows, of one size from 0 but the last
    (shorter by fewer elements than there are pieces); (0,) for an empty axis."""
    if extent <= 0:
        return (0,)
    return tuple(split(extent, -(-extent // pieces(extent, unit))))


def regular_chunks(in_chunks: Sequence[Sequence[int]], out_shape: Sequence[int],
                    dtype: np.dtype) -> Tuple[Tuple[int, ...], ...]:
    """The output chunks (see ``pad``'s Returns) of an output of ``out_shape`` padded
    from an array of ``in_chunks``: along each axis as few as its unit (``chunk_units``)
    allows, regular."""
    units = chunk_units(in_chunks, out_shape, dtype)
    check_count(out_shape, [pieces(n, u) for u, n in zip(units, out_shape)],
                count(in_chunks))
    return tuple(axis_chunks(u, n) for u, n in zip(units, out_shape))
