"""How the bench scripts time a call."""

from __future__ import annotations

import statistics
import time
from typing import Callable, List, Sequence, Tuple


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


def quartile(fn: Callable[[], object], calls: int) -> float:
    """The first quartile of ``calls`` timed calls of ``fn`` (after five untimed), in
    seconds: the VM's scheduler adds a tail."""
    times = sorted(call_times(fn, calls, warm=5))
    return times[len(times) // 4]


def paired(rounds: Sequence[Tuple[float, float]]) -> Tuple[float, float, float]:
    """Over rounds of paired times ``(a, b)``: the median of the ``a``, of the ``b``,
    and of the rounds' ratios ``a / b``."""
    return (statistics.median(a for a, _ in rounds), statistics.median(b for _, b in rounds),
            statistics.median(a / b for a, b in rounds))
