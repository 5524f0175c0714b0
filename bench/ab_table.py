#!/usr/bin/env python3
"""Paired A/B rounds of two ndpad-bench builds on every workload of bench/peers.py,
with an A/A pair (the first build against a copy of itself) to measure the noise.

    python3 bench/ab_table.py ROUNDS OLD NEW [--only NAME] > table.md

Per workload, each round runs OLD, NEW and OLD2 (a copy of OLD) once each, in an
order that rotates between rounds (`run --threads 1 --reps 9 --cold`, the cold
`pad_into` ratio to its own copy, as bench/ab.py). Prints a markdown table: each
side's median ratio, the median paired difference NEW - OLD with how many rounds NEW
won, and the A/A pair's median difference and spread (the noise).
"""
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab import ratio  # noqa: E402
from peers import make_input, workloads  # noqa: E402


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    rounds, old, new = int(argv[1]), argv[2], argv[3]
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    tmp = Path(tempfile.mkdtemp(prefix="ndpad-ab-", dir="/dev/shm"))
    old2 = str(tmp / "old2")
    shutil.copy(old, old2)
    rng = np.random.default_rng(5)
    print("| workload | old | new | new - old (median) | new won | A/A median | A/A range |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    try:
        for w in workloads(False):
            if only and only not in w["name"]:
                continue
            inp = tmp / "in.npy"
            np.save(inp, make_input(w, rng))
            args = ["--input", str(inp), "--begin", ",".join(map(str, w["begin"])),
                    "--end", ",".join(map(str, w["end"])), "--mode", w["mode"]]
            r = {old: [], new: [], old2: []}
            order = [old, new, old2]
            for i in range(rounds):
                for b in order[i % 3:] + order[:i % 3]:
                    r[b].append(ratio(b, args))
            inp.unlink()
            d = [y - x for x, y in zip(r[old], r[new])]
            aa = [y - x for x, y in zip(r[old], r[old2])]
            print(f"| {w['label']} | {statistics.median(r[old]):.3f} | "
                  f"{statistics.median(r[new]):.3f} | {statistics.median(d):+.3f} | "
                  f"{sum(x > 0 for x in d)}/{rounds} | {statistics.median(aa):+.3f} | "
                  f"{min(aa):+.3f} .. {max(aa):+.3f} |", flush=True)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main(sys.argv)
