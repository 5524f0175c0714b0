"""The types of ndpad's arguments, for annotations (as ``numpy.typing`` is for
numpy's): the package's stubs take them from here, and so may callers.

Examples
--------
>>> import numpy as np
>>> import ndpad
>>> from ndpad.typing import ModeName, PadWidth
>>> def pad_twice(a: np.ndarray, width: PadWidth, mode: ModeName) -> np.ndarray:
...     return ndpad.pad(ndpad.pad(a, width, mode), width, mode)
>>> pad_twice(np.ones(2), 1, "constant").tolist()
[0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
"""

from __future__ import annotations

from typing import Any, Dict, Literal, Mapping, Optional, Protocol, SupportsIndex, Tuple, Union

from numpy._typing import _ArrayLikeInt_co
from numpy.typing import NDArray

__all__ = ["Dim", "Interior", "ModeFunc", "ModeName", "NegativePads", "Order", "PadWidth",
           "Threads"]

#: A mode of ``ndpad.pad`` (numpy.pad's modes).
ModeName = Literal[
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
#: ``pad_width``: every form numpy.pad takes (an int, pairs, an array, a dict by axis).
PadWidth = Union[_ArrayLikeInt_co, Mapping[int, Union[int, Tuple[int, int]]]]
#: ``negative_pads=``: how negative pads combine with the index modes.
NegativePads = Optional[Literal["crop_first", "original_index"]]
#: ``interior=``: elements inserted between neighbours, one for all axes or per axis.
Interior = _ArrayLikeInt_co
#: ``order=``: the memory layout of a new output (None or 'A': numpy.pad's).
Order = Optional[Literal["A", "C", "F", "K"]]
#: ``threads=``: threads to use (None or 0: all cores).
Threads = Optional[SupportsIndex]
#: An extent in the frameworks' shape functions: known, named (symbolic) or unknown.
Dim = Union[int, str, None]


class ModeFunc(Protocol):
    """A callable ``mode``: ``padding_func(vector, iaxis_pad_width, iaxis, kwargs)``."""

    def __call__(
        self,
        vector: NDArray[Any],
        iaxis_pad_width: Tuple[int, int],
        iaxis: int,
        kwargs: Dict[str, Any],
        /,
    ) -> None: ...
