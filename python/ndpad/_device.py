"""Arrays in CUDA device memory (torch CUDA tensors, CuPy arrays, JAX arrays on a GPU),
padded on their device by ndpad's GPU executor (``ndpad-cuda``): no copy to the host.

A pad of such an array runs the front end's own argument handling on a stand-in numpy
array of the same shape and dtype that holds no data (a zero-strided view of one
element), so every rule and message is the host's; where the front end would run the
kernel, the spec it built runs on the device instead (``run``), into a new array of
the input's library on the input's device (or ``out=``), queued on that library's
current stream (PyTorch's, CuPy's; JAX has none: ndpad's own stream, waited for).

Only the index modes run there: the statistic modes, linear_ramp, ``reflect_type='odd'``,
callable modes, sequences of modes and one constant per side are refused with a
TypeError that says to pad on the host.
"""

from __future__ import annotations

import abc
import contextvars
import struct
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from . import _dispatch as dispatch

__all__ = ["cuda_device", "pad", "current", "check_numpy_mode"]

#: DLPack's device type of CUDA memory (kDLCUDA).
_CUDA = 2

_CALL: "contextvars.ContextVar[Optional[Call]]" = contextvars.ContextVar("ndpad_device_call",
                                                                         default=None)

_HOST = ("pad the array on the host instead (a numpy array: x.cpu().numpy(), "
         "cupy.asnumpy(x), numpy.asarray(x))")


def dlpack_device(x: Any) -> Optional[Tuple[int, int]]:
    """The DLPack device (type, index) of another library's array ``x``, or None for
    a numpy array or an object without a usable one."""
    if isinstance(x, np.ndarray) or not hasattr(x, "__dlpack_device__"):
        return None
    try:
        kind, index = x.__dlpack_device__()
        return int(kind), int(index)
    except Exception:  # noqa: BLE001 - no usable device: not an array we can read
        return None


def cuda_device(x: Any) -> Optional[int]:
    """The CUDA device ``x`` lies on (its DLPack device), or None for anything else."""
    device = dlpack_device(x)
    return device[1] if device is not None and device[0] == _CUDA else None


class Library(abc.ABC):
    """What ndpad needs of one library's device arrays."""

    name = ""

    def dtype(self, x: Any) -> np.dtype:
        return np.dtype(x.dtype)

    def contiguous(self, x: Any) -> Any:
        return x

    @abc.abstractmethod
    def address(self, x: Any) -> int:
        """The address of ``x``'s first element in device memory."""

    def nbytes(self, x: Any) -> int:
        return int(x.nbytes)

    @abc.abstractmethod
    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        """A new array of ``like``'s library, dtype and device."""

    def copy(self, x: Any) -> Any:
        return x.copy()

    def stream(self, x: Any) -> Optional[int]:
        """The library's current stream on ``x``'s device (a CUstream as an int)."""
        return None

    def contiguous_flag(self, x: Any) -> bool:
        return True


class _Torch(Library):
    name = "torch"

    def dtype(self, x: Any) -> np.dtype:
        return _named_dtype(str(x.dtype).split(".")[-1], "torch")

    def contiguous(self, x: Any) -> Any:
        return x if x.is_contiguous() else x.contiguous()

    def contiguous_flag(self, x: Any) -> bool:
        return bool(x.is_contiguous())

    def address(self, x: Any) -> int:
        return int(x.data_ptr())

    def nbytes(self, x: Any) -> int:
        return int(x.numel() * x.element_size())

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        import torch

        return torch.empty(shape, dtype=like.dtype, device=like.device)

    def copy(self, x: Any) -> Any:
        return x.clone()

    def stream(self, x: Any) -> Optional[int]:
        import torch

        return int(torch.cuda.current_stream(x.device).cuda_stream)


class _CuPy(Library):
    name = "cupy"

    def contiguous(self, x: Any) -> Any:
        import cupy

        return x if x.flags.c_contiguous else cupy.ascontiguousarray(x)

    def contiguous_flag(self, x: Any) -> bool:
        return bool(x.flags.c_contiguous)

    def address(self, x: Any) -> int:
        return int(x.data.ptr)

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        import cupy

        with like.device:
            return cupy.empty(shape, dtype=like.dtype)

    def stream(self, x: Any) -> Optional[int]:
        import cupy

        with x.device:
            return int(cupy.cuda.get_current_stream().ptr)


class _Jax(Library):
    name = "jax"

    def address(self, x: Any) -> int:
        x.block_until_ready()
        return int(x.unsafe_buffer_pointer())

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        import jax.numpy as jnp

        (device,) = like.devices()
        return jnp.zeros(shape, dtype=like.dtype, device=device).block_until_ready()

    def copy(self, x: Any) -> Any:
        return x


def _named_dtype(name: str, library: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        pass
    try:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))
    except (ImportError, AttributeError):
        raise TypeError(f"{library} dtype {name} cannot be padded by ndpad") from None


def _library(x: Any) -> Library:
    module = type(x).__module__.split(".")[0]
    if module == "torch":
        return _Torch()
    if module == "cupy":
        return _CuPy()
    if module in ("jax", "jaxlib"):
        return _Jax()
    raise TypeError(f"ndpad pads CUDA arrays of torch, CuPy and JAX, not {type(x).__module__}."
                    f"{type(x).__name__}")


class Call:
    """One pad of a device array: the stand-in the front end sees, and what runs the
    spec it builds."""

    def __init__(self, proxy: np.ndarray, library: Library, array: Any, out: Any,
                 device: int) -> None:
        self.proxy = proxy
        self.library = library
        self.array = array
        self.out = out
        self.device = device
        self.specs: List[Any] = []

    def run(self, spec: Any) -> Any:
        """Runs ``spec`` (built for the stand-in) on the device: into ``out=`` or a new
        array of the input's library on its device, which it returns."""
        self.specs.append(spec)
        lib, x = self.library, self.array
        shape = tuple(spec.output_shape)
        out = self.out
        if out is None:
            out = lib.empty(x, shape)
        else:
            _check_out(out, shape, lib, x, self.device)
        src, dst = lib.address(x), lib.address(out)
        src_bytes, dst_bytes = lib.nbytes(x), lib.nbytes(out)
        if src_bytes and dst_bytes and src < dst + dst_bytes and dst < src + src_bytes:
            raise ValueError("out overlaps the input array")
        spec.execute_device(self.device, src, src_bytes, dst, dst_bytes, lib.stream(x))
        return out


def _check_out(out: Any, shape: Tuple[int, ...], lib: Library, x: Any, device: int) -> None:
    if cuda_device(out) != device or type(out) is not type(x):
        raise TypeError(
            f"out must be a {lib.name} array on CUDA device {device}, as the input is; "
            f"it is a {type(out).__module__}.{type(out).__name__}")
    if tuple(out.shape) != shape or lib.dtype(out) != lib.dtype(x):
        raise ValueError(
            f"out must have the padded shape {shape} and dtype {lib.dtype(x)}; "
            f"it has shape {tuple(out.shape)} and dtype {lib.dtype(out)}")
    if not lib.contiguous_flag(out):
        raise ValueError("out must be C-contiguous")
    if lib.name == "jax":
        raise TypeError("out= cannot be a JAX array: JAX arrays are immutable")


def current(array: Any) -> Optional[Call]:
    """The device pad under way whose stand-in ``array`` is, if any."""
    call = _CALL.get()
    if call is not None and array is call.proxy:
        return call
    return None


def active() -> bool:
    """Whether a device pad is under way (its front end running on the stand-in)."""
    return _CALL.get() is not None


def check_numpy_mode(mode: Any, kwargs: dict) -> None:
    """Refuses what ``ndpad.pad`` does not compute on the GPU (TypeError)."""
    if not isinstance(mode, str) or mode not in dispatch.INDEX_MODES:
        raise TypeError(f"mode {mode!r} is not computed on the GPU (only "
                        f"{', '.join(sorted(dispatch.INDEX_MODES))}): {_HOST}")
    if kwargs.get("reflect_type", "even") == "odd":
        raise TypeError(f"reflect_type='odd' is not computed on the GPU: {_HOST}")
    if np.ndim(kwargs.get("constant_values", 0)) != 0:
        raise TypeError(f"one constant per side is not computed on the GPU (one scalar is): "
                        f"{_HOST}")


#: The specs of the device pads run lately, by their arguments (``_key``): the same
#: pad of another array of that library, dtype and shape runs its spec again,
#: without the front end's argument handling (and with its index maps already on
#: the device). At most ``_SPECS_MAX``, the oldest forgotten first.
_SPECS: Dict[Any, Any] = {}
_SPECS_MAX = 64


def _frozen(value: Any) -> Any:
    """``value`` (an argument of a pad) as a hashable key of exact types, which tells
    apart what compares equal but pads differently (``-0.0`` and ``0.0``, ``1`` and
    ``True``): a plain int as itself, anything else tagged with its type; TypeError
    for anything else (no key: the pad is not remembered)."""
    kind = type(value)
    if kind is int:
        return value
    if kind is tuple or kind is list:
        return kind, tuple(map(_frozen, value))
    if kind is bool or kind is str or value is None:
        return kind, value
    if kind is float:
        # By its bits: the NaNs' signs apart, as -0.0 and 0.0.
        return kind, struct.pack("<d", value)
    if isinstance(value, np.generic) and not isinstance(value, np.object_):
        return kind, value.tobytes()
    raise TypeError("not a plain argument")


def _key(function: Callable[..., Any], lib: Library, x: Any, args: tuple,
         kwargs: dict) -> Optional[Tuple[Any, ...]]:
    try:
        return (function, lib.name, x.dtype, tuple(x.shape), _frozen(args),
                _frozen(sorted(kwargs.items())) if kwargs else None)
    except TypeError:
        return None


def pad(function: Callable[..., Any], array: Any, args: tuple, kwargs: dict,
        device: Optional[int]) -> Any:
    """``function`` (one of ndpad's pads) on the CUDA array ``array`` on CUDA device
    ``device`` (None: ``array`` is not on one, an error; ``out=`` too, if given, of its
    library and device)."""
    out = kwargs.pop("out", None)
    if device is None:
        raise TypeError(f"out is a CUDA array, but the array to pad is not "
                        f"({type(array).__module__}.{type(array).__name__}): both must be")
    lib = _library(array)
    x = lib.contiguous(array)
    key = _key(function, lib, x, args, kwargs) if len(x.shape) else None
    spec = _SPECS.get(key) if key is not None else None
    if spec is not None:
        return Call(None, lib, x, out, device).run(spec)
    proxy = np.broadcast_to(np.zeros((), dtype=lib.dtype(x)), tuple(x.shape))
    call = Call(proxy, lib, x, out, device)
    token = _CALL.set(call)
    try:
        result = function(proxy, *args, **kwargs)
    finally:
        _CALL.reset(token)
    if proxy.ndim == 0:
        # A 0-d array comes back unchanged (numpy.pad's rule), as a copy.
        if out is not None:
            raise TypeError("out= with a 0-d CUDA array: nothing is padded")
        return lib.copy(x)
    if key is not None and len(call.specs) == 1 and _quiet(args, kwargs, lib.dtype(x)):
        dispatch.remember(_SPECS, key, call.specs[0], _SPECS_MAX)
    return result


def _quiet(args: tuple, kwargs: dict, dtype: np.dtype) -> bool:
    """Whether every float or numpy scalar among the arguments (a constant, say)
    casts to ``dtype`` without anything numpy may report (overflow, NaN into an
    integer, a complex part dropped): a pad whose front end may warn, or raise under
    ``numpy.errstate``, on every call is not remembered (as ``ndpad.pad``'s host
    pads)."""
    leaves = [args, list(kwargs.values())]
    while leaves:
        value = leaves.pop()
        if type(value) in (tuple, list):
            leaves.extend(value)
        elif type(value) is float or isinstance(value, np.generic):
            if dtype.kind not in "biufc":
                continue
            if np.iscomplexobj(value) and dtype.kind != "c":
                return False
            try:
                with np.errstate(all="raise"):
                    cell = dispatch.cast(value, dtype)
            except (FloatingPointError, OverflowError, ValueError, TypeError):
                return False
            if cell.item() != value and not (value != value and cell != cell):
                return False
    return True
