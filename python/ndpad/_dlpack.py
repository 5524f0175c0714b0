"""Arrays of other libraries in host memory (torch CPU tensors, JAX arrays on the
CPU, any array that exports DLPack): read where they lie through DLPack, without a
copy, and the result handed back as an array of the same library.

An array in CUDA device memory (a torch CUDA tensor, a CuPy array, a JAX array on a
GPU) is padded on its device (``_device``); other devices' arrays are left to the
function as they are (they fail there as numpy fails on them).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional, TypeVar

import numpy as np

from . import _device

__all__ = ["accepting"]

#: DLPack device types whose memory the CPU reads: kDLCPU, kDLCUDAHost (pinned).
_HOST_DEVICES = (1, 3)

F = TypeVar("F", bound=Callable[..., Any])


def _foreign_on_host(x: Any) -> bool:
    """Whether ``x`` is another library's array in host memory, exported by DLPack
    (numpy arrays, their subclasses and arrays that dispatch numpy's functions
    themselves are not)."""
    if isinstance(x, np.ndarray) or not hasattr(x, "__dlpack__"):
        return False
    if hasattr(x, "__array_function__"):
        return False
    device = _device.dlpack_device(x)
    return device is not None and device[0] in _HOST_DEVICES


def _host_view(x: Any, what: str) -> np.ndarray:
    """A numpy array over ``x``'s memory (no copy), read-only where the library says
    so (JAX arrays are immutable)."""
    try:
        return np.from_dlpack(x)
    except (BufferError, TypeError, ValueError, RuntimeError) as e:
        library = type(x).__module__.split(".")[0]
        raise TypeError(
            f"{what} ({library} {type(x).__name__}) cannot be read through DLPack: {e}"
        ) from e


def _library_array(result: np.ndarray, like: Any) -> Any:
    """``result`` as an array of ``like``'s library, over the same memory where the
    library takes it without a copy (torch; JAX where it can, else it copies):
    through the array API's namespace (``__array_namespace__().from_dlpack``), or
    ``torch.from_dlpack``. A library with neither gets the numpy array."""
    namespace = getattr(like, "__array_namespace__", None)
    if namespace is not None:
        return namespace().from_dlpack(result)
    if type(like).__module__.split(".")[0] == "torch":
        import torch

        return torch.from_dlpack(result)
    return result


def accepting(function: F) -> F:
    """``function`` (a pad whose first argument is the array, with an optional
    ``out=``) taking arrays of other libraries in host memory: their memory is read
    in place (a numpy view through DLPack), the result is an array of the input's
    library, and an ``out=`` of another library is written in place and returned."""

    @functools.wraps(function)
    def pad(array: Any, *args: Any, **kwargs: Any) -> Any:
        out: Optional[Any] = kwargs.get("out")
        if isinstance(array, np.ndarray) and (out is None or isinstance(out, np.ndarray)):
            return function(array, *args, **kwargs)
        device = _device.cuda_device(array)
        if device is not None or (out is not None and _device.cuda_device(out) is not None):
            return _device.pad(function, array, args, kwargs, device)
        foreign_in = _foreign_on_host(array)
        foreign_out = out is not None and _foreign_on_host(out)
        if not (foreign_in or foreign_out):
            return function(array, *args, **kwargs)
        if foreign_in:
            array_view = _host_view(array, "the array")
        else:
            array_view = array
        if foreign_out:
            kwargs["out"] = _host_view(out, "out")
        result = function(array_view, *args, **kwargs)
        if out is not None:
            return out
        return _library_array(result, array)

    return pad  # type: ignore[return-value]
