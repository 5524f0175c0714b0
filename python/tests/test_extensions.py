"""ndpad.pad's keywords beyond numpy: negative_pads, interior, a mode per axis, out=,
threads=, order=. Each is checked against an independent reference (numpy on cropped
arrays, index maps, successive numpy.pad calls, numpy.pad's values in the asked
layout) and against ndpad's framework front ends."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ndpad
from ndpad import _dispatch as dispatch
from _helpers import assert_same_array, examples, numpy_pad

Pairs = List[Tuple[int, int]]

small_shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple)


def sample(shape: Tuple[int, ...], dtype: Any = np.int32) -> np.ndarray:
    n = int(np.prod(shape))
    return (np.arange(n) * 7 % 11 - 3).astype(dtype).reshape(shape)


# ---------------------------------------------------------------------------
# negative_pads
# ---------------------------------------------------------------------------

def crop_then_pad(a: np.ndarray, widths: Pairs, mode: str, **kw: Any) -> np.ndarray:
    """'crop_first' by hand: slice the negative widths off, numpy.pad the rest."""
    index = tuple(slice(max(-b, 0), n - max(-e, 0)) for n, (b, e) in zip(a.shape, widths))
    return numpy_pad(a[index], [(max(b, 0), max(e, 0)) for b, e in widths], mode, **kw)


def fold(index: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Output positions (relative to the input's first element) folded into the axis."""
    if mode in ("edge", "constant"):
        return np.clip(index, 0, n - 1)
    if mode == "wrap":
        return index % n
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(index)
        m = index % (2 * (n - 1))
        return np.where(m >= n, 2 * (n - 1) - m, m)
    m = index % (2 * n)  # symmetric
    return np.where(m >= n, 2 * n - 1 - m, m)


def original_index_reference(a: np.ndarray, widths: Pairs, mode: str,
                             value: Any = 0) -> np.ndarray:
    """'original_index' by hand: output element o reads input element o - before."""
    maps, inside = [], []
    for n, (b, e) in zip(a.shape, widths):
        pos = np.arange(n + b + e) - b
        maps.append(fold(pos, n, mode))
        inside.append((pos >= 0) & (pos < n))
    out = a[np.ix_(*maps)]
    if mode == "constant":
        mask = np.ones(out.shape, dtype=bool)
        for axis, ok in enumerate(inside):
            shape = [1] * a.ndim
            shape[axis] = ok.size
            mask &= ok.reshape(shape)
        out = np.where(mask, out, np.asarray(value, dtype=a.dtype))
    return out


@st.composite
def cropping_widths(draw: st.DrawFn, shape: Tuple[int, ...]) -> Pairs:
    """Widths from -n to +6 per side, never cropping more than the whole axis."""
    pairs = []
    for n in shape:
        b = draw(st.integers(-n, 6))
        e = draw(st.integers(-(n - max(-b, 0)), 6))
        pairs.append((b, e))
    return pairs


@settings(max_examples=examples(200))
@given(data=st.data())
def test_crop_first_is_crop_then_numpy_pad_and_onnx(data: st.DataObject) -> None:
    shape = data.draw(small_shapes)
    a = sample(shape, data.draw(st.sampled_from([np.int32, np.float64, np.uint8])))
    widths = data.draw(cropping_widths(shape))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
    try:
        want = crop_then_pad(a, widths, mode)
    except ValueError:  # an axis cropped to nothing, then padded by a non-constant mode
        with pytest.raises(ValueError):
            ndpad.pad(a, widths, mode, negative_pads="crop_first")
        return
    got = ndpad.pad(a, widths, mode, negative_pads="crop_first")
    assert_same_array(got, want)
    if mode != "symmetric":
        pads = [b for b, _ in widths] + [e for _, e in widths]
        assert_same_array(ndpad.onnx.pad(a, pads, mode, opset=19), want, layout=False)


@settings(max_examples=examples(200))
@given(data=st.data())
def test_original_index_is_index_map_and_openvino(data: st.DataObject) -> None:
    shape = data.draw(small_shapes)
    a = sample(shape, data.draw(st.sampled_from([np.int16, np.float32])))
    widths = data.draw(cropping_widths(shape))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]))
    assume(all(n + b + e >= 0 for n, (b, e) in zip(shape, widths)))
    value = data.draw(st.integers(-5, 5))
    kw: Dict[str, Any] = {"constant_values": value} if mode == "constant" else {}
    got = ndpad.pad(a, widths, mode, negative_pads="original_index", **kw)
    want = original_index_reference(a, widths, mode, value)
    assert_same_array(got, want, layout=False)
    limit = {"reflect": 1, "symmetric": 0}.get(mode)  # OpenVINO's bound on the pads
    if mode != "wrap" and (limit is None or all(
            max(b, e) <= n - limit for n, (b, e) in zip(shape, widths))):
        ov = ndpad.openvino.pad(a, [b for b, _ in widths], [e for _, e in widths], mode,
                                value if mode == "constant" else None)
        assert_same_array(ov, want, layout=False)
    if all(b >= 0 and e >= 0 for b, e in widths):  # no crop: numpy's own result
        assert_same_array(got, numpy_pad(a, widths, mode, **kw))


def test_negative_pads_examples() -> None:
    a = np.array([1, 2, 3, 4, 5])
    assert ndpad.pad(a, (-1, 2), "reflect", negative_pads="crop_first").tolist() == \
        [2, 3, 4, 5, 4, 3]
    # crop_first reflects the cropped array, original_index the uncropped one
    assert ndpad.pad(a, (-3, 2), "reflect", negative_pads="crop_first").tolist() == \
        [4, 5, 4, 5]
    assert ndpad.pad(a, (-3, 2), "reflect", negative_pads="original_index").tolist() == \
        [4, 5, 4, 3]
    assert ndpad.pad(a, (-3, 2), "symmetric", negative_pads="crop_first").tolist() == \
        [4, 5, 5, 4]
    assert ndpad.pad(a, (-4, 3), "wrap", negative_pads="crop_first").tolist() == \
        [5, 5, 5, 5]
    assert ndpad.pad(a, (-4, 3), "wrap", negative_pads="original_index").tolist() == \
        [5, 1, 2, 3]


@pytest.mark.parametrize("negative_pads", [None, "crop_first", "original_index"])
def test_negative_pads_keyword_checked(negative_pads: Any) -> None:
    a = np.arange(4)
    if negative_pads is None:
        with pytest.raises(ValueError, match="index can't contain negative values"):
            ndpad.pad(a, (-1, 1), negative_pads=negative_pads)
    else:
        assert ndpad.pad(a, (-1, 1), negative_pads=negative_pads).shape == (4,)
    with pytest.raises(ndpad.PadError, match="negative_pads must be"):
        ndpad.pad(a, 1, negative_pads="crop")


@pytest.mark.parametrize("mode", ["mean", "linear_ramp", "maximum"])
def test_negative_pads_refused_where_undefined(mode: str) -> None:
    with pytest.raises(ndpad.PadError):
        ndpad.pad(np.arange(5.0), (-1, 1), mode, negative_pads="crop_first")


def test_over_cropping_is_an_error_like_onnx() -> None:
    a = np.arange(5)
    with pytest.raises(ndpad.PadError):
        ndpad.onnx.pad(a, [-6, 0])
    with pytest.raises(ndpad.PadError):
        ndpad.pad(a, (-6, 0), negative_pads="crop_first")


# ---------------------------------------------------------------------------
# interior
# ---------------------------------------------------------------------------

def interior_reference(a: np.ndarray, widths: Pairs, interior: List[int],
                       value: Any) -> np.ndarray:
    spread = [(n - 1) * (i + 1) + 1 if n else 0 for n, i in zip(a.shape, interior)]
    out = np.full([b + s + e for s, (b, e) in zip(spread, widths)], value, dtype=a.dtype)
    out[tuple(slice(b, b + s, i + 1) for s, (b, _), i in zip(spread, widths, interior))] = a
    return out


@settings(max_examples=examples(150))
@given(data=st.data())
def test_interior_matches_reference_and_ngraph(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple))
    a = sample(shape, data.draw(st.sampled_from([np.int8, np.float64, np.complex64])))
    widths = [(data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))) for _ in shape]
    interior = [data.draw(st.integers(0, 3)) for _ in shape]
    value = data.draw(st.integers(-9, 9))
    form = data.draw(st.sampled_from(["list", "int"]))
    arg: Any = interior if form == "list" else interior[0]
    if form == "int":
        interior = [interior[0]] * len(shape)
    got = ndpad.pad(a, widths, interior=arg, constant_values=value)
    want = interior_reference(a, widths, interior, value)
    assert_same_array(got, want)
    ng = ndpad.ngraph.pad(a, [b for b, _ in widths], [e for _, e in widths], interior, value)
    assert_same_array(ng, want, layout=False)


def test_interior_object_and_string_arrays() -> None:
    o = np.array([1, "x", None], dtype=object)
    got = ndpad.pad(o, 1, interior=1, constant_values="-")
    assert got.tolist() == ["-", 1, "-", "x", "-", None, "-"]
    s = np.array(["ab", "c"])
    assert ndpad.pad(s, (0, 1), interior=2, constant_values="z").tolist() == \
        ["ab", "z", "z", "c", "z"]


def _strings(kind: str, texts: List[str], shape: Tuple[int, ...]) -> np.ndarray:
    if kind == "O":
        a = np.empty(len(texts), dtype=object)
        a[:] = texts
    elif kind == "Ob":
        a = np.empty(len(texts), dtype=object)
        a[:] = [t.encode("utf-8") for t in texts]
    else:
        a = np.array([t.encode("utf-8") for t in texts] if kind == "S" else texts)
    return a.reshape(shape)


@pytest.mark.parametrize("kind", ["O", "Ob", "U", "S"])
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap"])
def test_framework_string_tensors(kind: str, mode: str) -> None:
    """String tensors through the three front ends equal numpy.pad of the object
    array (the constant '' by default, or given), of the input's kind: object arrays
    of the first element's type, U / S as wide as the widest string picked."""
    texts = ["a", "héllo", "", "xyz", "bb", "\u2603"]
    a = _strings(kind, texts, (2, 3))
    widths = [(1, 2), (3, 1)]
    constant = "const" if mode == "constant" else None
    reference = np.pad(_strings("O", texts, (2, 3)), widths, mode,
                       **({"constant_values": constant} if constant else {}))
    if mode == "constant" and constant is None:
        reference[reference == 0] = ""
    want = _strings(kind, [str(t) for t in reference.reshape(-1)], reference.shape)
    onnx = ndpad.onnx.pad(a, [1, 3, 2, 1], mode, constant, opset=19)
    results = [onnx]
    if mode == "constant":  # OpenVINO and nGraph pad strings in constant mode only
        results.append(ndpad.openvino.pad(a, [1, 3], [2, 1], mode, constant))
        results.append(ndpad.ngraph.pad(a, [1, 3], [2, 1], None, constant))
    for got in results:
        assert got.dtype == want.dtype and got.tolist() == want.tolist(), (got, want)
        assert [type(x) for x in got.reshape(-1)] == [type(x) for x in want.reshape(-1)]


@pytest.mark.parametrize("kwargs, exc", [
    ({"interior": -1}, ndpad.PadError),
    ({"interior": [1, 2, 3]}, ndpad.PadError),
    ({"interior": 1.5}, TypeError),
    ({"interior": 1, "mode": "edge"}, ndpad.PadError),
    ({"interior": 1, "constant_values": (1, 2)}, ndpad.PadError),
    ({"interior": 1, "mode": lambda *a: None}, ndpad.PadError),
])
def test_interior_refusals(kwargs: Dict[str, Any], exc: type) -> None:
    with pytest.raises(exc):
        ndpad.pad(np.arange(6).reshape(2, 3), 1, **kwargs)


# ---------------------------------------------------------------------------
# A mode per axis
# ---------------------------------------------------------------------------

PER_AXIS_MODES = ["constant", "edge", "reflect", "symmetric", "wrap", "mean", "maximum",
                  "minimum", "median", "linear_ramp"]


@settings(max_examples=examples(150))
@given(data=st.data())
def test_mode_sequence_is_successive_numpy_pads(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
    a = sample(shape, data.draw(st.sampled_from([np.int32, np.float64])))
    modes = [data.draw(st.sampled_from(PER_AXIS_MODES)) for _ in shape]
    widths = [(data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5))) for _ in shape]
    seq: Any = modes if data.draw(st.booleans()) else tuple(modes)
    got = ndpad.pad(a, widths, seq)
    want = a
    axis = 0
    while axis < len(modes):  # one numpy.pad per group of equal consecutive modes
        group = axis
        while group < len(modes) and modes[group] == modes[axis]:
            group += 1
        part = [w if axis <= k < group else (0, 0) for k, w in enumerate(widths)]
        want = numpy_pad(want, part, modes[axis])
        axis = group
    assert_same_array(got, want, layout=False)


def test_mode_sequence_with_keywords() -> None:
    a = np.arange(12.0).reshape(3, 4)
    got = ndpad.pad(a, 2, ["constant", "linear_ramp"], constant_values=7, end_values=-1)
    want = numpy_pad(numpy_pad(a, ((2, 2), (0, 0)), "constant", constant_values=7),
                     ((0, 0), (2, 2)), "linear_ramp", end_values=-1)
    assert_same_array(got, want)


@pytest.mark.parametrize("mode, exc", [
    (["edge"], ValueError),
    (["edge", "edge", "edge"], ValueError),
    (["edge", "bogus"], ValueError),
    (["edge", 3], ValueError),
])
def test_mode_sequence_refusals(mode: Any, exc: type) -> None:
    with pytest.raises(exc):
        ndpad.pad(np.ones((2, 2)), 1, mode)


def test_mode_sequence_unsupported_keyword() -> None:
    with pytest.raises(ValueError, match="unsupported keyword"):
        ndpad.pad(np.ones((2, 2)), 1, ["edge", "wrap"], constant_values=1)


# ---------------------------------------------------------------------------
# out=
# ---------------------------------------------------------------------------

OUT_CASES = [
    ("constant", {"constant_values": ((1, 2), (3, 4))}),
    ("edge", {}), ("reflect", {}), ("symmetric", {"reflect_type": "odd"}), ("wrap", {}),
    ("mean", {"stat_length": 2}), ("median", {}), ("maximum", {}), ("minimum", {}),
    ("linear_ramp", {"end_values": 5}),
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("mode, kwargs", OUT_CASES)
def test_out_gives_the_same_result(mode: str, kwargs: Dict[str, Any], order: str) -> None:
    a = np.asarray(sample((3, 4), np.float64), order=order)
    want = numpy_pad(a, ((1, 2), (3, 1)), mode, **kwargs)
    for out_order in ("C", "F"):
        out = np.full(want.shape, -99.0, order=out_order)
        got = ndpad.pad(a, ((1, 2), (3, 1)), mode, out=out, **kwargs)
        assert got is out
        assert_same_array(out, want, layout=False)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap", "symmetric"])
def test_tiny_planes_strided_fresh_and_threaded(mode: str) -> None:
    """7x7 maps padded to 9x9 (whole planes from the kernel's table, #31): a view whose
    channels are strided (runs of planes a stride apart), the channels padded too or
    not, into a fresh output (over 32 MiB: the pool's zeroed memory) and into
    ``out=``, on one thread and two; float32 and float64 (a table of words), float16
    and uint8 (a table of bytes)."""
    rng = np.random.default_rng(7)
    cases = [(np.float32, 200), (np.float64, 8), (np.float16, 64), (np.uint8, 64)]
    for dtype, n in cases:
        x = (rng.random((n, 1024, 7, 7)) * 100).astype(dtype)[:, ::2]
        for pw in [((0, 0), (0, 0), (1, 1), (1, 1)), ((0, 1), (2, 1), (1, 2), (2, 1))]:
            want = numpy_pad(x, pw, mode)
            for threads in [1, 2]:
                assert_same_array(ndpad.pad(x, pw, mode, threads=threads), want)
                out = np.full(want.shape, 77, dtype)  # written whole
                assert ndpad.pad(x, pw, mode, out=out, threads=threads) is out
                assert_same_array(out, want)


def test_out_strided_and_object() -> None:
    a = sample((3, 4))
    want = numpy_pad(a, 1, "wrap")
    big = np.zeros((10, 12), dtype=a.dtype)
    out = big[::2, ::2]
    assert ndpad.pad(a, 1, "wrap", out=out) is out
    assert_same_array(out, want, layout=False)
    o = np.array([1, "a", None], dtype=object)
    oo = np.empty(5, dtype=object)
    assert ndpad.pad(o, 1, "edge", out=oo) is oo
    assert oo.tolist() == [1, 1, "a", None, None]


class _Tracked:
    """An object whose references the tests count."""


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_object_references_are_counted(mode: str, order: str) -> None:
    """Object arrays are padded on their pointers: each output element owns one
    reference, the objects an ``out=`` held are released, nothing leaks or is freed
    early (#31: object arrays at numpy.pad's speed)."""
    import sys

    items = [_Tracked() for _ in range(6)]
    a = np.empty((2, 3), dtype=object, order=order)
    a[...] = np.array(items, dtype=object).reshape(2, 3)
    fill = _Tracked()
    kwargs: Dict[str, Any] = {"constant_values": fill} if mode == "constant" else {}
    before = [sys.getrefcount(x) for x in items + [fill]]
    want = numpy_pad(a, ((2, 1), (1, 3)), mode, **kwargs)
    got = ndpad.pad(a, ((2, 1), (1, 3)), mode, **kwargs)
    assert got.tolist() == want.tolist()
    assert [x is y for x, y in zip(got.flat, want.flat)] == [True] * want.size
    assert [sys.getrefcount(x) for x in items + [fill]] == [
        b + 2 * int(np.sum(want == x)) for b, x in zip(before, items + [fill])]
    del want
    # Into an out= holding other objects: those are released, once each.
    held = [_Tracked() for _ in range(got.size)]
    out = np.array(held + [None], dtype=object)[:-1].reshape(got.shape)
    held_before = [sys.getrefcount(h) for h in held]
    assert ndpad.pad(a, ((2, 1), (1, 3)), mode, out=out, **kwargs) is out
    assert [sys.getrefcount(h) for h in held] == [n - 1 for n in held_before]
    assert out.tolist() == got.tolist()
    del got, out
    assert [sys.getrefcount(x) for x in items + [fill]] == before


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("strided", [False, True])
def test_object_null_elements_read_as_none(order: str, strided: bool) -> None:
    """An object array holding null pointers (C extensions make them; numpy reads them
    as None): padded with a constant, the nulls stay None, only the pads hold the
    constant."""
    import ctypes

    base = np.empty((4, 6), dtype=object, order=order)
    base[...] = np.arange(24).reshape(4, 6)
    for index in [(0, 0), (1, 2), (3, 5)]:
        # The element's slot cleared (its int is left alive: a leak, not a free).
        offset = sum(i * s for i, s in zip(index, base.strides))
        ctypes.memset(base.ctypes.data + offset, 0, base.itemsize)
    a = base[:, ::2] if strided else base
    assert a.tolist() == numpy_pad(a, 0).tolist()
    marker = _Tracked()
    for kwargs in [{"constant_values": 7}, {"constant_values": marker}, {}]:
        want = numpy_pad(a, ((1, 2), (2, 1)), "constant", **kwargs)
        got = ndpad.pad(a, ((1, 2), (2, 1)), "constant", **kwargs)
        assert got.tolist() == want.tolist(), kwargs
    assert ndpad.pad(a, 2, "edge").tolist() == numpy_pad(a, 2, "edge").tolist()


def test_object_constants_per_side_and_interior() -> None:
    a = np.array([[1, "x"], [None, 2.5]], dtype=object)
    sides = ((("a", "b"), ("c", "d")))
    assert ndpad.pad(a, 1, constant_values=sides).tolist() == numpy_pad(
        a, 1, "constant", constant_values=sides).tolist()
    marker = _Tracked()
    got = ndpad.pad(a, 1, interior=1, constant_values=marker)
    assert got.shape == (5, 5)
    assert got[0, 0] is marker and got[2, 2] is marker and got[1, 2] is marker
    assert got[1, 1] == 1 and got[3, 3] is a[1, 1] and got[3, 1] is None


def test_object_constant_record() -> None:
    """The one object every side holds, None included, is recorded in its cell (the
    kernel writes it); none where the sides differ or there are none (a 0-d array's:
    an IndexError before)."""
    obj = np.dtype(object)
    c = dispatch.constants(obj, [(None, None)] * 2, [0, 0])
    assert c.fill is not None and c.fill[()] is None
    assert dispatch.constants(obj, [("a", "b")], [0]).fill is None
    assert dispatch.constants(obj, [], []).fill is None


def test_out_with_mode_sequence_and_0d() -> None:
    a = sample((2, 3))
    out = np.empty((4, 7), dtype=a.dtype)
    assert ndpad.pad(a, ((1, 1), (2, 2)), ["edge", "wrap"], out=out) is out
    assert_same_array(out, numpy_pad(numpy_pad(a, ((1, 1), (0, 0)), "edge"),
                                     ((0, 0), (2, 2)), "wrap"))
    z = np.array(4.0)
    out0 = np.empty(())
    assert ndpad.pad(z, 3, out=out0) is out0 and out0[()] == 4.0


def _bad_outs(a: np.ndarray, shape: Tuple[int, ...]) -> List[Tuple[str, Any, type]]:
    ro = np.empty(shape, dtype=a.dtype)
    ro.flags.writeable = False
    return [
        ("shape", np.empty(shape[:-1] + (shape[-1] + 1,), dtype=a.dtype), ValueError),
        ("rank", np.empty((int(np.prod(shape)),), dtype=a.dtype), ValueError),
        ("dtype", np.empty(shape, dtype=np.float32), ValueError),
        ("byteorder", np.empty(shape, dtype=a.dtype.newbyteorder()), ValueError),
        ("read-only", ro, ValueError),
        ("list", np.empty(shape, dtype=a.dtype).tolist(), TypeError),
    ]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "mean", "linear_ramp",
                                  ("edge", "wrap")])
def test_bad_out_refused(mode: Any) -> None:
    a = sample((3, 4), np.float64)
    shape = (5, 6)
    for what, out, exc in _bad_outs(a, shape):
        snapshot = None if isinstance(out, list) else out.copy()
        with pytest.raises(exc):
            ndpad.pad(a, 1, mode, out=out)
        if snapshot is not None and what != "read-only":
            assert out.shape != shape or out.dtype != a.dtype or \
                np.array_equal(out, snapshot, equal_nan=True), what


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "mean", "linear_ramp",
                                  ("edge", "wrap"), ("reflect", "symmetric")])
@pytest.mark.parametrize("dtype", [np.float64, object])
def test_overlapping_out_refused(mode: Any, dtype: Any) -> None:
    buf = np.arange(40).astype(dtype)
    a = buf[10:22].reshape(3, 4)
    out = buf[:30].reshape(5, 6)
    kwargs = {"reflect_type": "odd"} if mode == ("reflect", "symmetric") else {}
    before = buf.copy()
    with pytest.raises(ValueError, match="overlap"):
        ndpad.pad(a, 1, mode, out=out, **kwargs)
    assert buf.tolist() == before.tolist()  # nothing written


def test_out_aliasing_the_input_0d_refused() -> None:
    z = np.array(3.0)
    with pytest.raises(ValueError, match="overlap"):
        ndpad.pad(z, 1, out=z)


# ---------------------------------------------------------------------------
# threads=
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("threads", [None, 0, 1, 2, 7])
@pytest.mark.parametrize("mode", ["constant", "reflect", "wrap", "mean"])
def test_threads_do_not_change_the_result(threads: Any, mode: str) -> None:
    a = sample((64, 33, 5), np.float32)
    want = numpy_pad(a, ((3, 40), (0, 70), (2, 2)), mode)
    assert_same_array(ndpad.pad(a, ((3, 40), (0, 70), (2, 2)), mode, threads=threads), want)


THREADS_RANGE = "threads must be an integer from 0 (all cores) to 1024"

# Every function taking threads=: ndpad.pad, the framework functions, ndpad.dask.pad.
PADS_WITH_THREADS: Dict[str, Callable[..., Any]] = {
    "numpy": lambda a, **kw: ndpad.pad(a, 1, **kw),
    "onnx": lambda a, **kw: ndpad.onnx.pad(a, [1, 1], **kw),
    "openvino": lambda a, **kw: ndpad.openvino.pad(a, [1], [1], **kw),
    "ngraph": lambda a, **kw: ndpad.ngraph.pad(a, [1], [1], **kw),
}
if importlib.util.find_spec("dask") is not None:
    PADS_WITH_THREADS["dask"] = lambda a, **kw: ndpad.dask.pad(a, 1, **kw)


@pytest.mark.parametrize("threads, exc, message", [
    (-1, ValueError, f"{THREADS_RANGE}, not -1"),
    (1025, ValueError, f"{THREADS_RANGE}, not 1025"),
    (2**64, ValueError, f"{THREADS_RANGE}, not {2**64}"),
    (2**70, ValueError, f"{THREADS_RANGE}, not {2**70}"),
    (1.5, TypeError, f"{THREADS_RANGE}, not 1.5 (float)"),
    ("2", TypeError, f"{THREADS_RANGE}, not '2' (str)"),
    (np.float64(2.0), TypeError, f"{THREADS_RANGE}, not np.float64(2.0) (float64)"),
])
@pytest.mark.parametrize("func", list(PADS_WITH_THREADS))
def test_bad_threads(func: str, threads: Any, exc: type, message: str) -> None:
    """One check of threads= in every function: numpy-style TypeError / ValueError
    naming the value and the range (the frameworks took 1.5 and '2', and raised
    OverflowError for -1 and 2**64)."""
    with pytest.raises(exc) as info:
        PADS_WITH_THREADS[func](np.arange(3.0), threads=threads)
    assert type(info.value) is exc and str(info.value) == message


@pytest.mark.parametrize("func", list(PADS_WITH_THREADS))
def test_good_threads(func: str) -> None:
    want = np.pad(np.arange(3.0), 1)
    for threads in (None, 0, 1, 1024, np.int8(2), True):
        got = PADS_WITH_THREADS[func](np.arange(3.0), threads=threads)
        assert np.asarray(got).tolist() == want.tolist()


OPSET_FUNCTIONS: Dict[str, Callable[[Any], Any]] = {
    "onnx.pad": lambda o: ndpad.onnx.pad(np.arange(3.0), [1, 1], opset=o),
    "onnx.output_shape": lambda o: ndpad.onnx.output_shape([3], [1, 1], opset=o),
    "openvino.pad": lambda o: ndpad.openvino.pad(np.arange(3.0), [1], [1], opset=o),
    "openvino.output_shape": lambda o: ndpad.openvino.output_shape([3], [1], [1], opset=o),
}
OPSET_RANGE = "opset must be an integer from -9223372036854775808 to 9223372036854775807"


@pytest.mark.parametrize("opset, exc, message", [
    (2**70, ValueError, f"{OPSET_RANGE}, not {2**70}"),
    (-2**63 - 1, ValueError, f"{OPSET_RANGE}, not {-2**63 - 1}"),
    (12.0, TypeError, f"{OPSET_RANGE}, not 12.0 (float)"),
    ("12", TypeError, f"{OPSET_RANGE}, not '12' (str)"),
    (30, ndpad.PadError, None),
])
@pytest.mark.parametrize("func", list(OPSET_FUNCTIONS))
def test_bad_opset(func: str, opset: Any, exc: type, message: Optional[str]) -> None:
    """opset= is checked as threads= is (it raised OverflowError past 64 bits); in
    range, the front end names the operator's versions."""
    with pytest.raises(exc) as info:
        OPSET_FUNCTIONS[func](opset)
    assert type(info.value) is exc
    if message is not None:
        assert str(info.value) == message
    else:
        assert "opset 30" in str(info.value)


INT64_RANGE = "from -9223372036854775808 to 9223372036854775807"


@pytest.mark.parametrize("call, exc, message", [
    (lambda: ndpad.onnx.pad(np.arange(3.0), np.array([2**63, 0], dtype=np.uint64)),
     ValueError, f"an element of pads must be an integer {INT64_RANGE}, not {2**63}"),
    (lambda: ndpad.onnx.pad(np.arange(3.0), [2**70, 0]),
     ValueError, f"an element of pads must be an integer {INT64_RANGE}, not {2**70}"),
    (lambda: ndpad.onnx.pad(np.arange(3.0), [1, 0], axes=[2**64]),
     ValueError, f"an element of axes must be an integer {INT64_RANGE}, not {2**64}"),
    (lambda: ndpad.openvino.pad(np.arange(3.0), [2**63], [0]),
     ValueError, f"an element of pads_begin must be an integer {INT64_RANGE}, not {2**63}"),
    (lambda: ndpad.ngraph.pad(np.arange(3.0), [0], [0], [2**63]), ValueError,
     f"an element of padding_interior must be an integer {INT64_RANGE}, not {2**63}"),
    (lambda: ndpad.onnx.pad(np.arange(3.0), [1.5, 0]),
     TypeError, "pads must hold integers, not float64"),
    (lambda: ndpad.onnx.output_shape([-1], [1, 1]),
     ValueError, "a dim must be an integer from 0 to 9223372036854775807, not -1"),
    (lambda: ndpad.openvino.output_shape([2**70], [1], [1]), ValueError,
     f"a dim must be an integer from 0 to 9223372036854775807, not {2**70}"),
    (lambda: ndpad.ngraph.output_shape([1.5], [1], [1]), TypeError,
     "a dim must be an integer from 0 to 9223372036854775807, not 1.5 (float)"),
])
def test_framework_integers_checked(call: Callable[[], Any], exc: type,
                                    message: str) -> None:
    """The integer lists and dims of the framework functions go through the same
    check as threads= and opset= (they raised OverflowError past 64 bits, a pyo3
    extraction error for a negative dim, and took a dim of 1.5 as 1)."""
    with pytest.raises(exc) as info:
        call()
    assert type(info.value) is exc and str(info.value) == message


def test_integer_array_pads_as_lists() -> None:
    """An integer array of pads (ONNX's ``pads`` input) pads as the list of its values;
    one of more than one axis is refused."""
    a = np.arange(12.0).reshape(3, 4)
    want = ndpad.onnx.pad(a, [1, -1, 2, 0])
    for dt in (np.int8, np.int16, np.int32, np.int64):
        assert_same_array(ndpad.onnx.pad(a, np.array([1, -1, 2, 0], dt)), want)
    assert_same_array(ndpad.onnx.pad(a, np.array([1, 0, 2, 0], np.uint8)),
                      ndpad.onnx.pad(a, [1, 0, 2, 0]))
    with pytest.raises(ndpad.PadError, match="1-D list of integers, not shape"):
        ndpad.onnx.pad(a, np.array([[1, 1], [1, 1]]))


def test_any_layout_read_where_it_lies():
    """An input in any layout without negative strides (a slice, a step on the last
    axis, a transpose) is read where it lies: the only allocation is the output (rows
    not in C order are gathered a box at a time, in buffers of the kernel's); one with
    a negative stride is copied once; all equal numpy.pad."""
    import tracemalloc

    base = np.arange(64 * 40 * 50, dtype=np.float32).reshape(64, 40, 50)
    for view, copied in [(base[::2, 3:37], False), (base[:, :, ::2], False),
                         (base.transpose(1, 0, 2), False), (base[:, ::-1], True)]:
        assert not view.flags.c_contiguous
        tracemalloc.start()
        got = ndpad.pad(view, ((1, 2), (3, 0), (2, 2)), mode="reflect")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        np.testing.assert_array_equal(got, np.pad(view, ((1, 2), (3, 0), (2, 2)), mode="reflect"))
        extra = peak - got.nbytes
        if copied:
            assert extra >= view.nbytes, extra
        else:
            assert extra < view.nbytes // 4, extra


@pytest.mark.parametrize("threads", [1, 2])
def test_gathered_layouts_of_many_boxes(threads: int) -> None:
    """Outputs of many boxes from inputs whose rows are not in C order (a step on the
    last axis, a channel of an image, transposes, channels last read as channels first,
    a broadcast axis, text and complex elements): numpy.pad's result in every index
    mode, on one thread or two."""
    rng = np.random.default_rng(5)
    image = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
    wide = rng.random((300, 1200))
    text = np.array(["a", "bc", "def", ""], dtype="<U3")[rng.integers(0, 4, (200, 300))]
    views = [wide[:, ::3], image[..., 1], image.transpose(2, 0, 1),
             (wide[:, ::2] + 1j * wide[:, 1::2])[::2, ::3],
             np.broadcast_to(wide[:1, :700], (300, 700)), text[:, ::2],
             wide.astype(np.float32).reshape(300, 30, 40).transpose(1, 2, 0),
             # Channels last read as channels first (NHWC as NCHW).
             rng.random((2, 30, 40, 64), dtype=np.float32).transpose(0, 3, 1, 2),
             rng.integers(0, 255, (2, 60, 50, 100), dtype=np.uint8).transpose(0, 3, 1, 2)]
    for view in views:
        assert not view.flags.c_contiguous and not view.flags.f_contiguous
        pads = [(3, 9)] + [(5, 2)] * (view.ndim - 1)
        for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
            want = np.pad(view, pads, mode=mode)
            assert_same_array(ndpad.pad(view, pads, mode=mode, threads=threads), want)


def test_object_arrays_in_other_layouts() -> None:
    """Object arrays whose pointers lie whole pointers apart are read where they lie
    (a step, a transpose); a field of a record array (12 or 17 bytes apart, or off the
    pointers' alignment) is copied first; all as numpy.pad, the references right."""
    items = np.empty((6, 8), dtype=object)
    items[...] = [[f"s{i}" for i in range(8)] for _ in range(6)]
    records = np.zeros(5, dtype="O,u4")
    records["f0"] = ["a", 2, None, 3.5, "e"]
    packed = np.zeros(5, dtype={"names": ["k", "v"], "formats": ["u1", "O"],
                                "offsets": [0, 1], "itemsize": 17})
    packed["v"] = list("abcde")
    before = [sys.getrefcount(x) for x in items.flat]
    for view in (items[:, ::3], items.T[::2], records["f0"], packed["v"]):
        for mode, kw in (("constant", {"constant_values": "c"}), ("edge", {}),
                         ("reflect", {})):
            got = ndpad.pad(view, 2, mode=mode, **kw)
            assert got.tolist() == numpy_pad(view, 2, mode=mode, **kw).tolist()
            del got
    assert [sys.getrefcount(x) for x in items.flat] == before


def test_ngraph_reflect_of_one_element_rejected() -> None:
    """nGraph's pad_deduce_too_small_for_reflect: REFLECT of an axis of one element is
    an error, in ndpad.ngraph.pad and its shape inference; axes of two repeat."""
    want = ("nGraph Pad-0: REFLECT pads axis 2 (2 below, 2 above) but the axis has 1 "
            "element; REFLECT needs at least 2 on a padded axis")
    x = np.zeros((1, 5, 1, 2), dtype=np.float32)
    with pytest.raises(ndpad.PadError) as info:
        ndpad.ngraph.pad(x, [0, 1, 2, 3], [0, 1, 2, 3], pad_mode="reflect")
    assert str(info.value) == want
    with pytest.raises(ndpad.PadError) as info:
        ndpad.ngraph.output_shape([1, 5, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3],
                                  pad_mode="reflect")
    assert str(info.value) == want
    got = ndpad.ngraph.pad(np.array([1, 2]), [5], [4], pad_mode="reflect")
    assert got.tolist() == np.pad(np.array([1, 2]), (5, 4), mode="reflect").tolist()


@pytest.mark.parametrize("call, message", [
    (lambda: ndpad.onnx.pad(np.arange(4), [1, 1], constant_value=1.5),
     'ONNX Pad-25: constant_value: invalid int64 value "1.5": not an integer'),
    (lambda: ndpad.openvino.pad(np.arange(4), [1], [1], pad_value=1.5),
     'OpenVINO Pad-12: pad_value: invalid int64 value "1.5": not an integer'),
    (lambda: ndpad.ngraph.pad(np.arange(4), [1], [1], pad_value=1.5),
     'nGraph Pad-0: arg_pad_value: invalid int64 value "1.5": not an integer'),
    (lambda: ndpad.onnx.pad(np.arange(4, dtype=np.uint8), [1, 1], constant_value=-1),
     'ONNX Pad-25: constant_value: invalid uint8 value "-1": out of range 0..=255'),
    (lambda: ndpad.onnx.pad(np.arange(4, dtype=np.int8), [1, 1], constant_value=2**200),
     f'ONNX Pad-25: constant_value: invalid int8 value "{2**200}": out of range -128..=127'),
    (lambda: ndpad.onnx.pad(np.zeros(2, np.float32), [1, 1], constant_value=1e40),
     'ONNX Pad-25: constant_value: invalid float32 value "1e+40": out of range: the largest '
     'finite float32 is 3.4028235e38'),
    (lambda: ndpad.onnx.pad(np.zeros(2), [1, 1], constant_value=1j),
     'ONNX Pad-25: constant_value: invalid float64 value "0.0,1.0": not a number'),
])
def test_framework_constant_has_the_data_type(call: Callable[[], Any], message: str) -> None:
    """A Python number is read as a value of the data's type by the front end, as the
    CLI's --value: 1.5 for integer data is refused (it padded with 1), with the
    CLI's message."""
    with pytest.raises(ndpad.PadError) as info:
        call()
    assert str(info.value) == message


def test_framework_constant_python_numbers_accepted() -> None:
    assert ndpad.onnx.pad(np.arange(2), [1, 1], constant_value=-3).tolist() == [-3, 0, 1, -3]
    assert ndpad.onnx.pad(np.arange(2), [1, 0], constant_value=True).tolist() == [1, 0, 1]
    got = ndpad.onnx.pad(np.zeros(1, np.float32), [1, 0], constant_value=0.1)
    assert got[0] == np.float32(0.1)
    got = ndpad.openvino.pad(np.zeros(1, np.complex64), [1], [0], pad_value=1 + 2j)
    assert got[0] == np.complex64(1 + 2j)
    assert np.isnan(ndpad.ngraph.pad(np.zeros(1), [1], [0], pad_value=float("nan"))[0])
    assert ndpad.onnx.pad(np.zeros(1, bool), [1, 0], constant_value=True).tolist() == [True, False]
    # numpy.pad's casting stays in ndpad.pad.
    assert ndpad.pad(np.arange(2), 1, constant_values=1.5).tolist() == [1, 0, 1, 1]


# ---------------------------------------------------------------------------
# order=
# ---------------------------------------------------------------------------

def laid_out_as(result: np.ndarray, axes: Tuple[int, ...]) -> bool:
    """Whether ``result``'s axes lie in memory in the order ``axes`` (outermost first)."""
    return bool(result.transpose(axes).flags.c_contiguous)


#: Modes with their keywords: padded in the asked layout (the index modes with one
#: constant) and copied into it (the rest).
ORDER_MODES = [
    ("constant", {}), ("constant", {"constant_values": 7}), ("edge", {}),
    ("reflect", {}), ("symmetric", {"reflect_type": "even"}), ("wrap", {}),
    ("constant", {"constant_values": ((1, 2), (3, 4), (5, 6), (7, 8))}),
    ("reflect", {"reflect_type": "odd"}), ("mean", {"stat_length": 2}),
    ("linear_ramp", {"end_values": 9}), ("maximum", {}),
]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=4, max_size=4), st.permutations(range(4)),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=4, max_size=4),
       st.sampled_from(ORDER_MODES), st.sampled_from(["C", "F", "K"]),
       st.sampled_from([1, 2, -1]))
def test_order_lays_out_numpys_values(shape: List[int], axes: List[int], widths: Pairs,
                                      mode_kwargs: Tuple[str, Dict[str, Any]],
                                      order: str, step: int) -> None:
    """A transposed view (its last axis stepped, or reversed) padded into each
    layout: numpy.pad's values, laid out as ``numpy.empty_like`` lays out that order
    ('K': as the input lies; axes of one element by numpy's rule), to the stride."""
    mode, kwargs = mode_kwargs
    array = sample(tuple(shape), np.float64).transpose(np.argsort(axes))[..., ::step]
    expected = numpy_pad(array, widths, mode, **kwargs)
    result = ndpad.pad(array, widths, mode, order=order, **kwargs)
    assert_same_array(result, expected, layout=False)
    want = np.empty_like(array, shape=expected.shape, order=order)
    assert result.strides == want.strides, (result.strides, want.strides)


@pytest.mark.parametrize("array", [
    # C-contiguous, F-contiguous, and neither; the axis of one element has the
    # largest stride, the smallest, or one in between.
    np.zeros((1, 2, 3)).transpose(1, 2, 0),
    np.zeros((4, 3, 1)).transpose(1, 2, 0),
    np.zeros((2, 1, 3, 1)).transpose(3, 1, 0, 2)[..., ::2],
], ids=["C", "F", "strided"])
def test_order_k_is_numpys_with_axes_of_one_element(array: np.ndarray) -> None:
    """'K' lays out axes of one element (padded to more) as ``numpy.empty_like``
    does: a C- or F-contiguous array keeps that order whatever their strides."""
    widths = [(1, 1)] * array.ndim
    result = ndpad.pad(array, widths, "edge", order="K")
    want = np.empty_like(array, shape=result.shape, order="K")
    assert result.strides == want.strides, (result.strides, want.strides)
    assert_same_array(result, numpy_pad(array, widths, "edge"), layout=False)


def test_order_k_pads_channels_last_in_place() -> None:
    """An NHWC batch seen as NCHW, padded on H and W with 'K': the output is NHWC in
    memory, numpy.pad's values; with interior padding per axis and crops too."""
    nhwc = sample((2, 5, 6, 3), np.float32)
    nchw = nhwc.transpose(0, 3, 1, 2)
    hw = ((0, 0), (0, 0), (1, 2), (2, 1))
    result = ndpad.pad(nchw, hw, order="K", threads=2)
    assert laid_out_as(result, (0, 2, 3, 1))
    assert_same_array(result, numpy_pad(nchw, hw), layout=False)
    spread = ndpad.pad(nchw, hw, interior=[0, 0, 1, 2], order="K")
    assert laid_out_as(spread, (0, 2, 3, 1))
    assert_same_array(spread, ndpad.pad(nchw, hw, interior=[0, 0, 1, 2]), layout=False)
    cropped = ndpad.pad(nchw, ((0, 0), (0, 0), (-1, 1), (2, -2)), "reflect",
                        negative_pads="crop_first", order="K")
    assert laid_out_as(cropped, (0, 2, 3, 1))
    assert_same_array(cropped, numpy_pad(nchw[:, :, 1:, :-2], ((0, 0), (0, 0), (0, 1),
                                                                (2, 0)), "reflect"),
                      layout=False)


def test_order_a_and_none_are_numpys_layout() -> None:
    f = np.asfortranarray(sample((3, 4)))
    for order in (None, "A"):
        assert_same_array(ndpad.pad(f, 1, "edge", order=order), numpy_pad(f, 1, "edge"))
    # 'C' of an F-ordered input, 'F' of a C-ordered one.
    assert ndpad.pad(f, 1, "edge", order="C").flags.c_contiguous
    assert ndpad.pad(f.T.copy(), 1, "wrap", order="F").flags.f_contiguous


def layout_sample(shape: Tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A C-ordered array of ``shape`` whose elements differ, of ``dtype``."""
    values = np.arange(int(np.prod(shape))).reshape(shape) % 97
    if dtype.names:
        made = np.empty(shape, dtype)
        made["a"], made["b"] = values.astype(object), values
        return made
    return values.astype(dtype)


def laid_empty(shape: Tuple[int, ...], dtype: np.dtype, axes: Tuple[int, ...]) -> np.ndarray:
    """An array of ``shape`` whose axes lie in memory in the order ``axes``."""
    return np.empty([shape[a] for a in axes], dtype).transpose(np.argsort(axes))


#: Element types of the kernel's other paths: objects (their pointers), text whose
#: constant is no kernel word (zeros, then each side's constant written over it), a
#: structured type with an object field (the elements' indices padded).
LAYOUT_DTYPES = [np.dtype(np.float32), np.dtype(object), np.dtype("U3"),
                 np.dtype([("a", object), ("b", np.int16)])]
#: Modes for them, with a constant per side where the type takes one.
LAYOUT_MODES = [("edge", {}), ("reflect", {}), ("wrap", {}), ("symmetric", {}),
                ("constant", {"constant_values": "sides"})]
#: Layouts of an output, outermost axis first: C and F order (where the kernel keeps
#: numpy's constants per side where pads meet: the later axis's), channels last, and
#: one with the last axis outermost.
LAYOUTS = [(0, 1, 2, 3), (3, 2, 1, 0), (0, 2, 3, 1), (3, 0, 1, 2)]


def with_sides(kwargs: Dict[str, Any], dtype: np.dtype) -> Dict[str, Any]:
    """``kwargs`` of ``LAYOUT_MODES`` for ``dtype``: ``constant_values="sides"`` made a
    constant per side of each of four axes, of a kind ``dtype`` takes."""
    if kwargs.get("constant_values") != "sides":
        return kwargs
    pairs = [(1, 2), (3, 4), (5, 6), (7, 8)]
    if dtype.kind == "U":
        return {"constant_values": [(str(b), f"{a}x") for b, a in pairs]}
    return {"constant_values": pairs}


@pytest.mark.parametrize("dtype", [d for d in LAYOUT_DTYPES if not d.names], ids=str)
@pytest.mark.parametrize("mode, kwargs", LAYOUT_MODES)
@pytest.mark.parametrize("axes", LAYOUTS)
@pytest.mark.parametrize("widths", [((1, 0), (0, 2), (1, 1), (2, 1)),
                                    ((0, 0), (1, 2), (0, 0), (2, 1)),
                                    ((0, 0), (0, 0), (1, 2), (2, -1))])
def test_order_lays_out_each_path(dtype: np.dtype, mode: str, kwargs: Dict[str, Any],
                                  axes: Tuple[int, ...], widths: Pairs) -> None:
    """Each layout asked of an array lying as ``axes`` ('K'), for each of the
    kernel's paths, with all axes padded, two (where their pads meet, numpy's
    constant per side is the later axis's), and H and W of a channels-last batch
    seen as NCHW (one cropped): numpy.pad's values, laid out as asked."""
    kwargs = with_sides(kwargs, dtype)
    nchw = layout_sample((2, 4, 5, 3), dtype).transpose(np.argsort(axes))
    negative = {"negative_pads": "crop_first"} if min(min(w) for w in widths) < 0 else {}
    result = ndpad.pad(nchw, widths, mode, order="K", **negative, **kwargs)
    assert laid_out_as(result, axes), (result.strides, axes)
    assert_same_array(result, crop_pad(nchw, widths, mode, **kwargs), layout=False)


def crop_pad(array: np.ndarray, widths: Pairs, mode: str, **kwargs: Any) -> np.ndarray:
    """numpy.pad of ``array`` cropped first where a width is negative (ONNX's
    ``negative_pads='crop_first'``)."""
    cropped = array[tuple(slice(max(-b, 0), n - max(-a, 0))
                          for n, (b, a) in zip(array.shape, widths))]
    return numpy_pad(cropped, [(max(b, 0), max(a, 0)) for b, a in widths], mode, **kwargs)


#: The cases of ``test_out_of_any_layout``: each type with each mode it takes (numpy
#: casts no constant to a structured type with objects, and computes no mean or odd
#: reflection of objects or text), and float32's odd reflection and mean.
OUT_LAYOUT_CASES = [
    (dtype, mode, kwargs) for dtype in LAYOUT_DTYPES for mode, kwargs in LAYOUT_MODES
    if not (dtype.names and kwargs)
] + [(np.dtype(np.float32), "reflect", {"reflect_type": "odd"}),
     (np.dtype(np.float32), "mean", {})]


@pytest.mark.parametrize("dtype, mode, kwargs", OUT_LAYOUT_CASES, ids=str)
@pytest.mark.parametrize("axes", LAYOUTS + ["strided"])
def test_out_of_any_layout(dtype: np.dtype, mode: str, kwargs: Dict[str, Any],
                           axes: Any) -> None:
    """``out=`` laid out in any order, or strided (padded apart and copied), for each
    of the kernel's paths: numpy.pad's values written into it, and it returned."""
    kwargs = with_sides(kwargs, dtype)
    nchw = layout_sample((2, 5, 3, 4), dtype).transpose(0, 3, 1, 2)
    widths = ((1, 0), (0, 2), (1, 1), (2, 1))
    want = numpy_pad(nchw, widths, mode, **kwargs)
    if axes == "strided":
        out = np.empty(want.shape[:-1] + (2 * want.shape[-1],), dtype)[..., ::2]
    else:
        out = laid_empty(want.shape, dtype, axes)
    assert ndpad.pad(nchw, widths, mode, out=out, **kwargs) is out
    assert_same_array(out, want, layout=False)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"order": "X"}, ndpad.PadError, "order must be None, 'A', 'C', 'F' or 'K', not 'X'"),
    ({"order": "K", "out": np.zeros((5, 6))}, TypeError,
     "order= lays out a new output; out= has its own layout"),
])
def test_bad_order_refused(kwargs: Dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error) as raised:
        ndpad.pad(sample((3, 4)).T, 1, **kwargs)
    assert str(raised.value) == message


class Exported:
    """An array of another library in host memory, as ndpad sees one: DLPack only."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()


def test_order_refused_for_other_libraries() -> None:
    with pytest.raises(TypeError, match="order= is for numpy arrays, not Exported"):
        ndpad.pad(Exported(np.zeros((2, 3))), 1, order="K")


def test_order_keeps_numpys_errors() -> None:
    """Arguments numpy refuses are refused as numpy refuses them, whatever the order."""
    a = sample((3, 4)).T
    for kwargs in ({}, {"order": "K"}):
        with pytest.raises(ValueError, match="index can't contain negative values"):
            ndpad.pad(a, -1, **kwargs)
        with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
            ndpad.pad(a, 1, "edge", stat_length=2, **kwargs)
