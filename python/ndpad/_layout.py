"""Memory layouts of ``ndpad.pad``'s outputs: numpy.pad's, or one asked for
(``order=``), as the axes outermost first.

A layout is a permutation of the array's axes, from the one of largest stride to the
one of smallest: ``[0, 1, ..]`` is C order, ``[.., 1, 0]`` Fortran order, and a
channels-last image seen as NCHW is ``[0, 2, 3, 1]``. The kernel pads the input's
transpose to the layout into a C-ordered output, which is then the output laid out
so, transposed back (``_numpy._run``).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _dispatch as dispatch

Axes = List[int]


def numpy_axes(array: np.ndarray) -> Axes:
    """numpy.pad's layout of the pad of ``array``: Fortran order for an
    F-contiguous input that is not C-contiguous, else C order."""
    axes = list(range(array.ndim))
    fortran = array.flags.f_contiguous and not array.flags.c_contiguous
    return axes[::-1] if fortran else axes


def strides_axes(array: np.ndarray) -> Axes:
    """numpy's 'K' order of ``array`` (that of ``numpy.empty_like(array, shape,
    order='K')``), outermost to innermost: C order for a C-contiguous array, Fortran
    order for an F-contiguous one (whatever the strides of its axes of one element),
    else the axes by their strides, largest first, ties in turn."""
    axes = list(range(array.ndim))
    if array.flags.c_contiguous:
        return axes
    if array.flags.f_contiguous:
        return axes[::-1]
    strides = array.strides
    return sorted(axes, key=lambda a: -abs(strides[a]))


def asked_axes(array: np.ndarray, order: str) -> Axes:
    """The layout ``order`` ('C', 'F' or 'K') asks for the pad of ``array``."""
    if order == "K":
        return strides_axes(array)
    axes = list(range(array.ndim))
    return axes[::-1] if order == "F" else axes


def out_axes(out: Any, array: np.ndarray) -> Optional[Axes]:
    """The layout of ``out``, an output for the pad of ``array``, in which it is one
    C-ordered block: numpy.pad's where it is that, else that of its strides; None
    where it is neither (a strided view, or not an array of ``array``'s rank, which
    the shape check then reports)."""
    if not isinstance(out, np.ndarray) or out.ndim != array.ndim:
        return None
    for axes in (numpy_axes(array), strides_axes(out)):
        if out.transpose(axes).flags.c_contiguous:
            return axes
    return None


def back(axes: Sequence[int]) -> Axes:
    """The permutation that undoes the transpose to ``axes``."""
    return sorted(range(len(axes)), key=axes.__getitem__)


def transposed(made: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """``made``, the C-ordered pad of the transpose to ``axes``, transposed back."""
    if list(axes) == sorted(axes):
        return made
    return made.transpose(back(axes))


def new_output(shape: Tuple[int, ...], dtype: np.dtype, axes: Sequence[int],
               zeros: bool = False, like: Optional[np.ndarray] = None
               ) -> Tuple[np.ndarray, str]:
    """``dispatch.new_output`` of ``shape`` laid out as ``axes`` (an array of its own
    in C or Fortran order, else the transpose of a C-ordered one), and what its
    memory holds."""
    order = _order(axes)
    if order is not None:
        return dispatch.new_output(shape, dtype, order, zeros=zeros, like=like)
    made, memory = dispatch.new_output(tuple(shape[a] for a in axes), dtype, "C",
                                       zeros=zeros, like=like)
    return made.transpose(back(axes)), memory


def empty(shape: Tuple[int, ...], dtype: np.dtype, axes: Sequence[int]) -> np.ndarray:
    """``numpy.empty`` of ``shape`` laid out as ``axes`` (its elements initialized as
    numpy initializes them: None for objects)."""
    order = _order(axes)
    if order is not None:
        return np.empty(shape, dtype=dtype, order=order)
    return np.empty([shape[a] for a in axes], dtype=dtype).transpose(back(axes))


def laid(result: np.ndarray, axes: Optional[Sequence[int]]) -> np.ndarray:
    """``result`` where it is laid out as ``axes`` (None: as it is), else a copy so
    laid out."""
    if axes is None or result.transpose(axes).flags.c_contiguous:
        return result
    copy = empty(result.shape, result.dtype, axes)
    np.copyto(copy, result, casting="no")
    return copy


def _order(axes: Sequence[int]) -> Optional[str]:
    """'C' or 'F' where ``axes`` are that order, else None."""
    axes = list(axes)
    if axes == sorted(axes):
        return "C"
    if axes == sorted(axes, reverse=True):
        return "F"
    return None

