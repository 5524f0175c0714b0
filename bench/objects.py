#!/usr/bin/env python3
"""ndpad.pad beside numpy.pad on object arrays (#31 item 4: at least numpy.pad's
speed), paired in one process: each round times numpy.pad then ndpad.pad (median of
``--calls`` calls after two untimed ones), one thread; the table shows the medians
over ``--rounds`` rounds of each time and of their ratio within a round.

The elements are distinct Python ints (each element a reference to count, as numpy
counts them); the constant mode's constant is another int.

    .venv/bin/python bench/objects.py [--shape 300 300] [--pad 8] [--rounds 9] [--calls 10]
"""

from __future__ import annotations

import argparse
import statistics
from typing import Callable

import numpy as np

import ndpad
from _timing import call_times, paired


def timed(fn: Callable[[], object], calls: int) -> float:
    return statistics.median(call_times(fn, calls))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", type=int, nargs="+", default=[300, 300])
    ap.add_argument("--pad", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--modes", nargs="+", default=["edge", "constant", "reflect", "wrap"])
    args = ap.parse_args()
    n = int(np.prod(args.shape))
    x = np.arange(1000, 1000 + n).reshape(args.shape).astype(object)
    print(f"object {list(args.shape)} pad {args.pad}, one thread; numpy {np.__version__},"
          f" ndpad {ndpad.__version__}; medians of {args.rounds} rounds of {args.calls} calls\n")
    print("| mode | numpy.pad | ndpad.pad | ndpad / numpy speed |")
    print("| --- | --- | --- | --- |")
    for mode in args.modes:
        kw = {"constant_values": 7} if mode == "constant" else {}
        want = np.pad(x, args.pad, mode=mode, **kw)
        got = ndpad.pad(x, args.pad, mode=mode, threads=1, **kw)
        if got.shape != want.shape or not all(a is b or a == b for a, b in zip(got.flat, want.flat)):
            raise SystemExit(f"ndpad.pad differs from numpy.pad ({mode})")
        rounds = []
        for _ in range(args.rounds):
            a = timed(lambda: np.pad(x, args.pad, mode=mode, **kw), args.calls)
            b = timed(lambda: ndpad.pad(x, args.pad, mode=mode, threads=1, **kw), args.calls)
            rounds.append((a, b))
        np_s, nd_s, ratio = paired(rounds)
        print(f"| {mode} | {np_s * 1e3:.3f} ms | {nd_s * 1e3:.3f} ms | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
