"""Every example of numpy.pad's docstring, run through ndpad.pad: the same arrays as
numpy gives, and the output the documentation shows."""

from __future__ import annotations

import doctest
from typing import Any, Dict, List

import numpy as np
import pytest

import ndpad
from _helpers import assert_same_array, numpy_pad

EXAMPLES: List[doctest.Example] = doctest.DocTestParser().get_examples(
    numpy_pad.__doc__ or "")
CHECKER = doctest.OutputChecker()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_docstring_has_examples() -> None:
    assert sum("np.pad(" in e.source for e in EXAMPLES) >= 15


def _run_upto(index: int, pad: Any) -> Dict[str, Any]:
    """Namespace after examples [0, index) with ``np.pad`` meaning ``pad``."""
    ns: Dict[str, Any] = {"np": np, "_pad": pad}
    for example in EXAMPLES[:index]:
        exec(example.source.replace("np.pad(", "_pad("), ns)  # noqa: S102
    return ns


@pytest.mark.parametrize(
    "index", [i for i, e in enumerate(EXAMPLES) if "np.pad(" in e.source],
    ids=lambda i: EXAMPLES[i].source.strip().replace(" ", "")[:60])
def test_docstring_example(index: int) -> None:
    example = EXAMPLES[index]
    source = example.source.replace("np.pad(", "_pad(")
    want = eval(source, _run_upto(index, numpy_pad))  # noqa: S307
    got = eval(source, _run_upto(index, ndpad.pad))  # noqa: S307
    assert_same_array(got, want)
    with np.printoptions(legacy=False):
        shown = repr(got) + "\n"
    assert CHECKER.check_output(example.want, shown, FLAGS), (example.want, shown)
