"""``ndpad.zarr.pad``: a zarr v3 array padded into another, chunk by chunk.

The work is the Rust library ``ndpad-zarr`` (the engine of ``ndpad pad IN.zarr
OUT.zarr``): each output chunk is padded from only the input region it reads, in
parallel, with the GIL released, within a memory budget (``max_memory``); the output
is staged beside its destination and moved into place only when every chunk is
written, so an error or Ctrl-C leaves nothing behind. ``pad_width``, ``mode`` and
``constant_values`` are resolved by ndpad's numpy front end: ``numpy.pad``'s
semantics in its index modes. zarr-python is needed only to pass zarr arrays
(rather than paths).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _dispatch as dispatch
from . import _ndpad

__all__ = ["pad"]

_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _path(a: Any, what: str) -> Path:
    """The directory of ``a``: a path, or a zarr-python array on a local store."""
    if isinstance(a, (str, os.PathLike)):
        return Path(os.fspath(a))
    store_path = getattr(a, "store_path", None)
    if store_path is None:
        raise TypeError(
            f"{what} must be a path (str or os.PathLike) or a zarr array, "
            f"not {type(a).__name__}")
    store = store_path.store
    root = getattr(store, "root", None)
    try:
        from zarr.storage import LocalStore
    except ImportError:  # pragma: no cover - a zarr array without zarr
        LocalStore = None  # type: ignore[assignment,misc]
    if LocalStore is None or not isinstance(store, LocalStore) or root is None:
        raise TypeError(
            f"{what} is a zarr array on a {type(store).__name__}; ndpad.zarr.pad reads "
            "and writes zarr arrays on a local file system only (zarr.storage.LocalStore)"
            ": give a path, or copy the array to a local store first")
    fmt = getattr(getattr(a, "metadata", None), "zarr_format", 3)
    if fmt != 3:
        raise TypeError(f"{what} is a zarr v{fmt} array; ndpad pads zarr v3 arrays only")
    return Path(root) / store_path.path if store_path.path else Path(root)


def _metadata(src: Path) -> Tuple[str, Optional[int]]:
    """The zarr data type and the rank of the array at ``src`` (its zarr.json), or
    ('', None) when they cannot be read here (the extension then says what is
    wrong)."""
    try:
        with open(src / "zarr.json", "rb") as f:
            meta = json.loads(f.read(1 << 20))
        name = meta.get("data_type", "")
        shape = meta.get("shape")
        rank = len(shape) if isinstance(shape, list) else None
        return (name if isinstance(name, str) else "", rank)
    except (OSError, ValueError, AttributeError):
        return "", None


def _value(v: Any, data_type: str) -> Any:
    """One side's constant (``constant_values`` broadcast as numpy broadcasts it) for
    the extension, cast to the array's type as numpy.pad casts it: a string for string arrays, the value's bytes for the types numpy
    has, else ``("number", text)``."""
    scalar = np.asarray(v).reshape(-1)[0]
    if data_type == "string":
        return str(scalar)
    try:
        dtype = np.dtype(data_type) if data_type and not data_type.startswith(
            "numpy.") else None
    except TypeError:
        dtype = None
    if dtype is not None and dtype.kind in "biufc":
        from ._frameworks import type_name
        with np.errstate(all="ignore"):
            cast = np.asarray(scalar).astype(dtype)
        return (type_name(dtype), [], cast.tobytes())
    if isinstance(scalar, np.generic):
        scalar = scalar.item()
    return ("number", str(scalar))


def pad(
    src: Any,
    dst: Union[str, "os.PathLike[str]", Any],
    pad_width: Any,
    mode: str = "constant",
    *,
    constant_values: Any = 0,
    negative_pads: Optional[str] = None,
    interior: Any = 0,
    threads: Optional[int] = None,
    chunks: Optional[Sequence[int]] = None,
    max_memory: Optional[int] = None,
    max_chunks: int = 1 << 20,
) -> Path:
    """Pad the zarr v3 array ``src`` into a new zarr v3 array ``dst``, as
    ``numpy.pad(src[...], pad_width, mode, constant_values=...)`` would, chunk by
    chunk without reading the array whole.

    Parameters
    ----------
    src : str, os.PathLike or zarr.Array
        The input: the path of a zarr v3 array (a directory holding its
        ``zarr.json``), or a zarr-python 3 array on a local file system store
        (``zarr.storage.LocalStore``; other stores raise ``TypeError``). Any data
        type ndpad pads in zarr (bool, integers, floats, complex, bfloat16, float8,
        strings, ``numpy.datetime64`` / ``timedelta64`` as their int64 counts).
    dst : str, os.PathLike or zarr.Array
        Where the output goes. An existing zarr array or empty directory there is
        replaced (atomically where the file system allows); anything else, the
        input itself, or a path inside it, is refused. Inside an existing group
        it becomes one of its members.
    pad_width : int, sequence, array_like or dict
        ``numpy.pad``'s ``pad_width``, in every form numpy takes; negative only with
        ``negative_pads``.
    mode : {'constant', 'edge', 'reflect', 'symmetric', 'wrap'}, optional
        ``numpy.pad``'s index modes (reflect and symmetric in their 'even' form).
    constant_values : scalar or array_like, optional
        The constants of 'constant' mode, one for every side or per axis and side
        as ``numpy.pad`` takes them (default 0; ``'0'`` for strings, as numpy pads
        a string array), cast to the array's type as numpy casts them.
    negative_pads : {None, 'crop_first', 'original_index'}, optional
        As ``ndpad.pad``'s: negative widths crop the axis, cropping before padding
        or indexing the original array (default None: refused, as numpy refuses
        them).
    interior : int or sequence of int, optional
        As ``ndpad.pad``'s: elements of the constant inserted between neighbours,
        one for every axis or one per axis (constant mode only; default 0).
    threads : int, optional
        Threads padding chunks (default: all cores).
    chunks : sequence of int, optional
        The output's chunk shape (default: the input's).
    max_memory : int, optional
        The memory budget in bytes (default 1 GiB): the chunks the threads hold and
        the parts of decoded input chunks kept for the chunks that read them later.
        Fewer threads run where their chunks would not fit; chunks that cannot fit
        at all raise ``MemoryError``.
    max_chunks : int, optional
        Refuse inputs or outputs of more chunks than this (default 1,048,576).

    Returns
    -------
    pathlib.Path
        The output's path (open it with ``zarr.open_array(path)``). Its metadata is
        the input's (data type, codecs, fill value, attributes, dimension names)
        with the padded shape and ``chunks``; chunks holding nothing but the fill
        value are not stored.

    Raises
    ------
    ndpad.PadError
        An invalid pad or input (a ``ValueError``), naming the value and the limit.
    TypeError
        ``src`` or ``dst`` neither a path nor a zarr array on a local store, or a
        ``pad_width`` that is not integral.
    MemoryError
        Chunks larger than ``max_memory`` allows.
    OSError
        The output could not be written.
    KeyboardInterrupt
        Ctrl-C stops the pad between chunks; nothing is written.

    Examples
    --------
    >>> import numpy as np, zarr, ndpad.zarr  # doctest: +SKIP
    >>> z = zarr.create_array("a.zarr", shape=(4, 4), chunks=(2, 2), dtype="i4")
    >>> z[:] = np.arange(16).reshape(4, 4)
    >>> out = ndpad.zarr.pad(z, "b.zarr", 1, mode="reflect")
    >>> np.array_equal(zarr.open_array(out)[:], np.pad(z[:], 1, mode="reflect"))
    True
    """
    if mode not in _MODES:
        raise ValueError(
            f"mode {mode!r}: ndpad.zarr.pad pads in numpy.pad's index modes "
            f"({', '.join(_MODES)})")
    dispatch.check_negative_pads(negative_pads)
    src_path = _path(src, "src")
    dst_path = _path(dst, "dst")
    # The integer 0 (the default) is the front end's default: 0 in the array's type,
    # '0' for strings, as numpy casts it.
    default = (isinstance(constant_values, (int, np.integer))
               and not isinstance(constant_values, bool) and constant_values == 0)
    data_type, rank = _metadata(src_path)
    # pad_width and constant_values broadcast as numpy.pad broadcasts them (on an
    # unreadable input, the extension's error about it comes first).
    widths = ([] if rank is None else
              dispatch.normalize_widths(pad_width, rank, negative_pads is not None))
    interiors = [] if rank is None else dispatch.parse_interior(interior, [mode] * rank)
    values = []
    if mode == "constant" and not default and rank is not None:
        values = [_value(v, data_type) for pair in dispatch.as_pairs(constant_values, rank)
                  for v in pair]
    elif mode != "constant" and not default:
        raise ValueError(f"constant_values applies to mode 'constant', not {mode!r}")
    top = 2**64 - 1
    shape_chunks = (None if chunks is None else
                    [dispatch.integer(c, "chunks", 0, top) for c in chunks])
    _ndpad.zarr_pad(
        os.fspath(src_path), os.fspath(dst_path), widths, mode, values,
        interior=interiors, negative=negative_pads,
        threads=dispatch.threads(threads), chunks=shape_chunks,
        max_memory=(None if max_memory is None else
                    dispatch.integer(max_memory, "max_memory", 0, top)),
        max_chunks=dispatch.integer(max_chunks, "max_chunks", 0, top))
    return dst_path

