"""The room service over the memory store: the rooms it hands out stay as they were
read, whatever is done to the room afterwards (the service gives the same object to
every reader and to the next action as its room before)."""

from __future__ import annotations

import pytest

from engine import Rule
from server import game
from server.config import ServerConfig
from server.metrics import Metrics
from server.room import Room, Seat, encode_room
from server.service import RoomService
from server.store.memory import MemoryStore

A, B = "p-a", "p-b"


async def _loaded(service: RoomService, room_id: str) -> Room:
    loaded = await service.load(room_id)
    assert loaded is not None
    return loaded[1]


async def test_a_loaded_room_is_not_changed_by_the_actions_that_follow() -> None:
    """Moves, a refused move, a takeback and a resignation leave every room loaded
    before them as it was loaded (its stones, their times, seats and clocks)."""
    service = RoomService(MemoryStore(), ServerConfig(), Metrics())
    room = await service.open(
        "r-1",
        game.RoomSettings(rule=Rule.FREESTYLE),
        seats=[(Seat(id=A, name="a"), "black"), (Seat(id=B, name="b"), "white")],
    )
    seen: list[tuple[Room, bytes]] = []

    async def look() -> None:
        loaded = await _loaded(service, room.id)
        seen.append((loaded, encode_room(loaded)))

    actions: list[game.GameAction] = [
        game.Move(A, "h8"),
        game.Move(B, "a1"),
        game.Move(A, "h9"),
        game.Offer(B, "takeback"),
        game.Answer(A, "takeback", True),
        game.Move(B, "a2"),
        game.Resign(A),
    ]
    for action in actions:
        await look()
        await service.act(room.id, action)
    await look()
    with pytest.raises(game.GameError):
        await service.act(room.id, game.Move(B, "a3"))  # the game is over
    for loaded, as_read in seen:
        assert encode_room(loaded) == as_read
    final = seen[-1][0]
    assert final.moves == ["h8", "a2"]  # the takeback took back a1 and h9
    assert len(final.move_ms) == 2
