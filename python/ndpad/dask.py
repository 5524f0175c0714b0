"""``ndpad.dask.pad``: ``numpy.pad`` (and ``ndpad.pad``) of a lazy ``dask.array.Array``.

Importing :mod:`ndpad` does not import dask; ``import ndpad.dask`` (or
``from ndpad.dask import pad``) does.

How the graph is built
----------------------
* The index modes (constant, edge, reflect, symmetric, wrap, empty; also with
  ``negative_pads=`` and ``interior=``) make one graph layer of regular chunks: every
  output chunk is a box of the padded array, planned by the kernel's windowed
  execution (``Spec.window_reads``), which names, per axis, the disjoint input
  intervals the box reads (a wrap box across the seam reads both ends of the axis,
  not the whole axis). The chunk's task depends only on the input blocks overlapping
  those intervals, copies their overlaps into one compact C-contiguous array (only
  the coordinates read, laid end to end on each axis) and pads it straight into the
  chunk.
* The statistic modes (maximum, mean, median, minimum) take their statistics axis
  after axis, as ``numpy.pad`` does (a later axis's statistics see the earlier
  axes' padding); each side's statistic is a face of length 1 along the axis. The
  array wrapped in its faces (one face element on each padded side, the "core")
  holds every value of the output, since numpy's pads repeat their face: the output
  is the core padded in mode 'edge', one layer of windowed kernel calls as above.
  The statistics of the array itself, for every axis, are one walk over its blocks:
  one task per row of blocks along the last axis whose lines must be whole (numpy's
  pairwise sums along the last axes), which takes those lines' statistics by
  numpy's own function and, for every axis that numpy reduces line after line
  (maximum, mean and minimum of numpy's own dtypes, a later axis longer than 1),
  combines each block into the accumulator that the previous row along that axis
  passed on, in numpy's order. Each block is thus read by one statistics task
  (median and other dtypes: each further axis of whole lines reads the array again,
  one reader per block), and no rechunked copy of the array is made. The faces are
  gathered into one task, and the windowed layer reads the array a second time,
  after that task (``dask.graph_manipulation.bind``): its blocks are read on demand
  and freed as in the index modes, where output chunks reading the statistics' own
  blocks held them until the statistics of whole lines were done (about half the
  array, more for median). Peak memory: about the index modes', a quarter of the
  array or less in bench/scale-results.md; the array is read twice (median: four
  times in 3-D).
* linear_ramp: ``numpy.linspace`` from the edge chunk, broadcast into pad chunks,
  axis after axis; the ramped array is cut into the output chunks by the same
  windowed layer (mode 'edge', no pads).
* ``reflect_type='odd'`` and a callable ``mode`` take a simpler path: for each axis
  in turn, the array is rechunked to whole lines along that axis, each chunk is padded
  along that axis by numpy's own algorithm, and the result is rechunked to the output
  chunks.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import operator
import warnings
from typing import Any, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

import dask
import dask.array as da
from dask.array.core import normalize_chunks
from dask.base import tokenize
from dask.delayed import Delayed
from dask.graph_manipulation import bind, clone
from dask.highlevelgraph import HighLevelGraph
from dask.utils import parse_bytes

from . import _ndpad
from . import _numpy
from ._numpy import (
    _NEGATIVE_PADS,
    _STAT_FUNCTIONS,
    _as_pairs,
    _base_is_partial,
    _cast,
    _empty_axis_check,
    _groups,
    _normalize_interior,
    _normalize_widths,
    _new_output,
    _numpy_pad,
    _output_shape,
    _parse_modes,
    _refuse_extensions,
    _same_object,
    _threads,
    _value_bytes,
)

__all__ = ["pad"]

_INTP = np.dtype(np.intp)


def pad(
    x: Any,
    pad_width: Any,
    mode: Any = "constant",
    *,
    negative_pads: Optional[str] = None,
    interior: Any = 0,
    threads: Optional[int] = None,
    chunks: Any = "auto",
    **kwargs: Any,
) -> "da.Array":
    """Pad a dask array lazily: every chunk of the result is ``numpy.pad``'s (and
    ``ndpad.pad``'s) value there, bit for bit.

    Parameters
    ----------
    x : dask.array.Array or array_like of rank N
        The array to pad (anything else is wrapped by ``dask.array.asarray``). Its
        chunks must have known sizes; they are numpy arrays of any dtype ``ndpad.pad``
        takes. F-ordered or strided chunks are fine: each task copies what it reads
        into a C-contiguous array. The statistic modes compute with C-ordered lines:
        their values are ``numpy.pad``'s for the C-ordered array (``numpy.pad`` of an
        F-ordered array may sum a mean in another order).
    pad_width : int, sequence, array_like or dict
        Number of values padded to the edges of each axis, in every form
        ``numpy.pad`` accepts: ``n``, ``(n,)``, ``(before, after)``,
        ``((before, after),)``, one pair per axis, an integer ndarray, or
        ``{axis: n or (before, after)}``. Negative widths crop, only with
        ``negative_pads``.
    mode : str, callable or sequence of str, optional
        One of 'constant' (default), 'edge', 'linear_ramp', 'maximum', 'mean',
        'median', 'minimum', 'reflect', 'symmetric', 'wrap', 'empty', or a function
        ``padding_func(vector, iaxis_pad_width, iaxis, kwargs)`` (numpy's algorithm,
        one axis at a time on whole lines of that axis; it is called with ``iaxis``
        equal to the axis being padded only). Pads wider than the array repeat, as in
        numpy (reflect, symmetric and wrap fold as many times as needed). Beyond
        numpy: a sequence of one mode name per axis; consecutive axes of the same mode
        are padded together, the groups one after the other, as ``ndpad.pad`` does.
        'empty' pads with zeros (numpy leaves those elements undefined).
    negative_pads : {None, 'crop_first', 'original_index'}, optional
        Beyond numpy (``ndpad.pad``'s option). None (default): negative widths are an
        error. 'crop_first': a negative width removes elements, then the rest is
        padded. 'original_index': output element ``o`` reads input element
        ``o - before`` of the uncropped array, folded by the mode. Index modes only.
    interior : int or sequence of int, optional
        Beyond numpy: elements inserted between neighbouring elements of each axis,
        constant mode only, with one constant value.
    threads : int, optional
        Threads of ndpad's kernel inside each chunk's task. None (default) uses 1,
        since dask already runs the chunks in parallel; 0 uses all cores; at most 1024.
    chunks : {'auto', 'input', None}, int, tuple, dict or str, optional
        Beyond numpy: the chunks of the result.

        * 'auto' (default): regular chunks sized from the input's and dask's
          ``array.chunk-size`` (see Returns).
        * 'input' or None: the input's chunking, where the pad allows it: an axis
          that is not padded keeps its chunks as they are; a padded axis is cut in
          the input's chunk size along it (its largest chunk) from output coordinate
          0, the last chunk shorter: the layout of the input's zarr chunks, e.g. for
          ``to_zarr`` into a store of the input's chunk shape.
        * anything ``dask.array.Array.rechunk`` takes (an int, a tuple of ints or
          of tuples of chunk sizes, a dict ``{axis: ...}``, a byte size such as
          '64 MiB', with -1 or 'auto' entries, as ``dask.array.core.normalize_chunks``
          reads them against the output's shape; an axis a dict leaves out, or gives
          None, takes the 'auto' chunks): exactly those chunks. The index modes cut
          them in their one windowed layer; the other paths rechunk their last step.

        A pad that changes nothing (all widths 0, no interior padding, a mode name)
        returns ``x`` itself, as ``dask.array.pad`` does, with 'auto', 'input' or
        None; explicit chunks rechunk it (``x`` itself where they are its chunks).
    stat_length : sequence or int, optional
        'maximum', 'mean', 'median', 'minimum': values at each edge of each axis used
        for the statistic, broadcast as ``pad_width``. Default: the whole axis.
    constant_values : sequence or scalar, optional
        'constant': the values to pad with, broadcast as ``pad_width`` and cast to the
        array's dtype as numpy casts them (default 0). Corners take the last axis's
        value, as in numpy.
    end_values : sequence or scalar, optional
        'linear_ramp': the values at the ends of the ramps (default 0).
    reflect_type : {'even', 'odd'}, optional
        'reflect', 'symmetric': 'odd' extends by ``2 * edge - reflection``; it takes the
        simpler per-axis path described under ``mode``.

    Returns
    -------
    padded : dask.array.Array
        The padded array, lazy, of ``x``'s dtype (``x`` itself for a pad that changes
        nothing, see ``chunks``). With ``chunks='auto'``, its chunks are regular, in every mode
        (as ``to_zarr`` needs), whatever the pads, folds and input chunk edges: along
        each axis, as few chunks as its unit allows (``ceil(extent / unit)``), all of
        one size from output coordinate 0 but the last, shorter by fewer elements than
        there are chunks. The unit is the axis's largest input chunk, grown where the
        block of those units holds less than dask's ``array.chunk-size`` (128 MiB by
        default), as dask's automatic chunks grow previous ones: all axes by one whole
        factor, an axis held at its extent, the block at most ``array.chunk-size``
        (``pad(da.arange(3000, chunks=1), 3 * 10**5)`` is one chunk of 603,000, not
        603,000 tasks; chunks of 256^3 float32, 64 MiB, stay). No chunk is larger than
        the larger of that size and the input's largest block, and no zarr chunk written
        from the result is mostly empty (a pad of 16 along an axis of 1280 with a unit
        of 256 gives 6 chunks of 219, the last 217, where pieces of 256 would end in one
        of 32 that zarr stores and encodes whole). An axis of length 0 padded by
        constants is one chunk. Each chunk's task is one windowed kernel call that reads
        only the input elements its box reads (their input blocks, and a compact copy of
        what it reads of them): of the array in the index modes; of the array wrapped in
        its statistics (one face per padded side, then padded in mode 'edge') in the
        statistic modes, whose statistics take one pass over the blocks first; of the
        ramped array in linear_ramp. The statistic modes read the array twice (the
        windowed layer reads it again once every statistic is taken) and hold about
        what the index modes hold.

    Raises
    ------
    ValueError, TypeError
        Where ``numpy.pad`` raises them, when the graph is built (the dtype-dependent
        errors of the statistic modes are found by padding a small sample eagerly).
    ndpad.PadError
        An invalid use of the keywords beyond numpy (a ValueError).

    Notes
    -----
    Object arrays take the same windowed path as other dtypes (the kernel pads element
    indices, numpy gathers the objects). Only ``reflect_type='odd'`` and a callable
    ``mode`` fall back to the per-axis path (numpy's algorithm on whole lines, then
    rechunked); every other mode and option is computed as described above.

    Examples
    --------
    >>> import dask.array as da, ndpad.dask
    >>> x = da.arange(6, chunks=2)
    >>> y = ndpad.dask.pad(x, (3, 7), mode="reflect")
    >>> y.compute()
    array([3, 2, 1, 0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2])
    """
    if not isinstance(x, da.Array):
        x = da.asarray(x)
    if any(isinstance(c, float) and math.isnan(c) for cs in x.chunks for c in cs):
        raise ValueError(
            "ndpad.dask.pad needs known chunk sizes: call x.compute_chunk_sizes() first")
    if negative_pads not in _NEGATIVE_PADS:
        raise _ndpad.PadError(
            "negative_pads must be None, 'crop_first' or 'original_index', "
            f"not {negative_pads!r}"
        )
    shim = _Shape(x.shape)
    widths = _normalize_widths(shim, pad_width, negative_pads is not None)
    nthreads = 1 if threads is None else _threads(threads)
    chunking = _Chunking(chunks, x.chunks, widths)

    if x.ndim == 0:
        # numpy's rules for 0-d arrays (checks of the mode's values, the result
        # unchanged) on the one chunk; a sample first, for the errors.
        call = functools.partial(_numpy.pad, pad_width=pad_width, mode=mode,
                                 negative_pads=negative_pads, interior=interior, **kwargs)
        call(np.zeros((), dtype=x.dtype))
        return x.map_blocks(call, dtype=x.dtype)

    if callable(mode):
        _refuse_extensions(mode, negative_pads, interior, None)
        return chunking.apply(_callable_path(x, widths, mode, kwargs))

    modes = _parse_modes(mode, x.ndim, kwargs)
    interiors = _normalize_interior(interior, x.ndim)
    if any(interiors) and any(m != "constant" for m in modes):
        raise _ndpad.PadError("interior padding is for constant mode only")

    chunking.interiors = interiors
    result = x
    groups = _groups(modes)
    for k, (m, axes) in enumerate(groups):
        part = [(b, a) if i in axes else (0, 0) for i, (b, a) in enumerate(widths)]
        part_interior = [v if i in axes else 0 for i, v in enumerate(interiors)]
        last = k == len(groups) - 1
        result = _pad_one_mode(result, part, m, kwargs, negative_pads, part_interior,
                               nthreads, chunking if last else None)
    if chunking.changes_nothing():
        # After every check of the arguments: x itself, as dask.array.pad returns it.
        return x if chunking.keep or chunking.auto else chunking.apply(x)
    return chunking.apply(result)


class _Chunking:
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
        auto = _regular_chunks(self.in_chunks, shape, dtype)
        if self.auto:
            return auto
        if self.keep:
            target = []
            for k, (cs, n) in enumerate(zip(self.in_chunks, shape)):
                if self.unchanged(k):
                    target.append(cs)
                else:
                    unit = max(cs) if cs and max(cs) > 0 else n
                    target.append(tuple(_split(n, unit)) or (0,))
            return tuple(target)
        chunks = self.chunks
        if isinstance(chunks, dict):
            ndim = len(shape)
            given = {}
            for axis, value in chunks.items():
                k = operator.index(axis)
                if not -ndim <= k < ndim:
                    raise ValueError(f"chunks: axis {axis} is out of bounds for {ndim} axes")
                given[k % ndim] = value
            chunks = tuple(auto[k] if given.get(k) is None else given[k] for k in range(ndim))
        return normalize_chunks(chunks, tuple(shape), dtype=dtype, previous_chunks=auto)

    def apply(self, result: "da.Array") -> "da.Array":
        """``result`` in the target chunks (the windowed layer of every mode has them
        already; the per-axis paths are rechunked)."""
        target = self.target(result.shape, result.dtype)
        if result.chunks == target:
            return result
        return result.rechunk(target)


class _Shape:
    """What the argument helpers of ``ndpad.pad`` read of an array: its shape."""

    def __init__(self, shape: Tuple[int, ...]) -> None:
        self.shape = tuple(int(n) for n in shape)
        self.ndim = len(self.shape)


def _pad_one_mode(x, widths, mode, kwargs, negative_pads, interiors, threads,
                  chunking=None):
    """``ndpad._numpy._pad_one_mode`` for a dask array (same checks, same order);
    ``chunking``: the chunks of the result where they are the output's."""
    ndim = x.ndim
    if mode == "constant":
        values = _as_pairs(kwargs.get("constant_values", 0), ndim)
        return _index_pad(x, widths, "constant", values, negative_pads, interiors, threads,
                          chunking)
    if mode == "empty":
        zero = _as_pairs(0, ndim)
        return _index_pad(x, widths, "constant", zero, negative_pads, interiors, threads,
                          chunking)
    shim = _Shape(x.shape)
    if math.prod(shim.shape) == 0:
        _empty_axis_check(shim, widths)
        shape = _output_shape(shim, widths, interiors)  # holds no element
        chunks = _regular_chunks(x.chunks, shape, x.dtype)
        return da.empty(shape, dtype=x.dtype, chunks=chunks)
    if mode in ("reflect", "symmetric") and _numpy._odd(shim, widths, kwargs):
        if negative_pads is not None and any(b < 0 or a < 0 for b, a in widths):
            raise _ndpad.PadError("reflect_type='odd' does not take negative pads")
        return _odd_path(x, widths, mode)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return _index_pad(x, widths, mode, None, negative_pads, interiors, threads,
                          chunking)
    if negative_pads is not None and any(b < 0 or a < 0 for b, a in widths):
        raise _ndpad.PadError(f"mode '{mode}' does not take negative pads")
    _probe(x, widths, mode, kwargs)
    if mode == "linear_ramp":
        # The ramped array, cut into the output chunks by the windowed kernel.
        ramped = _ramps(x, widths, kwargs)
        return _index_pad(ramped, [(0, 0)] * x.ndim, "edge", None, None, [0] * x.ndim,
                          threads, chunking)
    return _stats(x, widths, mode, kwargs, threads, chunking)


# ---------------------------------------------------------------------------
# Chunks
# ---------------------------------------------------------------------------


def _split(width: int, unit: int) -> List[int]:
    """``width`` in pieces of ``unit`` (the last one shorter)."""
    if width <= 0:
        return []
    unit = max(unit, 1)
    return [unit] * (width // unit) + ([width % unit] if width % unit else [])


def _chunk_limit() -> int:
    """Bytes of a chunk as dask sizes them (``array.chunk-size``, 128 MiB by default)."""
    limit = dask.config.get("array.chunk-size")
    return max(int(parse_bytes(limit) if isinstance(limit, str) else limit), 1)


def _units(in_chunks: Sequence[Sequence[int]], out_shape: Sequence[int],
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
    itemsize = _INTP.itemsize if dtype.hasobject else max(dtype.itemsize, 1)
    budget = _chunk_limit() / itemsize  # elements of a chunk
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


def _axis_chunks(unit: int, extent: int) -> Tuple[int, ...]:
    """``extent`` in as few pieces as ``unit`` allows, of one size from 0 but the last
    (shorter by fewer elements than there are pieces); (0,) for an empty axis."""
    if extent <= 0:
        return (0,)
    count = -(-extent // unit)
    return tuple(_split(extent, -(-extent // count)))


def _regular_chunks(in_chunks: Sequence[Sequence[int]], out_shape: Sequence[int],
                    dtype: np.dtype) -> Tuple[Tuple[int, ...], ...]:
    """The output chunks (see ``pad``'s Returns) of an output of ``out_shape`` padded
    from an array of ``in_chunks``: along each axis as few as its unit (``_units``)
    allows, regular."""
    units = _units(in_chunks, out_shape, dtype)
    return tuple(_axis_chunks(u, n) for u, n in zip(units, out_shape))


# ---------------------------------------------------------------------------
# Index modes: one layer of windowed kernel calls
# ---------------------------------------------------------------------------


class _Plan:
    """An index-mode pad of the whole array, picklable (the kernel's specs are
    planned again where a task runs)."""

    def __init__(self, dtype, shape, widths, interiors, mode, value, negative_pads,
                 cells, sides, partial, threads):
        self.dtype = dtype
        self.shape = list(shape)
        self.widths = [tuple(w) for w in widths]
        self.interiors = list(interiors)
        self.mode = mode
        self.value = value
        self.negative_pads = negative_pads
        self.cells = cells
        self.sides = sides
        self.partial = partial
        self.threads = threads
        self.objects = dtype.hasobject
        self.itemsize = _INTP.itemsize if self.objects else dtype.itemsize
        self.out_shape = tuple(self.spec().output_shape)  # the kernel's checks

    def spec(self, itemsize=None, shape=None, widths=None, interiors=None, value=None,
             mode=None):
        widths = self.widths if widths is None else widths
        return _ndpad.numpy_spec(
            self.itemsize if itemsize is None else itemsize,
            self.shape if shape is None else shape,
            [b for b, _ in widths],
            [a for _, a in widths],
            self.interiors if interiors is None else interiors,
            self.mode if mode is None else mode,
            self.value if value is None else value,
            self.negative_pads,
        )

    def axis_reads(self, axis: int, box: Tuple[int, int]) -> List[Tuple[int, int]]:
        """The disjoint, sorted input intervals that the output range ``box`` of
        ``axis`` reads."""
        spec = self.spec(shape=[self.shape[axis]], widths=[self.widths[axis]],
                         interiors=[self.interiors[axis]])
        _, reads = spec.window_reads([box])
        return [(int(s), int(e)) for s, e in reads[0]]


def _compact_shape(reads) -> Tuple[int, ...]:
    """The shape of the input a window of ``Spec.window_reads`` executes on."""
    return tuple(sum(int(e) - int(s) for s, e in intervals) for intervals in reads)


class _Received(NamedTuple):
    """What the task of one output chunk receives of the input (``_reads_layer``): its
    ``box``; per axis, the intervals ``starts``/``stops`` of the input blocks it reads
    (the hull of its reads in each block); and per block argument (in C order of
    those per-axis picks) the input coordinates where it starts (``origins``: a whole
    block, or a slab of one holding just those intervals)."""

    box: List[Tuple[int, int]]
    starts: List[List[int]]
    stops: List[List[int]]
    origins: List[Tuple[int, ...]]

    def gather(self, reads, blocks, dtype) -> np.ndarray:
        """The input coordinates ``reads`` names (per axis, sorted disjoint
        intervals), laid end to end on each axis in one C-contiguous array, from the
        ``blocks`` received."""
        shape = _compact_shape(reads)
        if 0 in shape:
            return np.empty(shape, dtype=dtype)
        # Per axis: (where in the compact array, which received block, where in it).
        pieces = []
        for axis, intervals in enumerate(reads):
            axis_pieces = []
            offset = 0
            for s, e in intervals:
                s, e = int(s), int(e)
                covered = 0
                for p, (b0, b1) in enumerate(zip(self.starts[axis], self.stops[axis])):
                    lo, hi = max(s, b0), min(e, b1)
                    if lo < hi:
                        axis_pieces.append((slice(offset + lo - s, offset + hi - s), p,
                                            lo, hi))
                        covered += hi - lo
                if covered != e - s:
                    raise RuntimeError(
                        f"ndpad.dask: the window reads {list(reads)} are not within the "
                        "blocks its task reads (please report)")
                offset += e - s
            pieces.append(axis_pieces)
        if len(blocks) == 1 and all(
            len(ap) == 1 and ap[0][2] == o and ap[0][3] - o == n
            for ap, o, n in zip(pieces, self.origins[0], blocks[0].shape)
        ):
            return np.ascontiguousarray(blocks[0], dtype=dtype)
        counts = tuple(len(st) for st in self.starts)
        src = np.empty(shape, dtype=dtype)
        for combo in itertools.product(*pieces):
            place = tuple(c[0] for c in combo)
            d = int(np.ravel_multi_index(tuple(c[1] for c in combo), counts))
            take = tuple(slice(c[2] - o, c[3] - o) for c, o in zip(combo, self.origins[d]))
            src[place] = blocks[d][take]
        return src


class _Block:
    """The task of one output chunk of an index mode: a windowed kernel call on what
    it received (``_Received``)."""

    def __init__(self, plan: _Plan, received: _Received):
        self.plan = plan
        self.received = received

    def __call__(self, *blocks: np.ndarray) -> np.ndarray:
        plan = self.plan
        box = self.received.box
        window, reads = plan.spec().window_reads(box)
        src = self.received.gather(reads, blocks, plan.dtype)
        shape = tuple(e - s for s, e in box)
        if plan.objects:
            return self._objects(window, src, shape)
        out, memory = _new_output(shape, plan.dtype, like=src)
        window.execute(src, out, plan.threads, memory)
        if plan.mode == "constant":
            if plan.partial and any(plan.interiors):
                # The kernel wrote only the constant's first word into the interior.
                mask_spec = plan.spec(itemsize=1, value=b"\0")
                mask_window, mask_reads = mask_spec.window_reads(box)
                mask = np.empty(shape, dtype=np.bool_)
                mask_window.execute(
                    np.ones(_compact_shape(mask_reads), dtype=np.bool_), mask,
                    plan.threads)
                out[~mask] = plan.cells[0][0]
            _rewrite_box(out, box, plan, plan.sides)
        return out

    def _objects(self, window, src, shape) -> np.ndarray:
        """Object arrays: the kernel pads the indices of the region's elements (-1 for
        the constant); numpy gathers the objects (as ``ndpad._numpy._pad_objects``)."""
        plan = self.plan
        index = np.arange(src.size, dtype=np.intp).reshape(src.shape)
        picked = np.empty(shape, dtype=np.intp)
        window.execute(index, picked, plan.threads)
        result = np.empty(shape, dtype=plan.dtype)
        if src.size:
            result[...] = src.reshape(-1)[picked]
        if plan.mode == "constant":
            if any(plan.interiors):
                result[picked < 0] = plan.cells[0][0]
            else:
                _rewrite_box(result, self.received.box, plan, plan.sides)
        return result


def _slab(block: np.ndarray, index) -> np.ndarray:
    """A copy of part of an input block (not a view, which would keep the block)."""
    return np.array(block[index], copy=True)


def _rewrite_box(out, box, plan: _Plan, sides) -> None:
    """``ndpad._numpy._rewrite_sides`` on the box ``box`` of the whole output: each
    side's constant where that side's pad area (every axis before it whole, the data
    area of every axis after it) meets the box, so corners take the last axis's
    value."""
    if not sides:
        return
    full = plan.out_shape
    areas = [
        (max(b, 0), full[k] - max(a, 0)) for k, (b, a) in enumerate(plan.widths)
    ]
    for axis, side in sorted(sides):
        b, a = plan.widths[axis]
        width = (b, a)[side]
        if width <= 0:
            continue
        n = full[axis]
        here = (0, b) if side == 0 else (n - a, n)
        ranges = [(0, full[k]) for k in range(axis)] + [here] + areas[axis + 1:]
        local = []
        for (lo, hi), (s, e) in zip(ranges, box):
            lo, hi = max(lo, s), min(hi, e)
            if lo >= hi:
                break
            local.append(slice(lo - s, hi - s))
        else:
            out[tuple(local)] = plan.cells[axis][side]


def _reads_layer(x, plan: _Plan, out_chunks, name) -> dict:
    """A graph layer of one ``_Block`` task per output chunk (``out_chunks``, per
    axis) that receives the input blocks of ``x`` its box reads (``plan.axis_reads``
    names the sorted, disjoint input intervals an output range of an axis reads).

    A task that reads at most half of an input block receives a copy
    of what it reads there (a slab task of its own, shared by the chunks reading the
    same part), not the block: the block is then freed once its slabs and the chunks
    reading most of it are done, rather than held until every chunk reading any of
    it is (wrap's chunks read both ends of each axis)."""
    if isinstance(x, _Source):
        block_key = x.keys.__getitem__
    else:
        def block_key(idx):
            return (x.name,) + idx
    in_starts = [np.concatenate([[0], np.cumsum(c)[:-1]]).astype(int).tolist()
                 for c in x.chunks]
    in_stops = [np.cumsum(c).astype(int).tolist() for c in x.chunks]
    axis_info = []  # per axis, per output chunk: (box, [(input block, hull read)])
    for k, chunks in enumerate(out_chunks):
        info = []
        start = 0
        for c in chunks:
            box = (start, start + c)
            start += c
            hulls: dict = {}  # input block -> the hull of what the box reads in it
            for r0, r1 in (plan.axis_reads(k, box) if c else []):
                j = bisect.bisect_right(in_stops[k], r0)
                while j < len(in_starts[k]) and in_starts[k][j] < r1:
                    if in_stops[k][j] > in_starts[k][j]:
                        lo = max(r0, in_starts[k][j])
                        hi = min(r1, in_stops[k][j])
                        h = hulls.get(j, (lo, hi))
                        hulls[j] = (min(h[0], lo), max(h[1], hi))
                    j += 1
            info.append((box, sorted(hulls.items())))
        axis_info.append(info)

    slab_name = "ndpad-slab-" + name
    slabs: dict = {}  # (input block, part) -> the key of its slab task
    layer = {}
    for pick in itertools.product(*(range(len(info)) for info in axis_info)):
        parts = [axis_info[k][j] for k, j in enumerate(pick)]
        box = [p[0] for p in parts]
        deps = [p[1] for p in parts]
        if not all(deps):  # reads nothing (a box of pads only, or empty)
            deps = [[] for _ in deps]
        starts = [[h[0] for _, h in d] for d in deps]
        stops = [[h[1] for _, h in d] for d in deps]
        keys = []
        origins = []
        for combo in (itertools.product(*deps) if all(deps) else []):
            idx = tuple(j for j, _ in combo)
            whole = [(in_starts[k][j], in_stops[k][j]) for k, j in enumerate(idx)]
            part = [h for _, h in combo]
            if 2 * math.prod(e - s for s, e in part) > math.prod(
                    e - s for s, e in whole):
                keys.append(block_key(idx))
                origins.append(tuple(s for s, _ in whole))
                continue
            index = tuple(slice(s - w, e - w) for (s, e), (w, _) in zip(part, whole))
            key = slabs.get((idx, tuple(part)))
            if key is None:
                key = slabs[(idx, tuple(part))] = (slab_name, len(slabs))
                layer[key] = (_slab, block_key(idx), index)
            keys.append(key)
            origins.append(tuple(s for s, _ in part))
        layer[(name,) + pick] = (_Block(plan, _Received(box, starts, stops, origins)),
                                 *keys)
    return layer


def _index_pad(x, widths, mode, values, negative_pads, interiors, threads,
               chunking=None):
    """The index modes: one layer, one windowed kernel call per output chunk (those
    of ``chunking``, else the regular ones of ``x``'s chunks)."""
    dtype = x.dtype
    shim = _Shape(x.shape)
    objects = dtype.hasobject
    cells = None
    value = None
    sides: set = set()
    partial = False
    if mode == "constant":
        # numpy allocates the output (its errors) before it casts the constants.
        _output_shape(shim, widths, interiors)
        cells = [(_cast(b, dtype), _cast(a, dtype)) for b, a in values]
        if objects:
            if any(interiors) and not all(_same_object(c[()], cells[0][0][()])
                                          for pair in cells for c in pair):
                raise _ndpad.PadError(
                    "interior padding takes one constant value, not one per side")
            value = np.array(-1, dtype=np.intp).tobytes()
            sides = {(axis, side) for axis in range(x.ndim) for side in (0, 1)}
        else:
            raw = [_value_bytes(c) for pair in cells for c in pair]
            if any(interiors) and len(set(raw)) > 1:
                raise _ndpad.PadError(
                    "interior padding takes one constant value, not one per side")
            base = max(set(raw), key=raw.count) if raw else bytes(dtype.itemsize)
            value = base
            partial = _base_is_partial(base, dtype.itemsize)
            sides = {
                (axis, side)
                for axis in range(x.ndim)
                for side in (0, 1)
                if partial or raw[2 * axis + side] != base
            }
    plan = _Plan(dtype, shim.shape, widths, interiors, mode, value, negative_pads,
                 cells, sides, partial, threads)
    out_shape = plan.out_shape

    if chunking is None:
        out_chunks = list(_regular_chunks(x.chunks, out_shape, dtype))
    else:
        out_chunks = list(chunking.target(out_shape, dtype))
    name = "ndpad-pad-" + tokenize(
        x.name, widths, mode, value, negative_pads, interiors, threads,
        None if cells is None else [[repr(c[()]) for c in pair] for pair in cells],
        str(dtype), out_chunks)
    layer = _reads_layer(x, plan, out_chunks, name)
    if isinstance(x, _Source):
        graph = HighLevelGraph({**x.graph.layers, name: layer},
                               {**x.graph.dependencies, name: set(x.layers)})
    else:
        graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, tuple(out_chunks), meta=np.empty((0,) * x.ndim, dtype))


# ---------------------------------------------------------------------------
# Statistic modes and linear_ramp: dask operations, axis after axis
# ---------------------------------------------------------------------------


def _probe(x, widths, mode, kwargs) -> None:
    """numpy's errors of a mode on this dtype and these keywords (stat_length of 0,
    a statistic the dtype has not, values that do not cast), raised now: ``ndpad.pad``
    on a sample of at most one element per axis."""
    sample = np.zeros(tuple(min(n, 1) for n in x.shape), dtype=x.dtype)
    clipped = [(min(max(b, 0), 1), min(max(a, 0), 1)) for b, a in widths]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _numpy.pad(sample, clipped, mode, threads=1, **kwargs)


def _with(seq, axis, item):
    seq = list(seq)
    seq[axis] = item
    return tuple(seq)


def _at(axis, sl):
    return (slice(None),) * axis + (sl,)


def _stat_block(block, func, axis, layout, integer, dtype):
    """One chunk of whole lines' statistics by numpy's own function, in numpy's order.

    numpy reduces a C-ordered view of the padded array: pairwise along the axis when
    every later axis has length 1 there, else adding line after line (``layout``
    'sequential'). A pairwise line is contiguous only when every later axis of the
    padded array has length 1 ('contiguous'), else strided ('strided'); numpy's
    loops for the two differ in which of two NaNs (or of -0.0 and +0.0, for maximum
    and minimum) they keep. The chunk is laid out likewise: a trailing axis of 2
    makes numpy add line after line in a chunk whose later axes all have length 1, and
    strides the lines of a 'strided' chunk."""
    block = np.ascontiguousarray(block)
    later_ones = all(s == 1 for s in block.shape[axis + 1:])
    if layout == "sequential" and later_ones:
        stat = func(np.stack([block, block], axis=-1), axis=axis, keepdims=True)[..., 0]
    elif layout == "strided":
        stat = func(np.stack([block, block], axis=-1)[..., 0], axis=axis, keepdims=True)
    else:
        stat = func(block, axis=axis, keepdims=True)
    stat = np.asarray(stat)
    if integer:
        stat.round(out=stat)
    return stat.astype(dtype, copy=False)


# The bytes of a row of blocks that ``_stat_row`` concatenates at a time.
_SLAB_BYTES = 4 << 20


def _stat_row(blocks, func, axis, layout, integer, dtype):
    """``_stat_block`` of a row of blocks along ``axis`` laid end to end. Its lines
    are reduced independently of each other, so the row is concatenated a slab at a
    time along an earlier axis (one that numpy's order does not depend on): a small
    copy, reduced while in cache."""
    blocks = list(blocks)
    stat = functools.partial(_stat_block, func=func, axis=axis, layout=layout,
                             integer=integer, dtype=dtype)
    if len(blocks) == 1:
        return stat(blocks[0])
    slab_axis = next((k for k in range(axis) if blocks[0].shape[k] > 1), None)
    if slab_axis is None:
        return stat(np.concatenate(blocks, axis=axis))
    n = blocks[0].shape[slab_axis]
    row_bytes = sum(b.nbytes for b in blocks)
    step = max(1, n * _SLAB_BYTES // max(row_bytes, 1))
    parts = []
    for lo in range(0, n, step):
        index = _at(slab_axis, slice(lo, lo + step))
        parts.append(stat(np.concatenate([b[index] for b in blocks], axis=axis)))
    return np.concatenate(parts, axis=slab_axis)


def _lines_stat(span, axis, func, layout, integer, dtype):
    """The statistic of ``span``'s lines along ``axis`` (length 1 there) by numpy's own
    function on whole lines: one task per row of blocks along the axis, which receives
    the row's blocks (``_stat_row``; no rechunked copy of the array is made) and
    returns only the lines' statistics."""
    ind = tuple(range(span.ndim))
    out = _with(ind, axis, span.ndim)  # the axis contracted, a new one of length 1
    stat = functools.partial(_stat_row, func=func, axis=axis, layout=layout,
                             integer=integer, dtype=dtype)
    return da.blockwise(stat, out, span, ind, concatenate=False,
                        new_axes={span.ndim: 1}, token="ndpad-stat-lines", dtype=dtype,
                        meta=np.empty((0,) * span.ndim, dtype))


# The statistics a chain computes, by dtype kind: numpy's own dtypes in native byte
# order. Others (objects, strings, ml_dtypes' types, byte-swapped), median, and the
# pairwise axes take whole lines (``_lines_stat``).
_CHAIN_KINDS = {"maximum": "biufcM", "minimum": "biufcM", "mean": "biufc"}
_CHAIN_UFUNCS = {"maximum": np.maximum, "minimum": np.minimum}


def _chains(mode: str, dtype: np.dtype) -> bool:
    return dtype.isnative and dtype.kind in _CHAIN_KINDS.get(mode, "")


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype ``numpy.mean`` sums ``dtype`` in: float64 for booleans and integers,
    float32 for float16, else ``dtype`` itself."""
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


def _chain_link(acc, block, axis, mode, acc_dtype):
    """One link of a chain: the accumulator ``acc`` (length 1 along ``axis``; None
    at the first link) combined with the lines along ``axis`` of ``block``, in
    numpy's order for an axis whose reduction combines the lines one after the other
    (a later axis is longer than 1: numpy's inner loop runs over the other axes, its
    outer loop along ``axis``): ``acc = acc op line`` for each line in turn."""
    if mode == "mean":
        return _sum_link(acc, block, axis, acc_dtype)
    op = _CHAIN_UFUNCS[mode]
    # numpy's maximum (minimum) returns one of its two operands by a rule that does
    # not depend on where they are: the first of two NaNs (NaT), else the larger
    # (smaller), a tie (-0.0 and +0.0, complex values equal) to one fixed side of
    # the two; its SIMD and scalar loops alike (the tests check it on -0.0, +0.0 and
    # NaNs). So it is associative: the block's lines reduced by numpy (line after
    # line, as numpy does here), then combined with the accumulator, give the
    # accumulator combined with each line in turn, with one call over the block.
    if all(s == 1 for s in block.shape[axis + 1:]):
        # numpy would reduce these lines along a contiguous axis, in SIMD lanes that
        # break ties by lane, not by position: a trailing axis of 2 keeps the
        # reduction line after line.
        part = op.reduce(np.stack([block, block], axis=-1), axis=axis, keepdims=True)
        part = part[..., 0]
    else:
        part = op.reduce(block, axis=axis, keepdims=True)
    return part if acc is None else op(acc, part)


def _sum_link(acc, block, axis, acc_dtype):
    """``_chain_link`` of a sum: ``acc + line`` for each line in turn, in
    ``acc_dtype`` (each line cast to it, as numpy casts it), from 0 at the first link
    (numpy's ``add.reduce`` starts from its identity: -0.0 sums to +0.0)."""
    lines = np.moveaxis(block, axis, 0)
    shape = lines.shape[1:]
    size = math.prod(shape)
    # Each step is one call of np.add over the face as one C-ordered vector, as in
    # numpy's reduction (through a contiguous buffer where the lines are strided), in
    # buffers of a multiple of 128 elements so that the SIMD loop takes every element.
    # Sums are exact whatever the loop; only the NaN kept where two NaNs meet depends
    # on it (numpy's SIMD loop on x86-64 keeps the accumulator's, its scalar
    # remainder, the last few elements of each vector it is called on, the line's):
    # this keeps numpy's NaN on every element but those of numpy's remainders.
    room = -(-max(size, 1) // 128) * 128
    face = np.zeros(room, dtype=acc_dtype)
    line_buf = np.zeros(room, dtype=acc_dtype)
    face_view = face[:size].reshape(shape)
    line_view = line_buf[:size].reshape(shape)
    if acc is not None:
        face_view[...] = np.moveaxis(acc, axis, 0)[0]
    for line in lines:
        np.copyto(line_view, line, casting="unsafe")  # the cast numpy's reduction makes
        np.add(face, line_buf, out=face)
    return np.expand_dims(face_view, axis)


def _chain_result(acc, mode, count, integer, dtype):
    """The statistic from a chain's accumulator: a mean divides the sum by the number
    of values as ``numpy.mean`` does (by an ``intp``, in place, unsafe casting), then,
    for integers, rounds it as ``numpy.pad`` does; cast to the array's dtype."""
    stat = np.array(acc, copy=True)
    if mode == "mean":
        np.true_divide(stat, np.intp(count), out=stat, casting="unsafe", subok=False)
    if integer:
        stat.round(out=stat)
    return stat.astype(dtype, copy=False)


class _Chain(NamedTuple):
    """The statistic of the lines along ``axis`` over the range [``lo``, ``hi``) of it
    (one side's ``stat_length``)."""

    axis: int
    lo: int
    hi: int


@dataclasses.dataclass(frozen=True)
class _WalkStep:
    """The task of one row of blocks in ``_walk`` (the blocks along its row axis, or
    one block). Per chain, its plan in this row (None where the row holds none of its
    range): ``("link", axis, s, e, chained)``: the part [s, e) along ``axis`` of each
    block is combined into the accumulator of that block's lines (``_chain_link``),
    starting from the previous row's where ``chained`` (the previous rows' results
    follow the blocks, in the chains' order); ``("row", axis, parts)``: the statistic
    of the row's lines along the row axis (``_stat_row``), over the part ``parts[k]``
    of block ``k``."""

    plans: list
    mode: str
    func: Any
    layout: Optional[str]
    integer: bool
    dtype: np.dtype

    def __call__(self, blocks: List[np.ndarray], *previous: tuple) -> tuple:
        coming = iter(previous)
        acc_dtype = _sum_dtype(self.dtype) if self.mode == "mean" else self.dtype
        results = []
        for c, plan in enumerate(self.plans):
            if plan is None:
                results.append(None)
            elif plan[0] == "link":
                _, axis, s, e, chained = plan
                accs = next(coming)[c] if chained else [None] * len(blocks)
                results.append([
                    _chain_link(acc, block[_at(axis, slice(s, e))], axis, self.mode, acc_dtype)
                    for acc, block in zip(accs, blocks)])
            else:
                _, axis, parts = plan
                lines = [block[_at(axis, slice(s, e))]
                         for block, (s, e) in zip(blocks, parts) if e > s]
                results.append(_stat_row(lines, self.func, axis, self.layout, self.integer,
                                         self.dtype))
        return tuple(results)


def _walk_result(results, c, k, mode, count, integer, dtype):
    """Chain ``c``'s statistic from the last row's results: a row statistic as it is
    (``k`` None), else that of the accumulator of the row's block ``k``."""
    if k is None:
        return results[c]
    return _chain_result(results[c][k], mode, count, integer, dtype)


def _walk(array, chains: Sequence[_Chain], row_axis: Optional[int], mode, func, layout,
          integer, dtype) -> List["da.Array"]:
    """The statistics of ``chains`` of ``array`` in one pass over its blocks, one task
    per row of blocks along ``row_axis`` (per block where None), so that each block
    is read by one task whatever the number of chains (a task per chain and block
    would hold the array: dask's order does not run one block's readers together).

    Chains along ``row_axis`` (``layout``: how numpy reduces it) take whole lines of
    the row. Every other chain is along an axis that numpy reduces line after line
    (maximum, mean, minimum of numpy's own dtypes, see ``_chain_link``): the task
    combines each block's lines into the accumulator that the previous row along
    that axis passed on, in numpy's order. Returns each chain's statistic, of
    ``array``'s chunks but of one chunk of length 1 along the chain's axis."""
    bounds = [np.concatenate([[0], np.cumsum(c)]).astype(int).tolist() for c in array.chunks]
    name = "ndpad-walk-" + tokenize(array.name, list(chains), row_axis, mode, layout,
                                    str(dtype))
    grid = [range(len(c)) for c in array.chunks]
    if row_axis is not None:
        grid[row_axis] = range(1)

    def part(axis, j, chain):
        b0, b1 = bounds[axis][j], bounds[axis][j + 1]
        return max(chain.lo, b0) - b0, max(min(chain.hi, b1) - b0, 0)

    # Per chain: the blocks along its axis that hold part of its range.
    holding = []
    for c in chains:
        spans = [part(c.axis, j, c) for j in range(len(array.chunks[c.axis]))]
        holding.append([j for j, (s, e) in enumerate(spans) if e > s])
    everything = list(range(len(array.chunks[row_axis]))) if row_axis is not None else [0]
    layer = {}
    for idx in itertools.product(*grid):
        links, previous = {}, []
        for c, (chain, js) in enumerate(zip(chains, holding)):
            if chain.axis != row_axis and idx[chain.axis] in js:
                before = js.index(idx[chain.axis])
                links[c] = (chain.axis, *part(chain.axis, idx[chain.axis], chain), before > 0)
                if before > 0:
                    previous.append((name,) + _with(idx, chain.axis, js[before - 1]))
        # The row's blocks: all where a chain links them, else those holding lines
        # of a row chain.
        ks = everything if links else sorted(
            {k for c, js in zip(chains, holding) if c.axis == row_axis for k in js})
        if not ks:
            continue
        plans = [("link", *links[c]) if c in links else
                 ("row", chain.axis, [part(row_axis, k, chain) for k in ks])
                 if chain.axis == row_axis else None
                 for c, chain in enumerate(chains)]
        row = [(array.name,) + (idx if row_axis is None else _with(idx, row_axis, k))
               for k in ks]
        layer[(name,) + idx] = (_WalkStep(plans, mode, func, layout, integer, dtype), row,
                                *previous)
    meta = np.empty((0,) * array.ndim, dtype)
    walked = da.Array(HighLevelGraph.from_collections(name, layer, dependencies=[array]),
                      name, tuple((1,) * len(g) for g in grid), meta=meta)
    results = []
    for c, (chain, js) in enumerate(zip(chains, holding)):
        result = f"{name}-{c}"
        chunks = _with(array.chunks, chain.axis, (1,))
        keys = {}
        for idx in itertools.product(*(range(len(n)) for n in chunks)):
            if chain.axis == row_axis:
                keys[(result,) + idx] = (_walk_result, (name,) + idx, c, None, mode, 0,
                                         integer, dtype)
                continue
            last = _with(idx, chain.axis, js[-1])
            k = 0
            if row_axis is not None:
                k, last = idx[row_axis], _with(last, row_axis, 0)
            keys[(result,) + idx] = (_walk_result, (name,) + last, c, k, mode,
                                     chain.hi - chain.lo, integer, dtype)
        results.append(da.Array(
            HighLevelGraph.from_collections(result, keys, dependencies=[walked]),
            result, chunks, meta=meta))
    return results


def _stats(x, widths, mode, kwargs, threads, chunking=None):
    """maximum, mean, median, minimum: axis after axis, as ``numpy.pad`` (a later
    axis's statistics are taken on the array padded along the earlier axes). Each
    side's statistic is a face of length 1 along the axis; the array wrapped in its
    faces, axis after axis (the ``core``: one face element on each padded side),
    holds every value of the output, since numpy's pads repeat their face: the
    output is the core padded in mode 'edge' by the windowed kernel (``_index_pad``)
    by one element less on each padded side, the core read from a second read of
    the array that waits for every face (``_core``).

    A later axis's statistic of the core is that of the array in the middle (a pad
    line of an earlier axis is that axis's face line, which the core holds once)
    wrapped in those of the earlier faces: the array's statistics of every axis are
    taken together, in one pass over its blocks where numpy reduces line after line
    (``_walk``), else one task per row of blocks (``_lines_stat``)."""
    func = _STAT_FUNCTIONS[mode]
    lengths = _as_pairs(kwargs.get("stat_length"), x.ndim, as_index=True)
    dtype = x.dtype
    integer = np.issubdtype(dtype, np.integer)
    sides = {}  # (axis, side) -> the _Chain of that side's statistic
    layouts = {}
    for axis, ((b, a), length) in enumerate(zip(widths, lengths)):
        n = x.shape[axis]
        left = n if length[0] is None or n < length[0] else length[0]
        right = n if length[1] is None or n < length[1] else length[1]
        if (left == 0 or right == 0) and func in (np.amax, np.amin):
            raise ValueError("stat_length of 0 yields no value for padding")
        if b:
            sides[(axis, 0)] = _Chain(axis, 0, left)
        if a:
            sides[(axis, 1)] = _Chain(axis, n - right, n)
        # How numpy reduces this axis (see _stat_block): the later axes' lengths in
        # the data area, and in the whole padded array.
        later = [(x.shape[k], x.shape[k] + sum(widths[k])) for k in range(axis + 1, x.ndim)]
        if any(n_data > 1 for n_data, _ in later):
            layouts[axis] = "sequential"
        elif any(n_padded > 1 for _, n_padded in later):
            layouts[axis] = "strided"
        else:
            layouts[axis] = "contiguous"

    def statistics(array, chains, reread=False):
        """Each chain's statistic of ``array`` (of the core's extents on the earlier
        axes): one walk (``_walk``) over the rows along the last axis that takes
        whole lines (if any), with the chains numpy reduces line after line; chains
        of any other such axis (median, dtypes outside numpy's own) take whole lines
        in tasks of their own (``_lines_stat``), each such axis (where ``reread``)
        on a read of the array of its own: a block read by readers of several axes
        would wait, held, for all of them."""
        chains = list(dict.fromkeys(chains))
        nonempty = [c for c in chains if c.hi > c.lo]  # (an empty one: a mean of nothing)
        lined = {c.axis for c in nonempty
                 if layouts[c.axis] != "sequential" or not _chains(mode, dtype)}
        row_axis = max(lined, default=None)
        walked = [c for c in nonempty if c.axis == row_axis or c.axis not in lined]
        found = {}
        if walked:
            found = dict(zip(walked, _walk(
                array, walked, row_axis, mode, func,
                None if row_axis is None else layouts[row_axis], integer, dtype)))
        reads = {}  # axis -> the array its whole lines are read from
        for c in chains:
            if c not in found:
                if c.axis not in reads:
                    first = not reads and not walked
                    reads[c.axis] = array if first or not reread else clone(
                        array, seed=tokenize("ndpad-lines", array.name, c.axis))
                span = reads[c.axis][_at(c.axis, slice(c.lo, c.hi))]
                found[c] = _lines_stat(span, c.axis, func, layouts[c.axis], integer, dtype)
        return found

    found = statistics(x, sides.values(), reread=True)
    faces = {}  # (axis, side) -> that side's face of the core
    wrapped = {}  # _Chain -> its face of the core (both sides' when they share it)
    for (axis, side), chain in sides.items():
        if chain not in wrapped:
            face = found[chain]
            for earlier in range(axis):  # wrapped in the statistics of the earlier faces
                before, after = faces.get((earlier, 0)), faces.get((earlier, 1))
                of_before = None if before is None else statistics(before, [chain])[chain]
                of_after = of_before if after is before else (
                    None if after is None else statistics(after, [chain])[chain])
                parts = [f for f in (of_before, face, of_after) if f is not None]
                if len(parts) > 1:
                    face = da.concatenate(parts, axis=earlier)
            wrapped[chain] = face
        faces[(axis, side)] = wrapped[chain]
    repeats = [(max(b - 1, 0), max(a - 1, 0)) for b, a in widths]
    return _index_pad(_core(x, faces), repeats, "edge", None, None, [0] * x.ndim, threads,
                      chunking)


def _assemble_faces(chunks: list) -> tuple:
    """The faces, each from the nested list of its chunks."""
    return tuple(np.block(c) if isinstance(c, list) else c for c in chunks)


@dataclasses.dataclass(frozen=True)
class _CoreBlock:
    """One block of the core (the array wrapped in its faces): the block of the array
    it holds, wrapped in the parts of the faces it meets. ``box``: its coordinates
    in the core, per axis; ``shape``: the array's; ``faces``: per axis, the index of
    each side's face among the faces received (None: not padded)."""

    box: Tuple[Tuple[int, int], ...]
    shape: Tuple[int, ...]
    faces: Tuple[Tuple[Optional[int], Optional[int]], ...]

    def __call__(self, block: np.ndarray, faces: tuple) -> np.ndarray:
        region = list(self.box)
        out = np.empty(tuple(e - s for s, e in region), dtype=block.dtype)
        view = out
        # The core is the array wrapped axis after axis: peeled from the last axis, a
        # face of axis k spans the core on the axes before k, the array on those after.
        for k in reversed(range(len(region))):
            s, e = region[k]
            before, after = self.faces[k]
            b = int(before is not None)
            n = self.shape[k]
            lo, hi = 0, e - s
            for face, at, inside in ((before, 0, s == 0), (after, hi - 1, e == b + n + 1)):
                if face is not None and inside and hi > lo:
                    index = tuple(slice(*region[j]) if j != k else slice(0, 1)
                                  for j in range(len(region)))
                    view[_at(k, slice(at, at + 1))] = faces[face][index]
                    if at == 0:
                        lo = 1
                    else:
                        hi -= 1
            view = view[_at(k, slice(lo, hi))]
            region[k] = (max(s - b, 0), min(e - b, n))
        view[...] = block
        return out


def _core(x, faces):
    """The array wrapped in its faces (``faces``: (axis, side) -> the face), as it is
    read a second time, once every face is computed: each block of the core is a
    block of that second read wrapped in the faces it meets. The faces are
    gathered into one task that the second read waits for, so that the input blocks
    the output chunks read are not those the statistics read: the output is then
    a windowed layer over blocks read on demand (as an index mode's), not one whose
    chunks hold their blocks until the statistics of whole lines are done."""
    if not faces:
        return x
    unique = list({f.name: f for f in faces.values()}.values())
    which = {f.name: i for i, f in enumerate(unique)}
    name = "ndpad-faces-" + tokenize(x.name, [f.name for f in unique])
    key = name
    gather = HighLevelGraph.from_collections(
        name, {key: (_assemble_faces, [f.__dask_keys__() for f in unique])},
        dependencies=unique)
    barrier = Delayed(key, gather)
    again = bind(x, barrier, seed=tokenize("ndpad-again", name))
    index = tuple((None if faces.get((k, 0)) is None else which[faces[(k, 0)].name],
                   None if faces.get((k, 1)) is None else which[faces[(k, 1)].name])
                  for k in range(x.ndim))
    chunks = []
    for k, cs in enumerate(x.chunks):
        cs = list(cs)
        cs[0] += index[k][0] is not None
        cs[-1] += index[k][1] is not None
        chunks.append(tuple(cs))
    bounds = [np.concatenate([[0], np.cumsum(c)]).astype(int).tolist() for c in chunks]
    core_name = "ndpad-core-" + tokenize(again.name, name)
    layer = {}
    keys = {}
    for idx in itertools.product(*(range(len(c)) for c in chunks)):
        if not any((j == 0 and b is not None) or (j == len(c) - 1 and a is not None)
                   for j, c, (b, a) in zip(idx, chunks, index)):
            keys[idx] = (again.name,) + idx  # a block of the array as it is
            continue
        box = tuple((bounds[k][j], bounds[k][j + 1]) for k, j in enumerate(idx))
        keys[idx] = (core_name,) + idx
        layer[keys[idx]] = (_CoreBlock(box, x.shape, index), (again.name,) + idx, key)
    graph = HighLevelGraph.from_collections(core_name, layer, dependencies=[again, barrier])
    return _Source(core_name, tuple(chunks), x.dtype, keys, graph,
                   (core_name,) + again.__dask_layers__())


class _Source(NamedTuple):
    """An array the windowed layer reads that is not a dask array of its own: its
    ``name`` (a token), ``chunks``, ``dtype``, each block's ``keys`` (by block index),
    the ``graph`` that computes them and its ``layers`` that hold them."""

    name: str
    chunks: Tuple[Tuple[int, ...], ...]
    dtype: np.dtype
    keys: dict
    graph: HighLevelGraph
    layers: Tuple[str, ...]

    @property
    def shape(self) -> Tuple[int, ...]:
        return tuple(sum(c) for c in self.chunks)

    @property
    def ndim(self) -> int:
        return len(self.chunks)


def _zero_step(edge, end, width, axis):
    """Whether numpy.linspace's step is 0 on some line of this chunk (length 1 along
    every axis)."""
    _, step = np.linspace(start=end, stop=edge.squeeze(axis), num=width,
                          endpoint=False, retstep=True)
    return np.full((1,) * edge.ndim, bool(np.asanyarray(step == 0).any()))


def _ramp_block(edge, zero_somewhere, end, width, axis, dtype, reverse):
    """numpy.pad's ramp of one side for a chunk of lines (``edge``: their edge values,
    length 1 along ``axis``).

    numpy.linspace computes every line by another formula when the step of any line
    is 0 (denormals, numpy gh-5437), and numpy.pad ramps all the lines of an axis in
    one call: where some line of the whole axis has a zero step and none of this
    chunk has, a line of zero step (the end value itself) is added to the call and
    dropped from its result."""
    stop = edge.squeeze(axis)
    kwargs = dict(start=end, num=width, endpoint=False, dtype=dtype)
    if stop.ndim and stop.size and bool(zero_somewhere):
        _, step = np.linspace(stop=stop, retstep=True, **{**kwargs, "dtype": None})
        if not np.asanyarray(step == 0).any():
            inexact = np.asarray(step).dtype
            lines = np.append(stop.reshape(-1).astype(inexact),
                              np.asarray(end, dtype=inexact).reshape(1))
            ramp = np.linspace(stop=lines, axis=-1, **kwargs)[:-1]
            ramp = np.moveaxis(ramp.reshape(stop.shape + (width,)), -1, axis)
            return ramp[_at(axis, slice(None, None, -1))] if reverse else ramp
    ramp = np.linspace(stop=stop, axis=axis, **kwargs)
    return ramp[_at(axis, slice(None, None, -1))] if reverse else ramp


def _ramps(x, widths, kwargs):
    ends = _as_pairs(kwargs.get("end_values", 0), x.ndim)
    dtype = x.dtype
    units = _units(x.chunks, [n + b + a for n, (b, a) in zip(x.shape, widths)], dtype)
    for axis, ((b, a), (end_b, end_a)) in enumerate(zip(widths, ends)):
        if b == 0 and a == 0:
            continue
        n = x.shape[axis]
        unit = units[axis]

        def ramp(lo, width, end, reverse, x=x, axis=axis):
            edge = x[_at(axis, slice(lo, lo + 1))]
            flags = edge.map_blocks(_zero_step, end, width, axis,
                                    chunks=tuple((1,) * len(c) for c in edge.chunks),
                                    dtype=bool)
            whole = da.map_blocks(_ramp_block, edge, flags.any(), end, width, axis,
                                  dtype, reverse,
                                  chunks=_with(edge.chunks, axis, (width,)), dtype=dtype)
            return whole.rechunk({axis: tuple(_split(width, unit))})

        parts = []
        if b:
            parts.append(ramp(0, b, end_b, False))
        parts.append(x)
        if a:
            parts.append(ramp(n - 1, a, end_a, True))
        x = da.concatenate(parts, axis=axis)
    return x


# ---------------------------------------------------------------------------
# reflect_type='odd' and callable modes: numpy's algorithm, one axis at a time
# ---------------------------------------------------------------------------


def _per_axis(x, widths, pad_lines, every_axis: bool):
    """Each axis in turn: whole lines of it in one chunk, ``pad_lines(chunk, axis,
    pair)`` pads them along it, then the result is cut into the regular chunks."""
    out_shape = [n + b + a for n, (b, a) in zip(x.shape, widths)]
    units = _units(x.chunks, out_shape, x.dtype)  # those of the result, as _regular's
    for axis, (b, a) in enumerate(widths):
        if not every_axis and b == 0 and a == 0:
            continue
        extent = out_shape[axis]
        target = _axis_chunks(units[axis], extent)
        lines = x.rechunk({axis: -1})
        padded = lines.map_blocks(pad_lines, axis, (b, a),
                                  chunks=_with(lines.chunks, axis, (extent,)),
                                  dtype=x.dtype)
        x = padded.rechunk({axis: target})
    return x


def _odd_lines(block, axis, pair, mode):
    widths = [(0, 0)] * block.ndim
    widths[axis] = pair
    return _numpy_pad(block, widths, mode, reflect_type="odd")


def _odd_path(x, widths, mode):
    return _per_axis(x, widths, functools.partial(_odd_lines, mode=mode), False)


class _OnlyAxis:
    """A padding function called for one axis only (the others are padded in their
    own step)."""

    def __init__(self, function, axis):
        self.function = function
        self.axis = axis

    def __call__(self, vector, iaxis_pad_width, iaxis, kwargs):
        if iaxis == self.axis:
            return self.function(vector, iaxis_pad_width, iaxis, kwargs)
        return None


def _callable_lines(block, axis, pair, function, kwargs):
    widths = [(0, 0)] * block.ndim
    widths[axis] = pair
    return _numpy_pad(block, widths, _OnlyAxis(function, axis), **kwargs)


def _callable_path(x, widths, function, kwargs):
    return _per_axis(
        x, widths,
        functools.partial(_callable_lines, function=function, kwargs=kwargs), True)
