"""Type stubs of the extension module (``crates/ndpad-python``)."""

from typing import Any, Callable, Dict, List, NoReturn, Optional, Sequence, Tuple, Union, final

import numpy as np

__all__ = [
    "PadError",
    "__version__",
    "Spec",
    "Repeats",
    "RepeatKey",
    "node_key",
    "numpy_spec",
    "numpy_index_pairs",
    "empty_objects",
    "Node",
    "onnx_node",
    "openvino_node",
    "ngraph_node",
    "onnx_output_shape",
    "openvino_output_shape",
    "ngraph_output_shape",
    "numpy_output_shape",
    "fill_stat",
    "fill_ramp",
    "pad_stat",
    "pad_ramp",
    "odd_window",
    "pad_odd_window",
    "cli",
    "PooledMemory",
    "POOL_MIN_BYTES",
    "pooled_output",
    "pooled_bytes",
    "release_pool",
    "zarr_pad",
]

__version__: str
POOL_MIN_BYTES: int

class PadError(ValueError):
    """An invalid pad: the message names the value, the axis and the limit."""

_Dim = Union[int, str, None]
# A tensor (type, shape, bytes), a string, or a Python number as ("number", text).
_Value = Union[str, Tuple[str, List[int], bytes], Tuple[str, str], None]
_Pairs = Sequence[Tuple[int, int]]
_Lengths = Sequence[Tuple[Optional[int], Optional[int]]]
_Ends = Sequence[Tuple[float, float]]

@final
class Spec:
    """A validated pad of arrays of one type and shape."""

    @property
    def output_shape(self) -> List[int]: ...
    @property
    def dtype(self) -> str: ...
    def execute(
        self, src: np.ndarray, dst: np.ndarray, threads: int = 0, memory: str = "written"
    ) -> None: ...
    def padded(self, src: np.ndarray, threads: int = 0) -> Optional[np.ndarray]: ...
    def execute_objects(
        self,
        src: np.ndarray,
        dst: np.ndarray,
        threads: int = 0,
        fill: Any = None,
        memory: str = "written",
    ) -> None: ...
    def execute_device(
        self,
        device: int,
        src: int,
        src_bytes: int,
        dst: int,
        dst_bytes: int,
        stream: Optional[int] = None,
    ) -> None: ...
    def reads_in_place(self, src: np.ndarray) -> bool: ...
    def string_indices(self) -> Tuple["Spec", str]: ...
    def window(
        self, out_box: Sequence[Tuple[int, int]]
    ) -> Tuple["Spec", List[Tuple[int, int]]]: ...
    def window_reads(
        self, out_box: Sequence[Tuple[int, int]]
    ) -> Tuple["Spec", List[List[Tuple[int, int]]]]: ...

@final
class RepeatKey:
    """What a pad is remembered by: the array's dtype and shape, ``pad_width``, the
    mode and the constant, each of an exact type."""

@final
class Repeats:
    """The small pads ``ndpad.pad`` ran lately, at most ``limit`` of them (and as many
    keys of pads that are not remembered), found again by their plain arguments (a
    pad of another shape of the same rank made from one of them)."""

    def __new__(cls, limit: int) -> "Repeats": ...
    def pad(
        self, array: Any, pad_width: Any, mode: Any, negative_pads: Any, interior: Any,
        out: Any, threads: Any, kwargs: Dict[str, Any],
    ) -> Optional[np.ndarray]: ...
    def key(
        self, array: Any, pad_width: Any, mode: Any, negative_pads: Any, interior: Any,
        out: Any, threads: Any, kwargs: Dict[str, Any],
    ) -> Optional[RepeatKey]: ...
    def known(self, key: RepeatKey) -> bool: ...
    def remember(
        self, key: RepeatKey, widths: Sequence[Tuple[int, int]], values: Sequence[bytes],
        alloc: Optional[np.dtype] = None,
        finish: Optional[Callable[[np.ndarray], None]] = None,
    ) -> None: ...
    def single(self, key: RepeatKey) -> None: ...
    def __contains__(self, key: RepeatKey, /) -> bool: ...
    def __len__(self) -> int: ...
    @property
    def singles(self) -> int: ...
    def clear(self) -> None: ...

def node_key(data: np.ndarray, *args: Any) -> Optional[Tuple[Any, ...]]: ...
def empty_objects(shape: Sequence[int], fortran: bool = False) -> np.ndarray: ...
def numpy_spec(
    itemsize: int,
    shape: Sequence[int],
    begins: Sequence[int],
    ends: Sequence[int],
    interiors: Sequence[int],
    mode: str,
    values: Sequence[bytes] = ...,
    negative: Optional[str] = None,
    corners: str = "last",
) -> Spec: ...
def numpy_index_pairs(
    values: np.ndarray, ndim: int, allow_negative: bool
) -> List[Tuple[int, int]]: ...
@final
class Node:
    """A framework's Pad for data of one type, its spec made for each shape."""

    SHAPES_KEPT: int
    def spec(self, shape: Sequence[int]) -> Spec: ...
    def padded(self, src: np.ndarray, threads: int = 0) -> Optional[np.ndarray]: ...
    def __len__(self) -> int: ...

def onnx_node(
    dtype: str,
    pads: Sequence[int],
    mode: str = "constant",
    value: _Value = None,
    axes: Optional[Sequence[int]] = None,
    opset: int = 25,
    reflect_oversize: str = "repeat",
) -> Node: ...
def openvino_node(
    dtype: str,
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    pad_mode: str = "constant",
    value: _Value = None,
    opset: int = 12,
) -> Node: ...
def ngraph_node(
    dtype: str,
    below: Sequence[int],
    above: Sequence[int],
    interior: Optional[Sequence[int]] = None,
    value: _Value = None,
    pad_mode: str = "constant",
) -> Node: ...
def onnx_output_shape(
    shape: Sequence[_Dim],
    pads: Sequence[int],
    axes: Optional[Sequence[int]] = None,
    opset: int = 25,
    mode: str = "constant",
) -> List[_Dim]: ...
def openvino_output_shape(
    shape: Sequence[_Dim],
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    pad_mode: str = "constant",
    opset: int = 12,
) -> List[_Dim]: ...
def ngraph_output_shape(
    shape: Sequence[_Dim],
    below: Sequence[int],
    above: Sequence[int],
    interior: Optional[Sequence[int]] = None,
    pad_mode: str = "constant",
) -> List[_Dim]: ...
def numpy_output_shape(
    shape: Sequence[int],
    begins: Sequence[int],
    ends: Sequence[int],
    interiors: Sequence[int],
) -> List[int]: ...
def fill_stat(
    dst: np.ndarray,
    dtype: str,
    in_shape: Sequence[int],
    pads: _Pairs,
    lengths: _Lengths,
    mode: str,
) -> bool:
    """numpy.pad's statistic ``mode`` into the pad areas of ``dst`` (the input already
    written at ``pads[i][0]``); False when declined (numpy's reductions fill them)."""

def fill_ramp(
    dst: np.ndarray,
    dtype: str,
    compute: str,
    in_shape: Sequence[int],
    pads: _Pairs,
    ends: _Ends,
) -> bool:
    """numpy.pad's ``linear_ramp`` into the pad areas of ``dst``, computed in
    ``compute`` (numpy.linspace's type); False when declined."""

def pad_stat(
    src: np.ndarray,
    dst: np.ndarray,
    dtype: str,
    in_shape: Sequence[int],
    pads: _Pairs,
    lengths: _Lengths,
    mode: str,
    threads: int,
) -> bool:
    """``src`` padded into ``dst`` with numpy.pad's statistic ``mode``, the copy fused
    with the pads; False when declined (the input in place, the pads left to numpy)."""

def pad_ramp(
    src: np.ndarray,
    dst: np.ndarray,
    dtype: str,
    compute: str,
    in_shape: Sequence[int],
    pads: _Pairs,
    ends: _Ends,
    threads: int,
) -> bool:
    """``src`` padded into ``dst`` with numpy.pad's ``linear_ramp`` (as ``pad_stat``),
    computed in ``compute``; False when declined."""

def odd_window(
    in_shape: Sequence[int], pads: _Pairs, out_box: _Pairs
) -> List[Tuple[int, int]]:
    """The input region (``(start, stop)`` per axis) the box ``out_box`` of an odd
    pad is computed from."""

def pad_odd_window(
    src: np.ndarray,
    dst: np.ndarray,
    dtype: str,
    in_shape: Sequence[int],
    pads: _Pairs,
    mode: str,
    region: _Pairs,
    out_box: _Pairs,
    threads: int,
) -> Tuple[Tuple[bool, bool], Tuple[bool, bool], bool]:
    """The box ``out_box`` of ``numpy.pad``'s ``mode`` ('reflect' or 'symmetric') with
    ``reflect_type='odd'``, bit for bit, into ``dst``, from ``src`` (the input's
    elements in ``region``, as ``odd_window`` names it); the floating-point exceptions
    numpy would have reported, ``((overflow, invalid) of multiply, (overflow, invalid)
    of subtract, undetermined)`` (the last: values numpy computes differently on
    different machines, left to numpy)."""

def cli(argv: List[str]) -> NoReturn:
    """Runs the ``ndpad`` command line ``argv`` (the program's name first), then ends
    the process with its exit code (the console script ``ndpad``)."""

@final
class PooledMemory:
    """The memory of an array made by ``pooled_output``: returned to the core's pool
    of output buffers when numpy frees the last array over it."""

def pooled_output(
    shape: Sequence[int], dtype: np.dtype, fortran: bool = False,
    like: Optional[np.ndarray] = None,
) -> Optional[Tuple[np.ndarray, str]]:
    """A new output array over a pooled buffer (starting where ``like`` starts in its
    cache line) and what its memory holds ("zeroed" or "written"); None when smaller than ``POOL_MIN_BYTES``, of objects, or not mapped."""

def pooled_bytes() -> int:
    """Bytes of idle output buffers the pool holds now."""

def release_pool() -> None:
    """Returns the pool's idle output buffers to the OS now (it does so by itself
    after 5 s idle)."""

def zarr_pad(
    src: str,
    dst: str,
    pad_width: _Pairs,
    mode: str = "constant",
    values: Sequence[_Value] = ...,
    interior: Sequence[int] = ...,
    negative: Optional[str] = None,
    threads: int = 0,
    chunks: Optional[Sequence[int]] = None,
    max_memory: Optional[int] = None,
    max_chunks: int = 1048576,
) -> Tuple[List[int], int, int]:
    """``ndpad.zarr.pad``'s work: the zarr v3 array at ``src`` padded into ``dst`` as
    numpy.pad pads (the numpy front end; ``interior`` and ``negative`` as
    ``ndpad.pad``'s ``interior=`` and ``negative_pads=``), chunk by chunk with the GIL
    released; the output's shape, its chunks, and the chunks not stored."""
