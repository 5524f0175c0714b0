#!/usr/bin/env bash
# Runs on the GPU machine: ndpad's Python package (the wheel built here and carried)
# on CUDA arrays: python/tests/test_gpu.py and test_device.py, then bench/gpu.py.
# Builds nothing.
#
#   bench/device/python_gpu_check.sh [WHEEL]   (default: the wheel in target/gpu-check/)
#
# Logs and the benchmark's table go to $OUT (python_gpu_tests.log, gpu-results.md)
# when OUT is set. Exit status 0 only when the tests passed with none skipped.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
mkdir -p "$out"
wheel=${1:-$(ls target/gpu-check/*.whl 2>/dev/null | head -n 1)}
[ -f "$wheel" ] || { echo "python_gpu_check: no wheel (build it: bench/device/build_gpu_tests.sh)" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
source bench/device/nvrtc.sh || exit 2
# The wheel unpacked beside the image's Python (nothing is installed).
pkg=$(mktemp -d)
python3 -m zipfile -e "$wheel" "$pkg"
export PYTHONPATH="$pkg" PYTHONUNBUFFERED=1
python3 -c 'import ndpad, torch; print("ndpad", ndpad.__version__, "from", ndpad.__file__, "| torch", torch.__version__, torch.cuda.get_device_name(0))'
timeout 300 python3 -m pytest -q -p no:cacheprovider -rs python/tests/test_gpu.py python/tests/test_device.py 2>&1 | tee "$out/python_gpu_tests.log"
rc=${PIPESTATUS[0]}
# (test_device.py's no-driver test skips wherever a driver is: that one is expected.)
if grep '^SKIPPED' "$out/python_gpu_tests.log" | grep -qv 'a CUDA driver is present'; then
  echo "python_gpu_check: FAILED: tests skipped on a GPU machine" >&2
  rc=1
fi
timeout 240 python3 bench/gpu.py --out "$out/gpu-results.md" || rc=1
[ "$rc" -eq 0 ] && echo "python_gpu_check: PASSED" || echo "python_gpu_check: FAILED" >&2
exit "$rc"
