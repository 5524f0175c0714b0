"""The statistics of the array itself for every padded axis, in one walk over its
blocks (``walk``) where numpy reduces line after line, else by whole lines
(``lines_stat``): numpy's own functions, in numpy's order of combination."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

import numpy as np

import dask.array as da
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from .._dispatch import along
from ._common import replaced


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
        index = along(slab_axis, slice(lo, lo + step))
        parts.append(stat(np.concatenate([b[index] for b in blocks], axis=axis)))
    return np.concatenate(parts, axis=slab_axis)


def lines_stat(span, axis, func, layout, integer, dtype):
    """The statistic of ``span``'s lines along ``axis`` (length 1 there) by numpy's own
    function on whole lines: one task per row of blocks along the axis, which receives
    the row's blocks (``_stat_row``; no rechunked copy of the array is made) and
    returns only the lines' statistics."""
    ind = tuple(range(span.ndim))
    out = replaced(ind, axis, span.ndim)  # the axis contracted, a new one of length 1
    stat = functools.partial(_stat_row, func=func, axis=axis, layout=layout,
                             integer=integer, dtype=dtype)
    return da.blockwise(stat, out, span, ind, concatenate=False,
                        new_axes={span.ndim: 1}, token="ndpad-stat-lines", dtype=dtype,
                        meta=np.empty((0,) * span.ndim, dtype))


# The statistics a chain computes, by dtype kind: numpy's own dtypes in native byte
# order. Others (objects, strings, ml_dtypes' types, byte-swapped), median, and the
# pairwise axes take whole lines (``lines_stat``).
_CHAIN_KINDS = {"maximum": "biufcM", "minimum": "biufcM", "mean": "biufc"}


_CHAIN_UFUNCS = {"maximum": np.maximum, "minimum": np.minimum}


def chainable(mode: str, dtype: np.dtype) -> bool:
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


class Chain(NamedTuple):
    """The statistic of the lines along ``axis`` over the range [``lo``, ``hi``) of it
    (one side's ``stat_length``)."""

    axis: int
    lo: int
    hi: int


@dataclasses.dataclass(frozen=True)
class _WalkStep:
    """The task of one row of blocks in ``walk`` (the blocks along its row axis, or
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
        results: List[Any] = []
        for c, plan in enumerate(self.plans):
            if plan is None:
                results.append(None)
            elif plan[0] == "link":
                _, axis, s, e, chained = plan
                accs = next(coming)[c] if chained else [None] * len(blocks)
                results.append([
                    _chain_link(acc, block[along(axis, slice(s, e))], axis, self.mode,
                                acc_dtype)
                    for acc, block in zip(accs, blocks)])
            else:
                _, axis, parts = plan
                lines = [block[along(axis, slice(s, e))]
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


def walk(array, chains: Sequence[Chain], row_axis: Optional[int], mode, func, layout,
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
    for chain in chains:
        spans = [part(chain.axis, j, chain) for j in range(len(array.chunks[chain.axis]))]
        holding.append([j for j, (s, e) in enumerate(spans) if e > s])
    everything = list(range(len(array.chunks[row_axis]))) if row_axis is not None else [0]
    layer: Dict[Any, Any] = {}
    for idx in itertools.product(*grid):
        links, previous = {}, []
        for c, (chain, js) in enumerate(zip(chains, holding)):
            if chain.axis != row_axis and idx[chain.axis] in js:
                before = js.index(idx[chain.axis])
                links[c] = (chain.axis, *part(chain.axis, idx[chain.axis], chain), before > 0)
                if before > 0:
                    previous.append((name,) + replaced(idx, chain.axis, js[before - 1]))
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
        row = [(array.name,) + (idx if row_axis is None else replaced(idx, row_axis, k))
               for k in ks]
        layer[(name,) + idx] = (_WalkStep(plans, mode, func, layout, integer, dtype), row,
                                *previous)
    meta = np.empty((0,) * array.ndim, dtype)
    # (Any: dask's Array is not the DaskCollection that from_collections is typed with.)
    walked: Any = da.Array(HighLevelGraph.from_collections(name, layer, dependencies=[array]),
                           name, tuple((1,) * len(g) for g in grid), meta=meta)
    results = []
    for c, (chain, js) in enumerate(zip(chains, holding)):
        result = f"{name}-{c}"
        chunks = replaced(array.chunks, chain.axis, (1,))
        keys: Dict[Any, Any] = {}
        for idx in itertools.product(*(range(len(n)) for n in chunks)):
            if chain.axis == row_axis:
                keys[(result,) + idx] = (_walk_result, (name,) + idx, c, None, mode, 0,
                                         integer, dtype)
                continue
            last = replaced(idx, chain.axis, js[-1])
            k = 0
            if row_axis is not None:
                k, last = idx[row_axis], replaced(last, row_axis, 0)
            keys[(result,) + idx] = (_walk_result, (name,) + last, c, k, mode,
                                     chain.hi - chain.lo, integer, dtype)
        results.append(da.Array(
            HighLevelGraph.from_collections(result, keys, dependencies=[walked]),
            result, chunks, meta=meta))
    return results
