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
* ``reflect_type='odd'`` (reflect, symmetric): one graph layer of regular chunks,
  as in the index modes, each chunk computed by the Rust numpy front end from the
  input region its box needs (``_ndpad.odd_window``: whole lines along each padded
  axis whose pads the box reaches into, the box's own range elsewhere), numpy's
  chunks in numpy's order, bit for bit (numpy's own algorithm on that region for the
  dtypes the front end does not compute).
* A callable ``mode`` takes a simpler path: for each axis in turn, the array is
  rechunked to whole lines along that axis, each chunk is padded along that axis by
  numpy's own algorithm, and the result is rechunked to the output chunks.

The package, by mode family: ``_index`` (the windowed layer of the index modes, which
every other family but the per-axis path ends in), ``_stats`` (the statistic modes'
faces and core) and ``_walk`` (their statistics), ``_ramp`` (linear_ramp), ``_odd``
(odd reflection), ``_lines`` (the per-axis path of a callable mode), ``_chunks`` (the
output chunks). The arguments are checked, and
each mode handed to its family (``_Dask``), by the helpers ``ndpad.pad`` shares
(``ndpad._dispatch``).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Optional

import numpy as np

import dask.array as da

from .. import _dispatch as dispatch
from .._numpy import pad as ndpad_pad
from ._chunks import Chunking, regular_chunks
from ._index import index_pad
from ._lines import callable_path
from ._odd import odd_pad
from ._ramp import ramped
from ._stats import pad_stats

__all__ = ["pad"]


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
        'reflect', 'symmetric': 'odd' extends by ``2 * edge - reflection``, each chunk
        of the result computed from the input lines it needs (see above).

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
        An error that depends on the values is not seen then: a timedelta64 'mean'
        raises numpy's TypeError here where numpy 2.5 raises OverflowError for a
        sum that overflows.
    ndpad.PadError
        An invalid use of the keywords beyond numpy (a ValueError).

    Notes
    -----
    Object arrays take the same windowed path as other dtypes (the kernel pads element
    indices, numpy gathers the objects). Only a callable ``mode`` falls back to the
    per-axis path (numpy's algorithm on whole lines, then rechunked); every other mode
    and option is computed as described above.

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
    dispatch.check_negative_pads(negative_pads)
    widths = dispatch.normalize_widths(pad_width, x.ndim, negative_pads is not None)
    nthreads = 1 if threads is None else dispatch.threads(threads)
    chunking = Chunking(chunks, x.chunks, widths)

    if x.ndim == 0:
        # numpy's rules for 0-d arrays (checks of the mode's values, the result
        # unchanged) on the one chunk; a sample first, for the errors.
        call = functools.partial(ndpad_pad, pad_width=pad_width, mode=mode,
                                 negative_pads=negative_pads, interior=interior, **kwargs)
        call(np.zeros((), dtype=x.dtype))
        return x.map_blocks(call, dtype=x.dtype)

    if callable(mode):
        dispatch.refuse_extensions(negative_pads, interior, None)
        return chunking.apply(callable_path(x, widths, mode, kwargs))

    modes = dispatch.parse_modes(mode, x.ndim, kwargs)
    interiors = dispatch.parse_interior(interior, modes)

    chunking.interiors = interiors
    result = x
    groups = dispatch.mode_groups(modes, widths, interiors)
    for k, (m, part, part_interior) in enumerate(groups):
        last = k == len(groups) - 1
        padder = _Dask(nthreads, chunking if last else None)
        result = dispatch.pad_one_mode(padder, result, part, m, kwargs, negative_pads,
                                       part_interior)
    if chunking.changes_nothing():
        # After every check of the arguments: x itself, as dask.array.pad returns it.
        return x if chunking.keep or chunking.auto else chunking.apply(x)
    return chunking.apply(result)


class _Dask(dispatch.Padder):
    """The mode families of a dask array, with ``threads`` of the kernel in each task;
    ``chunking``: the chunks of the result where they are the output's."""

    __slots__ = ("threads", "chunking")

    def __init__(self, threads: int, chunking: Optional[Chunking]) -> None:
        self.threads = threads
        self.chunking = chunking

    def index(self, x, widths, mode, values, negative_pads, interiors):
        return index_pad(x, widths, mode, values, negative_pads, interiors, self.threads,
                         self.chunking)

    def empty(self, x, shape):
        chunks = regular_chunks(x.chunks, shape, x.dtype)
        return da.empty(shape, dtype=x.dtype, chunks=chunks)

    def odd(self, x, widths, mode):
        return odd_pad(x, widths, mode, self.threads, self.chunking)

    def ramps(self, x, widths, kwargs):
        _probe(x, widths, "linear_ramp", kwargs)
        # The ramped array, cut into the output chunks by the windowed kernel.
        return index_pad(ramped(x, widths, kwargs), [(0, 0)] * x.ndim, "edge", None, None,
                         [0] * x.ndim, self.threads, self.chunking)

    def stats(self, x, widths, mode, kwargs):
        _probe(x, widths, mode, kwargs)
        return pad_stats(x, widths, mode, kwargs, self.threads, self.chunking)


def _probe(x, widths, mode, kwargs) -> None:
    """numpy's errors of a mode on this dtype and these keywords (stat_length of 0,
    a statistic the dtype has not, values that do not cast), raised now: ``ndpad.pad``
    on a sample of at most one element per axis."""
    sample = np.zeros(tuple(min(n, 1) for n in x.shape), dtype=x.dtype)
    clipped = [(min(max(b, 0), 1), min(max(a, 0), 1)) for b, a in widths]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ndpad_pad(sample, clipped, mode, threads=1, **kwargs)
