"""Type stubs of ``ndpad.pad`` (``_numpy.py``): one overload per group of modes, each
with only the keywords ``numpy.pad`` accepts for those modes (``constant_values``
for 'constant', ``reflect_type`` for 'reflect' and 'symmetric', ``stat_length`` for
the statistic modes, ``end_values`` for 'linear_ramp', none for 'edge', 'wrap' and
'empty'; all of them with a sequence of modes; anything with a callable mode), and
ndpad's own keywords (``interior`` with constant modes only). As numpy's own stubs
of ``numpy.pad``: the result is typed as an ndarray of the input's scalar type, also
where the call dispatches to another array type's implementation (a dask array, a
quantity), which returns its own type."""

from typing import (
    Any,
    Literal,
    Optional,
    Sequence,
    TypeVar,
    overload,
)

import numpy as np
from numpy._typing import _ArrayLike, _ArrayLikeInt_co
from numpy.typing import ArrayLike, NDArray

from .typing import Interior, ModeFunc, ModeName, NegativePads, Order, PadWidth, Threads

__all__ = ["pad"]

_SCT = TypeVar("_SCT", bound=np.generic)

@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: PadWidth,
    mode: Literal["constant"] = ...,
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    interior: Interior = ...,
    constant_values: ArrayLike = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["constant"] = ...,
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    interior: Interior = ...,
    constant_values: ArrayLike = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: PadWidth,
    mode: Literal["edge", "wrap", "empty"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["edge", "wrap", "empty"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: PadWidth,
    mode: Literal["reflect", "symmetric"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["reflect", "symmetric"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: PadWidth,
    mode: Literal["maximum", "mean", "median", "minimum"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["maximum", "mean", "median", "minimum"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: PadWidth,
    mode: Literal["linear_ramp"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    end_values: ArrayLike = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: PadWidth,
    mode: Literal["linear_ramp"],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    end_values: ArrayLike = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: PadWidth,
    mode: Sequence[ModeName],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    interior: Interior = ...,
    constant_values: ArrayLike = ...,
    end_values: ArrayLike = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: PadWidth,
    mode: Sequence[ModeName],
    *,
    negative_pads: NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: Threads = ...,
    order: Order = ...,
    interior: Interior = ...,
    constant_values: ArrayLike = ...,
    end_values: ArrayLike = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: PadWidth,
    mode: ModeFunc,
    *,
    threads: Threads = ...,
    order: Order = ...,
    **kwargs: Any,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: PadWidth,
    mode: ModeFunc,
    *,
    threads: Threads = ...,
    order: Order = ...,
    **kwargs: Any,
) -> NDArray[Any]: ...

# The private helpers that ndpad's other modules import.
def __getattr__(name: str) -> Any: ...
