"""``ndpad.zarr.pad``: arrays written by zarr-python 3, padded by the extension
(``ndpad-zarr``), read back with zarr-python and compared with ``numpy.pad``: several
dtypes, modes and chunkings, strings, ``chunks=``, zarr arrays as arguments, and the
errors."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
if int(zarr.__version__.split(".")[0]) < 3:  # pragma: no cover
    pytest.skip("zarr-python 3 writes zarr v3 arrays", allow_module_level=True)

import ndpad  # noqa: E402
import ndpad.zarr  # noqa: E402

MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


def write(path: Path, data: np.ndarray, chunks, fill=0) -> zarr.Array:
    z = zarr.create_array(str(path), shape=data.shape, chunks=chunks, dtype=data.dtype,
                          fill_value=fill)
    z[...] = data
    return z


def read(path) -> np.ndarray:
    return zarr.open_array(str(path), mode="r")[...]


def no_staging(d: Path) -> None:
    assert [p.name for p in d.iterdir() if "ndpad" in p.name] == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64", "complex64",
                                   "bool"])
def test_matches_numpy_pad(tmp_path, mode, dtype):
    rng = np.random.default_rng(7)
    data = (rng.integers(0, 100, size=(7, 9)) if dtype != "bool"
            else rng.integers(0, 2, size=(7, 9))).astype(dtype)
    src = write(tmp_path / "a.zarr", data, (3, 4))
    width = ((2, 5), (11, 1))
    out = ndpad.zarr.pad(tmp_path / "a.zarr", tmp_path / "b.zarr", width, mode)
    assert out == tmp_path / "b.zarr"
    np.testing.assert_array_equal(read(out), np.pad(data, width, mode))
    # A zarr array as the input (and str paths) give the same.
    out2 = ndpad.zarr.pad(src, str(tmp_path / "c.zarr"), width, mode=mode, threads=1)
    np.testing.assert_array_equal(read(out2), np.pad(data, width, mode))
    no_staging(tmp_path)


@pytest.mark.parametrize("width", [0, 3, (1, 2), ((1, 0), (0, 2), (3, 3)), [[2], [0], [1]]])
@pytest.mark.parametrize("chunks", [(1, 1, 1), (2, 3, 5), (4, 6, 5)])
def test_widths_and_chunkings(tmp_path, width, chunks):
    data = np.arange(4 * 6 * 5, dtype=np.int32).reshape(4, 6, 5)
    write(tmp_path / "a.zarr", data, chunks)
    out = ndpad.zarr.pad(tmp_path / "a.zarr", tmp_path / "b.zarr", width, "reflect")
    np.testing.assert_array_equal(read(out), np.pad(data, width, "reflect"))


def test_constant_values_cast_as_numpy_casts(tmp_path):
    data = np.arange(12, dtype=np.int16).reshape(3, 4)
    write(tmp_path / "a.zarr", data, (2, 2))
    for value in [7, -3, 1.9, np.float32(2.5), True]:
        out = ndpad.zarr.pad(tmp_path / "a.zarr", tmp_path / "b.zarr", 2,
                             constant_values=value)
        np.testing.assert_array_equal(read(out), np.pad(data, 2, constant_values=value))
    f = np.linspace(0, 1, 12, dtype=np.float64).reshape(3, 4)
    write(tmp_path / "f.zarr", f, (3, 3))
    out = ndpad.zarr.pad(tmp_path / "f.zarr", tmp_path / "g.zarr", (1, 2),
                         constant_values=-0.0)
    np.testing.assert_array_equal(read(out), np.pad(f, (1, 2), constant_values=-0.0))
    assert np.signbit(read(out)[0, 0])


def test_constants_per_side_and_every_pad_width_form(tmp_path):
    """``constant_values`` and ``pad_width`` in every form numpy.pad takes: per axis
    and side (corners take the last axis's), a dict of widths by axis."""
    data = np.arange(4 * 5 * 3, dtype=np.float32).reshape(4, 5, 3)
    write(tmp_path / "a.zarr", data, (3, 2, 2))
    cases = [
        (((1, 2), (3, 0), (2, 2)), {"constant_values": ((1, 2), (3, 4), (5, 6))}),
        (2, {"constant_values": (7, -1.5)}),
        ({1: 3, 2: (0, 2)}, {"constant_values": [[9], [8], [7]]}),
    ]
    for width, kwargs in cases:
        out = ndpad.zarr.pad(tmp_path / "a.zarr", tmp_path / "b.zarr", width, **kwargs)
        np.testing.assert_array_equal(read(out), np.pad(data, width, **kwargs))


@pytest.mark.parametrize("chunks", [(1, 1, 1), (2, 3, 2), (4, 6, 5)])
def test_interior_and_negative_pads_as_ndpad_pad(tmp_path, chunks):
    """``interior=`` and ``negative_pads=`` as ``ndpad.pad`` takes them, in any
    chunking: the output is ``ndpad.pad``'s of the whole array."""
    data = np.arange(4 * 6 * 5, dtype=np.int32).reshape(4, 6, 5)
    write(tmp_path / "a.zarr", data, chunks)
    cases = [
        (2, "constant", {"interior": 1, "constant_values": 9}),
        (((1, 0), (0, 2), (3, 1)), "constant", {"interior": (2, 0, 1)}),
        (((1, -2), (-1, 3), (0, 0)), "edge", {"negative_pads": "crop_first"}),
        (((-1, 2), (2, -3), (1, 1)), "reflect", {"negative_pads": "original_index"}),
        (((1, -1), (0, 0), (-2, 2)), "constant",
         {"negative_pads": "crop_first", "interior": (0, 1, 0), "constant_values": -4}),
    ]
    for width, mode, kwargs in cases:
        out = ndpad.zarr.pad(tmp_path / "a.zarr", tmp_path / "b.zarr", width, mode,
                             **kwargs)
        np.testing.assert_array_equal(read(out), ndpad.pad(data, width, mode, **kwargs))
    no_staging(tmp_path)


def test_interior_and_negative_pads_errors(tmp_path):
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    write(tmp_path / "a.zarr", data, (2, 2))
    a, b = tmp_path / "a.zarr", tmp_path / "b.zarr"
    with pytest.raises(ndpad.PadError, match="interior padding is for constant mode only"):
        ndpad.zarr.pad(a, b, 1, "reflect", interior=1)
    with pytest.raises(ndpad.PadError, match="interior must not be negative"):
        ndpad.zarr.pad(a, b, 1, interior=-1)
    with pytest.raises(ndpad.PadError, match="negative_pads must be None, 'crop_first' or "
                                             "'original_index', not 'crop'"):
        ndpad.zarr.pad(a, b, 1, negative_pads="crop")
    with pytest.raises(ValueError, match="index can't contain negative values"):
        ndpad.zarr.pad(a, b, ((1, -1), (0, 0)))
    assert not b.exists()


def test_chunks_option(tmp_path):
    data = np.arange(50, dtype=np.float32).reshape(5, 10)
    write(tmp_path / "a.zarr", data, (5, 10))
    out = ndpad.zarr.pad(tmp_path / "a.zarr", tmp_path / "b.zarr", 3, "wrap",
                         chunks=(2, 3))
    z = zarr.open_array(str(out), mode="r")
    assert z.chunks == (2, 3)
    np.testing.assert_array_equal(z[...], np.pad(data, 3, "wrap"))


def test_strings(tmp_path):
    data = np.array([["a", "bc", ""], ["déf", "g", "hij"]], dtype=str)
    z = zarr.create_array(str(tmp_path / "s.zarr"), shape=data.shape, chunks=(1, 2),
                          dtype=str)
    z[...] = data
    for mode in MODES:
        out = ndpad.zarr.pad(z, tmp_path / "t.zarr", ((1, 1), (2, 0)), mode)
        assert read(out).tolist() == np.pad(data, ((1, 1), (2, 0)), mode).tolist()
    out = ndpad.zarr.pad(z, tmp_path / "t.zarr", 1, constant_values="x")
    assert read(out).tolist() == np.pad(data, 1, constant_values="x").tolist()


def test_replaces_an_array_and_keeps_metadata(tmp_path):
    data = np.arange(6, dtype=np.uint16).reshape(2, 3)
    z = write(tmp_path / "a.zarr", data, (1, 2), fill=5)
    z.attrs["note"] = "kept"
    write(tmp_path / "b.zarr", np.zeros(3, dtype=np.uint8), (3,))
    out = ndpad.zarr.pad(z, tmp_path / "b.zarr", 1, "edge")
    o = zarr.open_array(str(out), mode="r")
    assert o.attrs["note"] == "kept" and o.fill_value == 5 and o.chunks == (1, 2)
    np.testing.assert_array_equal(o[...], np.pad(data, 1, "edge"))


def test_errors(tmp_path):
    data = np.arange(6, dtype=np.uint8).reshape(2, 3)
    write(tmp_path / "a.zarr", data, (1, 3))
    a, b = tmp_path / "a.zarr", tmp_path / "b.zarr"
    with pytest.raises(ndpad.PadError, match="No such file"):
        ndpad.zarr.pad(tmp_path / "nope.zarr", b, 1)
    with pytest.raises(ndpad.PadError, match="the output is the input array"):
        ndpad.zarr.pad(a, a, 1)
    # pad_width's errors are numpy.pad's (its argument rules, ndpad.pad's too).
    with pytest.raises(ValueError, match="index can't contain negative values"):
        ndpad.zarr.pad(a, b, -1)
    with pytest.raises(ValueError, match="could not be broadcast"):
        ndpad.zarr.pad(a, b, [(1, 1)] * 3)
    with pytest.raises(ValueError, match="index modes"):
        ndpad.zarr.pad(a, b, 1, "mean")
    with pytest.raises(TypeError, match="integral"):
        ndpad.zarr.pad(a, b, 1.5)
    with pytest.raises(TypeError, match="path"):
        ndpad.zarr.pad(np.zeros(3), b, 1)
    with pytest.raises(TypeError, match="local file system"):
        mem = zarr.create_array(zarr.storage.MemoryStore(), shape=(3,), dtype="i4")
        ndpad.zarr.pad(mem, b, 1)
    with pytest.raises(ndpad.PadError, match="extents"):
        ndpad.zarr.pad(a, b, 1, chunks=(2,))
    with pytest.raises(MemoryError, match="budget of 100 bytes"):
        ndpad.zarr.pad(a, b, 1, chunks=(4, 5), max_memory=100)
    with pytest.raises(ndpad.PadError, match="over the limit of 2 chunks"):
        ndpad.zarr.pad(a, b, 1, max_chunks=2)
    # The integer arguments are checked as ndpad.pad's are, naming the argument (a
    # float was cut, a negative one pyo3's nameless OverflowError).
    with pytest.raises(TypeError, match=r"threads must be an integer .* not 2.7"):
        ndpad.zarr.pad(a, b, 1, threads=2.7)
    with pytest.raises(TypeError, match="threads must be an integer"):
        ndpad.zarr.pad(a, b, 1, threads="3")
    for kw, bad in [("threads", -1), ("max_memory", -1), ("max_chunks", -2),
                    ("chunks", (4, -5))]:
        with pytest.raises(ValueError, match=rf"{kw} must be an integer from 0"):
            ndpad.zarr.pad(a, b, 1, **{kw: bad})
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "file").write_text("x")
    with pytest.raises(ndpad.PadError, match="not a zarr array or an empty directory"):
        ndpad.zarr.pad(a, tmp_path / "keep", 1)
    assert not b.exists()
    no_staging(tmp_path)


def test_interrupt_leaves_nothing(tmp_path, monkeypatch):
    """A signal handler's exception stops the pad and propagates; nothing staged is
    left behind."""
    import signal
    import threading

    data = np.arange(400, dtype=np.uint16).reshape(20, 20)
    write(tmp_path / "a.zarr", data, (1, 1))

    def handler(signum, frame):
        raise KeyboardInterrupt

    stop = threading.Event()

    def signal_while_staged():
        # The signal once the pad has staged its output: it arrives while the
        # extension pads, with the GIL released.
        while not stop.is_set():
            if any(".ndpad-" in p.name for p in tmp_path.iterdir()):
                os.kill(os.getpid(), signal.SIGUSR1)
                return

    old = signal.signal(signal.SIGUSR1, handler)
    sender = threading.Thread(target=signal_while_staged)
    try:
        with pytest.raises(KeyboardInterrupt):
            sender.start()
            for _ in range(50):
                ndpad.zarr.pad(tmp_path / "a.zarr", tmp_path / "b.zarr", 1, chunks=(1, 1),
                               threads=1)
    finally:
        stop.set()
        sender.join()
        signal.signal(signal.SIGUSR1, old)
    assert not (tmp_path / "b.zarr").exists()
    no_staging(tmp_path)


def test_readme_zarr_block():
    """The README's zarr quick start (a ```py block: zarr needs Python 3.11)."""
    import re

    readme = Path(__file__).resolve().parents[2] / "README.md"
    if not readme.exists():  # pragma: no cover - run from a checkout only
        pytest.skip("run from a checkout")
    blocks = re.findall(r"```py\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    assert blocks, "README.md has no ```py block"
    for block in blocks:
        exec(compile(block, str(readme), "exec"), {})
