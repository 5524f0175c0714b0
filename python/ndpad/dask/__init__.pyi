"""Type stubs of ``ndpad.dask.pad`` (``dask/__init__.py``): the overloads of
``ndpad.pad`` (one per group of modes, with the keywords ``numpy.pad`` accepts for
them), less ``out=``, plus ``chunks=``."""

from typing import Any, Dict, Literal, Mapping, Optional, Sequence, Tuple, Union, overload

import dask.array as da
from numpy._typing import _ArrayLikeInt_co
from numpy.typing import ArrayLike

from ..typing import Interior, ModeFunc, ModeName, NegativePads, PadWidth, Threads

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
    pad_width: PadWidth,
    mode: Literal["constant"] = ...,
    *,
    negative_pads: NegativePads = ...,
    threads: Threads = ...,
    chunks: _Chunks = ...,
    interior: Interior = ...,
    constant_values: ArrayLike = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["edge", "wrap", "empty"],
    *,
    negative_pads: NegativePads = ...,
    threads: Threads = ...,
    chunks: _Chunks = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["reflect", "symmetric"],
    *,
    negative_pads: NegativePads = ...,
    threads: Threads = ...,
    chunks: _Chunks = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["maximum", "mean", "median", "minimum"],
    *,
    negative_pads: NegativePads = ...,
    threads: Threads = ...,
    chunks: _Chunks = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["linear_ramp"],
    *,
    negative_pads: NegativePads = ...,
    threads: Threads = ...,
    chunks: _Chunks = ...,
    end_values: ArrayLike = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: PadWidth,
    mode: Sequence[ModeName],
    *,
    negative_pads: NegativePads = ...,
    threads: Threads = ...,
    chunks: _Chunks = ...,
    interior: Interior = ...,
    constant_values: ArrayLike = ...,
    end_values: ArrayLike = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> da.Array: ...
@overload
def pad(
    x: ArrayLike,
    pad_width: PadWidth,
    mode: ModeFunc,
    *,
    threads: Threads = ...,
    chunks: _Chunks = ...,
    **kwargs: Any,
) -> da.Array: ...
