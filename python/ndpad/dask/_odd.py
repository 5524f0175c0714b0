"""``reflect_type='odd'`` (reflect, symmetric): one graph layer, one task per output
chunk, each computing its box from the input region it needs
(``_ndpad.odd_window``): whole lines along each padded axis whose pads the box
reaches into, the box's own range elsewhere. The task receives the input blocks
overlapping that region (as the index modes' windowed layer does, ``_index``) and
computes the box by the Rust numpy front end, numpy's chunks in numpy's order
(``ndpad._odd.pad_odd_box``; numpy's own algorithm on the region for the dtypes
it does not compute)."""

from __future__ import annotations

import numpy as np

import dask.array as da
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from .. import _ndpad
from .._odd import pad_odd_box
from ._chunks import regular_chunks
from ._index import reads_layer


class _OddPlan:
    """An odd pad of the whole array, picklable."""

    def __init__(self, dtype, shape, widths, mode, threads):
        self.dtype = dtype
        self.shape = [int(n) for n in shape]
        self.widths = [(int(b), int(a)) for b, a in widths]
        self.mode = mode
        self.threads = threads
        # The checks of the pad (an empty axis padded: numpy's error).
        _ndpad.odd_window(self.shape, self.widths, [(0, 0)] * len(self.shape))

    def axis_reads(self, axis: int, box):
        """The input interval the output range ``box`` of ``axis`` reads (none for an
        empty range)."""
        ((s, e),) = _ndpad.odd_window([self.shape[axis]], [self.widths[axis]], [box])
        return [(s, e)] if e > s else []


class _OddBlock:
    """The task of one output chunk: its box from the input region it reads."""

    def __init__(self, plan: _OddPlan, received):
        self.plan = plan
        self.received = received

    def __call__(self, *blocks: np.ndarray) -> np.ndarray:
        plan = self.plan
        box = [tuple(b) for b in self.received.box]
        region = _ndpad.odd_window(plan.shape, plan.widths, box)
        src = self.received.gather([[r] for r in region], blocks, plan.dtype)
        return pad_odd_box(src, plan.shape, plan.widths, plan.mode, region, box,
                           threads=plan.threads)


def odd_pad(x, widths, mode, threads, chunking=None) -> da.Array:
    """reflect / symmetric with ``reflect_type='odd'``: one windowed layer into the
    output chunks (those of ``chunking``, else the regular ones of ``x``'s chunks)."""
    dtype = x.dtype
    plan = _OddPlan(dtype, x.shape, widths, mode, threads)
    out_shape = tuple(n + b + a for n, (b, a) in zip(plan.shape, plan.widths))
    if chunking is None:
        out_chunks = list(regular_chunks(x.chunks, out_shape, dtype))
    else:
        out_chunks = list(chunking.target(out_shape, dtype))
    name = "ndpad-odd-" + tokenize(x.name, plan.widths, mode, threads, str(dtype),
                                   out_chunks)
    layer = reads_layer(x, plan, out_chunks, name, _OddBlock)
    graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, tuple(out_chunks), meta=np.empty((0,) * x.ndim, dtype))
