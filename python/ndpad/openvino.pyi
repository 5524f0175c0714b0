"""Type stubs of ``ndpad.openvino`` (``openvino.py``): OpenVINO Pad's modes and
attributes."""

from typing import Any, List, Literal, Optional, Sequence, SupportsIndex, Union

from numpy._typing import _ArrayLikeInt_co
from numpy.typing import ArrayLike, NDArray

from .typing import Dim

__all__ = ["pad", "output_shape"]

_Mode = Literal["constant", "edge", "reflect", "symmetric"]

def pad(
    data: ArrayLike,
    pads_begin: _ArrayLikeInt_co,
    pads_end: _ArrayLikeInt_co,
    pad_mode: _Mode = ...,
    pad_value: Optional[ArrayLike] = ...,
    *,
    opset: SupportsIndex = ...,
    threads: Optional[SupportsIndex] = ...,
) -> NDArray[Any]: ...
def output_shape(
    shape: Sequence[Dim],
    pads_begin: _ArrayLikeInt_co,
    pads_end: _ArrayLikeInt_co,
    pad_mode: _Mode = ...,
    opset: SupportsIndex = ...,
) -> List[Dim]: ...
