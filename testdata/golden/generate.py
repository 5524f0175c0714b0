#!/usr/bin/env python3
"""Golden Pad cases computed by real runtimes.

Writes, next to this script:
  onnxruntime.json     ONNX cases run by onnxruntime (CPU execution provider)
  onnx_reference.json  the same ONNX cases run by onnx.reference.ReferenceEvaluator
  openvino.json        OpenVINO Pad-12 / Pad-1 cases compiled and run on CPU
  numpy.json           numpy.pad cases

Every case is executed in a worker subprocess, so a runtime that crashes the process
only loses that case (recorded as "error": "crashed: ...").

Run from the repository root:
    .venv/bin/python testdata/golden/generate.py            # all four files
    .venv/bin/python testdata/golden/generate.py numpy      # just one (onnxruntime,
                                                             # onnx_reference, openvino, numpy)
"""
from __future__ import annotations

import json
import math
import re
import os
import selectors
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_TIMEOUT_S = 60

# --------------------------------------------------------------------------------------
# value encoding


def np_dtype(name: str):
    """numpy dtype for an ONNX type name ("float", "int4", "string", ...)."""
    from onnx import TensorProto, helper

    if name == "string":
        return np.dtype(object)
    return np.dtype(helper.tensor_dtype_to_np_dtype(TensorProto.DataType.Value(name.upper())))


def is_floatlike(name: str) -> bool:
    return name in ("float", "double", "float16", "bfloat16") or name.startswith("float")


def enc_value(v, dtype: str):
    if dtype == "string":
        if isinstance(v, bytes):
            return v.decode("utf-8")
        return str(v)
    if dtype == "bool":
        return bool(v)
    if is_floatlike(dtype) or dtype.startswith("complex"):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    return int(v)


def dec_value(v, dtype: str):
    if dtype == "string":
        return v.encode("utf-8")
    if isinstance(v, str):
        return float(v)
    return v


def to_array(data, shape, dtype: str) -> np.ndarray:
    dt = np_dtype(dtype)
    vals = [dec_value(v, dtype) for v in data]
    if dtype == "string":
        a = np.empty(len(vals), dtype=object)
        a[:] = vals
        return a.reshape(shape)
    if dtype == "bool":
        return np.array(vals, dtype=bool).reshape(shape)
    if dt.kind in "iu" and dt.type.__module__ == "numpy":
        return np.array(vals, dtype=dt).reshape(shape)
    # go through float64 / int64 so that ml_dtypes types convert cleanly
    base = np.float64 if is_floatlike(dtype) else np.int64
    return np.array(vals, dtype=base).astype(dt).reshape(shape)


def from_array(a: np.ndarray, dtype: str) -> dict:
    a = np.asarray(a)
    return {"shape": [int(d) for d in a.shape], "data": [enc_value(v, dtype) for v in a.reshape(-1).tolist()]
            if dtype not in ("bfloat16",) and not dtype.startswith(("float8", "float4", "int4", "uint4", "int2", "uint2"))
            else [enc_value(v, dtype) for v in a.reshape(-1)]}


def short_error(e: BaseException | str) -> str:
    s = str(e).strip()
    if isinstance(e, BaseException):
        s = f"{type(e).__name__}: {s}"
    s = re.sub(r"\b(Pad|Parameter|Constant|Result)_\d+", r"\1_N", s)
    return s[:600]


# --------------------------------------------------------------------------------------
# runners (executed inside the worker process)


def build_onnx_model(c: dict):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    opset = c["opset"]
    dtype = c["dtype"]
    elem = TensorProto.DataType.Value(dtype.upper())
    x = helper.make_tensor_value_info("x", elem, c["shape"])
    y = helper.make_tensor_value_info("y", elem, None)
    inits = []
    attrs = {"mode": c["mode"]}
    inputs = ["x"]
    if opset < 11:
        key = "paddings" if opset == 1 else "pads"
        attrs[key] = c["pads"]
        if c["constant_value"] is not None:
            attrs["value"] = float(dec_value(c["constant_value"], "float"))
    else:
        pdt = np.int32 if c.get("pads_dtype") == "int32" else np.int64
        inits.append(numpy_helper.from_array(np.array(c["pads"], dtype=pdt).reshape(-1), "pads"))
        inputs.append("pads")
        if c["constant_value"] is not None:
            cdt = c.get("constant_value_dtype") or dtype
            cv = to_array([c["constant_value"]], c.get("constant_value_shape") or [], cdt)
            inits.append(numpy_helper.from_array(cv, "cv"))
            inputs.append("cv")
        elif c["axes"] is not None:
            inputs.append("")
        if c["axes"] is not None:
            adt = np.int32 if c.get("axes_dtype") == "int32" else np.int64
            inits.append(numpy_helper.from_array(np.array(c["axes"], dtype=adt).reshape(-1), "axes"))
            inputs.append("axes")
    node = helper.make_node("Pad", inputs, ["y"], **attrs)
    graph = helper.make_graph([node], c["name"], [x], [y], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="ndpad-golden")
    model.ir_version = min(model.ir_version, 10)
    return model


def run_onnxruntime(c: dict) -> np.ndarray:
    import onnxruntime as ort

    model = build_onnx_model(c)
    so = ort.SessionOptions()
    so.log_severity_level = 4
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": to_array(c["data"], c["shape"], c["dtype"])})[0]


def run_reference(c: dict) -> np.ndarray:
    from onnx.reference import ReferenceEvaluator

    model = build_onnx_model(c)
    ref = ReferenceEvaluator(model)
    return ref.run(None, {"x": to_array(c["data"], c["shape"], c["dtype"])})[0]


def run_openvino(c: dict) -> np.ndarray:
    import openvino as ov
    import openvino.opset1 as op1
    import openvino.opset12 as op12

    ops = op12 if c["opset"] == 12 else op1
    nptype = {"float": np.float32, "int32": np.int32, "int64": np.int64, "double": np.float64,
              "uint8": np.uint8, "int8": np.int8, "float16": np.float16}[c["dtype"]]
    param = ops.parameter(c["shape"], nptype, name="x")
    pb = op12.constant(np.array(c["pads_begin"], dtype=np.int64))
    pe = op12.constant(np.array(c["pads_end"], dtype=np.int64))
    if c["pad_value"] is not None:
        pv = op12.constant(np.array(dec_value(c["pad_value"], c["dtype"]), dtype=nptype))
        node = ops.pad(param, pb, pe, c["mode"], pv)
    else:
        node = ops.pad(param, pb, pe, c["mode"])
    model = ov.Model([node], [param], c["name"])
    core = ov.Core()
    compiled = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": 1})
    res = compiled({"x": to_array(c["data"], c["shape"], c["dtype"])})
    return np.asarray(res[compiled.output(0)])


def run_numpy(c: dict) -> np.ndarray:
    x = to_array(c["data"], c["shape"], c["dtype"])
    pw = [tuple(p) for p in c["pad_width"]]
    if c["mode"] == "constant" and c["constant_value"] is not None:
        return np.pad(x, pw, mode="constant", constant_values=dec_value(c["constant_value"], c["dtype"]))
    return np.pad(x, pw, mode=c["mode"])


RUNNERS = {"onnxruntime": run_onnxruntime, "onnx_reference": run_reference,
           "openvino": run_openvino, "numpy": run_numpy}


def worker(runtime: str) -> None:
    import warnings

    warnings.simplefilter("ignore")
    fn = RUNNERS[runtime]
    out = sys.stdout
    sys.stdout = sys.stderr  # keep stray prints off the protocol pipe
    for line in sys.stdin:
        c = json.loads(line)
        try:
            y = fn(c)
            dt = c["dtype"]
            res = {"expected": from_array(y, dt), "error": None}
            got = str(np.asarray(y).dtype)
            want = str(np.dtype(np_dtype(dt)))
            if got != want:
                res["output_dtype"] = got
        except BaseException as e:  # noqa: BLE001
            res = {"expected": None, "error": short_error(e)}
        out.write(json.dumps(res) + "\n")
        out.flush()


class Worker:
    def __init__(self, runtime: str):
        self.runtime = runtime
        self.proc = None

    def start(self):
        env = dict(os.environ, OMP_NUM_THREADS="1")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", self.runtime],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)

    def run(self, c: dict) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(json.dumps(c) + "\n")
        self.proc.stdin.flush()
        if self.sel.select(CASE_TIMEOUT_S):
            line = self.proc.stdout.readline()
            if line:
                return json.loads(line)
            self.proc.wait()
            rc = self.proc.returncode
            self.proc = None
            # the exact signal / glibc message varies between runs (heap corruption), so keep it generic
            what = "killed by a signal (SIGSEGV or SIGABRT)" if rc < 0 else f"exited with code {rc}"
            return {"expected": None, "error": f"crashed: the runtime process was {what}"}
        self.proc.kill()
        self.proc.wait()
        self.proc = None
        return {"expected": None, "error": f"crashed: timed out after {CASE_TIMEOUT_S}s"}

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


# --------------------------------------------------------------------------------------
# case lists

X12 = list(range(1, 13))  # [[1..4],[5..8],[9..12]]

# ONNX pads [b0, b1, e0, e1] on the 3x4 X
ONNX_PADS_2D = {
    "zero": [0, 0, 0, 0],
    "pos": [1, 2, 2, 3],
    "pos_small": [1, 1, 1, 1],
    "neg_all": [-1, -1, -1, -1],
    "crop_begin_row": [-1, 0, 0, 0],
    "mixed_a": [0, -1, 0, 2],
    "mixed_b": [1, -1, -1, 2],
    "mixed_c": [0, -2, 0, 3],
    "mixed_d": [0, -4, 0, 2],
    "mixed_e": [0, -5, 0, 3],
    "mixed_ov": [2, -1, -1, 3],
    "crop_to_empty": [-3, 0, 0, 1],
}
MODES = ["constant", "reflect", "edge", "wrap"]


def onnx_case(name, opset, mode, dtype, shape, data, pads, axes=None, cv=None, **extra):
    c = {"name": name, "framework": "onnx", "opset": opset, "mode": mode, "dtype": dtype,
         "shape": list(shape), "data": list(data), "pads": list(pads), "axes": axes,
         "constant_value": cv}
    c.update(extra)
    return c


SMALL_TYPES = ("float8e4m3fn", "float8e5m2", "float8e4m3fnuz", "float8e5m2fnuz", "float4e2m1", "float8e8m0",
               "int4", "uint4", "int2", "uint2")


def sample_data(dtype: str, n: int, start: int = 1):
    if dtype == "float8e8m0":
        return [[1.0, 2.0, 4.0, 0.5, 8.0, 0.25][i % 6] for i in range(n)]
    if dtype == "float4e2m1":
        return [[1.0, -2.0, 0.5, 3.0, -6.0, 1.5][i % 6] for i in range(n)]
    if dtype == "int2":
        return [((i + start + 2) % 4) - 2 for i in range(n)]
    if dtype == "uint2":
        return [(i + start) % 4 for i in range(n)]
    if dtype == "bool":
        return [bool((i * 7) % 3 == 0) for i in range(n)]
    if dtype == "string":
        return [f"s{i + start}" for i in range(n)]
    if dtype in ("int4",):
        return [((i + start + 8) % 16) - 8 for i in range(n)]
    if dtype in ("uint4",):
        return [(i + start) % 16 for i in range(n)]
    if dtype in ("int8",):
        return [((i + start) * 13) % 200 - 100 for i in range(n)]
    if dtype in ("uint8",):
        return [((i + start) * 37) % 256 for i in range(n)]
    if dtype.startswith("float8"):
        return [float((i + start) % 8) for i in range(n)]
    if is_floatlike(dtype):
        return [float(i + start) for i in range(n)]
    return [i + start for i in range(n)]


def onnx_cases() -> list[dict]:
    cases = []
    # main grid: every mode x every pads set x opsets
    for opset in (11, 13, 18, 19, 21):
        for mode in MODES:
            for pname, pads in ONNX_PADS_2D.items():
                cases.append(onnx_case(f"{mode}_{pname}_opset{opset}", opset, mode, "float", [3, 4],
                                       [float(v) for v in X12], pads))
    # other opsets: a subset
    for opset in (1, 2, 23, 24, 25):
        for mode in MODES:
            for pname in ("pos", "mixed_a", "mixed_c", "neg_all"):
                cases.append(onnx_case(f"{mode}_{pname}_opset{opset}", opset, mode, "float", [3, 4],
                                       [float(v) for v in X12], ONNX_PADS_2D[pname]))
    # opset 1/2 value attribute
    for opset in (1, 2):
        cases.append(onnx_case(f"constant_value_attr_opset{opset}", opset, "constant", "float", [3, 4],
                               [float(v) for v in X12], [1, 0, 0, 2], cv=2.5))
        cases.append(onnx_case(f"constant_value_attr_double_0.1_opset{opset}", opset, "constant", "double",
                               [2, 2], [1.0, 2.0, 3.0, 4.0], [0, 1, 0, 1], cv=0.1))
        cases.append(onnx_case(f"constant_float16_opset{opset}", opset, "constant", "float16", [2, 2],
                               [1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1], cv=-1.5))
        cases.append(onnx_case(f"constant_int32_opset{opset}", opset, "constant", "int32", [2, 2],
                               [1, 2, 3, 4], [1, 1, 1, 1]))
    # oversized reflect / wrap / edge on 1-D and 2-D (opset 19 and 11)
    for opset in (11, 19):
        for mode in ("reflect", "wrap", "edge", "constant"):
            for pads in ([2, 0], [0, 2], [3, 0], [0, 3], [3, 3], [4, 4], [7, 0], [10, 10]):
                cases.append(onnx_case(f"oversize_{mode}_1d_{pads[0]}_{pads[1]}_opset{opset}", opset, mode,
                                       "float", [3], [1.0, 2.0, 3.0], pads))
        for mode in ("reflect", "wrap"):
            cases.append(onnx_case(f"oversize_{mode}_2d_opset{opset}", opset, mode, "float", [3, 4],
                                   [float(v) for v in X12], [3, 4, 5, 9]))
    # size-1 axes
    for mode in MODES:
        cases.append(onnx_case(f"size1_axis_{mode}_opset19", 19, mode, "float", [1, 3], [1.0, 2.0, 3.0],
                               [1, 0, 2, 0]))
        cases.append(onnx_case(f"size1_axis_other_{mode}_opset19", 19, mode, "float", [1, 3], [1.0, 2.0, 3.0],
                               [0, 1, 0, 1]))
        cases.append(onnx_case(f"size1_1d_{mode}_opset19", 19, mode, "int32", [1], [5], [2, 3]))
    # zero-size axes
    for mode in MODES:
        cases.append(onnx_case(f"zero_size_grow_empty_axis_{mode}_opset19", 19, mode, "float", [0, 3], [],
                               [1, 0, 1, 0]))
        cases.append(onnx_case(f"zero_size_pad_other_axis_{mode}_opset19", 19, mode, "float", [0, 3], [],
                               [0, 1, 0, 1]))
        cases.append(onnx_case(f"zero_size_zero_pads_{mode}_opset19", 19, mode, "float", [0, 3], [],
                               [0, 0, 0, 0]))
    # rank 0
    for mode in ("constant", "edge"):
        cases.append(onnx_case(f"rank0_{mode}_opset19", 19, mode, "float", [], [3.0], []))
    # axes input (opset 18+)
    X234 = [float(v) for v in range(1, 25)]
    for opset in (18, 19, 21):
        for axes, pads, tag in (([1], [1, 2], "1"), ([-1], [1, 2], "m1"), ([0, 2], [1, 0, 0, 2], "0_2"),
                                ([-3, -1], [1, 0, 0, 2], "m3_m1"), ([2, 0], [1, 0, 2, 1], "2_0"),
                                ([1, 1], [1, 2, 3, 4], "repeated_1_1"), ([-4], [1, 1], "out_of_range_m4"),
                                ([3], [1, 1], "out_of_range_3"), ([], [], "empty"),
                                ([0, 1, 2], [0, -1, 1, 1, 0, -1], "all_mixed")):
            for mode in ("constant", "reflect") if opset != 19 else MODES:
                cases.append(onnx_case(f"axes_{tag}_{mode}_opset{opset}", opset, mode, "float", [2, 3, 4], X234,
                                       pads, axes=axes))
    cases.append(onnx_case("axes_int32_opset18", 18, "constant", "float", [2, 3, 4], X234, [1, 2], axes=[1],
                           axes_dtype="int32"))
    cases.append(onnx_case("axes_with_cv_opset19", 19, "constant", "float", [2, 3, 4], X234, [1, 2], axes=[-1],
                           cv=9.0))
    cases.append(onnx_case("axes_pads_wrong_length_opset19", 19, "constant", "float", [2, 3, 4], X234,
                           [1, 2, 3, 4], axes=[1]))
    cases.append(onnx_case("axes_at_opset13", 13, "constant", "float", [2, 3, 4], X234, [1, 2], axes=[1]))
    # pads length wrong
    cases.append(onnx_case("pads_wrong_length_opset19", 19, "constant", "float", [3, 4], [float(v) for v in X12],
                           [1, 1]))
    cases.append(onnx_case("pads_int32_opset19", 19, "constant", "float", [3, 4], [float(v) for v in X12],
                           [1, 1, 1, 1], pads_dtype="int32"))
    # constant_value with non-constant modes and odd values
    for mode in ("reflect", "edge", "wrap"):
        cases.append(onnx_case(f"cv_ignored_{mode}_opset19", 19, mode, "float", [3, 4], [float(v) for v in X12],
                               [1, 1, 1, 1], cv=99.0))
    for cv, tag in ((7.0, "7"), (-1.5, "m1.5"), ("nan", "nan"), ("inf", "inf"), ("-inf", "minf"), (-0.0, "mzero")):
        cases.append(onnx_case(f"cv_{tag}_float_opset19", 19, "constant", "float", [2, 2], [1.0, 2.0, 3.0, 4.0],
                               [1, 0, 0, 1], cv=cv))
    cases.append(onnx_case("cv_double_for_float_opset19", 19, "constant", "float", [2, 2], [1.0, 2.0, 3.0, 4.0],
                           [1, 0, 0, 1], cv=0.1, constant_value_dtype="double"))
    cases.append(onnx_case("cv_shape1_opset19", 19, "constant", "float", [2, 2], [1.0, 2.0, 3.0, 4.0],
                           [1, 0, 0, 1], cv=5.0, constant_value_shape=[1]))
    cases.append(onnx_case("cv_shape2_opset19", 19, "constant", "float", [2, 2], [1.0, 2.0, 3.0, 4.0],
                           [1, 0, 0, 1], cv=5.0, constant_value_shape=[1, 1]))
    # symmetric in an ONNX model
    cases.append(onnx_case("symmetric_mode_opset19", 19, "symmetric", "float", [3, 4], [float(v) for v in X12],
                           [1, 1, 1, 1]))
    cases.append(onnx_case("bogus_mode_opset19", 19, "bogus", "float", [3, 4], [float(v) for v in X12],
                           [1, 1, 1, 1]))
    # dtypes
    dtype_cv = {"float": 0.5, "double": -2.25, "float16": 1.5, "bfloat16": 2.0, "int8": -7, "int16": -300,
                "int32": -70000, "int64": 9007199254740993, "uint8": 200, "uint16": 60000, "uint32": 4000000000,
                "uint64": 18446744073709551615, "bool": True, "string": "pad", "float8e4m3fn": 1.5,
                "float8e5m2": 2.0, "int4": -3, "uint4": 9, "float8e4m3fnuz": -1.0, "float8e5m2fnuz": 4.0,
                "float4e2m1": 1.5, "float8e8m0": 2.0, "int2": -1, "uint2": 3}
    for dtype, cvv in dtype_cv.items():
        small = dtype in SMALL_TYPES
        data = sample_data(dtype, 6)
        if dtype == "int64":
            data = [1, -2, 2**53 + 1, -(2**62), 2**63 - 1, -(2**63)]
        if dtype == "uint64":
            data = [1, 2, 2**53 + 1, 2**63, 2**64 - 1, 0]
        # version boundaries: the same constant case at every opset
        for opset in (2, 11, 13, 18, 19, 21, 23, 24, 25):
            if opset == 2:
                if dtype not in ("float", "double", "float16", "int32", "bool"):
                    continue
                cvv2 = float(cvv) if not isinstance(cvv, str) and dtype != "bool" else None
                cases.append(onnx_case(f"dtype_{dtype}_constant_cv_opset2", 2, "constant", dtype, [2, 3], data,
                                       [0, 1, 1, 1], cv=cvv2))
                continue
            cases.append(onnx_case(f"dtype_{dtype}_constant_cv_opset{opset}", opset, "constant", dtype, [2, 3],
                                   data, [0, 1, 1, 1], cv=cvv))
        for opset in (19, 25) if small else (19, 21):
            for mode in MODES:
                for ptag, pads in (("pos", [1, 1, 1, 1]), ("mixed", [1, -1, 0, 1])):
                    cases.append(onnx_case(f"dtype_{dtype}_{mode}_{ptag}_opset{opset}", opset, mode, dtype,
                                           [2, 3], data, pads))
    # float nan/inf data
    cases.append(onnx_case("float_nan_inf_data_reflect_opset19", 19, "reflect", "float", [4],
                           ["nan", "inf", "-inf", -0.0], [2, 2]))
    # random 3-D / 4-D cases (seeded, int-valued)
    rng = np.random.default_rng(20261101)
    for i in range(24):
        rank = 3 + (i % 2)
        shape = [int(d) for d in rng.integers(1, 5, size=rank)]
        n = int(np.prod(shape))
        mode = MODES[i % 4]
        pads = [int(p) for p in rng.integers(-1, 4, size=2 * rank)]
        dtype = ("float", "int32", "int64", "uint8")[(i // 4) % 4]
        data = [int(v) for v in rng.integers(0, 100, size=n)]
        if dtype == "float":
            data = [float(v) for v in data]
        cv = None
        if mode == "constant" and i % 8 == 0:
            cv = 42.0 if dtype == "float" else 42
        opset = (19, 21)[(i // 2) % 2]
        cases.append(onnx_case(f"random{i}_{rank}d_{mode}_{dtype}_opset{opset}", opset, mode, dtype, shape, data,
                               pads, cv=cv))
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases


def ov_case(name, opset, mode, dtype, shape, data, pb, pe, pv=None):
    return {"name": name, "framework": "openvino", "opset": opset, "mode": mode, "dtype": dtype,
            "shape": list(shape), "data": list(data), "pads_begin": list(pb), "pads_end": list(pe),
            "pad_value": pv}


def openvino_cases() -> list[dict]:
    cases = []
    ov_modes = ["constant", "edge", "reflect", "symmetric"]
    pads_sets = {
        "spec_positive": ([0, 1], [2, 3]),
        "spec_negative": ([-1, -1], [-1, -1]),
        "spec_mixed": ([2, -1], [-1, 3]),
        "mixed_a": ([0, -1], [0, 2]),
        "mixed_b": ([1, -1], [-1, 2]),
        "mixed_c": ([0, -2], [0, 3]),
        "mixed_d": ([0, -4], [0, 2]),
        "crop_row": ([-1, 0], [0, 0]),
        "zero": ([0, 0], [0, 0]),
        "oversize_reflect": ([0, 3], [0, 0]),
        "oversize_symmetric": ([0, 4], [0, 0]),
        "too_big": ([0, 5], [0, 0]),
        "crop_to_empty": ([-3, 0], [0, 1]),
        "negative_total": ([-2, 0], [-2, 0]),
        "mixed_e_crash": ([0, -5], [0, 3]),
    }
    for dtype in ("float", "int32"):
        data = [float(v) for v in X12] if dtype == "float" else X12
        for mode in ov_modes:
            for pname, (pb, pe) in pads_sets.items():
                cases.append(ov_case(f"{mode}_{pname}_{dtype}_v12", 12, mode, dtype, [3, 4], data, pb, pe))
    for mode in ov_modes:
        cases.append(ov_case(f"{mode}_spec_positive_v1", 1, mode, "float", [3, 4], [float(v) for v in X12],
                             [0, 1], [2, 3]))
        cases.append(ov_case(f"{mode}_spec_mixed_v1", 1, mode, "float", [3, 4], [float(v) for v in X12],
                             [2, -1], [-1, 3]))
    # pad_value
    cases.append(ov_case("constant_pad_value_v12", 12, "constant", "float", [3, 4], [float(v) for v in X12],
                         [1, 0], [0, 2], 15.0))
    cases.append(ov_case("constant_pad_value_int32_v12", 12, "constant", "int32", [3, 4], X12, [1, 0], [0, 2], -7))
    for mode in ("edge", "reflect", "symmetric"):
        cases.append(ov_case(f"{mode}_with_pad_value_v12", 12, mode, "float", [3, 4], [float(v) for v in X12],
                             [1, 1], [1, 1], 15.0))
    # size-1 and zero-size axes
    for mode in ov_modes:
        cases.append(ov_case(f"{mode}_size1_axis_v12", 12, mode, "float", [1, 3], [1.0, 2.0, 3.0], [1, 0], [1, 0]))
        cases.append(ov_case(f"{mode}_zero_size_grow_v12", 12, mode, "float", [0, 3], [], [1, 0], [1, 0]))
        cases.append(ov_case(f"{mode}_zero_size_other_v12", 12, mode, "float", [0, 3], [], [0, 1], [0, 1]))
    # spec's 4-D examples (data = arange % 10 to keep the file small)
    d4 = [i % 10 for i in range(1 * 3 * 32 * 40)]
    cases.append(ov_case("spec_4d_constant_positive_v12", 12, "constant", "float", [1, 3, 32, 40],
                         [float(v) for v in d4], [0, 5, 2, 1], [1, 0, 3, 7], 15.0))
    d4b = [i % 10 for i in range(2 * 3 * 32 * 40)]
    cases.append(ov_case("spec_4d_constant_mixed_v12", 12, "constant", "float", [2, 3, 32, 40],
                         [float(v) for v in d4b], [0, -2, -8, 1], [-1, 4, -6, 7], 15.0))
    cases.append(ov_case("spec_4d_edge_v12", 12, "edge", "float", [1, 3, 32, 40],
                         [float(v) for v in d4], [0, 5, 2, 1], [1, 0, 3, 7]))
    # random 3-D cases
    rng = np.random.default_rng(12)
    for i in range(24):
        shape = [int(d) for d in rng.integers(2, 5, size=3)]
        n = int(np.prod(shape))
        mode = ov_modes[i % 4]
        pb = [int(p) for p in rng.integers(-1, 3, size=3)]
        pe = [int(p) for p in rng.integers(-1, 3, size=3)]
        dtype = ("float", "int32")[(i // 4) % 2]
        data = [int(v) for v in rng.integers(-50, 50, size=n)]
        if dtype == "float":
            data = [float(v) for v in data]
        pv = None
        if mode == "constant" and i % 8 == 0:
            pv = 3.0 if dtype == "float" else 3
        cases.append(ov_case(f"random{i}_3d_{mode}_{dtype}_v12", 12, mode, dtype, shape, data, pb, pe, pv))
    return cases


def np_case(name, mode, dtype, shape, data, pad_width, cv=None):
    return {"name": name, "framework": "numpy", "opset": None, "mode": mode, "dtype": dtype, "shape": list(shape),
            "data": list(data), "pad_width": [list(p) for p in pad_width], "constant_value": cv}


def numpy_cases() -> list[dict]:
    cases = []
    modes = ["constant", "edge", "reflect", "symmetric", "wrap"]
    one_d = [(3, 0), (0, 3), (2, 2), (3, 3), (4, 0), (0, 5), (5, 5), (7, 2), (10, 10), (20, 1), (1, 0), (0, 0)]
    for mode in modes:
        for b, e in one_d:
            cases.append(np_case(f"{mode}_1d_{b}_{e}", mode, "int64", [3], [1, 2, 3], [(b, e)]))
        for b, e in ((2, 3), (5, 0)):
            cases.append(np_case(f"{mode}_size1_1d_{b}_{e}", mode, "int64", [1], [7], [(b, e)]))
            cases.append(np_case(f"{mode}_size2_1d_{b}_{e}", mode, "int64", [2], [7, 8], [(b, e)]))
        cases.append(np_case(f"{mode}_2d_pos", mode, "float", [3, 4], [float(v) for v in X12], [(1, 2), (2, 3)]))
        cases.append(np_case(f"{mode}_2d_oversize", mode, "float", [3, 4], [float(v) for v in X12],
                             [(4, 7), (9, 5)]))
        cases.append(np_case(f"{mode}_2d_size1", mode, "float", [1, 3], [1.0, 2.0, 3.0], [(2, 1), (1, 1)]))
        cases.append(np_case(f"{mode}_zero_size_grow", mode, "float", [0, 3], [], [(1, 1), (0, 0)]))
        cases.append(np_case(f"{mode}_zero_size_other", mode, "float", [0, 3], [], [(0, 0), (1, 1)]))
        cases.append(np_case(f"{mode}_negative", mode, "float", [3, 4], [float(v) for v in X12], [(0, 0), (-1, 2)]))
        cases.append(np_case(f"{mode}_3d", mode, "int32", [2, 3, 2], list(range(12)), [(1, 0), (2, 4), (0, 3)]))
    cases.append(np_case("rank0_constant", "constant", "float", [], [3.0], []))
    for dtype, cv in (("float", 2.5), ("double", -0.125), ("float16", 1.5), ("int8", -5), ("int16", -300),
                      ("int32", 123456), ("int64", 9007199254740993), ("uint8", 255), ("uint16", 65535),
                      ("uint32", 4294967295), ("uint64", 18446744073709551615), ("bool", True),
                      ("float", "nan"), ("double", "-inf")):
        data = sample_data(dtype, 6)
        if dtype == "int64":
            data = [2**63 - 1, -(2**63), 2**53 + 1, 0, -1, 1]
        for mode in ("constant", "reflect", "symmetric", "wrap", "edge"):
            this_cv = cv if mode == "constant" else None
            tag = "" if not isinstance(cv, str) else "_" + cv.replace("-", "m")
            cases.append(np_case(f"dtype_{dtype}{tag}_{mode}", mode, dtype, [2, 3], data, [(1, 2), (2, 4)], this_cv))
    rng = np.random.default_rng(7)
    for i in range(15):
        rank = 2 + i % 3
        shape = [int(d) for d in rng.integers(1, 4, size=rank)]
        mode = modes[i % 5]
        pw = [[int(v) for v in rng.integers(0, 6, size=2)] for _ in range(rank)]
        data = [int(v) for v in rng.integers(-20, 20, size=int(np.prod(shape)))]
        cases.append(np_case(f"random{i}_{rank}d_{mode}", mode, "int32", shape, data, pw))
    return cases


# --------------------------------------------------------------------------------------


def generator_name(runtime: str) -> str:
    if runtime == "onnxruntime":
        import onnxruntime

        return f"onnxruntime {onnxruntime.__version__} (CPUExecutionProvider)"
    if runtime == "onnx_reference":
        import onnx

        return f"onnx {onnx.__version__} onnx.reference.ReferenceEvaluator (numpy {np.__version__})"
    if runtime == "openvino":
        import openvino

        return f"openvino {openvino.__version__} (CPU)"
    return f"numpy {np.__version__}"


def write_json(path: str, generator: str, cases: list[dict]) -> None:
    with open(path, "w") as f:
        f.write('{"generator": ' + json.dumps(generator) + ',\n "cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")


def generate(runtime: str) -> None:
    cases = {"onnxruntime": onnx_cases, "onnx_reference": onnx_cases, "openvino": openvino_cases,
             "numpy": numpy_cases}[runtime]()
    w = Worker(runtime)
    t0 = time.time()
    ok = err = crashed = 0
    out = []
    for c in cases:
        r = w.run(c)
        c = dict(c)
        c["expected"] = r["expected"]
        c["error"] = r["error"]
        if "output_dtype" in r:
            c["output_dtype"] = r["output_dtype"]
        if c["error"] is None:
            ok += 1
        elif c["error"].startswith("crashed"):
            crashed += 1
        else:
            err += 1
        out.append(c)
    w.close()
    path = os.path.join(HERE, f"{runtime}.json")
    write_json(path, generator_name(runtime), out)
    print(f"{runtime}: {len(out)} cases ({ok} ok, {err} rejected, {crashed} crashed) "
          f"in {time.time() - t0:.1f}s -> {path} ({os.path.getsize(path)} bytes)")


def main() -> None:
    if len(sys.argv) >= 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
        return
    which = sys.argv[1:] or ["numpy", "onnx_reference", "onnxruntime", "openvino"]
    for r in which:
        generate(r)


if __name__ == "__main__":
    main()
