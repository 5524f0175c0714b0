#!/usr/bin/env python3
"""Fresh outputs against a caller's buffer, in one run: for each workload, the
`ndpad-bench` binary times (interleaved rounds) a copy of the same bytes, `pad_into`
a reused buffer, `pad_with` (a fresh output each call, the previous one freed:
glibc's heap or the output pool may give its memory to the next), `pad_with` into new
memory (the pool emptied first) and `fresh_fill`, the floor of a new output (allocated
as `pad_with` allocates one, written once), hot cache, 1 and 2 threads. Prints a
markdown table: median times, pad_with / pad_into and new / floor.

With `--python`, the same workloads through the installed package instead, in one
process, interleaved rounds (each round: one call of each kind, their order rotated):
`out=` (a buffer written before), `loop` (`y = ndpad.pad(x, ..)` as a pipeline calls
it: the previous output freed when the new one is bound, all in the timing),
`numpy.pad` in the same loop, and `cold`: one call with no reusable memory (the
pool's idle buffers returned to the OS first, `_ndpad.release_pool`) against
`numpy.pad` (which, above glibc's 32 MiB mmap threshold, maps every output afresh).
Prints: median ms and `out= / loop` (1.0: the loop as fast as `out=`), `numpy /
cold` (above 1: the first call ahead of numpy.pad).

Usage: cargo build --release -p ndpad-bench && python3 bench/fresh.py [--reps 11]
       python3 bench/fresh.py --python [--reps 11] [--threads 1,2]   (pip install . first)
"""

import argparse
import gc
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "target" / "release" / "ndpad-bench"

# (label, dtype, shape, begin, end, mode)
WORKLOADS = [
    ("f32 [8,64,112,112] pad 1 constant", np.float32, (8, 64, 112, 112), [0, 0, 1, 1], [0, 0, 1, 1], "constant"),
    ("f32 [8,64,112,112] pad 3 reflect", np.float32, (8, 64, 112, 112), [0, 0, 3, 3], [0, 0, 3, 3], "reflect"),
    ("f32 1080x1920 pad 8 reflect", np.float32, (1080, 1920), [8, 8], [8, 8], "reflect"),
    ("u8 [2160,3840,3] pad 16 constant", np.uint8, (2160, 3840, 3), [16, 16, 0], [16, 16, 0], "constant"),
    ("u8 [2160,3840,3] pad 16 reflect", np.uint8, (2160, 3840, 3), [16, 16, 0], [16, 16, 0], "reflect"),
    ("f32 [1048576,7] -> [..,8]", np.float32, (1048576, 7), [0, 0], [0, 1], "constant"),
    ("f32 [16,1024,1024] axis 0 by 2", np.float32, (16, 1024, 1024), [2, 0, 0], [2, 0, 0], "edge"),
    ("f32 1-D 64 Mi pad 1000", np.float32, (64 << 20,), [1000], [1000], "constant"),
]


def python_rounds(reps: int, threads: str) -> None:
    import ndpad
    from ndpad import _ndpad

    rng = np.random.default_rng(0)
    rows = []
    for label, dtype, shape, begin, end, mode in WORKLOADS:
        x = (rng.random(shape) * 100).astype(dtype)
        widths = list(zip(begin, end))
        for t in map(int, threads.split(",")):
            buf = ndpad.pad(x, widths, mode=mode, threads=t).copy()
            kept = {"loop": None, "numpy": None}
            times: dict = {k: [] for k in ("out", "loop", "numpy", "cold", "numpy cold")}

            def out() -> float:
                t0 = time.perf_counter()
                ndpad.pad(x, widths, mode=mode, threads=t, out=buf)
                return time.perf_counter() - t0

            def loop() -> float:
                t0 = time.perf_counter()
                kept["loop"] = ndpad.pad(x, widths, mode=mode, threads=t)
                return time.perf_counter() - t0

            def numpy_loop() -> float:
                t0 = time.perf_counter()
                kept["numpy"] = np.pad(x, widths, mode=mode)
                return time.perf_counter() - t0

            def cold() -> float:
                kept["loop"] = None
                _ndpad.release_pool()
                t0 = time.perf_counter()
                y = ndpad.pad(x, widths, mode=mode, threads=t)
                took = time.perf_counter() - t0
                del y
                _ndpad.release_pool()
                return took

            def numpy_cold() -> float:
                kept["numpy"] = None
                t0 = time.perf_counter()
                y = np.pad(x, widths, mode=mode)
                took = time.perf_counter() - t0
                del y
                return took

            kinds = [("out", out), ("loop", loop), ("numpy", numpy_loop), ("cold", cold),
                     ("numpy cold", numpy_cold)]
            for f in (out, loop, loop, numpy_loop, numpy_loop):
                f()  # warm-up: the loop's steady state (two outputs in turn)
            gc.disable()
            for r in range(reps):
                for k in range(len(kinds)):
                    name, f = kinds[(r + k) % len(kinds)]
                    if name in ("loop", "numpy"):
                        # Measured in the loop's steady state (after `cold` emptied the
                        # pool: a first output, a second beside it, the first freed).
                        f()
                        f()
                    times[name].append(f())
            gc.enable()
            kept["loop"] = kept["numpy"] = None
            m = {k: float(np.median(v)) * 1e3 for k, v in times.items()}
            rows.append(f"| {label} | {t} | {m['out']:.2f} | {m['loop']:.2f} | {m['numpy']:.2f} "
                        f"| {m['cold']:.2f} | {m['numpy cold']:.2f} | {m['out'] / m['loop']:.2f} "
                        f"| {m['numpy cold'] / m['cold']:.2f} |")
    print("| workload | threads | out= ms | loop ms | numpy.pad loop ms | cold ms "
          "| numpy.pad cold ms | out= / loop | numpy / cold |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--python", action="store_true",
                    help="time the installed Python package (ndpad.pad) instead")
    args = ap.parse_args()
    if args.python:
        python_rounds(args.reps, args.threads)
        return
    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, dtype, shape, begin, end, mode in WORKLOADS:
            x = (rng.random(shape) * 100).astype(dtype)
            path = Path(tmp) / "x.npy"
            np.save(path, x)
            cmd = [str(BENCH), "run", "--input", str(path), "--begin", ",".join(map(str, begin)),
                   "--end", ",".join(map(str, end)), "--mode", mode, "--threads", args.threads,
                   "--hot", "--reps", str(args.reps)]
            out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            by = {(r["kind"], r["threads"]): r["median_s"] * 1e3 for r in out["results"]}
            for t in map(int, args.threads.split(",")):
                c, i, w, n, f = (by[(k, t)] for k in
                                 ("copy", "pad_into", "pad_with", "pad_with_new", "fresh_fill"))
                rows.append(f"| {label} | {t} | {c:.2f} | {i:.2f} | {w:.2f} | {n:.2f} | {f:.2f} "
                            f"| {w / i:.2f} | {n / f:.2f} |")
    print("| workload | threads | copy ms | pad_into ms | pad_with ms | new pad_with ms "
          "| new floor ms | with / into | new / floor |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
