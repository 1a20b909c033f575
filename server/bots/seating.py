"""Seating AIs through the shared AI pool: a seat claimed within the capacity of every
worker of the cluster (one atomic step in the store), its session stored, the seat taken
in the room by the server itself (so it is never lost to a race), and a job put in the
pool's queue for its level (:meth:`AiSeating.dispatch`). Whichever instance has a worker
with a free seat at that level takes the job (:mod:`server.bots.taker`) and tells its
worker to play it (:meth:`AiSeating.take`: ``bot_seat`` with the seat's token; the worker
plays over a connection of its own with the ordinary messages). Rooms made with AIs in
them (``create_ai_game``, the quick match's fallback) and an AI in a room's free seat
(``seat_ai``) both come here."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence

import msgspec

from protocol import messages as m
from protocol.errors import ErrorCode
from server import game
from server.bots import jobs
from server.bots.capacity import held_by, room_for
from server.bots.registry import AiSeat, SeatRecord, Worker, WorkerRegistry, ai_name
from server.config import ServerConfig
from server.game import GameError
from server.room import Room, Seat
from server.service import RoomService, as_colours, now_ms
from server.sessions import (
    SessionRecord,
    encode_session,
    new_player_id,
    new_room_id,
    new_token,
    token_hash,
)
from server.store import Store

log = logging.getLogger("gomoku.server")


@dataclasses.dataclass
class Claim:
    """A reserved AI seat and the token its worker will use; dispatch or cancel it."""

    seat: AiSeat
    token: str


class AllBusy(GameError):
    """``no_ai_available`` when the workers play the level but have no seat free."""

    def __init__(self) -> None:
        super().__init__(ErrorCode.NO_AI_AVAILABLE, "every AI is busy; try again in a moment")


def worker_record(worker: Worker, instance: str) -> jobs.WorkerRecord:
    """A live worker of this instance as the cluster sees it (``instance`` is its own)."""
    return jobs.WorkerRecord(instance, worker.seats, list(worker.levels), worker.busy, worker.name)


async def cluster_workers(store: Store) -> dict[str, jobs.WorkerRecord]:
    """Every AI worker connected to any instance, as published (unreadable records are
    left out)."""
    return jobs.decode_records(await store.workers(now_ms()), jobs.WorkerRecord)


class AiSeating:
    """Claims AI seats within the cluster's capacity, seats them in rooms, puts them in
    the pool, and gives the ones this instance takes to its workers."""

    def __init__(
        self, registry: WorkerRegistry, store: Store, service: RoomService, config: ServerConfig
    ) -> None:
        self.registry = registry
        self.store = store
        self.service = service
        self.config = config

    def own_workers(self) -> dict[str, jobs.WorkerRecord]:
        """This instance's live workers as the cluster's records would list them: the
        records lapse in a store outage (3 heartbeats) and are written again within a
        second or so of its end; meanwhile "no AI worker is connected" was untrue."""
        return {w.id: worker_record(w, "") for w in self.registry.live_workers()}

    async def playing(
        self, levels: Sequence[str | None]
    ) -> tuple[dict[str, jobs.WorkerRecord], list[str]]:
        """The cluster's workers, and the level each of ``levels`` names (None: the
        default). Raises GameError ``no_ai_available`` when no worker plays one of them:
        asked before a player's share is counted, so a level nobody plays is said as
        such, not as the share being full."""
        workers = await cluster_workers(self.store) or self.own_workers()
        offered = sorted({lv for record in workers.values() for lv in record.levels})
        if not workers:
            raise GameError(ErrorCode.NO_AI_AVAILABLE, "no AI worker is connected to this server")
        wanted = [level or self.default_level(offered) for level in levels]
        for name in wanted:
            if name not in offered:
                text = f"no AI plays level {name!r}; available: {', '.join(offered)}"
                raise GameError(ErrorCode.NO_AI_AVAILABLE, text)
        return workers, wanted

    async def claim(self, level: str | None) -> Claim:
        """Reserve a seat for ``level`` within the capacity of every worker of the
        cluster, and store its session (no worker yet: whoever takes its job).
        Raises GameError ``no_ai_available``."""
        workers, (wanted,) = await self.playing([level])
        if not room_for(wanted, (await self.seats_in_play()).values(), workers):
            raise AllBusy  # (seats are free, but not with a worker offering this level)
        capacity = sum(record.seats for record in workers.values())
        token = new_token()
        seat = AiSeat(new_player_id(), ai_name(wanted), wanted, token_hash(token))
        await self.store_session(seat, "")
        try:
            fits = await self.store.put_ai_seat(seat.player, seat.record(), within=capacity)
        except BaseException:
            await self.store.delete_session(seat.token_hash)
            raise
        if not fits:
            await self.store.delete_session(seat.token_hash)
            raise AllBusy
        return Claim(seat, token)

    async def seats_in_play(self) -> dict[str, SeatRecord]:
        """Every AI seat of the cluster (player id -> its record), from the store."""
        return jobs.decode_records(await self.store.ai_seats(), SeatRecord)

    async def count_held(self) -> None:
        """Bring each worker's count of seats held up to date from the store."""
        self.registry.note_stored(held_by((await self.seats_in_play()).values()))

    def default_level(self, offered: Sequence[str]) -> str:
        """The level of an AI asked for without one: the configured one if some worker
        plays it, else the first offered."""
        default = self.config.bots.default_level
        return default if default in offered or not offered else offered[0]

    async def cancel(self, claim: Claim) -> None:
        """Undo a claim whose seat could not be taken."""
        await self.store.delete_session(claim.seat.token_hash)
        await self.store.drop_ai_seat(claim.seat.player)

    async def dispatch(self, claim: Claim, room_id: str) -> None:
        """Put the seat in the pool: a worker of any instance takes it."""
        seat = claim.seat
        job = jobs.SeatJob(seat.player, claim.token, seat.name, room_id, seat.level)
        await self.store.pool_put(jobs.seat_queue(seat.level), jobs.encode(job))
        log.info("room %s: AI seat %s (%s) waits for a worker", room_id, seat.player, seat.level)

    async def take(self, job: jobs.SeatJob) -> bool:
        """Give a seat from the pool to the best worker of this instance. False if none
        has a free seat at its level (the job goes back for another instance); True when
        the job is done with: given to a worker, or found out of date (released, or
        handed over since: its token no longer works)."""
        registry = self.registry
        await self.count_held()  # seats played through another instance count too
        worker = registry.pick(job.level)
        if worker is None or worker.link is None:
            return False
        hashed = token_hash(job.token)
        if await self.store.get_session(hashed) is None:
            log.info("AI seat %s: its job is out of date; dropped", job.player)
            return True
        loaded = await self.service.load(job.room)
        if loaded is None or loaded[1].state == "over":
            # The game ended (or the room went) while the seat waited: nothing to play.
            await self.store.delete_session(hashed)
            if await self.store.drop_ai_seat(job.player):
                log.info("room %s: game over; AI seat %s released", job.room, job.player)
            return True
        seat = AiSeat(job.player, job.name, job.level, hashed)
        waiting = SeatRecord(hashed, "", job.name, job.level)
        taken = SeatRecord(hashed, worker.id, job.name, job.level)
        if not await self.store.put_ai_seat(
            job.player, msgspec.msgpack.encode(taken), replacing=msgspec.msgpack.encode(waiting)
        ):
            log.info("AI seat %s: taken or handed over already; job dropped", job.player)
            return True
        seat.away_since = time.monotonic()  # until its connection says hello
        registry.hold(worker, seat)
        await self.store_session(seat, worker.id)
        if worker.link is not None:  # if it just went, its lease hands the seat on later
            worker.link.send(
                m.BotSeat(
                    player=seat.player,
                    token=job.token,
                    name=seat.name,
                    room=job.room,
                    level=seat.level,
                )
            )
        log.info(
            "AI seat %s (%s) in room %s goes to worker %s",
            seat.player,
            seat.level,
            job.room,
            worker.id,
        )
        return True

    async def store_session(self, seat: AiSeat, worker_id: str) -> None:
        """Store the seat's session under its current token's hash."""
        record = SessionRecord(
            player=seat.player,
            name=seat.name,
            rating=self.config.matchmaking.default_rating,
            bot=True,
            worker=worker_id,
            level=seat.level,
        )
        await self.store.put_session(seat.token_hash, encode_session(record))

    async def check_share(self, player: str, wanted: int) -> None:
        """Refuse ``wanted`` more AI seats for ``player`` beyond their share
        (``max_ai_per_player``): the AIs of the unfinished games they are in (a game they
        left is not counted: its AI claims the win after the grace period) and of the
        AI-vs-AI games they started. Raises ``too_many_ai``."""
        cap = self.config.limits.max_ai_per_player
        if not cap:
            return
        ids = [*await self.store.player_rooms(player), *await self.store.owned_rooms(player)]
        held = 0
        for room in await self.service.unfinished(ids):
            mine = room.seats[seat] if (seat := room.seat_of(player)) is not None else None
            if mine is None or mine.online:
                held += sum(1 for s in room.seats if s is not None and s.bot)
        if held + wanted > cap:
            raise GameError(
                ErrorCode.TOO_MANY_AI,
                f"you have {held} AI{'' if held == 1 else 's'} playing already, and one player "
                f"may have {cap} at once (there are few, and others want one too): finish "
                "a game with one first",
            )

    async def ai_room(
        self,
        settings: game.RoomSettings,
        *,
        levels: Sequence[str | None],
        people: Sequence[Seat],
        room_id: str | None = None,
        owner: str | None = None,
    ) -> Room:
        """A new room made with ``settings`` but never rated, already started, with an AI
        for each of ``levels`` and ``people`` in the other seats (colours drawn at random
        when a person plays); ``owner`` is the player it counts against (see
        ``Room.owner``). Raises ``no_ai_available`` (nothing created), or ``too_many_ai``
        when the AIs would be more than the owner's or the person's share."""
        await self.playing(levels)
        for player in {owner, *(seat.id for seat in people)} - {None}:
            assert player is not None
            await self.check_share(player, len(levels))
        claims: list[Claim] = []
        try:
            for level in levels:
                claims.append(await self.claim(level))
        except GameError as refused:
            for claim in claims:
                await self.cancel(claim)
            if claims and isinstance(refused, AllBusy):  # a seat was free, not all of them
                raise GameError(
                    ErrorCode.NO_AI_AVAILABLE,
                    f"an AI-vs-AI game needs {len(levels)} free AI seats; fewer are free now",
                ) from None
            raise
        black, white = [c.seat.seat() for c in claims] + list(people)
        try:
            room = await self.service.open(
                room_id or new_room_id(),
                dataclasses.replace(settings, rated=False),
                seats=as_colours(black, white, drawn=bool(people)),
                owner=owner,
            )
        except BaseException:
            for claim in claims:
                await self.cancel(claim)
            raise
        for claim in claims:
            await self.dispatch(claim, room.id)
        return room

    async def seat_in(self, room_id: str, requester: str, level: str | None) -> None:
        """Seat an AI in the free seat of a room ``requester`` sits in (their request)."""
        loaded = await self.service.load(room_id)
        if loaded is None:
            raise GameError(ErrorCode.NO_SUCH_ROOM, "no such room")
        _check_ai_seat(loaded[1], requester)
        await self.playing([level])
        await self.check_share(requester, 1)
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
        await self.dispatch(claim, room_id)


def _check_ai_seat(room: Room, requester: str) -> None:
    if room.seat_of(requester) is None:
        raise GameError(ErrorCode.NOT_IN_ROOM, "sit in the room before asking for an AI")
    if room.rated:
        raise GameError(ErrorCode.AI_NOT_ALLOWED, "rated games are for people; no AI seats")
    if room.state != "waiting" or all(s is not None for s in room.seats):
        raise GameError(ErrorCode.ROOM_FULL, "there is no free seat for an AI")
