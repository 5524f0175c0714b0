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


def _interrupted_after(script: str, *args: str) -> float:
    """Runs ``script`` with ``args``, sends SIGINT 0.3 s after it printed "ready" (well
    inside its first pad, which takes 0.5 s or more here), checks that it caught
    KeyboardInterrupt, and returns the seconds from the signal to its exit."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        time.sleep(0.3)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        rest, _ = child.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        child.kill()
    assert rest == "interrupted\n"
    assert child.returncode == 0
    return took


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("out,threads", [("out", 1), ("out", 2), ("fresh", 1)])
def test_ctrl_c_stops_a_long_pad(out: str, threads: int) -> None:
    took = _interrupted_after(_CHILD, out, str(threads))
    assert took < PROMPT, f"stopped {took:.3f} s after SIGINT"


# numpy.pad's statistic, ramp and odd-reflection modes run in the front end's own
# loops (not the kernel's): each pad here takes about a second or more on one thread.
_CHILD_MODES = """
import sys
import numpy as np
import ndpad
x = (np.arange(8192 * 8192, dtype=np.float32) % 251).reshape(8192, 8192)
kw = {"median": dict(pad_width=1, mode="median"),
      "linear_ramp": dict(pad_width=4096, mode="linear_ramp", end_values=3.0),
      "odd": dict(pad_width=8192, mode="reflect", reflect_type="odd")}[sys.argv[1]]
threads = int(sys.argv[2])
ndpad.pad(x[:8, :8], 1, mode=kw["mode"])
print("ready", flush=True)
try:
    for _ in range(100):
        ndpad.pad(x, threads=threads, **kw)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    "mode,threads", [("median", 1), ("median", 2), ("linear_ramp", 2), ("odd", 1)]
)
def test_ctrl_c_stops_a_statistic_ramp_or_odd_pad(mode: str, threads: int) -> None:
    took = _interrupted_after(_CHILD_MODES, mode, str(threads))
    assert took < PROMPT, f"{mode}: stopped {took:.3f} s after SIGINT"
