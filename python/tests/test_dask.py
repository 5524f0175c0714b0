"""``ndpad.dask.pad`` against ``numpy.pad`` (and ``ndpad.pad`` for the keywords beyond
numpy) on random arrays cut into random chunks: every mode, the keyword forms, wide
reflections, the extensions; the statistics' order of combination (chains of blocks
along an axis, whole lines, signed zeros and NaNs, integer rounding) and their graph;
the regular output chunks (and their bound); the graph (each output chunk reads only
the input blocks it needs); to_zarr without rechunking; a distributed cluster of
processes."""

from __future__ import annotations

import fractions
import itertools
import re
import subprocess
import sys
import time
import warnings
from typing import Any, Dict, List, Tuple

import numpy as np
from numpy.lib._arraypad_impl import pad as numpy_pad
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import ndpad  # noqa: E402
import ndpad.dask as ndask  # noqa: E402
from ndpad._dispatch import normalize_widths  # noqa: E402
from ndpad.dask import _walk as dask_walk  # noqa: E402
from ndpad.dask._chunks import check_count, chunk_limit  # noqa: E402
from _helpers import (  # noqa: E402
    ModeLike,
    ModeStr,
    assert_same_array,
    assert_same_exception,
    examples,
    ml_dtype,
    numpy_pad,
    run,
)

INDEX_MODES = ["constant", "edge", "reflect", "symmetric", "wrap", "empty"]
STAT_MODES = ["maximum", "mean", "median", "minimum"]

@pytest.fixture(autouse=True, scope="module")
def _chunks_from_the_input() -> Any:
    """The tests of this module check the chunks (and the graph) where the input's
    chunks decide them: under an ``array.chunk-size`` of 1 byte no output chunk grows
    past them. The growth to dask's chunk size is tested under settings of its own
    (``test_chunks_grow_to_dask_chunk_size`` and after)."""
    with dask.config.set({"array.chunk-size": "1B"}):
        yield


NUMERIC = [np.dtype(t) for t in ("?", "i1", "u2", "i4", "i8", "f2", "f4", "f8", "c8",
                                 "c16", ">i4", "M8[s]", "m8[ms]")]
OTHER = [np.dtype(t) for t in ("U3", "S2", "O")] + [
    np.dtype([("a", "<i4"), ("b", "S3")])] + [
    d for d in (ml_dtype("bfloat16"), ml_dtype("int4")) if d is not None]


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------


def values(rng: np.random.Generator, dtype: np.dtype, shape: Tuple[int, ...],
           hard: bool) -> np.ndarray:
    """Random values of ``dtype``: raw bit patterns, or (``hard``) values whose sums
    depend on the order of summation."""
    n = int(np.prod(shape))
    kind = dtype.kind
    if kind == "O":
        flat = np.empty(n, dtype=object)
        pool = [0, 1, -2, None, "a", fractions.Fraction(1, 3), 2.5]
        flat[:] = [pool[i] for i in rng.integers(0, len(pool), n)]
        return flat.reshape(shape)
    if kind in "US":
        size = dtype.itemsize // (4 if kind == "U" else 1)
        texts = ["".join("abcxyz"[j] for j in rng.integers(0, 6, rng.integers(0, size + 1)))
                 for _ in range(n)]
        return np.array(texts, dtype=dtype).reshape(shape)
    if kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if hard and kind in "fc":
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)
        if kind == "c":
            a = a + 1j * rng.standard_normal(shape)
        return a.astype(dtype)
    if hard and kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min // 2, info.max // 2, shape, dtype=dtype,
                            endpoint=True)
    if dtype.name in ("int4", "uint4"):
        return rng.integers(-8, 8, shape).astype(np.float32).astype(dtype)
    raw = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).tobytes()
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


@st.composite
def chunkings(draw: st.DrawFn, shape: Tuple[int, ...]) -> Tuple[Tuple[int, ...], ...]:
    """Random chunks per axis: size-1 chunks, one chunk, irregular cuts."""
    result = []
    for n in shape:
        if n == 0:
            result.append((0,))
            continue
        form = draw(st.sampled_from(["ones", "whole", "random", "random"]))
        if form == "ones":
            result.append((1,) * n)
        elif form == "whole":
            result.append((n,))
        else:
            cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
            edges = [0] + cuts + [n]
            result.append(tuple(e - s for s, e in zip(edges, edges[1:])))
    return tuple(result)


@st.composite
def cases(draw: st.DrawFn, dtypes: List[np.dtype], max_side: int = 5, min_side: int = 0,
          hard: bool = False) -> Tuple[np.ndarray, Tuple[Tuple[int, ...], ...]]:
    dtype = draw(st.sampled_from(dtypes), label="dtype")
    shape = tuple(draw(st.lists(st.integers(min_side, max_side), min_size=1, max_size=3),
                       label="shape"))
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    array = values(np.random.default_rng(seed), dtype, shape, hard)
    return array, draw(chunkings(shape), label="chunks")


def widths_for(draw: st.DrawFn, shape: Tuple[int, ...], wide: int = 12) -> Any:
    """pad_width in one of numpy's forms; some pads wider than the axis (less wide
    in 3-d, where size-1 chunks would make thousands of tasks)."""
    if len(shape) > 2:
        wide = min(wide, 4)
    pairs = [(draw(st.integers(0, wide)), draw(st.integers(0, wide))) for _ in shape]
    form = draw(st.sampled_from(["pairs", "int", "(b,a)", "dict"]))
    if form == "int":
        return draw(st.integers(0, wide))
    if form == "(b,a)":
        return (draw(st.integers(0, wide)), draw(st.integers(0, wide)))
    if form == "dict":
        return {-1: pairs[-1]}
    return pairs


def per_side(draw: st.DrawFn, ndim: int, element: st.SearchStrategy) -> Any:
    form = draw(st.sampled_from(["scalar", "(b,a)", "per-axis"]))
    if form == "scalar":
        return draw(element)
    if form == "(b,a)":
        return (draw(element), draw(element))
    return [(draw(element), draw(element)) for _ in range(ndim)]


def constant_element(dtype: np.dtype) -> st.SearchStrategy:
    if dtype.kind in "US":
        return st.sampled_from(["", "q", "toolong", "0"])
    if dtype.kind == "O":
        return st.sampled_from([None, 7, "z"])
    if dtype.kind in "mMV":
        return st.integers(-5, 5)
    return st.one_of(st.integers(-300, 300), st.sampled_from([np.nan, -0.0, 2.5, True]))


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------


def check_chunks(result: Any, x: Any, widths: List[Tuple[int, int]]) -> None:
    """The output chunks cover the output and are regular (as to_zarr needs): as few
    as the largest input chunk of the axis allows, one size but the last, which is
    shorter by fewer elements than there are chunks; so no chunk is larger than the
    largest input chunk (nor than it plus the axis's pads, the issue's bound)."""
    assert len(result.chunks) == x.ndim
    for k, (b, a) in enumerate(widths):
        got, extent = result.chunks[k], result.shape[k]
        assert sum(got) == extent
        if extent == 0:
            assert got == (0,), (k, got)
            continue
        largest = max(x.chunks[k])
        if largest == 0:  # an empty axis padded: one chunk, the pads
            assert got == (extent,), (k, got)
            continue
        if chunk_limit() == 1:  # this module's setting: the input's chunks
            assert len(got) == -(-extent // largest), (k, got, x.chunks[k])
        else:  # grown towards array.chunk-size (test_grown_chunks_property)
            assert len(got) <= -(-extent // largest), (k, got, x.chunks[k])
        assert set(got[:-1]) <= {got[0]} and 0 <= got[0] - got[-1] < len(got), (k, got)
        if chunk_limit() == 1:
            assert max(got) <= largest, (k, got, (b, a))  # so within largest + the pads


def dask_outcome(x: np.ndarray, chunks: Any, pad_width: Any, mode: Any,
                 scheduler: Any = "threads", **kwargs: Any):
    """``ndpad.dask.pad`` built (errors must come then) and computed."""
    dx = da.from_array(x, chunks=chunks)
    lazy, exc = run(ndask.pad, dx, pad_width, mode, **kwargs)
    if exc is not None:
        return None, exc
    assert isinstance(lazy, da.Array)
    widths = normalize_widths(pad_width, x.ndim, True) if x.ndim else []
    if x.ndim and not callable(mode) and not any(b or a for b, a in widths) and not (
            np.any(np.asarray(kwargs.get("interior", 0)) != 0)):
        assert lazy is dx  # a pad that changes nothing: x itself, as dask.array.pad
    elif x.ndim:
        check_chunks(lazy, dx, widths)
    got, exc = run(lazy.compute, scheduler=scheduler)
    assert exc is None, f"raised at compute: {type(exc).__name__}: {exc}"
    assert got.shape == lazy.shape and got.dtype == lazy.dtype
    return got, None


def compare(x: np.ndarray, chunks: Any, pad_width: Any, mode: Any = "constant",
            reference: Any = numpy_pad, scheduler: Any = "threads", **kwargs: Any) -> None:
    """Same value bit for bit (``reference``: numpy.pad, or ndpad.pad for the
    keywords beyond numpy), or the same exception class, raised when the graph is
    built."""
    want, want_exc = run(reference, x, pad_width, mode, **kwargs)
    got, got_exc = dask_outcome(x, chunks, pad_width, mode, scheduler, **kwargs)
    if want_exc is not None:
        assert got_exc is not None, f"reference raised {want_exc!r}; dask returned"
        assert_same_exception(got_exc, want_exc)
        return
    assert got_exc is None, f"ndpad.dask raised {type(got_exc).__name__}: {got_exc}"
    if mode == "empty" and reference is numpy_pad:
        want = ndpad.pad(x, pad_width, mode)  # zeros where numpy leaves garbage
    assert_same_array(got, want, layout=False)


# ---------------------------------------------------------------------------
# Against numpy.pad
# ---------------------------------------------------------------------------


@settings(max_examples=examples(120))
@given(data=st.data())
def test_index_modes(data: st.DataObject) -> None:
    """constant / edge / reflect / symmetric / wrap / empty, every dtype family, pads
    wider than the axis, per-side constants, chunks smaller than the pads."""
    x, chunks = data.draw(cases(NUMERIC + OTHER))
    if data.draw(st.booleans()):
        x = np.asfortranarray(x)  # F-ordered chunks
    mode = data.draw(st.sampled_from(INDEX_MODES), label="mode")
    pad_width = widths_for(data.draw, x.shape)
    kwargs: Dict[str, Any] = {}
    if mode == "constant" and data.draw(st.booleans()):
        kwargs["constant_values"] = per_side(data.draw, x.ndim, constant_element(x.dtype))
    if mode in ("reflect", "symmetric") and data.draw(st.booleans()):
        kwargs["reflect_type"] = "even"
    if data.draw(st.booleans()):
        kwargs["threads"] = data.draw(st.sampled_from([0, 1, 2]))
        want = run(ndpad.pad, x, pad_width, mode, **kwargs)
        got = dask_outcome(x, chunks, pad_width, mode, **kwargs)
        if want[1] is not None:
            assert got[1] is not None
            assert_same_exception(got[1], want[1])
        else:
            assert_same_array(got[0], want[0], layout=False)
        return
    compare(x, chunks, pad_width, mode, **kwargs)


@settings(max_examples=examples(40))
@given(data=st.data())
def test_wide_reflections(data: st.DataObject) -> None:
    """Pads many times the axis: reflect, symmetric and wrap fold again and again."""
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=2)))
    x = (np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape) * 3 - 2)
    chunks = data.draw(chunkings(shape))
    mode = data.draw(st.sampled_from(["reflect", "symmetric", "wrap", "edge"]))
    pad_width = [(data.draw(st.integers(0, 30)), data.draw(st.integers(0, 30)))
                 for _ in shape]
    compare(x, chunks, pad_width, mode)


@settings(max_examples=examples(100))
@given(data=st.data())
def test_stat_modes(data: st.DataObject) -> None:
    """maximum / mean / median / minimum bit for bit, with stat_length in its forms,
    on values whose sums depend on the order of summation."""
    dtypes = [np.dtype(t) for t in ("f2", "f4", "f8", "c8", "i8", "u1", "?", "M8[s]",
                                    "m8[ms]", "U2")]
    dtypes += [d for d in (ml_dtype("bfloat16"),) if d is not None]
    x, chunks = data.draw(cases(dtypes, max_side=6, hard=data.draw(st.booleans())))
    mode = data.draw(st.sampled_from(STAT_MODES), label="mode")
    pad_width = widths_for(data.draw, x.shape, wide=6)
    kwargs: Dict[str, Any] = {}
    if data.draw(st.booleans()):
        element = st.one_of(st.integers(0, 7), st.none()) if mode == "mean" else \
            st.one_of(st.integers(1, 7), st.none())
        kwargs["stat_length"] = per_side(data.draw, x.ndim, element)
    if mode == "mean" and x.dtype.kind == "m":
        # numpy.pad never pads timedelta64 by its mean: TypeError (it rounds the mean
        # with rint), or, from numpy 2.5, OverflowError where the sum overflows. That
        # depends on the data, which the lazy graph has not read: ndpad.dask raises
        # the TypeError when the graph is built.
        _, want_exc = run(numpy_pad, x, pad_width, mode, **kwargs)
        if isinstance(want_exc, OverflowError):
            _, got_exc = dask_outcome(x, chunks, pad_width, mode, **kwargs)
            assert isinstance(got_exc, TypeError), got_exc
            return
    compare(x, chunks, pad_width, mode, **kwargs)


@settings(max_examples=examples(50))
@given(data=st.data())
def test_linear_ramp(data: st.DataObject) -> None:
    dtypes = [np.dtype(t) for t in ("f4", "f8", "i2", "u1", "c16")]
    x, chunks = data.draw(cases(dtypes, max_side=5, hard=True))
    pad_width = widths_for(data.draw, x.shape, wide=9)
    kwargs: Dict[str, Any] = {}
    if data.draw(st.booleans()):
        kwargs["end_values"] = per_side(
            data.draw, x.ndim, st.one_of(st.integers(-300, 300), st.floats(-1e3, 1e3)))
    compare(x, chunks, pad_width, "linear_ramp", **kwargs)


@settings(max_examples=examples(30))
@given(data=st.data())
def test_odd_reflections_and_callables(data: st.DataObject) -> None:
    """reflect_type='odd' (a windowed layer) and a callable mode (the per-axis path)."""
    x, chunks = data.draw(cases([np.dtype("i4"), np.dtype("f8")], min_side=1))
    pad_width = widths_for(data.draw, x.shape, wide=8)
    which = data.draw(st.sampled_from(["reflect", "symmetric", "callable"]))
    if which == "callable":
        compare(x, chunks, pad_width, pad_with, padder=data.draw(st.integers(-3, 3)))
    else:
        compare(x, chunks, pad_width, which, reflect_type="odd")


def test_odd_reflection_of_a_wide_pad_computes_its_chunks_alone() -> None:
    """A chunk of a pad 2^33 wide computes its own values, not its whole padded line
    (2^34 values, 128 GB, for every chunk of 4 MiB: more than there is memory):
    int64 arange reflected 'odd' is a straight line, exact at the far end and
    around the original."""
    x = np.arange(3, dtype=np.int64)
    before = 2**33
    with dask.config.set({"array.chunk-size": "4MiB"}):
        y = ndask.pad(da.from_array(x, chunks=3), before, "reflect", reflect_type="odd")
    for start, stop in ((0, 5), (before - 4, before + 7)):
        want = np.arange(start - before, stop - before, dtype=np.int64)
        np.testing.assert_array_equal(y[start:stop].compute(), want)


def test_odd_reflection_of_a_wide_pad_reports_numpy_s_exceptions_alone() -> None:
    """A chunk of a wide float pad whose values overflow warns (or raises) as numpy
    does without padding its whole line again with numpy (2^34 values, 64 GB): values
    bit for bit those of a narrow pad near the array, numpy's messages, and
    ``FloatingPointError`` under ``errstate(over='raise')``."""
    x = np.array([3e38, -3e38, 1.5], np.float32)
    before = 2**33
    with dask.config.set({"array.chunk-size": "4MiB"}):
        y = ndask.pad(da.from_array(x, chunks=3), before, "reflect", reflect_type="odd")
    near = y[before - 10:before + 3]
    with np.errstate(all="ignore"):
        want = numpy_pad(x, 10, "reflect", reflect_type="odd")[:13]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = near.compute(scheduler="sync")
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    with warnings.catch_warnings(record=True) as numpy_s:
        warnings.simplefilter("always")
        numpy_pad(x, 10, "reflect", reflect_type="odd")
    assert {str(w.message) for w in caught} == {str(w.message) for w in numpy_s}
    assert "overflow encountered in multiply" in {str(w.message) for w in caught}
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        y[:5].compute(scheduler="sync")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(y[:5].compute(scheduler="sync")).all()


def test_complex_wide_odd_pads_report_invalid_multiplies() -> None:
    """A complex edge with an infinite part: its values are numpy's to compute where
    small, but a chunk of a wide pad keeps its own and still reports ``0 * inf``'s
    invalid multiply, as numpy does, fused or not."""
    x = np.array([np.inf + 0j, 1 + 0j, 2 + 0j], np.complex64)
    with dask.config.set({"array.chunk-size": "4MiB"}):
        y = ndask.pad(da.from_array(x, chunks=3), (2**33, 0), "reflect", reflect_type="odd")
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError, match="invalid value encountered in multiply"):
            numpy_pad(x, (10, 0), "reflect", reflect_type="odd")
        with pytest.raises(FloatingPointError, match="invalid value encountered in multiply"):
            y[:5].compute(scheduler="sync")


def test_too_many_output_chunks_is_an_error_before_the_graph() -> None:
    """An output of more than 2^20 chunks beyond the input's is refused at once,
    naming the count and the limit (the chunks' tuples alone of a pad of 2^40 in
    chunks of 3 elements ran out of memory)."""
    x = da.from_array(np.arange(3), chunks=3)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"shape \(2199023255555,\) would be "
                       r"733007751852 chunks, 733007751851 more than the input's, "
                       r"over 1048576: pass larger chunks="):
        ndask.pad(x, 2**40, "constant", chunks="input")
    with dask.config.set({"array.chunk-size": "1KiB"}):
        with pytest.raises(ValueError, match=r"over 1048576: .*\(1024 bytes"):
            ndask.pad(x, 2**40, "reflect")
    for chunks in (1000, (1000,), [1000], {0: 1000}, 1000.0, {-1: 1000}):
        with pytest.raises(ValueError, match=r"would be 2199023256 chunks, "):
            ndask.pad(x, 2**40, "edge", chunks=chunks)
    # Sizes in bytes, counted from dask's sizes before dask spells them out (2^34 + 1
    # chunks of 128 elements).
    for chunks in ("1KiB", ("1KiB",), {0: "1KiB"}, {-1: "auto"}, ["auto"]):
        with pytest.raises(ValueError, match=r"would be 17179869185 chunks, "):
            with dask.config.set({"array.chunk-size": "1KiB"}):
                ndask.pad(x, 2**40, "edge", chunks=chunks)
    # An input of many chunks already has its graph: the limit is on those added.
    check_count((2**21,), [2**21], have=2**20 + 1)
    with pytest.raises(ValueError, match=r"be 1048580 chunks, 1048577 more than the input"):
        check_count((2**21,), [2**20 + 4], have=3)
    assert time.perf_counter() - start < 5
    # In dask's default chunks of 128 MiB, the same pad is 131,073 chunks.
    with dask.config.set({"array.chunk-size": "128MiB"}):
        assert ndask.pad(x, 2**40, "constant").numblocks == (131073,)
    assert ndask.pad(x, 2**40, "edge", chunks=2**26).numblocks == (32769,)


def pad_with(vector: np.ndarray, pad_width: Tuple[int, int], iaxis: int,
             kwargs: Dict[str, Any]) -> None:
    """numpy.pad's documented example of a padding function."""
    pad_value = kwargs.get("padder", 10)
    vector[:pad_width[0]] = pad_value
    vector[-pad_width[1]:] = pad_value


def test_linear_ramp_zero_step_elsewhere() -> None:
    """numpy.linspace takes another formula for all the lines of an axis when one
    line's step is 0: here the second row (padding of axis 0, equal to the end
    value) sits in another chunk than the first."""
    x = np.array([[0.12573022], [0.3]])
    for chunks in (1, 2):
        compare(x, chunks, ((0, 1), (0, 5)), "linear_ramp")
        compare(x, chunks, ((1, 1), (3, 5)), "linear_ramp", end_values=0.3)
    compare(np.array([[1, 5], [7, 2]], dtype=np.int8), 1, ((0, 0), (4, 0)),
            "linear_ramp", end_values=7)


@pytest.mark.parametrize("mode", [ModeStr("constant"), ModeLike("constant"),
                                  ModeLike("wrap"), ModeLike("mean"),
                                  ModeLike("linear_ramp")])
def test_mode_objects_numpy_accepts(mode: Any) -> None:
    """As numpy.pad: the mode it names (they ended in AssertionError('unreachable'))."""
    x = np.arange(12.0).reshape(3, 4)
    compare(x, 2, ((1, 2), (3, 0)), mode)
    compare(np.array(5.0), (), 1, mode)
    with pytest.raises(ValueError, match="mode '.*' is not supported"):
        ndask.pad(da.from_array(x), 1, ModeLike("nope"))


def test_errors_at_build_time() -> None:
    """numpy's exceptions, raised by ``ndpad.dask.pad`` itself (not at compute)."""
    a = da.from_array(np.arange(6.0).reshape(2, 3), chunks=1)
    with pytest.raises(ValueError, match="negative"):
        ndask.pad(a, -1)
    with pytest.raises(ValueError, match="unsupported keyword"):
        ndask.pad(a, 1, "edge", constant_values=1)
    with pytest.raises(ValueError, match="stat_length of 0"):
        ndask.pad(a, 1, "maximum", stat_length=0)
    with pytest.raises(TypeError):
        ndask.pad(da.from_array(np.zeros(3, "M8[s]")), 1, "mean")
    with pytest.raises(ValueError, match="can't extend empty axis"):
        ndask.pad(da.zeros((0, 3), chunks=2), 1, "reflect")
    with pytest.raises(ValueError):
        ndask.pad(a, 1, constant_values="abc")
    with pytest.raises(ndpad.PadError):
        ndask.pad(a, 1, "edge", interior=1)
    with pytest.raises(ndpad.PadError):
        ndask.pad(a, -1, "mean", negative_pads="crop_first")
    with pytest.raises(ndpad.PadError):
        ndask.pad(a, 1, constant_values=((1, 2),), interior=1)


def test_zero_d_and_numpy_input() -> None:
    got = ndask.pad(da.from_array(np.array(5)), 3, "reflect").compute()
    assert_same_array(got, numpy_pad(np.array(5), 3, "reflect"), layout=False)
    x = np.arange(5)
    assert_same_array(ndask.pad(x, 2, "wrap").compute(), numpy_pad(x, 2, "wrap"),
                      layout=False)


# ---------------------------------------------------------------------------
# Beyond numpy: against ndpad.pad
# ---------------------------------------------------------------------------


@settings(max_examples=examples(60))
@given(data=st.data())
def test_negative_pads(data: st.DataObject) -> None:
    x, chunks = data.draw(cases([np.dtype("i4"), np.dtype("U2"), np.dtype("O")],
                                min_side=1))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric",
                                      "wrap"]))
    policy = data.draw(st.sampled_from(["crop_first", "original_index"]))
    pad_width = [(data.draw(st.integers(-4, 6)), data.draw(st.integers(-4, 6)))
                 for _ in x.shape]
    kwargs: Dict[str, Any] = {}
    if mode == "constant" and data.draw(st.booleans()):
        kwargs["constant_values"] = per_side(data.draw, x.ndim, constant_element(x.dtype))
    compare(x, chunks, pad_width, mode, reference=ndpad.pad, negative_pads=policy,
            **kwargs)


@settings(max_examples=examples(50))
@given(data=st.data())
def test_interior(data: st.DataObject) -> None:
    """Interior padding (constant mode), with constants the kernel writes in part
    (strings) and objects."""
    x, chunks = data.draw(cases([np.dtype("i2"), np.dtype("f8"), np.dtype("U3"),
                                 np.dtype("O")]))
    interior = data.draw(st.one_of(st.integers(0, 3),
                                   st.lists(st.integers(0, 3), min_size=x.ndim,
                                            max_size=x.ndim)))
    pad_width = widths_for(data.draw, x.shape, wide=5)
    kwargs: Dict[str, Any] = {"interior": interior}
    if data.draw(st.booleans()):
        kwargs["constant_values"] = data.draw(constant_element(x.dtype))
    if data.draw(st.booleans()):
        kwargs["negative_pads"] = "crop_first"
        pad_width = [(data.draw(st.integers(-2, 4)), data.draw(st.integers(-2, 4)))
                     for _ in x.shape]
    compare(x, chunks, pad_width, "constant", reference=ndpad.pad, **kwargs)


@settings(max_examples=examples(40))
@given(data=st.data())
def test_per_axis_modes(data: st.DataObject) -> None:
    x, chunks = data.draw(cases([np.dtype("f8"), np.dtype("i4")], min_side=1, hard=True))
    modes = [data.draw(st.sampled_from(INDEX_MODES[:5] + STAT_MODES + ["linear_ramp"]))
             for _ in x.shape]
    pad_width = widths_for(data.draw, x.shape, wide=7)
    compare(x, chunks, pad_width, modes, reference=ndpad.pad)


# ---------------------------------------------------------------------------
# Statistics: numpy's order of summation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8", "c8", "i8"])
def test_mean_summation_order(dtype: str) -> None:
    """Lines cut into chunks of one line (so that a chunk's later axes have length 1
    where numpy's do not), and long lines (numpy's pairwise blocks and buffers): the
    mean is numpy's bit for bit."""
    rng = np.random.default_rng(7)
    for shape, chunks, widths in [
        ((300, 3), (300, 1), ((2, 3), (0, 0))),
        ((3, 200, 2), (1, 200, 1), ((1, 1), (4, 2), (1, 0))),
        ((9000, 2), (9000, 1), ((1, 1), (0, 0))),
        ((2, 9000), (1, 9000), ((0, 0), (3, 1))),
    ]:
        x = values(rng, np.dtype(dtype), shape, hard=True)
        compare(x, chunks, widths, "mean")
        compare(x, chunks, widths, "mean", stat_length=((150, 7),))


# Chunkings of an axis of 40 for the chains: one block per line, two lines, uneven
# blocks, one block.
CHAIN_CHUNKS = [1, 2, (7, 13, 20), (3, 1, 30, 6), 40]


def test_chain_data_is_order_sensitive() -> None:
    """The float32 values of ``test_chain_summation_order`` tell orders apart: numpy's
    sum down the columns (line after line) differs from a sum of per-block sums and
    from the same sum in reverse, so a chain that added in another order would fail."""
    x = values(np.random.default_rng(11), np.dtype("f4"), (40, 3), hard=True)
    numpy_sum = np.add.reduce(x, axis=0)
    blocks = sum(np.add.reduce(x[s:e], axis=0) for s, e in [(0, 7), (7, 20), (20, 40)])
    reverse = np.add.reduce(x[::-1], axis=0)
    assert not np.array_equal(numpy_sum, blocks)
    assert not np.array_equal(numpy_sum, reverse)


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8", "c8", "i8", "u1", "?"])
@pytest.mark.parametrize("chunks", CHAIN_CHUNKS)
def test_chain_summation_order(dtype: str, chunks: Any) -> None:
    """mean, maximum and minimum down an axis that numpy reduces line after line (a
    later axis longer than 1): the chain of blocks carries numpy's accumulator, for
    blocks of one or two lines and uneven blocks, stat_length spans inside one block
    and across blocks, on values whose sums depend on the order."""
    x = values(np.random.default_rng(11), np.dtype(dtype), (40, 3), hard=True)
    for mode in ("mean", "maximum", "minimum"):
        spans = (None, 5, ((9, 23),), ((40, 2),)) if mode == "mean" else (None, ((9, 23),))
        for stat_length in spans:
            kwargs = {} if stat_length is None else {"stat_length": stat_length}
            compare(x, (chunks, 3), ((2, 3), (0, 0)), mode, **kwargs)
            compare(x, (chunks, 2), ((1, 4), (2, 1)), mode, **kwargs)


def test_empty_stat_lengths() -> None:
    """mean with a stat_length of 0 on some sides (numpy's mean of nothing: NaN, or
    for integers the cast of NaN), beside other sides' statistics, on several
    blocks per axis."""
    for dtype in ("f8", "i4"):
        x = values(np.random.default_rng(8), np.dtype(dtype), (5, 6, 7), hard=True)
        for stat_length in (0, ((0, 1), (2, 0), (0, 3)), ((1, 0), (0, 0), (2, 2)),
                            ((0, 0), (3, 3), (0, 0))):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compare(x, 2, 2, "mean", stat_length=stat_length)


@pytest.mark.parametrize("dtype", ["f4", "i4"])
def test_chain_three_axes(dtype: str) -> None:
    """Every axis padded, the middle one reduced line after line across blocks of the
    array already padded along axis 0 (the corners: numpy's statistics of
    statistics)."""
    x = values(np.random.default_rng(5), np.dtype(dtype), (9, 20, 6), hard=True)
    for chunks in [(2, 3, 6), ((5, 4), (7, 6, 7), 1)]:
        for mode in ("mean", "maximum", "minimum"):
            compare(x, chunks, ((3, 1), (2, 4), (1, 2)), mode)
            compare(x, chunks, ((3, 1), (2, 4), (1, 2)), mode, stat_length=((4, 7),))


def special_values(rng: np.random.Generator, dtype: np.dtype, shape: Tuple[int, ...]
                   ) -> np.ndarray:
    """-0.0, +0.0, NaNs of both signs and several payloads (float32), infinities and
    ones: maximum and minimum keep one of two equal zeros or NaNs by their order."""
    part = np.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype
    pool = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -1.0, np.inf], dtype=part)
    x = pool[rng.integers(0, len(pool), shape)]
    if part == np.float32:
        bits = x.view(np.uint32)
        nan = np.isnan(x)
        bits[nan] |= rng.integers(1, 1 << 22, int(nan.sum())).astype(np.uint32)
    if dtype.kind == "c":
        z = np.empty(shape, dtype=dtype)
        z.real, z.imag = x, pool[rng.integers(0, len(pool), shape)]
        return z
    return x


@pytest.mark.parametrize("dtype", ["f2", "f4", "f8", "c8"])
@pytest.mark.parametrize("mode", ["maximum", "minimum"])
def test_signed_zeros_and_nans(dtype: str, mode: str) -> None:
    """maximum / minimum of -0.0 and +0.0 and of NaNs with other signs and payloads
    are numpy's bit for bit: down the columns (the chain, faces of 1 to 45 elements,
    numpy's SIMD loop and its remainder), along the last axis (whole lines), and
    along an axis whose later axes have length 1 (numpy's line contiguous, or strided
    where the later axes are padded)."""
    rng = np.random.default_rng(3)
    dt = np.dtype(dtype)
    for shape, chunks, widths in [
        ((40, 5), (CHAIN_CHUNKS[2], 2), ((2, 3), (1, 1))),
        ((40, 3), (CHAIN_CHUNKS[2], 1), ((2, 3), (0, 0))),
        ((40, 45), (1, 45), ((1, 1), (0, 0))),
        ((40, 45), (2, (20, 25)), ((2, 0), (0, 2))),
        ((6, 9, 7), (2, 4, 3), ((1, 2), (2, 1), (1, 1))),
        ((40, 1), (CHAIN_CHUNKS[3], 1), ((2, 2), (0, 0))),
        ((40, 1), (CHAIN_CHUNKS[3], 1), ((2, 2), (1, 0))),
        ((40, 1, 1), (5, 1, 1), ((1, 1), (0, 0), (0, 3))),
    ]:
        for _ in range(2):
            x = special_values(rng, dt, shape)
            compare(x, chunks, widths, mode)
            compare(x, chunks, widths, mode, stat_length=((7, 30),))


def test_mean_of_negative_zeros() -> None:
    """numpy's sum starts from +0.0: the mean of a column of -0.0 is +0.0; a maximum
    of -0.0 then +0.0 keeps the first."""
    for dtype in ("f2", "f4", "f8", "c16"):
        x = np.full((6, 3), -0.0, dtype=dtype)
        for chunks in (1, 2, 6):
            compare(x, (chunks, 3), ((2, 1), (0, 0)), "mean")
    x = np.array([[-0.0, 0.0], [0.0, -0.0], [0.0, 0.0]])
    for chunks in (1, 2, 3):
        for mode in ("maximum", "minimum"):
            compare(x, (chunks, 2), ((1, 1), (0, 0)), mode)


def test_integer_mean_rounding() -> None:
    """Integer means are float64 sums divided by the count, rounded half to even, as
    numpy.pad rounds them: halves up and down, negative halves, int64 values beyond
    float64's integers, booleans (cast, not rounded)."""
    halves = np.array([[1, 2, -1, -2, 7], [2, 3, -2, -3, 8]], dtype=np.int8)
    big = np.array([[2**62 + 1, -(2**62) - 3], [2**62 + 7, 5], [1, -(2**53) - 1]],
                   dtype=np.int64)
    flags = np.array([[True, False, True], [False, False, True], [True, False, False]])
    for x in (halves, halves.astype(np.int64), big, flags, np.abs(halves).astype(np.uint8)):
        for chunks in (1, 2):
            compare(x, (chunks, 2), ((2, 1), (0, 1)), "mean")
            compare(x, (chunks, 2), ((1, 1), (0, 0)), "mean", stat_length=1)


@pytest.mark.parametrize("mode", STAT_MODES)
def test_row_slabs(mode: str, monkeypatch: Any) -> None:
    """Whole-line statistics of a row of blocks concatenated a few lines at a time
    (tiny slabs): the same values as numpy's, pairwise sums included, for lines
    contiguous and strided, a median down the columns, and NaNs and signed zeros."""
    monkeypatch.setattr(dask_walk, "_SLAB_BYTES", 100)
    rng = np.random.default_rng(8)
    hard = values(rng, np.dtype("f4"), (7, 5, 300), hard=True)
    special = special_values(rng, np.dtype("f8"), (9, 40))
    for x, chunks, widths in [
        (hard, (3, 2, (100, 50, 150)), ((1, 2), (2, 1), (3, 2))),
        (hard[:, :1], (2, 1, 70), ((1, 1), (2, 0), (0, 0))),
        (hard[:, :1, :1], (3, 1, 1), ((2, 1), (0, 0), (0, 2))),
        (special, (2, (11, 29)), ((1, 1), (2, 3))),
    ]:
        compare(x, chunks, widths, mode)
        compare(x, chunks, widths, mode, stat_length=((3, 4),))


@pytest.mark.parametrize("mode", STAT_MODES)
def test_stat_graph(mode: str) -> None:
    """The statistics make no rechunked copy of the array, nor of the faces: the
    output is one layer of windowed kernel calls (mode 'edge') on the array wrapped
    in its faces. The statistics of every axis are one walk over the rows of blocks
    along the last axis (whose lines numpy sums pairwise): each input block is read by
    one walk step, which also receives at most one earlier step per axis that numpy
    reduces line after line (axes 0 and 1 here, whose accumulators it passes on);
    median takes whole lines on every axis, axes 0 and 1 in tasks of their own, each
    axis on a read of the array of its own (a block read for the three axes would be
    held until the last of them runs). The graph grows with the number of blocks."""
    from dask.core import get_dependencies
    from dask.utils import key_split

    x = values(np.random.default_rng(2), np.dtype("f8"), (12, 10, 8), hard=True)
    dx = da.from_array(x, chunks=(3, 4, 5))
    y = ndask.pad(dx, 2, mode)
    assert_same_array(y.compute(), numpy_pad(x, 2, mode), layout=False)
    graph = dict(y.__dask_graph__())
    layers = y.__dask_graph__().layers
    assert y.name.startswith("ndpad-pad-"), y.name
    assert all(type(graph[k][0]).__name__ == "_Block" for k in graph if k[0] == y.name)
    assert not [name for name in layers if name.startswith("rechunk")], list(layers)

    def kind(key):
        task = graph[key]
        if isinstance(task, tuple) and type(task[0]).__name__ == "_WalkStep":
            return "step"
        return "lines" if key[0].startswith("ndpad-stat-lines") else None

    steps = [k for k in graph if kind(k) == "step"]
    lines = [k for k in graph if kind(k) == "lines"]
    assert steps
    for key in steps:
        deps = get_dependencies(graph, key)
        earlier = [d for d in deps if kind(d) == "step"]
        assert len(earlier) <= (0 if mode == "median" else 2), (key, deps)
        blocks = [d for d in deps if d[0] == dx.name]
        assert len(blocks) in (0, dx.numblocks[2]), (key, deps)  # a row along axis 2
    for key in lines:
        assert len(get_dependencies(graph, key)) <= max(y.numblocks), key
    readers: dict = {}  # each block, of the array or of a read of it of its own
    for key in steps + lines:
        for d in get_dependencies(graph, key):
            if key_split(d[0]) == key_split(dx.name):
                readers.setdefault(d, []).append(kind(key))
    assert all(len(kinds) == 1 for kinds in readers.values()), readers
    by_index: dict = {}
    for block, kinds in readers.items():
        by_index.setdefault(block[1:], []).extend(kinds)
    assert len(by_index) == np.prod(dx.numblocks)
    for index, kinds in by_index.items():
        want = ["lines", "lines", "step"] if mode == "median" else ["step"]
        assert sorted(kinds) == want, (index, kinds)
    assert len(steps) + len(lines) <= 2 * x.ndim * np.prod(y.numblocks)
    assert len(graph) <= 20 * np.prod(y.numblocks)


@pytest.mark.parametrize("mode", STAT_MODES)
@pytest.mark.parametrize("stat_length", [None, 3])
def test_stat_output_reads_after_the_statistics(mode: str, stat_length: Any) -> None:
    """The output chunks do not read the blocks the statistics read: every block an
    output chunk (or a slab of one) reads is of a second read of the array, which waits
    for every statistic (walk step and whole-line task), so that dask frees it once
    its output chunks are done instead of holding it until the statistics of whole
    lines end. The original blocks are read by the statistics only."""
    from dask.core import get_dependencies

    x = values(np.random.default_rng(3), np.dtype("f8"), (12, 10, 8), hard=True)
    dx = da.from_array(x, chunks=(3, 4, 5))
    kwargs = {} if stat_length is None else {"stat_length": stat_length}
    y = ndask.pad(dx, ((2, 1), (0, 2), (1, 1)), mode, **kwargs)
    assert_same_array(y.compute(), numpy_pad(x, ((2, 1), (0, 2), (1, 1)), mode, **kwargs),
                      layout=False)
    graph = dict(y.__dask_graph__())
    originals = {key for key in graph if key[0] == dx.name}
    assert len(originals) == np.prod(dx.numblocks)
    statistics = {key for key in graph
                  if (isinstance(graph[key], tuple)
                      and type(graph[key][0]).__name__ == "_WalkStep")
                  or str(key[0]).startswith("ndpad-stat-lines")}
    assert statistics
    ancestors: dict = {}

    def before(key):
        if key not in ancestors:
            found = set()
            for d in get_dependencies(graph, key):
                found |= {d} | before(d)
            ancestors[key] = found
        return ancestors[key]

    read = set()
    for key in (k for k in graph if k[0] == y.name):
        for d in through_slabs(graph, key):
            assert d not in originals, (key, d)
            assert statistics <= before(d), (key, d)
            read.add(d)
    assert read
    for block in originals:
        for key in graph:
            if block in get_dependencies(graph, key):
                assert key in statistics or key[0].startswith("getitem"), (block, key)


def peak_held_bytes(array: Any) -> int:
    """The most bytes of numpy arrays that dask's synchronous scheduler holds at once
    computing ``array`` (stored into a zarr array in memory, as ``to_zarr`` does):
    dask's own order of the tasks, no timing involved."""
    zarr = pytest.importorskip("zarr")
    from dask.callbacks import Callback

    class Peak(Callback):
        peak = 0

        def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, id: Any) -> None:
            held = sum(v.nbytes for v in state["cache"].values()
                       if isinstance(v, np.ndarray))
            self.peak = max(self.peak, held)

    with Peak() as peak, dask.config.set(scheduler="sync"):
        array.to_zarr(zarr.storage.MemoryStore())
    return peak.peak


@pytest.mark.parametrize("mode", STAT_MODES)
def test_stat_modes_hold_what_the_index_modes_hold(mode: str) -> None:
    """The statistic modes hold about what the index modes hold (the windowed layer's
    front), not the array: 5^3 blocks padded by 2 (bench/scale.py's layout, scaled
    down). Before the second read, mean held 54% of the array (edge 16%), median
    131%."""
    x = da.random.default_rng(0).random((160, 160, 160), chunks=32, dtype=np.float32)
    edge = peak_held_bytes(ndask.pad(x, 2, "edge"))
    held = peak_held_bytes(ndask.pad(x, 2, mode))
    assert held <= max(1.5 * edge, 0.3 * x.nbytes), (held / x.nbytes, edge / x.nbytes)


# ---------------------------------------------------------------------------
# The graph and the chunks
# ---------------------------------------------------------------------------


def axis_map(n: int, pair: Tuple[int, int], mode: str) -> np.ndarray:
    """The input index each output position of one axis reads (-1: a constant)."""
    if mode == "constant":
        return ndpad.pad(np.arange(n), [pair], constant_values=-1)
    return ndpad.pad(np.arange(n), [pair], mode)


def check_dependencies(x: np.ndarray, dx: Any, y: Any, widths: Any, mode: str,
                       most: int) -> None:
    """Every output task of ``y`` depends on exactly the input blocks that hold an
    element it reads, on at most ``most`` of them, never on every input block; the
    layer's tasks are one per output chunk."""
    from dask.core import get_dependencies

    assert_same_array(y.compute(), numpy_pad(x, widths, mode), layout=False)
    graph = dict(y.__dask_graph__())
    maps = [axis_map(n, pair, mode) for n, pair in zip(x.shape, widths)]
    bounds = [np.cumsum((0,) + c) for c in dx.chunks]
    inputs = {key for key in graph if key[0] == dx.name}
    ours = [key for key in graph if key[0] == y.name]
    assert len(ours) == np.prod(y.numblocks)
    for key in ours:
        needed: List[List[int]] = []
        for k, j in enumerate(key[1:]):
            start = int(sum(y.chunks[k][:j]))
            read = maps[k][start:start + y.chunks[k][j]]
            read = read[read >= 0]
            needed.append(sorted({int(np.searchsorted(bounds[k], i, side="right")) - 1
                                  for i in read}))
        want = {(dx.name,) + idx for idx in itertools.product(*needed)}
        got = {d for d in through_slabs(graph, key) if d in inputs}
        assert got == want, (key, got, want)
        assert len(got) <= most and len(got) < len(inputs), (key, len(got))


def through_slabs(graph, key) -> set:
    """The dependencies of ``key``, with each slab task (a copy of part of an input
    block) replaced by the block it copies."""
    from dask.core import get_dependencies

    deps = set()
    for d in get_dependencies(graph, key):
        if isinstance(d, tuple) and str(d[0]).startswith("ndpad-slab-"):
            deps |= get_dependencies(graph, d)
        else:
            deps.add(d)
    return deps


@pytest.mark.parametrize("mode", ["wrap", "reflect", "constant", "edge", "symmetric"])
def test_each_chunk_reads_only_the_blocks_it_needs(mode: str) -> None:
    """Regular output chunks across pad / data boundaries and folds: each task reads
    the input blocks of what it reads, no other."""
    x = np.arange(15 * 8).reshape(15, 8)
    dx = da.from_array(x, chunks=((4, 4, 4, 3), (3, 5)))
    widths = [(9, 20), (2, 7)]
    y = ndask.pad(dx, widths, mode)
    assert y.chunks == ((4,) * 11, (5, 5, 5, 2))
    check_dependencies(x, dx, y, widths, mode, most=8)


def test_wrap_seam_reads_both_ends_only() -> None:
    """A wrap chunk across the seam of an axis of many input chunks reads the blocks
    at both ends of the axis, not the ones between; its task holds only what it
    reads."""
    x = np.arange(100 * 30).reshape(100, 30)
    dx = da.from_array(x, chunks=(10, 3))
    widths = [(5, 5), (3, 3)]
    y = ndask.pad(dx, widths, "wrap")
    assert y.chunks == ((10,) * 11, (3,) * 12)
    check_dependencies(x, dx, y, widths, "wrap", most=4)
    # The seam chunk of axis 0 reads input rows 95..99 and 0..4: blocks 9 and 0.
    from dask.core import get_dependencies
    graph = dict(y.__dask_graph__())
    deps = through_slabs(graph, (y.name, 0, 5))
    assert deps == {(dx.name, 9, 4), (dx.name, 0, 4)}
    # It reads half of each block: it receives copies of those rows (slabs), so the
    # blocks are not held for it.
    direct = get_dependencies(graph, (y.name, 0, 5))
    assert all(str(d[0]).startswith("ndpad-slab-") for d in direct), direct
    # Its compact input is 10 x 3 elements (what the box reads), not 100 x 3.
    task = y.__dask_graph__()[(y.name, 0, 5)]
    block = task[0] if isinstance(task, tuple) else task.func  # the _Block
    window, reads = block.plan.spec().window_reads(block.received.box)
    assert reads[0] == [(0, 5), (95, 100)] and reads[1] == [(12, 15)]


@pytest.mark.parametrize("mode", ["wrap", "reflect", "symmetric"])
def test_wide_folds_many_chunks(mode: str) -> None:
    """Pads wider than the axis, many input chunks: each regular chunk still reads only
    its blocks."""
    x = np.arange(23)
    dx = da.from_array(x, chunks=3)
    widths = [(40, 31)]
    check_dependencies(x, dx, ndask.pad(dx, widths, mode), widths, mode, most=3)


def test_chunks_are_regular() -> None:
    """Every mode: as few chunks as the largest input chunk allows, of one size from
    output coordinate 0 but the last (the pad and data boundaries, folds and input
    chunk edges do not cut them), each computed by the windowed kernel (one layer of
    ``_Block`` tasks, no rechunk at the end)."""
    dx = da.zeros((10, 7), chunks=((4, 6), (2, 2, 3)))
    for mode in INDEX_MODES + STAT_MODES + ["linear_ramp"]:
        y = ndask.pad(dx, ((13, 2), (0, 5)), mode)
        assert y.chunks == ((5, 5, 5, 5, 5), (3, 3, 3, 3)), mode
        graph = y.__dask_graph__()
        assert {type(graph[k][0]).__name__ for k in graph if k[0] == y.name} == {"_Block"}, mode
    y = ndask.pad(dx, ((0, 0), (9, 0)), "reflect")
    assert y.chunks == ((5, 5), (3, 3, 3, 3, 3, 1))  # an unpadded axis too
    y = ndask.pad(dx, ((1, 2), (3, 0)), "reflect", reflect_type="odd")
    assert y.chunks == ((5, 5, 3), (3, 3, 3, 1))
    y = ndask.pad(dx, 1, interior=2)
    assert y.chunks == ((6,) * 5, (3,) * 7)  # 10 + 9 * 2 + 2, 7 + 6 * 2 + 2
    y = ndask.pad(dx, ((2, 1), (3, 3)), ["mean", "wrap"])
    assert y.chunks == ((5, 5, 3), (3, 3, 3, 3, 1))
    y = ndask.pad(da.zeros((0, 4), chunks=2), ((3, 4), (0, 0)))
    assert y.chunks == ((7,), (2, 2))
    # The scale benchmark's axis: 6 chunks of 219 rather than 5 of 256 and one of 32.
    y = ndask.pad(da.zeros(1280, chunks=256), 16)
    assert y.chunks == ((219,) * 5 + (217,),)


@pytest.mark.parametrize("mode", ["edge", "constant", "reflect", "wrap", "mean",
                                  "linear_ramp"])
def test_tiny_input_chunks_no_graph_explosion(mode: str) -> None:
    """Issue #27: ``pad(da.arange(3000, chunks=1), 3 * 10**5, 'edge')`` made 603,000
    output chunks of one element (603k tasks, 25 s, 955 MB for a 4.8 MB result);
    under dask's default ``array.chunk-size`` (128 MiB) the output is one chunk, the
    graph about one task per input block, built and computed in well under a
    second each."""
    with dask.config.set({"array.chunk-size": "128MiB"}):
        x = da.arange(3000, chunks=1)
        start = time.perf_counter()
        y = ndask.pad(x, 3 * 10**5, mode)
        built = time.perf_counter() - start
        assert y.chunks == ((603000,),)
        tasks = len(y.__dask_graph__())
        assert tasks <= 3 * x.numblocks[0], tasks
        assert built < 5, built
        got = y.compute()
    assert time.perf_counter() - start < 20
    assert np.array_equal(got, numpy_pad(np.arange(3000), 3 * 10**5, mode))


def test_chunks_grow_to_dask_chunk_size() -> None:
    """Output chunks grow from the input's to ``array.chunk-size`` (all axes by one
    whole factor, an axis held at its extent), never past it; input chunks already
    larger, or more than half of it, are kept."""
    x = da.zeros((100, 100), dtype=np.float64, chunks=(1, 2))
    with dask.config.set({"array.chunk-size": "8KiB"}):  # 1024 float64
        y = ndask.pad(x, 10, "edge")
        assert y.chunks == ((20,) * 6, (40,) * 3)  # units 22 x 44: 968 elements
    with dask.config.set({"array.chunk-size": "1MiB"}):  # 120 x 120 < 131072
        assert ndask.pad(x, 10, "wrap").chunks == ((120,), (120,))
    with dask.config.set({"array.chunk-size": "100KiB"}):  # axis 0 at its extent
        y = ndask.pad(da.zeros((3, 10**6), chunks=(1, 10)), ((0, 0), (5, 5)))
        assert y.chunks[0] == (3,) and max(y.chunks[1]) <= 100 * 1024 // 24
    with dask.config.set({"array.chunk-size": "1KiB"}):  # larger input chunks kept
        y = ndask.pad(da.zeros((1000, 10), chunks=(500, 5)), 3, "reflect")
        assert y.chunks == ((336, 336, 334), (4, 4, 4, 4))
    with dask.config.set({"array.chunk-size": "128MiB"}):  # 64 MiB blocks: kept
        y = ndask.pad(da.zeros((1280,) * 3, dtype=np.float32, chunks=256), 16)
        assert y.chunks == ((219,) * 5 + (217,),) * 3


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_grown_chunks_property(data: st.DataObject) -> None:
    """Under any ``array.chunk-size``: numpy.pad's values, regular chunks, never more
    chunks along an axis than the input's largest chunk gives, no block larger than
    the chunk size or the input's largest block (the larger), and none much smaller
    than it where the output has several."""
    x, chunks = data.draw(cases(NUMERIC[:8] + [np.dtype("U3"), np.dtype("O")]))
    pad_width = widths_for(data.draw, x.shape)
    modes = INDEX_MODES + ([] if x.dtype.kind in "OU" else ["mean", "linear_ramp"])
    mode = data.draw(st.sampled_from(modes))
    limit = data.draw(st.integers(1, 4096), label="array.chunk-size")
    with dask.config.set({"array.chunk-size": limit}):
        compare(x, chunks, pad_width, mode)
        y, exc = run(ndask.pad, da.from_array(x, chunks=chunks), pad_width, mode)
    if exc is not None:
        return  # compared with numpy's exception above
    itemsize = 8 if x.dtype.hasobject else x.dtype.itemsize
    dx = da.from_array(x, chunks=chunks)
    if x.ndim and not any(b or a for b, a in normalize_widths(pad_width, x.ndim, True)):
        assert y.chunks == dx.chunks  # x itself (test_pad_of_zero_is_x_itself)
        return
    block = 1
    in_block = 1
    for k, got in enumerate(y.chunks):
        extent = y.shape[k]
        assert sum(got) == extent
        if extent == 0:
            assert got == (0,)
            continue
        assert set(got[:-1]) <= {got[0]} and 0 <= got[0] - got[-1] < len(got), (k, got)
        largest = max(dx.chunks[k])
        if largest == 0:  # an empty axis padded: one chunk, the pads
            assert got == (extent,)
        else:
            assert len(got) <= -(-extent // largest), (k, got, dx.chunks[k])
        block *= max(got)
        in_block *= extent if largest == 0 else min(largest, extent)
    if y.size:
        assert itemsize * block <= max(limit, itemsize * in_block), (y.chunks, limit)
        if any(len(c) > 1 for c in y.chunks):
            assert itemsize * block * 4**x.ndim >= min(limit, itemsize * in_block)


def test_to_zarr_without_rechunk_warning(tmp_path: Any) -> None:
    """``to_zarr`` takes the output as it is: no "irregular chunk sizes" warning (an
    error here), the same values."""
    pytest.importorskip("zarr")
    import warnings

    x = np.arange(37 * 11, dtype=np.int32).reshape(37, 11)
    dx = da.from_array(x, chunks=((5, 8, 8, 8, 8), (4, 4, 3)))
    for mode in ("wrap", "reflect", "constant", "mean"):
        y = ndask.pad(dx, ((16, 3), (7, 16)), mode)
        path = str(tmp_path / f"{mode}.zarr")
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            y.to_zarr(path)
        got = da.from_zarr(path).compute()
        assert_same_array(got, numpy_pad(x, ((16, 3), (7, 16)), mode), layout=False)


# ---------------------------------------------------------------------------
# chunks=
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode, kwargs", [
    ("constant", {}), ("constant", {"constant_values": 3}), ("edge", {}), ("wrap", {}),
    ("reflect", {"reflect_type": "odd"}), ("symmetric", {}), ("empty", {}),
    ("linear_ramp", {"end_values": 2}), ("mean", {"stat_length": 1}), ("maximum", {}),
    ("median", {}), ("minimum", {}), (["edge", "wrap"], {}),
])
@pytest.mark.parametrize("chunks", ["auto", "input", None])
def test_pad_of_zero_is_x_itself(mode: Any, kwargs: Dict[str, Any], chunks: Any) -> None:
    """As ``dask.array.pad``: nothing padded, ``x`` itself (irregular chunks kept)."""
    x = da.arange(30, chunks=(3, 7, 20)).reshape(5, 6)
    assert da.pad(x, 0, mode="edge") is x
    for width in (0, ((0, 0), (0, 0)), {1: 0}):
        assert ndask.pad(x, width, mode, chunks=chunks, **kwargs) is x
    assert ndask.pad(x, 0, "constant", interior=0, negative_pads="crop_first",
                     chunks=chunks) is x
    assert ndpad.pad(x, 0, mode, **kwargs) is x  # dispatched to ndpad.dask.pad


def test_pad_of_zero_still_checks_its_arguments() -> None:
    x = da.arange(6, chunks=4)
    for kwargs, exc, message in [
        ({"mode": "reflekt"}, ValueError, "mode 'reflekt' is not supported"),
        ({"mode": "edge", "constant_values": 1}, ValueError,
         "unsupported keyword arguments for mode 'edge': {'constant_values'}"),
        ({"mode": "maximum", "stat_length": 0}, ValueError,
         "stat_length of 0 yields no value for padding"),
        ({"chunks": (4, 4)}, ValueError, "Chunks do not add up to shape"),
    ]:
        with pytest.raises(exc, match=re.escape(message)):
            ndask.pad(x, 0, **kwargs)


def test_pad_of_zero_with_explicit_chunks_rechunks_x() -> None:
    x = da.arange(12, chunks=5)
    assert ndask.pad(x, 0, chunks=x.chunks) is x
    y = ndask.pad(x, 0, chunks=4)
    assert y.chunks == ((4, 4, 4),)
    np.testing.assert_array_equal(y.compute(), np.arange(12))


def test_chunks_input_keeps_the_input_layout() -> None:
    """Unpadded axes keep their chunks; padded axes are cut in the input's chunk size
    from output coordinate 0 (a zarr store of the input's chunk shape)."""
    x = np.arange(37 * 11 * 4, dtype=np.int32).reshape(37, 11, 4)
    dx = da.from_array(x, chunks=((8, 8, 8, 8, 5), (4, 4, 3), (1, 3)))
    for mode, kwargs in [("wrap", {}), ("constant", {"constant_values": 7}),
                         ("mean", {}), ("linear_ramp", {}),
                         ("reflect", {"reflect_type": "odd"})]:
        y = ndask.pad(dx, ((16, 3), (7, 16), (0, 0)), mode, chunks="input", **kwargs)
        assert y.chunks == ((8,) * 7, (4,) * 8 + (2,), (1, 3)), mode
        assert_same_array(y.compute(), numpy_pad(x, ((16, 3), (7, 16), (0, 0)), mode,
                                                 **kwargs), layout=False)
    with dask.config.set({"array.chunk-size": "128MiB"}):  # not grown, unlike 'auto'
        y = ndask.pad(dx, 1, chunks=None)
        assert y.chunks == ((8,) * 4 + (7,), (4, 4, 4, 1), (3, 3))
        assert ndask.pad(dx, 1).chunks != y.chunks


def test_chunks_input_to_zarr_of_the_input_chunk_shape(tmp_path: Any) -> None:
    zarr = pytest.importorskip("zarr")
    x = np.arange(50 * 30, dtype=np.float32).reshape(50, 30)
    store = zarr.create_array(str(tmp_path / "in.zarr"), shape=x.shape, chunks=(16, 8),
                              dtype=x.dtype)
    store[...] = x
    dx = da.from_zarr(str(tmp_path / "in.zarr"))
    y = ndask.pad(dx, ((5, 5), (0, 3)), "edge", chunks="input")
    out = zarr.create_array(str(tmp_path / "out.zarr"), shape=y.shape, chunks=(16, 8),
                            dtype=x.dtype)
    y.store(out, lock=False)  # dask refuses chunks that straddle the store's
    np.testing.assert_array_equal(out[...], np.pad(x, ((5, 5), (0, 3)), "edge"))


@pytest.mark.parametrize("chunks, expected", [
    (4, ((4, 4, 4, 1), (4, 4, 2))),
    ((5, 3), ((5, 5, 3), (3, 3, 3, 1))),
    (((2, 11), (10,)), ((2, 11), (10,))),
    ({1: 5}, None),  # axis 0: the 'auto' chunks
    ({0: -1, -1: None}, None),
    ((-1, "auto"), ((13,), None)),
    ("40B", None),
])
def test_explicit_chunks(chunks: Any, expected: Any) -> None:
    """Exactly the chunks asked for, as dask's normalize_chunks reads them against the
    output shape (a dict's missing or None axes: the 'auto' chunks), cut by the
    windowed layer itself in the index modes (no rechunk layer)."""
    from dask.array.core import normalize_chunks

    x = np.arange(8 * 6, dtype=np.int64).reshape(8, 6)
    dx = da.from_array(x, chunks=(3, 4))
    auto = ndask.pad(dx, ((2, 3), (1, 3))).chunks
    if isinstance(chunks, dict):
        spec = tuple(auto[k] if chunks.get(k, chunks.get(k - 2)) is None
                     else chunks.get(k, chunks.get(k - 2)) for k in range(2))
    else:
        spec = chunks
    want_chunks = normalize_chunks(spec, (13, 10), dtype=x.dtype, previous_chunks=auto)
    if expected is not None:
        assert all(e is None or w == e for w, e in zip(want_chunks, expected))
    for mode, kwargs in [("constant", {"constant_values": (1, 2)}), ("wrap", {}),
                         ("maximum", {"stat_length": 2}), ("linear_ramp", {}),
                         ("symmetric", {"reflect_type": "odd"}), (["edge", "reflect"], {})]:
        y = ndask.pad(dx, ((2, 3), (1, 3)), mode, chunks=chunks, **kwargs)
        assert y.chunks == want_chunks, mode
        if mode in ("constant", "wrap"):
            assert not [k for k in y.dask.layers if k.startswith("rechunk")]
        reference = ndpad.pad if isinstance(mode, list) else numpy_pad
        assert_same_array(y.compute(), reference(x, ((2, 3), (1, 3)), mode, **kwargs),
                          layout=False)


def test_differently_chunked_pads_are_different_graphs() -> None:
    """The output chunks are part of the graph's name: two pads of one array in two
    chunkings computed together stay distinct."""
    x = da.arange(20, chunks=6)
    a = ndask.pad(x, 3, "wrap", chunks=5)
    b = ndask.pad(x, 3, "wrap", chunks=7)
    assert a.name != b.name
    got_a, got_b = dask.compute(a, b)
    want = np.pad(np.arange(20), 3, "wrap")
    np.testing.assert_array_equal(got_a, want)
    np.testing.assert_array_equal(got_b, want)


@settings(max_examples=examples(40))
@given(data=st.data())
def test_chunks_property(data: st.DataObject) -> None:
    """Random arrays, chunks, pads, modes and chunks= values: numpy.pad's values in
    the chunks asked for."""
    x, in_chunks = data.draw(cases(NUMERIC[:8]))
    if x.ndim == 0:
        return
    mode = data.draw(st.sampled_from(INDEX_MODES + STAT_MODES + ["linear_ramp"]))
    widths = data.draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)),
                                min_size=x.ndim, max_size=x.ndim))
    out_shape = tuple(n + b + a for n, (b, a) in zip(x.shape, widths))
    chunks = data.draw(st.one_of(
        st.sampled_from(["auto", "input", None]),
        st.tuples(*(st.integers(1, max(n, 1)) for n in out_shape))))
    dx = da.from_array(x, chunks=in_chunks)
    want, want_exc = run(numpy_pad, x, widths, mode)
    y, exc = run(ndask.pad, dx, widths, mode, chunks=chunks)
    if want_exc is not None:
        assert exc is not None and isinstance(exc, type(want_exc))
        return
    assert exc is None, exc
    if isinstance(chunks, tuple):
        assert y.chunks == tuple(tuple(_split_all(n, c)) for n, c in zip(out_shape, chunks))
    elif not any(b or a for b, a in widths):
        assert y is dx
    elif chunks != "auto":
        for k, (b, a) in enumerate(widths):
            if (b, a) == (0, 0):
                assert y.chunks[k] == dx.chunks[k]
            else:
                unit = max(dx.chunks[k]) or out_shape[k]
                assert y.chunks[k] == tuple(_split_all(out_shape[k], unit)), (k, y.chunks)
    got = y.compute()
    if mode == "empty":
        want = ndpad.pad(x, widths, mode)
    assert_same_array(got, want, layout=False)


def _split_all(n: int, unit: int) -> List[int]:
    """``n`` in pieces of ``unit``, the last shorter; (0,) for 0."""
    return [unit] * (n // unit) + ([n % unit] if n % unit else []) or [0]


def test_docstring_example() -> None:
    import doctest

    failures, tried = doctest.testmod(ndask, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried and not failures


def test_import_ndpad_does_not_import_dask() -> None:
    code = "import sys, ndpad; assert 'dask' not in sys.modules; import ndpad.dask"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------
# A distributed cluster of processes
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


DISTRIBUTED_CASES = [
    (np.arange(35, dtype=np.float32).reshape(5, 7), ((2, 3), (1, 6)), ((7, 1), (12, 0)),
     "reflect", {}),
    (np.arange(12).reshape(3, 4), ((1, 2), (4,)), 2, "constant",
     {"constant_values": ((1, 2), (3, 4))}),
    (np.arange(20.0).reshape(4, 5) ** 1.5, ((1, 3), (2, 3)), ((3, 2), (1, 4)), "mean",
     {"stat_length": 2}),
    (np.arange(9).reshape(3, 3), ((1, 2), (3,)), 2, "median", {}),
    (np.arange(9).reshape(3, 3), ((1, 2), (3,)), 3, "linear_ramp", {"end_values": 5}),
    (np.arange(9).reshape(3, 3), ((1, 2), (3,)), 2, "symmetric", {"reflect_type": "odd"}),
    (np.array([["a", None], [3, 4.5]], dtype=object), (1, 1), 3, "wrap", {}),
]


def test_distributed(cluster_client: Any) -> None:
    """A few cases on a LocalCluster of two worker processes (tasks pickled)."""
    for x, chunks, widths, mode, kwargs in DISTRIBUTED_CASES:
        compare(x, chunks, widths, mode, scheduler=cluster_client.get, **kwargs)
    x = np.arange(24, dtype=np.int16).reshape(4, 6)
    for policy in ("crop_first", "original_index"):
        compare(x, (3, 4), ((-1, 3), (5, -2)), "wrap", reference=ndpad.pad,
                negative_pads=policy, scheduler=cluster_client.get)
    compare(x, (1, 4), 2, "constant", reference=ndpad.pad, interior=(1, 2),
            constant_values=9, scheduler=cluster_client.get)
