"""``ndpad.pad`` dispatches as ``numpy.pad`` does (NEP 18 ``__array_function__``): dask
arrays to ``ndpad.dask.pad`` (lazy), pint and astropy quantities and any other type
that overrides ``__array_function__`` to their own ``numpy.pad`` handling; xarray
objects (which do not override it) converted as numpy converts them, and padded
through ``numpy.pad = ndpad.pad`` when backed by dask or pint. Each result is
``numpy.pad``'s; ndpad's own keywords are a TypeError where the other
implementation cannot take them."""

from __future__ import annotations

import inspect
import re
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ndpad
from _helpers import examples, run


def outcome(func: Any, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)``'s result, or the exception it raised."""
    result, exc = run(func, *args, **kwargs)
    return result if exc is None else exc

MODES = ["constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
         "reflect", "symmetric", "wrap"]


def _widths() -> st.SearchStrategy:
    return st.one_of(st.integers(0, 4), st.tuples(st.integers(0, 4), st.integers(0, 4)))


# ---------------------------------------------------------------------------
# Custom __array_function__ types: numpy's protocol, exactly
# ---------------------------------------------------------------------------


class Recorder:
    """An array type that pads itself: records what ``numpy.pad``'s protocol hands it."""

    calls: List[Tuple[Any, Tuple[type, ...], tuple, Dict[str, Any]]] = []

    def __array_function__(self, func, types, args, kwargs):
        Recorder.calls.append((func, tuple(types), args, kwargs))
        return ("padded", self)


class Declines:
    """An array type whose ``__array_function__`` implements nothing."""

    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented


class OwnSubclass(np.ndarray):
    """An ndarray subclass with its own ``__array_function__``: padded as itself."""

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, types, args, kwargs)
        return ("own", result.view(np.ndarray))


class PlainSubclass(np.ndarray):
    """An ndarray subclass that does not override ``__array_function__``."""


def _recorded(call) -> List[Tuple[Any, Tuple[type, ...], Dict[str, Any]]]:
    """The calls of ``Recorder.__array_function__`` that ``call`` makes: the function,
    the types, and the arguments bound to ``numpy.pad``'s parameters (defaults
    applied: ``mode`` is handed on positionally, given or not)."""
    Recorder.calls.clear()
    result = call()
    assert result[0] == "padded"
    signature = inspect.signature(np.pad)
    calls = []
    for func, types, args, kwargs in Recorder.calls:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append((func, types, dict(bound.arguments)))
    return calls


@pytest.mark.parametrize("args, kwargs", [
    ((1,), {}),
    (((1, 2),), {"mode": "edge"}),
    (((1, 2), "reflect"), {"reflect_type": "odd"}),
    ((2,), {"mode": "constant", "constant_values": 7}),
    ((2,), {"treads": 2}),  # numpy hands unknown keywords on: so does ndpad
])
def test_custom_type_gets_numpy_pads_call(args: tuple, kwargs: Dict[str, Any]) -> None:
    obj = Recorder()
    got = _recorded(lambda: ndpad.pad(obj, *args, **kwargs))
    want = _recorded(lambda: np.pad(obj, *args, **kwargs))
    assert got == want
    [(func, types, arguments)] = got
    assert func is np.pad and types == (Recorder,) and arguments["array"] is obj


def test_custom_type_declining_is_numpys_type_error() -> None:
    got, want = outcome(ndpad.pad, Declines(), 1), outcome(np.pad, Declines(), 1)
    assert isinstance(got, TypeError) and isinstance(want, TypeError)
    assert str(got) == str(want)
    assert "no implementation found for 'numpy.pad'" in str(got)


def test_subclass_overriding_is_dispatched() -> None:
    a = np.arange(4.0).view(OwnSubclass)
    got = ndpad.pad(a, 2, mode="wrap")
    want = np.pad(a, 2, mode="wrap")
    assert got[0] == want[0] == "own"
    np.testing.assert_array_equal(got[1], want[1])


def test_subclass_not_overriding_is_converted_as_numpy_does() -> None:
    a = np.arange(4.0).view(PlainSubclass)
    got, want = ndpad.pad(a, 2, mode="edge"), np.pad(a, 2, mode="edge")
    assert type(got) is type(want) is np.ndarray
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kwargs, named", [
    ({"threads": 2}, "threads="),
    ({"out": np.zeros(5)}, "out="),
    ({"negative_pads": "crop_first"}, "negative_pads="),
    ({"interior": 1}, "interior="),
    ({"threads": 1, "interior": [1]}, "interior=, threads="),
])
def test_ndpad_keywords_refused_for_other_implementations(kwargs: Dict[str, Any],
                                                          named: str) -> None:
    Recorder.calls.clear()
    with pytest.raises(TypeError, match=re.escape(
            "ndpad.pad hands a test_dispatch.Recorder to its own implementation of "
            "numpy.pad (its type defines __array_function__), which takes numpy.pad's "
            f"arguments only, not {named}")):
        ndpad.pad(Recorder(), 1, **kwargs)
    assert not Recorder.calls


def test_mode_sequence_refused_for_other_implementations() -> None:
    with pytest.raises(TypeError, match="not a sequence of modes$"):
        ndpad.pad(Recorder(), 1, mode=("edge",))


def test_numpy_pad_replaced_by_ndpad_pad_does_not_recurse(monkeypatch) -> None:
    """Users may set ``numpy.pad = ndpad.pad``: the other implementation is reached
    through numpy's own function, not the ``numpy.pad`` attribute."""
    monkeypatch.setattr(np, "pad", ndpad.pad)
    obj = Recorder()
    [(func, _, _)] = _recorded(lambda: ndpad.pad(obj, 1))
    assert func is not ndpad.pad and func.__name__ == "pad"


def test_plain_ndarrays_take_one_type_check(monkeypatch) -> None:
    """An ndarray (the common case) is never looked up for ``__array_function__``."""
    from ndpad import _numpy

    def refuse(array: Any) -> bool:
        raise AssertionError("looked up")

    monkeypatch.setattr(_numpy, "_overrides", refuse)
    assert ndpad.pad(np.arange(3), 1, mode="edge").tolist() == [0, 0, 1, 2, 2]
    with pytest.raises(AssertionError, match="looked up"):
        ndpad.pad([0, 1], 1)


def test_fast_path_array_likes_unchanged() -> None:
    assert ndpad.pad([1, 2], 1).tolist() == [0, 1, 2, 0]
    assert ndpad.pad(np.float32(3), 1).tolist() == 3.0
    assert ndpad.pad(np.ma.masked_array([1, 2]), 1, mode="edge").tolist() == [1, 1, 2, 2]


# ---------------------------------------------------------------------------
# dask
# ---------------------------------------------------------------------------


def test_dask_array_padded_lazily_by_ndpad_dask() -> None:
    da = pytest.importorskip("dask.array")
    computed = []

    def watch(block):
        computed.append(block.shape)
        return block

    x = da.arange(24, chunks=5).reshape(4, 6).map_blocks(watch, dtype=np.int64)
    for mode, kwargs in [("reflect", {}), ("constant", {"constant_values": (1, 2)}),
                         ("mean", {"stat_length": 2}), ("linear_ramp", {"end_values": 9})]:
        computed.clear()
        got = ndpad.pad(x, ((1, 2), (3, 0)), mode, **kwargs)
        assert isinstance(got, da.Array)
        assert got.name.startswith("ndpad-")
        if mode != "mean":  # the statistic modes probe a sample eagerly
            assert not computed
        want = np.pad(x, ((1, 2), (3, 0)), mode, **kwargs)
        assert isinstance(want, da.Array)
        np.testing.assert_array_equal(got.compute(), want.compute())
        assert got.dtype == want.dtype


def test_dask_array_takes_ndpad_keywords_but_out() -> None:
    da = pytest.importorskip("dask.array")
    x = da.arange(6, chunks=4)
    got = ndpad.pad(x, (-1, 2), "wrap", negative_pads="crop_first", threads=1)
    want = ndpad.pad(np.arange(6), (-1, 2), "wrap", negative_pads="crop_first")
    np.testing.assert_array_equal(got.compute(), want)
    got = ndpad.pad(x, 1, interior=1, constant_values=5)
    np.testing.assert_array_equal(got.compute(), ndpad.pad(np.arange(6), 1, interior=1,
                                                           constant_values=5))
    with pytest.raises(TypeError, match=re.escape(
            "out= is not available for a dask array: ndpad.pad hands it to "
            "ndpad.dask.pad, which returns a new lazy dask array")):
        ndpad.pad(x, 1, out=np.zeros(8, dtype=x.dtype))


def test_dask_array_errors_are_numpys() -> None:
    da = pytest.importorskip("dask.array")
    x = da.arange(6, chunks=4)
    for kwargs in ({"mode": "reflekt"}, {"mode": "edge", "constant_values": 1}):
        got, want = outcome(ndpad.pad, x, 1, **kwargs), outcome(np.pad, np.arange(6), 1, **kwargs)
        assert type(got) is type(want) and str(got) == str(want)


# ---------------------------------------------------------------------------
# pint, astropy
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ureg() -> Any:
    pint = pytest.importorskip("pint", reason="pint is not installed")
    return pint.UnitRegistry()


def _same_quantity(got: Any, want: Any) -> None:
    assert type(got) is type(want)
    if hasattr(want, "magnitude"):  # pint
        assert got.units == want.units
        magnitude, expected = got.magnitude, want.magnitude
    else:  # astropy
        assert got.unit == want.unit
        magnitude, expected = got.value, want.value
    np.testing.assert_array_equal(magnitude, expected)
    assert np.asarray(magnitude).dtype == np.asarray(expected).dtype


def test_pint_quantity_keeps_its_units(ureg: Any) -> None:
    q = np.arange(3.0) * ureg.m
    got = ndpad.pad(q, 1)
    _same_quantity(got, np.pad(q, 1))
    assert str(got.units) == "meter"
    got = ndpad.pad(q, (2, 3), constant_values=(0.0, 150 * ureg.cm))
    _same_quantity(got, np.pad(q, (2, 3), constant_values=(0.0, 150 * ureg.cm)))
    assert got.magnitude.tolist() == [0, 0, 0, 1, 2, 1.5, 1.5, 1.5]


def test_pint_errors_are_numpys(ureg: Any) -> None:
    q = np.arange(3.0) * ureg.m
    for kwargs in ({"constant_values": 1 * ureg.s}, {"mode": "reflekt"},
                   {"treads": 2}):
        got, want = outcome(ndpad.pad, q, 1, **kwargs), outcome(np.pad, q, 1, **kwargs)
        assert isinstance(want, Exception)
        assert type(got) is type(want) and str(got) == str(want)


@settings(max_examples=examples(40))
@given(mode=st.sampled_from(MODES), widths=_widths(), n=st.integers(1, 5))
def test_pint_every_mode_as_numpy(ureg: Any, mode: str, widths: Any, n: int) -> None:
    q = (np.arange(n, dtype=np.float64) ** 2 - 3) * ureg.kg
    got, want = outcome(ndpad.pad, q, widths, mode), outcome(np.pad, q, widths, mode)
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want)
    else:
        _same_quantity(got, want)


@pytest.fixture(scope="module")
def units() -> Any:
    return pytest.importorskip("astropy.units", reason="astropy is not installed")


def test_astropy_quantity_keeps_its_units(units: Any) -> None:
    q = np.arange(3.0) * units.m
    got = ndpad.pad(q, (2, 3), constant_values=(0.0, 150 * units.cm))
    want = np.pad(q, (2, 3), constant_values=(0.0, 150 * units.cm))
    _same_quantity(got, want)
    assert got.unit == units.m and got.value.tolist() == [0, 0, 0, 1, 2, 1.5, 1.5, 1.5]
    _same_quantity(ndpad.pad(q, 1, mode="edge"), np.pad(q, 1, mode="edge"))


@settings(max_examples=examples(40))
@given(mode=st.sampled_from(MODES), widths=_widths(), n=st.integers(1, 5))
def test_astropy_every_mode_as_numpy(units: Any, mode: str, widths: Any, n: int) -> None:
    q = (np.arange(n, dtype=np.float32) - 1.5) * units.s
    got, want = outcome(ndpad.pad, q, widths, mode), outcome(np.pad, q, widths, mode)
    if isinstance(want, Exception):
        assert type(got) is type(want) and str(got) == str(want)
    else:
        _same_quantity(got, want)


def test_astropy_unit_error_is_numpys(units: Any) -> None:
    q = np.arange(3.0) * units.m
    got = outcome(ndpad.pad, q, 1, constant_values=1 * units.s)
    want = outcome(np.pad, q, 1, constant_values=1 * units.s)
    assert isinstance(want, Exception)
    assert type(got) is type(want) and str(got) == str(want)


# ---------------------------------------------------------------------------
# xarray
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def xr() -> Any:
    return pytest.importorskip("xarray", reason="xarray is not installed")


def test_xarray_object_converted_as_numpy_does(xr: Any) -> None:
    d = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("y", "x"))
    got, want = ndpad.pad(d, 1, mode="symmetric"), np.pad(d, 1, mode="symmetric")
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


def _xarray_pad_through(monkeypatch, d: Any, **kwargs: Any) -> Tuple[Any, Any]:
    """``DataArray.pad`` with numpy's pad, then with ``numpy.pad = ndpad.pad`` (xarray
    calls ``numpy.pad`` on the data it holds)."""
    want = d.pad(**kwargs)
    with monkeypatch.context() as m:
        m.setattr(np, "pad", ndpad.pad)
        got = d.pad(**kwargs)
    return got, want


def test_xarray_backed_by_dask(xr: Any, monkeypatch) -> None:
    da = pytest.importorskip("dask.array")
    d = xr.DataArray(da.arange(12.0, chunks=5).reshape(3, 4), dims=("y", "x"))
    for kwargs in ({"x": (1, 2)}, {"y": 2, "mode": "reflect"}, {"x": 1, "mode": "mean"}):
        got, want = _xarray_pad_through(monkeypatch, d, **kwargs)
        assert isinstance(got.data, da.Array) and isinstance(want.data, da.Array)
        assert got.data.name.startswith("ndpad-")
        xr.testing.assert_identical(got.compute(), want.compute())


def test_xarray_backed_by_pint(xr: Any, ureg: Any, monkeypatch) -> None:
    d = xr.DataArray(np.arange(4.0) * ureg.m, dims="x")
    for kwargs in ({"x": (1, 2)}, {"x": 2, "mode": "edge"},
                   {"x": 1, "constant_values": 5 * ureg.cm}):
        got, want = _xarray_pad_through(monkeypatch, d, **kwargs)
        _same_quantity(got.data, want.data)
