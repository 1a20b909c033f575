"""The workers of this server instance and the AI seats each plays.

A *worker* is a connection identified with a bot key that sent ``bot_ready`` (seats
and levels). An *AI seat* is a player of its own: a session marked with the worker
that plays it and its level (:class:`AiSeat`). The registry knows which of this
instance's workers holds which seat (taken from the shared AI pool), which seats wait
for their worker to come back (orphans), and which worker should take the next seat
from the pool (:meth:`WorkerRegistry.pick`). It does no I/O: seating
(:mod:`server.bots.seating`), the watchdog (:mod:`server.bots.watchdog`) and hints
(:mod:`server.bots.hints`) act through it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

import msgspec

from server.config import Bots
from server.metrics import Metrics
from server.room import Seat
from server.sessions import SessionRecord

log = logging.getLogger("gomoku.server")


class WorkerLink(Protocol):
    """What the registry needs from a worker's connection."""

    def send(self, message: msgspec.Struct) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


class SeatRecord(msgspec.Struct, array_like=True, frozen=True):
    """An AI seat in play as the store keeps it (the player id is the key)."""

    token_hash: str
    worker: str
    name: str
    level: str


@dataclasses.dataclass
class AiSeat:
    """One AI player: its id, display name, level, the hash of its current token and
    the worker that plays it. ``away_since`` (monotonic seconds) is set while no
    connection to this server instance plays it; ``connected_once`` says whether one
    ever did with the current token; ``restored_at`` (monotonic seconds) is set for
    a seat loaded from the store at start-up until it connects here."""

    player: str
    name: str
    level: str
    token_hash: str
    worker: str = ""
    away_since: float | None = None
    connected_once: bool = False
    restored_at: float | None = None

    def seat(self) -> Seat:
        return Seat(id=self.player, name=self.name, rating=None, bot=True)

    def record(self) -> bytes:
        """The seat as the store records it; the same seat always gives the same bytes,
        so a record read back can be compared with what this instance believes."""
        return msgspec.msgpack.encode(
            SeatRecord(self.token_hash, self.worker, self.name, self.level)
        )


WORKER_REPLACED = "this worker connected again: the new connection replaces this one"
"""Why a worker's connection is closed (1008) when the worker said ``bot_ready`` again on
another, on this instance or any other."""

WENT_AWAY = "the AI worker went away"
"""Why a hint request got no answer: its worker's connection closed (or the server stops)."""

HintAnswer = tuple[str | None, str]
"""A worker's answer to a hint request: the point (None: none found) and why."""


@dataclasses.dataclass
class Worker:
    """A worker: its offer, its link (None while it is gone), the seats it plays and the
    hint requests it has not answered yet."""

    id: str
    link: WorkerLink | None
    seats: int = 0
    levels: tuple[str, ...] = ()
    name: str = ""
    """The name it said hello with (``gomoku-ai --name``), for the operator's views."""
    held: dict[str, AiSeat] = dataclasses.field(default_factory=dict)
    hints: dict[int, asyncio.Future[HintAnswer]] = dataclasses.field(default_factory=dict)
    last_seen: float = 0.0
    lost_at: float | None = None
    last_assigned: int = 0
    linked: bool = False
    """Whether it ever said ``bot_ready`` here (not only known from its seats' hellos)."""
    stored: int = 0
    """How many seats the store last said it holds: with those whose connection plays
    through another server instance (a sibling of ``--processes``, or another replica
    behind a balancer), which leave :attr:`held` here. Counting ``held`` alone gave a
    worker of 2 seats a third game while it played three."""

    @property
    def busy(self) -> int:
        """The seats it plays, here or through another instance."""
        return max(len(self.held), self.stored)

    @property
    def free(self) -> int:
        return max(0, self.seats - self.busy)

    def fail_hints(self, why: str) -> None:
        """Answer every hint request it has not answered with "no move", saying ``why``."""
        for future in self.hints.values():
            if not future.done():
                future.set_result((None, why))


def ai_name(level: str) -> str:
    """The display name of an AI seat: ``AI master``, at most 24 characters."""
    return f"AI {level}"[:24]


class WorkerRegistry:
    """Every worker of this server instance and the AI seats they play."""

    def __init__(self, settings: Bots, metrics: Metrics) -> None:
        self.settings = settings
        self.workers: dict[str, Worker] = {}
        self.owner: dict[str, str] = {}
        """AI seat player -> the worker that plays it."""
        self.orphans: dict[str, AiSeat] = {}
        """Seats waiting for a worker to take them over."""
        self.changed = asyncio.Event()
        """Set when the watchdog should look again (a worker came, a seat went away)."""
        self._assignments = itertools.count(1)
        metrics.gauges["gomoku_ai_workers"] = lambda: len(self.live_workers())
        metrics.gauges["gomoku_ai_seats"] = lambda: sum(w.seats for w in self.live_workers())
        metrics.gauges["gomoku_ai_seats_busy"] = lambda: len(self.owner)

    # -- workers -----------------------------------------------------------------

    def register(
        self, worker_id: str, link: WorkerLink, seats: int, levels: Sequence[str], name: str = ""
    ) -> None:
        """A worker (called ``name``) offers ``seats`` games at ``levels`` (again: the
        offer is replaced)."""
        worker = self.workers.get(worker_id)
        if worker is None:
            worker = self.workers[worker_id] = Worker(worker_id, link)
        if worker.link is not None and worker.link is not link:
            # The worker came back (its old connection not yet seen to be dead), or a copy
            # of it uses its token: one connection speaks for a worker, the newest, and
            # the old one is told rather than left to find its heartbeats refused.
            log.info("AI worker %s connected again; its old connection is closed", worker_id)
            worker.link.close(1008, WORKER_REPLACED)
        worker.link, worker.lost_at, worker.linked = link, None, True
        worker.seats, worker.levels = seats, tuple(dict.fromkeys(levels))
        worker.name = name
        worker.last_seen = time.monotonic()
        for seat in list(self.orphans.values()):
            if seat.worker == worker_id:  # its seats outlived its lease: they are its again
                self.hold(worker, seat)
        log.info(
            "AI worker %s ready: %d seats, levels %s (%d seats in play)",
            worker_id,
            seats,
            ",".join(worker.levels),
            len(worker.held),
        )
        self.changed.set()  # orphans may have a home now

    def heartbeat(self, worker_id: str) -> None:
        worker = self.workers.get(worker_id)
        if worker is not None:
            worker.last_seen = time.monotonic()

    def is_worker(self, worker_id: str, link: WorkerLink) -> bool:
        worker = self.workers.get(worker_id)
        return worker is not None and worker.link is link

    def link_closed(self, worker_id: str, link: WorkerLink) -> None:
        """The worker's connection is gone: its seats wait ``lease_ms`` for it."""
        worker = self.workers.get(worker_id)
        if worker is None or worker.link is not link:
            return
        worker.link, worker.lost_at = None, time.monotonic()
        held = len(worker.held)
        seats = "its 1 seat waits" if held == 1 else f"its {held} seats wait"
        lease_s = self.settings.lease_ms / 1000
        log.info("AI worker %s gone; %s %g s for it", worker_id, seats, lease_s)
        worker.fail_hints(WENT_AWAY)

    def note_stored(self, held: Mapping[str, int]) -> None:
        """The seats each worker holds by the store's records (worker id -> count)."""
        for worker in self.workers.values():
            worker.stored = held.get(worker.id, 0)

    def live_workers(self) -> list[Worker]:
        return [w for w in self.workers.values() if w.link is not None]

    def levels(self) -> list[str]:
        """Every level some connected worker offers."""
        return sorted({lv for w in self.live_workers() for lv in w.levels})

    def pick(self, level: str | None, *, any_level: bool = False) -> Worker | None:
        """The worker to take a seat: connected, offering ``level``, with a free seat;
        among those the one with the most free seats, then the least recently used
        (so seats spread over workers)."""
        candidates = [
            w
            for w in self.live_workers()
            if w.free > 0 and (any_level or level is None or level in w.levels)
        ]
        if not candidates:
            return None
        return max(candidates, key=lambda w: (w.free, -w.last_assigned))

    # -- seats -------------------------------------------------------------------

    def hold(self, worker: Worker, seat: AiSeat) -> None:
        """``worker`` plays ``seat`` from now on."""
        seat.worker = worker.id
        worker.held[seat.player] = seat
        worker.last_assigned = next(self._assignments)
        self.owner[seat.player] = worker.id
        self.orphans.pop(seat.player, None)

    def drop(self, player: str) -> AiSeat | None:
        """Forget the seat (held or orphaned); the seat, if it was known."""
        owner = self.owner.pop(player, None)
        worker = None if owner is None else self.workers.get(owner)
        seat = None if worker is None else worker.held.pop(player, None)
        orphan = self.orphans.pop(player, None)
        return seat or orphan

    def tracked(self, player: str) -> AiSeat | None:
        """The seat if this registry knows it (held by a worker, or an orphan)."""
        owner = self.owner.get(player)
        worker = None if owner is None else self.workers.get(owner)
        seat = None if worker is None else worker.held.get(player)
        return seat or self.orphans.get(player)

    def known_worker(self, worker_id: str, lost_at: float) -> Worker:
        """The worker with this id, or a record of it as gone since ``lost_at`` (a seat of
        it is known before the worker itself came back: a server restart)."""
        worker = self.workers.get(worker_id)
        if worker is None:
            worker = self.workers[worker_id] = Worker(worker_id, None, lost_at=lost_at)
        return worker

    def seat_online(self, session: SessionRecord, hashed: str) -> None:
        """An AI seat's connection said hello (after a restart this is how the
        registry learns whose seat it is)."""
        assert session.worker is not None
        owner = self.owner.get(session.player)
        seat = None
        if owner is not None:
            worker = self.workers.get(owner)
            seat = None if worker is None else worker.held.get(session.player)
        if seat is None:
            seat = self.orphans.pop(session.player, None) or AiSeat(
                session.player, session.name, session.level or "", hashed
            )
            # None known: a server restart, and the worker has not come back yet.
            self.hold(self.known_worker(session.worker, time.monotonic()), seat)
        seat.token_hash = hashed
        seat.away_since = None
        seat.connected_once = True
        seat.restored_at = None

    def seat_back(self, player: str) -> None:
        """An AI seat's connection here came back to a room it had left (``leave``, then
        ``join`` or ``resume``): it plays here again."""
        seat = self.tracked(player)
        if seat is not None and seat.connected_once and seat.away_since is not None:
            seat.away_since = None
            self.changed.set()

    def seat_offline(self, player: str) -> None:
        """No connection to this instance plays an AI seat any more (its room already
        shows it offline): the watchdog hands it over after the lease, or releases it if
        its games are over."""
        seat = self.tracked(player)
        if seat is not None:
            seat.away_since = time.monotonic()
            self.changed.set()
