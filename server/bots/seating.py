"""Seating AIs: a seat claimed on the best worker, its session stored, the seat taken in
the room by the server itself (so it is never lost to a race), and the worker told to
play it (``bot_seat`` with the seat's token; it plays over a connection of its own with
the ordinary messages). Rooms made with AIs in them (``create_ai_game``, the quick
match's fallback) and an AI in a room's free seat (``seat_ai``) both come here."""

from __future__ import annotations

import dataclasses
import logging
import random
import time
from collections.abc import Sequence
from typing import Literal

from protocol import messages as m
from protocol.errors import ErrorCode
from server import game
from server.bots.registry import AiSeat, Worker, WorkerRegistry, ai_name
from server.config import ServerConfig
from server.game import GameError
from server.room import Room, Seat
from server.service import RoomService
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

    worker: Worker
    seat: AiSeat
    token: str


class AiSeating:
    """Claims AI seats on this instance's workers and seats them in rooms."""

    def __init__(
        self, registry: WorkerRegistry, store: Store, service: RoomService, config: ServerConfig
    ) -> None:
        self.registry = registry
        self.store = store
        self.service = service
        self.config = config

    async def claim(self, level: str | None) -> Claim:
        """Reserve a seat on the best worker for ``level`` and store its session.
        Raises GameError ``no_ai_available``."""
        registry = self.registry
        wanted = level or registry.default_level()
        worker = registry.pick(wanted)
        if worker is None:
            raise registry.unavailable(wanted)
        token = new_token()
        seat = AiSeat(new_player_id(), ai_name(wanted), wanted, token_hash(token))
        seat.away_since = time.monotonic()  # until its connection says hello
        registry.hold(worker, seat)
        try:
            await self.store_session(seat, worker.id)
            await self.store.put_ai_seat(seat.player, seat.record())
        except BaseException:
            registry.drop(seat.player)
            raise
        return Claim(worker, seat, token)

    async def cancel(self, claim: Claim) -> None:
        """Undo a claim whose seat could not be taken."""
        self.registry.drop(claim.seat.player)
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
        ``Room.owner``). Raises ``no_ai_available`` (nothing created)."""
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
        wanted: tuple[Literal["black", "white"], ...] = ("black", "white")
        try:
            room = await self.service.open(
                room_id or new_room_id(),
                dataclasses.replace(settings, rated=False),
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


def _check_ai_seat(room: Room, requester: str) -> None:
    if room.seat_of(requester) is None:
        raise GameError(ErrorCode.NOT_IN_ROOM, "sit in the room before asking for an AI")
    if room.rated:
        raise GameError(ErrorCode.AI_NOT_ALLOWED, "rated games are for people; no AI seats")
    if room.state != "waiting" or all(s is not None for s in room.seats):
        raise GameError(ErrorCode.ROOM_FULL, "there is no free seat for an AI")
