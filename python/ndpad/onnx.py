"""ONNX ``Pad``, every opset (1, 2, 11, 13, 18, 19, 21, 23, 24, 25), validated as
ndpad's ONNX front end validates it (the same messages as the Rust library and the
CLI)."""

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
    pads: Any,
    mode: str = "constant",
    constant_value: Any = None,
    axes: Any = None,
    *,
    opset: int = 25,
    reflect_oversize: str = "repeat",
    threads: Optional[int] = None,
) -> np.ndarray:
    """ONNX Pad of ``opset``.

    Parameters
    ----------
    data : array_like
        The tensor: any numpy array of a type the opset allows, ml_dtypes types
        included; string tensors as object arrays of str or bytes (what
        ``onnx.numpy_helper.to_array`` gives) or ``U`` / ``S`` arrays.
    pads : sequence of int or integer array
        ``[x1_begin, x2_begin, ..., x1_end, x2_end, ...]`` (for opsets 1 and 2 the
        ``paddings`` / ``pads`` attribute). Negative values crop.
    mode : str, optional
        'constant' (default), 'reflect', 'edge', or 'wrap' (opset 19 on).
    constant_value : scalar or one-element array, optional
        The constant (opsets 1 and 2: the float ``value`` attribute). A Python
        number must be a value of the data's type (``1.5`` for integer data is an
        error, as the CLI's ``--value``); a numpy value must have the data's type.
    axes : sequence of int, optional
        The axes ``pads`` applies to (opset 18 on); negative values count from the
        end; a repeated axis takes its last entry's pads.
    opset : int, optional
        The ONNX opset (default 25).
    reflect_oversize : {'repeat', 'error'}, optional
        Reflect wider than the axis repeats the reflection, as the ONNX reference
        does ('repeat', default), or is an error, as in ONNX Runtime ('error').
    threads : int, optional
        Threads for the kernel, 0 to 1024 (None or 0: all cores).

    Returns
    -------
    ndarray
        The padded tensor, of the data's dtype (strings keep their kind).
        A torch CPU tensor or a JAX array on the CPU (any array exporting DLPack
        in host memory) is read in place and gives a tensor of its library.

    Raises
    ------
    ndpad.PadError
        When the node is invalid for the opset: the message names the value.

    Examples
    --------
    >>> import numpy as np, ndpad
    >>> ndpad.onnx.pad(np.array([[1, 2], [3, 4]]), [0, 1, 0, 1], mode="wrap", opset=19)
    array([[2, 1, 2, 1],
           [4, 3, 4, 3]])
    """
    a = np.asarray(data)
    node = _fw.remembered(
        _fw.node_key(a, "onnx", pads, mode, constant_value, axes, opset, reflect_oversize),
        lambda: _ndpad.onnx_node(
            _fw.type_name(a.dtype),
            _fw.ints(pads, "pads"),
            mode,
            _fw.value(constant_value, a),
            _fw.ints(axes, "axes"),
            _fw.opset(opset),
            reflect_oversize,
        ),
        a,
    )
    return _fw.run(node, a, threads)


def output_shape(
    shape: Sequence[Union[int, str, None]],
    pads: Any,
    axes: Any = None,
    opset: int = 25,
    mode: str = "constant",
) -> List[Union[int, str, None]]:
    """The output shape of ONNX Pad on a tensor of ``shape``.

    Parameters
    ----------
    shape : sequence of int, str or None
        The input's dims: a number, a name (a symbolic dim), or None (unknown).
    pads, axes, opset, mode
        As for :func:`pad`.

    Returns
    -------
    list
        Per axis the padded extent; a name survives on an axis that is not padded;
        a padded axis of unknown or named extent is None.

    Examples
    --------
    >>> import ndpad
    >>> ndpad.onnx.output_shape(["N", 3, 224, 224], pads=[0, 0, 1, 1, 0, 0, 1, 1])
    ['N', 3, 226, 226]
    """
    return _ndpad.onnx_output_shape(
        _fw.dims(shape), _fw.ints(pads, "pads"), _fw.ints(axes, "axes"), _fw.opset(opset), mode
    )
