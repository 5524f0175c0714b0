#!/usr/bin/env python3
"""How much faster ndpad pads with every core than with one (#31's goal on a 16-core
machine: fresh outputs with 16 threads at least 4x one thread), read from the JSON
that ``bench/peers.py`` writes: for each workload and cache state, the best time of
one thread over the best time of the most threads, for ``pad_with`` (a fresh output),
``pad_into`` (a reused one), the copy and the allocate-and-touch floor
(``fresh_fill``) beside them. Prints a Markdown table.

    python3 bench/device/scaling.py results.json
"""

from __future__ import annotations

import json
import sys
from typing import Dict, List, Tuple

KINDS = ("pad_with", "pad_into", "copy", "fresh_fill")
GOAL = 4.0


def speedups(path: str) -> Tuple[int, List[str]]:
    """The thread count compared with one, and the table's lines."""
    with open(path) as f:
        data = json.load(f)
    most = max(data["threads"])
    lines = [
        f"| workload | cache | {' | '.join(f'{k} {most}t / 1t' for k in KINDS)} |",
        "| --- | --- |" + " --- |" * len(KINDS),
    ]
    for w in data["workloads"]:
        best: Dict[Tuple[str, str, int], float] = {}
        for r in w["ndpad"]:
            best[(r["kind"], r["cache"], r["threads"])] = r["best_s"]
        for cache in ("cold", "hot"):
            cells = []
            for kind in KINDS:
                one, many = best.get((kind, cache, 1)), best.get((kind, cache, most))
                cells.append("-" if not one or not many else f"{one / many:.2f}")
            lines.append(f"| {w['label']} | {cache} | {' | '.join(cells)} |")
    return most, lines


def main() -> None:
    most, lines = speedups(sys.argv[1])
    print(f"Speed-up of {most} threads over one (best times; the goal: pad_with"
          f" {GOAL:g}x or more)\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
