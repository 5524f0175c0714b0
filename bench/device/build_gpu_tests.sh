#!/usr/bin/env bash
# Builds, HERE (no GPU, no CUDA needed), the test binary that check_all.sh runs on the
# GPU machine, and puts it at target/gpu-check/ndpad-cuda-gpu-tests, with the Python
# wheel and the ndpad-bench binary it runs (an ignored path: carry `target/gpu-check` to
# the device machine). About 5 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p target/gpu-check
json=target/gpu-check/build.json
cargo test -p ndpad-cuda --release --no-run --message-format=json >"$json"
# The executable of the integration test tests/gpu.rs.
exe=$(python3 - "$json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") \
            and m["target"]["name"] == "gpu" and "test" in m["target"]["kind"]:
        print(m["executable"])
PY
)
test -n "$exe" || { echo "no gpu test executable in $json" >&2; exit 1; }
cp "$exe" target/gpu-check/ndpad-cuda-gpu-tests
strip --strip-debug target/gpu-check/ndpad-cuda-gpu-tests
# The benchmark binary, for check_all.sh's CPU stage (bench/peers.py).
cargo build --release -q -p ndpad-bench
cp target/release/ndpad-bench target/gpu-check/ndpad-bench
strip --strip-debug target/gpu-check/ndpad-bench
# The Python package, for check_all.sh (abi3: any CPython 3.9+ there).
rm -f target/gpu-check/*.whl
${MATURIN:-.venv/bin/maturin} build --release --strip -q -o target/gpu-check
git rev-parse HEAD >target/gpu-check/COMMIT
ls -l target/gpu-check/ndpad-cuda-gpu-tests target/gpu-check/ndpad-bench target/gpu-check/*.whl
echo "built from $(cat target/gpu-check/COMMIT) (uncommitted changes: $(git status --porcelain | wc -l))"
