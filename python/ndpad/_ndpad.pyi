"""Type stubs of the extension module (``crates/ndpad-python``)."""

from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str

class PadError(ValueError):
    """An invalid pad: the message names the value, the axis and the limit."""

Dim = Union[int, str, None]
Value = Union[str, Tuple[str, List[int], bytes], None]

class Spec:
    """A validated pad of arrays of one type and shape."""

    @property
    def output_shape(self) -> List[int]: ...
    @property
    def dtype(self) -> str: ...
    def execute(
        self, src: np.ndarray, dst: np.ndarray, threads: int = 0, memory: str = "written"
    ) -> None: ...
    def reads_in_place(self, src: np.ndarray) -> bool: ...
    def string_indices(self) -> Tuple["Spec", str]: ...
    def window(
        self, out_box: Sequence[Tuple[int, int]]
    ) -> Tuple["Spec", List[Tuple[int, int]]]: ...
    def window_reads(
        self, out_box: Sequence[Tuple[int, int]]
    ) -> Tuple["Spec", List[List[Tuple[int, int]]]]: ...

def numpy_spec(
    itemsize: int,
    shape: Sequence[int],
    begins: Sequence[int],
    ends: Sequence[int],
    interiors: Sequence[int],
    mode: str,
    value: Optional[bytes] = None,
    negative: Optional[str] = None,
) -> Spec: ...
def onnx_spec(
    dtype: str,
    shape: Sequence[int],
    pads: Sequence[int],
    mode: str = "constant",
    value: Value = None,
    axes: Optional[Sequence[int]] = None,
    opset: int = 25,
    reflect_oversize: str = "repeat",
) -> Spec: ...
def openvino_spec(
    dtype: str,
    shape: Sequence[int],
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    pad_mode: str = "constant",
    value: Value = None,
    opset: int = 12,
) -> Spec: ...
def ngraph_spec(
    dtype: str,
    shape: Sequence[int],
    below: Sequence[int],
    above: Sequence[int],
    interior: Optional[Sequence[int]] = None,
    value: Value = None,
    pad_mode: str = "constant",
) -> Spec: ...
def onnx_output_shape(
    shape: Sequence[Dim],
    pads: Sequence[int],
    axes: Optional[Sequence[int]] = None,
    opset: int = 25,
    mode: str = "constant",
) -> List[Dim]: ...
def openvino_output_shape(
    shape: Sequence[Dim],
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    pad_mode: str = "constant",
    opset: int = 12,
) -> List[Dim]: ...
def ngraph_output_shape(
    shape: Sequence[Dim],
    below: Sequence[int],
    above: Sequence[int],
    interior: Optional[Sequence[int]] = None,
    pad_mode: str = "constant",
) -> List[Dim]: ...
