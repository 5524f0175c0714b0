"""Type stubs of ``ndpad.dask.pad`` (``dask/__init__.py``): the overloads of
``ndpad.pad`` (one per group of modes, with the keywords ``numpy.pad`` accepts for
them), less ``out=``, plus ``chunks=``."""

from typing import Any, Dict, Literal, Mapping, Optional, Sequence, Tuple, Union, overload

import dask.array as da
from numpy._typing import _ArrayLikeInt_co
from numpy.typing import ArrayLike

from .._numpy import _Interior, _ModeFunc, _ModeName, _NegativePads, _PadWidth, _Threads

__all__ = ["pad"]

_ChunkSpec = Union[int, str, Tuple[int, ...], None]
_Chunks = Union[
    Literal["auto", "input"],
    None,
    int,
    str,
    Sequence[Union[_ChunkSpec, Sequence[int]]],
    Mapping[int, Union[_ChunkSpec, Sequence[int]]],
]

@overload
def pad(
    x: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["constant"] = ...,
    *,
    negative_pads: _NegativePads = ...,
    threads: _Threads = ...,
    chunks: _Chunks = ...,
    interior: _Interior = ...,
    constant_values: ArrayLike = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["edge", "wrap", "empty"],
    *,
    negative_pads: _NegativePads = ...,
    threads: _Threads = ...,
    chunks: _Chunks = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["reflect", "symmetric"],
    *,
    negative_pads: _NegativePads = ...,
    threads: _Threads = ...,
    chunks: _Chunks = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["maximum", "mean", "median", "minimum"],
    *,
    negative_pads: _NegativePads = ...,
    threads: _Threads = ...,
    chunks: _Chunks = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["linear_ramp"],
    *,
    negative_pads: _NegativePads = ...,
    threads: _Threads = ...,
    chunks: _Chunks = ...,
    end_values: ArrayLike = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: _PadWidth,
    mode: Sequence[_ModeName],
    *,
    negative_pads: _NegativePads = ...,
    threads: _Threads = ...,
    chunks: _Chunks = ...,
    interior: _Interior = ...,
    constant_values: ArrayLike = ...,
    end_values: ArrayLike = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: _PadWidth,
    mode: _ModeFunc,
    *,
    threads: _Threads = ...,
    chunks: _Chunks = ...,
    **kwargs: Any,
) -> da.Array: ...
