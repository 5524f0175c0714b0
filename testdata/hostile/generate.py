#!/usr/bin/env python3
"""Malformed and hostile inputs for the ndpad command line, and a manifest of how to
run each one and what the error must say.

Writes, next to this script:
  npy/       .npy files: truncated, wrong magic, bad version, lying headers (10^15
             elements, products past 2^64, negative and non-numeric extents), bad
             dtypes, too many dimensions, nesting, bad element values
  pb/        TensorProto files: truncated, garbage, huge/negative dims, raw_data and
             typed-field length mismatches, unknown data types, invalid UTF-8 in
             string_data, external data pointing outside, huge length prefixes
  model/     ModelProto files: garbage, Pad nodes with huge / negative / overflowing
             pads, external data at ../../etc/passwd, 4000-deep nested graphs,
             2^20+1 nodes (the message limit), unsupported ops, cycles
  onnxtest/  directories in the ONNX backend-test layout with a bad part
  ok/        small valid inputs the hostile models and pad commands are run with
  manifest.json

Manifest: {"files": [{"name", "path", "args", "exit", "stderr_contains" or
"stdout_contains", "no_output", "note"}]}. In "args", "{hostile}" stands for this directory (absolute)
and "{tmp}" for a fresh empty temporary directory; "no_output" lists paths (with the
same placeholders) that must not exist after the command (no partial output). Every
command must exit with "exit" (1: rejected input), print no panic ("panicked" must
not appear in stderr), run under a memory limit (e.g. `prlimit --as=1073741824`), and
its stderr must contain "stderr_contains" (case-insensitive), which names the
problem (for `onnx-test`, whose report goes to stdout, stdout must contain
"stdout_contains").

The output is deterministic. Run from the repository root:
    .venv/bin/python testdata/hostile/generate.py
"""
from __future__ import annotations

import json
import os
import shutil
import struct

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ENTRIES: list[dict] = []


def write(rel: str, data: bytes) -> str:
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return rel


def entry(name: str, path: str | None, args: list[str], contains: str, note: str,
          no_output: list[str] | None = None, exit_code: int = 1, stream: str = "stderr") -> None:
    ENTRIES.append({
        "name": name,
        "path": path,
        "args": args,
        "exit": exit_code,
        stream + "_contains": contains,
        "no_output": no_output or [],
        "note": note,
    })


def H(rel: str) -> str:
    return "{hostile}/" + rel


# ---------------------------------------------------------------------------------
# .npy

MAGIC = b"\x93NUMPY"


def npy(header: str | bytes, data: bytes = b"", version: tuple[int, int] = (1, 0),
        header_len: int | None = None, pad: bool = True) -> bytes:
    h = header.encode("latin-1") if isinstance(header, str) else header
    if pad:
        pre = len(MAGIC) + 2 + (2 if version[0] == 1 else 4)
        total = pre + len(h) + 1
        h = h + b" " * ((64 - total % 64) % 64) + b"\n"
    n = len(h) if header_len is None else header_len
    lenfield = struct.pack("<H", n) if version[0] == 1 else struct.pack("<I", n)
    return MAGIC + bytes(version) + lenfield + h + data


def hdr(descr: str, shape: str, fortran: str = "False") -> str:
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


def info(name, rel, contains, note):
    entry(name, rel, ["info", H(rel)], contains, note)


def pad_npy(name, rel, contains, note, pads="1,1"):
    entry(name, rel, ["pad", H(rel), "{tmp}/out.npy", "--mode", "constant", "--pads", pads],
          contains, note, no_output=["{tmp}/out.npy"])


def gen_npy() -> None:
    good = hdr("<f4", "(3, 4)")
    info("npy_empty", write("npy/empty.npy", b""), "empty", "zero-byte file")
    info("npy_truncated_magic", write("npy/truncated_magic.npy", b"\x93NUM"), "truncated",
         "4 bytes of the magic string")
    info("npy_wrong_magic", write("npy/wrong_magic.npy", b"\x89PNG\r\n\x1a\n" + bytes(120)),
         "not a .npy file", "a PNG signature")
    info("npy_text_file", write("npy/text.npy", b"hello, I am not an array\n" * 4),
         "not a .npy file", "plain text")
    info("npy_bad_version", write("npy/bad_version.npy", npy(good, bytes(48), version=(9, 0))),
         "version", "format version 9.0")
    info("npy_truncated_header",
         write("npy/truncated_header.npy", npy(good, version=(1, 0))[:30]),
         "truncated", "header length says 118, 20 header bytes present")
    info("npy_header_len_4g",
         write("npy/header_len_4g.npy", npy(good, version=(2, 0), header_len=0xFFFFFFFF)),
         "header length", "v2 header length 2^32-1")
    info("npy_lying_shape_1e15",
         write("npy/lying_shape_1e15.npy", npy(hdr("<f4", "(1000000000000000,)"), bytes(16))),
         "needs", "header claims 10^15 float32 elements, 16 data bytes follow")
    pad_npy("npy_lying_shape_1e15_pad", "npy/lying_shape_1e15.npy", "needs",
            "the same file as the input of pad: rejected before any allocation")
    entry("npy_empty_huge_outer_extent",
          write("npy/empty_huge_outer.npy", npy(hdr("<f4", "(1000000000000, 0)"))),
          ["info", "--values", H("npy/empty_huge_outer.npy")], "values:\n[]",
          "no elements but an outer extent of 10^12: printing its values walks nothing",
          exit_code=0, stream="stdout")
    info("npy_lying_shape_2d",
         write("npy/lying_shape_2d.npy",
               npy(hdr("<f8", "(1000000000, 1000000)"), bytes(64))),
         "needs", "10^15 float64 elements as two extents")
    info("npy_shape_product_overflow",
         write("npy/shape_product_overflow.npy",
               npy(hdr("<f4", "(1099511627776, 1099511627776, 1099511627776)"), bytes(16))),
         "needs", "extents whose product exceeds 2^64")
    info("npy_shape_bigint",
         write("npy/shape_bigint.npy",
               npy(hdr("<f4", "(123456789012345678901234567890,)"), bytes(16))),
         "64 bits", "an extent past 2^64")
    info("npy_negative_shape",
         write("npy/negative_shape.npy", npy(hdr("<f4", "(-1, 4)"), bytes(16))),
         "shape", "a negative extent")
    info("npy_float_shape",
         write("npy/float_shape.npy", npy(hdr("<f4", "(2.5,)"), bytes(16))),
         "malformed .npy header", "a non-integer extent")
    info("npy_too_many_dims",
         write("npy/too_many_dims.npy", npy(hdr("<f4", "(" + "1, " * 100 + ")"), bytes(4))),
         "dimensions", "100 dimensions")
    info("npy_deep_nesting",
         write("npy/deep_nesting.npy",
               npy("{'descr': '<f4', 'fortran_order': False, 'shape': " + "(" * 200 + ")" * 200 +
                   ", }")),
         "nest", "200 nested tuples in the header")
    info("npy_truncated_data",
         write("npy/truncated_data.npy", npy(good, bytes(40))),
         "needs", "3x4 float32 needs 48 bytes, 40 follow")
    info("npy_trailing_data",
         write("npy/trailing_data.npy", npy(good, bytes(64))),
         "needs", "3x4 float32 needs 48 bytes, 64 follow")
    info("npy_object_dtype",
         write("npy/object_dtype.npy", npy(hdr("|O", "(2,)"), bytes(16))),
         "dtype", "pickled Python objects")
    info("npy_unknown_dtype",
         write("npy/unknown_dtype.npy", npy(hdr("<q7", "(2,)"), bytes(16))),
         "dtype", "a descr numpy does not have")
    info("npy_structured_dtype",
         write("npy/structured_dtype.npy",
               npy("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }",
                   bytes(16))),
         "dtype", "a structured (record) dtype")
    info("npy_header_not_dict",
         write("npy/header_not_dict.npy", npy("[1, 2, 3]", bytes(16))),
         "header", "the header is a list")
    info("npy_header_missing_shape",
         write("npy/header_missing_shape.npy",
               npy("{'descr': '<f4', 'fortran_order': False, }", bytes(16))),
         "shape", "no 'shape' key")
    info("npy_header_bad_fortran",
         write("npy/header_bad_fortran.npy", npy(hdr("<f4", "(4,)", fortran="'yes'"), bytes(16))),
         "fortran_order", "fortran_order is a string")
    info("npy_header_invalid_utf8",
         write("npy/header_invalid_utf8.npy",
               npy(b"{'descr': '<f4\xff\xfe', 'fortran_order': False, 'shape': (4,), }",
                   bytes(16))),
         "dtype", "bytes that are not text in the header's descr")
    info("npy_bool_bad_byte",
         write("npy/bool_bad_byte.npy", npy(hdr("|b1", "(4,)"), bytes([0, 1, 7, 0]))),
         "element 2", "a bool byte of 7")
    info("npy_unicode_bad_codepoint",
         write("npy/unicode_bad_codepoint.npy",
               npy(hdr("<U1", "(2,)"), struct.pack("<II", 0x41, 0xD800))),
         "element 1", "a UTF-16 surrogate in a <U1 array")
    info("npy_unicode_huge_itemsize",
         write("npy/unicode_huge_itemsize.npy",
               npy(hdr("<U4611686018427387904", "(1,)"), bytes(16))),
         "dtype", "<U2^62: the item size overflows")
    info("npy_raw_v2_without_dtype",
         write("npy/raw_v2_without_dtype.npy", npy(hdr("<V2", "(2,)"), bytes(4))),
         "--dtype", "raw V2 (bfloat16 as ml_dtypes writes it) without --dtype")

    # Valid small inputs for the pad commands and models below.
    x = np.arange(3, dtype=np.float32)
    ok = os.path.join(HERE, "ok")
    os.makedirs(ok, exist_ok=True)
    np.save(os.path.join(ok, "x3_f32.npy"), x)
    np.save(os.path.join(ok, "x3_u8.npy"), np.arange(3, dtype=np.uint8))
    u8 = "ok/x3_u8.npy"
    pad_npy("pad_huge_pads", u8, "limit",
            "pads 2^62 on a 3-element uint8 array: refused by --max-output-bytes",
            pads="0,4611686018427387904")
    pad_npy("pad_1tb_default_limit", u8, "limit",
            "a 1 TiB output: refused by the default --max-output-bytes before allocating",
            pads="0,1099511627776")
    entry("pad_explicit_max_output_bytes", u8,
          ["pad", H(u8), "{tmp}/out.npy", "--mode", "constant", "--pads", "0,2000000",
           "--max-output-bytes", "1000000"],
          "max-output-bytes", "a 2 MB output over --max-output-bytes 1000000",
          no_output=["{tmp}/out.npy"])
    # One 64 KiB string copied 201 times by an edge pad: the copied text counts
    # against the limit (about 13 MB here).
    np.save(os.path.join(ok, "long_string.npy"), np.array([b"x" * (1 << 16)]))
    entry("pad_long_string_edge_over_limit", "ok/long_string.npy",
          ["pad", H("ok/long_string.npy"), "{tmp}/out.npy", "--mode", "edge", "--pads", "200,0",
           "--max-output-bytes", "100K"],
          "max-output-bytes", "edge-padding a 64 KiB string 200 times over --max-output-bytes 100K",
          no_output=["{tmp}/out.npy"])
    pad_npy("pad_i64_max_pads", u8, "overflow",
            "pads i64::MAX at both ends: the extent overflows",
            pads="9223372036854775807,9223372036854775807")
    pad_npy("pad_negative_beyond_dim", u8, "negative",
            "pads -10 on an axis of 3", pads="-10,0")
    pad_npy("pad_i64_min", u8, "negative",
            "pads i64::MIN", pads="-9223372036854775808,0")
    entry("pad_reflect_oversized", u8,
          ["pad", H(u8), "{tmp}/out.npy", "--framework", "openvino", "--mode", "reflect",
           "--pads-begin", "5", "--pads-end", "0"],
          "exceeds", "OpenVINO reflect pad 5 on an axis of 3 (at most d - 1 = 2)",
          no_output=["{tmp}/out.npy"])
    entry("pad_wrong_rank", u8,
          ["pad", H(u8), "{tmp}/out.npy", "--mode", "constant", "--pads", "1,1,1,1"],
          "pads", "4 pads for a rank-1 input", no_output=["{tmp}/out.npy"])
    entry("pad_value_wrong_type", u8,
          ["pad", H(u8), "{tmp}/out.npy", "--mode", "constant", "--pads", "1,1", "--value", "300"],
          "300", "--value 300 for uint8", no_output=["{tmp}/out.npy"])


# ---------------------------------------------------------------------------------
# Protobuf wire format, by hand (so that any field can hold any value).

def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def f_varint(field: int, v: int) -> bytes:
    return key(field, 0) + varint(v)


def f_bytes(field: int, b: bytes) -> bytes:
    return key(field, 2) + varint(len(b)) + b


def f_packed_varints(field: int, vs: list[int]) -> bytes:
    return f_bytes(field, b"".join(varint(v) for v in vs))


# TensorProto fields
T_DIMS, T_DATA_TYPE, T_SEGMENT, T_FLOAT, T_INT32, T_STRING, T_INT64, T_NAME = 1, 2, 3, 4, 5, 6, 7, 8
T_RAW, T_DOUBLE, T_UINT64, T_EXTERNAL, T_LOCATION = 9, 10, 11, 13, 14
FLOAT, UINT8, INT8, STRING, BOOL, INT64 = 1, 2, 3, 8, 9, 7


def tensor(dims=(), dtype=FLOAT, raw: bytes | None = None, name=b"x", extra=b"") -> bytes:
    out = b""
    if dims:
        out += f_packed_varints(T_DIMS, list(dims))
    out += f_varint(T_DATA_TYPE, dtype)
    out += f_bytes(T_NAME, name)
    if raw is not None:
        out += f_bytes(T_RAW, raw)
    return out + extra


def external(location: str) -> bytes:
    entry_ = f_bytes(1, b"location") + f_bytes(2, location.encode())
    return f_bytes(T_EXTERNAL, entry_) + f_varint(T_LOCATION, 1)


def info_pb(name, rel, contains, note):
    entry(name, rel, ["info", H(rel)], contains, note)


def gen_pb() -> None:
    good = tensor((2, 3), FLOAT, bytes(24))
    info_pb("pb_garbage", write("pb/garbage.pb", bytes(range(256)) * 2), "TensorProto",
            "bytes that are not a protobuf")
    info_pb("pb_truncated", write("pb/truncated.pb", good[:-7]), "TensorProto",
            "raw_data cut 7 bytes short of its length prefix")
    info_pb("pb_truncated_varint", write("pb/truncated_varint.pb", b"\x08\xff\xff"),
            "TensorProto", "a varint that never ends")
    info_pb("pb_huge_length_prefix",
            write("pb/huge_length_prefix.pb", key(T_RAW, 2) + varint(1 << 62) + bytes(8)),
            "TensorProto", "raw_data claiming 2^62 bytes")
    info_pb("pb_empty", write("pb/empty.pb", b""), "data_type",
            "zero bytes: a TensorProto with no data_type")
    info_pb("pb_dims_1e15", write("pb/dims_1e15.pb", tensor((10**15,), FLOAT, bytes(4))),
            "raw_data", "dims [10^15] with 4 bytes of raw_data")
    info_pb("pb_dims_1e15_typed",
            write("pb/dims_1e15_typed.pb",
                  tensor((10**15,), FLOAT, extra=f_bytes(T_FLOAT, struct.pack("<f", 1.0)))),
            "float_data", "dims [10^15] with one float_data value")
    info_pb("pb_dims_product_overflow",
            write("pb/dims_product_overflow.pb", tensor((1 << 40, 1 << 40, 1 << 40), FLOAT, bytes(4))),
            "dims", "dims whose product exceeds 2^64")
    info_pb("pb_negative_dim", write("pb/negative_dim.pb", tensor((-1, 3), FLOAT, bytes(12))),
            "dims", "dims [-1, 3]")
    info_pb("pb_i64_min_dim", write("pb/i64_min_dim.pb", tensor((-(1 << 63),), FLOAT, bytes(4))),
            "dims", "dims [i64::MIN]")
    info_pb("pb_many_dims", write("pb/many_dims.pb", tensor((1,) * 100000, FLOAT, bytes(4))),
            "dims", "100000 dims of 1 (the .npy reader stops at 64; today the .pb reader accepts this)")
    info_pb("pb_raw_length_mismatch",
            write("pb/raw_length_mismatch.pb", tensor((2, 3), FLOAT, bytes(20))),
            "raw_data", "2x3 float with 20 bytes of raw_data")
    info_pb("pb_typed_count_mismatch",
            write("pb/typed_count_mismatch.pb",
                  tensor((2, 3), FLOAT, extra=f_bytes(T_FLOAT, bytes(20)))),
            "float_data", "2x3 float with 5 float_data values")
    info_pb("pb_unknown_data_type", write("pb/unknown_data_type.pb", tensor((1,), 99, bytes(4))),
            "99", "data_type 99")
    info_pb("pb_negative_data_type",
            write("pb/negative_data_type.pb", tensor((1,), -5, bytes(4))),
            "-5", "data_type -5")
    info_pb("pb_wrong_typed_field",
            write("pb/wrong_typed_field.pb", tensor((2,), FLOAT, extra=f_packed_varints(T_INT64, [1, 2]))),
            "int64_data", "a float tensor whose data is in int64_data")
    info_pb("pb_two_data_fields",
            write("pb/two_data_fields.pb",
                  tensor((1,), FLOAT, bytes(4), extra=f_bytes(T_FLOAT, bytes(4)))),
            "float_data", "raw_data and float_data both set")
    info_pb("pb_string_invalid_utf8",
            write("pb/string_invalid_utf8.pb",
                  tensor((2,), STRING, extra=f_bytes(T_STRING, b"ok") + f_bytes(T_STRING, b"\xff\xfe\xfd"))),
            "UTF-8", "string_data entry 1 is not UTF-8")
    info_pb("pb_string_count_mismatch",
            write("pb/string_count_mismatch.pb",
                  tensor((3,), STRING, extra=f_bytes(T_STRING, b"a"))),
            "string_data", "3 strings declared, 1 present")
    info_pb("pb_bool_value_2",
            write("pb/bool_value_2.pb", tensor((2,), BOOL, bytes([1, 2])),),
            "element 1", "a bool raw_data byte of 2")
    info_pb("pb_int8_out_of_range",
            write("pb/int8_out_of_range.pb",
                  tensor((2,), INT8, extra=f_packed_varints(T_INT32, [1, 1000]))),
            "1000", "int8 tensor with int32_data value 1000")
    info_pb("pb_external_data_passwd",
            write("pb/external_data_passwd.pb",
                  tensor((4,), FLOAT, extra=external("../../etc/passwd"))),
            "external data", "data_location EXTERNAL at ../../etc/passwd")
    info_pb("pb_external_data_absolute",
            write("pb/external_data_absolute.pb",
                  tensor((4,), FLOAT, extra=external("/etc/passwd"))),
            "external data", "data_location EXTERNAL at /etc/passwd")
    info_pb("pb_segment",
            write("pb/segment.pb", tensor((2,), FLOAT, bytes(8),
                                          extra=f_bytes(T_SEGMENT, f_varint(1, 0) + f_varint(2, 1)))),
            "segment", "a segmented tensor")
    pad = "pb/raw_length_mismatch.pb"
    entry("pb_pad_raw_length_mismatch", pad,
          ["pad", H(pad), "{tmp}/out.pb", "--mode", "constant", "--pads", "0,0,0,0"],
          "raw_data", "a bad .pb as the input of pad", no_output=["{tmp}/out.pb"])


# ---------------------------------------------------------------------------------
# Models

def pad_model(pads: list[int], opset: int = 13, mode: str = "constant",
              pads_tensor: TensorProto | None = None, elem=TensorProto.FLOAT, rank=1):
    shape = [3] * rank
    x = helper.make_tensor_value_info("x", elem, shape)
    y = helper.make_tensor_value_info("y", elem, None)
    p = pads_tensor if pads_tensor is not None else helper.make_tensor(
        "pads", TensorProto.INT64, [len(pads)], pads)
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    g = helper.make_graph([node], "g", [x], [y], initializer=[p])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def run(name, rel, contains, note, inp="ok/x3_f32.npy"):
    entry(name, rel,
          ["run", H(rel), "--input", "x=" + H(inp), "--output", "y={tmp}/y.npy"],
          contains, note, no_output=["{tmp}/y.npy"])


def save_model(rel: str, m) -> str:
    return write(rel, m.SerializeToString())


def gen_model() -> None:
    run("model_garbage", write("model/garbage.onnx", bytes(range(255, -1, -1)) * 2),
        "ModelProto", "bytes that are not a protobuf")
    good = pad_model([1, 1]).SerializeToString()
    run("model_truncated", write("model/truncated.onnx", good[: len(good) // 2]),
        "ModelProto", "the first half of a valid model")
    run("model_empty", write("model/empty.onnx", b""), "graph",
        "zero bytes: a model without a graph")
    run("model_pad_huge_pads",
        save_model("model/pad_huge_pads.onnx", pad_model([0, 1 << 62], elem=TensorProto.UINT8)),
        "limit", "uint8 pads [0, 2^62]: refused by the output limit, not an OOM kill",
        inp="ok/x3_u8.npy")
    run("model_pad_huge_pads_f32",
        save_model("model/pad_huge_pads_f32.onnx", pad_model([0, 1 << 62])),
        "memory", "float32 pads [0, 2^62]: 2^64 bytes cannot even be addressed")
    run("model_pad_i64_max", save_model("model/pad_i64_max.onnx",
                                        pad_model([(1 << 63) - 1, (1 << 63) - 1])),
        "overflow", "pads [i64::MAX, i64::MAX]")
    run("model_pad_negative_beyond_dim",
        save_model("model/pad_negative_beyond_dim.onnx", pad_model([-10, 0])),
        "negative", "pads [-10, 0] on an axis of 3")
    run("model_pad_reflect_crop_all",
        save_model("model/pad_reflect_crop_all.onnx", pad_model([-3, 1], mode="reflect")),
        "axis 0", "reflect after cropping all 3 elements")
    run("model_pads_wrong_length",
        save_model("model/pads_wrong_length.onnx", pad_model([1, 1, 1])),
        "pads", "3 pads for rank 1")
    run("model_pads_float",
        save_model("model/pads_float.onnx",
                   pad_model([], pads_tensor=helper.make_tensor("pads", TensorProto.FLOAT, [2], [1.0, 1.0]))),
        "pads", "pads given as float")
    run("model_opset_huge", save_model("model/opset_huge.onnx", pad_model([1, 1], opset=9999)),
        "9999", "opset 9999")
    run("model_mode_unknown",
        save_model("model/mode_unknown.onnx", pad_model([1, 1], mode="circular")),
        "circular", "mode 'circular'")

    # Initializer with external data at ../../etc/passwd.
    m = pad_model([1, 1])
    t = m.graph.initializer[0]
    t.ClearField("int64_data")
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", "../../etc/passwd"
    run("model_external_data_passwd", save_model("model/external_data_passwd.onnx", m),
        "external data", "the pads initializer's data is at ../../etc/passwd")
    m = pad_model([1, 1])
    t = m.graph.initializer[0]
    t.ClearField("int64_data")
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", "/etc/passwd"
    run("model_external_data_absolute", save_model("model/external_data_absolute.onnx", m),
        "external data", "the pads initializer's data is at /etc/passwd")

    # constant_value: a string tensor whose string_data is not UTF-8.
    m = pad_model([1, 1], elem=TensorProto.STRING)
    cv = helper.make_tensor("cv", TensorProto.STRING, [], [b"\xff\xfe"])
    m.graph.initializer.append(cv)
    m.graph.node[0].input.append("cv")
    run("model_string_invalid_utf8", save_model("model/string_invalid_utf8.onnx", m),
        "UTF-8", "a string constant_value that is not UTF-8")

    # Unsupported operator.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Softmax", ["x"], ["y"])], "g", [x], [y])
    run("model_unsupported_op",
        save_model("model/unsupported_op.onnx",
                   helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])),
        "Softmax", "a Softmax node")

    # A cycle: y = Pad(z), z = Pad(y).
    p = helper.make_tensor("pads", TensorProto.INT64, [2], [0, 0])
    g = helper.make_graph(
        [helper.make_node("Pad", ["z", "pads"], ["y"]), helper.make_node("Pad", ["y", "pads"], ["z"])],
        "g", [x], [y], initializer=[p])
    run("model_cycle",
        save_model("model/cycle.onnx", helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])),
        "z", "two Pad nodes that feed each other (x is never used)")

    # Deep nesting: Model.graph -> Node -> Attribute.g -> Graph -> Node -> ... 4000 deep.
    inner = b""
    for _ in range(4000):
        attr = f_bytes(1, b"g") + f_varint(20, 5) + f_bytes(6, inner)  # name, type=GRAPH, g
        node = f_bytes(4, b"If") + f_bytes(5, attr)  # op_type, attribute
        inner = f_bytes(1, node)  # GraphProto.node
    model = f_varint(1, 8) + f_bytes(7, inner) + f_bytes(8, f_varint(2, 13))
    run("model_deep_nesting", write("model/deep_nesting.onnx", model), "graph attributes",
        "graphs nested 4000 deep through If attributes")

    # 2^20 + 1 empty nodes: one more message than the default limit.
    nodes = b"\x0a\x00" * ((1 << 20) + 1)
    model = f_varint(1, 8) + f_bytes(7, nodes) + f_bytes(8, f_varint(2, 13))
    run("model_many_nodes", write("model/many_nodes.onnx", model), "exceeds the limit",
        "2^20 + 1 empty nodes (2 MB): over the message limit")


# ---------------------------------------------------------------------------------
# ONNX backend-test directories

def gen_onnxtest() -> None:
    x = np.arange(3, dtype=np.float32)
    model = pad_model([1, 1]).SerializeToString()
    good_in = numpy_helper.from_array(x, "x").SerializeToString()
    good_out = numpy_helper.from_array(np.pad(x, (1, 1)), "y").SerializeToString()

    def case(name, files: dict[str, bytes], contains, note):
        base = f"onnxtest/{name}"
        for rel, data in files.items():
            write(f"{base}/{rel}", data)
        entry(f"onnxtest_{name}", base, ["onnx-test", H(base)], contains, note, stream="stdout")

    case("truncated_input",
         {"model.onnx": model, "test_data_set_0/input_0.pb": good_in[:-5],
          "test_data_set_0/output_0.pb": good_out},
         "truncated", "input_0.pb cut short")
    case("external_input",
         {"model.onnx": model,
          "test_data_set_0/input_0.pb": tensor((3,), FLOAT, extra=external("../../../../etc/passwd")),
          "test_data_set_0/output_0.pb": good_out},
         "external data", "input_0.pb's data is at ../../../../etc/passwd")
    case("garbage_model",
         {"model.onnx": b"\xff" * 64, "test_data_set_0/input_0.pb": good_in,
          "test_data_set_0/output_0.pb": good_out},
         "ModelProto", "model.onnx is garbage")
    u8 = np.arange(3, dtype=np.uint8)
    case("huge_pads",
         {"model.onnx": pad_model([0, 1 << 62], elem=TensorProto.UINT8).SerializeToString(),
          "test_data_set_0/input_0.pb": numpy_helper.from_array(u8, "x").SerializeToString(),
          "test_data_set_0/output_0.pb": numpy_helper.from_array(np.pad(u8, (1, 1)), "y").SerializeToString()},
         "limit", "the uint8 model pads by 2^62: refused by the output limit")
    case("lying_output",
         {"model.onnx": model, "test_data_set_0/input_0.pb": good_in,
          "test_data_set_0/output_0.pb": tensor((10**15,), FLOAT, bytes(20), name=b"y")},
         "raw_data", "output_0.pb claims 10^15 elements")


def main() -> None:
    for sub in ("npy", "pb", "model", "onnxtest", "ok"):
        shutil.rmtree(os.path.join(HERE, sub), ignore_errors=True)
    gen_npy()
    gen_pb()
    gen_model()
    gen_onnxtest()
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        f.write('{"generator": "testdata/hostile/generate.py",\n "files": [\n')
        f.write(",\n".join(json.dumps(e, sort_keys=True) for e in ENTRIES))
        f.write("\n]}\n")
    print(f"{len(ENTRIES)} cases")


if __name__ == "__main__":
    main()
