"""Server-authoritative clocks: a flag falls on time even if nobody sends anything.
Any instance claims the rooms that fell due (a clock ran out, a grace period ended, a
held spectator count, a finished game's archiving to retry) and looks at each; the
beat that comes first finds outages, whose time the clocks get back
(:mod:`server.outage`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server import game
from server.config import Timers
from server.game import GameError
from server.metrics import Metrics
from server.service import NoSuchRoom, RoomService, now_ms
from server.store import Outage, Store, StoreUnavailable
from server.store_watch import StoreWatch

log = logging.getLogger("gomoku.server")


class ClockTicker:
    """Beats, then claims due rooms and ticks them, every ``tick_interval_s``."""

    def __init__(
        self, store: Store, service: RoomService, timers: Timers, metrics: Metrics
    ) -> None:
        self.store = store
        self.service = service
        self.timers = timers
        self.metrics = metrics

    async def first_beat(self) -> None:
        """Beat before serving: a restart finds the outage it ends before anyone acts."""
        now = now_ms()
        self._heard(await self.store.beat(now, self.timers.outage_after_ms), now)

    def _heard(self, latest: Outage | None, now: int) -> None:
        """Keep the latest outage the store knows of; one that this beat (at ``now``)
        ended is counted and logged, once in the cluster: by the instance whose beat
        found it (often a restart's first beat)."""
        if latest is not None and latest.end_ms == now:
            self.metrics.inc("gomoku_outages_total")
            log.warning(
                "no server beat for %.1f s: running clocks get that time back",
                (latest.end_ms - latest.start_ms) / 1000,
            )
        self.service.outage = latest

    async def run(self) -> None:
        """Flag players whose clock ran out, even if nobody sends anything. Each tick
        beats as it claims, and hears the beat's answer before it ticks a room, so an
        outage is found (and its time given back to the clocks, :mod:`server.outage`)
        before any flag can fall for it."""
        timers = self.timers
        watch = StoreWatch("clocks wait for it")
        while True:
            await asyncio.sleep(timers.tick_interval_s)
            try:
                now = now_ms()
                # Asked together (on Redis, one write: the beat, then the look for due
                # rooms), and the outage heard before any due room is ticked, even if
                # the look failed (the beat that finds an outage counts it, once).
                latest, due = await asyncio.gather(
                    self.store.beat(now, timers.outage_after_ms),
                    self.store.claim_due(now, timers.deadline_lease_ms),
                    return_exceptions=True,
                )
                if isinstance(latest, BaseException):
                    raise latest
                self._heard(latest, now)
                if isinstance(due, BaseException):
                    raise due
                for room_id in due:
                    with contextlib.suppress(GameError, NoSuchRoom):
                        await self.service.act(room_id, game.Tick())
                        await self.service.announce_spectators(room_id, due=True)
                watch.answered()
            except StoreUnavailable as exc:
                watch.failed(exc)
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("clock ticker failed")
