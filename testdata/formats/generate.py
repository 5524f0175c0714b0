#!/usr/bin/env python3
"""Fixture files for ndpad's file-format tests (.npy and ONNX TensorProto .pb).

Writes, next to this script:
  npy/*.npy       written by numpy (np.save / numpy.lib.format.write_array)
  pb/*.pb         TensorProto written by the onnx package (numpy_helper.from_array for
                  raw_data, helper.make_tensor(..., raw=False) for the typed fields)
  bad/*           malformed files for the hostile-input tests
  manifest.json   {"files": [{"path", "dtype", "shape", "data", "note", ...}]}

Value conventions in the manifest (same as testdata/golden): `data` is the flat
row-major list (logical order, also for Fortran-order files); floats are JSON numbers
except "nan", "inf", "-inf"; bool true/false; strings JSON strings; complex values
[re, im] pairs. `raw_hex` (for bfloat16, float16, float8*, float4, int4/uint4,
int2/uint2) is the ONNX-packed little-endian byte string of the flat data (sub-byte
types: element 0 in the low bits of byte 0). Bad files carry "expect_error".

Run from the repository root:
    .venv/bin/python testdata/formats/generate.py
"""
from __future__ import annotations

import io
import json
import math
import os
import re
import shutil

import ml_dtypes
import numpy as np
import onnx
from numpy.lib import format as npformat
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
FILES: list[dict] = []

NP_TO_ONNX = {
    "bool": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float16": "float16", "float32": "float", "float64": "double", "complex64": "complex64",
    "complex128": "complex128", "bfloat16": "bfloat16", "float8_e4m3fn": "float8e4m3fn", "int4": "int4",
}
PACKED = ("bfloat16", "float16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
          "float8e8m0", "float4e2m1", "int4", "uint4", "int2", "uint2")


def enc(v, dtype: str):
    if dtype == "string":
        if isinstance(v, bytes):
            return v.decode("utf-8")
        return str(v)
    if dtype == "bool":
        return bool(v)
    if dtype.startswith("complex"):
        c = complex(v)
        return [enc(c.real, "double"), enc(c.imag, "double")]
    if dtype in ("float", "double") or dtype in PACKED and not dtype.endswith(("int4", "int2")):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    return int(v)


def flat_values(a: np.ndarray, dtype: str) -> list:
    flat = np.asarray(a).reshape(-1, order="C")
    if flat.dtype.kind in "SU":
        return [str(x) if not isinstance(x, bytes) else x.decode("latin-1") for x in flat.tolist()]
    if flat.dtype.kind == "O":
        return [enc(x, "string") for x in flat.tolist()]
    if flat.dtype.type.__module__ == "numpy":
        return [enc(x, dtype) for x in flat.tolist()]
    return [enc(x, dtype) for x in flat]


def onnx_packed_hex(a: np.ndarray) -> str:
    """ONNX-packed little-endian bytes of the flat (C-order) data."""
    t = numpy_helper.from_array(np.ascontiguousarray(a))
    return t.raw_data.hex()


def add(path: str, dtype: str, arr: np.ndarray, note: str, **extra) -> None:
    entry = {"path": path, "dtype": dtype, "shape": [int(d) for d in arr.shape],
             "data": flat_values(arr, dtype), "note": note}
    if dtype in PACKED:
        entry["raw_hex"] = onnx_packed_hex(arr)
    entry.update(extra)
    FILES.append(entry)


# --------------------------------------------------------------------------------------
# .npy


def save_npy(rel: str, arr: np.ndarray, dtype: str, note: str, version=None, **extra) -> None:
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        if version is None:
            np.save(f, arr, allow_pickle=False)
        else:
            npformat.write_array(f, arr, version=version, allow_pickle=False)
    with open(path, "rb") as f:
        major, minor = npformat.read_magic(f)
        if (major, minor) == (1, 0):
            hdr = npformat.read_array_header_1_0(f)
        else:
            hdr = npformat.read_array_header_2_0(f)  # same layout for 3.0 apart from UTF-8
    with open(path, "rb") as f:
        head = f.read(4096).decode("latin-1")
    descr = re.search(r"'descr':\s*'([^']*)'", head).group(1)
    add(rel, dtype, arr, note, npy_version=f"{major}.{minor}", npy_descr=descr,
        fortran_order=bool(hdr[1]), **extra)


def gen_npy() -> None:
    base = {
        "bool": np.array([[True, False, True], [False, False, True]]),
        "int8": np.array([[-128, -1, 0], [1, 100, 127]], dtype=np.int8),
        "int16": np.array([[-32768, -1, 0], [1, 1000, 32767]], dtype=np.int16),
        "int32": np.array([[-2147483648, -1, 0], [1, 70000, 2147483647]], dtype=np.int32),
        "int64": np.array([[-(2**63), -1, 0], [1, 2**53 + 1, 2**63 - 1]], dtype=np.int64),
        "uint8": np.array([[0, 1, 127], [128, 200, 255]], dtype=np.uint8),
        "uint16": np.array([[0, 1, 32768], [40000, 65534, 65535]], dtype=np.uint16),
        "uint32": np.array([[0, 1, 2**31], [3000000000, 2**32 - 2, 2**32 - 1]], dtype=np.uint32),
        "uint64": np.array([[0, 1, 2**53 + 1], [2**63, 2**64 - 2, 2**64 - 1]], dtype=np.uint64),
        "float16": np.array([[1.5, -0.0, np.inf], [np.nan, 65504.0, 6e-08]], dtype=np.float16),
        "float32": np.array([[1.5, -0.0, np.inf], [-np.inf, np.nan, 3.4028235e38]], dtype=np.float32),
        "float64": np.array([[0.1, -0.0, np.inf], [-np.inf, np.nan, 5e-324]], dtype=np.float64),
        "complex64": np.array([[1 + 2j, -0.5j, 3], [np.inf + 0j, complex(0, np.nan), -1 - 1j]], dtype=np.complex64),
        "complex128": np.array([[1 + 2j, -0.5j, 3], [0.1 + 0.2j, complex(np.nan, 1), -1 - 1j]], dtype=np.complex128),
    }
    short = {"bool": "b1", "int8": "i1", "int16": "i2", "int32": "i4", "int64": "i8", "uint8": "u1",
             "uint16": "u2", "uint32": "u4", "uint64": "u8", "float16": "f2", "float32": "f4", "float64": "f8",
             "complex64": "c8", "complex128": "c16"}
    for name, arr in base.items():
        save_npy(f"npy/{short[name]}_c.npy", arr, NP_TO_ONNX[name], f"{name} (numpy {arr.dtype.str}), C order, v1.0")
    # strings
    s = np.array([[b"abc", b"", b"hello"], [b"x", b"12345", b"a b"]], dtype="S5")
    save_npy("npy/S5_c.npy", s, "string", "fixed-width byte string |S5 (NUL-padded, ASCII)")
    u = np.array([["abcd", "", "é"], ["日本", "x", "zz"]], dtype="<U4")
    save_npy("npy/U4_c.npy", u, "string", "fixed-width unicode <U4 (UTF-32LE code points, NUL-padded)")
    # Fortran order
    f = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5)
    save_npy("npy/f4_f.npy", f, "float", "float32 Fortran order; data is the logical row-major order")
    f3 = np.asfortranarray(np.arange(12, dtype=np.int16).reshape(3, 2, 2) - 6)
    save_npy("npy/i2_f_3d.npy", f3, "int16", "int16 rank 3, Fortran order; data is logical row-major order")
    fu = np.asfortranarray(np.array([["ab", "c"], ["d", "efg"]], dtype="<U3"))
    save_npy("npy/U3_f.npy", fu, "string", "<U3 Fortran order")
    # big endian
    save_npy("npy/f4_be.npy", np.array([[1.5, -2.0, np.nan], [np.inf, 0.1, -0.0]], dtype=">f4"), "float",
             "big-endian >f4")
    save_npy("npy/f8_be.npy", np.array([0.1, -1e300, 2.5], dtype=">f8"), "double", "big-endian >f8")
    save_npy("npy/i8_be.npy", np.array([[-(2**63), 1], [2**53 + 1, 2**63 - 1]], dtype=">i8"), "int64",
             "big-endian >i8")
    save_npy("npy/u2_be.npy", np.array([1, 256, 65535], dtype=">u2"), "uint16", "big-endian >u2")
    save_npy("npy/c8_be.npy", np.array([1 + 2j, -3.5j], dtype=">c8"), "complex64", "big-endian >c8")
    save_npy("npy/U3_be.npy", np.array(["ab", "xyz", "é"], dtype=">U3"), "string", "big-endian unicode >U3")
    save_npy("npy/i4_f_be.npy", np.asfortranarray(np.arange(6, dtype=">i4").reshape(2, 3)), "int32",
             "big-endian >i4 in Fortran order")
    # format versions
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    save_npy("npy/f4_v2.npy", v, "float", "format version 2.0 (4-byte header length)", version=(2, 0))
    save_npy("npy/f4_v3.npy", v, "float", "format version 3.0 (4-byte header length, UTF-8 header)",
             version=(3, 0))
    save_npy("npy/U4_v3.npy", u, "string", "unicode data in format version 3.0", version=(3, 0))
    # zero-size, 0-d, 1-d, rank 4
    save_npy("npy/f4_zero_size.npy", np.zeros((0, 3), dtype=np.float32), "float", "zero-size array, shape (0, 3)")
    save_npy("npy/i8_empty_1d.npy", np.zeros((0,), dtype=np.int64), "int64", "zero-size 1-D array")
    save_npy("npy/f8_scalar.npy", np.array(2.5, dtype=np.float64), "double", "0-d array (shape ())")
    save_npy("npy/b1_scalar.npy", np.array(True), "bool", "0-d bool array")
    save_npy("npy/i4_4d.npy", np.arange(120, dtype=np.int32).reshape(2, 3, 4, 5), "int32", "rank 4 int32")
    # ml_dtypes: written as raw void types
    bf = np.array([[1.0, -2.5, np.inf], [np.nan, 0.1, -0.0]], dtype=ml_dtypes.bfloat16)
    save_npy("npy/bf16_as_V2.npy", bf, "bfloat16",
             "ml_dtypes bfloat16: numpy writes descr '<V2' (raw 2-byte void); read with --dtype bfloat16. "
             "Bytes in the file equal raw_hex (bfloat16 little-endian).")
    f8 = np.array([[1.0, -2.0, 448.0], [0.015625, np.nan, -0.0]], dtype=ml_dtypes.float8_e4m3fn)
    save_npy("npy/f8e4m3fn_as_V1.npy", f8, "float8e4m3fn",
             "ml_dtypes float8_e4m3fn: numpy writes descr '<V1'; read with --dtype float8e4m3fn. "
             "File bytes equal raw_hex.")
    i4 = np.array([[-8, -1, 0], [1, 5, 7]], dtype=ml_dtypes.int4)
    save_npy("npy/int4_as_V1.npy", i4, "int4",
             "ml_dtypes int4: numpy writes descr '<V1' with ONE element per byte (low nibble, sign-extended "
             "byte as ml_dtypes stores it); NOT the ONNX packing. raw_hex is the ONNX-packed form "
             "(two per byte); npy_bytes_hex is what the file holds.",
             npy_bytes_hex=i4.view(np.uint8).tobytes().hex())
    # a Fortran-order bfloat16 to check --dtype with F order
    save_npy("npy/bf16_f_as_V2.npy", np.asfortranarray(bf), "bfloat16", "bfloat16 '<V2' in Fortran order")


# --------------------------------------------------------------------------------------
# .pb


PB_VALUES = {
    "float": [1.5, -0.0, float("inf"), float("-inf"), float("nan"), 3.4028234663852886e38],
    "uint8": [0, 1, 127, 128, 254, 255],
    "int8": [-128, -1, 0, 1, 100, 127],
    "uint16": [0, 1, 32768, 40000, 65534, 65535],
    "int16": [-32768, -1, 0, 1, 1000, 32767],
    "int32": [-2147483648, -1, 0, 1, 70000, 2147483647],
    "int64": [-(2**63), -1, 0, 1, 2**53 + 1, 2**63 - 1],
    "string": ["", "a", "héllo", "日本語", "with space", "x" * 20],
    "bool": [True, False, True, True, False, False],
    "float16": [1.5, -0.0, float("inf"), float("nan"), 65504.0, 5.960464477539063e-08],
    "double": [0.1, -0.0, float("inf"), float("-inf"), float("nan"), 5e-324],
    "uint32": [0, 1, 2**31, 3000000000, 2**32 - 2, 2**32 - 1],
    "uint64": [0, 1, 2**53 + 1, 2**63, 2**64 - 2, 2**64 - 1],
    "complex64": [1 + 2j, -0.5j, 3 + 0j, complex(float("inf"), 0), -1 - 1j, 0.25 + 0.125j],
    "complex128": [1 + 2j, -0.5j, 3 + 0j, 0.1 + 0.2j, -1 - 1j, complex(float("nan"), 1)],
    # packed types: odd element counts (9)
    "bfloat16": [1.0, -2.5, float("inf"), float("nan"), 0.1, -0.0, 3.0, 256.0, -1e30],
    "float8e4m3fn": [1.0, -2.0, 448.0, 0.015625, float("nan"), -0.0, 0.5, 3.0, -448.0],
    "float8e4m3fnuz": [1.0, -2.0, 240.0, 0.0078125, float("nan"), 0.0, 0.5, 3.0, -240.0],
    "float8e5m2": [1.0, -2.0, 57344.0, float("inf"), float("nan"), -0.0, 0.5, 3.0, float("-inf")],
    "float8e5m2fnuz": [1.0, -2.0, 57344.0, 0.0078125, float("nan"), 0.0, 0.5, 3.0, -57344.0],
    "uint4": [0, 1, 2, 7, 8, 9, 14, 15, 5],
    "int4": [-8, -7, -1, 0, 1, 2, 6, 7, -3],
    "float4e2m1": [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -6.0],
    "float8e8m0": [1.0, 2.0, 0.5, 4.0, 2.0**-127, 2.0**127, float("nan"), 0.25, 8.0],
    "uint2": [0, 1, 2, 3, 3, 2, 1, 0, 2],
    "int2": [-2, -1, 0, 1, 1, 0, -1, -2, 1],
}


def populated_fields(t: TensorProto) -> list[str]:
    fields = []
    for fname in ("raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data",
                  "uint64_data"):
        v = getattr(t, fname)
        if len(v):
            fields.append(fname)
    return fields


def gen_pb() -> list[str]:
    skipped = []
    os.makedirs(os.path.join(HERE, "pb"), exist_ok=True)
    for dtype, vals in PB_VALUES.items():
        enum_name = dtype.upper()
        if not hasattr(TensorProto, enum_name):
            skipped.append(dtype)
            continue
        elem = getattr(TensorProto, enum_name)
        shape = [3, 3] if len(vals) == 9 else [2, 3]
        if dtype == "string":
            arr = np.array([v.encode("utf-8") for v in vals], dtype=object).reshape(shape)
        else:
            npdt = np.dtype(helper.tensor_dtype_to_np_dtype(elem))
            arr = np.array(vals, dtype=npdt) if npdt.kind in "iub" and npdt.type.__module__ == "numpy" else np.array(vals, dtype=np.complex128 if dtype.startswith("complex") else
                           (np.float64 if isinstance(vals[0], float) else None))
            arr = arr.astype(npdt).reshape(shape)
        # typed fields
        typed_vals = arr.reshape(-1).tolist() if dtype not in PACKED and dtype != "string" else (
            list(vals) if dtype != "string" else [v.encode("utf-8") for v in vals])
        t_typed = helper.make_tensor(f"{dtype}_typed", elem, shape, typed_vals, raw=False)
        rel = f"pb/{dtype}_typed.pb"
        with open(os.path.join(HERE, rel), "wb") as f:
            f.write(t_typed.SerializeToString())
        note = f"TensorProto {enum_name} via onnx.helper.make_tensor(raw=False); fields: " + ",".join(
            populated_fields(t_typed))
        typed_arr = arr
        if dtype != "string":
            decoded = numpy_helper.to_array(t_typed)
            if flat_values(decoded, dtype) != flat_values(arr, dtype) and not (
                    str(flat_values(decoded, dtype)) == str(flat_values(arr, dtype))):
                changed = [(a, b) for a, b in zip(flat_values(arr, dtype), flat_values(decoded, dtype))
                           if str(a) != str(b)]
                note += (f". NOTE: make_tensor converted through float32 and altered some values "
                         f"(intended -> stored): {changed}; data/raw_hex give what the file holds")
                typed_arr = decoded
        add(rel, dtype, typed_arr, note, fields=populated_fields(t_typed), tensor_name=t_typed.name)
        if dtype == "string":
            continue  # strings have no raw_data form
        t_raw = numpy_helper.from_array(arr, f"{dtype}_raw")
        rel = f"pb/{dtype}_raw.pb"
        with open(os.path.join(HERE, rel), "wb") as f:
            f.write(t_raw.SerializeToString())
        add(rel, dtype, arr, f"TensorProto {enum_name} via onnx.numpy_helper.from_array; fields: "
            + ",".join(populated_fields(t_raw)), fields=populated_fields(t_raw), tensor_name=t_raw.name)
    # odd single elements for the packed 4-bit / 2-bit types and extra shapes
    for dtype, vals in (("int4", [-5]), ("uint4", [3, 9, 15]), ("float4e2m1", [-1.5, 6.0, 0.5, 2.0, -0.0]),
                        ("int2", [-2, 1, 0, 1, -1]), ("uint2", [3])):
        if not hasattr(TensorProto, dtype.upper()):
            continue
        elem = getattr(TensorProto, dtype.upper())
        arr = np.array(vals, dtype=np.float64 if isinstance(vals[0], float) else None).astype(
            helper.tensor_dtype_to_np_dtype(elem))
        for raw in (True, False):
            t = (numpy_helper.from_array(arr, f"{dtype}_{len(vals)}") if raw else
                 helper.make_tensor(f"{dtype}_{len(vals)}", elem, [len(vals)], vals, raw=False))
            rel = f"pb/{dtype}_n{len(vals)}_{'raw' if raw else 'typed'}.pb"
            with open(os.path.join(HERE, rel), "wb") as f:
                f.write(t.SerializeToString())
            add(rel, dtype, arr, f"{len(vals)} element(s) of a packed type; fields: " + ",".join(populated_fields(t)),
                fields=populated_fields(t), tensor_name=t.name)
    # scalar and empty tensors
    for rel, arr, dtype, note in (("pb/float_scalar_raw.pb", np.array(2.5, dtype=np.float32), "float", "0-d tensor (no dims)"),
                                  ("pb/int64_empty_raw.pb", np.zeros((0, 3), dtype=np.int64), "int64", "zero-size tensor dims [0,3]")):
        t = numpy_helper.from_array(arr, os.path.basename(rel)[:-3])
        with open(os.path.join(HERE, rel), "wb") as f:
            f.write(t.SerializeToString())
        add(rel, dtype, arr, note + "; fields: " + ",".join(populated_fields(t)), fields=populated_fields(t),
            tensor_name=t.name)
    t = helper.make_tensor("float_scalar_typed", TensorProto.FLOAT, [], [2.5], raw=False)
    with open(os.path.join(HERE, "pb/float_scalar_typed.pb"), "wb") as f:
        f.write(t.SerializeToString())
    add("pb/float_scalar_typed.pb", "float", np.array(2.5, dtype=np.float32), "0-d tensor, float_data",
        fields=populated_fields(t), tensor_name=t.name)
    return skipped


# --------------------------------------------------------------------------------------
# malformed files


def bad(rel: str, content: bytes, expect_error: str, note: str) -> None:
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(content)
    FILES.append({"path": rel, "expect_error": expect_error, "note": note})


def npy_bytes(arr, version=None) -> bytes:
    b = io.BytesIO()
    if version:
        npformat.write_array(b, arr, version=version)
    else:
        np.save(b, arr)
    return b.getvalue()


def npy_with_header(header: str, payload: bytes, version=(1, 0)) -> bytes:
    h = header.encode("latin-1")
    pre = 10 if version == (1, 0) else 12
    total = pre + len(h) + 1
    pad = (64 - total % 64) % 64
    h = h + b" " * pad + b"\n"
    if version == (1, 0):
        return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + payload
    return b"\x93NUMPY" + bytes(version) + len(h).to_bytes(4, "little") + h + payload


def gen_bad() -> None:
    good = npy_bytes(np.arange(12, dtype=np.float32).reshape(3, 4))
    bad("bad/truncated_data.npy", good[:-7], "truncated .npy: data shorter than the header's shape (3,4) <f4 needs",
        "valid header for 48 bytes of float32, only 41 present")
    bad("bad/truncated_header.npy", good[:40], "truncated .npy: header ends before its declared length",
        "file cut inside the header dict")
    bad("bad/wrong_magic.npy", b"\x93NUMPZ" + good[6:], "wrong magic: not a .npy file",
        "magic string \\x93NUMPZ instead of \\x93NUMPY")
    bad("bad/bad_version.npy", good[:6] + b"\x09\x00" + good[8:], "unsupported .npy format version 9.0",
        "format version bytes 9.0")
    bad("bad/huge_shape.npy",
        npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000000), }",
                        b"\x00" * 16),
        "header claims 10^15 elements (4 PB of float32); must be refused without allocating",
        "shape (1000000, 1000000000), 16 bytes of data")
    bad("bad/overflow_shape.npy",
        npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
                        b"\x00" * 8),
        "element count overflows 64 bits", "shape (2^32, 2^32, 2^32)")
    bad("bad/unknown_dtype.npy",
        npy_with_header("{'descr': '<q9', 'fortran_order': False, 'shape': (2,), }", b"\x00" * 18),
        "unknown dtype descr '<q9'", "descr is not a numpy type")
    bad("bad/object_dtype.npy",
        npy_with_header("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", b"\x00" * 16),
        "object (pickled) arrays are not supported", "descr '|O' needs pickle")
    bad("bad/header_not_dict.npy", npy_with_header("[1, 2, 3]", b""), "header is not a dict",
        "header literal is a list")
    bad("bad/header_missing_key.npy",
        npy_with_header("{'descr': '<f4', 'shape': (2,), }", b"\x00" * 8),
        "header lacks 'fortran_order'", "dict without fortran_order")
    bad("bad/header_len_too_big.npy", good[:8] + (60000).to_bytes(2, "little") + good[10:],
        "header length 60000 exceeds the file size", "v1.0 header length field 60000")
    bad("bad/negative_dim.npy",
        npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 2), }", b""),
        "negative dimension in shape", "shape (-1, 2)")
    bad("bad/empty.npy", b"", "empty file", "zero bytes")
    # .pb
    t = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "x")
    s = t.SerializeToString()
    bad("bad/truncated.pb", s[:-10], "truncated TensorProto: raw_data field length runs past end of file",
        "valid float tensor [3,4] with the last 10 bytes cut")
    t2 = TensorProto()
    t2.CopyFrom(t)
    t2.raw_data = t.raw_data[:20]
    bad("bad/raw_data_length_mismatch.pb", t2.SerializeToString(),
        "raw_data is 20 bytes but dims [3,4] float need 48", "dims say 12 floats, raw_data holds 5")
    t3 = TensorProto()
    t3.name, t3.data_type = "x", TensorProto.INT32
    t3.dims.extend([2, 3])
    t3.int32_data.extend([1, 2, 3, 4, 5])
    bad("bad/typed_count_mismatch.pb", t3.SerializeToString(), "int32_data has 5 values but dims [2,3] need 6",
        "typed field count disagrees with dims")
    t4 = numpy_helper.from_array(np.zeros(4, dtype=np.float32), "x")
    t4.data_type = 999
    bad("bad/unknown_data_type.pb", t4.SerializeToString(), "unknown TensorProto data_type 999",
        "data_type enum value 999")
    t5 = numpy_helper.from_array(np.zeros(4, dtype=np.float32), "x")
    t5.data_location = TensorProto.EXTERNAL
    t5.ClearField("raw_data")
    e = t5.external_data.add()
    e.key, e.value = "location", "../../../etc/passwd"
    bad("bad/external_data.pb", t5.SerializeToString(),
        "external data is refused (location outside the model directory)",
        "data_location EXTERNAL with location ../../../etc/passwd")
    t6 = TensorProto()
    t6.data_type = TensorProto.FLOAT
    t6.dims.extend([1000000, 1000000000])
    t6.raw_data = b"\x00" * 16
    bad("bad/huge_dims.pb", t6.SerializeToString(), "dims claim 10^15 elements but raw_data is 16 bytes",
        "dims [1000000, 1000000000]")
    t7 = numpy_helper.from_array(np.arange(3, dtype=ml_dtypes.int4), "x")
    t7.raw_data = t7.raw_data + b"\x00"
    bad("bad/int4_raw_length_mismatch.pb", t7.SerializeToString(),
        "raw_data is 3 bytes but 3 int4 values pack into 2", "packed length check (note: onnx.numpy_helper "
        "itself accepts this file and ignores the extra byte; ndpad should reject it)")
    bad("bad/garbage.pb", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "not a valid protobuf message",
        "invalid varint / wire type")


def main() -> None:
    for sub in ("npy", "pb", "bad"):
        p = os.path.join(HERE, sub)
        if os.path.isdir(p):
            shutil.rmtree(p)
    FILES.clear()
    gen_npy()
    skipped = gen_pb()
    gen_bad()
    manifest = {"generator": f"numpy {np.__version__}, onnx {onnx.__version__}, ml_dtypes {ml_dtypes.__version__}",
                "skipped_types": skipped, "files": FILES}
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        f.write('{"generator": ' + json.dumps(manifest["generator"]) + ',\n "skipped_types": '
                + json.dumps(skipped) + ',\n "files": [\n')
        f.write(",\n".join(json.dumps(e, ensure_ascii=False) for e in FILES))
        f.write("\n]}\n")
    print(f"wrote {len(FILES)} manifest entries; skipped types: {skipped or 'none'}")


if __name__ == "__main__":
    main()
