"""The index modes (constant, edge, reflect, symmetric, wrap, empty; with
``negative_pads=`` and ``interior=``): one graph layer of windowed kernel calls, one
per output chunk, each reading only the input blocks its box reads. The statistic
modes and linear_ramp end in this layer too (mode 'edge' over the array wrapped in its
faces, or the ramped array)."""

from __future__ import annotations

import bisect
import itertools
import math
from typing import List, NamedTuple, Tuple

import numpy as np

import dask.array as da
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from .. import _dispatch as dispatch
from ._chunks import regular_chunks
from ._common import INTP


class _Plan:
    """An index-mode pad of the whole array, picklable (the kernel's specs are
    planned again where a task runs). ``values``: the constants' bytes (one per side,
    or none); ``cells``: the constants of a pad whose elements the kernel pads by
    index (``indexed``: objects, or constants the kernel cannot write as bytes), to be
    gathered (``dispatch.gather``)."""

    def __init__(self, dtype, shape, widths, interiors, mode, values, negative_pads,
                 cells, indexed, threads):
        self.dtype = dtype
        self.shape = list(shape)
        self.widths = [tuple(w) for w in widths]
        self.interiors = list(interiors)
        self.mode = mode
        self.values = list(values)
        self.negative_pads = negative_pads
        self.cells = cells
        self.indexed = indexed
        self.threads = threads
        self.itemsize = INTP.itemsize if indexed else dtype.itemsize
        self.out_shape = tuple(self.spec().output_shape)  # the kernel's checks

    def spec(self, shape=None, widths=None, interiors=None):
        return dispatch.index_spec(
            self.itemsize,
            self.shape if shape is None else shape,
            self.widths if widths is None else widths,
            self.interiors if interiors is None else interiors,
            self.mode,
            self.values if shape is None else [],
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
    """What the task of one output chunk receives of the input (``reads_layer``): its
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
        if plan.indexed:
            return self._indexed(window, src, shape)
        out, memory = dispatch.new_output(shape, plan.dtype, like=src)
        window.execute(src, out, plan.threads, memory)
        return out

    def _indexed(self, window, src, shape) -> np.ndarray:
        """The kernel pads the indices of the region's elements (each side's constant
        a negative index of its own); numpy gathers the elements and the constants
        (``dispatch.gather``)."""
        plan = self.plan
        index = np.arange(src.size, dtype=np.intp).reshape(src.shape)
        picked = np.empty(shape, dtype=np.intp)
        window.execute(index, picked, plan.threads)
        result = np.empty(shape, dtype=plan.dtype)
        dispatch.gather(result, src, picked, plan.cells)
        return result


def _slab(block: np.ndarray, index) -> np.ndarray:
    """A copy of part of an input block (not a view, which would keep the block)."""
    return np.array(block[index], copy=True)


def reads_layer(x, plan, out_chunks, name, task=_Block) -> dict:
    """A graph layer of one ``_Block`` task per output chunk (``out_chunks``, per
    axis) that receives the input blocks of ``x`` its box reads (``plan.axis_reads``
    names the sorted, disjoint input intervals an output range of an axis reads;
    ``task``: the class of the task, called with the plan and what it receives).

    A task that reads at most half of an input block receives a copy
    of what it reads there (a slab task of its own, shared by the chunks reading the
    same part), not the block: the block is then freed once its slabs and the chunks
    reading most of it are done, rather than held until every chunk reading any of
    it is (wrap's chunks read both ends of each axis)."""
    if isinstance(x, Source):
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
            span = (start, start + c)
            start += c
            hulls: dict = {}  # input block -> the hull of what the span reads in it
            for r0, r1 in (plan.axis_reads(k, span) if c else []):
                j = bisect.bisect_right(in_stops[k], r0)
                while j < len(in_starts[k]) and in_starts[k][j] < r1:
                    if in_stops[k][j] > in_starts[k][j]:
                        lo = max(r0, in_starts[k][j])
                        hi = min(r1, in_stops[k][j])
                        h = hulls.get(j, (lo, hi))
                        hulls[j] = (min(h[0], lo), max(h[1], hi))
                    j += 1
            info.append((span, sorted(hulls.items())))
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
        layer[(name,) + pick] = (task(plan, _Received(box, starts, stops, origins)),
                                 *keys)
    return layer


def index_pad(x, widths, mode, values, negative_pads, interiors, threads,
              chunking=None) -> da.Array:
    """The index modes: one layer, one windowed kernel call per output chunk (those
    of ``chunking``, else the regular ones of ``x``'s chunks)."""
    dtype = x.dtype
    shape = tuple(int(n) for n in x.shape)
    given, values = values, []
    cells = None
    indexed = dtype.hasobject
    if mode == "constant":
        # numpy allocates the output (its errors) before it casts the constants.
        dispatch.output_shape(shape, widths, interiors)
        c = dispatch.constants(dtype, given, interiors)
        cells, indexed = c.cells, c.indexed
        values = (dispatch.index_values(x.ndim, interiors) if indexed
                  else c.values)
    plan = _Plan(dtype, shape, widths, interiors, mode, values, negative_pads,
                 cells, indexed, threads)
    out_shape = plan.out_shape

    if chunking is None:
        out_chunks = list(regular_chunks(x.chunks, out_shape, dtype))
    else:
        out_chunks = list(chunking.target(out_shape, dtype))
    name = "ndpad-pad-" + tokenize(
        x.name, widths, mode, values, negative_pads, interiors, threads,
        None if cells is None else [[repr(c[()]) for c in pair] for pair in cells],
        str(dtype), out_chunks)
    layer = reads_layer(x, plan, out_chunks, name)
    if isinstance(x, Source):
        graph = HighLevelGraph({**x.graph.layers, name: layer},
                               {**x.graph.dependencies, name: set(x.layers)})
    else:
        graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, tuple(out_chunks), meta=np.empty((0,) * x.ndim, dtype))


class Source(NamedTuple):
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
