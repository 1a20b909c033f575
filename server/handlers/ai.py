"""The AI for players: ``seat_ai`` (an AI in the free seat of the player's room),
``create_ai_game`` (AI against AI, to watch) and ``hint`` (the AI's move for the side to
move, in an unrated game)."""

from __future__ import annotations

import logging

from protocol import messages as m
from protocol.errors import ErrorCode
from server.handlers.base import Refused, Session, refuse_ai_seat
from server.handlers.rooms import owned_room
from server.room import Room
from server.service import NoSuchRoom, now_ms

log = logging.getLogger("gomoku.server")


async def on_seat_ai(session: Session, msg: m.SeatAi) -> None:
    refuse_ai_seat(session, "seating an AI")
    await session.services.ai.seat_in(msg.room, session.player, msg.level)


async def on_create_ai_game(session: Session, msg: m.CreateAiGame) -> None:
    refuse_ai_seat(session, "a game of its own")
    async with owned_room(session, msg) as (room_id, settings):
        room = await session.services.ai.ai_room(
            settings,
            levels=[msg.black, msg.white],
            people=[],
            room_id=room_id,
            owner=session.player,
        )
    log.info("room %s: AI game created by %s", room.id, session.player)
    await session.attach(room.id)  # as a spectator
    await session.sync_room(room.id, None, re=msg.id)


async def on_hint(session: Session, msg: m.Hint) -> None:
    loaded = await session.services.rooms.load(msg.room)
    if loaded is None:
        raise NoSuchRoom(msg.room)
    record, room = loaded
    if room.seat_of(session.player) is None and msg.room not in session.attached:
        raise Refused(ErrorCode.NOT_IN_ROOM, "join the room before asking for a hint")
    if room.rated:
        raise Refused(ErrorCode.HINT_NOT_ALLOWED, "no hints in a rated game")
    if room.swap2_view() is not None:  # a hint is the strongest stone: the wrong advice
        raise Refused(  # for stones placed to leave the choice balanced
            ErrorCode.WRONG_PHASE, "no hints in the swap2 opening: it is placed to be balanced"
        )
    if room.view(record.seq, now_ms(), 0, viewer=None).to_move is None:
        raise Refused(ErrorCode.WRONG_PHASE, "there is no stone to place right now")
    if session.hint_pending:
        raise Refused(ErrorCode.THROTTLED, "wait for the answer to your last hint")
    session.hint_pending = True
    # The AI may take seconds: the player's next messages (a move, on their own clock)
    # are handled meanwhile, and a second hint is refused until this one is answered.
    session.answer_later(msg, _suggest(session, msg, room))


async def _suggest(session: Session, msg: m.Hint, room: Room) -> None:
    try:
        point, reason = await session.services.hints.hint(room)
    finally:
        session.hint_pending = False
    session.send(
        m.Suggestion(room=room.id, point=point, reason=reason, move_no=len(room.moves), re=msg.id)
    )
