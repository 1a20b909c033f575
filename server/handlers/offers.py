"""Offers: ``offer`` (draw, takeback, rematch) and ``answer``; an accepted rematch
opens the next room, and both players are told to follow it."""

from __future__ import annotations

from protocol import messages as m
from server import game
from server.handlers.base import Session
from server.handlers.rooms import reserve_invite
from server.notices import Notice, encode_notice
from server.sessions import new_room_id


async def on_offer(session: Session, msg: m.Offer) -> None:
    await session.act(msg.room, game.Offer(session.player, msg.kind))


async def on_answer(session: Session, msg: m.Answer) -> None:
    rematch_id = new_room_id()
    code = None
    if msg.kind == "rematch" and msg.accept:
        loaded = await session.services.rooms.load(msg.room)
        # Whether the room is private never changes, so the room as this instance last
        # saw it says; its rematch is private too, with an invite code of its own.
        if loaded is not None and loaded[1].private:
            code = await reserve_invite(session, rematch_id)
    answer = game.Answer(session.player, msg.kind, msg.accept, rematch_id, code)
    outcome = await session.act(msg.room, answer)
    if outcome.spawn is not None:
        for seat in outcome.spawn.seats:
            if seat is not None:
                notice = encode_notice(Notice(kind="watch", room=outcome.spawn.id))
                await session.services.store.publish_player(seat.id, notice)
