"""How the bench scripts time a call."""

from __future__ import annotations

import time
from typing import Callable, List


def call_times(fn: Callable[[], object], calls: int, warm: int = 2) -> List[float]:
    """The seconds each of ``calls`` calls of ``fn`` took, after ``warm`` untimed."""
    for _ in range(warm):
        fn()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times
