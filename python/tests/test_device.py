"""CUDA arrays (``ndpad._device``) without a GPU: a stand-in array that says it lies on
CUDA device 0 goes through each front end's own argument handling, and the spec that
would run on the device is the host's (run here on host data, it gives numpy.pad's
and the front ends' results); what the GPU path does not compute is refused with a
TypeError naming the host; without a CUDA driver the pad is a RuntimeError that says
so. The GPU itself is exercised by ``test_gpu.py`` (skipped where there is none)."""

from __future__ import annotations

import ctypes
from typing import Any, List, Tuple

import numpy as np
import pytest

import ndpad
from ndpad import _device
from _helpers import assert_same_array, numpy_pad


class FakeCuda:
    """An array that says it lies on CUDA device 0 (DLPack's kDLCUDA), holding its
    values on the host so that the test can run the spec it is padded with."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values if values.flags.c_contiguous else values.copy()
        self.shape = self.values.shape
        self.dtype = self.values.dtype
        self.nbytes = self.values.nbytes

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, stream: Any = None) -> Any:
        raise BufferError("not readable on the host")

    def copy(self) -> "FakeCuda":
        return FakeCuda(self.values.copy())


class FakeLibrary(_device.Library):
    name = "fake"

    def address(self, x: Any) -> int:
        return int(x.values.ctypes.data)

    def empty(self, like: Any, shape: Tuple[int, ...]) -> Any:
        return FakeCuda(np.zeros(shape, like.dtype))


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """The specs that would run on the device, run on the host instead."""
    specs: List[Any] = []
    monkeypatch.setattr(_device, "_library", lambda x: FakeLibrary())

    def run(self: _device.Call, spec: Any) -> np.ndarray:
        specs.append(spec)
        out = np.empty(tuple(spec.output_shape), self.array.dtype)
        spec.execute(self.array.values, out, 0, "written")
        return out

    monkeypatch.setattr(_device.Call, "run", run)
    return specs


X = np.arange(24, dtype=np.float32).reshape(4, 6)


@pytest.mark.parametrize("pad_width, mode, kwargs", [
    (2, "constant", {}),
    (((1, 2), (3, 0)), "constant", {"constant_values": 7.5}),
    (3, "reflect", {}),
    (((0, 9), (2, 1)), "symmetric", {}),
    (5, "wrap", {}),
    ((1, 2), "edge", {}),
])
def test_numpy_pad_spec_is_the_hosts(recorded: List[Any], pad_width: Any, mode: str,
                                     kwargs: dict) -> None:
    got = ndpad.pad(FakeCuda(X), pad_width, mode, **kwargs)
    assert len(recorded) == 1
    assert_same_array(got, numpy_pad(X, pad_width, mode, **kwargs))


def test_extensions_and_frameworks_on_the_stand_in(recorded: List[Any]) -> None:
    got = ndpad.pad(FakeCuda(X), ((-1, 2), (1, 1)), "reflect", negative_pads="crop_first")
    assert_same_array(got, ndpad.pad(X, ((-1, 2), (1, 1)), "reflect",
                                     negative_pads="crop_first"))
    got = ndpad.pad(FakeCuda(X), 1, interior=1, constant_values=3)
    assert_same_array(got, ndpad.pad(X, 1, interior=1, constant_values=3))
    got = ndpad.onnx.pad(FakeCuda(X), [1, 0, 0, 2], mode="wrap", opset=19)
    assert_same_array(got, ndpad.onnx.pad(X, [1, 0, 0, 2], mode="wrap", opset=19))
    got = ndpad.openvino.pad(FakeCuda(X), [1, -1], [0, 2], "symmetric")
    assert_same_array(got, ndpad.openvino.pad(X, [1, -1], [0, 2], "symmetric"))
    got = ndpad.ngraph.pad(FakeCuda(X), [0, 1], [1, 0], [1, 1], pad_value=np.float32(2))
    assert_same_array(got, ndpad.ngraph.pad(X, [0, 1], [1, 0], [1, 1],
                                            pad_value=np.float32(2)))
    assert len(recorded) == 5


def test_the_hosts_errors(recorded: List[Any]) -> None:
    with pytest.raises(ValueError, match="can't extend empty axis"):
        ndpad.pad(FakeCuda(np.zeros((0, 3), np.float32)), 1, "reflect")
    with pytest.raises(ndpad.PadError, match="ONNX Pad-25: pads has 3 values"):
        ndpad.onnx.pad(FakeCuda(X), [1, 1, 1])
    assert not recorded


@pytest.mark.parametrize("mode, kwargs", [
    ("mean", {}),
    ("linear_ramp", {}),
    ("empty", {}),
    (["edge", "wrap"], {}),
    (lambda v, w, a, k: None, {}),
    ("reflect", {"reflect_type": "odd"}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}),
])
def test_what_the_gpu_does_not_compute_is_refused(recorded: List[Any], mode: Any,
                                                  kwargs: dict) -> None:
    with pytest.raises(TypeError, match="pad the array on the host"):
        ndpad.pad(FakeCuda(X), 1, mode, **kwargs)
    assert not recorded


def test_out_of_another_kind_is_refused(recorded: List[Any]) -> None:
    with pytest.raises(TypeError, match="the array to pad is not"):
        ndpad.pad(X, 1, out=FakeCuda(np.zeros((6, 8), np.float32)))
    assert not recorded


def test_out_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_device, "_library", lambda x: FakeLibrary())
    with pytest.raises(TypeError, match="out must be a fake array on CUDA device 0"):
        ndpad.pad(FakeCuda(X), 1, out=np.zeros((6, 8), np.float32))
    with pytest.raises(ValueError, match=r"out must have the padded shape \(6, 8\)"):
        ndpad.pad(FakeCuda(X), 1, out=FakeCuda(np.zeros((6, 9), np.float32)))
    with pytest.raises(ValueError, match="float32"):
        ndpad.pad(FakeCuda(X), 1, out=FakeCuda(np.zeros((6, 8), np.float64)))
    shared = np.zeros(48, np.float32)
    with pytest.raises(ValueError, match="out overlaps the input array"):
        ndpad.pad(FakeCuda(shared[:24].reshape(4, 6)), 1, out=FakeCuda(shared.reshape(6, 8)))


def _driver_present() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


@pytest.mark.skipif(_driver_present(), reason="a CUDA driver is present (test_gpu.py runs)")
def test_no_driver_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_device, "_library", lambda x: FakeLibrary())
    with pytest.raises(RuntimeError, match="ndpad on the GPU: no CUDA driver"):
        ndpad.pad(FakeCuda(X), 1)


def test_packed_types_are_refused_on_the_device() -> None:
    spec = ndpad._ndpad.onnx_node("int4", [1, 1], "constant", None, None, 25, "repeat").spec([4])
    with pytest.raises(TypeError, match="int4 arrays cannot be padded on the GPU"):
        spec.execute_device(0, 4096, 4, 8192, 6)


def test_a_zero_d_array_comes_back_as_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy.pad returns a 0-d array unchanged: a copy of the library's array, with
    the arguments still checked as numpy checks them."""
    monkeypatch.setattr(_device, "_library", lambda x: FakeLibrary())
    x = FakeCuda(np.array(5.0))
    got = ndpad.pad(x, 3, "edge")
    assert isinstance(got, FakeCuda) and got is not x
    assert_same_array(got.values, np.array(5.0))
    with pytest.raises(TypeError, match="pad the array on the host"):
        ndpad.pad(x, 3, "mean")
    with pytest.raises(TypeError, match="out= with a 0-d CUDA array"):
        ndpad.pad(x, 3, out=FakeCuda(np.array(0.0)))


@pytest.fixture
def remembered(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """As ``recorded``, with the device pads remembered by their arguments (each test
    starting with none)."""
    specs: List[Any] = []
    monkeypatch.setattr(_device, "_library", lambda x: FakeLibrary())
    monkeypatch.setattr(_device, "_SPECS", {})

    def run(self: _device.Call, spec: Any) -> np.ndarray:
        self.specs.append(spec)
        specs.append(spec)
        if self.out is not None:
            _device._check_out(self.out, tuple(spec.output_shape), self.library, self.array,
                               self.device)
        out = np.empty(tuple(spec.output_shape), self.array.dtype)
        spec.execute(self.array.values, out, 0, "written")
        return out

    monkeypatch.setattr(_device.Call, "run", run)
    return specs


def test_the_same_pad_again_skips_the_front_end(remembered: List[Any],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    widths = ((1, 2), (0, 3))
    ndpad.pad(FakeCuda(X), widths, "reflect")
    ndpad.onnx.pad(FakeCuda(X), [1, 0, 2, 3], mode="edge")

    def front_end(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the front end ran again")

    monkeypatch.setattr(ndpad._numpy, "_pad", front_end)
    y = X * 3 - 1
    assert_same_array(ndpad.pad(FakeCuda(y), widths, "reflect"),
                      numpy_pad(y, widths, "reflect"))
    assert remembered[2] is remembered[0]
    assert_same_array(ndpad.onnx.pad(FakeCuda(y), [1, 0, 2, 3], mode="edge"),
                      ndpad.onnx.pad(y, [1, 0, 2, 3], mode="edge"))
    assert remembered[3] is remembered[1]
    # Its out= is checked as on the first call.
    with pytest.raises(ValueError, match=r"out must have the padded shape \(7, 9\)"):
        ndpad.pad(FakeCuda(y), widths, "reflect", out=FakeCuda(np.zeros((7, 8), np.float32)))
    # Another shape, dtype or argument is another pad: the front end runs (and fails).
    for call in (lambda: ndpad.pad(FakeCuda(y[1:]), widths, "reflect"),
                 lambda: ndpad.pad(FakeCuda(y.astype(np.float64)), widths, "reflect"),
                 lambda: ndpad.pad(FakeCuda(y), [[1, 2], [0, 3]], "reflect"),
                 lambda: ndpad.pad(FakeCuda(y), widths, "symmetric")):
        with pytest.raises(AssertionError, match="the front end ran again"):
            call()


def test_arguments_equal_but_padding_differently_are_told_apart(
        remembered: List[Any]) -> None:
    for value in (0.0, -0.0, np.float32(-0.0), 0, False):
        got = ndpad.pad(FakeCuda(X), 1, constant_values=value)
        assert_same_array(got, numpy_pad(X, 1, constant_values=value))
    assert len(remembered) == 5 and len(set(map(id, remembered))) == 5
    # Arguments of no plain type (an array of widths) are not remembered.
    for _ in range(2):
        ndpad.pad(FakeCuda(X), np.array([1, 2]))
    assert len(_device._SPECS) == 5 and remembered[5] is not remembered[6]


def test_constants_numpy_may_report_are_not_remembered(remembered: List[Any]) -> None:
    """A constant that overflows, or a NaN into integers, is cast on every call (numpy
    may warn, or raise under ``errstate``); NaNs of either sign are told apart."""
    import warnings

    big = FakeCuda(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            ndpad.pad(big, 1, constant_values=1e300)
    assert not _device._SPECS
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        ndpad.pad(big, 1, constant_values=1e300)
    nan, negative = float("nan"), -float("nan")
    a = ndpad.pad(FakeCuda(X), 1, constant_values=nan)
    b = ndpad.pad(FakeCuda(X), 1, constant_values=negative)
    assert_same_array(b, numpy_pad(X, 1, constant_values=negative))
    assert a.view(np.uint32)[0, 0] != b.view(np.uint32)[0, 0]
    assert len(_device._SPECS) == 2
