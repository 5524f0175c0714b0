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
    Dict,
    Literal,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    SupportsIndex,
    Tuple,
    TypeVar,
    Union,
    overload,
)

import numpy as np
from numpy._typing import _ArrayLike, _ArrayLikeInt_co
from numpy.typing import ArrayLike, NDArray

__all__ = ["pad"]

_SCT = TypeVar("_SCT", bound=np.generic)

_ModeName = Literal[
    "constant",
    "edge",
    "linear_ramp",
    "maximum",
    "mean",
    "median",
    "minimum",
    "reflect",
    "symmetric",
    "wrap",
    "empty",
]
_PadWidth = Union[_ArrayLikeInt_co, Mapping[int, Union[int, Tuple[int, int]]]]
_NegativePads = Optional[Literal["crop_first", "original_index"]]
_Interior = _ArrayLikeInt_co
_Threads = Optional[SupportsIndex]

class _ModeFunc(Protocol):
    """A callable ``mode``: ``padding_func(vector, iaxis_pad_width, iaxis, kwargs)``."""

    def __call__(
        self,
        vector: NDArray[Any],
        iaxis_pad_width: Tuple[int, int],
        iaxis: int,
        kwargs: Dict[str, Any],
        /,
    ) -> None: ...

@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: _PadWidth,
    mode: Literal["constant"] = ...,
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    interior: _Interior = ...,
    constant_values: ArrayLike = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["constant"] = ...,
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    interior: _Interior = ...,
    constant_values: ArrayLike = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: _PadWidth,
    mode: Literal["edge", "wrap", "empty"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["edge", "wrap", "empty"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: _PadWidth,
    mode: Literal["reflect", "symmetric"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["reflect", "symmetric"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: _PadWidth,
    mode: Literal["maximum", "mean", "median", "minimum"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["maximum", "mean", "median", "minimum"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: _PadWidth,
    mode: Literal["linear_ramp"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    end_values: ArrayLike = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: _PadWidth,
    mode: Literal["linear_ramp"],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    end_values: ArrayLike = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: _PadWidth,
    mode: Sequence[_ModeName],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    interior: _Interior = ...,
    constant_values: ArrayLike = ...,
    end_values: ArrayLike = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: _PadWidth,
    mode: Sequence[_ModeName],
    *,
    negative_pads: _NegativePads = ...,
    out: Optional[NDArray[Any]] = ...,
    threads: _Threads = ...,
    interior: _Interior = ...,
    constant_values: ArrayLike = ...,
    end_values: ArrayLike = ...,
    stat_length: Optional[_ArrayLikeInt_co] = ...,
    reflect_type: Literal["even", "odd"] = ...,
) -> NDArray[Any]: ...
@overload
def pad(
    array: _ArrayLike[_SCT],
    pad_width: _PadWidth,
    mode: _ModeFunc,
    *,
    threads: _Threads = ...,
    **kwargs: Any,
) -> NDArray[_SCT]: ...
@overload
def pad(
    array: ArrayLike,
    pad_width: _PadWidth,
    mode: _ModeFunc,
    *,
    threads: _Threads = ...,
    **kwargs: Any,
) -> NDArray[Any]: ...

# The private helpers that ndpad's other modules import.
def __getattr__(name: str) -> Any: ...
