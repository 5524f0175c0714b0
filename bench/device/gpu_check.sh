#!/usr/bin/env bash
# Runs on the GPU machine: the prebuilt ndpad-cuda GPU tests (bench/device/README.md),
# comparing the GPU with the CPU kernel bit for bit. Builds nothing.
#
#   bench/device/gpu_check.sh [TEST_BINARY]   (default target/gpu-check/ndpad-cuda-gpu-tests)
#
# Exit status 0 only when every test ran on the GPU and passed: a test that skipped
# ("skipped: ...") is a failure here. The log goes to $OUT/gpu_check.log when OUT is set.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-target/gpu-check/ndpad-cuda-gpu-tests}
log=${OUT:-/tmp}/gpu_check.log
[ -x "$bin" ] || { echo "gpu_check: no test binary at $bin (build it with bench/device/build_gpu_tests.sh and carry target/gpu-check)" >&2; exit 2; }
[ -f target/gpu-check/COMMIT ] && echo "test binary built from $(cat target/gpu-check/COMMIT)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

source bench/device/nvrtc.sh || exit 2

# One test at a time (the > 2^32-element test holds about 9 GB of device memory and
# about 15 GB of host memory); the heavy tests on.
export NDPAD_CUDA_TESTS=1 RUST_BACKTRACE=1
start=$(date +%s)
timeout 480 "$bin" --test-threads=1 --nocapture 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "gpu_check: tests took $(( $(date +%s) - start )) s, exit status $rc"
if grep -q 'skipped: ' "$log"; then
  echo "gpu_check: FAILED: some tests skipped on a GPU machine (see 'skipped:' above)" >&2
  exit 1
fi
[ "$rc" -eq 0 ] && echo "gpu_check: PASSED" || echo "gpu_check: FAILED" >&2
exit "$rc"
