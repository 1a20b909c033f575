"""Per-connection flood limits: a token bucket for messages, a sliding window for chat."""

from __future__ import annotations

import collections


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; each message takes one."""

    def __init__(self, rate: float, burst: int, now_s: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now_s

    def take(self, now_s: float) -> bool:
        """Spend a token if there is one."""
        self.tokens = min(self.burst, self.tokens + (now_s - self.stamp) * self.rate)
        self.stamp = now_s
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class SlidingWindow:
    """At most ``limit`` events in any ``window_ms`` span."""

    def __init__(self, limit: int, window_ms: int) -> None:
        self.limit = limit
        self.window_ms = window_ms
        self.stamps: collections.deque[int] = collections.deque()

    def take(self, now_ms: int) -> bool:
        while self.stamps and self.stamps[0] <= now_ms - self.window_ms:
            self.stamps.popleft()
        if len(self.stamps) >= self.limit:
            return False
        self.stamps.append(now_ms)
        return True
