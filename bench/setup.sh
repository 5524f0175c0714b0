#!/usr/bin/env bash
# Creates the benchmark's Python environment (pinned numpy / onnxruntime / openvino /
# onnx) and builds the ndpad-bench binary.
#
#   bench/setup.sh                 # venv at ./.venv (created if missing)
#   VENV=/tmp/v bench/setup.sh     # elsewhere
#   PYTHON=python3.11 bench/setup.sh
#
# Then: ${VENV:-.venv}/bin/python bench/peers.py [--quick]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "creating venv $VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --disable-pip-version-check -q \
    -r "$ROOT/bench/requirements.txt"
"$VENV/bin/python" -c 'import numpy, onnxruntime, openvino, onnx; print("numpy", numpy.__version__, "| onnxruntime", onnxruntime.__version__, "| openvino", openvino.__version__, "| onnx", onnx.__version__)'

(cd "$ROOT" && cargo build --release -p ndpad-bench)
echo "ready: $VENV/bin/python bench/peers.py [--quick]"
