"""The statistic modes (maximum, mean, median, minimum): the statistics (``_walk``)
wrapped around the array as faces (the "core"), read again once they are taken, then
padded in mode 'edge' by the windowed layer (``_index``)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Optional, Tuple

import numpy as np

import dask.array as da
from dask.base import tokenize
from dask.delayed import Delayed
from dask.graph_manipulation import bind, clone
from dask.highlevelgraph import HighLevelGraph

from .._dispatch import STAT_FUNCTIONS, along, as_pairs
from ._index import Source, index_pad
from ._walk import Chain, chainable, lines_stat, walk


def pad_stats(x, widths, mode, kwargs, threads, chunking=None):
    """maximum, mean, median, minimum: axis after axis, as ``numpy.pad`` (a later
    axis's statistics are taken on the array padded along the earlier axes). Each
    side's statistic is a face of length 1 along the axis; the array wrapped in its
    faces, axis after axis (the ``core``: one face element on each padded side),
    holds every value of the output, since numpy's pads repeat their face: the
    output is the core padded in mode 'edge' by the windowed kernel (``index_pad``)
    by one element less on each padded side, the core read from a second read of
    the array that waits for every face (``_core``).

    A later axis's statistic of the core is that of the array in the middle (a pad
    line of an earlier axis is that axis's face line, which the core holds once)
    wrapped in those of the earlier faces: the array's statistics of every axis are
    taken together, in one pass over its blocks where numpy reduces line after line
    (``walk``), else one task per row of blocks (``lines_stat``)."""
    func = STAT_FUNCTIONS[mode]
    lengths = as_pairs(kwargs.get("stat_length"), x.ndim, as_index=True)
    dtype = x.dtype
    integer = np.issubdtype(dtype, np.integer)
    sides = {}  # (axis, side) -> the Chain of that side's statistic
    layouts = {}
    for axis, ((b, a), length) in enumerate(zip(widths, lengths)):
        n = x.shape[axis]
        left = n if length[0] is None or n < length[0] else length[0]
        right = n if length[1] is None or n < length[1] else length[1]
        if (left == 0 or right == 0) and func in (np.amax, np.amin):
            raise ValueError("stat_length of 0 yields no value for padding")
        if b:
            sides[(axis, 0)] = Chain(axis, 0, left)
        if a:
            sides[(axis, 1)] = Chain(axis, n - right, n)
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
        axes): one walk (``walk``) over the rows along the last axis that takes
        whole lines (if any), with the chains numpy reduces line after line; chains
        of any other such axis (median, dtypes outside numpy's own) take whole lines
        in tasks of their own (``lines_stat``), each such axis (where ``reread``)
        on a read of the array of its own: a block read by readers of several axes
        would wait, held, for all of them."""
        chains = list(dict.fromkeys(chains))
        nonempty = [c for c in chains if c.hi > c.lo]  # (an empty one: a mean of nothing)
        lined = {c.axis for c in nonempty
                 if layouts[c.axis] != "sequential" or not chainable(mode, dtype)}
        row_axis = max(lined, default=None)
        walked = [c for c in nonempty if c.axis == row_axis or c.axis not in lined]
        found = {}
        if walked:
            found = dict(zip(walked, walk(
                array, walked, row_axis, mode, func,
                None if row_axis is None else layouts[row_axis], integer, dtype)))
        reads = {}  # axis -> the array its whole lines are read from
        for c in chains:
            if c not in found:
                if c.axis not in reads:
                    first = not reads and not walked
                    reads[c.axis] = array if first or not reread else clone(
                        array, seed=tokenize("ndpad-lines", array.name, c.axis))
                span = reads[c.axis][along(c.axis, slice(c.lo, c.hi))]
                found[c] = lines_stat(span, c.axis, func, layouts[c.axis], integer, dtype)
        return found

    found = statistics(x, sides.values(), reread=True)
    faces = {}  # (axis, side) -> that side's face of the core
    wrapped = {}  # Chain -> its face of the core (both sides' when they share it)
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
    return index_pad(_core(x, faces), repeats, "edge", None, None, [0] * x.ndim, threads,
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
                    view[along(k, slice(at, at + 1))] = faces[face][index]
                    if at == 0:
                        lo = 1
                    else:
                        hi -= 1
            view = view[along(k, slice(lo, hi))]
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
    return Source(core_name, tuple(chunks), x.dtype, keys, graph,
                   (core_name,) + again.__dask_layers__())
