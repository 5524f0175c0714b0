"""Outputs of at least 32 MiB come from the core's pool of output buffers
(``ndpad::PooledBuffer``): numpy arrays whose base returns the buffer to the pool
when numpy frees them, reused dirty by the next output of the same size. These tests
check that reused memory is written whole, that memory still in use is never handed
out again, layouts and dtypes, the bound on idle memory, and a forked child."""

from __future__ import annotations

import multiprocessing
import pickle
import sys

import numpy as np
import pytest

import ndpad
from ndpad import _ndpad
from _helpers import assert_same_array, ml_dtype, numpy_pad

MIB = 1 << 20
BIG = _ndpad.POOL_MIN_BYTES


def test_pool_bound_is_the_cores() -> None:
    assert BIG == 32 * MIB


def test_large_outputs_are_pooled_and_reused() -> None:
    x = np.arange(2048 * 4096, dtype=np.float32).reshape(2048, 4096)  # 32 MiB in
    y = ndpad.pad(x, 4, mode="reflect")
    assert isinstance(y.base, _ndpad.PooledMemory)
    assert y.flags.writeable and y.flags.c_contiguous and y.flags.aligned
    assert y.ctypes.data % 64 == x.ctypes.data % 64  # aligned as the input in its line
    addr = y.ctypes.data
    del y
    assert _ndpad.pooled_bytes() >= x.nbytes
    z = ndpad.pad(x + 1, 4, mode="reflect")
    # The same pages (placed in a line as x + 1 is).
    assert z.ctypes.data // 4096 == addr // 4096, "the freed output's buffer was not reused"
    assert_same_array(z, numpy_pad(x + 1, 4, mode="reflect"))


@pytest.mark.parametrize("mode, kwargs", [("mean", {"stat_length": 3}), ("maximum", {}),
                                          ("linear_ramp", {"end_values": 7})])
def test_statistic_pads_are_pooled_first_and_remembered(mode: str,
                                                        kwargs: dict) -> None:
    """The statistic modes and linear_ramp computed by the core, on their first call
    (the whole argument handling) and when remembered (``_StatPads``), write a
    pooled output: a loop of large pads takes no page fault after its first."""
    x = np.arange(1024 * 4096, dtype=np.float64).reshape(1024, 4096) % 1000
    for k in range(3):
        y = ndpad.pad(x + k, 3, mode, **kwargs)
        assert isinstance(y.base, _ndpad.PooledMemory), k
        assert_same_array(y, numpy_pad(x + k, 3, mode, **kwargs))
        del y


@pytest.mark.parametrize("offset", [1, 3, 4])
def test_unaligned_input_gives_an_aligned_output(offset: int) -> None:
    """An input at an address its dtype is not aligned to (a view of raw bytes): the
    output is aligned, as numpy.pad's always is, at the input's place in its line
    rounded down to the dtype's alignment."""
    raw = np.zeros(BIG + 64, np.uint8)
    x = np.frombuffer(raw.data, np.float64, count=BIG // 8, offset=offset).reshape(-1, 1024)
    assert not x.flags.aligned
    y = ndpad.pad(x, 1, mode="edge")
    assert isinstance(y.base, _ndpad.PooledMemory)
    assert y.flags.aligned and y.ctypes.data % 8 == 0
    assert y.ctypes.data % 64 == (x.ctypes.data % 64) // 8 * 8
    assert_same_array(y, numpy_pad(x, 1, mode="edge"))


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap"])
def test_reused_memory_is_written_whole(mode: str) -> None:
    """A reused buffer holds the last output's bytes: a zero constant must be written,
    not left to pages that are no longer zero."""
    x = np.ones((4096, 2048), dtype=np.float32)
    widths = ((100, 100), (3, 5))
    y = ndpad.pad(x, widths, mode=mode)
    y.fill(np.nan)  # the next owner's memory, dirty
    del y
    z = ndpad.pad(x, widths, mode=mode)
    assert_same_array(z, numpy_pad(x, widths, mode=mode))


def test_memory_in_use_is_never_handed_out() -> None:
    x = np.full((4096, 2048), 3, dtype=np.int32)
    y = ndpad.pad(x, 1)
    view = y[10:20]
    kept = view.copy()
    del y  # the view keeps the buffer alive
    z = ndpad.pad(x, 1)
    assert not np.shares_memory(view, z)
    assert_same_array(view, kept)
    del view
    w = ndpad.pad(x + 1, 1)
    assert_same_array(w, numpy_pad(x + 1, 1))
    assert_same_array(z, numpy_pad(x, 1))


def test_fortran_order_outputs() -> None:
    x = np.asfortranarray(np.arange(4096 * 2100, dtype=np.float32).reshape(4096, 2100))
    for _ in range(2):
        y = ndpad.pad(x, ((2, 3), (1, 0)), mode="symmetric")
        assert y.flags.f_contiguous and not y.flags.c_contiguous
        assert_same_array(y, numpy_pad(x, ((2, 3), (1, 0)), mode="symmetric"))
        y.fill(-1)
        del y


@pytest.mark.parametrize("name", ["bool", "complex128", "uint16", ">f8", "V3", "bfloat16"])
def test_pooled_dtypes(name: str) -> None:
    dtype = ml_dtype(name) if name == "bfloat16" else np.dtype(name)
    if dtype is None:
        pytest.skip("ml_dtypes is not installed")
    n = BIG // dtype.itemsize // 1024 + 1
    raw = np.random.default_rng(1).integers(0, 256, size=(n, 1024 * dtype.itemsize), dtype=np.uint8)
    x = raw % 2 == 0 if dtype == np.bool_ else raw.view(dtype)
    for _ in range(2):
        y = ndpad.pad(x, ((1, 2), (0, 3)), mode="edge")
        assert isinstance(y.base, _ndpad.PooledMemory)
        assert_same_array(y, numpy_pad(x, ((1, 2), (0, 3)), mode="edge"))
        del y


def test_pooled_arrays_behave_as_numpys() -> None:
    x = np.ones((4096, 2048), dtype=np.float32)
    y = ndpad.pad(x, 1)
    back = pickle.loads(pickle.dumps(y))
    assert np.array_equal(back, y) and not np.shares_memory(back, y)
    assert sys.getrefcount(y.base) >= 2
    y.base  # noqa: B018 - the owner stays reachable
    r = y.reshape(-1)
    del y
    assert r.sum() == x.size


def test_objects_and_small_outputs_are_not_pooled() -> None:
    assert _ndpad.pooled_output((BIG // 8,), np.dtype(object)) is None
    assert _ndpad.pooled_output((BIG - 1,), np.dtype(np.uint8)) is None
    assert _ndpad.pooled_output((2, 3), np.dtype("(4,)f4")) is None
    made = _ndpad.pooled_output((BIG,), np.dtype(np.uint8))
    assert made is not None
    a, memory = made
    assert memory in ("zeroed", "written") and a.shape == (BIG,)


def test_idle_memory_is_bounded() -> None:
    # Untouched mappings of 40 sizes, each freed at once: the pool keeps at most 1 GiB.
    for k in range(40):
        made = _ndpad.pooled_output((BIG + k * 4 * MIB,), np.dtype(np.uint8))
        assert made is not None
        del made
        assert _ndpad.pooled_bytes() <= 1 << 30
    assert _ndpad.pooled_bytes() > 0
    _ndpad.release_pool()
    assert _ndpad.pooled_bytes() == 0


def _child_pads(q: "multiprocessing.Queue[bool]") -> None:
    x = np.arange(4096 * 2048, dtype=np.float32).reshape(4096, 2048)
    ok = True
    for threads in (1, None, 2):
        # rayon's global pool does not survive a fork (its threads stay behind): the
        # child pads in pools of its own.
        y = ndpad.pad(x, 2, mode="wrap", threads=threads)
        ok = ok and np.array_equal(y, np.pad(x, 2, mode="wrap"))
        del y
    q.put(ok)


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_forked_child_uses_its_own_pool() -> None:
    x = np.ones((4096, 2048), dtype=np.float32)
    y = ndpad.pad(x, 2, mode="wrap", threads=2)  # rayon's pools started too
    del y  # the parent's pool holds it at the fork
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_pads, args=(q,))
    p.start()
    try:
        assert q.get(timeout=60), "the child's pads differ from numpy.pad"
        p.join(timeout=60)
        assert p.exitcode == 0
    finally:
        if p.is_alive():
            p.kill()
