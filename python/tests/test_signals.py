"""Ctrl-C during a long pad: the kernel runs without the GIL, and between parts of
the pad it lets Python run its signal handlers, so KeyboardInterrupt stops the pad
promptly (``out=`` is then left partly written)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

# The goal is 0.2 s; the bound leaves room for a loaded machine.
PROMPT = 0.5

_CHILD = """
import sys, time
import numpy as np
import ndpad
x = np.zeros((8192, 8192), np.float32)
out = np.zeros((3 * 8192, 3 * 8192), np.float32) if sys.argv[1] == "out" else None
threads = int(sys.argv[2])
ndpad.pad(x[:8], 1, mode="edge")
print("ready", flush=True)
try:
    for _ in range(100):
        ndpad.pad(x, 8192, mode="edge", out=out, threads=threads)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("out,threads", [("out", 1), ("out", 2), ("fresh", 1)])
def test_ctrl_c_stops_a_long_pad(out: str, threads: int) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, out, str(threads)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        # Well inside the first 2.4 GB pad (0.5 s or more here).
        time.sleep(0.3)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        rest, _ = child.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        child.kill()
    assert rest == "interrupted\n"
    assert child.returncode == 0
    assert took < PROMPT, f"stopped {took:.3f} s after SIGINT"
