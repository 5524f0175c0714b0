"""``ndpad pad IN.zarr OUT.zarr``: arrays written by zarr-python 3 (zstd, gzip, blosc,
no compression, sharding; chunks that do not divide the shape), padded by the built
CLI, read back with zarr-python and compared with ``numpy.pad`` (``--framework
numpy``) and with ONNX Pad's semantics (crops, then pads)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
if int(zarr.__version__.split(".")[0]) < 3:  # pragma: no cover
    pytest.skip("zarr-python 3 writes zarr v3 arrays", allow_module_level=True)

from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec  # noqa: E402

from _helpers import ndpad_command  # noqa: E402


@pytest.fixture(scope="module")
def ndpad_bin() -> Path:
    """The ``ndpad`` command under test (``_helpers.ndpad_command``)."""
    return ndpad_command()


def run(binary: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=300)


def pad_ok(binary: Path, src: Path, dst: Path, flags: Sequence[str]) -> None:
    r = run(binary, "pad", str(src), str(dst), *flags)
    assert r.returncode == 0, r.stderr
    assert "panicked" not in r.stderr


def compressors(kind: str):
    return {
        "none": None,
        "zstd": [ZstdCodec(level=3)],
        "gzip": [GzipCodec(level=5)],
        "blosc": [BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")],
    }[kind]


def write(path: Path, data: np.ndarray, chunks, kind: str = "zstd", fill=0,
          shards=None) -> Path:
    z = zarr.create_array(str(path), shape=data.shape, chunks=chunks, shards=shards,
                          dtype=data.dtype, compressors=compressors(kind), fill_value=fill)
    z[...] = data
    return path


def meta(path: Path) -> dict:
    return json.loads((path / "zarr.json").read_text())


def onnx_pad(x: np.ndarray, pads: List[int], mode: str = "constant",
             value=0) -> np.ndarray:
    """ONNX Pad: negative pads crop, then the positive ones pad (numpy's mode names)."""
    n = x.ndim
    begin, end = pads[:n], pads[n:]
    x = x[tuple(slice(max(-b, 0), x.shape[i] - max(-e, 0))
                for i, (b, e) in enumerate(zip(begin, end)))]
    width = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
    if mode == "constant":
        return np.pad(x, width, mode="constant", constant_values=value)
    return np.pad(x, width, mode=mode)


def data(shape, dtype) -> np.ndarray:
    n = int(np.prod(shape))
    if dtype == np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    if np.issubdtype(dtype, np.complexfloating):
        return (np.arange(n) * 0.5 + 1j * np.arange(n)[::-1]).astype(dtype).reshape(shape)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return (np.arange(n) * 7 % min(int(info.max), 251)).astype(dtype).reshape(shape)
    return (np.arange(n) * 0.25 - 3).astype(dtype).reshape(shape)


NUMPY_CASES = [
    ("constant", "2:3,0:4,1:1", ["--value", "7"], {"constant_values": 7}),
    ("edge", "3:0,2:5,0:2", [], {}),
    ("reflect", "4:2,1:1,3:3", [], {}),
    ("symmetric", "1:6,2:0,0:3", [], {}),
    ("wrap", "9:2,0:13,4:4", [], {}),  # wider than the axes: the data repeats
]


@pytest.mark.parametrize("kind", ["none", "zstd", "gzip", "blosc"])
@pytest.mark.parametrize("mode,width,extra,kwargs", NUMPY_CASES,
                         ids=[c[0] for c in NUMPY_CASES])
def test_numpy_framework_matches_numpy_pad(ndpad_bin, tmp_path, kind, mode, width, extra,
                                           kwargs):
    x = data((5, 7, 6), np.float32)
    src = write(tmp_path / "in.zarr", x, chunks=(2, 3, 4), kind=kind)
    dst = tmp_path / "out.zarr"
    pad_ok(ndpad_bin, src, dst, ["--framework", "numpy", "--mode", mode,
                                 "--pad-width", width, *extra])
    pw = [tuple(int(v) for v in p.split(":")) for p in width.split(",")]
    want = np.pad(x, pw, mode=mode, **kwargs)
    got = zarr.open_array(str(dst), mode="r")
    np.testing.assert_array_equal(got[...], want)
    assert got.dtype == x.dtype
    # The chunk shape, codecs and fill value are the input's.
    m_in, m_out = meta(src), meta(dst)
    assert m_out["shape"] == list(want.shape)
    for key in ("chunk_grid", "codecs", "fill_value", "data_type", "chunk_key_encoding"):
        assert m_out[key] == m_in[key], key


ONNX_CASES = [
    ("constant", [1, 0, 2, 2, 3, 0], None),
    ("constant", [-1, 2, 0, 0, -2, 5], "1.5"),
    ("reflect", [2, 3, 1, 1, 0, 4], None),
    ("edge", [0, -2, 3, 4, 1, -1], None),
    ("wrap", [3, 1, 2, 2, 5, 0], None),
]


@pytest.mark.parametrize("mode,pads,value", ONNX_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.bool_,
                                   np.complex64])
def test_onnx_semantics(ndpad_bin, tmp_path, mode, pads, value, dtype):
    # The constant, as the type takes it (ONNX casts nothing: --value is parsed as it).
    if value is not None and dtype == np.bool_:
        value = "true"
    elif value is not None and np.issubdtype(dtype, np.integer):
        value = "3"
    x = data((6, 5, 7), dtype)
    src = write(tmp_path / "in.zarr", x, chunks=(4, 2, 3), kind="blosc")
    dst = tmp_path / "out.zarr"
    flags = ["--mode", mode, f"--pads={','.join(map(str, pads))}"]
    if value is not None:
        flags += ["--value", value]
    pad_ok(ndpad_bin, src, dst, flags)
    cv = 0
    if value is not None:
        cv = {"true": True}.get(value, None)
        if cv is None:
            cv = np.array(float(value)).astype(dtype)
    want = onnx_pad(x, pads, mode, cv)
    np.testing.assert_array_equal(zarr.open_array(str(dst), mode="r")[...], want)


def test_sharded_input(ndpad_bin, tmp_path):
    x = data((9, 10), np.float32)
    src = write(tmp_path / "in.zarr", x, chunks=(2, 3), shards=(4, 6), kind="zstd")
    dst = tmp_path / "out.zarr"
    pad_ok(ndpad_bin, src, dst, ["--mode", "reflect", "--pads", "3,2,1,5"])
    np.testing.assert_array_equal(zarr.open_array(str(dst), mode="r")[...],
                                  np.pad(x, ((3, 1), (2, 5)), mode="reflect"))
    assert meta(dst)["codecs"] == meta(src)["codecs"]


def test_fill_chunks_are_not_stored_and_round_trip(ndpad_bin, tmp_path):
    x = data((4, 4), np.float32) + 10
    src = write(tmp_path / "in.zarr", x, chunks=(2, 2), kind="gzip", fill=0)
    dst = tmp_path / "out.zarr"
    pad_ok(ndpad_bin, src, dst, ["--pads", "4,4,0,0"])
    stored = sorted(str(p.relative_to(dst / "c")) for p in (dst / "c").rglob("*")
                    if p.is_file())
    assert stored == [f"{i}/{j}" for i in (2, 3) for j in (2, 3)]
    z = zarr.open_array(str(dst), mode="r+")
    np.testing.assert_array_equal(z[...], np.pad(x, ((4, 0), (4, 0))))
    # zarr-python writes into the array and reads it back.
    z[0, 0] = 5
    assert zarr.open_array(str(dst), mode="r")[0, 0] == 5
    # ndpad crops its own output back to the input.
    back = tmp_path / "back.zarr"
    pad_ok(ndpad_bin, dst, back, ["--pads=-4,-4,0,0"])
    np.testing.assert_array_equal(zarr.open_array(str(back), mode="r")[...], x)
    # --chunks sets another chunk shape.
    rechunked = tmp_path / "rechunked.zarr"
    pad_ok(ndpad_bin, src, rechunked, ["--pads", "1,1,1,1", "--chunks", "3,5"])
    z = zarr.open_array(str(rechunked), mode="r")
    assert z.chunks == (3, 5)
    np.testing.assert_array_equal(z[...], np.pad(x, 1))


def test_ngraph_interior(ndpad_bin, tmp_path):
    x = data((3, 4), np.int32)
    src = write(tmp_path / "in.zarr", x, chunks=(2, 3), kind="none")
    dst = tmp_path / "out.zarr"
    pad_ok(ndpad_bin, src, dst, ["--framework", "ngraph", "--padding-below=1,0",
                                 "--padding-above=0,2", "--padding-interior=2,1",
                                 "--value", "-1"])
    spread = np.full((3 + 2 * 2, 4 + 3 * 1), -1, np.int32)
    spread[::3, ::2] = x
    want = np.pad(spread, ((1, 0), (0, 2)), constant_values=-1)
    np.testing.assert_array_equal(zarr.open_array(str(dst), mode="r")[...], want)


def expect_error(binary: Path, args: Sequence[str], code: int, *parts: str) -> None:
    r = run(binary, *args)
    assert r.returncode == code, r.stderr
    assert "panicked" not in r.stderr
    for p in parts:
        assert p in r.stderr, (p, r.stderr)


def test_errors(ndpad_bin, tmp_path):
    out = tmp_path / "out.zarr"
    g = zarr.open_group(str(tmp_path / "g.zarr"), mode="w")
    g.create_array("x", shape=(3,), dtype="i4")
    expect_error(ndpad_bin, ["pad", str(tmp_path / "g.zarr"), str(out), "--pads", "1,1"], 1,
                 "zarr group, not an array", "members: x")
    v2 = zarr.create_array(str(tmp_path / "v2.zarr"), shape=(3,), dtype="i4", zarr_format=2)
    v2[...] = 1
    expect_error(ndpad_bin, ["pad", str(tmp_path / "v2.zarr"), str(out), "--pads", "1,1"], 1,
                 "zarr v2 array")
    src = write(tmp_path / "in.zarr", data((3,), np.float32), chunks=(2,))
    expect_error(ndpad_bin, ["pad", str(src), str(src), "--pads", "1,1"], 1,
                 "the output is the input")
    expect_error(ndpad_bin, ["pad", str(src), str(out), "--pads", "1,1,1,1"], 1, "in.zarr")
    assert not out.exists()
    # Dates and times pad zarr to zarr only: .npy has no date type here.
    t = zarr.create_array(str(tmp_path / "t.zarr"), shape=(2,), dtype="datetime64[s]")
    t[...] = np.array(["2020-01-01", "NaT"], dtype="datetime64[s]")
    expect_error(ndpad_bin, ["pad", str(tmp_path / "t.zarr"), str(tmp_path / "t.npy"),
                             "--pads", "1,1"], 1,
                 "t.zarr", "numpy.datetime64", "padded into zarr outputs only")
    assert not (tmp_path / "t.npy").exists()


TEXT = np.array([["a", "bb", "ccc", "d", "é"], ["", "ff", "g", "hhhh", "i"],
                 ["jj", "k", "ünï", "l", ""], ["m", "n", "o", "p", "q"]])


@pytest.mark.parametrize("kind", ["none", "zstd", "gzip"])
@pytest.mark.parametrize("mode,width,extra,kwargs", NUMPY_CASES,
                         ids=[c[0] for c in NUMPY_CASES])
def test_strings_match_numpy_pad(ndpad_bin, tmp_path, kind, mode, width, extra, kwargs):
    """Issue #29 item 7: zarr string arrays (vlen-utf8) pad as numpy.pad pads them."""
    x = np.stack([TEXT, TEXT[::-1]])  # (2, 4, 5)
    src = tmp_path / "s.zarr"
    z = zarr.create_array(str(src), shape=x.shape, chunks=(1, 3, 2), dtype=str,
                          compressors=compressors(kind), fill_value="")
    z[...] = x
    dst = tmp_path / "o.zarr"
    extra = ["--value", "pad"] if extra else []
    kwargs = {"constant_values": "pad"} if kwargs else {}
    pad_ok(ndpad_bin, src, dst, ["--framework", "numpy", "--mode", mode,
                                 "--pad-width", width, *extra])
    pw = [tuple(int(v) for v in p.split(":")) for p in width.split(",")]
    want = np.pad(x.astype(object), pw, mode=mode, **kwargs)
    got = zarr.open_array(str(dst), mode="r")
    assert got.metadata.data_type == z.metadata.data_type
    np.testing.assert_array_equal(got[...].astype(object), want)
    m_in, m_out = meta(src), meta(dst)
    for key in ("chunk_grid", "codecs", "fill_value", "data_type"):
        assert m_out[key] == m_in[key], key


def test_strings_to_npy_and_back(ndpad_bin, tmp_path):
    """zarr strings -> .npy (numpy's U) -> zarr strings, with ONNX semantics too."""
    src = tmp_path / "s.zarr"
    z = zarr.create_array(str(src), shape=TEXT.shape, chunks=(3, 2), dtype=str)
    z[...] = TEXT
    npy = tmp_path / "s.npy"
    pad_ok(ndpad_bin, src, npy, ["--mode", "reflect", "--pads", "1,-1,2,0"])
    got = np.load(npy)
    assert got.dtype.kind == "U"
    np.testing.assert_array_equal(got, onnx_pad(TEXT, [1, -1, 2, 0], mode="reflect"))
    back = tmp_path / "b.zarr"
    pad_ok(ndpad_bin, npy, back, ["--pads", "0,1,0,1", "--value", "x", "--chunks", "2,2"])
    b = zarr.open_array(str(back), mode="r")
    assert meta(back)["data_type"] == "string"
    np.testing.assert_array_equal(b[...].astype(object),
                                  np.pad(got.astype(object), ((0, 0), (1, 1)),
                                         constant_values="x"))
    # A .npy of bytes (S) becomes zarr text too.
    sb = tmp_path / "sb.npy"
    np.save(sb, np.array([b"ab", b"c"]))
    pad_ok(ndpad_bin, sb, tmp_path / "sb.zarr", ["--mode", "edge", "--pads", "1,1"])
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "sb.zarr"))[...].astype(object),
                                  np.array(["ab", "ab", "c", "c"], dtype=object))


def test_corrupt_string_chunks_are_refused(ndpad_bin, tmp_path):
    """A vlen-utf8 chunk whose lengths run past its end, or that declares another
    count, is an error naming the chunk; never a crash, never an output."""
    src = tmp_path / "s.zarr"
    z = zarr.create_array(str(src), shape=(4,), chunks=(2,), dtype=str, compressors=None)
    z[...] = np.array(["ab", "c", "d", "e"])
    chunk = src / "c" / "0"
    good = chunk.read_bytes()
    out = tmp_path / "o.zarr"
    bad = bytearray(good)
    bad[4:8] = (1 << 30).to_bytes(4, "little")
    chunk.write_bytes(bytes(bad))
    expect_error(ndpad_bin, ["pad", str(src), str(out), "--pads", "1,1"], 1,
                 "s.zarr", "chunk [0]", "runs past its end")
    chunk.write_bytes((3).to_bytes(4, "little") + good[4:])
    expect_error(ndpad_bin, ["pad", str(src), str(out), "--pads", "1,1"], 1,
                 "declares 3 strings; its chunk holds 2")
    assert not out.exists()


def test_dates_and_times_pad_as_counts(ndpad_bin, tmp_path):
    """numpy.datetime64 / timedelta64 arrays: their int64 counts padded, the type
    (unit) and NaT kept."""
    for dtype in ["datetime64[s]", "timedelta64[ms]"]:
        x = np.array([0, 5, -3, 7, 2], dtype="int64").view(dtype)
        x[2] = np.array("NaT", dtype=dtype)
        src = tmp_path / "t.zarr"
        z = zarr.create_array(str(src), shape=x.shape, chunks=(2,), dtype=dtype,
                              overwrite=True)
        z[...] = x
        for mode in ["edge", "reflect", "wrap"]:
            dst = tmp_path / f"{mode}.zarr"
            pad_ok(ndpad_bin, src, dst, ["--framework", "numpy", "--mode", mode,
                                         "--pad-width", "3:4"])
            got = zarr.open_array(str(dst), mode="r")
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got[...], np.pad(x, (3, 4), mode=mode))
            assert meta(dst)["data_type"] == meta(src)["data_type"]
        dst = tmp_path / "c.zarr"
        pad_ok(ndpad_bin, src, dst, ["--pads", "1,2", "--value", "9"])
        want = np.pad(x.view("int64"), (1, 2), constant_values=9).view(dtype)
        np.testing.assert_array_equal(zarr.open_array(str(dst), mode="r")[...], want)


def test_group_members_and_npy(ndpad_bin, tmp_path):
    """Issue #29: an array in a group pads into the same group (its other members
    untouched), and zarr pads into .npy and back, as numpy.pad does."""
    x = data((5, 4), np.float32)
    g = zarr.open_group(str(tmp_path / "grp.zarr"), mode="w")
    g.attrs["keep"] = 1
    a = g.create_array("a", shape=x.shape, dtype=x.dtype, chunks=(2, 3))
    a[...] = x
    grp = tmp_path / "grp.zarr"
    pad_ok(ndpad_bin, grp / "a", grp / "b", ["--framework", "numpy", "--pad-width", "1:2"])
    g = zarr.open_group(str(grp), mode="r")
    assert sorted(g.array_keys()) == ["a", "b"]
    assert g.attrs["keep"] == 1
    np.testing.assert_array_equal(g["a"][...], x)
    np.testing.assert_array_equal(g["b"][...], np.pad(x, ((1, 2), (1, 2))))
    assert not [p for p in os.listdir(grp) if "ndpad" in p]
    # zarr -> .npy -> zarr.
    npy = tmp_path / "x.npy"
    pad_ok(ndpad_bin, grp / "b", npy, ["--framework", "numpy", "--pad-width", "0:0",
                                        "--mode", "edge"])
    np.testing.assert_array_equal(np.load(npy), np.pad(x, ((1, 2), (1, 2))))
    out = tmp_path / "y.zarr"
    pad_ok(ndpad_bin, npy, out, ["--framework", "numpy", "--pad-width", "1",
                                 "--mode", "reflect"])
    y = zarr.open_array(str(out), mode="r")
    np.testing.assert_array_equal(y[...], np.pad(np.load(npy), 1, mode="reflect"))
    assert y.metadata.data_type is not None
