"""``chat``: a line in a room the player is in, within their chat flood limit; logged
apart from the game record, so it never competes with a move."""

from __future__ import annotations

from protocol import messages as m
from protocol.errors import ErrorCode
from protocol.events import ChatPosted
from server.handlers.base import Refused, Session, seconds
from server.service import NoSuchRoom, now_ms


async def on_chat(session: Session, msg: m.Chat) -> None:
    window = session.services.players.chat_window(session.player)
    now = now_ms()
    if not window.take(now):
        wait_s = max(1, -(-window.wait_ms(now) // 1000))  # whole seconds, rounded up
        raise Refused(
            ErrorCode.CHAT_RATE_LIMITED,
            f"too many chat lines: {window.limit} in {window.window_ms // 1000} s at most; "
            f"the next in {wait_s} s",
        )
    address = session.services.chat_lines
    if wait := address.wait_ms(session.limit_key, now):
        raise Refused(
            ErrorCode.CHAT_RATE_LIMITED,
            f"too many chat lines from your address: {address.limit} in "
            f"{address.window_ms // 1000} s at most; the next in {seconds(wait)} s",
        )
    address.add(session.limit_key, now)
    assert session.identity is not None
    await session.attach_seated(msg.room)
    if msg.room not in session.attached:
        if await session.services.rooms.load(msg.room) is None:
            raise NoSuchRoom(msg.room)
        raise Refused(ErrorCode.NOT_IN_ROOM, "join the room before chatting in it")
    line = ChatPosted(
        player=session.player, name=await _name_here(session, msg.room), text=msg.text
    )
    await session.services.rooms.chat(msg.room, line)


async def _name_here(session: Session, room_id: str) -> str:
    """The name the player's lines go under in the room: a seated player's as their seat
    shows it (a player who came back under another name, another player's say, spoke
    under it beside the seat's name), anyone else's as they said hello."""
    assert session.identity is not None
    loaded = await session.services.rooms.load(room_id)
    if loaded is not None:
        for seat in loaded[1].seats:
            if seat is not None and seat.id == session.player:
                return seat.name
    return session.identity.name
