"""What the framework modules share: numpy dtypes by ndpad's type names, pad values
and integer lists as the extension takes them, and running a validated spec."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from . import _device
from . import _ndpad
from . import _dispatch as dispatch

#: numpy's (and ml_dtypes') dtype names -> ndpad's type names (``DType::name``).
_TYPE_NAMES = {
    "bool": "bool",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "float16": "float16",
    "float32": "float32",
    "float64": "float64",
    "complex64": "complex64",
    "complex128": "complex128",
    "bfloat16": "bfloat16",
    "float8_e4m3fn": "float8e4m3fn",
    "float8_e4m3fnuz": "float8e4m3fnuz",
    "float8_e5m2": "float8e5m2",
    "float8_e5m2fnuz": "float8e5m2fnuz",
    "float8_e8m0fnu": "float8e8m0",
    "int4": "int4",
    "uint4": "uint4",
    "float4_e2m1fn": "float4e2m1",
    "int2": "int2",
    "uint2": "uint2",
}


#: The dtypes named so far (``dtype.name`` costs microseconds a call).
_NAMED: Dict[np.dtype, str] = {}


def type_name(dtype: np.dtype) -> str:
    """ndpad's name of ``dtype``; object, ``U`` and ``S`` arrays hold strings."""
    name = _NAMED.get(dtype)
    if name is not None:
        return name
    if dtype.kind in "OUS":
        return "string"
    name = _TYPE_NAMES.get(dtype.name) if dtype.isnative or dtype.itemsize == 1 else None
    if name is None:
        raise _ndpad.PadError(f"ndpad has no tensor type for numpy dtype {dtype}")
    _NAMED[dtype] = name
    return name


_INT64 = (-(1 << 63), (1 << 63) - 1)


def ints(values: Any, what: str) -> Optional[list]:
    """A list of Python ints of 64 bits from an integer, a sequence or an integer
    array (``dispatch.integer``'s errors for a value that is not one)."""
    if values is None:
        return None
    if type(values) is list and all(
        type(v) is int and _INT64[0] <= v <= _INT64[1] for v in values
    ):
        return list(values)  # the common case, as the checks below would give it
    if (type(values) is np.ndarray and values.ndim <= 1 and values.dtype.kind == "i"
            and values.dtype.itemsize <= 8):
        # An integer array (ONNX's pads input): every value fits 64 bits.
        return values.reshape(-1).tolist()
    a = np.asarray(values)
    if a.ndim > 1:
        raise _ndpad.PadError(f"{what} must be a 1-D list of integers, not shape {a.shape}")
    if a.size and a.dtype.kind not in "iuO":  # object: Python ints past 64 bits
        raise TypeError(f"{what} must hold integers, not {a.dtype}")
    return [dispatch.integer(v, f"an element of {what}", *_INT64)
            for v in a.reshape(-1).tolist()]


def value(v: Any, data: np.ndarray) -> Any:
    """A pad value for the extension: None, a string, ``("number", text)`` or
    (type, shape, bytes).

    A Python number goes as text, which the Rust front end reads as a value of the
    data's type, as the CLI's ``--value``: the framework's constant has the data's
    type, so ``1.5`` for integer data is refused ("not an integer"), and so are
    integers out of range and finite floats beyond the type's largest value. A numpy
    scalar or array keeps its own type (the front end checks that it matches, as the
    framework does).
    """
    if v is None:
        return None
    if isinstance(v, (str, bytes)):
        return v.decode("utf-8") if isinstance(v, bytes) else v
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        if a.dtype.kind in "OUS":
            if a.size != 1:
                raise _ndpad.PadError(
                    f"the pad value must hold one element; it has shape {a.shape}")
            return value(a.reshape(-1)[0], data)
    elif data.dtype.kind in "OUS":
        raise TypeError(f"the pad value of a string tensor must be a str, not {type(v).__name__}")
    elif isinstance(v, (bool, int, float, complex)):
        return ("number", _number_text(v))
    else:
        a = np.asarray(v, dtype=data.dtype)
    a = np.ascontiguousarray(a)
    return (type_name(a.dtype), list(a.shape), a.view(np.uint8).tobytes())


def _number_text(v: Any) -> str:
    """A Python number as the CLI's ``--value`` writes it: ``1`` / ``0`` for bools,
    integers in full, floats by ``repr`` (``1.5``, ``1e+40``, ``nan``, ``inf``),
    complex numbers as ``re,im``."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return repr(float(v))
    return f"{float(v.real)!r},{float(v.imag)!r}"


def _text(x: Any) -> str:
    if isinstance(x, bytes):
        return x.decode("utf-8")
    if isinstance(x, str):
        return x
    raise TypeError(f"a string tensor holds str or bytes, not {type(x).__name__}")


def opset(value: Any) -> int:
    """``opset=`` as the extension takes it: an integer of 64 bits (the operator's own
    versions are checked by its front end, whose message names them)."""
    return dispatch.integer(value, "opset", *_INT64)


#: The framework pads run lately (``_ndpad.Node``: a framework's Pad for one dtype,
#: its spec made and kept for each shape it pads), by their arguments (``node_key``),
#: so that the same pad of another array of that dtype (a model run again, a loop,
#: inputs of a new shape) skips the arguments' conversion. At most ``_NODES_MAX``, the
#: oldest forgotten first.
_NODES: Dict[tuple, Any] = {}
_NODES_MAX = 64


#: The key a framework pad's node is remembered under: ``data``'s dtype and the pad's
#: other arguments (the framework's name first: the same values are another pad in
#: another framework), each with its type (``1``, ``1.0`` and ``True`` convert apart; a
#: float by its bits, so ``-0.0`` is not ``0.0``), or None where one is not None, a
#: bool, int, str, float, or integers in a list, tuple or 1-D integer array.
node_key = _ndpad.node_key


def remembered(key: Optional[tuple], make: Callable[[], Any], data: np.ndarray) -> Any:
    """The node remembered under ``key``, else ``make()``'s, its spec for ``data``'s
    shape made first (which validates the pad and raises for an invalid one, before
    ``run`` checks its own arguments; so only pads valid for some shape are
    remembered), and remembered unless ``key`` is None."""
    node = None if key is None else _NODES.get(key)
    if node is None:
        node = make()
        node.spec(data.shape)
        if key is not None:
            dispatch.remember(_NODES, key, node, _NODES_MAX)
    return node


def run(node: Any, data: np.ndarray, threads: Optional[int]) -> np.ndarray:
    """Pads ``data`` as ``node`` says (on the GPU where ``data`` stands in for a CUDA
    array): the front end's error where the node is invalid for its shape."""
    nthreads = dispatch.threads(threads)
    device = _device.current(data)
    if device is not None:
        return device.run(node.spec(data.shape))
    if data.dtype.kind in "OUS":
        return _strings(node.spec(data.shape), data, nthreads)
    # An input the kernel reads where it lies with a heap-sized output: allocated and
    # padded in one call.
    made = node.padded(data, nthreads)
    if made is not None:
        return made
    spec = node.spec(data.shape)
    src = data if spec.reads_in_place(data) else np.ascontiguousarray(data)
    out, memory = dispatch.new_output(tuple(spec.output_shape), data.dtype, like=src)
    spec.execute(src, out, nthreads, memory)
    return out


def _strings(spec: Any, data: np.ndarray, threads: int) -> np.ndarray:
    """A string tensor padded: the kernel pads the elements' indices (-1 where the
    constant goes) into an array numpy allocates first (a MemoryError, not a dead
    process, when it cannot), then numpy gathers the strings, the constant last in
    the source, so index -1 picks it. Object arrays give an object array of the
    first element's kind (str or bytes); ``U`` / ``S`` arrays their kind, as wide as
    the widest string of the result."""
    flat = data.reshape(-1)
    indices, constant = spec.string_indices()
    picked, memory = dispatch.new_output(tuple(indices.output_shape), np.dtype(np.int64))
    positions = np.arange(flat.size, dtype=np.int64).reshape(data.shape)
    indices.execute(positions, picked, threads, memory)
    if data.dtype.kind == "U":
        source = np.concatenate([flat, np.array([constant], dtype="U")])
    elif data.dtype.kind == "S":
        for x in flat:
            _text(x)  # UTF-8, as every string tensor
        source = np.concatenate([flat, np.array([constant.encode("utf-8")], dtype="S")])
    else:
        texts = [_text(x) for x in flat]  # str or bytes (UTF-8)
        as_bytes = bool(texts) and isinstance(flat[0], bytes)
        items = texts + [constant]
        source = np.empty(len(items), dtype=object)
        source[:] = [t.encode("utf-8") for t in items] if as_bytes else items
    if data.dtype.kind in "US":
        # As wide as the widest string picked (at least 1), as numpy.array makes it.
        used = np.zeros(source.size, dtype=bool)
        used[picked.reshape(-1)] = True
        width = max(int(np.char.str_len(source[used]).max(initial=0)), 1)
        source = source.astype(f"{data.dtype.kind}{width}")
    return source[picked]


def dims(shape: Sequence[Any]) -> list:
    """A shape for shape inference: ints (0 to 2**63 - 1), None (unknown) or names."""
    return [d if d is None or isinstance(d, str) else dispatch.integer(d, "a dim", 0, _INT64[1])
            for d in shape]
