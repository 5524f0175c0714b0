"""Differential tests: ``ndpad.pad`` against ``numpy.pad`` (the authority) on random
arrays of every dtype family and layout, every mode, every broadcasting form of
``pad_width`` / ``constant_values`` / ``end_values`` / ``stat_length``; results are
compared bit for bit (and memory order), and where numpy raises, ndpad must raise the
same exception class."""

from __future__ import annotations

import fractions
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ndpad
from _helpers import (
    ModeLike,
    ModeStr,
    examples,
    assert_same_array,
    assert_same_exception,
    compare,
    ml_dtype,
    numpy_pad,
    run,
)

MODES = ["constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
         "reflect", "symmetric", "wrap", "empty"]
COPY_MODES = ["constant", "edge", "reflect", "symmetric", "wrap", "empty"]
STAT_MODES = ["maximum", "mean", "median", "minimum"]

INT_DTYPES = [np.dtype(t) for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")]
FLOAT_DTYPES = [np.dtype(t) for t in ("f2", "f4", "f8", "c8", "c16")]
OTHER_ORDER = [np.dtype(">i4"), np.dtype(">f8")]  # non-native byte order
TIME_DTYPES = [np.dtype(t) for t in ("M8[s]", "M8[ns]", "M8[D]", "m8[ms]", "m8[Y]")]
STRING_DTYPES = [np.dtype(t) for t in ("U1", "U5", "S1", "S4")]
STRUCT_DTYPE = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "S3")])  # packed
ML_NAMES = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4", "float4_e2m1fn"]
ML_DTYPES = [d for d in (ml_dtype(n) for n in ML_NAMES) if d is not None]

NUMERIC = [np.dtype(bool)] + INT_DTYPES + FLOAT_DTYPES + OTHER_ORDER


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


@st.composite
def values_of(draw: st.DrawFn, dtype: np.dtype, shape: Tuple[int, ...]) -> np.ndarray:
    """An array of ``dtype`` and ``shape``: raw bit patterns where every pattern is a
    value (NaN payloads, -0.0, NaT included), else values cast in."""
    n = int(np.prod(shape, dtype=np.int64))
    kind = dtype.kind
    if dtype == STRUCT_DTYPE or kind in "iufcmM" and dtype not in ML_DTYPES:
        raw = draw(st.binary(min_size=n * dtype.itemsize, max_size=n * dtype.itemsize))
        if kind in "fc" and draw(st.booleans()):
            # small integers: ties, repeats and exact means are common
            small = draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n))
            return np.array(small).astype(dtype).reshape(shape)
        if kind == "M" and draw(st.booleans()):
            small = draw(st.lists(st.integers(-10**6, 10**6), min_size=n, max_size=n))
            return np.array(small, dtype=np.int64).view(dtype.newbyteorder("=")).astype(
                dtype).reshape(shape)
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if kind == "b":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                        dtype=bool).reshape(shape)
    if kind in "US":
        size = dtype.itemsize // (4 if kind == "U" else 1)
        alphabet = st.characters(codec="ascii" if kind == "S" else "utf-8",
                                 exclude_characters="\0")
        texts = draw(st.lists(st.text(alphabet, max_size=size), min_size=n, max_size=n))
        return np.array(texts, dtype=dtype).reshape(shape)
    if kind == "O":
        objs = st.one_of(st.integers(-5, 5), st.none(), st.text(max_size=2),
                         st.floats(allow_nan=False),
                         st.builds(fractions.Fraction, st.integers(-9, 9), st.integers(1, 9)))
        flat = np.empty(n, dtype=object)
        flat[:] = draw(st.lists(objs, min_size=n, max_size=n))
        return flat.reshape(shape)
    # ml_dtypes
    if dtype.itemsize == 2 or dtype.name.startswith("float8"):
        raw = draw(st.binary(min_size=n * dtype.itemsize, max_size=n * dtype.itemsize))
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    lo, hi = (-8, 7) if dtype.name == "int4" else (0, 15) if dtype.name == "uint4" else (-6, 6)
    small = draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))
    return np.array(small, dtype=np.float32).astype(dtype).reshape(shape)


LAYOUTS = ["C", "F", "T", "flip", "step", "negstep"]


@st.composite
def arrays(draw: st.DrawFn, dtypes: List[np.dtype]) -> np.ndarray:
    """An array in one of several layouts: C, F, transposed, negative strides,
    strided slices, 0-d, with empty axes."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes)
    layout = draw(st.sampled_from(LAYOUTS))
    if layout == "step" and shape:
        axis = draw(st.integers(0, len(shape) - 1))
        big = list(shape)
        big[axis] = 2 * big[axis]
        base = draw(values_of(dtype, tuple(big)))
        return base[(slice(None),) * axis + (slice(None, None, 2),)]
    base = draw(values_of(dtype, shape))
    if layout == "F":
        return np.asfortranarray(base)
    if layout == "T":
        return base.T
    if layout == "flip" and shape:
        return base[::-1]
    if layout == "negstep" and shape:
        return base[..., ::-2]
    return base


widths = st.integers(0, 7)


@st.composite
def pad_widths(draw: st.DrawFn, ndim: int) -> Any:
    """pad_width in every form numpy.pad accepts."""
    form = draw(st.sampled_from(
        ["int", "(n,)", "(b,a)", "((b,a),)", "per-axis", "per-axis-1", "ndarray", "dict"]))
    pairs = [(draw(widths), draw(widths)) for _ in range(ndim)]
    if form == "int":
        return draw(widths)
    if form == "(n,)":
        return (draw(widths),)
    if form == "(b,a)":
        return (draw(widths), draw(widths))
    if form == "((b,a),)":
        return ((draw(widths), draw(widths)),)
    if form == "per-axis":
        return pairs if draw(st.booleans()) else tuple(pairs)
    if form == "per-axis-1":
        return [[draw(widths)] for _ in range(ndim)]
    if form == "ndarray":
        dtype = draw(st.sampled_from([np.int8, np.int32, np.int64, np.intp]))
        return np.array(pairs if draw(st.booleans()) else draw(widths), dtype=dtype)
    result: Dict[int, Any] = {}
    for axis in range(ndim):
        if draw(st.booleans()):
            key = axis - ndim if draw(st.booleans()) else axis
            result[key] = draw(widths) if draw(st.booleans()) else (draw(widths), draw(widths))
    return result


def broadcast_forms(draw: st.DrawFn, ndim: int, element: st.SearchStrategy) -> Any:
    """A value in one of the forms of constant_values / end_values / stat_length."""
    form = draw(st.sampled_from(["scalar", "(v,)", "(b,a)", "((b,a),)", "per-axis",
                                 "per-axis-1", "ndarray"]))
    if form == "scalar":
        return draw(element)
    if form == "(v,)":
        return (draw(element),)
    if form == "(b,a)":
        return (draw(element), draw(element))
    if form == "((b,a),)":
        return ((draw(element), draw(element)),)
    if form == "per-axis":
        return [(draw(element), draw(element)) for _ in range(ndim)]
    if form == "per-axis-1":
        return [[draw(element)] for _ in range(ndim)]
    return np.array([(draw(element), draw(element)) for _ in range(ndim)])


def constants(dtype: np.dtype) -> st.SearchStrategy:
    kind = dtype.kind
    if kind in "US":
        return st.text(st.characters(codec="ascii", exclude_characters="\0"), max_size=7)
    if kind == "O":
        return st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none())
    if kind in "mM":
        return st.integers(-1000, 1000)
    if kind == "c":
        return st.one_of(st.integers(-300, 300),
                         st.complex_numbers(allow_infinity=True, allow_nan=True))
    if dtype == STRUCT_DTYPE:
        return st.integers(-3, 3)
    return st.one_of(st.integers(-300, 300), st.booleans(),
                     st.floats(-1e6, 1e6), st.sampled_from([np.nan, np.inf, -0.0, 2.5, -2.7]))


@st.composite
def mode_kwargs(draw: st.DrawFn, mode: str, array: np.ndarray) -> Dict[str, Any]:
    ndim = array.ndim
    if mode == "constant" and draw(st.booleans()):
        return {"constant_values": broadcast_forms(draw, ndim, constants(array.dtype))}
    if mode == "linear_ramp" and draw(st.booleans()):
        element = constants(array.dtype) if array.dtype.kind not in "fc" else \
            st.one_of(st.integers(-300, 300), st.floats(-1e3, 1e3))
        return {"end_values": broadcast_forms(draw, ndim, element)}
    if mode in STAT_MODES and draw(st.booleans()):
        element = st.one_of(st.integers(1, 6), st.none()) if draw(st.booleans()) \
            else st.integers(0, 6)
        return {"stat_length": broadcast_forms(draw, ndim, element)}
    if mode in ("reflect", "symmetric") and draw(st.booleans()):
        return {"reflect_type": draw(st.sampled_from(["even", "odd"]))}
    return {}


def differential(dtypes: List[np.dtype], modes: List[str]) -> Callable:
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        array = data.draw(arrays(dtypes), label="array")
        mode = data.draw(st.sampled_from(modes), label="mode")
        pad_width = data.draw(pad_widths(array.ndim), label="pad_width")
        kwargs = data.draw(mode_kwargs(mode, array), label="kwargs")
        compare(array, pad_width, mode, **kwargs)
    return check


# ---------------------------------------------------------------------------
# The differential tests, by dtype family
# ---------------------------------------------------------------------------

test_numeric_all_modes = settings(max_examples=examples(500))(differential(NUMERIC, MODES))
test_ml_dtypes_all_modes = settings(max_examples=examples(150))(differential(ML_DTYPES, MODES))
test_time_all_modes = settings(max_examples=examples(120))(differential(TIME_DTYPES, MODES))
test_strings_all_modes = settings(max_examples=examples(120))(differential(STRING_DTYPES, MODES))
test_structured_copy_modes = settings(max_examples=examples(80))(
    differential([STRUCT_DTYPE], COPY_MODES))
test_object_all_modes = settings(max_examples=examples(120))(
    differential([np.dtype(object)], MODES))


@settings(max_examples=examples(150))
@given(data=st.data())
def test_wide_reflections_repeat(data: st.DataObject) -> None:
    """Pads many times wider than the axis repeat the reflection / wrap, as numpy's
    loop does (also on length-1 axes)."""
    shape = data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple))
    array = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape) * 3 - 2
    mode = data.draw(st.sampled_from(["reflect", "symmetric", "wrap", "edge"]))
    pad_width = [(data.draw(st.integers(0, 25)), data.draw(st.integers(0, 25)))
                 for _ in shape]
    kwargs = {}
    if mode in ("reflect", "symmetric"):
        kwargs["reflect_type"] = data.draw(st.sampled_from(["even", "odd"]))
    compare(array, pad_width, mode, **kwargs)


# ---------------------------------------------------------------------------
# Error parity: random hostile arguments, then a table of explicit cases
# ---------------------------------------------------------------------------

junk = st.one_of(
    st.integers(-3, 3), st.integers(2**62, 2**63 + 5), st.floats(allow_nan=True),
    st.none(), st.booleans(), st.text(max_size=3), st.just(object()),
    st.lists(st.integers(-2, 3), max_size=5),
    st.lists(st.lists(st.integers(-1, 3), max_size=3), max_size=4),
    st.just(np.array([1.5, 2])), st.just(np.array([1, 2], dtype=np.uint8)),
    st.just({0: 1.5}), st.just({5: 1}), st.just({0: (1, 2, 3)}), st.just({"a": 1}),
)


@settings(max_examples=examples(300))
@given(data=st.data())
def test_error_parity_random(data: st.DataObject) -> None:
    """Odd pad_width / mode / keyword values: same result or same exception class."""
    array = data.draw(arrays(NUMERIC + STRING_DTYPES[:1]))
    pad_width = data.draw(st.one_of(pad_widths(array.ndim), junk), label="pad_width")
    mode = data.draw(st.sampled_from(MODES + ["const", "EDGE"]), label="mode")
    key = data.draw(st.sampled_from(
        [None, "constant_values", "end_values", "stat_length", "reflect_type", "bogus"]))
    kwargs = {} if key is None else {key: data.draw(junk, label=key)}
    compare(array, pad_width, mode, **kwargs)


A3 = np.arange(3)
A23 = np.arange(6).reshape(2, 3)

# (array, pad_width, mode, kwargs, exception, numpy's fixed message or None)
ERROR_CASES = [
    (A3, -1, "constant", {}, ValueError, "index can't contain negative values"),
    (A3, (1, -2), "edge", {}, ValueError, "index can't contain negative values"),
    (A23, ((1, 2), (0, -1)), "wrap", {}, ValueError, "index can't contain negative values"),
    (A3, 1.0, "constant", {}, TypeError, "`pad_width` must be of integral type."),
    (A3, (1, 2.5), "constant", {}, TypeError, "`pad_width` must be of integral type."),
    (A3, np.array([1, 2], dtype=np.uint8), "constant", {}, TypeError,
     "`pad_width` must be of integral type."),
    (A3, True, "constant", {}, TypeError, "`pad_width` must be of integral type."),
    (A3, "1", "constant", {}, TypeError, "`pad_width` must be of integral type."),
    (A3, None, "constant", {}, TypeError, "`pad_width` must be of integral type."),
    (A3, 2**70, "constant", {}, TypeError, "`pad_width` must be of integral type."),
    (A3, 1, "const", {}, ValueError, "mode 'const' is not supported"),
    (A3, 1, None, {}, ValueError, "mode 'None' is not supported"),
    (A3, 1, 7, {}, ValueError, "mode '7' is not supported"),
    (A3, 1, {}, {}, TypeError, "unhashable type: 'dict'"),
    (A3, 1, "edge", {"constant_values": 1}, ValueError,
     "unsupported keyword arguments for mode 'edge': {'constant_values'}"),
    (A3, 1, "constant", {"end_values": 1}, ValueError,
     "unsupported keyword arguments for mode 'constant': {'end_values'}"),
    (A3, 1, "mean", {"reflect_type": "odd"}, ValueError,
     "unsupported keyword arguments for mode 'mean': {'reflect_type'}"),
    (A3, 1, "empty", {"stat_length": 1}, ValueError,
     "unsupported keyword arguments for mode 'empty': {'stat_length'}"),
    (A3, 1, "maximum", {"stat_length": 0}, ValueError,
     "stat_length of 0 yields no value for padding"),
    (A23, 1, "minimum", {"stat_length": ((1, 1), (0, 1))}, ValueError,
     "stat_length of 0 yields no value for padding"),
    (A3, 1, "mean", {"stat_length": -1}, ValueError, "index can't contain negative values"),
    (np.zeros((0, 3)), 1, "edge", {}, ValueError,
     "can't extend empty axis 0 using modes other than 'constant' or 'empty'"),
    (np.zeros((3, 0)), ((0, 0), (0, 1)), "reflect", {}, ValueError,
     "can't extend empty axis 1 using modes other than 'constant' or 'empty'"),
    (np.zeros((3, 0)), ((0, 0), (0, 1)), "mean", {}, ValueError,
     "can't extend empty axis 1 using modes other than 'constant' or 'empty'"),
    (A3, {0: np.int64(1)}, "constant", {}, AssertionError,
     "Expected code to be unreachable, but got: np.int64(1)"),
    (A3, {0: (np.int32(1), 2)}, "constant", {}, AssertionError, None),
    (A3, {0: [1, 2]}, "constant", {}, AssertionError,
     "Expected code to be unreachable, but got: [1, 2]"),
    (A3, {0: 1.5}, "constant", {}, AssertionError, None),
    (A3, {3: 1}, "constant", {}, IndexError, "list assignment index out of range"),
    (A3, {"x": 1}, "constant", {}, TypeError, None),
    (A23, [[1, 2], [3, 4], [5, 6]], "constant", {}, ValueError,
     "operands could not be broadcast together with remapped shapes [original->remapped]: (3,2)  and requested shape (2,2)"),
    (A23, [[[1, 2]]], "constant", {}, ValueError,
     "input operand has more dimensions than allowed by the axis remapping"),
    (A23, [[[1]]], "edge", {}, ValueError,
     "input operand has more dimensions than allowed by the axis remapping"),
    (A23, [[[1, -1]]], "edge", {}, ValueError, "index can't contain negative values"),
    (A3, [1, 2, 3], "constant", {}, ValueError,
     "operands could not be broadcast together with remapped shapes [original->remapped]: (3,)  and requested shape (1,2)"),
    (A3, [[1], [2]], "constant", {}, ValueError,
     "operands could not be broadcast together with remapped shapes [original->remapped]: (2,1)  and requested shape (1,2)"),
    (A23, [[1], [-2]], "constant", {}, ValueError, "index can't contain negative values"),
    (A23, [[1, 2, 3]], "wrap", {}, ValueError,
     "operands could not be broadcast together with remapped shapes [original->remapped]: (1,3)  and requested shape (2,2)"),
    (A3, np.zeros(0, int), "constant", {}, ValueError,
     "zero-size array to reduction operation minimum which has no identity"),
    (A3, np.zeros((2, 0), np.int8), "constant", {}, ValueError,
     "zero-size array to reduction operation minimum which has no identity"),
    (np.array(5), [[1, 2], [3, 4]], "constant", {}, ValueError,
     "operands could not be broadcast together with remapped shapes [original->remapped]: (2,2)  and requested shape (0,2)"),
    (A23, 1, "mean", {"stat_length": [[1, 2, 3]]}, ValueError,
     "operands could not be broadcast together with remapped shapes [original->remapped]: (1,3)  and requested shape (2,2)"),
    (A23, 1, "median", {"stat_length": [[[2]]]}, ValueError,
     "input operand has more dimensions than allowed by the axis remapping"),
    (A3, 1, "maximum", {"stat_length": [1.2, -0.6]}, ValueError,
     "index can't contain negative values"),
    (A3, 1, "minimum", {"stat_length": []}, ValueError,
     "zero-size array to reduction operation minimum which has no identity"),
    (A23, 1, "constant", {"constant_values": [1, 2, 3]}, ValueError, None),
    (A23, 1, "linear_ramp", {"end_values": [[1, 2, 3]]}, ValueError, None),
    (np.zeros((2, 2), np.uint8), 1, "constant", {"constant_values": [[-1, 1], [2, 3]]},
     OverflowError, "Python integer -1 out of bounds for uint8"),
    (np.zeros(3), 1, "constant", {"constant_values": "abc"}, ValueError, None),
    (np.zeros(3, "M8[s]"), 1, "mean", {}, TypeError, None),
    (np.zeros(3, "U2"), 1, "linear_ramp", {}, TypeError, None),
    (np.array(5), 1, "constant", {"constant_values": [[1, 2], [3, 4], [5, 6]]},
     ValueError, None),
    (np.array(5), 1, "mean", {"stat_length": -1}, ValueError,
     "index can't contain negative values"),
    (np.array(5), -1, "constant", {}, ValueError, "index can't contain negative values"),
]


@pytest.mark.parametrize("array, pad_width, mode, kwargs, exc, message", ERROR_CASES)
def test_error_parity_table(array: np.ndarray, pad_width: Any, mode: Any,
                            kwargs: Dict[str, Any], exc: type,
                            message: Optional[str]) -> None:
    _, want = run(numpy_pad, array, pad_width, mode, **kwargs)
    assert isinstance(want, exc), f"the table is wrong about numpy: {want!r}"
    _, got = run(ndpad.pad, array, pad_width, mode, **kwargs)
    assert got is not None, "ndpad did not raise"
    assert_same_exception(got, want, message=message is not None)
    if message is not None:
        assert str(want) == message


# ---------------------------------------------------------------------------
# Explicit behaviours from numpy's documentation and source
# ---------------------------------------------------------------------------

EXACT_CASES = [
    (np.zeros((1, 1), int), 1, "constant", {"constant_values": ((1, 2), (3, 4))}),
    (np.array([1, 2, 3], np.uint8), 2, "constant", {"constant_values": -1}),
    (np.array([1, 2, 3], np.uint8), 2, "constant", {"constant_values": 300}),
    (np.array([1, 2, 3]), 2, "constant", {"constant_values": 2.7}),
    (np.array([True]), 2, "constant", {"constant_values": 5}),
    (np.array(["ab"], "U5"), 2, "constant", {"constant_values": "toolongvalue"}),
    (np.array(["ab"], "U5"), 2, "constant", {}),
    (np.array([b"ab"], "S5"), 2, "constant", {}),
    (np.array(["2001-01-01"], "M8[D]"), 2, "constant", {}),
    (np.array([1, 4]), 1, "mean", {}),
    (np.array([1, 2]), 1, "mean", {}),
    (np.array([2, 3]), 1, "mean", {}),
    (np.array([1, 2, 3, 4], np.int32), 1, "median", {}),
    (np.array([1.0, 2, 3, 4]), 1, "median", {}),
    (np.array([10]), (3, 0), "linear_ramp", {}),
    (np.array([1.0, 2, 3]), 2, "mean", {"stat_length": 0}),
    (np.array([1, 2, 3]), 2, "mean", {"stat_length": 0}),
    (np.array([7]), 2, "reflect", {}),
    (np.array([1, 2, 3]), 2, "reflect", {"reflect_type": "odd"}),
    (np.array([1, 2, 3]), 5, "symmetric", {"reflect_type": "odd"}),
    (np.array([1, 2, 3]), 7, "reflect", {"reflect_type": "anything-else"}),
    (np.array(5), 3, "edge", {}),
    (np.array(5.0), 3, "mean", {"stat_length": 2}),
    (np.zeros((0, 3)), ((2, 1), (0, 0)), "constant", {"constant_values": 9}),
    (np.zeros((0, 3)), ((0, 0), (1, 1)), "edge", {}),
    (np.zeros((0, 3)), ((0, 0), (1, 1)), "maximum", {}),
    (np.array([np.nan, 1.0, np.float64(-0.0)]), 3, "reflect", {}),
    (np.frombuffer(bytes.fromhex("01f87f7ffff7ff7f"), "<f8").copy(), 2, "wrap", {}),
    (np.array([np.nan, 1.0]), 2, "maximum", {}),
    (np.array([np.nan, 1.0]), 2, "median", {}),
    (np.array([1, 2, 3, 4, 5]), ((2, 3),), "mean", {"stat_length": ((1, 3),)}),
    (np.arange(12).reshape(3, 4), ((1, 2), (3, 4)), "median", {"stat_length": [[1], [2]]}),
    (np.arange(12.0).reshape(3, 4), 2, "linear_ramp", {"end_values": ((1, 2), (3, 4))}),
    (np.arange(6, dtype=np.uint8).reshape(2, 3), 2, "linear_ramp", {"end_values": 200}),
    (np.array([1 + 2j, 3 - 1j]), 2, "mean", {}),
    (np.array([1, 2], dtype=np.float16), 3, "linear_ramp", {"end_values": 1e5}),
]


@pytest.mark.parametrize("array, pad_width, mode, kwargs", EXACT_CASES)
def test_documented_behaviour(array: np.ndarray, pad_width: Any, mode: str,
                              kwargs: Dict[str, Any]) -> None:
    want, exc = compare(array, pad_width, mode, **kwargs)
    assert exc is None


def test_object_constant_defaults_are_numpy_ints() -> None:
    a = np.array([None, "x"], dtype=object)
    got = ndpad.pad(a, 1)
    want = numpy_pad(a, 1)
    assert_same_array(got, want)
    assert type(got[0]) is type(want[0])


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("mode", MODES)
def test_memory_order_follows_numpy(order: str, mode: str) -> None:
    a = np.asarray(np.arange(24.0).reshape(2, 3, 4), order=order)
    want, _ = compare(a, ((1, 2), (0, 1), (2, 0)), mode)
    assert want is not None
    assert want.flags.f_contiguous == (order == "F")


def test_huge_output_raises_memory_error_like_numpy() -> None:
    """An output of 14 TiB: numpy raises MemoryError from np.empty; so does ndpad."""
    for mode in ("constant", "edge", "mean", "linear_ramp"):
        _, want = run(numpy_pad, np.zeros(3), 10**12, mode)
        _, got = run(ndpad.pad, np.zeros(3), 10**12, mode)
        assert isinstance(want, MemoryError)
        assert isinstance(got, MemoryError), (mode, got)


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
def test_many_repetitions_of_a_short_axis(mode: str) -> None:
    # 20 MB of output, 5,000,000 repetitions of a 2-element axis: numpy pads it (the
    # core plans one period and tiles it).
    a = np.array([1, 2], dtype=np.uint8)
    compare(a, 10**7, mode)


@pytest.mark.parametrize("kwargs", [
    {}, {"constant_values": 7}, {"constant_values": ((0, 3), (0, 0), (1, 0))},
    {"mode": "empty"},
])
def test_large_constant_pads_bit_exact(kwargs: Dict[str, Any]) -> None:
    """Constant pads of 32 MiB and more go into numpy.zeros, whose zero pages the
    kernel leaves where the constant is zero: still numpy.pad's values (F order
    too). "empty" compares the shape and the data region only."""
    a = np.arange(9 * 1024 * 1024, dtype=np.float32).reshape(9, 1024, 1024)
    widths = ((2, 3), (0, 0), (1, 1))
    for array in (a, np.asfortranarray(a)):
        got = ndpad.pad(array, widths, **kwargs)
        want = np.pad(array, widths, **kwargs)
        assert got.nbytes >= 32 << 20
        assert got.flags.f_contiguous == want.flags.f_contiguous
        if kwargs.get("mode") == "empty":
            assert got.shape == want.shape
            assert np.array_equal(got[2:-3, :, 1:-1], array)
        else:
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


MODE_OBJECTS = [ModeStr("constant"), ModeLike("constant"), ModeStr("reflect"),
                ModeLike("edge"), ModeLike("mean"), ModeLike("linear_ramp"),
                ModeLike("empty")]


@pytest.mark.parametrize("mode", MODE_OBJECTS, ids=[f"{type(m).__name__}-{m}"
                                                    for m in MODE_OBJECTS])
@pytest.mark.parametrize("array", [np.arange(5.0), A23, np.array(4)], ids=["1d", "2d", "0d"])
def test_mode_objects_numpy_accepts(mode: Any, array: np.ndarray) -> None:
    """Objects equal to and hashing as a mode name are that mode, as in numpy.pad
    (they ended in AssertionError('unreachable'))."""
    want, exc = compare(array, 2, mode)
    assert exc is None and want is not None
    if mode == "constant":
        compare(array, ((1, 2),), mode, constant_values=3)


@pytest.mark.parametrize("mode, kwargs, message", [
    (ModeLike("nope"), {}, "mode 'like nope' is not supported"),
    (ModeStr("nope"), {}, "mode 'nope' is not supported"),
    (ModeLike("edge"), {"constant_values": 1},
     "unsupported keyword arguments for mode 'like edge': {'constant_values'}"),
])
def test_mode_objects_errors(mode: Any, kwargs: Dict[str, Any], message: str) -> None:
    _, want = run(numpy_pad, A3, 1, mode, **kwargs)
    _, got = run(ndpad.pad, A3, 1, mode, **kwargs)
    assert type(want) is ValueError and str(want) == message
    assert type(got) is ValueError and str(got) == message


# ---------------------------------------------------------------------------
# numpy's rules for index arguments (pad_width, stat_length): the extension's
# ``index_pairs`` against numpy's own ``_as_pairs``
# ---------------------------------------------------------------------------

from numpy.lib._arraypad_impl import _as_pairs as numpy_as_pairs  # noqa: E402

from ndpad import _dispatch as dispatch  # noqa: E402
from ndpad import _ndpad  # noqa: E402

index_shapes = st.lists(st.integers(0, 4), max_size=3).map(tuple)


def int_arrays(low: int = -2, high: int = 6) -> st.SearchStrategy:
    """Integer arrays of up to 3 dimensions (empty ones too) of every signed width."""
    return st.builds(
        lambda shape, dtype, seed: np.random.default_rng(seed).integers(
            low, high, size=shape).astype(dtype),
        index_shapes, st.sampled_from(["i1", "i2", "i4", "i8"]), st.integers(0, 2**32))


def outcome(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` as pairs of Python ints, or its exception's class and text."""
    try:
        pairs = func(*args)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return type(e), str(e)
    return [(int(b), int(a)) for b, a in pairs]


def numpy_widths(pad_width: Any, ndim: int) -> list:
    """numpy.pad's handling of ``pad_width``: its conversion, check and ``_as_pairs``."""
    pad_width = np.asarray(pad_width)
    if not pad_width.dtype.kind == "i":
        raise TypeError("`pad_width` must be of integral type.")
    return numpy_as_pairs(pad_width, ndim, as_index=True)


@settings(max_examples=examples(400))
@given(x=int_arrays(), ndim=st.integers(0, 4), as_list=st.booleans())
def test_widths_are_numpys_pairs(x: np.ndarray, ndim: int, as_list: bool) -> None:
    """``normalize_widths`` against numpy on integer arrays and the same values as
    nested lists (which may take the fast path for Python ints): the same pairs, or
    the same exception class and message."""
    pad_width = x.tolist() if as_list else x
    want = outcome(numpy_widths, pad_width, ndim)
    got = outcome(dispatch.normalize_widths, pad_width, ndim, False)
    assert got == want


@settings(max_examples=examples(300))
@given(x=int_arrays(), ndim=st.integers(0, 4))
def test_widths_allowing_negatives_are_numpys_broadcast(x: np.ndarray, ndim: int) -> None:
    """With negative pads allowed, the values go unchecked: numpy's pairing of values
    that are not indices (``_as_pairs`` without ``as_index``) decides alone."""
    want = outcome(numpy_as_pairs, x, ndim)
    assert outcome(dispatch.normalize_widths, x, ndim, True) == want
    assert outcome(_ndpad.numpy_index_pairs, x.astype(np.int64), ndim, True) == want


@settings(max_examples=examples(300))
@given(shape=index_shapes, ndim=st.integers(0, 4), seed=st.integers(0, 2**32),
       dtype=st.sampled_from(["f4", "f8", "i2", "i8"]))
def test_stat_lengths_are_numpys_pairs(shape: Tuple[int, ...], ndim: int, seed: int,
                                       dtype: str) -> None:
    """``as_pairs(..., as_index=True)`` (``stat_length``) against numpy: rounded as
    numpy rounds (halves to even), then paired and checked by the extension."""
    x = (np.random.default_rng(seed).integers(-4, 12, size=shape) / 2).astype(dtype)
    want = outcome(numpy_as_pairs, x, ndim, True)
    assert outcome(dispatch.as_pairs, x, ndim, True) == want
    assert outcome(dispatch.as_pairs, x.tolist(), ndim, True) == want


python_ints = st.one_of(st.integers(-3, 5), st.sampled_from([-(2**63), 2**63 - 1]))


@st.composite
def int_width_forms(draw: st.DrawFn) -> Tuple[Any, int]:
    """A ``pad_width`` of Python ints in a form the fast path takes, and an ndim."""
    ndim = draw(st.integers(0, 4))
    pair = st.tuples(python_ints, python_ints)
    seq = draw(st.sampled_from([tuple, list]))
    form = draw(st.one_of(
        python_ints,
        st.lists(python_ints, min_size=1, max_size=2).map(seq),
        st.lists(pair.map(seq), min_size=1, max_size=1).map(seq),
        st.lists(pair.map(seq), min_size=ndim, max_size=ndim).filter(bool).map(seq),
    ))
    return form, ndim


@settings(max_examples=examples(400))
@given(case=int_width_forms(), allow_negative=st.booleans())
def test_fast_path_is_the_extensions_rule(case: Tuple[Any, int],
                                          allow_negative: bool) -> None:
    """The fast path for Python ints (``_int_widths``, which checks negatives itself)
    gives what the extension's rule gives on the same values as an array, exceptions
    included."""
    pad_width, ndim = case
    assert dispatch._int_widths(pad_width, ndim) is not None
    want = outcome(_ndpad.numpy_index_pairs, np.asarray(pad_width, dtype=np.int64), ndim,
                   allow_negative)
    assert outcome(dispatch.normalize_widths, pad_width, ndim, allow_negative) == want
    if not allow_negative:
        assert want == outcome(numpy_widths, pad_width, ndim)


def test_index_pairs_takes_any_layout() -> None:
    """The extension reads the values in C order, whatever the array's strides."""
    x = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    assert _ndpad.numpy_index_pairs(x, 3, False) == [(0, 2), (4, 6), (8, 10)]
    assert _ndpad.numpy_index_pairs(np.asfortranarray(x), 3, False) == [
        (0, 2), (4, 6), (8, 10)]
    y = np.arange(4, dtype=np.int64).reshape(2, 2).T
    assert _ndpad.numpy_index_pairs(y, 2, False) == [(0, 2), (1, 3)]
    assert _ndpad.numpy_index_pairs(y[::-1], 2, False) == [(1, 3), (0, 2)]
    with pytest.raises(TypeError):
        _ndpad.numpy_index_pairs(np.zeros(2, np.int32), 1, False)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "complex128"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (4, 1, 2, 3)])
def test_fortran_arrays_take_numpys_corners(dtype, shape) -> None:
    """An F-ordered array with a constant per side is padded through its transpose,
    whose corners go to its first axis: numpy's values and layout, fresh and out=."""
    a = np.asfortranarray(np.arange(np.prod(shape)).reshape(shape).astype(dtype))
    values = tuple((2 * i + 1, 2 * i + 2) for i in range(len(shape)))
    widths = tuple((1 + i % 2, 2 - i % 2) for i in range(len(shape)))
    want = np.pad(a, widths, constant_values=values)
    got = ndpad.pad(a, widths, constant_values=values)
    assert np.array_equal(got, want) and got.flags.f_contiguous
    for order in ("F", "C"):
        out = np.empty(want.shape, dtype, order=order)
        assert ndpad.pad(a, widths, constant_values=values, out=out) is out
        assert np.array_equal(out, want)


TEXT_STRUCT = np.dtype([("name", "U3"), ("n", "<i2")])


@pytest.mark.parametrize("dtype", ["<U5", "S3", "V3", TEXT_STRUCT])
@pytest.mark.parametrize("order", ["C", "F"])
def test_text_constants_written_over_their_sides(dtype, order) -> None:
    """Constants the kernel cannot write (not one of its words repeated: '0' in a
    'U5' array) are written over each side after a zero pad, the last axis's in the
    corners: numpy's values and layout, fresh and out=; with interior padding or a
    crop, through the indices."""
    dtype = np.dtype(dtype)
    shape = (3, 4, 2)
    flat = np.arange(np.prod(shape))
    if dtype.kind in "US":
        a = flat.astype(dtype)
    elif dtype.kind == "V" and dtype.names is None:
        a = flat.astype("u1").repeat(3).view(dtype)
    else:
        a = np.zeros(flat.size, dtype)
        a["name"], a["n"] = flat.astype("U3"), flat
    a = np.asarray(a.reshape(shape), order=order)
    cells = {"U": [1, "x", "yy", 22, "", "7"], "S": [b"1", b"x", b"yy", b"22", b"", b"7"],
             "V": [b"\1\2\3", b"\4\5\6", b"\7\7\7", b"\1\1\2", b"\0\0\1", b"\3\2\1"]}
    if dtype.names:
        pairs = [(("a", 1), ("b", 2)), (("c", 3), ("d", 4)), (("e", 5), ("f", 6))]
        values = tuple(tuple(np.array(v, dtype=dtype)[()] for v in pair) for pair in pairs)
    else:
        c = cells[dtype.kind]
        values = ((c[0], c[1]), (c[2], c[3]), (c[4], c[5]))
    widths = ((1, 2), (2, 0), (1, 1))
    want = np.pad(a, widths, constant_values=values)
    got = ndpad.pad(a, widths, constant_values=values)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert got.flags.f_contiguous == want.flags.f_contiguous
    out = np.empty(want.shape, dtype, order="C")
    assert ndpad.pad(a, widths, constant_values=values, out=out) is out
    assert np.array_equal(out, want)
    # One constant: the default (0 cast to the type) and a text.
    for kw in ({}, {"constant_values": values[0][0]}):
        if dtype.kind == "V" and not kw:
            continue
        assert np.array_equal(ndpad.pad(a, 2, **kw), np.pad(a, 2, **kw))
    # Interior padding and crops take the indices.
    one = values[0][0]
    cast = np.pad(a[:1, :1, :1], 1, constant_values=one)[0, 0, 0]  # numpy's cast
    got = ndpad.pad(a, 1, constant_values=one, interior=1)
    assert got.shape == (7, 9, 5) and got[1, 1, 1] == a[0, 0, 0] and got[0, 0, 0] == cast
    assert got[2, 2, 2] == cast
    crop = ndpad.pad(a, ((-1, 1), (0, 0), (0, 0)), constant_values=one,
                     negative_pads="crop_first")
    assert np.array_equal(crop[:2], a[1:]) and (crop[2] == cast).all()


def test_text_outputs_are_not_cleared_first() -> None:
    """A new 'U' output is bytes viewed as text (numpy clears a new 'U' array, a pass
    the kernel makes useless): every mode still gives numpy's values."""
    a = np.array([["ab", "c", ""], ["déf", "g", "hi"]], dtype="<U4")
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        got = ndpad.pad(a, 2, mode=mode)
        assert got.dtype == a.dtype and np.array_equal(got, np.pad(a, 2, mode=mode))
    # 'empty': the pad's values are undefined (ndpad writes 0 cast: '0'); the rest is a.
    assert np.array_equal(ndpad.pad(a, 1, mode="empty")[1:-1, 1:-1], a)
