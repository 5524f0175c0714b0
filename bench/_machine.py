"""What the bench scripts say of the machine they ran on."""

from __future__ import annotations

import platform


def cpu_name() -> str:
    """The CPU's model name as Linux reports it (``/proc/cpuinfo``), or what
    ``platform`` knows of it elsewhere."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()
