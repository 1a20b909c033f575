"""Quick match: players wait in a queue per (rule, time control), kept in the store so
every instance pairs from the same queues; the matchmaker pairs the closest-rated
(:func:`~server.store.base.pair_queue`: the allowed gap widens while they wait), makes
each pair's rated game and tells both players where it is, on whatever instance they
are connected to."""

from __future__ import annotations

import asyncio
import logging

from engine import Rule
from protocol import messages as m
from protocol.backoff import sleep_unless
from protocol.values import TimeControl
from server import game
from server.config import Matchmaking
from server.metrics import Metrics
from server.notices import Notice, encode_notice
from server.players import LocalPlayers
from server.room import Seat
from server.service import RoomService, as_colours, now_ms
from server.sessions import new_room_id
from server.store import QueueEntry, Store, StoreUnavailable
from server.store_watch import StoreWatch

log = logging.getLogger("gomoku.server")


def queue_name(rule: str, time_control: TimeControl | None) -> str:
    """The matchmaking queue of a (rule, time control): ``renju/300000+3000``."""
    tc = "none" if time_control is None else f"{time_control.base_ms}+{time_control.inc_ms}"
    return f"{rule}/{tc}"


def queue_settings(queue: str) -> tuple[Rule, TimeControl | None]:
    """The (rule, time control) a queue name stands for (:func:`queue_name` reversed)."""
    rule_name, _, tc = queue.partition("/")
    time_control = None
    if tc != "none":
        base, _, inc = tc.partition("+")
        time_control = TimeControl(base_ms=int(base), inc_ms=int(inc))
    return Rule(rule_name), time_control


class Matchmaker:
    """Pairs waiting players; runs when someone queues (:meth:`wake`) and every interval."""

    def __init__(
        self,
        store: Store,
        service: RoomService,
        players: LocalPlayers,
        settings: Matchmaking,
        metrics: Metrics,
    ) -> None:
        self.store = store
        self.service = service
        self.players = players
        self.settings = settings
        self.metrics = metrics
        self._wakeup = asyncio.Event()

    def wake(self) -> None:
        """Someone queued: pair now rather than at the next interval."""
        self._wakeup.set()

    async def run(self) -> None:
        """Pair, forever. While the store is unreachable it waits for it, as the clock
        ticker does (a warning, not an internal error)."""
        settings = self.settings
        watch = StoreWatch("matchmaking waits for it")
        while True:
            await sleep_unless(self._wakeup, settings.interval_s)  # cancellable, unlike wait_for
            self._wakeup.clear()
            try:
                for name in await self.store.queue_names():
                    pairs = await self.store.queue_pair(
                        name,
                        now_ms(),
                        base_gap=settings.base_gap,
                        gap_per_second=settings.gap_per_second,
                    )
                    for first, second in pairs:
                        try:
                            await self._start_match(name, first, second)
                        except StoreUnavailable:
                            await self._requeue(name, (first, second))
                            raise
                watch.answered()
            except StoreUnavailable as exc:
                watch.failed(exc)
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("matchmaker failed")

    async def _start_match(self, queue: str, first: QueueEntry, second: QueueEntry) -> None:
        rule, time_control = queue_settings(queue)
        players = [first.player_id, second.player_id]
        settings = game.RoomSettings(rule=rule, time=time_control, rated=True)
        seats = as_colours(self._seat_for(first), self._seat_for(second), drawn=True)
        for seat, _ in seats:  # as it stands now: a game may have ended since they queued
            if not seat.bot:
                await self.service.show_rating(seat, rule)
        room = await self.service.open(new_room_id(), settings, seats=seats)
        log.info("room %s: quick match of %s and %s", room.id, *players)
        for player in players:
            await self.store.publish_player(
                player, encode_notice(Notice(kind="matched", room=room.id))
            )

    async def _requeue(self, queue: str, entries: tuple[QueueEntry, ...]) -> None:
        """A pair taken out of the queue whose game could not be created: put them back,
        with the time they started waiting (their place). If even that fails, tell the
        players' connections here that they no longer wait, rather than let them wait for
        a match that cannot come."""
        for entry in entries:
            try:
                await self.store.queue_add(queue, entry)
            except StoreUnavailable:
                log.warning("player %s lost their place in queue %s", entry.player_id, queue)
                for conn in self.players.connections(entry.player_id):
                    if conn.queue == queue:
                        conn.queue = None
                        conn.send(m.Unqueued())

    def _seat_for(self, entry: QueueEntry) -> Seat:
        """The seat of a matched player (its rating is shown by the caller)."""
        for conn in self.players.connections(entry.player_id):
            if conn.identity is not None:
                return conn.seat()
        return Seat(id=entry.player_id, name=entry.name or entry.player_id)
