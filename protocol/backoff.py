"""How long a program that speaks the protocol waits before it reconnects.

protocol.md asks every client to reconnect with a growing back-off after a drop
(a restarted server must not be met by all its clients in one instant). The
terminal client (``client/connection.py``) and the AI worker (its own connection,
``worker/control.py``, and each seat's, ``worker/seat.py``) all do it, and they may
not import each other; both import ``protocol``, so the rule lives here, next to
the option checks of ``protocol/options.py`` that the same programs share.

:class:`Backoff` is a value with no I/O: it computes waits. :func:`sleep_unless` is
the one wait they all make, on the caller's event loop, cut short when the program
stops (a stopping worker or a player who gives up does not sit out the back-off).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import random
from collections.abc import Callable


class BackoffError(ValueError):
    """Back-off settings that make no sense (a negative wait, a factor below 1...)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Backoff:
    """Waits between reconnect attempts: ``initial`` seconds before the first retry,
    ``factor`` times longer before each next one, never more than ``maximum``; and
    each wait shortened by a random share of up to ``jitter`` (0.2: by 0 to 20%), so
    that the clients of a restarted server come back spread out, and no wait is ever
    longer than ``maximum``.

    >>> Backoff(initial=0.5, maximum=4, jitter=0).delay(3)
    2.0
    >>> Backoff(initial=0.5, maximum=4)
    Backoff(initial=0.5, maximum=4, factor=2.0, jitter=0.2)
    """

    initial: float = 0.5
    maximum: float = 15.0
    factor: float = 2.0
    jitter: float = 0.2

    def __post_init__(self) -> None:
        numbers = (self.initial, self.maximum, self.factor, self.jitter)
        if not all(math.isfinite(n) for n in numbers):
            raise BackoffError(f"back-off settings must be finite numbers: {self!r}")
        if not 0 <= self.initial <= self.maximum:
            raise BackoffError(f"need 0 <= initial <= maximum: {self!r}")
        if self.factor < 1:
            raise BackoffError(f"a back-off factor below 1 would shrink: {self!r}")
        if not 0 <= self.jitter <= 1:
            raise BackoffError(f"jitter is a share of the wait, 0 to 1: {self!r}")

    def ceiling(self, attempt: int) -> float:
        """The longest wait before reconnect attempt ``attempt`` (1 = the first retry)."""
        wait = self.initial
        if wait == 0 or self.factor == 1:
            return min(wait, self.maximum)
        for _ in range(attempt - 1):  # stops at the cap: no overflow in a long outage
            if wait >= self.maximum:
                break
            wait *= self.factor
        return min(wait, self.maximum)

    def delay(self, attempt: int, draw: Callable[[], float] = random.random) -> float:
        """The wait before reconnect attempt ``attempt``: :meth:`ceiling` less a random
        share of up to ``jitter`` of it (``draw`` gives a number in [0, 1))."""
        return self.ceiling(attempt) * (1 - self.jitter * draw())


async def sleep_unless(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep ``seconds``, or less if ``stop`` is set meanwhile; True if it was.

    The wait runs in the caller's task under ``asyncio.timeout``, not in a task of its
    own under ``asyncio.wait_for``: on Python 3.11, ``wait_for`` returns normally when
    the caller is cancelled just as the event is set, so the cancellation is lost and a
    loop that waits this way never ends (seen: a server's stop waiting for ever on its
    AI watchdog)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stop.wait()
    return stop.is_set()
