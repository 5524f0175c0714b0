"""OpenVINO ``Pad`` (opsets 1 and 12), validated as ndpad's OpenVINO front end
validates it (the same messages as the Rust library and the CLI)."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from . import _frameworks as _fw
from . import _dlpack
from . import _ndpad

__all__ = ["pad", "output_shape"]


@_dlpack.accepting
def pad(
    data: Any,
    pads_begin: Any,
    pads_end: Any,
    pad_mode: str = "constant",
    pad_value: Any = None,
    *,
    opset: int = 12,
    threads: Optional[int] = None,
) -> np.ndarray:
    """OpenVINO Pad-12 (or Pad-1).

    Parameters
    ----------
    data : array_like
        The tensor, of any numeric type (strings in constant mode).
    pads_begin, pads_end : sequence of int or integer array
        Elements added before / after each axis; negative values crop (an output
        element reads the uncropped input, as OpenVINO's specification says).
    pad_mode : str, optional
        'constant' (default), 'edge', 'reflect' or 'symmetric'.
    pad_value : scalar or one-element array, optional
        The constant (constant mode; ignored otherwise, as OpenVINO's runtime does).
        A Python number must be a value of the data's type (``1.5`` for integer data
        is an error, as the CLI's ``--value``); a numpy value must have the data's type.
    opset : {12, 1}, optional
        The operator version.
    threads : int, optional
        Threads for the kernel, 0 to 1024 (None or 0: all cores).

    Returns
    -------
    ndarray
        The padded tensor, of the data's dtype.
        A torch CPU tensor or a JAX array on the CPU (any array exporting DLPack
        in host memory) is read in place and gives a tensor of its library.

    Raises
    ------
    ndpad.PadError
        When the node is invalid: the message names the value.

    Examples
    --------
    >>> import numpy as np, ndpad
    >>> ndpad.openvino.pad(np.array([1, 2, 3, 4]), [-1], [2], pad_mode="symmetric")
    array([2, 3, 4, 4, 3])
    """
    a = np.asarray(data)
    node = _fw.remembered(
        _fw.node_key(a, "openvino", pads_begin, pads_end, pad_mode, pad_value, opset),
        lambda: _ndpad.openvino_node(
            _fw.type_name(a.dtype),
            _fw.ints(pads_begin, "pads_begin"),
            _fw.ints(pads_end, "pads_end"),
            pad_mode,
            _fw.value(pad_value, a),
            _fw.opset(opset),
        ),
        a,
    )
    return _fw.run(node, a, threads)


def output_shape(
    shape: Sequence[Union[int, str, None]],
    pads_begin: Any,
    pads_end: Any,
    pad_mode: str = "constant",
    opset: int = 12,
) -> List[Union[int, str, None]]:
    """The output shape of OpenVINO Pad on a tensor of ``shape`` (dims may be None
    or names; a name survives on an axis that is not padded)."""
    return _ndpad.openvino_output_shape(
        _fw.dims(shape),
        _fw.ints(pads_begin, "pads_begin"),
        _fw.ints(pads_end, "pads_end"),
        pad_mode,
        _fw.opset(opset),
    )
