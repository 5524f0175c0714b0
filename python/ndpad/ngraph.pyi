"""Type stubs of ``ndpad.ngraph`` (``ngraph.py``): nGraph Pad's modes and
attributes."""

from typing import Any, List, Literal, Optional, Sequence, SupportsIndex, Union

from numpy._typing import _ArrayLikeInt_co
from numpy.typing import ArrayLike, NDArray

from .typing import Dim

__all__ = ["pad", "output_shape"]

_Mode = Literal["constant", "edge", "reflect", "symmetric"]

def pad(
    arg: ArrayLike,
    padding_below: _ArrayLikeInt_co,
    padding_above: _ArrayLikeInt_co,
    padding_interior: Optional[_ArrayLikeInt_co] = ...,
    pad_value: Optional[ArrayLike] = ...,
    pad_mode: _Mode = ...,
    *,
    threads: Optional[SupportsIndex] = ...,
) -> NDArray[Any]: ...
def output_shape(
    shape: Sequence[Dim],
    padding_below: _ArrayLikeInt_co,
    padding_above: _ArrayLikeInt_co,
    padding_interior: Optional[_ArrayLikeInt_co] = ...,
    pad_mode: _Mode = ...,
) -> List[Dim]: ...
