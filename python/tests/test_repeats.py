"""Repeated pads: ``ndpad.pad`` remembers the spec of a small index pad with plain
arguments (``_numpy._REPEATS``, ``_ndpad.Repeats``), and the framework pads (``ndpad.onnx.pad``,
``openvino.pad``, ``ngraph.pad``) the node of any pad with plain arguments
(``_frameworks._NODES``, ``_ndpad.Node``: its specs by shape), and run it again
without the argument handling. A
remembered pad must give the result (and exceptions) the first call gave, and
arguments that are equal but pad differently (``1``, ``1.0``, ``True``; ``0.0`` and
``-0.0``; a float width) must never share a spec."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ndpad
from ndpad import _frameworks, _ndpad, _numpy
from _helpers import assert_same_array, compare, numpy_pad

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "float16", "int32", "float32",
          "int64", "uint64", "float64", "complex64", "complex128"]
MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


@pytest.fixture(autouse=True)
def forget() -> None:
    _numpy._REPEATS.clear()
    _frameworks._NODES.clear()


def widths(ndim: int) -> st.SearchStrategy:
    w = st.integers(0, 4)
    pair = st.tuples(w, w)
    return st.one_of(
        w,
        st.tuples(w),
        pair,
        st.tuples(pair),
        st.tuples(*[pair] * ndim),
        st.tuples(*[w] * ndim),
    )


@st.composite
def cases(draw: st.DrawFn):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    values = draw(st.lists(st.integers(-200, 200), min_size=int(np.prod(shape)),
                           max_size=int(np.prod(shape))))
    array = np.array(values).reshape(shape).astype(dtype)
    mode = draw(st.sampled_from(MODES))
    kwargs = {}
    if mode == "constant" and draw(st.booleans()):
        kwargs["constant_values"] = draw(st.one_of(
            st.integers(-300, 300), st.booleans(),
            st.floats(allow_nan=False, width=32), st.sampled_from([0.0, -0.0, 1.5])))
    return array, draw(widths(len(shape))), mode, kwargs


def other_shape(array: np.ndarray, draw: st.DrawFn) -> np.ndarray:
    """``array``'s elements repeated over another shape of its rank."""
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=array.ndim,
                                max_size=array.ndim)))
    return np.resize(array, shape)


@settings(max_examples=300, deadline=None)
@given(cases(), st.data())
def test_repeats_are_numpys(case, data) -> None:
    """Each pad twice (the second from memory where the first was remembered), once
    more on another array of the same dtype and shape, and on one of another shape
    of the same rank (made from the remembered pad): numpy.pad's outcome each time."""
    array, pad_width, mode, kwargs = case
    other = other_shape(array, data.draw)
    for a in (array, array, array[::-1].copy(), other, other):
        compare(a, pad_width, mode, **kwargs)


def test_a_remembered_pad_is_used() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    ndpad.pad(x, 1, mode="reflect")
    assert len(_numpy._REPEATS) == 1
    y = x + 100
    assert_same_array(ndpad.pad(y, 1, mode="reflect"), numpy_pad(y, 1, mode="reflect"))
    assert len(_numpy._REPEATS) == 1


def test_modes_are_found_by_name_not_by_object() -> None:
    """A mode name built at run time (not the interned literal) finds the pad the
    literal remembered; names that are not numpy's index modes make no key (the
    statistical modes are padded through the whole handling each time, other names
    raise numpy's error each time)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    def key(mode: str):
        return _numpy._REPEATS.key(x, 1, mode, None, 0, None, None, {})

    built = "".join(["ref", "lect"])
    for mode in ["reflect", built, "reflect"]:
        compare(x, 1, mode)
    assert len(_numpy._REPEATS) == 1 and key(built) in _numpy._REPEATS
    for mode in ["Reflect", "reflect ", "\u00e9dge", "mean", "linear_ramp"]:
        assert key(mode) is None
        for _ in range(2):
            compare(x, 1, mode)
    assert len(_numpy._REPEATS) == 1 and _numpy._REPEATS.singles == 0


def test_one_widths_tuple_for_many_pads() -> None:
    """The same ``pad_width`` tuple object (read once, then found by identity) for
    arrays of other shapes, dtypes and modes, and equal tuples of other objects: numpy's
    outcome each time."""
    w = ((1, 2), (0, 1))
    arrays = [np.arange(6.0).reshape(2, 3), np.arange(12, dtype=np.int16).reshape(3, 4),
              np.zeros((2, 2, 2), np.uint8)]
    for a in arrays * 2:
        for mode in ("edge", "wrap", "constant"):
            compare(a, w, mode)
            compare(a, tuple(list(p) for p in w), mode)
            compare(a, ((1, 2), (0, 1)), mode)
    assert _numpy._REPEATS.key(arrays[0], w, "edge", None, 0, None, None, {}) in _numpy._REPEATS


@pytest.mark.parametrize("values", [
    (1, 1.0, True),
    (0.0, -0.0),
    (2, 2.5),
    (-1, 255, 300),
])
def test_equal_constants_that_pad_apart(values) -> None:
    for dtype in ("int8", "uint8", "float32", "bool"):
        x = np.ones((2, 3), dtype=dtype)
        for v in values * 2:
            compare(x, 1, "constant", constant_values=v)


def test_equal_widths_that_pad_apart() -> None:
    x = np.arange(6.0).reshape(2, 3)
    for pad_width in [(1, 2), (1.0, 2.0), (True, 2), (1, 2), (1.0, 2.0)]:
        compare(x, pad_width, "edge")
    for pad_width in [((1, 2), (0, 1)), ((1, 2), (0, -1)), ((1, 2), (0, 1))]:
        compare(x, pad_width, "wrap")


def test_array_widths_are_remembered_by_their_values() -> None:
    x = np.arange(12.0).reshape(3, 4)
    for w in ([[1, 2], [0, 3]], [2, 1], [[3]], 2):
        width = np.array(w)
        for a in (x, x + 1, x):
            compare(a, width, "wrap")
    assert len(_numpy._REPEATS) == 4
    # A changed array is a new key, not the remembered one.
    width = np.array([[1, 2], [0, 3]])
    compare(x, width, "edge")
    width[0, 0] = 4
    compare(x, width, "edge")
    # numpy's errors every time: unsigned and float arrays, negative values.
    for bad in (np.array([1, 2], np.uint8), np.array([1.0, 2.0]), np.array([1, -1])):
        for _ in range(2):
            compare(x, bad, "edge")
    assert len(_numpy._REPEATS) == 6


def test_errors_are_not_remembered() -> None:
    x = np.zeros((0, 3), dtype=np.int16)
    for _ in range(3):
        compare(x, 1, "reflect")
    assert not _numpy._REPEATS
    # 300 does not fit int8: numpy raises each time.
    for _ in range(2):
        compare(np.zeros(3, np.int8), 1, "constant", constant_values=300)


def test_casts_numpy_warns_of_are_not_remembered() -> None:
    x = np.zeros(3, np.float32)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ndpad.pad(x, 1, constant_values=1e300)
        assert any("overflow" in str(w.message) for w in caught)
    assert not _numpy._REPEATS and _numpy._REPEATS.singles == 1


OTHER_DTYPES = ["datetime64[s]", "timedelta64[ns]", "S3", "<U2", "V2"]


@st.composite
def other_cases(draw: st.DrawFn):
    dtype = np.dtype(draw(st.sampled_from(OTHER_DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    n = int(np.prod(shape))
    values = np.array(draw(st.lists(st.integers(0, 99), min_size=n, max_size=n)))
    if dtype.kind == "V":
        array = values.astype("u1").repeat(dtype.itemsize).view(dtype).reshape(shape)
    else:
        array = values.astype(dtype).reshape(shape)
    mode = draw(st.sampled_from(MODES))
    kwargs = {}
    if mode == "constant" and dtype.kind != "V" and draw(st.booleans()):
        kwargs["constant_values"] = draw(st.integers(0, 99))
    return array, draw(widths(len(shape))), mode, kwargs


@settings(max_examples=200, deadline=None)
@given(other_cases(), st.data())
def test_repeats_of_other_types_are_numpys(case, data) -> None:
    """Datetimes, timedeltas, text and raw bytes are remembered too (a constant that
    is not one kernel word, '7' in a text array, is not), and make the pads of other
    shapes: numpy.pad's outcome each time."""
    array, pad_width, mode, kwargs = case
    other = other_shape(array, data.draw)
    for a in (array, array, array[::-1].copy(), other):
        compare(a, pad_width, mode, **kwargs)


def test_other_shapes_are_made_from_a_remembered_pad() -> None:
    """A pad of another shape of a remembered pad's rank, dtype, widths, mode and
    constant is made from it (not through the whole handling: numpy.pad's function
    is not called) and remembered; not an empty axis grown by reflection (numpy's
    error each time) nor a large output (the output pool's, not remembered). Text
    constants that are not one kernel word have their sides written after the kernel
    at every shape."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    u = np.array([["ab", "c"], ["d", ""]], dtype="<U3")
    for a, mode, kwargs in [(x, "reflect", {}), (x, "constant", {"constant_values": 2.5}),
                            (u, "constant", {"constant_values": "zz"})]:
        _numpy._REPEATS.clear()
        compare(a, ((1, 2), (2, 0)), mode, **kwargs)
        assert len(_numpy._REPEATS) == 1
        handled = []
        def whole(*args, **kw):
            handled.append(args)
            return _pad(*args, **kw)
        _pad = _numpy._pad
        _numpy._pad = whole
        try:
            for shape in [(5, 7), (1, 1), (2, 30), (5, 7)]:
                compare(np.resize(a, shape), ((1, 2), (2, 0)), mode, **kwargs)
        finally:
            _numpy._pad = _pad
        assert not handled and len(_numpy._REPEATS) == 4
    for _ in range(2):
        compare(np.zeros((0, 4), np.float32), ((1, 2), (2, 0)), "reflect")
        big = np.ones((_ndpad.POOL_MIN_BYTES // 4, 1), np.float32)
        compare(big, ((1, 2), (2, 0)), "constant", constant_values=2.5)
    assert len(_numpy._REPEATS) == 4 and _numpy._REPEATS.singles == 1


def test_text_pads_are_remembered() -> None:
    """Text constants too, those that are not one kernel word ('zz', the default '0')
    as a zero pad and the sides written after it."""
    x = np.array([["ab", "c"], ["d", ""]], dtype="<U3")
    for mode in ("edge", "wrap"):
        compare(x, 1, mode)
    compare(x, 1, "constant", constant_values="")
    assert len(_numpy._REPEATS) == 3
    for _ in range(2):
        compare(x, ((1, 2), (0, 1)), "constant", constant_values="zz")
        compare(x, 1, "constant")
    assert len(_numpy._REPEATS) == 5 and not _numpy._REPEATS.singles


@st.composite
def views(draw: st.DrawFn, array: np.ndarray) -> np.ndarray:
    """``array``'s elements in another layout: a step on an axis, an order of axes
    other than C's or Fortran's, a broadcast axis, or a negative stride."""
    kind = draw(st.sampled_from(["step", "order", "broadcast", "negative"]))
    if kind == "step":
        axis = draw(st.integers(0, max(array.ndim - 1, 0)))
        step = draw(st.integers(2, 3))
        every = (slice(None),) * axis + (slice(None, None, step),)
        return np.repeat(array, step, axis=axis)[every]
    if kind == "order":
        order = draw(st.permutations(range(array.ndim)))
        return np.ascontiguousarray(array.transpose(np.argsort(order))).transpose(order)
    if kind == "broadcast":
        return np.broadcast_to(array[:1], array.shape) if array.shape[0] else array
    return array[::-1].copy()[::-1]


@settings(max_examples=200, deadline=None)
@given(cases(), st.data())
def test_repeats_of_other_layouts_are_numpys(case, data) -> None:
    """Each pad of an array in another layout twice (its key remembered where the
    layout has no negative stride and is not Fortran order, the input then read where
    it lies), and once of the array in C order: numpy.pad's outcome each time."""
    array, pad_width, mode, kwargs = case
    view = data.draw(views(array))
    for a in (view, view, array):
        compare(a, pad_width, mode, **kwargs)


def test_other_layouts_are_remembered() -> None:
    """Steps, orders of axes other than Fortran's, broadcast axes: one key each with
    the C-ordered array of the same shape; a packed type's spec found for such a
    layout takes the whole handling (the input copied to C order)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.arange(48.0).reshape(4, 12)
    cube = np.arange(60.0).reshape(3, 4, 5)
    for a in (x[:, ::3], x[:, 2:6], cube.transpose(1, 0, 2), np.broadcast_to(x[:1], (4, 12))):
        for _ in range(2):
            compare(a, 1, "reflect")
    assert len(_numpy._REPEATS) == 3
    packed = (x % 8).astype(ml_dtypes.int4)
    for a in (packed, packed[:, ::3].T.copy().T, packed[::2]):
        for _ in range(2):
            compare(a, 1, "edge")


def test_other_layouts_and_types_are_not_remembered() -> None:
    x = np.arange(16.0).reshape(4, 4)
    for a in (x.T, x[:, ::-2], x.astype(">f8"), x.astype(object), np.asarray(3.0)):
        for _ in range(2):
            compare(a, 1, "edge")
    assert not _numpy._REPEATS
    ndpad.pad(x, [1, 2], "edge")
    ndpad.pad(x, 1, "edge", threads=True)
    ndpad.pad(x, 1, "edge", out=np.empty((6, 6)).view(np.matrix))
    assert not _numpy._REPEATS


def test_remembered_pads_write_into_out() -> None:
    """``out=`` is not part of the key: a remembered pad writes into a C-contiguous
    ``out``, checked on each call with the whole handling's messages; another layout
    takes the whole handling."""
    x = np.arange(12.0).reshape(3, 4)
    t = np.array([["a", "bc"], ["d", ""]], dtype="<U2")
    # '0' and 'zz' are not one kernel word of '<U3': the sides are written after.
    u = np.array([["ab", "c"], ["d", ""]], dtype="<U3")
    for a, kw in ((x, {"mode": "reflect"}), (x, {"constant_values": 7}), (t, {}), (u, {}),
                  (u, {"constant_values": "zz"})):
        want = np.pad(a, 1, **kw)
        for out in (np.empty_like(want), np.empty_like(want), np.empty_like(want, order="F")):
            assert ndpad.pad(a, 1, out=out, **kw) is out
            assert np.array_equal(out, want) and out.dtype == want.dtype
        assert ndpad.pad(a, 1, **kw).tolist() == want.tolist()
    assert len(_numpy._REPEATS) == 5
    read_only = np.empty((5, 6))
    read_only.flags.writeable = False
    for bad, message in ((np.empty((5, 5)), "padded shape"),
                         (np.empty((5, 6), np.float32), "dtype"),
                         (read_only, "read-only")):
        with pytest.raises(ValueError, match=message):
            ndpad.pad(x, 1, mode="reflect", out=bad)
    buf = np.zeros(64)
    with pytest.raises(ValueError, match="overlaps"):
        ndpad.pad(buf[:12].reshape(3, 4), 1, mode="reflect", out=buf[:30].reshape(5, 6))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ndpad.pad(x, 1, mode="reflect", out=[[0.0] * 6] * 5)


def test_threads_are_checked_on_each_remembered_call() -> None:
    x = np.arange(16.0).reshape(4, 4)
    want = numpy_pad(x, 1, mode="edge")
    for threads in (1, 2, None, 0):
        assert_same_array(ndpad.pad(x, 1, "edge", threads=threads), want)
    assert len(_numpy._REPEATS) == 1
    for bad in (5000, -1):
        with pytest.raises(ValueError, match=f"threads must be an integer from 0 .* not {bad}"):
            ndpad.pad(x, 1, "edge", threads=bad)


def test_memory_is_bounded() -> None:
    for n in range(1, 3 * _numpy._REPEATS_MAX):
        ndpad.pad(np.zeros(n, np.uint8), 1)
    assert len(_numpy._REPEATS) == _numpy._REPEATS_MAX
    # The latest are kept.
    def key(n):
        return _numpy._REPEATS.key(np.zeros(n, np.uint8), 1, "constant", None, 0, None, None, {})

    assert key(3 * _numpy._REPEATS_MAX - 1) in _numpy._REPEATS
    assert key(2 * _numpy._REPEATS_MAX - 1) not in _numpy._REPEATS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in range(1, 3 * _numpy._REPEATS_MAX):
            ndpad.pad(np.zeros(n, np.float32), 1, constant_values=1e300)
    assert _numpy._REPEATS.singles == _numpy._REPEATS_MAX


def test_framework_pads_are_remembered_and_exact() -> None:
    """ONNX, OpenVINO and nGraph pads of two arrays of one dtype and shape: from
    memory, each gives what a call with nothing remembered gave."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = x * -3 + 100
    calls = [
        lambda a: ndpad.onnx.pad(a, np.array([1, 2, 0, 1], np.int64), "reflect"),
        lambda a: ndpad.onnx.pad(a, [0, 1, 1, 0], "constant", 2.5),
        lambda a: ndpad.openvino.pad(a, [1, 0], [0, 2], "symmetric"),
        lambda a: ndpad.ngraph.pad(a, [1, 0], [0, 1], [1, 1], 7.0),
    ]
    for call in calls:
        fresh = []
        for a in (x, y):
            _frameworks._NODES.clear()
            fresh.append(call(a))
        assert len(_frameworks._NODES) == 1
        for a, want in [(x, fresh[0]), (y, fresh[1])] * 2:
            assert_same_array(call(a), want)
        assert len(_frameworks._NODES) == 1


def _outcome(call):
    try:
        return call()
    except (ndpad.PadError, TypeError, ValueError) as e:
        return e


@pytest.mark.parametrize("values", [(1, 1.0, True), (0.0, -0.0), (1, 2), (np.float32(3), 3)])
def test_framework_constants_that_pad_apart(values) -> None:
    """Every dtype and constant in turn, with what was remembered before kept: each
    outcome as with nothing remembered."""
    cases = [(np.ones((2, 3), dtype=d), v) for d in ("int8", "float32", "bool")
             for v in values]
    fresh = []
    for x, v in cases:
        _frameworks._NODES.clear()
        fresh.append(_outcome(lambda: ndpad.onnx.pad(x, [1, 1, 1, 1], "constant", v)))
    _frameworks._NODES.clear()
    for _ in range(2):
        for (x, v), want in zip(cases, fresh):
            got = _outcome(lambda: ndpad.onnx.pad(x, [1, 1, 1, 1], "constant", v))
            if isinstance(want, Exception):
                assert type(got) is type(want) and str(got) == str(want)
            else:
                assert_same_array(got, want)


def test_framework_keys_part_what_pads_apart() -> None:
    """``node_key``: equal arguments of one type share a key, whatever the data's shape;
    those of other types, ``0.0`` and ``-0.0``, other dtypes do not; what is not plain
    has none."""
    key = _frameworks.node_key
    x = np.zeros((2, 3), np.float32)
    assert key(x, [1, 2], "edge", None, 3.5) == key(x.copy(), [1, 2], "edge", None, 3.5)
    assert key(x, np.array([1, 2]), 2) == key(x, np.array([1, 2], np.int32), 2)
    base = key(x, [1, 2], 1)
    apart = [key(x, (1, 2), 1), key(x, np.array([1, 2]), 1), key(x, [1, 2], 1.0),
             key(x, [1, 2], True), key(x.astype(np.float64), [1, 2], 1),
             key(x, [1, 3], 1), key(x, [1, 2], "1")]
    assert base is not None and all(k is not None and k != base for k in apart)
    assert key(x.reshape(3, 2), [1, 2], 1) == key(x[:1], [1, 2], 1) == base
    assert len(set(apart)) == len(apart)
    assert key(x, 0.0) != key(x, -0.0)
    for odd in ([1, True], [1, 2.0], np.array(1), np.array([[1, 2]]), np.array([1], np.uint8),
                np.int64(1), 1 + 2j, b"edge", {1: 2}):
        assert key(x, odd) is None, odd


def test_framework_outputs_made_in_one_call() -> None:
    """``Spec.padded``: the output ``execute`` writes, in a new array of the input's
    dtype, from an input in any layout the kernel reads where it lies; None where the
    output is not numpy.empty's or the input has a negative stride."""
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    node = _ndpad.onnx_node("int16", [1, 0, 1, 2], "reflect", None, None, 25, "repeat")
    spec = node.spec([3, 4])
    want = np.empty(tuple(spec.output_shape), np.int16)
    spec.execute(x, want)
    got = spec.padded(x, 1)
    assert_same_array(got, want)
    assert got.flags.c_contiguous and got.flags.owndata
    for layout in (np.asfortranarray(x), np.repeat(x, 2, axis=1)[:, ::2]):
        assert_same_array(spec.padded(layout), want)
    assert spec.padded(x[::-1].copy()[::-1]) is None
    with pytest.raises(ValueError, match=r"must have shape \[3, 4\].*has shape \[3, 5\]"):
        spec.padded(np.zeros((3, 5), np.int16))
    assert_same_array(node.padded(x, 1), want)
    assert_same_array(node.padded(np.asfortranarray(x)), want)
    assert node.padded(x[:, ::-1].copy()[:, ::-1]) is None


def test_a_node_keeps_the_specs_of_its_last_shapes() -> None:
    """``Node``: the spec for each shape made by the front end (its error for a shape
    the pad is invalid for, nothing kept), the last ``SHAPES_KEPT`` kept and found
    again."""
    node = _ndpad.onnx_node("float32", [2, 2], "reflect", None, None, 25, "error")
    kept = _ndpad.Node.SHAPES_KEPT
    assert kept >= 2
    specs = [node.spec([n]) for n in range(3, 3 + kept + 2)]
    assert len(node) == kept
    assert [s.output_shape for s in specs] == [[n + 4] for n in range(3, 3 + kept + 2)]
    assert node.spec([3 + kept + 1]) is specs[-1]
    assert node.spec([3]) is not specs[0]  # forgotten, made again
    with pytest.raises(ndpad.PadError, match="reflect"):
        node.spec([2])
    assert len(node) == kept


@pytest.mark.parametrize("framework", ["onnx", "openvino", "ngraph"])
def test_framework_pads_of_other_shapes(framework: str) -> None:
    """Pads of the same arguments and shapes in turn give what a pad with nothing
    remembered gives, the errors of shapes a pad is invalid for included (an empty
    axis grown by reflection), whose specs are not kept: one node, keeping the specs
    of the last shapes it padded."""
    shapes = [(2, 3), (5, 1), (4, 7), (0, 3), (3, 3), (1, 9)]
    pad = {
        "onnx": lambda x, m: ndpad.onnx.pad(x, [1, 2, 2, 1], m, 2.5, opset=19),
        "openvino": lambda x, m: ndpad.openvino.pad(x, [1, 2], [2, 1], m, 2.5),
        "ngraph": lambda x, m: ndpad.ngraph.pad(x, [1, 2], [2, 1], [0, 1], 2.5,
                                                "constant" if m == "wrap" else m),
    }[framework]
    outcomes: set = set()
    for mode in ("constant", "reflect", "edge", "wrap"):
        arrays = [np.arange(np.prod(s), dtype=np.float32).reshape(s) for s in shapes]
        fresh = []
        for x in arrays:
            _frameworks._NODES.clear()
            fresh.append(_outcome(lambda: pad(x, mode)))
        _frameworks._NODES.clear()
        for _ in range(2):
            for x, want in zip(arrays, fresh):
                got = _outcome(lambda: pad(x, mode))
                if isinstance(want, Exception):
                    assert type(got) is type(want) and str(got) == str(want)
                else:
                    assert_same_array(got, want)
        valid = sum(not isinstance(w, Exception) for w in fresh)
        kept = [min(valid, _ndpad.Node.SHAPES_KEPT)] if valid else []
        assert [len(n) for n in _frameworks._NODES.values()] == kept
        outcomes.update(type(w) for w in fresh)
    assert outcomes == {np.ndarray, ndpad.PadError}


def test_framework_errors_are_not_remembered() -> None:
    x = np.zeros((2, 3), np.int8)
    for _ in range(2):
        with pytest.raises(ndpad.PadError, match="1.5"):
            ndpad.onnx.pad(x, [1, 1, 1, 1], "constant", 1.5)
        with pytest.raises(ndpad.PadError):
            ndpad.onnx.pad(x, [1, 1, 1], "constant")
    assert not _frameworks._NODES
    # Arguments that are not plain values are not remembered, and still pad.
    ndpad.onnx.pad(x, [1, 1, 1, 1], "constant", np.int8(3))
    ndpad.onnx.pad(x, [np.int64(1), 1, 1, 1], "constant")
    assert not _frameworks._NODES
    # The pad is checked before `threads`, remembered or not.
    for pads in ([1, 1, 1], [np.int64(1), 1, 1]):
        with pytest.raises(ndpad.PadError, match="pads"):
            ndpad.onnx.pad(x, pads, "constant", threads=-1)


def test_framework_memory_is_bounded() -> None:
    """At most ``_NODES_MAX`` nodes, each with at most ``Node.SHAPES_KEPT`` specs."""
    for n in range(1, 3 * _frameworks._NODES_MAX):
        ndpad.onnx.pad(np.zeros(n, np.uint8), [n, 1])
    assert len(_frameworks._NODES) == _frameworks._NODES_MAX
    _frameworks._NODES.clear()
    for n in range(1, 3 * _frameworks._NODES_MAX):
        ndpad.onnx.pad(np.zeros(n, np.uint8), [1, 1])
    (node,) = _frameworks._NODES.values()
    assert len(node) == _ndpad.Node.SHAPES_KEPT


def test_remembered_pads_from_threads() -> None:
    """Python threads padding at once, the GIL released while a remembered pad of
    512 KiB runs and others remembered and forgotten meanwhile: numpy.pad's results."""
    import threading

    x = np.arange(256 * 256, dtype=np.float64).reshape(256, 256)
    want = numpy_pad(x, 2, mode="reflect")
    failures: list = []

    def work(k: int) -> None:
        try:
            for n in range(80):
                assert np.array_equal(ndpad.pad(x, 2, mode="reflect"), want)
                small = np.full(n + k + 1, k, np.int16)
                assert np.array_equal(ndpad.pad(small, 1, "edge"), numpy_pad(small, 1, "edge"))
        except AssertionError as e:  # pragma: no cover - reported below
            failures.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert len(_numpy._REPEATS) == _numpy._REPEATS_MAX
