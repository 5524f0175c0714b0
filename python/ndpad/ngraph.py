"""nGraph ``Pad`` v0, with interior padding, validated as ndpad's nGraph front end
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
    arg: Any,
    padding_below: Any,
    padding_above: Any,
    padding_interior: Any = None,
    pad_value: Any = None,
    pad_mode: str = "constant",
    *,
    threads: Optional[int] = None,
) -> np.ndarray:
    """nGraph Pad v0.

    Parameters
    ----------
    arg : array_like
        The tensor.
    padding_below, padding_above : sequence of int
        Elements added before / after each axis (negative values crop).
    padding_interior : sequence of int, optional
        Elements inserted between neighbouring elements of each axis (constant
        mode).
    pad_value : scalar, optional
        The constant (default 0). A Python number must be a value of the data's type
        (``1.5`` for integer data is an error, as the CLI's ``--value``); a numpy
        value must have the data's type.
    pad_mode : str, optional
        'constant' (default), 'edge', 'reflect' or 'symmetric'.
    threads : int, optional
        Threads for the kernel, 0 to 1024 (None or 0: all cores).

    Returns
    -------
    ndarray
        The padded tensor, of the argument's dtype.
        A torch CPU tensor or a JAX array on the CPU (any array exporting DLPack
        in host memory) is read in place and gives a tensor of its library.

    Raises
    ------
    ndpad.PadError
        When the node is invalid: the message names the value.

    Examples
    --------
    >>> import numpy as np, ndpad
    >>> ndpad.ngraph.pad(np.array([1, 2]), [1], [0], padding_interior=[1], pad_value=9)
    array([9, 1, 9, 2])
    """
    a = np.asarray(arg)
    node = _fw.remembered(
        _fw.node_key(a, "ngraph", padding_below, padding_above, padding_interior, pad_value,
                     pad_mode),
        lambda: _ndpad.ngraph_node(
            _fw.type_name(a.dtype),
            _fw.ints(padding_below, "padding_below"),
            _fw.ints(padding_above, "padding_above"),
            _fw.ints(padding_interior, "padding_interior"),
            _fw.value(pad_value, a),
            pad_mode,
        ),
        a,
    )
    return _fw.run(node, a, threads)


def output_shape(
    shape: Sequence[Union[int, str, None]],
    padding_below: Any,
    padding_above: Any,
    padding_interior: Any = None,
    pad_mode: str = "constant",
) -> List[Union[int, str, None]]:
    """The output shape of nGraph Pad on a tensor of ``shape`` (dims may be None or
    names; a name survives on an axis that is not padded)."""
    return _ndpad.ngraph_output_shape(
        _fw.dims(shape),
        _fw.ints(padding_below, "padding_below"),
        _fw.ints(padding_above, "padding_above"),
        _fw.ints(padding_interior, "padding_interior"),
        pad_mode,
    )
