"""ndpad: exact, fast padding of numpy arrays.

* :func:`ndpad.pad` is a drop-in for :func:`numpy.pad` (same arguments, same result
  bit for bit, same exceptions) computed by ndpad's Rust kernel, with opt-in
  extensions: negative widths that crop, interior padding, a mode per axis, ``out=``
  and ``threads=``.
* :mod:`ndpad.onnx`, :mod:`ndpad.openvino`, :mod:`ndpad.ngraph`: each framework's Pad
  operator under its own names, validated as the framework defines it, with its
  shape inference.
* :mod:`ndpad.dask`: ``ndpad.pad`` on dask arrays, each output chunk computed from
  only the input chunks it reads (imported on first use: dask is optional).

Invalid pads raise :class:`ndpad.PadError` (a :class:`ValueError`).
"""

from typing import TYPE_CHECKING, Any

from ._ndpad import PadError, __version__
from ._numpy import pad
from . import ngraph, onnx, openvino

if TYPE_CHECKING:  # typed as the module it is; imported on first use at run time
    from . import dask

__all__ = ["PadError", "__version__", "pad", "onnx", "openvino", "ngraph", "dask"]


def __getattr__(name: str) -> Any:
    # ``ndpad.dask`` without importing dask when ndpad is imported.
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError(f"module 'ndpad' has no attribute {name!r}")
