"""The game: ``move``, ``choose`` (swap2), ``resign`` and ``claim`` (the win against an
opponent gone past the grace period), each a room action of the player."""

from __future__ import annotations

from protocol import messages as m
from server import game
from server.handlers.base import Session


async def on_move(session: Session, msg: m.Move) -> None:
    move = game.Move(session.player, msg.point, msg.move_no, lag_ms=session.lag_ms())
    await session.act(msg.room, move)


async def on_choose(session: Session, msg: m.Choose) -> None:
    await session.act(msg.room, game.Choose(session.player, msg.choice, lag_ms=session.lag_ms()))


async def on_resign(session: Session, msg: m.Resign) -> None:
    await session.act(msg.room, game.Resign(session.player))


async def on_claim(session: Session, msg: m.Claim) -> None:
    await session.act(msg.room, game.Claim(session.player))
