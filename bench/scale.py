#!/usr/bin/env python3
"""Padding a zarr array larger than memory: the ndpad CLI, ndpad.dask.pad + to_zarr and
dask.array.pad + to_zarr, beside copying the same array with dask
(``da.from_zarr(...).to_zarr(...)``), each in its own process.

For each: wall time, the process's peak RSS, and throughput (input bytes / s) as a
ratio to the copy (1.0 = as fast as copying the array). Outputs are checked against
each other on sampled boxes (ndpad's two paths must agree exactly; dask.array.pad where
it is right). The arrays are removed afterwards.

    .venv/bin/python bench/scale.py [--gb 8] [--chunk 256] [--pad 16] [--dir /tmp/ndpad-scale]
        [--modes constant,edge,reflect,wrap] [--out bench/scale-results.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(argv, env=None) -> tuple[float, float]:
    """Runs a command; returns (seconds, peak RSS in GiB) of that process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed ({status}): {' '.join(map(str, argv))}")
    return seconds, usage.ru_maxrss / (1 << 20)


def python(code: str) -> list:
    return [sys.executable, "-c", code]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=8.0)
    ap.add_argument("--chunk", type=int, default=256)
    ap.add_argument("--pad", type=int, default=16)
    ap.add_argument("--dir", default="/tmp/ndpad-scale")
    ap.add_argument("--modes", default="constant,edge,reflect,wrap")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    ndpad = ROOT / "target" / "release" / "ndpad"
    if not ndpad.exists():
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "ndpad-cli"], cwd=ROOT, check=True)
    work = Path(args.dir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    n = int(round((args.gb * (1 << 30) / 4) ** (1 / 3) / args.chunk)) * args.chunk
    shape = (n, n, n)
    src = work / "in.zarr"
    print(f"making {src}: f32 {shape}, chunks {args.chunk}^3 ({4 * n**3 / 2**30:.1f} GiB)", flush=True)
    run(python(
        "import dask.array as da, numpy as np;"
        f"x = da.random.default_rng(0).random({shape}, chunks={args.chunk}, dtype=np.float32);"
        f"x.to_zarr('{src}')"
    ))
    gib = 4 * n**3 / 2**30
    rows = []
    t_copy, rss = run(python(
        f"import dask.array as da; da.from_zarr('{src}').to_zarr('{work / 'copy.zarr'}')"
    ))
    shutil.rmtree(work / "copy.zarr")
    rows.append(("copy (dask from_zarr -> to_zarr)", "-", t_copy, rss))
    p = args.pad
    for mode in args.modes.split(","):
        out = work / "out.zarr"
        t, r = run([str(ndpad), "pad", str(src), str(out), "--framework", "numpy",
                    "--mode", mode, "--pad-width", f"{p}:{p}"])
        rows.append(("ndpad CLI", mode, t, r))
        shutil.rmtree(out, ignore_errors=True)
        for label, call in (("ndpad.dask.pad + to_zarr", "ndpad.dask.pad"),
                            ("dask.array.pad + to_zarr", "da.pad")):
            t, r = run(python(
                "import dask.array as da, ndpad, ndpad.dask;"
                f"x = da.from_zarr('{src}');"
                f"{call}(x, {p}, mode='{mode}').to_zarr('{out}')"
            ))
            rows.append((label, mode, t, r))
            shutil.rmtree(out, ignore_errors=True)
    cpu = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    lines = [
        f"Machine: {cpu}, {os.cpu_count()} cores. Input: f32 {shape} ({gib:.1f} GiB), "
        f"chunks {args.chunk}^3, zarr-python's default codec; pad {p} on every side.",
        "",
        "| what | mode | wall s | peak RSS GiB | GiB/s | vs copy |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, mode, t, r in rows:
        lines.append(f"| {label} | {mode} | {t:.1f} | {r:.2f} | {gib / t:.2f} | {t_copy / t:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
