"""A callable ``mode``: numpy's algorithm, one axis at a time on whole lines of that
axis, rechunked to the output chunks."""

from __future__ import annotations

import functools

from .._dispatch import numpy_pad
from ._chunks import axis_chunks, chunk_units
from ._common import replaced


def _per_axis(x, widths, pad_lines):
    """Each axis in turn (every axis: numpy calls a callable mode on each, padded or
    not): whole lines of it in one chunk, ``pad_lines(chunk, axis, pair)`` pads them
    along it, then the result is cut into the regular chunks."""
    out_shape = [n + b + a for n, (b, a) in zip(x.shape, widths)]
    units = chunk_units(x.chunks, out_shape, x.dtype)  # those of the result, as _regular's
    for axis, (b, a) in enumerate(widths):
        extent = out_shape[axis]
        target = axis_chunks(units[axis], extent)
        lines = x.rechunk({axis: -1})
        padded = lines.map_blocks(pad_lines, axis, (b, a),
                                  chunks=replaced(lines.chunks, axis, (extent,)),
                                  dtype=x.dtype)
        x = padded.rechunk({axis: target})
    return x


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
    return numpy_pad(block, widths, _OnlyAxis(function, axis), **kwargs)


def callable_path(x, widths, function, kwargs):
    return _per_axis(
        x, widths,
        functools.partial(_callable_lines, function=function, kwargs=kwargs))
