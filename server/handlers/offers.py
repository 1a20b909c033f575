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
    await session.attach_seated(msg.room)  # an answer is an action, as an offer is
    rematch_id = new_room_id()
    code = None
    if msg.kind == "rematch" and msg.accept:
        loaded = await session.services.rooms.load(msg.room)
        if loaded is not None and loaded[1].private:  # its rematch is private: a code of its own
            code = await reserve_invite(session, rematch_id)
    outcome, _ = await session.services.rooms.act(
        msg.room, game.Answer(session.player, msg.kind, msg.accept, rematch_id, code)
    )
    if outcome.error is not None:
        raise outcome.error
    if outcome.spawn is not None:
        for seat in outcome.spawn.seats:
            if seat is not None:
                notice = encode_notice(Notice(kind="watch", room=outcome.spawn.id))
                await session.services.store.publish_player(seat.id, notice)
