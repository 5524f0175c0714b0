#!/usr/bin/env python3
"""Fresh outputs against a caller's buffer, in one run: for each workload, the
`ndpad-bench` binary times (interleaved rounds) a copy of the same bytes, `pad_into`
a reused buffer, `pad_with` (a fresh output each call) and `fresh_fill`, the floor of
a fresh output (allocated as `pad_with` allocates it, written once), hot cache, 1 and
2 threads. Prints a markdown table: median times and pad_with / pad_into.

Usage: cargo build --release -p ndpad-bench && python3 bench/fresh.py [--reps 11]
"""

import argparse
import json
import subprocess
import tempfile
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
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
                c, i, w, f = (by[(k, t)] for k in ("copy", "pad_into", "pad_with", "fresh_fill"))
                rows.append(f"| {label} | {t} | {c:.2f} | {i:.2f} | {w:.2f} | {f:.2f} | {w / i:.2f} |")
    print("| workload | threads | copy ms | pad_into ms | pad_with ms | fresh floor ms | with / into |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
