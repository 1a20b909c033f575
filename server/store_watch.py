"""A loop that waits for the store says so once, not on every turn."""

from __future__ import annotations

import logging

log = logging.getLogger("gomoku.server")


class StoreWatch:
    """For a loop that goes on while the store is unreachable (the clock ticker,
    matchmaking, the room feeds, the AI pool's loops): one warning when the store goes
    away, one line when it answers again, nothing on the turns between (each turn's
    line flooded the log: 6 a second with three rooms followed during an outage)."""

    def __init__(self, waiting: str) -> None:
        self.waiting = waiting
        """What waits, as the warning says it ("clocks wait for it")."""
        self.down = False

    def failed(self, error: Exception) -> None:
        if not self.down:
            log.warning("the store is unreachable (%s); %s", error, self.waiting)
        self.down = True

    def answered(self) -> None:
        if self.down:
            log.info("the store answers again")
        self.down = False
