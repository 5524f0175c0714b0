"""Safety of the extension: the GIL is released during the kernel, concurrent calls
are correct, object reference counts are right, and hostile inputs raise exceptions
rather than crash."""

from __future__ import annotations

import gc
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List, Tuple

import numpy as np
import pytest

import ndpad
from _helpers import assert_same_array, numpy_pad, run


# ---------------------------------------------------------------------------
# The GIL
# ---------------------------------------------------------------------------

def _largest_stall(func: Any) -> Tuple[float, float]:
    """Runs ``func`` while another thread counts; returns (the call's duration, the
    longest time the counting thread went without a step during it)."""
    stamps: List[float] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            stamps.append(time.perf_counter())

    worker = threading.Thread(target=count)
    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        worker.start()
        time.sleep(0.02)
        start = time.perf_counter()
        func()
        end = time.perf_counter()
        time.sleep(0.02)
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(old)
    during = [t for t in stamps if start <= t <= end]
    points = [start] + during + [end]
    return end - start, max(b - a for a, b in zip(points, points[1:]))


def test_gil_released_during_a_large_pad() -> None:
    a = np.ones((5000, 5000), dtype=np.float64)  # 200 MB in, ~204 MB out
    out = np.empty((5100, 5100))
    out.fill(0)  # pages committed outside the measured call
    ratios = []
    for _ in range(3):
        duration, stall = _largest_stall(
            lambda: ndpad.pad(a, 50, "edge", threads=1, out=out))
        ratios.append(stall / duration)
        if stall < 0.5 * duration:
            break
    assert min(ratios) < 0.5, (
        f"the counting thread stalled for {min(ratios):.0%} of the pad: GIL held?")
    assert_same_array(out[:3, :3], np.ones((3, 3)), layout=False)


def test_concurrent_calls_from_8_threads() -> None:
    rng = np.random.default_rng(7)
    jobs = []
    modes = ["constant", "edge", "reflect", "symmetric", "wrap", "mean", "median",
             "linear_ramp"]
    for i in range(48):
        a = rng.standard_normal((int(rng.integers(1, 60)), int(rng.integers(1, 60))))
        a = a.astype([np.float32, np.float64, np.int16][i % 3])
        if i % 4 == 1:
            a = np.asfortranarray(a)
        widths = rng.integers(0, 40, size=(2, 2)).tolist()
        mode = modes[i % len(modes)]
        jobs.append((a, widths, mode, numpy_pad(a, widths, mode)))
    barrier = threading.Barrier(8)

    def work(k: int) -> List[np.ndarray]:
        barrier.wait()
        return [ndpad.pad(a, w, m, threads=2) for a, w, m, _ in jobs[k::8]] * 1

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(8)))
    for k, got in enumerate(results):
        for (_, _, _, want), g in zip(jobs[k::8], got):
            assert_same_array(g, want)


# ---------------------------------------------------------------------------
# Object reference counts
# ---------------------------------------------------------------------------

class Token:
    def __init__(self, name: str) -> None:
        self.name = name


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap",
                                  "empty"])
def test_object_refcounts(mode: str) -> None:
    tokens = [Token(str(i)) for i in range(6)]
    fill = Token("fill")
    a = np.empty((2, 3), dtype=object)
    a[...] = np.array(tokens, dtype=object).reshape(2, 3)
    kwargs = {"constant_values": fill} if mode == "constant" else {}
    gc.collect()
    before = [sys.getrefcount(t) for t in tokens] + [sys.getrefcount(fill)]
    for _ in range(5):  # a leak would grow with every call
        got = ndpad.pad(a, ((1, 2), (3, 1)), mode, **kwargs)
        want = numpy_pad(a, ((1, 2), (3, 1)), mode, **kwargs)
        if mode != "empty":
            assert_same_array(got, want)
        counts = [sys.getrefcount(t) for t in tokens] + [sys.getrefcount(fill)]
        held = [sum(x is t for x in got.flat) for t in tokens + [fill]]
        numpy_held = [sum(x is t for x in want.flat) for t in tokens + [fill]]
        assert [c - b for c, b in zip(counts, before)] == \
            [h + n for h, n in zip(held, numpy_held)]
        del got, want
        gc.collect()
        assert [sys.getrefcount(t) for t in tokens] + [sys.getrefcount(fill)] == before


def test_object_refcounts_interior_and_negative() -> None:
    tokens = [Token(str(i)) for i in range(4)]
    fill = Token("fill")
    a = np.empty(4, dtype=object)
    a[:] = tokens
    before = [sys.getrefcount(t) for t in tokens + [fill]]
    got = ndpad.pad(a, (1, 1), interior=2, constant_values=fill)
    assert sum(x is fill for x in got.flat) == 2 + 3 * 2
    got2 = ndpad.pad(a, (-2, 3), "reflect", negative_pads="original_index")
    del got, got2
    gc.collect()
    assert [sys.getrefcount(t) for t in tokens + [fill]] == before


def _raw_count(obj: object) -> int:
    """The object's reference count field as it lies in memory (``ob_refcnt``, the
    first word of a CPython object): unlike ``sys.getrefcount`` it shows counts
    added to an immortal object (3.12+), which nothing ever takes off."""
    import ctypes
    return ctypes.c_ssize_t.from_address(id(obj)).value


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's object layout")
@pytest.mark.parametrize("mode", ["constant", "edge", "wrap"])
def test_immortal_objects_keep_their_counts(mode: str) -> None:
    # None, True and small ints are immortal from 3.12 on: CPython's own increments
    # and numpy's decrements leave their counts alone, and so must the pad's copies
    # (on 3.14 a count raised there would never come down). Before 3.12 they are
    # ordinary objects: counted while the output holds them, then given back.
    a = np.empty((100, 100), dtype=object)
    a[::3] = None
    a[1::3] = True
    a[2::3] = 7
    # None as the constant: its references are added at once, not per copy (a
    # constant of 7 would be numpy's int64 7, a new object).
    kwargs = {"constant_values": None} if mode == "constant" else {}
    immortal = sys.version_info >= (3, 12)
    gc.collect()
    objects = (None, True, 7)
    before = [_raw_count(o) for o in objects]
    got = ndpad.pad(a, 3, mode, **kwargs)
    assert_same_array(got, numpy_pad(a, 3, mode, **kwargs))
    held = [sum(x is o for x in got.flat) for o in objects]
    # Other code takes and drops references to None meanwhile: a few, not thousands.
    grew = [_raw_count(o) - b for o, b in zip(objects, before)]
    assert [abs(g - (0 if immortal else h)) < 100 for g, h in zip(grew, held)] == [True] * 3
    del got
    gc.collect()
    assert [abs(_raw_count(o) - b) < 100 for o, b in zip(objects, before)] == [True] * 3


def test_refcounts_when_the_pad_fails() -> None:
    tokens = [Token(str(i)) for i in range(3)]
    a = np.empty(3, dtype=object)
    a[:] = tokens
    before = [sys.getrefcount(t) for t in tokens]
    for bad in [dict(pad_width=-1), dict(pad_width=1, mode="bogus"),
                dict(pad_width=10**12), dict(pad_width=1, out=np.empty(4, object))]:
        with pytest.raises((ValueError, MemoryError)):
            ndpad.pad(a, **bad)
    gc.collect()
    assert [sys.getrefcount(t) for t in tokens] == before


# ---------------------------------------------------------------------------
# Hostile inputs
# ---------------------------------------------------------------------------

class Explosive:
    """An object whose comparisons and conversions raise."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing")

    __ne__ = __lt__ = __gt__ = __le__ = __ge__ = __eq__  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __index__(self) -> int:
        raise RuntimeError("no index")

    def __float__(self) -> float:
        raise RuntimeError("no float")


class Chaotic:
    """An array-like whose length lies."""

    def __len__(self) -> int:
        return 3

    def __getitem__(self, i: int) -> int:
        raise IndexError(i)


cyclic: List[Any] = [1]
cyclic.append(cyclic)

HOSTILE: List[Tuple[str, Any, Any, Any, dict]] = [
    ("pad_width 2**70", np.arange(3), 2**70, "constant", {}),
    ("pad_width -1", np.arange(3), -1, "edge", {}),
    ("pad_width 2**63-1", np.arange(3), 2**63 - 1, "constant", {}),
    ("pad_width 2**62 2-D", np.zeros((2, 2)), 2**62, "wrap", {}),
    ("pad_width 10**12 1-D", np.arange(3.0), 10**12, "constant", {}),
    ("pad_width 10**12 reflect", np.arange(3.0), 10**12, "reflect", {}),
    ("pad_width 10**12 object", np.array([1, None], dtype=object), 10**12, "edge", {}),
    ("pad_width 10**9 2-D", np.zeros((3, 3)), 10**9, "edge", {}),
    ("pad_width string", np.arange(3), "abc", "constant", {}),
    ("pad_width object", np.arange(3), object(), "constant", {}),
    ("pad_width cyclic list", np.arange(3), cyclic, "constant", {}),
    ("pad_width explosive", np.arange(3), Explosive(), "constant", {}),
    ("pad_width chaotic", np.arange(3), Chaotic(), "constant", {}),
    ("mode bytes", np.arange(3), 1, b"edge", {}),
    ("mode list of junk", np.zeros((2, 2)), 1, [None, 3.5], {}),
    ("constant explosive", np.arange(3.0), 1, "constant", {"constant_values": Explosive()}),
    ("constant cyclic", np.arange(3.0), 1, "constant", {"constant_values": cyclic}),
    ("constant nested", np.arange(3.0), 1, "constant", {"constant_values": [[[1, 2]]]}),
    ("stat_length huge", np.arange(3.0), 1, "mean", {"stat_length": 2**70}),
    ("stat_length explosive", np.arange(3.0), 1, "mean", {"stat_length": Explosive()}),
    ("end_values object", np.arange(3.0), 1, "linear_ramp", {"end_values": object()}),
    ("array explosive objects mean", np.array([Explosive(), Explosive()]), 1, "mean", {}),
    ("array explosive objects max", np.array([Explosive(), Explosive()]), 1, "maximum", {}),
    ("ragged object array", np.array([[1], [1, 2]], dtype=object), 1, "median", {}),
    ("array of arrays", np.array([np.arange(2), np.arange(3)], dtype=object), 1,
     "linear_ramp", {}),
    ("threads huge", np.arange(3), 1, "constant", {"threads": 2**64}),
    ("threads explosive", np.arange(3), 1, "constant", {"threads": Explosive()}),
    ("interior huge", np.arange(3), 1, "constant", {"interior": 2**62}),
    ("interior explosive", np.arange(3), 1, "constant", {"interior": Explosive()}),
    ("negative_pads odd", np.arange(3), (-5, 0), "reflect",
     {"negative_pads": "original_index", "reflect_type": "odd"}),
    ("crop past the start", np.arange(3), (-2**62, 0), "edge",
     {"negative_pads": "crop_first"}),
    ("crop 2**63", np.arange(3), (-2**63, 0), "edge", {"negative_pads": "original_index"}),
]


@pytest.mark.parametrize("what, array, pad_width, mode, kwargs", HOSTILE,
                         ids=[h[0] for h in HOSTILE])
def test_hostile_inputs_raise(what: str, array: Any, pad_width: Any, mode: Any,
                              kwargs: dict) -> None:
    start = time.perf_counter()
    _, exc = run(ndpad.pad, array, pad_width, mode, **kwargs)
    assert exc is not None, f"{what}: no exception"
    assert isinstance(exc, (ValueError, TypeError, MemoryError, OverflowError,
                            RuntimeError, IndexError, AssertionError, RecursionError)), exc
    assert time.perf_counter() - start < 5, "refused too slowly: allocated first?"


PARITY_CASES = [
    pytest.param(*h, id=h[0])
    for h in HOSTILE
    if isinstance(h[3], str) and not set(h[4]) - {"constant_values", "stat_length",
                                                   "end_values"}
]


@pytest.mark.parametrize("what, array, pad_width, mode, kwargs", PARITY_CASES)
def test_hostile_inputs_error_parity(what: str, array: Any, pad_width: Any, mode: Any,
                                     kwargs: dict) -> None:
    """Where numpy gets the same arguments, ndpad raises numpy's exception class
    (ndpad.PadError counts as numpy's ValueError)."""
    _, want = run(numpy_pad, array, pad_width, mode, **kwargs)
    _, got = run(ndpad.pad, array, pad_width, mode, **kwargs)
    assert want is not None
    assert isinstance(got, type(want)), (got, want)


def test_no_allocation_before_refusing_huge_outputs() -> None:
    """14 TiB outputs are refused (numpy's MemoryError from np.empty, or the core's
    PadError) quickly and without touching memory: the peak RSS does not grow."""
    import resource
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    for mode in ("constant", "edge", "reflect", "mean", "linear_ramp", "wrap"):
        with pytest.raises((MemoryError, ValueError)):
            ndpad.pad(np.arange(3.0), 10**12, mode)
        with pytest.raises((MemoryError, ValueError)):
            ndpad.pad(np.arange(3.0), 10**12, mode, out=np.empty(3))
    assert time.perf_counter() - start < 5
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 64 * 1024, f"peak RSS grew by {grown_kib} KiB while refusing"


# A child process pads under an address-space limit of what it holds plus 1 GiB, so
# that an unchecked allocation ends the child (an abort, or the OOM killer without the
# limit), never the test runner. Each line: one pad of 10**9 (or more) strings.
_LIMITED_CHILD = """
import resource, sys
import numpy as np
import ndpad

def vm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize")

limit = vm_bytes() + (1 << 30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
for line in sys.stdin.read().splitlines():
    if line.startswith("import "):
        exec(line)
        continue
    try:
        eval(line)
        print("returned")
    except Exception as exc:
        print(type(exc).__name__)
print(ndpad.onnx.pad(np.array(["a"], dtype=object), [1, 1]).tolist())
"""

HUGE_STRING_PADS = [
    "ndpad.onnx.pad(np.array(['a'], dtype=object), pads=[10**9, 0])",
    "ndpad.onnx.pad(np.array([b'a'], dtype=object), pads=[0, 10**9], mode='edge')",
    "ndpad.onnx.pad(np.array(['a']), pads=[10**9, 0], constant_value='xyz')",
    "ndpad.onnx.pad(np.array([b'ab']), pads=[10**9, 10**9], mode='wrap', opset=19)",
    "ndpad.onnx.pad(np.array([['a']], dtype=object), pads=[10**5, 10**5, 10**5, 10**5])",
    "ndpad.openvino.pad(np.array(['a'], dtype=object), [10**9], [0])",
    "ndpad.openvino.pad(np.array(['a']), [0], [10**12])",
    "ndpad.ngraph.pad(np.array(['a'], dtype=object), [10**9], [0])",
    "ndpad.ngraph.pad(np.array(['a', 'b']), [0], [0], [10**9])",
]


def _run_limited(lines: List[str]) -> List[str]:
    """What each line (a pad) raised (or "returned") in a child process under the
    address-space limit; asserts that the child lived through them."""
    import subprocess

    child = subprocess.run([sys.executable, "-c", _LIMITED_CHILD],
                           input="\n".join(lines), capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, (child.returncode, child.stdout, child.stderr[-2000:])
    out = child.stdout.splitlines()
    assert out[-1:] == ["['', 'a', '']"], child.stdout  # still padding afterwards
    return out[:-1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS, /proc")
def test_huge_string_pads_raise_memory_error() -> None:
    """String tensors with a huge pad (~8 GB of output indices, more of strings): a
    MemoryError from numpy's checked allocation, not a dead interpreter (the string
    kernel allocated ~24 GB unchecked: abort, or the OOM killer), and quickly."""
    start = time.perf_counter()
    assert _run_limited(HUGE_STRING_PADS) == ["MemoryError"] * len(HUGE_STRING_PADS)
    assert time.perf_counter() - start < 60


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS, /proc")
def test_packed_pads_out_of_memory_raise() -> None:
    """4- and 2-bit tensors (packed for the kernel): an output numpy can allocate, then
    buffers of the packing the process cannot, is an error, not an abort (the packed
    copies were allocated with vec!, which aborts)."""
    pytest.importorskip("ml_dtypes")
    lines = [
        f"ndpad.onnx.pad(np.zeros(10, ml_dtypes.{t}), [{n}, 0])"
        for t in ("int4", "uint2") for n in (7 * 10**8, 9 * 10**8)
    ]
    got = _run_limited(["import ml_dtypes"] + lines)
    assert got == ["PadError"] * len(lines), got


def test_odd_object_arrays_match_numpy() -> None:
    inner = np.arange(3)
    a = np.empty(3, dtype=object)
    a[:] = [inner, cyclic, {"k": 1}]
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        got = ndpad.pad(a, 4, mode)
        want = numpy_pad(a, 4, mode)
        assert all(x is y or (type(x) is type(y) and x == y)
                   for x, y in zip(got.tolist(), want.tolist())
                   if not isinstance(x, np.ndarray)), mode
        assert [x is inner for x in got] == [x is inner for x in want]
    ex = np.empty(2, dtype=object)
    ex[:] = [Explosive(), Explosive()]
    assert [x is y for x, y in zip(ndpad.pad(ex, 2, "wrap"), numpy_pad(ex, 2, "wrap"))]


def test_input_not_modified_and_readonly_input_ok() -> None:
    a = np.arange(12.0).reshape(3, 4)
    a.flags.writeable = False
    for mode in ("constant", "edge", "reflect", "mean", "linear_ramp", "median"):
        assert_same_array(ndpad.pad(a, 2, mode), numpy_pad(a, 2, mode))
    assert a.tolist() == np.arange(12.0).reshape(3, 4).tolist()


def test_extension_entry_points_refuse_bad_arrays() -> None:
    """The extension itself (not only the Python layer) checks what it is handed."""
    spec = ndpad._ndpad.numpy_spec(8, [3], [1], [1], [0], "edge", [], None)
    src = np.arange(3.0)
    good = np.empty(5)
    spec.execute(src, good, 1)
    assert good.tolist() == [0, 0, 1, 2, 2]
    ro = np.empty(5)
    ro.flags.writeable = False
    bad_cases = [
        (src, np.empty(4)),            # wrong output shape
        (np.arange(4.0), good),        # wrong input shape
        (src, ro),                     # read-only
        (src, np.empty(5, np.int32)),  # wrong itemsize
        (np.arange(6.0)[::-2], good),  # a negative stride
        (src, np.empty(10)[::2]),      # output not contiguous
    ]
    overlap = np.arange(8.0)
    bad_cases.append((overlap[:3], overlap[2:7]))
    bad_cases.append((overlap[2:5], overlap[:5]))
    for s, d in bad_cases:
        with pytest.raises((ValueError, TypeError)):
            spec.execute(s, d, 1)
    with pytest.raises((ValueError, TypeError, OverflowError)):
        spec.execute(src, good, -1)
    # An input in another layout without negative strides is read where it lies.
    spec.execute(np.arange(6.0)[::2], good, 1)
    assert good.tolist() == [0, 0, 2, 4, 4]


def test_object_pads_refuse_what_would_make_bad_pointers() -> None:
    """``Spec.execute_objects`` counts a reference for every pointer the kernel
    writes, so it refuses every case where one would not be an object's address: a
    spec whose constant is not the null pointer, arrays that are not object arrays,
    overlapping arrays (numpy makes no unaligned object array); the references stay
    right."""
    items = [object() for _ in range(3)]
    src = np.empty(3, object)
    src[:] = items
    before = [sys.getrefcount(o) for o in items]
    with_value = ndpad._ndpad.numpy_spec(8, [3], [1], [1], [0], "constant",
                                         [(12345).to_bytes(8, "little")], None)
    with pytest.raises(ValueError, match="zero constant"):
        with_value.execute_objects(src, ndpad._ndpad.empty_objects([5]), 1)
    # A side's constant of its own is written after the kernel: refused as well.
    sides = [bytes(8)] * 3 + [(12345).to_bytes(8, "little")]
    with_side = ndpad._ndpad.numpy_spec(8, [3, 1], [1, 0], [1, 1], [0, 0], "constant",
                                        sides, None)
    with pytest.raises(ValueError, match="zero constant"):
        with_side.execute_objects(src.reshape(3, 1), ndpad._ndpad.empty_objects([5, 2]), 1)
    spec = ndpad._ndpad.numpy_spec(8, [3], [1], [1], [0], "edge", [], None)
    with pytest.raises(TypeError, match="not an object array"):
        spec.execute_objects(np.arange(3), ndpad._ndpad.empty_objects([5]), 1)
    with pytest.raises(TypeError, match="not an object array"):
        spec.execute_objects(src, np.zeros(5, np.int64), 1)
    both = ndpad._ndpad.empty_objects([8])
    both[:3] = items
    with pytest.raises(ValueError, match="overlaps"):
        spec.execute_objects(both[:3], both[2:7], 1)
    # Every call that takes bytes refuses object arrays (or records holding objects).
    obj5 = ndpad._ndpad.empty_objects([5])
    with pytest.raises(TypeError, match="holds Python objects"):
        ndpad._ndpad.fill_stat(obj5, "float64", [3], [(1, 1)], [(None, None)], "mean")
    with pytest.raises(TypeError, match="holds Python objects"):
        ndpad._ndpad.fill_ramp(obj5, "float64", "float64", [3], [(1, 1)], [(0.0, 0.0)])
    with pytest.raises(TypeError, match="holds Python objects"):
        ndpad._ndpad.pad_stat(src, obj5, "float64", [3], [(1, 1)], [(None, None)], "mean", 1)
    with pytest.raises(TypeError, match="holds Python objects"):
        ndpad._ndpad.pad_stat(src, np.empty(5), "float64", [3], [(1, 1)], [(None, None)],
                              "mean", 1)
    with pytest.raises(TypeError, match="holds Python objects"):
        ndpad._ndpad.pad_ramp(src, obj5, "float64", "float64", [3], [(1, 1)],
                              [(0.0, 0.0)], 1)
    with pytest.raises(TypeError, match="holds Python objects"):
        ndpad._ndpad.pad_odd_window(src, obj5, "float64", [3], [(1, 1)], "reflect",
                                    [(0, 3)], [(0, 5)], 1)
    del obj5
    for s, d in [(src, ndpad._ndpad.empty_objects([5])), (src, np.empty(5)),
                 (np.arange(3.0), ndpad._ndpad.empty_objects([5])),
                 (np.zeros(3, [("a", object)]), np.zeros(5, [("a", object)]))]:
        with pytest.raises(TypeError, match="holds Python objects"):
            spec.execute(s, d, 1)
    del both
    with pytest.raises(ValueError, match="memory must be 'written', 'fresh' or 'zeroed'"):
        spec.execute_objects(src, ndpad._ndpad.empty_objects([5]), 1, None, "new")
    # "zeroed": the output of empty_objects, nothing to release; "written": any other.
    for memory in ("zeroed", "written"):
        dst = ndpad._ndpad.empty_objects([5])
        spec.execute_objects(src, dst, 1, None, memory)
        assert [id(o) for o in dst] == [id(items[i]) for i in (0, 0, 1, 2, 2)]
        del dst
    assert [sys.getrefcount(o) for o in items] == before
