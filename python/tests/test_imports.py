"""The package's modules share code through public names only: no module imports a
``_``-prefixed name from another ndpad module (``from ._numpy import _as_pairs``), nor
reads one off an imported ndpad module (``_numpy._odd(...)``). What ``ndpad.pad`` and
``ndpad.dask`` share lives in ``ndpad._dispatch`` under public names. Importing a
private module itself (``from . import _ndpad``) is fine: the names inside it are what
must be public."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

import pytest

import ndpad

ROOT = Path(ndpad.__file__).parent


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(root: Path) -> Set[str]:
    """Every module of the package (``.py`` sources, packages, the extension)."""
    names = {_module_name(p, root) for p in root.rglob("*.py")}
    names |= {_module_name(p, root) for p in root.rglob("*.pyi")}
    return names


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name of what ``node`` imports from."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports(source: str, module: str, is_package: bool,
                    modules: Set[str]) -> List[str]:
    """The private names ``source`` (the module ``module``) takes from other ndpad
    modules, as ``line: what``."""
    found = []
    bound: Dict[str, str] = {}  # local name -> the ndpad module it is bound to
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = _resolve(module, is_package, node)
            if origin.split(".")[0] != "ndpad":
                continue
            for alias in node.names:
                target = f"{origin}.{alias.name}"
                if target in modules:  # a module of the package
                    bound[alias.asname or alias.name] = target
                elif _private(alias.name) and origin != module:
                    found.append(f"{node.lineno}: from {origin} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "ndpad" and alias.asname:
                    bound[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in bound and _private(node.attr)
                and bound[node.value.id] != module):
            found.append(f"{node.lineno}: {bound[node.value.id]}.{node.attr}")
    return found


def test_the_check_finds_private_imports() -> None:
    modules = {"ndpad", "ndpad._numpy", "ndpad._ndpad", "ndpad.dask", "ndpad.dask._walk"}
    source = (
        "from .. import _numpy\n"
        "from .._numpy import _as_pairs, pad\n"
        "from ._walk import walk, _stat_row\n"
        "from .. import _ndpad\n"
        "_numpy._odd(1)\n"
        "_ndpad.numpy_spec\n"
        "_numpy.__name__\n"
    )
    found = private_imports(source, "ndpad.dask", True, modules)
    assert found == ["2: from ndpad._numpy import _as_pairs",
                     "3: from ndpad.dask._walk import _stat_row",
                     "5: ndpad._numpy._odd"], found
    assert private_imports("from ndpad.onnx import _x\n", "ndpad.zarr", False,
                           modules | {"ndpad.onnx", "ndpad.zarr"}) == [
        "1: from ndpad.onnx import _x"]


@pytest.mark.parametrize(
    "path", sorted([*ROOT.rglob("*.py"), *ROOT.rglob("*.pyi")]),
    ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_from_other_modules(path: Path) -> None:
    """Sources and stubs alike (the stubs' shared types are ``ndpad.typing``'s)."""
    found = private_imports(path.read_text(encoding="utf-8"), _module_name(path, ROOT),
                            path.name in ("__init__.py", "__init__.pyi"), _modules(ROOT))
    assert not found, f"{path.relative_to(ROOT)} takes private names: {found}"


def test_dask_is_a_package() -> None:
    """``ndpad.dask`` is a package split by mode family (no ``dask.py`` beside it)."""
    assert (ROOT / "dask" / "__init__.py").exists()
    assert not (ROOT / "dask.py").exists()
