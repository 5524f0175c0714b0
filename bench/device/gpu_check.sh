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

# NVRTC: cudarc looks for libnvrtc.so, libnvrtc.so.12, ... but not libnvrtc.so.13, and
# pip's NVIDIA wheels are not on the library path. Find one (NDPAD_NVRTC overrides),
# link it as libnvrtc.so in a folder of our own, and put that folder and the library's
# own (for libnvrtc-builtins) on LD_LIBRARY_PATH.
nvrtc=${NDPAD_NVRTC:-}
if [ -z "$nvrtc" ]; then
  roots=(/usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/lib64 /usr/lib/x86_64-linux-gnu /opt)
  for py in python3 /opt/torch/.venv/bin/python3; do
    command -v "$py" >/dev/null || continue
    while read -r d; do roots+=("$d"); done < <("$py" -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
  done
  nvrtc=$(for r in "${roots[@]}"; do [ -d "$r" ] && find -L "$r" -maxdepth 5 -name 'libnvrtc.so*' ! -name '*builtins*' 2>/dev/null; done | sort -V | tail -n 1)
fi
[ -n "$nvrtc" ] && [ -e "$nvrtc" ] || { echo "gpu_check: no libnvrtc.so* found; set NDPAD_NVRTC=/path/to/libnvrtc.so.N" >&2; exit 2; }
echo "NVRTC: $nvrtc"
shim=$(mktemp -d)
ln -sf "$(readlink -f "$nvrtc")" "$shim/libnvrtc.so"
export LD_LIBRARY_PATH="$shim:$(dirname "$(readlink -f "$nvrtc")"):${LD_LIBRARY_PATH:-}"

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
