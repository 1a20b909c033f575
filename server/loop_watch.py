"""How late the event loop runs, for an operator asked why it "got slow": one task asks
to wake every :data:`INTERVAL_S`, and how much later it wakes is what every frame,
move and clock waited then too. ``/metrics`` gives the longest such lag over the last
:data:`WINDOW_S`; a stall of :data:`STALL_S` or more is counted and logged (a stopped
process, swapping, or a long computation on the loop). Also the process's own
figures that Prometheus's clients give every process (``process_*``)."""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import resource
import sys
import time

from server.metrics import Metrics

log = logging.getLogger("gomoku.server")

INTERVAL_S = 0.25
WINDOW_S = 10.0
STALL_S = 1.0


class LoopWatch:
    """The event loop's lag, measured while :meth:`run` runs."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._lags: collections.deque[tuple[float, float]] = collections.deque()
        """(when measured, lag in seconds), the last :data:`WINDOW_S` of them."""

    def record(self, lag: float, now: float) -> None:
        """A wake-up ``lag`` seconds late, at monotonic time ``now``."""
        self._lags.append((now, lag))
        while self._lags and self._lags[0][0] < now - WINDOW_S:
            self._lags.popleft()
        if lag >= STALL_S:
            self.metrics.inc("gomoku_event_loop_stalls_total")
            log.warning(
                "the event loop stalled for %.1f s: no frame, move or clock was served "
                "meanwhile (the process stopped or swapped, or a long computation ran)",
                lag,
            )

    def max_lag(self) -> float:
        """The longest lag (seconds) measured within the last :data:`WINDOW_S`."""
        cutoff = time.monotonic() - WINDOW_S
        return max((lag for at, lag in self._lags if at >= cutoff), default=0.0)

    async def run(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(INTERVAL_S)
            now = time.monotonic()
            self.record(max(0.0, now - asked - INTERVAL_S), now)


def cpu_seconds() -> float:
    """CPU time this process has used, user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def resident_bytes() -> float:
    """This process's resident memory now (Linux); elsewhere its peak."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak * (1 if sys.platform == "darwin" else 1024)


def open_fds() -> float:
    """File descriptors open in this process (-1 where the OS does not tell)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1
