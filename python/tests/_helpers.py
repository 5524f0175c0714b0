"""Typed helpers shared by the tests: running numpy.pad and ndpad.pad side by side and
comparing their results (shape, dtype, memory order, bytes) or their exceptions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover
    ml_dtypes = None

from numpy.lib._arraypad_impl import pad as numpy_pad

import ndpad

Outcome = Tuple[Optional[np.ndarray], Optional[BaseException]]


def run(func: Callable[..., np.ndarray], *args: Any, **kwargs: Any) -> Outcome:
    """``func(*args, **kwargs)``: its result or the exception it raised (warnings off)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return func(*args, **kwargs), None
        except Exception as exc:  # noqa: BLE001 - every exception class is compared
            return None, exc


def ml_dtype(name: str) -> Optional[np.dtype]:
    """The ml_dtypes dtype ``name``, None when ml_dtypes lacks it."""
    if ml_dtypes is None or not hasattr(ml_dtypes, name):
        return None
    return np.dtype(getattr(ml_dtypes, name))


def same_objects(result: np.ndarray, expected: np.ndarray) -> Optional[str]:
    """None when two object arrays hold the same objects (identity, else equal values of
    the same type) at every index, else a description of the first difference."""
    for index in np.ndindex(expected.shape):
        a, b = result[index], expected[index]
        if a is b:
            continue
        if type(a) is not type(b):
            return f"at {index}: {a!r} ({type(a).__name__}) != {b!r} ({type(b).__name__})"
        try:
            equal = bool(a == b)
        except Exception:  # noqa: BLE001
            equal = False
        if not equal and not (a != a and b != b):  # NaN objects: equal by type
            return f"at {index}: {a!r} != {b!r}"
    return None


def byte_view(a: np.ndarray) -> np.ndarray:
    """The bytes of ``a``'s elements, one row per element, in C order of the indices."""
    c = np.ascontiguousarray(a)
    return np.frombuffer(c.tobytes(), dtype=np.uint8).reshape(c.size, a.dtype.itemsize)


def assert_same_array(result: Any, expected: np.ndarray, *, values: bool = True,
                      region: Optional[Tuple[slice, ...]] = None,
                      layout: bool = True) -> None:
    """``result`` is ``expected``: type, shape, dtype, memory order and, where
    ``values``, every element bit for bit (objects by identity or equality).
    ``region``: only this part's values are compared (mode 'empty')."""
    assert isinstance(result, np.ndarray), type(result)
    assert type(result) is type(expected), (type(result), type(expected))
    assert result.shape == expected.shape, (result.shape, expected.shape)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    if layout and expected.size > 1:
        assert result.flags.f_contiguous == expected.flags.f_contiguous, "F order differs"
        assert result.flags.c_contiguous == expected.flags.c_contiguous, "C order differs"
    if not values and region is None:
        return
    if region is not None:
        result, expected = result[region + (...,)], expected[region + (...,)]
    if expected.dtype.hasobject:
        problem = same_objects(result, expected)
        assert problem is None, problem
        return
    got, want = byte_view(result), byte_view(expected)
    if not np.array_equal(got, want):
        bad = np.flatnonzero((got != want).any(axis=1))
        first = np.unravel_index(bad[0], expected.shape)
        raise AssertionError(
            f"{bad.size} of {expected.size} elements differ; first at {first}: "
            f"ndpad {result[first]!r} (bytes {got[bad[0]].tobytes().hex()}), "
            f"numpy {expected[first]!r} (bytes {want[bad[0]].tobytes().hex()})"
        )


def original_region(shape: Tuple[int, ...], widths: List[Tuple[int, int]]) -> Tuple[slice, ...]:
    return tuple(slice(b, b + n) for n, (b, _) in zip(shape, widths))


def normalized_widths(array: np.ndarray, pad_width: Any) -> List[Tuple[int, int]]:
    """pad_width as numpy resolves it (pairs per axis); only for valid widths."""
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * array.ndim
        for axis, w in pad_width.items():
            seq[axis] = (w, w) if isinstance(w, int) else (w[0], w[1])
        pad_width = seq
    from numpy.lib._arraypad_impl import _as_pairs
    return [(int(b), int(a)) for b, a in _as_pairs(np.asarray(pad_width), array.ndim, True)]


def assert_same_exception(got: BaseException, want: BaseException, *,
                          message: bool = False) -> None:
    """Error parity: numpy's exception class or a subclass of it (ndpad.PadError is a
    ValueError), and with ``message``, the same text."""
    assert isinstance(got, type(want)), (
        f"ndpad raised {type(got).__name__}({got}), numpy {type(want).__name__}({want})")
    if message:
        assert str(got) == str(want), (str(got), str(want))


def compare(array: np.ndarray, pad_width: Any, mode: Any = "constant",
            **kwargs: Any) -> Outcome:
    """Runs numpy.pad and ndpad.pad on the same arguments and asserts the same outcome:
    the same array (only shape / dtype / order and the original area for 'empty') or
    the same exception class. Returns numpy's outcome."""
    before = array.copy() if not array.dtype.hasobject else None
    want, want_exc = run(numpy_pad, array, pad_width, mode, **kwargs)
    got, got_exc = run(ndpad.pad, array, pad_width, mode, **kwargs)
    if before is not None:
        assert_same_array(array, before, layout=False)  # the input is left alone
    if want_exc is not None:
        assert got_exc is not None, (
            f"numpy raised {type(want_exc).__name__}({want_exc}); ndpad returned "
            f"{got!r}")
        assert_same_exception(got_exc, want_exc)
        return None, want_exc
    assert got_exc is None, f"ndpad raised {type(got_exc).__name__}: {got_exc}"
    assert want is not None
    if mode == "empty":
        region = original_region(array.shape, normalized_widths(array, pad_width))
        assert_same_array(got, want, region=region)
    else:
        assert_same_array(got, want)
    return want, None


def describe(kwargs: Dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def examples(n: int) -> int:
    """Hypothesis example counts, scaled by NDPAD_HYPOTHESIS_SCALE (default 1)."""
    import os
    return n * max(1, int(os.environ.get("NDPAD_HYPOTHESIS_SCALE", "1")))


REPO = Path(__file__).resolve().parents[2]


def installed_ndpad() -> Path:
    """The ``ndpad`` command that ``pip install .`` put beside this interpreter (the
    console script ``ndpad._cli:main``), whether or not it exists."""
    name = "ndpad.exe" if sys.platform == "win32" else "ndpad"
    return Path(sysconfig.get_path("scripts")) / name


def cargo_built_ndpad(cargo: str = "cargo") -> Path:
    """Builds ``ndpad`` with cargo (debug) and returns the path cargo reports for it:
    wherever cargo puts its output (``CARGO_TARGET_DIR``, ``build.target-dir``)."""
    proc = subprocess.run(
        [cargo, "build", "-p", "ndpad-cli", "--bin", "ndpad",
         "--message-format=json-render-diagnostics"],
        cwd=REPO, check=True, stdout=subprocess.PIPE, text=True)
    for line in proc.stdout.splitlines():
        if not line.startswith("{"):
            continue
        msg = json.loads(line)
        if (msg.get("reason") == "compiler-artifact" and msg.get("executable")
                and msg.get("target", {}).get("name") == "ndpad"):
            return Path(msg["executable"])
    raise RuntimeError(f"{cargo} build reported no ndpad executable")


def ndpad_command() -> Path:
    """The ``ndpad`` command the tests run: ``$NDPAD_BIN``; else the one installed with
    the package under test (``pip install .``); else built by cargo where cargo puts
    it. None of them assumes ``target/``."""
    if os.environ.get("NDPAD_BIN"):
        return Path(os.environ["NDPAD_BIN"])
    installed = installed_ndpad()
    if installed.is_file():
        return installed
    if shutil.which("cargo") is None:
        import pytest

        pytest.skip("no installed ndpad command and no cargo to build one")
    return cargo_built_ndpad()


class ModeLike:
    """A mode numpy.pad accepts: not a str, equal to and hashing as a mode name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return other == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return f"like {self.name}"


class ModeStr(str):
    """A str subclass as the mode."""
