#!/usr/bin/env python3
"""Paired A/B timing of two ndpad-bench builds on one workload.

Single benchmark runs on the shared 2-core machine move by +-3-5%; comparing two
builds with alternating, paired rounds resolves differences of about +-0.5%.

    python3 bench/ab.py 40 /tmp/nb-old /tmp/nb-new -- \
        --input x.npy --begin 0,0,3,3 --end 0,0,3,3 --mode wrap
    python3 bench/ab.py 40 /tmp/nb-old /tmp/nb-new -- builtin --name int4

Each round runs both binaries once (`run --threads 1 --reps 9 --cold`, or `--hot`
where the arguments after `--` hold it; the order alternates between rounds) and
takes each one's `pad_into` ratio to its copy; arguments starting with `builtin` time
that built-in workload instead of `run`.
Prints each side's median and mean, how many rounds B beat A, and the median of the
paired differences (B - A).
"""
import json
import statistics
import subprocess
import sys


def ratio(binary, args):
    cache = [] if "--hot" in args else ["--cold"]
    command = args if args[:1] == ["builtin"] else ["run", *args]
    out = subprocess.run([binary, *command, "--threads", "1", "--reps", "9", *cache],
                         capture_output=True, text=True, check=True).stdout
    results = json.loads(out)["results"]
    return next(r["ratio"] for r in results if r["kind"] == "pad_into")


def main(argv):
    if len(argv) < 5 or argv[4] != "--":
        sys.exit(__doc__)
    rounds, a, b, args = int(argv[1]), argv[2], argv[3], argv[5:]
    ra, rb = [], []
    for i in range(rounds):
        if i % 2 == 0:
            ra.append(ratio(a, args))
            rb.append(ratio(b, args))
        else:
            rb.append(ratio(b, args))
            ra.append(ratio(a, args))
    wins = sum(y > x for x, y in zip(ra, rb))
    diff = statistics.median(y - x for x, y in zip(ra, rb))
    print(f"A {statistics.median(ra):.3f} (mean {statistics.mean(ra):.3f})  "
          f"B {statistics.median(rb):.3f} (mean {statistics.mean(rb):.3f})  "
          f"B>A in {wins}/{rounds}  median paired diff {diff:+.3f}")


if __name__ == "__main__":
    main(sys.argv)
