#!/usr/bin/env python3
"""Runs every case of manifest.json against an ndpad binary, under an address-space
limit, and reports the cases whose exit code, stderr or leftover outputs are wrong.

    python3 testdata/hostile/check.py PATH/TO/ndpad [--mem-mb 1024] [--timeout 20]

Exit status 0 when every case behaves as the manifest says, 1 otherwise. (The Rust
test suite runs the same manifest; this script is for a quick look by hand.)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("ndpad")
    ap.add_argument("--mem-mb", type=int, default=1024)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("names", nargs="*", help="only these cases")
    a = ap.parse_args()
    cases = json.load(open(os.path.join(HERE, "manifest.json")))["files"]
    bad = 0
    for c in cases:
        if a.names and c["name"] not in a.names:
            continue
        tmp = tempfile.mkdtemp(prefix="ndpad-hostile-")
        sub = lambda s: s.replace("{hostile}", HERE).replace("{tmp}", tmp)
        args = [sub(x) for x in c["args"]]
        cmd = ["prlimit", f"--as={a.mem_mb << 20}", a.ndpad, *args]
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                               timeout=a.timeout)
            code, err, out = p.returncode, p.stderr, p.stdout
        except subprocess.TimeoutExpired:
            code, err, out = "timeout", "", ""
        ms = (time.monotonic() - t0) * 1000
        problems = []
        if code != c["exit"]:
            problems.append(f"exit {code}, expected {c['exit']}")
        if "panicked" in err:
            problems.append("panicked")
        for stream, text in (("stderr", err), ("stdout", out)):
            want = c.get(stream + "_contains")
            if want is not None and want.lower() not in text.lower():
                problems.append(f"{stream} lacks {want!r}")
        for o in c["no_output"]:
            if os.path.exists(sub(o)):
                problems.append(f"left {o} behind")
        leftovers = os.listdir(tmp)
        if leftovers:
            problems.append(f"files left in the temporary directory: {leftovers}")
        shutil.rmtree(tmp, ignore_errors=True)
        status = "ok  " if not problems else "FAIL"
        bad += bool(problems)
        text = (err + out).strip()
        line = text.splitlines()[0] if text else ""
        print(f"{status} {c['name']} ({ms:.0f} ms): {'; '.join(problems) or line[:160]}")
        if problems:
            print(f"     stderr: {err.strip()[:400]}\n     stdout: {out.strip()[:400]}")
    print(f"{bad} of {len(cases)} cases wrong")
    return int(bad > 0)


if __name__ == "__main__":
    sys.exit(main())
