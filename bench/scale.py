#!/usr/bin/env python3
"""Padding a zarr array larger than memory: the ndpad CLI, ndpad.dask.pad + to_zarr and
dask.array.pad + to_zarr, beside copying the same array with dask
(``da.from_zarr(...).to_zarr(...)``), each in its own process.

For each: wall time, the process's peak RSS, and throughput (input bytes / s) as a
ratio to the copy (1.0 = as fast as copying the array; the copy runs first and last,
and the ratio is to their mean). Every mode of ``numpy.pad`` is run with ndpad.dask.pad
and dask.array.pad, the CLI's five with the CLI. Each output is checked against the
mode's first output on sampled boxes (the check column: ndpad's paths must agree
exactly; dask.array.pad's differences are reported, not fatal). The arrays are removed
afterwards.

    .venv/bin/python bench/scale.py [--gb 8] [--chunk 256] [--pad 16] [--dir /tmp/ndpad-scale]
        [--modes constant,edge,...] [--paths cli,ndpad.dask,dask] [--out bench/scale-results.md]
        [--cli-only] [--ndpad PATH] [--threads N] [--cli-args "--window-bytes 128M"] [--keep-input]

``--paths`` picks which of the three are run (default all; the CLI is built only
when it runs). ``--cli-only`` runs the CLI rows alone and no copy (``--paths cli``,
"vs copy" is "-");
``--ndpad`` times another build of the CLI (default: this checkout's
target/release/ndpad), ``--threads`` and ``--cli-args`` are passed to it;
``--keep-input`` keeps the input array in ``--dir`` for the next run (and reuses one
left there by an earlier run), so that builds can be timed against each other
alternately without making the array again.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _machine import cpu_name

ROOT = Path(__file__).resolve().parent.parent
MODES = ["constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum",
         "mean", "median", "minimum", "empty"]
CLI_MODES = {"constant", "edge", "reflect", "symmetric", "wrap"}
CHECK = """
import sys, numpy as np, zarr
a = zarr.open_array(sys.argv[1], mode='r')
b = zarr.open_array(sys.argv[2], mode='r')
exact = sys.argv[3] == '1'
assert a.shape == b.shape, (a.shape, b.shape)
rng = np.random.default_rng(1)
n, s = a.shape, 48
boxes = [tuple(slice(0, s) for _ in n), tuple(slice(m - s, m) for m in n)]
boxes += [tuple(slice(int(o), int(o) + s) for o in rng.integers(0, [m - s for m in n]))
          for _ in range(6)]
bad = 0
for box in boxes:
    x, y = a[box], b[box]
    same = np.array_equal(x, y, equal_nan=True) if exact else np.allclose(x, y, equal_nan=True)
    bad += not same
print('ok' if bad == 0 else f'{bad} of {len(boxes)} boxes differ')
sys.exit(1 if bad and exact else 0)
"""


def run(argv, env=None, fatal=True) -> tuple[float | None, float | None]:
    """Runs a command; returns (seconds, peak RSS in GiB) of that process (None, None
    when it fails and ``fatal`` is false)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        if fatal:
            raise SystemExit(f"failed ({status}): {' '.join(map(str, argv))}")
        return None, None
    return seconds, usage.ru_maxrss / (1 << 20)


def python(code: str) -> list:
    return [sys.executable, "-c", code]


def check(first: Path, other: Path, exact: bool) -> str:
    """``other`` against ``first`` on sampled boxes."""
    proc = subprocess.run([sys.executable, "-c", CHECK, str(first), str(other),
                           "1" if exact else "0"], capture_output=True, text=True)
    if proc.returncode != 0 and exact:
        raise SystemExit(f"{other} differs from {first}: {proc.stdout}{proc.stderr}")
    return proc.stdout.strip() or proc.stderr.strip().splitlines()[-1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=8.0)
    ap.add_argument("--chunk", type=int, default=256)
    ap.add_argument("--pad", type=int, default=16)
    ap.add_argument("--dir", default="/tmp/ndpad-scale")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--paths", default="cli,ndpad.dask,dask")
    ap.add_argument("--out", default=None)
    ap.add_argument("--cli-only", action="store_true",
                    help="the ndpad CLI rows only: no copy, no dask rows")
    ap.add_argument("--ndpad", default=None, help="the ndpad binary to time")
    ap.add_argument("--threads", type=int, default=None, help="--threads for the CLI")
    ap.add_argument("--cli-args", default="", help="more flags for the CLI")
    ap.add_argument("--keep-input", action="store_true",
                    help="reuse the input array left in --dir, and keep it")
    args = ap.parse_args()
    paths = {"cli"} if args.cli_only else set(args.paths.split(","))
    if not paths <= {"cli", "ndpad.dask", "dask"}:
        ap.error(f"--paths: cli, ndpad.dask or dask, not {args.paths}")
    ndpad = Path(args.ndpad) if args.ndpad else ROOT / "target" / "release" / "ndpad"
    cli = "cli" in paths and bool(CLI_MODES & set(args.modes.split(",")))
    if cli and not ndpad.exists():
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "ndpad-cli"], cwd=ROOT, check=True)
    cli_extra = shlex.split(args.cli_args)
    if args.threads is not None:
        cli_extra += ["--threads", str(args.threads)]
    work = Path(args.dir)
    n = int(round((args.gb * (1 << 30) / 4) ** (1 / 3) / args.chunk)) * args.chunk
    shape = (n, n, n)
    src = work / "in.zarr"
    made = src / "zarr.json"
    reuse = False
    if args.keep_input and made.exists():
        meta = json.loads(made.read_text())
        reuse = (meta.get("shape") == list(shape) and meta.get("chunk_grid", {})
                 .get("configuration", {}).get("chunk_shape") == [args.chunk] * 3)
    if reuse:
        for old in work.iterdir():
            if old != src:
                shutil.rmtree(old, ignore_errors=True)
        print(f"reusing {src}: f32 {shape}, chunks {args.chunk}^3", flush=True)
    else:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        print(f"making {src}: f32 {shape}, chunks {args.chunk}^3 ({4 * n**3 / 2**30:.1f} GiB)",
              flush=True)
        run(python(
            "import dask.array as da, numpy as np;"
            f"x = da.random.default_rng(0).random({shape}, chunks={args.chunk}, dtype=np.float32);"
            f"x.to_zarr('{src}')"
        ))
    gib = 4 * n**3 / 2**30
    rows = []

    def copy() -> float:
        t, rss = run(python(
            f"import dask.array as da; da.from_zarr('{src}').to_zarr('{work / 'copy.zarr'}')"
        ))
        shutil.rmtree(work / "copy.zarr")
        rows.append(("copy (dask from_zarr -> to_zarr)", "-", t, rss, ""))
        print(rows[-1], flush=True)
        return t

    copies = [] if args.cli_only else [copy()]
    p = args.pad
    for mode in args.modes.split(","):
        first = None
        for path, label, call in (("cli", "ndpad CLI", None),
                                  ("ndpad.dask", "ndpad.dask.pad + to_zarr", "ndpad.dask.pad"),
                                  ("dask", "dask.array.pad + to_zarr", "da.pad")):
            if path not in paths:
                continue
            out = work / f"out{len(rows)}.zarr"
            if call is None:
                if mode not in CLI_MODES:
                    continue
                t, r = run([str(ndpad), "pad", str(src), str(out), "--framework", "numpy",
                            "--mode", mode, "--pad-width", f"{p}:{p}", *cli_extra])
            else:
                t, r = run(python(
                    "import dask.array as da, ndpad, ndpad.dask;"
                    f"x = da.from_zarr('{src}');"
                    f"{call}(x, {p}, mode='{mode}').to_zarr('{out}')"
                ), fatal=call == "ndpad.dask.pad")
            if t is None:
                rows.append((label, mode, None, None, "fails (not supported)"))
                shutil.rmtree(out, ignore_errors=True)
                continue
            if first is None:
                note = ""
            elif mode == "empty" and call == "da.pad":
                note = "- (values undefined)"
            else:
                note = check(first, out, call != "da.pad")
            rows.append((label, mode, t, r, note))
            print(rows[-1], flush=True)
            if first is None:
                first = out
            else:
                shutil.rmtree(out, ignore_errors=True)
        if first is not None:
            shutil.rmtree(first, ignore_errors=True)
    if not args.cli_only:
        copies.append(copy())
    t_copy = sum(copies) / len(copies) if copies else None
    cpu = cpu_name()
    lines = [
        f"Machine: {cpu}, {os.cpu_count()} cores. Input: f32 {shape} ({gib:.1f} GiB), "
        f"chunks {args.chunk}^3, zarr-python's default codec; pad {p} on every side.",
        "",
        "CLI: `" + " ".join([str(ndpad), "pad", "...", *cli_extra]) + "`",
        "",
        "| what | mode | wall s | peak RSS GiB | GiB/s | vs copy | check |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, mode, t, r, note in rows:
        if t is None:
            lines.append(f"| {label} | {mode} | - | - | - | - | {note} |")
        else:
            vs = "-" if t_copy is None else f"{t_copy / t:.2f}"
            lines.append(f"| {label} | {mode} | {t:.1f} | {r:.2f} | {gib / t:.2f} | "
                         f"{vs} | {note} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    if args.keep_input:
        for old in work.iterdir():
            if old != src:
                shutil.rmtree(old, ignore_errors=True)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
