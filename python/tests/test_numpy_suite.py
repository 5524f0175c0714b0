"""numpy's own test suite for numpy.pad (numpy/lib/tests/test_arraypad.py, shipped in
the wheel), run in a subprocess with ``numpy.pad`` replaced by ``ndpad.pad``."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest


def _suite() -> Optional[Path]:
    spec = importlib.util.find_spec("numpy")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "lib" / "tests" / "test_arraypad.py"
        if candidate.is_file():
            return candidate
    return None


PLUGIN = '''
import json, os
import numpy
import ndpad

calls = [0]
_pad = ndpad.pad

def counting_pad(*args, **kwargs):
    calls[0] += 1
    return _pad(*args, **kwargs)

counting_pad.__doc__ = _pad.__doc__
numpy.pad = counting_pad

def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["NDPAD_CALLS_FILE"], "w") as f:
        json.dump({"calls": calls[0]}, f)
'''


def test_numpy_arraypad_suite_with_ndpad(tmp_path: Path) -> None:
    suite = _suite()
    if suite is None:
        pytest.skip("numpy's test_arraypad.py is not installed")
    (tmp_path / "ndpad_patch_plugin.py").write_text(PLUGIN)
    calls_file = tmp_path / "calls.json"
    report = tmp_path / "report.txt"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        NDPAD_CALLS_FILE=str(calls_file))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "ndpad_patch_plugin", "-p", "no:cacheprovider",
         "-q", "-rfEX", "--no-header", "--rootdir", str(tmp_path), str(suite)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    report.write_text(proc.stdout + proc.stderr)
    tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-40:])
    assert proc.returncode == 0, tail
    calls = json.loads(calls_file.read_text())["calls"]
    assert calls > 500, f"numpy.pad was not replaced: ndpad.pad ran {calls} times\n{tail}"
    assert " passed" in tail and "failed" not in tail, tail
