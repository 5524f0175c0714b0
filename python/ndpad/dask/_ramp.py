"""linear_ramp: ``numpy.linspace`` from the edge chunks, broadcast into pad chunks,
axis after axis (the ramped array, which the windowed layer cuts into the output
chunks)."""

from __future__ import annotations

import numpy as np

import dask.array as da

from .._dispatch import along, as_pairs
from ._chunks import chunk_units, split
from ._common import replaced


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
            return ramp[along(axis, slice(None, None, -1))] if reverse else ramp
    ramp = np.linspace(stop=stop, axis=axis, **kwargs)
    return ramp[along(axis, slice(None, None, -1))] if reverse else ramp


def ramped(x, widths, kwargs):
    ends = as_pairs(kwargs.get("end_values", 0), x.ndim)
    dtype = x.dtype
    units = chunk_units(x.chunks, [n + b + a for n, (b, a) in zip(x.shape, widths)], dtype)
    for axis, ((b, a), (end_b, end_a)) in enumerate(zip(widths, ends)):
        if b == 0 and a == 0:
            continue
        n = x.shape[axis]
        unit = units[axis]

        def ramp(lo, width, end, reverse, x=x, axis=axis):
            edge = x[along(axis, slice(lo, lo + 1))]
            flags = edge.map_blocks(_zero_step, end, width, axis,
                                    chunks=tuple((1,) * len(c) for c in edge.chunks),
                                    dtype=bool)
            whole = da.map_blocks(_ramp_block, edge, flags.any(), end, width, axis,
                                  dtype, reverse,
                                  chunks=replaced(edge.chunks, axis, (width,)), dtype=dtype)
            return whole.rechunk({axis: tuple(split(width, unit))})

        parts = []
        if b:
            parts.append(ramp(0, b, end_b, False))
        parts.append(x)
        if a:
            parts.append(ramp(n - 1, a, end_a, True))
        x = da.concatenate(parts, axis=axis)
    return x
