"""Flood limits: a token bucket for messages, sliding windows for chat lines and for
failed joins by invite code (per connection, and per client address)."""

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

    def expire(self, now_ms: int) -> int:
        """Forget the events that left the window; how many are left in it."""
        while self.stamps and self.stamps[0] <= now_ms - self.window_ms:
            self.stamps.popleft()
        return len(self.stamps)

    def wait_ms(self, now_ms: int) -> int:
        """0 if one more event fits now, else how long until it does."""
        if self.expire(now_ms) < self.limit:
            return 0
        return self.stamps[-self.limit] + self.window_ms - now_ms

    def add(self, now_ms: int) -> None:
        """Count an event (whether or not it fitted)."""
        self.stamps.append(now_ms)

    def take(self, now_ms: int) -> bool:
        """Count an event if it fits in the window; False (and not counted) if not."""
        if self.wait_ms(now_ms):
            return False
        self.add(now_ms)
        return True


class KeyedWindows:
    """One :class:`SlidingWindow` per key (a client address). A key's window exists only
    while it holds events of the last ``window_ms``, so the table stays as small as the
    set of keys that were counted lately, however many come and go. A ``limit`` of 0 is
    no limit: nothing waits, and nothing is counted."""

    def __init__(self, limit: int, window_ms: int) -> None:
        self.limit = limit
        self.window_ms = window_ms
        self.windows: dict[str, SlidingWindow] = {}
        self._swept_ms = 0

    def wait_ms(self, key: str, now_ms: int) -> int:
        """0 if one more event of ``key`` fits now, else how long until it does."""
        window = self.windows.get(key)
        return 0 if window is None or not self.limit else window.wait_ms(now_ms)

    def add(self, key: str, now_ms: int) -> None:
        """Count an event of ``key``; once a window, drop the keys whose events expired."""
        if not self.limit:
            return
        if now_ms - self._swept_ms >= self.window_ms:
            self._swept_ms = now_ms
            for gone in [k for k, w in self.windows.items() if not w.expire(now_ms)]:
                del self.windows[gone]
        window = self.windows.get(key)
        if window is None:
            window = self.windows[key] = SlidingWindow(self.limit, self.window_ms)
        window.add(now_ms)
