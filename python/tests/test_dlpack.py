"""Arrays of other libraries in host memory (torch CPU tensors, JAX arrays on the CPU,
any array exporting DLPack): read in place, the result of the input's library."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ndpad
from ndpad import _dlpack


class Box:
    """An array of a made-up library: a numpy array it shows only through DLPack and
    the array API's ``from_dlpack``."""

    def __init__(self, a: np.ndarray, device: int = 1) -> None:
        self.a = a
        self.device = device

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return (self.device, 0)

    def __array_namespace__(self, api_version: Any = None) -> Any:
        return BoxNamespace


class BoxNamespace:
    @staticmethod
    def from_dlpack(x: Any) -> Box:
        return Box(np.from_dlpack(x))


def test_host_arrays_are_read_in_place_and_given_back() -> None:
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    box = Box(a)
    assert np.shares_memory(_dlpack._host_view(box, "the array"), a)
    got = ndpad.pad(box, 2, mode="reflect")
    assert isinstance(got, Box)
    assert np.array_equal(got.a, np.pad(a, 2, mode="reflect"))
    got = ndpad.onnx.pad(box, [1, 0, 1, 0], mode="edge")
    assert isinstance(got, Box) and got.a.shape == (6, 6)
    got = ndpad.openvino.pad(box, [1, 1], [0, 0], "constant", 7)
    assert isinstance(got, Box) and got.a[0, 0] == 7
    got = ndpad.ngraph.pad(box, [0, 0], [0, 0], [1, 1], 0)
    assert isinstance(got, Box) and got.a.shape == (7, 11)


def test_out_of_another_library_is_written_in_place() -> None:
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    target = np.zeros((4, 5), np.int16)
    out = Box(target)
    assert ndpad.pad(Box(a), 1, mode="wrap", out=out) is out
    assert np.array_equal(target, np.pad(a, 1, mode="wrap"))
    # A numpy out= with an input of another library: the numpy array back.
    plain = np.zeros((4, 5), np.int16)
    assert ndpad.pad(Box(a), 1, out=plain) is plain


def test_device_arrays_are_not_read_through_dlpack() -> None:
    """Arrays in device memory stay the function's (numpy's dispatch, or its error)."""
    assert not _dlpack._foreign_on_host(Box(np.zeros(3), device=2))
    assert not _dlpack._foreign_on_host(np.zeros(3))
    assert not _dlpack._foreign_on_host([1, 2, 3])


def test_jax_arrays_in_and_out() -> None:
    jnp = pytest.importorskip("jax.numpy", reason="jax is not installed")
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    got = ndpad.pad(x, ((1, 2), (0, 3)), mode="symmetric")
    assert type(got) is type(x)
    assert np.array_equal(np.asarray(got), np.pad(np.asarray(x), ((1, 2), (0, 3)), "symmetric"))
    with pytest.raises(ValueError, match="read-only"):
        ndpad.pad(np.ones((3, 4), np.float32), 1, out=jnp.zeros((5, 6), jnp.float32))


def test_torch_cpu_tensors_in_and_out() -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed")
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    got = ndpad.pad(x, ((0, 0), (1, 1), (2, 2)), mode="reflect")
    assert isinstance(got, torch.Tensor)
    want = np.pad(x.numpy(), ((0, 0), (1, 1), (2, 2)), mode="reflect")
    assert np.array_equal(got.numpy(), want)
    out = torch.zeros((2, 5, 8))
    assert ndpad.pad(x, ((0, 0), (1, 1), (2, 2)), mode="reflect", out=out) is out
    assert np.array_equal(out.numpy(), want)
