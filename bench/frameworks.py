#!/usr/bin/env python3
"""``ndpad.onnx.pad`` beside ONNX Runtime's ``InferenceSession.run`` of a one-node Pad
model (#31 item 4), one thread each, where a call's fixed cost is most of its time:
small tensors padded again and again (a model run in a loop), and tensors of a new
shape each call (ONNX Runtime's model then has symbolic dims).

Each round times ONNX Runtime then ndpad (the first quartile of ``--calls`` calls, the
VM's scheduler adds a tail); the table shows the medians over ``--rounds`` rounds, in
microseconds, and the median of the rounds' ratios. Every output is checked equal to
ONNX Runtime's, bit for bit.

    .venv/bin/python bench/frameworks.py [--rounds 7] [--calls 2000]
"""

from __future__ import annotations

import argparse
from typing import Callable, List, Optional, Tuple

import numpy as np

import ndpad
import ndpad.onnx

from _machine import cpu_name
from _timing import call_times, paired, quartile

OPSET = 21


def session(rank: int, mode: str, pads: List[int], dims: Optional[List[int]]):
    """An ONNX Runtime session of one Pad node (f32, ``pads`` and the zero constant
    as initializers), one thread; ``dims`` None: symbolic dims."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    inits = [numpy_helper.from_array(np.array(pads, np.int64), "pads")]
    inputs = ["x", "pads"]
    if mode == "constant":
        inits.append(numpy_helper.from_array(np.zeros((), np.float32), "cv"))
        inputs.append("cv")
    shape_in = dims if dims is not None else [f"d{i}" for i in range(rank)]
    shape_out = ([d + pads[i] + pads[i + rank] for i, d in enumerate(dims)]
                 if dims is not None else [f"o{i}" for i in range(rank)])
    graph = helper.make_graph(
        [helper.make_node("Pad", inputs, ["y"], mode=mode)], "pad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape_in)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape_out)],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])


def rows() -> List[Tuple[str, List[np.ndarray], List[int], str]]:
    """(label, the arrays padded in turn, ONNX pads, mode); the new shapes many more
    than the specs a remembered node keeps (`_ndpad.Node.SHAPES_KEPT`)."""
    rng = np.random.default_rng(0)
    out = []
    for mode in ("constant", "reflect"):
        x = rng.random((4, 4), dtype=np.float32)
        out.append((f"f32 4x4 pad 1, {mode}", [x], [1, 1, 1, 1], mode))
        x = rng.random((1, 3, 224, 224), dtype=np.float32)
        out.append((f"f32 1x3x224x224 pad 1 on H,W, {mode}", [x], [0, 0, 1, 1, 0, 0, 1, 1], mode))
    sides = rng.integers(8, 72, size=(400, 2))
    base = rng.random(80 * 80, dtype=np.float32)
    shapes = [base[:h * w].reshape(1, 1, h, w) for h, w in sides]
    out.append(("f32 [1,1,8-71,8-71], a new shape each call, reflect", shapes,
                [0, 0, 1, 1, 0, 0, 1, 1], "reflect"))
    return out


def main() -> int:
    import onnxruntime as ort

    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    print(f"{cpu_name()}; ndpad {ndpad.__version__}, onnxruntime {ort.__version__}, numpy "
          f"{np.__version__}; one thread; first quartile of {args.calls} calls (a pass over "
          f"the arrays for the new shapes), median of {args.rounds} rounds, us a pad\n")
    print("| workload | ONNX Runtime `run` | `ndpad.onnx.pad` | ndpad / ORT speed |")
    print("| --- | --- | --- | --- |")
    for label, arrays, pads, mode in rows():
        one = len(arrays) == 1
        sess = session(arrays[0].ndim, mode, pads, list(arrays[0].shape) if one else None)
        for x in arrays:
            want = sess.run(None, {"x": x})[0]
            got = ndpad.onnx.pad(x, pads, mode, opset=OPSET, threads=1)
            if got.shape != want.shape or got.tobytes() != want.tobytes():
                raise SystemExit(f"ndpad.onnx.pad differs from ONNX Runtime: {label}")

        if one:
            x = arrays[0]
            runs = (lambda: sess.run(None, {"x": x}),
                    lambda: ndpad.onnx.pad(x, pads, mode, opset=OPSET, threads=1))
            timed = [lambda f=f: quartile(f, args.calls) for f in runs]
        else:
            def each(f: Callable[[np.ndarray], object]) -> Callable[[], float]:
                # The best of three passes over the arrays, a pad.
                def passes() -> List[float]:
                    return call_times(lambda: [f(x) for x in arrays], 3, warm=0)
                return lambda: min(passes()) / len(arrays)
            timed = [each(lambda x: sess.run(None, {"x": x})),
                     each(lambda x: ndpad.onnx.pad(x, pads, mode, opset=OPSET, threads=1))]
        ort_s, nd_s, ratio = paired([(timed[0](), timed[1]()) for _ in range(args.rounds)])
        print(f"| {label} | {ort_s * 1e6:.2f} | {nd_s * 1e6:.2f} | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
