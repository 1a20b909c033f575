"""AI workers as the server sees them: what each offers, which AI seats it plays,
and what happens to those seats when it goes away.

A *worker* is a connection identified with a bot key that sent ``bot_ready``
(seats and levels). An *AI seat* is a player of its own: a session marked with
the worker that plays it and its level. The server creates it, seats it in the
room itself (so a seat is never lost to a race), and sends the worker
``bot_seat`` with the seat's token; the worker plays it over a connection of its
own with the ordinary messages (``hello`` with the token, ``join``, ``move``...).

Liveness: a worker sends ``bot_heartbeat``; one silent for three heartbeats is
closed. A seat nobody plays (its room has shown it offline for ``lease_ms``, or
it never connected within ``lease_ms`` of being given out) while its game runs
is handed to another worker: a new token is issued, the old session is deleted
(the old token stops working) and connections still using it are closed, so two
workers never play one seat. A worker whose own connection is gone keeps its
seats' capacity for ``lease_ms``, so it can reconnect and carry on.

The registry lives in one server instance, and a worker serves the players of
the instance it is registered with. Its seats' presence in their rooms is what
every instance sees, so a seat that plays through another instance (behind a
load balancer) is left to that one rather than taken away.

Across a restart: every AI seat in play is also recorded in the store (its token
hash, worker, name and level; :meth:`Store.put_ai_seat`), from when it is given
out until it is released. A starting registry loads those records, so it knows
its seats before any of them says hello again: each is held for its worker as if
the worker's connection had just gone, and gets one lease for the worker to come
back. After that it is judged like any seat nobody plays here: released if its
games are over, left alone if its room shows it online through another instance,
otherwise handed over. A room's "online" is not believed for a seat that has not
said hello since the latest outage (every instance was down, so no connection
survived it; that is how a killed server leaves its rooms). A handover replaces
the seat's record only if it is still the one this instance knew (one atomic
step), so two instances that both judge a seat never both hand it over.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import random
import time
from collections.abc import Sequence
from typing import Literal, Protocol

import msgspec

from engine import Opening, Rule
from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.values import TimeControl
from server import game
from server.config import ServerConfig
from server.game import GameError
from server.metrics import Metrics
from server.room import LIVE_STATES, Room, Seat
from server.service import Notice, RoomService, encode_notice, now_ms
from server.sessions import (
    SessionRecord,
    decode_session,
    encode_session,
    new_player_id,
    new_room_id,
    new_token,
    token_hash,
)
from server.store import Store, StoreUnavailable

log = logging.getLogger("gomoku.server")

SILENT_HEARTBEATS = 3
"""A worker that sends nothing for this many heartbeat intervals is closed."""


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


_record_decoder = msgspec.msgpack.Decoder(SeatRecord)


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


@dataclasses.dataclass
class Worker:
    """A worker: its offer, its link (None while it is gone) and the seats it plays."""

    id: str
    link: WorkerLink | None
    seats: int = 0
    levels: tuple[str, ...] = ()
    held: dict[str, AiSeat] = dataclasses.field(default_factory=dict)
    last_seen: float = 0.0
    lost_at: float | None = None
    last_assigned: int = 0

    @property
    def free(self) -> int:
        return max(0, self.seats - len(self.held))


@dataclasses.dataclass
class Claim:
    """A reserved AI seat and the token its worker will use; dispatch or cancel it."""

    worker: Worker
    seat: AiSeat
    token: str


def ai_name(level: str) -> str:
    """The display name of an AI seat: ``AI master``, at most 24 characters."""
    return f"AI {level}"[:24]


class BotRegistry:
    """Every worker of this server instance, their seats, and pending hints."""

    def __init__(
        self, store: Store, service: RoomService, config: ServerConfig, metrics: Metrics
    ) -> None:
        self.store = store
        self.service = service
        self.config = config
        self.settings = config.bots
        self.metrics = metrics
        self.workers: dict[str, Worker] = {}
        self.owner: dict[str, str] = {}
        """AI seat player -> the worker that plays it."""
        self.orphans: dict[str, AiSeat] = {}
        """Seats waiting for a worker to take them over."""
        self._hints: dict[int, tuple[asyncio.Future[tuple[str | None, str]], str]] = {}
        self._hint_ids = itertools.count(1)
        self._assignments = itertools.count(1)
        self._wakeup = asyncio.Event()
        metrics.gauges["gomoku_ai_workers"] = lambda: sum(
            1 for w in self.workers.values() if w.link is not None
        )
        metrics.gauges["gomoku_ai_seats"] = lambda: sum(
            w.seats for w in self.workers.values() if w.link is not None
        )
        metrics.gauges["gomoku_ai_seats_busy"] = lambda: len(self.owner)

    # -- workers -----------------------------------------------------------------

    def register(self, worker_id: str, link: WorkerLink, seats: int, levels: Sequence[str]) -> None:
        """A worker offers ``seats`` games at ``levels`` (again: the offer is replaced)."""
        worker = self.workers.get(worker_id)
        if worker is None:
            worker = self.workers[worker_id] = Worker(worker_id, link)
        worker.link, worker.lost_at = link, None
        worker.seats, worker.levels = seats, tuple(dict.fromkeys(levels))
        worker.last_seen = time.monotonic()
        for seat in list(self.orphans.values()):
            if seat.worker == worker_id:  # its seats outlived its lease: they are its again
                self._hold(worker, seat)
        log.info(
            "AI worker %s ready: %d seats, levels %s (%d seats in play)",
            worker_id,
            seats,
            ",".join(worker.levels),
            len(worker.held),
        )
        self._wakeup.set()  # orphans may have a home now

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
        log.info("AI worker %s gone; its %d seats wait for it", worker_id, len(worker.held))
        for future, owner in list(self._hints.values()):
            if owner == worker_id and not future.done():
                future.set_result((None, "the AI worker went away"))

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

    def _unavailable(self, level: str) -> GameError:
        live = self.live_workers()
        if not live:
            text = "no AI worker is connected to this server"
        elif level not in self.levels():
            text = f"no AI plays level {level!r}; available: {', '.join(self.levels())}"
        else:
            text = "every AI is busy; try again in a moment"
        return GameError(ErrorCode.NO_AI_AVAILABLE, text)

    def default_level(self) -> str:
        offered = self.levels()
        if self.settings.default_level in offered or not offered:
            return self.settings.default_level
        return offered[0]

    # -- seats -------------------------------------------------------------------

    async def claim(self, level: str | None) -> Claim:
        """Reserve a seat on the best worker for ``level`` and store its session.
        Raises GameError ``no_ai_available``."""
        wanted = level or self.default_level()
        worker = self.pick(wanted)
        if worker is None:
            raise self._unavailable(wanted)
        token = new_token()
        seat = AiSeat(new_player_id(), ai_name(wanted), wanted, token_hash(token))
        seat.away_since = time.monotonic()  # until its connection says hello
        self._hold(worker, seat)
        try:
            await self._store_session(seat, worker.id)
            await self.store.put_ai_seat(seat.player, seat.record())
        except BaseException:
            self._drop(seat.player)
            raise
        return Claim(worker, seat, token)

    async def cancel(self, claim: Claim) -> None:
        """Undo a claim whose seat could not be taken."""
        self._drop(claim.seat.player)
        await self.store.delete_session(claim.seat.token_hash)
        await self.store.drop_ai_seat(claim.seat.player)

    def dispatch(self, claim: Claim, room_id: str) -> None:
        """Tell the worker to play the seat. If it is gone right now, the lease
        hands the seat on later."""
        link = claim.worker.link
        if link is not None:
            link.send(
                m.BotSeat(
                    player=claim.seat.player,
                    token=claim.token,
                    name=claim.seat.name,
                    room=room_id,
                    level=claim.seat.level,
                )
            )
        log.info(
            "AI seat %s (%s) in room %s goes to worker %s",
            claim.seat.player,
            claim.seat.level,
            room_id,
            claim.worker.id,
        )

    def _hold(self, worker: Worker, seat: AiSeat) -> None:
        seat.worker = worker.id
        worker.held[seat.player] = seat
        worker.last_assigned = next(self._assignments)
        self.owner[seat.player] = worker.id
        self.orphans.pop(seat.player, None)

    def _drop(self, player: str) -> AiSeat | None:
        owner = self.owner.pop(player, None)
        worker = None if owner is None else self.workers.get(owner)
        seat = None if worker is None else worker.held.pop(player, None)
        orphan = self.orphans.pop(player, None)
        return seat or orphan

    async def _store_session(self, seat: AiSeat, worker_id: str) -> None:
        record = SessionRecord(
            player=seat.player,
            name=seat.name,
            rating=self.config.matchmaking.default_rating,
            bot=True,
            worker=worker_id,
            level=seat.level,
        )
        await self.store.put_session(seat.token_hash, encode_session(record))

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
            worker = self.workers.get(session.worker)
            if worker is None:  # a server restart: the worker has not come back yet
                worker = self.workers[session.worker] = Worker(
                    session.worker, None, lost_at=time.monotonic()
                )
            self._hold(worker, seat)
        seat.token_hash = hashed
        seat.away_since = None
        seat.connected_once = True
        seat.restored_at = None

    def _tracked(self, player: str) -> AiSeat | None:
        owner = self.owner.get(player)
        worker = None if owner is None else self.workers.get(owner)
        seat = None if worker is None else worker.held.get(player)
        return seat or self.orphans.get(player)

    def seat_offline(self, player: str) -> None:
        """No connection to this instance plays an AI seat any more (its room already
        shows it offline): hand it over after the lease, or release it if its games
        are over."""
        seat = self._tracked(player)
        if seat is not None:
            seat.away_since = time.monotonic()
            self._wakeup.set()

    async def _seat_rooms(self, player: str) -> list[tuple[str, Seat]]:
        """The running games the AI seat plays, and its seat in each (with the presence
        every server instance sees)."""
        places = []
        for room_id in await self.store.player_rooms(player):
            loaded = await self.service.load(room_id)
            if loaded is None or loaded[1].state not in LIVE_STATES:
                continue
            room = loaded[1]
            index = room.seat_of(player)
            seat = None if index is None else room.seats[index]
            if seat is not None:
                places.append((room_id, seat))
        return places

    async def _release(self, seat: AiSeat) -> None:
        """The seat's games are over and its connection is gone: forget it."""
        self._drop(seat.player)
        await self.store.delete_session(seat.token_hash)
        await self.store.drop_ai_seat(seat.player)
        log.info("AI seat %s released", seat.player)

    async def _hand_over(self, seat: AiSeat, rooms: list[str]) -> bool:
        """Give a seat whose worker is gone to another worker (a new token; the old
        one stops working and its connections are closed). False if none is free:
        the seat waits among the orphans for the next try; or if another server
        instance handed it over first: it is that instance's now."""
        worker = self.pick(seat.level) or self.pick(seat.level, any_level=True)
        self._drop(seat.player)
        if worker is None:
            self.orphans[seat.player] = seat
            return False
        old_hash, known = seat.token_hash, seat.record()
        token = new_token()
        record = SeatRecord(token_hash(token), worker.id, seat.name, seat.level)
        if not await self.store.put_ai_seat(
            seat.player, msgspec.msgpack.encode(record), replacing=known
        ):
            log.info("AI seat %s was handed over by another server instance", seat.player)
            return False
        seat.token_hash = record.token_hash
        seat.away_since = time.monotonic()
        seat.connected_once = False
        seat.restored_at = None
        self._hold(worker, seat)
        await self._store_session(seat, worker.id)
        await self.store.delete_session(old_hash)
        await self.store.publish_player(
            seat.player, encode_notice(Notice(kind="revoke", room=rooms[0], token=old_hash))
        )
        self.metrics.inc("gomoku_ai_handovers_total")
        log.info("AI seat %s in room %s handed over to worker %s", seat.player, rooms[0], worker.id)
        self.dispatch(Claim(worker, seat, token), rooms[0])
        return True

    # -- the watchdog ----------------------------------------------------------------

    async def watch(self) -> None:
        """Learn the AI seats in play from the store (once it answers), then close
        silent workers, expire leases, hand over or release seats."""
        tick = max(0.02, min(self.settings.heartbeat_ms, self.settings.lease_ms) / 4000)
        restored = False
        while True:
            if not restored:
                try:
                    await self.restore()
                    restored = True
                except StoreUnavailable as error:
                    log.warning("cannot load the AI seats in play yet: %s", error)
                except Exception:
                    self.metrics.inc("gomoku_errors_internal_total")
                    log.exception("loading the AI seats in play failed")
                    restored = True  # a bug, not an outage: do not try every tick
            try:
                await self.check()
            except Exception:
                self.metrics.inc("gomoku_errors_internal_total")
                log.exception("AI watchdog failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), tick)
            self._wakeup.clear()

    async def restore(self) -> None:
        """Hold every AI seat the store records as in play and this registry does not
        know yet (a restart), for its worker, as if the worker's connection had just
        gone: the worker gets one lease to come back before the seat is judged."""
        now = time.monotonic()
        restored = 0
        for player, data in (await self.store.ai_seats()).items():
            if self._tracked(player) is not None:
                continue  # it said hello before we got here
            try:
                record = _record_decoder.decode(data)
            except msgspec.DecodeError:
                log.warning("AI seat %s: unreadable record in the store; forgotten", player)
                await self.store.drop_ai_seat(player)
                continue
            seat = AiSeat(player, record.name, record.level, record.token_hash)
            seat.away_since = seat.restored_at = now
            worker = self.workers.get(record.worker)
            if worker is None:
                worker = self.workers[record.worker] = Worker(record.worker, None, lost_at=now)
            self._hold(worker, seat)
            restored += 1
        if restored:
            log.info(
                "%d AI seats in play loaded from the store; their workers may return", restored
            )
        self._wakeup.set()

    async def check(self) -> None:
        now = time.monotonic()
        lease = self.settings.lease_ms / 1000
        silent = SILENT_HEARTBEATS * self.settings.heartbeat_ms / 1000
        for worker in list(self.workers.values()):
            if worker.link is not None and now - worker.last_seen > silent:
                log.warning("AI worker %s missed its heartbeats; closing it", worker.id)
                worker.link.close(1008, "missed heartbeats")
                self.link_closed(worker.id, worker.link)
            if worker.link is None and worker.lost_at is not None and now - worker.lost_at > lease:
                for seat in worker.held.values():
                    self.owner.pop(seat.player, None)
                    self.orphans[seat.player] = seat
                del self.workers[worker.id]
                log.info("AI worker %s did not come back", worker.id)
        for worker in list(self.workers.values()):
            for seat in list(worker.held.values()):
                await self._judge(seat, worker)
        for seat in list(self.orphans.values()):
            await self._judge(seat, None)

    async def _judge(self, seat: AiSeat, worker: Worker | None) -> None:
        """Keep, release, forget or hand over one AI seat.

        A seat is handed over when it has running games and nobody plays it: it never
        connected within the lease after it was given out, or its room has shown it
        offline for longer than the lease (the room's presence is what every server
        instance sees, so a seat that reconnected through another instance is left to
        that instance and forgotten here).

        A seat loaded from the store at start-up is not judged before one lease has
        passed (its worker may reconnect after the restart), and its room's "online"
        is not believed if it has not said hello since the latest outage."""
        if seat.away_since is None and worker is not None:
            return  # connected here, and its worker is known
        lease_s = self.settings.lease_ms / 1000
        if seat.restored_at is not None and time.monotonic() - seat.restored_at <= lease_s:
            return  # loaded at start-up: its worker may yet come back
        places = await self._seat_rooms(seat.player)
        if not places:
            if seat.away_since is not None:
                await self._release(seat)  # its games are over and it has left
            return
        if seat.away_since is None:
            return  # an orphan still connected here: its worker may come back
        seen_ms = None
        if not seat.connected_once or seat.restored_at is not None:
            # Not here; perhaps through another server instance.
            data = await self.store.get_session(seat.token_hash)
            seen_ms = None if data is None else decode_session(data).seen_ms
            seat.connected_once = seen_ms is not None
        if seat.connected_once:
            in_room = places[0][1]
            if in_room.online:
                if not self._online_is_stale(seat, seen_ms):
                    self._drop(seat.player)
                    log.info("AI seat %s plays through another server instance", seat.player)
                    return
            else:
                wall = now_ms()
                if wall - (in_room.offline_since_ms or wall) <= self.settings.lease_ms:
                    return
        elif time.monotonic() - seat.away_since <= lease_s:
            return
        if worker is not None and worker.link is not None:
            worker.link.send(
                m.BotRelease(
                    player=seat.player, reason="nobody played the seat; another worker takes it"
                )
            )
        await self._hand_over(seat, [room for room, _ in places])

    def _online_is_stale(self, seat: AiSeat, seen_ms: int | None) -> bool:
        """Whether a seat loaded at start-up shows "online" in its room only because the
        server that served it was killed: it has not said hello since the latest outage
        (when no instance ran, so no connection survived)."""
        outage = self.service.outage
        return (
            seat.restored_at is not None
            and outage is not None
            and seen_ms is not None
            and seen_ms < outage.end_ms
        )

    # -- hints -------------------------------------------------------------------------

    async def hint(self, room: Room) -> tuple[str, str]:
        """Ask the least busy worker for the best move in ``room``; (point, reason).
        Raises GameError ``no_ai_available`` when none is connected or answers in time."""
        worker = self.pick(None, any_level=True) or next(iter(self.live_workers()), None)
        if worker is None or worker.link is None:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "no AI worker is connected to give hints")
        request = next(self._hint_ids)
        future: asyncio.Future[tuple[str | None, str]] = asyncio.get_running_loop().create_future()
        self._hints[request] = (future, worker.id)
        worker.link.send(
            m.HintRequest(
                request=request,
                room=room.id,
                rule=room.rule,
                size=room.size,
                moves=list(room.moves),
                time_ms=self.settings.hint_ms,
            )
        )
        try:
            point, reason = await asyncio.wait_for(future, self.settings.hint_timeout_ms / 1000)
        except TimeoutError:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "no AI answered in time") from None
        finally:
            self._hints.pop(request, None)
        if point is None:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, reason or "the AI found no move")
        self.metrics.inc("gomoku_hints_total")
        return point, reason

    def hint_result(self, worker_id: str, result: m.HintResult) -> None:
        pending = self._hints.get(result.request)
        if pending is None or pending[1] != worker_id or pending[0].done():
            return  # late, or not this worker's request
        pending[0].set_result((result.point, result.reason))

    # -- rooms with AI seats ---------------------------------------------------------------

    async def ai_room(
        self,
        *,
        levels: Sequence[str | None],
        people: Sequence[Seat],
        rule: Rule,
        size: int,
        opening: Opening,
        time_control: TimeControl | None,
        private: bool,
        code: str | None,
        room_id: str | None = None,
        owner: str | None = None,
    ) -> Room:
        """A new unrated room, already started, with an AI for each of ``levels`` and
        ``people`` in the other seats (colours drawn at random when a person plays);
        ``owner`` is the player it counts against (see ``Room.owner``). Raises
        ``no_ai_available`` (nothing created)."""
        claims: list[Claim] = []
        try:
            for level in levels:
                claims.append(await self.claim(level))
        except GameError:
            for claim in claims:
                await self.cancel(claim)
            raise
        seats = [c.seat.seat() for c in claims] + list(people)
        if people:
            random.shuffle(seats)
        settings = game.RoomSettings(
            rule=rule,
            size=size,
            opening=opening,
            time=time_control,
            rated=False,
            private=private,
            code=code,
        )
        wanted: tuple[Literal["black", "white"], ...] = ("black", "white")
        try:
            room = await self.service.open(
                room_id or new_room_id(),
                settings,
                seats=list(zip(seats, wanted, strict=True)),
                owner=owner,
            )
        except BaseException:
            for claim in claims:
                await self.cancel(claim)
            raise
        for claim in claims:
            self.dispatch(claim, room.id)
        return room

    async def seat_in(self, room_id: str, requester: str, level: str | None) -> None:
        """Seat an AI in the free seat of a room ``requester`` sits in (their request)."""
        loaded = await self.service.load(room_id)
        if loaded is None:
            raise GameError(ErrorCode.NO_SUCH_ROOM, "no such room")
        _check_ai_seat(loaded[1], requester)
        claim = await self.claim(level)

        def join(room: Room) -> game.GameAction:
            _check_ai_seat(room, requester)
            return game.Join(claim.seat.seat())

        try:
            outcome, _ = await self.service.act(room_id, join)
        except BaseException:
            await self.cancel(claim)
            raise
        if outcome.error is not None:
            await self.cancel(claim)
            raise outcome.error
        self.dispatch(claim, room_id)

    async def close(self) -> None:
        for future, _ in self._hints.values():
            if not future.done():
                future.set_result((None, "the server is shutting down"))
        self._hints.clear()


def _check_ai_seat(room: Room, requester: str) -> None:
    if room.seat_of(requester) is None:
        raise GameError(ErrorCode.NOT_IN_ROOM, "sit in the room before asking for an AI")
    if room.rated:
        raise GameError(ErrorCode.AI_NOT_ALLOWED, "rated games are for people; no AI seats")
    if room.state != "waiting" or all(s is not None for s in room.seats):
        raise GameError(ErrorCode.ROOM_FULL, "there is no free seat for an AI")
