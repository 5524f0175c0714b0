"""Type stubs of ``ndpad.onnx`` (``onnx.py``): ONNX Pad's modes and attributes."""

from typing import Any, List, Literal, Optional, Sequence, SupportsIndex, Union

from numpy._typing import _ArrayLikeInt_co
from numpy.typing import ArrayLike, NDArray

from .typing import Dim

__all__ = ["pad", "output_shape"]

_Mode = Literal["constant", "reflect", "edge", "wrap"]

def pad(
    data: ArrayLike,
    pads: _ArrayLikeInt_co,
    mode: _Mode = ...,
    constant_value: Optional[ArrayLike] = ...,
    axes: Optional[_ArrayLikeInt_co] = ...,
    *,
    opset: SupportsIndex = ...,
    reflect_oversize: Literal["repeat", "error"] = ...,
    threads: Optional[SupportsIndex] = ...,
) -> NDArray[Any]: ...
def output_shape(
    shape: Sequence[Dim],
    pads: _ArrayLikeInt_co,
    axes: Optional[_ArrayLikeInt_co] = ...,
    opset: SupportsIndex = ...,
    mode: _Mode = ...,
) -> List[Dim]: ...
