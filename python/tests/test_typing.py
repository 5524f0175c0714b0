"""The type stubs: mypy accepts correct calls of ``ndpad.pad``, ``ndpad.dask.pad`` and
the framework functions and reports wrong ones (a misspelt keyword or mode, a keyword
numpy.pad refuses for the mode, ...); ``mypy.stubtest`` finds the stubs true to the
installed package; every public name of the compiled extension has a stub entry."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest

import ndpad
from ndpad import _ndpad

pytest.importorskip("mypy", reason="mypy is not installed")
pytest.importorskip("dask.array", reason="dask is not installed")

CORRECT = """
import numpy as np
import numpy.typing as npt
import dask.array as da
from typing import Any, Dict, Tuple
from typing_extensions import assert_type

import ndpad

x = np.arange(6.0).reshape(2, 3)
f32 = np.zeros(3, dtype=np.float32)


def padding(vector: npt.NDArray[Any], width: Tuple[int, int], axis: int,
            kwargs: Dict[str, Any]) -> None:
    vector[:width[0]] = kwargs.get("value", 0)


assert_type(ndpad.pad(f32, 1), npt.NDArray[np.float32])
assert_type(ndpad.pad([1, 2], 1), npt.NDArray[Any])
ndpad.pad(x, ((1, 2), (0, 1)), "reflect", reflect_type="odd")
ndpad.pad(x, 2, mode="maximum", stat_length=1, threads=2)
ndpad.pad(x, [3], "mean", stat_length=None)
ndpad.pad([1, 2], (1, 2), "linear_ramp", end_values=5)
ndpad.pad(x, 1, constant_values=(1, 2), interior=1, out=None)
ndpad.pad(x, 1, "constant", constant_values=1.5, interior=[1, 0])
ndpad.pad(x, 1, "empty")
ndpad.pad(x, (-1, 2), "wrap", negative_pads="crop_first")
ndpad.pad(x, np.array([1, 2]), "symmetric", negative_pads=None, threads=np.int64(1))
ndpad.pad(x, {0: 1, 1: (2, 3)}, mode=("edge", "wrap"))
ndpad.pad(x, 1, mode=["constant", "mean"], constant_values=1, stat_length=2)
ndpad.pad(x, 1, padding, value=3)
ndpad.pad(x, 1, out=np.empty((4, 5)))
lazy = ndpad.dask.pad(da.ones(4, chunks=2), 2, "symmetric", chunks="input")
assert_type(lazy, da.Array)
ndpad.dask.pad(da.ones(4, chunks=2), 2, chunks={0: 3}, threads=1)
ndpad.dask.pad(da.ones(4, chunks=2), 2, "mean", chunks=(2,), stat_length=1)
import ndpad.zarr
from pathlib import Path
assert_type(ndpad.zarr.pad("a.zarr", Path("b.zarr"), 1, "wrap", threads=2, chunks=(2,)), Path)
ndpad.dask.pad(np.ones(4), 2, "wrap", chunks=None, negative_pads="original_index")
ndpad.dask.pad(da.ones((4, 4), chunks=2), 2, chunks=((4, 4), -1))
assert_type(ndpad.onnx.pad(x, [0, 1, 0, 1], mode="wrap", opset=19, threads=1),
            npt.NDArray[Any])
ndpad.onnx.pad(x, [0, 1], "constant", 2.5, [1], reflect_oversize="error")
ndpad.onnx.output_shape(["N", 3], pads=[0, 0, 1, 1])
ndpad.openvino.pad(x, [0, -1], [0, 2], pad_mode="symmetric", pad_value=1.5, opset=1)
ndpad.openvino.output_shape([None, 3], [0, 1], [0, 1], "edge")
ndpad.ngraph.pad(x, [0, 0], [0, 0], padding_interior=[1, 1], pad_value=42.0)
ndpad.ngraph.output_shape([2, "W"], [0, 0], [0, 0], [1, 0], pad_mode="reflect")
"""

# Each line is a call mypy must report (one error on that line).
WRONG = """
ndpad.pad(x, 1, treads=2)
ndpad.pad(x, 1, mode="reflekt")
ndpad.pad(x, 1, "reflekt")
ndpad.pad(x, 1, mode="edge", constant_values=1)
ndpad.pad(x, 1, "reflect", stat_length=2)
ndpad.pad(x, 1, "mean", reflect_type="odd")
ndpad.pad(x, 1, "linear_ramp", constant_values=0)
ndpad.pad(x, 1, "constant", end_values=0)
ndpad.pad(x, 1, "symmetric", reflect_type="odde")
ndpad.pad(x, 1, "edge", interior=1)
ndpad.pad(x, 1, threads="2")
ndpad.pad(x, 1, negative_pads="crop")
ndpad.pad(x, 1.5)
ndpad.pad(x, 1, mode=("edge", "wrapp"))
ndpad.pad(x, 1, out=[0.0])
ndpad.pad(x, 1, "constant", 0)
ndpad.dask.pad(x, 1, out=x)
ndpad.dask.pad(x, 1, chunks=1.5)
ndpad.dask.pad(x, 1, treads=1)
ndpad.dask.pad(x, 1, mode="wrap", stat_length=1)
ndpad.onnx.pad(x, [1, 1], mode="symmetric")
ndpad.onnx.pad(x, [1, 1], reflect_oversize="clip")
ndpad.onnx.pad(x, [1, 1], opset="19")
ndpad.onnx.output_shape([1.5], [1, 1])
ndpad.openvino.pad(x, [1], [1], pad_mode="wrap")
ndpad.openvino.pad(x, [1], [1], mode="edge")
ndpad.ngraph.pad(x, [1], [1], mode="edge")
ndpad.ngraph.pad(x, [1], [1], treads=1)
ndpad.ngraph.output_shape([1], [1], [1], pad_mode="wrap")
"""


def _mypy(tmp_path: Path, cache: Path, source: str, *extra: str) -> Dict[int, List[str]]:
    """mypy's errors on ``source`` (a module of its own, checked against the installed
    ndpad), by line."""
    path = tmp_path / "calls.py"
    path.write_text(source, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-color-output",
         "--show-error-codes", *extra, str(path.name)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        pytest.fail(f"mypy did not run: {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    errors: Dict[int, List[str]] = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"calls\.py:(\d+): error: (.*)", line)
        if m:
            errors.setdefault(int(m.group(1)), []).append(m.group(2))
    return errors


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """mypy's cache, shared by this module's runs (numpy's and dask's stubs read once)."""
    return tmp_path_factory.mktemp("mypy-cache")


def test_correct_calls_pass_mypy_strict(tmp_path: Path, cache: Path) -> None:
    errors = _mypy(tmp_path, cache, CORRECT, "--strict")
    assert not errors, errors


def test_wrong_calls_are_reported(tmp_path: Path, cache: Path) -> None:
    header = CORRECT.split("assert_type(ndpad.pad(f32")[0]
    first = header.count("\n") + 1
    calls = textwrap.dedent(WRONG).strip().splitlines()
    errors = _mypy(tmp_path, cache, header + "\n".join(calls) + "\n")
    reported = {line - first for line in errors}
    missed = [call for k, call in enumerate(calls) if k not in reported]
    assert not missed, f"mypy accepts: {missed}"
    assert reported <= set(range(len(calls))), errors  # nothing else reported


def test_stubs_are_true_to_the_package(tmp_path: Path, cache: Path) -> None:
    """``mypy.stubtest``: each stub's names and signatures against the installed
    modules (a runtime name missing from a stub, a parameter renamed, ...)."""
    modules = ["ndpad._ndpad", "ndpad._numpy", "ndpad.dask", "ndpad.onnx",
               "ndpad.openvino", "ndpad.ngraph", "ndpad.zarr"]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--concise", *modules],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _stub_names(path: Path) -> set:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_every_extension_name_has_a_stub() -> None:
    stub = Path(ndpad.__file__).parent / "_ndpad.pyi"
    assert stub.exists(), "the wheel lacks _ndpad.pyi"
    public = {n for n in dir(_ndpad) if not n.startswith("_")} | set(_ndpad.__all__)
    missing = public - _stub_names(stub)
    assert not missing, f"_ndpad.pyi lacks {sorted(missing)}"
    assert set(_ndpad.__all__) == set(ast.literal_eval(next(
        node.value for node in ast.parse(stub.read_text(encoding="utf-8")).body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__")))


@pytest.mark.parametrize("module", ["_numpy", "dask", "onnx", "openvino", "ngraph", "zarr"])
def test_python_modules_have_stubs_in_the_wheel(module: str) -> None:
    root = Path(ndpad.__file__).parent
    assert (root / f"{module}.pyi").exists() or (root / module / "__init__.pyi").exists()


def test_typing_module_example_runs() -> None:
    """``ndpad.typing``'s docstring example (the public aliases the stubs use)."""
    import doctest

    import ndpad.typing

    failures, tried = doctest.testmod(ndpad.typing)
    assert tried > 0 and failures == 0
