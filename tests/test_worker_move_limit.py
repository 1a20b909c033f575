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


async def test_a_person_gone_is_given_the_move_limit_before_the_ai_claims(
    make_server: Callable[..., Awaitable[GomokuServer]], thinker: Thinker, connect: Connect
) -> None:
    """ann's tablet locks right after the AI's answer (a 1 s grace here, a 4 s move limit):
    the AI claims the win once she has been gone for the move limit, not at the grace
    period's end (a child came back after a minute to "You lose" in a game that read
    "no clock (10:00 a move)"); back before it, she plays on."""
    rules = GameRules(grace_ms=1_000, untimed_move_ms=4_000)
    server = await make_server(ai_config(game=rules))
    async with worker_on(server, thinker):
        ann = await connect("ann", to=server)
        room = (await ann.create(seat="black")).room.id
        await ann.send(m.SeatAi(room=room, level="beginner"))
        await ann.until_event(GameStarted)
        watcher = await connect("bo", to=server)
        await watcher.join(room, role="spectator")

        def stone(number: int) -> Callable[[object], bool]:
            return lambda x: (
                isinstance(x, m.Event) and isinstance(x.event, Moved) and x.event.move_no == number
            )

        await ann.move(room, "h8")
        await ann.until(stone(2))  # the AI's answer
        await ann.ws.close()
        await asyncio.sleep(2.5)  # past the grace period, within the move limit
        back = await connect(to=server)
        await back.hello("ann", token=ann.token)
        await back.send(m.Resume(room=room, after=0))
        await back.until(stone(2))
        await back.move(room, "a1")  # the game goes on: it was not claimed
        await back.until(stone(4))
        loop = asyncio.get_running_loop()
        await back.ws.close()
        gone = loop.time()
        over = await watcher.until_event(GameOver)
        assert over.winner == "white"
        assert loop.time() - gone >= 4.0 - 0.3  # the move limit, not the 1 s grace


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
