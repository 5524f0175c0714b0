"""The statistic modes and linear_ramp computed by the core (``_ndpad.fill_stat`` /
``_ndpad.fill_ramp``) against ``numpy.pad``, bit for bit: random shapes (size-1 and
long axes, so that numpy's pairwise sums and its row-by-row sums both occur), widths,
stat_length and end_values, and values with NaN payloads, signed zeros, infinities
and large magnitudes. Each example checks ``ndpad.pad`` and, separately, the core's
fill itself where it does not decline (declining is checked to be rare on ordinary
values)."""

from __future__ import annotations

import os
import warnings
from typing import Any, Tuple

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import ndpad
from ndpad import _ndpad
from ndpad import _dispatch as dispatch
from ndpad import _numpy as ndnp
from _helpers import examples

STAT_MODES = ["maximum", "minimum", "mean", "median"]
DTYPES = [np.dtype(t) for t in ("f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8",
                                 "q", "Q")]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -1e30, 3e38, -3e38, 1e-40,
           -1e-45, 0.5, 1.5, 2.5, -2.5]
NAN_PAYLOADS = {np.dtype("f4"): [0x7FC00001, 0xFFC00000, 0x7F800001],
                np.dtype("f8"): [0x7FF8000000000001, 0xFFF8000000000000]}


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def assert_bits(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if not np.array_equal(bits(got), bits(expected)):
        where = np.argwhere(bits(got) != bits(expected))[:5].tolist()
        raise AssertionError(f"differ at {where}: {got[tuple(where[0])]!r} != "
                             f"{expected[tuple(where[0])]!r}")


@st.composite
def shapes(draw: st.DrawFn) -> Tuple[int, ...]:
    ndim = draw(st.integers(1, 4))
    dims = st.sampled_from([1, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 130, 300])
    shape = tuple(draw(st.lists(dims, min_size=ndim, max_size=ndim)))
    while np.prod(shape) > 6000:
        shape = tuple(max(1, d // 3) for d in shape)
    return shape


@st.composite
def arrays(draw: st.DrawFn, dtype: np.dtype) -> np.ndarray:
    shape = draw(shapes())
    n = int(np.prod(shape))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        style = draw(st.sampled_from(["small", "full"]))
        lo, hi = (-5, 5) if style == "small" else (int(info.min), int(info.max))
        lo = max(lo, int(info.min))
        return np.array(draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)),
                        dtype=dtype).reshape(shape)
    style = draw(st.sampled_from(["small", "normal", "special", "raw"]))
    if style == "small":
        values = np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)))
        return values.astype(dtype).reshape(shape)
    if style == "normal":
        seed = draw(st.integers(0, 2**32 - 1))
        scale = draw(st.sampled_from([1e-3, 1.0, 1e6]))
        return (np.random.default_rng(seed).normal(size=shape) * scale).astype(dtype)
    if style == "raw":
        raw = draw(st.binary(min_size=n * dtype.itemsize, max_size=n * dtype.itemsize))
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        a = rng.normal(size=shape).astype(dtype)
        mask = rng.random(shape) < draw(st.sampled_from([0.05, 0.3]))
        a[mask] = rng.choice(np.array(SPECIAL, dtype=dtype), size=int(mask.sum()))
    if draw(st.booleans()):
        payloads = np.array(NAN_PAYLOADS[dtype], dtype=f"u{dtype.itemsize}")
        flat = a.reshape(-1).view(f"u{dtype.itemsize}")
        pick = rng.random(n) < 0.05
        flat[pick] = rng.choice(payloads, size=int(pick.sum()))
    return a


widths = st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=4, max_size=4)
lengths = st.sampled_from([None, 1, 2, 3, 4, 9, 200])


def stat_lengths(draw: st.DrawFn, ndim: int) -> Any:
    form = draw(st.sampled_from(["one", "pair", "per-axis"]))
    if form == "one":
        return draw(lengths)
    if form == "pair":
        return (draw(st.sampled_from([1, 2, 3, 4, 9, 200])),) * 2
    return [(draw(st.sampled_from([1, 2, 3, 9, 200])), draw(st.sampled_from([1, 4, 200])))
            for _ in range(ndim)]


def numpy_pad(*args: Any, **kwargs: Any) -> Any:
    with np.errstate(all="ignore"):
        try:
            return dispatch.numpy_pad(*args, **kwargs)
        except (ValueError, TypeError) as e:
            return e


def check(a: np.ndarray, pads: list, mode: str, kw: dict, record: bool = False) -> bool:
    """ndpad.pad and the core's own fill against numpy.pad; True when the core
    filled the pads (did not decline)."""
    expected = numpy_pad(a, pads, mode, **kw)
    if isinstance(expected, Exception):
        with pytest.raises(type(expected)):
            with np.errstate(all="ignore"):
                ndpad.pad(a, pads, mode, **kw)
        return False
    with np.errstate(all="ignore"):
        assert_bits(ndpad.pad(a, pads, mode, **kw), expected)
    pair = ndnp._core_pair(a, pads, None)
    if pair is None:
        return False
    name, src, dst = pair
    shape = list(a.shape)
    ends = dispatch.as_pairs(kw.get("end_values", 0), a.ndim)
    lengths = [tuple(None if v is None else int(v) for v in p)
               for p in dispatch.as_pairs(kw.get("stat_length"), a.ndim, as_index=True)]
    if mode == "linear_ramp":
        took = ndnp._ramps_in_rust(src, dst, a.shape, pads, ends)
    else:
        took = _ndpad.pad_stat(src, dst, name, shape, pads, lengths, mode, 0)
    if took:
        assert_bits(dst, expected)
    else:  # declined: the input is in place for numpy's reductions
        assert_bits(dst[ndnp._area(a, pads)], a)
    # The same, in place in the kernel's copy (``fill_stat`` / ``fill_ramp``).
    buf = ndnp._simple(a, pads, None, 1)
    if mode == "linear_ramp":
        ramps = ndnp._ramp_pairs(a.dtype, ends)
        filled = ramps is not None and _ndpad.fill_ramp(buf, name, ramps[0], shape, pads,
                                                         ramps[1])
    else:
        filled = _ndpad.fill_stat(buf, name, shape, pads, lengths, mode)
    if filled:
        assert_bits(buf, expected)
    if record:
        event(f"{mode} {'core' if took else 'declined'}")
    return took


@settings(max_examples=examples(400))
@given(st.data())
def test_stat_modes_bit_exact(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(DTYPES))
    a = data.draw(arrays(dtype))
    pads = [tuple(p) for p in data.draw(widths)[: a.ndim]]
    mode = data.draw(st.sampled_from(STAT_MODES))
    check(a, pads, mode, {"stat_length": stat_lengths(data.draw, a.ndim)}, record=True)


end_values = st.one_of(
    st.integers(-300, 300),
    st.floats(-1e6, 1e6, allow_nan=False, width=32),
    st.sampled_from([0, 1.5, 0.1, -2.5, 1e-40, 1e30, np.int64(7), np.float64(0.1),
                     np.float32(0.1), np.uint8(200), np.int16(-3), 2**30, np.inf, -3e38,
                     1.7e308]),
)


@settings(max_examples=examples(400))
@given(st.data())
def test_linear_ramp_bit_exact(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(DTYPES))
    a = data.draw(arrays(dtype))
    pads = [tuple(p) for p in data.draw(widths)[: a.ndim]]
    form = data.draw(st.sampled_from(["default", "one", "pair", "per-axis"]))
    if form == "default":
        kw: dict = {}
    elif form == "one":
        kw = {"end_values": data.draw(end_values)}
    elif form == "pair":
        kw = {"end_values": (data.draw(end_values), data.draw(end_values))}
    else:
        kw = {"end_values": [(data.draw(end_values), data.draw(end_values))
                             for _ in range(a.ndim)]}
    check(a, pads, "linear_ramp", kw, record=True)


def warnings_of(f: Any) -> Tuple[list, Any]:
    """The warnings ``f()`` gives (category and message, in order) and its result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = f()
    return [(w.category, str(w.message)) for w in caught], result


@pytest.mark.parametrize("dtype", ["f4", "f8"])
@pytest.mark.parametrize("shape, pads", [
    ((2, 3), [(1, 1), (0, 0)]),
    ((2, 3), [(0, 0), (0, 0)]),
    ((2, 3), [(0, 2), (1, 0)]),
    ((2, 1, 3), [(1, 0), (0, 0), (0, 1)]),
])
def test_linear_ramp_of_a_side_without_pads_warns_as_numpy(dtype: str, shape: Tuple[int, ...],
                                                           pads: list) -> None:
    """numpy computes every side's ramp, also of a side without pads: ``edge - end``
    overflows there (and warns) for end values near the type's largest."""
    big = float(np.finfo(dtype).max)
    a = np.full(shape, big, dtype)
    a.reshape(-1)[1] = -big
    ends = [(0, -big), (-big, big / 2), (big, 1.5)][: a.ndim]
    expected = warnings_of(lambda: np.pad(a, pads, "linear_ramp", end_values=ends))
    got = warnings_of(lambda: ndpad.pad(a, pads, "linear_ramp", end_values=ends))
    assert got[0] == expected[0] and expected[0]
    assert_bits(got[1], expected[1])


def forget_stat_pads() -> None:
    """Forgets the remembered statistic and ramp pads (``_StatPads``)."""
    ndnp._STAT_PADS.pads.clear()
    ndnp._STAT_PADS.declined.clear()


@pytest.mark.parametrize("mode, kw", [
    ("maximum", {}),
    ("mean", {"stat_length": ((2, 3), (1, np.int16(4)))}),
    ("median", {"stat_length": [3]}),
    ("linear_ramp", {}),
    ("linear_ramp", {"end_values": np.float32(0.1)}),
    ("linear_ramp", {"end_values": 0.1}),
    ("linear_ramp", {"end_values": ((1, 2.5), (np.int8(-3), 0))}),
])
@pytest.mark.parametrize("dtype", ["f4", "f8", "i2", "u1"])
def test_repeated_pads_are_remembered(mode: str, kw: dict, dtype: str) -> None:
    """A statistic or ramp pad is remembered by its plain arguments, each of its own
    type (``end_values`` of 0.1 and of float32 0.1 ramp in different types), and
    the next array of that dtype and shape is padded by the core at once: numpy's
    bits still, also where the core then declines (NaN payloads)."""
    forget_stat_pads()
    rng = np.random.default_rng(5)
    pads = ((2, 1), (0, 3))
    for k in range(3):
        a = (rng.normal(size=(7, 9)) * 20).astype(dtype)
        if k == 2 and a.dtype.kind == "f":
            a.reshape(-1).view(f"u{a.dtype.itemsize}")[[3, 40]] = NAN_PAYLOADS[a.dtype][:2]
        with np.errstate(all="ignore"):
            assert_bits(ndpad.pad(a, pads, mode, **kw), np.pad(a, pads, mode, **kw))
        # Remembered, until the core declines the NaN payloads (then forgotten).
        assert len(ndnp._STAT_PADS.pads) == 1 or k == 2
    other = [("linear_ramp", {"end_values": 0.1}),
             ("linear_ramp", {"end_values": np.float32(0.1)})]
    a = (rng.normal(size=(7, 9)) * 20).astype(dtype)
    for m, k in other * 2:
        assert_bits(ndpad.pad(a, pads, m, **k), np.pad(a, pads, m, **k))


def test_remembered_keys_tell_apart_what_numpy_does() -> None:
    """Keys of the remembered pads: -0.0 is not 0.0 (another ramp start), an
    ``end_values`` of None is not one left out (numpy's error), and an empty array's
    pad, which reads no keyword, is not remembered (its keyword may be invalid)."""
    forget_stat_pads()
    a = np.array([-4.0, 1.0])
    for end in (0.0, -0.0, 0.0, -0.0):
        assert_bits(ndpad.pad(a, 2, "linear_ramp", end_values=end),
                    np.pad(a, 2, "linear_ramp", end_values=end))
    ndpad.pad(a, 1, "linear_ramp")
    ndpad.pad(a, 1, "linear_ramp")
    with pytest.raises(TypeError):
        np.pad(a, 1, "linear_ramp", end_values=None)
    with pytest.raises(TypeError):
        ndpad.pad(a, 1, "linear_ramp", end_values=None)
    empty = np.zeros((0, 3))
    for kw in ({"stat_length": -1}, {"stat_length": [1, 2, 3]}):
        assert ndpad.pad(empty, ((0, 0), (1, 1)), "maximum", **kw).shape == (0, 5)
        assert np.pad(empty, ((0, 0), (1, 1)), "maximum", **kw).shape == (0, 5)


def test_declined_pads_are_not_remembered_again() -> None:
    """A pad the core declines (64-bit integer means: numpy's own reductions) is
    forgotten once declined, and numpy's result all the same."""
    forget_stat_pads()
    a = np.arange(12, dtype=np.int64).reshape(3, 4) * 3
    for _ in range(3):
        assert_bits(ndpad.pad(a, 2, "mean"), np.pad(a, 2, "mean"))
    assert not ndnp._STAT_PADS.pads and len(ndnp._STAT_PADS.declined) == 1


def test_only_plain_pads_are_remembered() -> None:
    """Arrays, ``out=``, F-ordered and sliced inputs, views of other types and
    arguments that are not numbers and sequences are padded through the whole
    handling, never remembered; numpy's result all the same."""
    forget_stat_pads()
    a = np.arange(35, dtype=np.float32).reshape(5, 7)
    cases = [
        (a, 2, {"stat_length": np.array([1, 2])}),
        (a, np.array([1, 2]), {}),
        (a, {0: 1}, {}),
        (np.asfortranarray(a), 2, {}),
        (a[:, ::2], 2, {}),
        (np.ma.masked_array(a), 2, {}),
    ]
    for arr, width, kw in cases:
        expected = np.pad(arr, width if not isinstance(width, dict) else [(1, 1), (0, 0)],
                          "mean", **kw)
        assert_bits(np.asarray(ndpad.pad(arr, width, "mean", **kw)), np.asarray(expected))
    out = np.empty((9, 11), np.float32)
    ndpad.pad(a, 2, "mean", out=out)
    assert_bits(out, np.pad(a, 2, "mean"))
    assert len(ndnp._STAT_PADS.pads) == 2  # the F-ordered and the sliced arrays' shapes
    for arr in (np.asfortranarray(a), a[:, ::2]):
        assert_bits(ndpad.pad(arr, 2, "mean"), np.pad(arr, 2, "mean"))


@settings(max_examples=examples(200))
@given(st.data())
def test_unit_axes_left_alone_bit_exact(data: st.DataObject) -> None:
    """Axes of one element left unpadded (an image's trailing channel, a batch of
    one), wherever they stand: left out of the computation, numpy's bits still."""
    dtype = data.draw(st.sampled_from(DTYPES))
    a = data.draw(arrays(dtype))
    pads = [tuple(p) for p in data.draw(widths)[: a.ndim]]
    for _ in range(data.draw(st.integers(1, 2))):
        at = data.draw(st.integers(0, a.ndim))
        a = np.expand_dims(a, at)
        pads.insert(at, (0, 0))
    mode = data.draw(st.sampled_from(STAT_MODES + ["linear_ramp"]))
    kw = {} if mode == "linear_ramp" else {"stat_length": stat_lengths(data.draw, a.ndim)}
    check(a, pads, mode, kw, record=True)


@pytest.mark.parametrize("mode", STAT_MODES)
def test_a_zero_stat_length_on_a_unit_axis_is_numpys(mode: str) -> None:
    """A stat length of 0 on an unpadded axis of one element: numpy's error
    (maximum, minimum) or its warning (mean, median) all the same."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4, 1)
    pads, kw = [(1, 1), (2, 2), (0, 0)], {"stat_length": [(3, 3), (2, 2), (0, 0)]}
    with pytest.warns() if mode in ("mean", "median") else pytest.raises(ValueError):
        expected = np.pad(a, pads, mode, **kw)
    with pytest.warns() if mode in ("mean", "median") else pytest.raises(ValueError):
        got = ndpad.pad(a, pads, mode, **kw)
    if mode in ("mean", "median"):
        assert_bits(got, expected)


@settings(max_examples=examples(100))
@given(st.data())
def test_per_axis_modes_bit_exact(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(DTYPES))
    a = data.draw(arrays(dtype))
    pads = [tuple(p) for p in data.draw(widths)[: a.ndim]]
    modes = data.draw(st.lists(st.sampled_from(STAT_MODES + ["linear_ramp", "edge"]),
                               min_size=a.ndim, max_size=a.ndim))
    expected: Any = a
    for axis, m in enumerate(modes):
        part = [p if i == axis else (0, 0) for i, p in enumerate(pads)]
        expected = numpy_pad(expected, part, m)
        if isinstance(expected, Exception):
            return
    with np.errstate(all="ignore"):
        got = ndpad.pad(a, pads, modes)
    # Per-axis modes are ndpad's, not numpy's: the expected result is numpy.pad axis
    # after axis, on arrays of other shapes than ndpad pads into, and which NaN
    # numpy's maximum / minimum returns (its sign, its payload) depends on the
    # array's layout (its vector loops or its scalar one). Bits elsewhere; NaN for NaN.
    if got.dtype.kind == "f":
        both = np.isnan(got) & np.isnan(expected)
        got, expected = got.copy(), expected.copy()
        got[both] = expected[both] = 0
    assert_bits(got, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", STAT_MODES + ["linear_ramp"])
def test_core_takes_ordinary_values(dtype: np.dtype, mode: str) -> None:
    """Finite values of one zero sign: the core computes every case (the fallback to
    numpy's reductions is for the unusual ones)."""
    rng = np.random.default_rng(7)
    for shape in [(5,), (1, 300), (300, 1), (3, 1, 140), (4, 5, 6, 7), (2, 1, 1, 9)]:
        a = (rng.normal(size=shape) * 50).astype(dtype) + dtype.type(1)
        if dtype.kind == "f":
            a[a == 0] = 1
        pads = [(int(rng.integers(0, 5)), int(rng.integers(0, 5))) for _ in shape]
        kw = {"end_values": 3} if mode == "linear_ramp" else {"stat_length": [None, 3, 200][len(shape) % 3]}
        if mode in ("mean", "median") and dtype.itemsize == 8 and dtype.kind in "iu":
            assert not check(a, pads, mode, kw)  # declined: numpy's path
        else:
            assert check(a, pads, mode, kw), (shape, pads, kw)


def test_long_mean_lines_follow_pairwise_sums() -> None:
    """Lines over 128 elements (numpy's pairwise blocks) and a mean along a strided
    axis that is numpy's inner loop (later axes of one element)."""
    rng = np.random.default_rng(3)
    for shape in [(1000,), (3, 777), (777, 1), (129, 1, 1), (8192,), (2, 3000)]:
        a = rng.normal(size=shape).astype(np.float32) * np.float32(1e4)
        for sl in (None, 129, 4):
            assert check(a, [(2, 3)] * a.ndim, "mean", {"stat_length": sl})
    a = rng.normal(size=9000).astype(np.float32)
    assert not check(a, [(2, 3)], "mean", {})  # beyond one buffer: numpy's path


def test_ambiguous_values_fall_back() -> None:
    """-0.0 beside +0.0 in a maximum's span, and two NaN payloads: numpy's own path."""
    a = np.array([-0.0, 0.0, 1.0], dtype=np.float32)
    assert not check(a, [(2, 2)], "maximum", {"stat_length": 2})
    assert check(a, [(2, 2)], "maximum", {"stat_length": 1})
    b = np.array([1.0, np.nan, 2.0], dtype=np.float64)
    b2 = b.copy()
    b2.view(np.uint64)[0] = 0x7FF8000000000001
    assert check(b, [(2, 2)], "median", {})
    assert not check(b2, [(2, 2)], "median", {})


def test_out_and_orders_match_numpy() -> None:
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for mode in STAT_MODES + ["linear_ramp"]:
        expected = np.pad(a, 2, mode)
        out = np.empty_like(expected)
        assert ndpad.pad(a, 2, mode, out=out) is out
        assert_bits(out, expected)
        assert_bits(ndpad.pad(np.asfortranarray(a), 2, mode), np.pad(np.asfortranarray(a), 2, mode))
