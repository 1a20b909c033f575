"""Keeping a seat's messages under the server's rate limit.

The server drops what a connection sends beyond its token bucket (``rate_limited``).
A bot playing a fast game (two quick AIs, no clock) would otherwise send moves faster
than that, and a dropped move leaves the game waiting for a move that never comes. So
every seat connection spends from a bucket of its own, a little smaller and slower than
the one the server announced in ``welcome``, and waits for a token instead of being
refused.
"""

from __future__ import annotations

import asyncio
import time

from protocol.values import Limits

SHARE = 0.8
"""The part of the server's sustained rate and burst a seat uses (clocks and the
network batch frames, so the server may see two sends closer than they were made)."""


class SendPacer:
    """Waits, when needed, so that sends stay within ``rate`` per second and ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a pacer needs a positive rate and burst, not {rate}/{burst}")
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._stamp = time.monotonic()
        self._lock = asyncio.Lock()

    @classmethod
    def within(cls, limits: Limits) -> SendPacer:
        """A pacer that stays inside the server's announced limits with a margin."""
        return cls(max(1.0, limits.rate_per_s * SHARE), max(1, int(limits.rate_burst * SHARE)))

    def __repr__(self) -> str:
        return f"SendPacer({self.rate!r}, {self.burst!r})"

    async def wait(self) -> None:
        """Return once a send is allowed, and count it."""
        async with self._lock:  # one waiter at a time keeps the sends in order
            self._refill()
            if self._tokens < 1:
                await asyncio.sleep((1 - self._tokens) / self.rate)
                self._refill()
            self._tokens -= 1

    def _refill(self) -> None:
        now = time.monotonic()
        self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
