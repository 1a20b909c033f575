"""Rooms: ``create_room``, ``join`` (by id or invite code, as a player or a spectator),
``leave`` and ``resume``; a player's cap of open rooms and invite codes."""

from __future__ import annotations

import contextlib
import logging
import random
from collections.abc import AsyncIterator

from protocol import messages as m
from protocol.errors import ErrorCode
from server import game
from server.game import GameError
from server.handlers.base import Refused, Session, per_address, refuse_ai_seat, seconds
from server.handlers.lobby import give_up_queue
from server.room import LIVE_STATES, Room
from server.service import NoSuchRoom, now_ms
from server.sessions import invite_key, new_invite_code, new_room_id
from server.store import StoreUnavailable

log = logging.getLogger("gomoku.server")


ROOM_GONE = "the room is gone (it expired, or the server restarted): go back to the lobby"
"""The answer to a ``resume`` of a room the server no longer has (protocol.md)."""


async def on_create_room(session: Session, msg: m.CreateRoom) -> None:
    refuse_ai_seat(session, "a room of its own")
    service = session.services.rooms
    async with owned_room(session, msg) as (room_id, settings):
        seat = await session.rated_seat(msg.rule)
        wish = random.choice(("black", "white")) if msg.seat == "random" else msg.seat
        room = await service.open(room_id, settings, seats=[(seat, wish)], owner=session.player)
    log.info("room %s: created by %s (%s), %s", room.id, seat.name, session.player, room.rule)
    await session.attach(room.id)
    await session.sync_room(room.id, None, re=msg.id)
    await give_up_queue(session)


async def on_join(session: Session, msg: m.Join) -> None:
    room_id = await _resolve_room(session, msg.room, msg.code)
    loaded = await session.services.rooms.load(room_id)
    if loaded is None:
        raise NoSuchRoom(room_id)
    _, room = loaded
    if room.seat_of(session.player) is None:
        refuse_ai_seat(session, "another room")
        if room.private and msg.code is None and not await _admitted(session, room_id, room):
            private = "that room is private: join it by its invite code"
            raise Refused(ErrorCode.NO_SUCH_ROOM, private)
    service = session.services.rooms
    if msg.role == "player":
        if room.seat_of(session.player) is None:
            await _check_games(session)
        seat = await session.rated_seat(room.rule)
        await session.act(room_id, game.Join(seat), follow=False)  # the snapshot is below
    arrived = await session.attach(room_id)
    if msg.role == "player" and not arrived:  # a spectator who sat down is no longer one
        await service.announce_spectators(room_id)
    await session.sync_room(room_id, None, re=msg.id)
    if msg.role == "player" and room.seat_of(session.player) is None:  # sat down just now
        await give_up_queue(session)


async def _admitted(session: Session, room_id: str, room: Room) -> bool:
    """Whether the player may come into private ``room`` by its id, without the code:
    its creator, or a spectator already in it (this connection or another, as for
    ``resume``). Seated players are let in before this is asked."""
    if room.owner == session.player or room_id in session.attached:
        return True
    attendance = await session.services.store.attendance(room_id, [session.player])
    return attendance.attached(session.player) > 0


async def on_leave(session: Session, msg: m.Leave) -> None:
    service = session.services.rooms
    watching = msg.room in session.rooms or msg.room in session.attached
    loaded = await service.load(msg.room)
    state = None if loaded is None or loaded[1].seat_of(session.player) is None else loaded[1].state
    if not watching and state != "over":
        raise Refused(ErrorCode.NOT_IN_ROOM, "you are not watching that room")
    session.unwatch(msg.room)
    if state == "waiting":
        with contextlib.suppress(GameError, NoSuchRoom):  # before the game: give up the seat
            await service.act(msg.room, game.Leave(session.player))
    with contextlib.suppress(NoSuchRoom):
        await session.detach(msg.room)
    if state == "over":
        # Done with it (from any connection of theirs): ``welcome`` stops listing it. A
        # game not left is listed, so that a client launched later learns how it ended;
        # with the store unreachable it stays listed (and is said again at a launch).
        with contextlib.suppress(StoreUnavailable):
            await session.services.store.remove_player_room(session.player, msg.room)
    identity = session.identity
    if (
        identity is not None
        and identity.worker is not None
        and state in LIVE_STATES
        and not any(
            msg.room in c.attached for c in session.services.players.connections(session.player)
        )
    ):
        # An AI seat's connection that left its running game but stays open was "online"
        # to the watchdog for good: the game waited, and ended only by the player's claim.
        # Judged by its room's presence now, as a closed connection is: handed over after
        # the lease, unless it comes back (or plays through another instance).
        session.services.workers.seat_offline(session.player)
    session.send(m.Left(room=msg.room, re=msg.id))


async def on_resume(session: Session, msg: m.Resume) -> None:
    loaded = await session.services.rooms.load(msg.room, fresh=True)
    if loaded is None:  # expired, or lost when a server without Redis restarted
        raise Refused(ErrorCode.NO_SUCH_ROOM, ROOM_GONE)
    record, room = loaded
    if (
        room.private
        and room.seat_of(session.player) is None
        and not await _admitted(session, msg.room, room)
    ):
        raise Refused(ErrorCode.NOT_IN_ROOM, "you are not in that private room")
    if msg.after > record.seq:
        raise Refused(ErrorCode.BAD_VALUE, f"the room's log ends at seq {record.seq}")
    await session.attach(msg.room)
    after: int | None = msg.after
    if room.time is not None and room.state in LIVE_STATES and msg.after < record.seq:
        # The clocks of events replayed are those of when they happened, and a client
        # counted down from them as if they were now's: after a 45 s drop a player saw
        # 0:44 left and lost on time. The snapshot's are now's.
        after = None
    await session.sync_room(msg.room, after, re=msg.id)


@contextlib.asynccontextmanager
async def owned_room(
    session: Session, msg: m.CreateRoom | m.CreateAiGame
) -> AsyncIterator[tuple[str, game.RoomSettings]]:
    """The id and settings of a room the player asks for (with an invite code if it is
    private), counted against their cap of open rooms (``too_many_rooms`` if it is full,
    in the store, so on every instance); counted no more if the room is not created. The
    room's end or emptying releases it (``RoomService._after_commit``)."""
    per_address(session, session.services.new_rooms, "new rooms", now_ms())
    room_id = new_room_id()
    cap = session.services.config.limits.max_rooms_per_player
    store = session.services.store
    if not await store.add_owned_room(session.player, room_id, cap, now_ms()) and not (
        await _release_ended_rooms(session)
        and await store.add_owned_room(session.player, room_id, cap, now_ms())
    ):
        raise Refused(
            ErrorCode.TOO_MANY_ROOMS,
            f"you already have {cap} open rooms, the most one player may have; finish one "
            "first (a room counts until its game ends, or until everyone left it before "
            "it began)",
        )
    try:
        code = await reserve_invite(session, room_id) if msg.private else None
        yield (
            room_id,
            game.RoomSettings(
                rule=msg.rule,
                size=msg.size,
                opening=msg.opening,
                time=msg.time,
                rated=isinstance(msg, m.CreateRoom) and msg.rated,
                private=msg.private,
                code=code,
            ),
        )
    except Exception:
        with contextlib.suppress(StoreUnavailable):  # else forgotten once it proves gone
            await session.services.store.remove_owned_room(session.player, room_id)
        raise


async def _release_ended_rooms(session: Session) -> bool:
    """Take the player's rooms whose game is over off their count; True if there were
    any. A game's end releases its room just after the commit that ends it, so a player
    quick to create the next room (or an instance that died in between) gets here."""
    store = session.services.store
    released = False
    for room_id in await store.owned_rooms(session.player):
        loaded = await session.services.rooms.load(room_id, fresh=True)
        if loaded is not None and loaded[1].state == "over":
            await store.remove_owned_room(session.player, room_id)
            released = True
    return released


async def reserve_invite(session: Session, room_id: str) -> str:
    """A new invite code for a private room about to be created, mapped to it."""
    code = new_invite_code()
    while not await session.services.store.put_invite(invite_key(code), room_id):
        code = new_invite_code()  # pragma: no cover - a 31^9 collision
    return code


async def _resolve_room(session: Session, room: str | None, code: str | None) -> str:
    """The room a join names, by id or by invite code. Joins by code are refused unread
    while the connection or its address has had too many codes that led nowhere."""
    if room is not None:
        return room
    assert code is not None
    now = now_ms()
    by_address = session.services.code_failures
    wait = max(session.code_failures.wait_ms(now), by_address.wait_ms(session.limit_key, now))
    if wait:
        raise Refused(
            ErrorCode.RATE_LIMITED,
            f"too many invite codes that lead nowhere; try again in {seconds(wait)} s",
        )
    found = await session.services.store.get_invite(invite_key(code))
    if found is None:
        session.code_failures.add(now)
        by_address.add(session.limit_key, now)
        raise Refused(ErrorCode.NO_SUCH_ROOM, "no room has that invite code")
    return found


async def _check_games(session: Session) -> None:
    """Refuse a seat to a player already in the most unfinished games one may be in
    (``max_games_per_player``): one connection took the free seat of every room waiting
    in the lobby, and each of those games started with an opponent who never moved."""
    cap = session.services.config.limits.max_games_per_player
    if not cap:
        return
    rooms = await session.services.store.player_rooms(session.player)
    playing = len(await session.services.rooms.unfinished(rooms))
    if playing >= cap:
        raise Refused(
            ErrorCode.TOO_MANY_GAMES,
            f"you are in {playing} unfinished games, the most one player may be in; finish "
            "one first (or watch this one)",
        )
