#!/usr/bin/env python3
"""ndpad.pad beside OpenCV's ``copyMakeBorder`` and numpy.pad on small and
mid-sized images, where a call's fixed cost is most of its time: u8 and f32, one
channel and three, 16x16 to 1024x1024, padded by 1 and by 4 in constant, reflect and
edge mode (OpenCV's BORDER_CONSTANT, BORDER_REFLECT_101, BORDER_REPLICATE).

Each contender is called in a tight loop on the same input (hot cache, as a
per-image loop of a data loader calls it; ndpad's remembered path for repeated pads
included), the process pinned to one CPU and OpenCV to one thread; each cell is the
first quartile of the calls' times (the VM's scheduler adds a tail), in
microseconds. Every output is checked equal to numpy.pad's, bit for bit.

A second table pads images of many shapes (120 sizes from 8x8 to 71x71, u8 and f32,
one channel) each ``k`` times in turn, more shapes than ndpad remembers pads of: the
cost of a new shape (a plan, its setup, its tables), a pad in microseconds, the best
of five passes.

    .venv/bin/python bench/small.py [--quick] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Iterator, Tuple

import numpy as np

import ndpad

from _machine import cpu_name
from _timing import quartile

MODES = {"constant": "BORDER_CONSTANT", "reflect": "BORDER_REFLECT_101",
         "edge": "BORDER_REPLICATE"}


def workloads(quick: bool) -> Iterator[Tuple[np.dtype, Tuple[int, ...], int, str]]:
    sizes = (16, 64, 256) if quick else (16, 32, 64, 128, 256, 512, 1024)
    for dtype in (np.dtype(np.uint8), np.dtype(np.float32)):
        for channels in (None, 3):
            for side in sizes:
                for pad in (1, 4):
                    for mode in MODES:
                        shape = (side, side) if channels is None else (side, side, channels)
                        yield dtype, shape, pad, mode


def many_shapes(quick: bool) -> list:
    """The second table's rows: (label, ndpad, OpenCV, numpy) seconds a pad."""
    import cv2

    rng = np.random.default_rng(1)
    sides = rng.integers(8, 72, size=(40 if quick else 120, 2))
    arrays = [np.arange(int(h) * int(w)).astype(d).reshape(int(h), int(w))
              for h, w in sides for d in (np.uint8, np.float32)]
    rows = []
    for mode in MODES:
        border = getattr(cv2, MODES[mode])
        contenders = (
            lambda a: ndpad.pad(a, 1, mode=mode),
            lambda a: cv2.copyMakeBorder(a, 1, 1, 1, 1, border),
            lambda a: np.pad(a, 1, mode=mode),
        )
        for a in arrays:
            want = np.pad(a, 1, mode=mode)
            for pad in contenders[:2]:
                got = pad(a)
                if got.shape != want.shape or got.tobytes() != want.tobytes():
                    raise SystemExit(f"differs from numpy.pad on {a.shape} {mode}")
        for k in (1, 4, 16):
            times = []
            for pad in contenders:
                best = float("inf")
                for _ in range(5):
                    t = time.perf_counter()
                    for a in arrays:
                        for _ in range(k):
                            pad(a)
                    best = min(best, (time.perf_counter() - t) / (k * len(arrays)))
                times.append(best)
            label = f"{len(arrays)} shapes {mode} pad 1, {k} a shape"
            rows.append((label, *times))
            print(f"{label:40s} ndpad {times[0] * 1e6:8.2f} us | OpenCV"
                  f" {times[1] * 1e6:8.2f} us | numpy {times[2] * 1e6:8.2f} us", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="three sizes, fewer calls")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()
    import cv2

    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    cv2.setNumThreads(1)
    rng = np.random.default_rng(0)
    rows = []
    for dtype, shape, pad, mode in workloads(args.quick):
        a = (rng.random(shape) * 200).astype(dtype)
        widths = ((pad, pad), (pad, pad)) + (((0, 0),) if a.ndim == 3 else ())
        border = getattr(cv2, MODES[mode])
        want = np.pad(a, widths, mode=mode)
        got_cv = cv2.copyMakeBorder(a, pad, pad, pad, pad, border)
        got = ndpad.pad(a, widths, mode=mode)
        for name, out in (("ndpad.pad", got), ("OpenCV", got_cv)):
            if out.shape != want.shape or out.tobytes() != want.tobytes():
                raise SystemExit(f"{name} differs from numpy.pad on {shape} {mode} {pad}")
        calls = max(50, min(3000, int(2e8 / a.nbytes)))
        t_nd = quartile(lambda: ndpad.pad(a, widths, mode=mode), calls)
        t_cv = quartile(lambda: cv2.copyMakeBorder(a, pad, pad, pad, pad, border), calls)
        t_np = quartile(lambda: np.pad(a, widths, mode=mode), max(20, calls // 4))
        label = f"{dtype.name} {'x'.join(map(str, shape))} pad {pad} {mode}"
        rows.append((label, t_nd, t_cv, t_np))
        print(f"{label:32s} ndpad {t_nd * 1e6:8.2f} us | OpenCV {t_cv * 1e6:8.2f} us"
              f" | numpy {t_np * 1e6:8.2f} us | OpenCV / ndpad {t_cv / t_nd:.2f}", flush=True)
    ahead = sum(t_cv < t_nd for _, t_nd, t_cv, _ in rows)
    cpu = cpu_name()
    lines = [
        f"Machine: {cpu}; numpy {np.__version__};"
        f" OpenCV {cv2.__version__}; ndpad {ndpad.__version__}; one CPU, hot, first"
        " quartile of each contender's calls, in us.",
        "",
        f"OpenCV ahead of ndpad.pad on {ahead} of {len(rows)} workloads.",
        "",
        "| workload | ndpad.pad | OpenCV copyMakeBorder | numpy.pad | OpenCV / ndpad | numpy / ndpad |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, t_nd, t_cv, t_np in rows:
        lines.append(f"| {label} | {t_nd * 1e6:.2f} | {t_cv * 1e6:.2f} | {t_np * 1e6:.2f}"
                     f" | {t_cv / t_nd:.2f} | {t_np / t_nd:.2f} |")
    lines += [
        "",
        "Many shapes, each padded k times in turn (best of five passes, us a pad):",
        "",
        "| workload | ndpad.pad | OpenCV copyMakeBorder | numpy.pad | OpenCV / ndpad | numpy / ndpad |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, t_nd, t_cv, t_np in many_shapes(args.quick):
        lines.append(f"| {label} | {t_nd * 1e6:.2f} | {t_cv * 1e6:.2f} | {t_np * 1e6:.2f}"
                     f" | {t_cv / t_nd:.2f} | {t_np / t_nd:.2f} |")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
