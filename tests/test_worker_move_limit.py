"""An AI worker against a person who stops playing in a game without a clock: past the
server's move limit the AI claims the win, so an idle person does not hold its seat."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from server_fixtures import Connect
from worker_fixtures import ai_config, worker_on

from engine import Rule
from engine.types import Reason
from protocol import messages as m
from protocol.events import ChatPosted, GameOver, GameStarted, Moved, Undone
from protocol.values import PlayerRef, RoomView, Seats
from server.app import GomokuServer
from server.game import GameRules
from worker.game import GameState
from worker.thinker import Thinker

LIMIT_MS = 1_500


@pytest.fixture
async def limited(
    make_server: Callable[..., Awaitable[GomokuServer]], thinker: Thinker
) -> AsyncIterator[GomokuServer]:
    """A server with a 1.5 s move limit and one AI worker connected to it."""
    rules = GameRules(grace_ms=60_000, untimed_move_ms=LIMIT_MS)
    server = await make_server(ai_config(game=rules))
    async with worker_on(server, thinker):
        yield server


async def test_a_person_who_stops_moving_loses_by_the_ais_claim(
    limited: GomokuServer, connect: Connect
) -> None:
    """ann (Black, no clock) plays one stone, sees the AI's answer and then does nothing,
    connected all along: once the move limit is over the AI claims, and she loses on
    time; not before the limit."""
    ann = await connect("ann", to=limited)
    room = (await ann.create(seat="black")).room.id
    await ann.send(m.SeatAi(room=room, level="beginner"))
    await ann.until_event(GameStarted)
    await ann.move(room, "h8")
    await ann.until(
        lambda x: isinstance(x, m.Event) and isinstance(x.event, Moved) and x.event.color == "white"
    )
    loop = asyncio.get_running_loop()
    answered = loop.time()
    over = await ann.until_event(GameOver)
    waited = loop.time() - answered
    assert (over.winner, over.reason) == ("white", "timeout")
    assert LIMIT_MS / 1000 - 0.05 <= waited < LIMIT_MS / 1000 + 3


def test_the_seat_counts_the_move_limit_from_each_turn_handed_over() -> None:
    """The AI (Black) knows when ann may be claimed against: from the snapshot, then
    from each stone and takeback (chat changes nothing), only while she is to act, and
    no more once the game is over."""
    view = RoomView(
        id="r1",
        rule=Rule.FREESTYLE,
        size=15,
        opening="free",  # type: ignore[arg-type]
        time=None,
        rated=False,
        private=False,
        players=Seats(
            black=PlayerRef(id="ai", name="AI", bot=True), white=PlayerRef(id="ann", name="ann")
        ),
        spectators=0,
        state="playing",
        moves=["h8"],
        to_move="white",
        clocks=None,
        move_deadline_ms=1_000,
        seq=3,
    )
    game = GameState.from_view(view, "ai", now=10.0, move_limit_ms=LIMIT_MS)
    assert (game.move_claim_at, game.opponent_to_act()) == (11.0, True)
    game.apply(ChatPosted(player="ann", name="ann", text="hm"), now=10.5)
    assert game.move_claim_at == 11.0
    game.apply(Moved(point="h9", color="white", move_no=2, clocks=None), now=12.0)
    assert (game.move_claim_at, game.opponent_to_act()) == (13.5, False)
    game.apply(Undone(points=["h9"], clocks=None), now=13.0)
    assert (game.move_claim_at, game.opponent_to_act()) == (14.5, True)
    game.apply(GameOver(winner="black", reason=Reason.TIMEOUT), now=15.0)
    assert not game.opponent_to_act()
    assert game.move_claim_at is None
