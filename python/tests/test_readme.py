"""The README's Python quick start runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks() -> list:
    if not README.exists():
        return []
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


@pytest.mark.skipif(not README.exists(), reason="run from a checkout")
def test_readme_has_a_python_quick_start() -> None:
    assert python_blocks(), "README.md has no ```python block"


@pytest.mark.parametrize("block", python_blocks())
def test_readme_python_block_runs(block: str, capsys: pytest.CaptureFixture) -> None:
    exec(compile(block, str(README), "exec"), {})
    printed = capsys.readouterr().out
    # Every "# <value>" comment right after a print(...) line is what it prints.
    lines = block.splitlines()
    expected = [
        lines[i + 1].lstrip("# ").strip()
        for i, line in enumerate(lines[:-1])
        if line.startswith("print(") and lines[i + 1].startswith("# ")
    ]
    assert printed.split("\n")[: len(expected)] == expected


def gpu_blocks() -> list:
    """The README's GPU quick start (a ```python3 block: it needs a CUDA device, so
    ``test_gpu.py`` runs it there; here it is only compiled)."""
    if not README.exists():
        return []
    return re.findall(r"```python3\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


@pytest.mark.skipif(not README.exists(), reason="run from a checkout")
def test_readme_gpu_block_compiles() -> None:
    blocks = gpu_blocks()
    assert blocks, "README.md has no ```python3 block"
    for block in blocks:
        compile(block, str(README), "exec")
