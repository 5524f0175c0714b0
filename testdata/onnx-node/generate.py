#!/usr/bin/env python3
"""Regenerate the official ONNX backend node tests for Pad.

Uses the installed `onnx` package's own generators
(`onnx.backend.test.case.node.collect_testcases`, which runs every `export_*`
function of the `Pad` case class in onnx/backend/test/case/node/pad.py) and
writes them in the standard backend-test layout, exactly as
`onnx.backend.test.cmd_tools generate-data` does:

    <test_name>/model.onnx
    <test_name>/test_data_set_0/input_<j>.pb
    <test_name>/test_data_set_0/output_<j>.pb

Reproducible: onnx's case metaclass calls np.random.seed(0) before every export
function; we also seed numpy here in case that ever changes.

Run from the repository root:
    .venv/bin/python testdata/onnx-node/generate.py
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    import warnings

    warnings.simplefilter("ignore")  # other ops' generators warn about overflow when imported
    np.random.seed(0)
    from onnx.backend.test.case.node import collect_testcases

    cases = [c for c in collect_testcases("Pad") if c.kind == "node"]
    cases.sort(key=lambda c: c.name)
    if not cases:
        print("no Pad test cases found in the installed onnx", file=sys.stderr)
        return 1
    # remove previously generated test directories (keep this script)
    for entry in os.listdir(HERE):
        p = os.path.join(HERE, entry)
        if entry.startswith("test_") and os.path.isdir(p):
            shutil.rmtree(p)
    for case in cases:
        out = os.path.join(HERE, case.name)
        os.makedirs(out)
        with open(os.path.join(out, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(out, f"test_data_set_{i}")
            os.makedirs(ds)
            for kind, values, infos in (
                ("input", inputs, case.model.graph.input),
                ("output", outputs, case.model.graph.output),
            ):
                for j, v in enumerate(values):
                    assert infos[j].type.HasField("tensor_type")
                    if isinstance(v, TensorProto):
                        t = v
                    else:
                        t = numpy_helper.from_array(np.asarray(v), infos[j].name)
                    with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                        f.write(t.SerializeToString())
        opset = [(o.domain, o.version) for o in case.model.opset_import]
        print(f"{case.name}: opset {opset}, {len(case.data_sets)} data set(s)")
    print(f"onnx {onnx.__version__}: wrote {len(cases)} Pad tests to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
