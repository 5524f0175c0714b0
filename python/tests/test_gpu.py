"""ndpad on CUDA arrays, on a GPU (skipped without one: torch with CUDA, CuPy or JAX
on a GPU). The GPU's output is compared bit for bit with the CPU kernel's (ndpad.pad
of the same values on the host); torch, CuPy and JAX arrays come back as arrays of
their library on their device; a pad queued behind a producer kernel on the
caller's stream sees its result; no host copy is made; PyTorch issue 139333's shape
and a tensor of more than 2^31 elements pad; ``out=`` misuse is refused.

Run on the device machine by ``bench/device/check_all.sh``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ndpad
from ndpad import _device

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device for torch", allow_module_level=True)

DEV = torch.device("cuda", 0)

TORCH_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
                torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool,
                torch.complex64, torch.complex128]
for _name in ("float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64"):
    if hasattr(torch, _name):
        TORCH_DTYPES.append(getattr(torch, _name))
MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


def as_bytes(t: Any) -> bytes:
    """The tensor's bytes, read on the CPU (any dtype, any shape)."""
    t = t.detach().contiguous().reshape(-1)
    if t.is_complex():
        t = torch.view_as_real(t).reshape(-1)
    return t.view(torch.uint8).cpu().numpy().tobytes() if t.numel() else b""


def random_arrays(rng: np.random.Generator, shape: tuple, dtype: Any) -> tuple:
    """The same random values as a numpy array (ml_dtypes for torch's own floats) and
    as a CUDA tensor."""
    npdtype = _device._named_dtype(str(dtype).split(".")[-1], "torch")
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * npdtype.itemsize, dtype=np.uint8)
    if dtype == torch.bool:
        raw %= 2
    host = raw.view(npdtype).reshape(shape)
    return host, torch.from_numpy(raw).view(dtype).reshape(shape).to(DEV)


def test_random_pads_match_the_cpu_bit_for_bit() -> None:
    rng = np.random.default_rng(2026)
    ran = 0
    for case in range(1500):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(d) for d in rng.integers(1, 9, size=rank))
        dtype = TORCH_DTYPES[case % len(TORCH_DTYPES)]
        mode = MODES[int(rng.integers(0, len(MODES)))]
        widths = [(int(b), int(a)) for b, a in rng.integers(-2, 7, size=(rank, 2))]
        kwargs: dict = {"negative_pads": "crop_first" if case % 2 else "original_index"}
        if mode == "constant" and case % 5 == 0:
            kwargs["interior"] = [int(i) for i in rng.integers(0, 3, size=rank)]
        host, device = random_arrays(rng, shape, dtype)
        try:
            want = ndpad.pad(host, widths, mode, **kwargs)
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                ndpad.pad(device, widths, mode, **kwargs)
            continue
        got = ndpad.pad(device, widths, mode, **kwargs)
        assert got.device == device.device and got.dtype == dtype
        assert tuple(got.shape) == want.shape, (case, shape, widths, mode)
        assert as_bytes(got) == want.tobytes(), (case, dtype, shape, widths, mode, kwargs)
        ran += 1
    assert ran >= 1000


@pytest.mark.parametrize("func", ["onnx", "openvino", "ngraph"])
def test_framework_pads_on_the_gpu(func: str) -> None:
    x = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    calls = {
        "onnx": lambda t: ndpad.onnx.pad(t, [0, 1, 2, 0, 3, 1], mode="reflect"),
        "openvino": lambda t: ndpad.openvino.pad(t, [0, 1, -1], [1, 2, 3], "symmetric"),
        "ngraph": lambda t: ndpad.ngraph.pad(t, [0, 1, 1], [1, 0, 2], [1, 0, 1],
                                             pad_value=np.float32(9)),
    }
    want, got = calls[func](x), calls[func](x.to(DEV))
    assert got.is_cuda and torch.equal(got.cpu(), want)


def test_the_pytorch_139333_shape() -> None:
    """``ReflectionPad2d((0, 1))`` on a [1, 65540, 2] CUDA tensor fails in PyTorch
    ("invalid configuration argument": more than 65535 rows)."""
    x = torch.randn(1, 65540, 2)
    got = ndpad.pad(x.to(DEV), ((0, 0), (0, 0), (0, 1)), "reflect")
    assert torch.equal(got.cpu(), ndpad.pad(x, ((0, 0), (0, 0), (0, 1)), "reflect"))


def test_more_than_2_pow_31_elements() -> None:
    free, _ = torch.cuda.mem_get_info()
    if free < 6 << 30:
        pytest.skip(f"{free >> 30} GiB of device memory free")
    x = torch.randint(1, 255, (46341, 46341), dtype=torch.uint8, device=DEV)
    out = ndpad.pad(x, 1)
    assert out.numel() > 2**31
    assert torch.equal(out[1:-1, 1:-1], x)
    assert not out[0].any() and not out[-1].any() and not out[:, 0].any()
    del out
    edge = ndpad.pad(x, ((0, 0), (2, 3)), "edge")
    assert torch.equal(edge[:, :2], x[:, :1].expand(-1, 2))
    assert torch.equal(edge[:, -3:], x[:, -1:].expand(-1, 3))


def test_a_pad_behind_a_producer_on_the_callers_stream() -> None:
    side = torch.cuda.Stream()
    x = torch.randn(4096, 4096, device=DEV)
    with torch.cuda.stream(side):
        y = x * 2 + 1  # queued on the side stream, not finished when the pad is queued
        got = ndpad.pad(y, 3, "reflect")
    side.synchronize()
    assert torch.equal(got.cpu(), ndpad.pad((x * 2 + 1).cpu(), 3, "reflect"))


def test_no_host_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a host copy")

    x = torch.randn(64, 64, device=DEV)
    for name in ("cpu", "numpy", "__array__", "tolist"):
        monkeypatch.setattr(torch.Tensor, name, refuse)
    got = ndpad.pad(x, 2, "wrap")
    monkeypatch.undo()
    assert torch.equal(got.cpu(), ndpad.pad(x.cpu(), 2, "wrap"))


def test_out_on_the_gpu_and_its_misuse() -> None:
    x = torch.randn(5, 6, device=DEV)
    out = torch.empty(7, 8, device=DEV)
    assert ndpad.pad(x, 1, "edge", out=out) is out
    assert torch.equal(out.cpu(), ndpad.pad(x.cpu(), 1, "edge"))
    with pytest.raises(ValueError, match="padded shape"):
        ndpad.pad(x, 1, out=torch.empty(7, 9, device=DEV))
    with pytest.raises(ValueError, match="dtype"):
        ndpad.pad(x, 1, out=torch.empty(7, 8, device=DEV, dtype=torch.float64))
    with pytest.raises(TypeError, match="CUDA device"):
        ndpad.pad(x, 1, out=torch.empty(7, 8))
    with pytest.raises(ValueError, match="C-contiguous"):
        ndpad.pad(x, 1, out=torch.empty(8, 7, device=DEV).T)
    big = torch.zeros(100, device=DEV)
    with pytest.raises(ValueError, match="overlaps"):
        ndpad.pad(big[:20].reshape(4, 5), 1, out=big[:42].reshape(6, 7))


def test_statistics_refused_on_the_gpu() -> None:
    with pytest.raises(TypeError, match="pad the array on the host"):
        ndpad.pad(torch.randn(4, device=DEV), 1, "mean")


def test_cupy_arrays() -> None:
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(30, dtype=cupy.float32).reshape(5, 6)
    got = ndpad.pad(x, ((1, 2), (3, 0)), "symmetric")
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(got),
                                  np.pad(cupy.asnumpy(x), ((1, 2), (3, 0)), "symmetric"))
    np.testing.assert_array_equal(cupy.asnumpy(got),
                                  cupy.asnumpy(cupy.pad(x, ((1, 2), (3, 0)), "symmetric")))


def test_jax_arrays() -> None:
    jax = pytest.importorskip("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("no GPU for JAX")
    import jax.numpy as jnp

    x = jnp.arange(30, dtype=jnp.float32).reshape(5, 6)
    got = ndpad.pad(x, 2, "reflect")
    assert isinstance(got, jax.Array)
    np.testing.assert_array_equal(np.asarray(got), np.pad(np.asarray(x), 2, "reflect"))


def test_the_readme_gpu_quick_start() -> None:
    import re
    from pathlib import Path

    readme = Path(__file__).resolve().parents[2] / "README.md"
    if not readme.exists():  # pragma: no cover - run from a checkout only
        pytest.skip("run from a checkout")
    blocks = re.findall(r"```python3\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        names: dict = {}
        exec(compile(block, str(readme), "exec"), names)
        assert names["y"].is_cuda and tuple(names["y"].shape) == (8, 3, 230, 230)
        assert names["z"].is_cuda and tuple(names["z"].shape) == (8, 3, 226, 226)
