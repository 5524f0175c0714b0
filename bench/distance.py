#!/usr/bin/env python3
"""ndpad.pad's time against the distance from its input to its output within a 4 KiB
page: the same pad of the same bytes, the input placed so that the output (``out=``)
lies ``d`` bytes past it modulo 4096, one thread, median of ``--calls`` calls. Beside
it the C library's ``memmove`` of the input into the output's first rows at the same
distance, 64 KiB a call (through ``ctypes``): glibc 2.36 moves copies of 4 KiB up to
the L2 cache's size by ``rep movsb`` on AMD, ten times slower on Zen 5 where the
destination lies 1-31 bytes past the source (``docs/performance.md``, "Copies a few
bytes past their source").

The workload: f32 [16,200,1024] (rows of 4 KiB, so that every row of a pass lies at
the same distance) padded by 400 rows on each side of axis 1, in each mode.

    .venv/bin/python bench/distance.py [--calls 9] [--modes constant edge reflect wrap mean]
"""

from __future__ import annotations

import argparse
import ctypes
import statistics

import numpy as np

import ndpad
from _machine import cpu_name
from _timing import call_times

DISTANCES = (0, 4, 16, 32, 48, 64, 2048, 4032, 4064, 4080, 4092)
SHAPE = (16, 200, 1024)
WIDTHS = ((0, 0), (400, 400), (0, 0))


def median_ms(fn, calls: int) -> float:
    return statistics.median(call_times(fn, calls, warm=1)) * 1e3


def memmove_pieces(out: np.ndarray, a: np.ndarray, piece: int = 64 << 10) -> None:
    """``a``'s bytes into ``out``'s first, ``piece`` bytes a ``memmove``."""
    d, s = out.ctypes.data, a.ctypes.data
    for at in range(0, a.nbytes, piece):
        ctypes.memmove(d + at, s + at, min(piece, a.nbytes - at))


def placed(base: np.ndarray, out: np.ndarray, distance: int) -> np.ndarray:
    """A C-contiguous f32 array of ``SHAPE`` inside ``base`` whose first byte lies
    ``distance`` bytes before ``out``'s, modulo 4096."""
    shift = (out.ctypes.data - base.ctypes.data - distance) % 4096 // 4
    a = base[shift:shift + int(np.prod(SHAPE))].reshape(SHAPE)
    assert (out.ctypes.data - a.ctypes.data) % 4096 == distance
    return a


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=9)
    parser.add_argument("--modes", nargs="+",
                        default=["constant", "edge", "reflect", "wrap", "mean"])
    args = parser.parse_args()
    out_shape = tuple(n + b + a for n, (b, a) in zip(SHAPE, WIDTHS))
    out = np.empty(out_shape, np.float32)
    rng = np.random.default_rng(0)
    base = rng.random(int(np.prod(SHAPE)) + 1024, dtype=np.float32)
    kwargs = {"constant": {"constant_values": 1.5}}
    print(f"{cpu_name()}; ndpad {ndpad.__version__}; f32 {list(SHAPE)} padded by "
          f"{WIDTHS[1]} on axis 1, out=, one thread; median ms of {args.calls} calls")
    print()
    print("| distance | memmove | " + " | ".join(args.modes) + " |")
    print("|---:|---:|" + "---:|" * len(args.modes))
    columns: dict[str, list[float]] = {m: [] for m in ["memmove", *args.modes]}
    for d in DISTANCES:
        a = placed(base, out, d)
        cells = [median_ms(lambda: memmove_pieces(out, a), args.calls)]
        for m in args.modes:
            cells.append(median_ms(lambda: ndpad.pad(a, WIDTHS, mode=m, out=out,
                                                     threads=1, **kwargs.get(m, {})),
                                   args.calls))
            expected = np.pad(a, WIDTHS, mode=m, **kwargs.get(m, {}))
            assert np.array_equal(out, expected), (m, d)
        for name, t in zip(columns, cells):
            columns[name].append(t)
        print(f"| {d} | " + " | ".join(f"{t:.2f}" for t in cells) + " |")
    print("| slowest / fastest | " + " | ".join(
        f"{max(v) / min(v):.2f}" for v in columns.values()) + " |")


if __name__ == "__main__":
    main()
