"""The AIs one player may have playing at once: the seats are few (4 a worker by
default), and in a classroom one student who opened several rooms took every free one."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from server_fixtures import Connect
from worker_fixtures import ai_config, worker_on

from protocol import messages as m
from protocol.events import GameOver, GameStarted
from server.app import GomokuServer
from worker.thinker import Thinker


@pytest.fixture
async def six_seats(
    make_server: Callable[..., Awaitable[GomokuServer]], thinker: Thinker
) -> AsyncIterator[GomokuServer]:
    """A server allowing 2 AIs a player, with a worker of 6 seats connected."""
    server = await make_server(ai_config())  # the default share: 2
    async with worker_on(server, thinker, seats=6):
        yield server


async def test_a_player_gets_two_ais_at_once_and_more_once_one_game_ends(
    six_seats: GomokuServer, connect: Connect
) -> None:
    """ann gets an AI in two rooms; a third, or an AI-vs-AI game, is refused with
    too_many_ai though seats are free (bob still gets one), but a level no worker plays
    is said as that; once one of her games is over she gets the third."""
    ann = await connect("ann", to=six_seats)
    rooms = [(await ann.create(seat="black")).room.id for _ in range(3)]
    for room in rooms[:2]:
        await ann.send(m.SeatAi(room=room, level="beginner"))
        await ann.until_event(GameStarted)
    await ann.send(m.SeatAi(room=rooms[2], level="beginner", id=7))
    refused = await ann.expect_error("too_many_ai")
    assert refused.message.startswith("you have 2 AIs playing already")
    await ann.send(m.CreateAiGame(black="beginner", white="beginner", id=8))
    await ann.expect_error("too_many_ai")
    for unknown in (m.SeatAi(room=rooms[2], level="grandmaster"), m.CreateAiGame(white="zz")):
        await ann.send(unknown)
        assert "no AI plays level" in (await ann.expect_error("no_ai_available")).message
    bob = await connect("bob", to=six_seats)
    theirs = (await bob.create(seat="black")).room.id
    await bob.send(m.SeatAi(room=theirs, level="beginner"))
    await bob.until_event(GameStarted)
    await ann.send(m.Resign(room=rooms[0]))
    await ann.until_event(GameOver)
    await ann.send(m.SeatAi(room=rooms[2], level="beginner"))
    await ann.until_event(GameStarted)
