#!/usr/bin/env bash
# Fuzz smoke run that CI can afford: replays the regression inputs, then runs every
# target for a few seconds.
#
#   fuzz/smoke.sh            # SMOKE_SECONDS (default 5) per target
#   SMOKE_SECONDS=30 fuzz/smoke.sh
#
# Uses libFuzzer through cargo-fuzz on the stable toolchain (RUSTC_BOOTSTRAP=1 lets
# stable rustc accept the -Z flags cargo-fuzz passes). If cargo-fuzz is missing or
# cannot build, it falls back to the stable-Rust driver (examples/stable.rs: the same
# targets, random mutation without coverage feedback). If the fuzz crate itself does
# not build, it fails (SMOKE_ALLOW_SKIP=1 turns that into a skip).
#
# Exit status: 0 when nothing crashed, 1 when the crate does not build or a target or a regression
# input crashed (the input is kept under $SMOKE_OUT, printed at the end).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
secs="${SMOKE_SECONDS:-5}"
targets=(npy tensor_proto model_proto frontends core zarr numpy_arith)
out="${SMOKE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ndpad-fuzz-smoke.XXXXXX")}"
export CARGO_TARGET_DIR="${SMOKE_TARGET_DIR:-$here/target}"
start=$(date +%s)
cd "$here"

say() { printf 'smoke: %s\n' "$*"; }

# The stable driver: needed for the regression replays and as the fallback.
if ! cargo build --release --example stable >"$out/build-stable.log" 2>&1; then
    # The fuzz crate is outside the workspace: a build failure here is usually the
    # harness falling behind an API change, which must not pass silently.
    say "FAIL: the fuzz crate does not build (see $out/build-stable.log)"
    tail -n 20 "$out/build-stable.log"
    [ -n "${SMOKE_ALLOW_SKIP:-}" ] && { say "SKIP allowed by SMOKE_ALLOW_SKIP"; exit 0; }
    exit 1
fi
stable="$CARGO_TARGET_DIR/release/examples/stable"

failed=0
for t in "${targets[@]}"; do
    dir="$root/testdata/regressions/$t"
    shopt -s nullglob
    files=("$dir"/*)
    shopt -u nullglob
    [ ${#files[@]} -eq 0 ] && continue
    if ! "$stable" "$t" --replay "${files[@]}"; then
        say "FAIL: a regression input of $t crashes"
        failed=1
    fi
done

engine=stable
if command -v cargo-fuzz >/dev/null 2>&1 &&
    RUSTC_BOOTSTRAP=1 cargo fuzz build -O >"$out/build-fuzz.log" 2>&1; then
    engine=libfuzzer
else
    say "cargo-fuzz unavailable or its build failed (see $out/build-fuzz.log); using the stable driver"
fi

for t in "${targets[@]}"; do
    mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
    if [ "$engine" = libfuzzer ]; then
        # New inputs go to the scratch corpus, never into the checked-in one.
        RUSTC_BOOTSTRAP=1 cargo fuzz run -O "$t" "$out/corpus/$t" "corpus/$t" -- \
            -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
            -artifact_prefix="$out/artifacts/$t/" >"$out/$t.log" 2>&1
        rc=$?
        runs=$(grep -Eo 'Done [0-9]+ runs' "$out/$t.log" | grep -Eo '[0-9]+' || echo '?')
    else
        "$stable" "$t" --seconds "$secs" --artifacts "$out/artifacts/$t" >"$out/$t.log" 2>&1
        rc=$?
        runs=$(grep -Eo '[0-9]+ execs' "$out/$t.log" | grep -Eo '[0-9]+' || echo '?')
    fi
    if [ $rc -ne 0 ]; then
        say "FAIL: $t crashed ($engine); log $out/$t.log, inputs in $out/artifacts/$t"
        grep -m1 -A2 'panicked' "$out/$t.log" || tail -n 5 "$out/$t.log"
        failed=1
    else
        say "ok: $t, $runs runs in ${secs}s ($engine)"
    fi
done

say "total $(($(date +%s) - start))s, engine $engine, output in $out"
exit $failed
