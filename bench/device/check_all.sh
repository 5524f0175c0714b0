#!/usr/bin/env bash
# Runs on the GPU machine, in one call (device time is short): the Rust GPU tests and
# the Python tests on CUDA arrays side by side, then, alone on the machine, the
# benchmark (bench/gpu.py) and the Rust timings, then the CPU kernel on one thread and
# on every core (bench/peers.py; #31's goal: fresh outputs with 16 threads at least 4x
# one thread). Builds nothing: carry target/gpu-check (bench/device/build_gpu_tests.sh).
#
#   bench/device/check_all.sh
#
# Logs and the tables go to $OUT (gpu_check.log, python_gpu_tests.log, gpu_bench.log,
# gpu-results.md, gpu_timings.log, cpu_bench.log, results.md/json, cpu-scaling.md).
# Exit status 0 only when every test ran on the GPU (none skipped) and passed, and the
# benchmarks finished.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
mkdir -p "$out"
bin=target/gpu-check/ndpad-cuda-gpu-tests
wheel=$(ls target/gpu-check/*.whl 2>/dev/null | head -n 1)
[ -x "$bin" ] && [ -f "$wheel" ] || { echo "check_all: carry target/gpu-check (build_gpu_tests.sh)" >&2; exit 2; }
echo "built from $(cat target/gpu-check/COMMIT 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
source bench/device/nvrtc.sh || exit 2
pkg=$(mktemp -d)
python3 -m zipfile -e "$wheel" "$pkg"
export PYTHONPATH="$pkg" PYTHONUNBUFFERED=1 NDPAD_CUDA_TESTS=1 RUST_BACKTRACE=1
python3 -c 'import ndpad, torch; print("ndpad", ndpad.__version__, "| torch", torch.__version__, torch.cuda.get_device_name(0))'

t0=$(date +%s)
# 1. The checks, Rust and Python side by side (each well inside its limit).
(timeout 200 "$bin" --test-threads=1 --nocapture --skip timings_of_a_few_workloads \
  >"$out/gpu_check.log" 2>&1; echo "exit status $?" >>"$out/gpu_check.log") &
(timeout 200 python3 -m pytest -q -p no:cacheprovider -rs python/tests/test_gpu.py \
  python/tests/test_device.py >"$out/python_gpu_tests.log" 2>&1
 echo "exit status $?" >>"$out/python_gpu_tests.log") &
wait
echo "checks took $(( $(date +%s) - t0 )) s"
# 2. The timings, alone.
timeout 150 python3 bench/gpu.py --profile 2000 --out "$out/gpu-results.md" >"$out/gpu_bench.log" 2>&1
echo "exit status $?" >>"$out/gpu_bench.log"
timeout 45 "$bin" --test-threads=1 --nocapture --exact timings_of_a_few_workloads \
  >"$out/gpu_timings.log" 2>&1
echo "exit status $?" >>"$out/gpu_timings.log"
# 3. The CPU kernel, one thread and every core, beside the peers installed there.
timeout 240 python3 bench/peers.py --binary target/gpu-check/ndpad-bench --no-builtin \
  --threads "1,$(nproc)" --reps 7 --out-dir "$out" >"$out/cpu_bench.log" 2>&1
echo "exit status $?" >>"$out/cpu_bench.log"
python3 bench/device/scaling.py "$out/results.json" >"$out/cpu-scaling.md" 2>&1
echo "all took $(( $(date +%s) - t0 )) s"

rc=0
for log in gpu_check python_gpu_tests gpu_bench gpu_timings cpu_bench; do
  status=$(tail -n 1 "$out/$log.log")
  echo "== $log: $status"
  grep -E 'test result|passed|failed|FAILED|panicked|Error' "$out/$log.log" | tail -n 8
  [ "$status" = "exit status 0" ] || rc=1
done
# (test_device.py's no-driver test skips wherever a driver is: that one is expected.)
if grep -q 'skipped: ' "$out/gpu_check.log" || grep '^SKIPPED' "$out/python_gpu_tests.log" \
    | grep -qv 'a CUDA driver is present'; then
  echo "check_all: tests skipped on a GPU machine" >&2
  rc=1
fi
cat "$out/gpu-results.md" "$out/cpu-scaling.md" 2>/dev/null
[ "$rc" -eq 0 ] && echo "check_all: PASSED" || echo "check_all: FAILED" >&2
exit "$rc"
